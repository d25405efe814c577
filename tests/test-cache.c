/* test-cache.c: the model cache (sl-trace-cache.c): a cached load is the fresh one, field by field,
 * and a stale, truncated, damaged, forged or foreign cache file is never trusted. */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sl-lane.h"
#include "sl-stats.h"
#include "sl-test-trace.h"
#include "sl-test-util.h"
#include "sl-trace-private.h"
#include "sl-utilization.h"

/* A cache folder of its own for each test, the cache on, every load worth storing. */
static char *
cache_setup (const char *name)
{
  g_autofree char *home = g_build_filename (sl_test_tmpdir (), name, NULL);

  g_setenv ("XDG_CACHE_HOME", home, TRUE);
  g_setenv ("SIGHTLINE_CACHE", "1", TRUE);
  g_setenv ("SIGHTLINE_CACHE_MIN_MS", "0", TRUE);
  g_unsetenv ("SIGHTLINE_CACHE_MAX");
  return _sl_trace_cache_dir ();
}

static SlCacheStats
cache_stats (void)
{
  SlCacheStats s;
  _sl_trace_cache_get_stats (&s);
  return s;
}

static SlTrace *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  SlTrace *trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

/* Loads `path` and asserts whether it came from the cache. */
static SlTrace *
load_expect (const char *path,
             gboolean    hit)
{
  SlCacheStats before = cache_stats ();
  SlTrace *trace = load (path);
  SlCacheStats after = cache_stats ();

  g_assert_cmpuint (after.hits - before.hits, ==, hit ? 1 : 0);
  return trace;
}

static char *
cache_file_of (const char *path)
{
  SlCacheKey key = { 0 };
  g_autoptr (SlTrace) none = NULL;
  char *file;

  /* fills the key; a hit here would be a bug in the caller's expectations, not counted */
  none = _sl_trace_cache_load (path, &key);
  file = g_strdup (key.file);
  _sl_cache_key_clear (&key);
  g_assert_nonnull (file);
  return file;
}

/* ---- comparing two traces field by field ------------------------------------------------------ */

static void
assert_same_array (GArray *a,
                   GArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  g_assert_cmpuint (g_array_get_element_size (a), ==, g_array_get_element_size (b));
  if (a->len > 0)
    g_assert_cmpmem (a->data, (gsize) a->len * g_array_get_element_size (a), b->data,
                     (gsize) b->len * g_array_get_element_size (b));
}

static void
assert_same_union (const SlBusyUnion *a,
                   const SlBusyUnion *b)
{
  g_assert_cmpuint (a->n, ==, b->n);
  g_assert_cmpuint (a->n_chunks, ==, b->n_chunks);
  g_assert_cmpuint (a->n_long, ==, b->n_long);
  g_assert_cmpuint (a->n_idx, ==, b->n_idx);
  g_assert_cmpint (a->idx_origin, ==, b->idx_origin);
  g_assert_cmpint (a->idx_width, ==, b->idx_width);
  if (a->n_chunks > 0)
    {
      g_assert_cmpmem (a->chunks, a->n_chunks * sizeof (SlBusyChunk), b->chunks,
                       b->n_chunks * sizeof (SlBusyChunk));
      g_assert_cmpmem (a->bases, a->n_chunks * sizeof (SlTime), b->bases,
                       b->n_chunks * sizeof (SlTime));
    }
  if (a->n_long > 0)
    {
      g_assert_cmpmem (a->long_index, a->n_long * 4, b->long_index, b->n_long * 4);
      g_assert_cmpmem (a->long_len, a->n_long * 8, b->long_len, b->n_long * 8);
    }
  if (a->n_idx > 0)
    g_assert_cmpmem (a->idx, a->n_idx * 4, b->idx, b->n_idx * 4);
}

static void
assert_same_lane (const SlLane *a,
                  const SlLane *b)
{
  g_assert_cmpint (a->kind, ==, b->kind);
  g_assert_cmpuint (a->index, ==, b->index);
  g_assert_cmpuint (a->base, ==, b->base);
  g_assert_cmpint (a->thread, ==, b->thread);
  g_assert_cmpint (a->gpu, ==, b->gpu);
  g_assert_cmpuint (a->global_pid, ==, b->global_pid);
  g_assert_cmpuint (a->context_id, ==, b->context_id);
  g_assert_cmpuint (a->green_context_id, ==, b->green_context_id);
  g_assert_cmpuint (a->stream_id, ==, b->stream_id);
  g_assert_cmpuint (a->depth, ==, b->depth);
  g_assert_cmpuint (a->label, ==, b->label);
  g_assert_cmpuint (a->source, ==, b->source);
  g_assert_cmpuint (a->n_events, ==, b->n_events);
  g_assert_cmpmem (a->events, a->n_events * sizeof (SlEvent), b->events,
                   b->n_events * sizeof (SlEvent));
  /* what is rebuilt on a cached load is what the fresh load built */
  g_assert_true ((a->max_end == NULL) == (b->max_end == NULL));
  g_assert_cmpint (a->max_level, ==, b->max_level);
  if (a->max_end != NULL)
    g_assert_cmpmem (a->max_end, a->n_events * 8, b->max_end, b->n_events * 8);
  g_assert_cmpint (a->busy, ==, b->busy);
  g_assert_cmpmem (a->busy_prefix, (a->n_events / SL_BUSY_STRIDE + 1) * 8, b->busy_prefix,
                   (b->n_events / SL_BUSY_STRIDE + 1) * 8);
  g_assert_cmpuint (a->n_lod, ==, b->n_lod);
  g_assert_cmpint (a->lod_origin, ==, b->lod_origin);
  for (guint l = 0; l < a->n_lod; l++)
    {
      g_assert_cmpint (a->lod[l].width, ==, b->lod[l].width);
      g_assert_cmpuint (a->lod[l].n, ==, b->lod[l].n);
      for (gsize k = 0; k < a->lod[l].n; k++)
        {
          const SlLodBucket *x = &a->lod[l].b[k], *y = &b->lod[l].b[k];
          g_assert_cmpuint (x->first, ==, y->first);
          g_assert_cmpuint (x->max_dur, ==, y->max_dur);
          g_assert_cmpint (x->busy_before, ==, y->busy_before);
          g_assert_cmpuint (x->start_off, ==, y->start_off);
          g_assert_cmpint (x->end_off, ==, y->end_off);
        }
    }

  /* and the level of detail asked for a few windows is the same list */
  SlTime t0 = a->events[0].start, t1 = a->events[a->n_events - 1].end + 1;
  SlTime windows[4][2] = { { t0, t1 }, { t0, t0 + (t1 - t0) / 10 + 1 },
                           { t0 + (t1 - t0) / 3, t0 + (t1 - t0) / 2 + 1 }, { t1 - 1000, t1 } };
  for (guint w = 0; w < G_N_ELEMENTS (windows); w++)
    {
      g_autoptr (GArray) la = g_array_new (FALSE, FALSE, sizeof (SlLodItem));
      g_autoptr (GArray) lb = g_array_new (FALSE, FALSE, sizeof (SlLodItem));
      sl_lane_lod (a, windows[w][0], windows[w][1], 1500, 2.0, la);
      sl_lane_lod (b, windows[w][0], windows[w][1], 1500, 2.0, lb);
      g_assert_cmpuint (la->len, ==, lb->len);
      for (guint i = 0; i < la->len; i++)
        {
          const SlLodItem *x = &g_array_index (la, SlLodItem, i);
          const SlLodItem *y = &g_array_index (lb, SlLodItem, i);
          g_assert_cmpint (x->start, ==, y->start);
          g_assert_cmpint (x->end, ==, y->end);
          g_assert_cmpuint (x->first, ==, y->first);
          g_assert_cmpuint (x->count, ==, y->count);
          g_assert_cmpint (x->busy, ==, y->busy);
        }
    }
}

static void assert_same_model (SlTrace *a, SlTrace *b);

/* The model field by field, then every report computed from each, cell by cell. */
static void
assert_same_trace (SlTrace *a,
                   SlTrace *b)
{
  assert_same_model (a, b);
  sl_test_assert_same_reports (a, b);
}

static void
assert_same_model (SlTrace *a,
                   SlTrace *b)
{
  g_assert_cmpstr (a->path, ==, b->path);
  g_assert_cmpstr (a->schema, ==, b->schema);
  g_assert_cmpint (a->start, ==, b->start);
  g_assert_cmpint (a->end, ==, b->end);
  g_assert_cmpuint (a->n_events, ==, b->n_events);
  g_assert_cmpint (a->is_json, ==, b->is_json);
  g_assert_cmpint (a->rank, ==, b->rank);
  g_assert_cmpint (a->world_size, ==, b->world_size);
  g_assert_cmpuint (sl_trace_get_memory_size (a), ==, sl_trace_get_memory_size (b));

  const char *const *wa = sl_trace_get_warnings (a), *const *wb = sl_trace_get_warnings (b);
  g_assert_cmpuint (g_strv_length ((char **) wa), ==, g_strv_length ((char **) wb));
  for (guint i = 0; wa[i] != NULL; i++)
    g_assert_cmpstr (wa[i], ==, wb[i]);

  g_assert_cmpuint (sl_trace_get_n_strs (a), ==, sl_trace_get_n_strs (b));
  g_assert_cmpuint (a->str_bytes, ==, b->str_bytes);
  for (guint i = 0; i < sl_trace_get_n_strs (a); i++)
    g_assert_cmpstr (sl_trace_str (a, i), ==, sl_trace_str (b, i));

  g_assert_cmpuint (a->processes->len, ==, b->processes->len);
  for (guint i = 0; i < a->processes->len; i++)
    {
      const SlProcess *x = sl_trace_get_process (a, i), *y = sl_trace_get_process (b, i);
      g_assert_cmpuint (x->global_pid, ==, y->global_pid);
      g_assert_cmpuint (x->pid, ==, y->pid);
      g_assert_cmpuint (x->name, ==, y->name);
      g_assert_cmpuint (x->parent_pid, ==, y->parent_pid);
      g_assert_cmpuint (x->command_line, ==, y->command_line);
      g_assert_cmpint (x->rank, ==, y->rank);
      g_assert_cmpuint (x->source, ==, y->source);
    }
  g_assert_cmpuint (a->threads->len, ==, b->threads->len);
  for (guint i = 0; i < a->threads->len; i++)
    {
      const SlThread *x = sl_trace_get_thread (a, i), *y = sl_trace_get_thread (b, i);
      g_assert_cmpuint (x->global_tid, ==, y->global_tid);
      g_assert_cmpuint (x->pid, ==, y->pid);
      g_assert_cmpuint (x->tid, ==, y->tid);
      g_assert_cmpuint (x->name, ==, y->name);
      g_assert_cmpuint (x->process, ==, y->process);
      g_assert_cmpint (x->priority, ==, y->priority);
      g_assert_cmpuint (x->source, ==, y->source);
    }
  g_assert_cmpuint (a->gpus->len, ==, b->gpus->len);
  for (guint i = 0; i < a->gpus->len; i++)
    {
      const SlGpu *x = sl_trace_get_gpu (a, i), *y = sl_trace_get_gpu (b, i);
      g_assert_cmpuint (x->device_id, ==, y->device_id);
      g_assert_cmpuint (x->name, ==, y->name);
      g_assert_cmpuint (x->bus_location, ==, y->bus_location);
      g_assert_cmpuint (x->uuid, ==, y->uuid);
      g_assert_cmpuint (x->chip_name, ==, y->chip_name);
      g_assert_cmpint (x->total_memory, ==, y->total_memory);
      g_assert_cmpint (x->memory_bandwidth, ==, y->memory_bandwidth);
      g_assert_cmpint (x->clock_rate, ==, y->clock_rate);
      g_assert_cmpint (x->described, ==, y->described);
      g_assert_cmpmem (&x->limits, sizeof x->limits, &y->limits, sizeof y->limits);
      g_assert_cmpuint (x->source, ==, y->source);
      assert_same_union (&a->gpu_busy[i].kernels, &b->gpu_busy[i].kernels);
      assert_same_union (&a->gpu_busy[i].any, &b->gpu_busy[i].any);
      g_assert_true ((a->gpu_busy[i].any.chunks == a->gpu_busy[i].kernels.chunks)
                     == (b->gpu_busy[i].any.chunks == b->gpu_busy[i].kernels.chunks));
    }

  assert_same_array (a->kernel_infos, b->kernel_infos);   /* no padding in SlKernelInfo */
  g_assert_cmpuint (a->copy_infos->len, ==, b->copy_infos->len);
  for (guint i = 0; i < a->copy_infos->len; i++)
    {
      const SlCopyInfo *x = sl_trace_get_copy_info (a, i), *y = sl_trace_get_copy_info (b, i);
      g_assert_cmpuint (x->bytes, ==, y->bytes);
      g_assert_cmpuint (x->value, ==, y->value);
      g_assert_cmpuint (x->copy_kind, ==, y->copy_kind);
      g_assert_cmpuint (x->src_kind, ==, y->src_kind);
      g_assert_cmpuint (x->dst_kind, ==, y->dst_kind);
      g_assert_cmpuint (x->mem_kind, ==, y->mem_kind);
      g_assert_cmpint (x->src_device, ==, y->src_device);
      g_assert_cmpint (x->dst_device, ==, y->dst_device);
      g_assert_cmpuint (x->migration_cause, ==, y->migration_cause);
    }
  assert_same_array (a->chain_offsets, b->chain_offsets);
  assert_same_array (a->chain_symbols, b->chain_symbols);
  assert_same_array (a->chain_modules, b->chain_modules);
  assert_same_array (a->osrt_chains, b->osrt_chains);
  assert_same_array (a->cuda_chains, b->cuda_chains);
  assert_same_array (a->mem_usage, b->mem_usage);   /* no padding in SlMemUsage */
  assert_same_array (a->metric_series, b->metric_series);   /* no padding in SlMetricSeries */
  assert_same_array (a->metric_times, b->metric_times);
  assert_same_array (a->metric_values, b->metric_values);
  g_assert_cmpuint (a->diagnostics->len, ==, b->diagnostics->len);
  for (guint i = 0; i < a->diagnostics->len; i++)
    {
      const SlDiagnostic *x = sl_trace_get_diagnostic (a, i), *y = sl_trace_get_diagnostic (b, i);
      g_assert_cmpint (x->timestamp, ==, y->timestamp);
      g_assert_cmpint (x->severity, ==, y->severity);
      g_assert_cmpint (x->source, ==, y->source);
      g_assert_cmpuint (x->text, ==, y->text);
      g_assert_cmpuint (x->global_pid, ==, y->global_pid);
    }
  for (guint e = 0; e < SL_N_ENUMS; e++)
    {
      GHashTableIter iter;
      gpointer k, v;
      g_assert_cmpuint (g_hash_table_size (a->enum_labels[e]), ==,
                        g_hash_table_size (b->enum_labels[e]));
      g_hash_table_iter_init (&iter, a->enum_labels[e]);
      while (g_hash_table_iter_next (&iter, &k, &v))
        g_assert_cmpstr (v, ==, g_hash_table_lookup (b->enum_labels[e], k));
    }
  g_assert_cmpuint (a->table_reads->len, ==, b->table_reads->len);
  for (guint i = 0; i < a->table_reads->len; i++)
    {
      const SlTableRead *x = &g_array_index (a->table_reads, SlTableRead, i);
      const SlTableRead *y = &g_array_index (b->table_reads, SlTableRead, i);
      g_assert_cmpstr (x->table, ==, y->table);
      g_assert_cmpstr (x->not_read, ==, y->not_read);
      g_assert_cmpuint (x->rows, ==, y->rows);
      g_assert_cmpuint (x->null_time, ==, y->null_time);
      g_assert_cmpuint (x->bad_type, ==, y->bad_type);
      g_assert_cmpuint (x->null_owner, ==, y->null_owner);
      g_assert_cmpuint (x->not_events, ==, y->not_events);
      g_assert_cmpuint (x->bad_range, ==, y->bad_range);
      g_assert_cmpuint (x->bad_order, ==, y->bad_order);
    }

  g_assert_cmpuint (sl_trace_get_n_lanes (a), ==, sl_trace_get_n_lanes (b));
  for (guint i = 0; i < sl_trace_get_n_lanes (a); i++)
    assert_same_lane (sl_trace_get_lane (a, i), sl_trace_get_lane (b, i));

  /* GPU utilization over a few windows */
  for (guint g = 0; g < sl_trace_get_n_gpus (a); g++)
    for (guint k = 0; k < 8; k++)
      {
        SlTime span = a->end - a->start, t0 = a->start + span / 8 * k;
        for (SlUtilKind u = SL_UTIL_KERNELS; u <= SL_UTIL_ANY; u++)
          g_assert_cmpint (sl_trace_gpu_busy_time (a, g, u, t0, t0 + span / 5 + 1), ==,
                           sl_trace_gpu_busy_time (b, g, u, t0, t0 + span / 5 + 1));
      }
}

/* ---- the tests -------------------------------------------------------------------------------- */

static GPtrArray *
real_traces (void)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) nsys = sl_test_nsys_traces ();
  g_autofree char *pytorch = sl_test_trace_path ("pytorch");
  g_autoptr (GDir) dir = g_dir_open (pytorch, 0, NULL);
  g_autoptr (GPtrArray) json = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  for (guint i = 0; nsys[i] != NULL; i++)
    g_ptr_array_add (paths, g_strdup (nsys[i]));
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".json.gz") || g_str_has_suffix (name, ".json"))
      g_ptr_array_add (json, g_build_filename (pytorch, name, NULL));
  g_ptr_array_sort (json, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < json->len; i++)
    g_ptr_array_add (paths, g_strdup (g_ptr_array_index (json, i)));
  g_assert_cmpuint (paths->len, >=, 12);
  return paths;
}

/* Every real trace: stored by its first load, identical when read back. */
static void
test_real_files (void)
{
  g_autofree char *dir = cache_setup ("real");
  g_autoptr (GPtrArray) paths = real_traces ();

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_test_message ("%s", path);
      SlCacheStats before = cache_stats ();
      g_autoptr (SlTrace) fresh = load_expect (path, FALSE);
      g_assert_cmpuint (cache_stats ().stores, ==, before.stores + 1);
      g_autoptr (SlTrace) cached = load_expect (path, TRUE);
      assert_same_trace (fresh, cached);
      g_assert_cmpuint (cache_stats ().rejected, ==, before.rejected);
    }
}

/* A source changed in any way the key sees is read again, and the cache file replaced. */
static void
test_stale (void)
{
  g_autofree char *dir = cache_setup ("stale");
  g_autofree char *path = sl_test_copy_trace ("nsys/nsys-2023.1-rtx3090.sqlite", "stale.sqlite");
  struct timespec times[2];

  g_autoptr (SlTrace) first = load_expect (path, FALSE);
  g_autoptr (SlTrace) second = load_expect (path, TRUE);

  /* a new modification time, same contents */
  clock_gettime (CLOCK_REALTIME, &times[0]);
  times[1] = times[0];
  times[1].tv_sec += 10;
  g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);
  SlCacheStats before = cache_stats ();
  g_autoptr (SlTrace) touched = load_expect (path, FALSE);
  g_assert_cmpuint (cache_stats ().rejected, ==, before.rejected + 1);
  g_assert_cmpuint (sl_trace_get_n_events (touched), ==, sl_trace_get_n_events (first));
  g_autoptr (SlTrace) again = load_expect (path, TRUE);

  /* the file replaced by a copy (same size, the same times set on it: only the inode and the
   * change time differ) */
  g_autofree char *other = sl_test_copy_trace ("nsys/nsys-2023.1-rtx3090.sqlite", "other.sqlite");
  struct stat st;
  g_assert_cmpint (stat (path, &st), ==, 0);
  times[0] = st.st_atim;
  times[1] = st.st_mtim;
  g_assert_cmpint (utimensat (AT_FDCWD, other, times, 0), ==, 0);
  g_assert_cmpint (g_rename (other, path), ==, 0);
  g_autoptr (SlTrace) replaced = load_expect (path, FALSE);
  g_assert_cmpuint (sl_trace_get_n_events (replaced), ==, sl_trace_get_n_events (first));
  g_autoptr (SlTrace) replaced_again = load_expect (path, TRUE);

  /* another size and contents: a table of the file loses its rows */
  sl_test_exec_sql (path, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid % 2 = 0; VACUUM");
  g_autoptr (SlTrace) smaller = load_expect (path, FALSE);
  g_assert_cmpuint (sl_trace_get_n_events (smaller), <, sl_trace_get_n_events (first));
  g_autoptr (SlTrace) smaller_again = load_expect (path, TRUE);
  assert_same_trace (smaller, smaller_again);

}

/* The file as it was, and a file's offsets where each region starts, found by walking its
 * sections as sl-trace-cache.c writes them (header of 144 bytes, the path padded to 8, then
 * sections: tag, element size, count, data padded to 8). */
typedef struct
{
  guint64 offset;
  guint64 length;
  char    what[32];
} Region;

static GArray *
cache_regions (const guint8 *data,
               gsize         len)
{
  GArray *regions = g_array_new (FALSE, FALSE, sizeof (Region));
  guint32 path_len;
  guint64 at;

  memcpy (&path_len, data + 128, 4);
  g_array_append_val (regions, ((Region) { 0, 8, "magic" }));
  g_array_append_val (regions, ((Region) { 16, 8, "version" }));
  g_array_append_val (regions, ((Region) { 24, 48, "struct sizes" }));
  g_array_append_val (regions, ((Region) { 72, 40, "source key" }));
  g_array_append_val (regions, ((Region) { 112, 8, "file size" }));
  g_array_append_val (regions, ((Region) { 120, 8, "payload hash" }));
  g_array_append_val (regions, ((Region) { 136, 8, "header hash" }));
  g_array_append_val (regions, ((Region) { 144, path_len, "path" }));
  at = 144 + (path_len + 7) / 8 * 8;
  while (at + 16 <= len)
    {
      guint32 tag, elem;
      guint64 count;
      memcpy (&tag, data + at, 4);
      memcpy (&elem, data + at + 4, 4);
      memcpy (&count, data + at + 8, 8);
      Region head = { at, 16, "" };
      g_snprintf (head.what, sizeof head.what, "section %u head", tag);
      g_array_append_val (regions, head);
      guint64 bytes = elem * count;
      if (bytes > 0)
        {
          Region body = { at + 16, bytes, "" };
          g_snprintf (body.what, sizeof body.what, "section %u data", tag);
          g_array_append_val (regions, body);
        }
      at += 16 + (bytes + 7) / 8 * 8;
    }
  g_assert_cmpuint (at, ==, len);
  return regions;
}

/* Writes `data` as the cache file and loads: the trace of its source, not of the cache. */
static SlTrace *
expect_rejected (const char *path,
                 const char *file,
                 const void *data,
                 gsize       len,
                 gsize       expected_events)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (file, data, len, &error));
  SlCacheStats before = cache_stats ();
  SlTrace *trace = load_expect (path, FALSE);
  SlCacheStats after = cache_stats ();
  g_assert_cmpuint (after.rejected, ==, before.rejected + 1);
  g_assert_cmpuint (after.stores, ==, before.stores + 1);
  g_assert_cmpuint (sl_trace_get_n_events (trace), ==, expected_events);
  return trace;
}

/* Truncated and damaged cache files: each is ignored, deleted, and the trace read from its file. */
static void
test_damaged (void)
{
  g_autofree char *dir = cache_setup ("damaged");
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-osrt-sampling.sqlite");
  g_autoptr (SlTrace) fresh = load_expect (path, FALSE);
  g_autofree char *file = cache_file_of (path);
  g_autofree guint8 *good = NULL;
  gsize len = 0;
  gsize n = sl_trace_get_n_events (fresh);

  g_assert_true (g_file_get_contents (file, (char **) &good, &len, NULL));
  g_autoptr (GArray) regions = cache_regions (good, len);
  g_assert_cmpuint (regions->len, >, 30);

  /* truncated anywhere */
  gsize cuts[] = { 0, 7, 100, 143, 144, 150, len / 3, len / 2, len - 32, len - 1 };
  for (guint i = 0; i < G_N_ELEMENTS (cuts); i++)
    sl_trace_unref (expect_rejected (path, file, good, cuts[i], n));
  /* longer than it says */
  g_autofree guint8 *longer = g_malloc0 (len + 8);
  memcpy (longer, good, len);
  sl_trace_unref (expect_rejected (path, file, longer, len + 8, n));

  /* a bit flipped at the start, middle and end of every region */
  g_autofree guint8 *bad = g_memdup2 (good, len);
  for (guint r = 0; r < regions->len; r++)
    {
      const Region *reg = &g_array_index (regions, Region, r);
      guint64 at[3] = { reg->offset, reg->offset + reg->length / 2,
                        reg->offset + reg->length - 1 };
      for (guint k = 0; k < 3; k++)
        {
          g_test_message ("flip at %" G_GUINT64_FORMAT " (%s)", at[k], reg->what);
          memcpy (bad, good, len);
          bad[at[k]] ^= 0x10;
          sl_trace_unref (expect_rejected (path, file, bad, len, n));
        }
    }

  /* the last good one still is */
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_set_contents (file, (const char *) good, len, &error));
  g_autoptr (SlTrace) cached = load_expect (path, TRUE);
  assert_same_trace (fresh, cached);
}

/* Puts the hashes right after an edit, as someone forging a file would. */
static void
rehash (guint8 *data,
        gsize   len)
{
  guint32 path_len;
  guint64 zero = 0, h;

  memcpy (&path_len, data + 128, 4);
  gsize payload = 144 + (path_len + 7) / 8 * 8;
  h = _sl_trace_cache_hash (data + payload, len - payload);
  memcpy (data + 120, &h, 8);
  g_autofree guint8 *head = g_malloc (144 + path_len);
  memcpy (head, data, 144 + path_len);
  memcpy (head + 136, &zero, 8);
  h = _sl_trace_cache_hash (head, 144 + path_len);
  memcpy (data + 136, &h, 8);
}

static const Region *
find_region (GArray     *regions,
             const char *what)
{
  for (guint r = 0; r < regions->len; r++)
    if (strcmp (g_array_index (regions, Region, r).what, what) == 0)
      return &g_array_index (regions, Region, r);
  g_error ("no region %s", what);
}

/* Files the hashes accept, with ids, indexes, counts and times that do not fit: the checks
 * behind the hashes turn each away. */
static void
test_forged (void)
{
  g_autofree char *dir = cache_setup ("forged");
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-osrt-sampling.sqlite");
  g_autoptr (SlTrace) fresh = load_expect (path, FALSE);
  g_autofree char *file = cache_file_of (path);
  g_autofree guint8 *good = NULL;
  gsize len = 0, n = sl_trace_get_n_events (fresh);

  g_assert_true (g_file_get_contents (file, (char **) &good, &len, NULL));
  /* rehashing the untouched file changes nothing: the test's idea of the hashes is right */
  g_autofree guint8 *bad = g_memdup2 (good, len);
  rehash (bad, len);
  g_assert_cmpmem (bad, len, good, len);

  g_autoptr (GArray) regions = cache_regions (good, len);
  const Region *events = find_region (regions, "section 19 data");
  const Region *lanes = find_region (regions, "section 18 data");
  const Region *threads = find_region (regions, "section 8 data");
  const Region *offsets = find_region (regions, "section 12 data");
  g_assert_cmpuint (offsets->length, >=, 8);   /* the trace has call chains */
  struct
  {
    guint64 at;
    guint32 value;
    const char *what;
  } edits[] = {
    { events->offset + 16, G_MAXUINT32 - 1, "an event's name past the strings" },
    { events->offset + 4, 0x40000000, "an event's start past 2^61 ns" },
    { events->offset + events->length - 32 + 4, 0x80000000, "the last start before the others" },
    { events->offset + 12, 0x80000000, "an event that ends before it starts" },
    { lanes->offset + 16, 1000000, "a lane's thread past the threads" },
    { lanes->offset + 24, 99, "a lane of no kind" },
    { lanes->offset + 8, 0, "a lane without events" },
    { lanes->offset + 44, 0xFFFFFF, "a lane's label past the strings" },
    { threads->offset + 20, 0xFFFF, "a thread's process past the processes" },
    { offsets->offset + 4, 0xFFFFFF, "a call chain past the symbols" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (edits); i++)
    {
      g_test_message ("%s", edits[i].what);
      memcpy (bad, good, len);
      memcpy (bad + edits[i].at, &edits[i].value, 4);
      rehash (bad, len);
      sl_trace_unref (expect_rejected (path, file, bad, len, n));
    }

  /* a kernel whose launch is another kernel, on a trace with links */
  g_autofree char *linked = sl_test_trace_path ("nsys/nsys-2023.1-rtx3090.sqlite");
  g_autoptr (SlTrace) with_links = load_expect (linked, FALSE);
  g_autofree char *linked_file = cache_file_of (linked);
  g_clear_pointer (&good, g_free);
  g_assert_true (g_file_get_contents (linked_file, (char **) &good, &len, NULL));
  g_clear_pointer (&regions, g_array_unref);
  regions = cache_regions (good, len);
  events = find_region (regions, "section 19 data");
  guint32 kernel = G_MAXUINT32;
  for (guint l = 0; l < sl_trace_get_n_lanes (with_links) && kernel == G_MAXUINT32; l++)
    if (sl_trace_get_lane (with_links, l)->kind == SL_LANE_KERNELS)
      kernel = sl_trace_get_lane (with_links, l)->base;
  g_assert_cmpuint (kernel, !=, G_MAXUINT32);
  g_clear_pointer (&bad, g_free);
  bad = g_memdup2 (good, len);
  guint64 link_at = events->offset + (guint64) kernel * sizeof (SlEvent) + 24;
  memcpy (bad + link_at, &kernel, 4);
  rehash (bad, len);
  sl_trace_unref (expect_rejected (linked, linked_file, bad, len,
                                   sl_trace_get_n_events (with_links)));
}

/* The payload parser on its own (the fuzz targets' entry): the payload as written is the trace;
 * with random bytes changed, and all hashes out of the way, it is either turned away or a trace
 * whose reports and LOD queries run (under ASan, without a bad read). */
static void
mutate_one (const char *relative,
            guint32     seed)
{
  g_autofree char *path = sl_test_trace_path (relative);
  g_autoptr (SlTrace) fresh = load_expect (path, FALSE);
  g_autofree char *file = cache_file_of (path);
  g_autofree guint8 *data = NULL;
  gsize len = 0;
  guint32 path_len;
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  guint accepted = 0;

  g_assert_true (g_file_get_contents (file, (char **) &data, &len, NULL));
  memcpy (&path_len, data + 128, 4);
  gsize off = 144 + (path_len + 7) / 8 * 8;
  g_autoptr (SlTrace) parsed = _sl_trace_cache_parse (path, data + off, len - off);
  g_assert_nonnull (parsed);
  assert_same_trace (fresh, parsed);
  g_assert_null (_sl_trace_cache_parse (path, data + off, len - off - 1));
  g_assert_null (_sl_trace_cache_parse (path, NULL, 0));

  g_autofree guint8 *bad = g_malloc (len - off);
  for (guint i = 0; i < 300; i++)
    {
      memcpy (bad, data + off, len - off);
      guint flips = g_rand_int_range (rand, 1, 4);
      for (guint k = 0; k < flips; k++)
        {
          /* half the changes in the small tables at the front, where most ids are */
          gsize at = g_rand_boolean (rand) ? g_rand_int_range (rand, 0, MIN (len - off, 4096))
                                           : g_rand_int_range (rand, 0, len - off);
          bad[at] ^= 1u << g_rand_int_range (rand, 0, 8);
        }
      g_autoptr (SlTrace) t = _sl_trace_cache_parse (path, bad, len - off);
      if (t == NULL)
        continue;
      accepted++;
      for (const char *const *n = sl_report_names (); *n != NULL; n++)
        {
          g_autoptr (SlReport) r = sl_report_compute (t, *n, NULL);
        }
      for (guint l = 0; l < sl_trace_get_n_lanes (t); l++)
        {
          g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (SlLodItem));
          sl_lane_lod (sl_trace_get_lane (t, l), sl_trace_get_start (t), sl_trace_get_end (t) + 1,
                       800, 2.0, out);
        }
    }
  g_test_message ("%s, seed %u: %u of 300 mutated payloads accepted (a changed time, flag or "
                  "count that still fits)", relative, seed, accepted);
}

static void
test_mutations (void)
{
  g_autofree char *dir = cache_setup ("mutations");
  guint32 seed = sl_test_seed ();

  /* samples and backtraces; kernels and links; two GPUs and NVTX; Kineto JSON */
  mutate_one ("nsys/nsys-2026.1-osrt-sampling.sqlite", seed);
  mutate_one ("nsys/nsys-2023.1-rtx3090.sqlite", seed);
  mutate_one ("nsys/nsys-2026.2-mfu-2gpu.sqlite", seed);
  mutate_one ("pytorch/trace_filter_sampled_rank-0.json.gz", seed);
}

/* The cache file of another source, under this one's name, is not this one's. */
static void
test_other_path (void)
{
  g_autofree char *dir = cache_setup ("other");
  g_autofree char *a = sl_test_copy_trace ("nsys/nsys-2026.1-tiny.sqlite", "a.sqlite");
  g_autofree char *b = sl_test_copy_trace ("nsys/nsys-2023.1-rtx3090.sqlite", "b.sqlite");
  g_autoptr (SlTrace) ta = load_expect (a, FALSE);
  g_autoptr (SlTrace) tb = load_expect (b, FALSE);
  g_autofree char *fa = cache_file_of (a);
  g_autofree char *fb = cache_file_of (b);
  g_autofree char *data = NULL;
  gsize len = 0;

  g_assert_cmpstr (fa, !=, fb);
  g_assert_true (g_file_get_contents (fa, &data, &len, NULL));
  /* (string ids differ from one fresh load to the next: two threads intern) */
  g_autoptr (SlTrace) tb_again = expect_rejected (b, fb, data, len, sl_trace_get_n_events (tb));
  g_autoptr (SlTrace) tb_cached = load_expect (b, TRUE);
  assert_same_trace (tb_again, tb_cached);

  /* the same file through another name (a symbolic link) is the same source */
  g_autofree char *link = g_build_filename (sl_test_tmpdir (), "link.sqlite", NULL);
  g_assert_cmpint (symlink (a, link), ==, 0);
  g_autoptr (SlTrace) via_link = load_expect (link, TRUE);
  g_assert_cmpuint (sl_trace_get_n_events (via_link), ==, sl_trace_get_n_events (ta));
}

static guint64
folder_bytes (const char *dir,
              guint      *n_files)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint64 total = 0;

  *n_files = 0;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      struct stat st;
      g_assert_cmpint (stat (p, &st), ==, 0);
      total += st.st_size;
      (*n_files)++;
    }
  return total;
}

/* Many stores keep the folder under SIGHTLINE_CACHE_MAX, the least recently used going first. */
static void
test_bounded (void)
{
  g_autofree char *dir = cache_setup ("bounded");
  char *paths[12];
  guint n_files;

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autofree char *name = g_strdup_printf ("copy-%u.sqlite", i);
      paths[i] = sl_test_copy_trace ("nsys/nsys-2023.1-rtx3090.sqlite", name);
    }
  g_autoptr (SlTrace) first = load_expect (paths[0], FALSE);
  guint64 one = folder_bytes (dir, &n_files);
  g_assert_cmpuint (n_files, ==, 1);
  /* room for three and a half */
  g_autofree char *max = g_strdup_printf ("%" G_GUINT64_FORMAT, one * 7 / 2);
  g_setenv ("SIGHTLINE_CACHE_MAX", max, TRUE);

  SlCacheStats before = cache_stats ();
  for (guint i = 1; i < G_N_ELEMENTS (paths); i++)
    {
      /* file times are as coarse as the kernel's tick: keep the uses apart */
      g_usleep (20000);
      g_autoptr (SlTrace) t = load_expect (paths[i], FALSE);
      g_assert_cmpuint (folder_bytes (dir, &n_files), <=, one * 7 / 2);
      g_assert_cmpuint (n_files, <=, 3);
      /* paths[1] is used again and again: it stays */
      if (i >= 2)
        {
          g_usleep (20000);
          g_autoptr (SlTrace) kept = load_expect (paths[1], TRUE);
        }
    }
  g_assert_cmpuint (cache_stats ().evicted - before.evicted, >=, 8);
  g_usleep (20000);
  g_autoptr (SlTrace) last = load_expect (paths[G_N_ELEMENTS (paths) - 1], TRUE);
  g_autoptr (SlTrace) gone = load_expect (paths[2], FALSE);

  /* a trace larger than the whole limit is not stored at all */
  g_setenv ("SIGHTLINE_CACHE_MAX", "1000", TRUE);
  SlCacheStats b2 = cache_stats ();
  g_autoptr (SlTrace) big = load_expect (paths[3], FALSE);
  g_assert_cmpuint (cache_stats ().stores, ==, b2.stores);
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    g_free (paths[i]);
}

/* SIGHTLINE_CACHE=0: nothing is read or written; quick loads are not stored either. */
static void
test_off (void)
{
  g_autofree char *dir = cache_setup ("off");
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2023.1-rtx3090.sqlite");
  guint n_files;

  g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
  SlCacheStats before = cache_stats ();
  g_autoptr (SlTrace) a = load (path);
  g_autoptr (SlTrace) b = load (path);
  SlCacheStats after = cache_stats ();
  g_assert_cmpmem (&before, sizeof before, &after, sizeof after);
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));

  /* on, but the load took less than SIGHTLINE_CACHE_MIN_MS */
  g_setenv ("SIGHTLINE_CACHE", "1", TRUE);
  g_setenv ("SIGHTLINE_CACHE_MIN_MS", "60000", TRUE);
  g_autoptr (SlTrace) c = load_expect (path, FALSE);
  g_assert_cmpuint (folder_bytes (dir, &n_files), ==, 0);
  g_assert_cmpuint (cache_stats ().stores, ==, after.stores);

  /* loads of fewer tables neither read nor write it */
  g_setenv ("SIGHTLINE_CACHE_MIN_MS", "0", TRUE);
  g_autoptr (SlTrace) d = sl_trace_load (path, SL_LOAD_KERNELS, NULL, NULL, NULL, NULL);
  g_assert_nonnull (d);
  g_assert_cmpuint (cache_stats ().stores, ==, after.stores);
}

/* A sum of every event's times. */
static guint64
event_times (SlTrace *trace)
{
  guint64 sum = 0;

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; k < lane->n_events; k++)
        sum += (guint64) lane->events[k].start * 3 + (guint64) lane->events[k].end;
    }
  return sum;
}

/* Cached traces merged: their events, which stay in the cache files' mappings, are shifted in
 * place (each lane gets its own copy of what it writes) and freed with the merged trace. */
static void
test_merge (void)
{
  g_autofree char *dir = cache_setup ("merge");
  const char *names[2] = { "nsys/nsys-2026.2-mfu-2gpu.sqlite",
                           "nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite" };
  SlTrace *fresh[2], *cached[2];
  guint64 times[2];

  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *path = sl_test_trace_path (names[i]);
      fresh[i] = load_expect (path, FALSE);
      cached[i] = load_expect (path, TRUE);
      /* the fresh one is stored: the cached one is the same trace, string ids and all */
      assert_same_trace (fresh[i], cached[i]);
      times[i] = event_times (cached[i]);
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) a = sl_trace_merge (fresh, 2, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlTrace) b = sl_trace_merge (cached, 2, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_events (a), ==, sl_trace_get_n_events (b));
  g_assert_cmpuint (sl_trace_get_n_lanes (a), ==, sl_trace_get_n_lanes (b));
  for (guint i = 0; i < sl_trace_get_n_lanes (a); i++)
    {
      const SlLane *x = sl_trace_get_lane (a, i), *y = sl_trace_get_lane (b, i);
      g_assert_cmpmem (x->events, x->n_events * sizeof (SlEvent), y->events,
                       y->n_events * sizeof (SlEvent));
    }

  /* the cache files themselves are untouched by the shifts: read back again, equal */
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *path = sl_test_trace_path (names[i]);
      g_autoptr (SlTrace) again = load_expect (path, TRUE);
      g_assert_cmpuint (event_times (again), ==, times[i]);
    }
}

/* A generated trace of 1.2 M events: its GPU unions are rebuilt on a second thread while the
 * lanes are indexed. */
static void
test_large (void)
{
#ifdef SL_GEN_PATH
  g_autofree char *dir = cache_setup ("large");
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "large.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };

  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "1200000", "--seed", "7", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_autoptr (SlTrace) fresh = load_expect (path, FALSE);
  g_assert_cmpuint (sl_trace_get_n_events (fresh), >=, 1u << 20);
  g_assert_cmpuint (sl_trace_get_n_gpus (fresh), >, 0);
  g_autoptr (SlTrace) cached = load_expect (path, TRUE);
  /* the model only: the reports are the real files' part (on 1.2 M events they took minutes
   * under ASan) */
  assert_same_model (fresh, cached);
#else
  g_test_skip ("built without sightline-gen");
#endif
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/cache/real-files", test_real_files);
  g_test_add_func ("/model/cache/stale", test_stale);
  g_test_add_func ("/model/cache/damaged", test_damaged);
  g_test_add_func ("/model/cache/forged", test_forged);
  g_test_add_func ("/model/cache/mutations", test_mutations);
  g_test_add_func ("/model/cache/other-path", test_other_path);
  g_test_add_func ("/model/cache/bounded", test_bounded);
  g_test_add_func ("/model/cache/off", test_off);
  g_test_add_func ("/model/cache/merge", test_merge);
  g_test_add_func ("/model/cache/large", test_large);
  return g_test_run ();
}
