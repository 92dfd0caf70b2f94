// OpenSSL's libcrypto (Debian libssl-dev): HMAC-SHA256 and the system's CSPRNG. Only
// includes live here; the Delivery module calls them from one file each.
#ifndef MISSIONTRACK_CCRYPTO_SHIM_H
#define MISSIONTRACK_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#endif
