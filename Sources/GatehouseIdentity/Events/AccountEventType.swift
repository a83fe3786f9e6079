/// The webhook event types (`webhooks[].events`), named like the audit log's.
public enum AccountEventType: String, Sendable, CaseIterable, Equatable {
    case userCreated = "user.created"
    case userUpdated = "user.updated"
    case userDeleted = "user.deleted"
    case userDisabled = "user.disabled"
    case sessionEnded = "session.ended"
    case identityLinked = "identity.linked"
    case identityUnlinked = "identity.unlinked"
    case secondFactorAdded = "second_factor.added"
    case secondFactorRemoved = "second_factor.removed"

    /// The webhook an audited change announces, if any (session endings come from ``SessionService``,
    /// which knows the session's `sid`).
    init?(audit type: AuditEventType) {
        switch type {
        case .signUp, .accountImported: self = .userCreated
        case .accountUpdated, .accountEnabled, .emailVerified, .emailChanged: self = .userUpdated
        case .accountDeleted: self = .userDeleted
        case .accountDisabled: self = .userDisabled
        case .identityLinked: self = .identityLinked
        case .identityUnlinked: self = .identityUnlinked
        case .secondFactorAdded, .recoveryCodesGenerated: self = .secondFactorAdded
        case .secondFactorRemoved, .secondFactorsReset: self = .secondFactorRemoved
        default: return nil
        }
    }
}
