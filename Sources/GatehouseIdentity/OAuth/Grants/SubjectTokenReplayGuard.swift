import Foundation
import GatehouseCrypto
import GatehouseStore

/// Remembers third-party identity tokens that were already turned into a Gatehouse sign-in (native
/// Sign in with Apple, as `POST /native/apple` or the RFC 8693 exchange), so the same token signs in
/// once only. Store-backed (the shared flow-state table, under a domain-separated
/// hash of the token), so a second process refuses it too; remembered until the token expires.
public struct SubjectTokenReplayGuard: Sendable {
    let store: any FlowStateStore
    let clock: IdentityClock

    public init(store: any FlowStateStore, clock: IdentityClock = .system) { self.store = store; self.clock = clock }

    /// Records the first use of a *verified* token; false when it was used before (by anyone). Of
    /// concurrent callers exactly one gets true (the insert is the atomic step).
    public func firstUse(of token: String, expiresAt: Date?) async throws -> Bool {
        let now = clock.now()
        // Remember at least a minute (clock skew), at most a day (a token claiming a longer life).
        let until = min(max(expiresAt ?? now, now).addingTimeInterval(60), now.addingTimeInterval(86_400))
        do {
            try await store.create(FlowState(stateHash: TokenHash(SHA256.hash("gatehouse/used-subject-token/" + token)),
                                             createdAt: now, expiresAt: until, payload: #"{"kind":"used_subject_token"}"#))
            return true
        } catch let error as StoreError where error.kind == .conflict {
            return false
        }
    }

    /// The `exp` of a JWT whose signature the caller has already verified (nil when absent).
    public static func expiry(ofVerifiedJWT token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
              let claims = try? JWTClaims(json: payload) else { return nil }
        return claims.expiresAt
    }
}
