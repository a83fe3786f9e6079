import Foundation

extension OAuthClient {
    /// RFC 8693 token exchange of a native Sign in with Apple credential for Gatehouse tokens (flow F3
    /// for token-based apps): `identityToken` from `ASAuthorizationAppleIDCredential`, the `nonce` whose
    /// SHA-256 hex was on Apple's request, and — on the first authorization, the only time Apple gives
    /// them — the user's given and family name, which Gatehouse keeps as the account's name.
    public func exchangeAppleIdentityToken(_ identityToken: String, nonce: AppleNonce, givenName: String? = nil,
                                           familyName: String? = nil, scopes: [String] = []) async throws -> TokenResponse {
        var pairs = [("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
                     ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
                     ("subject_token", identityToken), ("raw_nonce", nonce.raw)]
        if let givenName, !givenName.isEmpty { pairs.append(("given_name", givenName)) }
        if let familyName, !familyName.isEmpty { pairs.append(("family_name", familyName)) }
        if !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        return try await tokenRequest(pairs)
    }
}
