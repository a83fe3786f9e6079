import Foundation

/// A security-relevant event (sign-in, failed sign-in, password change, session ended …).
public struct AuditEvent: Sendable, Equatable {
    public var occurredAt: Date
    /// The user concerned, if known. Not a foreign key: the trail outlives deleted accounts.
    public var userId: String?
    /// Dotted event name, e.g. `"session.created"`, `"login.failed"`.
    public var type: String
    public var ip: String?
    public var userAgent: String?
    /// JSON object with event-specific fields. Never put secrets here.
    public var details: String

    public init(occurredAt: Date, userId: String? = nil, type: String, ip: String? = nil, userAgent: String? = nil,
                details: String = "{}") {
        self.occurredAt = occurredAt
        self.userId = userId
        self.type = type
        self.ip = ip
        self.userAgent = userAgent
        self.details = details
    }
}

/// A stored audit event with the sequence number the store assigned.
public struct AuditRecord: Sendable, Equatable {
    /// Increases with every append; assigned by the store.
    public var sequence: Int64
    public var event: AuditEvent

    public init(sequence: Int64, event: AuditEvent) {
        self.sequence = sequence
        self.event = event
    }
}
