/* sl-trace-private.h: the insides of SlTrace, shared by the loader, the store and the queries. */
#pragma once

#include <sqlite3.h>

#include "sl-trace.h"

G_BEGIN_DECLS

/* Durations are summed every SL_BUSY_STRIDE events, so any range's busy time costs O(stride). */

/* Sums of durations saturate: a hostile file's times reach ±2^61, and a lane adds up millions. */
static inline SlTime
_sl_time_add (SlTime a,
              SlTime b)
{
  SlTime sum;
  if (__builtin_add_overflow (a, b, &sum))
    return b > 0 ? G_MAXINT64 : G_MININT64;
  return sum;
}

#define SL_BUSY_STRIDE 16

/* Level-of-detail pyramid of a lane: the lane's span cut into buckets of `width` ns (4 times
 * wider at each level), each knowing its first event, its longest event, the busy time before
 * it and the two event times a fold that starts or ends at its edge needs.  A zoomed-out frame
 * then reads buckets, not events: on 10^6-event lanes each event read was a cache miss, ~85% of
 * the LOD time of a frame, so the edge times pay for themselves.  They are kept as 32-bit
 * offsets from the bucket's own start (24 bytes a bucket, not 32: 2.7 bytes an event less on
 * lanes of 10^5 … 10^6 events); one too far for that (a gap, a long event, the coarse levels
 * of an hour-long trace) is SL_LOD_FAR and read from the event.  Relative, they also stay true
 * when a merged trace moves the lane: only lod_origin shifts. */
#define SL_LOD_FAR_START G_MAXUINT32
#define SL_LOD_FAR_END   G_MININT32
typedef struct
{
  guint32 first;        /* index of the first event starting in this bucket or later */
  guint32 max_dur;      /* longest event starting in it, clamped to 2^32-1 ns */
  SlTime  busy_before;  /* summed duration of events [0, first) */
  guint32 start_off;    /* start of event `first` - the bucket's start, or SL_LOD_FAR_START */
  gint32  end_off;      /* end of event `first - 1` - the bucket's start, or SL_LOD_FAR_END */
} SlLodBucket;

typedef struct _SlLodLevel
{
  SlTime       width;
  gsize        n;       /* buckets; bucket n-1 ends after the last event's start */
  SlLodBucket *b;
} SlLodLevel;

void    _sl_lane_build_lod    (SlLane *lane);
/* The levels of detail with finest buckets of `width` from `origin` (the first event's start). */
void    _sl_lane_build_lod_width (SlLane *lane,
                                  SlTime  origin,
                                  SlTime  width);
/* `lane`'s levels of detail, made of `prev`'s: lane holds prev's events and more after them (an
 * append, sl-trace-extend.c); prev's buckets' width kept while it suits the lane. */
void    _sl_lane_extend_lod   (SlLane       *lane,
                               const SlLane *prev);
void    _sl_lane_free_lod     (SlLane *lane);

/* Union of busy intervals of one GPU: sorted, disjoint, stored compactly in chunks of
 * SL_BUSY_CHUNK intervals, as 32-bit offsets from the chunk's base and 32-bit lengths (all
 * starting within 2^32 ns of the base): 9 bytes an interval instead of 24, for unions of
 * 10^6 … 10^7 intervals.  A chunk is 128 bytes, two cache lines exactly (the chunks start on a
 * line), since a query reads its header and its first pieces and a frame asks ~3 k of them: with
 * 16 pieces (144 bytes, across three lines) the utilization of a frame took 1.6 times as long.
 * Pieces past a chunk's intervals have length 0.  The rare interval of 2^32 ns (4.3 s) or more
 * has length SL_BUSY_LONG and its true length in a side table. */
#define SL_BUSY_LONG  G_MAXUINT32
#define SL_BUSY_CHUNK 14
typedef struct
{
  guint32 off;        /* start - chunk base */
  guint32 len;
} SlBusyPiece;

typedef struct
{
  SlTime      base;   /* start of the chunk's first interval */
  SlTime      prefix; /* busy time of every interval before the chunk */
  SlBusyPiece p[SL_BUSY_CHUNK];
} SlBusyChunk;

G_STATIC_ASSERT (sizeof (SlBusyChunk) == 128);

typedef struct
{
  SlBusyChunk *chunks;
  gsize        n_chunks;
  gsize        n;           /* intervals */
  guint32     *long_index;  /* sorted chunk * SL_BUSY_CHUNK + piece of the long ones */
  SlTime      *long_len;
  gsize        n_long;
  /* where to start looking for an instant: idx[b] chunks have their base before
   * idx_origin + b * idx_width (about one chunk a bucket) */
  guint32     *idx;
  gsize        n_idx;
  SlTime      *bases;       /* chunks[k].base, dense: a search reads 8 a cache line */
  SlTime       idx_origin, idx_width;
} SlBusyUnion;

typedef struct
{
  SlBusyUnion kernels;
  SlBusyUnion any;
} SlGpuBusy;

/* What the loader made of one table of the file, for the inventory (sl-inventory.c): the rows
 * its SELECT returned and, by cause, those skipped (not loaded) and those repaired (loaded). */
typedef struct
{
  char       *table;
  const char *not_read;   /* static: why the table was not read at all, or NULL */
  guint64     rows;
  guint64     null_time;  /* skipped: a NULL start or end */
  guint64     bad_type;   /* skipped: a start or end that is not a number */
  guint64     null_owner; /* skipped: no thread or process */
  guint64     not_events; /* skipped: rows that are not events (NVTX domain names …) */
  guint64     bad_range;  /* repaired: clamped to ±73 years */
  guint64     bad_order;  /* repaired: end before start */
} SlTableRead;

/* A backtrace of OSRT_CALLCHAINS: its id in the file (an OS runtime call's callchainId, its
 * event's corr) and its chain in the call-chain table. */
typedef struct
{
  guint32 id;
  guint32 chain;
} SlChainId;

/* A CUDA API call's backtrace (CUDA_CALLCHAINS, nsys --cudabacktrace): the call is named by its
 * process, correlation id and event class (nsys writes a backtraced call twice, one correlation
 * id: the call with its callchainId, class 67, and the runtime's own row, class 0, without), as
 * its event has no field left; typically 10^1 … 10^4 of them, calls over nsys's threshold. */
typedef struct
{
  guint64 global_pid;
  guint32 corr;
  guint32 event_class;  /* the low 8 bits of a CUDA API event's aux */
  guint32 chain;
  guint32 reserved;     /* 0: no padding of unknown bytes in the cache file */
} SlCudaChain;

/* A CUDA event record (CUPTI_ACTIVITY_KIND_CUDA_EVENT, or a Kineto wait's
 * wait_on_cuda_event_record_corr_id): which stream recorded which event, tied to its
 * cudaEventRecord call by process and correlation id.  Raw, as read (no global ids: a merge moves
 * it by process tag and time offset only); the links are sl-trace-events.c's, made on first use.
 * Typically 10^2 … 10^5 of them, one per cudaEventRecord call. */
typedef struct
{
  guint64 global_pid;
  SlTime  timestamp;    /* device-side completion, 0 when not collected (nsys before 2025.5) */
  guint32 corr;         /* the cudaEventRecord call's correlation id, 0 when none */
  guint32 event_id;     /* CUPTI's eventId */
  guint32 sync_id;      /* eventSyncId (nsys 2025.5+), SL_NO_LINK when none */
  guint32 device;
  guint32 context;
  guint32 stream;
} SlCudaEventRow;

G_STATIC_ASSERT (sizeof (SlCudaEventRow) == 40);

/* What a synchronization record says it waited for (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION's eventId
 * and eventSyncId, Kineto's wait_on_cuda_event_id and wait_on_cuda_event_record_corr_id), for a
 * row that names an event: its SL_LANE_SYNC event is the one of that process with this correlation
 * id and start.  Sorted by process, correlation id and start (_sl_trace_sort_event_waits). */
typedef struct
{
  guint64 global_pid;
  SlTime  start;
  guint32 corr;         /* the sync row's correlation id (its API call's), 0 when none */
  guint32 event_id;     /* SL_NO_LINK when the row names none */
  guint32 sync_id;      /* eventSyncId, SL_NO_LINK when none */
  guint32 record_corr;  /* the record's correlation id where the file names it (Kineto), else 0 */
} SlCudaWaitRow;

G_STATIC_ASSERT (sizeof (SlCudaWaitRow) == 32);
G_STATIC_ASSERT (sizeof (SlGraphMade) == 64);  /* stored raw in the model cache */

struct _SlTrace
{
  gint          ref_count;
  GMutex        lock;          /* strings, warnings and lanes, while two threads load */
  char         *path;
  char         *schema;
  SlTime        start;
  SlTime        end;
  /* sl_trace_get_origin(): read from the file on first use (g_once: any thread may ask first),
   * or set by sl_trace_merge before the merged trace is handed out */
  gsize         origin_set;
  SlTime        origin;
  gsize         n_events;
  /* global ids: [0, n_ids).  Dense (n_ids == n_events) but in a live trace, whose lanes each
   * keep room to grow (`headroom`, sl-trace-live.c): an append that fits keeps every id, so the
   * events it shares with the previous trace keep their links */
  gsize         n_ids;
  gboolean      headroom;
  /* an append that adds to the previous trace's lanes (sl-trace-extend.c): the reader keeps
   * only the new rows' events */
  gboolean      extend;
  /* a live trace's correlation maps, kept for the next append (sl-correlation.c), or NULL */
  gpointer      corr_maps;
  /* a live trace's deduplication of kernel_infos and copy_infos (sl-info-set.c), handed to the
   * next append's reader; NULL in any other trace, and once an append took them */
  struct _SlInfoSet *kernel_set;
  struct _SlInfoSet *copy_set;
  GPtrArray    *warnings;      /* char *, NULL-terminated on demand */

  /* Strings: id 0 is "".  `strs` holds pointers into `chunk`; `str_ids` maps text to id + 1. */
  GStringChunk *chunk;
  /* a live trace's chunk, shared with the traces appended to it (the new strings of an append go
   * into it: a chunk never moves what it holds), freed with the last: SlChunkRef, or NULL where
   * the trace owns `chunk` alone */
  struct _SlChunkRef *chunk_ref;
  GPtrArray    *strs;
  GHashTable   *str_ids;
  gsize         str_bytes;
  struct _SlDisplayNames *display; /* CUDA API names without "_vNNNN" (sl-display-name.c), made
                                    * on first use; NULL before */

  GArray       *processes;     /* SlProcess */
  GArray       *threads;       /* SlThread */
  GArray       *gpus;          /* SlGpu */
  GPtrArray    *lanes;         /* SlLane *, owned */

  GArray       *kernel_infos;  /* SlKernelInfo, deduplicated */
  GArray       *copy_infos;    /* SlCopyInfo, deduplicated */
  GArray       *chain_offsets; /* guint32: start of chain i in chain_symbols; one extra at end */
  GArray       *chain_symbols; /* guint32 string ids */
  GArray       *chain_modules;
  GArray       *osrt_chains;   /* SlChainId: OSRT_CALLCHAINS id -> chain, sorted by id */
  GArray       *cuda_chains;   /* SlCudaChain, sorted by process, correlation id and class */
  GArray       *cuda_events;   /* SlCudaEventRow, as read */
  GArray       *event_waits;   /* SlCudaWaitRow, sorted (_sl_trace_sort_event_waits) */
  gpointer      event_links;   /* SlEventLinks (sl-trace-events.c), built on first use */
  GArray       *graph_made;    /* SlGraphMade (CUDA_GRAPH_EVENTS, _NODE_EVENTS), as read */
  gpointer      graph_groups;  /* SlGraphGroups (sl-graph-groups.c), built on first use */
  GArray       *mem_usage;     /* SlMemUsage (CUDA_GPU_MEMORY_USAGE_EVENTS), sorted by time */
  gpointer      memory;        /* SlMemory (sl-memory.c), built on first use */
  GArray       *um_faults;     /* SlUmFault (CUDA_UM_{GPU,CPU}_PAGE_FAULT_EVENTS), sorted by time */
  gpointer      um_fault_index; /* SlUmFaultIndex (sl-um-faults.c), built on first use */
  GArray       *metric_series; /* SlMetricSeries (GPU_METRICS, sl-metrics.h): by GPU, metricId */
  GArray       *metric_times;  /* SlTime: the series' samples, series after series, each by time */
  GArray       *metric_values; /* double: beside metric_times */
  GArray       *mpi_calls;     /* SlMpiCall (sl-mpi.h), an SL_LANE_MPI event's corr; NULL: none */
  gpointer      mpi_messages;  /* SlMpiMessages (sl-mpi.c), matched on first use */
  GArray       *omp_events;    /* SlOmpEvent (sl-openmp.h), an SL_LANE_OPENMP or _OPENACC event's
                                * corr; NULL: none */

  GHashTable   *enum_labels[SL_N_ENUMS]; /* gint64 value -> label string (owned by `chunk`) */
  GArray       *diagnostics;   /* SlDiagnostic (DIAGNOSTIC_EVENT), by timestamp */

  SlGpuBusy    *gpu_busy;      /* one per GPU */
  GArray       *table_reads;   /* SlTableRead, in the order the tables were read */
  gpointer      nvtx_proj;     /* SlNvtxProj, built on first use (sl_nvtx_proj_get) */
  gpointer      cpu_util;      /* SlCpuUtil, built on first use (sl_cpu_util_get) */

  /* a Kineto / Chrome JSON trace (sl-reader-json.c): no SQLite file behind it */
  gboolean      is_json;
  gint64        rank;            /* sl_trace_get_rank(): -1 when the file does not say */
  gint64        world_size;      /* 0 when the file does not say */

  /* SlSource: the files of a merged trace (sl-trace-merge.c), or the one file's, made when
   * first asked for (under `lock`); NULL until then */
  GArray       *sources;

  /* a trace loaded with SL_LOAD_LIVE: where in the file it stopped, for sl_trace_append()
   * (sl-trace-live.c); NULL otherwise */
  struct _SlLiveState *live;

  /* a first look (sl_trace_load_progressive): the share of each event table's rows to read,
   * 0 for all of them */
  double        first_look;
  /* sl_trace_get_loading(): a first look at a file still being read */
  gboolean      loading;
  SlTime        loading_from;
  double        loading_share;
};

/* A live trace's lane storage (sl-trace-extend.c): events with room after them, which appends
 * fill in place (a trace reads only its lane's n_events of them), and a lane's indexes, shared
 * by the lanes of successive traces that hold the same events. */
typedef struct _SlLaneStore
{
  gint     ref;
  SlEvent *events;
  gsize    cap;     /* events it has room for */
  gsize    len;     /* events written: those of the longest lane on it */
  gsize    mapped;  /* bytes of its own mapping (room not written is not resident), or 0: the
                     * events are a malloc'd block (a lane's before its first append) */
} SlLaneStore;

typedef struct _SlLaneIdx
{
  gint                ref;
  SlTime             *max_end;
  SlTime             *busy_prefix;
  struct _SlLodLevel *lod;
  guint               n_lod;
} SlLaneIdx;

void     _sl_lane_store_unref (SlLaneStore *store);
void     _sl_lane_idx_unref   (SlLaneIdx   *idx);

SlTrace *_sl_trace_new        (const char *path);
typedef struct _SlLiveState SlLiveState;
void     _sl_live_state_free  (SlLiveState *live);
/* How many sl_trace_append() calls appended, and how many loaded the file whole (tests). */
void     _sl_live_get_counts  (guint *appended,
                               guint *reloaded);
/* Of the appends, how many added to the previous trace's lanes (sl-trace-extend.c). */
guint    _sl_live_get_extended (void);
/* Where the wall time of sl_trace_append() goes, for bench-live: the previous trace copied into
 * the reader's tables, the new rows read (both threads), the lanes built, and the finish's
 * passes over every lane (sort check, interval trees / busy sums / levels of detail, correlation
 * links, GPU busy unions). */
typedef enum
{
  SL_LIVE_COPY,
  SL_LIVE_READ,
  SL_LIVE_BUILD,
  SL_LIVE_SORT,
  SL_LIVE_INDEX,
  SL_LIVE_LINK,
  SL_LIVE_GPU_BUSY,
  SL_LIVE_N_PHASES
} SlLivePhase;
/* The time since `since` (g_get_monotonic_time) into `phase` of the append running on this
 * thread; nothing outside an append.  Returns the time now. */
gint64   _sl_live_phase_end   (SlLivePhase phase, gint64 since);
/* The seconds of each phase of the last append that finished in this process. */
void     _sl_live_get_phases  (double seconds[SL_LIVE_N_PHASES]);
guint32 _sl_trace_intern      (SlTrace *trace, const char *text, gssize len);
/* A string chunk shared by a live trace and those appended to it (SlTrace.chunk_ref). */
typedef struct _SlChunkRef SlChunkRef;
SlChunkRef *_sl_chunk_ref_new   (GStringChunk *chunk);
SlChunkRef *_sl_chunk_ref_ref   (SlChunkRef *c);
void        _sl_chunk_ref_unref (SlChunkRef *c);
/* The label of an enum value (the file's, else built in), NULL when there is none. */
const char *_sl_trace_enum_find (SlTrace *trace, SlEnum which, gint64 value);
void    _sl_trace_warn        (SlTrace *trace, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* Marks `trace` as a first look at its file (sl_trace_get_loading): its events are all in up to
 * `from`, `share` of the rows are read, and the whole file will end at `end` (the trace's end is
 * moved there when later). */
void    _sl_trace_set_loading (SlTrace *trace, SlTime from, SlTime end, double share);
/* The chain of an OSRT_CALLCHAINS id, G_MAXUINT32 when the file has none of that id. */
guint32 _sl_trace_find_osrt_chain (SlTrace *trace, guint32 callchain_id);
/* Sorts trace->event_waits by process, correlation id and start (after a load or a merge). */
void    _sl_trace_sort_event_waits (SlTrace *trace);
/* The wait row of the synchronization event of process `pid` with this correlation id and start,
 * NULL when it named no event. */
const SlCudaWaitRow *_sl_trace_find_wait_row (SlTrace *trace,
                                              guint64  pid,
                                              guint32  corr,
                                              SlTime   start);
/* Frees the graph groups and the calls of the graph rows (sl-graph-groups.c). */
void    _sl_graph_groups_free (gpointer groups);
/* Frees what sl-memory.c built (bytes in use, allocations). */
void    _sl_memory_free       (gpointer memory);
/* Sorts trace->mem_usage by time, then by place in the file (after a load or a merge). */
void    _sl_trace_sort_mem_usage (SlTrace *trace);
/* Sorts trace->um_faults by time, then side, process and place in the file (after a load or a
 * merge, before their per-GPU and per-process index is built: sl-um-faults.c). */
void    _sl_trace_sort_um_faults (SlTrace *trace);
void    _sl_um_faults_free       (gpointer index);
/* Whether each fault row names a GPU of the trace (GPU faults) or none (CPU faults), and counts
 * at least one fault (a model cache is not trusted). */
gboolean _sl_um_faults_check     (SlTrace *trace);
/* Whether the GPU metric series fit the trace (sl-metrics.c): GPUs and names that exist,
 * samples that tile the arrays, each series in time order (a model cache is not trusted). */
gboolean _sl_metrics_check    (SlTrace *trace);
/* Frees the links of records and waits (sl-trace-events.c). */
void    _sl_event_links_free  (gpointer links);
/* Sorts trace->cuda_chains by process, correlation id and class (after a load or a merge). */
void    _sl_trace_sort_cuda_chains (SlTrace *trace);
/* The chain (sl_trace_get_callchain's index) of a CUDA API call's backtrace; G_MAXUINT32: none. */
guint32 _sl_trace_find_cuda_chain (SlTrace       *trace,
                                   const SlLane  *lane,
                                   const SlEvent *ev);
SlLane *_sl_trace_add_lane    (SlTrace *trace, SlLaneKind kind);

/* Frees a block from g_malloc.  One of tens of megabytes first gives its pages back a step at a
 * time (_sl_release_pages), so that the munmap that frees it has nothing left to do: a munmap of
 * a gigabyte holds the process's memory map for ~80 ms here, and any thread that maps memory
 * meanwhile waits, the main thread's next frame included (165 ms at worst while another thread
 * freed 2 GiB at once, 4-10 ms a step at a time, in a test program). */
void     _sl_free_large        (gpointer p);
/* g_realloc to a smaller `bytes`, the pages past them given back first in the same steps (a
 * GArray taken as a lane's events can leave gigabytes of its doubling unused); 0 frees. */
gpointer _sl_shrink            (gpointer p, gsize bytes);
/* The whole pages of a block (heap or file mapping) given back, a step at a time; the block
 * stays mapped and reads as zeros (a private file mapping: as the file).  Nothing below 64 MiB. */
void     _sl_release_pages     (gpointer p, gsize bytes);
/* Asks the kernel for huge pages under a block not yet written, when it is large (transparent
 * huge pages in "madvise" mode, Debian's default): each 4 KiB page's first write is a page fault,
 * ~0.25 µs on bare metal but ~25 µs on the virtual machines this runs on, where a 2 MiB page
 * costs about as much as one (a 64 MiB memset: 400 ms against 10 ms); fewer TLB misses too. */
void     _sl_huge_pages        (gpointer p, gsize bytes);
/* g_malloc_n of `n` blocks of `size` (aborting where the product overflows), huge pages asked
 * for when large; freed with g_free. */
gpointer _sl_huge_new          (gsize n, gsize size);
/* Records what the loader made of a table (under the lock: two threads load); `read->table` is
 * copied. */
void    _sl_trace_note_table  (SlTrace *trace, const SlTableRead *read);
/* After all events are in: sort lanes, build indexes, global ids, busy sums. */
gboolean _sl_trace_finish     (SlTrace *trace,
                               GError **error);
void    _sl_trace_link        (SlTrace *trace);
/* An append that added to a live trace's lanes (sl-trace-extend.c): links the events past
 * old_n[lane] of each lane, with the correlation maps the previous trace kept (moved to this
 * one), once _sl_corr_check_calls found nothing against each new calls' lane: it says why they
 * cannot be (a call whose GPU work was read before it, ids out of the maps' reach), or NULL. */
char   *_sl_corr_check_calls  (gpointer      maps,
                               const SlLane *calls);
void    _sl_trace_link_added  (SlTrace     *trace,
                               const gsize *old_n);
void    _sl_corr_maps_free    (gpointer maps);
gsize   _sl_corr_maps_size    (gpointer maps);
/* sl-trace-extend.c: `next`, read with `extend` set (the new rows' events only), made of
 * `prev`'s lanes with the new events added after theirs; FALSE and why, `prev` and `next`
 * unchanged, where an append cannot be made so. */
gboolean _sl_trace_extend     (SlTrace  *next,
                               SlTrace  *prev,
                               char    **why);
void    _sl_lane_free         (SlLane *lane);
/* Orders the lanes as they appear on screen (CPU lanes by thread, then GPU lanes by device,
 * context, stream and kind) and numbers them; global ids (`base`) are left to the caller. */
void    _sl_trace_sort_lanes  (SlTrace *trace);
void    _sl_events_sort       (SlEvent *ev,
                               gsize    n);
void    _sl_lane_build_index  (SlLane *lane);
SlTime *_sl_lane_build_busy   (const SlLane *lane);
/* The busy sums of `lane`, whose first n_old events had `prev_busy`. */
SlTime *_sl_lane_extend_busy  (const SlLane *lane,
                               const SlTime *prev_busy,
                               gsize         n_old);
SlTime  _sl_lane_busy_between (const SlLane *lane, const SlTime *busy, gsize i, gsize j);
void    _sl_gpu_busy_build    (SlTrace *trace);
void    _sl_gpu_busy_clear    (SlGpuBusy *busy);
/* An append (sl-cpu-util.c): the CPU use of `next`, which continues `prev` keeping keep[i] events
 * of its lane i, from prev's if built (else NULL: built on first use). */
struct _SlCpuUtil *_sl_cpu_util_extend (SlTrace *next, SlTrace *prev, const gsize *keep);
gboolean _sl_cpu_util_equal   (struct _SlCpuUtil *a, struct _SlCpuUtil *b);
/* An append (sl-trace-extend.c): each GPU's unions of `prev` with the events past old_n[lane]
 * of `trace`'s lanes (the same lanes, in the same order) merged in. */
void    _sl_gpu_busy_extend   (SlTrace      *trace,
                               SlTrace      *prev,
                               const gsize  *old_n);

/* Numbers the lanes (sorted, none empty, each sorted by start), gives them their global ids and
 * builds their interval trees, busy sums and levels of detail, and the trace's start, end and
 * event count: the part of _sl_trace_finish that depends on the events alone. */
gboolean _sl_trace_index_lanes (SlTrace *trace,
                                GError **error);

/* ---- the model cache (sl-trace-cache.c) -------------------------------------------------------
 *
 * A trace loaded with SL_LOAD_ALL from one file is kept, built, in $XDG_CACHE_HOME/sightline, so
 * that opening the unchanged file again reads the model back instead of the file.  What identifies
 * the source: its canonical path, size, modification and change times and inode. */
typedef struct
{
  char   *canonical;   /* realpath() of the source; NULL when the cache is off */
  char   *file;        /* the cache file for it */
  guint64 size;
  guint64 mtime_ns;
  guint64 ctime_ns;
  guint64 ino;
  guint64 dev;
} SlCacheKey;

/* The mapping of a cache file that a cached trace's events stay in, one reference per lane. */
typedef struct _SlEventsMap SlEventsMap;
void     _sl_events_map_unref    (SlEventsMap *map);

void     _sl_cache_key_clear     (SlCacheKey *key);
/* The cached model of `path`, or NULL (cache off, no cache file, or one that is stale,
 * truncated, damaged or of another build: that one is deleted).  Fills `key` either way, for
 * _sl_trace_cache_store after a fresh load. */
SlTrace *_sl_trace_cache_load    (const char *path,
                                  SlCacheKey *key);
/* Writes `trace`, freshly loaded with SL_LOAD_ALL in `load_us`, unless the cache is off, the load
 * was quick (SIGHTLINE_CACHE_MIN_MS, 500 by default), the source changed since `key` was taken,
 * or it would not fit in SIGHTLINE_CACHE_MAX; then evicts the least recently used files until
 * the folder fits.  Failures are silent: the cache never fails a load. */
void     _sl_trace_cache_store   (SlTrace          *trace,
                                  const SlCacheKey *key,
                                  gint64            load_us);
/* The trace in a cache file's payload (what follows the header and the path), checked as a cache
 * file's is once its hashes match, for `path`; NULL when anything in it does not fit.  For fuzz
 * targets: the hashes and the source's key are what a fuzzer would otherwise stop at. */
SlTrace *_sl_trace_cache_parse   (const char *path,
                                  const void *payload,
                                  gsize       len);
/* The folder of the cache, newly allocated. */
char    *_sl_trace_cache_dir     (void);
/* What the cache did in this process (tests). */
typedef struct
{
  guint64 hits;
  guint64 misses;     /* no cache file */
  guint64 rejected;   /* a cache file not trusted, and deleted */
  guint64 stores;
  guint64 evicted;
} SlCacheStats;

void     _sl_trace_cache_get_stats (SlCacheStats *stats);
/* The hash of the cache file's header and payload (tests that forge a file the hashes accept). */
guint64  _sl_trace_cache_hash    (const void *data,
                                  gsize       n);

/* Opens a trace file read-only, immutable and defensively (no views, triggers, extensions). */
sqlite3 *_sl_trace_open_db    (const char  *path,
                               gboolean     live,
                               GError     **error);
/* The profiling session's start on the time line of the events of an opened trace file, or FALSE
 * where the file has none (sl_trace_get_origin): an nsys export's 0, moved by --ts-shift (lost
 * by --ts-normalize); a Sightline recording's TARGET_INFO_SESSION_START_TIME.systemClockNs.  The
 * wall clock at that instant is TARGET_INFO_SESSION_START_TIME.utcEpochNs in both. */
gboolean _sl_trace_session_start (sqlite3     *db,
                                  SlTime      *start);

/* sl_trace_load(), where `trim` FALSE leaves freed memory to the allocator: loads running side
 * by side (sl_trace_load_merged) trim once, at the end, instead of stalling each other. */
SlTrace *_sl_trace_load_file  (const char     *path,
                               SlLoadFlags     flags,
                               gboolean        trim,
                               SlProgressFunc  progress,
                               gpointer        user_data,
                               GCancellable   *cancellable,
                               GError        **error);

/* The nsys reader fills a new trace; sl_trace_load() wraps it.  `prev`: the trace that this one
 * continues (sl_trace_append(): only the rows committed since are read), else NULL. */
gboolean _sl_reader_read      (SlTrace        *trace,
                               sqlite3        *db,
                               SlLoadFlags     flags,
                               SlTrace        *prev,
                               SlProgressFunc  progress,
                               gpointer        user_data,
                               GCancellable   *cancellable,
                               GError        **error);

/* sl-reader-mpi.c, sl-mpi.c */
void _sl_mpi_messages_free (gpointer messages);

/* sl-display-name.c */
void _sl_display_names_free (struct _SlDisplayNames *names);

G_END_DECLS
