/* test-events-query.c: the events table's index (model/sl-events-query.c) against brute force on
 * planted traces: which events a lane or a range holds, every sort order, cells and CSV. */
#include <glib/gstdio.h>
#include <string.h>

#include "sl-display-name.h"
#include "sl-events-query.h"
#include "sl-lane.h"
#include "sl-plant.h"
#include "sl-test-util.h"

static const char *const names[] = {
  "gemm_kernel", "relu<float, 4>", "a\"quoted\" kernel", "zeta",
};

/* Kernels of random names and durations (few distinct durations, so sorts have ties), their
 * launches, and a copy every tenth; returns the loaded trace. */
static SlTrace *
planted_trace (guint   n,
               GRand  *rand)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "events.sqlite", NULL);
  g_autoptr (GError) error = NULL;
  Plant *p;
  gint64 t = PLANT_MS;
  SlTrace *trace;

  g_remove (path);
  p = plant_new (path);
  for (guint i = 0; i < n; i++)
    {
      PlantConfig config = { 4 + g_rand_int_range (rand, 0, 3), 256, 32, 1024 };
      gint64 dur = (1 + g_rand_int_range (rand, 0, 5)) * PLANT_US;
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel", t, t + 5 * PLANT_US);

      plant_kernel (p, names[g_rand_int_range (rand, 0, G_N_ELEMENTS (names))], &config,
                    t + 6 * PLANT_US, t + 6 * PLANT_US + dur, corr);
      if (i % 10 == 0)
        {
          corr = plant_api (p, PLANT_MAIN, "cudaMemcpyAsync", t + 20 * PLANT_US, t + 22 * PLANT_US);
          plant_memcpy (p, 1, 1, 2, 4096 + i, t + 30 * PLANT_US, t + 31 * PLANT_US, corr);
        }
      t += g_rand_int_range (rand, 10, 40) * PLANT_US;
    }
  plant_finish (p);
  trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  return trace;
}

static gint
find_lane (SlTrace    *trace,
           SlLaneKind  kind)
{
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    if (sl_trace_get_lane (trace, l)->kind == kind)
      return (gint) l;
  return -1;
}

static const SlEvent *
event_of (SlTrace    *trace,
          SlEventRef  ref)
{
  g_assert_cmpint (ref.lane, >=, 0);
  return &sl_trace_get_lane (trace, (guint) ref.lane)->events[ref.index];
}

/* What a query over [t0, t1) must hold, by brute force: (lane, index) in start order, ties by
 * lane; t1 <= t0 with one lane is the whole lane. */
static GArray *
oracle (SlTrace *trace,
        gint     only_lane,
        SlTime   t0,
        SlTime   t1)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (SlEventRef));

  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (only_lane >= 0 && (gint) l != only_lane)
        continue;
      for (gsize i = 0; i < lane->n_events; i++)
        {
          const SlEvent *e = &lane->events[i];
          gboolean in = t1 <= t0 || (e->start < t1 && (e->end > t0 || (e->start == e->end
                                                                       && e->start >= t0)));
          SlEventRef ref = { (gint) l, i };
          if (in)
            g_array_append_val (out, ref);
        }
    }
  /* stable insertion by start keeps lane order for ties */
  for (guint i = 1; i < out->len; i++)
    for (guint j = i; j > 0; j--)
      {
        SlEventRef *a = &g_array_index (out, SlEventRef, j - 1), *b = a + 1;
        if (event_of (trace, *a)->start <= event_of (trace, *b)->start)
          break;
        SlEventRef tmp = *a;
        *a = *b;
        *b = tmp;
      }
  return out;
}

static void
assert_same (SlEventsQuery *query,
             GArray        *want)
{
  g_assert_cmpuint (sl_events_query_get_n (query), ==, want->len);
  for (guint i = 0; i < want->len; i++)
    {
      SlEventRef got = sl_events_query_get (query, i);
      SlEventRef w = g_array_index (want, SlEventRef, i);
      g_assert_cmpint (got.lane, ==, w.lane);
      g_assert_cmpuint (got.index, ==, w.index);
    }
  g_assert_cmpint (sl_events_query_get (query, want->len).lane, ==, -1);
}

static void
test_rows (void)
{
  guint32 seed = sl_test_seed ();
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr (SlTrace) trace = planted_trace (600, rand);
  gint kernels = find_lane (trace, SL_LANE_KERNELS);
  SlTime start = sl_trace_get_start (trace), end = sl_trace_get_end (trace);

  g_assert_cmpint (kernels, >=, 0);
  {
    g_autoptr (GArray) want = oracle (trace, kernels, 0, 0);
    g_autoptr (SlEventsQuery) q = sl_events_query_new_lane (trace, (guint) kernels, 0, 0);
    g_assert_cmpuint (want->len, ==, 600);
    assert_same (q, want);
  }
  for (guint k = 0; k < 20; k++)
    {
      SlTime t0 = start + g_rand_int_range (rand, 0, (gint32) MIN (end - start, G_MAXINT32));
      SlTime t1 = t0 + g_rand_int_range (rand, 1, 2 * PLANT_MS);
      g_autoptr (GArray) want_lane = oracle (trace, kernels, t0, t1);
      g_autoptr (GArray) want_all = oracle (trace, -1, t0, t1);
      g_autoptr (SlEventsQuery) ql = sl_events_query_new_lane (trace, (guint) kernels, t0, t1);
      g_autoptr (SlEventsQuery) qa = sl_events_query_new_range (trace, t0, t1);

      assert_same (ql, want_lane);
      assert_same (qa, want_all);
      /* a range across lanes holds more than one kind */
      if (k == 0)
        {
          g_autoptr (GArray) w = oracle (trace, -1, start, end);
          g_autoptr (SlEventsQuery) q = sl_events_query_new_range (trace, start, end);
          assert_same (q, w);
          g_assert_cmpuint (w->len, ==, sl_trace_get_n_events (trace));
        }
    }
}

static void
check_sorted (SlEventsQuery  *q,
              SlEventsColumn  column,
              gboolean        descending)
{
  SlTrace *trace = sl_events_query_get_trace (q);
  gsize n = sl_events_query_get_n (q);
  g_autofree guint8 *seen = g_new0 (guint8, sl_trace_get_n_events (trace));

  sl_events_query_sort (q, column, descending);
  for (gsize i = 0; i < n; i++)
    {
      SlEventRef r = sl_events_query_get (q, i);
      const SlLane *lane = sl_trace_get_lane (trace, (guint) r.lane);
      guint32 id = lane->base + (guint32) r.index;

      g_assert_false (seen[id]);
      seen[id] = 1;
      if (i == 0)
        continue;
      SlEventRef p = sl_events_query_get (q, i - 1);
      const SlEvent *a = event_of (trace, p), *b = event_of (trace, r);
      gint64 c = 0;
      switch (column)
        {
        case SL_EVENTS_COLUMN_NAME:
          c = strcmp (sl_trace_str (trace, a->name), sl_trace_str (trace, b->name));
          break;
        case SL_EVENTS_COLUMN_DURATION:
          c = (a->end - a->start) - (b->end - b->start);
          break;
        case SL_EVENTS_COLUMN_LANE:
          c = p.lane - r.lane;
          break;
        case SL_EVENTS_COLUMN_START:
        case SL_EVENTS_COLUMN_DETAILS:
          c = a->start - b->start;
          break;
        case SL_EVENTS_N_COLUMNS:
        default:
          g_assert_not_reached ();
        }
      if (descending)
        c = -c;
      g_assert_cmpint (c, <=, 0);
      /* stable: ties keep start order (reversed when descending) */
      if (c == 0 && column != SL_EVENTS_COLUMN_START && column != SL_EVENTS_COLUMN_DETAILS)
        {
          if (!descending)
            g_assert_cmpint (a->start, <=, b->start);
          else
            g_assert_cmpint (a->start, >=, b->start);
        }
    }
}

static void
test_sort (void)
{
  guint32 seed = sl_test_seed ();
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr (SlTrace) trace = planted_trace (2000, rand);
  gint kernels = find_lane (trace, SL_LANE_KERNELS);
  g_autoptr (SlEventsQuery) ql = sl_events_query_new_lane (trace, (guint) kernels, 0, 0);
  g_autoptr (SlEventsQuery) qa = sl_events_query_new_range (trace, sl_trace_get_start (trace),
                                                            sl_trace_get_end (trace));
  SlEventsQuery *queries[] = { ql, qa };
  gboolean desc;

  for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
    for (guint c = 0; c < SL_EVENTS_N_COLUMNS; c++)
      for (guint d = 0; d < 2; d++)
        check_sorted (queries[q], c, d);
  sl_events_query_sort (qa, SL_EVENTS_COLUMN_DURATION, TRUE);
  g_assert_cmpint (sl_events_query_get_sort (qa, &desc), ==, SL_EVENTS_COLUMN_DURATION);
  g_assert_true (desc);
  /* back to start order: the very rows the oracle gives */
  sl_events_query_sort (qa, SL_EVENTS_COLUMN_START, FALSE);
  {
    g_autoptr (GArray) want = oracle (trace, -1, sl_trace_get_start (trace),
                                      sl_trace_get_end (trace));
    assert_same (qa, want);
  }
}

/* A minimal RFC 4180 reader: the fields of one line. */
static GPtrArray *
csv_split (const char *line)
{
  GPtrArray *fields = g_ptr_array_new_with_free_func (g_free);
  GString *f = g_string_new (NULL);
  gboolean quoted = FALSE;

  for (const char *p = line;; p++)
    {
      if (quoted && *p == '"' && p[1] == '"')
        {
          g_string_append_c (f, '"');
          p++;
        }
      else if (*p == '"')
        quoted = !quoted;
      else if (*p == '\0' || (!quoted && (*p == ',' || *p == '\n')))
        {
          g_ptr_array_add (fields, g_string_free (f, FALSE));
          if (*p != ',')
            break;
          f = g_string_new (NULL);
        }
      else
        g_string_append_c (f, *p);
    }
  return fields;
}

static void
test_cells_csv (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (sl_test_seed ());
  g_autoptr (SlTrace) trace = planted_trace (50, rand);
  gint kernels = find_lane (trace, SL_LANE_KERNELS);
  gint copies = find_lane (trace, SL_LANE_MEMCPY);
  g_autoptr (SlEventsQuery) qk = sl_events_query_new_lane (trace, (guint) kernels, 0, 0);
  g_autoptr (SlEventsQuery) qc = sl_events_query_new_lane (trace, (guint) copies, 0, 0);
  g_autoptr (GString) csv = g_string_new (NULL);
  g_auto (GStrv) lines = NULL;
  SlTime origin = sl_trace_get_origin (trace);   /* time 0 as nsys-ui counts */

  g_assert_cmpint (copies, >=, 0);
  sl_events_query_csv_header (csv);
  for (gsize i = 0; i < sl_events_query_get_n (qk); i++)
    sl_events_query_csv_row (qk, i, csv);
  lines = g_strsplit (csv->str, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, sl_events_query_get_n (qk) + 2);
  g_assert_cmpstr (lines[0], ==, "name,start_ns,duration_ns,end_ns,lane,kind,details");
  for (gsize i = 0; i < sl_events_query_get_n (qk); i++)
    {
      g_autoptr (GPtrArray) f = csv_split (lines[i + 1]);
      const SlEvent *e = event_of (trace, sl_events_query_get (qk, i));
      const SlKernelInfo *k = sl_trace_get_kernel_info (trace, e->aux);
      g_autofree char *grid = g_strdup_printf ("grid %u×1×1; block 256×1×1; registers 32;",
                                               k->grid[0]);
      g_autofree char *cell = sl_events_query_cell_text (qk, i, SL_EVENTS_COLUMN_NAME);

      g_assert_cmpuint (f->len, ==, 7);
      g_assert_cmpstr (f->pdata[0], ==, sl_trace_str (trace, e->name));
      g_assert_cmpstr (cell, ==, f->pdata[0]);
      g_assert_cmpint (g_ascii_strtoll (f->pdata[1], NULL, 10), ==, e->start - origin);
      g_assert_cmpint (g_ascii_strtoll (f->pdata[2], NULL, 10), ==, e->end - e->start);
      g_assert_cmpint (g_ascii_strtoll (f->pdata[3], NULL, 10), ==, e->end - origin);
      g_assert_cmpstr (f->pdata[4], ==, "GPU 0 · Stream 7 · Kernels");
      g_assert_cmpstr (f->pdata[5], ==, "kernel");
      g_assert_true (g_str_has_prefix (f->pdata[6], grid));
      g_assert_nonnull (strstr (f->pdata[6], "shared dynamic 1024 B"));
    }
  {
    g_autofree char *d = sl_events_query_cell_text (qc, 0, SL_EVENTS_COLUMN_DETAILS);
    g_autofree char *lane = sl_events_query_cell_text (qc, 0, SL_EVENTS_COLUMN_LANE);
    g_autofree char *dur = sl_events_query_cell_text (qc, 0, SL_EVENTS_COLUMN_DURATION);
    g_autofree char *start = sl_events_query_cell_text (qc, 0, SL_EVENTS_COLUMN_START);
    g_assert_nonnull (strstr (d, "bytes 4096"));
    g_assert_nonnull (strstr (d, "kind "));
    g_assert_true (g_str_has_prefix (lane, "GPU 0 · "));
    g_assert_cmpstr (dur, ==, "1.000 µs");
    g_assert_true (g_str_has_prefix (start, "+"));
  }
}

/* The real exports: every row of every lane has a name cell, a lane title, a CSV line; a CUDA
 * call's name as every pane shows it (nsys's _vNNNN suffix dropped, issue 29 item 12); a lane's
 * title as the timeline's row says it, no depth ("NVTX", not "NVTX 1": a thread's nesting lanes
 * are one row that grows in depth), so a thread's depths share one. */
static void
test_real (void)
{
  g_auto (GStrv) paths = sl_test_nsys_traces ();
  g_autoptr (GRegex) numbered = g_regex_new ("(CUDA API|NVTX|OS runtime) [0-9]+$", 0, 0, NULL);
  guint renamed = 0, nested = 0, unified = 0;

  for (guint p = 0; paths != NULL && paths[p] != NULL; p++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (paths[p], SL_LOAD_ALL, NULL, NULL, NULL, &error);

      if (trace == NULL)
        continue;
      for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
        {
          g_autoptr (SlEventsQuery) q = sl_events_query_new_lane (trace, l, 0, 0);
          g_autoptr (GString) csv = g_string_new (NULL);
          gsize n = sl_events_query_get_n (q);
          const SlLane *lane = sl_trace_get_lane (trace, l);
          g_autofree char *lane_title = sl_events_lane_title (trace, lane);

          g_assert_false (g_regex_match (numbered, lane_title, 0, NULL));
          g_assert_true (g_str_has_suffix (lane_title, sl_lane_display_title (trace, lane)));
          /* a lane of unified-memory migrations only (nsys writes them on stream 0) says so */
          if (lane->kind == SL_LANE_MEMCPY)
            {
              gboolean migrations = lane->n_events > 0;
              for (gsize k = 0; k < lane->n_events; k++)
                migrations &= SL_COPY_KIND_IS_UNIFIED (
                  sl_trace_get_copy_info (trace, lane->events[k].aux)->copy_kind);
              g_assert_cmpstr (sl_lane_display_title (trace, lane), ==,
                               migrations ? "Unified memory" : "Memcpy");
              unified += migrations;
            }
          if (lane->depth > 0 && lane->thread >= 0)
            for (guint o = 0; o < sl_trace_get_n_lanes (trace); o++)
              {
                const SlLane *top = sl_trace_get_lane (trace, o);
                if (top->kind == lane->kind && top->thread == lane->thread && top->depth == 0)
                  {
                    g_autofree char *top_title = sl_events_lane_title (trace, top);
                    g_assert_cmpstr (lane_title, ==, top_title);
                    nested++;
                  }
              }

          g_assert_cmpuint (n, ==, sl_trace_get_lane (trace, l)->n_events);
          for (gsize i = 0; i < MIN (n, 50); i++)
            {
              g_autofree char *title = sl_events_query_cell_text (q, i, SL_EVENTS_COLUMN_LANE);
              g_autofree char *details = sl_events_query_cell_text (q, i, SL_EVENTS_COLUMN_DETAILS);
              g_autofree char *name = sl_events_query_cell_text (q, i, SL_EVENTS_COLUMN_NAME);
              SlEventRef r = sl_events_query_get (q, i);
              const char *raw = sl_trace_str (trace, lane->events[r.index].name);
              gsize keep = lane->kind == SL_LANE_CUDA_API ? sl_api_display_length (raw)
                                                          : strlen (raw);
              gsize at = csv->len;
              g_assert_cmpstr (title, ==, lane_title);
              g_assert_true (g_utf8_validate (details, -1, NULL));
              sl_events_query_csv_row (q, i, csv);
              g_assert_cmpuint (strlen (name), ==, keep);
              g_assert_true (strncmp (name, raw, keep) == 0);
              /* cudaLaunchKernel_v7000: the cell and the CSV say cudaLaunchKernel */
              if (keep < strlen (raw))
                {
                  g_assert_true (g_str_has_prefix (raw + keep, "_v"));
                  g_assert_true (strncmp (csv->str + at, name, keep) == 0
                                 || (csv->str[at] == '"'
                                     && strncmp (csv->str + at + 1, name, keep) == 0));
                  g_assert_false (g_str_has_prefix (csv->str + at + keep
                                                    + (csv->str[at] == '"'), "_v"));
                  renamed++;
                }
            }
          sl_events_query_sort (q, SL_EVENTS_COLUMN_NAME, FALSE);
        }
    }
  g_test_message ("%u CUDA calls shown without their _vNNNN; %u nesting lanes titled as their "
                  "thread's first", renamed, nested);
  if (paths != NULL && paths[0] != NULL)
    {
      g_assert_cmpuint (renamed, >, 0);
      g_assert_cmpuint (nested, >, 0);
      g_assert_cmpuint (unified, >=, 2);   /* the 2023.2 and 2026.1 unified-memory traces */
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/events-query/rows", test_rows);
  g_test_add_func ("/model/events-query/sort", test_sort);
  g_test_add_func ("/model/events-query/cells-csv", test_cells_csv);
  g_test_add_func ("/model/events-query/real", test_real);
  return g_test_run ();
}
