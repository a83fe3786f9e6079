/// One schema version's DDL for SQLite. Version numbers and names follow `StoreSchema.versions`.
struct SQLiteMigration: Sendable {
    let version: Int
    let name: String
    /// Statements run inside the migration's transaction.
    let sql: String
}
