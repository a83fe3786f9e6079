import Foundation

/// Shared background work the maintenance lease holder runs after each purge pass — the single job
/// runner of a deployment (provider-token revocations today). Requests only enqueue work for a job; they
/// never run one, so a user's request never waits on an upstream call it did not need.
///
/// A job must still claim its rows atomically: a lease can change hands mid-run when its holder stalls.
public struct MaintenanceJob: Sendable {
    /// For reports and logs (`provider_revocations`).
    public let name: String
    /// Does one bounded batch of work at `now`; returns how many items it completed.
    public let run: @Sendable (_ now: Date) async throws -> Int

    public init(name: String, run: @escaping @Sendable (_ now: Date) async throws -> Int) {
        self.name = name
        self.run = run
    }
}
