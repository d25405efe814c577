/* sl-stats-metrics.c: Sightline's GPU metrics reports, from nsys's GPU_METRICS (sl-metrics.h).
 *
 * nsys has no report of these (its gpu_metric_util_map recipe pivots the same rows into a
 * heat map), so they are defined here and in sightline-stats(1):
 *   gpu_metrics_sum: per GPU and metric, the time-weighted mean, the extremes and the count of
 *     the samples in effect over the trace or the range (a sample holds until the next one of its
 *     series, the last one for one sampling period);
 *   gpu_metrics_kern_sum: per kernel name and metric, the metric averaged over the kernels'
 *     [start, end) on their own GPU, weighted by time, for the kernels that start in the range.
 * Sizes: 10^1 … 10^3 series; gpu_metrics_kern_sum looks up each kernel in each series of its GPU
 * (kernels × ~20 × log samples: 10^6 kernels take about a second).
 */
#include "sl-stats-private.h"

#include <math.h>
#include <string.h>

#include "sl-metrics.h"

const _SlColumn _sl_gpu_metrics_sum_columns[6] = {
  { "GPU", SL_UNIT_NONE }, { "Metric", SL_UNIT_NONE }, { "Avg", SL_UNIT_NONE },
  { "Max", SL_UNIT_NONE }, { "Min", SL_UNIT_NONE }, { "Samples", SL_UNIT_NONE },
};

const _SlColumn _sl_gpu_metrics_kern_sum_columns[6] = {
  { "Metric", SL_UNIT_NONE }, { "Avg", SL_UNIT_NONE }, { "Max", SL_UNIT_NONE },
  { "Min", SL_UNIT_NONE }, { "Instances", SL_UNIT_NONE }, { "Name", SL_UNIT_NONE },
};

/* Whether series `i` belongs to source `source` (-1: any). */
static gboolean
series_in (SlTrace *trace,
           guint    i,
           gint     source)
{
  const SlMetricSeries *s = sl_metrics_get_series (trace, i);
  return source < 0 || sl_trace_get_gpu (trace, s->gpu)->source == (guint32) source;
}

static gboolean
has_metrics (SlTrace *trace,
             gint     source,
             GError **error)
{
  for (guint i = 0; i < sl_metrics_get_n_series (trace); i++)
    if (series_in (trace, i, source))
      return TRUE;
  return _sl_stats_no_data (trace, error, "GPU metrics data (nsys --gpu-metrics-devices)");
}

/* nsys's values are integers: shown as such where they are */
static void
add_value (SlReport *r,
           double    v)
{
  if (v == floor (v) && fabs (v) < 9.0e15)
    _sl_report_add_int (r, (gint64) v);
  else
    _sl_report_add_double (r, v);
}

SlReport *
_sl_report_compute_gpu_metrics_sum (SlTrace             *trace,
                                    const _SlReportInfo *info,
                                    SlTime               t0,
                                    SlTime               t1,
                                    gint                 source,
                                    GError             **error)
{
  if (!has_metrics (trace, source, error))
    return NULL;

  SlReport *r = _sl_report_new (trace, info);
  for (guint i = 0; i < sl_metrics_get_n_series (trace); i++)
    {
      SlMetricStats st;
      if (!series_in (trace, i, source) || !sl_metrics_stats (trace, i, t0, t1, &st))
        continue;
      const SlMetricSeries *s = sl_metrics_get_series (trace, i);
      _sl_report_add_int (r, sl_trace_get_gpu (trace, s->gpu)->device_id);
      _sl_report_add_text (r, sl_metrics_get_name (trace, i));
      _sl_report_add_double (r, sl_stats_round (st.mean, 1));
      add_value (r, st.max);
      add_value (r, st.min);
      _sl_report_add_int (r, (gint64) st.n);
    }
  return r;
}

/* One row of gpu_metrics_kern_sum: a kernel name and a metric name. */
typedef struct
{
  guint32 kernel;     /* string ids */
  guint32 metric;
  gint64  metric_id;  /* the least of the metric's series: the rows' order within a kernel */
  gint64  total;      /* the kernel name's time (its instances in the range), for the order */
  double  integral;
  SlTime  covered;
  double  min;
  double  max;
  gint64  instances;
} KernRow;

/* By the kernel name's total time (descending), the name, then the metric by id and name. */
static gint
kern_row_order (gconstpointer a,
                gconstpointer b,
                gpointer      data)
{
  const KernRow *x = *(KernRow *const *) a, *y = *(KernRow *const *) b;
  SlTrace *trace = data;

  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  if (x->kernel != y->kernel)
    return strcmp (sl_trace_str (trace, x->kernel), sl_trace_str (trace, y->kernel));
  if (x->metric_id != y->metric_id)
    return x->metric_id < y->metric_id ? -1 : 1;
  return strcmp (sl_trace_str (trace, x->metric), sl_trace_str (trace, y->metric));
}

SlReport *
_sl_report_compute_gpu_metrics_kern_sum (SlTrace             *trace,
                                         const _SlReportInfo *info,
                                         SlTime               t0,
                                         SlTime               t1,
                                         gint                 source,
                                         GError             **error)
{
  if (!has_metrics (trace, source, error))
    return NULL;
  if (!_sl_stats_trace_has (trace, SL_LANE_KERNELS, source))
    return _sl_stats_no_data (trace, error, "CUDA kernel data"), NULL;

  /* each GPU's series */
  guint n_gpus = sl_trace_get_n_gpus (trace), n_series = sl_metrics_get_n_series (trace);
  g_autofree guint *gpu_first = g_new0 (guint, n_gpus + 1);
  for (guint i = 0; i < n_series; i++)
    gpu_first[sl_metrics_get_series (trace, i)->gpu + 1]++;
  for (guint g = 0; g < n_gpus; g++)
    gpu_first[g + 1] += gpu_first[g];   /* series are by GPU: [gpu_first[g], gpu_first[g + 1]) */

  /* (kernel name, metric name) -> KernRow; kernel name -> its total time */
  g_autoptr (GHashTable) rows = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr (GHashTable) totals = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind != SL_LANE_KERNELS || !_sl_stats_lane_in (lane, source) || lane->gpu < 0
          || (guint) lane->gpu >= n_gpus)
        continue;
      gsize first, end;
      _sl_stats_lane_range (lane, t0, t1, &first, &end);
      for (gsize k = first; k < end; k++)
        {
          const SlEvent *ev = &lane->events[k];
          gint64 *total = g_hash_table_lookup (totals, GUINT_TO_POINTER (ev->name));
          if (total == NULL)
            {
              total = g_new0 (gint64, 1);
              g_hash_table_insert (totals, GUINT_TO_POINTER (ev->name), total);
            }
          *total = _sl_time_add (*total, ev->end - ev->start);
          for (guint i = gpu_first[lane->gpu]; i < gpu_first[lane->gpu + 1]; i++)
            {
              SlMetricStats st;
              if (!sl_metrics_stats (trace, i, ev->start, ev->end, &st))
                continue;
              const SlMetricSeries *s = sl_metrics_get_series (trace, i);
              gint64 key = ((gint64) ev->name << 32) | s->name;
              KernRow *row = g_hash_table_lookup (rows, &key);
              if (row == NULL)
                {
                  row = g_new0 (KernRow, 1);
                  row->kernel = ev->name;
                  row->metric = s->name;
                  row->metric_id = s->metric_id;
                  row->min = st.min;
                  row->max = st.max;
                  g_hash_table_insert (rows, g_memdup2 (&key, sizeof key), row);
                }
              row->metric_id = MIN (row->metric_id, s->metric_id);
              row->integral += st.integral;
              row->covered = _sl_time_add (row->covered, st.covered);
              row->min = MIN (row->min, st.min);
              row->max = MAX (row->max, st.max);
              row->instances++;
            }
        }
    }

  g_autoptr (GPtrArray) order = g_ptr_array_sized_new (g_hash_table_size (rows));
  GHashTableIter iter;
  gpointer value;
  g_hash_table_iter_init (&iter, rows);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      KernRow *row = value;
      row->total = *(const gint64 *) g_hash_table_lookup (totals, GUINT_TO_POINTER (row->kernel));
      g_ptr_array_add (order, row);
    }
  g_ptr_array_sort_with_data (order, kern_row_order, trace);
  SlReport *r = _sl_report_new (trace, info);
  for (guint i = 0; i < order->len; i++)
    {
      const KernRow *row = g_ptr_array_index (order, i);
      _sl_report_add_text (r, sl_trace_str (trace, row->metric));
      _sl_report_add_double (r, sl_stats_round (row->integral / (double) row->covered, 1));
      add_value (r, row->max);
      add_value (r, row->min);
      _sl_report_add_int (r, row->instances);
      /* the name last, as nsys's summaries have it: kernel names run to hundreds of characters */
      _sl_report_add_text (r, sl_trace_str (trace, row->kernel));
    }
  return r;
}
