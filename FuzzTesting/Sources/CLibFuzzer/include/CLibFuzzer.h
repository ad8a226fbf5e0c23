#ifndef SIMPLE_NETWORKING_CLIBFUZZER_H
#define SIMPLE_NETWORKING_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver: parses the libFuzzer flags in argv, then calls `callback` with each input, and returns the
/// process's exit status. Defined by libFuzzer, which `-sanitize=fuzzer` links into each target.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
