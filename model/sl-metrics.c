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
