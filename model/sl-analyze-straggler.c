/* sl-analyze-straggler.c: the straggler rule.  In a trace of several ranks of one job (merged
 * files; one recording whose processes say their rank; or one nsys export of the whole job, a
 * process a rank, each on GPUs of its own: sl_trace_comm_ranks), per training step
 * (ProfilerStep#N or NVTX "step" ranges, matched across ranks by number, else by order) the rank
 * that takes longest to reach the step's collectives: its step less the time its GPUs spent in
 * communication kernels (NCCL), which is where the others wait for it.  In a synchronous job
 * every rank's step ends together; the straggler is the one that waits least.  The rank that is
 * the straggler in most steps is reported with what it did differently (its host's OS calls,
 * CUDA calls, GPU compute, per step, against the others' mean) and how long the others waited.
 *
 * Without steps the collectives themselves tell it, GPU by GPU: a collective (or SendRecv) runs
 * on each rank's GPU from when that rank gets there until the last one has, so a rank whose
 * communication kernels start first and run long waits in them for the one whose matching
 * kernel starts last.  The rank that waits most is named with the one it waits for, their NCCL
 * time per GPU, and the longest wait with what the late GPU did meanwhile (computing, or idle).
 * A job has 2 … 10^3 ranks of 10^3 … 10^5 collectives each; that comparison runs for up to 64
 * ranks (O(ranks × collectives), each matched by a binary search). */
#include "sl-analyze-private.h"

#include "sl-comm.h"
#include "sl-format.h"
#include "sl-lane.h"
#include "sl-sort.h"
#include "sl-summaries.h"
#include "sl-utilization.h"

typedef struct
{
  const SlCommRank *who;  /* its processes or file (sl_trace_comm_ranks) */
  char   *label;         /* "rank 3", the file's name, "process 144" */
  char   *named;         /* the same with its GPUs: "process 144 (GPU 0)" */
  char   *gpu_names;     /* "GPU 0", "GPUs 0, 1", "8 GPUs"; "no GPU" */
  GArray *steps;         /* SlStep of its step thread */
  GArray *matched;       /* guint: index into steps of each matched step, -1 (G_MAXUINT) none */
  /* per matched step, then their mean */
  SlTime  own, comm, osrt, api, compute;
  guint32 osrt_top;
  guint   slowest;       /* matched steps it was the straggler of */
  GArray *own_each;      /* SlTime per matched step */
  GArray *gpus;          /* guint: the GPUs its kernels ran on, in order */
} Rank;

static void
rank_clear (gpointer data)
{
  Rank *r = data;

  g_free (r->label);
  g_free (r->named);
  g_free (r->gpu_names);
  if (r->steps != NULL)
    g_array_unref (r->steps);
  if (r->matched != NULL)
    g_array_unref (r->matched);
  if (r->own_each != NULL)
    g_array_unref (r->own_each);
  if (r->gpus != NULL)
    g_array_unref (r->gpus);
}

/* The ranks of the trace, each with the GPUs its kernels ran on: "process 144 (GPU 0)". */
static void
find_ranks (SlAnalyzeCtx *ctx,
            const GArray *comm_ranks,
            GArray       *ranks)
{
  SlTrace *trace = ctx->trace;

  for (guint i = 0; i < comm_ranks->len; i++)
    {
      Rank r = { .who = &g_array_index (comm_ranks, SlCommRank, i) };
      g_autoptr (GString) label = g_string_new (r.who->label);
      r.gpus = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint g = 0; g < ctx->n_gpus; g++)
        for (guint k = 0; k < ctx->gpus[g].kernels->len; k++)
          {
            const SlLane *lane = sl_trace_get_lane (trace, g_array_index (ctx->gpus[g].kernels,
                                                                          guint32, k));
            if (lane->n_events > 0 && sl_comm_rank_has_lane (trace, r.who, lane))
              {
                g_array_append_val (r.gpus, g);
                break;
              }
          }
      /* a handful of GPUs named; a rank of a whole node's worth is named as such */
      g_autoptr (GString) gpus = g_string_new (NULL);
      if (r.gpus->len == 0)
        g_string_append (gpus, "no GPU");
      else if (r.gpus->len > 8)
        g_string_append_printf (gpus, "%u GPUs", r.gpus->len);
      for (guint k = 0; k < r.gpus->len && r.gpus->len <= 8; k++)
        g_string_append_printf (gpus, "%s%u", k == 0 ? (r.gpus->len > 1 ? "GPUs " : "GPU ") : ", ",
                                _sl_gpu_id (ctx, g_array_index (r.gpus, guint, k)));
      g_string_append_printf (label, " (%s)", gpus->str);
      r.label = g_strdup (r.who->label);
      r.named = g_string_free (g_steal_pointer (&label), FALSE);
      r.gpu_names = g_string_free (g_steal_pointer (&gpus), FALSE);
      g_array_append_val (ranks, r);
    }
}

/* Matches the ranks' steps: by number where every rank's steps have numbers, else by order;
 * returns how many steps every rank has. */
static guint
match_steps (GArray *ranks)
{
  gboolean numbered = TRUE;
  guint n = G_MAXUINT;

  for (guint i = 0; i < ranks->len; i++)
    {
      GArray *s = g_array_index (ranks, Rank, i).steps;
      for (guint k = 0; k < s->len; k++)
        numbered &= g_array_index (s, SlStep, k).number >= 0;
      n = MIN (n, s->len);
    }
  Rank *first = &g_array_index (ranks, Rank, 0);
  guint matched = 0;
  for (guint i = 0; i < ranks->len; i++)
    g_array_index (ranks, Rank, i).matched = g_array_new (FALSE, FALSE, sizeof (guint));
  if (!numbered)
    {
      for (guint k = 0; k < n; k++)
        for (guint i = 0; i < ranks->len; i++)
          g_array_append_val (g_array_index (ranks, Rank, i).matched, k);
      return n;
    }
  /* the first rank's steps, in its order, that every rank has */
  for (guint k = 0; k < first->steps->len; k++)
    {
      gint64 number = g_array_index (first->steps, SlStep, k).number;
      g_autofree guint *at = g_new (guint, ranks->len);
      gboolean all = TRUE;
      for (guint i = 0; i < ranks->len && all; i++)
        {
          GArray *s = g_array_index (ranks, Rank, i).steps;
          at[i] = G_MAXUINT;
          for (guint j = 0; j < s->len && at[i] == G_MAXUINT; j++)
            if (g_array_index (s, SlStep, j).number == number)
              at[i] = j;
          all = at[i] != G_MAXUINT;
        }
      if (!all)
        continue;
      for (guint i = 0; i < ranks->len; i++)
        g_array_append_val (g_array_index (ranks, Rank, i).matched, at[i]);
      matched++;
    }
  return matched;
}

/* Time of lanes of rank `rank` of `kind` in [a, b): communication or compute kernels, OS
 * calls or CUDA calls of the step thread. */
typedef struct
{
  SlTime comm, compute, osrt, api;
} StepTimes;

static void
step_times (SlAnalyzeCtx *ctx,
            const Rank   *rank,
            const SlStep *step,
            StepTimes    *out)
{
  SlTrace *trace = ctx->trace;
  const SlThreadLanes *tl = &ctx->tl[step->thread];

  memset (out, 0, sizeof *out);
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind != SL_LANE_KERNELS || !sl_comm_rank_has_lane (trace, rank->who, lane))
        continue;
      for (gsize e = sl_lane_lower_bound (lane, step->start);
           e < lane->n_events && lane->events[e].start < step->end; e++)
        {
          const SlEvent *ev = &lane->events[e];
          SlTime d = MIN (ev->end, step->end) - MAX (ev->start, step->start);
          if (d <= 0)
            continue;
          if (sl_name_is_comm (sl_trace_str (trace, ev->name)))
            out->comm = _sl_time_add (out->comm, d);
          else
            out->compute = _sl_time_add (out->compute, d);
        }
    }
  out->osrt = _sl_overlap_sum (ctx, _sl_lane_or_null (ctx, tl->osrt), step->start, step->end,
                               NULL, SL_CALLS_ALL, NULL);
  out->api = _sl_overlap_sum (ctx, _sl_lane_or_null (ctx, tl->api), step->start, step->end, NULL,
                              SL_CALLS_ALL, NULL);
}

/* The median of `times` (SlTime), the mean of the middle two for an even count (as
 * sl_trace_median_step); 0 when empty. */
static SlTime
median_ns (GArray *times)
{
  g_autoptr (GArray) c = g_array_copy (times);

  return c->len == 0 ? 0 : sl_median_int64 ((gint64 *) (void *) c->data, c->len);
}

/* ---- without steps: who waits in the collectives for whom ------------------------------- */

/* A communication kernel of a rank. */
typedef struct
{
  SlTime  start, end;
  guint32 lane;
  guint32 index;   /* in its lane */
  guint   gpu;     /* position in its rank's `gpus` */
} CommOp;

static gint
comm_op_cmp (gconstpointer a,
             gconstpointer b)
{
  const CommOp *x = a, *y = b;

  return x->start < y->start ? -1 : x->start > y->start;
}

/* Its communication kernels that start in the window, by start.  `is_comm` caches, per string
 * id, whether a name is a collective's (1), or not (-1): one look at each name. */
static GArray *
rank_comm_ops (SlAnalyzeCtx *ctx,
               const Rank   *rank,
               GArray       *is_comm)
{
  SlTrace *trace = ctx->trace;
  GArray *ops = g_array_new (FALSE, FALSE, sizeof (CommOp));

  for (guint k = 0; k < rank->gpus->len; k++)
    {
      guint g = g_array_index (rank->gpus, guint, k);
      for (guint j = 0; j < ctx->gpus[g].kernels->len; j++)
        {
          guint32 l = g_array_index (ctx->gpus[g].kernels, guint32, j);
          const SlLane *lane = sl_trace_get_lane (trace, l);
          gsize e0, e1;
          if (!sl_comm_rank_has_lane (trace, rank->who, lane))
            continue;
          _sl_analyze_lane_window (ctx, lane, &e0, &e1);
          for (gsize e = e0; e < e1; e++)
            {
              guint32 name = lane->events[e].name;
              gint8 *known = name < is_comm->len ? &g_array_index (is_comm, gint8, name) : NULL;
              gboolean c;
              if (known != NULL && *known != 0)
                c = *known > 0;
              else
                {
                  c = sl_name_is_comm (sl_trace_str (trace, name));
                  if (known != NULL)
                    *known = c ? 1 : -1;
                }
              if (c)
                {
                  CommOp op = { lane->events[e].start, lane->events[e].end, l, (guint32) e, k };
                  g_array_append_val (ops, op);
                }
            }
        }
    }
  g_array_sort (ops, comm_op_cmp);
  return ops;
}

/* The first of `ops` (by start) that starts in [a, b), NULL when none. */
static const CommOp *
first_op_in (const GArray *ops,
             SlTime        a,
             SlTime        b)
{
  guint lo = 0, hi = ops->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (ops, CommOp, mid).start < a)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < ops->len && g_array_index (ops, CommOp, lo).start < b
           ? &g_array_index (ops, CommOp, lo) : NULL;
}

typedef struct
{
  GArray *ops;          /* CommOp */
  SlTime  comm;         /* its communication kernels' durations summed: its NCCL time */
  SlTime  waited;       /* the union, GPU by GPU, of the time its collectives waited for others */
  SlTime  caused;       /* the waits of the rank that waits most that this one ended */
  const CommOp *longest;    /* that rank's longest wait, its kernel … */
  SlTime  longest_wait;     /* … and how long it waited in it */
  gint    longest_late;     /* … for which rank */
} RankWaits;

/* Each kernel of `w` waits from its start until the last other rank's matching kernel starts
 * (the first of that rank's starting within it); ranks whose kernel started before it were
 * there first.  Fills w's waits and each rank's `caused`. */
static void
rank_waits (RankWaits *all,
            guint      n,
            guint      w,
            guint      n_gpus)
{
  RankWaits *me = &all[w];
  g_autofree GArray **spans = g_new0 (GArray *, MAX (n_gpus, 1));

  me->longest = NULL;
  me->longest_wait = 0;
  me->longest_late = -1;
  for (guint i = 0; i < n; i++)
    all[i].caused = 0;
  for (guint k = 0; k < me->ops->len; k++)
    {
      const CommOp *op = &g_array_index (me->ops, CommOp, k);
      SlTime arrival = op->start;
      gint late = -1;
      for (guint o = 0; o < n; o++)
        {
          const CommOp *m = o == w ? NULL : first_op_in (all[o].ops, op->start, op->end);
          if (m != NULL && m->start > arrival)
            {
              arrival = m->start;
              late = (gint) o;
            }
        }
      if (late < 0)
        continue;
      SlTime wait = arrival - op->start;
      all[late].caused = _sl_time_add (all[late].caused, wait);
      if (spans[op->gpu] == NULL)
        spans[op->gpu] = g_array_new (FALSE, FALSE, sizeof (SlSpan));
      SlSpan span = { op->start, arrival };
      g_array_append_val (spans[op->gpu], span);
      if (wait > me->longest_wait)
        {
          me->longest = op;
          me->longest_wait = wait;
          me->longest_late = late;
        }
    }
  me->waited = 0;
  for (guint g = 0; g < n_gpus; g++)
    if (spans[g] != NULL)
      {
        _sl_spans_merge (spans[g]);
        me->waited = _sl_time_add (me->waited, _sl_spans_total (spans[g]));
        g_array_unref (spans[g]);
      }
}

/* "GPU 0: 17.173 ms, GPU 1: 8.229 ms": each GPU's NCCL time in the window (GPUs of merged files
 * repeat their device ids: named with their file's rank), their sum in *total.  A few hundred
 * characters at most: a job of 10^3 GPUs is cut short. */
static char *
comm_by_gpu (SlAnalyzeCtx *ctx,
             const GArray *ranks,
             SlTime       *total)
{
  GString *text = g_string_new (NULL);
  gboolean merged = sl_trace_get_n_sources (ctx->trace) > 1;

  *total = 0;
  for (guint i = 0; i < ranks->len; i++)
    {
      const Rank *r = &g_array_index (ranks, Rank, i);
      for (guint k = 0; k < r->gpus->len; k++)
        {
          SlCommTimes ct;
          guint g = g_array_index (r->gpus, guint, k);
          sl_trace_gpu_comm_times (ctx->trace, g, ctx->t0, ctx->t1, &ct);
          *total = _sl_time_add (*total, ct.comm_time);
          if (text->len > 300)
            {
              if (!g_str_has_suffix (text->str, "…"))
                g_string_append (text, ", …");
              continue;
            }
          g_autofree char *d = sl_format_duration (ct.comm_time);
          g_string_append_printf (text, "%s%s%sGPU %u: %s", text->len > 0 ? ", " : "",
                                  merged ? r->label : "", merged ? " " : "", _sl_gpu_id (ctx, g),
                                  d);
        }
    }
  return g_string_free (text, FALSE);
}

/* The window's length and the GPUs it concerns: what no cost may exceed. */
static SlTime
cost_bound (SlAnalyzeCtx *ctx,
            guint         n_gpus)
{
  SlTime a = MAX (ctx->t0, sl_trace_get_start (ctx->trace));
  SlTime b = MIN (ctx->t1, sl_trace_get_end (ctx->trace));

  return b > a ? (SlTime) MIN ((double) (b - a) * MAX (n_gpus, 1), (double) G_MAXINT64) : 0;
}

/* How busy a rank's GPUs were (any work) in `spans` (a merged union), their mean. */
static SlTime
gpus_busy_in (SlAnalyzeCtx *ctx,
              const Rank   *rank,
              const GArray *spans)
{
  SlTime busy = 0;

  if (rank->gpus->len == 0)
    return 0;
  for (guint k = 0; k < rank->gpus->len; k++)
    for (guint i = 0; i < spans->len; i++)
      {
        const SlSpan *s = &g_array_index (spans, SlSpan, i);
        busy = _sl_time_add (busy, sl_trace_gpu_busy_time (ctx->trace,
                                                           g_array_index (rank->gpus, guint, k),
                                                           SL_UTIL_ANY, s->s, s->e));
      }
  return busy / rank->gpus->len;
}

static void
straggler_by_collectives (SlAnalyzeCtx *ctx,
                          GArray       *ranks,
                          double        excess_share)
{
  guint n = ranks->len;

  if (n > 64)
    {
      _sl_analyze_note (ctx, "%u ranks and no training step they share: too many to compare "
                             "their collectives one by one", n);
      return;
    }
  g_autofree RankWaits *all = g_new0 (RankWaits, n);
  g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr (GArray) is_comm = g_array_new (FALSE, TRUE, sizeof (gint8));
  guint n_gpus = 0, with_comm = 0;

  g_array_set_size (is_comm, sl_trace_get_n_strs (ctx->trace));
  for (guint i = 0; i < n; i++)
    {
      Rank *r = &g_array_index (ranks, Rank, i);
      all[i].ops = rank_comm_ops (ctx, r, is_comm);
      g_ptr_array_add (keep, all[i].ops);
      for (guint k = 0; k < all[i].ops->len; k++)
        {
          const CommOp *op = &g_array_index (all[i].ops, CommOp, k);
          all[i].comm = _sl_time_add (all[i].comm, op->end - op->start);
        }
      n_gpus = MAX (n_gpus, r->gpus->len);
      with_comm += all[i].ops->len > 0;
    }

  /* the rank that waits most, and the one it waits for most */
  gint who = -1;
  for (guint w = 0; w < n && with_comm >= 2; w++)
    {
      rank_waits (all, n, w, n_gpus);
      if (who < 0 || all[w].waited > all[who].waited)
        who = (gint) w;
    }
  SlTime window = cost_bound (ctx, 1);
  if (who < 0 || all[who].waited <= 0)
    {
      _sl_analyze_note (ctx, "%u ranks, no training step they share, %s", n,
                        with_comm >= 2 ? "no rank waits in its collectives for another"
                                       : "fewer than two ranks communicate");
      return;
    }
  rank_waits (all, n, (guint) who, n_gpus);
  gint late = 0;
  for (guint i = 0; i < n; i++)
    if (all[i].caused > all[late].caused)
      late = (gint) i;
  /* the waiter's figures, then the late one's own waits (for the waiter or another rank) */
  RankWaits *w = &all[who];
  SlTime waiter_waited = w->waited, waiter_comm = w->comm;
  const CommOp longest = *w->longest;
  SlTime longest_wait = w->longest_wait;
  gint longest_late = w->longest_late;
  rank_waits (all, n, (guint) late, n_gpus);
  SlTime late_waited = all[late].waited, late_comm = all[late].comm;
  _sl_analyze_note (ctx, "%u ranks, no training step they share; %s waits %.1f ms in "
                         "collectives, %s %.1f ms", n, g_array_index (ranks, Rank, who).named,
                    waiter_waited / 1e6, g_array_index (ranks, Rank, late).named,
                    late_waited / 1e6);
  /* below 1 % of the window a wait is the collectives' own jitter */
  if (waiter_waited < (SlTime) ((1 + excess_share) * late_waited) || waiter_waited * 100 < window)
    return;

  const Rank *waiter = &g_array_index (ranks, Rank, who);
  const Rank *slow = &g_array_index (ranks, Rank, late);
  /* what the late rank's GPUs did while the waiter waited: each wait, as a union */
  g_autoptr (GArray) waits = g_array_new (FALSE, FALSE, sizeof (SlSpan));
  for (guint k = 0; k < all[who].ops->len; k++)
    {
      const CommOp *op = &g_array_index (all[who].ops, CommOp, k);
      const CommOp *m = first_op_in (all[late].ops, op->start, op->end);
      if (m != NULL && m->start > op->start)
        {
          SlSpan span = { op->start, m->start };
          g_array_append_val (waits, span);
        }
    }
  _sl_spans_merge (waits);
  if (waits->len == 0)
    return;
  SlTime during = _sl_spans_total (waits);
  SlTime late_busy = MIN (gpus_busy_in (ctx, slow, waits), during);
  SlTime late_idle = during - late_busy;
  /* and in the longest wait, what the rank it waited for did */
  const Rank *longest_rank = &g_array_index (ranks, Rank, longest_late >= 0 ? longest_late : late);
  g_autoptr (GArray) one = g_array_new (FALSE, FALSE, sizeof (SlSpan));
  SlSpan longest_span = { longest.start, longest.start + longest_wait };
  g_array_append_val (one, longest_span);
  SlTime one_busy = MIN (gpus_busy_in (ctx, longest_rank, one), longest_wait);

  /* the cost: the waiter's GPUs waiting, at most the window on each GPU this concerns */
  SlTime cost = MIN (waiter_waited, cost_bound (ctx, waiter->gpus->len + slow->gpus->len));
  /* from its first wait to its last; the longest is its event */
  SlFinding *f = _sl_finding_new (ctx, g_array_index (waits, SlSpan, 0).s,
                                  g_array_index (waits, SlSpan, waits->len - 1).e, cost);
  if (slow->gpus->len > 0)
    {
      guint g = g_array_index (slow->gpus, guint, 0);
      f->gpu = (gint) _sl_gpu_id (ctx, g);
      f->thread = ctx->gpus[g].launcher;
      f->global_pid = ctx->gpus[g].global_pid;
      _sl_finding_add_thread_lanes (ctx, f, ctx->gpus[g].launcher);
    }
  for (guint k = 0; k < waiter->gpus->len; k++)
    _sl_finding_add_gpu_lanes (ctx, f, g_array_index (waiter->gpus, guint, k));
  for (guint k = 0; k < slow->gpus->len; k++)
    _sl_finding_add_gpu_lanes (ctx, f, g_array_index (slow->gpus, guint, k));
  _sl_finding_add_event (ctx, f, longest.lane, longest.index);

  const SlLane *llane = sl_trace_get_lane (ctx->trace, longest.lane);
  const char *kname = sl_trace_str (ctx->trace, llane->events[longest.index].name);
  g_autofree char *short_name = g_strndup (kname, strcspn (kname, "<("));
  g_autofree char *d_waited = sl_format_duration (waiter_waited);
  g_autofree char *d_wcomm = sl_format_duration (waiter_comm);
  g_autofree char *d_lcomm = sl_format_duration (late_comm);
  g_autofree char *d_lwait = sl_format_duration (longest_wait);
  g_autofree char *d_lop = sl_format_duration (longest.end - longest.start);
  g_autofree char *d_busy = sl_format_duration (late_busy);
  g_autofree char *d_idle = sl_format_duration (late_idle);
  g_autofree char *d_one_busy = sl_format_duration (one_busy);
  g_autofree char *d_one_idle = sl_format_duration (longest_wait - one_busy);
  g_autofree char *at = _sl_range_text (ctx, longest.start, longest.end);
  gboolean computing = late_busy >= late_idle;
  f->summary = g_strdup_printf (
    "%s waits %s in its collectives for %s, which reaches them late: NCCL time %s on %s against "
    "%s on %s; the longest wait is %s of a %s %s on %s (%s), while %s was busy %s and idle %s; "
    "over all the waits %s was busy %s and idle %s",
    waiter->named, d_waited, slow->named, d_wcomm, waiter->gpu_names, d_lcomm, slow->gpu_names,
    d_lwait, d_lop, short_name, waiter->gpu_names, at, longest_rank->gpu_names, d_one_busy,
    d_one_idle, slow->gpu_names, d_busy, d_idle);
  f->cause = g_strdup_printf ("%s is the straggler", slow->named);
  if (computing)
    f->advice = g_strdup_printf (
      "%s computes longer on %s before each collective than %s on %s: an unbalanced share of "
      "the work (a bigger shard, longer sequences, more layers or experts) or a slower GPU "
      "(clocks, temperature, another process on it). Balance the partition; the long NCCL time "
      "on %s is waiting, not communication.", slow->label, slow->gpu_names, waiter->label,
      waiter->gpu_names, waiter->gpu_names);
  else
    f->advice = g_strdup_printf (
      "%s leaves %s idle before its collectives: its host gives the GPU its work late (data "
      "loading, Python overhead, a synchronizing call). Look at that process's CPU side in "
      "those gaps; the long NCCL time on %s is waiting, not communication.", slow->label,
      slow->gpu_names, waiter->gpu_names);

  SlTime all_comm = 0;
  g_autofree char *per_gpu = comm_by_gpu (ctx, ranks, &all_comm);
  _sl_evidence (f, "ranks", "Ranks", n, "%u", n);
  _sl_evidence (f, "comm_by_gpu_ns", "NCCL time per GPU", (double) all_comm, "%s", per_gpu);
  _sl_evidence_duration (f, "wait_ns", "It waits in its collectives", waiter_waited);
  _sl_evidence_duration (f, "late_wait_ns", "The late rank waits in its own", late_waited);
  _sl_evidence_duration (f, "comm_ns", "Its NCCL time", waiter_comm);
  _sl_evidence_duration (f, "late_comm_ns", "The late rank's NCCL time", late_comm);
  _sl_evidence_duration (f, "longest_wait_ns", "Longest wait", longest_wait);
  _sl_evidence_duration (f, "longest_op_ns", "In a collective of", longest.end - longest.start);
  _sl_evidence_duration (f, "late_busy_ns", "The late GPU busy while it waits", late_busy);
  _sl_evidence_duration (f, "late_idle_ns", "The late GPU idle while it waits", late_idle);
}

/* ---- the rule ------------------------------------------------------------------------------- */

void
_sl_rule_straggler (SlAnalyzeCtx *ctx)
{
  double excess_share = _sl_analyze_param (ctx, "excess");
  g_autoptr (GArray) ranks = g_array_new (FALSE, TRUE, sizeof (Rank));
  g_autoptr (GArray) comm_ranks = sl_trace_comm_ranks (ctx->trace);

  g_array_set_clear_func (ranks, rank_clear);
  find_ranks (ctx, comm_ranks, ranks);
  if (ranks->len < 2)
    {
      g_string_append (ctx->note, "one rank (merge the ranks' traces, or record the job's "
                                  "processes with RANK set)");
      return;
    }
  for (guint i = 0; i < ranks->len; i++)
    {
      Rank *r = &g_array_index (ranks, Rank, i);
      r->steps = sl_trace_steps (ctx->trace, ctx->t0, ctx->t1, sl_comm_rank_thread_filter,
                                 (gpointer) r->who);
    }
  guint n = match_steps (ranks);
  if (n == 0)
    {
      straggler_by_collectives (ctx, ranks, excess_share);
      return;
    }

  /* per step: each rank's time to the collectives; the one that takes longest */
  g_autoptr (GArray) excess = g_array_new (FALSE, FALSE, sizeof (SlTime));
  g_autoptr (GHashTable) osrt_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autofree StepTimes *each = g_new0 (StepTimes, ranks->len * n);
  g_autofree gint *slowest = g_new (gint, n);
  for (guint i = 0; i < ranks->len; i++)
    g_array_index (ranks, Rank, i).own_each = g_array_new (FALSE, FALSE, sizeof (SlTime));
  for (guint k = 0; k < n; k++)
    {
      SlTime worst = G_MININT64;
      slowest[k] = -1;
      for (guint i = 0; i < ranks->len; i++)
        {
          Rank *r = &g_array_index (ranks, Rank, i);
          const SlStep *s = &g_array_index (r->steps, SlStep,
                                            g_array_index (r->matched, guint, k));
          StepTimes *t = &each[k * ranks->len + i];
          step_times (ctx, r, s, t);
          SlTime own = (s->end - s->start) - t->comm;
          g_array_append_val (r->own_each, own);
          if (own > worst)
            {
              worst = own;
              slowest[k] = (gint) i;
            }
        }
      g_array_index (ranks, Rank, slowest[k]).slowest++;
    }
  /* the straggler of most steps; of those equal, the one with the longest median */
  gint who = 0;
  for (guint i = 1; i < ranks->len; i++)
    {
      Rank *r = &g_array_index (ranks, Rank, i), *w = &g_array_index (ranks, Rank, who);
      if (r->slowest > w->slowest
          || (r->slowest == w->slowest && median_ns (r->own_each) > median_ns (w->own_each)))
        who = (gint) i;
    }
  Rank *straggler = &g_array_index (ranks, Rank, who);

  /* its median time to the collectives against the others' (the median of their medians) */
  g_autoptr (GArray) other_medians = g_array_new (FALSE, FALSE, sizeof (SlTime));
  for (guint i = 0; i < ranks->len; i++)
    if ((gint) i != who)
      {
        SlTime m = median_ns (g_array_index (ranks, Rank, i).own_each);
        g_array_append_val (other_medians, m);
      }
  SlTime mine = median_ns (straggler->own_each), theirs = median_ns (other_medians);
  g_string_append_printf (ctx->note, "%u ranks, %u steps", ranks->len, n);
  if (straggler->slowest * 2 < n || theirs <= 0 || mine < (SlTime) ((1 + excess_share) * theirs))
    return;

  /* what it did differently, per step, against the others' mean; how long the others waited */
  StepTimes me = { 0 }, others = { 0 };
  SlTime cost = 0, first = G_MAXINT64, last = G_MININT64;
  for (guint k = 0; k < n; k++)
    for (guint i = 0; i < ranks->len; i++)
      {
        StepTimes *t = &each[k * ranks->len + i];
        StepTimes *into = (gint) i == who ? &me : &others;
        into->comm = _sl_time_add (into->comm, t->comm);
        into->compute = _sl_time_add (into->compute, t->compute);
        into->osrt = _sl_time_add (into->osrt, t->osrt);
        into->api = _sl_time_add (into->api, t->api);
        if ((gint) i == who)
          {
            const SlStep *s = &g_array_index (straggler->steps, SlStep,
                                              g_array_index (straggler->matched, guint, k));
            first = MIN (first, s->start);
            last = MAX (last, s->end);
            /* each step the straggler is slowest in costs the others its lead */
            if (slowest[k] == who)
              {
                SlTime second = G_MININT64;
                for (guint j = 0; j < ranks->len; j++)
                  if ((gint) j != who)
                    second = MAX (second, g_array_index (g_array_index (ranks, Rank, j).own_each,
                                                         SlTime, k));
                SlTime lead = g_array_index (straggler->own_each, SlTime, k) - second;
                g_array_append_val (excess, lead);
                cost = _sl_time_add (cost, lead);
              }
          }
      }
  guint n_others = ranks->len - 1;
  SlTime per = (SlTime) n;
  me = (StepTimes) { me.comm / per, me.compute / per, me.osrt / per, me.api / per };
  others = (StepTimes) { others.comm / per / n_others, others.compute / per / n_others,
                         others.osrt / per / n_others, others.api / per / n_others };
  /* the OS calls of its steps by name: the top one */
  for (guint k = 0; k < n; k++)
    {
      const SlStep *s = &g_array_index (straggler->steps, SlStep,
                                        g_array_index (straggler->matched, guint, k));
      _sl_overlap_sum (ctx, _sl_lane_or_null (ctx, ctx->tl[s->thread].osrt), s->start, s->end,
                       osrt_names, SL_CALLS_ALL, NULL);
    }
  SlTime top_t = 0;
  guint32 top = _sl_top_name (osrt_names, &top_t);

  /* each lead is within one of its steps, which do not overlap: at most the window, on each of
   * the GPUs of the ranks that waited */
  guint n_gpus = 0;
  for (guint i = 0; i < ranks->len; i++)
    n_gpus += (gint) i != who ? g_array_index (ranks, Rank, i).gpus->len : 0;
  cost = MIN (cost, cost_bound (ctx, n_gpus));
  SlFinding *f = _sl_finding_new (ctx, first, last, cost);
  const SlStep *s0 = &g_array_index (straggler->steps, SlStep, g_array_index (straggler->matched,
                                                                              guint, 0));
  f->thread = s0->thread;
  f->global_pid = _sl_thread_pid (ctx, s0->thread);
  _sl_finding_add_thread_lanes (ctx, f, s0->thread);

  g_autofree char *d_mine = sl_format_duration (mine), *d_theirs = sl_format_duration (theirs);
  double over = (double) (mine - theirs) / (double) theirs;
  SlTime d_osrt = me.osrt - others.osrt, d_compute = me.compute - others.compute,
         d_api = me.api - others.api, waited = others.comm - me.comm;
  g_autofree char *why = NULL, *advice = NULL;
  if (d_osrt >= d_compute && d_osrt >= d_api && d_osrt > 0)
    {
      g_autofree char *d = sl_format_duration (d_osrt);
      why = g_strdup_printf ("its host spends %s more a step in OS calls%s%s%s", d,
                             top != SL_NO_STR ? " (most in " : "",
                             top != SL_NO_STR ? sl_trace_str (ctx->trace, top) : "",
                             top != SL_NO_STR ? ")" : "");
      advice = g_strdup_printf ("%s waits on its host (data loading, I/O) while the other ranks "
                                "wait for it in their collectives. Look at that node: its disk or "
                                "network file system, its CPU count, other jobs on it; give its "
                                "data loader more workers or prefetch.", straggler->label);
    }
  else if (d_compute >= d_api && d_compute > 0)
    {
      g_autofree char *d = sl_format_duration (d_compute);
      why = g_strdup_printf ("its GPUs compute %s more a step", d);
      advice = g_strdup_printf ("%s's GPU work takes longer: an unbalanced share of the data or "
                                "the model (longer sequences, a bigger shard), or a slower GPU "
                                "(clocks, temperature, another process on it).", straggler->label);
    }
  else if (d_api > 0)
    {
      g_autofree char *d = sl_format_duration (d_api);
      why = g_strdup_printf ("its host spends %s more a step in CUDA calls", d);
      advice = g_strdup_printf ("%s's host launches or waits longer in CUDA calls than the other "
                                "ranks: look at its syncs and launch overhead.", straggler->label);
    }
  else
    {
      why = g_strdup ("no traced activity says why");
      advice = g_strdup_printf ("%s reaches the collectives last, but its traced host and GPU "
                                "work is no longer than the others': trace its OS calls and "
                                "sample its CPU to see what it does.", straggler->label);
    }
  f->summary = g_strdup_printf ("%s is the slowest rank in %u of %u steps: %s to reach the "
                                "collectives against %s on the others (+%.1f%%); %s",
                                straggler->label, straggler->slowest, n, d_mine, d_theirs,
                                100 * over, why);
  f->cause = g_strdup_printf ("%s is the straggler", straggler->label);
  f->advice = g_steal_pointer (&advice);

  _sl_evidence (f, "ranks", "Ranks", ranks->len, "%u", ranks->len);
  _sl_evidence (f, "steps", "Steps compared", n, "%u", n);
  _sl_evidence (f, "slowest_steps", "Slowest in", straggler->slowest, "%u of %u steps",
                straggler->slowest, n);
  _sl_evidence_duration (f, "step_ns", "Its time to the collectives (median)", mine);
  _sl_evidence_duration (f, "others_step_ns", "The others' (median)", theirs);
  _sl_evidence_share (f, "excess_share", "Longer by", over);
  g_autofree char *t_osrt = sl_format_duration (me.osrt);
  g_autofree char *o_osrt = sl_format_duration (others.osrt);
  _sl_evidence (f, "osrt_ns", "Host OS calls a step", (double) me.osrt, "%s against %s", t_osrt,
                o_osrt);
  g_autofree char *t_api = sl_format_duration (me.api), *o_api = sl_format_duration (others.api);
  _sl_evidence (f, "api_ns", "Host CUDA calls a step", (double) me.api, "%s against %s", t_api,
                o_api);
  g_autofree char *t_cmp = sl_format_duration (me.compute);
  g_autofree char *o_cmp = sl_format_duration (others.compute);
  _sl_evidence (f, "compute_ns", "GPU compute a step", (double) me.compute, "%s against %s",
                t_cmp, o_cmp);
  g_autofree char *t_comm = sl_format_duration (me.comm);
  g_autofree char *o_comm = sl_format_duration (others.comm);
  _sl_evidence (f, "comm_ns", "GPU communication a step", (double) me.comm, "%s against %s",
                t_comm, o_comm);
  if (waited > 0)
    _sl_evidence_duration (f, "others_wait_ns", "The others wait for it in collectives, a step",
                           waited);
  _sl_evidence_duration (f, "lead_ns", "Its lead over the next slowest (median)",
                         median_ns (excess));
  SlTime all_comm = 0;
  g_autofree char *per_gpu = comm_by_gpu (ctx, ranks, &all_comm);
  _sl_evidence (f, "comm_by_gpu_ns", "NCCL time per GPU", (double) all_comm, "%s", per_gpu);
}
