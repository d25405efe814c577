/* bench-diff.c: `sightline diff A B` (a thread per trace: its load, then its side's report and
 * analysis; then the join and the output), and the same in two steps (both loaded, then
 * sl_diff_compute), against loading the same two traces, one after the other and on two threads,
 * in the same run, interleaved.  Target (issue 17): diff ≤ 1.2 × loading both.  Prints medians
 * of RUNS runs, the parts of a diff, the ratios and the load average (the machine is shared).
 * Not a test: asserts nothing.
 *
 *   bench-diff [--runs R] [--dir DIR] [--events N] [--report NAME] [A B]
 *
 * Without A and B: DIR/diff-1.sqlite and DIR/diff-2.sqlite of N events (default 10M), seeds 1
 * and 2, written by sightline-gen when missing (about 13 s each for 10M). */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

#include "sl-bench.h"
#include "sl-diff.h"
#include "sl-trace.h"

typedef struct
{
  const char *path;
  SlTrace    *trace;
} Load;

static gpointer
load_cb (gpointer data)
{
  Load *l = data;
  g_autoptr (GError) error = NULL;

  /* as `sightline diff` loads: every table, for the analysis */
  l->trace = sl_trace_load (l->path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  if (l->trace == NULL)
    g_error ("bench-diff: %s: %s", l->path, error->message);
  return NULL;
}

/* What `sightline diff` does on each of its two threads: load, then that side's part. */
typedef struct
{
  const char  *path;
  const char  *report;
  SlDiffInput *input;
} Side;

static gpointer
side_cb (gpointer data)
{
  Side *s = data;
  g_autoptr (GError) error = NULL;

  s->input = sl_diff_input_load (s->path, s->report, &error);
  if (s->input == NULL)
    g_error ("bench-diff: %s: %s", s->path, error->message);
  return NULL;
}

static void
load_pair (Load     loads[2],
           gboolean parallel)
{
  if (parallel)
    {
      GThread *t = g_thread_new ("load-b", load_cb, &loads[1]);
      load_cb (&loads[0]);
      g_thread_join (t);
    }
  else
    {
      load_cb (&loads[0]);
      load_cb (&loads[1]);
    }
}

static void
unload_pair (Load loads[2])
{
  g_clear_pointer (&loads[0].trace, sl_trace_unref);
  g_clear_pointer (&loads[1].trace, sl_trace_unref);
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *dir = NULL, *events = NULL, *report = NULL;
  g_auto (GStrv) files = NULL;
  gint runs = 5;
  const GOptionEntry entries[] = {
    { "runs", 'r', 0, G_OPTION_ARG_INT, &runs, "Runs of each (default 5)", "R" },
    { "dir", 'd', 0, G_OPTION_ARG_FILENAME, &dir,
      "Where the generated traces are (default /tmp/sightline-bench-diff)", "DIR" },
    { "events", 'n', 0, G_OPTION_ARG_STRING, &events, "Events per generated trace (default 10M)",
      "N" },
    { "report", 0, 0, G_OPTION_ARG_STRING, &report, "Report compared (default cuda_gpu_kern_sum)",
      "NAME" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "[A B]" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("[A B] — diff vs. loading both");
  g_autoptr (GError) error = NULL;
  const char *paths[2];
  g_autofree char *gen[2] = { NULL, NULL };

  setlocale (LC_ALL, "");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-diff: %s\n", error->message);
      return 2;
    }
  if (report == NULL)
    report = g_strdup ("cuda_gpu_kern_sum");
  if (files != NULL && g_strv_length (files) == 2)
    {
      paths[0] = files[0];
      paths[1] = files[1];
    }
  else if (files != NULL)
    {
      g_printerr ("bench-diff: give two traces, or none\n");
      return 2;
    }
  else
    {
      if (dir == NULL)
        dir = g_strdup ("/tmp/sightline-bench-diff");
      g_mkdir_with_parents (dir, 0755);
      for (int s = 0; s < 2; s++)
        {
          g_autofree char *name = g_strdup_printf ("diff-%d.sqlite", s + 1);
          gen[s] = g_build_filename (dir, name, NULL);
          if (!g_file_test (gen[s], G_FILE_TEST_EXISTS)
              && !sl_bench_generate ("bench-diff", SL_GEN_BIN, gen[s], (guint) s + 1,
                                     events != NULL ? events : "10M"))
            return 1;
          paths[s] = gen[s];
        }
    }
  runs = CLAMP (runs, 1, 50);

  g_autoptr (GArray) seq = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) par = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) diff = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) diff_steps = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) diff_load = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) diff_compute = g_array_new (FALSE, FALSE, sizeof (double));
  gsize n_events = 0, n_rows = 0;

  for (int r = 0; r < runs; r++)
    {
      Load loads[2] = { { .path = paths[0] }, { .path = paths[1] } };
      double t;

      /* interleaved: each run measures all three, so a busy moment of the shared machine falls
       * on all of them */
      t = sl_bench_now ();
      load_pair (loads, FALSE);
      t = sl_bench_now () - t;
      g_array_append_val (seq, t);
      n_events = sl_trace_get_n_events (loads[0].trace) + sl_trace_get_n_events (loads[1].trace);
      unload_pair (loads);

      t = sl_bench_now ();
      load_pair (loads, TRUE);
      t = sl_bench_now () - t;
      g_array_append_val (par, t);
      unload_pair (loads);

      /* what `sightline diff` does, the output into memory: each thread loads its trace and
       * goes on to its side's report and analysis; then the join */
      {
        Side sides[2] = { { .path = paths[0], .report = report },
                          { .path = paths[1], .report = report } };
        t = sl_bench_now ();
        GThread *thread = g_thread_new ("side-b", side_cb, &sides[1]);
        side_cb (&sides[0]);
        g_thread_join (thread);
        g_autoptr (SlDiff) d = sl_diff_join (sides[0].input, sides[1].input, &error);
        if (d == NULL)
          g_error ("bench-diff: %s", error->message);
        g_autoptr (GString) out = g_string_new (NULL);
        sl_diff_write (d, SL_DIFF_COLUMN, out);
        sl_diff_input_free (sides[0].input);
        sl_diff_input_free (sides[1].input);
        g_clear_pointer (&d, sl_diff_free);
        t = sl_bench_now () - t;
        g_array_append_val (diff, t);
      }

      /* the same in two steps: both loaded, then sl_diff_compute (the sides on two threads) */
      double t0 = sl_bench_now ();
      load_pair (loads, TRUE);
      double t1 = sl_bench_now ();
      g_autoptr (SlDiff) d = sl_diff_compute (loads[0].trace, loads[1].trace, report, &error);
      if (d == NULL)
        g_error ("bench-diff: %s", error->message);
      g_autoptr (GString) out = g_string_new (NULL);
      sl_diff_write (d, SL_DIFF_COLUMN, out);
      unload_pair (loads);
      double t2 = sl_bench_now ();
      t = t2 - t0;
      g_array_append_val (diff_steps, t);
      t = t1 - t0;
      g_array_append_val (diff_load, t);
      t = t2 - t1;
      g_array_append_val (diff_compute, t);
      n_rows = sl_report_get_n_rows (d->table);
      fprintf (stderr, "run %d: sequential %.2f s, parallel %.2f s, diff %.2f s, in two steps "
               "%.2f s\n", r + 1, g_array_index (seq, double, r), g_array_index (par, double, r),
               g_array_index (diff, double, r), g_array_index (diff_steps, double, r));
    }

  g_autofree char *load = sl_bench_load_average ();
  double m_seq = sl_bench_median (seq), m_par = sl_bench_median (par), m_diff = sl_bench_median (diff);
  printf ("bench-diff: %s vs %s (%zu events in all), report %s (%zu rows), %d runs, %u cores, "
          "load average %s\n", paths[0], paths[1], n_events, report, n_rows, runs,
          g_get_num_processors (), load);
  printf ("  load both, one after the other   %8.3f s (median)\n", m_seq);
  printf ("  load both, on two threads        %8.3f s\n", m_par);
  printf ("  diff, as `sightline diff` does    %8.3f s  (a thread per side: its load, report "
          "and analysis)\n", m_diff);
  printf ("  diff in two steps                %8.3f s  (both loaded %.3f s, then sl_diff_compute "
          "and output %.3f s)\n", sl_bench_median (diff_steps), sl_bench_median (diff_load), sl_bench_median (diff_compute));
  printf ("  diff / sequential load           %8.2f ×  (target ≤ 1.2)\n", m_diff / m_seq);
  printf ("  diff / parallel load             %8.2f ×\n", m_diff / m_par);
  return 0;
}
