import Foundation
import GatehouseCrypto
import GatehouseHTTP
@testable import GatehouseProviderSimulator
import GatehouseTesting
import Testing

@Suite struct GoogleSimulatorTests {
    typealias F = SimulatorFixture

    /// Authorize + picker; returns the redirect the browser would follow.
    static func authorize(_ fixture: F, verifier: String = "v-" + String(repeating: "a", count: 50), email: String = "ada@corp.example",
                          extra: [(String, String)] = [("workspace", "true")], accessType: String = "offline",
                          cancel: Bool = false) async throws -> TestResponse {
        let query = URLEncodedForm(pairs: [
            ("client_id", F.googleClientID), ("redirect_uri", F.googleRedirect), ("response_type", "code"),
            ("scope", "openid email profile"), ("state", "st-google"), ("nonce", "n-google"),
            ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256"), ("access_type", accessType),
        ]).encoded
        let page = try await fixture.client.get("/_sim/google/o/oauth2/v2/auth?" + query, headers: ["User-Agent": F.safari])
        #expect(page.status == 200)
        #expect(page.text.contains("Simulated Google"))
        let fields = HTML.hiddenFields(page.text) + [("email", email), ("name", "Ada King Lovelace"),
                                                     ("action", cancel ? "cancel" : "allow")] + extra
        let answer = try await fixture.client.post(HTML.formAction(page.text) ?? "", form: fields)
        #expect(answer.status == 302)
        #expect(answer.headers["Location"]?.hasPrefix(F.googleRedirect + "?") == true)
        return answer
    }

    static func token(_ fixture: F, _ fields: [(String, String)], headers: HTTPHeaders = HTTPHeaders()) async throws -> (status: Int, json: [String: JSONValue]) {
        let response = try await fixture.client.post("/_sim/google/token", form: fields, headers: headers)
        return (response.status, JSON.object(response.body))
    }

    @Test func discoveryPointsAtTheSimulatorWithGooglesIssuer() async throws {
        let fixture = try F()
        let response = try await fixture.client.get("/_sim/google/.well-known/openid-configuration")
        let document = JSON.object(response.body)
        #expect(response.status == 200)
        #expect(document["issuer"] == .string("https://accounts.google.com"))
        #expect(document["authorization_endpoint"] == .string("http://127.0.0.1:8080/_sim/google/o/oauth2/v2/auth"))
        #expect(document["token_endpoint"] == .string("http://127.0.0.1:8080/_sim/google/token"))
        #expect(document["jwks_uri"] == .string("http://127.0.0.1:8080/_sim/google/certs"))
        #expect(document["userinfo_endpoint"] == .string("http://127.0.0.1:8080/_sim/google/userinfo"))
        #expect(document["code_challenge_methods_supported"] == .array([.string("S256")]))
    }

    @Test func happyPathWithPKCEOfflineAccessAndWorkspaceDomain() async throws {
        let fixture = try F()
        let verifier = PKCE.generateVerifier()
        let callback = redirectParameters(try await Self.authorize(fixture, verifier: verifier))
        #expect(callback["state"] == "st-google")
        #expect(callback["hd"] == "corp.example")
        let code = try #require(callback["code"])
        let token = try await Self.token(fixture, [
            ("client_id", F.googleClientID), ("client_secret", F.googleSecret), ("code", code), ("code_verifier", verifier),
            ("grant_type", "authorization_code"), ("redirect_uri", F.googleRedirect),
        ])
        #expect(token.status == 200)
        #expect(token.json["token_type"] == .string("Bearer"))
        #expect(token.json["refresh_token"]?.stringValue != nil, "offline access on first consent gets a refresh token")
        let claims = try await fixture.verify(try #require(token.json["id_token"]?.stringValue), jwksPath: "/_sim/google/certs",
                                              issuer: "https://accounts.google.com", audience: F.googleClientID)
        #expect(claims.subject == fixture.simulator.google.subject(forEmail: "ada@corp.example"))
        #expect(claims.all["azp"] == .string(F.googleClientID))
        #expect(claims.all["email"] == .string("ada@corp.example"))
        #expect(claims.all["email_verified"] == .bool(true))
        #expect(claims.all["name"] == .string("Ada King Lovelace"))
        #expect(claims.all["given_name"] == .string("Ada"))
        #expect(claims.all["family_name"] == .string("King Lovelace"))
        #expect(claims.all["picture"]?.stringValue?.hasPrefix("https://") == true)
        #expect(claims.all["nonce"] == .string("n-google"))
        #expect(claims.all["hd"] == .string("corp.example"))

        let accessToken = try #require(token.json["access_token"]?.stringValue)
        let userinfo = try await fixture.client.get("/_sim/google/userinfo", headers: ["Authorization": "Bearer " + accessToken])
        #expect(userinfo.status == 200)
        #expect(JSON.object(userinfo.body)["email"] == .string("ada@corp.example"))
        #expect(try await fixture.client.get("/_sim/google/userinfo", headers: ["Authorization": "Bearer nope"]).status == 401)

        // Second consent: no new refresh token; client_secret_basic works as well as _post.
        let secondVerifier = PKCE.generateVerifier()
        let second = redirectParameters(try await Self.authorize(fixture, verifier: secondVerifier))
        let basic = Data("\(F.googleClientID):\(F.googleSecret)".utf8).base64EncodedString()
        let again = try await Self.token(fixture, [
            ("code", second["code"] ?? ""), ("code_verifier", secondVerifier), ("grant_type", "authorization_code"),
            ("redirect_uri", F.googleRedirect),
        ], headers: ["Authorization": "Basic " + basic])
        #expect(again.status == 200)
        #expect(again.json["refresh_token"] == nil)
    }

    @Test func pkceIsEnforcedAndPlainIsRefused() async throws {
        let fixture = try F()
        let verifier = PKCE.generateVerifier()
        func redeem(_ extra: [(String, String)]) async throws -> [String: JSONValue] {
            let code = redirectParameters(try await Self.authorize(fixture, verifier: verifier))["code"] ?? ""
            return try await Self.token(fixture, [("client_id", F.googleClientID), ("client_secret", F.googleSecret), ("code", code),
                                                  ("grant_type", "authorization_code"), ("redirect_uri", F.googleRedirect)] + extra).json
        }
        #expect(try await redeem([("code_verifier", PKCE.generateVerifier())]) ==
                ["error": .string("invalid_grant"), "error_description": .string("Invalid code verifier.")])
        #expect(try await redeem([]) == ["error": .string("invalid_grant"), "error_description": .string("Missing code verifier.")])
        #expect(try await redeem([("code_verifier", verifier)])["access_token"] != nil)

        let base = [("client_id", F.googleClientID), ("redirect_uri", F.googleRedirect), ("response_type", "code"), ("scope", "openid email")]
        let plain = try await fixture.client.get("/_sim/google/o/oauth2/v2/auth?" + URLEncodedForm(pairs: base + [
            ("code_challenge", verifier), ("code_challenge_method", "plain")]).encoded)
        #expect(plain.status == 400)
        let noMethod = try await fixture.client.get("/_sim/google/o/oauth2/v2/auth?" + URLEncodedForm(pairs: base + [
            ("code_challenge", PKCE.challenge(for: verifier))]).encoded)
        #expect(noMethod.status == 400)
        let none = try await fixture.client.get("/_sim/google/o/oauth2/v2/auth?" + URLEncodedForm(pairs: base).encoded)
        #expect(none.status == 400)
    }

    @Test func codesAreSingleUseAndBoundAndClientsAuthenticate() async throws {
        let fixture = try F()
        let verifier = PKCE.generateVerifier()
        let code = redirectParameters(try await Self.authorize(fixture, verifier: verifier))["code"] ?? ""
        var form = [("client_id", F.googleClientID), ("code", code), ("code_verifier", verifier),
                    ("grant_type", "authorization_code"), ("redirect_uri", F.googleRedirect)]
        let badSecret = try await Self.token(fixture, form + [("client_secret", "wrong")])
        #expect(badSecret.status == 401)
        #expect(badSecret.json["error"] == .string("invalid_client"))
        form.append(("client_secret", F.googleSecret))
        #expect(try await Self.token(fixture, form).status == 200)
        let reused = try await Self.token(fixture, form)
        #expect(reused.status == 400)
        #expect(reused.json["error"] == .string("invalid_grant"))

        let other = redirectParameters(try await Self.authorize(fixture, verifier: verifier))["code"] ?? ""
        let mismatch = try await Self.token(fixture, [("client_id", F.googleClientID), ("client_secret", F.googleSecret), ("code", other),
                                                      ("code_verifier", verifier), ("grant_type", "authorization_code"),
                                                      ("redirect_uri", F.googleRedirect + "/other")])
        #expect(mismatch.json["error"] == .string("redirect_uri_mismatch"))
    }

    @Test func unverifiedEmailAndBareIssuerForm() async throws {
        let fixture = try F(googleIDTokenIssuer: GoogleSimulator.bareIssuer)
        let verifier = PKCE.generateVerifier()
        let callback = redirectParameters(try await Self.authorize(fixture, verifier: verifier, email: "bob@gmail.example",
                                                                   extra: [("unverified_email", "true")], accessType: "online"))
        #expect(callback["hd"] == nil)
        let token = try await Self.token(fixture, [("client_id", F.googleClientID), ("client_secret", F.googleSecret),
                                                   ("code", callback["code"] ?? ""), ("code_verifier", verifier),
                                                   ("grant_type", "authorization_code"), ("redirect_uri", F.googleRedirect)])
        #expect(token.json["refresh_token"] == nil, "online access gets no refresh token")
        let claims = try await fixture.verify(try #require(token.json["id_token"]?.stringValue), jwksPath: "/_sim/google/certs",
                                              issuer: "accounts.google.com", audience: F.googleClientID)
        #expect(claims.all["email_verified"] == .bool(false))
        #expect(claims.all["hd"] == nil)
        let discovery = JSON.object(try await fixture.client.get("/_sim/google/.well-known/openid-configuration").body)
        #expect(discovery["issuer"] == .string("https://accounts.google.com"))
    }

    @Test func embeddedWebViewsGetDisallowedUserAgent() async throws {
        let fixture = try F()
        let query = URLEncodedForm(pairs: [
            ("client_id", F.googleClientID), ("redirect_uri", F.googleRedirect), ("response_type", "code"), ("scope", "openid"),
            ("code_challenge", PKCE.challenge(for: PKCE.generateVerifier())), ("code_challenge_method", "S256"),
        ]).encoded
        let hotwire = F.safari.replacingOccurrences(of: " Safari/604.1", with: "") + " Hotwire Native iOS; Turbo Native iOS"
        let refused = try await fixture.client.get("/_sim/google/o/oauth2/v2/auth?" + query, headers: ["User-Agent": hotwire])
        #expect(refused.status == 403)
        #expect(refused.text.contains("disallowed_useragent"))
        #expect(try await fixture.client.get("/_sim/google/o/oauth2/v2/auth?" + query, headers: ["User-Agent": F.safari]).status == 200)
        #expect(GoogleSimulator.isEmbeddedWebView(userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UD1A; wv) AppleWebKit/537.36 Chrome/120 Mobile Safari/537.36"))
        #expect(GoogleSimulator.isEmbeddedWebView(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"))
        #expect(!GoogleSimulator.isEmbeddedWebView(userAgent: F.safari))
    }

    @Test func cancelRedirectsWithAccessDenied() async throws {
        let fixture = try F()
        let callback = redirectParameters(try await Self.authorize(fixture, cancel: true))
        #expect(callback["error"] == "access_denied")
        #expect(callback["state"] == "st-google")
        #expect(callback["code"] == nil)
    }
}
