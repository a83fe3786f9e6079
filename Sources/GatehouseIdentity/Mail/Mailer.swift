/// An email to send.
public struct MailMessage: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var textBody: String
    /// The same message as an HTML document; when set, the mail goes as multipart/alternative with the text
    /// first (RFC 2046 §5.1.4: the last part is the richest), so a text-only reader still gets every link.
    public var htmlBody: String?
    /// The language the words are in (a BCP 47 tag), for the HTML part's `lang` and `dir` and the
    /// `Content-Language` header; nil: not known, the server's default is assumed.
    public var language: String?

    public init(to: String, subject: String, textBody: String, htmlBody: String? = nil, language: String? = nil) {
        self.to = to; self.subject = subject; self.textBody = textBody; self.htmlBody = htmlBody; self.language = language
    }
}

/// Sends email: SMTP in production, the log in development.
public protocol Mailer: Sendable {
    func send(_ message: MailMessage) async throws
}
