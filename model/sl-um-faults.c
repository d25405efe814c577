/* sl-um-faults.c: the page-fault rows that sl-reader-faults.c reads, sorted and indexed per GPU
 * and per process (sl-um-faults.h). */
#include "sl-um-faults.h"
#include "sl-trace-private.h"

typedef struct
{
  GArray  *series;   /* SlUmFaultSeries, pointing into the three arrays below */
  guint32 *rows;     /* n rows, series after series */
  SlTime  *starts;
  guint64 *prefix;   /* n rows + one per series */
} SlUmFaultIndex;

/* ---- rows ---------------------------------------------------------------------------------- */

static gint
fault_order (gconstpointer a,
             gconstpointer b)
{
  const SlUmFault *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->side != y->side)
    return x->side < y->side ? -1 : 1;
  if (x->global_pid != y->global_pid)   /* a merged trace: each file's rows keep their order */
    return x->global_pid < y->global_pid ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

void
_sl_trace_sort_um_faults (SlTrace *trace)
{
  GArray *rows = trace->um_faults;
  gboolean sorted = TRUE;

  g_assert (trace->um_fault_index == NULL);
  /* nsys writes each table in time order; two tables, or a merge, need the sort */
  for (guint i = 1; i < rows->len && sorted; i++)
    sorted = fault_order (&g_array_index (rows, SlUmFault, i - 1),
                          &g_array_index (rows, SlUmFault, i)) <= 0;
  if (!sorted)
    g_array_sort (rows, fault_order);
}

gboolean
_sl_um_faults_check (SlTrace *trace)
{
  for (guint i = 0; i < trace->um_faults->len; i++)
    {
      const SlUmFault *f = &g_array_index (trace->um_faults, SlUmFault, i);
      gboolean gpu_ok = f->side == SL_UM_FAULT_GPU
                          ? f->gpu >= 0 && (guint) f->gpu < trace->gpus->len
                          : f->side == SL_UM_FAULT_CPU && f->gpu == -1;
      gboolean strs_ok = (f->instruction == SL_NO_STR || f->instruction < trace->strs->len)
                         && (f->source_file == SL_NO_STR || f->source_file < trace->strs->len);
      if (!gpu_ok || !strs_ok || f->n_faults < 1 || f->end < f->start)
        return FALSE;
    }
  return TRUE;
}

guint
sl_trace_get_n_um_faults (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return trace->um_faults->len;
}

const SlUmFault *
sl_trace_get_um_fault (SlTrace *trace,
                       guint    i)
{
  g_return_val_if_fail (trace != NULL && i < trace->um_faults->len, NULL);
  return &g_array_index (trace->um_faults, SlUmFault, i);
}

const char *
sl_um_access_label (guint8 access)
{
  static const char *const labels[] = { "Unknown", "Read", "Write", "Atomic", "Prefetch" };

  return access < G_N_ELEMENTS (labels) ? labels[access] : "Unknown";
}

/* ---- the index ----------------------------------------------------------------------------- */

static gint
series_order (gconstpointer a,
              gconstpointer b)
{
  const SlUmFaultSeries *x = a, *y = b;

  if (x->side != y->side)
    return x->side < y->side ? -1 : 1;
  if (x->gpu != y->gpu)
    return x->gpu < y->gpu ? -1 : 1;
  return (x->global_pid > y->global_pid) - (x->global_pid < y->global_pid);
}

void
_sl_um_faults_free (gpointer data)
{
  SlUmFaultIndex *index = data;

  if (index == NULL)
    return;
  g_array_unref (index->series);
  g_free (index->rows);
  g_free (index->starts);
  g_free (index->prefix);
  g_free (index);
}

/* Two passes over the rows: one counts each series' rows, one files them (in time order, as the
 * rows are); the series' slices are laid out in series order. */
static SlUmFaultIndex *
index_build (SlTrace *trace)
{
  SlUmFaultIndex *index = g_new0 (SlUmFaultIndex, 1);
  guint n = trace->um_faults->len, n_gpus = trace->gpus->len;
  const SlUmFault *rows = (const SlUmFault *) (gpointer) trace->um_faults->data;
  g_autofree gint *gpu_series = g_new (gint, MAX (n_gpus, 1));
  g_autoptr (GHashTable) pid_series = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gsize *filled = NULL;

  index->series = g_array_new (FALSE, TRUE, sizeof (SlUmFaultSeries));
  for (guint g = 0; g < n_gpus; g++)
    gpu_series[g] = -1;
  for (guint i = 0; i < n; i++)
    {
      const SlUmFault *f = &rows[i];
      gboolean gpu = f->side == SL_UM_FAULT_GPU;
      gint k = gpu ? gpu_series[f->gpu]
                   : GPOINTER_TO_INT (g_hash_table_lookup (pid_series, &f->global_pid)) - 1;
      if (k < 0)
        {
          SlUmFaultSeries s = { gpu ? SL_UM_FAULT_GPU : SL_UM_FAULT_CPU, gpu ? f->gpu : -1,
                                gpu ? 0 : f->global_pid, NULL, NULL, NULL, 0 };
          k = (gint) index->series->len;
          g_array_append_val (index->series, s);
          if (gpu)
            gpu_series[f->gpu] = k;
          else
            g_hash_table_insert (pid_series, (gpointer) &f->global_pid, GINT_TO_POINTER (k + 1));
        }
      g_array_index (index->series, SlUmFaultSeries, k).n_rows++;
    }
  g_array_sort (index->series, series_order);
  guint n_series = index->series->len;
  index->rows = g_new (guint32, MAX (n, 1));
  index->starts = g_new (SlTime, MAX (n, 1));
  index->prefix = g_new (guint64, n + n_series + 1);
  filled = g_new0 (gsize, MAX (n_series, 1));
  gsize at = 0;
  for (guint k = 0; k < n_series; k++)
    {
      SlUmFaultSeries *s = &g_array_index (index->series, SlUmFaultSeries, k);
      s->rows = index->rows + at;
      s->starts = index->starts + at;
      s->prefix = index->prefix + at + k;
      at += s->n_rows;
      /* the sort moved them: their places again */
      if (s->side == SL_UM_FAULT_GPU)
        gpu_series[s->gpu] = (gint) k;
      else
        g_hash_table_insert (pid_series, (gpointer) &s->global_pid, GINT_TO_POINTER (k + 1));
    }
  for (guint i = 0; i < n; i++)
    {
      const SlUmFault *f = &rows[i];
      gint k = f->side == SL_UM_FAULT_GPU
                 ? gpu_series[f->gpu]
                 : GPOINTER_TO_INT (g_hash_table_lookup (pid_series, &f->global_pid)) - 1;
      g_assert (k >= 0);
      SlUmFaultSeries *s = &g_array_index (index->series, SlUmFaultSeries, k);
      gsize j = filled[k]++;
      ((guint32 *) s->rows)[j] = i;
      ((SlTime *) s->starts)[j] = f->start;
      guint64 *prefix = (guint64 *) s->prefix;
      if (j == 0)
        prefix[0] = 0;
      /* at most 2^32 rows of at most 2^32 faults each: no overflow */
      prefix[j + 1] = prefix[j] + f->n_faults;
    }
  return index;
}

static SlUmFaultIndex *
index_get (SlTrace *trace)
{
  gsize *slot = (gsize *) &trace->um_fault_index;

  if (g_once_init_enter (slot))
    g_once_init_leave (slot, (gsize) index_build (trace));
  return (SlUmFaultIndex *) trace->um_fault_index;
}

guint
sl_um_faults_get_n_series (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  if (trace->um_faults->len == 0)
    return 0;
  return index_get (trace)->series->len;
}

const SlUmFaultSeries *
sl_um_faults_get_series (SlTrace *trace,
                         guint    i)
{
  g_return_val_if_fail (i < sl_um_faults_get_n_series (trace), NULL);
  return &g_array_index (index_get (trace)->series, SlUmFaultSeries, i);
}

gint
sl_um_faults_find_series (SlTrace       *trace,
                          SlUmFaultSide  side,
                          gint           gpu,
                          guint64        global_pid)
{
  guint n = sl_um_faults_get_n_series (trace);

  for (guint i = 0; i < n; i++)   /* a few GPUs and processes */
    {
      const SlUmFaultSeries *s = sl_um_faults_get_series (trace, i);
      if (s->side == side && (side == SL_UM_FAULT_GPU ? s->gpu == gpu
                                                       : s->global_pid == global_pid))
        return (gint) i;
    }
  return -1;
}

gsize
sl_um_fault_series_lower (const SlUmFaultSeries *s,
                          SlTime                 t)
{
  gsize lo = 0, hi = s->n_rows;

  g_return_val_if_fail (s != NULL, 0);
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (s->starts[mid] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

guint64
sl_um_fault_series_count (const SlUmFaultSeries *s,
                          SlTime                 t0,
                          SlTime                 t1)
{
  g_return_val_if_fail (s != NULL, 0);
  if (t1 <= t0 || s->n_rows == 0)
    return 0;
  return s->prefix[sl_um_fault_series_lower (s, t1)] - s->prefix[sl_um_fault_series_lower (s, t0)];
}
