import Foundation
import GatehouseCrypto
import GatehouseHTTP

extension AppleSimulator {
    /// A validated authorization request.
    struct AuthorizationRequest {
        var client: AppleClient
        var redirectURI: String
        var wantsIDToken: Bool
        var responseMode: String
        var scopes: [String]
        var state: String?
        var nonce: String?
        /// The original parameters, carried through the picker in hidden inputs.
        var parameters: [(String, String)]
    }

    static let allowedScopes: Set<String> = ["name", "email"]

    /// `GET|POST /auth/authorize`: validate, then show the picker.
    func authorize(_ request: Request) throws -> Response {
        try Response.catchingRejection {
            let authorization = try parseAuthorization(try SimulatorHTTP.parameters(request))
            return SimulatorPages.picker(provider: "Apple", action: pathPrefix + "/auth/authorize/complete",
                                         hidden: authorization.parameters, options: .init(privateRelay: true),
                                         clientID: authorization.client.clientID)
        }
    }

    /// `POST /auth/authorize/complete`: the picker's answer, delivered to the client's redirect URI.
    func complete(_ request: Request) throws -> Response {
        try Response.catchingRejection {
            let form = try request.form()
            // The hidden inputs are re-validated: a test (or anyone) can post anything here.
            let authorization = try parseAuthorization(form)
            var fields: [(String, String)] = []
            if let state = authorization.state { fields.append(("state", state)) }
            guard form["action"] != "cancel" else {
                return deliver(authorization, fields + [("error", "user_cancelled_authorize")])
            }
            let account = try SimulatedAccount.fromPicker(form, provider: "Apple")
            let client = authorization.client
            let identity = identity(for: account, client: client)
            let now = clock()
            let consentKey = client.clientID + "|" + identity.subject
            let previous = consents.get(consentKey, now: now)
            let granted = (previous ?? []).union(authorization.scopes)
            consents.put(consentKey, granted, expiresAt: now.addingTimeInterval(365 * 86_400), now: now)

            let code = SimulatorHTTP.token("c", bytes: 24) + ".0.simulated"
            let issued = IssuedCode(clientID: client.clientID, redirectURI: authorization.redirectURI, identity: identity,
                                    nonce: authorization.nonce, authTime: now, includeEmail: granted.contains("email"))
            codes.put(code, issued, expiresAt: now.addingTimeInterval(codeLifetime), now: now)
            fields.append(("code", code))
            if authorization.wantsIDToken {
                fields.append(("id_token", try idToken(clientID: client.clientID, identity: identity,
                                                       includeEmail: issued.includeEmail, nonce: authorization.nonce,
                                                       authTime: now, code: code)))
            }
            // Apple sends the user's name and email once only: on the first authorization.
            if previous == nil, !authorization.scopes.isEmpty {
                var user: [String: JSONValue] = [:]
                if authorization.scopes.contains("name") {
                    user["name"] = .object(["firstName": .string(account.givenName), "lastName": .string(account.familyName)])
                }
                if authorization.scopes.contains("email") { user["email"] = .string(identity.email) }
                fields.append(("user", String(decoding: JSONValue.object(user).jsonBytes, as: UTF8.self)))
            }
            return deliver(authorization, fields)
        }
    }

    /// Sends `fields` back the way the request asked (`form_post`, `query` or `fragment`).
    private func deliver(_ authorization: AuthorizationRequest, _ fields: [(String, String)]) -> Response {
        switch authorization.responseMode {
        case "form_post": SimulatorPages.autoPost(action: authorization.redirectURI, fields: fields)
        case "fragment": SimulatorHTTP.found(SimulatorHTTP.redirectURL(authorization.redirectURI, fields, fragment: true))
        default: SimulatorHTTP.found(SimulatorHTTP.redirectURL(authorization.redirectURI, fields))
        }
    }

    /// Apple's checks, in Apple's order. Failures show an error page: with an untrusted client or
    /// redirect URI there is nowhere safe to send the user back to.
    func parseAuthorization(_ form: URLEncodedForm) throws(PageRejection) -> AuthorizationRequest {
        func fail(_ code: String, _ message: String) -> PageRejection {
            PageRejection(response: SimulatorPages.error(provider: "Apple", code: code, message: message))
        }
        var values: [String: String] = [:]
        for name in ["client_id", "redirect_uri", "response_type", "response_mode", "scope", "state", "nonce"] {
            do { values[name] = try form.single(name) } catch { throw fail("invalid_request", "The parameter \(name) appears more than once.") }
        }
        guard let clientID = values["client_id"], let client = clients[clientID] else {
            throw fail("invalid_client", "The client_id is missing or not registered.")
        }
        guard let redirectURI = values["redirect_uri"], client.redirectURIs.contains(redirectURI) else {
            throw fail("invalid_request", "Invalid web redirect url.")
        }
        let responseTypes = Set((values["response_type"] ?? "").split(separator: " ").map(String.init))
        guard responseTypes == ["code"] || responseTypes == ["code", "id_token"] else {
            throw fail("unsupported_response_type", "response_type must be \"code\" or \"code id_token\".")
        }
        let scopes = (values["scope"] ?? "").split(separator: " ").map(String.init)
        guard scopes.allSatisfy(Self.allowedScopes.contains) else {
            throw fail("invalid_scope", "Valid scope values are name and email.")
        }
        let wantsIDToken = responseTypes.contains("id_token")
        let mode = values["response_mode"] ?? (wantsIDToken ? "fragment" : "query")
        guard ["query", "fragment", "form_post"].contains(mode) else {
            throw fail("invalid_request", "response_mode must be query, fragment or form_post.")
        }
        guard scopes.isEmpty || mode == "form_post" else {
            throw fail("invalid_request", "response_mode must be form_post when name or email scope is requested.")
        }
        guard !(wantsIDToken && mode == "query") else {
            throw fail("invalid_request", "response_mode query is not allowed when response_type includes id_token.")
        }
        let parameters = ["client_id", "redirect_uri", "response_type", "response_mode", "scope", "state", "nonce"]
            .compactMap { name in values[name].map { (name, $0) } }
        return AuthorizationRequest(client: client, redirectURI: redirectURI, wantsIDToken: wantsIDToken, responseMode: mode,
                                    scopes: scopes, state: values["state"], nonce: values["nonce"], parameters: parameters)
    }
}
