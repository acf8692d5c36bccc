#ifndef CFUZZER_SHIM_H
#define CFUZZER_SHIM_H
#include <stddef.h>
#include <stdint.h>
// libFuzzer's entry for programs with their own main (compiler-rt's fuzzer_no_main library;
// `scripts/fuzz` links it). Declared here only: normal builds never call it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif
