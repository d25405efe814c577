/* sl-stats-ranks.c: statistics of a job's ranks side by side: the rank_sum report (a row per
 * rank: GPU kernel time split into communication and compute, their overlap on each GPU, copies,
 * CUDA API time, steps, GPU utilization) and any report over several traces, one per rank, with
 * a leading Rank column (`sightline stats --merge`).
 *
 * Each rank's rows are its own report, computed on its own trace exactly as `sightline stats`
 * on that file computes them; only the Rank column is added.  A job has 2 … 10^3 ranks. */
#include "sl-stats-private.h"

#include <string.h>

#include "sl-comm.h"
#include "sl-sort.h"
#include "sl-summaries.h"
#include "sl-utilization.h"

const _SlColumn _sl_rank_sum_columns[10] = {
  { "Rank", SL_UNIT_NONE },
  { "Kernel Time (ns)", SL_UNIT_DUR_NS },
  { "Comm Time (ns)", SL_UNIT_DUR_NS },
  { "Compute Time (ns)", SL_UNIT_DUR_NS },
  { "Overlap (%)", SL_UNIT_RATIO },
  { "Memcpy Time (ns)", SL_UNIT_DUR_NS },
  { "API Time (ns)", SL_UNIT_DUR_NS },
  { "Steps", SL_UNIT_NONE },
  { "Med Step (ns)", SL_UNIT_DUR_NS },
  { "GPU Util (%)", SL_UNIT_RATIO },
};

/* Durations summed over the rank's lanes of `kind`, events starting in [t0, t1). */
static SlTime
busy_of (SlTrace          *trace,
         SlLaneKind        kind,
         const SlCommRank *rank,
         SlTime            t0,
         SlTime            t1)
{
  SlTime sum = 0;

  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      gsize first, end;
      if (lane->kind != kind || !sl_comm_rank_has_lane (trace, rank, lane))
        continue;
      _sl_stats_lane_range (lane, t0, t1, &first, &end);
      for (gsize e = first; e < end; e++)
        sum = _sl_time_add (sum, lane->events[e].end - lane->events[e].start);
    }
  return sum;
}

/* Whether GPU `g` is the rank's: of its file, or (a rank of one file) running its work. */
static gboolean
gpu_of_rank (SlTrace          *trace,
             const SlCommRank *rank,
             guint             g)
{
  if (rank->rank < 0 && rank->global_pid == 0)
    return rank->source < 0 || sl_trace_get_gpu (trace, g)->source == (guint32) rank->source;
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->gpu == (gint) g && lane->n_events > 0 && sl_comm_rank_has_lane (trace, rank, lane))
        return TRUE;
    }
  return FALSE;
}

/* A row per rank (sl_trace_comm_ranks): a merged trace's files, or the ranks one file holds
 * (its processes' ranks, else its processes that communicate, a GPU each); one row for a trace
 * of one rank; over one source, the rows of its ranks.  The overlap is taken GPU by GPU
 * (sl_trace_comm_times). */
SlReport *
_sl_report_compute_rank_sum (SlTrace             *trace,
                             const _SlReportInfo *info,
                             SlTime               t0,
                             SlTime               t1,
                             gint                 source,
                             GError             **error)
{
  if (!_sl_stats_trace_has (trace, SL_LANE_KERNELS, source))
    return _sl_stats_no_data (trace, error, "CUDA kernel data"), NULL;

  SlReport *r = _sl_report_new (trace, info);
  g_autoptr (GArray) ranks = sl_trace_comm_ranks (trace);
  for (guint i = 0; i < ranks->len; i++)
    {
      const SlCommRank *rank = &g_array_index (ranks, SlCommRank, i);
      if (source >= 0 && MAX (rank->source, 0) != source)
        continue;
      const SlSource *src = sl_trace_get_source (trace, (guint) MAX (rank->source, 0));
      /* the rank's own time: the files of a merged trace cover different spans */
      SlTime w0 = MAX (t0, src->start), w1 = MIN (t1, src->end);
      SlCommTimes ct;

      sl_trace_rank_comm_times (trace, rank, t0, t1, &ct);
      _sl_report_add_text (r, g_string_chunk_insert_const (r->strings, rank->label));
      _sl_report_add_int (r, ct.kernel_time);
      _sl_report_add_int (r, ct.comm_time);
      _sl_report_add_int (r, ct.compute_time);
      if (ct.comm_busy > 0)
        _sl_report_add_double (r, sl_stats_round (sl_comm_overlap_pct (&ct), 2));
      else
        _sl_report_add_null (r);
      _sl_report_add_int (r, busy_of (trace, SL_LANE_MEMCPY, rank, t0, t1));
      _sl_report_add_int (r, busy_of (trace, SL_LANE_CUDA_API, rank, t0, t1));

      /* steps as `sightline analyze` counts them (sl_trace_median_step), on the rank's threads */
      g_autoptr (GArray) steps = w1 > w0 ? sl_trace_steps (trace, w0, w1,
                                                           sl_comm_rank_thread_filter,
                                                           (gpointer) rank)
                                         : g_array_new (FALSE, FALSE, sizeof (SlStep));
      _sl_report_add_int (r, steps->len);
      if (steps->len > 0)
        {
          g_autofree gint64 *d = g_new (gint64, steps->len);
          for (guint k = 0; k < steps->len; k++)
            d[k] = g_array_index (steps, SlStep, k).end - g_array_index (steps, SlStep, k).start;
          _sl_report_add_int (r, sl_median_int64 (d, steps->len));
        }
      else
        _sl_report_add_null (r);

      /* the rank's GPUs that ran work, busy (any work) over its span: analyze's GPU utilization */
      SlTime gpu_time = 0;
      guint gpus = 0;
      for (guint g = 0; g < sl_trace_get_n_gpus (trace); g++)
        if (gpu_of_rank (trace, rank, g) && sl_trace_gpu_busy_intervals (trace, g, SL_UTIL_ANY) > 0)
          {
            gpus++;
            if (w1 > w0)
              gpu_time = _sl_time_add (gpu_time,
                                       sl_trace_gpu_busy_time (trace, g, SL_UTIL_ANY, w0, w1));
          }
      if (gpus > 0 && w1 > w0)
        _sl_report_add_double (r, sl_stats_round (100.0 * (double) gpu_time
                                                      / ((double) (w1 - w0) * gpus), 1));
      else
        _sl_report_add_null (r);
    }
  return r;
}

/* ---- any report, rank by rank ------------------------------------------------------------ */

/* A report of `info`'s columns behind a leading Rank column (rank_sum has its own), its rows to
 * come from the ranks' reports (`parts`, which it keeps: their text is in them). */
static SlReport *
ranks_report_new (SlTrace             *trace,
                  const _SlReportInfo *info)
{
  SlReport *r = _sl_report_new (trace, info);

  if (info->compute != _sl_report_compute_rank_sum)
    {
      _SlColumn *columns = g_new (_SlColumn, info->n_columns + 1);
      columns[0] = (_SlColumn) { "Rank", SL_UNIT_NONE };
      memcpy (columns + 1, info->columns, info->n_columns * sizeof (_SlColumn));
      r->own_columns = columns;
      r->columns = columns;
      r->n_columns = info->n_columns + 1;
    }
  r->parts = g_ptr_array_new_with_free_func ((GDestroyNotify) sl_report_free);
  return r;
}

/* Appends the rows of `part` (one rank's report, taken) behind `label`; a rank_sum part's own
 * Rank cell gives way to the label, or, where the part has several ranks (a file of several
 * processes with a rank each), joins it: "label · rank 3". */
static void
ranks_report_add (SlReport   *r,
                  SlReport   *part,
                  const char *label)
{
  gboolean has_rank = part->n_columns == r->n_columns;
  gsize rows = sl_report_get_n_rows (part);

  g_assert (part->n_columns + (has_rank ? 0 : 1) == r->n_columns);
  g_ptr_array_add (r->parts, part);
  label = g_string_chunk_insert_const (r->strings, label);
  for (gsize row = 0; row < rows; row++)
    {
      const SlCell *cells = &g_array_index (part->cells, SlCell, row * part->n_columns);
      if (has_rank && rows > 1 && cells[0].type == SL_CELL_TEXT)
        {
          g_autofree char *both = g_strdup_printf ("%s · %s", label, cells[0].v.s);
          _sl_report_add_text (r, g_string_chunk_insert_const (r->strings, both));
        }
      else
        _sl_report_add_text (r, label);
      g_array_append_vals (r->cells, has_rank ? cells + 1 : cells,
                           has_rank ? part->n_columns - 1 : part->n_columns);
    }
}

/* Adds a rank's report (`part`, taken), or, where it is NULL, notes that the rank lacks the data
 * (`part_error`, taken; the first such error kept in `*missing`): FALSE, with `error` set, only
 * on another error. */
static gboolean
ranks_report_add_computed (SlReport    *r,
                           SlReport    *part,
                           GError      *part_error,
                           const char  *label,
                           GError     **missing,
                           GError     **error)
{
  if (part != NULL)
    {
      ranks_report_add (r, part, label);
      return TRUE;
    }
  if (!g_error_matches (part_error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA))
    {
      g_propagate_error (error, part_error);
      return FALSE;
    }
  /* a rank without the data has no rows; the report is missing only when all lack it */
  if (*missing == NULL)
    *missing = part_error;
  else
    g_error_free (part_error);
  return TRUE;
}

/* `r`, or NULL with the first rank's SL_STATS_ERROR_NO_DATA when no rank had the data. */
static SlReport *
ranks_report_finish (SlReport  *r,
                     GError   **missing,
                     GError   **error)
{
  if (r->parts->len > 0)
    return r;
  g_propagate_error (error, g_steal_pointer (missing));
  sl_report_free (r);
  return NULL;
}

SlReport *
sl_report_compute_ranks (SlTrace *const    *traces,
                         const char *const *labels,
                         guint              n,
                         const char        *name,
                         GError           **error)
{
  g_return_val_if_fail (traces != NULL && labels != NULL && n > 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  const _SlReportInfo *info = _sl_report_info_find (name);
  if (info == NULL)
    return sl_report_compute (traces[0], name, error);

  SlReport *r = ranks_report_new (traces[0], info);
  g_autoptr (GError) missing = NULL;
  for (guint i = 0; i < n; i++)
    {
      GError *part_error = NULL;
      SlReport *part = sl_report_compute (traces[i], name, &part_error);
      if (!ranks_report_add_computed (r, part, part_error, labels[i], &missing, error))
        return sl_report_free (r), NULL;
    }
  return ranks_report_finish (r, &missing, error);
}

SlReport *
sl_report_compute_sources (SlTrace     *trace,
                           const char  *name,
                           SlTime       t0,
                           SlTime       t1,
                           GError     **error)
{
  g_return_val_if_fail (trace != NULL, NULL);

  /* one file, or an unknown name: the report as it is (its checks and error there) */
  const _SlReportInfo *info = _sl_report_info_find (name);
  guint n = sl_trace_get_n_sources (trace);
  if (info == NULL || n < 2)
    return sl_report_compute_range (trace, name, t0, t1, error);
  g_return_val_if_fail (t0 <= t1, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  SlReport *r = ranks_report_new (trace, info);
  g_autoptr (GError) missing = NULL;
  for (guint i = 0; i < n; i++)
    {
      GError *part_error = NULL;
      SlReport *part = info->compute (trace, info, t0, t1, (gint) i, &part_error);
      if (!ranks_report_add_computed (r, part, part_error, sl_trace_get_source (trace, i)->label,
                                      &missing, error))
        return sl_report_free (r), NULL;
    }
  return ranks_report_finish (r, &missing, error);
}
