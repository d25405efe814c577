/* test-mpi.c: MPI calls read from nsys's MPI_* tables (and NVTX ranges of a domain "MPI") on
 * jobs sightline-gen --mpi writes: lanes against the tables' rows, the three MPI reports against
 * NVIDIA's SQL (mpi_event_sum.py, mpi_event_trace.py, mpi_msg_size_sum.py, with median() and
 * stdev() as extension-functions.c defines them), every send matched to its receive in a merged
 * 4-rank job, the straggler named by the MPI analysis, and damaged tables read without a crash. */
#include <sqlite3.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sl-analyze.h"
#include "sl-mpi.h"
#include "sl-sql-aggregates.h"
#include "sl-stats.h"
#include "sl-test-util.h"
#include "sl-trace-private.h"

#define N_RANKS   4
#define STRAGGLER 2

static char *job_dir;

/* The job's files: written once, by the real sightline-gen. */
static void
gen_job (const char *mode,
         const char *prefix)
{
  g_autofree char *out = g_strdup_printf ("%s/%s-%%r.sqlite", job_dir, prefix);
  g_autofree char *ranks = g_strdup_printf ("%d", N_RANKS);
  g_autofree char *straggler = g_strdup_printf ("%d", STRAGGLER);
  const char *argv[] = { SL_GEN_PATH, "-o", out, "-n", "30k", "--ranks", ranks, "--straggler",
                         straggler, mode, "--force", NULL };
  g_autofree char *err = NULL;
  gint status = 0;
  g_autoptr (GError) error = NULL;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                     &err, &status, &error))
    g_error ("sightline-gen: %s", error->message);
  if (!g_spawn_check_wait_status (status, &error))
    g_error ("sightline-gen %s: %s\n%s", mode, error->message, err);
}

static char *
rank_path (const char *prefix,
           int         rank)
{
  return g_strdup_printf ("%s/%s-%d.sqlite", job_dir, prefix, rank);
}

/* NVIDIA's three reports, the UNION ALL of the tables as their scripts build it; ties of ORDER BY
 * by source and name (the model's order; SQLite's is undocumented), the trace's by lane order
 * (one thread a file here: by start, then the table, as the lanes are made). */
#define EVENT_UNION                                                                               \
  "SELECT 'p2p' AS source, start, end, globalTid, textId, size, NULL AS collSendSize, "           \
  "NULL AS collRecvSize, tag, remoteRank, NULL AS rootRank, end - start AS duration "             \
  "FROM MPI_P2P_EVENTS UNION ALL "                                                                \
  "SELECT 'start-wait', start, end, globalTid, textId, NULL, NULL, NULL, NULL, NULL, NULL, "      \
  "end - start FROM MPI_START_WAIT_EVENTS UNION ALL "                                             \
  "SELECT 'other', start, end, globalTid, textId, NULL, NULL, NULL, NULL, NULL, NULL, "           \
  "end - start FROM MPI_OTHER_EVENTS UNION ALL "                                                  \
  "SELECT 'collectives', start, end, globalTid, textId, NULL, size, recvSize, NULL, NULL, "       \
  "rootRank, end - start FROM MPI_COLLECTIVES_EVENTS"

static const char *const oracle_event_sum =
  "WITH evts AS (" EVENT_UNION "), "
  "summary AS (SELECT source, textId, sum(duration) AS total, count(*) AS num, "
  "avg(duration) AS avg, median(duration) AS med, min(duration) AS min, max(duration) AS max, "
  "stdev(duration) AS stddev FROM evts GROUP BY 1, 2), "
  "totals AS (SELECT sum(total) AS total FROM summary) "
  "SELECT round(total * 100.0 / (SELECT total FROM totals), 1), total, num, round(avg, 1), "
  "round(med, 1), min, max, round(stddev, 1), source, s.value "
  "FROM summary AS sum LEFT JOIN StringIds AS s ON sum.textId == s.id "
  "ORDER BY 2 DESC, source, s.value";

static const char *const oracle_msg_size_sum =
  "WITH evts AS (SELECT 'p2p' AS source, size AS messageSize, globalTid, textId "
  "FROM MPI_P2P_EVENTS UNION ALL "
  "SELECT 'coll_send', size, globalTid, textId FROM MPI_COLLECTIVES_EVENTS "
  "WHERE size IS NOT NULL UNION ALL "
  "SELECT 'coll_recv', recvSize, globalTid, textId FROM MPI_COLLECTIVES_EVENTS "
  "WHERE recvSize IS NOT NULL), "
  "summary AS (SELECT source, textId, sum(messageSize) AS total, count(*) AS num, "
  "avg(messageSize) AS avg, median(messageSize) AS med, min(messageSize) AS min, "
  "max(messageSize) AS max, stdev(messageSize) AS stddev FROM evts GROUP BY 1, 2) "
  "SELECT total, num, round(avg, 1), round(med, 1), min, max, round(stddev, 1), source, s.value "
  "FROM summary AS sum LEFT JOIN StringIds AS s ON sum.textId == s.id "
  "ORDER BY 2 DESC, source, s.value";

static const char *const oracle_event_trace =
  "WITH evts AS (" EVENT_UNION ") "
  "SELECT e.start, e.end, e.end - e.start, s.value, (e.globalTid >> 24) & 0x00FFFFFF, "
  "e.globalTid & 0x00FFFFFF, e.tag, r.rank, e.remoteRank, e.rootRank, e.size, e.collSendSize, "
  "e.collRecvSize FROM evts AS e LEFT JOIN StringIds AS s ON e.textId == s.id "
  "LEFT JOIN MPI_RANKS AS r ON e.globalTid == r.globalTid ORDER BY 1";

static guint64
count_mpi_events (SlTrace *trace)
{
  guint64 n = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind == SL_LANE_MPI)
        n += lane->n_events;
    }
  return n;
}

/* Each rank's file alone: its lanes hold every row of the four tables, each report is NVIDIA's. */
static void
test_reports (void)
{
  for (int r = 0; r < N_RANKS; r++)
    {
      g_autofree char *path = rank_path ("job", r);
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      sqlite3 *db = sl_sql_open_oracle (path);

      g_assert_no_error (error);
      g_assert_cmpuint (count_mpi_events (trace), ==,
                        sl_test_sql_int (db, "SELECT (SELECT count(*) FROM MPI_P2P_EVENTS) "
                                     "+ (SELECT count(*) FROM MPI_COLLECTIVES_EVENTS) "
                                     "+ (SELECT count(*) FROM MPI_START_WAIT_EVENTS) "
                                     "+ (SELECT count(*) FROM MPI_OTHER_EVENTS)"));
      sl_sql_assert_report (db, trace, "mpi_event_sum", oracle_event_sum, path);
      sl_sql_assert_report (db, trace, "mpi_msg_size_sum", oracle_msg_size_sum, path);
      sl_sql_assert_report (db, trace, "mpi_event_trace", oracle_event_trace, path);
      sqlite3_close (db);
    }
}

/* A trace without MPI says so, as nsys's scripts do. */
static void
test_no_data (void)
{
  g_auto (GStrv) traces = sl_test_nsys_traces ();
  g_assert_nonnull (traces[0]);
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (traces[0], SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_mpi_events (trace), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      static const char *const names[] = { "mpi_event_sum", "mpi_event_trace",
                                           "mpi_msg_size_sum" };
      g_autoptr (GError) no = NULL;
      g_autoptr (SlReport) report = sl_report_compute (trace, names[i], &no);
      g_assert_null (report);
      g_assert_error (no, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
      g_assert_nonnull (strstr (no->message, "does not contain MPI event data"));
    }
}

static SlTrace *
load_job (const char *prefix)
{
  char *paths[N_RANKS];
  g_autoptr (GError) error = NULL;

  for (int r = 0; r < N_RANKS; r++)
    paths[r] = rank_path (prefix, r);
  SlTrace *trace = sl_trace_load_merged ((const char *const *) paths, N_RANKS, SL_LOAD_ALL, NULL,
                                         NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  for (int r = 0; r < N_RANKS; r++)
    g_free (paths[r]);
  return trace;
}

/* The merged job: every send has its receive, each pair agrees on communicator, tag, size and
 * ranks, and a send starts before its receive ends. */
static void
test_messages (void)
{
  g_autoptr (SlTrace) trace = load_job ("job");
  const SlMpiMessages *m = sl_trace_get_mpi_messages (trace);
  gint64 sends = 0;

  for (int r = 0; r < N_RANKS; r++)
    {
      g_autofree char *path = rank_path ("job", r);
      sqlite3 *db = sl_sql_open_oracle (path);
      sends += sl_test_sql_int (db, "SELECT count(*) FROM MPI_P2P_EVENTS AS p JOIN StringIds AS s "
                            "ON s.id = p.textId WHERE s.value LIKE '%send%'");
      sqlite3_close (db);
    }
  g_assert_cmpint (sends, >, 0);
  g_assert_cmpuint (m->n_sends, ==, (guint64) sends);
  g_assert_cmpuint (m->n_messages, ==, m->n_sends);
  g_assert_cmpuint (m->n_recvs, ==, m->n_sends);
  g_assert_cmpuint (m->n_unmatched_sends, ==, 0);
  g_assert_cmpuint (m->n_unmatched_recvs, ==, 0);
  for (gsize i = 0; i < m->n_messages; i++)
    {
      const SlLane *sl = sl_trace_get_lane (trace, m->messages[i].send.lane);
      const SlLane *rl = sl_trace_get_lane (trace, m->messages[i].recv.lane);
      const SlEvent *se = &sl->events[m->messages[i].send.index];
      const SlEvent *re = &rl->events[m->messages[i].recv.index];
      const SlMpiCall *s = sl_trace_get_mpi_call (trace, sl, se);
      const SlMpiCall *rc = sl_trace_get_mpi_call (trace, rl, re);
      g_assert_nonnull (s);
      g_assert_nonnull (rc);
      g_assert_cmpint (SL_MPI_DIR_OF (se->aux), ==, SL_MPI_DIR_SEND);
      g_assert_cmpint (SL_MPI_DIR_OF (re->aux), ==, SL_MPI_DIR_RECV);
      g_assert_cmpint (s->comm, ==, rc->comm);
      g_assert_cmpint (s->tag, ==, rc->tag);
      g_assert_cmpint (s->size, ==, rc->size);
      g_assert_cmpint (s->peer, ==, rc->rank);
      g_assert_cmpint (rc->peer, ==, s->rank);
      g_assert_cmpint (s->rank, !=, rc->rank);
      g_assert_cmpint (sl->source, !=, rl->source);
      g_assert_true (sl_mpi_find_message (m, m->messages[i].recv) == &m->messages[i]);
    }
}

/* The MPI rule names the straggler: the rank the others wait for in MPI. */
static void
test_straggler (void)
{
  g_autoptr (SlTrace) trace = load_job ("job");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlMpiSummary) sum = sl_mpi_summarize (trace, G_MININT64, G_MAXINT64);

  g_assert_nonnull (sum);
  g_assert_cmpuint (sum->n_ranks, ==, N_RANKS);
  g_assert_cmpint (sum->straggler, ==, STRAGGLER);
  /* each rank's wait is within its MPI time, its overlap within its MPI time */
  for (guint i = 0; i < sum->n_ranks; i++)
    {
      const SlMpiRankFigures *f = &sum->ranks[i];
      g_assert_cmpint (f->wait, <=, f->mpi);
      g_assert_cmpint (f->overlap, <=, f->mpi);
      g_assert_cmpint (f->overlap, >=, 0);
      if (f->rank != STRAGGLER)
        g_assert_cmpint (f->wait, >, sum->ranks[STRAGGLER].wait);
    }
  const char *const rules[] = { "mpi_straggler", NULL };
  SlAnalysis *analysis = sl_analyze (trace, rules, NULL, &error);
  g_assert_no_error (error);
  gboolean named = FALSE;
  for (guint i = 0; i < analysis->findings->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (analysis->findings, i);
      if (strcmp (f->rule->name, "mpi_straggler") == 0)
        named |= strstr (f->summary, "rank 2 is the MPI straggler") != NULL;
    }
  sl_analysis_free (analysis);
  g_assert_true (named);
}

/* MPI as NVTX ranges of a domain "MPI": the same calls on MPI lanes, no details, no reports. */
static void
test_nvtx (void)
{
  g_autofree char *path = rank_path ("nvtx", 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  sqlite3 *db = sl_sql_open_oracle (path);

  g_assert_no_error (error);
  gint64 want = sl_test_sql_int (db, "SELECT count(*) FROM NVTX_EVENTS AS n WHERE n.eventType = 59 "
                             "AND n.domainId = (SELECT domainId FROM NVTX_EVENTS "
                             "WHERE eventType = 75 AND text = 'MPI')");
  g_assert_cmpint (want, >, 0);
  g_assert_cmpuint (count_mpi_events (trace), ==, (guint64) want);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_MPI && k < lane->n_events; k++)
        {
          g_assert_cmpint (SL_MPI_SOURCE_OF (lane->events[k].aux), ==, SL_MPI_NVTX);
          g_assert_true (g_str_has_prefix (sl_trace_str (trace, lane->events[k].name), "MPI_"));
        }
    }
  g_autoptr (GError) no = NULL;
  g_autoptr (SlReport) report = sl_report_compute (trace, "mpi_event_sum", &no);
  g_assert_null (report);
  g_assert_error (no, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
  sqlite3_close (db);
}

/* Damaged tables: NULL threads and times, text where numbers go, absurd ranks and sizes, a table
 * without its columns: rows skipped or details dropped, never a crash. */
static void
test_bad_input (void)
{
  g_autofree char *path = g_build_filename (job_dir, "bad.sqlite", NULL);
  sqlite3 *db = NULL;
  char *message = NULL;

  g_unlink (path);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  if (sqlite3_exec (db,
                    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                    "INSERT INTO StringIds VALUES (1, 'MPI_Send'), (2, 'MPI_Recv');"
                    "CREATE TABLE MPI_RANKS (globalTid INTEGER, rank INTEGER);"
                    "INSERT INTO MPI_RANKS VALUES (281479271743489, 0), ('x', 'y'), "
                    "(281479271743490, 99999999999);"
                    "CREATE TABLE MPI_P2P_EVENTS (start INTEGER NOT NULL, end INTEGER, "
                    "globalTid INTEGER, textId INTEGER, commHandle INTEGER, tag INTEGER, "
                    "remoteRank INTEGER, size INTEGER, requestHandle INTEGER);"
                    "INSERT INTO MPI_P2P_EVENTS VALUES "
                    "(100, 200, 281479271743489, 1, 1, 7, 1, 64, NULL),"
                    "(300, NULL, 281479271743489, 1, 1, 7, 1, 64, NULL),"
                    "(400, 500, NULL, 1, 1, 7, 1, 64, NULL),"
                    "(600, 700, 281479271743489, 999, 'c', 99999999999, -5, -64, 'r'),"
                    "(800, 750, 281479271743489, 2, NULL, NULL, NULL, NULL, NULL),"
                    "('a', 'b', 281479271743489, 2, 1, 1, 1, 1, 1);"
                    "CREATE TABLE MPI_COLLECTIVES_EVENTS (start INTEGER, textId INTEGER);"
                    "INSERT INTO MPI_COLLECTIVES_EVENTS VALUES (1, 1);"
                    "CREATE TABLE MPI_OTHER_EVENTS (start INTEGER, end INTEGER, globalTid INTEGER);"
                    "INSERT INTO MPI_OTHER_EVENTS VALUES (10, 20, 281479271743489);"
                    "CREATE TABLE MPI_COMMUNICATORS (rank INTEGER);",
                    NULL, NULL, &message) != SQLITE_OK)
    g_error ("%s", message);
  sqlite3_close (db);

  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  /* kept: 100-200, 600-700 (details dropped), 800 (end repaired), MPI_OTHER's row */
  g_assert_cmpuint (count_mpi_events (trace), ==, 4);
  g_assert_cmpuint (sl_trace_get_n_mpi_calls (trace), ==, 4);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_MPI && k < lane->n_events; k++)
        {
          const SlMpiCall *c = sl_trace_get_mpi_call (trace, lane, &lane->events[k]);
          g_assert_nonnull (c);
          if (lane->events[k].start == 600)
            g_assert_cmpuint (c->flags & (SL_MPI_HAS_TAG | SL_MPI_HAS_SIZE | SL_MPI_HAS_COMM
                                          | SL_MPI_HAS_REQUEST), ==, 0);
          g_free (sl_mpi_describe (trace, lane, &lane->events[k]));
        }
    }
  const SlMpiMessages *m = sl_trace_get_mpi_messages (trace);
  g_assert_cmpuint (m->n_messages, ==, 0);
  g_autoptr (GError) e2 = NULL;
  g_autoptr (SlReport) report = sl_report_compute (trace, "mpi_event_trace", &e2);
  g_assert_no_error (e2);
  g_assert_cmpuint (sl_report_get_n_rows (report), ==, 4);
}

/* The model cache keeps MPI lanes and their details: a second load reads them back (a hit) and
 * gives the same report and the same calls. */
static void
test_cache (void)
{
  g_autofree char *path = rank_path ("job", 1);
  g_autofree char *home = g_build_filename (job_dir, "cache-home", NULL);
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
  g_assert_cmpuint (sl_trace_get_n_mpi_calls (cached), ==, sl_trace_get_n_mpi_calls (fresh));
  g_assert_cmpuint (sl_trace_get_n_mpi_calls (cached), >, 0);
  g_autoptr (SlReport) a = sl_report_compute (fresh, "mpi_event_trace", &error);
  g_assert_no_error (error);
  g_autoptr (SlReport) b = sl_report_compute (cached, "mpi_event_trace", &error);
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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  job_dir = g_build_filename (sl_test_tmpdir (), "mpi", NULL);
  g_mkdir_with_parents (job_dir, 0700);
  gen_job ("--mpi", "job");
  gen_job ("--mpi=nvtx", "nvtx");
  g_test_add_func ("/mpi/reports", test_reports);
  g_test_add_func ("/mpi/no-data", test_no_data);
  g_test_add_func ("/mpi/messages", test_messages);
  g_test_add_func ("/mpi/straggler", test_straggler);
  g_test_add_func ("/mpi/nvtx", test_nvtx);
  g_test_add_func ("/mpi/bad-input", test_bad_input);
  g_test_add_func ("/mpi/cache", test_cache);
  int rc = g_test_run ();
  g_free (job_dir);
  return rc;
}
