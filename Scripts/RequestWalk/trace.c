// See trace.h. Linked only into the request-walk driver; the library is compiled with
// `-sanitize-coverage=func,trace-pc-guard`, which calls __sanitizer_cov_trace_pc_guard on every function entry.
#define _GNU_SOURCE
#include "trace.h"
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>

#define CAPACITY (1 << 20)
static uintptr_t addresses[CAPACITY];
static int threads[CAPACITY];
static atomic_long count;
static atomic_int tracing;

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
    for (uint32_t *guard = start; guard < stop; guard++) *guard = 1;  // a guard of 0 would mean "skip"
}

void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
    (void)guard;
    if (!atomic_load_explicit(&tracing, memory_order_relaxed)) return;
    long index = atomic_fetch_add(&count, 1);
    if (index >= CAPACITY) return;
    addresses[index] = (uintptr_t)__builtin_return_address(0);
    threads[index] = (int)syscall(SYS_gettid);
}

void walk_trace_start(void) { atomic_store(&count, 0); atomic_store(&tracing, 1); }

void walk_trace_mark(void) {
    long index = atomic_fetch_add(&count, 1);
    if (index < CAPACITY) addresses[index] = (uintptr_t)&walk_trace_mark, threads[index] = 0;
}

void walk_trace_stop(void) { atomic_store(&tracing, 0); }

long walk_trace_dump(const char *path) {
    Dl_info info;
    if (!dladdr((void *)&walk_trace_dump, &info)) return -1;
    FILE *file = fopen(path, "w");
    if (!file) return -1;
    long total = atomic_load(&count);
    if (total > CAPACITY) total = CAPACITY;
    for (long index = 0; index < total; index++)
        fprintf(file, "%d 0x%lx\n", threads[index], (unsigned long)(addresses[index] - (uintptr_t)info.dli_fbase));
    fclose(file);
    return total;
}
