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
  VERDICT_UNKNOWN,   /* cpu_bound: the GPU waits, and nothing traced says what the thread does */
} Verdict;

/* What the trace can say about a thread's CPU time: "busy" is claimed only from these. */
typedef struct
{
  gboolean samples;  /* the launching thread is sampled: samples × period is its running time */
  gboolean osrt;     /* OS runtime calls are traced: time outside them and outside CUDA waits is
                      * not spent blocked in the OS */
} Evidence;

typedef struct
{
  SlTime  len, busy_gpu;      /* window, GPU busy time in it */
  SlTime  busy_kernels;       /* of which a kernel runs */
  SlTime  blocked_sync;       /* launching thread in blocking CUDA calls */
  SlTime  api_other;          /* in other CUDA calls */
  SlTime  osrt;               /* in OS runtime calls */
  SlTime  host_busy;          /* busy, as the evidence shows: launching or computing */
  SlTime  untraced;           /* outside any traced call, with no samples or OS runtime data to
                               * say whether it ran */
  SlTime  others;             /* other threads active while it is blocked in OS runtime calls */
  gint    other;              /* the busiest of them */
  gboolean workers_busy;      /* its process's worker processes keep their cores busy */
  SlTime  waits;              /* it is not running: by its thread states (not running), else in
                               * OS runtime calls; 0 without worker processes */
} WindowStats;

static void
window_stats (SlAnalyzeCtx   *ctx,
              guint           gpu,
              const Evidence *evidence,
              SlTime          a,
              SlTime          b,
              WindowStats    *w)
{
  SlGpuInfo *gi = &ctx->gpus[gpu];
  const SlThreadLanes *tl = &ctx->tl[gi->launcher];
  const SlLane *api = _sl_lane_or_null (ctx, tl->api);
  SlTime len = b - a;

  memset (w, 0, sizeof *w);
  w->len = len;
  w->other = -1;
  w->busy_gpu = sl_trace_gpu_busy_time (ctx->trace, gpu, SL_UTIL_ANY, a, b);
  w->busy_kernels = sl_trace_gpu_busy_time (ctx->trace, gpu, SL_UTIL_KERNELS, a, b);
  _sl_overlap_split (ctx, api, a, b, &w->blocked_sync, &w->api_other);
  w->osrt = _sl_overlap_sum (ctx, _sl_lane_or_null (ctx, tl->osrt), a, b, NULL, SL_CALLS_ALL, NULL);
  /* busy only as far as the evidence goes: CUDA calls that are not waits always; with samples,
   * what they say; with OS runtime tracing, the time outside blocking calls.  A wait (a sync
   * call, a synchronous copy) is never busy. */
  w->host_busy = MIN (w->api_other, len);
  if (evidence->samples)
    {
      SlTime running = MIN ((SlTime) _sl_samples_in (_sl_lane_or_null (ctx, tl->samples), a, b)
                            * tl->sample_period, len);
      w->host_busy = MIN (MAX (len - w->blocked_sync - w->osrt, 0), MAX (running, w->api_other));
    }
  else if (evidence->osrt)
    w->host_busy = MAX (len - w->blocked_sync - w->osrt, 0);
  else
    w->untraced = MAX (len - w->blocked_sync - w->api_other, 0);
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
  /* worker processes (DataLoader workers) busy while it waits */
  if (gi->workers->len > 0)
    {
      SlWorkers wk;
      SlStateTimes st;
      _sl_workers (ctx, gpu, a, b, FALSE, &wk);
      _sl_thread_states (ctx, gi->launcher, a, b, &st);
      w->workers_busy = _sl_workers_busy (&wk);
      w->waits = st.any ? len - st.time[SL_STATE_RUNNING] : w->osrt;
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
      if (w->workers_busy && (double) w->waits >= share * len)
        return VERDICT_LOADER;
      if ((double) w->host_busy >= share * len)
        return VERDICT_LAUNCH;
      if ((double) w->untraced >= share * len)
        return VERDICT_UNKNOWN;
      return VERDICT_NONE;
    }
  /* busy with kernels: a GPU busy copying is copy_bound's */
  if ((double) w->busy_gpu >= threshold * len && (double) w->blocked_sync >= share * len
      && w->busy_kernels * 2 >= w->busy_gpu)
    return VERDICT_GPU;
  return VERDICT_NONE;
}

/* The longest call named `name` overlapping [a, b). */
typedef struct
{
  guint32 name;
  SlTime  longest;
  guint   count;
} Longest;

static gboolean
longest_cb (const SlLane *lane,
            gsize         index,
            gpointer      user_data)
{
  Longest *l = user_data;

  if (lane->events[index].name == l->name)
    {
      l->longest = MAX (l->longest, lane->events[index].end - lane->events[index].start);
      l->count++;
    }
  return TRUE;
}

/* Advice for a thread too busy to feed the GPU, fitted to the figures: launch overhead only
 * where the kernels are short; a long call where one call takes long; else the thread's work. */
static char *
launch_advice (const char    *fn,
               SlTime         top_t,
               const Longest *calls,
               SlTime         busy,
               SlTime         kernel_median)
{
  g_autofree char *km = sl_format_duration (kernel_median);
  g_autofree char *lg = sl_format_duration (calls->longest);
  g_autofree char *avg = sl_format_duration (top_t / MAX (calls->count, 1));

  if (fn != NULL && top_t * 2 >= busy && _sl_api_name_sets_up (fn))
    return g_strdup_printf ("The thread spends the stretch in %s: allocation or module loading, "
                            "not GPU work. Do it once before the loop (preallocated buffers, a "
                            "caching allocator, eager module loading).", fn);
  /* launches of a millisecond (first launches, loading their modules) are not launch overhead */
  if (fn != NULL && top_t * 2 >= busy && calls->count > 0
      && top_t / calls->count >= SL_MS && _sl_api_name_launches (fn))
    return calls->count == 1
      ? g_strdup_printf ("One %s call takes %s: a first launch that loads its kernel's module "
                         "(lazy loading), not launch overhead. Load modules eagerly "
                         "(CUDA_MODULE_LOADING=EAGER) or warm up before the measured part.", fn,
                         lg)
      : g_strdup_printf ("%u %s calls take %s on average (longest %s): first launches that "
                         "load their kernels' modules (lazy loading), not launch overhead. Load "
                         "modules eagerly (CUDA_MODULE_LOADING=EAGER) or warm up before the "
                         "measured part.", calls->count, fn, avg, lg);
  if (kernel_median >= 100 * SL_US)
    return g_strdup_printf ("The kernels run long (median %s), so launch overhead is not what "
                            "starves the GPU: the thread's own work between them is%s%s%s. "
                            "Queue the next GPU work before that work, move it off the "
                            "launching thread or overlap it with the GPU (asynchronous copies, "
                            "prefetching).", km, fn != NULL ? " (most in " : "",
                            fn != NULL ? fn : "", fn != NULL ? ")" : "");
  if (kernel_median > 0)
    return g_strdup_printf ("The launching thread is busy and the GPU waits between short kernels "
                            "(median %s): CPU overhead between kernels (Python, framework, launch "
                            "calls). Fuse small kernels, use CUDA Graphs or torch.compile, larger "
                            "batches, and move CPU work out of the loop.", km);
  return g_strdup_printf ("The launching thread is busy%s%s and queues no GPU work meanwhile: "
                          "move that work out of the loop or overlap it with queued GPU work.",
                          fn != NULL ? " in " : "", fn != NULL ? fn : "");
}

/* cpu_bound's data-loader case with worker processes: the launching thread waits (in `top` for
 * `top_t` when an OS runtime call says where) while its workers keep their cores busy. */
static void
loader_workers_text (SlAnalyzeCtx    *ctx,
                     guint            gpu,
                     SlFinding       *f,
                     const char      *head,
                     SlTime           a,
                     SlTime           b,
                     guint32          top,
                     SlTime           top_t,
                     const SlWorkers *workers)
{
  g_autofree char *who = _sl_thread_label (ctx, ctx->gpus[gpu].launcher);
  g_autofree char *text = _sl_workers_text (ctx, workers);
  g_autofree char *verdict = _sl_workers_verdict (workers);
  g_autofree char *waits = NULL;
  double len = (double) MAX (b - a, 1);
  SlStateTimes st;

  _sl_thread_states (ctx, ctx->gpus[gpu].launcher, a, b, &st);
  if (top_t > 0)
    waits = g_strdup_printf ("waits in %s (%.0f%%)", sl_trace_str (ctx->trace, top),
                             100.0 * top_t / len);
  else if (st.any)
    waits = g_strdup_printf ("is not running %.0f%% of the time",
                             100.0 * (double) (b - a - st.time[SL_STATE_RUNNING]) / len);
  else
    waits = g_strdup ("waits");
  f->summary = g_strdup_printf ("%s %s and %s: the data loader is the bottleneck (%s)", head,
                                waits, text, verdict);
  f->cause = g_strdup_printf ("GPU %u waits while %s waits for the data loader's workers: the data "
                              "loader is the bottleneck (%s)", _sl_gpu_id (ctx, gpu), who,
                              _sl_workers_saturated (workers) ? "cores saturated" : "cores idle");
  f->advice = _sl_workers_advice (workers);
  _sl_evidence_wait_backtrace (ctx, f, ctx->gpus[gpu].launcher, a, b);
  for (guint k = 0; k < ctx->gpus[gpu].worker_threads->len; k++)
    if (ctx->tl[g_array_index (ctx->gpus[gpu].worker_threads, guint, k)].sched >= 0)
      _sl_finding_add_thread_lanes (ctx, f, (gint) g_array_index (ctx->gpus[gpu].worker_threads,
                                                                  guint, k));
}

static void
bound_finding (SlAnalyzeCtx      *ctx,
               guint              gpu,
               const Evidence    *evidence,
               SlTime             kernel_median,
               Verdict            v,
               SlTime             a,
               SlTime             b,
               const WindowStats *sum,
               SlTime             given)
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
  const char *top_name;
  SlFinding *f;
  SlWorkers workers;

  f = _sl_finding_new (ctx, a, b, 0);
  /* the GPU's waiting is idle time, given from the account (what the gaps and the calls before
   * did not take); a saturated GPU puts its kernels' time at stake */
  if (v == VERDICT_GPU)
    {
      f->cost = sum->busy_kernels;
      _sl_evidence_duration (f, "kernel_ns", "GPU running kernels", sum->busy_kernels);
    }
  else
    {
      _sl_finding_set_attributed (f, given);
      /* the rest of its idle time is in findings that explain it more closely */
      _sl_evidence_duration (f, "idle_elsewhere_ns", "Its idle time in other findings (gaps, "
                             "sync calls, copies, queued work)",
                             MAX ((b - a) - sum->busy_gpu - given, 0));
    }
  f->gpu = (gint) _sl_gpu_id (ctx, gpu);
  f->thread = gi->launcher;
  f->global_pid = gi->global_pid;
  _sl_evidence_share (f, "gpu_busy_share", "GPU busy", (double) sum->busy_gpu / len);
  _sl_evidence_share (f, "host_busy_share", "Launching thread busy", (double) sum->host_busy / len);
  _sl_evidence_share (f, "host_sync_share", "Launching thread in sync calls",
                          (double) sum->blocked_sync / len);
  _sl_evidence_share (f, "host_osrt_share", "Launching thread in OS runtime calls",
                          (double) sum->osrt / len);
  if (v == VERDICT_UNKNOWN)
    _sl_evidence_share (f, "host_untraced_share", "Launching thread in no traced call",
                        (double) sum->untraced / len);
  _sl_evidence (f, "cpu_evidence", "CPU evidence", (evidence->samples ? 1 : 0)
                + (evidence->osrt ? 2 : 0), "%s", evidence->samples && evidence->osrt
                  ? "CPU samples, OS runtime calls, CUDA calls"
                  : evidence->samples ? "CPU samples, CUDA calls"
                  : evidence->osrt ? "OS runtime calls, CUDA calls" : "CUDA calls only");
  _sl_evidence_duration (f, "duration_ns", "Stretch", b - a);
  _sl_evidence_states (ctx, f, gi->launcher, a, b);
  _sl_workers (ctx, gpu, a, b, TRUE, &workers);
  _sl_evidence_workers (ctx, f, &workers);
  _sl_finding_add_gpu_lanes (ctx, f, gpu);
  _sl_finding_add_thread_lanes (ctx, f, gi->launcher);

  /* the call the launching thread spends most time in: OS runtime when it waits for a loader,
   * a wait when the GPU is the bottleneck, else a call that is not a wait */
  _sl_overlap_sum (ctx, _sl_lane_or_null (ctx, v == VERDICT_LOADER ? tl->osrt : tl->api), a, b,
                   by_name, v == VERDICT_GPU ? SL_CALLS_WAITS : SL_CALLS_WORK, NULL);
  top = _sl_top_name (by_name, &top_t);
  /* named as every pane names it: a CUDA call without nsys's "_vNNNN" */
  top_name = sl_trace_display_name (ctx->trace, v == VERDICT_LOADER ? SL_LANE_OSRT
                                                                    : SL_LANE_CUDA_API, top);
  head = g_strdup_printf ("GPU %u busy %.0f%% for %s while %s", _sl_gpu_id (ctx, gpu),
                          100.0 * sum->busy_gpu / len, d, who);
  switch (v)
    {
    case VERDICT_LOADER:
      if (_sl_workers_busy (&workers))
        {
          loader_workers_text (ctx, gpu, f, head, a, b, top, top_t, &workers);
          break;
        }
      {
        g_autofree char *other = _sl_thread_label (ctx, sum->other);
        _sl_evidence_share (f, "others_busy_share", other, (double) sum->others / len);
        _sl_finding_add_thread_lanes (ctx, f, sum->other);
        f->cause = g_strdup_printf ("GPU %u waits while %s waits in %s and %s works: the data "
                                    "loader is the bottleneck", _sl_gpu_id (ctx, gpu), who,
                                    top_name, other);
        f->summary = g_strdup_printf ("%s waits in %s (%.0f%%) and %s works (%.0f%%): the data "
                                      "loader is the bottleneck", head,
                                      top_name, 100.0 * top_t / len, other,
                                      100.0 * sum->others / len);
        f->advice = g_strdup ("The training loop waits for its input: the data loader cannot keep "
                              "up. Use more DataLoader workers (num_workers), pin_memory=True and "
                              "prefetching, decode on the GPU, or cache preprocessed data.");
        break;
      }
    case VERDICT_LAUNCH:
      {
        g_autofree char *where = NULL;
        guint32 sym = SL_NO_STR, mod = SL_NO_STR;
        gsize n_top = evidence->samples
                        ? _sl_samples_top (ctx, _sl_lane_or_null (ctx, tl->samples), a, b, &sym,
                                           &mod)
                        : 0;
        /* the function most samples are in: its Python line where the stack has one */
        g_autofree char *sampled = n_top > 0 ? _sl_sample_name (ctx, sym, mod) : NULL;
        /* the busy work: the CUDA call that takes most of it, else what the samples say */
        if (top != SL_NO_STR && top_t * 2 >= sum->host_busy)
          where = g_strdup_printf ("most in %s", top_name);
        else if (n_top > 0)
          where = g_strdup_printf ("most in %s, %" G_GSIZE_FORMAT " CPU samples", sampled, n_top);
        else
          where = g_strdup ("outside CUDA and OS runtime calls");
        if (kernel_median > 0)
          _sl_evidence_duration (f, "kernel_median_ns", "Median kernel on the GPU", kernel_median);
        f->summary = g_strdup_printf ("%s is busy %.0f%% (%s): the CPU cannot feed the GPU",
                                      head, 100.0 * sum->host_busy / len, where);
        f->cause = g_strdup_printf ("GPU %u waits while %s is busy (%s): the CPU cannot feed the "
                                    "GPU", _sl_gpu_id (ctx, gpu), who,
                                    top != SL_NO_STR && top_t * 2 >= sum->host_busy
                                      ? top_name
                                    : sampled != NULL ? sampled
                                                      : "outside CUDA and OS runtime calls");
        {
          gboolean call = top != SL_NO_STR && top_t * 2 >= sum->host_busy;
          Longest l = { top, 0, 0 };
          if (call)
            sl_lane_overlap (_sl_lane_or_null (ctx, tl->api), a, b, longest_cb, &l);
          f->advice = launch_advice (call ? top_name : sampled,
                                     call ? top_t : sum->host_busy, &l, sum->host_busy,
                                     kernel_median);
        }
        break;
      }
    case VERDICT_UNKNOWN:
      f->cause = g_strdup_printf ("GPU %u waits while %s is in no traced call, and the trace has "
                                  "no CPU samples or OS runtime calls", _sl_gpu_id (ctx, gpu),
                                  who);
      f->summary = g_strdup_printf ("%s is in no traced call %.0f%% of the time: without CPU "
                                    "samples or OS runtime calls in the trace, whether it "
                                    "computes or waits is unknown", head,
                                    100.0 * sum->untraced / len);
      f->advice = g_strdup ("The GPU waits and the trace cannot say why: record CPU samples and "
                            "OS runtime calls as well (nsys profile -t cuda,osrt "
                            "--sample=process-tree) to see whether the launching thread computes, "
                            "blocks in the OS or waits for other threads.");
      break;
    case VERDICT_GPU:
      f->cause = g_strdup_printf ("GPU %u saturated while %s waits for it in %s: the GPU is the "
                                  "bottleneck", _sl_gpu_id (ctx, gpu), who,
                                  top_name);
      f->summary = g_strdup_printf ("%s waits for it %.0f%% of the time (%s): the GPU is the "
                                    "bottleneck", head, 100.0 * sum->blocked_sync / len,
                                    top_name);
      f->advice = g_strdup ("The GPU is saturated running kernels and the host waits for it: "
                            "speed up the kernels that take the most time (see `sightline "
                            "stats`, the low_occupancy findings), use lower precision or tensor "
                            "cores, or overlap the host's waiting with useful work.");
      break;
    case VERDICT_NONE:
      break;
    }
  /* worker processes that take every core the machine has slow the launching thread too */
  if (v != VERDICT_LOADER && v != VERDICT_GPU && _sl_workers_point (&workers, FALSE))
    {
      g_autofree char *text = _sl_workers_text (ctx, &workers);
      g_autofree char *verdict = _sl_workers_verdict (&workers);
      g_autofree char *advice = _sl_workers_advice (&workers);
      g_autofree char *summary = f->summary, *cause = f->cause, *old_advice = f->advice;
      f->summary = g_strdup_printf ("%s; %s (%s)", summary, text, verdict);
      f->cause = g_strdup_printf ("%s; the data loader's workers take every core", cause);
      f->advice = g_strdup_printf ("%s %s", old_advice, advice);
    }
}

/* The median duration of a GPU's kernels in the window (a sample of up to ~4096 a lane), each
 * launched on its own: a graph's nodes are one launch's work, not launches to fuse. */
static SlTime
kernel_median (SlAnalyzeCtx *ctx,
               guint         gpu)
{
  g_autoptr (GArray) d = g_array_new (FALSE, FALSE, sizeof (SlTime));
  SlGpuInfo *gi = &ctx->gpus[gpu];

  for (guint k = 0; k < gi->kernels->len; k++)
    {
      const SlLane *lane = sl_trace_get_lane (ctx->trace, g_array_index (gi->kernels, guint32, k));
      gsize e0, e1, step;
      _sl_analyze_lane_window (ctx, lane, &e0, &e1);
      step = MAX ((e1 - e0) / 4096, 1);
      for (gsize e = e0; e < e1; e += step)
        {
          SlTime len = lane->events[e].end - lane->events[e].start;
          if (_sl_kernel_is_graph_node (ctx->trace, lane, &lane->events[e]))
            continue;
          g_array_append_val (d, len);
        }
    }
  return _sl_median_of (d);
}

typedef struct
{
  Verdict     v;
  SlTime      a, b;
  WindowStats sum;
  SlTime      given;
} Run;

/* The figures of a GPU's n windows of width w from its first work on, made once for cpu_bound and
 * gpu_bound (both judge the same windows unless their `window` differs). */
static const WindowStats *
bound_windows (SlAnalyzeCtx   *ctx,
               guint           gpu,
               const Evidence *evidence,
               SlTime          w,
               guint           n)
{
  SlGpuInfo *gi = &ctx->gpus[gpu];
  WindowStats *stats;

  if (gi->bound_windows != NULL && gi->bound_window == w)
    return gi->bound_windows;
  g_free (gi->bound_windows);
  stats = g_new0 (WindowStats, n);
  for (guint i = 0; i < n; i++)
    {
      SlTime a = gi->first + (SlTime) i * w, b = MIN (a + w, gi->last);
      if (b > a)
        window_stats (ctx, gpu, evidence, a, b, &stats[i]);
    }
  gi->bound_windows = stats;
  gi->bound_window = w;
  return stats;
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
      Evidence evidence = { FALSE, FALSE };
      SlTime km;
      guint n;
      const WindowStats *stats;
      g_autoptr (GArray) runs = g_array_new (FALSE, FALSE, sizeof (Run));

      if (span <= 0 || gi->launcher < 0)
        {
          if (span > 0)
            _sl_analyze_note (ctx, "GPU %u: no launching thread known",
                              _sl_gpu_id (ctx, g));
          continue;
        }
      /* the evidence of the launching thread's CPU time: its samples; OS runtime calls traced
       * in the process */
      evidence.samples = ctx->tl[gi->launcher].samples >= 0
                         && ctx->tl[gi->launcher].sample_period > 0;
      for (guint k = 0; k < gi->threads->len && !evidence.osrt; k++)
        evidence.osrt = ctx->tl[g_array_index (gi->threads, guint, k)].osrt >= 0;
      km = cpu ? kernel_median (ctx, g) : 0;
      /* at most 100 000 windows */
      if (span / w > 100000)
        w = span / 100000 + 1;
      n = (guint) ((span + w - 1) / w);
      stats = bound_windows (ctx, g, &evidence, w, n);
      for (guint i = 0; i <= n; i++)
        {
          SlTime a = gi->first + (SlTime) i * w, b = MIN (a + w, gi->last);
          WindowStats ws = { 0 };
          Verdict v = VERDICT_NONE;

          if (i < n && b > a)
            {
              ws = stats[i];
              v = judge (&ws, cpu, threshold, share);
            }
          if (v != run && run != VERDICT_NONE)
            {
              Run r = { run, run_start, MIN (a, gi->last), sum, 0 };
              g_array_append_val (runs, r);
            }
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
              sum.busy_kernels = _sl_time_add (sum.busy_kernels, ws.busy_kernels);
              sum.blocked_sync = _sl_time_add (sum.blocked_sync, ws.blocked_sync);
              sum.osrt = _sl_time_add (sum.osrt, ws.osrt);
              sum.host_busy = _sl_time_add (sum.host_busy, ws.host_busy);
              sum.untraced = _sl_time_add (sum.untraced, ws.untraced);
              if (ws.other >= 0 && (sum.other < 0 || ws.other == sum.other))
                {
                  sum.others = _sl_time_add (sum.others, ws.others);
                  sum.other = ws.other;
                }
            }
        }
      /* the CPU-bound stretches' idle time, less what the findings before took (gaps, sync calls,
       * blocking copies, queued work) */
      if (cpu && runs->len > 0)
        {
          g_autoptr (GArray) requests = g_array_new (FALSE, FALSE, sizeof (SlIdleRequest));
          for (guint r = 0; r < runs->len; r++)
            {
              Run *x = &g_array_index (runs, Run, r);
              SlIdleRequest q = { x->a, x->b, &x->given };
              g_array_append_val (requests, q);
            }
          _sl_idle_attribute (ctx, g, SL_IDLE_ALL, requests);
        }
      for (guint r = 0; r < runs->len; r++)
        {
          Run *x = &g_array_index (runs, Run, r);
          bound_finding (ctx, g, &evidence, km, x->v, x->a, x->b, &x->sum, x->given);
        }
      {
        g_autofree char *who = _sl_thread_label (ctx, gi->launcher), *wd = sl_format_duration (w);
        _sl_analyze_note (ctx, "GPU %u: %u windows of %s, launching thread %s (CPU evidence: %s)",
                          _sl_gpu_id (ctx, g), n, wd, who,
                          evidence.samples ? (evidence.osrt ? "samples, OS runtime, CUDA calls"
                                                            : "samples, CUDA calls")
                          : evidence.osrt ? "OS runtime, CUDA calls" : "CUDA calls only");
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

/* --- copy_bound ------------------------------------------------------------------------------- */

/* Copies of one kind (ENUM_CUDA_MEMCPY_OPER), pinned or pageable, in a stretch. */
typedef struct
{
  guint64 bytes;
  SlTime  time;     /* summed durations of the copies */
  gsize   count;
} CopyTally;

#define N_COPY_KINDS 16

typedef struct
{
  SlAnalyzeCtx *ctx;
  CopyTally     tally[N_COPY_KINDS][2];   /* [kind][pageable] */
  SlFinding    *f;
} CopyScan;

static gboolean
copy_tally_cb (const SlLane *lane,
               gsize         index,
               gpointer      user_data)
{
  CopyScan *c = user_data;
  const SlEvent *ev = &lane->events[index];
  const SlCopyInfo *info = sl_trace_get_copy_info (c->ctx->trace, ev->aux);
  CopyTally *t;

  if (info == NULL)
    return TRUE;
  /* [kind][pageable] */
  t = &c->tally[MIN (info->copy_kind, N_COPY_KINDS - 1)]
               [info->src_kind == 0 || info->dst_kind == 0];
  t->bytes = t->bytes + info->bytes < t->bytes ? G_MAXUINT64 : t->bytes + info->bytes;
  t->time = _sl_time_add (t->time, ev->end - ev->start);
  t->count++;
  if (c->f != NULL && c->f->events->len < 16)
    _sl_finding_add_event (c->ctx, c->f, lane->index, index);
  return TRUE;
}

/* The host link's peak in GB/s each way, estimated from the GPU's generation (PCIe x16); 0 when
 * unknown.  An estimate: the trace does not say how the GPU is attached. */
static double
link_gbps (const SlGpu  *gpu,
           const char  **name)
{
  gint cc = gpu->limits.cc_major;

  *name = cc >= 9 ? "PCIe 5.0 x16" : cc == 8 ? "PCIe 4.0 x16" : cc >= 6 ? "PCIe 3.0 x16" : NULL;
  return cc >= 9 ? 64.0 : cc == 8 ? 32.0 : cc >= 6 ? 16.0 : 0;
}

/* Time of [a, b) in unified-memory migrations (copies of the unified kinds) on GPU `gpu`,
 * summed per copy: the um_migrations rule's subject, not a copy-bound stretch's. */
static gboolean
migration_cb (const SlLane *lane,
              gsize         index,
              gpointer      user_data)
{
  CopyScan *c = user_data;
  const SlEvent *ev = &lane->events[index];
  const SlCopyInfo *info = sl_trace_get_copy_info (c->ctx->trace, ev->aux);

  if (info != NULL && SL_COPY_KIND_IS_UNIFIED (info->copy_kind))
    c->tally[0][0].time = _sl_time_add (c->tally[0][0].time, ev->end - ev->start);
  return TRUE;
}

static SlTime
migration_time (SlAnalyzeCtx *ctx,
                guint         gpu,
                SlTime        a,
                SlTime        b)
{
  const SlGpuInfo *gi = &ctx->gpus[gpu];
  CopyScan scan = { ctx, { { { 0 } } }, NULL };

  for (guint k = 0; k < gi->ops->len; k++)
    {
      const SlLane *lane = sl_trace_get_lane (ctx->trace, g_array_index (gi->ops, guint32, k));
      if (lane->kind == SL_LANE_MEMCPY)
        sl_lane_overlap (lane, a, b, migration_cb, &scan);
    }
  return scan.tally[0][0].time;
}

static void
copy_finding (SlAnalyzeCtx *ctx,
              guint         gpu,
              SlTime        a,
              SlTime        b,
              SlTime        busy,
              SlTime        kernels)
{
  SlGpuInfo *gi = &ctx->gpus[gpu];
  SlTime copying = MAX (busy - kernels, 0), len = MAX (b - a, 1);
  SlFinding *f = _sl_finding_new (ctx, a, b, copying);
  CopyScan scan = { ctx, { { { 0 } } }, f };
  const char *link_name = NULL;
  double link = link_gbps (sl_trace_get_gpu (ctx->trace, gpu), &link_name);
  guint top_kind = 0, top_pageable = 0;
  guint64 all_bytes = 0, pageable_bytes = 0;
  g_autofree char *d = sl_format_duration (b - a), *ct = sl_format_duration (copying);
  g_autofree char *top_text = NULL;
  double top_gbps;

  for (guint k = 0; k < gi->ops->len; k++)
    {
      const SlLane *lane = sl_trace_get_lane (ctx->trace, g_array_index (gi->ops, guint32, k));
      if (lane->kind == SL_LANE_MEMCPY)
        sl_lane_overlap (lane, a, b, copy_tally_cb, &scan);
    }
  for (guint k = 0; k < N_COPY_KINDS; k++)
    for (guint p = 0; p < 2; p++)
      {
        all_bytes += scan.tally[k][p].bytes;
        if (p == 1)
          pageable_bytes += scan.tally[k][p].bytes;
        if (scan.tally[k][p].time > scan.tally[top_kind][top_pageable].time)
          {
            top_kind = k;
            top_pageable = p;
          }
      }
  f->gpu = (gint) _sl_gpu_id (ctx, gpu);
  f->global_pid = gi->global_pid;
  _sl_evidence_share (f, "busy_share", "GPU busy", (double) busy / (double) len);
  _sl_evidence_share (f, "copies_share", "Busy copying, no kernel",
                      (double) copying / (double) MAX (busy, 1));
  _sl_evidence_share (f, "kernels_share", "Busy running kernels",
                      (double) kernels / (double) MAX (busy, 1));
  _sl_evidence_duration (f, "copy_ns", "Copying, no kernel running", copying);
  for (guint k = 0; k < N_COPY_KINDS; k++)
    for (guint p = 0; p < 2; p++)
      {
        const CopyTally *t = &scan.tally[k][p];
        g_autofree char *key = NULL, *label = NULL, *bytes = NULL, *time = NULL;
        double gbps;
        /* a few bytes of flags or scalars say nothing about bandwidth */
        if (t->count == 0 || t->bytes < 1000000)
          continue;
        gbps = (double) t->bytes / (double) MAX (t->time, 1);
        key = g_strdup_printf ("copy_%u_%s_gbps", k, p ? "pageable" : "pinned");
        label = g_strdup_printf ("%s, %s", sl_trace_enum_label (ctx->trace, SL_ENUM_MEMCPY_OPER, k),
                                 p ? "pageable" : "not pageable");
        bytes = sl_format_bytes (t->bytes);
        time = sl_format_duration (t->time);
        _sl_evidence (f, key, label, gbps, "%" G_GSIZE_FORMAT " copies, %s in %s: %.1f GB/s",
                      t->count, bytes, time, gbps);
      }
  if (link > 0)
    _sl_evidence (f, "link_gbps", "Host link (estimate)", link, "~%.0f GB/s each way (%s, from "
                  "the GPU's compute capability)", link, link_name);
  {
    const CopyTally *t = &scan.tally[top_kind][top_pageable];
    g_autofree char *bytes = sl_format_bytes (t->bytes);
    top_gbps = (double) t->bytes / (double) MAX (t->time, 1);
    top_text = g_strdup_printf ("%s %s copies, %s at %.1f GB/s",
                                sl_trace_enum_label (ctx->trace, SL_ENUM_MEMCPY_OPER, top_kind),
                                top_pageable ? "pageable" : "pinned", bytes, top_gbps);
  }
  f->summary = g_strdup_printf ("GPU %u copy-bound: busy %.0f%% for %s, copying memory %s of it "
                                "with no kernel running (most in %s)", _sl_gpu_id (ctx, gpu),
                                100.0 * (double) busy / (double) len, d, ct, top_text);
  f->cause = g_strdup_printf ("GPU %u copy-bound, most in %s %s copies", _sl_gpu_id (ctx, gpu),
                              sl_trace_enum_label (ctx->trace, SL_ENUM_MEMCPY_OPER, top_kind),
                              top_pageable ? "pageable" : "pinned");
  if (pageable_bytes * 2 >= all_bytes && all_bytes > 0)
    f->advice = g_strdup ("Most bytes are copied from or to pageable memory, which the driver "
                          "stages through a pinned buffer at a fraction of the link's speed: pin "
                          "the host buffers (cudaHostAlloc / cudaHostRegister; pin_memory=True in "
                          "PyTorch) and copy asynchronously, overlapped with kernels on another "
                          "stream.");
  else if ((top_kind == 1 || top_kind == 2) && link > 0 && top_gbps >= 0.5 * link)
    f->advice = g_strdup_printf ("The copies already run near the link's speed (%.1f of ~%.0f "
                                 "GB/s): the GPU waits for data, not for a slow copy. Copy less "
                                 "(keep data on the GPU between steps, copy once, send smaller "
                                 "types), or overlap the copies with kernels on other streams.",
                                 top_gbps, link);
  else
    f->advice = g_strdup ("The GPU spends its busy time copying, not computing, and below the "
                          "link's speed: batch many small copies into larger ones, keep data on "
                          "the GPU between steps, and overlap copies with kernels on other "
                          "streams (cudaMemcpyAsync from pinned memory).");
  _sl_finding_add_gpu_lanes (ctx, f, gpu);
}

void
_sl_rule_copy_bound (SlAnalyzeCtx *ctx)
{
  SlTime window = MAX ((SlTime) _sl_analyze_param (ctx, "window"), 1 * SL_US);
  double threshold = _sl_analyze_param (ctx, "threshold");
  double share = _sl_analyze_param (ctx, "copies");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      SlTime span = gi->last - gi->first, w = window, run_start = 0, run_busy = 0, run_kern = 0;
      gboolean in_run = FALSE;
      guint n, found = 0;

      if (span <= 0)
        continue;
      if (span / w > 100000)
        w = span / 100000 + 1;
      n = (guint) ((span + w - 1) / w);
      for (guint i = 0; i <= n; i++)
        {
          SlTime a = gi->first + (SlTime) i * w, b = MIN (a + w, gi->last);
          SlTime busy = 0, kern = 0;
          gboolean is = FALSE;
          if (i < n && b > a)
            {
              busy = sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_ANY, a, b);
              kern = sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_KERNELS, a, b);
              is = (double) busy >= threshold * (double) (b - a)
                   && (double) (busy - kern) >= share * (double) busy;
            }
          if (!is && in_run)
            {
              /* a stretch of unified-memory migrations mostly is um_migrations' to tell */
              SlTime end = MIN (a, gi->last);
              if (2 * migration_time (ctx, g, run_start, end) < run_busy - run_kern)
                {
                  copy_finding (ctx, g, run_start, end, run_busy, run_kern);
                  found++;
                }
              in_run = FALSE;
            }
          if (is && !in_run)
            {
              in_run = TRUE;
              run_start = a;
              run_busy = run_kern = 0;
            }
          if (is)
            {
              run_busy = _sl_time_add (run_busy, busy);
              run_kern = _sl_time_add (run_kern, kern);
            }
        }
      {
        SlTime any = sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_ANY, gi->first, gi->last);
        SlTime kern = sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_KERNELS, gi->first,
                                              gi->last);
        _sl_analyze_note (ctx, "GPU %u: copies %.1f%% of its busy time (no kernel running); %u "
                          "copy-bound stretches", _sl_gpu_id (ctx, g),
                          100.0 * (double) (any - kern) / (double) MAX (any, 1), found);
      }
    }
}
