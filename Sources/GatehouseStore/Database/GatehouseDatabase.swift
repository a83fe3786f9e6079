import Foundation

/// An open Gatehouse database: schema management, health, and one store per aggregate.
///
/// Implemented once per backend (SQLite today, PostgreSQL later); both must pass the same
/// conformance suite. Every method is `async` because backends block on I/O, which must not
/// happen on Swift's cooperative thread pool — a backend hops to its own threads and resumes
/// the caller when done.
///
/// Conventions every backend keeps: times are stored at millisecond precision; record ids are
/// strings chosen by the caller (`RecordID.random()`), except audit sequence numbers, which the
/// store assigns; secrets arrive only as `TokenHash`; single-use consumption is one atomic
/// conditional statement; errors are `StoreError`.
public protocol GatehouseDatabase: Sendable {
    /// Applies every pending migration, each in its own transaction, and reports what it did.
    ///
    /// Idempotent: a second call applies nothing. Safe to run from another process while a
    /// server uses the database. Throws `StoreError.schemaTooNew` when the database was
    /// migrated by a newer build (and changes nothing).
    func migrate() async throws -> MigrationReport

    /// The schema version the database is at now (0 for an empty database).
    func schemaVersion() async throws -> Int

    /// A cheap round trip for readiness probes; throws `StoreError.unavailable` when the
    /// database does not answer.
    func ping() async throws

    /// Releases connections. Later calls throw `StoreError.unavailable`. Idempotent.
    func close() async

    /// JWS signing keys (rotation, JWKS).
    var signingKeys: any SigningKeyStore { get }
    /// Accounts.
    var users: any UserStore { get }
    /// Cookie sessions, keyed by hashed session id.
    var sessions: any SessionStore { get }
    /// Single-use tokens (password reset, email verification, hand-off).
    var oneTimeTokens: any OneTimeTokenStore { get }
    /// Fixed-window counters shared by all processes.
    var rateLimits: any RateLimitStore { get }
    /// Append-only security log.
    var auditLog: any AuditLogStore { get }
    /// Upstream OAuth flow state, keyed by hashed `state`.
    var flowStates: any FlowStateStore { get }
    /// Applications registered to use Gatehouse as their authorization server.
    var oauthClients: any OAuthClientStore { get }
    /// Single-use authorization codes, keyed by hash.
    var authorizationCodes: any AuthorizationCodeStore { get }
    /// Rotating refresh tokens and their families, keyed by hash.
    var refreshTokens: any RefreshTokenStore { get }
    /// `jti`s of access tokens revoked before they expire.
    var revokedAccessTokens: any RevokedAccessTokenStore { get }
    /// Remembered user consents per client.
    var consents: any ConsentStore { get }
    /// Upstream sign-in identities linked to users.
    var externalIdentities: any ExternalIdentityStore { get }
    /// Upstream provider tokens still to be revoked (they outlive deleted accounts).
    var pendingRevocations: any PendingRevocationStore { get }
    /// Upstream events already processed (Apple notifications: replay and reordering defence).
    var providerEvents: any ProviderEventStore { get }
    /// Time-limited leases deciding which process runs shared background work.
    var leases: any LeaseStore { get }
    /// Bulk import of accounts from another system (`gatehouse user import`).
    var userImports: any UserImportStore { get }
    /// Account search for administrators (the admin API).
    var userSearch: any UserSearchStore { get }
    /// Webhooks and back-channel logout tokens still to be delivered (the durable outbound queue).
    var outboundDeliveries: any OutboundDeliveryStore { get }
    /// One-round-trip reads for the hottest requests (session cookie, Bearer token).
    var hotReads: any HotReadStore { get }
    /// Registered WebAuthn credentials (passkeys, security keys) and user handles.
    var webAuthnCredentials: any WebAuthnCredentialStore { get }
    /// Outstanding WebAuthn challenges, keyed by hash, single use.
    var webAuthnChallenges: any WebAuthnChallengeStore { get }
    /// TOTP authenticators and recovery codes (second factors).
    var secondFactors: any SecondFactorStore { get }
}

extension GatehouseDatabase {
    /// The per-aggregate stores composed; backends answer each in one statement instead.
    public var hotReads: any HotReadStore { ComposedHotReads(database: self) }

    /// Throws unless the database is at exactly the schema this build was written for; call at
    /// server start so a server never runs against an unmigrated or newer database.
    public func requireCurrentSchema() async throws {
        let found = try await schemaVersion()
        let supported = StoreSchema.latestVersion
        if found > supported { throw StoreError.schemaTooNew(found: found, supported: supported) }
        if found < supported { throw StoreError.schemaOutdated(found: found, required: supported) }
    }
}
