// OpenSSL's libcrypto (Debian libssl-dev): HMAC-SHA256 and the system's CSPRNG. Only
// includes and two tiny helpers live here: building OSSL_PARAM arrays is C-only work.
#ifndef MISSIONTRACK_CCRYPTO_SHIM_H
#define MISSIONTRACK_CCRYPTO_SHIM_H
#include <stddef.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

// An HMAC-SHA256 context keyed with `key`, or NULL. Keyed once, so signing a message costs
// no algorithm lookup and no key schedule (OpenSSL 3's one-shot HMAC() does both each call).
static inline EVP_MAC_CTX *missiontrack_hmac_sha256_new(const unsigned char *key, size_t length) {
  EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
  if (mac == NULL) return NULL;
  EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
  EVP_MAC_free(mac);  // the context holds its own reference
  if (context == NULL) return NULL;
  char digest[] = "SHA256";
  OSSL_PARAM parameters[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_construct_end()};
  if (EVP_MAC_init(context, key, length, parameters) != 1) {
    EVP_MAC_CTX_free(context);
    return NULL;
  }
  return context;
}

// Writes the 32-byte code of `message` under `keyed` into `out`; returns 1, or 0 on failure.
// `keyed` is only read (a copy does the work), so threads may share it.
static inline int missiontrack_hmac_sha256_sign(
    const EVP_MAC_CTX *keyed, const unsigned char *message, size_t length, unsigned char *out) {
  EVP_MAC_CTX *context = EVP_MAC_CTX_dup(keyed);
  if (context == NULL) return 0;
  size_t written = 0;
  int done = EVP_MAC_update(context, message, length) == 1 &&
             EVP_MAC_final(context, out, &written, 32) == 1 && written == 32;
  EVP_MAC_CTX_free(context);
  return done;
}
#endif
