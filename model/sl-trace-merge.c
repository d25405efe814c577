/* sl-trace-merge.c: several traces (a file per rank, nsys exports and Kineto JSON mixed) as one
 * SlTrace on one time axis, so that stats, analysis and the timeline work on it unchanged.
 *
 * The files are loaded in parallel, each by the ordinary loader, then merged by moving their
 * lanes, never copying events: a lane's array changes owner, and one pass over it rewrites what
 * points into the tables of its file (string ids, kernel/copy info and call-chain indexes, OS
 * runtime backtrace ids, the global ids of launch links) and shifts its times by the file's
 * offset.  Tables (processes, threads, GPUs, strings, infos, chains, diagnostics) are
 * concatenated with their indexes offset by what the earlier files held; strings are interned
 * once per distinct text.  Indexes that hold times (interval trees, LOD pyramids, GPU busy
 * unions) are shifted in place rather than rebuilt: eight 1 M-event files move ~256 MB of events
 * and rebuild nothing.
 *
 * Alignment: nsys times count from the session's start, whose wall-clock reading
 * TARGET_INFO_SESSION_START_TIME gives; Kineto times are ns since the epoch already (the reader
 * adds baseTimeNanoseconds).  The file that started first keeps its time base; every other file
 * is shifted by the difference of the wall clocks.  See ../notes/design17.md.
 */
#include "sl-mpi.h"
#include "sl-openmp.h"
#include "sl-trace-private.h"
#include "sl-format.h"
#include "sl-metrics.h"
#include "sl-nvtx-proj.h"
#include "sl-summaries.h"

#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* ---- a file's identity: wall clock and rank --------------------------------------------- */

/* Kineto's times are ns since 1970 when they are past 2001-09-09 (10^18 ns) and before 2096;
 * a Chrome trace of another tool counts from its own start. */
#define EPOCH_MIN G_GINT64_CONSTANT (1000000000000000000)
#define EPOCH_MAX G_GINT64_CONSTANT (4000000000000000000)

typedef struct
{
  gboolean has_clock;
  SlTime   wall_zero;    /* wall clock of the file's time 0, ns since 1970 */
  gint64   rank;         /* -1 when unknown */
} FileIdentity;

/* The wall clock of a file's time 0.  TARGET_INFO_SESSION_START_TIME.utcEpochNs is the wall
 * clock at the start of the capture, which _sl_trace_session_start places on the events' time
 * line: an nsys export's 0 (moved by --ts-shift; a --ts-normalize'd export has lost it), a
 * Sightline recording's systemClockNs.  Not ANALYSIS_DETAILS.startTime, nor an nsys export's
 * systemClockNs: both are the target's own clock at the start (seconds to days of uptime: 6324 s
 * in nsys-2026.1-osrt-sampling.sqlite, whose events lie in 0.00007 s … 1.75 s), while every
 * event of a real export lies within ANALYSIS_DETAILS.duration after 0.  A Sightline recording
 * from before 2026-12 (systemClockNs but no utcTime) wrote the wall clock at time 0 itself. */
static gboolean
nsys_wall_zero (sqlite3 *db,
                SlTime  *wall_zero)
{
  sqlite3_stmt *stmt = NULL;
  gint64 utc = 0, start = 0;
  gboolean has_utc = FALSE, has_clock = FALSE, has_text = FALSE;

  if (sqlite3_prepare_v2 (db, "SELECT utcEpochNs, systemClockNs, utcTime "
                              "FROM TARGET_INFO_SESSION_START_TIME LIMIT 1",
                          -1, &stmt, NULL) != SQLITE_OK
      && sqlite3_prepare_v2 (db, "SELECT utcEpochNs, NULL, utcTime "
                                 "FROM TARGET_INFO_SESSION_START_TIME LIMIT 1",
                             -1, &stmt, NULL) != SQLITE_OK)
    {
      sqlite3_finalize (stmt);
      return FALSE;
    }
  if (sqlite3_step (stmt) == SQLITE_ROW)
    {
      has_utc = sqlite3_column_type (stmt, 0) == SQLITE_INTEGER;
      utc = sqlite3_column_int64 (stmt, 0);
      has_clock = sqlite3_column_type (stmt, 1) == SQLITE_INTEGER;
      has_text = sqlite3_column_type (stmt, 2) != SQLITE_NULL;
    }
  sqlite3_finalize (stmt);
  if (!has_utc || utc < EPOCH_MIN || utc > EPOCH_MAX)
    return FALSE;
  if (has_clock && !has_text)
    start = 0;   /* an older Sightline recording: utcEpochNs is the wall clock at time 0 */
  else if (!_sl_trace_session_start (db, &start))
    return FALSE;
  return !__builtin_sub_overflow (utc, start, wall_zero);
}

static FileIdentity
file_identity (SlTrace *trace)
{
  FileIdentity id = { FALSE, 0, sl_trace_get_rank (trace) };

  if (trace->is_json)
    {
      if (trace->n_events > 0 && trace->start >= EPOCH_MIN && trace->start <= EPOCH_MAX)
        id.has_clock = TRUE;
      return id;
    }
  sqlite3 *db = trace->path != NULL ? _sl_trace_open_db (trace->path, FALSE, NULL) : NULL;
  if (db == NULL)
    return id;
  id.has_clock = nsys_wall_zero (db, &id.wall_zero);
  sqlite3_close (db);
  return id;
}

static void
source_clear (gpointer p)
{
  SlSource *s = p;
  g_free (s->path);
  g_free (s->label);
}

static char *
base_label (const char *path,
            gint64      rank)
{
  if (rank >= 0)
    return g_strdup_printf ("rank %" G_GINT64_FORMAT, rank);
  return g_path_get_basename (path);
}

/* The one source of a trace read from one file; `wall_zero` is kept in `wall_start` until the
 * merge reads it (the wall clock of time 0 is what it needs). */
static SlSource
make_source (SlTrace      *trace,
             FileIdentity *id)
{
  SlSource s = { 0 };

  s.path = g_strdup (trace->path);
  s.rank = id->rank;
  s.label = base_label (trace->path, id->rank);
  s.offset = 0;
  s.has_clock = id->has_clock;
  s.wall_start = id->has_clock && trace->n_events > 0 ? _sl_time_add (id->wall_zero, trace->start)
                                                      : 0;
  s.start = trace->start;
  s.end = trace->end;
  s.n_events = trace->n_events;
  return s;
}

/* Makes the single source of a one-file trace when first needed (a few ms: the file is opened
 * again for its clock and rank). */
static void
ensure_sources (SlTrace *trace)
{
  g_mutex_lock (&trace->lock);
  if (trace->sources == NULL)
    {
      FileIdentity id = file_identity (trace);
      SlSource s = make_source (trace, &id);
      GArray *sources = g_array_new (FALSE, TRUE, sizeof (SlSource));
      g_array_set_clear_func (sources, source_clear);
      g_array_append_val (sources, s);
      trace->sources = sources;
    }
  g_mutex_unlock (&trace->lock);
}

guint
sl_trace_get_n_sources (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  ensure_sources (trace);
  return trace->sources->len;
}

const SlSource *
sl_trace_get_source (SlTrace *trace,
                     guint    i)
{
  g_return_val_if_fail (trace != NULL, NULL);
  ensure_sources (trace);
  g_return_val_if_fail (i < trace->sources->len, NULL);
  return &g_array_index (trace->sources, SlSource, i);
}

/* ---- the merge -------------------------------------------------------------------------- */

/* What one file's indexes become in the merged trace. */
typedef struct
{
  SlTrace      *trace;
  FileIdentity  id;
  SlTime        offset;
  gboolean      given;        /* offset given by the caller */
  guint         index;

  guint32      *strs;         /* old string id -> new */
  guint         n_strs;
  gboolean      same_strs;    /* the map is the identity */
  guint64       tag;          /* XORed into global pids and tids to keep processes apart */
  guint32       process_base, thread_base, gpu_base;
  guint32       kernel_base, n_kernels, copy_base, n_copies;
  guint32       mpi_base, n_mpi;    /* the file's MPI calls past the merged ones' */
  guint32       omp_base, n_omp;    /* its OpenMP and OpenACC events' details, the same */
  guint32       chain_base, n_chains;
  GArray       *osrt_ids;     /* the file's OSRT_CALLCHAINS ids (SlChainId), sorted */
  const SlChainId *osrt;
  guint         n_osrt;
  guint32       osrt_base;    /* new id of osrt[k] = osrt_base + k + 1 */

  SlLane      **lanes;        /* in the file's global-id order */
  guint32      *old_base;
  guint         n_lanes;
} SrcMap;

static inline guint32
map_str (const SrcMap *m,
         guint32       id)
{
  return id < m->n_strs ? m->strs[id] : SL_NO_STR;
}

static guint32
map_osrt (const SrcMap *m,
          guint32       id)
{
  guint lo = 0, hi = m->n_osrt;

  if (id == 0)
    return 0;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (m->osrt[mid].id < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < m->n_osrt && m->osrt[lo].id == id ? m->osrt_base + lo + 1 : 0;
}

/* A global id of the file (a launch link) as a global id of the merged trace; `cache` is the
 * file's lane of the last one (the links of a lane mostly go to one lane). */
static guint32
map_global (const SrcMap *m,
            guint32       id,
            guint        *cache)
{
  guint k = *cache;

  if (id == SL_NO_LINK)
    return SL_NO_LINK;
  if (k >= m->n_lanes || id < m->old_base[k] || id - m->old_base[k] >= m->lanes[k]->n_events)
    {
      guint lo = 0, hi = m->n_lanes;
      while (hi - lo > 1)
        {
          guint mid = (lo + hi) / 2;
          if (m->old_base[mid] <= id)
            lo = mid;
          else
            hi = mid;
        }
      k = lo;
      if (m->n_lanes == 0 || id < m->old_base[k] || id - m->old_base[k] >= m->lanes[k]->n_events)
        return SL_NO_LINK;
      *cache = k;
    }
  return m->lanes[k]->base + (id - m->old_base[k]);
}

static void
shift_union (SlBusyUnion *u,
             SlTime       off)
{
  for (gsize k = 0; k < u->n_chunks; k++)
    {
      u->chunks[k].base = _sl_time_add (u->chunks[k].base, off);
      if (u->bases != NULL)
        u->bases[k] = _sl_time_add (u->bases[k], off);
    }
  u->idx_origin = _sl_time_add (u->idx_origin, off);
}

static void
shift_lane_index (SlLane *lane,
                  SlTime  off)
{
  if (lane->max_end != NULL)
    for (gsize k = 0; k < lane->n_events; k++)
      lane->max_end[k] = _sl_time_add (lane->max_end[k], off);
  /* the buckets' edge times are relative to their own start: only the origin moves, unless a
   * time a bucket can give (its start, ± an offset under 2^32) leaves the range once moved, as
   * in an absurd lane whose times the move saturated: then the pyramid is built anew */
  const SlTime margin = (SlTime) 1 << 32;
  SlTime span, lo, hi;
  if (lane->n_lod > 0
      && (__builtin_mul_overflow ((SlTime) lane->lod[0].n, lane->lod[0].width, &span)
          || __builtin_add_overflow (lane->lod_origin, span, &hi)
          || __builtin_add_overflow (hi, margin, &hi) || __builtin_add_overflow (hi, off, &hi)
          || __builtin_sub_overflow (lane->lod_origin, margin, &lo)
          || __builtin_add_overflow (lo, off, &lo)))
    _sl_lane_build_lod (lane);
  else
    lane->lod_origin = _sl_time_add (lane->lod_origin, off);
}

/* The one pass over a moved lane's events: names, what points into its file's tables, links,
 * times. */
static void
rewrite_lane (SlLane       *lane,
              const SrcMap *m)
{
  guint cache = 0;
  SlEvent *ev = lane->events;
  gsize n = lane->n_events;
  SlTime off = m->offset;
  SlLaneKind kind = lane->kind;
  gboolean gpu = kind == SL_LANE_KERNELS || kind == SL_LANE_MEMCPY || kind == SL_LANE_MEMSET
                 || kind == SL_LANE_SYNC || kind == SL_LANE_GRAPHS;

  for (gsize k = 0; k < n; k++)
    {
      SlEvent *e = &ev[k];
      if (!m->same_strs)
        e->name = map_str (m, e->name);
      if (off != 0)
        {
          e->start = _sl_time_add (e->start, off);
          e->end = _sl_time_add (e->end, off);
        }
      switch (kind)
        {
        case SL_LANE_NVTX:
          if (!m->same_strs)
            e->corr = map_str (m, e->corr);   /* the domain */
          break;
        case SL_LANE_OSRT:
          e->corr = map_osrt (m, e->corr);
          break;
        case SL_LANE_SAMPLES:
          e->aux = e->aux < m->n_chains ? e->aux + m->chain_base : G_MAXUINT32;
          break;
        case SL_LANE_KERNELS:
        case SL_LANE_GRAPHS:
          e->aux = e->aux < m->n_kernels ? e->aux + m->kernel_base : G_MAXUINT32;
          break;
        case SL_LANE_MEMCPY:
        case SL_LANE_MEMSET:
          e->aux = e->aux < m->n_copies ? e->aux + m->copy_base : G_MAXUINT32;
          break;
        case SL_LANE_MPI:
          e->corr = e->corr < m->n_mpi ? e->corr + m->mpi_base : G_MAXUINT32;
          break;
        case SL_LANE_OPENMP:
        case SL_LANE_OPENACC:
          e->corr = e->corr < m->n_omp ? e->corr + m->omp_base : G_MAXUINT32;
          break;
        case SL_LANE_CUDA_API:
        case SL_LANE_SYNC:
        case SL_LANE_SCHED:
        case SL_N_LANE_KINDS:
          break;
        }
      if (gpu || kind == SL_LANE_CUDA_API)
        e->link = map_global (m, e->link, &cache);
    }
  if (off != 0)
    shift_lane_index (lane, off);
}

/* Lanes are independent: the pass over them runs on every core, each thread taking the next
 * lane (8 × 10^6 events: ~0.1 s on one core). */
typedef struct
{
  const SrcMap *maps;
  guint         n;
  gint          next;      /* atomic: the next lane, counted over all files' lanes */
} RewriteJob;

static gpointer
rewrite_worker (gpointer data)
{
  RewriteJob *job = data;

  for (;;)
    {
      guint k = (guint) g_atomic_int_add (&job->next, 1);
      guint i = 0;
      while (i < job->n && k >= job->maps[i].n_lanes)
        k -= job->maps[i++].n_lanes;
      if (i == job->n)
        return NULL;
      rewrite_lane (job->maps[i].lanes[k], &job->maps[i]);
    }
}

static void
rewrite_lanes (const SrcMap *maps,
               guint         n)
{
  RewriteJob job = { maps, n, 0 };
  guint threads = MAX (g_get_num_processors (), 1);
  g_autofree GThread **extra = g_new0 (GThread *, threads);
  gsize events = 0;

  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < maps[i].n_lanes; k++)
      events += maps[i].lanes[k]->n_events;
  /* a thread costs ~50 µs to start: not for merges of a few thousand events (the tests run
   * both ways: two PyTorch ranks on one thread, two nsys exports on all) */
  if (events < 32768)
    threads = 1;
  for (guint t = 1; t < threads; t++)
    extra[t] = g_thread_new ("sl-merge", rewrite_worker, &job);
  rewrite_worker (&job);
  for (guint t = 1; t < threads; t++)
    g_thread_join (extra[t]);
}

/* A tag for the file's global pids (in the hardware-id byte, 0 in every file seen) that no
 * earlier file uses: the same pid in two files (two hosts, or one file twice) stays two
 * processes. */
static guint64
choose_tag (SlTrace    *trace,
            GHashTable *taken)
{
  for (guint64 t = 0; t < 256; t++)
    {
      guint64 tag = t << 56;
      gboolean clash = FALSE;
      for (guint i = 0; i < trace->processes->len && !clash; i++)
        {
          guint64 gpid = g_array_index (trace->processes, SlProcess, i).global_pid ^ tag;
          clash = g_hash_table_contains (taken, &gpid);
        }
      for (guint i = 0; i < trace->lanes->len && !clash; i++)
        {
          guint64 gpid = ((SlLane *) g_ptr_array_index (trace->lanes, i))->global_pid ^ tag;
          clash = g_hash_table_contains (taken, &gpid);
        }
      if (!clash)
        return tag;
    }
  return 0;
}

static void
take_gpid (GHashTable *taken,
           guint64     gpid)
{
  if (!g_hash_table_contains (taken, &gpid))
    g_hash_table_add (taken, g_memdup2 (&gpid, sizeof gpid));
}

/* Tables of one file appended to the merged trace, its lanes handed over. */
static void
append_file (SlTrace    *merged,
             SrcMap     *m,
             GHashTable *taken)
{
  SlTrace *t = m->trace;
  const char *label = g_array_index (merged->sources, SlSource, m->index).label;

  /* strings, each distinct text once */
  m->n_strs = t->strs->len;
  m->strs = g_new (guint32, MAX (m->n_strs, 1));
  m->same_strs = TRUE;
  for (guint i = 0; i < m->n_strs; i++)
    {
      m->strs[i] = _sl_trace_intern (merged, g_ptr_array_index (t->strs, i), -1);
      m->same_strs &= m->strs[i] == i;
    }

  m->tag = choose_tag (t, taken);
  m->process_base = merged->processes->len;
  for (guint i = 0; i < t->processes->len; i++)
    {
      SlProcess p = g_array_index (t->processes, SlProcess, i);
      p.global_pid ^= m->tag;
      p.name = map_str (m, p.name);
      p.command_line = map_str (m, p.command_line);
      p.source = m->index;
      take_gpid (taken, p.global_pid);
      g_array_append_val (merged->processes, p);
    }
  m->thread_base = merged->threads->len;
  for (guint i = 0; i < t->threads->len; i++)
    {
      SlThread th = g_array_index (t->threads, SlThread, i);
      th.global_tid ^= m->tag;
      th.name = map_str (m, th.name);
      th.process += m->process_base;
      th.source = m->index;
      g_array_append_val (merged->threads, th);
    }
  m->gpu_base = merged->gpus->len;
  for (guint i = 0; i < t->gpus->len; i++)
    {
      SlGpu g = g_array_index (t->gpus, SlGpu, i);
      g.name = map_str (m, g.name);
      g.bus_location = map_str (m, g.bus_location);
      g.uuid = map_str (m, g.uuid);
      g.chip_name = map_str (m, g.chip_name);
      g.source = m->index;
      g_array_append_val (merged->gpus, g);
    }

  m->kernel_base = merged->kernel_infos->len;
  m->n_kernels = t->kernel_infos->len;
  for (guint i = 0; i < t->kernel_infos->len; i++)
    {
      SlKernelInfo k = g_array_index (t->kernel_infos, SlKernelInfo, i);
      k.demangled_name = map_str (m, k.demangled_name);
      k.short_name = map_str (m, k.short_name);
      k.mangled_name = map_str (m, k.mangled_name);
      g_array_append_val (merged->kernel_infos, k);
    }
  m->copy_base = merged->copy_infos->len;
  m->n_copies = t->copy_infos->len;
  g_array_append_vals (merged->copy_infos, t->copy_infos->data, t->copy_infos->len);
  /* MPI calls: an MPI lane's corr indexes them */
  m->mpi_base = merged->mpi_calls != NULL ? merged->mpi_calls->len : 0;
  m->n_mpi = t->mpi_calls != NULL ? t->mpi_calls->len : 0;
  if (m->n_mpi > 0)
    {
      if (merged->mpi_calls == NULL)
        merged->mpi_calls = g_array_new (FALSE, FALSE, sizeof (SlMpiCall));
      g_array_append_vals (merged->mpi_calls, t->mpi_calls->data, t->mpi_calls->len);
    }
  /* OpenMP and OpenACC details: their file, function and variable as new string ids */
  m->omp_base = merged->omp_events != NULL ? merged->omp_events->len : 0;
  m->n_omp = t->omp_events != NULL ? t->omp_events->len : 0;
  if (m->n_omp > 0 && merged->omp_events == NULL)
    merged->omp_events = g_array_new (FALSE, FALSE, sizeof (SlOmpEvent));
  for (guint i = 0; i < m->n_omp; i++)
    {
      SlOmpEvent o = g_array_index (t->omp_events, SlOmpEvent, i);
      o.file = map_str (m, o.file);
      o.func = map_str (m, o.func);
      o.var = map_str (m, o.var);
      g_array_append_val (merged->omp_events, o);
    }

  /* call chains: offsets past the merged symbols, symbols and modules as new string ids */
  m->chain_base = merged->chain_offsets->len - 1;
  m->n_chains = t->chain_offsets->len > 0 ? t->chain_offsets->len - 1 : 0;
  guint32 symbol_base = merged->chain_symbols->len;
  for (guint i = 1; i < t->chain_offsets->len; i++)
    {
      guint32 o = g_array_index (t->chain_offsets, guint32, i) + symbol_base;
      g_array_append_val (merged->chain_offsets, o);
    }
  for (guint i = 0; i < t->chain_symbols->len; i++)
    {
      guint32 sym = map_str (m, g_array_index (t->chain_symbols, guint32, i));
      guint32 mod = map_str (m, g_array_index (t->chain_modules, guint32, i));
      g_array_append_val (merged->chain_symbols, sym);
      g_array_append_val (merged->chain_modules, mod);
    }
  m->osrt_ids = g_array_ref (t->osrt_chains);
  m->osrt = (const SlChainId *) t->osrt_chains->data;
  m->n_osrt = t->osrt_chains->len;
  m->osrt_base = merged->osrt_chains->len;
  for (guint i = 0; i < m->n_osrt; i++)
    {
      SlChainId c = { m->osrt_base + i + 1, m->osrt[i].chain + m->chain_base };
      g_array_append_val (merged->osrt_chains, c);
    }
  /* CUDA calls' backtraces: the process as its lanes are renamed, the chain past the merged */
  for (guint i = 0; i < t->cuda_chains->len; i++)
    {
      SlCudaChain c = g_array_index (t->cuda_chains, SlCudaChain, i);
      c.global_pid ^= m->tag;
      c.chain += m->chain_base;
      g_array_append_val (merged->cuda_chains, c);
    }
  _sl_trace_sort_cuda_chains (merged);
  /* CUDA event records and waits: the process renamed, times on the merged axis */
  for (guint i = 0; i < t->cuda_events->len; i++)
    {
      SlCudaEventRow e = g_array_index (t->cuda_events, SlCudaEventRow, i);
      e.global_pid ^= m->tag;
      if (e.timestamp != 0)
        e.timestamp = _sl_time_add (e.timestamp, m->offset);
      g_array_append_val (merged->cuda_events, e);
    }
  for (guint i = 0; i < t->event_waits->len; i++)
    {
      SlCudaWaitRow w = g_array_index (t->event_waits, SlCudaWaitRow, i);
      w.global_pid ^= m->tag;
      w.start = _sl_time_add (w.start, m->offset);
      g_array_append_val (merged->event_waits, w);
    }
  _sl_trace_sort_event_waits (merged);
  /* where graphs and nodes were made: the thread renamed, times on the merged axis */
  for (guint i = 0; i < t->graph_made->len; i++)
    {
      SlGraphMade g = g_array_index (t->graph_made, SlGraphMade, i);
      g.global_tid ^= m->tag;
      g.start = _sl_time_add (g.start, m->offset);
      g.end = _sl_time_add (g.end, m->offset);
      g.name = map_str (m, g.name);
      g_array_append_val (merged->graph_made, g);
    }
  /* GPU memory rows: the process renamed, times on the merged axis, the file's GPUs */
  for (guint i = 0; i < t->mem_usage->len; i++)
    {
      SlMemUsage u = g_array_index (t->mem_usage, SlMemUsage, i);
      u.global_pid ^= m->tag;
      u.start = _sl_time_add (u.start, m->offset);
      u.gpu += (gint32) m->gpu_base;
      u.name = map_str (m, u.name);
      g_array_append_val (merged->mem_usage, u);
    }
  /* page faults: the process renamed, times on the merged axis, the file's GPUs */
  for (guint i = 0; i < t->um_faults->len; i++)
    {
      SlUmFault f = g_array_index (t->um_faults, SlUmFault, i);
      f.global_pid ^= m->tag;
      f.start = _sl_time_add (f.start, m->offset);
      f.end = _sl_time_add (f.end, m->offset);
      if (f.gpu >= 0)
        f.gpu += (gint32) m->gpu_base;
      f.instruction = map_str (m, f.instruction);
      f.source_file = map_str (m, f.source_file);
      g_array_append_val (merged->um_faults, f);
    }
  /* GPU metric series: the file's GPUs, names mapped, samples on the merged axis (adding the
   * offset keeps each series in time order); GPUs grow by file, so the order by GPU holds */
  guint64 sample_base = merged->metric_times->len;
  for (guint i = 0; i < t->metric_series->len; i++)
    {
      SlMetricSeries s = g_array_index (t->metric_series, SlMetricSeries, i);
      s.gpu += (gint32) m->gpu_base;
      s.name = map_str (m, s.name);
      s.first += sample_base;
      g_array_append_val (merged->metric_series, s);
    }
  g_array_append_vals (merged->metric_values, t->metric_values->data, t->metric_values->len);
  for (guint i = 0; i < t->metric_times->len; i++)
    {
      SlTime time = _sl_time_add (g_array_index (t->metric_times, SlTime, i), m->offset);
      g_array_append_val (merged->metric_times, time);
    }

  /* enum labels: the first file's wins (they are nsys's own, the same in every file) */
  for (guint e = 0; e < SL_N_ENUMS; e++)
    {
      GHashTableIter iter;
      gpointer key, value;
      g_hash_table_iter_init (&iter, t->enum_labels[e]);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (!g_hash_table_contains (merged->enum_labels[e], key))
          g_hash_table_insert (merged->enum_labels[e], g_memdup2 (key, sizeof (gint64)),
                               g_string_chunk_insert_const (merged->chunk, value));
    }

  for (guint i = 0; i < t->diagnostics->len; i++)
    {
      SlDiagnostic d = g_array_index (t->diagnostics, SlDiagnostic, i);
      d.timestamp = _sl_time_add (d.timestamp, m->offset);
      d.text = map_str (m, d.text);
      if (d.global_pid != 0)
        d.global_pid ^= m->tag;
      g_array_append_val (merged->diagnostics, d);
    }

  /* the inventory's records and the warnings, under the file's label */
  for (guint i = 0; i < t->table_reads->len; i++)
    {
      SlTableRead r = g_array_index (t->table_reads, SlTableRead, i);
      r.table = g_strdup_printf ("%s: %s", label, r.table);
      g_array_append_val (merged->table_reads, r);
    }
  for (guint i = 0; i < t->warnings->len; i++)
    {
      const char *w = g_ptr_array_index (t->warnings, i);
      if (w != NULL)
        _sl_trace_warn (merged, "%s: %s", label, w);
    }

  /* GPU busy unions move, their times shifted */
  for (guint g = 0; t->gpu_busy != NULL && g < t->gpus->len; g++)
    {
      SlGpuBusy *b = &t->gpu_busy[g];
      gboolean shared = b->any.chunks == b->kernels.chunks;
      if (m->offset != 0)
        {
          shift_union (&b->kernels, m->offset);
          if (shared)
            b->any.idx_origin = b->kernels.idx_origin;
          else
            shift_union (&b->any, m->offset);
        }
      merged->gpu_busy[m->gpu_base + g] = *b;
    }
  g_clear_pointer (&t->gpu_busy, g_free);

  /* lanes change owner; the projection of NVTX ranges reads them, so it goes first */
  sl_nvtx_proj_free (t->nvtx_proj);
  t->nvtx_proj = NULL;
  m->n_lanes = t->lanes->len;
  m->lanes = g_new (SlLane *, MAX (m->n_lanes, 1));
  m->old_base = g_new (guint32, MAX (m->n_lanes, 1));
  for (guint i = 0; i < m->n_lanes; i++)
    {
      SlLane *lane = g_ptr_array_index (t->lanes, i);
      m->lanes[i] = lane;
      m->old_base[i] = lane->base;
      if (lane->thread >= 0)
        lane->thread += m->thread_base;
      if (lane->gpu >= 0)
        lane->gpu += m->gpu_base;
      lane->label = map_str (m, lane->label);
      lane->global_pid ^= m->tag;
      take_gpid (taken, lane->global_pid);
      lane->source = m->index;
      g_ptr_array_add (merged->lanes, lane);
    }
  g_ptr_array_set_size (t->lanes, 0);

  /* what is left of the file (strings, tables: ~2.5 MB for a 1 M-event file) goes now, not
   * after the last file: the merge's peak is then one file's tables above the events */
  sl_trace_unref (t);
  m->trace = NULL;
}

static SlTime
saturating_sub (SlTime a,
                SlTime b)
{
  SlTime d;
  if (__builtin_sub_overflow (a, b, &d))
    return b < 0 ? G_MAXINT64 : G_MININT64;
  return d;
}

/* Offsets from the wall clocks: the file that started first keeps its times (those of the others
 * are relative to its own, whatever offset it is given); a file without a clock has its first
 * event put at that file's first event (or, when no file has a clock, at the first file's). */
static void
choose_offsets (SrcMap       *maps,
                guint         n,
                const SlTime *offsets)
{
  gint first = -1, ref = -1;
  g_autofree gboolean *pending = g_new0 (gboolean, n);

  for (guint i = 0; i < n; i++)
    {
      SlTrace *t = maps[i].trace;
      if (!maps[i].id.has_clock || t->n_events == 0)
        continue;
      SlTime wall = _sl_time_add (maps[i].id.wall_zero, t->start);
      if (first < 0 || wall < _sl_time_add (maps[first].id.wall_zero, maps[first].trace->start))
        first = (gint) i;
    }
  for (guint i = 0; i < n; i++)
    {
      SlTrace *t = maps[i].trace;
      maps[i].offset = 0;
      if (offsets != NULL && offsets[i] != SL_OFFSET_AUTO)
        {
          maps[i].offset = offsets[i];
          maps[i].given = TRUE;
        }
      else if (first >= 0 && maps[i].id.has_clock && t->n_events > 0)
        maps[i].offset = saturating_sub (maps[i].id.wall_zero, maps[first].id.wall_zero);
      else
        pending[i] = t->n_events > 0;
      if (ref < 0 && t->n_events > 0)
        ref = (gint) i;
    }
  if (first >= 0)
    ref = first;
  if (ref < 0)
    return;
  SlTime anchor = _sl_time_add (maps[ref].trace->start, maps[ref].offset);
  for (guint i = 0; i < n; i++)
    if (pending[i] && (gint) i != ref)
      maps[i].offset = saturating_sub (anchor, maps[i].trace->start);
}

/* Labels: "rank N" or the base name, made unique ("rank 0 (b.json)", then " #2").  Files that
 * say the same rank are a warning of `merged` (NULL: of nobody). */
static void
choose_labels (GArray  *sources,
               SlTrace *merged)
{
  g_autoptr (GHashTable) warned = g_hash_table_new (g_int64_hash, g_int64_equal);

  for (guint i = 0; i < sources->len; i++)
    {
      SlSource *s = &g_array_index (sources, SlSource, i);
      for (guint j = 0; j < sources->len; j++)
        {
          SlSource *o = &g_array_index (sources, SlSource, j);
          if (i == j || s->rank < 0 || o->rank != s->rank)
            continue;
          if (merged != NULL && !g_hash_table_contains (warned, &s->rank))
            {
              g_hash_table_add (warned, &s->rank);
              _sl_trace_warn (merged, "%s and %s both say they are rank %" G_GINT64_FORMAT
                                      "; both are kept, labelled with their file names",
                              s->path, o->path, s->rank);
            }
          g_autofree char *base = g_path_get_basename (s->path);
          g_free (s->label);
          s->label = g_strdup_printf ("rank %" G_GINT64_FORMAT " (%s)", s->rank, base);
          break;
        }
    }
  for (guint i = 1; i < sources->len; i++)
    {
      SlSource *s = &g_array_index (sources, SlSource, i);
      guint same = 1;
      for (guint j = 0; j < i; j++)
        same += g_strcmp0 (g_array_index (sources, SlSource, j).label, s->label) == 0;
      if (same > 1)
        {
          char *label = g_strdup_printf ("%s #%u", s->label, same);
          g_free (s->label);
          s->label = label;
        }
    }
}

static gboolean
spans_overlap (const SlSource *a,
               const SlSource *b)
{
  return a->n_events > 0 && b->n_events > 0 && a->start <= b->end && b->start <= a->end;
}

static void
warn_alignment (SlTrace      *merged,
                const SrcMap *maps)
{
  GArray *sources = merged->sources;
  guint n = sources->len;

  for (guint i = 0; i < n; i++)
    {
      const SlSource *s = &g_array_index (sources, SlSource, i);
      if (!s->has_clock && !maps[i].given && s->n_events > 0 && n > 1)
        _sl_trace_warn (merged, "%s has no wall clock (%s); its first event was put at the first "
                                "event of the earliest trace: give it an offset, or align it on "
                                "a range or kernel",
                        s->label,
                        sl_trace_file_is_json (s->path) ? "its times do not count from 1970"
                                                        : "no TARGET_INFO_SESSION_START_TIME");
    }
  /* a file that overlaps none of the others; of two, say it once */
  for (guint i = 0; i < n; i++)
    {
      const SlSource *s = &g_array_index (sources, SlSource, i);
      gboolean any = FALSE;
      gint nearest = -1;
      SlTime gap = G_MAXINT64;
      if (s->n_events == 0 || n < 2 || (n == 2 && i == 0))
        continue;
      for (guint j = 0; j < n && !any; j++)
        {
          const SlSource *o = &g_array_index (sources, SlSource, j);
          if (j == i || o->n_events == 0)
            continue;
          any = spans_overlap (s, o);
          SlTime d = s->start > o->end ? saturating_sub (s->start, o->end)
                                       : saturating_sub (o->start, s->end);
          if (d < gap)
            {
              gap = d;
              nearest = (gint) j;
            }
        }
      if (any || nearest < 0)
        continue;
      const SlSource *o = &g_array_index (sources, SlSource, nearest);
      g_autofree char *d = sl_format_duration (gap);
      if (s->start > o->end)
        _sl_trace_warn (merged, "%s does not overlap in time with %s: it starts %s after %s "
                                "ends; if their clocks disagree, give an offset or align them on "
                                "a range or kernel",
                        s->label, n == 2 ? o->label : "the other traces", d, o->label);
      else
        _sl_trace_warn (merged, "%s does not overlap in time with %s: it ends %s before %s "
                                "starts; if their clocks disagree, give an offset or align them "
                                "on a range or kernel",
                        s->label, n == 2 ? o->label : "the other traces", d, o->label);
    }
}

static gint
compare_diagnostics (gconstpointer a,
                     gconstpointer b)
{
  const SlDiagnostic *x = a, *y = b;
  return x->timestamp < y->timestamp ? -1 : x->timestamp > y->timestamp;
}

/* Checks before anything moves; on failure nothing was changed. */
static gboolean
check_inputs (SlTrace **traces,
              guint     n,
              GError  **error)
{
  guint64 events = 0;

  if (n == 0)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE, "no traces to merge");
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      SlTrace *t = traces[i];
      if (t == NULL)
        {
          g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE,
                       "trace %u of %u to merge is missing", i + 1, n);
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (traces[j] == t)
          {
            g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE,
                         "%s is given twice as the same loaded trace; load the file twice to "
                         "merge it with itself", t->path);
            return FALSE;
          }
      if (g_atomic_int_get (&t->ref_count) != 1)
        {
          g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE,
                       "%s is in use elsewhere; its events cannot be moved into a merged trace",
                       t->path);
          return FALSE;
        }
      if (t->sources != NULL && t->sources->len > 1)
        {
          g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE,
                       "%s is already a merged trace; merge the files it was made of", t->path);
          return FALSE;
        }
      events += t->n_events;
    }
  if (events >= G_MAXUINT32)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_CORRUPT,
                   "the %u traces hold %" G_GUINT64_FORMAT " events together, more than "
                   "4 294 967 294; Sightline cannot hold them as one trace",
                   n, events);
      return FALSE;
    }
  return TRUE;
}

static SlTrace *
merge (SlTrace    **traces,
       guint        n,
       const SlTime *offsets,
       GPtrArray   *first_warnings,
       GError     **error)
{
  if (!check_inputs (traces, n, error))
    {
      for (guint i = 0; i < n; i++)
        if (traces[i] != NULL)
          sl_trace_unref (traces[i]);
      return NULL;
    }

  g_autofree SrcMap *maps = g_new0 (SrcMap, n);
  g_autoptr (GString) path = g_string_new (NULL);
  guint n_gpus = 0;
  gboolean all_json = TRUE;

  for (guint i = 0; i < n; i++)
    {
      SrcMap *m = &maps[i];
      m->trace = traces[i];
      m->index = i;
      /* a trace from sl_trace_load_merged's workers already knows its file */
      if (m->trace->sources != NULL)
        {
          const SlSource *s = &g_array_index (m->trace->sources, SlSource, 0);
          m->id.rank = s->rank;
          m->id.has_clock = s->has_clock;
          m->id.wall_zero = s->has_clock ? saturating_sub (s->wall_start, m->trace->start) : 0;
        }
      else
        m->id = file_identity (m->trace);
      n_gpus += m->trace->gpus->len;
      all_json &= m->trace->is_json;
      g_string_append_printf (path, "%s%s", i > 0 ? " + " : "", m->trace->path);
    }
  choose_offsets (maps, n, offsets);

  SlTrace *merged = _sl_trace_new (path->str);
  merged->is_json = all_json;
  merged->gpu_busy = g_new0 (SlGpuBusy, MAX (n_gpus, 1));
  merged->sources = g_array_new (FALSE, TRUE, sizeof (SlSource));
  g_array_set_clear_func (merged->sources, source_clear);
  for (guint i = 0; i < n; i++)
    {
      SlSource s = make_source (maps[i].trace, &maps[i].id);
      s.offset = maps[i].offset;
      if (s.n_events > 0)
        {
          /* time 0: the earliest session start of the files, on the merged axis */
          SlTime origin = _sl_time_add (sl_trace_get_origin (maps[i].trace), s.offset);
          merged->origin = merged->origin_set ? MIN (merged->origin, origin) : origin;
          merged->origin_set = 1;
          s.start = _sl_time_add (s.start, s.offset);
          s.end = _sl_time_add (s.end, s.offset);
        }
      g_array_append_val (merged->sources, s);
    }
  for (guint i = 0; first_warnings != NULL && i < first_warnings->len; i++)
    _sl_trace_warn (merged, "%s", (const char *) g_ptr_array_index (first_warnings, i));
  choose_labels (merged->sources, merged);
  /* the merge's own warnings first: the files' own may fill the hundred kept */
  warn_alignment (merged, maps);

  /* the schema line: each file's, said once */
  g_autoptr (GString) schema = g_string_new (NULL);
  g_string_printf (schema, "%u traces merged:", n);
  for (guint i = 0; i < n; i++)
    {
      const char *own = sl_trace_get_schema (maps[i].trace);
      gboolean seen = FALSE;
      for (guint j = 0; j < i && !seen; j++)
        seen = g_strcmp0 (sl_trace_get_schema (maps[j].trace), own) == 0;
      if (!seen)
        g_string_append_printf (schema, "%s %s", i > 0 ? ";" : "", own);
    }
  merged->schema = g_string_free (g_steal_pointer (&schema), FALSE);

  g_autoptr (GHashTable) taken = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint i = 0; i < n; i++)
    append_file (merged, &maps[i], taken);
  _sl_trace_sort_mem_usage (merged);
  _sl_trace_sort_um_faults (merged);

  /* lanes in screen order, global ids dense again; then each lane's events in one pass */
  _sl_trace_sort_lanes (merged);
  guint32 base = 0;
  for (guint i = 0; i < merged->lanes->len; i++)
    {
      SlLane *lane = g_ptr_array_index (merged->lanes, i);
      lane->base = base;
      base += lane->n_events;
    }
  merged->n_events = merged->n_ids = base;
  rewrite_lanes (maps, n);

  gboolean any = FALSE;
  for (guint i = 0; i < n; i++)
    {
      const SlSource *s = &g_array_index (merged->sources, SlSource, i);
      if (s->n_events == 0)
        continue;
      merged->start = any ? MIN (merged->start, s->start) : s->start;
      merged->end = any ? MAX (merged->end, s->end) : s->end;
      any = TRUE;
    }
  if (!merged->origin_set)
    merged->origin = merged->start;
  merged->origin_set = 1;
  g_array_sort (merged->diagnostics, compare_diagnostics);
  g_hash_table_remove_all (merged->str_ids);

  for (guint i = 0; i < n; i++)
    {
      g_free (maps[i].strs);
      g_free (maps[i].lanes);
      g_free (maps[i].old_base);
      g_array_unref (maps[i].osrt_ids);
    }
  return merged;
}

SlTrace *
sl_trace_merge (SlTrace      **traces,
                guint          n,
                const SlTime  *offsets,
                GError       **error)
{
  g_return_val_if_fail (traces != NULL || n == 0, NULL);
  return merge (traces, n, offsets, NULL, error);
}

/* ---- loading in parallel ---------------------------------------------------------------- */

typedef struct _LoadShared LoadShared;

typedef struct
{
  LoadShared *shared;
  const char *path;
  SlTrace    *trace;
  GError     *error;
  double      fraction;
} LoadJob;

struct _LoadShared
{
  SlLoadFlags     flags;
  GCancellable   *cancellable;
  SlProgressFunc  progress;
  gpointer        user_data;
  GMutex          lock;
  LoadJob        *jobs;
  guint           n;
  double          reported;
};

static void
job_progress (double      fraction,
              const char *what,
              gpointer    data)
{
  LoadJob *job = data;
  LoadShared *sh = job->shared;

  if (sh->progress == NULL)
    return;
  g_mutex_lock (&sh->lock);
  job->fraction = CLAMP (fraction, 0.0, 1.0);
  double sum = 0;
  for (guint i = 0; i < sh->n; i++)
    sum += sh->jobs[i].fraction;
  /* the merge is the last few percent */
  double total = 0.97 * sum / sh->n;
  if (total >= sh->reported + 0.005)
    {
      g_autofree char *line = g_strdup_printf ("%s: %s", job->path, what);
      sh->reported = total;
      sh->progress (total, line, sh->user_data);
    }
  g_mutex_unlock (&sh->lock);
}

static void
load_job_run (gpointer data,
              gpointer user_data G_GNUC_UNUSED)
{
  LoadJob *job = data;

  job->trace = _sl_trace_load_file (job->path, job->shared->flags, FALSE, job_progress, job,
                                    job->shared->cancellable, &job->error);
  /* the file's clock and rank, here on the worker: each costs opening it again */
  if (job->trace != NULL)
    ensure_sources (job->trace);
}

/* Loads `paths` on a pool of every core into jobs[i].trace, or jobs[i].error. */
static void
load_all (LoadShared         *sh,
          const char *const *paths,
          guint              n)
{
  g_mutex_init (&sh->lock);
  sh->jobs = g_new0 (LoadJob, n);
  sh->n = n;
  /* every core: a load is one or two threads busy on SQLite or simdjson and zlib */
  GThreadPool *pool = g_thread_pool_new (load_job_run, NULL,
                                         (gint) MIN (n, MAX (g_get_num_processors (), 1)), FALSE,
                                         NULL);
  for (guint i = 0; i < n; i++)
    {
      sh->jobs[i].shared = sh;
      sh->jobs[i].path = paths[i];
      g_thread_pool_push (pool, &sh->jobs[i], NULL);
    }
  g_thread_pool_free (pool, FALSE, TRUE);
  g_mutex_clear (&sh->lock);
}

SlTrace *
sl_trace_load_merged (const char *const *paths,
                      guint              n,
                      SlLoadFlags        flags,
                      const SlTime      *offsets,
                      SlProgressFunc     progress,
                      gpointer           user_data,
                      GCancellable      *cancellable,
                      GError           **error)
{
  LoadShared sh = { flags, cancellable, progress, user_data, { 0 }, NULL, n, 0 };
  g_autoptr (GPtrArray) failures = g_ptr_array_new_with_free_func (g_free);
  g_autofree SlTrace **loaded = g_new0 (SlTrace *, MAX (n, 1));
  g_autofree SlTime *kept_offsets = g_new (SlTime, MAX (n, 1));
  GError *first_error = NULL;
  guint n_loaded = 0;

  g_return_val_if_fail (paths != NULL || n == 0, NULL);
  if (n == 0)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE, "no traces to merge");
      return NULL;
    }

  load_all (&sh, paths, n);
#ifdef __GLIBC__
  /* the loaders' leftovers go back to the system before the merge takes its new tables (64 × 1 M
   * events: the merge's 44 MB came on top of them, 0.7 bytes an event at the peak); once, here:
   * the parallel loads do not trim, they stalled each other */
  malloc_trim (0);
#endif

  for (guint i = 0; i < n; i++)
    {
      LoadJob *job = &sh.jobs[i];
      if (job->trace != NULL)
        {
          kept_offsets[n_loaded] = offsets != NULL ? offsets[i] : SL_OFFSET_AUTO;
          loaded[n_loaded++] = job->trace;
          continue;
        }
      /* the loader's messages name the file */
      g_ptr_array_add (failures, g_strdup_printf ("%s; it was left out of the merged trace",
                                                  job->error->message));
      if (first_error == NULL)
        first_error = g_steal_pointer (&job->error);
      g_clear_error (&job->error);
    }
  g_free (sh.jobs);

  if (g_cancellable_set_error_if_cancelled (cancellable, error) || n_loaded == 0)
    {
      for (guint i = 0; i < n_loaded; i++)
        sl_trace_unref (loaded[i]);
      if (error != NULL && *error == NULL)
        {
          if (n == 1)
            g_propagate_error (error, g_steal_pointer (&first_error));
          else
            g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN,
                         "none of the %u traces could be read; the first: %s", n,
                         first_error->message);
        }
      g_clear_error (&first_error);
      return NULL;
    }
  g_clear_error (&first_error);

  SlTrace *merged = merge (loaded, n_loaded, kept_offsets, failures, error);
#ifdef __GLIBC__
  /* the files' string tables and their loaders' leftovers go back to the system */
  malloc_trim (0);
#endif
  if (merged != NULL && progress != NULL)
    progress (1.0, "done", user_data);
  return merged;
}

GPtrArray *
sl_trace_load_each (const char *const *paths,
                    guint              n,
                    SlLoadFlags        flags,
                    SlProgressFunc     progress,
                    gpointer           user_data,
                    GCancellable      *cancellable,
                    GError           **error)
{
  LoadShared sh = { flags, cancellable, progress, user_data, { 0 }, NULL, n, 0 };
  g_autoptr (GPtrArray) traces = g_ptr_array_new_with_free_func ((GDestroyNotify) sl_trace_unref);
  GError *first_error = NULL;

  g_return_val_if_fail (paths != NULL || n == 0, NULL);
  if (n == 0)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN, "no traces to load");
      return NULL;
    }
  load_all (&sh, paths, n);
  for (guint i = 0; i < n; i++)
    {
      LoadJob *job = &sh.jobs[i];
      if (job->trace != NULL)
        g_ptr_array_add (traces, job->trace);
      else if (first_error == NULL)
        first_error = g_steal_pointer (&job->error);
      g_clear_error (&job->error);
    }
  g_free (sh.jobs);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      g_clear_error (&first_error);
      return NULL;
    }
  if (first_error != NULL)
    {
      /* the loader's messages name the file */
      g_propagate_error (error, first_error);
      return NULL;
    }
  return g_steal_pointer (&traces);
}

char **
sl_trace_rank_labels (SlTrace *const *traces,
                      guint           n)
{
  g_autoptr (GArray) sources = g_array_new (FALSE, TRUE, sizeof (SlSource));
  char **labels = g_new0 (char *, n + 1);

  g_return_val_if_fail (traces != NULL || n == 0, labels);
  g_array_set_clear_func (sources, source_clear);
  for (guint i = 0; i < n; i++)
    {
      const SlSource *own = sl_trace_get_source (traces[i], 0);
      SlSource s = { .path = g_strdup (own->path), .label = g_strdup (own->label),
                     .rank = own->rank };
      g_array_append_val (sources, s);
    }
  choose_labels (sources, NULL);
  for (guint i = 0; i < n; i++)
    labels[i] = g_strdup (g_array_index (sources, SlSource, i).label);
  return labels;
}

/* ---- aligning on a name ----------------------------------------------------------------- */

static gboolean
first_occurrence (SlTrace *trace,
                  guint    source,
                  guint32  name,
                  SlTime  *when)
{
  gboolean found = FALSE;

  for (guint i = 0; i < trace->lanes->len; i++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, i);
      if (lane->source != source)
        continue;
      /* events by start: the first match of a lane is its earliest */
      for (gsize k = 0; k < lane->n_events; k++)
        if (lane->events[k].name == name)
          {
            if (!found || lane->events[k].start < *when)
              *when = lane->events[k].start;
            found = TRUE;
            break;
          }
    }
  return found;
}

gboolean
sl_trace_align_on (SlTrace     *trace,
                   guint        source,
                   const char  *name,
                   SlTime      *offset,
                   GError     **error)
{
  guint32 id = 0;
  SlTime t0 = 0, ts = 0;

  g_return_val_if_fail (trace != NULL && name != NULL && offset != NULL, FALSE);
  guint n = sl_trace_get_n_sources (trace);
  if (source >= n)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE,
                   "there is no trace %u: the trace has %u", source, n);
      return FALSE;
    }
  for (guint i = 1; i < trace->strs->len && id == 0; i++)
    if (strcmp (g_ptr_array_index (trace->strs, i), name) == 0)
      id = i;
  const SlSource *s = sl_trace_get_source (trace, source);
  const SlSource *s0 = sl_trace_get_source (trace, 0);
  if (id == 0 || !first_occurrence (trace, 0, id, &t0))
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE, "%s has no event named '%s'",
                   s0->label, name);
      return FALSE;
    }
  if (!first_occurrence (trace, source, id, &ts))
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE, "%s has no event named '%s'",
                   s->label, name);
      return FALSE;
    }
  *offset = _sl_time_add (s->offset, saturating_sub (t0, ts));
  return TRUE;
}

static gboolean
thread_in_source (SlTrace *trace,
                  gint     thread,
                  gpointer data)
{
  return sl_trace_get_thread (trace, (guint) thread)->source == GPOINTER_TO_UINT (data);
}

/* The start of step `step` (counted from 0, in time order) of `source`, as sl_trace_steps finds
 * steps on its threads. */
static gboolean
step_start (SlTrace  *trace,
            guint     source,
            guint     step,
            SlTime   *start,
            GError  **error)
{
  g_autoptr (GArray) steps = sl_trace_steps (trace, G_MININT64, G_MAXINT64, thread_in_source,
                                             GUINT_TO_POINTER (source));

  if (step < steps->len)
    {
      *start = g_array_index (steps, SlStep, step).start;
      return TRUE;
    }
  const SlSource *s = sl_trace_get_source (trace, source);
  if (steps->len == 0)
    g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE,
                 "%s has no training steps (NVTX or ProfilerStep#N ranges)", s->label);
  else
    g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE,
                 "%s has %u training steps: there is no step %u", s->label, steps->len,
                 step + 1);
  return FALSE;
}

gboolean
sl_trace_align_on_step (SlTrace  *trace,
                        guint     source,
                        guint     step,
                        SlTime   *offset,
                        GError  **error)
{
  SlTime t0 = 0, ts = 0;

  g_return_val_if_fail (trace != NULL && offset != NULL, FALSE);
  guint n = sl_trace_get_n_sources (trace);
  if (source >= n)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE,
                   "there is no trace %u: the trace has %u", source, n);
      return FALSE;
    }
  if (!step_start (trace, 0, step, &t0, error) || !step_start (trace, source, step, &ts, error))
    return FALSE;
  *offset = _sl_time_add (sl_trace_get_source (trace, source)->offset, saturating_sub (t0, ts));
  return TRUE;
}
