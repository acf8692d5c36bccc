#ifndef CUNISTRING_SHIM_H
#define CUNISTRING_SHIM_H
#include <uninorm.h>

/* UNINORM_NFKD is the address of a variable of incomplete type, which Swift cannot name. */
static inline uninorm_t cunistring_nfkd(void) { return UNINORM_NFKD; }
#endif
