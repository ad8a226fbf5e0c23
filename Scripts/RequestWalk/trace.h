// Function-entry tracing for Scripts/request-walk: the hooks of clang's trace-pc-guard coverage, recording the
// address of every instrumented function entered while tracing is on.
#pragma once

/// Starts recording function entries (from any thread).
void walk_trace_start(void);
/// Records a marker entry (thread 0): the caller has its answer.
void walk_trace_mark(void);
/// Stops recording.
void walk_trace_stop(void);
/// Writes the recorded entries to `path`, one line each: thread, then the entry's address relative to the
/// executable's load address (hex), in entry order. Returns the number of entries, or -1.
long walk_trace_dump(const char *path);
