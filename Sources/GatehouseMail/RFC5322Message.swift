import Foundation
import GatehouseIdentity

/// One message ready for the SMTP DATA phase: the envelope and the RFC 5322 bytes.
struct RFC5322Message: Sendable {
    let envelopeFrom: String
    let recipients: [String]
    /// Headers and body with CRLF line endings. Not dot-stuffed: libcurl does that while sending.
    let data: [UInt8]

    /// Builds the headers (Date, From, To, Subject, Message-ID, MIME-Version, Content-Type,
    /// Content-Transfer-Encoding) and the body — multipart/alternative (text, then HTML) when the message has
    /// an HTML body; refuses anything that could inject a header.
    init(_ message: MailMessage, from configuration: SMTPConfiguration, date: Date = Date()) throws(SMTPMailError) {
        guard !message.to.contains(where: \.isNewline) else { throw .invalidMessage("to", "contains a line break") }
        guard MailAddress.isValid(message.to) else { throw .invalidMessage("to", "is not a plain email address") }
        guard !message.subject.unicodeScalars.contains(where: Self.breaksHeader) else {
            throw .invalidMessage("subject", "contains a line break or control character")
        }

        let text = Self.part(message.textBody, type: "text/plain")
        var from = "<\(configuration.fromAddress)>"
        if let name = configuration.fromName { from = Self.displayName(name, after: "From: ") + " " + from }
        var headers = [
            "Date: \(Self.rfc5322Date(date))",
            "From: \(from)",
            "To: <\(message.to)>",
            "Subject: \(MIMEEncoding.headerText(message.subject, after: "Subject: "))",
            "Message-ID: <\(Self.randomToken())@\(MailAddress.domain(of: configuration.fromAddress))>",
            "MIME-Version: 1.0",
        ]
        // RFC 3282: the reader's client may pick a voice or a spell checker by it. Only a plain tag is written.
        if let language = message.language, Self.isLanguageTag(language) { headers.append("Content-Language: \(language)") }
        let content: String
        if let html = message.htmlBody {
            // "=_" never occurs in quoted-printable output (RFC 2045 §6.7 suggests it), and 128 random bits
            // never occur in a 7bit part by chance.
            let boundary = "=_gh" + Self.randomToken()
            // The CRLF before a delimiter belongs to it (RFC 2046 §5.1.1): each part gets one more, so its
            // text ends with a line break as a single-part body does.
            let parts = [text, Self.part(html, type: "text/html")].map { "--\(boundary)\r\n" + $0.headers + "\r\n\r\n" + $0.body + "\r\n\r\n" }
            content = "Content-Type: multipart/alternative; boundary=\"\(boundary)\"\r\n\r\n"
                + parts.joined() + "--\(boundary)--"
        } else {
            content = text.headers + "\r\n\r\n" + text.body
        }
        envelopeFrom = configuration.fromAddress
        recipients = [message.to]
        data = Array((headers.joined(separator: "\r\n") + "\r\n" + content + "\r\n").utf8)
    }

    /// A BCP 47 tag's shape (RFC 5646 §2.1): letter-or-digit subtags of 1–8 joined by hyphens, starting with letters.
    static func isLanguageTag(_ tag: String) -> Bool {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard tag.utf8.count <= 35, let first = subtags.first, first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return subtags.allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// One body (the whole message, or a part of a multipart one): its Content-Type and
    /// Content-Transfer-Encoding header lines and the encoded text with CRLF line endings.
    static func part(_ text: String, type: String) -> (headers: String, body: String) {
        var lines = Self.lines(of: text)
        // The message always ends with CRLF; a final line break in the text is that one.
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        let isPlainASCII = text.utf8.allSatisfy(Self.isPlainASCII)
        // 7bit needs ASCII lines of at most 998 octets (RFC 5322 §2.1.1); anything else goes
        // quoted-printable rather than 8bit, because libcurl does not negotiate 8BITMIME.
        let use7bit = isPlainASCII && lines.allSatisfy { $0.utf8.count <= 998 }
        let body = use7bit ? lines.joined(separator: "\r\n") : MIMEEncoding.quotedPrintable(lines: lines)
        return ("Content-Type: \(type); charset=utf-8\r\nContent-Transfer-Encoding: \(use7bit ? "7bit" : "quoted-printable")", body)
    }

    /// Control characters, and the Unicode line and paragraph separators some mail software folds on.
    private static func breaksHeader(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// Printable ASCII, tab, or a line-break byte: text that 7bit carries unchanged.
    private static func isPlainASCII(_ byte: UInt8) -> Bool {
        (byte >= 0x20 && byte < 0x7F) || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Splits on CRLF, LF or lone CR, so the output has only CRLF line endings.
    static func lines(of text: String) -> [Substring] {
        // Swift treats "\r\n" as one Character, so each kind of break is one separator.
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" })
    }

    /// A display name as an encoded-word when not ASCII, otherwise a quoted string (so commas,
    /// dots and parentheses in names need no thought).
    static func displayName(_ name: String, after prefix: String = "") -> String {
        let encoded = MIMEEncoding.headerText(name, after: prefix)
        if encoded != name { return encoded }
        return "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// `Tue, 14 May 2024 09:05:00 +0000`, in English whatever the locale.
    static func rfc5322Date(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int?) -> String { let v = n ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(days[(c.weekday ?? 1) - 1]), \(c.day ?? 1) \(months[(c.month ?? 1) - 1]) \(c.year ?? 1970) "
            + "\(two(c.hour)):\(two(c.minute)):\(two(c.second)) +0000"
    }

    /// 128 random bits in hex: unique Message-IDs without leaking host names or counters.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
