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
            } catch let failure as NativeAppleSignIn.Failure {
                await signIn.audit(failure, app: fields["app"], context: request.clientContext)
                return NativeAppleRoutes.error(failure)
            }
        }
    }

    private func handle(_ request: Request, _ fields: [String: String]) async throws -> Response {
        if let origin = request.headers["Origin"], origin != publicOrigin {
            throw NativeAppleRoutes.invalid("Cross-origin requests are not accepted here.", status: 403, code: "invalid_request", reason: "foreign_origin")
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
                throw NativeAppleRoutes.invalid(error.description, code: "invalid_scope", reason: "invalid_scope")
            }
            // Tokens for a confidential client only with its own authentication (issue 14, item 7).
            if client.kind == .confidential { try await authenticate(client, request, fields) }
        }
        let outcome = try await signIn.signIn(idToken: idToken, rawNonce: rawNonce, app: app, context: request.clientContext)
        if wantsTokens, let client {
            let tokens: TokenResponse
            do { tokens = try await issuer.issueForExternalSignIn(client: client, user: outcome.user, scope: scope, method: "google") } catch let error as OAuthError {
                throw NativeAppleRoutes.invalid(error.description, status: 403, code: error.code.rawValue, reason: "no_consent")
            }
            var response = Response.json(tokens)
            NativeAppleRoutes.noStore(&response)
            return response
        }
        if let old = request.cookies[cookies.sessionCookie] { _ = try await sessions.end(token: old) }
        let issued = try await sessions.start(userId: outcome.user.id, methods: ["google"], context: request.clientContext)
        struct Body: Encodable { let signed_in: Bool, user_id: String, email: String, name: String?, created: Bool }
        var response = Response.json(Body(signed_in: true, user_id: outcome.user.id, email: outcome.user.email,
                                          name: outcome.user.displayName, created: outcome.created))
        response.setCookie(cookies.sessionCookie(token: issued.token))
        NativeAppleRoutes.noStore(&response)
        return response
    }

    /// A confidential client's authentication: HTTP Basic (its id must be `app`) or `client_secret`.
    private func authenticate(_ client: OAuthClient, _ request: Request, _ fields: [String: String]) async throws {
        let credentials: ClientCredentials
        do {
            var parameters = fields
            parameters["client_id"] = fields["app"]
            credentials = try OAuthResponses.clientCredentials(request, parameters)
        } catch {
            throw NativeAppleRoutes.invalid(error.description, status: 401, code: "invalid_client", reason: "client_authentication")
        }
        guard case .none = credentials else {
            do { _ = try await signIn.apps.registry.authenticate(credentials) } catch let error as OAuthError {
                throw NativeAppleRoutes.invalid(error.description, status: 401, code: "invalid_client", reason: "client_authentication")
            }
            return
        }
        throw NativeAppleRoutes.invalid("A confidential client must authenticate (HTTP Basic or client_secret) to receive tokens.", status: 401,
                                        code: "invalid_client", reason: "client_authentication")
    }
}
