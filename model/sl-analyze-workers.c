/* sl-analyze-workers.c: the DataLoader case for cpu_bound and gpu_gaps: the worker processes of a
 * GPU's process (its descendants without GPU work: DataLoader workers, multiprocessing children),
 * how many cores they kept busy in a window (scheduling data, or states derived from samples),
 * against the machine's cores, which function their samples were in, and the advice that fits:
 * more workers while cores idle, a cheaper loader when the machine is saturated. */
#include "sl-analyze-private.h"

#include <string.h>

#include "sl-format.h"

/* A worker "keeps its core busy" from this share of it on; the machine is saturated from this
 * share of its cores. */
#define WORKERS_BUSY 0.75
#define SATURATED    0.90
/* Parent links followed at most (a hostile file may loop them). */
#define MAX_DEPTH    16

void
_sl_analyze_find_workers (SlAnalyzeCtx *ctx)
{
  SlTrace *trace = ctx->trace;
  guint n_proc = sl_trace_get_n_processes (trace);
  gboolean any_parent = FALSE;

  for (guint p = 0; p < n_proc && !any_parent; p++)
    any_parent = sl_trace_get_process (trace, p)->parent_pid != 0;
  if (!any_parent)
    return;   /* nsys exports: no parents, no workers known */

  g_autoptr (GHashTable) by_pid = g_hash_table_new (NULL, NULL);
  g_autoptr (GHashTable) gpu_pids = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint p = 0; p < n_proc; p++)
    g_hash_table_insert (by_pid, GUINT_TO_POINTER (sl_trace_get_process (trace, p)->pid),
                         GUINT_TO_POINTER (p + 1));
  for (guint g = 0; g < ctx->n_gpus; g++)
    for (guint k = 0; k < ctx->gpus[g].ops->len; k++)
      {
        guint32 li = g_array_index (ctx->gpus[g].ops, guint32, k);
        const SlLane *lane = sl_trace_get_lane (trace, li);
        g_hash_table_add (gpu_pids, (gpointer) &lane->global_pid);
      }

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      guint32 main_pid = 0;

      for (guint p = 0; p < n_proc && main_pid == 0; p++)
        if (sl_trace_get_process (trace, p)->global_pid == gi->global_pid)
          main_pid = sl_trace_get_process (trace, p)->pid;
      if (main_pid == 0)
        continue;
      for (guint p = 0; p < n_proc; p++)
        {
          const SlProcess *proc = sl_trace_get_process (trace, p);
          const SlProcess *cur = proc;
          gboolean below = FALSE;

          if (proc->pid == main_pid || g_hash_table_contains (gpu_pids, &proc->global_pid))
            continue;
          for (guint depth = 0; depth < MAX_DEPTH && cur->parent_pid != 0 && !below; depth++)
            {
              gpointer key = GUINT_TO_POINTER (cur->parent_pid);
              guint up = GPOINTER_TO_UINT (g_hash_table_lookup (by_pid, key));
              below = cur->parent_pid == main_pid;
              if (up == 0)
                break;
              cur = sl_trace_get_process (trace, up - 1);
            }
          if (below)
            g_array_append_val (gi->workers, p);
        }
      for (guint t = 0; t < ctx->n_threads && gi->workers->len > 0; t++)
        {
          guint32 process = sl_trace_get_thread (trace, t)->process;
          for (guint k = 0; k < gi->workers->len; k++)
            if (g_array_index (gi->workers, guint, k) == process)
              {
                g_array_append_val (gi->worker_threads, t);
                break;
              }
        }
    }
}

void
_sl_workers (SlAnalyzeCtx *ctx,
             guint         gpu,
             SlTime        a,
             SlTime        b,
             gboolean      samples,
             SlWorkers    *out)
{
  const SlGpuInfo *gi = &ctx->gpus[gpu];
  gboolean all_derived = TRUE;

  memset (out, 0, sizeof *out);
  out->gpu = gpu;
  out->top_symbol = out->top_module = SL_NO_STR;
  if (gi->workers->len == 0 || b <= a)
    return;
  out->n = gi->workers->len;
  if (ctx->cpu_util == NULL)
    ctx->cpu_util = sl_cpu_util_get (ctx->trace);   /* the trace's: the viewer's, when it has one */
  out->cores = sl_cpu_util_machine_cores (ctx->cpu_util, &out->cores_at_least, &out->cores_from);
  out->usable = out->cores > 0 ? MIN (out->n, out->cores) : out->n;

  for (guint k = 0; k < gi->workers->len; k++)
    {
      gint i = sl_cpu_util_find_process (ctx->cpu_util, g_array_index (gi->workers, guint, k));
      if (i >= 0)
        out->busy += sl_cpu_util_busy_cores (ctx->cpu_util, (guint) i, a, b);
    }
  for (guint i = 0; i < sl_cpu_util_get_n_processes (ctx->cpu_util); i++)
    out->all_busy += sl_cpu_util_busy_cores (ctx->cpu_util, i, a, b);
  for (guint k = 0; k < gi->worker_threads->len; k++)
    {
      const SlLane *states = _sl_lane_or_null (ctx, ctx->tl[g_array_index (gi->worker_threads,
                                                                           guint, k)].sched);
      if (states == NULL)
        continue;
      out->evidence = TRUE;
      all_derived &= (states->events[0].aux & SL_STATE_DERIVED) != 0;
    }
  out->derived = out->evidence && all_derived;
  if (!samples)
    return;

  SlSampleTally tally;
  _sl_sample_tally_init (&tally);
  for (guint k = 0; k < gi->worker_threads->len; k++)
    _sl_samples_tally (ctx, _sl_lane_or_null (ctx, ctx->tl[g_array_index (gi->worker_threads,
                                                                          guint, k)].samples),
                       a, b, &tally);
  out->samples = tally.total;
  out->top_n = tally.best;
  out->top_symbol = tally.symbol;
  out->top_module = tally.module;
  _sl_sample_tally_clear (&tally);
}

gboolean
_sl_workers_busy (const SlWorkers *w)
{
  return w->n > 0 && w->evidence && w->usable > 0 && w->busy >= WORKERS_BUSY * w->usable;
}

gboolean
_sl_workers_saturated (const SlWorkers *w)
{
  return w->evidence && w->cores > 0 && w->all_busy >= SATURATED * w->cores;
}

gboolean
_sl_workers_point (const SlWorkers *w,
                   gboolean         main_waits)
{
  /* the main thread waits for them while they keep their cores busy, or they keep theirs busy
   * and the machine has no core left */
  return _sl_workers_busy (w) && (main_waits || _sl_workers_saturated (w));
}

void
_sl_evidence_workers (SlAnalyzeCtx    *ctx,
                      SlFinding       *f,
                      const SlWorkers *w)
{
  const SlGpuInfo *gi = &ctx->gpus[w->gpu];

  if (w->n == 0)
    return;
  /* the processes: the first one's name and the pids (8 at most) */
  {
    g_autoptr (GString) who = g_string_new (NULL);
    for (guint k = 0; k < gi->workers->len && k < 8; k++)
      {
        const SlProcess *p = sl_trace_get_process (ctx->trace, g_array_index (gi->workers, guint,
                                                                              k));
        if (k == 0)
          g_string_append_printf (who, "%s: ", p->name != SL_NO_STR
                                                 ? sl_trace_str (ctx->trace, p->name) : "process");
        g_string_append_printf (who, "%s%u", k > 0 ? ", " : "", p->pid);
      }
    if (gi->workers->len > 8)
      g_string_append_printf (who, " and %u more", gi->workers->len - 8);
    _sl_evidence (f, "workers", "Worker processes", w->n, "%u (child processes without GPU work; "
                  "%s)", w->n, who->str);
  }
  if (!w->evidence)
    {
      _sl_evidence (f, "workers_cpu", "Workers' CPU use", 0, "%s",
                    "no evidence: the trace has no scheduling data (SCHED_EVENTS) and no CPU "
                    "samples for the worker processes");
      return;
    }
  _sl_evidence (f, "workers_busy_cores", "Cores the workers kept busy", w->busy,
                "%.2f on average (%.0f%% of the %u they can use, one a worker), %s", w->busy,
                100.0 * w->busy / MAX (w->usable, 1), w->usable,
                w->derived ? "derived from CPU samples: no scheduling data"
                           : "from scheduling data (SCHED_EVENTS)");
  if (w->cores == 0)
    _sl_evidence (f, "machine_cores", "The machine's cores", 0, "unknown (%s)", w->cores_from);
  else
    _sl_evidence (f, "machine_cores", "The machine's cores", w->cores, "%s%u (%s)",
                  w->cores_at_least ? "at least " : "", w->cores, w->cores_from);
  _sl_evidence (f, "all_busy_cores", "Cores busy, all traced processes", w->all_busy, "%.2f%s",
                w->all_busy, _sl_workers_saturated (w) ? ": saturated" : "");
  if (w->top_n > 0)
    {
      g_autofree char *top = _sl_sample_name (ctx, w->top_symbol, w->top_module);
      _sl_evidence (f, "workers_top_share", "Workers' samples", (double) w->top_n / w->samples,
                    "%.0f%% of %" G_GSIZE_FORMAT " in %s", 100.0 * w->top_n / w->samples,
                    w->samples, top);
    }
}

char *
_sl_workers_text (SlAnalyzeCtx    *ctx,
                  const SlWorkers *w)
{
  g_autoptr (GString) s = g_string_new (NULL);

  g_string_append_printf (s, "%u worker process%s ran %.0f%% of %u core%s", w->n,
                          w->n == 1 ? "" : "es", 100.0 * w->busy / MAX (w->usable, 1), w->usable,
                          w->usable == 1 ? "" : "s");
  if (w->top_n > 0)
    {
      g_autofree char *top = _sl_sample_name (ctx, w->top_symbol, w->top_module);
      g_string_append_printf (s, ", %.0f%% of their samples in %s", 100.0 * w->top_n / w->samples,
                              top);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

char *
_sl_workers_verdict (const SlWorkers *w)
{
  if (w->cores == 0)
    return g_strdup ("the machine's core count is unknown");
  if (_sl_workers_saturated (w))
    return w->cores_at_least
      ? g_strdup_printf ("all %u cores the scheduling data shows are busy", w->cores)
      : g_strdup_printf ("the machine's %u cores are saturated", w->cores);
  return g_strdup_printf ("%.0f of the machine's %s%u cores idle", w->cores - w->all_busy,
                          w->cores_at_least ? "at least " : "", w->cores);
}

char *
_sl_workers_advice (const SlWorkers *w)
{
  if (w->cores == 0)
    return g_strdup_printf ("The %u DataLoader workers keep the cores they have busy and the "
                            "training loop waits for batches. Where the machine has idle cores, "
                            "use more workers (num_workers); where it has none, make each batch "
                            "cheaper: fewer or cheaper transforms, pin_memory=True for the "
                            "copies, prefetching.", w->n);
  if (_sl_workers_saturated (w))
    return g_strdup_printf ("%s %u cores are all busy, %.1f of them with the DataLoader's %u "
                            "workers: more workers cannot help%s. Make each batch cheaper: a "
                            "faster loader (fewer or cheaper transforms, decoding and augmenting "
                            "on the GPU, preprocessed and cached data), pin_memory=True so that "
                            "the copies to the GPU are asynchronous, and prefetching "
                            "(prefetch_factor, non_blocking copies).",
                            w->cores_at_least ? "The" : "The machine's", w->cores, w->busy, w->n,
                            w->cores_at_least ? " unless the machine has more cores than the "
                                                "scheduling data shows" : "");
  return g_strdup_printf ("The %u DataLoader workers keep the cores they have busy while %.0f of "
                          "the machine's %s%u cores idle: the loader needs more workers. Raise "
                          "num_workers (to about %u), with pin_memory=True and prefetching.",
                          w->n, w->cores - w->all_busy, w->cores_at_least ? "at least " : "",
                          w->cores, w->n + (guint) (w->cores - w->all_busy));
}

/* The longest OS runtime call with a backtrace overlapping [a, b). */
typedef struct
{
  SlTrace *trace;
  SlTime   a, b;
  gssize   best;
  SlTime   best_t;
} LongestWait;

static gboolean
longest_wait_cb (const SlLane *lane,
                 gsize         index,
                 gpointer      user_data)
{
  LongestWait *l = user_data;
  const SlEvent *ev = &lane->events[index];
  SlTime d = MIN (ev->end, l->b) - MAX (ev->start, l->a);
  const guint32 *symbols, *modules;

  if (d > l->best_t && sl_trace_get_osrt_callchain (l->trace, ev->corr, &symbols, &modules) > 0)
    {
      l->best = (gssize) index;
      l->best_t = d;
    }
  return TRUE;
}

void
_sl_evidence_wait_backtrace (SlAnalyzeCtx *ctx,
                             SlFinding    *f,
                             gint          thread,
                             SlTime        a,
                             SlTime        b)
{
  const SlLane *osrt = thread >= 0 ? _sl_lane_or_null (ctx, ctx->tl[thread].osrt) : NULL;
  LongestWait l = { ctx->trace, a, b, -1, 0 };
  const guint32 *symbols, *modules;
  g_autoptr (GString) text = g_string_new (NULL);

  if (osrt == NULL || b <= a)
    return;
  sl_lane_overlap (osrt, a, b, longest_wait_cb, &l);
  if (l.best < 0)
    return;
  const SlEvent *ev = &osrt->events[l.best];
  guint n = sl_trace_get_osrt_callchain (ctx->trace, ev->corr, &symbols, &modules);
  g_autofree char *d = sl_format_duration (ev->end - ev->start);
  g_string_append_printf (text, "%s, %s: ", sl_trace_str (ctx->trace, ev->name), d);
  for (guint k = 0; k < n && k < 8; k++)
    {
      g_autofree char *frame = _sl_sample_name (ctx, symbols[k], _sl_is_python_line (ctx,
                                                                                     modules[k])
                                                                   ? modules[k] : SL_NO_STR);
      g_string_append_printf (text, "%s%s", k > 0 ? " ← " : "", frame);
    }
  if (n > 8)
    g_string_append_printf (text, " ← … (%u frames)", n);
  _sl_finding_add_event (ctx, f, osrt->index, (gsize) l.best);
  _sl_evidence (f, "wait_backtrace", "Backtrace of its longest wait",
                (double) (ev->end - ev->start), "%s", text->str);
}
