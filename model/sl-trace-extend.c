/* sl-trace-extend.c: an append that adds to the previous trace's lanes instead of copying them.
 *
 * A live trace (sl-trace-live.c) keeps, for each lane, room for more global ids after its events
 * (SlTrace.headroom: ids are not dense), and its lanes' events in blocks with room after them
 * (SlLaneStore).  When an append's new rows all go after what each lane holds, in lanes that
 * exist already and fit their ids, the new trace's lanes are the old ones with the new events
 * written into the room after them: the old trace reads only its n_events of a block, and the
 * ids of everything it holds stay, so the links of the events both share hold in both.  A lane
 * with no new events shares its indexes too (SlLaneIdx); one with new events gets them extended
 * (busy sums and levels of detail from the old ones' tail on, the interval tree kept while ends
 * keep growing), the correlation maps kept by the previous trace link the new events only
 * (_sl_trace_link_added), and each GPU's busy union goes on from the earliest new operation
 * (_sl_gpu_busy_extend).  An append then costs what it reads, plus a few bytes copied per event
 * held (the busy sums, levels of detail and busy unions of the lanes that grew).
 *
 * Where it cannot (a new thread, stream or nesting depth; rows that go before those read, as NVTX
 * ranges written when they close after what they enclose; a lane past the ids kept for it; GPU
 * work read before its call; thread states derived from samples), _sl_trace_extend says why and
 * the append copies the old trace into a new one as before, which then keeps new room.
 * SIGHTLINE_APPEND_COPY=1 makes every append copy (bench-live compares the two).
 *
 * Thread safety: the old trace is drawn while this runs.  What it writes that the old trace can
 * see: events past the old lane's n_events (never read by it), and the link of a call read before
 * whose GPU work is new, set to an id past the old GPU lane's events (sl_trace_resolve: none).
 */
#include "sl-reader-private.h"
#include "sl-occupancy.h"

#include <string.h>

void
_sl_lane_store_unref (SlLaneStore *store)
{
  if (store == NULL || !g_atomic_int_dec_and_test (&store->ref))
    return;
  _sl_free_large (store->events);
  g_free (store);
}

void
_sl_lane_idx_unref (SlLaneIdx *idx)
{
  if (idx == NULL || !g_atomic_int_dec_and_test (&idx->ref))
    return;
  _sl_free_large (idx->max_end);
  g_free (idx->busy_prefix);
  for (guint l = 0; l < idx->n_lod; l++)
    _sl_free_large (idx->lod[l].b);
  g_free (idx->lod);
  g_free (idx);
}

/* The lane's events in a store of its own (taking them over) or its store, and the same for its
 * indexes: what the next trace's lane can share. */
static SlLaneStore *
lane_store (SlLane *lane)
{
  if (lane->store == NULL)
    {
      lane->store = g_new0 (SlLaneStore, 1);
      lane->store->ref = 1;
      lane->store->events = lane->events;
      lane->store->cap = lane->store->len = lane->n_events;
    }
  return lane->store;
}

static SlLaneIdx *
lane_idx (SlLane *lane)
{
  if (lane->idx == NULL)
    {
      lane->idx = g_new0 (SlLaneIdx, 1);
      lane->idx->ref = 1;
      lane->idx->max_end = lane->max_end;
      lane->idx->busy_prefix = lane->busy_prefix;
      lane->idx->lod = lane->lod;
      lane->idx->n_lod = lane->n_lod;
    }
  return lane->idx;
}

/* What identifies a lane across appends. */
static char *
lane_key (const SlLane *lane)
{
  return g_strdup_printf ("%d %d %u %d %" G_GUINT64_FORMAT " %u %u %u", lane->kind, lane->thread,
                          lane->depth, lane->gpu, lane->global_pid, lane->context_id,
                          lane->green_context_id, lane->stream_id);
}

/* The lane kinds an append reads as new rows only (the reader's thread-state lanes are whole:
 * sl-reader-sched.c goes on from where the previous trace left each thread). */
static gboolean
delta_kind (SlLaneKind kind)
{
  switch (kind)
    {
    case SL_LANE_CUDA_API:
    case SL_LANE_NVTX:
    case SL_LANE_OSRT:
    case SL_LANE_SAMPLES:
    case SL_LANE_KERNELS:
    case SL_LANE_MEMCPY:
    case SL_LANE_MEMSET:
    case SL_LANE_SYNC:
    case SL_LANE_GRAPHS:
      return TRUE;
    case SL_LANE_SCHED:
    case SL_LANE_MPI:
    case SL_N_LANE_KINDS:
    default:
      return FALSE;
    }
}

static gboolean
nested_kind (SlLaneKind kind)
{
  return kind == SL_LANE_CUDA_API || kind == SL_LANE_NVTX || kind == SL_LANE_OSRT;
}

/* The latest close of a lane's events: its last one's where ends never decrease, else the root
 * of its interval tree (max_end holds the same closes). */
static SlTime
lane_close (const SlLane *lane)
{
  if (lane->max_end == NULL)
    return _sl_event_close (&lane->events[lane->n_events - 1]);
  return lane->max_end[((gsize) 1 << lane->max_level) - 1];
}

typedef struct
{
  SlLaneKind kind;
  SlTime     old_close;   /* latest close of the thread's lanes of this kind read before */
  SlTime     new_first;   /* earliest start of the new ones */
  guint      first, n;    /* its lanes in the previous trace (one per depth, in depth order) */
} Group;

/* The lanes [first, first + n) of `prev`, a thread's NVTX ranges or OS calls by depth, with the
 * new ones of `delta`, split by depth again as the reader does (split_by_depth in sl-reader.c):
 * into made[first + d]; why not, or NULL. */
static char *
regroup (SlTrace  *prev,
         guint     first,
         guint     n,
         SlLane  **delta,
         GArray  **made)
{
  g_autoptr (GPtrArray) old_lanes = g_ptr_array_new ();
  g_autoptr (GPtrArray) new_lanes = g_ptr_array_new ();
  g_autoptr (GArray) old = g_array_new (FALSE, FALSE, sizeof (SlEvent));
  g_autoptr (GArray) neu = g_array_new (FALSE, FALSE, sizeof (SlEvent));

  for (guint i = first; i < first + n; i++)
    {
      g_ptr_array_add (old_lanes, g_ptr_array_index (prev->lanes, i));
      if (delta[i] != NULL)
        g_ptr_array_add (new_lanes, delta[i]);
    }
  _sl_live_merge_depths (old, old_lanes);
  _sl_live_merge_depths (neu, new_lanes);

  /* one sorted run, the earlier rows first of two that sort as equal (as a fresh load sorts) */
  gsize total = old->len + neu->len, a = 0, b = 0;
  SlEvent *ev = _sl_huge_new (total, sizeof (SlEvent));
  const SlEvent *x = (const SlEvent *) (void *) old->data, *y = (const SlEvent *) (void *) neu->data;
  for (gsize k = 0; k < total; k++)
    ev[k] = b < neu->len && (a == old->len || _sl_event_before (&y[b], &x[a])) ? y[b++] : x[a++];

  guint16 *depth = _sl_huge_new (total, sizeof (guint16));
  g_autofree gsize *count = g_new0 (gsize, n);
  char *why = NULL;
  if (_sl_events_depths (ev, total, depth) > n)
    why = g_strdup ("a thread's new ranges or calls nest deeper than those read");
  for (gsize i = 0; i < total && why == NULL; i++)
    count[depth[i]]++;
  for (guint d = 0; d < n && why == NULL; d++)
    {
      guint i = first + d;
      guint64 room = (i + 1 < prev->lanes->len
                      ? ((SlLane *) g_ptr_array_index (prev->lanes, i + 1))->base : prev->n_ids)
                     - ((SlLane *) g_ptr_array_index (prev->lanes, i))->base;
      if (count[d] > room)
        why = g_strdup ("a lane outgrew the ids kept for it");
    }
  if (why == NULL)
    {
      for (guint d = 0; d < n; d++)
        made[first + d] = g_array_sized_new (FALSE, FALSE, sizeof (SlEvent), count[d]);
      for (gsize i = 0; i < total; i++)
        g_array_append_val (made[first + depth[i]], ev[i]);
    }
  _sl_free_large (depth);
  _sl_free_large (ev);
  return why;
}

/* Why the new events of `delta` (by the previous trace's lane index) cannot be added to `prev`'s
 * lanes, or NULL. */
static char *
check_fit (SlTrace  *prev,
           SlLane  **delta,
           GArray  **made)
{
  guint n = prev->lanes->len;
  g_autoptr (GHashTable) groups = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                         g_free);

  for (guint i = 0; i < n; i++)
    {
      const SlLane *p = g_ptr_array_index (prev->lanes, i);
      const SlLane *d = delta[i];
      if (p->events_map != NULL)
        return g_strdup ("its events are in a cache file");
      if (d == NULL)
        continue;
      guint64 room = (i + 1 < n ? ((SlLane *) g_ptr_array_index (prev->lanes, i + 1))->base
                                : prev->n_ids) - p->base;
      guint64 total = delta_kind (p->kind) ? p->n_events + d->n_events : d->n_events;
      if (total > room)
        return g_strdup ("a lane outgrew the ids kept for it");
      if (!delta_kind (p->kind))
        continue;
      if (nested_kind (p->kind))
        continue;
      if (_sl_event_before (&d->events[0], &p->events[p->n_events - 1]))
        return g_strdup ("events that go before those read (a GPU stream's or CPU samples)");
    }

  /* a thread's calls or ranges split by depth as a fresh load would: only if each new one starts
   * once all read before have closed (none is still open on the reader's stack) */
  for (guint i = 0; i < n; i++)
    {
      const SlLane *p = g_ptr_array_index (prev->lanes, i);
      if (!nested_kind (p->kind))
        continue;
      gint64 key = ((gint64) p->thread << 8) | p->kind;
      Group *g = g_hash_table_lookup (groups, &key);
      if (g == NULL)
        {
          g = g_new (Group, 1);
          g->kind = p->kind;
          g->old_close = G_MININT64;
          g->new_first = G_MAXINT64;
          g->first = i;
          g->n = 0;
          g_hash_table_insert (groups, g_memdup2 (&key, sizeof key), g);
        }
      g->n++;
      g->old_close = MAX (g->old_close, lane_close (p));
      if (delta[i] != NULL)
        g->new_first = MIN (g->new_first, delta[i]->events[0].start);
    }
  GHashTableIter iter;
  gpointer value;
  g_hash_table_iter_init (&iter, groups);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const Group *g = value;
      if (g->new_first == G_MAXINT64 || g->new_first >= g->old_close)
        continue;
      /* a call's id is held by the GPU work it launched: its lanes cannot be made again */
      if (g->kind == SL_LANE_CUDA_API)
        return g_strdup ("a thread's new CUDA calls begin before those read have ended");
      char *why = regroup (prev, g->first, g->n, delta, made);
      if (why != NULL)
        return why;
    }
  return NULL;
}

/* Lane `p` of the previous trace with `d`'s events after its own, in a new lane. */
static SlLane *
grow_lane (SlLane       *p,
           const SlLane *d,
           guint64       room)
{
  SlLane *lane = g_new (SlLane, 1);
  SlLaneStore *st = lane_store (p);
  gsize n = p->n_events + d->n_events;

  *lane = *p;
  if (st->len != p->n_events || st->cap < n)
    {
      /* another trace wrote past this lane's events, or no room: a store of its own, with
       * room for half as many again (each event is copied twice on average as a lane grows),
       * at most for the ids the lane keeps */
      SlLaneStore *fresh = g_new0 (SlLaneStore, 1);
      fresh->ref = 1;
      fresh->cap = MAX (MIN (room, (guint64) n + n / 2 + 1024), n);
      fresh->events = _sl_huge_new (fresh->cap, sizeof (SlEvent));
      memcpy (fresh->events, p->events, p->n_events * sizeof (SlEvent));
      fresh->len = p->n_events;
      st = fresh;
    }
  else
    g_atomic_int_inc (&st->ref);
  memcpy (st->events + p->n_events, d->events, d->n_events * sizeof (SlEvent));
  st->len = n;
  lane->store = st;
  lane->events = st->events;
  lane->n_events = n;

  /* indexes of its own */
  lane->idx = NULL;
  lane->max_end = NULL;
  lane->max_level = 0;
  gboolean monotonic = p->max_end == NULL;
  for (gsize k = p->n_events; k < n && monotonic; k++)
    monotonic = _sl_event_close (&lane->events[k]) >= _sl_event_close (&lane->events[k - 1]);
  if (!monotonic)
    _sl_lane_build_index (lane);
  lane->busy_prefix = _sl_lane_extend_busy (lane, p->busy_prefix, p->n_events);
  SlTime busy = p->busy;
  for (gsize k = p->n_events; k < n; k++)
    busy = _sl_time_add (busy, lane->events[k].end - lane->events[k].start);
  lane->busy = busy;
  _sl_lane_extend_lod (lane, p);
  return lane;
}

/* Lane `p` of the previous trace with the events `made` (taken) instead of its own. */
static SlLane *
remade_lane (SlLane *p,
             GArray *made)
{
  SlLane *lane = g_new (SlLane, 1);

  *lane = *p;
  lane->store = NULL;
  lane->idx = NULL;
  lane->n_events = made->len;
  lane->events = (SlEvent *) (void *) g_array_free (made, FALSE);
  lane->max_end = NULL;
  lane->max_level = 0;
  lane->lod = NULL;
  lane->n_lod = 0;
  _sl_lane_build_index (lane);
  lane->busy_prefix = _sl_lane_build_busy (lane);
  _sl_lane_build_lod (lane);
  lane->busy = _sl_lane_busy_between (lane, lane->busy_prefix, 0, lane->n_events);
  return lane;
}

/* A lane of the previous trace unchanged: the same events and indexes. */
static SlLane *
share_lane (SlLane *p)
{
  SlLane *lane = g_new (SlLane, 1);

  *lane = *p;
  lane->store = lane_store (p);
  g_atomic_int_inc (&lane->store->ref);
  lane->idx = lane_idx (p);
  g_atomic_int_inc (&lane->idx->ref);
  return lane;
}

gboolean
_sl_trace_extend (SlTrace  *next,
                  SlTrace  *prev,
                  char    **why)
{
  guint n = prev->lanes->len;
  gint64 t0 = g_get_monotonic_time ();

  if (!prev->headroom || prev->corr_maps == NULL)
    {
      *why = g_strdup ("the previous trace kept no room to grow");
      return FALSE;
    }
  g_autoptr (GHashTable) by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < n; i++)
    g_hash_table_insert (by_key, lane_key (g_ptr_array_index (prev->lanes, i)),
                         GUINT_TO_POINTER (i + 1));
  g_autofree SlLane **delta = g_new0 (SlLane *, MAX (n, 1));
  for (guint i = 0; i < next->lanes->len; i++)
    {
      SlLane *d = g_ptr_array_index (next->lanes, i);
      if (d->n_events == 0)
        continue;
      if (!delta_kind (d->kind) && d->kind != SL_LANE_SCHED)
        {
          *why = g_strdup_printf ("lanes of kind %d are read whole", d->kind);
          return FALSE;
        }
      if (d->kind == SL_LANE_SCHED && (d->events[0].aux & SL_STATE_DERIVED))
        {
          *why = g_strdup ("thread states derived from samples");
          return FALSE;
        }
      g_autofree char *key = lane_key (d);
      guint at = GPOINTER_TO_UINT (g_hash_table_lookup (by_key, key));
      if (at == 0)
        {
          *why = g_strdup ("a new lane (a thread, stream or nesting depth)");
          return FALSE;
        }
      if (delta_kind (d->kind))
        _sl_events_sort (d->events, d->n_events);
      delta[at - 1] = d;
    }
  /* a thread's NVTX ranges or OS calls made again by depth, where new ones enclose old ones */
  GArray **made = g_new0 (GArray *, MAX (n, 1));
  *why = check_fit (prev, delta, made);
  if (*why == NULL)
    for (guint i = 0; i < n && *why == NULL; i++)
      {
        const SlLane *d = delta[i];
        if (d != NULL && d->kind == SL_LANE_CUDA_API)
          *why = _sl_corr_check_calls (prev->corr_maps, d);
      }
  if (*why != NULL)
    {
      for (guint i = 0; i < n; i++)
        if (made[i] != NULL)
          g_array_free (made[i], TRUE);
      g_free (made);
      return FALSE;
    }
  t0 = _sl_live_phase_end (SL_LIVE_SORT, t0);

  /* from here on nothing fails */
  g_autoptr (GPtrArray) lanes = g_ptr_array_new ();
  g_autofree gsize *old_n = g_new (gsize, MAX (n, 1));
  SlTime start = prev->start, end = prev->end;
  gsize n_events = 0;
  gboolean any = prev->n_events > 0;
  for (guint i = 0; i < n; i++)
    {
      SlLane *p = g_ptr_array_index (prev->lanes, i);
      SlLane *d = delta[i], *lane;
      if (made[i] != NULL)
        {
          lane = remade_lane (p, made[i]);
          made[i] = NULL;
          old_n[i] = lane->n_events;
          for (gsize k = 0; d != NULL && k < d->n_events; k++)
            end = MAX (end, d->events[k].end);
          start = any ? MIN (start, lane->events[0].start) : lane->events[0].start;
          any = TRUE;
        }
      else if (d == NULL)
        {
          lane = share_lane (p);
          old_n[i] = p->n_events;
        }
      else if (!delta_kind (d->kind))
        {
          /* thread states: the reader's lane, whole, in the previous one's place */
          g_ptr_array_remove_fast (next->lanes, d);
          lane = d;
          lane->base = p->base;
          _sl_lane_build_index (lane);
          lane->busy_prefix = _sl_lane_build_busy (lane);
          _sl_lane_build_lod (lane);
          lane->busy = _sl_lane_busy_between (lane, lane->busy_prefix, 0, lane->n_events);
          old_n[i] = lane->n_events;
          for (gsize k = 0; k < lane->n_events; k++)
            end = MAX (end, lane->events[k].end);
          start = any ? MIN (start, lane->events[0].start) : lane->events[0].start;
          any = TRUE;
        }
      else
        {
          guint64 room = (i + 1 < n ? ((SlLane *) g_ptr_array_index (prev->lanes, i + 1))->base
                                    : prev->n_ids) - p->base;
          lane = grow_lane (p, d, room);
          old_n[i] = p->n_events;
          for (gsize k = 0; k < d->n_events; k++)
            end = MAX (end, d->events[k].end);
          start = any ? MIN (start, lane->events[0].start) : lane->events[0].start;
          any = TRUE;
        }
      lane->index = i;
      n_events += lane->n_events;
      g_ptr_array_add (lanes, lane);
    }
  g_free (made);
  /* the reader's lanes of new events, copied into the grown ones */
  for (guint i = 0; i < next->lanes->len; i++)
    _sl_lane_free (g_ptr_array_index (next->lanes, i));
  g_ptr_array_set_size (next->lanes, 0);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (next->lanes, g_ptr_array_index (lanes, i));
  next->n_events = n_events;
  if (n_events == 0)
    _sl_reader_warn_empty (next);
  next->n_ids = prev->n_ids;
  next->headroom = TRUE;
  next->start = any ? start : 0;
  next->end = any ? end : 0;
  t0 = _sl_live_phase_end (SL_LIVE_INDEX, t0);

  /* the maps move on: the previous trace, if appended to again, is copied whole */
  next->corr_maps = g_steal_pointer (&prev->corr_maps);
  _sl_trace_link_added (next, old_n);
  t0 = _sl_live_phase_end (SL_LIVE_LINK, t0);

  for (guint i = 0; i < next->gpus->len; i++)
    sl_gpu_limits_complete (&g_array_index (next->gpus, SlGpu, i).limits);
  _sl_gpu_busy_extend (next, prev, old_n);
  _sl_live_phase_end (SL_LIVE_GPU_BUSY, t0);
  g_hash_table_remove_all (next->str_ids);
  return TRUE;
}
