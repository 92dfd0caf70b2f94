// libcurl (Debian libcurl4-openssl-dev). Only includes and tiny helpers live here:
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot
// call, so each argument type gets one typed helper.
#ifndef MISSIONTRACK_CCURL_SHIM_H
#define MISSIONTRACK_CCURL_SHIM_H
#include <stddef.h>
#include <time.h>
#include <curl/curl.h>

// The body and header callbacks (CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION).
typedef size_t (*missiontrack_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode missiontrack_curl_set_long(CURL *easy, CURLoption option, long value) {
  return curl_easy_setopt(easy, option, value);
}

static inline CURLcode missiontrack_curl_set_string(CURL *easy, CURLoption option, const char *value) {
  return curl_easy_setopt(easy, option, value);
}

static inline CURLcode missiontrack_curl_set_pointer(CURL *easy, CURLoption option, const void *value) {
  return curl_easy_setopt(easy, option, value);
}

static inline CURLcode missiontrack_curl_set_callback(
    CURL *easy, CURLoption option, missiontrack_curl_data_callback callback) {
  return curl_easy_setopt(easy, option, callback);
}

static inline CURLcode missiontrack_curl_set_size(CURL *easy, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(easy, option, value);
}

// curl_global_init(CURL_GLOBAL_DEFAULT): the flag is a macro expression Swift cannot import.
static inline CURLcode missiontrack_curl_global_init(void) {
  return curl_global_init(CURL_GLOBAL_DEFAULT);
}

static inline long missiontrack_curl_response_code(CURL *easy) {
  long code = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
  return code;
}

// The system's errno of the transfer's failed connect (CURLINFO_OS_ERRNO), 0 when none.
static inline long missiontrack_curl_os_errno(CURL *easy) {
  long value = 0;
  curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &value);
  return value;
}

static inline CURLMcode missiontrack_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) {
  return curl_multi_setopt(multi, option, value);
}
#endif
