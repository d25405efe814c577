/* sl-memory.c: bytes in use and allocations from CUDA_GPU_MEMORY_USAGE_EVENTS (sl-memory.h). */
#include "sl-memory.h"

#include <stdlib.h>
#include <string.h>

#include "sl-trace-private.h"

typedef struct
{
  GArray  *series;   /* SlMemSeries, their steps in `steps` */
  GArray **steps;    /* per series: SlMemStep */
  GArray  *allocs;   /* SlMemAlloc, by start */
  guint32 *row_alloc; /* per row: its allocation, SL_NO_LINK when none */
  guint32 *row_call;  /* per row: its CUDA call's global id, SL_NO_LINK when none */
} SlMemory;

gboolean
sl_mem_kind_on_gpu (gint kind)
{
  return kind == 2 || kind == 3 || kind == 5;   /* Device, Array, Device Static */
}

const char *
sl_mem_kind_label (SlTrace *trace,
                   gint     kind)
{
  if (kind == SL_MEM_SERIES_GPU)
    return "GPU memory";
  const char *label = sl_trace_enum_label (trace, SL_ENUM_MEM_KIND, kind);
  return label != NULL ? label : "Unknown";
}

/* ---- building ------------------------------------------------------------------------------ */

typedef struct
{
  gint    gpu;
  guint64 pid;
  gint    kind;
} SeriesKey;

static guint
series_key_hash (gconstpointer p)
{
  const SeriesKey *k = p;
  return g_int64_hash (&k->pid) ^ (guint) (k->gpu * 31 + k->kind * 1009);
}

static gboolean
series_key_equal (gconstpointer a,
                  gconstpointer b)
{
  const SeriesKey *x = a, *y = b;
  return x->gpu == y->gpu && x->pid == y->pid && x->kind == y->kind;
}

/* An open allocation: process, GPU and address. */
typedef struct
{
  guint64 pid;
  guint64 address;
  gint    gpu;
} AddrKey;

static guint
addr_key_hash (gconstpointer p)
{
  const AddrKey *k = p;
  guint64 h = (k->address ^ (k->pid * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)))
              + (guint64) k->gpu;
  h ^= h >> 31;
  return (guint) (h ^ (h >> 17));
}

static gboolean
addr_key_equal (gconstpointer a,
                gconstpointer b)
{
  const AddrKey *x = a, *y = b;
  return x->pid == y->pid && x->address == y->address && x->gpu == y->gpu;
}

static void
add_step (SlMemory           *m,
          GHashTable         *index,
          const SeriesKey    *key,
          const SlMemUsage   *row,
          guint32             row_index)
{
  gpointer found;
  guint s;

  if (g_hash_table_lookup_extended (index, key, NULL, &found))
    s = GPOINTER_TO_UINT (found);
  else
    {
      SlMemSeries fresh = { key->gpu, key->pid, key->kind, NULL, 0, 0, row->start, 0 };
      s = m->series->len;
      g_array_append_val (m->series, fresh);
      g_hash_table_insert (index, g_memdup2 (key, sizeof *key), GUINT_TO_POINTER (s));
    }
  GArray *steps = g_ptr_array_index ((GPtrArray *) m->steps, s);
  gint64 before = steps->len > 0 ? g_array_index (steps, SlMemStep, steps->len - 1).bytes : 0;
  gint64 delta = (gint64) MIN (row->bytes, (guint64) G_MAXINT64);
  gint64 after;
  if (__builtin_add_overflow (before, row->op == SL_MEM_FREE ? -delta : delta, &after))
    after = row->op == SL_MEM_FREE ? G_MININT64 : G_MAXINT64;
  SlMemStep step = { row->start, after, row_index, 0 };
  g_array_append_val (steps, step);
  SlMemSeries *series = &g_array_index (m->series, SlMemSeries, s);
  if (after > series->peak)
    {
      series->peak = after;
      series->peak_time = row->start;
      series->peak_step = steps->len - 1;
    }
}

/* Series by GPU, the GPU's own first, then by process and kind. */
static gint
series_order (gconstpointer a,
              gconstpointer b)
{
  const SlMemSeries *x = a, *y = b;
  if (x->gpu != y->gpu)
    return x->gpu < y->gpu ? -1 : 1;
  if ((x->kind == SL_MEM_SERIES_GPU) != (y->kind == SL_MEM_SERIES_GPU))
    return x->kind == SL_MEM_SERIES_GPU ? -1 : 1;
  if (x->global_pid != y->global_pid)
    return x->global_pid < y->global_pid ? -1 : 1;
  return (x->kind > y->kind) - (x->kind < y->kind);
}

static gint
alloc_order (gconstpointer a,
             gconstpointer b)
{
  const SlMemAlloc *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->alloc > y->alloc) - (x->alloc < y->alloc);
}

/* The CUDA call of each row with a correlation id: one pass over the CUDA API lanes of the
 * processes that have such rows. */
static void
find_calls (SlTrace  *trace,
            SlMemory *m)
{
  guint n = trace->mem_usage->len;
  g_autoptr (GHashTable) wanted = g_hash_table_new_full (addr_key_hash, addr_key_equal, g_free,
                                                          NULL);
  g_autoptr (GHashTable) pids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  m->row_call = g_new (guint32, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      const SlMemUsage *row = &g_array_index (trace->mem_usage, SlMemUsage, i);
      m->row_call[i] = SL_NO_LINK;
      if (row->corr == 0)
        continue;
      /* keyed as an address key: process, correlation id, GPU unused */
      AddrKey key = { row->global_pid, row->corr, 0 };
      GArray *rows = g_hash_table_lookup (wanted, &key);
      if (rows == NULL)
        {
          rows = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_hash_table_insert (wanted, g_memdup2 (&key, sizeof key), rows);
        }
      g_array_append_val (rows, i);
      if (!g_hash_table_contains (pids, &row->global_pid))
        g_hash_table_add (pids, g_memdup2 (&row->global_pid, sizeof row->global_pid));
    }
  if (g_hash_table_size (wanted) == 0)
    return;
  for (guint l = 0; l < trace->lanes->len; l++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, l);
      if (lane->kind != SL_LANE_CUDA_API || !g_hash_table_contains (pids, &lane->global_pid))
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          if (lane->events[k].corr == 0)
            continue;
          AddrKey key = { lane->global_pid, lane->events[k].corr, 0 };
          GArray *rows = g_hash_table_lookup (wanted, &key);
          if (rows == NULL)
            continue;
          for (guint r = 0; r < rows->len; r++)
            {
              guint32 *call = &m->row_call[g_array_index (rows, guint32, r)];
              /* nsys writes a backtraced call twice: the first (the outer one) wins */
              if (*call == SL_NO_LINK)
                *call = lane->base + (guint32) k;
            }
        }
    }
  GHashTableIter iter;
  gpointer value;
  g_hash_table_iter_init (&iter, wanted);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_array_unref (value);
}

static SlMemory *
memory_build (SlTrace *trace)
{
  SlMemory *m = g_new0 (SlMemory, 1);
  guint n = trace->mem_usage->len;
  g_autoptr (GHashTable) index = g_hash_table_new_full (series_key_hash, series_key_equal, g_free,
                                                         NULL);
  g_autoptr (GHashTable) open = g_hash_table_new_full (addr_key_hash, addr_key_equal, g_free,
                                                        NULL);
  GPtrArray *steps = g_ptr_array_new ();

  m->series = g_array_new (FALSE, FALSE, sizeof (SlMemSeries));
  m->steps = (GArray **) steps;
  m->allocs = g_array_new (FALSE, FALSE, sizeof (SlMemAlloc));
  m->row_alloc = g_new (guint32, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      const SlMemUsage *row = &g_array_index (trace->mem_usage, SlMemUsage, i);
      SeriesKey key = { row->gpu, row->global_pid, row->mem_kind };

      if (!g_hash_table_contains (index, &key))
        g_ptr_array_add (steps, g_array_new (FALSE, FALSE, sizeof (SlMemStep)));
      add_step (m, index, &key, row, i);
      if (sl_mem_kind_on_gpu (row->mem_kind))
        {
          SeriesKey gpu_key = { row->gpu, 0, SL_MEM_SERIES_GPU };
          if (!g_hash_table_contains (index, &gpu_key))
            g_ptr_array_add (steps, g_array_new (FALSE, FALSE, sizeof (SlMemStep)));
          add_step (m, index, &gpu_key, row, i);
        }

      /* allocations: a free closes the latest open allocation at its address */
      AddrKey where = { row->global_pid, row->address, row->gpu };
      gpointer open_index;
      if (row->op != SL_MEM_FREE)
        {
          SlMemAlloc a = { i, SL_NO_LINK, row->start, G_MAXINT64, row->bytes, row->address,
                           row->global_pid, row->gpu, row->mem_kind, { 0 } };
          g_array_append_val (m->allocs, a);
          m->row_alloc[i] = m->allocs->len - 1;
          g_hash_table_replace (open, g_memdup2 (&where, sizeof where),
                                GUINT_TO_POINTER (m->allocs->len - 1));
        }
      else if (g_hash_table_lookup_extended (open, &where, NULL, &open_index))
        {
          SlMemAlloc *a = &g_array_index (m->allocs, SlMemAlloc, GPOINTER_TO_UINT (open_index));
          a->free = i;
          a->end = row->start;
          m->row_alloc[i] = GPOINTER_TO_UINT (open_index);
          g_hash_table_remove (open, &where);
        }
      else
        {
          SlMemAlloc a = { SL_NO_LINK, i, G_MININT64, row->start, row->bytes, row->address,
                           row->global_pid, row->gpu, row->mem_kind, { 0 } };
          g_array_append_val (m->allocs, a);
          m->row_alloc[i] = m->allocs->len - 1;
        }
    }

  /* series in display order, each pointing at its steps */
  for (guint s = 0; s < m->series->len; s++)
    {
      SlMemSeries *series = &g_array_index (m->series, SlMemSeries, s);
      GArray *a = g_ptr_array_index (steps, s);
      series->steps = (const SlMemStep *) a->data;
      series->n_steps = a->len;
    }
  g_array_sort (m->series, series_order);

  /* allocations by start; the rows' links follow */
  guint n_allocs = m->allocs->len;
  g_autofree guint32 *order = g_new (guint32, MAX (n_allocs, 1));
  {
    /* sort a copy with its old index, then renumber the rows' links */
    typedef struct { SlMemAlloc a; guint32 old; } Tagged;
    g_autofree Tagged *tagged = g_new (Tagged, MAX (n_allocs, 1));
    for (guint a = 0; a < n_allocs; a++)
      tagged[a] = (Tagged) { g_array_index (m->allocs, SlMemAlloc, a), a };
    qsort (tagged, n_allocs, sizeof (Tagged), alloc_order);  /* `a` is the first member */
    for (guint a = 0; a < n_allocs; a++)
      {
        g_array_index (m->allocs, SlMemAlloc, a) = tagged[a].a;
        order[tagged[a].old] = a;
      }
  }
  for (guint i = 0; i < n; i++)
    if (m->row_alloc[i] != SL_NO_LINK)
      m->row_alloc[i] = order[m->row_alloc[i]];

  find_calls (trace, m);
  return m;
}

void
_sl_memory_free (gpointer memory)
{
  SlMemory *m = memory;

  if (m == NULL)
    return;
  GPtrArray *steps = (GPtrArray *) m->steps;
  for (guint s = 0; s < steps->len; s++)
    g_array_unref (g_ptr_array_index (steps, s));
  g_ptr_array_unref (steps);
  g_array_unref (m->series);
  g_array_unref (m->allocs);
  g_free (m->row_alloc);
  g_free (m->row_call);
  g_free (m);
}

static SlMemory *
memory_get (SlTrace *trace)
{
  gsize *slot = (gsize *) &trace->memory;

  if (g_once_init_enter (slot))
    g_once_init_leave (slot, (gsize) memory_build (trace));
  return (SlMemory *) trace->memory;
}

/* ---- rows ---------------------------------------------------------------------------------- */

static gint
mem_usage_order (gconstpointer a,
                 gconstpointer b)
{
  const SlMemUsage *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->global_pid != y->global_pid)   /* a merged trace: each file's rows keep their order */
    return x->global_pid < y->global_pid ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

void
_sl_trace_sort_mem_usage (SlTrace *trace)
{
  g_array_sort (trace->mem_usage, mem_usage_order);
}

guint
sl_trace_get_n_mem_usage (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return trace->mem_usage->len;
}

const SlMemUsage *
sl_trace_get_mem_usage (SlTrace *trace,
                        guint    i)
{
  g_return_val_if_fail (trace != NULL && i < trace->mem_usage->len, NULL);
  return &g_array_index (trace->mem_usage, SlMemUsage, i);
}

/* ---- queries ------------------------------------------------------------------------------- */

guint
sl_memory_get_n_series (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  if (trace->mem_usage->len == 0)
    return 0;
  return memory_get (trace)->series->len;
}

const SlMemSeries *
sl_memory_get_series (SlTrace *trace,
                      guint    i)
{
  g_return_val_if_fail (i < sl_memory_get_n_series (trace), NULL);
  return &g_array_index (memory_get (trace)->series, SlMemSeries, i);
}

gint
sl_memory_find_gpu_series (SlTrace *trace,
                           gint     gpu)
{
  guint n = sl_memory_get_n_series (trace);
  for (guint i = 0; i < n; i++)
    {
      const SlMemSeries *s = sl_memory_get_series (trace, i);
      if (s->gpu == gpu && s->kind == SL_MEM_SERIES_GPU)
        return (gint) i;
    }
  return -1;
}

gssize
sl_mem_series_step_at (const SlMemSeries *series,
                       SlTime             t)
{
  gsize lo = 0, hi = series->n_steps;   /* the first step after t */
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (series->steps[mid].time <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return (gssize) lo - 1;
}

gint64
sl_mem_series_bytes_at (const SlMemSeries *series,
                        SlTime             t)
{
  gssize i = sl_mem_series_step_at (series, t);
  return i < 0 ? 0 : series->steps[i].bytes;
}

gint64
sl_mem_series_max_between (const SlMemSeries *series,
                           SlTime             t0,
                           SlTime             t1)
{
  gssize i = sl_mem_series_step_at (series, t0);
  gint64 best = i < 0 ? 0 : series->steps[i].bytes;
  for (gsize k = (gsize) (i + 1); k < series->n_steps && series->steps[k].time < t1; k++)
    best = MAX (best, series->steps[k].bytes);
  return best;
}

guint
sl_memory_get_n_allocs (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  if (trace->mem_usage->len == 0)
    return 0;
  return memory_get (trace)->allocs->len;
}

const SlMemAlloc *
sl_memory_get_alloc (SlTrace *trace,
                     guint    i)
{
  g_return_val_if_fail (i < sl_memory_get_n_allocs (trace), NULL);
  return &g_array_index (memory_get (trace)->allocs, SlMemAlloc, i);
}

guint32
sl_memory_find_row_alloc (SlTrace *trace,
                          guint    row)
{
  g_return_val_if_fail (trace != NULL && row < trace->mem_usage->len, SL_NO_LINK);
  return memory_get (trace)->row_alloc[row];
}

guint32
sl_memory_get_row_call (SlTrace *trace,
                        guint    row)
{
  g_return_val_if_fail (trace != NULL && row < trace->mem_usage->len, SL_NO_LINK);
  return memory_get (trace)->row_call[row];
}

guint
sl_memory_find_call_rows (SlTrace *trace,
                          guint32  call,
                          guint   *out,
                          guint    max)
{
  guint n = 0;

  if (trace->mem_usage->len == 0 || call == SL_NO_LINK)
    return 0;
  SlMemory *m = memory_get (trace);
  for (guint i = 0; i < trace->mem_usage->len; i++)   /* on a click: one pass */
    if (m->row_call[i] == call)
      {
        if (n < max)
          out[n] = i;
        n++;
      }
  return n;
}

gboolean
sl_mem_series_holds (const SlMemSeries *s,
                     const SlMemAlloc  *a)
{
  if (a->gpu != s->gpu)
    return FALSE;
  if (s->kind == SL_MEM_SERIES_GPU)
    return sl_mem_kind_on_gpu (a->mem_kind);
  return a->global_pid == s->global_pid && a->mem_kind == s->kind;
}

static gint
live_order (gconstpointer a,
            gconstpointer b,
            gpointer      data)
{
  SlTrace *trace = data;
  const SlMemAlloc *x = sl_memory_get_alloc (trace, *(const guint32 *) a);
  const SlMemAlloc *y = sl_memory_get_alloc (trace, *(const guint32 *) b);
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  guint32 i = *(const guint32 *) a, j = *(const guint32 *) b;
  return (i > j) - (i < j);
}

guint
sl_memory_live_at (SlTrace *trace,
                   guint    series,
                   SlTime   t,
                   GArray  *out)
{
  g_return_val_if_fail (series < sl_memory_get_n_series (trace), 0);
  const SlMemSeries *s = sl_memory_get_series (trace, series);
  SlMemory *m = memory_get (trace);
  guint first = out->len;

  for (guint i = 0; i < m->allocs->len; i++)
    {
      const SlMemAlloc *a = &g_array_index (m->allocs, SlMemAlloc, i);
      if (a->start > t)
        break;                          /* by start: none later is live */
      if (a->alloc != SL_NO_LINK && a->end > t && sl_mem_series_holds (s, a))
        g_array_append_val (out, i);
    }
  g_qsort_with_data ((guint32 *) (gpointer) out->data + first, (gint) (out->len - first),
                     sizeof (guint32), live_order, trace);
  return out->len - first;
}
