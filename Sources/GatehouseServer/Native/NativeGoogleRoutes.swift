import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// `POST /native/google`: an app posts the ID token Google's native SDK gave it — `id_token`, the
/// `raw_nonce` whose SHA-256 hex it put on Google's request, `app` (its client id) and `response`
/// (`session`, the default, or `tokens`) — as JSON or a form. Answers exactly like `/native/apple`:
/// a session cookie to copy into the web view's cookie store (then the web view continues the product's
/// pending or silent authorize), or a token response for the native client. Every refusal is a 4xx
/// `{"error", "error_description"}`, audited, with nothing else written.
struct NativeGoogleRoutes: Sendable {
    let signIn: NativeGoogleSignIn
    let sessions: SessionService
    let cookies: CookiePolicy
    let issuer: TokenIssuer
    let publicOrigin: String

    func register(into router: inout Router) {
        router.post("/native/google") { request async throws in
            var fields: [String: String] = [:]
            do {
                fields = try NativeAppleRoutes.parse(request)
                return try await handle(request, fields)
            } catch let failure as NativeSignInFailure {
                await signIn.audit(failure, app: fields["app"], context: request.clientContext)
                return NativeAppleRoutes.error(failure)
            }
        }
    }

    private func handle(_ request: Request, _ fields: [String: String]) async throws -> Response {
        if let origin = request.headers["Origin"], origin != publicOrigin {
            throw NativeAppleRoutes.invalid("Cross-origin requests are not accepted here.", status: 403, code: .invalidRequest, reason: "foreign_origin")
        }
        let wantsTokens: Bool
        switch fields["response"] ?? "session" {
        case "session": wantsTokens = false
        case "tokens": wantsTokens = true
        default: throw NativeAppleRoutes.invalid("response must be session or tokens.", reason: "bad_response_type")
        }
        let app = try await signIn.app(fields["app"])
        let idToken = try NativeAppleRoutes.required("id_token", fields)
        let rawNonce = try NativeAppleRoutes.required("raw_nonce", fields)
        var scope: Scope?
        let client = try await signIn.apps.registry.find(id: app.clientID)
        if wantsTokens, let client {
            do { scope = try TokenIssuer.externalSignInScope(fields["scope"], client: client) } catch {
                throw NativeAppleRoutes.invalid(error.description, code: .invalidScope, reason: "invalid_scope")
            }
            // Tokens for a confidential client only with its own authentication (issue 14, item 7).
            if client.kind == .confidential { try await NativeAppleRoutes.authenticate(client, registry: signIn.apps.registry, request, fields) }
        }
        let outcome = try await signIn.signIn(idToken: idToken, rawNonce: rawNonce, app: app, context: request.clientContext)
        if wantsTokens, let client {
            let tokens: TokenResponse
            do { tokens = try await issuer.issueForExternalSignIn(client: client, user: outcome.user, scope: scope, method: "google") } catch let error as OAuthError {
                throw NativeAppleRoutes.invalid(error.description, status: 403, code: error.code, reason: "no_consent")
            }
            var response = Response.json(tokens)
            NativeAppleRoutes.noStore(&response)
            return response
        }
        return try await NativeAppleRoutes.sessionAnswer(user: outcome.user, created: outcome.created, method: "google",
                                                         request: request, sessions: sessions, cookies: cookies)
    }
}
