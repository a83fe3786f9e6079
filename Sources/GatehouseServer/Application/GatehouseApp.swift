import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseHTTPServer
import GatehouseIdentity
import GatehouseMail
import GatehouseProviders
import GatehouseStore

/// The assembled application: routes, middleware and error pages over a request pipeline. Build it
/// once; serve it with `HTTPServer`, or test it in-process with `respond(to:)`.
public struct GatehouseApp: Sendable {
    public let configuration: GatehouseConfiguration
    public let pipeline: RequestPipeline
    /// Everything `/metrics` shows (`ServerMetrics`).
    public let metrics: ServerMetrics
    /// Serves `metrics.listen`: `/metrics` and `/healthz` only.
    public let metricsPipeline: RequestPipeline
    public let log: ServerLog
    /// The registered clients' origins and redirect targets (CORS, discovery, the pages' CSP `form-action`).
    let clientOrigins: WebOriginCache
    public let services: IdentityServices
    /// The enabled sign-in providers (and the simulator in demo mode).
    public let providers: ProviderRegistry
    let providerRevocations: ProviderTokenRevocations
    /// Delivers the queued webhooks and back-channel logout tokens (a maintenance job).
    public let outbound: OutboundDeliveryWorker

    /// - Parameters:
    ///   - readiness: overrides the database ping behind `/readyz` (tests).
    ///   - mailer: defaults to the log mailer.
    ///   - wrapProviderTransport: wraps the transport to upstream providers (tests inject faults).
    ///   - demoProviders: the simulated providers demo mode mounts (`SimulatedDemoProviders` from `GatehouseDemo`).
    ///   - metrics: the counters to keep counting in (a configuration reload passes the running app's).
    public init(configuration: GatehouseConfiguration, database: any GatehouseDatabase, secrets: ServerSecrets,
                log: ServerLog = ServerLog(), accessLogSink: AccessLogMiddleware.Sink? = nil, mailer: (any Mailer)? = nil,
                clock: IdentityClock = .system, readiness: OperationsRoutes.ReadinessCheck? = nil,
                wrapProviderTransport: (@Sendable (any ProviderTransport) -> any ProviderTransport)? = nil,
                demoProviders: (any DemoProviders)? = nil, outboundTransport: (any OutboundTransport)? = nil,
                metrics: ServerMetrics? = nil) {
        var configuration = configuration
        let simulator = ProviderWiring.prepareDemo(&configuration, providers: demoProviders, clock: clock, log: log)
        self.configuration = configuration
        self.log = log
        let metrics = metrics ?? ServerMetrics(providers: configuration.providers.enabledIDs)
        let databaseErrors = metrics.databaseErrors
        self.metrics = metrics
        // Built once, in dependency order: the providers and the native sign-ins before the token service,
        // whose token-exchange grant verifies with them (no second, mutated copy of it).
        let events = IdentityServices.makeEvents(configuration: configuration, database: database, secrets: secrets,
                                                 clock: clock, log: log, databaseErrors: databaseErrors)
        let audit = IdentityServices.makeAudit(database: database, clock: clock, log: log, databaseErrors: databaseErrors,
                                               signIns: metrics.signInObserver, events: events.isActive ? events : nil)
        let clients = ClientRegistry(store: database.oauthClients, clock: clock)
        let providerWiring = ProviderWiring(configuration: configuration, database: database, clock: clock, audit: audit, secrets: secrets,
                                            simulator: simulator, wrapTransport: wrapProviderTransport, log: log)
        // F3: native Sign in with Apple (and Google), as their own endpoints and as the token-exchange grant.
        let nativeApple = providerWiring.nativeAppleSignIn(clients: clients)
        let nativeGoogle = providerWiring.nativeGoogleSignIn(clients: clients)
        let branding = configuration.branding ?? .standard(for: configuration.publicURL)
        // Every mail, whoever sends it, goes out multipart and branded.
        let brandedMailer = BrandedMailer(inner: mailer ?? configuration.smtp.map { SMTPMailer(configuration: $0) } ?? LogMailer(sink: log.sink),
                                          branding: branding, publicURL: configuration.publicURL)
        let cookies = CookiePolicy(publicURL: configuration.publicURL, sessionMaxAge: configuration.sessions.absoluteTimeout)
        // One choice of language for the pages, the session reader and the mails.
        let languages = Languages(catalogues: Languages.builtIn.catalogues, defaultTag: branding.defaultLanguage,
                                  uiLocalesCookie: cookies.name("ui_locales"))
        // Admin unlinks and deletions queue Apple's token revocation like the account page does.
        let services = IdentityServices(configuration: configuration, database: database, secrets: secrets,
                                        mailer: brandedMailer, clock: clock, log: log,
                                        events: events, audit: audit, clients: clients,
                                        externalIDTokens: NativeIDTokenResolvers(apple: nativeApple, google: nativeGoogle),
                                        providerTokens: providerWiring.revocations, cookies: cookies, languages: languages,
                                        mailWording: CatalogueMailWording(languages: languages, productName: branding.productName,
                                                                          templates: branding.templates))
        let outboundAttempts = metrics.outboundDeliveries
        let layout = PageLayout(demo: configuration.demo, branding: branding, languages: languages)
        providers = providerWiring.registry
        providerRevocations = providerWiring.revocations
        self.services = services
        outbound = OutboundDeliveryWorker(store: database.outboundDeliveries, clients: database.oauthClients, keys: services.keys, webhooks: configuration.webhooks,
                                          transport: outboundTransport ?? URLSessionOutboundTransport(), clock: clock,
                                          onAttempt: { delivery, outcome in
            outboundAttempts.increment([delivery.kind.rawValue, String(outcome.prefix { $0 != ":" })])
            // Destination and event only: never the body, the signature or the secret. A failure is a warning.
            (outcome == "delivered" ? log.info : log.warn)("outbound delivery", [("kind", delivery.kind.rawValue), ("event", delivery.eventType),
                                           ("destination", delivery.destination), ("attempt", String(delivery.attempts + 1)),
                                           ("outcome", outcome)])
        })

        var router = Router()
        // Bounded, so a stuck database turns the probe to 503 within seconds instead of hanging it.
        let operations = OperationsRoutes(readiness: readiness ?? OperationsRoutes.withDeadline(3) { try await database.ping() },
                                          metrics: metrics, settings: configuration.metrics, log: log)
        operations.register(into: &router)
        var metricsRouter = Router()
        operations.registerMetricsListener(into: &metricsRouter)
        metricsPipeline = RequestPipeline(router: metricsRouter, middleware: [MetricsMiddleware(metrics.http)])
        let relyingParty = WebAuthnRelyingParty(id: configuration.passkeys.effectiveRPID(publicURL: configuration.publicURL),
                                                name: configuration.passkeys.rpName,
                                                origins: [NativeSignInHTTP.origin(of: configuration.publicURL)])
        let passkeys = WebAuthnCeremonies(relyingParty: relyingParty, credentials: database.webAuthnCredentials,
                                          challenges: database.webAuthnChallenges, users: database.users, audit: services.audit, clock: services.clock)
        // One context for every page route: the layout, the session reader and the shared screens' services.
        let pages = PageContext(layout: layout, reader: services.webSessions, audit: services.audit,
                                clock: services.clock, sessions: services.sessions, clients: services.tokens.registry,
                                providers: providerWiring.pages, passkeys: passkeys, secondFactors: services.secondFactors,
                                secondSteps: services.secondSteps)
        let native = NativeRoutes(apps: NativeAppDirectory(registry: services.tokens.registry), handoffs: services.handoffs,
                                  confirmations: services.handoffConfirmations, context: pages,
                                  completion: HandoffCompletion(handoffs: services.handoffs, users: database.users, sessions: services.sessions,
                                                                linker: providerWiring.makeLinker(), audit: services.audit),
                                  pathConfiguration: PathConfiguration(rules: configuration.nativePathRules, publicURL: configuration.publicURL),
                                  associations: AppSiteAssociations(apps: configuration.clients.compactMap { NativeApp(registration: $0.registration) }),
                                  enabledProviders: providerWiring.registry.providers.map(\.id),
                                  publicOrigin: NativeSignInHTTP.origin(of: configuration.publicURL),
                                  linkMaxSignInAge: configuration.providers.linkMaxSignInAge)
        let admin = AdminRoutes(administration: services.administration, tokens: services.tokens, log: log,
                                limiter: RateLimiter(store: services.database.rateLimits, clock: services.clock),
                                limits: configuration.rateLimits.adminAPIPerClient, issuer: configuration.oauth.issuer,
                                secondFactors: services.secondFactors, passkeys: passkeys)
        let origins = WebOriginCache(store: database.oauthClients)
        let pushed = PushedAuthorizationRequests(store: database.flowStates, registry: services.tokens.registry,
                                                 resources: configuration.oauth.resources, clock: services.clock)
        let dpop = DPoPRequests(verifier: services.tokens.dpop, issuer: configuration.oauth.issuer)

        // Outside every group, with caching of their own: the stylesheet and brand assets, the scripts, the apps'
        // path configurations and association files, the admin API's description, and demo mode's simulator.
        AssetRoutes.register(into: &router, branding: branding)
        ScriptAssets.register(into: &router)
        native.registerDocuments(into: &router)
        admin.registerDocument(into: &router)
        providerWiring.registry.simulator?.register(into: &router)
        // The route groups (architecture §3), declared once: a route registered inside one gets its headers
        // without remembering them. Pages and every answer carrying a token, a session or personal data: no-store.
        router.group(NoStoreMiddleware()) { router in
            AccountPages(context: pages, accounts: services.accounts, links: services.links, tokens: services.tokens,
                         applications: ApplicationAccessRevocation(consents: database.consents, revocation: services.tokens.revocation,
                                                                   audit: services.audit),
                         dataExport: AccountDataExport(stores: .init(database), audit: services.audit, clock: services.clock)).register(into: &router)
            PasskeyRoutes(context: pages, ceremonies: passkeys, recentSignInWindow: 5 * 60).register(into: &router)
            PasskeySignUpRoutes(context: pages, signUp: PasskeySignUp(accounts: services.accounts, ceremonies: passkeys), links: services.links)
                .register(into: &router)
            SecondFactorRoutes(context: pages, factors: services.secondFactors, steps: services.secondSteps, accounts: services.accounts,
                               recentSignInWindow: 5 * 60).register(into: &router)
            providerWiring.register(into: &router, context: pages, services: services, publicBase: configuration.oauth.issuer)
            native.register(into: &router)
            NativeSignInRoute(signIn: nativeApple, form: .apple, sessions: services.sessions, cookies: services.webSessions.cookies,
                              issuer: services.tokens.issuer, publicOrigin: NativeSignInHTTP.origin(of: configuration.publicURL),
                              dpop: dpop).register(into: &router)
            NativeSignInRoute(signIn: nativeGoogle, form: .google, sessions: services.sessions, cookies: services.webSessions.cookies,
                              issuer: services.tokens.issuer, publicOrigin: NativeSignInHTTP.origin(of: configuration.publicURL),
                              dpop: dpop).register(into: &router)
            NativePasskeyRoutes(apps: NativeAppDirectory(registry: services.tokens.registry), signIn: NativePasskeySignIn(ceremonies: passkeys),
                                sessions: services.sessions, cookies: services.webSessions.cookies, issuer: services.tokens.issuer,
                                audit: services.audit, publicOrigin: NativeSignInHTTP.origin(of: configuration.publicURL),
                                dpop: dpop, limiter: RateLimiter(store: services.database.rateLimits, clock: services.clock),
                                limits: configuration.rateLimits).register(into: &router)
            admin.register(into: &router)
            AuthorizeRoutes(parser: AuthorizationRequestParser(registry: services.tokens.registry, resources: configuration.oauth.resources),
                            authorization: services.authorization,
                            decider: AuthorizationDecider(authorization: services.authorization,
                                                          hints: IDTokenHint(settings: configuration.oauth, keys: services.keys, clock: services.clock)),
                            context: pages, settings: configuration.oauth,
                            providerHint: providerWiring.signInHint(context: pages, services: services, publicBase: configuration.oauth.issuer),
                            pushed: pushed).register(into: &router)
            LogoutRoutes(registry: services.tokens.registry, context: pages, keys: services.keys, settings: configuration.oauth)
                .register(into: &router)
        }
        // What a browser client of a registered origin calls: CORS; the token endpoints' answers are no-store too,
        // discovery and the JWKS are public and cached.
        router.group(OAuthResponses.cors(origins: origins)) { router in
            router.group(NoStoreMiddleware()) { router in
                TokenRoutes(tokens: services.tokens, log: log, issued: metrics.tokensIssued).register(into: &router)
                PushedAuthorizationRoutes(pushed: pushed, registry: services.tokens.registry, log: log, dpop: dpop).register(into: &router)
            }
            TokenRoutes.registerPreflights(into: &router)
            DiscoveryRoutes(settings: configuration.oauth, keys: services.keys, clientGrants: { await origins.grantTypes() })
                .register(into: &router)
        }

        // First: every later step (logs, limits, sessions, audit) sees the client's address, not the proxy's.
        // Before it, the request id: taken from X-Request-Id only when the peer itself is a trusted proxy.
        var middleware: [any Middleware] = [RequestIDMiddleware(trustedProxies: configuration.clientAddresses),
                                            ClientAddressMiddleware(resolver: configuration.clientAddresses), MetricsMiddleware(metrics.http)]
        if configuration.accessLog {
            middleware.append(AccessLogMiddleware(sink: accessLogSink ?? AccessLogMiddleware.standardOutput))
        }
        let policy = PageContentSecurityPolicy(base: BrandAssetRoutes.contentSecurityPolicy(for: branding),
                                               providers: configuration.providers, clients: origins)
        middleware.append(SecurityHeadersMiddleware(https: configuration.isHTTPS, includeSubdomains: configuration.hstsCoversSubdomains,
                                                    contentSecurityPolicy: policy.header))
        self.clientOrigins = origins
        // Last in, first out: handlers see Gatehouse's own paths; what leaves gets the public prefix (one origin).
        middleware.append(BasePathMiddleware(configuration.basePath))
        let errors = PageErrorRenderer(layout: layout)
        pipeline = RequestPipeline(router: router, middleware: middleware, renderError: errors.render, reportFailure: { error, request in
            // The client gets a bare 500 (or 503) with the request id; the detail stays in the log.
            if error is StoreError { databaseErrors.increment([request.route ?? "unknown"]) }
            log.error("unhandled error", [("request_id", request.requestID), ("route", request.route ?? ""),
                                          ("error", String(describing: error))])
        }, classifyFailure: DatabaseOutage.answer)
    }

    /// Attempts the provider token revocations that are due (claimed atomically). The maintenance job runner
    /// calls this; tests call it directly.
    @discardableResult
    public func processProviderRevocations() async -> Int { await providerRevocations.processDue() }

    /// Attempts the webhook and logout-token deliveries that are due (the maintenance job runner calls it; tests too).
    @discardableResult
    public func processOutboundDeliveries() async throws -> Int { try await outbound.processDue() }

    /// Reads the registered clients now, so the first page's CSP already names their redirect targets (call it
    /// after registering the configured clients, before serving).
    public func readClients() async { await clientOrigins.refresh() }

    /// Handles one request in-process (tests).
    public func respond(to request: Request) async -> Response { await pipeline.respond(to: request) }

    /// Starts an HTTP server for this app on the configured address.
    public func makeServer() -> HTTPServer {
        var http = configuration.http
        // The health-check reserve serves these past the connection caps (under the public path, if any).
        http.healthCheckPaths = [configuration.basePath.prefix + "/healthz", configuration.basePath.prefix + "/readyz"]
        return HTTPServer(pipeline: pipeline, configuration: http)
    }

    /// The server for `metrics.listen`, or nil when metrics have no listener of their own.
    public func makeMetricsServer() -> HTTPServer? {
        guard let listen = configuration.metrics.listen else { return nil }
        var http = HTTPServerConfiguration(listen: listen, ioThreads: 1, maxConnections: 64, maxConnectionsPerIP: 64,
                                           shutdownGraceSeconds: 1)
        http.healthCheckConnections = 0
        return HTTPServer(pipeline: metricsPipeline, configuration: http)
    }
}
