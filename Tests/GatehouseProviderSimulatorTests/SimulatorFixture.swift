import Foundation
import GatehouseCrypto
import GatehouseHTTP
@testable import GatehouseProviderSimulator
import GatehouseTesting
import Synchronization
import Testing

/// A clock tests move forward by hand.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_750_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Keys generated once per test process: RSA generation is the slowest thing here.
enum SharedKeys {
    static let appleRSA = try! RSASigningKey.generate()
    static let googleRSA = try! RSASigningKey.generate()
    static let appleP8 = try! SigningKey.generate(.es256)
    static let otherP8 = try! SigningKey.generate(.es256)
}

/// One simulator with a client per provider, driven in-process.
struct SimulatorFixture {
    static let appleClientID = "com.example.rp.web"
    static let appleTeamID = "TEAM123456"
    static let appleKeyID = "KEY1234567"
    static let appleRedirect = "https://rp.example/auth/apple/callback"
    static let googleClientID = "rp.apps.googleusercontent.com"
    static let googleSecret = "google-secret"
    static let googleRedirect = "https://rp.example/auth/google/callback"
    static let githubClientID = "Ov23lirp"
    static let githubSecret = "github-secret"
    static let githubRedirect = "https://rp.example/auth/github/callback"
    static let safari = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"

    let clock = TestClock()
    let simulator: ProviderSimulator
    let client: InProcessClient

    init(googleIDTokenIssuer: String? = nil) throws {
        let clock = self.clock
        let configuration = ProviderSimulator.Configuration(
            baseURL: "http://127.0.0.1:8080/_sim",
            appleClients: [
                AppleClient(clientID: Self.appleClientID, teamID: Self.appleTeamID, keyID: Self.appleKeyID,
                            publicKey: SharedKeys.appleP8.verificationKey, redirectURIs: [Self.appleRedirect]),
                AppleClient(clientID: "com.example.other", teamID: Self.appleTeamID, keyID: Self.appleKeyID,
                            publicKey: SharedKeys.appleP8.verificationKey, redirectURIs: [Self.appleRedirect]),
            ],
            googleClients: [GoogleClient(clientID: Self.googleClientID, clientSecret: Self.googleSecret, redirectURIs: [Self.googleRedirect])],
            githubClients: [GitHubClient(clientID: Self.githubClientID, clientSecret: Self.githubSecret, redirectURIs: [Self.githubRedirect])],
            googleIDTokenIssuer: googleIDTokenIssuer,
            appleSigningKey: SharedKeys.appleRSA, googleSigningKey: SharedKeys.googleRSA,
            clock: { clock.now })
        simulator = try ProviderSimulator(configuration: configuration)
        client = InProcessClient(RequestPipeline(router: simulator.makeRouter()))
    }

    // MARK: Apple helpers

    /// A client secret JWT; each claim can be bent to test a rejection.
    func appleClientSecret(iss: String = appleTeamID, sub: String = appleClientID, aud: String = AppleClientSecret.audience,
                           iat: Date? = nil, lifetime: TimeInterval = 3_600, key: SigningKey = SharedKeys.appleP8,
                           kid: String = appleKeyID) throws -> String {
        let issued = iat ?? clock.now
        let claims: [String: JSONValue] = [
            "iss": .string(iss), "sub": .string(sub), "aud": .string(aud),
            "iat": .integer(Int64(issued.timeIntervalSince1970)),
            "exp": .integer(Int64(issued.timeIntervalSince1970 + lifetime)),
        ]
        return try JWTSigner.sign(claims, with: key, keyID: kid)
    }

    /// Runs Apple's authorize + picker and returns the fields form_posted to the redirect URI.
    func appleAuthorize(email: String = "ada@example.com", name: String = "Ada Lovelace", privateRelay: Bool = false,
                        scope: String = "name email", clientID: String = appleClientID,
                        cancel: Bool = false) async throws -> [String: String] {
        let query = URLEncodedForm(pairs: [
            ("client_id", clientID), ("redirect_uri", Self.appleRedirect), ("response_type", "code id_token"),
            ("response_mode", "form_post"), ("scope", scope), ("state", "st-apple"), ("nonce", "n-apple"),
        ]).encoded
        let page = try await client.get("/_sim/apple/auth/authorize?" + query)
        #expect(page.status == 200)
        #expect(page.text.contains("Simulated Apple"))
        var fields = HTML.hiddenFields(page.text)
        fields += [("email", email), ("name", name), ("action", cancel ? "cancel" : "allow")]
        if privateRelay { fields.append(("private_relay", "true")) }
        let answer = try await client.post(HTML.formAction(page.text) ?? "", form: fields)
        #expect(answer.status == 200)
        #expect(HTML.formAction(answer.text) == Self.appleRedirect)
        return Dictionary(HTML.hiddenFields(answer.text), uniquingKeysWith: { first, _ in first })
    }

    func appleToken(_ fields: [(String, String)]) async throws -> (status: Int, json: [String: JSONValue]) {
        let response = try await client.post("/_sim/apple/auth/token", form: fields)
        return (response.status, JSON.object(response.body))
    }

    // MARK: Verification

    func verify(_ token: String, jwksPath: String, issuer: String, audience: String) async throws -> JWTClaims {
        let jwks = try JWKSet(json: try await client.get(jwksPath).body)
        let verifier = JWTVerifier(allowedAlgorithms: [.rs256], rules: ClaimRules(issuers: [issuer], audiences: [audience]))
        return try verifier.verify(token, keys: VerificationKeySet(jwks: jwks), now: clock.now).claims
    }
}

/// The shared form reader (GatehouseTesting), under the name these tests use.
typealias HTML = HTMLForm

enum JSON {
    static func object(_ bytes: [UInt8]) -> [String: JSONValue] {
        if case .object(let members)? = JSONValue(parsing: bytes) { return members }
        return [:]
    }

    static func array(_ bytes: [UInt8]) -> [JSONValue] {
        if case .array(let values)? = JSONValue(parsing: bytes) { return values }
        return []
    }
}

/// The query parameters of a redirect's `Location`.
func redirectParameters(_ response: TestResponse) -> URLEncodedForm {
    guard let location = response.headers["Location"], let question = location.firstIndex(of: "?") else { return URLEncodedForm() }
    return (try? URLEncodedForm(parsing: String(location[location.index(after: question)...]))) ?? URLEncodedForm()
}
