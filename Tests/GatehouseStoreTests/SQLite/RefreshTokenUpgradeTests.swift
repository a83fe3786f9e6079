import Foundation
@testable import GatehouseSQLStore
import GatehouseSQLite
import GatehouseStore
import Testing

/// A database written before family rows (schema 38): the refresh token an older build stored, in the
/// columns it wrote, keeps working after migration 40 and moves its family to one row.
@Suite("SQLite refresh token upgrade")
struct RefreshTokenUpgradeTests {
    @Test func aTokenStoredBeforeMigration40RotatesIntoAFamilyRow() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let path = folder.appending("old.sqlite")
        await (try SQLiteDatabase.open(location: .file(path: path))).close()
        // The schema as it stood at version 38, built by the same migrations an older build ran.
        let old = StoreMigrations.all(.sqlite).filter { $0.version <= 38 }
        var script = StoreMigrations.bookkeeping(.sqlite) + ";\n"
        for migration in old {
            script += migration.sql + "\nINSERT INTO gatehouse_schema_migrations (version, name, applied_at) VALUES ("
                + "\(migration.version), '\(migration.name)', 0);\n"
        }
        // What that build stored for a user, a client and one refresh token (every column it knew).
        let hash = testHash("issued-by-an-older-build").bytes.map { String(format: "%02x", $0) }.joined()
        script += """
            INSERT INTO users (id, email, email_verified, disabled, created_at, updated_at) VALUES ('u1', 'u1@example.test', 1, 0, 1767225600000, 1767225600000);
            INSERT INTO oauth_clients (id, name, kind, secret_hash, redirect_uris, post_logout_redirect_uris, grant_types, scopes,
                first_party, allow_localhost, web_origins, metadata, created_at, updated_at)
                VALUES ('c1', 'Client', 'confidential', NULL, '[]', '[]', '["refresh_token"]', '[]', 1, 0, '[]', '{}', 0, 0);
            INSERT INTO refresh_tokens (hash, family_id, client_id, user_id, scope, auth_time, auth_methods, created_at, expires_at,
                rotated_at, revoked_at, dpop_jkt, resources)
                VALUES (X'\(hash)', 'f-old', 'c1', 'u1', 'openid offline_access', 0, '["pwd"]', 1767225600000, 1769817600000, NULL, NULL, NULL, NULL);
            """
        try RawSQLite.execute(path: path, script)

        let db = try await SQLiteDatabase.open(location: .file(path: path))
        let report = try await db.migrate()
        #expect(report.fromVersion == 38)
        #expect(report.applied == StoreSchema.versions.map(\.number).filter { $0 > 38 })
        let stored = try await db.refreshTokens.find(hash: testHash("issued-by-an-older-build"))
        #expect(stored?.generation == nil, "an opaque token stays one")
        #expect(stored?.familyId == "f-old")

        var familyRow = try #require(stored)
        familyRow.hash = testHash("family-row")
        familyRow.createdAt = TestTime.at(10)
        familyRow.generation = 0
        let upgrade = familyRow
        let moved = try await db.refreshTokens.exchange(hash: testHash("issued-by-an-older-build"), now: TestTime.at(10), graceWindow: 0) {
            _, user in (upgrade, user?.email)
        }
        guard case .rotated("u1@example.test") = moved else { Issue.record("the old token rotates, got \(moved)"); return }
        let next = try await db.refreshTokens.exchange(hash: testHash("family-row"), generation: 0, now: TestTime.at(20), graceWindow: 0) {
            presented, _ in
            var successor = presented
            successor.generation = 1
            return (successor, presented.familyId)
        }
        guard case .rotated("f-old") = next else { Issue.record("its family row rotates by generation, got \(next)"); return }
        #expect(try await db.refreshTokens.find(hash: testHash("family-row"))?.generation == 1)
        // The old token is still what it was: a rotated token whose replay revokes the family, family row included.
        guard case .reused = try await db.refreshTokens.exchange(hash: testHash("issued-by-an-older-build"), now: TestTime.at(30),
                                                                 graceWindow: 0, prepare: { _, _ in (upgrade, nil as String?) }) else {
            Issue.record("a replay of the old token is .reused"); return
        }
        #expect(try await db.refreshTokens.isFamilyActive("f-old", now: TestTime.at(30)) == false)
        await db.close()
    }
}
