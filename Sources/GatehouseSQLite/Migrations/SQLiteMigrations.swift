/// Every SQLite migration, in order. Append only: a shipped migration is never edited.
///
/// Conventions: times are INTEGER milliseconds since the epoch; secrets are stored only as
/// BLOB hashes; ids are TEXT chosen by the caller.
enum SQLiteMigrations {
    static let all: [SQLiteMigration] = [
        SQLiteMigration(version: 1, name: "signing_keys", sql: """
            CREATE TABLE signing_keys (
                kid TEXT PRIMARY KEY NOT NULL,
                algorithm TEXT NOT NULL,
                public_jwk TEXT NOT NULL,
                encrypted_private_key BLOB NOT NULL,
                created_at INTEGER NOT NULL,
                activates_at INTEGER NOT NULL,
                retired_at INTEGER,
                publish_until INTEGER
            ) STRICT;
            """),
        SQLiteMigration(version: 2, name: "users", sql: """
            CREATE TABLE users (
                id TEXT PRIMARY KEY NOT NULL,
                email TEXT NOT NULL UNIQUE,
                display_name TEXT,
                password_hash TEXT,
                email_verified INTEGER NOT NULL DEFAULT 0,
                disabled INTEGER NOT NULL DEFAULT 0,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX users_by_creation ON users (created_at, id);
            """),
        SQLiteMigration(version: 3, name: "sessions", sql: """
            CREATE TABLE sessions (
                id_hash BLOB PRIMARY KEY NOT NULL,
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                created_at INTEGER NOT NULL,
                last_seen_at INTEGER NOT NULL,
                idle_expires_at INTEGER NOT NULL,
                absolute_expires_at INTEGER NOT NULL,
                ip TEXT,
                user_agent TEXT,
                auth_methods TEXT NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX sessions_by_user ON sessions (user_id);
            CREATE INDEX sessions_by_idle_expiry ON sessions (idle_expires_at);
            CREATE INDEX sessions_by_absolute_expiry ON sessions (absolute_expires_at);
            """),
        SQLiteMigration(version: 4, name: "one_time_tokens", sql: """
            CREATE TABLE one_time_tokens (
                hash BLOB PRIMARY KEY NOT NULL,
                purpose TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                used_at INTEGER,
                payload TEXT NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX one_time_tokens_by_user ON one_time_tokens (user_id, purpose);
            CREATE INDEX one_time_tokens_by_expiry ON one_time_tokens (expires_at);
            """),
        SQLiteMigration(version: 5, name: "rate_limits", sql: """
            CREATE TABLE rate_limits (
                bucket TEXT NOT NULL,
                limit_key TEXT NOT NULL,
                window_start INTEGER NOT NULL,
                window_end INTEGER NOT NULL,
                hits INTEGER NOT NULL,
                PRIMARY KEY (bucket, limit_key)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX rate_limits_by_window_end ON rate_limits (window_end);
            """),
        SQLiteMigration(version: 6, name: "audit_log", sql: """
            CREATE TABLE audit_log (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                occurred_at INTEGER NOT NULL,
                user_id TEXT,
                event_type TEXT NOT NULL,
                ip TEXT,
                user_agent TEXT,
                details TEXT NOT NULL
            ) STRICT;
            CREATE INDEX audit_log_by_user ON audit_log (user_id, occurred_at);
            CREATE INDEX audit_log_by_time ON audit_log (occurred_at);
            """),
        SQLiteMigration(version: 7, name: "flow_states", sql: """
            CREATE TABLE flow_states (
                state_hash BLOB PRIMARY KEY NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                payload TEXT NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX flow_states_by_expiry ON flow_states (expires_at);
            """),
        // OAuth: string lists are JSON arrays in TEXT columns, byte-identical to PostgreSQL's.
        SQLiteMigration(version: 8, name: "oauth_clients", sql: """
            CREATE TABLE oauth_clients (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('public', 'confidential')),
                secret_hash TEXT,
                redirect_uris TEXT NOT NULL,
                post_logout_redirect_uris TEXT NOT NULL,
                grant_types TEXT NOT NULL,
                scopes TEXT NOT NULL,
                first_party INTEGER NOT NULL DEFAULT 0,
                allow_localhost INTEGER NOT NULL DEFAULT 0,
                web_origins TEXT NOT NULL,
                metadata TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            ) STRICT;
            """),
        SQLiteMigration(version: 9, name: "authorization_codes", sql: """
            CREATE TABLE authorization_codes (
                hash BLOB PRIMARY KEY NOT NULL,
                client_id TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                redirect_uri TEXT NOT NULL,
                scope TEXT NOT NULL,
                nonce TEXT,
                code_challenge TEXT,
                auth_time INTEGER NOT NULL,
                auth_methods TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                used_at INTEGER,
                issued_family_id TEXT
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX authorization_codes_by_client ON authorization_codes (client_id);
            CREATE INDEX authorization_codes_by_user ON authorization_codes (user_id);
            CREATE INDEX authorization_codes_by_expiry ON authorization_codes (expires_at);
            """),
        SQLiteMigration(version: 10, name: "refresh_tokens", sql: """
            CREATE TABLE refresh_tokens (
                hash BLOB PRIMARY KEY NOT NULL,
                family_id TEXT NOT NULL,
                client_id TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                scope TEXT NOT NULL,
                auth_time INTEGER NOT NULL,
                auth_methods TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                rotated_at INTEGER,
                revoked_at INTEGER
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);
            CREATE INDEX refresh_tokens_by_user ON refresh_tokens (user_id, client_id);
            CREATE INDEX refresh_tokens_by_client ON refresh_tokens (client_id);
            CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at);
            """),
        SQLiteMigration(version: 11, name: "revoked_access_tokens", sql: """
            CREATE TABLE revoked_access_tokens (
                jti TEXT PRIMARY KEY NOT NULL,
                expires_at INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX revoked_access_tokens_by_expiry ON revoked_access_tokens (expires_at);
            """),
        SQLiteMigration(version: 12, name: "consents", sql: """
            CREATE TABLE consents (
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                client_id TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
                scopes TEXT NOT NULL,
                granted_at INTEGER NOT NULL,
                PRIMARY KEY (user_id, client_id)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX consents_by_client ON consents (client_id);
            """),
        SQLiteMigration(version: 13, name: "external_identities", sql: """
            CREATE TABLE external_identities (
                provider TEXT NOT NULL,
                subject TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                email TEXT,
                email_verified INTEGER NOT NULL DEFAULT 0,
                is_private_relay INTEGER NOT NULL DEFAULT 0,
                display_name TEXT,
                sealed_refresh_token BLOB,
                created_at INTEGER NOT NULL,
                last_used_at INTEGER NOT NULL,
                PRIMARY KEY (provider, subject)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX external_identities_by_user ON external_identities (user_id, provider, subject);
            """),
        // No reference to users: a revocation must outlive the deleted account it came from.
        SQLiteMigration(version: 14, name: "pending_revocations", sql: """
            CREATE TABLE pending_revocations (
                id TEXT PRIMARY KEY NOT NULL,
                provider TEXT NOT NULL,
                sealed_token BLOB NOT NULL,
                token_type_hint TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at INTEGER NOT NULL,
                last_error TEXT,
                created_at INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX pending_revocations_by_due ON pending_revocations (next_attempt_at);
            """),
        // One row per lease name; the upsert in SQLiteLeaseStore takes or renews it.
        SQLiteMigration(version: 15, name: "leases", sql: """
            CREATE TABLE leases (
                name TEXT PRIMARY KEY NOT NULL,
                holder TEXT NOT NULL,
                expires_at INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            """),
        // The client a provider token was issued to (Apple revokes only when asked by that client).
        SQLiteMigration(version: 16, name: "provider_token_client_ids", sql: """
            ALTER TABLE external_identities ADD COLUMN token_client_id TEXT;
            ALTER TABLE pending_revocations ADD COLUMN client_id TEXT;
            """),
        // Processed provider notifications: replays and out-of-order retries are recognised and ignored.
        SQLiteMigration(version: 17, name: "provider_events", sql: """
            CREATE TABLE provider_events (
                provider TEXT NOT NULL,
                event_id TEXT NOT NULL,
                subject TEXT NOT NULL,
                type TEXT NOT NULL,
                event_time INTEGER NOT NULL,
                received_at INTEGER NOT NULL,
                PRIMARY KEY (provider, event_id)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX provider_events_by_subject ON provider_events (provider, subject, event_time);
            CREATE INDEX provider_events_by_received ON provider_events (received_at);
            """),
        // `gatehouse audit --event … --ip …` without scanning the whole log.
        SQLiteMigration(version: 18, name: "audit_log_search", sql: """
            CREATE INDEX audit_log_by_event ON audit_log (event_type, occurred_at);
            CREATE INDEX audit_log_by_ip ON audit_log (ip, occurred_at);
            """),
        // The id an imported user had in the product (`gatehouse user import`); NULLs never collide.
        SQLiteMigration(version: 19, name: "users_external_id", sql: """
            ALTER TABLE users ADD COLUMN external_id TEXT;
            CREATE UNIQUE INDEX users_by_external_id ON users (external_id);
            """),
        // Webhooks and back-channel logout tokens owed to the product; no reference to users (a deletion's
        // news outlives the account).
        SQLiteMigration(version: 20, name: "outbound_deliveries", sql: """
            CREATE TABLE outbound_deliveries (
                id TEXT PRIMARY KEY NOT NULL,
                kind TEXT NOT NULL,
                destination TEXT NOT NULL,
                event_type TEXT NOT NULL,
                payload TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at INTEGER NOT NULL,
                last_error TEXT,
                created_at INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX outbound_deliveries_by_due ON outbound_deliveries (next_attempt_at);
            """),
        // The account page finds each client's oldest live grant by walking this index in creation
        // order (one seek per client, not one row per token); it replaces the (user_id, client_id) prefix.
        SQLiteMigration(version: 21, name: "refresh_tokens_by_user_created", sql: """
            CREATE INDEX refresh_tokens_by_user_created ON refresh_tokens (user_id, client_id, created_at);
            DROP INDEX refresh_tokens_by_user;
            """),
        // No query reads refresh tokens by client alone (every client filter also names the user, which
        // refresh_tokens_by_user_created serves), yet each rotation's INSERT dirtied a random page of this
        // index and the checkpointer wrote it back: one page write per refresh for nothing. Deleting a
        // client (a rare admin action) now finds its tokens by a scan for the ON DELETE CASCADE.
        SQLiteMigration(version: 22, name: "drop_refresh_tokens_by_client", sql: """
            DROP INDEX refresh_tokens_by_client;
            """),
        // Which accounts an import may update without being asked (created by one), and whether an account's
        // verified flag came from an import file rather than a proof in Gatehouse. Existing accounts with an
        // external id or an import audit entry were imported; their flag counts as the file's unless the audit
        // log shows Gatehouse proving the address afterwards.
        SQLiteMigration(version: 23, name: "users_import_origin", sql: """
            ALTER TABLE users ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE users ADD COLUMN verified_by_import INTEGER NOT NULL DEFAULT 0;
            UPDATE users SET imported = 1 WHERE external_id IS NOT NULL
                OR id IN (SELECT user_id FROM audit_log WHERE event_type = 'account.imported' AND user_id IS NOT NULL);
            UPDATE users SET verified_by_import = email_verified WHERE imported = 1
                AND id NOT IN (SELECT user_id FROM audit_log WHERE user_id IS NOT NULL
                               AND event_type IN ('email.verified', 'account.claimed', 'password.reset'));
            """),
    ]
}
