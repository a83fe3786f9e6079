import Foundation
import GatehouseStore

/// The administrators' account search and listing, on either backend. Both walk `users_by_creation`
/// from the cursor, so a page costs the same at any number of accounts; a query that few emails contain
/// is answered from the trigram index instead (migration 41), since that walk would read nearly every row.
struct SQLUserSearchStore<Database: SQLDatabase>: UserSearchStore {
    let database: Database

    /// Up to this many trigram candidates are fetched and sorted; beyond it the query is common enough
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
                    switch dialect.emailSearch {
                    case .trigramTable:
                        if let trigrams = EmailTrigramQuery(query),
                           let candidates = try Self.candidates(trigrams, atMost: Self.trigramCandidateLimit, db) {
                            if candidates.isEmpty { return [] }
                            restriction = .searchRows(candidates, query)
                        }
                    case .plannerChooses:
                        if let local = query.localPartThroughAt { restriction = .containsThrough(local, query) }
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

    /// The search rows of the trigram table's matches for the first of the query's questions with no more than
    /// `bound` of them, or nil when none has (the walk then serves the query).
    private static func candidates(_ trigrams: EmailTrigramQuery, atMost bound: Int,
                                   _ db: Database.Connection) throws -> [Int64]? {
        let oldest = try db.queryOne("SELECT min(search_row) FROM user_search_rows", []) { $0.isNull(0) ? nil : $0.int64(0) }
        guard let first = oldest ?? nil else { return [] }  // no accounts
        let counts = try sampleCounts(trigrams.sampledTrigrams, before: first + Int64(EmailTrigramQuery.sampleRows), db)
        // No question (only common trigrams): the walk meets a page of matches sooner than FTS5 reads their lists.
        for question in trigrams.questions(counts: counts) {
            let rows = try db.query("SELECT rowid FROM users_email_trigrams WHERE users_email_trigrams MATCH ? LIMIT ?",
                                    [question, bound + 1]) { $0.int64(0) }
            if rows.count <= bound { return rows }
        }
        return nil
    }

    /// How many of the oldest accounts (search rows below `bound`) hold each trigram, counting no further
    /// than the first count that is common: one statement.
    private static func sampleCounts(_ trigrams: [String], before bound: Int64,
                                     _ db: Database.Connection) throws -> [String: Int] {
        let count = """
            (SELECT count(*) FROM (SELECT 1 FROM users_email_trigrams WHERE users_email_trigrams MATCH ? AND rowid < ? \
            LIMIT \(EmailTrigramQuery.commonCount)))
            """
        let sql = "SELECT " + Array(repeating: count, count: trigrams.count).joined(separator: ", ")
        let parameters: [any SQLBindable] = trigrams.flatMap { [EmailTrigramQuery.phrase($0), bound] as [any SQLBindable] }
        let values = try db.queryOne(sql, parameters) { row in (0..<trigrams.count).map { row.int(Int32($0)) } } ?? []
        return Dictionary(zip(trigrams, values), uniquingKeysWith: { first, _ in first })
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
        /// Emails containing the query among those containing the first string, the only one an index may
        /// serve (PostgreSQL: `email || ''` is not the indexed column).
        case containsThrough(String, String)
        /// Emails containing the query among these search rows (the SQLite trigram table's candidates, a
        /// bounded number, sorted); the LIKE stays as the exact test.
        case searchRows([Int64], String)
    }

    static func page(_ restriction: Restriction, after cursor: UserListCursor?, size: Int) -> (String, [any SQLBindable]) {
        var conditions: [String] = [], parameters: [any SQLBindable] = []
        switch restriction {
        case .none:
            break
        case .contains(let query):
            conditions.append("email LIKE ? ESCAPE '\\'")
            parameters.append(query.likeContainsPattern)
        case .containsThrough(let indexed, let query):
            conditions.append("email LIKE ? ESCAPE '\\' AND (email || '') LIKE ? ESCAPE '\\'")
            parameters += [indexed.likeContainsPattern, query.likeContainsPattern]
        case .searchRows(let rows, let query):
            // One statement whatever the number of rows: they come as a JSON array.
            conditions.append("""
                id IN (SELECT user_id FROM user_search_rows WHERE search_row IN (SELECT value FROM json_each(?)))
                """)
            conditions.append("email LIKE ? ESCAPE '\\'")
            parameters += ["[" + rows.map(String.init).joined(separator: ",") + "]", query.likeContainsPattern]
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
    /// The query up to and including its first `@`, when three characters or more come before it and some after
    /// it: what PostgreSQL's `pg_trgm` index is asked for. The domain is shared by many accounts, and its trigrams
    /// (with the padded ones `pg_trgm` makes at a word's start) have lists of nearly every account: a pasted
    /// address read them all (~100 ms at a million accounts), its local part with the `@` reads short ones.
    var localPartThroughAt: String? {
        guard let at = firstIndex(of: "@"), index(after: at) != endIndex, self[..<at].unicodeScalars.count >= 3 else {
            return nil
        }
        return String(self[...at])
    }
}
