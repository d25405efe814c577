/* bench-memory.c: what `sightline memory --at peak` costs on a trace of 10^6 allocations: the
 * bytes in use and the allocations built from CUDA_GPU_MEMORY_USAGE_EVENTS (sl-memory.c) and the
 * allocations live at each GPU's peak listed, against loading the same trace, in the same run.
 *
 *   bench-memory GEN EVENTS ALLOCATIONS [RUNS]
 *
 * GEN (sightline-gen) writes a trace of EVENTS events on two GPUs; this program adds
 * ALLOCATIONS allocation rows to it (1M: 10^6), spread over the trace on both GPUs, three in
 * four freed later at the same address and the rest never, sizes from 512 bytes to 64 MiB, each
 * tied to no call (correlationId 0: the call lookup still walks every CUDA API lane).  Each run
 * loads the file (SL_LOAD_CUDA_API | SL_LOAD_MEMCPY, as the command does: the baseline), then
 * times the memory work on the loaded trace: the series and allocations built, and the live
 * allocations of every GPU's series at its peak collected and sorted.  RUNS times (default 5);
 * medians and their ratio printed.  The bound: the memory work ≤ 0.5 s.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <glib/gstdio.h>

#include "sl-bench.h"
#include "sl-memory.h"
#include "sl-trace.h"

/* Seconds of CPU time of this process: what the work costs whatever else the machine runs. */
static double
cpu_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static gboolean
add_allocations (const char *path,
                 gint64      n)
{
  sqlite3 *db = NULL;
  char *message = NULL;
  g_autofree char *sql = NULL;
  gboolean ok;

  if (sqlite3_open (path, &db) != SQLITE_OK)
    return FALSE;
  /* rows i = 0 … n-1: an allocation at t0 + i·step on GPU i % 2, freed (i % 4 != 3) 50 rows of
   * time later; recursive CTEs (the library has no generate_series) */
  sql = g_strdup_printf (
    "CREATE TABLE IF NOT EXISTS CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid "
    "INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT "
    "NULL, pc INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER NOT NULL, "
    "memoryOperationType INTEGER NOT NULL, name TEXT, correlationId INTEGER);"
    "BEGIN;"
    "WITH RECURSIVE i(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM i WHERE v < %" G_GINT64_FORMAT
    "), span AS (SELECT min(start) AS t0, (max(end) - min(start)) / %" G_GINT64_FORMAT
    " AS step, (SELECT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1) AS pid FROM "
    "CUPTI_ACTIVITY_KIND_KERNEL) "
    "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS SELECT t0 + v * step, pid, v %% 2, 1, "
    "0x7f0000000000 + v * 0x10000000, 0, 512 << ((v * 7919) %% 18), 2, 0, NULL, 0 FROM i, span;"
    "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS SELECT start + 50 * ((SELECT (max(start) - "
    "min(start)) FROM CUDA_GPU_MEMORY_USAGE_EVENTS) / %" G_GINT64_FORMAT "), globalPid, deviceId, "
    "contextId, address, pc, bytes, memKind, 1, NULL, 0 FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE "
    "memoryOperationType = 0 AND ((address - 0x7f0000000000) / 0x10000000) %% 4 != 3;"
    "COMMIT;",
    n - 1, n, n);
  ok = sqlite3_exec (db, sql, NULL, NULL, &message) == SQLITE_OK;
  if (!ok)
    g_printerr ("bench-memory: %s\n", message);
  sqlite3_free (message);
  sqlite3_close (db);
  return ok;
}

int
main (int    argc,
      char **argv)
{
  if (argc < 4)
    {
      g_printerr ("usage: bench-memory GEN EVENTS ALLOCATIONS [RUNS]\n");
      return 2;
    }
  gint64 n = g_ascii_strtoll (argv[3], NULL, 10);
  if (g_str_has_suffix (argv[3], "M"))
    n *= 1000000;
  else if (g_str_has_suffix (argv[3], "k"))
    n *= 1000;
  guint runs = argc > 4 ? (guint) atoi (argv[4]) : 5;
  g_autofree char *dir = g_dir_make_tmp ("bench-memory-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "memory.sqlite", NULL);
  const char *gen_argv[] = { argv[1], "-o", path, "-n", argv[2], "--gpus", "2", "--force", NULL };
  gint status = 0;

  g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
  if (!g_spawn_sync (NULL, (char **) gen_argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                     NULL, NULL, &status, NULL)
      || !g_spawn_check_wait_status (status, NULL) || !add_allocations (path, n))
    return 1;

  g_autoptr (GArray) loads = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) work = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) load_cpu = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) work_cpu = g_array_new (FALSE, FALSE, sizeof (double));
  guint rows = 0, live = 0;
  for (guint r = 0; r < runs; r++)
    {
      g_autoptr (GError) error = NULL;
      double c0 = cpu_now (), t0 = sl_bench_now ();
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_CUDA_API | SL_LOAD_MEMCPY, NULL,
                                                 NULL, NULL, &error);
      double t1 = sl_bench_now (), c1 = cpu_now ();
      if (trace == NULL)
        {
          g_printerr ("bench-memory: %s\n", error->message);
          return 1;
        }
      g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (guint32));
      live = 0;
      for (guint s = 0; s < sl_memory_get_n_series (trace); s++)
        {
          g_array_set_size (out, 0);
          live += sl_memory_live_at (trace, s, sl_memory_get_series (trace, s)->peak_time, out);
        }
      double t2 = sl_bench_now (), c2 = cpu_now ();
      rows = sl_trace_get_n_mem_usage (trace);
      g_array_append_val (loads, (double) { t1 - t0 });
      g_array_append_val (work, (double) { t2 - t1 });
      g_array_append_val (load_cpu, (double) { c1 - c0 });
      g_array_append_val (work_cpu, (double) { c2 - c1 });
    }
  double load = sl_bench_median (loads), mem = sl_bench_median (work);
  double load_c = sl_bench_median (load_cpu), mem_c = sl_bench_median (work_cpu);
  g_autofree char *la = sl_bench_load_average ();
  printf ("bench-memory: %s events, %" G_GINT64_FORMAT " allocations (%u rows), %u runs, load "
          "average %s\n", argv[2], n, rows, runs, la);
  printf ("                              wall        CPU\n");
  printf ("  load the trace (baseline)   %8.3f s  %8.3f s\n", load, load_c);
  printf ("  memory --at peak's work     %8.3f s  %8.3f s   (%u live allocations)\n", mem,
          mem_c, live);
  printf ("  ratio work / load           %8.3f    %8.3f\n", mem / MAX (load, 1e-9),
          mem_c / MAX (load_c, 1e-9));
  printf ("  bound: work <= 0.5 s: %s (wall), %s (CPU)\n", mem <= 0.5 ? "met" : "NOT met",
          mem_c <= 0.5 ? "met" : "NOT met");
  g_unlink (path);
  g_rmdir (dir);
  return 0;
}
