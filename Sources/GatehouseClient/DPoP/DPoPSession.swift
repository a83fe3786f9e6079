import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One client's DPoP (RFC 9449): its key's proofs, and the last `DPoP-Nonce` each server sent (the
/// authorization server and a resource server keep separate nonces, §8 and §9, so they are kept per
/// origin). `OAuthClient` uses it at the token, userinfo and revocation endpoints; ``sign(_:accessToken:)``
/// prepares an API request the same way.
public struct DPoPSession: Sendable {
    public let proofs: DPoPProofs
    private let nonces = DPoPNonceCache()

    public init(key: any DPoPKey) { proofs = DPoPProofs(key: key) }

    /// The key every proof is made with (what the tokens are bound to).
    public var key: any DPoPKey { proofs.key }

    /// `request` with a fresh proof in its `DPoP` header (with the nonce last seen from its server); with an
    /// `accessToken`, also `Authorization: DPoP <token>` and the token's hash (`ath`) in the proof (§7.1).
    public func sign(_ request: URLRequest, accessToken: String? = nil) async throws -> URLRequest {
        guard let url = request.url else { return request }
        var signed = request
        if let accessToken { signed.setValue("DPoP " + accessToken, forHTTPHeaderField: "Authorization") }
        let nonce = await nonces.nonce(for: Self.origin(url))
        signed.setValue(try proofs.proof(method: request.httpMethod ?? "GET", url: url, accessToken: accessToken, nonce: nonce),
                        forHTTPHeaderField: "DPoP")
        return signed
    }

    /// Sends `request` signed (see ``sign(_:accessToken:)``) over `transport`, remembers the server's
    /// `DPoP-Nonce`, and when the server refused it for want of a (fresh) nonce — a token endpoint's 400
    /// `use_dpop_nonce`, a resource's 401 with `WWW-Authenticate: DPoP error="use_dpop_nonce"` — sends it
    /// once more with a new proof carrying that nonce (§8.1, §9.1). Never more than one retry.
    public func send(_ request: URLRequest, accessToken: String? = nil, over transport: any HTTPTransport) async throws -> (Data, HTTPURLResponse) {
        let first = try await transport.send(try await sign(request, accessToken: accessToken))
        await remember(first.1)
        guard Self.asksForNonce(first.1, body: first.0) else { return first }
        let second = try await transport.send(try await sign(request, accessToken: accessToken))
        await remember(second.1)
        return second
    }

    /// The nonce last seen from `url`'s server.
    public func currentNonce(for url: URL) async -> String? { await nonces.nonce(for: Self.origin(url)) }

    private func remember(_ response: HTTPURLResponse) async {
        guard let nonce = response.value(forHTTPHeaderField: "DPoP-Nonce"), let url = response.url else { return }
        await nonces.set(nonce, for: Self.origin(url))
    }

    /// True when the server refused the request for want of a (fresh) nonce.
    static func asksForNonce(_ response: HTTPURLResponse, body: Data) -> Bool {
        if response.statusCode == 401 {
            let challenge = response.value(forHTTPHeaderField: "WWW-Authenticate") ?? ""
            return challenge.lowercased().hasPrefix("dpop") && challenge.contains(#"error="use_dpop_nonce""#)
        }
        guard response.statusCode == 400,
              let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return false }
        return object["error"] as? String == "use_dpop_nonce"
    }

    static func origin(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? "")\(url.port.map { ":\($0)" } ?? "")"
    }
}

/// The last `DPoP-Nonce` per server origin: shared by the concurrent requests of one session.
private actor DPoPNonceCache {
    private var values: [String: String] = [:]
    func nonce(for origin: String) -> String? { values[origin] }
    func set(_ nonce: String, for origin: String) { values[origin] = nonce }
}
