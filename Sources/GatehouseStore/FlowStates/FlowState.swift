import Foundation

/// Server-side state of an upstream OAuth/OIDC sign-in in progress (F1, F2), keyed by the
/// hash of the `state` parameter.
///
/// Kept on the server rather than in a cookie because Apple's callback is a cross-site POST
/// that does not carry SameSite=Lax cookies.
public struct FlowState: Sendable, Equatable {
    /// SHA-256 of the `state` value sent to the provider.
    public var stateHash: TokenHash
    public var createdAt: Date
    public var expiresAt: Date
    /// JSON object: provider, nonce, PKCE verifier, return path, hand-off binding …
    public var payload: String

    public init(stateHash: TokenHash, createdAt: Date, expiresAt: Date, payload: String) {
        self.stateHash = stateHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.payload = payload
    }
}
