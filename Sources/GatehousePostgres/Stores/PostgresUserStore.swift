import Foundation
import GatehouseSQLStore
import GatehouseStore

struct PostgresUserStore: UserStore {
    let pool: PostgresConnectionPool

    private static let columns = """
        id, email, display_name, password_hash, email_verified, disabled, created_at, updated_at
        """

    func create(_ user: User) async throws {
        _ = try await pool.withConnection { db in
            try db.run("INSERT INTO users (\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", [
                user.id, user.email, user.displayName, user.passwordHash,
                user.emailVerified, user.disabled, user.createdAt, user.updatedAt,
            ])
        }
    }

    func find(id: String) async throws -> User? {
        try await pool.withConnection { db in
            try db.queryOne("SELECT \(Self.columns) FROM users WHERE id = $1", [id], Self.decode)
        }
    }

    func find(email: String) async throws -> User? {
        try await pool.withConnection { db in
            try db.queryOne("SELECT \(Self.columns) FROM users WHERE email = $1", [email], Self.decode)
        }
    }

    func update(id: String, _ changes: [UserChange], at: Date) async throws -> User {
        // One assignment per column (the last change of a column wins), in a fixed column order
        // so the statement text — and its prepared statement — depends only on which columns
        // change. Values are SQLValue, not optionals: assigning a nil optional would drop the key.
        var assignments: [String: SQLValue] = [:]
        for change in changes {
            switch change {
            case .email(let email): assignments["email"] = email.sqlValue
            case .displayName(let name): assignments["display_name"] = name.sqlValue
            case .passwordHash(let hash): assignments["password_hash"] = hash.sqlValue
            case .emailVerified(let verified): assignments["email_verified"] = verified.sqlValue
            case .disabled(let disabled): assignments["disabled"] = disabled.sqlValue
            }
        }
        let order = ["email", "display_name", "password_hash", "email_verified", "disabled"]
        let changed = order.filter { assignments[$0] != nil }
        let setClause = (changed + ["updated_at"]).enumerated().map { "\($1) = $\($0 + 1)" }.joined(separator: ", ")
        let parameters: [any SQLBindable] = changed.compactMap { assignments[$0] } + [at, id]
        let sql = "UPDATE users SET \(setClause) WHERE id = $\(parameters.count) RETURNING \(Self.columns)"
        let updated = try await pool.withConnection { db in try db.queryOne(sql, parameters, Self.decode) }
        guard let updated else { throw StoreError.notFound(detail: "user \(id)") }
        return updated
    }

    func delete(id: String) async throws -> Bool {
        try await pool.withConnection { db in try db.run("DELETE FROM users WHERE id = $1", [id]) } > 0
    }

    func list(after cursor: String?, limit: Int) async throws -> Page<User> {
        let pageSize = min(max(limit, 1), 1000)
        var sql = "SELECT \(Self.columns) FROM users"
        var parameters: [any SQLBindable] = []
        if let cursor {
            let position = try PostgresUserCursor(cursor)
            sql += " WHERE (created_at, id) > ($1, $2)"
            parameters += [position.createdAtMilliseconds, position.id]
        }
        parameters.append(pageSize + 1)  // one extra row tells whether another page exists
        sql += " ORDER BY created_at, id LIMIT $\(parameters.count)"
        let rows = try await pool.withConnection { [sql, parameters] db in try db.query(sql, parameters, Self.decode) }
        let items = Array(rows.prefix(pageSize))
        let next = rows.count > pageSize ? items.last.map { PostgresUserCursor(of: $0).encoded } : nil
        return Page(items: items, nextCursor: next)
    }

    func count() async throws -> Int {
        try await pool.withConnection { db in try db.queryOne("SELECT COUNT(*) FROM users", []) { $0.int(0) } ?? 0 }
    }

    private static func decode(_ row: PostgresRow) -> User {
        User(id: row.text(0), email: row.text(1), displayName: row.optionalText(2), passwordHash: row.optionalText(3),
             emailVerified: row.bool(4), disabled: row.bool(5), createdAt: row.date(6), updatedAt: row.date(7))
    }
}

/// Keyset position in the users listing: `<created_at ms>.<id>` (the same format as SQLite's).
private struct PostgresUserCursor {
    let createdAtMilliseconds: Int64
    let id: String

    init(of user: User) {
        createdAtMilliseconds = user.createdAt.millisecondsSinceEpoch
        id = user.id
    }

    init(_ encoded: String) throws {
        guard let dot = encoded.firstIndex(of: "."), let ms = Int64(encoded[..<dot]) else {
            throw StoreError.invalidArgument(detail: "malformed user cursor")
        }
        createdAtMilliseconds = ms
        id = String(encoded[encoded.index(after: dot)...])
    }

    var encoded: String { "\(createdAtMilliseconds).\(id)" }
}
