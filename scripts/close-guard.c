/*
 * An LD_PRELOAD library for scripts/close-check: close() as usual, but each successful close
 * of a descriptor remembers who closed it, and a close that fails with EBADF (a descriptor
 * closed twice, or closed by someone who did not own it) prints both stacks and aborts.
 *
 * A double close is silent until another thread opens a descriptor between the two closes and
 * the second close takes it away; the victim then fails far from the cause (a server's
 * connection, a database's file). Here the first EBADF names the cause, every run.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { tracked = 65536, depth = 32 };

static void *closers[tracked][depth];
static int closer_depths[tracked];
static int (*system_close)(int);
static __thread int reentered;

__attribute__((constructor)) static void prepare(void) {
    /* backtrace() loads libgcc_s on first use, which itself closes files: do it now. */
    void *warm[2];
    reentered = 1;
    backtrace(warm, 2);
    reentered = 0;
    system_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
}

int close(int descriptor) {
    if (!system_close) system_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    if (reentered || descriptor < 0 || descriptor >= tracked) return system_close(descriptor);
    reentered = 1;
    void *stack[depth];
    int frames = backtrace(stack, depth);
    int result = system_close(descriptor);
    int error = errno;
    if (result == 0) {
        memcpy(closers[descriptor], stack, sizeof stack);
        closer_depths[descriptor] = frames;
    } else if (error == EBADF) {
        dprintf(2, "close-guard: descriptor %d closed when it was not open, by:\n", descriptor);
        backtrace_symbols_fd(stack, frames, 2);
        dprintf(2, "close-guard: its last close was by:\n");
        backtrace_symbols_fd(closers[descriptor], closer_depths[descriptor], 2);
        abort();
    }
    reentered = 0;
    errno = error;
    return result;
}
