#include "cloader.h"

#include <dlfcn.h>
#include <stdio.h>

int cloader_load(const struct cloader_library *library, const struct cloader_symbol *symbols, size_t symbol_count,
                 char *failure, size_t failure_size) {
    void *handle = NULL;
    /* A copy: the next dlopen that fails frees the text dlerror returned for this one. */
    char first_error[512];
    const char *why = NULL;
    /*
     * RTLD_LAZY: libcurl, OpenSSL, GnuTLS and most of libcurl's 32 libraries are linked with
     * -z now and are bound in full whatever is asked; lazy binding only spares the rest
     * (Kerberos, RTMP, GMP, zlib: some 1,850 functions, most of which a plain HTTP transfer
     * never calls) from being bound before they are first called.
     */
    for (size_t index = 0; index < library->soname_count && !handle; index++) {
        handle = dlopen(library->sonames[index], RTLD_LAZY | RTLD_LOCAL);
        if (!handle && !why) {
            const char *error = dlerror();
            if (error) {
                snprintf(first_error, sizeof first_error, "%s", error);
                why = first_error;
            }
        }
    }
    if (!handle) {
        snprintf(failure, failure_size, "%s could not be loaded (%s): %s", library->name, why ? why : "not found",
                 library->when_missing);
        return 0;
    }
    for (size_t index = 0; index < symbol_count; index++) {
        /* POSIX makes a function pointer read through void * from dlsym well defined. */
        *symbols[index].address = dlsym(handle, symbols[index].name);
        if (!*symbols[index].address) {
            snprintf(failure, failure_size, "the %s found has no %s%s", library->name, symbols[index].name,
                     library->when_incomplete);
            return 0;
        }
    }
    return 1;
}
