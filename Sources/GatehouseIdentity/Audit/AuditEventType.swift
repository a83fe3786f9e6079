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
    /// The first proof of email ownership removed what was attached to the account before it.
    case accountClaimed = "account.claimed"
    case passwordCheckRateLimited = "password.check_rate_limited"
    /// A notification mail was not sent because its recipient already got the most allowed.
    case mailSuppressed = "mail.suppressed"
    case accountDisabled = "account.disabled"
    case accountDeleted = "account.deleted"
    case accountImported = "account.imported"
    case accountUpdated = "account.updated"
    case accountEnabled = "account.enabled"
    /// The owner asked to move the account to a new address (the link went there, a notice to the old one).
    case emailChangeRequested = "email.change_requested"
    /// The owner proved the new address: the account moved to it.
    case emailChanged = "email.changed"
    /// The owner asked for a link to set a first password (a provider-only account).
    case passwordSetupRequested = "password.setup_requested"
    /// The owner downloaded their data (GDPR Art. 15 and 20).
    case accountExported = "account.exported"
    case consentGranted = "consent.granted"
    case consentDenied = "consent.denied"
    case appAccessRevoked = "app.revoked"
    // Upstream providers (Apple, Google, GitHub, OIDC)
    case providerSignInFailed = "provider.sign_in_failed"
    case identityLinked = "identity.linked"
    case identityUnlinked = "identity.unlinked"
    case providerNotification = "provider.notification"
    case providerTokenRevoked = "provider.token_revoked"
    case providerRevocationFailed = "provider.revocation_failed"
    // WebAuthn credentials (passkeys, security keys)
    case passkeyAdded = "passkey.added"
    case passkeyRegistrationFailed = "passkey.registration_failed"
    case passkeySignInFailed = "passkey.sign_in_failed"
    /// An assertion's signature counter did not move forward: possibly a cloned authenticator.
    case passkeySignCountRegression = "passkey.sign_count_regression"
    case passkeyRenamed = "passkey.renamed"
    case passkeyRemoved = "passkey.removed"
    // Second factors (authenticator apps, recovery codes)
    case secondFactorAdded = "second_factor.added"
    case secondFactorRemoved = "second_factor.removed"
    /// An administrator removed the account's second factors.
    case secondFactorsReset = "second_factor.reset"
    case recoveryCodesGenerated = "second_factor.recovery_codes_generated"
    case recoveryCodeUsed = "second_factor.recovery_code_used"
    case secondFactorFailed = "second_factor.failed"
    case secondFactorRateLimited = "second_factor.rate_limited"
}
