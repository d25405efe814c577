/* test-trace.c: loading real nsys exports and generated files into the model, checked against SQL. */
#include <sqlite3.h>
#include <math.h>
#include <string.h>

#include "sl-events-query.h"
#include "sl-format.h"
#include "sl-lane.h"
#include "sl-test-util.h"
#include "sl-trace.h"
#include "sl-utilization.h"

static gint64
sql_int (sqlite3    *db,
         const char *sql)
{
  sqlite3_stmt *stmt = NULL;
  gint64 v = -1;

  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) == SQLITE_OK && sqlite3_step (stmt) == SQLITE_ROW)
    v = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return v;
}

static gboolean
has_table (sqlite3    *db,
           const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM sqlite_master WHERE name = '%s'", table);
  return sql_int (db, sql) > 0;
}

static gboolean
has_column (sqlite3    *db,
            const char *table,
            const char *column)
{
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'",
                                          table, column);
  return sql_int (db, sql) > 0;
}

/* The first column of the first row, NULL when there is none or it is NULL. */
static char *
sql_text (sqlite3    *db,
          const char *sql)
{
  sqlite3_stmt *stmt = NULL;
  char *v = NULL;

  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) == SQLITE_OK && sqlite3_step (stmt) == SQLITE_ROW
      && sqlite3_column_type (stmt, 0) != SQLITE_NULL)
    v = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
  sqlite3_finalize (stmt);
  return v;
}

/* The query for a device's name (printf with its device id), as nsys's reports of the file's time
 * join it: TARGET_INFO_GPU on id (2021.3.1 on), else TARGET_INFO_CUDA_GPU on deviceId (early
 * 2021), else an early TARGET_INFO_GPU keyed by deviceId; NULL when the file describes no GPU. */
static const char *
gpu_name_sql (sqlite3 *db)
{
  if (has_table (db, "TARGET_INFO_GPU") && has_column (db, "TARGET_INFO_GPU", "id"))
    return "SELECT name FROM TARGET_INFO_GPU WHERE id = %u";
  if (has_table (db, "TARGET_INFO_CUDA_GPU"))
    return "SELECT min(name) FROM TARGET_INFO_CUDA_GPU WHERE deviceId = %u";
  if (has_table (db, "TARGET_INFO_GPU") && has_column (db, "TARGET_INFO_GPU", "deviceId"))
    return "SELECT name FROM TARGET_INFO_GPU WHERE deviceId = %u";
  return NULL;
}

static gsize
count_kind (SlTrace    *trace,
            SlLaneKind  kind)
{
  gsize n = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    if (sl_trace_get_lane (trace, i)->kind == kind)
      n += sl_trace_get_lane (trace, i)->n_events;
  return n;
}

typedef struct
{
  SlLaneKind  kind;
  const char *table;
  const char *where;
} KindTable;

static const KindTable kind_tables[] = {
  { SL_LANE_CUDA_API, "CUPTI_ACTIVITY_KIND_RUNTIME", "1" },
  { SL_LANE_KERNELS, "CUPTI_ACTIVITY_KIND_KERNEL", "1" },
  { SL_LANE_MEMCPY, "CUPTI_ACTIVITY_KIND_MEMCPY", "1" },
  { SL_LANE_MEMSET, "CUPTI_ACTIVITY_KIND_MEMSET", "1" },
  { SL_LANE_SYNC, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "1" },
  { SL_LANE_NVTX, "NVTX_EVENTS", "eventType IN (34, 59, 60, 70, 71)" },
  { SL_LANE_OSRT, "OSRT_API", "eventClass = 27" },
  { SL_LANE_SAMPLES, "COMPOSITE_EVENTS", "1" },
};

static void
check_real_file (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  sqlite3 *db = NULL;

  g_test_message ("%s", path);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);

  /* every row of every event table is in a lane of its kind */
  gsize total = 0;
  for (guint k = 0; k < G_N_ELEMENTS (kind_tables); k++)
    {
      gint64 expected = 0;
      if (has_table (db, kind_tables[k].table))
        {
          g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM %s WHERE %s",
                                                  kind_tables[k].table, kind_tables[k].where);
          expected = sql_int (db, sql);
        }
      g_assert_cmpint (count_kind (trace, kind_tables[k].kind), ==, expected);
      total += expected;
    }
  total += count_kind (trace, SL_LANE_SCHED);   /* made from rows, not rows: see test-sched */
  g_assert_cmpuint (sl_trace_get_n_events (trace), ==, total);

  /* lanes are sorted; global ids are dense; CPU lanes of one depth never overlap */
  guint32 base = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      g_assert_cmpuint (lane->index, ==, i);
      g_assert_cmpuint (lane->base, ==, base);
      base += lane->n_events;
      for (gsize e = 1; e < lane->n_events; e++)
        {
          g_assert_cmpint (lane->events[e - 1].start, <=, lane->events[e].start);
          if (lane->thread >= 0 && lane->kind != SL_LANE_SAMPLES)
            g_assert_cmpint (lane->events[e - 1].end, <=, lane->events[e].start);
        }
      for (gsize e = 0; e < lane->n_events; e++)
        {
          g_assert_cmpint (lane->events[e].end, >=, lane->events[e].start);
          g_assert_true (g_utf8_validate (sl_trace_str (trace, lane->events[e].name), -1, NULL));
        }
    }

  /* correlation: as many GPU operations reach their launch as nsys's join finds, both ways */
  gint64 joined = 0;
  const char *gpu_tables[] = { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                               "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" };
  for (guint t = 0; t < G_N_ELEMENTS (gpu_tables); t++)
    if (has_table (db, gpu_tables[t]) && has_table (db, "CUPTI_ACTIVITY_KIND_RUNTIME"))
      {
        g_autofree char *sql = g_strdup_printf (
          "SELECT count(*) FROM %s k WHERE EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
          "WHERE r.correlationId = k.correlationId AND k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000))",
          gpu_tables[t]);
        joined += sql_int (db, sql);
      }
  gint64 linked = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->gpu < 0)
        continue;
      for (gsize e = 0; e < lane->n_events; e++)
        {
          const SlEvent *ev = &lane->events[e];
          const SlLane *api;
          gsize idx;
          if (ev->link == SL_NO_LINK)
            continue;
          linked++;
          g_assert_true (sl_trace_resolve (trace, ev->link, &api, &idx));
          g_assert_cmpint (api->kind, ==, SL_LANE_CUDA_API);
          g_assert_cmpuint (api->events[idx].corr, ==, ev->corr);
          g_assert_cmpuint (api->global_pid, ==, lane->global_pid);
          /* the call links back to GPU work with the same correlation id */
          const SlLane *back;
          gsize bidx;
          g_assert_true (sl_trace_resolve (trace, api->events[idx].link, &back, &bidx));
          g_assert_cmpuint (back->events[bidx].corr, ==, ev->corr);
        }
    }
  g_assert_cmpint (linked, ==, joined);

  /* thread names come from ThreadNames */
  if (has_table (db, "ThreadNames"))
    {
      sqlite3_stmt *stmt = NULL;
      g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT t.globalTid, s.value FROM ThreadNames t "
                                               "JOIN StringIds s ON s.id = t.nameId", -1, &stmt, NULL), ==, SQLITE_OK);
      guint checked = 0;
      while (sqlite3_step (stmt) == SQLITE_ROW && checked < 50)
        {
          guint64 gtid = sqlite3_column_int64 (stmt, 0);
          for (guint i = 0; i < sl_trace_get_n_threads (trace); i++)
            if (sl_trace_get_thread (trace, i)->global_tid == gtid)
              {
                g_assert_cmpstr (sl_trace_str (trace, sl_trace_get_thread (trace, i)->name), ==,
                                 (const char *) sqlite3_column_text (stmt, 0 + 1));
                checked++;
              }
        }
      sqlite3_finalize (stmt);
    }

  /* GPUs: every GPU the file describes, whichever of its layouts (TARGET_INFO_GPU keyed by id or,
   * early 2021, by deviceId; TARGET_INFO_CUDA_GPU), is described and named as nsys names it;
   * described ones carry their limits */
  const char *name_sql = gpu_name_sql (db);
  if (has_table (db, "TARGET_INFO_GPU"))
    {
      const char *key = has_column (db, "TARGET_INFO_GPU", "id") ? "id" : "deviceId";
      g_autofree char *sql = g_strdup_printf ("SELECT count(DISTINCT %s) FROM TARGET_INFO_GPU", key);
      gint64 n = sql_int (db, sql);
      g_assert_cmpint (n, >=, 0);
      g_assert_cmpuint (sl_trace_get_n_gpus (trace), >=, (guint) n);
    }
  for (guint i = 0; name_sql != NULL && i < sl_trace_get_n_gpus (trace); i++)
    {
      const SlGpu *gpu = sl_trace_get_gpu (trace, i);
      g_autofree char *sql = g_strdup_printf (name_sql, gpu->device_id);
      g_autofree char *name = sql_text (db, sql);
      if (name == NULL)
        continue;
      g_assert_true (gpu->described);
      g_assert_cmpstr (sl_trace_str (trace, gpu->name), ==, name);
    }
  /* an early TARGET_INFO_GPU alone (keyed by deviceId) has names but no limits; a GPU that ran
   * no CUDA work may be no CUDA device (2022.1-memory-usage lists an Intel HD 630 beside the
   * GeForce: no compute capability) */
  gboolean with_limits = has_table (db, "TARGET_INFO_CUDA_GPU")
                         || (has_table (db, "TARGET_INFO_GPU") && has_column (db, "TARGET_INFO_GPU", "id"));
  for (guint i = 0; with_limits && i < sl_trace_get_n_gpus (trace); i++)
    {
      const SlGpu *gpu = sl_trace_get_gpu (trace, i);
      gboolean ran = FALSE;
      for (guint l = 0; l < sl_trace_get_n_lanes (trace) && !ran; l++)
        ran = sl_trace_get_lane (trace, l)->gpu == (gint) i && sl_trace_get_lane (trace, l)->n_events > 0;
      if (!gpu->described || !ran)
        continue;
      g_assert_cmpint (gpu->limits.cc_major, >=, 5);
      g_assert_cmpint (gpu->limits.sm_count, >, 0);
      g_assert_cmpint (gpu->limits.max_warps_per_sm, >, 0);
    }

  /* nsys exports say nothing of parents or command lines (issue 14, item 5): none invented */
  if (!has_table (db, "SL_PROCESS_INFO"))
    for (guint i = 0; i < sl_trace_get_n_processes (trace); i++)
      {
        g_assert_cmpuint (sl_trace_get_process (trace, i)->parent_pid, ==, 0);
        g_assert_cmpuint (sl_trace_get_process (trace, i)->command_line, ==, SL_NO_STR);
      }

  /* samples whose call chain is missing carry G_MAXUINT32: asking for it is safe */
  const guint32 *syms, *mods;
  g_assert_cmpuint (sl_trace_get_callchain (trace, G_MAXUINT32, &syms, &mods), ==, 0);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize e = 0; lane->kind == SL_LANE_SAMPLES && e < lane->n_events; e++)
        {
          guint depth = sl_trace_get_callchain (trace, lane->events[e].aux, &syms, &mods);
          if (depth > 0)
            g_assert_cmpuint (syms[0], ==, lane->events[e].name);
        }
    }

  sqlite3_close (db);
}

static void
test_real_files (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();
  for (guint i = 0; files[i] != NULL; i++)
    check_real_file (files[i]);
}

/* Issue 14, item 3: every OS runtime call's backtrace is OSRT_CALLCHAINS's frames of its
 * callchainId, leaf first, symbol and module as SQL joins them; calls without one (id 0) have
 * none, and as many calls have one as SQL finds. */
static void
test_osrt_backtraces (void)
{
  static const char *const files[] = {
    "nsys/nsys-2021-osrt.sqlite", "nsys/nsys-2023.1-cuckoo-osrt.sqlite",
    "nsys/nsys-2023.2-cutlass-cpu-sampling.sqlite", "nsys/nsys-2026.1-osrt-sampling.sqlite",
  };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = sl_test_trace_path (files[f]);
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      sqlite3 *db = NULL;
      sqlite3_stmt *frames = NULL;
      gsize with = 0, frames_checked = 0;
      gint64 longest = -1;

      g_assert_no_error (error);
      g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
      g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT coalesce(s.value, ''), "
                                               "coalesce(m.value, '') FROM OSRT_CALLCHAINS c "
                                               "LEFT JOIN StringIds s ON s.id = c.symbol "
                                               "LEFT JOIN StringIds m ON m.id = c.module "
                                               "WHERE c.id = ? ORDER BY c.stackDepth",
                                           -1, &frames, NULL), ==, SQLITE_OK);
      for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, i);
          for (gsize e = 0; lane->kind == SL_LANE_OSRT && e < lane->n_events; e++)
            {
              const SlEvent *ev = &lane->events[e];
              const guint32 *syms, *mods;
              guint n = sl_trace_get_osrt_callchain (trace, ev->corr, &syms, &mods), k = 0;

              if (ev->corr == 0)
                {
                  g_assert_cmpuint (n, ==, 0);
                  continue;
                }
              with += n > 0;
              sqlite3_reset (frames);
              sqlite3_bind_int64 (frames, 1, ev->corr);
              while (sqlite3_step (frames) == SQLITE_ROW)
                {
                  g_assert_cmpuint (k, <, n);
                  g_assert_cmpstr (sl_trace_str (trace, syms[k]), ==,
                                   (const char *) sqlite3_column_text (frames, 0));
                  g_assert_cmpstr (sl_trace_str (trace, mods[k]), ==,
                                   (const char *) sqlite3_column_text (frames, 1));
                  k++;
                }
              g_assert_cmpuint (k, ==, n);
              frames_checked += n;
              if (ev->end - ev->start > longest)
                longest = ev->end - ev->start;
            }
        }
      g_test_message ("%s: %" G_GSIZE_FORMAT " calls with a backtrace, %" G_GSIZE_FORMAT
                      " frames", files[f], with, frames_checked);
      g_assert_cmpuint (with, >, 0);
      g_assert_cmpint (with, ==, sql_int (db, "SELECT count(*) FROM OSRT_API WHERE eventClass = 27 "
                                              "AND globalTid IS NOT NULL AND callchainId IN "
                                              "(SELECT id FROM OSRT_CALLCHAINS)"));
      /* the longest call with a backtrace, as SQL picks it, has the frames SQL gives */
      {
        g_autofree char *q = g_strdup_printf (
          "SELECT count(*) FROM OSRT_CALLCHAINS WHERE id = (SELECT callchainId FROM OSRT_API "
          "WHERE eventClass = 27 AND globalTid IS NOT NULL AND callchainId <> 0 "
          "ORDER BY end - start DESC LIMIT 1)");
        g_autofree char *d = g_strdup_printf ("SELECT max(end - start) FROM OSRT_API WHERE "
                                              "eventClass = 27 AND globalTid IS NOT NULL AND "
                                              "callchainId <> 0");
        g_assert_cmpint (longest, ==, sql_int (db, d));
        g_assert_cmpint (sql_int (db, q), >, 0);
      }
      sqlite3_finalize (frames);
      sqlite3_close (db);
    }
}

/* Issue 30, item 3: each CUDA API call's backtrace is the frames of CUDA_CALLCHAINS, leaf first,
 * symbol and module as SQL joins them.  This nsys (2021) numbers a call's callchainId from 0 and
 * the chains from 1, so the SQL joins id = callchainId + 1 (as Extra-P does for these files);
 * that the join is right is checked on its own: every chain holds the call's own API function
 * (cudaMalloc, cudaLaunchKernel …) among its frames.  Calls with a NULL callchainId (the
 * runtime's own rows of the same calls, class 0) have none. */
static void
test_cuda_backtraces (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2021-cuda-backtraces.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  sqlite3 *db = NULL;
  sqlite3_stmt *call = NULL, *frames = NULL;
  gsize with = 0, without = 0, frames_checked = 0;

  g_assert_no_error (error);
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT callchainId, s.value FROM "
                                           "CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON "
                                           "s.id = r.nameId WHERE start = ? AND end = ? AND "
                                           "correlationId = ? AND eventClass = ?",
                                       -1, &call, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT coalesce(s.value, ''), "
                                           "coalesce(m.value, '') FROM CUDA_CALLCHAINS c "
                                           "LEFT JOIN StringIds s ON s.id = c.symbol "
                                           "LEFT JOIN StringIds m ON m.id = c.module "
                                           "WHERE c.id = ? + 1 ORDER BY c.stackDepth",
                                       -1, &frames, NULL), ==, SQLITE_OK);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize e = 0; lane->kind == SL_LANE_CUDA_API && e < lane->n_events; e++)
        {
          const SlEvent *ev = &lane->events[e];
          const guint32 *syms, *mods;
          guint n = sl_trace_get_cuda_callchain (trace, lane, ev, &syms, &mods), k = 0;
          gboolean has_api = FALSE;

          sqlite3_reset (call);
          sqlite3_bind_int64 (call, 1, ev->start);
          sqlite3_bind_int64 (call, 2, ev->end);
          sqlite3_bind_int64 (call, 3, ev->corr);
          sqlite3_bind_int64 (call, 4, ev->aux & 0xFF);
          g_assert_cmpint (sqlite3_step (call), ==, SQLITE_ROW);
          if (sqlite3_column_type (call, 0) == SQLITE_NULL)
            {
              g_assert_cmpuint (n, ==, 0);
              without++;
              continue;
            }
          g_autofree char *api = g_strdup ((const char *) sqlite3_column_text (call, 1));
          sqlite3_reset (frames);
          sqlite3_bind_int64 (frames, 1, sqlite3_column_int64 (call, 0));
          while (sqlite3_step (frames) == SQLITE_ROW)
            {
              g_assert_cmpuint (k, <, n);
              g_assert_cmpstr (sl_trace_str (trace, syms[k]), ==,
                               (const char *) sqlite3_column_text (frames, 0));
              g_assert_cmpstr (sl_trace_str (trace, mods[k]), ==,
                               (const char *) sqlite3_column_text (frames, 1));
              has_api |= g_str_equal (sl_trace_str (trace, syms[k]), api);
              k++;
            }
          g_assert_cmpuint (k, ==, n);
          g_assert_cmpuint (n, >, 0);
          g_assert_true (has_api);
          with++;
          frames_checked += n;
        }
    }
  g_test_message ("%" G_GSIZE_FORMAT " calls with a backtrace, %" G_GSIZE_FORMAT " frames, %"
                  G_GSIZE_FORMAT " calls without", with, frames_checked, without);
  g_assert_cmpint (with, ==, 18);
  g_assert_cmpint (with, ==, sql_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                                          "WHERE callchainId IS NOT NULL"));
  g_assert_cmpint (frames_checked, ==, sql_int (db, "SELECT count(*) FROM CUDA_CALLCHAINS"));
  g_assert_cmpuint (sl_trace_get_n_cuda_callchains (trace), ==, 18);
  g_assert_cmpint (without, ==, sql_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                                             "WHERE callchainId IS NULL"));
  /* no warning: every callchainId has its chain */
  for (const char *const *w = sl_trace_get_warnings (trace); *w != NULL; w++)
    g_assert_null (strstr (*w, "callchainId"));
  sqlite3_finalize (call);
  sqlite3_finalize (frames);
  sqlite3_close (db);
}

/* The h100 cut: NVTX push/pop ranges nest per thread, and inner depths lie inside outer ones. */
static void
test_nvtx_nesting (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_NVTX, NULL, NULL, NULL, &error);
  guint max_depth = 0;

  g_assert_no_error (error);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      g_assert_cmpint (lane->kind, ==, SL_LANE_NVTX);
      max_depth = MAX (max_depth, lane->depth);
      if (lane->depth == 0)
        continue;
      const SlLane *outer = sl_trace_get_lane (trace, i - 1);
      g_assert_cmpint (outer->thread, ==, lane->thread);
      g_assert_cmpuint (outer->depth, ==, lane->depth - 1);
      for (gsize e = 0; e < lane->n_events; e++)
        {
          const SlEvent *ev = &lane->events[e];
          gsize k = sl_lane_lower_bound (outer, ev->start + 1);
          g_assert_cmpuint (k, >, 0);
          const SlEvent *parent = &outer->events[k - 1];
          g_assert_cmpint (parent->start, <=, ev->start);
          g_assert_cmpint (parent->end, >=, ev->end);
        }
    }
  g_assert_cmpuint (max_depth, ==, 4);
}

/* Random kernels and copies on several streams of two GPUs, written as a minimal nsys file. */
static void
test_utilization (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "util.sqlite", NULL);
  GRand *rng = g_rand_new_with_seed (sl_test_seed ());
  sqlite3 *db = NULL;
  sqlite3_stmt *k = NULL, *m = NULL;
  GArray *busy_k[2], *busy_a[2];

  for (guint i = 0; i < 2; i++)
    {
      busy_k[i] = g_array_new (FALSE, FALSE, sizeof (SlTime) * 2);
      busy_a[i] = g_array_new (FALSE, FALSE, sizeof (SlTime) * 2);
    }

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  sqlite3_exec (db,
                "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
                "INSERT INTO StringIds VALUES (1, 'k');"
                "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
                " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
                " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,"
                " shortName INTEGER NOT NULL, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,"
                " gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,"
                " blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,"
                " dynamicSharedMemory INTEGER NOT NULL);"
                "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,"
                " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
                " correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL);"
                "BEGIN", NULL, NULL, NULL);
  sqlite3_prepare_v2 (db, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, 1, ?, 0, 16777216, 1, 1, 32, 1, 1, 1, 128, 1, 1, 0, 0)", -1, &k, NULL);
  sqlite3_prepare_v2 (db, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, ?, 1, ?, 0, 16777216, 4096, 1)", -1, &m, NULL);
  for (gint dev = 0; dev < 2; dev++)
    for (gint stream = 0; stream < 3; stream++)
      {
        SlTime t = g_rand_int_range (rng, 0, 10000);
        for (gint i = 0; i < 3000; i++)
          {
            gboolean copy = g_rand_int_range (rng, 0, 5) == 0;
            SlTime s = t + g_rand_int_range (rng, 0, 3000), e = s + g_rand_int_range (rng, 0, 5000);
            /* now and then a gap or a busy stretch past 2^32 ns, which the unions store apart */
            if (g_rand_int_range (rng, 0, 500) == 0)
              s += (SlTime) 6e9;
            if (g_rand_int_range (rng, 0, 500) == 0)
              e = s + (SlTime) g_rand_double_range (rng, 4e9, 2e10);
            sqlite3_stmt *st = copy ? m : k;
            sqlite3_bind_int64 (st, 1, s);
            sqlite3_bind_int64 (st, 2, e);
            sqlite3_bind_int (st, 3, dev);
            sqlite3_bind_int (st, 4, stream);
            g_assert_cmpint (sqlite3_step (st), ==, SQLITE_DONE);
            sqlite3_reset (st);
            SlTime iv[2] = { s, e };
            if (!copy)
              g_array_append_vals (busy_k[dev], iv, 1);
            g_array_append_vals (busy_a[dev], iv, 1);
            t = e;
          }
      }
  sqlite3_finalize (k);
  sqlite3_finalize (m);
  sqlite3_exec (db, "COMMIT", NULL, NULL, NULL);
  sqlite3_close (db);

  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_gpus (trace), ==, 2);

  SlTime lo = sl_trace_get_start (trace) - 100, hi = sl_trace_get_end (trace) + 100;
  for (guint q = 0; q < 300; q++)
    {
      SlTime t0 = lo + (SlTime) (g_rand_double (rng) * (hi - lo));
      SlTime t1 = t0 + 1 + (SlTime) (g_rand_double (rng) * (hi - t0));
      guint dev = g_rand_int_range (rng, 0, 2);
      SlUtilKind kind = g_rand_boolean (rng) ? SL_UTIL_KERNELS : SL_UTIL_ANY;
      GArray *iv = kind == SL_UTIL_KERNELS ? busy_k[dev] : busy_a[dev];
      gint g = sl_trace_find_gpu (trace, dev);

      /* brute force: clip every interval to the window, sort, sweep the union */
      g_autoptr (GArray) clipped = g_array_new (FALSE, FALSE, sizeof (SlTime) * 2);
      for (guint i = 0; i < iv->len; i++)
        {
          SlTime *p = &((SlTime *) iv->data)[i * 2];
          SlTime c[2] = { MAX (p[0], t0), MIN (p[1], t1) };
          if (c[1] > c[0])
            g_array_append_vals (clipped, c, 1);
        }
      /* insertion into a sorted order by start */
      SlTime *c = (SlTime *) clipped->data;
      for (guint i = 1; i < clipped->len; i++)
        for (guint j = i; j > 0 && c[(j - 1) * 2] > c[j * 2]; j--)
          {
            SlTime a = c[j * 2], b = c[j * 2 + 1];
            c[j * 2] = c[(j - 1) * 2];
            c[j * 2 + 1] = c[(j - 1) * 2 + 1];
            c[(j - 1) * 2] = a;
            c[(j - 1) * 2 + 1] = b;
          }
      SlTime busy = 0, cur_s = 0, cur_e = G_MININT64;
      for (guint i = 0; i < clipped->len; i++)
        {
          if (c[i * 2] > cur_e)
            {
              if (cur_e > cur_s)
                busy += cur_e - cur_s;
              cur_s = c[i * 2];
              cur_e = c[i * 2 + 1];
            }
          else
            cur_e = MAX (cur_e, c[i * 2 + 1]);
        }
      if (cur_e > cur_s && clipped->len > 0)
        busy += cur_e - cur_s;

      g_assert_cmpint (sl_trace_gpu_busy_time (trace, g, kind, t0, t1), ==, busy);

      /* buckets add up to the window's busy time */
      double util[7];
      sl_trace_gpu_utilization_buckets (trace, g, kind, t0, t1, 7, util);
      double sum = 0;
      for (guint b = 0; b < 7; b++)
        {
          SlTime b0 = t0 + (SlTime) ((double) (t1 - t0) * b / 7);
          SlTime b1 = b == 6 ? t1 : t0 + (SlTime) ((double) (t1 - t0) * (b + 1) / 7);
          g_assert_cmpfloat (util[b], >=, 0.0);
          g_assert_cmpfloat (util[b], <=, 1.0);
          sum += util[b] * (double) (b1 - b0);
        }
      g_assert_cmpfloat (fabs (sum - (double) busy), <, 1e-6 * (double) (t1 - t0) + 1.0);

      /* more buckets than the chunks it looks up ahead: each is its own range's busy time */
      double many[100];
      sl_trace_gpu_utilization_buckets (trace, g, kind, t0, t1, 100, many);
      for (guint b = 0; b < 100; b++)
        {
          SlTime b0 = t0 + (SlTime) ((double) (t1 - t0) * b / 100);
          SlTime b1 = b == 99 ? t1 : t0 + (SlTime) ((double) (t1 - t0) * (b + 1) / 100);
          if (b1 > b0)
            g_assert_cmpfloat (fabs (many[b] * (double) (b1 - b0)
                                     - (double) sl_trace_gpu_busy_time (trace, g, kind, b0, b1)),
                               <=, 1e-9 * (double) (b1 - b0) + 1e-6);
        }
    }
  g_rand_free (rng);
  for (guint i = 0; i < 2; i++)
    {
      g_array_unref (busy_k[i]);
      g_array_unref (busy_a[i]);
    }
}

typedef struct
{
  double        last;
  guint         calls;
  GCancellable *cancel_after_first;
} ProgressLog;

static void
progress_cb (double      fraction,
             const char *what,
             gpointer    user_data)
{
  ProgressLog *log = user_data;

  g_assert_nonnull (what);
  g_assert_cmpfloat (fraction, >=, log->last);
  g_assert_cmpfloat (fraction, <=, 1.0);
  log->last = fraction;
  log->calls++;
  if (log->cancel_after_first != NULL)
    g_cancellable_cancel (log->cancel_after_first);
}

/* Progress only grows and ends at 1; a cancelled load stops with G_IO_ERROR_CANCELLED. */
static void
test_progress_cancel (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-mfu-2gpu.sqlite");
  g_autoptr (GError) error = NULL;
  ProgressLog log = { 0 };
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, progress_cb, &log, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (log.calls, >=, 3);
  g_assert_cmpfloat (log.last, ==, 1.0);

  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  ProgressLog log2 = { 0, 0, cancel };
  g_autoptr (SlTrace) none = sl_trace_load (path, SL_LOAD_ALL, progress_cb, &log2, cancel, &error);
  g_assert_null (none);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* Loading only some tables (as `sightline stats` does) leaves the others out. */
static void
test_load_flags (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_KERNELS | SL_LOAD_CUDA_API, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (count_kind (trace, SL_LANE_KERNELS), ==, 3442);
  g_assert_cmpuint (count_kind (trace, SL_LANE_CUDA_API), ==, 5796);
  g_assert_cmpuint (count_kind (trace, SL_LANE_NVTX), ==, 0);
  g_assert_cmpuint (count_kind (trace, SL_LANE_MEMCPY), ==, 0);
  g_assert_cmpuint (sl_trace_get_n_events (trace), ==, 3442 + 5796);
}

/* An early-2021 export (nsys --cudabacktrace, 4 A100) whose TARGET_INFO_GPU is keyed by deviceId,
 * not id, beside a TARGET_INFO_CUDA_GPU: the reader takes the limits from the latter, the bus
 * address from the former, and names each GPU as nsys did; no warning says GPUs are undescribed. */
static void
test_early_gpu_tables (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2021-cuda-backtraces.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_gpus (trace), ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      const SlGpu *gpu = sl_trace_get_gpu (trace, i);
      static const char *const bus[] = { "0000:99:00.0", "0000:AD:00.0", "0000:C5:00.0", "0000:D9:00.0" };
      g_assert_true (gpu->described);
      g_assert_cmpuint (gpu->device_id, <, 4);
      g_assert_cmpstr (sl_trace_str (trace, gpu->name), ==, "A100-PCIE-40GB");
      g_assert_cmpstr (sl_trace_str (trace, gpu->bus_location), ==, bus[gpu->device_id]);
      /* globalMemorySize is bytes in this export (MiB in the older one) */
      g_assert_cmpint (gpu->total_memory, ==, G_GINT64_CONSTANT (42505273344));
      g_assert_cmpint (gpu->clock_rate, ==, 1410000000);
      g_assert_cmpint (gpu->limits.sm_count, ==, 108);
      g_assert_cmpint (gpu->limits.cc_major, ==, 8);
      g_assert_cmpint (gpu->limits.cc_minor, ==, 0);
      g_assert_cmpint (gpu->limits.max_warps_per_sm, ==, 64);
    }
  const char *const *warnings = sl_trace_get_warnings (trace);
  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    g_assert_null (strstr (warnings[i], "TARGET_INFO_GPU"));

  /* the older export with TARGET_INFO_CUDA_GPU alone: sizes in MiB */
  g_autofree char *old_path = sl_test_trace_path ("nsys/nsys-2021-old-layout.sqlite");
  g_autoptr (SlTrace) old = sl_trace_load (old_path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sl_trace_str (old, sl_trace_get_gpu (old, 0)->name), ==, "Tesla V100-PCIE-32GB");
  g_assert_cmpint (sl_trace_get_gpu (old, 0)->total_memory, ==, G_GINT64_CONSTANT (32510) << 20);
}

/* Time 0 as nsys-ui counts it (issue 29, item 11): the session's start, not the first event.  An
 * nsys export's times are on the session's time line: every event of the h100 trace lies within
 * RUN_DURATION_MS of 0 (its first event is 155 s in), and the offset the events table shows for
 * its first kernel is that kernel's start in SQL less the session's start (0, moved by the export's
 * --ts-shift).  A --ts-shift'd copy moves time 0 with the events; a --ts-normalize'd one lost
 * the session's start (its first event); a planted Sightline recording's is its systemClockNs;
 * JSON has none (its first event); a merged trace takes the earliest, on the merged axis. */
static void
test_origin (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  sqlite3 *db = sl_test_open_db (path);

  g_assert_no_error (error);
  gint64 shift = sl_test_sql_int (db, "SELECT CAST(value AS INTEGER) FROM META_DATA_EXPORT "
                                      "WHERE name = 'EXPORT_PARAM_TIME_SHIFT'");
  gint64 run_ns = sl_test_sql_int (db, "SELECT CAST(value AS INTEGER) * 1000000 FROM "
                                       "META_DATA_CAPTURE WHERE name = 'RUN_DURATION_MS'");
  gint64 session_start = shift;
  g_assert_cmpint (sl_test_sql_int (db, "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL"), >=,
                   session_start);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT max(end) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), <=,
                   session_start + run_ns);
  g_assert_cmpint (sl_trace_get_origin (trace), ==, session_start);
  g_assert_cmpint (sl_trace_get_start (trace), >, session_start + 100 * G_GINT64_CONSTANT (1000000000));

  /* the first kernel of the first kernel lane, as the events table shows it */
  gint lane = -1;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace) && lane < 0; i++)
    if (sl_trace_get_lane (trace, i)->kind == SL_LANE_KERNELS)
      lane = (gint) i;
  g_assert_cmpint (lane, >=, 0);
  const SlLane *l = sl_trace_get_lane (trace, (guint) lane);
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                                          "WHERE start = %" G_GINT64_FORMAT,
                                          l->events[0].start);
  g_assert_cmpint (sl_test_sql_int (db, sql), >=, 1);
  g_autoptr (SlEventsQuery) q = sl_events_query_new_lane (trace, (guint) lane, 0, 0);
  g_autofree char *shown = sl_events_query_cell_text (q, 0, SL_EVENTS_COLUMN_START);
  g_autofree char *want = sl_format_offset (l->events[0].start - session_start);
  g_test_message ("first kernel at %s (first event of the trace at +%.3f s)", shown,
                  (sl_trace_get_start (trace) - session_start) / 1e9);
  g_assert_cmpstr (shown, ==, want);
  sqlite3_close (db);

  /* --ts-shift: time 0 moves with the events; --ts-normalize: no session start left */
  g_autofree char *shifted = sl_test_copy_trace ("nsys/nsys-2026.1-tiny.sqlite", "origin-shift.sqlite");
  sl_test_exec_sql (shifted, "UPDATE META_DATA_EXPORT SET value = '-1000000000' "
                             "WHERE name = 'EXPORT_PARAM_TIME_SHIFT'");
  g_autoptr (SlTrace) ts = sl_trace_load (shifted, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sl_trace_get_origin (ts), ==, -1000000000);
  g_autofree char *normal = sl_test_copy_trace ("nsys/nsys-2026.1-tiny.sqlite", "origin-norm.sqlite");
  sl_test_exec_sql (normal, "UPDATE META_DATA_EXPORT SET value = 'true' "
                            "WHERE name = 'EXPORT_PARAM_TIME_NORMALIZE'");
  g_autoptr (SlTrace) tn = sl_trace_load (normal, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sl_trace_get_origin (tn), ==, sl_trace_get_start (tn));

  /* a Sightline recording: its session's start on its own clock */
  g_autofree char *rec = sl_test_copy_trace ("nsys/nsys-2026.1-tiny.sqlite", "origin-rec.sqlite");
  sl_test_exec_sql (rec, "UPDATE META_DATA_EXPORT SET value = 'Sightline' "
                         "WHERE name = 'EXPORT_PRODUCT_NAME'");
  sl_test_exec_sql (rec, "UPDATE TARGET_INFO_SESSION_START_TIME SET systemClockNs = 1200000000");
  g_autoptr (SlTrace) tr = sl_trace_load (rec, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sl_trace_get_origin (tr), ==, 1200000000);

  /* JSON: its first event */
  g_autofree char *json = sl_test_trace_path (
    "pytorch/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz");
  g_autoptr (SlTrace) tj = sl_trace_load (json, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sl_trace_get_origin (tj), ==, sl_trace_get_start (tj));

  /* merged, with offsets given: the earliest time 0 of the two on the merged axis */
  g_autofree char *tiny = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  SlTrace *two[2] = { sl_trace_load (tiny, SL_LOAD_ALL, NULL, NULL, NULL, &error),
                      sl_trace_load (shifted, SL_LOAD_ALL, NULL, NULL, NULL, &error) };
  g_assert_no_error (error);
  const SlTime offsets[2] = { 0, 5000000000 };
  g_autoptr (SlTrace) merged = sl_trace_merge (two, 2, offsets, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sl_trace_get_origin (merged), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/trace/real-files", test_real_files);
  g_test_add_func ("/model/trace/nvtx-nesting", test_nvtx_nesting);
  g_test_add_func ("/model/trace/osrt-backtraces", test_osrt_backtraces);
  g_test_add_func ("/model/trace/cuda-backtraces", test_cuda_backtraces);
  g_test_add_func ("/model/trace/early-gpu-tables", test_early_gpu_tables);
  g_test_add_func ("/model/trace/utilization", test_utilization);
  g_test_add_func ("/model/trace/progress-cancel", test_progress_cancel);
  g_test_add_func ("/model/trace/load-flags", test_load_flags);
  g_test_add_func ("/model/trace/origin", test_origin);
  return g_test_run ();
}
