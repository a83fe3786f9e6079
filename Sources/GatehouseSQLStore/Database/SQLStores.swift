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

    public init<Database: SQLDatabase>(database: Database) {
        signingKeys = SQLSigningKeyStore(database: database)
        oneTimeTokens = SQLOneTimeTokenStore(database: database)
        rateLimits = SQLRateLimitStore(database: database)
        flowStates = SQLFlowStateStore(database: database)
        revokedAccessTokens = SQLRevokedAccessTokenStore(database: database)
        consents = SQLConsentStore(database: database)
        providerEvents = SQLProviderEventStore(database: database)
        leases = SQLLeaseStore(database: database)
    }
}
