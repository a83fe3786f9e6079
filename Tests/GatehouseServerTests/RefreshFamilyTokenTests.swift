import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseStore
import Testing

/// Refresh tokens that name their family row and generation, through the token endpoint: a rotation moves
/// the one row on, a forged token touches nothing, and an opaque token issued before keeps working and moves
/// its family to the new form.
@Suite struct RefreshFamilyTokenTests {
    private func passwordRefreshToken(_ oauth: OAuthFixture) async throws -> String {
        let tokens = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"),
                                            ("password", "correct horse battery"), ("scope", "api.read")],
                                           basic: ("web-app", oauth.confidentialSecret))
        #expect(tokens.status == 200)
        return try #require(tokens.json["refresh_token"] as? String)
    }

    private func refresh(_ oauth: OAuthFixture, _ token: String) async throws -> (status: Int, json: [String: Any]) {
        let answer = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", token)],
                                           basic: ("web-app", oauth.confidentialSecret))
        return (answer.status, answer.json)
    }

    private func introspect(_ oauth: OAuthFixture, _ token: String) async throws -> Bool? {
        try await oauth.post("/oauth/introspect", [("token", token), ("client_id", "web-app"),
                                                   ("client_secret", oauth.confidentialSecret)]).json["active"] as? Bool
    }

    @Test func aRotationMovesTheFamilyRowOnAndAReplayRevokesIt() async throws {
        let oauth = try await OAuthFixture.make()
        let first = try await passwordRefreshToken(oauth)
        #expect(first.hasPrefix("rf1.") && RefreshTokenValue.generation(of: first) == 0)
        let hash = RefreshTokenValue.storageHash(of: first)
        let rotated = try await refresh(oauth, first)
        #expect(rotated.status == 200)
        let second = try #require(rotated.json["refresh_token"] as? String)
        #expect(RefreshTokenValue.generation(of: second) == 1)
        #expect(RefreshTokenValue.storageHash(of: second) == hash, "the same row")
        #expect(try await oauth.gatehouse.database.refreshTokens.find(hash: hash)?.generation == 1)
        #expect(try await introspect(oauth, second) == true)
        #expect(try await introspect(oauth, first) == false, "a replaced generation is not active")

        let replay = try await refresh(oauth, first)
        #expect(replay.status == 400 && replay.json["error"] as? String == "invalid_grant")
        #expect((replay.json["error_description"] as? String)?.contains("already used") == true)
        #expect(try await refresh(oauth, second).status == 400, "the family is revoked")
        #expect(try await oauth.gatehouse.database.refreshTokens.find(hash: hash)?.revokedAt != nil)
    }

    @Test func aForgedFamilyTokenIsRefusedAndTouchesNothing() async throws {
        let oauth = try await OAuthFixture.make()
        let first = try await passwordRefreshToken(oauth)
        let second = try #require(try await refresh(oauth, first).json["refresh_token"] as? String)
        var fields = second.split(separator: ".").map(String.init)
        #expect(fields.count == 4)
        // Another generation under the same MAC, a flipped MAC, an older generation forged to look like a replay.
        let mac = fields[3]
        fields[2] = "2"
        let nextWithOldMAC = fields.joined(separator: ".")
        fields[2] = "1"
        fields[3] = String(mac.dropLast()) + (mac.last == "A" ? "B" : "A")
        let flipped = fields.joined(separator: ".")
        fields[2] = "0"
        let forgedReplay = fields.joined(separator: ".")
        for forged in [nextWithOldMAC, flipped, forgedReplay, "rf1.short.0.mac", "rf1." + String(repeating: "A", count: 22) + ".01." + mac] {
            let answer = try await refresh(oauth, forged)
            #expect(answer.status == 400 && answer.json["error"] as? String == "invalid_grant", "\(forged)")
            #expect(try await introspect(oauth, forged) == false)
        }
        let stored = try await oauth.gatehouse.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: second))
        #expect(stored?.generation == 1 && stored?.revokedAt == nil, "no forged token rotated or revoked the family")
        #expect(try await refresh(oauth, second).status == 200)
    }

    /// An opaque token as builds before family rows issued it: 32 random bytes, stored as its SHA-256.
    @Test func anOpaqueTokenIssuedBeforeKeepsWorkingAndMovesItsFamily() async throws {
        let oauth = try await OAuthFixture.make()
        // The row as a password grant stores it now (so its times are the server clock's), as an opaque token's.
        let granted = try await passwordRefreshToken(oauth)
        var row = try #require(try await oauth.gatehouse.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: granted)))
        let opaque = SecureRandom.token(byteCount: 32)
        row.hash = TokenHash(SHA256.hash(opaque))
        row.familyId = "family-from-before"
        row.generation = nil
        try await oauth.gatehouse.database.refreshTokens.create(row)
        #expect(try await introspect(oauth, opaque) == true)

        let moved = try await refresh(oauth, opaque)
        #expect(moved.status == 200 && moved.json["scope"] as? String == "api.read")
        let familyToken = try #require(moved.json["refresh_token"] as? String)
        #expect(familyToken.hasPrefix("rf1.") && RefreshTokenValue.generation(of: familyToken) == 0)
        let familyRow = try await oauth.gatehouse.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: familyToken))
        #expect(familyRow?.familyId == "family-from-before" && familyRow?.generation == 0)
        #expect(try await introspect(oauth, opaque) == false)

        let next = try await refresh(oauth, familyToken)
        #expect(next.status == 200)
        #expect(RefreshTokenValue.generation(of: try #require(next.json["refresh_token"] as? String)) == 1)
        // The old token's replay is still reuse detection, and revokes the family in its new form too.
        let replay = try await refresh(oauth, opaque)
        #expect(replay.status == 400 && (replay.json["error_description"] as? String)?.contains("already used") == true)
        #expect(try await oauth.gatehouse.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: familyToken))?.revokedAt != nil)
    }
}
