/// Why a message was not sent. Never carries the password: details come from libcurl's error
/// text, which is scrubbed of it anyway, and from the SMTP reply code.
public struct SMTPMailError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The message itself is unusable (bad recipient, CR/LF in a header): never sent, never retried.
        case invalidMessage
        /// No connection to the relay (refused, unreachable, unknown host) after every attempt.
        case connectionFailed
        /// The relay did not answer in time, after every attempt.
        case timedOut
        /// The relay refused the username and password. Not retried.
        case authenticationFailed
        /// A permanent 5xx reply (e.g. unknown recipient, relaying denied). Not retried.
        case rejected
        /// A 4xx reply on every attempt (e.g. greylisting, mailbox busy).
        case temporarilyRejected
        /// TLS could not be set up or the relay's certificate was not trusted (or STARTTLS was
        /// required and not offered). Not retried.
        case tls
        /// Any other libcurl failure.
        case transport
    }

    public let kind: Kind
    /// The last SMTP reply code, when the relay sent one (e.g. 535, 550, 451).
    public let replyCode: Int?
    /// How many attempts were made (0 for an invalid message).
    public let attempts: Int
    /// A short human-readable explanation (libcurl's text, scrubbed of the password).
    public let detail: String

    public init(kind: Kind, replyCode: Int? = nil, attempts: Int, detail: String) {
        self.kind = kind; self.replyCode = replyCode; self.attempts = attempts; self.detail = detail
    }

    /// Worth another attempt later: the relay may be back, or the 4xx condition may have cleared.
    var isTransient: Bool { kind == .connectionFailed || kind == .timedOut || kind == .temporarilyRejected }

    func with(attempts: Int) -> SMTPMailError {
        SMTPMailError(kind: kind, replyCode: replyCode, attempts: attempts, detail: detail)
    }

    public var description: String {
        let reply = replyCode.map { ", reply \($0)" } ?? ""
        let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        return "mail not sent (\(kind.rawValue)\(reply), \(tries)): \(detail)"
    }

    static func invalidMessage(_ field: String, _ problem: String) -> SMTPMailError {
        SMTPMailError(kind: .invalidMessage, attempts: 0, detail: "\(field) \(problem)")
    }
}
