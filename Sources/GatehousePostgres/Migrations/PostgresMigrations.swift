/// Every PostgreSQL migration, in order. Append only: a shipped migration is never edited.
///
/// The same tables, columns and meaning as `SQLiteMigrations`: times are BIGINT milliseconds
/// since the epoch; secrets are stored only as BYTEA hashes; ids are TEXT chosen by the caller.
/// Ids and emails use the "C" collation so uniqueness and ordering compare bytes, as SQLite
/// does, whatever the database's default collation.
enum PostgresMigrations {
    static let all: [PostgresMigration] = [
        PostgresMigration(version: 1, name: "signing_keys", sql: """
            CREATE TABLE signing_keys (
                kid TEXT COLLATE "C" PRIMARY KEY,
                algorithm TEXT NOT NULL,
                public_jwk TEXT NOT NULL,
                encrypted_private_key BYTEA NOT NULL,
                created_at BIGINT NOT NULL,
                activates_at BIGINT NOT NULL,
                retired_at BIGINT,
                publish_until BIGINT
            );
            """),
        PostgresMigration(version: 2, name: "users", sql: """
            CREATE TABLE users (
                id TEXT COLLATE "C" PRIMARY KEY,
                email TEXT COLLATE "C" NOT NULL UNIQUE,
                display_name TEXT,
                password_hash TEXT,
                email_verified BOOLEAN NOT NULL DEFAULT FALSE,
                disabled BOOLEAN NOT NULL DEFAULT FALSE,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            );
            CREATE INDEX users_by_creation ON users (created_at, id);
            """),
        PostgresMigration(version: 3, name: "sessions", sql: """
            CREATE TABLE sessions (
                id_hash BYTEA PRIMARY KEY,
                user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                last_seen_at BIGINT NOT NULL,
                idle_expires_at BIGINT NOT NULL,
                absolute_expires_at BIGINT NOT NULL,
                ip TEXT,
                user_agent TEXT,
                auth_methods TEXT NOT NULL
            );
            CREATE INDEX sessions_by_user ON sessions (user_id);
            CREATE INDEX sessions_by_idle_expiry ON sessions (idle_expires_at);
            CREATE INDEX sessions_by_absolute_expiry ON sessions (absolute_expires_at);
            """),
        PostgresMigration(version: 4, name: "one_time_tokens", sql: """
            CREATE TABLE one_time_tokens (
                hash BYTEA PRIMARY KEY,
                purpose TEXT NOT NULL,
                user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT,
                payload TEXT NOT NULL
            );
            CREATE INDEX one_time_tokens_by_user ON one_time_tokens (user_id, purpose);
            CREATE INDEX one_time_tokens_by_expiry ON one_time_tokens (expires_at);
            """),
        PostgresMigration(version: 5, name: "rate_limits", sql: """
            CREATE TABLE rate_limits (
                bucket TEXT COLLATE "C" NOT NULL,
                limit_key TEXT COLLATE "C" NOT NULL,
                window_start BIGINT NOT NULL,
                window_end BIGINT NOT NULL,
                hits BIGINT NOT NULL,
                PRIMARY KEY (bucket, limit_key)
            );
            CREATE INDEX rate_limits_by_window_end ON rate_limits (window_end);
            """),
        PostgresMigration(version: 6, name: "audit_log", sql: """
            CREATE TABLE audit_log (
                sequence BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                occurred_at BIGINT NOT NULL,
                user_id TEXT COLLATE "C",
                event_type TEXT NOT NULL,
                ip TEXT,
                user_agent TEXT,
                details TEXT NOT NULL
            );
            CREATE INDEX audit_log_by_user ON audit_log (user_id, occurred_at);
            CREATE INDEX audit_log_by_time ON audit_log (occurred_at);
            """),
        PostgresMigration(version: 7, name: "flow_states", sql: """
            CREATE TABLE flow_states (
                state_hash BYTEA PRIMARY KEY,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                payload TEXT NOT NULL
            );
            CREATE INDEX flow_states_by_expiry ON flow_states (expires_at);
            """),
        // OAuth: string lists are JSON arrays in TEXT columns, byte-identical to SQLite's.
        PostgresMigration(version: 8, name: "oauth_clients", sql: """
            CREATE TABLE oauth_clients (
                id TEXT COLLATE "C" PRIMARY KEY,
                name TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('public', 'confidential')),
                secret_hash TEXT,
                redirect_uris TEXT NOT NULL,
                post_logout_redirect_uris TEXT NOT NULL,
                grant_types TEXT NOT NULL,
                scopes TEXT NOT NULL,
                first_party BOOLEAN NOT NULL DEFAULT FALSE,
                allow_localhost BOOLEAN NOT NULL DEFAULT FALSE,
                web_origins TEXT NOT NULL,
                metadata TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            );
            """),
        PostgresMigration(version: 9, name: "authorization_codes", sql: """
            CREATE TABLE authorization_codes (
                hash BYTEA PRIMARY KEY,
                client_id TEXT COLLATE "C" NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
                user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                redirect_uri TEXT NOT NULL,
                scope TEXT NOT NULL,
                nonce TEXT,
                code_challenge TEXT,
                auth_time BIGINT NOT NULL,
                auth_methods TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT,
                issued_family_id TEXT COLLATE "C"
            );
            CREATE INDEX authorization_codes_by_client ON authorization_codes (client_id);
            CREATE INDEX authorization_codes_by_user ON authorization_codes (user_id);
            CREATE INDEX authorization_codes_by_expiry ON authorization_codes (expires_at);
            """),
        PostgresMigration(version: 10, name: "refresh_tokens", sql: """
            CREATE TABLE refresh_tokens (
                hash BYTEA PRIMARY KEY,
                family_id TEXT COLLATE "C" NOT NULL,
                client_id TEXT COLLATE "C" NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
                user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                scope TEXT NOT NULL,
                auth_time BIGINT NOT NULL,
                auth_methods TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                rotated_at BIGINT,
                revoked_at BIGINT
            );
            CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);
            CREATE INDEX refresh_tokens_by_user ON refresh_tokens (user_id, client_id);
            CREATE INDEX refresh_tokens_by_client ON refresh_tokens (client_id);
            CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at);
            """),
        PostgresMigration(version: 11, name: "revoked_access_tokens", sql: """
            CREATE TABLE revoked_access_tokens (
                jti TEXT COLLATE "C" PRIMARY KEY,
                expires_at BIGINT NOT NULL
            );
            CREATE INDEX revoked_access_tokens_by_expiry ON revoked_access_tokens (expires_at);
            """),
        PostgresMigration(version: 12, name: "consents", sql: """
            CREATE TABLE consents (
                user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                client_id TEXT COLLATE "C" NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
                scopes TEXT NOT NULL,
                granted_at BIGINT NOT NULL,
                PRIMARY KEY (user_id, client_id)
            );
            CREATE INDEX consents_by_client ON consents (client_id);
            """),
        PostgresMigration(version: 13, name: "external_identities", sql: """
            CREATE TABLE external_identities (
                provider TEXT COLLATE "C" NOT NULL,
                subject TEXT COLLATE "C" NOT NULL,
                user_id TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                email TEXT,
                email_verified BOOLEAN NOT NULL DEFAULT FALSE,
                is_private_relay BOOLEAN NOT NULL DEFAULT FALSE,
                display_name TEXT,
                sealed_refresh_token BYTEA,
                created_at BIGINT NOT NULL,
                last_used_at BIGINT NOT NULL,
                PRIMARY KEY (provider, subject)
            );
            CREATE INDEX external_identities_by_user ON external_identities (user_id, provider, subject);
            """),
        // No reference to users: a revocation must outlive the deleted account it came from.
        PostgresMigration(version: 14, name: "pending_revocations", sql: """
            CREATE TABLE pending_revocations (
                id TEXT COLLATE "C" PRIMARY KEY,
                provider TEXT COLLATE "C" NOT NULL,
                sealed_token BYTEA NOT NULL,
                token_type_hint TEXT NOT NULL,
                attempts BIGINT NOT NULL DEFAULT 0,
                next_attempt_at BIGINT NOT NULL,
                last_error TEXT,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX pending_revocations_by_due ON pending_revocations (next_attempt_at);
            """),
        // One row per lease name; the upsert in PostgresLeaseStore takes or renews it.
        PostgresMigration(version: 15, name: "leases", sql: """
            CREATE TABLE leases (
                name TEXT COLLATE "C" PRIMARY KEY,
                holder TEXT COLLATE "C" NOT NULL,
                expires_at BIGINT NOT NULL
            );
            """),
        // The client a provider token was issued to (Apple revokes only when asked by that client).
        PostgresMigration(version: 16, name: "provider_token_client_ids", sql: """
            ALTER TABLE external_identities ADD COLUMN token_client_id TEXT;
            ALTER TABLE pending_revocations ADD COLUMN client_id TEXT;
            """),
        // Processed provider notifications: replays and out-of-order retries are recognised and ignored.
        PostgresMigration(version: 17, name: "provider_events", sql: """
            CREATE TABLE provider_events (
                provider TEXT COLLATE "C" NOT NULL,
                event_id TEXT COLLATE "C" NOT NULL,
                subject TEXT COLLATE "C" NOT NULL,
                type TEXT NOT NULL,
                event_time BIGINT NOT NULL,
                received_at BIGINT NOT NULL,
                PRIMARY KEY (provider, event_id)
            );
            CREATE INDEX provider_events_by_subject ON provider_events (provider, subject, event_time);
            CREATE INDEX provider_events_by_received ON provider_events (received_at);
            """),
        // `gatehouse audit --event … --ip …` without scanning the whole log.
        PostgresMigration(version: 18, name: "audit_log_search", sql: """
            CREATE INDEX audit_log_by_event ON audit_log (event_type, occurred_at);
            CREATE INDEX audit_log_by_ip ON audit_log (ip, occurred_at);
            """),
        // The id an imported user had in the product (`gatehouse user import`); NULLs never collide.
        PostgresMigration(version: 19, name: "users_external_id", sql: """
            ALTER TABLE users ADD COLUMN external_id TEXT COLLATE "C";
            CREATE UNIQUE INDEX users_by_external_id ON users (external_id);
            """),
        // Webhooks and back-channel logout tokens owed to the product; no reference to users (a deletion's
        // news outlives the account).
        PostgresMigration(version: 20, name: "outbound_deliveries", sql: """
            CREATE TABLE outbound_deliveries (
                id TEXT COLLATE "C" PRIMARY KEY,
                kind TEXT COLLATE "C" NOT NULL,
                destination TEXT NOT NULL,
                event_type TEXT COLLATE "C" NOT NULL,
                payload TEXT NOT NULL,
                attempts BIGINT NOT NULL DEFAULT 0,
                next_attempt_at BIGINT NOT NULL,
                last_error TEXT,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX outbound_deliveries_by_due ON outbound_deliveries (next_attempt_at);
            """),
        // The account page finds each client's oldest live grant by walking this index in creation
        // order (one seek per client, not one row per token); it replaces the (user_id, client_id) prefix.
        PostgresMigration(version: 21, name: "refresh_tokens_by_user_created", sql: """
            CREATE INDEX refresh_tokens_by_user_created ON refresh_tokens (user_id, client_id, created_at);
            DROP INDEX refresh_tokens_by_user;
            """),
        // No query reads refresh tokens by client alone (every client filter also names the user, which
        // refresh_tokens_by_user_created serves), yet each rotation's INSERT dirtied a random page of this
        // index and a WAL record: one page write per refresh for nothing. Deleting a
        // client (a rare admin action) now finds its tokens by a scan for the ON DELETE CASCADE.
        PostgresMigration(version: 22, name: "drop_refresh_tokens_by_client", sql: """
            DROP INDEX IF EXISTS refresh_tokens_by_client;
            """),
        // See the SQLite list: import origin of each account (the same backfill).
        PostgresMigration(version: 23, name: "users_import_origin", sql: """
            ALTER TABLE users ADD COLUMN imported BOOLEAN NOT NULL DEFAULT FALSE;
            ALTER TABLE users ADD COLUMN verified_by_import BOOLEAN NOT NULL DEFAULT FALSE;
            UPDATE users SET imported = TRUE WHERE external_id IS NOT NULL
                OR id IN (SELECT user_id FROM audit_log WHERE event_type = 'account.imported' AND user_id IS NOT NULL);
            UPDATE users SET verified_by_import = email_verified WHERE imported
                AND id NOT IN (SELECT user_id FROM audit_log WHERE user_id IS NOT NULL
                               AND event_type IN ('email.verified', 'account.claimed', 'password.reset'));
            """),
    ]
}
