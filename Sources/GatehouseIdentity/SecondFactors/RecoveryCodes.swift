import GatehouseCrypto
import GatehouseStore

/// Recovery codes: ten per account, each 50 random bits shown once as `xxxxx-xxxxx` (lower-case
/// base32, no look-alike confusion from case), stored only as SHA-256. 50 bits under the sign-in
/// attempt limits cannot be guessed, so a fast hash is enough.
public enum RecoveryCodes {
    public static let count = 10

    /// A fresh set of codes, as shown to the user.
    public static func generate() -> [String] {
        (0..<count).map { _ in
            let text = Base32.encode(SecureRandom.bytes(7)).lowercased().prefix(10)
            return String(text.prefix(5)) + "-" + String(text.suffix(5))
        }
    }

    /// The code as typed reduced to its ten characters (case, spaces and dashes ignored); nil when it
    /// cannot be a recovery code.
    public static func normalized(_ typed: String) -> String? {
        let text = typed.lowercased().filter { $0 != "-" && $0 != " " }
        guard text.utf8.count == 10, text.utf8.allSatisfy({ Self.isBase32($0) }) else { return nil }
        return text
    }

    /// The stored form of a code (normalized first).
    public static func hash(_ normalized: String) -> TokenHash { TokenHash(SHA256.hash(normalized)) }

    static func isBase32(_ byte: UInt8) -> Bool { (97...122).contains(byte) || (50...55).contains(byte) }
}
