import GatehouseSQLite
import GatehouseStore

/// Opens the backend named by `GATEHOUSE_DATABASE_URL`.
public enum DatabaseOpener {
    public static func open(url: String) async throws -> any GatehouseDatabase {
        if url.hasPrefix("sqlite:") { return try await SQLiteDatabase.open(url: url) }
        throw ConfigurationError(key: "GATEHOUSE_DATABASE_URL",
                                 problem: "the PostgreSQL backend is not part of this build yet; use sqlite:")
    }
}
