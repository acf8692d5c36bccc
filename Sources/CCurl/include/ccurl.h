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
/* A multi handle of an easy handle's own, for ccurl_perform: it keeps the easy handle's
   connections alive between transfers. */
CURLM *ccurl_multi_init(void);
void ccurl_multi_cleanup(CURLM *multi);
/* Runs one transfer of `easy` on `multi`, which runs nothing else, and returns how it ended.
   It waits in curl_multi_poll as long as curl's own timers allow, so a transfer a server holds
   open (a socket's long poll) wakes nothing until it moves; curl_easy_perform looks at it once
   a second. `cancelled(context)` is asked before every wait: once it says yes the transfer ends
   with CURLE_ABORTED_BY_CALLBACK, and whoever decides so calls ccurl_multi_wakeup(multi),
   which any thread may. */
CURLcode ccurl_perform(CURLM *multi, CURL *easy, int (*cancelled)(void *), void *context);
void ccurl_multi_wakeup(CURLM *multi);
const char *ccurl_easy_strerror(CURLcode code);
struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *line);
void ccurl_slist_free_all(struct curl_slist *list);

/* curl_easy_setopt and curl_easy_getinfo are variadic; Swift needs one typed entry per argument kind. */
CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_setopt_ptr(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_setopt_write(CURL *handle, size_t (*function)(char *, size_t, size_t, void *));
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **value);
#endif
