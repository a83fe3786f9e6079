import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity

/// `POST /oauth/par` (RFC 9126 §2): the client authenticates as at the token endpoint and pushes its
/// authorization parameters; the answer is `201` with the `request_uri` to send the browser with.
struct PushedAuthorizationRoutes: Sendable {
    let pushed: PushedAuthorizationRequests
    let registry: ClientRegistry
    let log: ServerLog
    /// A `DPoP` proof sent with the push binds the code to its key (RFC 9449 §10.1).
    let dpop: DPoPRequests

    func register(into router: inout Router) {
        router.post("/oauth/par") { request async in
            var response: Response
            do {
                var pairs = try OAuthResponses.authorizationForm(request)
                let parameters = Dictionary(pairs.filter { $0.key != "resource" }.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
                let credentials = try OAuthResponses.clientCredentials(request, parameters)
                let client = try await registry.authenticate(credentials)
                // RFC 9449 §10.1: a proof with the push stands for `dpop_jkt`; sent with one, the two must agree.
                if let proof = try await dpop.proof(request, path: "/oauth/par") {
                    if let named = parameters["dpop_jkt"] {
                        guard ConstantTime.equals(named, proof.thumbprint) else {
                            throw OAuthError(.invalidDPoPProof, "dpop_jkt is not the thumbprint of the DPoP proof's key.")
                        }
                    } else {
                        pairs.append((key: "dpop_jkt", value: proof.thumbprint))
                    }
                }
                let (uri, expiresIn) = try await pushed.push(pairs, client: client)
                response = OAuthResponses.json(object: ["request_uri": .string(uri), "expires_in": .integer(Int64(expiresIn))])
                response.status = .created
            } catch let error as OAuthError {
                response = OAuthResponses.error(error)
            } catch {
                log.error("par failed", [("request_id", request.requestID), ("error", String(describing: error))])
                response = OAuthResponses.unexpected(error)
            }
            dpop.addNonce(&response)
            return response
        }
    }
}
