#ifndef GATEHOUSE_CCURL_SHIM_H
#define GATEHOUSE_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are C-variadic, which Swift does not import:
   one typed, non-variadic wrapper per argument kind. */

static inline CURLcode gh_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/* libcurl copies string options (except CURLOPT_POSTFIELDS), so a temporary C string is fine. */
static inline CURLcode gh_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/* Data pointers: CURLOPT_READDATA, CURLOPT_MAIL_RCPT (a curl_slist *), CURLOPT_ERRORBUFFER, ... */
static inline CURLcode gh_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/* The shape of CURLOPT_READFUNCTION, CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION. */
typedef size_t (*gh_curl_io_callback)(char *buffer, size_t size, size_t count, void *userdata);

static inline CURLcode gh_curl_easy_setopt_io_callback(CURL *handle, CURLoption option, gh_curl_io_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode gh_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
