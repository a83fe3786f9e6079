import Foundation

/// The reads behind the most frequent requests, each in one round trip to the database.
///
/// Every page and the app's "who am I" resolve a session cookie; every Bearer call checks revocation and
/// loads the user. Through the per-aggregate stores those are two statements, and each statement is a hop
/// to a connection's queue and back plus a read transaction; here each is one statement (`GatehouseSQLStore`'s
/// `HotReadQueries`, for both backends); the default implementation composes the ordinary stores, so
/// a database that does not provide its own still answers the same.
public protocol HotReadStore: Sendable {
    /// The session `idHash` if valid at `now` (`SessionStore.findValid`) together with its user; nil when
    /// either is missing. A disabled user is returned: the caller decides.
    func sessionWithUser(idHash: TokenHash, now: Date) async throws -> SessionWithUser?
    /// The same, with `providers` set: the distinct providers linked to the user, sorted (the app's launch check).
    func sessionWithUserAndProviders(idHash: TokenHash, now: Date) async throws -> SessionWithUser?
    /// Whether any of `revocationKeys` is on the revoked access-token list, and the user `userId` (nil when
    /// there is none) with its product user id. At most two keys (the token's `jti` and its family marker).
    func bearerSubject(userId: String, revocationKeys: [String]) async throws -> BearerSubject
    /// What the account page lists for `userId`, read in one trip to one connection (four statements; on
    /// SQLite in one read transaction, on PostgreSQL autocommitted like every read there): the live
    /// sessions (`SessionStore.list`), the linked identities (`ExternalIdentityStore.list`), the consents
    /// (`ConsentStore.list`) and the live grants (`RefreshTokenStore.activeGrants`), each in that store's order.
    func accountOverview(userId: String, now: Date) async throws -> AccountOverview
    /// `sessionWithUser` with `overview` set to the user's ``accountOverview(userId:now:)``, in the same
    /// trip: the account page's whole read.
    func sessionWithAccountOverview(idHash: TokenHash, now: Date) async throws -> SessionWithUser?
}

/// The account page's lists, from one trip to the database (see ``HotReadStore/accountOverview(userId:now:)``).
public struct AccountOverview: Sendable, Equatable {
    public let sessions: [Session]
    public let identities: [ExternalIdentity]
    public let consents: [Consent]
    public let grants: [ActiveGrant]

    public init(sessions: [Session], identities: [ExternalIdentity], consents: [Consent], grants: [ActiveGrant]) {
        self.sessions = sessions; self.identities = identities; self.consents = consents; self.grants = grants
    }

    /// The overview with `session` in place of the listed session of the same id (after an idle-expiry
    /// touch moved its last-seen time), in `SessionStore.list` order again: last seen first, then id hash.
    public func replacing(_ session: Session) -> AccountOverview {
        guard let index = sessions.firstIndex(where: { $0.idHash == session.idHash }) else { return self }
        var updated = sessions
        updated[index] = session
        updated.sort { $0.lastSeenAt != $1.lastSeenAt ? $0.lastSeenAt > $1.lastSeenAt
                                                       : $0.idHash.bytes.lexicographicallyPrecedes($1.idHash.bytes) }
        return AccountOverview(sessions: updated, identities: identities, consents: consents, grants: grants)
    }
}

/// A valid session and its user.
public struct SessionWithUser: Sendable, Equatable {
    public let session: Session
    public let user: User
    /// The user's linked providers, distinct and sorted; nil unless asked for.
    public let providers: [String]?
    /// What the account page lists for the user; nil unless asked for.
    public let overview: AccountOverview?

    public init(session: Session, user: User, providers: [String]? = nil, overview: AccountOverview? = nil) {
        self.session = session; self.user = user; self.providers = providers; self.overview = overview
    }
}

/// What a Bearer call needs from the store about its token's subject.
public struct BearerSubject: Sendable, Equatable {
    /// The token (or its family) is on the revocation list.
    public let revoked: Bool
    public let user: User?
    /// The user's id in the product's own database (`external_id`, set by an import), if any.
    public let productUserId: String?
    /// The user's access tokens issued before this are void (`UserStore.voidTokens`).
    public let tokensNotBefore: Date?

    public init(revoked: Bool, user: User?, productUserId: String? = nil, tokensNotBefore: Date? = nil) {
        self.revoked = revoked; self.user = user; self.productUserId = productUserId; self.tokensNotBefore = tokensNotBefore
    }
}

/// The default: the same answers from the per-aggregate stores, in two statements.
public struct ComposedHotReads: HotReadStore {
    let database: any GatehouseDatabase

    public init(database: any GatehouseDatabase) { self.database = database }

    public func sessionWithUser(idHash: TokenHash, now: Date) async throws -> SessionWithUser? {
        guard let session = try await database.sessions.findValid(idHash: idHash, now: now),
              let user = try await database.users.find(id: session.userId) else { return nil }
        return SessionWithUser(session: session, user: user)
    }

    public func sessionWithUserAndProviders(idHash: TokenHash, now: Date) async throws -> SessionWithUser? {
        guard let found = try await sessionWithUser(idHash: idHash, now: now) else { return nil }
        let providers = try await database.externalIdentities.list(userId: found.user.id).map(\.provider)
        return SessionWithUser(session: found.session, user: found.user, providers: Array(Set(providers)).sorted())
    }

    public func bearerSubject(userId: String, revocationKeys: [String]) async throws -> BearerSubject {
        let revoked = try await database.revokedAccessTokens.isAnyRevoked(revocationKeys)
        guard let user = try await database.users.find(id: userId) else { return BearerSubject(revoked: revoked, user: nil) }
        return BearerSubject(revoked: revoked, user: user, productUserId: try await database.userImports.productUserId(userId: userId),
                             tokensNotBefore: try await database.users.tokensNotBefore(userId: userId))
    }

    public func accountOverview(userId: String, now: Date) async throws -> AccountOverview {
        AccountOverview(sessions: try await database.sessions.list(userId: userId, now: now),
                        identities: try await database.externalIdentities.list(userId: userId),
                        consents: try await database.consents.list(userId: userId),
                        grants: try await database.refreshTokens.activeGrants(userId: userId, now: now))
    }

    public func sessionWithAccountOverview(idHash: TokenHash, now: Date) async throws -> SessionWithUser? {
        guard let found = try await sessionWithUser(idHash: idHash, now: now) else { return nil }
        return SessionWithUser(session: found.session, user: found.user,
                               overview: try await accountOverview(userId: found.user.id, now: now))
    }
}
