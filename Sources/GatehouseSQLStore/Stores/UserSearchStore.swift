import Foundation
import GatehouseStore

/// The administrators' account search and listing, on either backend.
struct SQLUserSearchStore<Database: SQLDatabase>: UserSearchStore {
    let database: Database

    func search(emailContaining query: String?, after cursor: String?, limit: Int) async throws -> Page<User> {
        let pageSize = min(max(limit, 1), 1000)
        var conditions: [String] = [], parameters: [any SQLBindable] = []
        if let query, !query.isEmpty {
            conditions.append("email LIKE ? ESCAPE '\\'")
            parameters.append(query.likeContainsPattern)
        }
        if let cursor {
            let position = try UserListCursor(cursor)
            conditions.append("(created_at, id) > (?, ?)")
            parameters += [position.createdAtMilliseconds, position.id]
        }
        var sql = "SELECT \(UserSQL.columns) FROM users"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY created_at, id LIMIT ?"
        parameters.append(pageSize + 1)  // one extra row tells whether another page exists
        let rows = try await database.read { [sql, parameters] db in try db.query(sql, parameters, UserSQL.decode) }
        let items = Array(rows.prefix(pageSize))
        let next = rows.count > pageSize ? items.last.map(UserSQL.cursor(after:)) : nil
        return Page(items: items, nextCursor: next)
    }
}
