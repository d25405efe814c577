/* sl-work-range.c: where a trace's work is (sl-work-range.h).  One long range sets a trace's axis
 * as easily as its work does: Kineto's "PyTorch Profiler (0)" span and a ProfilerStep that holds
 * the whole run, a thread that starts seconds before the GPU is touched.  A first view of the
 * whole axis then shows the work in a few pixel columns; this is the range to show instead. */
#include "sl-work-range.h"

/* The range is widened by this part of itself on each side, so that its first and last events
 * are not under the view's edges. */
#define MARGIN 0.02
/* A range that covers this much of the trace is the trace. */
#define MOST 0.9

static gboolean
is_gpu_work (SlLaneKind kind)
{
  return kind == SL_LANE_KERNELS || kind == SL_LANE_MEMCPY || kind == SL_LANE_MEMSET
         || kind == SL_LANE_GRAPHS;
}

/* The hull of the lanes' events of the kinds `gpu` selects, less events longer than `longest`.
 * Costs one pass over those events: 10^5-10^6 GPU ops, the CPU lanes only without them. */
static gboolean
hull (SlTrace *trace,
      gboolean gpu,
      SlTime   longest,
      SlTime  *lo,
      SlTime  *hi)
{
  gboolean any = FALSE;

  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      /* a thread's states tile its whole life: they say where it lived, not where it worked */
      if (is_gpu_work (lane->kind) != gpu || lane->kind == SL_LANE_SCHED
          || lane->kind == SL_LANE_SYNC)
        continue;
      for (gsize i = 0; i < lane->n_events; i++)
        {
          const SlEvent *e = &lane->events[i];
          if (e->end - e->start > longest)
            continue;
          *lo = any ? MIN (*lo, e->start) : e->start;
          *hi = any ? MAX (*hi, e->end) : e->end;
          any = TRUE;
        }
    }
  return any;
}

gboolean
sl_trace_get_work_range (SlTrace *trace,
                         SlTime  *start,
                         SlTime  *end)
{
  SlTime t0, t1, lo = 0, hi = 0;

  g_return_val_if_fail (trace != NULL, FALSE);
  t0 = sl_trace_get_start (trace);
  t1 = sl_trace_get_end (trace);
  *start = t0;
  *end = t1;
  if (t1 <= t0)
    return FALSE;
  if (!hull (trace, TRUE, G_MAXINT64, &lo, &hi) && !hull (trace, FALSE, (t1 - t0) / 2, &lo, &hi))
    return FALSE;
  SlTime pad = (SlTime) ((double) MAX (hi - lo, 1) * MARGIN) + 1;
  lo = MAX (lo - pad, t0);
  hi = MIN (hi + pad, t1);
  if (hi <= lo || (double) (hi - lo) >= MOST * (double) (t1 - t0))
    return FALSE;
  *start = lo;
  *end = hi;
  return TRUE;
}
