/* test-search.c: the model's search (name matches, positions, steps) against a brute-force
 * oracle on every real trace, and the time-range parser. */
#include <string.h>

#include "sl-lane.h"
#include "sl-range.h"
#include "sl-search.h"
#include "sl-test-util.h"
#include "sl-trace.h"

/* Every event of the trace, in time order (start, lane, index). */
typedef struct
{
  SlTime     start;
  SlEventRef ref;
} Item;

static int
item_cmp (gconstpointer a,
          gconstpointer b)
{
  const Item *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->ref.lane != y->ref.lane)
    return x->ref.lane < y->ref.lane ? -1 : 1;
  return x->ref.index < y->ref.index ? -1 : x->ref.index > y->ref.index;
}

/* The matches the slow way: casefold every event's name, keep those holding the needle. */
static GArray *
oracle (SlTrace    *trace,
        const char *needle)
{
  GArray *items = g_array_new (FALSE, FALSE, sizeof (Item));
  g_autofree char *folded = g_utf8_casefold (needle, -1);

  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      for (gsize i = 0; i < lane->n_events; i++)
        {
          g_autofree char *name = g_utf8_casefold (sl_trace_str (trace, lane->events[i].name), -1);
          if (*needle != '\0' && strstr (name, folded) != NULL)
            {
              Item it = { lane->events[i].start, { (gint) l, i } };
              g_array_append_val (items, it);
            }
        }
    }
  g_array_sort (items, item_cmp);
  return items;
}

static void
check_search (SlTrace    *trace,
              const char *needle,
              GRand      *rand)
{
  g_autoptr (SlSearch) search = sl_trace_search (trace, needle);
  g_autoptr (GArray) want = oracle (trace, needle);
  gsize n = want->len, seen = 0;
  SlEventRef ref = SL_EVENT_REF_NONE;

  g_assert_cmpuint (sl_search_get_n_matches (search), ==, n);
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      gsize k;
      const guint32 *idx = sl_search_get_lane_matches (search, l, &k);
      for (gsize j = 1; j < k; j++)
        g_assert_cmpuint (idx[j - 1], <, idx[j]);
      seen += k;
    }
  g_assert_cmpuint (seen, ==, n);

  /* stepping forward from nothing at the trace start visits every match in time order, each
   * at its position; backward from the end visits them in reverse */
  for (gsize i = 0; i < n; i++)
    {
      const Item *it = &g_array_index (want, Item, i);
      g_assert_true (sl_search_step (search, ref, sl_trace_get_start (trace), TRUE, &ref));
      g_assert_cmpint (ref.lane, ==, it->ref.lane);
      g_assert_cmpuint (ref.index, ==, it->ref.index);
      g_assert_cmpint (sl_search_get_position (search, ref), ==, (gssize) i);
      if (i > 200 && n > 2000)
        break;  /* the walk is quadratic in lanes × matches on big files: a prefix suffices */
    }
  if (n > 0 && n <= 2000)
    {
      g_assert_false (sl_search_step (search, ref, 0, TRUE, NULL));
      for (gsize i = n - 1; i > 0; i--)
        {
          g_assert_true (sl_search_step (search, ref, 0, FALSE, &ref));
          g_assert_cmpint (ref.lane, ==, g_array_index (want, Item, i - 1).ref.lane);
          g_assert_cmpuint (ref.index, ==, g_array_index (want, Item, i - 1).ref.index);
        }
      g_assert_false (sl_search_step (search, ref, 0, FALSE, NULL));
    }

  /* from a random time with nothing selected: the first match at or after it, the last before */
  for (int r = 0; r < 50 && n > 0; r++)
    {
      SlTime t0 = sl_trace_get_start (trace), t1 = sl_trace_get_end (trace);
      SlTime t = t0 + (SlTime) (g_rand_double (rand) * (double) (t1 - t0 + 1));
      gsize lo = 0;
      gboolean ok;

      while (lo < n && g_array_index (want, Item, lo).start < t)
        lo++;
      ok = sl_search_step (search, SL_EVENT_REF_NONE, t, TRUE, &ref);
      g_assert_cmpint (ok, ==, lo < n);
      if (ok)
        g_assert_cmpint (sl_search_get_position (search, ref), ==, (gssize) lo);
      ok = sl_search_step (search, SL_EVENT_REF_NONE, t, FALSE, &ref);
      g_assert_cmpint (ok, ==, lo > 0);
      if (ok)
        g_assert_cmpint (sl_search_get_position (search, ref), ==, (gssize) lo - 1);
    }

  /* an event that is not a match has no position, but steps from it land on neighbours */
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      SlEventRef e = { (gint) l, lane->n_events / 2 };
      if (lane->n_events == 0 || sl_search_contains (search, e))
        continue;
      g_assert_cmpint (sl_search_get_position (search, e), ==, -1);
      break;
    }
}

static void
test_real_files (void)
{
  g_auto (GStrv) paths = sl_test_nsys_traces ();
  g_autoptr (GRand) rand = g_rand_new_with_seed (sl_test_seed ());
  /* names that occur in these traces: kernels, API calls, NVTX, OS calls; a case-folded one;
   * and one that matches nothing */
  const char *needles[] = { "memcpy", "KERNEL", "cudaLaunch", "sync", "read", "zz-no-such-name", "" };

  g_assert_nonnull (paths[0]);
  for (int f = 0; paths[f] != NULL; f++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (paths[f], SL_LOAD_ALL, NULL, NULL, NULL, &error);

      g_assert_no_error (error);
      g_test_message ("%s", paths[f]);
      for (gsize k = 0; k < G_N_ELEMENTS (needles); k++)
        check_search (trace, needles[k], rand);
    }
}

static void
test_name (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  guint32 name = SL_NO_STR;
  gsize want = 0;

  g_assert_no_error (error);
  for (guint l = 0; l < sl_trace_get_n_lanes (trace) && name == SL_NO_STR; l++)
    if (sl_trace_get_lane (trace, l)->kind == SL_LANE_KERNELS)
      name = sl_trace_get_lane (trace, l)->events[0].name;
  g_assert_cmpuint (name, !=, SL_NO_STR);
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    for (gsize i = 0; i < sl_trace_get_lane (trace, l)->n_events; i++)
      want += sl_trace_get_lane (trace, l)->events[i].name == name;

  g_autoptr (SlSearch) search = sl_trace_search_name (trace, name);
  g_assert_cmpuint (sl_search_get_n_matches (search), ==, want);
  g_autoptr (SlSearch) none = sl_trace_search_name (trace, SL_NO_STR);
  g_assert_cmpuint (sl_search_get_n_matches (none), ==, 0);
  g_assert_false (sl_search_step (none, SL_EVENT_REF_NONE, 0, TRUE, NULL));
}

static void
test_time_parse (void)
{
  static const struct
  {
    const char *text;
    SlTime      ns;
  } good[] = {
    { "0", 0 }, { "1200", 1200 }, { "1200ns", 1200 }, { "1.5s", 1500000000 },
    { "250ms", 250000000 }, { "0.1s", 100000000 }, { "10us", 10000 }, { "10µs", 10000 },
    { "2.5 ms", 2500000 }, { ".5ms", 500000 }, { "-1ms", -1000000 }, { "1.9999999999s", 1999999999 },
    { "9223372036854775807", G_MAXINT64 },
  };
  const char *bad[] = { "", "ms", "1.5 h", "1..5s", "abc", "1e9", "9223372036854775808",
                        "10000000000s", "1s2" };

  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (GError) error = NULL;
      SlTime ns = -42;
      g_assert_true (sl_time_parse (good[i].text, &ns, &error));
      g_assert_no_error (error);
      g_assert_cmpint (ns, ==, good[i].ns);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      SlTime ns;
      g_assert_false (sl_time_parse (bad[i], &ns, &error));
      g_assert_error (error, SL_RANGE_ERROR, SL_RANGE_ERROR_SYNTAX);
      g_assert_nonnull (strstr (error->message, bad[i]));
    }
}

static void
test_range_parse (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  SlTime start, end, origin, t0 = 0, t1 = 0;
  g_autofree char *first = NULL, *whole = NULL, *past = NULL;

  g_assert_no_error (error);
  /* times count from the session's start, as the viewer and `sightline info` show them: this
   * export's first event is 1.30 s after it */
  start = sl_trace_get_start (trace);
  end = sl_trace_get_end (trace);
  origin = sl_trace_get_origin (trace);
  g_assert_cmpint (origin, ==, 0);
  g_assert_cmpint (start - origin, >, 1000000000);
  g_assert_cmpint (end - start, >, 1000);

  first = g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, start - origin,
                           start - origin + 1000);
  g_assert_true (sl_range_parse (first, trace, &t0, &t1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (t0, ==, start);
  g_assert_cmpint (t1, ==, start + 1000);
  g_assert_true (sl_range_parse ("1.3s:1.4s", trace, &t0, &t1, &error));
  g_assert_cmpint (t0, ==, origin + 1300000000);
  g_assert_cmpint (t1, ==, origin + 1400000000);
  whole = g_strdup_printf ("0:%" G_GINT64_FORMAT, end - origin + 1);
  g_assert_true (sl_range_parse (whole, trace, &t0, &t1, &error));
  g_assert_cmpint (t0, ==, origin);
  g_assert_cmpint (t1, ==, end + 1);
  g_assert_true (sl_range_parse ("-5ms:1.5s", trace, &t0, &t1, &error));
  g_assert_cmpint (t0, ==, origin - 5000000);
  /* what Sightline prints: "+1.3 s", "−5 ms" (U+2212) */
  g_assert_true (sl_range_parse ("−5 ms:+1.5 s", trace, &t0, &t1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (t0, ==, origin - 5000000);
  g_assert_cmpint (t1, ==, origin + 1500000000);

  const struct
  {
    const char  *text;
    SlRangeError code;
  } bad[] = {
    { "2ms:1ms", SL_RANGE_ERROR_EMPTY }, { "1ms:1ms", SL_RANGE_ERROR_EMPTY },
    { "1ms", SL_RANGE_ERROR_SYNTAX }, { "1ms:2ms:3ms", SL_RANGE_ERROR_SYNTAX },
    { "a:b", SL_RANGE_ERROR_SYNTAX }, { "-2s:0", SL_RANGE_ERROR_OUTSIDE },
    { "10000s:10001s", SL_RANGE_ERROR_OUTSIDE },
    /* from the first event these would hold some; from time 0 they end before it */
    { "0:1us", SL_RANGE_ERROR_OUTSIDE }, { "100ms:0.2s", SL_RANGE_ERROR_OUTSIDE },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      g_assert_false (sl_range_parse (bad[i].text, trace, &t0, &t1, &e));
      g_assert_error (e, SL_RANGE_ERROR, bad[i].code);
    }
  past = g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, end - origin + 1,
                          end - origin + 2);
  g_assert_false (sl_range_parse (past, trace, &t0, &t1, &error));
  g_assert_error (error, SL_RANGE_ERROR, SL_RANGE_ERROR_OUTSIDE);
  /* the error says where the events lie, in the times it takes */
  g_assert_nonnull (strstr (error->message, "+1.304 s:+1.540 s"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/search/real-files", test_real_files);
  g_test_add_func ("/model/search/name", test_name);
  g_test_add_func ("/model/range/time-parse", test_time_parse);
  g_test_add_func ("/model/range/range-parse", test_range_parse);
  return g_test_run ();
}
