/* sl-analyze-metrics.c: the rule that reads nsys's GPU metrics (nsys --gpu-metrics-devices,
 * sl-metrics.h): low_sm_activity, kernels that keep a GPU busy for a real share of its busy time
 * while its SMs are mostly idle (SMs Active) or hold few warps (achieved occupancy), with the
 * theoretical occupancy and its limiter as evidence.
 *
 * A sample is the GPU's average over its period (100 µs at nsys's 10 kHz), so a kernel is judged
 * only on the samples that lie wholly inside its runs: a sample reaching past a run mixes in what
 * ran, or nothing, around it, and every kernel shorter than a period would look idle.  The metrics
 * are the GPU's: kernels running beside it count too, which is what the GPU did meanwhile.
 * Per kernel a few range queries, O(log samples) each: 10^6 kernels take about a second. */
#include "sl-analyze-private.h"

#include <math.h>
#include <string.h>

#include "sl-format.h"
#include "sl-kernel-kind.h"
#include "sl-metrics.h"
#include "sl-occupancy.h"
#include "sl-utilization.h"

/* A kernel name's runs on one GPU and its metrics over them. */
typedef struct
{
  guint32       name;
  gsize         count;
  SlTime        total;       /* its instances' time */
  SlTime        judged;      /* of it, what samples wholly inside its runs cover */
  SlTime        first, last; /* first start, last end */
  SlTime        longest;
  guint32       lane;        /* its longest instance */
  gsize         index;
  SlMetricStats active, warps, unallocated;
} NameRuns;

typedef struct
{
  SlAnalyzeCtx     *ctx;
  SlOccupancySeries os;
  gint              ref;      /* the series whose sample times judge a run (all of a GPU's
                               * are sampled together) */
  GArray           *names;    /* NameRuns, in the order their names first appear */
  guint32          *slot;     /* by name id: index in names, G_MAXUINT32 when none yet */
  guint             n_strs;
} Scan;

static void
add_stats (SlTrace       *trace,
           gint           series,
           SlTime         a,
           SlTime         b,
           SlMetricStats *sum)
{
  SlMetricStats st;

  if (series >= 0 && sl_metrics_stats (trace, (guint) series, a, b, &st))
    sl_metric_stats_merge (sum, &st);
}

static void
scan_kernel (const SlLane *lane,
             gsize         index,
             gpointer      data)
{
  Scan *scan = data;
  SlTrace *trace = scan->ctx->trace;
  const SlEvent *ev = &lane->events[index];
  SlTime a, b, d = ev->end - ev->start;
  NameRuns *nr;

  if (ev->name >= scan->n_strs || d <= 0)
    return;
  if (scan->slot[ev->name] == G_MAXUINT32)
    {
      NameRuns fresh = { .name = ev->name, .first = ev->start, .last = ev->end };
      scan->slot[ev->name] = scan->names->len;
      g_array_append_val (scan->names, fresh);
    }
  nr = &g_array_index (scan->names, NameRuns, scan->slot[ev->name]);
  nr->count++;
  nr->total = _sl_time_add (nr->total, d);
  nr->first = MIN (nr->first, ev->start);
  nr->last = MAX (nr->last, ev->end);
  if (d > nr->longest)
    {
      nr->longest = d;
      nr->lane = lane->index;
      nr->index = index;
    }
  if (!sl_metrics_inner_range (trace, (guint) scan->ref, ev->start, ev->end, &a, &b))
    return;
  nr->judged = _sl_time_add (nr->judged, b - a);
  add_stats (trace, scan->os.sms_active, a, b, &nr->active);
  add_stats (trace, scan->os.warps, a, b, &nr->warps);
  add_stats (trace, scan->os.unallocated, a, b, &nr->unallocated);
}

/* Cost other rules already gave the same kernel on the same GPU: tail_effect's idle SMs of last
 * waves and low_occupancy's waves saved are part of what idle SMs cost (they run before this
 * rule). */
static SlTime
cost_given (SlAnalyzeCtx *ctx,
            gint          device,
            guint32       name)
{
  SlTime given = 0;

  for (guint i = 0; i < ctx->findings->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (ctx->findings, i);
      if (f->gpu != device || f->events->len == 0
          || (strcmp (f->rule->name, "tail_effect") != 0
              && strcmp (f->rule->name, "low_occupancy") != 0))
        continue;
      const SlFindingEvent *fe = &g_array_index (f->events, SlFindingEvent, 0);
      const SlLane *lane = _sl_lane_or_null (ctx, (gint) fe->lane);
      if (lane != NULL && fe->index < lane->n_events && lane->events[fe->index].name == name)
        given = _sl_time_add (given, f->cost);
    }
  return given;
}

/* What to do, by what the metrics and the launch configuration say. */
static char *
advice_text (const SlGpu        *gpu,
             const SlKernelInfo *ki,
             const SlOccupancy  *occ,
             gboolean            low_sm,
             gboolean            low_occ)
{
  g_autoptr (GString) s = g_string_new (NULL);
  gint64 grid = ki != NULL ? sl_grid_blocks (ki->grid) : 0;
  gint sms = gpu->limits.sm_count;

  if (low_sm)
    {
      if (ki != NULL && sms > 0 && grid < sms)
        g_string_append_printf (s, "Its grid of %" G_GINT64_FORMAT " block%s gives work to at "
                                "most %" G_GINT64_FORMAT " of the GPU's %d SMs: launch more, "
                                "smaller blocks (split the work; split-K for a reduction), or "
                                "run independent work beside it on other streams. ", grid,
                                grid == 1 ? "" : "s", grid, sms);
      else
        g_string_append (s, "Its SMs idle for much of its run although its grid could cover "
                            "them: a last wave that fills few SMs, blocks of uneven length, or "
                            "a serial part in one block. Balance the work per block, size the "
                            "grid in whole waves, or run independent work beside it on other "
                            "streams. ");
    }
  if (low_occ && occ != NULL)
    {
      g_string_append_printf (s, "Few warps are resident on an active SM: its theoretical "
                              "occupancy is %.0f%%, limited by %s", occ->occupancy * 100,
                              sl_occupancy_limit_name (occ->limit));
      switch (occ->limit)
        {
        case SL_OCC_LIMIT_REGISTERS:
          g_string_append_printf (s, " (%u registers per thread: cap them with "
                                  "__launch_bounds__ or -maxrregcount)",
                                  ki->registers_per_thread);
          break;
        case SL_OCC_LIMIT_SHARED_MEMORY:
          g_string_append (s, " (use smaller tiles or less shared memory per block)");
          break;
        case SL_OCC_LIMIT_BLOCKS:
          g_string_append (s, " (use larger blocks, 128 threads or more)");
          break;
        case SL_OCC_LIMIT_WARPS:
        case SL_OCC_LIMIT_NONE:
        default:
          g_string_append (s, "; below it, each SM gets fewer blocks than it could hold (a "
                              "grid under one wave) or blocks end unevenly");
          break;
        }
      g_string_append (s, ". ");
    }
  else if (low_occ)
    g_string_append (s, "Few warps are resident on an active SM: give each SM more blocks, or "
                        "blocks of more warps. ");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static void
judge (SlAnalyzeCtx   *ctx,
       guint           g,
       const NameRuns *nr,
       SlTime          busy,
       guint          *n_library,
       guint          *n_unjudged)
{
  double max_sm = _sl_analyze_param (ctx, "sm_active");
  double max_occ = _sl_analyze_param (ctx, "occupancy");
  double min_share = _sl_analyze_param (ctx, "share");
  SlTime min_time = (SlTime) _sl_analyze_param (ctx, "time");
  const SlGpu *gpu = sl_trace_get_gpu (ctx->trace, g);
  const SlLane *lane = _sl_lane_or_null (ctx, (gint) nr->lane);
  const SlKernelInfo *ki = NULL;
  double share = (double) nr->total / (double) busy;
  double sm = nr->active.n > 0 ? nr->active.mean / 100 : NAN;
  SlAchievedOccupancy ao;
  gboolean has_occ, low_sm, low_occ, has_theory = FALSE;
  SlOccupancy occ;
  const char *name;

  if (share < min_share || nr->total < min_time || lane == NULL)
    return;
  if (nr->judged == 0)
    {
      (*n_unjudged)++;
      return;
    }
  ki = sl_trace_get_kernel_info (ctx->trace, lane->events[nr->index].aux);
  name = sl_trace_str (ctx->trace, ki != NULL ? ki->demangled_name : nr->name);
  /* a library's launch configuration is the library's: the advice could not be followed (and
   * NCCL's few blocks wait on the link by design) */
  if (sl_kernel_library (name) != SL_KERNEL_LIBRARY_NONE)
    {
      (*n_library)++;
      return;
    }
  has_occ = sl_metrics_occupancy_from (&nr->warps, &nr->active, &nr->unallocated, &ao);
  low_sm = !isnan (sm) && sm < max_sm;
  low_occ = has_occ && ao.achieved < max_occ;
  if (!low_sm && !low_occ)
    return;
  if (ki != NULL && gpu->limits.cc_major != 0)
    {
      gint64 threads = sl_block_threads (ki->block);
      has_theory = sl_occupancy_compute (&gpu->limits, (gint) MIN (threads, G_MAXINT),
                                         (gint) ki->registers_per_thread,
                                         (gint64) ki->static_shared + ki->dynamic_shared, &occ);
    }

  /* The estimate: SM time with no warp is idle; the same work spread over every SM would take
   * SMs Active's share of the time (an upper bound: it takes the work to divide, and memory or
   * the link not to be the limit), less what tail_effect and low_occupancy already claim of
   * this kernel.  Few warps on busy SMs is not priced: more warps hide latency only where the
   * kernel waits on memory or dependencies, which the metrics do not show. */
  double idle = low_sm ? (double) nr->total * (1.0 - MAX (sm, 0.0)) : 0;
  /* a damaged file's total saturates at 2^63 − 1, which a double rounds up past the range */
  SlTime estimate = idle < 0x1p63 ? MIN ((SlTime) idle, nr->total) : nr->total;
  SlTime given = low_sm ? cost_given (ctx, (gint) _sl_gpu_id (ctx, g), nr->name) : 0;
  SlTime cost = MAX (estimate - given, 0);
  SlFinding *f = _sl_finding_new (ctx, nr->first, nr->last, cost);
  g_autofree char *tot = sl_format_duration (nr->total);
  g_autofree char *what = NULL, *why = NULL, *advice = NULL, *theory = NULL;

  f->gpu = (gint) _sl_gpu_id (ctx, g);
  f->global_pid = ctx->gpus[g].global_pid;
  if (!isnan (sm))
    _sl_evidence_share (f, "sm_active", "SMs Active (over its runs)", sm);
  if (has_occ)
    {
      _sl_evidence_share (f, "achieved_occupancy", "Achieved occupancy", ao.achieved);
      _sl_evidence_share (f, "warps_in_flight", "Compute Warps in Flight", ao.warps);
    }
  if (has_theory)
    {
      _sl_evidence_share (f, "occupancy", "Theoretical occupancy", occ.occupancy);
      _sl_evidence (f, "limit", "Limited by", occ.limit, "%s",
                    sl_occupancy_limit_name (occ.limit));
      _sl_evidence (f, "blocks_per_sm", "Blocks per SM", occ.blocks_per_sm, "%d",
                    occ.blocks_per_sm);
      theory = g_strdup_printf ("theoretical %.0f%%, limited by %s", occ.occupancy * 100,
                                sl_occupancy_limit_name (occ.limit));
    }
  if (ki != NULL)
    _sl_evidence (f, "grid_blocks", "Grid", (double) sl_grid_blocks (ki->grid), "%u × %u × %u",
                  ki->grid[0], ki->grid[1], ki->grid[2]);
  if (gpu->limits.sm_count > 0)
    _sl_evidence (f, "sm_count", "SMs", gpu->limits.sm_count, "%d", gpu->limits.sm_count);
  _sl_evidence_share (f, "gpu_busy_share", "Share of the GPU's busy time", share);
  _sl_evidence_duration (f, "gpu_ns", "GPU time", nr->total);
  _sl_evidence_share (f, "judged_share", "Sampled wholly inside its runs",
                      (double) nr->judged / (double) nr->total);
  _sl_evidence (f, "count", "Instances", (double) nr->count, "%" G_GSIZE_FORMAT, nr->count);
  _sl_evidence_duration (f, "estimated_ns", "Estimated saving", estimate);
  if (given > 0)
    _sl_evidence_duration (f, "other_findings_ns", "Of it, other findings'", given);
  _sl_finding_add_event (ctx, f, nr->lane, nr->index);
  _sl_finding_add_gpu_lanes (ctx, f, g);

  if (low_sm && has_occ)
    what = g_strdup_printf ("SMs active %.0f%% of the time, achieved occupancy %.0f%%", sm * 100,
                            ao.achieved * 100);
  else if (low_sm)
    what = g_strdup_printf ("SMs active %.0f%% of the time", sm * 100);
  else if (!isnan (sm))
    what = g_strdup_printf ("achieved occupancy %.0f%% (SMs active %.0f%% of the time)",
                            ao.achieved * 100, sm * 100);
  else
    what = g_strdup_printf ("achieved occupancy %.0f%%", ao.achieved * 100);
  if (cost > 0)
    {
      g_autofree char *saved = sl_format_duration (cost);
      why = g_strdup_printf ("up to %s saved were its work spread over every SM", saved);
    }
  else if (low_sm)
    why = g_strdup ("no saving beyond what tail_effect and low_occupancy estimate");
  else
    why = g_strdup ("no saving estimated: more warps per SM help only a kernel that waits on "
                    "memory or dependencies, which GPU metrics do not show");
  name = sl_trace_str (ctx->trace, nr->name);
  f->summary = g_strdup_printf ("%s: %s over its runs (%s) in %.0f%% of GPU %u's busy time (%s); "
                                "%s", name, what, theory != NULL ? theory : "theoretical unknown",
                                share * 100, _sl_gpu_id (ctx, g), tot, why);
  advice = advice_text (gpu, ki, has_theory ? &occ : NULL, low_sm, low_occ);
  f->advice = g_strconcat (advice,
                           "Estimated saving: its time × (1 − SMs Active), less what tail_effect "
                           "and low_occupancy give the same kernel: an upper bound, reached where "
                           "its work divides over more SMs and memory is not the limit; none for "
                           "few warps on busy SMs.", NULL);
}

void
_sl_rule_low_sm_activity (SlAnalyzeCtx *ctx)
{
  guint n_strs = sl_trace_get_n_strs (ctx->trace), n_gpus = 0, n_library = 0, n_unjudged = 0;

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      Scan scan = { ctx, { -1, -1, -1 }, -1, NULL, NULL, n_strs };
      SlTime busy;

      sl_metrics_occupancy_series (ctx->trace, (gint) g, &scan.os);
      scan.ref = scan.os.sms_active >= 0 ? scan.os.sms_active : scan.os.warps;
      if (scan.ref < 0 || gi->kernels->len == 0)
        continue;
      /* over the span of its work in the window, where the finding's share is measured */
      SlTime w0 = MAX (ctx->t0, gi->first), w1 = MIN (ctx->t1, gi->last);
      busy = w1 > w0 ? sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_ANY, w0, w1) : 0;
      if (busy <= 0)
        continue;
      n_gpus++;
      scan.names = g_array_new (FALSE, FALSE, sizeof (NameRuns));
      scan.slot = g_new (guint32, MAX (n_strs, 1));
      memset (scan.slot, 0xff, sizeof (guint32) * MAX (n_strs, 1));
      _sl_analyze_foreach_kernel (ctx, g, scan_kernel, &scan);
      for (guint i = 0; i < scan.names->len; i++)
        judge (ctx, g, &g_array_index (scan.names, NameRuns, i), busy, &n_library, &n_unjudged);
      g_array_unref (scan.names);
      g_free (scan.slot);
    }
  if (n_gpus == 0)
    {
      _sl_analyze_note (ctx, "no GPU metrics with SMs Active or Compute Warps in Flight (nsys "
                             "--gpu-metrics-devices)");
      return;
    }
  _sl_analyze_note (ctx, "%u GPU%s with metrics", n_gpus, n_gpus == 1 ? "" : "s");
  if (n_library > 0)
    _sl_analyze_note (ctx, "%u library kernel name%s left out (their launch configuration is "
                      "the library's)", n_library, n_library == 1 ? "" : "s");
  if (n_unjudged > 0)
    _sl_analyze_note (ctx, "%u kernel name%s not judged: no sample lies wholly inside a run",
                      n_unjudged, n_unjudged == 1 ? "" : "s");
}
