#ifndef CCURL_H
#define CCURL_H
/*
 * libcurl, loaded with dlopen when the first request needs it instead of linked. Linked, it and
 * its 32 libraries cost every process about 7 ms at start (mostly page faults), commands that
 * never make a request included (register --no-wait, queue, keys, --help). Only the types and
 * constants come from curl.h; every call goes through the functions below.
 */
#include <curl/curl.h>

/* Loads and initialises libcurl once, on the first call; NULL when it is there, else why not,
   in a sentence. Every other function here may be called only after this returned NULL (or
   with a handle from ccurl_easy_init, which calls it). */
const char *ccurl_load_failure(void);

CURL *ccurl_easy_init(void);
void ccurl_easy_cleanup(CURL *handle);
void ccurl_easy_reset(CURL *handle);
CURLcode ccurl_easy_perform(CURL *handle);
const char *ccurl_easy_strerror(CURLcode code);
struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *line);
void ccurl_slist_free_all(struct curl_slist *list);

/* curl_easy_setopt and curl_easy_getinfo are variadic; Swift needs one typed entry per argument kind. */
CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_setopt_ptr(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_setopt_write(CURL *handle, size_t (*function)(char *, size_t, size_t, void *));
CURLcode ccurl_setopt_xferinfo(CURL *handle, int (*function)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t));
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **value);
#endif
