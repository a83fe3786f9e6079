import Foundation

/// A processed upstream event (Apple's server-to-server notifications), remembered so a replay of the
/// same event, or a late retry of an older one, changes nothing.
public struct ProviderEvent: Sendable, Equatable {
    public var provider: String
    /// Unique per event: the notification's `jti`, or a digest of (subject, type, event time) without one.
    public var eventID: String
    public var subject: String
    public var type: String
    /// When the provider says the event happened (orders events for one subject).
    public var eventTime: Date
    public var receivedAt: Date

    public init(provider: String, eventID: String, subject: String, type: String, eventTime: Date, receivedAt: Date) {
        self.provider = provider; self.eventID = eventID; self.subject = subject; self.type = type
        self.eventTime = eventTime; self.receivedAt = receivedAt
    }
}

/// What recording an event decided.
public enum ProviderEventOutcome: Sendable, Equatable {
    /// First time seen, and no later event of the subject was recorded: apply it.
    case apply
    /// Seen before (same id): a replay; ignore.
    case duplicate
    /// New, but a later event for the same subject was recorded already (an out-of-order retry); ignore.
    case superseded
}

public protocol ProviderEventStore: Sendable {
    /// Records `event` (atomically unique on (provider, eventID)) and says whether to apply it.
    func record(_ event: ProviderEvent) async throws -> ProviderEventOutcome
    /// Removes events received before `before`, at most `limit` rows.
    func purge(receivedBefore before: Date, limit: Int) async throws -> Int
}
