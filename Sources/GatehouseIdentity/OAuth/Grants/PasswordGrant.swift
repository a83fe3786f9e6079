import Foundation
import GatehouseStore

/// `grant_type=password` (RFC 6749 §4.3) for first-party login-form apps only, off unless enabled per
/// client. It goes through the same account checks as the sign-in page: rate limits, back-off, audit.
struct PasswordGrant: Sendable {
    let accounts: AccountService
    let issuer: TokenIssuer
    let audit: AuditTrail

    func exchange(_ request: TokenRequest) async throws -> TokenResponse {
        guard request.client.firstParty else {
            throw OAuthError(.unauthorizedClient, "The password grant is only for first-party clients.")
        }
        try request.requireGrant("password")
        let username = try request.required("username")
        let password = try request.required("password")
        let scope = try request.client.grantable(request.parameters["scope"], default: Scope([Scope.openID, Scope.profile, Scope.email]))
        let user: User
        do {
            user = try await accounts.authenticate(email: username, password: password, context: request.context)
        } catch let error as AccountError {
            switch error {
            case .rateLimited(let wait):
                throw OAuthError(.temporarilyUnavailable, "Too many attempts; retry later.", retryAfter: Int(wait.rounded(.up)))
            case .accountDisabled:
                throw OAuthError.invalidGrant("The account is disabled.")
            default:
                throw OAuthError.invalidGrant("The username or password is not right.")
            }
        }
        await audit.record(.signInSucceeded, userId: user.id, context: request.context,
                           details: ["client_id": request.client.id, "grant": "password"])
        var grant = TokenGrant(client: request.client, user: user, scope: scope, authTime: Date(), authMethods: ["pwd"],
                               issueRefreshToken: request.client.grantTypes.contains("refresh_token"))
        request.bind(&grant)
        return try await issuer.issue(grant).response
    }
}
