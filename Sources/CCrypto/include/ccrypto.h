#ifndef CCRYPTO_H
#define CCRYPTO_H
/*
 * The two primitives of the Secret Service's encrypted session that libsodium lacks, a
 * 1024-bit modular exponentiation (Diffie-Hellman) and AES-128-CBC, from libcrypto (OpenSSL 3),
 * loaded with dlopen by the first session that needs them instead of linked: no other command
 * pays for the library. Only bytes cross this header; OpenSSL's types stay in ccrypto.c.
 */
#include <stddef.h>
#include <stdint.h>

/* Loads libcrypto once, on the first call; NULL when it is there, else why not, in a sentence.
   Every other function here may be called only after this returned NULL. */
const char *ccrypto_load_failure(void);

/* result = base ^ exponent mod modulus, each big-endian; result is written as exactly
   result_length bytes, zeros first (result_length at least the modulus's length). The
   exponent is treated as secret: constant-time exponentiation, and every intermediate number
   cleared before it is freed. 1 on success, 0 on failure. */
int ccrypto_mod_exp(uint8_t *result, size_t result_length, const uint8_t *base, size_t base_length,
                    const uint8_t *exponent, size_t exponent_length, const uint8_t *modulus, size_t modulus_length);

/* AES-128-CBC with PKCS#7 padding of input (a 16-byte key and IV) into output, which holds at
   least input_length + 16 bytes; *output_length is set to what was written. encrypt is 1 to
   encrypt, 0 to decrypt. 1 on success, 0 on failure (on decryption: a length that is no
   multiple of 16, or padding that is not PKCS#7's, which a wrong key gives). */
int ccrypto_aes128_cbc(int encrypt, const uint8_t *key, const uint8_t *iv, const uint8_t *input, size_t input_length,
                       uint8_t *output, size_t *output_length);
#endif
