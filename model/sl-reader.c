/* sl-reader.c: reads an Nsight Systems SQLite export (2021 layouts … schema 3.25+) into a trace.
 *
 * Tables and columns are probed, never assumed: nsys creates tables lazily and has renamed and
 * added columns over the years (see ../shared/reference/nsys-sqlite.md).  Every value is
 * untrusted: NULL times, end < start, ids that point nowhere and non-UTF-8 names become
 * warnings and repaired rows, never a crash.  Rows are read once, in table order; a table of
 * 10^7 rows is read in a few seconds, so per-row work is a few hash-free array operations.
 *
 * This file opens and validates the file, runs the table readers on two threads and builds the
 * lanes; sl-reader-sql.c holds the row loop, sl-reader-meta.c the metadata tables,
 * sl-reader-cuda.c the CUPTI tables, sl-reader-host.c NVTX, OS runtime and samples, and
 * sl-reader-sched.c thread states.
 */
#include "sl-reader-private.h"
#include "sl-nsys-report.h"

#include <string.h>

/* ---- lanes under construction ------------------------------------------------------------ */

static guint
cpu_key_hash (gconstpointer p)
{
  const SlCpuKey *k = p;
  return k->thread * 31u + k->kind;
}

static gboolean
cpu_key_equal (gconstpointer a,
               gconstpointer b)
{
  const SlCpuKey *x = a, *y = b;
  return x->thread == y->thread && x->kind == y->kind;
}

guint
_sl_gpu_key_hash (gconstpointer p)
{
  const SlGpuKey *k = p;
  guint64 h = k->global_pid * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  h ^= ((guint64) k->device << 40) ^ ((guint64) k->context << 20) ^ k->stream
       ^ ((guint64) k->kind << 60) ^ ((guint64) k->green_context << 30);
  return (guint) (h ^ (h >> 32));
}

GArray *
_sl_reader_cpu_events (SlReader   *r,
                       gint32      thread,
                       SlLaneKind  kind)
{
  SlCpuKey key = { kind, thread };
  GArray *a = g_hash_table_lookup (r->cpu_builders, &key);

  if (a == NULL)
    {
      a = g_array_new (FALSE, FALSE, sizeof (SlEvent));
      g_hash_table_insert (r->cpu_builders, g_memdup2 (&key, sizeof key), a);
    }
  return a;
}

GArray *
_sl_reader_gpu_lookup (SlReader       *r,
                       const SlGpuKey *key)
{
  SlLane *lane = g_hash_table_lookup (r->gpu_lanes, key);
  GArray *a;
  if (lane == NULL)
    {
      lane = _sl_trace_add_lane (r->trace, key->kind);
      lane->global_pid = key->global_pid;
      lane->gpu = _sl_reader_gpu_for (r, key->device);
      lane->context_id = key->context;
      lane->stream_id = key->stream;
      lane->green_context_id = key->green_context;
      a = g_array_new (FALSE, FALSE, sizeof (SlEvent));
      g_hash_table_insert (r->gpu_lanes, g_memdup2 (key, sizeof *key), lane);
      g_hash_table_insert (r->lane_arrays, lane, a);
    }
  else
    a = g_hash_table_lookup (r->lane_arrays, lane);
  r->last_gpu_key = *key;
  r->last_gpu_array = a;
  return a;
}

/* Moves an array's contents into a lane as an exactly-sized block. */
static void
lane_take (SlLane *lane,
           GArray *a)
{
  lane->n_events = a->len;
  lane->events = (SlEvent *) g_array_free (a, FALSE);
  if (lane->n_events > 0)
    lane->events = _sl_shrink (lane->events, lane->n_events * sizeof (SlEvent));
}

/*
 * A thread's ranges become one lane per nesting depth.  With a stack of open ranges, a range
 * goes one below the innermost range still open at its start; push/pop ranges then land at
 * their true nesting depth, and no two ranges of one depth ever overlap (so those lanes need no
 * interval tree).  Takes `a`: the depth with most events keeps its memory (compacted in place),
 * so that a thread's millions of CUDA calls are not held twice at the end of a load.
 */
guint
_sl_events_depths (const SlEvent *ev,
                   gsize          n,
                   guint16       *depth)
{
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (SlTime));
  guint deepest = 0;

  for (gsize i = 0; i < n; i++)
    {
      while (stack->len > 0 && g_array_index (stack, SlTime, stack->len - 1) <= ev[i].start)
        g_array_set_size (stack, stack->len - 1);
      guint d = MIN (stack->len, 1023);
      depth[i] = d;
      deepest = MAX (deepest, d + 1);
      SlTime close = _sl_event_close (&ev[i]);
      if (stack->len < 1023)
        g_array_append_val (stack, close);
    }
  return deepest;
}

static void
split_by_depth (SlReader   *r,
                gint32      thread,
                SlLaneKind  kind,
                GArray     *a)
{
  SlEvent *ev = (SlEvent *) a->data;
  gsize n = a->len;
  guint16 *depth = _sl_huge_new (n, sizeof (guint16));   /* 2 bytes an event: _sl_free_large */
  g_autoptr (GArray) counts = g_array_new (FALSE, TRUE, sizeof (gsize));
  const SlThread *t = &g_array_index (r->trace->threads, SlThread, thread);

  _sl_events_sort (ev, n);
  g_array_set_size (counts, _sl_events_depths (ev, n, depth));
  for (gsize i = 0; i < n; i++)
    g_array_index (counts, gsize, depth[i])++;

  /* one lane per depth, filled in one pass (a hostile file may nest 1023 deep); the largest
   * one's events move to the front of `a` (never past where they are read) */
  g_autofree SlLane **by_depth = g_new0 (SlLane *, counts->len);
  g_autofree gsize *fill = g_new0 (gsize, counts->len);
  guint big = 0;
  for (guint d = 0; d < counts->len; d++)
    if (g_array_index (counts, gsize, d) > g_array_index (counts, gsize, big))
      big = d;
  for (guint d = 0; d < counts->len; d++)
    {
      gsize count = g_array_index (counts, gsize, d);
      if (count == 0)
        continue;
      SlLane *lane = by_depth[d] = _sl_trace_add_lane (r->trace, kind);
      lane->thread = thread;
      lane->global_pid = GPID_OF (t->global_tid);
      lane->depth = d;
      lane->n_events = count;
      lane->events = d == big ? ev : _sl_huge_new (count, sizeof (SlEvent));
    }
  for (gsize i = 0; i < n; i++)
    by_depth[depth[i]]->events[fill[depth[i]]++] = ev[i];
  _sl_free_large (depth);
  if (n == 0)
    {
      g_array_free (a, TRUE);
      return;
    }
  SlLane *kept = by_depth[big];
  kept->events = _sl_shrink (g_array_free (a, FALSE), kept->n_events * sizeof (SlEvent));
}

static void
flush_cpu_builders (SlReader *r)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, r->cpu_builders);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const SlCpuKey *k = key;
      GArray *a = value;

      if (k->kind == SL_LANE_SAMPLES || k->kind == SL_LANE_SCHED)
        {
          SlLane *lane = _sl_trace_add_lane (r->trace, k->kind);
          const SlThread *t = &g_array_index (r->trace->threads, SlThread, k->thread);
          lane->thread = k->thread;
          lane->global_pid = GPID_OF (t->global_tid);
          lane_take (lane, a);
        }
      else
        {
          split_by_depth (r, k->thread, k->kind, a);   /* takes `a` */
        }
      g_hash_table_iter_steal (&iter);
      g_free (key);
    }
}


/* ---- the whole file ---------------------------------------------------------------------- */

/* Frees the event arrays a load gave up on (the values of lane_arrays or cpu_builders). */
static void
free_arrays (GHashTable *table)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_array_free (value, TRUE);
  g_hash_table_remove_all (table);
}

/* ---- what every reader shares ------------------------------------------------------------ */

void
_sl_reader_init_tables (SlReader *r)
{
  r->threads = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r->processes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r->cpu_builders = g_hash_table_new_full (cpu_key_hash, cpu_key_equal, g_free, NULL);
  r->gpu_lanes = g_hash_table_new_full (_sl_gpu_key_hash, _sl_gpu_key_equal, g_free, NULL);
  r->lane_arrays = g_hash_table_new (g_direct_hash, g_direct_equal);
  r->kernel_infos = _sl_info_set_new (sizeof (SlKernelInfo), _sl_kernel_info_hash,
                                      _sl_kernel_info_equal);
  r->copy_infos = _sl_info_set_new (sizeof (SlCopyInfo), _sl_copy_info_hash, _sl_copy_info_equal);
  r->context_gpu = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r->nvtx_domains = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

void
_sl_reader_warn_empty (SlTrace *trace)
{
  _sl_trace_warn (trace, "the trace holds no events: its event tables are empty or were not "
                         "loaded");
}

/* After the last event: thread states, the CPU lanes by depth, the GPU lanes' arrays handed
 * over; warns about an empty trace (not an append adding to lanes: it has the new rows' events
 * only) and repaired names. */
void
_sl_reader_build_lanes (SlReader *r)
{
  SlTrace *trace = r->trace;

  _sl_reader_derive_sched (r);
  flush_cpu_builders (r);

  /* GPU lanes: hand the arrays over */
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, r->lane_arrays);
  while (g_hash_table_iter_next (&iter, &key, &value))
    lane_take (key, value);
  g_hash_table_remove_all (r->lane_arrays);

  gsize n_events = 0;
  for (guint i = 0; i < trace->lanes->len; i++)
    n_events += ((SlLane *) g_ptr_array_index (trace->lanes, i))->n_events;
  if (n_events == 0 && !trace->extend)
    _sl_reader_warn_empty (trace);
  if (r->n_bad_utf8 > 0)
    _sl_trace_warn (trace, "%" G_GUINT64_FORMAT " names are not valid UTF-8; "
                           "unreadable bytes were replaced",
                    r->n_bad_utf8);
}

/* Frees the lookup tables and any event arrays a failed load left. */
void
_sl_reader_clear (SlReader *r)
{
  free_arrays (r->lane_arrays);
  free_arrays (r->cpu_builders);
  g_hash_table_unref (r->threads);
  g_hash_table_unref (r->processes);
  g_hash_table_unref (r->cpu_builders);
  g_hash_table_unref (r->gpu_lanes);
  g_hash_table_unref (r->lane_arrays);
  /* a live trace hands its descriptions' sets to the next append (a failed load's go with it) */
  if (r->trace->live != NULL && r->trace->kernel_set == NULL)
    {
      r->trace->kernel_set = g_steal_pointer (&r->kernel_infos);
      r->trace->copy_set = g_steal_pointer (&r->copy_infos);
    }
  _sl_info_set_free (r->kernel_infos);
  _sl_info_set_free (r->copy_infos);
  g_hash_table_unref (r->context_gpu);
  g_hash_table_unref (r->nvtx_domains);
}

typedef gboolean (*ReadFunc) (SlReader *r, GError **error);

typedef struct
{
  SlLoadFlags flag;
  const char *table;
  gboolean    gpu;       /* read by the second thread */
  ReadFunc    read;
  double      weight;
} TableStep;

/* Whether an earlier step reads the same table (NVTX_EVENTS: ranges, then MPI's): a view or a
 * table not needed is said once, by the first. */
static gboolean
step_again (const TableStep *steps,
            guint            i)
{
  for (guint j = 0; j < i; j++)
    if (strcmp (steps[j].table, steps[i].table) == 0)
      return TRUE;
  return FALSE;
}

/* The tables one thread reads, in order. */
static gboolean
run_steps (SlReader        *r,
           const TableStep *steps,
           guint            n_steps,
           gboolean         gpu,
           GError         **error)
{
  for (guint i = 0; i < n_steps; i++)
    {
      if (steps[i].gpu != gpu)
        continue;
      r->share = steps[i].weight;
      if ((r->flags & steps[i].flag) && _sl_reader_table_exists (r, steps[i].table))
        {
          _sl_reader_report_progress (r, r->done, steps[i].table);
          if (g_cancellable_set_error_if_cancelled (r->cancellable, error))
            return FALSE;
          r->last_gpu_array = NULL;
          if (!steps[i].read (r, error))
            return FALSE;
        }
      else if (step_again (steps, i))
        ;
      else if ((r->flags & steps[i].flag) && _sl_reader_view_exists (r, steps[i].table))
        _sl_trace_warn (r->trace, "%s is a view, not a table; it was not read", steps[i].table);
      else if (!(r->flags & steps[i].flag) && _sl_reader_table_exists (r, steps[i].table))
        _sl_reader_not_read (r, steps[i].table, "not needed by this command");
      r->done += steps[i].weight;
    }
  return TRUE;
}

typedef struct
{
  SlReader        *r;
  const TableStep *steps;
  guint            n_steps;
  GError          *error;
  gboolean         ok;
} GpuJob;

static gpointer
gpu_job_run (gpointer data)
{
  GpuJob *job = data;
  job->ok = run_steps (job->r, job->steps, job->n_steps, TRUE, &job->error);
  if (!job->ok)
    g_atomic_int_compare_and_exchange (&job->r->prog->failed, 0, 2);
  return NULL;
}

gboolean
_sl_reader_read (SlTrace        *trace,
                 sqlite3        *db,
                 SlLoadFlags     flags,
                 SlTrace        *prev,
                 SlProgressFunc  progress,
                 gpointer        user_data,
                 GCancellable   *cancellable,
                 GError        **error)
{
  /* CPU-side tables on this thread, GPU-side tables on a second one (each with its own
   * connection): on two cores a load costs about the larger half, not the sum */
  static const TableStep steps[] = {
    { SL_LOAD_CUDA_API, "CUPTI_ACTIVITY_KIND_RUNTIME", FALSE, _sl_reader_read_runtime, 0.35 },
    { SL_LOAD_KERNELS, "CUPTI_ACTIVITY_KIND_KERNEL", TRUE, _sl_reader_read_kernels, 0.34 },
    { SL_LOAD_MEMCPY, "CUPTI_ACTIVITY_KIND_MEMCPY", TRUE, _sl_reader_read_memcpy, 0.04 },
    { SL_LOAD_MEMSET, "CUPTI_ACTIVITY_KIND_MEMSET", TRUE, _sl_reader_read_memset, 0.02 },
    /* graph launches are kernels' work (their kernels are not in the KERNEL table) */
    { SL_LOAD_KERNELS, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", TRUE, _sl_reader_read_graphs, 0.01 },
    { SL_LOAD_SYNC, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", TRUE, _sl_reader_read_sync, 0.02 },
    { SL_LOAD_NVTX, "NVTX_EVENTS", FALSE, _sl_reader_read_nvtx, 0.15 },
    { SL_LOAD_OSRT, "OSRT_API", FALSE, _sl_reader_read_osrt, 0.04 },
    { SL_LOAD_SAMPLES, "COMPOSITE_EVENTS", FALSE, _sl_reader_read_samples, 0.03 },
    { SL_LOAD_SCHED, "SCHED_EVENTS", FALSE, _sl_reader_read_sched, 0.03 },
    /* where graphs and their nodes were made: a few rows per graph, beside the CUDA calls */
    { SL_LOAD_CUDA_API, "CUDA_GRAPH_EVENTS", FALSE, _sl_reader_read_graph_made, 0.001 },
    { SL_LOAD_CUDA_API, "CUDA_GRAPH_NODE_EVENTS", FALSE, _sl_reader_read_graph_node_made, 0.001 },
    /* GPU memory allocated and freed (nsys --cuda-memory-usage), on the GPU tables' thread */
    { SL_LOAD_MEMCPY, "CUDA_GPU_MEMORY_USAGE_EVENTS", TRUE, _sl_reader_read_mem_usage, 0.005 },
    /* unified memory's page faults (nsys --cuda-um-{gpu,cpu}-page-faults), beside the
     * migrations on the GPU tables' thread: both into one array, so one thread */
    { SL_LOAD_MEMCPY, "CUDA_UM_GPU_PAGE_FAULT_EVENTS", TRUE, _sl_reader_read_gpu_faults, 0.005 },
    { SL_LOAD_MEMCPY, "CUDA_UM_CPU_PAGE_FAULT_EVENTS", TRUE, _sl_reader_read_cpu_faults, 0.005 },
    /* GPU metrics (nsys --gpu-metrics-devices): samples of every GPU, on the GPU tables' thread */
    { SL_LOAD_KERNELS, "GPU_METRICS", TRUE, _sl_reader_read_gpu_metrics, 0.02 },
    /* MPI calls (nsys -t mpi), and NVTX ranges of a domain "MPI" (after NVTX: its domains) */
    { SL_LOAD_OSRT, "MPI_P2P_EVENTS", FALSE, _sl_reader_read_mpi_p2p, 0.002 },
    { SL_LOAD_OSRT, "MPI_COLLECTIVES_EVENTS", FALSE, _sl_reader_read_mpi_coll, 0.002 },
    { SL_LOAD_OSRT, "MPI_START_WAIT_EVENTS", FALSE, _sl_reader_read_mpi_wait, 0.001 },
    { SL_LOAD_OSRT, "MPI_OTHER_EVENTS", FALSE, _sl_reader_read_mpi_other, 0.001 },
    { SL_LOAD_NVTX, "NVTX_EVENTS", FALSE, _sl_reader_read_mpi_nvtx, 0.001 },
    /* OpenMP and OpenACC (nsys -t openmp,openacc; sightline record -t openmp): host-side
     * regions and events, read as the OS runtime calls are */
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_THREAD", FALSE, _sl_reader_read_omp_thread, 0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_PARALLEL", FALSE, _sl_reader_read_omp_parallel, 0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_SYNC_REGION_WAIT", FALSE, _sl_reader_read_omp_sync_wait,
      0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_SYNC_REGION", FALSE, _sl_reader_read_omp_sync, 0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_TASK", FALSE, _sl_reader_read_omp_task, 0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_MASTER", FALSE, _sl_reader_read_omp_master, 0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_REDUCTION", FALSE, _sl_reader_read_omp_reduction, 0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_TASK_CREATE", FALSE, _sl_reader_read_omp_task_create,
      0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_TASK_SCHEDULE", FALSE, _sl_reader_read_omp_task_schedule,
      0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_CANCEL", FALSE, _sl_reader_read_omp_cancel, 0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_MUTEX_WAIT", FALSE, _sl_reader_read_omp_mutex_wait, 0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_CRITICAL_SECTION", FALSE, _sl_reader_read_omp_critical,
      0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_MUTEX_RELEASED", FALSE, _sl_reader_read_omp_mutex_released,
      0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_LOCK_INIT", FALSE, _sl_reader_read_omp_lock_init, 0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_LOCK_DESTROY", FALSE, _sl_reader_read_omp_lock_destroy,
      0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_WORKSHARE", FALSE, _sl_reader_read_omp_workshare, 0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_DISPATCH", FALSE, _sl_reader_read_omp_dispatch, 0.001 },
    { SL_LOAD_OSRT, "OPENMP_EVENT_KIND_FLUSH", FALSE, _sl_reader_read_omp_flush, 0.001 },
    { SL_LOAD_OSRT, "CUPTI_ACTIVITY_KIND_OPENACC_DATA", FALSE, _sl_reader_read_acc_data, 0.001 },
    { SL_LOAD_OSRT, "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH", FALSE,
      _sl_reader_read_acc_launch, 0.001 },
    { SL_LOAD_OSRT, "CUPTI_ACTIVITY_KIND_OPENACC_OTHER", FALSE, _sl_reader_read_acc_other, 0.001 },
  };
  SlReader r = { 0 };
  gboolean ok = FALSE, any_table = FALSE;
  sqlite3_stmt *probe = NULL;
  int rc;

  SlReaderProgress prog = { 0 };
  g_mutex_init (&prog.lock);
  r.trace = trace;
  r.db = db;
  r.prog = &prog;
  r.flags = flags;
  r.progress = progress;
  r.user_data = user_data;
  r.cancellable = cancellable;
  r.last_thread = -1;
  r.prev = prev;

  /* nsys's own report (by its name, and not SQLite): SQLite would call a short one an empty
   * database, a longer one "not a database" */
  if (sl_nsys_report_is (trace->path))
    {
      g_autofree char *command = sl_nsys_report_export_command (trace->path);
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_NSYS_REPORT,
                   "%s: an Nsight Systems report, which only nsys reads; Sightline opens its "
                   "SQLite export: %s", trace->path, command);
      return FALSE;
    }
  /* The first read of the schema tells a SQLite file from anything else. */
  rc = sqlite3_prepare_v2 (db, "SELECT count(*) FROM sqlite_master", -1, &probe, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_step (probe);
  if (rc != SQLITE_ROW)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN,
                   "%s: not a readable SQLite trace: %s", trace->path, sqlite3_errmsg (db));
      sqlite3_finalize (probe);
      return FALSE;
    }
  sqlite3_finalize (probe);

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    any_table |= _sl_reader_table_exists (&r, steps[i].table);
  if (!_sl_reader_table_exists (&r, "StringIds") && !any_table)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_NOT_TRACE,
                   "%s: not an Nsight Systems trace: it has neither a StringIds table nor any "
                   "event table (CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, OSRT_API, COMPOSITE_EVENTS)",
                   trace->path);
      return FALSE;
    }

  _sl_reader_init_tables (&r);
  if ((flags & SL_LOAD_LIVE) && !_sl_live_begin (&r, error))
    goto out;

  if (!_sl_reader_table_exists (&r, "StringIds"))
    _sl_trace_warn (trace, _sl_reader_view_exists (&r, "StringIds")
                           ? "StringIds is a view, not a table; it was not read: names are missing"
                           : "the trace has no StringIds table: names are missing");
  _sl_reader_strings_open (&r);
  _sl_reader_read_schema_version (&r);
  _sl_reader_read_enums (&r);
  if (!_sl_reader_read_processes (&r, error) || !_sl_reader_read_gpus (&r, error))
    goto out;

  /* the GPU side gets its own reader: own connection, string cache and row caches; it shares
   * only the GPU-side tables, which the CPU side never touches */
  SlReader g = r;
  GpuJob job = { &g, steps, G_N_ELEMENTS (steps), NULL, TRUE };
  GThread *worker = NULL;
  gboolean want_gpu = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    want_gpu |= steps[i].gpu && (flags & steps[i].flag)
                && _sl_reader_table_exists (&r, steps[i].table);
  g.slot = 1;
  g.str_map = NULL;
  g.str_map_len = 0;
  g.str_map_big = NULL;
  g.str_stmt = NULL;
  g.n_missing_str = g.n_bad_utf8 = 0;
  g.last_thread = -1;
  g.last_gpu_array = NULL;
  memset (g.memcpy_names, 0, sizeof g.memcpy_names);
  /* an append reads few rows: one thread, one connection; but the rest of a first look is
   * most of a file (sl_trace_load_progressive), read on two threads as a fresh load is */
  g.db = want_gpu && (prev == NULL || prev->first_look > 0)
         ? _sl_trace_open_db (trace->path, (flags & SL_LOAD_LIVE) != 0, NULL) : NULL;
  if (g.db != NULL)
    {
      _sl_reader_strings_open (&g);
      worker = g_thread_new ("sl-load-gpu", gpu_job_run, &job);
    }
  else if (want_gpu)
    job.ok = run_steps (&r, steps, G_N_ELEMENTS (steps), TRUE, &job.error);

  gint64 t0 = g_get_monotonic_time ();
  gboolean cpu_ok = run_steps (&r, steps, G_N_ELEMENTS (steps), FALSE, error);
  if (!cpu_ok)
    g_atomic_int_compare_and_exchange (&prog.failed, 0, 1);
  if (worker != NULL)
    g_thread_join (worker);
  t0 = _sl_live_phase_end (SL_LIVE_READ, t0);
  if (g.db != NULL)
    {
      _sl_reader_strings_close (&g);
      sqlite3_close (g.db);
      r.n_missing_str += g.n_missing_str;
      r.n_bad_utf8 += g.n_bad_utf8;
    }
  /* report the first failure; the other side only stopped because of it */
  if (!cpu_ok || !job.ok)
    {
      if (!job.ok && (cpu_ok || g_atomic_int_get (&prog.failed) == 2))
        {
          g_clear_error (error);
          g_propagate_error (error, job.error);
        }
      else
        g_clear_error (&job.error);
      goto out;
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;
  _sl_reader_build_lanes (&r);
  _sl_live_phase_end (SL_LIVE_BUILD, t0);
  if (flags & SL_LOAD_LIVE)
    _sl_live_end (&r);
  if (r.n_missing_str > 0)
    _sl_trace_warn (trace, "%" G_GUINT64_FORMAT " string ids point nowhere in StringIds; "
                           "those names are empty",
                    r.n_missing_str);
  ok = TRUE;

out:
  _sl_reader_strings_close (&r);
  _sl_reader_clear (&r);
  g_mutex_clear (&prog.lock);
  return ok;
}

