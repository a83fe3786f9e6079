import Foundation
import GatehouseCrypto
import GatehouseHTTP

extension AppleSimulator {
    /// Refresh tokens live long at Apple (until revoked); here they are bounded by store capacity.
    static let refreshTokenLifetime: TimeInterval = 180 * 86_400

    /// `POST /auth/token`.
    func token(_ request: Request) -> Response {
        guard let form = try? request.form() else { return SimulatorHTTP.oauthError("invalid_request") }
        guard case .success(let client) = authenticate(form) else { return SimulatorHTTP.oauthError("invalid_client") }
        let now = clock()
        do {
            switch form["grant_type"] {
            case "authorization_code":
                guard let code = form["code"], !code.isEmpty else { return SimulatorHTTP.oauthError("invalid_request") }
                // Taken (removed) before checking: a code is spent by any attempt to redeem it.
                guard let issued = codes.take(code, now: now), issued.clientID == client.clientID,
                      // Native codes were issued without a redirect URI, and are redeemed without one.
                      (form["redirect_uri"] ?? "") == issued.redirectURI else {
                    return SimulatorHTTP.oauthError("invalid_grant", description: "The code has expired or has been revoked.")
                }
                let accessToken = SimulatorHTTP.token("a", bytes: 24) + ".0.simulated"
                let refreshToken = SimulatorHTTP.token("r", bytes: 24) + ".0.simulated"
                refreshTokens.put(refreshToken, Grant(clientID: client.clientID, identity: issued.identity,
                                                      includeEmail: issued.includeEmail, authTime: issued.authTime),
                                  expiresAt: now.addingTimeInterval(Self.refreshTokenLifetime), now: now)
                let idToken = try idToken(clientID: client.clientID, identity: issued.identity, includeEmail: issued.includeEmail,
                                          nonce: issued.nonce, authTime: issued.authTime, accessToken: accessToken)
                return SimulatorHTTP.json([
                    "access_token": .string(accessToken), "token_type": .string("Bearer"),
                    "expires_in": .integer(Int64(Self.accessTokenLifetime)), "refresh_token": .string(refreshToken),
                    "id_token": .string(idToken),
                ])
            case "refresh_token":
                guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
                    return SimulatorHTTP.oauthError("invalid_request")
                }
                guard let grant = refreshTokens.get(refreshToken, now: now), grant.clientID == client.clientID else {
                    return SimulatorHTTP.oauthError("invalid_grant", description: "The token has expired or has been revoked.")
                }
                let accessToken = SimulatorHTTP.token("a", bytes: 24) + ".0.simulated"
                // Apple's refresh answer has no new refresh token and an id_token without a nonce.
                let idToken = try idToken(clientID: client.clientID, identity: grant.identity, includeEmail: grant.includeEmail,
                                          nonce: nil, authTime: grant.authTime, accessToken: accessToken)
                return SimulatorHTTP.json([
                    "access_token": .string(accessToken), "token_type": .string("Bearer"),
                    "expires_in": .integer(Int64(Self.accessTokenLifetime)), "id_token": .string(idToken),
                ])
            case nil:
                return SimulatorHTTP.oauthError("invalid_request")
            default:
                return SimulatorHTTP.oauthError("unsupported_grant_type")
            }
        } catch {
            return SimulatorHTTP.oauthError("server_error", status: .internalServerError)
        }
    }

    /// `POST /auth/revoke`, as Apple behaves: client authentication as for the token endpoint, then 200
    /// with an empty body for *any* token — but only a refresh token issued to the authenticated client
    /// stops working. A revoke sent by another client of the team (the web Services ID for a token a
    /// native app got, say) is answered 200 and changes nothing; ``Revocation/revoked`` records which.
    func revoke(_ request: Request) -> Response {
        guard let form = try? request.form() else { return SimulatorHTTP.oauthError("invalid_request") }
        guard case .success(let client) = authenticate(form) else { return SimulatorHTTP.oauthError("invalid_client") }
        guard let token = form["token"], !token.isEmpty else { return SimulatorHTTP.oauthError("invalid_request") }
        let now = clock()
        var revoked = false
        if let grant = refreshTokens.get(token, now: now), grant.clientID == client.clientID {
            refreshTokens.remove(token)
            revoked = true
        }
        record(Revocation(clientID: client.clientID, token: token, tokenTypeHint: form["token_type_hint"], revokedAt: now,
                          revoked: revoked))
        var response = Response(status: .ok)
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// The client named by `client_id`, if its `client_secret` JWT passes ``AppleClientSecret/verify(_:for:now:)``.
    func authenticate(_ form: URLEncodedForm) -> Result<AppleClient, AppleClientSecret.Rejection> {
        guard let clientID = form["client_id"], let client = clients[clientID], let secret = form["client_secret"] else {
            return .failure(.malformed)
        }
        do throws(AppleClientSecret.Rejection) {
            try AppleClientSecret.verify(secret, for: client, now: clock())
            return .success(client)
        } catch {
            return .failure(error)
        }
    }
}
