/* sl-correlation.c: ties GPU work to the CUDA API call that launched it, in both directions.
 *
 * nsys scopes correlation ids per process: a kernel's launch is the runtime/driver call of the
 * same process with the same correlationId.  CUPTI hands those ids out in sequence, so for each
 * process a flat array indexed by id (4 bytes per id, touched mostly in order) maps them to the
 * call's global event id; a process whose ids are sparse gets an open-addressing table instead.
 * With 10^6 … 10^7 calls either lives only while linking, but in a live trace, which keeps them
 * for its next append: _sl_trace_link_added links only the events an append added, the dense
 * arrays growing past their end as ids count up.
 */
#include "sl-trace-private.h"

#include <string.h>

typedef struct
{
  guint32 corr;
  guint32 id;
} Slot;

typedef struct
{
  guint64  global_pid;
  guint32  lo, hi;      /* range of correlation ids */
  gsize    count;
  guint32 *dense;       /* id - lo -> global event id, or G_MAXUINT32 */
  Slot    *slots;       /* when sparse: corr -> id, corr 0 = empty */
  gsize    mask;
  /* a live trace's: the ids of GPU work no call was read for yet (corr -> 1) */
  GHashTable *pending;
} ProcMap;

/* What a live trace keeps for its next append's links (SlTrace.corr_maps). */
typedef struct
{
  GArray  *maps;   /* ProcMap */
  guint64  dup;    /* calls that repeat an id of their process, so far */
} CorrMaps;

static inline gsize
slot_hash (guint32 corr)
{
  guint64 h = corr * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  return (gsize) (h ^ (h >> 29));
}

static ProcMap *
proc_map (GArray  *maps,
          guint64  global_pid)
{
  for (guint i = 0; i < maps->len; i++)
    if (g_array_index (maps, ProcMap, i).global_pid == global_pid)
      return &g_array_index (maps, ProcMap, i);
  return NULL;
}

/* Inserts; FALSE when the process already has this id. */
static gboolean
map_insert (ProcMap *m,
            guint32  corr,
            guint32  id)
{
  if (m->dense != NULL)
    {
      guint32 *cell = &m->dense[corr - m->lo];
      if (*cell != G_MAXUINT32)
        return FALSE;
      *cell = id;
      return TRUE;
    }
  gsize s = slot_hash (corr) & m->mask;
  while (m->slots[s].corr != 0)
    {
      if (m->slots[s].corr == corr)
        return FALSE;
      s = (s + 1) & m->mask;
    }
  m->slots[s] = (Slot) { corr, id };
  return TRUE;
}

/* Room for `corr` in a map appended to: a dense one grows past its end (ids count up), a sparse
 * one rehashes at two thirds full; an empty one (a process whose calls had no ids) starts
 * sparse. */
static void
map_grow (ProcMap *m,
          guint32  corr)
{
  if (m->dense != NULL)
    {
      if (corr <= m->hi)
        return;
      guint64 range = (guint64) m->hi - m->lo + 1;
      guint64 want = MAX ((guint64) corr - m->lo + 1, range + range / 2 + 1024);
      want = MIN (want, (guint64) G_MAXUINT32 - m->lo + 1);
      m->dense = g_realloc_n (m->dense, want, sizeof (guint32));
      memset (m->dense + range, 0xFF, (want - range) * sizeof (guint32));
      m->hi = (guint32) (m->lo + want - 1);
      return;
    }
  if (m->slots != NULL && (m->count + 1) * 3 <= (m->mask + 1) * 2)
    return;
  gsize cap = m->slots != NULL ? (m->mask + 1) * 2 : 1024;
  Slot *old = m->slots;
  gsize old_cap = m->slots != NULL ? m->mask + 1 : 0;
  m->slots = g_new0 (Slot, cap);
  m->mask = cap - 1;
  for (gsize i = 0; i < old_cap; i++)
    if (old[i].corr != 0)
      map_insert (m, old[i].corr, old[i].id);
  g_free (old);
}

static guint32
map_lookup (const ProcMap *m,
            guint32        corr)
{
  if (corr < m->lo || corr > m->hi)
    return G_MAXUINT32;
  if (m->dense != NULL)
    return m->dense[corr - m->lo];
  if (m->slots == NULL)
    return G_MAXUINT32;
  gsize s = slot_hash (corr) & m->mask;
  while (m->slots[s].corr != 0)
    {
      if (m->slots[s].corr == corr)
        return m->slots[s].id;
      s = (s + 1) & m->mask;
    }
  return G_MAXUINT32;
}

/* A live trace's GPU work with no call read for it yet: a call read later for it cannot be
 * linked by an append (the work's event may be shared with the previous trace). */
static void
note_pending (ProcMap *m,
              guint32  corr)
{
  if (m->pending == NULL)
    m->pending = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_hash_table_add (m->pending, GUINT_TO_POINTER (corr));
}

/* GPU operation k of `lane` to its call, and the call to its earliest GPU operation (a graph
 * launch has many). */
static void
link_one (SlTrace *trace,
          ProcMap *m,
          SlLane  *lane,
          gsize    k)
{
  SlEvent *ev = &lane->events[k];

  if (ev->corr == 0)
    return;
  guint32 id = map_lookup (m, ev->corr);
  if (id == G_MAXUINT32)
    {
      if (trace->headroom)
        note_pending (m, ev->corr);
      return;
    }
  ev->link = id;
  const SlLane *api_lane;
  gsize api_index;
  if (sl_trace_resolve (trace, id, &api_lane, &api_index))
    {
      /* in an append, a call read before may be shared with the previous trace: it sees the
       * new id as none (past its lane's events) */
      SlEvent *api = &((SlLane *) api_lane)->events[api_index];
      const SlLane *prev_lane;
      gsize prev_index;
      if (api->link == SL_NO_LINK
          || (sl_trace_resolve (trace, api->link, &prev_lane, &prev_index)
              && prev_lane->events[prev_index].start > ev->start))
        api->link = (guint32) (lane->base + k);
    }
}

static void
warn_dup (SlTrace *trace,
          guint64  dup)
{
  _sl_trace_warn (trace, "%" G_GUINT64_FORMAT " CUDA API calls repeat a correlation id of "
                         "their process; GPU work links to the first", dup);
}

static void
free_maps (GArray *maps)
{
  if (maps == NULL)
    return;
  for (guint p = 0; p < maps->len; p++)
    {
      ProcMap *m = &g_array_index (maps, ProcMap, p);
      g_free (m->dense);
      g_free (m->slots);
      g_clear_pointer (&m->pending, g_hash_table_unref);
    }
  g_array_unref (maps);
}

void
_sl_trace_link (SlTrace *trace)
{
  GArray *maps = g_array_new (FALSE, TRUE, sizeof (ProcMap));
  guint64 dup = 0;

  /* per process: the range and number of correlation ids of its calls */
  for (guint i = 0; i < trace->lanes->len; i++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, i);
      if (lane->kind != SL_LANE_CUDA_API)
        continue;
      ProcMap *m = proc_map (maps, lane->global_pid);
      if (m == NULL)
        {
          ProcMap fresh = { lane->global_pid, G_MAXUINT32, 0, 0, NULL, NULL, 0, NULL };
          g_array_append_val (maps, fresh);
          m = &g_array_index (maps, ProcMap, maps->len - 1);
        }
      for (gsize k = 0; k < lane->n_events; k++)
        {
          guint32 corr = lane->events[k].corr;
          if (corr == 0)
            continue;
          m->lo = MIN (m->lo, corr);
          m->hi = MAX (m->hi, corr);
          m->count++;
        }
    }
  for (guint p = 0; p < maps->len; p++)
    {
      ProcMap *m = &g_array_index (maps, ProcMap, p);
      if (m->count == 0)
        continue;
      guint64 range = (guint64) m->hi - m->lo + 1;
      if (range <= 4 * (guint64) m->count + 1024)
        {
          m->dense = _sl_huge_new (range, sizeof (guint32));
          memset (m->dense, 0xFF, range * sizeof (guint32));
        }
      else
        {
          gsize cap = 16;
          while (cap < m->count + m->count / 2)
            cap <<= 1;
          m->mask = cap - 1;
          m->slots = g_new0 (Slot, cap);
        }
    }

  for (guint i = 0; i < trace->lanes->len; i++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, i);
      if (lane->kind != SL_LANE_CUDA_API)
        continue;
      ProcMap *m = proc_map (maps, lane->global_pid);
      for (gsize k = 0; k < lane->n_events; k++)
        {
          guint32 corr = lane->events[k].corr;
          if (corr != 0 && !map_insert (m, corr, (guint32) (lane->base + k)))
            dup++;
        }
    }

  for (guint i = 0; i < trace->lanes->len; i++)
    {
      SlLane *lane = g_ptr_array_index (trace->lanes, i);
      ProcMap *m;

      if (lane->gpu < 0 || (m = proc_map (maps, lane->global_pid)) == NULL
          || (m->count == 0 && !trace->headroom))
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        link_one (trace, m, lane, k);
    }

  if (dup > 0)
    warn_dup (trace, dup);
  _sl_corr_maps_free (trace->corr_maps);
  trace->corr_maps = NULL;
  if (trace->headroom)
    {
      /* kept for the next append's links */
      CorrMaps *keep = g_new0 (CorrMaps, 1);
      keep->maps = g_steal_pointer (&maps);
      keep->dup = dup;
      trace->corr_maps = keep;
    }
  else
    free_maps (maps);
}

char *
_sl_corr_check_calls (gpointer      maps,
                      const SlLane *calls)
{
  CorrMaps *cm = maps;
  const ProcMap *m = proc_map (cm->maps, calls->global_pid);

  for (gsize k = 0; k < calls->n_events; k++)
    {
      guint32 corr = calls->events[k].corr;
      if (corr == 0)
        continue;
      if (m == NULL)
        return g_strdup ("the first CUDA calls of a process");
      if (m->dense != NULL && corr < m->lo)
        return g_strdup ("a correlation id below those read before");
      if (m->pending != NULL && g_hash_table_contains (m->pending, GUINT_TO_POINTER (corr)))
        return g_strdup ("GPU work read before the CUDA call that launched it");
    }
  return NULL;
}

/* The calls of each lane past old_n, then its GPU work, as _sl_trace_link does for all. */
void
_sl_trace_link_added (SlTrace     *trace,
                      const gsize *old_n)
{
  CorrMaps *cm = trace->corr_maps;

  for (guint i = 0; i < trace->lanes->len; i++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, i);
      if (lane->kind != SL_LANE_CUDA_API)
        continue;
      for (gsize k = old_n[i]; k < lane->n_events; k++)
        {
          guint32 corr = lane->events[k].corr;
          if (corr == 0)
            continue;
          ProcMap *m = proc_map (cm->maps, lane->global_pid);
          map_grow (m, corr);
          if (m->dense == NULL)
            {
              m->lo = MIN (m->lo, corr);
              m->hi = MAX (m->hi, corr);
            }
          if (map_insert (m, corr, (guint32) (lane->base + k)))
            m->count++;
          else
            cm->dup++;
        }
    }
  for (guint i = 0; i < trace->lanes->len; i++)
    {
      SlLane *lane = g_ptr_array_index (trace->lanes, i);
      ProcMap *m;
      if (lane->gpu < 0 || old_n[i] == lane->n_events
          || (m = proc_map (cm->maps, lane->global_pid)) == NULL)
        continue;
      for (gsize k = old_n[i]; k < lane->n_events; k++)
        link_one (trace, m, lane, k);
    }
  if (cm->dup > 0)
    warn_dup (trace, cm->dup);
}

gsize
_sl_corr_maps_size (gpointer maps)
{
  const CorrMaps *cm = maps;
  gsize bytes = 0;

  for (guint p = 0; cm != NULL && p < cm->maps->len; p++)
    {
      const ProcMap *m = &g_array_index (cm->maps, ProcMap, p);
      if (m->dense != NULL)
        bytes += ((gsize) m->hi - m->lo + 1) * sizeof (guint32);
      else if (m->slots != NULL)
        bytes += (m->mask + 1) * sizeof (Slot);
      if (m->pending != NULL)
        bytes += g_hash_table_size (m->pending) * 4 * sizeof (gpointer);
    }
  return bytes;
}

void
_sl_corr_maps_free (gpointer maps)
{
  CorrMaps *cm = maps;

  if (cm == NULL)
    return;
  free_maps (cm->maps);
  g_free (cm);
}
