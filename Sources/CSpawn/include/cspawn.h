#ifndef CSPAWN_H
#define CSPAWN_H
/*
 * The process calls Swift cannot name: glibc declares posix_spawn_file_actions_addclosefrom_np
 * only under _GNU_SOURCE, which the toolchain's Glibc module is built without, and prctl is
 * variadic. The actions are passed untyped so that Swift keeps seeing
 * posix_spawn_file_actions_t as the Glibc module's type, not a copy of it.
 */

/* Adds to `actions` (a posix_spawn_file_actions_t) an action that closes every descriptor from
   `lowest` up in the child, so it inherits none this process did not mark close-on-exec
   (libcurl's socket pairs among them). 0, or an errno value; ENOSYS where the C library has no
   such action. */
int cspawn_add_close_from(void *actions, int lowest);

/* Marks this process not dumpable (prctl PR_SET_DUMPABLE 0): the kernel then writes no core of
   it where fs.suid_dumpable is 0, and no other process of the same user may ptrace it or read
   its memory, environment or descriptors in /proc. An exec resets it, so children are as
   usual. 0, or an errno value; ENOSYS off Linux. */
int cspawn_forbid_dumping(void);

#endif
