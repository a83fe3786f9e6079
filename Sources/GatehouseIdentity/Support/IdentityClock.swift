import Foundation

/// Where identity code gets the time, so tests can move it (expiry, windows, back-off).
public struct IdentityClock: Sendable {
    public let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) { self.now = now }

    public static let system = IdentityClock { Date() }
}
