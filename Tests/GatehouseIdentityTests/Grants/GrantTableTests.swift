import Foundation
import GatehouseIdentity
import GatehouseStore
import Testing

/// Each grant's rules as one table of cases over the in-memory store (the shape of
/// Ory Fosite's handler tests). A case prepares what it needs (a code, a token, a disabled account),
/// sends one token request, and names the one answer it expects.
@Suite struct GrantTableTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let expected: Expected
        /// Builds the request: (client, parameters), after any set-up of its own.
        let request: @Sendable (GrantFixture) async throws -> (client: String, parameters: [String: String])
        var testDescription: String { "\(name) → \(expected)" }
    }

    static func run(_ cases: [Case], resolver: (any ExternalIDTokenResolver)? = nil) async throws {
        for item in cases {
            let fixture = try await GrantFixture(resolver: resolver)
            let (client, parameters) = try await item.request(fixture)
            let problem = item.expected.check(await fixture.token(client, parameters))
            #expect(problem == nil, "\(item.name): expected \(item.expected), \(problem ?? "")")
        }
    }

    // MARK: authorization_code

    static let code: [Case] = [
        Case(name: "PKCE code, verifier and redirect", expected: .tokens(refresh: true)) { f in
            ("app", ["grant_type": "authorization_code", "code": try await f.code(), "redirect_uri": GrantFixture.redirect,
                     "code_verifier": GrantFixture.verifier])
        },
        Case(name: "wrong verifier", expected: .error(.invalidGrant)) { f in
            ("app", ["grant_type": "authorization_code", "code": try await f.code(), "redirect_uri": GrantFixture.redirect,
                     "code_verifier": String(repeating: "w", count: 43)])
        },
        Case(name: "verifier missing for a challenged code", expected: .error(.invalidGrant)) { f in
            ("app", ["grant_type": "authorization_code", "code": try await f.code(), "redirect_uri": GrantFixture.redirect])
        },
        Case(name: "verifier without a challenge", expected: .error(.invalidGrant)) { f in
            ("app", ["grant_type": "authorization_code", "code": try await f.code(challengeFor: nil), "redirect_uri": GrantFixture.redirect,
                     "code_verifier": GrantFixture.verifier])
        },
        Case(name: "redirect_uri differs", expected: .error(.invalidGrant)) { f in
            ("app", ["grant_type": "authorization_code", "code": try await f.code(), "redirect_uri": "com.example.app:/other",
                     "code_verifier": GrantFixture.verifier])
        },
        Case(name: "redirect_uri missing", expected: .error(.invalidRequest)) { f in
            ("app", ["grant_type": "authorization_code", "code": try await f.code(), "code_verifier": GrantFixture.verifier])
        },
        Case(name: "code of another client", expected: .error(.invalidGrant)) { f in
            ("web", ["grant_type": "authorization_code", "code": try await f.code(), "redirect_uri": GrantFixture.redirect,
                     "code_verifier": GrantFixture.verifier])
        },
        Case(name: "expired code", expected: .error(.invalidGrant)) { f in
            let code = try await f.code()
            f.advance(61)
            return ("app", ["grant_type": "authorization_code", "code": code, "redirect_uri": GrantFixture.redirect,
                            "code_verifier": GrantFixture.verifier])
        },
        Case(name: "unknown code", expected: .error(.invalidGrant)) { _ in
            ("app", ["grant_type": "authorization_code", "code": "not-a-code", "redirect_uri": GrantFixture.redirect,
                     "code_verifier": GrantFixture.verifier])
        },
        Case(name: "code missing", expected: .error(.invalidRequest)) { _ in
            ("app", ["grant_type": "authorization_code", "redirect_uri": GrantFixture.redirect])
        },
        Case(name: "replayed code (its tokens are revoked)", expected: .error(.invalidGrant)) { f in
            let parameters = ["grant_type": "authorization_code", "code": try await f.code(), "redirect_uri": GrantFixture.redirect,
                              "code_verifier": GrantFixture.verifier]
            let first = try await f.token("app", parameters).get()
            // The replay answers invalid_grant (the case's expectation) and revokes what the first use got.
            _ = await f.token("app", parameters)
            let refreshed = await f.token("app", ["grant_type": "refresh_token", "refresh_token": first.refreshToken ?? ""])
            #expect((try? refreshed.get()) == nil, "the first redemption's refresh token is revoked")
            return ("app", parameters)
        },
        Case(name: "disabled account", expected: .error(.invalidGrant)) { f in
            let code = try await f.code()
            try await f.disableUser()
            return ("app", ["grant_type": "authorization_code", "code": code, "redirect_uri": GrantFixture.redirect,
                            "code_verifier": GrantFixture.verifier])
        },
        Case(name: "client not registered for the grant", expected: .error(.unauthorizedClient)) { f in
            ("service", ["grant_type": "authorization_code", "code": try await f.code(client: "service"), "redirect_uri": GrantFixture.redirect])
        },
    ]

    @Test func authorizationCodeGrant() async throws { try await Self.run(Self.code) }

    // MARK: refresh_token

    static let refresh: [Case] = [
        Case(name: "fresh token rotates", expected: .tokens(refresh: true)) { f in
            ("app", ["grant_type": "refresh_token", "refresh_token": try await f.refreshToken()])
        },
        Case(name: "narrower scope", expected: .tokens(refresh: true)) { f in
            ("app", ["grant_type": "refresh_token", "refresh_token": try await f.refreshToken(), "scope": "openid"])
        },
        Case(name: "wider scope", expected: .error(.invalidScope)) { f in
            ("app", ["grant_type": "refresh_token", "refresh_token": try await f.refreshToken(scope: "openid offline_access"),
                     "scope": "openid offline_access email"])
        },
        Case(name: "rotated token used again (the family is revoked)", expected: .error(.invalidGrant)) { f in
            let old = try await f.refreshToken()
            let successor = try #require(try await f.token("app", ["grant_type": "refresh_token", "refresh_token": old]).get().refreshToken)
            f.advance(1)
            let reuse = await f.token("app", ["grant_type": "refresh_token", "refresh_token": old])
            #expect((try? reuse.get()) == nil)
            // The reuse revoked the whole family: the successor is dead too (the case's own request).
            return ("app", ["grant_type": "refresh_token", "refresh_token": successor])
        },
        Case(name: "token of another client", expected: .error(.invalidGrant)) { f in
            ("web", ["grant_type": "refresh_token", "refresh_token": try await f.refreshToken(client: "app")])
        },
        Case(name: "unknown token", expected: .error(.invalidGrant)) { _ in
            ("app", ["grant_type": "refresh_token", "refresh_token": "not-a-token"])
        },
        Case(name: "token missing", expected: .error(.invalidRequest)) { _ in ("app", ["grant_type": "refresh_token"]) },
        Case(name: "expired token", expected: .error(.invalidGrant)) { f in
            let token = try await f.refreshToken()
            f.advance(31 * 86_400)
            return ("app", ["grant_type": "refresh_token", "refresh_token": token])
        },
        Case(name: "disabled account", expected: .error(.invalidGrant)) { f in
            let token = try await f.refreshToken()
            try await f.disableUser()
            return ("app", ["grant_type": "refresh_token", "refresh_token": token])
        },
        Case(name: "client not registered for the grant", expected: .error(.unauthorizedClient)) { f in
            ("code-only", ["grant_type": "refresh_token", "refresh_token": try await f.refreshToken()])
        },
    ]

    @Test func refreshTokenGrant() async throws { try await Self.run(Self.refresh) }

    // MARK: password

    static func password(_ fixture: GrantFixture, password: String = GrantFixture.password, username: String? = nil) -> [String: String] {
        ["grant_type": "password", "username": username ?? fixture.user.email, "password": password]
    }

    static let passwordCases: [Case] = [
        Case(name: "right password, public first-party app", expected: .tokens(refresh: true)) { f in ("app", password(f)) },
        Case(name: "right password, confidential first-party", expected: .tokens(refresh: true)) { f in ("web", password(f)) },
        Case(name: "wrong password", expected: .error(.invalidGrant)) { f in ("app", password(f, password: "wrong password!!")) },
        Case(name: "unknown account", expected: .error(.invalidGrant)) { f in ("app", password(f, username: "nobody@example.test")) },
        Case(name: "third-party client (even when the store allows it)", expected: .error(.unauthorizedClient)) { f in ("partner", password(f)) },
        Case(name: "client not registered for the grant", expected: .error(.unauthorizedClient)) { f in ("code-only", password(f)) },
        Case(name: "username missing", expected: .error(.invalidRequest)) { f in
            ("app", ["grant_type": "password", "password": GrantFixture.password])
        },
        Case(name: "scope the client may not have", expected: .error(.invalidScope)) { f in
            ("app", password(f).merging(["scope": "openid api.read"]) { $1 })
        },
        Case(name: "disabled account", expected: .error(.invalidGrant)) { f in
            try await f.disableUser()
            return ("app", password(f))
        },
    ]

    @Test func passwordGrant() async throws { try await Self.run(Self.passwordCases) }

    // MARK: client_credentials

    static let clientCredentials: [Case] = [
        Case(name: "API scope, confidential client", expected: .tokens(refresh: false)) { _ in
            ("service", ["grant_type": "client_credentials", "scope": "api.read"])
        },
        Case(name: "default scope", expected: .tokens(refresh: false)) { _ in ("admin-service", ["grant_type": "client_credentials"]) },
        Case(name: "admin scope without being an admin client", expected: .error(.invalidScope)) { _ in
            ("service", ["grant_type": "client_credentials", "scope": "admin"])
        },
        Case(name: "OpenID scope (no user)", expected: .error(.invalidScope)) { _ in
            ("service", ["grant_type": "client_credentials", "scope": "openid"])
        },
        Case(name: "wrong secret", expected: .error(.invalidClient)) { f in
            let response = await f.token("service", ["grant_type": "client_credentials"], secret: "not-the-secret")
            #expect(Expected.error(.invalidClient).check(response) == nil)
            return ("nobody", ["grant_type": "client_credentials"])
        },
        Case(name: "public client", expected: .error(.unauthorizedClient)) { _ in ("app", ["grant_type": "client_credentials"]) },
        Case(name: "client not registered for the grant", expected: .error(.unauthorizedClient)) { _ in
            ("code-only", ["grant_type": "client_credentials"])
        },
    ]

    @Test func clientCredentialsGrant() async throws { try await Self.run(Self.clientCredentials) }

    // MARK: token exchange (RFC 8693, native ID tokens)

    /// Accepts the subject token `good` as the fixture's user; refuses anything else as the real resolvers do.
    struct Resolver: ExternalIDTokenResolver {
        func resolve(idToken: String, rawNonce: String, client: OAuthClient, context: ClientContext) async throws -> (user: User, method: String) {
            guard idToken == "good", rawNonce == "nonce" else { throw OAuthError.invalidGrant("The identity token does not verify.") }
            return (User(id: "u1", email: "ada@example.test", emailVerified: true, createdAt: Date(timeIntervalSince1970: 0)), "apple")
        }
    }

    static func exchange(_ overrides: [String: String] = [:]) -> [String: String] {
        ["grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "subject_token": "good",
         "subject_token_type": "urn:ietf:params:oauth:token-type:id_token", "raw_nonce": "nonce"].merging(overrides) { $1 }
    }

    static let tokenExchange: [Case] = [
        Case(name: "verified ID token, first-party app", expected: .tokens(refresh: true)) { _ in ("app", exchange()) },
        Case(name: "the resolver refuses the token", expected: .error(.invalidGrant)) { _ in ("app", exchange(["subject_token": "forged"])) },
        Case(name: "wrong subject_token_type", expected: .error(.invalidRequest)) { _ in
            ("app", exchange(["subject_token_type": "urn:ietf:params:oauth:token-type:access_token"]))
        },
        Case(name: "requested_token_type other than an access token", expected: .error(.invalidRequest)) { _ in
            ("app", exchange(["requested_token_type": "urn:ietf:params:oauth:token-type:refresh_token"]))
        },
        Case(name: "actor_token (no delegation)", expected: .error(.invalidRequest)) { _ in ("app", exchange(["actor_token": "x"])) },
        Case(name: "raw_nonce missing", expected: .error(.invalidRequest)) { _ in ("app", exchange(["raw_nonce": ""])) },
        Case(name: "scope the client may not have", expected: .error(.invalidScope)) { _ in ("app", exchange(["scope": "openid api.read"])) },
        Case(name: "third-party client without the user's consent", expected: .error(.accessDenied)) { _ in ("partner", exchange()) },
        Case(name: "client not registered for the grant", expected: .error(.unauthorizedClient)) { _ in ("web", exchange()) },
    ]

    @Test func tokenExchangeGrant() async throws { try await Self.run(Self.tokenExchange, resolver: Resolver()) }

    @Test func tokenExchangeWithoutAResolverIsUnsupported() async throws {
        let fixture = try await GrantFixture(resolver: nil)
        #expect(Expected.error(.unsupportedGrantType).check(await fixture.token("app", Self.exchange())) == nil)
    }
}
