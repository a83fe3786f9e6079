import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// `POST /native/apple` (flow F3) and `POST /native/google`: an app posts what the provider's native SDK gave
/// it — the token (`identity_token` from `ASAuthorizationAppleIDCredential`, with its `authorization_code`
/// and, once, `given_name`/`family_name`, which Apple never puts in the token; `id_token` from Google's SDK),
/// the `raw_nonce` whose SHA-256 hex it put on the provider's request, `app` (its client id) and `response`
/// (`session`, the default, or `tokens`) — as JSON or as a form.
///
/// - `session`: 200 `{"user_id", "email", "name", "created"}` and a `Set-Cookie` session cookie for the
///   app to copy into the web view's cookie store (then the web view continues the product's pending or
///   silent authorize);
/// - `tokens`: an OAuth token response for that native client (as `/oauth/token` answers), bound to the key
///   of the request's `DPoP` proof when it carries one (RFC 9449, as at the token endpoint).
///
/// Every refusal is a 4xx `{"error", "error_description"}`, audited, with nothing else written.
struct NativeSignInRoute<Verifier: NativeTokenVerifier>: Sendable {
    let signIn: NativeSignIn<Verifier>
    /// The fields this provider's SDK gives the app to post.
    let form: NativeSignInForm
    let sessions: SessionService
    let cookies: CookiePolicy
    let issuer: TokenIssuer
    /// The public origin (`https://id.example.com`): a browser posting from anywhere else is refused.
    let publicOrigin: String
    /// The request's DPoP proof, checked as the token endpoint checks it (nonces included).
    let dpop: DPoPRequests

    static var path: String { "/native/\(Verifier.kind.rawValue)" }

    func register(into router: inout Router) {
        router.post(Self.path) { request async throws in
            var fields: [String: String] = [:]
            var response: Response
            do {
                fields = try NativeSignInHTTP.parse(request)
                response = try await handle(request, fields)
            } catch let failure as NativeSignInFailure {
                await signIn.audit(failure, app: fields["app"], context: request.clientContext)
                response = NativeSignInHTTP.error(failure)
            }
            dpop.addNonce(&response)
            return response
        }
    }

    /// The verified proof, when the request sent one; a client registered for DPoP must.
    private func proof(_ request: Request, client: OAuthClient) async throws -> DPoPProof? {
        let proof: DPoPProof?
        do { proof = try await dpop.proof(request, path: Self.path) } catch let error as OAuthError {
            throw NativeSignInHTTP.invalid(error.description, code: error.code, reason: "dpop_proof")
        }
        if proof == nil, client.requiresDPoP {
            throw NativeSignInHTTP.invalid("This client must send a DPoP proof with every token request.", code: .invalidDPoPProof,
                                           reason: "dpop_proof")
        }
        return proof
    }

    private func handle(_ request: Request, _ fields: [String: String]) async throws -> Response {
        // Native apps send no Origin; a browser always does on a cross-site POST. Refusing foreign
        // origins stops a page from signing a visitor's browser into the page owner's account.
        if let origin = request.headers["Origin"], origin != publicOrigin {
            throw NativeSignInHTTP.invalid("Cross-origin requests are not accepted here.", status: 403, code: .invalidRequest, reason: "foreign_origin")
        }
        let wantsTokens: Bool
        switch fields["response"] ?? "session" {
        case "session": wantsTokens = false
        case "tokens": wantsTokens = true
        default: throw NativeSignInHTTP.invalid("response must be session or tokens.", reason: "bad_response_type")
        }
        let app = try await signIn.app(fields["app"])
        let token = try NativeSignInHTTP.required(form.tokenField, fields)
        let code = try form.codeField.map { try NativeSignInHTTP.required($0, fields) }
        let rawNonce = try NativeSignInHTTP.required("raw_nonce", fields)
        // The scope is checked before anything is written: a refused scope must not leave an account behind.
        var scope: Scope?
        let client = wantsTokens ? try await signIn.apps.registry.find(id: app.clientID) : nil
        if let client {
            do { scope = try TokenIssuer.externalSignInScope(fields["scope"], client: client) } catch {
                throw NativeSignInHTTP.invalid(error.description, code: .invalidScope, reason: "invalid_scope")
            }
            // Tokens for a confidential client only with its own authentication.
            if client.kind == .confidential { try await NativeSignInHTTP.authenticate(client, registry: signIn.apps.registry, request, fields) }
        }
        // Before the sign-in: a refused proof (or a nonce still to fetch) must leave no account behind.
        var proof: DPoPProof?
        if let client { proof = try await self.proof(request, client: client) }
        let outcome = try await signIn.signIn(token: token, authorizationCode: code, rawNonce: rawNonce,
                                              name: form.takesName ? NativeSignInHTTP.name(fields) : nil, app: app,
                                              context: request.clientContext)
        if let client {
            let tokens: TokenResponse
            do { tokens = try await issuer.issueForExternalSignIn(client: client, user: outcome.user, scope: scope, method: Verifier.kind.rawValue,
                                                                   proof: proof) } catch let error as OAuthError {
                throw NativeSignInHTTP.invalid(error.description, status: 403, code: error.code, reason: "no_consent")
            }
            return Response.json(tokens)
        }
        return try await NativeSignInHTTP.sessionAnswer(user: outcome.user, created: outcome.created, method: Verifier.kind.rawValue,
                                                        request: request, sessions: sessions, cookies: cookies)
    }
}

/// The fields a native SDK's sign-in posts.
struct NativeSignInForm: Sendable {
    let tokenField: String
    /// The authorization code's field, required where the provider gives the app one to forward.
    let codeField: String?
    /// Whether the app posts the person's name (`given_name`, `family_name`).
    let takesName: Bool

    /// `ASAuthorizationAppleIDCredential`'s identity token, authorization code and (once) name.
    static let apple = NativeSignInForm(tokenField: "identity_token", codeField: "authorization_code", takesName: true)
    /// Google's SDKs give the app no code to forward for sign-in, and the name is in the token.
    static let google = NativeSignInForm(tokenField: "id_token", codeField: nil, takesName: false)
}

/// The HTTP side every native sign-in route shares: the body, client authentication, the answers.
enum NativeSignInHTTP {
    static let maximumBody = 32 * 1024

    /// `given_name` and `family_name`, trimmed and joined; nil when both are empty.
    static func name(_ fields: [String: String]) -> String? {
        let name = [fields["given_name"], fields["family_name"]].compactMap { $0?.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        return name.isEmpty ? nil : String(name.prefix(200))
    }

    /// A confidential client's authentication for `response=tokens`: HTTP Basic
    /// (its id must be `app`) or `client_secret`. Shared by every native identity-token route.
    static func authenticate(_ client: OAuthClient, registry: ClientRegistry, _ request: Request,
                             _ fields: [String: String]) async throws {
        let credentials: ClientCredentials
        do {
            var parameters = fields
            parameters["client_id"] = fields["app"]
            credentials = try OAuthResponses.clientCredentials(request, parameters)
        } catch {
            throw invalid(error.description, status: 401, code: .invalidClient, reason: "client_authentication")
        }
        guard case .none = credentials else {
            do { _ = try await registry.authenticate(credentials) } catch let error as OAuthError {
                throw invalid(error.description, status: 401, code: .invalidClient, reason: "client_authentication")
            }
            return
        }
        throw invalid("A confidential client must authenticate (HTTP Basic or client_secret) to receive tokens.", status: 401,
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
        return response
    }

    /// The fields of a JSON object (string or null values only) or of a form; each name at most once.
    static func parse(_ request: Request) throws -> [String: String] {
        guard request.body.count <= maximumBody else {
            throw invalid("The body is too large.", status: 413, reason: "body_too_large")
        }
        switch request.mediaType {
        case "application/json":
            guard case .object(let object)? = JSONValue(parsing: request.body) else {
                throw invalid("The body is not a JSON object.", reason: "malformed_json")
            }
            var fields: [String: String] = [:]
            for (name, value) in object {
                switch value {
                case .string(let text): fields[name] = text
                case .null: continue
                default: throw invalid("\(name.prefix(40)) must be a string.", reason: "malformed_json")
                }
            }
            return fields
        case "application/x-www-form-urlencoded":
            guard let form = try? request.form() else { throw invalid("The form is not valid.", reason: "malformed_form") }
            var fields: [String: String] = [:]
            for (name, value) in form.pairs {
                guard fields[name] == nil else { throw invalid("\(name.prefix(40)) appears more than once.", reason: "repeated_field") }
                fields[name] = value
            }
            return fields
        default:
            throw invalid("Send application/json or application/x-www-form-urlencoded.", status: 415, reason: "media_type")
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
        Response.json(["error": failure.code.rawValue, "error_description": failure.description], status: HTTPStatus(failure.status))
    }

    /// `scheme://host[:port]` of the public URL, as browsers write it in `Origin`.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "https"
        let host = url.host?.lowercased() ?? ""
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)"
    }
}
