/* sl-reader-metrics.c: GPU_METRICS (nsys --gpu-metrics-devices) into per-GPU, per-metric series
 * of samples (sl-metrics.h), named by TARGET_INFO_GPU_METRICS.  nsys samples every metric of a
 * GPU together, 10 kHz by default: rows come interleaved, ~20 metrics a GPU, 10^6 … 10^7 rows. */
#include "sl-reader-private.h"
#include "sl-sort.h"

#include <stdlib.h>
#include <string.h>

#include "sl-metrics.h"

/* metricIds below this are found by indexing, the rest by hashing (nsys's are small) */
#define DENSE_METRICS 1024

typedef struct
{
  gint32 gpu;
  gint64 metric_id;
} SeriesKey;

static guint
series_key_hash (gconstpointer p)
{
  const SeriesKey *k = p;
  return g_int64_hash (&k->metric_id) ^ (guint) (k->gpu * 2654435761u);
}

static gboolean
series_key_equal (gconstpointer a,
                  gconstpointer b)
{
  const SeriesKey *x = a, *y = b;
  return x->gpu == y->gpu && x->metric_id == y->metric_id;
}

typedef struct
{
  /* TARGET_INFO_GPU_METRICS: (typeId, metricId) -> string id + 1, and metricId alone */
  GHashTable *names;
  GHashTable *names_by_metric;

  /* typeId -> GPU index + 1 (bit 31: a GPU no table of the trace describes) */
  GHashTable *types;
  gint64      last_type;
  guint32     last_type_value;

  guint32    *dense;        /* [gpu * DENSE_METRICS + metricId] -> series + 1 */
  gsize       dense_gpus;
  GHashTable *sparse;       /* SeriesKey * -> series + 1 */
  GArray     *info;         /* SlMetricSeries: gpu, name, metric_id */
  GPtrArray  *times;        /* per series: GArray of SlTime */
  GPtrArray  *values;       /* per series: GArray of double */

  guint64     bad_value;    /* NULL or not a number */
  guint64     unknown_gpu;  /* rows of GPUs the trace's GPU tables do not have */
  guint64     unnamed;      /* series without a TARGET_INFO_GPU_METRICS name */
} MetricRows;

static inline guint64
name_key (gint64 type_id,
          gint64 metric_id)
{
  guint64 h = (guint64) type_id * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  return h ^ (guint64) metric_id;
}

/* ---- TARGET_INFO_GPU_METRICS ------------------------------------------------------------- */

static void
name_row (SlReader     *r,
          sqlite3_stmt *stmt,
          SlEvent      *ev G_GNUC_UNUSED,
          SlRowLoop    *loop)
{
  MetricRows *rows = loop->data;

  if (sqlite3_column_type (stmt, 0) == SQLITE_NULL || sqlite3_column_type (stmt, 1) == SQLITE_NULL
      || sqlite3_column_type (stmt, 2) != SQLITE_TEXT)
    {
      loop->trouble.null_owner++;
      return;
    }
  gint64 type_id = sqlite3_column_int64 (stmt, 0), metric_id = sqlite3_column_int64 (stmt, 1);
  guint32 name = _sl_reader_col_text (r, stmt, 2);
  guint64 key = name_key (type_id, metric_id);
  /* the key is a hash of both: a collision only ever names a metric by another GPU's name of
   * the same id, which nsys gives every GPU of a kind alike */
  g_hash_table_insert (rows->names, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (name + 1));
  if (!g_hash_table_contains (rows->names_by_metric, &metric_id))
    g_hash_table_insert (rows->names_by_metric, g_memdup2 (&metric_id, sizeof metric_id),
                         GUINT_TO_POINTER (name + 1));
}

/* ---- GPU_METRICS ------------------------------------------------------------------------- */

static guint32
type_lookup (SlReader   *r,
             MetricRows *rows,
             gint64      type_id)
{
  gpointer found;

  if (g_hash_table_lookup_extended (rows->types, &type_id, NULL, &found))
    return GPOINTER_TO_UINT (found);
  /* the GPU is the type's low byte (nsys's schema documentation) */
  guint32 device = (guint32) (type_id & 0xFF);
  gboolean known = sl_trace_find_gpu (r->trace, device) >= 0;
  guint32 value = (guint32) _sl_reader_gpu_for (r, device) + 1;
  if (!known)
    value |= 1u << 31;
  g_hash_table_insert (rows->types, g_memdup2 (&type_id, sizeof type_id), GUINT_TO_POINTER (value));
  return value;
}

static guint32
series_new (SlReader   *r,
            MetricRows *rows,
            gint64      type_id,
            gint        gpu,
            gint64      metric_id)
{
  guint64 key = name_key (type_id, metric_id);
  guint32 name = GPOINTER_TO_UINT (g_hash_table_lookup (rows->names, &key));

  if (name == 0)
    name = GPOINTER_TO_UINT (g_hash_table_lookup (rows->names_by_metric, &metric_id));
  if (name == 0)
    {
      g_autofree char *text = g_strdup_printf ("Metric %" G_GINT64_FORMAT, metric_id);
      name = _sl_trace_intern (r->trace, text, -1) + 1;
      rows->unnamed++;
    }
  SlMetricSeries s = { .gpu = gpu, .name = name - 1, .metric_id = metric_id };
  g_array_append_val (rows->info, s);
  g_ptr_array_add (rows->times, g_array_new (FALSE, FALSE, sizeof (SlTime)));
  g_ptr_array_add (rows->values, g_array_new (FALSE, FALSE, sizeof (double)));
  return rows->info->len;
}

/* The series of a row: + 1. */
static inline guint32
series_for (SlReader   *r,
            MetricRows *rows,
            gint64      type_id,
            gint64      metric_id)
{
  if (type_id != rows->last_type || rows->last_type_value == 0)
    {
      rows->last_type = type_id;
      rows->last_type_value = type_lookup (r, rows, type_id);
    }
  gint gpu = (gint) (rows->last_type_value & ~(1u << 31)) - 1;
  guint32 *slot = NULL;

  if (metric_id >= 0 && metric_id < DENSE_METRICS)
    {
      if ((gsize) gpu >= rows->dense_gpus)
        {
          gsize n = MAX ((gsize) gpu + 1, rows->dense_gpus * 2);
          rows->dense = g_renew (guint32, rows->dense, n * DENSE_METRICS);
          memset (rows->dense + rows->dense_gpus * DENSE_METRICS, 0,
                  (n - rows->dense_gpus) * DENSE_METRICS * sizeof (guint32));
          rows->dense_gpus = n;
        }
      slot = &rows->dense[(gsize) gpu * DENSE_METRICS + (gsize) metric_id];
      if (G_LIKELY (*slot != 0))
        return *slot;
    }
  else
    {
      SeriesKey key = { gpu, metric_id };
      guint32 found = GPOINTER_TO_UINT (g_hash_table_lookup (rows->sparse, &key));
      if (found != 0)
        return found;
    }
  guint32 s = series_new (r, rows, type_id, gpu, metric_id);
  if (slot != NULL)
    *slot = s;
  else
    {
      SeriesKey key = { gpu, metric_id };
      g_hash_table_insert (rows->sparse, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (s));
    }
  return s;
}

static void
metric_row (SlReader     *r,
            sqlite3_stmt *stmt,
            SlEvent      *ev,
            SlRowLoop    *loop)
{
  MetricRows *rows = loop->data;
  int value_type = sqlite3_column_type (stmt, 4);

  if (G_UNLIKELY (sqlite3_column_type (stmt, 2) == SQLITE_NULL
                  || sqlite3_column_type (stmt, 3) == SQLITE_NULL))
    {
      loop->trouble.null_owner++;   /* no GPU or no metric to be about */
      return;
    }
  if (G_UNLIKELY (value_type != SQLITE_INTEGER && value_type != SQLITE_FLOAT))
    {
      rows->bad_value++;
      loop->trouble.not_events++;   /* skipped: counted in the inventory, warned about below */
      return;
    }
  gint64 type_id = sqlite3_column_int64 (stmt, 2);
  guint32 s = series_for (r, rows, type_id, sqlite3_column_int64 (stmt, 3)) - 1;
  double v = value_type == SQLITE_INTEGER ? (double) sqlite3_column_int64 (stmt, 4)
                                          : sqlite3_column_double (stmt, 4);
  if (G_UNLIKELY (rows->last_type_value & (1u << 31)))
    rows->unknown_gpu++;
  g_array_append_val ((GArray *) g_ptr_array_index (rows->times, s), ev->start);
  g_array_append_val ((GArray *) g_ptr_array_index (rows->values, s), v);
}

/* ---- building the series ----------------------------------------------------------------- */

typedef struct
{
  SlTime  t;
  double  v;
  guint64 seq;
} Sample;

static gint
sample_order (gconstpointer a,
              gconstpointer b)
{
  const Sample *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts a series by time, ties in the file's order (nsys writes them sorted: one look). */
static void
sort_series (GArray *times,
             GArray *values)
{
  const SlTime *t = (const SlTime *) times->data;
  gboolean sorted = TRUE;

  for (guint k = 1; k < times->len && sorted; k++)
    sorted = t[k - 1] <= t[k];
  if (sorted)
    return;
  g_autofree Sample *s = g_new (Sample, times->len);
  for (guint k = 0; k < times->len; k++)
    s[k] = (Sample) { t[k], g_array_index (values, double, k), k };
  qsort (s, times->len, sizeof (Sample), sample_order);
  for (guint k = 0; k < times->len; k++)
    {
      g_array_index (times, SlTime, k) = s[k].t;
      g_array_index (values, double, k) = s[k].v;
    }
}

/* The lower median of the gaps between a series' samples, at least 1 ns. */
static SlTime
median_gap (const SlTime *t,
            gsize         n)
{
  if (n < 2)
    return 1;
  g_autofree gint64 *gaps = g_new (gint64, n - 1);
  for (gsize k = 1; k < n; k++)
    gaps[k - 1] = t[k] - t[k - 1];
  return MAX (sl_select_int64 (gaps, n - 1, (n - 2) / 2), 1);
}

static gint
series_order (gconstpointer a,
              gconstpointer b,
              gpointer      data)
{
  const SlMetricSeries *info = data;
  const SlMetricSeries *x = &info[*(const guint *) a], *y = &info[*(const guint *) b];
  if (x->gpu != y->gpu)
    return x->gpu < y->gpu ? -1 : 1;
  return x->metric_id < y->metric_id ? -1 : x->metric_id > y->metric_id;
}

static void
metric_rows_done (SlReader  *r,
                  SlRowLoop *loop)
{
  MetricRows *rows = loop->data;
  SlTrace *trace = r->trace;
  guint n = rows->info->len;
  guint64 total = 0;

  g_autofree guint *order = g_new (guint, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      order[i] = i;
      total += ((GArray *) g_ptr_array_index (rows->times, i))->len;
    }
  g_qsort_with_data (order, (gint) n, sizeof (guint), series_order, rows->info->data);
  g_array_set_size (trace->metric_times, total);
  g_array_set_size (trace->metric_values, total);
  guint64 at = 0;
  for (guint o = 0; o < n; o++)
    {
      guint i = order[o];
      GArray *times = g_ptr_array_index (rows->times, i);
      GArray *values = g_ptr_array_index (rows->values, i);
      SlMetricSeries s = g_array_index (rows->info, SlMetricSeries, i);

      sort_series (times, values);
      s.first = at;
      s.count = times->len;
      s.period = median_gap ((const SlTime *) times->data, times->len);
      memcpy (&g_array_index (trace->metric_times, SlTime, at), times->data,
              times->len * sizeof (SlTime));
      memcpy (&g_array_index (trace->metric_values, double, at), values->data,
              values->len * sizeof (double));
      at += times->len;
      g_array_append_val (trace->metric_series, s);
      /* each series' rows freed as soon as copied: the load's peak stays near one copy */
      g_array_set_size (times, 0);
      g_array_set_size (values, 0);
    }

  if (rows->bad_value > 0)
    _sl_trace_warn (trace, "%s: %" G_GUINT64_FORMAT " rows of GPU_METRICS have a NULL value or "
                    "one that is not a number; they were skipped", trace->path, rows->bad_value);
  if (rows->unknown_gpu > 0)
    _sl_trace_warn (trace, "%s: %" G_GUINT64_FORMAT " rows of GPU_METRICS are of GPUs "
                    "(typeId & 0xFF) that the trace's GPU tables do not list; they were read as "
                    "GPUs of their own", trace->path, rows->unknown_gpu);
  if (rows->unnamed > 0)
    _sl_trace_warn (trace, "%s: %" G_GUINT64_FORMAT " metrics of GPU_METRICS have no name in "
                    "TARGET_INFO_GPU_METRICS; they are called \"Metric <metricId>\"", trace->path,
                    rows->unnamed);
}

static void
metric_rows_clear (MetricRows *rows)
{
  g_hash_table_unref (rows->names);
  g_hash_table_unref (rows->names_by_metric);
  g_hash_table_unref (rows->types);
  g_hash_table_unref (rows->sparse);
  g_free (rows->dense);
  g_array_unref (rows->info);
  g_ptr_array_unref (rows->times);
  g_ptr_array_unref (rows->values);
}

gboolean
_sl_reader_read_gpu_metrics (SlReader *r,
                             GError  **error)
{
  MetricRows rows = {
    .names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL),
    .names_by_metric = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL),
    .types = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL),
    .sparse = g_hash_table_new_full (series_key_hash, series_key_equal, g_free, NULL),
    .info = g_array_new (FALSE, FALSE, sizeof (SlMetricSeries)),
    .times = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref),
    .values = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref),
  };
  SlRowLoop names = {
    .table = "TARGET_INFO_GPU_METRICS",
    .sql = "SELECT {typeId:NULL}, {metricId:NULL}, {metricName:NULL} FROM TARGET_INFO_GPU_METRICS",
    .row = name_row, .data = &rows,
  };
  /* rawTimestamp is the GPU's own clock; `timestamp` is on the trace's axis */
  SlRowLoop samples = {
    .table = "GPU_METRICS", .what = "GPU metrics", .times = TRUE,
    .sql = "SELECT timestamp, timestamp, {typeId:NULL}, {metricId:NULL}, {value:NULL} "
           "FROM GPU_METRICS",
    .row = metric_row, .done = metric_rows_done, .data = &rows,
  };
  gboolean ok;

  /* an append reads them whole again (they are not in the live view's rowid tables) */
  g_array_set_size (r->trace->metric_series, 0);
  g_array_set_size (r->trace->metric_times, 0);
  g_array_set_size (r->trace->metric_values, 0);
  ok = (!_sl_reader_table_exists (r, "TARGET_INFO_GPU_METRICS")
        || _sl_reader_each_row (r, &names, error))
       && _sl_reader_each_row (r, &samples, error);
  metric_rows_clear (&rows);
  return ok;
}
