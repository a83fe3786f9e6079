import Foundation
import GatehouseCrypto
import GatehouseStore

/// Server-side state that must survive a cross-site redirect (an upstream sign-in's `state`, its finish
/// ticket): stored under the SHA-256 of a random key the browser carries, and taken out once.
public struct SingleUseStates: Sendable {
    /// Keys longer than this were never issued here (issued keys are 43 characters); refused unread.
    static let maximumKeyLength = 256

    let store: any FlowStateStore
    let clock: IdentityClock

    public init(store: any FlowStateStore, clock: IdentityClock = .system) { self.store = store; self.clock = clock }

    /// Stores `payload` for `lifetime` and returns the key that takes it out again (256 random bits).
    public func put(_ payload: String, lifetime: TimeInterval) async throws -> String {
        let key = SecureRandom.token(byteCount: 32)
        let now = clock.now()
        try await store.create(FlowState(stateHash: Self.hash(key), createdAt: now, expiresAt: now.addingTimeInterval(lifetime),
                                         payload: payload))
        return key
    }

    /// The payload stored under `key`, removed so it cannot be taken twice; nil when the key is unknown,
    /// already taken, expired, empty or longer than any key issued.
    public func take(_ key: String) async throws -> String? {
        guard !key.isEmpty, key.utf8.count <= Self.maximumKeyLength else { return nil }
        return try await store.consume(stateHash: Self.hash(key), now: clock.now())?.payload
    }

    static func hash(_ key: String) -> TokenHash { TokenHash(SHA256.hash(key)) }
}
