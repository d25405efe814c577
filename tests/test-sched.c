/* test-sched.c: thread states: SCHED_EVENTS against an SQL oracle on the real traces, planted
 * files with known states (all schema variants), states derived from samples and OS runtime
 * calls, CPU utilization, and bad scheduling rows. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "sl-analyze.h"
#include "sl-cpu-util.h"
#include "sl-lane.h"
#include "sl-plant.h"
#include "sl-schema.h"
#include "sl-test-util.h"
#include "sl-trace.h"

#define MS ((gint64) 1000000)
#define GTID(pid, tid) (((gint64) (pid) << 24) | (tid))

static char *
tmp_path (const char *name)
{
  return g_build_filename (sl_test_tmpdir (), name, NULL);
}

/* Runs SQL on a file of the test's own (created when missing). */
static void
exec_sql (const char *path,
          const char *sql)
{
  sqlite3 *db = NULL;
  char *msg = NULL;
  int rc = sqlite3_open (path, &db);

  if (rc == SQLITE_OK)
    rc = sqlite3_exec (db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK)
    g_error ("%s: %s: %s", path, sql, msg != NULL ? msg : sqlite3_errstr (rc));
  sqlite3_close (db);
}

static SlTrace *
load_ok (const char *path)
{
  g_autoptr (GError) error = NULL;
  SlTrace *trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  for (const char *const *w = sl_trace_get_warnings (trace); *w != NULL; w++)
    g_test_message ("warning: %s", *w);
  return trace;
}

static gboolean
has_warning (SlTrace    *trace,
             const char *a,
             const char *b)
{
  for (const char *const *w = sl_trace_get_warnings (trace); *w != NULL; w++)
    if (strstr (*w, a) != NULL && (b == NULL || strstr (*w, b) != NULL))
      return TRUE;
  return FALSE;
}

static gint
thread_of (SlTrace *trace,
           guint    tid)
{
  for (guint i = 0; i < sl_trace_get_n_threads (trace); i++)
    if (sl_trace_get_thread (trace, i)->tid == tid)
      return (gint) i;
  return -1;
}

/* Lanes tile: sorted, never overlapping, states in range, Running the only state with a CPU. */
static void
check_tiling (SlTrace *trace)
{
  static const char *const labels[] = { "Unknown", "Running", "Runnable", "Blocked" };

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_SCHED)
        continue;
      g_assert_cmpint (lane->thread, >=, 0);
      g_assert_cmpuint (lane->n_events, >, 0);
      guint32 derived = lane->events[0].aux & SL_STATE_DERIVED;
      for (gsize e = 0; e < lane->n_events; e++)
        {
          const SlEvent *ev = &lane->events[e];
          g_assert_cmpint (ev->end, >, ev->start);
          if (e > 0)
            g_assert_cmpint (lane->events[e - 1].end, <=, ev->start);
          g_assert_cmpuint (SL_STATE_OF (ev->aux), <, SL_N_THREAD_STATES);
          g_assert_cmpuint (ev->aux & SL_STATE_DERIVED, ==, derived);
          if (SL_STATE_OF (ev->aux) != SL_STATE_RUNNING)
            g_assert_cmpuint (ev->corr, ==, SL_NO_LINK);
          g_assert_cmpstr (sl_trace_str (trace, ev->name), ==, labels[SL_STATE_OF (ev->aux)]);
        }
    }
}

/* ---- real traces ----------------------------------------------------------------------------- */

/* Running time per globalTid from the in/out pairs: an in followed (by start, then table order)
 * by an out of the same thread on the same CPU runs until it; a last in runs until the table's
 * last timestamp. */
static const char oracle_sql[] =
  "WITH s AS (SELECT globalTid g, start t, cpu c, isSchedIn i, "
  "  lead(start) OVER w nt, lead(isSchedIn) OVER w ni, lead(cpu) OVER w nc "
  "  FROM SCHED_EVENTS WHERE globalTid IS NOT NULL WINDOW w AS (PARTITION BY globalTid "
  "  ORDER BY start, rowid)) "
  "SELECT g, sum(CASE WHEN i != 0 AND nt IS NULL THEN (SELECT max(start) FROM SCHED_EVENTS) - t "
  "  WHEN i != 0 AND ni = 0 AND nc = c THEN nt - t ELSE 0 END) FROM s GROUP BY g";

static void
check_running_oracle (SlTrace    *trace,
                      const char *path)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  guint threads = 0;
  SlTime all = 0;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, oracle_sql, -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      guint64 gtid = (guint64) sqlite3_column_int64 (stmt, 0);
      gint64 want = sqlite3_column_int64 (stmt, 1);
      gint found = -1;
      for (guint i = 0; i < sl_trace_get_n_threads (trace); i++)
        if (sl_trace_get_thread (trace, i)->global_tid == gtid)
          found = (gint) i;
      g_assert_cmpint (found, >=, 0);
      SlTime got = sl_trace_thread_running (trace, (guint) found);
      if (got < 0)   /* a thread whose rows made no slice at all */
        got = 0;
      g_assert_cmpint (got, ==, want);
      all += got;
      threads++;
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  g_test_message ("%s: %u threads, %.3f s running", path, threads, all / 1e9);
  g_assert_cmpuint (threads, >, 0);

  /* what the utilization sums is the same running time: per process and per CPU */
  SlCpuUtil *u = sl_cpu_util_new (trace);
  SlTime t0 = sl_trace_get_start (trace), t1 = sl_trace_get_end (trace);
  double cores = 0;
  for (guint p = 0; p < sl_cpu_util_get_n_processes (u); p++)
    {
      g_assert_false (sl_cpu_util_is_derived (u, p));
      cores += sl_cpu_util_busy_cores (u, p, t0, t1) * (double) (t1 - t0);
    }
  g_assert_cmpfloat (fabs (cores - (double) all), <=, 1e-6 * (double) all + 1);
  SlTime on_cpus = 0;
  for (guint c = 0; c < sl_cpu_util_get_n_cpus (u); c++)
    {
      gsize n = 0;
      const SlEvent *s = sl_cpu_util_get_slices (u, c, &n);
      for (gsize k = 0; k < n; k++)
        {
          on_cpus += s[k].end - s[k].start;
          g_assert_cmpint (sl_cpu_util_slice_at (u, c, s[k].start), >=, 0);
        }
    }
  g_assert_cmpint (on_cpus, ==, all);

  /* the trace's own (sl_cpu_util_get): built once, whichever of two threads asks first, and the
   * same figures; freed with the trace */
  GThread *other = g_thread_new ("util", (GThreadFunc) sl_cpu_util_get, trace);
  SlCpuUtil *own = sl_cpu_util_get (trace);
  g_assert_true (g_thread_join (other) == own);
  g_assert_true (sl_cpu_util_get (trace) == own);
  g_assert_cmpuint (sl_cpu_util_get_n_cpus (own), ==, sl_cpu_util_get_n_cpus (u));
  g_assert_cmpuint (sl_cpu_util_get_n_processes (own), ==, sl_cpu_util_get_n_processes (u));
  for (guint p = 0; p < sl_cpu_util_get_n_processes (u); p++)
    g_assert_cmpfloat (sl_cpu_util_busy_cores (own, p, t0, t1), ==,
                       sl_cpu_util_busy_cores (u, p, t0, t1));
  sl_cpu_util_free (u);
}

static void
test_real (void)
{
  g_auto (GStrv) paths = sl_test_nsys_traces ();
  guint with_sched = 0;

  for (guint f = 0; paths[f] != NULL; f++)
    {
      sqlite3 *db = NULL;
      sqlite3_stmt *stmt = NULL;
      gboolean has = FALSE;
      g_assert_cmpint (sqlite3_open_v2 (paths[f], &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
      if (sqlite3_prepare_v2 (db, "SELECT count(*) FROM SCHED_EVENTS", -1, &stmt, NULL) == SQLITE_OK
          && sqlite3_step (stmt) == SQLITE_ROW)
        has = sqlite3_column_int64 (stmt, 0) > 0;
      sqlite3_finalize (stmt);
      sqlite3_close (db);

      g_autoptr (SlTrace) trace = load_ok (paths[f]);
      check_tiling (trace);
      if (!has)
        continue;
      with_sched++;
      check_running_oracle (trace, paths[f]);
      for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
        if (sl_trace_get_lane (trace, i)->kind == SL_LANE_SCHED)
          g_assert_cmpuint (sl_trace_get_lane (trace, i)->events[0].aux & SL_STATE_DERIVED, ==, 0);
    }
  g_assert_cmpuint (with_sched, >=, 5);
}

/* ---- planted traces -------------------------------------------------------------------------- */

typedef struct
{
  gint64 t;
  gint   cpu;
  gint   in;
  guint  tid;
  gint   state;   /* -1: NULL */
  gint   block;   /* -1: NULL */
} Row;

/* A trace of one process (pid 100, threads 101 … 104 named) holding only these scheduling rows;
 * `columns` 0: the 2023 layout (no threadState/threadBlock), 1: 2024.6+. */
static char *
plant_sched (const char *name,
             const Row  *rows,
             guint       n,
             gboolean    columns)
{
  char *path = tmp_path (name);
  GString *sql = g_string_new (
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO StringIds VALUES (1, 'main'), (2, 'worker'), (3, 'loader'), (4, 'spinner');"
    "CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);"
    "CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);");
  g_string_append_printf (sql, "INSERT INTO PROCESSES VALUES (%" G_GINT64_FORMAT ", 100, 'app');",
                          GTID (100, 0));
  for (guint t = 0; t < 4; t++)
    g_string_append_printf (sql, "INSERT INTO ThreadNames VALUES (%u, 0, %" G_GINT64_FORMAT ");",
                            t + 1, GTID (100, 101 + t));
  g_string_append (sql, columns
                   ? "CREATE TABLE SCHED_EVENTS (start INTEGER NOT NULL, cpu INTEGER NOT NULL, "
                     "isSchedIn INTEGER NOT NULL, globalTid INTEGER, threadState INTEGER, "
                     "threadBlock INTEGER);"
                   : "CREATE TABLE SCHED_EVENTS (start INTEGER NOT NULL, cpu INTEGER NOT NULL, "
                     "isSchedIn INTEGER NOT NULL, globalTid INTEGER);");
  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (sql, "INSERT INTO SCHED_EVENTS VALUES (%" G_GINT64_FORMAT
                              ", %d, %d, %" G_GINT64_FORMAT, rows[i].t, rows[i].cpu, rows[i].in,
                              GTID (100, rows[i].tid));
      if (columns)
        {
          if (rows[i].state < 0)
            g_string_append (sql, ", NULL");
          else
            g_string_append_printf (sql, ", %d", rows[i].state);
          if (rows[i].block < 0)
            g_string_append (sql, ", NULL");
          else
            g_string_append_printf (sql, ", %d", rows[i].block);
        }
      g_string_append (sql, ");");
    }
  g_unlink (path);
  exec_sql (path, sql->str);
  g_string_free (sql, TRUE);
  return path;
}

typedef struct
{
  gint64  start, end;
  guint   state;
  guint32 cpu;
  guint32 why;
} Want;

static void
assert_lane (SlTrace    *trace,
             guint       tid,
             const Want *want,
             guint       n,
             guint32     derived)
{
  gint th = thread_of (trace, tid);
  g_assert_cmpint (th, >=, 0);
  const SlLane *lane = sl_trace_thread_state_lane (trace, (guint) th);
  g_assert_nonnull (lane);
  for (gsize e = 0; e < lane->n_events; e++)
    g_test_message ("thread %u: [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") state %u cpu %d "
                    "why %d", tid, lane->events[e].start, lane->events[e].end,
                    lane->events[e].aux & 0xFF, (gint) lane->events[e].corr,
                    (gint) lane->events[e].link);
  g_assert_cmpuint (lane->n_events, ==, n);
  for (guint e = 0; e < n; e++)
    {
      const SlEvent *ev = &lane->events[e];
      g_assert_cmpint (ev->start, ==, want[e].start);
      g_assert_cmpint (ev->end, ==, want[e].end);
      g_assert_cmpuint (ev->aux, ==, want[e].state | derived);
      g_assert_cmpuint (ev->corr, ==, want[e].cpu);
      g_assert_cmpuint (ev->link, ==, want[e].why);
    }
}

#define NO SL_NO_LINK

static const Row planted_rows[] = {
  /* 101: preempted, then asleep in nanosleep, then exits */
  { 0, 0, 1, 101, -1, -1 }, { 100, 0, 0, 101, 1, -1 },
  { 150, 3, 1, 101, -1, -1 }, { 300, 3, 0, 101, 2, 4 },
  { 500, 1, 1, 101, -1, -1 }, { 600, 1, 0, 101, 5, -1 },
  /* 102: out with a state the file does not know, until the end */
  { 50, 1, 1, 102, -1, -1 }, { 400, 1, 0, 102, 0, -1 },
  /* 103: a lone out: nothing before it is known, the state after it is */
  { 700, 2, 0, 103, 3, 6 },
  /* 104: preempted (block reason "Preempted"), then running to the end */
  { 10, 2, 1, 104, -1, -1 }, { 20, 2, 0, 104, 0, 44 }, { 30, 2, 1, 104, -1, -1 },
  { 650, 0, 1, 101, -1, -1 }, { 650, 0, 0, 101, 1, -1 },   /* zero-length: no slice */
  { 800, 2, 0, 104, 1, -1 },
};

static void
test_planted (void)
{
  g_autofree char *path = plant_sched ("sched-states.sqlite", planted_rows,
                                       G_N_ELEMENTS (planted_rows), TRUE);
  g_autoptr (SlTrace) trace = load_ok (path);

  check_tiling (trace);
  const Want w101[] = {
    { 0, 100, SL_STATE_RUNNING, 0, NO }, { 100, 150, SL_STATE_RUNNABLE, NO, NO },
    { 150, 300, SL_STATE_RUNNING, 3, NO }, { 300, 500, SL_STATE_BLOCKED, NO, 4 },
    { 500, 600, SL_STATE_RUNNING, 1, NO }, { 650, 800, SL_STATE_RUNNABLE, NO, NO },
  };
  const Want w102[] = {
    { 50, 400, SL_STATE_RUNNING, 1, NO }, { 400, 800, SL_STATE_UNKNOWN, NO, NO },
  };
  const Want w103[] = { { 700, 800, SL_STATE_BLOCKED, NO, 6 } };
  const Want w104[] = {
    { 10, 20, SL_STATE_RUNNING, 2, NO }, { 20, 30, SL_STATE_RUNNABLE, NO, 44 },
    { 30, 800, SL_STATE_RUNNING, 2, NO },
  };
  assert_lane (trace, 101, w101, G_N_ELEMENTS (w101), 0);
  assert_lane (trace, 102, w102, G_N_ELEMENTS (w102), 0);
  assert_lane (trace, 103, w103, G_N_ELEMENTS (w103), 0);
  assert_lane (trace, 104, w104, G_N_ELEMENTS (w104), 0);
  g_assert_cmpint (sl_trace_thread_running (trace, thread_of (trace, 101)), ==, 100 + 150 + 100);
  g_assert_cmpint (sl_trace_thread_running (trace, thread_of (trace, 104)), ==, 10 + 770);
  g_assert_cmpint (sl_trace_thread_running (trace, thread_of (trace, 103)), ==, 0);
  g_assert_cmpstr (sl_trace_enum_label (trace, SL_ENUM_THREAD_BLOCK, 4), ==, "Nanosleep");

  /* utilization: cores 0 … 3 seen; [50, 100) has 101, 102 and 104 running */
  SlCpuUtil *u = sl_cpu_util_new (trace);
  g_assert_cmpuint (sl_cpu_util_get_n_cpus (u), ==, 4);
  g_assert_cmpuint (sl_cpu_util_get_n_processes (u), ==, 1);
  g_assert_cmpfloat_with_epsilon (sl_cpu_util_busy_cores (u, 0, 50, 100), 3.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (sl_cpu_util_busy_cores (u, 0, 0, 800),
                                  (350.0 + 350 + 780) / 800, 1e-9);
  double b[4];
  sl_cpu_util_buckets (u, 0, 0, 800, 4, b);
  g_assert_cmpfloat_with_epsilon (b[0], (150.0 + 150 + 180) / 200, 1e-9);
  g_assert_cmpfloat_with_epsilon (b[3], 1.0, 1e-9);
  for (guint c = 0; c < 4; c++)
    g_assert_cmpuint (sl_cpu_util_get_cpu (u, c), ==, c);
  gsize n = 0;
  const SlEvent *s = sl_cpu_util_get_slices (u, 1, &n);
  gssize at = sl_cpu_util_slice_at (u, 1, 550);
  g_assert_cmpint (at, >=, 0);
  g_assert_cmpuint (s[at].corr, ==, (guint) thread_of (trace, 101));
  g_assert_cmpint (sl_cpu_util_slice_at (u, 1, 450), ==, -1);
  sl_cpu_util_free (u);
}

/* The 2023 layout: no threadState or threadBlock, so every switch out leaves the state Unknown. */
static void
test_planted_old_layout (void)
{
  g_autofree char *path = plant_sched ("sched-old.sqlite", planted_rows,
                                       G_N_ELEMENTS (planted_rows), FALSE);
  g_autoptr (SlTrace) trace = load_ok (path);

  check_tiling (trace);
  const Want w101[] = {
    { 0, 100, SL_STATE_RUNNING, 0, NO }, { 100, 150, SL_STATE_UNKNOWN, NO, NO },
    { 150, 300, SL_STATE_RUNNING, 3, NO }, { 300, 500, SL_STATE_UNKNOWN, NO, NO },
    { 500, 600, SL_STATE_RUNNING, 1, NO }, { 600, 650, SL_STATE_UNKNOWN, NO, NO },
    { 650, 800, SL_STATE_UNKNOWN, NO, NO },
  };
  assert_lane (trace, 101, w101, G_N_ELEMENTS (w101), 0);
  g_assert_cmpint (sl_trace_thread_running (trace, thread_of (trace, 101)), ==, 350);
}

/* ---- derived states -------------------------------------------------------------------------- */

static void
test_derived_planted (void)
{
  g_autofree char *path = tmp_path ("sched-derived.sqlite");
  GString *sql = g_string_new (
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO StringIds VALUES (1, 'main'), (2, 'read'), (3, 'poll'), (4, 'spin');"
    "CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);"
    "CREATE TABLE COMPOSITE_EVENTS (id INTEGER NOT NULL PRIMARY KEY, start INTEGER NOT NULL, "
    "cpu INTEGER, threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER NOT NULL);"
    "CREATE TABLE SAMPLING_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, "
    "module INTEGER NOT NULL, stackDepth INTEGER NOT NULL);"
    "CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER "
    "NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, "
    "nestingLevel INTEGER, callchainId INTEGER NOT NULL);");
  g_string_append_printf (sql, "INSERT INTO ThreadNames VALUES (1, 0, %" G_GINT64_FORMAT ");",
                          GTID (100, 101));
  /* 101 runs through samples at 10, 20, 30 ms (102's at 5 and 15 make the period 10 ms too) */
  const struct { gint64 t; guint tid; } samples[] = {
    { 10 * MS, 101 }, { 20 * MS, 101 }, { 30 * MS, 101 }, { 5 * MS, 102 }, { 15 * MS, 102 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    g_string_append_printf (sql, "INSERT INTO COMPOSITE_EVENTS VALUES (%u, %" G_GINT64_FORMAT
                            ", 0, 1, %" G_GINT64_FORMAT ", 0);"
                            "INSERT INTO SAMPLING_CALLCHAINS VALUES (%u, 4, 1, 0);",
                            i + 1, samples[i].t, GTID (100, samples[i].tid), i + 1);
  /* poll 25 … 35 ms overlaps the running; read 40 … 60 ms is blocked */
  g_string_append_printf (sql, "INSERT INTO OSRT_API VALUES (%" G_GINT64_FORMAT ", %"
                          G_GINT64_FORMAT ", 27, %" G_GINT64_FORMAT ", 3, 0, 0, 0);"
                          "INSERT INTO OSRT_API VALUES (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                          ", 27, %" G_GINT64_FORMAT ", 2, 0, 0, 0);",
                          25 * MS, 35 * MS, GTID (100, 101), 40 * MS, 60 * MS, GTID (100, 101));
  g_unlink (path);
  exec_sql (path, sql->str);
  g_string_free (sql, TRUE);

  g_autoptr (SlTrace) trace = load_ok (path);
  check_tiling (trace);
  g_assert_true (has_warning (trace, "SCHED_EVENTS", "derived"));
  const Want w101[] = {
    { 0, 30 * MS, SL_STATE_RUNNING, NO, NO }, { 30 * MS, 35 * MS, SL_STATE_BLOCKED, NO, NO },
    { 35 * MS, 40 * MS, SL_STATE_UNKNOWN, NO, NO }, { 40 * MS, 60 * MS, SL_STATE_BLOCKED, NO, NO },
  };
  assert_lane (trace, 101, w101, G_N_ELEMENTS (w101), SL_STATE_DERIVED);
  const Want w102[] = { { -5 * MS, 15 * MS, SL_STATE_RUNNING, NO, NO } };
  assert_lane (trace, 102, w102, G_N_ELEMENTS (w102), SL_STATE_DERIVED);
  /* derived running is not scheduling data: no running_ns */
  g_assert_cmpint (sl_trace_thread_running (trace, thread_of (trace, 101)), ==, -1);
  SlCpuUtil *u = sl_cpu_util_new (trace);
  g_assert_cmpuint (sl_cpu_util_get_n_processes (u), ==, 1);
  g_assert_true (sl_cpu_util_is_derived (u, 0));
  g_assert_cmpuint (sl_cpu_util_get_n_cpus (u), ==, 0);
  g_assert_cmpfloat_with_epsilon (sl_cpu_util_busy_cores (u, 0, 10 * MS, 15 * MS), 2.0, 1e-9);
  sl_cpu_util_free (u);
}

/* A real trace with samples and OS runtime calls, its SCHED_EVENTS dropped: every running
 * sample lies in a derived Running slice, every OS runtime call is covered by Running or
 * Blocked, never Unknown. */
static void
test_derived_real (void)
{
  g_autofree char *src = sl_test_trace_path ("nsys/nsys-2023.2-cutlass-cpu-sampling.sqlite");
  g_autofree char *path = tmp_path ("no-sched.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (GFile) from = g_file_new_for_path (src), to = g_file_new_for_path (path);

  g_assert_true (g_file_copy (from, to, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, &error));
  exec_sql (path, "DROP TABLE SCHED_EVENTS;");
  g_autoptr (SlTrace) real = load_ok (src);
  g_autoptr (SlTrace) trace = load_ok (path);
  check_tiling (trace);

  guint lanes = 0;
  gsize samples = 0, calls = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind == SL_LANE_SCHED)
        {
          lanes++;
          g_assert_cmpuint (lane->events[0].aux & SL_STATE_DERIVED, ==, SL_STATE_DERIVED);
          continue;
        }
      if (lane->kind != SL_LANE_SAMPLES && lane->kind != SL_LANE_OSRT)
        continue;
      /* a thread with samples has derived states; one without, none */
      const SlLane *states = sl_trace_thread_state_lane (trace, (guint) lane->thread);
      if (lane->kind == SL_LANE_OSRT && states == NULL)
        {
          for (guint k = 0; k < sl_trace_get_n_lanes (trace); k++)
            g_assert_false (sl_trace_get_lane (trace, k)->kind == SL_LANE_SAMPLES
                            && sl_trace_get_lane (trace, k)->thread == lane->thread);
          continue;
        }
      g_assert_nonnull (states);
      for (gsize e = 0; e < lane->n_events; e++)
        {
          const SlEvent *ev = &lane->events[e];
          if (lane->kind == SL_LANE_SAMPLES && ev->corr != 1)
            continue;
          /* the slices over the event's span */
          gsize k = sl_lane_lower_bound (states, ev->start);
          while (k > 0 && states->events[k - 1].end >= ev->start)
            k--;
          gboolean covered = FALSE;
          for (; k < states->n_events && states->events[k].start <= ev->end; k++)
            {
              const SlEvent *st = &states->events[k];
              if (st->end < ev->start || (st->end == ev->start && ev->end > ev->start))
                continue;
              if (lane->kind == SL_LANE_SAMPLES)
                covered |= SL_STATE_OF (st->aux) == SL_STATE_RUNNING;
              else if (st->start < ev->end)
                g_assert_cmpuint (SL_STATE_OF (st->aux), !=, SL_STATE_UNKNOWN);
            }
          if (lane->kind == SL_LANE_SAMPLES)
            {
              g_assert_true (covered);
              samples++;
            }
          else
            calls++;
        }
    }
  g_assert_cmpuint (lanes, >, 0);
  g_assert_cmpuint (samples, >, 1000);
  g_assert_cmpuint (calls, >, 100);

  /* how close the derived running time comes to the scheduled one, for the record */
  for (guint t = 0; t < sl_trace_get_n_threads (real); t++)
    {
      SlTime sched = sl_trace_thread_running (real, t);
      const SlLane *d = sl_trace_thread_state_lane (trace, t);
      if (sched <= 0 || d == NULL)
        continue;
      SlTime derived = 0;
      for (gsize e = 0; e < d->n_events; e++)
        if (SL_STATE_OF (d->events[e].aux) == SL_STATE_RUNNING)
          derived += d->events[e].end - d->events[e].start;
      g_test_message ("thread %u: scheduled %.3f ms, derived from samples %.3f ms",
                      sl_trace_get_thread (real, t)->tid, sched / 1e6, derived / 1e6);
    }
}

/* ---- bad input ------------------------------------------------------------------------------- */

static void
test_bad_rows (void)
{
  static const Row rows[] = {
    { 0, 0, 1, 101, -1, -1 }, { 10, 0, 1, 101, -1, -1 },      /* in after in */
    { 20, 0, 0, 101, 1, -1 }, { 30, 0, 0, 101, 1, -1 },       /* out after out */
    { 40, 5, 1, 101, -1, -1 }, { 50, 6, 0, 101, 1, -1 },      /* out on another CPU */
    { 60, -5, 1, 102, -1, -1 }, { 70, -5, 0, 102, 1, -1 },    /* negative CPU */
    { 80, 99999, 1, 102, -1, -1 }, { 90, 99999, 0, 102, 250, 250 }, /* no such CPU or state */
    { 100, 1, 1, 999, -1, -1 }, { 110, 1, 0, 999, 1, -1 },    /* a thread ThreadNames lacks */
    { 120, 1, 0, 103, 1, -1 }, { 95, 1, 1, 103, -1, -1 },     /* out of time order */
  };
  g_autofree char *path = plant_sched ("sched-bad.sqlite", rows, G_N_ELEMENTS (rows), TRUE);

  /* rows the schema would refuse: NULL thread, NULL cpu, text flags, absurd times */
  exec_sql (path,
            "CREATE TABLE s2 (start INTEGER, cpu INTEGER, isSchedIn, globalTid INTEGER, "
            "threadState INTEGER, threadBlock INTEGER);"
            "INSERT INTO s2 SELECT * FROM SCHED_EVENTS; DROP TABLE SCHED_EVENTS;"
            "ALTER TABLE s2 RENAME TO SCHED_EVENTS;"
            "INSERT INTO SCHED_EVENTS VALUES (130, 0, 1, NULL, NULL, NULL);"
            "INSERT INTO SCHED_EVENTS VALUES (140, NULL, 1, 1677721704, NULL, NULL);"
            "INSERT INTO SCHED_EVENTS VALUES (150, 0, 'in', 1677721704, NULL, NULL);"
            "INSERT INTO SCHED_EVENTS VALUES (NULL, 0, 1, 1677721704, NULL, NULL);"
            "INSERT INTO SCHED_EVENTS VALUES (4611686018427387904, 0, 0, 1677721704, 1, 1);"
            "INSERT INTO SCHED_EVENTS VALUES (-4611686018427387904, 0, 1, 1677721704, 1, 1);");
  g_autoptr (SlTrace) trace = load_ok (path);

  check_tiling (trace);
  g_assert_true (has_warning (trace, "SCHED_EVENTS", "do not pair"));
  g_assert_true (has_warning (trace, "SCHED_EVENTS", "CPU"));
  g_assert_true (has_warning (trace, "SCHED_EVENTS", "ThreadNames"));
  g_assert_true (has_warning (trace, "SCHED_EVENTS", "isSchedIn"));
  g_assert_true (has_warning (trace, "SCHED_EVENTS", "NULL"));
  g_assert_true (has_warning (trace, "SCHED_EVENTS", "73 years"));
  /* in after in: the span is Unknown, not running */
  const SlLane *lane = sl_trace_thread_state_lane (trace, thread_of (trace, 101));
  g_assert_nonnull (lane);
  g_assert_cmpuint (SL_STATE_OF (lane->events[0].aux), ==, SL_STATE_UNKNOWN);
  g_assert_cmpint (lane->events[0].end, ==, 10);
  /* the rows out of time order are sorted: 103 runs 95 … 120 */
  g_assert_cmpint (sl_trace_thread_running (trace, thread_of (trace, 103)), ==, 25);

  /* the same file, the table stripped to its required columns or less */
  exec_sql (path, "CREATE TABLE s3 AS SELECT start FROM SCHED_EVENTS; DROP TABLE SCHED_EVENTS;"
                  "ALTER TABLE s3 RENAME TO SCHED_EVENTS;");
  g_autoptr (SlTrace) stripped = load_ok (path);
  g_assert_true (has_warning (stripped, "SCHED_EVENTS", "isSchedIn"));
  check_tiling (stripped);
}

/* ---- the analysis: CPU evidence in gpu_gaps -------------------------------------------------- */

/* The evidence of the gpu_gaps finding that covers t, or NULL. */
static const SlEvidence *
gap_evidence (SlAnalysis *a,
              SlTime      t,
              const char *key)
{
  for (guint i = 0; i < a->findings->len; i++)
    {
      SlFinding *f = g_ptr_array_index (a->findings, i);
      if (strcmp (f->rule->name, "gpu_gaps") != 0 || f->start > t || f->end <= t)
        continue;
      for (guint k = 0; k < f->evidence->len; k++)
        {
          const SlEvidence *e = &g_array_index (f->evidence, SlEvidence, k);
          g_test_message ("gpu_gaps evidence %s: %s", e->label, e->text);
        }
      for (guint k = 0; k < f->evidence->len; k++)
        if (strcmp (g_array_index (f->evidence, SlEvidence, k).key, key) == 0)
          return &g_array_index (f->evidence, SlEvidence, k);
    }
  return NULL;
}

/* The main thread launches, then reads for 15 ms while the GPU idles 20 ms.  `sched`: its
 * context switches are in SCHED_EVENTS; `osrt`: the read is traced, and the thread sampled
 * every millisecond it runs. */
static char *
plant_gap (const char *name,
           gboolean    sched,
           gboolean    osrt,
           gint64     *gap_start)
{
  char *path = tmp_path (name);
  Plant *p = plant_new (path);

  plant_loop (p, 10 * MS, 50, 100000, 95000, "gemm_kernel", &plant_config_full);
  gint64 g0 = plant_gpu_free (p);
  if (osrt)
    {
      plant_osrt (p, PLANT_MAIN, "read", g0 + 1 * MS, g0 + 16 * MS);
      for (gint64 s = 11 * MS; s < g0 + 1 * MS; s += MS)
        plant_sample (p, PLANT_MAIN, s, "launch_loop");
    }
  gint64 end = plant_loop (p, g0 + 20 * MS, 50, 100000, 95000, "gemm_kernel", &plant_config_full);
  plant_finish (p);
  *gap_start = g0;
  if (sched)
    {
      gint64 gtid = SL_GLOBAL_TID (1, 100, PLANT_MAIN);
      g_autofree char *sql = g_strdup_printf (
        "INSERT INTO SCHED_EVENTS VALUES (%" G_GINT64_FORMAT ", 3, 1, %" G_GINT64_FORMAT
        ", NULL, NULL), (%" G_GINT64_FORMAT ", 3, 0, %" G_GINT64_FORMAT ", 2, 4), (%"
        G_GINT64_FORMAT ", 5, 1, %" G_GINT64_FORMAT ", NULL, NULL), (%" G_GINT64_FORMAT
        ", 5, 0, %" G_GINT64_FORMAT ", 1, NULL);",
        10 * MS - 1000, gtid, g0 + 1 * MS + 10000, gtid, g0 + 16 * MS, gtid, end + 1 * MS, gtid);
      exec_sql (path, sql);
    }
  return path;
}

static void
test_gap_evidence (void)
{
  gint64 g0;

  /* scheduling data: blocked 14.99 ms on Nanosleep, in read; running the rest of the gap */
  {
    g_autofree char *path = plant_gap ("gap-sched.sqlite", TRUE, TRUE, &g0);
    g_autoptr (SlTrace) trace = load_ok (path);
    g_autoptr (GError) error = NULL;
    SlAnalysis *a = sl_analyze (trace, (const char *const[]) { "gpu_gaps", NULL }, NULL, &error);
    g_assert_no_error (error);
    const SlEvidence *blocked = gap_evidence (a, g0 + 5 * MS, "blocked_ns");
    const SlEvidence *running = gap_evidence (a, g0 + 5 * MS, "running_ns");
    const SlEvidence *states = gap_evidence (a, g0 + 5 * MS, "thread_states");
    g_assert_nonnull (blocked);
    g_assert_nonnull (running);
    g_assert_cmpfloat (blocked->value, ==, 15 * MS - 10000);
    g_assert_nonnull (strstr (blocked->text, "Nanosleep"));
    g_assert_nonnull (strstr (blocked->text, "in read"));
    g_assert_cmpfloat (states->value, ==, 2);
    g_assert_cmpfloat (running->value, >, 3 * MS);
    g_assert_cmpfloat (running->value, <, 6 * MS);
    sl_analysis_free (a);
  }
  /* no scheduling data, the read traced: derived, and said so */
  {
    g_autofree char *path = plant_gap ("gap-derived.sqlite", FALSE, TRUE, &g0);
    g_autoptr (SlTrace) trace = load_ok (path);
    SlAnalysis *a = sl_analyze (trace, (const char *const[]) { "gpu_gaps", NULL }, NULL, NULL);
    const SlEvidence *states = gap_evidence (a, g0 + 5 * MS, "thread_states");
    const SlEvidence *blocked = gap_evidence (a, g0 + 5 * MS, "blocked_ns");
    g_assert_nonnull (states);
    g_assert_cmpfloat (states->value, ==, 1);
    g_assert_nonnull (strstr (states->text, "derived"));
    g_assert_cmpfloat (blocked->value, ==, 15 * MS);
    sl_analysis_free (a);
  }
  /* nothing about the CPU: no evidence, said so */
  {
    g_autofree char *path = plant_gap ("gap-none.sqlite", FALSE, FALSE, &g0);
    g_autoptr (SlTrace) trace = load_ok (path);
    SlAnalysis *a = sl_analyze (trace, (const char *const[]) { "gpu_gaps", NULL }, NULL, NULL);
    const SlEvidence *states = gap_evidence (a, g0 + 5 * MS, "thread_states");
    g_assert_nonnull (states);
    g_assert_cmpfloat (states->value, ==, 0);
    g_assert_nonnull (strstr (states->text, "no evidence"));
    sl_analysis_free (a);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sched/real-oracle", test_real);
  g_test_add_func ("/sched/planted", test_planted);
  g_test_add_func ("/sched/planted-old-layout", test_planted_old_layout);
  g_test_add_func ("/sched/derived-planted", test_derived_planted);
  g_test_add_func ("/sched/derived-real", test_derived_real);
  g_test_add_func ("/sched/bad-rows", test_bad_rows);
  g_test_add_func ("/sched/gap-evidence", test_gap_evidence);
  return g_test_run ();
}
