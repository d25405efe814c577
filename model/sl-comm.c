/* sl-comm.c: communication kernels; the compute/communication overlap of a rank as Holistic
 * Trace Analysis defines it (get_comm_comp_overlap), GPU by GPU: the time both a collective and a
 * compute kernel ran on one GPU, as a share of the time a collective ran; and the ranks a trace
 * holds (its merged files, its processes' ranks, or its processes that communicate).
 *
 * A rank has 10^3 … 10^6 kernels; each GPU's two unions are built by sorting its kernels once
 * (16 bytes a kernel), then intersected in one merge pass. */
#include "sl-comm.h"

#include <math.h>
#include <string.h>

#include "sl-lane.h"
#include "sl-sort.h"
#include "sl-trace-private.h"

gboolean
sl_name_is_comm (const char *name)
{
  g_return_val_if_fail (name != NULL, FALSE);
  return strstr (name, "nccl") != NULL || strstr (name, "NCCL") != NULL
         || strstr (name, "c10d") != NULL || strstr (name, "gloo") != NULL;
}

typedef struct
{
  SlTime start, end;
} Span;

static gint
span_cmp (gconstpointer a,
          gconstpointer b)
{
  const Span *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->end > y->end) - (x->end < y->end);
}

/* Sorts `spans` and merges them in place into their union: sorted, disjoint.  Returns its
 * length in ns. */
static SlTime
merge_spans (GArray *spans)
{
  Span *s = (Span *) (void *) spans->data;
  guint n = 0;
  SlTime busy = 0;

  g_array_sort (spans, span_cmp);
  for (guint i = 0; i < spans->len; i++)
    {
      if (n > 0 && s[i].start <= s[n - 1].end)
        {
          s[n - 1].end = MAX (s[n - 1].end, s[i].end);
          continue;
        }
      s[n++] = s[i];
    }
  g_array_set_size (spans, n);
  for (guint i = 0; i < n; i++)
    busy += s[i].end - s[i].start;
  return busy;
}

/* The length of the intersection of two unions (sorted, disjoint). */
static SlTime
intersect_spans (const GArray *a,
                 const GArray *b)
{
  const Span *x = (const Span *) (const void *) a->data, *y = (const Span *) (const void *) b->data;
  guint i = 0, j = 0;
  SlTime both = 0;

  while (i < a->len && j < b->len)
    {
      SlTime lo = MAX (x[i].start, y[j].start), hi = MIN (x[i].end, y[j].end);
      if (hi > lo)
        both += hi - lo;
      if (x[i].end < y[j].end)
        i++;
      else
        j++;
    }
  return both;
}

/* Which kernel lanes a sum takes. */
typedef gboolean (*LaneFilter) (SlTrace      *trace,
                                const SlLane *lane,
                                gconstpointer data);

/* The per-GPU unions: communication and compute spans of one GPU (slot 0: lanes of no GPU). */
typedef struct
{
  GArray *comm, *compute;
} GpuSpans;

static void
comm_times (SlTrace      *trace,
            LaneFilter    keep,
            gconstpointer data,
            SlTime        t0,
            SlTime        t1,
            SlCommTimes  *out)
{
  guint n_gpus = sl_trace_get_n_gpus (trace);
  /* a rank has 1 … 16 GPUs, a merged job 10^3: one slot each, filled only where it has kernels */
  g_autofree GpuSpans *by_gpu = g_new0 (GpuSpans, n_gpus + 1);
  /* whether each string id names a collective: one look at each name, not at each kernel */
  g_autoptr (GArray) is_comm = g_array_new (FALSE, TRUE, sizeof (gint8));

  memset (out, 0, sizeof *out);
  g_array_set_size (is_comm, sl_trace_get_n_strs (trace));
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind != SL_LANE_KERNELS || !keep (trace, lane, data))
        continue;
      GpuSpans *g = &by_gpu[lane->gpu >= 0 && (guint) lane->gpu < n_gpus ? lane->gpu + 1 : 0];
      if (g->comm == NULL)
        {
          g->comm = g_array_new (FALSE, FALSE, sizeof (Span));
          g->compute = g_array_new (FALSE, FALSE, sizeof (Span));
        }
      gsize first = t0 == G_MININT64 ? 0 : sl_lane_lower_bound (lane, t0);
      gsize end = t1 == G_MAXINT64 ? lane->n_events : sl_lane_lower_bound (lane, t1);
      for (gsize e = first; e < end; e++)
        {
          const SlEvent *ev = &lane->events[e];
          Span s = { ev->start, ev->end };
          gint8 *known = ev->name < is_comm->len ? &g_array_index (is_comm, gint8, ev->name) : NULL;
          gboolean c;
          if (known != NULL && *known != 0)
            c = *known > 0;
          else
            {
              c = sl_name_is_comm (sl_trace_str (trace, ev->name));
              if (known != NULL)
                *known = c ? 1 : -1;
            }
          out->kernel_time = _sl_time_add (out->kernel_time, ev->end - ev->start);
          if (c)
            {
              out->comm_time = _sl_time_add (out->comm_time, ev->end - ev->start);
              out->n_comm++;
              g_array_append_val (g->comm, s);
            }
          else
            {
              out->compute_time = _sl_time_add (out->compute_time, ev->end - ev->start);
              g_array_append_val (g->compute, s);
            }
        }
    }
  for (guint g = 0; g <= n_gpus; g++)
    {
      if (by_gpu[g].comm == NULL)
        continue;
      out->comm_busy = _sl_time_add (out->comm_busy, merge_spans (by_gpu[g].comm));
      merge_spans (by_gpu[g].compute);
      out->overlap = _sl_time_add (out->overlap, intersect_spans (by_gpu[g].comm,
                                                                  by_gpu[g].compute));
      g_array_unref (by_gpu[g].comm);
      g_array_unref (by_gpu[g].compute);
    }
}

static gboolean
lane_of_source (SlTrace      *trace,
                const SlLane *lane,
                gconstpointer data)
{
  gint source = GPOINTER_TO_INT (data);

  (void) trace;
  return source < 0 || lane->source == (guint32) source;
}

static gboolean
lane_of_gpu (SlTrace      *trace,
             const SlLane *lane,
             gconstpointer data)
{
  (void) trace;
  return lane->gpu == GPOINTER_TO_INT (data);
}

static gboolean
lane_of_rank (SlTrace      *trace,
              const SlLane *lane,
              gconstpointer data)
{
  return sl_comm_rank_has_lane (trace, data, lane);
}

void
sl_trace_comm_times (SlTrace     *trace,
                     gint         source,
                     SlTime       t0,
                     SlTime       t1,
                     SlCommTimes *out)
{
  g_return_if_fail (trace != NULL && out != NULL);
  comm_times (trace, lane_of_source, GINT_TO_POINTER (source), t0, t1, out);
}

void
sl_trace_gpu_comm_times (SlTrace     *trace,
                         guint        gpu,
                         SlTime       t0,
                         SlTime       t1,
                         SlCommTimes *out)
{
  g_return_if_fail (trace != NULL && out != NULL);
  g_return_if_fail (gpu < sl_trace_get_n_gpus (trace));
  comm_times (trace, lane_of_gpu, GINT_TO_POINTER ((gint) gpu), t0, t1, out);
}

void
sl_trace_rank_comm_times (SlTrace          *trace,
                          const SlCommRank *rank,
                          SlTime            t0,
                          SlTime            t1,
                          SlCommTimes      *out)
{
  g_return_if_fail (trace != NULL && rank != NULL && out != NULL);
  comm_times (trace, lane_of_rank, rank, t0, t1, out);
}

double
sl_comm_overlap_pct (const SlCommTimes *times)
{
  g_return_val_if_fail (times != NULL, NAN);
  return times->comm_busy > 0 ? 100.0 * (double) times->overlap / (double) times->comm_busy : NAN;
}

/* ---- the ranks of a trace ---------------------------------------------------------------- */

static void
comm_rank_clear (gpointer data)
{
  g_free (((SlCommRank *) data)->label);
}

/* The process of a GPU lane (its global pid, in its file), NULL when the trace has none. */
static const SlProcess *
lane_process (SlTrace      *trace,
              const SlLane *lane)
{
  if (lane->thread >= 0 && (guint) lane->thread < sl_trace_get_n_threads (trace))
    {
      const SlThread *t = sl_trace_get_thread (trace, (guint) lane->thread);
      return t->process < sl_trace_get_n_processes (trace)
               ? sl_trace_get_process (trace, t->process) : NULL;
    }
  for (guint p = 0; p < sl_trace_get_n_processes (trace); p++)
    {
      const SlProcess *pr = sl_trace_get_process (trace, p);
      if (pr->global_pid == lane->global_pid && pr->source == lane->source)
        return pr;
    }
  return NULL;
}

/* The processes of a single file that ran communication kernels, when there are two or more and
 * no two of them used the same GPU: a process a rank.  Their global pids, in pid order, or NULL. */
static GArray *
comm_processes (SlTrace *trace)
{
  guint n_gpus = sl_trace_get_n_gpus (trace);
  g_autoptr (GArray) pids = g_array_new (FALSE, FALSE, sizeof (guint64));
  /* the process each GPU's kernels are of; 0 none yet, G_MAXUINT64 several */
  g_autofree guint64 *gpu_pid = g_new0 (guint64, n_gpus + 1);
  g_autoptr (GArray) is_comm = g_array_new (FALSE, TRUE, sizeof (gint8));

  g_array_set_size (is_comm, sl_trace_get_n_strs (trace));
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->gpu < 0 || (guint) lane->gpu >= n_gpus || lane->n_events == 0
          || lane->global_pid == 0)
        continue;
      guint64 *owner = &gpu_pid[lane->gpu];
      *owner = *owner == 0 || *owner == lane->global_pid ? lane->global_pid : G_MAXUINT64;
      if (lane->kind != SL_LANE_KERNELS)
        continue;
      gboolean has_comm = FALSE;
      for (gsize e = 0; e < lane->n_events && !has_comm; e++)
        {
          guint32 name = lane->events[e].name;
          gint8 *known = name < is_comm->len ? &g_array_index (is_comm, gint8, name) : NULL;
          if (known != NULL && *known != 0)
            has_comm = *known > 0;
          else
            {
              has_comm = sl_name_is_comm (sl_trace_str (trace, name));
              if (known != NULL)
                *known = has_comm ? 1 : -1;
            }
        }
      gboolean seen = FALSE;
      for (guint i = 0; i < pids->len && !seen; i++)
        seen = g_array_index (pids, guint64, i) == lane->global_pid;
      if (has_comm && !seen)
        g_array_append_val (pids, lane->global_pid);
    }
  if (pids->len < 2)
    return NULL;
  /* one of them on a GPU that another process used too: no process is a rank */
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->gpu < 0 || (guint) lane->gpu >= n_gpus || lane->n_events == 0
          || gpu_pid[lane->gpu] != G_MAXUINT64)
        continue;
      for (guint i = 0; i < pids->len; i++)
        if (g_array_index (pids, guint64, i) == lane->global_pid)
          return NULL;
    }
  /* global pids stay below 2^63 (the top byte, a hardware id, is 0): signed order is pid order */
  g_array_sort (pids, sl_cmp_int64);
  return g_steal_pointer (&pids);
}

GArray *
sl_trace_comm_ranks (SlTrace *trace)
{
  GArray *ranks = g_array_new (FALSE, TRUE, sizeof (SlCommRank));
  guint n_sources = sl_trace_get_n_sources (trace);

  g_return_val_if_fail (trace != NULL, ranks);
  g_array_set_clear_func (ranks, comm_rank_clear);
  if (n_sources > 1)
    {
      for (guint s = 0; s < n_sources; s++)
        {
          SlCommRank r = { g_strdup (sl_trace_get_source (trace, s)->label), (gint) s, -1, 0 };
          g_array_append_val (ranks, r);
        }
      return ranks;
    }

  /* the distinct ranks the processes say, in order */
  g_autoptr (GArray) said = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint p = 0; p < sl_trace_get_n_processes (trace); p++)
    {
      gint64 rank = sl_trace_get_process (trace, p)->rank;
      gboolean seen = rank < 0;
      for (guint i = 0; i < said->len && !seen; i++)
        seen = g_array_index (said, gint64, i) == rank;
      if (!seen)
        g_array_append_val (said, rank);
    }
  if (said->len >= 2)
    {
      g_array_sort (said, sl_cmp_int64);
      for (guint i = 0; i < said->len; i++)
        {
          gint64 rank = g_array_index (said, gint64, i);
          SlCommRank r = { g_strdup_printf ("rank %" G_GINT64_FORMAT, rank), -1, rank, 0 };
          g_array_append_val (ranks, r);
        }
      return ranks;
    }
  g_autoptr (GArray) pids = said->len == 0 ? comm_processes (trace) : NULL;
  if (pids != NULL)
    {
      for (guint i = 0; i < pids->len; i++)
        {
          guint64 gpid = g_array_index (pids, guint64, i);
          SlCommRank r = { g_strdup_printf ("process %u", (guint) ((gpid >> 24) & 0xFFFFFF)), -1,
                           -1, gpid };
          g_array_append_val (ranks, r);
        }
      return ranks;
    }
  SlCommRank whole = { g_strdup (n_sources > 0 ? sl_trace_get_source (trace, 0)->label : ""), 0,
                       -1, 0 };
  g_array_append_val (ranks, whole);
  return ranks;
}

gboolean
sl_comm_rank_has_process (SlTrace          *trace,
                          const SlCommRank *rank,
                          const SlProcess  *process)
{
  g_return_val_if_fail (trace != NULL && rank != NULL, FALSE);
  if (process == NULL)
    return FALSE;
  if (rank->source >= 0 && process->source != (guint32) rank->source)
    return FALSE;
  if (rank->rank >= 0 && process->rank != rank->rank)
    return FALSE;
  return rank->global_pid == 0 || process->global_pid == rank->global_pid;
}

gboolean
sl_comm_rank_has_thread (SlTrace          *trace,
                         const SlCommRank *rank,
                         gint              thread)
{
  g_return_val_if_fail (trace != NULL && rank != NULL, FALSE);
  if (thread < 0 || (guint) thread >= sl_trace_get_n_threads (trace))
    return FALSE;
  const SlThread *t = sl_trace_get_thread (trace, (guint) thread);
  if (rank->rank < 0 && rank->global_pid == 0)
    return rank->source < 0 || t->source == (guint32) rank->source;
  return t->process < sl_trace_get_n_processes (trace)
         && sl_comm_rank_has_process (trace, rank, sl_trace_get_process (trace, t->process));
}

gboolean
sl_comm_rank_thread_filter (SlTrace  *trace,
                            gint      thread,
                            gpointer  rank)
{
  return sl_comm_rank_has_thread (trace, rank, thread);
}

gboolean
sl_comm_rank_has_lane (SlTrace          *trace,
                       const SlCommRank *rank,
                       const SlLane     *lane)
{
  g_return_val_if_fail (trace != NULL && rank != NULL && lane != NULL, FALSE);
  /* by file: no process to look up (a merged job has 10^3 ranks of 10^2 lanes) */
  if (rank->rank < 0 && rank->global_pid == 0)
    return rank->source < 0 || lane->source == (guint32) rank->source;
  if (rank->global_pid != 0 && lane->thread < 0)
    return lane->global_pid == rank->global_pid;
  return sl_comm_rank_has_process (trace, rank, lane_process (trace, lane));
}
