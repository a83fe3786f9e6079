import Foundation
import GatehouseSQLStore
import GatehouseStore

/// The PostgreSQL backend of `GatehouseDatabase`, for when one machine is not enough.
///
/// A pool of libpq connections (`pool_size`, default 4), each used by one operation at a time
/// on its own dispatch queue, never on the cooperative pool. Statements are prepared once per
/// connection; single-use consumption and rate-limit hits are single atomic statements, so they
/// hold across any number of processes. A connection lost to a server restart or
/// `pg_terminate_backend` is replaced: the operation that hit it fails with
/// `StoreError.unavailable`, and later ones succeed once the server is back.
public final class PostgresDatabase: GatehouseDatabase {
    /// Where this database lives and how the pool is sized.
    public let configuration: PostgresConfiguration
    let pool: PostgresConnectionPool

    public let signingKeys: any SigningKeyStore
    public let users: any UserStore
    public let sessions: any SessionStore
    public let oneTimeTokens: any OneTimeTokenStore
    public let rateLimits: any RateLimitStore
    public let auditLog: any AuditLogStore
    public let flowStates: any FlowStateStore
    public let oauthClients: any OAuthClientStore
    public let authorizationCodes: any AuthorizationCodeStore
    public let refreshTokens: any RefreshTokenStore
    public let revokedAccessTokens: any RevokedAccessTokenStore
    public let consents: any ConsentStore
    public let externalIdentities: any ExternalIdentityStore
    public let pendingRevocations: any PendingRevocationStore
    public let providerEvents: any ProviderEventStore
    public let leases: any LeaseStore
    public let userImports: any UserImportStore
    public let userSearch: any UserSearchStore

    private init(configuration: PostgresConfiguration, pool: PostgresConnectionPool) {
        self.configuration = configuration
        self.pool = pool
        let stores = SQLStores(database: pool)
        signingKeys = stores.signingKeys
        users = stores.users
        sessions = stores.sessions
        oneTimeTokens = stores.oneTimeTokens
        rateLimits = stores.rateLimits
        auditLog = stores.auditLog
        flowStates = stores.flowStates
        oauthClients = stores.oauthClients
        authorizationCodes = stores.authorizationCodes
        refreshTokens = PostgresRefreshTokenStore(pool: pool)
        revokedAccessTokens = stores.revokedAccessTokens
        consents = stores.consents
        userImports = stores.userImports
        userSearch = stores.userSearch
        externalIdentities = stores.externalIdentities
        pendingRevocations = stores.pendingRevocations
        providerEvents = stores.providerEvents
        leases = stores.leases
    }

    /// Opens a pool for a `postgres://` or `postgresql://` URL (see `PostgresConfiguration`)
    /// and makes one connection to check it. Does not migrate: call `migrate()` (or
    /// `requireCurrentSchema()`). Throws `.invalidConfiguration` for a bad URL and
    /// `.unavailable` when the server cannot be reached.
    public static func open(url: String) async throws -> PostgresDatabase {
        try await open(configuration: PostgresConfiguration(url: url))
    }

    /// Opens a pool for `configuration` and makes one connection to check it.
    public static func open(configuration: PostgresConfiguration) async throws -> PostgresDatabase {
        let pool = PostgresConnectionPool(configuration: configuration)
        do {
            try await pool.withConnection { _ in }
        } catch {
            await pool.close()
            throw error
        }
        return PostgresDatabase(configuration: configuration, pool: pool)
    }

    public func migrate() async throws -> MigrationReport {
        try await pool.withConnection { try PostgresMigrator.migrate($0) }
    }

    public func schemaVersion() async throws -> Int {
        try await pool.withConnection { try PostgresMigrator.currentVersion($0) }
    }

    public func ping() async throws {
        let answer = try await pool.withConnection { try $0.queryOne("SELECT 1", []) { $0.int(0) } }
        guard answer == 1 else { throw StoreError.unavailable(detail: "postgres ping returned \(String(describing: answer))") }
    }

    public func close() async {
        await pool.close()
    }

    /// The latest schema version this build's PostgreSQL migrations reach.
    public static var supportedSchemaVersion: Int { PostgresMigrator.latestVersion }
}
