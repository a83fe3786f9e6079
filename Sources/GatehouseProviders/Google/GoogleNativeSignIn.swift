import Foundation
import GatehouseCrypto

/// Native Google sign-in: an app got an ID token from Google's own SDK (GoogleSignIn on iOS, Android
/// Credential Manager) and forwards it. Checked here: the signature against Google's JWKS, `iss` Google
/// (both spellings), `aud` one of the app's registered Google client ids, `azp` (when present) one of
/// them too, `exp`, `sub`, and `nonce` == lowercase hex SHA-256 of the app's `raw_nonce` — the app puts
/// that hash on Google's request, as with Apple, so a token seen in transit cannot be replayed without the
/// raw value. A Workspace domain restriction (`hosted_domain`) applies as on the web.
extension OIDCProvider {
    public func verifyNativeIDToken(_ token: String, audiences: [String], rawNonce: String) async throws -> ExternalProfile {
        guard kind == .google else { throw ProviderError.misconfigured("native ID tokens are for Google") }
        guard !audiences.isEmpty else { throw ProviderError.invalidToken(.audience) }
        guard !rawNonce.isEmpty, rawNonce.utf8.count <= 512 else { throw ProviderError.nonceMismatch }
        guard token.utf8.count <= 16_384 else { throw ProviderError.invalidToken(.malformed) }
        let claims = try await discovery.idTokenValidator().restricted(to: Set(audiences)).validate(token, expectedNonce: SHA256.hex(rawNonce))
        if let azp = claims.all["azp"] {
            guard let value = azp.stringValue, audiences.contains(value) else { throw ProviderError.invalidToken(.authorizedParty) }
        }
        if let domain = settings.hostedDomain, claims.all["hd"]?.stringValue != domain { throw ProviderError.domainNotAllowed }
        let email = claims.all["email"]?.stringValue
        let verified = claims.all["email_verified"].flatMap(BooleanClaim.init)?.value ?? false
        let name = claims.all["name"]?.stringValue
        return ExternalProfile(provider: id, subject: claims.subject ?? "", email: email?.lowercased(), emailVerified: verified,
                               name: name, rawClaims: claims.all, refreshToken: nil)
    }
}
