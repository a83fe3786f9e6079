import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatehouseClient
import GatehouseClientOpenSSL
import GatehouseCrypto
import GatehouseHTTP
import GatehouseHTTPServer
import GatehouseIdentity
import GatehouseServer
import GatehouseSQLite
import GatehouseStore
import GatehouseTesting
import Testing

/// The SDK's auth-state stream and `endSession` against a live Gatehouse on a real socket.
@Suite(.serialized) struct LiveGatehouseSDKTests {
    static let email = "sdk@example.com", password = "a long sdk password"
    static let bye = URL(string: "http://127.0.0.1/bye")!
    /// One RSA key for both tests (generation is slow and blocks a cooperative thread).
    static let rsaKey = try! GatehouseCrypto.SigningKey.generate(.rs256)

    struct Live {
        let app: GatehouseApp
        let server: HTTPServer
        let port: UInt16
        var issuer: URL { URL(string: "http://127.0.0.1:\(port)")! }
        /// A browser (cookie jar) over the socket, signed up, so it holds a Gatehouse web session.
        let browser: BrowserLikeClient
    }

    /// The port is chosen before the server binds it (the public URL names it), so another test's socket can take it
    /// in between: a start that cannot listen tries again on another port.
    static func start(_ tweak: (inout GatehouseConfiguration) -> Void = { _ in }) async throws -> Live {
        for _ in 1..<4 {
            do { return try await startOnce(tweak) } catch HTTPServer.StartError.cannotListen { continue }
        }
        return try await startOnce(tweak)
    }

    private static func startOnce(_ tweak: (inout GatehouseConfiguration) -> Void) async throws -> Live {
        let port = try freeLoopbackPort()
        var configuration = try GatehouseConfiguration.load(environment: [
            "GATEHOUSE_PUBLIC_URL": "http://127.0.0.1:\(port)", "GATEHOUSE_LISTEN": "127.0.0.1:\(port)"])
        configuration.passwordHashing = Argon2idParameters(memoryBytes: 1 << 20, iterations: 1)
        configuration.accessLog = false
        configuration.signingKeyGenerator = { $0 == .rs256 ? Self.rsaKey : try GatehouseCrypto.SigningKey.generate($0) }
        tweak(&configuration)
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let app = GatehouseApp(configuration: configuration, database: database, secrets: ServerSecrets(master: SecureRandom.bytes(32)),
                               log: ServerLog(sink: { _ in }), accessLogSink: { _ in })
        try await app.services.keys.ensureSigningKey()
        _ = try await app.services.tokens.registry.register(ClientRegistration(
            id: "sdk-app", name: "SDK App", kind: .public, redirectURIs: ["http://127.0.0.1/cb"],
            postLogoutRedirectURIs: [bye.absoluteString], grantTypes: ["authorization_code", "refresh_token", "password"],
            firstParty: true))
        let server = app.makeServer()
        _ = try server.start()
        let browser = BrowserLikeClient(SocketClient(port: port, timeoutSeconds: 60))
        let signUp = try await browser.submit("/sign-up", to: "/sign-up", [("email", email), ("password", password), ("name", "Sdk")])
        #expect(signUp.status == 303)
        // Only accounts with a confirmed address get tokens; confirming by mail is tested elsewhere.
        let user = try #require(try await database.users.find(email: email))
        _ = try await database.users.update(id: user.id, [.emailVerified(true)], at: Date())
        // A signed-in web session in this browser (what RP-initiated logout ends).
        if try await browser.get("/account").status != 200 {
            let signIn = try await browser.submit("/sign-in", to: "/sign-in", [("email", email), ("password", password)])
            #expect(signIn.status == 303)
        }
        return Live(app: app, server: server, port: port, browser: browser)
    }

    static func client(_ live: Live) async throws -> GatehouseClient.OAuthClient {
        try await GatehouseClient.OAuthClient.discover(issuer: live.issuer,
                                       configuration: ClientConfiguration(clientID: "sdk-app", redirectURI: URL(string: "http://127.0.0.1/cb")!),
                                       transport: URLSessionTransport(timeout: 60), signatureVerifier: OpenSSLIDTokenSignatureVerifier())
    }

    @Test func theStreamReportsSignInRefreshAndTheServerEndingTheSession() async throws {
        let live = try await Self.start()
        defer { Task { _ = await live.server.stop() } }
        let client = try await Self.client(live)
        let state = AuthState(client: client, store: InMemoryTokenStore())
        let events = EventLog(await state.events())

        try await state.signIn(username: Self.email, password: Self.password, scopes: ["openid", "offline_access"])
        let first = try #require(await state.currentTokens)
        let idToken = try #require(first.idToken)
        // The SDK verifies Gatehouse's default RS256 ID token with OpenSSL.
        let claims = try await client.validateIDToken(idToken, nonce: nil)
        #expect(claims.subject.isEmpty == false)

        // The API refused the access token: one refresh (rotation), reported on the stream.
        let fresh = try await state.freshAccessToken(rejected: first.accessToken)
        let second = try #require(await state.currentTokens)
        #expect(fresh == second.accessToken && second.refreshToken != first.refreshToken)

        // The server ends the session (here: the rotated-away refresh token is replayed, so reuse
        // detection revokes the family — as after a theft). The next refresh is invalid_grant.
        let replay = try await SocketClient(port: live.port, timeoutSeconds: 60).post("/oauth/token", form: [
            ("grant_type", "refresh_token"), ("refresh_token", first.refreshToken ?? ""), ("client_id", "sdk-app")])
        #expect(replay.status == 400)
        await #expect(throws: AuthStateError.self) { try await state.freshAccessToken(rejected: second.accessToken) }
        #expect(await state.status == .signedOut)
        #expect(kinds(await events.waitFor(count: 4)) == ["initial(nil)", "signedIn", "refreshed", "sessionEnded(invalid_grant)"])
        if case .sessionEnded(let error) = events.all.last { #expect(error?.httpStatus == 400) }

        // A second stream made now starts from the current (signed-out) state.
        let later = EventLog(await state.events())
        #expect(kinds(await later.waitFor(count: 1)) == ["initial(nil)"])
        events.stop(); later.stop()
    }

    @Test func endSessionSignsOutHereAndEndsTheWebSessionThroughTheDiscoveredEndpoint() async throws {
        let live = try await Self.start()
        defer { Task { _ = await live.server.stop() } }
        let client = try await Self.client(live)
        #expect(client.metadata.endSessionEndpoint == live.issuer.appendingPathComponent("oauth/logout"))
        let state = AuthState(client: client, store: InMemoryTokenStore())
        try await state.signIn(username: Self.email, password: Self.password, scopes: ["openid", "offline_access"])
        let tokens = try #require(await state.currentTokens)
        let events = EventLog(await state.events())
        #expect(try await live.browser.get("/account").status == 200, "the browser has a Gatehouse session")

        let end = try #require(try await state.endSession(postLogoutRedirectURI: Self.bye))
        #expect(await state.status == .signedOut)
        #expect(kinds(await events.waitFor(count: 2)) == ["initial", "signedOut"])
        let query = URLComponents(url: end.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.first { $0.name == "id_token_hint" }?.value == tokens.idToken)
        #expect(query.first { $0.name == "client_id" }?.value == "sdk-app")

        // The refresh token was revoked on the way out.
        let refresh = try await SocketClient(port: live.port, timeoutSeconds: 60).post("/oauth/token", form: [
            ("grant_type", "refresh_token"), ("refresh_token", tokens.refreshToken ?? ""), ("client_id", "sdk-app")])
        #expect(refresh.status == 400)

        // The browser opens the URL: the hint names this user, so the session ends at once and the
        // redirect back carries our state.
        let target = String(end.url.absoluteString.dropFirst(live.issuer.absoluteString.count))
        let logout = try await live.browser.get(target)
        #expect(logout.status == 303)
        let back = try #require(logout.headers["Location"].flatMap(URL.init(string:)))
        try end.validateCallback(back)
        #expect(throws: AuthorizationCallbackError.self) { try end.validateCallback(URL(string: "http://127.0.0.1/bye?state=forged")!) }
        #expect(try await live.browser.get("/account").status == 303, "the web session is over")
        events.stop()
    }
}
