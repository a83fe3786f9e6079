import Foundation
import GatehouseIdentity
@testable import GatehouseMail
import Testing

/// The message builder on its own: header injection, encodings, line endings.
@Suite struct RFC5322MessageTests {
    static let configuration = try! SMTPConfiguration(url: "smtp://127.0.0.1:2525", fromAddress: "noreply@gatehouse.test",
                                                      startTLS: .off)

    static func text(_ message: RFC5322Message) -> String { String(decoding: message.data, as: UTF8.self) }

    @Test(arguments: ["Hello\r\nBcc: eve@example.test", "Hello\nBcc: eve@example.test", "Hello\rX: y", "Tab\tin subject",
                      "Hello\u{2028}Bcc: eve@example.test"])
    func subjectWithLineBreaksIsRefused(subject: String) throws {
        let error = #expect(throws: SMTPMailError.self) {
            try RFC5322Message(MailMessage(to: "ada@example.test", subject: subject, textBody: "x"), from: Self.configuration)
        }
        #expect(error?.kind == .invalidMessage)
        #expect(error?.attempts == 0)
    }

    @Test(arguments: ["ada@example.test\r\nBcc: eve@example.test", "ada@example.test\n", "ada@example.test, eve@example.test",
                      "Ada <ada@example.test>", "not-an-address", "ada@", "@example.test", "ada@exa mple.test"])
    func recipientThatIsNotOnePlainAddressIsRefused(to: String) throws {
        let error = #expect(throws: SMTPMailError.self) {
            try RFC5322Message(MailMessage(to: to, subject: "Hi", textBody: "x"), from: Self.configuration)
        }
        #expect(error?.kind == .invalidMessage)
    }

    @Test func mailerRefusesInjectionBeforeConnecting() async throws {
        // Port 1 on loopback: were the message not refused first, this would be a connection error.
        let mailer = SMTPMailer(configuration: try SMTPConfiguration(url: "smtp://127.0.0.1:1", fromAddress: "noreply@gatehouse.test",
                                                                     startTLS: .off))
        let error = await #expect(throws: SMTPMailError.self) {
            try await mailer.send(MailMessage(to: "ada@example.test", subject: "Hi\r\nBcc: eve@example.test", textBody: "x"))
        }
        #expect(error?.kind == .invalidMessage)
    }

    @Test func encodedWordsStayWithinSeventyFiveCharactersAndRoundTrip() throws {
        let subject = String(repeating: "Zürich 東京 ", count: 12)
        let encoded = MIMEEncoding.headerText(subject, after: "Subject: ")
        let words = encoded.components(separatedBy: "\r\n ")
        #expect(words.count > 1)
        #expect(("Subject: " + words[0]).count <= 76)
        var decoded = Data()
        for word in words {
            #expect(word.count <= 75)
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            let payload = word.dropFirst(10).dropLast(2)
            let bytes = try #require(Data(base64Encoded: String(payload)))
            #expect(String(data: bytes, encoding: .utf8) != nil, "a word was cut inside a character")
            decoded += bytes
        }
        #expect(String(decoding: decoded, as: UTF8.self) == subject)
        #expect(MIMEEncoding.headerText("Plain ASCII subject") == "Plain ASCII subject")
    }

    @Test func quotedPrintableSoftBreaksLongLinesAndEncodesTrailingSpace() {
        let encoded = MIMEEncoding.quotedPrintable(lines: [Substring(String(repeating: "a=é", count: 40)), "end "])
        let lines = encoded.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 76 })
        #expect(lines.dropLast(2).allSatisfy { $0.hasSuffix("=") })
        #expect(lines.count > 3)
        #expect(lines.last == "end=20")
        #expect(encoded.contains("=3D"))
        #expect(encoded.contains("=C3=A9"))
    }

    @Test func headersAndBodyUseCRLFAndEndWithOneLineBreak() throws {
        let message = try RFC5322Message(MailMessage(to: "ada@example.test", subject: "Hi", textBody: "one\ntwo\n"),
                                         from: Self.configuration, date: Date(timeIntervalSince1970: 0))
        let text = Self.text(message)
        #expect(text.hasSuffix("\r\n\r\none\r\ntwo\r\n"))
        #expect(text.contains("Date: Thu, 1 Jan 1970 00:00:00 +0000\r\n"))
        #expect(text.contains("From: <noreply@gatehouse.test>\r\n"))
        #expect(text.contains("Content-Transfer-Encoding: 7bit\r\n"))
        #expect(message.envelopeFrom == "noreply@gatehouse.test")
        #expect(message.recipients == ["ada@example.test"])
    }

    @Test func displayNameIsQuotedOrEncoded() {
        #expect(RFC5322Message.displayName("Example, Inc.") == "\"Example, Inc.\"")
        #expect(RFC5322Message.displayName("Say \"hi\"") == "\"Say \\\"hi\\\"\"")
        #expect(RFC5322Message.displayName("Gatehouse Tëst").hasPrefix("=?UTF-8?B?"))
    }
}

/// A message with an HTML body: multipart/alternative, the text part first, each part with its own encoding.
@Suite struct MultipartMessageTests {
    @Test func textAndHTMLGoAsMultipartAlternativeTextFirst() throws {
        let message = try RFC5322Message(MailMessage(to: "ada@example.test", subject: "Hi", textBody: "Open https://id.example/x\n",
                                                     htmlBody: "<p>Grüße, <a href=\"https://id.example/x\">open</a></p>"),
                                         from: RFC5322MessageTests.configuration, date: Date(timeIntervalSince1970: 0))
        let text = RFC5322MessageTests.text(message)
        let (head, body) = try #require(text.firstRange(of: "\r\n\r\n").map { (text[..<$0.lowerBound], text[$0.upperBound...]) })
        let boundary = try #require(head.firstMatch(of: /Content-Type: multipart\/alternative; boundary="([^"]+)"/)?.1)
        #expect(head.contains("MIME-Version: 1.0") && head.contains("Date: Thu, 1 Jan 1970 00:00:00 +0000"))
        #expect(head.contains("Message-ID: <") && !head.contains("Content-Transfer-Encoding"))
        let parts = body.components(separatedBy: "--\(boundary)")
        // Preamble (empty), the text part, the HTML part, and "--" plus the final CRLF after the closing delimiter.
        #expect(parts.count == 4 && parts[0].isEmpty && parts[3] == "--\r\n")
        #expect(parts[1].hasPrefix("\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nOpen https://id.example/x\r\n"))
        #expect(parts[2].hasPrefix("\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"))
        #expect(parts[2].contains("Gr=C3=BC=C3=9Fe") && parts[2].contains("href=3D\"https://id.example/x\""))
        #expect(!boundary.contains(where: \.isWhitespace) && boundary.count <= 70, "RFC 2046 §5.1.1: at most 70 characters")
        let bytes = message.data
        #expect(!bytes.indices.contains { bytes[$0] == 0x0A && ($0 == 0 || bytes[$0 - 1] != 0x0D) }, "CRLF line endings only")
    }

    @Test func theLanguageIsNamedInContentLanguageWhenItIsAPlainTag() throws {
        func head(_ language: String?) throws -> String {
            let message = try RFC5322Message(MailMessage(to: "ada@example.test", subject: "Hi", textBody: "x\n", language: language),
                                             from: RFC5322MessageTests.configuration)
            let text = RFC5322MessageTests.text(message)
            return String(text[..<(text.firstRange(of: "\r\n\r\n")?.lowerBound ?? text.endIndex)])
        }
        #expect(try head("ar").contains("\r\nContent-Language: ar\r\n"))
        #expect(try head("de-CH").contains("Content-Language: de-CH"))
        #expect(try !head(nil).contains("Content-Language"))
        // Whatever is not a tag's shape is left out, never written into the head.
        for hostile in ["en\r\nBcc: eve@example.test", "en us", "", "-en", "toolongsubtag", "ar-"] {
            #expect(try !head(hostile).contains("Content-Language"), "\(hostile)")
            #expect(try !head(hostile).contains("Bcc"))
        }
    }
}
