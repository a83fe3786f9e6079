import Foundation
import GatehouseIdentity
import Testing

/// A refresh token is claimed (rotated, or found reused, revoked or already rotated)
/// before any signature is made, so a refused refresh costs no signing work, and reuse detection and
/// family revocation behave as before.
@Suite struct RefreshClaimBeforeSignTests {
    private func passwordTokens(_ oauth: OAuthFixture, scope: String) async throws -> [String: Any] {
        let tokens = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"),
                                            ("password", "correct horse battery"), ("scope", scope)],
                                           basic: ("web-app", oauth.confidentialSecret))
        #expect(tokens.status == 200)
        return tokens.json
    }

    private func refresh(_ oauth: OAuthFixture, _ token: String) async throws -> (status: Int, json: [String: Any]) {
        let answer = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", token)],
                                           basic: ("web-app", oauth.confidentialSecret))
        return (answer.status, answer.json)
    }

    @Test func reusedRevokedAndUnknownTokensSignNothing() async throws {
        let oauth = try await OAuthFixture.make()
        let issuer = oauth.gatehouse.app.services.tokens.issuer
        let first = try #require(try await passwordTokens(oauth, scope: "openid")["refresh_token"] as? String)

        let before = issuer.signaturesMade
        let rotated = try await refresh(oauth, first)
        #expect(rotated.status == 200 && rotated.json["id_token"] is String)
        #expect(issuer.signaturesMade == before + 2, "a rotation signs an access token and an ID token")
        let second = try #require(rotated.json["refresh_token"] as? String)

        let afterRotation = issuer.signaturesMade
        let reused = try await refresh(oauth, first)
        #expect(reused.status == 400 && reused.json["error"] as? String == "invalid_grant")
        #expect((reused.json["error_description"] as? String)?.contains("already used") == true)
        #expect(issuer.signaturesMade == afterRotation, "a reused token is detected before signing")

        // The family is revoked: the successor is refused too, still without signing.
        let revoked = try await refresh(oauth, second)
        #expect(revoked.status == 400 && revoked.json["error"] as? String == "invalid_grant")
        let unknown = try await refresh(oauth, "not-a-refresh-token")
        #expect(unknown.status == 400 && unknown.json["error"] as? String == "invalid_grant")
        #expect(issuer.signaturesMade == afterRotation)
    }

    @Test func concurrentPresentationsSignOnlyForTheWinner() async throws {
        let oauth = try await OAuthFixture.make()
        let issuer = oauth.gatehouse.app.services.tokens.issuer
        let token = try #require(try await passwordTokens(oauth, scope: "api.read")["refresh_token"] as? String)
        let before = issuer.signaturesMade
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await refresh(oauth, token).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        // Exactly one rotation wins; every other presentation is a reuse (the family is then revoked).
        #expect(statuses.filter { $0 == 200 }.count == 1)
        #expect(statuses.filter { $0 == 400 }.count == 7)
        #expect(issuer.signaturesMade == before + 1, "only the winner signs (one access token, no openid)")
    }

    @Test func mintedTokensAreDistinctEachRefreshesOnceAndRespectTheClient() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = oauth.gatehouse.app.services.tokens
        let user = try #require(try await oauth.gatehouse.database.users.find(email: "ada@example.com"))
        let signedBefore = tokens.issuer.signaturesMade
        let minted = try await tokens.mintRefreshTokens(clientID: "web-app", user: user, scope: "api.read", count: 300)
        #expect(minted.count == 300 && Set(minted).count == 300)
        #expect(tokens.issuer.signaturesMade == signedBefore, "minting signs nothing")
        for token in minted.prefix(3) {
            let first = try await refresh(oauth, token)
            #expect(first.status == 200 && first.json["scope"] as? String == "api.read")
            let again = try await refresh(oauth, token)
            #expect(again.status == 400, "each minted token is a refresh token like any other: used once")
        }
        await #expect(throws: OAuthError.self) {
            _ = try await tokens.mintRefreshTokens(clientID: "web-app", user: user, scope: "admin.everything", count: 1)
        }
        await #expect(throws: OAuthError.self) {
            _ = try await tokens.mintRefreshTokens(clientID: "ghost", user: user, scope: nil, count: 1)
        }
    }
}
