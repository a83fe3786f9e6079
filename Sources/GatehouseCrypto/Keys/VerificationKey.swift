import Foundation
import Synchronization

/// A public key ready to verify JWS signatures: EC P-256, RSA ≥ 2048 bits, or Ed25519.
///
/// Building one from a JWK costs tens of microseconds (OpenSSL key import and, for EC, a point
/// check), so ``init(jwk:)`` goes through ``VerificationKeyCache/shared``: the same key material
/// is imported once per process.
public struct VerificationKey: Sendable {
    /// The key family.
    public let kind: KeyKind
    /// The JWK `kid`, if it had one.
    public let keyID: String?
    /// The JWK `alg`, if it pinned one; a token must then use exactly this algorithm.
    public let pinnedAlgorithm: JWSAlgorithm?
    /// The public JWK this key was built from (metadata included).
    public let jwk: JWK

    let evp: EVPKey

    /// Minimum RSA modulus size accepted (RFC 7518 §3.3 requires 2048).
    public static let minimumRSABits = 2048

    /// Builds (or fetches from the process-wide cache) the key described by `jwk`.
    public init(jwk: JWK) throws(JOSEError) {
        self = try VerificationKeyCache.shared.key(for: jwk)
    }

    init(jwk: JWK, evp: EVPKey, kind: KeyKind) throws(JOSEError) {
        self.kind = kind
        self.keyID = jwk.keyID
        self.jwk = jwk.publicKey
        self.evp = evp
        if let alg = jwk.algorithm {
            guard let pinned = JWSAlgorithm(rawValue: alg) else { throw .unsupportedAlgorithm(alg) }
            guard pinned.keyKind == kind else { throw .keyTypeMismatch }
            pinnedAlgorithm = pinned
        } else {
            pinnedAlgorithm = nil
        }
    }

    /// Imports the key without consulting the cache.
    static func build(jwk: JWK) throws(JOSEError) -> VerificationKey {
        let kind = try jwk.kind()
        if let use = jwk.use, use != "sig" { throw .invalidKey("use is \(use), not sig") }
        let evp: EVPKey
        do {
            switch kind {
            case .ecP256:
                let x = try decodeMember(jwk.x, "x", length: 32), y = try decodeMember(jwk.y, "y", length: 32)
                evp = try mapCrypto { () throws(CryptoError) in try EVPKey.p256(x: x, y: y) }
            case .rsa:
                let n = try decodeMember(jwk.modulus, "n"), e = try decodeMember(jwk.exponent, "e")
                // Leading zero octets would make the bit count lie (RFC 7518 §6.3.1.1 forbids them).
                guard n.first != 0, e.first != 0, e.count <= 8 else { throw JOSEError.invalidKey("n/e not minimal") }
                guard n.count * 8 >= minimumRSABits else { throw JOSEError.weakKey }
                evp = try mapCrypto { () throws(CryptoError) in try EVPKey.rsa(n: n, e: e) }
                guard evp.bits >= minimumRSABits else { throw JOSEError.weakKey }
            case .ed25519:
                let x = try decodeMember(jwk.x, "x", length: 32)
                evp = try mapCrypto { () throws(CryptoError) in try EVPKey.ed25519(publicKey: x) }
            }
        } catch let error as JOSEError {
            throw error
        } catch {
            throw .invalidKey("unusable key material")
        }
        return try VerificationKey(jwk: jwk, evp: evp, kind: kind)
    }

    /// Checks that this key may verify `algorithm`; throws ``JOSEError/keyTypeMismatch`` otherwise.
    public func checkCompatible(with algorithm: JWSAlgorithm) throws(JOSEError) {
        guard algorithm.keyKind == kind else { throw .keyTypeMismatch }
        if let pinnedAlgorithm, pinnedAlgorithm != algorithm { throw .keyTypeMismatch }
    }

    /// Verifies a raw JWS signature over `message` (concrete overload: no generic dispatch).
    public func verify(signature: [UInt8], for message: [UInt8], algorithm: JWSAlgorithm) throws(JOSEError) {
        try checkCompatible(with: algorithm)
        let ok = signature.withUnsafeBytes { sig in message.withUnsafeBytes { evp.verify(sig, of: $0, algorithm: algorithm) } }
        guard ok else { throw .invalidSignature }
    }

    /// Verifies a raw JWS signature over `message` (the ASCII signing input).
    ///
    /// Throws ``JOSEError/keyTypeMismatch`` if the key cannot do `algorithm`, and
    /// ``JOSEError/invalidSignature`` if the signature is wrong.
    public func verify<Signature: Collection, Message: Collection>(signature: Signature, for message: Message, algorithm: JWSAlgorithm) throws(JOSEError)
    where Signature.Element == UInt8, Message.Element == UInt8 {
        try checkCompatible(with: algorithm)
        let ok = withBytes(signature) { sig in withBytes(message) { evp.verify(sig, of: $0, algorithm: algorithm) } }
        guard ok else { throw .invalidSignature }
    }
}

/// Runs `body` over contiguous bytes of `bytes`, copying only when the collection is not contiguous.
@inline(__always)
func withBytes<Bytes: Collection, R>(_ bytes: Bytes, _ body: (UnsafeRawBufferPointer) -> R) -> R where Bytes.Element == UInt8 {
    if let result = bytes.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
    return Array(bytes).withUnsafeBytes(body)
}

func decodeMember(_ value: String?, _ name: String, length: Int? = nil) throws(JOSEError) -> [UInt8] {
    guard let value else { throw .invalidKey("missing \(name)") }
    guard let bytes = Base64URL.decode(value) else { throw .malformedBase64 }
    if let length, bytes.count != length { throw .invalidKey("\(name) must be \(length) bytes") }
    return bytes
}

func mapCrypto<T>(_ body: () throws(CryptoError) -> T) throws(JOSEError) -> T {
    do { return try body() } catch { throw .crypto(error) }
}

/// A process-wide, size-bounded cache of imported verification keys, keyed by the RFC 7638
/// canonical public members plus `alg`/`kid`/`use` (so metadata cannot be swapped under a cached key).
public final class VerificationKeyCache: Sendable {
    /// The cache ``VerificationKey/init(jwk:)`` uses.
    public static let shared = VerificationKeyCache(capacity: 1024)

    private let capacity: Int
    private let entries = Mutex<[String: VerificationKey]>([:])

    /// A cache holding at most `capacity` keys; when full it is emptied (providers rotate slowly,
    /// so a rare rebuild is cheaper than tracking recency).
    public init(capacity: Int) {
        self.capacity = capacity
    }

    /// The cached key for `jwk`, building and storing it on a miss.
    public func key(for jwk: JWK) throws(JOSEError) -> VerificationKey {
        // A JSON array keeps the parts apart: joined with "|", a missing `kid` and an empty one were the
        // same entry, so one JWK got the other's `keyID` (found by fuzz/jwk).
        let parts: [String?] = [try jwk.canonicalPublicJSON(), jwk.algorithm, jwk.keyID, jwk.use]
        let identity = String(decoding: JSONValue.array(parts.map { $0.map(JSONValue.string) ?? .null }).jsonBytes, as: UTF8.self)
        if let hit = entries.withLock({ $0[identity] }) { return hit }
        let key = try VerificationKey.build(jwk: jwk)
        entries.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[identity] = key
        }
        return key
    }

    /// Number of cached keys (for tests and metrics).
    public var count: Int { entries.withLock { $0.count } }
}
