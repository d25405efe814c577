/* sl-trace.c: the trace container: strings, tables, lanes and their final indexing. */
#include "sl-trace-private.h"
#include "sl-reader-private.h"
#include "sl-lane.h"
#include "sl-cpu-util.h"
#include "sl-metrics.h"
#include "sl-nvtx-proj.h"
#include "sl-occupancy.h"

#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

G_DEFINE_QUARK (sl-trace-error-quark, sl_trace_error)

/* GLib 2.74's number parsers (g_ascii_strtoull, g_ascii_string_to_unsigned, g_ascii_strtod …)
 * make their C locale on first use behind a g_once; a thread that waits there comes back with
 * errno set by the wait, which g_ascii_string_to_unsigned then reads as its own failure: "1" is
 * not a number, one time in a few when loaders on several threads parse their first number at
 * once (a merged load lost a rank's label 2 runs in 60; a test program with 8 threads, 72 in
 * 400).  Made here, before main and any thread, the locale is only ever read. */
static void __attribute__ ((constructor))
ascii_parsers_ready (void)
{
  (void) g_ascii_strtoull ("0", NULL, 10);
}

SlTrace *
_sl_trace_new (const char *path)
{
  SlTrace *trace = g_new0 (SlTrace, 1);

  trace->ref_count = 1;
  g_mutex_init (&trace->lock);
  trace->path = g_strdup (path);
  trace->warnings = g_ptr_array_new_with_free_func (g_free);
  trace->table_reads = g_array_new (FALSE, TRUE, sizeof (SlTableRead));
  trace->chunk = g_string_chunk_new (64 * 1024);
  trace->strs = g_ptr_array_new ();
  trace->str_ids = g_hash_table_new (g_str_hash, g_str_equal);
  trace->processes = g_array_new (FALSE, TRUE, sizeof (SlProcess));
  trace->threads = g_array_new (FALSE, TRUE, sizeof (SlThread));
  trace->gpus = g_array_new (FALSE, TRUE, sizeof (SlGpu));
  trace->lanes = g_ptr_array_new ();
  trace->kernel_infos = g_array_new (FALSE, TRUE, sizeof (SlKernelInfo));
  trace->copy_infos = g_array_new (FALSE, TRUE, sizeof (SlCopyInfo));
  trace->chain_offsets = g_array_new (FALSE, FALSE, sizeof (guint32));
  trace->chain_symbols = g_array_new (FALSE, FALSE, sizeof (guint32));
  trace->chain_modules = g_array_new (FALSE, FALSE, sizeof (guint32));
  trace->osrt_chains = g_array_new (FALSE, FALSE, sizeof (SlChainId));
  trace->cuda_chains = g_array_new (FALSE, FALSE, sizeof (SlCudaChain));
  trace->cuda_events = g_array_new (FALSE, FALSE, sizeof (SlCudaEventRow));
  trace->event_waits = g_array_new (FALSE, FALSE, sizeof (SlCudaWaitRow));
  trace->graph_made = g_array_new (FALSE, FALSE, sizeof (SlGraphMade));
  trace->mem_usage = g_array_new (FALSE, FALSE, sizeof (SlMemUsage));
  trace->um_faults = g_array_new (FALSE, FALSE, sizeof (SlUmFault));
  trace->metric_series = g_array_new (FALSE, FALSE, sizeof (SlMetricSeries));
  trace->metric_times = g_array_new (FALSE, FALSE, sizeof (SlTime));
  trace->metric_values = g_array_new (FALSE, FALSE, sizeof (double));
  trace->diagnostics = g_array_new (FALSE, TRUE, sizeof (SlDiagnostic));
  trace->rank = -1;
  for (guint i = 0; i < SL_N_ENUMS; i++)
    trace->enum_labels[i] = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  /* id 0 is the empty string, so a zeroed field reads as "no name" */
  _sl_trace_intern (trace, "", 0);
  guint32 zero = 0;
  g_array_append_val (trace->chain_offsets, zero);
  return trace;
}

SlTrace *
sl_trace_ref (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, NULL);
  g_atomic_int_inc (&trace->ref_count);
  return trace;
}

/* Pages given back this many bytes at a time: ~3 ms of the kernel's work each. */
#define RELEASE_STEP (32u << 20)

void
_sl_release_pages (gpointer p,
                   gsize    bytes)
{
  long page = sysconf (_SC_PAGESIZE);

  if (p == NULL || bytes < 2 * RELEASE_STEP || page <= 0)
    return;
  guintptr from = ((guintptr) p + (guintptr) page - 1) / (guintptr) page * (guintptr) page;
  guintptr to = ((guintptr) p + bytes) / (guintptr) page * (guintptr) page;
  for (guintptr at = from; at < to; at += RELEASE_STEP)
    madvise ((void *) at, MIN ((guintptr) RELEASE_STEP, to - at), MADV_DONTNEED);
}

void
_sl_huge_pages (gpointer p,
                gsize    bytes)
{
  const guintptr page = 4096;

  if (p == NULL || bytes < (4u << 20))
    return;
  guintptr a = ((guintptr) p + page - 1) & ~(page - 1);
  guintptr e = ((guintptr) p + bytes) & ~(page - 1);
#ifdef MADV_HUGEPAGE
  if (e > a)
    madvise ((void *) a, e - a, MADV_HUGEPAGE);
#endif
}

gpointer
_sl_huge_new (gsize n,
              gsize size)
{
  gpointer mem = g_malloc_n (MAX (n, 1), size);

  _sl_huge_pages (mem, MAX (n, 1) * size);
  return mem;
}

/* The bytes malloc gave a block (at least what was asked; GArray's doubling leaves up to
 * half of it unused), 0 where the C library cannot say. */
static gsize
block_size (gpointer p)
{
#ifdef __GLIBC__
  return p != NULL ? malloc_usable_size (p) : 0;
#else
  (void) p;
  return 0;
#endif
}

void
_sl_free_large (gpointer p)
{
  _sl_release_pages (p, block_size (p));
  g_free (p);
}

gpointer
_sl_shrink (gpointer p,
            gsize    bytes)
{
  gsize have = block_size (p);

  if (p == NULL || bytes == 0)
    {
      _sl_free_large (p);
      return NULL;
    }
  if (have > bytes)
    _sl_release_pages ((char *) p + bytes, have - bytes);
  return g_realloc (p, bytes);
}

void
_sl_lane_free (SlLane *lane)
{
  if (lane->store != NULL)
    _sl_lane_store_unref (lane->store);
  else if (lane->events_map != NULL)
    _sl_events_map_unref (lane->events_map);
  else
    _sl_free_large (lane->events);
  if (lane->idx != NULL)
    _sl_lane_idx_unref (lane->idx);
  else
    {
      _sl_free_large (lane->max_end);
      g_free (lane->busy_prefix);
      _sl_lane_free_lod (lane);
    }
  g_free (lane);
}

void
sl_trace_unref (SlTrace *trace)
{
  g_return_if_fail (trace != NULL);
  if (!g_atomic_int_dec_and_test (&trace->ref_count))
    return;

  sl_nvtx_proj_free (trace->nvtx_proj);   /* reads the lanes */
  sl_cpu_util_free (trace->cpu_util);
  _sl_event_links_free (trace->event_links);
  _sl_mpi_messages_free (trace->mpi_messages);
  _sl_graph_groups_free (trace->graph_groups);
  _sl_memory_free (trace->memory);
  _sl_um_faults_free (trace->um_fault_index);
  _sl_live_state_free (trace->live);
  _sl_corr_maps_free (trace->corr_maps);
  _sl_info_set_free (trace->kernel_set);
  _sl_info_set_free (trace->copy_set);
  if (trace->sources != NULL)
    g_array_unref (trace->sources);
  for (guint i = 0; i < trace->lanes->len; i++)
    _sl_lane_free (g_ptr_array_index (trace->lanes, i));
  g_ptr_array_unref (trace->lanes);
  if (trace->gpu_busy != NULL)
    for (guint i = 0; i < trace->gpus->len; i++)
      _sl_gpu_busy_clear (&trace->gpu_busy[i]);
  g_free (trace->gpu_busy);
  for (guint i = 0; i < SL_N_ENUMS; i++)
    g_hash_table_unref (trace->enum_labels[i]);
  g_array_unref (trace->chain_offsets);
  g_array_unref (trace->chain_symbols);
  g_array_unref (trace->chain_modules);
  g_array_unref (trace->osrt_chains);
  g_array_unref (trace->cuda_chains);
  g_array_unref (trace->cuda_events);
  g_array_unref (trace->event_waits);
  g_array_unref (trace->graph_made);
  g_array_unref (trace->mem_usage);
  g_array_unref (trace->um_faults);
  g_array_unref (trace->metric_series);
  g_array_unref (trace->metric_times);
  g_array_unref (trace->metric_values);
  g_clear_pointer (&trace->mpi_calls, g_array_unref);
  g_clear_pointer (&trace->omp_events, g_array_unref);
  g_array_unref (trace->diagnostics);
  g_array_unref (trace->kernel_infos);
  g_array_unref (trace->copy_infos);
  g_array_unref (trace->gpus);
  g_array_unref (trace->threads);
  g_array_unref (trace->processes);
  g_hash_table_unref (trace->str_ids);
  g_clear_pointer (&trace->display, _sl_display_names_free);
  g_ptr_array_unref (trace->strs);
  if (trace->chunk_ref != NULL)
    _sl_chunk_ref_unref (trace->chunk_ref);
  else
    g_string_chunk_free (trace->chunk);
  g_ptr_array_unref (trace->warnings);
  for (guint i = 0; i < trace->table_reads->len; i++)
    g_free (g_array_index (trace->table_reads, SlTableRead, i).table);
  g_array_unref (trace->table_reads);
  g_free (trace->schema);
  g_free (trace->path);
  g_mutex_clear (&trace->lock);
  g_free (trace);
}

struct _SlChunkRef
{
  gint          ref;
  GStringChunk *chunk;
};

SlChunkRef *
_sl_chunk_ref_new (GStringChunk *chunk)
{
  SlChunkRef *c = g_new (SlChunkRef, 1);

  c->ref = 1;
  c->chunk = chunk;
  return c;
}

SlChunkRef *
_sl_chunk_ref_ref (SlChunkRef *c)
{
  g_atomic_int_inc (&c->ref);
  return c;
}

void
_sl_chunk_ref_unref (SlChunkRef *c)
{
  if (!g_atomic_int_dec_and_test (&c->ref))
    return;
  g_string_chunk_free (c->chunk);
  g_free (c);
}

/* Strings come from untrusted files: anything that is not UTF-8 is repaired before interning,
 * so every string the model hands out is valid UTF-8. */
guint32
_sl_trace_intern (SlTrace    *trace,
                  const char *text,
                  gssize      len)
{
  g_autofree char *fixed = NULL;
  g_autofree char *copy = NULL;
  gpointer found;

  if (text == NULL)
    return SL_NO_STR;
  if (len < 0)
    len = strlen (text);
  if (!g_utf8_validate_len (text, len, NULL))
    {
      fixed = g_utf8_make_valid (text, len);
      text = fixed;
      len = strlen (fixed);
    }
  else if (text[len] != '\0')
    text = copy = g_strndup (text, len);
  else if (memchr (text, '\0', len) != NULL)
    len = strlen (text);

  /* the two loading threads intern concurrently; each caches ids, so this is not a hot path */
  g_mutex_lock (&trace->lock);
  if (g_hash_table_lookup_extended (trace->str_ids, text, NULL, &found))
    {
      g_mutex_unlock (&trace->lock);
      return GPOINTER_TO_UINT (found);
    }

  char *stored = g_string_chunk_insert_len (trace->chunk, text, len);
  guint32 id = trace->strs->len;
  g_ptr_array_add (trace->strs, stored);
  g_hash_table_insert (trace->str_ids, stored, GUINT_TO_POINTER (id));
  trace->str_bytes += len + 1;
  g_mutex_unlock (&trace->lock);
  return id;
}

void
_sl_trace_warn (SlTrace    *trace,
                const char *format,
                ...)
{
  va_list args;

  /* A broken file can produce the same complaint a million times; keep the first hundred. */
  g_mutex_lock (&trace->lock);
  if (trace->warnings->len < 100)
    {
      va_start (args, format);
      g_ptr_array_add (trace->warnings, g_strdup_vprintf (format, args));
      va_end (args);
    }
  g_mutex_unlock (&trace->lock);
}

void
_sl_trace_note_table (SlTrace           *trace,
                      const SlTableRead *read)
{
  SlTableRead copy = *read;

  copy.table = g_strdup (read->table);
  g_mutex_lock (&trace->lock);
  g_array_append_val (trace->table_reads, copy);
  g_mutex_unlock (&trace->lock);
}

SlLane *
_sl_trace_add_lane (SlTrace    *trace,
                    SlLaneKind  kind)
{
  SlLane *lane = g_new0 (SlLane, 1);

  lane->kind = kind;
  lane->thread = -1;
  lane->gpu = -1;
  g_mutex_lock (&trace->lock);
  lane->index = trace->lanes->len;
  g_ptr_array_add (trace->lanes, lane);
  g_mutex_unlock (&trace->lock);
  return lane;
}

static int
compare_events (gconstpointer a,
                gconstpointer b)
{
  const SlEvent *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  /* longer first, so an enclosing range precedes what it encloses */
  if (x->end != y->end)
    return x->end > y->end ? -1 : 1;
  return 0;
}

/* Where ev[i] goes among the sorted ev[0, i): after the last event not greater than it (stable),
 * searched backwards from i with doubling steps, since it is usually close. */
static gsize
insertion_point (const SlEvent *ev,
                 gsize          i)
{
  gsize hi = i - 1, lo, step = 1;   /* ev[hi] > ev[i] */

  for (;;)
    {
      if (hi == 0)
        return 0;
      lo = hi > step ? hi - step : 0;
      if (compare_events (&ev[lo], &ev[i]) <= 0)
        break;
      if (lo == 0)
        return 0;
      hi = lo;
      step *= 2;
    }
  /* ev[lo] <= ev[i] < ev[hi]: the answer is in (lo, hi] */
  lo++;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (compare_events (&ev[mid], &ev[i]) <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Lanes are sorted by start, longer first, stably (events that compare equal keep the table's
 * order).  Tables are nearly always in that order already, so look before paying for a sort
 * (10^7 events: 20 ms to look, seconds to sort).  Nearly: nsys writes a range when it ends, so an
 * enclosing range comes after the ranges it encloses.  Those few are moved back into place one
 * by one, in place; glibc's qsort is a merge sort that takes a buffer the size of the array (a
 * thread's 1.3 × 10^7 NVTX ranges: 420 MB, 4 bytes an event of the whole trace at the peak of a
 * load).  A file far from that order (more than 8 events moved per event) is left to qsort: as
 * insertion keeps equal events in their order, qsort's stable result is the same either way.
 * A live append (sl-trace-live.c) has its new rows after the ordered run of the earlier ones:
 * the few of them that go back are moved the same way. */
void
_sl_events_sort (SlEvent *ev,
                 gsize    n)
{
  gsize budget = 8 * n + 4096;

  for (gsize i = 1; i < n; i++)
    {
      if (compare_events (&ev[i - 1], &ev[i]) <= 0)
        continue;
      gsize at = insertion_point (ev, i);
      if (i - at > budget)
        {
          qsort (ev, n, sizeof (SlEvent), compare_events);
          return;
        }
      budget -= i - at;
      SlEvent moved = ev[i];
      memmove (&ev[at + 1], &ev[at], (i - at) * sizeof (SlEvent));
      ev[at] = moved;
    }
}

static int
compare_lanes (gconstpointer a,
               gconstpointer b)
{
  const SlLane *x = *(SlLane *const *) a, *y = *(SlLane *const *) b;
  gboolean gx = x->gpu >= 0, gy = y->gpu >= 0;

  /* CPU lanes first (by thread), then GPU lanes by device, context, stream, kind */
  if (gx != gy)
    return gx ? 1 : -1;
  if (!gx)
    {
      if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    }
  else
    {
      if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
      if (x->global_pid != y->global_pid)
        return x->global_pid < y->global_pid ? -1 : 1;
      if (x->context_id != y->context_id)
        return x->context_id < y->context_id ? -1 : 1;
      if (x->green_context_id != y->green_context_id)
        return x->green_context_id < y->green_context_id ? -1 : 1;
      if (x->stream_id != y->stream_id)
        return x->stream_id < y->stream_id ? -1 : 1;
    }
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  return x->depth < y->depth ? -1 : x->depth > y->depth;
}

void
_sl_trace_sort_lanes (SlTrace *trace)
{
  g_ptr_array_sort (trace->lanes, compare_lanes);
  for (guint i = 0; i < trace->lanes->len; i++)
    ((SlLane *) g_ptr_array_index (trace->lanes, i))->index = i;
}

/* Numbers the lanes, gives them their global ids and builds what is derived from their events
 * alone (interval tree, busy sums, level of detail) and the trace's start, end and count: what
 * a fresh load and the model cache (sl-trace-cache.c) both do once the events are sorted. */
gboolean
_sl_trace_index_lanes (SlTrace  *trace,
                       GError  **error)
{
  guint32 base = 0;
  gsize n = 0;
  gboolean any = FALSE;

  trace->start = trace->end = 0;
  for (guint i = 0; i < trace->lanes->len; i++)
    {
      SlLane *lane = g_ptr_array_index (trace->lanes, i);
      guint64 ids = trace->headroom ? _sl_live_lane_room (lane->n_events) : lane->n_events;

      lane->index = i;
      lane->base = base;
      if ((guint64) base + ids >= G_MAXUINT32)
        {
          g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_CORRUPT,
                       "%s: more than 4 294 967 294 events; Sightline cannot hold this trace",
                       trace->path);
          return FALSE;
        }
      base += ids;
      n += lane->n_events;
      _sl_lane_build_index (lane);
      g_free (lane->busy_prefix);
      lane->busy_prefix = _sl_lane_build_busy (lane);
      _sl_lane_build_lod (lane);
      lane->busy = _sl_lane_busy_between (lane, lane->busy_prefix, 0, lane->n_events);

      SlTime first = lane->events[0].start;
      SlTime last = lane->max_end != NULL ? lane->max_end[0] : lane->events[lane->n_events - 1].end;
      for (gsize k = 0; lane->max_end != NULL && k < lane->n_events; k++)
        last = MAX (last, lane->events[k].end);
      if (!any || first < trace->start)
        trace->start = first;
      if (!any || last > trace->end)
        trace->end = last;
      any = TRUE;
    }
  trace->n_events = n;
  trace->n_ids = base;
  return TRUE;
}

gboolean
_sl_trace_finish (SlTrace  *trace,
                  GError  **error)
{
  /* drop empty lanes; order the rest as they appear on screen */
  for (guint i = trace->lanes->len; i-- > 0;)
    {
      SlLane *lane = g_ptr_array_index (trace->lanes, i);
      if (lane->n_events == 0)
        {
          _sl_lane_free (lane);
          g_ptr_array_remove_index (trace->lanes, i);
        }
    }
  gint64 t0 = g_get_monotonic_time ();
  g_ptr_array_sort (trace->lanes, compare_lanes);
  for (guint i = 0; i < trace->lanes->len; i++)
    {
      SlLane *lane = g_ptr_array_index (trace->lanes, i);
      _sl_events_sort (lane->events, lane->n_events);
    }
  t0 = _sl_live_phase_end (SL_LIVE_SORT, t0);
  if (!_sl_trace_index_lanes (trace, error))
    return FALSE;
  t0 = _sl_live_phase_end (SL_LIVE_INDEX, t0);
  _sl_trace_link (trace);
  t0 = _sl_live_phase_end (SL_LIVE_LINK, t0);

  for (guint i = 0; i < trace->gpus->len; i++)
    {
      SlGpu *gpu = &g_array_index (trace->gpus, SlGpu, i);
      sl_gpu_limits_complete (&gpu->limits);
    }
  _sl_gpu_busy_build (trace);
  _sl_live_phase_end (SL_LIVE_GPU_BUSY, t0);

  /* the interning table is only needed while loading (and by a live trace's next append) */
  if (trace->live == NULL)
    g_hash_table_remove_all (trace->str_ids);
  return TRUE;
}

sqlite3 *
_sl_trace_open_db (const char  *path,
                   gboolean     live,
                   GError     **error)
{
  g_autofree char *escaped = g_uri_escape_string (path, "/", FALSE);
  g_autofree char *uri = g_strdup_printf ("file:%s?mode=ro%s", escaped, live ? "" : "&immutable=1");
  sqlite3 *db = NULL;
  int rc;

  /* Read-only and immutable: nothing we do can change the file, and no journal is looked for. */
  rc = sqlite3_open_v2 (uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                        NULL);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN, "%s: cannot open: %s", path,
                   db != NULL ? sqlite3_errmsg (db) : sqlite3_errstr (rc));
      sqlite3_close (db);
      return NULL;
    }

  /* A trace is untrusted input: no triggers or views can run our functions, no extensions. */
  sqlite3_db_config (db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  sqlite3_db_config (db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
  sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
  sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
  sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
  sqlite3_exec (db, "PRAGMA query_only = 1; PRAGMA cache_size = -8192", NULL, NULL, NULL);
  /* a live file: the writer commits every 100 ms; wait for it rather than fail */
  if (live)
    sqlite3_busy_timeout (db, 5000);
  return db;
}

SlTrace *
sl_trace_load (const char     *path,
               SlLoadFlags     flags,
               SlProgressFunc  progress,
               gpointer        user_data,
               GCancellable   *cancellable,
               GError        **error)
{
  SlCacheKey key = { 0 };
  SlTrace *trace;
  gint64 t0;

  g_return_val_if_fail (path != NULL, NULL);

  /* Only whole loads of one file, finished: a stats run's fewer tables, a recording still being
   * written and merged traces (sl_trace_load_merged moves the events of each) are not cached. */
  if (flags != SL_LOAD_ALL)
    return _sl_trace_load_file (path, flags, TRUE, progress, user_data, cancellable, error);
  /* a load cancelled before it starts fails as a fresh one does */
  if (!g_cancellable_is_cancelled (cancellable) && (trace = _sl_trace_cache_load (path, &key)) != NULL)
    {
      _sl_cache_key_clear (&key);
      (void) sl_trace_get_origin (trace);
      if (progress != NULL)
        progress (1.0, "done", user_data);
      return trace;
    }
  t0 = g_get_monotonic_time ();
  trace = _sl_trace_load_file (path, flags, TRUE, progress, user_data, cancellable, error);
  if (trace != NULL)
    _sl_trace_cache_store (trace, &key, g_get_monotonic_time () - t0);
  _sl_cache_key_clear (&key);
  return trace;
}

SlTrace *
_sl_trace_load_file (const char     *path,
                     SlLoadFlags     flags,
                     gboolean        trim,
                     SlProgressFunc  progress,
                     gpointer        user_data,
                     GCancellable   *cancellable,
                     GError        **error)
{
  g_autoptr (SlTrace) trace = NULL;
  sqlite3 *db = NULL;
  gboolean ok;

  g_return_val_if_fail (path != NULL, NULL);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN, "%s: no such file", path);
      return NULL;
    }
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN, "%s: is a directory, not a trace",
                   path);
      return NULL;
    }

  if (sl_trace_file_is_json (path))
    {
      trace = _sl_trace_new (path);
      ok = _sl_reader_read_json (trace, flags, progress, user_data, cancellable, error);
    }
  else
    {
      db = _sl_trace_open_db (path, (flags & SL_LOAD_LIVE) != 0, error);
      if (db == NULL)
        return NULL;
      trace = _sl_trace_new (path);
      ok = _sl_reader_read (trace, db, flags, NULL, progress, user_data, cancellable, error);
      sqlite3_close (db);
    }
  if (!ok)
    {
      /* GIO's "Operation was cancelled" does not say which load was */
      if (error != NULL && *error != NULL && (*error)->domain != SL_TRACE_ERROR)
        g_prefix_error (error, "%s: ", path);
      return NULL;
    }
#ifdef __GLIBC__
  /* loading frees as much as it keeps (row arrays grown by copying, the split of a thread's
   * ranges by depth, id maps, a second thread's arena): hand that back to the system rather than
   * keep it resident for the life of the viewer, once before the indexes are built and once
   * after.  Before: the indexes' new memory would not all fit in those holes, and what stays
   * free at the end was the peak (10 M events: 18 MB, 1.8 bytes an event).  Not for the live
   * loads of a recording (every half second): trimming holds the allocator's locks for tens of
   * ms, and the viewer's main thread would wait on them. */
  trim = trim && !(flags & SL_LOAD_LIVE);
  if (trim)
    malloc_trim (0);
#endif
  if (!_sl_trace_finish (trace, error))
    return NULL;
#ifdef __GLIBC__
  if (trim)
    malloc_trim (0);
#else
  (void) trim;
#endif
  /* time 0 read now, while the file is surely the one loaded, not by the first frame */
  (void) sl_trace_get_origin (trace);
  if (progress != NULL)
    progress (1.0, "done", user_data);
  return g_steal_pointer (&trace);
}

const char *
sl_trace_get_path (SlTrace *trace)
{
  return trace->path;
}

const char *
sl_trace_get_schema (SlTrace *trace)
{
  return trace->schema != NULL ? trace->schema : "unknown";
}

SlTime
sl_trace_get_start (SlTrace *trace)
{
  return trace->start;
}

SlTime
sl_trace_get_end (SlTrace *trace)
{
  return trace->end;
}

/* A row of nsys's export metadata (META_DATA_EXPORT; EXPORT_META_DATA before nsys 2023.3), or
 * NULL. */
static char *
export_meta (sqlite3    *db,
             const char *name)
{
  static const char *const tables[] = { "META_DATA_EXPORT", "EXPORT_META_DATA" };
  char *value = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (tables) && value == NULL; i++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT value FROM %s WHERE name = ?1 LIMIT 1",
                                              tables[i]);
      sqlite3_stmt *stmt = NULL;
      if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) == SQLITE_OK
          && sqlite3_bind_text (stmt, 1, name, -1, SQLITE_STATIC) == SQLITE_OK
          && sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_text (stmt, 0) != NULL)
        value = g_strndup ((const char *) sqlite3_column_text (stmt, 0),
                           MIN (sqlite3_column_bytes (stmt, 0), 64));
      sqlite3_finalize (stmt);
    }
  return value;
}

gboolean
_sl_trace_session_start (sqlite3 *db,
                         SlTime  *start)
{
  sqlite3_stmt *stmt = NULL;
  gboolean found = FALSE;
  g_autofree char *product = export_meta (db, "EXPORT_PRODUCT_NAME");

  if (g_strcmp0 (product, "Sightline") == 0)
    {
      /* a recording: its session's start on CLOCK_MONOTONIC, the clock of its events; one from
       * before 2026-12 (no utcTime) wrote something else there, and an export of a trace by
       * sl_export_sqlite no row at all */
      if (sqlite3_prepare_v2 (db, "SELECT systemClockNs, utcTime "
                                  "FROM TARGET_INFO_SESSION_START_TIME LIMIT 1",
                              -1, &stmt, NULL) == SQLITE_OK
          && sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_type (stmt, 0) == SQLITE_INTEGER
          && sqlite3_column_type (stmt, 1) != SQLITE_NULL)
        {
          *start = sqlite3_column_int64 (stmt, 0);
          found = TRUE;
        }
      sqlite3_finalize (stmt);
    }
  else
    {
      /* nsys (any version, with or without the metadata tables): 0, moved by --ts-shift; a
       * --ts-normalize'd export put its first event at 0 and lost the session's start */
      g_autofree char *normalize = export_meta (db, "EXPORT_PARAM_TIME_NORMALIZE");
      g_autofree char *shift = export_meta (db, "EXPORT_PARAM_TIME_SHIFT");
      gint64 by = 0;
      if (shift != NULL && !g_ascii_string_to_signed (shift, 10, G_MININT64, G_MAXINT64, &by, NULL))
        by = 0;
      *start = by;
      found = g_strcmp0 (normalize, "true") != 0;
    }
  /* a number from the file: within the range the reader clamps event times to, so that an
   * offset from it cannot overflow */
  return found && *start >= -SL_READER_TIME_LIMIT && *start <= SL_READER_TIME_LIMIT;
}

/* The session's start on the file's time line, or FALSE when it has none (see
 * sl_trace_get_origin).  One open of the file and three one-row queries: a millisecond. */
static gboolean
read_origin (SlTrace *trace,
             SlTime  *origin)
{
  sqlite3 *db;
  gboolean found;

  if (trace->is_json || trace->path == NULL
      || (db = _sl_trace_open_db (trace->path, trace->live != NULL, NULL)) == NULL)
    return FALSE;
  found = _sl_trace_session_start (db, origin);
  sqlite3_close (db);
  /* not after every event: then it is not their time line */
  return found && !(trace->live == NULL && trace->n_events > 0 && *origin > trace->end);
}

SlTime
sl_trace_get_origin (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);

  if (g_once_init_enter (&trace->origin_set))
    {
      if (!read_origin (trace, &trace->origin))
        trace->origin = trace->start;
      g_once_init_leave (&trace->origin_set, 1);
    }
  return trace->origin;
}

gboolean
sl_trace_get_loading (SlTrace *trace,
                      SlTime  *from,
                      double  *share)
{
  if (trace == NULL || !trace->loading)
    return FALSE;
  if (from != NULL)
    *from = trace->loading_from;
  if (share != NULL)
    *share = trace->loading_share;
  return TRUE;
}

void
_sl_trace_set_loading (SlTrace *trace,
                       SlTime   from,
                       SlTime   end,
                       double   share)
{
  trace->loading = TRUE;
  trace->loading_from = from;
  trace->loading_share = CLAMP (share, 0.0, 1.0);
  if (end > trace->end)
    trace->end = end;
}

gsize
sl_trace_get_n_events (SlTrace *trace)
{
  return trace->n_events;
}

gsize
sl_trace_get_n_ids (SlTrace *trace)
{
  return trace->n_ids;
}

gboolean
sl_trace_is_json (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, FALSE);
  return trace->is_json;
}

gint64
sl_trace_get_rank (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, -1);
  return trace->rank;
}

gint64
sl_trace_get_world_size (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return trace->world_size;
}

const char *const *
sl_trace_get_warnings (SlTrace *trace)
{
  if (trace->warnings->len == 0
      || g_ptr_array_index (trace->warnings, trace->warnings->len - 1) != NULL)
    g_ptr_array_add (trace->warnings, NULL);
  return (const char *const *) trace->warnings->pdata;
}

gsize
sl_trace_get_memory_size (SlTrace *trace)
{
  gsize size = sizeof *trace;

  for (guint i = 0; i < trace->lanes->len; i++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, i);
      /* a live trace's events with the room after them (shared with the next trace's lane) */
      size += sizeof *lane + lane->n_events * sizeof (SlEvent);
      /* a live trace's store with the room after its events (shared with the next trace's
       * lane): of a mapping, the pages written; of a block, all of it */
      if (lane->store != NULL && lane->store->mapped > 0)
        size += (lane->store->len - MIN (lane->store->len, lane->n_events)) * sizeof (SlEvent);
      else if (lane->store != NULL)
        size += (lane->store->cap - MIN (lane->store->cap, lane->n_events)) * sizeof (SlEvent);
      if (lane->max_end != NULL)
        size += lane->n_events * sizeof (SlTime);
      size += (lane->n_events / SL_BUSY_STRIDE + 1) * sizeof (SlTime);
      for (guint l = 0; l < lane->n_lod; l++)
        size += lane->lod[l].n * sizeof (SlLodBucket);
    }
  size += trace->str_bytes + trace->strs->len * sizeof (gpointer);
  /* a live trace's, kept for its next append: the interning table, the descriptions' sets and
   * the correlation maps (none in any other trace) */
  size += g_hash_table_size (trace->str_ids) * 4 * sizeof (gpointer);
  size += _sl_info_set_size (trace->kernel_set) + _sl_info_set_size (trace->copy_set);
  size += _sl_corr_maps_size (trace->corr_maps);
  size += trace->kernel_infos->len * sizeof (SlKernelInfo);
  size += trace->copy_infos->len * sizeof (SlCopyInfo);
  size += (trace->chain_offsets->len + trace->chain_symbols->len * 2) * sizeof (guint32);
  size += trace->osrt_chains->len * sizeof (SlChainId);
  size += trace->cuda_chains->len * sizeof (SlCudaChain);
  size += trace->cuda_events->len * sizeof (SlCudaEventRow);
  size += trace->event_waits->len * sizeof (SlCudaWaitRow);
  size += trace->graph_made->len * sizeof (SlGraphMade);
  size += trace->mem_usage->len * sizeof (SlMemUsage);
  size += trace->um_faults->len * sizeof (SlUmFault);
  size += trace->metric_series->len * sizeof (SlMetricSeries);
  size += trace->metric_times->len * (sizeof (SlTime) + sizeof (double));
  size += trace->threads->len * sizeof (SlThread) + trace->processes->len * sizeof (SlProcess);
  size += trace->gpus->len * sizeof (SlGpu);
  size += trace->diagnostics->len * sizeof (SlDiagnostic);
  for (guint i = 0; trace->gpu_busy != NULL && i < trace->gpus->len; i++)
    {
      const SlGpuBusy *b = &trace->gpu_busy[i];
      const SlBusyUnion *u[2] = { &b->kernels, &b->any };
      for (guint k = 0; k < (b->any.chunks != b->kernels.chunks ? 2u : 1u); k++)
        size += u[k]->n_chunks * sizeof (SlBusyChunk) + u[k]->n_idx * sizeof (guint32)
                + u[k]->n_long * (sizeof (guint32) + sizeof (SlTime));
    }
  return size;
}

const char *
sl_trace_str (SlTrace *trace,
              guint32  id)
{
  g_return_val_if_fail (trace != NULL, "");
  if (id >= trace->strs->len)
    return "";
  return g_ptr_array_index (trace->strs, id);
}

guint
sl_trace_get_n_strs (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return trace->strs->len;
}

guint
sl_trace_get_n_processes (SlTrace *trace)
{
  return trace->processes->len;
}

const SlProcess *
sl_trace_get_process (SlTrace *trace,
                      guint    i)
{
  g_return_val_if_fail (i < trace->processes->len, NULL);
  return &g_array_index (trace->processes, SlProcess, i);
}

guint
sl_trace_get_n_threads (SlTrace *trace)
{
  return trace->threads->len;
}

const SlThread *
sl_trace_get_thread (SlTrace *trace,
                     guint    i)
{
  g_return_val_if_fail (i < trace->threads->len, NULL);
  return &g_array_index (trace->threads, SlThread, i);
}

guint
sl_trace_get_n_gpus (SlTrace *trace)
{
  return trace->gpus->len;
}

const SlGpu *
sl_trace_get_gpu (SlTrace *trace,
                  guint    i)
{
  g_return_val_if_fail (i < trace->gpus->len, NULL);
  return &g_array_index (trace->gpus, SlGpu, i);
}

gint
sl_trace_find_gpu (SlTrace *trace,
                   guint32  device_id)
{
  for (guint i = 0; i < trace->gpus->len; i++)
    if (g_array_index (trace->gpus, SlGpu, i).device_id == device_id)
      return i;
  return -1;
}

guint
sl_trace_get_n_lanes (SlTrace *trace)
{
  return trace->lanes->len;
}

const SlLane *
sl_trace_get_lane (SlTrace *trace,
                   guint    i)
{
  g_return_val_if_fail (i < trace->lanes->len, NULL);
  return g_ptr_array_index (trace->lanes, i);
}

const SlKernelInfo *
sl_trace_get_kernel_info (SlTrace *trace,
                          guint32  aux)
{
  g_return_val_if_fail (aux < trace->kernel_infos->len, NULL);
  return &g_array_index (trace->kernel_infos, SlKernelInfo, aux);
}

const SlCopyInfo *
sl_trace_get_copy_info (SlTrace *trace,
                        guint32  aux)
{
  g_return_val_if_fail (aux < trace->copy_infos->len, NULL);
  return &g_array_index (trace->copy_infos, SlCopyInfo, aux);
}

guint
sl_trace_get_callchain (SlTrace        *trace,
                        guint32         aux,
                        const guint32 **symbols,
                        const guint32 **modules)
{
  if ((gsize) aux + 1 >= trace->chain_offsets->len)
    {
      *symbols = *modules = NULL;
      return 0;
    }
  guint32 from = g_array_index (trace->chain_offsets, guint32, aux);
  guint32 to = g_array_index (trace->chain_offsets, guint32, aux + 1);
  *symbols = &g_array_index (trace->chain_symbols, guint32, from);
  *modules = &g_array_index (trace->chain_modules, guint32, from);
  return to - from;
}

guint32
_sl_trace_find_osrt_chain (SlTrace *trace,
                           guint32  callchain_id)
{
  const SlChainId *ids = (const SlChainId *) trace->osrt_chains->data;
  guint lo = 0, hi = trace->osrt_chains->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (ids[mid].id < callchain_id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < trace->osrt_chains->len && ids[lo].id == callchain_id ? ids[lo].chain
                                                                     : G_MAXUINT32;
}

guint
sl_trace_get_osrt_callchain (SlTrace        *trace,
                             guint32         callchain_id,
                             const guint32 **symbols,
                             const guint32 **modules)
{
  g_return_val_if_fail (trace != NULL && symbols != NULL && modules != NULL, 0);
  *symbols = *modules = NULL;
  if (callchain_id == 0)
    return 0;
  return sl_trace_get_callchain (trace, _sl_trace_find_osrt_chain (trace, callchain_id), symbols,
                                 modules);
}

static int
compare_cuda_chains (gconstpointer a,
                     gconstpointer b)
{
  const SlCudaChain *x = a, *y = b;

  if (x->global_pid != y->global_pid)
    return x->global_pid < y->global_pid ? -1 : 1;
  if (x->corr != y->corr)
    return x->corr < y->corr ? -1 : 1;
  return x->event_class < y->event_class ? -1 : x->event_class > y->event_class;
}

void
_sl_trace_sort_cuda_chains (SlTrace *trace)
{
  g_array_sort (trace->cuda_chains, compare_cuda_chains);
}

guint32
_sl_trace_find_cuda_chain (SlTrace       *trace,
                           const SlLane  *lane,
                           const SlEvent *ev)
{
  if (lane->kind != SL_LANE_CUDA_API || trace->cuda_chains->len == 0)
    return G_MAXUINT32;

  const SlCudaChain *c = (const SlCudaChain *) trace->cuda_chains->data;
  SlCudaChain key = { lane->global_pid, ev->corr, ev->aux & 0xFF, 0, 0 };
  guint lo = 0, hi = trace->cuda_chains->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (compare_cuda_chains (&c[mid], &key) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == trace->cuda_chains->len || compare_cuda_chains (&c[lo], &key) != 0)
    return G_MAXUINT32;
  return c[lo].chain;
}

guint
sl_trace_get_cuda_callchain (SlTrace        *trace,
                             const SlLane   *lane,
                             const SlEvent  *ev,
                             const guint32 **symbols,
                             const guint32 **modules)
{
  g_return_val_if_fail (trace != NULL && lane != NULL && ev != NULL, 0);
  g_return_val_if_fail (symbols != NULL && modules != NULL, 0);
  *symbols = *modules = NULL;

  guint32 chain = _sl_trace_find_cuda_chain (trace, lane, ev);
  return chain != G_MAXUINT32 ? sl_trace_get_callchain (trace, chain, symbols, modules) : 0;
}

guint
sl_trace_get_n_cuda_callchains (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return trace->cuda_chains->len;
}

/* Whether two lanes of two loads of one file hold the same thread's (at any depth: a range's
 * depth changes when an enclosing one is read later) or the same stream's events of one kind. */
static gboolean
same_lane (SlTrace      *a,
           const SlLane *la,
           SlTrace      *b,
           const SlLane *lb)
{
  if (la->kind != lb->kind || la->source != lb->source || (la->gpu >= 0) != (lb->gpu >= 0))
    return FALSE;
  if (la->gpu >= 0)
    return sl_trace_get_gpu (a, (guint) la->gpu)->device_id
             == sl_trace_get_gpu (b, (guint) lb->gpu)->device_id
           && la->global_pid == lb->global_pid && la->context_id == lb->context_id
           && la->green_context_id == lb->green_context_id && la->stream_id == lb->stream_id;
  return la->thread >= 0 && lb->thread >= 0
         && sl_trace_get_thread (a, (guint) la->thread)->global_tid
              == sl_trace_get_thread (b, (guint) lb->thread)->global_tid;
}

gint
sl_trace_find_same_lane (SlTrace *from,
                         guint    lane,
                         SlTrace *to)
{
  g_return_val_if_fail (from != NULL && to != NULL, -1);

  if (lane >= from->lanes->len)
    return -1;
  const SlLane *la = g_ptr_array_index (from->lanes, lane);
  for (guint i = 0; i < to->lanes->len; i++)
    {
      const SlLane *lb = g_ptr_array_index (to->lanes, i);
      if (lb->depth == la->depth && same_lane (from, la, to, lb))
        return (gint) i;
    }
  return -1;
}

gboolean
sl_trace_find_same_event (SlTrace    *from,
                          SlEventRef  ref,
                          SlTrace    *to,
                          SlEventRef *out)
{
  g_return_val_if_fail (from != NULL && to != NULL && out != NULL, FALSE);

  *out = SL_EVENT_REF_NONE;
  if (ref.lane < 0 || (guint) ref.lane >= from->lanes->len)
    return FALSE;
  const SlLane *la = g_ptr_array_index (from->lanes, ref.lane);
  if (ref.index >= la->n_events)
    return FALSE;
  const SlEvent *e = &la->events[ref.index];
  const char *name = sl_trace_str (from, e->name);
  gboolean found = FALSE;

  for (guint i = 0; i < to->lanes->len; i++)
    {
      const SlLane *lb = g_ptr_array_index (to->lanes, i);
      if (!same_lane (from, la, to, lb))
        continue;
      /* same start and name; the same end too where several match (an unterminated range ends
       * where the trace does, which moves with each live update) */
      for (gsize k = sl_lane_lower_bound (lb, e->start); k < lb->n_events; k++)
        {
          const SlEvent *o = &lb->events[k];
          if (o->start != e->start)
            break;
          if (strcmp (sl_trace_str (to, o->name), name) != 0
              || (found && o->end != e->end))
            continue;
          *out = (SlEventRef) { (gint) i, k };
          found = TRUE;
          if (o->end == e->end)
            return TRUE;
        }
    }
  return found;
}

gboolean
sl_trace_resolve (SlTrace       *trace,
                  guint32        global_id,
                  const SlLane **lane,
                  gsize         *index)
{
  guint lo = 0, hi = trace->lanes->len;

  if (global_id >= trace->n_ids)
    return FALSE;
  /* lanes are in base order: find the last one with base <= id */
  while (hi - lo > 1)
    {
      guint mid = (lo + hi) / 2;
      if (((SlLane *) g_ptr_array_index (trace->lanes, mid))->base <= global_id)
        lo = mid;
      else
        hi = mid;
    }
  const SlLane *l = g_ptr_array_index (trace->lanes, lo);
  /* ids a live trace keeps for a lane's later events, or one an append set in an event this
   * trace shares with the next (sl-trace-live.c) */
  if (global_id - l->base >= l->n_events)
    return FALSE;
  if (lane != NULL)
    *lane = l;
  if (index != NULL)
    *index = global_id - l->base;
  return TRUE;
}

guint
sl_trace_get_n_diagnostics (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return trace->diagnostics->len;
}

const SlDiagnostic *
sl_trace_get_diagnostic (SlTrace *trace,
                         guint    i)
{
  g_return_val_if_fail (trace != NULL && i < trace->diagnostics->len, NULL);
  return &g_array_index (trace->diagnostics, SlDiagnostic, i);
}

const char *
sl_diagnostic_severity_name (gint32 severity)
{
  return sl_trace_enum_label (NULL, SL_ENUM_DIAGNOSTIC_SEVERITY, severity);
}
