/* sl-correlation.c: ties GPU work to the CUDA API call that launched it, in both directions.
 *
 * nsys scopes correlation ids per process: a kernel's launch is the runtime/driver call of the
 * same process with the same correlationId.  CUPTI hands those ids out in sequence, so for each
 * process a flat array indexed by id (4 bytes per id, touched mostly in order) maps them to the
 * call's global event id; a process whose ids are sparse gets an open-addressing table instead.
 * With 10^6 … 10^7 calls either lives only while linking.
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
} ProcMap;

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

static guint32
map_lookup (const ProcMap *m,
            guint32        corr)
{
  if (corr < m->lo || corr > m->hi)
    return G_MAXUINT32;
  if (m->dense != NULL)
    return m->dense[corr - m->lo];
  gsize s = slot_hash (corr) & m->mask;
  while (m->slots[s].corr != 0)
    {
      if (m->slots[s].corr == corr)
        return m->slots[s].id;
      s = (s + 1) & m->mask;
    }
  return G_MAXUINT32;
}

void
_sl_trace_link (SlTrace *trace)
{
  g_autoptr (GArray) maps = g_array_new (FALSE, TRUE, sizeof (ProcMap));
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
          ProcMap fresh = { lane->global_pid, G_MAXUINT32, 0, 0, NULL, NULL, 0 };
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
      const ProcMap *m;

      if (lane->gpu < 0 || (m = proc_map (maps, lane->global_pid)) == NULL || m->count == 0)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          SlEvent *ev = &lane->events[k];
          if (ev->corr == 0)
            continue;
          guint32 id = map_lookup (m, ev->corr);
          if (id == G_MAXUINT32)
            continue;
          ev->link = id;
          /* the call points at its earliest GPU operation (a graph launch has many) */
          const SlLane *api_lane;
          gsize api_index;
          if (sl_trace_resolve (trace, id, &api_lane, &api_index))
            {
              SlEvent *api = &((SlLane *) api_lane)->events[api_index];
              const SlLane *prev_lane;
              gsize prev_index;
              if (api->link == SL_NO_LINK
                  || (sl_trace_resolve (trace, api->link, &prev_lane, &prev_index)
                      && prev_lane->events[prev_index].start > ev->start))
                api->link = lane->base + k;
            }
        }
    }

  for (guint p = 0; p < maps->len; p++)
    {
      g_free (g_array_index (maps, ProcMap, p).dense);
      g_free (g_array_index (maps, ProcMap, p).slots);
    }
  if (dup > 0)
    _sl_trace_warn (trace, "%" G_GUINT64_FORMAT " CUDA API calls repeat a correlation id of "
                           "their process; GPU work links to the first", dup);
}
