// libpq, PostgreSQL's C client library (Debian: libpq-dev; pkg-config adds -I/usr/include/postgresql).
#include <libpq-fe.h>

// Character-literal macros such as PG_DIAG_SQLSTATE ('C') are not imported into Swift.
static inline int gh_pq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
