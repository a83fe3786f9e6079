import Foundation
import GatehouseStore

extension TokenService {
    /// Mints `count` refresh tokens, each the first of its own grant (family), for a user and a client
    /// allowed the refresh grant, as an operator with the database in hand (`gatehouse bench
    /// refresh-tokens`): load tests need thousands of distinct tokens without a password sign-in
    /// (Argon2id) per token. The same checks as any grant apply: the client's grants and scopes, the
    /// account's standing. No access or ID token is signed. Returns the token values; only their
    /// hashes are stored.
    public func mintRefreshTokens(clientID: String, user: User, scope requested: String?, count: Int,
                                  authMethods: [String] = ["pwd"]) async throws -> [String] {
        guard count >= 0 else { throw OAuthError.invalidRequest("The count cannot be negative.") }
        guard let client = try await registry.find(id: clientID) else {
            throw OAuthError.invalidClient("Unknown client \(clientID).")
        }
        guard client.grantTypes.contains("refresh_token") else {
            throw OAuthError(.unauthorizedClient, "This client is not allowed the refresh_token grant.")
        }
        let scope = try client.grantable(requested, default: Scope([Scope.openID]))
        let now = issuer.clock.now()
        var values: [String] = []
        values.reserveCapacity(count)
        // Several creates in flight at once: the SQLite writer commits concurrent writes together.
        var next = 0
        while next < count {
            let chunk = min(256, count - next)
            let minted = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<chunk {
                    group.addTask {
                        let grant = TokenGrant(client: client, user: user, scope: scope, authTime: now, authMethods: authMethods,
                                               issueRefreshToken: true)
                        let prepared = try await issuer.prepare(grant)
                        guard let record = prepared.refreshRecord, let value = prepared.refreshValue else {
                            throw OAuthError(.serverError, "No refresh token was minted.")
                        }
                        try await refreshTokens.create(record)
                        return value
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            values += minted
            next += chunk
        }
        return values
    }
}
