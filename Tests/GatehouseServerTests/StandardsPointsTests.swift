import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore
import GatehouseTesting
import Testing

/// Standards points of the second review (item 12): RFC 6750 §3.1 challenges, grants that end with their session
/// (OIDC Core §11, Back-Channel Logout 1.0), the logout tokens of a deleted account, OIDC Core §6 request objects.
@Suite struct StandardsPointsTests {
    /// No credentials at all: the challenge without an error code. A bad token still gets `invalid_token`.
    @Test func aRequestWithoutATokenGetsABareChallenge() async throws {
        let oauth = try await OAuthFixture.make()
        for headers: HTTPHeaders in [[:], ["Authorization": "Basic d2ViLWFwcDp4"]] {
            let response = try await oauth.client.get("/oauth/userinfo", headers: headers)
            #expect(response.status == 401)
            #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="gatehouse""#)
            #expect(!response.text.contains("error"), "no error code or description: \(response.text)")
        }
        let bad = try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer not-a-token"])
        #expect(bad.status == 401 && bad.headers["WWW-Authenticate"]?.contains(#"error="invalid_token""#) == true)
    }

    @Test func requestObjectsAreRefusedWithTheirOwnCodes() async throws {
        let oauth = try await OAuthFixture.make()
        let base = [("response_type", "code"), ("client_id", "web-app"), ("redirect_uri", OAuthFixture.redirect), ("scope", "openid")]
        let byValue = try await oauth.authorize(base + [("request", "eyJhbGciOiJub25lIn0.eyJzY29wZSI6Im9wZW5pZCJ9.")])
        #expect(byValue.query["error"] == "request_not_supported" && byValue.query["code"] == nil)
        let byReference = try await oauth.authorize(base + [("request_uri", "https://client.example/request.jwt")])
        #expect(byReference.query["error"] == "request_uri_not_supported" && byReference.query["code"] == nil)
        // A pushed request's reference is not refused as unsupported (the PAR handler owns it).
        #expect(RequestObjectRefusal.refusal(["request_uri": ["urn:ietf:params:oauth:request_uri:abc"]]) == nil)
        #expect(try await oauth.authorize(base).query["code"] != nil)
    }

    /// A code-flow grant without `offline_access` ends when its browser session signs out; one with it lives on,
    /// but its refreshed ID tokens stop naming the ended session.
    @Test func grantsWithoutOfflineAccessEndWithTheirSession() async throws {
        let oauth = try await OAuthFixture.make()
        let online = try await TokenEndpointAttackTests.webTokens(oauth, scope: "openid email")
        let offline = try await TokenEndpointAttackTests.webTokens(oauth, scope: "openid email offline_access")
        let onlineRefresh = try #require(online["refresh_token"] as? String)
        let offlineRefresh = try #require(offline["refresh_token"] as? String)
        let offlineID = try #require(offline["id_token"] as? String)
        let sid = try #require(OAuthFixture.claims(offlineID)["sid"] as? String)
        // While the session lives, a refresh keeps the sid.
        let live = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", offlineRefresh)],
                                         basic: ("web-app", oauth.confidentialSecret))
        #expect(live.status == 200)
        let liveID = try #require(live.json["id_token"] as? String)
        #expect(OAuthFixture.claims(liveID)["sid"] as? String == sid)
        #expect(try await oauth.browser.submit("/account", to: "/sign-out", []).status == 303)
        let ended = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", onlineRefresh)],
                                          basic: ("web-app", oauth.confidentialSecret))
        #expect(ended.status == 400 && ended.json["error"] as? String == "invalid_grant", "ended with its session")
        let onlineAccess = try #require(online["access_token"] as? String)
        #expect(try await TokenEndpointAttackTests.userinfoStatus(oauth, onlineAccess) == 401)
        let next = try #require(live.json["refresh_token"] as? String)
        let after = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", next)],
                                          basic: ("web-app", oauth.confidentialSecret))
        #expect(after.status == 200, "offline_access outlives the session")
        let afterID = try #require(after.json["id_token"] as? String)
        let idToken = OAuthFixture.claims(afterID)
        #expect(idToken["sid"] == nil, "a refreshed ID token never names an ended session")
    }

    /// Deleting a user sends the `sub`-only logout token docs/events.md promises to a third-party client the user
    /// consented to: its recipients are read while the consents still exist.
    @Test func deletingAUserTellsConsentedClientsBeforeTheConsentsGo() async throws {
        let fixture = try await EventsFixture.make()
        _ = try await fixture.signIn()
        let user = try #require(try await fixture.database.users.find(email: "ada@example.com"))
        try await fixture.database.consents.save(Consent(userId: user.id, clientId: "partner", scopes: ["openid"],
                                                         grantedAt: fixture.clock.now))
        try await fixture.app.services.administration.delete(id: user.id)
        _ = try await fixture.app.processOutboundDeliveries()
        let partner = fixture.posts(to: "http://127.0.0.1:9/partner").compactMap(EventsFixture.logoutToken).map(OAuthFixture.claims)
        #expect(partner.contains { $0["sub"] as? String == user.id && $0["sid"] == nil }, "the account-wide token")
        #expect(partner.contains { $0["sub"] as? String == user.id && $0["sid"] != nil }, "one per session")
        // The first-party client still gets exactly one account-wide token, not two.
        let own = fixture.posts(to: EventsFixture.logoutURL).compactMap(EventsFixture.logoutToken).map(OAuthFixture.claims)
        #expect(own.filter { $0["sid"] == nil }.count == 1)
    }
}
