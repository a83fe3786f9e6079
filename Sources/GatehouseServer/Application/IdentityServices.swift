import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// The identity services wired together from configuration (one instance per process).
public struct IdentityServices: Sendable {
    public let database: any GatehouseDatabase
    public let hasher: PasswordHasher
    public let audit: AuditTrail
    public let sessions: SessionService
    public let accounts: AccountService
    public private(set) var links: EmailLinks
    public let clock: IdentityClock
    public let keys: SigningKeyRing
    public let tokens: TokenService
    public let authorization: AuthorizationService
    public let handoffs: HandoffTokens
    /// Pending "Continue to <app>?" hand-offs and link tickets (F2).
    public let handoffConfirmations: HandoffConfirmations
    /// Bulk account import (`gatehouse user import`).
    public let importer: UserImporter
    /// What operators do to accounts (CLI and admin API).
    public let administration: AccountAdministration
    let webSessions: WebSessionReader

    /// The security log every service writes to, with its failures counted and logged.
    static func makeAudit(database: any GatehouseDatabase, clock: IdentityClock, log: ServerLog, databaseErrors: Counter) -> AuditTrail {
        AuditTrail(store: database.auditLog, clock: clock, onFailure: { error in
            databaseErrors.increment(["audit"])
            log.error("audit write failed", [("error", String(describing: error))])
        }, observe: SecurityEventLog(log: log).observe)
    }

    /// Built once, completely: `audit` and `clients` are made first (``makeAudit``) because the token-exchange
    /// grant's verifier (`externalIDTokens`, the native sign-ins) needs them before the token service exists.
    init(configuration: GatehouseConfiguration, database: any GatehouseDatabase, secrets: ServerSecrets,
         mailer: any Mailer, clock: IdentityClock, log: ServerLog, audit: AuditTrail, clients: ClientRegistry,
         externalIDTokens: (any ExternalIDTokenResolver)?) {
        self.database = database
        self.clock = clock
        // The KEK derives from the master secret with a fixed label, so it cannot fail.
        var keyPolicy = SigningKeyRing.Policy(refreshInterval: configuration.signingKeyRefreshInterval)
        if let generator = configuration.signingKeyGenerator { keyPolicy.generate = generator }
        keys = SigningKeyRing(store: database.signingKeys, kek: try! secrets.keyEncryptionKey, clock: clock, policy: keyPolicy)
        hasher = PasswordHasher(parameters: configuration.passwordHashing, bcryptPepper: configuration.bcryptPepper)
        self.audit = audit
        sessions = SessionService(database: database, policy: configuration.sessions, clock: clock,
                                  accessTokenLifetime: configuration.oauth.accessTokenLifetime)
        accounts = AccountService(database: database, hasher: hasher, passwordPolicy: configuration.passwordPolicy,
                                  limits: configuration.rateLimits, audit: audit, sessions: sessions, clock: clock)
        let publicURL = configuration.publicURL.absoluteString.hasSuffix("/")
            ? String(configuration.publicURL.absoluteString.dropLast()) : configuration.publicURL.absoluteString
        links = EmailLinks(database: database, mailer: mailer, accounts: accounts, limits: configuration.rateLimits,
                           audit: audit, clock: clock, absoluteURL: { publicURL + $0 })
        // The first proof of email ownership removes what an unproven account collected (issue #14 item 2).
        links.ownershipClaim = EmailOwnershipClaim(
            database: database, sessions: sessions,
            revocation: TokenRevocation(refreshTokens: database.refreshTokens, revoked: database.revokedAccessTokens,
                                        settings: configuration.oauth, clock: clock),
            audit: audit, clock: clock)
        tokens = TokenService(database: database, settings: configuration.oauth, keys: keys, accounts: accounts, audit: audit,
                              clock: clock, successorKey: secrets.derivedKey("refresh-successor"), registry: clients,
                              externalIDTokens: externalIDTokens)
        handoffs = HandoffTokens(store: database.oneTimeTokens, clock: clock)
        handoffConfirmations = HandoffConfirmations(store: database.oneTimeTokens, clock: clock)
        administration = AccountAdministration(database: database, accounts: accounts, sessions: sessions, audit: audit, clock: clock)
        importer = UserImporter(database: database, audit: audit, clock: clock, subjectSource: configuration.subjectSource)
        authorization = AuthorizationService(database: database, settings: configuration.oauth, clock: clock)
        webSessions = WebSessionReader(sessions: sessions,
                                       cookies: CookiePolicy(publicURL: configuration.publicURL,
                                                             sessionMaxAge: configuration.sessions.absoluteTimeout),
                                       csrf: CSRFTokens(key: secrets.derivedKey("csrf")))
    }
}
