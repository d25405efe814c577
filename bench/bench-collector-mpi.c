/* bench-collector-mpi.c: what `sightline record -t mpi` costs an MPI program: the ring of
 * tests/targets/sl-mpi-ring (Isend/Recv/Wait and Irecv/Send/Waitall steps, an Allreduce every 100)
 * on NP ranks of mpirun, plain and with each rank under `sightline record -t mpi -s none --sched
 * off`, runs interleaved (the order alternating); per round the CPU time of all ranks together
 * (each rank's own CLOCK_PROCESS_CPUTIME_ID, the library's flusher thread included) and the loop's
 * wall time, and the median of the recorded/plain ratios.  The message rate is what the plain ring
 * reaches here (NP messages a step).
 *
 * How the target (issue 33: recording costs 2 % at most at 10^5 messages a second) is counted:
 * the CPU the program's own processes spend more a message, recorded against plain, median of
 * the rounds, and that at 10^5 messages a second as a share of one core (200 ns a message is
 * 2 %).  The collector daemon, a process of its own on another core, is counted beside it, not
 * in it: its CPU time over each recorded run (/proc/PID/stat of the sightlined the runs share),
 * a message; it writes three SQLite rows a message, where most of its time goes.  On a machine
 * with fewer cores than ranks the ratios are mostly scheduling noise: NP 1 (the rank its own
 * neighbour, no waiting) measures what recording adds a message.
 *
 * Usage: bench-collector-mpi MPIRUN SIGHTLINE RING [ROUNDS [STEPS [NP]]] (defaults 7, 200000, 1).
 * Not a test: prints, asserts nothing.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sl-bench.h"

/* One run; FALSE when it failed (said on stderr).  *cpu: the ranks' CPU seconds, *wall: the
 * loop's seconds */
static gboolean
run_ring (const char *const *argv,
          double            *cpu,
          double            *wall)
{
  g_auto (GStrv) env = g_get_environ ();
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = -1;
  long steps;

  env = g_environ_setenv (env, "OMPI_ALLOW_RUN_AS_ROOT", "1", TRUE);
  env = g_environ_setenv (env, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", TRUE);
  env = g_environ_setenv (env, "SL_RING_QUIET", "1", TRUE);
  if (!g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                     &error)
      || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "bench-collector-mpi: %s failed: %s\n", argv[0],
               error != NULL ? error->message : err);
      return FALSE;
    }
  *cpu = 0;
  *wall = 0;
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    {
      int rank;
      double s;
      if (sscanf (*l, "cpu %d %lf", &rank, &s) == 2)
        *cpu += s;
      else if (sscanf (*l, "ring %ld steps %lf s", &steps, &s) == 2)
        *wall = s;
    }
  return *cpu > 0 && *wall > 0;
}

/* The pid of the daemon that serves `run_dir` (its "*.sock.pid" file), 0 when none runs */
static long
daemon_pid (const char *run_dir)
{
  g_autoptr (GDir) d = g_dir_open (run_dir, 0, NULL);
  long pid = 0;

  for (const char *n; d != NULL && pid == 0 && (n = g_dir_read_name (d)) != NULL;)
    if (g_str_has_suffix (n, ".sock.pid"))
      {
        g_autofree char *path = g_build_filename (run_dir, n, NULL);
        g_autofree char *text = NULL;
        if (g_file_get_contents (path, &text, NULL, NULL))
          pid = strtol (text, NULL, 10);
      }
  return pid > 0 && kill ((pid_t) pid, 0) == 0 ? pid : 0;
}

/* CPU seconds (user + system) process `pid` has spent, 0 when it is gone */
static double
process_cpu (long pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%ld/stat", pid);
  g_autofree char *text = NULL;
  unsigned long long utime, stime;

  if (pid <= 0 || !g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  /* after the command's ")": state (field 3) ... utime (14), stime (15) */
  const char *p = strrchr (text, ')');
  if (p == NULL
      || sscanf (p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime)
         != 2)
    return 0;
  return (double) (utime + stime) / (double) sysconf (_SC_CLK_TCK);
}

/* One recorded run; *daemon the daemon's CPU seconds over it (0 when it cannot be told) */
static gboolean
run_recorded (const char *const *argv,
              const char        *run_dir,
              double            *cpu,
              double            *wall,
              double            *daemon)
{
  long pid = daemon_pid (run_dir);
  double before = process_cpu (pid);

  if (!run_ring (argv, cpu, wall))
    return FALSE;
  long after_pid = daemon_pid (run_dir);
  /* a daemon started by this run: all its time is this run's */
  *daemon = after_pid != 0 ? process_cpu (after_pid) - (after_pid == pid ? before : 0) : 0;
  return TRUE;
}

int
main (int    argc,
      char **argv)
{
  if (argc < 4)
    {
      fprintf (stderr, "usage: bench-collector-mpi MPIRUN SIGHTLINE RING [ROUNDS [STEPS [NP]]]\n");
      return 2;
    }
  int rounds = argc > 4 ? atoi (argv[4]) : 7;
  const char *steps = argc > 5 ? argv[5] : "200000";
  const char *np = argc > 6 ? argv[6] : "1";
  g_autofree char *dir = g_dir_make_tmp ("sl-bench-mpi-XXXXXX", NULL);
  g_autofree char *run_dir = g_build_filename (dir, "run", NULL);
  g_autofree char *pattern = g_build_filename (dir, "t-%q{OMPI_COMM_WORLD_RANK}.sqlite", NULL);
  const char *plain[] = { argv[1], "--oversubscribe", "-np", np, argv[3], steps, "64", NULL };
  const char *recorded[] = { argv[1], "--oversubscribe", "-np", np, argv[2], "record", "-f",
                             "-t", "mpi", "-s", "none", "--sched", "off", "-o", pattern,
                             argv[3], steps, "64", NULL };
  g_autoptr (GArray) cpu_ratio = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) wall_ratio = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) rates = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) per_message = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) daemon_per_message = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree char *load = sl_bench_load_average ();

  g_mkdir_with_parents (run_dir, 0700);
  g_setenv ("SIGHTLINE_RUNTIME_DIR", run_dir, TRUE);
  printf ("ring: %s ranks, %s steps of 64-byte messages, %d rounds; load average %s\n", np, steps,
          rounds, load);
  for (int r = 0; r < rounds; r++)
    {
      double cpu0, wall0, cpu1, wall1, daemon;
      /* alternate which goes first: a machine that warms or cools favours neither */
      gboolean ok = r % 2 == 0 ? run_ring (plain, &cpu0, &wall0)
                                     && run_recorded (recorded, run_dir, &cpu1, &wall1, &daemon)
                               : run_recorded (recorded, run_dir, &cpu1, &wall1, &daemon)
                                     && run_ring (plain, &cpu0, &wall0);
      if (!ok)
        return 1;
      double messages = atof (steps) * atof (np);
      double rate = messages / wall0;
      printf ("round %d: plain %.3f s CPU %.3f s wall (%.0f messages/s), -t mpi %.3f s CPU "
              "%.3f s wall: CPU x%.4f, wall x%.4f, %+.0f ns a message; daemon %.3f s CPU, "
              "%.0f ns a message\n", r + 1, cpu0, wall0, rate, cpu1, wall1, cpu1 / cpu0,
              wall1 / wall0, (cpu1 - cpu0) / messages * 1e9, daemon, daemon / messages * 1e9);
      fflush (stdout);
      g_array_append_val (cpu_ratio, (double) { cpu1 / cpu0 });
      g_array_append_val (wall_ratio, (double) { wall1 / wall0 });
      g_array_append_val (rates, rate);
      g_array_append_val (per_message, (double) { (cpu1 - cpu0) / messages });
      g_array_append_val (daemon_per_message, (double) { daemon / messages });
    }
  printf ("median: %.0f messages/s plain; -t mpi costs the program %+.2f %% CPU time, %+.2f %% "
          "wall time\n", sl_bench_median (rates), (sl_bench_median (cpu_ratio) - 1) * 100,
          (sl_bench_median (wall_ratio) - 1) * 100);
  double ns = sl_bench_median (per_message) * 1e9;
  double daemon_ns = sl_bench_median (daemon_per_message) * 1e9;
  printf ("median CPU the program spends more a message: %.0f ns; at 10^5 messages a second "
          "%.2f %% of a core (target: 2 %% at most)\n", ns, ns * 1e5 / 1e9 * 100);
  printf ("median CPU of the collector daemon a message (another process, not in the above): "
          "%.0f ns; at 10^5 messages a second %.2f %% of a core\n", daemon_ns,
          daemon_ns * 1e5 / 1e9 * 100);
  long pid = daemon_pid (run_dir);
  if (pid != 0)
    kill ((pid_t) pid, SIGTERM); /* ours: its folder goes now */
  /* the traces, then the daemon's folder (its socket, pid file and log) */
  const char *const folders[] = { run_dir, dir };
  for (guint i = 0; i < G_N_ELEMENTS (folders); i++)
    {
      g_autoptr (GDir) d = g_dir_open (folders[i], 0, NULL);
      for (const char *n; d != NULL && (n = g_dir_read_name (d)) != NULL;)
        {
          g_autofree char *p = g_build_filename (folders[i], n, NULL);
          g_remove (p);
        }
    }
  g_rmdir (dir);
  return 0;
}
