#ifndef CINTL_SHIM_H
#define CINTL_SHIM_H
/* glibc's gettext (libintl.h), which Swift's Glibc module does not include; glibc itself holds
   the functions, so nothing is linked. */
#include <libintl.h>
#include <langinfo.h>
#include <locale.h>
#endif
