import Foundation

/// A Gatehouse account.
public struct User: Sendable, Equatable {
    /// Chosen by the caller, e.g. `RecordID.random()`; never reused.
    public var id: String
    /// Normalised by the caller (the store compares bytes); unique across users.
    public var email: String
    public var displayName: String?
    /// A PHC string (`$argon2id$…`); nil for accounts that only sign in through a provider.
    public var passwordHash: String?
    public var emailVerified: Bool
    /// A disabled account keeps its data but must not sign in.
    public var disabled: Bool
    public var createdAt: Date
    public var updatedAt: Date
    /// The language the user chose for pages and mails (a BCP 47 tag such as `de`); nil: none chosen.
    public var language: String?
    /// The IANA time zone the user chose for times on pages (`Europe/Berlin`); nil: UTC.
    public var timeZone: String?

    public init(id: String, email: String, displayName: String? = nil, passwordHash: String? = nil,
                emailVerified: Bool = false, disabled: Bool = false, createdAt: Date, updatedAt: Date? = nil,
                language: String? = nil, timeZone: String? = nil) {
        self.id = id
        self.email = email
        self.displayName = displayName
        self.passwordHash = passwordHash
        self.emailVerified = emailVerified
        self.disabled = disabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.language = language
        self.timeZone = timeZone
    }
}

/// One field to change in `UserStore.update`. Changes name only the fields they touch, so two
/// concurrent updates of different fields (verify email, change password) do not undo each other.
public enum UserChange: Sendable, Equatable {
    case email(String)
    case displayName(String?)
    case passwordHash(String?)
    case emailVerified(Bool)
    case disabled(Bool)
    case language(String?)
    case timeZone(String?)
}
