/* sl-search.c: finding events by name: per-lane match lists and steps in time order. */
#include "sl-search.h"

#include <string.h>

#include "sl-trace.h"

struct _SlSearch
{
  SlTrace *trace;      /* not owned: a search lives no longer than its trace */
  guint    n_lanes;
  GArray **lanes;      /* guint32 event indexes, ascending; NULL for a lane without matches */
  gsize    n_matches;
};

/* The key of time order: an event's start, then its lane, then its index. */
typedef struct
{
  SlTime start;
  gint64 lane;
  gint64 index;
} Key;

static SlSearch *
search_new (SlTrace *trace)
{
  SlSearch *search = g_new0 (SlSearch, 1);

  search->trace = trace;
  search->n_lanes = trace != NULL ? sl_trace_get_n_lanes (trace) : 0;
  search->lanes = g_new0 (GArray *, MAX (search->n_lanes, 1));
  return search;
}

void
sl_search_free (SlSearch *search)
{
  if (search == NULL)
    return;
  for (guint l = 0; l < search->n_lanes; l++)
    if (search->lanes[l] != NULL)
      g_array_unref (search->lanes[l]);
  g_free (search->lanes);
  g_free (search);
}

/* Adds every event of the trace for which match_name (called once per run of one name id)
 * answers TRUE.  Names repeat in long runs (a loop launching one kernel), so the last verdict is
 * kept beside the per-id cache. */
static void
search_fill (SlSearch *search,
             gboolean (*match_name) (SlTrace *trace, guint32 name, gpointer data),
             gpointer   data)
{
  for (guint l = 0; l < search->n_lanes; l++)
    {
      const SlLane *lane = sl_trace_get_lane (search->trace, l);
      guint32 last_name = SL_NO_STR;
      gboolean last = FALSE;

      for (gsize i = 0; i < lane->n_events; i++)
        {
          guint32 name = lane->events[i].name;

          if (i == 0 || name != last_name)
            {
              last = match_name (search->trace, name, data);
              last_name = name;
            }
          if (!last)
            continue;
          if (search->lanes[l] == NULL)
            search->lanes[l] = g_array_new (FALSE, FALSE, sizeof (guint32));
          guint32 index = (guint32) i;
          g_array_append_val (search->lanes[l], index);
          search->n_matches++;
        }
    }
}

typedef struct
{
  char       *folded;
  GHashTable *verdict;   /* string id → 1 match, 2 no match */
} Needle;

static gboolean
match_needle (SlTrace *trace,
              guint32  name,
              gpointer data)
{
  Needle *needle = data;
  guint v = GPOINTER_TO_UINT (g_hash_table_lookup (needle->verdict, GUINT_TO_POINTER (name)));

  if (v == 0)
    {
      g_autofree char *hay = g_utf8_casefold (sl_trace_str (trace, name), -1);
      v = strstr (hay, needle->folded) != NULL ? 1 : 2;
      g_hash_table_insert (needle->verdict, GUINT_TO_POINTER (name), GUINT_TO_POINTER (v));
    }
  return v == 1;
}

SlSearch *
sl_trace_search (SlTrace    *trace,
                 const char *needle)
{
  SlSearch *search;
  Needle n;

  g_return_val_if_fail (trace != NULL, NULL);
  search = search_new (trace);
  if (needle == NULL || *needle == '\0')
    return search;
  n.folded = g_utf8_casefold (needle, -1);
  n.verdict = g_hash_table_new (NULL, NULL);
  search_fill (search, match_needle, &n);
  g_hash_table_unref (n.verdict);
  g_free (n.folded);
  return search;
}

static gboolean
match_id (SlTrace *trace,
          guint32  name,
          gpointer data)
{
  (void) trace;
  return name == GPOINTER_TO_UINT (data);
}

SlSearch *
sl_trace_search_name (SlTrace *trace,
                      guint32  name)
{
  SlSearch *search;

  g_return_val_if_fail (trace != NULL, NULL);
  search = search_new (trace);
  if (name != SL_NO_STR)
    search_fill (search, match_id, GUINT_TO_POINTER (name));
  return search;
}

gsize
sl_search_get_n_matches (const SlSearch *search)
{
  g_return_val_if_fail (search != NULL, 0);
  return search->n_matches;
}

const guint32 *
sl_search_get_lane_matches (const SlSearch *search,
                            guint           lane,
                            gsize          *n_matches)
{
  g_return_val_if_fail (search != NULL, NULL);
  if (lane >= search->n_lanes || search->lanes[lane] == NULL)
    {
      if (n_matches != NULL)
        *n_matches = 0;
      return NULL;
    }
  if (n_matches != NULL)
    *n_matches = search->lanes[lane]->len;
  return (const guint32 *) search->lanes[lane]->data;
}

static int
key_cmp (const Key *a,
         const Key *b)
{
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  if (a->lane != b->lane)
    return a->lane < b->lane ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* Number of matches of lane l whose key sorts before *key (or at or before it, when inclusive). */
static gsize
lane_count_before (const SlSearch *search,
                   guint           l,
                   const Key      *key,
                   gboolean        inclusive)
{
  const SlLane *lane = sl_trace_get_lane (search->trace, l);
  const guint32 *idx = (const guint32 *) search->lanes[l]->data;
  gsize lo = 0, hi = search->lanes[l]->len;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      Key k = { lane->events[idx[mid]].start, l, idx[mid] };
      int c = key_cmp (&k, key);

      if (c < 0 || (inclusive && c == 0))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static gboolean
ref_valid (const SlSearch *search,
           SlEventRef      ref)
{
  return ref.lane >= 0 && (guint) ref.lane < search->n_lanes
         && ref.index < sl_trace_get_lane (search->trace, ref.lane)->n_events;
}

static Key
ref_key (const SlSearch *search,
         SlEventRef      ref)
{
  return (Key) { sl_trace_get_lane (search->trace, ref.lane)->events[ref.index].start, ref.lane,
                 (gint64) ref.index };
}

gboolean
sl_search_contains (const SlSearch *search,
                    SlEventRef      ref)
{
  gsize at;
  Key key;

  g_return_val_if_fail (search != NULL, FALSE);
  if (!ref_valid (search, ref) || search->lanes[ref.lane] == NULL)
    return FALSE;
  key = ref_key (search, ref);
  at = lane_count_before (search, ref.lane, &key, FALSE);
  return at < search->lanes[ref.lane]->len
         && g_array_index (search->lanes[ref.lane], guint32, at) == ref.index;
}

gssize
sl_search_get_position (const SlSearch *search,
                        SlEventRef      ref)
{
  gsize before = 0;
  Key key;

  g_return_val_if_fail (search != NULL, -1);
  if (!sl_search_contains (search, ref))
    return -1;
  key = ref_key (search, ref);
  for (guint l = 0; l < search->n_lanes; l++)
    if (search->lanes[l] != NULL)
      before += lane_count_before (search, l, &key, FALSE);
  return (gssize) before;
}

gboolean
sl_search_step (const SlSearch *search,
                SlEventRef      from,
                SlTime          t,
                gboolean        forward,
                SlEventRef     *match)
{
  gboolean found = FALSE;
  Key key, best = { 0, 0, 0 };

  g_return_val_if_fail (search != NULL, FALSE);
  /* without an event, the key sorts before every event starting at t */
  key = ref_valid (search, from) ? ref_key (search, from) : (Key) { t, -1, -1 };
  for (guint l = 0; l < search->n_lanes; l++)
    {
      const SlLane *lane;
      const guint32 *idx;
      gsize at;
      Key k;

      if (search->lanes[l] == NULL)
        continue;
      lane = sl_trace_get_lane (search->trace, l);
      idx = (const guint32 *) search->lanes[l]->data;
      at = lane_count_before (search, l, &key, forward);
      if (forward ? at >= search->lanes[l]->len : at == 0)
        continue;
      if (!forward)
        at--;
      k = (Key) { lane->events[idx[at]].start, l, idx[at] };
      if (!found || (forward ? key_cmp (&k, &best) < 0 : key_cmp (&k, &best) > 0))
        best = k;
      found = TRUE;
    }
  if (found && match != NULL)
    *match = (SlEventRef) { (gint) best.lane, (gsize) best.index };
  return found;
}
