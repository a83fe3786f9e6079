import Foundation
import GatehouseCrypto
import GatehouseProviders
import GatehouseServer
import Testing

/// Answers from a table of URL → (status, body); anything else is "connection refused".
struct CannedTransport: ProviderTransport {
    struct Refused: Error {}
    let answers: [String: (Int, String)]
    var delay: Duration?

    func send(_ request: ProviderHTTPRequest) async throws -> ProviderHTTPResponse {
        if let delay { try await Task.sleep(for: delay) }
        guard let (status, body) = answers[request.url.absoluteString] else { throw Refused() }
        return ProviderHTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }
}

/// `ProvidersCheck` against canned provider answers: each way a provider can be wrong, in plain words.
@Suite struct ProvidersCheckTests {
    static let issuer = "https://id.example.com"
    static let discoveryURL = issuer + "/.well-known/openid-configuration"
    static let jwksURL = issuer + "/jwks"

    static func discovery(issuer: String = issuer) -> String {
        #"{"issuer":"\#(issuer)","authorization_endpoint":"\#(Self.issuer)/authorize","token_endpoint":"\#(Self.issuer)/token","jwks_uri":"\#(jwksURL)"}"#
    }

    static var goodJWKS: String {
        let key = try! SigningKey.generate(.es256)
        return String(decoding: JWKSet(keys: [key.publicJWK]).jsonData(), as: UTF8.self)
    }

    func run(_ answers: [String: (Int, String)], delay: Duration? = nil) async -> ProvidersCheck.Result {
        var configuration = ProvidersConfiguration()
        configuration.oidc = [OIDCSettings(id: "corp", displayName: "Corp", issuer: Self.issuer, clientID: "c", clientSecret: "s")]
        let check = ProvidersCheck(timeoutSeconds: 1, transport: CannedTransport(answers: answers, delay: delay))
        return await check.run(configuration)[0]
    }

    @Test func healthyProviderPasses() async {
        let result = await run([Self.discoveryURL: (200, Self.discovery()), Self.jwksURL: (200, Self.goodJWKS)])
        #expect(result.ok, "\(result.notes)")
        #expect(result.notes.contains { $0.contains("1 usable signing key") })
    }

    @Test func issuerMismatchIsNamed() async {
        let result = await run([Self.discoveryURL: (200, Self.discovery(issuer: "https://other.example.com")), Self.jwksURL: (200, Self.goodJWKS)])
        #expect(!result.ok)
        #expect(result.notes.joined().contains("discovery issuer https://other.example.com is not https://id.example.com"))
    }

    @Test func jwksWithoutUsableKeysFails() async {
        let encryptionOnly = #"{"keys":[{"kty":"oct","k":"AAAA"},{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}]}"#
        let result = await run([Self.discoveryURL: (200, Self.discovery()), Self.jwksURL: (200, encryptionOnly)])
        #expect(!result.ok)
        #expect(result.notes.joined().contains("has no usable signing keys (2 keys"))
    }

    @Test func unreachableAndBrokenEndpointsFail() async {
        let unreachable = await run([:])
        #expect(unreachable.notes.joined().contains("the discovery document at \(Self.discoveryURL) is unreachable"))
        let jwksDown = await run([Self.discoveryURL: (200, Self.discovery()), Self.jwksURL: (503, "down")])
        #expect(!jwksDown.ok)
        #expect(jwksDown.notes.joined().contains("answered HTTP 503"))
        let notJSON = await run([Self.discoveryURL: (200, "<html>")])
        #expect(!notJSON.ok)
        #expect(notJSON.notes.joined().contains("not usable"))
    }

    @Test func slowProviderTimesOut() async {
        let result = await run([Self.discoveryURL: (200, Self.discovery())], delay: .seconds(5))
        #expect(!result.ok)
        #expect(result.notes.joined().contains("did not answer within 1 s"))
    }
}
