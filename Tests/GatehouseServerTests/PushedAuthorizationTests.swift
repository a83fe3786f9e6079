import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseTesting
import Testing

/// RFC 9126 in-process: the push authenticates the client, the `request_uri` works once and briefly and
/// only for its client, a client registered for PAR cannot skip it; and RFC 8707 `resource`.
@Suite struct PushedAuthorizationTests {
    func push(_ oauth: OAuthFixture, _ form: [(String, String)], basic: (String, String)?) async throws
        -> (status: Int, json: [String: Any], headers: HTTPHeaders) {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        if let basic { headers.set("Authorization", "Basic " + Data("\(basic.0):\(basic.1)".utf8).base64EncodedString()) }
        return try await oauth.post("/oauth/par", form, headers: headers)
    }

    static let webRequest = [("response_type", "code"), ("redirect_uri", OAuthFixture.redirect), ("scope", "openid email"),
                             ("state", "par-state"), ("nonce", "par-nonce")]

    @Test func aPushedRequestIsUsedOnceByItsClient() async throws {
        let oauth = try await OAuthFixture.make()
        let basic = ("web-app", oauth.confidentialSecret)
        let pushed = try await push(oauth, Self.webRequest, basic: basic)
        #expect(pushed.status == 201)
        let uri = try #require(pushed.json["request_uri"] as? String)
        #expect(uri.hasPrefix("urn:ietf:params:oauth:request_uri:"))
        #expect(pushed.json["expires_in"] as? Int == Int(PushedAuthorizationRequests.lifetime))
        // Used once; a second visit gets an error page, never a redirect.
        let first = try await oauth.authorize([("client_id", "web-app"), ("request_uri", uri)])
        #expect(first.status == 302 || first.status == 303)
        #expect(first.query["code"] != nil && first.query["state"] == "par-state")
        let again = try await oauth.authorize([("client_id", "web-app"), ("request_uri", uri)])
        #expect(again.status == 400 && again.location == nil)

        let other = try await push(oauth, Self.webRequest, basic: basic)
        let otherURI = try #require(other.json["request_uri"] as? String)
        let wrongClient = try await oauth.authorize([("client_id", "partner"), ("request_uri", otherURI)])
        #expect(wrongClient.status == 400 && wrongClient.location == nil)

        let late = try await push(oauth, Self.webRequest, basic: basic)
        oauth.gatehouse.clock.advance(PushedAuthorizationRequests.lifetime + 1)
        let expired = try await oauth.authorize([("client_id", "web-app"), ("request_uri", try #require(late.json["request_uri"] as? String))])
        #expect(expired.status == 400)
    }

    @Test func thePushIsAuthenticatedAndValidated() async throws {
        let oauth = try await OAuthFixture.make()
        let unauthenticated = try await push(oauth, Self.webRequest + [("client_id", "web-app")], basic: nil)
        #expect(unauthenticated.status == 401 && unauthenticated.json["error"] as? String == "invalid_client")
        let wrongSecret = try await push(oauth, Self.webRequest, basic: ("web-app", "wrong"))
        #expect(wrongSecret.status == 401)
        let badRedirect = try await push(oauth, [("response_type", "code"), ("redirect_uri", "https://evil.example/cb")],
                                         basic: ("web-app", oauth.confidentialSecret))
        #expect(badRedirect.status == 400 && badRedirect.json["error"] as? String == "invalid_request")
        let nested = try await push(oauth, Self.webRequest + [("request_uri", "urn:ietf:params:oauth:request_uri:x")],
                                    basic: ("web-app", oauth.confidentialSecret))
        #expect(nested.status == 400)
        let otherID = try await push(oauth, Self.webRequest + [("client_id", "partner")], basic: ("web-app", oauth.confidentialSecret))
        #expect(otherID.status == 400)
        let badScope = try await push(oauth, [("response_type", "code"), ("redirect_uri", OAuthFixture.redirect), ("scope", "admin")],
                                      basic: ("web-app", oauth.confidentialSecret))
        #expect(badScope.status == 400 && badScope.json["error"] as? String == "invalid_scope")
    }

    @Test func aClientRegisteredForPARCannotSkipIt() async throws {
        let oauth = try await OAuthFixture.make()
        let (_, secret) = try await oauth.gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "par-app", name: "PAR App", kind: .confidential, redirectURIs: [OAuthFixture.redirect], firstParty: true,
            metadata: #"{"require_pushed_authorization_requests":true}"#))
        let direct = try await oauth.authorize([("client_id", "par-app")] + Self.webRequest)
        #expect(direct.query["error"] == "invalid_request")
        let pushed = try await push(oauth, Self.webRequest, basic: ("par-app", try #require(secret)))
        let viaPush = try await oauth.authorize([("client_id", "par-app"), ("request_uri", try #require(pushed.json["request_uri"] as? String))])
        #expect(viaPush.query["code"] != nil)
        let document = try await oauth.client.get("/.well-known/openid-configuration")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(document.body)) as? [String: Any])
        #expect(json["pushed_authorization_request_endpoint"] as? String == "http://127.0.0.1:8080/oauth/par")
        #expect(json["require_pushed_authorization_requests"] as? Bool == false)
    }

    @Test func accessTokensAreForTheRequestedRegisteredAPI() async throws {
        let oauth = try await OAuthFixture.make { $0.oauth.resources = ["https://notes.api.example", "https://billing.api.example"] }
        let basic = ("web-app", oauth.confidentialSecret)
        let notes = try await oauth.token([("grant_type", "client_credentials"), ("resource", "https://notes.api.example")], basic: basic)
        #expect(OAuthFixture.claims(try #require(notes.json["access_token"] as? String))["aud"] as? String == "https://notes.api.example")
        let billing = try await oauth.token([("grant_type", "client_credentials"), ("resource", "https://billing.api.example")], basic: basic)
        #expect(OAuthFixture.claims(try #require(billing.json["access_token"] as? String))["aud"] as? String == "https://billing.api.example")
        let unknown = try await oauth.token([("grant_type", "client_credentials"), ("resource", "https://other.example")], basic: basic)
        #expect(unknown.status == 400 && unknown.json["error"] as? String == "invalid_target")
        let none = try await oauth.token([("grant_type", "client_credentials")], basic: basic)
        #expect(OAuthFixture.claims(try #require(none.json["access_token"] as? String))["aud"] as? String == "http://127.0.0.1:8080")
        // At authorize an unknown API is refused back to the client before any sign-in.
        let refused = try await oauth.authorize([("client_id", "web-app"), ("resource", "https://other.example")] + Self.webRequest)
        #expect(refused.query["error"] == "invalid_target")
        // Refreshing for another registered API gives a token for that one.
        let (code, verifier) = try await oauth.publicCode()
        let issued = try await oauth.token([("grant_type", "authorization_code"), ("code", code), ("client_id", "native-app"),
                                            ("redirect_uri", "com.example.app:/callback"), ("code_verifier", verifier),
                                            ("resource", "https://notes.api.example")])
        #expect(OAuthFixture.claims(try #require(issued.json["access_token"] as? String))["aud"] as? String == "https://notes.api.example")
        let refreshed = try await oauth.token([("grant_type", "refresh_token"), ("client_id", "native-app"),
                                               ("refresh_token", try #require(issued.json["refresh_token"] as? String)),
                                               ("resource", "https://billing.api.example")])
        #expect(OAuthFixture.claims(try #require(refreshed.json["access_token"] as? String))["aud"] as? String == "https://billing.api.example")
    }
}
