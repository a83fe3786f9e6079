import Foundation
import GatehouseStore

/// Native sign-in with a provider's SDK token (flow F3 and its Google twin), behind `POST /native/apple`,
/// `POST /native/google` and the RFC 8693 token-exchange grant: check the app, verify the token for it
/// (``NativeTokenVerifier``), refuse a second use of the token, then find, create or link the user through
/// the same ``ExternalIdentityService`` as the web flow. Every check runs before the first write.
public struct NativeSignIn<Verifier: NativeTokenVerifier>: Sendable {
    public typealias Failure = NativeSignInFailure

    /// What a successful sign-in yields.
    public struct Outcome: Sendable, Equatable {
        public let user: User
        public let created: Bool
    }

    /// The provider's verifier; nil when the provider is not enabled.
    public let verifier: Verifier?
    public let apps: NativeAppDirectory
    let linker: ExternalIdentityService
    let audit: AuditTrail
    /// One sign-in per token, in every process.
    let replay: SubjectTokenReplayGuard

    public init(verifier: Verifier?, apps: NativeAppDirectory, linker: ExternalIdentityService, audit: AuditTrail,
                replay: SubjectTokenReplayGuard) {
        self.verifier = verifier; self.apps = apps; self.linker = linker; self.audit = audit; self.replay = replay
    }

    /// The native app `clientID` names, or a refusal (unknown, not native, or none of this provider's ids).
    public func app(_ clientID: String?) async throws -> NativeApp {
        guard let clientID, !clientID.isEmpty else { throw Failure(status: 400, code: .invalidRequest, description: "The app parameter is missing.", reason: "missing_app") }
        guard let app = try await apps.app(clientID) else {
            throw Failure(status: 400, code: .invalidClient, description: "\(clientID.prefix(80)) is not a registered native app.", reason: "unknown_app")
        }
        guard !Verifier.kind.audiences(of: app).isEmpty else {
            throw Failure(status: 400, code: .invalidClient, description: Verifier.kind.wording.noAudience, reason: "no_\(Verifier.kind.rawValue)_audience")
        }
        return app
    }

    /// Verifies, redeems (when `authorizationCode` is given and the provider takes one) and links. `name` is
    /// the app-supplied name, used only when the account is created or the identity has none yet.
    public func signIn(token: String, authorizationCode: String?, rawNonce: String, name: String?, app: NativeApp,
                       context: ClientContext) async throws -> Outcome {
        guard let verifier else {
            throw Failure(status: 400, code: .unsupportedProvider, description: Verifier.kind.wording.disabled, reason: "\(Verifier.kind.rawValue)_disabled")
        }
        let provider = verifier.provider
        let identity: VerifiedExternalIdentity
        do {
            let verified = try await verifier.verify(token, audiences: Verifier.kind.audiences(of: app), rawNonce: rawNonce)
            // Verified, so its exp is the provider's: remember the token until then; a second use is refused
            // before the provider is called again or anything is written.
            guard try await replay.firstUse(of: token, expiresAt: SubjectTokenReplayGuard.expiry(ofVerifiedJWT: token)) else {
                throw Failure(status: 400, code: .invalidGrant, description: Verifier.kind.wording.replayed, reason: "token_replayed")
            }
            identity = try await verifier.identity(verified, authorizationCode: authorizationCode, name: name)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw verifier.failure(for: error, redeeming: authorizationCode != nil) ?? error
        }
        switch try await linker.resolve(identity, linkTo: nil, signedInUserId: nil, context: context) {
        case .signIn(let user, let created):
            await audit.record(.signInSucceeded, userId: user.id, context: context,
                               details: ["method": provider.id, "via": "native_\(Verifier.kind.rawValue)", "app": app.clientID])
            return Outcome(user: user, created: created)
        case .linked(let user):   // not reachable for a sign-in intent; treated as a sign-in all the same
            return Outcome(user: user, created: false)
        case .refused(let refusal, _, let email):
            throw Failure(refusal, message: refusal.message(label: provider.displayName, email: email))
        }
    }

    /// Records a refusal (the only write a failed attempt makes).
    public func audit(_ failure: Failure, app: String?, context: ClientContext) async {
        await audit.record(.providerSignInFailed, userId: nil, context: context,
                           details: ["provider": Verifier.kind.rawValue, "via": "native_\(Verifier.kind.rawValue)", "reason": failure.reason,
                                     "app": app ?? ""])
    }
}

/// The token-exchange grant's view: the same sign-in without a code (so no new provider refresh token),
/// failures as RFC 6749 errors.
extension NativeSignIn: ExternalIDTokenResolver {
    public func resolve(idToken: String, rawNonce: String, client: OAuthClient, context: ClientContext) async throws -> (user: User, method: String) {
        try await resolve(idToken: idToken, rawNonce: rawNonce, name: nil, client: client, context: context)
    }

    public func resolve(idToken: String, rawNonce: String, name: String?, client: OAuthClient, context: ClientContext) async throws
        -> (user: User, method: String) {
        do {
            guard let app = NativeApp(client: client), !Verifier.kind.audiences(of: app).isEmpty else {
                throw Failure(status: 400, code: .unauthorizedClient, description: Verifier.kind.wording.notNativeApp, reason: "not_native_app")
            }
            let outcome = try await signIn(token: idToken, authorizationCode: nil, rawNonce: rawNonce, name: name, app: app, context: context)
            return (outcome.user, verifier?.provider.id ?? Verifier.kind.rawValue)
        } catch let failure as Failure {
            await audit(failure, app: client.id, context: context)
            throw failure.oauthError
        }
    }
}

/// Looks native apps up among the registered clients.
public struct NativeAppDirectory: Sendable {
    public let registry: ClientRegistry

    public init(registry: ClientRegistry) { self.registry = registry }

    public func app(_ clientID: String?) async throws -> NativeApp? {
        guard let clientID, !clientID.isEmpty, let client = try await registry.find(id: clientID) else { return nil }
        return NativeApp(client: client)
    }
}
