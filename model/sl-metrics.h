/* sl-metrics.h: nsys's GPU metrics (nsys --gpu-metrics-devices: GPU_METRICS with the names of
 * TARGET_INFO_GPU_METRICS) as counter series: per GPU and metric, samples sorted by time.
 *
 * A sample's value holds from its time until the next sample of its series; the last one holds
 * for one sampling period (the median gap of its series).  Sizes: nsys samples 10 kHz by default,
 * ~20 metrics per GPU, so 10^6 … 10^7 samples in a trace, 10^1 … 10^3 series.  The samples live
 * in two flat arrays (times, values) of the trace, series after series, each in time order: 16
 * bytes a sample, no pointer per sample.  Range queries find their first sample by halving and
 * read the samples in the range: O(log n + samples in range). */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

/* One series: a metric of a GPU.  No padding (the model cache writes it as it is). */
typedef struct
{
  gint32  gpu;        /* index into the GPU table */
  guint32 name;       /* string id: nsys's metric name with its unit, "SMs Active [Throughput
                       * %]"; "Metric <id>" when TARGET_INFO_GPU_METRICS names none */
  gint64  metric_id;  /* GPU_METRICS.metricId */
  guint64 first;      /* its samples: [first, first + count) of the trace's sample arrays */
  guint64 count;      /* at least 1 */
  SlTime  period;     /* the median gap between its samples, at least 1 ns: how long the last
                       * sample holds */
} SlMetricSeries;

G_STATIC_ASSERT (sizeof (SlMetricSeries) == 40);

/* Aggregates over a range: time-weighted mean, extremes and count of the samples in effect for
 * some of it. */
typedef struct
{
  double  mean;       /* Σ value × time in effect within the range / `covered` */
  double  min;
  double  max;
  guint64 n;          /* samples in effect for a positive time within the range */
  SlTime  covered;    /* ns of the range that some sample covers */
  double  integral;   /* Σ value × ns in effect within the range (exact while below 2^53) */
} SlMetricStats;

/* Series in order: by GPU (index), then by metricId. */
guint                 sl_metrics_get_n_series    (SlTrace *trace);
const SlMetricSeries *sl_metrics_get_series      (SlTrace *trace,
                                                  guint    i);
/* The metric's name (as stored: the unit in brackets is part of nsys's name). */
const char           *sl_metrics_get_name        (SlTrace *trace,
                                                  guint    i);
/* The series of GPU `gpu` (index) whose name is `name`, -1 when none. */
gint                  sl_metrics_find_series     (SlTrace    *trace,
                                                  gint        gpu,
                                                  const char *name);
/* The series' samples: `count` times (ns, ascending) and values. */
const SlTime         *sl_metrics_get_times       (SlTrace *trace,
                                                  guint    i);
const double         *sl_metrics_get_values      (SlTrace *trace,
                                                  guint    i);
/* All samples of the trace, every series. */
guint64               sl_metrics_get_n_samples   (SlTrace *trace);

/* The end of sample k of series i: the next sample's time, or the last one's plus the period. */
SlTime                sl_metrics_sample_end      (SlTrace *trace,
                                                  guint    i,
                                                  guint64  k);
/* Aggregates over [t0, t1) (G_MININT64, G_MAXINT64: the whole series).  FALSE, `out` zeroed, when
 * no sample is in effect for any of it. */
gboolean              sl_metrics_stats           (SlTrace       *trace,
                                                  guint          i,
                                                  SlTime         t0,
                                                  SlTime         t1,
                                                  SlMetricStats *out);
/* The value in effect at `t`: FALSE before the first sample or after the last one's period. */
gboolean              sl_metrics_value_at        (SlTrace *trace,
                                                  guint    i,
                                                  SlTime   t,
                                                  double  *value);
/* For drawing: [t0, t1) split into `n_columns` equal pixel columns; per column the largest
 * value in effect and the time-weighted mean, NAN where no sample covers it (`max` or `mean`
 * may be NULL).  O(columns × log n + samples in view). */
void                  sl_metrics_columns         (SlTrace *trace,
                                                  guint    i,
                                                  SlTime   t0,
                                                  SlTime   t1,
                                                  guint    n_columns,
                                                  double  *max,
                                                  double  *mean);

G_END_DECLS
