/* sl-graph-groups.c: CUDA graph launches traced node by node, grouped per launch and stream, and
 * where graphs and nodes were made (CUDA_GRAPH_EVENTS, CUDA_GRAPH_NODE_EVENTS) tied to the CUDA
 * API calls that made them.
 *
 * Built on first use, on any thread (g_once), from the finished trace, which is never changed
 * afterwards: one pass over the kernels lanes (10^5 … 10^7 kernels, a hash lookup for each graph
 * node only) and, per creation row, a binary search in its thread's CUDA API lanes.  Derived from
 * the events alone, so a live update, a merge and the model cache need nothing of their own.
 */
#include "sl-lane.h"
#include "sl-trace-private.h"

typedef struct
{
  GArray  *groups;     /* SlGraphGroup, by lane and start */
  guint32 *lane_off;   /* n_lanes + 1: a lane's groups are groups[lane_off[l] … lane_off[l + 1]) */
  guint    n_lanes;
  GArray  *nodes;      /* guint32 lane indices, each group's by start */
  guint32 *made_call;  /* per graph_made row: the global id of its API call, SL_NO_LINK: none */
} SlGraphGroups;

void
_sl_graph_groups_free (gpointer p)
{
  SlGraphGroups *g = p;

  if (g == NULL)
    return;
  g_array_unref (g->groups);
  g_array_unref (g->nodes);
  g_free (g->lane_off);
  g_free (g->made_call);
  g_free (g);
}

/* A launch's key, (correlation id << 32) | graph id, mixed: GLib's g_int64_hash (2.74) keeps the
 * low 32 bits, here the graph id, the same for every launch of a lane's graph, so each lookup
 * walked all of the lane's launches (2 k launches of 8 nodes: 0.6 G instructions, 13 % of loading
 * the 1 M-event trace; quadratic in the launches, so 100 times that at 10 M). */
static guint
launch_hash (gconstpointer p)
{
  guint64 k = *(const guint64 *) p;

  k = (k ^ (k >> 31)) * 0xBF58476D1CE4E5B9u;
  return (guint) (k ^ (k >> 32));
}

/* Groups the node kernels of one lane: a launch is (correlation id, graph id); kernels with no
 * correlation id group by runs of one graph id. */
static void
group_lane (SlTrace       *trace,
            const SlLane  *lane,
            SlGraphGroups *gg)
{
  g_autoptr (GHashTable) open = g_hash_table_new_full (launch_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GArray) member = g_array_new (FALSE, FALSE, sizeof (guint32)); /* group per node */
  g_autoptr (GArray) index = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint base = gg->groups->len, run = G_MAXUINT;

  for (gsize i = 0; i < lane->n_events; i++)
    {
      const SlEvent *ev = &lane->events[i];
      const SlKernelInfo *info = sl_trace_get_kernel_info (trace, ev->aux);
      guint g;

      if (info == NULL || info->graph_id == 0)
        {
          run = G_MAXUINT;
          continue;
        }
      if (ev->corr == 0)
        {
          if (run == G_MAXUINT
              || g_array_index (gg->groups, SlGraphGroup, run).graph_id != info->graph_id)
            run = G_MAXUINT;
          g = run;
        }
      else
        {
          gint64 key = ((gint64) ev->corr << 32) | info->graph_id;
          gpointer found = g_hash_table_lookup (open, &key);
          g = found != NULL ? GPOINTER_TO_UINT (found) - 1 : G_MAXUINT;
          if (g == G_MAXUINT)
            g_hash_table_insert (open, g_memdup2 (&key, sizeof key),
                                 GUINT_TO_POINTER (gg->groups->len + 1));
        }
      if (g == G_MAXUINT)
        {
          SlGraphGroup grp = { ev->start, ev->end, lane->index, info->graph_id, ev->corr,
                               ev->link, 0, 0 };
          g = gg->groups->len;
          g_array_append_val (gg->groups, grp);
          if (ev->corr == 0)
            run = g;
        }
      SlGraphGroup *grp = &g_array_index (gg->groups, SlGraphGroup, g);
      grp->end = MAX (grp->end, ev->end);
      grp->n_nodes++;
      if (grp->launch == SL_NO_LINK)
        grp->launch = ev->link;
      guint32 gi = g, ii = (guint32) i;
      g_array_append_val (member, gi);
      g_array_append_val (index, ii);
    }
  /* nodes by group, each group's in lane order (= by start): a counting sort */
  guint32 at = gg->nodes->len;
  for (guint g = base; g < gg->groups->len; g++)
    {
      SlGraphGroup *grp = &g_array_index (gg->groups, SlGraphGroup, g);
      grp->first = at;
      at += grp->n_nodes;
      grp->n_nodes = 0;
    }
  g_array_set_size (gg->nodes, at);
  for (guint k2 = 0; k2 < member->len; k2++)
    {
      SlGraphGroup *grp = &g_array_index (gg->groups, SlGraphGroup,
                                          g_array_index (member, guint32, k2));
      g_array_index (gg->nodes, guint32, grp->first + grp->n_nodes++)
        = g_array_index (index, guint32, k2);
    }
}

/* The CUDA API call of thread `global_tid` whose span holds [start, end]: the innermost (the
 * deepest lane) that does, SL_NO_LINK when none. */
static guint32
find_call (SlTrace *trace,
           guint64  global_tid,
           SlTime   start,
           SlTime   end)
{
  guint32 best = SL_NO_LINK, best_depth = 0;

  for (guint l = 0; l < trace->lanes->len; l++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, l);
      const SlThread *th;

      if (lane->kind != SL_LANE_CUDA_API || lane->thread < 0)
        continue;
      th = sl_trace_get_thread (trace, (guint) lane->thread);
      if (th == NULL || th->global_tid != global_tid)
        continue;
      gsize i = sl_lane_lower_bound (lane, start + 1);   /* first call starting after `start` */
      if (i == 0)
        continue;
      const SlEvent *ev = &lane->events[i - 1];
      if (ev->start <= start && ev->end >= end
          && (best == SL_NO_LINK || lane->depth >= best_depth))
        {
          best = lane->base + (guint32) (i - 1);
          best_depth = lane->depth;
        }
    }
  return best;
}

static SlGraphGroups *
groups_build (SlTrace *trace)
{
  SlGraphGroups *gg = g_new0 (SlGraphGroups, 1);

  gg->groups = g_array_new (FALSE, FALSE, sizeof (SlGraphGroup));
  gg->nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
  gg->n_lanes = trace->lanes->len;
  gg->lane_off = g_new0 (guint32, gg->n_lanes + 1);
  for (guint l = 0; l < gg->n_lanes; l++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, l);
      gg->lane_off[l] = gg->groups->len;
      if (lane->kind == SL_LANE_KERNELS)
        group_lane (trace, lane, gg);
    }
  gg->lane_off[gg->n_lanes] = gg->groups->len;

  gg->made_call = g_new (guint32, MAX (trace->graph_made->len, 1));
  for (guint i = 0; i < trace->graph_made->len; i++)
    {
      const SlGraphMade *m = &g_array_index (trace->graph_made, SlGraphMade, i);
      gg->made_call[i] = find_call (trace, m->global_tid, m->start, m->end);
    }
  return gg;
}

static SlGraphGroups *
groups_get (SlTrace *trace)
{
  gsize *slot = (gsize *) &trace->graph_groups;

  if (g_once_init_enter (slot))
    g_once_init_leave (slot, (gsize) groups_build (trace));
  return (SlGraphGroups *) trace->graph_groups;
}

/* ---- public API ----------------------------------------------------------------------------- */

guint
sl_trace_get_graph_groups (SlTrace             *trace,
                           guint                lane,
                           const SlGraphGroup **groups)
{
  g_return_val_if_fail (trace != NULL && groups != NULL, 0);

  SlGraphGroups *gg = groups_get (trace);
  *groups = NULL;
  if (lane >= gg->n_lanes || gg->lane_off[lane + 1] == gg->lane_off[lane])
    return 0;
  *groups = &g_array_index (gg->groups, SlGraphGroup, gg->lane_off[lane]);
  return gg->lane_off[lane + 1] - gg->lane_off[lane];
}

guint
sl_trace_get_n_graph_groups (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return groups_get (trace)->groups->len;
}

const guint32 *
sl_trace_get_graph_group_nodes (SlTrace            *trace,
                                const SlGraphGroup *group)
{
  g_return_val_if_fail (trace != NULL && group != NULL, NULL);

  SlGraphGroups *gg = groups_get (trace);
  g_return_val_if_fail ((gsize) group->first + group->n_nodes <= gg->nodes->len, NULL);
  return &g_array_index (gg->nodes, guint32, group->first);
}

const SlGraphGroup *
sl_trace_find_graph_group (SlTrace *trace,
                           guint    lane,
                           gsize    index)
{
  const SlGraphGroup *groups;
  guint n, lo = 0, hi;

  g_return_val_if_fail (trace != NULL, NULL);
  n = sl_trace_get_graph_groups (trace, lane, &groups);
  if (n == 0)
    return NULL;
  const SlLane *l = sl_trace_get_lane (trace, lane);
  if (index >= l->n_events)
    return NULL;
  SlTime t = l->events[index].start;
  const guint32 *nodes = sl_trace_get_graph_group_nodes (trace, &groups[0]);
  /* the last group starting at or before the kernel, then back over the few that overlap it */
  hi = n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (groups[mid].start <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (guint g = lo, steps = 0; g > 0 && steps < 64; g--, steps++)
    {
      const SlGraphGroup *grp = &groups[g - 1];
      const guint32 *in = nodes + (grp->first - groups[0].first);
      guint a = 0, b = grp->n_nodes;
      while (a < b)
        {
          guint mid = a + (b - a) / 2;
          if (in[mid] < index)
            a = mid + 1;
          else
            b = mid;
        }
      if (a < grp->n_nodes && in[a] == index)
        return grp;
    }
  return NULL;
}

guint
sl_trace_get_n_graph_made (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return trace->graph_made->len;
}

const SlGraphMade *
sl_trace_get_graph_made (SlTrace *trace,
                         guint    i)
{
  g_return_val_if_fail (trace != NULL, NULL);
  return i < trace->graph_made->len ? &g_array_index (trace->graph_made, SlGraphMade, i) : NULL;
}

guint
sl_trace_find_graph_made (SlTrace         *trace,
                          SlGraphMadeKind  kind,
                          guint64          id,
                          guint           *out,
                          guint            max)
{
  guint n = 0;

  g_return_val_if_fail (trace != NULL && (out != NULL || max == 0), 0);
  if (kind == SL_GRAPH_MADE_GRAPH)
    {
      /* the graph's own rows (creation, instantiation) and those of graphs cloned from it */
      for (guint i = 0; i < trace->graph_made->len && n < max; i++)
        {
          const SlGraphMade *m = &g_array_index (trace->graph_made, SlGraphMade, i);
          if (m->kind == kind && (m->id == id || m->original == id))
            out[n++] = i;
        }
    }
  else
    {
      /* the node, then the node it was cloned from, and so on (a chain of a few at most) */
      for (guint depth = 0; depth < 8 && n < max && id != 0; depth++)
        {
          guint found = G_MAXUINT;
          for (guint i = 0; i < trace->graph_made->len; i++)
            {
              const SlGraphMade *m = &g_array_index (trace->graph_made, SlGraphMade, i);
              if (m->kind == kind && m->id == id)
                {
                  found = i;
                  break;
                }
            }
          if (found == G_MAXUINT)
            break;
          out[n++] = found;
          id = g_array_index (trace->graph_made, SlGraphMade, found).original;
        }
      /* oldest first */
      for (guint a = 0, b = n; a + 1 < b; a++, b--)
        {
          guint t = out[a];
          out[a] = out[b - 1];
          out[b - 1] = t;
        }
    }
  return n;
}

guint32
sl_trace_get_graph_made_call (SlTrace *trace,
                              guint    i)
{
  g_return_val_if_fail (trace != NULL, SL_NO_LINK);
  if (i >= trace->graph_made->len)
    return SL_NO_LINK;
  return groups_get (trace)->made_call[i];
}
