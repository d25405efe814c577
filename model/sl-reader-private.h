/* sl-reader-private.h: the state and helpers shared by the files of the nsys SQLite reader. */
#pragma once

#include "sl-trace-private.h"

G_BEGIN_DECLS

#define PID_OF(gtid) (((gtid) >> 24) & 0xFFFFFF)
#define TID_OF(gtid) ((gtid) & 0xFFFFFF)
#define GPID_OF(gtid) ((gtid) & G_GUINT64_CONSTANT (0xFFFFFFFFFF000000))

/* Times beyond ±2^61 ns (±73 years) are clamped to it, so that any duration, and the trace's
 * span, fits in an SlTime with room to add a few together. */
#define SL_READER_TIME_LIMIT (G_GINT64_CONSTANT (1) << 61)

typedef struct
{
  SlLaneKind kind;
  gint32     thread;
} SlCpuKey;

typedef struct
{
  guint64    global_pid;
  guint32    device;
  guint32    context;
  guint32    stream;
  guint32    green_context;  /* 0 = none */
  SlLaneKind kind;
} SlGpuKey;

/* Progress of the two loading threads, reported as their sum, under a lock. */
typedef struct
{
  GMutex          lock;
  double          part[2];
  double          last;
  gint            failed;        /* 1 + slot of the first thread that failed; the other stops */
} SlReaderProgress;

/* Descriptions kept once each, by index into an array (sl-info-set.c): the reader's kernel and
 * copy descriptions, which a live trace hands on to its next append. */
typedef struct _SlInfoSet SlInfoSet;
SlInfoSet *_sl_info_set_new    (gsize size, GHashFunc hash, GEqualFunc equal);
void       _sl_info_set_free   (SlInfoSet *set);
/* The index of `info` in `infos` (appended when new).  `infos` is the array the set was made
 * for, or a copy of it that grew only through the set. */
guint32    _sl_info_set_intern (SlInfoSet *set, GArray *infos, gconstpointer info);
/* Every description of `infos` (already distinct) into an empty set. */
void       _sl_info_set_fill   (SlInfoSet *set, GArray *infos);
gsize      _sl_info_set_len    (const SlInfoSet *set);
gsize      _sl_info_set_size   (const SlInfoSet *set);   /* bytes */

/* One loading thread's view of the file: the CPU side and the GPU side each have one, with
 * their own connection and caches, and share the trace and the lookup tables. */
typedef struct
{
  SlTrace          *trace;
  sqlite3          *db;
  SlReaderProgress *prog;
  guint             slot;          /* which part of `prog` this reader fills */
  SlLoadFlags       flags;
  SlProgressFunc    progress;
  gpointer          user_data;
  GCancellable     *cancellable;
  double            done;          /* progress before the current table */
  double            share;         /* this table's share of the progress bar */

  /* file string id -> our id + 1 (0 = not looked up yet, G_MAXUINT32 = missing) */
  guint32          *str_map;
  gsize             str_map_len;
  GHashTable       *str_map_big;   /* for ids beyond str_map_len */
  sqlite3_stmt     *str_stmt;
  guint64           n_missing_str;
  guint64           n_bad_utf8;    /* names repaired to valid UTF-8 */

  GHashTable       *threads;       /* globalTid -> index + 1 */
  GHashTable       *processes;     /* globalPid -> index + 1 */
  GHashTable       *cpu_builders;  /* SlCpuKey * -> GArray of SlEvent */
  GHashTable       *gpu_lanes;     /* SlGpuKey * -> SlLane * (events in a GArray until finish) */
  GHashTable       *lane_arrays;   /* SlLane * -> GArray */
  SlInfoSet        *kernel_infos;  /* SlKernelInfo in trace->kernel_infos, deduplicated */
  SlInfoSet        *copy_infos;    /* SlCopyInfo in trace->copy_infos */
  GHashTable       *context_gpu;   /* (globalPid, contextId) key -> GPU index + 1 */
  GHashTable       *nvtx_domains;  /* (pid bits, domainId) key -> string id */
  guint32           memcpy_names[16];
  guint64           sched_rows;    /* SCHED_EVENTS rows read: none means states are derived */

  /* sl_trace_append(): the trace this one continues (its strings, threads, GPUs and events are
   * copied in before the new rows are read), else NULL */
  SlTrace          *prev;

  /* small caches: rows usually come in runs of one thread or stream */
  guint64           last_tid;
  gint32            last_thread;
  SlGpuKey          last_gpu_key;
  GArray           *last_gpu_array;
} SlReader;

/* ---- SQL helpers (sl-reader-sql.c) ------------------------------------------------------- */

gboolean    _sl_reader_table_exists (SlReader *r, const char *table);
/* A view is never read (the loader disables them): one named like a table only earns a warning. */
gboolean    _sl_reader_view_exists  (SlReader *r, const char *name);
gboolean    _sl_reader_has_column   (SlReader *r, const char *table, const char *column);
void        _sl_reader_report_progress (SlReader *r, double mine, const char *what);

/* Rows a table held that were skipped or repaired, warned about once per table. */
typedef struct
{
  guint64 null_time;
  guint64 bad_type;
  guint64 bad_range;
  guint64 bad_order;
  guint64 null_owner;
  guint64 not_events;   /* rows of the table that are not events (skipped without a warning) */
} SlRowTrouble;

typedef struct _SlRowLoop SlRowLoop;

/* Called once per row (10^6 … 10^7 times a table) with the row's times in `ev` when the loop
 * checks them; the rest of `ev` is the row function's to fill. */
typedef void (*SlRowFunc)  (SlReader *r, sqlite3_stmt *stmt, SlEvent *ev, SlRowLoop *loop);
/* Called after the last row, before the table's trouble is reported. */
typedef void (*SlRowsDone) (SlReader *r, SlRowLoop *loop);

struct _SlRowLoop
{
  const char   *table;      /* named in errors and warnings */
  const char   *sql;        /* "{col:fallback}": col where the table has it, else fallback */
  const char   *what;       /* progress label; NULL: the table is small, no progress or cancel */
  gboolean      times;      /* columns 0 and 1 are start and end: the loop checks and clamps
                             * them and skips a row where either is NULL or not a number */
  SlRowFunc     row;
  SlRowsDone    done;       /* or NULL */
  gpointer      data;       /* the row function's state */
  gboolean      some_rows;  /* the SELECT reads some of the table's rows (a WHERE): it is
                             * left out of the trace's record of tables read */
  SlRowTrouble  trouble;
};

/* Runs a table's SELECT: fills in the columns the table has, prepares it (an error names the
 * file and the table), steps it, checks and clamps the times of each row, hands each good row to
 * loop->row, reports progress and honours cancellation every 65536 rows, then warns about the
 * trouble it met.  FALSE with `error` set when the statement failed, the table is damaged or
 * loading was cancelled. */
gboolean    _sl_reader_each_row     (SlReader  *r,
                                     SlRowLoop *loop,
                                     GError   **error);
/* Records a table the loader did not read, and why (a static string), for the inventory. */
void        _sl_reader_not_read     (SlReader   *r,
                                     const char *table,
                                     const char *why);

static inline SlTime
_sl_reader_clamp_time (SlTime        t,
                       SlRowTrouble *trouble)
{
  if (G_UNLIKELY (t < -SL_READER_TIME_LIMIT || t > SL_READER_TIME_LIMIT))
    {
      trouble->bad_range++;
      return CLAMP (t, -SL_READER_TIME_LIMIT, SL_READER_TIME_LIMIT);
    }
  return t;
}

/* Reads start/end from columns 0 and 1; FALSE when the row must be skipped.  Inline: once a
 * row of every event table. */
static inline gboolean
_sl_reader_row_times (sqlite3_stmt *stmt,
                      SlTime       *start,
                      SlTime       *end,
                      gboolean      end_may_be_null,
                      SlRowTrouble *trouble)
{
  int start_type = sqlite3_column_type (stmt, 0), end_type = sqlite3_column_type (stmt, 1);

  if (G_UNLIKELY (start_type == SQLITE_NULL))
    {
      trouble->null_time++;
      return FALSE;
    }
  /* text or a blob where nsys writes integers would read as time 0: skip the row instead */
  if (G_UNLIKELY ((start_type != SQLITE_INTEGER && start_type != SQLITE_FLOAT)
                  || end_type == SQLITE_TEXT || end_type == SQLITE_BLOB))
    {
      trouble->bad_type++;
      return FALSE;
    }
  *start = _sl_reader_clamp_time (sqlite3_column_int64 (stmt, 0), trouble);
  if (end_type == SQLITE_NULL)
    {
      if (!end_may_be_null)
        {
          trouble->null_time++;
          return FALSE;
        }
      *end = G_MININT64;
      return TRUE;
    }
  *end = _sl_reader_clamp_time (sqlite3_column_int64 (stmt, 1), trouble);
  if (G_UNLIKELY (*end < *start))
    {
      trouble->bad_order++;
      *end = *start;
    }
  return TRUE;
}

static inline guint32
_sl_clamp_u32 (gint64 v)
{
  return (guint32) CLAMP (v, 0, (gint64) G_MAXUINT32);
}

static inline gint
_sl_col_int (sqlite3_stmt *stmt,
             int           col)
{
  gint64 v = sqlite3_column_int64 (stmt, col);
  return (gint) CLAMP (v, 0, G_MAXINT);
}

/* ---- strings, processes, threads, GPUs, enums (sl-reader-meta.c) ------------------------- */

void     _sl_reader_strings_open   (SlReader *r);
void     _sl_reader_strings_close  (SlReader *r);
/* Our id of a StringIds id, looked up in the file once. */
guint32  _sl_reader_str_lookup     (SlReader *r, gint64 file_id);
/* Our id of a text column's value (repaired to UTF-8). */
guint32  _sl_reader_col_text       (SlReader *r, sqlite3_stmt *stmt, int col);
gint32   _sl_reader_thread_lookup  (SlReader *r, guint64 global_tid);
gint     _sl_reader_gpu_for        (SlReader *r, guint32 device_id);
void     _sl_reader_read_schema_version (SlReader *r);
void     _sl_reader_read_enums     (SlReader *r);
gboolean _sl_reader_read_processes (SlReader *r, GError **error);
gboolean _sl_reader_read_gpus      (SlReader *r, GError **error);

/* An integer column within `min`…`max` into *out: FALSE when NULL or not an integer, or when
 * outside the bounds (then counted in *bad: an absurd value a reader leaves out and warns of). */
static inline gboolean
_sl_reader_col_int (sqlite3_stmt *stmt,
                    int           col,
                    gint64        min,
                    gint64        max,
                    gint64       *out,
                    guint64      *bad)
{
  if (sqlite3_column_type (stmt, col) != SQLITE_INTEGER)
    return FALSE;
  gint64 v = sqlite3_column_int64 (stmt, col);
  if (v < min || v > max)
    {
      (*bad)++;
      return FALSE;
    }
  *out = v;
  return TRUE;
}

/* Our id of the StringIds id in a column; called for most columns of most rows, so the cached
 * case is inline. */
static inline guint32
_sl_reader_col_str (SlReader     *r,
                    sqlite3_stmt *stmt,
                    int           col)
{
  if (sqlite3_column_type (stmt, col) == SQLITE_NULL)
    return SL_NO_STR;
  gint64 file_id = sqlite3_column_int64 (stmt, col);
  if (file_id >= 0 && (guint64) file_id < r->str_map_len)
    {
      guint32 cached = r->str_map[file_id];
      if (cached == G_MAXUINT32)
        return SL_NO_STR;
      if (cached != 0)
        return cached - 1;
    }
  return _sl_reader_str_lookup (r, file_id);
}

static inline gint32
_sl_reader_thread_for (SlReader *r,
                       guint64   global_tid)
{
  if (global_tid == r->last_tid && r->last_thread >= 0)
    return r->last_thread;
  return _sl_reader_thread_lookup (r, global_tid);
}

/* The thread named in column `col`; -1, and the row counted as ownerless, when it is NULL. */
static inline gint32
_sl_reader_row_thread (SlReader     *r,
                       sqlite3_stmt *stmt,
                       int           col,
                       SlRowTrouble *trouble)
{
  if (G_UNLIKELY (sqlite3_column_type (stmt, col) == SQLITE_NULL))
    {
      trouble->null_owner++;
      return -1;
    }
  return _sl_reader_thread_for (r, (guint64) sqlite3_column_int64 (stmt, col));
}

/* ---- lanes under construction (sl-reader.c) ---------------------------------------------- */

/* What every reader (SQLite, JSON) shares: the lookup tables, the lanes built from the event
 * arrays after the last event, and freeing. */
void     _sl_reader_init_tables    (SlReader *r);
void     _sl_reader_build_lanes    (SlReader *r);
void     _sl_reader_clear          (SlReader *r);

GArray  *_sl_reader_cpu_events     (SlReader *r, gint32 thread, SlLaneKind kind);
GArray  *_sl_reader_gpu_lookup     (SlReader *r, const SlGpuKey *key);
guint    _sl_gpu_key_hash          (gconstpointer key);

static inline gboolean
_sl_gpu_key_equal (gconstpointer a,
                   gconstpointer b)
{
  const SlGpuKey *x = a, *y = b;
  return x->global_pid == y->global_pid && x->device == y->device && x->context == y->context
         && x->stream == y->stream && x->kind == y->kind && x->green_context == y->green_context;
}

/* The events of a GPU lane; rows come in runs of one stream, so the last one is at hand. */
static inline GArray *
_sl_reader_gpu_events (SlReader       *r,
                       const SlGpuKey *key)
{
  if (r->last_gpu_array != NULL && _sl_gpu_key_equal (key, &r->last_gpu_key))
    return r->last_gpu_array;
  return _sl_reader_gpu_lookup (r, key);
}

/* ---- the tables of events (sl-reader-cuda.c, sl-reader-host.c) --------------------------- */

guint    _sl_kernel_info_hash      (gconstpointer p);
gboolean _sl_kernel_info_equal     (gconstpointer a, gconstpointer b);
guint    _sl_copy_info_hash        (gconstpointer p);
gboolean _sl_copy_info_equal       (gconstpointer a, gconstpointer b);

/* "[CUDA memcpy Host-to-Device]": a copy's name as nsys gives it, by ENUM_CUDA_MEMCPY_OPER. */
guint32  _sl_reader_memcpy_name    (SlReader *r, gint64 kind);

gboolean _sl_reader_read_runtime   (SlReader *r, GError **error);
gboolean _sl_reader_read_kernels   (SlReader *r, GError **error);
gboolean _sl_reader_read_memcpy    (SlReader *r, GError **error);
gboolean _sl_reader_read_memset    (SlReader *r, GError **error);
gboolean _sl_reader_read_sync      (SlReader *r, GError **error);
gboolean _sl_reader_read_graphs    (SlReader *r, GError **error);
/* CUDA_GRAPH_EVENTS; CUDA_GRAPH_NODE_EVENTS */
gboolean _sl_reader_read_graph_made (SlReader *r, GError **error);
gboolean _sl_reader_read_graph_node_made (SlReader *r, GError **error);
/* CUDA_GPU_MEMORY_USAGE_EVENTS into trace->mem_usage (sl-reader-memory.c) */
gboolean _sl_reader_read_mem_usage (SlReader *r, GError **error);
/* CUDA_UM_GPU_PAGE_FAULT_EVENTS and CUDA_UM_CPU_PAGE_FAULT_EVENTS into trace->um_faults
 * (sl-reader-faults.c) */
gboolean _sl_reader_read_gpu_faults (SlReader *r, GError **error);
gboolean _sl_reader_read_cpu_faults (SlReader *r, GError **error);
/* GPU_METRICS, named by TARGET_INFO_GPU_METRICS, into the trace's metric series (sl-reader-metrics.c) */
gboolean _sl_reader_read_gpu_metrics (SlReader *r, GError **error);
/* MPI_P2P_EVENTS, MPI_COLLECTIVES_EVENTS, MPI_START_WAIT_EVENTS, MPI_OTHER_EVENTS, and the NVTX
 * ranges of a domain "MPI", into SL_LANE_MPI lanes (sl-reader-mpi.c) */
gboolean _sl_reader_read_mpi_p2p   (SlReader *r, GError **error);
gboolean _sl_reader_read_mpi_coll  (SlReader *r, GError **error);
gboolean _sl_reader_read_mpi_wait  (SlReader *r, GError **error);
gboolean _sl_reader_read_mpi_other (SlReader *r, GError **error);
gboolean _sl_reader_read_mpi_nvtx  (SlReader *r, GError **error);
/* The OPENMP_EVENT_KIND_* tables into SL_LANE_OPENMP lanes, CUPTI_ACTIVITY_KIND_OPENACC_DATA,
 * _LAUNCH and _OTHER into SL_LANE_OPENACC lanes: one function a table (sl-reader-openmp.c) */
gboolean _sl_reader_read_omp_thread         (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_parallel       (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_sync_wait      (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_sync           (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_task           (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_master         (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_reduction      (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_task_create    (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_task_schedule  (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_cancel         (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_mutex_wait     (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_critical       (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_mutex_released (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_lock_init      (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_lock_destroy   (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_workshare      (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_dispatch       (SlReader *r, GError **error);
gboolean _sl_reader_read_omp_flush          (SlReader *r, GError **error);
gboolean _sl_reader_read_acc_data           (SlReader *r, GError **error);
gboolean _sl_reader_read_acc_launch         (SlReader *r, GError **error);
gboolean _sl_reader_read_acc_other          (SlReader *r, GError **error);
gboolean _sl_reader_read_nvtx      (SlReader *r, GError **error);
gboolean _sl_reader_read_osrt      (SlReader *r, GError **error);
/* OSRT_CALLCHAINS or CUDA_CALLCHAINS into the call-chain table, `ids` (SlChainId) sorted by id,
 * after the ids it holds (an append's, all before those read). */
gboolean _sl_reader_read_chain_ids (SlReader *r, const char *table, GArray *ids, GError **error);
gboolean _sl_reader_read_samples   (SlReader *r, GError **error);

/* ---- live loads and appends (sl-trace-live.c) -------------------------------------------- */

/* A load with SL_LOAD_LIVE: gives the trace its live state (the previous trace's, when
 * appending) and notes how far each event table reaches now; when appending, copies the
 * previous trace's strings, processes, threads, GPUs, descriptions and events into the
 * reader's tables.  Called once the reader's tables exist, before anything is read. */
gboolean _sl_live_begin            (SlReader *r, GError **error);
/* The global ids a live trace's lane of n events keeps (sl-trace.c numbers them), so that
 * appends can add to it without moving the ids of the lanes after it. */
guint64  _sl_live_lane_room        (guint64 n);
/* Whether `a` sorts before `b` in a lane (by start, the longer first), as _sl_events_sort. */
static inline gboolean
_sl_event_before (const SlEvent *a,
                  const SlEvent *b)
{
  return a->start < b->start || (a->start == b->start && a->end > b->end);
}

/* When an event closes for the nesting of a thread's events: its end, or the instant after a
 * zero-length one's start (it still occupies its instant). */
static inline SlTime
_sl_event_close (const SlEvent *ev)
{
  return ev->end > ev->start ? ev->end : ev->start + (ev->start < G_MAXINT64);
}

/* The nesting depth of each of the n events `ev` (sorted), at most 1023: how deep the reader
 * puts them (a stack of the ends of those still open; a zero-length event occupies its instant).
 * Returns one more than the deepest. */
guint    _sl_events_depths         (const SlEvent *ev,
                                    gsize          n,
                                    guint16       *depth);
/* The depth lanes of one thread and kind (in depth order) merged back into the one sorted run
 * the reader split (sl-trace-live.c), appended to `out` (SlEvent). */
void     _sl_live_merge_depths     (GArray    *out,
                                    GPtrArray *lanes);
/* The warning of a load that found no events (an append adding to lanes says it too). */
void     _sl_reader_warn_empty     (SlTrace *trace);
/* The SELECT of a live load for `table`: the rows committed since the last load and up to the
 * end noted at its start, for an event table read by rowid; NULL: `sql` as it is. */
char    *_sl_live_sql              (SlReader *r, const char *table, const char *sql);
/* After a table's rows: the live totals of an event table read by rowid (rows and trouble of
 * every load so far) replace this load's, so that warnings and the inventory count the whole
 * table as a fresh load does.  `rows` in, the total out. */
void     _sl_live_rows_done        (SlReader *r, SlRowLoop *loop, guint64 *rows);
/* SIGHTLINE_CHAIN_FRAMES' chainId -> chain index + 1 of a live load, kept for the next append. */
GHashTable *_sl_live_side_chains   (SlReader *r);
/* Where a live load left SCHED_EVENTS (each thread's switch state, the table's counts and last
 * time: sl-reader-sched.c), kept in the live state for the next append to go on from; NULL
 * before any. */
typedef struct _SlSchedCarry SlSchedCarry;
SlSchedCarry *_sl_live_sched_carry (SlReader *r);
void     _sl_live_set_sched_carry  (SlReader *r, SlSchedCarry *carry);
SlSchedCarry *_sl_sched_carry_copy (const SlSchedCarry *carry);
void     _sl_sched_carry_free      (SlSchedCarry *carry);
/* Whether the lane of `thread` ends with the span to the table's last time that the next load
 * ends again (a thread switched in, or out into a state, at its last row). */
gboolean _sl_sched_carry_final     (const SlSchedCarry *carry, guint thread);
/* The same of a live trace's last load (what an append adding to its lanes drops). */
gboolean _sl_live_sched_final      (SlTrace *trace, guint thread);
/* An append cannot go on from what was read (a thread's switch committed before one read
 * earlier): the file is loaded whole instead, saying `why`. */
void     _sl_live_load_whole       (SlReader *r, const char *why);
/* After the last table: what the next append needs (NVTX domains read so far). */
void     _sl_live_end              (SlReader *r);
/* The latest timestamp of NVTX_EVENTS read by earlier loads (where unterminated ranges end). */
SlTime   _sl_live_nvtx_max_time    (SlReader *r);
/* After NVTX_EVENTS: its latest timestamp so far, and how many ranges of this load were never
 * closed (their end moves with the table's end: the next append loads the file whole). */
void     _sl_live_set_nvtx         (SlReader *r, SlTime max_time, guint64 unterminated);
/* The rows read can be appended by a copy of the previous trace, not added to its lanes (an
 * OpenMP region read before whose team grew: its copy is corrected). */
void     _sl_live_no_extend        (SlReader *r, const char *why);
const char *_sl_live_why_not_extend (SlTrace *trace);
/* OpenMP teams of a live load, kept across appends: "gpid:parallelId" -> implicit tasks << 1,
 * | 1 once a region of that id was read (sl-reader-openmp.c); NULL when not live. */
GHashTable *_sl_live_omp_teams     (SlReader *r);
/* MPI_RANKS and MPI_COMMUNICATORS as the last live load read them (sl-reader-mpi.c: where they
 * changed for calls read before, the file is loaded whole); NULL when not live. */
GHashTable *_sl_live_mpi_sides     (SlReader *r);
/* The rows of an event table whose details were absurd (MPI, OpenMP), every load's so far. */
guint64  _sl_live_bad_details      (SlReader *r, const char *table, guint64 bad);

/* ---- thread states (sl-reader-sched.c) --------------------------------------------------- */

gboolean _sl_reader_read_sched     (SlReader *r, GError **error);
/* Where no SCHED_EVENTS row was read: states from the samples and OS runtime calls read. */
void     _sl_reader_derive_sched   (SlReader *r);

/* ---- Kineto / Chrome trace-event JSON (sl-reader-json.c) --------------------------------- */

gboolean _sl_reader_read_json      (SlTrace        *trace,
                                    SlLoadFlags     flags,
                                    SlProgressFunc  progress,
                                    gpointer        user_data,
                                    GCancellable   *cancellable,
                                    GError        **error);

G_END_DECLS
