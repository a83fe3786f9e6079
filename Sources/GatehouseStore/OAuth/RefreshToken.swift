import Foundation

/// A refresh token, stored by the SHA-256 of its value. Every use rotates it: the presented token is
/// marked rotated and a new one of the same family replaces it.
public struct RefreshToken: Sendable, Equatable {
    public var hash: TokenHash
    /// All tokens descending from one grant share a family; reuse of a rotated token revokes it whole.
    public var familyId: String
    public var clientId: String
    public var userId: String
    public var scope: String
    public var authTime: Date
    public var authMethods: [String]
    public var createdAt: Date
    /// The family's absolute end: rotation never extends it.
    public var expiresAt: Date
    public var rotatedAt: Date?
    public var revokedAt: Date?
    /// The RFC 7638 thumbprint of the DPoP key the family is bound to (RFC 9449 §5): every token of
    /// the family is refused without a proof made with that key. nil: not bound.
    public var dpopJKT: String?
    /// The APIs the family's authorization named (`resource`, RFC 8707): its refreshes may ask for these
    /// only. Empty: any registered API.
    public var resources: [String]
    /// A family row (a token that names its family and generation): the generation currently valid.
    /// nil: an opaque token, one row per token, rotated by marking it and inserting its successor.
    /// A family row is never marked rotated: a rotation moves its generation on, in place.
    public var generation: Int64?
    /// When the current generation was issued (the last rotation); nil before the first.
    public var generationAt: Date?
    /// When the generation before it was issued: how a replay two or more generations old is told from a
    /// retry inside the grace window.
    public var priorGenerationAt: Date?

    public init(hash: TokenHash, familyId: String, clientId: String, userId: String, scope: String, authTime: Date,
                authMethods: [String], createdAt: Date, expiresAt: Date, rotatedAt: Date? = nil, revokedAt: Date? = nil,
                dpopJKT: String? = nil, resources: [String] = [], generation: Int64? = nil, generationAt: Date? = nil,
                priorGenerationAt: Date? = nil) {
        self.hash = hash; self.familyId = familyId; self.clientId = clientId; self.userId = userId; self.scope = scope
        self.authTime = authTime; self.authMethods = authMethods; self.createdAt = createdAt; self.expiresAt = expiresAt
        self.rotatedAt = rotatedAt; self.revokedAt = revokedAt; self.dpopJKT = dpopJKT
        self.resources = resources
        self.generation = generation; self.generationAt = generationAt; self.priorGenerationAt = priorGenerationAt
    }
}

/// What presenting a refresh token did.
public enum RefreshRotation: Sendable, Equatable {
    /// Valid: the presented token (now rotated) and the stored replacement.
    case rotated(RefreshToken)
    /// Already rotated beyond the grace window: the whole family has just been revoked.
    case reused(RefreshToken)
    /// Unknown, expired or revoked.
    case invalid
    /// Presented again inside the grace window but with a replacement other than the successor already
    /// issued (or that successor is no longer current): nothing changed, no second branch was created.
    case refused
}

/// What presenting a refresh token did, when the caller validated it and built its successor in the
/// same round trip (`RefreshTokenStore.exchange`).
public enum RefreshExchange<Issue: Sendable>: Sendable {
    /// No token has this hash: nothing was asked and nothing written.
    case unknown
    /// `prepare` accepted the token and it rotated (or, inside the grace window, its successor was still
    /// current): what `prepare` returned.
    case rotated(Issue)
    /// Already rotated beyond the grace window: the whole family has just been revoked.
    case reused(RefreshToken)
    /// Expired or revoked.
    case invalid
    /// As `RefreshRotation.refused`: a retry inside the grace window whose successor is no longer current.
    case refused
}

/// A client a user has granted long-lived access to (active refresh tokens), for the account page.
public struct ActiveGrant: Sendable, Equatable {
    public var clientId: String
    public var scope: String
    public var since: Date

    public init(clientId: String, scope: String, since: Date) { self.clientId = clientId; self.scope = scope; self.since = since }
}

public protocol RefreshTokenStore: Sendable {
    func create(_ token: RefreshToken) async throws
    func find(hash: TokenHash) async throws -> RefreshToken?
    /// Atomically: if `hash` is valid at `now` (not revoked, not expired) and not rotated, mark it rotated
    /// and insert `replacement` (same family) → `.rotated`. If it was rotated less than `graceWindow` ago,
    /// insert nothing: `.rotated` when `replacement` is the successor already stored and still current
    /// (a retry gets the same successor back), else `.refused` — a family never has two live branches.
    /// If it was rotated longer ago, revoke its family → `.reused`. Otherwise `.invalid`.
    /// Two concurrent rotations of one token: exactly one inserts a successor.
    func rotate(hash: TokenHash, replacement: RefreshToken, now: Date, graceWindow: TimeInterval) async throws -> RefreshRotation
    /// The refresh grant's whole store work in the fewest round trips (one writer hop on SQLite, two
    /// statements on PostgreSQL): finds the token `hash` with its user (nil when the user is gone), calls
    /// `prepare` — which checks what the caller's rules need and returns the replacement to store with
    /// whatever it wants back — and then rotates exactly as ``rotate(hash:replacement:now:graceWindow:)``.
    /// `prepare` runs once per found token, before anything is written; when it throws, nothing is written
    /// and its error is rethrown. It may run on a database thread: it must only compute, never wait.
    ///
    /// `generation` is the one a family token names (nil: an opaque token). For a family row the rules are
    /// the same, counted in generations: the current one rotates by one `UPDATE` of the row (its generation
    /// moves on; `replacement` must be the row at the next generation, nothing is inserted); the one before,
    /// inside the grace window since it was replaced, is served again (nothing written); an older one inside
    /// the window is `.refused`; any older one outside it revokes the family (`.reused`). `prepare` is shown
    /// the stored row, whose `generation` is the current one, not necessarily the presented one.
    func exchange<Issue: Sendable>(hash: TokenHash, generation: Int64?, now: Date, graceWindow: TimeInterval,
                                   prepare: @escaping @Sendable (_ presented: RefreshToken, _ user: User?) throws
                                       -> (replacement: RefreshToken, issue: Issue)) async throws -> RefreshExchange<Issue>
    /// Revokes every token of a family; returns how many were still live.
    func revokeFamily(_ familyId: String, now: Date) async throws -> Int
    /// Revokes every token of a user (optionally only those issued to one client).
    func revokeAll(userId: String, clientId: String?, now: Date) async throws -> Int
    /// The families with a live token for a user and client — or every client when `clientId` is nil —
    /// (to revoke their access tokens too).
    func familyIds(userId: String, clientId: String?, now: Date) async throws -> [String]
    /// The families with a live token for `userId` begun by the sign-in at `signedInAt` (their `auth_time`, to
    /// the millisecond) whose scope lacks `offline_access`: the grants that end with that browser session.
    func sessionFamilyIds(userId: String, signedInAt: Date, now: Date) async throws -> [String]
    /// Whether the family still has a live (unrevoked, unexpired) token.
    func isFamilyActive(_ familyId: String, now: Date) async throws -> Bool
    /// Clients with live refresh tokens for a user, one entry per client (oldest grant), ordered by client id.
    func activeGrants(userId: String, now: Date) async throws -> [ActiveGrant]
    func purgeExpired(now: Date, limit: Int) async throws -> Int
}

extension RefreshTokenStore {
    /// ``exchange(hash:generation:now:graceWindow:prepare:)`` of an opaque token.
    public func exchange<Issue: Sendable>(hash: TokenHash, now: Date, graceWindow: TimeInterval,
                                          prepare: @escaping @Sendable (_ presented: RefreshToken, _ user: User?) throws
                                              -> (replacement: RefreshToken, issue: Issue)) async throws -> RefreshExchange<Issue> {
        try await exchange(hash: hash, generation: nil, now: now, graceWindow: graceWindow, prepare: prepare)
    }
}
