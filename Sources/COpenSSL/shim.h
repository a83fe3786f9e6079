#ifndef GATEHOUSE_COPENSSL_SHIM_H
#define GATEHOUSE_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/bn.h>
#include <openssl/param_build.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
/* Macros that Swift cannot import, wrapped as static inline functions. */
static inline EVP_PKEY *gh_EVP_EC_gen(const char *curve) { return EVP_EC_gen(curve); }
static inline void gh_OPENSSL_free(void *p) { OPENSSL_free(p); }
static inline int gh_BN_num_bytes(const BIGNUM *a) { return BN_num_bytes(a); }
#endif
