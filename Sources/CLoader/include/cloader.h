#ifndef CLOADER_H
#define CLOADER_H
/*
 * How CCurl, CSDBus and CCrypto load their library with dlopen on first use, in one place: the
 * library opened by the first of its sonames that loads, then every function they call
 * resolved, and when either fails, a sentence for the user that says which and what to
 * install. Each of them keeps its own pthread_once and failure buffer and calls this under it.
 */
#include <stddef.h>

/* A function to resolve: its name in the library, and the function pointer that receives it. */
struct cloader_symbol {
    const char *name;
    void **address;
};

/* A library to load, and the words its failures are told in. */
struct cloader_library {
    /* How the messages name it: "libcurl". */
    const char *name;
    /* The sonames tried, in order; the first that opens is kept, and never closed. */
    const char *const *sonames;
    size_t soname_count;
    /* What the user should do when none opens: the end of "libcurl could not be loaded (why): ". */
    const char *when_missing;
    /* What follows "the libcurl found has no curl_easy_init" when a function is missing: "" or
       ": install ...". */
    const char *when_incomplete;
};

/* Opens `library` (RTLD_LAZY | RTLD_LOCAL) and resolves `symbols` in order. 1 when every one
   was found; else 0 and `failure` holds why, in a sentence (the first soname's dlerror when
   none opens, the first function missing when one is). It holds no lock: call it once, under
   a pthread_once, and read the function pointers only after that returned. */
int cloader_load(const struct cloader_library *library, const struct cloader_symbol *symbols, size_t symbol_count,
                 char *failure, size_t failure_size);

#endif
