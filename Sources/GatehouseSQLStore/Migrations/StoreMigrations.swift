/// Every migration, in order, once for both backends; `SQLSchemaTypes` supplies the few words that
/// differ. Append only: a shipped migration is never edited. Versions and names follow `StoreSchema.versions`.
///
/// Conventions: times are integer milliseconds since the epoch; secrets are stored only as hashes;
/// ids are text chosen by the caller and compared byte for byte on both backends.
public enum StoreMigrations {
    public static func all(_ t: SQLSchemaTypes) -> [SQLMigration] {
        [
            SQLMigration(version: 1, name: "signing_keys", sql: """
                CREATE TABLE signing_keys (
                    kid \(t.key) PRIMARY KEY NOT NULL,
                    algorithm TEXT NOT NULL,
                    public_jwk TEXT NOT NULL,
                    encrypted_private_key \(t.bytes) NOT NULL,
                    created_at \(t.integer) NOT NULL,
                    activates_at \(t.integer) NOT NULL,
                    retired_at \(t.integer),
                    publish_until \(t.integer)
                )\(t.table);
                """),
            SQLMigration(version: 2, name: "users", sql: """
                CREATE TABLE users (
                    id \(t.key) PRIMARY KEY NOT NULL,
                    email \(t.key) NOT NULL UNIQUE,
                    display_name TEXT,
                    password_hash TEXT,
                    email_verified \(t.boolean) NOT NULL DEFAULT \(t.falseDefault),
                    disabled \(t.boolean) NOT NULL DEFAULT \(t.falseDefault),
                    created_at \(t.integer) NOT NULL,
                    updated_at \(t.integer) NOT NULL
                )\(t.table);
                CREATE INDEX users_by_creation ON users (created_at, id);
                """),
            SQLMigration(version: 3, name: "sessions", sql: """
                CREATE TABLE sessions (
                    id_hash \(t.bytes) PRIMARY KEY NOT NULL,
                    user_id \(t.key) NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    created_at \(t.integer) NOT NULL,
                    last_seen_at \(t.integer) NOT NULL,
                    idle_expires_at \(t.integer) NOT NULL,
                    absolute_expires_at \(t.integer) NOT NULL,
                    ip TEXT,
                    user_agent TEXT,
                    auth_methods TEXT NOT NULL
                )\(t.keyedTable);
                CREATE INDEX sessions_by_user ON sessions (user_id);
                CREATE INDEX sessions_by_idle_expiry ON sessions (idle_expires_at);
                CREATE INDEX sessions_by_absolute_expiry ON sessions (absolute_expires_at);
                """),
            SQLMigration(version: 4, name: "one_time_tokens", sql: """
                CREATE TABLE one_time_tokens (
                    hash \(t.bytes) PRIMARY KEY NOT NULL,
                    purpose TEXT NOT NULL,
                    user_id \(t.key) NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    created_at \(t.integer) NOT NULL,
                    expires_at \(t.integer) NOT NULL,
                    used_at \(t.integer),
                    payload TEXT NOT NULL
                )\(t.keyedTable);
                CREATE INDEX one_time_tokens_by_user ON one_time_tokens (user_id, purpose);
                CREATE INDEX one_time_tokens_by_expiry ON one_time_tokens (expires_at);
                """),
            SQLMigration(version: 5, name: "rate_limits", sql: """
                CREATE TABLE rate_limits (
                    bucket \(t.key) NOT NULL,
                    limit_key \(t.key) NOT NULL,
                    window_start \(t.integer) NOT NULL,
                    window_end \(t.integer) NOT NULL,
                    hits \(t.integer) NOT NULL,
                    PRIMARY KEY (bucket, limit_key)
                )\(t.keyedTable);
                CREATE INDEX rate_limits_by_window_end ON rate_limits (window_end);
                """),
            SQLMigration(version: 6, name: "audit_log", sql: """
                CREATE TABLE audit_log (
                    sequence \(t.sequence),
                    occurred_at \(t.integer) NOT NULL,
                    user_id \(t.key),
                    event_type TEXT NOT NULL,
                    ip TEXT,
                    user_agent TEXT,
                    details TEXT NOT NULL
                )\(t.table);
                CREATE INDEX audit_log_by_user ON audit_log (user_id, occurred_at);
                CREATE INDEX audit_log_by_time ON audit_log (occurred_at);
                """),
            SQLMigration(version: 7, name: "flow_states", sql: """
                CREATE TABLE flow_states (
                    state_hash \(t.bytes) PRIMARY KEY NOT NULL,
                    created_at \(t.integer) NOT NULL,
                    expires_at \(t.integer) NOT NULL,
                    payload TEXT NOT NULL
                )\(t.keyedTable);
                CREATE INDEX flow_states_by_expiry ON flow_states (expires_at);
                """),
            // OAuth: string lists are JSON arrays in TEXT columns, byte-identical on both backends.
            SQLMigration(version: 8, name: "oauth_clients", sql: """
                CREATE TABLE oauth_clients (
                    id \(t.key) PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('public', 'confidential')),
                    secret_hash TEXT,
                    redirect_uris TEXT NOT NULL,
                    post_logout_redirect_uris TEXT NOT NULL,
                    grant_types TEXT NOT NULL,
                    scopes TEXT NOT NULL,
                    first_party \(t.boolean) NOT NULL DEFAULT \(t.falseDefault),
                    allow_localhost \(t.boolean) NOT NULL DEFAULT \(t.falseDefault),
                    web_origins TEXT NOT NULL,
                    metadata TEXT NOT NULL,
                    created_at \(t.integer) NOT NULL,
                    updated_at \(t.integer) NOT NULL
                )\(t.table);
                """),
            SQLMigration(version: 9, name: "authorization_codes", sql: """
                CREATE TABLE authorization_codes (
                    hash \(t.bytes) PRIMARY KEY NOT NULL,
                    client_id \(t.key) NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
                    user_id \(t.key) NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    redirect_uri TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    nonce TEXT,
                    code_challenge TEXT,
                    auth_time \(t.integer) NOT NULL,
                    auth_methods TEXT NOT NULL,
                    created_at \(t.integer) NOT NULL,
                    expires_at \(t.integer) NOT NULL,
                    used_at \(t.integer),
                    issued_family_id \(t.key)
                )\(t.keyedTable);
                CREATE INDEX authorization_codes_by_client ON authorization_codes (client_id);
                CREATE INDEX authorization_codes_by_user ON authorization_codes (user_id);
                CREATE INDEX authorization_codes_by_expiry ON authorization_codes (expires_at);
                """),
            SQLMigration(version: 10, name: "refresh_tokens", sql: """
                CREATE TABLE refresh_tokens (
                    hash \(t.bytes) PRIMARY KEY NOT NULL,
                    family_id \(t.key) NOT NULL,
                    client_id \(t.key) NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
                    user_id \(t.key) NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    scope TEXT NOT NULL,
                    auth_time \(t.integer) NOT NULL,
                    auth_methods TEXT NOT NULL,
                    created_at \(t.integer) NOT NULL,
                    expires_at \(t.integer) NOT NULL,
                    rotated_at \(t.integer),
                    revoked_at \(t.integer)
                )\(t.keyedTable);
                CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);
                CREATE INDEX refresh_tokens_by_user ON refresh_tokens (user_id, client_id);
                CREATE INDEX refresh_tokens_by_client ON refresh_tokens (client_id);
                CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at);
                """),
            SQLMigration(version: 11, name: "revoked_access_tokens", sql: """
                CREATE TABLE revoked_access_tokens (
                    jti \(t.key) PRIMARY KEY NOT NULL,
                    expires_at \(t.integer) NOT NULL
                )\(t.keyedTable);
                CREATE INDEX revoked_access_tokens_by_expiry ON revoked_access_tokens (expires_at);
                """),
            SQLMigration(version: 12, name: "consents", sql: """
                CREATE TABLE consents (
                    user_id \(t.key) NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    client_id \(t.key) NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
                    scopes TEXT NOT NULL,
                    granted_at \(t.integer) NOT NULL,
                    PRIMARY KEY (user_id, client_id)
                )\(t.keyedTable);
                CREATE INDEX consents_by_client ON consents (client_id);
                """),
            SQLMigration(version: 13, name: "external_identities", sql: """
                CREATE TABLE external_identities (
                    provider \(t.key) NOT NULL,
                    subject \(t.key) NOT NULL,
                    user_id \(t.key) NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    email TEXT,
                    email_verified \(t.boolean) NOT NULL DEFAULT \(t.falseDefault),
                    is_private_relay \(t.boolean) NOT NULL DEFAULT \(t.falseDefault),
                    display_name TEXT,
                    sealed_refresh_token \(t.bytes),
                    created_at \(t.integer) NOT NULL,
                    last_used_at \(t.integer) NOT NULL,
                    PRIMARY KEY (provider, subject)
                )\(t.keyedTable);
                CREATE INDEX external_identities_by_user ON external_identities (user_id, provider, subject);
                """),
            // No reference to users: a revocation must outlive the deleted account it came from.
            SQLMigration(version: 14, name: "pending_revocations", sql: retryQueue("pending_revocations", [
                "id \(t.key) PRIMARY KEY NOT NULL",
                "provider \(t.key) NOT NULL",
                "sealed_token \(t.bytes) NOT NULL",
                "token_type_hint TEXT NOT NULL",
            ], t)),
            // One row per lease name; the upsert in SQLLeaseStore takes or renews it.
            SQLMigration(version: 15, name: "leases", sql: """
                CREATE TABLE leases (
                    name \(t.key) PRIMARY KEY NOT NULL,
                    holder \(t.key) NOT NULL,
                    expires_at \(t.integer) NOT NULL
                )\(t.keyedTable);
                """),
            // The client a provider token was issued to (Apple revokes only when asked by that client).
            SQLMigration(version: 16, name: "provider_token_client_ids", sql: """
                ALTER TABLE external_identities ADD COLUMN token_client_id TEXT;
                ALTER TABLE pending_revocations ADD COLUMN client_id TEXT;
                """),
            // Processed provider notifications: replays and out-of-order retries are recognised and ignored.
            SQLMigration(version: 17, name: "provider_events", sql: """
                CREATE TABLE provider_events (
                    provider \(t.key) NOT NULL,
                    event_id \(t.key) NOT NULL,
                    subject \(t.key) NOT NULL,
                    type TEXT NOT NULL,
                    event_time \(t.integer) NOT NULL,
                    received_at \(t.integer) NOT NULL,
                    PRIMARY KEY (provider, event_id)
                )\(t.keyedTable);
                CREATE INDEX provider_events_by_subject ON provider_events (provider, subject, event_time);
                CREATE INDEX provider_events_by_received ON provider_events (received_at);
                """),
            // `gatehouse audit --event … --ip …` without scanning the whole log.
            SQLMigration(version: 18, name: "audit_log_search", sql: """
                CREATE INDEX audit_log_by_event ON audit_log (event_type, occurred_at);
                CREATE INDEX audit_log_by_ip ON audit_log (ip, occurred_at);
                """),
            // The id an imported user had in the product (`gatehouse user import`); NULLs never collide.
            SQLMigration(version: 19, name: "users_external_id", sql: """
                ALTER TABLE users ADD COLUMN external_id \(t.key);
                CREATE UNIQUE INDEX users_by_external_id ON users (external_id);
                """),
            // Webhooks and back-channel logout tokens owed to the product; no reference to users (a deletion's
            // news outlives the account).
            SQLMigration(version: 20, name: "outbound_deliveries", sql: retryQueue("outbound_deliveries", [
                "id \(t.key) PRIMARY KEY NOT NULL",
                "kind \(t.key) NOT NULL",
                "destination TEXT NOT NULL",
                "event_type \(t.key) NOT NULL",
                "payload TEXT NOT NULL",
            ], t)),
            // The account page finds each client's oldest live grant by walking this index in creation
            // order (one seek per client, not one row per token); it replaces the (user_id, client_id) prefix.
            SQLMigration(version: 21, name: "refresh_tokens_by_user_created", sql: """
                CREATE INDEX refresh_tokens_by_user_created ON refresh_tokens (user_id, client_id, created_at);
                DROP INDEX refresh_tokens_by_user;
                """),
            // No query reads refresh tokens by client alone (every client filter also names the user, which
            // refresh_tokens_by_user_created serves), yet each rotation's INSERT dirtied a random page of this
            // index (a page write for the checkpointer, a WAL record) for nothing. Deleting a client (a rare
            // admin action) now finds its tokens by a scan for the ON DELETE CASCADE.
            SQLMigration(version: 22, name: "drop_refresh_tokens_by_client", sql: """
                DROP INDEX IF EXISTS refresh_tokens_by_client;
                """),
            // Which accounts an import may update without being asked (created by one), and whether an account's
            // verified flag came from an import file rather than a proof in Gatehouse. Existing accounts with an
            // product user id or an import audit entry were imported; their flag counts as the file's unless the audit
            // log shows Gatehouse proving the address afterwards.
            SQLMigration(version: 23, name: "users_import_origin", sql: """
                ALTER TABLE users ADD COLUMN imported \(t.boolean) NOT NULL DEFAULT \(t.falseDefault);
                ALTER TABLE users ADD COLUMN verified_by_import \(t.boolean) NOT NULL DEFAULT \(t.falseDefault);
                UPDATE users SET imported = TRUE WHERE external_id IS NOT NULL
                    OR id IN (SELECT user_id FROM audit_log WHERE event_type = 'account.imported' AND user_id IS NOT NULL);
                UPDATE users SET verified_by_import = email_verified WHERE imported = TRUE
                    AND id NOT IN (SELECT user_id FROM audit_log WHERE user_id IS NOT NULL
                                   AND event_type IN ('email.verified', 'account.claimed', 'password.reset'));
                """),
            // Access tokens issued before this instant (milliseconds) are void: a reset, "end all sessions" or
            // disable kills the tokens that have no refresh family to revoke as well.
            SQLMigration(version: 25, name: "users_tokens_not_before", sql: """
                ALTER TABLE users ADD COLUMN tokens_not_before \(t.integer);
                """),
            // The DPoP key a refresh family is bound to (RFC 9449 §5); every successor carries it on.
            SQLMigration(version: 27, name: "refresh_tokens_dpop_jkt", sql: """
                ALTER TABLE refresh_tokens ADD COLUMN dpop_jkt TEXT;
                """),
            // WebAuthn credentials (passkeys, security keys) and each user's opaque user handle: the handle
            // is random, never the email, and is what a discoverable credential reports back.
            SQLMigration(version: 29, name: "webauthn_credentials", sql: """
                CREATE TABLE webauthn_user_handles (
                    user_id \(t.key) PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    handle \(t.bytes) NOT NULL UNIQUE
                )\(t.keyedTable);
                CREATE TABLE webauthn_credentials (
                    credential_id \(t.bytes) PRIMARY KEY NOT NULL,
                    user_id \(t.key) NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    public_key \(t.bytes) NOT NULL,
                    algorithm \(t.integer) NOT NULL,
                    sign_count \(t.integer) NOT NULL,
                    backup_eligible \(t.boolean) NOT NULL,
                    backed_up \(t.boolean) NOT NULL,
                    user_verified \(t.boolean) NOT NULL,
                    aaguid \(t.bytes) NOT NULL,
                    attestation \(t.key) NOT NULL,
                    transports TEXT NOT NULL,
                    name TEXT NOT NULL,
                    created_at \(t.integer) NOT NULL,
                    last_used_at \(t.integer)
                )\(t.keyedTable);
                CREATE INDEX webauthn_credentials_by_user ON webauthn_credentials (user_id, created_at);
                """),
            // Outstanding WebAuthn challenges, by hash, single use; no reference to users (a sign-in's
            // challenge has no user yet), so they go by expiry.
            SQLMigration(version: 30, name: "webauthn_challenges", sql: """
                CREATE TABLE webauthn_challenges (
                    challenge_hash \(t.bytes) PRIMARY KEY NOT NULL,
                    ceremony \(t.key) NOT NULL,
                    user_id \(t.key),
                    flow_binding \(t.bytes) NOT NULL,
                    require_user_verification \(t.boolean) NOT NULL,
                    created_at \(t.integer) NOT NULL,
                    expires_at \(t.integer) NOT NULL
                )\(t.keyedTable);
                CREATE INDEX webauthn_challenges_by_expiry ON webauthn_challenges (expires_at);
                """),
            // One TOTP authenticator per user: the sealed secret and the last accepted time step (the
            // replay guard, moved forward by one conditional UPDATE).
            SQLMigration(version: 31, name: "totp_factors", sql: """
                CREATE TABLE totp_factors (
                    user_id \(t.key) PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    sealed_secret \(t.bytes) NOT NULL,
                    created_at \(t.integer) NOT NULL,
                    confirmed_at \(t.integer),
                    last_step \(t.integer)
                )\(t.keyedTable);
                """),
            // Recovery codes, by hash; a used one keeps its row (used_at) so the account page can count.
            SQLMigration(version: 32, name: "recovery_codes", sql: """
                CREATE TABLE recovery_codes (
                    code_hash \(t.bytes) PRIMARY KEY NOT NULL,
                    user_id \(t.key) NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    created_at \(t.integer) NOT NULL,
                    used_at \(t.integer)
                )\(t.keyedTable);
                CREATE INDEX recovery_codes_by_user ON recovery_codes (user_id);
                """),
            // The reader's own language and time zone for pages and mails; nil until they choose.
            SQLMigration(version: 33, name: "users_language_and_time_zone", sql: """
                ALTER TABLE users ADD COLUMN language TEXT;
                ALTER TABLE users ADD COLUMN time_zone TEXT;
                """),
            // What an authorization request bound its code to: `dpop_jkt` (RFC 9449 §10) and the `resource`
            // values (RFC 8707), which the code's token request — and the refreshes of its family — must stay within.
            SQLMigration(version: 38, name: "authorization_bindings", sql: """
                ALTER TABLE authorization_codes ADD COLUMN dpop_jkt TEXT;
                ALTER TABLE authorization_codes ADD COLUMN resources TEXT;
                ALTER TABLE refresh_tokens ADD COLUMN resources TEXT;
                """),
            // The user's choice to let a registered security key or passkey answer the password's second step
            // (with or without an authenticator app); the row alone is the flag, and it counts only while the
            // user has a WebAuthn credential.
            SQLMigration(version: 39, name: "webauthn_second_steps", sql: """
                CREATE TABLE webauthn_second_steps (
                    user_id \(t.key) PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    enabled_at \(t.integer) NOT NULL
                )\(t.keyedTable);
                """),
            // A refresh family in one row: a token that names its family and generation rotates by moving
            // `generation` on in place (one page, no index entry), the two times telling a retry in the grace
            // window from a replay. NULL for the opaque tokens issued before, one row per token as they were.
            SQLMigration(version: 40, name: "refresh_token_generations", sql: """
                ALTER TABLE refresh_tokens ADD COLUMN generation \(t.integer);
                ALTER TABLE refresh_tokens ADD COLUMN generation_at \(t.integer);
                ALTER TABLE refresh_tokens ADD COLUMN prior_generation_at \(t.integer);
                """),
            // The admin API's `q` (email contains) found through trigrams rather than by reading every email.
            SQLMigration(version: 41, name: "users_email_search", sql: t.emailSearchIndex),
        ]
    }

    /// A durable retry queue (provider token revocations, outbound deliveries): its own columns, then the attempt
    /// bookkeeping every queue keeps, and the index its claim walks by due time. The text is exactly what the
    /// two queues' migrations shipped with, so a database migrated by an older build is the same.
    static func retryQueue(_ name: String, _ columns: [String], _ t: SQLSchemaTypes) -> String {
        let lines = columns + ["attempts \(t.integer) NOT NULL DEFAULT 0", "next_attempt_at \(t.integer) NOT NULL", "last_error TEXT",
                               "created_at \(t.integer) NOT NULL"]
        return "CREATE TABLE \(name) (\n" + lines.map { "    " + $0 }.joined(separator: ",\n") + "\n)\(t.keyedTable);\n"
            + "CREATE INDEX \(name)_by_due ON \(name) (next_attempt_at);"
    }

    /// `CREATE TABLE IF NOT EXISTS gatehouse_schema_migrations …`: one row per applied version.
    public static func bookkeeping(_ t: SQLSchemaTypes) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(SQLMigrator.bookkeepingTable) (
            version \(t.integer) PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            applied_at \(t.integer) NOT NULL
        )
        """
    }
}
