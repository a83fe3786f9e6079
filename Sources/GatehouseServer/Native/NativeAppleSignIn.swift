import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore

/// Native Sign in with Apple (flow F3), shared by `POST /native/apple` and the RFC 8693 token-exchange
/// grant: verify the identity token for one native app, optionally redeem the authorization code as
/// the app (for Apple's refresh token, sealed for revocation), then find/create/link the user through
/// the same ``ExternalIdentityService`` as the web flow. Every check runs before the first write.
struct NativeAppleSignIn: Sendable {
    typealias Failure = NativeSignInFailure

    /// What a successful sign-in yields.
    struct Outcome: Sendable {
        let user: User
        let created: Bool
    }

    let apple: AppleProvider?
    let apps: NativeAppDirectory
    let linker: ExternalIdentityService
    let sealing: KeyEncryptionKey
    let audit: AuditTrail
    /// One sign-in per identity token, in every process (issue 14, item 7).
    let replay: SubjectTokenReplayGuard

    /// The native app `clientID` names, or a refusal (unknown, not native, or no Apple audience).
    func app(_ clientID: String?) async throws -> NativeApp {
        guard let clientID, !clientID.isEmpty else { throw Failure(status: 400, code: .invalidRequest, description: "The app parameter is missing.", reason: "missing_app") }
        guard let app = try await apps.app(clientID) else {
            throw Failure(status: 400, code: .invalidClient, description: "\(clientID.prefix(80)) is not a registered native app.", reason: "unknown_app")
        }
        guard !app.appleAudiences.isEmpty else {
            throw Failure(status: 400, code: .invalidClient, description: "This app has no bundle id registered for Sign in with Apple.",
                          reason: "no_apple_audience")
        }
        return app
    }

    /// Verifies, redeems (when `authorizationCode` is given) and links. `name` is the app-supplied name,
    /// used only when the account is created or the identity has none yet.
    func signIn(identityToken: String, authorizationCode: String?, rawNonce: String, name: String?, app: NativeApp,
                context: ClientContext) async throws -> Outcome {
        guard let apple else {
            throw Failure(status: 400, code: .unsupportedProvider, description: "Sign in with Apple is not enabled on this server.",
                          reason: "apple_disabled")
        }
        let identity: NativeAppleIdentity
        var refreshToken: String?
        do {
            identity = try await apple.verifyNativeIdentityToken(identityToken, audiences: app.appleAudiences, rawNonce: rawNonce)
            // Verified, so its exp is Apple's: remember the token until then; a second use is refused
            // before Apple is called or anything is written.
            guard try await replay.firstUse(of: identityToken, expiresAt: SubjectTokenReplayGuard.expiry(ofVerifiedJWT: identityToken)) else {
                throw Failure(status: 400, code: .invalidGrant, description: "This identity token was already used; sign in with Apple again.",
                              reason: "token_replayed")
            }
            if let authorizationCode {
                refreshToken = try await apple.redeemNativeCode(authorizationCode, bundleID: identity.audience, expectedSubject: identity.subject)
            }
        } catch let error as ProviderError {
            throw Self.failure(error, redeeming: authorizationCode != nil)
        }
        let sealed = try refreshToken.map {
            try sealing.seal(Array($0.utf8), keyID: ProviderFlowStore.tokenLabel(provider: apple.id, subject: identity.subject))
        }
        var flow = ProviderFlow(provider: apple.id, platform: .native, redirectURI: "")
        flow.native = ["app": app.clientID]
        let ticket = ProviderFlowStore.Ticket(flow: flow, provider: apple.id, subject: identity.subject, email: identity.email,
                                              emailVerified: identity.emailVerified, isPrivateRelay: identity.isPrivateRelay,
                                              name: name, sealedRefreshToken: sealed,
                                              // Apple revokes a token only when asked by the bundle id it was issued to.
                                              tokenClientID: sealed == nil ? nil : identity.audience)
        switch try await linker.resolve(ticket.identity, linkTo: nil, signedInUserId: nil, context: context) {
        case .signIn(let user, let created):
            await audit.record(.signInSucceeded, userId: user.id, context: context,
                               details: ["method": apple.id, "via": "native_apple", "app": app.clientID])
            return Outcome(user: user, created: created)
        case .linked(let user):   // not reachable for a sign-in intent; treated as a sign-in all the same
            return Outcome(user: user, created: false)
        case .refused(let refusal, _, let email):
            throw Failure(refusal, message: refusal.message(label: apple.displayName, email: email))
        }
    }

    /// Records a refusal (the only write a failed attempt makes).
    func audit(_ failure: Failure, app: String?, context: ClientContext) async {
        await audit.record(.providerSignInFailed, userId: nil, context: context,
                           details: ["provider": "apple", "via": "native_apple", "reason": failure.reason, "app": app ?? ""])
    }

    /// Maps a provider error to a refusal naming the failed check.
    static func failure(_ error: ProviderError, redeeming: Bool) -> Failure {
        switch error {
        case .nonceMismatch:
            return Failure(status: 401, code: .invalidToken, description: "The identity token's nonce is not the SHA-256 of raw_nonce.",
                           reason: error.auditReason)
        case .invalidToken(let why):
            let description = switch why {
            case .expired: "The identity token has expired."
            case .audience: "The identity token was issued to another app (aud)."
            case .issuer: "The identity token was not issued by Apple (iss)."
            case .unknownKey, .signature: "The identity token's signature does not verify against Apple's keys."
            case .codeSubject: "The authorization code belongs to another sign-in."
            case .time: "The identity token is not valid yet."
            default: "The identity token is malformed or incomplete."
            }
            return Failure(status: why == .codeSubject ? 400 : 401, code: why == .codeSubject ? .invalidGrant : .invalidToken,
                           description: description, reason: error.auditReason)
        case .providerError, .invalidCallback:
            return Failure(status: 400, code: .invalidGrant, description: "Apple refused the authorization code (expired, used or for another app).",
                           reason: error.auditReason)
        case .unavailable, .timedOut:
            return Failure(status: 503, code: .temporarilyUnavailable, description: "Apple could not be reached; try again.",
                           reason: error.auditReason)
        case .misconfigured:
            return Failure(status: 503, code: .temporarilyUnavailable, description: "Sign in with Apple is misconfigured on this server.",
                           reason: error.auditReason)
        default:
            return Failure(status: 400, code: redeeming ? .invalidGrant : .invalidToken, description: error.userMessage,
                           reason: error.auditReason)
        }
    }
}

/// The token-exchange grant's view: the same sign-in without a code (so no new Apple refresh token),
/// failures as RFC 6749 errors.
extension NativeAppleSignIn: ExternalIDTokenResolver {
    func resolve(idToken: String, rawNonce: String, client: OAuthClient, context: ClientContext) async throws -> (user: User, method: String) {
        try await resolve(idToken: idToken, rawNonce: rawNonce, name: nil, client: client, context: context)
    }

    func resolve(idToken: String, rawNonce: String, name: String?, client: OAuthClient, context: ClientContext) async throws
        -> (user: User, method: String)
    {
        do {
            guard let app = NativeApp(client: client), !app.appleAudiences.isEmpty else {
                throw Failure(status: 400, code: .unauthorizedClient, description: "This client is not a native app with a bundle id.",
                              reason: "not_native_app")
            }
            let outcome = try await signIn(identityToken: idToken, authorizationCode: nil, rawNonce: rawNonce, name: name, app: app,
                                           context: context)
            return (outcome.user, apple?.id ?? "apple")
        } catch let failure as Failure {
            await audit(failure, app: client.id, context: context)
            throw Self.oauthError(failure)
        }
    }

    static func oauthError(_ failure: Failure) -> OAuthError { failure.oauthError }
}

extension ProviderWiring {
    /// Native Sign in with Apple over this wiring's Apple provider, sealing key and account rules.
    func nativeAppleSignIn(clients: ClientRegistry) -> NativeAppleSignIn {
        let linker = makeLinker()
        return NativeAppleSignIn(apple: registry.apple, apps: NativeAppDirectory(registry: clients), linker: linker,
                                 sealing: flows.sealing, audit: audit,
                                 replay: SubjectTokenReplayGuard(store: database.flowStates, clock: clock))
    }
}
