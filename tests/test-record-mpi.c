/* test-record-mpi.c: MPI recorded through PMPI (`sightline record -t mpi`, sl-inject-mpi.c):
 * tests/targets/sl-mpi-ring on 4 ranks of Open MPI's mpirun, one `sightline record` per rank
 * writing trace-%q{OMPI_COMM_WORLD_RANK}.sqlite.  Every call the program counts is in its
 * rank's trace (the count by function equals the program's own), every send has its receive
 * (sender, receiver, tag and size, by SQL over the four files), the tables are those
 * /tmp/mpi-schema.sql of issue 33 names, and each file says its rank (MPI_RANKS,
 * MPI_COMMUNICATORS).  Then the other way: one `sightline record` around mpirun, the four ranks in
 * one file, told apart by MPI_RANKS (what MPICH's launcher needs: its ranks find their launcher
 * through an inherited file descriptor, which a program the daemon starts does not have).
 * Skipped, saying so, where CMake found no MPI. */
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sl-test-util.h"

#define N_RANKS 4
#define STEPS   1000

#ifdef SL_MPI_RING_PATH
/* mpirun as root (CI): Open MPI refuses unless told twice */
static char **
mpi_environ (const char *runtime_dir)
{
  char **env = g_get_environ ();

  env = g_environ_setenv (env, "OMPI_ALLOW_RUN_AS_ROOT", "1", TRUE);
  env = g_environ_setenv (env, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", TRUE);
  env = g_environ_setenv (env, "SIGHTLINE_RUNTIME_DIR", runtime_dir, TRUE);
  return env;
}

/* Runs the ring under mpirun, each rank through `sightline record` (around: `sightline record`
 * around mpirun, into all.sqlite); its output in *out */
static int
run_ring (const char *dir,
          gboolean    around,
          char      **out)
{
  g_autofree char *runtime_dir = g_build_filename (dir, "run", NULL);
  g_autofree char *pattern = g_build_filename (dir, "trace-%q{OMPI_COMM_WORLD_RANK}.sqlite",
                                               NULL);
  g_autofree char *all = g_build_filename (dir, "all.sqlite", NULL);
  g_autofree char *steps = g_strdup_printf ("%d", STEPS);
  g_autofree char *np = g_strdup_printf ("%d", N_RANKS);
  const char *per_rank[] = { SL_MPIRUN, "--oversubscribe", "-np", np, SL_SIGHTLINE_PATH, "record",
                             "-t", "mpi", "-s", "none", "--sched", "off", "-o", pattern,
                             SL_MPI_RING_PATH, steps, "64", NULL };
  const char *outside[] = { SL_SIGHTLINE_PATH, "record", "-t", "mpi", "-s", "none", "--sched",
                            "off", "-o", all, SL_MPIRUN, "--oversubscribe", "-np", np,
                            SL_MPI_RING_PATH, steps, "64", NULL };
  const char **argv = around ? outside : per_rank;
  g_auto (GStrv) env = mpi_environ (runtime_dir);
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  int status = -1;

  g_assert_cmpint (g_mkdir_with_parents (runtime_dir, 0700), ==, 0);
  g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, out, &err, &status,
                &error);
  g_assert_no_error (error);
  g_test_message ("mpirun stderr: %s", err);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

/* How many rows of `func` rank `rank` has in the trace, in whichever MPI table holds it */
static gint64
trace_count (sqlite3    *db,
             const char *func,
             int         rank)
{
  static const char *const tables[] = { "MPI_P2P_EVENTS", "MPI_COLLECTIVES_EVENTS",
                                        "MPI_START_WAIT_EVENTS", "MPI_OTHER_EVENTS" };
  gint64 n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    {
      g_autofree char *exists = g_strdup_printf (
          "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", tables[i]);
      g_autofree char *sql = g_strdup_printf (
          "SELECT count(*) FROM %s e JOIN StringIds s ON s.id = e.textId WHERE s.value = '%s' "
          "AND e.globalTid IN (SELECT globalTid FROM MPI_RANKS WHERE rank = %d)", tables[i], func,
          rank);
      if (sl_test_sql_int (db, exists) > 0)
        n += sl_test_sql_int (db, sql);
    }
  return n;
}

/* Each table's columns as "name type notnull" lines, to compare with the read side's schema */
static char *
columns (sqlite3    *db,
         const char *table)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT group_concat(name || ' ' || type || ' ' || \"notnull\", ',') "
      "FROM pragma_table_info('%s')", table);
  return sl_test_sql_text (db, sql);
}

static void
test_ring (void)
{
  const char *dir = sl_test_tmpdir ();
  g_autofree char *out = NULL;
  sqlite3 *db[N_RANKS];

  g_assert_cmpint (run_ring (dir, FALSE, &out), ==, 0);

  /* the program's own counts: "calls RANK FUNCTION N" */
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  guint n_checked = 0;
  for (int r = 0; r < N_RANKS; r++)
    {
      g_autofree char *name = g_strdup_printf ("trace-%d.sqlite", r);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
      db[r] = sl_test_open_db (path);
    }
  for (char **l = lines; *l != NULL; l++)
    {
      int rank;
      char func[64];
      long n;
      if (sscanf (*l, "calls %d %63s %ld", &rank, func, &n) != 3)
        continue;
      g_assert_cmpint (rank, >=, 0);
      g_assert_cmpint (rank, <, N_RANKS);
      g_test_message ("rank %d %s: program %ld, trace %" G_GINT64_FORMAT, rank, func, n,
                      trace_count (db[rank], func, rank));
      g_assert_cmpint (trace_count (db[rank], func, rank), ==, n);
      n_checked++;
    }
  g_assert_cmpuint (n_checked, ==, N_RANKS * 13); /* every function of every rank was printed */

  /* each file is one rank, and says which */
  for (int r = 0; r < N_RANKS; r++)
    {
      g_assert_cmpint (sl_test_sql_int (db[r], "SELECT count(DISTINCT rank) FROM MPI_RANKS"), ==,
                       1);
      g_assert_cmpint (sl_test_sql_int (db[r], "SELECT min(rank) FROM MPI_RANKS"), ==, r);
      g_assert_cmpint (sl_test_sql_int (db[r], "SELECT count(*) FROM MPI_RANKS r WHERE NOT "
                                               "EXISTS (SELECT 1 FROM MPI_P2P_EVENTS e WHERE "
                                               "e.globalTid = r.globalTid)"), ==, 0);
      g_autofree char *members = sl_test_sql_text (
          db[r], "SELECT members FROM MPI_COMMUNICATORS WHERE size = 4");
      g_assert_cmpstr (members, ==, "0,1,2,3");
      g_assert_cmpint (sl_test_sql_int (db[r], "SELECT localRank FROM MPI_COMMUNICATORS "
                                               "WHERE size = 4"), ==, r);
    }
  /* the world communicator has one id across the files, and every call names it */
  gint64 uid0 = sl_test_sql_int (db[0], "SELECT commUid FROM MPI_COMMUNICATORS WHERE size = 4");
  for (int r = 1; r < N_RANKS; r++)
    g_assert_cmpint (sl_test_sql_int (db[r], "SELECT commUid FROM MPI_COMMUNICATORS "
                                             "WHERE size = 4"), ==, uid0);
  for (int r = 0; r < N_RANKS; r++)
    g_assert_cmpint (sl_test_sql_int (db[r], "SELECT count(*) FROM MPI_P2P_EVENTS WHERE "
                                             "commHandle IS NULL OR commHandle NOT IN "
                                             "(SELECT commHandle FROM MPI_COMMUNICATORS)"), ==, 0);

  /* every send has its receive: per (sender, receiver, tag, size), as many of each */
  sqlite3 *all;
  g_assert_cmpint (sqlite3_open (":memory:", &all), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (all, "CREATE TABLE m (rank, name, peer, tag, size)", NULL, NULL,
                                 NULL), ==, SQLITE_OK);
  for (int r = 0; r < N_RANKS; r++)
    {
      g_autofree char *name = g_strdup_printf ("trace-%d.sqlite", r);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *sql = g_strdup_printf (
          "ATTACH '%s' AS t; INSERT INTO m SELECT %d, s.value, e.remoteRank, e.tag, e.size "
          "FROM t.MPI_P2P_EVENTS e JOIN t.StringIds s ON s.id = e.textId; DETACH t", path, r);
      g_assert_cmpint (sqlite3_exec (all, sql, NULL, NULL, NULL), ==, SQLITE_OK);
    }
  gint64 sends = sl_test_sql_int (all, "SELECT count(*) FROM m WHERE name LIKE '%send%'");
  gint64 recvs = sl_test_sql_int (all, "SELECT count(*) FROM m WHERE name LIKE '%recv%'");
  g_assert_cmpint (sends, ==, (gint64) N_RANKS * STEPS);
  g_assert_cmpint (recvs, ==, sends);
  /* no receive's source is a wildcard: MPI_Recv's comes from its status */
  g_assert_cmpint (sl_test_sql_int (all, "SELECT count(*) FROM m WHERE peer < 0"), ==, 0);
  gint64 unmatched = sl_test_sql_int (
      all,
      "SELECT count(*) FROM (SELECT rank AS src, peer AS dst, tag, size, count(*) AS n FROM m "
      "WHERE name LIKE '%send%' GROUP BY 1, 2, 3, 4) s FULL OUTER JOIN (SELECT peer AS src, "
      "rank AS dst, tag, size, count(*) AS n FROM m WHERE name LIKE '%recv%' GROUP BY 1, 2, 3, "
      "4) r USING (src, dst, tag, size) WHERE s.n IS NOT r.n");
  g_assert_cmpint (unmatched, ==, 0);
  /* a ring: each rank sends only to the next */
  g_assert_cmpint (sl_test_sql_int (all, "SELECT count(*) FROM m WHERE name LIKE '%send%' AND "
                                         "peer != (rank + 1) % 4"), ==, 0);
  sqlite3_close (all);

  /* the slow rank: the others wait for it in MPI_Allreduce, it does not wait for them */
  gint64 wait_fast = sl_test_sql_int (
      db[0], "SELECT sum(e.end - e.start) FROM MPI_COLLECTIVES_EVENTS e JOIN StringIds s "
             "ON s.id = e.textId WHERE s.value = 'MPI_Allreduce'");
  gint64 wait_slow = sl_test_sql_int (
      db[N_RANKS - 1], "SELECT sum(e.end - e.start) FROM MPI_COLLECTIVES_EVENTS e JOIN "
                       "StringIds s ON s.id = e.textId WHERE s.value = 'MPI_Allreduce'");
  g_test_message ("MPI_Allreduce: rank 0 waited %" G_GINT64_FORMAT " ns, the slow rank %"
                  G_GINT64_FORMAT " ns", wait_fast, wait_slow);
  g_assert_cmpint (wait_fast, >, 0);

  /* the tables are the read side's (/tmp/mpi-schema.sql: NVIDIA's columns, types, NOT NULL) */
  g_autofree char *p2p = columns (db[0], "MPI_P2P_EVENTS");
  g_assert_cmpstr (p2p, ==, "start INTEGER 1,end INTEGER 0,globalTid INTEGER 0,textId INTEGER 0,"
                            "commHandle INTEGER 0,tag INTEGER 0,remoteRank INTEGER 0,"
                            "size INTEGER 0,requestHandle INTEGER 0");
  g_autofree char *coll = columns (db[0], "MPI_COLLECTIVES_EVENTS");
  g_assert_cmpstr (coll, ==, "start INTEGER 1,end INTEGER 0,globalTid INTEGER 0,"
                             "textId INTEGER 0,commHandle INTEGER 0,rootRank INTEGER 0,"
                             "size INTEGER 0,recvSize INTEGER 0,requestHandle INTEGER 0");
  /* the times: each rank's calls, made one after another by its main thread, follow one
   * another on the trace's clock (sent in batches, read from the TSC and put on CLOCK_MONOTONIC
   * once a call: two calls overlap by what a new clock anchor moves the times, ~0.1 µs, at
   * most), MPI_Init first and MPI_Finalize last, all within a minute of the session's start */
  for (int r = 0; r < N_RANKS; r++)
    {
      static const char calls[] =
          "WITH c AS (SELECT start, end, textId FROM MPI_P2P_EVENTS UNION ALL "
          "SELECT start, end, textId FROM MPI_COLLECTIVES_EVENTS UNION ALL "
          "SELECT start, end, textId FROM MPI_START_WAIT_EVENTS UNION ALL "
          "SELECT start, end, textId FROM MPI_OTHER_EVENTS) ";
      /* how long each call and the one before it (by start) share: a long call whose start
       * came out a few ns early still shares only as much with a short one before it */
      g_autofree char *overlap = g_strconcat (
          calls, "SELECT max(min(prev, end) - start) FROM (SELECT start, end, lag(end) OVER "
          "(ORDER BY start, end) AS prev FROM c)", NULL);
      /* on the session's clock: after its start, by less than a minute */
      g_autofree char *bad = g_strconcat (calls, "SELECT count(*) FROM c, "
                                          "TARGET_INFO_SESSION_START_TIME t WHERE end < start "
                                          "OR start < t.systemClockNs OR end - t.systemClockNs > "
                                          "60000000000", NULL);
      g_autofree char *first = g_strconcat (calls, "SELECT s.value FROM c JOIN StringIds s ON "
                                            "s.id = c.textId ORDER BY start LIMIT 1", NULL);
      g_autofree char *last = g_strconcat (calls, "SELECT s.value FROM c JOIN StringIds s ON "
                                           "s.id = c.textId ORDER BY start DESC LIMIT 1", NULL);
      g_assert_cmpint (sl_test_sql_int (db[r], overlap), <=, 1000);
      g_assert_cmpint (sl_test_sql_int (db[r], bad), ==, 0);
      g_autofree char *init = sl_test_sql_text (db[r], first);
      g_autofree char *fini = sl_test_sql_text (db[r], last);
      g_assert_cmpstr (init, ==, "MPI_Init");
      g_assert_cmpstr (fini, ==, "MPI_Finalize");
    }
  /* a wait names the request its nonblocking call made */
  g_assert_cmpint (sl_test_sql_int (db[1], "SELECT count(*) FROM MPI_START_WAIT_EVENTS w WHERE "
                                           "NOT EXISTS (SELECT 1 FROM MPI_P2P_EVENTS p WHERE "
                                           "p.requestHandle = w.requestHandle)"), ==, 0);
  for (int r = 0; r < N_RANKS; r++)
    sqlite3_close (db[r]);
}

/* `sightline record` around mpirun: one file, four ranks, each with its own counts */
static void
test_around (void)
{
  g_autofree char *dir = g_build_filename (sl_test_tmpdir (), "around", NULL);
  g_autofree char *path = g_build_filename (dir, "all.sqlite", NULL);
  g_autofree char *out = NULL;
  guint n_checked = 0;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_cmpint (run_ring (dir, TRUE, &out), ==, 0);
  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(DISTINCT rank) FROM MPI_RANKS"), ==,
                   N_RANKS);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM MPI_COMMUNICATORS WHERE "
                                        "members = '0,1,2,3'"), ==, N_RANKS);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    {
      int rank;
      char func[64];
      long n;
      if (sscanf (*l, "calls %d %63s %ld", &rank, func, &n) != 3)
        continue;
      g_assert_cmpint (trace_count (db, func, rank), ==, n);
      n_checked++;
    }
  g_assert_cmpuint (n_checked, ==, N_RANKS * 13);
  /* every send has its receive, ranks from MPI_RANKS */
  gint64 unmatched = sl_test_sql_int (
      db,
      "WITH m AS (SELECT r.rank, s.value AS name, e.remoteRank AS peer, e.tag, e.size "
      "FROM MPI_P2P_EVENTS e JOIN StringIds s ON s.id = e.textId JOIN MPI_RANKS r "
      "ON r.globalTid = e.globalTid) "
      "SELECT count(*) FROM (SELECT rank AS src, peer AS dst, tag, size, count(*) AS n FROM m "
      "WHERE name LIKE '%send%' GROUP BY 1, 2, 3, 4) s FULL OUTER JOIN (SELECT peer AS src, "
      "rank AS dst, tag, size, count(*) AS n FROM m WHERE name LIKE '%recv%' GROUP BY 1, 2, 3, "
      "4) r USING (src, dst, tag, size) WHERE s.n IS NOT r.n");
  g_assert_cmpint (unmatched, ==, 0);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM MPI_P2P_EVENTS"), ==,
                   (gint64) N_RANKS * STEPS * 2);
  sqlite3_close (db);
}
#else
static void
test_skipped (void)
{
  g_test_skip ("MPI not found when configured (mpicc, mpirun; Debian: openmpi-bin "
               "libopenmpi-dev): nothing to record");
}
#endif

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
#ifdef SL_MPI_RING_PATH
  g_test_add_func ("/record-mpi/ring", test_ring);
  g_test_add_func ("/record-mpi/around-mpirun", test_around);
#else
  g_test_add_func ("/record-mpi/ring", test_skipped);
#endif
  return g_test_run ();
}
