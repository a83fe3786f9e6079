import Foundation

/// A bounded purge, as every maintenance job runs them: deletes at most `limit` rows matching a
/// condition on a cutoff time, so one run never holds the writer (or row locks) for long.
///
/// Build it once (a `static let` or file-level constant): the statement text is fixed, so the
/// backends' statement caches hit.
struct SQLBatchPurge: Sendable {
    let statement: String
    /// How many `?` the condition has; each is bound to the cutoff.
    private let cutoffs: Int

    /// - Parameters:
    ///   - key: the column (or parenthesised column list) that identifies a row.
    ///   - condition: the rows to purge, with `?` for the cutoff (one or more times).
    ///   - order: an optional ` ORDER BY …` deciding which rows go first.
    init(table: String, key: String, condition: String, order: String = "") {
        let columns = key.hasPrefix("(") ? String(key.dropFirst().dropLast()) : key
        statement = "DELETE FROM \(table) WHERE \(key) IN (SELECT \(columns) FROM \(table) WHERE \(condition)\(order) LIMIT ?)"
        cutoffs = condition.filter { $0 == "?" }.count
    }

    /// Deletes up to `limit` rows (none for a negative limit); returns how many.
    func run(on database: some SQLDatabase, cutoff: Date, limit: Int) async throws -> Int {
        let parameters: [any SQLBindable] = Array(repeating: cutoff, count: cutoffs) + [max(limit, 0)]
        return try await database.write { [statement] db in try db.run(statement, parameters) }
    }
}
