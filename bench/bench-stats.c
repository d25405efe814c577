/* bench-stats.c: kernel + API summaries from the model (load the two tables, compute) vs. SQLite
 * running nsys's report SQL on the same file with median()/stdev() registered.  Prints the
 * median of several runs of each and their ratio (the target is <= 0.5), then what the same two
 * reports cost over a 1 % range (a selection in the viewer, `stats --range`) against the whole
 * trace: a range costs what it holds.  Not a test. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "sl-sort.h"
#include "sl-sql-aggregates.h"
#include "sl-stats.h"
#include "sl-trace.h"

/* nsys's cuda_gpu_kern_sum and cuda_api_sum, in our words (reference §6.1, §6.2). */
static const char *const queries[] = {
  "WITH g AS (SELECT s.value AS name, sum(k.end - k.start) AS total, count(*) AS n, avg(k.end - k.start) AS av, "
  "median(k.end - k.start) AS med, min(k.end - k.start) AS mn, max(k.end - k.start) AS mx, "
  "stdev(k.end - k.start) AS sd FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s "
  "ON s.id = k.demangledName GROUP BY 1) SELECT round(total * 100.0 / (SELECT sum(total) FROM g), 1), "
  "total, n, round(av, 1), round(med, 1), mn, mx, round(sd, 1), name FROM g ORDER BY 2 DESC, 3, 9",
  "WITH g AS (SELECT nameId, sum(end - start) AS total, count(*) AS n, avg(end - start) AS av, "
  "median(end - start) AS med, min(end - start) AS mn, max(end - start) AS mx, stdev(end - start) AS sd "
  "FROM CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY 1) SELECT round(total * 100.0 / (SELECT sum(total) FROM g), 1), "
  "total, n, round(av, 1), round(med, 1), mn, mx, round(sd, 1), "
  "CASE substr(s.value, -6, 2) WHEN '_v' THEN substr(s.value, 1, length(s.value) - 6) ELSE s.value END "
  "FROM g LEFT JOIN StringIds AS s ON s.id = g.nameId ORDER BY 2 DESC",
};

static double
run_sql (const char *path,
         gsize      *rows)
{
  gint64 t0 = g_get_monotonic_time ();
  g_autofree char *uri = g_strdup_printf ("file:%s?mode=ro&nolock=1&immutable=1", path);
  sqlite3 *db = NULL;

  *rows = 0;
  if (sqlite3_open_v2 (uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK)
    g_error ("cannot open %s: %s", path, sqlite3_errmsg (db));
  if (!sl_sql_add_aggregates (db))
    g_error ("cannot add median() and stdev() to SQLite");
  for (gsize q = 0; q < G_N_ELEMENTS (queries); q++)
    {
      sqlite3_stmt *stmt;
      if (sqlite3_prepare_v2 (db, queries[q], -1, &stmt, NULL) != SQLITE_OK)
        g_error ("%s: %s", path, sqlite3_errmsg (db));
      while (sqlite3_step (stmt) == SQLITE_ROW)
        (*rows)++;
      sqlite3_finalize (stmt);
    }
  sqlite3_close (db);
  return (g_get_monotonic_time () - t0) / 1e6;
}

static double last_load;

static double
run_model (const char *path,
           gsize      *rows)
{
  const char *names[] = { "cuda_gpu_kern_sum", "cuda_api_sum" };
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (GError) error = NULL;
  SlLoadFlags flags = sl_report_needs (names[0]) | sl_report_needs (names[1]);
  g_autoptr (SlTrace) trace = sl_trace_load (path, flags, NULL, NULL, NULL, &error);

  if (trace == NULL)
    g_error ("%s", error->message);
  last_load = (g_get_monotonic_time () - t0) / 1e6;
  *rows = 0;
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (SlReport) r = sl_report_compute (trace, names[i], NULL);
      g_autoptr (GString) out = g_string_new (NULL);
      if (r == NULL)
        continue;
      sl_report_write (r, SL_REPORT_FORMAT_COLUMN, out);   /* as the command would */
      *rows += sl_report_get_n_rows (r);
    }
  return (g_get_monotonic_time () - t0) / 1e6;
}

/* Seconds to compute the two reports over [t0, t1) of an already loaded trace. */
static double
compute_range (SlTrace *trace,
               SlTime   t0,
               SlTime   t1)
{
  const char *names[] = { "cuda_gpu_kern_sum", "cuda_api_sum" };
  gint64 start = g_get_monotonic_time ();

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (SlReport) r = sl_report_compute_range (trace, names[i], t0, t1, NULL);
      (void) r;
    }
  return (g_get_monotonic_time () - start) / 1e6;
}


int
main (int    argc,
      char **argv)
{
  int runs = argc > 2 ? atoi (argv[2]) : 5;

  if (argc < 2 || runs < 1)
    {
      fprintf (stderr, "Usage: bench-stats TRACE.sqlite [RUNS]\n");
      return 2;
    }
  g_autofree double *model = g_new (double, runs);
  g_autofree double *sql = g_new (double, runs);
  gsize model_rows = 0, sql_rows = 0;

  for (int i = 0; i < runs; i++)
    {
      /* alternate, so that the page cache favours neither */
      sql[i] = run_sql (argv[1], &sql_rows);
      model[i] = run_model (argv[1], &model_rows);
    }
  qsort (model, runs, sizeof (double), sl_cmp_double);
  qsort (sql, runs, sizeof (double), sl_cmp_double);
  double m = model[runs / 2], s = sql[runs / 2];
  printf ("%s: %d runs each\n", argv[1], runs);
  printf ("  sightline (load kernels + API, compute, format): %8.3f s median  (%" G_GSIZE_FORMAT " rows)\n", m,
          model_rows);
  printf ("  SQLite running the nsys SQL:                      %8.3f s median  (%" G_GSIZE_FORMAT " rows)\n", s,
          sql_rows);
  printf ("  of which the last run's load:                   %8.3f s\n", last_load);
  printf ("  ratio sightline / SQLite: %.2f (target <= 0.5)\n", m / s);

  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (argv[1], sl_report_needs ("cuda_gpu_kern_sum")
                                                        | sl_report_needs ("cuda_api_sum"),
                                             NULL, NULL, NULL, &error);
  if (trace == NULL)
    g_error ("%s", error->message);
  SlTime t0 = sl_trace_get_start (trace), d = sl_trace_get_end (trace) - t0;
  g_autofree double *whole = g_new (double, runs);
  g_autofree double *part = g_new (double, runs);
  for (int i = 0; i < runs; i++)
    {
      whole[i] = compute_range (trace, G_MININT64, G_MAXINT64);
      part[i] = compute_range (trace, t0 + d / 2, t0 + d / 2 + d / 100);
    }
  qsort (whole, runs, sizeof (double), sl_cmp_double);
  qsort (part, runs, sizeof (double), sl_cmp_double);
  printf ("  the two reports computed (loaded): whole trace %8.3f ms, a 1 %% range %8.3f ms "
          "(ratio %.3f)\n", whole[runs / 2] * 1e3, part[runs / 2] * 1e3, part[runs / 2] / whole[runs / 2]);
  return 0;
}
