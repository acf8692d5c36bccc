#include "ccurl.h"

#include <cloader.h>
#include <pthread.h>
#include <stdio.h>

/* The library's functions, filled once by load(); read only after pthread_once returned. */
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} curl;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char failure[512];
static const char *failed = NULL;

#if defined(__APPLE__)
static const char *const names[] = {"libcurl.4.dylib", "/usr/lib/libcurl.4.dylib"};
#else
static const char *const names[] = {"libcurl.so.4", "libcurl.so"};
#endif

static const struct cloader_library library = {
    .name = "libcurl",
    .sonames = names,
    .soname_count = sizeof names / sizeof names[0],
    .when_missing = "install it (Debian: apt install libcurl4)",
    .when_incomplete = "",
};

static const struct cloader_symbol symbols[] = {
    {"curl_global_init", (void **)&curl.global_init},
    {"curl_easy_init", (void **)&curl.easy_init},
    {"curl_easy_cleanup", (void **)&curl.easy_cleanup},
    {"curl_easy_reset", (void **)&curl.easy_reset},
    {"curl_multi_init", (void **)&curl.multi_init},
    {"curl_multi_cleanup", (void **)&curl.multi_cleanup},
    {"curl_multi_add_handle", (void **)&curl.multi_add_handle},
    {"curl_multi_remove_handle", (void **)&curl.multi_remove_handle},
    {"curl_multi_perform", (void **)&curl.multi_perform},
    {"curl_multi_poll", (void **)&curl.multi_poll},
    {"curl_multi_wakeup", (void **)&curl.multi_wakeup},
    {"curl_multi_info_read", (void **)&curl.multi_info_read},
    {"curl_easy_strerror", (void **)&curl.easy_strerror},
    {"curl_easy_setopt", (void **)&curl.easy_setopt},
    {"curl_easy_getinfo", (void **)&curl.easy_getinfo},
    {"curl_slist_append", (void **)&curl.slist_append},
    {"curl_slist_free_all", (void **)&curl.slist_free_all},
};

static void load(void) {
    if (!cloader_load(&library, symbols, sizeof symbols / sizeof symbols[0], failure, sizeof failure)) {
        failed = failure;
        return;
    }
    /* Here, under the once, before any handle exists: it must not run beside other curl calls. */
    CURLcode code = curl.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(failure, sizeof failure, "libcurl could not be initialised: %s", curl.easy_strerror(code));
        failed = failure;
    }
}

const char *ccurl_load_failure(void) {
    pthread_once(&loaded, load);
    return failed;
}

CURL *ccurl_easy_init(void) { return ccurl_load_failure() ? NULL : curl.easy_init(); }
void ccurl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
void ccurl_easy_reset(CURL *handle) { curl.easy_reset(handle); }
CURLM *ccurl_multi_init(void) { return ccurl_load_failure() ? NULL : curl.multi_init(); }
void ccurl_multi_cleanup(CURLM *multi) { curl.multi_cleanup(multi); }
void ccurl_multi_wakeup(CURLM *multi) { curl.multi_wakeup(multi); }

/* What a multi error means for the one transfer: memory, or a failure of curl's own. */
static CURLcode transfer_failure(CURLMcode code) { return code == CURLM_OUT_OF_MEMORY ? CURLE_OUT_OF_MEMORY : CURLE_FAILED_INIT; }

CURLcode ccurl_perform(CURLM *multi, CURL *easy, int (*cancelled)(void *), void *context) {
    CURLMcode code = curl.multi_add_handle(multi, easy);
    if (code != CURLM_OK) return transfer_failure(code);
    CURLcode result = CURLE_OK;
    for (;;) {
        int running = 0;
        code = curl.multi_perform(multi, &running);
        if (code != CURLM_OK) { result = transfer_failure(code); break; }
        if (!running) {
            result = CURLE_FAILED_INIT;  /* unless curl says how it ended, as it always does */
            int left = 0;
            for (CURLMsg *message; (message = curl.multi_info_read(multi, &left));) {
                if (message->msg == CURLMSG_DONE && message->easy_handle == easy) result = message->data.result;
            }
            break;
        }
        /* Before every wait: a cancellation may have come before the transfer could be woken. */
        if (cancelled(context)) { result = CURLE_ABORTED_BY_CALLBACK; break; }
        /* curl_multi_poll returns earlier when curl's own timers (the transfer's timeout) say so. */
        code = curl.multi_poll(multi, NULL, 0, 60 * 1000, NULL);
        if (code != CURLM_OK) { result = transfer_failure(code); break; }
    }
    curl.multi_remove_handle(multi, easy);
    return result;
}
const char *ccurl_easy_strerror(CURLcode code) { return ccurl_load_failure() ? "libcurl is not loaded" : curl.easy_strerror(code); }
struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *line) {
    return ccurl_load_failure() ? NULL : curl.slist_append(list, line);
}
void ccurl_slist_free_all(struct curl_slist *list) {
    if (list) curl.slist_free_all(list);
}

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) { return curl.easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_ptr(CURL *handle, CURLoption option, void *value) { return curl.easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) { return curl.easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) { return curl.easy_setopt(handle, option, value); }
CURLcode ccurl_setopt_write(CURL *handle, size_t (*function)(char *, size_t, size_t, void *)) {
    return curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, function);
}
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) { return curl.easy_getinfo(handle, info, value); }
CURLcode ccurl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) { return curl.easy_getinfo(handle, info, value); }
CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **value) { return curl.easy_getinfo(handle, info, value); }
