import GatehouseIdentity

/// Puts failed sign-ins and other failures in the JSON log, with the reason the audit entry records
/// (`wrong_password`, `unknown_account`, `rate_limited`, `provider_error:…`, `invalid_state` for a
/// tampered or replayed callback…), so operators can see what happened without querying the database.
///
/// Never logged: passwords and tokens (never in audit details to begin with) and the email typed into a
/// failed sign-in — people type their password into the email field, and the audit log keeps it anyway.
struct SecurityEventLog: Sendable {
    let log: ServerLog

    /// The events worth a log line; successes stay in the audit log only.
    static let logged: Set<AuditEventType> = [.signInFailed, .signInRateLimited, .providerSignInFailed, .providerRevocationFailed,
                                              .passkeySignInFailed, .passkeyRegistrationFailed, .passkeySignCountRegression]
    /// Detail keys copied into the line.
    static let fields = ["reason", "limit", "retry_after", "provider", "client_id", "grant"]

    var observe: @Sendable (AuditEventType, String?, ClientContext, [String: String]) -> Void {
        { [log] type, userId, context, details in
            guard Self.logged.contains(type) else { return }
            var line: [(String, String)] = [("event", type.rawValue)]
            for key in Self.fields { if let value = details[key] { line.append((key, value)) } }
            if let userId { line.append(("user_id", userId)) }
            if let ip = context.ip { line.append(("ip", ip)) }
            log.info("security event", line)
        }
    }
}
