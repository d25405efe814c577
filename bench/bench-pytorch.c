/* bench-pytorch.c: what CPU sampling at 1 kHz costs a real PyTorch training loop
 * (bench/bench-pytorch.py: DataLoader with 4 workers, a small conv net on CPU).
 *
 * Usage: bench-pytorch SIGHTLINE SCRIPT [RUNS [STEPS [OTHER-SIGHTLINE]]]
 *        (defaults: 5 runs of 60 steps)
 *
 * Each round runs the loop under `sightline record -s none`, under `sightline record -s 1000`,
 * under OTHER-SIGHTLINE's `record -s 1000` when given (another build, say the one before a
 * change) and, where perf works, under `perf record -F 1000 -g`, interleaved; the training loop's wall
 * time (the script's own clock, imports excluded) is compared median against median with the
 * `-s none` runs of the same rounds (target: ≤ 3 %).  Also prints the samples recorded and their
 * mean depth, so a cheap run that records nothing shows, and the daemon's CPU time per sample
 * (its whole run's CPU time, less the median of the `-s none` runs', over the run's samples).
 * Needs python3 with torch and numpy
 * (Debian's python3-torch: bench/setup-pytorch.sh); without them it says so and exits 0.
 *
 * Not a test: prints, asserts nothing.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

enum
{
  MODE_NONE,
  MODE_SAMPLE,
  MODE_OTHER,
  MODE_PERF,
  N_MODES
};

static const char *const mode_names[N_MODES] = { "none", "1 kHz", "other", "perf" };

#define MAX_RUNS 31

/* CPU seconds (user + system) `pid` has used, -1 when it is gone. */
static double process_cpu (pid_t pid);

/* The loop time the script printed ("loop SECONDS"), -1 on failure; its CPU time ("cpu
 * SECONDS", the process and its workers) in *cpu; the CPU time daemon `daemon` (0: none) used
 * between the script's "start" and "loop" lines in *daemon_loop (-1 when not known): the
 * daemon's share of the machine while the loop ran, without the imports before it nor the end
 * of the trace after it. */
static double
run_loop (const char *const *argv,
          char              **envp,
          pid_t               daemon,
          double             *cpu,
          double             *daemon_loop,
          gint64              window[2])
{
  double loop = -1, d_start = -1, d_end = -1;
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) out = g_string_new (NULL), err = g_string_new (NULL);
  GPid child;
  int fds[2], status = 0;

  *cpu = *daemon_loop = -1;
  window[0] = window[1] = 0;
  if (!g_spawn_async_with_pipes (NULL, (char **) argv, envp,
                                 G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                 &child, NULL, &fds[0], &fds[1], &error))
    {
      g_printerr ("bench-pytorch: %s\n", error->message);
      return -1;
    }
  /* stdout line by line as it comes, stderr kept for a failure's message */
  for (int open_fds = 2; open_fds > 0;)
    {
      struct pollfd p[2] = { { fds[0], POLLIN, 0 }, { fds[1], POLLIN, 0 } };
      if (poll (p, 2, -1) < 0)
        break;
      for (int k = 0; k < 2; k++)
        {
          char buf[4096];
          ssize_t n;
          if (fds[k] < 0 || (p[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
            continue;
          n = read (fds[k], buf, sizeof buf);
          if (n <= 0)
            {
              close (fds[k]);
              fds[k] = -1;
              open_fds--;
              continue;
            }
          if (k == 1)
            {
              g_string_append_len (err, buf, n);
              continue;
            }
          gsize before = out->len;
          g_string_append_len (out, buf, n);
          /* lines completed by this read */
          for (const char *l = out->str + before; (l = strchr (l, '\n')) != NULL; l++)
            {
              const char *line = l;
              while (line > out->str && line[-1] != '\n')
                line--;
              if (g_str_has_prefix (line, "start\n") && daemon > 0)
                d_start = process_cpu (daemon);
              else if (g_str_has_prefix (line, "loop ") && daemon > 0)
                d_end = process_cpu (daemon);
            }
        }
    }
  waitpid (child, &status, 0);
  g_spawn_close_pid (child);
  g_auto (GStrv) lines = g_strsplit (out->str, "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    if (g_str_has_prefix (*l, "loop "))
      loop = g_ascii_strtod (*l + 5, NULL);
    else if (g_str_has_prefix (*l, "cpu "))
      *cpu = g_ascii_strtod (*l + 4, NULL);
    else if (g_str_has_prefix (*l, "window "))
      sscanf (*l + 7, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &window[0], &window[1]);
  if (d_start >= 0 && d_end >= d_start)
    *daemon_loop = d_end - d_start;
  if (loop > 0)
    return loop;
  g_printerr ("bench-pytorch: %s gave no loop time (status %d, stderr: %s)\n", argv[0], status,
              err->str);
  return -1;
}

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (const double *v,
        int           n)
{
  double s[MAX_RUNS];
  int k = 0;

  for (int i = 0; i < n; i++)
    if (v[i] > 0)
      s[k++] = v[i];
  if (k == 0)
    return -1;
  qsort (s, (size_t) k, sizeof *s, cmp_double);
  return k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
}

/* Samples in the trace and their mean number of frames, and the samples taken in `window` (the
 * loop's, CLOCK_MONOTONIC ns as the trace's times); false when it cannot be read. */
static gboolean
trace_samples (const char   *trace,
               const gint64  window[2],
               gint64       *n_samples,
               double       *mean_depth,
               gint64       *n_in_window)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  gboolean ok = FALSE;

  if (sqlite3_open_v2 (trace, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
      && sqlite3_prepare_v2 (db,
                             "SELECT (SELECT count(*) FROM COMPOSITE_EVENTS),"
                             " (SELECT count(*) FROM SAMPLING_CALLCHAINS),"
                             " (SELECT count(*) FROM COMPOSITE_EVENTS WHERE start >= ?"
                             " AND start < ?)",
                             -1, &st, NULL) == SQLITE_OK
      && sqlite3_bind_int64 (st, 1, window[0]) == SQLITE_OK
      && sqlite3_bind_int64 (st, 2, window[1]) == SQLITE_OK
      && sqlite3_step (st) == SQLITE_ROW)
    {
      *n_samples = sqlite3_column_int64 (st, 0);
      *n_in_window = sqlite3_column_int64 (st, 2);
      gint64 frames = sqlite3_column_int64 (st, 1);
      *mean_depth = *n_samples > 0 ? (double) frames / (double) *n_samples : 0;
      ok = TRUE;
    }
  sqlite3_finalize (st);
  sqlite3_close (db);
  return ok;
}

/* The pid of the daemon listening in `run_dir` (SO_PEERCRED of a connection), 0 if none. */
static pid_t
daemon_pid (const char *run_dir)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  struct ucred cred = { 0 };
  socklen_t len = sizeof cred;
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_snprintf (addr.sun_path, sizeof addr.sun_path, "%s/sightlined.sock", run_dir);
  if (fd < 0)
    return 0;
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0
      || getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    cred.pid = 0;
  close (fd);
  return cred.pid;
}

static double
process_cpu (pid_t pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *text = NULL;
  unsigned long long ut, st;

  if (pid <= 0 || !g_file_get_contents (path, &text, NULL, NULL))
    return -1;
  const char *p = strrchr (text, ')'); /* the name may hold spaces */
  if (p == NULL
      || sscanf (p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
    return -1;
  return (double) (ut + st) / (double) sysconf (_SC_CLK_TCK);
}

static gboolean
have_torch (const char *python)
{
  const char *argv[] = { python, "-c", "import torch, numpy", NULL };
  int status = 0;

  return g_spawn_sync (NULL, (char **) argv, NULL,
                       G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL
                         | G_SPAWN_STDERR_TO_DEV_NULL,
                       NULL, NULL, NULL, NULL, &status, NULL)
         && g_spawn_check_wait_status (status, NULL);
}

int
main (int   argc,
      char *argv[])
{
  if (argc < 3)
    {
      g_printerr ("Usage: %s SIGHTLINE SCRIPT [RUNS [STEPS [OTHER-SIGHTLINE]]]\n", argv[0]);
      return 2;
    }
  /* absolute: a daemon already running (started elsewhere) may not start the program here */
  g_autofree char *script_path = g_canonicalize_filename (argv[2], NULL);
  const char *sightline = argv[1], *script = script_path;
  int runs = argc > 3 ? CLAMP (atoi (argv[3]), 1, MAX_RUNS) : 5;
  const char *steps = argc > 4 ? argv[4] : "60";
  const char *other = argc > 5 ? argv[5] : NULL;

  /* Debian's python3-torch is for the system's python3, which a pyenv or venv may hide */
  const char *python = have_torch ("python3") ? "python3"
                       : have_torch ("/usr/bin/python3") ? "/usr/bin/python3" : NULL;
  if (python == NULL)
    {
      g_print ("bench-pytorch: skipped: python3 cannot import torch and numpy "
               "(install Debian's python3-torch: bench/setup-pytorch.sh)\n");
      return 0;
    }
  g_autofree char *trace = g_build_filename (g_get_tmp_dir (), "bench-pytorch.sqlite", NULL);
  g_autofree char *perf_data = g_build_filename (g_get_tmp_dir (), "bench-pytorch.perf", NULL);
  g_autofree char *perf_path = g_find_program_in_path ("perf");
  const char *none[] = { sightline, "record", "-f", "-o", trace, "-s", "none", "--",
                         python, script, steps, NULL };
  const char *sample[] = { sightline, "record", "-f", "-o", trace, "-s", "1000", "--",
                           python, script, steps, NULL };
  const char *sample_other[] = { other, "record", "-f", "-o", trace, "-s", "1000", "--",
                                 python, script, steps, NULL };
  const char *perf[] = { "perf", "record", "-q", "-F", "1000", "-g", "-o", perf_data, "--",
                         python, script, steps, NULL };
  const char *const *modes[N_MODES] = { none, sample, sample_other, perf };
  /* each build its own daemon (a daemon left running by another build would take the records),
   * and the DataLoader's warning about 4 workers on a small machine kept out of the output */
  g_autofree char *run_dir = g_build_filename (g_get_tmp_dir (), "bench-pytorch-run", NULL);
  g_autofree char *run_dir_other = g_strconcat (run_dir, "-other", NULL);
  char **env = g_environ_setenv (g_get_environ (), "SIGHTLINE_RUNTIME_DIR", run_dir, TRUE);
  env = g_environ_setenv (env, "PYTHONWARNINGS", "ignore", TRUE);
  char **env_other = g_environ_setenv (g_strdupv (env), "SIGHTLINE_RUNTIME_DIR", run_dir_other,
                                       TRUE);
  g_mkdir_with_parents (run_dir, 0700);
  g_mkdir_with_parents (run_dir_other, 0700);
  double t[N_MODES][MAX_RUNS], c[N_MODES][MAX_RUNS], dc[N_MODES][MAX_RUNS];
  double ns[N_MODES][MAX_RUNS]; /* samples in the run's trace */
  double dl[N_MODES][MAX_RUNS]; /* the daemon's CPU time while the loop ran */
  double nl[N_MODES][MAX_RUNS]; /* samples taken while the loop ran */
  gint64 n_samples = 0;
  double depth = 0;

  double load[3] = { -1, -1, -1 };
  /* the machine may be shared: its load says how far to trust the wall times */
  getloadavg (load, 3);
  g_print ("bench-pytorch: %s steps, %d interleaved rounds of -s none / -s 1000%s%s "
           "(load average %.2f %.2f %.2f)\n", steps, runs, other != NULL ? " / other -s 1000" : "",
           perf_path != NULL ? " / perf record -F 1000 -g" : "", load[0], load[1], load[2]);
  double ignored;
  /* warm the page cache: the first import of torch reads ~1 GB */
  gint64 window[2];
  (void) run_loop (none, env, 0, &c[0][0], &ignored, window);
  if (other != NULL)
    (void) run_loop (sample_other, env_other, 0, &c[0][0], &ignored, window); /* its daemon */
  for (int i = 0; i < runs; i++)
    for (int m = 0; m < N_MODES; m++)
      {
        if ((m == MODE_PERF && perf_path == NULL) || (m == MODE_OTHER && other == NULL))
          {
            t[m][i] = c[m][i] = dc[m][i] = -1;
            continue;
          }
        /* the daemon's CPU time over the run: the sampling's cost that is not in the program */
        pid_t d = m == MODE_PERF ? 0 : daemon_pid (m == MODE_OTHER ? run_dir_other : run_dir);
        double d0 = process_cpu (d);
        t[m][i] = run_loop (modes[m], m == MODE_OTHER ? env_other : env, d, &c[m][i], &dl[m][i],
                            window);
        double d1 = process_cpu (d);
        dc[m][i] = d0 >= 0 && d1 >= d0 ? d1 - d0 : -1;
        ns[m][i] = nl[m][i] = -1;
        if ((m == MODE_SAMPLE || m == MODE_OTHER) && t[m][i] > 0)
          {
            gint64 n = 0, in_loop = 0;
            double dp = 0;
            if (trace_samples (trace, window, &n, &dp, &in_loop))
              ns[m][i] = (double) n, nl[m][i] = (double) in_loop;
            if (m == MODE_SAMPLE)
              n_samples = n, depth = dp;
          }
        g_print ("   round %d %-6s %.3f s (CPU %.3f s, daemon %.3f s, %.3f s of it in the loop)\n",
                 i + 1, mode_names[m], t[m][i], c[m][i], dc[m][i], dl[m][i]);
      }
  double base = median (t[MODE_NONE], runs), smp = median (t[MODE_SAMPLE], runs);
  double prf = median (t[MODE_PERF], runs), oth = median (t[MODE_OTHER], runs);
  if (base <= 0 || smp <= 0)
    {
      g_printerr ("bench-pytorch: the loop did not run\n");
      return 1;
    }
  g_print ("   -s none %.3f s, -s 1000 %.3f s: ratio %.4f, %+.2f %% (target <= 3 %%); "
           "last trace: %" G_GINT64_FORMAT " samples, %.1f frames each\n",
           base, smp, smp / base, 100.0 * (smp - base) / base, n_samples, depth);
  if (oth > 0)
    g_print ("   other -s 1000 %.3f s: ratio %.4f, %+.2f %%\n", oth, oth / base,
             100.0 * (oth - base) / base);
  if (prf > 0)
    g_print ("   perf record -F 1000 -g %.3f s: ratio %.4f, %+.2f %%\n", prf, prf / base,
             100.0 * (prf - base) / base);
  else
    g_print ("   perf record -F 1000 -g: not available here (no perf, or perf_event_paranoid)\n");
  /* the CPU time of the program (not the daemon's): what a loaded machine blurs least */
  double cbase = median (c[MODE_NONE], runs);
  for (int m = MODE_SAMPLE; m < N_MODES && cbase > 0; m++)
    {
      double cm = median (c[m], runs);
      if (cm > 0)
        g_print ("   CPU time, %-5s vs none: %.3f s vs %.3f s, ratio %.4f, %+.2f %%\n",
                 mode_names[m], cm, cbase, cm / cbase, 100.0 * (cm - cbase) / cbase);
    }
  /* the daemon's CPU time (the whole recording, imports too) against the program's loop */
  for (int m = MODE_NONE; m < MODE_PERF && cbase > 0; m++)
    {
      double dm = median (dc[m], runs);
      if (dm >= 0)
        g_print ("   daemon CPU time, %-5s: %.3f s (%.2f %% of the loop's CPU time with -s none)\n",
                 mode_names[m], dm, 100.0 * dm / cbase);
    }
  /* per sample: what sampling adds to the daemon's work, over the samples it wrote */
  double dnone = median (dc[MODE_NONE], runs);
  for (int m = MODE_SAMPLE; m <= MODE_OTHER && dnone >= 0; m++)
    {
      double per[MAX_RUNS];
      for (int i = 0; i < runs; i++)
        per[i] = dc[m][i] >= 0 && ns[m][i] > 0 ? (dc[m][i] - dnone) / ns[m][i] : -1;
      /* (a run whose extra CPU time came out negative has no figure: median() skips it) */
      double pm = median (per, runs);
      if (pm > 0)
        g_print ("   daemon CPU time per sample, %-5s: %.1f us (its run's CPU time less the "
                 "median -s none run's, over its samples)\n", mode_names[m], pm * 1e6);
    }
  /* the same while the loop ran: what the daemon took from the machine the loop runs on (the
   * imports before, and the end of the trace after, left out) */
  double lnone = median (dl[MODE_NONE], runs);
  for (int m = MODE_NONE; m <= MODE_OTHER && lnone >= 0; m++)
    {
      double per[MAX_RUNS];
      for (int i = 0; i < runs; i++)
        per[i] = dl[m][i] >= 0 && nl[m][i] > 0 ? (dl[m][i] - lnone) / nl[m][i] : -1;
      double lm = median (dl[m], runs), pm = median (per, runs), sm = median (nl[m], runs);
      if (lm < 0)
        continue;
      g_print ("   daemon CPU time in the loop, %-5s: %.3f s", mode_names[m], lm);
      if (m != MODE_NONE && pm > 0)
        g_print (", %.0f samples, %.1f us per sample more than -s none", sm, pm * 1e6);
      g_print ("\n");
    }
  getloadavg (load, 3);
  g_print ("   load average at the end: %.2f %.2f %.2f\n", load[0], load[1], load[2]);
  g_unlink (trace);
  g_unlink (perf_data);
  g_strfreev (env);
  g_strfreev (env_other);
  return 0;
}
