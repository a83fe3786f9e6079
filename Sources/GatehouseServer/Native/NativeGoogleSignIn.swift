import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore

/// Native Google sign-in (#13.4), shared by `POST /native/google` and the RFC 8693 token exchange: verify
/// the ID token from Google's native SDK for one native app (its `google_client_ids`), then find, create or
/// link the user through the same ``ExternalIdentityService`` as the web flow. Every check runs before the
/// first write. Mirrors ``NativeAppleSignIn`` (no authorization code: Google's SDKs give the app none to
/// forward for sign-in).
struct NativeGoogleSignIn: Sendable {
    let google: OIDCProvider?
    let apps: NativeAppDirectory
    let linker: ExternalIdentityService
    let audit: AuditTrail
    /// One sign-in per ID token, in every process (issue 14, item 7), as for Apple.
    let replay: SubjectTokenReplayGuard

    typealias Failure = NativeSignInFailure
    typealias Outcome = NativeAppleSignIn.Outcome

    /// The native app `clientID` names, or a refusal (unknown, not native, or no Google client id).
    func app(_ clientID: String?) async throws -> NativeApp {
        guard let clientID, !clientID.isEmpty else { throw Failure(status: 400, code: .invalidRequest, description: "The app parameter is missing.", reason: "missing_app") }
        guard let app = try await apps.app(clientID) else {
            throw Failure(status: 400, code: .invalidClient, description: "\(clientID.prefix(80)) is not a registered native app.", reason: "unknown_app")
        }
        guard !app.googleClientIDs.isEmpty else {
            throw Failure(status: 400, code: .invalidClient, description: "This app has no Google client id registered (google_client_ids).",
                          reason: "no_google_audience")
        }
        return app
    }

    func signIn(idToken: String, rawNonce: String, app: NativeApp, context: ClientContext) async throws -> Outcome {
        guard let google else {
            throw Failure(status: 400, code: .unsupportedProvider, description: "Sign in with Google is not enabled on this server.",
                          reason: "google_disabled")
        }
        let profile: ExternalProfile
        do {
            profile = try await google.verifyNativeIDToken(idToken, audiences: app.googleClientIDs, rawNonce: rawNonce)
            guard try await replay.firstUse(of: idToken, expiresAt: SubjectTokenReplayGuard.expiry(ofVerifiedJWT: idToken)) else {
                throw Failure(status: 400, code: .invalidGrant, description: "This ID token was already used; sign in with Google again.",
                              reason: "token_replayed")
            }
        } catch let error as ProviderError {
            throw Self.failure(error)
        }
        var flow = ProviderFlow(provider: google.id, platform: .native, redirectURI: "")
        flow.native = ["app": app.clientID]
        let ticket = ProviderFlowStore.Ticket(flow: flow, provider: google.id, subject: profile.subject, email: profile.email,
                                              emailVerified: profile.emailVerified, isPrivateRelay: false, name: profile.name,
                                              sealedRefreshToken: nil)
        switch try await linker.resolve(ticket.identity, linkTo: nil, signedInUserId: nil, context: context) {
        case .signIn(let user, let created):
            await audit.record(.signInSucceeded, userId: user.id, context: context,
                               details: ["method": google.id, "via": "native_google", "app": app.clientID])
            return Outcome(user: user, created: created)
        case .linked(let user):
            return Outcome(user: user, created: false)
        case .refused(let refusal, _, let email):
            throw Failure(refusal, message: refusal.message(label: google.displayName, email: email))
        }
    }

    func audit(_ failure: Failure, app: String?, context: ClientContext) async {
        await audit.record(.providerSignInFailed, userId: nil, context: context,
                           details: ["provider": "google", "via": "native_google", "reason": failure.reason, "app": app ?? ""])
    }

    static func failure(_ error: ProviderError) -> Failure {
        switch error {
        case .nonceMismatch:
            return Failure(status: 401, code: .invalidToken, description: "The ID token's nonce is not the SHA-256 of raw_nonce.",
                           reason: error.auditReason)
        case .invalidToken(let why):
            let description = switch why {
            case .expired: "The ID token has expired."
            case .audience: "The ID token was issued to another app (aud)."
            case .authorizedParty: "The ID token was requested by another app (azp)."
            case .issuer: "The ID token was not issued by Google (iss)."
            case .unknownKey, .signature: "The ID token's signature does not verify against Google's keys."
            case .time: "The ID token is not valid yet."
            default: "The ID token is malformed or incomplete."
            }
            return Failure(status: 401, code: .invalidToken, description: description, reason: error.auditReason)
        case .domainNotAllowed:
            return Failure(status: 403, code: .accessDenied, description: error.userMessage, reason: error.auditReason)
        case .unavailable, .timedOut, .misconfigured:
            return Failure(status: 503, code: .temporarilyUnavailable, description: "Google could not be reached; try again.",
                           reason: error.auditReason)
        default:
            return Failure(status: 400, code: .invalidToken, description: error.userMessage, reason: error.auditReason)
        }
    }
}

extension NativeGoogleSignIn: ExternalIDTokenResolver {
    func resolve(idToken: String, rawNonce: String, client: OAuthClient, context: ClientContext) async throws -> (user: User, method: String) {
        do {
            guard let app = NativeApp(client: client), !app.googleClientIDs.isEmpty else {
                throw Failure(status: 400, code: .unauthorizedClient, description: "This client is not a native app with a Google client id.",
                              reason: "not_native_app")
            }
            let outcome = try await signIn(idToken: idToken, rawNonce: rawNonce, app: app, context: context)
            return (outcome.user, google?.id ?? "google")
        } catch let failure as Failure {
            await audit(failure, app: client.id, context: context)
            throw NativeAppleSignIn.oauthError(failure)
        }
    }
}

/// The token exchange's resolver: Google's ID tokens to ``NativeGoogleSignIn``, everything else to Apple's.
/// The issuer is read from the unverified token only to choose; the chosen side verifies everything.
struct NativeIDTokenResolvers: ExternalIDTokenResolver {
    let apple: NativeAppleSignIn
    let google: NativeGoogleSignIn

    func resolve(idToken: String, rawNonce: String, client: OAuthClient, context: ClientContext) async throws -> (user: User, method: String) {
        try await resolve(idToken: idToken, rawNonce: rawNonce, name: nil, client: client, context: context)
    }

    func resolve(idToken: String, rawNonce: String, name: String?, client: OAuthClient, context: ClientContext) async throws
        -> (user: User, method: String) {
        let issuer = (try? CompactJWS(idToken)).flatMap { try? JWTClaims(json: $0.payload) }?.all["iss"]?.stringValue ?? ""
        let googleIssuers = [GoogleSettings.issuer, GoogleSettings.bareIssuer] + [google.google?.settings.issuer].compactMap { $0 }
        if googleIssuers.contains(issuer) { return try await google.resolve(idToken: idToken, rawNonce: rawNonce, client: client, context: context) }
        return try await apple.resolve(idToken: idToken, rawNonce: rawNonce, name: name, client: client, context: context)
    }
}

extension ProviderWiring {
    func nativeGoogleSignIn(clients: ClientRegistry) -> NativeGoogleSignIn {
        let linker = makeLinker()
        let google = registry.providers.lazy.compactMap { $0 as? OIDCProvider }.first { $0.kind == .google }
        return NativeGoogleSignIn(google: google, apps: NativeAppDirectory(registry: clients), linker: linker,
                                  audit: audit,
                                  replay: SubjectTokenReplayGuard(store: database.flowStates, clock: clock))
    }
}
