/* bench-analyze.c: every rule of `sightline analyze` over a trace vs. loading that trace into the
 * model, in the same run; the target is analysis <= 0.5 × load on a 10 M-event trace (issue 28).
 * Prints the median of RUNS runs of each, per rule (each alone also builds the idle account its
 * summary needs), and the ratio.  Not a test: asserts nothing.
 *
 * Usage: bench-analyze TRACE [RUNS]   (a trace from `sightline-gen -n 10M`) */
#include <stdio.h>
#include <stdlib.h>

#include "sl-analyze.h"
#include "sl-sort.h"
#include "sl-trace.h"



int
main (int    argc,
      char **argv)
{
  int runs = argc > 2 ? MAX (atoi (argv[2]), 1) : 3;
  double load[64], all[64];
  SlTrace *trace = NULL;

  if (argc < 2)
    {
      fprintf (stderr, "Usage: %s TRACE [RUNS]\n", argv[0]);
      return 2;
    }
  runs = MIN (runs, 64);
  for (int r = 0; r < runs; r++)
    {
      g_autoptr (GError) error = NULL;
      gint64 t = g_get_monotonic_time ();
      if (trace != NULL)
        sl_trace_unref (trace);
      trace = sl_trace_load (argv[1], SL_LOAD_ALL, NULL, NULL, NULL, &error);
      if (trace == NULL)
        {
          fprintf (stderr, "bench-analyze: %s\n", error->message);
          return 1;
        }
      load[r] = (g_get_monotonic_time () - t) / 1e6;
    }
  printf ("%s: %zu events, load %.3f s (median of %d)\n", argv[1], sl_trace_get_n_events (trace),
          sl_median_double (load, runs), runs);

  for (int r = 0; r < runs; r++)
    {
      gint64 t = g_get_monotonic_time ();
      g_autoptr (SlAnalysis) a = sl_analyze (trace, NULL, NULL, NULL);
      all[r] = (g_get_monotonic_time () - t) / 1e6;
      if (r == 0)
        printf ("every rule: %u findings\n", a->findings->len);
    }
  /* each rule alone, once: where the time goes */
  for (const SlRule *rule = sl_analyze_rules (); rule->name != NULL; rule++)
    {
      const char *names[] = { rule->name, NULL };
      gint64 t = g_get_monotonic_time ();
      g_autoptr (SlAnalysis) a = sl_analyze (trace, names, NULL, NULL);
      printf ("  %-16s %8.3f s  %u findings\n", rule->name, (g_get_monotonic_time () - t) / 1e6,
              a->findings->len);
    }
  /* a tenth of the trace, as `analyze --range`: the event rules read only its events */
  {
    SlTime start = sl_trace_get_start (trace), span = sl_trace_get_end (trace) - start;
    g_autoptr (SlAnalyzeParams) params = sl_analyze_params_new ();
    double part[64];
    guint n = 0;

    sl_analyze_params_set_range (params, start + span / 100 * 45, start + span / 100 * 55);
    for (int r = 0; r < runs; r++)
      {
        gint64 t = g_get_monotonic_time ();
        g_autoptr (SlAnalysis) a = sl_analyze (trace, NULL, params, NULL);
        part[r] = (g_get_monotonic_time () - t) / 1e6;
        n = a->findings->len;
      }
    printf ("a tenth of the trace (45%%…55%%): %.3f s, %u findings; whole trace %.3f s\n",
            sl_median_double (part, runs), n, sl_median_double (all, runs));
  }
  {
    double l = sl_median_double (load, runs), x = sl_median_double (all, runs);
    printf ("analysis %.3f s, load %.3f s: analysis / load = %.2f (target <= 0.5)\n", x, l, x / l);
  }
  sl_trace_unref (trace);
  return 0;
}
