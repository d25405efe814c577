/* sl-stats-traces.c: the per-event trace reports cuda_api_trace and cuda_kern_exec_trace.
 *
 * As NVIDIA's cuda_api_trace.py and cuda_kern_exec_trace.py (nsys 2024.x) compute them, over
 * the events that start in [t0, t1): one row per CUDA API call, or per kernel joined to its
 * launch call (the model's `link`: same correlation id in the same process).  nsys orders both
 * by their first column only; ties here go by the columns listed at each sort function.
 */
#include "sl-stats-private.h"

#include <string.h>

/* ---------------------------------------------------------------------------------------- */
/* cuda_api_trace: Start, Duration, Name (without "_vNNNN"), Result, CorrID, Pid, Tid, T-Pri,
 * Thread Name (ThreadNames joined on globalTid, NULL when unnamed).  T-Pri is the thread's
 * ThreadNames.priority (NULL without one). */

const _SlColumn _sl_cuda_api_trace_columns[9] = {
  { "Start (ns)", SL_UNIT_TS_NS }, { "Duration (ns)", SL_UNIT_DUR_NS }, { "Name", SL_UNIT_NONE },
  { "Result", SL_UNIT_NONE }, { "CorrID", SL_UNIT_NONE }, { "Pid", SL_UNIT_NONE },
  { "Tid", SL_UNIT_NONE }, { "T-Pri", SL_UNIT_NONE }, { "Thread Name", SL_UNIT_NONE },
};

typedef struct
{
  const SlEvent  *ev;
  const SlThread *thread;   /* NULL for a lane of no known thread */
} ApiRow;

/* ORDER BY start; ties by Pid, Tid, CorrID, Duration */
static int
compare_api_rows (gconstpointer pa,
                  gconstpointer pb)
{
  const ApiRow *a = pa, *b = pb;
  guint32 apid = a->thread != NULL ? a->thread->pid : 0, bpid = b->thread != NULL ? b->thread->pid : 0;
  guint32 atid = a->thread != NULL ? a->thread->tid : 0, btid = b->thread != NULL ? b->thread->tid : 0;

  if (a->ev->start != b->ev->start)
    return a->ev->start < b->ev->start ? -1 : 1;
  if (apid != bpid)
    return apid < bpid ? -1 : 1;
  if (atid != btid)
    return atid < btid ? -1 : 1;
  if (a->ev->corr != b->ev->corr)
    return a->ev->corr < b->ev->corr ? -1 : 1;
  SlTime da = a->ev->end - a->ev->start, db = b->ev->end - b->ev->start;
  return da < db ? -1 : da > db;
}

SlReport *
_sl_report_compute_cuda_api_trace (SlTrace             *trace,
                                   const _SlReportInfo *info,
                                   SlTime               t0,
                                   SlTime               t1,
                                   gint                 source,
                                   GError             **error)
{
  if (!_sl_stats_trace_has (trace, SL_LANE_CUDA_API, source))
    return _sl_stats_no_data (trace, error, "CUDA trace data"), NULL;

  SlReport *r = _sl_report_new (trace, info);
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (ApiRow));
  g_autoptr (GHashTable) names = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_CUDA_API || !_sl_stats_lane_in (lane, source))
        continue;
      const SlThread *thread = lane->thread >= 0
                                   && (guint) lane->thread < sl_trace_get_n_threads (trace)
                               ? sl_trace_get_thread (trace, lane->thread)
                               : NULL;
      gsize first, end;
      _sl_stats_lane_range (lane, t0, t1, &first, &end);
      for (gsize k = first; k < end; k++)
        {
          ApiRow row = { &lane->events[k], thread };
          g_array_append_val (rows, row);
        }
    }
  g_array_sort (rows, compare_api_rows);
  for (guint i = 0; i < rows->len; i++)
    {
      const ApiRow *row = &g_array_index (rows, ApiRow, i);
      const SlEvent *ev = row->ev;
      _sl_report_add_int (r, ev->start);
      _sl_report_add_int (r, ev->end - ev->start);
      _sl_report_add_text (r, _sl_stats_api_name (r, names, ev->name));
      _sl_report_add_int (r, ev->aux >> 8);
      _sl_report_add_int (r, ev->corr);
      if (row->thread != NULL)
        {
          _sl_report_add_int (r, row->thread->pid);
          _sl_report_add_int (r, row->thread->tid);
        }
      else
        {
          _sl_report_add_null (r);
          _sl_report_add_null (r);
        }
      if (row->thread != NULL && row->thread->priority != SL_NO_PRIORITY)
        _sl_report_add_int (r, row->thread->priority);
      else
        _sl_report_add_null (r);
      _sl_report_add_text (r, row->thread != NULL && row->thread->name != SL_NO_STR
                              ? sl_trace_str (trace, row->thread->name)
                              : NULL);
    }
  return r;
}

/* ---------------------------------------------------------------------------------------- */
/* cuda_kern_exec_trace: per kernel with a launch call in the trace (the inner JOIN)
 *   API Start, API Dur, Queue Start = API end and Queue Dur = kernel start − API end when that
 *   is >= 0 (else both NULL), Kernel Start, Kernel Dur, Total Dur = max(API end, kernel end) −
 *   API start, PID, TID, DevId, API Function (without "_vNNNN"), GridXYZ and BlockXYZ as
 *   printf('%4d %4d %4d'), Kernel Name (demangled). */

const _SlColumn _sl_cuda_kern_exec_trace_columns[14] = {
  { "API Start (ns)", SL_UNIT_TS_NS }, { "API Dur (ns)", SL_UNIT_DUR_NS },
  { "Queue Start (ns)", SL_UNIT_TS_NS }, { "Queue Dur (ns)", SL_UNIT_DUR_NS },
  { "Kernel Start (ns)", SL_UNIT_TS_NS }, { "Kernel Dur (ns)", SL_UNIT_DUR_NS },
  { "Total Dur (ns)", SL_UNIT_DUR_NS }, { "PID", SL_UNIT_NONE }, { "TID", SL_UNIT_NONE },
  { "DevId", SL_UNIT_NONE }, { "API Function", SL_UNIT_NONE }, { "GridXYZ", SL_UNIT_NONE },
  { "BlockXYZ", SL_UNIT_NONE }, { "Kernel Name", SL_UNIT_NONE },
};

/* ORDER BY API start; ties by kernel start, DevId, PID, TID, the kernel's correlation id */
static int
compare_exec_rows (gconstpointer pa,
                   gconstpointer pb)
{
  const _SlLaunch *a = pa, *b = pb;

  if (a->api->start != b->api->start)
    return a->api->start < b->api->start ? -1 : 1;
  if (a->kernel->start != b->kernel->start)
    return a->kernel->start < b->kernel->start ? -1 : 1;
  if (a->device_id != b->device_id)
    return a->device_id < b->device_id ? -1 : 1;
  if (a->thread->pid != b->thread->pid)
    return a->thread->pid < b->thread->pid ? -1 : 1;
  if (a->thread->tid != b->thread->tid)
    return a->thread->tid < b->thread->tid ? -1 : 1;
  return a->kernel->corr < b->kernel->corr ? -1 : a->kernel->corr > b->kernel->corr;
}

SlReport *
_sl_report_compute_cuda_kern_exec_trace (SlTrace             *trace,
                                         const _SlReportInfo *info,
                                         SlTime               t0,
                                         SlTime               t1,
                                         gint                 source,
                                         GError             **error)
{
  g_autoptr (GArray) rows = _sl_stats_launches (trace, t0, t1, source, error);
  if (rows == NULL)
    return NULL;

  SlReport *r = _sl_report_new (trace, info);
  g_autoptr (GHashTable) names = g_hash_table_new (g_direct_hash, g_direct_equal);

  g_array_sort (rows, compare_exec_rows);
  for (guint i = 0; i < rows->len; i++)
    {
      const _SlLaunch *row = &g_array_index (rows, _SlLaunch, i);
      const SlEvent *k = row->kernel, *a = row->api;
      const SlKernelInfo *ki = sl_trace_get_kernel_info (trace, k->aux);
      _sl_report_add_int (r, a->start);
      _sl_report_add_int (r, a->end - a->start);
      if (k->start - a->end >= 0)
        {
          _sl_report_add_int (r, a->end);
          _sl_report_add_int (r, k->start - a->end);
        }
      else
        {
          _sl_report_add_null (r);
          _sl_report_add_null (r);
        }
      _sl_report_add_int (r, k->start);
      _sl_report_add_int (r, k->end - k->start);
      _sl_report_add_int (r, MAX (a->end, k->end) - a->start);
      _sl_report_add_int (r, row->thread->pid);
      _sl_report_add_int (r, row->thread->tid);
      _sl_report_add_int (r, row->device_id);
      _sl_report_add_text (r, _sl_stats_api_name (r, names, a->name));
      if (ki != NULL)
        {
          char buf[64];
          g_snprintf (buf, sizeof buf, "%4d %4d %4d", (gint) ki->grid[0], (gint) ki->grid[1],
                      (gint) ki->grid[2]);
          _sl_report_add_text (r, g_string_chunk_insert_const (r->strings, buf));
          g_snprintf (buf, sizeof buf, "%4d %4d %4d", (gint) ki->block[0], (gint) ki->block[1],
                      (gint) ki->block[2]);
          _sl_report_add_text (r, g_string_chunk_insert_const (r->strings, buf));
        }
      else
        {
          _sl_report_add_null (r);
          _sl_report_add_null (r);
        }
      _sl_report_add_text (r, sl_trace_str (trace, k->name));
    }
  return r;
}
