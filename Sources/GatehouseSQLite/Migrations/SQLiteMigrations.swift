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
    ]
}
