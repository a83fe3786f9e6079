import Foundation
import GatehouseStore

/// Refresh tokens, on either backend. A token is *live* while it is neither revoked nor expired;
/// it is *current* (usable without a grace window) while it is also not rotated.
struct SQLRefreshTokenStore<Database: SQLDatabase>: RefreshTokenStore {
    let database: Database
    private let findForRotationSQL: String
    private let rotation: SQLRefreshRotation

    init(database: Database) {
        self.database = database
        findForRotationSQL = "\(RefreshTokenSQL.find)\(database.dialect.forUpdate)"
        rotation = database.dialect.refreshRotation
    }

    func create(_ token: RefreshToken) async throws {
        _ = try await database.write { db in try RefreshTokenSQL.insert(token, db) }
    }

    func find(hash: TokenHash) async throws -> RefreshToken? {
        let backend = database.dialect.name
        return try await database.read { db in
            try db.queryOne(RefreshTokenSQL.find, [hash]) { try RefreshTokenSQL.decode($0, backend: backend) }
        }
    }

    func rotate(hash: TokenHash, replacement: RefreshToken, now: Date, graceWindow: TimeInterval) async throws
        -> RefreshRotation {
        // Read, decide and write in one transaction that first locks the presented row. SQLite:
        // BEGIN IMMEDIATE on the single writer, so no other rotation of this token (in this
        // process or another) can interleave. PostgreSQL: FOR UPDATE, so a concurrent rotation of
        // the same token, in any process, waits here and then reads the committed row, with
        // rotated_at already set.
        let backend = database.dialect.name
        // PostgreSQL: the common case in one round trip: claim the current token and insert its
        // successor in one statement. Under READ COMMITTED the UPDATE re-checks its conditions on
        // the row it locked, so of two concurrent rotations (any process) exactly one claims it and
        // the other matches nothing. Everything else (rotated, revoked, expired, unknown, another
        // family) takes the transaction below, which tells those cases apart. SQLite's single
        // writer makes the transaction as cheap, so it always takes it.
        if rotation == .claimStatement, let claimed = try await database.write({ db in
            try db.queryOne(RefreshTokenSQL.claimAndInsert.sql, RefreshTokenSQL.claimBindings(replacement, hash: hash, now: now)) {
                try RefreshTokenSQL.decode($0, backend: backend)
            }
        }) {
            return .rotated(claimed)
        }
        return try await database.transaction { [findForRotationSQL] db in
            guard let presented = try db.queryOne(findForRotationSQL, [hash], { try RefreshTokenSQL.decode($0, backend: backend) })
            else { return .invalid }
            return try RefreshTokenSQL.rotateLocked(presented, replacement: replacement, now: now, graceWindow: graceWindow, backend: backend, db)
        }
    }

    func exchange<Issue: Sendable>(hash: TokenHash, generation: Int64?, now: Date, graceWindow: TimeInterval,
                                   prepare: @escaping @Sendable (RefreshToken, User?) throws -> (replacement: RefreshToken, issue: Issue))
        async throws -> RefreshExchange<Issue> {
        let backend = database.dialect.name
        if rotation == .writerTransaction {
            // SQLite: the single writer's transaction already excludes every other writer, so reading the
            // token and its user there, deciding and rotating is one hop to the writer instead of three
            // (two reads, then the write). A `prepare` that throws rolls its savepoint back: nothing written.
            // Measured against reading on a reader first and then rotating (two hops): 12–15% less CPU per
            // refresh, the SQL work on the writer being the same (`rotate` re-reads the row there).
            return try await database.transaction { db in
                guard let (presented, user) = try db.queryOne(RefreshTokenSQL.findWithUser, [hash], {
                    try RefreshTokenSQL.decodeWithUser($0, backend: backend)
                }), (presented.generation == nil) == (generation == nil) else { return .unknown }
                let (replacement, issue) = try prepare(presented, user)
                if let generation {
                    return RefreshTokenSQL.exchange(try RefreshFamilySQL.rotateLocked(presented, presented: generation, replacement: replacement,
                                                                                      now: now, graceWindow: graceWindow, db), issue)
                }
                return RefreshTokenSQL.exchange(try RefreshTokenSQL.rotateLocked(presented, replacement: replacement, now: now,
                                                                                 graceWindow: graceWindow, backend: backend, db), issue)
            }
        }
        // PostgreSQL: two round trips in the common case: the token with its user, then the claim (a family's
        // conditional UPDATE, or an opaque token's claim with the successor's insert in one statement, see
        // `rotate`); every other case takes a locking transaction.
        guard let (presented, user) = try await database.read({ db in
            try db.queryOne(RefreshTokenSQL.findWithUser, [hash]) { try RefreshTokenSQL.decodeWithUser($0, backend: backend) }
        }), (presented.generation == nil) == (generation == nil) else { return .unknown }
        let (replacement, issue) = try prepare(presented, user)
        let live = presented.revokedAt == nil && presented.expiresAt > now
        let findForRotationSQL = findForRotationSQL
        if let generation {
            if live, presented.generation == generation, replacement.hash == hash, replacement.familyId == presented.familyId,
               replacement.generation == generation + 1, try await database.write({ db in
                   try db.run(RefreshFamilySQL.advance, RefreshFamilySQL.advanceBindings(hash: hash, generation: generation, now: now))
               }) == 1 {
                return .rotated(issue)
            }
            return try await database.transaction { db in
                guard let locked = try db.queryOne(findForRotationSQL, [hash], { try RefreshTokenSQL.decode($0, backend: backend) })
                else { return .invalid }
                return RefreshTokenSQL.exchange(try RefreshFamilySQL.rotateLocked(locked, presented: generation, replacement: replacement,
                                                                                  now: now, graceWindow: graceWindow, db), issue)
            }
        }
        if presented.rotatedAt == nil, live, let claimed = try await database.write({ db in
            try db.queryOne(RefreshTokenSQL.claimAndInsert.sql, RefreshTokenSQL.claimBindings(replacement, hash: hash, now: now)) { _ in true }
        }), claimed {
            return .rotated(issue)
        }
        return try await database.transaction { db in
            guard let locked = try db.queryOne(findForRotationSQL, [hash], { try RefreshTokenSQL.decode($0, backend: backend) })
            else { return .invalid }
            return RefreshTokenSQL.exchange(try RefreshTokenSQL.rotateLocked(locked, replacement: replacement, now: now,
                                                                             graceWindow: graceWindow, backend: backend, db), issue)
        }
    }

    func revokeFamily(_ familyId: String, now: Date) async throws -> Int {
        try await database.write { db in try RefreshTokenSQL.revokeLive(familyId: familyId, now: now, db) }
    }

    func revokeAll(userId: String, clientId: String?, now: Date) async throws -> Int {
        try await database.write { db in
            if let clientId {
                return try db.run("""
                    UPDATE refresh_tokens SET revoked_at = ?
                    WHERE user_id = ? AND client_id = ? AND revoked_at IS NULL AND expires_at > ?
                    """, [now, userId, clientId, now])
            }
            return try db.run("""
                UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ?
                """, [now, userId, now])
        }
    }

    func familyIds(userId: String, clientId: String?, now: Date) async throws -> [String] {
        try await database.read { db in
            guard let clientId else {
                return try db.query("""
                    SELECT DISTINCT family_id FROM refresh_tokens
                    WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY family_id
                    """, [userId, now]) { $0.text(0) }
            }
            return try db.query("""
                SELECT DISTINCT family_id FROM refresh_tokens
                WHERE user_id = ? AND client_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY family_id
                """, [userId, clientId, now]) { $0.text(0) }
        }
    }

    func sessionFamilyIds(userId: String, signedInAt: Date, now: Date) async throws -> [String] {
        try await database.read { db in
            try db.query("""
                SELECT DISTINCT family_id FROM refresh_tokens
                WHERE user_id = ? AND auth_time = ? AND revoked_at IS NULL AND expires_at > ?
                  AND (' ' || scope || ' ') NOT LIKE '% offline_access %'
                ORDER BY family_id
                """, [userId, signedInAt, now]) { $0.text(0) }
        }
    }

    func isFamilyActive(_ familyId: String, now: Date) async throws -> Bool {
        try await database.read { db in
            try db.queryOne("""
                SELECT 1 FROM refresh_tokens WHERE family_id = ? AND revoked_at IS NULL AND expires_at > ? LIMIT 1
                """, [familyId, now]) { _ in true } ?? false
        }
    }

    func activeGrants(userId: String, now: Date) async throws -> [ActiveGrant] {
        let read = database.dialect.activeGrants
        return try await database.read { db in try RefreshTokenSQL.activeGrants(userId: userId, now: now, read: read, db) }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await refreshTokenPurge.run(on: database, cutoff: now, limit: limit)
    }
}

enum RefreshTokenColumn: Int32, SQLColumn {
    case hash, familyId, clientId, userId, scope, authTime, authMethods, createdAt, expiresAt, rotatedAt, revokedAt, dpopJkt, resources
    case generation, generationAt, priorGenerationAt
}

/// Statements and rules shared by the operations above and the account page's hot read.
enum RefreshTokenSQL {
    static let columns = RefreshTokenColumn.list()
    static let find = "SELECT \(columns) FROM refresh_tokens WHERE hash = ?"
    enum ClaimParameter: Hashable, Sendable { case replacement(RefreshTokenColumn), presentedHash, now }

    /// PostgreSQL's common rotation (`SQLRefreshRotation.claimStatement`): claim the current token and
    /// insert its successor in one data-modifying statement. Casts, since PostgreSQL cannot infer the
    /// parameters' types from the INSERT's SELECT list.
    static let claimAndInsert: SQLTemplate<ClaimParameter> = """
        WITH claimed AS (
            UPDATE refresh_tokens SET rotated_at = \(.now)::bigint
            WHERE hash = \(.presentedHash)::bytea AND family_id = \(.replacement(.familyId))::text
              AND rotated_at IS NULL AND generation IS NULL AND revoked_at IS NULL AND expires_at > \(.now)::bigint
            RETURNING \(sql: columns)),
        inserted AS (
            INSERT INTO refresh_tokens (\(sql: columns))
            SELECT \(.replacement(.hash))::bytea, \(.replacement(.familyId))::text, \(.replacement(.clientId))::text,
                   \(.replacement(.userId))::text, \(.replacement(.scope))::text, \(.replacement(.authTime))::bigint,
                   \(.replacement(.authMethods))::text, \(.replacement(.createdAt))::bigint,
                   \(.replacement(.expiresAt))::bigint, NULL, NULL, \(.replacement(.dpopJkt))::text,
                   \(.replacement(.resources))::text, \(.replacement(.generation))::bigint, NULL, NULL FROM claimed)
        SELECT \(sql: columns) FROM claimed
        """

    /// The token and its user (NULL when the user is gone).
    static let findWithUser = """
        SELECT \(RefreshTokenColumn.list(prefix: "t.")), \(UserColumn.list(prefix: "u."))
        FROM refresh_tokens t LEFT JOIN users u ON u.id = t.user_id WHERE t.hash = ?
        """
    static let insertStatement = "INSERT INTO refresh_tokens (\(columns)) VALUES (\(RefreshTokenColumn.placeholders))"

    /// The refresh grace rule. Not rotated yet, or first rotated less than `graceWindow` ago
    /// (compared in whole milliseconds, the stored precision). Without a grace window a rotated
    /// token never rotates again: a concurrent request that read the clock before the winner did
    /// (so its `now` is earlier than `rotated_at`) would otherwise see a negative age and pass.
    static func mayRotate(_ token: RefreshToken, now: Date, graceWindow: TimeInterval) -> Bool {
        guard let rotatedAt = token.rotatedAt else { return true }
        return withinGrace(rotatedAt: rotatedAt, now: now, graceWindow: graceWindow)
    }

    /// Whether a token replaced at `rotatedAt` is still inside the grace window at `now`.
    static func withinGrace(rotatedAt: Date, now: Date, graceWindow: TimeInterval) -> Bool {
        let graceMilliseconds = Int64((graceWindow * 1000).rounded())
        guard graceMilliseconds > 0 else { return false }
        return now.millisecondsSinceEpoch - rotatedAt.millisecondsSinceEpoch < graceMilliseconds
    }

    static func claimBindings(_ replacement: RefreshToken, hash: TokenHash, now: Date) -> [any SQLBindable] {
        claimAndInsert.bindings { parameter in
            switch parameter {
            case .now: now
            case .presentedHash: hash
            case .replacement(let column): value(of: replacement, column)
            }
        }
    }

    /// The value of `column` in `token`'s row.
    static func value(of token: RefreshToken, _ column: RefreshTokenColumn) -> any SQLBindable {
        switch column {
        case .hash: token.hash
        case .familyId: token.familyId
        case .clientId: token.clientId
        case .userId: token.userId
        case .scope: token.scope
        case .authTime: token.authTime
        case .authMethods: StoredStringList.encode(token.authMethods)
        case .createdAt: token.createdAt
        case .expiresAt: token.expiresAt
        case .rotatedAt: token.rotatedAt
        case .revokedAt: token.revokedAt
        case .dpopJkt: token.dpopJKT
        case .resources: token.resources.isEmpty ? String?.none : StoredStringList.encode(token.resources)
        case .generation: token.generation
        case .generationAt: token.generationAt
        case .priorGenerationAt: token.priorGenerationAt
        }
    }

    /// The user's live grants by client id, read as `read` says.
    static func activeGrants(userId: String, now: Date, read: SQLActiveGrantsRead, _ db: some SQLConnection) throws -> [ActiveGrant] {
        switch read {
        case .walk:
            return try ActiveGrantsWalk.read(userId: userId, now: now, db)
        case .recursiveQuery:
            return try db.query(ActiveGrantsQuery.sql, ActiveGrantsQuery.bindings(userId: userId, now: now)) { row in
                ActiveGrant(clientId: row.text(0), scope: row.text(1), since: row.date(2))
            }
        }
    }

    /// `rotate`'s decision on the presented row, read inside the rotation's transaction (SQLite: the
    /// writer's; PostgreSQL: locked `FOR UPDATE`).
    static func rotateLocked(_ found: RefreshToken, replacement: RefreshToken, now: Date, graceWindow: TimeInterval,
                             backend: String, _ db: some SQLConnection) throws -> RefreshRotation {
        var presented = found
        // A family row rotates by generation (`RefreshFamilySQL`), never as an opaque token.
        guard presented.generation == nil, presented.revokedAt == nil, presented.expiresAt > now else { return .invalid }
        if mayRotate(presented, now: now, graceWindow: graceWindow) {
            guard replacement.familyId == presented.familyId else {
                throw StoreError.invalidArgument(detail: "replacement refresh token is of another family")
            }
            if presented.rotatedAt != nil {
                // A retry inside the grace window never forks a second live branch: it is served
                // only when it names the successor already issued (the caller derives it from the
                // presented token) and that successor is still current; anything else is refused.
                guard let successor = try db.queryOne(find, [replacement.hash], { try decode($0, backend: backend) }),
                      successor.familyId == presented.familyId, successor.revokedAt == nil, successor.rotatedAt == nil,
                      successor.generation == replacement.generation, successor.expiresAt > now else {
                    return .refused
                }
                return .rotated(presented)
            }
            // The first rotation time is kept, so a grace window never slides.
            let rotatedAt = presented.rotatedAt ?? now
            try db.run("UPDATE refresh_tokens SET rotated_at = ? WHERE hash = ?", [rotatedAt, presented.hash])
            try insert(replacement, db)
            presented.rotatedAt = rotatedAt
            return .rotated(presented)
        }
        // A replay of a token rotated before the grace window: the family is compromised.
        try revokeLive(familyId: presented.familyId, now: now, db)
        presented.revokedAt = now
        return .reused(presented)
    }

    static func exchange<Issue>(_ rotation: RefreshRotation, _ issue: Issue) -> RefreshExchange<Issue> {
        switch rotation {
        case .rotated: .rotated(issue)
        case .reused(let token): .reused(token)
        case .invalid: .invalid
        case .refused: .refused
        }
    }

    /// A `findWithUser` row: the token, then its user (NULL when the user is gone).
    static func decodeWithUser(_ row: some SQLRow, backend: String) throws -> (RefreshToken, User?) {
        let token = try decode(row, backend: backend)
        let user = row.columns(from: Int32(RefreshTokenColumn.allCases.count))
        return (token, user.isNull(UserColumn.id) ? nil : UserSQL.decode(user))
    }

    static func insert(_ token: RefreshToken, _ db: some SQLConnection) throws {
        try db.run(insertStatement, RefreshTokenColumn.allCases.map { value(of: token, $0) })
    }

    /// Revokes the family's live tokens (rotated ones included); returns how many.
    @discardableResult
    static func revokeLive(familyId: String, now: Date, _ db: some SQLConnection) throws -> Int {
        try db.run("""
            UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL AND expires_at > ?
            """, [now, familyId, now])
    }

    static func decode(_ row: some SQLRow, backend: String) throws -> RefreshToken {
        typealias C = RefreshTokenColumn
        return RefreshToken(
            hash: row.tokenHash(C.hash), familyId: row.text(C.familyId), clientId: row.text(C.clientId),
            userId: row.text(C.userId), scope: row.text(C.scope), authTime: row.date(C.authTime),
            authMethods: try StoredStringList.decode(row.text(C.authMethods), column: C.authMethods.name, backend: backend),
            createdAt: row.date(C.createdAt), expiresAt: row.date(C.expiresAt), rotatedAt: row.optionalDate(C.rotatedAt),
            revokedAt: row.optionalDate(C.revokedAt), dpopJKT: row.optionalText(C.dpopJkt),
            resources: try row.optionalText(C.resources).map { try StoredStringList.decode($0, column: C.resources.name, backend: backend) } ?? [],
            generation: row.isNull(C.generation) ? nil : row.int64(C.generation), generationAt: row.optionalDate(C.generationAt),
            priorGenerationAt: row.optionalDate(C.priorGenerationAt))
    }
}

private let refreshTokenPurge = SQLBatchPurge(table: "refresh_tokens", key: "hash", condition: "expires_at <= ?")
