/// PKCE with the S256 method (RFC 7636). `plain` is deliberately absent (DESIGN §4).
public enum PKCE {
    /// The unreserved characters a verifier may use (RFC 7636 §4.1).
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// A new random code verifier of `length` characters (43…128).
    ///
    /// Base64url of random bytes only uses unreserved characters, so the verifier carries 6 bits
    /// per character: the default 64 characters hold 384 bits.
    public static func generateVerifier(length: Int = 64) -> String {
        precondition((43...128).contains(length), "PKCE verifiers are 43–128 characters")
        let bytes = SecureRandom.bytes((length * 3 + 3) / 4)
        return String(Base64URL.encode(bytes).prefix(length))
    }

    /// `true` if `verifier` has a legal length and alphabet.
    public static func isValidVerifier(_ verifier: String) -> Bool {
        let utf8 = verifier.utf8
        return (43...128).contains(utf8.count) && utf8.allSatisfy { unreserved.contains($0) }
    }

    /// The S256 challenge: `base64url(SHA-256(ASCII(verifier)))`.
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(verifier))
    }

    /// Checks a presented verifier against the stored challenge, in constant time.
    public static func verify(verifier: String, challenge: String) -> Bool {
        guard isValidVerifier(verifier) else { return false }
        return ConstantTime.equals(Self.challenge(for: verifier), challenge)
    }
}
