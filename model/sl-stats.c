/* sl-stats.c: the report object of the `nsys stats` reports, and computing one by name over a
 * range.
 *
 * The reports themselves are a table (sl-stats-reports.c): a name, a title, the tables it reads, a
 * compute function and its columns.  Aggregates are in sl-stats-aggregate.c, writing in
 * sl-stats-write.c.
 */
#include "sl-stats-private.h"

#include <string.h>

G_DEFINE_QUARK (sl-stats-error-quark, sl_stats_error)

/* `nsys profile --stats=true` and `nsys stats` with no --report run these, in this order. */
static const char *const default_names[] = {
  "nvtx_sum", "osrt_sum", "cuda_api_sum", "cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum",
  "cuda_gpu_mem_size_sum", NULL
};

const char *const *
sl_report_names (void)
{
  /* the table's names, NULL-terminated; built once, never freed (a few pointers) */
  static const char **names;
  static gsize once;

  if (g_once_init_enter (&once))
    {
      names = g_new0 (const char *, _sl_n_report_infos + 1);
      for (guint i = 0; i < _sl_n_report_infos; i++)
        names[i] = _sl_report_infos[i].name;
      g_once_init_leave (&once, 1);
    }
  return names;
}

const char *const *
sl_report_default_names (void)
{
  return default_names;
}

/* nsys's report names before 2023.1 that it still takes, with a note, for the reports Sightline
 * has (../shared/reference/nsys-sqlite.md, section 6: nsys <= 2022.4 printed "Processing [...]
 * with [.../reports/gpukernsum.py]"; 2021-2022's list: "gpusum[:base|mangled] -- GPU Summary
 * (kernels + memory operations)"; nvtxppsum was 2021's push/pop summary; openaccsum and
 * openmpevtsum its OpenACC and OpenMP summaries). */
static const char *const legacy_names[][2] = {
  { "cudaapisum", "cuda_api_sum" },          { "cudaapitrace", "cuda_api_trace" },
  { "gpukernsum", "cuda_gpu_kern_sum" },     { "gpumemsizesum", "cuda_gpu_mem_size_sum" },
  { "gpumemtimesum", "cuda_gpu_mem_time_sum" }, { "gpusum", "cuda_gpu_sum" },
  { "gputrace", "cuda_gpu_trace" },          { "nvtxsum", "nvtx_sum" },
  { "osrtsum", "osrt_sum" },                { "nvtxppsum", "nvtx_pushpop_sum" },
  { "openaccsum", "openacc_sum" },          { "openmpevtsum", "openmp_sum" },
};

const char *
sl_report_name_current (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (legacy_names); i++)
    if (strcmp (legacy_names[i][0], name) == 0)
      return legacy_names[i][1];
  return NULL;
}

char *
sl_report_legacy_names_describe (void)
{
  GString *s = g_string_new (NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (legacy_names); i++)
    g_string_append_printf (s, "%s%s (%s)", i > 0 ? ", " : "", legacy_names[i][0],
                            legacy_names[i][1]);
  return g_string_free (s, FALSE);
}

gboolean
sl_report_name_is_valid (const char *name)
{
  return _sl_report_info_find (name) != NULL;
}

const char *
sl_report_name_get_title (const char *name)
{
  const _SlReportInfo *info = _sl_report_info_find (name);
  return info != NULL ? info->title : NULL;
}

/* What each report is for, one line of `stats --help` each (a report missing here shows its
 * title). */
static const char *const purposes[][2] = {
  { "cuda_api_gpu_sum", "CUDA API calls, kernels and memory operations in one time summary" },
  { "cuda_api_sum", "time in each CUDA runtime and driver API function" },
  { "cuda_api_trace", "every CUDA API call: start, duration, result, thread" },
  { "cuda_gpu_kern_gb_sum", "GPU time of each kernel per grid and block shape" },
  { "cuda_gpu_kern_sum", "GPU time of each kernel" },
  { "cuda_gpu_mem_size_sum", "bytes moved by each kind of memory copy and set" },
  { "cuda_gpu_mem_time_sum", "GPU time of each kind of memory copy and set" },
  { "cuda_gpu_sum", "kernels and memory operations in one GPU time summary" },
  { "cuda_gpu_trace", "every kernel, copy and set on the GPUs, in time order" },
  { "cuda_kern_exec_sum", "launch call, queue and run times of each kernel per thread" },
  { "cuda_kern_exec_trace", "every kernel with its launch call and queue delay" },
  { "gpu_metrics_kern_sum", "GPU metrics averaged over each kernel's run (Sightline's)" },
  { "gpu_metrics_sum", "GPU metrics averaged over the trace, per GPU (Sightline's)" },
  { "nvtx_gpu_proj_sum", "GPU time of the work each NVTX range launched, per range name" },
  { "nvtx_gpu_proj_trace", "every NVTX range projected onto the GPU work it launched" },
  { "nvtx_kern_sum", "kernels launched inside each NVTX range" },
  { "nvtx_pushpop_sum", "time in each NVTX push/pop range" },
  { "nvtx_pushpop_trace", "every NVTX push/pop range with its nesting and child time" },
  { "nvtx_startend_sum", "time in each NVTX start/end range" },
  { "nvtx_sum", "time in each NVTX range, push/pop and start/end" },
  { "openacc_sum", "time in each OpenACC event, by name and source line" },
  { "openmp_sum", "time in each OpenMP event (regions, tasks, barriers …), per table" },
  { "osrt_sum", "time in each OS runtime library call (read, poll, mutex waits …)" },
  { "rank_sum", "compute, communication and their overlap per rank (Sightline's)" },
  { "syscall_sum", "time in each system call (nsys's syscall tracing)" },
  { "um_cpu_page_faults_sum", "CPU page faults on unified memory by instruction" },
  { "um_sum", "unified memory faults and migrations by address" },
  { "um_total_sum", "unified memory migrations and faults in total" },
};

const char *
sl_report_name_get_purpose (const char *name)
{
  const _SlReportInfo *info = _sl_report_info_find (name);

  if (info == NULL)
    return NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (purposes); i++)
    if (strcmp (purposes[i][0], name) == 0)
      return purposes[i][1];
  return info->title;
}

SlLoadFlags
sl_report_needs (const char *name)
{
  const _SlReportInfo *info = _sl_report_info_find (name);
  return info != NULL ? info->needs : 0;
}

gboolean
sl_report_is_per_event (const char *name)
{
  const _SlReportInfo *info = _sl_report_info_find (name);
  return info != NULL && info->per_event;
}

SlReport *
_sl_report_new (SlTrace             *trace,
                const _SlReportInfo *info)
{
  SlReport *r = g_new0 (SlReport, 1);

  r->name = g_strdup (info->name);
  r->title = info->title;
  r->columns = info->columns;
  r->n_columns = info->n_columns;
  r->cells = g_array_new (FALSE, FALSE, sizeof (SlCell));
  r->strings = g_string_chunk_new (4096);
  r->trace = trace != NULL ? sl_trace_ref (trace) : NULL; /* NULL: its text is its own */
  return r;
}

void
sl_report_free (SlReport *report)
{
  if (report == NULL)
    return;
  g_free (report->name);
  g_array_unref (report->cells);
  g_string_chunk_free (report->strings);
  g_free (report->own_columns);
  if (report->parts != NULL)
    g_ptr_array_unref (report->parts);
  if (report->trace != NULL)
    sl_trace_unref (report->trace);
  g_free (report);
}

SlReport *
sl_report_copy (const SlReport *report)
{
  g_return_val_if_fail (report != NULL, NULL);

  SlReport *r = g_new0 (SlReport, 1);
  r->name = g_strdup (report->name);
  r->n_columns = report->n_columns;
  r->own_columns = report->own_columns != NULL
                     ? g_memdup2 (report->own_columns, sizeof (_SlColumn) * report->n_columns)
                     : NULL;
  r->columns = r->own_columns != NULL ? r->own_columns : report->columns;
  r->strings = g_string_chunk_new (4096);
  r->title = report->title != NULL ? g_string_chunk_insert_const (r->strings, report->title) : NULL;
  r->cells = g_array_sized_new (FALSE, FALSE, sizeof (SlCell), report->cells->len);
  g_array_append_vals (r->cells, report->cells->data, report->cells->len);
  for (guint i = 0; i < r->cells->len; i++)
    {
      SlCell *cell = &g_array_index (r->cells, SlCell, i);
      if (cell->type == SL_CELL_TEXT && cell->v.s != NULL)
        cell->v.s = g_string_chunk_insert_const (r->strings, cell->v.s);
    }
  return r;
}

const char *
sl_report_get_name (const SlReport *report)
{
  g_return_val_if_fail (report != NULL, NULL);
  return report->name;
}

const char *
sl_report_get_title (const SlReport *report)
{
  g_return_val_if_fail (report != NULL, NULL);
  return report->title;
}

guint
sl_report_get_n_columns (const SlReport *report)
{
  g_return_val_if_fail (report != NULL, 0);
  return report->n_columns;
}

const char *
sl_report_get_column (const SlReport *report,
                      guint           column)
{
  g_return_val_if_fail (report != NULL && column < report->n_columns, NULL);
  return report->columns[column].header;
}

SlUnit
sl_report_get_column_unit (const SlReport *report,
                           guint           column)
{
  g_return_val_if_fail (report != NULL && column < report->n_columns, SL_UNIT_NONE);
  return report->columns[column].unit;
}

gint
sl_report_find_column (const SlReport *report,
                       const char     *header)
{
  g_return_val_if_fail (report != NULL, -1);
  for (guint i = 0; i < report->n_columns; i++)
    if (g_strcmp0 (report->columns[i].header, header) == 0)
      return (gint) i;
  return -1;
}

gsize
sl_report_get_n_rows (const SlReport *report)
{
  g_return_val_if_fail (report != NULL, 0);
  return report->cells->len / report->n_columns;
}

const SlCell *
sl_report_get_cell (const SlReport *report,
                    gsize           row,
                    guint           column)
{
  g_return_val_if_fail (report != NULL && column < report->n_columns, NULL);
  g_return_val_if_fail (row < sl_report_get_n_rows (report), NULL);
  return &g_array_index (report->cells, SlCell, row * report->n_columns + column);
}

SlReport *
sl_report_compute_range (SlTrace     *trace,
                         const char  *name,
                         SlTime       t0,
                         SlTime       t1,
                         GError     **error)
{
  g_return_val_if_fail (trace != NULL, NULL);
  g_return_val_if_fail (t0 <= t1, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  const _SlReportInfo *info = _sl_report_info_find (name);
  if (info == NULL)
    {
      g_autofree char *valid = g_strjoinv (", ", (char **) sl_report_names ());
      g_set_error (error, SL_STATS_ERROR, SL_STATS_ERROR_UNKNOWN_REPORT,
                   "Unknown report '%s'; valid reports are: %s", name != NULL ? name : "(null)",
                   valid);
      return NULL;
    }
  return info->compute (trace, info, t0, t1, -1, error);
}

SlReport *
sl_report_compute (SlTrace     *trace,
                   const char  *name,
                   GError     **error)
{
  return sl_report_compute_range (trace, name, G_MININT64, G_MAXINT64, error);
}
