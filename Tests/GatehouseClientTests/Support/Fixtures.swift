import Foundation
import GatehouseClient

/// Shared test setup: a provider at `https://id.example.com`, a public client, helpers for JWTs.
enum Fixtures {
    static let issuer = "https://id.example.com"
    static let redirect = URL(string: "com.example.app:/oauth/callback")!

    static let metadata = ProviderMetadata(
        issuer: issuer,
        authorizationEndpoint: URL(string: "\(issuer)/oauth/authorize")!,
        tokenEndpoint: URL(string: "\(issuer)/oauth/token")!,
        userinfoEndpoint: URL(string: "\(issuer)/oauth/userinfo")!,
        revocationEndpoint: URL(string: "\(issuer)/oauth/revoke")!,
        jwksURI: URL(string: "\(issuer)/oauth/jwks")!
    )

    static let client = ClientConfiguration(clientID: "app-1", redirectURI: redirect)

    static func oauthClient(_ transport: StubTransport, authentication: ClientAuthentication = .none, now: Date = Date()) -> OAuthClient {
        OAuthClient(
            metadata: metadata,
            configuration: ClientConfiguration(clientID: "app-1", redirectURI: redirect, authentication: authentication),
            transport: transport, signatureVerifier: nil, now: { now }
        )
    }

    /// A compact JWS with the given header and claims and an arbitrary signature.
    static func jwt(header: [String: Any] = ["alg": "RS256", "kid": "k1"], claims: [String: Any], signature: String = "sig") -> String {
        func part(_ object: [String: Any]) -> String {
            Base64URL.encode(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        return "\(part(header)).\(part(claims)).\(Base64URL.encode(Array(signature.utf8)))"
    }

    static func claims(now: Date, overrides: [String: Any] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": issuer, "sub": "user-1", "aud": "app-1",
            "exp": now.timeIntervalSince1970 + 300, "iat": now.timeIntervalSince1970, "nonce": "n-1",
        ]
        for (key, value) in overrides { claims[key] = value }
        return claims
    }
}

/// Accepts exactly the signature bytes "good" and counts calls: lets claim tests run without
/// real keys while still proving the verifier is consulted.
struct FakeSignatureVerifier: IDTokenSignatureVerifier {
    func verify(signingInput: Data, signature: Data, header: JOSEHeader, jwks: JWKS) throws {
        guard signature == Data("good".utf8) else { throw IDTokenError.signatureInvalid }
    }
}
