#include "ccrypto.h"

#include <cloader.h>
#include <limits.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <pthread.h>

/* The library's functions, filled once by load(); read only after pthread_once returned. */
static struct {
    __typeof__(BN_CTX_new) *ctx_new;
    __typeof__(BN_CTX_free) *ctx_free;
    __typeof__(BN_bin2bn) *bin2bn;
    __typeof__(BN_bn2binpad) *bn2binpad;
    __typeof__(BN_new) *bn_new;
    __typeof__(BN_clear_free) *clear_free;
    __typeof__(BN_set_flags) *set_flags;
    __typeof__(BN_mod_exp) *mod_exp;
    __typeof__(EVP_CIPHER_CTX_new) *cipher_new;
    __typeof__(EVP_CIPHER_CTX_free) *cipher_free;
    __typeof__(EVP_aes_128_cbc) *aes_128_cbc;
    __typeof__(EVP_CipherInit_ex) *cipher_init;
    __typeof__(EVP_CipherUpdate) *cipher_update;
    __typeof__(EVP_CipherFinal_ex) *cipher_final;
} ossl;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char failure[512];
static const char *failed = NULL;

static const char *const names[] = {"libcrypto.so.3"};

static const struct cloader_library library = {
    .name = "libcrypto",
    .sonames = names,
    .soname_count = sizeof names / sizeof names[0],
    .when_missing = "install it (Debian: apt install libssl3)",
    .when_incomplete = ": install OpenSSL 3's (Debian: apt install libssl3)",
};

static const struct cloader_symbol symbols[] = {
    {"BN_CTX_new", (void **)&ossl.ctx_new},
    {"BN_CTX_free", (void **)&ossl.ctx_free},
    {"BN_bin2bn", (void **)&ossl.bin2bn},
    {"BN_bn2binpad", (void **)&ossl.bn2binpad},
    {"BN_new", (void **)&ossl.bn_new},
    {"BN_clear_free", (void **)&ossl.clear_free},
    {"BN_set_flags", (void **)&ossl.set_flags},
    {"BN_mod_exp", (void **)&ossl.mod_exp},
    {"EVP_CIPHER_CTX_new", (void **)&ossl.cipher_new},
    {"EVP_CIPHER_CTX_free", (void **)&ossl.cipher_free},
    {"EVP_aes_128_cbc", (void **)&ossl.aes_128_cbc},
    {"EVP_CipherInit_ex", (void **)&ossl.cipher_init},
    {"EVP_CipherUpdate", (void **)&ossl.cipher_update},
    {"EVP_CipherFinal_ex", (void **)&ossl.cipher_final},
};

static void load(void) {
    if (!cloader_load(&library, symbols, sizeof symbols / sizeof symbols[0], failure, sizeof failure)) failed = failure;
}

const char *ccrypto_load_failure(void) {
    pthread_once(&loaded, load);
    return failed;
}

int ccrypto_mod_exp(uint8_t *result, size_t result_length, const uint8_t *base, size_t base_length,
                    const uint8_t *exponent, size_t exponent_length, const uint8_t *modulus, size_t modulus_length) {
    if (result_length > INT_MAX || base_length > INT_MAX || exponent_length > INT_MAX || modulus_length > INT_MAX) return 0;
    BN_CTX *context = ossl.ctx_new();
    BIGNUM *b = ossl.bin2bn(base, (int)base_length, NULL);
    BIGNUM *e = ossl.bin2bn(exponent, (int)exponent_length, NULL);
    BIGNUM *m = ossl.bin2bn(modulus, (int)modulus_length, NULL);
    BIGNUM *r = ossl.bn_new();
    int done = 0;
    if (context && b && e && m && r) {
        /* BN_mod_exp takes the constant-time path for an exponent flagged so. */
        ossl.set_flags(e, BN_FLG_CONSTTIME);
        done = ossl.mod_exp(r, b, e, m, context) == 1 && ossl.bn2binpad(r, result, (int)result_length) == (int)result_length;
    }
    /* BN_clear_free and BN_CTX_free (which clears what it pooled) of NULL do nothing. */
    ossl.clear_free(r);
    ossl.clear_free(m);
    ossl.clear_free(e);
    ossl.clear_free(b);
    ossl.ctx_free(context);
    return done;
}

int ccrypto_aes128_cbc(int encrypt, const uint8_t *key, const uint8_t *iv, const uint8_t *input, size_t input_length,
                       uint8_t *output, size_t *output_length) {
    *output_length = 0;
    if (input_length > INT_MAX - 32) return 0;
    EVP_CIPHER_CTX *context = ossl.cipher_new();
    if (!context) return 0;
    int written = 0, last = 0;
    /* PKCS#7 padding is EVP's default. */
    int done = ossl.cipher_init(context, ossl.aes_128_cbc(), NULL, key, iv, encrypt ? 1 : 0) == 1
        && ossl.cipher_update(context, output, &written, input, (int)input_length) == 1
        && ossl.cipher_final(context, output + written, &last) == 1;
    /* Frees the key schedule cleansed. */
    ossl.cipher_free(context);
    if (done) *output_length = (size_t)written + (size_t)last;
    return done;
}
