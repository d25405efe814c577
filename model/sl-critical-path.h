/* sl-critical-path.h: the critical path of a time range: the chain of CPU work, launches, GPU work
 * and waits, across threads and streams through their dependencies, that bounds its duration. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

#define SL_CRITICAL_PATH_ERROR (sl_critical_path_error_quark ())

typedef enum
{
  SL_CRITICAL_PATH_ERROR_NOT_FOUND,  /* no range of that name, or not that many instances */
  SL_CRITICAL_PATH_ERROR_EMPTY,      /* the range holds no instant of the trace */
} SlCriticalPathError;

GQuark sl_critical_path_error_quark (void);

/* What the time of a segment was spent on. */
typedef enum
{
  SL_CP_CPU,     /* a thread inside traced CPU work (a CUDA API call, an NVTX range, a cpu_op) */
  SL_CP_GPU,     /* a stream running a kernel, copy, set or CUDA graph */
  SL_CP_LAUNCH,  /* launch delay: from a launch call to its work's start on an idle stream, or a
                  * stream's gap between queued work (the queue) */
  SL_CP_WAIT,    /* a thread blocked in a synchronizing call, or the time from the end of the work
                  * it waited for to its return; a stream waiting on another's event */
  SL_CP_IDLE,    /* nothing traced: a thread between traced events (host code no trace covers,
                  * or the thread idle), a stream with nothing queued, the range's edges */
  SL_CP_N_KINDS
} SlCpKind;

/* "cpu", "gpu", "launch", "wait", "idle": the JSON keys. */
const char *sl_cp_kind_name (SlCpKind kind);

/* One piece of the path.  The segments of a path follow each other in time without gap or
 * overlap, from the range's start to its end. */
typedef struct
{
  SlCpKind   kind;
  gint       thread;     /* index into the thread table where the time passed on a thread */
  gint       gpu;        /* index into the GPU table where it passed on a stream, else -1 */
  guint32    stream_id;  /* with gpu >= 0 */
  SlEventRef event;      /* the event the time belongs to: the innermost CPU event, the GPU op,
                          * the launch call (launch delay), the synchronizing call (wait);
                          * SL_EVENT_REF_NONE for idle time */
  SlTime     start, end;
} SlCpSegment;

/* A dependency that an edge source adds to the graph: `from`'s end precedes `to`'s start (a GPU
 * op that waited) or end (a CPU call that waited).  Both events must be GPU ops, or `to` a CUDA
 * API call. */
typedef struct
{
  SlEventRef from;
  SlEventRef to;
  SlCpKind   kind;       /* SL_CP_WAIT */
} SlCpDependency;

/* Adds SlCpDependency's of the events overlapping [t0, t1) to `deps`. */
typedef void (*SlCpDependencyFunc) (SlTrace *trace,
                                    SlTime   t0,
                                    SlTime   t1,
                                    GArray  *deps,
                                    gpointer data);

typedef struct _SlCriticalPath SlCriticalPath;

/* The critical path of [t0, t1) of `trace`.  The edges are those of the built-in sources (thread
 * order, stream order, launches, synchronization records and synchronizing calls, cross-stream
 * event waits by the event records they consumed, sl_trace_get_event_wait) and of `extra`
 * (NULL: none), a source that can stand in for what the trace does not say.  NULL and `error` when the range is empty. */
SlCriticalPath   *sl_critical_path_compute   (SlTrace            *trace,
                                              SlTime              t0,
                                              SlTime              t1,
                                              SlCpDependencyFunc  extra,
                                              gpointer            extra_data,
                                              GError            **error);
void              sl_critical_path_free      (SlCriticalPath    *path);

SlTime            sl_critical_path_get_start (SlCriticalPath    *path);
SlTime            sl_critical_path_get_end   (SlCriticalPath    *path);
/* The segments in time order: merged where consecutive pieces have the same kind, place and
 * event. */
const SlCpSegment *sl_critical_path_get_segments (SlCriticalPath *path,
                                                  gsize          *n);
/* Time of the path spent on `kind`; the kinds add up to the range's span. */
SlTime            sl_critical_path_get_time  (SlCriticalPath    *path,
                                              SlCpKind           kind);
/* The graph: its nodes and edges, and those of the path (edges: graph edges walked, before
 * merging into segments); the distinct events the path passes through (an event whose time or
 * whose start or end is on it). */
void              sl_critical_path_get_counts (SlCriticalPath   *path,
                                               gsize            *n_nodes,
                                               gsize            *n_edges,
                                               gsize            *n_path_edges,
                                               gsize            *n_path_events);
/* The weight of the path in the graph (the time of work edges on it: CPU, GPU and launch;
 * waits and idle weigh 0) that the longest-path search maximised. */
SlTime            sl_critical_path_get_weight (SlCriticalPath   *path);
/* Dependency edges of the graph by source, for tests: thread order, launches, stream order,
 * synchronizing calls, event waits (by the record the trace says the wait consumed, or, where it
 * does not say, guessed: the last work of another stream launched before the wait), extra. */
typedef enum
{
  SL_CP_EDGE_THREAD,
  SL_CP_EDGE_LAUNCH,
  SL_CP_EDGE_STREAM,
  SL_CP_EDGE_SYNC,
  SL_CP_EDGE_EVENT_WAIT,
  SL_CP_EDGE_EVENT_GUESS,
  SL_CP_EDGE_EXTRA,
  SL_CP_N_EDGE_KINDS
} SlCpEdgeKind;
gsize             sl_critical_path_count_edges (SlCriticalPath *path,
                                                SlCpEdgeKind    kind);
/* How many of the path's segments came through a dependency edge of that kind. */
gsize             sl_critical_path_count_path_edges (SlCriticalPath *path,
                                                     SlCpEdgeKind    kind);

/* The range of the `instance`-th (0: the first, in time order) range named `name`: an NVTX
 * range, a Kineto user annotation or cpu_op ("ProfilerStep#3"); ranges whose name is exactly
 * `name` where there are any, else those whose name holds it ("ProfilerStep": every step), as
 * HTA counts instances.  GPU-side copies of annotations (gpu_user_annotation) are not counted.
 * FALSE and `error` when there is no such instance. */
gboolean          sl_critical_path_find_range (SlTrace     *trace,
                                               const char  *name,
                                               guint        instance,
                                               SlTime      *t0,
                                               SlTime      *t1,
                                               GError     **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlCriticalPath, sl_critical_path_free)

G_END_DECLS
