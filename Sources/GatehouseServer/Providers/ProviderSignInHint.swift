import Foundation
import GatehouseHTTP
import GatehouseProviders

/// One-tap provider sign-in: `/oauth/authorize?…&provider=google` (like Keycloak's `kc_idp_hint`) skips
/// Gatehouse's sign-in chooser and starts that provider's flow at once, coming back to the pending
/// authorization request once the user is signed in.
///
/// Starting the flow from a GET (no CSRF token) is safe for the same reason the chooser's form is: the
/// finish step only completes in the browser holding the flow cookie set here, so a forged start can
/// at most sign the victim into *their own* provider account, never into the attacker's.
struct ProviderSignInHint: Sendable {
    /// The authorize parameter that names the provider.
    static let parameter = "provider"

    let routes: ProviderRoutes

    /// Whether `id` is an enabled provider.
    func isKnown(_ id: String) -> Bool { routes.registry.providers.contains { $0.id == id } }

    /// The redirect into provider `id`'s sign-in, returning to `returnTo`; nil when it is not enabled.
    func start(_ id: String, request: Request, returnTo: String) async throws -> Response? {
        guard let provider = routes.registry.providers.first(where: { $0.id == id }) else { return nil }
        let web = try await routes.reader.read(request)
        return try await routes.begin(provider, request, web: web, intent: .signIn, platform: .web, native: nil,
                                      returnTo: ReturnPath.validated(returnTo))
    }
}
