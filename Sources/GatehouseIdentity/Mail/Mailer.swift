/// An email to send.
public struct MailMessage: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var textBody: String

    public init(to: String, subject: String, textBody: String) {
        self.to = to; self.subject = subject; self.textBody = textBody
    }
}

/// Sends email: SMTP in production, the log in development.
public protocol Mailer: Sendable {
    func send(_ message: MailMessage) async throws
}
