/* test-record-openmp.c: OpenMP recorded through OMPT (`sightline record -t openmp`,
 * sl-inject-ompt.c): tests/targets/sl-omp-target, built with clang -fopenmp -g, runs parallel
 * regions of 3 and 2 threads at known lines; its trace has one OPENMP_EVENT_KIND_PARALLEL row per
 * region the program ran, named after its function and line, and as many
 * OPENMP_EVENT_KIND_TASK rows (implicit tasks, one per thread, on distinct threads) per region as
 * the program says its team had.  Read back through the model (sl-reader-openmp.c): each region
 * a row of its primary thread's OpenMP lanes with the thread count and source line the program
 * printed, each implicit task on its own thread, and openmp_sum as NVIDIA's SQL computes it.
 * Skipped, saying so, where CMake found no clang with libomp. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "sl-openmp.h"
#include "sl-sql-aggregates.h"
#include "sl-stats.h"
#include "sl-test-util.h"

#ifdef SL_OMP_TARGET_PATH
/* The recording through the model: the parallel regions at `line` (of sl-omp-target.c), as
 * events of the OpenMP lanes: how many, each with `threads` threads and its implicit tasks on that
 * many threads of its process. */
static void
check_model_regions (SlTrace *trace,
                     int      line,
                     int      threads,
                     int      count)
{
  int n = 0;

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_OPENMP && k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          const SlOmpEvent *o = sl_trace_get_omp_event (trace, lane, ev);
          g_assert_nonnull (o);
          if (ev->aux != SL_OMP_PARALLEL || o->line != line)
            continue;
          n++;
          g_assert_true (o->flags & SL_OMP_HAS_LINE);
          g_assert_true (g_str_has_suffix (sl_trace_str (trace, o->file), "sl-omp-target.c"));
          g_assert_cmpstr (sl_trace_str (trace, o->func), ==, "main");
          g_assert_true (o->flags & SL_OMP_HAS_THREADS);
          g_assert_cmpint (o->threads, ==, threads);
          /* its implicit tasks: one a thread of the team, on distinct threads */
          g_autoptr (GHashTable) tids = g_hash_table_new (NULL, NULL);
          for (guint j = 0; j < sl_trace_get_n_lanes (trace); j++)
            {
              const SlLane *l = sl_trace_get_lane (trace, j);
              if (l->kind != SL_LANE_OPENMP || l->global_pid != lane->global_pid)
                continue;
              for (gsize e = 0; e < l->n_events; e++)
                {
                  const SlOmpEvent *t = sl_trace_get_omp_event (trace, l, &l->events[e]);
                  if (l->events[e].aux == SL_OMP_TASK && t->parallel_id == o->parallel_id)
                    g_hash_table_add (tids, GINT_TO_POINTER (l->thread + 1));
                }
            }
          g_assert_cmpuint (g_hash_table_size (tids), ==, (guint) threads);
          g_autofree char *d = sl_omp_describe (trace, lane, ev);
          g_autofree char *want = g_strdup_printf ("threads %d; line ", threads);
          g_assert_nonnull (strstr (d, want));
        }
    }
  g_assert_cmpint (n, ==, count);
}

/* openmp_sum of the recording, row by row as NVIDIA's SQL gives it (its two tables). */
static void
check_openmp_sum (SlTrace    *trace,
                  const char *path)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (SlReport) report = sl_report_compute (trace, "openmp_sum", &error);
  g_assert_no_error (error);
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_true (sl_sql_add_aggregates (db));
  g_autofree char *sql = g_strdup_printf (
      "WITH summary AS (SELECT %d AS tbl, nameId, count(*) AS num, sum(end - start) AS total, "
      "avg(end - start) AS avg, median(end - start) AS med, min(end - start) AS min, "
      "max(end - start) AS max, stdev(end - start) AS stddev FROM OPENMP_EVENT_KIND_PARALLEL "
      "GROUP BY 2 UNION ALL SELECT %d, nameId, count(*), sum(end - start), avg(end - start), "
      "median(end - start), min(end - start), max(end - start), stdev(end - start) "
      "FROM OPENMP_EVENT_KIND_TASK GROUP BY 2), totals AS (SELECT sum(total) AS total "
      "FROM summary) SELECT round(total * 100.0 / (SELECT total FROM totals), 1), total, num, "
      "round(avg, 1), round(med, 1), min, max, round(stddev, 1), ids.value FROM summary "
      "LEFT JOIN StringIds AS ids ON ids.id = summary.nameId ORDER BY 2 DESC, ids.value, tbl",
      SL_OMP_PARALLEL, SL_OMP_TASK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  gsize row = 0;
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      g_assert_cmpuint (row, <, sl_report_get_n_rows (report));
      for (guint c = 0; c < 9; c++)
        {
          const SlCell *cell = sl_report_get_cell (report, row, c);
          if (c == 8)
            g_assert_cmpstr (cell->v.s, ==, (const char *) sqlite3_column_text (stmt, 8));
          else if (c == 0 || c == 3 || c == 4 || c == 7)
            g_assert_cmpfloat (cell->v.d, ==, sqlite3_column_double (stmt, (int) c));
          else
            g_assert_cmpint (cell->v.i, ==, sqlite3_column_int64 (stmt, (int) c));
        }
      row++;
    }
  g_assert_cmpuint (row, ==, sl_report_get_n_rows (report));
  g_assert_cmpuint (row, >=, 3);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
}

static void
test_regions (void)
{
  const char *dir = sl_test_tmpdir ();
  g_autofree char *runtime_dir = g_build_filename (dir, "run", NULL);
  g_autofree char *path = g_build_filename (dir, "omp.sqlite", NULL);
  const char *argv[] = { SL_SIGHTLINE_PATH, "record", "-t", "openmp", "-s", "none", "--sched",
                         "off", "-o", path, SL_OMP_TARGET_PATH, "20", NULL };
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SIGHTLINE_RUNTIME_DIR", runtime_dir,
                                         TRUE);
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL;
  int status = -1;

  g_assert_cmpint (g_mkdir_with_parents (runtime_dir, 0700), ==, 0);
  g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                &error);
  g_assert_no_error (error);
  g_test_message ("record stderr: %s", err);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);

  sqlite3 *db = sl_test_open_db (path);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  guint n_regions = 0;
  gint64 total = 0;
  for (char **l = lines; *l != NULL; l++)
    {
      int line, threads, count;
      if (sscanf (*l, "region %d %d %d", &line, &threads, &count) != 3)
        continue;
      n_regions++;
      total += count;
      g_autofree char *name = g_strdup_printf ("omp parallel: main (sl-omp-target.c:%d)", line);
      g_autofree char *where = g_strdup_printf (
          "FROM OPENMP_EVENT_KIND_PARALLEL p JOIN StringIds s ON s.id = p.nameId "
          "WHERE s.value = '%s'", name);
      g_autofree char *n_sql = g_strdup_printf ("SELECT count(*) %s", where);
      g_test_message ("region at line %d: %d threads, %d times; %" G_GINT64_FORMAT " rows", line,
                      threads, count, sl_test_sql_int (db, n_sql));
      g_assert_cmpint (sl_test_sql_int (db, n_sql), ==, count);
      /* each of its regions: one implicit task per thread of the team, each on its own thread,
       * inside the region's time on the primary thread */
      g_autofree char *bad = g_strdup_printf (
          "SELECT count(*) FROM (SELECT p.parallelId, p.globalTid AS primary_tid, "
          "(SELECT count(*) FROM OPENMP_EVENT_KIND_TASK t WHERE t.parallelId = p.parallelId) "
          "AS n, (SELECT count(DISTINCT t.globalTid) FROM OPENMP_EVENT_KIND_TASK t "
          "WHERE t.parallelId = p.parallelId) AS n_tids, (SELECT count(*) FROM "
          "OPENMP_EVENT_KIND_TASK t WHERE t.parallelId = p.parallelId AND t.globalTid = "
          "p.globalTid AND (t.start < p.start OR t.end > p.end)) AS outside %s) "
          "WHERE n != %d OR n_tids != %d OR outside != 0", where, threads, threads);
      g_assert_cmpint (sl_test_sql_int (db, bad), ==, 0);
      check_model_regions (trace, line, threads, count);
    }
  g_assert_cmpuint (n_regions, ==, 2);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OPENMP_EVENT_KIND_PARALLEL"), ==,
                   total);
  /* NVIDIA's enums: OpenMP's event class, the PARALLEL and TASK kinds; ids from 1 */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OPENMP_EVENT_KIND_PARALLEL WHERE "
                                        "eventClass != 78 OR eventKind != 28 OR parallelId < 1"),
                   ==, 0);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OPENMP_EVENT_KIND_TASK WHERE "
                                        "eventClass != 78 OR eventKind != 31 OR kind != 2"),
                   ==, 0);
  sqlite3_close (db);
  check_openmp_sum (trace, path);
}
#else
static void
test_skipped (void)
{
  g_test_skip ("clang -fopenmp did not build an OpenMP program when configured (Debian: clang "
               "libomp-dev): nothing to record");
}
#endif

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
#ifdef SL_OMP_TARGET_PATH
  g_test_add_func ("/record-openmp/regions", test_regions);
#else
  g_test_add_func ("/record-openmp/regions", test_skipped);
#endif
  return g_test_run ();
}
