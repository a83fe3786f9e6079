import Foundation
import GatehouseSQLStore
import GatehouseStore

/// The PostgreSQL backend of `GatehouseDatabase`, for when one machine is not enough.
///
/// A pool of libpq connections (`pool_size`, default 4), each used by one operation at a time
/// on its own dispatch queue, never on the cooperative pool. Statements are prepared once per
/// connection; single-use consumption and rate-limit hits are single atomic statements, so they
/// hold across any number of processes. A connection lost to a server restart or
/// `pg_terminate_backend` is replaced: the operation that hit it fails with
/// `StoreError.unavailable`, and later ones succeed once the server is back.
public final class PostgresDatabase: SQLStoreDatabase {
    /// Where this database lives and how the pool is sized.
    public let configuration: PostgresConfiguration
    let pool: PostgresConnectionPool
    /// Every store, written once in `GatehouseSQLStore` over this backend's pool.
    public let stores: SQLStores

    private init(configuration: PostgresConfiguration, pool: PostgresConnectionPool) {
        self.configuration = configuration
        self.pool = pool
        stores = SQLStores(database: pool, migrator: PostgresMigrator.shared)
    }

    /// Opens a pool for a `postgres://` or `postgresql://` URL (see `PostgresConfiguration`)
    /// and makes one connection to check it. Does not migrate: call `migrate()` (or
    /// `requireCurrentSchema()`). Throws `.invalidConfiguration` for a bad URL and
    /// `.unavailable` when the server cannot be reached.
    public static func open(url: String) async throws -> PostgresDatabase {
        try await open(configuration: PostgresConfiguration(url: url))
    }

    /// Opens a pool for `configuration` and makes one connection to check it.
    public static func open(configuration: PostgresConfiguration) async throws -> PostgresDatabase {
        let pool = PostgresConnectionPool(configuration: configuration)
        do {
            try await pool.withConnection { _ in }
        } catch {
            await pool.close()
            throw error
        }
        return PostgresDatabase(configuration: configuration, pool: pool)
    }

    /// The latest schema version this build's PostgreSQL migrations reach.
    public static var supportedSchemaVersion: Int { PostgresMigrator.shared.latestVersion }
}
