import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatehouseClient
import GatehouseCrypto
import GatehouseHTTP
import GatehouseHTTPServer
import GatehouseProviderSimulator
import GatehouseTesting
import Testing

/// The SDK against the GitHub simulator over a real socket: GitHub answers token errors with HTTP 200
/// and an `error` member, and issues no refresh token; the SDK must surface both honestly.
@Suite(.serialized) struct GitHubSimulatorSDKTests {
    static let secret = "github-sim-secret-0123456789abcdef"
    static let redirect = URL(string: "http://127.0.0.1/cb")!

    struct Setup {
        let server: HTTPServer
        let port: UInt16
        let client: OAuthClient
        var base: String { "http://127.0.0.1:\(port)" }
    }

    /// Apple's and Google's simulators need an RSA key too; one for the run is enough here.
    static let simulatorKey = try! RSASigningKey.generate()

    static func start(secret: String = secret) async throws -> Setup {
        let simulator = try ProviderSimulator(configuration: .init(
            baseURL: "http://127.0.0.1", pathPrefix: "",
            githubClients: [GitHubClient(clientID: "gh-app", clientSecret: Self.secret, redirectURIs: [redirect.absoluteString])],
            appleSigningKey: simulatorKey, googleSigningKey: simulatorKey))
        let server = HTTPServer(pipeline: RequestPipeline(router: simulator.makeRouter()),
                                configuration: HTTPServerConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0)))
        let port = try server.start()
        let base = "http://127.0.0.1:\(port)"
        let metadata = ProviderMetadata(issuer: nil, authorizationEndpoint: URL(string: base + "/github/login/oauth/authorize")!,
                                        tokenEndpoint: URL(string: base + "/github/login/oauth/access_token")!)
        let client = OAuthClient(metadata: metadata,
                                 configuration: ClientConfiguration(clientID: "gh-app", redirectURI: redirect,
                                                                    authentication: .clientSecretPost(secret)),
                                 transport: URLSessionTransport(timeout: 60), signatureVerifier: nil)
        return Setup(server: server, port: port, client: client)
    }

    /// Plays the user at GitHub's consent page and returns the callback URL carrying the code.
    static func authorize(_ setup: Setup, _ request: AuthorizationRequest) async throws -> URL {
        let socket = SocketClient(port: setup.port, timeoutSeconds: 60)
        let target = String(request.url.absoluteString.dropFirst(setup.base.count))
        let page = try await socket.get(target)
        #expect(page.status == 200)
        var fields = HTMLForm.hiddenFields(page.text)
        fields += [("email", "octo@example.com"), ("name", "Octo Cat"), ("action", "allow")]
        let answer = try await socket.post(HTMLForm.formAction(page.text) ?? "", form: fields)
        return try #require(answer.headers["Location"].flatMap(URL.init(string:)))
    }

    @Test func signInWorksWithoutARefreshTokenAndErrorsIn200AreThrown() async throws {
        let setup = try await Self.start()
        defer { Task { _ = await setup.server.stop() } }
        let state = AuthState(client: setup.client, store: InMemoryTokenStore())
        let events = EventLog(await state.events())
        let request = setup.client.authorizationRequest(scopes: ["read:user", "user:email"], includeNonce: false)
        let callback = try await Self.authorize(setup, request)

        let result = try await state.signIn(callbackURL: callback, request: request)
        #expect(result.tokens.accessToken.hasPrefix("gho_"))
        #expect(result.tokens.refreshToken == nil, "GitHub issues no refresh token")
        let tokens = try #require(await state.currentTokens)
        #expect(tokens.expiresAt == nil && tokens.refreshToken == nil)
        #expect(try await state.freshAccessToken() == tokens.accessToken, "an unexpiring token is used as is")

        // The same code again: GitHub says 200 {"error":"bad_verification_code"} — an error, not tokens.
        await #expect {
            _ = try await setup.client.exchangeCode(try request.parseCallback(callback), for: request)
        } throws: { error in
            let oauth = error as? OAuthError
            return oauth?.code == .other("bad_verification_code") && oauth?.httpStatus == 200 && oauth?.errorDescription != nil
        }

        // The API refused the token (revoked at GitHub): nothing to refresh with, so the session ends.
        await #expect(throws: AuthStateError.signedOut) { try await state.freshAccessToken(rejected: tokens.accessToken) }
        #expect(await state.status == .signedOut)
        #expect(kinds(await events.waitFor(count: 3)) == ["initial(nil)", "signedIn", "sessionEnded(nil)"])
        events.stop()
    }

    @Test func wrongClientCredentialsAreAnErrorDespiteStatus200() async throws {
        let setup = try await Self.start(secret: "not-the-secret-0123456789abcdefgh")
        defer { Task { _ = await setup.server.stop() } }
        let state = AuthState(client: setup.client, store: InMemoryTokenStore())
        let request = setup.client.authorizationRequest(scopes: ["read:user"], includeNonce: false)
        let callback = try await Self.authorize(setup, request)
        await #expect {
            try await state.signIn(callbackURL: callback, request: request)
        } throws: { error in
            (error as? OAuthError)?.code == .other("incorrect_client_credentials") && (error as? OAuthError)?.httpStatus == 200
        }
        #expect(await state.status == .signedOut, "no tokens were stored")
    }
}
