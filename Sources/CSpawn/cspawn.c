#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include "cspawn.h"

int cspawn_add_close_from(void *actions, int lowest) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
#else
    (void)actions;
    (void)lowest;
    return ENOSYS;
#endif
}

#if defined(__linux__)
#include <sys/prctl.h>
#endif

int cspawn_forbid_dumping(void) {
#if defined(__linux__)
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : errno;
#else
    return ENOSYS;
#endif
}
