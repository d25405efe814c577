/* sl-comm.c: communication kernels, and the compute/communication overlap of a rank as Holistic
 * Trace Analysis defines it (get_comm_comp_overlap): the time both a collective and a compute
 * kernel ran on the rank's GPUs, as a share of the time a collective ran.
 *
 * A rank has 10^3 … 10^6 kernels; both unions are built by sorting them once (16 bytes a
 * kernel), then intersected in one merge pass. */
#include "sl-comm.h"

#include <math.h>
#include <string.h>

#include "sl-lane.h"
#include "sl-trace-private.h"

gboolean
sl_name_is_comm (const char *name)
{
  g_return_val_if_fail (name != NULL, FALSE);
  return strstr (name, "nccl") != NULL || strstr (name, "NCCL") != NULL
         || strstr (name, "c10d") != NULL || strstr (name, "gloo") != NULL;
}

typedef struct
{
  SlTime start, end;
} Span;

static gint
span_cmp (gconstpointer a,
          gconstpointer b)
{
  const Span *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->end > y->end) - (x->end < y->end);
}

/* Sorts `spans` and merges them in place into their union: sorted, disjoint.  Returns its
 * length in ns. */
static SlTime
merge_spans (GArray *spans)
{
  Span *s = (Span *) (void *) spans->data;
  guint n = 0;
  SlTime busy = 0;

  g_array_sort (spans, span_cmp);
  for (guint i = 0; i < spans->len; i++)
    {
      if (n > 0 && s[i].start <= s[n - 1].end)
        {
          s[n - 1].end = MAX (s[n - 1].end, s[i].end);
          continue;
        }
      s[n++] = s[i];
    }
  g_array_set_size (spans, n);
  for (guint i = 0; i < n; i++)
    busy += s[i].end - s[i].start;
  return busy;
}

/* The length of the intersection of two unions (sorted, disjoint). */
static SlTime
intersect_spans (const GArray *a,
                 const GArray *b)
{
  const Span *x = (const Span *) (const void *) a->data, *y = (const Span *) (const void *) b->data;
  guint i = 0, j = 0;
  SlTime both = 0;

  while (i < a->len && j < b->len)
    {
      SlTime lo = MAX (x[i].start, y[j].start), hi = MIN (x[i].end, y[j].end);
      if (hi > lo)
        both += hi - lo;
      if (x[i].end < y[j].end)
        i++;
      else
        j++;
    }
  return both;
}

void
sl_trace_comm_times (SlTrace     *trace,
                     gint         source,
                     SlTime       t0,
                     SlTime       t1,
                     SlCommTimes *out)
{
  g_autoptr (GArray) comm = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr (GArray) compute = g_array_new (FALSE, FALSE, sizeof (Span));
  /* whether each string id names a collective: one look at each name, not at each kernel */
  g_autoptr (GArray) is_comm = g_array_new (FALSE, TRUE, sizeof (gint8));

  g_return_if_fail (trace != NULL && out != NULL);
  memset (out, 0, sizeof *out);
  g_array_set_size (is_comm, sl_trace_get_n_strs (trace));
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind != SL_LANE_KERNELS || (source >= 0 && lane->source != (guint32) source))
        continue;
      gsize first = t0 == G_MININT64 ? 0 : sl_lane_lower_bound (lane, t0);
      gsize end = t1 == G_MAXINT64 ? lane->n_events : sl_lane_lower_bound (lane, t1);
      for (gsize e = first; e < end; e++)
        {
          const SlEvent *ev = &lane->events[e];
          Span s = { ev->start, ev->end };
          gint8 *known = ev->name < is_comm->len ? &g_array_index (is_comm, gint8, ev->name) : NULL;
          gboolean c;
          if (known != NULL && *known != 0)
            c = *known > 0;
          else
            {
              c = sl_name_is_comm (sl_trace_str (trace, ev->name));
              if (known != NULL)
                *known = c ? 1 : -1;
            }
          out->kernel_time = _sl_time_add (out->kernel_time, ev->end - ev->start);
          if (c)
            {
              out->comm_time = _sl_time_add (out->comm_time, ev->end - ev->start);
              out->n_comm++;
              g_array_append_val (comm, s);
            }
          else
            {
              out->compute_time = _sl_time_add (out->compute_time, ev->end - ev->start);
              g_array_append_val (compute, s);
            }
        }
    }
  out->comm_busy = merge_spans (comm);
  merge_spans (compute);
  out->overlap = intersect_spans (comm, compute);
}

double
sl_comm_overlap_pct (const SlCommTimes *times)
{
  g_return_val_if_fail (times != NULL, NAN);
  return times->comm_busy > 0 ? 100.0 * (double) times->overlap / (double) times->comm_busy : NAN;
}
