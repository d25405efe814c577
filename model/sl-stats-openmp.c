/* sl-stats-openmp.c: nsys's OpenMP and OpenACC reports over the model's OpenMP and OpenACC lanes
 * (sl-openmp.h), as NVIDIA's scripts openmp_sum.py and openacc_sum.py compute them in SQL:
 *
 *   openmp_sum: for each OPENMP_EVENT_KIND_* table, its durations grouped by nameId, the groups
 *     of all tables one UNION ALL (a name in two tables is two rows): Time (%) of the sum of
 *     totals (round 1), Total Time, Count, round(avg, 1), round(median, 1), Min, Max,
 *     round(stdev, 1), Name; ORDER BY 2 DESC.
 *   openacc_sum: the rows of CUPTI_ACTIVITY_KIND_OPENACC_* together, grouped by their name:
 *     "nameId@srcFile:lineNo" where srcFile is not NULL (NULL where lineNo is), else nameId's
 *     text; the same figures with "Num Calls" for Count; ORDER BY 2 DESC.
 *
 * Ties of the ORDER BY (SQLite leaves them in no documented order) go by name, then table.  The
 * model drops rows without a thread (globalTid NULL) or times; NVIDIA's scripts count them, a
 * file nsys writes has none.  Typically 10^1 … 10^3 groups over 10^3 … 10^7 events. */
#include "sl-openmp.h"
#include "sl-stats-private.h"

#include <string.h>

const _SlColumn _sl_openmp_sum_columns[9] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS },
  { "Count", SL_UNIT_NONE }, { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS },
  { "Min (ns)", SL_UNIT_DUR_NS }, { "Max (ns)", SL_UNIT_DUR_NS },
  { "StdDev (ns)", SL_UNIT_DUR_NS }, { "Name", SL_UNIT_NONE },
};

const _SlColumn _sl_openacc_sum_columns[9] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS },
  { "Num Calls", SL_UNIT_NONE }, { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS },
  { "Min (ns)", SL_UNIT_DUR_NS }, { "Max (ns)", SL_UNIT_DUR_NS },
  { "StdDev (ns)", SL_UNIT_DUR_NS }, { "Name", SL_UNIT_NONE },
};

/* A group: its durations, its table (openmp_sum's groups are a table's) and its name (NULL:
 * SQL's NULL). */
typedef struct
{
  _SlAcc      acc;
  guint       source;
  const char *name;
} OmpGroup;

static void
omp_group_free (gpointer p)
{
  OmpGroup *g = p;
  _sl_acc_clear (&g->acc);
  g_free (g);
}

/* ORDER BY 2 DESC; ties by name (NULL first), then table. */
static gint
compare_groups (gconstpointer a,
                gconstpointer b)
{
  const OmpGroup *x = *(OmpGroup *const *) a, *y = *(OmpGroup *const *) b;
  if (x->acc.total != y->acc.total)
    return x->acc.total > y->acc.total ? -1 : 1;
  int c = g_strcmp0 (x->name, y->name);
  if (c != 0)
    return c;
  return x->source < y->source ? -1 : x->source > y->source;
}

/* The name an OpenACC event's group goes by: NVIDIA's CASE expression.  In r->strings (a trace
 * string when there is no file). */
static const char *
acc_name (SlReport         *r,
          SlTrace          *trace,
          const SlEvent    *ev,
          const SlOmpEvent *o)
{
  if (o->file == SL_NO_STR)
    return sl_trace_str (trace, ev->name);
  if (!(o->flags & SL_OMP_HAS_LINE))
    return NULL;
  g_autofree char *s = g_strdup_printf ("%s@%s:%d", sl_trace_str (trace, ev->name),
                                        sl_trace_str (trace, o->file), o->line);
  return g_string_chunk_insert_const (r->strings, s);
}

static SlReport *
compute (SlTrace             *trace,
         const _SlReportInfo *info,
         SlTime               t0,
         SlTime               t1,
         gint                 source,
         SlLaneKind           kind)
{
  SlReport *r = _sl_report_new (trace, info);
  g_autoptr (GPtrArray) groups = g_ptr_array_new_with_free_func (omp_group_free);
  /* openmp_sum: (table, name id) -> group; openacc_sum: name text -> group ("" for NULL, kept
   * apart from a name "" by a prefix) */
  g_autoptr (GHashTable) by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      gsize first, end;
      if (lane->kind != kind || !_sl_stats_lane_in (lane, source))
        continue;
      _sl_stats_lane_range (lane, t0, t1, &first, &end);
      for (gsize k = first; k < end; k++)
        {
          const SlEvent *ev = &lane->events[k];
          const SlOmpEvent *o = sl_trace_get_omp_event (trace, lane, ev);
          if (o == NULL || ev->aux >= SL_OMP_N_SOURCES)
            continue;
          const char *name;
          char key[64];
          g_autofree char *long_key = NULL;
          if (kind == SL_LANE_OPENMP)
            {
              name = sl_trace_str (trace, ev->name);
              g_snprintf (key, sizeof key, "%u:%u", ev->aux, ev->name);
            }
          else
            {
              name = acc_name (r, trace, ev, o);
              long_key = g_strconcat (name != NULL ? "s" : "n", name, NULL);
            }
          const char *k_text = long_key != NULL ? long_key : key;
          OmpGroup *g = g_hash_table_lookup (by_key, k_text);
          if (g == NULL)
            {
              g = g_new0 (OmpGroup, 1);
              _sl_acc_init (&g->acc);
              g->source = kind == SL_LANE_OPENMP ? ev->aux : 0;
              g->name = name;
              g_ptr_array_add (groups, g);
              g_hash_table_insert (by_key, g_strdup (k_text), g);
            }
          _sl_acc_add (&g->acc, ev->end - ev->start);
        }
    }

  gint64 grand = 0;
  for (guint i = 0; i < groups->len; i++)
    grand = _sl_time_add (grand, ((OmpGroup *) g_ptr_array_index (groups, i))->acc.total);
  g_ptr_array_sort (groups, compare_groups);
  for (guint i = 0; i < groups->len; i++)
    {
      OmpGroup *g = g_ptr_array_index (groups, i);
      _SlAcc *a = &g->acc;
      if (grand != 0)
        _sl_report_add_double (r, sl_stats_round ((double) a->total * 100.0 / (double) grand, 1));
      else
        _sl_report_add_null (r);
      _sl_report_add_int (r, a->total);
      _sl_report_add_int (r, a->n);
      _sl_report_add_double (r, sl_stats_round (_sl_acc_avg (a), 1));
      _sl_report_add_double (r, sl_stats_round (_sl_acc_median (a), 1));
      _sl_report_add_int (r, a->min);
      _sl_report_add_int (r, a->max);
      _sl_report_add_double (r, sl_stats_round (_sl_acc_stdev (a), 1));
      _sl_report_add_text (r, g->name);
    }
  return r;
}

SlReport *
_sl_report_compute_openmp_sum (SlTrace             *trace,
                               const _SlReportInfo *info,
                               SlTime               t0,
                               SlTime               t1,
                               gint                 source,
                               GError             **error)
{
  if (!_sl_stats_trace_has (trace, SL_LANE_OPENMP, source))
    return _sl_stats_no_data (trace, error, "OpenMP event data"), NULL;
  return compute (trace, info, t0, t1, source, SL_LANE_OPENMP);
}

SlReport *
_sl_report_compute_openacc_sum (SlTrace             *trace,
                                const _SlReportInfo *info,
                                SlTime               t0,
                                SlTime               t1,
                                gint                 source,
                                GError             **error)
{
  if (!_sl_stats_trace_has (trace, SL_LANE_OPENACC, source))
    return _sl_stats_no_data (trace, error, "OpenACC event data"), NULL;
  return compute (trace, info, t0, t1, source, SL_LANE_OPENACC);
}
