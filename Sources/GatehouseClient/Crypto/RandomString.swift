import Foundation

/// Random, URL-safe strings for `state`, `nonce` and verifiers.
///
/// `SystemRandomNumberGenerator` is a CSPRNG on every platform Swift supports
/// (`getrandom(2)` on Linux, `arc4random_buf` on Apple platforms).
public enum RandomString {
    /// Base64url of `byteCount` random bytes (32 bytes → 43 characters, 256 bits).
    public static func base64URL(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(bytes)
    }
}
