/* bench-analyze.c: every rule of `sightline analyze` over a trace vs. loading that trace into the
 * model, in the same run; the target is analysis <= 0.5 × load on a 10 M-event trace (issue 28).
 *
 * What a user meets: `sightline analyze FILE` loads the trace from its SQLite file and analyses
 * it once.  So each run loads a fresh trace with the model cache off (the load a first open pays;
 * a cached open only maps the file, and its events are read in by whoever touches them first) and
 * times that trace's first analysis, which builds what the rules share (the GPU busy union, the
 * idle account).  Runs alternate load and analysis; the medians of RUNS runs are printed, as wall
 * time and as CPU time of the process (both cores: this machine is shared and noisy, and CPU
 * time is the work done); with --rules, then each rule alone once, on the last trace (its shared
 * parts built already: what the rule itself costs).  Not a test: asserts nothing.
 *
 * Usage: bench-analyze TRACE [RUNS] [--rules]   (a trace from `sightline-gen -n 10M`) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sl-analyze.h"
#include "sl-bench.h"
#include "sl-sort.h"
#include "sl-trace.h"

/* CPU seconds of the process so far, every thread's, user and system. */
static double
cpu_now (void)
{
  struct rusage u;

  getrusage (RUSAGE_SELF, &u);
  return (double) (u.ru_utime.tv_sec + u.ru_stime.tv_sec)
         + (double) (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* Page faults of the process so far: fresh memory's first touch, which in this machine's
 * virtual machine costs more than the work done on it. */
static long
faults_now (void)
{
  struct rusage u;

  getrusage (RUSAGE_SELF, &u);
  return u.ru_minflt + u.ru_majflt;
}

int
main (int    argc,
      char **argv)
{
  int runs = argc > 2 ? MAX (atoi (argv[2]), 1) : 3;
  double load[64], all[64], load_cpu[64], all_cpu[64], ratio[64];
  SlTrace *trace = NULL;
  guint n_findings = 0;

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
      double t, c;
      long pf, load_pf;
      if (trace != NULL)
        sl_trace_unref (trace);
      t = sl_bench_now ();
      c = cpu_now ();
      load_pf = faults_now ();
      trace = sl_trace_load (argv[1], SL_LOAD_ALL, NULL, NULL, NULL, &error);
      if (trace == NULL)
        {
          fprintf (stderr, "bench-analyze: %s\n", error->message);
          return 1;
        }
      load[r] = sl_bench_now () - t;
      load_cpu[r] = cpu_now () - c;
      load_pf = faults_now () - load_pf;
      t = sl_bench_now ();
      c = cpu_now ();
      pf = faults_now ();
      {
        g_autoptr (SlAnalysis) a = sl_analyze (trace, NULL, NULL, NULL);
        n_findings = a->findings->len;
      }
      all[r] = sl_bench_now () - t;
      all_cpu[r] = cpu_now () - c;
      pf = faults_now () - pf;
      ratio[r] = all[r] / load[r];
      printf ("run %d: load %.3f s (cpu %.3f, %ld page faults), first analysis %.3f s (cpu %.3f, "
              "%ld page faults): %.2f ×\n", r + 1, load[r], load_cpu[r], load_pf, all[r],
              all_cpu[r], pf, ratio[r]);
    }
  printf ("%s: %zu events, %u findings\n", argv[1], sl_trace_get_n_events (trace), n_findings);

  /* each rule alone, once: where the time goes */
  for (const SlRule *rule = sl_analyze_rules ();
       argc > 3 && strcmp (argv[3], "--rules") == 0 && rule->name != NULL; rule++)
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
    printf ("a tenth of the trace (45%%…55%%): %.3f s, %u findings\n",
            sl_median_double (part, runs), n);
  }
  {
    double l = sl_median_double (load, runs), x = sl_median_double (all, runs);
    double lc = sl_median_double (load_cpu, runs), xc = sl_median_double (all_cpu, runs);
    printf ("medians of %d: analysis %.3f s, load %.3f s: analysis / load = %.2f (median of the "
            "runs' ratios %.2f; target <= 0.5); CPU time %.3f s against %.3f s (%.2f ×)\n",
            runs, x, l, x / l, sl_median_double (ratio, runs), xc, lc, xc / lc);
  }
  sl_trace_unref (trace);
  return 0;
}
