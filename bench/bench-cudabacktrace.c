/* bench-cudabacktrace.c: what nsys's --cudabacktrace costs the recorded program.
 *
 * Usage: bench-cudabacktrace [SYNCS [RUNS]]   (defaults: 200000 synchronizations, 9 runs)
 *
 * The fake CUDA target (tests/targets/sl-fake-cuda-target.c `loop SYNCS`, its CUDA the libcupti
 * double tests/cupti/fake-cupti.c) does ~5 µs of its own work then a cudaStreamSynchronize, about
 * 10^5 synchronizations a second, and prints the wall and CPU time of its loop.  It is recorded
 * with `sightline record -t cuda -s none --sched off` and
 *   --cudabacktrace none     the baseline: CUDA traced, no backtraces;
 *   (no option)              the default, sync:250000: every synchronizing call is timed in
 *                            CUPTI's callbacks, these short ones get no backtrace;
 *   --cudabacktrace sync:0   a backtrace of every synchronization (10^5 a second, the worst case).
 * Runs interleaved (none, default, all; RUNS times), medians → the loop's wall and CPU time
 * against the baseline, and the cost of one backtrace.
 * Then the default's worst case: `wait SYNCS/20 250000`, each synchronization waiting for a
 * 250 µs kernel (the fake GPU's wait sleeps: a little longer), so that every one is just over the
 * threshold and gets a backtrace: none against the default, interleaved, medians.
 *
 * Not a test: prints, asserts nothing.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl-sort.h"

typedef struct
{
  const char *label;
  const char *option; /* NULL: the default */
  GArray     *wall, *cpu;
} Mode;

/* One recording of the target's `what` mode; FALSE when it failed (said on stderr). */
static gboolean
run_once (Mode       *m,
          const char *what,
          const char *syncs,
          const char *wait_ns,
          const char *out)
{
  const char *argv[24];
  int n = 0;
  g_autofree char *stdout_text = NULL, *stderr_text = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;

  argv[n++] = SL_SIGHTLINE_PATH;
  argv[n++] = "record";
  argv[n++] = "-f";
  argv[n++] = "-o";
  argv[n++] = out;
  argv[n++] = "-t";
  argv[n++] = "cuda";
  argv[n++] = "-s";
  argv[n++] = "none";
  argv[n++] = "--sched";
  argv[n++] = "off";
  if (m->option != NULL)
    {
      argv[n++] = "--cudabacktrace";
      argv[n++] = m->option;
    }
  argv[n++] = "--";
  argv[n++] = SL_FAKE_TARGET_PATH;
  argv[n++] = what;
  argv[n++] = syncs;
  if (wait_ns != NULL)
    argv[n++] = wait_ns;
  argv[n] = NULL;
  g_assert (n < (int) G_N_ELEMENTS (argv));
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &stdout_text,
                     &stderr_text, &status, &error))
    {
      g_printerr ("bench-cudabacktrace: %s\n", error->message);
      return FALSE;
    }
  const char *line = stdout_text != NULL ? strstr (stdout_text, "fake-cuda: loop ") : NULL;
  unsigned long long calls = 0, wall = 0, cpu = 0;
  if (line == NULL
      || sscanf (line, "fake-cuda: loop %llu syncs wall %llu ns cpu %llu ns", &calls, &wall, &cpu)
           != 3)
    {
      g_printerr ("bench-cudabacktrace: %s: no loop timing (stderr: %s)\n", m->label, stderr_text);
      return FALSE;
    }
  double w = (double) wall, c = (double) cpu;
  g_array_append_val (m->wall, w);
  g_array_append_val (m->cpu, c);
  return TRUE;
}

static double
median (GArray *a)
{
  return a->len == 0 ? 0 : sl_median_double ((double *) (void *) a->data, a->len);
}

int
main (int   argc,
      char *argv[])
{
  const char *syncs = argc > 1 ? argv[1] : "200000";
  int runs = argc > 2 ? atoi (argv[2]) : 9;
  Mode modes[] = {
    { "none (baseline)", "none", NULL, NULL },
    { "default (sync:250000)", NULL, NULL, NULL },
    { "sync:0 (every call)", "sync:0", NULL, NULL },
  };
  g_autofree char *dir = g_dir_make_tmp ("bench-cudabacktrace-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "t.sqlite", NULL);
  g_autofree char *runtime = g_build_filename (dir, "run", NULL);
  double n_syncs = g_ascii_strtod (syncs, NULL);

  g_mkdir_with_parents (runtime, 0700);
  g_setenv ("SIGHTLINE_RUNTIME_DIR", runtime, TRUE);
  g_setenv ("SIGHTLINE_CUPTI", SL_FAKE_CUPTI_PATH, TRUE);
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      modes[m].wall = g_array_new (FALSE, FALSE, sizeof (double));
      modes[m].cpu = g_array_new (FALSE, FALSE, sizeof (double));
    }
  for (int r = 0; r < runs; r++)
    for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
      if (!run_once (&modes[m], "loop", syncs, NULL, out))
        return 1;

  double base_wall = median (modes[0].wall), base_cpu = median (modes[0].cpu);
  printf ("bench-cudabacktrace: %s synchronizations, %d interleaved runs, medians\n", syncs, runs);
  printf ("  baseline: %.0f synchronizations a second\n", n_syncs / (base_wall / 1e9));
  printf ("  %-24s %12s %12s %10s %10s\n", "--cudabacktrace", "wall ms", "cpu ms", "wall/base",
          "cpu/base");
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      double w = median (modes[m].wall), c = median (modes[m].cpu);
      printf ("  %-24s %12.1f %12.1f %10.4f %10.4f\n", modes[m].label, w / 1e6, c / 1e6,
              w / base_wall, c / base_cpu);
    }
  double per = (median (modes[2].cpu) - base_cpu) / n_syncs;
  printf ("  one backtrace: %.0f ns of CPU time, %.2f %% of the default's 250 us threshold\n", per,
          100.0 * per / 250000.0);

  /* the worst case of the default: every wait just over its threshold */
  Mode waits[] = {
    { "none (baseline)", "none", NULL, NULL },
    { "default (sync:250000)", NULL, NULL, NULL },
  };
  g_autofree char *n_waits = g_strdup_printf ("%.0f", n_syncs / 20);
  for (guint m = 0; m < G_N_ELEMENTS (waits); m++)
    {
      waits[m].wall = g_array_new (FALSE, FALSE, sizeof (double));
      waits[m].cpu = g_array_new (FALSE, FALSE, sizeof (double));
    }
  for (int r = 0; r < runs; r++)
    for (guint m = 0; m < G_N_ELEMENTS (waits); m++)
      if (!run_once (&waits[m], "wait", n_waits, "250000", out))
        return 1;
  base_wall = median (waits[0].wall);
  base_cpu = median (waits[0].cpu);
  printf ("  worst case of the default: %s waits of a 250 us kernel, %.1f us each\n", n_waits,
          base_wall / 1e3 / g_ascii_strtod (n_waits, NULL));
  for (guint m = 0; m < G_N_ELEMENTS (waits); m++)
    printf ("  %-24s %12.1f %12.1f %10.4f %10.4f\n", waits[m].label,
            median (waits[m].wall) / 1e6, median (waits[m].cpu) / 1e6,
            median (waits[m].wall) / base_wall, median (waits[m].cpu) / base_cpu);
  g_unlink (out);
  g_autofree char *journal = g_strconcat (out, "-journal", NULL);
  g_unlink (journal);
  /* our daemon would exit by itself after a minute idle: do not leave it behind */
  g_autofree char *pidfile = g_build_filename (runtime, "sightlined.sock.pid", NULL);
  g_autofree char *pid = NULL;
  if (g_file_get_contents (pidfile, &pid, NULL, NULL) && atoi (pid) > 1)
    kill (atoi (pid), SIGTERM);
  return 0;
}
