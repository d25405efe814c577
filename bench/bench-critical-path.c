/* bench-critical-path.c: the critical path of a whole trace taken as one step (a 1 M-event trace
 * from `sightline-gen -n 1M`) against, in the same run, loading that trace and `analyze` on it;
 * the target is a critical path in <= 1 s for a 1 M-event step (issue 30, item 6).
 *
 * Each run loads the trace afresh (model cache off), then times the critical path of its whole
 * span, of its middle tenth, and the analysis of the whole trace; the medians of RUNS runs are
 * printed as absolute times and as ratios to the load and to analyze.  Not a test: asserts
 * nothing.
 *
 * Usage: bench-critical-path TRACE [RUNS]   (build/bench/sightline-gen -o /tmp/1m.sqlite -n 1M) */
#include <stdio.h>
#include <stdlib.h>

#include "sl-analyze.h"
#include "sl-bench.h"
#include "sl-critical-path.h"
#include "sl-sort.h"
#include "sl-trace.h"

int
main (int    argc,
      char **argv)
{
  int runs = argc > 2 ? MAX (atoi (argv[2]), 1) : 3;
  double load[64], whole[64], tenth[64], analyze[64];
  SlTrace *trace = NULL;
  gsize n_segments = 0, n_nodes = 0, n_edges = 0;

  if (argc < 2)
    {
      fprintf (stderr, "Usage: %s TRACE [RUNS]\n", argv[0]);
      return 2;
    }
  runs = MIN (runs, 64);
  g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
  for (int r = 0; r < runs; r++)
    {
      g_autoptr (GError) error = NULL;
      double t;
      if (trace != NULL)
        sl_trace_unref (trace);
      t = sl_bench_now ();
      trace = sl_trace_load (argv[1], SL_LOAD_ALL, NULL, NULL, NULL, &error);
      if (trace == NULL)
        {
          fprintf (stderr, "bench-critical-path: %s\n", error->message);
          return 1;
        }
      load[r] = sl_bench_now () - t;

      SlTime a = sl_trace_get_start (trace), b = sl_trace_get_end (trace);
      t = sl_bench_now ();
      {
        g_autoptr (SlCriticalPath) path = sl_critical_path_compute (trace, a, b, NULL, NULL,
                                                                    NULL);
        sl_critical_path_get_segments (path, &n_segments);
        sl_critical_path_get_counts (path, &n_nodes, &n_edges, NULL, NULL);
      }
      whole[r] = sl_bench_now () - t;

      t = sl_bench_now ();
      {
        g_autoptr (SlCriticalPath) path
          = sl_critical_path_compute (trace, a + (b - a) / 100 * 45, a + (b - a) / 100 * 55, NULL,
                                      NULL, NULL);
      }
      tenth[r] = sl_bench_now () - t;

      t = sl_bench_now ();
      {
        g_autoptr (SlAnalysis) an = sl_analyze (trace, NULL, NULL, NULL);
      }
      analyze[r] = sl_bench_now () - t;
      printf ("run %d: load %.3f s, critical path of the whole trace %.3f s, of a tenth %.3f s, "
              "analyze %.3f s\n", r + 1, load[r], whole[r], tenth[r], analyze[r]);
    }
  double l = sl_median_double (load, runs), w = sl_median_double (whole, runs);
  double x = sl_median_double (tenth, runs), an = sl_median_double (analyze, runs);
  printf ("%s: %zu events; the whole trace's graph %zu nodes, %zu edges, path %zu segments\n",
          argv[1], sl_trace_get_n_events (trace), n_nodes, n_edges, n_segments);
  printf ("medians of %d: critical path %.3f s (target <= 1 s), a tenth %.3f s; load %.3f s, "
          "analyze %.3f s; critical path / load = %.2f, / analyze = %.2f\n", runs, w, x, l, an,
          w / l, w / an);
  sl_trace_unref (trace);
  return 0;
}
