import Foundation

/// Base64url without padding (RFC 4648 §5), as used by PKCE (RFC 7636) and JOSE (RFC 7515).
public enum Base64URL {
    /// Encodes `bytes` without `=` padding.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding; `nil` for anything outside the alphabet.
    public static func decode(_ string: String) -> Data? {
        // Reject the standard alphabet explicitly: JOSE forbids it, and accepting both would let
        // two different strings decode to the same bytes.
        guard !string.contains("+"), !string.contains("/") else { return nil }
        var base64 = string.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = base64.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { base64 += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: base64)
    }
}
