import Foundation
import GatehouseCrypto
import GatehouseHTTP

extension GitHubSimulator {
    static let tokenLifetime: TimeInterval = 8 * 3_600

    /// `POST /login/oauth/access_token`. Parameters come from the form body or the query; the
    /// answer is form-encoded unless the client sends `Accept: application/json`. Errors are HTTP
    /// 200 with an `error` field, as GitHub answers.
    func accessToken(_ request: Request) -> Response {
        let json = (request.headers["Accept"] ?? "").contains("application/json")
        var parameters = request.query
        if !request.body.isEmpty {
            guard let form = try? request.form() else { return answer(error: "bad_request", "Unsupported body.", json: json) }
            for (key, value) in form.pairs { parameters.append(key, value) }
        }
        guard let clientID = parameters["client_id"], let client = clients[clientID],
              let secret = parameters["client_secret"], SimulatorHTTP.secretsMatch(secret, client.clientSecret) else {
            return answer(error: "incorrect_client_credentials", "The client_id and/or client_secret passed are incorrect.", json: json)
        }
        let now = clock()
        guard let code = parameters["code"], let issued = codes.take(code, now: now), issued.clientID == client.clientID else {
            return answer(error: "bad_verification_code", "The code passed is incorrect or expired.", json: json)
        }
        if let redirectURI = parameters["redirect_uri"], redirectURI != issued.redirectURI {
            return answer(error: "redirect_uri_mismatch", "The redirect_uri MUST match the registered callback URL for this application.", json: json)
        }
        if let challenge = issued.codeChallenge {
            guard let verifier = parameters["code_verifier"], PKCE.verify(verifier: verifier, challenge: challenge) else {
                return answer(error: "bad_verification_code",
                              "The code_verifier does not match the code_challenge supplied in the authorization request for PKCE.", json: json)
            }
        }
        let token = "gho_" + Base64URL.encode(SecureRandom.bytes(27)).replacingOccurrences(of: "-", with: "A")
            .replacingOccurrences(of: "_", with: "B")
        accessTokens.put(token, Grant(account: issued.account, scopes: issued.scopes),
                         expiresAt: now.addingTimeInterval(Self.tokenLifetime), now: now)
        let fields = [("access_token", token), ("scope", issued.scopes.joined(separator: ",")), ("token_type", "bearer")]
        return json ? SimulatorHTTP.json(Dictionary(uniqueKeysWithValues: fields.map { ($0.0, JSONValue.string($0.1)) }))
            : formAnswer(fields)
    }

    private func answer(error: String, _ description: String, json: Bool) -> Response {
        let fields = [("error", error), ("error_description", description),
                      ("error_uri", "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#\(error.replacingOccurrences(of: "_", with: "-"))")]
        return json ? SimulatorHTTP.json(Dictionary(uniqueKeysWithValues: fields.map { ($0.0, JSONValue.string($0.1)) }))
            : formAnswer(fields)
    }

    private func formAnswer(_ fields: [(String, String)]) -> Response {
        var response = Response(status: .ok, headers: ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8"],
                                body: Array(URLEncodedForm(pairs: fields).encoded.utf8))
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// `GET /api/user`: the authenticated user's public profile. `email` is the *public* email,
    /// which most users leave unset, so clients must read `/user/emails`.
    func user(_ request: Request) -> Response {
        guard let grant = authorizedGrant(request) else { return badCredentials() }
        let account = grant.account
        let login = login(forEmail: account.email)
        let id = userID(forEmail: account.email)
        let profile: [String: JSONValue] = [
            "login": .string(login), "id": .integer(id), "node_id": .string("U_sim" + String(id)),
            "avatar_url": .string("https://avatars.githubusercontent.com/u/\(id)?v=4"),
            "html_url": .string("https://github.com/" + login), "type": .string("User"), "site_admin": .bool(false),
            "name": .string(account.name), "email": .null,
        ]
        return SimulatorHTTP.json(profile)
    }

    /// `GET /api/user/emails`: needs the `user:email` (or `user`) scope. Lists the primary address
    /// (verified or not) and the always-verified `noreply` address, which is never primary.
    func emails(_ request: Request) -> Response {
        guard let grant = authorizedGrant(request) else { return badCredentials() }
        guard grant.scopes.contains("user:email") || grant.scopes.contains("user") else {
            return SimulatorHTTP.json(["message": .string("Not Found"), "documentation_url": .string(Self.documentationURL),
                                       "status": .string("404")], status: .notFound)
        }
        let account = grant.account
        let noreply = "\(userID(forEmail: account.email))+\(login(forEmail: account.email))@users.noreply.github.com"
        let list: [JSONValue] = [
            .object(["email": .string(account.email), "primary": .bool(true), "verified": .bool(account.emailVerified),
                     "visibility": .string("private")]),
            .object(["email": .string(noreply), "primary": .bool(false), "verified": .bool(true), "visibility": .null]),
        ]
        var response = Response.json(bytes: JSONValue.array(list).jsonBytes)
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    private func authorizedGrant(_ request: Request) -> Grant? {
        SimulatorHTTP.authorizationToken(request, schemes: ["Bearer", "token"]).flatMap { accessTokens.get($0, now: clock()) }
    }

    private func badCredentials() -> Response {
        SimulatorHTTP.json(["message": .string("Bad credentials"), "documentation_url": .string(Self.documentationURL),
                            "status": .string("401")], status: .unauthorized)
    }
}
