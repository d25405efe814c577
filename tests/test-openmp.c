/* test-openmp.c: OpenMP and OpenACC read from nsys's OPENMP_EVENT_KIND_* and
 * CUPTI_ACTIVITY_KIND_OPENACC_* tables on traces sightline-gen --openmp --openacc writes: each
 * table's rows as events of the OpenMP / OpenACC lanes with their details (a parallel region's team
 * and source line, the loops' counts, the data events' bytes and variables, the launches' gangs),
 * nested by depth on the primary thread; openmp_sum and openacc_sum against NVIDIA's SQL
 * (openmp_sum.py, openacc_sum.py, with median() and stdev() as extension-functions.c defines
 * them); a merged pair of files; a damaged file (missing columns, NULLs, absurd values) read
 * without a crash; the model cache's round trip.  The recording of a real libomp program read back
 * through the model is tests/test-record-openmp.c's. */
#include <sqlite3.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sl-display-name.h"
#include "sl-openmp.h"
#include "sl-sql-aggregates.h"
#include "sl-stats.h"
#include "sl-test-util.h"
#include "sl-trace-private.h"

static char *dir;

static char *
gen_trace (const char *name,
           const char *seed)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_auto (SlTestRun) run = { 0 };
  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "20k", "--seed", seed, "--openmp",
               "--openacc", "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  return g_steal_pointer (&path);
}

/* NVIDIA's openmp_sum over the OPENMP_EVENT_KIND_* tables the file has, with each group's table
 * (its SlOmpSource) kept to order ties as the model does: by name, then table. */
static char *
oracle_openmp_sum (sqlite3 *db)
{
  GString *u = g_string_new (NULL);
  for (guint s = 0; s < SL_OMP_FIRST_ACC; s++)
    {
      const char *t = sl_omp_source_table (s);
      g_autofree char *q = g_strdup_printf ("SELECT count(*) FROM sqlite_master WHERE name = '%s'",
                                            t);
      if (sl_test_sql_int (db, q) == 0)
        continue;
      g_string_append_printf (u, "%sSELECT %u AS tbl, nameId, count(*) AS num, "
                                 "sum(end - start) AS total, avg(end - start) AS avg, "
                                 "median(end - start) AS med, min(end - start) AS min, "
                                 "max(end - start) AS max, stdev(end - start) AS stddev "
                                 "FROM %s GROUP BY 2",
                              u->len > 0 ? " UNION ALL " : "", s, t);
    }
  g_autofree char *union_sql = g_string_free (u, FALSE);
  return g_strdup_printf (
      "WITH summary AS (%s), totals AS (SELECT sum(total) AS total FROM summary) "
      "SELECT round(summary.total * 100.0 / (SELECT total FROM totals), 1), summary.total, "
      "summary.num, round(summary.avg, 1), round(summary.med, 1), summary.min, summary.max, "
      "round(summary.stddev, 1), ids.value FROM summary "
      "LEFT JOIN StringIds AS ids ON ids.id == summary.nameId "
      "ORDER BY 2 DESC, ids.value, summary.tbl", union_sql);
}

/* NVIDIA's openacc_sum, ties by name. */
static const char *const oracle_openacc_sum =
  "WITH openacc AS ("
  "SELECT start, end, nameId, eventKind, lineNo, srcFile FROM CUPTI_ACTIVITY_KIND_OPENACC_DATA "
  "UNION ALL SELECT start, end, nameId, eventKind, lineNo, srcFile "
  "FROM CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH "
  "UNION ALL SELECT start, end, nameId, eventKind, lineNo, srcFile "
  "FROM CUPTI_ACTIVITY_KIND_OPENACC_OTHER), "
  "summary AS (SELECT CASE WHEN srcFile NOT NULL "
  "THEN nameIds.value || '@' || srcFileIds.value || ':' || lineNo ELSE nameIds.value END AS name, "
  "sum(end - start) AS total, count(*) AS num, avg(end - start) AS avg, "
  "median(end - start) AS med, min(end - start) AS min, max(end - start) AS max, "
  "stdev(end - start) AS stddev FROM openacc "
  "LEFT JOIN StringIds AS srcFileIds ON srcFileIds.id == srcFile "
  "LEFT JOIN StringIds AS nameIds ON nameIds.id == nameId GROUP BY 1), "
  "totals AS (SELECT sum(total) AS total FROM summary) "
  "SELECT round(summary.total * 100.0 / (SELECT total FROM totals), 1), summary.total, "
  "summary.num, round(summary.avg, 1), round(summary.med, 1), summary.min, summary.max, "
  "round(summary.stddev, 1), name FROM summary ORDER BY 2 DESC, name";

/* The events of each table in the model, and sums of their details. */
typedef struct
{
  guint64 n[SL_OMP_N_SOURCES];
  gint64  loop_iterations;   /* WORKSHARE counts */
  gint64  acc_bytes;         /* OpenACC DATA bytes */
  gint64  gangs;             /* OpenACC LAUNCH numGangs */
  guint   regions_checked;
} Tally;

static void
tally (SlTrace *trace,
       Tally   *t)
{
  memset (t, 0, sizeof *t);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_OPENMP && lane->kind != SL_LANE_OPENACC)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          const SlOmpEvent *o = sl_trace_get_omp_event (trace, lane, ev);
          g_assert_nonnull (o);
          g_assert_cmpuint (ev->aux, <, SL_OMP_N_SOURCES);
          g_assert_cmpint (SL_OMP_IS_ACC (ev->aux), ==, lane->kind == SL_LANE_OPENACC);
          t->n[ev->aux]++;
          g_free (sl_omp_describe (trace, lane, ev));
          switch (ev->aux)
            {
            case SL_OMP_PARALLEL:
              {
                /* sightline-gen's regions: data.c:42 has a team of 4, data.c:57 of 2; on the
                 * primary thread, outermost */
                g_assert_true (o->flags & SL_OMP_HAS_THREADS);
                g_assert_true (o->flags & SL_OMP_LINE_OF_NAME);
                g_assert_cmpstr (sl_trace_str (trace, o->file), ==, "data.c");
                g_assert_cmpint (o->threads, ==, o->line == 42 ? 4 : 2);
                g_assert_cmpstr (sl_trace_str (trace, o->func), ==,
                                 o->line == 42 ? "preprocess" : "augment");
                g_assert_cmpuint (lane->depth, ==, 0);
                t->regions_checked++;
                break;
              }
            case SL_OMP_TASK:
              g_assert_cmpint (o->kind, ==, 2);
              g_assert_cmpstr (sl_omp_kind_label (ev->aux, o->kind), ==, "Implicit task");
              g_assert_true ((o->flags & (SL_OMP_HAS_PARALLEL | SL_OMP_HAS_TASK))
                             == (SL_OMP_HAS_PARALLEL | SL_OMP_HAS_TASK));
              break;
            case SL_OMP_WORKSHARE:
              g_assert_cmpstr (sl_omp_kind_label (ev->aux, o->kind), ==, "Loop region");
              t->loop_iterations += o->count;
              break;
            case SL_ACC_DATA:
              g_assert_cmpstr (sl_trace_str (trace, o->var), ==, o->line == 88 ? "grid" : "err");
              t->acc_bytes += o->count;
              break;
            case SL_ACC_LAUNCH:
              g_assert_cmpint (o->gangs, ==, o->line == 88 ? 1024 : 256);
              g_assert_cmpint (o->workers, ==, 1);
              g_assert_cmpint (o->vector, ==, o->line == 88 ? 128 : 256);
              g_assert_cmpstr (sl_omp_kind_label (ev->aux, o->kind), ==, "Enqueue launch");
              t->gangs += o->gangs;
              break;
            default:
              break;
            }
          if (SL_OMP_IS_ACC (ev->aux))
            {
              g_assert_cmpstr (sl_trace_str (trace, o->file), ==, "solver.c");
              g_assert_cmpstr (sl_trace_str (trace, o->func), ==,
                               o->line == 88 ? "jacobi" : "residual");
              g_assert_cmpint (o->end_line, ==, o->line == 88 ? 104 : 121);
              g_assert_cmpstr (sl_omp_construct_label (o->construct), ==, "parallel");
            }
        }
    }
}

/* Each table's rows are the model's events, with their details. */
static void
test_read (void)
{
  g_autofree char *path = gen_trace ("omp.sqlite", "3");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sqlite3 *db = sl_sql_open_oracle (path);
  Tally t;

  tally (trace, &t);
  for (guint s = 0; s < SL_OMP_N_SOURCES; s++)
    {
      const char *table = sl_omp_source_table (s);
      g_autofree char *exists = g_strdup_printf ("SELECT count(*) FROM sqlite_master "
                                                 "WHERE name = '%s'", table);
      g_autofree char *count = g_strdup_printf ("SELECT count(*) FROM %s", table);
      gint64 rows = sl_test_sql_int (db, exists) > 0 ? sl_test_sql_int (db, count) : 0;
      g_test_message ("%s: %" G_GINT64_FORMAT " rows", table, rows);
      g_assert_cmpuint (t.n[s], ==, (guint64) rows);
    }
  g_assert_cmpuint (t.n[SL_OMP_PARALLEL], >, 10);
  g_assert_cmpuint (t.n[SL_ACC_LAUNCH], >, 10);
  g_assert_cmpuint (t.regions_checked, ==, t.n[SL_OMP_PARALLEL]);
  g_assert_cmpint (t.loop_iterations, ==,
                   sl_test_sql_int (db, "SELECT sum(count) FROM OPENMP_EVENT_KIND_WORKSHARE"));
  g_assert_cmpint (t.acc_bytes, ==,
                   sl_test_sql_int (db, "SELECT sum(bytes) FROM CUPTI_ACTIVITY_KIND_OPENACC_DATA"));
  g_assert_cmpint (t.gangs, ==,
                   sl_test_sql_int (db, "SELECT sum(numGangs) FROM "
                                        "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH"));
  /* a region's team: as many implicit tasks as the model says threads, each on its own thread */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OPENMP_EVENT_KIND_PARALLEL p "
                                "JOIN StringIds s ON s.id = p.nameId WHERE (SELECT "
                                "count(DISTINCT t.globalTid) FROM OPENMP_EVENT_KIND_TASK t "
                                "WHERE t.parallelId = p.parallelId) != "
                                "CASE WHEN s.value LIKE '%data.c:42)' THEN 4 ELSE 2 END"),
                   ==, 0);
  /* the lanes' labels and the events table's text */
  gboolean saw_omp = FALSE, saw_acc = FALSE;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind == SL_LANE_OPENMP && lane->depth == 0 && lane->n_events > 1)
        {
          g_assert_cmpstr (sl_lane_display_title (trace, lane), ==, "OpenMP");
          saw_omp = TRUE;
        }
      if (lane->kind == SL_LANE_OPENACC && lane->depth == 0)
        {
          g_assert_cmpstr (sl_lane_display_title (trace, lane), ==, "OpenACC");
          g_autofree char *d = sl_omp_describe (trace, lane, &lane->events[0]);
          g_assert_nonnull (strstr (d, "line solver.c:"));
          saw_acc = TRUE;
        }
    }
  g_assert_true (saw_omp && saw_acc);
  sqlite3_close (db);
}

/* openmp_sum and openacc_sum are NVIDIA's; a trace without their tables says so, naming the
 * file. */
static void
test_reports (void)
{
  const char *seeds[] = { "3", "11" };
  for (guint i = 0; i < G_N_ELEMENTS (seeds); i++)
    {
      g_autofree char *name = g_strdup_printf ("omp-%s.sqlite", seeds[i]);
      g_autofree char *path = gen_trace (name, seeds[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      sqlite3 *db = sl_sql_open_oracle (path);
      g_autofree char *omp_sql = oracle_openmp_sum (db);
      sl_sql_assert_report (db, trace, "openmp_sum", omp_sql, path);
      sl_sql_assert_report (db, trace, "openacc_sum", oracle_openacc_sum, path);
      sqlite3_close (db);
    }

  g_autofree char *plain = g_build_filename (dir, "plain.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };
  sl_test_run (&run, SL_GEN_PATH, "-o", plain, "-n", "5k", "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (plain, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  const char *reports[] = { "openmp_sum", "openacc_sum" };
  for (guint i = 0; i < G_N_ELEMENTS (reports); i++)
    {
      g_autoptr (GError) e = NULL;
      g_autoptr (SlReport) r = sl_report_compute (trace, reports[i], &e);
      g_assert_null (r);
      g_assert_error (e, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
      g_assert_nonnull (strstr (e->message, plain));
      g_assert_nonnull (strstr (e->message, i == 0 ? "OpenMP" : "OpenACC"));
    }
}

/* Two files merged: every event keeps its details, the strings they name the merged trace's. */
static void
test_merged (void)
{
  g_autofree char *a = gen_trace ("merge-a.sqlite", "5");
  g_autofree char *b = gen_trace ("merge-b.sqlite", "6");
  const char *paths[] = { a, b };
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) merged = sl_trace_load_merged (paths, 2, SL_LOAD_ALL, NULL, NULL, NULL, NULL,
                                                     &error);
  g_assert_no_error (error);
  g_autoptr (SlTrace) ta = sl_trace_load (a, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlTrace) tb = sl_trace_load (b, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  Tally tm, t1, t2;
  tally (merged, &tm);   /* checks every event's file, function, variable and team */
  tally (ta, &t1);
  tally (tb, &t2);
  for (guint s = 0; s < SL_OMP_N_SOURCES; s++)
    g_assert_cmpuint (tm.n[s], ==, t1.n[s] + t2.n[s]);
  g_assert_cmpuint (sl_trace_get_n_omp_events (merged), ==,
                    sl_trace_get_n_omp_events (ta) + sl_trace_get_n_omp_events (tb));
}

/* A damaged file: a table without nameId or its own columns, NULLs, text where numbers go,
 * absurd kinds, lines and sizes, a row without a thread, a table without start: read without a
 * crash, the bad details left out, a warning for each table with such rows. */
static void
test_bad_input (void)
{
  g_autofree char *path = g_build_filename (dir, "bad.sqlite", NULL);
  sqlite3 *db = NULL;
  char *message = NULL;

  g_unlink (path);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  if (sqlite3_exec (db,
                    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                    "INSERT INTO StringIds VALUES (1, 'omp parallel: f (a.c:7)'), "
                    "(2, 'omp parallel: g (b.c:)'), (3, 'Enqueue Upload'), (4, 'x.c'), "
                    "(5, 'omp parallel (:99999999999)');"
                    /* an old layout: no nameId, no parentTaskId */
                    "CREATE TABLE OPENMP_EVENT_KIND_PARALLEL (start INTEGER, end INTEGER, "
                    "globalTid INTEGER, parallelId INTEGER);"
                    "INSERT INTO OPENMP_EVENT_KIND_PARALLEL VALUES "
                    "(100, 200, 281479271743489, 1), (300, NULL, 281479271743489, 2), "
                    "(400, 500, NULL, 3), (600, 550, 281479271743489, 'p');"
                    "CREATE TABLE OPENMP_EVENT_KIND_TASK (start INTEGER, end INTEGER, "
                    "globalTid INTEGER, nameId INTEGER, parallelId INTEGER, taskId INTEGER, "
                    "kind INTEGER);"
                    "INSERT INTO OPENMP_EVENT_KIND_TASK VALUES "
                    "(110, 190, 281479271743489, 1, 1, 1, 2), "
                    "(120, 180, 281479271743490, 2, 1, 2, 2), "
                    "(130, 170, 281479271743491, 5, 1, 3, 99999999999), "
                    "('a', 'b', 281479271743489, 1, 1, 1, 1);"
                    "CREATE TABLE OPENMP_EVENT_KIND_WORKSHARE (start INTEGER, end INTEGER, "
                    "globalTid INTEGER, nameId INTEGER, kind INTEGER, count INTEGER);"
                    "INSERT INTO OPENMP_EVENT_KIND_WORKSHARE VALUES "
                    "(140, 160, 281479271743489, 999, 1, -5);"
                    "CREATE TABLE OPENMP_EVENT_KIND_FLUSH (end INTEGER, globalTid INTEGER);"
                    "INSERT INTO OPENMP_EVENT_KIND_FLUSH VALUES (1, 281479271743489);"
                    "CREATE TABLE CUPTI_ACTIVITY_KIND_OPENACC_DATA (start INTEGER, end INTEGER, "
                    "globalTid INTEGER, nameId INTEGER, eventKind INTEGER, lineNo INTEGER, "
                    "srcFile INTEGER, bytes INTEGER);"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_OPENACC_DATA VALUES "
                    "(700, 800, 281479271743489, 3, 5, 12, 4, 4096), "
                    "(810, 820, 281479271743489, 3, 5, NULL, 4, -1), "
                    "(830, 840, 281479271743489, 3, 'k', 'l', 'f', 'b');",
                    NULL, NULL, &message) != SQLITE_OK)
    g_error ("%s", message);
  sqlite3_close (db);

  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  Tally t = { 0 };
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_OPENMP && lane->kind != SL_LANE_OPENACC)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          const SlOmpEvent *o = sl_trace_get_omp_event (trace, lane, ev);
          g_assert_nonnull (o);
          t.n[ev->aux]++;
          g_free (sl_omp_describe (trace, lane, ev));
          g_free (sl_omp_where (trace, o));
          if (ev->aux == SL_OMP_PARALLEL && ev->start == 100)
            {
              /* no name: no line; its team: the two implicit tasks of kind 2 */
              g_assert_false (o->flags & SL_OMP_HAS_LINE);
              g_assert_cmpint (o->threads, ==, 2);
            }
          if (ev->aux == SL_OMP_PARALLEL && ev->start == 600)
            g_assert_false (o->flags & SL_OMP_HAS_PARALLEL);
          if (ev->aux == SL_OMP_TASK && ev->start == 110)
            {
              g_assert_cmpint (o->line, ==, 7);
              g_assert_cmpstr (sl_trace_str (trace, o->file), ==, "a.c");
              g_assert_cmpstr (sl_trace_str (trace, o->func), ==, "f");
            }
          if (ev->aux == SL_OMP_TASK && ev->start != 110)
            g_assert_false (o->flags & SL_OMP_HAS_LINE);   /* "b.c:", a line past 2^31 */
          if (ev->aux == SL_OMP_TASK && ev->start == 130)
            g_assert_false (o->flags & SL_OMP_HAS_KIND);
          if (ev->aux == SL_OMP_WORKSHARE)
            g_assert_false (o->flags & SL_OMP_HAS_COUNT);
          if (ev->aux == SL_ACC_DATA && ev->start == 700)
            {
              g_assert_cmpint (o->count, ==, 4096);
              g_autofree char *w = sl_omp_where (trace, o);
              g_assert_cmpstr (w, ==, "x.c:12");
            }
          if (ev->aux == SL_ACC_DATA && ev->start != 700)
            g_assert_false (o->flags & SL_OMP_HAS_COUNT);
        }
    }
  /* kept: PARALLEL 100 and 600 (end repaired), 3 TASK rows, the loop, 3 OpenACC rows */
  g_assert_cmpuint (t.n[SL_OMP_PARALLEL], ==, 2);
  g_assert_cmpuint (t.n[SL_OMP_TASK], ==, 3);
  g_assert_cmpuint (t.n[SL_OMP_WORKSHARE], ==, 1);
  g_assert_cmpuint (t.n[SL_OMP_FLUSH], ==, 0);
  g_assert_cmpuint (t.n[SL_ACC_DATA], ==, 3);
  gboolean warned = FALSE;
  const char *const *warnings = sl_trace_get_warnings (trace);
  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    warned |= strstr (warnings[i], "CUPTI_ACTIVITY_KIND_OPENACC_DATA") != NULL
              && strstr (warnings[i], "left out") != NULL;
  g_assert_true (warned);
  for (const char *const *r = (const char *const[]) { "openmp_sum", "openacc_sum", NULL };
       *r != NULL; r++)
    {
      g_autoptr (GError) e = NULL;
      g_autoptr (SlReport) report = sl_report_compute (trace, *r, &e);
      g_assert_no_error (e);
      g_assert_cmpuint (sl_report_get_n_rows (report), >, 0);
    }
}

/* The model cache keeps the lanes and every detail: a second load reads them back (a hit). */
static void
test_cache (void)
{
  g_autofree char *path = gen_trace ("cache.sqlite", "9");
  g_autofree char *home = g_build_filename (dir, "cache-home", NULL);
  SlCacheStats before, after;

  g_setenv ("XDG_CACHE_HOME", home, TRUE);
  g_setenv ("SIGHTLINE_CACHE", "1", TRUE);
  g_setenv ("SIGHTLINE_CACHE_MIN_MS", "0", TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) fresh = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  _sl_trace_cache_get_stats (&before);
  g_autoptr (SlTrace) cached = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  _sl_trace_cache_get_stats (&after);
  g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
  g_assert_cmpuint (after.hits, ==, before.hits + 1);
  g_assert_cmpuint (sl_trace_get_n_omp_events (cached), ==, sl_trace_get_n_omp_events (fresh));
  g_assert_cmpuint (sl_trace_get_n_omp_events (cached), >, 0);
  g_assert_cmpuint (sl_trace_get_n_lanes (cached), ==, sl_trace_get_n_lanes (fresh));
  for (guint i = 0; i < sl_trace_get_n_lanes (fresh); i++)
    {
      const SlLane *x = sl_trace_get_lane (fresh, i), *y = sl_trace_get_lane (cached, i);
      g_assert_cmpint (x->kind, ==, y->kind);
      g_assert_cmpuint (x->n_events, ==, y->n_events);
      if (x->kind != SL_LANE_OPENMP && x->kind != SL_LANE_OPENACC)
        continue;
      for (gsize k = 0; k < x->n_events; k++)
        {
          g_autofree char *a = sl_omp_describe (fresh, x, &x->events[k]);
          g_autofree char *b = sl_omp_describe (cached, y, &y->events[k]);
          g_assert_cmpstr (a, ==, b);
          const SlOmpEvent *p = sl_trace_get_omp_event (fresh, x, &x->events[k]);
          const SlOmpEvent *q = sl_trace_get_omp_event (cached, y, &y->events[k]);
          g_assert_cmpmem (p, sizeof *p, q, sizeof *q);
        }
    }
  Tally t;
  tally (cached, &t);
  const char *reports[] = { "openmp_sum", "openacc_sum" };
  for (guint i = 0; i < G_N_ELEMENTS (reports); i++)
    {
      g_autoptr (SlReport) a = sl_report_compute (fresh, reports[i], &error);
      g_assert_no_error (error);
      g_autoptr (SlReport) b = sl_report_compute (cached, reports[i], &error);
      g_assert_no_error (error);
      g_assert_cmpuint (sl_report_get_n_rows (a), ==, sl_report_get_n_rows (b));
      for (gsize r = 0; r < sl_report_get_n_rows (a); r++)
        for (guint c = 0; c < sl_report_get_n_columns (a); c++)
          {
            const SlCell *x = sl_report_get_cell (a, r, c), *y = sl_report_get_cell (b, r, c);
            g_assert_cmpint (x->type, ==, y->type);
            if (x->type == SL_CELL_INT)
              g_assert_cmpint (x->v.i, ==, y->v.i);
            else if (x->type == SL_CELL_TEXT)
              g_assert_cmpstr (x->v.s, ==, y->v.s);
          }
    }
}

/* Where a region's name says it is. */
static void
test_parse_where (void)
{
  g_autofree char *file = NULL, *func = NULL;
  gint32 line = 0;

  g_assert_true (sl_omp_parse_where ("omp parallel: main (dir/omp.c:42)", &file, &func, &line));
  g_assert_cmpstr (file, ==, "dir/omp.c");
  g_assert_cmpstr (func, ==, "main");
  g_assert_cmpint (line, ==, 42);
  g_clear_pointer (&file, g_free);
  g_clear_pointer (&func, g_free);
  g_assert_true (sl_omp_parse_where ("(x.c:1)", &file, &func, &line));
  g_assert_cmpstr (file, ==, "x.c");
  g_assert_null (func);
  g_clear_pointer (&file, g_free);
  const char *bad[] = { "omp parallel", "omp parallel (x.c)", "(x.c:0)", "(x.c:-3)", "(:5)",
                        "(x.c:12a)", "(x.c:99999999999)", "", ")", "x.c:5)" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_false (sl_omp_parse_where (bad[i], &file, &func, &line));
  g_assert_false (sl_omp_parse_where (NULL, &file, &func, &line));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  dir = g_build_filename (sl_test_tmpdir (), "openmp", NULL);
  g_mkdir_with_parents (dir, 0700);
  g_test_add_func ("/openmp/parse-where", test_parse_where);
  g_test_add_func ("/openmp/read", test_read);
  g_test_add_func ("/openmp/reports", test_reports);
  g_test_add_func ("/openmp/merged", test_merged);
  g_test_add_func ("/openmp/bad-input", test_bad_input);
  g_test_add_func ("/openmp/cache", test_cache);
  int rc = g_test_run ();
  g_free (dir);
  return rc;
}
