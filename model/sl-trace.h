/* sl-trace.h: a whole trace in memory: processes, threads, GPUs, lanes of events, strings. */
#pragma once

#include <gio/gio.h>

#include "sl-types.h"

G_BEGIN_DECLS

#define SL_TRACE_ERROR (sl_trace_error_quark ())

typedef enum
{
  SL_TRACE_ERROR_OPEN,       /* not readable, not SQLite, corrupt or truncated */
  SL_TRACE_ERROR_NOT_TRACE,  /* SQLite, but not an nsys-schema trace */
  SL_TRACE_ERROR_CORRUPT,    /* a table is unreadable, or the trace too large */
  SL_TRACE_ERROR_MERGE,      /* traces that cannot be merged, a name to align on not found */
  SL_TRACE_ERROR_NSYS_REPORT, /* an nsys report (.nsys-rep, .qdrep), not its SQLite export:
                               * sl-nsys-report.h exports it */
} SlTraceError;

GQuark sl_trace_error_quark (void);

typedef struct
{
  guint64 global_pid;
  guint32 pid;
  guint32 name;              /* string id */
  guint32 parent_pid;        /* 0 = unknown (nsys exports have none: SL_PROCESS_INFO does) */
  guint32 command_line;      /* string id, SL_NO_STR = unknown */
  gint32  rank;              /* its rank in a distributed job (SL_PROCESS_INFO.rank, from RANK,
                              * SLURM_PROCID, OMPI_COMM_WORLD_RANK or PMI_RANK), -1 = unknown */
  guint32 source;            /* index of its trace among the merged ones (0 for one trace) */
} SlProcess;

typedef struct
{
  guint64 global_tid;
  guint32 pid;
  guint32 tid;
  guint32 name;              /* string id, SL_NO_STR when unnamed */
  guint32 process;           /* index into the process table */
  gint64  priority;          /* ThreadNames.priority, SL_NO_PRIORITY when the file has none */
  guint32 source;            /* index of its trace among the merged ones (0 for one trace) */
} SlThread;

#define SL_NO_PRIORITY G_MININT64

typedef struct
{
  guint32     device_id;     /* deviceId of the activity tables */
  guint32     name;          /* string id, "GPU n" when the file has no description */
  guint32     bus_location;
  guint32     uuid;
  guint32     chip_name;
  gint64      total_memory;  /* bytes, 0 when unknown */
  gint64      memory_bandwidth; /* bytes/s */
  gint64      clock_rate;    /* Hz */
  gboolean    described;     /* FALSE when neither TARGET_INFO_GPU nor TARGET_INFO_CUDA_GPU
                              * has it */
  SlGpuLimits limits;        /* as in the file, completed from compute-capability tables */
  guint32     source;        /* index of its trace among the merged ones (0 for one trace): GPU 0
                              * of two ranks is two SlGpu */
} SlGpu;

/* A message nsys recorded about the collection (DIAGNOSTIC_EVENT): "No CUDA events collected". */
typedef struct
{
  SlTime  timestamp;         /* ns, as the file has it (the session's clock) */
  gint32  severity;          /* SlDiagnosticSeverity's values: ENUM_DIAGNOSTIC_SEVERITY_LEVEL */
  gint32  source;            /* ENUM_DIAGNOSTIC_SOURCE_TYPE: 1 injection, 2 daemon, 3 analysis */
  guint32 text;              /* string id */
  guint64 global_pid;        /* 0 when none */
} SlDiagnostic;

enum
{
  SL_DIAGNOSTIC_UNKNOWN = 0,
  SL_DIAGNOSTIC_INFO = 1,
  SL_DIAGNOSTIC_WARNING = 2,
  SL_DIAGNOSTIC_ERROR = 3,
  SL_DIAGNOSTIC_VERBOSE = 4,
};

/* One row on screen.  `events` is sorted by start. */
struct _SlLane
{
  SlLaneKind kind;
  guint32    index;          /* position in the trace's lane table */
  guint32    base;           /* global id of events[0]; global ids are dense across lanes */
  gint32     thread;         /* index into the thread table, -1 for GPU lanes */
  gint32     gpu;            /* index into the GPU table, -1 for CPU lanes */
  guint64    global_pid;     /* owning process (GPU lanes too) */
  guint32    context_id;
  guint32    green_context_id; /* 0 when the work ran in no green context */
  guint32    stream_id;
  guint32    depth;          /* nesting depth for NVTX and CUDA API lanes */
  guint32    label;          /* string id: "CUDA API", "NVTX 0", "Stream 7 kernels" … */
  SlEvent   *events;
  gsize      n_events;
  SlTime    *max_end;        /* implicit interval tree; NULL when ends never decrease */
  gint       max_level;      /* height of that tree */
  SlTime     busy;           /* sum of durations */
  SlTime    *busy_prefix;    /* private: durations summed every SL_BUSY_STRIDE events */
  struct _SlLodLevel *lod;   /* private: precomputed time buckets for zoomed-out views */
  guint      n_lod;
  SlTime     lod_origin;
  guint32    source;         /* index of its trace among the merged ones (0 for one trace) */
  struct _SlEventsMap *events_map; /* private: the cache file mapping that holds `events`
                                    * (sl-trace-cache.c), NULL when they were allocated */
  /* private, a live trace's (sl-trace-extend.c): the block holding `events`, shared with the
   * lanes of the traces appended to it, and the one holding max_end, busy_prefix and lod,
   * shared with the next trace's lane while the lane does not change; NULL when it owns them */
  struct _SlLaneStore *store;
  struct _SlLaneIdx   *idx;
};

/* Progress: fraction in [0,1], never decreasing, and what is being read; called from the thread
 * that called sl_trace_load() or from the helper thread it starts, never concurrently. */
typedef void (*SlProgressFunc) (double fraction, const char *what, gpointer user_data);

/* Which tables a load reads; a stats run needs only some of them. */
typedef enum
{
  SL_LOAD_CUDA_API = 1 << 0,
  SL_LOAD_KERNELS  = 1 << 1,
  SL_LOAD_MEMCPY   = 1 << 2,
  SL_LOAD_MEMSET   = 1 << 3,
  SL_LOAD_SYNC     = 1 << 4,
  SL_LOAD_NVTX     = 1 << 5,
  SL_LOAD_OSRT     = 1 << 6,
  SL_LOAD_SAMPLES  = 1 << 7,
  SL_LOAD_SCHED    = 1 << 9,   /* SCHED_EVENTS, or thread states derived from samples / OSRT */
  SL_LOAD_ALL      = 0xFF | SL_LOAD_SCHED,
  /* The file is being written (a recording in progress): open it as an ordinary reader that
   * takes SQLite's shared lock and waits for the writer's commits, instead of immutable. */
  SL_LOAD_LIVE     = 1 << 8,
} SlLoadFlags;

SlTrace          *sl_trace_load              (const char     *path,
                                              SlLoadFlags     flags,
                                              SlProgressFunc  progress,
                                              gpointer        user_data,
                                              GCancellable   *cancellable,
                                              GError        **error);
/* A newer state of a trace loaded with SL_LOAD_LIVE, whose file is still being written: a new
 * trace made of `trace` and the rows committed since it was read (past the last rowid it read of
 * each event table), for the live view of a recording.  `trace` is left as it was (the viewer
 * keeps drawing it while the next one is built on another thread).  Where the file changed in a
 * way appending cannot follow (its schema, rows gone, another file in its place) or `trace` was
 * not loaded live, the file is loaded whole instead (said by g_debug).  NULL and `error` when
 * that fails or `cancellable` was cancelled. */
SlTrace          *sl_trace_append            (SlTrace        *trace,
                                              GCancellable   *cancellable,
                                              GError        **error);
/* Called on the loading thread with a first look at the file (its own reference to take). */
typedef void (*SlFirstLookFunc) (SlTrace *first_look, gpointer user_data);
/* sl_trace_load (SL_LOAD_ALL) for the viewer, with a first look at a big file: when `path` is
 * an SQLite trace of at least SIGHTLINE_FIRST_LOOK_MIN bytes (default 128 MiB) that the model
 * cache does not hold, `first_look` is given a trace of the first SL_FIRST_LOOK_SHARE of the rows
 * of each event table (by rowid, the order they were written), marked as loading from where the
 * least advanced table stopped and ending where the whole file does (sl_trace_get_loading), and
 * the rest is then appended to it (sl_trace_append).  The result is the whole trace as
 * sl_trace_load gives it (and cached as it caches). */
#define SL_FIRST_LOOK_SHARE 0.05
SlTrace          *sl_trace_load_progressive  (const char     *path,
                                              SlFirstLookFunc first_look,
                                              SlProgressFunc  progress,
                                              gpointer        user_data,
                                              GCancellable   *cancellable,
                                              GError        **error);
SlTrace          *sl_trace_ref               (SlTrace        *trace);
void              sl_trace_unref             (SlTrace        *trace);

const char       *sl_trace_get_path          (SlTrace        *trace);
/* Schema version as the file states it ("3.25.0"), or a description for older layouts. */
const char       *sl_trace_get_schema        (SlTrace        *trace);
SlTime            sl_trace_get_start         (SlTrace        *trace);
SlTime            sl_trace_get_end           (SlTrace        *trace);
/* Time 0 of every offset a person reads ("+189.3 ms": the ruler, the detail pane, findings,
 * events, `sightline info` and `analyze`): the profiling session's start where the trace has
 * one, as nsys-ui counts, else its first event (sl_trace_get_start).  An nsys export's times
 * are on the session's own time line already (0 is its start: every event of a real export lies
 * within META_DATA_CAPTURE's RUN_DURATION_MS of it; ANALYSIS_DETAILS.startTime and
 * TARGET_INFO_SESSION_START_TIME.systemClockNs are on the target's clock, not that line), so its
 * origin is 0, or the `--ts-shift` the export records; a Sightline recording's is its session's
 * start on its own clock (TARGET_INFO_SESSION_START_TIME.systemClockNs).  Kineto JSON and an
 * `--ts-normalize`d export have no session start: their first event.  A merged trace: the
 * earliest origin of its files on the merged axis. */
SlTime            sl_trace_get_origin        (SlTrace        *trace);
/* A first look at a file whose rows are still being read (a big file opened in the viewer):
 * TRUE, with the time from which its events are not all in yet and the share of the file's rows
 * read so far (0..1); its end is already the whole file's, so that views span it.  FALSE for a
 * whole trace. */
gboolean          sl_trace_get_loading       (SlTrace        *trace,
                                              SlTime         *from,
                                              double         *share);
gsize             sl_trace_get_n_events      (SlTrace        *trace);
/* Global ids are below this: sl_trace_get_n_events(), or more in a trace of a recording in
 * progress, whose lanes keep ids for their later events (an id there resolves to nothing). */
gsize             sl_trace_get_n_ids         (SlTrace        *trace);
/* TRUE for a Kineto (PyTorch profiler) or Chrome trace-event JSON file, read by content (plain or
 * gzip), FALSE for anything else (an nsys SQLite export). */
gboolean          sl_trace_file_is_json      (const char     *path);
/* TRUE when the trace was read from JSON. */
gboolean          sl_trace_is_json           (SlTrace        *trace);
/* The rank of the trace in a distributed run, -1 when it does not say: Kineto's
 * distributedInfo.rank; for an nsys export the recorded environment of the program
 * (META_DATA_CAPTURE's PROCESS_0:ENVIRONMENT_VARIABLE: RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK,
 * PMI_RANK, the first set); for a Sightline recording the rank its processes share (-1 when
 * they have several: `sightline record -- torchrun …` holds every rank, each process its own). */
gint64            sl_trace_get_rank          (SlTrace        *trace);
/* The run's world size where the trace says (distributedInfo.world_size; WORLD_SIZE,
 * SLURM_NTASKS, OMPI_COMM_WORLD_SIZE, PMI_SIZE), else 0. */
gint64            sl_trace_get_world_size    (SlTrace        *trace);
/* Warnings collected while loading (rows skipped and why), NULL-terminated. */
const char *const*sl_trace_get_warnings      (SlTrace        *trace);
/* Bytes of memory the model holds for this trace (events, indexes, strings, tables). */
gsize             sl_trace_get_memory_size   (SlTrace        *trace);

const char       *sl_trace_str               (SlTrace        *trace,
                                              guint32         id);
/* How many strings there are: ids run from 0 to this, less one. */
guint             sl_trace_get_n_strs        (SlTrace        *trace);

guint             sl_trace_get_n_processes   (SlTrace        *trace);
const SlProcess  *sl_trace_get_process       (SlTrace        *trace,
                                              guint           i);
guint             sl_trace_get_n_threads     (SlTrace        *trace);
const SlThread   *sl_trace_get_thread        (SlTrace        *trace,
                                              guint           i);
guint             sl_trace_get_n_gpus        (SlTrace        *trace);
const SlGpu      *sl_trace_get_gpu           (SlTrace        *trace,
                                              guint           i);
/* nsys's own messages (DIAGNOSTIC_EVENT), in the order of their timestamps; none for a file
 * without that table. */
guint               sl_trace_get_n_diagnostics (SlTrace *trace);
const SlDiagnostic *sl_trace_get_diagnostic    (SlTrace *trace,
                                                guint    i);
/* "Info", "Warning", "Error", "Verbose" or "Unknown". */
const char         *sl_diagnostic_severity_name (gint32 severity);
/* Index of the GPU with that deviceId, or -1. */
gint              sl_trace_find_gpu          (SlTrace        *trace,
                                              guint32         device_id);

guint             sl_trace_get_n_lanes       (SlTrace        *trace);
const SlLane     *sl_trace_get_lane          (SlTrace        *trace,
                                              guint           i);

const SlKernelInfo *sl_trace_get_kernel_info (SlTrace        *trace,
                                              guint32         aux);
const SlCopyInfo *sl_trace_get_copy_info     (SlTrace        *trace,
                                              guint32         aux);
/* Frames of a CPU sample's call chain, leaf first: symbol and module string ids. */
guint             sl_trace_get_callchain     (SlTrace        *trace,
                                              guint32         aux,
                                              const guint32 **symbols,
                                              const guint32 **modules);

/* Frames of an OS runtime call's backtrace (OSRT_CALLCHAINS), leaf first, by the callchainId its
 * event holds in `corr`; 0 when the call has none (id 0, or one the file does not have). */
guint             sl_trace_get_osrt_callchain (SlTrace        *trace,
                                               guint32         callchain_id,
                                               const guint32 **symbols,
                                               const guint32 **modules);
/* Frames of a CUDA API call's backtrace (CUDA_CALLCHAINS, written by nsys --cudabacktrace),
 * leaf first, for event `ev` of `lane` (a CUDA API lane); 0 when the call has none. */
guint             sl_trace_get_cuda_callchain (SlTrace        *trace,
                                               const SlLane   *lane,
                                               const SlEvent  *ev,
                                               const guint32 **symbols,
                                               const guint32 **modules);
/* How many CUDA API calls have a backtrace (0: the file has no CUDA_CALLCHAINS). */
guint             sl_trace_get_n_cuda_callchains (SlTrace    *trace);

/* ---- CUDA events: records and the waits that consumed them (sl-trace-events.c) -----------------
 *
 * cudaEventRecord (event, stream) puts a marker in `stream`: the event completes when the work
 * queued on that stream before it has.  cudaStreamWaitEvent (other, event) then makes another
 * stream wait for that completion, cudaEventSynchronize (event) the host.  nsys writes a row of
 * CUPTI_ACTIVITY_KIND_CUDA_EVENT per record and a synchronization row (an SL_LANE_SYNC event) per
 * wait, naming the event; Kineto names the record's call in the wait (cuda_sync
 * "Stream Wait Event": wait_on_cuda_event_record_corr_id, wait_on_stream).  A wait is linked to
 * the record it consumed:
 *   - SL_EVENT_LINK_SYNC_ID: by eventSyncId, where the wait has one (nsys 2025.5 and later: it
 *     names that very record);
 *   - SL_EVENT_LINK_RECORD_CORR: by the record's correlation id, where the wait names it
 *     (Kineto);
 *   - SL_EVENT_LINK_LAST_RECORD: else by eventId, to the event's last record in the process whose
 *     cudaEventRecord call came before the wait's call (by correlation id, which CUDA hands out in
 *     call order; by start where the wait has none), as CUDA resolves a wait to the most recent
 *     record of the event.  Event ids are reused: 4000 records of 4 events in one real trace.
 * A synchronization row that names no event (cudaStreamSynchronize, cudaDeviceSynchronize: nsys
 * writes eventId 2^32 - 1) is no wait here.  A wait whose event has no record in the trace (none
 * collected, a dangling id) is a wait with SL_EVENT_LINK_NONE, shown as unknown.
 *
 * Built on first use, on any thread, once per trace: O(records × log + synchronization rows), and
 * a pass over the CUDA API calls named like cudaEventRecord; typically 10^2 … 10^5 records. */
typedef enum
{
  SL_EVENT_LINK_NONE,         /* the trace has no record of the event the wait names */
  SL_EVENT_LINK_SYNC_ID,      /* the record with the wait's eventSyncId */
  SL_EVENT_LINK_RECORD_CORR,  /* the record of the call the wait names (Kineto) */
  SL_EVENT_LINK_LAST_RECORD,  /* the event's last record before the wait's call */
} SlEventLink;

typedef struct
{
  guint64 global_pid;
  guint32 event_id;    /* CUDA's id of the event in its process (CUPTI's eventId) */
  guint32 device;
  guint32 context;
  guint32 stream;      /* the stream that recorded it */
  gint32  lane;        /* the lane of that stream its marker is drawn on (its kernels', else its
                        * copies', sets', graph launches' or synchronizations'), -1 when none */
  guint32 call;        /* global id of its cudaEventRecord call, SL_NO_LINK when not in the trace */
  guint32 work;        /* global id of the GPU work it completes after: the last kernel, copy, set
                        * or graph launch queued on the stream before it (by correlation id),
                        * SL_NO_LINK when none */
  guint32 corr;        /* its call's correlation id, 0 when none */
  guint32 sync_id;     /* eventSyncId, SL_NO_LINK when none */
  guint32 n_waits;     /* the waits that consumed it (sl_trace_get_event_record_waits) */
  SlTime  time;        /* when it completed on the stream: the device's timestamp where collected,
                        * else the later of the end of `work` and the start of `call`;
                        * G_MININT64 when neither is known (no marker) */
} SlEventRecord;

typedef struct
{
  guint32     event_id;  /* the event the wait names (SL_NO_LINK: only its record's call is
                          * named, Kineto) */
  SlEventLink how;       /* how it was linked; SL_EVENT_LINK_NONE: not */
  guint       record;    /* for sl_trace_get_event_record; G_MAXUINT when not linked */
} SlEventWait;

/* Records, ordered by process and correlation id. */
guint                sl_trace_get_n_event_records   (SlTrace        *trace);
const SlEventRecord *sl_trace_get_event_record      (SlTrace        *trace,
                                                     guint           record);
/* The event record a wait waited for.  `wait` is a global event id: a synchronization event
 * (SL_LANE_SYNC) or the CUDA API call that made it (cudaStreamWaitEvent, cudaEventSynchronize).
 * FALSE when it is neither or names no event (a stream or context synchronization, any other
 * event); TRUE with `out` filled otherwise: `out->record` is the record (its stream, time and the
 * GPU work before it in sl_trace_get_event_record), G_MAXUINT when the trace has none of it.
 * This signature is stable (the critical path walks it). */
gboolean             sl_trace_get_event_wait        (SlTrace        *trace,
                                                     guint32         wait,
                                                     SlEventWait    *out);
/* The waits that consumed record `record`: global ids of their synchronization events, by start. */
guint                sl_trace_get_event_record_waits (SlTrace        *trace,
                                                      guint           record,
                                                      const guint32 **waits);
/* The record a cudaEventRecord call made (`call`: the global id of a CUDA API event), FALSE
 * when it made none. */
gboolean             sl_trace_find_event_record     (SlTrace        *trace,
                                                     guint32         call,
                                                     guint          *record);
/* The records whose markers lie on lane `lane`, by time: indices for
 * sl_trace_get_event_record (none on a lane without). */
guint                sl_trace_get_lane_event_records (SlTrace       *trace,
                                                      guint          lane,
                                                      const guint32 **records);
/* Waits that name an event (or a record), and of those the ones linked to a record. */
void                 sl_trace_get_event_wait_counts (SlTrace        *trace,
                                                     guint          *waits,
                                                     guint          *linked);

/* ---- CUDA graph launches traced node by node (sl-graph-groups.c) -----------------------------
 *
 * With nsys --cuda-graph-trace=node a graph launch leaves no row of its own: its kernels are in
 * CUPTI_ACTIVITY_KIND_KERNEL with graphId and graphNodeId, and each carries the correlation id
 * of the cudaGraphLaunch call that ran it (CUPTI gives a kernel the id of the API call that
 * launched it; for a graph's nodes that is the graph launch).  A group is one launch's kernels
 * on one stream: the same graphId and correlation id (kernels with no correlation id: a run of
 * the same graphId), from its first node's start to its last node's end.  Built on first use,
 * on any thread, once per trace: one pass over the kernels, typically 10^2 … 10^5 launches of
 * 10 … 10^3 nodes each. */
typedef struct
{
  SlTime  start;     /* its first node's start */
  SlTime  end;       /* its last node's end */
  guint32 lane;      /* the kernels lane of its stream */
  guint32 graph_id;
  guint32 corr;      /* the launch's correlation id, 0 when its kernels have none */
  guint32 launch;    /* global id of the cudaGraphLaunch call, SL_NO_LINK when not in the trace */
  guint32 first;     /* its nodes are the lane indices nodes[first … first + n_nodes - 1] of
                      * sl_trace_get_graph_group_nodes, by start */
  guint32 n_nodes;
} SlGraphGroup;

/* The groups on lane `lane` (a kernels lane; none on others), by start. */
guint               sl_trace_get_graph_groups      (SlTrace             *trace,
                                                    guint                lane,
                                                    const SlGraphGroup **groups);
/* All the groups of the trace, by lane and start. */
guint               sl_trace_get_n_graph_groups    (SlTrace             *trace);
/* Lane indices of the nodes of `group` (one of the trace's), by start. */
const guint32      *sl_trace_get_graph_group_nodes (SlTrace             *trace,
                                                    const SlGraphGroup  *group);
/* The group that kernel `index` of lane `lane` is a node of; NULL for a kernel of no graph. */
const SlGraphGroup *sl_trace_find_graph_group      (SlTrace             *trace,
                                                    guint                lane,
                                                    gsize                index);

/* Where a CUDA graph or graph node was made: a row of CUDA_GRAPH_EVENTS (graph creation,
 * instantiation, clone) or CUDA_GRAPH_NODE_EVENTS (node creation, or its clone into an
 * executable graph), in the columns nsys's schema reference gives them: start, end, eventClass,
 * globalTid, nameId, graphId, originalGraphId, graphExecId / graphNodeId, originalGraphNodeId.
 * They name no API call: the call is the CUDA API call of that thread whose span holds the row
 * (cudaStreamEndCapture, cudaGraphInstantiate, cudaGraphAddKernelNode, a kernel launched
 * during a capture …), found when first asked for. */
typedef enum
{
  SL_GRAPH_MADE_GRAPH,  /* CUDA_GRAPH_EVENTS */
  SL_GRAPH_MADE_NODE,   /* CUDA_GRAPH_NODE_EVENTS */
} SlGraphMadeKind;

typedef struct
{
  SlGraphMadeKind kind;
  gint32  event_class;  /* ENUM_NSYS_EVENT_CLASS: 95 graph creation, 94 exec creation, 96 clone,
                         * 77 node creation */
  SlTime  start;
  SlTime  end;
  guint64 global_tid;
  guint64 id;           /* graphId, or graphNodeId */
  guint64 original;     /* originalGraphId / originalGraphNodeId, 0 when none (not a clone) */
  guint64 exec_id;      /* graphExecId, 0 when none; 0 for a node */
  guint32 name;         /* nameId's string ("Graph Creation" …), SL_NO_STR when none */
  guint32 reserved;
} SlGraphMade;

guint               sl_trace_get_n_graph_made      (SlTrace             *trace);
const SlGraphMade  *sl_trace_get_graph_made        (SlTrace             *trace,
                                                    guint                i);
/* The rows about graph `graph_id` (its creation, instantiation, clones), or about node
 * `node_id` and the nodes it was cloned from, oldest first: indices for sl_trace_get_graph_made;
 * returns how many were written to `out` (at most `max`). */
guint               sl_trace_find_graph_made       (SlTrace             *trace,
                                                    SlGraphMadeKind      kind,
                                                    guint64              id,
                                                    guint               *out,
                                                    guint                max);
/* The CUDA API call that made row `i` (global id), SL_NO_LINK when the trace has none. */
guint32             sl_trace_get_graph_made_call   (SlTrace             *trace,
                                                    guint                i);

/* One row of CUDA_GPU_MEMORY_USAGE_EVENTS (nsys --cuda-memory-usage): an allocation or a free
 * of `bytes` at `address`, made by the CUDA call of that process with correlation id `corr`.
 * Sorted by time (sl-memory.h builds the bytes in use and the allocations from them). */
typedef enum
{
  SL_MEM_ALLOC = 0,   /* ENUM_CUDA_DEV_MEM_EVENT_OPER */
  SL_MEM_FREE  = 1,
} SlMemOp;

typedef struct
{
  SlTime  start;
  guint64 global_pid;
  guint64 address;
  guint64 bytes;
  guint64 pc;           /* the allocating instruction, 0 when none */
  gint32  gpu;          /* index into the GPU table */
  guint32 context;
  guint32 name;         /* a variable's name (static allocations), SL_NO_STR when none */
  guint32 corr;         /* the CUDA call's correlation id, 0 when none */
  guint32 seq;          /* the row's place in the file: ties in time keep the file's order */
  guint8  mem_kind;     /* ENUM_CUDA_MEM_KIND: 0 pageable, 1 pinned, 2 device, 3 array, 4
                         * managed, 5 device static, 6 managed static, 7 unknown */
  guint8  op;           /* SlMemOp */
  guint8  reserved[2];  /* 0: no padding of unknown bytes in the model cache */
} SlMemUsage;

G_STATIC_ASSERT (sizeof (SlMemUsage) == 64);

guint               sl_trace_get_n_mem_usage       (SlTrace             *trace);
const SlMemUsage   *sl_trace_get_mem_usage         (SlTrace             *trace,
                                                    guint                i);

/* One row of CUDA_UM_GPU_PAGE_FAULT_EVENTS (nsys --cuda-um-gpu-page-faults: a group of
 * `n_faults` faults of GPU `gpu` on the page at `address`, handled from `start` to `end`) or of
 * CUDA_UM_CPU_PAGE_FAULT_EVENTS (--cuda-um-cpu-page-faults: one fault of the host at `address`,
 * `end` == `start`, `gpu` -1).  Both tables in one array, sorted by time (sl-um-faults.c). */
typedef enum
{
  SL_UM_FAULT_GPU = 0,
  SL_UM_FAULT_CPU = 1,
} SlUmFaultSide;

typedef struct
{
  SlTime  start;
  SlTime  end;
  guint64 global_pid;
  guint64 address;
  guint32 n_faults;     /* numberOfPageFaults; 1 for a CPU fault */
  gint32  gpu;          /* index into the GPU table; -1 for a CPU fault */
  guint32 seq;          /* the row's place in its table: ties in time keep the file's order */
  guint8  side;         /* SlUmFaultSide */
  guint8  access;       /* faultAccessType (ENUM_CUDA_UNIF_MEM_ACCESS_TYPE: 0 unknown, 1 read,
                         * 2 write, 3 atomic, 4 prefetch); 0 for a CPU fault */
  guint8  reserved[2];  /* 0: no padding of unknown bytes in the model cache */
  /* a CPU fault's CpuInstruction and sourceFile (string ids, SL_NO_STR when absent, as for a GPU
   * fault) and sourceLine (0 when absent): um_cpu_page_faults_sum's groups, kept for the export */
  guint32 instruction;
  guint32 source_file;
  guint32 source_line;
  guint32 reserved2;
} SlUmFault;

G_STATIC_ASSERT (sizeof (SlUmFault) == 64);

guint               sl_trace_get_n_um_faults       (SlTrace             *trace);
const SlUmFault    *sl_trace_get_um_fault          (SlTrace             *trace,
                                                    guint                i);

/* The event `ref` of `from` in `to`, another load of the same file (a live update, the file
 * loaded afresh): in the lane of `to` that holds the same thread's (at any depth) or the same
 * stream's events of that kind, the event with the same start and name, and the same end where
 * several match.  FALSE (and SL_EVENT_REF_NONE) when `to` does not have it. */
/* The lane of `to`, another load of the same file, that holds what lane `lane` of `from` does
 * (the same thread's events of that kind at that depth, or the same stream's); -1 when none. */
gint              sl_trace_find_same_lane    (SlTrace        *from,
                                              guint           lane,
                                              SlTrace        *to);
gboolean          sl_trace_find_same_event   (SlTrace        *from,
                                              SlEventRef      ref,
                                              SlTrace        *to,
                                              SlEventRef     *out);

/* Global event ids: lane->base + index.  Returns FALSE when the id is out of range. */
gboolean          sl_trace_resolve           (SlTrace        *trace,
                                              guint32         global_id,
                                              const SlLane  **lane,
                                              gsize          *index);

/* Label of an enum value as the file's ENUM_* table names it, or the built-in label. */
typedef enum
{
  SL_ENUM_MEMCPY_OPER,
  SL_ENUM_MEM_KIND,
  SL_ENUM_SYNC_TYPE,
  SL_ENUM_EVENT_CLASS,
  SL_ENUM_LAUNCH_TYPE,
  SL_ENUM_THREAD_STATE,
  SL_ENUM_THREAD_BLOCK,
  SL_ENUM_DIAGNOSTIC_SEVERITY,  /* ENUM_DIAGNOSTIC_SEVERITY_LEVEL */
  SL_ENUM_DIAGNOSTIC_SOURCE,    /* ENUM_DIAGNOSTIC_SOURCE_TYPE */
  SL_ENUM_UM_MIGRATION,         /* ENUM_CUDA_UNIF_MEM_MIGRATION: a migration's cause */
  SL_N_ENUMS
} SlEnum;

const char       *sl_trace_enum_label        (SlTrace        *trace,
                                              SlEnum          which,
                                              gint64          value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlTrace, sl_trace_unref)

/* ---- several traces on one time axis (sl-trace-merge.c) ---------------------------------------
 *
 * Files of one distributed job (a trace per rank, nsys exports and Kineto JSON mixed) become one
 * SlTrace: each file is a source, and its processes, threads, GPUs and lanes say which
 * (`source`).  Times are put on the wall clock of the file that started first; a file's
 * times plus its `offset` are its times in the merged trace. */
typedef struct
{
  char    *path;
  char    *label;       /* "rank 3" when the file says its rank, else its base name; unique in
                         * the trace ("rank 0 (b.json.gz)" when two files say rank 0) */
  gint64   rank;        /* -1 when the file does not say */
  SlTime   offset;      /* added to the file's own times */
  SlTime   wall_start;  /* wall clock at its first event, ns since 1970 (UTC); 0 when the file
                         * has no wall clock */
  SlTime   start;       /* its first event and last end, on the merged axis */
  SlTime   end;
  gsize    n_events;
  gboolean has_clock;   /* FALSE: the file has no wall clock; unless an offset was given, its
                         * first event was put at that of the earliest file */
} SlSource;

/* An offset that says "from the wall clocks", in the `offsets` of the functions below. */
#define SL_OFFSET_AUTO G_MININT64

/* One for a trace of one file. */
guint             sl_trace_get_n_sources     (SlTrace        *trace);
const SlSource   *sl_trace_get_source        (SlTrace        *trace,
                                              guint           i);

/* One trace of `n` loaded ones.  Takes the references in `traces` (whatever the outcome) and
 * moves their events, without copying them: each must be held by nobody else (a reference
 * count of 1) and come from one file.  `offsets` (NULL: all SL_OFFSET_AUTO) gives a file's
 * offset on the merged axis; SL_OFFSET_AUTO aligns it by the wall clocks.  Files that do not
 * overlap in time, or say the same rank, are warnings of the merged trace. */
SlTrace          *sl_trace_merge             (SlTrace       **traces,
                                              guint           n,
                                              const SlTime   *offsets,
                                              GError        **error);

/* Loads `n` files in parallel (on every core) and merges them.  A file that cannot be read is
 * left out with a warning naming it; an error only when none can be read, or when cancelled. */
SlTrace          *sl_trace_load_merged       (const char *const *paths,
                                              guint           n,
                                              SlLoadFlags     flags,
                                              const SlTime   *offsets,
                                              SlProgressFunc  progress,
                                              gpointer        user_data,
                                              GCancellable   *cancellable,
                                              GError        **error);

/* Loads `n` files in parallel (on every core), each its own trace, in the order of `paths`, for
 * what is computed rank by rank (`sightline stats --merge`).  Unlike sl_trace_load_merged, a
 * file that cannot be read is an error (the loader's, naming the file), and no trace is kept. */
GPtrArray        *sl_trace_load_each         (const char *const *paths,
                                              guint           n,
                                              SlLoadFlags     flags,
                                              SlProgressFunc  progress,
                                              gpointer        user_data,
                                              GCancellable   *cancellable,
                                              GError        **error);

/* The labels (SlSource's) that sl_trace_merge would give these traces of one file each, as
 * a NULL-terminated array to g_strfreev. */
char            **sl_trace_rank_labels       (SlTrace *const *traces,
                                              guint           n);

/* The offset for `source` that puts the first occurrence of `name` (an NVTX range or mark, a
 * kernel, a CUDA or OS call: an event's exact name) in it at the first occurrence of `name`
 * in source 0; give it in `offsets` to merge again.  FALSE when either source lacks the name. */
gboolean          sl_trace_align_on          (SlTrace        *trace,
                                              guint           source,
                                              const char     *name,
                                              SlTime         *offset,
                                              GError        **error);

/* As sl_trace_align_on, on the start of training step `step` (0: the first; the steps that
 * sl_trace_steps finds, NVTX or ProfilerStep#N ranges, on the source's own threads): two runs
 * compared step by step.  FALSE when either source has no such step. */
gboolean          sl_trace_align_on_step     (SlTrace        *trace,
                                              guint           source,
                                              guint           step,
                                              SlTime         *offset,
                                              GError        **error);

G_END_DECLS
