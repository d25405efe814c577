/* bench-open.c: time from opening a trace in the viewer to its first painted frame, against the
 * model's load time of the same file, measured in one run.
 *
 *   xvfb-run -a bench-open FILE [RUNS]
 *
 * Each run, in turn: the real `sightline FILE` with SIGHTLINE_BENCH_FIRST_FRAME=1 (it prints when
 * its first frame was painted, counted from the start of the load, and quits); an in-process
 * sl_trace_load() of the same file (the baseline); and sl_trace_load_progressive(), the viewer's
 * load, timed to its first look and to the whole trace.  The model cache is off throughout
 * (SIGHTLINE_CACHE=0): every load reads the file.  Medians.  Targets (issue 18): the first frame
 * of a big file at ≤ 0.15 × its load time (a file under SIGHTLINE_FIRST_LOOK_MIN, 128 MiB, has no
 * first look: its first frame is after the whole load, ≤ 1.5 × it); the progressive load's whole
 * against the plain load says what the two steps cost.  Not a test: prints, asserts nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl-sort.h"
#include "sl-trace.h"

static void
first_look_cb (SlTrace  *first_look,
               gpointer  user_data)
{
  (void) first_look;
  *(gint64 *) user_data = g_get_monotonic_time ();
}

static double
median (double *v,
        guint   n)
{
  qsort (v, n, sizeof (double), sl_cmp_double);
  return v[n / 2];
}

int
main (int    argc,
      char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: xvfb-run -a %s FILE [RUNS]\n", argv[0]);
      return 2;
    }
  g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
  guint runs = argc > 2 ? (guint) CLAMP (atoi (argv[2]), 1, 20) : 3;
  g_autofree double *frame = g_new (double, runs), *load = g_new (double, runs);
  g_autofree double *look = g_new (double, runs), *whole = g_new (double, runs);
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "SIGHTLINE_BENCH_FIRST_FRAME", "1", TRUE);
  char *child[] = { (char *) SL_SIGHTLINE_BIN, argv[1], NULL };
  guint looks = 0;

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
      g_clear_pointer (&trace, sl_trace_unref);

      gint64 seen = 0;
      t = g_get_monotonic_time ();
      trace = sl_trace_load_progressive (argv[1], first_look_cb, NULL, &seen, NULL, &error);
      whole[r] = (g_get_monotonic_time () - t) / 1e6;
      if (trace == NULL)
        g_error ("%s", error->message);
      look[r] = seen != 0 ? (seen - t) / 1e6 : whole[r];
      looks += seen != 0;
    }
  double f = median (frame, runs), l = median (load, runs);
  double k = median (look, runs), w = median (whole, runs);
  printf ("file                     %s\n", argv[1]);
  printf ("model load               %.3f s (median of %u)\n", l, runs);
  printf ("viewer: first frame      %.3f s after opening (median of %u)\n", f, runs);
  printf ("first frame / load       %.3f   (target <= 0.15 with a first look, else <= 1.5)\n",
          f / l);
  printf ("progressive load         first look %.3f s (%.3f of the load; %u of %u runs had one), "
          "whole %.3f s (%.3f of the load)\n",
          k, k / l, looks, runs, w, w / l);
  return 0;
}
