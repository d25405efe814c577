/* sl-utilization.c: per-GPU union of busy intervals with prefix sums: utilization in O(log n).
 *
 * The union is built once at load by merging the GPU's stream lanes (each sorted by start);
 * a GPU has typically 1-64 streams and 10^3 … 10^7 operations.
 */
#include "sl-utilization.h"
#include "sl-trace-private.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The union is packed as it is merged, in two passes over the GPU's lanes: the first counts the
 * chunks and long pieces, the second fills arrays of exactly that size.  Merging twice costs ~10
 * ms a million operations; keeping every interval (16 bytes) before packing them cost 2-3 times
 * the packed union's memory at the end of a load, the peak of a large one. */
typedef struct
{
  SlBusyUnion *u;           /* NULL on the counting pass */
  gboolean     open;        /* an interval is pending: s, e */
  SlTime       s, e;
  SlTime       base;        /* of the last chunk */
  SlTime       busy;        /* before the pending interval */
  gsize        n, n_chunks, n_long;
  guint        fill;        /* pieces in the last chunk */
} UnionBuilder;

/* Stores a merged interval compactly (see SlBusyUnion). */
static void
union_emit (UnionBuilder *b,
            SlTime        s,
            SlTime        e)
{
  SlBusyUnion *u = b->u;
  SlTime length = e - s;
  SlBusyChunk *chunk = u != NULL && b->n_chunks > 0 ? &u->chunks[b->n_chunks - 1] : NULL;

  if (b->n_chunks == 0 || b->fill == SL_BUSY_CHUNK || s - b->base >= (SlTime) G_MAXUINT32)
    {
      if (u != NULL)
        {
          /* zeroed: the pieces it does not fill have length 0 */
          chunk = &u->chunks[b->n_chunks];
          memset (chunk, 0, sizeof *chunk);
          chunk->base = s;
          chunk->prefix = b->busy;
        }
      b->base = s;
      b->n_chunks++;
      b->fill = 0;
    }
  guint32 l = SL_BUSY_LONG;
  if (length < (SlTime) SL_BUSY_LONG)
    l = (guint32) length;
  else
    {
      if (u != NULL)
        {
          u->long_index[b->n_long] = (guint32) ((b->n_chunks - 1) * SL_BUSY_CHUNK + b->fill);
          u->long_len[b->n_long] = length;
        }
      b->n_long++;
    }
  if (chunk != NULL)
    chunk->p[b->fill] = (SlBusyPiece) { (guint32) (s - b->base), l };
  b->fill++;
  b->n++;
  b->busy = _sl_time_add (b->busy, length);
}

static void
union_add (UnionBuilder *b,
           SlTime        s,
           SlTime        e)
{
  if (b->open && s <= b->e)
    {
      b->e = MAX (b->e, e);
      return;
    }
  if (b->open)
    union_emit (b, b->s, b->e);
  b->open = TRUE;
  b->s = s;
  b->e = e;
}

/*
 * A copy of `bytes` of `data` (or room for them, when data is NULL) starting on a cache line, in
 * memory the kernel may back with huge pages when large: a frame reads ~3 k chunks of a union of
 * ~30 MB at random, and with 4 KiB pages each read was a TLB miss too.  Freed with g_free
 * (malloc'd memory).
 */
static gpointer
huge_copy (gconstpointer data,
           gsize         bytes)
{
  const gsize huge = 2u << 20;
  gpointer mem = NULL;

  if (posix_memalign (&mem, bytes >= huge ? huge : 64, MAX (bytes, 1)) != 0)
    g_error ("%s: out of memory (%" G_GSIZE_FORMAT " bytes)", G_STRFUNC, bytes);
  if (bytes >= huge)
    madvise (mem, bytes, MADV_HUGEPAGE);
  if (data != NULL)
    memcpy (mem, data, bytes);
  return mem;
}

/* The time index of the chunks: buckets as many as chunks over their span. */
static void
index_build (SlBusyUnion *u)
{
  if (u->n_chunks == 0)
    return;
  SlTime origin = u->chunks[0].base, span = u->chunks[u->n_chunks - 1].base - origin + 1;
  SlTime width = MAX (span / (SlTime) u->n_chunks, 1);
  gsize n_idx = (gsize) (span / width) + 1, k = 0;

  u->bases = huge_copy (NULL, u->n_chunks * sizeof (SlTime));
  for (gsize c = 0; c < u->n_chunks; c++)
    u->bases[c] = u->chunks[c].base;
  u->idx = g_new (guint32, n_idx);
  u->n_idx = n_idx;
  u->idx_origin = origin;
  u->idx_width = width;
  for (gsize b = 0; b < n_idx; b++)
    {
      SlTime at = origin + (SlTime) b * width;
      while (k < u->n_chunks && u->chunks[k].base < at)
        k++;
      u->idx[b] = (guint32) k;
    }
}

/* The index slot of instant x: NULL before the first chunk. */
static inline const guint32 *
index_slot (const SlBusyUnion *u,
            SlTime             x)
{
  if (u->n_idx == 0 || x <= u->idx_origin)
    return NULL;
  /* unsigned: x may be G_MAXINT64 (a whole-trace query) with an origin at -2^61 (a damaged file) */
  guint64 slot = ((guint64) x - (guint64) u->idx_origin) / (guint64) u->idx_width;
  return &u->idx[(gsize) MIN (slot, (guint64) u->n_idx - 1)];
}

/* Chunks whose base is before x, at least: from the time index. */
static inline gsize
index_lookup (const SlBusyUnion *u,
              SlTime             x)
{
  const guint32 *slot = index_slot (u, x);

  return slot != NULL ? *slot : 0;
}

/* Length of piece `i` of chunk `k`. */
static SlTime
piece_length (const SlBusyUnion *u,
              gsize              k,
              guint              i)
{
  guint32 len = u->chunks[k].p[i].len;
  if (len != SL_BUSY_LONG)
    return len;
  guint32 at = (guint32) (k * SL_BUSY_CHUNK + i);
  gsize lo = 0, hi = u->n_long;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (u->long_index[mid] < at)
        lo = mid + 1;
      else
        hi = mid;
    }
  g_assert (lo < u->n_long && u->long_index[lo] == at);
  return u->long_len[lo];
}

/* Merges the lanes (each sorted by start) in start order into `b`. */
static void
union_merge (GPtrArray    *lanes,
             UnionBuilder *b)
{
  g_autofree gsize *cursor = g_new0 (gsize, lanes->len + 1);

  for (;;)
    {
      gint best = -1;
      SlTime best_start = 0, next_start = G_MAXINT64;

      for (guint l = 0; l < lanes->len; l++)
        {
          const SlLane *lane = g_ptr_array_index (lanes, l);
          if (cursor[l] >= lane->n_events)
            continue;
          SlTime start = lane->events[cursor[l]].start;
          if (best < 0 || start < best_start)
            {
              if (best >= 0)
                next_start = best_start;
              best = l;
              best_start = start;
            }
          else
            next_start = MIN (next_start, start);
        }
      if (best < 0)
        break;
      /* the events of the best lane that start before any other lane's next one come in that
       * order anyway: take them as a run rather than scan the lanes for each (a GPU's streams
       * take turns in runs of many kernels) */
      const SlLane *lane = g_ptr_array_index (lanes, best);
      do
        {
          const SlEvent *ev = &lane->events[cursor[best]++];
          if (ev->end > ev->start)
            union_add (b, ev->start, ev->end);
        }
      while (cursor[best] < lane->n_events && lane->events[cursor[best]].start < next_start);
    }
  if (b->open)
    union_emit (b, b->s, b->e);
}

/* The union of the lanes' intervals, packed. */
static void
union_build (GPtrArray   *lanes,
             SlBusyUnion *u)
{
  UnionBuilder count = { 0 }, fill = { 0 };

  union_merge (lanes, &count);
  u->chunks = huge_copy (NULL, count.n_chunks * sizeof (SlBusyChunk));
  u->long_index = g_new (guint32, count.n_long);
  u->long_len = g_new (SlTime, count.n_long);
  fill.u = u;
  union_merge (lanes, &fill);
  g_assert (fill.n_chunks == count.n_chunks && fill.n_long == count.n_long);
  u->n = fill.n;
  u->n_chunks = fill.n_chunks;
  u->n_long = fill.n_long;
  index_build (u);
}

static gsize chunks_before (const SlBusyUnion *u,
                            SlTime             x,
                            gsize              from);

/* Merges, in start order, the events of each lane from from[l] on and the intervals `extra`
 * (SlTime pairs, sorted and disjoint) into `b`. */
static void
union_merge_from (GPtrArray    *lanes,
                  const gsize  *from,
                  GArray       *extra,
                  UnionBuilder *b)
{
  g_autofree gsize *cursor = g_memdup2 (from, sizeof (gsize) * MAX (lanes->len, 1));
  guint x = 0;

  for (;;)
    {
      gint best = -1;
      SlTime best_start = 0;
      for (guint l = 0; l < lanes->len; l++)
        {
          const SlLane *lane = g_ptr_array_index (lanes, l);
          if (cursor[l] < lane->n_events && (best < 0 || lane->events[cursor[l]].start < best_start))
            {
              best = l;
              best_start = lane->events[cursor[l]].start;
            }
        }
      if (x < extra->len / 2 && (best < 0 || g_array_index (extra, SlTime, 2 * x) <= best_start))
        {
          union_add (b, g_array_index (extra, SlTime, 2 * x), g_array_index (extra, SlTime, 2 * x + 1));
          x++;
          continue;
        }
      if (best < 0)
        break;
      const SlLane *lane = g_ptr_array_index (lanes, best);
      const SlEvent *ev = &lane->events[cursor[best]++];
      if (ev->end > ev->start)
        union_add (b, ev->start, ev->end);
    }
  if (b->open)
    union_emit (b, b->s, b->e);
}

/* `u`: the union `old` with the events of each lane from from[l] on merged in.  What ends before
 * the earliest of them is the same: the chunks before the one it falls in are copied, and the
 * union goes on from there as a fresh build would have packed it. */
static void
union_extend (const SlBusyUnion *old,
              GPtrArray         *lanes,
              const gsize       *from,
              SlBusyUnion       *u)
{
  SlTime first = G_MAXINT64;

  for (guint l = 0; l < lanes->len; l++)
    {
      const SlLane *lane = g_ptr_array_index (lanes, l);
      if (from[l] < lane->n_events)
        first = MIN (first, lane->events[from[l]].start);
    }
  if (old->n_chunks == 0)
    {
      union_build (lanes, u);
      return;
    }
  /* intervals of chunks before the one holding `first`'s neighbour all end before it (a chunk's
   * intervals end before the next chunk's base) */
  gsize k = first == G_MAXINT64 ? old->n_chunks : chunks_before (old, first, 0);
  gsize c = k > 0 ? k - 1 : 0;
  g_autoptr (GArray) tail = g_array_new (FALSE, FALSE, sizeof (SlTime));
  gsize n_tail = 0;
  for (gsize j = c; j < old->n_chunks; j++)
    for (guint i = 0; i < SL_BUSY_CHUNK && old->chunks[j].p[i].len != 0; i++)
      {
        SlTime s = old->chunks[j].base + old->chunks[j].p[i].off;
        SlTime e = s + piece_length (old, j, i);
        g_array_append_val (tail, s);
        g_array_append_val (tail, e);
        n_tail++;
      }
  gsize lo = 0, hi = old->n_long;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (old->long_index[mid] < (guint32) (c * SL_BUSY_CHUNK))
        lo = mid + 1;
      else
        hi = mid;
    }
  UnionBuilder start = {
    .busy = old->chunks[c].prefix, .n = old->n - n_tail, .n_chunks = c, .n_long = lo,
    .fill = SL_BUSY_CHUNK,
  };
  UnionBuilder count = start, fill = start;
  union_merge_from (lanes, from, tail, &count);
  u->chunks = huge_copy (NULL, count.n_chunks * sizeof (SlBusyChunk));
  if (c > 0)
    memcpy (u->chunks, old->chunks, c * sizeof (SlBusyChunk));
  u->long_index = g_new (guint32, count.n_long);
  u->long_len = g_new (SlTime, count.n_long);
  if (lo > 0)
    {
      memcpy (u->long_index, old->long_index, lo * sizeof (guint32));
      memcpy (u->long_len, old->long_len, lo * sizeof (SlTime));
    }
  fill.u = u;
  union_merge_from (lanes, from, tail, &fill);
  g_assert (fill.n_chunks == count.n_chunks && fill.n_long == count.n_long);
  u->n = fill.n;
  u->n_chunks = fill.n_chunks;
  u->n_long = fill.n_long;
  index_build (u);
}

/* The lanes of GPU g whose work its two unions hold, each with old_n[lane] (when old_n is not
 * NULL) in kernels_from / any_from. */
static void
gpu_lanes (SlTrace     *trace,
           guint        g,
           const gsize *old_n,
           GPtrArray   *kernels,
           GPtrArray   *any,
           GArray      *kernels_from,
           GArray      *any_from)
{
  for (guint i = 0; i < trace->lanes->len; i++)
    {
      SlLane *lane = g_ptr_array_index (trace->lanes, i);
      if (lane->gpu != (gint32) g)
        continue;
      /* a graph launch traced whole (its kernels are not in the kernel table) counts as
       * kernels running: nodes are mostly kernels, and nsys counts it as GPU work */
      if (lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_GRAPHS)
        {
          g_ptr_array_add (kernels, lane);
          if (old_n != NULL)
            g_array_append_val (kernels_from, old_n[i]);
        }
      if (lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_MEMCPY
          || lane->kind == SL_LANE_MEMSET || lane->kind == SL_LANE_GRAPHS)
        {
          g_ptr_array_add (any, lane);
          if (old_n != NULL)
            g_array_append_val (any_from, old_n[i]);
        }
    }
}

void
_sl_gpu_busy_extend (SlTrace     *trace,
                     SlTrace     *prev,
                     const gsize *old_n)
{
  trace->gpu_busy = g_new0 (SlGpuBusy, MAX (trace->gpus->len, 1));
  for (guint g = 0; g < trace->gpus->len; g++)
    {
      g_autoptr (GPtrArray) kernels = g_ptr_array_new ();
      g_autoptr (GPtrArray) any = g_ptr_array_new ();
      g_autoptr (GArray) kernels_from = g_array_new (FALSE, FALSE, sizeof (gsize));
      g_autoptr (GArray) any_from = g_array_new (FALSE, FALSE, sizeof (gsize));

      gpu_lanes (trace, g, old_n, kernels, any, kernels_from, any_from);
      const SlGpuBusy *was = g < prev->gpus->len ? &prev->gpu_busy[g] : NULL;
      SlGpuBusy *now = &trace->gpu_busy[g];
      if (was != NULL)
        union_extend (&was->kernels, kernels, (const gsize *) (void *) kernels_from->data,
                      &now->kernels);
      else
        union_build (kernels, &now->kernels);
      if (any->len == kernels->len)
        now->any = now->kernels;
      else if (was != NULL)
        union_extend (&was->any, any, (const gsize *) (void *) any_from->data, &now->any);
      else
        union_build (any, &now->any);
    }
}

void
_sl_gpu_busy_clear (SlGpuBusy *busy)
{
  SlBusyUnion *u[2] = { &busy->kernels, &busy->any };

  if (busy->any.chunks == busy->kernels.chunks)
    busy->any = (SlBusyUnion) { 0 };
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&u[i]->chunks, g_free);
      g_clear_pointer (&u[i]->long_index, g_free);
      g_clear_pointer (&u[i]->long_len, g_free);
      g_clear_pointer (&u[i]->idx, g_free);
      g_clear_pointer (&u[i]->bases, g_free);
      u[i]->n = u[i]->n_chunks = u[i]->n_long = u[i]->n_idx = 0;
    }
}

void
_sl_gpu_busy_build (SlTrace *trace)
{
  trace->gpu_busy = g_new0 (SlGpuBusy, MAX (trace->gpus->len, 1));
  for (guint g = 0; g < trace->gpus->len; g++)
    {
      g_autoptr (GPtrArray) kernels = g_ptr_array_new ();
      g_autoptr (GPtrArray) any = g_ptr_array_new ();

      gpu_lanes (trace, g, NULL, kernels, any, NULL, NULL);
      union_build (kernels, &trace->gpu_busy[g].kernels);
      /* a GPU with kernels only (no copies or sets) has one union for both; share it */
      if (any->len == kernels->len)
        trace->gpu_busy[g].any = trace->gpu_busy[g].kernels;
      else
        union_build (any, &trace->gpu_busy[g].any);
    }
}

/* The number of chunks whose base is before x, given that the first `from` chunks all are: from
 * the time index, then galloping: a few neighbouring chunks, not ~20 scattered ones. */
static gsize
chunks_before (const SlBusyUnion *u,
               SlTime             x,
               gsize              from)
{
  gsize lo = MAX (from, index_lookup (u, x)), hi, step = 1;

  while (lo + step <= u->n_chunks && u->bases[lo + step - 1] < x)
    {
      lo += step;
      step *= 2;
    }
  hi = MIN (lo + step, u->n_chunks);
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (u->bases[mid] < x)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Busy time before x, with `k` = chunks_before (x): the chunk's prefix and a walk of its pieces
 * up to x. */
static SlTime
covered_in_chunk (const SlBusyUnion *u,
                  SlTime             x,
                  gsize              k)
{
  if (k == 0)
    return 0;
  const SlBusyChunk *c = &u->chunks[k - 1];
  SlTime sum = c->prefix;
  for (guint i = 0; i < SL_BUSY_CHUNK; i++)
    {
      SlTime s = c->base + c->p[i].off;
      if (s >= x || c->p[i].len == 0)
        break;
      sum = _sl_time_add (sum, MIN (s + piece_length (u, k - 1, i), x) - s);
    }
  return sum;
}

static SlTime
covered_before (const SlBusyUnion *u,
                SlTime             x)
{
  return covered_in_chunk (u, x, chunks_before (u, x, 0));
}

static const SlBusyUnion *
get_union (SlTrace    *trace,
           guint       gpu,
           SlUtilKind  kind)
{
  g_return_val_if_fail (gpu < trace->gpus->len, NULL);
  return kind == SL_UTIL_KERNELS ? &trace->gpu_busy[gpu].kernels : &trace->gpu_busy[gpu].any;
}

SlTime
sl_trace_gpu_busy_time (SlTrace    *trace,
                        guint       gpu,
                        SlUtilKind  kind,
                        SlTime      t0,
                        SlTime      t1)
{
  const SlBusyUnion *u = get_union (trace, gpu, kind);

  if (u == NULL || t1 <= t0)
    return 0;
  return covered_before (u, t1) - covered_before (u, t0);
}

double
sl_trace_gpu_utilization (SlTrace    *trace,
                          guint       gpu,
                          SlUtilKind  kind,
                          SlTime      t0,
                          SlTime      t1)
{
  if (t1 <= t0)
    return 0.0;
  return (double) sl_trace_gpu_busy_time (trace, gpu, kind, t0, t1) / (double) (t1 - t0);
}

/* Boundary i of n equal buckets of [t0, t1): t0 for 0, t1 for n. */
static inline SlTime
boundary (SlTime t0,
          SlTime t1,
          guint  n,
          guint  i)
{
  return i == n ? t1 : t0 + (SlTime) ((double) (t1 - t0) * i / n);
}

/* The chunks before boundary i of [t0, t1) in n (see chunks_before), `from` those of boundary
 * i - 1; fetches that chunk, and the bases and index slot of boundaries further on. */
static inline gsize
util_find (const SlBusyUnion *u,
           SlTime             t0,
           SlTime             t1,
           guint              n,
           guint              i,
           gsize              from)
{
  gsize k = chunks_before (u, boundary (t0, t1, n, i), from);

  if (k > 0)
    {
      __builtin_prefetch (&u->chunks[k - 1]);
      __builtin_prefetch ((const char *) &u->chunks[k - 1] + 64);
    }
  if (i + 32 <= n)
    {
      const guint32 *slot = index_slot (u, boundary (t0, t1, n, i + 32));
      if (slot != NULL)
        __builtin_prefetch (slot);
    }
  if (i + 16 <= n)
    {
      gsize ahead = index_lookup (u, boundary (t0, t1, n, i + 16));
      if (ahead < u->n_chunks)
        __builtin_prefetch (&u->bases[ahead]);
    }
  return k;
}

void
sl_trace_gpu_utilization_buckets (SlTrace    *trace,
                                  guint       gpu,
                                  SlUtilKind  kind,
                                  SlTime      t0,
                                  SlTime      t1,
                                  guint       n,
                                  double     *out)
{
  const SlBusyUnion *u = get_union (trace, gpu, kind);
  SlTime prev_t, prev_c;

  if (n == 0)
    return;
  if (u == NULL || t1 <= t0)
    {
      for (guint i = 0; i < n; i++)
        out[i] = 0.0;
      return;
    }
  /* One pass, three strides apart: the index slot of boundary i + 3A is fetched, the bases of
   * i + 2A, the chunk of i + A is found and fetched, and boundary i's chunk walked.  Walking each
   * as it is found waits on its cache misses (~0.3 ms a frame at 20 s of a 10^7-kernel trace);
   * finding them all first (the last version) fetched so far ahead that the chunks were gone
   * from the cache again when walked. */
  enum { A = 16 };
  gsize ring[A], k = 0;
  guint ahead = 0;   /* the next boundary to find the chunk of */

  for (; ahead <= n && ahead < A; ahead++)
    ring[ahead % A] = k = util_find (u, t0, t1, n, ahead, k);
  prev_t = t0;
  prev_c = covered_in_chunk (u, t0, ring[0]);
  for (guint i = 0; i < n; i++)
    {
      SlTime t = boundary (t0, t1, n, i + 1), c;
      if (ahead <= n)
        {
          ring[ahead % A] = k = util_find (u, t0, t1, n, ahead, k);
          ahead++;
        }
      c = covered_in_chunk (u, t, ring[(i + 1) % A]);
      out[i] = t > prev_t ? (double) (c - prev_c) / (double) (t - prev_t) : 0.0;
      prev_t = t;
      prev_c = c;
    }
}

gsize
sl_trace_gpu_busy_intervals (SlTrace   *trace,
                             guint      gpu,
                             SlUtilKind kind)
{
  const SlBusyUnion *u = get_union (trace, gpu, kind);
  return u != NULL ? u->n : 0;
}

void
sl_trace_gpu_busy_foreach (SlTrace    *trace,
                           guint       gpu,
                           SlUtilKind  kind,
                           SlBusyFunc  func,
                           gpointer    user_data)
{
  const SlBusyUnion *u = get_union (trace, gpu, kind);

  g_return_if_fail (func != NULL);
  if (u == NULL)
    return;
  for (gsize k = 0; k < u->n_chunks; k++)
    for (guint i = 0; i < SL_BUSY_CHUNK && u->chunks[k].p[i].len != 0; i++)
      {
        SlTime s = u->chunks[k].base + u->chunks[k].p[i].off;
        if (!func (s, _sl_time_add (s, piece_length (u, k, i)), user_data))
          return;
      }
}
