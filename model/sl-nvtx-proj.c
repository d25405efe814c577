/* sl-nvtx-proj.c: NVTX ranges projected onto the GPU work their threads' CUDA calls launched.
 *
 * The index: every NVTX event of the trace gets a range number (rid), dense over the NVTX lanes;
 * every CUDA API call that launched something gets the set of ranges of its thread that
 * enclose it.  A thread's NVTX lanes are its nesting depths, and no two ranges of one depth
 * overlap, so a sweep of a thread's calls in start order keeps one cursor per depth: the range
 * at a depth that can enclose the call is the last one starting at or before it.  Consecutive
 * calls mostly share a set, which is stored once.  Then a projection is one pass over the GPU
 * operations: each one's launch call (its `link`), that call's set, a min/max per range.
 */
#include "sl-nvtx-proj.h"

#include <string.h>

#include "sl-lane.h"
#include "sl-trace-private.h"

#define NONE ((guint32) 0x7FFFFFFF)   /* no set / no range */

struct _SlNvtxProj
{
  SlTrace  *trace;
  guint     n_lanes;
  guint32  *first_rid;   /* per lane: rid of events[0] of an NVTX lane, NONE for other lanes */
  guint32   n_rids;
  guint32  *rid_lane;    /* per rid: its lane */
  guint32  *parent;      /* per rid: the enclosing range's rid, or NONE */
  guint32  *level;       /* per rid: nesting level, 0 without a parent */
  guint32 **call_set;    /* per CUDA API lane: per call, its set id, or NONE; NULL for other
                          * lanes and threads without NVTX */
  GArray   *set_start;   /* guint32 per set, and one past the last: its rids in set_items */
  GArray   *set_items;   /* guint32 rids, outermost first */
  guint     max_set;     /* ranges in the largest set */
  gboolean  owns_trace;  /* FALSE for the trace's own (sl_nvtx_proj_get): the trace owns it */
  GArray   *rows[SL_NVTX_PROJ_BY_STREAM + 1];   /* per scope, made on first use */
};

/* Everything above is written only while the index is built; what one computation changes is
 * its own (a Pass), so that threads can share a projection. */

static inline gboolean
encloses (const SlEvent *r,
          SlTime         start,
          SlTime         end)
{
  return !(r->link & (SL_NVTX_MARK | SL_NVTX_OTHER_THREAD)) && r->start <= start && r->end >= end;
}

/* The range of depth lane `lane` whose position (events starting at or before `start`) is
 * `pos` that encloses [start, end], or -1: the last one starting at or before it, or the one
 * before when that is an instant at the same time. */
static inline gssize
enclosing_at (const SlLane *lane,
              gsize         pos,
              SlTime        start,
              SlTime        end)
{
  for (gsize j = pos; j > 0 && pos - j < 2; j--)
    if (encloses (&lane->events[j - 1], start, end))
      return (gssize) j - 1;
  return -1;
}

/* Each thread's NVTX lanes, by depth. */
static GPtrArray **
nvtx_lanes_by_thread (SlTrace *trace,
                      guint    n_threads)
{
  GPtrArray **by_thread = g_new0 (GPtrArray *, MAX (n_threads, 1));

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_NVTX || lane->thread < 0 || (guint) lane->thread >= n_threads
          || lane->n_events == 0)
        continue;
      if (by_thread[lane->thread] == NULL)
        by_thread[lane->thread] = g_ptr_array_new ();
      GPtrArray *lanes = by_thread[lane->thread];
      guint at = lanes->len;
      while (at > 0 && ((const SlLane *) g_ptr_array_index (lanes, at - 1))->depth > lane->depth)
        at--;
      g_ptr_array_insert (lanes, at, (gpointer) lane);
    }
  return by_thread;
}

/* Parent and level of every range: the enclosing range at the deepest shallower depth. */
static void
index_nesting (SlNvtxProj *p,
               GPtrArray  *lanes)
{
  for (guint d = 0; d < lanes->len; d++)
    {
      const SlLane *lane = g_ptr_array_index (lanes, d);
      guint32 base = p->first_rid[lane->index];
      for (gsize i = 0; i < lane->n_events; i++)
        {
          const SlEvent *ev = &lane->events[i];
          guint32 rid = base + (guint32) i, parent = NONE;
          if (ev->link & (SL_NVTX_MARK | SL_NVTX_OTHER_THREAD))
            continue;
          for (guint dd = d; dd-- > 0 && parent == NONE;)
            {
              const SlLane *up = g_ptr_array_index (lanes, dd);
              gsize pos = ev->start == G_MAXINT64 ? up->n_events
                                                  : sl_lane_lower_bound (up, ev->start + 1);
              gssize j = enclosing_at (up, pos, ev->start, ev->end);
              if (j >= 0)
                parent = p->first_rid[up->index] + (guint32) j;
            }
          p->parent[rid] = parent;
          p->level[rid] = parent == NONE ? 0 : p->level[parent] + 1;
        }
    }
}

/* The sets of the calls of one CUDA API lane: a cursor per depth of the thread's NVTX lanes. */
static void
index_calls (SlNvtxProj   *p,
             const SlLane *api,
             GPtrArray    *lanes,
             GArray       *cur,
             GArray       *prev)
{
  g_autofree gsize *pos = g_new0 (gsize, lanes->len);
  guint32 *sets = p->call_set[api->index] = g_new (guint32, MAX (api->n_events, 1));
  guint32 prev_id = NONE;

  g_array_set_size (prev, 0);
  for (gsize k = 0; k < api->n_events; k++)
    {
      const SlEvent *call = &api->events[k];
      sets[k] = NONE;
      if (call->link == SL_NO_LINK)
        continue;   /* launched nothing */
      g_array_set_size (cur, 0);
      for (guint d = 0; d < lanes->len; d++)
        {
          const SlLane *lane = g_ptr_array_index (lanes, d);
          while (pos[d] < lane->n_events && lane->events[pos[d]].start <= call->start)
            pos[d]++;
          gssize j = enclosing_at (lane, pos[d], call->start, call->end);
          if (j >= 0)
            {
              guint32 rid = p->first_rid[lane->index] + (guint32) j;
              g_array_append_val (cur, rid);
            }
        }
      if (cur->len == 0)
        continue;
      if (prev_id == NONE || cur->len != prev->len
          || memcmp (cur->data, prev->data, cur->len * sizeof (guint32)) != 0)
        {
          prev_id = p->set_start->len - 1;
          g_array_append_vals (p->set_items, cur->data, cur->len);
          p->max_set = MAX (p->max_set, cur->len);
          guint32 end = p->set_items->len;
          g_array_append_val (p->set_start, end);
          g_array_set_size (prev, 0);
          g_array_append_vals (prev, cur->data, cur->len);
        }
      sets[k] = prev_id;
    }
}

static SlNvtxProj *
proj_build (SlTrace  *trace,
            gboolean  owns_trace)
{
  SlNvtxProj *p = g_new0 (SlNvtxProj, 1);
  guint n_threads = sl_trace_get_n_threads (trace);

  p->trace = owns_trace ? sl_trace_ref (trace) : trace;
  p->owns_trace = owns_trace;
  p->n_lanes = sl_trace_get_n_lanes (trace);
  p->first_rid = g_new (guint32, MAX (p->n_lanes, 1));
  p->call_set = g_new0 (guint32 *, MAX (p->n_lanes, 1));
  p->set_start = g_array_new (FALSE, FALSE, sizeof (guint32));
  p->set_items = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint32 zero = 0;
  g_array_append_val (p->set_start, zero);

  gsize n_rids = 0;
  for (guint i = 0; i < p->n_lanes; i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      p->first_rid[i] = NONE;
      if (lane->kind == SL_LANE_NVTX && n_rids + lane->n_events < NONE)
        {
          p->first_rid[i] = (guint32) n_rids;
          n_rids += lane->n_events;
        }
    }
  p->n_rids = (guint32) n_rids;
  p->rid_lane = g_new (guint32, MAX (n_rids, 1));
  p->parent = g_new (guint32, MAX (n_rids, 1));
  p->level = g_new0 (guint32, MAX (n_rids, 1));
  for (guint i = 0; i < p->n_lanes; i++)
    if (p->first_rid[i] != NONE)
      {
        const SlLane *lane = sl_trace_get_lane (trace, i);
        for (gsize k = 0; k < lane->n_events; k++)
          {
            p->rid_lane[p->first_rid[i] + k] = i;
            p->parent[p->first_rid[i] + k] = NONE;
          }
      }

  GPtrArray **by_thread = nvtx_lanes_by_thread (trace, n_threads);
  g_autoptr (GArray) cur = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GArray) prev = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint t = 0; t < n_threads; t++)
    if (by_thread[t] != NULL)
      index_nesting (p, by_thread[t]);
  for (guint i = 0; i < p->n_lanes; i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind == SL_LANE_CUDA_API && lane->thread >= 0 && (guint) lane->thread < n_threads
          && by_thread[lane->thread] != NULL)
        index_calls (p, lane, by_thread[lane->thread], cur, prev);
    }
  for (guint t = 0; t < n_threads; t++)
    if (by_thread[t] != NULL)
      g_ptr_array_unref (by_thread[t]);
  g_free (by_thread);
  return p;
}

SlNvtxProj *
sl_nvtx_proj_new (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, NULL);
  return proj_build (trace, TRUE);
}

SlNvtxProj *
sl_nvtx_proj_get (SlTrace *trace)
{
  SlNvtxProj **slot;

  g_return_val_if_fail (trace != NULL, NULL);
  slot = (SlNvtxProj **) &trace->nvtx_proj;
  if (g_once_init_enter (slot))
    g_once_init_leave (slot, proj_build (trace, FALSE));
  return *slot;
}

void
sl_nvtx_proj_free (SlNvtxProj *p)
{
  if (p == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (p->rows); i++)
    g_clear_pointer (&p->rows[i], g_array_unref);
  for (guint i = 0; i < p->n_lanes; i++)
    g_free (p->call_set[i]);
  g_free (p->call_set);
  g_free (p->first_rid);
  g_free (p->rid_lane);
  g_free (p->parent);
  g_free (p->level);
  g_array_unref (p->set_start);
  g_array_unref (p->set_items);
  if (p->owns_trace)
    sl_trace_unref (p->trace);
  g_free (p);
}

/* The set of the call that launched GPU operation `op`, or NONE.  `last_api` is the caller's
 * guess, kept between calls: the lane of the last call found. */
static inline guint32
op_set (const SlNvtxProj  *p,
        const SlEvent     *op,
        const SlLane     **last_api)
{
  const SlLane *api;
  gsize index;

  if (op->link == SL_NO_LINK)
    return NONE;
  /* an op's call is mostly in the lane of the op before's: skip the search over lanes */
  api = *last_api;
  if (api != NULL && op->link >= api->base && op->link - api->base < api->n_events)
    index = op->link - api->base;
  else if (!sl_trace_resolve (p->trace, op->link, &api, &index))
    return NONE;
  *last_api = api;
  if (api->kind != SL_LANE_CUDA_API || p->call_set[api->index] == NULL)
    return NONE;
  return p->call_set[api->index][index];
}

static inline SlEventRef
rid_ref (const SlNvtxProj *p,
         guint32           rid)
{
  guint32 lane = p->rid_lane[rid];
  return (SlEventRef) { (gint) lane, rid - p->first_rid[lane] };
}

static gboolean
is_gpu_op_lane (const SlLane *lane)
{
  return lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_MEMCPY
         || lane->kind == SL_LANE_MEMSET || lane->kind == SL_LANE_GRAPHS;
}

static int
compare_lane_groups (gconstpointer pa,
                     gconstpointer pb)
{
  const SlLane *a = *(const SlLane *const *) pa, *b = *(const SlLane *const *) pb;

  if (a->gpu != b->gpu)
    return a->gpu < b->gpu ? -1 : 1;
  if (a->stream_id != b->stream_id)
    return a->stream_id < b->stream_id ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* The sort key of a row: a merge sort moves these (24 bytes) instead of the rows (56), and
 * compares without reading anything else but for full ties; `row` indexes the group's
 * accumulators */
typedef struct
{
  SlTime  start;
  SlTime  end;
  guint32 level;
  guint32 row;
} RowKey;

/* What compare_rows reads besides the keys: the rids of the rows it sorts */
typedef struct
{
  const SlNvtxProj *proj;
  const guint32    *rids;
} Sorting;

static int
compare_rows (gconstpointer pa,
              gconstpointer pb,
              gpointer      data)
{
  const RowKey *ka = pa, *kb = pb;
  const Sorting *sorting = data;
  const SlNvtxProj *p = sorting->proj;

  if (ka->start != kb->start)
    return ka->start < kb->start ? -1 : 1;
  if (ka->end != kb->end)
    return ka->end > kb->end ? -1 : 1;
  if (ka->level != kb->level)
    return ka->level < kb->level ? -1 : 1;
  SlEventRef a = rid_ref (p, sorting->rids[ka->row]);
  SlEventRef b = rid_ref (p, sorting->rids[kb->row]);
  const SlEvent *ra = &sl_trace_get_lane (p->trace, a.lane)->events[a.index];
  const SlEvent *rb = &sl_trace_get_lane (p->trace, b.lane)->events[b.index];
  if (ra->start != rb->start)
    return ra->start < rb->start ? -1 : 1;
  if (ra->end != rb->end)
    return ra->end > rb->end ? -1 : 1;
  if (a.lane != b.lane)
    return a.lane < b.lane ? -1 : 1;
  return a.index < b.index ? -1 : a.index > b.index;
}

/* One row while it is being summed */
typedef struct
{
  SlTime  start;
  SlTime  end;
  guint32 n_ops;
  guint32 n_calls;
  guint32 n_children;
} Acc;

GArray *
sl_nvtx_proj_compute (SlNvtxProj      *p,
                      SlNvtxProjScope  scope)
{
  g_return_val_if_fail (p != NULL, NULL);

  /* the calls counted in the current group, by global id: the computation's own, not the
   * projection's, so that threads can compute at once */
  gsize n_ids = sl_trace_get_n_ids (p->trace);
  g_autofree guint64 *seen_bits = g_new0 (guint64, n_ids / 64 + 1);
  const SlLane *last_api = NULL;

  /* sized for a row per range: no reallocation (copying tens of MB) while they fill */
  GArray *rows = g_array_sized_new (FALSE, FALSE, sizeof (SlNvtxProjRow), p->n_rids);
  g_autoptr (GPtrArray) lanes = g_ptr_array_new ();
  g_autoptr (GArray) touched = g_array_sized_new (FALSE, FALSE, sizeof (guint32), p->n_rids);
  g_autoptr (GArray) seen = g_array_new (FALSE, FALSE, sizeof (guint32));   /* seen_bits set */
  g_autofree guint32 *row_of = g_new (guint32, MAX (p->n_rids, 1));
  g_autoptr (GArray) keys = g_array_sized_new (FALSE, FALSE, sizeof (RowKey), p->n_rids);
  g_autoptr (GArray) accs = g_array_sized_new (FALSE, FALSE, sizeof (Acc), p->n_rids);
  g_autofree guint32 *cached = g_new (guint32, MAX (p->max_set, 1));

  for (guint32 r = 0; r < p->n_rids; r++)
    row_of[r] = NONE;
  for (guint i = 0; i < p->n_lanes; i++)
    {
      const SlLane *lane = sl_trace_get_lane (p->trace, i);
      if (is_gpu_op_lane (lane) && lane->n_events > 0)
        g_ptr_array_add (lanes, (gpointer) lane);
    }
  if (scope != SL_NVTX_PROJ_BY_RANGE)
    g_ptr_array_sort (lanes, compare_lane_groups);

  for (guint g = 0; g < lanes->len;)
    {
      /* one group: the lanes of one GPU (and stream), or all of them */
      const SlLane *first = g_ptr_array_index (lanes, g);
      guint end = g + 1;
      if (scope == SL_NVTX_PROJ_BY_RANGE)
        end = lanes->len;
      else
        while (end < lanes->len)
          {
            const SlLane *l = g_ptr_array_index (lanes, end);
            if (l->gpu != first->gpu
                || (scope == SL_NVTX_PROJ_BY_STREAM && l->stream_id != first->stream_id))
              break;
            end++;
          }
      gint32 gpu = scope == SL_NVTX_PROJ_BY_RANGE ? -1 : first->gpu;
      guint32 stream = scope == SL_NVTX_PROJ_BY_STREAM ? first->stream_id : 0;

      const guint32 *set_start = (const guint32 *) p->set_start->data;
      const guint32 *set_items = (const guint32 *) p->set_items->data;
      guint32 last_set = NONE, n_cached = 0;

      g_array_set_size (accs, 0);
      for (guint li = g; li < end; li++)
        {
          const SlLane *lane = g_ptr_array_index (lanes, li);
          for (gsize k = 0; k < lane->n_events; k++)
            {
              const SlEvent *op = &lane->events[k];
              guint32 set = op_set (p, op, &last_api);
              if (set == NONE || op->link >= n_ids)
                continue;
              guint64 bit = G_GUINT64_CONSTANT (1) << (op->link % 64);
              gboolean new_call = (seen_bits[op->link / 64] & bit) == 0;
              if (new_call)
                {
                  seen_bits[op->link / 64] |= bit;
                  g_array_append_val (seen, op->link);
                }
              if (set != last_set)
                {
                  /* the accumulators of the set's ranges; consecutive operations mostly come
                   * from one set, which then costs no lookup */
                  n_cached = 0;
                  for (guint32 s = set_start[set]; s < set_start[set + 1]; s++)
                    {
                      guint32 rid = set_items[s];
                      if (row_of[rid] == NONE)
                        {
                          Acc fresh = { op->start, op->end, 0, 0, 0 };
                          row_of[rid] = accs->len;
                          g_array_append_val (accs, fresh);
                          g_array_append_val (touched, rid);
                        }
                      cached[n_cached++] = row_of[rid];
                    }
                  last_set = set;
                }
              Acc *acc = (Acc *) accs->data;
              for (guint32 j = 0; j < n_cached; j++)
                {
                  Acc *a = &acc[cached[j]];
                  a->start = MIN (a->start, op->start);
                  a->end = MAX (a->end, op->end);
                  a->n_ops++;
                  a->n_calls += new_call;
                }
            }
        }
      /* children: projected ranges of this group whose parent is projected here too; then
       * the rows in order */
      Acc *acc = (Acc *) accs->data;
      for (guint i = 0; i < touched->len; i++)
        {
          guint32 parent = p->parent[g_array_index (touched, guint32, i)];
          if (parent != NONE && row_of[parent] != NONE)
            acc[row_of[parent]].n_children++;
        }
      g_array_set_size (keys, touched->len);
      for (guint i = 0; i < touched->len; i++)
        g_array_index (keys, RowKey, i) = (RowKey) {
          acc[i].start, acc[i].end, p->level[g_array_index (touched, guint32, i)], i
        };
      Sorting sorting = { p, (const guint32 *) touched->data };
      g_qsort_with_data (keys->data, keys->len, sizeof (RowKey), compare_rows, &sorting);
      for (guint i = 0; i < keys->len; i++)
        {
          const RowKey *key = &g_array_index (keys, RowKey, i);
          const Acc *a = &acc[key->row];
          guint32 rid = g_array_index (touched, guint32, key->row);
          SlNvtxProjRow row = { rid_ref (p, rid), gpu, stream, a->start, a->end, a->n_ops,
                                a->n_calls, a->n_children, key->level };
          g_array_append_val (rows, row);
        }
      for (guint i = 0; i < touched->len; i++)
        row_of[g_array_index (touched, guint32, i)] = NONE;
      g_array_set_size (touched, 0);
      for (guint i = 0; i < seen->len; i++)
        seen_bits[g_array_index (seen, guint32, i) / 64] = 0;
      g_array_set_size (seen, 0);
      g = end;
    }
  return rows;
}

const GArray *
sl_nvtx_proj_get_rows (SlNvtxProj      *p,
                       SlNvtxProjScope  scope)
{
  g_return_val_if_fail (p != NULL && scope <= SL_NVTX_PROJ_BY_STREAM, NULL);

  if (g_once_init_enter (&p->rows[scope]))
    g_once_init_leave (&p->rows[scope], sl_nvtx_proj_compute (p, scope));
  return p->rows[scope];
}

guint
sl_nvtx_proj_enclosing (SlNvtxProj   *p,
                        const SlLane *gpu_lane,
                        gsize         index,
                        GArray       *out)
{
  g_return_val_if_fail (p != NULL && gpu_lane != NULL && out != NULL, 0);
  g_array_set_size (out, 0);
  if (index >= gpu_lane->n_events)
    return 0;
  const SlLane *last_api = NULL;
  guint32 set = op_set (p, &gpu_lane->events[index], &last_api);
  if (set == NONE)
    return 0;
  guint32 from = g_array_index (p->set_start, guint32, set);
  guint32 to = g_array_index (p->set_start, guint32, set + 1);
  for (guint32 s = from; s < to; s++)
    {
      SlEventRef ref = rid_ref (p, g_array_index (p->set_items, guint32, s));
      g_array_append_val (out, ref);
    }
  return out->len;
}

static guint32
ref_rid (SlNvtxProj *p,
         SlEventRef  range)
{
  if (range.lane < 0 || (guint) range.lane >= p->n_lanes || p->first_rid[range.lane] == NONE)
    return NONE;
  const SlLane *lane = sl_trace_get_lane (p->trace, range.lane);
  if (range.index >= lane->n_events)
    return NONE;
  return p->first_rid[range.lane] + (guint32) range.index;
}

gboolean
sl_nvtx_proj_get_parent (SlNvtxProj *p,
                         SlEventRef  range,
                         SlEventRef *parent)
{
  g_return_val_if_fail (p != NULL, FALSE);
  guint32 rid = ref_rid (p, range);
  if (rid == NONE || p->parent[rid] == NONE)
    return FALSE;
  if (parent != NULL)
    *parent = rid_ref (p, p->parent[rid]);
  return TRUE;
}

guint
sl_nvtx_proj_get_level (SlNvtxProj *p,
                        SlEventRef  range)
{
  g_return_val_if_fail (p != NULL, 0);
  guint32 rid = ref_rid (p, range);
  return rid == NONE ? 0 : p->level[rid];
}

/* One group's rows [from, to): greedy per level (rows come by start), then levels stacked */
static void
assign_group (const SlNvtxProjRow *rows,
              guint                from,
              guint                to,
              guint32             *track,
              guint32             *group_tracks)
{
  g_autoptr (GPtrArray) ends = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);

  for (guint i = from; i < to; i++)
    {
      guint level = rows[i].level;
      while (ends->len <= level)
        g_ptr_array_add (ends, g_array_new (FALSE, FALSE, sizeof (SlTime)));
      GArray *level_ends = g_ptr_array_index (ends, level);
      guint k = 0;
      while (k < level_ends->len && g_array_index (level_ends, SlTime, k) > rows[i].start)
        k++;
      if (k == level_ends->len)
        g_array_append_val (level_ends, rows[i].end);
      else
        g_array_index (level_ends, SlTime, k) = rows[i].end;
      track[i] = k;
    }
  g_autofree guint32 *offset = g_new0 (guint32, ends->len + 1);
  for (guint l = 0; l < ends->len; l++)
    offset[l + 1] = offset[l] + ((GArray *) g_ptr_array_index (ends, l))->len;
  for (guint i = from; i < to; i++)
    {
      track[i] += offset[rows[i].level];
      if (group_tracks != NULL)
        group_tracks[i] = offset[ends->len];
    }
}

void
sl_nvtx_proj_assign_tracks (const GArray *rows,
                            guint32      *track,
                            guint32      *group_tracks)
{
  g_return_if_fail (rows != NULL && (track != NULL || rows->len == 0));

  const SlNvtxProjRow *r = (const SlNvtxProjRow *) rows->data;
  for (guint from = 0; from < rows->len;)
    {
      guint to = from + 1;
      while (to < rows->len && r[to].gpu == r[from].gpu && r[to].stream_id == r[from].stream_id)
        to++;
      assign_group (r, from, to, track, group_tracks);
      from = to;
    }
}
