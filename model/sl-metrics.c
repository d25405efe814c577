/* sl-metrics.c: queries over the GPU metric series that sl-reader-metrics.c reads (sl-metrics.h). */
#include "sl-metrics.h"

#include <math.h>
#include <string.h>

#include "sl-trace-private.h"

static inline const SlMetricSeries *
series_at (SlTrace *trace,
           guint    i)
{
  return &g_array_index (trace->metric_series, SlMetricSeries, i);
}

guint
sl_metrics_get_n_series (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return trace->metric_series->len;
}

const SlMetricSeries *
sl_metrics_get_series (SlTrace *trace,
                       guint    i)
{
  g_return_val_if_fail (trace != NULL && i < trace->metric_series->len, NULL);
  return series_at (trace, i);
}

const char *
sl_metrics_get_name (SlTrace *trace,
                     guint    i)
{
  g_return_val_if_fail (trace != NULL && i < trace->metric_series->len, NULL);
  return sl_trace_str (trace, series_at (trace, i)->name);
}

gint
sl_metrics_find_series (SlTrace    *trace,
                        gint        gpu,
                        const char *name)
{
  g_return_val_if_fail (trace != NULL && name != NULL, -1);
  for (guint i = 0; i < trace->metric_series->len; i++)
    if (series_at (trace, i)->gpu == gpu
        && strcmp (sl_trace_str (trace, series_at (trace, i)->name), name) == 0)
      return (gint) i;
  return -1;
}

const SlTime *
sl_metrics_get_times (SlTrace *trace,
                      guint    i)
{
  g_return_val_if_fail (trace != NULL && i < trace->metric_series->len, NULL);
  return &g_array_index (trace->metric_times, SlTime, series_at (trace, i)->first);
}

const double *
sl_metrics_get_values (SlTrace *trace,
                       guint    i)
{
  g_return_val_if_fail (trace != NULL && i < trace->metric_series->len, NULL);
  return &g_array_index (trace->metric_values, double, series_at (trace, i)->first);
}

guint64
sl_metrics_get_n_samples (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return trace->metric_times->len;
}

static inline SlTime
sample_end (const SlMetricSeries *s,
            const SlTime         *t,
            guint64               k)
{
  return k + 1 < s->count ? t[k + 1] : _sl_time_add (t[k], s->period);
}

SlTime
sl_metrics_sample_end (SlTrace *trace,
                       guint    i,
                       guint64  k)
{
  g_return_val_if_fail (trace != NULL && i < trace->metric_series->len, 0);
  const SlMetricSeries *s = series_at (trace, i);
  g_return_val_if_fail (k < s->count, 0);
  return sample_end (s, sl_metrics_get_times (trace, i), k);
}

/* The sample in effect at `t`: the last one at or before it, 0 when all are after it. */
static guint64
sample_at (const SlTime *t,
           guint64       n,
           SlTime        at)
{
  guint64 lo = 0, hi = n;   /* the first sample after `at` is in [lo, hi] */

  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (t[mid] <= at)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo > 0 ? lo - 1 : 0;
}

/* Aggregates over [t0, t1) of one series, from the sample in effect at t0 to the last one that
 * starts before t1. */
static gboolean
stats_between (const SlMetricSeries *s,
               const SlTime         *t,
               const double         *v,
               SlTime                t0,
               SlTime                t1,
               SlMetricStats        *out)
{
  memset (out, 0, sizeof *out);
  for (guint64 k = sample_at (t, s->count, t0); k < s->count && t[k] < t1; k++)
    {
      SlTime a = MAX (t[k], t0), b = MIN (sample_end (s, t, k), t1);
      if (b <= a)
        continue;
      if (out->n == 0 || v[k] < out->min)
        out->min = v[k];
      if (out->n == 0 || v[k] > out->max)
        out->max = v[k];
      /* a damaged file's times reach ±2^61 and its period 2^62: saturate, never wrap */
      SlTime d = (SlTime) MIN ((guint64) b - (guint64) a, (guint64) G_MAXINT64);
      out->n++;
      out->covered = _sl_time_add (out->covered, d);
      out->integral += v[k] * (double) d;
    }
  if (out->n == 0)
    return FALSE;
  out->mean = out->integral / (double) out->covered;
  return TRUE;
}

gboolean
sl_metrics_stats (SlTrace       *trace,
                  guint          i,
                  SlTime         t0,
                  SlTime         t1,
                  SlMetricStats *out)
{
  g_return_val_if_fail (trace != NULL && i < trace->metric_series->len && out != NULL, FALSE);
  return stats_between (series_at (trace, i), sl_metrics_get_times (trace, i),
                        sl_metrics_get_values (trace, i), t0, t1, out);
}

gboolean
sl_metrics_value_at (SlTrace *trace,
                     guint    i,
                     SlTime   t,
                     double  *value)
{
  g_return_val_if_fail (trace != NULL && i < trace->metric_series->len, FALSE);
  const SlMetricSeries *s = series_at (trace, i);
  const SlTime *times = sl_metrics_get_times (trace, i);
  guint64 k = sample_at (times, s->count, t);

  if (t < times[k] || t >= sample_end (s, times, k))
    return FALSE;
  if (value != NULL)
    *value = sl_metrics_get_values (trace, i)[k];
  return TRUE;
}

void
sl_metrics_columns (SlTrace *trace,
                    guint    i,
                    SlTime   t0,
                    SlTime   t1,
                    guint    n_columns,
                    double  *max,
                    double  *mean)
{
  g_return_if_fail (trace != NULL && i < trace->metric_series->len && t0 < t1);
  const SlMetricSeries *s = series_at (trace, i);
  const SlTime *t = sl_metrics_get_times (trace, i);
  const double *v = sl_metrics_get_values (trace, i);
  __int128 span = (__int128) t1 - t0;

  for (guint c = 0; c < n_columns; c++)
    {
      SlTime a = (SlTime) (t0 + span * c / n_columns);
      SlTime b = (SlTime) (t0 + span * (c + 1) / n_columns);
      SlMetricStats st;
      gboolean any = b > a && stats_between (s, t, v, a, b, &st);

      if (max != NULL)
        max[c] = any ? st.max : NAN;
      if (mean != NULL)
        mean[c] = any ? st.mean : NAN;
    }
}

void
sl_metric_stats_merge (SlMetricStats       *sum,
                       const SlMetricStats *x)
{
  g_return_if_fail (sum != NULL && x != NULL);
  if (x->n == 0)
    return;
  if (sum->n == 0 || x->min < sum->min)
    sum->min = x->min;
  if (sum->n == 0 || x->max > sum->max)
    sum->max = x->max;
  sum->n += x->n;
  sum->covered = _sl_time_add (sum->covered, x->covered);
  sum->integral += x->integral;
  sum->mean = sum->covered > 0 ? sum->integral / (double) sum->covered : 0;
}

GArray *
sl_metrics_means (SlTrace *trace,
                  gint     gpu,
                  SlTime   t0,
                  SlTime   t1)
{
  g_return_val_if_fail (trace != NULL, NULL);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (SlMetricMean));

  /* ~20 series a GPU, 10^1 … 10^3 in all: a walk, not a search */
  for (guint i = 0; i < trace->metric_series->len; i++)
    {
      SlMetricMean m = { .series = i };
      if (series_at (trace, i)->gpu == gpu && t0 < t1
          && stats_between (series_at (trace, i), sl_metrics_get_times (trace, i),
                            sl_metrics_get_values (trace, i), t0, t1, &m.stats))
        g_array_append_val (out, m);
    }
  return out;
}

void
sl_metrics_occupancy_series (SlTrace           *trace,
                             gint               gpu,
                             SlOccupancySeries *out)
{
  g_return_if_fail (trace != NULL && out != NULL);
  out->warps = sl_metrics_find_series (trace, gpu, SL_METRIC_WARPS_IN_FLIGHT);
  out->sms_active = sl_metrics_find_series (trace, gpu, SL_METRIC_SMS_ACTIVE);
  out->unallocated = sl_metrics_find_series (trace, gpu, SL_METRIC_UNALLOCATED);
}

gboolean
sl_metrics_occupancy_from (const SlMetricStats *warps,
                           const SlMetricStats *sms_active,
                           const SlMetricStats *unallocated,
                           SlAchievedOccupancy *out)
{
  double slots;

  g_return_val_if_fail (out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  out->sms_active = NAN;
  out->unallocated = NAN;
  if (warps == NULL || warps->n == 0)
    return FALSE;
  /* the three are percentages of the same SM × cycle total (see sl-metrics.h) */
  out->warps = warps->mean / 100;
  out->covered = warps->covered;
  if (unallocated != NULL && unallocated->n > 0)
    out->unallocated = unallocated->mean / 100;
  if (sms_active != NULL && sms_active->n > 0)
    slots = out->sms_active = sms_active->mean / 100;
  else if (!isnan (out->unallocated))
    {
      slots = out->warps + out->unallocated;
      out->by_unallocated = TRUE;
    }
  else
    return FALSE;
  /* a damaged file's values may be negative or huge: no active time, or no figure */
  if (!isfinite (out->warps) || !isfinite (slots) || slots <= 0)
    return FALSE;
  out->achieved = CLAMP (out->warps / slots, 0.0, 1.0);
  return TRUE;
}

gboolean
sl_metrics_achieved_occupancy (SlTrace             *trace,
                               gint                 gpu,
                               SlTime               t0,
                               SlTime               t1,
                               SlAchievedOccupancy *out)
{
  SlOccupancySeries os;
  SlMetricStats st[3];
  const SlMetricStats *have[3] = { NULL, NULL, NULL };

  g_return_val_if_fail (trace != NULL && out != NULL, FALSE);
  sl_metrics_occupancy_series (trace, gpu, &os);
  gint idx[3] = { os.warps, os.sms_active, os.unallocated };
  for (guint k = 0; k < 3; k++)
    if (idx[k] >= 0 && sl_metrics_stats (trace, (guint) idx[k], t0, t1, &st[k]))
      have[k] = &st[k];
  return sl_metrics_occupancy_from (have[0], have[1], have[2], out);
}

gboolean
sl_metrics_inner_range (SlTrace *trace,
                        guint    i,
                        SlTime   t0,
                        SlTime   t1,
                        SlTime  *a,
                        SlTime  *b)
{
  g_return_val_if_fail (trace != NULL && i < trace->metric_series->len, FALSE);
  const SlMetricSeries *s = series_at (trace, i);
  const SlTime *t = sl_metrics_get_times (trace, i);
  guint64 lo = 0, hi = s->count, first, last;

  if (t1 <= t0)
    return FALSE;
  while (lo < hi)   /* the first sample at or after t0 */
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (t[mid] < t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  first = lo;
  if (first >= s->count || t[first] >= t1)
    return FALSE;
  /* the last that starts before t1, or the one before it when that one ends past t1: the
   * sample before ends where it starts, before t1 */
  last = sample_at (t, s->count, t1 - 1);
  if (sample_end (s, t, last) > t1)
    {
      if (last == first)
        return FALSE;
      last--;
    }
  if (last < first)
    return FALSE;
  *a = t[first];
  *b = sample_end (s, t, last);
  return *b > *a;
}

gboolean
_sl_metrics_check (SlTrace *trace)
{
  const SlTime *t = (const SlTime *) trace->metric_times->data;
  guint64 at = 0;

  if (trace->metric_times->len != trace->metric_values->len)
    return FALSE;
  for (guint i = 0; i < trace->metric_series->len; i++)
    {
      const SlMetricSeries *s = series_at (trace, i);
      if (s->gpu < 0 || (guint) s->gpu >= trace->gpus->len || s->name >= trace->strs->len
          || s->first != at || s->count == 0 || s->count > trace->metric_times->len - at
          || s->period < 1)
        return FALSE;
      for (guint64 k = s->first + 1; k < s->first + s->count; k++)
        if (t[k] < t[k - 1])
          return FALSE;
      at += s->count;
    }
  return at == trace->metric_times->len;
}
