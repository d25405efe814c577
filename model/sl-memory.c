/* sl-memory.c: bytes in use and allocations from CUDA_GPU_MEMORY_USAGE_EVENTS (sl-memory.h). */
#include "sl-memory.h"

#include <stdlib.h>
#include <string.h>

#include "sl-trace-private.h"

typedef struct
{
  GArray     *series;        /* SlMemSeries, their steps in `steps` */
  SlMemStep **steps;         /* per series (in the order made): its steps */
  guint       n_step_arrays;
  GArray     *allocs;        /* SlMemAlloc, by start */
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

/* A CUDA call: its process and correlation id. */
typedef struct
{
  guint64 pid;
  guint32 corr;
} CallKey;

static guint
call_key_hash (gconstpointer p)
{
  const CallKey *k = p;
  guint64 h = k->corr * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15) ^ k->pid;
  return (guint) (h ^ (h >> 31));
}

static gboolean
call_key_equal (gconstpointer a,
                gconstpointer b)
{
  const CallKey *x = a, *y = b;
  return x->pid == y->pid && x->corr == y->corr;
}

/* The series of `key`, made when new (its steps counted in a first pass, then filled). */
static guint
series_of (SlMemory        *m,
           GHashTable      *index,
           const SeriesKey *key,
           SlTime           first)
{
  gpointer found;

  if (g_hash_table_lookup_extended (index, key, NULL, &found))
    return GPOINTER_TO_UINT (found);
  SlMemSeries fresh = { key->gpu, key->pid, key->kind, NULL, 0, 0, first, 0 };
  guint s = m->series->len;
  g_array_append_val (m->series, fresh);
  g_hash_table_insert (index, g_memdup2 (key, sizeof *key), GUINT_TO_POINTER (s));
  return s;
}

/* Appends `row`'s change to series `s` (its steps sized already). */
static void
add_step (SlMemory         *m,
          guint             s,
          const SlMemUsage *row,
          guint32           row_index)
{
  SlMemSeries *series = &g_array_index (m->series, SlMemSeries, s);
  SlMemStep *steps = (SlMemStep *) series->steps;
  gint64 before = series->n_steps > 0 ? steps[series->n_steps - 1].bytes : 0;
  gint64 delta = (gint64) MIN (row->bytes, (guint64) G_MAXINT64);
  gint64 after;

  if (__builtin_add_overflow (before, row->op == SL_MEM_FREE ? -delta : delta, &after))
    after = row->op == SL_MEM_FREE ? G_MININT64 : G_MAXINT64;
  steps[series->n_steps] = (SlMemStep) { row->start, after, row_index, 0 };
  if (after > series->peak)
    {
      series->peak = after;
      series->peak_time = row->start;
      series->peak_step = series->n_steps;
    }
  series->n_steps++;
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

/* The CUDA call of each row with a correlation id: one pass over the CUDA API lanes of the
 * processes that have such rows. */
static void
find_calls (SlTrace  *trace,
            SlMemory *m)
{
  guint n = trace->mem_usage->len;
  g_autoptr (GHashTable) wanted = g_hash_table_new_full (call_key_hash, call_key_equal, g_free,
                                                          NULL);
  g_autoptr (GHashTable) pids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  m->row_call = g_new (guint32, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      const SlMemUsage *row = &g_array_index (trace->mem_usage, SlMemUsage, i);
      m->row_call[i] = SL_NO_LINK;
      if (row->corr == 0)
        continue;
      CallKey key = { row->global_pid, row->corr };
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
          CallKey key = { lane->global_pid, lane->events[k].corr };
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

/* The open allocations by process, GPU and address: open addressing, no allocation a row (10^6
 * rows: a GHashTable with a key each cost seconds).  A slot holds an allocation index + 1; 0 is
 * empty, OPEN_GONE a removed one the probe goes past. */
#define OPEN_GONE G_MAXUINT32

typedef struct
{
  guint32 *slots;
  gsize    mask;
} OpenTable;

static gsize
open_hash (const SlMemAlloc *a)
{
  guint64 h = (a->address >> 8) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)
              ^ a->global_pid * G_GUINT64_CONSTANT (0xC2B2AE3D27D4EB4F) ^ (guint64) a->gpu;
  return (gsize) (h ^ (h >> 29));
}

static gboolean
same_place (const SlMemAlloc *a,
            const SlMemUsage *row)
{
  return a->address == row->address && a->global_pid == row->global_pid && a->gpu == row->gpu;
}

/* The slot of the open allocation at `row`'s place, or NULL. */
static guint32 *
open_find (OpenTable        *t,
           const SlMemAlloc *allocs,
           const SlMemUsage *row)
{
  SlMemAlloc probe = { 0 };
  probe.address = row->address;
  probe.global_pid = row->global_pid;
  probe.gpu = row->gpu;
  for (gsize i = open_hash (&probe) & t->mask;; i = (i + 1) & t->mask)
    {
      guint32 v = t->slots[i];
      if (v == 0)
        return NULL;
      if (v != OPEN_GONE && same_place (&allocs[v - 1], row))
        return &t->slots[i];
    }
}

static void
open_put (OpenTable        *t,
          const SlMemAlloc *allocs,
          guint32           index)
{
  gsize i = open_hash (&allocs[index]) & t->mask;
  while (t->slots[i] != 0 && t->slots[i] != OPEN_GONE)
    i = (i + 1) & t->mask;
  t->slots[i] = index + 1;
}

static SlMemory *
memory_build (SlTrace *trace)
{
  SlMemory *m = g_new0 (SlMemory, 1);
  guint n = trace->mem_usage->len, n_alloc_rows = 0, n_orphans = 0;
  g_autoptr (GHashTable) index = g_hash_table_new_full (series_key_hash, series_key_equal, g_free,
                                                         NULL);
  const SlMemUsage *rows = (const SlMemUsage *) (gpointer) trace->mem_usage->data;

  m->series = g_array_new (FALSE, FALSE, sizeof (SlMemSeries));
  m->row_alloc = g_new (guint32, MAX (n, 1));

  /* bytes in use: a series per GPU, process and kind, and a GPU's own.  A first pass finds each
   * row's series (the last key looked up again is the common case) and counts their steps, a
   * second fills arrays of that size: no array grows by copying at 10^6 rows */
  g_autofree guint32 *of_row = g_new (guint32, 2 * (gsize) MAX (n, 1));
  g_autoptr (GArray) counts = g_array_new (FALSE, TRUE, sizeof (gsize));
  SeriesKey last = { -2, 0, -2 }, last_gpu = { -2, 0, -2 };
  guint last_s = 0, last_gpu_s = 0;
  for (guint i = 0; i < n; i++)
    {
      const SlMemUsage *row = &rows[i];
      SeriesKey key = { row->gpu, row->global_pid, row->mem_kind };

      n_alloc_rows += row->op != SL_MEM_FREE;
      if (!series_key_equal (&key, &last))
        {
          last = key;
          last_s = series_of (m, index, &key, row->start);
        }
      of_row[2 * i] = last_s;
      of_row[2 * i + 1] = G_MAXUINT32;
      if (sl_mem_kind_on_gpu (row->mem_kind))
        {
          SeriesKey gpu_key = { row->gpu, 0, SL_MEM_SERIES_GPU };
          if (!series_key_equal (&gpu_key, &last_gpu))
            {
              last_gpu = gpu_key;
              last_gpu_s = series_of (m, index, &gpu_key, row->start);
            }
          of_row[2 * i + 1] = last_gpu_s;
        }
      g_array_set_size (counts, m->series->len);
      g_array_index (counts, gsize, of_row[2 * i])++;
      if (of_row[2 * i + 1] != G_MAXUINT32)
        g_array_index (counts, gsize, of_row[2 * i + 1])++;
    }
  m->steps = g_new0 (SlMemStep *, MAX (m->series->len, 1));
  m->n_step_arrays = m->series->len;
  for (guint s = 0; s < m->series->len; s++)
    {
      m->steps[s] = g_new (SlMemStep, MAX (g_array_index (counts, gsize, s), 1));
      g_array_index (m->series, SlMemSeries, s).steps = m->steps[s];
    }
  for (guint i = 0; i < n; i++)
    {
      add_step (m, of_row[2 * i], &rows[i], i);
      if (of_row[2 * i + 1] != G_MAXUINT32)
        add_step (m, of_row[2 * i + 1], &rows[i], i);
    }

  /* allocations, by start: the allocation rows in time order (rows are), each free closing the
   * latest open allocation at its place; a free with none (allocated before the recording) is
   * an allocation without a start, and those come first */
  SlMemAlloc *allocs = g_new (SlMemAlloc, MAX (n_alloc_rows, 1));
  OpenTable open = { NULL, 0 };
  gsize cap = 16;
  while (cap < 2 * (gsize) n_alloc_rows + 16)
    cap <<= 1;
  open.slots = g_new0 (guint32, cap);
  open.mask = cap - 1;
  guint32 made = 0;
  g_autoptr (GArray) orphans = g_array_new (FALSE, FALSE, sizeof (guint32));   /* free rows */
  for (guint i = 0; i < n; i++)
    {
      const SlMemUsage *row = &rows[i];
      if (row->op != SL_MEM_FREE)
        {
          guint32 *slot = open_find (&open, allocs, row);
          if (slot != NULL)
            *slot = OPEN_GONE;   /* allocated again without a free: the older stays open for good */
          allocs[made] = (SlMemAlloc) { i, SL_NO_LINK, row->start, G_MAXINT64, row->bytes,
                                        row->address, row->global_pid, row->gpu, row->mem_kind,
                                        { 0 } };
          m->row_alloc[i] = made;
          open_put (&open, allocs, made);
          made++;
          continue;
        }
      guint32 *slot = open_find (&open, allocs, row);
      if (slot != NULL)
        {
          SlMemAlloc *a = &allocs[*slot - 1];
          a->free = i;
          a->end = row->start;
          m->row_alloc[i] = *slot - 1;
          *slot = OPEN_GONE;
        }
      else
        {
          m->row_alloc[i] = SL_NO_LINK;   /* set below, past the orphans' renumbering */
          g_array_append_val (orphans, i);
        }
    }
  g_free (open.slots);
  /* the orphans first: every other row's allocation moves past them */
  n_orphans = orphans->len;
  if (n_orphans > 0)
    for (guint i = 0; i < n; i++)
      if (m->row_alloc[i] != SL_NO_LINK)
        m->row_alloc[i] += n_orphans;
  m->allocs = g_array_sized_new (FALSE, FALSE, sizeof (SlMemAlloc), n_orphans + made);
  for (guint k = 0; k < n_orphans; k++)
    {
      guint32 i = g_array_index (orphans, guint32, k);
      const SlMemUsage *row = &rows[i];
      SlMemAlloc a = { SL_NO_LINK, i, G_MININT64, row->start, row->bytes, row->address,
                       row->global_pid, row->gpu, row->mem_kind, { 0 } };
      g_array_append_val (m->allocs, a);
      m->row_alloc[i] = k;
    }
  g_array_append_vals (m->allocs, allocs, made);
  g_free (allocs);

  /* series in display order (each keeps its steps) */
  g_array_sort (m->series, series_order);

  find_calls (trace, m);
  return m;
}

void
_sl_memory_free (gpointer memory)
{
  SlMemory *m = memory;

  if (m == NULL)
    return;
  for (guint s = 0; s < m->n_step_arrays; s++)
    g_free (m->steps[s]);
  g_free (m->steps);
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
  GArray *rows = trace->mem_usage;
  gsize n = rows->len;
  gboolean sorted = TRUE;

  /* nsys writes them in time order: a pass says so, and a sort of 64-byte rows is skipped */
  for (gsize i = 1; i < n && sorted; i++)
    sorted = mem_usage_order (&g_array_index (rows, SlMemUsage, i - 1),
                              &g_array_index (rows, SlMemUsage, i)) <= 0;
  if (sorted)
    return;
  g_array_sort (rows, mem_usage_order);
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

/* Largest first, then oldest (by index). */
typedef struct
{
  guint64 bytes;
  guint32 index;
} LiveItem;

static gint
live_order (gconstpointer a,
            gconstpointer b)
{
  const LiveItem *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
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
  const SlMemAlloc *allocs = (const SlMemAlloc *) (gpointer) m->allocs->data;
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (LiveItem));

  for (guint i = 0; i < m->allocs->len; i++)
    {
      const SlMemAlloc *a = &allocs[i];
      if (a->start > t)
        break;                          /* by start: none later is live */
      if (a->alloc != SL_NO_LINK && a->end > t && sl_mem_series_holds (s, a))
        {
          LiveItem item = { a->bytes, i };
          g_array_append_val (items, item);
        }
    }
  if (items->len > 1)
    qsort (items->data, items->len, sizeof (LiveItem), live_order);
  for (guint k = 0; k < items->len; k++)
    g_array_append_val (out, g_array_index (items, LiveItem, k).index);
  return items->len;
}
