import Foundation
import GatehouseStore

/// The administrators' account search and listing, on either backend. Both walk `users_by_creation`
/// from the cursor, so a page costs the same at any number of accounts; a query that few emails contain
/// is answered from the trigram index instead (migration 41), since that walk would read nearly every row.
struct SQLUserSearchStore<Database: SQLDatabase>: UserSearchStore {
    let database: Database

    /// Up to this many trigram matches are fetched and sorted; beyond it the query is common enough
    /// that the creation-order walk meets a page of matches soon (at most ~limit × users / this rows).
    static var trigramCandidateLimit: Int { 2000 }

    func search(emailContaining query: String?, after cursor: String?, limit: Int) async throws -> Page<User> {
        let pageSize = min(max(limit, 1), 1000)
        let position = try cursor.map(UserListCursor.init)
        let query = query.flatMap { $0.isEmpty ? nil : $0 }
        let dialect = database.dialect
        let rows = try await database.read { db in
            try dialect.readSnapshot.run(db) { () throws -> [User] in
                var restriction: UserSearchSQL.Restriction = .none
                if let query {
                    restriction = .contains(query)
                    if dialect.emailSearch == .trigramTable, let phrase = query.trigramPhrase,
                       try Self.trigramMatches(phrase, atMost: Self.trigramCandidateLimit, db) <= Self.trigramCandidateLimit {
                        restriction = .trigramMatches(phrase, query)
                    }
                }
                let (sql, parameters) = UserSearchSQL.page(restriction, after: position, size: pageSize + 1)
                return try db.query(sql, parameters, UserSQL.decode)
            }
        }
        let items = Array(rows.prefix(pageSize))  // one extra row told whether another page exists
        let next = rows.count > pageSize ? items.last.map(UserSQL.cursor(after:)) : nil
        return Page(items: items, nextCursor: next)
    }

    /// How many accounts the trigram table holds for `phrase`, counting no further than `bound + 1`.
    private static func trigramMatches(_ phrase: String, atMost bound: Int, _ db: Database.Connection) throws -> Int {
        try db.queryOne("""
            SELECT count(*) FROM (SELECT 1 FROM users_email_trigrams WHERE users_email_trigrams MATCH ? LIMIT ?)
            """, [phrase, bound + 1]) { $0.int(0) } ?? 0
    }
}

/// The statements of `SQLUserSearchStore`.
enum UserSearchSQL {
    enum Restriction {
        /// Every account.
        case none
        /// Emails containing the query, found by walking creation order (PostgreSQL's planner may use its
        /// trigram index for the same statement).
        case contains(String)
        /// Emails containing the query among the SQLite trigram table's matches for its phrase (a bounded
        /// number, sorted); the LIKE stays as the exact test.
        case trigramMatches(String, String)
    }

    static func page(_ restriction: Restriction, after cursor: UserListCursor?, size: Int) -> (String, [any SQLBindable]) {
        var conditions: [String] = [], parameters: [any SQLBindable] = []
        switch restriction {
        case .none:
            break
        case .contains(let query):
            conditions.append("email LIKE ? ESCAPE '\\'")
            parameters.append(query.likeContainsPattern)
        case .trigramMatches(let phrase, let query):
            conditions.append("""
                id IN (SELECT user_search_rows.user_id FROM users_email_trigrams
                       JOIN user_search_rows ON user_search_rows.search_row = users_email_trigrams.rowid
                       WHERE users_email_trigrams MATCH ?)
                """)
            conditions.append("email LIKE ? ESCAPE '\\'")
            parameters += [phrase, query.likeContainsPattern]
        }
        if let cursor {
            conditions.append("(created_at, id) > (?, ?)")
            parameters += [cursor.createdAtMilliseconds, cursor.id]
        }
        var sql = "SELECT \(UserSQL.columns) FROM users"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY created_at, id LIMIT ?"
        parameters.append(size)
        return (sql, parameters)
    }
}

extension String {
    /// The query as an FTS5 phrase for the trigram tokenizer (every character literal, quotes doubled),
    /// which matches the emails containing it; nil below three characters, which no trigram covers.
    var trigramPhrase: String? {
        guard unicodeScalars.count >= 3 else { return nil }
        return "\"" + lowercased().replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
