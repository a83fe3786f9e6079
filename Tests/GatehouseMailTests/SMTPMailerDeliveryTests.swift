import Foundation
import GatehouseIdentity
@testable import GatehouseMail
import Testing

/// Sends through libcurl to a real SMTP server (aiosmtpd) and checks what arrived.
@Suite struct SMTPMailerDeliveryTests {
    static let from = "noreply@gatehouse.test"

    static func configuration(port: Int, username: String? = nil, password: String? = nil,
                              startTLS: SMTPConfiguration.StartTLS = .off) throws -> SMTPConfiguration {
        var configuration = try SMTPConfiguration(url: "smtp://127.0.0.1:\(port)", fromAddress: from,
                                                  fromName: "Gatehouse Tëst", username: username, password: password,
                                                  startTLS: startTLS, connectTimeoutSeconds: 10, totalTimeoutSeconds: 30)
        configuration.initialRetryDelay = .milliseconds(50)
        return configuration
    }

    @Test func deliversUTF8MessageWithHeadersAndIntactBody() async throws {
        let subject = "Réinitialiser votre mot de passe — Gatehouse ✓ (un sujet assez long pour être coupé)"
        let longLine = String(repeating: "0123456789", count: 120)
        let body = "Bonjour Ada,\n\n.This line starts with a dot\n.\n..two dots\nTrailing space \nÜnïcödé = ☃\n\(longLine)\nlast line"
        let received = try await SMTPSink.with { sink async throws in
            try await SMTPMailer(configuration: Self.configuration(port: sink.port))
                .send(MailMessage(to: "ada@example.test", subject: subject, textBody: body))
            return try sink.messages()
        }
        try #require(received.count == 1)
        let mail = received[0]
        #expect(mail.mailFrom == Self.from)
        #expect(mail.rcptTos == ["ada@example.test"])
        for name in ["Date", "From", "To", "Subject", "Message-ID", "MIME-Version", "Content-Type", "Content-Transfer-Encoding"] {
            #expect(mail.headers[name] != nil, "missing header \(name)")
        }
        #expect(mail.headers["Subject"] == subject)
        #expect(mail.rawHeaders["Subject"]?.hasPrefix("=?UTF-8?B?") == true)
        #expect(mail.headers["From"] == "Gatehouse Tëst <noreply@gatehouse.test>")
        #expect(mail.headers["To"] == "ada@example.test")
        #expect(mail.headers["Content-Type"] == "text/plain; charset=\"utf-8\"" || mail.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(mail.headers["Content-Transfer-Encoding"] == "quoted-printable")
        #expect(mail.headers["Message-ID"]?.hasSuffix("@gatehouse.test>") == true)
        #expect(mail.headers["Date"]?.wholeMatch(of: /[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d \+0000/) != nil)
        #expect(mail.body == body + "\n")
        #expect(mail.defects.isEmpty)
        // CRLF only, and every line short enough for any relay.
        let raw = mail.raw
        #expect(!raw.indices.contains { raw[$0] == 0x0A && ($0 == 0 || raw[$0 - 1] != 0x0D) })
        #expect(raw.split(separator: 0x0A).allSatisfy { $0.count <= 78 })
    }

    @Test func asciiBodyGoesAs7bitWithDotLinesIntact() async throws {
        let body = ".\n.leading dot\n..\nplain text\r\nwith CRLF\rand CR\n"
        let received = try await SMTPSink.with { sink async throws in
            try await SMTPMailer(configuration: Self.configuration(port: sink.port))
                .send(MailMessage(to: "bob@example.test", subject: "Plain subject", textBody: body))
            return try sink.messages()
        }
        try #require(received.count == 1)
        #expect(received[0].rawHeaders["Subject"] == "Plain subject")
        #expect(received[0].headers["Content-Transfer-Encoding"] == "7bit")
        #expect(received[0].body == ".\n.leading dot\n..\nplain text\nwith CRLF\nand CR\n")
    }

    @Test func authenticatesWithUsernameAndPassword() async throws {
        let received = try await SMTPSink.with(user: "gatehouse", password: "s3cret-Pa55") { sink async throws in
            try await SMTPMailer(configuration: Self.configuration(port: sink.port, username: "gatehouse", password: "s3cret-Pa55"))
                .send(MailMessage(to: "ada@example.test", subject: "Signed in", textBody: "Hello"))
            return try sink.messages()
        }
        try #require(received.count == 1)
        #expect(received[0].authLogin == "gatehouse")
        #expect(received[0].body == "Hello\n")
    }

    @Test func wrongPasswordFailsWithTypedErrorThatHidesThePassword() async throws {
        let wrong = "Wrong-Secret-91"
        try await SMTPSink.with(user: "gatehouse", password: "s3cret-Pa55") { sink async throws in
            let mailer = SMTPMailer(configuration: try Self.configuration(port: sink.port, username: "gatehouse", password: wrong))
            let error = await #expect(throws: SMTPMailError.self) {
                try await mailer.send(MailMessage(to: "ada@example.test", subject: "Hi", textBody: "Hello"))
            }
            #expect(error?.kind == .authenticationFailed)
            #expect(error?.attempts == 1)
            #expect(error?.replyCode == 535)
            for text in [String(describing: error), String(reflecting: error), error?.localizedDescription ?? ""] {
                #expect(!text.contains(wrong))
            }
            #expect(try sink.messages().isEmpty)
        }
    }

    @Test func withoutCredentialsTheAuthRequiringRelayRefuses() async throws {
        try await SMTPSink.with(user: "gatehouse", password: "s3cret-Pa55") { sink async throws in
            let error = await #expect(throws: SMTPMailError.self) {
                try await SMTPMailer(configuration: Self.configuration(port: sink.port))
                    .send(MailMessage(to: "ada@example.test", subject: "Hi", textBody: "Hello"))
            }
            #expect(error?.kind == .rejected)
            #expect(error?.replyCode == 530)
            #expect(try sink.messages().isEmpty)
        }
    }

    @Test func refusedConnectionIsRetriedThenReportedAsConnectionFailure() async throws {
        let port = try unusedLoopbackPort()
        let mailer = SMTPMailer(configuration: try Self.configuration(port: port))
        let started = ContinuousClock.now
        let error = await #expect(throws: SMTPMailError.self) {
            try await mailer.send(MailMessage(to: "ada@example.test", subject: "Hi", textBody: "Hello"))
        }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.attempts == 3)
        #expect(error?.replyCode == nil)
        // Back-off of 50 + 100 ms happened between the attempts (a lower bound only: no speed targets in unit tests).
        #expect(ContinuousClock.now - started >= .milliseconds(150))
    }

    @Test func permanentRejectionIsNotRetried() async throws {
        try await SMTPSink.with { sink async throws in
            let error = await #expect(throws: SMTPMailError.self) {
                try await SMTPMailer(configuration: Self.configuration(port: sink.port))
                    .send(MailMessage(to: "reject@example.test", subject: "Hi", textBody: "Hello"))
            }
            #expect(error?.kind == .rejected)
            #expect(error?.replyCode == 550)
            #expect(error?.attempts == 1)
            #expect(sink.recipientsTried() == ["reject@example.test"])
        }
    }

    @Test func temporaryRejectionIsRetriedWithBackOff() async throws {
        try await SMTPSink.with { sink async throws in
            let error = await #expect(throws: SMTPMailError.self) {
                try await SMTPMailer(configuration: Self.configuration(port: sink.port))
                    .send(MailMessage(to: "tempfail@example.test", subject: "Hi", textBody: "Hello"))
            }
            #expect(error?.kind == .temporarilyRejected)
            #expect(error?.replyCode == 451)
            #expect(error?.attempts == 3)
            #expect(sink.recipientsTried().count == 3)
        }
    }

    @Test func requiredStartTLSRefusesARelayWithoutTLS() async throws {
        try await SMTPSink.with { sink async throws in
            let error = await #expect(throws: SMTPMailError.self) {
                try await SMTPMailer(configuration: Self.configuration(port: sink.port, startTLS: .required))
                    .send(MailMessage(to: "ada@example.test", subject: "Hi", textBody: "Hello"))
            }
            #expect(error?.kind == .tls)
            #expect(error?.attempts == 1)
            #expect(sink.recipientsTried().isEmpty)
        }
    }

    @Test func optionalStartTLSFallsBackToPlainText() async throws {
        let received = try await SMTPSink.with { sink async throws in
            try await SMTPMailer(configuration: Self.configuration(port: sink.port, startTLS: .optional))
                .send(MailMessage(to: "ada@example.test", subject: "Hi", textBody: "Hello"))
            return try sink.messages()
        }
        #expect(received.count == 1)
    }

    @Test func multipartMailArrivesWithBothPartsAsPythonsParserReadsThem() async throws {
        let html = "<!doctype html><html><body><p>Bonjour Zoë, <a href=\"https://id.example.test/x\">ouvrir</a></p></body></html>"
        let received = try await SMTPSink.with { sink async throws in
            try await SMTPMailer(configuration: Self.configuration(port: sink.port))
                .send(MailMessage(to: "ada@example.test", subject: "Hi", textBody: "Bonjour Zoë\nhttps://id.example.test/x\n", htmlBody: html))
            return try sink.messages()
        }
        try #require(received.count == 1)
        let mail = received[0]
        #expect(mail.parts == ["text/plain", "text/html"])
        #expect(mail.headers["Content-Type"]?.hasPrefix("multipart/alternative") == true)
        #expect(mail.body == "Bonjour Zoë\nhttps://id.example.test/x\n")
        #expect(mail.html == html + "\n")
        #expect(mail.defects.isEmpty)
        #expect(mail.headers["Message-ID"]?.hasSuffix("@gatehouse.test>") == true)
    }
}
