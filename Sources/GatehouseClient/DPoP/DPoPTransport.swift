import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` that adds a DPoP proof to every request it sends (RFC 9449): token requests
/// get a proof of the request, and a request with `Authorization: Bearer <token>` is sent as
/// `Authorization: DPoP <token>` with a proof carrying the token's hash. It remembers the server's
/// `DPoP-Nonce` and, when a request is refused with `use_dpop_nonce`, sends it once more with the
/// nonce (§8.1). Give it to `OAuthClient` and the API client alike, with the same key as long as the
/// tokens live: the key is what makes them usable.
public struct DPoPTransport: HTTPTransport {
    let base: any HTTPTransport
    public let proofs: DPoPProofs
    private let nonce = NonceStore()

    public init(key: any DPoPKey, base: any HTTPTransport = URLSessionTransport()) {
        self.base = base
        proofs = DPoPProofs(key: key)
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let first = try await base.send(try prove(request, nonce: await nonce.value))
        if let sent = first.1.value(forHTTPHeaderField: "DPoP-Nonce") { await nonce.set(sent) }
        guard Self.asksForNonce(first.1, body: first.0) else { return first }
        let second = try await base.send(try prove(request, nonce: await nonce.value))
        if let sent = second.1.value(forHTTPHeaderField: "DPoP-Nonce") { await nonce.set(sent) }
        return second
    }

    private func prove(_ request: URLRequest, nonce: String?) throws -> URLRequest {
        var proved = request
        guard let url = request.url else { return request }
        var accessToken: String?
        if let authorization = request.value(forHTTPHeaderField: "Authorization"),
           authorization.lowercased().hasPrefix("bearer ") {
            let token = String(authorization.dropFirst("bearer ".count))
            accessToken = token
            proved.setValue("DPoP " + token, forHTTPHeaderField: "Authorization")
        }
        proved.setValue(try proofs.proof(method: request.httpMethod ?? "GET", url: url, accessToken: accessToken,
                                         nonce: nonce), forHTTPHeaderField: "DPoP")
        return proved
    }

    /// True when the server refused the request for want of a (fresh) nonce.
    static func asksForNonce(_ response: HTTPURLResponse, body: Data) -> Bool {
        let challenge = response.value(forHTTPHeaderField: "WWW-Authenticate") ?? ""
        if response.statusCode == 401 { return challenge.contains("use_dpop_nonce") }
        guard response.statusCode == 400,
              let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return false }
        return object["error"] as? String == "use_dpop_nonce"
    }

    /// The nonce the server sent last (every answer of a DPoP endpoint may carry one).
    public func currentNonce() async -> String? { await nonce.value }
}

/// The last `DPoP-Nonce`: shared by the concurrent requests of one transport.
private actor NonceStore {
    private(set) var value: String?
    func set(_ nonce: String) { value = nonce }
}
