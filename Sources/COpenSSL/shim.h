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
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/objects.h>

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

/* Key import helpers. OSSL_PARAM_BLD keeps the *pointers* to keys and strings until
   OSSL_PARAM_BLD_to_param, so building it from Swift (whose bridged C strings are temporaries)
   is unsafe; doing it in C keeps every pointer valid for the whole build. */
static inline EVP_PKEY *gh_pkey_fromdata(const char *type, int selection, OSSL_PARAM_BLD *bld) {
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = params ? EVP_PKEY_CTX_new_from_name(NULL, type, NULL) : NULL;
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1 || EVP_PKEY_fromdata(ctx, &pkey, selection, params) != 1) pkey = NULL;
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    return pkey;
}

/* P-256 key from an uncompressed point (0x04 || x || y) and, optionally, the private scalar. */
static inline EVP_PKEY *gh_p256_from_raw(const unsigned char *point, size_t point_len,
                                         const unsigned char *priv, size_t priv_len) {
    EVP_PKEY *pkey = NULL;
    BIGNUM *d = priv ? BN_bin2bn(priv, (int)priv_len, NULL) : NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    if (bld && (priv == NULL || d != NULL)
        && OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) == 1
        && OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, point_len) == 1
        && (d == NULL || OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, d) == 1))
        pkey = gh_pkey_fromdata("EC", d ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, bld);
    OSSL_PARAM_BLD_free(bld);
    BN_clear_free(d);
    return pkey;
}

/* RSA key from big-endian members: parts[0..1] = n, e (public); parts[2..7] = d, p, q, dp, dq, qi
   when count == 8 (private). */
static inline EVP_PKEY *gh_rsa_from_raw(const unsigned char *const *parts, const size_t *lengths, int count) {
    static const char *const names[8] = {
        OSSL_PKEY_PARAM_RSA_N, OSSL_PKEY_PARAM_RSA_E, OSSL_PKEY_PARAM_RSA_D,
        OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2,
        OSSL_PKEY_PARAM_RSA_EXPONENT1, OSSL_PKEY_PARAM_RSA_EXPONENT2, OSSL_PKEY_PARAM_RSA_COEFFICIENT1 };
    BIGNUM *bns[8] = { NULL };
    EVP_PKEY *pkey = NULL;
    int ok = (count == 2 || count == 8);
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    ok = ok && bld != NULL;
    for (int i = 0; ok && i < count; i++) {
        bns[i] = BN_bin2bn(parts[i], (int)lengths[i], NULL);
        ok = bns[i] != NULL && OSSL_PARAM_BLD_push_BN(bld, names[i], bns[i]) == 1;
    }
    if (ok) pkey = gh_pkey_fromdata("RSA", count == 8 ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, bld);
    OSSL_PARAM_BLD_free(bld);
    for (int i = 0; i < 8; i++) BN_clear_free(bns[i]);
    return pkey;
}
#endif
