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
      SlIdleAccount *acc;
      SlTime span, first, last, run_start = 0, run_busy = 0;
      guint run_chunks = 0, low = 0;

      if (gi->ops->len == 0)
        continue;
      /* over the whole trace, not only the span of the GPU's work: an idle start counts */
      acc = _sl_idle_account (ctx, g);
      first = acc->s;
      last = acc->e;
      span = last - first;
      if (span <= 0)
        continue;
      for (guint c = 0; c <= chunks; c++)
        {
          SlTime a = first + (SlTime) ((double) span * c / chunks);
          SlTime b = c == chunks ? last : first + (SlTime) ((double) span * (c + 1) / chunks);
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
                              sl_trace_display_name (ctx->trace, SL_LANE_CUDA_API, t->api_top),
                              d, all);
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

/* The summary clause for what covers most of the gap (its cause, without figures, in `cause`),
 * and the advice that fits it. */
static char *
blame_clause (SlAnalyzeCtx  *ctx,
              const SlBlame *bl,
              SlTime         a,
              SlTime         b,
              SlFinding     *f,
              char         **cause)
{
  g_autofree char *who = NULL, *d = NULL;
  SlTime len = b - a;
  double pct = 100.0 * (double) bl->overlap / (double) MAX (len, 1);
  const char *fn = bl->name;

  if (bl->kind == SL_BLAME_NONE)
    {
      f->advice = g_strdup ("No single activity of the launching threads covers half of the gap "
                            "(what they did is listed): the time went to several things, or to "
                            "something untraced. Trace OS runtime calls and sample the CPU to see "
                            "more, or look at the gap on the timeline.");
      *cause = g_strdup ("no single cause");
      return g_strdup ("no single cause (no activity of the launching threads covers half of it)");
    }
  who = _sl_thread_label (ctx, bl->thread);
  d = sl_format_duration (bl->overlap);
  f->thread = bl->thread;
  switch (bl->kind)
    {
    case SL_BLAME_CUDA_API:
      {
        SlApiClass c = _sl_api_class (ctx, bl->name_id);
        /* as every pane names the call (the blame's name is the trace's: a key into it) */
        fn = sl_trace_display_name (ctx->trace, SL_LANE_CUDA_API, bl->name_id);
        *cause = g_strdup_printf ("%s in %s", who, fn);
        if (_sl_api_class_blocks (c))
          f->advice = g_strdup_printf ("The host waits in %s while the GPU has nothing queued: "
                                       "synchronize less often (not every step; avoid .item() "
                                       "and .cpu() in the loop), or queue the next work first.",
                                       fn);
        else if (c == SL_API_LAUNCH && _sl_api_name_launches_graph (fn))
          f->advice = g_strdup_printf ("The host spends the gap in %s: the work is already one "
                                       "CUDA graph, so its launch is the cost. Launch the graph "
                                       "earlier (before the host work that precedes it), or "
                                       "capture more of the step in it.", fn);
        else if (c == SL_API_LAUNCH)
          f->advice = g_strdup_printf ("The host spends the gap in %s: launch overhead (a long "
                                       "first launch loads the kernel's module). Fewer, larger "
                                       "launches (fused kernels, CUDA Graphs) keep the GPU fed; "
                                       "warm up before timing.", fn);
        else if (_sl_api_name_sets_up (fn))
          f->advice = g_strdup_printf ("The host spends the gap in %s: allocation or module "
                                       "loading, not GPU work. Do it once before the loop (a "
                                       "caching allocator, preallocated buffers, eager module "
                                       "loading).", fn);
        else
          f->advice = g_strdup_printf ("The host spends the gap in %s instead of queuing GPU "
                                       "work: move it out of the loop or overlap it.", fn);
        return g_strdup_printf ("%s in %s for %s (%.0f%% of it)", who, fn, d, pct);
      }
    case SL_BLAME_OSRT:
      *cause = g_strdup_printf ("%s blocked in %s", who, fn);
      f->advice = g_strdup_printf (
          "The host thread blocks in %s while the GPU has nothing to do. Move the I/O or the "
          "wait off the thread that launches GPU work (more DataLoader workers, prefetching, "
          "pinned-memory staging), or overlap it with queued GPU work.", fn);
      return g_strdup_printf ("%s blocked in %s for %s (%.0f%% of it)", who, fn, d, pct);
    case SL_BLAME_NVTX:
      {
        /* PyTorch's ranges carry ", seq = N, op_id = M": one operator's gaps are one cause */
        const char *seq = strstr (fn, ", seq = ");
        g_autofree char *op = seq != NULL ? g_strndup (fn, seq - fn) : NULL;
        if (op != NULL)
          fn = op;
        *cause = g_strdup_printf ("%s in %s (NVTX)", who, fn);
        f->advice = g_strdup_printf (
            "The host spends most of the gap inside the range %s without queuing GPU work: its "
            "CPU-side work (the operator's host code, a tensor on the CPU, Python between "
            "launches, a hidden copy or synchronization) delays the next launch. Sample the CPU "
            "to see what it runs, make it cheaper or move it off the launching thread, or queue "
            "GPU work ahead of it.", fn);
        return g_strdup_printf ("%s in %s (NVTX range) for %s (%.0f%% of it)", who, fn, d, pct);
      }
    case SL_BLAME_SAMPLE:
      *cause = g_strdup_printf ("%s busy on the CPU (most in %s)", who, fn);
      f->advice = g_strdup_printf ("The host computes (%s) instead of feeding the GPU. Move that "
                                   "work off the launching thread, or onto the GPU.", fn);
      return g_strdup_printf ("%s busy on the CPU (%" G_GSIZE_FORMAT " samples, most in %s)", who,
                              _sl_samples_in (_sl_lane_or_null (ctx, ctx->tl[bl->thread].samples),
                                              a, b), fn);
    case SL_BLAME_STATE:
      *cause = g_strdup_printf ("%s %s", who, fn);
      if (strcmp (fn, "runnable") == 0)
        f->advice = g_strdup ("The launching thread is ready but waits for a CPU: other "
                              "threads or processes take the cores (too many DataLoader workers "
                              "or OpenMP threads for the machine). Leave a core to it.");
      else if (strcmp (fn, "blocked") == 0)
        f->advice = g_strdup ("The launching thread is blocked in something the trace does not "
                              "name (trace OS runtime calls to see which): a lock, I/O or a "
                              "wait on another thread, while the GPU has nothing to do.");
      else
        f->advice = g_strdup ("The launching thread runs outside any traced call: sample the CPU "
                              "to see what it computes instead of queuing GPU work.");
      return g_strdup_printf ("%s %s for %s (%.0f%% of it, by its thread states)", who, fn, d,
                              pct);
    case SL_BLAME_NONE:
    default:
      break;
    }
  *cause = g_strdup ("no single cause");
  return g_strdup ("no single cause");
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

  f->blame = _sl_blame (ctx, gpu, a, b);
  clause = blame_clause (ctx, f->blame, a, b, f, cause);
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

/* "launch 1.2 ms, host 300 µs" for the causes of [a, b) in the account. */
static char *
causes_text (SlIdleAccount *acc,
             SlTime         a,
             SlTime         b)
{
  g_autoptr (GString) s = g_string_new (NULL);

  for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
    {
      SlTime t = _sl_idle_in (acc, 1u << c, a, b);
      g_autofree char *d = NULL;
      if (t == 0)
        continue;
      d = sl_format_duration (t);
      g_string_append_printf (s, "%s%s %s", s->len ? ", " : "", _sl_idle_cause_name (c), d);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

void
_sl_rule_gpu_gaps (SlAnalyzeCtx *ctx)
{
  SlTime min_gap = (SlTime) _sl_analyze_param (ctx, "gap");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      g_autoptr (GArray) gaps = NULL;
      g_autoptr (GArray) requests = NULL;
      g_autofree SlTime *given = NULL;
      SlIdleAccount *acc;
      SlTime total = 0, explained = 0;
      gsize n, described, dropped = 0;

      if (gi->ops->len == 0 || gi->last <= gi->first)
        continue;
      acc = _sl_idle_account (ctx, g);
      /* the holes between its work (not the idle time before its first op or after its last) */
      gaps = g_array_new (FALSE, FALSE, sizeof (SlSpan));
      for (guint i = 0; i < acc->idle->len; i++)
        {
          SlSpan sp = g_array_index (acc->idle, SlSpan, i);
          sp.s = MAX (sp.s, gi->first);
          sp.e = MIN (sp.e, gi->last);
          if (sp.e - sp.s > min_gap)
            g_array_append_val (gaps, sp);
        }
      n = gaps->len;
      total = _sl_spans_total (gaps);
      /* the longest first; a trace with thousands of them describes the longest ones */
      if (n > 1)
        qsort (gaps->data, n, sizeof (SlSpan), cmp_gap_desc);
      described = MIN (n, MAX_DESCRIBED);
      /* each gap is given the idle time no more specific finding took (work queued, a blocking
       * copy, a sync call, tiny kernels' launches) */
      given = g_new0 (SlTime, MAX (described, 1));
      requests = g_array_sized_new (FALSE, FALSE, sizeof (SlIdleRequest), described);
      for (gsize i = 0; i < described; i++)
        {
          SlIdleRequest r = { g_array_index (gaps, SlSpan, i).s, g_array_index (gaps, SlSpan, i).e,
                              &given[i] };
          g_array_append_val (requests, r);
        }
      _sl_idle_attribute (ctx, g, SL_IDLE_ALL, requests);
      for (gsize i = 0; i < described; i++)
        {
          SlTime a = g_array_index (gaps, SlSpan, i).s, b = g_array_index (gaps, SlSpan, i).e;
          SlFinding *f;
          g_autofree char *d = sl_format_duration (b - a);
          g_autofree char *what = NULL, *cause = NULL, *split = NULL;

          /* mostly another finding's: that one says it */
          if (given[i] * 2 < b - a)
            {
              explained = _sl_time_add (explained, b - a - given[i]);
              dropped++;
              continue;
            }
          f = _sl_finding_new (ctx, a, b, 0);
          f->gpu = (gint) _sl_gpu_id (ctx, g);
          f->global_pid = gi->global_pid;
          _sl_finding_set_attributed (f, given[i]);
          _sl_evidence_duration (f, "gap_ns", "GPU idle", b - a);
          split = causes_text (acc, a, b);
          _sl_evidence (f, "idle_causes", "Its idle time by cause", (double) (b - a), "%s",
                        split);
          what = describe_host (ctx, g, a, b, f, &cause);
          f->cause = g_strdup_printf ("GPU %u idle; %s", _sl_gpu_id (ctx, g), cause);
          f->summary = g_strdup_printf ("GPU %u idle for %s; %s", _sl_gpu_id (ctx, g), d,
                                        what);
          _sl_finding_add_gpu_lanes (ctx, f, g);
        }
      {
        g_autofree char *t = sl_format_duration (total), *m = sl_format_duration (min_gap);
        g_autofree char *x = sl_format_duration (explained);
        _sl_analyze_note (ctx, "GPU %u: %" G_GSIZE_FORMAT " gaps over %s, %s in all%s",
                          _sl_gpu_id (ctx, g), n, m, t,
                          n > MAX_DESCRIBED ? " (the longest 1000 described)" : "");
        if (dropped > 0)
          _sl_analyze_note (ctx, "GPU %u: %" G_GSIZE_FORMAT " of them mostly explained by other "
                            "findings (%s: queued work, blocking copies, sync calls)",
                            _sl_gpu_id (ctx, g), dropped, x);
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
      SlGpuTime t;
      SlTime span;
      double sp;
      g_autofree char *d = NULL;

      if (gi->ops->len == 0)
        continue;
      _sl_gpu_time (ctx, g, &t);
      span = t.end - t.start;
      if (span <= 0)
        continue;
      sp = (double) span;
      d = sl_format_duration (span);
      _sl_analyze_note (ctx, "GPU %u over %s: kernels %.1f%%, copies %.1f%%, sets %.1f%%, idle "
                        "%.1f%% (queued %.1f%%, copy calls %.1f%%, sync %.1f%%, launch %.1f%%, "
                        "host %.1f%%, untraced %.1f%%; %.1f%% accounted for by findings)",
                        t.device_id, d, 100.0 * t.kernels / sp, 100.0 * t.copies / sp,
                        100.0 * t.sets / sp, 100.0 * t.idle / sp,
                        100.0 * t.idle_by_cause[SL_IDLE_QUEUED] / sp,
                        100.0 * t.idle_by_cause[SL_IDLE_COPY] / sp,
                        100.0 * t.idle_by_cause[SL_IDLE_SYNC] / sp,
                        100.0 * t.idle_by_cause[SL_IDLE_LAUNCH] / sp,
                        100.0 * t.idle_by_cause[SL_IDLE_HOST] / sp,
                        100.0 * t.idle_by_cause[SL_IDLE_UNTRACED] / sp,
                        100.0 * t.attributed / sp);
      if ((double) t.idle < min_idle * sp)
        continue;
      {
        /* a summary: it states the totals, the findings about idle time are its parts */
        SlFinding *f = _sl_finding_new (ctx, t.start, t.end, t.idle);
        static const char *const labels[SL_N_IDLE_CAUSES] = {
          "Idle, work queued waits", "Idle, host in a blocking copy", "Idle, host in a sync call",
          "Idle, host launching", "Idle, host busy in something named",
          "Idle, nothing traced",
        };
        /* where most idle time falls, by cause: which findings say more */
        static const char *const advice[SL_N_IDLE_CAUSES] = {
          "Most idle time falls while launched work waits to start: see the launch_latency "
          "finding (dependencies between streams, the legacy default stream).",
          "Most idle time falls while the host is in blocking copies: see the sync_memcpy and "
          "pageable_memcpy findings (pinned memory, cudaMemcpyAsync).",
          "Most idle time falls while the host synchronizes: see the sync_api findings.",
          "Most idle time falls while the host is launching work: launch overhead. See the "
          "tiny_kernels and cpu_bound findings; CUDA Graphs and fused kernels cut it.",
          "Most idle time falls while the host does other things (data loading, Python, I/O, an "
          "operator's CPU side): see the gpu_gaps and cpu_bound findings for what.",
          "Most idle time falls where nothing traced says what the host did (before the GPU's "
          "first work, or in untraced code): record CPU samples and OS runtime calls to see it.",
        };
        guint worst = 0;

        f->gpu = (gint) t.device_id;
        f->global_pid = gi->global_pid;
        _sl_evidence_duration (f, "span_ns", "The trace's span", span);
        _sl_evidence_duration (f, "idle_ns", "GPU idle", t.idle);
        _sl_evidence_share (f, "kernels_share", "Running kernels", t.kernels / sp);
        _sl_evidence_share (f, "copies_share", "Copying (no kernel)", t.copies / sp);
        _sl_evidence_share (f, "sets_share", "Setting memory (no kernel or copy)", t.sets / sp);
        for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
          {
            g_autofree char *key = g_strdup_printf ("idle_%s_share", _sl_idle_cause_name (c));
            _sl_evidence_share (f, key, labels[c], t.idle_by_cause[c] / sp);
            if (t.idle_by_cause[c] > t.idle_by_cause[worst])
              worst = c;
          }
        _sl_evidence_share (f, "accounted_share", "Idle time the findings account for",
                            t.attributed / sp);
        _sl_finding_add_gpu_lanes (ctx, f, g);
        _sl_finding_add_thread_lanes (ctx, f, gi->launcher);
        f->advice = g_strdup (advice[worst]);
        f->summary = g_strdup_printf ("GPU %u idle %.0f%% of %s: mostly %s", t.device_id,
                                      100.0 * t.idle / sp, d, sl_idle_cause_label (worst));
      }
    }
}
