/* sl-stats-reports.c: the reports of `nsys stats`, computed by walking the model's lanes, and
 * their table.
 *
 * Each report reproduces the SQL of NVIDIA's report scripts (nsys 2024.x, the Python scripts
 * under `reports/`; see shared/reference/nsys-sqlite.md §6): same grouping, same columns, same
 * rounding (SQLite's round()), same sort order, with the aggregates of sl-stats-aggregate.c.
 * Every report reads the events that start in [t0, t1): two binary searches per lane, so a
 * range costs what it holds; the whole trace is [G_MININT64, G_MAXINT64) and walks every event.
 *
 * Where nsys leaves the order of equal sort keys to SQLite, we break ties by the name columns
 * (then the other group keys) so that the output is deterministic; tests/test-stats.c's SQL
 * oracle adds the same tie-breakers.  Sizes: a summary has one group per distinct name (10^1 …
 * 10^4); cuda_gpu_trace has one row per GPU operation (up to 10^7).
 */
#include "sl-stats-private.h"

#include <string.h>

#include "sl-lane.h"

/* ---------------------------------------------------------------------------------------- */
/* Summaries grouped by a name                                                              */

static const _SlColumn summary_columns_instances[] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS },
  { "Instances", SL_UNIT_NONE }, { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS },
  { "Min (ns)", SL_UNIT_DUR_NS }, { "Max (ns)", SL_UNIT_DUR_NS }, { "StdDev (ns)", SL_UNIT_DUR_NS },
  { "Name", SL_UNIT_NONE },
};

static const _SlColumn summary_columns_calls[] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS },
  { "Num Calls", SL_UNIT_NONE }, { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS },
  { "Min (ns)", SL_UNIT_DUR_NS }, { "Max (ns)", SL_UNIT_DUR_NS }, { "StdDev (ns)", SL_UNIT_DUR_NS },
  { "Name", SL_UNIT_NONE },
};

static const _SlColumn summary_columns_memtime[] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS }, { "Count", SL_UNIT_NONE },
  { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS }, { "Min (ns)", SL_UNIT_DUR_NS },
  { "Max (ns)", SL_UNIT_DUR_NS }, { "StdDev (ns)", SL_UNIT_DUR_NS }, { "Operation", SL_UNIT_NONE },
};

static const _SlColumn summary_columns_nvtx[] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS },
  { "Instances", SL_UNIT_NONE }, { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS },
  { "Min (ns)", SL_UNIT_DUR_NS }, { "Max (ns)", SL_UNIT_DUR_NS }, { "StdDev (ns)", SL_UNIT_DUR_NS },
  { "Style", SL_UNIT_NONE },
  { "Range", SL_UNIT_NONE },
};

/* nvtx_pushpop_sum, nvtx_startend_sum: nvtx_sum's without Style */
static const _SlColumn summary_columns_nvtx_range[] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS },
  { "Instances", SL_UNIT_NONE }, { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS },
  { "Min (ns)", SL_UNIT_DUR_NS }, { "Max (ns)", SL_UNIT_DUR_NS }, { "StdDev (ns)", SL_UNIT_DUR_NS },
  { "Range", SL_UNIT_NONE },
};

static const _SlColumn summary_columns_category[] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS },
  { "Instances", SL_UNIT_NONE }, { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS },
  { "Min (ns)", SL_UNIT_DUR_NS }, { "Max (ns)", SL_UNIT_DUR_NS }, { "StdDev (ns)", SL_UNIT_DUR_NS },
  { "Category", SL_UNIT_NONE },
  { "Operation", SL_UNIT_NONE },
};

static const _SlColumn summary_columns_grid_block[] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS },
  { "Instances", SL_UNIT_NONE }, { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS },
  { "Min (ns)", SL_UNIT_DUR_NS }, { "Max (ns)", SL_UNIT_DUR_NS }, { "StdDev (ns)", SL_UNIT_DUR_NS },
  { "GridXYZ", SL_UNIT_NONE }, { "BlockXYZ", SL_UNIT_NONE },
  { "Name", SL_UNIT_NONE },
};

static const _SlColumn summary_columns_memsize[] = {
  { "Total (MB)", SL_UNIT_MEM_B }, { "Count", SL_UNIT_NONE }, { "Avg (MB)", SL_UNIT_MEM_B },
  { "Med (MB)", SL_UNIT_MEM_B }, { "Min (MB)", SL_UNIT_MEM_B }, { "Max (MB)", SL_UNIT_MEM_B },
  { "StdDev (MB)", SL_UNIT_MEM_B }, { "Operation", SL_UNIT_NONE },
};

/* A time summary's first eight columns for one group: round(total * 100.0 / sum(total), 1),
 * total, count, round(avg, 1), round(median, 1), min, max, round(stdev, 1). */
static void
summary_row (SlReport *r,
             _SlAcc   *acc,
             gint64    grand)
{
  /* sum(total) of 0 makes SQL's division NULL */
  if (grand != 0)
    _sl_report_add_double (r, sl_stats_round ((double) acc->total * 100.0 / (double) grand, 1));
  else
    _sl_report_add_null (r);
  _sl_report_add_int (r, acc->total);
  _sl_report_add_int (r, acc->n);
  _sl_report_add_double (r, sl_stats_round (_sl_acc_avg (acc), 1));
  _sl_report_add_double (r, sl_stats_round (_sl_acc_median (acc), 1));
  _sl_report_add_int (r, acc->min);
  _sl_report_add_int (r, acc->max);
  _sl_report_add_double (r, sl_stats_round (_sl_acc_stdev (acc), 1));
}

/* The time summaries: summary_row, then the name column(s). */
static SlReport *
summary_emit (SlReport        *r,
              _SlGroups       *gs,
              _SlSummaryOrder  order)
{
  gint64 grand = 0;

  for (guint i = 0; i < gs->groups->len; i++)
    grand = _sl_time_add (grand, ((_SlGroup *) g_ptr_array_index (gs->groups, i))->acc.total);
  _sl_groups_sort (gs, order);
  for (guint i = 0; i < gs->groups->len; i++)
    {
      _SlGroup *g = g_ptr_array_index (gs->groups, i);
      summary_row (r, &g->acc, grand);
      if (g->style != NULL)
        _sl_report_add_text (r, g->style);
      _sl_report_add_text (r, g->name);
    }
  return r;
}

SlReport *
_sl_stats_summary_emit (SlReport        *r,
                        _SlGroups       *gs,
                        _SlSummaryOrder  order)
{
  return summary_emit (r, gs, order);
}

/* Merges the groups of equal `name` text into the first of them, which keeps its `style` (SQL
 * groups by the text, the model by string id; where two categories share a name, nsys's bare
 * Category column is one of theirs, which SQLite does not say): the later ones' values are added
 * to the first's, in their order.  A pass over the groups, not the events. */
static void
groups_merge_by_name (_SlGroups *gs)
{
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < gs->groups->len;)
    {
      _SlGroup *g = g_ptr_array_index (gs->groups, i);
      _SlGroup *first = g_hash_table_lookup (by_name, g->name);
      if (first == NULL)
        {
          g_hash_table_insert (by_name, (gpointer) g->name, g);
          i++;
          continue;
        }
      for (guint k = 0; k < g->acc.values->len; k++)
        _sl_acc_add (&first->acc, g_array_index (g->acc.values, gint64, k));
      g_ptr_array_remove_index (gs->groups, i);
    }
}

gboolean
_sl_stats_trace_has (SlTrace    *trace,
                     SlLaneKind  kind,
                     gint        source)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind == kind && lane->n_events > 0 && _sl_stats_lane_in (lane, source))
        return TRUE;
    }
  return FALSE;
}

guint32
_sl_stats_lane_device_id (SlTrace      *trace,
                          const SlLane *lane)
{
  if (lane->gpu >= 0 && (guint) lane->gpu < sl_trace_get_n_gpus (trace))
    return sl_trace_get_gpu (trace, lane->gpu)->device_id;
  return 0;
}

gboolean
_sl_stats_no_data (SlTrace     *trace,
                   GError     **error,
                   const char  *what)
{
  g_set_error (error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA, "%s does not contain %s.",
               sl_trace_get_path (trace), what);
  return FALSE;
}

/* The events of `kind` (or `also`) lanes that start in [t0, t1), grouped by event name: their
 * durations, or their bytes (memcpy and memset).  The MemOps summaries' names "[CUDA memcpy
 * <label>]" and "[CUDA memset]" are the lanes' event names already. */
static void
group_events (SlTrace    *trace,
              SlLaneKind  kind,
              SlLaneKind  also,
              gboolean    by_size,
              SlTime      t0,
              SlTime      t1,
              gint        source,
              _SlGroups  *gs)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if ((lane->kind != kind && lane->kind != also) || !_sl_stats_lane_in (lane, source))
        continue;
      gsize first, end;
      _sl_stats_lane_range (lane, t0, t1, &first, &end);
      for (gsize k = first; k < end; k++)
        {
          const SlEvent *ev = &lane->events[k];
          _SlGroup *g = _sl_groups_by_id (gs, ev->name);
          if (by_size)
            {
              const SlCopyInfo *info = sl_trace_get_copy_info (trace, ev->aux);
              _sl_acc_add (&g->acc, info != NULL ? (gint64) info->bytes : 0);
            }
          else
            _sl_acc_add (&g->acc, ev->end - ev->start);
        }
    }
  for (guint i = 0; i < gs->groups->len; i++)
    {
      _SlGroup *g = g_ptr_array_index (gs->groups, i);
      g->name = sl_trace_str (trace, g->key);
    }
}

/* cuda_gpu_kern_sum, osrt_sum, cuda_gpu_mem_time_sum: the durations of the events of the table
 * row's lanes, grouped by name; NULL and the row's `what` in the error when the trace has none.
 *   cuda_gpu_kern_sum: kernels GROUP BY name (the demangled name, nsys's default);
 *   osrt_sum: OSRT_API WHERE eventClass == 27 GROUP BY nameId (the model keeps only class 27);
 *   cuda_gpu_mem_time_sum: memcpy and memset GROUP BY their "[CUDA memcpy <label>]" names. */
static SlReport *
compute_time_summary (SlTrace             *trace,
                      const _SlReportInfo *info,
                      SlTime               t0,
                      SlTime               t1,
                      gint                 source,
                      GError             **error)
{
  _SlGroups gs;

  if (!_sl_stats_trace_has (trace, info->kind, source)
      && !_sl_stats_trace_has (trace, info->also, source))
    return _sl_stats_no_data (trace, error, info->what), NULL;
  _sl_groups_init (&gs);
  group_events (trace, info->kind, info->also, FALSE, t0, t1, source, &gs);
  SlReport *r = summary_emit (_sl_report_new (trace, info), &gs, info->order);
  _sl_groups_clear (&gs);
  return r;
}

/* cuda_api_sum: CUPTI_ACTIVITY_KIND_RUNTIME (runtime and driver) GROUP BY nameId; the name
 * shown loses its "_vNNNN" suffix, but two ids that strip to the same text stay two rows. */
static SlReport *
compute_api_sum (SlTrace             *trace,
                 const _SlReportInfo *info,
                 SlTime               t0,
                 SlTime               t1,
                 gint                 source,
                 GError             **error)
{
  _SlGroups gs;

  if (!_sl_stats_trace_has (trace, SL_LANE_CUDA_API, source))
    return _sl_stats_no_data (trace, error, "CUDA trace data"), NULL;
  _sl_groups_init (&gs);
  group_events (trace, SL_LANE_CUDA_API, SL_LANE_CUDA_API, FALSE, t0, t1, source, &gs);
  SlReport *r = _sl_report_new (trace, info);
  for (guint i = 0; i < gs.groups->len; i++)
    {
      _SlGroup *g = g_ptr_array_index (gs.groups, i);
      g->name = g_string_chunk_insert_len (r->strings, g->name, _sl_api_name_length (g->name));
    }
  summary_emit (r, &gs, _SL_ORDER_TOTAL_DESC);
  _sl_groups_clear (&gs);
  return r;
}

/* cuda_gpu_mem_size_sum: sum(bytes), count, avg, median, min, max, stdev, none rounded in SQL
 * (the formatter shows MB); ORDER BY 1 DESC. */
static SlReport *
compute_mem_size_sum (SlTrace             *trace,
                      const _SlReportInfo *info,
                      SlTime               t0,
                      SlTime               t1,
                      gint                 source,
                      GError             **error)
{
  _SlGroups gs;

  if (!_sl_stats_trace_has (trace, SL_LANE_MEMCPY, source)
      && !_sl_stats_trace_has (trace, SL_LANE_MEMSET, source))
    return _sl_stats_no_data (trace, error, "GPU memory data"), NULL;
  _sl_groups_init (&gs);
  group_events (trace, SL_LANE_MEMCPY, SL_LANE_MEMSET, TRUE, t0, t1, source, &gs);
  SlReport *r = _sl_report_new (trace, info);
  _sl_groups_sort (&gs, _SL_ORDER_TOTAL_DESC);
  for (guint i = 0; i < gs.groups->len; i++)
    {
      _SlGroup *g = g_ptr_array_index (gs.groups, i);
      _sl_report_add_int (r, g->acc.total);
      _sl_report_add_int (r, g->acc.n);
      _sl_report_add_double (r, _sl_acc_avg (&g->acc));
      _sl_report_add_double (r, _sl_acc_median (&g->acc));
      _sl_report_add_int (r, g->acc.min);
      _sl_report_add_int (r, g->acc.max);
      _sl_report_add_double (r, _sl_acc_stdev (&g->acc));
      _sl_report_add_text (r, g->name);
    }
  _sl_groups_clear (&gs);
  return r;
}

/*
 * cuda_gpu_sum ("CUDA GPU Summary (Kernels/MemOps)") and cuda_api_gpu_sum ("CUDA Summary
 * (API/Kernels/MemOps)"), from NVIDIA's cuda_gpu_sum.py and cuda_api_gpu_sum.py: the UNION ALL
 * of the CUDA API calls (cuda_api_gpu_sum only: name without "_vNNNN", category 'CUDA_API'), the
 * kernels (demangled name, 'CUDA_KERNEL'), the memcpys ("[CUDA memcpy <label>]") and memsets
 * ("[CUDA memset]", both 'MEMORY_OPER'), GROUP BY the name text alone, then the time summary
 * with Category before Operation; ORDER BY 2 DESC (ties: Operation, Category).  Unlike
 * cuda_api_sum, two API name ids that strip to one text are one row here.  Graph launches
 * (CUPTI_ACTIVITY_KIND_GRAPH_TRACE, nsys --cuda-graph-trace=graph) are not in nsys's SQL, so not
 * here: their cudaGraphLaunch calls are, and with --cuda-graph-trace=node so are the kernels.
 */
static SlReport *
compute_category_sum (SlTrace             *trace,
                      const _SlReportInfo *info,
                      SlTime               t0,
                      SlTime               t1,
                      gint                 source,
                      GError             **error)
{
  gboolean with_api = info->kind == SL_LANE_CUDA_API;
  _SlGroups gs;

  if ((!with_api || !_sl_stats_trace_has (trace, SL_LANE_CUDA_API, source))
      && !_sl_stats_trace_has (trace, SL_LANE_KERNELS, source)
      && !_sl_stats_trace_has (trace, SL_LANE_MEMCPY, source)
      && !_sl_stats_trace_has (trace, SL_LANE_MEMSET, source))
    return _sl_stats_no_data (trace, error, info->what), NULL;
  _sl_groups_init (&gs);
  SlReport *r = _sl_report_new (trace, info);
  /* the GPU operations first: the API pass below names every group by its id again, which
   * leaves theirs as they are (a memop that shares a kernel's name id joins its group, as SQL's
   * GROUP BY name would) */
  group_events (trace, SL_LANE_KERNELS, SL_LANE_KERNELS, FALSE, t0, t1, source, &gs);
  guint n_kernels = gs.groups->len;
  group_events (trace, SL_LANE_MEMCPY, SL_LANE_MEMSET, FALSE, t0, t1, source, &gs);
  guint n_gpu = gs.groups->len;
  for (guint i = 0; i < n_gpu; i++)
    ((_SlGroup *) g_ptr_array_index (gs.groups, i))->style = i < n_kernels ? "CUDA_KERNEL"
                                                                            : "MEMORY_OPER";
  if (with_api)
    {
      /* API groups of their own even where an id is a kernel's: their names are stripped */
      g_ptr_array_set_size (gs.by_id, 0);
      group_events (trace, SL_LANE_CUDA_API, SL_LANE_CUDA_API, FALSE, t0, t1, source, &gs);
      for (guint i = n_gpu; i < gs.groups->len; i++)
        {
          _SlGroup *g = g_ptr_array_index (gs.groups, i);
          g->name = g_string_chunk_insert_len (r->strings, g->name, _sl_api_name_length (g->name));
          g->style = "CUDA_API";
        }
    }
  groups_merge_by_name (&gs);
  summary_emit (r, &gs, _SL_ORDER_TOTAL_DESC);
  _sl_groups_clear (&gs);
  return r;
}

/*
 * cuda_gpu_kern_gb_sum ("CUDA GPU Kernel/Grid/Block Summary", NVIDIA's cuda_gpu_kern_gb_sum.py):
 * the kernels GROUP BY name, gridX, gridY, gridZ, blockX, blockY, blockZ; the time summary, then
 * GridXYZ and BlockXYZ as printf('%4d %4d %4d'), then Name; ORDER BY 2 DESC, 3, "Name" (ties:
 * GridXYZ, BlockXYZ).  One group per kernel name and launch shape (10^1 … 10^4).
 */
typedef struct
{
  guint32 name;
  guint32 dims[6];  /* grid x, y, z, block x, y, z */
} GbKey;

typedef struct
{
  GbKey       key;
  _SlAcc      acc;
  const char *name;
  char        grid[40];   /* three %4u and two spaces: at most 3 * 10 + 2 characters */
  char        block[40];
} GbGroup;

static guint
gb_key_hash (gconstpointer p)
{
  const GbKey *k = p;
  guint h = k->name;
  for (int d = 0; d < 6; d++)
    h = h * 31u + k->dims[d];
  return h;
}

static gboolean
gb_key_equal (gconstpointer pa,
              gconstpointer pb)
{
  return memcmp (pa, pb, sizeof (GbKey)) == 0;
}

static void
gb_group_free (gpointer p)
{
  GbGroup *g = p;
  _sl_acc_clear (&g->acc);
  g_free (g);
}

static int
compare_gb_groups (gconstpointer pa,
                   gconstpointer pb)
{
  const GbGroup *a = *(const GbGroup *const *) pa;
  const GbGroup *b = *(const GbGroup *const *) pb;
  int c;

  if (a->acc.total != b->acc.total)
    return a->acc.total > b->acc.total ? -1 : 1;
  if (a->acc.n != b->acc.n)
    return a->acc.n < b->acc.n ? -1 : 1;
  if ((c = strcmp (a->name, b->name)) != 0)
    return c;
  if ((c = strcmp (a->grid, b->grid)) != 0)
    return c;
  return strcmp (a->block, b->block);
}

static SlReport *
compute_kern_gb_sum (SlTrace             *trace,
                     const _SlReportInfo *info,
                     SlTime               t0,
                     SlTime               t1,
                     gint                 source,
                     GError             **error)
{
  if (!_sl_stats_trace_has (trace, SL_LANE_KERNELS, source))
    return _sl_stats_no_data (trace, error, "CUDA kernel data"), NULL;

  SlReport *r = _sl_report_new (trace, info);
  g_autoptr (GHashTable) groups = g_hash_table_new_full (gb_key_hash, gb_key_equal, NULL,
                                                         gb_group_free);
  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();
  gint64 grand = 0;

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_KERNELS || !_sl_stats_lane_in (lane, source))
        continue;
      gsize first, end;
      _sl_stats_lane_range (lane, t0, t1, &first, &end);
      for (gsize k = first; k < end; k++)
        {
          const SlEvent *ev = &lane->events[k];
          const SlKernelInfo *ki = sl_trace_get_kernel_info (trace, ev->aux);
          /* a kernel without launch details prints as SQL's printf does NULL: 0 */
          GbKey key = { ev->name, { 0 } };
          if (ki != NULL)
            for (int d = 0; d < 3; d++)
              {
                key.dims[d] = ki->grid[d];
                key.dims[3 + d] = ki->block[d];
              }
          GbGroup *g = g_hash_table_lookup (groups, &key);
          if (g == NULL)
            {
              g = g_new0 (GbGroup, 1);
              g->key = key;
              _sl_acc_init (&g->acc);
              g->name = sl_trace_str (trace, ev->name);
              g_snprintf (g->grid, sizeof g->grid, "%4u %4u %4u", key.dims[0], key.dims[1],
                          key.dims[2]);
              g_snprintf (g->block, sizeof g->block, "%4u %4u %4u", key.dims[3], key.dims[4],
                          key.dims[5]);
              g_hash_table_insert (groups, &g->key, g);
              g_ptr_array_add (sorted, g);
            }
          _sl_acc_add (&g->acc, ev->end - ev->start);
        }
    }
  for (guint i = 0; i < sorted->len; i++)
    grand = _sl_time_add (grand, ((GbGroup *) g_ptr_array_index (sorted, i))->acc.total);
  g_ptr_array_sort (sorted, compare_gb_groups);
  for (guint i = 0; i < sorted->len; i++)
    {
      GbGroup *g = g_ptr_array_index (sorted, i);
      summary_row (r, &g->acc, grand);
      _sl_report_add_text (r, g_string_chunk_insert_const (r->strings, g->grid));
      _sl_report_add_text (r, g_string_chunk_insert_const (r->strings, g->block));
      _sl_report_add_text (r, g->name);
    }
  return r;
}

/* Which NVTX ranges an NVTX summary reads: nvtx_sum both styles, nvtx_pushpop_sum push/pop
 * ranges (eventType 59, 70), nvtx_startend_sum start/end ranges (60, 71). */
typedef enum
{
  NVTX_BOTH,
  NVTX_PUSH_POP,
  NVTX_START_END,
} NvtxStyles;

static inline gboolean
nvtx_style_in (const SlEvent *ev,
               NvtxStyles     styles)
{
  if (ev->link & SL_NVTX_MARK)
    return FALSE;
  if (styles == NVTX_BOTH)
    return TRUE;
  return ((ev->link & SL_NVTX_START_END) != 0) == (styles == NVTX_START_END);
}

/* Whether the trace (source `source`, -1: any) has a range of `styles`. */
static gboolean
nvtx_has_ranges (SlTrace    *trace,
                 NvtxStyles  styles,
                 gint        source)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_NVTX || !_sl_stats_lane_in (lane, source))
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        if (nvtx_style_in (&lane->events[k], styles))
          return TRUE;
    }
  return FALSE;
}

/* nvtx_sum: push/pop and start/end ranges (not marks) GROUP BY tag, style, where tag is
 * "domain:text", or "text" in the default domain (nsys's published outputs; the 2024 script
 * would print ":text").  Unterminated ranges already end at the last NVTX timestamp.
 * nvtx_pushpop_sum and nvtx_startend_sum (NVIDIA's nvtx_pushpop_sum.py, nvtx_startend_sum.py):
 * the ranges of one style GROUP BY tag alone, no Style column, ORDER BY 2 DESC (ties: Range);
 * a trace without a range of that style has no data for them. */
static SlReport *
nvtx_summary (SlTrace             *trace,
              const _SlReportInfo *info,
              SlTime               t0,
              SlTime               t1,
              gint                 source,
              NvtxStyles           styles,
              GError             **error)
{
  _SlGroups gs;

  if (!_sl_stats_trace_has (trace, SL_LANE_NVTX, source))
    return _sl_stats_no_data (trace, error, "NV Tools Extension (NVTX) data"), NULL;
  if (styles != NVTX_BOTH && !nvtx_has_ranges (trace, styles, source))
    return _sl_stats_no_data (trace, error, styles == NVTX_PUSH_POP ? "NVTX push/pop ranges"
                                                                    : "NVTX start/end ranges"),
           NULL;
  _sl_groups_init (&gs);
  SlReport *r = _sl_report_new (trace, info);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_NVTX || !_sl_stats_lane_in (lane, source))
        continue;
      gsize first, end;
      _sl_stats_lane_range (lane, t0, t1, &first, &end);
      for (gsize k = first; k < end; k++)
        {
          const SlEvent *ev = &lane->events[k];
          if (!nvtx_style_in (ev, styles))
            continue;
          gboolean start_end = (ev->link & SL_NVTX_START_END) != 0;
          guint64 key = ((guint64) ev->corr << 33) | ((guint64) ev->name << 1)
                        | (start_end ? 1 : 0);
          gboolean created;
          _SlGroup *g = _sl_groups_by_key (&gs, key, &created);
          if (created)
            {
              const char *text = sl_trace_str (trace, ev->name);
              if (ev->corr != SL_NO_STR)
                {
                  g_autofree char *tag = g_strconcat (sl_trace_str (trace, ev->corr), ":", text,
                                                      NULL);
                  g->name = g_string_chunk_insert_const (r->strings, tag);
                }
              else
                g->name = text;
              g->style = start_end ? "StartEnd" : "PushPop";
            }
          _sl_acc_add (&g->acc, ev->end - ev->start);
        }
    }
  /* two (domain, text) pairs can make the same tag ("a:b" + "c" and "a" + "b:c"): merge them,
   * since SQL groups by the tag text */
  g_autoptr (GHashTable) by_tag = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < gs.groups->len;)
    {
      _SlGroup *g = g_ptr_array_index (gs.groups, i);
      g_autofree char *tag = g_strconcat (g->style, "\n", g->name, NULL);
      _SlGroup *first = g_hash_table_lookup (by_tag, tag);
      if (first == NULL)
        {
          g_hash_table_insert (by_tag, g_string_chunk_insert_const (r->strings, tag), g);
          i++;
          continue;
        }
      for (guint k = 0; k < g->acc.values->len; k++)
        _sl_acc_add (&first->acc, g_array_index (g->acc.values, gint64, k));
      g_ptr_array_remove_index (gs.groups, i);
    }
  if (styles != NVTX_BOTH)
    for (guint i = 0; i < gs.groups->len; i++)
      ((_SlGroup *) g_ptr_array_index (gs.groups, i))->style = NULL;
  summary_emit (r, &gs, _SL_ORDER_TOTAL_DESC);
  _sl_groups_clear (&gs);
  return r;
}

static SlReport *
compute_nvtx_sum (SlTrace             *trace,
                  const _SlReportInfo *info,
                  SlTime               t0,
                  SlTime               t1,
                  gint                 source,
                  GError             **error)
{
  return nvtx_summary (trace, info, t0, t1, source, NVTX_BOTH, error);
}

static SlReport *
compute_nvtx_pushpop_sum (SlTrace             *trace,
                          const _SlReportInfo *info,
                          SlTime               t0,
                          SlTime               t1,
                          gint                 source,
                          GError             **error)
{
  return nvtx_summary (trace, info, t0, t1, source, NVTX_PUSH_POP, error);
}

static SlReport *
compute_nvtx_startend_sum (SlTrace             *trace,
                           const _SlReportInfo *info,
                           SlTime               t0,
                           SlTime               t1,
                           gint                 source,
                           GError             **error)
{
  return nvtx_summary (trace, info, t0, t1, source, NVTX_START_END, error);
}

/* ---------------------------------------------------------------------------------------- */
/* cuda_gpu_trace                                                                           */

static const _SlColumn trace_columns[] = {
  { "Start (ns)", SL_UNIT_TS_NS }, { "Duration (ns)", SL_UNIT_DUR_NS }, { "CorrId", SL_UNIT_NONE },
  { "GrdX", SL_UNIT_NONE }, { "GrdY", SL_UNIT_NONE }, { "GrdZ", SL_UNIT_NONE },
  { "BlkX", SL_UNIT_NONE }, { "BlkY", SL_UNIT_NONE }, { "BlkZ", SL_UNIT_NONE },
  { "Reg/Trd", SL_UNIT_NONE }, { "StcSMem (MB)", SL_UNIT_MEM_B }, { "DymSMem (MB)", SL_UNIT_MEM_B },
  { "Bytes (MB)", SL_UNIT_MEM_B }, { "Throughput (MBps)", SL_UNIT_THRU_B },
  { "SrcMemKd", SL_UNIT_NONE }, { "DstMemKd", SL_UNIT_NONE }, { "Device", SL_UNIT_NONE },
  { "Ctx", SL_UNIT_NONE }, { "GreenCtx", SL_UNIT_NONE }, { "Strm", SL_UNIT_NONE },
  { "Name", SL_UNIT_NONE },
};

typedef struct
{
  const SlLane *lane;
  gsize         index;
  guint32       device_id;
} TraceRow;

static int
lane_kind_rank (SlLaneKind kind)
{
  /* UNION ALL order of the script: kernels, memcpys, memsets */
  return kind == SL_LANE_KERNELS ? 0 : kind == SL_LANE_MEMCPY ? 1 : 2;
}

static int
compare_trace_rows (gconstpointer pa,
                    gconstpointer pb)
{
  const TraceRow *a = pa, *b = pb;
  const SlEvent *ea = &a->lane->events[a->index], *eb = &b->lane->events[b->index];

  /* ORDER BY start; ties (not ordered by nsys) by kind, device, context, stream, corr, end */
  if (ea->start != eb->start)
    return ea->start < eb->start ? -1 : 1;
  int ka = lane_kind_rank (a->lane->kind), kb = lane_kind_rank (b->lane->kind);
  if (ka != kb)
    return ka - kb;
  if (a->device_id != b->device_id)
    return a->device_id < b->device_id ? -1 : 1;
  if (a->lane->context_id != b->lane->context_id)
    return a->lane->context_id < b->lane->context_id ? -1 : 1;
  if (a->lane->stream_id != b->lane->stream_id)
    return a->lane->stream_id < b->lane->stream_id ? -1 : 1;
  if (ea->corr != eb->corr)
    return ea->corr < eb->corr ? -1 : 1;
  if (ea->end != eb->end)
    return ea->end < eb->end ? -1 : 1;
  return 0;
}

static SlReport *
compute_gpu_trace (SlTrace             *trace,
                   const _SlReportInfo *info,
                   SlTime               t0,
                   SlTime               t1,
                   gint                 source,
                   GError             **error)
{
  if (!_sl_stats_trace_has (trace, SL_LANE_KERNELS, source)
      && !_sl_stats_trace_has (trace, SL_LANE_MEMCPY, source)
      && !_sl_stats_trace_has (trace, SL_LANE_MEMSET, source))
    return _sl_stats_no_data (trace, error, "GPU trace data"), NULL;

  SlReport *r = _sl_report_new (trace, info);
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (TraceRow));
  g_autoptr (GPtrArray) devices = g_ptr_array_new ();  /* "name (id)" per GPU index */

  for (guint i = 0; i < sl_trace_get_n_gpus (trace); i++)
    {
      const SlGpu *gpu = sl_trace_get_gpu (trace, i);
      /* printf('%s (%d)', gpu.name, deviceId) */
      g_autofree char *label = g_strdup_printf ("%s (%u)", sl_trace_str (trace, gpu->name),
                                                gpu->device_id);
      g_ptr_array_add (devices, g_string_chunk_insert_const (r->strings, label));
    }
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if ((lane->kind != SL_LANE_KERNELS && lane->kind != SL_LANE_MEMCPY
           && lane->kind != SL_LANE_MEMSET) || !_sl_stats_lane_in (lane, source))
        continue;
      guint32 device_id = _sl_stats_lane_device_id (trace, lane);
      gsize first, end;
      _sl_stats_lane_range (lane, t0, t1, &first, &end);
      for (gsize k = first; k < end; k++)
        {
          TraceRow row = { lane, k, device_id };
          g_array_append_val (rows, row);
        }
    }
  g_array_sort (rows, compare_trace_rows);
  g_array_set_size (r->cells, 0);
  for (guint i = 0; i < rows->len; i++)
    {
      const TraceRow *row = &g_array_index (rows, TraceRow, i);
      const SlLane *lane = row->lane;
      const SlEvent *ev = &lane->events[row->index];
      gint64 duration = ev->end - ev->start;

      _sl_report_add_int (r, ev->start);
      _sl_report_add_int (r, duration);
      _sl_report_add_int (r, ev->corr);
      if (lane->kind == SL_LANE_KERNELS)
        {
          const SlKernelInfo *k = sl_trace_get_kernel_info (trace, ev->aux);
          for (int d = 0; d < 3; d++)
            k != NULL ? _sl_report_add_int (r, k->grid[d]) : _sl_report_add_null (r);
          for (int d = 0; d < 3; d++)
            k != NULL ? _sl_report_add_int (r, k->block[d]) : _sl_report_add_null (r);
          k != NULL ? _sl_report_add_int (r, k->registers_per_thread) : _sl_report_add_null (r);
          k != NULL ? _sl_report_add_int (r, k->static_shared) : _sl_report_add_null (r);
          k != NULL ? _sl_report_add_int (r, k->dynamic_shared) : _sl_report_add_null (r);
          _sl_report_add_null (r);   /* Bytes */
          _sl_report_add_null (r);   /* Throughput */
          _sl_report_add_null (r);   /* SrcMemKd */
          _sl_report_add_null (r);   /* DstMemKd */
        }
      else
        {
          const SlCopyInfo *c = sl_trace_get_copy_info (trace, ev->aux);
          for (int d = 0; d < 9; d++)
            _sl_report_add_null (r);   /* grid, block, Reg/Trd, StcSMem, DymSMem */
          if (c == NULL)
            {
              for (int d = 0; d < 4; d++)
                _sl_report_add_null (r);
            }
          else
            {
              gint64 bytes = (gint64) c->bytes, thru;
              _sl_report_add_int (r, bytes);
              /* bytes * (1000000000 / duration): an integer division in SQL; NULL for 0 ns;
               * SQLite turns an overflowing product into a double */
              if (duration == 0)
                _sl_report_add_null (r);
              else if (__builtin_mul_overflow (bytes, 1000000000 / duration, &thru))
                _sl_report_add_double (r, (double) bytes * (double) (1000000000 / duration));
              else
                _sl_report_add_int (r, thru);
              guint8 src = lane->kind == SL_LANE_MEMCPY ? c->src_kind : c->mem_kind;
              guint8 dst = lane->kind == SL_LANE_MEMCPY ? c->dst_kind : SL_MEM_KIND_NONE;
              _sl_report_add_text (r, src != SL_MEM_KIND_NONE
                                      ? sl_trace_enum_label (trace, SL_ENUM_MEM_KIND, src)
                                      : NULL);
              _sl_report_add_text (r, dst != SL_MEM_KIND_NONE
                                      ? sl_trace_enum_label (trace, SL_ENUM_MEM_KIND, dst)
                                      : NULL);
            }
        }
      if (lane->gpu >= 0 && (guint) lane->gpu < devices->len)
        _sl_report_add_text (r, g_ptr_array_index (devices, lane->gpu));
      else
        _sl_report_add_null (r);
      _sl_report_add_int (r, lane->context_id);
      if (lane->green_context_id != 0)   /* GreenCtx: NULLIF(greenContextId, 0) */
        _sl_report_add_int (r, lane->green_context_id);
      else
        _sl_report_add_null (r);
      _sl_report_add_int (r, lane->stream_id);
      _sl_report_add_text (r, sl_trace_str (trace, ev->name));
    }
  return r;
}

/* ---------------------------------------------------------------------------------------- */
/* cuda_kern_exec_sum                                                                       */

/*
 * nsys gives one correlation id to several calls only when they nest on one thread: with
 * --cudabacktrace (2021 exports) each runtime call is two rows, eventClass 67 around eventClass
 * 0 (`cudaLaunchKernel` around `cudaLaunchKernel_v7000`), and a driver call may carry its runtime
 * call's id.  NVIDIA's JOIN pairs the kernel with each of them; the model links it to one, and
 * the others lie in that thread's other depth lanes, overlapping it.  Appends a launch of the
 * linked kernel for each such call; `lanes` holds the thread's CUDA API lanes (one per depth, at
 * most a few).  A thread whose calls never nest has one and is not looked at.
 */
static void
add_nested_launches (GArray          *launches,
                     const GPtrArray *lanes,
                     const _SlLaunch *linked)
{
  const SlEvent *call = linked->api;

  for (guint d = 0; d < lanes->len; d++)
    {
      const SlLane *lane = g_ptr_array_index (lanes, d);
      if (call >= lane->events && call < lane->events + lane->n_events)
        continue;
      /* a depth lane's events do not overlap: the one before the first starting at or after
       * the call may enclose it, then those starting within it */
      gsize k = sl_lane_lower_bound (lane, call->start);
      if (k > 0)
        k--;
      for (; k < lane->n_events && lane->events[k].start <= call->end; k++)
        {
          const SlEvent *other = &lane->events[k];
          if (other->end < call->start || other->corr != call->corr)
            continue;
          _SlLaunch l = *linked;
          l.api = other;
          g_array_append_val (launches, l);
        }
    }
}

GArray *
_sl_stats_launches (SlTrace  *trace,
                    SlTime    t0,
                    SlTime    t1,
                    gint      source,
                    GError  **error)
{
  if (!_sl_stats_trace_has (trace, SL_LANE_KERNELS, source))
    return _sl_stats_no_data (trace, error, "CUDA kernel data"), NULL;
  if (!_sl_stats_trace_has (trace, SL_LANE_CUDA_API, source))
    return _sl_stats_no_data (trace, error, "CUDA API data"), NULL;

  GArray *launches = g_array_new (FALSE, FALSE, sizeof (_SlLaunch));
  guint n_threads = sl_trace_get_n_threads (trace);
  /* per thread its CUDA API lanes, one per nesting depth (a few threads of 1 … 3 lanes) */
  g_autofree GPtrArray **api_lanes = g_new0 (GPtrArray *, MAX (n_threads, 1));

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_CUDA_API || lane->thread < 0 || (guint) lane->thread >= n_threads)
        continue;
      if (api_lanes[lane->thread] == NULL)
        api_lanes[lane->thread] = g_ptr_array_new ();
      g_ptr_array_add (api_lanes[lane->thread], (gpointer) lane);
    }

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_KERNELS || !_sl_stats_lane_in (lane, source))
        continue;
      guint32 device_id = _sl_stats_lane_device_id (trace, lane);
      gsize first, end;
      _sl_stats_lane_range (lane, t0, t1, &first, &end);
      for (gsize k = first; k < end; k++)
        {
          const SlEvent *kev = &lane->events[k];
          const SlLane *alane;
          gsize aindex;

          /* the inner JOIN: kernels without a launch call in the trace are left out */
          if (kev->link == SL_NO_LINK || !sl_trace_resolve (trace, kev->link, &alane, &aindex)
              || alane->kind != SL_LANE_CUDA_API || alane->thread < 0
              || (guint) alane->thread >= n_threads)
            continue;
          _SlLaunch l = { kev, &alane->events[aindex], sl_trace_get_thread (trace, alane->thread),
                          device_id };
          g_array_append_val (launches, l);
          if (api_lanes[alane->thread]->len > 1)
            add_nested_launches (launches, api_lanes[alane->thread], &l);
        }
    }
  for (guint t = 0; t < n_threads; t++)
    if (api_lanes[t] != NULL)
      g_ptr_array_unref (api_lanes[t]);
  return launches;
}

const char *
_sl_stats_api_name (SlReport   *r,
                    GHashTable *names,
                    guint32     id)
{
  const char *name = g_hash_table_lookup (names, GUINT_TO_POINTER (id));

  if (name == NULL)
    {
      const char *full = sl_trace_str (r->trace, id);
      g_autofree char *stripped = g_strndup (full, _sl_api_name_length (full));
      name = g_string_chunk_insert_const (r->strings, stripped);
      g_hash_table_insert (names, GUINT_TO_POINTER (id), (gpointer) name);
    }
  return name;
}

/*
 * Columns and semantics from NVIDIA's cuda_kern_exec_sum.py (nsys 2024.x, "CUDA Kernel Launch
 * & Exec Time Summary"): each kernel joined to its launch call (same correlationId in the same
 * process; the model's `link`), then
 *   ApiDur = r.end - r.start, QueDur = k.start - r.end when >= 0 else NULL,
 *   KernDur = k.end - k.start, totalDur = max(r.end, k.end) - r.start,
 * GROUP BY PID, TID, DevId, API Name (without "_vNNNN"), Kernel Name; per group Count,
 * QCount = count(QueDur), and avg/median/min/max/stdev of each duration (avg, median, stdev
 * rounded to 1 digit); ORDER BY TAvg DESC (ties: the group keys, in column order).
 */
static const _SlColumn exec_columns[] = {
  { "PID", SL_UNIT_NONE }, { "TID", SL_UNIT_NONE }, { "DevId", SL_UNIT_NONE },
  { "Count", SL_UNIT_NONE }, { "QCount", SL_UNIT_NONE },
  { "TAvg (ns)", SL_UNIT_DUR_NS }, { "TMed (ns)", SL_UNIT_DUR_NS }, { "TMin (ns)", SL_UNIT_DUR_NS },
  { "TMax (ns)", SL_UNIT_DUR_NS }, { "TStdDev (ns)", SL_UNIT_DUR_NS },
  { "AAvg (ns)", SL_UNIT_DUR_NS }, { "AMed (ns)", SL_UNIT_DUR_NS }, { "AMin (ns)", SL_UNIT_DUR_NS },
  { "AMax (ns)", SL_UNIT_DUR_NS }, { "AStdDev (ns)", SL_UNIT_DUR_NS },
  { "QAvg (ns)", SL_UNIT_DUR_NS }, { "QMed (ns)", SL_UNIT_DUR_NS }, { "QMin (ns)", SL_UNIT_DUR_NS },
  { "QMax (ns)", SL_UNIT_DUR_NS }, { "QStdDev (ns)", SL_UNIT_DUR_NS },
  { "KAvg (ns)", SL_UNIT_DUR_NS }, { "KMed (ns)", SL_UNIT_DUR_NS }, { "KMin (ns)", SL_UNIT_DUR_NS },
  { "KMax (ns)", SL_UNIT_DUR_NS }, { "KStdDev (ns)", SL_UNIT_DUR_NS },
  { "API Name", SL_UNIT_NONE }, { "Kernel Name", SL_UNIT_NONE },
};

typedef struct
{
  guint32     pid;
  guint32     tid;
  guint32     device_id;
  const char *api;      /* interned in the report's chunk: pointer equality is text equality */
  guint32     kernel;   /* string id */
} ExecKey;

typedef struct
{
  ExecKey     key;
  const char *kernel_name;
  _SlAcc         total;
  _SlAcc         api;
  _SlAcc         queue;
  _SlAcc         kern;
  double      tavg;
} ExecGroup;

static guint
exec_key_hash (gconstpointer p)
{
  const ExecKey *k = p;
  return (k->pid * 31u + k->tid) * 31u + k->device_id * 17u + g_direct_hash (k->api)
         + k->kernel * 131u;
}

static gboolean
exec_key_equal (gconstpointer pa,
                gconstpointer pb)
{
  const ExecKey *a = pa, *b = pb;
  return a->pid == b->pid && a->tid == b->tid && a->device_id == b->device_id && a->api == b->api
         && a->kernel == b->kernel;
}

static void
exec_group_free (gpointer p)
{
  ExecGroup *g = p;
  _sl_acc_clear (&g->total);
  _sl_acc_clear (&g->api);
  _sl_acc_clear (&g->queue);
  _sl_acc_clear (&g->kern);
  g_free (g);
}

static int
compare_exec_groups (gconstpointer pa,
                     gconstpointer pb)
{
  const ExecGroup *a = *(const ExecGroup *const *) pa;
  const ExecGroup *b = *(const ExecGroup *const *) pb;
  int c;

  if (a->tavg != b->tavg)
    return a->tavg > b->tavg ? -1 : 1;
  if (a->key.pid != b->key.pid)
    return a->key.pid < b->key.pid ? -1 : 1;
  if (a->key.tid != b->key.tid)
    return a->key.tid < b->key.tid ? -1 : 1;
  if (a->key.device_id != b->key.device_id)
    return a->key.device_id < b->key.device_id ? -1 : 1;
  if ((c = strcmp (a->key.api, b->key.api)) != 0)
    return c;
  return strcmp (a->kernel_name, b->kernel_name);
}

static void
add_duration_stats (SlReport *r,
                    _SlAcc      *a)
{
  if (a->n == 0)
    {
      /* avg, median, min, max and stdev of no values are NULL: nsys prints QStdDev empty, not
       * 0.0, for a group none of whose launches queued */
      for (int i = 0; i < 5; i++)
        _sl_report_add_null (r);
      return;
    }
  _sl_report_add_double (r, sl_stats_round (_sl_acc_avg (a), 1));
  _sl_report_add_double (r, sl_stats_round (_sl_acc_median (a), 1));
  _sl_report_add_int (r, a->min);
  _sl_report_add_int (r, a->max);
  _sl_report_add_double (r, sl_stats_round (_sl_acc_stdev (a), 1));
}

static SlReport *
compute_kern_exec_sum (SlTrace             *trace,
                       const _SlReportInfo *info,
                       SlTime               t0,
                       SlTime               t1,
                       gint                 source,
                       GError             **error)
{
  g_autoptr (GArray) launches = _sl_stats_launches (trace, t0, t1, source, error);
  if (launches == NULL)
    return NULL;

  SlReport *r = _sl_report_new (trace, info);
  g_autoptr (GHashTable) groups = g_hash_table_new_full (exec_key_hash, exec_key_equal, NULL,
                                                         exec_group_free);
  g_autoptr (GHashTable) api_names = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint i = 0; i < launches->len; i++)
    {
      const _SlLaunch *l = &g_array_index (launches, _SlLaunch, i);
      const SlEvent *kev = l->kernel, *aev = l->api;
      ExecKey key = { l->thread->pid, l->thread->tid, l->device_id,
                      _sl_stats_api_name (r, api_names, aev->name), kev->name };
      ExecGroup *g = g_hash_table_lookup (groups, &key);
      if (g == NULL)
        {
          g = g_new0 (ExecGroup, 1);
          g->key = key;
          g->kernel_name = sl_trace_str (trace, kev->name);
          _sl_acc_init (&g->total);
          _sl_acc_init (&g->api);
          _sl_acc_init (&g->queue);
          _sl_acc_init (&g->kern);
          g_hash_table_insert (groups, &g->key, g);
        }
      _sl_acc_add (&g->total, MAX (aev->end, kev->end) - aev->start);
      _sl_acc_add (&g->api, aev->end - aev->start);
      if (kev->start - aev->end >= 0)
        _sl_acc_add (&g->queue, kev->start - aev->end);
      _sl_acc_add (&g->kern, kev->end - kev->start);
    }

  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;
  g_hash_table_iter_init (&iter, groups);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (sorted, value);
  for (guint i = 0; i < sorted->len; i++)
    {
      ExecGroup *g = g_ptr_array_index (sorted, i);
      g->tavg = sl_stats_round (_sl_acc_avg (&g->total), 1);
    }
  g_ptr_array_sort (sorted, compare_exec_groups);
  for (guint i = 0; i < sorted->len; i++)
    {
      ExecGroup *g = g_ptr_array_index (sorted, i);
      _sl_report_add_int (r, g->key.pid);
      _sl_report_add_int (r, g->key.tid);
      _sl_report_add_int (r, g->key.device_id);
      _sl_report_add_int (r, g->total.n);
      _sl_report_add_int (r, g->queue.n);
      add_duration_stats (r, &g->total);
      add_duration_stats (r, &g->api);
      add_duration_stats (r, &g->queue);
      add_duration_stats (r, &g->kern);
      _sl_report_add_text (r, g->key.api);
      _sl_report_add_text (r, g->kernel_name);
    }
  return r;
}

/* ---------------------------------------------------------------------------------------- */
/* ---------------------------------------------------------------------------------------- */
/* The table: sl_report_names () order                                                      */

#define COLUMNS(c) .columns = c, .n_columns = G_N_ELEMENTS (c)

const _SlReportInfo _sl_report_infos[] = {
  { "cuda_api_gpu_sum", "CUDA Summary (API/Kernels/MemOps)",
    SL_LOAD_CUDA_API | SL_LOAD_KERNELS | SL_LOAD_MEMCPY | SL_LOAD_MEMSET, compute_category_sum,
    COLUMNS (summary_columns_category), .kind = SL_LANE_CUDA_API,
    .what = "CUDA API, GPU kernel, nor memory operations data" },
  { "cuda_api_sum", "CUDA API Summary", SL_LOAD_CUDA_API, compute_api_sum,
    COLUMNS (summary_columns_calls) },
  { "cuda_api_trace", "CUDA API Trace", SL_LOAD_CUDA_API, _sl_report_compute_cuda_api_trace,
    COLUMNS (_sl_cuda_api_trace_columns), .per_event = TRUE },
  { "cuda_gpu_kern_gb_sum", "CUDA GPU Kernel/Grid/Block Summary", SL_LOAD_KERNELS,
    compute_kern_gb_sum, COLUMNS (summary_columns_grid_block) },
  { "cuda_gpu_kern_sum", "CUDA GPU Kernel Summary", SL_LOAD_KERNELS, compute_time_summary,
    COLUMNS (summary_columns_instances), .kind = SL_LANE_KERNELS, .also = SL_LANE_KERNELS,
    .what = "CUDA kernel data", .order = _SL_ORDER_TOTAL_DESC_COUNT_NAME },
  { "cuda_gpu_mem_size_sum", "CUDA GPU MemOps Summary (by Size)", SL_LOAD_MEMCPY | SL_LOAD_MEMSET,
    compute_mem_size_sum, COLUMNS (summary_columns_memsize) },
  { "cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)", SL_LOAD_MEMCPY | SL_LOAD_MEMSET,
    compute_time_summary, COLUMNS (summary_columns_memtime), .kind = SL_LANE_MEMCPY,
    .also = SL_LANE_MEMSET, .what = "GPU memory data", .order = _SL_ORDER_TOTAL_DESC },
  { "cuda_gpu_sum", "CUDA GPU Summary (Kernels/MemOps)",
    SL_LOAD_KERNELS | SL_LOAD_MEMCPY | SL_LOAD_MEMSET, compute_category_sum,
    COLUMNS (summary_columns_category), .kind = SL_LANE_KERNELS,
    .what = "GPU kernel/memory operations data" },
  { "cuda_gpu_trace", "CUDA GPU Trace", SL_LOAD_KERNELS | SL_LOAD_MEMCPY | SL_LOAD_MEMSET,
    compute_gpu_trace, COLUMNS (trace_columns), .per_event = TRUE },
  { "cuda_kern_exec_sum", "CUDA Kernel Launch & Exec Time Summary",
    SL_LOAD_KERNELS | SL_LOAD_CUDA_API, compute_kern_exec_sum, COLUMNS (exec_columns) },
  { "cuda_kern_exec_trace", "CUDA Kernel Launch & Exec Time Trace",
    SL_LOAD_KERNELS | SL_LOAD_CUDA_API, _sl_report_compute_cuda_kern_exec_trace,
    COLUMNS (_sl_cuda_kern_exec_trace_columns), .per_event = TRUE },
  /* Sightline's own: nsys has no report of its GPU metrics */
  { "gpu_metrics_kern_sum", "GPU Metrics by Kernel Summary (time-weighted over each kernel)",
    SL_LOAD_KERNELS, _sl_report_compute_gpu_metrics_kern_sum,
    COLUMNS (_sl_gpu_metrics_kern_sum_columns) },
  { "gpu_metrics_sum", "GPU Metrics Summary (time-weighted, per GPU and metric)", SL_LOAD_KERNELS,
    _sl_report_compute_gpu_metrics_sum, COLUMNS (_sl_gpu_metrics_sum_columns) },
  /* MPI (nsys -t mpi): the MPI_* tables' calls; SL_LOAD_OSRT is what they are read with */
  { "mpi_event_sum", "MPI Event Summary", SL_LOAD_OSRT, _sl_report_compute_mpi_event_sum,
    COLUMNS (_sl_mpi_event_sum_columns) },
  { "mpi_event_trace", "MPI Event Trace", SL_LOAD_OSRT, _sl_report_compute_mpi_event_trace,
    COLUMNS (_sl_mpi_event_trace_columns), .per_event = TRUE },
  { "mpi_msg_size_sum", "MPI Message Size Summary", SL_LOAD_OSRT,
    _sl_report_compute_mpi_msg_size_sum, COLUMNS (_sl_mpi_msg_size_sum_columns) },
  { "nvtx_gpu_proj_sum", "NVTX GPU Projection Summary",
    SL_LOAD_NVTX | SL_LOAD_CUDA_API | SL_LOAD_KERNELS | SL_LOAD_MEMCPY | SL_LOAD_MEMSET,
    _sl_report_compute_nvtx_gpu_proj_sum, COLUMNS (_sl_nvtx_gpu_proj_sum_columns) },
  { "nvtx_gpu_proj_trace", "NVTX GPU Projection Trace",
    SL_LOAD_NVTX | SL_LOAD_CUDA_API | SL_LOAD_KERNELS | SL_LOAD_MEMCPY | SL_LOAD_MEMSET,
    _sl_report_compute_nvtx_gpu_proj_trace, COLUMNS (_sl_nvtx_gpu_proj_trace_columns), .per_event = TRUE },
  { "nvtx_kern_sum", "NVTX Range Kernel Summary", SL_LOAD_NVTX | SL_LOAD_CUDA_API | SL_LOAD_KERNELS,
    _sl_report_compute_nvtx_kern_sum, COLUMNS (_sl_nvtx_kern_sum_columns) },
  { "nvtx_pushpop_sum", "NVTX Push/Pop Range Summary", SL_LOAD_NVTX, compute_nvtx_pushpop_sum,
    COLUMNS (summary_columns_nvtx_range) },
  { "nvtx_pushpop_trace", "NVTX Push/Pop Range Trace", SL_LOAD_NVTX,
    _sl_report_compute_nvtx_pushpop_trace, COLUMNS (_sl_nvtx_pushpop_trace_columns),
    .per_event = TRUE },
  { "nvtx_startend_sum", "NVTX Start/End Range Summary", SL_LOAD_NVTX, compute_nvtx_startend_sum,
    COLUMNS (summary_columns_nvtx_range) },
  { "nvtx_sum", "NVTX Range Summary", SL_LOAD_NVTX, compute_nvtx_sum,
    COLUMNS (summary_columns_nvtx) },
  /* OpenMP and OpenACC (nsys -t openmp,openacc): SL_LOAD_OSRT is what they are read with */
  { "openacc_sum", "OpenACC Summary", SL_LOAD_OSRT, _sl_report_compute_openacc_sum,
    COLUMNS (_sl_openacc_sum_columns) },
  { "openmp_sum", "OpenMP Summary", SL_LOAD_OSRT, _sl_report_compute_openmp_sum,
    COLUMNS (_sl_openmp_sum_columns) },
  { "osrt_sum", "OS Runtime Summary", SL_LOAD_OSRT, compute_time_summary,
    COLUMNS (summary_columns_calls), .kind = SL_LANE_OSRT, .also = SL_LANE_OSRT,
    .what = "OS Runtime trace data", .order = _SL_ORDER_TOTAL_DESC },
  { "rank_sum", "Rank Summary (compute, communication and their overlap, per rank)",
    SL_LOAD_KERNELS | SL_LOAD_MEMCPY | SL_LOAD_MEMSET | SL_LOAD_CUDA_API | SL_LOAD_NVTX,
    _sl_report_compute_rank_sum, COLUMNS (_sl_rank_sum_columns) },
  /* read from the file: the model keeps no syscalls; SL_LOAD_OSRT is what they stand for */
  { "syscall_sum", "Syscall Summary", SL_LOAD_OSRT, _sl_report_compute_syscall_sum,
    COLUMNS (summary_columns_calls) },
  /* read from the file: the model keeps no page faults; SL_LOAD_MEMCPY is what they stand for */
  { "um_cpu_page_faults_sum", "Unified Memory CPU Page Faults Summary", SL_LOAD_MEMCPY,
    _sl_report_compute_um_cpu_page_faults_sum, COLUMNS (_sl_um_cpu_page_faults_sum_columns) },
  { "um_sum", "Unified Memory Analysis Summary", SL_LOAD_MEMCPY, _sl_report_compute_um_sum,
    COLUMNS (_sl_um_sum_columns) },
  { "um_total_sum", "Unified Memory Totals Summary", SL_LOAD_MEMCPY,
    _sl_report_compute_um_total_sum, COLUMNS (_sl_um_total_sum_columns) },
};

const guint _sl_n_report_infos = G_N_ELEMENTS (_sl_report_infos);

const _SlReportInfo *
_sl_report_info_find (const char *name)
{
  if (name == NULL)
    return NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (_sl_report_infos); i++)
    if (strcmp (_sl_report_infos[i].name, name) == 0)
      return &_sl_report_infos[i];
  return NULL;
}
