/* test-ui-events.c: the Events tab and the exports in the real window under Xvfb: a lane's events,
 * a range's, sorting, a click that selects the event, CSV; the timeline saved as PNG and SVG. */
#include <string.h>

#include <gtk/gtk.h>
#include <glib/gstdio.h>

#include "sl-application.h"
#include "sl-detail-pane-private.h"
#include "sl-display-name.h"
#include "sl-events-table-private.h"
#include "sl-format.h"
#include "sl-lane.h"
#include "sl-plant.h"
#include "sl-stats-panel-private.h"
#include "sl-stats.h"
#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-test-window.h"
#include "sl-timeline-view.h"
#include "sl-window-private.h"

static SlApplication *app;

static gboolean
mapped (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

/* 300 kernels of random durations, their launches, a few copies. */
static char *
planted (void)
{
  char *path = g_build_filename (sl_test_tmpdir (), "events-ui.sqlite", NULL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (sl_test_seed ());
  PlantConfig config = { 8, 128, 40, 0 };
  Plant *p = plant_new (path);
  gint64 t = PLANT_MS;

  for (guint i = 0; i < 300; i++)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel", t, t + 4 * PLANT_US);
      gint64 dur = g_rand_int_range (rand, 1, 200) * PLANT_US;
      plant_kernel (p, i % 2 ? "even_kernel" : "odd_kernel", &config, t + 5 * PLANT_US,
                    t + 5 * PLANT_US + dur, corr);
      if (i % 30 == 0)
        {
          corr = plant_api (p, PLANT_MAIN, "cudaMemcpyAsync", t + 300 * PLANT_US,
                            t + 302 * PLANT_US);
          plant_memcpy (p, 1, 1, 2, 1 << 20, t + 310 * PLANT_US, t + 320 * PLANT_US, corr);
        }
      t += 400 * PLANT_US;
    }
  plant_finish (p);
  return path;
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

static void
show_events_tab (SlWindow *window)
{
  GtkWidget *table = sl_window_get_events_table (window);
  GtkWidget *notebook = gtk_widget_get_ancestor (table, GTK_TYPE_NOTEBOOK);

  g_assert_nonnull (notebook);
  gtk_notebook_set_current_page (GTK_NOTEBOOK (notebook),
                                 gtk_notebook_page_num (GTK_NOTEBOOK (notebook), table));
  g_assert_true (sl_test_wait_until (mapped, table, 5000));
}

typedef struct
{
  char     *text;
  gboolean  done;
} ClipboardRead;

static void
clipboard_read_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      data)
{
  ClipboardRead *read = data;

  read->text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, NULL);
  read->done = TRUE;
}

static gboolean
clipboard_done (gpointer data)
{
  return ((ClipboardRead *) data)->done;
}

static void
test_events (void)
{
  g_autofree char *path = planted ();
  SlWindow *window = sl_test_open_window (app, 0, 0, path, NULL);
  SlTrace *trace = sl_window_get_trace (window);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlEventsTable *table = SL_EVENTS_TABLE (sl_window_get_events_table (window));
  gint kernels = find_lane (trace, SL_LANE_KERNELS);
  const SlLane *lane = sl_trace_get_lane (trace, (guint) kernels);
  SlEventRef ref = { kernels, 17 };
  SlTime longest = 0;
  gsize longest_i = 0;

  show_events_tab (window);
  g_assert_cmpuint (sl_events_table_get_n_rows (table), ==, 0);
  g_assert_nonnull (strstr (sl_events_table_get_summary (table), "Click an event"));

  /* a click on a kernel in the timeline lists its lane */
  sl_timeline_view_select_event (tv, ref, FALSE);
  g_signal_emit_by_name (tv, "event-selected", &ref);
  sl_test_iterate_for (50);
  g_assert_cmpuint (sl_events_table_get_n_rows (table), ==, lane->n_events);
  g_assert_nonnull (strstr (sl_events_table_get_summary (table), "300 events of GPU 0"));
  {
    g_autofree char *name = sl_events_table_get_cell (table, 0, SL_EVENTS_COLUMN_NAME);
    g_assert_cmpstr (name, ==, sl_trace_str (trace, lane->events[0].name));
  }

  /* sorted by duration, longest first, through the column header's sorter */
  for (gsize i = 0; i < lane->n_events; i++)
    if (lane->events[i].end - lane->events[i].start >= longest)  /* descending: ties latest first */
      {
        longest = lane->events[i].end - lane->events[i].start;
        longest_i = i;
      }
  sl_events_table_sort_by (table, SL_EVENTS_COLUMN_DURATION, TRUE);
  sl_test_iterate_for (50);
  {
    g_autofree char *want = sl_format_duration (longest);
    g_autofree char *got = sl_events_table_get_cell (table, 0, SL_EVENTS_COLUMN_DURATION);
    g_autofree char *start = sl_events_table_get_cell (table, 0, SL_EVENTS_COLUMN_START);
    g_autofree char *want_start = NULL;
    SlEventRef r = { kernels, longest_i };
    g_assert_cmpstr (got, ==, want);
    /* from the session's start (the plant's systemClockNs, 0), not the first event */
    want_start = g_strdup_printf ("+%.3f ms",
                                  (lane->events[longest_i].start - sl_trace_get_origin (trace)) / 1e6);
    g_assert_cmpstr (start, ==, want_start);

    /* a click on the row selects the event in the timeline and shows it in the detail pane */
    sl_events_table_select_row (table, 0);
    sl_test_iterate_for (50);
    SlEventRef sel = sl_timeline_view_get_selected_event (tv);
    SlEventRef shown =
      sl_detail_pane_get_event (SL_DETAIL_PANE (sl_window_get_detail_pane (window)));
    g_assert_cmpint (sel.lane, ==, r.lane);
    g_assert_cmpuint (sel.index, ==, r.index);
    g_assert_cmpint (shown.lane, ==, r.lane);
    g_assert_cmpuint (shown.index, ==, r.index);
    sl_test_screenshot (GTK_WIDGET (window), "ui-events-table");
  }

  /* the selected rows as CSV: the model's own line for that event */
  {
    g_autofree char *csv = sl_events_table_get_csv (table, TRUE);
    g_autoptr (SlEventsQuery) q = sl_events_query_new_lane (trace, (guint) kernels, 0, 0);
    g_autoptr (GString) want = g_string_new (NULL);

    sl_events_query_sort (q, SL_EVENTS_COLUMN_DURATION, TRUE);
    sl_events_query_csv_header (want);
    sl_events_query_csv_row (q, 0, want);
    g_assert_cmpstr (csv, ==, want->str);
    g_assert_nonnull (strstr (csv, "grid 8×1×1; block 128×1×1; registers 40"));
  }
  {
    /* Ctrl+C (in the rows) puts them on the clipboard */
    g_autofree char *want = sl_events_table_get_csv (table, TRUE);
    GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (table));
    ClipboardRead read = { NULL, FALSE };

    gdk_clipboard_set_text (clipboard, "");
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (table), "events.copy", NULL));
    gdk_clipboard_read_text_async (clipboard, NULL, clipboard_read_cb, &read);
    g_assert_true (sl_test_wait_until (clipboard_done, &read, 5000));
    g_assert_cmpstr (read.text, ==, want);
    g_free (read.text);
  }

  /* a time range lists every lane's events in it, in start order */
  {
    SlViewport *vp = sl_timeline_view_get_viewport (tv);
    SlTime t0 = lane->events[100].start, t1 = lane->events[110].start;
    gsize want = 0;

    for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
      {
        const SlLane *ln = sl_trace_get_lane (trace, l);
        for (gsize i = 0; i < ln->n_events; i++)
          if (ln->events[i].start < t1 && ln->events[i].end > t0)
            want++;
      }
    sl_viewport_set_selection (vp, t0, t1);
    sl_test_iterate_for (50);
    g_assert_cmpuint (sl_events_table_get_n_rows (table), ==, want);
    g_assert_cmpuint (want, >=, 20);  /* kernels and their launches */
    g_assert_nonnull (strstr (sl_events_table_get_summary (table), "all lanes"));
    {
      /* still sorted by duration, longest first */
      g_autofree char *a = sl_events_table_get_cell (table, 0, SL_EVENTS_COLUMN_DURATION);
      g_autofree char *b = sl_events_table_get_cell (table, want - 1, SL_EVENTS_COLUMN_DURATION);
      g_assert_cmpstr (a, !=, b);
    }
    sl_viewport_clear_selection (vp);
    sl_test_iterate_for (50);
    g_assert_cmpuint (sl_events_table_get_n_rows (table), ==, lane->n_events);
  }
  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (50);
}

static gboolean
drawn (gpointer data)
{
  return gtk_widget_get_width (data) > 100 && gtk_widget_get_mapped (data);
}

static gboolean
stats_ready (gpointer data)
{
  SlStatsPanel *panel = SL_STATS_PANEL (sl_window_get_stats_panel (data));
  return sl_stats_panel_get_report (panel) != NULL && sl_stats_panel_get_n_rows (panel) > 0;
}

/* The timeline as PNG and SVG, and the statistics shown as CSV, against what they show. */
static void
test_export (void)
{
  g_autofree char *path = planted ();
  SlWindow *window = sl_test_open_window (app, 0, 0, path, NULL);
  GtkWidget *timeline = sl_window_get_timeline (window);
  g_autofree char *png = g_build_filename (sl_test_tmpdir (), "timeline.png", NULL);
  g_autofree char *svg = g_build_filename (sl_test_tmpdir (), "timeline.svg", NULL);
  g_autofree char *bad = g_build_filename (sl_test_tmpdir (), "no-such-dir", "t.png", NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *bytes = NULL;
  gsize len = 0;

  g_assert_true (sl_test_wait_until (drawn, timeline, 10000));
  sl_test_iterate_for (200);

  g_assert_true (sl_window_export_timeline (window, png, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (png, &bytes, &len, NULL));
  g_assert_cmpuint (len, >, 2000);
  g_assert_cmpmem (bytes, 8, "\x89PNG\r\n\x1a\n", 8);
  {
    g_autoptr (GdkTexture) texture = gdk_texture_new_from_filename (png, &error);
    g_assert_no_error (error);
    g_assert_cmpint (gdk_texture_get_width (texture), ==, gtk_widget_get_width (timeline));
    g_assert_cmpint (gdk_texture_get_height (texture), ==, gtk_widget_get_height (timeline));
  }
  g_clear_pointer (&bytes, g_free);

#ifdef __SANITIZE_ADDRESS__
  /* Not under AddressSanitizer: after an SVG export, LeakSanitizer reports ~150 KB of indirect
   * leaks allocated inside cairo 1.16 (Debian 12) and pixman only — recording surfaces of the SVG
   * backend, no frame of ours, none after the PNG export alone; the PNG path above and the
   * ordinary build check the export. */
  (void) svg;
  g_test_message ("SVG export skipped under AddressSanitizer (cairo's own leak)");
#else
  {
    g_assert_true (sl_window_export_timeline (window, svg, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (svg, &bytes, &len, NULL));
    g_assert_cmpuint (len, >, 2000);
    g_assert_true (g_str_has_prefix (bytes, "<?xml"));
    g_assert_nonnull (strstr (bytes, "<svg"));
    g_assert_true (g_str_has_suffix (g_strchomp (bytes), "</svg>"));
    /* the lane headers' text, searchable: the thread's and the GPU lanes' labels */
    g_assert_nonnull (strstr (bytes, ">CUDA API</text>"));
    g_assert_nonnull (strstr (bytes, ">Kernels</text>"));
  }
#endif

  /* an unwritable place: an error naming the file */
  g_assert_false (sl_window_export_timeline (window, bad, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, bad));
  g_clear_error (&error);

  /* the statistics table shown, as CSV: what `sightline stats --format csv` writes for it, one
   * line per row the panel shows */
  g_assert_true (sl_test_wait_until (stats_ready, window, 60000));
  {
    SlStatsPanel *panel = SL_STATS_PANEL (sl_window_get_stats_panel (window));
    g_autofree char *csv = sl_window_get_stats_csv (window, &error);
    g_autoptr (SlReport) report = NULL;
    g_autoptr (GString) want = g_string_new (NULL);
    g_auto (GStrv) lines = NULL;

    g_assert_no_error (error);
    report = sl_report_compute (sl_window_get_trace (window), sl_stats_panel_get_report (panel),
                                &error);
    g_assert_no_error (error);
    sl_report_write (report, SL_REPORT_FORMAT_CSV, want);
    g_assert_cmpstr (csv, ==, want->str);
    lines = g_strsplit (g_strchomp (csv), "\n", -1);
    g_assert_cmpuint (g_strv_length (lines), ==, sl_stats_panel_get_n_rows (panel) + 1);
  }
  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (50);
}

/* Issue 29, item 12: a thread's nesting lanes are one row that grows in depth on the timeline,
 * and so in the Events tab: a click on a range two deep in a real nsys export lists its lane
 * titled as the timeline titles it ("python3 [111] · NVTX", not "NVTX 2"), its depth said once in
 * the summary. */
static void
test_nested_lane_names (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("real traces not found");
      return;
    }
  SlWindow *window = sl_test_open_window (app, 0, 0, path, NULL);
  SlTrace *trace = sl_window_get_trace (window);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlEventsTable *table = SL_EVENTS_TABLE (sl_window_get_events_table (window));
  g_autoptr (GRegex) numbered = g_regex_new ("(CUDA API|NVTX|OS runtime) [0-9]", 0, 0, NULL);
  guint checked = 0;

  show_events_tab (window);
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->depth == 0 || lane->n_events == 0
          || (lane->kind != SL_LANE_NVTX && lane->kind != SL_LANE_CUDA_API))
        continue;
      SlEventRef ref = { (gint) l, 0 };
      g_autofree char *title = sl_events_lane_title (trace, lane);
      g_autofree char *depth = g_strdup_printf (", depth %u", lane->depth);
      sl_timeline_view_select_event (tv, ref, FALSE);
      g_signal_emit_by_name (tv, "event-selected", &ref);
      sl_test_iterate_for (50);
      const char *summary = sl_events_table_get_summary (table);
      g_autofree char *cell = sl_events_table_get_cell (table, 0, SL_EVENTS_COLUMN_LANE);
      g_test_message ("%s | %s", summary, cell);
      g_assert_cmpuint (sl_events_table_get_n_rows (table), ==, lane->n_events);
      g_assert_false (g_regex_match (numbered, summary, 0, NULL));
      g_assert_false (g_regex_match (numbered, cell, 0, NULL));
      g_assert_cmpstr (cell, ==, title);
      g_assert_true (g_str_has_suffix (title, sl_lane_display_title (trace, lane)));
      g_assert_true (g_str_has_suffix (summary, depth));
      if (checked++ == 0)
        sl_test_screenshot (GTK_WIDGET (window), "ui-events-nested-lane");
    }
  g_assert_cmpuint (checked, >, 0);
  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (50);
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *home = NULL;
  g_autoptr (GError) error = NULL;
  int ret;

  home = g_build_filename (sl_test_tmpdir (), "xdg-data", NULL);
  g_mkdir_with_parents (home, 0700);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  g_test_init (&argc, &argv, NULL);

  app = sl_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_application_hold (G_APPLICATION (app));

  g_test_add_func ("/ui-events/table", test_events);
  g_test_add_func ("/ui-events/export", test_export);
  g_test_add_func ("/ui-events/nested-lane-names", test_nested_lane_names);
  ret = g_test_run ();

  sl_test_app_done (GTK_APPLICATION (app));
  return ret;
}
