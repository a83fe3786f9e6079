import COpenSSL

/// JWS signing and verification on an `EVP_PKEY`, in the wire formats of RFC 7518 / RFC 8037.
///
/// ES256/RS256/PS256 hash with the prefetched SHA-256 into a stack buffer and sign or verify the
/// digest with a pooled context (see ``PKeyContextPool``); Ed25519 has no pre-hash form, so it
/// uses one-shot `EVP_DigestSign`/`EVP_DigestVerify` on a pooled `EVP_MD_CTX`.
extension EVPKey {
    /// Signs `message`; ES256 signatures come back as raw `r ‖ s`, as JWS requires.
    func sign(_ message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm) throws(CryptoError) -> [UInt8] {
        if algorithm == .edDSA { return try signEd25519(message) }
        let signature: [UInt8]? = withSHA256(message) { digest in
            pool(for: algorithm, signing: true).withContext { ctx -> [UInt8]? in
                var length = 0
                guard EVP_PKEY_sign(ctx, nil, &length, digest.baseAddress, digest.count) == 1 else { return nil }
                var out = [UInt8](repeating: 0, count: length)
                guard EVP_PKEY_sign(ctx, &out, &length, digest.baseAddress, digest.count) == 1 else { return nil }
                out.removeSubrange(length...)
                return out
            } ?? nil
        }
        guard let signature else { throw openSSLFailure("EVP_PKEY_sign") }
        guard algorithm == .es256 else { return signature }
        guard let raw = ECDSASignature.rawFromDER(signature, coordinateBytes: 32) else { throw .openSSL("ECDSA DER output") }
        return raw
    }

    /// `true` if `signature` is a valid `algorithm` signature of `message` under this key.
    func verify(_ signature: UnsafeRawBufferPointer, of message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm) -> Bool {
        if algorithm == .edDSA { return verifyEd25519(signature, of: message) }
        if algorithm == .es256 {
            // JWS carries raw r‖s; OpenSSL wants DER. Wrong length means invalid, not malformed.
            guard signature.count == 64 else { return false }
            return withUnsafeTemporaryAllocation(byteCount: 72, alignment: 1) { der in
                let length = ECDSASignature.derFromRaw(signature, into: der)
                return verifyDigest(UnsafeRawBufferPointer(rebasing: der[0..<length]), of: message, algorithm: algorithm)
            }
        }
        return verifyDigest(signature, of: message, algorithm: algorithm)
    }

    private func verifyDigest(_ signature: UnsafeRawBufferPointer, of message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm) -> Bool {
        let ok = withSHA256(message) { digest in
            pool(for: algorithm, signing: false).withContext { ctx in
                EVP_PKEY_verify(ctx, signature.baseAddress, signature.count, digest.baseAddress, digest.count) == 1
            } ?? false
        }
        if !ok { ERR_clear_error() }
        return ok
    }

    // Ed25519 contexts are reused across calls: OpenSSL 3.0's one-shot EVP_DigestSign/Verify for
    // EdDSA leave the context initialised (RFC 8037 A.4 is re-checked on a reused context in tests).
    private func signEd25519(_ message: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        let signature: [UInt8]? = pool(for: .edDSA, signing: true).withContext { ctx -> [UInt8]? in
            var length = 64
            var out = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(ctx, &out, &length, message.baseAddress, message.count) == 1, length == 64 else { return nil }
            return out
        } ?? nil
        guard let signature else { throw openSSLFailure("EVP_DigestSign(Ed25519)") }
        return signature
    }

    private func verifyEd25519(_ signature: UnsafeRawBufferPointer, of message: UnsafeRawBufferPointer) -> Bool {
        let ok = pool(for: .edDSA, signing: false).withContext { ctx in
            EVP_DigestVerify(ctx, signature.baseAddress, signature.count, message.baseAddress, message.count) == 1
        } ?? false
        if !ok { ERR_clear_error() }
        return ok
    }
}

/// SHA-256 of `message` into a stack buffer (no heap allocation on the hot path).
func withSHA256<R>(_ message: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    withUnsafeTemporaryAllocation(byteCount: 32, alignment: 1) { digest in
        var length: UInt32 = 0
        let ok = EVP_Digest(message.baseAddress, message.count, digest.baseAddress, &length, OpenSSLAlgorithms.sha256, nil)
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed")
        return body(UnsafeRawBufferPointer(digest))
    }
}

/// Conversion between the JWS ECDSA format (fixed-width `r ‖ s`) and DER `ECDSA-Sig-Value`.
///
/// Done by hand instead of through `ECDSA_SIG`/`BIGNUM` to avoid four allocations per operation.
enum ECDSASignature {
    /// Writes DER `SEQUENCE { INTEGER r, INTEGER s }` for raw `r ‖ s` into `out` (≥ 72 bytes for
    /// P-256) and returns its length.
    static func derFromRaw(_ raw: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Int {
        let half = raw.count / 2
        var index = 2
        for part in 0..<2 {
            var start = part * half
            let end = start + half
            while start < end - 1, raw[start] == 0 { start += 1 }
            let pad = raw[start] & 0x80 != 0
            out[index] = 0x02
            out[index + 1] = UInt8(end - start + (pad ? 1 : 0))
            index += 2
            if pad { out[index] = 0; index += 1 }
            for byte in raw[start..<end] { out[index] = byte; index += 1 }
        }
        out[0] = 0x30
        out[1] = UInt8(index - 2)   // ≤ 70: short-form length suffices
        return index
    }

    /// Allocating convenience for tests.
    static func derFromRaw(_ raw: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: raw.count + 8)
        let length = out.withUnsafeMutableBytes { derFromRaw(raw, into: $0) }
        return Array(out[0..<length])
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
