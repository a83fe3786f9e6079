import Foundation
import GatehouseCrypto
import GatehouseStore

/// The sign-in waiting for its second step: after the right password of an account with a second
/// factor, no session exists yet; this holds who proved the password, where to go next and which
/// browser may finish it. Stored by hash, short-lived, single-use: every answer spends it, and a wrong
/// code gets a new one (so two submissions of one challenge cannot both finish a sign-in).
public struct SecondStepChallenges: Sendable {
    public static let lifetime: TimeInterval = 300
    static let purpose: TokenPurpose = "second_factor"

    /// What the password step proved.
    public struct Pending: Sendable, Equatable, Codable {
        public let userID: String
        /// Methods proven so far (`pwd`).
        public let methods: [String]
        public let returnTo: String?
        /// SHA-256 hex of the browser's CSRF binding: another browser's challenge is refused.
        public let browserBinding: String
        /// When the first challenge of this sign-in expires; new challenges after wrong codes keep it.
        public let deadline: Date

        public init(userID: String, methods: [String], returnTo: String?, browserBinding: String, deadline: Date) {
            self.userID = userID; self.methods = methods; self.returnTo = returnTo; self.browserBinding = browserBinding
            self.deadline = deadline
        }
    }

    let store: any OneTimeTokenStore
    let clock: IdentityClock

    public init(store: any OneTimeTokenStore, clock: IdentityClock = .system) { self.store = store; self.clock = clock }

    /// Holds a sign-in for its second step; returns the random id the code form carries.
    public func hold(userID: String, methods: [String], returnTo: String?, browserBinding: String) async throws -> String {
        let pending = Pending(userID: userID, methods: methods, returnTo: returnTo, browserBinding: SHA256.hex(browserBinding),
                              deadline: clock.now().addingTimeInterval(Self.lifetime))
        return try await hold(pending)
    }

    /// Holds `pending` again under a new id (after a wrong code), until its original deadline.
    public func hold(_ pending: Pending) async throws -> String {
        let id = SecureRandom.token(byteCount: 32)
        let json = String(decoding: try JSONEncoder().encode(pending), as: UTF8.self)
        try await store.create(OneTimeToken(hash: TokenHash(SHA256.hash(id)), purpose: Self.purpose, userId: pending.userID,
                                            createdAt: clock.now(), expiresAt: pending.deadline, payload: json))
        return id
    }

    /// Spends the challenge `id` for this browser; of concurrent callers exactly one gets it.
    public func take(_ id: String, browserBinding: String) async throws -> Pending {
        guard id.utf8.count == 43,
              let consumed = try await store.consume(hash: TokenHash(SHA256.hash(id)), purpose: Self.purpose, now: clock.now()),
              let pending = try? JSONDecoder().decode(Pending.self, from: Data(consumed.payload.utf8)),
              ConstantTime.equals(pending.browserBinding, SHA256.hex(browserBinding)) else {
            throw SecondFactorRefusal.challengeExpired
        }
        return pending
    }
}
