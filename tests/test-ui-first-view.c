/* test-ui-first-view.c: the real window's first view of real traces (issue 29, 9-13): the
 * timeline fitted to where the work is, idle GPUs listed, the detail pane's width following the
 * window, the rows' and events' names as nsys-ui gives them, a merged trace's statistics rank by
 * rank. */
#include <string.h>

#include <gtk/gtk.h>

#include "sl-analyze.h"
#include "sl-application.h"
#include "sl-lane.h"
#include "sl-stats-panel-private.h"
#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-test-window.h"
#include "sl-timeline-view-private.h"
#include "sl-window-private.h"
#include "sl-work-range.h"

static SlApplication *app;

/* A real trace, or NULL (the test skipped) when the traces are not here. */
static char *
trace_path (const char *name)
{
  char *path = sl_test_trace_path (name);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("real traces not found");
      g_free (path);
      return NULL;
    }
  return path;
}

/* Saves what the window shows as build/tests/screenshots/NAME.png and /tmp/h4-NAME.png. */
static void
screenshot (SlWindow   *window,
            const char *name)
{
  sl_test_screenshot (GTK_WIDGET (window), name);
  g_autofree char *from = g_strdup_printf ("%s/tests/screenshots/%s.png", SL_BUILD_DIR, name);
  g_autofree char *to = g_strdup_printf ("/tmp/h4-%s.png", name);
  g_autofree char *data = NULL;
  gsize len = 0;
  if (g_file_get_contents (from, &data, &len, NULL))
    g_file_set_contents (to, data, (gssize) len, NULL);
}

/* The hull of the trace's GPU work (kernels, copies, sets); FALSE without any. */
static gboolean
gpu_hull (SlTrace *trace,
          SlTime  *lo,
          SlTime  *hi)
{
  gboolean any = FALSE;

  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind != SL_LANE_KERNELS && lane->kind != SL_LANE_MEMCPY
          && lane->kind != SL_LANE_MEMSET)
        continue;
      for (gsize i = 0; i < lane->n_events; i++)
        {
          *lo = any ? MIN (*lo, lane->events[i].start) : lane->events[i].start;
          *hi = any ? MAX (*hi, lane->events[i].end) : lane->events[i].end;
          any = TRUE;
        }
    }
  return any;
}

/* The first view holds all the GPU work, and the GPU work fills most of it. */
static void
assert_fits_gpu_work (SlWindow *window)
{
  SlTrace *trace = sl_window_get_trace (window);
  SlViewport *vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (sl_window_get_timeline (window)));
  SlTime lo = 0, hi = 0, t0, t1;

  g_assert_true (gpu_hull (trace, &lo, &hi));
  sl_viewport_get_visible (vp, &t0, &t1);
  g_test_message ("trace %.3f s, GPU work %.3f s, view %.3f s", (sl_trace_get_end (trace) - sl_trace_get_start (trace)) / 1e9,
                  (hi - lo) / 1e9, (t1 - t0) / 1e9);
  g_assert_cmpint (t0, <=, lo);
  g_assert_cmpint (t1, >=, hi);
  g_assert_cmpfloat ((double) (hi - lo) / (double) (t1 - t0), >=, 0.85);
}

/* ---- 10: the first view -------------------------------------------------------------------- */

/* Two ranks of a PyTorch job, merged: a "PyTorch Profiler" span of 3.37 s sets the axis, the GPU
 * work is 1.23 s of it. */
static void
test_merged_pytorch (void)
{
  g_autofree char *a = trace_path ("pytorch/trace_filter_sampled_rank-0.json.gz");
  g_autofree char *b = trace_path ("pytorch/trace_filter_sampled_rank-1.json.gz");
  if (a == NULL || b == NULL)
    return;
  SlWindow *window = sl_test_open_window (app, 1600, 1000, a, b, NULL);
  screenshot (window, "merged-pytorch");
  assert_fits_gpu_work (window);
  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (100);
}

static gboolean
has_label_with (char      **labels,
                const char *prefix,
                const char *part)
{
  for (guint i = 0; labels[i] != NULL; i++)
    if (g_str_has_prefix (labels[i], prefix) && strstr (labels[i], part) != NULL)
      return TRUE;
  return FALSE;
}

/* Four RTX 3090 in TARGET_INFO_GPU, work on one: the view fits its work, and the other three are
 * listed, said to be idle. */
static void
test_idle_gpus (void)
{
  g_autofree char *a = trace_path ("nsys/nsys-2023.1-rtx3090.sqlite");
  if (a == NULL)
    return;
  SlWindow *window = sl_test_open_window (app, 1600, 1000, a, NULL);
  screenshot (window, "rtx3090-idle-gpus");
  assert_fits_gpu_work (window);
  g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (SL_TIMELINE_VIEW (sl_window_get_timeline (window)));
  for (guint g = 0; g < 4; g++)
    {
      g_autofree char *prefix = g_strdup_printf ("GPU %u", g);
      g_assert_true (has_label_with (labels, prefix, ""));
      if (g > 0)
        g_assert_true (has_label_with (labels, prefix, "idle"));
      else
        g_assert_false (has_label_with (labels, prefix, "idle"));
    }
  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (100);
}

/* No GPU work at all (CUPTI profiler ranges), its CPU work spread over the whole axis: the first
 * view is the work range the model gives, the whole trace here; its four A100, listed in
 * deviceProperties with nothing on them, said to be idle. */
static void
test_cpu_only (void)
{
  g_autofree char *a = trace_path ("pytorch/cupti_profiler_benchmark_result_924719_1679055439_trace.json.gz");
  if (a == NULL)
    return;
  SlWindow *window = sl_test_open_window (app, 1600, 1000, a, NULL);
  screenshot (window, "cupti-profiler-cpu-only");
  SlTrace *trace = sl_window_get_trace (window);
  SlViewport *vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (sl_window_get_timeline (window)));
  SlTime t0, t1, w0, w1;
  sl_viewport_get_visible (vp, &t0, &t1);
  sl_trace_get_work_range (trace, &w0, &w1);
  g_assert_cmpint (t0, ==, w0);
  g_assert_cmpint (t1, ==, w1);
  g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (SL_TIMELINE_VIEW (sl_window_get_timeline (window)));
  g_assert_true (has_label_with (labels, "GPU 0 · idle", ""));
  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (100);
}

/* ---- 12: names --------------------------------------------------------------------------- */

/* What a person reads in the header column: each row's label where it is drawn (a row that goes
 * on the one above it, a deeper level of one lane, is drawn without one). */
static GPtrArray *
drawn_labels (SlTimelineView *view)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < view->rows->len; i++)
    if (!_sl_timeline_row_continues (view, i))
      g_ptr_array_add (out, g_array_index (view->rows, Row, i).label);
  return out;
}

/* Kineto's merged ranks: nesting rows under one header, not "NVTX 1 … NVTX 10"; no made-up pid
 * ("Spans [16777215]"), no tid said twice ("thread 4037 (python3.8) (4037)"). */
static void
test_names_kineto (void)
{
  g_autofree char *a = trace_path ("pytorch/trace_filter_sampled_rank-0.json.gz");
  if (a == NULL)
    return;
  SlWindow *window = sl_test_open_window (app, 1600, 1000, a, NULL);
  SlTimelineView *view = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  g_autoptr (GPtrArray) shown = drawn_labels (view);
  g_autoptr (GRegex) numbered = g_regex_new ("^(NVTX|CUDA API|Level) [0-9]", 0, 0, NULL);
  g_autoptr (GRegex) made_up = g_regex_new ("\\[1[5-6][0-9]{6}\\]", 0, 0, NULL);
  g_autoptr (GRegex) twice = g_regex_new ("([0-9]+)\\b.*\\(\\1\\)$", 0, 0, NULL);
  guint nvtx = 0;
  for (guint i = 0; i < shown->len; i++)
    {
      const char *l = g_ptr_array_index (shown, i);
      g_test_message ("row: %s", l);
      g_assert_false (g_regex_match (numbered, l, 0, NULL));
      g_assert_false (g_regex_match (made_up, l, 0, NULL));
      g_assert_false (g_regex_match (twice, l, 0, NULL));
      nvtx += g_str_equal (l, "NVTX");
    }
  g_assert_cmpuint (nvtx, >, 0);
  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (100);
}

/* nsys's versioned API names ("cudaLaunchKernel_v7000") as the statistics show them, on the
 * timeline's labels and in the findings; nesting rows of an nsys export under one header. */
static void
test_names_nsys (void)
{
  g_autofree char *a = trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  if (a == NULL)
    return;
  SlWindow *window = sl_test_open_window (app, 1600, 1000, a, NULL);
  screenshot (window, "nsys-h100-first-view");
  SlTimelineView *view = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlTrace *trace = sl_window_get_trace (window);
  g_autoptr (GRegex) versioned = g_regex_new ("\\bcu[A-Za-z0-9]*_v[0-9]{4}\\b", 0, 0, NULL);
  guint raw = 0;
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      for (gsize i = 0; lane->kind == SL_LANE_CUDA_API && i < lane->n_events; i++)
        {
          guint32 id;
          raw += g_regex_match (versioned, sl_trace_str (trace, lane->events[i].name), 0, NULL);
          g_assert_false (g_regex_match (versioned,
                                         _sl_timeline_event_label (view, lane, &lane->events[i], &id),
                                         0, NULL));
        }
    }
  g_assert_cmpuint (raw, >, 0);
  g_autoptr (SlAnalysis) analysis = sl_analyze (trace, NULL, NULL, NULL);
  g_assert_nonnull (analysis);
  for (guint f = 0; f < analysis->findings->len; f++)
    {
      const SlFinding *x = g_ptr_array_index (analysis->findings, f);
      g_assert_false (g_regex_match (versioned, x->summary, 0, NULL));
      g_assert_false (x->advice != NULL && g_regex_match (versioned, x->advice, 0, NULL));
    }
  g_autoptr (GPtrArray) shown = drawn_labels (view);
  g_autoptr (GRegex) numbered = g_regex_new ("^(NVTX|CUDA API|Level) [0-9]", 0, 0, NULL);
  for (guint i = 0; i < shown->len; i++)
    g_assert_false (g_regex_match (numbered, g_ptr_array_index (shown, i), 0, NULL));
  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (100);
}

/* ---- 13: merged traces' statistics ------------------------------------------------------ */

static gboolean
kern_sum_shown (gpointer data)
{
  return sl_stats_panel_show_report (data, "cuda_gpu_kern_sum")
         && sl_stats_panel_get_n_rows (data) > 0;
}

static gboolean
stats_ranged (gpointer data)
{
  return sl_stats_panel_is_ranged (data);
}

/* Per source of the merged trace, its kernels that start in [t0, t1), by the Rank column of the
 * kernel summary; each must equal what the source's lanes hold. */
static void
assert_kernels_by_rank (SlStatsPanel *panel,
                        SlTrace      *trace,
                        SlTime        t0,
                        SlTime        t1)
{
  guint n = sl_trace_get_n_sources (trace);
  g_autofree gint64 *shown = g_new0 (gint64, n);
  gint64 whole = 0;

  for (guint r = 0; r < sl_stats_panel_get_n_rows (panel); r++)
    {
      g_autofree char *rank = sl_stats_panel_get_cell_text (panel, r, "Rank");
      g_autofree char *inst = sl_stats_panel_get_cell_text (panel, r, "Instances");
      guint s = 0;
      g_assert_nonnull (rank);
      while (s < n && g_strcmp0 (sl_trace_get_source (trace, s)->label, rank) != 0)
        s++;
      g_assert_cmpuint (s, <, n);
      shown[s] += sl_test_parse_count (inst);
    }
  for (guint s = 0; s < n; s++)
    {
      gint64 held = 0;
      for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, l);
          if (lane->kind != SL_LANE_KERNELS || lane->source != s)
            continue;
          for (gsize i = 0; i < lane->n_events; i++)
            held += lane->events[i].start >= t0 && lane->events[i].start < t1;
        }
      g_test_message ("%s: %" G_GINT64_FORMAT " kernels in the table, %" G_GINT64_FORMAT
                      " in its lanes", sl_trace_get_source (trace, s)->label, shown[s], held);
      g_assert_cmpint (shown[s], ==, held);
      g_assert_cmpint (shown[s], >, 0);
      whole += shown[s];
    }
  g_assert_cmpint (whole, >, 0);
}

/* Two nsys exports opened together: the Statistics tab has a Rank column, as `sightline stats
 * --merge` prints it, and each rank's rows add up to that rank's kernels, over the whole trace
 * and over a selected range. */
static void
test_merged_stats (void)
{
  g_autofree char *a = trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_autofree char *b = trace_path ("nsys/nsys-2026.2-mfu-2gpu.sqlite");
  if (a == NULL || b == NULL)
    return;
  SlWindow *window = sl_test_open_window (app, 1600, 1000, a, b, NULL);
  SlTrace *trace = sl_window_get_trace (window);
  SlStatsPanel *panel = SL_STATS_PANEL (sl_window_get_stats_panel (window));
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlViewport *vp = sl_timeline_view_get_viewport (tv);

  g_assert_cmpuint (sl_trace_get_n_sources (trace), ==, 2);
  g_assert_true (sl_test_wait_until (kern_sum_shown, panel, 60000));
  gtk_notebook_set_current_page (GTK_NOTEBOOK (window->bottom),
                                 gtk_notebook_page_num (GTK_NOTEBOOK (window->bottom),
                                                        GTK_WIDGET (panel)));
  assert_kernels_by_rank (panel, trace, G_MININT64, G_MAXINT64);
  screenshot (window, "merged-stats-rank");

  /* a range over the middle half of each file's span: each rank's kernels that start in it */
  SlTime r0 = G_MAXINT64, r1 = G_MININT64;
  for (guint s = 0; s < 2; s++)
    {
      const SlSource *src = sl_trace_get_source (trace, s);
      r0 = MIN (r0, src->start + (src->end - src->start) / 4);
      r1 = MAX (r1, src->end - (src->end - src->start) / 4);
    }
  sl_viewport_set_selection (vp, r0, r1);
  g_assert_true (sl_test_wait_until (stats_ranged, panel, 30000));
  sl_test_iterate_for (100);
  assert_kernels_by_rank (panel, trace, r0, r1);
  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (100);
}

/* ---- 9: the detail pane follows the window ---------------------------------------------- */

/* A window enlarged on its start page, then a trace opened in it: the timeline takes most of
 * the width, the detail pane a side column. */
static void
test_paned_follows_window (void)
{
  g_autofree char *a = trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  if (a == NULL)
    return;
  SlWindow *window = sl_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  sl_test_iterate_for (300);
  g_assert_cmpstr (sl_window_get_page (window), ==, "empty");
  gtk_window_set_default_size (GTK_WINDOW (window), 1900, 1000);
  sl_test_iterate_for (500);
  g_autoptr (GFile) file = g_file_new_for_path (a);
  sl_window_open (window, file);
  g_assert_true (sl_test_wait_until (sl_test_window_loaded, window, 120000));
  sl_test_iterate_for (400);
  screenshot (window, "paned-enlarged");
  int win_w = gtk_widget_get_width (GTK_WIDGET (window));
  int tl_w = gtk_widget_get_width (sl_window_get_timeline (window));
  int pane_w = gtk_widget_get_width (sl_window_get_detail_pane (window));
  g_test_message ("window %d px: timeline %d px, detail pane %d px", win_w, tl_w, pane_w);
  g_assert_cmpint (win_w, >=, 1800);
  g_assert_cmpint (tl_w, >=, win_w * 7 / 10);
  g_assert_cmpint (pane_w, <=, win_w * 3 / 10);
  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (100);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *home = g_build_filename (sl_test_tmpdir (), "xdg-data", NULL);
  int ret;

  g_mkdir_with_parents (home, 0700);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  g_test_init (&argc, &argv, NULL);
  app = sl_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_application_hold (G_APPLICATION (app));

  g_test_add_func ("/ui-first-view/paned-follows-window", test_paned_follows_window);
  g_test_add_func ("/ui-first-view/merged-pytorch", test_merged_pytorch);
  g_test_add_func ("/ui-first-view/idle-gpus", test_idle_gpus);
  g_test_add_func ("/ui-first-view/cpu-only", test_cpu_only);
  g_test_add_func ("/ui-first-view/names-kineto", test_names_kineto);
  g_test_add_func ("/ui-first-view/names-nsys", test_names_nsys);
  g_test_add_func ("/ui-first-view/merged-stats", test_merged_stats);
  ret = g_test_run ();

  sl_test_app_done (GTK_APPLICATION (app));
  return ret;
}
