import Foundation
import GatehouseCrypto
import Synchronization

/// The RS256 keys one simulated provider signs its tokens with, and the JWKS it publishes.
///
/// Rotation works as at Apple and Google: the new key signs from now on, while retired keys stay
/// in the JWKS for a retention period so tokens they signed remain verifiable.
public final class RSAKeyRing: Sendable {
    private struct State: Sendable {
        var current: RSASigningKey
        /// Retired keys, newest first, with the moment they leave the JWKS.
        var retired: [(key: RSASigningKey, publishedUntil: Date)]
    }

    /// At most this many retired keys are kept, however long their retention.
    public static let maximumRetiredKeys = 4

    private let state: Mutex<State>
    private let clock: @Sendable () -> Date

    init(initialKey: RSASigningKey?, clock: @escaping @Sendable () -> Date) throws {
        state = Mutex(State(current: try initialKey ?? RSASigningKey.generate(), retired: []))
        self.clock = clock
    }

    /// The key signing new tokens.
    public var currentKey: RSASigningKey { state.withLock { $0.current } }

    /// Makes `newKey` (or a freshly generated 2048-bit key) the signing key. The previous key stays
    /// in the JWKS for `retention` seconds (default one day), then disappears.
    @discardableResult
    public func rotate(to newKey: RSASigningKey? = nil, retention: TimeInterval = 86_400) throws -> RSASigningKey {
        let next = try newKey ?? RSASigningKey.generate()
        let until = clock().addingTimeInterval(retention)
        state.withLock { state in
            state.retired.insert((state.current, until), at: 0)
            state.retired = Array(state.retired.prefix(Self.maximumRetiredKeys))
            state.current = next
        }
        return next
    }

    /// The published keys: the current one first, then retired keys still within their retention.
    public var jwks: JWKSet {
        let now = clock()
        return state.withLock { state in
            JWKSet(keys: [state.current.publicJWK] + state.retired.filter { $0.publishedUntil > now }.map(\.key.publicJWK))
        }
    }

    /// Signs `claims` with the current key (`kid` in the header). Apple omits `typ`, Google sends "JWT".
    func sign(_ claims: [String: JSONValue], type: String?) throws -> String {
        try currentKey.signJWT(claims, type: type)
    }
}
