/* sl-analyze-context.c: what the rules of `sightline analyze` share: the context of a run (the
 * lanes of each thread and GPU, who launches a GPU's work), findings and their evidence, sums of
 * time over lanes and unions of spans. */
#include "sl-analyze-private.h"

#include <string.h>

#include "sl-format.h"
#include "sl-sort.h"

static void
evidence_clear (gpointer data)
{
  SlEvidence *e = data;

  g_free (e->key);
  g_free (e->label);
  g_free (e->text);
}

double
_sl_analyze_param (SlAnalyzeCtx *ctx,
                   const char   *name)
{
  return sl_analyze_params_get (ctx->params, ctx->rule, name);
}

SlFinding *
_sl_finding_alloc (const SlRule *rule)
{
  SlFinding *f = g_new0 (SlFinding, 1);

  f->rule = rule;
  f->gpu = -1;
  f->thread = -1;
  f->source = -1;
  f->evidence = g_array_new (FALSE, TRUE, sizeof (SlEvidence));
  g_array_set_clear_func (f->evidence, evidence_clear);
  f->events = g_array_new (FALSE, FALSE, sizeof (SlFindingEvent));
  f->lanes = g_array_new (FALSE, FALSE, sizeof (guint32));
  return f;
}

SlFinding *
_sl_finding_new (SlAnalyzeCtx *ctx,
                 SlTime        start,
                 SlTime        end,
                 SlTime        cost)
{
  SlFinding *f = _sl_finding_alloc (ctx->rule);

  f->start = CLAMP (start, ctx->t0, ctx->t1);
  f->end = CLAMP (MAX (end, start), f->start, ctx->t1);
  f->cost = MAX (cost, 0);
  g_ptr_array_add (ctx->findings, f);
  return f;
}

void G_GNUC_PRINTF (5, 6)
_sl_evidence (SlFinding  *f,
              const char *key,
              const char *label,
              double      value,
              const char *fmt,
              ...)
{
  SlEvidence e = { g_strdup (key), g_strdup (label), NULL, value };
  va_list ap;

  va_start (ap, fmt);
  e.text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_array_append_val (f->evidence, e);
}

void
_sl_evidence_duration (SlFinding  *f,
                       const char *key,
                       const char *label,
                       SlTime      ns)
{
  g_autofree char *d = sl_format_duration (ns);

  _sl_evidence (f, key, label, (double) ns, "%s", d);
}

void
_sl_evidence_share (SlFinding  *f,
                    const char *key,
                    const char *label,
                    double      share)
{
  _sl_evidence (f, key, label, share, "%.1f%%", share * 100);
}

void
_sl_finding_add_lane (SlFinding *f,
                      guint32    lane)
{
  for (guint i = 0; i < f->lanes->len; i++)
    if (g_array_index (f->lanes, guint32, i) == lane)
      return;
  g_array_append_val (f->lanes, lane);
}

void
_sl_finding_add_event (SlAnalyzeCtx *ctx,
                       SlFinding    *f,
                       guint32       lane,
                       gsize         index)
{
  SlFindingEvent e = { lane, index };
  SlTime start = sl_trace_get_lane (ctx->trace, lane)->events[index].start;

  _sl_finding_add_lane (f, lane);
  /* a finding in a window lists only the events that start in it (a gap's host calls, a late
   * kernel's launch call may start before) */
  if (start >= ctx->t0 && start < ctx->t1 && f->events->len < SL_MAX_FINDING_EVENTS)
    g_array_append_val (f->events, e);
}

void
_sl_analyze_foreach_kernel (SlAnalyzeCtx *ctx,
                            guint         gpu,
                            SlKernelFunc  func,
                            gpointer      user_data)
{
  SlGpuInfo *gi = &ctx->gpus[gpu];

  for (guint k = 0; k < gi->kernels->len; k++)
    {
      const SlLane *lane = sl_trace_get_lane (ctx->trace,
                                              g_array_index (gi->kernels, guint32, k));
      gsize e0, e1;

      _sl_analyze_lane_window (ctx, lane, &e0, &e1);
      for (gsize e = e0; e < e1; e++)
        func (lane, e, user_data);
    }
}

void
_sl_analyze_lane_window (SlAnalyzeCtx *ctx,
                         const SlLane *lane,
                         gsize        *e0,
                         gsize        *e1)
{
  *e0 = ctx->t0 == G_MININT64 ? 0 : sl_lane_lower_bound (lane, ctx->t0);
  *e1 = ctx->t1 == G_MAXINT64 ? lane->n_events : sl_lane_lower_bound (lane, ctx->t1);
}

void G_GNUC_PRINTF (2, 3)
_sl_analyze_note (SlAnalyzeCtx *ctx,
                  const char   *fmt,
                  ...)
{
  va_list ap;

  if (ctx->note->len > 0)
    g_string_append (ctx->note, "; ");
  va_start (ap, fmt);
  g_string_append_vprintf (ctx->note, fmt, ap);
  va_end (ap);
}

/* --- what the rules share --------------------------------------------------------------------- */

SlApiClass
_sl_api_class (SlAnalyzeCtx *ctx,
               guint32       name)
{
  const char *s;
  SlApiClass c = SL_API_OTHER;

  if (name < ctx->n_strs && ctx->api_class[name] != 0)
    return ctx->api_class[name] - 1;
  s = sl_trace_str (ctx->trace, name);
  if (g_str_has_prefix (s, "cudaDeviceSynchronize") || g_str_has_prefix (s, "cudaStreamSynchronize")
      || g_str_has_prefix (s, "cuCtxSynchronize") || g_str_has_prefix (s, "cuStreamSynchronize")
      || g_str_has_prefix (s, "cudaThreadSynchronize"))
    c = SL_API_SYNC;
  else if (strstr (s, "Synchronize") != NULL)
    c = SL_API_SYNC_OTHER;
  else if (g_str_has_prefix (s, "cudaMemcpy") || g_str_has_prefix (s, "cuMemcpy"))
    c = strstr (s, "Async") != NULL ? SL_API_MEMCPY_ASYNC : SL_API_MEMCPY_SYNC;
  else if (g_str_has_prefix (s, "cudaMemset") || g_str_has_prefix (s, "cuMemset"))
    {
      g_autofree char *lower = g_ascii_strdown (s, -1);
      c = strstr (lower, "async") != NULL ? SL_API_MEMSET_ASYNC : SL_API_MEMSET_SYNC;
    }
  else if (_sl_api_name_launches (s))
    c = SL_API_LAUNCH;
  if (name < ctx->n_strs)
    ctx->api_class[name] = (guint8) (c + 1);
  return c;
}

gboolean
_sl_api_name_launches (const char *name)
{
  return strstr (name, "Launch") != NULL;
}

gboolean
_sl_api_name_launches_graph (const char *name)
{
  return strstr (name, "GraphLaunch") != NULL;
}

gboolean
_sl_kernel_is_graph_node (SlTrace       *trace,
                          const SlLane  *lane,
                          const SlEvent *ev)
{
  const SlKernelInfo *k;

  if (lane->kind != SL_LANE_KERNELS)
    return FALSE;
  k = sl_trace_get_kernel_info (trace, ev->aux);
  return k != NULL && k->graph_id != 0;
}

gboolean
_sl_api_name_sets_up (const char *name)
{
  return strstr (name, "lloc") != NULL || strstr (name, "Free") != NULL
         || strstr (name, "Library") != NULL || strstr (name, "Module") != NULL;
}

/* A call during which the host waits for the GPU. */
gboolean
_sl_api_class_blocks (SlApiClass c)
{
  return c == SL_API_SYNC || c == SL_API_SYNC_OTHER || c == SL_API_MEMCPY_SYNC
         || c == SL_API_MEMSET_SYNC;
}

gboolean
_sl_api_call_waits (SlAnalyzeCtx *ctx,
                    const SlLane *lane,
                    gsize         index)
{
  const SlEvent *ev = &lane->events[index];
  SlApiClass c = _sl_api_class (ctx, ev->name);
  const SlLane *op_lane;
  gsize op;
  const SlCopyInfo *info;

  if (_sl_api_class_blocks (c))
    return TRUE;
  if ((c != SL_API_MEMCPY_ASYNC && c != SL_API_MEMSET_ASYNC) || ev->link == SL_NO_LINK
      || !sl_trace_resolve (ctx->trace, ev->link, &op_lane, &op)
      || (op_lane->kind != SL_LANE_MEMCPY && op_lane->kind != SL_LANE_MEMSET))
    return FALSE;
  info = sl_trace_get_copy_info (ctx->trace, op_lane->events[op].aux);
  return info != NULL && (info->src_kind == 0 /* pageable */ || info->dst_kind == 0);
}

char *
_sl_thread_label (SlAnalyzeCtx *ctx,
                  gint          thread)
{
  const SlThread *t;

  if (thread < 0)
    return g_strdup ("an unknown thread");
  t = sl_trace_get_thread (ctx->trace, thread);
  if (t->name != SL_NO_STR)
    return g_strdup_printf ("%s [%u]", sl_trace_str (ctx->trace, t->name), t->tid);
  return g_strdup_printf ("thread %u", t->tid);
}

guint64
_sl_thread_pid (SlAnalyzeCtx *ctx,
                gint          thread)
{
  const SlThread *t = sl_trace_get_thread (ctx->trace, thread);

  return sl_trace_get_process (ctx->trace, t->process)->global_pid;
}

gint
_sl_launch_thread (SlAnalyzeCtx   *ctx,
                   const SlEvent  *op,
                   const SlLane  **api_lane,
                   gsize          *api_index)
{
  const SlLane *lane;
  gsize index;

  if (op->link == SL_NO_LINK || !sl_trace_resolve (ctx->trace, op->link, &lane, &index)
      || lane->kind != SL_LANE_CUDA_API)
    return -1;
  if (api_lane != NULL)
    *api_lane = lane;
  if (api_index != NULL)
    *api_index = index;
  return lane->thread;
}

gint
_sl_launch_thread_near (SlAnalyzeCtx   *ctx,
                        const SlEvent  *op,
                        const SlLane  **api_lane,
                        gsize          *api_index)
{
  const SlLane *hint = *api_lane;

  /* global ids are dense across lanes: a lane holds [base, base + n_events) */
  if (hint != NULL && op->link != SL_NO_LINK && op->link >= hint->base
      && op->link - hint->base < hint->n_events)
    {
      *api_index = op->link - hint->base;
      return hint->thread;
    }
  return _sl_launch_thread (ctx, op, api_lane, api_index);
}

void
_sl_analyze_ctx_init (SlAnalyzeCtx *ctx)
{
  SlTrace *trace = ctx->trace;
  guint n_lanes = sl_trace_get_n_lanes (trace);

  ctx->n_threads = sl_trace_get_n_threads (trace);
  ctx->n_gpus = sl_trace_get_n_gpus (trace);
  ctx->tl = g_new (SlThreadLanes, MAX (ctx->n_threads, 1));
  for (guint i = 0; i < ctx->n_threads; i++)
    ctx->tl[i] = (SlThreadLanes) { -1, -1, -1, 0, -1, NULL };
  ctx->gpus = g_new0 (SlGpuInfo, MAX (ctx->n_gpus, 1));
  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      ctx->gpus[g].ops = g_array_new (FALSE, FALSE, sizeof (guint32));
      ctx->gpus[g].kernels = g_array_new (FALSE, FALSE, sizeof (guint32));
      ctx->gpus[g].threads = g_array_new (FALSE, FALSE, sizeof (guint));
      ctx->gpus[g].launchers = g_array_new (FALSE, FALSE, sizeof (guint));
      ctx->gpus[g].workers = g_array_new (FALSE, FALSE, sizeof (guint));
      ctx->gpus[g].worker_threads = g_array_new (FALSE, FALSE, sizeof (guint));
      ctx->gpus[g].first = G_MAXINT64;
      ctx->gpus[g].last = G_MININT64;
      ctx->gpus[g].launcher = -1;
    }
  ctx->n_strs = sl_trace_get_n_strs (trace);
  ctx->api_class = g_new0 (guint8, MAX (ctx->n_strs, 1));

  for (guint i = 0; i < n_lanes; i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->n_events == 0)
        continue;
      if (lane->thread >= 0 && (guint) lane->thread < ctx->n_threads)
        {
          SlThreadLanes *tl = &ctx->tl[lane->thread];
          if (lane->kind == SL_LANE_CUDA_API && lane->depth == 0)
            tl->api = i;
          else if (lane->kind == SL_LANE_OSRT && lane->depth == 0)
            tl->osrt = i;
          else if (lane->kind == SL_LANE_SCHED)
            tl->sched = i;
          else if (lane->kind == SL_LANE_NVTX)
            {
              guint32 li = i;
              if (tl->nvtx == NULL)
                tl->nvtx = g_array_new (FALSE, FALSE, sizeof (guint32));
              g_array_append_val (tl->nvtx, li);
            }
          else if (lane->kind == SL_LANE_SAMPLES)
            {
              tl->samples = i;
              if (lane->n_events > 1)
                tl->sample_period = (lane->events[lane->n_events - 1].start - lane->events[0].start)
                                    / (SlTime) (lane->n_events - 1);
            }
        }
      if (lane->gpu >= 0 && (guint) lane->gpu < ctx->n_gpus
          && (lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_MEMCPY
              || lane->kind == SL_LANE_MEMSET || lane->kind == SL_LANE_GRAPHS))
        {
          SlGpuInfo *g = &ctx->gpus[lane->gpu];
          guint32 li = i;
          g_array_append_val (g->ops, li);
          if (lane->kind == SL_LANE_KERNELS)
            g_array_append_val (g->kernels, li);
          g->first = MIN (g->first, lane->events[0].start);
          for (gsize k = 0; k < lane->n_events; k++)
            g->last = MAX (g->last, lane->events[k].end);
        }
    }

  /* the span clipped to the window; a GPU without work in it has an empty span */
  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      gi->first = MAX (gi->first, ctx->t0);
      gi->last = MIN (gi->last, ctx->t1);
      if (gi->ops->len == 0 || gi->last <= gi->first)
        gi->first = gi->last = 0;
    }

  /* who launches a GPU's work (a sample of it), and which threads belong to its processes */
  g_autofree guint *launches = g_new (guint, MAX (ctx->n_threads, 1));
  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      gsize best_ops = 0;

      memset (launches, 0, MAX (ctx->n_threads, 1) * sizeof *launches);
      for (guint k = 0; k < gi->ops->len; k++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, g_array_index (gi->ops, guint32, k));
          gsize step = MAX (lane->n_events / 2000, 1);
          if (lane->n_events > best_ops)
            {
              best_ops = lane->n_events;
              gi->global_pid = lane->global_pid;
            }
          for (gsize e = 0; e < lane->n_events; e += step)
            {
              gint t = _sl_launch_thread (ctx, &lane->events[e], NULL, NULL);
              if (t >= 0 && (guint) t < ctx->n_threads)
                launches[t]++;
            }
        }
      for (guint t = 0; t < ctx->n_threads; t++)
        {
          if (launches[t] > 0 && (gi->launcher < 0 || launches[t] > launches[gi->launcher]))
            gi->launcher = t;
        }
      for (guint t = 0; t < ctx->n_threads && gi->launcher >= 0; t++)
        if (launches[t] > 0 && launches[t] * 4 >= launches[gi->launcher])
          g_array_append_val (gi->launchers, t);
      for (guint t = 0; t < ctx->n_threads; t++)
        {
          guint64 pid = _sl_thread_pid (ctx, t);
          gboolean mine = launches[t] > 0 || pid == gi->global_pid;
          for (guint k = 0; !mine && k < gi->ops->len; k++)
            {
              const SlLane *lane = sl_trace_get_lane (trace, g_array_index (gi->ops, guint32, k));
              mine = lane->global_pid == pid;
            }
          if (mine)
            g_array_append_val (gi->threads, t);
        }
    }
  _sl_analyze_find_workers (ctx);
}

void
_sl_analyze_ctx_clear (SlAnalyzeCtx *ctx)
{
  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      g_array_unref (ctx->gpus[g].ops);
      g_array_unref (ctx->gpus[g].kernels);
      g_array_unref (ctx->gpus[g].threads);
      g_array_unref (ctx->gpus[g].launchers);
      g_array_unref (ctx->gpus[g].workers);
      g_array_unref (ctx->gpus[g].worker_threads);
      _sl_idle_account_free (ctx->gpus[g].account);
      g_free (ctx->gpus[g].bound_windows);
      if (ctx->gpus[g].config_groups != NULL)
        g_array_unref (ctx->gpus[g].config_groups);
    }
  for (guint i = 0; i < ctx->n_threads; i++)
    if (ctx->tl[i].nvtx != NULL)
      g_array_unref (ctx->tl[i].nvtx);
  g_free (ctx->gpus);
  g_free (ctx->tl);
  g_free (ctx->python_module);
  g_free (ctx->api_class);
}

const SlLane *
_sl_lane_or_null (SlAnalyzeCtx *ctx,
                  gint          index)
{
  return index >= 0 ? sl_trace_get_lane (ctx->trace, index) : NULL;
}

/* Time of [a, b) a lane's events cover, summed (a lane at one depth does not overlap itself);
 * per name into `by_name` (name id → SlTime*) when given; the events are added to `f`. */
typedef struct
{
  SlAnalyzeCtx *ctx;
  SlTime        a, b;
  SlTime        total;
  GHashTable   *by_name;
  SlCallFilter  filter;
  SlFinding    *f;
} OverlapSum;

void
_sl_by_name_add (GHashTable *by_name,
                 guint32     name,
                 SlTime      d)
{
  SlTime *t = g_hash_table_lookup (by_name, GUINT_TO_POINTER (name));

  if (t == NULL)
    {
      t = g_new0 (SlTime, 1);
      g_hash_table_insert (by_name, GUINT_TO_POINTER (name), t);
    }
  *t = _sl_time_add (*t, d);
}

static gboolean
overlap_sum_cb (const SlLane *lane,
                gsize         index,
                gpointer      user_data)
{
  OverlapSum *o = user_data;
  const SlEvent *ev = &lane->events[index];
  SlTime d = MIN (ev->end, o->b) - MAX (ev->start, o->a);

  if (d <= 0)
    return TRUE;
  if (o->filter != SL_CALLS_ALL && lane->kind == SL_LANE_CUDA_API
      && _sl_api_call_waits (o->ctx, lane, index) != (o->filter == SL_CALLS_WAITS))
    return TRUE;
  o->total = _sl_time_add (o->total, d);
  if (o->by_name != NULL)
    _sl_by_name_add (o->by_name, ev->name, d);
  if (o->f != NULL)
    _sl_finding_add_event (o->ctx, o->f, lane->index, index);
  return TRUE;
}

SlTime
_sl_overlap_sum (SlAnalyzeCtx *ctx,
                 const SlLane *lane,
                 SlTime        a,
                 SlTime        b,
                 GHashTable   *by_name,
                 SlCallFilter  filter,
                 SlFinding    *f)
{
  OverlapSum o = { ctx, a, b, 0, by_name, filter, f };

  if (lane == NULL || b <= a)
    return 0;
  sl_lane_overlap (lane, a, b, overlap_sum_cb, &o);
  return o.total;
}

typedef struct
{
  SlAnalyzeCtx *ctx;
  SlTime        a, b;
  SlTime        sum[2];   /* work, waits */
} OverlapSplit;

static gboolean
overlap_split_cb (const SlLane *lane,
                  gsize         index,
                  gpointer      user_data)
{
  OverlapSplit *o = user_data;
  const SlEvent *ev = &lane->events[index];
  SlTime d = MIN (ev->end, o->b) - MAX (ev->start, o->a);

  if (d > 0)
    {
      guint waits = _sl_api_call_waits (o->ctx, lane, index) ? 1 : 0;
      o->sum[waits] = _sl_time_add (o->sum[waits], d);
    }
  return TRUE;
}

void
_sl_overlap_split (SlAnalyzeCtx *ctx,
                   const SlLane *api,
                   SlTime        a,
                   SlTime        b,
                   SlTime       *waits,
                   SlTime       *work)
{
  OverlapSplit o = { ctx, a, b, { 0, 0 } };

  if (api != NULL && b > a)
    sl_lane_overlap (api, a, b, overlap_split_cb, &o);
  *work = o.sum[0];
  *waits = o.sum[1];
}

gsize
_sl_samples_in (const SlLane *lane,
                SlTime        a,
                SlTime        b)
{
  if (lane == NULL || b <= a)
    return 0;
  return sl_lane_lower_bound (lane, b) - sl_lane_lower_bound (lane, a);
}

/* Whether `text` is a Python source line as the collector writes a Python frame's module:
 * "….py:42". */
static gboolean
is_python_line (const char *text)
{
  const char *colon = strrchr (text, ':');

  if (colon == NULL || colon - text < 3 || colon[1] == '\0' || strncmp (colon - 3, ".py", 3) != 0)
    return FALSE;
  for (const char *c = colon + 1; *c != '\0'; c++)
    if (!g_ascii_isdigit (*c))
      return FALSE;
  return TRUE;
}

/* Marks the string ids that are Python source lines, once per analysis. */
static void
find_python_modules (SlAnalyzeCtx *ctx)
{
  guint n = sl_trace_get_n_strs (ctx->trace);

  if (ctx->python_module != NULL)
    return;
  ctx->python_module = g_new (guint8, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      gboolean py = is_python_line (sl_trace_str (ctx->trace, i));
      ctx->python_module[i] = py ? 1 : 2;
      ctx->has_python |= py;
    }
}

gboolean
_sl_is_python_line (SlAnalyzeCtx *ctx,
                    guint32       module)
{
  find_python_modules (ctx);
  return module < sl_trace_get_n_strs (ctx->trace) && ctx->python_module[module] == 1;
}

void
_sl_sample_tally_init (SlSampleTally *t)
{
  t->counts = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  t->total = t->best = 0;
  t->symbol = t->module = SL_NO_STR;
}

void
_sl_sample_tally_clear (SlSampleTally *t)
{
  g_clear_pointer (&t->counts, g_hash_table_unref);
}

void
_sl_samples_tally (SlAnalyzeCtx  *ctx,
                   const SlLane  *samples,
                   SlTime         a,
                   SlTime         b,
                   SlSampleTally *t)
{
  if (samples == NULL || b <= a)
    return;
  find_python_modules (ctx);
  for (gsize i = sl_lane_lower_bound (samples, a), i1 = sl_lane_lower_bound (samples, b); i < i1;
       i++)
    {
      const SlEvent *ev = &samples->events[i];
      guint32 sym = ev->name, mod = SL_NO_STR;

      if (ctx->has_python)
        {
          const guint32 *symbols, *modules;
          guint n = sl_trace_get_callchain (ctx->trace, ev->aux, &symbols, &modules);
          for (guint k = 0; k < n; k++)
            if (modules[k] < sl_trace_get_n_strs (ctx->trace) && ctx->python_module[modules[k]] == 1)
              {
                sym = symbols[k];
                mod = modules[k];
                break;
              }
        }
      gint64 key = (gint64) (((guint64) sym << 32) | mod);
      gsize *count = g_hash_table_lookup (t->counts, &key);
      if (count == NULL)
        {
          count = g_new0 (gsize, 1);
          g_hash_table_insert (t->counts, g_memdup2 (&key, sizeof key), count);
        }
      (*count)++;
      t->total++;
      if (*count > t->best)
        {
          t->best = *count;
          t->symbol = sym;
          t->module = mod;
        }
    }
}

gsize
_sl_samples_top (SlAnalyzeCtx *ctx,
                 const SlLane *samples,
                 SlTime        a,
                 SlTime        b,
                 guint32      *symbol,
                 guint32      *module)
{
  SlSampleTally t;

  _sl_sample_tally_init (&t);
  _sl_samples_tally (ctx, samples, a, b, &t);
  *symbol = t.symbol;
  *module = t.module;
  _sl_sample_tally_clear (&t);
  return t.best;
}

char *
_sl_sample_name (SlAnalyzeCtx *ctx,
                 guint32       symbol,
                 guint32       module)
{
  if (module == SL_NO_STR)
    return g_strdup (sl_trace_str (ctx->trace, symbol));
  return g_strdup_printf ("%s (%s)", sl_trace_str (ctx->trace, symbol),
                          sl_trace_str (ctx->trace, module));
}

/* The name with the most time in a by_name table, and that time. */
guint32
_sl_top_name (GHashTable *by_name,
              SlTime     *time)
{
  GHashTableIter it;
  gpointer k, v;
  guint32 best = SL_NO_STR;

  *time = 0;
  g_hash_table_iter_init (&it, by_name);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (*(SlTime *) v > *time)
      {
        *time = *(SlTime *) v;
        best = GPOINTER_TO_UINT (k);
      }
  return best;
}

/* One element of `size` bytes copied: a known size's as its type (a time, a span, a request),
 * not a call to memcpy an element. */
static inline void
copy_element (guint8       *dst,
              const guint8 *src,
              gsize         size)
{
  if (size == sizeof (SlTime))
    *(SlTime *) (void *) dst = *(const SlTime *) (const void *) src;
  else if (size == sizeof (SlSpan))
    *(SlSpan *) (void *) dst = *(const SlSpan *) (const void *) src;
  else if (size == sizeof (SlIdleRequest))
    *(SlIdleRequest *) (void *) dst = *(const SlIdleRequest *) (const void *) src;
  else
    memcpy (dst, src, size);
}

/* the start of element i of a, as an unsigned key in the same order */
#define KEY(a, i) ((guint64) *(const SlTime *) (const void *) ((a) + (i) * size) \
                   ^ G_GUINT64_CONSTANT (0x8000000000000000))

/* Runs merged pairwise until one is left (stable): `bounds` holds the runs' starts and n. */
static void
merge_runs (guint8 *a,
            guint8 *tmp,
            gsize   n,
            gsize   size,
            gsize  *bounds,
            guint   n_runs)
{
  guint8 *v = a;

  while (n_runs > 1)
    {
      guint out = 0;
      for (guint r = 0; r < n_runs; r += 2)
        {
          gsize lo = bounds[r], mid = bounds[MIN (r + 1, n_runs)], hi = bounds[MIN (r + 2, n_runs)];
          gsize i = lo, j = mid, k = lo;
          while (i < mid && j < hi)
            copy_element (tmp + k++ * size, KEY (a, j) < KEY (a, i) ? a + j++ * size
                                                                     : a + i++ * size, size);
          for (; i < mid; i++)
            copy_element (tmp + k++ * size, a + i * size, size);
          for (; j < hi; j++)
            copy_element (tmp + k++ * size, a + j * size, size);
          bounds[out++] = lo;
        }
      bounds[out] = n;
      n_runs = out;
      {
        guint8 *swap = a;
        a = tmp;
        tmp = swap;
      }
    }
  if (a != v)
    memcpy (v, a, n * size);
}

void
_sl_sort_by_start (gpointer v,
                   gsize    n,
                   gsize    size)
{
  g_autofree guint8 *tmp = NULL;
  guint8 *a = v;
  guint64 lo = G_MAXUINT64, spread = 0;
  /* where the ascending runs start: a few (a kernel name's instances, a lane's after another's)
   * are merged, O(n log runs); more are radix sorted */
  gsize bounds[33];
  guint n_runs = n > 0 ? 1 : 0;

  bounds[0] = 0;
  for (gsize i = 0; i < n; i++)
    {
      lo = MIN (lo, KEY (a, i));
      if (i > 0 && KEY (a, i - 1) > KEY (a, i))
        {
          if (n_runs < G_N_ELEMENTS (bounds) - 1)
            bounds[n_runs] = i;
          n_runs++;
        }
    }
  if (n_runs <= 1)
    return;
  tmp = g_malloc (n * size);
  if (n_runs < G_N_ELEMENTS (bounds))
    {
      bounds[n_runs] = n;
      merge_runs (a, tmp, n, size, bounds, n_runs);
      return;
    }
  /* a byte a pass, over the bytes in which they differ, from the least significant: stable */
  for (gsize i = 0; i < n; i++)
    spread |= KEY (a, i) - lo;
  for (guint shift = 0; shift < 64 && (spread >> shift) != 0; shift += 8)
    {
      gsize count[257] = { 0 };
      guint8 *swap;
      for (gsize i = 0; i < n; i++)
        count[((KEY (a, i) - lo) >> shift & 0xff) + 1]++;
      for (guint d = 1; d <= 256; d++)
        count[d] += count[d - 1];
      for (gsize i = 0; i < n; i++)
        copy_element (tmp + count[(KEY (a, i) - lo) >> shift & 0xff]++ * size, a + i * size, size);
      swap = a;
      a = tmp;
      tmp = swap;
    }
  /* an odd number of passes leaves them in the scratch array */
  if (a != v)
    {
      memcpy (v, a, n * size);
      tmp = a;
    }
}
#undef KEY

SlTime
_sl_median_of (GArray *times)
{
  return _sl_median_of_n ((SlTime *) (void *) times->data, times->len);
}

SlTime
_sl_median_of_n (SlTime *v,
                 gsize   n)
{
  /* the element a sort would put at len / 2, by selection: O(n) where a sort of the ~10^6
   * durations of one kernel name cost O(n log n) */
  return n == 0 ? 0 : sl_select_int64 (v, n, n / 2);
}

guint32
_sl_gpu_id (SlAnalyzeCtx *ctx,
            guint         g)
{
  return sl_trace_get_gpu (ctx->trace, g)->device_id;
}

void
_sl_finding_add_gpu_lanes (SlAnalyzeCtx *ctx,
                           SlFinding    *f,
                           guint         gpu)
{
  for (guint k = 0; k < ctx->gpus[gpu].ops->len; k++)
    _sl_finding_add_lane (f, g_array_index (ctx->gpus[gpu].ops, guint32, k));
}

void
_sl_finding_add_thread_lanes (SlAnalyzeCtx *ctx,
                              SlFinding    *f,
                              gint          thread)
{
  if (thread < 0)
    return;
  if (ctx->tl[thread].api >= 0)
    _sl_finding_add_lane (f, ctx->tl[thread].api);
  if (ctx->tl[thread].osrt >= 0)
    _sl_finding_add_lane (f, ctx->tl[thread].osrt);
  if (ctx->tl[thread].samples >= 0)
    _sl_finding_add_lane (f, ctx->tl[thread].samples);
}

char *
_sl_range_text (SlAnalyzeCtx *ctx,
                SlTime        a,
                SlTime        b)
{
  SlTime t0 = sl_trace_get_origin (ctx->trace);
  g_autofree char *x = sl_format_offset (a - t0), *y = sl_format_offset (b - t0);

  return g_strdup_printf ("%s … %s", x, y);
}
/* --- unions of time spans --------------------------------------------------------------------- */

/* Sorts and merges spans in place into a union. */
void
_sl_spans_merge (GArray *spans)
{
  guint out = 0;
  gboolean sorted = TRUE;

  /* often sorted already (pieces made in time order): a check costs far less than a sort */
  for (guint i = 1; i < spans->len && sorted; i++)
    sorted = g_array_index (spans, SlSpan, i - 1).s <= g_array_index (spans, SlSpan, i).s;
  /* a few (a span's pieces, ~10^5 calls): insertion; many: the radix sort */
  if (!sorted && spans->len <= 16)
    {
      SlSpan *v = (SlSpan *) (void *) spans->data;
      for (guint i = 1; i < spans->len; i++)
        {
          SlSpan x = v[i];
          guint j = i;
          for (; j > 0 && v[j - 1].s > x.s; j--)
            v[j] = v[j - 1];
          v[j] = x;
        }
    }
  else if (!sorted)
    _sl_sort_by_start (spans->data, spans->len, sizeof (SlSpan));
  for (guint i = 0; i < spans->len; i++)
    {
      SlSpan sp = g_array_index (spans, SlSpan, i);
      if (sp.e <= sp.s)
        continue;
      if (out > 0 && sp.s <= g_array_index (spans, SlSpan, out - 1).e)
        {
          SlSpan *last = &g_array_index (spans, SlSpan, out - 1);
          last->e = MAX (last->e, sp.e);
        }
      else
        g_array_index (spans, SlSpan, out++) = sp;
    }
  g_array_set_size (spans, out);
}

/* Total length of the intersection of two unions. */
SlTime
_sl_spans_intersect (GArray *x,
                     GArray *y)
{
  SlTime total = 0;
  guint i = 0, j = 0;

  while (i < x->len && j < y->len)
    {
      const SlSpan *a = &g_array_index (x, SlSpan, i), *b = &g_array_index (y, SlSpan, j);
      SlTime s = MAX (a->s, b->s), e = MIN (a->e, b->e);
      if (e > s)
        total = _sl_time_add (total, e - s);
      if (a->e < b->e)
        i++;
      else
        j++;
    }
  return total;
}

SlTime
_sl_spans_total (GArray *x)
{
  SlTime total = 0;

  for (guint i = 0; i < x->len; i++)
    total = _sl_time_add (total, g_array_index (x, SlSpan, i).e - g_array_index (x, SlSpan, i).s);
  return total;
}

typedef struct
{
  SlTime  a, b;
  GArray *out;
} SpanClip;

static gboolean
span_clip_cb (const SlLane *lane,
              gsize         index,
              gpointer      user_data)
{
  SpanClip *c = user_data;
  SlSpan sp = { MAX (lane->events[index].start, c->a), MIN (lane->events[index].end, c->b) };

  if (sp.e > sp.s)
    g_array_append_val (c->out, sp);
  return TRUE;
}

/* The parts of a lane's events inside [a, b), appended (not merged). */
void
_sl_spans_add_overlap (const SlLane *lane,
                       SlTime        a,
                       SlTime        b,
                       GArray       *out)
{
  SpanClip c = { a, b, out };

  if (lane != NULL && b > a)
    sl_lane_overlap (lane, a, b, span_clip_cb, &c);
}
