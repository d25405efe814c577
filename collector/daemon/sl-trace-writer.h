/* sl-trace-writer.h: turns wire records into rows of the nsys schema, in batched transactions, so
 * that the file is a whole trace after every commit; C11 + POSIX + SQLite, no GLib.  A writer is
 * not locked: one thread at a time uses it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "sl-wire.h"

typedef struct _SlTraceWriter SlTraceWriter;

/* Creates `path` (it must not exist unless `force`), with every table of the schema.  NULL and a
 * malloc'd message naming the file in *error on failure. */
SlTraceWriter *sl_trace_writer_open (const char *path, bool force, char **error);

/* A META_DATA_CAPTURE row (command, arguments, options). */
void sl_trace_writer_add_meta (SlTraceWriter *w, const char *name, const char *value);

/* Records before `t` (CLOCK_MONOTONIC ns) are dropped: --delay.  0: none. */
void sl_trace_writer_set_window (SlTraceWriter *w, uint64_t from_ns, uint64_t to_ns);

/* --keep-last: only the events of the last `keep_ns` before the newest stay, in the file and in
 * memory; those that ended before go in whole chunks of keep_ns / 8 after a commit, and the file
 * is a whole trace after each (what stays and why: above keep_tables in the .c).  0: all. */
void sl_trace_writer_set_keep_last (SlTraceWriter *w, uint64_t keep_ns);

/* --max-size: once the file reaches `bytes` at a commit, the recording stops there (one
 * DIAGNOSTIC_EVENT row says where; later records are dropped); with --keep-last the oldest chunks
 * go instead, keeping the newest events under `bytes`.  0: no bound. */
void sl_trace_writer_set_max_size (SlTraceWriter *w, uint64_t bytes);

/* Why --max-size stopped the recording, for a person; NULL while it records. */
const char *sl_trace_writer_stop_reason (const SlTraceWriter *w);

/* Where the --keep-last window starts now (events before it are gone); 0: nothing cut yet. */
uint64_t sl_trace_writer_kept_from (const SlTraceWriter *w);

/* Commits, then copies the committed trace to `path` (which must not exist unless `force`) and
 * finishes the copy as a recording's end does (the exact --keep-last window, SAMPLING_CALLCHAINS);
 * the recording goes on.  false + *error (the copy removed) on failure; the recording keeps what
 * it had either way. */
bool sl_trace_writer_snapshot (SlTraceWriter *w, const char *path, bool force, char **error);

/* One record of process `pid` (its HELLO first).  The record was checked for size only; the
 * writer checks the rest.  Returns false for a record it cannot use (counted, not fatal). */
bool sl_trace_writer_add (SlTraceWriter *w, int32_t pid, const SlWireHeader *record);

/* Process `pid` ended: what it left open (NVTX ranges) is closed at its last event. */
void sl_trace_writer_process_ended (SlTraceWriter *w, int32_t pid, int wait_status, bool known);

/* Commits what was added (one transaction); samples are symbolized here.  false + *error when
 * the disk is full or the file went away: what was committed before stays. */
bool sl_trace_writer_commit (SlTraceWriter *w, char **error);

/* Closes what every process left open (NVTX ranges) and commits: after it the count of events is
 * final.  sl_trace_writer_finish() does it too. */
bool sl_trace_writer_end (SlTraceWriter *w, char **error);

/* Last commit, ANALYSIS_DETAILS, close.  Frees `w`. */
bool sl_trace_writer_finish (SlTraceWriter *w, char **error);

/* Rows written to the event tables (CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, OSRT_API,
 * COMPOSITE_EVENTS, SCHED_EVENTS), the batch not yet committed included; samples count once
 * flushed by a commit. */
uint64_t sl_trace_writer_n_events (const SlTraceWriter *w);
uint64_t sl_trace_writer_n_dropped (const SlTraceWriter *w);
uint64_t sl_trace_writer_n_bad (const SlTraceWriter *w);
