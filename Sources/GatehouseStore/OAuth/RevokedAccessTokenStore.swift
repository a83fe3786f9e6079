import Foundation

/// Access tokens are self-contained JWTs; revoking one before it expires records its `jti` here,
/// and introspection and userinfo consult it.
public protocol RevokedAccessTokenStore: Sendable {
    /// Idempotent.
    func revoke(jti: String, expiresAt: Date) async throws
    func isRevoked(jti: String) async throws -> Bool
    /// Whether any of these ids is revoked (a token's `jti` and its family marker in one round trip).
    func isAnyRevoked(_ jtis: [String]) async throws -> Bool
    func purgeExpired(now: Date, limit: Int) async throws -> Int
}
