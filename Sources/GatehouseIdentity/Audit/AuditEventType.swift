/// The kinds of event the audit log records.
public enum AuditEventType: String, Sendable, CaseIterable {
    case signUp = "sign_up"
    case signInSucceeded = "sign_in.succeeded"
    case signInFailed = "sign_in.failed"
    case signInRateLimited = "sign_in.rate_limited"
    case signOut = "sign_out"
    case sessionEnded = "session.ended"
    case sessionsRevoked = "session.revoked_all"
    case passwordChanged = "password.changed"
    case passwordResetRequested = "password.reset_requested"
    case passwordReset = "password.reset"
    case emailVerified = "email.verified"
    case accountDisabled = "account.disabled"
    case accountDeleted = "account.deleted"
    case consentGranted = "consent.granted"
    case consentDenied = "consent.denied"
    case appAccessRevoked = "app.revoked"
}
