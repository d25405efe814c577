/* bench-cuda-tables.c: what reading issue 30's tables (graph launches, CUDA calls' backtraces,
 * CUDA events) adds to loading a trace, as a ratio against the same trace without them, loaded
 * in the same run.
 *
 *   bench-cuda-tables GEN EVENTS [RUNS] [--graphs graph|node]
 *
 * GEN (sightline-gen) writes a trace of EVENTS events with CUDA graphs (graph mode by default:
 * one CUPTI_ACTIVITY_KIND_GRAPH_TRACE row a launch; node mode: the graphs' kernels with graphId
 * and graphNodeId) and CUDA events where it can; this program then gives backtraces to every
 * synchronizing or copying CUDA call and to one launch in ten (CUDA_CALLCHAINS, 64 distinct
 * stacks of 24 frames, as nsys --cudabacktrace writes them).  The baseline is a copy of that file
 * (VACUUM INTO) without those tables (CUDA_GRAPH_EVENTS and CUDA_GRAPH_NODE_EVENTS included: issue
 * 30's too), with no callchainId and, in node mode, no graphId / graphNodeId: the same events,
 * kernels included.  Both files are vacuumed, so that each is laid out as a fresh export is (the
 * UPDATE that gives calls a callchainId splits pages of the runtime table: 3 % of the file out of
 * order, which the baseline did not pay).  The two are loaded alternately, in the order
 * without-with then with-without (a load after the other file's is not always the second), RUNS
 * times each (default 5), a load including the first grouping of node-traced launches (as the
 * viewer and `sightline info` do it); the medians of wall and process CPU time, and their ratio,
 * are printed.  The bound: ≤ 1.05 on a 10 M-event trace.  On a busy machine the ratios
 * move by 10 % and more from one run to the next: take several runs' ratios, or count the loads'
 * instructions (valgrind --tool=callgrind), which do not move.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <glib/gstdio.h>

#include "sl-bench.h"
#include "sl-trace.h"

#define N_STACKS 64
#define DEPTH    24

static gboolean
sql (sqlite3    *db,
     const char *text)
{
  char *message = NULL;

  if (sqlite3_exec (db, text, NULL, NULL, &message) != SQLITE_OK)
    {
      g_printerr ("bench-cuda-tables: %s: %s\n", text, message);
      sqlite3_free (message);
      return FALSE;
    }
  return TRUE;
}

/* Backtraces for the synchronizing and copying calls and one launch in ten: 64 stacks of 24
 * frames, their names new strings past the file's largest id. */
static gboolean
add_backtraces (sqlite3 *db)
{
  g_autoptr (GString) text = g_string_new (NULL);

  /* no generate_series (the CLI has it, not the library): recursive CTEs */
  g_string_assign (text,
                   "CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, "
                   "module INTEGER NOT NULL, unresolved INTEGER, originalIP INTEGER, stackDepth "
                   "INTEGER NOT NULL, PRIMARY KEY (id, stackDepth));\n"
                   "CREATE TEMP TABLE base AS SELECT max(id) + 1 AS id FROM StringIds;\n"
                   "WITH RECURSIVE n(v) AS (SELECT 0 UNION ALL SELECT v + 1 FROM n WHERE v < 199) "
                   "INSERT INTO StringIds (id, value) SELECT (SELECT id FROM base) + v, "
                   "'bench_frame_' || v FROM n;\n");
  g_string_append_printf (text,
                          "WITH RECURSIVE c(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM c "
                          "WHERE id < %d), d(depth) AS (SELECT 0 UNION ALL SELECT depth + 1 FROM "
                          "d WHERE depth < %d) "
                          "INSERT INTO CUDA_CALLCHAINS (id, symbol, module, stackDepth) "
                          "SELECT id, (SELECT id FROM base) + (id * 7 + depth * 13) %% 190, "
                          "(SELECT id FROM base) + 190 + depth %% 10, depth FROM c, d;\n",
                          N_STACKS, DEPTH - 1);
  g_string_append_printf (
    text,
    "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 1 + correlationId %% %d "
    "WHERE nameId IN (SELECT id FROM StringIds WHERE value LIKE 'cuda%%Synchronize%%' "
    "OR value LIKE 'cudaMemcpy%%' OR value LIKE 'cudaStreamWaitEvent%%') "
    "OR correlationId %% 10 = 0;\n",
    N_STACKS);
  return sql (db, "BEGIN") && sql (db, text->str) && sql (db, "COMMIT");
}

static gboolean
has_table (sqlite3    *db,
           const char *name)
{
  sqlite3_stmt *stmt = NULL;
  gboolean found = FALSE;

  if (sqlite3_prepare_v2 (db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                          -1, &stmt, NULL)
      == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, name, -1, SQLITE_STATIC);
      found = sqlite3_step (stmt) == SQLITE_ROW;
    }
  sqlite3_finalize (stmt);
  return found;
}

static gint64
count_rows (sqlite3    *db,
            const char *query)
{
  sqlite3_stmt *stmt = NULL;
  gint64 n = -1;

  if (sqlite3_prepare_v2 (db, query, -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    n = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return n;
}

static double
process_cpu_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* One load: its wall and CPU seconds appended; FALSE when it fails.  A load as the viewer and
 * `sightline info` make it: the graph launches traced node by node are grouped on first use, which
 * both make at once (the timeline's rows, info's counts), so that is timed too (a pass over the
 * kernels in the baseline). */
static gboolean
time_load (const char *path,
           GArray     *wall,
           GArray     *cpu)
{
  g_autoptr (GError) error = NULL;
  double w0 = sl_bench_now (), c0 = process_cpu_s ();
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  if (trace != NULL)
    sl_trace_get_n_graph_groups (trace);
  double w = sl_bench_now () - w0, c = process_cpu_s () - c0;

  if (trace == NULL)
    {
      g_printerr ("bench-cuda-tables: %s: %s\n", path, error->message);
      return FALSE;
    }
  g_array_append_val (wall, w);
  g_array_append_val (cpu, c);
  return TRUE;
}

/* Generates the trace, makes its baseline and times both; FALSE when a step fails (said). */
static gboolean
measure (const char *gen,
         const char *events,
         const char *mode,
         guint       runs,
         const char *with,
         const char *without)
{
  const char *gen_argv[] = { gen, "-o", with, "-n", events, "-s", "1", "--graphs", mode,
                             "--force", NULL };
  g_autoptr (GError) error = NULL;
  gint status = 0;

  printf ("generating %s events (--graphs %s)…\n", events, mode);
  if (!g_spawn_sync (NULL, (char **) gen_argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                     NULL, &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    {
      g_printerr ("bench-cuda-tables: sightline-gen: %s\n", error->message);
      return FALSE;
    }

  sqlite3 *db = NULL;
  if (sqlite3_open (with, &db) != SQLITE_OK || !add_backtraces (db) || !sql (db, "VACUUM"))
    {
      sqlite3_close (db);
      return FALSE;
    }
  printf ("graph launches %" G_GINT64_FORMAT ", graph-node kernels %" G_GINT64_FORMAT
          " of %" G_GINT64_FORMAT " (the baseline has all)"
          ", CUDA calls with a backtrace %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT
          ", CUDA event records %" G_GINT64_FORMAT "\n",
          has_table (db, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE")
            ? count_rows (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE")
            : 0,
          count_rows (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE graphId > 0"),
          count_rows (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"),
          count_rows (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                          "WHERE callchainId IS NOT NULL"),
          count_rows (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
          has_table (db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT")
            ? count_rows (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT")
            : 0);

  /* the baseline: the same rows without the new tables and columns' values */
  char *vacuum = sqlite3_mprintf ("VACUUM INTO %Q", without);
  gboolean made = sql (db, vacuum);
  sqlite3_free (vacuum);
  sqlite3_close (db);
  if (!made || sqlite3_open (without, &db) != SQLITE_OK)
    return FALSE;
  made = sql (db, "DROP TABLE IF EXISTS CUPTI_ACTIVITY_KIND_GRAPH_TRACE;"
                  "DROP TABLE IF EXISTS CUDA_CALLCHAINS;"
                  "DROP TABLE IF EXISTS CUPTI_ACTIVITY_KIND_CUDA_EVENT;"
                  "DROP TABLE IF EXISTS CUDA_GRAPH_EVENTS;"
                  "DROP TABLE IF EXISTS CUDA_GRAPH_NODE_EVENTS;"
                  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = NULL;")
         && (strcmp (mode, "node") != 0
             || sql (db, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET graphId = NULL, graphNodeId = NULL"))
         && sql (db, "VACUUM");
  sqlite3_close (db);
  if (!made)
    return FALSE;

  g_autoptr (GArray) wall_with = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) cpu_with = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) wall_without = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) cpu_without = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree char *load_before = sl_bench_load_average ();
  /* a first load of each warms the page cache; not counted */
  GArray *scratch = g_array_new (FALSE, FALSE, sizeof (double));
  if (!time_load (without, scratch, scratch) || !time_load (with, scratch, scratch))
    {
      g_array_unref (scratch);
      return FALSE;
    }
  g_array_unref (scratch);
  for (guint r = 0; r < runs; r++)
    if (r % 2 == 0 ? !time_load (without, wall_without, cpu_without)
                       || !time_load (with, wall_with, cpu_with)
                   : !time_load (with, wall_with, cpu_with)
                       || !time_load (without, wall_without, cpu_without))
      return FALSE;
  g_autofree char *load_after = sl_bench_load_average ();

  double ww = sl_bench_median (wall_with), wo = sl_bench_median (wall_without);
  double cw = sl_bench_median (cpu_with), co = sl_bench_median (cpu_without);
  printf ("load without the tables  %.3f s wall, %.3f s CPU (median of %u, interleaved)\n", wo,
          co, runs);
  printf ("load with them           %.3f s wall, %.3f s CPU\n", ww, cw);
  printf ("ratio                    %.3f wall, %.3f CPU (bound: 1.05)\n", ww / wo, cw / co);
  printf ("load average             %s before, %s after\n", load_before, load_after);
  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  const char *mode = "graph";
  const char *args[3] = { NULL, NULL, NULL };
  guint n_args = 0;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--graphs") == 0 && i + 1 < argc)
        mode = argv[++i];
      else if (n_args < G_N_ELEMENTS (args))
        args[n_args++] = argv[i];
    }
  if (n_args < 2)
    {
      g_printerr ("usage: bench-cuda-tables GEN EVENTS [RUNS] [--graphs graph|node]\n");
      return 2;
    }
  g_setenv ("SIGHTLINE_CACHE", "0", TRUE); /* every load reads the file, none the model cache */
  guint runs = args[2] != NULL ? (guint) g_ascii_strtoull (args[2], NULL, 10) : 5;
  runs = MAX (runs, 1);

  g_autofree char *dir = g_dir_make_tmp ("bench-cuda-tables-XXXXXX", NULL);
  g_autofree char *with = g_build_filename (dir, "with.sqlite", NULL);
  g_autofree char *without = g_build_filename (dir, "without.sqlite", NULL);
  gboolean ok = measure (args[0], args[1], mode, runs, with, without);

  g_unlink (with);
  g_unlink (without);
  g_rmdir (dir);
  return ok ? 0 : 1;
}
