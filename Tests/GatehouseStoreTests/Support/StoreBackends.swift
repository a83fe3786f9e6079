import Foundation
import GatehousePostgres
import GatehouseSQLite
import GatehouseStore
import Testing

/// A fresh, migrated, empty database plus the clean-up that removes it.
struct TestDatabase: Sendable {
    let database: any GatehouseDatabase
    let tearDown: @Sendable () async -> Void
}

/// A way to get a fresh database of one backend. The conformance suite runs once per entry of
/// `StoreBackends.all`: both SQLite setups and, when configured, PostgreSQL (see
/// `PostgresTestCluster`).
struct StoreBackend: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable () async throws -> TestDatabase

    var testDescription: String { name }
}

enum StoreBackends {
    static let all: [StoreBackend] = [sqliteFile, sqliteMemory] + (PostgresTestCluster.isEnabled ? [postgres] : [])

    /// A fresh schema on the cluster named by `GATEHOUSE_TEST_POSTGRES_URL` (see
    /// `PostgresTestCluster`), opened through `search_path`, migrated, dropped afterwards.
    static let postgres = StoreBackend(name: "postgres") {
        _ = try PostgresTestCluster.requireURL()
        await PostgresTestCluster.gate.enter()
        do {
            let schema = try await PostgresTestCluster.makeSchema()
            do {
                let database = try await PostgresDatabase.open(url: schema.url())
                do {
                    _ = try await database.migrate()
                } catch {
                    await database.close()
                    throw error
                }
                return TestDatabase(database: database) {
                    await database.close()
                    await schema.drop()
                    await PostgresTestCluster.gate.leave()
                }
            } catch {
                await schema.drop()
                throw error
            }
        } catch {
            await PostgresTestCluster.gate.leave()
            throw error
        }
    }

    /// A temporary SQLite file with the production configuration (WAL, reader pool).
    static let sqliteFile = StoreBackend(name: "sqlite-file") {
        let folder = TemporaryFolder.make()
        let database = try await SQLiteDatabase.open(location: .file(path: folder.appending("db.sqlite")))
        _ = try await database.migrate()
        return TestDatabase(database: database) {
            await database.close()
            folder.remove()
        }
    }

    /// An in-memory SQLite database: one connection serves reads and writes.
    static let sqliteMemory = StoreBackend(name: "sqlite-memory") {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        return TestDatabase(database: database) { await database.close() }
    }
}

/// Runs `body` against a fresh database of `backend` and always tears it down.
func withDatabase(_ backend: StoreBackend, _ body: (any GatehouseDatabase) async throws -> Void) async throws {
    let test = try await backend.make()
    do {
        try await body(test.database)
    } catch {
        await test.tearDown()
        throw error
    }
    await test.tearDown()
}

/// A unique folder under the system temporary directory.
struct TemporaryFolder: Sendable {
    let path: String

    static func make() -> TemporaryFolder {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("gatehouse-store-tests-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return TemporaryFolder(path: path)
    }

    func appending(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
