import COpenSSL
import Synchronization

/// Owns an `EVP_PKEY*`.
// @unchecked Sendable: the EVP_PKEY is never mutated after construction, and OpenSSL 3 allows
// concurrent sign/verify operations on one key from several threads.
final class EVPKey: @unchecked Sendable {
    let raw: OpaquePointer
    /// Context pools per (algorithm, operation), created on first use.
    private let pools = Mutex<[String: PKeyContextPool]>([:])

    init(_ raw: OpaquePointer) { self.raw = raw }
    deinit { EVP_PKEY_free(raw) }

    /// The context pool for signing or verifying with `algorithm`.
    func pool(for algorithm: JWSAlgorithm, signing: Bool) -> PKeyContextPool {
        let name = algorithm.rawValue + (signing ? "/sign" : "/verify")
        if let pool = pools.withLock({ $0[name] }) { return pool }
        let pool = PKeyContextPool(key: self, algorithm: algorithm, signing: signing)
        return pools.withLock { pools in
            if let existing = pools[name] { return existing }
            pools[name] = pool
            return pool
        }
    }

    /// Size of the key in bits (RSA modulus bits, 256 for P-256/Ed25519).
    var bits: Int { Int(EVP_PKEY_get_bits(raw)) }

    // MARK: Building

    /// P-256 key from its coordinates (and private scalar), checked to lie on the curve.
    static func p256(x: [UInt8], y: [UInt8], d: [UInt8]? = nil) throws(CryptoError) -> EVPKey {
        let point = [0x04] + x + y
        let pointer: OpaquePointer? = point.withUnsafeBufferPointer { p in
            if let d {
                return d.withUnsafeBufferPointer { gh_p256_from_raw(p.baseAddress, p.count, $0.baseAddress, $0.count) }
            }
            return gh_p256_from_raw(p.baseAddress, p.count, nil, 0)
        }
        guard let pointer else { throw openSSLFailure("EVP_PKEY_fromdata(EC)") }
        let key = EVPKey(pointer)
        // fromdata does not reject points off the curve; an invalid point enables invalid-curve attacks.
        try key.check(privateToo: d != nil)
        return key
    }

    /// RSA public key (`[n, e]`) or private key (`[n, e, d, p, q, dp, dq, qi]`), big-endian members.
    static func rsa(members: [[UInt8]]) throws(CryptoError) -> EVPKey {
        // Flatten into one buffer so a single pointer scope covers every member.
        let flat = members.flatMap { $0 }
        let lengths = members.map(\.count)
        let pointer: OpaquePointer? = flat.withUnsafeBufferPointer { buffer in
            var offset = 0
            var parts: [UnsafePointer<UInt8>?] = []
            for length in lengths {
                parts.append(buffer.baseAddress.map { $0 + offset })
                offset += length
            }
            return gh_rsa_from_raw(parts, lengths, Int32(members.count))
        }
        guard let pointer else { throw openSSLFailure("EVP_PKEY_fromdata(RSA)") }
        return EVPKey(pointer)
    }

    /// RSA public key from big-endian modulus and exponent.
    static func rsa(n: [UInt8], e: [UInt8]) throws(CryptoError) -> EVPKey {
        try rsa(members: [n, e])
    }

    /// Ed25519 public key from its 32 raw bytes.
    static func ed25519(publicKey: [UInt8]) throws(CryptoError) -> EVPKey {
        guard let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, publicKey, publicKey.count) else {
            throw openSSLFailure("EVP_PKEY_new_raw_public_key")
        }
        return EVPKey(key)
    }

    /// Ed25519 private key from its 32-byte seed.
    static func ed25519(seed: [UInt8]) throws(CryptoError) -> EVPKey {
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, seed.count) else {
            throw openSSLFailure("EVP_PKEY_new_raw_private_key")
        }
        return EVPKey(key)
    }

    static func generateP256() throws(CryptoError) -> EVPKey {
        guard let key = gh_EVP_EC_gen("P-256") else { throw openSSLFailure("EVP_EC_gen") }
        return EVPKey(key)
    }

    static func generateEd25519() throws(CryptoError) -> EVPKey {
        guard let key = gh_EVP_ED25519_gen() else { throw openSSLFailure("EVP_PKEY_Q_keygen(ED25519)") }
        return EVPKey(key)
    }

    static func generateRSA(bits: UInt32) throws(CryptoError) -> EVPKey {
        guard let key = gh_EVP_RSA_gen(bits) else { throw openSSLFailure("EVP_RSA_gen") }
        return EVPKey(key)
    }

    /// A private key from PEM (PKCS#8 `BEGIN PRIVATE KEY`, or `BEGIN EC PRIVATE KEY`), such as
    /// the `.p8` file Apple issues for Sign in with Apple client secrets.
    static func privateKey(pem: String) throws(CryptoError) -> EVPKey {
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { throw openSSLFailure("PEM_read_bio_PrivateKey") }
        return EVPKey(key)
    }

    /// The private key as PKCS#8 PEM.
    func privateKeyPEM() throws(CryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw openSSLFailure("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, raw, nil, nil, 0, nil, nil) == 1 else { throw openSSLFailure("PEM_write_bio_PrivateKey") }
        var pointer: UnsafeMutablePointer<CChar>?
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &pointer)   // BIO_get_mem_data is a macro over BIO_ctrl
        guard length > 0, let pointer else { throw .openSSL("BIO_get_mem_data") }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) }
    }

    /// `true` for an EC key on P-256.
    var isP256: Bool {
        var name = [CChar](repeating: 0, count: 32)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(raw, OSSL_PKEY_PARAM_GROUP_NAME, &name, name.count, &length) == 1 else { return false }
        let group = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return group == "prime256v1" || group == "P-256"
    }

    /// `true` for an Ed25519 key.
    var isEd25519: Bool { EVP_PKEY_get_base_id(raw) == EVP_PKEY_ED25519 }

    /// OpenSSL's consistency check of the key (the whole key pair when `privateToo`).
    func check(privateToo: Bool) throws(CryptoError) {
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, raw, nil) else { throw openSSLFailure("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(ctx) }
        let ok = privateToo ? EVP_PKEY_pairwise_check(ctx) : EVP_PKEY_public_check(ctx)
        guard ok == 1 else { throw openSSLFailure(privateToo ? "EVP_PKEY_pairwise_check" : "EVP_PKEY_public_check") }
    }

    // MARK: Exporting

    /// A big-number parameter as big-endian bytes, left-padded to `width` when given.
    func bigNumber(_ name: String, width: Int? = nil) throws(CryptoError) -> [UInt8] {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(raw, name, &bn) == 1, let bn else { throw openSSLFailure("EVP_PKEY_get_bn_param(\(name))") }
        defer { BN_clear_free(bn) }
        let count = width ?? Int(gh_BN_num_bytes(bn))
        var out = [UInt8](repeating: 0, count: count)
        guard BN_bn2binpad(bn, &out, Int32(count)) == Int32(count) else { throw openSSLFailure("BN_bn2binpad") }
        return out
    }

    func rawPublicKey() throws(CryptoError) -> [UInt8] {
        var length = 0
        guard EVP_PKEY_get_raw_public_key(raw, nil, &length) == 1 else { throw openSSLFailure("EVP_PKEY_get_raw_public_key") }
        var out = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_raw_public_key(raw, &out, &length) == 1 else { throw openSSLFailure("EVP_PKEY_get_raw_public_key") }
        return out
    }

    func rawPrivateKey() throws(CryptoError) -> [UInt8] {
        var length = 0
        guard EVP_PKEY_get_raw_private_key(raw, nil, &length) == 1 else { throw openSSLFailure("EVP_PKEY_get_raw_private_key") }
        var out = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_raw_private_key(raw, &out, &length) == 1 else { throw openSSLFailure("EVP_PKEY_get_raw_private_key") }
        return out
    }
}

extension EVPKey {
    /// RSA private key from JWK members (big-endian). Internal: we never sign with RSA in
    /// production; tests use it to reproduce deterministic RS256 known-answer signatures.
    static func rsaPrivate(n: [UInt8], e: [UInt8], d: [UInt8], p: [UInt8], q: [UInt8],
                           dp: [UInt8], dq: [UInt8], qi: [UInt8]) throws(CryptoError) -> EVPKey {
        try rsa(members: [n, e, d, p, q, dp, dq, qi])
    }

    /// Signs with RS256/PS256 for tests and benchmarks (public so the bench can compare).
    func signForTesting(_ message: [UInt8], algorithm: JWSAlgorithm) throws(CryptoError) -> [UInt8] {
        var copy = message
        copy.append(0)   // a non-empty buffer always has a base address
        let result: Result<[UInt8], CryptoError> = copy.withUnsafeBytes { bytes in
            do throws(CryptoError) {
                return .success(try sign(UnsafeRawBufferPointer(rebasing: bytes.dropLast()), algorithm: algorithm))
            } catch { return .failure(error) }
        }
        return try result.get()
    }
}
