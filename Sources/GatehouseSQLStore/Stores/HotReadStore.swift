import Foundation
import GatehouseStore

/// Each hot read in one statement (`HotReadQueries`, written once for both backends) on one connection.
struct SQLHotReads<Database: SQLDatabase>: HotReadStore {
    let database: Database

    func sessionWithUser(idHash: TokenHash, now: Date) async throws -> SessionWithUser? {
        try await database.read { db in
            try db.queryOne(HotReadQueries.sessionWithUser, [idHash, now, now], Self.sessionWithUser)
        }
    }

    func sessionWithUserAndProviders(idHash: TokenHash, now: Date) async throws -> SessionWithUser? {
        let rows = try await database.read { db in
            try db.query(HotReadQueries.sessionWithUserAndProviders, [idHash, now, now]) { row in
                (Self.sessionWithUser(row), row.optionalText(HotReadQueries.providerColumn))
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
                BearerSubject(revoked: row.bool(HotReadQueries.revokedColumn),
                              user: row.isNull(UserColumn.id) ? nil : UserSQL.decode(row),
                              productUserId: row.optionalText(HotReadQueries.productUserIdColumn),
                              tokensNotBefore: row.optionalDate(HotReadQueries.tokensNotBeforeColumn))
            }
        } ?? BearerSubject(revoked: false, user: nil)
    }

    /// Four statements, one hop: each statement through `database.read` is a hop to a connection's queue
    /// and back (two thread wake-ups) and, on SQLite, a read transaction; the account page paid that four times.
    func accountOverview(userId: String, now: Date) async throws -> AccountOverview {
        let dialect = database.dialect
        return try await database.read { db in
            try dialect.readSnapshot.run(db) { try Self.overview(userId: userId, now: now, dialect: dialect, db) }
        }
    }

    /// The session and its user, then (when there is one) the overview: five statements, still one hop.
    func sessionWithAccountOverview(idHash: TokenHash, now: Date) async throws -> SessionWithUser? {
        let dialect = database.dialect
        return try await database.read { db in
            try dialect.readSnapshot.run(db) {
                guard let found = try db.queryOne(HotReadQueries.sessionWithUser, [idHash, now, now], Self.sessionWithUser)
                else { return nil }
                return SessionWithUser(session: found.session, user: found.user,
                                       overview: try Self.overview(userId: found.user.id, now: now, dialect: dialect, db))
            }
        }
    }

    private static func overview(userId: String, now: Date, dialect: SQLDialect, _ db: some SQLConnection) throws -> AccountOverview {
        let backend = dialect.name
        return AccountOverview(
            sessions: try db.query(SessionSQL.list, [userId, now, now], SessionSQL.decode),
            identities: try db.query(ExternalIdentitySQL.list, [userId], ExternalIdentitySQL.decode),
            consents: try db.query(ConsentSQL.list, [userId]) { try ConsentSQL.decode($0, backend: backend) },
            grants: try RefreshTokenSQL.activeGrants(userId: userId, now: now, read: dialect.activeGrants, db))
    }

    /// A session row followed by its user's columns.
    private static func sessionWithUser(_ row: some SQLRow) -> SessionWithUser {
        SessionWithUser(session: SessionSQL.decode(row), user: UserSQL.decode(row.columns(from: HotReadQueries.userOffset)))
    }
}
