import Foundation
import GatehouseCrypto
import GatehouseStore

/// A session that a request presented and that is still valid, with its user.
public struct ActiveSession: Sendable {
    public let session: Session
    public let user: User
}

/// A newly started session: the secret goes into the cookie, only its hash into the store.
public struct IssuedSession: Sendable {
    public let token: String
    public let session: Session
}

/// Web sessions: server-side rows keyed by the SHA-256 of a 256-bit random token.
public struct SessionService: Sendable {
    let database: any GatehouseDatabase
    public let policy: SessionPolicy
    let clock: IdentityClock
    /// Ending all of a user's sessions ends their OAuth grants too.
    let grants: UserGrantRevocation

    /// `accessTokenLifetime` is the OAuth access-token lifetime (how long revocation markers must last).
    public init(database: any GatehouseDatabase, policy: SessionPolicy = SessionPolicy(), clock: IdentityClock = .system,
                accessTokenLifetime: TimeInterval = 600) {
        self.database = database; self.policy = policy; self.clock = clock
        grants = UserGrantRevocation(database: database, accessTokenLifetime: accessTokenLifetime, clock: clock)
    }

    /// The store key for a session token.
    public static func hash(_ token: String) -> TokenHash { TokenHash(SHA256.hash(token)) }

    /// Starts a new session (a new id at every sign-in: no fixation).
    public func start(userId: String, methods: [String], context: ClientContext) async throws -> IssuedSession {
        let token = SecureRandom.token(byteCount: 32)
        let now = clock.now()
        let session = Session(idHash: Self.hash(token), userId: userId, createdAt: now, lastSeenAt: now,
                              idleExpiresAt: now.addingTimeInterval(policy.idleTimeout),
                              absoluteExpiresAt: now.addingTimeInterval(policy.absoluteTimeout),
                              ip: context.ip, userAgent: context.userAgent, authMethods: methods)
        try await database.sessions.create(session)
        return IssuedSession(token: token, session: session)
    }

    /// The valid session for a cookie value, or nil. Extends the idle expiry at most once per `touchInterval`.
    public func resolve(token: String) async throws -> ActiveSession? {
        try await resolve(token: token, withProviders: false)?.active
    }

    /// ``resolve(token:)`` and the providers linked to the account, still one statement (`/native/session`).
    public func resolveWithProviders(token: String) async throws -> (active: ActiveSession, providers: [String])? {
        try await resolve(token: token, withProviders: true).map { ($0.active, $0.providers) }
    }

    private func resolve(token: String, withProviders: Bool) async throws -> (active: ActiveSession, providers: [String])? {
        // Our tokens are 43 base64url characters; anything else cannot be one, so skip the lookup.
        guard token.utf8.count == 43 else { return nil }
        let now = clock.now()
        let hash = Self.hash(token)
        // Session and user in one statement: every page and the app's launch check come through here.
        let reads = database.hotReads
        guard let found = try await withProviders ? reads.sessionWithUserAndProviders(idHash: hash, now: now)
                                                  : reads.sessionWithUser(idHash: hash, now: now),
              !found.user.disabled else { return nil }
        var session = found.session
        let user = found.user
        if now.timeIntervalSince(session.lastSeenAt) >= policy.touchInterval {
            let idle = min(now.addingTimeInterval(policy.idleTimeout), session.absoluteExpiresAt)
            if try await database.sessions.touch(idHash: hash, lastSeenAt: now, idleExpiresAt: idle) {
                session.lastSeenAt = now
                session.idleExpiresAt = idle
            }
        }
        return (ActiveSession(session: session, user: user), found.providers ?? [])
    }

    /// Ends one session by its token.
    @discardableResult
    public func end(token: String) async throws -> Bool { try await database.sessions.delete(idHash: Self.hash(token)) }

    /// Ends one of a user's sessions by its hash (the account page's "end" button); false if not theirs.
    public func end(idHash: TokenHash, ofUser userId: String) async throws -> Bool {
        let sessions = try await database.sessions.list(userId: userId, now: clock.now())
        guard sessions.contains(where: { $0.idHash == idHash }) else { return false }
        return try await database.sessions.delete(idHash: idHash)
    }

    /// Ends every session of a user, optionally keeping the current one, and every OAuth grant of the
    /// user (``UserGrantRevocation``: refresh families and their access tokens — none is "this session").
    @discardableResult
    public func endAll(userId: String, keeping token: String? = nil) async throws -> Int {
        let ended = try await database.sessions.deleteAll(userId: userId, keeping: token.map(Self.hash))
        try await grants.revokeAll(userId: userId)
        return ended
    }

    /// A user's live sessions, most recently seen first.
    public func list(userId: String) async throws -> [Session] {
        try await database.sessions.list(userId: userId, now: clock.now())
    }
}
