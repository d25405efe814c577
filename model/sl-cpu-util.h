/* sl-cpu-util.h: CPU use from thread states: running time per thread, busy cores per process over
 * time (0 … N), and which thread ran on each CPU core when. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

/* The thread-state lane of a thread, or NULL where it has none. */
const SlLane *sl_trace_thread_state_lane (SlTrace *trace,
                                          guint    thread);
/* Time the thread was scheduled in, summed over its Running slices read from scheduling data;
 * -1 when the trace has no scheduling data for it (derived states do not count). */
SlTime        sl_trace_thread_running    (SlTrace *trace,
                                          guint    thread);

typedef struct _SlCpuUtil SlCpuUtil;

/* Built from the trace's thread-state lanes (derived ones included: running is running); O(n log n)
 * in the Running slices.  The trace must outlive it. */
SlCpuUtil    *sl_cpu_util_new            (SlTrace   *trace);
void          sl_cpu_util_free           (SlCpuUtil *util);
/* The trace's own, built on first use from any thread and freed with it: the viewer's loading
 * threads ask first (sl_cpu_util_get), so that its main thread finds it built (~0.4 s at 20 M
 * generated events, far more than a frame). */
SlCpuUtil    *sl_cpu_util_get            (SlTrace   *trace);

/* CPU cores seen running a thread (rows of the "CPUs" group), in increasing number. */
guint         sl_cpu_util_get_n_cpus     (SlCpuUtil *util);
guint32       sl_cpu_util_get_cpu        (SlCpuUtil *util,
                                          guint      i);
/* The Running slices of core i, sorted and disjoint: `corr` is the thread index, `link` the
 * global id of the thread-state event, `name` the thread's name. */
const SlEvent *sl_cpu_util_get_slices    (SlCpuUtil *util,
                                          guint      i,
                                          gsize     *n);
/* Index of the slice of core i running at t, or -1. */
gssize        sl_cpu_util_slice_at       (SlCpuUtil *util,
                                          guint      i,
                                          SlTime     t);

/* Start of the first slice of core i that starts after t; G_MAXINT64 when none. */
SlTime        sl_cpu_util_next_start     (SlCpuUtil *u,
                                          guint      i,
                                          SlTime     t);

/* Processes with any running thread: index into the trace's process table. */
guint         sl_cpu_util_get_n_processes (SlCpuUtil *util);
guint         sl_cpu_util_get_process    (SlCpuUtil *util,
                                          guint      i);
/* Whether process i's running time is derived from samples rather than scheduling data. */
gboolean      sl_cpu_util_is_derived     (SlCpuUtil *util,
                                          guint      i);
/* The most cores process i kept busy at once. */
guint         sl_cpu_util_get_peak       (SlCpuUtil *u,
                                          guint      i);
/* Mean number of cores process i kept busy over [t0, t1).  O(log n). */
double        sl_cpu_util_busy_cores     (SlCpuUtil *util,
                                          guint      i,
                                          SlTime     t0,
                                          SlTime     t1);
/* The same for n equal buckets of [t0, t1) into out[0 … n-1].  O(n log m). */
void          sl_cpu_util_buckets        (SlCpuUtil *util,
                                          guint      i,
                                          SlTime     t0,
                                          SlTime     t1,
                                          guint      n,
                                          double    *out);
/* The machine's CPU cores: CpuCores of TARGET_INFO_SYSTEM_ENV where the file has it (nsys
 * exports), else, where the scheduling data names CPUs, the highest CPU number + 1, a lower bound
 * (*at_least set); 0 when neither says.  `source` (static) says where the count comes from.
 * Reads the trace's file on the first call. */
guint         sl_cpu_util_machine_cores  (SlCpuUtil   *util,
                                          gboolean    *at_least,
                                          const char **source);
/* Index of the trace's process `process` among those with a running thread, or -1. */
gint          sl_cpu_util_find_process   (SlCpuUtil *util,
                                          guint      process);
/* Bytes it holds. */
gsize         sl_cpu_util_get_memory_size (SlCpuUtil *util);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlCpuUtil, sl_cpu_util_free)

G_END_DECLS
