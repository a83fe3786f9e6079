import CCrypt
import Foundation

/// Checks a password against an imported bcrypt hash through libxcrypt's `crypt_r` (Debian's
/// libcrypt), which implements `$2a$`, `$2b$` and `$2y$`. Gatehouse never writes bcrypt: a
/// matching password is rehashed to Argon2id by the caller.
enum BcryptVerifier {
    /// `true` when `crypt_r(password, hash)` reproduces `hash` exactly (compared in constant time).
    ///
    /// Blocking (bcrypt at cost 10–12 takes tens of milliseconds): call it on the hashing queue.
    /// bcrypt ignores bytes past the 72nd, as every bcrypt does; a NUL byte would end the C
    /// string early, so a password containing one never matches.
    static func verify(_ password: [UInt8], against hash: String) -> Bool {
        guard PasswordHashFormat.of(hash) == .bcrypt, !password.contains(0) else { return false }
        // struct crypt_data is ~32 KiB: keep it off the stack of a dispatch thread.
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer {
            memset(data, 0, MemoryLayout<crypt_data>.size)
            data.deallocate()
        }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        let phrase = password.map { CChar(bitPattern: $0) } + [0]
        guard let result = crypt_r(phrase, hash, data) else { return false }
        let computed = Array(String(cString: result).utf8)
        // libxcrypt reports failure as a string starting with "*", which never equals a valid hash.
        return ConstantTime.equals(computed, Array(hash.utf8))
    }
}
