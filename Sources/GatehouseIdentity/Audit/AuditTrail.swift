import Foundation
import GatehouseStore

/// Appends audit entries. An audit write that fails is reported to `onFailure` (logged and counted by
/// the server) but never fails the user's request: the action already happened.
public struct AuditTrail: Sendable {
    let store: any AuditLogStore
    let clock: IdentityClock
    let onFailure: @Sendable (any Error) -> Void
    /// Sees every entry as it is recorded (the server logs failures with their reason).
    let observe: (@Sendable (AuditEventType, _ userId: String?, ClientContext, _ details: [String: String]) -> Void)?
    /// Announces audited account changes to the product (webhooks; back-channel logout on disable and delete).
    let events: OutboundEvents?

    public init(store: any AuditLogStore, clock: IdentityClock = .system,
                onFailure: @escaping @Sendable (any Error) -> Void = { _ in },
                observe: (@Sendable (AuditEventType, _ userId: String?, ClientContext, _ details: [String: String]) -> Void)? = nil,
                events: OutboundEvents? = nil) {
        self.store = store; self.clock = clock; self.onFailure = onFailure; self.observe = observe; self.events = events
    }

    public func record(_ type: AuditEventType, userId: String?, context: ClientContext, details: [String: String] = [:]) async {
        observe?(type, userId, context, details)
        let json: String
        if details.isEmpty {
            json = "{}"
        } else {
            let data = (try? JSONSerialization.data(withJSONObject: details, options: [.sortedKeys])) ?? Data("{}".utf8)
            json = String(decoding: data, as: UTF8.self)
        }
        let event = AuditEvent(occurredAt: clock.now(), userId: userId, type: type.rawValue, ip: context.ip,
                               userAgent: context.userAgent, details: json)
        do { _ = try await store.append(event) } catch { onFailure(error) }
        await events?.audited(type, userId: userId, details: details)
    }
}
