import Foundation

/// Writes each message as one JSON line to the log instead of sending it: the development default,
/// so a newcomer can follow a password-reset link from the terminal.
public struct LogMailer: Mailer {
    let sink: @Sendable (String) -> Void

    public init(sink: @escaping @Sendable (String) -> Void) { self.sink = sink }

    public func send(_ message: MailMessage) async throws {
        let object: [String: String] = ["level": "info", "msg": "mail (log mailer: not sent)", "to": message.to,
                                        "subject": message.subject, "body": message.textBody]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        sink(String(decoding: data, as: UTF8.self) + "\n")
    }
}
