import Foundation

/// Generates identifiers for records whose id is not a secret (users, signing keys).
///
/// Ids are chosen by the caller, not by the database, so the same code path works on every
/// backend and a caller knows the id before the insert. 128 random bits from the system CSPRNG
/// (`getrandom` on Linux), rendered as 26 lowercase base32 characters: URL- and log-safe.
public enum RecordID {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// A new random id, e.g. `"k3j5x…"` (26 characters).
    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        var value = (UInt64.random(in: .min ... .max, using: &generator),
                     UInt64.random(in: .min ... .max, using: &generator))
        var out = [UInt8]()
        out.reserveCapacity(26)
        for _ in 0..<26 {  // 26 × 5 bits = 130 ≥ 128
            out.append(alphabet[Int(value.1 & 0x1f)])
            value.1 = (value.1 >> 5) | (value.0 << 59)
            value.0 >>= 5
        }
        return String(decoding: out, as: UTF8.self)
    }
}
