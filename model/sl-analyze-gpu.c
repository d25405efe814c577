/* sl-analyze-gpu.c: the rules about how busy each GPU is: gpu_util (stretches of low
 * utilization), gpu_gaps (idle gaps, with what the host did meanwhile) and idle_breakdown (where
 * a GPU's time goes). */
#include "sl-analyze-private.h"

#include <stdlib.h>
#include <string.h>

#include "sl-format.h"
#include "sl-utilization.h"

void
_sl_rule_gpu_util (SlAnalyzeCtx *ctx)
{
  double threshold = _sl_analyze_param (ctx, "threshold");
  guint chunks = (guint) CLAMP (_sl_analyze_param (ctx, "chunks"), 1, 1000);

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      SlTime span = gi->last - gi->first, run_start = 0, run_busy = 0;
      guint run_chunks = 0, low = 0;

      if (span <= 0)
        continue;
      for (guint c = 0; c <= chunks; c++)
        {
          SlTime a = gi->first + (SlTime) ((double) span * c / chunks);
          SlTime b = c == chunks ? gi->last
                                 : gi->first + (SlTime) ((double) span * (c + 1) / chunks);
          SlTime busy = c < chunks ? sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_ANY, a, b) : 0;
          gboolean is_low = c < chunks && b > a && (double) busy < threshold * (double) (b - a);

          if (is_low)
            {
              if (run_chunks == 0)
                run_start = a;
              run_chunks++;
              run_busy = _sl_time_add (run_busy, busy);
              low++;
              continue;
            }
          if (run_chunks == 0)
            continue;
          /* the run ended at a */
          {
            SlTime len = a - run_start;
            double util = (double) run_busy / (double) MAX (len, 1);
            double kern = sl_trace_gpu_utilization (ctx->trace, g, SL_UTIL_KERNELS, run_start, a);
            g_autofree char *range = _sl_range_text (ctx, run_start, a);
            g_autofree char *d = sl_format_duration (len);
            SlFinding *f = _sl_finding_new (ctx, run_start, a, len - run_busy);

            f->gpu = (gint) _sl_gpu_id (ctx, g);
            f->global_pid = gi->global_pid;
            f->summary = g_strdup_printf ("GPU %u busy %.0f%% of %s (%s)",
                                          _sl_gpu_id (ctx, g), util * 100, d, range);
            f->cause = g_strdup_printf ("GPU %u busy below %.0f%%", _sl_gpu_id (ctx, g),
                                        threshold * 100);
            _sl_evidence_share (f, "busy_share", "GPU busy", util);
            _sl_evidence_share (f, "kernel_share", "Running kernels", kern);
            _sl_evidence_duration (f, "duration_ns", "Stretch", len);
            _sl_evidence_duration (f, "idle_ns", "GPU idle in it", len - run_busy);
            {
              g_autofree char *chunk = sl_format_duration (span / chunks);
              _sl_evidence (f, "chunks", "Low chunks", run_chunks, "%u of %u (each %s)", run_chunks,
                            chunks, chunk);
            }
            f->advice = g_strdup ("The GPU waits for work in this stretch. The gpu_gaps, cpu_bound "
                                  "and sync_api findings in the same range say what the host did "
                                  "instead; keep the GPU's queue full (asynchronous copies from "
                                  "pinned memory, no host synchronization in the loop, enough "
                                  "data-loader workers).");
            _sl_finding_add_gpu_lanes (ctx, f, g);
            run_chunks = 0;
            run_busy = 0;
          }
        }
      _sl_analyze_note (ctx, "GPU %u: %u of %u chunks below %.0f%%", _sl_gpu_id (ctx, g), low,
                        chunks, threshold * 100);
    }
}

/* --- gpu_gaps --------------------------------------------------------------------------------- */

/* The GPU's idle gaps longer than min_gap: the holes of its busy union, clipped to [a, b). */
typedef struct
{
  SlTime  a, b;
  SlTime  min_gap;
  SlTime  prev_end;
  GArray *idle;       /* SlSpan, in time order */
} IdleScan;

static gboolean
idle_scan_cb (SlTime   start,
              SlTime   end,
              gpointer user_data)
{
  IdleScan *s = user_data;

  if (s->prev_end != G_MININT64)
    {
      SlSpan sp = { MAX (s->prev_end, s->a), MIN (start, s->b) };
      if (sp.e - sp.s > s->min_gap)
        g_array_append_val (s->idle, sp);
    }
  s->prev_end = MAX (s->prev_end, end);
  return start < s->b;
}

static void
idle_scan (SlAnalyzeCtx *ctx,
           guint         gpu,
           SlTime        min_gap,
           GArray       *idle)
{
  IdleScan scan = { ctx->t0, ctx->t1, min_gap, G_MININT64, idle };

  sl_trace_gpu_busy_foreach (ctx->trace, gpu, SL_UTIL_ANY, idle_scan_cb, &scan);
}

static gint
cmp_gap_desc (gconstpointer a,
              gconstpointer b)
{
  const SlSpan *x = a, *y = b;
  SlTime lx = x->e - x->s, ly = y->e - y->s;

  return lx > ly ? -1 : lx < ly ? 1 : (x->s > y->s) - (x->s < y->s);
}

/* What one thread did in [a, b): CUDA API calls, OS runtime calls and samples by name. */
typedef struct
{
  gint       thread;
  SlTime     api, osrt;       /* covered time */
  guint32    api_top, osrt_top, sample_top;
  guint32    sample_top_module; /* SL_NO_STR, or the Python line of sample_top (_sl_samples_top) */
  SlTime     api_top_t, osrt_top_t;
  gsize      samples, sample_top_n;
  SlTime     sampled;         /* samples × period */
  SlTime     len;             /* of [a, b) */
} ThreadActivity;

static void
thread_activity (SlAnalyzeCtx   *ctx,
                 gint            thread,
                 SlTime          a,
                 SlTime          b,
                 SlFinding      *f,
                 ThreadActivity *out)
{
  const SlThreadLanes *tl = &ctx->tl[thread];
  g_autoptr (GHashTable) api = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr (GHashTable) osrt = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  const SlLane *samples = _sl_lane_or_null (ctx, tl->samples);

  *out = (ThreadActivity) { thread, 0, 0, SL_NO_STR, SL_NO_STR, SL_NO_STR, SL_NO_STR, 0, 0, 0, 0,
                            0, b - a };
  out->api = _sl_overlap_sum (ctx, _sl_lane_or_null (ctx, tl->api), a, b, api, SL_CALLS_ALL, f);
  out->osrt = _sl_overlap_sum (ctx, _sl_lane_or_null (ctx, tl->osrt), a, b, osrt, SL_CALLS_ALL, f);
  out->api_top = _sl_top_name (api, &out->api_top_t);
  out->osrt_top = _sl_top_name (osrt, &out->osrt_top_t);
  out->samples = _sl_samples_in (samples, a, b);
  out->sampled = MIN ((SlTime) out->samples * tl->sample_period, b - a);
  if (out->samples > 0)
    out->sample_top_n = _sl_samples_top (ctx, samples, a, b, &out->sample_top,
                                         &out->sample_top_module);
}

/* Its traced calls, and its running time outside its CUDA calls (samples land in API calls that
 * spin, never in OS calls that block), at most the time outside its calls: a thread that
 * computes between a few reads counts as busy. */
static SlTime
activity_total (const ThreadActivity *t)
{
  SlTime outside = MIN (MAX (t->sampled - t->api, 0), MAX (t->len - t->api - t->osrt, 0));

  return t->api + t->osrt + outside;
}

static gboolean
is_launcher (const SlGpuInfo *gi,
             gint             thread)
{
  for (guint k = 0; k < gi->launchers->len; k++)
    if ((gint) g_array_index (gi->launchers, guint, k) == thread)
      return TRUE;
  return FALSE;
}

/* "read 600.000 ms (OS runtime), cudaStreamSynchronize 5.000 ms; 12 samples, most in foo" */
static char *
activity_text (SlAnalyzeCtx         *ctx,
               const ThreadActivity *t)
{
  g_autoptr (GString) s = g_string_new (NULL);

  if (t->osrt_top_t > 0)
    {
      g_autofree char *d = sl_format_duration (t->osrt_top_t);
      g_autofree char *all = sl_format_duration (t->osrt);
      g_string_append_printf (s, "in %s %s (OS runtime, %s in all)",
                              sl_trace_str (ctx->trace, t->osrt_top), d, all);
    }
  if (t->api_top_t > 0)
    {
      g_autofree char *d = sl_format_duration (t->api_top_t);
      g_autofree char *all = sl_format_duration (t->api);
      g_string_append_printf (s, "%sin %s %s (CUDA API, %s in all)", s->len ? "; " : "",
                              sl_trace_str (ctx->trace, t->api_top), d, all);
    }
  if (t->samples > 0)
    {
      g_autofree char *top = _sl_sample_name (ctx, t->sample_top, t->sample_top_module);
      g_string_append_printf (s, "%s%" G_GSIZE_FORMAT " CPU samples, %" G_GSIZE_FORMAT " in %s",
                              s->len ? "; " : "", t->samples, t->sample_top_n, top);
    }
  if (s->len == 0)
    g_string_append (s, "no traced activity (idle, or in untraced code)");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* The summary clause for the thread that did most in the gap (its cause, without figures, in
 * `cause`), and the advice that fits what it did. */
static char *
host_clause (SlAnalyzeCtx         *ctx,
             const ThreadActivity *best,
             SlFinding            *f,
             char                **cause)
{
  char *clause;

  if (best == NULL || activity_total (best) == 0)
    {
      f->advice = g_strdup ("No CPU activity was traced in the gap: the process waited on "
                            "something untraced (trace OS runtime calls and sample the CPU to see "
                            "what), or its work on this GPU simply paused.");
      *cause = g_strdup ("no traced CPU activity");
      return g_strdup ("no traced CPU activity");
    }
  g_autofree char *who = _sl_thread_label (ctx, best->thread);
  /* what its samples show it running outside the traced calls, when that is most of what it did
   * (the gap's last few µs always fall in the next launch call) */
  SlTime outside = best->sampled - best->api - best->osrt;
  if ((best->samples > 0 && outside > best->osrt_top_t && outside > best->api_top_t)
      || (best->api_top_t == 0 && best->osrt_top_t == 0))
    {
      g_autofree char *top = _sl_sample_name (ctx, best->sample_top, best->sample_top_module);
      clause = g_strdup_printf ("%s busy on the CPU (%" G_GSIZE_FORMAT " samples, most in %s)",
                                who, best->samples, top);
      *cause = g_strdup_printf ("%s busy on the CPU (most in %s)", who, top);
      f->thread = best->thread;
      f->advice = g_strdup_printf ("The host computes (%s) instead of feeding the GPU. Move that "
                                   "work off the launching thread, or onto the GPU.", top);
    }
  else if (best->osrt_top_t >= best->api_top_t && best->osrt_top_t > 0)
    {
      g_autofree char *d = sl_format_duration (best->osrt_top_t);
      const char *fn = sl_trace_str (ctx->trace, best->osrt_top);
      clause = g_strdup_printf ("%s blocked in %s for %s", who, fn, d);
      *cause = g_strdup_printf ("%s blocked in %s", who, fn);
      f->thread = best->thread;
      f->advice = g_strdup_printf (
          "The host thread blocks in %s while the GPU has nothing to do. Move the I/O or the "
          "wait off the thread that launches GPU work (more DataLoader workers, prefetching, "
          "pinned-memory staging), or overlap it with queued GPU work.", fn);
    }
  else
    {
      g_autofree char *d = sl_format_duration (best->api_top_t);
      const char *fn = sl_trace_str (ctx->trace, best->api_top);
      SlApiClass c = _sl_api_class (ctx, best->api_top);
      clause = g_strdup_printf ("%s in %s for %s", who, fn, d);
      *cause = g_strdup_printf ("%s in %s", who, fn);
      f->thread = best->thread;
      if (_sl_api_class_blocks (c))
        f->advice = g_strdup_printf ("The host waits in %s, so the GPU's queue runs dry until the "
                                     "host queues more work. Synchronize less often (not every "
                                     "step; avoid .item() and .cpu() in the loop), or queue the "
                                     "next work first.", fn);
      else if (strstr (fn, "Launch") != NULL)
        f->advice = g_strdup_printf ("The host spends the gap in %s: launch overhead (a long "
                                     "first launch loads the kernel's module). Fewer, larger "
                                     "launches (fused kernels, CUDA Graphs) keep the GPU fed; "
                                     "warm up before timing.", fn);
      else if (strstr (fn, "lloc") != NULL || strstr (fn, "Free") != NULL
               || strstr (fn, "Library") != NULL || strstr (fn, "Module") != NULL)
        f->advice = g_strdup_printf ("The host spends the gap in %s: allocation or module "
                                     "loading, not GPU work. Do it once before the loop (a "
                                     "caching allocator, preallocated buffers, eager module "
                                     "loading).", fn);
      else
        f->advice = g_strdup_printf ("The host spends the gap in %s instead of queuing GPU "
                                     "work: move it out of the loop or overlap it.", fn);
    }
  return clause;
}

/* Describes what the threads of a GPU's processes did in [a, b) into `f`; returns the summary
 * clause ("python3 [100] in read 600 ms"), sets the advice and, in `cause`, the clause without
 * figures ("python3 [100] blocked in read"). */
static char *
describe_host (SlAnalyzeCtx *ctx,
               guint         gpu,
               SlTime        a,
               SlTime        b,
               SlFinding    *f,
               char        **cause)
{
  SlGpuInfo *gi = &ctx->gpus[gpu];
  g_autoptr (GArray) acts = g_array_new (FALSE, FALSE, sizeof (ThreadActivity));
  const ThreadActivity *launcher = NULL, *best = NULL;
  SlTime len = b - a;
  SlWorkers workers;
  char *clause;

  for (guint k = 0; k < gi->threads->len; k++)
    {
      ThreadActivity t;
      gint thread = (gint) g_array_index (gi->threads, guint, k);
      thread_activity (ctx, thread, a, b, f, &t);
      g_array_append_val (acts, t);
    }
  /* of the threads that launch its work, the one that did most in the gap */
  for (guint k = 0; k < acts->len; k++)
    {
      const ThreadActivity *t = &g_array_index (acts, ThreadActivity, k);
      if (is_launcher (gi, t->thread)
          && (launcher == NULL || activity_total (t) > activity_total (launcher)))
        launcher = t;
      if (best == NULL || activity_total (t) > activity_total (best))
        best = t;
    }
  /* the launching thread first: its state is what starves the GPU */
  if (launcher != NULL && (activity_total (launcher) * 10 >= len || best == NULL
                           || activity_total (best) == 0))
    best = launcher;

  for (guint k = 0, shown = 0; k < acts->len && shown < 6; k++)
    {
      const ThreadActivity *t = &g_array_index (acts, ThreadActivity, k);
      g_autofree char *who = _sl_thread_label (ctx, t->thread);
      g_autofree char *what = activity_text (ctx, t);
      g_autofree char *key = g_strdup_printf ("thread_%u_active_ns",
                                              sl_trace_get_thread (ctx->trace, t->thread)->tid);
      if (activity_total (t) == 0 && t->thread != gi->launcher)
        continue;
      _sl_evidence (f, key, who, (double) activity_total (t), "%s%s", what,
                    t->thread == gi->launcher ? " — launches the GPU's work" : "");
      _sl_finding_add_thread_lanes (ctx, f, t->thread);
      shown++;
    }
  /* the launching thread's states in the gap: running, runnable or blocked, and where */
  if (gi->launcher >= 0)
    _sl_evidence_states (ctx, f, gi->launcher, a, b);
  /* its worker processes: how many cores they kept busy, in what */
  _sl_workers (ctx, gpu, a, b, TRUE, &workers);
  _sl_evidence_workers (ctx, f, &workers);

  clause = host_clause (ctx, best, f, cause);
  if (workers.n > 0)
    {
      /* the GPU idles; the main thread waits unless its states say it ran most of the gap */
      SlStateTimes st;
      _sl_thread_states (ctx, gi->launcher, a, b, &st);
      gboolean waits = !st.any || st.time[SL_STATE_RUNNING] * 2 < len;
      if (_sl_workers_point (&workers, waits))
        {
          g_autofree char *text = _sl_workers_text (ctx, &workers);
          g_autofree char *verdict = _sl_workers_verdict (&workers);
          g_autofree char *advice = _sl_workers_advice (&workers);
          g_autofree char *old_clause = clause, *old_cause = *cause, *old_advice = f->advice;
          if (waits)
            {
              /* it waits for the batches they make */
              clause = g_strdup_printf ("%s; %s: the data loader is the bottleneck (%s)",
                                        old_clause, text, verdict);
              *cause = g_strdup_printf ("%s; the data loader is the bottleneck (%s)", old_cause,
                                        _sl_workers_saturated (&workers) ? "cores saturated"
                                                                         : "cores idle");
              f->advice = g_steal_pointer (&advice);
              _sl_evidence_wait_backtrace (ctx, f, gi->launcher, a, b);
            }
          else
            {
              /* it runs, on a machine they fill */
              clause = g_strdup_printf ("%s; %s (%s)", old_clause, text, verdict);
              *cause = g_strdup_printf ("%s; the data loader's workers take every core",
                                        old_cause);
              f->advice = g_strdup_printf ("%s %s", old_advice, advice);
            }
        }
    }
  return clause;
}

#define MAX_DESCRIBED 1000

void
_sl_rule_gpu_gaps (SlAnalyzeCtx *ctx)
{
  SlTime min_gap = (SlTime) _sl_analyze_param (ctx, "gap");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      g_autoptr (GArray) gaps = NULL;
      SlTime total;
      gsize n;

      if (ctx->gpus[g].ops->len == 0)
        continue;
      gaps = g_array_new (FALSE, FALSE, sizeof (SlSpan));
      idle_scan (ctx, g, min_gap, gaps);
      n = gaps->len;
      total = _sl_spans_total (gaps);
      /* the longest first; a trace with thousands of them describes the longest ones */
      if (n > 1)
        qsort (gaps->data, n, sizeof (SlSpan), cmp_gap_desc);
      for (gsize i = 0; i < MIN (n, MAX_DESCRIBED); i++)
        {
          SlTime a = g_array_index (gaps, SlSpan, i).s, b = g_array_index (gaps, SlSpan, i).e;
          SlFinding *f = _sl_finding_new (ctx, a, b, b - a);
          g_autofree char *d = sl_format_duration (b - a);
          g_autofree char *what = NULL, *cause = NULL;

          f->gpu = (gint) _sl_gpu_id (ctx, g);
          f->global_pid = ctx->gpus[g].global_pid;
          _sl_evidence_duration (f, "gap_ns", "GPU idle", b - a);
          what = describe_host (ctx, g, a, b, f, &cause);
          f->cause = g_strdup_printf ("GPU %u idle; %s", _sl_gpu_id (ctx, g), cause);
          f->summary = g_strdup_printf ("GPU %u idle for %s; %s", _sl_gpu_id (ctx, g), d,
                                        what);
          _sl_finding_add_gpu_lanes (ctx, f, g);
        }
      {
        g_autofree char *t = sl_format_duration (total), *m = sl_format_duration (min_gap);
        _sl_analyze_note (ctx, "GPU %u: %" G_GSIZE_FORMAT " gaps over %s, %s in all%s",
                          _sl_gpu_id (ctx, g), n, m, t,
                          n > MAX_DESCRIBED ? " (the longest 1000 listed)" : "");
      }
    }
}

/* --- idle_breakdown --------------------------------------------------------------------------- */

void
_sl_rule_idle_breakdown (SlAnalyzeCtx *ctx)
{
  double min_idle = _sl_analyze_param (ctx, "idle");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      SlTime span = gi->last - gi->first, kern, kc, any;
      g_autoptr (GArray) copies = g_array_new (FALSE, FALSE, sizeof (SlSpan));
      g_autoptr (GArray) sync = g_array_new (FALSE, FALSE, sizeof (SlSpan));
      g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (SlSpan));
      g_autoptr (GArray) idle_spans = g_array_new (FALSE, FALSE, sizeof (SlSpan));
      SlTime idle, idle_sync, idle_calls, other;

      if (span <= 0)
        continue;
      kern = sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_KERNELS, gi->first, gi->last);
      any = sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_ANY, gi->first, gi->last);
      /* kernels and copies together: their union, from the lanes */
      for (guint k = 0; k < gi->ops->len; k++)
        {
          const SlLane *lane = sl_trace_get_lane (ctx->trace, g_array_index (gi->ops, guint32, k));
          if (lane->kind != SL_LANE_MEMSET)
            _sl_spans_add_overlap (lane, gi->first, gi->last, copies);
        }
      _sl_spans_merge (copies);
      kc = _sl_spans_total (copies);

      idle_scan (ctx, g, 0, idle_spans);
      idle = _sl_spans_total (idle_spans);
      /* the host side: blocking calls and all CUDA calls of the GPU's threads */
      for (guint k = 0; k < gi->threads->len; k++)
        {
          guint t = g_array_index (gi->threads, guint, k);
          const SlLane *lane = _sl_lane_or_null (ctx, ctx->tl[t].api);
          if (lane == NULL)
            continue;
          for (gsize e = 0; e < lane->n_events; e++)
            {
              SlSpan sp = { lane->events[e].start, lane->events[e].end };
              g_array_append_val (calls, sp);
              if (_sl_api_class_blocks (_sl_api_class (ctx, lane->events[e].name)))
                g_array_append_val (sync, sp);
            }
        }
      _sl_spans_merge (sync);
      _sl_spans_merge (calls);
      idle_sync = _sl_spans_intersect (idle_spans, sync);
      idle_calls = _sl_spans_intersect (idle_spans, calls);
      other = MAX (idle - idle_calls, 0);

      {
        double sp = (double) span;
        g_autofree char *d = sl_format_duration (span);
        _sl_analyze_note (ctx, "GPU %u over %s: kernels %.1f%%, copies %.1f%%, sets %.1f%%; idle "
                          "in host sync %.1f%%, idle while launching %.1f%%, other idle %.1f%%",
                          _sl_gpu_id (ctx, g), d, 100.0 * kern / sp, 100.0 * (kc - kern) / sp,
                          100.0 * (any - kc) / sp, 100.0 * idle_sync / sp,
                          100.0 * (idle_calls - idle_sync) / sp, 100.0 * other / sp);
        if ((double) idle >= min_idle * sp)
          {
            SlFinding *f = _sl_finding_new (ctx, gi->first, gi->last, idle);
            const char *worst;
            f->gpu = (gint) _sl_gpu_id (ctx, g);
            f->global_pid = gi->global_pid;
            _sl_evidence_duration (f, "span_ns", "Span of its work", span);
            _sl_evidence_share (f, "kernels_share", "Running kernels", kern / sp);
            _sl_evidence_share (f, "copies_share", "Copying (no kernel)", (kc - kern) / sp);
            _sl_evidence_share (f, "sets_share", "Setting memory (no kernel or copy)",
                                (any - kc) / sp);
            _sl_evidence_share (f, "idle_sync_share", "Idle, host in a sync call", idle_sync / sp);
            _sl_evidence_share (f, "idle_launch_share", "Idle, host in other CUDA calls",
                                (idle_calls - idle_sync) / sp);
            _sl_evidence_share (f, "idle_other_share", "Idle otherwise", other / sp);
            _sl_finding_add_gpu_lanes (ctx, f, g);
            _sl_finding_add_thread_lanes (ctx, f, gi->launcher);
            if (idle_sync >= idle_calls - idle_sync && idle_sync >= other)
              {
                worst = "while the host waits in sync calls";
                f->advice = g_strdup ("Most idle time falls while the host synchronizes: the GPU "
                                      "drains and waits for the next work. See the sync_api "
                                      "findings.");
              }
            else if (idle_calls - idle_sync >= other)
              {
                worst = "while the host is in CUDA calls (launch overhead)";
                f->advice = g_strdup ("Most idle time falls while the host is launching work: "
                                      "launch overhead. See the tiny_kernels and cpu_bound "
                                      "findings; CUDA Graphs and fused kernels cut it.");
              }
            else
              {
                worst = "while the host does other things";
                f->advice = g_strdup ("Most idle time falls outside CUDA calls: the host is busy "
                                      "elsewhere (data loading, Python, I/O). See the gpu_gaps "
                                      "and cpu_bound findings.");
              }
            f->summary = g_strdup_printf ("GPU %u idle %.0f%% of %s, mostly %s",
                                          _sl_gpu_id (ctx, g),
                                          100.0 * idle / sp, d, worst);
          }
      }
    }
}
