import COpenSSL

/// HOTP (RFC 4226) and TOTP (RFC 6238) codes with HMAC-SHA-1, 6 digits and 30-second steps: the
/// parameters every authenticator app accepts from an `otpauth://` URI without extra fields.
///
/// Only the arithmetic lives here; which steps a sign-in accepts and the single use of a code are
/// Identity's rules.
public enum OneTimePassword {
    /// Digits of a code.
    public static let digits = 6
    /// Seconds per TOTP time step.
    public static let period: Int64 = 30
    /// Bytes of a new secret: 160 bits, the HMAC-SHA-1 block's recommended key length (RFC 4226 §4).
    public static let secretByteCount = 20

    /// The HOTP value of `counter` under `secret`, as a zero-padded decimal string.
    public static func hotp(secret: [UInt8], counter: UInt64) -> String {
        var message = [UInt8](repeating: 0, count: 8)
        for index in 0..<8 { message[index] = UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * index)) }
        var mac = [UInt8](repeating: 0, count: 20)
        var length = 0
        let ok = secret.withUnsafeBufferPointer { key in
            withUnsafePointer(to: UInt8(0)) { zero in
                EVP_Q_mac(nil, "HMAC", nil, "SHA1", nil, key.baseAddress ?? zero, key.count, message, message.count,
                          &mac, mac.count, &length) != nil
            }
        }
        precondition(ok && length == 20, "HMAC-SHA-1 failed")
        // Dynamic truncation (RFC 4226 §5.3).
        let offset = Int(mac[19] & 0x0F)
        let binary = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        let code = String(binary % 1_000_000)
        return String(repeating: "0", count: digits - code.count) + code
    }

    /// The TOTP time step of a Unix time (seconds).
    public static func step(unixTime: Int64) -> Int64 { unixTime >= 0 ? unixTime / period : (unixTime - period + 1) / period }

    /// The TOTP code of `step`.
    public static func totp(secret: [UInt8], step: Int64) -> String { hotp(secret: secret, counter: UInt64(bitPattern: step)) }
}
