import Foundation
import GatehouseCrypto
import GatehouseHTTP
@testable import GatehouseProviderSimulator
import GatehouseTesting
import Testing

@Suite struct AppleSimulatorTests {
    typealias F = SimulatorFixture

    @Test func firstAuthorizationCarriesUserAndTokensVerifyAgainstTheJWKS() async throws {
        let fixture = try F()
        let callback = try await fixture.appleAuthorize()
        #expect(callback["state"] == "st-apple")
        let code = try #require(callback["code"])
        // `user` is a JSON *string* with the name and the email.
        let user = JSON.object(Array(try #require(callback["user"]).utf8))
        #expect(user["email"] == .string("ada@example.com"))
        #expect(user["name"] == .object(["firstName": .string("Ada"), "lastName": .string("Lovelace")]))
        // The id_token delivered with the code is verifiable too and binds the code (c_hash).
        let callbackClaims = try await fixture.verify(try #require(callback["id_token"]), jwksPath: "/_sim/apple/auth/keys",
                                                      issuer: "https://appleid.apple.com", audience: F.appleClientID)
        #expect(callbackClaims.all["c_hash"] == .string(Base64URL.encode(SHA256.hash(code).prefix(16))))

        let token = try await fixture.appleToken([
            ("client_id", F.appleClientID), ("client_secret", try fixture.appleClientSecret()), ("code", code),
            ("grant_type", "authorization_code"), ("redirect_uri", F.appleRedirect),
        ])
        #expect(token.status == 200)
        #expect(token.json["token_type"] == .string("Bearer"))
        #expect(token.json["expires_in"] == .integer(3600))
        #expect(token.json["access_token"]?.stringValue != nil)
        #expect(token.json["refresh_token"]?.stringValue != nil)
        let claims = try await fixture.verify(try #require(token.json["id_token"]?.stringValue), jwksPath: "/_sim/apple/auth/keys",
                                              issuer: "https://appleid.apple.com", audience: F.appleClientID)
        #expect(claims.subject == fixture.simulator.apple.subject(forEmail: "ada@example.com"))
        #expect(claims.all["email"] == .string("ada@example.com"))
        #expect(claims.all["email_verified"] == .string("true"))
        #expect(claims.all["is_private_email"] == .string("false"))
        #expect(claims.all["nonce"] == .string("n-apple"))
        #expect(claims.all["nonce_supported"] == .bool(true))
        #expect(claims.all["real_user_status"] == .integer(2))
        #expect(claims.all["auth_time"]?.numberValue != nil)

        // A second authorization of the same (client, user): no `user` field any more, same sub.
        let again = try await fixture.appleAuthorize()
        #expect(again["user"] == nil)
        #expect(again["code"] != nil && again["code"] != code)
        // Another client of the same user is a first authorization again.
        let other = try await fixture.appleAuthorize(clientID: "com.example.other")
        #expect(other["user"] != nil)
    }

    @Test func privateRelayHidesTheAddressAndSaysSoAsAString() async throws {
        let fixture = try F()
        let callback = try await fixture.appleAuthorize(email: "grace@example.com", privateRelay: true)
        let user = JSON.object(Array(try #require(callback["user"]).utf8))
        let relay = try #require(user["email"]?.stringValue)
        #expect(relay.hasSuffix("@privaterelay.appleid.com"))
        let claims = try await fixture.verify(try #require(callback["id_token"]), jwksPath: "/_sim/apple/auth/keys",
                                              issuer: "https://appleid.apple.com", audience: F.appleClientID)
        #expect(claims.all["email"] == .string(relay))
        #expect(claims.all["is_private_email"] == .string("true"))
        #expect(claims.subject == fixture.simulator.apple.subject(forEmail: "grace@example.com"))
    }

    @Test func nameOrEmailScopeRequiresFormPostAndBadClientsGetAnErrorPage() async throws {
        let fixture = try F()
        func authorize(_ pairs: [(String, String)]) async throws -> TestResponse {
            try await fixture.client.get("/_sim/apple/auth/authorize?" + URLEncodedForm(pairs: pairs).encoded)
        }
        let base = [("client_id", F.appleClientID), ("redirect_uri", F.appleRedirect), ("response_type", "code")]
        let query = try await authorize(base + [("scope", "email"), ("response_mode", "query")])
        #expect(query.status == 400)
        #expect(query.text.contains("form_post"))
        #expect(query.headers["Location"] == nil)
        // Without name/email, query mode is fine.
        #expect(try await authorize(base + [("response_mode", "query")]).status == 200)
        #expect(try await authorize([("client_id", "unknown"), ("redirect_uri", F.appleRedirect), ("response_type", "code")]).status == 400)
        #expect(try await authorize([("client_id", F.appleClientID), ("redirect_uri", F.appleRedirect + "/x"), ("response_type", "code")]).status == 400)
        #expect(try await authorize(base + [("response_type", "token")]).status == 400)
        // POST works as well as GET.
        let post = try await fixture.client.post("/_sim/apple/auth/authorize",
                                                 form: base + [("scope", "name email"), ("response_mode", "form_post")])
        #expect(post.status == 200)
    }

    @Test func cancelFormPostsUserCancelledAuthorize() async throws {
        let fixture = try F()
        let callback = try await fixture.appleAuthorize(cancel: true)
        #expect(callback["error"] == "user_cancelled_authorize")
        #expect(callback["state"] == "st-apple")
        #expect(callback["code"] == nil)
    }

    enum BadSecret: String, CaseIterable, Sendable {
        case badSignature, wrongAudience, simulatorAudience, wrongIssuer, wrongSubject, wrongKeyID, expired, lifetimeTooLong, notAJWT
    }

    @Test(arguments: BadSecret.allCases)
    func clientSecretIsVerifiedAsAppleDoes(_ bad: BadSecret) async throws {
        let fixture = try F()
        let now = fixture.clock.now
        let secret: String = switch bad {
        case .badSignature: try fixture.appleClientSecret(key: SharedKeys.otherP8)
        case .wrongAudience: try fixture.appleClientSecret(aud: "https://appleid.apple.com/")
        case .simulatorAudience: try fixture.appleClientSecret(aud: "http://127.0.0.1:8080/_sim/apple")
        case .wrongIssuer: try fixture.appleClientSecret(iss: "OTHERTEAM1")
        case .wrongSubject: try fixture.appleClientSecret(sub: "com.example.other")
        case .wrongKeyID: try fixture.appleClientSecret(kid: "OTHERKEY12")
        case .expired: try fixture.appleClientSecret(iat: now.addingTimeInterval(-7_200), lifetime: 3_600)
        case .lifetimeTooLong: try fixture.appleClientSecret(lifetime: 15_777_001)
        case .notAJWT: "secret"
        }
        let callback = try await fixture.appleAuthorize()
        var form = [("client_id", F.appleClientID), ("code", callback["code"] ?? ""), ("grant_type", "authorization_code"),
                    ("redirect_uri", F.appleRedirect)]
        let rejected = try await fixture.appleToken(form + [("client_secret", secret)])
        #expect(rejected.status == 400)
        #expect(rejected.json == ["error": .string("invalid_client")])
        let revoke = try await fixture.client.post("/_sim/apple/auth/revoke",
                                                   form: [("client_id", F.appleClientID), ("client_secret", secret), ("token", "t")])
        #expect(revoke.status == 400)
        #expect(fixture.simulator.apple.revocations.isEmpty)
        // The code was not spent by the failed client authentication: the right secret still works,
        // including the longest lifetime Apple allows.
        form.append(("client_secret", try fixture.appleClientSecret(lifetime: 15_777_000)))
        #expect(try await fixture.appleToken(form).status == 200)
    }

    @Test func codesAreSingleUseShortLivedAndBoundToClientAndRedirectURI() async throws {
        let fixture = try F()
        func redeem(_ code: String, clientID: String = F.appleClientID, redirect: String = F.appleRedirect) async throws -> (status: Int, json: [String: JSONValue]) {
            try await fixture.appleToken([
                ("client_id", clientID), ("client_secret", try fixture.appleClientSecret(sub: clientID)), ("code", code),
                ("grant_type", "authorization_code"), ("redirect_uri", redirect),
            ])
        }
        let first = try #require(try await fixture.appleAuthorize()["code"])
        #expect(try await redeem(first).status == 200)
        let reused = try await redeem(first)
        #expect(reused.status == 400)
        #expect(reused.json["error"] == .string("invalid_grant"))

        let wrongRedirect = try #require(try await fixture.appleAuthorize()["code"])
        #expect(try await redeem(wrongRedirect, redirect: F.appleRedirect + "?x=1").json["error"] == .string("invalid_grant"))
        #expect(try await redeem(wrongRedirect).json["error"] == .string("invalid_grant"), "a mismatched attempt spends the code")

        let otherClient = try #require(try await fixture.appleAuthorize()["code"])
        #expect(try await redeem(otherClient, clientID: "com.example.other").json["error"] == .string("invalid_grant"))

        let late = try #require(try await fixture.appleAuthorize()["code"])
        fixture.clock.advance(301)
        #expect(try await redeem(late).json["error"] == .string("invalid_grant"))
    }

    @Test func refreshGrantAndRevocationAreRecorded() async throws {
        let fixture = try F()
        let code = try #require(try await fixture.appleAuthorize()["code"])
        let secret = try fixture.appleClientSecret()
        let tokens = try await fixture.appleToken([("client_id", F.appleClientID), ("client_secret", secret), ("code", code),
                                                   ("grant_type", "authorization_code"), ("redirect_uri", F.appleRedirect)])
        let refreshToken = try #require(tokens.json["refresh_token"]?.stringValue)
        let refreshed = try await fixture.appleToken([("client_id", F.appleClientID), ("client_secret", secret),
                                                      ("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
        #expect(refreshed.status == 200)
        #expect(refreshed.json["refresh_token"] == nil)
        let claims = try await fixture.verify(try #require(refreshed.json["id_token"]?.stringValue), jwksPath: "/_sim/apple/auth/keys",
                                              issuer: AppleSimulator.issuer, audience: F.appleClientID)
        #expect(claims.all["nonce"] == nil)

        let revoke = try await fixture.client.post("/_sim/apple/auth/revoke", form: [
            ("client_id", F.appleClientID), ("client_secret", secret), ("token", refreshToken), ("token_type_hint", "refresh_token"),
        ])
        #expect(revoke.status == 200)
        let recorded = fixture.simulator.apple.revocations
        #expect(recorded.count == 1)
        #expect(recorded.first?.token == refreshToken)
        #expect(recorded.first?.tokenTypeHint == "refresh_token")
        #expect(recorded.first?.clientID == F.appleClientID)
        let afterRevoke = try await fixture.appleToken([("client_id", F.appleClientID), ("client_secret", secret),
                                                        ("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
        #expect(afterRevoke.json["error"] == .string("invalid_grant"))
    }

    @Test func rotatedKeysStayPublishedForTheRetentionPeriod() async throws {
        let fixture = try F()
        let oldToken = try #require(try await fixture.appleAuthorize()["id_token"])
        let oldKid = try CompactJWS(oldToken).header.keyID
        #expect(oldKid == SharedKeys.appleRSA.keyID)
        let newKey = try fixture.simulator.apple.keys.rotate(to: SharedKeys.googleRSA, retention: 3_600)
        let jwks = try JWKSet(json: try await fixture.client.get("/_sim/apple/auth/keys").body)
        #expect(jwks.keys.map(\.keyID) == [newKey.keyID, oldKid])
        #expect(jwks.keys.allSatisfy { $0.algorithm == "RS256" && $0.keyType == "RSA" && $0.use == "sig" && !$0.isPrivate })
        // The old token still verifies; new tokens carry the new kid.
        _ = try await fixture.verify(oldToken, jwksPath: "/_sim/apple/auth/keys", issuer: AppleSimulator.issuer, audience: F.appleClientID)
        let newToken = try #require(try await fixture.appleAuthorize()["id_token"])
        #expect(try CompactJWS(newToken).header.keyID == newKey.keyID)
        fixture.clock.advance(3_601)
        let later = try JWKSet(json: try await fixture.client.get("/_sim/apple/auth/keys").body)
        #expect(later.keys.map(\.keyID) == [newKey.keyID])
    }

    @Test func notificationJWTVerifiesAndCarriesEventsAsAString() async throws {
        let fixture = try F()
        let subject = fixture.simulator.apple.subject(forEmail: "ada@example.com")
        let event = AppleNotificationEvent(kind: .emailDisabled, subject: subject, email: "x@privaterelay.appleid.com",
                                           isPrivateEmail: true, eventTime: fixture.clock.now)
        let notification = try fixture.simulator.apple.notification(event, clientID: F.appleClientID)
        #expect(JSON.object(notification.body) == ["payload": .string(notification.jwt)])
        let jwks = try JWKSet(json: try await fixture.client.get("/_sim/apple/auth/keys").body)
        let verifier = JWTVerifier(allowedAlgorithms: [.rs256],
                                   rules: ClaimRules(issuers: [AppleSimulator.issuer], audiences: [F.appleClientID], requireExpiration: false))
        let claims = try verifier.verify(notification.jwt, keys: VerificationKeySet(jwks: jwks), now: fixture.clock.now).claims
        let events = try #require(claims.all["events"]?.stringValue, "events must be a JSON string")
        let decoded = JSON.object(Array(events.utf8))
        #expect(decoded["type"] == .string("email-disabled"))
        #expect(decoded["sub"] == .string(subject))
        #expect(decoded["email"] == .string("x@privaterelay.appleid.com"))
        #expect(decoded["is_private_email"] == .string("true"))
        #expect(decoded["event_time"] == .integer(Int64(fixture.clock.now.timeIntervalSince1970 * 1000)))
        #expect(Set(AppleNotificationEvent.Kind.allCases.map(\.rawValue)) == ["email-disabled", "email-enabled", "consent-revoked", "account-delete"])
    }
}
