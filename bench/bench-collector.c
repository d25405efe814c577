/* bench-collector.c: what recording costs the recorded program, and how fast the daemon's writer
 * takes records, each against a baseline measured in the same run.
 *
 * Usage: bench-collector SIGHTLINE BENCH-TARGET [N | sched | sampling | daemon [SECONDS [RATE]]]
 *        (sched: part 4 only; sampling: part 2 only; daemon: part 5 only, never in a full run)
 *
 * Parts 1 and 2 record with --sched off: part 4 measures scheduling.
 *
 *  1. OS runtime call that does not block (an uncontended pthread_mutex_lock/unlock pair and a
 *     write(2) of one byte to /dev/null), N times: ns per call plain vs. under `sightline record
 *     -s none` → the difference (target: ≤ 100 ns).
 *  2. CPU sampling at 1 kHz: a fixed amount of CPU work, plain vs. `sightline record -s 1000 -t
 *     none` → the overhead in % of CPU time (target: ≤ 3 %); and the same work under
 *     `perf record -F 1000 -g` when perf works here.
 *  3. Ingest: 4 M OSRT and NVTX records through the trace writer (interning, rows, commits every
 *     100 k records) vs. a bare SQLite insert of the same rows with one prepared statement
 *     (target: ≥ 2 M records a second).
 *  4. Scheduling recorded: threads that switch thousands of times a second, and the worst case
 *     (a pipe ping-pong, a switch every few µs); their wall time under `sightline record -s
 *     none -t none` with --sched off, perf (the default where allowed) and proc (the
 *     fallback), and under perf's own `perf record --switch-events` (the floor of the method:
 *     the kernel writing the same records), runs interleaved, medians of 15 → the cost in % of
 *     the wall time against --sched off (target: ≤ 1 %), of its CPU time, the daemon's CPU
 *     time, and the switches recorded.
 *  5. The daemon under load (`daemon`): a program making RATE OS runtime events a second
 *     (default 100 000: one-byte writes recorded with --osrt-threshold 0) for SECONDS (default
 *     180) under `sightline record -s none -t osrt --sched off`, with a daemon of its own (a
 *     runtime directory of its own); every 10 s the daemon's CPU share over those 10 s (a
 *     fraction of one core) and its resident memory; at the end the slope of the resident memory
 *     (least squares over the points after the first minute), MB a minute, and what an hour
 *     would reach at that slope (target: under one core, under 200 MB).
 *
 * Not a test: prints, asserts nothing.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sl-bench-daemon.h"
#include "sl-trace-writer.h"
#include "sl-wire.h"

static double
run_target (const char *const *argv,
            const char        *what)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  int status;
  double v = -1;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                     &error))
    {
      g_printerr ("bench-collector: %s\n", error->message);
      return -1;
    }
  /* the target prints "WHAT VALUE" lines */
  g_auto (GStrv) lines = g_strsplit (out != NULL ? out : "", "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    if (g_str_has_prefix (*l, what) && (*l)[strlen (what)] == ' ')
      v = g_ascii_strtod (*l + strlen (what) + 1, NULL);
  if (v < 0)
    g_printerr ("bench-collector: %s gave no '%s' (stderr: %s)\n", argv[0], what, err);
  return v;
}

static double
median3 (double a,
         double b,
         double c)
{
  return MAX (MIN (a, b), MIN (MAX (a, b), c));
}

static void
bench_calls (const char *sightline,
             const char *target,
             const char *n)
{
  g_autofree char *trace = g_build_filename (g_get_tmp_dir (), "bench-collector-osrt.sqlite", NULL);
  const char *plain[] = { target, "calls", n, NULL };
  /* the default threshold (1 µs) records every write: on a VM a write(2) takes ~1.5 µs; with
   * 100 µs it is interposed and timed but not recorded, the case of a call that does not block */
  const char *rec[] = { sightline, "record", "-f", "-o", trace, "-s", "none", "-t", "osrt,nvtx",
                        "--sched", "off", "--", target, "calls", n, NULL };
  const char *rec_quiet[] = { sightline, "record", "-f", "-o", trace, "-s", "none", "-t",
                              "osrt,nvtx", "--osrt-threshold", "100000", "--sched", "off", "--",
                              target, "calls", n, NULL };
  const char *keys[] = { "mutex_ns", "write_ns" };

  g_print ("1. OS runtime calls (%s calls, median of 3 runs)\n", n);
  for (int k = 0; k < 2; k++)
    {
      double p[3], r[3], q[3];
      for (int i = 0; i < 3; i++)
        {
          p[i] = run_target (plain, keys[k]);
          r[i] = run_target (rec, keys[k]);
          q[i] = run_target (rec_quiet, keys[k]);
        }
      double pm = median3 (p[0], p[1], p[2]), rm = median3 (r[0], r[1], r[2]);
      double qm = median3 (q[0], q[1], q[2]);
      g_print ("   %-9s plain %7.1f ns; not recorded (under the threshold) %7.1f ns: %+.1f ns "
               "(target <= 100); every call recorded %7.1f ns: %+.1f ns\n",
               keys[k], pm, qm, qm - pm, rm, rm - pm);
    }
  g_unlink (trace);
}

static void
bench_sampling (const char *sightline,
                const char *target)
{
  g_autofree char *trace = g_build_filename (g_get_tmp_dir (), "bench-collector-sample.sqlite", NULL);
  g_autofree char *perf_data = g_build_filename (g_get_tmp_dir (), "bench-collector.perf", NULL);
  const char *plain[] = { target, "work", NULL };
  const char *rec[] = { sightline, "record", "-f", "-o", trace, "-s", "1000", "-t", "none",
                        "--sched", "off", "--", target, "work", NULL };
  const char *perf[] = { "perf", "record", "-q", "-F", "1000", "-g", "-o", perf_data, "--",
                         target, "work", NULL };
  double p[3], r[3], f[3];

  g_print ("2. CPU sampling at 1 kHz (CPU seconds of a fixed loop, median of 3 runs)\n");
  g_autofree char *perf_path = g_find_program_in_path ("perf");
  perf[0] = perf_path; /* g_spawn_sync is not told to search PATH */
  for (int i = 0; i < 3; i++)
    {
      p[i] = run_target (plain, "cpu_s");
      r[i] = run_target (rec, "cpu_s");
      f[i] = perf_path != NULL ? run_target (perf, "cpu_s") : -1;
    }
  double pm = median3 (p[0], p[1], p[2]), rm = median3 (r[0], r[1], r[2]);
  g_print ("   plain %.3f s, sightline %.3f s: %+.2f %% (target <= 3 %%)\n", pm, rm,
           100.0 * (rm - pm) / pm);
  if (f[0] > 0 && f[1] > 0 && f[2] > 0)
    {
      double fm = median3 (f[0], f[1], f[2]);
      g_print ("   perf record -F 1000 -g: %.3f s: %+.2f %%\n", fm, 100.0 * (fm - pm) / pm);
    }
  else
    g_print ("   perf record -F 1000 -g: not available here (perf_event_paranoid or no perf)\n");
  g_unlink (trace);
  g_unlink (perf_data);
}

static double
median (double *v,
        int     n)
{
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--)
      {
        double t = v[j];
        v[j] = v[j - 1];
        v[j - 1] = t;
      }
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define SCHED_RUNS 15

/* The first value of `target`'s output line "WHAT VALUE"s, both read from one run. */
static void
run_target2 (const char *const *argv,
             double            *wall,
             double            *cpu)
{
  g_autofree char *out = NULL, *err = NULL;
  int status;

  *wall = *cpu = -1;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                     NULL))
    return;
  g_auto (GStrv) lines = g_strsplit (out != NULL ? out : "", "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    if (g_str_has_prefix (*l, "wall_s "))
      *wall = g_ascii_strtod (*l + 7, NULL);
    else if (g_str_has_prefix (*l, "cpu_s "))
      *cpu = g_ascii_strtod (*l + 6, NULL);
}

/* CPU seconds (user + system) the daemon `daemon` (its executable's path) has used so far, all
 * its threads; -1 when none runs.  Its recording work competes with the program where they
 * share cores. */
static double
daemon_cpu_s (const char *daemon)
{
  g_autoptr (GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *exe_path = g_build_filename ("/proc", name, "exe", NULL);
      g_autofree char *exe = g_ascii_isdigit (name[0]) ? g_file_read_link (exe_path, NULL) : NULL;
      if (exe == NULL || strcmp (exe, daemon) != 0)
        continue;
      g_autofree char *stat_path = g_build_filename ("/proc", name, "stat", NULL);
      g_autofree char *stat = NULL;
      if (!g_file_get_contents (stat_path, &stat, NULL, NULL) || strrchr (stat, ')') == NULL)
        continue;
      /* fields after "(comm) ": state is field 3, utime 14, stime 15 */
      g_auto (GStrv) f = g_strsplit (strrchr (stat, ')') + 2, " ", -1);
      if (g_strv_length (f) < 13)
        continue;
      return (g_ascii_strtod (f[11], NULL) + g_ascii_strtod (f[12], NULL))
             / (double) sysconf (_SC_CLK_TCK);
    }
  return -1;
}

#define SCHED_WAYS 4

static void
bench_sched_on (const char        *sightline,
                const char        *target,
                const char        *what,
                const char *const *work)
{
  g_autofree char *trace = g_build_filename (g_get_tmp_dir (), "bench-collector-sched.sqlite", NULL);
  g_autofree char *perf_data = g_build_filename (g_get_tmp_dir (), "bench-collector-sched.perf", NULL);
  g_autofree char *perf_path = g_find_program_in_path ("perf");
  /* the last way is the floor of the method: perf's own tool recording the same context-switch
   * records of the same program (the kernel's share of the cost, and perf's reader) */
  static const char *const ways[SCHED_WAYS] = { "off", "perf", "proc", "perf-tool" };
  double wall[SCHED_WAYS][SCHED_RUNS], cpu[SCHED_WAYS][SCHED_RUNS], dcpu[SCHED_WAYS][SCHED_RUNS];
  gint64 rows[SCHED_WAYS] = { 0 };
  int n_ways = perf_path != NULL ? SCHED_WAYS : SCHED_WAYS - 1;
  /* sightline runs the sightlined beside it */
  g_autofree char *dir = g_path_get_dirname (sightline);
  g_autofree char *rel = g_build_filename (dir, "sightlined", NULL);
  g_autofree char *daemon = realpath (rel, NULL);

  g_print ("   %s:\n", what);
  for (int i = 0; i < SCHED_RUNS; i++)
    for (int w = 0; w < n_ways; w++)
      {
        const char *argv[] = { sightline, "record", "-f", "-o", trace, "-s", "none", "-t", "none",
                               "--sched", ways[w], "--", target, work[0], work[1], work[2], NULL };
        const char *perf_argv[] = { perf_path, "record", "-q", "-e", "dummy", "--switch-events",
                                    "-o", perf_data, "--", target, work[0], work[1], work[2],
                                    NULL };
        double d0 = daemon != NULL ? daemon_cpu_s (daemon) : -1;
        run_target2 (w == 3 ? perf_argv : argv, &wall[w][i], &cpu[w][i]);
        double d1 = daemon != NULL ? daemon_cpu_s (daemon) : -1;
        dcpu[w][i] = w < 3 && d0 >= 0 && d1 >= d0 ? d1 - d0 : 0;
        sqlite3 *db = NULL;
        sqlite3_stmt *st = NULL;
        if (i == 0 && w < 3 && sqlite3_open_v2 (trace, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
            && sqlite3_prepare_v2 (db, "SELECT count(*) FROM SCHED_EVENTS", -1, &st, NULL)
                   == SQLITE_OK
            && sqlite3_step (st) == SQLITE_ROW)
          rows[w] = sqlite3_column_int64 (st, 0);
        sqlite3_finalize (st);
        sqlite3_close (db);
      }
  double off = median (wall[0], SCHED_RUNS), off_cpu = median (cpu[0], SCHED_RUNS);
  double off_d = median (dcpu[0], SCHED_RUNS);
  g_print ("     --sched off   wall %.3f s, CPU %.3f s, daemon CPU %.3f s\n", off, off_cpu, off_d);
  for (int w = 1; w < n_ways; w++)
    {
      double m = median (wall[w], SCHED_RUNS), c = median (cpu[w], SCHED_RUNS);
      if (w == 3)
        g_print ("     perf record --switch-events (perf's own tool): wall %.3f s: %+.2f %%; CPU "
                 "%.3f s: %+.2f %%\n",
                 m, 100.0 * (m - off) / off, c, 100.0 * (c - off_cpu) / off_cpu);
      else
        g_print ("     --sched %-4s wall %.3f s: %+.2f %% (target <= 1 %%); CPU %.3f s: %+.2f %%; "
                 "daemon CPU %+.3f s; %" G_GINT64_FORMAT " SCHED_EVENTS rows in the first run\n",
                 ways[w], m, 100.0 * (m - off) / off, c, 100.0 * (c - off_cpu) / off_cpu,
                 median (dcpu[w], SCHED_RUNS) - off_d, rows[w]);
    }
  g_unlink (trace);
  g_unlink (perf_data);
}

static void
bench_sched (const char *sightline,
             const char *target)
{
  static const char *const switches[] = { "switches", "2", "3000" };
  static const char *const pingpong[] = { "pingpong", "100000", NULL };

  g_print ("4. Scheduling recorded (%d interleaved runs, medians; wall and CPU time of the "
           "program)\n", SCHED_RUNS);
  bench_sched_on (sightline, target,
                  "2 threads x 3000 rounds of 0.2 ms work + 100 us sleep (~7000 switches/s)",
                  switches);
  bench_sched_on (sightline, target,
                  "worst case: 2 threads passing a byte over pipes 100 000 times (~400 000 "
                  "switches)",
                  pingpong);
}

#define INGEST_N 4000000

static void
bench_ingest (void)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "bench-collector-ingest.sqlite", NULL);
  g_autofree char *base = g_build_filename (g_get_tmp_dir (), "bench-collector-bare.sqlite", NULL);
  char *error = NULL;
  SlWireHello hello = { { SL_WIRE_HELLO, 0, 1 }, SL_WIRE_MAGIC, SL_WIRE_VERSION, 4242, 1, 1, 0, 0 };
  uint8_t hello_buf[sizeof hello + 16] = { 0 };
  SlWireOsrt osrt = { { SL_WIRE_OSRT, sizeof osrt, 4242 }, 0, 0, 0, SL_OSRT_READ, 0 };
  struct
  {
    SlWireNvtx n;
    char text[16];
  } nvtx = { { { SL_WIRE_NVTX, sizeof nvtx, 4242 }, 0, 0, 0, SL_NVTX_PUSH, 0, 0, 0 }, "step" };
  struct
  {
    SlWireNvtx n;
    char text[8];
  } pop = { { { SL_WIRE_NVTX, sizeof pop, 4242 }, 0, 0, 0, SL_NVTX_POP, 0, 0, 0 }, "" };

  g_print ("3. Ingest (%d records: OSRT calls and NVTX push/pop pairs)\n", INGEST_N);
  g_unlink (path);
  hello.h.size = sizeof hello_buf;
  memcpy (hello_buf, &hello, sizeof hello);
  memcpy (hello_buf + sizeof hello, "bench", 6);

  gint64 t0 = g_get_monotonic_time ();
  SlTraceWriter *w = sl_trace_writer_open (path, TRUE, &error);
  if (w == NULL)
    {
      g_printerr ("bench-collector: %s\n", error);
      return;
    }
  sl_trace_writer_add (w, 4242, (const SlWireHeader *) hello_buf);
  for (int i = 0; i < INGEST_N; i++)
    {
      uint64_t t = (uint64_t) i * 1000;
      if (i % 4 < 2)
        {
          osrt.start_ns = t;
          osrt.end_ns = t + 500;
          osrt.func = (uint32_t) (i % 7);
          sl_trace_writer_add (w, 4242, &osrt.h);
        }
      else if (i % 4 == 2)
        {
          nvtx.n.time_ns = t;
          nvtx.text[4] = (char) ('0' + i % 10);
          sl_trace_writer_add (w, 4242, &nvtx.n.h);
        }
      else
        {
          pop.n.time_ns = t;
          sl_trace_writer_add (w, 4242, &pop.n.h);
        }
      if (i % 100000 == 99999 && !sl_trace_writer_commit (w, &error))
        {
          g_printerr ("bench-collector: %s\n", error);
          return;
        }
    }
  guint64 rows = sl_trace_writer_n_events (w);
  sl_trace_writer_finish (w, &error);
  double writer_s = (g_get_monotonic_time () - t0) / 1e6;

  /* baseline: the same number of rows, one prepared INSERT, same pragmas and batch size */
  sqlite3 *db;
  sqlite3_stmt *st;
  g_unlink (base);
  t0 = g_get_monotonic_time ();
  sqlite3_open (base, &db);
  sqlite3_exec (db, "PRAGMA journal_mode = DELETE; PRAGMA synchronous = OFF; PRAGMA cache_size = -65536;"
                    "PRAGMA page_size = 65536; CREATE TABLE t (start INTEGER NOT NULL, end INTEGER NOT NULL,"
                    " a INTEGER, b INTEGER, c INTEGER); BEGIN",
                NULL, NULL, NULL);
  sqlite3_prepare_v2 (db, "INSERT INTO t VALUES (?, ?, ?, ?, ?)", -1, &st, NULL);
  for (guint64 i = 0; i < rows; i++)
    {
      sqlite3_bind_int64 (st, 1, (sqlite3_int64) i * 1000);
      sqlite3_bind_int64 (st, 2, (sqlite3_int64) i * 1000 + 500);
      sqlite3_bind_int64 (st, 3, 27);
      sqlite3_bind_int64 (st, 4, (sqlite3_int64) i % 7);
      sqlite3_bind_int64 (st, 5, 0);
      sqlite3_step (st);
      sqlite3_reset (st);
      if (i % 100000 == 99999)
        sqlite3_exec (db, "COMMIT; BEGIN", NULL, NULL, NULL);
    }
  sqlite3_exec (db, "COMMIT", NULL, NULL, NULL);
  sqlite3_finalize (st);
  sqlite3_close (db);
  double bare_s = (g_get_monotonic_time () - t0) / 1e6;

  g_print ("   writer: %d records -> %" G_GUINT64_FORMAT " rows in %.2f s = %.2f M records/s "
           "(target >= 2)\n",
           INGEST_N, rows, writer_s, INGEST_N / writer_s / 1e6);
  g_print ("   bare SQLite insert of %" G_GUINT64_FORMAT " rows: %.2f s; writer / bare = %.2f\n",
           rows, bare_s, writer_s / bare_s);
  g_unlink (path);
  g_unlink (base);
}

/* CPU seconds of process `pid` (all its threads) and its resident memory in MB; false when it
 * is gone. */
static gboolean
process_usage (pid_t   pid,
               double *cpu_s,
               double *rss_mb)
{
  g_autofree char *stat_path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *status_path = g_strdup_printf ("/proc/%d/status", (int) pid);
  g_autofree char *stat = NULL, *status = NULL;
  unsigned long long ut, st;
  const char *p;

  if (!g_file_get_contents (stat_path, &stat, NULL, NULL)
      || !g_file_get_contents (status_path, &status, NULL, NULL)
      || (p = strrchr (stat, ')')) == NULL
      || sscanf (p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2
      || (p = strstr (status, "VmRSS:")) == NULL)
    return FALSE;
  *cpu_s = (double) (ut + st) / (double) sysconf (_SC_CLK_TCK);
  *rss_mb = g_ascii_strtod (p + 6, NULL) / 1024.0; /* kB */
  return TRUE;
}

#define DAEMON_MAX_POINTS 4096

static void
bench_daemon (const char *sightline,
              const char *target,
              const char *seconds,
              const char *rate)
{
  g_autofree char *trace = g_build_filename (g_get_tmp_dir (), "bench-collector-daemon.sqlite",
                                             NULL);
  g_autofree char *run_dir = g_build_filename (g_get_tmp_dir (), "bench-collector-daemon-run",
                                               NULL);
  const char *argv[] = { sightline, "record", "-f", "-o", trace, "-s", "none", "-t", "osrt",
                         "--osrt-threshold", "0", "--sched", "off", "--", target, "events", rate,
                         seconds, NULL };
  g_autoptr (GError) error = NULL;
  GPid child;
  int status = 0;
  double secs = g_ascii_strtod (seconds, NULL);

  g_print ("5. The daemon under load: %s events/s for %s s (OS runtime writes, "
           "--osrt-threshold 0), its CPU share and resident memory every 10 s\n", rate, seconds);
  /* a daemon of its own: started fresh by this recording, and nobody else's records in it */
  g_mkdir_with_parents (run_dir, 0700);
  if (g_chmod (run_dir, 0700) != 0)
    g_printerr ("bench-collector: cannot make %s private\n", run_dir);
  pid_t old = sl_bench_daemon_pid (run_dir);
  if (old > 0)
    kill (old, SIGTERM);
  char **env = g_environ_setenv (g_get_environ (), "SIGHTLINE_RUNTIME_DIR", run_dir, TRUE);
  if (!g_spawn_async (NULL, (char **) argv, env,
                      G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL
                        | G_SPAWN_STDERR_TO_DEV_NULL,
                      NULL, NULL, &child, &error))
    {
      g_printerr ("bench-collector: %s\n", error->message);
      g_strfreev (env);
      return;
    }
  g_strfreev (env);
  pid_t daemon = 0;
  for (int i = 0; i < 100 && daemon <= 0; i++)
    {
      g_usleep (50000);
      daemon = sl_bench_daemon_pid (run_dir);
    }
  if (daemon <= 0)
    {
      g_printerr ("bench-collector: no daemon answered in %s\n", run_dir);
      waitpid (child, &status, 0);
      return;
    }
  static double pt[DAEMON_MAX_POINTS], pr[DAEMON_MAX_POINTS];
  int n = 0;
  double cpu0, rss, peak = 0;
  gint64 t0 = g_get_monotonic_time ();
  if (!process_usage (daemon, &cpu0, &rss))
    return;
  double last_cpu = cpu0, last_t = 0, max_share = 0;
  g_print ("      time   CPU share (10 s)   RSS\n");
  while (waitpid (child, &status, WNOHANG) == 0)
    {
      g_usleep (G_USEC_PER_SEC / 10);
      double t = (double) (g_get_monotonic_time () - t0) / 1e6, cpu;
      if (t - last_t < 10)
        continue;
      if (!process_usage (daemon, &cpu, &rss))
        break;
      double share = (cpu - last_cpu) / (t - last_t);
      g_print ("   %6.0f s   %6.3f core       %7.1f MB\n", t, share, rss);
      if (n < DAEMON_MAX_POINTS && t <= secs)
        {
          pt[n] = t;
          pr[n++] = rss;
        }
      max_share = MAX (max_share, share);
      peak = MAX (peak, rss);
      last_t = t;
      last_cpu = cpu;
    }
  waitpid (child, &status, 0);
  double t_end = (double) (g_get_monotonic_time () - t0) / 1e6, cpu_end = last_cpu;
  if (process_usage (daemon, &cpu_end, &rss))
    peak = MAX (peak, rss);
  /* least squares over the points after the first minute (start-up: caches filling) */
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int m = 0;
  for (int i = 0; i < n; i++)
    if (pt[i] > 60 || n - i <= 3)
      {
        sx += pt[i];
        sy += pr[i];
        sxx += pt[i] * pt[i];
        sxy += pt[i] * pr[i];
        m++;
      }
  double slope = m >= 2 && m * sxx - sx * sx > 0 ? (m * sxy - sx * sy) / (m * sxx - sx * sx) : 0;
  gint64 rows = 0;
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  if (sqlite3_open_v2 (trace, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
      && sqlite3_prepare_v2 (db, "SELECT count(*) FROM OSRT_API", -1, &st, NULL) == SQLITE_OK
      && sqlite3_step (st) == SQLITE_ROW)
    rows = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  sqlite3_close (db);
  g_print ("   %" G_GINT64_FORMAT " OS runtime rows written (%.0f a second of the %s asked); "
           "daemon CPU %.1f s over %.0f s: %.3f core on average, %.3f at most over 10 s "
           "(target < 1)\n",
           rows, secs > 0 ? (double) rows / secs : 0, rate, cpu_end - cpu0, t_end,
           (cpu_end - cpu0) / t_end, max_share);
  g_print ("   RSS: %.1f MB at most, slope %+.2f MB a minute (over %d points after the first "
           "minute) -> %.0f MB after an hour at that slope (target < 200)\n",
           peak, slope * 60, m, n > 0 ? pr[n - 1] + slope * (3600 - pt[n - 1]) : 0);
  kill (daemon, SIGTERM);
  g_unlink (trace);
}

int
main (int   argc,
      char *argv[])
{
  if (argc < 3)
    {
      g_printerr ("Usage: %s SIGHTLINE BENCH-TARGET [N | sched | sampling | daemon [SECONDS "
                  "[RATE]]]\n", argv[0]);
      return 2;
    }
  if (argc > 3 && strcmp (argv[3], "daemon") == 0)
    {
      bench_daemon (argv[1], argv[2], argc > 4 ? argv[4] : "180", argc > 5 ? argv[5] : "100000");
      return 0;
    }
  if (argc > 3 && strcmp (argv[3], "sched") == 0)
    {
      bench_sched (argv[1], argv[2]);
      return 0;
    }
  if (argc > 3 && strcmp (argv[3], "sampling") == 0)
    {
      bench_sampling (argv[1], argv[2]);
      return 0;
    }
  bench_calls (argv[1], argv[2], argc > 3 ? argv[3] : "2000000");
  bench_sampling (argv[1], argv[2]);
  bench_sched (argv[1], argv[2]);
  bench_ingest ();
  return 0;
}
