import GatehouseStore

/// Every store of `GatehouseDatabase`, written once in SQL and built over one backend's pool.
///
/// A backend's database type builds this once (`SQLStoreDatabase`); what stays per backend is
/// the connection, the pool, parameter binding, error mapping and the migrations.
///
/// A class, not a struct: every store access (`database.users`) reads through `stores`, and
/// copying a struct of two dozen existentials and closures would retain each of them per access.
public final class SQLStores: Sendable {
    let signingKeys: any SigningKeyStore
    let users: any UserStore
    let sessions: any SessionStore
    let oneTimeTokens: any OneTimeTokenStore
    let rateLimits: any RateLimitStore
    let auditLog: any AuditLogStore
    let flowStates: any FlowStateStore
    let oauthClients: any OAuthClientStore
    let authorizationCodes: any AuthorizationCodeStore
    let refreshTokens: any RefreshTokenStore
    let revokedAccessTokens: any RevokedAccessTokenStore
    let consents: any ConsentStore
    let externalIdentities: any ExternalIdentityStore
    let pendingRevocations: any PendingRevocationStore
    let providerEvents: any ProviderEventStore
    let leases: any LeaseStore
    let userImports: any UserImportStore
    let userSearch: any UserSearchStore
    let outboundDeliveries: any OutboundDeliveryStore
    let hotReads: any HotReadStore
    let webAuthnCredentials: any WebAuthnCredentialStore
    let webAuthnChallenges: any WebAuthnChallengeStore
    let secondFactors: any SecondFactorStore
    /// `SELECT 1` on a read connection, for readiness probes.
    let ping: @Sendable () async throws -> Void
    // Schema and lifetime, bound to the pool and the backend's migrations.
    let migrate: @Sendable () async throws -> MigrationReport
    let migrateUsing: @Sendable (SQLMigrator) async throws -> MigrationReport
    let runOnline: @Sendable (SQLOnlineStep) async throws -> SQLOnlineStepReport
    let schemaVersion: @Sendable () async throws -> Int
    let close: @Sendable () async -> Void

    public init<Database: SQLDatabase>(database: Database, migrator: SQLMigrator)
        where Database.Connection: SQLMigratingConnection {
        signingKeys = SQLSigningKeyStore(database: database)
        users = SQLUserStore(database: database)
        sessions = SQLSessionStore(database: database)
        oneTimeTokens = SQLOneTimeTokenStore(database: database)
        rateLimits = SQLRateLimitStore(database: database)
        auditLog = SQLAuditLogStore(database: database)
        flowStates = SQLFlowStateStore(database: database)
        oauthClients = SQLOAuthClientStore(database: database)
        authorizationCodes = SQLAuthorizationCodeStore(database: database)
        refreshTokens = SQLRefreshTokenStore(database: database)
        revokedAccessTokens = SQLRevokedAccessTokenStore(database: database)
        consents = SQLConsentStore(database: database)
        externalIdentities = SQLExternalIdentityStore(database: database)
        pendingRevocations = SQLPendingRevocationStore(database: database)
        providerEvents = SQLProviderEventStore(database: database)
        leases = SQLLeaseStore(database: database)
        userImports = SQLUserImportStore(database: database)
        userSearch = SQLUserSearchStore(database: database)
        outboundDeliveries = SQLOutboundDeliveryStore(database: database)
        hotReads = SQLHotReads(database: database)
        webAuthnCredentials = SQLWebAuthnCredentialStore(database: database)
        webAuthnChallenges = SQLWebAuthnChallengeStore(database: database)
        secondFactors = SQLSecondFactorStore(database: database)
        ping = {
            let answer = try await database.read { try $0.queryOne("SELECT 1", []) { $0.int(0) } }
            guard answer == 1 else {
                throw StoreError.unavailable(detail: "\(database.dialect.name) ping returned \(String(describing: answer))")
            }
        }
        migrate = { try await database.withoutTransaction { try migrator.migrate($0) } }
        migrateUsing = { other in try await database.withoutTransaction { try other.migrate($0) } }
        runOnline = { step in try await database.withoutTransaction { try SQLMigrator.runOnline(step, $0) } }
        schemaVersion = { try await database.read { try migrator.currentVersion($0) } }
        close = { await database.close() }
    }
}

/// A `GatehouseDatabase` whose stores are the shared SQL ones: a backend declares `stores` and
/// gets every store property, migration, ping and close from here.
public protocol SQLStoreDatabase: GatehouseDatabase {
    var stores: SQLStores { get }
}

extension SQLStoreDatabase {
    public func ping() async throws { try await stores.ping() }
    public func migrate() async throws -> MigrationReport { try await stores.migrate() }
    /// Applies another list of migrations on this database's connection: for tests of the migrator itself.
    public func migrate(using migrator: SQLMigrator) async throws -> MigrationReport { try await stores.migrateUsing(migrator) }
    public func schemaVersion() async throws -> Int { try await stores.schemaVersion() }
    /// Runs one online migration step on this database, as the migrator would, and reports what it held:
    /// for replaying a shipped migration's work on a large database (`gatehouse bench online-step`).
    public func runOnline(_ step: SQLOnlineStep) async throws -> SQLOnlineStepReport { try await stores.runOnline(step) }
    public func close() async { await stores.close() }

    public var signingKeys: any SigningKeyStore { stores.signingKeys }
    public var users: any UserStore { stores.users }
    public var sessions: any SessionStore { stores.sessions }
    public var oneTimeTokens: any OneTimeTokenStore { stores.oneTimeTokens }
    public var rateLimits: any RateLimitStore { stores.rateLimits }
    public var auditLog: any AuditLogStore { stores.auditLog }
    public var flowStates: any FlowStateStore { stores.flowStates }
    public var oauthClients: any OAuthClientStore { stores.oauthClients }
    public var authorizationCodes: any AuthorizationCodeStore { stores.authorizationCodes }
    public var refreshTokens: any RefreshTokenStore { stores.refreshTokens }
    public var revokedAccessTokens: any RevokedAccessTokenStore { stores.revokedAccessTokens }
    public var consents: any ConsentStore { stores.consents }
    public var externalIdentities: any ExternalIdentityStore { stores.externalIdentities }
    public var pendingRevocations: any PendingRevocationStore { stores.pendingRevocations }
    public var providerEvents: any ProviderEventStore { stores.providerEvents }
    public var leases: any LeaseStore { stores.leases }
    public var userImports: any UserImportStore { stores.userImports }
    public var userSearch: any UserSearchStore { stores.userSearch }
    public var outboundDeliveries: any OutboundDeliveryStore { stores.outboundDeliveries }
    /// Each hot read in one statement, not the composed default of `GatehouseDatabase`.
    public var hotReads: any HotReadStore { stores.hotReads }
    public var webAuthnCredentials: any WebAuthnCredentialStore { stores.webAuthnCredentials }
    public var webAuthnChallenges: any WebAuthnChallengeStore { stores.webAuthnChallenges }
    public var secondFactors: any SecondFactorStore { stores.secondFactors }
}
