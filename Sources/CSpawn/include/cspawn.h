#ifndef CSPAWN_H
#define CSPAWN_H
/*
 * The one posix_spawn file action Swift cannot name: glibc declares it only under _GNU_SOURCE,
 * which the toolchain's Glibc module is built without. The actions are passed untyped so that
 * Swift keeps seeing posix_spawn_file_actions_t as the Glibc module's type, not a copy of it.
 */

/* Adds to `actions` (a posix_spawn_file_actions_t) an action that closes every descriptor from
   `lowest` up in the child, so it inherits none this process did not mark close-on-exec
   (libcurl's socket pairs among them). 0, or an errno value; ENOSYS where the C library has no
   such action. */
int cspawn_add_close_from(void *actions, int lowest);

#endif
