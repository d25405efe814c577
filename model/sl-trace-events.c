/* sl-trace-events.c: CUDA event records and the waits that consumed them, linked on first use.
 *
 * The reader keeps the rows as they are (SlCudaEventRow, SlCudaWaitRow: no global ids, so that a
 * merge, a live append and the model cache move them as plain tables); the links between them,
 * their cudaEventRecord calls, the GPU work before each record and the lanes their markers lie on
 * are made here once per trace, on whichever thread asks first (the detail pane, the timeline's
 * frame, `info`).  Sizes: 10^2 … 10^5 records and as many waits; the one pass that is not over
 * them is over the CUDA API calls, reading a name id each (10^7 calls: ~10 ms).
 */
#include "sl-trace-private.h"
#include "sl-lane.h"

#include <stdlib.h>
#include <string.h>

typedef struct
{
  guint32 sync;       /* global id of the wait's synchronization event */
  guint32 event_id;
  guint32 record;     /* G_MAXUINT32: not linked */
  guint32 how;        /* SlEventLink */
} WaitLink;

typedef struct
{
  SlEventRecord *records;      /* by process and correlation id */
  guint          n_records;
  guint32       *record_waits; /* sync event ids, a run per record from wait_off[record] */
  guint32       *wait_off;     /* n_records + 1 */
  WaitLink      *waits;        /* by sync event id */
  guint          n_waits;
  guint          n_linked;
  guint32       *calls;        /* pairs (call global id, record), by call */
  guint          n_calls;
  guint32       *lane_off;     /* n_lanes + 1: the records of lane i are lane_records[...] */
  guint32       *lane_records; /* by time within a lane */
  guint          n_lanes;
} SlEventLinks;

/* ---- sorting the rows ------------------------------------------------------------------------ */

static gint
compare_wait_rows (gconstpointer a,
                   gconstpointer b)
{
  const SlCudaWaitRow *x = a, *y = b;

  if (x->global_pid != y->global_pid)
    return x->global_pid < y->global_pid ? -1 : 1;
  if (x->corr != y->corr)
    return x->corr < y->corr ? -1 : 1;
  return (x->start > y->start) - (x->start < y->start);
}

void
_sl_trace_sort_event_waits (SlTrace *trace)
{
  g_array_sort (trace->event_waits, compare_wait_rows);
}

const SlCudaWaitRow *
_sl_trace_find_wait_row (SlTrace *trace,
                         guint64  pid,
                         guint32  corr,
                         SlTime   start)
{
  const SlCudaWaitRow *w = (const SlCudaWaitRow *) trace->event_waits->data;
  SlCudaWaitRow key = { pid, start, corr, 0, 0, 0 };
  guint lo = 0, hi = trace->event_waits->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (compare_wait_rows (&w[mid], &key) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < trace->event_waits->len && compare_wait_rows (&w[lo], &key) == 0 ? &w[lo] : NULL;
}

/* ---- records: ordered by (process, correlation id) and by (process, event, correlation id) - */

static int
cmp_u64 (guint64 a,
         guint64 b)
{
  return (a > b) - (a < b);
}

static gint
compare_records (gconstpointer a,
                 gconstpointer b)
{
  const SlEventRecord *x = a, *y = b;
  int c = cmp_u64 (x->global_pid, y->global_pid);
  return c != 0 ? c : cmp_u64 (x->corr, y->corr);
}

static gint
compare_by_event (gconstpointer a,
                  gconstpointer b,
                  gpointer      data)
{
  const SlEventRecord *rec = data;
  const SlEventRecord *x = &rec[*(const guint32 *) a], *y = &rec[*(const guint32 *) b];
  int c = cmp_u64 (x->global_pid, y->global_pid);
  if (c == 0)
    c = cmp_u64 (x->event_id, y->event_id);
  return c != 0 ? c : cmp_u64 (x->corr, y->corr);
}

static gint
compare_by_sync_id (gconstpointer a,
                    gconstpointer b,
                    gpointer      data)
{
  const SlEventRecord *rec = data;
  const SlEventRecord *x = &rec[*(const guint32 *) a], *y = &rec[*(const guint32 *) b];
  int c = cmp_u64 (x->global_pid, y->global_pid);
  return c != 0 ? c : cmp_u64 (x->sync_id, y->sync_id);
}

/* The first record (index into the records) with process `pid` and correlation id `corr`,
 * G_MAXUINT32 when none. */
static guint32
find_by_corr (const SlEventLinks *l,
              guint64             pid,
              guint32             corr)
{
  SlEventRecord key = { .global_pid = pid, .corr = corr };
  guint lo = 0, hi = l->n_records;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (compare_records (&l->records[mid], &key) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < l->n_records && compare_records (&l->records[lo], &key) == 0 ? lo : G_MAXUINT32;
}

/* In `order` (record indices sorted by compare_by_event or compare_by_sync_id, as `by_event`
 * says), the first position whose record is not before `key`. */
static guint
lower_bound_in (const guint32       *order,
                guint                n,
                const SlEventRecord *records,
                const SlEventRecord *key,
                gboolean             by_event)
{
  guint lo = 0, hi = n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const SlEventRecord *x = &records[order[mid]];
      int c = cmp_u64 (x->global_pid, key->global_pid);
      if (c == 0 && by_event)
        c = cmp_u64 (x->event_id, key->event_id);
      if (c == 0)
        c = by_event ? cmp_u64 (x->corr, key->corr) : cmp_u64 (x->sync_id, key->sync_id);
      if (c < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* ---- the GPU work before a record ------------------------------------------------------------ */

typedef struct
{
  guint64 global_pid;
  guint32 context;
  guint32 stream;
} StreamKey;

static guint
stream_key_hash (gconstpointer p)
{
  const StreamKey *k = p;
  return g_int64_hash (&k->global_pid) ^ (k->context * 0x9E3779B1u) ^ (k->stream * 0x85EBCA77u);
}

static gboolean
stream_key_equal (gconstpointer a,
                  gconstpointer b)
{
  const StreamKey *x = a, *y = b;
  return x->global_pid == y->global_pid && x->context == y->context && x->stream == y->stream;
}

/* Where a stream's marker goes, best first: the row a person reads the stream's work on. */
static int
marker_rank (SlLaneKind kind)
{
  switch (kind)
    {
    case SL_LANE_KERNELS: return 0;
    case SL_LANE_MEMCPY: return 1;
    case SL_LANE_MEMSET: return 2;
    case SL_LANE_GRAPHS: return 3;
    case SL_LANE_SYNC: return 4;
    case SL_LANE_CUDA_API:
    case SL_LANE_NVTX:
    case SL_LANE_OSRT:
    case SL_LANE_SAMPLES:
    case SL_LANE_SCHED:
    case SL_LANE_MPI:
    case SL_LANE_OPENMP:
    case SL_LANE_OPENACC:
    case SL_N_LANE_KINDS:
    default:
      return -1;
    }
}

/* The last event of a GPU lane queued before correlation id `corr`: a stream runs its work in
 * the order it was queued, and CUDA hands correlation ids out in call order, so along a lane
 * (by start) they rise, and a binary search finds it.  -1 when none. */
static gssize
last_before (const SlLane *lane,
             guint32       corr)
{
  gsize lo = 0, hi = lane->n_events;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (lane->events[mid].corr < corr)
        lo = mid + 1;
      else
        hi = mid;
    }
  /* a lane whose ids do not rise (a hostile file): step back to one that is before */
  while (lo > 0 && lane->events[lo - 1].corr >= corr)
    lo--;
  return (gssize) lo - 1;
}

/* Fills a record's lane, work and time from the lanes of its stream (`lanes`: SlLane *). */
static void
place_record (SlEventRecord *rec,
              GPtrArray     *lanes,
              SlTrace       *trace)
{
  int best_rank = G_MAXINT;
  guint32 best_corr = 0;
  SlTime work_end = G_MININT64, call_start = G_MININT64;

  for (guint i = 0; lanes != NULL && i < lanes->len; i++)
    {
      const SlLane *lane = g_ptr_array_index (lanes, i);
      int rank = marker_rank (lane->kind);
      if (rank < best_rank)
        {
          best_rank = rank;
          rec->lane = (gint32) lane->index;
        }
      if (lane->kind == SL_LANE_SYNC || rec->corr == 0)
        continue;
      gssize k = last_before (lane, rec->corr);
      if (k < 0 || (rec->work != SL_NO_LINK && lane->events[k].corr <= best_corr))
        continue;
      best_corr = lane->events[k].corr;
      rec->work = lane->base + (guint32) k;
      work_end = lane->events[k].end;
    }
  const SlLane *call_lane;
  gsize call_index;
  if (rec->call != SL_NO_LINK && sl_trace_resolve (trace, rec->call, &call_lane, &call_index))
    call_start = call_lane->events[call_index].start;
  if (rec->time == 0 || rec->time == G_MININT64)
    rec->time = MAX (work_end, call_start);
}

/* ---- building ------------------------------------------------------------------------------- */

/* String ids of the CUDA API names that record an event (cudaEventRecord, …WithFlags, _ptsz,
 * cuEventRecord …), as a set. */
static GHashTable *
record_names (SlTrace *trace)
{
  GHashTable *names = g_hash_table_new (NULL, NULL);

  for (guint i = 1; i < trace->strs->len; i++)
    {
      const char *s = g_ptr_array_index (trace->strs, i);
      if (g_str_has_prefix (s, "cudaEventRecord") || g_str_has_prefix (s, "cuEventRecord"))
        g_hash_table_add (names, GUINT_TO_POINTER (i));
    }
  return names;
}

static gint
compare_pairs (gconstpointer a,
               gconstpointer b)
{
  const guint32 *x = a, *y = b;
  return (x[0] > y[0]) - (x[0] < y[0]);
}

/* An id with the time it is sorted by (then by id: the order is the same on every load). */
typedef struct
{
  SlTime  time;
  guint32 id;
} TimedId;

static int
compare_timed_ids (const void *a,
                   const void *b)
{
  const TimedId *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* The record a wait consumed (index), G_MAXUINT32 when none, and how. */
static guint32
link_wait (SlEventLinks        *l,
           const guint32       *by_event,
           guint                n_by_event,
           const guint32       *by_sync,
           guint                n_by_sync,
           const SlCudaWaitRow *w,
           SlTime               wait_start,
           SlEventLink         *how)
{
  *how = SL_EVENT_LINK_NONE;
  if (w->sync_id != SL_NO_LINK)
    {
      SlEventRecord key = { .global_pid = w->global_pid, .sync_id = w->sync_id };
      guint k = lower_bound_in (by_sync, n_by_sync, l->records, &key, FALSE);
      if (k < n_by_sync && l->records[by_sync[k]].global_pid == w->global_pid
          && l->records[by_sync[k]].sync_id == w->sync_id)
        {
          *how = SL_EVENT_LINK_SYNC_ID;
          return by_sync[k];
        }
      return G_MAXUINT32;   /* it names a record the trace lacks: no other record is it */
    }
  if (w->record_corr != 0)
    {
      guint32 r = find_by_corr (l, w->global_pid, w->record_corr);
      if (r != G_MAXUINT32)
        *how = SL_EVENT_LINK_RECORD_CORR;
      return r;
    }
  if (w->event_id == SL_NO_LINK)
    return G_MAXUINT32;
  /* the event's records in the process, by correlation id: the last one called before the wait */
  SlEventRecord key = { .global_pid = w->global_pid, .event_id = w->event_id, .corr = 0 };
  guint first = lower_bound_in (by_event, n_by_event, l->records, &key, TRUE);
  guint32 found = G_MAXUINT32;
  for (guint k = first; k < n_by_event; k++)
    {
      const SlEventRecord *rec = &l->records[by_event[k]];
      if (rec->global_pid != w->global_pid || rec->event_id != w->event_id)
        break;
      if (w->corr != 0 ? rec->corr >= w->corr : (rec->time == G_MININT64 || rec->time > wait_start))
        {
          if (w->corr != 0)
            break;   /* by correlation id they only rise from here */
          continue;
        }
      found = by_event[k];
    }
  if (found != G_MAXUINT32)
    *how = SL_EVENT_LINK_LAST_RECORD;
  return found;
}

static SlEventLinks *
links_build (SlTrace *trace)
{
  SlEventLinks *l = g_new0 (SlEventLinks, 1);
  guint n_lanes = trace->lanes->len;
  g_autoptr (GHashTable) streams = g_hash_table_new_full (stream_key_hash, stream_key_equal,
                                                          g_free,
                                                          (GDestroyNotify) g_ptr_array_unref);

  l->n_lanes = n_lanes;
  l->n_records = trace->cuda_events->len;
  l->records = g_new0 (SlEventRecord, MAX (l->n_records, 1));
  for (guint i = 0; i < l->n_records; i++)
    {
      const SlCudaEventRow *row = &g_array_index (trace->cuda_events, SlCudaEventRow, i);
      SlEventRecord *rec = &l->records[i];
      rec->global_pid = row->global_pid;
      rec->event_id = row->event_id;
      rec->device = row->device;
      rec->context = row->context;
      rec->stream = row->stream;
      rec->lane = -1;
      rec->call = rec->work = SL_NO_LINK;
      rec->corr = row->corr;
      rec->sync_id = row->sync_id;
      rec->time = row->timestamp != 0 ? row->timestamp : G_MININT64;
    }
  qsort (l->records, l->n_records, sizeof (SlEventRecord), compare_records);

  /* each record's call: the calls named like cudaEventRecord, looked up by correlation id */
  g_autoptr (GHashTable) names = record_names (trace);
  g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, 2 * sizeof (guint32));
  for (guint i = 0; i < n_lanes && l->n_records > 0 && g_hash_table_size (names) > 0; i++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, i);
      if (lane->kind != SL_LANE_CUDA_API)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          if (ev->corr == 0 || !g_hash_table_contains (names, GUINT_TO_POINTER (ev->name)))
            continue;
          guint32 r = find_by_corr (l, lane->global_pid, ev->corr);
          if (r == G_MAXUINT32 || l->records[r].call != SL_NO_LINK)
            continue;
          l->records[r].call = lane->base + (guint32) k;
          guint32 pair[2] = { l->records[r].call, r };
          g_array_append_vals (calls, pair, 1);
        }
    }
  g_array_sort (calls, compare_pairs);
  l->n_calls = calls->len;
  l->calls = (guint32 *) g_array_free (g_steal_pointer (&calls), FALSE);

  /* each record's stream: its lanes, the work before it, its time */
  for (guint i = 0; i < n_lanes; i++)
    {
      SlLane *lane = g_ptr_array_index (trace->lanes, i);
      if (lane->gpu < 0 || marker_rank (lane->kind) < 0)
        continue;
      StreamKey key = { lane->global_pid, lane->context_id, lane->stream_id };
      GPtrArray *list = g_hash_table_lookup (streams, &key);
      if (list == NULL)
        {
          list = g_ptr_array_new ();
          g_hash_table_insert (streams, g_memdup2 (&key, sizeof key), list);
        }
      g_ptr_array_add (list, lane);
    }
  for (guint i = 0; i < l->n_records; i++)
    {
      SlEventRecord *rec = &l->records[i];
      StreamKey key = { rec->global_pid, rec->context, rec->stream };
      place_record (rec, g_hash_table_lookup (streams, &key), trace);
    }

  /* the waits: each synchronization event that names an event, linked */
  g_autofree guint32 *by_event = g_new (guint32, MAX (l->n_records, 1));
  g_autofree guint32 *by_sync = g_new (guint32, MAX (l->n_records, 1));
  guint n_by_sync = 0;
  for (guint i = 0; i < l->n_records; i++)
    {
      by_event[i] = i;
      if (l->records[i].sync_id != SL_NO_LINK)
        by_sync[n_by_sync++] = i;
    }
  g_qsort_with_data (by_event, l->n_records, sizeof (guint32), compare_by_event, l->records);
  g_qsort_with_data (by_sync, n_by_sync, sizeof (guint32), compare_by_sync_id, l->records);
  g_autoptr (GArray) waits = g_array_new (FALSE, FALSE, sizeof (WaitLink));
  for (guint i = 0; i < n_lanes && trace->event_waits->len > 0; i++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, i);
      if (lane->kind != SL_LANE_SYNC)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          const SlCudaWaitRow *w = _sl_trace_find_wait_row (trace, lane->global_pid, ev->corr, ev->start);
          if (w == NULL || (w->event_id == SL_NO_LINK && w->record_corr == 0))
            continue;
          SlEventLink how;
          guint32 r = link_wait (l, by_event, l->n_records, by_sync, n_by_sync, w, ev->start,
                                 &how);
          WaitLink link = { lane->base + (guint32) k, w->event_id, r, how };
          g_array_append_val (waits, link);
          if (r != G_MAXUINT32)
            {
              l->records[r].n_waits++;
              l->n_linked++;
            }
        }
    }
  l->n_waits = waits->len;
  l->waits = (WaitLink *) g_array_free (g_steal_pointer (&waits), FALSE);

  /* each record's waits, by start */
  l->wait_off = g_new0 (guint32, l->n_records + 1);
  for (guint i = 0; i < l->n_records; i++)
    l->wait_off[i + 1] = l->wait_off[i] + l->records[i].n_waits;
  l->record_waits = g_new (guint32, MAX (l->n_linked, 1));
  g_autofree guint32 *fill = g_memdup2 (l->wait_off, (l->n_records + 1) * sizeof (guint32));
  for (guint i = 0; i < l->n_waits; i++)
    if (l->waits[i].record != G_MAXUINT32)
      l->record_waits[fill[l->waits[i].record]++] = l->waits[i].sync;
  for (guint i = 0; i < l->n_records; i++)
    {
      /* by start, then id: a record may have 10^5 waits, in any order (an event recorded once,
       * waited for by every step) */
      guint32 *w = l->record_waits + l->wait_off[i];
      guint n = l->records[i].n_waits;
      if (n < 2)
        continue;
      TimedId *t = g_new (TimedId, n);
      for (guint a = 0; a < n; a++)
        {
          const SlLane *la;
          gsize ia;
          t[a].id = w[a];
          t[a].time = sl_trace_resolve (trace, w[a], &la, &ia) ? la->events[ia].start : 0;
        }
      qsort (t, n, sizeof *t, compare_timed_ids);
      for (guint a = 0; a < n; a++)
        w[a] = t[a].id;
      g_free (t);
    }

  /* the markers of each lane, by time */
  l->lane_off = g_new0 (guint32, n_lanes + 1);
  for (guint i = 0; i < l->n_records; i++)
    if (l->records[i].lane >= 0 && l->records[i].time != G_MININT64)
      l->lane_off[l->records[i].lane + 1]++;
  for (guint i = 0; i < n_lanes; i++)
    l->lane_off[i + 1] += l->lane_off[i];
  l->lane_records = g_new (guint32, MAX (l->lane_off[n_lanes], 1));
  g_free (fill);
  fill = g_memdup2 (l->lane_off, (n_lanes + 1) * sizeof (guint32));
  for (guint i = 0; i < l->n_records; i++)
    if (l->records[i].lane >= 0 && l->records[i].time != G_MININT64)
      l->lane_records[fill[l->records[i].lane]++] = i;
  for (guint i = 0; i < n_lanes; i++)
    {
      guint32 *m = l->lane_records + l->lane_off[i];
      guint n = l->lane_off[i + 1] - l->lane_off[i];
      if (n < 2)
        continue;
      TimedId *t = g_new (TimedId, n);
      for (guint a = 0; a < n; a++)
        t[a] = (TimedId) { l->records[m[a]].time, m[a] };
      qsort (t, n, sizeof *t, compare_timed_ids);
      for (guint a = 0; a < n; a++)
        m[a] = t[a].id;
      g_free (t);
    }
  return l;
}

void
_sl_event_links_free (gpointer links)
{
  SlEventLinks *l = links;

  if (l == NULL)
    return;
  g_free (l->records);
  g_free (l->record_waits);
  g_free (l->wait_off);
  g_free (l->waits);
  g_free (l->calls);
  g_free (l->lane_off);
  g_free (l->lane_records);
  g_free (l);
}

static SlEventLinks *
links_get (SlTrace *trace)
{
  gsize *slot = (gsize *) &trace->event_links;

  if (g_once_init_enter (slot))
    g_once_init_leave (slot, (gsize) links_build (trace));
  return (SlEventLinks *) trace->event_links;
}

/* ---- public API ----------------------------------------------------------------------------- */

guint
sl_trace_get_n_event_records (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return trace->cuda_events->len;
}

const SlEventRecord *
sl_trace_get_event_record (SlTrace *trace,
                           guint    record)
{
  g_return_val_if_fail (trace != NULL, NULL);
  SlEventLinks *l = links_get (trace);
  g_return_val_if_fail (record < l->n_records, NULL);
  return &l->records[record];
}

gboolean
sl_trace_get_event_wait (SlTrace     *trace,
                         guint32      wait,
                         SlEventWait *out)
{
  const SlLane *lane;
  gsize index;

  g_return_val_if_fail (trace != NULL && out != NULL, FALSE);
  out->event_id = SL_NO_LINK;
  out->how = SL_EVENT_LINK_NONE;
  out->record = G_MAXUINT;
  if (!sl_trace_resolve (trace, wait, &lane, &index))
    return FALSE;
  /* a call: the synchronization event its correlation id tied it to */
  if (lane->kind == SL_LANE_CUDA_API)
    {
      wait = lane->events[index].link;
      if (wait == SL_NO_LINK || !sl_trace_resolve (trace, wait, &lane, &index))
        return FALSE;
    }
  if (lane->kind != SL_LANE_SYNC)
    return FALSE;
  SlEventLinks *l = links_get (trace);
  guint lo = 0, hi = l->n_waits;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (l->waits[mid].sync < wait)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == l->n_waits || l->waits[lo].sync != wait)
    return FALSE;
  out->event_id = l->waits[lo].event_id;
  out->how = (SlEventLink) l->waits[lo].how;
  out->record = l->waits[lo].record == G_MAXUINT32 ? G_MAXUINT : l->waits[lo].record;
  return TRUE;
}

guint
sl_trace_get_event_record_waits (SlTrace        *trace,
                                 guint           record,
                                 const guint32 **waits)
{
  g_return_val_if_fail (trace != NULL && waits != NULL, 0);
  SlEventLinks *l = links_get (trace);
  *waits = NULL;
  g_return_val_if_fail (record < l->n_records, 0);
  *waits = l->record_waits + l->wait_off[record];
  return l->wait_off[record + 1] - l->wait_off[record];
}

gboolean
sl_trace_find_event_record (SlTrace *trace,
                            guint32  call,
                            guint   *record)
{
  g_return_val_if_fail (trace != NULL && record != NULL, FALSE);
  SlEventLinks *l = links_get (trace);
  guint lo = 0, hi = l->n_calls;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (l->calls[2 * mid] < call)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == l->n_calls || l->calls[2 * lo] != call)
    return FALSE;
  *record = l->calls[2 * lo + 1];
  return TRUE;
}

guint
sl_trace_get_lane_event_records (SlTrace        *trace,
                                 guint           lane,
                                 const guint32 **records)
{
  g_return_val_if_fail (trace != NULL && records != NULL, 0);
  SlEventLinks *l = links_get (trace);
  *records = NULL;
  if (lane >= l->n_lanes)
    return 0;
  *records = l->lane_records + l->lane_off[lane];
  return l->lane_off[lane + 1] - l->lane_off[lane];
}

void
sl_trace_get_event_wait_counts (SlTrace *trace,
                                guint   *waits,
                                guint   *linked)
{
  g_return_if_fail (trace != NULL);
  SlEventLinks *l = links_get (trace);
  if (waits != NULL)
    *waits = l->n_waits;
  if (linked != NULL)
    *linked = l->n_linked;
}
