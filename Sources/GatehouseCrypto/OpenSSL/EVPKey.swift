import COpenSSL

/// Owns an `EVP_PKEY*`.
// @unchecked Sendable: the EVP_PKEY is never mutated after construction, and OpenSSL 3 allows
// concurrent sign/verify operations on one key from several threads.
final class EVPKey: @unchecked Sendable {
    let raw: OpaquePointer

    init(_ raw: OpaquePointer) { self.raw = raw }
    deinit { EVP_PKEY_free(raw) }

    /// Size of the key in bits (RSA modulus bits, 256 for P-256/Ed25519).
    var bits: Int { Int(EVP_PKEY_get_bits(raw)) }

    // MARK: Building

    /// Builds a key from OSSL_PARAMs (`EVP_PKEY_fromdata`).
    static func fromData(type: String, selection: Int32, build: (OpaquePointer) -> Bool) throws(CryptoError) -> EVPKey {
        guard let builder = OSSL_PARAM_BLD_new() else { throw openSSLFailure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard build(builder), let params = OSSL_PARAM_BLD_to_param(builder) else { throw openSSLFailure("OSSL_PARAM_BLD") }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw openSSLFailure("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &key, selection, params) == 1, let key else {
            throw openSSLFailure("EVP_PKEY_fromdata(\(type))")
        }
        return EVPKey(key)
    }

    /// P-256 public key from its uncompressed point, checked to lie on the curve.
    static func p256(x: [UInt8], y: [UInt8], d: [UInt8]? = nil) throws(CryptoError) -> EVPKey {
        let point = [0x04] + x + y
        let privateBN: OpaquePointer? = d.map { BN_bin2bn($0, Int32($0.count), nil) }
        defer { if let privateBN { BN_clear_free(privateBN) } }
        let key = try fromData(type: "EC", selection: d == nil ? gh_EVP_PKEY_PUBLIC_KEY() : gh_EVP_PKEY_KEYPAIR()) { builder in
            guard OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) == 1,
                  OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, point.count) == 1 else { return false }
            if let privateBN { return OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_PRIV_KEY, privateBN) == 1 }
            return true
        }
        // fromdata does not reject points off the curve; an invalid point enables invalid-curve attacks.
        try key.check(privateToo: d != nil)
        return key
    }

    /// RSA public key from big-endian modulus and exponent.
    static func rsa(n: [UInt8], e: [UInt8]) throws(CryptoError) -> EVPKey {
        let bnN = BN_bin2bn(n, Int32(n.count), nil), bnE = BN_bin2bn(e, Int32(e.count), nil)
        defer { BN_free(bnN); BN_free(bnE) }
        return try fromData(type: "RSA", selection: gh_EVP_PKEY_PUBLIC_KEY()) { builder in
            OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, bnN) == 1
                && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, bnE) == 1
        }
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

    private func check(privateToo: Bool) throws(CryptoError) {
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
