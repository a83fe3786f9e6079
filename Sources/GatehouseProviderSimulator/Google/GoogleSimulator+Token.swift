import Foundation
import GatehouseCrypto
import GatehouseHTTP

extension GoogleSimulator {
    static let refreshTokenLifetime: TimeInterval = 180 * 86_400

    /// `POST /token`: `client_secret_post` or `client_secret_basic`, then the grant.
    func token(_ request: Request) -> Response {
        guard let form = try? request.form() else { return SimulatorHTTP.oauthError("invalid_request", description: "Bad Request") }
        guard let client = authenticate(request, form) else {
            return SimulatorHTTP.oauthError("invalid_client", description: "Unauthorized", status: .unauthorized)
        }
        let now = clock()
        do {
            switch form["grant_type"] {
            case "authorization_code":
                guard let code = form["code"], !code.isEmpty else {
                    return SimulatorHTTP.oauthError("invalid_request", description: "Missing required parameter: code")
                }
                guard let issued = codes.take(code, now: now), issued.clientID == client.clientID else {
                    return SimulatorHTTP.oauthError("invalid_grant", description: "Malformed auth code.")
                }
                guard form["redirect_uri"] == issued.redirectURI else {
                    return SimulatorHTTP.oauthError("redirect_uri_mismatch", description: "Bad Request")
                }
                let verifier = form["code_verifier"]
                if let challenge = issued.codeChallenge {
                    guard let verifier else { return SimulatorHTTP.oauthError("invalid_grant", description: "Missing code verifier.") }
                    guard PKCE.verify(verifier: verifier, challenge: challenge) else {
                        return SimulatorHTTP.oauthError("invalid_grant", description: "Invalid code verifier.")
                    }
                } else if verifier != nil {
                    return SimulatorHTTP.oauthError("invalid_grant", description: "Invalid code verifier.")
                }
                let grant = Grant(clientID: client.clientID, account: issued.account, scopes: issued.scopes)
                var body = try issueTokens(grant, nonce: issued.nonce, now: now)
                if issued.issueRefreshToken {
                    let refreshToken = "1//" + SecureRandom.token(byteCount: 32)
                    refreshTokens.put(refreshToken, grant, expiresAt: now.addingTimeInterval(Self.refreshTokenLifetime), now: now)
                    body["refresh_token"] = .string(refreshToken)
                }
                return SimulatorHTTP.json(body)
            case "refresh_token":
                guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
                    return SimulatorHTTP.oauthError("invalid_request", description: "Missing required parameter: refresh_token")
                }
                guard let grant = refreshTokens.get(refreshToken, now: now), grant.clientID == client.clientID else {
                    return SimulatorHTTP.oauthError("invalid_grant", description: "Token has been expired or revoked.")
                }
                return SimulatorHTTP.json(try issueTokens(grant, nonce: nil, now: now))
            case nil:
                return SimulatorHTTP.oauthError("invalid_request", description: "Missing required parameter: grant_type")
            default:
                return SimulatorHTTP.oauthError("unsupported_grant_type", description: "Invalid grant_type: \(form["grant_type"] ?? "")")
            }
        } catch {
            return SimulatorHTTP.oauthError("internal_failure", status: .internalServerError)
        }
    }

    private func issueTokens(_ grant: Grant, nonce: String?, now: Date) throws -> [String: JSONValue] {
        let accessToken = "ya29." + SecureRandom.token(byteCount: 48)
        accessTokens.put(accessToken, grant, expiresAt: now.addingTimeInterval(Self.tokenLifetime), now: now)
        return [
            "access_token": .string(accessToken), "expires_in": .integer(Int64(Self.tokenLifetime)),
            "scope": .string(Self.grantedScopeString(grant.scopes)), "token_type": .string("Bearer"),
            "id_token": .string(try idToken(clientID: grant.clientID, account: grant.account, scopes: grant.scopes,
                                            nonce: nonce, accessToken: accessToken)),
        ]
    }

    /// The client, from an `Authorization: Basic` header or from `client_id`/`client_secret` in the form.
    private func authenticate(_ request: Request, _ form: URLEncodedForm) -> GoogleClient? {
        let credentials = SimulatorHTTP.basicCredentials(request)
            ?? form["client_id"].flatMap { id in form["client_secret"].map { (id: id, secret: $0) } }
        guard let credentials, let client = clients[credentials.id],
              SimulatorHTTP.secretsMatch(credentials.secret, client.clientSecret) else { return nil }
        return client
    }

    /// `GET|POST /userinfo` with `Authorization: Bearer`.
    func userinfo(_ request: Request) -> Response {
        guard let token = SimulatorHTTP.authorizationToken(request, schemes: ["Bearer"]),
              let grant = accessTokens.get(token, now: clock()) else {
            var response = SimulatorHTTP.oauthError("invalid_request", description: "Invalid Credentials", status: .unauthorized)
            response.headers.set("WWW-Authenticate", #"Bearer realm="https://accounts.google.com/", error="invalid_token""#)
            return response
        }
        return SimulatorHTTP.json(profileClaims(grant.account, scopes: grant.scopes))
    }
}
