/* sl-analyze-idle.c: one account of each GPU's idle time.  Over the window (the trace's span, or
 * the --range), every nanosecond a GPU runs no kernel, copy or set is given one cause, the first
 * that holds on the threads that launch its work: work queued for it that waits, the host in a
 * blocking copy, in a sync call, in a launch call, busy in something named, or nothing traced.
 * The rules about idle time are views of that split: each asks for the idle time of its causes in
 * its spans (_sl_idle_attribute) and is given only what no other finding has, so costs add up to
 * at most the GPU's idle time.  Also here: blame by majority (what covers most of a gap) and the
 * launch_latency rule, the view of the queued cause.
 *
 * Sizes: a training trace has ~10^5-10^6 idle spans a GPU; the host's lanes are walked with
 * cursors along them and the ops once, in two halves on two threads, so the account costs about
 * one pass over the GPU's ops and its launching threads' lanes. */
#include "sl-analyze-private.h"

#include <string.h>

#include "sl-format.h"
#include "sl-utilization.h"

static const char *const cause_names[SL_N_IDLE_CAUSES] = {
  "queued", "copy", "sync", "launch", "host", "untraced",
};

const char *
_sl_idle_cause_name (SlIdleCause cause)
{
  return cause < SL_N_IDLE_CAUSES ? cause_names[cause] : "?";
}

const char *
sl_blame_kind_name (SlBlameKind kind)
{
  static const char *const names[] = { "none", "nvtx", "cuda_api", "osrt", "sample", "state" };

  return kind < G_N_ELEMENTS (names) ? names[kind] : "none";
}

void
_sl_idle_account_free (SlIdleAccount *account)
{
  if (account == NULL)
    return;
  g_array_unref (account->idle);
  for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
    g_array_unref (account->claimed[c]);
  g_array_unref (account->given);
  g_array_unref (account->spare);
  for (guint k = 0; account->returns != NULL && account->returns[k] != NULL; k++)
    g_free (account->returns[k]);
  g_free (account->returns);
  for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
    g_array_unref (account->by_cause[c]);
  g_free (account);
}

/* --- span sets -------------------------------------------------------------------------------- */

/* The first span of a sorted, disjoint array whose end is after t. */
static guint
spans_after (GArray *spans,
             SlTime  t)
{
  guint lo = 0, hi = spans->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (spans, SlSpan, mid).e <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Appends to a span array grown by doubling, with `n` its length in use, set on it once at the
 * end (g_array_set_size): the account's loops make ~10^6 spans, and g_array_append_val is a call
 * and a memcpy each. */
static inline void
span_push (GArray *a,
           guint  *n,
           SlSpan  sp)
{
  if (*n == a->len)
    g_array_set_size (a, MAX (*n * 2, 256));
  g_array_index (a, SlSpan, (*n)++) = sp;
}

/* Splits the union x by the union y: x ∩ y into `in`, x − y into `out` (both unions), pushed
 * (span_push) after their first *n_in and *n_out spans. */
static void
spans_cut (GArray *x,
           GArray *y,
           GArray *in,
           guint  *n_in,
           GArray *out,
           guint  *n_out)
{
  guint j = 0;

  for (guint i = 0; i < x->len; i++)
    {
      SlSpan sp = g_array_index (x, SlSpan, i);
      SlTime pos = sp.s;

      while (j < y->len && g_array_index (y, SlSpan, j).e <= pos)
        j++;
      for (guint k = j; k < y->len && g_array_index (y, SlSpan, k).s < sp.e; k++)
        {
          const SlSpan *c = &g_array_index (y, SlSpan, k);
          if (c->s > pos)
            span_push (out, n_out, (SlSpan) { pos, c->s });
          {
            SlSpan both = { MAX (pos, c->s), MIN (sp.e, c->e) };
            if (both.e > both.s)
              span_push (in, n_in, both);
          }
          pos = MAX (pos, c->e);
          if (pos >= sp.e)
            break;
        }
      if (pos < sp.e)
        span_push (out, n_out, (SlSpan) { pos, sp.e });
    }
}

const char *
sl_idle_cause_label (guint cause)
{
  static const char *const labels[SL_N_IDLE_CAUSES] = {
    "work queued for it waits (a dependency, the driver)",
    "the host in a blocking copy or set (synchronous, or pageable memory)",
    "the host in a sync call",
    "the host in launch calls (launch overhead)",
    "the host busy in something named (a CUDA call, an OS call, an NVTX range, sampled code)",
    "nothing traced on the launching threads",
  };

  return cause < SL_N_IDLE_CAUSES ? labels[cause] : "?";
}

/* What the findings have been given of the GPU's idle time. */
static SlTime
claimed_total (SlIdleAccount *acc)
{
  SlTime total = 0;

  for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
    total = _sl_time_add (total, _sl_spans_total (acc->claimed[c]));
  return total;
}

void
_sl_gpu_time (SlAnalyzeCtx *ctx,
              guint         gpu,
              SlGpuTime    *out)
{
  SlIdleAccount *acc = _sl_idle_account (ctx, gpu);
  SlGpuInfo *gi = &ctx->gpus[gpu];
  SlTime any, kc;
  g_autoptr (GArray) sets_alone = g_array_new (FALSE, FALSE, sizeof (SlSpan));

  /* the busy split is the same at each call; only what the findings were given grows */
  if (acc->time_done)
    {
      *out = acc->time;
      out->attributed = claimed_total (acc);
      return;
    }
  memset (out, 0, sizeof *out);
  out->device_id = _sl_gpu_id (ctx, gpu);
  out->start = acc->s;
  out->end = acc->e;
  out->kernels = sl_trace_gpu_busy_time (ctx->trace, gpu, SL_UTIL_KERNELS, acc->s, acc->e);
  any = sl_trace_gpu_busy_time (ctx->trace, gpu, SL_UTIL_ANY, acc->s, acc->e);
  /* sets alone: each memset's time that no kernel or copy covers (memsets are few: their lanes
   * walked, the others queried inside each) */
  for (guint k = 0; k < gi->ops->len; k++)
    {
      const SlLane *sets = sl_trace_get_lane (ctx->trace, g_array_index (gi->ops, guint32, k));
      if (sets->kind != SL_LANE_MEMSET)
        continue;
      for (gsize e = sl_lane_lower_bound (sets, acc->s); e < sets->n_events; e++)
        {
          SlSpan sp = { MAX (sets->events[e].start, acc->s), MIN (sets->events[e].end, acc->e) };
          g_autoptr (GArray) covered = g_array_new (FALSE, FALSE, sizeof (SlSpan));
          g_autoptr (GArray) alone = g_array_new (FALSE, FALSE, sizeof (SlSpan));
          g_autoptr (GArray) both = g_array_new (FALSE, FALSE, sizeof (SlSpan));
          g_autoptr (GArray) one = g_array_new (FALSE, FALSE, sizeof (SlSpan));
          if (sets->events[e].start >= acc->e)
            break;
          if (sp.e <= sp.s)
            continue;
          for (guint j = 0; j < gi->ops->len; j++)
            {
              const SlLane *lane = sl_trace_get_lane (ctx->trace,
                                                      g_array_index (gi->ops, guint32, j));
              if (lane->kind != SL_LANE_MEMSET)
                _sl_spans_add_overlap (lane, sp.s, sp.e, covered);
            }
          _sl_spans_merge (covered);
          guint n_both = 0, n_alone = 0;
          g_array_append_val (one, sp);
          spans_cut (one, covered, both, &n_both, alone, &n_alone);
          g_array_set_size (both, n_both);
          g_array_set_size (alone, n_alone);
          /* two sets overlapping each other count once: the union of what they leave */
          g_array_append_vals (sets_alone, alone->data, alone->len);
        }
    }
  _sl_spans_merge (sets_alone);
  kc = any - _sl_spans_total (sets_alone);
  out->copies = MAX (kc - out->kernels, 0);
  out->sets = MAX (any - kc, 0);
  out->idle = acc->idle_total;
  for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
    out->idle_by_cause[c] = acc->total[c];
  out->attributed = claimed_total (acc);
  acc->time = *out;
  acc->time_done = TRUE;
}

/* --- building the account --------------------------------------------------------------------- */

typedef struct
{
  SlTime  s, e;
  SlTime  prev_end;
  GArray *idle;
  guint   n;        /* idle's length in use (span_push) */
} HoleScan;

static gboolean
hole_scan_cb (SlTime   start,
              SlTime   end,
              gpointer user_data)
{
  HoleScan *h = user_data;
  SlSpan sp = { MAX (h->prev_end, h->s), MIN (start, h->e) };

  if (sp.e > sp.s)
    span_push (h->idle, &h->n, sp);
  h->prev_end = MAX (h->prev_end, end);
  return start < h->e;
}

/* The window of a GPU's account: the analysed window, within the span of the source trace its
 * work comes from (a merged trace's ranks each cover their own span). */
static void
account_window (SlAnalyzeCtx *ctx,
                guint         gpu,
                SlTime       *s,
                SlTime       *e)
{
  SlTrace *trace = ctx->trace;
  SlGpuInfo *gi = &ctx->gpus[gpu];
  SlTime lo = sl_trace_get_start (trace), hi = sl_trace_get_end (trace);

  if (gi->ops->len > 0 && sl_trace_get_n_sources (trace) > 1)
    {
      guint32 source = sl_trace_get_lane (trace, g_array_index (gi->ops, guint32, 0))->source;
      if (source < sl_trace_get_n_sources (trace))
        {
          lo = sl_trace_get_source (trace, source)->start;
          hi = sl_trace_get_source (trace, source)->end;
        }
    }
  *s = MAX (lo, ctx->t0);
  *e = MIN (hi, ctx->t1);
  if (*e < *s)
    *e = *s;
}

/* What a CUDA call of a launching thread says about the GPU's idle time during it. */
static SlIdleCause
call_cause (SlAnalyzeCtx *ctx,
            const SlLane *lane,
            gsize         index)
{
  SlApiClass c = _sl_api_class (ctx, lane->events[index].name);

  if (c == SL_API_SYNC || c == SL_API_SYNC_OTHER)
    return SL_IDLE_SYNC;
  if (_sl_api_call_waits (ctx, lane, index))
    return SL_IDLE_COPY;
  if (c == SL_API_MEMCPY_ASYNC || c == SL_API_MEMSET_ASYNC || c == SL_API_LAUNCH)
    return SL_IDLE_LAUNCH;
  return SL_IDLE_HOST;
}

typedef struct
{
  SlAnalyzeCtx *ctx;
  SlSpan        clip;
  GArray      **cover;     /* SL_N_IDLE_CAUSES arrays of SlSpan */
  guint        *n_cover;   /* their lengths in use (span_push) */
  gboolean      api;       /* a CUDA API lane: classify each call */
  gboolean      running;   /* a thread-state lane: only its running slices */
} CoverScan;

static gboolean
cover_cb (const SlLane *lane,
          gsize         index,
          gpointer      user_data)
{
  CoverScan *c = user_data;
  const SlEvent *ev = &lane->events[index];
  SlSpan sp = { MAX (ev->start, c->clip.s), MIN (ev->end, c->clip.e) };
  SlIdleCause cause = SL_IDLE_HOST;

  if (sp.e <= sp.s)
    return TRUE;
  if (c->running && SL_STATE_OF (ev->aux) != SL_STATE_RUNNING)
    return TRUE;
  if (c->api)
    cause = call_cause (c->ctx, lane, index);
  span_push (c->cover[cause], &c->n_cover[cause], sp);
  return TRUE;
}

/* sl_lane_overlap for spans visited in time order: a lane whose ends never decrease (one depth of
 * calls or ranges: no interval tree) is walked with a cursor, O(events + spans) for a whole pass
 * where ~10^6 idle spans would cost as many tree descents. */
static void
overlap_in_order (const SlLane *lane,
                  gsize        *cursor,
                  SlSpan        sp,
                  CoverScan    *scan)
{
  gsize k;

  if (lane->max_end != NULL)
    {
      sl_lane_overlap (lane, sp.s, sp.e, cover_cb, scan);
      return;
    }
  k = *cursor;
  while (k < lane->n_events && lane->events[k].end <= sp.s
         && !(lane->events[k].end == lane->events[k].start && lane->events[k].start == sp.s))
    k++;
  *cursor = k;
  for (; k < lane->n_events && lane->events[k].start < sp.e; k++)
    cover_cb (lane, k, scan);
}

/* The threads whose activity explains a GPU's idle time: those that launch its work, else the
 * threads of its processes. */
static GArray *
host_threads (SlAnalyzeCtx *ctx,
              guint         gpu)
{
  SlGpuInfo *gi = &ctx->gpus[gpu];

  return gi->launchers->len > 0 ? gi->launchers : gi->threads;
}

/* One pass over idle spans [i0, i1) (a half of them, on a thread of its own): the queued part of
 * each span, then the launching threads' activity in the rest, split there by cause into
 * `by_cause` (appended in time order: each span's pieces are made and merged inside it, so no
 * array of ~10^6 pieces is ever sorted or cut again). */
typedef struct
{
  SlAnalyzeCtx *ctx;
  guint         gpu;
  GArray       *threads;
  GArray       *idle;
  const SlTime *queued_from;   /* per idle span: where its queued suffix starts (>= its end:
                                * none) */
  guint         i0, i1;
  GArray       *by_cause[SL_N_IDLE_CAUSES];
} SpanPass;

/* Where a cursor over a lane starts for spans from t on: the event before the first starting
 * at t may still overlap it (one depth: ends never decrease). */
static gsize
cursor_at (const SlLane *lane,
           SlTime        t)
{
  gsize k = sl_lane_lower_bound (lane, t);

  return k > 0 ? k - 1 : 0;
}

static void
span_pass (SpanPass *pass)
{
  SlAnalyzeCtx *ctx = pass->ctx;
  GArray *threads = pass->threads;
  GArray *local[SL_N_IDLE_CAUSES];
  /* lengths in use (span_push) of local and of the pass's pieces by cause */
  guint n_local[SL_N_IDLE_CAUSES] = { 0 }, n_by[SL_N_IDLE_CAUSES] = { 0 };
  g_autoptr (GArray) rest = g_array_new (FALSE, FALSE, sizeof (SlSpan));
  g_autoptr (GArray) left = g_array_new (FALSE, FALSE, sizeof (SlSpan));
  /* a cursor per lane walked: api, osrt, sched, then the NVTX depths, thread by thread */
  g_autoptr (GArray) cursors = g_array_new (FALSE, TRUE, sizeof (gsize));
  g_autofree guint *cursor_base = g_new (guint, MAX (threads->len, 1));
  SlTime t0 = pass->i0 < pass->i1 ? g_array_index (pass->idle, SlSpan, pass->i0).s : 0;

  for (guint k = 0; k < threads->len; k++)
    {
      const SlThreadLanes *tl = &ctx->tl[g_array_index (threads, guint, k)];
      gsize *cur;
      cursor_base[k] = cursors->len;
      g_array_set_size (cursors, cursors->len + 3 + (tl->nvtx != NULL ? tl->nvtx->len : 0));
      cur = &g_array_index (cursors, gsize, cursor_base[k]);
      if (tl->api >= 0)
        cur[0] = cursor_at (_sl_lane_or_null (ctx, tl->api), t0);
      if (tl->osrt >= 0)
        cur[1] = cursor_at (_sl_lane_or_null (ctx, tl->osrt), t0);
      if (tl->sched >= 0)
        cur[2] = cursor_at (_sl_lane_or_null (ctx, tl->sched), t0);
      for (guint n = 0; tl->nvtx != NULL && n < tl->nvtx->len; n++)
        cur[3 + n] = cursor_at (sl_trace_get_lane (ctx->trace,
                                                   g_array_index (tl->nvtx, guint32, n)), t0);
    }
  for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
    local[c] = g_array_new (FALSE, FALSE, sizeof (SlSpan));
  for (guint i = pass->i0; i < pass->i1; i++)
    {
      SlSpan sp = g_array_index (pass->idle, SlSpan, i);
      SlTime q = MAX (pass->queued_from[i], sp.s);
      CoverScan scan = { ctx, { sp.s, MIN (q, sp.e) }, local, n_local, TRUE, FALSE };

      /* queued first: work launched for the GPU waits from q to the span's end */
      if (q < sp.e)
        {
          span_push (pass->by_cause[SL_IDLE_QUEUED], &n_by[SL_IDLE_QUEUED],
                     (SlSpan) { q, sp.e });
          sp.e = q;
          if (sp.e <= sp.s)
            continue;
        }
      for (guint k = 0; k < threads->len; k++)
        {
          const SlThreadLanes *tl = &ctx->tl[g_array_index (threads, guint, k)];
          const SlLane *api = _sl_lane_or_null (ctx, tl->api);
          const SlLane *osrt = _sl_lane_or_null (ctx, tl->osrt);
          const SlLane *samples = tl->sample_period > 0 ? _sl_lane_or_null (ctx, tl->samples)
                                                        : NULL;
          const SlLane *sched = _sl_lane_or_null (ctx, tl->sched);
          SlTime half = tl->sample_period / 2;
          gsize *cur = &g_array_index (cursors, gsize, cursor_base[k]);

          scan.api = TRUE;
          scan.running = FALSE;
          if (api != NULL)
            overlap_in_order (api, &cur[0], sp, &scan);
          scan.api = FALSE;
          if (osrt != NULL)
            overlap_in_order (osrt, &cur[1], sp, &scan);
          for (guint n = 0; tl->nvtx != NULL && n < tl->nvtx->len; n++)
            overlap_in_order (sl_trace_get_lane (ctx->trace,
                                                 g_array_index (tl->nvtx, guint32, n)),
                              &cur[3 + n], sp, &scan);
          if (sched != NULL)
            {
              scan.running = TRUE;
              overlap_in_order (sched, &cur[2], sp, &scan);
              scan.running = FALSE;
            }
          /* a sample stands for the period around it */
          if (samples != NULL)
            for (gsize s = sl_lane_lower_bound (samples, sp.s - half),
                       s1 = sl_lane_lower_bound (samples, sp.e + half); s < s1; s++)
              {
                SlTime t = samples->events[s].start;
                SlSpan c = { MAX (t - half, sp.s), MIN (t + half, sp.e) };
                if (c.e > c.s)
                  span_push (local[SL_IDLE_HOST], &n_local[SL_IDLE_HOST], c);
              }
        }
      /* the rest of the span split by cause: each takes what the ones before it left */
      g_array_set_size (rest, 0);
      g_array_append_val (rest, sp);
      for (guint c = SL_IDLE_COPY; c < SL_IDLE_UNTRACED && rest->len > 0; c++)
        {
          GArray *swap;
          guint n_left = 0;
          if (n_local[c] == 0)
            continue;
          g_array_set_size (local[c], n_local[c]);
          if (n_local[c] > 1)
            _sl_spans_merge (local[c]);
          spans_cut (rest, local[c], pass->by_cause[c], &n_by[c], left, &n_left);
          g_array_set_size (left, n_left);
          swap = rest;
          rest = left;
          left = swap;
        }
      for (guint k = 0; k < rest->len; k++)
        span_push (pass->by_cause[SL_IDLE_UNTRACED], &n_by[SL_IDLE_UNTRACED],
                   g_array_index (rest, SlSpan, k));
      memset (n_local, 0, sizeof n_local);
    }
  for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
    {
      g_array_unref (local[c]);
      g_array_set_size (pass->by_cause[c], n_by[c]);
    }
}

static gpointer
span_pass_thread (gpointer data)
{
  span_pass (data);
  return NULL;
}

/* The queued part of idle spans, from ops [e0, e1) of each of the GPU's op lanes (a half of each,
 * on a thread of its own).  An op cannot start inside an idle span, so the idle spans its wait
 * (launch call's return to its start) meets end in (return, start]: the first of them from the
 * return on, the rest whole.  The whole ones are marked in a difference array, the earliest
 * return kept for each first one: O(ops), with cursors, as a lane's starts and returns mostly
 * rise. */
typedef struct
{
  SlAnalyzeCtx *ctx;
  guint         gpu;
  GArray       *idle;
  guint         half, halves;
  gint32       *whole;      /* n + 1 */
  SlTime       *from;       /* n */
  SlTime      **returns;    /* the account's: filled for the pass's half of each lane */
} QueuedPass;

static void
queued_pass (QueuedPass *pass)
{
  SlAnalyzeCtx *ctx = pass->ctx;
  SlGpuInfo *gi = &ctx->gpus[pass->gpu];
  guint n = pass->idle->len;
  SlTime s0 = n > 0 ? g_array_index (pass->idle, SlSpan, 0).s : 0;

  /* filled here, on the pass's own thread: the pages are new */
  for (guint i = 0; i < n; i++)
    pass->from[i] = G_MAXINT64;

  for (guint k = 0; k < gi->ops->len; k++)
    {
      const SlLane *lane = sl_trace_get_lane (ctx->trace, g_array_index (gi->ops, guint32, k));
      gsize first = sl_lane_lower_bound (lane, s0);
      gsize e0 = lane->n_events * pass->half / pass->halves;
      gsize e1 = lane->n_events * (pass->half + 1) / pass->halves;
      SlTime *returns = pass->returns[k];
      guint lo_at = 0, hi_at = 0;
      SlTime lo_t = G_MAXINT64;
      const SlLane *al = NULL;

      for (gsize e = e0; e < e1; e++)
        {
          const SlEvent *op = &lane->events[e];
          gsize ai;
          guint lo, hi;
          SlTime ret;
          returns[e] = _sl_launch_thread_near (ctx, op, &al, &ai) < 0 ? G_MININT64
                                                                      : al->events[ai].end;
          ret = returns[e];
          /* the idle spans start at s0: an op before cannot wait in one */
          if (e < first || ret == G_MININT64 || ret >= op->start)
            continue;
          if (ret < lo_t)
            lo_at = spans_after (pass->idle, ret);
          while (lo_at < n && g_array_index (pass->idle, SlSpan, lo_at).e <= ret)
            lo_at++;
          lo_t = ret;
          lo = lo_at;
          if (lo >= n || g_array_index (pass->idle, SlSpan, lo).e > op->start)
            continue;
          /* hi: the first span ending after the op's start; the ones before it end at or
           * before */
          if (hi_at < lo)
            hi_at = lo;
          while (hi_at < n && g_array_index (pass->idle, SlSpan, hi_at).e <= op->start)
            hi_at++;
          hi = hi_at;
          pass->from[lo] = MIN (pass->from[lo], ret);
          if (hi > lo + 1)
            {
              pass->whole[lo + 1]++;
              pass->whole[hi]--;
            }
        }
    }
}

static gpointer
queued_pass_thread (gpointer data)
{
  queued_pass (data);
  return NULL;
}

SlIdleAccount *
_sl_idle_account (SlAnalyzeCtx *ctx,
                  guint         gpu)
{
  SlGpuInfo *gi = &ctx->gpus[gpu];
  SlIdleAccount *acc;
  GArray *threads;
  guint n, halves;
  g_autofree SlTime *queued_from = NULL;

  if (gi->account != NULL)
    return gi->account;
  acc = g_new0 (SlIdleAccount, 1);
  acc->idle = g_array_new (FALSE, FALSE, sizeof (SlSpan));
  for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
    acc->claimed[c] = g_array_new (FALSE, FALSE, sizeof (SlSpan));
  acc->given = g_array_new (FALSE, FALSE, sizeof (SlSpan));
  acc->spare = g_array_new (FALSE, FALSE, sizeof (SlSpan));
  account_window (ctx, gpu, &acc->s, &acc->e);

  /* the holes of the busy union, the window's ends included */
  {
    HoleScan h = { acc->s, acc->e, acc->s, acc->idle, 0 };
    SlSpan tail;
    if (gi->ops->len > 0)
      sl_trace_gpu_busy_foreach (ctx->trace, gpu, SL_UTIL_ANY, hole_scan_cb, &h);
    g_array_set_size (acc->idle, h.n);
    tail = (SlSpan) { MAX (h.prev_end, acc->s), acc->e };
    if (tail.e > tail.s)
      g_array_append_val (acc->idle, tail);
  }
  n = acc->idle->len;
  /* two threads where there are many spans (a 10^7-event trace: 3·10^6 spans, ~1 s a core) */
  halves = n >= 100000 && g_get_num_processors () > 1 ? 2 : 1;

  /* queued: where each idle span's wait for launched work starts */
  queued_from = g_new (SlTime, MAX (n, 1));
  {
    QueuedPass qp[2];
    GThread *helper = NULL;
    gint64 depth = 0;

    acc->returns = g_new0 (SlTime *, gi->ops->len + 1);
    for (guint k = 0; k < gi->ops->len; k++)
      acc->returns[k] = g_new (SlTime, MAX (sl_trace_get_lane (ctx->trace,
                                                              g_array_index (gi->ops, guint32,
                                                                             k))->n_events, 1));
    for (guint h = 0; h < halves; h++)
      qp[h] = (QueuedPass) { ctx, gpu, acc->idle, h, halves, g_new0 (gint32, n + 1),
                             g_new (SlTime, MAX (n, 1)), acc->returns };
    if (halves == 2)
      helper = g_thread_new ("sl-idle", queued_pass_thread, &qp[1]);
    queued_pass (&qp[0]);
    if (helper != NULL)
      g_thread_join (helper);
    for (guint i = 0; i < n; i++)
      {
        const SlSpan *sp = &g_array_index (acc->idle, SlSpan, i);
        SlTime from = qp[0].from[i];
        for (guint h = 0; h < halves; h++)
          {
            depth += qp[h].whole[i];
            from = MIN (from, qp[h].from[i]);
          }
        queued_from[i] = depth > 0 ? sp->s : from;
      }
    for (guint h = 0; h < halves; h++)
      {
        g_free (qp[h].whole);
        g_free (qp[h].from);
      }
  }

  /* the launching threads in each idle span, and the split by cause */
  threads = host_threads (ctx, gpu);
  {
    SpanPass pass[2];
    GThread *helper = NULL;

    /* the threads share the CUDA call classes: made first, read only then */
    for (guint k = 0; k < threads->len; k++)
      {
        const SlLane *api = _sl_lane_or_null (ctx, ctx->tl[g_array_index (threads, guint,
                                                                          k)].api);
        guint32 last = SL_NO_STR;
        for (gsize e = 0; api != NULL && e < api->n_events; e++)
          if (api->events[e].name != last)
            {
              last = api->events[e].name;
              _sl_api_class (ctx, last);
            }
      }
    for (guint h = 0; h < halves; h++)
      {
        pass[h] = (SpanPass) { ctx, gpu, threads, acc->idle, queued_from, n * h / halves,
                               n * (h + 1) / halves, { NULL } };
        for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
          pass[h].by_cause[c] = g_array_new (FALSE, FALSE, sizeof (SlSpan));
      }
    if (halves == 2)
      helper = g_thread_new ("sl-idle", span_pass_thread, &pass[1]);
    span_pass (&pass[0]);
    if (helper != NULL)
      g_thread_join (helper);
    /* the first half's pieces become the account's, the second's appended */
    for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
      {
        acc->by_cause[c] = g_steal_pointer (&pass[0].by_cause[c]);
        for (guint h = 1; h < halves; h++)
          {
            g_array_append_vals (acc->by_cause[c], pass[h].by_cause[c]->data,
                                 pass[h].by_cause[c]->len);
            g_array_unref (pass[h].by_cause[c]);
          }
      }
  }
  for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
    {
      acc->total[c] = _sl_spans_total (acc->by_cause[c]);
      acc->idle_total = _sl_time_add (acc->idle_total, acc->total[c]);
    }
  g_assert (acc->idle_total == _sl_spans_total (acc->idle));
  gi->account = acc;
  return acc;
}

SlTime
_sl_idle_in (SlIdleAccount *account,
             guint          causes,
             SlTime         a,
             SlTime         b)
{
  SlTime total = 0;

  for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
    {
      GArray *spans = account->by_cause[c];
      if ((causes & (1u << c)) == 0)
        continue;
      for (guint i = spans_after (spans, a); i < spans->len; i++)
        {
          const SlSpan *sp = &g_array_index (spans, SlSpan, i);
          if (sp->s >= b)
            break;
          total = _sl_time_add (total, MIN (sp->e, b) - MAX (sp->s, a));
        }
    }
  return total;
}

/* --- attribution ------------------------------------------------------------------------------ */

/* Gives `requests` (sorted, overlaps clipped away) the pieces of one cause in their spans that
 * no finding has, and adds them to that cause's claimed union.  The requests, the cause's pieces
 * and its claimed spans are walked with cursors: O(requests + pieces + claimed) for a batch
 * (tiny_kernels asks for ~10^6 spans between instances), and a request that meets no piece of
 * the cause costs one comparison. */
static void
attribute_cause (SlIdleAccount *acc,
                 guint          cause,
                 GArray        *requests)
{
  const SlSpan *pieces = (const SlSpan *) (void *) acc->by_cause[cause]->data;
  const SlSpan *claimed = (const SlSpan *) (void *) acc->claimed[cause]->data;
  guint n_pieces = acc->by_cause[cause]->len, n_claimed = acc->claimed[cause]->len;
  guint at = 0, claimed_at = 0, n_given = 0;
  GArray *given = acc->given;
  SlTime done = G_MININT64;

  for (guint r = 0; r < requests->len && at < n_pieces; r++)
    {
      SlIdleRequest *req = &g_array_index (requests, SlIdleRequest, r);
      SlTime rs = MAX (req->s, done), re = req->e;

      if (re <= rs)
        continue;
      done = re;
      while (at < n_pieces && pieces[at].e <= rs)
        at++;
      /* each piece's part in the request, less what was given before */
      for (guint k = at; k < n_pieces && pieces[k].s < re; k++)
        {
          SlTime pos = MAX (pieces[k].s, rs), e = MIN (pieces[k].e, re);
          while (claimed_at < n_claimed && claimed[claimed_at].e <= pos)
            claimed_at++;
          for (guint j = claimed_at; j < n_claimed && claimed[j].s < e; j++)
            {
              if (claimed[j].s > pos)
                {
                  span_push (given, &n_given, (SlSpan) { pos, claimed[j].s });
                  *req->attributed = _sl_time_add (*req->attributed, claimed[j].s - pos);
                }
              pos = MAX (pos, claimed[j].e);
            }
          if (pos < e)
            {
              span_push (given, &n_given, (SlSpan) { pos, e });
              *req->attributed = _sl_time_add (*req->attributed, e - pos);
            }
        }
    }
  /* the first claims of a cause (launch_latency's: ~10^6 queued pieces): what was given is the
   * union, touching spans joined in place, and its array takes the claimed one's place */
  if (n_given > 0 && n_claimed == 0)
    {
      SlSpan *g = (SlSpan *) (void *) given->data;
      guint n = 0;

      for (guint j = 0; j < n_given; j++)
        if (n > 0 && g[j].s <= g[n - 1].e)
          g[n - 1].e = MAX (g[n - 1].e, g[j].e);
        else
          g[n++] = g[j];
      g_array_set_size (given, n);
      acc->given = acc->claimed[cause];
      acc->claimed[cause] = given;
    }
  /* else the claimed union grows by what was given: the two merged into the spare array, which
   * becomes the union (touching spans joined) */
  else if (n_given > 0)
    {
      GArray *merged = acc->spare;
      const SlSpan *g = (const SlSpan *) (void *) given->data;
      SlSpan *out;
      guint i = 0, j = 0, n = 0;

      g_array_set_size (merged, n_claimed + n_given);
      out = (SlSpan *) (void *) merged->data;
      while (i < n_claimed || j < n_given)
        {
          SlSpan sp = j >= n_given || (i < n_claimed && claimed[i].s <= g[j].s) ? claimed[i++]
                                                                                : g[j++];
          if (n > 0 && sp.s <= out[n - 1].e)
            out[n - 1].e = MAX (out[n - 1].e, sp.e);
          else
            out[n++] = sp;
        }
      g_array_set_size (merged, n);
      acc->spare = acc->claimed[cause];
      acc->claimed[cause] = merged;
    }
}

void
_sl_idle_attribute (SlAnalyzeCtx *ctx,
                    guint         gpu,
                    guint         causes,
                    GArray       *requests)
{
  SlIdleAccount *acc = _sl_idle_account (ctx, gpu);

  /* requests in time order, each clipped (in attribute_cause) to start where the one before
   * ended: a nanosecond goes to the request that starts first; the causes partition the idle
   * time, so each is given on its own */
  _sl_sort_by_start (requests->data, requests->len, sizeof (SlIdleRequest));
  for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
    if ((causes & (1u << c)) != 0)
      attribute_cause (acc, c, requests);
}

void
_sl_finding_set_attributed (SlFinding *f,
                            SlTime     attributed)
{
  f->idle_view = TRUE;
  f->attributed_idle = MAX (attributed, 0);
  f->cost = f->attributed_idle;
  _sl_evidence_duration (f, "attributed_idle_ns", "GPU idle time it accounts for",
                         f->attributed_idle);
}

/* --- blame by majority ------------------------------------------------------------------------ */

void
_sl_blame_free (SlBlame *blame)
{
  if (blame == NULL)
    return;
  g_free (blame->name);
  g_free (blame);
}

typedef struct
{
  SlTime  overlap;
  guint32 depth;
} NvtxCover;

typedef struct
{
  SlTime      a, b;
  GHashTable *by_name;    /* name id → NvtxCover */
  guint32     depth;
} NvtxScan;

static gboolean
nvtx_cover_cb (const SlLane *lane,
               gsize         index,
               gpointer      user_data)
{
  NvtxScan *n = user_data;
  const SlEvent *ev = &lane->events[index];
  SlTime d = MIN (ev->end, n->b) - MAX (ev->start, n->a);
  NvtxCover *c;

  if (d <= 0 || (ev->link & SL_NVTX_MARK) != 0)
    return TRUE;
  c = g_hash_table_lookup (n->by_name, GUINT_TO_POINTER (ev->name));
  if (c == NULL)
    {
      c = g_new0 (NvtxCover, 1);
      g_hash_table_insert (n->by_name, GUINT_TO_POINTER (ev->name), c);
    }
  c->overlap = _sl_time_add (c->overlap, d);
  c->depth = MAX (c->depth, n->depth);
  return TRUE;
}

/* Levels of a blame, most specific first; a thread's blame is the first level that covers half. */
enum
{
  LEVEL_CALL,
  LEVEL_NVTX,
  LEVEL_SAMPLE,
  LEVEL_STATE,
  LEVEL_NONE
};

static SlBlame *
thread_blame (SlAnalyzeCtx *ctx,
              gint          thread,
              SlTime        a,
              SlTime        b,
              guint        *level)
{
  const SlThreadLanes *tl = &ctx->tl[thread];
  SlTime len = b - a;
  SlBlame *blame = g_new0 (SlBlame, 1);

  blame->thread = thread;
  /* a CUDA or OS runtime call: the name whose calls cover the most */
  {
    g_autoptr (GHashTable) api = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    g_autoptr (GHashTable) osrt = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    SlTime api_t, osrt_t;
    guint32 api_top, osrt_top;

    _sl_overlap_sum (ctx, _sl_lane_or_null (ctx, tl->api), a, b, api, SL_CALLS_ALL, NULL);
    _sl_overlap_sum (ctx, _sl_lane_or_null (ctx, tl->osrt), a, b, osrt, SL_CALLS_ALL, NULL);
    api_top = _sl_top_name (api, &api_t);
    osrt_top = _sl_top_name (osrt, &osrt_t);
    if (MAX (api_t, osrt_t) * 2 >= len && MAX (api_t, osrt_t) > 0)
      {
        gboolean is_api = api_t >= osrt_t;
        blame->kind = is_api ? SL_BLAME_CUDA_API : SL_BLAME_OSRT;
        blame->name_id = is_api ? api_top : osrt_top;
        blame->name = g_strdup (sl_trace_str (ctx->trace, blame->name_id));
        blame->overlap = is_api ? api_t : osrt_t;
        *level = LEVEL_CALL;
        return blame;
      }
  }
  /* an NVTX range: the deepest whose name covers half (its enclosing ranges cover it too) */
  if (tl->nvtx != NULL)
    {
      g_autoptr (GHashTable) by_name = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      GHashTableIter it;
      gpointer k, v;
      guint32 best = SL_NO_STR;
      const NvtxCover *bc = NULL;

      for (guint n = 0; n < tl->nvtx->len; n++)
        {
          const SlLane *lane = sl_trace_get_lane (ctx->trace, g_array_index (tl->nvtx, guint32, n));
          NvtxScan scan = { a, b, by_name, lane->depth };
          sl_lane_overlap (lane, a, b, nvtx_cover_cb, &scan);
        }
      g_hash_table_iter_init (&it, by_name);
      while (g_hash_table_iter_next (&it, &k, &v))
        {
          const NvtxCover *c = v;
          if (c->overlap * 2 < len)
            continue;
          if (bc == NULL || c->depth > bc->depth
              || (c->depth == bc->depth && c->overlap > bc->overlap))
            {
              bc = c;
              best = GPOINTER_TO_UINT (k);
            }
        }
      if (bc != NULL)
        {
          blame->kind = SL_BLAME_NVTX;
          blame->name_id = best;
          blame->name = g_strdup (sl_trace_str (ctx->trace, best));
          blame->overlap = bc->overlap;
          *level = LEVEL_NVTX;
          return blame;
        }
    }
  /* the function most of its samples are in */
  if (tl->sample_period > 0)
    {
      guint32 sym, mod;
      gsize n = _sl_samples_top (ctx, _sl_lane_or_null (ctx, tl->samples), a, b, &sym, &mod);
      SlTime covered = MIN ((SlTime) n * tl->sample_period, len);
      if (n > 0 && covered * 2 >= len)
        {
          blame->kind = SL_BLAME_SAMPLE;
          blame->name = _sl_sample_name (ctx, sym, mod);
          blame->overlap = covered;
          *level = LEVEL_SAMPLE;
          return blame;
        }
    }
  /* a thread state */
  {
    SlStateTimes st;
    _sl_thread_states (ctx, thread, a, b, &st);
    if (st.any)
      {
        static const char *const names[SL_N_THREAD_STATES] = {
          "unknown", "running", "runnable", "blocked",
        };
        guint best = SL_STATE_RUNNING;
        for (guint s = SL_STATE_RUNNING; s < SL_N_THREAD_STATES; s++)
          if (st.time[s] > st.time[best])
            best = s;
        if (st.time[best] * 2 >= len && st.time[best] > 0)
          {
            blame->kind = SL_BLAME_STATE;
            blame->name = g_strdup (names[best]);
            blame->overlap = st.time[best];
            *level = LEVEL_STATE;
            return blame;
          }
      }
  }
  blame->kind = SL_BLAME_NONE;
  blame->thread = -1;
  *level = LEVEL_NONE;
  return blame;
}

SlBlame *
_sl_blame (SlAnalyzeCtx *ctx,
           guint         gpu,
           SlTime        a,
           SlTime        b)
{
  SlGpuInfo *gi = &ctx->gpus[gpu];
  GArray *threads = host_threads (ctx, gpu);
  SlBlame *best = NULL;
  guint best_level = LEVEL_NONE + 1;

  /* the main launching thread first: what it does is what starves the GPU */
  if (gi->launcher >= 0)
    {
      best = thread_blame (ctx, gi->launcher, a, b, &best_level);
      if (best_level != LEVEL_NONE)
        return best;
    }
  for (guint k = 0; k < threads->len; k++)
    {
      gint t = (gint) g_array_index (threads, guint, k);
      guint level;
      SlBlame *bl;
      if (t == gi->launcher)
        continue;
      bl = thread_blame (ctx, t, a, b, &level);
      if (best == NULL || level < best_level
          || (level == best_level && bl->overlap > best->overlap))
        {
          _sl_blame_free (best);
          best = bl;
          best_level = level;
        }
      else
        _sl_blame_free (bl);
    }
  if (best == NULL)
    {
      best = g_new0 (SlBlame, 1);
      best->thread = -1;
    }
  return best;
}

/* --- launch_latency --------------------------------------------------------------------------- */

typedef struct
{
  guint32 stream;
  guint   count;
} StreamCount;

/* The late kernels of a GPU, from a half of each of its kernel lanes (a thread each where there
 * are many: every kernel's launch call is looked up) */
typedef struct
{
  SlAnalyzeCtx *ctx;
  guint         gpu;
  SlTime        latency;
  GArray       *queued;      /* the account's queued idle spans */
  SlTime      **returns;     /* the account's launch returns, by op lane */
  guint         half, halves;
  SlTime       *attributed;  /* the requests' accumulator */
  GArray       *requests;    /* SlIdleRequest */
  GArray       *delays;      /* SlTime */
  GArray       *events;      /* SlFindingEvent: launch call and kernel, the first ones */
  guint        *late;        /* a count a kernel lane */
  SlTime        first, last, worst;
  gint          thread;      /* the launching thread of the last late kernel */
  gboolean      one_thread;
} LatePass;

static void
late_pass (LatePass *pass)
{
  SlAnalyzeCtx *ctx = pass->ctx;
  SlGpuInfo *gi = &ctx->gpus[pass->gpu];
  GArray *queued = pass->queued, *requests = pass->requests;

  for (guint k = 0; k < gi->kernels->len; k++)
    {
      guint32 li = g_array_index (gi->kernels, guint32, k);
      const SlLane *lane = sl_trace_get_lane (ctx->trace, li);
      const SlTime *returns = NULL;
      gsize w0, w1, e0, e1;
      guint q_at = 0;
      SlTime q_t = G_MININT64;
      const SlLane *al = NULL;

      /* the launch calls' returns, looked up by the account */
      for (guint o = 0; o < gi->ops->len && returns == NULL; o++)
        if (g_array_index (gi->ops, guint32, o) == li)
          returns = pass->returns[o];
      g_assert (returns != NULL);
      _sl_analyze_lane_window (ctx, lane, &w0, &w1);
      e0 = w0 + (w1 - w0) * pass->half / pass->halves;
      e1 = w0 + (w1 - w0) * (pass->half + 1) / pass->halves;
      for (gsize e = e0; e < e1; e++)
        {
          const SlEvent *ev = &lane->events[e];
          gsize ai;
          SlTime delay, ret = returns[e];
          if (ret == G_MININT64)
            continue;
          delay = ev->start - ret;
          if (delay <= pass->latency)
            continue;
          /* a graph's later nodes wait for its earlier ones, not for their launch: only the
           * node its launch call points at (the first to run) is judged */
          if (_sl_kernel_is_graph_node (ctx->trace, lane, ev))
            {
              const SlLane *gl;
              gsize gi_index;
              if (!sl_trace_resolve (ctx->trace, ev->link, &gl, &gi_index)
                  || gl->events[gi_index].link != lane->base + e)
                continue;
            }
          /* asked for only where the wait meets queued idle time (a host running ahead queues
           * ~10^6 kernels behind busy work: none of it idle); a cursor, as the returns of a
           * stream's launches mostly rise */
          if (ret < q_t)
            q_at = spans_after (queued, ret);
          while (q_at < queued->len && g_array_index (queued, SlSpan, q_at).e <= ret)
            q_at++;
          q_t = ret;
          if (q_at >= queued->len || g_array_index (queued, SlSpan, q_at).s >= ev->start)
            continue;
          (void) _sl_launch_thread_near (ctx, ev, &al, &ai);
          /* one accumulator for the GPU: overlapping waits of a stream (kernels queued back to
           * back) are asked for as their union */
          if (requests->len > 0
              && g_array_index (requests, SlIdleRequest, requests->len - 1).e >= ret
              && g_array_index (requests, SlIdleRequest, requests->len - 1).s <= ret)
            {
              SlIdleRequest *last = &g_array_index (requests, SlIdleRequest, requests->len - 1);
              last->e = MAX (last->e, ev->start);
            }
          else
            {
              SlIdleRequest r = { ret, ev->start, pass->attributed };
              g_array_append_val (requests, r);
            }
          g_array_append_val (pass->delays, delay);
          pass->first = MIN (pass->first, al->events[ai].start);
          pass->last = MAX (pass->last, ev->end);
          pass->worst = MAX (pass->worst, delay);
          pass->one_thread &= pass->thread < 0 || pass->thread == al->thread;
          pass->thread = al->thread;
          pass->late[k]++;
          if (pass->events->len < SL_MAX_FINDING_EVENTS)
            {
              SlFindingEvent pair[2] = { { al->index, ai }, { lane->index, e } };
              g_array_append_vals (pass->events, pair, 2);
            }
        }
    }
}

static gpointer
late_pass_thread (gpointer data)
{
  late_pass (data);
  return NULL;
}

void
_sl_rule_launch_latency (SlAnalyzeCtx *ctx)
{
  SlTime latency = (SlTime) _sl_analyze_param (ctx, "latency");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      g_autoptr (GArray) delays = g_array_new (FALSE, FALSE, sizeof (SlTime));
      g_autoptr (GArray) requests = g_array_new (FALSE, FALSE, sizeof (SlIdleRequest));
      g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (SlFindingEvent));
      g_autoptr (GArray) streams = g_array_new (FALSE, FALSE, sizeof (StreamCount));
      SlTime attributed = 0, first = G_MAXINT64, last = G_MININT64, worst = 0;
      gint thread = -1;
      gboolean one_thread = TRUE;
      LatePass pass[2];
      guint halves = 1;
      gsize n_kernels = 0;

      if (gi->kernels->len == 0)
        continue;
      for (guint k = 0; k < gi->kernels->len; k++)
        n_kernels += sl_trace_get_lane (ctx->trace,
                                        g_array_index (gi->kernels, guint32, k))->n_events;
      if (n_kernels >= 100000 && g_get_num_processors () > 1)
        halves = 2;
      for (guint h = 0; h < halves; h++)
        pass[h] = (LatePass) { ctx, g, latency, _sl_idle_account (ctx, g)->by_cause[SL_IDLE_QUEUED],
                               _sl_idle_account (ctx, g)->returns, h, halves, &attributed,
                               g_array_new (FALSE, FALSE, sizeof (SlIdleRequest)),
                               g_array_new (FALSE, FALSE, sizeof (SlTime)),
                               g_array_new (FALSE, FALSE, sizeof (SlFindingEvent)),
                               g_new0 (guint, gi->kernels->len),
                               G_MAXINT64, G_MININT64, 0, -1, TRUE };
      {
        GThread *helper = halves == 2 ? g_thread_new ("sl-late", late_pass_thread, &pass[1])
                                      : NULL;
        late_pass (&pass[0]);
        if (helper != NULL)
          g_thread_join (helper);
      }
      /* the halves together, in the order one pass would have found them */
      for (guint h = 0; h < halves; h++)
        {
          LatePass *p = &pass[h];
          g_array_append_vals (requests, p->requests->data, p->requests->len);
          g_array_append_vals (delays, p->delays->data, p->delays->len);
          first = MIN (first, p->first);
          last = MAX (last, p->last);
          worst = MAX (worst, p->worst);
          if (p->thread >= 0)
            {
              one_thread &= p->one_thread && (thread < 0 || thread == p->thread);
              thread = p->thread;
            }
        }
      for (guint k = 0; k < gi->kernels->len; k++)
        {
          guint32 li = g_array_index (gi->kernels, guint32, k);
          StreamCount sc = { sl_trace_get_lane (ctx->trace, li)->stream_id, 0 };
          for (guint h = 0; h < halves; h++)
            {
              sc.count += pass[h].late[k];
              /* pairs: launch call, kernel */
              for (guint i = 0; i + 1 < pass[h].events->len; i += 2)
                if (g_array_index (pass[h].events, SlFindingEvent, i + 1).lane == li
                    && events->len < SL_MAX_FINDING_EVENTS)
                  g_array_append_vals (events, &g_array_index (pass[h].events, SlFindingEvent, i),
                                       2);
            }
          if (sc.count > 0)
            g_array_append_val (streams, sc);
        }
      for (guint h = 0; h < halves; h++)
        {
          g_array_unref (pass[h].requests);
          g_array_unref (pass[h].delays);
          g_array_unref (pass[h].events);
          g_free (pass[h].late);
        }
      if (delays->len == 0)
        continue;
      /* only the delays' idle time: a late kernel on a busy GPU waits behind other work, which
       * is the host running ahead, not a cost */
      _sl_idle_attribute (ctx, g, 1u << SL_IDLE_QUEUED, requests);
      if (attributed < latency)
        {
          g_autofree char *d = sl_format_duration (attributed);
          g_autofree char *lat = sl_format_duration (latency);
          _sl_analyze_note (ctx, "GPU %u: %u kernels started over %s after their launch, with "
                            "only %s of idle time while they waited (the GPU was busy with "
                            "earlier work)", _sl_gpu_id (ctx, g), delays->len,
                            lat, d);
          continue;
        }
      {
        SlFinding *f = _sl_finding_new (ctx, first, last, 0);
        g_autofree char *med = sl_format_duration (_sl_median_of (delays));
        g_autofree char *w = sl_format_duration (worst);
        g_autofree char *idle = sl_format_duration (attributed);
        g_autoptr (GString) where = g_string_new (NULL);

        for (guint i = 0; i < streams->len && i < 8; i++)
          g_string_append_printf (where, "%s%u (%u)", i ? ", " : "",
                                  g_array_index (streams, StreamCount, i).stream,
                                  g_array_index (streams, StreamCount, i).count);
        if (streams->len > 8)
          g_string_append_printf (where, " and %u more", streams->len - 8);
        f->gpu = (gint) _sl_gpu_id (ctx, g);
        f->stream = streams->len == 1 ? g_array_index (streams, StreamCount, 0).stream : 0;
        f->thread = one_thread ? thread : -1;
        f->global_pid = gi->global_pid;
        _sl_finding_set_attributed (f, attributed);
        _sl_evidence (f, "count", "Late kernels", delays->len, "%u", delays->len);
        _sl_evidence (f, "streams", "On streams (late kernels)", streams->len, "%s", where->str);
        _sl_evidence (f, "median_delay_ns", "Median queue delay",
                      (double) _sl_median_of (delays), "%s", med);
        _sl_evidence (f, "max_delay_ns", "Longest queue delay", (double) worst, "%s", w);
        _sl_evidence (f, "idle_ns", "GPU idle while they waited", (double) attributed, "%s",
                      idle);
        for (guint i = 0; i < events->len; i++)
          _sl_finding_add_event (ctx, f, g_array_index (events, SlFindingEvent, i).lane,
                                 g_array_index (events, SlFindingEvent, i).index);
        _sl_finding_add_gpu_lanes (ctx, f, g);
        f->summary = g_strdup_printf ("GPU %u idle %s while kernels launched for it waited to "
                                      "start (%u late kernels, median %s after their launch "
                                      "returned, most of it behind other work)",
                                      _sl_gpu_id (ctx, g), idle, delays->len, med);
        f->advice = g_strdup ("The GPU was idle while work launched for it waited: the launches "
                              "waited on something else (a stream or event dependency, an "
                              "implicit synchronization of the legacy default stream, or the "
                              "driver), not on the host. Use non-blocking streams and check the "
                              "dependencies of these launches.");
      }
    }
}
