import Foundation

/// The backend-neutral catalogue of schema versions.
///
/// Every backend implements each version with its own SQL, but the numbers and their meaning
/// are shared so a database's version says the same thing whichever backend wrote it. A schema
/// change appends an entry here and one migration per backend; entries are never edited.
public enum StoreSchema {
    /// A schema version and what it introduces.
    public struct Version: Sendable, Equatable {
        public let number: Int
        public let name: String
    }

    public static let versions: [Version] = [
        Version(number: 1, name: "signing_keys"),
        Version(number: 2, name: "users"),
        Version(number: 3, name: "sessions"),
        Version(number: 4, name: "one_time_tokens"),
        Version(number: 5, name: "rate_limits"),
        Version(number: 6, name: "audit_log"),
        Version(number: 7, name: "flow_states"),
        Version(number: 8, name: "oauth_clients"),
        Version(number: 9, name: "authorization_codes"),
        Version(number: 10, name: "refresh_tokens"),
        Version(number: 11, name: "revoked_access_tokens"),
        Version(number: 12, name: "consents"),
        Version(number: 13, name: "external_identities"),
        Version(number: 14, name: "pending_revocations"),
        Version(number: 15, name: "leases"),
        Version(number: 16, name: "provider_token_client_ids"),
        Version(number: 17, name: "provider_events"),
        Version(number: 18, name: "audit_log_search"),
        Version(number: 19, name: "users_external_id"),
        Version(number: 20, name: "outbound_deliveries"),
        Version(number: 21, name: "refresh_tokens_by_user_created"),
        Version(number: 22, name: "drop_refresh_tokens_by_client"),
        Version(number: 23, name: "users_import_origin"),
        Version(number: 25, name: "users_tokens_not_before"),
        Version(number: 27, name: "refresh_tokens_dpop_jkt"),
        Version(number: 29, name: "webauthn_credentials"),
        Version(number: 30, name: "webauthn_challenges"),
        Version(number: 31, name: "totp_factors"),
        Version(number: 32, name: "recovery_codes"),
        Version(number: 33, name: "users_language_and_time_zone"),
        Version(number: 38, name: "authorization_bindings"),
        Version(number: 39, name: "webauthn_second_steps"),
        Version(number: 40, name: "refresh_token_generations"),
        Version(number: 41, name: "users_email_search"),
    ]

    /// The version this build expects after `migrate()`.
    public static var latestVersion: Int { versions.last?.number ?? 0 }
}
