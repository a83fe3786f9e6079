import Foundation
import GatehouseStore

/// `grant_type=client_credentials` (RFC 6749 §4.4): a confidential client acting for itself, with
/// API scopes only (no user, so no OpenID scopes and no refresh token).
struct ClientCredentialsGrant: Sendable {
    let issuer: TokenIssuer

    func exchange(_ request: TokenRequest) async throws -> TokenResponse {
        guard request.client.kind == .confidential else {
            throw OAuthError(.unauthorizedClient, "client_credentials needs a confidential client.")
        }
        try request.requireGrant("client_credentials")
        let scope = try request.client.grantable(request.parameters["scope"], default: Scope(request.client.scopes))
        if scope.contains("admin"), !request.client.isAdmin {
            throw OAuthError(.invalidScope, "Only clients registered with admin: true may ask for the admin scope.")
        }
        guard scope.values.allSatisfy({ !Scope.standard.contains($0) }) else {
            throw OAuthError(.invalidScope, "client_credentials tokens carry API scopes only.")
        }
        var grant = TokenGrant(client: request.client, user: nil, scope: scope, authTime: nil, authMethods: [],
                               issueRefreshToken: false)
        request.bind(&grant)
        return try await issuer.issue(grant).response
    }
}
