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
 * The measure is the last lines: per round, the ratio of each run to the `-s none` run of
 * the same round (a shared machine's load changes between rounds more than within one), median
 * over the rounds, by CPU time of the program's process tree (python and its DataLoader workers,
 * the loop only), by that plus the daemon's CPU time in the loop, and by wall time.
 * Each run also has the sampler's own account (SIGHTLINE_SAMPLE_STATS=1: the time its signal
 * handler took, from the clock around it, against each process's CPU time): a share measured
 * within one run, which a loaded machine blurs far less than the ratio of two runs' CPU times
 * (on a 2-core VM with others building, those scattered +-20 % from round to round).
 * BENCH_PYTORCH_PERF=0 leaves perf out (a third less time for more rounds).
 * BENCH_PYTORCH_OTHER_ENV=NAME=VALUE sets that in the other runs' environment: the same build
 * against itself with a knob turned (SIGHTLINE_UNWIND=libgcc: the native walk before its table;
 * SIGHTLINE_PYTHON=full: Python stacks read whole, without the thread's stack before).  The
 * Python reads' own account is printed too (system calls a stack, frames vouched for by the
 * stack before), and with SIGHTLINE_PYTHON=compare in the environment, every signal's Python
 * stack read both ways, timed in the same signal, and the stacks that differed counted.
 * BENCH_PYTORCH_CONCURRENT=1 runs the runs of a round at once, each with a daemon of its own:
 * on a machine that others load, each round's runs then meet the same load, and the per-round
 * ratios scatter less than one run after another (they compete with each other too, alike).
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

#include "sl-bench-daemon.h"

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

/* One run of the script under a recorder, as it goes. */
typedef struct
{
  const char *const *argv;
  char             **envp;
  pid_t              daemon; /* 0: none to watch */
  GPid               child;
  int                fds[2];
  GString           *out, *err;
  double             d_start, d_end;
  /* what it gave: the loop time the script printed ("loop SECONDS", -1 on failure); its CPU
   * time ("cpu SECONDS", the process and its workers); the CPU time the daemon used between the
   * script's "start" and "loop" lines (-1 when not known): the daemon's share of the machine
   * while the loop ran, without the imports before it nor the end of the trace after it; the
   * loop's window ("window NS NS") */
  double             loop, cpu, daemon_loop;
  gint64             window[2];
  /* the sampler's own account (SIGHTLINE_SAMPLE_STATS=1), summed over the processes: signals,
   * time in the handler and in its Python part, the processes' whole CPU time, in µs */
  double             signals, handler_us, python_us, stats_cpu_us;
  double             walk_us, libgcc_walks; /* the native walk's part of handler_us */
  /* over the loop: the main process's account between its "start" and "loop" (the script's
   * "sampler" line) and its workers' whole one (they live in the loop); -1: none */
  double             loop_signals, loop_handler_us, loop_python_us;
  double             loop_walk_us; /* the main process's native walk in the loop, -1: unknown */
  double             loop_py_reads; /* its Python stacks' system calls a stack in the loop */
  /* the Python stacks' reads, summed over the processes: stacks, system calls, frames, frames
   * whose code object the previous stack vouched for; SIGHTLINE_PYTHON=compare: stacks read
   * both ways, those that differed, code objects only the full read sent, and the main
   * process's median read times paired in the same signals (ns; -1: none) */
  double             py_stacks, py_reads, py_frames, py_reused;
  double             cmp_n, cmp_differed, cmp_unsent, cmp_reuse_ns, cmp_full_ns;
} Run;

static gboolean
run_start (Run *r)
{
  g_autoptr (GError) error = NULL;

  r->loop = r->cpu = r->daemon_loop = r->d_start = r->d_end = -1;
  r->window[0] = r->window[1] = 0;
  r->fds[0] = r->fds[1] = -1;
  r->out = g_string_new (NULL);
  r->err = g_string_new (NULL);
  if (!g_spawn_async_with_pipes (NULL, (char **) r->argv, r->envp,
                                 G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                 &r->child, NULL, &r->fds[0], &r->fds[1], &error))
    {
      g_printerr ("bench-pytorch: %s\n", error->message);
      r->child = 0;
      return FALSE;
    }
  return TRUE;
}

/* Runs started with run_start() to their end, their stdout read line by line as it comes (the
 * daemons' CPU time read at "start" and "loop"), stderr kept for a failure's message. */
static void
run_finish (Run *runs,
            int  n)
{
  for (;;)
    {
      struct pollfd p[2 * N_MODES];
      int open_fds = 0;
      for (int i = 0; i < n; i++)
        for (int k = 0; k < 2; k++)
          {
            p[2 * i + k] = (struct pollfd){ runs[i].fds[k], POLLIN, 0 };
            open_fds += runs[i].fds[k] >= 0;
          }
      if (open_fds == 0 || poll (p, (nfds_t) (2 * n), -1) < 0)
        break;
      for (int i = 0; i < n; i++)
        for (int k = 0; k < 2; k++)
          {
            Run *r = &runs[i];
            char buf[4096];
            ssize_t got;
            if (r->fds[k] < 0 || (p[2 * i + k].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
              continue;
            got = read (r->fds[k], buf, sizeof buf);
            if (got <= 0)
              {
                close (r->fds[k]);
                r->fds[k] = -1;
                continue;
              }
            if (k == 1)
              {
                g_string_append_len (r->err, buf, got);
                continue;
              }
            gsize before = r->out->len;
            g_string_append_len (r->out, buf, got);
            /* lines completed by this read */
            for (const char *l = r->out->str + before; (l = strchr (l, '\n')) != NULL; l++)
              {
                const char *line = l;
                while (line > r->out->str && line[-1] != '\n')
                  line--;
                if (g_str_has_prefix (line, "start\n") && r->daemon > 0)
                  r->d_start = process_cpu (r->daemon);
                else if (g_str_has_prefix (line, "loop ") && r->daemon > 0)
                  r->d_end = process_cpu (r->daemon);
              }
          }
    }
  for (int i = 0; i < n; i++)
    {
      Run *r = &runs[i];
      int status = 0;
      if (r->child == 0)
        continue;
      waitpid (r->child, &status, 0);
      g_spawn_close_pid (r->child);
      g_auto (GStrv) lines = g_strsplit (r->out->str, "\n", -1);
      for (char **l = lines; *l != NULL; l++)
        if (g_str_has_prefix (*l, "loop "))
          r->loop = g_ascii_strtod (*l + 5, NULL);
        else if (g_str_has_prefix (*l, "cpu "))
          r->cpu = g_ascii_strtod (*l + 4, NULL);
        else if (g_str_has_prefix (*l, "window "))
          sscanf (*l + 7, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &r->window[0], &r->window[1]);
      if (r->d_start >= 0 && r->d_end >= r->d_start)
        r->daemon_loop = r->d_end - r->d_start;
      r->signals = r->handler_us = r->python_us = r->stats_cpu_us = 0;
      r->walk_us = r->libgcc_walks = 0;
      r->py_stacks = r->py_reads = r->py_frames = r->py_reused = 0;
      r->cmp_n = r->cmp_differed = r->cmp_unsent = 0;
      r->cmp_reuse_ns = r->cmp_full_ns = -1;
      r->loop_signals = r->loop_handler_us = r->loop_python_us = r->loop_walk_us = -1;
      r->loop_py_reads = -1;
      int main_pid = -1;
      for (char **l = lines; *l != NULL; l++)
        {
          unsigned long long sg, h, py, w, pys, pyr;
          int got = sscanf (*l, "sampler %d %llu %llu %llu %llu %*u %*u %llu %llu", &main_pid, &sg,
                            &h, &py, &w, &pys, &pyr);
          if (got == 7 && pys > 0)
            r->loop_py_reads = (double) pyr / (double) pys;
          if (got >= 4)
            {
              r->loop_signals = (double) sg;
              r->loop_handler_us = (double) h;
              r->loop_python_us = (double) py;
              if (got == 5 && sg > 0)
                r->loop_walk_us = (double) w / (double) sg;
            }
        }
      g_auto (GStrv) err_lines = g_strsplit (r->err->str, "\n", -1);
      for (char **l = err_lines; *l != NULL; l++)
        {
          unsigned long long sg, h, py, c;
          int pid;
          const char *at = strstr (*l, "sightline-sample-stats: ");
          unsigned long long a, b, f, u, cmp_reuse, cmp_full;
          if (at != NULL
              && sscanf (at, "sightline-sample-stats: pid %d python stacks %llu reads %llu "
                             "frames %llu frames_reused %llu", &pid, &a, &b, &f, &u) == 5)
            {
              r->py_stacks += (double) a;
              r->py_reads += (double) b;
              r->py_frames += (double) f;
              r->py_reused += (double) u;
              continue;
            }
          if (at != NULL
              && sscanf (at, "sightline-sample-stats: pid %d python reads compared %llu: median "
                             "%llu ns reusing, %llu ns full; %llu differed, %llu", &pid, &a,
                         &cmp_reuse, &cmp_full, &b, &u) == 6)
            {
              r->cmp_n += (double) a;
              r->cmp_differed += (double) b;
              r->cmp_unsent += (double) u;
              if (pid == main_pid)
                {
                  r->cmp_reuse_ns = (double) cmp_reuse;
                  r->cmp_full_ns = (double) cmp_full;
                }
              continue;
            }
          if (at != NULL
              && sscanf (at, "sightline-sample-stats: pid %d signals %llu handler_us %llu "
                             "python_us %llu cpu_us %llu", &pid, &sg, &h, &py, &c) == 5)
            {
              r->signals += (double) sg;
              r->handler_us += (double) h;
              r->python_us += (double) py;
              r->stats_cpu_us += (double) c;
              const char *w = strstr (at, " walk_us ");
              const char *lw = strstr (at, " libgcc_walks ");
              if (w != NULL)
                r->walk_us += g_ascii_strtod (w + 9, NULL);
              if (lw != NULL)
                r->libgcc_walks += g_ascii_strtod (lw + 14, NULL);
              if (pid != main_pid && r->loop_signals >= 0)
                {
                  r->loop_signals += (double) sg;
                  r->loop_handler_us += (double) h;
                  r->loop_python_us += (double) py;
                }
            }
        }
      if (r->loop <= 0)
        {
          r->loop = -1;
          g_printerr ("bench-pytorch: %s gave no loop time (status %d, stderr: %s)\n",
                      r->argv[0], status, r->err->str);
        }
    }
  for (int i = 0; i < n; i++)
    {
      g_string_free (runs[i].out, TRUE);
      g_string_free (runs[i].err, TRUE);
    }
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
  const char *other_env = g_getenv ("BENCH_PYTORCH_OTHER_ENV");

  /* Debian's python3-torch is for the system's python3, which a pyenv or venv may hide */
  const char *python = have_torch ("python3") ? "python3"
                       : have_torch ("/usr/bin/python3") ? "/usr/bin/python3" : NULL;
  if (python == NULL)
    {
      g_print ("bench-pytorch: skipped: python3 cannot import torch and numpy "
               "(install Debian's python3-torch: bench/setup-pytorch.sh)\n");
      return 0;
    }
  /* each run its own trace and, run at once (BENCH_PYTORCH_CONCURRENT=1), its own daemon */
  g_autofree char *trace = g_build_filename (g_get_tmp_dir (), "bench-pytorch.sqlite", NULL);
  g_autofree char *trace_none = g_build_filename (g_get_tmp_dir (), "bench-pytorch-none.sqlite",
                                                  NULL);
  g_autofree char *trace_other = g_build_filename (g_get_tmp_dir (), "bench-pytorch-other.sqlite",
                                                   NULL);
  const char *traces[N_MODES] = { trace_none, trace, trace_other, NULL };
  g_autofree char *perf_data = g_build_filename (g_get_tmp_dir (), "bench-pytorch.perf", NULL);
  g_autofree char *perf_path = g_find_program_in_path ("perf");
  if (g_strcmp0 (g_getenv ("BENCH_PYTORCH_PERF"), "0") == 0)
    g_clear_pointer (&perf_path, g_free);
  gboolean concurrent = g_strcmp0 (g_getenv ("BENCH_PYTORCH_CONCURRENT"), "1") == 0;
  const char *none[] = { sightline, "record", "-f", "-o", trace_none, "-s", "none", "--",
                         python, script, steps, NULL };
  const char *sample[] = { sightline, "record", "-f", "-o", trace, "-s", "1000", "--",
                           python, script, steps, NULL };
  const char *none_here[] = { sightline, "record", "-f", "-o", trace, "-s", "none", "--",
                              python, script, steps, NULL }; /* to start the -s 1000 daemon */
  const char *sample_other[] = { other, "record", "-f", "-o", trace_other, "-s", "1000", "--",
                                 python, script, steps, NULL };
  const char *perf[] = { "perf", "record", "-q", "-F", "1000", "-g", "-o", perf_data, "--",
                         python, script, steps, NULL };
  const char *const *modes[N_MODES] = { none, sample, sample_other, perf };
  /* each build its own daemon (a daemon left running by another build would take the records),
   * and the DataLoader's warning about 4 workers on a small machine kept out of the output */
  g_autofree char *run_dir = g_build_filename (g_get_tmp_dir (), "bench-pytorch-run", NULL);
  g_autofree char *run_dir_other = g_strconcat (run_dir, "-other", NULL);
  g_autofree char *run_dir_none = g_strconcat (run_dir, "-none", NULL);
  const char *run_dirs[N_MODES] = { concurrent ? run_dir_none : run_dir, run_dir, run_dir_other,
                                    NULL };
  char **envs[N_MODES];
  char **base_env = g_environ_setenv (g_get_environ (), "PYTHONWARNINGS", "ignore", TRUE);
  base_env = g_environ_setenv (base_env, "SIGHTLINE_SAMPLE_STATS", "1", TRUE);
  for (int m = 0; m < N_MODES; m++)
    {
      envs[m] = run_dirs[m] != NULL
                  ? g_environ_setenv (g_strdupv (base_env), "SIGHTLINE_RUNTIME_DIR", run_dirs[m],
                                      TRUE)
                  : g_strdupv (base_env);
      if (m == MODE_OTHER && other_env != NULL && strchr (other_env, '=') != NULL)
        {
          g_autofree char *name = g_strndup (other_env, strcspn (other_env, "="));
          envs[m] = g_environ_setenv (envs[m], name, strchr (other_env, '=') + 1, TRUE);
        }
      if (run_dirs[m] != NULL)
        g_mkdir_with_parents (run_dirs[m], 0700);
    }
  g_strfreev (base_env);
  double t[N_MODES][MAX_RUNS], c[N_MODES][MAX_RUNS], dc[N_MODES][MAX_RUNS];
  double ns[N_MODES][MAX_RUNS]; /* samples in the run's trace */
  double dl[N_MODES][MAX_RUNS]; /* the daemon's CPU time while the loop ran */
  double nl[N_MODES][MAX_RUNS]; /* samples taken while the loop ran */
  double hs[N_MODES][MAX_RUNS]; /* the handler's share of the tree's CPU time (its own account) */
  double hu[N_MODES][MAX_RUNS]; /* in the loop: the handler's µs a signal, its Python part's */
  double hp[N_MODES][MAX_RUNS];
  double hw[N_MODES][MAX_RUNS]; /* over the run: the native walk's µs a signal, walks by libgcc */
  double hl[N_MODES][MAX_RUNS];
  double rs[N_MODES][MAX_RUNS]; /* Python: reads a stack, share of frames vouched for */
  double ru[N_MODES][MAX_RUNS];
  double rl[N_MODES][MAX_RUNS]; /* the main process's in the loop */
  double cr[N_MODES][MAX_RUNS]; /* compare: the main process's paired medians, ns */
  double cf[N_MODES][MAX_RUNS];
  double cmp_total = 0, cmp_differed = 0, cmp_unsent = 0;
  gint64 n_samples = 0;
  double depth = 0;
  gboolean used[N_MODES];
  for (int m = 0; m < N_MODES; m++)
    used[m] = !(m == MODE_PERF && perf_path == NULL) && !(m == MODE_OTHER && other == NULL);

  double load[3] = { -1, -1, -1 };
  /* the machine may be shared: its load says how far to trust the wall times */
  getloadavg (load, 3);
  g_print ("bench-pytorch: %s steps, %d %s rounds of -s none / -s 1000%s%s "
           "(load average %.2f %.2f %.2f)\n", steps, runs,
           concurrent ? "concurrent (the runs of a round at once, each its own daemon)"
                      : "interleaved",
           other != NULL ? " / other -s 1000" : "",
           perf_path != NULL ? " / perf record -F 1000 -g" : "", load[0], load[1], load[2]);
  /* warm the page cache (the first import of torch reads ~1 GB) and start each daemon */
  {
    Run warm[N_MODES];
    int n_warm = 0;
    for (int m = 0; m < MODE_PERF; m++)
      if (used[m] && (m == MODE_NONE || run_dirs[m] != run_dirs[MODE_NONE]))
        warm[n_warm++] = (Run){ .argv = m == MODE_OTHER ? sample_other
                                        : m == MODE_SAMPLE ? none_here : none,
                                .envp = envs[m] };
    for (int k = 0; k < n_warm; k++)
      {
        run_start (&warm[k]);
        if (!concurrent)
          run_finish (&warm[k], 1);
      }
    if (concurrent)
      run_finish (warm, n_warm);
  }
  for (int i = 0; i < runs; i++)
    {
      Run r[N_MODES];
      double d0[N_MODES];
      int order[N_MODES], n_run = 0;
      for (int m = 0; m < N_MODES; m++)
        {
          t[m][i] = c[m][i] = dc[m][i] = dl[m][i] = ns[m][i] = nl[m][i] = hs[m][i] = -1;
          hu[m][i] = hp[m][i] = hw[m][i] = hl[m][i] = -1;
          rs[m][i] = ru[m][i] = rl[m][i] = cr[m][i] = cf[m][i] = -1;
          if (used[m])
            order[n_run++] = m;
        }
      /* the daemon's CPU time over the run: the sampling's cost that is not in the program */
      for (int k = 0; k < n_run; k++)
        {
          int m = order[k];
          pid_t d = run_dirs[m] != NULL ? sl_bench_daemon_pid (run_dirs[m]) : 0;
          r[k] = (Run){ .argv = modes[m], .envp = envs[m], .daemon = d };
          if (!concurrent)
            {
              d0[k] = process_cpu (d);
              if (run_start (&r[k]))
                run_finish (&r[k], 1);
              double d1 = process_cpu (d);
              dc[m][i] = d0[k] >= 0 && d1 >= d0[k] ? d1 - d0[k] : -1;
            }
        }
      if (concurrent)
        {
          for (int k = 0; k < n_run; k++)
            d0[k] = process_cpu (r[k].daemon);
          for (int k = 0; k < n_run; k++)
            if (!run_start (&r[k]))
              r[k].child = 0;
          run_finish (r, n_run);
          for (int k = 0; k < n_run; k++)
            {
              double d1 = process_cpu (r[k].daemon);
              dc[order[k]][i] = d0[k] >= 0 && d1 >= d0[k] ? d1 - d0[k] : -1;
            }
        }
      for (int k = 0; k < n_run; k++)
        {
          int m = order[k];
          t[m][i] = r[k].loop;
          c[m][i] = r[k].cpu;
          dl[m][i] = r[k].daemon_loop;
          if ((m == MODE_SAMPLE || m == MODE_OTHER) && t[m][i] > 0)
            {
              gint64 n = 0, in_loop = 0;
              double dp = 0;
              if (trace_samples (traces[m], r[k].window, &n, &dp, &in_loop))
                ns[m][i] = (double) n, nl[m][i] = (double) in_loop;
              if (m == MODE_SAMPLE)
                n_samples = n, depth = dp;
            }
          g_print ("   round %d %-6s %.3f s (CPU %.3f s, daemon %.3f s, %.3f s of it in the "
                   "loop)", i + 1, mode_names[m], t[m][i], c[m][i], dc[m][i], dl[m][i]);
          if (r[k].signals > 0 && r[k].stats_cpu_us > r[k].handler_us)
            {
              g_print ("; handler over the whole run %.1f us a signal (Python %.1f, native walk "
                       "%.1f), %.2f %% of the rest of the CPU time", r[k].handler_us / r[k].signals,
                       r[k].python_us / r[k].signals, r[k].walk_us / r[k].signals,
                       100.0 * r[k].handler_us / (r[k].stats_cpu_us - r[k].handler_us));
              hw[m][i] = r[k].walk_us / r[k].signals;
              hl[m][i] = r[k].libgcc_walks / r[k].signals;
            }
          if (r[k].loop_walk_us > 0)
            g_print ("; main process's native walk in the loop %.1f us a signal",
                     r[k].loop_walk_us);
          if (r[k].loop_py_reads > 0)
            {
              rl[m][i] = r[k].loop_py_reads;
              g_print ("; main process's Python stacks in the loop %.2f reads each",
                       r[k].loop_py_reads);
            }
          if (r[k].py_stacks > 0)
            {
              rs[m][i] = r[k].py_reads / r[k].py_stacks;
              ru[m][i] = r[k].py_frames > 0 ? r[k].py_reused / r[k].py_frames : -1;
              g_print ("; Python stacks %.0f, %.2f reads each, %.0f %% of their frames' code "
                       "objects vouched for by the stack before", r[k].py_stacks, rs[m][i],
                       100.0 * r[k].py_reused / MAX (r[k].py_frames, 1));
            }
          if (r[k].cmp_n > 0)
            {
              cr[m][i] = r[k].cmp_reuse_ns;
              cf[m][i] = r[k].cmp_full_ns;
              cmp_total += r[k].cmp_n;
              cmp_differed += r[k].cmp_differed;
              cmp_unsent += r[k].cmp_unsent;
              g_print ("; Python reads paired (SIGHTLINE_PYTHON=compare) in %.0f stacks: main "
                       "process's median %.1f us reusing, %.1f us full; %.0f differed, %.0f code "
                       "objects unsent", r[k].cmp_n, r[k].cmp_reuse_ns / 1e3,
                       r[k].cmp_full_ns / 1e3, r[k].cmp_differed, r[k].cmp_unsent);
            }
          if (r[k].loop_signals > 0 && c[m][i] * 1e6 > r[k].loop_handler_us)
            {
              hs[m][i] = r[k].loop_handler_us / (c[m][i] * 1e6 - r[k].loop_handler_us);
              hu[m][i] = r[k].loop_handler_us / r[k].loop_signals;
              hp[m][i] = r[k].loop_python_us / r[k].loop_signals;
              g_print ("; in the loop %.0f signals, %.1f us each (Python %.1f), %.2f %%",
                       r[k].loop_signals, r[k].loop_handler_us / r[k].loop_signals,
                       r[k].loop_python_us / r[k].loop_signals, 100.0 * hs[m][i]);
            }
          g_print ("\n");
        }
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
  /* per round against the same round's -s none run, median over the rounds */
  for (int m = MODE_SAMPLE; m <= MODE_OTHER; m++)
    {
      double rc[MAX_RUNS], rd[MAX_RUNS], rw[MAX_RUNS];
      for (int i = 0; i < runs; i++)
        {
          gboolean ok = c[m][i] > 0 && c[MODE_NONE][i] > 0;
          rc[i] = ok ? c[m][i] / c[MODE_NONE][i] : -1;
          rd[i] = ok && dl[m][i] >= 0 && dl[MODE_NONE][i] >= 0
                    ? (c[m][i] + dl[m][i]) / (c[MODE_NONE][i] + dl[MODE_NONE][i]) : -1;
          rw[i] = t[m][i] > 0 && t[MODE_NONE][i] > 0 ? t[m][i] / t[MODE_NONE][i] : -1;
        }
      double mc = median (rc, runs), md = median (rd, runs), mw = median (rw, runs);
      if (mc <= 0)
        continue;
      g_print ("   %-5s vs none, median of %d per-round ratios: CPU time of the program's process "
               "tree %+.2f %% (target <= 3 %%), with the daemon's %+.2f %%, wall %+.2f %%\n",
               mode_names[m], runs, 100.0 * (mc - 1), md > 0 ? 100.0 * (md - 1) : 0.0 / 0.0,
               mw > 0 ? 100.0 * (mw - 1) : 0.0 / 0.0);
      g_print ("   per round, CPU time:");
      for (int i = 0; i < runs; i++)
        g_print (" %+.1f", rc[i] > 0 ? 100.0 * (rc[i] - 1) : 0.0 / 0.0);
      g_print (" %%\n");
    }
  for (int m = MODE_SAMPLE; m <= MODE_OTHER; m++)
    {
      double hm = median (hs[m], runs);
      if (hm > 0)
        g_print ("   %-5s the sampler's own account (SIGHTLINE_SAMPLE_STATS): in the loop its "
                 "handler took %.2f %% of the rest of the CPU time of the process tree, median "
                 "of %d runs (the thread's CPU clock around each signal's handler; the kernel's "
                 "delivery of the signal, the flusher and the daemon not in it)\n",
                 mode_names[m], 100.0 * hm, runs);
      double um = median (hu[m], runs), pm = median (hp[m], runs);
      double wm = median (hw[m], runs), lm = median (hl[m], runs);
      if (um > 0)
        g_print ("   %-5s per signal, medians: in the loop %.1f us (Python %.1f, the rest %.1f); "
                 "over the whole run the native walk %.1f us, %.1f %% of the walks libgcc's\n",
                 mode_names[m], um, pm, um - pm, wm, 100.0 * lm);
    }
  for (int m = MODE_SAMPLE; m <= MODE_OTHER; m++)
    {
      double sm = median (rs[m], runs), um = median (ru[m], runs), lm = median (rl[m], runs);
      double crm = median (cr[m], runs), cfm = median (cf[m], runs);
      if (sm > 0)
        g_print ("   %-5s Python stacks, medians: %.2f reads (system calls) a stack, %.0f %% of "
                 "the frames' code objects vouched for by the thread's stack before; in the "
                 "loop, the main process's %.2f reads a stack\n",
                 mode_names[m], sm, um > 0 ? 100.0 * um : 0.0, lm);
      if (crm > 0 && cfm > 0)
        g_print ("   %-5s Python reads paired in the same signals (SIGHTLINE_PYTHON=compare), "
                 "median over the runs of the main process's medians: %.1f us reusing the stack "
                 "before, %.1f us reading it all (%.2fx)\n",
                 mode_names[m], crm / 1e3, cfm / 1e3, cfm / crm);
    }
  if (cmp_total > 0)
    g_print ("   compared stacks, all runs and processes: %.0f, %.0f differed, %.0f code objects "
             "not sent by the reuse\n", cmp_total, cmp_differed, cmp_unsent);
  getloadavg (load, 3);
  g_print ("   load average at the end: %.2f %.2f %.2f\n", load[0], load[1], load[2]);
  for (int m = 0; m < N_MODES; m++)
    {
      if (traces[m] != NULL)
        g_unlink (traces[m]);
      g_strfreev (envs[m]);
    }
  g_unlink (perf_data);
  return 0;
}
