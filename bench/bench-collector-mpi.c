/* bench-collector-mpi.c: what `sightline record -t mpi` costs an MPI program: the ring of
 * tests/targets/sl-mpi-ring (Isend/Recv/Wait and Irecv/Send/Waitall steps, an Allreduce every 100)
 * on NP ranks of mpirun, plain and with each rank under `sightline record -t mpi -s none --sched
 * off`, runs interleaved; per round the CPU time of all ranks together (each rank's own
 * CLOCK_PROCESS_CPUTIME_ID, the library's flusher thread included) and the loop's wall time, and
 * the median of the recorded/plain ratios (target: CPU time +2 % at most at 10^5 messages a
 * second).  The message rate is what the plain ring reaches here (NP messages a step).  On a
 * machine with fewer cores than ranks the ratios are mostly scheduling noise: NP 1 (the rank its
 * own neighbour, no waiting) measures what recording adds a message, CPU ns, and what that is at
 * 10^5 messages a second (ns per message × 10^5 / 10^9, a share of one core).
 *
 * Usage: bench-collector-mpi MPIRUN SIGHTLINE RING [ROUNDS [STEPS [NP]]] (defaults 7, 200000, 4).
 * Not a test: prints, asserts nothing.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

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
  const char *np = argc > 6 ? argv[6] : "4";
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
  g_autofree char *load = sl_bench_load_average ();

  g_mkdir_with_parents (run_dir, 0700);
  g_setenv ("SIGHTLINE_RUNTIME_DIR", run_dir, TRUE);
  printf ("ring: %s ranks, %s steps of 64-byte messages, %d rounds; load average %s\n", np, steps,
          rounds, load);
  for (int r = 0; r < rounds; r++)
    {
      double cpu0, wall0, cpu1, wall1;
      /* alternate which goes first: a machine that warms or cools favours neither */
      gboolean ok = r % 2 == 0
                        ? run_ring (plain, &cpu0, &wall0) && run_ring (recorded, &cpu1, &wall1)
                        : run_ring (recorded, &cpu1, &wall1) && run_ring (plain, &cpu0, &wall0);
      if (!ok)
        return 1;
      double rate = atof (steps) * atof (np) / wall0;
      printf ("round %d: plain %.3f s CPU %.3f s wall (%.0f messages/s), -t mpi %.3f s CPU "
              "%.3f s wall: CPU x%.4f, wall x%.4f\n", r + 1, cpu0, wall0, rate, cpu1, wall1,
              cpu1 / cpu0, wall1 / wall0);
      fflush (stdout);
      g_array_append_val (cpu_ratio, (double) { cpu1 / cpu0 });
      g_array_append_val (wall_ratio, (double) { wall1 / wall0 });
      g_array_append_val (rates, rate);
      g_array_append_val (per_message, (double) { (cpu1 - cpu0) / (atof (steps) * atof (np)) });
    }
  printf ("median: %.0f messages/s plain; -t mpi costs %+.2f %% CPU time, %+.2f %% wall time "
          "(target: CPU +2 %% at most)\n", sl_bench_median (rates),
          (sl_bench_median (cpu_ratio) - 1) * 100, (sl_bench_median (wall_ratio) - 1) * 100);
  double ns = sl_bench_median (per_message) * 1e9;
  printf ("median CPU added a message: %.0f ns; at 10^5 messages a second: %.2f %% of a core\n",
          ns, ns * 1e5 / 1e9 * 100);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  for (const char *n; d != NULL && (n = g_dir_read_name (d)) != NULL;)
    {
      g_autofree char *p = g_build_filename (dir, n, NULL);
      g_remove (p);
    }
  g_rmdir (dir);
  return 0;
}
