import Foundation
import GatehouseStore

/// What `/oauth/authorize` does with a valid request and whoever is signed in, decided in one place as
/// Fosite's OpenID validator does: `id_token_hint` naming someone else, `prompt=login` and `max_age`
/// asking for a fresher sign-in, `acr_values` and the client's `require_mfa` asking for a stronger one
/// (step-up), `prompt=none` turning every interaction into an error for the client, the
/// account's standing, then the approval step (consent, "continue as", or none).
public struct AuthorizationDecider: Sendable {
    let authorization: AuthorizationService
    let hints: IDTokenHint

    /// The route's next step.
    public enum Decision: Sendable {
        /// Issue the code for this sign-in now.
        case approve(ActiveSession)
        /// Park the request and send the visitor to sign in; `reauthenticate` when someone was signed in but
        /// not as the request needs.
        case signIn(reauthenticate: Bool)
        /// Park the request and ask the signed-in user (`.consent` or `.confirm`).
        case ask(AuthorizationService.ApprovalStep, ActiveSession)
        /// The signed-in user must present a second factor (or set one up) first: the request or the client
        /// asks for a stronger sign-in than the session's (``AuthenticationLevel``).
        case stepUp(ActiveSession)
        /// Tell the user their address is unproven (no code for such an account).
        case unconfirmedEmail(User)
        /// Send the client this error at its redirect URI (`prompt=none` where interaction was needed).
        case error(OAuthError.Code, String)
    }

    public init(authorization: AuthorizationService, hints: IDTokenHint) {
        self.authorization = authorization; self.hints = hints
    }

    /// Decides for `request`, first received at `requestedAt` (`resumed`: coming back from sign-in).
    public func decide(_ request: AuthorizationRequest, signedIn: ActiveSession?, requestedAt: Date, resumed: Bool) async throws -> Decision {
        var session = signedIn
        if let active = session, let hint = request.idTokenHint,
           try await hints.read(hint, clientID: request.client.id)?.subject != active.user.id {
            session = nil   // the client expects someone else (or sent no ID token of ours): sign in again
        }
        if let active = session,
           Self.needsFreshSignIn(request, sessionStart: active.session.createdAt, requestedAt: requestedAt, resumed: resumed) {
            session = nil
        }
        let silent = request.prompt.contains("none")
        guard let active = session else {
            return silent ? .error(.loginRequired, "The user is not signed in.") : .signIn(reauthenticate: signedIn != nil)
        }
        // An account whose address is unproven gets no code (AccountStanding): the person is told why,
        // rather than the client sent a code the token endpoint would refuse.
        if AccountStanding(active.user) == .emailUnproven {
            return silent ? .error(.accessDenied, "The account's email address is not confirmed yet.") : .unconfirmedEmail(active.user)
        }
        // Never a lower acr than asked for: a stronger sign-in first (prompt=none cannot give one).
        if let required = AuthenticationLevel.required(request), AuthenticationLevel(methods: active.session.authMethods) < required {
            return silent ? .error(.interactionRequired, "The application asks for a multi-factor sign-in.") : .stepUp(active)
        }
        let step = try await authorization.approvalStep(request, userId: active.user.id)
        switch step {
        case .automatic:
            return .approve(active)
        case .consent:
            return silent ? .error(.consentRequired, "The user has not consented yet.") : .ask(step, active)
        case .confirm:
            return silent ? .error(.interactionRequired, "The user must confirm this sign-in.") : .ask(step, active)
        }
    }

    /// `prompt=login` asks for a sign-in after the request arrived, `max_age` for one no older than
    /// `max_age` seconds at that moment (`max_age=0` ≡ `prompt=login`). Both compare the session's
    /// sign-in time with the time the request *first* arrived, so the way back from sign-in passes.
    public static func needsFreshSignIn(_ request: AuthorizationRequest, sessionStart: Date, requestedAt: Date, resumed: Bool) -> Bool {
        if request.prompt.contains("login") && !resumed { return true }
        var bound: Date?
        if let maxAge = request.maxAge { bound = requestedAt.addingTimeInterval(-Double(maxAge)) }
        if request.prompt.contains("login") { bound = requestedAt }
        guard let bound else { return false }
        // Whole milliseconds: the stored precision of both times.
        func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
        return ms(sessionStart) < ms(bound)
    }
}
