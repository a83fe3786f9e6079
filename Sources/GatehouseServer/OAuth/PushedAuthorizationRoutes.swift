import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity

/// `POST /oauth/par` (RFC 9126 §2): the client authenticates as at the token endpoint and pushes its
/// authorization parameters; the answer is `201` with the `request_uri` to send the browser with.
struct PushedAuthorizationRoutes: Sendable {
    let pushed: PushedAuthorizationRequests
    let registry: ClientRegistry
    let origins: WebOriginCache
    let log: ServerLog

    func register(into router: inout Router) {
        router.post("/oauth/par") { request async in
            var response: Response
            do {
                let pairs = try OAuthResponses.authorizationForm(request)
                let parameters = Dictionary(pairs.filter { $0.key != "resource" }.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
                let credentials = try OAuthResponses.clientCredentials(request, parameters)
                let client = try await registry.authenticate(credentials)
                let (uri, expiresIn) = try await pushed.push(pairs, client: client)
                response = OAuthResponses.json(object: ["request_uri": .string(uri), "expires_in": .integer(Int64(expiresIn))])
                response.status = .created
            } catch let error as OAuthError {
                response = OAuthResponses.error(error)
            } catch {
                log.error("par failed", [("request_id", request.requestID), ("error", String(describing: error))])
                response = OAuthResponses.unexpected(error)
            }
            OAuthResponses.allowCORS(&response, request: request, allowed: await origins.origins())
            return response
        }
    }
}
