/// Migration 41's DDL: what lets the administrators' "email contains" search (`SQLUserSearchStore`) read
/// only the accounts that hold the query's trigrams instead of every email. Shipped text: never edited.
enum EmailSearchIndex {
    /// An FTS5 trigram table (SQLite ≥ 3.34), kept in step with `users` by triggers. It is contentless and
    /// numbered by `user_search_rows`, whose INTEGER PRIMARY KEY a VACUUM keeps (users' implicit rowid it
    /// may renumber, which would leave an external-content index pointing at other accounts). Deleting a
    /// contentless entry needs the text it was indexed with, which the triggers have in `old.email`.
    static let sqlite = """
        CREATE TABLE user_search_rows (
            search_row INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL UNIQUE
        ) STRICT;
        CREATE VIRTUAL TABLE users_email_trigrams USING fts5(email, content='', tokenize='trigram');
        INSERT INTO user_search_rows (user_id) SELECT id FROM users;
        INSERT INTO users_email_trigrams (rowid, email)
            SELECT user_search_rows.search_row, users.email FROM user_search_rows JOIN users ON users.id = user_search_rows.user_id;
        CREATE TRIGGER users_email_search_insert AFTER INSERT ON users BEGIN
            INSERT INTO user_search_rows (user_id) VALUES (new.id);
            INSERT INTO users_email_trigrams (rowid, email)
                SELECT search_row, new.email FROM user_search_rows WHERE user_id = new.id;
        END;
        CREATE TRIGGER users_email_search_delete AFTER DELETE ON users BEGIN
            INSERT INTO users_email_trigrams (users_email_trigrams, rowid, email)
                SELECT 'delete', search_row, old.email FROM user_search_rows WHERE user_id = old.id;
            DELETE FROM user_search_rows WHERE user_id = old.id;
        END;
        CREATE TRIGGER users_email_search_update AFTER UPDATE OF id, email ON users
            WHEN old.id IS NOT new.id OR old.email IS NOT new.email BEGIN
            INSERT INTO users_email_trigrams (users_email_trigrams, rowid, email)
                SELECT 'delete', search_row, old.email FROM user_search_rows WHERE user_id = old.id;
            UPDATE user_search_rows SET user_id = new.id WHERE user_id = old.id;
            INSERT INTO users_email_trigrams (rowid, email)
                SELECT search_row, new.email FROM user_search_rows WHERE user_id = new.id;
        END;
        """

    /// A `pg_trgm` GIN index on the email, which serves `LIKE '%…%'` itself. The extension is used wherever
    /// it is installed (its operator class named with its schema, which need not be on the search path);
    /// when it is not, the migration installs it, and when that is refused (the package's contrib files
    /// missing, no CREATE right on the database) it goes on without the index: the search still answers,
    /// by reading every email, and `CREATE INDEX users_by_email_trigrams …` can be run by hand later.
    static let postgres = """
        DO $$
        DECLARE
            trigram_schema name;
        BEGIN
            SELECT n.nspname INTO trigram_schema
                FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
            IF trigram_schema IS NULL THEN
                BEGIN
                    CREATE EXTENSION pg_trgm;
                EXCEPTION WHEN OTHERS THEN
                    RETURN;
                END;
                SELECT n.nspname INTO trigram_schema
                    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
            END IF;
            EXECUTE format('CREATE INDEX users_by_email_trigrams ON users USING gin (email %I.gin_trgm_ops)', trigram_schema);
        END
        $$;
        """
}
