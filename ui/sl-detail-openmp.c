/* sl-detail-openmp.c: the detail pane's OpenMP or OpenACC event (an SL_LANE_OPENMP / _OPENACC
 * event): its table and kind, a parallel region's team and source line, the region, task and
 * wait ids, an OpenACC event's construct, source line, function, bytes and launch shape, and a
 * link from a task, barrier or loop to the parallel region it belongs to. */
#include "sl-detail-pane-private.h"
#include "sl-format.h"
#include "sl-openmp.h"

/* The parallel region `parallel_id` of the process of `lane`: one scan of that process's
 * OpenMP lanes (10^2 … 10^6 events), once a click. */
static gboolean
find_region (SlTrace      *trace,
             const SlLane *lane,
             gint64        parallel_id,
             SlEventRef   *out)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *l = sl_trace_get_lane (trace, i);
      if (l->kind != SL_LANE_OPENMP || l->global_pid != lane->global_pid
          || l->source != lane->source)
        continue;
      for (gsize k = 0; k < l->n_events; k++)
        {
          const SlEvent *ev = &l->events[k];
          const SlOmpEvent *o;
          if (ev->aux != SL_OMP_PARALLEL || (o = sl_trace_get_omp_event (trace, l, ev)) == NULL)
            continue;
          if ((o->flags & SL_OMP_HAS_PARALLEL) && o->parallel_id == parallel_id)
            {
              *out = (SlEventRef) { (gint) i, k };
              return TRUE;
            }
        }
    }
  return FALSE;
}

static void
row_int (SlDetailPane *self,
         const char   *key,
         gint64        v)
{
  char buf[32];
  g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, v);
  _sl_detail_pane_row (self, key, buf);
}

void
_sl_detail_openmp_show (SlDetailPane  *self,
                        SlTrace       *trace,
                        const SlLane  *lane,
                        const SlEvent *ev)
{
  const SlOmpEvent *o = sl_trace_get_omp_event (trace, lane, ev);
  SlOmpSource source = (SlOmpSource) ev->aux;

  if (o == NULL)
    return;
  _sl_detail_pane_heading (self, SL_OMP_IS_ACC (source) ? "OpenACC" : "OpenMP");
  g_autofree char *what = g_strdup_printf ("%s (%s)", sl_omp_source_label (source),
                                           sl_omp_source_table (source) != NULL
                                             ? sl_omp_source_table (source) : "?");
  _sl_detail_pane_row (self, "Event", what);
  if (o->flags & SL_OMP_HAS_KIND)
    {
      const char *k = sl_omp_kind_label (source, o->kind);
      if (k != NULL)
        _sl_detail_pane_row (self, "Type", k);
      else
        row_int (self, "Type", o->kind);
    }
  if (o->flags & SL_OMP_HAS_THREADS)
    row_int (self, "Threads", o->threads);
  g_autofree char *where = sl_omp_where (trace, o);
  if (where != NULL)
    _sl_detail_pane_row (self, "Source line", where);
  if ((o->flags & SL_OMP_HAS_END_LINE) && where != NULL)
    row_int (self, "Ends at line", o->end_line);
  if (o->func != SL_NO_STR)
    _sl_detail_pane_row (self, "Function", sl_trace_str (trace, o->func));
  if (o->flags & SL_OMP_HAS_CONSTRUCT)
    _sl_detail_pane_row (self, "Construct", sl_omp_construct_label (o->construct));
  if (o->var != SL_NO_STR)
    _sl_detail_pane_row (self, "Variable", sl_trace_str (trace, o->var));
  if (o->flags & SL_OMP_HAS_COUNT)
    {
      if (source == SL_ACC_DATA)
        {
          g_autofree char *bytes = sl_format_bytes ((guint64) o->count);
          _sl_detail_pane_row (self, "Bytes", bytes);
        }
      else
        row_int (self, "Count", o->count);
    }
  if (o->flags & SL_OMP_HAS_GANGS)
    row_int (self, "Gangs", o->gangs);
  if (o->flags & SL_OMP_HAS_WORKERS)
    row_int (self, "Workers", o->workers);
  if (o->flags & SL_OMP_HAS_VECTOR)
    row_int (self, "Vector length", o->vector);
  if (o->flags & SL_OMP_HAS_PARALLEL)
    row_int (self, "Parallel region id", o->parallel_id);
  if (o->flags & SL_OMP_HAS_TASK)
    row_int (self, source == SL_OMP_TASK_CREATE ? "New task id"
                   : source == SL_OMP_TASK_SCHEDULE ? "Next task id" : "Task id", o->task_id);
  if (o->flags & SL_OMP_HAS_OTHER)
    row_int (self, source == SL_OMP_PARALLEL || source == SL_OMP_TASK_CREATE ? "Parent task id"
                   : source == SL_OMP_TASK_SCHEDULE ? "Prior task id"
                   : source == SL_OMP_THREAD || source == SL_OMP_FLUSH ? "OpenMP thread"
                   : "Wait id", o->other_id);

  SlEventRef region;
  if (source != SL_OMP_PARALLEL && !SL_OMP_IS_ACC (source) && (o->flags & SL_OMP_HAS_PARALLEL)
      && find_region (trace, lane, o->parallel_id, &region))
    _sl_detail_pane_link (self, "Go to its parallel region",
                          sl_trace_get_lane (trace, region.lane), region.index);
}
