import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity

/// The HTTP side of DPoP (RFC 9449): the one `DPoP` header of a request, the `DPoP-Nonce` header of
/// every answer when nonces are required, and the `WWW-Authenticate: DPoP` challenge of resource errors.
/// The checks themselves are `DPoPVerifier`'s.
struct DPoPRequests: Sendable {
    let verifier: DPoPVerifier
    /// The public URL endpoints are reached at (the issuer: what discovery advertises).
    let issuer: String

    /// The request's verified proof for the endpoint at `path`, or nil when it sent none.
    /// Two `DPoP` headers are refused (RFC 9449 §4.3 item 1).
    func proof(_ request: Request, path: String, accessToken: String? = nil) async throws -> DPoPProof? {
        let values = request.headers.values("DPoP")
        guard !values.isEmpty else { return nil }
        guard values.count == 1 else { throw OAuthError(.invalidDPoPProof, "Send one DPoP header, not several.") }
        return try await verifier.verify(values[0], method: request.method.rawValue, uri: issuer + path, accessToken: accessToken)
    }

    /// Adds the current nonce, so the client's next proof can carry it without a refused round trip.
    func addNonce(_ response: inout Response) {
        guard verifier.nonceRequired else { return }
        response.headers.set("DPoP-Nonce", verifier.nonces.current())
        // A browser client must be able to read it (CORS hides non-safelisted headers).
        response.headers.set("Access-Control-Expose-Headers", "DPoP-Nonce, WWW-Authenticate")
    }

    /// A resource request's error (userinfo): RFC 9449 §7.1 answers with 401 and a `DPoP` challenge
    /// naming the accepted algorithms when the request used, or its token needs, DPoP.
    func resourceError(_ error: OAuthError, dpopScheme: Bool) -> Response {
        var response = OAuthResponses.error(error)
        let dpopError = error.code == .invalidDPoPProof || error.code == .useDPoPNonce
        guard dpopScheme || dpopError else { return response }
        if dpopError { response.status = .unauthorized }
        let algs = DPoPVerifier.algorithms.map(\.rawValue).joined(separator: " ")
        response.headers.set("WWW-Authenticate", #"DPoP error="\#(error.code.rawValue)", algs="\#(algs)""#)
        return response
    }
}
