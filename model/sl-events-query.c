/* sl-events-query.c: the events table's rows as an index of global event ids, sorted by a radix
 * sort of 64-bit keys; cells and CSV made for one row at a time, when a row is shown or copied. */
#include "sl-events-query.h"
#include "sl-mpi.h"
#include "sl-openmp.h"

#include <string.h>

#include "sl-display-name.h"
#include "sl-format.h"
#include "sl-lane.h"

struct _SlEventsQuery
{
  SlTrace        *trace;
  gint            lane;        /* the one lane, or -1 for a range across lanes */
  guint32        *by_start;    /* global ids in start order (the rows unsorted) */
  guint32        *ids;         /* global ids in the current order (== by_start when unsorted) */
  gsize           n;
  SlEventsColumn  sort;
  gboolean        descending;
  guint32        *name_rank;   /* string id -> rank by text; made for the first sort by name */
};

static SlEventRef
resolve (SlEventsQuery *query,
         guint32        id)
{
  const SlLane *lane;
  gsize index;

  if (query->lane >= 0)
    {
      lane = sl_trace_get_lane (query->trace, (guint) query->lane);
      return (SlEventRef) { query->lane, id - lane->base };
    }
  if (!sl_trace_resolve (query->trace, id, &lane, &index))
    return SL_EVENT_REF_NONE;
  return (SlEventRef) { (gint) lane->index, index };
}

static const SlEvent *
event_at (SlEventsQuery *query,
          SlEventRef     ref)
{
  return &sl_trace_get_lane (query->trace, (guint) ref.lane)->events[ref.index];
}

/* ---- radix sort ---------------------------------------------------------------------------- */

/* Sorts ids by keys, stably: LSD radix over 8-bit digits, skipping the digits every key shares
 * (durations under 16 ms use 3 of the 8).  Two scratch arrays of n keys and ids. */
static void
radix_sort (guint64 *keys,
            guint32 *ids,
            gsize    n)
{
  g_autofree guint64 *k2 = g_new (guint64, MAX (n, 1));
  g_autofree guint32 *i2 = g_new (guint32, MAX (n, 1));
  guint64 *ka = keys, *kb = k2;
  guint32 *ia = ids, *ib = i2;

  for (guint shift = 0; shift < 64; shift += 8)
    {
      gsize count[257] = { 0 };

      for (gsize i = 0; i < n; i++)
        count[((ka[i] >> shift) & 0xFF) + 1]++;
      gboolean trivial = FALSE;
      for (guint d = 1; d <= 256; d++)
        if (count[d] == n)
          trivial = TRUE;
      if (trivial)
        continue;
      for (guint d = 1; d <= 256; d++)
        count[d] += count[d - 1];
      for (gsize i = 0; i < n; i++)
        {
          gsize at = count[(ka[i] >> shift) & 0xFF]++;
          kb[at] = ka[i];
          ib[at] = ia[i];
        }
      guint64 *kt = ka;
      ka = kb;
      kb = kt;
      guint32 *it = ia;
      ia = ib;
      ib = it;
    }
  if (ia != ids)
    memcpy (ids, ia, n * sizeof *ids);
}

/* Signed to unsigned, order kept. */
static inline guint64
key_of_signed (gint64 v)
{
  return (guint64) v ^ G_GUINT64_CONSTANT (0x8000000000000000);
}

/* ---- building ------------------------------------------------------------------------------ */

static SlEventsQuery *
query_new (SlTrace *trace,
           gint     lane)
{
  SlEventsQuery *query = g_new0 (SlEventsQuery, 1);

  query->trace = sl_trace_ref (trace);
  query->lane = lane;
  query->sort = SL_EVENTS_COLUMN_START;
  return query;
}

typedef struct
{
  GArray *keys;   /* start, for a range across lanes; NULL for one lane (already in order) */
  GArray *ids;
} Collect;

static gboolean
collect_cb (const SlLane *lane,
            gsize         index,
            gpointer      user_data)
{
  Collect *c = user_data;
  guint32 id = lane->base + (guint32) index;

  if (c->keys != NULL)
    {
      guint64 key = key_of_signed (lane->events[index].start);
      g_array_append_val (c->keys, key);
    }
  g_array_append_val (c->ids, id);
  return TRUE;
}

SlEventsQuery *
sl_events_query_new_lane (SlTrace *trace,
                          guint    lane_index,
                          SlTime   t0,
                          SlTime   t1)
{
  SlEventsQuery *query;
  const SlLane *lane;

  g_return_val_if_fail (trace != NULL, NULL);
  g_return_val_if_fail (lane_index < sl_trace_get_n_lanes (trace), NULL);

  lane = sl_trace_get_lane (trace, lane_index);
  query = query_new (trace, (gint) lane_index);
  if (t1 > t0)
    {
      /* the overlap query visits in start order: the index is made in that order */
      Collect c = { NULL, g_array_new (FALSE, FALSE, sizeof (guint32)) };
      sl_lane_overlap (lane, t0, t1, collect_cb, &c);
      query->n = c.ids->len;
      query->by_start = (guint32 *) (void *) g_array_free (c.ids, FALSE);
    }
  else
    {
      query->n = lane->n_events;
      query->by_start = g_new (guint32, MAX (query->n, 1));
      for (gsize i = 0; i < query->n; i++)
        query->by_start[i] = lane->base + (guint32) i;
    }
  query->ids = query->by_start;
  return query;
}

SlEventsQuery *
sl_events_query_new_range (SlTrace *trace,
                           SlTime   t0,
                           SlTime   t1)
{
  SlEventsQuery *query;
  Collect c;

  g_return_val_if_fail (trace != NULL, NULL);

  query = query_new (trace, -1);
  c.keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  c.ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (t1 > t0)
    for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
      sl_lane_overlap (sl_trace_get_lane (trace, l), t0, t1, collect_cb, &c);
  /* lanes were visited in order and global ids grow with lanes: a stable sort by start leaves
   * ties in lane order */
  radix_sort ((guint64 *) (void *) c.keys->data, (guint32 *) (void *) c.ids->data, c.ids->len);
  query->n = c.ids->len;
  query->by_start = (guint32 *) (void *) g_array_free (c.ids, FALSE);
  query->ids = query->by_start;
  g_array_free (c.keys, TRUE);
  return query;
}

void
sl_events_query_free (SlEventsQuery *query)
{
  if (query == NULL)
    return;
  if (query->ids != query->by_start)
    g_free (query->ids);
  g_free (query->by_start);
  g_free (query->name_rank);
  sl_trace_unref (query->trace);
  g_free (query);
}

SlTrace *
sl_events_query_get_trace (SlEventsQuery *query)
{
  g_return_val_if_fail (query != NULL, NULL);
  return query->trace;
}

gsize
sl_events_query_get_n (SlEventsQuery *query)
{
  g_return_val_if_fail (query != NULL, 0);
  return query->n;
}

SlEventRef
sl_events_query_get (SlEventsQuery *query,
                     gsize          position)
{
  g_return_val_if_fail (query != NULL, SL_EVENT_REF_NONE);
  if (position >= query->n)
    return SL_EVENT_REF_NONE;
  return resolve (query, query->ids[query->descending ? query->n - 1 - position : position]);
}

/* ---- sorting ------------------------------------------------------------------------------- */

static int
cmp_by_text (gconstpointer a,
             gconstpointer b,
             gpointer      user_data)
{
  SlTrace *trace = user_data;

  return strcmp (sl_trace_str (trace, *(const guint32 *) a),
                 sl_trace_str (trace, *(const guint32 *) b));
}

static void
ensure_name_rank (SlEventsQuery *query)
{
  guint n = sl_trace_get_n_strs (query->trace);
  g_autofree guint32 *order = NULL;

  if (query->name_rank != NULL)
    return;
  order = g_new (guint32, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) n, sizeof *order, cmp_by_text, query->trace);
  query->name_rank = g_new (guint32, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    query->name_rank[order[i]] = i;
}

void
sl_events_query_sort (SlEventsQuery  *query,
                      SlEventsColumn  column,
                      gboolean        descending)
{
  g_autofree guint64 *keys = NULL;

  g_return_if_fail (query != NULL);
  if (column == SL_EVENTS_COLUMN_DETAILS)
    column = SL_EVENTS_COLUMN_START;
  query->descending = !!descending;
  if (column == query->sort)
    return;
  query->sort = column;
  if (query->ids != query->by_start)
    g_free (query->ids);
  query->ids = query->by_start;
  if (column == SL_EVENTS_COLUMN_START)
    return;

  if (column == SL_EVENTS_COLUMN_NAME)
    ensure_name_rank (query);
  keys = g_new (guint64, MAX (query->n, 1));
  query->ids = g_memdup2 (query->by_start, MAX (query->n, 1) * sizeof (guint32));
  for (gsize i = 0; i < query->n; i++)
    {
      SlEventRef ref = resolve (query, query->ids[i]);
      const SlEvent *e = event_at (query, ref);

      switch (column)
        {
        case SL_EVENTS_COLUMN_NAME:
          keys[i] = e->name < sl_trace_get_n_strs (query->trace) ? query->name_rank[e->name] : 0;
          break;
        case SL_EVENTS_COLUMN_DURATION:
          keys[i] = key_of_signed (e->end - e->start);
          break;
        case SL_EVENTS_COLUMN_LANE:
          keys[i] = (guint64) ref.lane;
          break;
        case SL_EVENTS_COLUMN_START:
        case SL_EVENTS_COLUMN_DETAILS:
        case SL_EVENTS_N_COLUMNS:
        default:
          g_assert_not_reached ();
        }
    }
  radix_sort (keys, query->ids, query->n);
}

SlEventsColumn
sl_events_query_get_sort (SlEventsQuery *query,
                          gboolean      *descending)
{
  g_return_val_if_fail (query != NULL, SL_EVENTS_COLUMN_START);
  if (descending != NULL)
    *descending = query->descending;
  return query->sort;
}

/* ---- cells --------------------------------------------------------------------------------- */

char *
sl_events_lane_title (SlTrace      *trace,
                      const SlLane *lane)
{
  const char *what;

  g_return_val_if_fail (trace != NULL && lane != NULL, NULL);
  /* the timeline's title for it: no depth ("NVTX", not "NVTX 1"), "Host waits" */
  what = sl_lane_display_title (trace, lane);
  if (lane->gpu >= 0 && (guint) lane->gpu < sl_trace_get_n_gpus (trace))
    return g_strdup_printf ("GPU %u · Stream %u · %s",
                            sl_trace_get_gpu (trace, (guint) lane->gpu)->device_id,
                            lane->stream_id, what);
  if (lane->thread >= 0 && (guint) lane->thread < sl_trace_get_n_threads (trace))
    {
      const SlThread *t = sl_trace_get_thread (trace, (guint) lane->thread);
      const char *name = sl_trace_str (trace, t->name);

      if (*name == '\0')
        return g_strdup_printf ("[%u] · %s", t->tid, what);
      return g_strdup_printf ("%s [%u] · %s", name, t->tid, what);
    }
  return g_strdup (what);
}

static const char *const kind_names[SL_N_LANE_KINDS] = {
  [SL_LANE_CUDA_API] = "cuda_api",
  [SL_LANE_NVTX] = "nvtx",
  [SL_LANE_OSRT] = "os_runtime",
  [SL_LANE_SAMPLES] = "cpu_sample",
  [SL_LANE_KERNELS] = "kernel",
  [SL_LANE_MEMCPY] = "memcpy",
  [SL_LANE_MEMSET] = "memset",
  [SL_LANE_SYNC] = "sync",
  [SL_LANE_SCHED] = "thread_state",
  [SL_LANE_GRAPHS] = "cuda_graph",
  [SL_LANE_MPI] = "mpi",
  [SL_LANE_OPENMP] = "openmp",
  [SL_LANE_OPENACC] = "openacc",
};

/* The kind's own fields, "; "-separated "key value" pairs, the same text in the table and CSV. */
static char *
details_text (SlTrace      *trace,
              const SlLane *lane,
              const SlEvent *e)
{
  GString *s = g_string_new (NULL);

  switch (lane->kind)
    {
    case SL_LANE_KERNELS:
      {
        const SlKernelInfo *k = sl_trace_get_kernel_info (trace, e->aux);
        if (k == NULL)
          break;
        g_string_append_printf (s, "grid %u×%u×%u; block %u×%u×%u; registers %u; "
                                "shared static %u B; shared dynamic %u B; local %u B",
                                k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
                                k->block[2], k->registers_per_thread, k->static_shared,
                                k->dynamic_shared, k->local_per_thread);
        if (k->graph_id != 0)
          g_string_append_printf (s, "; graph %u node %" G_GUINT64_FORMAT, k->graph_id,
                                  k->graph_node_id);
        g_string_append_printf (s, "; correlation %u", e->corr);
        break;
      }
    case SL_LANE_GRAPHS:
      {
        const SlKernelInfo *k = sl_trace_get_kernel_info (trace, e->aux);
        if (k != NULL)
          g_string_append_printf (s, "graph %u; graph exec %u; ", k->graph_id, k->graph_exec_id);
        g_string_append_printf (s, "correlation %u", e->corr);
        break;
      }
    case SL_LANE_MEMCPY:
    case SL_LANE_MEMSET:
      {
        const SlCopyInfo *c = sl_trace_get_copy_info (trace, e->aux);
        if (c == NULL)
          break;
        if (lane->kind == SL_LANE_MEMCPY)
          g_string_append_printf (s, "kind %s; ",
                                  sl_trace_enum_label (trace, SL_ENUM_MEMCPY_OPER, c->copy_kind));
        else
          g_string_append_printf (s, "value %u; memory %s; ", c->value,
                                  sl_trace_enum_label (trace, SL_ENUM_MEM_KIND, c->mem_kind));
        g_string_append_printf (s, "bytes %" G_GUINT64_FORMAT, c->bytes);
        if (lane->kind == SL_LANE_MEMCPY && c->src_kind != SL_MEM_KIND_NONE)
          g_string_append_printf (s, "; %s to %s",
                                  sl_trace_enum_label (trace, SL_ENUM_MEM_KIND, c->src_kind),
                                  sl_trace_enum_label (trace, SL_ENUM_MEM_KIND, c->dst_kind));
        g_string_append_printf (s, "; correlation %u", e->corr);
        break;
      }
    case SL_LANE_NVTX:
      {
        const char *domain = sl_trace_str (trace, e->corr);
        g_string_append_printf (s, "domain %s", *domain != '\0' ? domain : "default");
        if (e->link & SL_NVTX_MARK)
          g_string_append (s, "; mark");
        if (e->link & SL_NVTX_UNTERMINATED)
          g_string_append (s, "; unterminated");
        break;
      }
    case SL_LANE_CUDA_API:
      g_string_append_printf (s, "correlation %u; return %u", e->corr, e->aux >> 8);
      break;
    case SL_LANE_OSRT:
      g_string_append_printf (s, "return %d", (gint32) e->aux);
      break;
    case SL_LANE_MPI:
      {
        g_autofree char *mpi = sl_mpi_describe (trace, lane, e);
        g_string_append (s, mpi);
        break;
      }
    case SL_LANE_OPENMP:
    case SL_LANE_OPENACC:
      {
        g_autofree char *omp = sl_omp_describe (trace, lane, e);
        g_string_append (s, omp);
        break;
      }
    case SL_LANE_SAMPLES:
      g_string_append_printf (s, "state %s",
                              sl_trace_enum_label (trace, SL_ENUM_THREAD_STATE, e->corr));
      break;
    case SL_LANE_SCHED:
      if (e->corr != SL_NO_LINK)
        g_string_append_printf (s, "CPU %u", e->corr);
      if (e->link != SL_NO_LINK)
        g_string_append_printf (s, "%sblocked in %s", s->len > 0 ? "; " : "",
                                sl_trace_enum_label (trace, SL_ENUM_THREAD_BLOCK, e->link));
      if (e->aux & SL_STATE_DERIVED)
        g_string_append_printf (s, "%sderived", s->len > 0 ? "; " : "");
      break;
    case SL_LANE_SYNC:
      g_string_append_printf (s, "type %s; correlation %u",
                              sl_trace_enum_label (trace, SL_ENUM_SYNC_TYPE, e->aux), e->corr);
      break;
    case SL_N_LANE_KINDS:
    default:
      break;
    }
  return g_string_free (s, FALSE);
}

char *
sl_events_query_cell_text (SlEventsQuery  *query,
                           gsize           position,
                           SlEventsColumn  column)
{
  SlEventRef ref;
  const SlLane *lane;
  const SlEvent *e;

  g_return_val_if_fail (query != NULL, NULL);
  ref = sl_events_query_get (query, position);
  if (ref.lane < 0)
    return g_strdup ("");
  lane = sl_trace_get_lane (query->trace, (guint) ref.lane);
  e = &lane->events[ref.index];
  switch (column)
    {
    case SL_EVENTS_COLUMN_NAME:
      return g_strdup (sl_trace_display_name (query->trace, lane->kind, e->name));
    case SL_EVENTS_COLUMN_START:
      return sl_format_offset (e->start - sl_trace_get_origin (query->trace));
    case SL_EVENTS_COLUMN_DURATION:
      return sl_format_duration (e->end - e->start);
    case SL_EVENTS_COLUMN_LANE:
      return sl_events_lane_title (query->trace, lane);
    case SL_EVENTS_COLUMN_DETAILS:
      return details_text (query->trace, lane, e);
    case SL_EVENTS_N_COLUMNS:
    default:
      g_return_val_if_reached (NULL);
    }
}

/* ---- CSV ----------------------------------------------------------------------------------- */

static void
csv_field (GString    *out,
           const char *text)
{
  if (strpbrk (text, ",\"\r\n") == NULL)
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

void
sl_events_query_csv_header (GString *out)
{
  g_string_append (out, "name,start_ns,duration_ns,end_ns,lane,kind,details\n");
}

void
sl_events_query_csv_row (SlEventsQuery *query,
                         gsize          position,
                         GString       *out)
{
  SlEventRef ref;
  const SlLane *lane;
  const SlEvent *e;
  SlTime origin;
  g_autofree char *title = NULL;
  g_autofree char *details = NULL;

  g_return_if_fail (query != NULL);
  ref = sl_events_query_get (query, position);
  if (ref.lane < 0)
    return;
  lane = sl_trace_get_lane (query->trace, (guint) ref.lane);
  e = &lane->events[ref.index];
  origin = sl_trace_get_origin (query->trace);
  title = sl_events_lane_title (query->trace, lane);
  details = details_text (query->trace, lane, e);
  csv_field (out, sl_trace_display_name (query->trace, lane->kind, e->name));
  g_string_append_printf (out, ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",",
                          e->start - origin, e->end - e->start, e->end - origin);
  csv_field (out, title);
  g_string_append_c (out, ',');
  csv_field (out, kind_names[lane->kind]);
  g_string_append_c (out, ',');
  csv_field (out, details);
  g_string_append_c (out, '\n');
}
