import Foundation
import GatehouseStore

/// Finishing a hand-off in the app's web view (flow F2): the token the app carried back and the verifier
/// only this web view holds become a sign-in here, or — for "Link <provider>" from the app — the link
/// itself, written only now and only when this web view is signed in to the account the link ticket named
/// (the system browser that proved the identity links nothing). The token is spent whatever happens (one
/// try for a stolen token); a refusal is audited and writes nothing else.
public struct HandoffCompletion: Sendable {
    let handoffs: HandoffTokens
    let users: any UserStore
    let sessions: SessionService
    let linker: ExternalIdentityService
    let audit: AuditTrail

    /// What a redeem did.
    public enum Outcome: Sendable {
        /// A new session for `user`, replacing the one this web view had.
        case signedIn(user: User, session: IssuedSession, returnTo: String?)
        /// "Link <provider>" finished for the account signed in here; its session is kept.
        case linked(returnTo: String?)
        /// The link belongs to another account than the one signed in here: nothing changes.
        case otherAccount
        /// The account rules refused the link (linked elsewhere, an unconfirmed account): nothing written.
        case linkRefused(ExternalSignInRefusal, provider: String)
        case refused(HandoffTokens.Failure)
    }

    public init(handoffs: HandoffTokens, users: any UserStore, sessions: SessionService, linker: ExternalIdentityService, audit: AuditTrail) {
        self.handoffs = handoffs; self.users = users; self.sessions = sessions; self.linker = linker; self.audit = audit
    }

    /// Redeems `token` with `verifier` for `appID` in a web view where `signedInUserId` is signed in with the
    /// session `sessionToken` (both nil when nobody is).
    public func complete(token: String, verifier: String, appID: String?, signedInUserId: String?, sessionToken: String?,
                         context: ClientContext) async throws -> Outcome {
        do {
            let redemption = try await handoffs.redeem(token: token, verifier: verifier, appID: appID)
            guard let user = try await users.find(id: redemption.userId), !user.disabled else { throw HandoffTokens.Failure.invalidToken }
            if let identity = redemption.link {
                // Linking never changes who is signed in here, and happens only in the ticket's account.
                guard signedInUserId == user.id else { return .otherAccount }
                switch try await linker.resolve(identity, linkTo: user.id, signedInUserId: signedInUserId, context: context) {
                case .linked: return .linked(returnTo: redemption.returnTo)
                case .refused(let refusal, _, _):
                    await audit.record(.providerSignInFailed, userId: user.id, context: context,
                                       details: ["provider": identity.provider, "reason": refusal.reason, "via": "native_handoff"])
                    return .linkRefused(refusal, provider: identity.provider)
                case .signIn:
                    // A link flow never resolves to a sign-in; refuse rather than sign anyone in.
                    return .linkRefused(.sessionChanged, provider: identity.provider)
                }
            }
            // Only this web view's verifier gets here, so replacing its session is what its user asked for.
            if let sessionToken { _ = try await sessions.end(token: sessionToken) }
            let issued = try await sessions.start(userId: user.id, methods: redemption.authMethods, context: context)
            await audit.record(.signInSucceeded, userId: user.id, context: context, details: ["via": "native_handoff", "app": redemption.appID])
            return .signedIn(user: user, session: issued, returnTo: redemption.returnTo)
        } catch let failure as HandoffTokens.Failure {
            await audit.record(.signInFailed, userId: nil, context: context, details: ["via": "native_handoff", "reason": "\(failure)"])
            return .refused(failure)
        }
    }
}
