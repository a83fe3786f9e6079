import Foundation
@testable import GatehouseMail
import Testing

/// Parsing the `mail` configuration object: defaults, errors that name the key, no password leaks.
@Suite struct SMTPConfigurationTests {
    static func parse(_ text: String) throws -> SMTPConfiguration {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        return try SMTPConfiguration(json: object)
    }

    static func problemKey(_ text: String) -> String? {
        do { _ = try parse(text); return nil } catch let error as SMTPConfigurationError { return error.key } catch { return "?" }
    }

    @Test func parsesAFullObject() throws {
        let configuration = try Self.parse("""
            {"url": "smtps://mail.example.test:465", "from": "noreply@example.test", "from_name": "Example",
             "username": "relay-user", "password": "Hunter2-Secret", "starttls": "optional",
             "timeout_seconds": {"connect": 3, "total": 20}}
            """)
        #expect(configuration.url == "smtps://mail.example.test:465")
        #expect(configuration.usesImplicitTLS)
        #expect(configuration.fromName == "Example")
        #expect(configuration.username == "relay-user")
        #expect(configuration.startTLS == .optional)
        #expect(configuration.connectTimeoutSeconds == 3)
        #expect(configuration.totalTimeoutSeconds == 20)
    }

    @Test func defaultsRequireStartTLSAndSingleTimeoutIsTheTotal() throws {
        let configuration = try Self.parse(#"{"url": "smtp://relay.test:587", "from": "a@example.test", "timeout_seconds": 5}"#)
        #expect(configuration.startTLS == .required)
        #expect(!configuration.usesImplicitTLS)
        #expect(configuration.totalTimeoutSeconds == 5)
        #expect(configuration.connectTimeoutSeconds == 5)
        #expect(configuration.username == nil && configuration.password == nil)
    }

    @Test(arguments: [
        (#"{"from": "a@example.test"}"#, "url"),
        (#"{"url": "http://relay.test", "from": "a@example.test"}"#, "url"),
        (#"{"url": "smtp://user:pw@relay.test", "from": "a@example.test"}"#, "url"),
        (#"{"url": "smtp://relay.test/path", "from": "a@example.test"}"#, "url"),
        (#"{"url": "smtp://relay.test"}"#, "from"),
        (#"{"url": "smtp://relay.test", "from": "A <a@example.test>"}"#, "from"),
        (#"{"url": "smtp://relay.test", "from": "a@example.test", "from_name": "Evil\r\nBcc: x"}"#, "from_name"),
        (#"{"url": "smtp://relay.test", "from": "a@example.test", "starttls": "maybe"}"#, "starttls"),
        (#"{"url": "smtp://relay.test", "from": "a@example.test", "starttls": true}"#, "starttls"),
        (#"{"url": "smtp://relay.test", "from": "a@example.test", "timeout_seconds": 1.5}"#, "timeout_seconds"),
        (#"{"url": "smtp://relay.test", "from": "a@example.test", "timeout_seconds": true}"#, "timeout_seconds"),
        (#"{"url": "smtp://relay.test", "from": "a@example.test", "timeout_seconds": {"connect": 0}}"#, "timeout_seconds.connect"),
        (#"{"url": "smtp://relay.test", "from": "a@example.test", "timeout_seconds": {"conect": 3}}"#, "timeout_seconds.conect"),
        (#"{"url": "smtp://relay.test", "from": "a@example.test", "username": "u"}"#, "password"),
        (#"{"url": "smtp://relay.test", "from": "a@example.test", "password": "p"}"#, "username"),
        (#"{"url": "smtp://relay.test", "from": "a@example.test", "ca_file": "/nonexistent/ca.pem"}"#, "ca_file"),
        (#"{"url": "smtp://relay.test", "from": "a@example.test", "pasword": "p"}"#, "pasword"),
    ])
    func errorsNameTheKey(json: String, key: String) {
        #expect(Self.problemKey(json) == key)
    }

    @Test func errorsAndDescriptionsNeverShowThePassword() throws {
        let secret = "Hunter2-Secret"
        let configuration = try Self.parse(#"{"url": "smtp://relay.test", "from": "a@example.test", "username": "u", "password": "\#(secret)"}"#)
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [String(describing: configuration), String(reflecting: configuration), dumped] {
            #expect(!text.contains(secret))
            #expect(text.contains("<redacted>"))
        }
        do {
            _ = try Self.parse(#"{"url": "smtp://u:\#(secret)@relay.test", "from": "a@example.test"}"#)
            Issue.record("credentials in the URL were accepted")
        } catch {
            #expect(!String(describing: error).contains(secret))
        }
    }
}
