import GatehousePostgres
import GatehouseSQLite
import GatehouseStore

/// Opens the backend named by `GATEHOUSE_DATABASE_URL`.
public enum DatabaseOpener {
    public static func open(url: String) async throws -> any GatehouseDatabase {
        if url.hasPrefix("sqlite:") { return try await SQLiteDatabase.open(url: url) }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") { return try await PostgresDatabase.open(url: url) }
        throw ConfigurationError(key: "GATEHOUSE_DATABASE_URL", problem: "must start with sqlite: or postgres://")
    }
}
