import Foundation
import GatehousePostgres
@testable import GatehouseSQLStore
import GatehouseStore
import Testing

/// The import's email lookup on a database with the `pg_trgm` index (migration 41): the planner priced that GIN
/// index as cheap for `email IN (…)`, read every account sharing a trigram for each email, and a 50,000-row import
/// ran into the statement timeout. Under the import's planning settings the list goes to the unique btree.
@Suite("PostgreSQL import planning", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresImportPlanTests {
    /// The plan PostgreSQL gives the batch view's email statement for 500 emails, inside a transaction with `settings`.
    /// A plain libpq URL of the schema (no Gatehouse-only parameters).
    static func rawURL(_ schema: PostgresTestSchema) -> String {
        schema.baseURL + (schema.baseURL.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(schema.name)"
    }

    static func emailListPlan(_ schema: PostgresTestSchema, settings: [(String, String)]) async throws -> String {
        let emails = (20_000..<20_500).map { "'u\($0)@scale.example'" }.joined(separator: ", ")
        let set = settings.map { "SET LOCAL \($0.0) = \($0.1);" }.joined(separator: " ")
        let rows = try await RawPostgres.execute(url: Self.rawURL(schema), """
            BEGIN; \(set)
            EXPLAIN SELECT \(UserImportBatchView.accountColumns) FROM users WHERE email IN (\(emails)) FOR UPDATE;
            """)
        return rows.compactMap { $0.first ?? nil }.joined(separator: "\n")
    }

    @Test func theEmailListOfABatchIsNotReadThroughTheTrigramIndex() async throws {
        try await withPostgresSchema { schema in
            let db = try await PostgresDatabase.open(url: schema.url())
            _ = try await db.migrate()
            let indexes = try await RawPostgres.execute(url: Self.rawURL(schema), "SELECT indexname FROM pg_indexes WHERE tablename = 'users'")
            #expect(indexes.contains { $0.first == "users_by_email_trigrams" })
            // 40,000 accounts whose emails share most of their trigrams, as an imported user base does.
            _ = try await RawPostgres.execute(url: Self.rawURL(schema), """
                INSERT INTO users (id, email, email_verified, created_at, updated_at)
                SELECT 'u' || i, 'u' || i || '@scale.example', TRUE, i, i FROM generate_series(1, 40000) AS i;
                ANALYZE users;
                """)
            // With the table scan priced out, as it is on a large table: left to itself the planner takes the
            // trigram index (the trap this guards against), under the import's settings the unique btree.
            let noScan = [("enable_seqscan", "off")]
            let unguarded = try await Self.emailListPlan(schema, settings: noScan)
            #expect(unguarded.contains("users_by_email_trigrams"), "\(unguarded)")
            let plan = try await Self.emailListPlan(schema, settings: noScan + SQLListPlanning.perRunSettings)
            #expect(!plan.contains("users_by_email_trigrams") && plan.contains("Index Scan using users_email_key"), "\(plan)")

            // And through the store: a batch of 500 rows that match existing accounts by email, all updated.
            let batch = (20_000..<20_500).enumerated().map { line, n in
                ImportedUser(line: line + 1, email: "u\(n)@scale.example", emailVerified: true, newId: "new\(n)")
            }
            let outcomes = try await db.userImports.importBatch(batch, at: Date(timeIntervalSince1970: 2_000_000_000)) { _, match in
                .update(ImportUpdate(emailVerified: true, verifiedByImport: match.verifiedByImport, password: .keep))
            }
            #expect(outcomes.map(\.action) == Array(repeating: .updated, count: 500))
            #expect(outcomes.first?.userId == "u20000")
            await db.close()
        }
    }

    /// An imported base is planned from its statistics at once: the import's end analyzes what it wrote, where
    /// autovacuum would take a minute or so (the admin search was planned from an empty table until then).
    @Test func theEndOfAnImportAnalyzesTheAccountsAndTheirIdentities() async throws {
        try await withPostgresSchema { schema in
            let db = try await PostgresDatabase.open(url: schema.url())
            _ = try await db.migrate()
            let analyzed = """
                SELECT relname FROM pg_stat_user_tables WHERE schemaname = '\(schema.name)' AND last_analyze IS NOT NULL
                    AND relname IN ('users', 'external_identities') ORDER BY relname
                """
            _ = try await db.userImports.importBatch((1...20).map { UserImportStoreTests.row($0, "u\($0)@example.test") },
                                                     at: TestTime.at(10))
            #expect(try await RawPostgres.execute(url: Self.rawURL(schema), analyzed).isEmpty, "not before the end")
            try await db.userImports.importFinished()
            let tables = try await RawPostgres.execute(url: Self.rawURL(schema), analyzed).compactMap { $0.first ?? nil }
            #expect(tables == ["external_identities", "users"])
            await db.close()
        }
    }
}
