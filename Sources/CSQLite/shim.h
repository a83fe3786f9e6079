#ifndef GATEHOUSE_CSQLITE_SHIM_H
#define GATEHOUSE_CSQLITE_SHIM_H
#include <sqlite3.h>
/* SQLITE_TRANSIENT is a cast of -1 to a function pointer: cast macros do not import into Swift. */
static inline int gh_sqlite3_bind_text_transient(sqlite3_stmt *s, int i, const char *z, int n) {
    return sqlite3_bind_text(s, i, z, n, SQLITE_TRANSIENT);
}
static inline int gh_sqlite3_bind_blob_transient(sqlite3_stmt *s, int i, const void *z, int n) {
    return sqlite3_bind_blob(s, i, z, n, SQLITE_TRANSIENT);
}
/* sqlite3_config is variadic, which does not import into Swift. Memory statistics off: with them on,
   every sqlite3_malloc takes one process-wide mutex, which the reader threads then contend for. Must
   run before SQLite initialises (the first open); later it returns SQLITE_MISUSE and changes nothing. */
static inline int gh_sqlite3_config_memstatus_off(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
/* The size a statement journal reaches in memory before it moves to a temporary file (SQLite's default
   is 64 KiB). Same rule as above: before the first open. */
static inline int gh_sqlite3_config_statement_journal_spill(int bytes) {
    return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes);
}
#endif
