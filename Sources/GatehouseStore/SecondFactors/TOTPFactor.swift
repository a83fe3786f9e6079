import Foundation

/// A user's TOTP authenticator: the secret sealed under the server's key, and the last time step a
/// code was accepted for (the replay guard).
public struct TOTPFactor: Sendable, Equatable {
    public var userID: String
    /// The secret, AES-GCM sealed by Identity (never stored in the clear).
    public var sealedSecret: [UInt8]
    public var createdAt: Date
    /// Nil while the enrolment waits for its first code; a factor counts only once confirmed.
    public var confirmedAt: Date?
    /// The highest time step a code was accepted for; a code of this step or an earlier one is refused.
    public var lastStep: Int64?

    public init(userID: String, sealedSecret: [UInt8], createdAt: Date, confirmedAt: Date? = nil, lastStep: Int64? = nil) {
        self.userID = userID; self.sealedSecret = sealedSecret; self.createdAt = createdAt
        self.confirmedAt = confirmedAt; self.lastStep = lastStep
    }
}
