import Foundation
import GatehouseIdentity

/// Sends mail through an SMTP relay with libcurl.
///
/// ```swift
/// let mailer = try SMTPMailer(json: mailObject)   // throws SMTPConfigurationError naming the key
/// try await mailer.send(MailMessage(to: "ada@example.com", subject: "Reset your password", textBody: "…"))
/// ```
///
/// Each attempt runs on a thread of its own, because libcurl blocks for up to the total timeout
/// and Swift's cooperative pool (two threads here) must never be blocked. Transient failures
/// (refused or timed-out connections, 4xx replies) are retried with doubling back-off; permanent
/// ones (5xx, bad credentials, TLS) are thrown at once. Mail volume is low and rate-limited
/// upstream, so a thread per attempt costs little and one slow relay never queues other mail.
public struct SMTPMailer: Mailer {
    public let configuration: SMTPConfiguration

    public init(configuration: SMTPConfiguration) { self.configuration = configuration }

    /// Parses the `mail` configuration object (see ``SMTPConfiguration/init(json:)``).
    public init(json: [String: Any]) throws(SMTPConfigurationError) {
        self.init(configuration: try SMTPConfiguration(json: json))
    }

    /// Sends one message.
    ///
    /// - Throws: ``SMTPMailError`` (invalid message, or the last failure after all attempts), or
    ///   `CancellationError` when the task is cancelled while waiting to retry.
    public func send(_ message: MailMessage) async throws {
        let prepared = try RFC5322Message(message, from: configuration)
        let transfer = CurlSMTPTransfer(configuration: configuration)
        let attempts = max(1, configuration.maxAttempts)
        var delay = configuration.initialRetryDelay
        for attempt in 1...attempts {
            let failure = await Self.onDedicatedThread { transfer.send(prepared) }
            guard let failure else { return }
            guard failure.isTransient, attempt < attempts else { throw failure.with(attempts: attempt) }
            try await Task.sleep(for: delay)
            delay *= 2
        }
    }

    /// Runs blocking work on a new thread and resumes the caller when it is done.
    static func onDedicatedThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.name = "gatehouse-smtp"
            thread.start()
        }
    }
}
