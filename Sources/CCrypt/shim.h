// libxcrypt (Debian libcrypt-dev): crypt_r verifies imported bcrypt ($2a$/$2b$/$2y$) hashes.
#include <crypt.h>
