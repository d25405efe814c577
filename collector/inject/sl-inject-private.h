/* sl-inject-private.h: what the parts of libsightline-inject.so share; C11 + POSIX, no GLib.
 *
 * The library runs inside someone else's process.  Every thread that produces records owns a
 * single-producer ring (allocated once, on its first record, with mmap); a flusher thread drains
 * all rings to the daemon's socket every SL_FLUSH_MS and when a ring is half full.  Producing a
 * record is a few stores and one release store: no lock, no allocation, no system call.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sl-wire.h"

#define SL_EXPORT __attribute__ ((visibility ("default")))
#define SL_HIDDEN __attribute__ ((visibility ("hidden")))

#define SL_FLUSH_MS 50 /* at most this much is lost when the process is killed outright */

/* CLOCK_MONOTONIC in ns: the time base of every record (CUPTI is told to use it too). */
SL_HIDDEN uint64_t _sl_now (void);

/* The calling thread's kernel tid (cached per thread). */
SL_HIDDEN uint32_t _sl_tid (void);

/*
 * Reserves `size` bytes (a multiple of 8, header included, at most SL_WIRE_MAX_RECORD) in the
 * calling thread's ring and fills the header.  Returns NULL when the record must be dropped (ring
 * full, library not recording, called from inside the library): the drop is counted and reported
 * in an SL_WIRE_DROPPED record.  _sl_emit_end() publishes it.  Async-signal-safe.
 */
SL_HIDDEN void *_sl_emit_begin (uint16_t type, uint32_t size);
SL_HIDDEN void  _sl_emit_end   (void *record);

/* As _sl_emit_begin(), but waits (up to about a second) for the flusher to make room instead of
 * dropping: for threads that are not the application's, like CUPTI's buffer-completion thread. */
SL_HIDDEN void *_sl_emit_begin_wait (uint16_t type, uint32_t size);

/* Copies `text` (NULL is ""; cut at `max` bytes) after the fixed part of `record` and returns
 * the record size for sl_wire_size(fixed, strlen). */
SL_HIDDEN size_t _sl_text_len (const char *text, size_t max);
SL_HIDDEN void   _sl_put_text (void *record, size_t fixed, const char *text, size_t len);

/* Convenience: one record of `fixed` bytes (copied from `fixed_part`, header filled here)
 * followed by `text`.  Returns false when dropped. */
SL_HIDDEN bool _sl_emit_with_text (uint16_t type, const void *fixed_part, size_t fixed,
                                   const char *text, bool wait);

/* Records lost, by SlDropSource; reported by the flusher. */
SL_HIDDEN void _sl_count_drop (uint32_t source, uint64_t n);
SL_HIDDEN uint64_t _sl_dropped (uint32_t source); /* the count so far, sent or not */

/* True while this thread runs library code that must not record itself (the flusher, CUPTI
 * callbacks that call interposed functions). */
SL_HIDDEN bool _sl_in_library (void);
SL_HIDDEN void _sl_enter_library (void);
SL_HIDDEN void _sl_leave_library (void);

/* Drains every ring once, passing each complete record to `cb`; returns the bytes drained.  The
 * flusher sends them to the daemon; tests use it to read what was emitted. */
typedef void (*SlDrainFunc) (const SlWireHeader *record, void *user_data);
SL_HIDDEN size_t _sl_drain (SlDrainFunc cb, void *user_data);

/* Test builds: start producing into rings without a daemon (records stay until drained). */
SL_HIDDEN void _sl_inject_start_for_test (void);

/* Connects to the daemon and starts recording if SIGHTLINE_SOCKET says so; idempotent.  Run by
 * the library's constructor, and by entry points that may come first (InitializeInjection). */
SL_HIDDEN void _sl_inject_ensure_started (void);

/* Whether SIGHTLINE_TRACE asked for "cuda", "nvtx", "osrt", "mpi" or "openmp". */
SL_HIDDEN bool _sl_trace_enabled (const char *what);

/* Thread names: `tid`'s name as the program set it; the calling thread's kernel name (comm);
 * the start of a new thread, in it (ring, name, sampling timer). */
SL_HIDDEN void _sl_emit_thread_name (uint32_t tid, const char *name);
SL_HIDDEN void _sl_emit_own_thread_name (void);
SL_HIDDEN void _sl_thread_started (void);
/* Names a thread of the library's own in the program (the flusher, CUPTI's flush thread), at most
 * 15 bytes, "sightline-…": in the kernel and in the trace, where it has scheduling rows and
 * nothing else, so that a person sees it is the profiler's.  That thread, once, at its start. */
SL_HIDDEN void _sl_name_library_thread (const char *name);

/* Parts, each started by the core when its trace option is on (SIGHTLINE_TRACE=cuda,nvtx,osrt;
 * SIGHTLINE_SAMPLE_HZ). */
SL_HIDDEN void _sl_osrt_start   (uint64_t threshold_ns, uint64_t backtrace_ns); /* UINT64_MAX:
                                                                                * no backtraces */
SL_HIDDEN void _sl_mpi_start    (void);                /* sl-inject-mpi.c: -t mpi */
SL_HIDDEN void _sl_mpi_flush    (void);                /* sl-inject-mpi.c: every thread's
                                                         * calls not sent yet, at exit */
SL_HIDDEN void _sl_ompt_flush   (void);                /* sl-inject-ompt.c: the implicit
                                                         * tasks still open, at exit */
SL_HIDDEN void _sl_sample_start (unsigned hz);          /* main thread; new threads in
                                                         * _sl_thread_started */
SL_HIDDEN void _sl_sample_thread_start (void);          /* the calling thread */
SL_HIDDEN void _sl_sample_thread_stop (void);
SL_HIDDEN void _sl_sample_stop (void);
SL_HIDDEN void _sl_modules_update (void);               /* sends SL_WIRE_MODULE for new objects */

/* The calling thread's return addresses above the frame that returns to `from` (`from` first);
 * 0 when `from` is not among the first frames.  Not for signal handlers (see the sampler's). */
SL_HIDDEN uint32_t _sl_unwind_from (uint64_t from, uint64_t *frames, uint32_t max);

/* Test hooks of the sampler's native walk (sl-inject-sample.c): with the check on, each signal's
 * stack is walked by libgcc too and compared; the counts so far: walks, walks left to libgcc
 * (a frame the cached walk does not model), rules computed (cache misses), walks that differed,
 * frames copied from the thread's previous walk. */
SL_HIDDEN void _sl_sample_set_unwind_check (bool on);
SL_HIDDEN void _sl_sample_unwind_counts (uint64_t out[5]);

/* Sends what the rings hold now (and new modules): before an exec replaces the process image.
 * Only in the process the connection is ours (not a vfork child sharing our memory). */
SL_HIDDEN bool _sl_owns_process (void);
SL_HIDDEN void _sl_flush_now (void);
/* Python stacks (sl-inject-python.c): _sl_python_update() finds the interpreter (module walks,
 * not in handlers); _sl_python_merge() puts the calling thread's Python frames in place of its
 * _PyEval_EvalFrameDefault frames among `n` native ones (leaf first; `leaf_exact`: frame 0 is an
 * instruction, not a return address) and returns the new count.  Async-signal-safe. */
SL_HIDDEN void     _sl_python_update (void);
SL_HIDDEN bool     _sl_python_known (void);
SL_HIDDEN uint32_t _sl_python_merge (uint64_t *frames, uint32_t n, uint32_t max, bool leaf_exact);
/* The calling thread's scratch for reading its Python stacks (8 KiB, malloc'd: not in a handler),
 * made when its sampling starts and freed when it stops. */
SL_HIDDEN void     _sl_python_thread_start (void);
SL_HIDDEN void     _sl_python_thread_stop (void);
/* Opens /proc/self/mem for the reads of this process (again in a forked child); module walks. */
SL_HIDDEN void     _sl_python_open_mem (void);
/* What reading Python stacks cost and saved so far (SIGHTLINE_SAMPLE_STATS): stacks read,
 * system calls, frames, frames whose code object was not checked again (the thread's previous
 * stack's); SIGHTLINE_PYTHON=compare: stacks read both ways, those that differed, code objects
 * only the full read sent, and the median of each read's time over `pairs` signals (sorts the
 * times: at the end only). */
typedef struct
{
  uint64_t stacks, reads, frames, reused;
  bool     compare;
  uint64_t compared, differed, unsent;
  uint32_t pairs;
  uint64_t reuse_ns, full_ns;
} SlPyStats;
SL_HIDDEN void     _sl_python_stats (SlPyStats *out);
SL_HIDDEN void     _sl_python_counts (SlPyStats *out); /* the counts only: any time */
/* Capture ranges (sl-inject-capture.c): configured once from SIGHTLINE_CAPTURE_RANGE,
 * SIGHTLINE_NVTX_CAPTURE and SIGHTLINE_CAPTURE_RANGE_END before anything is recorded.
 * _sl_capture_gated(): the program's threads make no records now (checked by _sl_emit_begin for
 * NVTX, OS runtime, samples and CUDA backtraces); _sl_capture_covers(t): a CUPTI record that
 * started at `t` is in a range; begin/end: cudaProfilerStart/Stop (idempotent: the runtime's
 * call makes the driver's too); _sl_capture_nvtx(): each NVTX op, `before` and after its record
 * (SL_NVTX_* op, the domain's name or NULL for the default one). */
SL_HIDDEN void _sl_capture_configure (const char *range, const char *nvtx, const char *end);
SL_HIDDEN bool _sl_capture_gated (void);
SL_HIDDEN bool _sl_capturing (void);
SL_HIDDEN bool _sl_capture_by_profiler_api (void);
SL_HIDDEN bool _sl_capture_covers (uint64_t t);
SL_HIDDEN void _sl_capture_begin (void);
SL_HIDDEN void _sl_capture_end (void);
SL_HIDDEN void _sl_capture_nvtx (uint32_t op, const char *domain, uint64_t range_id,
                                 const char *text, bool before);
/* CUPTI (sl-inject-cupti.c; absent from builds without CUDA): started from InitializeInjection()
 * that libcuda calls through CUDA_INJECTION64_PATH; flushed at exit and before a fatal signal. */
SL_HIDDEN bool _sl_cupti_start (void);
SL_HIDDEN void _sl_cupti_flush (void);
SL_HIDDEN void _sl_cupti_stop  (void);
