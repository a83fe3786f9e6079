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
    ]
}
