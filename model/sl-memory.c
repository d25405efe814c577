/* sl-memory.c: bytes in use and allocations from CUDA_GPU_MEMORY_USAGE_EVENTS (sl-memory.h). */
#include "sl-memory.h"

#include <stdlib.h>
#include <string.h>

#include "sl-display-name.h"
#include "sl-trace-private.h"

/* At 10^6 allocations (1.75 * 10^6 rows) what is built here is ~110 MB of steps (24 bytes a row
 * and series), allocations (56 bytes each) and per-row links, each written once; held as long as
 * the trace. */
typedef struct
{
  GArray     *series;        /* SlMemSeries, their steps in `steps` */
  SlMemStep **steps;         /* per series (in the order made): its steps, NULL for a GPU's
                              * series that shares those of its one process and kind */
  guint       n_step_arrays;
  SlMemAlloc *allocs;        /* by start */
  guint       n_allocs;
  guint32    *row_alloc;     /* per row: its allocation, SL_NO_LINK when none */
  guint32    *row_call;      /* per row: its CUDA call's global id, SL_NO_LINK when none */
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
  return g_int64_hash (&k->pid) ^ ((guint) k->gpu * 31u + (guint) k->kind * 1009u);
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

  m->row_call = _sl_huge_new (n, sizeof (guint32));
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
 * rows: a GHashTable with a key each cost seconds).  A slot holds the place's 32-bit hash over an
 * allocation index + 1, 0 when empty: a probe compares hashes before it reads an allocation (a
 * cache miss into ~56 MB at 10^6), and the hash gives an entry's home slot, so a removal shifts
 * the entries after it back instead of leaving a tombstone.  The table holds only what is open
 * (a program has a few thousand allocations open, 10^6 rows or not): it stays in the cache, and
 * doubles when half full (it never passes 2^32 slots: rows are fewer). */
typedef struct
{
  guint64 *slots;
  gsize    mask;
  gsize    used;
} OpenTable;

static guint32
place_hash (guint64 address,
            guint64 global_pid,
            gint32  gpu)
{
  guint64 h = (address >> 8) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)
              ^ global_pid * G_GUINT64_CONSTANT (0xC2B2AE3D27D4EB4F) ^ (guint64) (guint32) gpu;
  h ^= h >> 29;
  return (guint32) (h ^ (h >> 32));
}

static gboolean
same_place (const SlMemAlloc *a,
            const SlMemUsage *row)
{
  return a->address == row->address && a->global_pid == row->global_pid && a->gpu == row->gpu;
}

static void
open_init (OpenTable *t)
{
  t->slots = g_new0 (guint64, 1024);
  t->mask = 1023;
  t->used = 0;
}

/* The slot of the open allocation at `row`'s place, -1 when none. */
static gssize
open_find (const OpenTable  *t,
           const SlMemAlloc *allocs,
           const SlMemUsage *row)
{
  guint32 h = place_hash (row->address, row->global_pid, row->gpu);
  for (gsize i = h & t->mask;; i = (i + 1) & t->mask)
    {
      guint64 v = t->slots[i];
      if (v == 0)
        return -1;
      if ((guint32) (v >> 32) == h && same_place (&allocs[(guint32) v - 1], row))
        return (gssize) i;
    }
}

static void
open_insert (OpenTable *t,
             guint64    v)
{
  gsize i = (gsize) (v >> 32) & t->mask;
  while (t->slots[i] != 0)
    i = (i + 1) & t->mask;
  t->slots[i] = v;
}

static void
open_put (OpenTable        *t,
          const SlMemAlloc *allocs,
          guint32           index)
{
  const SlMemAlloc *a = &allocs[index];

  if (2 * (t->used + 1) > t->mask + 1 && t->mask < G_MAXUINT32)
    {
      guint64 *old = t->slots;
      gsize n_old = t->mask + 1;
      t->slots = g_new0 (guint64, 2 * n_old);
      t->mask = 2 * n_old - 1;
      for (gsize i = 0; i < n_old; i++)
        if (old[i] != 0)
          open_insert (t, old[i]);
      g_free (old);
    }
  open_insert (t, (guint64) place_hash (a->address, a->global_pid, a->gpu) << 32 | (index + 1));
  t->used++;
}

/* Empties slot `hole`, moving back each entry after it that may fill it (one whose home slot is
 * not between the hole and where it sits). */
static void
open_remove (OpenTable *t,
             gsize      hole)
{
  for (gsize j = (hole + 1) & t->mask; t->slots[j] != 0; j = (j + 1) & t->mask)
    {
      gsize home = (gsize) (t->slots[j] >> 32) & t->mask;
      if (((j - home) & t->mask) >= ((j - hole) & t->mask))
        {
          t->slots[hole] = t->slots[j];
          hole = j;
        }
    }
  t->slots[hole] = 0;
  t->used--;
}

/* What a GPU's series knows of the series its rows are also in: none yet, several, or the one. */
#define SOLE_NONE  G_MAXUINT32
#define SOLE_MIXED (G_MAXUINT32 - 1)

static SlMemory *
memory_build (SlTrace *trace)
{
  SlMemory *m = g_new0 (SlMemory, 1);
  guint n = trace->mem_usage->len, n_alloc_rows = 0, n_orphans = 0;
  g_autoptr (GHashTable) index = g_hash_table_new_full (series_key_hash, series_key_equal, g_free,
                                                         NULL);
  const SlMemUsage *rows = (const SlMemUsage *) (gpointer) trace->mem_usage->data;

  m->series = g_array_new (FALSE, FALSE, sizeof (SlMemSeries));
  m->row_alloc = _sl_huge_new (n, sizeof (guint32));

  /* bytes in use: a series per GPU, process and kind, and a GPU's own.  A first pass finds each
   * row's series (the last key looked up again is the common case) and counts their steps, a
   * second fills arrays of that size: no array grows by copying at 10^6 rows.  A GPU whose
   * memory is all of one process and kind (a program's cudaMalloc) shares that series' steps:
   * the same rows summed in the same order, not written twice */
  g_autofree guint32 *of_row = _sl_huge_new (n, sizeof (guint32));
  g_autoptr (GArray) counts = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr (GArray) gpu_of = g_array_new (FALSE, FALSE, sizeof (guint32));  /* per series: its
                                                                              * GPU's, or none */
  g_autoptr (GArray) sole = g_array_new (FALSE, FALSE, sizeof (guint32));    /* per series */
  SeriesKey last = { -2, 0, -2 };
  guint last_s = 0;
  for (guint i = 0; i < n; i++)
    {
      const SlMemUsage *row = &rows[i];
      SeriesKey key = { row->gpu, row->global_pid, row->mem_kind };

      n_alloc_rows += row->op != SL_MEM_FREE;
      if (!series_key_equal (&key, &last))
        {
          last = key;
          last_s = series_of (m, index, &key, row->start);
          if (last_s >= counts->len)
            {
              guint32 g = G_MAXUINT32;
              if (sl_mem_kind_on_gpu (row->mem_kind))
                {
                  SeriesKey gpu_key = { row->gpu, 0, SL_MEM_SERIES_GPU };
                  g = series_of (m, index, &gpu_key, row->start);
                }
              for (guint s = counts->len; s < m->series->len; s++)
                {
                  gsize zero = 0;
                  guint32 none = G_MAXUINT32, unseen = SOLE_NONE;
                  g_array_append_val (counts, zero);
                  g_array_append_val (gpu_of, none);
                  g_array_append_val (sole, unseen);
                }
              g_array_index (gpu_of, guint32, last_s) = g;
            }
          guint32 g = g_array_index (gpu_of, guint32, last_s);
          if (g != G_MAXUINT32)
            {
              guint32 *one = &g_array_index (sole, guint32, g);
              *one = *one == SOLE_NONE || *one == last_s ? last_s : SOLE_MIXED;
            }
        }
      of_row[i] = last_s;
      g_array_index (counts, gsize, last_s)++;
    }
  const guint32 *gpu_of_s = (const guint32 *) (gpointer) gpu_of->data;
  const guint32 *sole_s = (const guint32 *) (gpointer) sole->data;
  for (guint s = 0; s < m->series->len; s++)   /* a GPU's series: the rows of those it holds */
    if (gpu_of_s[s] != G_MAXUINT32)
      g_array_index (counts, gsize, gpu_of_s[s]) += g_array_index (counts, gsize, s);
  m->steps = g_new0 (SlMemStep *, MAX (m->series->len, 1));
  m->n_step_arrays = m->series->len;
  for (guint s = 0; s < m->series->len; s++)
    {
      SlMemSeries *series = &g_array_index (m->series, SlMemSeries, s);
      if (series->kind == SL_MEM_SERIES_GPU && sole_s[s] < SOLE_MIXED)
        continue;
      m->steps[s] = _sl_huge_new (g_array_index (counts, gsize, s), sizeof (SlMemStep));
      series->steps = m->steps[s];
    }
  for (guint i = 0; i < n; i++)
    {
      guint32 s = of_row[i], g = gpu_of_s[s];
      add_step (m, s, &rows[i], i);
      if (g != G_MAXUINT32 && m->steps[g] != NULL)
        add_step (m, g, &rows[i], i);
    }
  for (guint s = 0; s < m->series->len; s++)
    if (m->steps[s] == NULL)
      {
        SlMemSeries *own = &g_array_index (m->series, SlMemSeries, s);
        const SlMemSeries *one = &g_array_index (m->series, SlMemSeries, sole_s[s]);
        own->steps = one->steps;
        own->n_steps = one->n_steps;
        own->peak = one->peak;
        own->peak_time = one->peak_time;
        own->peak_step = one->peak_step;
      }
  g_clear_pointer (&of_row, g_free);

  /* allocations, by start: the allocation rows in time order (rows are), each free closing the
   * latest open allocation at its place; a free with none (allocated before the recording) is
   * an allocation without a start, and those come first */
  SlMemAlloc *allocs = _sl_huge_new (n_alloc_rows, sizeof (SlMemAlloc));
  OpenTable open;
  open_init (&open);
  guint32 made = 0;
  g_autoptr (GArray) orphans = g_array_new (FALSE, FALSE, sizeof (guint32));   /* free rows */
  for (guint i = 0; i < n; i++)
    {
      const SlMemUsage *row = &rows[i];
      if (i + 8 < n)   /* the slot a later row probes, fetched while this one is paired: the
                        * table outgrows the cache where many allocations stay open */
        {
          const SlMemUsage *ahead = &rows[i + 8];
          __builtin_prefetch (&open.slots[place_hash (ahead->address, ahead->global_pid,
                                                      ahead->gpu) & open.mask]);
        }
      if (row->op != SL_MEM_FREE)
        {
          gssize slot = open_find (&open, allocs, row);
          if (slot >= 0)
            open_remove (&open, (gsize) slot);   /* allocated again without a free: the older
                                                  * stays open for good */
          allocs[made] = (SlMemAlloc) { i, SL_NO_LINK, row->start, G_MAXINT64, row->bytes,
                                        row->address, row->global_pid, row->gpu, row->mem_kind,
                                        { 0 } };
          m->row_alloc[i] = made;
          open_put (&open, allocs, made);
          made++;
          continue;
        }
      gssize slot = open_find (&open, allocs, row);
      if (slot >= 0)
        {
          guint32 k = (guint32) open.slots[slot] - 1;
          allocs[k].free = i;
          allocs[k].end = row->start;
          m->row_alloc[i] = k;
          open_remove (&open, (gsize) slot);
        }
      else
        {
          m->row_alloc[i] = SL_NO_LINK;   /* set below, past the orphans' renumbering */
          g_array_append_val (orphans, i);
        }
    }
  g_free (open.slots);
  /* the orphans first: every other allocation moves past them (a move within memory already
   * touched: a trace has few, frees of what was allocated before the recording) */
  n_orphans = orphans->len;
  if (n_orphans > 0)
    {
      for (guint i = 0; i < n; i++)
        if (m->row_alloc[i] != SL_NO_LINK)
          m->row_alloc[i] += n_orphans;
      allocs = g_realloc_n (allocs, (gsize) n_orphans + made, sizeof (SlMemAlloc));
      memmove (allocs + n_orphans, allocs, made * sizeof (SlMemAlloc));
    }
  for (guint k = 0; k < n_orphans; k++)
    {
      guint32 i = g_array_index (orphans, guint32, k);
      const SlMemUsage *row = &rows[i];
      allocs[k] = (SlMemAlloc) { SL_NO_LINK, i, G_MININT64, row->start, row->bytes, row->address,
                                 row->global_pid, row->gpu, row->mem_kind, { 0 } };
      m->row_alloc[i] = k;
    }
  m->allocs = allocs;
  m->n_allocs = n_orphans + made;

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
  g_free (m->allocs);
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
  return memory_get (trace)->n_allocs;
}

const SlMemAlloc *
sl_memory_get_alloc (SlTrace *trace,
                     guint    i)
{
  g_return_val_if_fail (i < sl_memory_get_n_allocs (trace), NULL);
  return &memory_get (trace)->allocs[i];
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

const char *
sl_memory_row_call_name (SlTrace *trace,
                         guint32  row)
{
  guint32 call = row != SL_NO_LINK ? sl_memory_get_row_call (trace, row) : SL_NO_LINK;
  const SlLane *lane;
  gsize index;

  if (call == SL_NO_LINK || !sl_trace_resolve (trace, call, &lane, &index))
    return "";
  return sl_trace_display_name (trace, lane->kind, lane->events[index].name);
}

const char *
sl_memory_alloc_name (SlTrace          *trace,
                      const SlMemAlloc *alloc)
{
  guint32 row = alloc->alloc != SL_NO_LINK ? alloc->alloc : alloc->free;
  return sl_trace_str (trace, sl_trace_get_mem_usage (trace, row)->name);
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
  const SlMemAlloc *allocs = m->allocs;
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (LiveItem));

  for (guint i = 0; i < m->n_allocs; i++)
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
