import Foundation
import GatehouseCrypto

/// Native Sign in with Apple (flow F3): an iOS app got an identity token and an authorization code from
/// `ASAuthorizationAppleIDProvider` and forwards them. Differences from the web flow, all Apple's:
/// the token's `aud` is the app's bundle id (not the Services ID), the nonce on the token is the
/// SHA-256 hex of the app's raw nonce, and the code is redeemed *as the app* (client_id = bundle id,
/// client-secret `sub` = bundle id, same team key), with no redirect URI.
extension AppleProvider {
    /// Verifies a native identity token: RS256 against Apple's JWKS, `iss` Apple, `aud` ∈ `audiences`,
    /// `exp`, `sub`, and `nonce` == lowercase hex SHA-256 of `rawNonce` — always enforced here, since the
    /// app chose the nonce and a token without one could be replayed from anywhere.
    ///
    /// - Returns: the verified claims, with `aud` (the bundle id the token was issued to).
    public func verifyNativeIdentityToken(_ token: String, audiences: [String], rawNonce: String) async throws -> NativeAppleIdentity {
        guard !audiences.isEmpty else { throw ProviderError.invalidToken(.audience) }
        guard !rawNonce.isEmpty, rawNonce.utf8.count <= 512 else { throw ProviderError.nonceMismatch }
        guard token.utf8.count <= 16_384 else { throw ProviderError.invalidToken(.malformed) }
        let claims = try await validator.restricted(to: Set(audiences)).validate(token, expectedNonce: SHA256.hex(rawNonce))
        // Audience is a string or a one-element array at Apple; the validator already checked membership.
        let audience: String
        switch claims.all["aud"] {
        case .string(let value)?: audience = value
        case .array(let values)?: audience = values.lazy.compactMap(\.stringValue).first { audiences.contains($0) } ?? ""
        default: audience = ""
        }
        let email: String?, verified: Bool, relay: Bool
        do {
            email = try claims.string("email")
            verified = try claims.boolean("email_verified") ?? false
            relay = try claims.boolean("is_private_email") ?? (email?.hasSuffix("@privaterelay.appleid.com") ?? false)
        } catch { throw ProviderError.invalidToken(.claims) }
        return NativeAppleIdentity(audience: audience, subject: claims.subject ?? "", email: email?.lowercased(),
                                   emailVerified: verified, isPrivateRelay: relay, claims: claims.all)
    }

    /// Redeems a native authorization code at Apple's token endpoint as the app (`client_id` = `bundleID`,
    /// client secret with `sub` = `bundleID`), and checks that the id_token Apple returns is for the same
    /// user. Returns Apple's refresh token (kept for revocation; nil if Apple sent none).
    public func redeemNativeCode(_ code: String, bundleID: String, expectedSubject: String) async throws -> String? {
        guard !code.isEmpty, code.utf8.count <= 4096 else { throw ProviderError.invalidCallback("authorization_code") }
        var appSettings = settings
        appSettings.clientID = bundleID
        let appSecret = try AppleClientSecret(settings: appSettings)
        let tokens = try await transport.json(.form(settings.tokenEndpoint, [
            ("client_id", bundleID), ("client_secret", try appSecret.mint(now: clock())), ("code", code),
            ("grant_type", "authorization_code"),
        ]))
        // Apple's answer carries an id_token for the same sign-in: a code from another user's sign-in
        // must not attach that user's refresh token to this identity.
        guard let idToken = tokens["id_token"]?.stringValue else { throw ProviderError.invalidToken(.noIDToken) }
        let claims = try await validator.restricted(to: [bundleID]).validate(idToken, expectedNonce: Self.nonceOf(idToken))
        guard claims.subject == expectedSubject else { throw ProviderError.invalidToken(.codeSubject) }
        return tokens["refresh_token"]?.stringValue
    }

    /// The nonce the (still unverified) token carries, so the code's id_token is checked for everything but
    /// the nonce — which was already checked on the identity token the app sent.
    private static func nonceOf(_ token: String) -> String? {
        (try? CompactJWS(token)).flatMap { try? JWTClaims(json: $0.payload) }?.all["nonce"]?.stringValue
    }
}

/// A verified native identity token, reduced to what account linking needs.
public struct NativeAppleIdentity: Sendable, Equatable {
    /// The bundle id (or other configured audience) the token was issued to.
    public let audience: String
    public let subject: String
    public let email: String?
    public let emailVerified: Bool
    public let isPrivateRelay: Bool
    public let claims: [String: JSONValue]

    /// The profile for the account linker; `name` comes from the app (Apple puts none in tokens).
    public func profile(name: String?, refreshToken: String?) -> ExternalProfile {
        ExternalProfile(provider: "apple", subject: subject, email: email, emailVerified: emailVerified, isPrivateRelay: isPrivateRelay,
                        name: name, rawClaims: claims, refreshToken: refreshToken)
    }
}

extension IDTokenValidator {
    /// The same validator (sharing the cached JWKS) accepting only `audiences`: one app's bundle ids,
    /// not every audience the web provider accepts.
    func restricted(to audiences: Set<String>) -> IDTokenValidator {
        IDTokenValidator(jwks: jwks, issuers: issuers, audiences: audiences, algorithms: algorithms, clock: clock)
    }

    init(jwks: RemoteJWKS, issuers: Set<String>, audiences: Set<String>, algorithms: Set<JWSAlgorithm>, clock: @escaping @Sendable () -> Date) {
        self.jwks = jwks; self.issuers = issuers; self.audiences = audiences; self.algorithms = algorithms; self.clock = clock
    }
}
