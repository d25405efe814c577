/* sl-detail-metrics.c: the detail pane's GPU metrics of a kernel (nsys --gpu-metrics-devices,
 * model/sl-metrics.c): achieved occupancy beside the theoretical one, and each metric of the
 * kernel's GPU averaged over its run, weighted by time.  ~20 metrics a GPU; a kernel's run holds
 * a few to 10^4 samples of each (10 kHz), read by range queries when it is selected. */
#include <math.h>

#include "sl-detail-pane-private.h"
#include "sl-format.h"
#include "sl-metrics.h"

/* Whether GPU `gpu` (index) has any metric series: no row is added for a GPU without. */
static gboolean
gpu_has_metrics (SlTrace *trace,
                 gint     gpu)
{
  for (guint i = 0; i < sl_metrics_get_n_series (trace); i++)
    if (sl_metrics_get_series (trace, i)->gpu == gpu)
      return TRUE;
  return FALSE;
}

/* " (over 73 % of the kernel)" when the samples cover only part of it, "" otherwise. */
static char *
coverage_text (SlTime covered,
               SlTime duration)
{
  if (duration <= 0 || covered >= duration)
    return g_strdup ("");
  return g_strdup_printf (" (over %.0f %% of the kernel)",
                          100.0 * (double) covered / (double) duration);
}

static char *
achieved_text (const SlAchievedOccupancy *a,
               SlTime                     duration,
               const SlOccupancy         *theoretical)
{
  g_autofree char *cover = coverage_text (a->covered, duration);
  g_autofree char *of = NULL;

  /* the metrics are the GPU's: kernels running beside this one add their warps */
  if (theoretical == NULL || theoretical->occupancy <= 0)
    of = g_strdup ("");
  else if (a->achieved > theoretical->occupancy * 1.05)
    of = g_strdup_printf ("; above its theoretical %.1f %%: warps of kernels running beside it "
                          "count too", theoretical->occupancy * 100);
  else
    of = g_strdup_printf (", %.0f %% of its theoretical",
                          100.0 * a->achieved / theoretical->occupancy);
  if (a->by_unallocated)
    return g_strdup_printf ("%.1f %%%s (Compute Warps in Flight %.1f %% ÷ (it + Unallocated "
                            "Warps in Active SMs %.1f %%))%s", a->achieved * 100, of,
                            a->warps * 100, a->unallocated * 100, cover);
  return g_strdup_printf ("%.1f %% while SMs are active (%.1f %% of the time)%s (Compute Warps "
                          "in Flight %.1f %% ÷ SMs Active %.1f %%)%s", a->achieved * 100,
                          a->sms_active * 100, of, a->warps * 100, a->sms_active * 100, cover);
}

void
_sl_detail_metrics_occupancy (SlDetailPane      *self,
                              SlTrace           *trace,
                              const SlLane      *lane,
                              const SlEvent     *ev,
                              const SlOccupancy *theoretical)
{
  SlAchievedOccupancy a;
  SlOccupancySeries os;

  if (!gpu_has_metrics (trace, lane->gpu))
    return;
  sl_metrics_occupancy_series (trace, lane->gpu, &os);
  if (os.warps < 0 || (os.sms_active < 0 && os.unallocated < 0))
    _sl_detail_pane_row (self, "Achieved occupancy",
                         "unknown: the GPU's metrics have no Compute Warps in Flight, or neither "
                         "SMs Active nor Unallocated Warps in Active SMs");
  else if (!sl_metrics_achieved_occupancy (trace, lane->gpu, ev->start, ev->end, &a))
    _sl_detail_pane_row (self, "Achieved occupancy",
                         "unknown: no sample of the GPU's metrics with active SMs covers the "
                         "kernel");
  else
    {
      g_autofree char *text = achieved_text (&a, ev->end - ev->start, theoretical);
      _sl_detail_pane_row (self, "Achieved occupancy", text);
    }
}

static char *
value_text (const SlMetricStats *st,
            SlTime               duration)
{
  g_autofree char *cover = coverage_text (st->covered, duration);
  return g_strdup_printf ("%.1f%s", st->mean, cover);
}

void
_sl_detail_metrics_show (SlDetailPane  *self,
                         SlTrace       *trace,
                         const SlLane  *lane,
                         const SlEvent *ev)
{
  SlTime duration = ev->end - ev->start;

  if (!gpu_has_metrics (trace, lane->gpu))
    return;
  g_autoptr (GArray) means = sl_metrics_means (trace, lane->gpu, ev->start, ev->end);
  _sl_detail_pane_heading (self, "GPU metrics");
  if (means->len == 0)
    {
      _sl_detail_pane_row (self, "Samples", "none during the kernel");
      return;
    }
  {
    const SlMetricMean *first = &g_array_index (means, SlMetricMean, 0);
    SlTime period = sl_metrics_get_series (trace, first->series)->period;
    g_autofree char *every = sl_format_duration (period);
    /* a sample is an average over its period: one longer than the kernel mixes in what ran, or
     * nothing, around it (a 10 µs kernel in a 100 µs sample at 10 kHz) */
    g_autofree char *text = g_strdup_printf (
      "%" G_GUINT64_FORMAT ", one every %s%s; the GPU's, with whatever ran beside the kernel",
      first->stats.n, every,
      (double) duration < 2.0 * (double) period
        ? ": averages over periods longer than the kernel, what ran around it included" : "");
    _sl_detail_pane_row (self, "Samples", text);
  }
  for (guint k = 0; k < means->len; k++)
    {
      const SlMetricMean *m = &g_array_index (means, SlMetricMean, k);
      g_autofree char *text = value_text (&m->stats, duration);
      _sl_detail_pane_row (self, sl_metrics_get_name (trace, m->series), text);
    }
}
