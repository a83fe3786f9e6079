import Foundation
import GatehouseStore

/// Everything Gatehouse holds about one account, for its owner to download (GDPR Art. 15, access, and Art. 20,
/// portability): the profile, the linked provider identities, the passkeys, the live sessions, the applications'
/// consents and grants, and the account's audit entries.
///
/// What identifies or opens something is left out: no password hash, session or token ids or hashes, sealed
/// provider tokens, passkey public keys or credential ids. The export says whether a password is set, not what
/// it is. Only the owner, after a fresh sign-in (``RecentAuthentication``), gets it; each export is audited.
public struct AccountDataExport: Sendable {
    /// What the export reads: the account and everything that hangs off it.
    public struct Stores: Sendable {
        let users: any UserStore
        let externalIdentities: any ExternalIdentityStore
        let webAuthnCredentials: any WebAuthnCredentialStore
        let sessions: any SessionStore
        let consents: any ConsentStore
        let refreshTokens: any RefreshTokenStore
        let auditLog: any AuditLogStore

        public init(users: any UserStore, externalIdentities: any ExternalIdentityStore, webAuthnCredentials: any WebAuthnCredentialStore,
                    sessions: any SessionStore, consents: any ConsentStore, refreshTokens: any RefreshTokenStore, auditLog: any AuditLogStore) {
            self.users = users; self.externalIdentities = externalIdentities; self.webAuthnCredentials = webAuthnCredentials
            self.sessions = sessions; self.consents = consents; self.refreshTokens = refreshTokens; self.auditLog = auditLog
        }

        /// These stores of `database`.
        public init(_ database: any GatehouseDatabase) {
            self.init(users: database.users, externalIdentities: database.externalIdentities, webAuthnCredentials: database.webAuthnCredentials,
                      sessions: database.sessions, consents: database.consents, refreshTokens: database.refreshTokens,
                      auditLog: database.auditLog)
        }
    }

    let database: Stores
    let audit: AuditTrail
    let clock: IdentityClock
    /// The newest audit entries included (the audit log keeps what the retention setting says).
    public var auditLimit = 1_000

    public init(stores: Stores, audit: AuditTrail, clock: IdentityClock = .system) {
        self.database = stores; self.audit = audit; self.clock = clock
    }

    /// The export as JSON (UTF-8, sorted keys, dates in ISO 8601 UTC). Throws `notFound` for an unknown account.
    public func export(userId: String, context: ClientContext) async throws -> [UInt8] {
        guard let user = try await database.users.find(id: userId) else { throw AccountError.notFound }
        let now = clock.now()
        let identities = try await database.externalIdentities.list(userId: user.id)
        let passkeys = try await database.webAuthnCredentials.credentials(userID: user.id)
        let sessions = try await database.sessions.list(userId: user.id, now: now)
        let consents = try await database.consents.list(userId: user.id)
        let grants = try await database.refreshTokens.activeGrants(userId: user.id, now: now)
        let entries = try await database.auditLog.list(userId: user.id, limit: auditLimit)
        func value(_ optional: String?) -> Any { optional ?? NSNull() }
        let profile: [String: Any] = [
            "id": user.id, "email": user.email, "email_verified": user.emailVerified, "name": value(user.displayName),
            "has_password": user.passwordHash != nil, "created_at": Self.time(user.createdAt), "updated_at": Self.time(user.updatedAt),
        ]
        let linked: [[String: Any]] = identities.map { identity in
            ["provider": identity.provider, "subject": identity.subject, "email": value(identity.email),
             "email_verified": identity.emailVerified, "name": value(identity.displayName),
             "linked_at": Self.time(identity.createdAt), "last_used_at": Self.time(identity.lastUsedAt)]
        }
        let keys: [[String: Any]] = passkeys.map { passkey in
            ["name": passkey.name, "created_at": Self.time(passkey.createdAt),
             "last_used_at": value(passkey.lastUsedAt.map(Self.time)), "backed_up": passkey.backedUp]
        }
        let live: [[String: Any]] = sessions.map { session in
            ["signed_in_at": Self.time(session.createdAt), "last_seen_at": Self.time(session.lastSeenAt),
             "ip": value(session.ip), "user_agent": value(session.userAgent), "methods": session.authMethods]
        }
        let allowed: [[String: Any]] = consents.map { consent in
            ["client_id": consent.clientId, "scopes": consent.scopes, "granted_at": Self.time(consent.grantedAt)]
        }
        let held: [[String: Any]] = grants.map { grant in
            ["client_id": grant.clientId, "scope": grant.scope, "since": Self.time(grant.since)]
        }
        let log: [[String: Any]] = entries.map { record in
            let details: Any = (try? JSONSerialization.jsonObject(with: Data(record.event.details.utf8))) ?? [String: Any]()
            return ["at": Self.time(record.event.occurredAt), "type": record.event.type, "ip": value(record.event.ip),
                    "user_agent": value(record.event.userAgent), "details": details]
        }
        let object: [String: Any] = [
            "format": "account-export/1", "exported_at": Self.time(now), "profile": profile, "identities": linked,
            "passkeys": keys, "sessions": live, "consents": allowed, "grants": held, "audit": log,
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        await audit.record(.accountExported, userId: user.id, context: context)
        return Array(data)
    }

    /// `2026-12-02T01:30:00Z`.
    static func time(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
