import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import Testing

/// `NativeSignIn`'s rules as one table (the grants' shape): a case prepares the store, posts one token
/// through the use case and names the one answer it expects. The verifier is a stand-in for the
/// provider's port, so every branch of the use case — app, audience, replay, account rules, audit — is
/// reached without a provider; the providers' own checks are tested in GatehouseProvidersTests.
@Suite struct NativeSignInTableTests {
    /// The port's stand-in: a token is `<subject>.<email>.<verified>` under a JWT-shaped envelope, or
    /// `bad` (the provider refuses it).
    struct StandInVerifier: NativeTokenVerifier {
        struct Refused: Error {}
        /// Google's kind: the app's `google_client_ids` are its audiences, `google` its reasons' spelling.
        static let kind = NativeProviderKind.google
        var provider: (id: String, displayName: String) { ("standin", "Stand-in") }

        func verify(_ token: String, audiences: [String], rawNonce: String) async throws -> [String] {
            let parts = Self.claims(token)
            guard parts.count == 3, rawNonce == "nonce" else { throw Refused() }
            return parts
        }

        func identity(_ verified: [String], authorizationCode: String?, name: String?) async throws -> VerifiedExternalIdentity {
            VerifiedExternalIdentity(provider: "standin", subject: verified[0], email: verified[1],
                                     emailVerified: verified[2] == "true", isPrivateRelay: false, name: name)
        }

        func failure(for error: any Error, redeeming: Bool) -> NativeSignInFailure? {
            error is Refused ? NativeSignInFailure(status: 401, code: .invalidToken, description: "refused", reason: "refused") : nil
        }

        /// A JWT-shaped token (so the replay guard reads an `exp`) carrying `subject.email.verified`.
        static func token(_ subject: String, _ email: String, verified: Bool = true) -> String {
            let payload = #"{"exp":4102444800,"sub":"\#(subject)|\#(email)|\#(verified)"}"#
            return "e30." + Base64URL.encode(Array(payload.utf8)) + ".sig"
        }

        static func claims(_ token: String) -> [String] {
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
                  let claims = try? JWTClaims(json: payload), let sub = claims.all["sub"]?.stringValue else { return [] }
            return sub.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        }
    }

    enum Expected: Sendable, CustomStringConvertible {
        case signedIn(created: Bool)
        case refused(String)

        var description: String {
            switch self {
            case .signedIn(let created): "signed in (created: \(created))"
            case .refused(let reason): "refused: \(reason)"
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var enabled = true
        var app = "app"
        let expected: Expected
        /// Set-up, then the token to post.
        let prepare: @Sendable (any GatehouseDatabase, NativeSignIn<StandInVerifier>) async throws -> String
        var testDescription: String { "\(name) → \(expected)" }
    }

    static let context = ClientContext(ip: "192.0.2.1", userAgent: "native-tests")

    static let cases: [Case] = [
        Case(name: "a new verified identity creates the account", expected: .signedIn(created: true)) { _, _ in
            StandInVerifier.token("s1", "new@example.test")
        },
        Case(name: "a known identity signs in", expected: .signedIn(created: false)) { _, signIn in
            let first = StandInVerifier.token("s1", "new@example.test")
            _ = try await signIn.signIn(token: first, authorizationCode: nil, rawNonce: "nonce", name: nil,
                                        app: try await signIn.app("app"), context: context)
            return StandInVerifier.token("s1", "other@example.test")
        },
        Case(name: "the same token twice", expected: .refused("token_replayed")) { _, signIn in
            let token = StandInVerifier.token("s1", "new@example.test")
            _ = try await signIn.signIn(token: token, authorizationCode: nil, rawNonce: "nonce", name: nil,
                                        app: try await signIn.app("app"), context: context)
            return token
        },
        Case(name: "the provider refuses the token", expected: .refused("refused")) { _, _ in "bad" },
        Case(name: "an unverified email", expected: .refused(ExternalSignInRefusal.unverifiedEmail.reason)) { _, _ in
            StandInVerifier.token("s2", "new@example.test", verified: false)
        },
        Case(name: "the email of an existing account", expected: .refused(ExternalSignInRefusal.accountExists(confirmed: true).reason)) { db, _ in
            let now = Date()
            try await db.users.create(User(id: "u1", email: "ada@example.test", displayName: nil, passwordHash: "x",
                                           emailVerified: true, disabled: false, createdAt: now, updatedAt: now))
            return StandInVerifier.token("s3", "ada@example.test")
        },
        Case(name: "the provider is not enabled", enabled: false, expected: .refused("google_disabled")) { _, _ in
            StandInVerifier.token("s1", "new@example.test")
        },
        Case(name: "an app that is not registered", app: "nope", expected: .refused("unknown_app")) { _, _ in
            StandInVerifier.token("s1", "new@example.test")
        },
        Case(name: "an app without this provider's ids", app: "apple-only", expected: .refused("no_google_audience")) { _, _ in
            StandInVerifier.token("s1", "new@example.test")
        },
    ]

    @Test(arguments: cases)
    func nativeSignIn(_ item: Case) async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let audit = AuditTrail(store: database.auditLog)
        let registry = ClientRegistry(store: database.oauthClients)
        _ = try await registry.register(ClientRegistration(id: "app", name: "App", kind: .public, redirectURIs: ["com.example.app:/cb"],
                                                           metadata: #"{"callback_schemes":["com.example.app"],"google_client_ids":["g1"]}"#))
        _ = try await registry.register(ClientRegistration(id: "apple-only", name: "Apple only", kind: .public, redirectURIs: ["com.example.b:/cb"],
                                                           metadata: #"{"callback_schemes":["com.example.b"],"bundle_ids":["com.example.b"]}"#))
        let signIn = NativeSignIn(verifier: item.enabled ? StandInVerifier() : nil,
                                  apps: NativeAppDirectory(registry: registry),
                                  linker: ExternalIdentityService(identities: database.externalIdentities, users: database.users, clock: .system, audit: audit, linkVerifiedEmails: false,
                                                                  trustsEmail: { _ in true }),
                                  audit: audit, replay: SubjectTokenReplayGuard(store: database.flowStates))
        let token = try await item.prepare(database, signIn)
        let usersBefore = try await database.users.count()
        let answer: Result<NativeSignIn<StandInVerifier>.Outcome, NativeSignInFailure>
        do {
            let app = try await signIn.app(item.app)
            answer = .success(try await signIn.signIn(token: token, authorizationCode: nil, rawNonce: "nonce", name: "Ada", app: app,
                                                      context: Self.context))
        } catch let failure as NativeSignInFailure {
            answer = .failure(failure)
        }
        switch (item.expected, answer) {
        case (.signedIn(let created), .success(let outcome)):
            #expect(outcome.created == created)
            #expect(try await database.users.count() == usersBefore + (created ? 1 : 0))
            let events = try await database.auditLog.list(userId: outcome.user.id, limit: 10)
            #expect(events.contains { $0.event.type == AuditEventType.signInSucceeded.rawValue && $0.event.details.contains("native_google") })
        case (.refused(let reason), .failure(let failure)):
            #expect(failure.reason == reason)
            // A refusal writes nothing: no account appears.
            #expect(try await database.users.count() == usersBefore)
        default:
            Issue.record("\(item.name): expected \(item.expected), got \(answer)")
        }
        await database.close()
    }

    /// The token-exchange view: a client that is not a native app for this provider is an RFC 6749 error.
    @Test func tokenExchangeRefusesAClientThatIsNotANativeApp() async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let audit = AuditTrail(store: database.auditLog)
        let registry = ClientRegistry(store: database.oauthClients)
        let web = try await registry.register(ClientRegistration(id: "web", name: "Web", kind: .public, redirectURIs: ["https://web.example.test/cb"]))
        let signIn = NativeSignIn(verifier: StandInVerifier(), apps: NativeAppDirectory(registry: registry),
                                  linker: ExternalIdentityService(identities: database.externalIdentities, users: database.users, clock: .system, audit: audit, linkVerifiedEmails: false,
                                                                  trustsEmail: { _ in true }),
                                  audit: audit, replay: SubjectTokenReplayGuard(store: database.flowStates))
        do {
            _ = try await signIn.resolve(idToken: StandInVerifier.token("s1", "a@example.test"), rawNonce: "nonce", client: web.client,
                                         context: Self.context)
            Issue.record("a web client must not exchange a native token")
        } catch let error as OAuthError {
            #expect(error.code == .unauthorizedClient)
        }
        await database.close()
    }
}
