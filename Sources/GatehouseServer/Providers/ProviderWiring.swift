import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore

/// Builds the provider side of the app from configuration: the transport (URLSession, the mounted
/// simulator in demo mode, a time limit around both), the registry, the page parts and the routes.
struct ProviderWiring: Sendable {
    /// Lets tests wrap the transport (tampering, slowness, outages).
    typealias TransportWrapper = @Sendable (any ProviderTransport) -> any ProviderTransport

    let registry: ProviderRegistry
    let pages: ProviderPages
    let revocations: ProviderTokenRevocations
    let flows: ProviderFlowStore
    let configuration: ProvidersConfiguration

    /// Demo mode fills in the simulated providers before anything else reads the configuration.
    static func prepareDemo(_ configuration: inout GatehouseConfiguration, providers: (any DemoProviders)?, clock: IdentityClock,
                            log: ServerLog) -> (any MountedDemoProviders)? {
        guard configuration.demo else { return nil }
        guard let providers else {
            log.info("demo mode without simulated providers (this build does not compose them in)", [])
            return nil
        }
        do { return try providers.setUp(&configuration, clock: clock.now) } catch {
            log.error("provider simulator not started", [("error", String(describing: error))])
            return nil
        }
    }

    /// The store, clock and audit trail the provider rules write with (shared with the identity services).
    let database: any GatehouseDatabase
    let clock: IdentityClock
    let audit: AuditTrail

    init(configuration: GatehouseConfiguration, database: any GatehouseDatabase, clock: IdentityClock, audit: AuditTrail,
         secrets: ServerSecrets, simulator: (any MountedDemoProviders)?,
         wrapTransport: TransportWrapper?, log: ServerLog) {
        var transport: any ProviderTransport = URLSessionProviderTransport(timeoutSeconds: configuration.providers.timeoutSeconds)
        if let simulator {
            transport = InProcessProviderTransport(base: simulator.baseURL,
                                                   pipeline: RequestPipeline(router: simulator.makeRouter(), middleware: [BasePathMiddleware(configuration.basePath)]),
                                                   fallback: transport)
        }
        if let wrapTransport { transport = wrapTransport(transport) }
        transport = TimeLimitedTransport(transport, timeout: .seconds(configuration.providers.timeoutSeconds))
        registry = ProviderRegistry.build(configuration: configuration, transport: transport, simulator: simulator,
                                          clock: clock.now, report: { log.error("provider configuration", [("problem", $0)]) })
        // A key of its own for sealing provider tokens: independent of every other derived key.
        let sealing = try! KeyEncryptionKey(bytes: secrets.derivedKey("provider-tokens"))
        revocations = ProviderTokenRevocations(identities: database.externalIdentities, queue: database.pendingRevocations,
                                               revoker: RegistryTokenRevoker(registry: registry),
                                               sealing: sealing, clock: clock, audit: audit)
        flows = ProviderFlowStore(states: SingleUseStates(store: database.flowStates, clock: clock), sealing: sealing)
        let simulated = simulator != nil
        pages = ProviderPages(buttons: registry.providers.map { ($0.id, $0.displayName + (simulated ? " (simulated)" : "")) },
                              enabled: true, revocations: revocations)
        self.configuration = configuration.providers
        self.database = database; self.clock = clock; self.audit = audit
    }

    /// The account rules for provider identities, shared by the web flow and native Sign in with Apple.
    func makeLinker() -> ExternalIdentityService {
        let providers = configuration
        return ExternalIdentityService(identities: database.externalIdentities, users: database.users, clock: clock, audit: audit,
                                       linkVerifiedEmails: providers.linkVerifiedEmails, trustsEmail: { providers.trustsEmail(of: $0) })
    }

    func routes(context: PageContext, services: IdentityServices, publicBase: String) -> ProviderRoutes {
        ProviderRoutes(registry: registry, flows: flows, linker: makeLinker(), context: context,
                       unlinking: IdentityUnlinking(identities: database.externalIdentities, audit: audit, revocations: revocations),
                       completions: [.web: WebSignInCompletion(sessions: services.sessions, cookies: services.webSessions.cookies),
                                     .native: NativeHandoffCompletion(apps: NativeAppDirectory(registry: services.tokens.registry),
                                                                      handoffs: services.handoffs, confirmations: services.handoffConfirmations,
                                                                      reader: context.reader, layout: context.layout,
                                                                      userLabel: { $0.email })],
                       publicBase: publicBase, linkMaxSignInAge: configuration.linkMaxSignInAge)
    }

    /// The `/oauth/authorize?provider=…` hint, starting flows exactly as the sign-in page's buttons do.
    func signInHint(context: PageContext, services: IdentityServices, publicBase: String) -> ProviderSignInHint {
        ProviderSignInHint(routes: routes(context: context, services: services, publicBase: publicBase))
    }

    func register(into router: inout Router, context: PageContext, services: IdentityServices, publicBase: String) {
        let providers = configuration
        routes(context: context, services: services, publicBase: publicBase).register(into: &router)
        if let apple = registry.apple {
            let events = AppleAccountEvents(identities: database.externalIdentities, events: database.providerEvents, users: database.users,
                                            sessions: services.sessions, accounts: services.accounts,
                                            audit: services.audit, clock: services.clock, accountDeletion: providers.appleAccountDeletion)
            AppleNotificationRoutes(apple: apple, events: events, audit: services.audit).register(into: &router)
        }
    }
}
