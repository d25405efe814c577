/* test-lane.c: overlap and level-of-detail queries against a brute-force oracle on random lanes. */
#include "sl-lane.h"
#include "sl-test-util.h"
#include "sl-trace-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static GRand *rng;

/* A lane of n random events; `disjoint` makes them follow each other (like one NVTX depth). */
static SlLane *
random_lane (gsize    n,
             gboolean disjoint)
{
  SlLane *lane = g_new0 (SlLane, 1);
  SlTime t = g_rand_int_range (rng, 0, 1000);

  lane->events = g_new0 (SlEvent, n);
  lane->n_events = n;
  for (gsize i = 0; i < n; i++)
    {
      SlEvent *ev = &lane->events[i];
      /* durations spread over 6 orders of magnitude, some zero (marks) */
      SlTime dur = g_rand_int_range (rng, 0, 8) == 0 ? 0 : (SlTime) g_rand_double_range (rng, 1, 1e6);
      if (g_rand_int_range (rng, 0, 50) == 0)
        dur = (SlTime) g_rand_double_range (rng, 1e6, 1e8);
      /* now and then one longer than 2^32 ns, where bucket durations saturate */
      if (g_rand_int_range (rng, 0, 2000) == 0)
        dur = (SlTime) g_rand_double_range (rng, 5e9, 2e10);
      SlTime gap = g_rand_int_range (rng, 0, 4) == 0 ? 0 : (SlTime) g_rand_double_range (rng, 0, 2e5);
      ev->start = t + gap;
      ev->end = ev->start + dur;
      ev->name = i;
      t = disjoint ? ev->end : ev->start;
    }
  if (!disjoint)
    {
      /* sort by start, as the loader leaves lanes */
      for (gsize i = 1; i < n; i++)
        for (gsize k = i; k > 0 && lane->events[k - 1].start > lane->events[k].start; k--)
          {
            SlEvent tmp = lane->events[k];
            lane->events[k] = lane->events[k - 1];
            lane->events[k - 1] = tmp;
          }
    }
  _sl_lane_build_index (lane);
  lane->busy_prefix = _sl_lane_build_busy (lane);
  lane->busy = _sl_lane_busy_between (lane, lane->busy_prefix, 0, n);
  _sl_lane_build_lod (lane);
  return lane;
}

static void
lane_free (SlLane *lane)
{
  g_free (lane->events);
  g_free (lane->max_end);
  g_free (lane->busy_prefix);
  _sl_lane_free_lod (lane);
  g_free (lane);
}

static gboolean
overlaps (const SlEvent *ev,
          SlTime         t0,
          SlTime         t1)
{
  SlTime end = ev->end > ev->start ? ev->end : ev->start + 1;
  return ev->start < t1 && end > t0;
}

static gboolean
collect_cb (const SlLane *lane,
            gsize         index,
            gpointer      user_data)
{
  (void) lane;
  g_array_append_val ((GArray *) user_data, index);
  return TRUE;
}

static void
random_window (const SlLane *lane,
               SlTime       *t0,
               SlTime       *t1)
{
  SlTime lo = lane->events[0].start - 1000;
  SlTime hi = lane->events[lane->n_events - 1].end + 1000;
  SlTime span = (SlTime) (g_rand_double (rng) * (hi - lo)) + 1;

  /* zoom levels from the whole lane down to a few ns */
  double zoom = pow (10, -g_rand_double_range (rng, 0, 7));
  span = MAX (1, (SlTime) (span * zoom));
  *t0 = lo + (SlTime) (g_rand_double (rng) * (hi - lo));
  *t1 = *t0 + span;
}

static void
check_overlap (gboolean disjoint)
{
  for (guint round = 0; round < 60; round++)
    {
      gsize n = g_rand_int_range (rng, 1, round < 30 ? 200 : 20000);
      SlLane *lane = random_lane (n, disjoint);

      g_assert_true (disjoint ? lane->max_end == NULL : TRUE);
      for (guint q = 0; q < 200; q++)
        {
          SlTime t0, t1;
          g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (gsize));
          random_window (lane, &t0, &t1);
          gsize visited = sl_lane_overlap (lane, t0, t1, collect_cb, got);
          g_assert_cmpuint (visited, ==, got->len);

          gsize k = 0;
          for (gsize i = 0; i < n; i++)
            if (overlaps (&lane->events[i], t0, t1))
              {
                g_assert_cmpuint (k, <, got->len);
                g_assert_cmpuint (g_array_index (got, gsize, k), ==, i);
                k++;
              }
          g_assert_cmpuint (k, ==, got->len);
        }
      lane_free (lane);
    }
}

static void
test_overlap_disjoint (void)
{
  check_overlap (TRUE);
}

static void
test_overlap_overlapping (void)
{
  check_overlap (FALSE);
}

/* The query cost is O(log n + k): count the events it looks at on a large lane. */
static void
test_overlap_cost (void)
{
  SlLane *lane = random_lane (1 << 18, FALSE);
  g_assert_nonnull (lane->max_end);

  for (guint q = 0; q < 100; q++)
    {
      gsize i = g_rand_int_range (rng, 0, lane->n_events);
      SlTime t0 = lane->events[i].start, t1 = t0 + 10;
      gsize k = sl_lane_overlap (lane, t0, t1, NULL, NULL);
      gsize brute = 0;
      for (gsize j = 0; j < lane->n_events; j++)
        brute += overlaps (&lane->events[j], t0, t1);
      g_assert_cmpuint (k, ==, brute);
    }
  lane_free (lane);
}

static void
check_lod (gboolean disjoint)
{
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (SlLodItem));

  for (guint round = 0; round < 40; round++)
    {
      gsize n = g_rand_int_range (rng, 1, round < 20 ? 300 : 50000);
      SlLane *lane = random_lane (n, disjoint);

      for (guint q = 0; q < 50; q++)
        {
          SlTime t0, t1;
          guint width = g_rand_int_range (rng, 1, 2500);
          random_window (lane, &t0, &t1);
          sl_lane_lod (lane, t0, t1, width, 1.0, items);

          /* at most about 2 items per pixel (plus events straddling t0 in overlapping lanes) */
          /* overlapping lanes also draw every wide event, however many start in one pixel,
           * and each may split a fold in two */
          gsize straddling = 0, wide = 0;
          double px_ns = (double) (t1 - t0) / width;
          for (gsize i = 0; !disjoint && i < n; i++)
            {
              straddling += lane->events[i].start < t0 && overlaps (&lane->events[i], t0, t1);
              wide += lane->events[i].start >= t0 && lane->events[i].start < t1
                      && (double) (lane->events[i].end - lane->events[i].start) >= px_ns;
            }
          g_assert_cmpuint (items->len, <=, 2 * (gsize) width + 2 + straddling + 2 * wide);

          /* the items cover every overlapping event exactly once, in index ranges */
          g_autofree guint8 *seen = g_new0 (guint8, n);
          for (guint k = 0; k < items->len; k++)
            {
              const SlLodItem *it = &g_array_index (items, SlLodItem, k);
              SlTime busy = 0, max_end = G_MININT64;
              g_assert_cmpuint (it->count, >=, 1);
              g_assert_cmpuint (it->first + it->count, <=, n);
              for (gsize i = it->first; i < it->first + it->count; i++)
                {
                  g_assert_cmpuint (seen[i], ==, 0);
                  seen[i] = 1;
                  busy += lane->events[i].end - lane->events[i].start;
                  max_end = MAX (max_end, lane->events[i].end);
                }
              g_assert_cmpint (it->busy, ==, busy);
              g_assert_cmpint (it->start, ==, lane->events[it->first].start);
              if (disjoint || it->count <= 32)
                g_assert_cmpint (it->end, ==, max_end);
              /* overlapping lanes look only FOLD_SCAN (256) events into a fold */
              if (it->count > 1 && (disjoint || it->count <= 256))
                {
                  /* a fold hides only events narrower than a pixel */
                  double ns_per_px = (double) (t1 - t0) / width;
                  for (gsize i = it->first; i < it->first + it->count; i++)
                    g_assert_cmpfloat ((double) (lane->events[i].end - lane->events[i].start), <, ns_per_px);
                }
            }
          for (gsize i = 0; i < n; i++)
            if (overlaps (&lane->events[i], t0, t1))
              g_assert_cmpuint (seen[i], ==, 1);
        }
      lane_free (lane);
    }
}

static void
test_lod_disjoint (void)
{
  check_lod (TRUE);
}

static void
test_lod_overlapping (void)
{
  check_lod (FALSE);
}

/*
 * sl_lane_lod_columns: the items and the column sums together account for every event that
 * overlaps the window exactly once; what went to columns is narrow and sits in its own column or
 * the one before (a bucket goes to its first event's column, and is at most a pixel wide).
 */
static void
check_lod_columns (gboolean disjoint)
{
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (SlLodItem));
  guint dense_windows = 0;

  for (guint round = 0; round < 30; round++)
    {
      gsize n = g_rand_int_range (rng, 1, round < 10 ? 300 : 60000);
      SlLane *lane = random_lane (n, disjoint);

      for (guint q = 0; q < 40; q++)
        {
          SlTime t0, t1;
          guint width = g_rand_int_range (rng, 1, 2500);
          double min_px = g_rand_int_range (rng, 0, 2) ? 1.0 : 2.0;
          g_autofree SlLodColumn *cols = g_new0 (SlLodColumn, width);
          g_autofree guint64 *brute = g_new0 (guint64, width + 1);
          g_autofree guint8 *seen = g_new0 (guint8, n);
          SlTime brute_busy = 0, col_busy = 0;
          guint64 brute_count = 0, col_count = 0;

          random_window (lane, &t0, &t1);
          double ns_per_px = (double) (t1 - t0) / width;
          gboolean dense = sl_lane_lod_columns (lane, t0, t1, width, min_px, items, cols);
          dense_windows += dense;

          for (guint k = 0; k < items->len; k++)
            {
              const SlLodItem *it = &g_array_index (items, SlLodItem, k);
              g_assert_cmpuint (it->first + it->count, <=, n);
              for (gsize i = it->first; i < it->first + it->count; i++)
                {
                  g_assert_cmpuint (seen[i], ==, 0);
                  seen[i] = 1;
                }
            }
          for (gsize i = 0; i < n; i++)
            {
              const SlEvent *ev = &lane->events[i];
              if (seen[i] || !overlaps (ev, t0, t1))
                continue;
              /* not an item: a narrow event, in its column (0 when it began before t0) */
              g_assert_true (dense);
              g_assert_cmpfloat ((double) (ev->end - ev->start), <, min_px * ns_per_px);
              guint own = MIN ((guint) ((double) (MAX (ev->start, t0) - t0) / ns_per_px), width - 1);
              brute[own + 1]++;
              g_assert_cmpuint (cols[own].count + (own > 0 ? cols[own - 1].count : 0), >, 0);
              brute_count++;
              brute_busy += ev->end - ev->start;
            }
          for (guint c = 0; c < width; c++)
            brute[c + 1] += brute[c];
          for (guint c = 0; c < width; c++)
            {
              /* a column of one event names it */
              if (cols[c].count == 1)
                {
                  g_assert_cmpuint (cols[c].last, <, n);
                  g_assert_cmpuint (seen[cols[c].last], ==, 0);
                  g_assert_true (overlaps (&lane->events[cols[c].last], t0, t1));
                }
              col_count += cols[c].count;
              col_busy += cols[c].busy;
              /* prefix sums: the model's columns are the events' own or one before */
              g_assert_cmpuint (col_count, >=, brute[c + 1]);
              if (c + 2 <= width)
                g_assert_cmpuint (col_count, <=, brute[MIN (c + 2, width)]);
            }
          g_assert_cmpuint (col_count, ==, brute_count);
          g_assert_cmpint (col_busy, ==, brute_busy);
          g_assert_true (dense || col_count == 0);
        }
      lane_free (lane);
    }
  /* the random windows did reach the bucket levels */
  g_assert_cmpuint (dense_windows, >, 0);
}

static void
test_lod_columns_disjoint (void)
{
  check_lod_columns (TRUE);
}

static void
test_lod_columns_overlapping (void)
{
  check_lod_columns (FALSE);
}

/* A million tiny events seen whole: a few thousand items, each fold carrying its count. */
static void
test_lod_fold (void)
{
  SlLane *lane = g_new0 (SlLane, 1);
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (SlLodItem));
  gsize n = 1000000;

  lane->events = g_new0 (SlEvent, n);
  lane->n_events = n;
  for (gsize i = 0; i < n; i++)
    lane->events[i] = (SlEvent) { (SlTime) i * 1000, (SlTime) i * 1000 + 400, 0, 0, 0, 0 };
  _sl_lane_build_index (lane);
  lane->busy_prefix = _sl_lane_build_busy (lane);
  lane->busy = _sl_lane_busy_between (lane, lane->busy_prefix, 0, n);
  _sl_lane_build_lod (lane);
  g_assert_cmpuint (lane->n_lod, >, 0);

  sl_lane_lod (lane, 0, (SlTime) n * 1000, 2000, 1.0, items);
  g_assert_cmpuint (items->len, <=, 2000);
  g_assert_cmpuint (items->len, >=, 1990);
  guint64 total = 0;
  SlTime busy = 0;
  for (guint k = 0; k < items->len; k++)
    {
      total += g_array_index (items, SlLodItem, k).count;
      busy += g_array_index (items, SlLodItem, k).busy;
    }
  g_assert_cmpuint (total, ==, n);
  g_assert_cmpint (busy, ==, (SlTime) n * 400);

  /* as columns: no item at all, each column ~500 events, give or take a bucket (at most a pixel
   * wide: here 256 events; buckets are 4, 16, 64, 256, ... events) */
  g_autofree SlLodColumn *cols = g_new0 (SlLodColumn, 2000);
  g_assert_true (sl_lane_lod_columns (lane, 0, (SlTime) n * 1000, 2000, 1.0, items, cols));
  g_assert_cmpuint (items->len, ==, 0);
  total = 0;
  for (guint c = 0; c < 2000; c++)
    {
      g_assert_cmpuint (cols[c].count, >=, 500 - 256);
      g_assert_cmpuint (cols[c].count, <=, 500 + 256);
      g_assert_cmpint (cols[c].busy, ==, (SlTime) cols[c].count * 400);
      total += cols[c].count;
    }
  g_assert_cmpuint (total, ==, n);

  /* zoomed in to 10 events: each is its own item */
  sl_lane_lod (lane, 5000000, 5010000, 2000, 1.0, items);
  g_assert_cmpuint (items->len, ==, 10);
  for (guint k = 0; k < items->len; k++)
    g_assert_cmpuint (g_array_index (items, SlLodItem, k).count, ==, 1);
  lane_free (lane);
}

/* Durations of ±2^61-clamped times add up past 2^63: sums saturate instead of overflowing. */
static void
test_busy_saturates (void)
{
  SlLane *lane = g_new0 (SlLane, 1);
  SlTime big = (SlTime) 1 << 61;
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (SlLodItem));

  lane->n_events = 3;
  lane->events = g_new0 (SlEvent, 3);
  for (guint i = 0; i < 3; i++)
    lane->events[i] = (SlEvent) { -big, big, 0, 0, 0, 0 };
  _sl_lane_build_index (lane);
  lane->busy_prefix = _sl_lane_build_busy (lane);
  lane->busy = _sl_lane_busy_between (lane, lane->busy_prefix, 0, 3);
  g_assert_cmpint (lane->busy, >, 0);
  sl_lane_lod (lane, -big, big, 1000, 1.0, items);
  g_assert_cmpuint (items->len, ==, 3);
  lane_free (lane);
}

/* The oracle's order: by start, longer first, then table order (the event's `name` here). */
static int
cmp_oracle (gconstpointer a,
            gconstpointer b)
{
  const SlEvent *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->end != y->end)
    return x->end > y->end ? -1 : 1;
  return (x->name > y->name) - (x->name < y->name);
}

/* Ranges nested as a thread's NVTX ranges are, in the order nsys writes them (when they end: an
 * enclosing range after what it encloses), some with the same start and end, told apart by their
 * `name` (their place in the table). */
static gsize
nested_ranges (SlEvent *ev,
               gsize    n)
{
  SlTime t = 0;
  gsize k = 0;

  while (k < n)
    {
      /* a step: an outer range, a few children, each with a few grandchildren */
      SlTime step_start = t;
      guint children = g_rand_int_range (rng, 0, 6);
      for (guint c = 0; c < children && k < n; c++)
        {
          SlTime child_start = t;
          guint grand = g_rand_int_range (rng, 0, 4);
          for (guint g = 0; g < grand && k < n; g++)
            {
              SlTime d = g_rand_int_range (rng, 0, 3) == 0 ? 0 : g_rand_int_range (rng, 1, 100);
              ev[k++] = (SlEvent) { t, t + d, 0, 0, 0, 0 };
              /* a twin: same times, later in the table */
              if (g_rand_int_range (rng, 0, 5) == 0 && k < n)
                ev[k++] = (SlEvent) { t, t + d, 0, 0, 0, 0 };
              t += d + g_rand_int_range (rng, 0, 3);
            }
          if (k < n)
            ev[k++] = (SlEvent) { child_start, t + 1, 0, 0, 0, 0 };
          t += 2;
        }
      if (k < n)
        ev[k++] = (SlEvent) { step_start, t + 1, 0, 0, 0, 0 };
      t += 2;
    }
  return k;
}

/* _sl_events_sort moves the few events out of order into place and leaves a file far from order
 * to qsort: either way the order is start, longer first, and equal events keep the table's
 * order, as the oracle (a total order) says. */
static void
test_events_sort (void)
{
  for (guint round = 0; round < 40; round++)
    {
      gsize n = round < 4 ? round : (gsize) g_rand_int_range (rng, 4, round < 36 ? 3000 : 60000);
      g_autofree SlEvent *ev = g_new0 (SlEvent, MAX (n, 1));
      guint shape = round % 4;

      if (shape == 0)
        nested_ranges (ev, n);
      else if (shape == 1)
        for (gsize i = 0; i < n; i++)   /* shuffled, with ties: past the insertion budget */
          {
            SlTime s = g_rand_int_range (rng, 0, (gint32) MAX (n / 4, 1));
            ev[i] = (SlEvent) { s, s + g_rand_int_range (rng, 0, 3), 0, 0, 0, 0 };
          }
      else if (shape == 2)
        {
          /* nested, then reversed: the budget runs out part way, after some events moved */
          gsize half = nested_ranges (ev, n / 2);
          for (gsize i = half; i < n; i++)
            ev[i] = (SlEvent) { (SlTime) (n - i) * 1000, (SlTime) (n - i) * 1000 + 5, 0, 0, 0, 0 };
        }
      else
        for (gsize i = 0; i < n; i++)   /* in order already, ties included */
          ev[i] = (SlEvent) { (SlTime) i / 3, (SlTime) i / 3 + 1, 0, 0, 0, 0 };
      for (gsize i = 0; i < n; i++)
        ev[i].name = (guint32) i;
      g_autofree SlEvent *want = g_memdup2 (ev, MAX (n, 1) * sizeof (SlEvent));
      qsort (want, n, sizeof (SlEvent), cmp_oracle);
      _sl_events_sort (ev, n);
      for (gsize i = 0; i < n; i++)
        {
          if (memcmp (&ev[i], &want[i], sizeof (SlEvent)) != 0)
            g_error ("round %u (shape %u, %" G_GSIZE_FORMAT " events): event %" G_GSIZE_FORMAT
                     " is table row %u, the oracle says %u",
                     round, shape, n, i, ev[i].name, want[i].name);
        }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  rng = g_rand_new_with_seed (sl_test_seed ());
  g_test_add_func ("/model/lane/overlap/disjoint", test_overlap_disjoint);
  g_test_add_func ("/model/lane/overlap/overlapping", test_overlap_overlapping);
  g_test_add_func ("/model/lane/overlap/large", test_overlap_cost);
  g_test_add_func ("/model/lane/lod/disjoint", test_lod_disjoint);
  g_test_add_func ("/model/lane/lod/overlapping", test_lod_overlapping);
  g_test_add_func ("/model/lane/lod/fold", test_lod_fold);
  g_test_add_func ("/model/lane/lod/columns/disjoint", test_lod_columns_disjoint);
  g_test_add_func ("/model/lane/lod/columns/overlapping", test_lod_columns_overlapping);
  g_test_add_func ("/model/lane/busy-saturates", test_busy_saturates);
  g_test_add_func ("/model/lane/events-sort", test_events_sort);
  int rc = g_test_run ();
  g_rand_free (rng);
  return rc;
}
