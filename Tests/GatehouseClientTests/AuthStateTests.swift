import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatehouseClient
import Synchronization
import Testing

@Suite struct AuthStateTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A token endpoint that rotates: refresh token rt-N becomes rt-(N+1) with access token at-(N+1).
    private func rotatingTransport(delay: Duration = .milliseconds(50)) -> StubTransport {
        StubTransport { request in
            guard request.url?.path == "/oauth/token" else { return .json(404, "{}") }
            try await Task.sleep(for: delay)
            let old = request.formFields["refresh_token"] ?? "rt-0"
            let next = (Int(old.dropFirst(3)) ?? 0) + 1
            return .json(#"{"access_token":"at-\#(next)","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-\#(next)"}"#)
        }
    }

    private func state(_ transport: StubTransport, store: any TokenStore, expiresIn: TimeInterval = 10) async throws -> AuthState {
        let auth = AuthState(client: Fixtures.oauthClient(transport, now: now), store: store)
        try await store.save(TokenSet(accessToken: "at-0", expiresAt: now.addingTimeInterval(expiresIn), refreshToken: "rt-0"))
        try await auth.restore()
        return auth
    }

    @Test func validTokenUsedWithoutRefresh() async throws {
        let transport = rotatingTransport()
        let auth = try await state(transport, store: InMemoryTokenStore(), expiresIn: 3600)
        let token = try await auth.withFreshAccessToken { $0 }
        #expect(token == "at-0")
        #expect(transport.requests.isEmpty)
    }

    @Test func singleFlightRefreshUnder100ConcurrentCallers() async throws {
        let transport = rotatingTransport()
        let store = InMemoryTokenStore()
        let auth = try await state(transport, store: store) // expires in 10 s < 60 s margin
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await auth.withFreshAccessToken { $0 } } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(transport.count(path: "/oauth/token") == 1)
        #expect(tokens.count == 100)
        #expect(Set(tokens) == ["at-1"])
    }

    @Test func rotatedRefreshTokenStored() async throws {
        let transport = rotatingTransport(delay: .zero)
        let store = InMemoryTokenStore()
        let auth = try await state(transport, store: store)
        _ = try await auth.freshAccessToken()
        #expect(await store.load()?.refreshToken == "rt-1")
        #expect(await store.load()?.accessToken == "at-1")
        // The next forced refresh must present the rotated token, not the original.
        _ = try await auth.freshAccessToken(rejected: "at-1")
        #expect(transport.requests.last?.formFields["refresh_token"] == "rt-1")
        #expect(await store.load()?.refreshToken == "rt-2")
    }

    @Test func refreshWithoutRotationKeepsOldRefreshToken() async throws {
        let transport = StubTransport { _ in .json(#"{"access_token":"at-new","token_type":"Bearer","expires_in":3600}"#) }
        let store = InMemoryTokenStore()
        let auth = try await state(transport, store: store)
        #expect(try await auth.freshAccessToken() == "at-new")
        #expect(await store.load()?.refreshToken == "rt-0")
    }

    @Test func invalidGrantSignsOutAndClearsStorage() async throws {
        let transport = StubTransport { _ in .json(400, #"{"error":"invalid_grant","error_description":"refresh token reused"}"#) }
        let store = InMemoryTokenStore()
        let auth = try await state(transport, store: store)
        await #expect(throws: AuthStateError.sessionEnded(OAuthError(code: .invalidGrant, description: "refresh token reused", httpStatus: 400))) {
            try await auth.withFreshAccessToken { $0 }
        }
        #expect(await auth.status == .signedOut)
        #expect(await store.load() == nil)
        await #expect(throws: AuthStateError.signedOut) { try await auth.freshAccessToken() }
        #expect(transport.requests.count == 1)
    }

    @Test func otherRefreshErrorsKeepTheSession() async throws {
        let transport = StubTransport { _ in .json(503, #"{"error":"temporarily_unavailable"}"#) }
        let store = InMemoryTokenStore()
        let auth = try await state(transport, store: store)
        await #expect(throws: OAuthError.self) { try await auth.freshAccessToken() }
        #expect(await auth.status == .signedIn)
        #expect(await store.load() != nil)
    }

    @Test func unauthorizedTriggersExactlyOneRefreshAndOneRetry() async throws {
        let transport = StubTransport { request in
            if request.url?.path == "/oauth/token" {
                return .json(#"{"access_token":"at-1","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-1"}"#)
            }
            let authorized = request.value(forHTTPHeaderField: "Authorization") == "Bearer at-1"
            return .json(authorized ? 200 : 401, authorized ? #"{"ok":true}"# : "{}")
        }
        let auth = try await state(transport, store: InMemoryTokenStore(), expiresIn: 3600)
        let api = AuthorizedHTTPClient(authState: auth, transport: transport)
        let (_, response) = try await api.send(URLRequest(url: URL(string: "https://api.example.com/me")!))
        #expect(response.statusCode == 200)
        #expect(transport.count(path: "/oauth/token") == 1)
        #expect(transport.count(path: "/me") == 2)
        #expect(transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") }.compactMap { $0 } == ["Bearer at-0", "Bearer at-1"])
    }

    @Test func persistent401IsReturnedNotLooped() async throws {
        let transport = StubTransport { request in
            if request.url?.path == "/oauth/token" {
                return .json(#"{"access_token":"at-1","token_type":"Bearer","expires_in":3600}"#)
            }
            return .json(401, "{}")
        }
        let auth = try await state(transport, store: InMemoryTokenStore(), expiresIn: 3600)
        let (_, response) = try await AuthorizedHTTPClient(authState: auth, transport: transport).send(URLRequest(url: URL(string: "https://api.example.com/me")!))
        #expect(response.statusCode == 401)
        #expect(transport.count(path: "/oauth/token") == 1)
        #expect(transport.count(path: "/me") == 2)
    }

    @Test func concurrent401sShareOneRefresh() async throws {
        let transport = StubTransport { request in
            if request.url?.path == "/oauth/token" {
                try await Task.sleep(for: .milliseconds(30))
                return .json(#"{"access_token":"at-1","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-1"}"#)
            }
            return .json(request.value(forHTTPHeaderField: "Authorization") == "Bearer at-1" ? 200 : 401, "{}")
        }
        let auth = try await state(transport, store: InMemoryTokenStore(), expiresIn: 3600)
        let api = AuthorizedHTTPClient(authState: auth, transport: transport)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await api.send(URLRequest(url: URL(string: "https://api.example.com/me")!)).1.statusCode } }
            for try await status in group { #expect(status == 200) }
        }
        #expect(transport.count(path: "/oauth/token") == 1)
    }

    @Test func signOutClearsAndRevokes() async throws {
        let transport = StubTransport { _ in .json("") }
        let store = InMemoryTokenStore()
        let auth = try await state(transport, store: store, expiresIn: 3600)
        try await auth.signOut()
        #expect(await auth.status == .signedOut)
        #expect(await store.load() == nil)
        #expect(transport.requests.first?.formFields["token"] == "rt-0")
    }

    @Test func passwordSignInStoresTokens() async throws {
        let transport = StubTransport { _ in .json(#"{"access_token":"at-p","token_type":"Bearer","expires_in":60,"refresh_token":"rt-p"}"#) }
        let store = InMemoryTokenStore()
        let auth = AuthState(client: Fixtures.oauthClient(transport, now: now), store: store)
        #expect(await auth.status == .signedOut)
        try await auth.signIn(username: "ann", password: "pw")
        #expect(await auth.status == .signedIn)
        #expect(await store.load() == TokenSet(accessToken: "at-p", expiresAt: now.addingTimeInterval(60), refreshToken: "rt-p"))
        #expect(transport.requests.first?.formFields["grant_type"] == "password")
    }
}
