import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseProviderSimulator
import GatehouseProviders
import GatehouseServer
import Testing

/// `gatehouse providers check` proves Apple's team id, key id and key together against the simulator,
/// which verifies client secrets as Apple does.
@Suite struct AppleCredentialsCheckTests {
    struct Refused: Error {}
    struct Nowhere: ProviderTransport {
        func send(_ request: ProviderHTTPRequest) async throws -> ProviderHTTPResponse { throw Refused() }
    }

    static let base = "http://127.0.0.1:8080/_sim"

    func check(_ tweak: (inout AppleSettings) -> Void) async throws -> ProvidersCheck.Result {
        let demo = try ProviderSimulator.Configuration.demo(baseURL: Self.base, appleRedirectURI: "http://127.0.0.1:8080/auth/apple/callback",
                                                            googleRedirectURI: "http://127.0.0.1:8080/auth/google/callback",
                                                            githubRedirectURI: "http://127.0.0.1:8080/auth/github/callback")
        let simulator = try ProviderSimulator(configuration: demo.configuration)
        let transport = InProcessProviderTransport(base: "http://127.0.0.1:8080", pipeline: RequestPipeline(router: simulator.makeRouter()),
                                                   fallback: Nowhere())
        func url(_ text: String) -> URL { URL(string: text)! }
        var settings = AppleSettings(clientID: demo.apple.clientID, teamID: demo.apple.teamID, keyID: demo.apple.keyID,
                                     privateKeyPEM: demo.apple.privateKeyPEM, extraAudiences: ["com.example.app"],
                                     authorizationEndpoint: url(demo.apple.authorizationEndpoint), tokenEndpoint: url(demo.apple.tokenEndpoint),
                                     jwksURI: url(demo.apple.jwksURI), revocationEndpoint: url(demo.apple.revocationEndpoint))
        tweak(&settings)
        var providers = ProvidersConfiguration()
        providers.apple = settings
        return await ProvidersCheck(timeoutSeconds: 2, transport: transport,
                                    appleRedirectURI: "http://127.0.0.1:8080/auth/apple/callback").run(providers)[0]
    }

    @Test func matchingCredentialsPass() async throws {
        let result = try await check { _ in }
        #expect(result.ok, "\(result.notes)")
        #expect(result.notes.contains { $0.contains("Apple accepted the client secret") && $0.contains("invalid_grant") })
    }

    @Test(arguments: ["team", "key id", "key", "services id"])
    func eachWrongPartIsInvalidClient(_ part: String) async throws {
        let otherKey = try SigningKey.generate(.es256).pkcs8PEM()
        let result = try await check { settings in
            switch part {
            case "team": settings.teamID = "ZZZZZ99999"
            case "key id": settings.keyID = "WRONGKEY00"
            case "key": settings.privateKeyPEM = otherKey
            default: settings.clientID = "com.example.unknown"
            }
        }
        #expect(!result.ok, "\(part)")
        #expect(result.notes.contains { $0.contains("refused the client secret with invalid_client") }, "\(part): \(result.notes)")
    }

    @Test func missingAudiencesAreNamed() async throws {
        let result = try await check { $0.extraAudiences = [] }
        #expect(result.notes.contains { $0.contains("no \"audiences\"") })
    }
}
