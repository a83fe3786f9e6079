import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends API requests with `Authorization: Bearer <access token>` from an `AuthState` — or, when its
/// client has a DPoP key, `Authorization: DPoP <access token>` with a fresh proof carrying the token's
/// hash (RFC 9449 §7.1), retried once with the API's nonce when it answers 401 `use_dpop_nonce`.
///
/// On a 401 it refreshes once and retries once: enough to survive a token revoked or expired
/// early server-side, and never a loop. Concurrent 401s for the same token share one refresh.
public struct AuthorizedHTTPClient: Sendable {
    public let authState: AuthState
    public let transport: any HTTPTransport

    public init(authState: AuthState, transport: any HTTPTransport = URLSessionTransport()) {
        self.authState = authState
        self.transport = transport
    }

    /// Sends `request` authorized; returns the final response (which may still be a 401 if the
    /// refreshed token is refused too).
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let client = authState.client
        let token = try await authState.freshAccessToken()
        let first = try await send(request, token, client)
        guard first.1.statusCode == 401 else { return first }
        let refreshed = try await authState.freshAccessToken(rejected: token)
        return try await send(request, refreshed, client)
    }

    private func send(_ request: URLRequest, _ token: String, _ client: OAuthClient) async throws -> (Data, HTTPURLResponse) {
        if let dpop = client.dpop { return try await dpop.send(request, accessToken: token, over: transport) }
        return try await transport.send(try await client.authorize(request, accessToken: token))
    }
}
