/// One schema version's DDL for PostgreSQL. Version numbers and names follow `StoreSchema.versions`.
struct PostgresMigration: Sendable {
    let version: Int
    let name: String
    /// Statements run inside the migration's transaction.
    let sql: String
}
