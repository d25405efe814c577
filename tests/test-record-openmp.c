/* test-record-openmp.c: OpenMP recorded through OMPT (`sightline record -t openmp`,
 * sl-inject-ompt.c): tests/targets/sl-omp-target, built with clang -fopenmp -g, runs parallel
 * regions of 3 and 2 threads at known lines; its trace has one OPENMP_EVENT_KIND_PARALLEL row per
 * region the program ran, named after its function and line, and as many
 * OPENMP_EVENT_KIND_TASK rows (implicit tasks, one per thread, on distinct threads) per region as
 * the program says its team had.  Skipped, saying so, where CMake found no clang with libomp. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "sl-test-util.h"

#ifdef SL_OMP_TARGET_PATH
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
