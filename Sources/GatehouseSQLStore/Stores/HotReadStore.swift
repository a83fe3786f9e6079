import Foundation
import GatehouseStore

/// Each hot read in one statement (`HotReadQueries`, written once for both backends) on one connection.
struct SQLHotReads<Database: SQLDatabase>: HotReadStore {
    let database: Database

    func sessionWithUser(idHash: TokenHash, now: Date) async throws -> SessionWithUser? {
        try await database.read { db in
            try db.queryOne(HotReadQueries.sessionWithUser, [idHash, now]) { row in
                SessionWithUser(session: Self.session(row), user: Self.user(row, from: 9))
            }
        }
    }

    func sessionWithUserAndProviders(idHash: TokenHash, now: Date) async throws -> SessionWithUser? {
        let rows = try await database.read { db in
            try db.query(HotReadQueries.sessionWithUserAndProviders, [idHash, now]) { row in
                (SessionWithUser(session: Self.session(row), user: Self.user(row, from: 9)), row.optionalText(17))
            }
        }
        guard let first = rows.first?.0 else { return nil }
        return SessionWithUser(session: first.session, user: first.user,
                               providers: Array(Set(rows.compactMap(\.1))).sorted())
    }

    func bearerSubject(userId: String, revocationKeys: [String]) async throws -> BearerSubject {
        let keys = HotReadQueries.revocationPair(revocationKeys)
        return try await database.read { db in
            try db.queryOne(HotReadQueries.bearerSubject, [userId, keys[0], keys[1]]) { row in
                BearerSubject(revoked: row.bool(8), user: row.isNull(0) ? nil : Self.user(row, from: 0),
                              externalId: row.optionalText(9), tokensNotBefore: row.optionalDate(10))
            }
        } ?? BearerSubject(revoked: false, user: nil)
    }

    /// Four statements, one hop: each statement through `database.read` is a hop to a connection's queue
    /// and back (two thread wake-ups) and, on SQLite, a read transaction; the account page paid that four times.
    func accountOverview(userId: String, now: Date) async throws -> AccountOverview {
        let dialect = database.dialect
        return try await database.read { db in
            try Self.together(dialect, db) { try Self.overview(userId: userId, now: now, dialect: dialect, db) }
        }
    }

    /// The session and its user, then (when there is one) the overview: five statements, still one hop.
    func sessionWithAccountOverview(idHash: TokenHash, now: Date) async throws -> SessionWithUser? {
        let dialect = database.dialect
        return try await database.read { db in
            try Self.together(dialect, db) {
                guard let found = try db.queryOne(HotReadQueries.sessionWithUser, [idHash, now], { row in
                    SessionWithUser(session: Self.session(row), user: Self.user(row, from: 9))
                }) else { return nil }
                return SessionWithUser(session: found.session, user: found.user,
                                       overview: try Self.overview(userId: found.user.id, now: now, dialect: dialect, db))
            }
        }
    }

    /// SQLite: the statements in one read transaction. Each autocommitted read takes and drops the WAL
    /// read lock (`fcntl` calls, a twentieth of the account page); one transaction takes it once, and the
    /// lists come from one snapshot. PostgreSQL: autocommit as before (`BEGIN`/`COMMIT` would be two more
    /// round trips to the server).
    private static func together<T>(_ dialect: SQLDialect, _ db: some SQLConnection, _ body: () throws -> T) throws -> T {
        guard dialect == .sqlite else { return try body() }
        _ = try db.run("BEGIN", [])
        do {
            let result = try body()
            _ = try db.run("COMMIT", [])
            return result
        } catch {
            // Never leave a reader holding its snapshot (the WAL could not be checkpointed past it).
            _ = try? db.run("ROLLBACK", [])
            throw error
        }
    }

    private static func overview(userId: String, now: Date, dialect: SQLDialect, _ db: some SQLConnection) throws -> AccountOverview {
        let backend = dialect.name
        return AccountOverview(
            sessions: try db.query(SessionSQL.list, [userId, now, now], SessionSQL.decode),
            identities: try db.query(ExternalIdentitySQL.list, [userId], ExternalIdentitySQL.decode),
            consents: try db.query(ConsentSQL.list, [userId]) { try ConsentSQL.decode($0, backend: backend) },
            grants: dialect == .sqlite
                ? try SQLiteActiveGrantsWalk.read(userId: userId, now: now, db)
                : try db.query(ActiveGrantsQuery.sql, [userId, now]) { row in
                    ActiveGrant(clientId: row.text(0), scope: row.text(1), since: row.date(2))
                })
    }

    /// The `SessionStore` columns, first in the row.
    private static func session(_ row: some SQLRow) -> Session {
        Session(idHash: row.tokenHash(0), userId: row.text(1), createdAt: row.date(2), lastSeenAt: row.date(3),
                idleExpiresAt: row.date(4), absoluteExpiresAt: row.date(5), ip: row.optionalText(6),
                userAgent: row.optionalText(7), authMethods: row.text(8).split(separator: " ").map(String.init))
    }

    /// The `UserStore` columns starting at `first`.
    private static func user(_ row: some SQLRow, from first: Int32) -> User {
        User(id: row.text(first), email: row.text(first + 1), displayName: row.optionalText(first + 2),
             passwordHash: row.optionalText(first + 3), emailVerified: row.bool(first + 4), disabled: row.bool(first + 5),
             createdAt: row.date(first + 6), updatedAt: row.date(first + 7))
    }
}
