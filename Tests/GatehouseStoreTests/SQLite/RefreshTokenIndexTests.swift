import CSQLite
import Foundation
@testable import GatehouseSQLite
import GatehouseSQLStore
import GatehouseStore
import Testing

/// Migration 22 dropped `refresh_tokens_by_client`: every rotation's INSERT paid a random page of it and
/// no statement read it. These tests pin the indexes a rotation maintains and check that every
/// statement on `refresh_tokens` still finds its rows through one (no full scan), as SQLite plans them.
@Suite("SQLite refresh-token indexes")
struct RefreshTokenIndexTests {
    @Test func aRotationMaintainsThePrimaryKeyAndThreeIndexes() async throws {
        let folder = try await Self.migratedFolder()
        defer { folder.remove() }
        let names = try QueryPlan.rows(folder.appending(Self.file), """
            SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'refresh_tokens'
            AND name NOT LIKE 'sqlite_%' ORDER BY name
            """)
        #expect(names == ["refresh_tokens_by_expiry", "refresh_tokens_by_family", "refresh_tokens_by_user_created"])
    }

    @Test(arguments: [
        ("SELECT * FROM refresh_tokens t LEFT JOIN users u ON u.id = t.user_id WHERE t.hash = ?", "PRIMARY KEY"),
        ("UPDATE refresh_tokens SET rotated_at = 1 WHERE hash = ?", "PRIMARY KEY"),
        ("UPDATE refresh_tokens SET revoked_at = 1 WHERE family_id = ? AND revoked_at IS NULL AND expires_at > 1",
         "refresh_tokens_by_family"),
        ("SELECT 1 FROM refresh_tokens WHERE family_id = ? AND revoked_at IS NULL AND expires_at > 1 LIMIT 1",
         "refresh_tokens_by_family"),
        ("UPDATE refresh_tokens SET revoked_at = 1 WHERE user_id = ? AND client_id = ? AND revoked_at IS NULL",
         "refresh_tokens_by_user_created"),
        ("SELECT DISTINCT family_id FROM refresh_tokens WHERE user_id = ? AND revoked_at IS NULL ORDER BY family_id",
         "refresh_tokens_by_user_created"),
        ("DELETE FROM refresh_tokens WHERE hash IN (SELECT hash FROM refresh_tokens WHERE expires_at <= ? LIMIT 500)",
         "refresh_tokens_by_expiry"),
        (ActiveGrantsQuery.sql, "refresh_tokens_by_user_created"),
    ])
    func everyStatementSearchesAnIndex(_ statement: String, _ index: String) async throws {
        let folder = try await Self.migratedFolder()
        defer { folder.remove() }
        let plan = try QueryPlan.rows(folder.appending(Self.file), "EXPLAIN QUERY PLAN " + statement, column: 3)
        #expect(plan.contains { $0.hasPrefix("SEARCH") && $0.contains(index) }, "\(plan)")
        // A full pass over the table or one of its indexes would grow with the number of tokens.
        let tokenTables: Set<String> = ["refresh_tokens", "t", "n", "l"]
        let scans = plan.filter { detail in
            detail.hasPrefix("SCAN ") && tokenTables.contains(String(detail.dropFirst(5).prefix { $0 != " " }))
        }
        #expect(scans.isEmpty, "\(plan)")
    }

    private static let file = "plans.sqlite"

    private static func migratedFolder() async throws -> TemporaryFolder {
        let folder = TemporaryFolder.make()
        let db = try await SQLiteDatabase.open(location: .file(path: folder.appending(file)))
        _ = try await db.migrate()
        await db.close()
        return folder
    }
}

/// One column of every row of a statement, read with a plain connection.
private enum QueryPlan {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func rows(_ path: String, _ sql: String, column: Int32 = 0) throws -> [String] {
        _ = SQLiteConnection.processConfiguration  // before SQLite initialises, as the server does
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw Failure(description: "open \(path)")
        }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure(description: String(cString: sqlite3_errmsg(handle)))
        }
        var rows: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
        }
        return rows
    }
}
