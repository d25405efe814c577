/* sl-utilization.c: per-GPU union of busy intervals with prefix sums: utilization in O(log n).
 *
 * The union is built once at load by merging the GPU's stream lanes (each sorted by start);
 * a GPU has typically 1-64 streams and 10^3 … 10^7 operations.
 */
#include "sl-utilization.h"
#include "sl-trace-private.h"

typedef struct
{
  GArray *starts;
  GArray *ends;
} UnionBuilder;

static void
union_add (UnionBuilder *b,
           SlTime        s,
           SlTime        e)
{
  if (b->ends->len > 0 && s <= g_array_index (b->ends, SlTime, b->ends->len - 1))
    {
      SlTime *last = &g_array_index (b->ends, SlTime, b->ends->len - 1);
      *last = MAX (*last, e);
      return;
    }
  g_array_append_val (b->starts, s);
  g_array_append_val (b->ends, e);
}

/* Stores the merged intervals compactly (see SlBusyUnion). */
static void
union_pack (UnionBuilder *b,
            SlBusyUnion  *u)
{
  const SlTime *starts = (const SlTime *) b->starts->data, *ends = (const SlTime *) b->ends->data;
  g_autoptr (GArray) off = g_array_sized_new (FALSE, FALSE, sizeof (guint32), b->starts->len);
  g_autoptr (GArray) len = g_array_sized_new (FALSE, FALSE, sizeof (guint32), b->starts->len);
  g_autoptr (GArray) blocks = g_array_new (FALSE, FALSE, sizeof (SlBusyBlock));
  g_autoptr (GArray) long_index = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GArray) long_len = g_array_new (FALSE, FALSE, sizeof (SlTime));
  SlBusyBlock *block = NULL;
  SlTime busy = 0;

  for (guint i = 0; i < b->starts->len; i++)
    {
      SlTime s = starts[i], length = ends[i] - starts[i];
      if (block == NULL || off->len - block->first >= SL_BUSY_STRIDE
          || s - block->base >= (SlTime) G_MAXUINT32)
        {
          SlBusyBlock fresh = { s, busy, off->len };
          g_array_append_val (blocks, fresh);
          block = &g_array_index (blocks, SlBusyBlock, blocks->len - 1);
        }
      guint32 o = (guint32) (s - block->base), l = SL_BUSY_LONG;
      if (length < (SlTime) SL_BUSY_LONG)
        l = (guint32) length;
      else
        {
          guint32 at = off->len;
          g_array_append_val (long_index, at);
          g_array_append_val (long_len, length);
        }
      g_array_append_val (off, o);
      g_array_append_val (len, l);
      busy = _sl_time_add (busy, length);
    }

  u->n = off->len;
  u->n_blocks = blocks->len;
  u->off = g_memdup2 (off->data, off->len * sizeof (guint32));
  u->len = g_memdup2 (len->data, len->len * sizeof (guint32));
  u->blocks = g_memdup2 (blocks->data, blocks->len * sizeof (SlBusyBlock));
  u->n_long = long_index->len;
  u->long_index = g_memdup2 (long_index->data, long_index->len * sizeof (guint32));
  u->long_len = g_memdup2 (long_len->data, long_len->len * sizeof (SlTime));
}

static SlTime
interval_length (const SlBusyUnion *u,
                 gsize              i)
{
  if (u->len[i] != SL_BUSY_LONG)
    return u->len[i];
  gsize lo = 0, hi = u->n_long;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (u->long_index[mid] < i)
        lo = mid + 1;
      else
        hi = mid;
    }
  g_assert (lo < u->n_long && u->long_index[lo] == i);
  return u->long_len[lo];
}

/* Merges the lanes (each sorted by start) in start order into a union of intervals. */
static void
union_build (GPtrArray   *lanes,
             SlBusyUnion *u)
{
  g_autofree gsize *cursor = g_new0 (gsize, lanes->len + 1);
  UnionBuilder b;
  gsize total = 0;

  for (guint l = 0; l < lanes->len; l++)
    total += ((SlLane *) g_ptr_array_index (lanes, l))->n_events;
  b.starts = g_array_sized_new (FALSE, FALSE, sizeof (SlTime), total);
  b.ends = g_array_sized_new (FALSE, FALSE, sizeof (SlTime), total);

  for (;;)
    {
      gint best = -1;
      SlTime best_start = 0;

      for (guint l = 0; l < lanes->len; l++)
        {
          const SlLane *lane = g_ptr_array_index (lanes, l);
          if (cursor[l] < lane->n_events
              && (best < 0 || lane->events[cursor[l]].start < best_start))
            {
              best = l;
              best_start = lane->events[cursor[l]].start;
            }
        }
      if (best < 0)
        break;
      const SlLane *lane = g_ptr_array_index (lanes, best);
      const SlEvent *ev = &lane->events[cursor[best]++];
      if (ev->end > ev->start)
        union_add (&b, ev->start, ev->end);
    }

  union_pack (&b, u);
  g_array_unref (b.starts);
  g_array_unref (b.ends);
}

void
_sl_gpu_busy_clear (SlGpuBusy *busy)
{
  SlBusyUnion *u[2] = { &busy->kernels, &busy->any };

  if (busy->any.off == busy->kernels.off)
    busy->any = (SlBusyUnion) { 0 };
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&u[i]->off, g_free);
      g_clear_pointer (&u[i]->len, g_free);
      g_clear_pointer (&u[i]->blocks, g_free);
      g_clear_pointer (&u[i]->long_index, g_free);
      g_clear_pointer (&u[i]->long_len, g_free);
      u[i]->n = u[i]->n_blocks = u[i]->n_long = 0;
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

      for (guint i = 0; i < trace->lanes->len; i++)
        {
          SlLane *lane = g_ptr_array_index (trace->lanes, i);
          if (lane->gpu != (gint32) g)
            continue;
          if (lane->kind == SL_LANE_KERNELS)
            g_ptr_array_add (kernels, lane);
          if (lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_MEMCPY
              || lane->kind == SL_LANE_MEMSET)
            g_ptr_array_add (any, lane);
        }
      union_build (kernels, &trace->gpu_busy[g].kernels);
      /* a GPU with kernels only (no copies or sets) has one union for both; share it */
      if (any->len == kernels->len)
        trace->gpu_busy[g].any = trace->gpu_busy[g].kernels;
      else
        union_build (any, &trace->gpu_busy[g].any);
    }
}

/* Busy time of the union before instant x, given that the block holding x is `lo` blocks or more
 * into the union (the first `*hint` blocks all begin before x): gallop from there, then walk at most
 * SL_BUSY_STRIDE pieces.  Returns the number of blocks whose base is before x, the hint for a
 * later x.  Bucket queries ask for ~2 k increasing instants a frame: galloping from the previous
 * one touches a few neighbouring blocks instead of ~20 scattered ones of a 10^6-block union. */
static SlTime
covered_before_from (const SlBusyUnion *u,
                     SlTime             x,
                     gsize             *hint)
{
  gsize lo = *hint, hi, step = 1;

  /* lo = number of blocks whose base is before x */
  while (lo + step <= u->n_blocks && u->blocks[lo + step - 1].base < x)
    {
      lo += step;
      step *= 2;
    }
  hi = MIN (lo + step, u->n_blocks);
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (u->blocks[mid].base < x)
        lo = mid + 1;
      else
        hi = mid;
    }
  *hint = lo;
  if (lo == 0)
    return 0;
  const SlBusyBlock *blk = &u->blocks[lo - 1];
  gsize end = lo < u->n_blocks ? u->blocks[lo].first : u->n;
  SlTime sum = blk->prefix;
  for (gsize i = blk->first; i < end; i++)
    {
      SlTime s = blk->base + u->off[i];
      if (s >= x)
        break;
      sum = _sl_time_add (sum, MIN (s + interval_length (u, i), x) - s);
    }
  return sum;
}

static SlTime
covered_before (const SlBusyUnion *u,
                SlTime             x)
{
  gsize hint = 0;

  return covered_before_from (u, x, &hint);
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
  gsize hint = 0;
  prev_t = t0;
  prev_c = covered_before_from (u, t0, &hint);
  for (guint i = 0; i < n; i++)
    {
      SlTime t = t0 + (SlTime) ((double) (t1 - t0) * (i + 1) / n);
      if (i == n - 1)
        t = t1;
      gsize before = hint;
      SlTime c = covered_before_from (u, t, &hint);
      out[i] = t > prev_t ? (double) (c - prev_c) / (double) (t - prev_t) : 0.0;
      /* the next queries land about as far on: fetch their blocks and pieces ahead, since each
       * of those reads is otherwise a cache miss on a 10^6-block union (~3 a query) */
      gsize d = hint - before, ahead = MIN (hint + 2 * d, u->n_blocks - 1);
      if (d > 0 && u->n_blocks > 0)
        {
          const SlBusyBlock *next = &u->blocks[MIN (hint + d, u->n_blocks - 1)];
          __builtin_prefetch (&u->blocks[ahead]);
          __builtin_prefetch (&u->off[next->first]);
          __builtin_prefetch (&u->len[next->first]);
        }
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
