import Foundation
import GatehouseCrypto
import GatehouseStore

/// A session that a request presented and that is still valid, with its user.
public struct ActiveSession: Sendable {
    public let session: Session
    public let user: User

    public init(session: Session, user: User) { self.session = session; self.user = user }
}

/// A newly started session: the secret goes into the cookie, only its hash into the store.
public struct IssuedSession: Sendable {
    public let token: String
    public let session: Session
}

/// Web sessions: server-side rows keyed by the SHA-256 of a 256-bit random token.
public struct SessionService: Sendable {
    let store: any SessionStore
    /// The session with its user (and the account page's overview) in one statement.
    let hotReads: any HotReadStore
    public let policy: SessionPolicy
    let clock: IdentityClock
    /// Ending all of a user's sessions ends their OAuth grants too.
    let grants: UserGrantRevocation
    /// Told of every session that ends (back-channel logout tokens, `session.ended` webhooks); nil: nobody.
    let events: OutboundEvents?

    /// - Parameter grants: the user's OAuth grants, ended with all of their sessions.
    public init(store: any SessionStore, hotReads: any HotReadStore, grants: UserGrantRevocation, policy: SessionPolicy = SessionPolicy(),
                clock: IdentityClock = .system, events: OutboundEvents? = nil) {
        self.store = store; self.hotReads = hotReads; self.grants = grants; self.policy = policy; self.clock = clock; self.events = events
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
        try await store.create(session)
        return IssuedSession(token: token, session: session)
    }

    /// The valid session for a cookie value, or nil. Extends the idle expiry at most once per `touchInterval`.
    public func resolve(token: String) async throws -> ActiveSession? {
        try await resolve(token: token, with: .nothing)?.active
    }

    /// ``resolve(token:)`` and the providers linked to the account, still one statement (`/native/session`).
    public func resolveWithProviders(token: String) async throws -> (active: ActiveSession, providers: [String])? {
        try await resolve(token: token, with: .providers).map { ($0.active, $0.found.providers ?? []) }
    }

    /// ``resolve(token:)`` and what the account page lists (``AccountOverview``), in one trip to the
    /// database. The overview shows the session as this call left it (a touch included).
    /// What the account page lists for `userId` (sessions, identities, consents, grants), in one trip.
    public func accountOverview(userId: String) async throws -> AccountOverview {
        try await hotReads.accountOverview(userId: userId, now: clock.now())
    }

    public func resolveWithOverview(token: String) async throws -> (active: ActiveSession, overview: AccountOverview)? {
        guard let resolved = try await resolve(token: token, with: .overview), let overview = resolved.found.overview else { return nil }
        let session = resolved.active.session
        return (resolved.active, session == resolved.found.session ? overview : overview.replacing(session))
    }

    private enum Extra { case nothing, providers, overview }

    private func resolve(token: String, with extra: Extra) async throws -> (active: ActiveSession, found: SessionWithUser)? {
        // Our tokens are 43 base64url characters; anything else cannot be one, so skip the lookup.
        guard token.utf8.count == 43 else { return nil }
        let now = clock.now()
        let hash = Self.hash(token)
        // Session and user in one statement: every page and the app's launch check come through here.
        let reads = hotReads
        let found: SessionWithUser?
        switch extra {
        case .nothing: found = try await reads.sessionWithUser(idHash: hash, now: now)
        case .providers: found = try await reads.sessionWithUserAndProviders(idHash: hash, now: now)
        case .overview: found = try await reads.sessionWithAccountOverview(idHash: hash, now: now)
        }
        guard let found, !found.user.disabled else { return nil }
        var session = found.session
        if now.timeIntervalSince(session.lastSeenAt) >= policy.touchInterval {
            let idle = min(now.addingTimeInterval(policy.idleTimeout), session.absoluteExpiresAt)
            if try await store.touch(idHash: hash, lastSeenAt: now, idleExpiresAt: idle) {
                session.lastSeenAt = now
                session.idleExpiresAt = idle
            }
        }
        return (ActiveSession(session: session, user: found.user), found)
    }

    /// Ends one session by its token.
    @discardableResult
    public func end(token: String, reason: String = "sign_out") async throws -> Bool {
        let hash = Self.hash(token)
        // Read first: the grants that end with it and the logout token need the session's user and sign-in time.
        let session = try await store.findValid(idHash: hash, now: clock.now())
        let ended = try await store.delete(idHash: hash)
        if ended, let session { try await endedGrants(of: session); await events?.sessionsEnded([session], reason: reason) }
        return ended
    }

    /// The grants a session took with it: its code-flow families without `offline_access`.
    private func endedGrants(of session: Session) async throws {
        try await grants.revokeSessionGrants(userId: session.userId, signedInAt: session.createdAt)
    }

    /// Ends one of a user's sessions by its hash (the account page's "end" button); false if not theirs.
    public func end(idHash: TokenHash, ofUser userId: String, reason: String = "ended") async throws -> Bool {
        let sessions = try await store.list(userId: userId, now: clock.now())
        guard let session = sessions.first(where: { $0.idHash == idHash }) else { return false }
        let ended = try await store.delete(idHash: idHash)
        if ended { try await endedGrants(of: session); await events?.sessionsEnded([session], reason: reason) }
        return ended
    }

    /// Tells RPs and webhooks that these sessions end (for deletions, where the store removes them with the account).
    public func announceEnded(_ sessions: [Session], reason: String) async {
        await events?.sessionsEnded(sessions, reason: reason)
    }

    /// Tells the product of an account about to be deleted (every session, and the user as a whole), while
    /// the sessions and consents that decide who hears of it still exist.
    public func announceDeletion(userId: String) async throws {
        guard let events else { return }
        await events.accountDeleting(userId: userId, sessions: try await list(userId: userId))
    }

    /// Ends every session of a user, optionally keeping the current one, and every OAuth grant of the
    /// user (``UserGrantRevocation``: refresh families and their access tokens — none is "this session").
    @discardableResult
    public func endAll(userId: String, keeping token: String? = nil, reason: String = "ended_all") async throws -> Int {
        let kept = token.map(Self.hash)
        let live = events == nil ? [] : try await store.list(userId: userId, now: clock.now()).filter { $0.idHash != kept }
        let ended = try await store.deleteAll(userId: userId, keeping: kept)
        try await grants.revokeAll(userId: userId)
        await events?.sessionsEnded(live, reason: reason)
        return ended
    }

    /// A user's live sessions, most recently seen first.
    public func list(userId: String) async throws -> [Session] {
        try await store.list(userId: userId, now: clock.now())
    }
}
