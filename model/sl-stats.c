/* sl-stats.c: the `nsys stats` summary reports, computed by walking the model's lanes.
 *
 * Each report reproduces the SQL of NVIDIA's report scripts (nsys 2024.x, the Python scripts under `reports/`; see
 * shared/reference/nsys-sqlite.md §6): same grouping, same columns, same rounding (SQLite's
 * round()), same sort order, with the aggregates of SQLite's extension-functions.c that nsys
 * ships: median() = middle value or the mean of the two middle ones, stdev() = Welford's
 * running sample standard deviation, 0.0 for fewer than two values.  Sums are exact gint64;
 * avg() is sum / count in doubles, which is what SQLite computes for integer inputs below 2^53.
 *
 * Where nsys leaves the order of equal sort keys to SQLite, we break ties by the name columns
 * (then the other group keys) so that the output is deterministic; tests/test-stats.c's SQL
 * oracle adds the same tie-breakers.  Sizes: a summary has one group per distinct name (10^1 …
 * 10^4); cuda_gpu_trace has one row per GPU operation (up to 10^7).
 */
#include "sl-stats.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (sl-stats-error-quark, sl_stats_error)

/* ---------------------------------------------------------------------------------------- */
/* Report table                                                                             */

typedef struct
{
  const char *header;
  SlUnit      unit;
} Column;

struct _SlReport
{
  char         *name;
  const char   *title;
  const Column *columns;
  guint         n_columns;
  GArray       *cells;      /* SlCell, row-major */
  GStringChunk *strings;    /* text of cells not owned by the trace */
  SlTrace      *trace;      /* keeps the trace's strings alive */
};

typedef struct
{
  const char   *name;
  const char   *title;
  SlLoadFlags   needs;
} ReportInfo;

static const ReportInfo report_infos[] = {
  { "cuda_api_sum", "CUDA API Summary", SL_LOAD_CUDA_API },
  { "cuda_gpu_kern_sum", "CUDA GPU Kernel Summary", SL_LOAD_KERNELS },
  { "cuda_gpu_mem_size_sum", "CUDA GPU MemOps Summary (by Size)", SL_LOAD_MEMCPY | SL_LOAD_MEMSET },
  { "cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)", SL_LOAD_MEMCPY | SL_LOAD_MEMSET },
  { "cuda_gpu_trace", "CUDA GPU Trace", SL_LOAD_KERNELS | SL_LOAD_MEMCPY | SL_LOAD_MEMSET },
  { "cuda_kern_exec_sum", "CUDA Kernel Launch & Exec Time Summary", SL_LOAD_KERNELS | SL_LOAD_CUDA_API },
  { "nvtx_sum", "NVTX Range Summary", SL_LOAD_NVTX },
  { "osrt_sum", "OS Runtime Summary", SL_LOAD_OSRT },
};

static const char *const report_names[] = {
  "cuda_api_sum", "cuda_gpu_kern_sum", "cuda_gpu_mem_size_sum", "cuda_gpu_mem_time_sum",
  "cuda_gpu_trace", "cuda_kern_exec_sum", "nvtx_sum", "osrt_sum", NULL
};

/* `nsys profile --stats=true` and `nsys stats` with no --report run these, in this order. */
static const char *const default_names[] = {
  "nvtx_sum", "osrt_sum", "cuda_api_sum", "cuda_gpu_kern_sum", "cuda_gpu_mem_time_sum",
  "cuda_gpu_mem_size_sum", NULL
};

static const ReportInfo *
report_info (const char *name)
{
  if (name == NULL)
    return NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (report_infos); i++)
    if (strcmp (report_infos[i].name, name) == 0)
      return &report_infos[i];
  return NULL;
}

const char *const *
sl_report_names (void)
{
  return report_names;
}

const char *const *
sl_report_default_names (void)
{
  return default_names;
}

gboolean
sl_report_name_is_valid (const char *name)
{
  return report_info (name) != NULL;
}

const char *
sl_report_name_get_title (const char *name)
{
  const ReportInfo *info = report_info (name);
  return info != NULL ? info->title : NULL;
}

SlLoadFlags
sl_report_needs (const char *name)
{
  const ReportInfo *info = report_info (name);
  return info != NULL ? info->needs : 0;
}

gboolean
sl_report_format_parse (const char     *text,
                        SlReportFormat *format)
{
  g_return_val_if_fail (format != NULL, FALSE);

  if (g_strcmp0 (text, "column") == 0)
    *format = SL_REPORT_FORMAT_COLUMN;
  else if (g_strcmp0 (text, "csv") == 0)
    *format = SL_REPORT_FORMAT_CSV;
  else if (g_strcmp0 (text, "json") == 0)
    *format = SL_REPORT_FORMAT_JSON;
  else
    return FALSE;
  return TRUE;
}

static SlReport *
report_new (SlTrace      *trace,
            const char   *name,
            const Column *columns,
            guint         n_columns)
{
  SlReport *r = g_new0 (SlReport, 1);

  r->name = g_strdup (name);
  r->title = sl_report_name_get_title (name);
  r->columns = columns;
  r->n_columns = n_columns;
  r->cells = g_array_new (FALSE, FALSE, sizeof (SlCell));
  r->strings = g_string_chunk_new (4096);
  r->trace = sl_trace_ref (trace);
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
  sl_trace_unref (report->trace);
  g_free (report);
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

static void
add_int (SlReport *r,
         gint64    v)
{
  SlCell c = { .type = SL_CELL_INT, .v.i = v };
  g_array_append_val (r->cells, c);
}

static void
add_double (SlReport *r,
            double    v)
{
  SlCell c = { .type = SL_CELL_DOUBLE, .v.d = v };
  g_array_append_val (r->cells, c);
}

static void
add_null (SlReport *r)
{
  SlCell c = { .type = SL_CELL_NULL };
  g_array_append_val (r->cells, c);
}

/* s must outlive the report: a trace string or one in r->strings. */
static void
add_text (SlReport   *r,
          const char *s)
{
  SlCell c = { .type = SL_CELL_TEXT, .v.s = s };
  if (s == NULL)
    c.type = SL_CELL_NULL;
  g_array_append_val (r->cells, c);
}

/* ---------------------------------------------------------------------------------------- */
/* SQL semantics                                                                            */

double
sl_stats_round (double x,
                int    digits)
{
  /* SQLite's roundFunc: values beyond 2^52 have no fraction; otherwise print with "%.*f"
   * through SQLite's own printf (its half-up rounding, not glibc's) and read the text back. */
  if (x < -4503599627370496.0 || x > 4503599627370496.0 || isnan (x))
    return x;
  if (digits <= 0)
    return (double) (gint64) (x + (x < 0 ? -0.5 : 0.5));
  char *text = sqlite3_mprintf ("%.*f", digits, x);
  double r = g_ascii_strtod (text, NULL);
  sqlite3_free (text);
  return r;
}

/* cuda_api_sum and cuda_kern_exec_sum: CASE substr(name, -6, 2) WHEN '_v' THEN substr(name, 1,
 * length(name) - 6) ELSE name END, i.e. drop "_vNNNN" (any four characters after "_v"). */
static gsize
api_name_length (const char *name)
{
  gsize len = strlen (name);
  /* substr counts characters; API names are ASCII, and a multibyte tail never matches "_v" */
  if (len >= 6 && name[len - 6] == '_' && name[len - 5] == 'v' && g_utf8_strlen (name, -1) == (glong) len)
    return len - 6;
  return len;
}

/* One group's values: exact sum, count, extremes, Welford's running mean and M2 in the order
 * values arrive (as extension-functions.c's stdev() sees them), and the values themselves for
 * the median. */
typedef struct
{
  GArray *values;  /* gint64 */
  gint64  total;
  gint64  n;
  gint64  min;
  gint64  max;
  double  mean;
  double  m2;
} Acc;

static void
acc_init (Acc *a)
{
  memset (a, 0, sizeof *a);
  a->values = g_array_new (FALSE, FALSE, sizeof (gint64));
}

static void
acc_clear (Acc *a)
{
  g_clear_pointer (&a->values, g_array_unref);
}

static inline void
acc_add (Acc    *a,
         gint64  v)
{
  if (a->n == 0 || v < a->min)
    a->min = v;
  if (a->n == 0 || v > a->max)
    a->max = v;
  a->n++;
  a->total += v;
  double x = (double) v;
  double delta = x - a->mean;
  a->mean += delta / a->n;
  a->m2 += delta * (x - a->mean);
  g_array_append_val (a->values, v);
}

static double
acc_avg (const Acc *a)
{
  return (double) a->total / (double) a->n;
}

static double
acc_stdev (const Acc *a)
{
  return a->n > 1 ? sqrt (a->m2 / (a->n - 1)) : 0.0;
}

/* The k-th smallest (0-based) of v[0..n), reordering v so that v[0..k) <= v[k] <= v[k+1..n):
 * Wirth's selection, O(n) expected; lanes sorted by start are no bad case for it. */
static gint64
select_kth (gint64 *v,
            gsize   n,
            gsize   k)
{
  gssize l = 0, m = (gssize) n - 1, kk = (gssize) k;

  while (l < m)
    {
      gint64 x = v[kk];
      gssize i = l, j = m;
      do
        {
          while (v[i] < x)
            i++;
          while (x < v[j])
            j--;
          if (i <= j)
            {
              gint64 t = v[i];
              v[i] = v[j];
              v[j] = t;
              i++;
              j--;
            }
        }
      while (i <= j);
      if (j < kk)
        l = i;
      if (kk < i)
        m = j;
    }
  return v[kk];
}

/* median(): the middle value, or (a + b) * 1.0 / 2 of the two middle ones (exact int64 sum). */
static double
acc_median (Acc *a)
{
  gint64 *v = (gint64 *) a->values->data;
  gsize n = a->values->len;

  g_assert (n > 0);
  if (n % 2 == 1)
    return (double) select_kth (v, n, n / 2);
  gint64 hi = select_kth (v, n, n / 2);
  /* after selection everything below n/2 is <= hi: the lower middle is their maximum */
  gint64 lo = v[0];
  for (gsize i = 1; i < n / 2; i++)
    lo = MAX (lo, v[i]);
  return (double) (lo + hi) / 2.0;
}

/* ---------------------------------------------------------------------------------------- */
/* Summaries grouped by a name                                                              */

typedef struct
{
  Acc         acc;
  const char *name;    /* the Name / Operation / Range column */
  const char *style;   /* nvtx_sum only */
  guint32     key;     /* string id it was grouped by */
} Group;

typedef struct
{
  GPtrArray  *groups;  /* Group *, owned */
  GPtrArray  *by_id;   /* Group * indexed by string id, for O(1) lookup per event */
  GHashTable *by_key;  /* guint64 key -> Group *, where one id is not the key */
} Groups;

static void
group_free (gpointer p)
{
  Group *g = p;
  acc_clear (&g->acc);
  g_free (g);
}

static void
groups_init (Groups *gs)
{
  gs->groups = g_ptr_array_new_with_free_func (group_free);
  gs->by_id = g_ptr_array_new ();
  gs->by_key = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

static void
groups_clear (Groups *gs)
{
  g_clear_pointer (&gs->groups, g_ptr_array_unref);
  g_clear_pointer (&gs->by_id, g_ptr_array_unref);
  g_clear_pointer (&gs->by_key, g_hash_table_unref);
}

static Group *
group_new (Groups *gs)
{
  Group *g = g_new0 (Group, 1);
  acc_init (&g->acc);
  g_ptr_array_add (gs->groups, g);
  return g;
}

static inline Group *
groups_by_id (Groups  *gs,
              guint32  id)
{
  if (id < gs->by_id->len)
    {
      Group *g = g_ptr_array_index (gs->by_id, id);
      if (g != NULL)
        return g;
    }
  else
    g_ptr_array_set_size (gs->by_id, MAX (id + 1, gs->by_id->len * 2));
  Group *g = group_new (gs);
  g->key = id;
  gs->by_id->pdata[id] = g;
  return g;
}

static Group *
groups_by_key (Groups  *gs,
               guint64  key,
               gboolean *created)
{
  Group *g = g_hash_table_lookup (gs->by_key, &key);
  *created = g == NULL;
  if (g == NULL)
    {
      g = group_new (gs);
      g_hash_table_insert (gs->by_key, g_memdup2 (&key, sizeof key), g);
    }
  return g;
}

typedef enum
{
  ORDER_TOTAL_DESC,               /* ORDER BY 2 DESC (ties: name, style) */
  ORDER_TOTAL_DESC_COUNT_NAME,    /* ORDER BY 2 DESC, 3, "Name" */
} SummaryOrder;

static SummaryOrder summary_order;

static int
compare_groups (gconstpointer pa,
                gconstpointer pb)
{
  const Group *a = *(const Group *const *) pa;
  const Group *b = *(const Group *const *) pb;
  int c;

  if (a->acc.total != b->acc.total)
    return a->acc.total > b->acc.total ? -1 : 1;
  if (summary_order == ORDER_TOTAL_DESC_COUNT_NAME && a->acc.n != b->acc.n)
    return a->acc.n < b->acc.n ? -1 : 1;
  if ((c = g_strcmp0 (a->name, b->name)) != 0)
    return c;
  return g_strcmp0 (a->style, b->style);
}

static const Column summary_columns_instances[] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS }, { "Instances", SL_UNIT_NONE },
  { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS }, { "Min (ns)", SL_UNIT_DUR_NS },
  { "Max (ns)", SL_UNIT_DUR_NS }, { "StdDev (ns)", SL_UNIT_DUR_NS }, { "Name", SL_UNIT_NONE },
};

static const Column summary_columns_calls[] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS }, { "Num Calls", SL_UNIT_NONE },
  { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS }, { "Min (ns)", SL_UNIT_DUR_NS },
  { "Max (ns)", SL_UNIT_DUR_NS }, { "StdDev (ns)", SL_UNIT_DUR_NS }, { "Name", SL_UNIT_NONE },
};

static const Column summary_columns_memtime[] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS }, { "Count", SL_UNIT_NONE },
  { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS }, { "Min (ns)", SL_UNIT_DUR_NS },
  { "Max (ns)", SL_UNIT_DUR_NS }, { "StdDev (ns)", SL_UNIT_DUR_NS }, { "Operation", SL_UNIT_NONE },
};

static const Column summary_columns_nvtx[] = {
  { "Time (%)", SL_UNIT_RATIO }, { "Total Time (ns)", SL_UNIT_DUR_NS }, { "Instances", SL_UNIT_NONE },
  { "Avg (ns)", SL_UNIT_DUR_NS }, { "Med (ns)", SL_UNIT_DUR_NS }, { "Min (ns)", SL_UNIT_DUR_NS },
  { "Max (ns)", SL_UNIT_DUR_NS }, { "StdDev (ns)", SL_UNIT_DUR_NS }, { "Style", SL_UNIT_NONE },
  { "Range", SL_UNIT_NONE },
};

static const Column summary_columns_memsize[] = {
  { "Total (MB)", SL_UNIT_MEM_B }, { "Count", SL_UNIT_NONE }, { "Avg (MB)", SL_UNIT_MEM_B },
  { "Med (MB)", SL_UNIT_MEM_B }, { "Min (MB)", SL_UNIT_MEM_B }, { "Max (MB)", SL_UNIT_MEM_B },
  { "StdDev (MB)", SL_UNIT_MEM_B }, { "Operation", SL_UNIT_NONE },
};

/* The time summaries: round(total * 100.0 / sum(total), 1), total, count, round(avg, 1),
 * round(median, 1), min, max, round(stdev, 1), then the name column(s). */
static SlReport *
summary_emit (SlReport     *r,
              Groups       *gs,
              SummaryOrder  order)
{
  gint64 grand = 0;

  for (guint i = 0; i < gs->groups->len; i++)
    grand += ((Group *) g_ptr_array_index (gs->groups, i))->acc.total;
  summary_order = order;
  g_ptr_array_sort (gs->groups, compare_groups);
  for (guint i = 0; i < gs->groups->len; i++)
    {
      Group *g = g_ptr_array_index (gs->groups, i);
      /* sum(total) of 0 makes SQL's division NULL */
      if (grand != 0)
        add_double (r, sl_stats_round ((double) g->acc.total * 100.0 / (double) grand, 1));
      else
        add_null (r);
      add_int (r, g->acc.total);
      add_int (r, g->acc.n);
      add_double (r, sl_stats_round (acc_avg (&g->acc), 1));
      add_double (r, sl_stats_round (acc_median (&g->acc), 1));
      add_int (r, g->acc.min);
      add_int (r, g->acc.max);
      add_double (r, sl_stats_round (acc_stdev (&g->acc), 1));
      if (g->style != NULL)
        add_text (r, g->style);
      add_text (r, g->name);
    }
  return r;
}

static gboolean
trace_has (SlTrace    *trace,
           SlLaneKind  kind)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind == kind && lane->n_events > 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
no_data (SlTrace     *trace,
         GError     **error,
         const char  *what)
{
  g_set_error (error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA, "%s does not contain %s.",
               sl_trace_get_path (trace), what);
  return FALSE;
}

/* Durations of every event in lanes of `kind`, grouped by event name. */
static void
group_by_name (SlTrace    *trace,
               SlLaneKind  kind,
               Groups     *gs)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != kind)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          Group *g = groups_by_id (gs, ev->name);
          acc_add (&g->acc, ev->end - ev->start);
        }
    }
  for (guint i = 0; i < gs->groups->len; i++)
    {
      Group *g = g_ptr_array_index (gs->groups, i);
      g->name = sl_trace_str (trace, g->key);
    }
}

/* cuda_gpu_kern_sum: kernels GROUP BY name (the demangled name, nsys's default). */
static SlReport *
compute_kern_sum (SlTrace  *trace,
                  GError  **error)
{
  Groups gs;

  if (!trace_has (trace, SL_LANE_KERNELS))
    return no_data (trace, error, "CUDA kernel data"), NULL;
  groups_init (&gs);
  group_by_name (trace, SL_LANE_KERNELS, &gs);
  SlReport *r = summary_emit (report_new (trace, "cuda_gpu_kern_sum", summary_columns_instances,
                                          G_N_ELEMENTS (summary_columns_instances)),
                              &gs, ORDER_TOTAL_DESC_COUNT_NAME);
  groups_clear (&gs);
  return r;
}

/* cuda_api_sum: CUPTI_ACTIVITY_KIND_RUNTIME (runtime and driver) GROUP BY nameId; the name
 * shown loses its "_vNNNN" suffix, but two ids that strip to the same text stay two rows. */
static SlReport *
compute_api_sum (SlTrace  *trace,
                 GError  **error)
{
  Groups gs;

  if (!trace_has (trace, SL_LANE_CUDA_API))
    return no_data (trace, error, "CUDA trace data"), NULL;
  groups_init (&gs);
  group_by_name (trace, SL_LANE_CUDA_API, &gs);
  SlReport *r = report_new (trace, "cuda_api_sum", summary_columns_calls,
                            G_N_ELEMENTS (summary_columns_calls));
  for (guint i = 0; i < gs.groups->len; i++)
    {
      Group *g = g_ptr_array_index (gs.groups, i);
      g->name = g_string_chunk_insert_len (r->strings, g->name, api_name_length (g->name));
    }
  summary_emit (r, &gs, ORDER_TOTAL_DESC);
  groups_clear (&gs);
  return r;
}

/* osrt_sum: OSRT_API WHERE eventClass == 27 GROUP BY nameId (the model keeps only class 27). */
static SlReport *
compute_osrt_sum (SlTrace  *trace,
                  GError  **error)
{
  Groups gs;

  if (!trace_has (trace, SL_LANE_OSRT))
    return no_data (trace, error, "OS Runtime trace data"), NULL;
  groups_init (&gs);
  group_by_name (trace, SL_LANE_OSRT, &gs);
  SlReport *r = summary_emit (report_new (trace, "osrt_sum", summary_columns_calls,
                                          G_N_ELEMENTS (summary_columns_calls)),
                              &gs, ORDER_TOTAL_DESC);
  groups_clear (&gs);
  return r;
}

/* The memcpy and memset row set of both MemOps summaries: name "[CUDA memcpy <label>]" or
 * "[CUDA memset]" (the lanes' event names), value = duration or bytes. */
static void
group_memops (SlTrace  *trace,
              gboolean  by_size,
              Groups   *gs)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_MEMCPY && lane->kind != SL_LANE_MEMSET)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          Group *g = groups_by_id (gs, ev->name);
          if (by_size)
            {
              const SlCopyInfo *info = sl_trace_get_copy_info (trace, ev->aux);
              acc_add (&g->acc, info != NULL ? (gint64) info->bytes : 0);
            }
          else
            acc_add (&g->acc, ev->end - ev->start);
        }
    }
  for (guint i = 0; i < gs->groups->len; i++)
    {
      Group *g = g_ptr_array_index (gs->groups, i);
      g->name = sl_trace_str (trace, g->key);
    }
}

static SlReport *
compute_mem_time_sum (SlTrace  *trace,
                      GError  **error)
{
  Groups gs;

  if (!trace_has (trace, SL_LANE_MEMCPY) && !trace_has (trace, SL_LANE_MEMSET))
    return no_data (trace, error, "GPU memory data"), NULL;
  groups_init (&gs);
  group_memops (trace, FALSE, &gs);
  SlReport *r = summary_emit (report_new (trace, "cuda_gpu_mem_time_sum", summary_columns_memtime,
                                          G_N_ELEMENTS (summary_columns_memtime)),
                              &gs, ORDER_TOTAL_DESC);
  groups_clear (&gs);
  return r;
}

/* cuda_gpu_mem_size_sum: sum(bytes), count, avg, median, min, max, stdev, none rounded in SQL
 * (the formatter shows MB); ORDER BY 1 DESC. */
static SlReport *
compute_mem_size_sum (SlTrace  *trace,
                      GError  **error)
{
  Groups gs;

  if (!trace_has (trace, SL_LANE_MEMCPY) && !trace_has (trace, SL_LANE_MEMSET))
    return no_data (trace, error, "GPU memory data"), NULL;
  groups_init (&gs);
  group_memops (trace, TRUE, &gs);
  SlReport *r = report_new (trace, "cuda_gpu_mem_size_sum", summary_columns_memsize,
                            G_N_ELEMENTS (summary_columns_memsize));
  summary_order = ORDER_TOTAL_DESC;
  g_ptr_array_sort (gs.groups, compare_groups);
  for (guint i = 0; i < gs.groups->len; i++)
    {
      Group *g = g_ptr_array_index (gs.groups, i);
      add_int (r, g->acc.total);
      add_int (r, g->acc.n);
      add_double (r, acc_avg (&g->acc));
      add_double (r, acc_median (&g->acc));
      add_int (r, g->acc.min);
      add_int (r, g->acc.max);
      add_double (r, acc_stdev (&g->acc));
      add_text (r, g->name);
    }
  groups_clear (&gs);
  return r;
}

/* nvtx_sum: push/pop and start/end ranges (not marks) GROUP BY tag, style, where tag is
 * "domain:text", or "text" in the default domain (nsys's published outputs; the 2024 script
 * would print ":text").  Unterminated ranges already end at the last NVTX timestamp. */
static SlReport *
compute_nvtx_sum (SlTrace  *trace,
                  GError  **error)
{
  Groups gs;

  if (!trace_has (trace, SL_LANE_NVTX))
    return no_data (trace, error, "NV Tools Extension (NVTX) data"), NULL;
  groups_init (&gs);
  SlReport *r = report_new (trace, "nvtx_sum", summary_columns_nvtx, G_N_ELEMENTS (summary_columns_nvtx));
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_NVTX)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          if (ev->link & SL_NVTX_MARK)
            continue;
          gboolean start_end = (ev->link & SL_NVTX_START_END) != 0;
          guint64 key = ((guint64) ev->corr << 33) | ((guint64) ev->name << 1) | (start_end ? 1 : 0);
          gboolean created;
          Group *g = groups_by_key (&gs, key, &created);
          if (created)
            {
              const char *text = sl_trace_str (trace, ev->name);
              if (ev->corr != SL_NO_STR)
                {
                  g_autofree char *tag = g_strconcat (sl_trace_str (trace, ev->corr), ":", text, NULL);
                  g->name = g_string_chunk_insert_const (r->strings, tag);
                }
              else
                g->name = text;
              g->style = start_end ? "StartEnd" : "PushPop";
            }
          acc_add (&g->acc, ev->end - ev->start);
        }
    }
  /* two (domain, text) pairs can make the same tag ("a:b" + "c" and "a" + "b:c"): merge them,
   * since SQL groups by the tag text */
  g_autoptr (GHashTable) by_tag = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < gs.groups->len;)
    {
      Group *g = g_ptr_array_index (gs.groups, i);
      g_autofree char *tag = g_strconcat (g->style, "\n", g->name, NULL);
      Group *first = g_hash_table_lookup (by_tag, tag);
      if (first == NULL)
        {
          g_hash_table_insert (by_tag, g_string_chunk_insert_const (r->strings, tag), g);
          i++;
          continue;
        }
      for (guint k = 0; k < g->acc.values->len; k++)
        acc_add (&first->acc, g_array_index (g->acc.values, gint64, k));
      g_ptr_array_remove_index (gs.groups, i);
    }
  summary_emit (r, &gs, ORDER_TOTAL_DESC);
  groups_clear (&gs);
  return r;
}

/* ---------------------------------------------------------------------------------------- */
/* cuda_gpu_trace                                                                           */

static const Column trace_columns[] = {
  { "Start (ns)", SL_UNIT_TS_NS }, { "Duration (ns)", SL_UNIT_DUR_NS }, { "CorrId", SL_UNIT_NONE },
  { "GrdX", SL_UNIT_NONE }, { "GrdY", SL_UNIT_NONE }, { "GrdZ", SL_UNIT_NONE },
  { "BlkX", SL_UNIT_NONE }, { "BlkY", SL_UNIT_NONE }, { "BlkZ", SL_UNIT_NONE },
  { "Reg/Trd", SL_UNIT_NONE }, { "StcSMem (MB)", SL_UNIT_MEM_B }, { "DymSMem (MB)", SL_UNIT_MEM_B },
  { "Bytes (MB)", SL_UNIT_MEM_B }, { "Throughput (MBps)", SL_UNIT_THRU_B },
  { "SrcMemKd", SL_UNIT_NONE }, { "DstMemKd", SL_UNIT_NONE }, { "Device", SL_UNIT_NONE },
  { "Ctx", SL_UNIT_NONE }, { "GreenCtx", SL_UNIT_NONE }, { "Strm", SL_UNIT_NONE }, { "Name", SL_UNIT_NONE },
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
compute_gpu_trace (SlTrace  *trace,
                   GError  **error)
{
  if (!trace_has (trace, SL_LANE_KERNELS) && !trace_has (trace, SL_LANE_MEMCPY)
      && !trace_has (trace, SL_LANE_MEMSET))
    return no_data (trace, error, "GPU trace data"), NULL;

  SlReport *r = report_new (trace, "cuda_gpu_trace", trace_columns, G_N_ELEMENTS (trace_columns));
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (TraceRow));
  g_autoptr (GPtrArray) devices = g_ptr_array_new ();  /* "name (id)" per GPU index */

  for (guint i = 0; i < sl_trace_get_n_gpus (trace); i++)
    {
      const SlGpu *gpu = sl_trace_get_gpu (trace, i);
      /* printf('%s (%d)', gpu.name, deviceId) */
      g_autofree char *label = g_strdup_printf ("%s (%u)", sl_trace_str (trace, gpu->name), gpu->device_id);
      g_ptr_array_add (devices, g_string_chunk_insert_const (r->strings, label));
    }
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_KERNELS && lane->kind != SL_LANE_MEMCPY && lane->kind != SL_LANE_MEMSET)
        continue;
      guint32 device_id = 0;
      if (lane->gpu >= 0 && (guint) lane->gpu < sl_trace_get_n_gpus (trace))
        device_id = sl_trace_get_gpu (trace, lane->gpu)->device_id;
      for (gsize k = 0; k < lane->n_events; k++)
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

      add_int (r, ev->start);
      add_int (r, duration);
      add_int (r, ev->corr);
      if (lane->kind == SL_LANE_KERNELS)
        {
          const SlKernelInfo *k = sl_trace_get_kernel_info (trace, ev->aux);
          for (int d = 0; d < 3; d++)
            k != NULL ? add_int (r, k->grid[d]) : add_null (r);
          for (int d = 0; d < 3; d++)
            k != NULL ? add_int (r, k->block[d]) : add_null (r);
          k != NULL ? add_int (r, k->registers_per_thread) : add_null (r);
          k != NULL ? add_int (r, k->static_shared) : add_null (r);
          k != NULL ? add_int (r, k->dynamic_shared) : add_null (r);
          add_null (r);   /* Bytes */
          add_null (r);   /* Throughput */
          add_null (r);   /* SrcMemKd */
          add_null (r);   /* DstMemKd */
        }
      else
        {
          const SlCopyInfo *c = sl_trace_get_copy_info (trace, ev->aux);
          for (int d = 0; d < 9; d++)
            add_null (r);   /* grid, block, Reg/Trd, StcSMem, DymSMem */
          if (c == NULL)
            {
              for (int d = 0; d < 4; d++)
                add_null (r);
            }
          else
            {
              gint64 bytes = (gint64) c->bytes, thru;
              add_int (r, bytes);
              /* bytes * (1000000000 / duration): an integer division in SQL; NULL for 0 ns;
               * SQLite turns an overflowing product into a double */
              if (duration == 0)
                add_null (r);
              else if (__builtin_mul_overflow (bytes, 1000000000 / duration, &thru))
                add_double (r, (double) bytes * (double) (1000000000 / duration));
              else
                add_int (r, thru);
              guint8 src = lane->kind == SL_LANE_MEMCPY ? c->src_kind : c->mem_kind;
              guint8 dst = lane->kind == SL_LANE_MEMCPY ? c->dst_kind : SL_MEM_KIND_NONE;
              add_text (r, src != SL_MEM_KIND_NONE ? sl_trace_enum_label (trace, SL_ENUM_MEM_KIND, src) : NULL);
              add_text (r, dst != SL_MEM_KIND_NONE ? sl_trace_enum_label (trace, SL_ENUM_MEM_KIND, dst) : NULL);
            }
        }
      if (lane->gpu >= 0 && (guint) lane->gpu < devices->len)
        add_text (r, g_ptr_array_index (devices, lane->gpu));
      else
        add_null (r);
      add_int (r, lane->context_id);
      if (lane->green_context_id != 0)   /* GreenCtx: NULLIF(greenContextId, 0) */
        add_int (r, lane->green_context_id);
      else
        add_null (r);
      add_int (r, lane->stream_id);
      add_text (r, sl_trace_str (trace, ev->name));
    }
  return r;
}

/* ---------------------------------------------------------------------------------------- */
/* cuda_kern_exec_sum                                                                       */

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
static const Column exec_columns[] = {
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
  Acc         total;
  Acc         api;
  Acc         queue;
  Acc         kern;
  double      tavg;
} ExecGroup;

static guint
exec_key_hash (gconstpointer p)
{
  const ExecKey *k = p;
  return (k->pid * 31u + k->tid) * 31u + k->device_id * 17u + g_direct_hash (k->api) + k->kernel * 131u;
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
  acc_clear (&g->total);
  acc_clear (&g->api);
  acc_clear (&g->queue);
  acc_clear (&g->kern);
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
                    Acc      *a)
{
  if (a->n == 0)
    {
      /* avg, median, min and max of no values are NULL; extension-functions' stdev() is 0.0 */
      for (int i = 0; i < 4; i++)
        add_null (r);
      add_double (r, 0.0);
      return;
    }
  add_double (r, sl_stats_round (acc_avg (a), 1));
  add_double (r, sl_stats_round (acc_median (a), 1));
  add_int (r, a->min);
  add_int (r, a->max);
  add_double (r, sl_stats_round (acc_stdev (a), 1));
}

static SlReport *
compute_kern_exec_sum (SlTrace  *trace,
                       GError  **error)
{
  if (!trace_has (trace, SL_LANE_KERNELS))
    return no_data (trace, error, "CUDA kernel data"), NULL;
  if (!trace_has (trace, SL_LANE_CUDA_API))
    return no_data (trace, error, "CUDA API data"), NULL;

  SlReport *r = report_new (trace, "cuda_kern_exec_sum", exec_columns, G_N_ELEMENTS (exec_columns));
  g_autoptr (GHashTable) groups = g_hash_table_new_full (exec_key_hash, exec_key_equal, NULL, exec_group_free);
  g_autoptr (GHashTable) api_names = g_hash_table_new (g_direct_hash, g_direct_equal); /* id -> stripped */

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_KERNELS)
        continue;
      guint32 device_id = 0;
      if (lane->gpu >= 0 && (guint) lane->gpu < sl_trace_get_n_gpus (trace))
        device_id = sl_trace_get_gpu (trace, lane->gpu)->device_id;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *kev = &lane->events[k];
          const SlLane *alane;
          gsize aindex;

          /* the inner JOIN: kernels without a launch call in the trace are left out */
          if (kev->link == SL_NO_LINK || !sl_trace_resolve (trace, kev->link, &alane, &aindex)
              || alane->kind != SL_LANE_CUDA_API || alane->thread < 0)
            continue;
          const SlEvent *aev = &alane->events[aindex];
          const SlThread *thread = sl_trace_get_thread (trace, alane->thread);
          const char *api = g_hash_table_lookup (api_names, GUINT_TO_POINTER (aev->name));
          if (api == NULL)
            {
              const char *full = sl_trace_str (trace, aev->name);
              g_autofree char *stripped = g_strndup (full, api_name_length (full));
              api = g_string_chunk_insert_const (r->strings, stripped);
              g_hash_table_insert (api_names, GUINT_TO_POINTER (aev->name), (gpointer) api);
            }
          ExecKey key = { thread->pid, thread->tid, device_id, api, kev->name };
          ExecGroup *g = g_hash_table_lookup (groups, &key);
          if (g == NULL)
            {
              g = g_new0 (ExecGroup, 1);
              g->key = key;
              g->kernel_name = sl_trace_str (trace, kev->name);
              acc_init (&g->total);
              acc_init (&g->api);
              acc_init (&g->queue);
              acc_init (&g->kern);
              g_hash_table_insert (groups, &g->key, g);
            }
          acc_add (&g->total, MAX (aev->end, kev->end) - aev->start);
          acc_add (&g->api, aev->end - aev->start);
          if (kev->start - aev->end >= 0)
            acc_add (&g->queue, kev->start - aev->end);
          acc_add (&g->kern, kev->end - kev->start);
        }
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
      g->tavg = sl_stats_round (acc_avg (&g->total), 1);
    }
  g_ptr_array_sort (sorted, compare_exec_groups);
  for (guint i = 0; i < sorted->len; i++)
    {
      ExecGroup *g = g_ptr_array_index (sorted, i);
      add_int (r, g->key.pid);
      add_int (r, g->key.tid);
      add_int (r, g->key.device_id);
      add_int (r, g->total.n);
      add_int (r, g->queue.n);
      add_duration_stats (r, &g->total);
      add_duration_stats (r, &g->api);
      add_duration_stats (r, &g->queue);
      add_duration_stats (r, &g->kern);
      add_text (r, g->key.api);
      add_text (r, g->kernel_name);
    }
  return r;
}

/* ---------------------------------------------------------------------------------------- */

SlReport *
sl_report_compute (SlTrace     *trace,
                   const char  *name,
                   GError     **error)
{
  g_return_val_if_fail (trace != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_strcmp0 (name, "cuda_gpu_kern_sum") == 0)
    return compute_kern_sum (trace, error);
  if (g_strcmp0 (name, "cuda_api_sum") == 0)
    return compute_api_sum (trace, error);
  if (g_strcmp0 (name, "cuda_gpu_mem_time_sum") == 0)
    return compute_mem_time_sum (trace, error);
  if (g_strcmp0 (name, "cuda_gpu_mem_size_sum") == 0)
    return compute_mem_size_sum (trace, error);
  if (g_strcmp0 (name, "cuda_gpu_trace") == 0)
    return compute_gpu_trace (trace, error);
  if (g_strcmp0 (name, "nvtx_sum") == 0)
    return compute_nvtx_sum (trace, error);
  if (g_strcmp0 (name, "osrt_sum") == 0)
    return compute_osrt_sum (trace, error);
  if (g_strcmp0 (name, "cuda_kern_exec_sum") == 0)
    return compute_kern_exec_sum (trace, error);

  g_autofree char *valid = g_strjoinv (", ", (char **) report_names);
  g_set_error (error, SL_STATS_ERROR, SL_STATS_ERROR_UNKNOWN_REPORT,
               "Unknown report '%s'; valid reports are: %s", name != NULL ? name : "(null)", valid);
  return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Writing                                                                                  */

/* "1234567.5" -> "1,234,567.5" (the integer part only; keeps a leading '-'). */
static void
append_grouped (GString    *out,
                const char *digits)
{
  const char *p = digits;
  if (*p == '-')
    g_string_append_c (out, *p++);
  gsize int_len = strspn (p, "0123456789");
  for (gsize i = 0; i < int_len; i++)
    {
      if (i > 0 && (int_len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, p[i]);
    }
  g_string_append (out, p + int_len);
}

static double
cell_number (const SlCell *c)
{
  return c->type == SL_CELL_INT ? (double) c->v.i : c->v.d;
}

static gboolean
unit_scaled (SlUnit unit)
{
  return unit == SL_UNIT_MEM_B || unit == SL_UNIT_THRU_B;
}

/* Shortest text that reads back as the same double, with ".0" on integral values, as Python's
 * repr() writes floats in nsys's CSV and JSON. */
static void
append_double_repr (GString *out,
                    double   d)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (int precision = 15; precision <= 17; precision++)
    {
      g_ascii_formatd (buf, sizeof buf, precision == 15 ? "%.15g" : precision == 16 ? "%.16g" : "%.17g", d);
      if (g_ascii_strtod (buf, NULL) == d)
        break;
    }
  g_string_append (out, buf);
  if (strpbrk (buf, ".eEn") == NULL)
    g_string_append (out, ".0");
}

/* Console text of a cell: integers with thousands separators, ns doubles with one digit,
 * MB and MB/s with three, NULL as nothing. */
static char *
cell_column_text (const SlCell *c,
                  SlUnit        unit)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  GString *s = g_string_new (NULL);

  switch (c->type)
    {
    case SL_CELL_NULL:
      break;
    case SL_CELL_TEXT:
      g_string_append (s, c->v.s);
      break;
    case SL_CELL_INT:
    case SL_CELL_DOUBLE:
      if (unit_scaled (unit))
        append_grouped (s, g_ascii_formatd (buf, sizeof buf, "%.3f", cell_number (c) / 1e6));
      else if (c->type == SL_CELL_INT)
        {
          g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, c->v.i);
          append_grouped (s, buf);
        }
      else if (isfinite (c->v.d))
        append_grouped (s, g_ascii_formatd (buf, sizeof buf, "%.1f", c->v.d));
      else
        g_string_append (s, isnan (c->v.d) ? "nan" : c->v.d > 0 ? "inf" : "-inf");
      break;
    }
  return g_string_free (s, FALSE);
}

static void
append_padded (GString    *out,
               const char *text,
               gsize       width,
               int         align)  /* -1 left, 0 centre, 1 right */
{
  gsize len = g_utf8_strlen (text, -1);
  gsize pad = width > len ? width - len : 0;
  gsize left = align < 0 ? 0 : align > 0 ? pad : pad / 2;

  for (gsize i = 0; i < left; i++)
    g_string_append_c (out, ' ');
  g_string_append (out, text);
  for (gsize i = left; i < pad; i++)
    g_string_append_c (out, ' ');
}

static void
write_column (const SlReport *r,
              GString        *out)
{
  gsize n_rows = sl_report_get_n_rows (r);
  g_autofree gsize *width = g_new0 (gsize, r->n_columns);
  g_autofree gboolean *is_text = g_new0 (gboolean, r->n_columns);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_full (n_rows * r->n_columns, g_free);

  for (guint c = 0; c < r->n_columns; c++)
    width[c] = g_utf8_strlen (r->columns[c].header, -1);
  for (gsize row = 0; row < n_rows; row++)
    for (guint c = 0; c < r->n_columns; c++)
      {
        const SlCell *cell = sl_report_get_cell (r, row, c);
        char *text = cell_column_text (cell, r->columns[c].unit);
        width[c] = MAX (width[c], (gsize) g_utf8_strlen (text, -1));
        if (cell->type == SL_CELL_TEXT)
          is_text[c] = TRUE;
        g_ptr_array_add (texts, text);
      }

  g_string_append_printf (out, "** %s (%s):\n\n", r->title, r->name);
  /* nsys: one leading space, two between columns, headers centred, numbers right-aligned,
   * text left-aligned */
  /* a last text column (kernel names run to hundreds of characters) is not padded: its header
   * stands at its left and lines carry no trailing blanks */
  guint last = r->n_columns - 1;
  gboolean open_end = is_text[last];
  for (guint c = 0; c < r->n_columns; c++)
    {
      g_string_append (out, c == 0 ? " " : "  ");
      if (c == last && open_end)
        g_string_append (out, r->columns[c].header);
      else
        append_padded (out, r->columns[c].header, width[c], 0);
    }
  g_string_append_c (out, '\n');
  for (guint c = 0; c < r->n_columns; c++)
    {
      g_string_append (out, c == 0 ? " " : "  ");
      gsize dashes = c == last && open_end ? MIN (width[c], 80) : width[c];
      for (gsize i = 0; i < dashes; i++)
        g_string_append_c (out, '-');
    }
  g_string_append_c (out, '\n');
  for (gsize row = 0; row < n_rows; row++)
    {
      for (guint c = 0; c < r->n_columns; c++)
        {
          g_string_append (out, c == 0 ? " " : "  ");
          if (c == last && open_end)
            g_string_append (out, g_ptr_array_index (texts, row * r->n_columns + c));
          else
            append_padded (out, g_ptr_array_index (texts, row * r->n_columns + c), width[c],
                           is_text[c] ? -1 : 1);
        }
      g_string_append_c (out, '\n');
    }
  g_string_append_c (out, '\n');
}

/* CSV and JSON numbers: SQL's value, scaled to MB or MB/s for those columns. */
static void
append_plain_number (GString      *out,
                     const SlCell *c,
                     SlUnit        unit)
{
  if (unit_scaled (unit))
    append_double_repr (out, cell_number (c) / 1e6);
  else if (c->type == SL_CELL_INT)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, c->v.i);
  else
    append_double_repr (out, c->v.d);
}

static void
append_csv_field (GString    *out,
                  const char *s)
{
  if (strpbrk (s, ",\"\r\n") == NULL)
    {
      g_string_append (out, s);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static void
write_csv (const SlReport *r,
           GString        *out)
{
  gsize n_rows = sl_report_get_n_rows (r);

  for (guint c = 0; c < r->n_columns; c++)
    {
      if (c > 0)
        g_string_append_c (out, ',');
      append_csv_field (out, r->columns[c].header);
    }
  g_string_append_c (out, '\n');
  for (gsize row = 0; row < n_rows; row++)
    {
      for (guint c = 0; c < r->n_columns; c++)
        {
          const SlCell *cell = sl_report_get_cell (r, row, c);
          if (c > 0)
            g_string_append_c (out, ',');
          if (cell->type == SL_CELL_TEXT)
            append_csv_field (out, cell->v.s);
          else if (cell->type != SL_CELL_NULL)
            append_plain_number (out, cell, r->columns[c].unit);
        }
      g_string_append_c (out, '\n');
    }
}

static void
append_json_string (GString    *out,
                    const char *s)
{
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) s; *p != '\0'; p++)
    {
      switch (*p)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        default:
          if (*p < 0x20)
            g_string_append_printf (out, "\\u%04x", *p);
          else
            g_string_append_c (out, (char) *p);
        }
    }
  g_string_append_c (out, '"');
}

static void
write_json (const SlReport *r,
            GString        *out)
{
  gsize n_rows = sl_report_get_n_rows (r);

  g_string_append_c (out, '[');
  for (gsize row = 0; row < n_rows; row++)
    {
      g_string_append (out, row == 0 ? "\n  {" : ",\n  {");
      for (guint c = 0; c < r->n_columns; c++)
        {
          const SlCell *cell = sl_report_get_cell (r, row, c);
          if (c > 0)
            g_string_append (out, ", ");
          append_json_string (out, r->columns[c].header);
          g_string_append (out, ": ");
          if (cell->type == SL_CELL_TEXT)
            append_json_string (out, cell->v.s);
          else if (cell->type == SL_CELL_NULL || (cell->type == SL_CELL_DOUBLE && !isfinite (cell->v.d)))
            g_string_append (out, "null");
          else
            append_plain_number (out, cell, r->columns[c].unit);
        }
      g_string_append_c (out, '}');
    }
  g_string_append (out, n_rows > 0 ? "\n]\n" : "]\n");
}

void
sl_report_write (const SlReport *report,
                 SlReportFormat  format,
                 GString        *out)
{
  g_return_if_fail (report != NULL && out != NULL);

  switch (format)
    {
    case SL_REPORT_FORMAT_COLUMN:
      write_column (report, out);
      break;
    case SL_REPORT_FORMAT_CSV:
      write_csv (report, out);
      break;
    case SL_REPORT_FORMAT_JSON:
      write_json (report, out);
      break;
    }
}
