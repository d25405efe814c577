/* sl-analyze-bound.c: the rules cpu_bound and gpu_bound: windows of a GPU's span judged by how
 * busy the GPU is and what its launching thread does (launching, waiting for a loader, waiting
 * for the GPU), consecutive windows of one verdict reported as one stretch. */
#include "sl-analyze-private.h"

#include <string.h>

#include "sl-format.h"
#include "sl-utilization.h"

typedef enum
{
  VERDICT_NONE,
  VERDICT_LAUNCH,    /* cpu_bound: the launching thread is busy */
  VERDICT_LOADER,    /* cpu_bound: it waits, while other threads produce data */
  VERDICT_GPU,       /* gpu_bound */
} Verdict;

typedef struct
{
  SlTime  len, busy_gpu;      /* window, GPU busy time in it */
  SlTime  blocked_sync;       /* launching thread in blocking CUDA calls */
  SlTime  api_other;          /* in other CUDA calls */
  SlTime  osrt;               /* in OS runtime calls */
  SlTime  host_busy;          /* not blocked: launching or computing */
  SlTime  others;             /* other threads active while it is blocked in OS runtime calls */
  gint    other;              /* the busiest of them */
} WindowStats;

static void
window_stats (SlAnalyzeCtx *ctx,
              guint         gpu,
              SlTime        a,
              SlTime        b,
              WindowStats  *w)
{
  SlGpuInfo *gi = &ctx->gpus[gpu];
  const SlThreadLanes *tl = &ctx->tl[gi->launcher];
  SlTime by_class[SL_API_MEMSET_ASYNC + 1] = { 0 };
  SlTime len = b - a;

  memset (w, 0, sizeof *w);
  w->len = len;
  w->other = -1;
  w->busy_gpu = sl_trace_gpu_busy_time (ctx->trace, gpu, SL_UTIL_ANY, a, b);
  _sl_overlap_sum (ctx, _sl_lane_or_null (ctx, tl->api), a, b, NULL, by_class, NULL);
  for (guint c = 0; c <= SL_API_MEMSET_ASYNC; c++)
    {
      if (_sl_api_class_blocks (c))
        w->blocked_sync += by_class[c];
      else
        w->api_other += by_class[c];
    }
  w->osrt = _sl_overlap_sum (ctx, _sl_lane_or_null (ctx, tl->osrt), a, b, NULL, NULL, NULL);
  w->host_busy = MAX (len - w->blocked_sync - w->osrt, 0);
  if (tl->samples >= 0 && tl->sample_period > 0)
    {
      /* sampled: running is what the samples say, launching is what the API calls say */
      SlTime running = MIN ((SlTime) _sl_samples_in (_sl_lane_or_null (ctx, tl->samples), a, b)
                            * tl->sample_period, len);
      w->host_busy = MIN (w->host_busy, MAX (running, w->api_other));
    }
  /* the other threads' activity, and how much of it falls while the launching thread is
   * blocked in OS runtime calls: waiting for them */
  {
    g_autoptr (GArray) blocked = g_array_new (FALSE, FALSE, sizeof (SlSpan));
    g_autoptr (GArray) active = g_array_new (FALSE, FALSE, sizeof (SlSpan));
    SlTime best = 0;

    _sl_spans_add_overlap (_sl_lane_or_null (ctx, tl->osrt), a, b, blocked);
    _sl_spans_merge (blocked);
    for (guint k = 0; k < gi->threads->len; k++)
      {
        gint t = (gint) g_array_index (gi->threads, guint, k);
        const SlThreadLanes *o = &ctx->tl[t];
        guint before = active->len;
        SlTime act = 0;
        if (t == gi->launcher)
          continue;
        _sl_spans_add_overlap (_sl_lane_or_null (ctx, o->osrt), a, b, active);
        _sl_spans_add_overlap (_sl_lane_or_null (ctx, o->api), a, b, active);
        if (o->sample_period > 0)
          {
            const SlLane *sl = _sl_lane_or_null (ctx, o->samples);
            gsize i0 = sl_lane_lower_bound (sl, a), i1 = sl_lane_lower_bound (sl, b);
            for (gsize i = i0; i < i1; i++)
              {
                SlSpan sp = { MAX (sl->events[i].start - o->sample_period / 2, a),
                            MIN (sl->events[i].start + o->sample_period / 2, b) };
                g_array_append_val (active, sp);
              }
          }
        for (guint i = before; i < active->len; i++)
          {
            const SlSpan *sp = &g_array_index (active, SlSpan, i);
            act = _sl_time_add (act, sp->e - sp->s);
          }
        if (act > best)
          {
            best = act;
            w->other = t;
          }
      }
    _sl_spans_merge (active);
    w->others = _sl_spans_intersect (blocked, active);
  }
}

static Verdict
judge (const WindowStats *w,
       gboolean           cpu,
       double             threshold,
       double             share)
{
  double len = (double) MAX (w->len, 1);

  if (cpu)
    {
      if ((double) w->busy_gpu >= threshold * len)
        return VERDICT_NONE;
      if ((double) w->osrt >= share * len && (double) w->others >= share * len)
        return VERDICT_LOADER;
      if ((double) w->host_busy >= share * len)
        return VERDICT_LAUNCH;
      return VERDICT_NONE;
    }
  if ((double) w->busy_gpu >= threshold * len && (double) w->blocked_sync >= share * len)
    return VERDICT_GPU;
  return VERDICT_NONE;
}

static void
bound_finding (SlAnalyzeCtx      *ctx,
               guint              gpu,
               Verdict            v,
               SlTime             a,
               SlTime             b,
               const WindowStats *sum)
{
  SlGpuInfo *gi = &ctx->gpus[gpu];
  double len = (double) MAX (b - a, 1);
  g_autofree char *who = _sl_thread_label (ctx, gi->launcher);
  g_autofree char *d = sl_format_duration (b - a);
  g_autofree char *head = NULL;
  g_autoptr (GHashTable) by_name = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  const SlThreadLanes *tl = &ctx->tl[gi->launcher];
  SlTime top_t;
  guint32 top;
  SlFinding *f;

  f = _sl_finding_new (ctx, a, b, v == VERDICT_GPU ? sum->blocked_sync : (b - a) - sum->busy_gpu);
  f->gpu = (gint) _sl_gpu_id (ctx, gpu);
  f->thread = gi->launcher;
  f->global_pid = gi->global_pid;
  _sl_evidence_share (f, "gpu_busy_share", "GPU busy", (double) sum->busy_gpu / len);
  _sl_evidence_share (f, "host_busy_share", "Launching thread busy", (double) sum->host_busy / len);
  _sl_evidence_share (f, "host_sync_share", "Launching thread in sync calls",
                          (double) sum->blocked_sync / len);
  _sl_evidence_share (f, "host_osrt_share", "Launching thread in OS runtime calls",
                          (double) sum->osrt / len);
  _sl_evidence_duration (f, "duration_ns", "Stretch", b - a);
  _sl_finding_add_gpu_lanes (ctx, f, gpu);
  _sl_finding_add_thread_lanes (ctx, f, gi->launcher);

  /* the call the launching thread spends most time in: OS runtime when it waits for a loader */
  _sl_overlap_sum (ctx, _sl_lane_or_null (ctx, v == VERDICT_LOADER ? tl->osrt : tl->api), a, b,
                   by_name, NULL, NULL);
  top = _sl_top_name (by_name, &top_t);
  head = g_strdup_printf ("GPU %u busy %.0f%% for %s while %s", _sl_gpu_id (ctx, gpu), 100.0 * sum->busy_gpu / len,
                          d, who);
  switch (v)
    {
    case VERDICT_LOADER:
      {
        g_autofree char *other = _sl_thread_label (ctx, sum->other);
        _sl_evidence_share (f, "others_busy_share", other, (double) sum->others / len);
        _sl_finding_add_thread_lanes (ctx, f, sum->other);
        f->summary = g_strdup_printf ("%s waits in %s (%.0f%%) and %s works (%.0f%%): the data "
                                      "loader is the bottleneck", head,
                                      sl_trace_str (ctx->trace, top), 100.0 * top_t / len, other,
                                      100.0 * sum->others / len);
        f->advice = g_strdup ("The training loop waits for its input: the data loader cannot keep "
                              "up. Use more DataLoader workers (num_workers), pin_memory=True and "
                              "prefetching, decode on the GPU, or cache preprocessed data.");
        break;
      }
    case VERDICT_LAUNCH:
      f->summary = g_strdup_printf ("%s is busy %.0f%% (most in %s): the CPU cannot feed the GPU",
                                    head, 100.0 * sum->host_busy / len,
                                    top != SL_NO_STR ? sl_trace_str (ctx->trace, top)
                                                     : "its own code");
      f->advice = g_strdup ("The launching thread is busy and the GPU waits: CPU overhead between "
                            "kernels (Python, framework, launch calls). Fuse small kernels, use "
                            "CUDA Graphs or torch.compile, larger batches, and move CPU work out "
                            "of the loop.");
      break;
    case VERDICT_GPU:
      f->summary = g_strdup_printf ("%s waits for it %.0f%% of the time (%s): the GPU is the "
                                    "bottleneck", head, 100.0 * sum->blocked_sync / len,
                                    sl_trace_str (ctx->trace, top));
      f->advice = g_strdup ("The GPU is saturated and the host waits for it: speed up the "
                            "kernels that take the most time (see `sightline stats`, the "
                            "low_occupancy findings), use lower precision or tensor cores, or "
                            "overlap the host's waiting with useful work.");
      break;
    case VERDICT_NONE:
      break;
    }
}

static void
rule_bound (SlAnalyzeCtx *ctx,
            gboolean      cpu)
{
  SlTime window = MAX ((SlTime) _sl_analyze_param (ctx, "window"), 1 * SL_US);
  double threshold = _sl_analyze_param (ctx, "threshold");
  double share = _sl_analyze_param (ctx, cpu ? "busy" : "sync");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      SlTime span = gi->last - gi->first, w = window, run_start = 0;
      Verdict run = VERDICT_NONE;
      WindowStats sum = { 0 };
      guint n;

      if (span <= 0 || gi->launcher < 0)
        {
          if (span > 0)
            _sl_analyze_note (ctx, "GPU %u: no launching thread known",
                              _sl_gpu_id (ctx, g));
          continue;
        }
      /* at most 100 000 windows */
      if (span / w > 100000)
        w = span / 100000 + 1;
      n = (guint) ((span + w - 1) / w);
      for (guint i = 0; i <= n; i++)
        {
          SlTime a = gi->first + (SlTime) i * w, b = MIN (a + w, gi->last);
          WindowStats ws = { 0 };
          Verdict v = VERDICT_NONE;

          if (i < n && b > a)
            {
              window_stats (ctx, g, a, b, &ws);
              v = judge (&ws, cpu, threshold, share);
            }
          if (v != run && run != VERDICT_NONE)
            bound_finding (ctx, g, run, run_start, MIN (a, gi->last), &sum);
          if (v != run)
            {
              run = v;
              run_start = a;
              memset (&sum, 0, sizeof sum);
              sum.other = -1;
            }
          if (v != VERDICT_NONE)
            {
              sum.len = _sl_time_add (sum.len, ws.len);
              sum.busy_gpu = _sl_time_add (sum.busy_gpu, ws.busy_gpu);
              sum.blocked_sync = _sl_time_add (sum.blocked_sync, ws.blocked_sync);
              sum.osrt = _sl_time_add (sum.osrt, ws.osrt);
              sum.host_busy = _sl_time_add (sum.host_busy, ws.host_busy);
              if (ws.other >= 0 && (sum.other < 0 || ws.other == sum.other))
                {
                  sum.others = _sl_time_add (sum.others, ws.others);
                  sum.other = ws.other;
                }
            }
        }
      {
        g_autofree char *who = _sl_thread_label (ctx, gi->launcher), *wd = sl_format_duration (w);
        _sl_analyze_note (ctx, "GPU %u: %u windows of %s, launching thread %s",
                          _sl_gpu_id (ctx, g), n, wd, who);
      }
    }
}

void
_sl_rule_cpu_bound (SlAnalyzeCtx *ctx)
{
  rule_bound (ctx, TRUE);
}

void
_sl_rule_gpu_bound (SlAnalyzeCtx *ctx)
{
  rule_bound (ctx, FALSE);
}
