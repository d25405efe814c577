/* bench-calltree.c: building the call trees of CPU samples (model/sl-calltree.c), for the whole
 * trace and for a tenth of it, each as a ratio against a baseline measured in the same run.
 *
 *   bench-calltree FILE [RUNS]
 *
 * FILE with a million samples: `sightline-gen -o 1m-samples.sqlite -n 10M --sample-share 10`
 * (stacks ~40 frames deep).  Baseline: a plain scan of the same samples' call chains (every frame
 * of every sample in the scope read once and summed: the floor of any aggregation); runs are
 * interleaved and the medians compared.  Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID):
 * on a shared machine wall time also counts the other programs.  The budget is 300 ms for
 * 1 M samples, and a range's build in proportion to its samples.
 */
#include <stdio.h>
#include <time.h>

#include "sl-calltree.h"
#include "sl-lane.h"
#include "sl-sort.h"
#include "sl-trace.h"

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* Reads every frame of every sample in [t0, t1); returns the frames read. */
static guint64
scan_chains (SlTrace *trace,
             SlTime   t0,
             SlTime   t1,
             guint64 *sink)
{
  guint64 frames = 0;

  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind != SL_LANE_SAMPLES)
        continue;
      for (gsize i = sl_lane_lower_bound (lane, t0); i < lane->n_events; i++)
        {
          if (lane->events[i].start >= t1)
            break;
          const guint32 *syms, *mods;
          guint n = sl_trace_get_callchain (trace, lane->events[i].aux, &syms, &mods);
          for (guint k = 0; k < n; k++)
            *sink += syms[k] ^ mods[k];
          frames += n;
        }
    }
  return frames;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr (GError) error = NULL;
  guint runs = argc > 2 ? (guint) g_ascii_strtoull (argv[2], NULL, 10) : 9;

  if (argc < 2 || runs == 0)
    {
      fprintf (stderr, "usage: bench-calltree FILE [RUNS]\n");
      return 2;
    }
  double t = (double) g_get_monotonic_time () / 1e6;
  g_autoptr (SlTrace) trace = sl_trace_load (argv[1], SL_LOAD_SAMPLES, NULL, NULL, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "bench-calltree: cannot load %s: %s\n", argv[1], error->message);
      return 1;
    }
  printf ("loaded %s in %.1f s\n", argv[1], (double) g_get_monotonic_time () / 1e6 - t);

  /* the samples' time span, and its middle tenth */
  SlTime first = G_MAXINT64, last = G_MININT64;
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind == SL_LANE_SAMPLES && lane->n_events > 0)
        {
          first = MIN (first, lane->events[0].start);
          last = MAX (last, lane->events[lane->n_events - 1].start);
        }
    }
  if (first > last)
    {
      fprintf (stderr, "bench-calltree: %s has no CPU samples\n", argv[1]);
      return 1;
    }
  SlCalltreeScope whole, tenth;
  sl_calltree_scope_init (&whole);
  sl_calltree_scope_init (&tenth);
  tenth.t0 = first + (last - first) / 20 * 9;
  tenth.t1 = first + (last - first) / 20 * 11;

  g_autofree double *scan_w = g_new (double, runs), *build_w = g_new (double, runs);
  g_autofree double *scan_r = g_new (double, runs), *build_r = g_new (double, runs);
  guint64 sink = 0, frames_w = 0, frames_r = 0, samples_w = 0, samples_r = 0;
  guint nodes = 0, functions = 0;

  for (guint r = 0; r < runs; r++)
    {
      t = now ();
      frames_w = scan_chains (trace, whole.t0, whole.t1, &sink);
      scan_w[r] = now () - t;
      t = now ();
      g_autoptr (SlCalltree) w = sl_calltree_build (trace, &whole, NULL, NULL);
      build_w[r] = now () - t;
      t = now ();
      frames_r = scan_chains (trace, tenth.t0, tenth.t1, &sink);
      scan_r[r] = now () - t;
      t = now ();
      g_autoptr (SlCalltree) p = sl_calltree_build (trace, &tenth, NULL, NULL);
      build_r[r] = now () - t;
      samples_w = sl_calltree_get_n_samples (w);
      samples_r = sl_calltree_get_n_samples (p);
      nodes = sl_calltree_get_n_nodes (w, SL_CALLTREE_TOP_DOWN);
      functions = sl_calltree_get_n_functions (w);
    }

  double sw = sl_median_double (scan_w, runs), bw = sl_median_double (build_w, runs);
  double sr = sl_median_double (scan_r, runs), br = sl_median_double (build_r, runs);
  printf ("samples %" G_GUINT64_FORMAT ", %.1f frames each; %u top-down nodes, %u functions "
          "(sink %" G_GUINT64_FORMAT ")\n", samples_w, (double) frames_w / (double) samples_w,
          nodes, functions, sink & 1);
  printf ("whole trace   scan %7.1f ms  build %7.1f ms  build/scan %.2f  (budget 300 ms for 1 M "
          "samples: %.0f ms here)\n", sw * 1e3, bw * 1e3, bw / sw,
          300.0 * (double) samples_w / 1e6);
  printf ("middle tenth  scan %7.1f ms  build %7.1f ms  build/scan %.2f  (%" G_GUINT64_FORMAT
          " samples, %.1f%% of them)\n", sr * 1e3, br * 1e3, br / sr, samples_r,
          100.0 * (double) samples_r / (double) samples_w);
  printf ("range/whole   build %.3f for %.3f of the samples (frames %.3f)  medians of %u "
          "interleaved runs (thread CPU time)\n", br / bw, (double) samples_r / (double) samples_w,
          (double) frames_r / (double) frames_w, runs);
  return 0;
}
