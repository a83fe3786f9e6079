import Foundation
import GatehouseStore

/// Accounts, on either backend.
struct SQLUserStore<Database: SQLDatabase>: UserStore {
    let database: Database

    func create(_ user: User) async throws {
        _ = try await database.write { db in
            try db.run(UserSQL.insert, [
                user.id, user.email, user.displayName, user.passwordHash,
                user.emailVerified, user.disabled, user.createdAt, user.updatedAt, user.language, user.timeZone,
            ])
        }
    }

    func find(id: String) async throws -> User? {
        try await database.read { db in try db.queryOne(UserSQL.findByID, [id], UserSQL.decode) }
    }

    func find(email: String) async throws -> User? {
        try await database.read { db in try db.queryOne(UserSQL.findByEmail, [email], UserSQL.decode) }
    }

    func update(id: String, _ changes: [UserChange], at: Date) async throws -> User {
        // One assignment per column (the last change of a column wins), in a fixed column order
        // so the statement text — and its cached statement — depends only on which columns change.
        // Values are SQLValue, not optionals: assigning a nil optional would drop the key.
        var assignments: [UserColumn: SQLValue] = [:]
        for change in changes {
            switch change {
            case .email(let email): assignments[.email] = email.sqlValue
            case .displayName(let name): assignments[.displayName] = name.sqlValue
            case .passwordHash(let hash): assignments[.passwordHash] = hash.sqlValue
            case .emailVerified(let verified): assignments[.emailVerified] = verified.sqlValue
            case .disabled(let disabled): assignments[.disabled] = disabled.sqlValue
            case .language(let tag): assignments[.language] = tag.sqlValue
            case .timeZone(let zone): assignments[.timeZone] = zone.sqlValue
            }
        }
        let changed = UserColumn.allCases.filter { assignments[$0] != nil }
        var setClause = (changed + [.updatedAt]).map { "\($0.name) = ?" }.joined(separator: ", ")
        // Whatever sets the verified flag here is Gatehouse's own proof (a link, a reset, an operator): no
        // longer the import file's word, so later imports treat the address as proven.
        if assignments[.emailVerified] != nil { setClause += ", verified_by_import = FALSE" }
        let parameters: [any SQLBindable] = changed.compactMap { assignments[$0] } + [at, id]
        let sql = "UPDATE users SET \(setClause) WHERE id = ? RETURNING \(UserSQL.columns)"
        let updated = try await database.write { db in try db.queryOne(sql, parameters, UserSQL.decode) }
        guard let updated else { throw StoreError.notFound(detail: "user \(id)") }
        return updated
    }

    func delete(id: String) async throws -> Bool {
        try await database.write { db in try db.run("DELETE FROM users WHERE id = ?", [id]) } > 0
    }

    func list(after cursor: String?, limit: Int) async throws -> Page<User> {
        // The unfiltered search: the same keyset listing and cursor format.
        try await SQLUserSearchStore(database: database).search(emailContaining: nil, after: cursor, limit: limit)
    }

    func voidTokens(userId: String, issuedBefore instant: Date) async throws -> Bool {
        try await database.write { db in try db.run(UserSQL.voidTokens, [instant, instant, userId]) } > 0
    }

    func tokensNotBefore(userId: String) async throws -> Date? {
        try await database.read { db in
            try db.queryOne("SELECT tokens_not_before FROM users WHERE id = ?", [userId]) { $0.optionalDate(0) }
        } ?? nil
    }

    func bcryptCostInUse() async throws -> Int? {
        // A scan, run once at start-up: `$2a$12$…`, the cost is the two digits after the third character.
        // It reads every account's page; kept in the reader's cache they would be most of idle memory.
        let cost = try await database.read { db in
            defer { db.releaseCachedPages() }
            return try db.queryOne("SELECT MAX(SUBSTR(password_hash, 5, 2)) FROM users WHERE password_hash LIKE '$2_$%'", []) {
                $0.optionalText(0)
            }
        }
        return (cost ?? nil).flatMap { Int($0) }
    }

    func count() async throws -> Int {
        try await database.read { db in try db.queryOne("SELECT COUNT(*) FROM users", []) { $0.int(0) } ?? 0 }
    }
}

/// The columns of `users` that make a `User` (the table has more, such as `external_id`).
enum UserColumn: Int32, SQLColumn {
    case id, email, displayName, passwordHash, emailVerified, disabled, createdAt, updatedAt, language, timeZone
}

/// The `users` statements shared by the user, import and search stores.
enum UserSQL {
    static let columns = UserColumn.list()
    static let insert = "INSERT INTO users (\(columns)) VALUES (\(UserColumn.placeholders))"
    static let findByID = "SELECT \(columns) FROM users WHERE id = ?"
    static let findByEmail = "SELECT \(columns) FROM users WHERE email = ?"
    /// Moves the mark forward only, so a late writer with an older instant cannot revive tokens.
    static let voidTokens = """
        UPDATE users SET tokens_not_before = CASE WHEN tokens_not_before IS NULL OR tokens_not_before < CAST(? AS BIGINT)
                                                  THEN CAST(? AS BIGINT) ELSE tokens_not_before END
        WHERE id = ?
        """

    /// Where a listing continues after `user`.
    static func cursor(after user: User) -> String {
        UserListCursor(createdAtMilliseconds: user.createdAt.millisecondsSinceEpoch, id: user.id).encoded
    }

    static func decode(_ row: some SQLRow) -> User {
        typealias C = UserColumn
        return User(id: row.text(C.id), email: row.text(C.email), displayName: row.optionalText(C.displayName),
                    passwordHash: row.optionalText(C.passwordHash), emailVerified: row.bool(C.emailVerified),
                    disabled: row.bool(C.disabled), createdAt: row.date(C.createdAt), updatedAt: row.date(C.updatedAt),
                    language: row.optionalText(C.language), timeZone: row.optionalText(C.timeZone))
    }
}
