import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` that adds a DPoP proof to every request it sends (RFC 9449), for API clients that
/// do not go through `AuthorizedHTTPClient`: a request with `Authorization: Bearer <token>` is sent as
/// `Authorization: DPoP <token>` with a proof carrying the token's hash, any other request gets a proof of
/// the request alone; a `use_dpop_nonce` refusal is retried once with the server's nonce (a ``DPoPSession``
/// does the work). Do not also give it to an `OAuthClient` made with a `dpopKey`: that client proves its
/// own requests, and two proofs are refused.
public struct DPoPTransport: HTTPTransport {
    let base: any HTTPTransport
    public let session: DPoPSession

    public init(key: any DPoPKey, base: any HTTPTransport = URLSessionTransport()) {
        self.base = base
        session = DPoPSession(key: key)
    }

    public var proofs: DPoPProofs { session.proofs }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        var accessToken: String?
        if let authorization = request.value(forHTTPHeaderField: "Authorization"), authorization.lowercased().hasPrefix("bearer ") {
            accessToken = String(authorization.dropFirst("bearer ".count))
        }
        return try await session.send(request, accessToken: accessToken, over: base)
    }

    /// The nonce the server of `url` sent last (every answer of a DPoP endpoint may carry one).
    public func currentNonce(for url: URL) async -> String? { await session.currentNonce(for: url) }
}
