import COpenSSL

/// A 256-bit symmetric key for ``AES256GCM``.
public struct SymmetricKey: Sendable, Equatable {
    /// Key length in bytes.
    public static let byteCount = 32

    /// The raw key bytes.
    public let bytes: [UInt8]

    /// Wraps exactly 32 bytes.
    public init(bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == Self.byteCount else {
            throw .invalidKeyLength(expected: Self.byteCount, actual: bytes.count)
        }
        self.bytes = bytes
    }

    /// A fresh random key.
    public static func generate() -> SymmetricKey {
        // Force-try is safe: the length is right by construction.
        try! SymmetricKey(bytes: SecureRandom.bytes(byteCount))
    }
}

/// AES-256-GCM authenticated encryption (NIST SP 800-38D) with random 96-bit nonces.
///
/// The sealed format is `nonce (12) ‖ ciphertext ‖ tag (16)`. Random nonces are safe for up to
/// about 2³² messages per key, far above what a key-encryption or cookie key ever sees.
public enum AES256GCM {
    /// Nonce length in bytes.
    public static let nonceByteCount = 12
    /// Authentication tag length in bytes.
    public static let tagByteCount = 16

    /// Encrypts and authenticates `plaintext`; `associatedData` is authenticated but not encrypted
    /// (bind context such as a key id or a record id so a box cannot be moved elsewhere).
    public static func seal(_ plaintext: [UInt8], key: SymmetricKey, associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try seal(plaintext, key: key, nonce: SecureRandom.bytes(nonceByteCount), associatedData: associatedData)
    }

    /// Sealing with a caller-chosen nonce, for known-answer tests only.
    static func seal(_ plaintext: [UInt8], key: SymmetricKey, nonce: [UInt8], associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
        precondition(nonce.count == nonceByteCount)
        guard let ctx = EVP_CIPHER_CTX_new() else { throw openSSLFailure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var output = nonce
        output.append(contentsOf: repeatElement(0, count: plaintext.count + tagByteCount))
        let ok: Bool = output.withUnsafeMutableBufferPointer { out in
            var length: Int32 = 0
            let body = out.baseAddress! + nonceByteCount
            guard EVP_EncryptInit_ex2(ctx, OpenSSLAlgorithms.aes256GCM, key.bytes, nonce, nil) == 1 else { return false }
            if !associatedData.isEmpty,
               EVP_EncryptUpdate(ctx, nil, &length, associatedData, Int32(associatedData.count)) != 1 { return false }
            if !plaintext.isEmpty,
               EVP_EncryptUpdate(ctx, body, &length, plaintext, Int32(plaintext.count)) != 1 { return false }
            guard EVP_EncryptFinal_ex(ctx, body + plaintext.count, &length) == 1 else { return false }
            return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(tagByteCount), body + plaintext.count) == 1
        }
        guard ok else { throw openSSLFailure("AES-256-GCM seal") }
        return output
    }

    /// Decrypts a box made by ``seal(_:key:associatedData:)``; throws
    /// ``CryptoError/authenticationFailed`` if the key, the associated data or any byte differs.
    public static func open(_ sealed: [UInt8], key: SymmetricKey, associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        guard sealed.count >= nonceByteCount + tagByteCount else { throw .malformedCiphertext }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw openSSLFailure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let bodyCount = sealed.count - nonceByteCount - tagByteCount
        var plaintext = [UInt8](repeating: 0, count: bodyCount)
        let ok: Bool = sealed.withUnsafeBufferPointer { box in
            plaintext.withUnsafeMutableBufferPointer { out in
                var length: Int32 = 0
                let nonce = box.baseAddress!, body = nonce + nonceByteCount, tag = body + bodyCount
                guard EVP_DecryptInit_ex2(ctx, OpenSSLAlgorithms.aes256GCM, key.bytes, nonce, nil) == 1 else { return false }
                if !associatedData.isEmpty,
                   EVP_DecryptUpdate(ctx, nil, &length, associatedData, Int32(associatedData.count)) != 1 { return false }
                if bodyCount > 0, EVP_DecryptUpdate(ctx, out.baseAddress, &length, body, Int32(bodyCount)) != 1 { return false }
                guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(tagByteCount),
                                          UnsafeMutableRawPointer(mutating: tag)) == 1 else { return false }
                var finalLength: Int32 = 0
                return EVP_DecryptFinal_ex(ctx, out.baseAddress.map { $0 + bodyCount } ?? nil, &finalLength) == 1
            }
        }
        guard ok else {
            ERR_clear_error()
            throw .authenticationFailed
        }
        return plaintext
    }
}
