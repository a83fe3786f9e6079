import Foundation

/// The master key that encrypts our private signing keys at rest (AES-256-GCM).
///
/// It comes from `GATEHOUSE_SECRET_KEY` (read by the caller) as base64, base64url or hex of
/// 32 bytes. Each sealed key is bound to its `kid` as associated data, so a stored ciphertext
/// cannot be swapped under another key id.
public struct KeyEncryptionKey: Sendable {
    private let key: SymmetricKey

    /// Uses exactly 32 raw bytes.
    public init(bytes: [UInt8]) throws(CryptoError) {
        key = try SymmetricKey(bytes: bytes)
    }

    /// Decodes 64 hex characters, or base64 / base64url (padding optional) of 32 bytes.
    /// Surrounding whitespace (a trailing newline from a secrets file) is ignored.
    public init(encoded: String) throws(CryptoError) {
        let text = encoded.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.utf8.count == 64, let bytes = Hex.decode(text) {
            try self.init(bytes: bytes)
            return
        }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        guard let data = Data(base64Encoded: standard) else { throw .invalidKeyEncoding }
        try self.init(bytes: [UInt8](data))
    }

    /// A fresh random key (e.g. for `gatehouse generate-secret`).
    public static func generate() -> KeyEncryptionKey {
        KeyEncryptionKey(key: SymmetricKey.generate())
    }

    private init(key: SymmetricKey) { self.key = key }

    /// The key as standard base64, suitable for `GATEHOUSE_SECRET_KEY`.
    public var base64: String { Data(key.bytes).base64EncodedString() }

    /// Encrypts private key bytes (e.g. ``SigningKey/privateJWKData()``), bound to `keyID`.
    public func seal(_ privateKey: [UInt8], keyID: String) throws(CryptoError) -> [UInt8] {
        try AES256GCM.seal(privateKey, key: key, associatedData: Array(keyID.utf8))
    }

    /// Decrypts what ``seal(_:keyID:)`` produced for the same `keyID`.
    public func open(_ sealed: [UInt8], keyID: String) throws(CryptoError) -> [UInt8] {
        try AES256GCM.open(sealed, key: key, associatedData: Array(keyID.utf8))
    }
}
