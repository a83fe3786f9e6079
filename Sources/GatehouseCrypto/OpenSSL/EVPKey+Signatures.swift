import COpenSSL

/// JWS signing and verification on an `EVP_PKEY`, in the wire formats of RFC 7518 / RFC 8037.
extension EVPKey {
    /// Signs `message`; ES256 signatures come back as raw `r ‖ s`, as JWS requires.
    func sign(_ message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm) throws(CryptoError) -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw openSSLFailure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer?
        guard EVP_DigestSignInit(ctx, &pctx, algorithm.digest, nil, raw) == 1,
              algorithm.configure(pctx) else { throw openSSLFailure("EVP_DigestSignInit") }
        var length = 0
        guard EVP_DigestSign(ctx, nil, &length, message.baseAddress, message.count) == 1 else {
            throw openSSLFailure("EVP_DigestSign(length)")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(ctx, &signature, &length, message.baseAddress, message.count) == 1 else {
            throw openSSLFailure("EVP_DigestSign")
        }
        signature.removeSubrange(length...)
        if algorithm == .es256 {
            guard let raw = ECDSASignature.rawFromDER(signature, coordinateBytes: 32) else { throw .openSSL("ECDSA DER output") }
            return raw
        }
        return signature
    }

    /// `true` if `signature` is a valid `algorithm` signature of `message` under this key.
    func verify(_ signature: UnsafeRawBufferPointer, of message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm) -> Bool {
        if algorithm == .es256 {
            // JWS carries raw r‖s; OpenSSL wants DER. Wrong length means invalid, not malformed.
            guard signature.count == 64 else { return false }
            let der = ECDSASignature.derFromRaw(signature)
            return der.withUnsafeBytes { verifyEncoded($0, of: message, algorithm: algorithm) }
        }
        return verifyEncoded(signature, of: message, algorithm: algorithm)
    }

    private func verifyEncoded(_ signature: UnsafeRawBufferPointer, of message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm) -> Bool {
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer?
        let ok = EVP_DigestVerifyInit(ctx, &pctx, algorithm.digest, nil, raw) == 1
            && algorithm.configure(pctx)
            && EVP_DigestVerify(ctx, signature.baseAddress, signature.count, message.baseAddress, message.count) == 1
        if !ok { ERR_clear_error() }
        return ok
    }
}

extension JWSAlgorithm {
    /// The prefetched digest; Ed25519 hashes internally and must be given none.
    var digest: OpaquePointer? { self == .edDSA ? nil : OpenSSLAlgorithms.sha256 }

    /// PS256 needs PSS padding with MGF1-SHA-256 and salt = digest length (RFC 7518 §3.5).
    func configure(_ pctx: OpaquePointer?) -> Bool {
        guard self == .ps256 else { return true }
        return EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1
            && EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1
            && EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, OpenSSLAlgorithms.sha256) == 1
    }
}

/// Conversion between the JWS ECDSA format (fixed-width `r ‖ s`) and DER `ECDSA-Sig-Value`.
///
/// Done by hand instead of through `ECDSA_SIG`/`BIGNUM` to avoid four allocations per operation.
enum ECDSASignature {
    /// DER `SEQUENCE { INTEGER r, INTEGER s }` from 64 raw bytes.
    static func derFromRaw(_ raw: UnsafeRawBufferPointer) -> [UInt8] {
        let half = raw.count / 2
        func integer(_ bytes: UnsafeRawBufferPointer.SubSequence) -> [UInt8] {
            var slice = bytes.drop { $0 == 0 }
            if slice.isEmpty { slice = bytes.suffix(1) }
            let pad = slice.first! & 0x80 != 0
            return [0x02, UInt8(slice.count + (pad ? 1 : 0))] + (pad ? [0] : []) + slice
        }
        let r = integer(raw[0..<half]), s = integer(raw[half...])
        return [0x30, UInt8(r.count + s.count)] + r + s   // ≤ 72 bytes: short-form length suffices
    }

    /// Raw `r ‖ s` from DER, each left-padded to `coordinateBytes`; nil if the DER is not as expected.
    static func rawFromDER(_ der: [UInt8], coordinateBytes: Int) -> [UInt8]? {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var out = [UInt8](repeating: 0, count: coordinateBytes * 2)
        var index = 2
        for part in 0..<2 {
            guard index + 2 <= der.count, der[index] == 0x02 else { return nil }
            let length = Int(der[index + 1])
            index += 2
            guard length > 0, index + length <= der.count else { return nil }
            var value = der[index..<(index + length)]
            while value.count > 1, value.first == 0 { value = value.dropFirst() }
            guard value.count <= coordinateBytes else { return nil }
            let start = part * coordinateBytes + coordinateBytes - value.count
            out.replaceSubrange(start..<(start + value.count), with: value)
            index += length
        }
        return index == der.count ? out : nil
    }
}
