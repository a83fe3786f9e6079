import Foundation
import GatehouseCrypto
import GatehouseStore

/// A validated `/oauth/authorize` request (RFC 6749 §4.1.1, PKCE, OIDC Core §3.1.2.1).
public struct AuthorizationRequest: Sendable {
    public let client: OAuthClient
    public let redirectURI: String
    public let scope: Scope
    public let state: String?
    public let nonce: String?
    public let codeChallenge: String?
    public let prompt: Set<String>
    public let maxAge: Int?
    public let loginHint: String?
    public let idTokenHint: String?
    /// `acr_values`, in the client's order of preference, with the values of an essential `acr` claim
    /// requested through `claims` (OIDC Core §5.5.1.1).
    public var acrValues: [String] = []
    /// Whether the request carried `redirect_uri` (without it, the client's only registered URI is used
    /// and the token request need not repeat it, RFC 6749 §4.1.3).
    public var redirectURISent: Bool = true
    /// `dpop_jkt` (RFC 9449 §10): the thumbprint of the DPoP key the code's token request must prove.
    public var dpopJKT: String?
    /// The registered APIs named with `resource` (RFC 8707 §2): the code's token request may ask for these only.
    public var resources: [String] = []
}

/// Why an authorization request failed, and how the error may be delivered.
public enum AuthorizationFailure: Error, Sendable, Equatable {
    /// The client or redirect URI cannot be trusted: show an error page, never redirect (RFC 6749 §4.1.2.1).
    case untrusted(String)
    /// Report to the client at its (verified) redirect URI.
    case redirect(OAuthError, redirectURI: String, state: String?)
}

/// Validates authorization requests. Unknown parameters are ignored; repeated ones are errors.
public struct AuthorizationRequestParser: Sendable {
    let registry: ClientRegistry
    /// The APIs `resource` may name (`OAuthSettings.resources`).
    let resources: [String]

    public init(registry: ClientRegistry, resources: [String] = []) { self.registry = registry; self.resources = resources }

    /// `parameters` maps each name to every value sent (query or form).
    public func parse(_ parameters: [String: [String]]) async throws -> AuthorizationRequest {
        func single(_ name: String) throws(AuthorizationFailure) -> String? {
            let values = parameters[name] ?? []
            guard values.count <= 1 else { throw .untrusted("The \(name) parameter appears more than once.") }
            return values.first.flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let clientID = try single("client_id") else { throw AuthorizationFailure.untrusted("The client_id parameter is missing.") }
        guard let client = try await registry.find(id: clientID) else {
            throw AuthorizationFailure.untrusted("There is no application with this client_id.")
        }
        let redirectURI: String
        let redirectURISent = parameters["redirect_uri"]?.first.map { !$0.isEmpty } ?? false
        if let presented = try single("redirect_uri") {
            guard RedirectURIRules.matches(presented, registered: client.redirectURIs) else {
                throw AuthorizationFailure.untrusted("The redirect_uri is not registered for this application.")
            }
            redirectURI = presented
        } else if client.redirectURIs.count == 1 {
            redirectURI = client.redirectURIs[0]
        } else {
            throw AuthorizationFailure.untrusted("The redirect_uri parameter is missing.")
        }
        let state = try single("state")
        func fail(_ error: OAuthError) -> AuthorizationFailure { .redirect(error, redirectURI: redirectURI, state: state) }

        // From here on the redirect URI is trusted, so errors go back to the client.
        if let refusal = RequestObjectRefusal.refusal(parameters) { throw fail(refusal) }
        for name in ["response_type", "scope", "nonce", "code_challenge", "code_challenge_method", "prompt", "max_age",
                     "login_hint", "id_token_hint", "response_mode", "dpop_jkt", "acr_values", "claims"] where (parameters[name]?.count ?? 0) > 1 {
            throw fail(.invalidRequest("The \(name) parameter appears more than once."))
        }
        guard let responseType = parameters["response_type"]?.first else { throw fail(.invalidRequest("The response_type parameter is missing.")) }
        guard responseType == "code" else {
            throw fail(OAuthError(.unsupportedResponseType, "Only response_type=code is supported."))
        }
        if let mode = parameters["response_mode"]?.first, mode != "query" {
            throw fail(.invalidRequest("Only response_mode=query is supported."))
        }
        guard client.grantTypes.contains("authorization_code") else {
            throw fail(OAuthError(.unauthorizedClient, "This application may not use the authorization code flow."))
        }
        let scope: Scope
        do { scope = try client.grantable(parameters["scope"]?.first, default: Scope([Scope.openID])) } catch { throw fail(error) }
        let challenge = parameters["code_challenge"]?.first
        let method = parameters["code_challenge_method"]?.first
        if let challenge {
            guard method == "S256" else {
                throw fail(.invalidRequest("code_challenge_method must be S256 (plain is not accepted)."))
            }
            guard challenge.utf8.count == 43, Base64URL.decode(challenge)?.count == 32 else {
                throw fail(.invalidRequest("The code_challenge is not a base64url SHA-256 value."))
            }
        } else if method != nil {
            throw fail(.invalidRequest("code_challenge_method was sent without a code_challenge."))
        } else if client.kind == .public {
            throw fail(.invalidRequest("Public clients must use PKCE (code_challenge with S256)."))
        }
        let prompt = Set((parameters["prompt"]?.first ?? "").split(separator: " ").map(String.init))
        guard prompt.isSubset(of: ["none", "login", "consent", "select_account"]), !(prompt.contains("none") && prompt.count > 1) else {
            throw fail(.invalidRequest("The prompt parameter is not valid."))
        }
        var maxAge: Int?
        if let text = parameters["max_age"]?.first {
            guard let value = Int(text), value >= 0 else { throw fail(.invalidRequest("max_age must be a non-negative integer.")) }
            maxAge = value
        }
        let nonce = parameters["nonce"]?.first
        if let nonce, nonce.utf8.count > 512 { throw fail(.invalidRequest("The nonce is too long.")) }
        if let state, state.utf8.count > 2048 { throw fail(.invalidRequest("The state is too long.")) }
        let dpopJKT = parameters["dpop_jkt"]?.first
        if let dpopJKT, dpopJKT.utf8.count != 43 || Base64URL.decode(dpopJKT)?.count != 32 {
            throw fail(.invalidRequest("dpop_jkt is not a base64url SHA-256 JWK thumbprint."))
        }
        // RFC 8707 §2: several `resource` values may be named; each must be a registered API.
        var resources: [String] = []
        for requested in parameters["resource"] ?? [] where !resources.contains(requested) {
            guard resources.count < 8, self.resources.contains(requested) else {
                throw fail(OAuthError(.invalidTarget, "The resource \(requested.prefix(200)) is not an API registered with this server."))
            }
            resources.append(requested)
        }
        var acrValues = (parameters["acr_values"]?.first ?? "").split(separator: " ").map(String.init)
        if let claims = parameters["claims"]?.first {
            guard claims.utf8.count <= 4096, let essential = Self.essentialACRValues(claims) else {
                throw fail(.invalidRequest("The claims parameter is not a JSON object."))
            }
            acrValues += essential
        }
        var request = AuthorizationRequest(client: client, redirectURI: redirectURI, scope: scope, state: state, nonce: nonce,
                                           codeChallenge: challenge, prompt: prompt, maxAge: maxAge,
                                           loginHint: parameters["login_hint"]?.first, idTokenHint: parameters["id_token_hint"]?.first,
                                           redirectURISent: redirectURISent)
        request.dpopJKT = dpopJKT
        request.resources = resources
        request.acrValues = acrValues
        return request
    }

    /// The `acr` values an essential `id_token` `acr` claim asks for (`value` or `values`); other claim
    /// requests are ignored. Nil when `claims` is not a JSON object.
    static func essentialACRValues(_ claims: String) -> [String]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(claims.utf8)) as? [String: Any] else { return nil }
        guard let acr = (object["id_token"] as? [String: Any])?["acr"] as? [String: Any], acr["essential"] as? Bool == true else { return [] }
        if let value = acr["value"] as? String { return [value] }
        return (acr["values"] as? [String]) ?? []
    }
}
