import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// Passkey sign-in from an app's own screen, as JSON or a form (docs/webauthn.md, "From a native screen"):
/// - `POST /native/passkey/options` (`app`): `{"ceremony", "publicKey": {…}}` — the options for iOS
///   `ASAuthorizationPlatformPublicKeyCredentialProvider` or Android Credential Manager (a discoverable
///   credential, UV required) and the ceremony secret the app posts back;
/// - `POST /native/passkey` (`app`, `ceremony`, `credential_id`, `client_data_json`, `authenticator_data`,
///   `signature`, `user_handle`, binary fields base64url; `response` `session` or `tokens`, `scope`): verifies
///   the assertion against the app's own origins and answers like `/native/apple` — the session cookie for the
///   web view (which then continues the pending authorize), or an OAuth token response.
///
/// Every refusal is a 4xx RFC 6749 `{"error", "error_description"}` with nothing written but the audit entry.
struct NativePasskeyRoutes: Sendable {
    let apps: NativeAppDirectory
    let signIn: NativePasskeySignIn
    let sessions: SessionService
    let cookies: CookiePolicy
    let issuer: TokenIssuer
    let audit: AuditTrail
    /// The public origin: a browser posting from anywhere else is refused.
    let publicOrigin: String
    /// The request's DPoP proof for `response=tokens`, checked as the token endpoint checks it (nonces included).
    let dpop: DPoPRequests
    /// Both endpoints together, per client address (`rate_limits.native_passkey_per_ip`).
    let limiter: RateLimiter
    let limits: RateLimitPolicy

    func register(into router: inout Router) {
        router.post("/native/passkey/options") { request async throws in
            if let refused = try await limited(request) { return refused }
            return await answer { try await options(request) }
        }
        router.post("/native/passkey") { request async throws in
            if let refused = try await limited(request) { return refused }
            var response = await answer { try await finish(request) }
            dpop.addNonce(&response)
            return response
        }
    }

    /// Counts the request before anything is parsed or stored; over the limit, 429 `slow_down` (RFC 6749 JSON)
    /// with `Retry-After`, and nothing else happens.
    private func limited(_ request: Request) async throws -> Response? {
        guard !limits.nativePasskeyPerIP.isEmpty,
              let wait = try await limiter.hit(limits.nativePasskeyPerIP, key: limits.ipKey(request.clientContext.ip)) else { return nil }
        var response = NativeSignInHTTP.error(NativeSignInHTTP.invalid("Too many passkey requests from this address. Try again later.",
                                                                       status: 429, code: .slowDown, reason: "rate_limited"))
        response.headers.set("Retry-After", String(max(1, Int(wait.rounded(.up)))))
        return response
    }

    private func answer(_ body: () async throws -> Response) async -> Response {
        do { return try await body() } catch let failure as NativeSignInFailure {
            return NativeSignInHTTP.error(failure)
        } catch {
            return NativeSignInHTTP.error(NativeSignInHTTP.invalid("The passkey sign-in could not be completed.", status: 503,
                                                                   code: .temporarilyUnavailable, reason: "unavailable"))
        }
    }

    private func parsedFields(_ request: Request) throws -> [String: String] {
        // Native code sends no Origin; a page elsewhere must not start or finish a ceremony for this browser.
        if let origin = request.headers["Origin"], origin != publicOrigin {
            throw NativeSignInHTTP.invalid("Cross-origin requests are not accepted here.", status: 403, reason: "foreign_origin")
        }
        return try NativeSignInHTTP.parse(request)
    }

    private func registeredApp(_ fields: [String: String]) async throws -> NativeApp {
        let id = try NativeSignInHTTP.required("app", fields)
        guard let app = try await apps.app(id) else {
            throw NativeSignInHTTP.invalid("\(id.prefix(80)) is not a registered native app.", code: .invalidClient, reason: "unknown_app")
        }
        return app
    }

    private func options(_ request: Request) async throws -> Response {
        let fields = try parsedFields(request)
        let app = try await registeredApp(fields)
        guard let started = try await signIn.start(app: app) else {
            throw NativeSignInHTTP.invalid("This app registers no apple_app_ids or android_cert_fingerprints, so no platform can use passkeys for it.",
                                           code: .unauthorizedClient, reason: "no_passkey_origin")
        }
        guard case .object(var members) = PasskeyJSON.request(started.options) else { preconditionFailure("options are an object") }
        members["ceremony"] = .string(started.ceremony)
        return Response.json(bytes: JSONValue.object(members).jsonBytes)
    }

    private func finish(_ request: Request) async throws -> Response {
        let fields = try parsedFields(request)
        let wantsTokens: Bool
        switch fields["response"] ?? "session" {
        case "session": wantsTokens = false
        case "tokens": wantsTokens = true
        default: throw NativeSignInHTTP.invalid("response must be session or tokens.", reason: "bad_response_type")
        }
        let app = try await registeredApp(fields)
        let ceremony = try NativeSignInHTTP.required("ceremony", fields)
        let assertion = try Self.assertion(fields)
        // Scope and client authentication before the assertion is spent: a refused request leaves the challenge usable.
        var scope: Scope?
        var proof: DPoPProof?
        let client = wantsTokens ? try await apps.registry.find(id: app.clientID) : nil
        if let client {
            do { scope = try TokenIssuer.externalSignInScope(fields["scope"], client: client) } catch {
                throw NativeSignInHTTP.invalid(error.description, code: .invalidScope, reason: "invalid_scope")
            }
            if client.kind == .confidential { try await NativeSignInHTTP.authenticate(client, registry: apps.registry, request, fields) }
            proof = try await self.proof(request, client: client)
        }
        let passkey: PasskeySignIn, user: User
        do {
            (passkey, user) = try await signIn.finish(app: app, ceremony: ceremony, response: assertion, context: request.clientContext)
        } catch let refusal as WebAuthnRefusal {
            throw NativeSignInHTTP.invalid(refusal == .signCountRegression ? "This passkey looks copied; it was not accepted."
                                           : "The passkey was not accepted (\(refusal.reason)).", code: .invalidGrant, reason: refusal.reason)
        }
        let methods = NativePasskeySignIn.methods(passkey)
        await audit.record(.signInSucceeded, userId: passkey.userID, context: request.clientContext,
                           details: ["method": "passkey", "via": "native_passkey", "app": app.clientID,
                                     "credential": Base64URL.encode(passkey.credential.credentialID)])
        if let client {
            let tokens: TokenResponse
            do { tokens = try await issuer.issueForExternalSignIn(client: client, user: user, scope: scope, methods: methods,
                                                                   proof: proof) } catch let error as OAuthError {
                throw NativeSignInHTTP.invalid(error.description, status: 403, code: error.code, reason: "no_consent")
            }
            return Response.json(tokens)
        }
        // A new session id at every sign-in; a session the caller already had ends here.
        if let old = request.cookies[cookies.sessionCookie] { _ = try await sessions.end(token: old) }
        let issued = try await sessions.start(userId: user.id, methods: methods, context: request.clientContext)
        var response = Response.json(bytes: JSONValue.object([
            "signed_in": .bool(true), "user_id": .string(user.id), "email": .string(user.email),
            "name": user.displayName.map(JSONValue.string) ?? .null, "created": .bool(false),
        ]).jsonBytes)
        response.setCookie(cookies.sessionCookie(token: issued.token))
        return response
    }

    /// The verified proof, when the request sent one; a client registered for DPoP must send one. Checked before
    /// the assertion is spent, so a refused proof leaves the ceremony usable.
    private func proof(_ request: Request, client: OAuthClient) async throws -> DPoPProof? {
        let proof: DPoPProof?
        do { proof = try await dpop.proof(request, path: "/native/passkey") } catch let error as OAuthError {
            throw NativeSignInHTTP.invalid(error.description, code: error.code, reason: "dpop_proof")
        }
        if proof == nil, client.requiresDPoP {
            throw NativeSignInHTTP.invalid("This client must send a DPoP proof with every token request.", code: .invalidDPoPProof,
                                           reason: "dpop_proof")
        }
        return proof
    }

    static func assertion(_ fields: [String: String]) throws -> AssertionResponse {
        func bytes(_ name: String) throws -> [UInt8] {
            let text = try NativeSignInHTTP.required(name, fields)
            guard text.utf8.count <= 16_384, let value = Base64URL.decode(text), !value.isEmpty else {
                throw NativeSignInHTTP.invalid("\(name) must be base64url.", reason: "malformed_\(name)")
            }
            return value
        }
        let handle = fields["user_handle"].flatMap { $0.isEmpty ? nil : Base64URL.decode($0) }
        return AssertionResponse(credentialID: try bytes("credential_id"), clientDataJSON: try bytes("client_data_json"),
                                 authenticatorData: try bytes("authenticator_data"), signature: try bytes("signature"), userHandle: handle)
    }
}
