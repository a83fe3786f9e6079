import Foundation
import GatehouseCrypto
import GatehouseStore
import Synchronization

/// Gatehouse's own token-signing keys: kept in the store with private parts sealed under the key
/// encryption key, re-read periodically so a key rotated by one process (or `gatehouse keys rotate`)
/// is picked up by every process without a restart.
///
/// Rotation publishes the new key at once but lets it sign only after `publishLead`, so relying
/// parties have it in their JWKS cache before they see a token it signed; the old key stops signing
/// then and stays published for `retiredPublishDuration` (longer than any token it signed lives).
///
/// There is one ring per algorithm, sharing the store: ES256 signs access tokens (and ID tokens of
/// clients that ask for it), RS256 signs ID tokens by default (OpenID Connect Core §15.1 makes RS256
/// mandatory and many relying parties accept nothing else). Rotation rotates every algorithm at once.
public final class SigningKeyRing: Sendable {
    public struct Policy: Sendable {
        public var publishLead: TimeInterval
        public var retiredPublishDuration: TimeInterval
        public var refreshInterval: TimeInterval
        /// The algorithms that always have a signing key (ES256 first: it signs access tokens).
        public var algorithms: [JWSAlgorithm]
        /// Makes a new key; tests may hand out a pre-made RSA key (2048-bit generation is slow).
        public var generate: @Sendable (JWSAlgorithm) throws -> GatehouseCrypto.SigningKey

        public init(publishLead: TimeInterval = 600, retiredPublishDuration: TimeInterval = 2 * 86_400,
                    refreshInterval: TimeInterval = 30, algorithms: [JWSAlgorithm] = [.es256, .rs256],
                    generate: @escaping @Sendable (JWSAlgorithm) throws -> GatehouseCrypto.SigningKey = { try GatehouseCrypto.SigningKey.generate($0) }) {
            self.publishLead = publishLead; self.retiredPublishDuration = retiredPublishDuration
            self.refreshInterval = refreshInterval; self.algorithms = algorithms; self.generate = generate
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case noActiveKey
        case undecryptable(kid: String)
        public var description: String {
            switch self {
            case .noActiveKey: "no signing key is active"
            case .undecryptable(let kid): "signing key \(kid) cannot be decrypted: GATEHOUSE_SECRET_KEY differs from the one that stored it"
            }
        }
    }

    let store: any SigningKeyStore
    let kek: KeyEncryptionKey
    let clock: IdentityClock
    public let policy: Policy
    private let cache = Mutex<(set: SigningKeySet, loadedAt: Date)?>(nil)

    public init(store: any SigningKeyStore, kek: KeyEncryptionKey, clock: IdentityClock = .system, policy: Policy = Policy()) {
        self.store = store; self.kek = kek; self.clock = clock; self.policy = policy
    }

    /// Makes sure every algorithm of the policy has a key that can sign: on first start (or the first
    /// start of a version that added an algorithm) there is none, so one is made that signs at once.
    public func ensureSigningKey() async throws {
        let set = try await keySet(forceReload: true)
        let now = clock.now()
        var added = false
        for algorithm in policy.algorithms where set.currentSigningKey(at: now, algorithm: algorithm) == nil {
            try await insert(try policy.generate(algorithm), createdAt: now, activatesAt: now)
            added = true
        }
        if added { _ = try await keySet(forceReload: true) }
    }

    /// Adds a key per algorithm that signs after `publishLead`, and retires the current ones at that moment.
    @discardableResult
    public func rotate() async throws -> (new: [String], retired: [String]) {
        let now = clock.now()
        let activation = now.addingTimeInterval(policy.publishLead)
        let current = try await keySet(forceReload: true)
        var new: [String] = []
        for algorithm in policy.algorithms {
            let key = try policy.generate(algorithm)
            try await insert(key, createdAt: now, activatesAt: activation)
            new.append(key.keyID)
        }
        var retired: [String] = []
        for scheduled in current.keys where scheduled.retiredAt == nil {
            try await store.retire(kid: scheduled.keyID, at: activation,
                                   publishUntil: activation.addingTimeInterval(policy.retiredPublishDuration))
            retired.append(scheduled.keyID)
        }
        _ = try await store.deleteExpired(now: now)
        _ = try await keySet(forceReload: true)
        return (new, retired)
    }

    /// The key that signs now with `algorithm` (ES256 by default: access tokens).
    public func signingKey(_ algorithm: JWSAlgorithm = .es256) async throws -> GatehouseCrypto.SigningKey {
        guard let key = try await keySet().currentSigningKey(at: clock.now(), algorithm: algorithm)?.key else {
            throw Failure.noActiveKey
        }
        return key
    }

    /// The public JWKS (upcoming, current and recently retired keys).
    public func publicJWKS() async throws -> JWKSet { try await keySet().publicJWKS(at: clock.now()) }

    /// Keys to verify tokens Gatehouse issued (access tokens presented back, `id_token_hint`).
    public func verificationKeys() async throws -> VerificationKeySet { try await keySet().verificationKeys(at: clock.now()) }

    /// The keys, from the cache unless it is older than `refreshInterval`.
    public func keySet(forceReload: Bool = false) async throws -> SigningKeySet {
        let now = clock.now()
        if !forceReload, let cached = cache.withLock({ $0 }), now.timeIntervalSince(cached.loadedAt) < policy.refreshInterval {
            return cached.set
        }
        let records = try await store.list()
        var keys: [ScheduledSigningKey] = []
        for record in records {
            let privateJWK: [UInt8]
            do { privateJWK = try kek.open(record.encryptedPrivateKey, keyID: record.kid) } catch {
                throw Failure.undecryptable(kid: record.kid)
            }
            // Opened under the key-encryption key, so these are the bytes this ring sealed.
            let key = try GatehouseCrypto.SigningKey(sealedPrivateJWKData: privateJWK)
            keys.append(ScheduledSigningKey(key: key, createdAt: record.createdAt, activatesAt: record.activatesAt,
                                            retiredAt: record.retiredAt, publishUntil: record.publishUntil))
        }
        let set = SigningKeySet(keys)
        cache.withLock { $0 = (set, now) }
        return set
    }

    private func insert(_ key: GatehouseCrypto.SigningKey, createdAt: Date, activatesAt: Date) async throws {
        let sealed = try kek.seal(key.privateJWKData(), keyID: key.keyID)
        let publicJWK = String(decoding: key.publicJWK.jsonData(), as: UTF8.self)
        try await store.insert(GatehouseStore.SigningKey(kid: key.keyID, algorithm: key.algorithm.rawValue, publicJWK: publicJWK,
                                                         encryptedPrivateKey: sealed, createdAt: createdAt, activatesAt: activatesAt))
    }
}
