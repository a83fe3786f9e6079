import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// `POST /native/apple` (flow F3): an iOS app posts what `ASAuthorizationAppleIDCredential` gave it —
/// `identity_token`, `authorization_code`, the `raw_nonce` it hashed onto Apple's request, optional
/// `given_name`/`family_name` (Apple gives them to the app once, never in the token), `app` (its
/// client id) and `response` (`session`, the default, or `tokens`) — as JSON or as a form.
///
/// - `session`: 200 `{"user_id", "email", "name", "created"}` and a `Set-Cookie` session cookie for the
///   app to copy into the web view's cookie store;
/// - `tokens`: an OAuth token response for that native client (as `/oauth/token` answers).
///
/// Every refusal is a 4xx `{"error", "error_description"}`, audited, with nothing else written.
struct NativeAppleRoutes: Sendable {
    static let maximumBody = 32 * 1024

    let signIn: NativeAppleSignIn
    let sessions: SessionService
    let cookies: CookiePolicy
    let issuer: TokenIssuer
    /// The public origin (`https://id.example.com`): a browser posting from anywhere else is refused.
    let publicOrigin: String

    func register(into router: inout Router) {
        router.post("/native/apple") { request async throws in
            var fields: [String: String] = [:]
            do {
                fields = try Self.parse(request)
                return try await handle(request, fields)
            } catch let failure as NativeSignInFailure {
                await signIn.audit(failure, app: fields["app"], context: request.clientContext)
                return Self.error(failure)
            }
        }
    }

    private func handle(_ request: Request, _ fields: [String: String]) async throws -> Response {
        // Native apps send no Origin; a browser always does on a cross-site POST. Refusing foreign
        // origins stops a page from signing a visitor's browser into the page owner's account.
        if let origin = request.headers["Origin"], origin != publicOrigin {
            throw Self.invalid("Cross-origin requests are not accepted here.", status: 403, code: .invalidRequest, reason: "foreign_origin")
        }
        let wantsTokens: Bool
        switch fields["response"] ?? "session" {
        case "session": wantsTokens = false
        case "tokens": wantsTokens = true
        default: throw Self.invalid("response must be session or tokens.", reason: "bad_response_type")
        }
        let app = try await signIn.app(fields["app"])
        let identityToken = try Self.required("identity_token", fields)
        let code = try Self.required("authorization_code", fields)
        let rawNonce = try Self.required("raw_nonce", fields)
        // The scope is checked before anything is written: a refused scope must not leave an account behind.
        var scope: Scope?
        if wantsTokens, let client = try await signIn.apps.registry.find(id: app.clientID) {
            do { scope = try TokenIssuer.externalSignInScope(fields["scope"], client: client) } catch {
                throw Self.invalid(error.description, code: .invalidScope, reason: "invalid_scope")
            }
            // Tokens for a confidential client only with its own authentication (issue 14, item 7).
            if client.kind == .confidential { try await Self.authenticate(client, registry: signIn.apps.registry, request, fields) }
        }
        let name = [fields["given_name"], fields["family_name"]].compactMap { $0?.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        let outcome = try await signIn.signIn(identityToken: identityToken, authorizationCode: code, rawNonce: rawNonce,
                                              name: name.isEmpty ? nil : String(name.prefix(200)), app: app,
                                              context: request.clientContext)
        if wantsTokens, let client = try await signIn.apps.registry.find(id: app.clientID) {
            let tokens: TokenResponse
            do { tokens = try await issuer.issueForExternalSignIn(client: client, user: outcome.user, scope: scope, method: "apple") } catch let error as OAuthError {
                throw Self.invalid(error.description, status: 403, code: error.code, reason: "no_consent")
            }
            var response = Response.json(tokens)
            Self.noStore(&response)
            return response
        }
        return try await Self.sessionAnswer(user: outcome.user, created: outcome.created, method: "apple", request: request,
                                            sessions: sessions, cookies: cookies)
    }

    /// A confidential client's authentication for `response=tokens` (issue 14, item 7): HTTP Basic
    /// (its id must be `app`) or `client_secret`. Shared by every native identity-token route.
    static func authenticate(_ client: OAuthClient, registry: ClientRegistry, _ request: Request,
                             _ fields: [String: String]) async throws {
        let credentials: ClientCredentials
        do {
            var parameters = fields
            parameters["client_id"] = fields["app"]
            credentials = try OAuthResponses.clientCredentials(request, parameters)
        } catch {
            throw Self.invalid(error.description, status: 401, code: .invalidClient, reason: "client_authentication")
        }
        guard case .none = credentials else {
            do { _ = try await registry.authenticate(credentials) } catch let error as OAuthError {
                throw Self.invalid(error.description, status: 401, code: .invalidClient, reason: "client_authentication")
            }
            return
        }
        throw Self.invalid("A confidential client must authenticate (HTTP Basic or client_secret) to receive tokens.", status: 401,
                           code: .invalidClient, reason: "client_authentication")
    }

    /// The `response=session` answer: a new session (ending one the caller already had) as JSON plus
    /// the cookie to copy into the web view's cookie store.
    static func sessionAnswer(user: User, created: Bool, method: String, request: Request,
                              sessions: SessionService, cookies: CookiePolicy) async throws -> Response {
        // A new session id at every sign-in; a session the caller already had ends here.
        if let old = request.cookies[cookies.sessionCookie] { _ = try await sessions.end(token: old) }
        let issued = try await sessions.start(userId: user.id, methods: [method], context: request.clientContext)
        struct Body: Encodable { let signed_in: Bool, user_id: String, email: String, name: String?, created: Bool }
        var response = Response.json(Body(signed_in: true, user_id: user.id, email: user.email,
                                          name: user.displayName, created: created))
        response.setCookie(cookies.sessionCookie(token: issued.token))
        Self.noStore(&response)
        return response
    }

    /// The fields of a JSON object (string or null values only) or of a form; each name at most once.
    static func parse(_ request: Request) throws -> [String: String] {
        guard request.body.count <= Self.maximumBody else {
            throw Self.invalid("The body is too large.", status: 413, reason: "body_too_large")
        }
        switch request.mediaType {
        case "application/json":
            guard case .object(let object)? = JSONValue(parsing: request.body) else {
                throw Self.invalid("The body is not a JSON object.", reason: "malformed_json")
            }
            var fields: [String: String] = [:]
            for (name, value) in object {
                switch value {
                case .string(let text): fields[name] = text
                case .null: continue
                default: throw Self.invalid("\(name.prefix(40)) must be a string.", reason: "malformed_json")
                }
            }
            return fields
        case "application/x-www-form-urlencoded":
            guard let form = try? request.form() else { throw Self.invalid("The form is not valid.", reason: "malformed_form") }
            var fields: [String: String] = [:]
            for (name, value) in form.pairs {
                guard fields[name] == nil else { throw Self.invalid("\(name.prefix(40)) appears more than once.", reason: "repeated_field") }
                fields[name] = value
            }
            return fields
        default:
            throw Self.invalid("Send application/json or application/x-www-form-urlencoded.", status: 415, reason: "media_type")
        }
    }

    static func required(_ name: String, _ fields: [String: String]) throws -> String {
        guard let value = fields[name], !value.isEmpty else { throw invalid("The \(name) field is missing.", reason: "missing_\(name)") }
        return value
    }

    static func invalid(_ description: String, status: Int = 400, code: OAuthError.Code = .invalidRequest,
                                reason: String) -> NativeSignInFailure {
        NativeSignInFailure(status: status, code: code, description: description, reason: reason)
    }

    static func error(_ failure: NativeSignInFailure) -> Response {
        var response = Response.json(["error": failure.code.rawValue, "error_description": failure.description], status: HTTPStatus(failure.status))
        noStore(&response)
        return response
    }

    /// `scheme://host[:port]` of the public URL, as browsers write it in `Origin`.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "https"
        let host = url.host?.lowercased() ?? ""
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)"
    }

    static func noStore(_ response: inout Response) {
        response.noStore()
        response.headers.set("Pragma", "no-cache")
    }
}
