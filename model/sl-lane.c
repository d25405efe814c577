/* sl-lane.c: per-lane indexes and queries: the implicit interval tree, overlap, level of detail.
 *
 * A lane holds typically 10^3 … 10^7 events and is queried for every frame (60 times a second),
 * so queries cost O(log n + k) and level of detail O(pixels × log n), never O(n).
 *
 * The interval tree is the implicit, array-laid binary tree of Heng Li's cgranges: the sorted
 * array itself is the in-order layout of a complete binary tree, node i sits at the level given
 * by the number of trailing 1 bits of i, and max_end[i] is the largest end in i's subtree.
 * Lanes whose ends never decrease (one row of NVTX depth, a thread's API calls, a stream's
 * kernels, as real traces have them) need no tree: a binary search on the end is enough, and
 * we save the 8 bytes per event the tree costs.
 */
#include "sl-lane.h"
#include "sl-trace-private.h"

#include <math.h>

#define FOLD_SCAN 256
#define FOLD_WALK 64 /* events a fold reads one by one before it gallops */

/* A zero-length event (a mark, a sample) still occupies its instant. */
static inline SlTime
eff_end (const SlEvent *ev)
{
  return ev->end > ev->start ? ev->end : ev->start + 1;
}

void
_sl_lane_build_index (SlLane *lane)
{
  const SlEvent *ev = lane->events;
  gsize n = lane->n_events;
  gboolean monotonic = TRUE;
  SlTime *max_end, last;
  gsize last_i;
  gint k;

  g_clear_pointer (&lane->max_end, g_free);
  lane->max_level = 0;
  for (gsize i = 1; i < n && monotonic; i++)
    monotonic = eff_end (&ev[i]) >= eff_end (&ev[i - 1]);
  if (monotonic || n == 0)
    return;

  max_end = _sl_huge_new (n, sizeof (SlTime));
  last_i = 0;
  last = 0;
  for (gsize i = 0; i < n; i += 2)
    {
      last_i = i;
      max_end[i] = last = eff_end (&ev[i]);
    }
  for (k = 1; ((gsize) 1 << k) <= n; k++)
    {
      gsize x = (gsize) 1 << (k - 1);
      gsize i0 = (x << 1) - 1;
      gsize step = x << 2;

      for (gsize i = i0; i < n; i += step)
        {
          SlTime el = max_end[i - x];
          SlTime er = i + x < n ? max_end[i + x] : last;
          SlTime e = eff_end (&ev[i]);
          e = MAX (e, el);
          e = MAX (e, er);
          max_end[i] = e;
        }
      last_i = (last_i >> k & 1) ? last_i - x : last_i + x;
      if (last_i < n && max_end[last_i] > last)
        last = max_end[last_i];
    }
  lane->max_end = max_end;
  lane->max_level = k - 1;
}

/* The first event starting at t or later, searched only among the events of t's bucket at the
 * finest level of detail (a frame asks twice a lane: a full search was ~20 cache misses). */
static gsize
lower_bound_near (const SlLane *lane,
                  SlTime        t)
{
  gsize lo = 0, hi = lane->n_events;

  if (lane->n_lod > 0 && t <= lane->lod_origin)
    return 0;   /* the first event starts at the origin */
  if (lane->n_lod > 0)
    {
      const SlLodLevel *lv = &lane->lod[0];
      SlTime k = (t - lane->lod_origin) / lv->width;
      if (k >= (SlTime) lv->n)
        return lane->n_events;
      lo = lv->b[k].first;
      hi = k + 1 < (SlTime) lv->n ? lv->b[k + 1].first : lane->n_events;
    }
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (lane->events[mid].start < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* First index in [from, n) whose start is >= t, searching forward from `from` with doubling
 * steps: the answer is usually a few events or a few thousand away, so this touches far fewer
 * cache lines than a full search. */
static gsize
gallop_from (const SlLane *lane,
             gsize         from,
             SlTime        t)
{
  gsize n = lane->n_events, lo = from, step = 1, hi;

  if (lo >= n || lane->events[lo].start >= t)
    return lo;
  /* invariant: events[lo].start < t */
  for (;;)
    {
      hi = lo + step;
      if (hi >= n)
        {
          hi = n;
          break;
        }
      if (lane->events[hi].start >= t)
        break;
      lo = hi;
      step *= 2;
    }
  while (hi - lo > 1)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (lane->events[mid].start < t)
        lo = mid;
      else
        hi = mid;
    }
  return hi;
}

gsize
sl_lane_lower_bound (const SlLane *lane,
                     SlTime        t)
{
  g_return_val_if_fail (lane != NULL, 0);
  return lower_bound_near (lane, t);
}

/* Lanes without a tree: first index whose (monotonic) effective end is > t.  Every event from the
 * first starting at t or later on ends after t, so the answer is that one or an earlier one still
 * running at t, usually just before it: found galloping back. */
static gsize
first_ending_after (const SlLane *lane,
                    SlTime        t)
{
  gsize hi = lower_bound_near (lane, t), lo, step = 1;

  /* every event from hi on ends after t; gallop back to one that ends by t */
  for (;;)
    {
      if (hi == 0)
        return 0;
      lo = hi > step ? hi - step : 0;
      if (eff_end (&lane->events[lo]) <= t)
        break;
      if (lo == 0)
        return 0;
      hi = lo;
      step *= 2;
    }
  /* the answer is in (lo, hi] */
  lo++;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (eff_end (&lane->events[mid]) <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

typedef struct
{
  gsize x;
  gint  k;
  gint  w;
} TreeFrame;

gsize
sl_lane_overlap (const SlLane    *lane,
                 SlTime           t0,
                 SlTime           t1,
                 SlLaneVisitFunc  func,
                 gpointer         user_data)
{
  const SlEvent *ev;
  gsize n, visited = 0;

  g_return_val_if_fail (lane != NULL, 0);
  ev = lane->events;
  n = lane->n_events;
  if (n == 0 || t1 <= t0)
    return 0;

  if (lane->max_end == NULL)
    {
      for (gsize i = first_ending_after (lane, t0); i < n && ev[i].start < t1; i++)
        {
          visited++;
          if (func != NULL && !func (lane, i, user_data))
            break;
        }
      return visited;
    }

  /* depth-first walk of the implicit tree; the stack never holds more than 2 per level */
  TreeFrame stack[128];
  gint top = 0;
  const SlTime *max_end = lane->max_end;

  stack[top++] = (TreeFrame) { ((gsize) 1 << lane->max_level) - 1, lane->max_level, 0 };
  while (top > 0)
    {
      TreeFrame z = stack[--top];

      if (z.k <= 3)
        {
          /* small subtree: scan it */
          gsize i0 = z.x >> z.k << z.k;
          gsize i1 = i0 + ((gsize) 1 << (z.k + 1)) - 1;
          if (i1 > n)
            i1 = n;
          for (gsize i = i0; i < i1 && ev[i].start < t1; i++)
            if (t0 < eff_end (&ev[i]))
              {
                visited++;
                if (func != NULL && !func (lane, i, user_data))
                  return visited;
              }
        }
      else if (z.w == 0)
        {
          gsize y = z.x - ((gsize) 1 << (z.k - 1));
          stack[top++] = (TreeFrame) { z.x, z.k, 1 };
          if (y >= n || max_end[y] > t0)
            stack[top++] = (TreeFrame) { y, z.k - 1, 0 };
        }
      else if (z.x < n && ev[z.x].start < t1)
        {
          if (t0 < eff_end (&ev[z.x]))
            {
              visited++;
              if (func != NULL && !func (lane, z.x, user_data))
                return visited;
            }
          stack[top++] = (TreeFrame) { z.x + ((gsize) 1 << (z.k - 1)), z.k - 1, 0 };
        }
    }
  return visited;
}

SlTime *
_sl_lane_build_busy (const SlLane *lane)
{
  gsize n_blocks = lane->n_events / SL_BUSY_STRIDE + 1;
  SlTime *busy = g_new (SlTime, n_blocks);
  SlTime sum = 0;

  for (gsize b = 0; b < n_blocks; b++)
    {
      busy[b] = sum;
      gsize end = MIN ((b + 1) * SL_BUSY_STRIDE, lane->n_events);
      for (gsize i = b * SL_BUSY_STRIDE; i < end; i++)
        sum = _sl_time_add (sum, lane->events[i].end - lane->events[i].start);
    }
  return busy;
}

static SlTime
busy_before (const SlLane *lane,
             const SlTime *busy,
             gsize         i)
{
  gsize b = i / SL_BUSY_STRIDE;
  SlTime sum = busy[b];

  for (gsize k = b * SL_BUSY_STRIDE; k < i; k++)
    sum = _sl_time_add (sum, lane->events[k].end - lane->events[k].start);
  return sum;
}

SlTime
_sl_lane_busy_between (const SlLane *lane,
                       const SlTime *busy,
                       gsize         i,
                       gsize         j)
{
  return busy_before (lane, busy, j) - busy_before (lane, busy, i);
}

/* Where a fold of events [i, j) ends.  Without overlap the last event ends last; with overlap
 * the end is exact for small folds and reaches the pixel boundary for large ones (looking at
 * every event would make a frame O(n)). */
static SlTime
fold_end (const SlLane *lane,
          gsize         i,
          gsize         j,
          SlTime        boundary)
{
  SlTime end = lane->events[j - 1].end;

  if (lane->max_end == NULL)
    return end;
  if (j - i <= 32)
    for (gsize k = i; k < j; k++)
      end = MAX (end, lane->events[k].end);
  else
    end = MAX (end, boundary);
  return end;
}

static inline SlTime
bucket_start (const SlLane      *lane,
              const SlLodLevel *lv,
              gsize             k)
{
  return lane->lod_origin + (SlTime) k * lv->width;
}

/* Bucket k's edge times (see SlLodBucket): from its offsets, or from the events when too far. */
static inline SlTime
bucket_first_start (const SlLane      *lane,
                    const SlLodLevel *lv,
                    gsize             k)
{
  const SlLodBucket *b = &lv->b[k];

  if (b->start_off != SL_LOD_FAR_START)
    return bucket_start (lane, lv, k) + b->start_off;
  return b->first < lane->n_events ? lane->events[b->first].start : 0;
}

static inline SlTime
bucket_end_before (const SlLane      *lane,
                   const SlLodLevel *lv,
                   gsize             k)
{
  const SlLodBucket *b = &lv->b[k];

  if (b->end_off != SL_LOD_FAR_END)
    return bucket_start (lane, lv, k) + b->end_off;
  return b->first > 0 ? lane->events[b->first - 1].end : 0;
}

/* The per-event walk over events [i, stop): wide events whole, narrow ones folded per pixel. */
static void
lod_events (const SlLane *lane,
            gsize         i,
            gsize         stop,
            SlTime        t0,
            double        ns_per_px,
            double        min_ns,
            GArray       *out)
{
  const SlEvent *ev = lane->events;

  while (i < stop)
    {
      SlTime dur = ev[i].end - ev[i].start;
      SlLodItem item;

      if ((double) dur >= min_ns)
        {
          item = (SlLodItem) { ev[i].start, ev[i].end, i, 1, dur };
          g_array_append_val (out, item);
          i++;
          continue;
        }

      /* fold everything else that starts inside this pixel */
      SlTime from = MAX (ev[i].start, t0);
      double px = floor ((double) (from - t0) / ns_per_px);
      SlTime boundary = t0 + (SlTime) ceil ((px + 1.0) * ns_per_px);
      boundary = MAX (boundary, ev[i].start + 1);
      gsize j;
      SlTime busy = -1;

      if (lane->max_end == NULL)
        {
          /* Walk it: here (no bucket level is fine enough) a pixel holds a few events, and
           * reading them in order costs less than a gallop plus two prefix-sum lookups that each
           * re-read up to 15 events.  Past FOLD_WALK events, gallop for the rest. */
          busy = dur;
          j = i + 1;
          while (j < stop && ev[j].start < boundary && j - i < FOLD_WALK)
            busy = _sl_time_add (busy, ev[j].end - ev[j].start), j++;
          if (j < stop && ev[j].start < boundary)
            {
              gsize k = MIN (gallop_from (lane, j, boundary), stop);
              busy = _sl_time_add (busy, _sl_lane_busy_between (lane, lane->busy_prefix, j, k));
              j = k;
            }
          /* in a lane without overlap only the last of them can be wide: keep it whole */
          if (j - 1 > i && (double) (ev[j - 1].end - ev[j - 1].start) >= min_ns)
            {
              j--;
              busy -= ev[j].end - ev[j].start;
            }
        }
      else
        {
          j = MIN (gallop_from (lane, i + 1, boundary), stop);
          /* with overlap any of them can be: stop the fold at the first wide one.  Looking at
           * every event would make a frame O(n); past FOLD_SCAN events a fold may hide one. */
          for (gsize k = i + 1; k < j && k < i + FOLD_SCAN; k++)
            if ((double) (ev[k].end - ev[k].start) >= min_ns)
              {
                j = k;
                break;
              }
        }

      if (j - i == 1)
        item = (SlLodItem) { ev[i].start, ev[i].end, i, 1, dur };
      else
        {
          if (busy < 0)
            busy = _sl_lane_busy_between (lane, lane->busy_prefix, i, j);
          item = (SlLodItem) { ev[i].start, fold_end (lane, i, j, boundary), i,
                               (guint32) MIN (j - i, G_MAXUINT32), busy };
        }
      g_array_append_val (out, item);
      i = j;
    }
}

typedef struct
{
  SlTime  t0;
  GArray *out;
} HeadCtx;

static gboolean
add_head_cb (const SlLane *lane,
             gsize         i,
             gpointer      user_data)
{
  HeadCtx *ctx = user_data;
  const SlEvent *ev = &lane->events[i];
  SlLodItem item = { ev->start, ev->end, i, 1, ev->end - ev->start };

  if (ev->start >= ctx->t0)
    return FALSE;
  g_array_append_val (ctx->out, item);
  /* a pathological lane with thousands of events straddling t0: draw a bounded number */
  return ctx->out->len < 4096;
}

/* What both level-of-detail walks start from. */
typedef struct
{
  gsize  i, stop;       /* the events to walk: [i, stop) */
  double ns_per_px, min_ns;
  gint   level;         /* the coarsest bucket level at most half a pixel wide, -1 when none */
} LodWalk;

/* Clears `out`, adds the events that began before t0 and reach into the window (lanes with
 * overlap) and sets up `w`.  FALSE when there is nothing to walk. */
static gboolean
lod_begin (const SlLane *lane,
           SlTime        t0,
           SlTime        t1,
           guint         width_px,
           double        min_px,
           GArray       *out,
           LodWalk      *w)
{
  g_array_set_size (out, 0);
  if (lane->n_events == 0 || t1 <= t0 || width_px == 0)
    return FALSE;

  w->ns_per_px = (double) (t1 - t0) / width_px;
  w->min_ns = MAX (min_px, 0.0) * w->ns_per_px;
  if (lane->max_end == NULL)
    w->i = first_ending_after (lane, t0);
  else
    {
      HeadCtx ctx = { t0, out };
      sl_lane_overlap (lane, t0, t0 + 1, add_head_cb, &ctx);
      w->i = lower_bound_near (lane, t0);
    }
  w->stop = MAX (lower_bound_near (lane, t1), w->i);
  w->level = -1;
  for (guint l = 0; l < lane->n_lod; l++)
    if ((double) lane->lod[l].width * 2.0 <= w->ns_per_px)
      w->level = l;
  return w->i < w->stop;
}

/* Whether a bucket (or run of them) whose longest event is `widest` ns may hold a wide event:
 * max_dur saturates at 2^32-1 ns (4.3 s), and such a bucket may hold anything. */
static inline gboolean
holds_wide (guint32 widest,
            double  min_ns)
{
  return (double) widest >= min_ns || widest == G_MAXUINT32;
}

/* Events [i, j) for sl_lane_lod_columns, one by one: wide ones become items, narrow ones go to
 * the column they start in (column 0 for one that began before the window). */
static gboolean
events_to_columns (const SlLane  *lane,
                   gsize          i,
                   gsize          j,
                   SlTime         t0,
                   const LodWalk *w,
                   guint          width_px,
                   GArray        *out,
                   SlLodColumn   *cols)
{
  gboolean any = FALSE;

  for (gsize k = i; k < j; k++)
    {
      const SlEvent *ev = &lane->events[k];
      SlTime dur = ev->end - ev->start;

      if ((double) dur >= w->min_ns)
        {
          SlLodItem item = { ev->start, ev->end, k, 1, dur };
          g_array_append_val (out, item);
          continue;
        }
      guint c = MIN ((guint) ((double) (MAX (ev->start, t0) - t0) / w->ns_per_px), width_px - 1);
      cols[c].busy = _sl_time_add (cols[c].busy, dur);
      cols[c].count += cols[c].count < G_MAXUINT32;
      cols[c].last = (guint32) MIN (k, G_MAXUINT32);
      any = TRUE;
    }
  return any;
}

gboolean
sl_lane_lod_columns (const SlLane *lane,
                     SlTime        t0,
                     SlTime        t1,
                     guint         width_px,
                     double        min_px,
                     GArray       *out,
                     SlLodColumn  *cols)
{
  LodWalk w;
  gboolean any = FALSE;

  g_return_val_if_fail (lane != NULL && out != NULL && cols != NULL, FALSE);
  if (!lod_begin (lane, t0, t1, width_px, min_px, out, &w))
    return FALSE;
  /* a bucket may be up to a pixel wide here (a fold of sl_lane_lod at most half one): its events
   * start within a pixel of its first, so each lands in its own column or the one before */
  while (w.level + 1 < (gint) lane->n_lod && (double) lane->lod[w.level + 1].width <= w.ns_per_px)
    w.level++;
  if (w.level < 0)
    return events_to_columns (lane, w.i, w.stop, t0, &w, width_px, out, cols);

  /* one bucket at a time: a whole bucket of narrow events goes to the column of its first event
   * without reading them; the others (a bucket with a wide event, the partial buckets at the
   * window's edges) are read event by event */
  const SlLodLevel *lv = &lane->lod[w.level];
  double px_per_ns = 1.0 / w.ns_per_px;   /* a multiply a bucket, not a divide */
  gsize n = lane->n_events, i = w.i;
  gsize b = (gsize) ((lane->events[i].start - lane->lod_origin) / lv->width);

  for (; i < w.stop && b < lv->n; b++)
    {
      gsize next_first = b + 1 < lv->n ? lv->b[b + 1].first : n;
      gsize j = MIN (next_first, w.stop);

      if (j <= i)
        continue;
      if (lv->b[b].first != i || j != next_first || holds_wide (lv->b[b].max_dur, w.min_ns))
        any |= events_to_columns (lane, i, j, t0, &w, width_px, out, cols);
      else
        {
          SlTime busy = (b + 1 < lv->n ? lv->b[b + 1].busy_before : lane->busy)
                        - lv->b[b].busy_before;
          double px = (double) (MAX (bucket_first_start (lane, lv, b), t0) - t0) * px_per_ns;
          guint c = MIN ((guint) px, width_px - 1);
          cols[c].busy = _sl_time_add (cols[c].busy, busy);
          cols[c].count += (guint32) MIN (j - i, G_MAXUINT32 - cols[c].count);
          cols[c].last = (guint32) MIN (j - 1, G_MAXUINT32);
          any = TRUE;
        }
      i = j;
    }
  if (i < w.stop)
    any |= events_to_columns (lane, i, w.stop, t0, &w, width_px, out, cols);
  return any;
}

void
sl_lane_lod (const SlLane *lane,
             SlTime        t0,
             SlTime        t1,
             guint         width_px,
             double        min_px,
             GArray       *out)
{
  const SlEvent *ev;
  gsize n, i, stop;
  double ns_per_px, min_ns;
  LodWalk w;

  g_return_if_fail (lane != NULL && out != NULL);
  if (!lod_begin (lane, t0, t1, width_px, min_px, out, &w))
    return;
  ev = lane->events;
  n = lane->n_events;
  i = w.i;
  stop = w.stop;
  ns_per_px = w.ns_per_px;
  min_ns = w.min_ns;
  gint level = w.level;
  if (level < 0)
    {
      lod_events (lane, i, stop, t0, ns_per_px, min_ns, out);
      return;
    }

  /* Folds go from bucket edge to bucket edge, so the times they need come from the buckets: the
   * loop touches an event only where a bucket is walked event by event (or at the window's end). */
  const SlLodLevel *lv = &lane->lod[level];
  gboolean at_edge = FALSE;   /* i is lv->b[edge].first */
  gsize edge = 0;
  while (i < stop)
    {
      SlTime start_i = at_edge ? bucket_first_start (lane, lv, edge) : ev[i].start;
      SlTime from = MAX (start_i, t0);
      double px = floor ((double) (from - t0) / ns_per_px);
      SlTime boundary = t0 + (SlTime) ceil ((px + 1.0) * ns_per_px);
      gsize b = (gsize) ((start_i - lane->lod_origin) / lv->width);
      gsize last = boundary - 1 >= lane->lod_origin
                   ? (gsize) ((boundary - 1 - lane->lod_origin) / lv->width) : b;
      last = MIN (MAX (last, b), lv->n - 1);
      gsize next_first = last + 1 < lv->n ? lv->b[last + 1].first : n;
      gsize j = MIN (next_first, stop);
      if (j <= i)
        j = i + 1;

      /* a bucket holding a wide event is walked event by event */
      guint32 widest = 0;
      for (gsize k = b; k <= last; k++)
        widest = MAX (widest, lv->b[k].max_dur);
      if (holds_wide (widest, min_ns) || j - i == 1)
        {
          lod_events (lane, i, j, t0, ns_per_px, min_ns, out);
          at_edge = j == next_first && last + 1 < lv->n;
          edge = last + 1;
          i = j;
          continue;
        }

      SlTime busy, end;
      if (lv->b[b].first == i && next_first == j)
        busy = (last + 1 < lv->n ? lv->b[last + 1].busy_before : lane->busy) - lv->b[b].busy_before;
      else
        busy = _sl_lane_busy_between (lane, lane->busy_prefix, i, j);
      if (lane->max_end == NULL && j == next_first && last + 1 < lv->n)
        end = bucket_end_before (lane, lv, last + 1);
      else
        end = fold_end (lane, i, j, boundary);
      SlLodItem item = { start_i, end, i, (guint32) MIN (j - i, G_MAXUINT32), busy };
      g_array_append_val (out, item);
      at_edge = j == next_first && last + 1 < lv->n;
      edge = last + 1;
      i = j;
    }
}

/* Buckets of ~16 events on average at the finest level (8 on lanes of up to 2^20 events), 4
 * times wider per level up to ~64 buckets: about n/12 buckets of 24 bytes, 2 bytes per event
 * (4 on the smaller lanes). */
#define LOD_MIN_EVENTS 4096
#define LOD_EVENTS_PER_BUCKET 16

/* Fills buckets [from, lv->n) of the finest level, whose width and origin are set, from event
 * `i` on (the first event starting in bucket `from` or later), `busy` the durations before it. */
static void
lod_fill (const SlLane *lane,
          SlLodLevel   *lv,
          SlTime        origin,
          gsize         from,
          gsize         i,
          SlTime        busy)
{
  const SlEvent *ev = lane->events;
  gsize n = lane->n_events;
  SlTime width = lv->width;

  for (gsize k = from; k < lv->n; k++)
    {
      SlTime bucket_end = origin + (SlTime) (k + 1) * width;
      guint32 widest = 0;
      SlTime from_t = bucket_end - width, d;
      lv->b[k].first = (guint32) i;
      lv->b[k].busy_before = busy;
      lv->b[k].start_off = SL_LOD_FAR_START;
      lv->b[k].end_off = SL_LOD_FAR_END;
      if (i < n && ev[i].start - from_t < (SlTime) SL_LOD_FAR_START)
        lv->b[k].start_off = (guint32) (ev[i].start - from_t);
      /* an absurd end may lie 2^63 ns away: the difference itself can overflow */
      if (i > 0 && !__builtin_sub_overflow (ev[i - 1].end, from_t, &d) && d > G_MININT32
          && d <= G_MAXINT32)
        lv->b[k].end_off = (gint32) d;
      for (; i < n && ev[i].start < bucket_end; i++)
        {
          SlTime d = ev[i].end - ev[i].start;
          widest = MAX (widest, (guint32) MIN (d, (SlTime) G_MAXUINT32));
          busy = _sl_time_add (busy, d);
        }
      lv->b[k].max_dur = widest;
    }
}

/* Buckets [from, up->n) of a coarser level, each four of the level below. */
static void
lod_merge (const SlLodLevel *below,
           SlLodLevel       *up,
           gsize             from)
{
  for (gsize k = from; k < up->n; k++)
    {
      up->b[k] = below->b[k * 4];
      for (gsize m = k * 4 + 1; m < MIN (k * 4 + 4, below->n); m++)
        up->b[k].max_dur = MAX (up->b[k].max_dur, below->b[m].max_dur);
    }
}

/* The coarser levels above `levels`' last one, each merging four buckets of the one below, up
 * to ~64 buckets. */
static void
lod_levels_up (GArray *levels)
{
  SlLodLevel lv = g_array_index (levels, SlLodLevel, levels->len - 1);

  while (lv.n > 64)
    {
      const SlLodLevel *below = &g_array_index (levels, SlLodLevel, levels->len - 1);
      SlLodLevel up = { below->width * 4, (below->n + 3) / 4, NULL };
      up.b = g_new (SlLodBucket, up.n);
      lod_merge (below, &up, 0);
      g_array_append_val (levels, up);
      lv = up;
    }
}

void
_sl_lane_build_lod_width (SlLane *lane,
                          SlTime  origin,
                          SlTime  width)
{
  const SlEvent *ev = lane->events;
  gsize n = lane->n_events;
  SlTime span = ev[n - 1].start - origin + 1;
  g_autoptr (GArray) levels = g_array_new (FALSE, FALSE, sizeof (SlLodLevel));

  _sl_lane_free_lod (lane);
  /* finest level: one sweep over the events */
  SlLodLevel lv = { width, (gsize) (span / width) + 1, NULL };
  lv.b = _sl_huge_new (lv.n, sizeof (SlLodBucket));
  lod_fill (lane, &lv, origin, 0, 0, 0);
  g_array_append_val (levels, lv);
  lod_levels_up (levels);

  lane->lod_origin = origin;
  lane->n_lod = levels->len;
  lane->lod = (SlLodLevel *) g_array_free (g_steal_pointer (&levels), FALSE);
}

/* The finest buckets' width for a lane of n events spanning `span` from its first start. */
static SlTime
lod_width (gsize  n,
           SlTime span)
{
  /* lanes of up to a million events get buckets twice finer: at 10^5 … 10^6 events a lane is a
   * few events per pixel zoomed to a tenth of the trace, too few for buckets of 16 on average, and
   * walking its events was most of such a frame's LOD time.  Buckets of 4 (tried first) cost 3.9
   * bytes an event more than 8 on 64 merged ranks of 10^6 events, for no frame time bench-render
   * could tell apart (1 M and 10 M events, interleaved runs, medians within noise) */
  gsize per_bucket = n <= (1u << 20) ? LOD_EVENTS_PER_BUCKET / 2 : LOD_EVENTS_PER_BUCKET;
  return MAX (1, span / (SlTime) (n / per_bucket));
}

void
_sl_lane_build_lod (SlLane *lane)
{
  const SlEvent *ev = lane->events;
  gsize n = lane->n_events;

  _sl_lane_free_lod (lane);
  if (n < LOD_MIN_EVENTS)
    return;
  SlTime origin = ev[0].start;
  _sl_lane_build_lod_width (lane, origin, lod_width (n, ev[n - 1].start - origin + 1));
}

void
_sl_lane_extend_lod (SlLane       *lane,
                     const SlLane *prev)
{
  const SlEvent *ev = lane->events;
  gsize n = lane->n_events;

  lane->lod = NULL;
  lane->n_lod = 0;
  if (n < LOD_MIN_EVENTS)
    return;
  SlTime origin = ev[0].start, span = ev[n - 1].start - origin + 1;
  /* the previous width while buckets hold between a quarter and four times what a fresh build
   * would put in them (appends at a steady rate keep it; a rate that changed much builds anew,
   * which doubling or quartering makes rare) */
  if (prev->n_lod == 0 || prev->lod_origin != origin)
    {
      _sl_lane_build_lod (lane);
      return;
    }
  SlTime width = prev->lod[0].width, fresh = lod_width (n, span);
  if (width > 4 * fresh || 4 * width < fresh)
    {
      _sl_lane_build_lod (lane);
      return;
    }

  /* the finest level: the previous buckets, the last one's widest event again with the new
   * events in it, and the buckets after */
  g_autoptr (GArray) levels = g_array_new (FALSE, FALSE, sizeof (SlLodLevel));
  const SlLodLevel *old = &prev->lod[0];
  SlLodLevel lv = { width, (gsize) (span / width) + 1, NULL };
  lv.b = _sl_huge_new (lv.n, sizeof (SlLodBucket));
  /* buckets before the one of the previous last start: the new events start in it or later */
  gsize keep = (gsize) ((ev[prev->n_events - 1].start - origin) / width);
  memcpy (lv.b, old->b, keep * sizeof (SlLodBucket));
  lod_fill (lane, &lv, origin, keep, old->b[keep].first, old->b[keep].busy_before);
  g_array_append_val (levels, lv);

  /* coarser levels: the buckets made of unchanged ones kept */
  for (guint l = 1; l < prev->n_lod && g_array_index (levels, SlLodLevel, l - 1).n > 64; l++)
    {
      const SlLodLevel *below = &g_array_index (levels, SlLodLevel, l - 1);
      const SlLodLevel *was = &prev->lod[l];
      SlLodLevel up = { below->width * 4, (below->n + 3) / 4, NULL };
      up.b = g_new (SlLodBucket, up.n);
      gsize same = MIN (keep / 4, was->n);
      memcpy (up.b, was->b, same * sizeof (SlLodBucket));
      lod_merge (below, &up, same);
      g_array_append_val (levels, up);
      keep = same;
    }
  lod_levels_up (levels);

  lane->lod_origin = origin;
  lane->n_lod = levels->len;
  lane->lod = (SlLodLevel *) g_array_free (g_steal_pointer (&levels), FALSE);
}

SlTime *
_sl_lane_extend_busy (const SlLane *lane,
                      const SlTime *prev_busy,
                      gsize         n_old)
{
  gsize n_blocks = lane->n_events / SL_BUSY_STRIDE + 1;
  gsize keep = n_old / SL_BUSY_STRIDE + 1;   /* blocks before the previous last event's */
  SlTime *busy = g_new (SlTime, n_blocks);

  keep = MIN (keep, n_blocks);
  memcpy (busy, prev_busy, keep * sizeof (SlTime));
  SlTime sum = busy[keep - 1];
  for (gsize b = keep - 1; b < n_blocks; b++)
    {
      busy[b] = sum;
      gsize end = MIN ((b + 1) * SL_BUSY_STRIDE, lane->n_events);
      for (gsize i = b * SL_BUSY_STRIDE; i < end; i++)
        sum = _sl_time_add (sum, lane->events[i].end - lane->events[i].start);
    }
  return busy;
}

void
_sl_lane_free_lod (SlLane *lane)
{
  for (guint l = 0; l < lane->n_lod; l++)
    _sl_free_large (lane->lod[l].b);
  g_clear_pointer (&lane->lod, g_free);
  lane->n_lod = 0;
}
