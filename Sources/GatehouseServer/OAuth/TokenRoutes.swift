import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity

/// `/oauth/token`, `/oauth/revoke`, `/oauth/introspect`, `/oauth/userinfo`.
struct TokenRoutes: Sendable {
    let tokens: TokenService
    let origins: WebOriginCache
    let log: ServerLog

    func register(into router: inout Router) {
        router.post("/oauth/token") { request async in
            await answer(request) { parameters in
                let credentials = try OAuthResponses.clientCredentials(request, parameters)
                return OAuthResponses.json(object: try await tokens.token(parameters: parameters, credentials: credentials,
                                                                         context: request.clientContext).jsonObject)
            }
        }
        router.post("/oauth/revoke") { request async in
            await answer(request) { parameters in
                let credentials = try OAuthResponses.clientCredentials(request, parameters)
                guard let token = parameters["token"], !token.isEmpty else { throw OAuthError.invalidRequest("The token parameter is missing.") }
                try await tokens.revoke(token: token, hint: parameters["token_type_hint"], credentials: credentials)
                var response = Response(status: .ok)
                OAuthResponses.noStore(&response)
                return response
            }
        }
        router.post("/oauth/introspect") { request async in
            await answer(request) { parameters in
                let credentials = try OAuthResponses.clientCredentials(request, parameters)
                guard let token = parameters["token"], !token.isEmpty else { throw OAuthError.invalidRequest("The token parameter is missing.") }
                return OAuthResponses.json(object: try await tokens.introspect(token: token, hint: parameters["token_type_hint"],
                                                                               credentials: credentials))
            }
        }
        let userinfo: @Sendable (Request) async -> Response = { request in
            do {
                guard let token = try bearerToken(request) else { return OAuthResponses.bearerChallenge() }
                var response = OAuthResponses.json(object: try await tokens.userInfo(accessToken: token))
                OAuthResponses.allowCORS(&response, request: request, allowed: await origins.origins())
                return response
            } catch let error as OAuthError {
                return OAuthResponses.error(error)
            } catch {
                log.error("userinfo failed", [("request_id", request.requestID), ("error", String(describing: error))])
                return OAuthResponses.unexpected(error)
            }
        }
        router.get("/oauth/userinfo", userinfo)
        router.post("/oauth/userinfo", userinfo)
        for path in ["/oauth/token", "/oauth/userinfo", "/oauth/jwks"] {
            router.on(.options, path) { request async in
                var response = Response(status: .noContent)
                OAuthResponses.allowCORS(&response, request: request, allowed: await origins.origins())
                response.headers.set("Access-Control-Max-Age", "600")
                return response
            }
        }
    }

    /// Runs a form-posting OAuth endpoint, mapping every failure to an RFC 6749 JSON error.
    private func answer(_ request: Request, _ body: ([String: String]) async throws -> Response) async -> Response {
        var response: Response
        do {
            response = try await body(try OAuthResponses.singleValuedForm(request))
        } catch let error as OAuthError {
            response = OAuthResponses.error(error)
        } catch {
            log.error("oauth endpoint failed", [("request_id", request.requestID), ("route", request.route ?? ""),
                                                ("error", String(describing: error))])
            response = OAuthResponses.unexpected(error)
        }
        OAuthResponses.allowCORS(&response, request: request, allowed: await origins.origins())
        return response
    }

    /// The access token from `Authorization: Bearer` or, for POST, the `access_token` form field (RFC 6750);
    /// nil when the request carries no Bearer credentials at all (none, or another scheme such as Basic).
    private func bearerToken(_ request: Request) throws(OAuthError) -> String? {
        if let header = request.headers["Authorization"] {
            guard let token = HTTPWhitespace.credentials(header, scheme: "bearer") else {
                let scheme = header.split(separator: " ", maxSplits: 1).first.map { $0.lowercased() }
                if scheme != "bearer" { return nil }
                throw OAuthError(.invalidToken, "Use Authorization: Bearer <access token>.")
            }
            return String(token)
        }
        if request.method == .post, request.mediaType == "application/x-www-form-urlencoded",
           let token = try OAuthResponses.singleValuedForm(request)["access_token"] {
            return token
        }
        return nil
    }
}
