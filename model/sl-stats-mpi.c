/* sl-stats-mpi.c: nsys's MPI reports over the model's MPI lanes (sl-mpi.h), as NVIDIA's scripts
 * mpi_event_sum.py, mpi_event_trace.py and mpi_msg_size_sum.py compute them in SQL:
 *
 *   mpi_event_sum: the UNION ALL of MPI_P2P_EVENTS ('p2p'), MPI_START_WAIT_EVENTS ('start-wait'),
 *     MPI_OTHER_EVENTS ('other') and MPI_COLLECTIVES_EVENTS ('collectives'), durations grouped by
 *     (source, textId): Time (%) of the sum of totals, total, count, round(avg, 1),
 *     round(median, 1), min, max, round(stdev, 1), Source, Name; ORDER BY 2 DESC.
 *   mpi_event_trace: the same union, a row per call: Start, End, Duration, Event, Pid, Tid, Tag,
 *     Rank (MPI_RANKS of its globalTid), PeerRank, RootRank, Size (p2p), CollSendSize and
 *     CollRecvSize (collectives); ORDER BY 1.
 *   mpi_msg_size_sum: p2p sizes ('p2p'), collectives' size ('coll_send', where NOT NULL) and
 *     recvSize ('coll_recv', where NOT NULL), grouped by (source, textId): sum, count, round(avg,
 *     1), round(median, 1), min, max, round(stdev, 1), Source, Name; ORDER BY 2 DESC.
 *
 * Ties of the ORDER BY (SQLite leaves them in no documented order) go by source, then name.  The
 * calls of NVTX ranges of the domain "MPI" are none of NVIDIA's tables, so none of these rows. */
#include "sl-mpi.h"
#include "sl-stats-private.h"

#include <string.h>

static const char *const source_names[SL_MPI_N_SOURCES] = {
  [SL_MPI_P2P] = "p2p", [SL_MPI_COLLECTIVE] = "collectives", [SL_MPI_START_WAIT] = "start-wait",
  [SL_MPI_OTHER] = "other", [SL_MPI_NVTX] = NULL,
};

const _SlColumn _sl_mpi_event_sum_columns[10] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS },
  { "Instances", SL_UNIT_NONE }, { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS },
  { "Min (ns)", SL_UNIT_DUR_NS }, { "Max (ns)", SL_UNIT_DUR_NS },
  { "StdDev (ns)", SL_UNIT_DUR_NS }, { "Source", SL_UNIT_NONE }, { "Name", SL_UNIT_NONE },
};

const _SlColumn _sl_mpi_event_trace_columns[13] = {
  { "Start (ns)", SL_UNIT_TS_NS }, { "End (ns)", SL_UNIT_TS_NS },
  { "Duration (ns)", SL_UNIT_DUR_NS }, { "Event", SL_UNIT_NONE }, { "Pid", SL_UNIT_NONE },
  { "Tid", SL_UNIT_NONE }, { "Tag", SL_UNIT_NONE }, { "Rank", SL_UNIT_NONE },
  { "PeerRank", SL_UNIT_NONE }, { "RootRank", SL_UNIT_NONE }, { "Size (MB)", SL_UNIT_MEM_B },
  { "CollSendSize (MB)", SL_UNIT_MEM_B }, { "CollRecvSize (MB)", SL_UNIT_MEM_B },
};

const _SlColumn _sl_mpi_msg_size_sum_columns[9] = {
  { "Total Message Volume (B)", SL_UNIT_NONE }, { "Instances", SL_UNIT_NONE },
  { "Avg (B)", SL_UNIT_NONE }, { "Med (B)", SL_UNIT_NONE }, { "Min (B)", SL_UNIT_NONE },
  { "Max (B)", SL_UNIT_NONE }, { "StdDev (B)", SL_UNIT_NONE }, { "Source", SL_UNIT_NONE },
  { "Name", SL_UNIT_NONE },
};

/* A group of the summaries: its values, the rows counted (p2p rows with a NULL size count, as
 * count(*) does, but add no value), its source and name. */
typedef struct
{
  _SlAcc      acc;
  gint64      rows;
  const char *source;
  const char *name;
} MpiGroup;

static void
mpi_group_free (gpointer p)
{
  MpiGroup *g = p;
  _sl_acc_clear (&g->acc);
  g_free (g);
}

static MpiGroup *
group_for (GHashTable  *by_key,
           GPtrArray   *groups,
           guint        source,
           guint32      name,
           SlTrace     *trace,
           const char  *source_name)
{
  guint64 key = ((guint64) source << 32) | name;
  MpiGroup *g = g_hash_table_lookup (by_key, &key);
  if (g == NULL)
    {
      g = g_new0 (MpiGroup, 1);
      _sl_acc_init (&g->acc);
      g->source = source_name;
      g->name = sl_trace_str (trace, name);
      g_ptr_array_add (groups, g);
      g_hash_table_insert (by_key, g_memdup2 (&key, sizeof key), g);
    }
  return g;
}

/* ORDER BY 2 DESC: the total (sums) or, with `by_rows`, the instances (sizes); ties by source,
 * then name. */
static gint
compare_groups (gconstpointer a,
                gconstpointer b,
                gpointer      by_rows)
{
  const MpiGroup *x = *(MpiGroup *const *) a, *y = *(MpiGroup *const *) b;
  gboolean rows = GPOINTER_TO_INT (by_rows);
  gint64 kx = rows ? x->rows : x->acc.total, ky = rows ? y->rows : y->acc.total;
  if (kx != ky)
    return kx > ky ? -1 : 1;
  int c = strcmp (x->source, y->source);
  return c != 0 ? c : strcmp (x->name, y->name);
}

/* Whether the trace (its source `source`, -1: any) holds a call of NVIDIA's MPI tables. */
static gboolean
has_mpi_tables (SlTrace *trace,
                gint     source)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_MPI || !_sl_stats_lane_in (lane, source))
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        if (SL_MPI_SOURCE_OF (lane->events[k].aux) != SL_MPI_NVTX)
          return TRUE;
    }
  return FALSE;
}

/* The groups of the calls that start in [t0, t1): durations (`sizes` FALSE) or message sizes. */
static GPtrArray *
collect (SlTrace  *trace,
         SlTime    t0,
         SlTime    t1,
         gint      source,
         gboolean  sizes)
{
  GPtrArray *groups = g_ptr_array_new_with_free_func (mpi_group_free);
  g_autoptr (GHashTable) by_key = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                         NULL);

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      gsize first, end;
      if (lane->kind != SL_LANE_MPI || !_sl_stats_lane_in (lane, source))
        continue;
      _sl_stats_lane_range (lane, t0, t1, &first, &end);
      for (gsize k = first; k < end; k++)
        {
          const SlEvent *ev = &lane->events[k];
          SlMpiSource src = SL_MPI_SOURCE_OF (ev->aux);
          const SlMpiCall *c = sl_trace_get_mpi_call (trace, lane, ev);
          if (src >= SL_MPI_N_SOURCES || source_names[src] == NULL || c == NULL)
            continue;
          if (!sizes)
            {
              MpiGroup *g = group_for (by_key, groups, src, ev->name, trace, source_names[src]);
              g->rows++;
              _sl_acc_add (&g->acc, ev->end - ev->start);
            }
          else if (src == SL_MPI_P2P)
            {
              MpiGroup *g = group_for (by_key, groups, 0, ev->name, trace, "p2p");
              g->rows++;
              if (c->flags & SL_MPI_HAS_SIZE)
                _sl_acc_add (&g->acc, c->size);
            }
          else if (src == SL_MPI_COLLECTIVE)
            {
              if (c->flags & SL_MPI_HAS_SIZE)
                {
                  MpiGroup *g = group_for (by_key, groups, 1, ev->name, trace, "coll_send");
                  g->rows++;
                  _sl_acc_add (&g->acc, c->size);
                }
              if (c->flags & SL_MPI_HAS_RECV_SIZE)
                {
                  MpiGroup *g = group_for (by_key, groups, 2, ev->name, trace, "coll_recv");
                  g->rows++;
                  _sl_acc_add (&g->acc, c->recv_size);
                }
            }
        }
    }
  return groups;
}

/* The seven figures of a group; NULLs where it has no value (SQL's aggregates of NULLs). */
static void
add_figures (SlReport *r,
             MpiGroup *g,
             gboolean  with_total)
{
  _SlAcc *a = &g->acc;

  if (with_total)
    {
      if (a->n > 0)
        _sl_report_add_int (r, a->total);
      else
        _sl_report_add_null (r);
    }
  _sl_report_add_int (r, g->rows);
  if (a->n == 0)
    {
      for (guint i = 0; i < 5; i++)
        _sl_report_add_null (r);
      return;
    }
  _sl_report_add_double (r, sl_stats_round (_sl_acc_avg (a), 1));
  _sl_report_add_double (r, sl_stats_round (_sl_acc_median (a), 1));
  _sl_report_add_int (r, a->min);
  _sl_report_add_int (r, a->max);
  _sl_report_add_double (r, sl_stats_round (_sl_acc_stdev (a), 1));
}

SlReport *
_sl_report_compute_mpi_event_sum (SlTrace             *trace,
                                  const _SlReportInfo *info,
                                  SlTime               t0,
                                  SlTime               t1,
                                  gint                 source,
                                  GError             **error)
{
  if (!has_mpi_tables (trace, source))
    return _sl_stats_no_data (trace, error, "MPI event data"), NULL;
  g_autoptr (GPtrArray) groups = collect (trace, t0, t1, source, FALSE);
  SlReport *r = _sl_report_new (trace, info);
  gint64 grand = 0;

  for (guint i = 0; i < groups->len; i++)
    grand = _sl_time_add (grand, ((MpiGroup *) g_ptr_array_index (groups, i))->acc.total);
  g_ptr_array_sort_with_data (groups, compare_groups, GINT_TO_POINTER (FALSE));
  for (guint i = 0; i < groups->len; i++)
    {
      MpiGroup *g = g_ptr_array_index (groups, i);
      if (grand != 0)
        _sl_report_add_double (r, sl_stats_round ((double) g->acc.total * 100.0 / (double) grand,
                                                  1));
      else
        _sl_report_add_null (r);
      add_figures (r, g, TRUE);
      _sl_report_add_text (r, g->source);
      _sl_report_add_text (r, g->name);
    }
  return r;
}

SlReport *
_sl_report_compute_mpi_msg_size_sum (SlTrace             *trace,
                                     const _SlReportInfo *info,
                                     SlTime               t0,
                                     SlTime               t1,
                                     gint                 source,
                                     GError             **error)
{
  if (!has_mpi_tables (trace, source))
    return _sl_stats_no_data (trace, error, "MPI event data"), NULL;
  g_autoptr (GPtrArray) groups = collect (trace, t0, t1, source, TRUE);
  SlReport *r = _sl_report_new (trace, info);

  g_ptr_array_sort_with_data (groups, compare_groups, GINT_TO_POINTER (TRUE));
  for (guint i = 0; i < groups->len; i++)
    {
      MpiGroup *g = g_ptr_array_index (groups, i);
      add_figures (r, g, TRUE);
      _sl_report_add_text (r, g->source);
      _sl_report_add_text (r, g->name);
    }
  return r;
}

/* A call of the trace report: its lane and index, for the sort by start. */
typedef struct
{
  SlTime        start;
  const SlLane *lane;
  gsize         index;
} TraceRow;

static gint
compare_trace_rows (gconstpointer a,
                    gconstpointer b)
{
  const TraceRow *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->lane->index != y->lane->index)
    return x->lane->index < y->lane->index ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static void
add_opt_int (SlReport *r,
             gboolean  present,
             gint64    v)
{
  if (present)
    _sl_report_add_int (r, v);
  else
    _sl_report_add_null (r);
}

SlReport *
_sl_report_compute_mpi_event_trace (SlTrace             *trace,
                                    const _SlReportInfo *info,
                                    SlTime               t0,
                                    SlTime               t1,
                                    gint                 source,
                                    GError             **error)
{
  if (!has_mpi_tables (trace, source))
    return _sl_stats_no_data (trace, error, "MPI event data"), NULL;
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (TraceRow));
  SlReport *r = _sl_report_new (trace, info);

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      gsize first, end;
      if (lane->kind != SL_LANE_MPI || !_sl_stats_lane_in (lane, source))
        continue;
      _sl_stats_lane_range (lane, t0, t1, &first, &end);
      for (gsize k = first; k < end; k++)
        {
          SlMpiSource src = SL_MPI_SOURCE_OF (lane->events[k].aux);
          if (src >= SL_MPI_N_SOURCES || source_names[src] == NULL)
            continue;
          TraceRow row = { lane->events[k].start, lane, k };
          g_array_append_val (rows, row);
        }
    }
  g_array_sort (rows, compare_trace_rows);
  for (guint i = 0; i < rows->len; i++)
    {
      const TraceRow *row = &g_array_index (rows, TraceRow, i);
      const SlEvent *ev = &row->lane->events[row->index];
      const SlMpiCall *c = sl_trace_get_mpi_call (trace, row->lane, ev);
      const SlThread *t = sl_trace_get_thread (trace, row->lane->thread);
      SlMpiSource src = SL_MPI_SOURCE_OF (ev->aux);
      guint32 f = c != NULL ? c->flags : 0;
      gboolean p2p = src == SL_MPI_P2P, coll = src == SL_MPI_COLLECTIVE;

      _sl_report_add_int (r, ev->start);
      _sl_report_add_int (r, ev->end);
      _sl_report_add_int (r, ev->end - ev->start);
      _sl_report_add_text (r, sl_trace_str (trace, ev->name));
      add_opt_int (r, t != NULL, t != NULL ? t->pid : 0);
      add_opt_int (r, t != NULL, t != NULL ? t->tid : 0);
      add_opt_int (r, p2p && (f & SL_MPI_HAS_TAG), c != NULL ? c->tag : 0);
      add_opt_int (r, (f & SL_MPI_HAS_RANK) && !(f & SL_MPI_RANK_OF_PROCESS),
                   c != NULL ? c->rank : 0);
      add_opt_int (r, p2p && (f & SL_MPI_HAS_PEER), c != NULL ? c->peer : 0);
      add_opt_int (r, coll && (f & SL_MPI_HAS_ROOT), c != NULL ? c->root : 0);
      add_opt_int (r, p2p && (f & SL_MPI_HAS_SIZE), c != NULL ? c->size : 0);
      add_opt_int (r, coll && (f & SL_MPI_HAS_SIZE), c != NULL ? c->size : 0);
      add_opt_int (r, coll && (f & SL_MPI_HAS_RECV_SIZE), c != NULL ? c->recv_size : 0);
    }
  return r;
}
