/* sl-analyze-straggler.c: the straggler rule.  In a trace of several ranks of one job (merged
 * files, or one recording whose processes say their rank), per training step (ProfilerStep#N or
 * NVTX "step" ranges, matched across ranks by number, else by order) the rank that takes longest
 * to reach the step's collectives: its step less the time its GPUs spent in communication
 * kernels (NCCL), which is where the others wait for it.  In a synchronous job every rank's step
 * ends together; the straggler is the one that waits least.  The rank that is the straggler in
 * most steps is reported with what it did differently (its host's OS calls, CUDA calls, GPU
 * compute, per step, against the others' mean) and how long the others waited. */
#include "sl-analyze-private.h"

#include "sl-comm.h"
#include "sl-format.h"
#include "sl-lane.h"
#include "sl-sort.h"
#include "sl-summaries.h"

typedef struct
{
  char   *label;         /* "rank 3", or the file's name */
  GArray *steps;         /* SlStep of its step thread */
  GArray *matched;       /* guint: index into steps of each matched step, -1 (G_MAXUINT) none */
  /* per matched step, then their mean */
  SlTime  own, comm, osrt, api, compute;
  guint32 osrt_top;
  guint   slowest;       /* matched steps it was the straggler of */
  GArray *own_each;      /* SlTime per matched step */
} Rank;

typedef struct
{
  SlAnalyzeCtx *ctx;
  gboolean      by_source;  /* ranks are the merged files; else processes' ranks */
  GArray       *ids;        /* gint64: the source index or the process rank of each Rank */
} RankMap;

/* The rank (an index into map->ids) of a process, -1 when none. */
static gint
rank_of_process (const RankMap *map,
                 const SlProcess *pr)
{
  gint64 id = map->by_source ? (gint64) pr->source : (gint64) pr->rank;

  for (guint i = 0; i < map->ids->len; i++)
    if (g_array_index (map->ids, gint64, i) == id)
      return (gint) i;
  return -1;
}

static gint
rank_of_thread (const RankMap *map,
                gint           thread)
{
  SlTrace *trace = map->ctx->trace;
  const SlThread *t = sl_trace_get_thread (trace, (guint) thread);

  return rank_of_process (map, sl_trace_get_process (trace, t->process));
}

static gint
rank_of_gpu_lane (const RankMap *map,
                  const SlLane  *lane)
{
  SlTrace *trace = map->ctx->trace;

  if (map->by_source)
    return rank_of_process (map, &(SlProcess) { .source = lane->source, .rank = -1 });
  for (guint p = 0; p < sl_trace_get_n_processes (trace); p++)
    if (sl_trace_get_process (trace, p)->global_pid == lane->global_pid)
      return rank_of_process (map, sl_trace_get_process (trace, p));
  return -1;
}

typedef struct
{
  const RankMap *map;
  gint           rank;
} ThreadOfRank;

static gboolean
thread_of_rank (SlTrace *trace,
                gint     thread,
                gpointer data)
{
  const ThreadOfRank *w = data;

  (void) trace;
  return rank_of_thread (w->map, thread) == w->rank;
}

static void
rank_clear (gpointer data)
{
  Rank *r = data;

  g_free (r->label);
  if (r->steps != NULL)
    g_array_unref (r->steps);
  if (r->matched != NULL)
    g_array_unref (r->matched);
  if (r->own_each != NULL)
    g_array_unref (r->own_each);
}

/* The ranks of the trace: its merged files, else the distinct ranks its processes say. */
static void
find_ranks (SlAnalyzeCtx *ctx,
            RankMap      *map,
            GArray       *ranks)
{
  SlTrace *trace = ctx->trace;
  guint n_sources = sl_trace_get_n_sources (trace);

  map->by_source = n_sources > 1;
  if (map->by_source)
    for (guint s = 0; s < n_sources; s++)
      {
        gint64 id = s;
        Rank r = { .label = g_strdup (sl_trace_get_source (trace, s)->label) };
        g_array_append_val (map->ids, id);
        g_array_append_val (ranks, r);
      }
  else
    for (guint p = 0; p < sl_trace_get_n_processes (trace); p++)
      {
        const SlProcess *pr = sl_trace_get_process (trace, p);
        if (pr->rank < 0 || rank_of_process (map, pr) >= 0)
          continue;
        gint64 id = pr->rank;
        Rank r = { .label = g_strdup_printf ("rank %d", pr->rank) };
        g_array_append_val (map->ids, id);
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
step_times (SlAnalyzeCtx  *ctx,
            const RankMap *map,
            gint           rank,
            const SlStep  *step,
            StepTimes     *out)
{
  SlTrace *trace = ctx->trace;
  const SlThreadLanes *tl = &ctx->tl[step->thread];

  memset (out, 0, sizeof *out);
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind != SL_LANE_KERNELS || rank_of_gpu_lane (map, lane) != rank)
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

void
_sl_rule_straggler (SlAnalyzeCtx *ctx)
{
  double excess_share = _sl_analyze_param (ctx, "excess");
  g_autoptr (GArray) ranks = g_array_new (FALSE, TRUE, sizeof (Rank));
  RankMap map = { ctx, FALSE, g_array_new (FALSE, FALSE, sizeof (gint64)) };

  g_array_set_clear_func (ranks, rank_clear);
  find_ranks (ctx, &map, ranks);
  if (ranks->len < 2)
    {
      g_string_append (ctx->note, "one rank (merge the ranks' traces, or record the job's "
                                  "processes with RANK set)");
      g_array_unref (map.ids);
      return;
    }
  for (guint i = 0; i < ranks->len; i++)
    {
      ThreadOfRank w = { &map, (gint) i };
      g_array_index (ranks, Rank, i).steps = sl_trace_steps (ctx->trace, ctx->t0, ctx->t1,
                                                             thread_of_rank, &w);
    }
  guint n = match_steps (ranks);
  if (n == 0)
    {
      g_string_append_printf (ctx->note, "%u ranks, no training step that all of them have",
                              ranks->len);
      g_array_unref (map.ids);
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
          step_times (ctx, &map, (gint) i, s, t);
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
    {
      g_array_unref (map.ids);
      return;
    }

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
  g_autofree char *t_osrt = sl_format_duration (me.osrt), *o_osrt = sl_format_duration (others.osrt);
  _sl_evidence (f, "osrt_ns", "Host OS calls a step", (double) me.osrt, "%s against %s", t_osrt,
                o_osrt);
  g_autofree char *t_api = sl_format_duration (me.api), *o_api = sl_format_duration (others.api);
  _sl_evidence (f, "api_ns", "Host CUDA calls a step", (double) me.api, "%s against %s", t_api,
                o_api);
  g_autofree char *t_cmp = sl_format_duration (me.compute);
  g_autofree char *o_cmp = sl_format_duration (others.compute);
  _sl_evidence (f, "compute_ns", "GPU compute a step", (double) me.compute, "%s against %s",
                t_cmp, o_cmp);
  g_autofree char *t_comm = sl_format_duration (me.comm), *o_comm = sl_format_duration (others.comm);
  _sl_evidence (f, "comm_ns", "GPU communication a step", (double) me.comm, "%s against %s",
                t_comm, o_comm);
  if (waited > 0)
    _sl_evidence_duration (f, "others_wait_ns", "The others wait for it in collectives, a step",
                           waited);
  _sl_evidence_duration (f, "lead_ns", "Its lead over the next slowest (median)",
                         median_ns (excess));
  g_array_unref (map.ids);
}
