import GatehouseStore

/// Every store of `GatehouseDatabase`, written once in SQL and built over one backend's pool.
///
/// A backend's database type builds this once and hands out its stores; what stays per backend
/// is the connection, the pool, parameter binding, error mapping and the migrations.
public struct SQLStores: Sendable {
    public let signingKeys: any SigningKeyStore
    public let oneTimeTokens: any OneTimeTokenStore
    public let rateLimits: any RateLimitStore
    public let flowStates: any FlowStateStore
    public let revokedAccessTokens: any RevokedAccessTokenStore
    public let consents: any ConsentStore
    public let providerEvents: any ProviderEventStore
    public let leases: any LeaseStore
    public let users: any UserStore
    public let sessions: any SessionStore
    public let auditLog: any AuditLogStore
    public let oauthClients: any OAuthClientStore
    public let authorizationCodes: any AuthorizationCodeStore
    public let externalIdentities: any ExternalIdentityStore
    public let pendingRevocations: any PendingRevocationStore
    public let userImports: any UserImportStore
    public let userSearch: any UserSearchStore

    public init<Database: SQLDatabase>(database: Database) {
        signingKeys = SQLSigningKeyStore(database: database)
        oneTimeTokens = SQLOneTimeTokenStore(database: database)
        rateLimits = SQLRateLimitStore(database: database)
        flowStates = SQLFlowStateStore(database: database)
        revokedAccessTokens = SQLRevokedAccessTokenStore(database: database)
        consents = SQLConsentStore(database: database)
        providerEvents = SQLProviderEventStore(database: database)
        leases = SQLLeaseStore(database: database)
        users = SQLUserStore(database: database)
        sessions = SQLSessionStore(database: database)
        auditLog = SQLAuditLogStore(database: database)
        oauthClients = SQLOAuthClientStore(database: database)
        authorizationCodes = SQLAuthorizationCodeStore(database: database)
        externalIdentities = SQLExternalIdentityStore(database: database)
        pendingRevocations = SQLPendingRevocationStore(database: database)
        userImports = SQLUserImportStore(database: database)
        userSearch = SQLUserImportStore(database: database)
    }
}
