import Foundation

/// A user's remembered consent to a (third-party) client for some scopes.
public struct Consent: Sendable, Equatable {
    public var userId: String
    public var clientId: String
    public var scopes: [String]
    public var grantedAt: Date

    public init(userId: String, clientId: String, scopes: [String], grantedAt: Date) {
        self.userId = userId; self.clientId = clientId; self.scopes = scopes; self.grantedAt = grantedAt
    }
}

public protocol ConsentStore: Sendable {
    /// Creates or replaces the consent for (user, client).
    func save(_ consent: Consent) async throws
    func find(userId: String, clientId: String) async throws -> Consent?
    func revoke(userId: String, clientId: String) async throws -> Bool
    /// A user's consents, ordered by client id.
    func list(userId: String) async throws -> [Consent]
}
