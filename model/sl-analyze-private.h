/* sl-analyze-private.h: what the rule files of `sightline analyze` share: the context a run
 * keeps (lanes per thread and GPU, the window), the helpers that build findings, and the rules. */
#pragma once

#include "sl-analyze.h"
#include "sl-cpu-util.h"
#include "sl-display-name.h"
#include "sl-lane.h"
#include "sl-trace-private.h"

G_BEGIN_DECLS

#define SL_US ((SlTime) 1000)
#define SL_MS ((SlTime) 1000000)
/* A finding lists at most this many events: enough to walk through in the findings panel. */
#define SL_MAX_FINDING_EVENTS 256

/* Per-thread lanes the rules read. */
typedef struct
{
  gint   api;             /* CUDA API at depth 0 (runtime, or driver where the runtime is absent) */
  gint   osrt;            /* OS runtime at depth 0 */
  gint   samples;
  SlTime sample_period;   /* average spacing of its samples, 0 without */
  gint   sched;           /* thread states (scheduling data or derived), -1 without */
  GArray *nvtx;           /* guint32: its NVTX lanes, one a depth (marks included) */
} SlThreadLanes;

/* Why a GPU is idle at an instant: each idle nanosecond has exactly one, the first of these that
 * holds, on the threads that launch the GPU's work (sl-analyze-idle.c). */
typedef enum
{
  SL_IDLE_QUEUED,     /* work launched for the GPU waits to start: a stream or event dependency,
                       * the legacy default stream, the driver */
  SL_IDLE_COPY,       /* the host is in a copy or set call that blocks: synchronous, or of pageable
                       * memory (staged by the driver) */
  SL_IDLE_SYNC,       /* the host is in a synchronizing call */
  SL_IDLE_LAUNCH,     /* the host is in a launch call (kernel, asynchronous copy or set, graph) */
  SL_IDLE_HOST,       /* the host is busy in a named activity: another CUDA call, an OS runtime call,
                       * an NVTX range, sampled code, or running by its thread states */
  SL_IDLE_UNTRACED,   /* nothing traced says what the host did */
  SL_N_IDLE_CAUSES
} SlIdleCause;

#define SL_IDLE_ALL ((1u << SL_N_IDLE_CAUSES) - 1)

/* A GPU's idle time over the window (the trace's span, or the --range), split once by cause. */
G_STATIC_ASSERT (SL_N_IDLE_CAUSES == G_N_ELEMENTS (((SlGpuTime *) NULL)->idle_by_cause));

typedef struct
{
  SlTime  s, e;                           /* the window the account covers */
  GArray *idle;                           /* SlSpan: its idle time, in order */
  GArray *by_cause[SL_N_IDLE_CAUSES];     /* SlSpan: a partition of `idle` */
  GArray *claimed[SL_N_IDLE_CAUSES];      /* SlSpan unions, a cause each: what findings have
                                           * been given of its pieces (a rule asking for one
                                           * cause never walks or copies what others were
                                           * given) */
  SlTime **returns;                       /* per op lane of the GPU (SlGpuInfo.ops' order): each
                                           * op's launch call's return, G_MININT64 where it has
                                           * none (looked up once: launch_latency reads them) */
  /* scratch of _sl_idle_attribute, emptied and kept between calls: ~10^6 pieces in a call, and
   * fresh pages cost more than the work on them */
  GArray *given;                          /* SlSpan: what a call gives of one cause */
  GArray *spare;                          /* SlSpan: the next `claimed` of that cause */
  SlTime  total[SL_N_IDLE_CAUSES];
  SlTime  idle_total;
  gboolean  time_done;                    /* `time` is computed (_sl_gpu_time) */
  SlGpuTime time;
} SlIdleAccount;

typedef struct
{
  GArray *ops;          /* guint32 lanes: kernels, graph launches, memcpy, memset */
  GArray *kernels;
  SlTime  first, last;  /* span of its work in the window; first >= last when it has none */
  gint    launcher;     /* thread launching most of its work, -1 when unknown */
  GArray *launchers;    /* guint: the threads launching at least a quarter as much as it (PyTorch:
                         * the main thread forward and the optimizer, pt_autograd_0 backward) */
  GArray *threads;      /* guint: threads of the processes that use it */
  guint64 global_pid;   /* process of most of its work */
  GArray *workers;      /* guint: processes descended from that one (SlProcess.parent_pid) with
                         * no GPU work of their own: DataLoader workers, multiprocessing children */
  GArray *worker_threads; /* guint: their threads */
  SlIdleAccount *account; /* its idle time by cause; NULL until _sl_idle_account asks */
  gpointer bound_windows; /* sl-analyze-bound.c's figures of each window, shared by cpu_bound
                           * and gpu_bound (g_free); NULL until asked */
  SlTime   bound_window;  /* their width */
  GArray  *config_groups; /* sl-analyze-kernels.c's kernels by launch configuration, shared
                              * by low_occupancy and tail_effect; NULL until asked */
  SlTime   kernel_time;   /* the kernels' time, summed with them */
} SlGpuInfo;

typedef enum
{
  SL_API_OTHER,
  SL_API_SYNC,          /* cudaDeviceSynchronize, cudaStreamSynchronize (and the driver's) */
  SL_API_SYNC_OTHER,    /* cudaEventSynchronize, cuCtxSynchronize …: block, not in nsys's rule */
  SL_API_MEMCPY_SYNC,   /* cudaMemcpy* without Async */
  SL_API_MEMCPY_ASYNC,
  SL_API_MEMSET_SYNC,
  SL_API_MEMSET_ASYNC,
  SL_API_LAUNCH,        /* cudaLaunchKernel, cuLaunchKernel, cudaGraphLaunch …: queues GPU work */
} SlApiClass;

typedef struct
{
  SlTrace               *trace;
  const SlAnalyzeParams *params;
  SlTime                 t0, t1;      /* the window: events starting in [t0, t1) count */
  GPtrArray             *findings;
  GArray                *summaries;
  guint                  n_threads, n_gpus;
  SlThreadLanes         *tl;
  SlGpuInfo             *gpus;
  guint8                *api_class;   /* by name id: SlApiClass + 1, 0 until classed (a call's
                                       * class is asked for ~10^7 times: no hash lookup) */
  guint                  n_strs;      /* the trace's strings: api_class's length */
  const SlRule          *rule;        /* running now */
  GString               *note;
  guint8                *python_module; /* per string id: 1 = a Python source line ("x.py:42"),
                                         * 2 = not; NULL until _sl_samples_top needs it */
  gboolean               has_python;    /* some call-chain module is a Python line */
  SlCpuUtil             *cpu_util;      /* busy cores per process (the trace's); NULL until
                                         * _sl_workers needs it (only GPUs with worker
                                         * processes do) */
} SlAnalyzeCtx;

/* A time span [s, e); arrays of them are merged into unions. */
typedef struct
{
  SlTime s, e;
} SlSpan;

/* --- the context (sl-analyze-context.c) --- */

/* Sorts the lanes by thread and GPU, finds each GPU's span in the window, its launching thread
 * (from a sample of ~2000 ops a lane) and the threads of its processes. */
void          _sl_analyze_ctx_init   (SlAnalyzeCtx *ctx);
void          _sl_analyze_ctx_clear  (SlAnalyzeCtx *ctx);
/* The running rule's parameter. */
double        _sl_analyze_param      (SlAnalyzeCtx *ctx,
                                      const char   *name);
/* Adds to the running rule's note ("; " between parts). */
void          _sl_analyze_note       (SlAnalyzeCtx *ctx,
                                      const char   *fmt,
                                      ...) G_GNUC_PRINTF (2, 3);
/* The events of `lane` that start in the window: [*e0, *e1). */
void          _sl_analyze_lane_window (SlAnalyzeCtx *ctx,
                                       const SlLane *lane,
                                       gsize        *e0,
                                       gsize        *e1);
typedef void (*SlKernelFunc) (const SlLane *lane, gsize index, gpointer user_data);
/* Calls func for each kernel of GPU `gpu` (index) that starts in the window, lane by lane. */
void          _sl_analyze_foreach_kernel (SlAnalyzeCtx *ctx,
                                          guint         gpu,
                                          SlKernelFunc  func,
                                          gpointer      user_data);
const SlLane *_sl_lane_or_null       (SlAnalyzeCtx *ctx,
                                      gint          index);
/* The device id of GPU `g` (an index into the trace's GPU table): what findings name, as the
 * timeline's lanes do. */
guint32       _sl_gpu_id             (SlAnalyzeCtx *ctx,
                                      guint         g);
SlApiClass    _sl_api_class          (SlAnalyzeCtx *ctx,
                                      guint32       name);
/* A call during which the host waits for the GPU. */
gboolean      _sl_api_class_blocks   (SlApiClass    c);
/* By name (a CUDA call's, or a sampled function's): a launch ("…Launch…"), and set-up that is not
 * GPU work: allocation, freeing, module or library loading. */
gboolean      _sl_api_name_launches  (const char   *name);
/* cudaGraphLaunch, cuGraphLaunch: work already captured in a CUDA graph. */
gboolean      _sl_api_name_launches_graph (const char *name);
/* A kernel that ran as a node of a CUDA graph (traced in node mode): not a launch of its own. */
gboolean      _sl_kernel_is_graph_node (SlTrace       *trace,
                                        const SlLane  *lane,
                                        const SlEvent *ev);
gboolean      _sl_api_name_sets_up   (const char   *name);
/* A CUDA call (event `index` of a CUDA API lane) during which the host waits: a blocking class,
 * or an asynchronous copy or set from or to pageable memory (synchronous in fact). */
gboolean      _sl_api_call_waits     (SlAnalyzeCtx *ctx,
                                      const SlLane *lane,
                                      gsize         index);
char         *_sl_thread_label       (SlAnalyzeCtx *ctx,
                                      gint          thread);
guint64       _sl_thread_pid         (SlAnalyzeCtx *ctx,
                                      gint          thread);
/* The thread whose CUDA call launched `op` (and that call), -1 when unknown. */
gint          _sl_launch_thread      (SlAnalyzeCtx   *ctx,
                                      const SlEvent  *op,
                                      const SlLane  **api_lane,
                                      gsize          *api_index);
/* _sl_launch_thread for ops walked in order: *api_lane is a hint on entry (the lane of the op
 * before's launch call, or NULL), as an op lane's launches mostly come from one CUDA API lane;
 * where it holds the call, no search of the trace's lanes. */
gint          _sl_launch_thread_near (SlAnalyzeCtx   *ctx,
                                      const SlEvent  *op,
                                      const SlLane  **api_lane,
                                      gsize          *api_index);
/* "1.500 s … 2.000 s" from the trace start. */
char         *_sl_range_text         (SlAnalyzeCtx *ctx,
                                      SlTime        a,
                                      SlTime        b);

/* --- findings and their evidence --- */

/* A finding of `rule` with nothing in it, added to nothing. */
SlFinding    *_sl_finding_alloc      (const SlRule *rule);
void          _sl_finding_free       (gpointer      finding);
/* Replaces the findings of one rule with one cause, two or more, by a group finding holding
 * them (sl-analyze-group.c). */
void          _sl_analyze_group      (GPtrArray    *findings);

/* A finding of the running rule, added to the analysis; its range is clipped to the window. */
SlFinding    *_sl_finding_new        (SlAnalyzeCtx *ctx,
                                      SlTime        start,
                                      SlTime        end,
                                      SlTime        cost);
void          _sl_evidence           (SlFinding  *f,
                                      const char *key,
                                      const char *label,
                                      double      value,
                                      const char *fmt,
                                      ...) G_GNUC_PRINTF (5, 6);
void          _sl_evidence_duration  (SlFinding  *f,
                                      const char *key,
                                      const char *label,
                                      SlTime      ns);
void          _sl_evidence_share     (SlFinding  *f,
                                      const char *key,
                                      const char *label,
                                      double      share);
void          _sl_finding_add_lane   (SlFinding *f,
                                      guint32    lane);
/* Adds the event (the first SL_MAX_FINDING_EVENTS, those starting in the window) and its lane. */
void          _sl_finding_add_event  (SlAnalyzeCtx *ctx,
                                      SlFinding    *f,
                                      guint32       lane,
                                      gsize         index);
void          _sl_finding_add_gpu_lanes    (SlAnalyzeCtx *ctx,
                                            SlFinding    *f,
                                            guint         gpu);
void          _sl_finding_add_thread_lanes (SlAnalyzeCtx *ctx,
                                            SlFinding    *f,
                                            gint          thread);

/* --- sums over lanes --- */

/* Which CUDA calls a sum over a CUDA API lane counts (_sl_api_call_waits tells them apart). */
typedef enum
{
  SL_CALLS_ALL,
  SL_CALLS_WAITS,       /* calls during which the host waits */
  SL_CALLS_WORK,        /* the others */
} SlCallFilter;

/* Time of [a, b) a lane's events cover, summed (a lane at one depth does not overlap itself);
 * per name into `by_name` (name id → SlTime*) when given; the events are added to `f` when
 * given.  On a CUDA API lane, only the calls `filter` lets through count. */
SlTime        _sl_overlap_sum        (SlAnalyzeCtx *ctx,
                                      const SlLane *lane,
                                      SlTime        a,
                                      SlTime        b,
                                      GHashTable   *by_name,
                                      SlCallFilter  filter,
                                      SlFinding    *f);
/* Both sums of a CUDA API lane over [a, b) in one walk: the waits' and the other calls'. */
void          _sl_overlap_split      (SlAnalyzeCtx *ctx,
                                      const SlLane *api,
                                      SlTime        a,
                                      SlTime        b,
                                      SlTime       *waits,
                                      SlTime       *work);
gsize         _sl_samples_in         (const SlLane *lane,
                                      SlTime        a,
                                      SlTime        b);
/* What most samples of [a, b) were running, as a function's (symbol, module): a sample's
 * innermost Python frame where its stack has one (the collector writes them with the module
 * "file.py:LINE"), else its leaf symbol (module SL_NO_STR).  Returns how many samples that is,
 * 0 (with SL_NO_STR) when none fall in [a, b). */
gsize         _sl_samples_top        (SlAnalyzeCtx *ctx,
                                      const SlLane *samples,
                                      SlTime        a,
                                      SlTime        b,
                                      guint32      *symbol,
                                      guint32      *module);
/* The same over several lanes: samples counted by that function, the top one so far. */
typedef struct
{
  GHashTable *counts;     /* (symbol << 32 | module) → gsize */
  gsize       total;      /* samples counted */
  gsize       best;       /* in the top function */
  guint32     symbol, module;
} SlSampleTally;

void          _sl_sample_tally_init  (SlSampleTally *t);
void          _sl_sample_tally_clear (SlSampleTally *t);
void          _sl_samples_tally      (SlAnalyzeCtx  *ctx,
                                      const SlLane  *samples,
                                      SlTime         a,
                                      SlTime         b,
                                      SlSampleTally *t);
/* Whether a call-chain module is a Python source line ("dataset.py:42"). */
gboolean      _sl_is_python_line     (SlAnalyzeCtx *ctx,
                                      guint32       module);
/* "collate (dataset.py:42)" for a Python frame, the symbol alone otherwise; a new string. */
char         *_sl_sample_name        (SlAnalyzeCtx *ctx,
                                      guint32       symbol,
                                      guint32       module);
/* Adds `d` to `name`'s time in a by_name table (name id → SlTime*, owned). */
void          _sl_by_name_add        (GHashTable *by_name,
                                      guint32     name,
                                      SlTime      d);
/* The name with the most time in a by_name table, and that time. */
guint32       _sl_top_name           (GHashTable *by_name,
                                      SlTime     *time);
/* The median of `times` (SlTime; reordered): the element a sort would put at len / 2, 0 when
 * empty. */
SlTime        _sl_median_of          (GArray *times);
/* The same of v[0 .. n). */
SlTime        _sl_median_of_n        (SlTime *v,
                                      gsize   n);
/* Sorts n elements of `size` bytes that each begin with an SlTime by it, stably (times, spans,
 * SlIdleRequest): a radix sort, as rules sort ~10^6 of them (kernel starts, the spans they ask
 * for), mostly runs in order already, which a comparison sort through a function pointer makes
 * cost more than the work on them. */
void          _sl_sort_by_start      (gpointer v,
                                      gsize    n,
                                      gsize    size);

/* --- thread states (sl-analyze-states.c) --- */

/* A thread's time in [a, b) by state, from its thread-state lane. */
typedef struct
{
  gboolean any;                       /* it has a thread-state lane */
  gboolean derived;                   /* from samples and OS runtime calls, not scheduling data */
  SlTime   time[SL_N_THREAD_STATES];  /* by SlThreadState */
  guint32  block;                     /* the block reason with the most time, or SL_NO_LINK */
  guint32  call;                      /* the OS runtime call most of the blocked time falls in */
  SlTime   call_t;                    /* and that time (0: none) */
} SlStateTimes;

void          _sl_thread_states      (SlAnalyzeCtx *ctx,
                                      gint          thread,
                                      SlTime        a,
                                      SlTime        b,
                                      SlStateTimes *out);
/* Evidence rows saying how `thread` spent [a, b): running, runnable, blocked (why, in which
 * call), or that the trace has no evidence of it. */
void          _sl_evidence_states    (SlAnalyzeCtx *ctx,
                                      SlFinding    *f,
                                      gint          thread,
                                      SlTime        a,
                                      SlTime        b);

/* --- the DataLoader case (sl-analyze-workers.c) --- */

/* What a GPU's worker processes did on the CPU in [a, b), against the machine's cores. */
typedef struct
{
  guint       gpu;
  guint       n;            /* worker processes; 0: none known (the rest is empty) */
  gboolean    evidence;     /* some worker has thread states (scheduling data or derived) */
  gboolean    derived;      /* all of those are derived from CPU samples */
  double      busy;         /* mean cores the workers kept busy */
  double      all_busy;     /* mean cores all processes of the trace kept busy */
  guint       usable;       /* cores the workers can keep busy: one a worker, at most the
                             * machine's */
  guint       cores;        /* the machine's, 0 when unknown */
  gboolean    cores_at_least; /* `cores` is a lower bound */
  const char *cores_from;   /* where `cores` comes from */
  gsize       samples;      /* the workers' CPU samples */
  gsize       top_n;        /* how many of them are in the top function */
  guint32     top_symbol, top_module;
} SlWorkers;

/* Fills each GPU's workers and worker_threads (from SlProcess.parent_pid; none in nsys exports). */
void          _sl_analyze_find_workers (SlAnalyzeCtx *ctx);
/* The workers' load in [a, b), with their samples' top function when `samples`; `n` is 0 for a
 * GPU whose process has no worker processes. */
void          _sl_workers            (SlAnalyzeCtx *ctx,
                                      guint         gpu,
                                      SlTime        a,
                                      SlTime        b,
                                      gboolean      samples,
                                      SlWorkers    *out);
/* The workers keep the cores they can use busy (3/4 or more of them, on average). */
gboolean      _sl_workers_busy       (const SlWorkers *w);
/* The machine's cores are all busy (9/10 or more, all processes), as far as the trace knows. */
gboolean      _sl_workers_saturated  (const SlWorkers *w);
/* The finding points at the DataLoader: the workers keep their cores busy while the main thread
 * waits (`main_waits`), or while the machine has no core left. */
gboolean      _sl_workers_point      (const SlWorkers *w,
                                      gboolean         main_waits);
/* Evidence rows about the workers (none when there are none), saying when the trace has no
 * evidence of their CPU use. */
void          _sl_evidence_workers   (SlAnalyzeCtx    *ctx,
                                      SlFinding       *f,
                                      const SlWorkers *w);
/* The backtrace (OSRT_CALLCHAINS) of the thread's longest OS runtime call in [a, b) that has one,
 * as an evidence row, the call added to the finding's events; nothing when none has one. */
void          _sl_evidence_wait_backtrace (SlAnalyzeCtx *ctx,
                                           SlFinding    *f,
                                           gint          thread,
                                           SlTime        a,
                                           SlTime        b);
/* "4 worker processes ran 100% of 2 cores, 61% of their samples in collate (dataset.py:42)" */
char         *_sl_workers_text       (SlAnalyzeCtx    *ctx,
                                      const SlWorkers *w);
/* The conclusion: "the machine's 2 cores are saturated" / "12 of its 16 cores idle". */
char         *_sl_workers_verdict    (const SlWorkers *w);
/* The DataLoader advice fitted to the cores: more workers while cores idle, else a cheaper
 * loader. */
char         *_sl_workers_advice     (const SlWorkers *w);

/* --- unions of time spans (SlSpan arrays) --- */

/* Sorts and merges spans in place into a union. */
void          _sl_spans_merge        (GArray *spans);
/* Total length of the intersection of two unions. */
SlTime        _sl_spans_intersect    (GArray *x,
                                      GArray *y);
SlTime        _sl_spans_total        (GArray *x);
/* The parts of a lane's events inside [a, b), appended (not merged). */
void          _sl_spans_add_overlap  (const SlLane *lane,
                                      SlTime        a,
                                      SlTime        b,
                                      GArray       *out);

/* --- the idle account (sl-analyze-idle.c) --- */

/* The GPU's idle account, built on first use: the idle spans of its busy union (kernels, copies,
 * sets) in the window, each piece given one SlIdleCause.  O((ops + calls in idle time) log n). */
SlIdleAccount *_sl_idle_account     (SlAnalyzeCtx *ctx,
                                     guint         gpu);
void           _sl_idle_account_free (SlIdleAccount *account);
const char    *_sl_idle_cause_name  (SlIdleCause   cause);
/* Idle time of `causes` (a mask of 1 << SlIdleCause) in [a, b). */
SlTime         _sl_idle_in          (SlIdleAccount *account,
                                     guint          causes,
                                     SlTime         a,
                                     SlTime         b);

/* A span a finding asks to be given idle time in; `attributed` is added to. */
typedef struct
{
  SlTime  s, e;
  SlTime *attributed;
} SlIdleRequest;

/* Gives each request the idle time of `causes` in its span that no finding has been given yet,
 * and marks it given.  Requests may overlap: a nanosecond goes to the one that starts first.
 * Rules ask in a fixed order (the most specific cause first), so two findings never spend the
 * same nanosecond of a GPU's idle time.  O(requests log n + pieces). */
void           _sl_idle_attribute   (SlAnalyzeCtx *ctx,
                                     guint         gpu,
                                     guint         causes,
                                     GArray       *requests);
/* Marks f as a view of the idle account: cost = attributed idle, evidence attributed_idle_ns. */
void           _sl_finding_set_attributed (SlFinding *f,
                                           SlTime     attributed);

/* The GPU's time over its account's window: busy by what, idle by cause, attributed. */
void           _sl_gpu_time         (SlAnalyzeCtx *ctx,
                                     guint         gpu,
                                     SlGpuTime    *out);

/* What covers most of [a, b) on the GPU's launching threads (SlBlame), a new one. */
SlBlame       *_sl_blame            (SlAnalyzeCtx *ctx,
                                     guint         gpu,
                                     SlTime        a,
                                     SlTime        b);
void           _sl_blame_free       (SlBlame      *blame);

/* --- the rules, in the files of their subject --- */

/* sl-analyze-gpu.c: how busy each GPU is and where it idles */
void _sl_rule_gpu_util        (SlAnalyzeCtx *ctx);
void _sl_rule_gpu_gaps        (SlAnalyzeCtx *ctx);
void _sl_rule_idle_breakdown  (SlAnalyzeCtx *ctx);
/* sl-analyze-bound.c: stretches where the CPU side or the GPU is the bottleneck */
void _sl_rule_cpu_bound       (SlAnalyzeCtx *ctx);
void _sl_rule_gpu_bound       (SlAnalyzeCtx *ctx);
void _sl_rule_copy_bound      (SlAnalyzeCtx *ctx);
/* sl-analyze-sync.c: CUDA calls that block the host */
void _sl_rule_sync_memcpy     (SlAnalyzeCtx *ctx);
void _sl_rule_pageable_memcpy (SlAnalyzeCtx *ctx);
void _sl_rule_sync_memset     (SlAnalyzeCtx *ctx);
void _sl_rule_sync_api        (SlAnalyzeCtx *ctx);
/* sl-analyze-kernels.c: kernels too small, too late or at low occupancy */
void _sl_rule_tiny_kernels    (SlAnalyzeCtx *ctx);
void _sl_rule_low_occupancy   (SlAnalyzeCtx *ctx);
void _sl_rule_tail_effect     (SlAnalyzeCtx *ctx);
/* sl-analyze-idle.c */
void _sl_rule_launch_latency  (SlAnalyzeCtx *ctx);
void _sl_rule_straggler       (SlAnalyzeCtx *ctx);
/* sl-analyze-mpi.c */
void _sl_rule_mpi_straggler   (SlAnalyzeCtx *ctx);
/* sl-analyze-memory.c */
void _sl_rule_memory_churn    (SlAnalyzeCtx *ctx);
void _sl_rule_memory_growth   (SlAnalyzeCtx *ctx);
void _sl_rule_memory_peak     (SlAnalyzeCtx *ctx);
void _sl_rule_um_migrations   (SlAnalyzeCtx *ctx);
/* sl-analyze-metrics.c: kernels the GPU metrics show leaving SMs idle or holding few warps */
void _sl_rule_low_sm_activity (SlAnalyzeCtx *ctx);

G_END_DECLS
