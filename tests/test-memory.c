/* test-memory.c: GPU memory in use (model/sl-memory.c, CUDA_GPU_MEMORY_USAGE_EVENTS) against SQL
 * over the same files, and `sightline memory`; unified memory's page faults (model/sl-um-faults.c,
 * CUDA_UM_{GPU,CPU}_PAGE_FAULT_EVENTS) against SQL, through the model cache and a merge. */
#include <json-glib/json-glib.h>
#include <sqlite3.h>
#include <string.h>

#include "sl-export.h"
#include "sl-memory.h"
#include "sl-test-util.h"
#include "sl-trace-private.h"
#include "sl-um-faults.h"

#define MEM_2022 "nsys/nsys-2022.1-memory-usage.sqlite"
#define MEM_2024 "nsys/nsys-2024.2-memory-usage-cuda-events.sqlite"
#define NO_MEM   "nsys/nsys-2026.1-tiny.sqlite"

static SlTrace *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  SlTrace *trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static gboolean
has_table (sqlite3    *db,
           const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                                          "AND name = '%s'", table);
  return sl_test_sql_int (db, sql) > 0;
}

/* The series of `trace` for GPU `device` (its device id), process and kind. */
static const SlMemSeries *
find_series (SlTrace *trace,
             gint64   device,
             guint64  pid,
             gint     kind)
{
  for (guint i = 0; i < sl_memory_get_n_series (trace); i++)
    {
      const SlMemSeries *s = sl_memory_get_series (trace, i);
      if (sl_trace_get_gpu (trace, (guint) s->gpu)->device_id == (guint32) device
          && s->global_pid == pid && s->kind == kind)
        return s;
    }
  return NULL;
}

/* Every series' value after each row equals SQL's running sum over the rows of its GPU, process
 * and kind (in time order, the file's order for ties), its peak SQL's maximum of that sum; and a
 * GPU's series the same over the kinds that live on it, every process. */
static void
check_against_sql (const char *path)
{
  g_autoptr (SlTrace) trace = load (path);
  sqlite3 *db = sl_test_open_db (path);

  if (!has_table (db, "CUDA_GPU_MEMORY_USAGE_EVENTS"))
    {
      g_assert_cmpuint (sl_trace_get_n_mem_usage (trace), ==, 0);
      g_assert_cmpuint (sl_memory_get_n_series (trace), ==, 0);
      sqlite3_close (db);
      return;
    }
  g_assert_cmpint (sl_trace_get_n_mem_usage (trace), ==,
                   sl_test_sql_int (db, "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS"));

  const char *const queries[] = {
    /* per GPU, process and kind */
    "SELECT deviceId, globalPid, memKind, start, sum(CASE memoryOperationType WHEN 0 THEN bytes "
    "ELSE -bytes END) OVER (PARTITION BY deviceId, globalPid, memKind ORDER BY start, rowid "
    "ROWS UNBOUNDED PRECEDING) FROM CUDA_GPU_MEMORY_USAGE_EVENTS "
    "ORDER BY deviceId, globalPid, memKind, start, rowid",
    /* per GPU, memory on it */
    "SELECT deviceId, 0, -1, start, sum(CASE memoryOperationType WHEN 0 THEN bytes "
    "ELSE -bytes END) OVER (PARTITION BY deviceId ORDER BY start, globalPid, rowid "
    "ROWS UNBOUNDED PRECEDING) FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE memKind IN (2, 3, 5) "
    "ORDER BY deviceId, start, globalPid, rowid",
  };
  guint checked_series = 0, checked_steps = 0;
  for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
    {
      sqlite3_stmt *stmt = NULL;
      g_assert_cmpint (sqlite3_prepare_v2 (db, queries[q], -1, &stmt, NULL), ==, SQLITE_OK);
      const SlMemSeries *s = NULL;
      gint64 device = -1, kind = -2, peak = 0;
      guint64 pid = 0;
      gsize k = 0;
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          gint64 d = sqlite3_column_int64 (stmt, 0), kd = sqlite3_column_int64 (stmt, 2);
          guint64 p = (guint64) sqlite3_column_int64 (stmt, 1);
          if (s == NULL || d != device || p != pid || kd != kind)
            {
              if (s != NULL)
                {
                  g_assert_cmpuint (k, ==, s->n_steps);
                  g_assert_cmpint (s->peak, ==, peak);
                }
              device = d, pid = p, kind = kd, k = 0, peak = 0;
              s = find_series (trace, d, p, (gint) kd);
              g_assert_nonnull (s);
              checked_series++;
            }
          g_assert_cmpuint (k, <, s->n_steps);
          g_assert_cmpint (s->steps[k].time, ==, sqlite3_column_int64 (stmt, 3));
          g_assert_cmpint (s->steps[k].bytes, ==, sqlite3_column_int64 (stmt, 4));
          peak = MAX (peak, sqlite3_column_int64 (stmt, 4));
          k++;
          checked_steps++;
        }
      if (s != NULL)
        {
          g_assert_cmpuint (k, ==, s->n_steps);
          g_assert_cmpint (s->peak, ==, peak);
        }
      sqlite3_finalize (stmt);
    }
  g_assert_cmpuint (checked_series, ==, sl_memory_get_n_series (trace));
  g_test_message ("%s: %u series, %u steps equal SQL", path, checked_series, checked_steps);

  /* at each series' peak, the allocations live then add up to it (where every free has its
   * allocation in the trace) */
  g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (guint32));
  gboolean orphans = FALSE;
  for (guint i = 0; i < sl_memory_get_n_allocs (trace); i++)
    orphans |= sl_memory_get_alloc (trace, i)->alloc == SL_NO_LINK;
  for (guint i = 0; i < sl_memory_get_n_series (trace) && !orphans; i++)
    {
      const SlMemSeries *s = sl_memory_get_series (trace, i);
      guint64 sum = 0;
      g_array_set_size (live, 0);
      guint n = sl_memory_live_at (trace, i, s->peak_time, live);
      for (guint j = 0; j < n; j++)
        {
          const SlMemAlloc *a = sl_memory_get_alloc (trace, g_array_index (live, guint32, j));
          g_assert_true (sl_mem_series_holds (s, a));
          g_assert_cmpint (a->start, <=, s->peak_time);
          g_assert_cmpint (a->end, >, s->peak_time);
          if (j > 0)
            {
              guint32 before = g_array_index (live, guint32, j - 1);
              g_assert_cmpuint (a->bytes, <=, sl_memory_get_alloc (trace, before)->bytes);
            }
          sum += a->bytes;
        }
      g_assert_cmpint ((gint64) sum, ==, s->peak);
      g_assert_cmpint (sl_mem_series_bytes_at (s, s->peak_time), ==, s->peak);
    }

  /* each allocation's call is the CUDA call of its process with its correlation id */
  for (guint i = 0; i < sl_trace_get_n_mem_usage (trace); i++)
    {
      const SlMemUsage *row = sl_trace_get_mem_usage (trace, i);
      guint32 call = sl_memory_get_row_call (trace, i);
      if (row->corr == 0)
        {
          g_assert_cmpuint (call, ==, SL_NO_LINK);
          continue;
        }
      g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                                              "WHERE globalTid >> 24 = %" G_GUINT64_FORMAT
                                              " >> 24 AND correlationId = %u",
                                              row->global_pid, row->corr);
      gboolean in_file = sl_test_sql_int (db, sql) > 0;
      g_assert_cmpint (call != SL_NO_LINK, ==, in_file);
      if (call != SL_NO_LINK)
        {
          const SlLane *lane;
          gsize index;
          g_assert_true (sl_trace_resolve (trace, call, &lane, &index));
          g_assert_cmpint (lane->kind, ==, SL_LANE_CUDA_API);
          g_assert_cmpuint (lane->events[index].corr, ==, row->corr);
          g_assert_cmpuint (lane->global_pid, ==, row->global_pid);
        }
      /* and the row belongs to an allocation that holds it */
      guint32 a = sl_memory_find_row_alloc (trace, i);
      g_assert_cmpuint (a, !=, SL_NO_LINK);
      const SlMemAlloc *alloc = sl_memory_get_alloc (trace, a);
      g_assert_true (alloc->alloc == i || alloc->free == i);
    }
  sqlite3_close (db);
}

static void
test_real_files (void)
{
  g_auto (GStrv) paths = sl_test_nsys_traces ();
  guint with = 0;

  for (guint i = 0; paths[i] != NULL; i++)
    {
      check_against_sql (paths[i]);
      g_autoptr (SlTrace) trace = load (paths[i]);
      with += sl_trace_get_n_mem_usage (trace) > 0;
    }
  g_assert_cmpuint (with, >=, 2);
}

/* Rows a reader must cope with: a free of memory allocated before the recording, an allocation
 * and its free at one instant, rows with no process, an unknown kind, a name that is not UTF-8. */
static void
test_planted (void)
{
  g_autofree char *path = sl_test_copy_trace (MEM_2024, "planted-memory.sqlite");
  sl_test_exec_sql (path,
                    "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, globalPid, deviceId, "
                    "contextId, address, pc, bytes, memKind, memoryOperationType, name, "
                    "correlationId) VALUES "
                    "(400000000, 284059188068352, 0, 1, 4096, 0, 1000, 2, 1, NULL, 0), "
                    "(500000000, 284059188068352, 0, 1, 8192, 0, 7, 2, 0, "
                    "CAST(x'ff41' AS TEXT), 0), "
                    "(500000000, 284059188068352, 0, 1, 8192, 0, 7, 2, 1, NULL, 0), "
                    "(600000000, 284059188068352, 0, 1, 12288, 0, 5, 77, 9, NULL, 0);");
  g_autoptr (SlTrace) trace = load (path);
  sqlite3 *db = sl_test_open_db (path);
  gint64 rows = sl_test_sql_int (db, "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS");
  sqlite3_close (db);

  /* the row with an operation that is not nsys's is left out, and said so */
  g_assert_cmpint (sl_trace_get_n_mem_usage (trace), ==, rows - 1);
  gboolean warned = FALSE;
  for (const char *const *w = sl_trace_get_warnings (trace); *w != NULL; w++)
    warned |= strstr (*w, "CUDA_GPU_MEMORY_USAGE_EVENTS") != NULL && strstr (*w, path) != NULL;
  g_assert_true (warned);

  /* the orphan free: an allocation without its row, ending at the free; never live */
  guint orphans = 0, zero_length = 0;
  for (guint i = 0; i < sl_memory_get_n_allocs (trace); i++)
    {
      const SlMemAlloc *a = sl_memory_get_alloc (trace, i);
      if (a->alloc == SL_NO_LINK)
        {
          orphans++;
          g_assert_cmpint (a->start, ==, G_MININT64);
          g_assert_cmpint (a->end, ==, 400000000);
          g_assert_cmpuint (a->bytes, ==, 1000);
        }
      else if (a->start == a->end)
        {
          zero_length++;
          g_assert_cmpuint (a->bytes, ==, 7);
          const char *name = sl_trace_str (trace, sl_trace_get_mem_usage (trace, a->alloc)->name);
          g_assert_true (g_utf8_validate (name, -1, NULL));
        }
    }
  g_assert_cmpuint (orphans, ==, 1);
  g_assert_cmpuint (zero_length, ==, 1);

  /* the running sums still equal SQL's over the rows that were read */
  sl_test_exec_sql (path, "DELETE FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE memoryOperationType = 9");
  check_against_sql (path);
}

/* Random rows on a few thousand addresses (printed seed): frees of what was never allocated,
 * allocations again at an open address, ties in time, two processes, host and device kinds, a
 * GPU holding several processes and kinds and one holding a single one.  The series equal SQL's
 * sums; each row's allocation is the one a plain hash table of the latest open allocation at
 * each place gives (thousands open at once: the model's table grows and shifts entries back as
 * it removes them); the live sets equal a scan of every allocation. */
static void
test_random (void)
{
  guint32 seed = g_test_rand_int ();
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autofree char *path = sl_test_copy_trace (MEM_2024, "random-memory.sqlite");
  g_autoptr (GString) sql = g_string_new ("DELETE FROM CUDA_GPU_MEMORY_USAGE_EVENTS;"
                                          "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, "
                                          "globalPid, deviceId, contextId, address, pc, bytes, "
                                          "memKind, memoryOperationType, name, correlationId) "
                                          "VALUES ");
  const guint n = 20000;
  const gint kinds[] = { 2, 2, 2, 5, 3, 1, 0, 4 };
  gint64 t = 1000000;

  g_test_message ("seed %u", seed);
  for (guint i = 0; i < n; i++)
    {
      gboolean second_gpu = g_rand_int_range (rand, 0, 4) == 0;
      guint64 pid = g_rand_boolean (rand) && !second_gpu ? 284059188068352u : 284059188068353u;
      gint kind = second_gpu ? 2 : kinds[g_rand_int_range (rand, 0, G_N_ELEMENTS (kinds))];
      t += g_rand_int_range (rand, 0, 3);   /* a third at the same instant as the row before */
      g_string_append_printf (sql, "%s(%" G_GINT64_FORMAT ", %" G_GUINT64_FORMAT ", %d, 1, %"
                                   G_GUINT64_FORMAT ", 0, %d, %d, %d, NULL, 0)",
                              i > 0 ? ", " : "", t, pid, second_gpu ? 1 : 0,
                              G_GUINT64_CONSTANT (0x7f0000000000)
                                + 256u * (guint64) g_rand_int_range (rand, 0, 3000),
                              g_rand_int_range (rand, 1, 1 << 20), kind,
                              g_rand_int_range (rand, 0, 5) < 3 ? 0 : 1);
    }
  g_string_append_c (sql, ';');
  sl_test_exec_sql (path, sql->str);
  check_against_sql (path);

  g_autoptr (SlTrace) trace = load (path);
  g_assert_cmpuint (sl_trace_get_n_mem_usage (trace), ==, n);
  g_autoptr (GHashTable) open = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree guint32 *partner = g_new (guint32, n);   /* an allocation's free, a free's alloc */
  guint alloc_rows = 0, orphans = 0, shared = 0, mixed = 0;
  for (guint i = 0; i < n; i++)
    {
      const SlMemUsage *row = sl_trace_get_mem_usage (trace, i);
      g_autofree char *place = g_strdup_printf ("%" G_GUINT64_FORMAT " %d %" G_GUINT64_FORMAT,
                                                row->global_pid, row->gpu, row->address);
      gpointer found;
      partner[i] = SL_NO_LINK;
      if (row->op != SL_MEM_FREE)
        {
          alloc_rows++;
          g_hash_table_insert (open, g_steal_pointer (&place), GUINT_TO_POINTER (i));
        }
      else if (g_hash_table_lookup_extended (open, place, NULL, &found))
        {
          partner[i] = GPOINTER_TO_UINT (found);
          partner[partner[i]] = i;
          g_hash_table_remove (open, place);
        }
      else
        orphans++;
    }
  g_assert_cmpuint (orphans, >, 0);
  g_assert_cmpuint (sl_memory_get_n_allocs (trace), ==, alloc_rows + orphans);
  /* the orphans first, then the allocation rows in order */
  for (guint i = 0, made = 0; i < n; i++)
    {
      const SlMemUsage *row = sl_trace_get_mem_usage (trace, i);
      guint32 k = sl_memory_find_row_alloc (trace, i);
      g_assert_cmpuint (k, !=, SL_NO_LINK);
      const SlMemAlloc *a = sl_memory_get_alloc (trace, k);
      if (row->op != SL_MEM_FREE)
        {
          g_assert_cmpuint (k, ==, orphans + made++);
          g_assert_cmpuint (a->alloc, ==, i);
          g_assert_cmpuint (a->free, ==, partner[i]);
          g_assert_cmpint (a->start, ==, row->start);
        }
      else
        {
          g_assert_cmpuint (a->free, ==, i);
          g_assert_cmpuint (a->alloc, ==, partner[i]);
          g_assert_cmpuint (k < orphans, ==, partner[i] == SL_NO_LINK);
        }
      g_assert_cmpint (a->end, ==, a->free != SL_NO_LINK
                                     ? sl_trace_get_mem_usage (trace, a->free)->start
                                     : G_MAXINT64);
      const SlMemUsage *own = sl_trace_get_mem_usage (trace, a->alloc != SL_NO_LINK ? a->alloc
                                                                                    : a->free);
      g_assert_cmpuint (a->address, ==, row->address);
      g_assert_cmpint (a->gpu, ==, row->gpu);
      g_assert_cmpuint (a->global_pid, ==, row->global_pid);
      g_assert_cmpuint (a->bytes, ==, own->bytes);
      g_assert_cmpuint (a->mem_kind, ==, own->mem_kind);
    }

  /* one GPU's series shares the steps of its only process and kind, the other has its own */
  for (guint s = 0; s < sl_memory_get_n_series (trace); s++)
    {
      const SlMemSeries *gs = sl_memory_get_series (trace, s);
      if (gs->kind != SL_MEM_SERIES_GPU)
        continue;
      gboolean alone = FALSE;
      for (guint o = 0; o < sl_memory_get_n_series (trace); o++)
        alone |= o != s && sl_memory_get_series (trace, o)->steps == gs->steps;
      shared += alone;
      mixed += !alone;
    }
  g_assert_cmpuint (shared, ==, 1);
  g_assert_cmpuint (mixed, ==, 1);

  /* live sets at random instants against a scan of every allocation, largest first */
  g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint q = 0; q < 50; q++)
    {
      SlTime at = 1000000 + g_rand_int_range (rand, -10, (gint32) (t - 1000000 + 10));
      for (guint s = 0; s < sl_memory_get_n_series (trace); s++)
        {
          const SlMemSeries *series = sl_memory_get_series (trace, s);
          guint expect = 0;
          for (guint k = 0; k < sl_memory_get_n_allocs (trace); k++)
            {
              const SlMemAlloc *a = sl_memory_get_alloc (trace, k);
              expect += a->alloc != SL_NO_LINK && a->start <= at && a->end > at
                        && sl_mem_series_holds (series, a);
            }
          g_array_set_size (live, 0);
          g_assert_cmpuint (sl_memory_live_at (trace, s, at, live), ==, expect);
          g_assert_cmpuint (live->len, ==, expect);
          for (guint j = 0; j < live->len; j++)
            {
              const SlMemAlloc *a = sl_memory_get_alloc (trace, g_array_index (live, guint32, j));
              g_assert_true (a->start <= at && a->end > at && sl_mem_series_holds (series, a));
              if (j > 0)
                g_assert_cmpuint (a->bytes, <=, sl_memory_get_alloc (
                                                  trace, g_array_index (live, guint32, j - 1))
                                                  ->bytes);
            }
        }
    }
}

static JsonNode *
run_json (const char *path,
          const char *at)
{
  g_auto (SlTestRun) run = { 0 };
  g_autoptr (GError) error = NULL;

  if (at != NULL)
    sl_test_run (&run, SL_SIGHTLINE_BIN, "memory", path, "--format", "json", "--at", at, NULL);
  else
    sl_test_run (&run, SL_SIGHTLINE_BIN, "memory", path, "--format", "json", NULL);
  g_test_message ("sightline memory %s: exit %d, stderr: %s", path, run.status, run.err);
  g_assert_cmpint (run.status, ==, 0);
  JsonNode *root = json_from_string (run.out, &error);
  g_assert_no_error (error);
  return root;
}

static void
test_cli (void)
{
  g_autofree char *path = sl_test_trace_path (MEM_2024);
  sqlite3 *db = sl_test_open_db (path);
  gint64 peak = sl_test_sql_int (db,
                                 "SELECT max(s) FROM (SELECT sum(CASE memoryOperationType WHEN 0 "
                                 "THEN bytes ELSE -bytes END) OVER (ORDER BY start, rowid ROWS "
                                 "UNBOUNDED PRECEDING) AS s FROM CUDA_GPU_MEMORY_USAGE_EVENTS "
                                 "WHERE memKind IN (2, 3, 5) AND deviceId = 0)");
  gint64 never = sl_test_sql_int (db,
                                  "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS a WHERE "
                                  "memoryOperationType = 0 AND NOT EXISTS (SELECT 1 FROM "
                                  "CUDA_GPU_MEMORY_USAGE_EVENTS f WHERE f.memoryOperationType = 1 "
                                  "AND f.address = a.address AND f.start >= a.start)");
  gint64 first = sl_test_sql_int (db, "SELECT min(start) FROM CUDA_GPU_MEMORY_USAGE_EVENTS");
  sqlite3_close (db);

  /* at each GPU's peak: the peak, and the allocations live then adding up to it */
  g_autoptr (JsonNode) root = run_json (path, NULL);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "at"), ==, "peak");
  JsonArray *devices = json_object_get_array_member (o, "devices");
  g_assert_cmpuint (json_array_get_length (devices), ==, 1);
  JsonObject *d = json_array_get_object_element (devices, 0);
  g_assert_cmpint (json_object_get_int_member (d, "device_id"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (d, "peak_bytes"), ==, peak);
  g_assert_cmpint (json_object_get_int_member (d, "bytes_at"), ==, peak);
  JsonArray *allocs = json_object_get_array_member (d, "allocations");
  guint n = json_array_get_length (allocs);
  g_assert_cmpint (json_object_get_int_member (d, "live"), >=, n);
  gint64 sum = 0;
  for (guint i = 0; i < n; i++)
    sum += json_object_get_int_member (json_array_get_object_element (allocs, i), "bytes");
  if ((gint64) n == json_object_get_int_member (d, "live"))
    g_assert_cmpint (sum, ==, peak);
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (o, "never_freed")), ==,
                   never);
  /* the cudaMalloc calls are named */
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (allocs, 0),
                                                  "call"), ==, "cudaMalloc");

  /* before the first row nothing is in use */
  g_autoptr (SlTrace) trace = load (path);
  g_autofree char *before = g_strdup_printf ("%" G_GINT64_FORMAT "ns",
                                             first - 1 - sl_trace_get_origin (trace));
  g_autoptr (JsonNode) early = run_json (path, before);
  d = json_array_get_object_element (json_object_get_array_member (json_node_get_object (early),
                                                                   "devices"), 0);
  g_assert_cmpint (json_object_get_int_member (d, "bytes_at"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (d, "live"), ==, 0);

  /* text and CSV */
  g_auto (SlTestRun) text = { 0 };
  sl_test_run (&text, SL_SIGHTLINE_BIN, "memory", path, NULL);
  g_assert_cmpint (text.status, ==, 0);
  g_assert_nonnull (strstr (text.out, "memory on the GPU peaks at"));
  g_auto (SlTestRun) csv = { 0 };
  sl_test_run (&csv, SL_SIGHTLINE_BIN, "memory", path, "--format", "csv", NULL);
  g_assert_cmpint (csv.status, ==, 0);
  g_assert_true (g_str_has_prefix (csv.out, "Device,Series,Pid,Time (ns),Bytes,"));

  /* a trace without memory usage: said, naming the file, exit 1 */
  g_autofree char *none = sl_test_trace_path (NO_MEM);
  g_auto (SlTestRun) empty = { 0 };
  sl_test_run (&empty, SL_SIGHTLINE_BIN, "memory", none, NULL);
  g_assert_cmpint (empty.status, ==, 1);
  g_assert_nonnull (strstr (empty.err, none));
  g_assert_nonnull (strstr (empty.err, "no GPU memory usage"));
  /* a bad option value */
  g_auto (SlTestRun) bad = { 0 };
  sl_test_run (&bad, SL_SIGHTLINE_BIN, "memory", path, "--at", "soon", NULL);
  g_assert_cmpint (bad.status, ==, 2);
  g_assert_nonnull (strstr (bad.err, "--at"));
}

/* Two files merged: each keeps its rows, its GPU and its series. */
static void
test_merge (void)
{
  g_autofree char *a_path = sl_test_trace_path (MEM_2022);
  g_autofree char *b_path = sl_test_trace_path (MEM_2024);
  g_autoptr (SlTrace) a = load (a_path);
  g_autoptr (SlTrace) b = load (b_path);
  SlTrace *both[] = { load (a_path), load (b_path) };   /* the merge takes these */
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) merged = sl_trace_merge (both, 2, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_mem_usage (merged), ==,
                    sl_trace_get_n_mem_usage (a) + sl_trace_get_n_mem_usage (b));
  g_assert_cmpuint (sl_memory_get_n_series (merged), ==,
                    sl_memory_get_n_series (a) + sl_memory_get_n_series (b));
  for (guint i = 0; i < sl_memory_get_n_series (merged); i++)
    {
      const SlMemSeries *s = sl_memory_get_series (merged, i);
      const SlGpu *gpu = sl_trace_get_gpu (merged, (guint) s->gpu);
      SlTrace *from = gpu->source == 0 ? a : b;
      gint gi = sl_trace_find_gpu (from, gpu->device_id);
      const SlMemSeries *f = NULL;
      g_assert_cmpint (gi, >=, 0);
      for (guint j = 0; j < sl_memory_get_n_series (from); j++)
        {
          const SlMemSeries *c = sl_memory_get_series (from, j);
          if (c->gpu == gi && c->kind == s->kind && c->peak == s->peak
              && c->n_steps == s->n_steps)
            f = c;
        }
      g_assert_nonnull (f);
      for (gsize k = 0; k < s->n_steps; k++)
        g_assert_cmpint (s->steps[k].bytes, ==, f->steps[k].bytes);
    }
}

/* Exported to nsys SQLite and read back: the same rows, the same series (against SQL too). */
static void
test_export (void)
{
  g_autofree char *path = sl_test_trace_path (MEM_2024);
  g_autofree char *out = g_build_filename (sl_test_tmpdir (), "memory-export.sqlite", NULL);
  g_autoptr (SlTrace) trace = load (path);
  g_autoptr (GError) error = NULL;

  g_assert_true (sl_export_sqlite (trace, out, G_MININT64, G_MAXINT64, &error));
  g_assert_no_error (error);
  check_against_sql (out);
  g_autoptr (SlTrace) back = load (out);
  g_assert_cmpuint (sl_trace_get_n_mem_usage (back), ==, sl_trace_get_n_mem_usage (trace));
  g_assert_cmpuint (sl_memory_get_n_series (back), ==, sl_memory_get_n_series (trace));
  for (guint i = 0; i < sl_memory_get_n_series (trace); i++)
    {
      const SlMemSeries *x = sl_memory_get_series (trace, i), *y = sl_memory_get_series (back, i);
      g_assert_cmpint (x->kind, ==, y->kind);
      g_assert_cmpint (x->peak, ==, y->peak);
      g_assert_cmpint (x->peak_time, ==, y->peak_time);
      g_assert_cmpuint (x->n_steps, ==, y->n_steps);
    }
  for (guint i = 0; i < sl_trace_get_n_mem_usage (trace); i++)
    {
      const SlMemUsage *x = sl_trace_get_mem_usage (trace, i);
      const SlMemUsage *y = sl_trace_get_mem_usage (back, i);
      g_assert_cmpstr (sl_trace_str (trace, x->name), ==, sl_trace_str (back, y->name));
      g_assert_cmpuint (x->corr, ==, y->corr);
      g_assert_cmpuint (x->address, ==, y->address);
      g_assert_cmpuint (sl_memory_get_row_call (trace, i) != SL_NO_LINK, ==,
                        sl_memory_get_row_call (back, i) != SL_NO_LINK);
    }
}

/* ---- unified memory's page faults --------------------------------------------------------- */

#ifdef SL_GEN_PATH
/* sightline-gen -n 30000 --gpus 2 --um-faults --seed S, made once per seed. */
static char *
um_generated (guint seed)
{
  g_autofree char *name = g_strdup_printf ("um-faults-%u.sqlite", seed);
  char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
  g_autofree char *s = g_strdup_printf ("%u", seed);
  g_auto (SlTestRun) run = { 0 };

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "30000", "--gpus", "2", "--um-faults",
               "--seed", s, "--force", NULL);
  if (run.status != 0)
    g_error ("sightline-gen: %s", run.err);
  return path;
}
#endif

/* The fault rows of `trace` equal SQL's over `path`: the rows of each table, in time order; per
 * GPU its groups and the sum of their numberOfPageFaults, per access type, per process its CPU
 * faults; the series' counts over ranges equal SQL's over the rows starting in them.  Returns
 * the number of GPU faults (numberOfPageFaults summed). */
static gint64
check_faults_against_sql (SlTrace    *trace,
                          const char *path)
{
  sqlite3 *db = sl_test_open_db (path);
  gboolean has_gpu = has_table (db, "CUDA_UM_GPU_PAGE_FAULT_EVENTS");
  gboolean has_cpu = has_table (db, "CUDA_UM_CPU_PAGE_FAULT_EVENTS");
  gint64 n_gpu = has_gpu ? sl_test_sql_int (db, "SELECT count(*) FROM "
                                                 "CUDA_UM_GPU_PAGE_FAULT_EVENTS") : 0;
  gint64 n_cpu = has_cpu ? sl_test_sql_int (db, "SELECT count(*) FROM "
                                                 "CUDA_UM_CPU_PAGE_FAULT_EVENTS") : 0;
  gint64 total = 0;
  guint n = sl_trace_get_n_um_faults (trace), model_gpu = 0, model_cpu = 0;

  g_assert_cmpint (n, ==, n_gpu + n_cpu);
  for (guint i = 0; i < n; i++)
    {
      const SlUmFault *f = sl_trace_get_um_fault (trace, i);
      if (i > 0)
        g_assert_cmpint (sl_trace_get_um_fault (trace, i - 1)->start, <=, f->start);
      g_assert_cmpint (f->end, >=, f->start);
      if (f->side == SL_UM_FAULT_GPU)
        model_gpu++;
      else
        {
          model_cpu++;
          g_assert_cmpint (f->gpu, ==, -1);
          g_assert_cmpint (f->end, ==, f->start);
          g_assert_cmpuint (f->n_faults, ==, 1);
        }
    }
  g_assert_cmpint (model_gpu, ==, n_gpu);
  g_assert_cmpint (model_cpu, ==, n_cpu);

  for (guint g = 0; has_gpu && g < sl_trace_get_n_gpus (trace); g++)
    {
      guint32 device = sl_trace_get_gpu (trace, g)->device_id;
      g_autofree char *q_n = g_strdup_printf (
        "SELECT count(*) FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS WHERE deviceId = %u", device);
      g_autofree char *q_sum = g_strdup_printf (
        "SELECT coalesce(sum(numberOfPageFaults), 0) FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS "
        "WHERE deviceId = %u", device);
      gint64 rows = sl_test_sql_int (db, q_n), faults = sl_test_sql_int (db, q_sum);
      gint k = sl_um_faults_find_series (trace, SL_UM_FAULT_GPU, (gint) g, 0);
      guint64 brute = 0;
      for (guint i = 0; i < n; i++)
        if (sl_trace_get_um_fault (trace, i)->gpu == (gint) g)
          brute += sl_trace_get_um_fault (trace, i)->n_faults;
      g_test_message ("GPU %u: %" G_GINT64_FORMAT " groups, %" G_GINT64_FORMAT " faults", device,
                      rows, faults);
      g_assert_cmpint ((gint64) brute, ==, faults);
      total += faults;
      if (rows == 0)
        {
          g_assert_cmpint (k, ==, -1);
          continue;
        }
      g_assert_cmpint (k, >=, 0);
      const SlUmFaultSeries *s = sl_um_faults_get_series (trace, (guint) k);
      g_assert_cmpuint (s->n_rows, ==, rows);
      g_assert_cmpint ((gint64) s->prefix[s->n_rows], ==, faults);
      g_assert_cmpint ((gint64) sl_um_fault_series_count (s, G_MININT64, G_MAXINT64), ==, faults);
      /* ten ranges over the GPU's faults, and one of nothing */
      SlTime t0 = s->starts[0], t1 = s->starts[s->n_rows - 1] + 1;
      for (guint r = 0; r <= 10; r++)
        {
          SlTime a = t0 + (t1 - t0) / 10 * (SlTime) r, b = a + (t1 - t0) / 7;
          g_autofree char *q = g_strdup_printf (
            "SELECT coalesce(sum(numberOfPageFaults), 0) FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS "
            "WHERE deviceId = %u AND start >= %" G_GINT64_FORMAT " AND start < %" G_GINT64_FORMAT,
            device, a, b);
          g_assert_cmpint ((gint64) sl_um_fault_series_count (s, a, b), ==,
                           sl_test_sql_int (db, q));
        }
      g_assert_cmpuint (sl_um_fault_series_count (s, t1, t0), ==, 0);
    }
  for (gint access = 0; has_gpu && access <= 4; access++)
    {
      g_autofree char *q = g_strdup_printf (
        "SELECT count(*) FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS WHERE faultAccessType = %d", access);
      gint64 model = 0;
      for (guint i = 0; i < n; i++)
        {
          const SlUmFault *f = sl_trace_get_um_fault (trace, i);
          model += f->side == SL_UM_FAULT_GPU && f->access == access;
        }
      g_assert_cmpint (model, ==, sl_test_sql_int (db, q));
    }
  if (has_gpu)   /* the addresses, as a sum SQL can make without overflow */
    {
      gint64 model = 0;
      for (guint i = 0; i < n; i++)
        {
          const SlUmFault *f = sl_trace_get_um_fault (trace, i);
          if (f->side == SL_UM_FAULT_GPU)
            model += (gint64) (f->address % 1000003);
        }
      g_assert_cmpint (model, ==, sl_test_sql_int (db, "SELECT coalesce(sum(address % 1000003), "
                                                       "0) FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS"));
    }
  for (guint p = 0; has_cpu && p < sl_trace_get_n_processes (trace); p++)
    {
      guint64 pid = sl_trace_get_process (trace, p)->global_pid;
      g_autofree char *q = g_strdup_printf (
        "SELECT count(*) FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS WHERE globalPid = %" G_GINT64_FORMAT,
        (gint64) pid);
      gint64 rows = sl_test_sql_int (db, q);
      gint k = sl_um_faults_find_series (trace, SL_UM_FAULT_CPU, -1, pid);
      g_assert_cmpint (k >= 0, ==, rows > 0);
      if (k >= 0)
        g_assert_cmpuint (sl_um_faults_get_series (trace, (guint) k)->n_rows, ==, rows);
    }
  sqlite3_close (db);
  return total;
}

/* A generated trace's faults against SQL; the model cache and a merge with another keep them. */
static void
test_um_faults (void)
{
#ifdef SL_GEN_PATH
  g_autofree char *path = um_generated (3);
  g_autofree char *other = um_generated (4);
  g_autoptr (SlTrace) trace = load (path);
  g_autoptr (SlTrace) two = load (other);

  gint64 faults = check_faults_against_sql (trace, path);
  g_assert_cmpint (faults, >, 0);
  g_assert_cmpuint (sl_um_faults_get_n_series (trace), >=, 3);   /* two GPUs, a process */
  check_faults_against_sql (two, other);
  for (const char *const *w = sl_trace_get_warnings (trace); *w != NULL; w++)
    g_assert_null (strstr (*w, "PAGE_FAULT"));

  /* the model cache: the rows of the load that wrote it, byte for byte (string ids are the
   * order a load met the strings in, which its two reading threads make differ from load to
   * load), the same names as a fresh load's, and the same series */
  g_autofree char *home = g_build_filename (sl_test_tmpdir (), "um-cache-home", NULL);
  g_setenv ("XDG_CACHE_HOME", home, TRUE);
  g_setenv ("SIGHTLINE_CACHE", "1", TRUE);
  g_setenv ("SIGHTLINE_CACHE_MIN_MS", "0", TRUE);
  SlCacheStats before, after;
  g_autoptr (SlTrace) stored = load (path);
  _sl_trace_cache_get_stats (&before);
  g_autoptr (SlTrace) cached = load (path);
  _sl_trace_cache_get_stats (&after);
  g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
  g_assert_cmpuint (after.hits, ==, before.hits + 1);
  g_assert_cmpmem (stored->um_faults->data, stored->um_faults->len * sizeof (SlUmFault),
                   cached->um_faults->data, cached->um_faults->len * sizeof (SlUmFault));
  g_assert_cmpuint (cached->um_faults->len, ==, trace->um_faults->len);
  for (guint i = 0; i < trace->um_faults->len; i++)
    {
      const SlUmFault *a = sl_trace_get_um_fault (trace, i), *b = sl_trace_get_um_fault (cached, i);
      g_assert_cmpint (a->start, ==, b->start);
      g_assert_cmpuint (a->address, ==, b->address);
      g_assert_cmpuint (a->source_line, ==, b->source_line);
      g_assert_cmpstr (sl_trace_str (trace, a->instruction), ==,
                       sl_trace_str (cached, b->instruction));
      g_assert_cmpstr (sl_trace_str (trace, a->source_file), ==,
                       sl_trace_str (cached, b->source_file));
    }
  g_assert_cmpint (check_faults_against_sql (cached, path), ==, faults);

  /* merged: each file's rows, on the merged axis, under its own GPUs and processes */
  const char *paths[] = { path, other };
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) merged = sl_trace_load_merged (paths, 2, SL_LOAD_ALL, NULL, NULL, NULL, NULL,
                                                     &error);
  g_assert_no_error (error);
  SlTrace *each[] = { trace, two };
  g_assert_cmpuint (sl_trace_get_n_um_faults (merged), ==,
                    sl_trace_get_n_um_faults (trace) + sl_trace_get_n_um_faults (two));
  guint n_series = 0;
  for (guint f = 0; f < 2; f++)
    {
      SlTime offset = sl_trace_get_source (merged, f)->offset;
      n_series += sl_um_faults_get_n_series (each[f]);
      for (guint g = 0; g < sl_trace_get_n_gpus (each[f]); g++)
        {
          gint k = sl_um_faults_find_series (each[f], SL_UM_FAULT_GPU, (gint) g, 0);
          gint mg = -1;
          for (guint h = 0; h < sl_trace_get_n_gpus (merged); h++)
            if (sl_trace_get_gpu (merged, h)->source == f
                && sl_trace_get_gpu (merged, h)->device_id
                     == sl_trace_get_gpu (each[f], g)->device_id)
              mg = (gint) h;
          g_assert_cmpint (mg, >=, 0);
          gint mk = sl_um_faults_find_series (merged, SL_UM_FAULT_GPU, mg, 0);
          g_assert_cmpint (k >= 0, ==, mk >= 0);
          if (k < 0)
            continue;
          const SlUmFaultSeries *x = sl_um_faults_get_series (each[f], (guint) k);
          const SlUmFaultSeries *y = sl_um_faults_get_series (merged, (guint) mk);
          g_assert_cmpuint (x->n_rows, ==, y->n_rows);
          g_assert_cmpuint (x->prefix[x->n_rows], ==, y->prefix[y->n_rows]);
          for (gsize i = 0; i < x->n_rows; i++)
            g_assert_cmpint (y->starts[i], ==, x->starts[i] + offset);
        }
    }
  g_assert_cmpuint (sl_um_faults_get_n_series (merged), ==, n_series);
#else
  g_test_skip ("built without sightline-gen");
#endif
}

/* The real unified-memory traces have migrations but no fault tables: no rows, no warning.  With
 * the tables planted (a fault before each migration a fault caused, as test-stats plants them)
 * and damaged rows beside them (no process, no address, no faults, an access type past a byte,
 * times near ±2^61): the good rows are read, the damaged ones skipped and said so. */
static void
test_um_faults_planted (void)
{
  static const char *const traces[] = { "nsys/nsys-2023.2-um-migrations.sqlite",
                                        "nsys/nsys-2026.1-um-overhead-file-access.sqlite" };

  for (gsize t = 0; t < G_N_ELEMENTS (traces); t++)
    {
      g_autofree char *real = sl_test_trace_path (traces[t]);
      g_autoptr (SlTrace) plain = load (real);
      g_assert_cmpuint (sl_trace_get_n_um_faults (plain), ==, 0);
      g_assert_cmpuint (sl_um_faults_get_n_series (plain), ==, 0);
      for (const char *const *w = sl_trace_get_warnings (plain); *w != NULL; w++)
        g_assert_null (strstr (*w, "PAGE_FAULT"));

      g_autofree char *name = g_strdup_printf ("um-faults-planted-%" G_GSIZE_FORMAT ".sqlite", t);
      g_autofree char *path = sl_test_copy_trace (traces[t], name);
      sl_test_exec_sql (path,
                        "CREATE TABLE CUDA_UM_CPU_PAGE_FAULT_EVENTS (start INTEGER, "
                        "globalPid INTEGER, address INTEGER, originalFaultPc INTEGER, "
                        "CpuInstruction INTEGER, module INTEGER, unresolvedFaultPc INTEGER, "
                        "sourceFile INTEGER, sourceLine INTEGER);"
                        "CREATE TABLE CUDA_UM_GPU_PAGE_FAULT_EVENTS (start INTEGER, end INTEGER, "
                        "globalPid INTEGER, deviceId INTEGER, address INTEGER, "
                        "numberOfPageFaults INTEGER, faultAccessType INTEGER);"
                        "INSERT INTO CUDA_UM_CPU_PAGE_FAULT_EVENTS SELECT start - 2000, globalPid, "
                        "virtualAddress, 0, 0, 0, 0, NULL, NULL FROM CUPTI_ACTIVITY_KIND_MEMCPY "
                        "WHERE copyKind = 12 AND migrationCause = 2;"
                        "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS SELECT start - 3000, "
                        "start - 500, globalPid, deviceId, virtualAddress, 1 + rowid % 5, "
                        "1 + rowid % 2 FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 11 "
                        "AND migrationCause = 2;");
      g_autoptr (SlTrace) good = load (path);
      check_faults_against_sql (good, path);
      guint n_good = sl_trace_get_n_um_faults (good);
      g_assert_cmpuint (n_good, >, 0);

      /* damaged rows: 2 without a process (skipped as rows of no owner), 4 absurd, 2 at the
       * ends of time (read, clamped) */
      sl_test_exec_sql (path,
                        "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS VALUES "
                        "(100, 200, NULL, 0, 4096, 1, 1), (100, 200, 1, 0, NULL, 1, 1), "
                        "(100, 200, 1, 0, 4096, 0, 1), (100, 200, 1, 0, 4096, 5000000000, 1), "
                        "(100, 200, 1, 0, 4096, 1, 300), "
                        "(-2305843009213693952, 2305843009213693952, 1, 0, 4096, 3, 2);"
                        "INSERT INTO CUDA_UM_CPU_PAGE_FAULT_EVENTS (start, globalPid, address) "
                        "VALUES (100, NULL, 4096), (2305843009213693952, 1, 8192);");
      g_autoptr (SlTrace) bad = load (path);
      g_assert_cmpuint (sl_trace_get_n_um_faults (bad), ==, n_good + 2);
      gboolean warned = FALSE;
      for (const char *const *w = sl_trace_get_warnings (bad); *w != NULL; w++)
        warned |= strstr (*w, "4 rows of CUDA_UM_GPU_PAGE_FAULT_EVENTS") != NULL;
      g_assert_true (warned);
      const SlUmFault *first = sl_trace_get_um_fault (bad, 0);
      const SlUmFault *last = sl_trace_get_um_fault (bad, sl_trace_get_n_um_faults (bad) - 1);
      g_assert_cmpuint (first->n_faults, ==, 3);
      g_assert_cmpuint (first->access, ==, 2);
      g_assert_cmpint (last->side, ==, SL_UM_FAULT_CPU);
      g_assert_cmpuint (last->address, ==, 8192);
      gint k = sl_um_faults_find_series (bad, SL_UM_FAULT_GPU, first->gpu, 0);
      g_assert_cmpint (k, >=, 0);
      const SlUmFaultSeries *s = sl_um_faults_get_series (bad, (guint) k);
      g_assert_cmpuint (sl_um_fault_series_count (s, G_MININT64, G_MAXINT64), ==,
                        s->prefix[s->n_rows]);
      g_assert_cmpuint (sl_um_fault_series_count (s, G_MININT64, first->start + 1), ==, 3);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/memory/real-files", test_real_files);
  g_test_add_func ("/model/memory/planted", test_planted);
  g_test_add_func ("/model/memory/random", test_random);
  g_test_add_func ("/model/memory/cli", test_cli);
  g_test_add_func ("/model/memory/merge", test_merge);
  g_test_add_func ("/model/memory/export", test_export);
  g_test_add_func ("/model/memory/um-faults", test_um_faults);
  g_test_add_func ("/model/memory/um-faults-planted", test_um_faults_planted);
  return g_test_run ();
}
