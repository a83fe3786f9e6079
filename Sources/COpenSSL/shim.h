#ifndef GATEHOUSE_COPENSSL_SHIM_H
#define GATEHOUSE_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/rsa.h>
#include <openssl/bn.h>
#include <openssl/param_build.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

/* Macros that Swift cannot import, wrapped as static inline functions. */

/* EVP_EC_gen / EVP_RSA_gen expand to the C-variadic EVP_PKEY_Q_keygen. */
static inline EVP_PKEY *gh_EVP_EC_gen(const char *curve) { return EVP_EC_gen(curve); }
static inline EVP_PKEY *gh_EVP_RSA_gen(unsigned int bits) { return EVP_RSA_gen(bits); }
static inline EVP_PKEY *gh_EVP_ED25519_gen(void) { return EVP_PKEY_Q_keygen(NULL, NULL, "ED25519"); }
/* OPENSSL_free expands to CRYPTO_free(p, OPENSSL_FILE, OPENSSL_LINE). */
static inline void gh_OPENSSL_free(void *p) { OPENSSL_free(p); }
/* Function-like macro. */
static inline int gh_BN_num_bytes(const BIGNUM *a) { return BN_num_bytes(a); }
/* Composite selection macros (OR of OSSL_KEYMGMT_SELECT_* bits) do not import. */
static inline int gh_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int gh_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }
#endif
