import Foundation
import GatehouseCrypto
import GatehouseHTTP

extension GoogleSimulator {
    struct AuthorizationRequest {
        var client: GoogleClient
        var redirectURI: String
        var scopes: [String]
        var state: String?
        var nonce: String?
        var codeChallenge: String?
        var offline: Bool
        var forceConsent: Bool
        var loginHint: String?
        var parameters: [(String, String)]
    }

    static let parameterNames = ["client_id", "redirect_uri", "response_type", "scope", "state", "nonce", "code_challenge",
                                 "code_challenge_method", "access_type", "prompt", "hd", "login_hint", "include_granted_scopes"]
    static let knownScopes: Set<String> = ["openid", "email", "profile", emailScope, profileScope]

    /// `GET /o/oauth2/v2/auth`.
    func authorize(_ request: Request) throws -> Response {
        try Response.catchingRejection {
            let authorization = try parseAuthorization(request.query, userAgent: request.headers["User-Agent"] ?? "")
            return SimulatorPages.picker(provider: "Google", action: pathPrefix + "/o/oauth2/v2/auth/complete",
                                         hidden: authorization.parameters, options: .init(unverifiedEmail: true, workspace: true),
                                         prefillEmail: authorization.loginHint ?? "", clientID: authorization.client.clientID)
        }
    }

    /// `POST /o/oauth2/v2/auth/complete`: 302 back with `code` (or `error=access_denied`).
    func complete(_ request: Request) throws -> Response {
        try Response.catchingRejection {
            let form = try request.form()
            let authorization = try parseAuthorization(form, userAgent: request.headers["User-Agent"] ?? "")
            var fields: [(String, String)] = []
            guard form["action"] != "cancel" else {
                fields.append(("error", "access_denied"))
                if let state = authorization.state { fields.append(("state", state)) }
                return SimulatorHTTP.found(SimulatorHTTP.redirectURL(authorization.redirectURI, fields))
            }
            let account = try SimulatedAccount.fromPicker(form, provider: "Google")
            let now = clock()
            let consentKey = authorization.client.clientID + "|" + subject(forEmail: account.email)
            let firstConsent = consents.get(consentKey, now: now) == nil
            consents.put(consentKey, true, expiresAt: now.addingTimeInterval(365 * 86_400), now: now)
            let code = "4/0" + SecureRandom.token(byteCount: 32)
            // Google hands out a refresh token for offline access on first consent, or when the
            // client forces the consent screen again with prompt=consent.
            let issued = IssuedCode(clientID: authorization.client.clientID, redirectURI: authorization.redirectURI,
                                    account: account, scopes: authorization.scopes, nonce: authorization.nonce,
                                    codeChallenge: authorization.codeChallenge,
                                    issueRefreshToken: authorization.offline && (firstConsent || authorization.forceConsent))
            codes.put(code, issued, expiresAt: now.addingTimeInterval(codeLifetime), now: now)
            if let state = authorization.state { fields.append(("state", state)) }
            fields += [("code", code), ("scope", Self.grantedScopeString(authorization.scopes)), ("authuser", "0")]
            if account.isWorkspaceAccount { fields.append(("hd", account.domain)) }
            fields.append(("prompt", firstConsent || authorization.forceConsent ? "consent" : "none"))
            return SimulatorHTTP.found(SimulatorHTTP.redirectURL(authorization.redirectURI, fields))
        }
    }

    /// Google's checks. Like Google, errors are shown on an error page rather than redirected.
    func parseAuthorization(_ form: URLEncodedForm, userAgent: String) throws(PageRejection) -> AuthorizationRequest {
        func fail(_ code: String, _ message: String, _ status: HTTPStatus = .badRequest) -> PageRejection {
            PageRejection(response: SimulatorPages.error(provider: "Google", code: "Error \(status.code): \(code)",
                                                         message: message, status: status))
        }
        if rejectsEmbeddedWebViews, Self.isEmbeddedWebView(userAgent: userAgent) {
            throw fail("disallowed_useragent", "This browser or app may not be secure. Google does not allow sign-in from embedded web views; use the system browser.", .forbidden)
        }
        var values: [String: String] = [:]
        for name in Self.parameterNames {
            do { values[name] = try form.single(name) } catch { throw fail("invalid_request", "Parameter \(name) appears more than once.") }
        }
        guard let clientID = values["client_id"], let client = clients[clientID] else {
            throw fail("invalid_client", "The OAuth client was not found.", .unauthorized)
        }
        guard let redirectURI = values["redirect_uri"], client.redirectURIs.contains(redirectURI) else {
            throw fail("redirect_uri_mismatch", "The redirect URI in the request does not match the ones authorized for the OAuth client.")
        }
        guard values["response_type"] == "code" else {
            throw fail("unsupported_response_type", "The simulator supports response_type=code only.")
        }
        let scopes = (values["scope"] ?? "").split(separator: " ").map(String.init)
        guard !scopes.isEmpty else { throw fail("invalid_request", "Missing required parameter: scope") }
        guard scopes.allSatisfy(Self.knownScopes.contains) else { throw fail("invalid_scope", "Some requested scopes were invalid.") }
        guard scopes.contains("openid") else { throw fail("invalid_scope", "The simulator needs the openid scope (it issues id_tokens).") }
        let challenge = values["code_challenge"]
        if let challenge {
            guard values["code_challenge_method"] == "S256" else {
                throw fail("invalid_request", "code_challenge_method must be S256 (plain, or a missing method, is refused).")
            }
            guard (43...128).contains(challenge.utf8.count) else { throw fail("invalid_request", "Invalid code_challenge.") }
        } else if client.requiresPKCE {
            throw fail("invalid_request", "This client must send code_challenge with code_challenge_method=S256.")
        } else if values["code_challenge_method"] != nil {
            throw fail("invalid_request", "code_challenge_method without code_challenge.")
        }
        guard ["online", "offline", nil].contains(values["access_type"]) else {
            throw fail("invalid_request", "Invalid access_type: use online or offline.")
        }
        let prompts = (values["prompt"] ?? "").split(separator: " ").map(String.init)
        let parameters = Self.parameterNames.compactMap { name in values[name].map { (name, $0) } }
        return AuthorizationRequest(client: client, redirectURI: redirectURI, scopes: scopes, state: values["state"],
                                    nonce: values["nonce"], codeChallenge: challenge, offline: values["access_type"] == "offline",
                                    forceConsent: prompts.contains("consent"), loginHint: values["login_hint"],
                                    parameters: parameters)
    }
}
