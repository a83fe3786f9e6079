import Foundation
import GatehouseStore

/// Single-use tokens, on either backend.
struct SQLOneTimeTokenStore<Database: SQLDatabase>: OneTimeTokenStore {
    let database: Database

    func create(_ token: OneTimeToken) async throws {
        _ = try await database.write { db in
            try db.run(OneTimeTokenSQL.insert, [
                token.hash, token.purpose.rawValue, token.userId, token.createdAt, token.expiresAt,
                token.usedAt, token.payload,
            ])
        }
    }

    func consume(hash: TokenHash, purpose: TokenPurpose, now: Date) async throws -> OneTimeToken? {
        // One conditional UPDATE: the row changes for at most one caller. SQLite: whoever holds
        // the write lock first; PostgreSQL: concurrent callers queue on the row lock and, under
        // READ COMMITTED, each later one re-checks the WHERE clause against the committed row,
        // finds used_at set and changes nothing — in this process or any other.
        try await database.write { db in
            try db.queryOne(OneTimeTokenSQL.consume, [now, hash, purpose.rawValue, now], OneTimeTokenSQL.decode)
        }
    }

    func invalidateAll(userId: String, purpose: TokenPurpose) async throws -> Int {
        try await database.write { db in
            try db.run("DELETE FROM one_time_tokens WHERE user_id = ? AND purpose = ?", [userId, purpose.rawValue])
        }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await oneTimeTokenPurge.run(on: database, cutoff: now, limit: limit)
    }
}

private enum OneTimeTokenColumn: Int32, SQLColumn {
    case hash, purpose, userId, createdAt, expiresAt, usedAt, payload
}

private enum OneTimeTokenSQL {
    static let columns = OneTimeTokenColumn.list()
    static let insert = "INSERT INTO one_time_tokens (\(columns)) VALUES (\(OneTimeTokenColumn.placeholders))"
    static let consume = """
        UPDATE one_time_tokens SET used_at = ?
        WHERE hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
        RETURNING \(columns)
        """

    static func decode(_ row: some SQLRow) -> OneTimeToken {
        typealias C = OneTimeTokenColumn
        return OneTimeToken(hash: row.tokenHash(C.hash), purpose: TokenPurpose(rawValue: row.text(C.purpose)),
                            userId: row.text(C.userId), createdAt: row.date(C.createdAt), expiresAt: row.date(C.expiresAt),
                            usedAt: row.optionalDate(C.usedAt), payload: row.text(C.payload))
    }
}

private let oneTimeTokenPurge = SQLBatchPurge(table: "one_time_tokens", key: "hash", condition: "expires_at <= ?")
