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
    ]
}
