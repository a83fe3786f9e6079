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
    public let links: EmailLinks
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
    /// Webhooks and back-channel logout tokens, enqueued for the maintenance job runner.
    public let events: OutboundEvents
    /// Authenticator apps and recovery codes, and the sign-ins waiting for their second step.
    public let secondFactors: SecondFactors
    public let secondSteps: SecondStepChallenges
    let webSessions: WebSessionReader

    /// Webhooks and back-channel logout tokens to enqueue; made before the audit trail, which feeds it.
    static func makeEvents(configuration: GatehouseConfiguration, database: any GatehouseDatabase, secrets: ServerSecrets,
                           clock: IdentityClock, log: ServerLog, databaseErrors: Counter) -> OutboundEvents {
        OutboundEvents(deliveries: database.outboundDeliveries, users: database.users, productUserIds: database.userImports,
                       clients: database.oauthClients, consents: database.consents, webhooks: configuration.webhooks,
                       backchannelLogout: configuration.clients.contains { BackchannelLogoutRegistration(metadata: $0.registration.metadata) != nil },
                       sids: SessionIdentifier(key: secrets.derivedKey("session-sid")), issuer: configuration.oauth.issuer,
                       clock: clock, onFailure: { error in
            databaseErrors.increment(["outbound_enqueue"])
            log.error("outbound delivery could not be queued", [("error", String(describing: error))])
        })
    }

    /// The security log every service writes to, with its failures counted and logged; audited account
    /// changes become webhooks through `events` (nil when nobody listens).
    static func makeAudit(database: any GatehouseDatabase, clock: IdentityClock, log: ServerLog, databaseErrors: Counter,
                          signIns: @escaping @Sendable (AuditEventType, String?, ClientContext, [String: String]) -> Void,
                          events: OutboundEvents?) -> AuditTrail {
        let securityLog = SecurityEventLog(log: log).observe
        return AuditTrail(store: database.auditLog, clock: clock, onFailure: { error in
            databaseErrors.increment(["audit"])
            log.error("audit write failed", [("error", String(describing: error))])
        }, observe: { type, userId, context, details in
            signIns(type, userId, context, details)
            securityLog(type, userId, context, details)
        }, events: events)
    }

    /// Built once, completely: `audit` and `clients` are made first (``makeAudit``) because the token-exchange
    /// grant's verifier (`externalIDTokens`, the native sign-ins) needs them before the token service exists;
    /// `cookies` and `languages` first too, because the languages name their cookie like the others.
    init(configuration: GatehouseConfiguration, database: any GatehouseDatabase, secrets: ServerSecrets,
         mailer: any Mailer, clock: IdentityClock, log: ServerLog, events: OutboundEvents, audit: AuditTrail, clients: ClientRegistry,
         externalIDTokens: (any ExternalIDTokenResolver)?, providerTokens: ProviderTokenRevocations?,
         cookies: CookiePolicy, languages: Languages, mailWording: any MailWording) {
        self.database = database
        self.clock = clock
        // The KEK derives from the master secret with a fixed label, so it cannot fail.
        var keyPolicy = SigningKeyRing.Policy(refreshInterval: configuration.signingKeyRefreshInterval)
        if let generator = configuration.signingKeyGenerator { keyPolicy.generate = generator }
        keys = SigningKeyRing(store: database.signingKeys, kek: try! secrets.keyEncryptionKey, clock: clock, policy: keyPolicy)
        hasher = PasswordHasher(parameters: configuration.passwordHashing, bcryptPepper: configuration.bcryptPepper)
        self.audit = audit
        self.events = events
        let sids = events.sids
        // Nobody listening: sign-outs and account changes skip the extra reads entirely.
        let listening = events.isActive ? events : nil
        sessions = SessionService(store: database.sessions, hotReads: database.hotReads,
                                  grants: UserGrantRevocation(refreshTokens: database.refreshTokens, revoked: database.revokedAccessTokens,
                                                              users: database.users, accessTokenLifetime: configuration.oauth.accessTokenLifetime,
                                                              clock: clock),
                                  policy: configuration.sessions, clock: clock, events: listening)
        accounts = AccountService(users: database.users, oneTimeTokens: database.oneTimeTokens, rateLimits: database.rateLimits,
                                  hasher: hasher, passwordPolicy: configuration.passwordPolicy,
                                  limits: configuration.rateLimits, audit: audit, sessions: sessions, clock: clock,
                                  deviceKey: secrets.derivedKey("known-device"))
        let publicURL = configuration.publicURL.absoluteString.hasSuffix("/")
            ? String(configuration.publicURL.absoluteString.dropLast()) : configuration.publicURL.absoluteString
        // The first proof of email ownership removes what an unproven account collected.
        let ownershipClaim = EmailOwnershipClaim(
            users: database.users, identities: database.externalIdentities, passkeys: database.webAuthnCredentials,
            refreshTokens: database.refreshTokens, consents: database.consents, sessions: sessions,
            revocation: TokenRevocation(refreshTokens: database.refreshTokens, revoked: database.revokedAccessTokens,
                                        settings: configuration.oauth, clock: clock),
            audit: audit, clock: clock)
        links = EmailLinks(users: database.users, oneTimeTokens: database.oneTimeTokens, passkeys: database.webAuthnCredentials,
                           rateLimits: database.rateLimits, mailer: mailer, accounts: accounts, limits: configuration.rateLimits,
                           audit: audit, clock: clock, absoluteURL: { publicURL + $0 }, ownershipClaim: ownershipClaim,
                           wording: mailWording)
        tokens = TokenService(stores: .init(database: database), settings: configuration.oauth, keys: keys, accounts: accounts, audit: audit,
                              clock: clock, successorKey: secrets.derivedKey("refresh-successor"), sids: sids, registry: clients,
                              externalIDTokens: externalIDTokens, dpopNonceKey: secrets.derivedKey("dpop-nonce"))
        handoffs = HandoffTokens(store: database.oneTimeTokens, clock: clock, lifetime: configuration.handoffLifetime)
        handoffConfirmations = HandoffConfirmations(store: database.oneTimeTokens, clock: clock)
        administration = AccountAdministration(users: database.users, search: database.userSearch, identities: database.externalIdentities,
                                               auditLog: database.auditLog, accounts: accounts, sessions: sessions, audit: audit,
                                               clock: clock, providerTokens: providerTokens)
        importer = UserImporter(imports: database.userImports, audit: audit, clock: clock, subjectSource: configuration.subjectSource,
                                ownershipClaim: ownershipClaim)
        authorization = AuthorizationService(codes: database.authorizationCodes, consents: database.consents, flowStates: database.flowStates,
                                             settings: configuration.oauth, clock: clock)
        // The secrets' own derived key: a leak of another sealed value's key opens no authenticator.
        secondFactors = SecondFactors(store: database.secondFactors, sealing: try! KeyEncryptionKey(bytes: secrets.derivedKey("totp-secrets")),
                                      limiter: RateLimiter(store: database.rateLimits, clock: clock), limits: configuration.rateLimits,
                                      audit: audit, clock: clock, issuer: configuration.passkeys.rpName,
                                      applicationsRequiringTwoStep: { [sessions] userID in
            // The applications the user allowed or that hold the user's tokens, as the account page lists them.
            let overview = try await sessions.accountOverview(userId: userID)
            var names: [String] = []
            for id in Set(overview.consents.map(\.clientId) + overview.grants.map(\.clientId)).sorted() {
                if let client = try await clients.find(id: id), client.requiresMFA { names.append(client.name) }
            }
            return names
        })
        secondSteps = SecondStepChallenges(store: database.oneTimeTokens, clock: clock)
        webSessions = WebSessionReader(sessions: sessions, cookies: cookies, csrf: CSRFTokens(key: secrets.derivedKey("csrf")),
                                       duplicateCookies: { request in
            // Cookie values never reach the log: a planted one may be someone's live session.
            log.info("duplicate session or csrf cookie: treated as signed out",
                     [("request_id", request.requestID), ("ip", request.remoteAddress ?? "")])
        }, languages: languages)
    }

    /// Start-up work before serving: when the store holds imported bcrypt hashes, every password check does the
    /// same work whichever kind of account it meets, or none (``PasswordHasher/expectBcryptHashes(cost:)``).
    public func preparePasswordChecks() async throws {
        if let cost = try await database.users.bcryptCostInUse() { hasher.expectBcryptHashes(cost: cost) }
        await hasher.prepareDummyHash()
    }

}
