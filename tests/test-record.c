/* test-record.c: `sightline record` end to end on real processes: the daemon (started on demand in
 * a private runtime directory), the injection library inside tests/targets/sl-test-target, and
 * the written trace, read back through the model and checked field by field with SQL. */
#include <elf.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sl-control.h"
#include "sl-recording.h"
#include "sl-test-util.h"
#include "sl-trace.h"

static const char *runtime_dir;
/* VAR=VALUE pairs `record` adds to the environment of `sightline record` (NULL: none) */
static const char *const *record_env;

/* Sends `sig` to the daemon of our runtime directory (and no other: tests run side by side). */
static void
signal_daemon (int sig)
{
  g_autofree char *pidfile = g_build_filename (runtime_dir, "sightlined.sock.pid", NULL);
  g_autofree char *text = NULL;

  if (g_file_get_contents (pidfile, &text, NULL, NULL) && atoi (text) > 1)
    kill (atoi (text), sig);
}

/* Runs `sightline record ARGS…` and returns its exit status; its stderr in *err. */
static int
record (char       **err,
        const char  *first,
        ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_auto (GStrv) env = g_get_environ ();
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  int status = -1;
  va_list ap;

  g_ptr_array_add (argv, SL_SIGHTLINE_PATH);
  g_ptr_array_add (argv, "record");
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  env = g_environ_setenv (env, "SIGHTLINE_RUNTIME_DIR", runtime_dir, TRUE);
  for (const char *const *e = record_env; e != NULL && *e != NULL; e++)
    {
      g_auto (GStrv) kv = g_strsplit (*e, "=", 2);
      env = g_environ_setenv (env, kv[0], kv[1], TRUE);
    }
  g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, &out, err, &status,
                &error);
  g_assert_no_error (error);
  g_test_message ("record stderr: %s", *err);
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  return 128 + WTERMSIG (status);
}

static char *
trace_path (const char *name)
{
  return g_build_filename (sl_test_tmpdir (), name, NULL);
}

/* globalTid of the thread named `name`, or -1. */
static gint64
tid_named (sqlite3    *db,
           const char *name)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT t.globalTid FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId WHERE s.value = '%s'",
      name);
  return sl_test_sql_int (db, sql);
}

static gint64
count_osrt (sqlite3    *db,
            gint64      gtid,
            const char *func,
            gint64      min_ns)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM OSRT_API o JOIN StringIds s ON s.id = o.nameId WHERE o.globalTid = %"
      G_GINT64_FORMAT " AND s.value = '%s' AND o.end - o.start >= %" G_GINT64_FORMAT,
      gtid, func, min_ns);
  return sl_test_sql_int (db, sql);
}

/* The rows of the event tables: what "N events written" must count. */
static gint64
event_rows (sqlite3 *db)
{
  static const char *const tables[] = {
    "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS",
    "OSRT_API", "COMPOSITE_EVENTS", "SCHED_EVENTS",
  };
  gint64 n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    {
      g_autofree char *exists = g_strdup_printf (
          "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", tables[i]);
      g_autofree char *count = g_strdup_printf ("SELECT count(*) FROM %s", tables[i]);
      if (sl_test_sql_int (db, exists) > 0)
        n += sl_test_sql_int (db, count);
    }
  return n;
}

/* The N of the summary's "sightline: N events written to", or -1. */
static gint64
events_written (const char *err)
{
  const char *at = strstr (err, " events written to");
  const char *line = at;

  if (at == NULL)
    return -1;
  while (line > err && line[-1] != '\n' && line[-1] != ' ')
    line--;
  return g_ascii_strtoll (line, NULL, 10);
}

static void
test_threads (void)
{
  g_autofree char *path = trace_path ("threads.sqlite");
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int code = record (&err, "-o", path, "-s", "1000", "--", SL_TARGET_PATH, "threads", NULL);

  g_assert_cmpint (code, ==, 0);
  g_assert_nonnull (strstr (err, "events written to"));

  /* the model opens it */
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_processes (trace), ==, 2); /* the program and its child */
  gboolean saw_osrt = FALSE, saw_nvtx1 = FALSE, saw_samples = FALSE;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      saw_osrt |= lane->kind == SL_LANE_OSRT && lane->n_events > 0;
      saw_nvtx1 |= lane->kind == SL_LANE_NVTX && lane->depth == 1 && lane->n_events > 0;
      saw_samples |= lane->kind == SL_LANE_SAMPLES && lane->n_events > 0;
    }
  g_assert_true (saw_osrt);
  g_assert_true (saw_samples);
#ifdef SL_HAVE_NVTX
  g_assert_true (saw_nvtx1);
#endif

  sqlite3 *db = sl_test_open_db (path);
  g_autofree char *schema = sl_test_sql_text (
    db, "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'");
  g_assert_cmpstr (schema, ==, "3.25.0");

  /* the session's start as nsys writes it: the wall clock then (utcEpochNs, utcTime), and then
   * on the trace's clock (systemClockNs, at or before the first event) */
  gint64 wall_zero = g_get_real_time () * 1000 - g_get_monotonic_time () * 1000;
  g_autofree char *zero_sql = g_strdup_printf (
      "SELECT abs (utcEpochNs - systemClockNs - %" G_GINT64_FORMAT ") < 1000000000 "
      "AND systemClockNs <= (SELECT startTime FROM ANALYSIS_DETAILS) "
      "AND utcTime GLOB '20[0-9][0-9]-[01][0-9]-[0-3][0-9]T*Z' "
      "FROM TARGET_INFO_SESSION_START_TIME", wall_zero);
  g_assert_cmpint (sl_test_sql_int (db, zero_sql), ==, 1);

  /* the summary counts every row of the event tables: the samples of the last commit and the
   * ranges closed at the end too */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM COMPOSITE_EVENTS"), >, 0);
  g_assert_cmpint (events_written (err), ==, event_rows (db));

  /* names: set by the creator (pthread_setname_np), by itself (prctl), and the main thread */
  gint64 a = tid_named (db, "worker-a"), b = tid_named (db, "worker-b");
  g_assert_cmpint (a, >, 0);
  g_assert_cmpint (b, >, 0);
  g_assert_cmpint (a >> 24, ==, b >> 24); /* same process */
  /* the main thread: tid == pid (the forked child inherits the name too) */
  gint64 main_tid = (a & ~G_GINT64_CONSTANT (0xFFFFFF)) | ((a >> 24) & 0xFFFFFF);
  g_autofree char *main_sql = g_strdup_printf (
      "SELECT s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId WHERE t.globalTid = %"
      G_GINT64_FORMAT, main_tid);
  g_autofree char *main_name = sl_test_sql_text (db, main_sql);
  g_assert_cmpstr (main_name, ==, "sl-main");

  /* blocking OS calls: 5 sleeps of 2 ms and one ~10 ms read on each worker */
  for (int w = 0; w < 2; w++)
    {
      gint64 t = w == 0 ? a : b;
      /* every nanosleep of the thread (none is shorter than the 1 µs threshold), and at least
       * the five 2 ms ones at 2 ms (a busy machine may stretch a 1 ms one too) */
      g_assert_cmpint (count_osrt (db, t, "nanosleep", 0), ==, 5 + 3);
      g_assert_cmpint (count_osrt (db, t, "nanosleep", 1900000), >=, 5);
      g_assert_cmpint (count_osrt (db, t, "read", 5000000), ==, 1);
    }
  /* the child: 3 usleeps of 5 ms, in its own process */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM PROCESSES"), ==, 2);
  g_autofree char *child_sql = g_strdup_printf (
      "SELECT count(*) FROM OSRT_API o JOIN StringIds s ON s.id = o.nameId WHERE s.value = 'usleep' "
      "AND o.end - o.start >= 4900000 AND (o.globalTid >> 24) != %" G_GINT64_FORMAT, a >> 24);
  g_assert_cmpint (sl_test_sql_int (db, child_sql), ==, 3);

#ifdef SL_HAVE_NVTX
  /* NVTX: 3 "step i" at depth 0 of each worker, each containing one "inner"; one start/end
   * range; the child's mark */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId "
                                "WHERE n.eventType = 59 AND s.value LIKE 'step %'"),
                   ==, 6);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM NVTX_EVENTS o JOIN StringIds so ON so.id = o.textId "
                                "JOIN NVTX_EVENTS i ON i.globalTid = o.globalTid AND i.start >= o.start "
                                "AND i.end <= o.end JOIN StringIds si ON si.id = i.textId "
                                "WHERE so.value LIKE 'step %' AND si.value = 'inner'"),
                   ==, 6);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId "
                                "WHERE n.eventType = 60 AND s.value = 'whole run' AND n.end > n.start"),
                   ==, 1);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId "
                                "WHERE n.eventType = 34 AND s.value = 'child mark'"),
                   ==, 1);
#endif

  /* sampling: ~200 ms of CPU at 1 kHz in each busy function, found in the right thread */
  for (int w = 0; w < 2; w++)
    {
      gint64 t = w == 0 ? a : b;
      const char *fn = w == 0 ? "busy_alpha" : "busy_beta";
      g_autofree char *total_sql = g_strdup_printf (
          "SELECT count(*) FROM COMPOSITE_EVENTS WHERE globalTid = %" G_GINT64_FORMAT, t);
      g_autofree char *in_sql = g_strdup_printf (
          "SELECT count(DISTINCT c.id) FROM COMPOSITE_EVENTS c JOIN SAMPLING_CALLCHAINS k ON k.id = c.id "
          "JOIN StringIds s ON s.id = k.symbol WHERE c.globalTid = %" G_GINT64_FORMAT
          " AND s.value = '%s'",
          t, fn);
      gint64 total = sl_test_sql_int (db, total_sql), in = sl_test_sql_int (db, in_sql);
      g_test_message ("%s: %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " samples", fn, in, total);
      g_assert_cmpint (total, >=, 100);
      g_assert_cmpint (in * 10, >=, total * 9);
    }
  /* every frame names a module; the leaf of a busy sample is in the test program */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM SAMPLING_CALLCHAINS WHERE module IS NULL"), ==, 0);
  sqlite3_close (db);
}

/* A thread's running time inside [from, to] from SCHED_EVENTS: each "in" up to the thread's next
 * event (an "out": they alternate), clipped to the window. */
static gint64
sched_running_ns (sqlite3 *db,
                  gint64   gtid,
                  gint64   from,
                  gint64   to)
{
  g_autofree char *sql = g_strdup_printf (
      "WITH e AS (SELECT start, isSchedIn AS i, lead (start) OVER w AS next, "
      "lead (isSchedIn) OVER w AS ni FROM SCHED_EVENTS WHERE globalTid = %" G_GINT64_FORMAT
      " WINDOW w AS (ORDER BY start, isSchedIn)) "
      "SELECT coalesce (sum (max (0, min (next, %" G_GINT64_FORMAT ") - max (start, %"
      G_GINT64_FORMAT "))), 0) FROM e WHERE i = 1 AND ni = 0",
      gtid, to, from);
  return sl_test_sql_int (db, sql);
}

/* OS runtime calls `func` of `gtid` of at least 80 µs, and how many of them lack a backtrace
 * whose frames include `frame` (with the C library function at depth 0). */
static void
check_backtraces (sqlite3    *db,
                  gint64      gtid,
                  const char *func,
                  const char *frame,
                  gint64     *n_calls,
                  gint64     *n_without)
{
  g_autofree char *calls = g_strdup_printf (
      "SELECT count(*) FROM OSRT_API o JOIN StringIds n ON n.id = o.nameId WHERE o.globalTid = %"
      G_GINT64_FORMAT " AND n.value = '%s' AND o.end - o.start >= 80000", gtid, func);
  g_autofree char *without = g_strdup_printf (
      "SELECT count(*) FROM OSRT_API o JOIN StringIds n ON n.id = o.nameId WHERE o.globalTid = %"
      G_GINT64_FORMAT " AND n.value = '%s' AND o.end - o.start >= 80000 AND (NOT EXISTS "
      "(SELECT 1 FROM OSRT_CALLCHAINS c JOIN StringIds s ON s.id = c.symbol WHERE c.id = "
      "o.callchainId AND s.value = '%s') OR NOT EXISTS (SELECT 1 FROM OSRT_CALLCHAINS c JOIN "
      "StringIds s ON s.id = c.symbol WHERE c.id = o.callchainId AND c.stackDepth = 0 AND "
      "s.value LIKE '%%%s%%'))",
      gtid, func, frame, func);
  *n_calls = sl_test_sql_int (db, calls);
  *n_without = sl_test_sql_int (db, without);
}

/* Time thread `gtid` spends in each SlThreadState inside [from, to], from the model's thread-state
 * lane as the viewer draws it. */
static void
model_state_ns (SlTrace *trace,
                gint64   gtid,
                gint64   from,
                gint64   to,
                gint64   ns[SL_N_THREAD_STATES])
{
  memset (ns, 0, sizeof (gint64) * SL_N_THREAD_STATES);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_SCHED || lane->thread < 0
          || sl_trace_get_thread (trace, (guint) lane->thread)->global_tid != (guint64) gtid)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          gint64 a = MAX (ev->start, from), b = MIN (ev->end, to);
          g_assert_cmpuint (ev->aux & SL_STATE_DERIVED, ==, 0);
          if (b > a)
            ns[SL_STATE_OF (ev->aux)] += b - a;
        }
    }
}

/* sl-sched-target recorded with scheduling by `method`: every thread's running share from
 * SCHED_EVENTS against the CPU time it measured itself over its window. */
static void
record_sched (const char *method,
              double      tolerance)
{
  g_autofree char *name = g_strdup_printf ("sched-%s.sqlite", method);
  g_autofree char *path = trace_path (name);
  g_autofree char *report_name = g_strdup_printf ("sched-%s.txt", method);
  g_autofree char *report = trace_path (report_name);
  g_autofree char *err = NULL;
  g_autofree char *text = NULL;

  g_unlink (report);
  int code = record (&err, "-o", path, "-f", "-s", "none", "--sched", method, "--",
                     SL_SCHED_TARGET_PATH, report, NULL);
  g_assert_cmpint (code, ==, 0);
  if (strstr (err, "scheduling: not recorded") != NULL)
    {
      /* perf refused (a seccomp filter, perf_event_paranoid 3): the fallback is tested too */
      g_assert_cmpstr (method, ==, "perf");
      g_test_skip ("perf_event_open is refused here");
      return;
    }
  g_assert_nonnull (strstr (err, strcmp (method, "perf") == 0 ? "scheduling: perf"
                                                               : "scheduling: /proc polling"));
  sqlite3 *db = sl_test_open_db (path);
  g_autofree char *how = sl_test_sql_text (
    db, "SELECT value FROM META_DATA_CAPTURE WHERE name = 'SCHED_METHOD'");
  g_assert_nonnull (how);
  g_assert_true (g_str_has_prefix (how, strcmp (method, "perf") == 0 ? "perf" : "/proc"));
  g_assert_cmpint (events_written (err), ==, event_rows (db));

  /* ins and outs alternate per thread; CPUs are the machine's */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM (SELECT isSchedIn AS i, lead (isSchedIn) "
                                "OVER (PARTITION BY globalTid ORDER BY start, isSchedIn) AS ni "
                                "FROM SCHED_EVENTS) WHERE i = ni"),
                   ==, 0);
  g_autofree char *cpus = g_strdup_printf ("SELECT count(*) FROM SCHED_EVENTS WHERE cpu < 0 OR cpu >= %ld",
                                           sysconf (_SC_NPROCESSORS_CONF));
  g_assert_cmpint (sl_test_sql_int (db, cpus), ==, 0);

  g_assert_true (g_file_get_contents (report, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (g_strstrip (text), "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 7); /* five threads, the child's two */
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  double share_of[7] = { 0 };
  gint64 gtid_of[7] = { 0 }, pid_of[7] = { 0 };
  const char *const names[] = { "spinner", "duty", "sleeper", "piper", "locker", "child-main",
                                "child-spin" };
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char tname[32];
      long pid, tid;
      gint64 t0, t1, cpu;
      g_assert_cmpint (sscanf (lines[i], "%31s %ld %ld %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                               " %" G_GINT64_FORMAT, tname, &pid, &tid, &t0, &t1, &cpu), ==, 6);
      gint64 gtid = (G_GINT64_CONSTANT (1) << 48) | ((gint64) pid << 24) | tid;
      double share = (double) sched_running_ns (db, gtid, t0, t1) / (double) (t1 - t0);
      double truth = (double) cpu / (double) (t1 - t0);
      g_test_message ("%s (%s): running %.1f%% of its window, its own CPU time %.1f%%", tname,
                      method, share * 100, truth * 100);
      g_assert_cmpfloat (fabs (share - truth), <=, tolerance);
      /* the thread-state lane the viewer shows says the same; the threads that sleep or wait on
       * a pipe or a mutex are blocked, not runnable or unknown, most of their window */
      gint64 ns[SL_N_THREAD_STATES];
      model_state_ns (trace, gtid, t0, t1, ns);
      double running = (double) ns[SL_STATE_RUNNING] / (double) (t1 - t0);
      double blocked = (double) ns[SL_STATE_BLOCKED] / (double) (t1 - t0);
      g_test_message ("%s (%s): model: running %.1f%%, blocked %.1f%%, runnable %.1f%%, "
                      "unknown %.1f%%", tname, method, running * 100, blocked * 100,
                      100.0 * (double) ns[SL_STATE_RUNNABLE] / (double) (t1 - t0),
                      100.0 * (double) ns[SL_STATE_UNKNOWN] / (double) (t1 - t0));
      g_assert_cmpfloat (fabs (running - truth), <=, tolerance);
      if (g_str_equal (tname, "sleeper") || g_str_equal (tname, "piper")
          || g_str_equal (tname, "locker"))
        g_assert_cmpfloat (blocked, >=, 0.8);
      for (guint k = 0; k < G_N_ELEMENTS (names); k++)
        if (strcmp (tname, names[k]) == 0)
          {
            share_of[k] = share;
            gtid_of[k] = gtid;
            pid_of[k] = pid;
          }
    }
  /* the proportions the program was written for: the spinner busiest, then the 25% duty cycle;
   * the sleeping and blocked ones next to nothing */
  g_assert_cmpfloat (share_of[0], >, share_of[1]);
  g_assert_cmpfloat (share_of[1], >, share_of[2] + 0.02); /* a loaded machine stretches duty */
  for (guint k = 2; k <= 5; k++)
    g_assert_cmpfloat (share_of[k], <, 0.05);
  g_assert_cmpfloat (share_of[6], >, share_of[5]);
  /* the forked child, exec'd without the injection library, is another process, covered as
   * well: from outside */
  g_assert_cmpint (pid_of[6], !=, pid_of[0]);
  g_assert_cmpint (pid_of[5], ==, pid_of[6]);

  /* blocking calls over 80 µs have backtraces through the program's own function */
  gint64 n, without;
  check_backtraces (db, gtid_of[3], "read", "pipe_wait_fn", &n, &without);
  g_assert_cmpint (n, >=, 3); /* of 8: a late thread finds some ready */
  g_assert_cmpint (without, ==, 0);
  check_backtraces (db, gtid_of[4], "pthread_mutex_lock", "mutex_wait_fn", &n, &without);
  g_assert_cmpint (n, >=, 3); /* of 8: a late thread finds some ready */
  g_assert_cmpint (without, ==, 0);
  /* and only those */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OSRT_API WHERE end - start < 80000 AND callchainId != 0"),
                   ==, 0);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OSRT_API o WHERE callchainId != 0 AND NOT EXISTS "
                                "(SELECT 1 FROM OSRT_CALLCHAINS c WHERE c.id = o.callchainId)"),
                   ==, 0);

  /* every process's command line and parent, the child's as /proc showed it after its exec */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM SL_PROCESS_INFO"), ==, 2);
  g_autofree char *parent_sql = g_strdup_printf (
      "SELECT commandLine FROM SL_PROCESS_INFO WHERE pid = %" G_GINT64_FORMAT, pid_of[0]);
  g_autofree char *child_sql = g_strdup_printf (
      "SELECT commandLine FROM SL_PROCESS_INFO WHERE pid = %" G_GINT64_FORMAT " AND parentPid = %"
      G_GINT64_FORMAT, pid_of[6], pid_of[0]);
  g_autofree char *parent_cmd = sl_test_sql_text (db, parent_sql);
  g_autofree char *child_cmd = sl_test_sql_text (db, child_sql);
  g_autofree char *want_parent = g_strdup_printf ("%s %s", SL_SCHED_TARGET_PATH, report);
  g_autofree char *want_child = g_strdup_printf ("%s child %s", SL_SCHED_TARGET_PATH, report);
  g_assert_cmpstr (parent_cmd, ==, want_parent);
  g_assert_cmpstr (child_cmd, ==, want_child);
  g_autofree char *gpid_sql = g_strdup_printf (
      "SELECT count(*) FROM SL_PROCESS_INFO WHERE globalPid = %" G_GINT64_FORMAT
      " AND parentPid > 0", gtid_of[0] & ~G_GINT64_CONSTANT (0xFFFFFF));
  g_assert_cmpint (sl_test_sql_int (db, gpid_sql), ==, 1);
  sqlite3_close (db);
}

static void
test_sched_perf (void)
{
  record_sched ("perf", 0.03);
}

/* the fallback: running time exact too, placed within a poll or a scheduler tick */
static void
test_sched_proc (void)
{
  record_sched ("proc", 0.03);
}

static void
test_sched_off (void)
{
  g_autofree char *path = trace_path ("sched-off.sqlite");
  g_autofree char *err = NULL;
  int code = record (&err, "-o", path, "-s", "none", "--sched", "off", "--", SL_TARGET_PATH,
                     "exit", "0", NULL);

  g_assert_cmpint (code, ==, 0);
  g_assert_nonnull (strstr (err, "scheduling: off"));
  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM SCHED_EVENTS"), ==, 0);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM SL_PROCESS_INFO"), ==, 1);
  sqlite3_close (db);
}

/* A program that crashes keeps what was recorded, its scheduling (by `sched`) included. */
static void
record_crash (const char *sched)
{
  g_autofree char *name = g_strdup_printf ("crash-%s.sqlite", sched);
  g_autofree char *path = trace_path (name);
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int code = record (&err, "-o", path, "-s", "none", "--sched", sched, "--", SL_TARGET_PATH,
                     "crash", NULL);

  g_assert_cmpint (code, ==, 128 + SIGSEGV);
  g_assert_nonnull (strstr (err, "signal 11"));
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpint (count_osrt (db, tid_named (db, "sl-test-target"), "nanosleep", 900000), ==, 4);
  g_assert_cmpint (events_written (err), ==, event_rows (db));
  /* its scheduling, recorded from outside, is kept too, to the end of the process */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM SCHED_EVENTS"), >, 0);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT isSchedIn FROM SCHED_EVENTS WHERE globalTid % 16777216 = "
                                "(globalTid >> 24) % 16777216 ORDER BY start DESC LIMIT 1"),
                   ==, 0);
#ifdef SL_HAVE_NVTX
  /* the range the program died in ends where the process did */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId "
                                "WHERE s.value = 'doomed' AND n.end - n.start >= 300000000"),
                   ==, 1);
#endif
  sqlite3_close (db);
}

static void
test_crash (void)
{
  record_crash ("on");
}

static void
test_crash_proc (void)
{
  record_crash ("proc");
}

static void
test_sigkill (void)
{
  g_autofree char *path = trace_path ("sigkill.sqlite");
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int code = record (&err, "-o", path, "-s", "none", "--", SL_TARGET_PATH, "sigkill", NULL);

  g_assert_cmpint (code, ==, 128 + SIGKILL);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sqlite3 *db = sl_test_open_db (path);
  /* flushed 300 ms before the kill: the three 1 ms sleeps are there (the 300 ms one ended just
   * before the kill and may be lost with the last flush) */
  g_assert_cmpint (count_osrt (db, tid_named (db, "sl-test-target"), "nanosleep", 900000), >=, 3);
  sqlite3_close (db);
}

/* --capture-range=nvtx: only the time inside the first NVTX range "step 1" (pushed by a worker)
 * is recorded: that range and its "inner", the OS runtime calls made meanwhile; no "step 0" or
 * "step 2", no "whole run" (started before), no child mark. */
static void
test_capture_nvtx (void)
{
  g_autofree char *path = trace_path ("capture-nvtx.sqlite");
  g_autofree char *err = NULL;

  g_assert_cmpint (record (&err, "-o", path, "-s", "none", "--sched", "off",
                           "--capture-range=nvtx", "--nvtx-capture", "step 1",
                           "--capture-range-end=stop", "--osrt-threshold", "1", "--",
                           SL_TARGET_PATH, "threads", NULL),
                   ==, 0);
  sqlite3 *db = sl_test_open_db (path);
  /* the first "step 1" began the capture; the other worker's may fall in it too */
  sqlite3_exec (db, "CREATE TEMP VIEW cap AS SELECT n.start, n.end, n.globalTid FROM NVTX_EVENTS n "
                    "JOIN StringIds s ON s.id = n.textId WHERE s.value = 'step 1' "
                    "ORDER BY n.start LIMIT 1", NULL, NULL, NULL);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM cap"), ==, 1);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM NVTX_EVENTS n JOIN StringIds s "
                                        "ON s.id = n.textId WHERE s.value IN ('whole run', "
                                        "'child mark') OR (s.value IN ('step 0', 'step 2') AND "
                                        "n.globalTid = (SELECT globalTid FROM cap))"),
                   ==, 0);
  /* the range's own thread: its "inner" and the nanosleep inside it */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM NVTX_EVENTS n JOIN StringIds s "
                                        "ON s.id = n.textId WHERE s.value = 'inner' AND "
                                        "n.globalTid = (SELECT globalTid FROM cap)"),
                   ==, 1);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OSRT_API o, cap "
                                        "WHERE o.globalTid = cap.globalTid"),
                   >, 0);
  /* other threads' calls too, inside it: the range begins (ends) a few µs after (before) its
   * push (pop) is timed, on the other threads as soon as they see it: 1 ms of slack */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OSRT_API o, cap "
                                        "WHERE o.start < cap.start - 1000000 "
                                        "OR o.start > cap.end + 1000000"),
                   ==, 0);
  sqlite3_close (db);

  /* the range's name is needed */
  g_autofree char *bad = trace_path ("capture-nvtx-bad.sqlite");
  g_autofree char *err2 = NULL;
  g_assert_cmpint (record (&err2, "-o", bad, "--capture-range", "nvtx", "--", SL_TARGET_PATH,
                           "exit", "0", NULL),
                   ==, 2);
  g_assert_nonnull (strstr (err2, "--nvtx-capture"));
}

static void
test_exit_status (void)
{
  g_autofree char *path = trace_path ("exit.sqlite");
  g_autofree char *err = NULL;

  g_assert_cmpint (record (&err, "-o", path, "--", SL_TARGET_PATH, "exit", "42", NULL), ==, 42);
}

static void
test_bad_program (void)
{
  g_autofree char *path = trace_path ("bad.sqlite");
  g_autofree char *err = NULL, *err2 = NULL, *err3 = NULL;
  g_autofree char *noexec = g_build_filename (sl_test_tmpdir (), "not-executable", NULL);

  g_assert_cmpint (record (&err, "-o", path, "--", "/nonexistent/program", NULL), ==, 127);
  g_assert_nonnull (strstr (err, "/nonexistent/program"));
  g_assert_cmpint (record (&err2, "-o", path, "--", "no-such-command-sightline", NULL), ==, 127);
  g_assert_nonnull (strstr (err2, "command not found"));
  g_assert_true (g_file_set_contents (noexec, "#!/bin/sh\n", -1, NULL));
  g_chmod (noexec, 0644);
  g_assert_cmpint (record (&err3, "-o", path, "--", noexec, NULL), ==, 126);
  g_assert_nonnull (strstr (err3, "not an executable"));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

static void
test_no_overwrite (void)
{
  g_autofree char *path = trace_path ("exists.sqlite");
  g_autofree char *err = NULL, *err2 = NULL;

  g_assert_true (g_file_set_contents (path, "keep me", -1, NULL));
  g_assert_cmpint (record (&err, "-o", path, "--", SL_TARGET_PATH, "exit", "0", NULL), ==, 1);
  g_assert_nonnull (strstr (err, "--force"));
  g_autofree char *contents = NULL;
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "keep me");
  g_assert_cmpint (record (&err2, "-f", "-o", path, "--", SL_TARGET_PATH, "exit", "0", NULL), ==, 0);
}

/* Ctrl+C on `sightline record`: the program gets SIGINT, the trace is finished and kept, and
 * record exits with the program's status (130). */
static void
test_interrupt (void)
{
  g_autofree char *path = trace_path ("interrupted.sqlite");
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SIGHTLINE_RUNTIME_DIR", runtime_dir, TRUE);
  const char *argv[] = { SL_SIGHTLINE_PATH, "record", "-s", "none", "-o", path, "--",
                         SL_TARGET_PATH, "sleep", "20000", NULL };
  g_autoptr (GError) error = NULL;
  GPid pid;
  int status;

  g_assert_true (g_spawn_async (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  g_usleep (700000);
  kill (pid, SIGINT);
  waitpid (pid, &status, 0);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 128 + SIGINT);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OSRT_API"), >=, 10);
  sqlite3_close (db);
}

/* --duration: the recording ends after 0.5 s and the program is asked to end (SIGTERM), as
 * nsys does; nothing that started later is in the trace. */
static void
test_duration (void)
{
  g_autofree char *path = trace_path ("duration.sqlite");
  g_autofree char *err = NULL;
  gint64 t0 = g_get_monotonic_time ();
  int code = record (&err, "-o", path, "-s", "none", "--duration", "0.5", "--", SL_TARGET_PATH,
                     "sleep", "20000", NULL);

  g_assert_cmpint (code, ==, 128 + SIGTERM);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 10 * G_USEC_PER_SEC);
  sqlite3 *db = sl_test_open_db (path);
  gint64 n = sl_test_sql_int (db, "SELECT count(*) FROM OSRT_API");
  gint64 span = sl_test_sql_int (db, "SELECT max(start) - min(start) FROM OSRT_API");
  g_test_message ("%" G_GINT64_FORMAT " sleeps over %" G_GINT64_FORMAT " ns", n, span);
  g_assert_cmpint (n, >=, 10);
  g_assert_cmpint (span, <=, 550000000);
  sqlite3_close (db);
}

/* Whether sl-test-target runs with `arg` among its arguments (not `sightline record`, whose
 * arguments hold it too). */
static gboolean
program_running (const char *arg)
{
  g_autoptr (GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *cmd = NULL;
      gsize len = 0;

      if (!g_ascii_isdigit (name[0]) || !g_file_get_contents (path, &cmd, &len, NULL)
          || len == 0 || strcmp (cmd, SL_TARGET_PATH) != 0)
        continue;
      /* NUL-separated arguments: look at each */
      for (gsize at = 0; at < len; at += strlen (cmd + at) + 1)
        if (strcmp (cmd + at, arg) == 0)
          return TRUE;
    }
  return FALSE;
}

/* The daemon is killed while the program runs: the program goes on unharmed to its end. */
static void
test_daemon_killed (void)
{
  g_autofree char *path = trace_path ("orphan.sqlite");
  g_autofree char *marker = trace_path ("orphan.done");
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SIGHTLINE_RUNTIME_DIR", runtime_dir, TRUE);
  const char *argv[] = { SL_SIGHTLINE_PATH, "record", "-o", path, "--", SL_TARGET_PATH, "sleep",
                         "1500", marker, NULL };
  g_autoptr (GError) error = NULL;
  GPid pid;
  int status;

  g_assert_true (g_spawn_async (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  /* the program runs (a loaded machine, or ASan, may take longer than half a second to start the
   * daemon and the program); then the daemon of our private runtime directory goes */
  for (int i = 0; i < 200 && !program_running (marker); i++)
    g_usleep (50000);
  g_assert_true (program_running (marker));
  g_usleep (200000);
  signal_daemon (SIGKILL);
  waitpid (pid, &status, 0);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), !=, 0); /* record says the daemon went away */
  for (int i = 0; i < 40 && !g_file_test (marker, G_FILE_TEST_EXISTS); i++)
    g_usleep (100000);
  g_assert_true (g_file_test (marker, G_FILE_TEST_EXISTS));
  /* what was written before stays a readable trace */
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
}

/* Raw futex(2) waits through syscall() (OpenMP's and Go's locks) are OS runtime calls too,
 * "syscall" as nsys names them, with the program's frame in their backtrace; wakes are not. */
static void
test_raw_futex (void)
{
  g_autofree char *path = trace_path ("futex.sqlite");
  g_autofree char *err = NULL;

  g_assert_cmpint (record (&err, "-o", path, "--", SL_TARGET_PATH, "futex", NULL), ==, 0);
  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OSRT_API o JOIN StringIds n ON "
                                        "n.id = o.nameId WHERE n.value = 'syscall'"), ==, 8);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OSRT_API o JOIN StringIds n ON "
                                        "n.id = o.nameId WHERE n.value = 'syscall' AND "
                                        "o.end - o.start >= 15000000"), ==, 8);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(DISTINCT o.rowid) FROM OSRT_API o "
                                        "JOIN StringIds n ON n.id = o.nameId "
                                        "JOIN OSRT_CALLCHAINS c ON c.id = o.callchainId "
                                        "JOIN StringIds s ON s.id = c.symbol "
                                        "WHERE n.value = 'syscall' AND s.value = 'futex_wait_fn'"),
                   ==, 8);
  sqlite3_close (db);
}

/* ---- issue 17: one file per rank, each process's rank ---------------------------------- */

static const char *
lookup_table (const char *name,
              void       *data)
{
  return g_hash_table_lookup (data, name);
}

/* Expands `pattern` with RANK=3, SLURM_PROCID=12, EMPTY="" set (and nothing else), host "node7",
 * pid 4242; the error text in *err when it fails. */
static char *
expand (const char *pattern,
        char      **err)
{
  g_autoptr (GHashTable) env = g_hash_table_new (g_str_hash, g_str_equal);
  char why[512] = "";

  g_hash_table_insert (env, "RANK", "3");
  g_hash_table_insert (env, "SLURM_PROCID", "12");
  g_hash_table_insert (env, "EMPTY", "");
  char *r = sl_control_expand_output (pattern, lookup_table, env, "node7", 4242, why, sizeof why);
  char *copy = g_strdup (r);
  free (r);
  if (err != NULL)
    *err = r == NULL ? g_strdup (why) : NULL;
  return copy;
}

/* %q{VAR}, %h, %p and %% as nsys has them; an unset variable is an error naming it */
static void
test_output_pattern (void)
{
  static const struct
  {
    const char *pattern, *want;
  } ok[] = {
    { "trace.sqlite", "trace.sqlite" },
    { "trace-%q{RANK}.sqlite", "trace-3.sqlite" },
    { "%q{SLURM_PROCID}/r%q{RANK}-%h-%p.sqlite", "12/r3-node7-4242.sqlite" },
    { "%q{RANK}%q{RANK}", "33" },
    { "100%%-%q{RANK}%%", "100%-3%" },
    { "%%q{RANK}", "%q{RANK}" },   /* %% first: the rest is text */
    { "%%%p", "%4242" },
    { "a%q{EMPTY}b", "ab" },       /* set but empty: nothing */
    { "", "" },
  };
  static const struct
  {
    const char *pattern, *says;
  } bad[] = {
    { "trace-%q{NO_SUCH_VAR}.sqlite", "NO_SUCH_VAR is not set" },
    { "t-%q{RANK}-%q{WORLD}.sqlite", "WORLD is not set" },
    { "t-%q{RANK", "closing }" },
    { "t-%q{}", "closing }" },
    { "t-%q", "'%q' is not a pattern" },
    { "t-%n.sqlite", "'%n' numbers the files of a flight recorder: only with --keep-last" },
    { "t-%", "is not a pattern" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      g_autofree char *err = NULL;
      g_autofree char *got = expand (ok[i].pattern, &err);
      g_assert_no_errno (0);
      if (got == NULL)
        g_error ("%s: %s", ok[i].pattern, err);
      g_assert_cmpstr (got, ==, ok[i].want);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *err = NULL;
      g_autofree char *got = expand (bad[i].pattern, &err);
      g_assert_null (got);
      g_assert_nonnull (strstr (err, bad[i].says));
      g_assert_nonnull (strstr (err, bad[i].pattern)); /* and names the pattern */
    }
}

/* `sightline record -o 'rank-%q{…}.sqlite'` end to end: the file the rank's variable names; an
 * unset variable fails before anything runs, naming it */
static void
test_output_per_rank (void)
{
  static const char *const env[] = { "SL_TEST_RANK=5", NULL };
  g_autofree char *pattern = trace_path ("rank-%q{SL_TEST_RANK}-%%.sqlite");
  g_autofree char *want = trace_path ("rank-5-%.sqlite");
  g_autofree char *err = NULL;

  record_env = env;
  int code = record (&err, "-o", pattern, "-s", "none", "--sched", "off", "--", SL_TARGET_PATH,
                     "exit", "0", NULL);
  record_env = NULL;
  g_assert_cmpint (code, ==, 0);
  g_assert_true (g_file_test (want, G_FILE_TEST_IS_REGULAR));
  g_assert_nonnull (strstr (err, want));

  g_autofree char *err2 = NULL;
  g_autofree char *unset = trace_path ("rank-%q{SL_TEST_NO_SUCH_RANK}.sqlite");
  code = record (&err2, "-o", unset, "--", SL_TARGET_PATH, "exit", "0", NULL);
  g_assert_cmpint (code, ==, 2);
  g_assert_nonnull (strstr (err2, "SL_TEST_NO_SUCH_RANK is not set"));
  g_autofree char *literal = trace_path ("rank-.sqlite");
  g_assert_false (g_file_test (literal, G_FILE_TEST_EXISTS));
}

/* Each process's rank from its own environment (RANK before SLURM_PROCID before
 * OMPI_COMM_WORLD_RANK before PMI_RANK), as `sightline record -- torchrun …` sees a job's ranks:
 * a shell with SLURM_PROCID=7 starts one child with RANK=1, one with RANK=2 and one that drops
 * SLURM_PROCID and OMPI_COMM_WORLD_RANK and has PMI_RANK=5 (through env's exec: the rank after
 * the exec counts). */
static void
test_process_ranks (void)
{
  g_autofree char *path = trace_path ("ranks.sqlite");
  g_autofree char *err = NULL;
  g_autofree char *script = g_strdup_printf (
      "RANK=1 %s exit 0 & RANK=2 %s exit 0 & env -u SLURM_PROCID -u OMPI_COMM_WORLD_RANK "
      "PMI_RANK=5 %s exit 0; wait",
      SL_TARGET_PATH, SL_TARGET_PATH, SL_TARGET_PATH);
  int code = record (&err, "-o", path, "-s", "none", "--env", "SLURM_PROCID=7", "--env",
                     "OMPI_COMM_WORLD_RANK=9", "--", "/bin/sh", "-c", script, NULL);

  g_assert_cmpint (code, ==, 0);
  sqlite3 *db = sl_test_open_db (path);
  g_autofree char *by_target = g_strdup_printf (
      "SELECT group_concat(rank) FROM (SELECT rank FROM SL_PROCESS_INFO WHERE commandLine LIKE "
      "'%s exit 0' ORDER BY rank)", SL_TARGET_PATH);
  g_autofree char *ranks = sl_test_sql_text (db, by_target);
  g_assert_cmpstr (ranks, ==, "1,2,5");
  /* the shell: SLURM_PROCID, which comes before OMPI_COMM_WORLD_RANK */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT rank FROM SL_PROCESS_INFO WHERE commandLine "
                                        "LIKE '/bin/sh -c %'"),
                   ==, 7);
  sqlite3_close (db);

  /* the model: each process its rank; the trace none (it holds several) */
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  guint seen = 0;
  for (guint i = 0; i < sl_trace_get_n_processes (trace); i++)
    {
      const SlProcess *p = sl_trace_get_process (trace, i);
      const char *cmd = sl_trace_str (trace, p->command_line);
      if (g_str_has_prefix (cmd, SL_TARGET_PATH))
        {
          g_assert_true (p->rank == 1 || p->rank == 2 || p->rank == 5);
          seen |= 1u << p->rank;
        }
    }
  g_assert_cmpuint (seen, ==, (1u << 1) | (1u << 2) | (1u << 5));
  g_assert_cmpint (sl_trace_get_rank (trace), ==, -1);

  /* `sightline info` says it, in text and JSON */
  g_auto (SlTestRun) run = { 0 };
  sl_test_run (&run, SL_SIGHTLINE_PATH, "info", path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "rank 1 · "));
  g_assert_nonnull (strstr (run.out, "rank 2 · "));
  g_assert_nonnull (strstr (run.out, "rank 5 · "));
  g_assert_nonnull (strstr (run.out, "rank 7 · "));
  g_assert_null (strstr (run.out, "Rank:"));
  g_auto (SlTestRun) json = { 0 };
  sl_test_run (&json, SL_SIGHTLINE_PATH, "info", "--format", "json", path, NULL);
  g_assert_cmpint (json.status, ==, 0);
  g_assert_nonnull (strstr (json.out, "\"rank\" : 5"));
  g_assert_nonnull (strstr (json.out, "\"rank\" : null"));

  /* `export` to SQLite keeps them */
  g_autofree char *copy = trace_path ("ranks-export.sqlite");
  g_auto (SlTestRun) exp = { 0 };
  sl_test_run (&exp, SL_SIGHTLINE_PATH, "export", path, "-o", copy, NULL);
  g_assert_cmpint (exp.status, ==, 0);
  g_autoptr (SlTrace) back = sl_trace_load (copy, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_processes (back), ==, sl_trace_get_n_processes (trace));
  for (guint i = 0; i < sl_trace_get_n_processes (trace); i++)
    for (guint k = 0; k < sl_trace_get_n_processes (back); k++)
      if (sl_trace_get_process (back, k)->pid == sl_trace_get_process (trace, i)->pid)
        g_assert_cmpint (sl_trace_get_process (back, k)->rank, ==,
                         sl_trace_get_process (trace, i)->rank);
}

/* One rank's recording (srun sightline record …): the trace is that rank; none without one */
static void
test_trace_rank (void)
{
  g_autofree char *path = trace_path ("rank-4.sqlite");
  g_autofree char *plain = trace_path ("no-rank.sqlite");
  g_autofree char *err = NULL, *err2 = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (record (&err, "-o", path, "-s", "none", "--env", "RANK=4", "--env",
                           "WORLD_SIZE=8", "--", SL_TARGET_PATH, "exit", "0", NULL),
                   ==, 0);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sl_trace_get_rank (trace), ==, 4);
  g_auto (SlTestRun) run = { 0 };
  sl_test_run (&run, SL_SIGHTLINE_PATH, "info", path, NULL);
  g_assert_nonnull (strstr (run.out, "Rank:       4\n"));

  /* a rank's variable that is no number is no rank ("RANK=abc") */
  g_assert_cmpint (record (&err2, "-o", plain, "-s", "none", "--env", "RANK=abc", "--",
                           SL_TARGET_PATH, "exit", "0", NULL),
                   ==, 0);
  g_autoptr (SlTrace) none = sl_trace_load (plain, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sl_trace_get_rank (none), ==, -1);
  for (guint i = 0; i < sl_trace_get_n_processes (none); i++)
    g_assert_cmpint (sl_trace_get_process (none, i)->rank, ==, -1);
}

/* ---- call chains while recording (issue 15, item 4) -------------------------------------- */

/* A consistent copy of a trace the daemon may be writing: what a reader sees at one moment. */
static void
backup (const char *from,
        const char *to)
{
  sqlite3 *src = sl_test_open_db (from), *dst = NULL;

  g_assert_cmpint (sqlite3_open (to, &dst), ==, SQLITE_OK);
  sqlite3_backup *b = sqlite3_backup_init (dst, "main", src, "main");
  g_assert_nonnull (b);
  while (sqlite3_backup_step (b, -1) == SQLITE_BUSY)
    g_usleep (10000);
  g_assert_cmpint (sqlite3_backup_finish (b), ==, SQLITE_OK);
  sqlite3_close (dst);
  sqlite3_close (src);
}

static gboolean
has_table (sqlite3    *db,
           const char *table)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", table);
  return sl_test_sql_int (db, sql) > 0;
}

/* `sightline samples` of the file: its folded stacks. */
static char *
folded_samples (const char *path)
{
  g_auto (SlTestRun) run = { 0 };

  sl_test_run (&run, SL_SIGHTLINE_PATH, "samples", "--format", "folded", path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  return g_steal_pointer (&run.out);
}

/* The frames of the samples with id <= max_id, a line per frame (id, depth, symbol, module,
 * unresolved, address, unwind method): from SAMPLING_CALLCHAINS, or from the side tables the
 * daemon writes until the end. */
static char *
chain_rows (sqlite3  *db,
            gint64    max_id,
            gboolean  side)
{
  g_autofree char *sql = g_strdup_printf (
      side ? "SELECT s.sampleId, f.stackDepth, y.value, m.value, f.unresolved, f.originalIP, "
             "f.unwindMethod FROM SIGHTLINE_SAMPLE_CHAINS s JOIN SIGHTLINE_CHAIN_FRAMES f "
             "ON f.chainId = s.chainId JOIN StringIds y ON y.id = f.symbol JOIN StringIds m "
             "ON m.id = f.module WHERE s.sampleId <= %" G_GINT64_FORMAT " ORDER BY 1, 2"
           : "SELECT c.id, c.stackDepth, y.value, m.value, c.unresolved, c.originalIP, "
             "c.unwindMethod FROM SAMPLING_CALLCHAINS c JOIN StringIds y ON y.id = c.symbol "
             "JOIN StringIds m ON m.id = c.module WHERE c.id <= %" G_GINT64_FORMAT
             " ORDER BY 1, 2",
      max_id);
  sqlite3_stmt *st = NULL;
  GString *out = g_string_new (NULL);

  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &st, NULL), ==, SQLITE_OK);
  while (sqlite3_step (st) == SQLITE_ROW)
    for (int c = 0; c < 7; c++)
      g_string_append_printf (out, "%s%c", (const char *) sqlite3_column_text (st, c),
                              c < 6 ? '|' : '\n');
  sqlite3_finalize (st);
  return g_string_free (out, FALSE);
}

/* Starts `sightline record -s 1000 -o PATH -- sl-test-target spin MS MARKER` and returns once
 * the program runs and the trace has at least `min_samples` samples committed. */
static GPid
start_spinning (const char *path,
                const char *marker,
                const char *ms,
                gint64      min_samples)
{
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SIGHTLINE_RUNTIME_DIR", runtime_dir,
                                         TRUE);
  const char *argv[] = { SL_SIGHTLINE_PATH, "record", "-s", "1000", "-o", path, "--",
                         SL_TARGET_PATH, "spin", ms, marker, NULL };
  g_autoptr (GError) error = NULL;
  GPid pid;

  g_assert_true (g_spawn_async (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  for (int i = 0; i < 400 && !g_file_test (marker, G_FILE_TEST_EXISTS); i++)
    g_usleep (50000);
  g_assert_true (g_file_test (marker, G_FILE_TEST_EXISTS));
  gint64 n = 0;
  for (int i = 0; i < 400 && n < min_samples; i++)
    {
      g_usleep (50000);
      sqlite3 *db = sl_test_open_db (path);
      sqlite3_busy_timeout (db, 5000);
      n = sl_test_sql_int (db, "SELECT count(*) FROM COMPOSITE_EVENTS");
      sqlite3_close (db);
    }
  g_assert_cmpint (n, >=, min_samples);
  return pid;
}

/* The daemon writes each distinct call chain once, in side tables, and SAMPLING_CALLCHAINS at the
 * end: a trace read while recording (the live view) has the samples' stacks from the side tables,
 * the same frames, row for row, as the finished file's SAMPLING_CALLCHAINS, and `sightline
 * samples` folds them into the same stacks. */
static void
test_live_chains (void)
{
  g_autofree char *path = trace_path ("live-chains.sqlite");
  g_autofree char *marker = trace_path ("live-chains.go");
  g_autofree char *mid = trace_path ("live-chains-mid.sqlite");
  g_autofree char *cut = trace_path ("live-chains-cut.sqlite");
  g_autoptr (GError) error = NULL;
  int status;
  GPid pid = start_spinning (path, marker, "2500", 200);

  /* a copy of the moment, and the model reading the growing file as the live view does */
  backup (path, mid);
  g_autoptr (SlTrace) live = sl_trace_load (path, SL_LOAD_SAMPLES | SL_LOAD_LIVE, NULL, NULL,
                                            NULL, &error);
  g_assert_no_error (error);
  guint64 with_stack = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (live); i++)
    {
      const SlLane *lane = sl_trace_get_lane (live, i);
      for (gsize e = 0; lane->kind == SL_LANE_SAMPLES && e < lane->n_events; e++)
        with_stack += lane->events[e].aux != G_MAXUINT32;
    }
  g_assert_cmpuint (with_stack, >=, 200);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);

  sqlite3 *m = sl_test_open_db (mid), *f = sl_test_open_db (path);
  gint64 n = sl_test_sql_int (m, "SELECT max(id) FROM COMPOSITE_EVENTS");
  g_test_message ("%" G_GINT64_FORMAT " samples mid-recording, %" G_GINT64_FORMAT " at the end, "
                  "%" G_GINT64_FORMAT " chains", n,
                  sl_test_sql_int (f, "SELECT count(*) FROM COMPOSITE_EVENTS"),
                  sl_test_sql_int (m, "SELECT count(DISTINCT chainId) "
                                      "FROM SIGHTLINE_CHAIN_FRAMES"));
  g_assert_cmpint (n, >=, 200);
  g_assert_true (has_table (m, "SIGHTLINE_SAMPLE_CHAINS"));
  g_assert_true (has_table (m, "SIGHTLINE_CHAIN_FRAMES"));
  g_assert_cmpint (sl_test_sql_int (m, "SELECT count(*) FROM SAMPLING_CALLCHAINS"), ==, 0);
  g_assert_false (has_table (f, "SIGHTLINE_SAMPLE_CHAINS"));
  g_assert_false (has_table (f, "SIGHTLINE_CHAIN_FRAMES"));
  /* the columns the side tables do not hold are nsys's constants */
  g_assert_cmpint (sl_test_sql_int (f, "SELECT count(*) FROM SAMPLING_CALLCHAINS WHERE "
                                       "kernelMode != 0 OR thumbCode != 0 OR specialEntry != 0"),
                   ==, 0);
  g_autofree char *rows_mid = chain_rows (m, n, TRUE), *rows_end = chain_rows (f, n, FALSE);
  g_assert_cmpuint (strlen (rows_mid), >, 0);
  g_assert_cmpstr (rows_mid, ==, rows_end);
  sqlite3_close (m);
  sqlite3_close (f);

  /* the finished file cut to the same samples folds into the same stacks */
  backup (path, cut);
  sqlite3 *c = NULL;
  g_assert_cmpint (sqlite3_open (cut, &c), ==, SQLITE_OK);
  g_autofree char *del = g_strdup_printf ("DELETE FROM COMPOSITE_EVENTS WHERE id > %"
                                          G_GINT64_FORMAT, n);
  g_assert_cmpint (sqlite3_exec (c, del, NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (c);
  g_autofree char *folded_mid = folded_samples (mid), *folded_end = folded_samples (cut);
  g_assert_nonnull (strstr (folded_mid, "busy_alpha"));
  g_assert_nonnull (strstr (folded_mid, "busy_beta"));
  g_assert_cmpstr (folded_mid, ==, folded_end);
}

/* The daemon dies mid-recording: the samples it committed keep their stacks (the side tables
 * were never expanded), through the model and `sightline samples`. */
static void
test_daemon_killed_chains (void)
{
  g_autofree char *path = trace_path ("orphan-chains.sqlite");
  g_autofree char *marker = trace_path ("orphan-chains.go");
  g_autofree char *journal = g_strconcat (path, "-journal", NULL);
  g_autoptr (GError) error = NULL;
  int status;
  GPid pid = start_spinning (path, marker, "3000", 100);

  signal_daemon (SIGKILL);
  waitpid (pid, &status, 0);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), !=, 0);
  /* killed inside a commit: the hot journal is rolled back by the next read-write open, as
   * SQLite does (the model opens a finished file immutable and would not look) */
  if (g_file_test (journal, G_FILE_TEST_EXISTS))
    {
      sqlite3 *rw = NULL;
      g_assert_cmpint (sqlite3_open (path, &rw), ==, SQLITE_OK);
      sl_test_sql_int (rw, "SELECT count(*) FROM COMPOSITE_EVENTS");
      sqlite3_close (rw);
    }
  sqlite3 *db = sl_test_open_db (path);
  gint64 samples = sl_test_sql_int (db, "SELECT count(*) FROM COMPOSITE_EVENTS");
  g_assert_cmpint (samples, >=, 100);
  g_assert_true (has_table (db, "SIGHTLINE_SAMPLE_CHAINS"));
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM SAMPLING_CALLCHAINS"), ==, 0);
  sqlite3_close (db);

  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  gint64 with_stack = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize e = 0; lane->kind == SL_LANE_SAMPLES && e < lane->n_events; e++)
        with_stack += lane->events[e].aux != G_MAXUINT32;
    }
  g_assert_cmpint (with_stack, ==, samples);
  g_autofree char *folded = folded_samples (path);
  g_assert_nonnull (strstr (folded, "busy_alpha"));
  g_assert_null (strstr (folded, "[no stack]"));
}


static void
limit_file_size_cb (gpointer data)
{
  struct rlimit rl = { GPOINTER_TO_UINT (data), GPOINTER_TO_UINT (data) };

  setrlimit (RLIMIT_FSIZE, &rl);
}

/* Issue 18, item 4: the trace's file reaches its size limit mid-recording (`ulimit -f` on a
 * daemon of its own, started under it): the daemon lives (SIGXFSZ ignored) and says why, the
 * program runs to its end unharmed, and the trace keeps what was committed before and opens. */
static void
test_file_size_limit (void)
{
  g_autofree char *path = trace_path ("size-limit.sqlite");
  g_autofree char *marker = trace_path ("size-limit.marker");
  g_autofree char *dir = g_build_filename (sl_test_tmpdir (), "run-size-limit", NULL);
  g_autofree char *pidfile = g_build_filename (dir, "sightlined.sock.pid", NULL);
  g_autofree char *pid = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SIGHTLINE_RUNTIME_DIR", dir, TRUE);
  g_autoptr (GError) error = NULL;
  const char *argv[] = { SL_SIGHTLINE_PATH, "record", "-f", "-o", path, "-s", "8000", "--",
                         SL_TARGET_PATH, "spin", "3000", marker, NULL };
  int status = -1;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_unlink (path);
  g_unlink (marker);
  /* 3.5 MiB: the empty schema (~2.6 MiB in 64 KiB pages) fits, 3 s of samples at 8 kHz do not */
  g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, limit_file_size_cb,
                GUINT_TO_POINTER (3500 * 1024), &out, &err, &status, &error);
  g_assert_no_error (error);
  g_test_message ("record stderr: %s", err);
  if (g_file_get_contents (pidfile, &pid, NULL, NULL) && atoi (pid) > 1)
    kill (atoi (pid), SIGTERM);
  g_assert_nonnull (strstr (err, "file-size limit"));
  g_assert_nonnull (strstr (err, "the trace keeps what was recorded before"));
  g_assert_nonnull (strstr (err, "the program exited with status 0"));
  g_assert_true (g_file_test (marker, G_FILE_TEST_EXISTS));
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_events (trace), >, 1000);
}

/* ---- a program the injection library never reports from (issue 29, item 1) ------------------ */

/* Debian's /sbin/ldconfig is linked statically (static-pie): no dynamic loader runs in it, so
 * LD_PRELOAD never brings the library in.  Whether it has a PT_INTERP, read here, not taken from
 * what the daemon says. */
static gboolean
linked_statically (const char *path)
{
  Elf64_Ehdr eh;
  gboolean interp = FALSE;
  int fd = open (path, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return FALSE;
  if (pread (fd, &eh, sizeof eh, 0) != sizeof eh || memcmp (eh.e_ident, ELFMAG, SELFMAG) != 0
      || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof (Elf64_Phdr))
    {
      close (fd);
      return FALSE;
    }
  for (guint i = 0; i < eh.e_phnum; i++)
    {
      Elf64_Phdr ph;
      if (pread (fd, &ph, sizeof ph, (off_t) (eh.e_phoff + i * sizeof ph)) != sizeof ph)
        break;
      interp |= ph.p_type == PT_INTERP;
    }
  close (fd);
  return !interp;
}

#define STATIC_PROGRAM "/sbin/ldconfig"

/* `record` of it says that nothing was recorded inside it and why, exits non-zero, and keeps the
 * file with what was seen from outside; never "N events written". */
static void
test_unreported (void)
{
  g_autofree char *path = trace_path ("unreported.sqlite");
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;

  if (!linked_statically (STATIC_PROGRAM))
    {
      g_test_skip (STATIC_PROGRAM " is not a statically linked program here");
      return;
    }
  int code = record (&err, "-o", path, "-s", "none", "--", STATIC_PROGRAM, "-p", NULL);
  g_assert_cmpint (code, !=, 0);
  g_assert_null (strstr (err, "events written"));
  g_assert_nonnull (strstr (err, STATIC_PROGRAM " never reported from the injection library"));
  g_assert_nonnull (strstr (err, "statically linked"));
  g_assert_nonnull (strstr (err, "keeps only what was seen from outside the program"));
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
}

static void
recording_finished_cb (SlRecording *recording,
                       guint64      events,
                       guint64      dropped,
                       const char  *why,
                       gpointer     data)
{
  (void) recording;
  (void) events;
  (void) dropped;
  *(char **) data = g_strdup (why != NULL ? why : "");
}

/* The viewer's recording (SlRecording, the record dialog's) reports the same failure: its
 * "finished" carries the reason, which the window shows. */
static void
test_unreported_gui (void)
{
  g_autoptr (SlRecordSettings) settings = sl_record_settings_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *why = NULL;

  if (!linked_statically (STATIC_PROGRAM))
    {
      g_test_skip (STATIC_PROGRAM " is not a statically linked program here");
      return;
    }
  settings->program = g_strdup (STATIC_PROGRAM);
  g_strfreev (settings->args);
  settings->args = g_strdupv ((char *[]) { "-p", NULL });
  settings->sample_hz = 0;
  settings->output = trace_path ("unreported-gui.sqlite");
  g_autoptr (SlRecording) recording = sl_recording_new (settings);
  g_signal_connect (recording, "finished", G_CALLBACK (recording_finished_cb), &why);
  g_assert_true (sl_recording_start (recording, &error));
  g_assert_no_error (error);
  gint64 until = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  while (why == NULL && g_get_monotonic_time () < until)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (10000);
  g_assert_nonnull (why);
  g_test_message ("finished: %s", why);
  g_assert_nonnull (strstr (why, STATIC_PROGRAM " never reported from the injection library"));
  g_assert_nonnull (strstr (why, "statically linked"));
  g_assert_true (g_file_test (settings->output, G_FILE_TEST_EXISTS));
}

/* ---- the library's own thread (issue 29, item 4) -------------------------------------------- */

/* The flusher, the library's thread in the program, is named "sightline-flush" in the trace; it
 * has scheduling rows and no samples, and `sightline samples --tid` of it is an empty answer, not
 * "no thread", where a thread that is not in the trace still is an error. */
static void
test_library_thread (void)
{
  g_autofree char *path = trace_path ("library-thread.sqlite");
  g_autofree char *err = NULL;
  int code = record (&err, "-o", path, "-s", "1000", "--", SL_TARGET_PATH, "spin", "300", NULL);

  g_assert_cmpint (code, ==, 0);
  sqlite3 *db = sl_test_open_db (path);
  gint64 flusher = tid_named (db, "sightline-flush");
  gint64 main_thread = tid_named (db, "sl-test-target");
  g_assert_cmpint (flusher, >, 0);
  g_assert_cmpint (flusher >> 24, ==, main_thread >> 24); /* in the program's process */
  g_assert_cmpint (flusher, !=, main_thread);
  g_autofree char *samples_sql = g_strdup_printf (
      "SELECT count(*) FROM COMPOSITE_EVENTS WHERE globalTid = %" G_GINT64_FORMAT, flusher);
  g_autofree char *sched_sql = g_strdup_printf (
      "SELECT count(*) FROM SCHED_EVENTS WHERE globalTid = %" G_GINT64_FORMAT, flusher);
  g_assert_cmpint (sl_test_sql_int (db, samples_sql), ==, 0);
  gboolean sched = strstr (err, "scheduling: not recorded") == NULL;
  if (sched)
    g_assert_cmpint (sl_test_sql_int (db, sched_sql), >, 0);
  sqlite3_close (db);

  g_autofree char *tid = g_strdup_printf ("%" G_GINT64_FORMAT, flusher & 0xFFFFFF);
  g_auto (SlTestRun) info = { 0 };
  sl_test_run (&info, SL_SIGHTLINE_PATH, "info", path, "--format", "json", NULL);
  g_assert_cmpint (info.status, ==, 0);
  g_assert_nonnull (strstr (info.out, "sightline-flush"));
  if (sched)
    {
      /* listed by info (its scheduling rows), no samples: an empty answer */
      g_auto (SlTestRun) run = { 0 };
      sl_test_run (&run, SL_SIGHTLINE_PATH, "samples", path, "--tid", tid, NULL);
      g_test_message ("samples --tid %s: %d, %s", tid, run.status, run.err);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_cmpstr (run.out, ==, "");
      g_assert_null (strstr (run.err, "no thread"));
    }
  /* beyond any pid_max: not a thread of the trace */
  g_auto (SlTestRun) none = { 0 };
  sl_test_run (&none, SL_SIGHTLINE_PATH, "samples", path, "--tid", "16777215", NULL);
  g_assert_cmpint (none.status, ==, 2);
  g_assert_nonnull (strstr (none.err, "no thread 16777215"));
}

/* Waits (up to 60 s) until `path` exists. */
static void
wait_for_file (const char *path)
{
  for (int i = 0; i < 1200 && !g_file_test (path, G_FILE_TEST_EXISTS); i++)
    g_usleep (50000);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* A trace's committed rows of `sql` while it is written (0 when it is not there yet). */
static gint64
live_sql_int (const char *path,
              const char *sql)
{
  sqlite3 *db = NULL;
  gint64 n = 0;

  if (!g_file_test (path, G_FILE_TEST_EXISTS)
      || sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
    {
      sqlite3_close (db);
      return 0;
    }
  sqlite3_busy_timeout (db, 5000);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step (st) == SQLITE_ROW)
    n = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  sqlite3_close (db);
  return n;
}

/* Issue 32 item 2, end to end: `record --keep-last 1s -o 'kl-%n.sqlite'` on a program that runs
 * ~3 s and then waits for the test: it records into kl-live.sqlite; `record --snapshot` while
 * the program goes on writes kl-1.sqlite, which loads, SIGUSR1 to `sightline record`
 * kl-2.sqlite and `record --snapshot kl-live.sqlite` kl-3.sqlite (`--snapshot 1`, no such
 * program, none); at the end the trace is kl-4.sqlite (no kl-live.sqlite left), 1 s exactly
 * before its last event, nothing in it ended before, and the exit status is the program's. */
static void
test_keep_last (void)
{
  g_autofree char *pattern = trace_path ("kl-%n.sqlite");
  g_autofree char *live = trace_path ("kl-live.sqlite");
  g_autofree char *hold = trace_path ("kl-hold");
  g_autofree char *snap1 = trace_path ("kl-1.sqlite");
  g_autofree char *snap2 = trace_path ("kl-2.sqlite");
  g_autofree char *snap3 = trace_path ("kl-3.sqlite");
  g_autofree char *final = trace_path ("kl-4.sqlite");
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SIGHTLINE_RUNTIME_DIR", runtime_dir,
                                         TRUE);
  const char *argv[] = { SL_SIGHTLINE_PATH, "record", "--keep-last", "1s", "-s", "200", "-o",
                         pattern, "--", SL_TARGET_PATH, "live", hold, NULL };
  g_autoptr (GError) error = NULL;
  GPid pid;
  int status;

  g_assert_true (g_spawn_async (NULL, (char **) argv, env,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                NULL, &pid, &error));
  g_assert_no_error (error);
  /* the first threads' sleeps are committed */
  for (int i = 0; i < 1200 && live_sql_int (live, "SELECT count(*) FROM OSRT_API") < 20; i++)
    g_usleep (50000);
  g_assert_cmpint (live_sql_int (live, "SELECT count(*) FROM OSRT_API"), >=, 20);

  g_auto (SlTestRun) run = { 0 };
  sl_test_run (&run, SL_SIGHTLINE_PATH, "record", "--snapshot", NULL);
  g_test_message ("--snapshot: %d %s %s", run.status, run.out, run.err);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (g_strstrip (run.out), ==, snap1);
  g_assert_true (program_running (hold));
  {
    g_autoptr (SlTrace) trace = sl_trace_load (snap1, SL_LOAD_ALL, NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (sl_trace_get_n_events (trace), >=, 20);
    sqlite3 *db = sl_test_open_db (snap1);
    g_assert_cmpint (sl_test_sql_int (db, "SELECT value FROM META_DATA_CAPTURE WHERE name = "
                                          "'KEEP_LAST_MS'"),
                     ==, 1000);
    g_assert_false (has_table (db, "SIGHTLINE_SAMPLE_CHAINS"));
    sqlite3_close (db);
  }
  kill (pid, SIGUSR1);
  wait_for_file (snap2);
  g_auto (SlTestRun) none = { 0 };
  sl_test_run (&none, SL_SIGHTLINE_PATH, "record", "--snapshot", "1", NULL);
  g_assert_cmpint (none.status, ==, 1);
  g_assert_nonnull (strstr (none.err, "no flight recorder"));
  g_auto (SlTestRun) by_file = { 0 };
  sl_test_run (&by_file, SL_SIGHTLINE_PATH, "record", "--snapshot", live, NULL);
  g_assert_cmpint (by_file.status, ==, 0);
  g_assert_cmpstr (g_strstrip (by_file.out), ==, snap3);
  g_assert_true (g_file_set_contents (hold, "", -1, NULL));
  waitpid (pid, &status, 0);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  g_assert_false (g_file_test (live, G_FILE_TEST_EXISTS));
  g_autoptr (SlTrace) trace = sl_trace_load (final, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sqlite3 *db = sl_test_open_db (final);
  gint64 from = sl_test_sql_int (db, "SELECT startTime FROM ANALYSIS_DETAILS");
  g_assert_cmpint (sl_test_sql_int (db, "SELECT stopTime FROM ANALYSIS_DETAILS") - from, ==,
                   1000000000);
  g_autofree char *before = g_strdup_printf ("SELECT count(*) FROM OSRT_API WHERE end < %"
                                             G_GINT64_FORMAT, from);
  g_assert_cmpint (sl_test_sql_int (db, before), ==, 0);
  g_autofree char *early = g_strdup_printf ("SELECT count(*) FROM COMPOSITE_EVENTS WHERE start < %"
                                            G_GINT64_FORMAT, from);
  g_assert_cmpint (sl_test_sql_int (db, early), ==, 0);
  /* the threads started every 500 ms: the last ones are in, the first ones went */
  g_assert_cmpint (tid_named (db, "live-6"), >, 0);
  g_autofree char *first = g_strdup_printf (
      "SELECT count(*) FROM OSRT_API WHERE globalTid = %" G_GINT64_FORMAT,
      tid_named (db, "live-1"));
  g_assert_cmpint (sl_test_sql_int (db, first), ==, 0);
  sqlite3_close (db);
}

/* Issue 32 item 3, end to end: --max-size 8M on a program that would write ~30 MB (dd's 1-byte
 * reads and writes, every OS call recorded): the file is at most SIZE plus a commit, opens, and
 * its diagnostics and the terminal say where recording stopped; the program ran to its end with
 * its own exit status.  Bad values name the option. */
static void
test_max_size (void)
{
  g_autofree char *path = trace_path ("max-size.sqlite");
  g_autofree char *err = NULL;
  const gint64 SIZE = 8 << 20;

  g_assert_cmpint (record (&err, "-o", path, "-s", "none", "--sched", "off", "--osrt-threshold",
                           "1", "--max-size", "8M", "--", "/bin/sh", "-c",
                           "dd if=/dev/zero of=/dev/null bs=1 count=400000 2>/dev/null; exit 3",
                           NULL),
                   ==, 3);
  g_assert_nonnull (strstr (err, "recording stopped at"));
  g_assert_nonnull (strstr (err, "--max-size 8 MiB"));
  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_test_message ("%" G_GINT64_FORMAT " bytes", (gint64) st.st_size);
  g_assert_cmpint (st.st_size, <=, SIZE + (4 << 20));
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM OSRT_API"), >, 50000);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM DIAGNOSTIC_EVENT WHERE text LIKE "
                                        "'recording stopped at % s: the trace reached "
                                        "--max-size%'"),
                   ==, 1);
  sqlite3_close (db);

  static const struct
  {
    const char *option, *value, *says;
  } bad[] = {
    { "--keep-last", "5x", "--keep-last 5x: a duration such as 30s" },
    { "--keep-last", "0s", "--keep-last 0s: from 100ms" },
    { "--keep-last", "", "--keep-last : a duration" },
    { "--max-size", "0", "--max-size 0: from 8M" },
    { "--max-size", "3P", "--max-size 3P: a size such as" },
    { "--max-size", "99999T", "--max-size 99999T: from 8M" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *e = NULL;
      g_assert_cmpint (record (&e, bad[i].option, bad[i].value, "-o", path, "--", SL_TARGET_PATH,
                               "exit", "0", NULL),
                       ==, 2);
      g_assert_nonnull (strstr (e, bad[i].says));
    }
  g_autofree char *e = NULL;
  g_assert_cmpint (record (&e, "-o", "t-%n.sqlite", "--", SL_TARGET_PATH, "exit", "0", NULL), ==,
                   2);
  g_assert_nonnull (strstr (e, "only with --keep-last"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/record/keep-last", test_keep_last);
  g_test_add_func ("/collector/record/max-size", test_max_size);
  runtime_dir = g_build_filename (sl_test_tmpdir (), "run", NULL);
  g_mkdir (runtime_dir, 0700);
  /* for the recordings made in this process (SlRecording); `record` sets its own */
  g_setenv ("SIGHTLINE_RUNTIME_DIR", runtime_dir, TRUE);
  g_test_add_func ("/collector/record/threads", test_threads);
  g_test_add_func ("/collector/record/crash", test_crash);
  g_test_add_func ("/collector/record/crash-proc", test_crash_proc);
  g_test_add_func ("/collector/record/sched-perf", test_sched_perf);
  g_test_add_func ("/collector/record/sched-proc", test_sched_proc);
  g_test_add_func ("/collector/record/sched-off", test_sched_off);
  g_test_add_func ("/collector/record/sigkill", test_sigkill);
  g_test_add_func ("/collector/record/exit-status", test_exit_status);
  g_test_add_func ("/collector/record/capture-nvtx", test_capture_nvtx);
  g_test_add_func ("/collector/record/bad-program", test_bad_program);
  g_test_add_func ("/collector/record/no-overwrite", test_no_overwrite);
  g_test_add_func ("/collector/record/interrupt", test_interrupt);
  g_test_add_func ("/collector/record/file-size-limit", test_file_size_limit);
  g_test_add_func ("/collector/record/duration", test_duration);
  g_test_add_func ("/collector/record/daemon-killed", test_daemon_killed);
  g_test_add_func ("/collector/record/raw-futex", test_raw_futex);
  g_test_add_func ("/collector/record/output-pattern", test_output_pattern);
  g_test_add_func ("/collector/record/output-per-rank", test_output_per_rank);
  g_test_add_func ("/collector/record/process-ranks", test_process_ranks);
  g_test_add_func ("/collector/record/trace-rank", test_trace_rank);
  g_test_add_func ("/collector/record/live-chains", test_live_chains);
  g_test_add_func ("/collector/record/daemon-killed-chains", test_daemon_killed_chains);
  g_test_add_func ("/collector/record/unreported", test_unreported);
  g_test_add_func ("/collector/record/unreported-gui", test_unreported_gui);
  g_test_add_func ("/collector/record/library-thread", test_library_thread);
  int r = g_test_run ();
  /* our daemon would exit by itself after a minute idle; do not leave it behind */
  signal_daemon (SIGTERM);
  return r;
}
