import Foundation
import GatehouseIdentity
import GatehouseServer
import Testing

@Suite("webhooks and back-channel logout configuration")
struct EventsConfigurationTests {
    static func write(_ json: String) throws -> String {
        let path = NSTemporaryDirectory() + "gatehouse-events-\(UUID().uuidString).json"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let secret = "0123456789abcdefghijklmnopqrstuvwxyz"

    @Test func webhooksAndBackchannelLogoutAreRead() throws {
        let path = try Self.write("""
            {"users": {"subject_source": "external_id"},
             "webhooks": [{"url": "https://app.example/hooks", "secret_env": "HOOK_SECRET", "events": ["user.deleted", "session.ended"]},
                          {"url": "http://127.0.0.1:3000/hooks", "secret": "\(Self.secret)"}],
             "clients": [{"id": "web", "type": "confidential", "secret": "\(Self.secret)", "redirect_uris": ["https://app.example/cb"],
                          "backchannel_logout_uri": "https://app.example/logout", "backchannel_logout_session_required": true}]}
            """)
        let configuration = try GatehouseConfiguration.load(environment: ["HOOK_SECRET": Self.secret + "-env"], configPath: path)
        #expect(configuration.subjectSource == .productUserId)
        #expect(configuration.webhooks.count == 2)
        #expect(configuration.webhooks[0].secret == Self.secret + "-env")
        #expect(configuration.webhooks[0].events == [.userDeleted, .sessionEnded])
        #expect(configuration.webhooks[1].events == Set(AccountEventType.allCases), "no events: every event")
        let registration = try #require(BackchannelLogoutRegistration(metadata: configuration.clients[0].registration.metadata))
        #expect(registration.uri.absoluteString == "https://app.example/logout")
        #expect(registration.sessionRequired)
    }

    @Test(arguments: [
        (#"{"webhooks": {}}"#, "webhooks"),
        (#"{"webhooks": [{"url": "http://app.example/hooks", "secret": "\#(secret)"}]}"#, "webhooks[0].url"),
        (#"{"webhooks": [{"url": "https://app.example/hooks", "secret": "short"}]}"#, "webhooks[0].secret"),
        (#"{"webhooks": [{"url": "https://app.example/hooks"}]}"#, "webhooks[0].secret"),
        (#"{"webhooks": [{"url": "https://app.example/hooks", "secret_env": "UNSET"}]}"#, "webhooks[0].secret_env"),
        (#"{"webhooks": [{"url": "https://app.example/hooks", "secret": "\#(secret)", "events": ["user.exploded"]}]}"#, "webhooks[0].events"),
        (#"{"webhooks": [{"url": "https://app.example/hooks", "secret": "\#(secret)", "events": []}]}"#, "webhooks[0].events"),
        (#"{"webhooks": [{"url": "https://app.example/hooks", "secret": "\#(secret)", "retries": 3}]}"#, "webhooks[0].retries"),
        (#"{"webhooks": [{"url": "https://a.example/h", "secret": "\#(secret)"}, {"url": "https://a.example/h", "secret": "\#(secret)"}]}"#,
         "webhooks[1].url"),
        (#"{"clients": [{"id": "w", "backchannel_logout_uri": "http://app.example/logout"}]}"#, "clients[0].backchannel_logout_uri"),
        (#"{"clients": [{"id": "w", "backchannel_logout_uri": "https://app.example/logout#x"}]}"#, "clients[0].backchannel_logout_uri"),
        (#"{"clients": [{"id": "w", "backchannel_logout_session_required": true}]}"#, "clients[0].backchannel_logout_session_required"),
    ])
    func badSettingsNameTheKey(json: String, key: String) throws {
        let path = try Self.write(json)
        #expect(throws: ConfigurationError.self) { try GatehouseConfiguration.load(environment: [:], configPath: path) }
        do { _ = try GatehouseConfiguration.load(environment: [:], configPath: path) } catch {
            #expect(error.key == key)
        }
    }
}
