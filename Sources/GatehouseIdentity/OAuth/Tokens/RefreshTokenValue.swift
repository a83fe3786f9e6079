import GatehouseCrypto
import GatehouseStore

/// A refresh token as the token endpoint reads it: one that names its family row and generation, or an
/// opaque one (issued before family tokens; each its own row, looked up by hash).
///
/// A family token is `rf1.<key>.<generation>.<mac>`: the row's random key (16 bytes, base64url), the
/// generation in decimal, and HMAC-SHA-256 under a server key over both. The MAC, not a secret stored per
/// row, because every generation of a family must stay verifiable after it is replaced — a replay of an
/// old one revokes the family, and only a token the server really issued may do that — while the row keeps
/// nothing that would let a reader of the database make a token (it holds a hash of the key, not the key).
/// Nothing is guessable: without the server key there is no valid MAC for any key or generation.
public enum RefreshTokenValue: Sendable, Equatable {
    case family(key: String, generation: Int64)
    case opaque(String)
    /// Has the family form but not a valid one (bad shape, or a MAC this server did not make).
    case forged

    static let prefix = "rf1."
    private static let keyLength = 22
    private static let macLength = 43
    private static let maxGenerationDigits = 18

    /// Reads `value`, checking a family token's MAC (constant-time) with `key`.
    static func parse(_ value: String, macKey: [UInt8]) -> RefreshTokenValue {
        guard value.hasPrefix(prefix) else { return .opaque(value) }
        guard let (rowKey, generation, mac) = fields(value) else { return .forged }
        return ConstantTime.equals(mac, self.mac(key: rowKey, generation: generation, macKey: macKey))
            ? .family(key: rowKey, generation: generation) : .forged
    }

    /// The text of a family token.
    static func family(key: String, generation: Int64, macKey: [UInt8]) -> String {
        "\(prefix)\(key).\(generation).\(mac(key: key, generation: generation, macKey: macKey))"
    }

    /// The hash a token's row is stored under (its family row's for a family token, whichever generation it
    /// names); no key is needed, and a bad MAC is not noticed (tests and tools that look a row up).
    public static func storageHash(of value: String) -> TokenHash {
        if value.hasPrefix(prefix), let (rowKey, _, _) = fields(value) { return familyHash(rowKey) }
        return TokenHash(SHA256.hash(value))
    }

    /// The generation a well-formed family token names (nil for any other value); its MAC is not checked.
    public static func generation(of value: String) -> Int64? {
        value.hasPrefix(prefix) ? fields(value)?.generation : nil
    }

    /// The stored row's hash; nil for a forged value.
    var hash: TokenHash? {
        switch self {
        case .family(let key, _): Self.familyHash(key)
        case .opaque(let value): TokenHash(SHA256.hash(value))
        case .forged: nil
        }
    }

    var generation: Int64? {
        if case .family(_, let generation) = self { generation } else { nil }
    }

    /// Labelled, so no opaque token's hash is ever a family row's.
    private static func familyHash(_ key: String) -> TokenHash { TokenHash(SHA256.hash("gatehouse/refresh-family/\(key)")) }

    private static func mac(key: String, generation: Int64, macKey: [UInt8]) -> String {
        Base64URL.encode(HMACSHA256.authenticationCode(for: Array("gatehouse/refresh-family/\(key)/\(generation)".utf8), key: macKey))
    }

    private static func fields(_ value: String) -> (key: String, generation: Int64, mac: String)? {
        let parts = value.utf8.dropFirst(prefix.utf8.count).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == keyLength, parts[2].count == macLength,
              parts[0].allSatisfy(isBase64URL), parts[2].allSatisfy(isBase64URL),
              (1...maxGenerationDigits).contains(parts[1].count), parts[1].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              parts[1].count == 1 || parts[1].first != UInt8(ascii: "0"),
              let generation = Int64(String(decoding: parts[1], as: UTF8.self)) else { return nil }
        return (String(decoding: parts[0], as: UTF8.self), generation, String(decoding: parts[2], as: UTF8.self))
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
