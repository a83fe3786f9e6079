import GatehouseCrypto

/// CSRF tokens for forms: an HMAC of what the form is bound to — the session (signed in) or a
/// random pre-session cookie (sign-in and sign-up forms) — so a token is useless to anyone else.
public struct CSRFTokens: Sendable {
    /// Keyed once: a one-shot HMAC allocates an OpenSSL context and hashes the padded key every time,
    /// several times the cost of the MAC itself, and every page derives a token.
    let mac: HMACSHA256

    public init(key: [UInt8]) { mac = HMACSHA256(key: key) }

    public func token(for binding: String) -> String {
        Base64URL.encode(mac.authenticationCode(for: "csrf|" + binding))
    }

    public func isValid(_ presented: String?, for binding: String) -> Bool {
        guard let presented, presented.utf8.count == 43 else { return false }
        return ConstantTime.equals(presented, token(for: binding))
    }
}
