/* test-metrics.c: GPU_METRICS read into per-GPU, per-metric series (sl-metrics.h) and the
 * gpu_metrics_sum / gpu_metrics_kern_sum reports, each held to SQL over the file itself:
 * every sample, time-weighted means over ranges (LEAD() gives a sample's end), per-kernel
 * averages, the reports cell by cell; the model cache, a merge of two files, and damaged rows. */
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "sl-metrics.h"
#include "sl-stats.h"
#include "sl-test-util.h"
#include "sl-trace-private.h"

#define FAR (G_GINT64_CONSTANT (1) << 62)   /* "the whole trace" in SQL, which has no G_MAXINT64 */

/* A generated trace (sightline-gen -n 20000 --gpus 2 --gpu-metrics[=HZ]), made once per name. */
static char *
generated (const char *name,
           const char *metrics,
           const char *seed)
{
  char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
  g_auto (SlTestRun) run = { 0 };

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "20000", "--gpus", "2", metrics, "--seed",
               seed, "--force", NULL);
  if (run.status != 0)
    g_error ("sightline-gen: %s", run.err);
  return path;
}

static SlTrace *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  SlTrace *trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  return trace;
}

static sqlite3 *
open_rw (const char *path)
{
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  return db;
}

static sqlite3_stmt *
prepare (sqlite3    *db,
         const char *sql)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
    g_error ("%s: %s", sqlite3_errmsg (db), sql);
  return st;
}

static void
exec (sqlite3    *db,
      const char *sql)
{
  char *msg = NULL;
  if (sqlite3_exec (db, sql, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s: %s", msg, sql);
}

/* The series of the model whose GPU has device id `gpu` and whose metricId is `m`. */
static gint
series_of (SlTrace *trace,
           gint64   gpu,
           gint64   m)
{
  for (guint i = 0; i < sl_metrics_get_n_series (trace); i++)
    {
      const SlMetricSeries *s = sl_metrics_get_series (trace, i);
      if (sl_trace_get_gpu (trace, s->gpu)->device_id == gpu && s->metric_id == m)
        return (gint) i;
    }
  return -1;
}

/* TEMP tables for the oracle: `periods` (gpu, m, p: the lower median gap of each series, from
 * SQL alone) and `samples` (gpu, m, t, v, e: each sample with its end, LEAD() or t + p). */
static void
oracle_tables (sqlite3 *db)
{
  exec (db, "DROP TABLE IF EXISTS temp.periods; DROP TABLE IF EXISTS temp.samples;"
            "CREATE TEMP TABLE periods AS "
            "WITH g AS (SELECT typeId & 255 AS gpu, metricId AS m, LEAD(timestamp) OVER "
            "  (PARTITION BY typeId & 255, metricId ORDER BY timestamp, rowid) - timestamp AS d "
            "  FROM GPU_METRICS), "
            "r AS (SELECT gpu, m, d, ROW_NUMBER() OVER (PARTITION BY gpu, m ORDER BY d) AS k, "
            "  COUNT(*) OVER (PARTITION BY gpu, m) AS n FROM g WHERE d IS NOT NULL) "
            "SELECT gpu, m, MAX(d, 1) AS p FROM r WHERE k = (n - 1) / 2 + 1;"
            "INSERT INTO periods SELECT DISTINCT typeId & 255, metricId, 1 FROM GPU_METRICS AS x "
            "  WHERE NOT EXISTS (SELECT 1 FROM periods AS y WHERE y.gpu = x.typeId & 255 "
            "  AND y.m = x.metricId);"
            "CREATE TEMP TABLE samples AS "
            "WITH s AS (SELECT typeId & 255 AS gpu, metricId AS m, timestamp AS t, value AS v, "
            "  LEAD(timestamp) OVER (PARTITION BY typeId & 255, metricId ORDER BY timestamp, rowid) "
            "  AS nx FROM GPU_METRICS) "
            "SELECT s.gpu, s.m, s.t, s.v, COALESCE(s.nx, s.t + p.p) AS e FROM s "
            "JOIN periods AS p ON p.gpu = s.gpu AND p.m = s.m;"
            "CREATE INDEX temp.samples_t ON samples (gpu, t);");
}

/* ---- every sample ------------------------------------------------------------------------ */

static void
check_samples (const char *path)
{
  g_autoptr (SlTrace) trace = load (path);
  sqlite3 *db = open_rw (path);

  oracle_tables (db);
  g_assert_cmpuint (sl_metrics_get_n_samples (trace), ==,
                    sl_test_sql_int (db, "SELECT count(*) FROM GPU_METRICS"));
  g_assert_cmpuint (sl_metrics_get_n_series (trace), ==,
                    sl_test_sql_int (db, "SELECT count(*) FROM periods"));
  g_assert_null (sl_trace_get_warnings (trace)[0]);

  /* series by GPU then metricId; in each, the samples by time as SQL orders them */
  sqlite3_stmt *st = prepare (db, "SELECT s.gpu, s.m, s.t, s.v, p.p, "
                                  "(SELECT metricName FROM TARGET_INFO_GPU_METRICS AS n "
                                  " WHERE n.typeId & 255 = s.gpu AND n.metricId = s.m) "
                                  "FROM samples AS s JOIN periods AS p USING (gpu, m) "
                                  "ORDER BY s.gpu, s.m, s.t, s.rowid");
  gint last = -1;
  guint64 k = 0, seen = 0;
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      gint i = series_of (trace, sqlite3_column_int64 (st, 0), sqlite3_column_int64 (st, 1));
      g_assert_cmpint (i, >=, 0);
      if (i != last)
        {
          g_assert_cmpint (i, >, last);   /* the series' order is GPU, then metricId */
          if (last >= 0)
            g_assert_cmpuint (k, ==, sl_metrics_get_series (trace, last)->count);
          last = i;
          k = 0;
          g_assert_cmpint (sl_metrics_get_series (trace, i)->period, ==, sqlite3_column_int64 (st, 4));
          g_assert_cmpstr (sl_metrics_get_name (trace, i), ==, (const char *) sqlite3_column_text (st, 5));
          g_assert_cmpint (sl_metrics_find_series (trace, sl_metrics_get_series (trace, i)->gpu,
                                                   sl_metrics_get_name (trace, i)), ==, i);
        }
      g_assert_cmpint (sl_metrics_get_times (trace, i)[k], ==, sqlite3_column_int64 (st, 2));
      g_assert_cmpfloat (sl_metrics_get_values (trace, i)[k], ==, sqlite3_column_double (st, 3));
      k++;
      seen++;
    }
  sqlite3_finalize (st);
  g_assert_cmpuint (seen, ==, sl_metrics_get_n_samples (trace));
  g_test_message ("%s: %" G_GUINT64_FORMAT " samples in %u series", path, seen,
                  sl_metrics_get_n_series (trace));
  sqlite3_close (db);
}

static void
test_samples (void)
{
  g_autofree char *a = generated ("metrics-10k.sqlite", "--gpu-metrics", "1");
  g_autofree char *b = generated ("metrics-1k.sqlite", "--gpu-metrics=1000", "2");
  check_samples (a);
  check_samples (b);
}

/* ---- time-weighted means over ranges ----------------------------------------------------- */

static void
check_ranges (const char *path,
              guint32     seed)
{
  g_autoptr (SlTrace) trace = load (path);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  sqlite3 *db = open_rw (path);
  gint64 lo = sl_test_sql_int (db, "SELECT min(timestamp) FROM GPU_METRICS");
  gint64 hi = sl_test_sql_int (db, "SELECT max(timestamp) FROM GPU_METRICS");
  gint64 ranges[6][2] = {
    { -FAR, FAR }, { lo, hi }, { lo - 1000, lo + 1 }, { hi, hi + 10 * 1000 * 1000 },
  };
  for (guint r = 4; r < G_N_ELEMENTS (ranges); r++)
    {
      gint64 a = lo + (gint64) (g_rand_double (rand) * (double) (hi - lo));
      ranges[r][0] = a;
      ranges[r][1] = a + 1 + (gint64) (g_rand_double (rand) * (double) (hi - a));
    }

  oracle_tables (db);
  sqlite3_stmt *st = prepare (db, "WITH w AS (SELECT gpu, m, v, MAX(t, ?1) AS a, MIN(e, ?2) AS b "
                                  "FROM samples) "
                                  "SELECT gpu, m, SUM(v * (b - a)), SUM(b - a), MIN(v), MAX(v), "
                                  "count(*) FROM w WHERE b > a GROUP BY gpu, m ORDER BY gpu, m");
  for (guint r = 0; r < G_N_ELEMENTS (ranges); r++)
    {
      guint rows = 0, expected = 0;
      SlMetricStats stats;

      sqlite3_bind_int64 (st, 1, ranges[r][0]);
      sqlite3_bind_int64 (st, 2, ranges[r][1]);
      while (sqlite3_step (st) == SQLITE_ROW)
        {
          gint i = series_of (trace, sqlite3_column_int64 (st, 0), sqlite3_column_int64 (st, 1));
          g_assert_cmpint (i, >=, 0);
          g_assert_true (sl_metrics_stats (trace, i, ranges[r][0], ranges[r][1], &stats));
          /* integer values times integer ns: exact in doubles, so the means are equal, not near */
          g_assert_cmpfloat (stats.integral, ==, sqlite3_column_double (st, 2));
          g_assert_cmpint (stats.covered, ==, sqlite3_column_int64 (st, 3));
          g_assert_cmpfloat (stats.mean, ==, sqlite3_column_double (st, 2) / sqlite3_column_double (st, 3));
          g_assert_cmpfloat (stats.min, ==, sqlite3_column_double (st, 4));
          g_assert_cmpfloat (stats.max, ==, sqlite3_column_double (st, 5));
          g_assert_cmpuint (stats.n, ==, sqlite3_column_int64 (st, 6));
          rows++;
        }
      sqlite3_reset (st);
      for (guint i = 0; i < sl_metrics_get_n_series (trace); i++)
        expected += sl_metrics_stats (trace, i, ranges[r][0], ranges[r][1], &stats);
      g_assert_cmpuint (rows, ==, expected);
      if (r == 0)
        {
          g_assert_cmpuint (rows, ==, sl_metrics_get_n_series (trace));
          /* the whole trace is the same with the model's own bounds */
          for (guint i = 0; i < sl_metrics_get_n_series (trace); i++)
            {
              SlMetricStats whole;
              g_assert_true (sl_metrics_stats (trace, i, G_MININT64, G_MAXINT64, &whole));
              g_assert_true (sl_metrics_stats (trace, i, -FAR, FAR, &stats));
              g_assert_cmpfloat (whole.mean, ==, stats.mean);
              g_assert_cmpuint (whole.n, ==, sl_metrics_get_series (trace, i)->count);
            }
        }
    }
  sqlite3_finalize (st);

  /* the value at a time: the last sample at or before it, until its end */
  st = prepare (db, "SELECT v FROM samples WHERE gpu = ?1 AND m = ?2 AND t <= ?3 AND e > ?3 "
                    "ORDER BY t DESC, rowid DESC LIMIT 1");
  for (guint n = 0; n < 300; n++)
    {
      guint i = g_rand_int_range (rand, 0, sl_metrics_get_n_series (trace));
      const SlMetricSeries *s = sl_metrics_get_series (trace, i);
      SlTime t = lo - 5000 + (gint64) (g_rand_double (rand) * (double) (hi - lo + 10000 + s->period));
      double v = -1;
      sqlite3_bind_int64 (st, 1, sl_trace_get_gpu (trace, s->gpu)->device_id);
      sqlite3_bind_int64 (st, 2, s->metric_id);
      sqlite3_bind_int64 (st, 3, t);
      gboolean any = sqlite3_step (st) == SQLITE_ROW;
      g_assert_cmpint (sl_metrics_value_at (trace, i, t, &v), ==, any);
      if (any)
        g_assert_cmpfloat (v, ==, sqlite3_column_double (st, 0));
      sqlite3_reset (st);
    }
  sqlite3_finalize (st);

  /* pixel columns: each is the range query over its own bounds */
  for (guint i = 0; i < sl_metrics_get_n_series (trace); i += 5)
    {
      double max[97], mean[97];
      SlTime t0 = lo - 777, t1 = hi + 12345;
      sl_metrics_columns (trace, i, t0, t1, G_N_ELEMENTS (max), max, mean);
      for (guint c = 0; c < G_N_ELEMENTS (max); c++)
        {
          SlTime a = t0 + (SlTime) ((__int128) (t1 - t0) * c / G_N_ELEMENTS (max));
          SlTime b = t0 + (SlTime) ((__int128) (t1 - t0) * (c + 1) / G_N_ELEMENTS (max));
          SlMetricStats stats;
          if (sl_metrics_stats (trace, i, a, b, &stats))
            {
              g_assert_cmpfloat (max[c], ==, stats.max);
              g_assert_cmpfloat (mean[c], ==, stats.mean);
            }
          else
            g_assert_true (isnan (max[c]) && isnan (mean[c]));
        }
    }
  sqlite3_close (db);
}

static void
test_ranges (void)
{
  g_autofree char *a = generated ("metrics-10k.sqlite", "--gpu-metrics", "1");
  g_autofree char *b = generated ("metrics-1k.sqlite", "--gpu-metrics=1000", "2");
  guint32 seed = sl_test_seed ();
  check_ranges (a, seed);
  check_ranges (b, seed);
}

/* ---- the reports ------------------------------------------------------------------------- */

static void
assert_cell (const SlCell *c,
             sqlite3_stmt *st,
             int           col,
             const char   *what)
{
  switch (sqlite3_column_type (st, col))
    {
    case SQLITE_INTEGER:
      if (c->type == SL_CELL_INT)
        g_assert_cmpint (c->v.i, ==, sqlite3_column_int64 (st, col));
      else
        {
          g_assert_cmpint (c->type, ==, SL_CELL_DOUBLE);
          g_assert_cmpfloat (c->v.d, ==, (double) sqlite3_column_int64 (st, col));
        }
      break;
    case SQLITE_FLOAT:
      {
        double got = c->type == SL_CELL_INT ? (double) c->v.i : c->v.d;
        if (got != sqlite3_column_double (st, col))
          g_error ("%s column %d: model %.17g, SQL %.17g", what, col, got,
                   sqlite3_column_double (st, col));
      }
      break;
    case SQLITE_TEXT:
      g_assert_cmpint (c->type, ==, SL_CELL_TEXT);
      g_assert_cmpstr (c->v.s, ==, (const char *) sqlite3_column_text (st, col));
      break;
    default:
      g_assert_cmpint (c->type, ==, SL_CELL_NULL);
    }
}

/* Every row and cell of `report` over [t0, t1) against the rows of `sql` (?1, ?2: the range). */
static gsize
compare (SlTrace    *trace,
         sqlite3    *db,
         const char *report,
         const char *sql,
         SlTime      t0,
         SlTime      t1)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlReport) r = sl_report_compute_range (trace, report, t0, t1, &error);
  sqlite3_stmt *st = prepare (db, sql);
  gsize row = 0;

  g_assert_no_error (error);
  sqlite3_bind_int64 (st, 1, MAX (t0, -FAR));
  sqlite3_bind_int64 (st, 2, MIN (t1, FAR));
  g_assert_cmpint (sqlite3_column_count (st), ==, (int) sl_report_get_n_columns (r));
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      g_autofree char *what = g_strdup_printf ("%s row %" G_GSIZE_FORMAT, report, row);
      g_assert_cmpuint (row, <, sl_report_get_n_rows (r));
      for (guint c = 0; c < sl_report_get_n_columns (r); c++)
        assert_cell (sl_report_get_cell (r, row, c), st, (int) c, what);
      row++;
    }
  sqlite3_finalize (st);
  g_assert_cmpuint (row, ==, sl_report_get_n_rows (r));
  return row;
}

#define SUM_SQL                                                                                   \
  "WITH w AS (SELECT gpu, m, v, MAX(t, ?1) AS a, MIN(e, ?2) AS b FROM samples) "                  \
  "SELECT w.gpu, (SELECT metricName FROM TARGET_INFO_GPU_METRICS AS n "                           \
  "  WHERE n.typeId & 255 = w.gpu AND n.metricId = w.m), "                                        \
  "round(SUM(v * (b - a)) * 1.0 / SUM(b - a), 1), MAX(v), MIN(v), count(*) "                      \
  "FROM w WHERE b > a GROUP BY gpu, m ORDER BY gpu, m"

/* kernels that start in the range, each with the samples of its GPU that overlap it */
#define KERN_SQL                                                                                  \
  "WITH k AS (SELECT k.rowid AS id, k.start, k.end, k.deviceId AS gpu, s.value AS name "          \
  "  FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.demangledName "         \
  "  WHERE k.start >= ?1 AND k.start < ?2), "                                                     \
  "tot AS (SELECT name, SUM(end - start) AS total FROM k GROUP BY name), "                        \
  "w AS (SELECT k.id, k.name, s.m, s.v, MAX(s.t, k.start) AS a, MIN(s.e, k.end) AS b, "           \
  "  (SELECT metricName FROM TARGET_INFO_GPU_METRICS AS n "                                       \
  "   WHERE n.typeId & 255 = s.gpu AND n.metricId = s.m) AS mname "                               \
  "  FROM k JOIN samples AS s ON s.gpu = k.gpu AND s.t < k.end "                                  \
  "  AND s.t >= k.start - (SELECT MAX(e - t) FROM samples) AND s.e > k.start) "                   \
  "SELECT w.mname, round(SUM(v * (b - a)) * 1.0 / SUM(b - a), 1), MAX(v), MIN(v), "               \
  "count(DISTINCT w.id), w.name FROM w JOIN tot USING (name) WHERE b > a "                        \
  "GROUP BY w.name, w.mname ORDER BY tot.total DESC, w.name, MIN(w.m), w.mname"

static void
test_reports (void)
{
  g_autofree char *path = generated ("metrics-1k.sqlite", "--gpu-metrics=1000", "2");
  g_autoptr (SlTrace) trace = load (path);
  sqlite3 *db = open_rw (path);
  SlTime s = sl_trace_get_start (trace), e = sl_trace_get_end (trace);
  SlTime ranges[][2] = {
    { G_MININT64, G_MAXINT64 }, { s + (e - s) / 3, s + (e - s) / 2 }, { e, e + 1 },
  };

  oracle_tables (db);
  for (guint r = 0; r < G_N_ELEMENTS (ranges); r++)
    {
      gsize a = compare (trace, db, "gpu_metrics_sum", SUM_SQL, ranges[r][0], ranges[r][1]);
      gsize b = compare (trace, db, "gpu_metrics_kern_sum", KERN_SQL, ranges[r][0], ranges[r][1]);
      g_test_message ("range %u: gpu_metrics_sum %" G_GSIZE_FORMAT " rows, gpu_metrics_kern_sum %"
                      G_GSIZE_FORMAT, r, a, b);
      if (r < 2)
        g_assert_true (a > 0 && b > 0);
    }
  sqlite3_close (db);

  /* without GPU_METRICS: skipped with a message naming the file */
  g_autofree char *plain = g_build_filename (sl_test_tmpdir (), "metrics-none.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };
  sl_test_run (&run, SL_GEN_PATH, "-o", plain, "-n", "3000", "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_autoptr (SlTrace) none = load (plain);
  for (guint k = 0; k < 2; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlReport) r = sl_report_compute (none, k ? "gpu_metrics_kern_sum" : "gpu_metrics_sum",
                                                  &error);
      g_assert_null (r);
      g_assert_error (error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
      g_autofree char *want = g_strdup_printf ("%s does not contain GPU metrics data", plain);
      g_assert_nonnull (strstr (error->message, want));
    }
  g_assert_cmpuint (sl_metrics_get_n_series (none), ==, 0);
}

/* ---- per kernel: the detail pane's means and achieved occupancy --------------------------- */

/* Every kernel of the file, read by SQL: sl_metrics_means over its [start, end) equals the
 * time-weighted average SQL computes from the samples of its GPU (LEAD() ends), metric by metric;
 * achieved occupancy is Compute Warps in Flight ÷ SMs Active of those averages; the samples
 * wholly inside it are those SQL finds. */
static void
check_kernels (const char *path)
{
  g_autoptr (SlTrace) trace = load (path);
  sqlite3 *db = open_rw (path);
  guint64 kernels = 0, rows = 0, inner = 0, achieved = 0;

  oracle_tables (db);
  gint64 widest = sl_test_sql_int (db, "SELECT MAX(e - t) FROM samples");
  sqlite3_stmt *ks = prepare (db, "SELECT deviceId, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL "
                                  "ORDER BY rowid");
  sqlite3_stmt *st = prepare (db, "WITH w AS (SELECT m, v, MAX(t, ?2) AS a, MIN(e, ?3) AS b "
                                  "  FROM samples WHERE gpu = ?1 AND t < ?3 AND t >= ?2 - ?4) "
                                  "SELECT m, SUM(v * (b - a)), SUM(b - a), MIN(v), MAX(v), "
                                  "count(*) FROM w WHERE b > a GROUP BY m ORDER BY m");
  /* SMs Active's samples wholly inside [start, end): the first start, the last end */
  sqlite3_stmt *in = prepare (db, "SELECT MIN(s.t), MAX(s.e) FROM samples AS s "
                                  "JOIN TARGET_INFO_GPU_METRICS AS n "
                                  "  ON n.typeId & 255 = s.gpu AND n.metricId = s.m "
                                  "WHERE s.gpu = ?1 AND n.metricName = '" SL_METRIC_SMS_ACTIVE
                                  "' AND s.t >= ?2 AND s.e <= ?3 AND s.t < ?3");
  while (sqlite3_step (ks) == SQLITE_ROW)
    {
      gint64 device = sqlite3_column_int64 (ks, 0);
      SlTime start = sqlite3_column_int64 (ks, 1), end = sqlite3_column_int64 (ks, 2);
      gint gpu = sl_trace_find_gpu (trace, (guint32) device);
      g_assert_cmpint (gpu, >=, 0);
      g_autoptr (GArray) means = sl_metrics_means (trace, gpu, start, end);
      double warps = NAN, active = NAN;
      guint k = 0;

      sqlite3_bind_int64 (st, 1, device);
      sqlite3_bind_int64 (st, 2, start);
      sqlite3_bind_int64 (st, 3, end);
      sqlite3_bind_int64 (st, 4, widest);
      while (sqlite3_step (st) == SQLITE_ROW)
        {
          g_assert_cmpuint (k, <, means->len);
          const SlMetricMean *m = &g_array_index (means, SlMetricMean, k);
          const SlMetricSeries *s = sl_metrics_get_series (trace, m->series);
          g_assert_cmpint (s->gpu, ==, gpu);
          g_assert_cmpint (s->metric_id, ==, sqlite3_column_int64 (st, 0));
          /* integer values times integer ns: exact in doubles, the means equal, not near */
          g_assert_cmpfloat (m->stats.integral, ==, sqlite3_column_double (st, 1));
          g_assert_cmpint (m->stats.covered, ==, sqlite3_column_int64 (st, 2));
          g_assert_cmpfloat (m->stats.mean, ==,
                             sqlite3_column_double (st, 1) / sqlite3_column_double (st, 2));
          g_assert_cmpfloat (m->stats.min, ==, sqlite3_column_double (st, 3));
          g_assert_cmpfloat (m->stats.max, ==, sqlite3_column_double (st, 4));
          g_assert_cmpuint (m->stats.n, ==, sqlite3_column_int64 (st, 5));
          if (g_strcmp0 (sl_metrics_get_name (trace, m->series), SL_METRIC_WARPS_IN_FLIGHT) == 0)
            warps = m->stats.mean;
          if (g_strcmp0 (sl_metrics_get_name (trace, m->series), SL_METRIC_SMS_ACTIVE) == 0)
            active = m->stats.mean;
          k++;
          rows++;
        }
      sqlite3_reset (st);
      g_assert_cmpuint (k, ==, means->len);

      SlAchievedOccupancy a;
      gboolean has = sl_metrics_achieved_occupancy (trace, gpu, start, end, &a);
      g_assert_cmpint (has, ==, !isnan (warps) && active > 0);
      if (has)
        {
          g_assert_cmpfloat_with_epsilon (a.achieved, MIN (warps / active, 1.0), 1e-12);
          g_assert_cmpfloat_with_epsilon (a.sms_active, active / 100, 1e-12);
          g_assert_false (a.by_unallocated);
          achieved++;
        }

      SlTime ia = 0, ib = 0;
      gint ref = sl_metrics_find_series (trace, gpu, SL_METRIC_SMS_ACTIVE);
      g_assert_cmpint (ref, >=, 0);
      sqlite3_bind_int64 (in, 1, device);
      sqlite3_bind_int64 (in, 2, start);
      sqlite3_bind_int64 (in, 3, end);
      g_assert_cmpint (sqlite3_step (in), ==, SQLITE_ROW);
      gboolean any = sqlite3_column_type (in, 0) != SQLITE_NULL;
      g_assert_cmpint (sl_metrics_inner_range (trace, (guint) ref, start, end, &ia, &ib), ==, any);
      if (any)
        {
          g_assert_cmpint (ia, ==, sqlite3_column_int64 (in, 0));
          g_assert_cmpint (ib, ==, sqlite3_column_int64 (in, 1));
          inner++;
        }
      sqlite3_reset (in);
      kernels++;
    }
  sqlite3_finalize (ks);
  sqlite3_finalize (st);
  sqlite3_finalize (in);
  sqlite3_close (db);
  g_test_message ("%s: %" G_GUINT64_FORMAT " kernels, %" G_GUINT64_FORMAT " kernel × metric "
                  "means, %" G_GUINT64_FORMAT " with achieved occupancy, %" G_GUINT64_FORMAT
                  " with samples wholly inside", path, kernels, rows, achieved, inner);
  g_assert_cmpuint (kernels, >, 1000);
  g_assert_cmpuint (achieved, >, kernels / 2);
  g_assert_cmpuint (inner, >, 0);
}

static void
test_kernels (void)
{
  g_autofree char *a = generated ("metrics-10k.sqlite", "--gpu-metrics", "1");
  g_autofree char *b = generated ("metrics-1k.sqlite", "--gpu-metrics=1000", "2");
  check_kernels (a);
  check_kernels (b);
}

/* Achieved occupancy from aggregates: the definitions of sl-metrics.h, and bad values. */
static void
test_occupancy_from (void)
{
  SlMetricStats warps = { .mean = 30, .n = 4, .covered = 1000 };
  SlMetricStats active = { .mean = 60, .n = 4, .covered = 1000 };
  SlMetricStats unalloc = { .mean = 10, .n = 4, .covered = 1000 };
  SlMetricStats zero = { .mean = 0, .n = 4, .covered = 1000 };
  SlMetricStats huge = { .mean = -1e300, .n = 1, .covered = 1 };
  SlAchievedOccupancy a;

  g_assert_true (sl_metrics_occupancy_from (&warps, &active, &unalloc, &a));
  g_assert_cmpfloat_with_epsilon (a.achieved, 0.5, 1e-15);
  g_assert_false (a.by_unallocated);
  g_assert_cmpfloat (a.unallocated, ==, 0.1);
  /* without SMs Active: an active SM's slots are its warps in flight and its unallocated ones */
  g_assert_true (sl_metrics_occupancy_from (&warps, NULL, &unalloc, &a));
  g_assert_cmpfloat_with_epsilon (a.achieved, 0.75, 1e-15);
  g_assert_true (a.by_unallocated);
  g_assert_true (isnan (a.sms_active));
  /* no active SM time, no warps series, nothing to divide by: no figure */
  g_assert_false (sl_metrics_occupancy_from (&warps, &zero, NULL, &a));
  g_assert_false (sl_metrics_occupancy_from (NULL, &active, &unalloc, &a));
  g_assert_false (sl_metrics_occupancy_from (&warps, NULL, NULL, &a));
  g_assert_false (sl_metrics_occupancy_from (&warps, &huge, NULL, &a));
  /* a sample period's noise above the SMs' activity is clipped */
  g_assert_true (sl_metrics_occupancy_from (&active, &warps, NULL, &a));
  g_assert_cmpfloat (a.achieved, ==, 1.0);

  /* merging the aggregates of two ranges is the aggregate over both */
  SlMetricStats sum = { 0 }, x = { .integral = 300, .covered = 10, .min = 20, .max = 40, .n = 2 },
                y = { .integral = 100, .covered = 10, .min = 5, .max = 15, .n = 3 };
  sl_metric_stats_merge (&sum, &x);
  sl_metric_stats_merge (&sum, &y);
  g_assert_cmpfloat (sum.mean, ==, 20);
  g_assert_cmpfloat (sum.min, ==, 5);
  g_assert_cmpfloat (sum.max, ==, 40);
  g_assert_cmpuint (sum.n, ==, 5);
  g_assert_cmpint (sum.covered, ==, 20);
}

/* ---- cache, merge -------------------------------------------------------------------------- */

static void
test_cache (void)
{
  g_autofree char *path = generated ("metrics-10k.sqlite", "--gpu-metrics", "1");
  g_autofree char *home = g_build_filename (sl_test_tmpdir (), "cache-home", NULL);

  g_setenv ("XDG_CACHE_HOME", home, TRUE);
  g_setenv ("SIGHTLINE_CACHE", "1", TRUE);
  g_setenv ("SIGHTLINE_CACHE_MIN_MS", "0", TRUE);
  SlCacheStats before, after;
  g_autoptr (SlTrace) fresh = load (path);
  _sl_trace_cache_get_stats (&before);
  g_autoptr (SlTrace) cached = load (path);
  _sl_trace_cache_get_stats (&after);
  g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
  g_assert_cmpuint (after.hits, ==, before.hits + 1);

  g_assert_cmpuint (fresh->metric_series->len, >, 0);
  g_assert_cmpuint (fresh->metric_series->len, ==, cached->metric_series->len);
  g_assert_cmpmem (fresh->metric_series->data, fresh->metric_series->len * sizeof (SlMetricSeries),
                   cached->metric_series->data, cached->metric_series->len * sizeof (SlMetricSeries));
  g_assert_cmpmem (fresh->metric_times->data, fresh->metric_times->len * sizeof (SlTime),
                   cached->metric_times->data, cached->metric_times->len * sizeof (SlTime));
  g_assert_cmpmem (fresh->metric_values->data, fresh->metric_values->len * sizeof (double),
                   cached->metric_values->data, cached->metric_values->len * sizeof (double));
  for (guint k = 0; k < 2; k++)
    {
      const char *name = k ? "gpu_metrics_kern_sum" : "gpu_metrics_sum";
      g_autoptr (SlReport) a = sl_report_compute (fresh, name, NULL);
      g_autoptr (SlReport) b = sl_report_compute (cached, name, NULL);
      g_autoptr (GString) ta = g_string_new (NULL);
      g_autoptr (GString) tb = g_string_new (NULL);
      sl_report_write (a, SL_REPORT_FORMAT_CSV, ta);
      sl_report_write (b, SL_REPORT_FORMAT_CSV, tb);
      g_assert_cmpstr (ta->str, ==, tb->str);
    }
}

static void
test_merge (void)
{
  g_autofree char *a = generated ("metrics-10k.sqlite", "--gpu-metrics", "1");
  g_autofree char *b = generated ("metrics-1k.sqlite", "--gpu-metrics=1000", "2");
  const char *paths[] = { a, b };
  g_autoptr (SlTrace) one = load (a);
  g_autoptr (SlTrace) two = load (b);
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) merged = sl_trace_load_merged (paths, 2, SL_LOAD_ALL, NULL, NULL, NULL, NULL,
                                                     &error);
  g_assert_no_error (error);
  SlTrace *each[] = { one, two };
  guint at = 0;

  g_assert_cmpuint (sl_metrics_get_n_series (merged), ==,
                    sl_metrics_get_n_series (one) + sl_metrics_get_n_series (two));
  for (guint f = 0; f < 2; f++)
    {
      SlTime offset = sl_trace_get_source (merged, f)->offset;
      for (guint i = 0; i < sl_metrics_get_n_series (each[f]); i++, at++)
        {
          const SlMetricSeries *x = sl_metrics_get_series (each[f], i);
          const SlMetricSeries *y = sl_metrics_get_series (merged, at);
          g_assert_cmpuint (sl_trace_get_gpu (merged, y->gpu)->source, ==, f);
          g_assert_cmpuint (sl_trace_get_gpu (merged, y->gpu)->device_id, ==,
                            sl_trace_get_gpu (each[f], x->gpu)->device_id);
          g_assert_cmpstr (sl_metrics_get_name (merged, at), ==, sl_metrics_get_name (each[f], i));
          g_assert_cmpuint (x->count, ==, y->count);
          g_assert_cmpint (x->period, ==, y->period);
          for (guint64 k = 0; k < x->count; k++)
            {
              g_assert_cmpint (sl_metrics_get_times (merged, at)[k], ==,
                               sl_metrics_get_times (each[f], i)[k] + offset);
              g_assert_cmpfloat (sl_metrics_get_values (merged, at)[k], ==,
                                 sl_metrics_get_values (each[f], i)[k]);
            }
        }
    }
  g_autoptr (SlReport) r = sl_report_compute (merged, "gpu_metrics_sum", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_report_get_n_rows (r), ==, sl_metrics_get_n_series (merged));
}

/* ---- damaged rows -------------------------------------------------------------------------- */

static gboolean
warned (SlTrace    *trace,
        const char *what)
{
  for (const char *const *w = sl_trace_get_warnings (trace); *w != NULL; w++)
    if (strstr (*w, what) != NULL)
      return TRUE;
  return FALSE;
}

static void
test_corrupt (void)
{
  g_autofree char *src = generated ("metrics-1k.sqlite", "--gpu-metrics=1000", "2");
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "metrics-bad.sqlite", NULL);
  g_autofree char *bytes = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (src, &bytes, &len, NULL));
  g_assert_true (g_file_set_contents (path, bytes, len, NULL));
  /* the columns lose NOT NULL so that the file can hold what nsys never writes */
  sl_test_exec_sql (path,
                    "CREATE TABLE g2 AS SELECT * FROM GPU_METRICS; DROP TABLE GPU_METRICS;"
                    "CREATE TABLE GPU_METRICS (rawTimestamp INTEGER, timestamp INTEGER, "
                    "typeId INTEGER, metricId INTEGER, value INTEGER);"
                    "INSERT INTO GPU_METRICS SELECT * FROM g2; DROP TABLE g2;"
                    "CREATE TABLE n2 AS SELECT * FROM TARGET_INFO_GPU_METRICS;"
                    "DROP TABLE TARGET_INFO_GPU_METRICS;"
                    "CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER, sourceId INTEGER, "
                    "typeName TEXT, metricId INTEGER, metricName TEXT);"
                    "INSERT INTO TARGET_INFO_GPU_METRICS SELECT * FROM n2; DROP TABLE n2;"
                    "UPDATE GPU_METRICS SET value = NULL WHERE rowid % 97 = 0;"
                    "UPDATE GPU_METRICS SET value = 'x' WHERE rowid % 101 = 0;"
                    "UPDATE GPU_METRICS SET typeId = NULL WHERE rowid % 103 = 0;"
                    "UPDATE GPU_METRICS SET timestamp = NULL WHERE rowid % 107 = 0;"
                    "UPDATE GPU_METRICS SET timestamp = -4611686018427387904 WHERE rowid % 109 = 0;"
                    "UPDATE GPU_METRICS SET timestamp = timestamp - 5000000 WHERE rowid % 113 = 0;"
                    "INSERT INTO TARGET_INFO_GPU_METRICS VALUES (NULL, 2, 'GPU 0', 3, NULL);"
                    "INSERT INTO GPU_METRICS SELECT rawTimestamp, timestamp, typeId, 99, value "
                    "  FROM GPU_METRICS WHERE metricId = 0;"
                    "INSERT INTO GPU_METRICS SELECT rawTimestamp, timestamp, "
                    "  (typeId & ~255) | 7, metricId, value FROM GPU_METRICS WHERE metricId = 1 "
                    "  AND typeId & 255 = 0;");
  g_autoptr (SlTrace) trace = load (path);
  sqlite3 *db = open_rw (path);

  g_assert_true (warned (trace, "NULL value"));
  g_assert_true (warned (trace, "do not list"));
  g_assert_true (warned (trace, "Metric <metricId>"));
  g_assert_true (warned (trace, "73 years"));
  g_assert_cmpuint (sl_metrics_get_n_samples (trace), ==,
                    sl_test_sql_int (db, "SELECT count(*) FROM GPU_METRICS WHERE "
                                         "typeof(value) IN ('integer', 'real') AND typeId "
                                         "IS NOT NULL AND metricId IS NOT NULL AND timestamp IS "
                                         "NOT NULL"));
  gint gpu7 = sl_trace_find_gpu (trace, 7);
  g_assert_cmpint (gpu7, >=, 0);
  g_assert_cmpint (sl_metrics_find_series (trace, gpu7, "SYS Clock Frequency [MHz]"), >=, 0);
  g_assert_cmpint (sl_metrics_find_series (trace, 0, "Metric 99"), >=, 0);
  /* each series still in time order, the reports still computed */
  for (guint i = 0; i < sl_metrics_get_n_series (trace); i++)
    for (guint64 k = 1; k < sl_metrics_get_series (trace, i)->count; k++)
      g_assert_cmpint (sl_metrics_get_times (trace, i)[k - 1], <=, sl_metrics_get_times (trace, i)[k]);
  g_assert_true (_sl_metrics_check (trace));
  for (guint k = 0; k < 2; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlReport) r = sl_report_compute (trace, k ? "gpu_metrics_kern_sum" : "gpu_metrics_sum",
                                                  &error);
      g_assert_no_error (error);
      g_assert_cmpuint (sl_report_get_n_rows (r), >, 0);
    }
  sqlite3_close (db);

  /* a GPU_METRICS table alone, without names nor GPUs: every series "Metric <id>" */
  sl_test_exec_sql (path, "DROP TABLE TARGET_INFO_GPU_METRICS;");
  g_autoptr (SlTrace) bare = load (path);
  g_assert_cmpint (sl_metrics_find_series (bare, 0, "Metric 5"), >=, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/metrics/samples", test_samples);
  g_test_add_func ("/model/metrics/ranges", test_ranges);
  g_test_add_func ("/model/metrics/reports", test_reports);
  g_test_add_func ("/model/metrics/kernels", test_kernels);
  g_test_add_func ("/model/metrics/occupancy-from", test_occupancy_from);
  g_test_add_func ("/model/metrics/cache", test_cache);
  g_test_add_func ("/model/metrics/merge", test_merge);
  g_test_add_func ("/model/metrics/corrupt", test_corrupt);
  return g_test_run ();
}
