import Foundation
import GatehousePostgres
import GatehouseSQLite
import GatehouseStore
import Testing

/// A whole import loaded into a database with no accounts (`UserImportStore.loadIntoEmpty`): every row is
/// written, the indexes set aside during the load are back and serve the stores afterwards, and a database
/// that holds an account, or a file whose rows name one key twice, is left to the batches untouched.
@Suite("UserImportStore bulk load conformance")
struct UserImportBulkLoadTests {
    /// `count` rows, each with an external id and a provider identity; new ids not in row order.
    static func rows(_ count: Int) -> [ImportedUser] {
        (1...count).map { line in
            UserImportStoreTests.row(line, "load\(line)@example.test", external: "ext-\(line)",
                                     identities: [ImportedIdentity(provider: "google", subject: "g-\(line)", email: "load\(line)@example.test")],
                                     newId: "id-\(String(format: "%04d", (line * 37) % 1_000))-\(line)")
        }
    }

    @Test(arguments: StoreBackends.all)
    func everyRowIsWrittenAndTheStoresReadThemThroughTheRebuiltIndexes(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let rows = Self.rows(300)
            let outcomes = try #require(try await db.userImports.loadIntoEmpty(rows, at: TestTime.at(10)))
            // One outcome a row, every one a creation, in the order written: by id.
            #expect(outcomes.count == 300 && outcomes.allSatisfy { $0.action == .created })
            #expect(outcomes.map(\.userId) == rows.map(\.newId).sorted())
            #expect(Set(outcomes.map(\.line)) == Set(1...300))
            #expect(try await db.users.count() == 300)
            let user = try #require(try await db.users.find(email: "load123@example.test"))
            #expect(user.id == rows[122].newId && user.passwordHash == UserImportStoreTests.bcrypt && user.emailVerified)
            #expect(try await db.userImports.find(productUserId: "ext-123")?.id == user.id)
            #expect(try await db.externalIdentities.find(provider: "google", subject: "g-123")?.userId == user.id)
            #expect(try await db.externalIdentities.list(userId: user.id).map(\.subject) == ["g-123"])
            #expect(try await UserSearchStoreTests.ids(db, "load123@") == [user.id])

            // The database now holds accounts: a second load writes nothing, and batches match by the rebuilt indexes.
            #expect(try await db.userImports.loadIntoEmpty(Self.rows(2).map { var row = $0; row.newId += "-again"; return row },
                                                           at: TestTime.at(11)) == nil)
            #expect(try await db.users.count() == 300)
            let again = try await db.userImports.importBatch([UserImportStoreTests.row(1, "renamed@example.test", external: "ext-7")],
                                                             at: TestTime.at(12))
            #expect(again == [ImportOutcome(line: 1, userId: rows[6].newId, action: .updated)])
        }
    }

    @Test(arguments: StoreBackends.all)
    func rowsThatNameOneKeyTwiceAreLeftToTheBatches(_ backend: StoreBackend) async throws {
        let files = Self.filesNamingOneKeyTwice()
        try await withDatabase(backend) { db in
            for file in files {
                let outcomes = try await db.userImports.loadIntoEmpty(file, at: TestTime.at(10))
                #expect(outcomes == nil)
            }
            let count = try await db.users.count()
            #expect(count == 0)
        }
    }

    /// Three rows, twice the same email, external id, new id or identity (across rows, then within one).
    static func filesNamingOneKeyTwice() -> [[ImportedUser]] {
        var sameEmail = rows(3), sameExternal = rows(3), sameId = rows(3), sameIdentity = rows(3), twiceInOneRow = rows(3)
        sameEmail[2].email = sameEmail[0].email
        sameExternal[1].productUserId = "ext-3"
        sameId[1].newId = sameId[0].newId
        sameIdentity[2].identities = sameIdentity[0].identities
        twiceInOneRow[1].identities += twiceInOneRow[1].identities
        return [sameEmail, sameExternal, sameId, sameIdentity, twiceInOneRow]
    }

    @Test(arguments: StoreBackends.all)
    func aDatabaseWithAnAccountIsNotLoaded(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("someone"))
            #expect(try await db.userImports.loadIntoEmpty(Self.rows(5), at: TestTime.at(10)) == nil)
            #expect(try await db.users.count() == 1)
            #expect(try await db.externalIdentities.find(provider: "google", subject: "g-1") == nil)
        }
    }

    /// The schema's indexes and triggers of the loaded tables, as SQLite keeps their text.
    static let sqliteSchema = """
        SELECT group_concat(type || ' ' || name || ': ' || sql, char(10)) FROM
            (SELECT type, name, sql FROM sqlite_schema WHERE tbl_name IN ('users', 'external_identities', 'user_search_rows')
             AND sql IS NOT NULL ORDER BY type, name)
        """

    @Test func sqliteKeepsItsSchemaAsItWasAndTheFileChecksWhole() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let path = folder.appending("load.sqlite")
        let db = try await SQLiteDatabase.open(location: .file(path: path))
        _ = try await db.migrate()
        let before = try RawSQLite.scalar(path: path, Self.sqliteSchema)
        #expect(before?.contains("index users_by_external_id: CREATE UNIQUE INDEX") == true, "\(before ?? "")")
        #expect(try await db.userImports.loadIntoEmpty(Self.rows(500), at: TestTime.at(10))?.count == 500)
        #expect(try RawSQLite.scalar(path: path, Self.sqliteSchema) == before)
        #expect(try RawSQLite.scalar(path: path, "PRAGMA integrity_check") == "ok")
        // The trigram table was filled by its trigger, row by row, as for any other insert.
        #expect(try RawSQLite.scalar(path: path, "SELECT count(*) FROM user_search_rows") == "500")
        await db.close()
    }

    /// The indexes and foreign keys of the loaded tables, as PostgreSQL prints them.
    static func postgresSchema(_ schema: PostgresTestSchema) async throws -> [String] {
        try await RawPostgres.execute(url: schema.baseURL, """
            SELECT indexdef FROM pg_indexes WHERE schemaname = '\(schema.name)' AND tablename IN ('users', 'external_identities')
            UNION ALL
            SELECT conname || ' ' || pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
            WHERE n.nspname = '\(schema.name)' AND c.conrelid IN ('\(schema.name).users'::regclass, '\(schema.name).external_identities'::regclass)
            ORDER BY 1
            """).compactMap { $0.first ?? nil }
    }

    @Test(.enabled(if: PostgresTestCluster.isEnabled))
    func postgresKeepsItsIndexesAndForeignKeys() async throws {
        try await withPostgresSchema { schema in
            let db = try await PostgresDatabase.open(url: schema.url(poolSize: 1))
            _ = try await db.migrate()
            let before = try await Self.postgresSchema(schema)
            #expect(before.contains { $0.contains("FOREIGN KEY (user_id) REFERENCES") }, "\(before)")
            #expect(before.contains { $0.contains("users_by_external_id") }, "\(before)")
            #expect(try await db.userImports.loadIntoEmpty(Self.rows(500), at: TestTime.at(10))?.count == 500)
            #expect(try await Self.postgresSchema(schema) == before)
            #expect(try await db.users.count() == 500)
            let identityOwner = try await RawPostgres.execute(url: schema.baseURL, """
                SELECT count(*) FROM \(schema.name).external_identities e JOIN \(schema.name).users u ON u.id = e.user_id
                """)
            #expect(identityOwner.first?.first == "500")
            await db.close()
        }
    }
}
