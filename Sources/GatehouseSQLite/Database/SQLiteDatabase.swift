import Foundation
import GatehouseSQLStore
import GatehouseStore

/// The SQLite backend of `GatehouseDatabase`.
///
/// WAL journal, `synchronous=FULL` by default (docs/sqlite-durability.md), foreign keys on, a busy
/// timeout for other processes, one writer connection (all writes of this process serialised
/// through it in `BEGIN IMMEDIATE` transactions, concurrent ones committed together), a
/// checkpointer connection that keeps WAL checkpoints off the writer, and a few reader
/// connections. All SQLite calls run on the connections' own dispatch queues, never on the
/// cooperative pool.
public final class SQLiteDatabase: SQLStoreDatabase {
    /// Where this database lives.
    public let location: SQLiteLocation
    let pool: SQLiteConnectionPool
    /// Every store, written once in `GatehouseSQLStore` over this backend's pool.
    public let stores: SQLStores

    private init(location: SQLiteLocation, pool: SQLiteConnectionPool) {
        self.location = location
        self.pool = pool
        stores = SQLStores(database: pool, migrator: SQLiteMigrator.shared)
    }

    /// Opens (creating if needed) the database at a `sqlite:` URL; see `SQLiteLocation` for
    /// the accepted forms. `?synchronous=full|normal` in the URL overrides `configuration.synchronous`.
    /// Does not migrate: call `migrate()` (or `requireCurrentSchema()`).
    public static func open(url: String, configuration: SQLiteConfiguration = SQLiteConfiguration()) async throws
        -> SQLiteDatabase {
        var configuration = configuration
        if let query = url.firstIndex(of: "?") {
            for pair in url[url.index(after: query)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, parts[0] == "synchronous", let mode = SQLiteSynchronous(rawValue: parts[1].lowercased())
                else {
                    throw StoreError.invalidConfiguration(
                        detail: "unknown sqlite URL parameter \(pair.prefix(40)) (only synchronous=full|normal)")
                }
                configuration.synchronous = mode
            }
        }
        return try await open(location: SQLiteLocation(url: url), configuration: configuration)
    }

    /// Opens (creating if needed) the database at `location`, creating the parent folder.
    public static func open(location: SQLiteLocation,
                            configuration: SQLiteConfiguration = SQLiteConfiguration()) async throws -> SQLiteDatabase {
        if case .file(let path) = location {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw StoreError.unavailable(detail: "cannot create folder \(folder.path): \(error)")
            }
        }
        let path = location.sqlitePath
        let timeout = configuration.busyTimeoutMilliseconds
        // The writer opens first: it creates the file and switches it to WAL before readers attach.
        let synchronous = configuration.synchronous
        let writer = try await SQLiteConnectionQueue.open(
            label: "gatehouse.sqlite.writer", path: path, role: .writer, busyTimeoutMilliseconds: timeout,
            synchronous: synchronous)
        var readers: [SQLiteConnectionQueue] = []
        var checkpointer: SQLiteConnectionQueue?
        if location != .memory {
            do {
                checkpointer = try await SQLiteConnectionQueue.open(
                    label: "gatehouse.sqlite.checkpointer", path: path, role: .checkpointer,
                    busyTimeoutMilliseconds: timeout, synchronous: synchronous)
                for index in 0..<max(0, configuration.readerCount) {
                    readers.append(try await SQLiteConnectionQueue.open(
                        label: "gatehouse.sqlite.reader\(index)", path: path, role: .reader,
                        busyTimeoutMilliseconds: timeout, synchronous: synchronous))
                }
            } catch {
                for reader in readers { await reader.close() }
                await checkpointer?.close()
                await writer.close()
                throw error
            }
        }
        let groupWriter = SQLiteWriter(connection: writer, checkpointer: checkpointer,
                                       checkpointPages: configuration.checkpointPages)
        return SQLiteDatabase(location: location, pool: SQLiteConnectionPool(writer: groupWriter, readers: readers))
    }

    /// The latest schema version this build's SQLite migrations reach.
    public static var supportedSchemaVersion: Int { SQLiteMigrator.shared.latestVersion }

    /// The value of a PRAGMA such as `journal_mode` or `foreign_keys`, read on the writer or on
    /// a reader connection (their settings differ: readers are `query_only`). For diagnostics and
    /// backend tests; only plain pragma names are accepted, so nothing can be set through it.
    public func pragma(_ name: String, onReader: Bool = false) async throws -> String? {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }) else {
            throw StoreError.invalidArgument(detail: "not a pragma name: \(name)")
        }
        let sql = "PRAGMA \(name)"
        let body: @Sendable (SQLiteConnection) throws -> String? = { try $0.queryOne(sql, []) { $0.optionalText(0) } ?? nil }
        return onReader ? try await pool.read(body) : try await pool.withWriter(body)
    }
}
