/* bench-metrics.c: what reading GPU_METRICS (issue 31) adds to loading a trace, as a ratio
 * against the same trace without it, loaded in the same run.
 *
 *   bench-metrics GEN EVENTS [RUNS] [--rows N]
 *
 * GEN (sightline-gen) writes the baseline of EVENTS events, then the same trace with
 * --gpu-metrics=HZ, HZ chosen from the baseline's span and GPUs so that GPU_METRICS holds about
 * N rows (default 10^6; 18 metrics a GPU each period).  The generator draws the metrics from
 * random numbers of their own: the two files hold the same events.  They are loaded alternately,
 * without-with then with-without, RUNS times each (default 5), after one unmeasured load of each;
 * the medians of wall and process CPU time, and their ratio, are printed.  The bound:
 * ≤ 1.10 on a 10 M-event trace with ~10^6 metric rows.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <glib/gstdio.h>

#include "sl-bench.h"
#include "sl-trace.h"

#define METRICS_PER_GPU 18   /* sightline-gen's H100 names */

static gint64
query_int (const char *path,
           const char *query)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gint64 n = -1;

  if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
      && sqlite3_prepare_v2 (db, query, -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    n = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return n;
}

static double
process_cpu_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static gboolean
time_load (const char *path,
           GArray     *wall,
           GArray     *cpu)
{
  g_autoptr (GError) error = NULL;
  double w0 = sl_bench_now (), c0 = process_cpu_s ();
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  double w = sl_bench_now () - w0, c = process_cpu_s () - c0;

  if (trace == NULL)
    {
      g_printerr ("bench-metrics: %s: %s\n", path, error->message);
      return FALSE;
    }
  g_array_append_val (wall, w);
  g_array_append_val (cpu, c);
  return TRUE;
}

static gboolean
measure (const char *gen,
         const char *events,
         guint       runs,
         gint64      rows,
         const char *with,
         const char *without)
{
  printf ("generating %s events without GPU metrics…\n", events);
  if (!sl_bench_generate ("bench-metrics", gen, without, 1, events))
    return FALSE;
  /* the generator samples from the session's start to past the last event: its whole span */
  gint64 span = query_int (without, "SELECT max(end) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  gint64 origin = query_int (without, "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
  gint64 gpus = query_int (without, "SELECT count(DISTINCT deviceId) FROM "
                                    "CUPTI_ACTIVITY_KIND_KERNEL");
  if (span <= origin || gpus <= 0)
    {
      g_printerr ("bench-metrics: %s has no kernels to span\n", without);
      return FALSE;
    }
  double seconds = (double) (span - origin) / 1e9;
  guint hz = (guint) MAX (1.0, (double) rows / (seconds * METRICS_PER_GPU * (double) gpus));
  g_autofree char *hz_arg = g_strdup_printf ("--gpu-metrics=%u", hz);
  const char *argv[] = { gen, "-o", with, "-n", events, "-s", "1", hz_arg, "--force", NULL };
  g_autoptr (GError) error = NULL;
  gint status = 0;

  printf ("generating it again with %s (%.1f s on %" G_GINT64_FORMAT " GPUs)…\n", hz_arg, seconds,
          gpus);
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                     NULL, &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    {
      g_printerr ("bench-metrics: sightline-gen: %s\n", error->message);
      return FALSE;
    }
  printf ("GPU_METRICS rows %" G_GINT64_FORMAT ", kernels %" G_GINT64_FORMAT " in both\n",
          query_int (with, "SELECT count(*) FROM GPU_METRICS"),
          query_int (with, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));

  g_autoptr (GArray) wall_with = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) cpu_with = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) wall_without = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) cpu_without = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) scratch = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree char *load_before = sl_bench_load_average ();
  if (!time_load (without, scratch, scratch) || !time_load (with, scratch, scratch))
    return FALSE;
  for (guint r = 0; r < runs; r++)
    if (r % 2 == 0 ? !time_load (without, wall_without, cpu_without)
                       || !time_load (with, wall_with, cpu_with)
                   : !time_load (with, wall_with, cpu_with)
                       || !time_load (without, wall_without, cpu_without))
      return FALSE;
  g_autofree char *load_after = sl_bench_load_average ();

  double ww = sl_bench_median (wall_with), wo = sl_bench_median (wall_without);
  double cw = sl_bench_median (cpu_with), co = sl_bench_median (cpu_without);
  printf ("load without GPU metrics  %.3f s wall, %.3f s CPU (median of %u, interleaved)\n", wo,
          co, runs);
  printf ("load with them            %.3f s wall, %.3f s CPU\n", ww, cw);
  printf ("ratio                     %.3f wall, %.3f CPU (bound: 1.10)\n", ww / wo, cw / co);
  printf ("load average              %s before, %s after\n", load_before, load_after);
  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  const char *args[3] = { NULL, NULL, NULL };
  guint n_args = 0;
  gint64 rows = 1000000;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--rows") == 0 && i + 1 < argc)
        rows = g_ascii_strtoll (argv[++i], NULL, 10);
      else if (n_args < G_N_ELEMENTS (args))
        args[n_args++] = argv[i];
    }
  if (n_args < 2 || rows <= 0)
    {
      g_printerr ("usage: bench-metrics GEN EVENTS [RUNS] [--rows N]\n");
      return 2;
    }
  g_setenv ("SIGHTLINE_CACHE", "0", TRUE); /* every load reads the file, none the model cache */
  guint runs = args[2] != NULL ? (guint) g_ascii_strtoull (args[2], NULL, 10) : 5;
  runs = MAX (runs, 1);

  g_autofree char *dir = g_dir_make_tmp ("bench-metrics-XXXXXX", NULL);
  g_autofree char *with = g_build_filename (dir, "with.sqlite", NULL);
  g_autofree char *without = g_build_filename (dir, "without.sqlite", NULL);
  gboolean ok = measure (args[0], args[1], runs, rows, with, without);

  g_unlink (with);
  g_unlink (without);
  g_rmdir (dir);
  return ok ? 0 : 1;
}
