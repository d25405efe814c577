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
 * Some lanes' last events change: a thread's state lane ends with a span to the table's last time,
 * which the next load ends again, and an NVTX range, OS call, MPI call or OpenMP region written
 * when it closes may enclose ranges read before, which then go one level deeper (regroup: only
 * those after the new one's start are split again).  Such a lane keeps its events before the change
 * and gets a store of its own (a copy of them: the old trace still reads the ones that change).
 * MPI calls' and OpenMP events' details are the previous trace's followed by the new ones
 * (sl-trace-live.c copies them), so the events shared keep their corr.
 *
 * Where it cannot (a new thread, stream or nesting depth; GPU or sample rows that go before those
 * read; a lane past the ids kept for it; GPU work read before its call; thread states derived from
 * samples; an OpenMP region read before whose team grew), _sl_trace_extend says why and the append
 * copies the old trace into a new one as before, which then keeps new room.
 * SIGHTLINE_APPEND_COPY=1 makes every append copy (bench-live compares the two).
 *
 * Thread safety: the old trace is drawn while this runs.  What it writes that the old trace can
 * see: events past the old lane's n_events (never read by it), and the link of a call read before
 * whose GPU work is new, set to an id past the old GPU lane's events (sl_trace_resolve: none).
 */
#include "sl-reader-private.h"
#include "sl-occupancy.h"

#include <string.h>
#include <sys/mman.h>

void
_sl_lane_store_unref (SlLaneStore *store)
{
  if (store == NULL || !g_atomic_int_dec_and_test (&store->ref))
    return;
  if (store->mapped > 0)
    munmap (store->events, store->mapped);
  else
    _sl_free_large (store->events);
  g_free (store);
}

/* A store with room for `cap` events: a mapping of its own, of which only the pages written
 * become resident, so that a lane can keep room for every id it has (2n + 4096: it never copies
 * its events to grow, and the room costs address space only).  Where mapping fails, a malloc'd
 * block. */
#define STORE_MAP_MIN (256u << 10)

static SlLaneStore *
store_new (gsize cap)
{
  SlLaneStore *st = g_new0 (SlLaneStore, 1);
  gsize bytes = MAX (cap, 1) * sizeof (SlEvent);

  st->ref = 1;
  st->cap = cap;
  /* a small lane's room in a block (a trace may have thousands of lanes; the kernel allows
   * ~65 k mappings a process) */
  st->events = bytes >= STORE_MAP_MIN ? mmap (NULL, bytes, PROT_READ | PROT_WRITE,
                                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                                      : MAP_FAILED;
  if (st->events != MAP_FAILED)
    st->mapped = bytes;
  else
    st->events = _sl_huge_new (cap, sizeof (SlEvent));
  return st;
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
    case SL_LANE_SCHED:
    case SL_LANE_MPI:
    case SL_LANE_OPENMP:
    case SL_LANE_OPENACC:
      return TRUE;
    case SL_N_LANE_KINDS:
    default:
      return FALSE;
    }
}

/* The kinds the reader splits by depth (split_by_depth in sl-reader.c): MPI calls and OpenMP
 * and OpenACC events too (a parallel region holds its implicit task, which holds its barrier);
 * their corr is their details' index, which moves with them. */
static gboolean
nested_kind (SlLaneKind kind)
{
  return kind == SL_LANE_CUDA_API || kind == SL_LANE_NVTX || kind == SL_LANE_OSRT
         || kind == SL_LANE_MPI || kind == SL_LANE_OPENMP || kind == SL_LANE_OPENACC;
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

/* The events of lane `p` that sort before `first` or as it (those before it in one sorted run:
 * the earlier rows first of two that sort as equal). */
static gsize
count_before (const SlLane  *p,
              const SlEvent *first)
{
  gsize lo = 0, hi = p->n_events;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (_sl_event_before (first, &p->events[mid]))
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo;
}

/* The lanes [first, first + n) of `prev`, a thread's NVTX ranges or OS calls by depth, with the
 * new ones of `delta`, split by depth again as the reader does (split_by_depth in sl-reader.c),
 * from the first new event on: lane first + d keeps its keep[first + d] events before that one
 * and gets made[first + d] after them.  Why not, or NULL.
 *
 * The reader gives each event, in one sorted run, the depth of a stack of the closes of those
 * before it (popped while the top has closed).  After an event at depth D the stack is, for each
 * depth k <= D, the close of the last event at depth k: so the stack where the new events begin
 * is read off the old lanes' last events before them, and only the old events after that point
 * (those a new range may enclose: typically one step of a training loop) are split again. */
static char *
regroup (SlTrace  *prev,
         guint     first,
         guint     n,
         SlLane  **delta,
         GArray  **made,
         gsize    *keep)
{
  g_autoptr (GPtrArray) new_lanes = g_ptr_array_new ();
  g_autoptr (GPtrArray) tails = g_ptr_array_new ();
  g_autoptr (GArray) old = g_array_new (FALSE, FALSE, sizeof (SlEvent));
  g_autoptr (GArray) neu = g_array_new (FALSE, FALSE, sizeof (SlEvent));
  g_autofree SlLane *tail = g_new0 (SlLane, n);
  g_autofree SlTime *stack = g_new (SlTime, n);
  g_autofree gsize *at = g_new (gsize, n);
  gsize depth_at_cut = 0;
  const SlEvent *last = NULL;

  for (guint i = first; i < first + n; i++)
    if (delta[i] != NULL)
      g_ptr_array_add (new_lanes, delta[i]);
  _sl_live_merge_depths (neu, new_lanes);

  /* each depth's events before the first new one; the stack there, from the latest of them in
   * the sorted run (of two that sort as equal, the deeper came later) */
  for (guint d = 0; d < n; d++)
    {
      const SlLane *p = g_ptr_array_index (prev->lanes, first + d);
      at[d] = count_before (p, &g_array_index (neu, SlEvent, 0));
      if (at[d] > 0 && (last == NULL || !_sl_event_before (&p->events[at[d] - 1], last)))
        {
          last = &p->events[at[d] - 1];
          depth_at_cut = d + 1;
        }
    }
  for (gsize d = 0; d < depth_at_cut; d++)
    {
      const SlLane *p = g_ptr_array_index (prev->lanes, first + d);
      if (at[d] == 0)
        {
          /* not what the reader makes; split the whole thread again */
          memset (at, 0, n * sizeof (gsize));
          depth_at_cut = 0;
          break;
        }
      stack[d] = _sl_event_close (&p->events[at[d] - 1]);
    }
  for (guint d = 0; d < n; d++)
    {
      const SlLane *p = g_ptr_array_index (prev->lanes, first + d);
      tail[d] = *p;
      tail[d].events = p->events + at[d];
      tail[d].n_events = p->n_events - at[d];
      if (tail[d].n_events > 0)
        g_ptr_array_add (tails, &tail[d]);
    }
  _sl_live_merge_depths (old, tails);

  /* one sorted run of the old events after the cut and the new ones, the old first of two that
   * sort as equal (as a fresh load sorts), each given its depth from the stack at the cut */
  gsize total = old->len + neu->len, a = 0, b = 0, sp = depth_at_cut;
  const SlEvent *x = (const SlEvent *) (void *) old->data, *y = (const SlEvent *) (void *) neu->data;
  g_autofree gsize *count = g_new0 (gsize, n);
  for (guint d = 0; d < n; d++)
    made[first + d] = g_array_new (FALSE, FALSE, sizeof (SlEvent));
  for (gsize k = 0; k < total; k++)
    {
      const SlEvent *ev = b < neu->len && (a == old->len || _sl_event_before (&y[b], &x[a]))
                          ? &y[b++] : &x[a++];
      while (sp > 0 && stack[sp - 1] <= ev->start)
        sp--;
      if (sp >= n)
        return g_strdup ("a thread's new ranges or calls nest deeper than those read");
      g_array_append_vals (made[first + sp], ev, 1);
      count[sp]++;
      stack[sp++] = _sl_event_close (ev);
    }
  for (guint d = 0; d < n; d++)
    {
      guint i = first + d;
      guint64 room = (i + 1 < prev->lanes->len
                      ? ((SlLane *) g_ptr_array_index (prev->lanes, i + 1))->base : prev->n_ids)
                     - ((SlLane *) g_ptr_array_index (prev->lanes, i))->base;
      keep[i] = at[d];
      if (at[d] + count[d] > room)
        return g_strdup ("a lane outgrew the ids kept for it");
      if (at[d] + count[d] == 0)
        return g_strdup ("a nesting depth of a thread's ranges or calls emptied");
    }
  return NULL;
}

/* Why the new events of `delta` (by the previous trace's lane index) cannot be added to `prev`'s
 * lanes, or NULL.  keep[i]: the events of lane i the new lane keeps; made[i], where set, the
 * events after them instead of delta[i]'s. */
static char *
check_fit (SlTrace  *prev,
           SlLane  **delta,
           GArray  **made,
           gsize    *keep)
{
  guint n = prev->lanes->len;
  g_autoptr (GHashTable) groups = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                         g_free);

  for (guint i = 0; i < n; i++)
    {
      const SlLane *p = g_ptr_array_index (prev->lanes, i);
      const SlLane *d = delta[i];
      keep[i] = p->n_events;
      if (p->events_map != NULL)
        return g_strdup ("its events are in a cache file");
      if (d == NULL)
        continue;
      /* a thread's states: the reader's spans go on from the old lane's final one, which is
       * ended again */
      if (p->kind == SL_LANE_SCHED && p->n_events > 0
          && _sl_live_sched_final (prev, (guint) p->thread))
        keep[i] = p->n_events - 1;
      guint64 room = (i + 1 < n ? ((SlLane *) g_ptr_array_index (prev->lanes, i + 1))->base
                                : prev->n_ids) - p->base;
      if (keep[i] + d->n_events > room)
        return g_strdup ("a lane outgrew the ids kept for it");
      if (nested_kind (p->kind))
        continue;
      if (keep[i] > 0 && _sl_event_before (&d->events[0], &p->events[keep[i] - 1]))
        return g_strdup ("events that go before those read (a GPU stream's, CPU samples or "
                         "thread states)");
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
      char *why = regroup (prev, g->first, g->n, delta, made, keep);
      if (why != NULL)
        return why;
    }
  return NULL;
}

/* Lane `p` of the previous trace, its first `keep` events and the n_add of `add` after them, in
 * a new lane: on p's store where nothing was written past p's events (the old trace reads only
 * those), else on a store of its own.  Its indexes are p's up to `keep`, extended. */
static SlLane *
grow_lane (SlLane        *p,
           gsize          keep,
           const SlEvent *add,
           gsize          n_add,
           guint64        room)
{
  SlLane *lane = g_new (SlLane, 1);
  SlLaneStore *st = lane_store (p);
  gsize n = keep + n_add;

  g_assert (keep <= p->n_events && n > 0);
  *lane = *p;
  if (keep != p->n_events || st->len != p->n_events || st->cap < n)
    {
      /* another trace wrote past this lane's events, its last ones change (a thread's final
       * state, ranges a new one encloses), or no room (a lane read by a load, before its first
       * append): a store of its own, with room for all the ids the lane keeps */
      SlLaneStore *fresh = store_new (MAX (room, n));
      /* the events copied in, in huge pages where they fill them (fewer faults; the room
       * after them stays untouched) */
      if (fresh->mapped > 0)
        _sl_huge_pages (fresh->events, keep * sizeof (SlEvent));
      memcpy (fresh->events, p->events, keep * sizeof (SlEvent));
      st = fresh;
    }
  else
    g_atomic_int_inc (&st->ref);
  memcpy (st->events + keep, add, n_add * sizeof (SlEvent));
  st->len = n;
  lane->store = st;
  lane->events = st->events;
  lane->n_events = n;

  /* indexes of its own */
  lane->idx = NULL;
  lane->max_end = NULL;
  lane->max_level = 0;
  gboolean monotonic = p->max_end == NULL;
  for (gsize k = MAX (keep, 1); k < n && monotonic; k++)
    monotonic = _sl_event_close (&lane->events[k]) >= _sl_event_close (&lane->events[k - 1]);
  if (!monotonic)
    _sl_lane_build_index (lane);
  lane->busy_prefix = _sl_lane_extend_busy (lane, p->busy_prefix, keep);
  lane->busy = _sl_lane_busy_between (lane, lane->busy_prefix, 0, n);
  /* the levels of detail of p's first `keep` events are those of p up to the last of them */
  SlLane upto = *p;
  upto.n_events = keep;
  lane->lod = NULL;
  lane->n_lod = 0;
  if (keep > 0)
    _sl_lane_extend_lod (lane, &upto);
  else
    _sl_lane_build_lod (lane);
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
  /* what the reader found changes events read before (sl-reader-openmp.c: a region's team) */
  if (_sl_live_why_not_extend (next) != NULL)
    {
      *why = g_strdup (_sl_live_why_not_extend (next));
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
      if (!delta_kind (d->kind))
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
  g_autofree gsize *keep = g_new (gsize, MAX (n, 1));
  *why = check_fit (prev, delta, made, keep);
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
      guint64 room = (i + 1 < n ? ((SlLane *) g_ptr_array_index (prev->lanes, i + 1))->base
                                : prev->n_ids) - p->base;
      const SlEvent *add = made[i] != NULL ? (const SlEvent *) (void *) made[i]->data
                           : d != NULL ? d->events : NULL;
      gsize n_add = made[i] != NULL ? made[i]->len : d != NULL ? d->n_events : 0;
      if (keep[i] == p->n_events && n_add == 0)
        {
          lane = share_lane (p);
          old_n[i] = p->n_events;
        }
      else
        {
          lane = grow_lane (p, keep[i], add, n_add, room);
          /* ranges split by depth again are linked to nothing: none is new to the links */
          old_n[i] = made[i] != NULL ? lane->n_events : keep[i];
          for (gsize k = 0; d != NULL && k < d->n_events; k++)
            end = MAX (end, d->events[k].end);
          start = any ? MIN (start, lane->events[0].start) : lane->events[0].start;
          any = TRUE;
        }
      if (made[i] != NULL)
        g_array_free (made[i], TRUE);
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
  /* the CPU use the viewer draws, from the previous trace's (built by the viewer's load) */
  next->cpu_util = _sl_cpu_util_extend (next, prev, keep);
  _sl_live_phase_end (SL_LIVE_GPU_BUSY, t0);
  return TRUE;
}
