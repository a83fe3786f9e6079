import Foundation

/// Persistence of OAuth flow state; each state is single-use.
public protocol FlowStateStore: Sendable {
    /// Stores a new flow. Throws `StoreError.conflict` for a duplicate hash.
    func create(_ flow: FlowState) async throws

    /// Atomically removes and returns the flow if it exists and has not expired at `now`;
    /// otherwise nil. Of concurrent callers exactly one gets it, so a replayed callback fails.
    func consume(stateHash: TokenHash, now: Date) async throws -> FlowState?

    /// Deletes up to `limit` flows expired at `now` (abandoned sign-ins); returns how many.
    @discardableResult
    func purgeExpired(now: Date, limit: Int) async throws -> Int
}
