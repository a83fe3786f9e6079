import CSodium

/// Cryptographically secure random bytes and tokens from libsodium's `randombytes_buf`
/// (getrandom(2) on Linux), which cannot fail once libsodium is initialised.
public enum SecureRandom {
    /// Returns `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        Sodium.ensureInitialized()
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { randombytes_buf(buffer.baseAddress!, count) }
            initialized = count
        }
    }

    /// A random token of `byteCount` bytes as base64url without padding.
    ///
    /// The default of 32 bytes (256 bits) suits session ids, codes and refresh tokens; fewer than
    /// 16 bytes (128 bits) is refused because such tokens become guessable at scale.
    public static func token(byteCount: Int = 32) -> String {
        precondition(byteCount >= 16, "tokens need at least 128 bits of entropy")
        return Base64URL.encode(bytes(byteCount))
    }
}

/// One-time libsodium initialisation; a Swift `static let` is initialised exactly once, thread-safely.
enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    static func ensureInitialized() {
        precondition(initialized, "libsodium failed to initialise")
    }
}
