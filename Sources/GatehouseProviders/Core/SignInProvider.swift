import Foundation

/// The kinds of upstream sign-in Gatehouse speaks; one folder each.
public enum ProviderKind: String, Sendable, Codable, CaseIterable {
    case apple, google, github, oidc
}

/// How a provider returns the browser to Gatehouse.
public enum CallbackMethod: Sendable {
    /// A top-level `GET` with the answer in the query (Google, GitHub, most OIDC providers).
    case query
    /// A cross-site `POST` of a form (Apple's `response_mode=form_post`): no SameSite=Lax cookies arrive.
    case formPost
}

/// One upstream identity provider, in the shape of Dex's connectors: it builds the URL that starts a
/// sign-in and turns the callback into a verified ``ExternalProfile``. It knows nothing of routes,
/// sessions or storage; the server keeps the ``ProviderFlow`` and decides what a profile means.
///
/// Implementations throw ``ProviderError`` for everything a user or operator can cause.
public protocol SignInProvider: Sendable {
    /// The configured name, used in URLs (`/auth/{id}`) and as the stored identity's provider.
    var id: String { get }
    /// The label on the button ("Apple", "Google", "Okta"…).
    var displayName: String { get }
    var kind: ProviderKind { get }
    var callbackMethod: CallbackMethod { get }

    /// Where to send the browser to start a sign-in for `flow`, carrying `state`.
    func authorizationURL(state: String, flow: ProviderFlow) async throws -> URL

    /// Verifies the callback's parameters (already matched to `flow` by its `state`) — code exchange,
    /// id_token signature and claims, profile calls — and returns who signed in.
    func completeSignIn(callback: [String: String], flow: ProviderFlow) async throws -> ExternalProfile

    /// Revokes a provider token Gatehouse kept (Apple, on account deletion). The default does nothing.
    func revoke(refreshToken: String) async throws
}

extension SignInProvider {
    public func revoke(refreshToken: String) async throws {}

    /// The callback's `error`, mapped: a user's cancellation differs from a provider failure.
    func callbackError(_ callback: [String: String]) -> ProviderError? {
        guard let error = callback["error"] else { return nil }
        switch error {
        case "access_denied", "user_cancelled_authorize", "consent_required", "login_required": return .cancelled
        default: return .providerError(String(error.prefix(80)))
        }
    }

    /// The `code` parameter, or the reason there is none.
    func authorizationCode(_ callback: [String: String]) throws -> String {
        if let error = callbackError(callback) { throw error }
        guard let code = callback["code"], !code.isEmpty, code.utf8.count <= 4096 else {
            throw ProviderError.invalidCallback("the provider sent no authorization code")
        }
        return code
    }
}
