import COpenSSL
import Synchronization

/// Reusable, already-initialised contexts for one key and one operation: `EVP_PKEY_CTX`s for
/// ES256/RS256/PS256 (which sign a digest we compute), `EVP_MD_CTX`s for Ed25519 (which has no
/// pre-hash form and signs the whole message with one-shot `EVP_DigestSign`/`EVP_DigestVerify`).
///
/// `EVP_PKEY_sign_init`/`verify_init` resolve the signature implementation through the provider
/// and allocate; doing that once per context instead of once per call is what lets us reach
/// `openssl speed`, which also initialises once and then signs/verifies in a loop. A context is
/// not thread-safe, so each call takes one out of the pool (or makes one) and puts it back.
final class PKeyContextPool: Sendable {
    /// Contexts kept at most; more concurrent callers get temporary ones.
    private static let capacity = 16

    /// Unowned: the key owns its pools, and a strong reference back would keep both alive forever.
    private unowned let key: EVPKey
    private let algorithm: JWSAlgorithm
    private let signing: Bool
    /// Pointers stored as bit patterns: the values only cross threads through this mutex.
    private let idle = Mutex<[UInt]>([])

    init(key: EVPKey, algorithm: JWSAlgorithm, signing: Bool) {
        self.key = key
        self.algorithm = algorithm
        self.signing = signing
    }

    deinit {
        for bits in idle.withLock({ $0 }) { free(OpaquePointer(bitPattern: bits)) }
    }

    /// Runs `body` with an initialised context; `nil` if OpenSSL could not make one.
    func withContext<R>(_ body: (OpaquePointer) -> R) -> R? {
        let bits = idle.withLock { $0.popLast() }
        guard let ctx = bits.flatMap({ OpaquePointer(bitPattern: $0) }) ?? makeContext() else { return nil }
        let result = body(ctx)
        let kept = idle.withLock { pool -> Bool in
            guard pool.count < Self.capacity else { return false }
            pool.append(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(ctx))))
            return true
        }
        if !kept { free(ctx) }
        return result
    }

    private func free(_ ctx: OpaquePointer?) {
        if algorithm == .edDSA { EVP_MD_CTX_free(ctx) } else { EVP_PKEY_CTX_free(ctx) }
    }

    private func makeContext() -> OpaquePointer? {
        if algorithm == .edDSA {
            guard let ctx = EVP_MD_CTX_new() else { return nil }
            let ok = signing ? EVP_DigestSignInit(ctx, nil, nil, nil, key.raw) : EVP_DigestVerifyInit(ctx, nil, nil, nil, key.raw)
            guard ok == 1 else {
                EVP_MD_CTX_free(ctx)
                ERR_clear_error()
                return nil
            }
            return ctx
        }
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.raw, nil) else { return nil }
        var ok = (signing ? EVP_PKEY_sign_init(ctx) : EVP_PKEY_verify_init(ctx)) == 1
            && EVP_PKEY_CTX_set_signature_md(ctx, OpenSSLAlgorithms.sha256) == 1
        if ok, algorithm == .ps256 {
            ok = EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) == 1
                && EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, RSA_PSS_SALTLEN_DIGEST) == 1
                && EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, OpenSSLAlgorithms.sha256) == 1
        } else if ok, algorithm == .rs256 {
            ok = EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1
        }
        guard ok else {
            EVP_PKEY_CTX_free(ctx)
            ERR_clear_error()
            return nil
        }
        return ctx
    }
}
