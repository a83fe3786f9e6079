import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends API requests with `Authorization: Bearer <access token>` from an `AuthState`.
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
        let token = try await authState.freshAccessToken()
        let first = try await transport.send(Self.authorize(request, token))
        guard first.1.statusCode == 401 else { return first }
        let refreshed = try await authState.freshAccessToken(rejected: token)
        return try await transport.send(Self.authorize(request, refreshed))
    }

    private static func authorize(_ request: URLRequest, _ token: String) -> URLRequest {
        var request = request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }
}
