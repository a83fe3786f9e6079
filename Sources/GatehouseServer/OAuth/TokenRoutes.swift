import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity

/// `/oauth/token`, `/oauth/revoke`, `/oauth/introspect`, `/oauth/userinfo`, and the CORS preflights a
/// browser client sends first (`registerPreflights`).
struct TokenRoutes: Sendable {
    let tokens: TokenService
    let log: ServerLog
    /// Counts issued token responses by grant type.
    let issued: Counter

    var dpop: DPoPRequests { DPoPRequests(verifier: tokens.dpop, issuer: tokens.issuer.settings.issuer) }

    func register(into router: inout Router) {
        let dpop = dpop
        router.post("/oauth/token") { request async in
            await answer(request) { parameters in
                let credentials = try OAuthResponses.clientCredentials(request, parameters)
                let proof = try await dpop.proof(request, path: "/oauth/token")
                let response = try await tokens.token(parameters: parameters, credentials: credentials,
                                                      context: request.clientContext, proof: proof)
                // Only grants that succeeded, so the label set stays the supported grants.
                issued.increment([parameters["grant_type"] ?? ""])
                return OAuthResponses.json(object: response.jsonObject)
            }
        }
        router.post("/oauth/revoke") { request async in
            await answer(request) { parameters in
                let credentials = try OAuthResponses.clientCredentials(request, parameters)
                guard let token = parameters["token"], !token.isEmpty else { throw OAuthError.invalidRequest("The token parameter is missing.") }
                let proof = try await dpop.proof(request, path: "/oauth/revoke")
                try await tokens.revoke(token: token, hint: parameters["token_type_hint"], credentials: credentials, proof: proof)
                return Response(status: .ok)
            }
        }
        router.post("/oauth/introspect") { request async in
            await answer(request) { parameters in
                let credentials = try OAuthResponses.clientCredentials(request, parameters)
                guard let token = parameters["token"], !token.isEmpty else { throw OAuthError.invalidRequest("The token parameter is missing.") }
                // A resource server may prove its own key here; the proof is checked, the answer does not depend on it.
                _ = try await dpop.proof(request, path: "/oauth/introspect")
                return OAuthResponses.json(object: try await tokens.introspect(token: token, hint: parameters["token_type_hint"],
                                                                               credentials: credentials))
            }
        }
        let userinfo: @Sendable (Request) async -> Response = { request in
            let dpopScheme = request.headers["Authorization"].flatMap { HTTPWhitespace.credentials($0, scheme: "dpop") } != nil
            do {
                guard let token = try accessToken(request) else { return OAuthResponses.bearerChallenge() }
                // A DPoP token's proof covers this request and the token (`ath`); a Bearer request's header is ignored.
                let proof = dpopScheme ? try await dpop.proof(request, path: "/oauth/userinfo", accessToken: token) : nil
                if dpopScheme, proof == nil { throw OAuthError(.invalidDPoPProof, "Authorization: DPoP needs a DPoP proof header.") }
                var response = OAuthResponses.json(object: try await tokens.userInfo(accessToken: token, proof: proof))
                dpop.addNonce(&response)
                return response
            } catch let error as OAuthError {
                var response = dpop.resourceError(error, dpopScheme: dpopScheme)
                dpop.addNonce(&response)
                return response
            } catch {
                log.error("userinfo failed", [("request_id", request.requestID), ("error", String(describing: error))])
                return OAuthResponses.unexpected(error)
            }
        }
        router.get("/oauth/userinfo", userinfo)
        router.post("/oauth/userinfo", userinfo)
    }

    /// The preflights (`OPTIONS`) of the endpoints a browser client calls with non-simple headers; the CORS
    /// group they are registered in answers the origin.
    static func registerPreflights(into router: inout Router) {
        for path in ["/oauth/token", "/oauth/userinfo", "/oauth/jwks", "/oauth/revoke"] {
            router.on(.options, path) { _ in
                var response = Response(status: .noContent)
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
        dpop.addNonce(&response)
        return response
    }

    /// The access token from `Authorization: Bearer` or `DPoP` (RFC 9449 §7.1) or, for POST, the
    /// `access_token` form field (RFC 6750); nil when the request carries no such credentials at all (none, or
    /// another scheme such as Basic), which gets the bare challenge of RFC 6750 §3.1.
    private func accessToken(_ request: Request) throws(OAuthError) -> String? {
        if let header = request.headers["Authorization"] {
            guard let token = HTTPWhitespace.credentials(header, scheme: "bearer") ?? HTTPWhitespace.credentials(header, scheme: "dpop") else {
                let scheme = header.split(separator: " ", maxSplits: 1).first.map { $0.lowercased() }
                if scheme != "bearer", scheme != "dpop" { return nil }
                throw OAuthError(.invalidToken, "Use Authorization: Bearer <access token> (or DPoP <access token> with a proof).")
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
