import GatehouseCrypto

/// CSRF tokens for forms: an HMAC of what the form is bound to — the session (signed in) or a
/// random pre-session cookie (sign-in and sign-up forms) — so a token is useless to anyone else.
public struct CSRFTokens: Sendable {
    let key: [UInt8]

    public init(key: [UInt8]) { self.key = key }

    public func token(for binding: String) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(for: Array("csrf|\(binding)".utf8), key: key))
    }

    public func isValid(_ presented: String?, for binding: String) -> Bool {
        guard let presented, presented.utf8.count == 43 else { return false }
        return ConstantTime.equals(presented, token(for: binding))
    }
}
