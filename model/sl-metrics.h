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

/* Adds `x`, a range's aggregates, into `sum`: the aggregates over both ranges (disjoint ones: a
 * kernel name's instances on one GPU).  `sum` zeroed is the empty range. */
void                  sl_metric_stats_merge      (SlMetricStats       *sum,
                                                  const SlMetricStats *x);

/* One metric of a range (sl_metrics_means). */
typedef struct
{
  guint         series;
  SlMetricStats stats;
} SlMetricMean;

/* Each series of GPU `gpu` (index) that some sample covers for part of [t0, t1), with its
 * aggregates there, in series order (metricId): what the detail pane lists for a kernel.  A new
 * GArray of SlMetricMean, empty when the GPU has no metrics.  O(series × (log n + samples)). */
GArray               *sl_metrics_means           (SlTrace *trace,
                                                  gint     gpu,
                                                  SlTime   t0,
                                                  SlTime   t1);

/* nsys's metric names (with their units) that achieved occupancy is derived from. */
#define SL_METRIC_WARPS_IN_FLIGHT "Compute Warps in Flight [Throughput %]"
#define SL_METRIC_SMS_ACTIVE      "SMs Active [Throughput %]"
#define SL_METRIC_UNALLOCATED     "Unallocated Warps in Active SMs [Throughput %]"

/* A GPU's series of those three: -1 where it has none. */
typedef struct
{
  gint warps;
  gint sms_active;
  gint unallocated;
} SlOccupancySeries;

void                  sl_metrics_occupancy_series (SlTrace           *trace,
                                                   gint               gpu,
                                                   SlOccupancySeries *out);

/* Achieved occupancy as Nsight Compute defines it (sm__warps_active per active cycle ÷ the
 * maximum warps per SM), from nsys's GPU metrics, which are averages over every SM and cycle of
 * a sample period (NVIDIA Nsight Systems User Guide, "GPU Metrics"):
 *   SMs Active: cycles in which an SM has at least one warp in flight, ÷ all cycles;
 *   Compute Warps in Flight: compute warps resident on the SMs, ÷ the warps all SMs could hold
 *     in all cycles (the maximum warps per SM × SMs × cycles);
 *   Unallocated Warps in Active SMs: warp slots left unallocated on SMs while they are active,
 *     ÷ the same maximum (derived by nsys: active SMs' slots less the warps in flight).
 * Warps in flight counts SM cycles that have no warp at all as zero occupancy; per active cycle
 * it is warps in flight ÷ SMs Active (both ÷ the same SM × cycle total).  Without SMs Active,
 * an active SM's slots are its warps in flight plus its unallocated ones (exact for compute
 * work; graphics warps, not counted in flight, would be counted as unallocated).  The metrics
 * are the GPU's: other work running beside a kernel counts too. */
typedef struct
{
  double   achieved;        /* 0 … 1 (noise of a sample period above 1 is clipped) */
  double   warps;           /* Compute Warps in Flight, 0 … 1 */
  double   sms_active;      /* SMs Active, 0 … 1; NAN when the GPU has no such series */
  double   unallocated;     /* Unallocated Warps in Active SMs, 0 … 1; NAN when none */
  gboolean by_unallocated;  /* derived from unallocated warps (no SMs Active series) */
  SlTime   covered;         /* ns the warps' samples cover */
} SlAchievedOccupancy;

/* From the aggregates of the three series (`sms_active` or `unallocated` may be NULL: none)
 * over one range or merged ranges.  FALSE when warps in flight has no samples, or there is no
 * active SM time to divide by. */
gboolean              sl_metrics_occupancy_from  (const SlMetricStats *warps,
                                                  const SlMetricStats *sms_active,
                                                  const SlMetricStats *unallocated,
                                                  SlAchievedOccupancy *out);
/* Achieved occupancy on GPU `gpu` (index) over [t0, t1); FALSE as above, or when the GPU lacks
 * the series. */
gboolean              sl_metrics_achieved_occupancy (SlTrace             *trace,
                                                     gint                 gpu,
                                                     SlTime               t0,
                                                     SlTime               t1,
                                                     SlAchievedOccupancy *out);
/* The part of [t0, t1) covered by samples of series `i` that lie wholly inside it: from the
 * first sample starting at or after t0 to the end of the last one ending at or before t1.  A
 * sample is an average over its period; one that reaches past a kernel's run mixes in what ran
 * (or did not) outside it.  FALSE when no sample lies wholly inside. */
gboolean              sl_metrics_inner_range     (SlTrace *trace,
                                                  guint    i,
                                                  SlTime   t0,
                                                  SlTime   t1,
                                                  SlTime  *a,
                                                  SlTime  *b);

G_END_DECLS
