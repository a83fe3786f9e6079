import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseSQLite
import GatehouseStore
import GatehouseTesting
import Synchronization
import Testing

/// Records what the delivery worker posts and answers with a scripted status (or no answer at all).
final class RecordingTransport: OutboundTransport {
    struct Post: Sendable {
        let url: URL
        let headers: [String: String]
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }
    let posts = Recorder<Post>()
    /// nil: the receiver is down (connection refused).
    let status = Mutex<Int?>(200)

    func post(_ url: URL, headers: [(String, String)], body: [UInt8]) async throws -> Int {
        guard let status = status.withLock({ $0 }) else { throw URLError(.cannotConnectToHost) }
        posts.append(Post(url: url, headers: Dictionary(headers, uniquingKeysWith: { $1 }), body: body))
        return status
    }
}

/// Gatehouse in-process with a back-channel logout client (`web-app`, first-party), a webhook and a recording transport.
struct EventsFixture {
    static let webhookURL = URL(string: "http://127.0.0.1:9/gatehouse/webhooks")!
    static let logoutURL = "http://127.0.0.1:9/auth/backchannel-logout"
    static let secret = "whsec-test-0123456789abcdefghijklmnopqrstuvwxyz"
    static let redirect = "https://app.example.test/callback"

    let app: GatehouseApp
    let database: any GatehouseDatabase
    let clock: TestClock
    let mailer: RecordingMailer
    let transport: RecordingTransport
    let clientSecret: String

    static func make(events: Set<AccountEventType> = Set(AccountEventType.allCases), sessionRequired: Bool = false) async throws -> EventsFixture {
        var configuration = try GatehouseConfiguration.load(environment: [:])
        configuration.passwordHashing = Argon2idParameters(memoryBytes: 1 << 20, iterations: 1)
        configuration.signingKeyGenerator = TestSigningKeys.generate
        configuration.webhooks = [WebhookEndpoint(url: webhookURL, secret: secret, events: events)]
        var metadata = ClientMetadata.setting(BackchannelLogoutRegistration.uriKey, to: logoutURL, in: "{}")
        metadata = ClientMetadata.setting(BackchannelLogoutRegistration.sessionRequiredKey, to: sessionRequired, in: metadata)
        let webApp = ClientRegistration(id: "web-app", name: "Web App", kind: .confidential, redirectURIs: [redirect], firstParty: true,
                                        metadata: metadata)
        // As the configuration file declares it (back-channel logout is a configuration-file setting)…
        configuration.clients = [ConfiguredClient(registration: webApp, secret: nil)]
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let clock = TestClock(), mailer = RecordingMailer(), transport = RecordingTransport()
        let app = GatehouseApp(configuration: configuration, database: database, secrets: ServerSecrets(master: SecureRandom.bytes(32)),
                               log: ServerLog(sink: { _ in }), accessLogSink: { _ in }, mailer: mailer, clock: clock.identityClock,
                               outboundTransport: transport)
        try await app.services.keys.ensureSigningKey()
        // …and as `serve` registers it at start.
        let (_, secret) = try await app.services.tokens.registry.register(webApp)
        // A third-party client the user never consented to: it must never hear of the user.
        _ = try await app.services.tokens.registry.register(ClientRegistration(
            id: "partner", name: "Partner", kind: .confidential, redirectURIs: ["https://partner.example.test/cb"],
            metadata: ClientMetadata.setting(BackchannelLogoutRegistration.uriKey, to: "http://127.0.0.1:9/partner", in: "{}")))
        return EventsFixture(app: app, database: database, clock: clock, mailer: mailer, transport: transport, clientSecret: secret!)
    }

    var gatehouse: TestGatehouse { TestGatehouse(app: app, database: database, clock: clock, mailer: mailer, log: Recorder<String>()) }

    /// Signs in through the pages and through the web-app's code flow; returns the browser and the ID token.
    func signIn(email: String = "ada@example.com", browser signedIn: BrowserLikeClient? = nil) async throws
        -> (BrowserLikeClient, idToken: String) {
        let browser = if let signedIn { signedIn } else { try await gatehouse.signedUpBrowser(email: email) }
        let authorize = try await browser.get("/oauth/authorize?" + URLEncodedForm(pairs: [
            ("response_type", "code"), ("client_id", "web-app"), ("redirect_uri", Self.redirect), ("scope", "openid email"),
            ("state", "s"), ("nonce", "n")]).encoded)
        let location = try #require(authorize.headers["Location"])
        let code = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
        let response = try await InProcessClient(app.pipeline).send(.post, "/oauth/token", headers: [
            "Content-Type": "application/x-www-form-urlencoded",
            "Authorization": "Basic " + Data("web-app:\(clientSecret)".utf8).base64EncodedString()],
            body: Array(URLEncodedForm(pairs: [("grant_type", "authorization_code"), ("code", code),
                                               ("redirect_uri", Self.redirect)]).encoded.utf8))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (browser, try #require(json["id_token"] as? String))
    }

    /// Verifies a logout token against Gatehouse's published keys as an RP would.
    func verifyLogoutToken(_ token: String) async throws -> VerifiedJWT {
        let verifier = JWTVerifier(allowedAlgorithms: [.rs256, .es256],
                                   rules: ClaimRules(issuers: [app.configuration.oauth.issuer], audiences: ["web-app"]))
        return try verifier.verify(token, keys: try await app.services.keys.verificationKeys(), now: clock.now)
    }

    func posts(to url: String) -> [RecordingTransport.Post] { transport.posts.all.filter { $0.url.absoluteString == url } }

    static func logoutToken(_ post: RecordingTransport.Post) -> String? {
        let text = post.text
        guard text.hasPrefix("logout_token=") else { return nil }
        return String(text.dropFirst("logout_token=".count))
    }

    static func json(_ post: RecordingTransport.Post) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(post.body))) as? [String: Any] ?? [:]
    }
}

@Suite("Back-channel logout and webhooks")
struct OutboundEventsTests {
    @Test func signOutSendsASignedLogoutTokenWhoseSidMatchesTheIDToken() async throws {
        let fixture = try await EventsFixture.make()
        let (browser, idToken) = try await fixture.signIn()
        let idClaims = OAuthFixture.claims(idToken)
        let sid = try #require(idClaims["sid"] as? String)
        let user = try #require(try await fixture.database.users.find(email: "ada@example.com"))
        #expect(sid.count == 22)
        // Not the session id and not its hash: an RP that leaks it leaks nothing that resumes the session.
        let cookie = try #require(browser.cookies.values.first { $0.count == 43 })
        #expect(sid != cookie && !Base64URL.encode(SHA256.hash(cookie)).hasPrefix(sid))

        let page = try await browser.get("/account")
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: page.text))
        #expect(try await browser.post("/sign-out", [("csrf_token", csrf)]).status == 303)
        // Requests only enqueue: nothing was sent yet.
        #expect(fixture.posts(to: EventsFixture.logoutURL).isEmpty)
        #expect(try await fixture.app.processOutboundDeliveries() >= 1)

        let posts = fixture.posts(to: EventsFixture.logoutURL)
        #expect(posts.count == 1)
        let post = try #require(posts.first)
        #expect(post.headers["Content-Type"] == "application/x-www-form-urlencoded")
        let token = try #require(EventsFixture.logoutToken(post))
        let verified = try await fixture.verifyLogoutToken(token)
        #expect(verified.header.type == "logout+jwt")
        let claims = verified.claims.all
        #expect(claims["sid"]?.stringValue == sid)
        #expect(claims["sub"]?.stringValue == user.id)
        #expect(claims["aud"]?.stringValue == "web-app")
        #expect(claims["nonce"] == nil)
        #expect(claims["jti"]?.stringValue?.isEmpty == false)
        #expect(claims["iat"]?.numberValue == fixture.clock.now.timeIntervalSince1970.rounded(.down))
        #expect(claims["exp"]?.numberValue == fixture.clock.now.timeIntervalSince1970.rounded(.down) + 120)
        #expect(claims["events"] == .object([OutboundEvents.logoutEvent: .object([:])]))
        // The partner never saw this user (no consent): it hears nothing.
        #expect(fixture.posts(to: "http://127.0.0.1:9/partner").isEmpty)
        // Delivered means gone from the queue: a second run sends nothing more.
        _ = try await fixture.app.processOutboundDeliveries()
        #expect(fixture.posts(to: EventsFixture.logoutURL).count == 1)
        #expect(try await fixture.database.outboundDeliveries.list(limit: 10).isEmpty)
    }

    @Test func sessionEndedWebhookIsSignedAndCarriesTheSid() async throws {
        let fixture = try await EventsFixture.make(events: [.sessionEnded])
        let (browser, idToken) = try await fixture.signIn()
        let page = try await browser.get("/account")
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: page.text))
        _ = try await browser.post("/sign-out", [("csrf_token", csrf)])
        _ = try await fixture.app.processOutboundDeliveries()
        let hook = try #require(fixture.posts(to: EventsFixture.webhookURL.absoluteString).first)
        let body = EventsFixture.json(hook)
        #expect(body["type"] as? String == "session.ended")
        #expect((body["data"] as? [String: Any])?["sid"] as? String == OAuthFixture.claims(idToken)["sid"] as? String)
        let timestamp = try #require(hook.headers[WebhookSignature.timestampHeader])
        let signature = try #require(hook.headers[WebhookSignature.signatureHeader])
        #expect(hook.headers[WebhookSignature.eventIdHeader] == body["id"] as? String)
        #expect(WebhookSignature.verify(body: hook.body, timestamp: timestamp, signature: signature, secret: EventsFixture.secret,
                                        now: fixture.clock.now))
    }

    @Test func deletingAUserSendsUserDeletedAndASubOnlyLogoutToken() async throws {
        let fixture = try await EventsFixture.make()
        _ = try await fixture.signIn()
        let user = try #require(try await fixture.database.users.find(email: "ada@example.com"))
        try await fixture.app.services.administration.delete(id: user.id)
        _ = try await fixture.app.processOutboundDeliveries()

        let hooks = fixture.posts(to: EventsFixture.webhookURL.absoluteString).map(EventsFixture.json)
        let deleted = try #require(hooks.first { $0["type"] as? String == "user.deleted" })
        let deletedUser = try #require((deleted["data"] as? [String: Any])?["user"] as? [String: Any])
        #expect(deletedUser["id"] as? String == user.id)
        #expect(hooks.contains { $0["type"] as? String == "session.ended" })
        // One token for the session (sid + sub) and one account-wide (sub only) for an RP that takes those.
        let tokens = try await fixture.posts(to: EventsFixture.logoutURL).asyncMap { post in
            try await fixture.verifyLogoutToken(try #require(EventsFixture.logoutToken(post))).claims.all
        }
        #expect(tokens.count == 2)
        #expect(tokens.allSatisfy { $0["sub"]?.stringValue == user.id })
        #expect(tokens.filter { $0["sid"] == nil }.count == 1)
        // Distinct jtis: a receiver deduplicating by jti keeps both.
        #expect(Set(tokens.compactMap { $0["jti"]?.stringValue }).count == 2)
    }

    @Test func sessionRequiredClientsGetNoSubOnlyTokens() async throws {
        let fixture = try await EventsFixture.make(sessionRequired: true)
        _ = try await fixture.signIn()
        let user = try #require(try await fixture.database.users.find(email: "ada@example.com"))
        _ = try await fixture.app.services.administration.setDisabled(id: user.id, true)
        _ = try await fixture.app.processOutboundDeliveries()
        let tokens = try await fixture.posts(to: EventsFixture.logoutURL).asyncMap { post in
            try await fixture.verifyLogoutToken(try #require(EventsFixture.logoutToken(post))).claims.all
        }
        #expect(tokens.count == 1)
        #expect(tokens.first?["sid"] != nil)
        let hooks = fixture.posts(to: EventsFixture.webhookURL.absoluteString).map(EventsFixture.json)
        #expect(hooks.contains { $0["type"] as? String == "user.disabled" })
    }

    @Test func failedDeliveriesBackOffAndKeepTheirEventId() async throws {
        let fixture = try await EventsFixture.make(events: [.userUpdated])
        _ = try await fixture.gatehouse.signedUpBrowser()
        let user = try #require(try await fixture.database.users.find(email: "ada@example.com"))
        _ = try await fixture.app.processOutboundDeliveries()  // the verification's user.updated
        fixture.transport.status.withLock { $0 = 503 }
        _ = try await fixture.app.services.administration.update(id: user.id, .init(displayName: .some("Ada L.")), by: "test")
        #expect(try await fixture.app.processOutboundDeliveries() == 0)
        let first = try #require(fixture.posts(to: EventsFixture.webhookURL.absoluteString).last)
        let queued = try #require(try await fixture.database.outboundDeliveries.list(limit: 10).first { $0.eventType == "user.updated" })
        #expect(queued.attempts == 1)
        #expect(queued.lastError == "HTTP 503")
        #expect(queued.nextAttemptAt == fixture.clock.now.addingTimeInterval(5))

        // The receiver is down altogether: no answer is a failure too, and the delay doubles.
        fixture.transport.status.withLock { $0 = nil }
        fixture.clock.advance(4)
        _ = try await fixture.app.processOutboundDeliveries()
        #expect(try await fixture.database.outboundDeliveries.list(limit: 10).first?.attempts == 1, "not due yet")
        fixture.clock.advance(1)
        _ = try await fixture.app.processOutboundDeliveries()
        let second = try #require(try await fixture.database.outboundDeliveries.list(limit: 10).first)
        #expect(second.attempts == 2)
        #expect(second.nextAttemptAt == fixture.clock.now.addingTimeInterval(10))

        fixture.transport.status.withLock { $0 = 200 }
        fixture.clock.advance(10)
        #expect(try await fixture.app.processOutboundDeliveries() == 1)
        let delivered = try #require(fixture.posts(to: EventsFixture.webhookURL.absoluteString).last)
        // At least once: the retry is the same event (same id and body), signed afresh with a new timestamp.
        #expect(delivered.headers[WebhookSignature.eventIdHeader] == first.headers[WebhookSignature.eventIdHeader])
        #expect(delivered.body == first.body)
        #expect(delivered.headers[WebhookSignature.timestampHeader] != first.headers[WebhookSignature.timestampHeader])
        #expect(try await fixture.database.outboundDeliveries.list(limit: 10).isEmpty)
    }

    @Test func aDeliveryIsGivenUpAfterTheLastAttemptAndAVanishedEndpointIsDropped() async throws {
        let fixture = try await EventsFixture.make(events: [.userCreated])
        _ = try await fixture.app.services.administration.create(email: "grace@example.com", password: nil, displayName: nil,
                                                                 verified: true, by: "test")
        let queued = try #require(try await fixture.database.outboundDeliveries.list(limit: 10).first)
        try await fixture.database.outboundDeliveries.reschedule(id: queued.id, attempts: OutboundDeliveryWorker.maxAttempts - 1,
                                                                 nextAttemptAt: fixture.clock.now, lastError: "HTTP 500")
        fixture.transport.status.withLock { $0 = 500 }
        _ = try await fixture.app.processOutboundDeliveries()
        #expect(try await fixture.database.outboundDeliveries.list(limit: 10).isEmpty, "given up after the last attempt")

        // A row whose endpoint left the configuration is dropped without a request.
        try await fixture.database.outboundDeliveries.enqueue([OutboundDelivery(
            id: "orphan", kind: .webhook, destination: "https://gone.example/hooks", eventType: "user.created",
            payload: #"{"id":"evt_x"}"#, nextAttemptAt: fixture.clock.now, createdAt: fixture.clock.now)])
        let before = fixture.transport.posts.all.count
        _ = try await fixture.app.processOutboundDeliveries()
        #expect(fixture.transport.posts.all.count == before)
        #expect(try await fixture.database.outboundDeliveries.list(limit: 10).isEmpty)
        let metrics = try await InProcessClient(fixture.app.metricsPipeline).send(.get, "/metrics", headers: [:], body: [])
        #expect(metrics.text.contains(#"gatehouse_outbound_deliveries_total{kind="webhook",outcome="dropped"} 2"#), "\(metrics.text)")
    }

    @Test func backOffDoublesFromFiveSecondsToAnHour() {
        #expect(OutboundDeliveryWorker.retryDelay(afterAttempts: 1) == 5)
        #expect(OutboundDeliveryWorker.retryDelay(afterAttempts: 2) == 10)
        #expect(OutboundDeliveryWorker.retryDelay(afterAttempts: 5) == 80)
        #expect(OutboundDeliveryWorker.retryDelay(afterAttempts: 30) == 3600)
    }

    @Test func onlyTheMaintenanceLeaseHolderDelivers() async throws {
        let fixture = try await EventsFixture.make(events: [.userCreated])
        _ = try await fixture.app.services.administration.create(email: "grace@example.com", password: nil, displayName: nil,
                                                                 verified: true, by: "test")
        let settings = MaintenanceService.Settings(interval: 60)
        let holder = MaintenanceService(stores: .init(database: fixture.database), settings: settings, clock: fixture.clock.identityClock,
                                        holder: "process-a", jobs: [fixture.app.outbound.job])
        let other = MaintenanceService(stores: .init(database: fixture.database), settings: settings, clock: fixture.clock.identityClock,
                                       holder: "process-b", jobs: [fixture.app.outbound.job])
        #expect(try await holder.runOnce().jobs.first { $0.name == "outbound_deliveries" }?.done == 1)
        _ = try await fixture.app.services.administration.create(email: "linus@example.com", password: nil, displayName: nil,
                                                                 verified: true, by: "test")
        #expect(try await other.runOnce().skipped, "another process holds the lease: it delivers nothing")
        #expect(fixture.posts(to: EventsFixture.webhookURL.absoluteString).count == 1)
        #expect(try await holder.runOnce().jobs.first { $0.name == "outbound_deliveries" }?.done == 1)
        let types = fixture.posts(to: EventsFixture.webhookURL.absoluteString).map { EventsFixture.json($0)["type"] as? String }
        #expect(types == ["user.created", "user.created"])
    }

    @Test func unsubscribedEventsAreNotQueued() async throws {
        let fixture = try await EventsFixture.make(events: [.userDeleted])
        _ = try await fixture.app.services.administration.create(email: "grace@example.com", password: nil, displayName: nil,
                                                                 verified: true, by: "test")
        #expect(try await fixture.database.outboundDeliveries.list(limit: 10).isEmpty)
    }

    @Test func signaturesOutsideTheReplayWindowOrTamperedAreRejected() {
        let body = Array(#"{"id":"evt_1","type":"user.deleted"}"#.utf8)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let stamp = Int64(now.timeIntervalSince1970)
        let signature = WebhookSignature.sign(body: body, timestamp: stamp, secret: EventsFixture.secret)
        #expect(signature.hasPrefix("v1=") && signature.count == 3 + 64)
        #expect(WebhookSignature.verify(body: body, timestamp: String(stamp), signature: signature, secret: EventsFixture.secret, now: now))
        #expect(WebhookSignature.verify(body: body, timestamp: String(stamp), signature: signature, secret: EventsFixture.secret,
                                        now: now.addingTimeInterval(300)))
        #expect(!WebhookSignature.verify(body: body, timestamp: String(stamp), signature: signature, secret: EventsFixture.secret,
                                         now: now.addingTimeInterval(301)), "a replay after the window")
        #expect(!WebhookSignature.verify(body: body, timestamp: String(stamp), signature: signature, secret: EventsFixture.secret,
                                         now: now.addingTimeInterval(-301)), "a timestamp from the future")
        #expect(!WebhookSignature.verify(body: body + [0x20], timestamp: String(stamp), signature: signature, secret: EventsFixture.secret, now: now))
        #expect(!WebhookSignature.verify(body: body, timestamp: String(stamp + 1), signature: signature, secret: EventsFixture.secret,
                                         now: now), "the timestamp is signed")
        #expect(!WebhookSignature.verify(body: body, timestamp: String(stamp), signature: signature, secret: "another-secret", now: now))
        #expect(!WebhookSignature.verify(body: body, timestamp: "1e9", signature: signature, secret: EventsFixture.secret, now: now))
        #expect(WebhookSignature.verify(body: body, timestamp: String(stamp), signature: "v1=00, " + signature,
                                        secret: EventsFixture.secret, now: now), "one of several signatures (rotation)")
    }

    @Test func discoveryAdvertisesBackchannelLogout() async throws {
        let fixture = try await EventsFixture.make()
        let response = try await InProcessClient(fixture.app.pipeline).send(.get, "/.well-known/openid-configuration", headers: [:], body: [])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(json["backchannel_logout_supported"] as? Bool == true)
        #expect(json["backchannel_logout_session_supported"] as? Bool == true)
    }

    @Test func adminUnlinkRefusesTheLastSignInMethod() async throws {
        let fixture = try await EventsFixture.make()
        let admin = fixture.app.services.administration
        let user = try await admin.create(email: "grace@example.com", password: nil, displayName: nil, verified: true, by: "test")
        try await fixture.database.externalIdentities.create(ExternalIdentity(provider: "github", subject: "g-1", userId: user.id,
                                                                              createdAt: fixture.clock.now))
        await #expect(throws: AccountError.lastSignInMethod) {
            _ = try await admin.unlink(userId: user.id, provider: "github", subject: "g-1", by: "test")
        }
        #expect(try await fixture.database.externalIdentities.list(userId: user.id).count == 1)
        try await fixture.database.externalIdentities.create(ExternalIdentity(provider: "google", subject: "o-1", userId: user.id,
                                                                              createdAt: fixture.clock.now))
        #expect(try await admin.unlink(userId: user.id, provider: "github", subject: "g-1", by: "test"))
        #expect(try await fixture.database.externalIdentities.list(userId: user.id).map(\.provider) == ["google"])
        let hooks = try await fixture.database.outboundDeliveries.list(limit: 20).map(\.eventType)
        #expect(hooks.contains("identity.unlinked"))
    }

    @Test func productUserIdIsAClaimWhenTheSubjectStaysGatehouses() async throws {
        let fixture = try await EventsFixture.make()
        let (browser, first) = try await fixture.signIn()
        #expect(OAuthFixture.claims(first)["external_id"] == nil)
        let user = try #require(try await fixture.database.users.find(email: "ada@example.com"))
        // Importing the account from the product (the operator merging into an account proven here) records the
        // product's id beside Gatehouse's.
        _ = try await fixture.app.services.importer.run(#"{"email": "ada@example.com", "verified": true, "external_id": "rails-42"}"# + "\n",
                                                        format: .jsonLines, dryRun: false, mergeExisting: true)
        #expect(try await fixture.database.userImports.productUserId(userId: user.id) == "rails-42")
        let (_, second) = try await fixture.signIn(browser: browser)
        #expect(OAuthFixture.claims(second)["external_id"] as? String == "rails-42")
        #expect(OAuthFixture.claims(second)["sub"] as? String == user.id)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
