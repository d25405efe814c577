/* bench-open.c: time from opening a trace in the viewer to its first painted frame, against the
 * model's load time of the same file, measured in one run.
 *
 *   xvfb-run -a bench-open FILE [RUNS]
 *
 * Runs the real `sightline FILE` with SIGHTLINE_BENCH_FIRST_FRAME=1 (it prints when its first frame
 * after loading was painted, counted from the start of the load, and quits), alternating with an
 * in-process sl_trace_load() of the same file.  The target: first frame ≤ 1.5 × load time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl-sort.h"
#include "sl-trace.h"


int
main (int    argc,
      char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: xvfb-run -a %s FILE [RUNS]\n", argv[0]);
      return 2;
    }
  guint runs = argc > 2 ? (guint) CLAMP (atoi (argv[2]), 1, 20) : 3;
  g_autofree double *frame = g_new (double, runs), *load = g_new (double, runs);
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SIGHTLINE_BENCH_FIRST_FRAME", "1", TRUE);
  char *child[] = { (char *) SL_SIGHTLINE_BIN, argv[1], NULL };

  for (guint r = 0; r < runs; r++)
    {
      g_autofree char *out = NULL;
      g_autoptr (GError) error = NULL;
      int status = 0;

      if (!g_spawn_sync (NULL, child, env, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error))
        g_error ("cannot run %s: %s", SL_SIGHTLINE_BIN, error->message);
      const char *line = out != NULL ? strstr (out, "first-frame-ms ") : NULL;
      if (line == NULL)
        g_error ("sightline printed no first-frame time (is there a display? run under xvfb-run -a)");
      frame[r] = g_ascii_strtod (line + strlen ("first-frame-ms "), NULL) / 1e3;

      gint64 t = g_get_monotonic_time ();
      g_autoptr (SlTrace) trace = sl_trace_load (argv[1], SL_LOAD_ALL, NULL, NULL, NULL, &error);
      load[r] = (g_get_monotonic_time () - t) / 1e6;
      if (trace == NULL)
        g_error ("%s", error->message);
    }
  qsort (frame, runs, sizeof (double), sl_cmp_double);
  qsort (load, runs, sizeof (double), sl_cmp_double);
  double f = frame[runs / 2], l = load[runs / 2];
  printf ("file                     %s\n", argv[1]);
  printf ("model load               %.3f s (median of %u)\n", l, runs);
  printf ("viewer: first frame      %.3f s after opening (median of %u)\n", f, runs);
  printf ("first frame / load       %.2f   (target <= 1.5)\n", f / l);
  return 0;
}
