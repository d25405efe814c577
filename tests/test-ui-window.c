/* test-ui-window.c: the real window under Xvfb, for what a new user met in the first hour (issue
 * 29, viewer items 6, 7, 8, 11, 14 and 15): titles, menus and popovers that fit, selections that
 * reach every pane, the first view and its history, the findings' marks along the ruler.
 * Criticals are fatal (G_DEBUG=fatal-criticals). */
#include <math.h>
#include <string.h>

#include <gtk/gtk.h>
#include <gdk/x11/gdkx.h>
#include <glib/gstdio.h>

#include "sl-application.h"
#include "sl-detail-pane-private.h"
#include "sl-events-table-private.h"
#include "sl-findings-panel-private.h"
#include "sl-format.h"
#include "sl-stats-panel-private.h"
#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-test-window.h"
#include "sl-timeline-view-private.h"
#include "sl-window-private.h"

static SlApplication *app;

/* ---- helpers ----------------------------------------------------------------------------- */

static void
close_window (SlWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (50);
}

static char *
sample_path (void)
{
  return g_build_filename (SL_SOURCE_DIR, "data", "sample.sqlite", NULL);
}

/* The first widget under `root`, depth first, that is a `type` and whose label (a button's, a
 * label's) is `label` (NULL: any). */
static GtkWidget *
find_labelled (GtkWidget  *root,
               GType       type,
               const char *label)
{
  const char *text = NULL;

  if (GTK_IS_BUTTON (root))
    text = gtk_button_get_label (GTK_BUTTON (root));
  else if (GTK_IS_LABEL (root))
    text = gtk_label_get_text (GTK_LABEL (root));
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type) && (label == NULL || g_strcmp0 (text, label) == 0))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_labelled (c, type, label);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Scrolls `widget` into view in the scrolled window around it, and lets it be drawn there. */
static void
scroll_into_view (GtkWidget *widget)
{
  GtkWidget *sw = gtk_widget_get_ancestor (widget, GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *child;
  GtkAdjustment *adj;
  graphene_point_t p;

  if (sw == NULL)
    return;
  /* a grid made just now is laid out at the next frame */
  child = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (sw));
  g_assert_true (sl_test_wait_until (sl_test_allocated, child, 5000));
  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (sw));
  g_assert_true (gtk_widget_compute_point (widget, sw, &GRAPHENE_POINT_INIT (0, 0), &p));
  gtk_adjustment_set_value (adj, MAX (p.y + gtk_adjustment_get_value (adj) - 20, 0));
  sl_test_iterate_for (200);
}

/* The first kernel of the trace, and its lane. */
static SlEventRef
first_of_kind (SlTrace    *trace,
               SlLaneKind  kind)
{
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind == kind && lane->n_events > 0)
        return (SlEventRef) { (gint) l, 0 };
    }
  return SL_EVENT_REF_NONE;
}

typedef struct
{
  SlWindow  *window;
  SlEventRef ref;
} PaneWait;

static gboolean
pane_shows (gpointer data)
{
  PaneWait *w = data;
  GtkWidget *pane = sl_window_get_detail_pane (w->window);
  SlEventRef shown = sl_detail_pane_get_event (SL_DETAIL_PANE (pane));

  return shown.lane == w->ref.lane && shown.index == w->ref.index;
}

/* ---- item 15 ----------------------------------------------------------------------------- */

/* The window's own title names the trace, so that the taskbar tells two traces apart. */
static void
test_title (void)
{
  g_autofree char *sample = sample_path ();
  SlWindow *window = sl_window_new (app);
  g_autoptr (GFile) file = g_file_new_for_path (sample);

  gtk_window_present (GTK_WINDOW (window));
  sl_test_iterate_for (50);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Sightline");
  sl_window_open (window, file);
  g_assert_true (sl_test_wait_until (sl_test_window_loaded, window, 60000));
  g_test_message ("title: %s", gtk_window_get_title (GTK_WINDOW (window)));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "sample.sqlite — Sightline");
  close_window (window);
}

/* "Go to launch" and "Go to GPU work", clicked as a person clicks them: the selection moves and
 * GTK says nothing (a critical aborts this test). */
static void
test_go_to_links (void)
{
  g_autofree char *sample = sample_path ();
  SlWindow *window = sl_test_open_window (app, 1400, 900, sample, NULL);
  SlTrace *trace = sl_window_get_trace (window);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  GtkWidget *pane = sl_window_get_detail_pane (window);
  SlEventRef kernel = first_of_kind (trace, SL_LANE_KERNELS);
  const SlLane *api_lane;
  gsize api_index;
  GtkWidget *button;
  PaneWait w = { window, kernel };

  g_assert_cmpint (kernel.lane, >=, 0);
  sl_timeline_view_select_event (tv, kernel, TRUE);
  g_signal_emit_by_name (tv, "event-selected", &kernel);
  g_assert_true (sl_test_wait_until (pane_shows, &w, 5000));
  sl_test_iterate_for (200);
  button = find_labelled (pane, GTK_TYPE_BUTTON, "Go to launch");
  g_assert_nonnull (button);
  g_assert_true (sl_trace_resolve (trace, sl_trace_get_lane (trace, kernel.lane)
                                            ->events[kernel.index].link, &api_lane, &api_index));
  w.ref = (SlEventRef) { (gint) api_lane->index, api_index };
  scroll_into_view (button);
  sl_test_screenshot (GTK_WIDGET (window), "h3-go-to-launch");
  if (!sl_test_real_click (button, gtk_widget_get_width (button) / 2.0,
                           gtk_widget_get_height (button) / 2.0, 1))
    {
      g_test_skip ("no xdotool");
      close_window (window);
      return;
    }
  g_assert_true (sl_test_wait_until (pane_shows, &w, 5000));
  sl_test_iterate_for (200);
  g_assert_cmpint (sl_timeline_view_get_selected_event (tv).lane, ==, w.ref.lane);

  /* and back from the keyboard: the API call's "Go to GPU work", focused, then Enter */
  button = find_labelled (pane, GTK_TYPE_BUTTON, "Go to GPU work");
  g_assert_nonnull (button);
  w.ref = kernel;
  scroll_into_view (button);
  g_assert_true (gtk_widget_grab_focus (button));
  g_assert_true (gtk_widget_activate (button));
  g_assert_true (sl_test_wait_until (pane_shows, &w, 5000));
  sl_test_iterate_for (200);
  close_window (window);
}

/* The start page lists JSON traces opened before, and says it opens them. */
static void
test_recent_json (void)
{
  g_autofree char *json = sl_test_trace_path (
    "pytorch/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz");
  g_autofree char *base = g_path_get_basename (json);
  g_autoptr (GString) text = g_string_new (NULL);
  SlWindow *window = sl_test_open_window (app, 1200, 800, json, NULL);
  SlWindow *empty;
  GtkWidget *page;

  close_window (window);
  empty = sl_window_new (app);
  gtk_window_present (GTK_WINDOW (empty));
  sl_test_iterate_for (300);
  g_assert_cmpstr (sl_window_get_page (empty), ==, "empty");
  page = gtk_stack_get_visible_child (GTK_STACK (empty->stack));
  sl_test_collect_labels (page, text);
  g_test_message ("start page:\n%s", text->str);
  g_assert_nonnull (find_labelled (page, GTK_TYPE_LABEL, base));
  g_assert_nonnull (strstr (text->str, "JSON"));
  sl_test_screenshot (GTK_WIDGET (empty), "h3-start-recent");
  close_window (empty);
}

/* A file chooser asked to show: visible before the X server maps it. */
static gboolean
has_file_chooser (gpointer data)
{
  (void) data;
  return sl_test_find_toplevel (GTK_TYPE_FILE_CHOOSER, FALSE) != NULL;
}

/* Export dialogs open in the trace's folder, not the working one. */
static void
test_export_folder (void)
{
  g_autofree char *dir = g_build_filename (sl_test_tmpdir (), "export-here", NULL);
  g_autofree char *sample = sample_path ();
  g_autofree char *copy = g_build_filename (dir, "exported.sqlite", NULL);
  g_autofree char *contents = NULL;
  gsize len;
  static const char *const actions[] = { "win.export-image", "win.export-stats-csv" };

  g_mkdir_with_parents (dir, 0755);
  g_assert_true (g_file_get_contents (sample, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (copy, contents, (gssize) len, NULL));
  SlWindow *window = sl_test_open_window (app, 1200, 800, copy, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    {
      GtkWidget *chooser;
      g_autoptr (GFile) folder = NULL;
      g_autofree char *path = NULL;

      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), actions[i], NULL));
      g_assert_true (sl_test_wait_until (has_file_chooser, NULL, 5000));
      chooser = sl_test_find_toplevel (GTK_TYPE_FILE_CHOOSER, FALSE);
      /* the fallback dialog changes folder once it has read it */
      for (int tries = 0; tries < 60 && folder == NULL; tries++)
        {
          sl_test_iterate_for (50);
          folder = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (chooser));
        }
      path = folder != NULL ? g_file_get_path (folder) : NULL;
      g_test_message ("%s opens in %s", actions[i], path);
      g_assert_cmpstr (path, ==, dir);
      gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
      sl_test_iterate_for (100);
    }
  close_window (window);
}

/* ---- item 7 ------------------------------------------------------------------------------ */

static gboolean
report_shown (gpointer data)
{
  return sl_stats_panel_show_report (data, "cuda_gpu_kern_sum")
         && sl_stats_panel_get_n_rows (data) > 0;
}

/* Statistics' "Longest instance" selects the event everywhere: the detail pane shows it. */
static void
test_longest_detail (void)
{
  g_autofree char *sample = sample_path ();
  SlWindow *window = sl_test_open_window (app, 1400, 900, sample, NULL);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlStatsPanel *panel = SL_STATS_PANEL (sl_window_get_stats_panel (window));
  PaneWait w = { window, SL_EVENT_REF_NONE };

  g_assert_true (sl_test_wait_until (report_shown, panel, 30000));
  sl_stats_panel_select_row (panel, 0);
  sl_test_iterate_for (50);
  g_assert_true (sl_stats_panel_go_to_longest (panel));
  w.ref = sl_timeline_view_get_selected_event (tv);
  g_assert_cmpint (w.ref.lane, >=, 0);
  g_assert_true (sl_test_wait_until (pane_shows, &w, 5000));
  close_window (window);
}

typedef struct
{
  SlEventsTable *table;
  SlEventRef     ref;
} TableWait;

static gboolean
table_selects (gpointer data)
{
  TableWait *w = data;
  SlEventRef sel = sl_events_table_get_selected (w->table);

  return sel.lane == w->ref.lane && sel.index == w->ref.index;
}

static gboolean
search_counted (gpointer data)
{
  return *sl_window_get_search_text (data) != '\0';
}

/* An event found by search is the selected row of the Events tab, and so is one gone to. */
static void
test_search_events_table (void)
{
  g_autofree char *sample = sample_path ();
  SlWindow *window = sl_test_open_window (app, 1400, 900, sample, NULL);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlEventsTable *table = SL_EVENTS_TABLE (sl_window_get_events_table (window));
  GtkWidget *entry = sl_window_get_search_entry (window);
  TableWait w = { table, SL_EVENT_REF_NONE };

  gtk_notebook_set_current_page (GTK_NOTEBOOK (window->bottom),
                                 gtk_notebook_page_num (GTK_NOTEBOOK (window->bottom),
                                                        GTK_WIDGET (table)));
  sl_test_iterate_for (100);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.find", NULL));
  gtk_editable_set_text (GTK_EDITABLE (entry), "cudaMemcpy");
  g_assert_true (sl_test_wait_until (search_counted, window, 5000));
  g_test_message ("search: %s", sl_window_get_search_text (window));
  for (int step = 0; step < 3; step++)
    {
      g_signal_emit_by_name (entry, "next-match");
      w.ref = sl_timeline_view_get_selected_event (tv);
      g_assert_cmpint (w.ref.lane, >=, 0);
      g_assert_true (sl_test_wait_until (table_selects, &w, 5000));
    }
  sl_test_screenshot (GTK_WIDGET (window), "h3-search-events");
  close_window (window);
}

/* ---- item 8 ------------------------------------------------------------------------------ */

static gboolean
has_findings (gpointer data)
{
  return sl_findings_panel_get_n_findings (SL_FINDINGS_PANEL (data)) > 0;
}

static gboolean
any_lane_in_focus (SlTimelineView *tv)
{
  SlTrace *trace = sl_timeline_view_get_trace (tv);

  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    if (sl_timeline_view_lane_in_focus (tv, l))
      return TRUE;
  return FALSE;
}

static void
show_tab (SlWindow  *window,
          GtkWidget *page)
{
  gtk_notebook_set_current_page (GTK_NOTEBOOK (window->bottom),
                                 gtk_notebook_page_num (GTK_NOTEBOOK (window->bottom), page));
  sl_test_iterate_for (200);
}

/* Opening the Findings tab, from a focus in the pane beside it, selects nothing and leaves the
 * view alone; a finding selected there is tinted only while the tab is shown. */
static void
test_findings_tab (void)
{
  g_autofree char *sample = sample_path ();
  SlWindow *window = sl_test_open_window (app, 1400, 900, sample, NULL);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlViewport *vp = sl_timeline_view_get_viewport (tv);
  GtkWidget *findings = sl_window_get_findings_panel (window);
  GtkWidget *stats = sl_window_get_stats_panel (window);
  GtkWidget *list = find_labelled (findings, GTK_TYPE_LIST_BOX, NULL);
  SlTime a0, a1, b0, b1;

  g_assert_true (sl_test_wait_until (has_findings, findings, 60000));
  show_tab (window, stats);
  /* the focus in the statistics, as after a click in its table */
  g_assert_true (gtk_widget_child_focus (stats, GTK_DIR_TAB_FORWARD));
  sl_viewport_get_visible (vp, &a0, &a1);
  g_assert_null (gtk_list_box_get_selected_row (GTK_LIST_BOX (list)));
  show_tab (window, findings);
  g_test_message ("focus now %s", G_OBJECT_TYPE_NAME (gtk_root_get_focus (GTK_ROOT (window))));
  sl_viewport_get_visible (vp, &b0, &b1);
  g_assert_null (gtk_list_box_get_selected_row (GTK_LIST_BOX (list)));
  g_assert_cmpint (b0, ==, a0);
  g_assert_cmpint (b1, ==, a1);
  g_assert_false (any_lane_in_focus (tv));

  sl_findings_panel_select (SL_FINDINGS_PANEL (findings), 0);
  sl_test_iterate_for (100);
  g_assert_true (any_lane_in_focus (tv));
  show_tab (window, stats);
  g_assert_false (any_lane_in_focus (tv));
  show_tab (window, findings);
  g_assert_true (any_lane_in_focus (tv));
  show_tab (window, stats);
  close_window (window);
}

/* A drag along the ruler through the X server, from x0 to x1 (timeline coordinates). */
static gboolean
real_ruler_drag (GtkWidget *timeline,
                 double     x0,
                 double     x1)
{
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  GtkNative *native = gtk_widget_get_native (timeline);
  GdkSurface *surface = gtk_native_get_surface (native);
  graphene_point_t p0, p1;
  double sx, sy;
  g_autofree char *cmd = NULL;
  gint status = -1;
  unsigned long xid;

  if (xdotool == NULL || !GDK_IS_X11_SURFACE (surface))
    return FALSE;
  xid = (unsigned long) gdk_x11_surface_get_xid (surface);
  g_assert_true (gtk_widget_compute_point (timeline, GTK_WIDGET (native),
                                           &GRAPHENE_POINT_INIT ((float) x0, 10), &p0));
  g_assert_true (gtk_widget_compute_point (timeline, GTK_WIDGET (native),
                                           &GRAPHENE_POINT_INIT ((float) x1, 10), &p1));
  gtk_native_get_surface_transform (native, &sx, &sy);
  cmd = g_strdup_printf ("%s mousemove --sync --window %lu %d %d sleep 0.2 mousedown 1 sleep 0.2 "
                         "mousemove --sync --window %lu %d %d sleep 0.2 "
                         "mousemove --sync --window %lu %d %d sleep 0.2 mouseup 1", xdotool,
                         xid, (int) (p0.x + sx), (int) (p0.y + sy),
                         xid, (int) ((p0.x + p1.x) / 2 + sx), (int) (p1.y + sy),
                         xid, (int) (p1.x + sx), (int) (p1.y + sy));
  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
  g_assert_cmpint (status, ==, 0);
  return TRUE;
}

static gboolean
has_selection (gpointer data)
{
  return sl_viewport_get_selection (data, NULL, NULL);
}

/* F fits the newer of the two: a range dragged after an event was clicked. */
static void
test_fit_range (void)
{
  g_autofree char *sample = sample_path ();
  SlWindow *window = sl_test_open_window (app, 1400, 900, sample, NULL);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlViewport *vp = sl_timeline_view_get_viewport (tv);
  SlEventRef kernel = first_of_kind (sl_window_get_trace (window), SL_LANE_KERNELS);
  double w = gtk_widget_get_width (GTK_WIDGET (tv));
  SlTime s0, s1, v0, v1;

  sl_timeline_view_select_event (tv, kernel, FALSE);
  g_signal_emit_by_name (tv, "event-selected", &kernel);
  /* the window settled before the drag (under ASan it lays out late) */
  sl_test_iterate_for (500);
  if (!real_ruler_drag (GTK_WIDGET (tv), w * 0.4, w * 0.7))
    {
      g_test_skip ("no xdotool");
      close_window (window);
      return;
    }
  g_assert_true (sl_test_wait_until (has_selection, vp, 15000));
  sl_test_iterate_for (100);
  g_assert_cmpint (sl_timeline_view_get_selected_event (tv).lane, ==, kernel.lane);
  g_assert_true (sl_viewport_get_selection (vp, &s0, &s1));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (tv), "timeline.fit", NULL));
  sl_viewport_get_visible (vp, &v0, &v1);
  g_test_message ("range %" G_GINT64_FORMAT " … %" G_GINT64_FORMAT ", visible %" G_GINT64_FORMAT
                  " … %" G_GINT64_FORMAT, s0, s1, v0, v1);
  g_assert_cmpint (v0, ==, s0);
  g_assert_cmpint (v1, ==, s1);
  /* a click on an event after it: F fits that event again */
  _sl_timeline_select_ref (tv, kernel, TRUE);
  sl_viewport_show_all (vp);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (tv), "timeline.fit", NULL));
  {
    const SlEvent *ev = &sl_trace_get_lane (sl_window_get_trace (window), kernel.lane)
                           ->events[kernel.index];
    sl_viewport_get_visible (vp, &v0, &v1);
    g_assert_cmpint (v0, <=, ev->start);
    g_assert_cmpint (v1, >=, ev->end);
    g_assert_cmpint (v1 - v0, <, 2 * (ev->end - ev->start));
  }
  close_window (window);
}

/* Back returns to the first view after a zoom that is not remembered step by step (the wheel, W),
 * and from the first view to the whole trace. */
static void
test_back_first_view (void)
{
  g_autofree char *sample = sample_path ();
  SlWindow *window = sl_test_open_window (app, 1400, 900, sample, NULL);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlViewport *vp = sl_timeline_view_get_viewport (tv);
  SlTime f0, f1, v0, v1, b0, b1;

  sl_viewport_get_visible (vp, &f0, &f1);
  sl_viewport_get_bounds (vp, &b0, &b1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (tv), "timeline.zoom-in", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (tv), "timeline.zoom-in", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (tv), "timeline.pan-right", NULL));
  sl_test_iterate_for (50);
  g_assert_true (gtk_widget_get_sensitive (sl_window_get_back_button (window)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.back", NULL));
  sl_viewport_get_visible (vp, &v0, &v1);
  g_assert_cmpint (v0, ==, f0);
  g_assert_cmpint (v1, ==, f1);
  /* Forward: the zoomed view again; then 0 (the whole trace) and a zoom: Back returns to it */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.forward", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (tv), "timeline.show-all", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (tv), "timeline.zoom-in", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.back", NULL));
  sl_viewport_get_visible (vp, &v0, &v1);
  g_assert_cmpint (v0, ==, b0);
  g_assert_cmpint (v1, ==, b1);
  close_window (window);
}

/* ---- item 11: the findings' marks along the ruler ---------------------------------------- */

/* How many findings' marks cover widget x along the ruler, as sl-timeline-ruler.c draws them (in
 * the visible range, 2 px at least) with the 2 px either side a hover counts; `*narrower` of them
 * span less time than mark `mark`. */
static guint
marks_at (SlTimelineView *tv,
          double          x,
          guint           mark,
          guint          *narrower)
{
  double right = gtk_widget_get_width (GTK_WIDGET (tv));
  SlTime span = g_array_index (tv->ruler_marks, SlTime, 2 * mark + 1)
                - g_array_index (tv->ruler_marks, SlTime, 2 * mark);
  guint n = 0;
  SlTime v0, v1;

  sl_viewport_get_visible (sl_timeline_view_get_viewport (tv), &v0, &v1);
  *narrower = 0;
  for (guint i = 0; i + 1 < tv->ruler_marks->len; i += 2)
    {
      SlTime a = g_array_index (tv->ruler_marks, SlTime, i);
      SlTime b = g_array_index (tv->ruler_marks, SlTime, i + 1);
      if (b < v0 || a > v1)
        continue;
      double x0 = MAX (time_to_x (tv, a), HEADER_W - 1);
      double x1 = MAX (MIN (time_to_x (tv, b), right + 1), x0 + 2);
      if (x >= x0 - 2 && x <= x1 + 2)
        {
          n++;
          *narrower += b - a < span;
        }
    }
  return n;
}

/* Hovering a finding's mark along the ruler names it (rule, cost, summary), a line for each
 * finding under the pointer, the narrowest marks first (8, then a count of the others); the
 * ruler's labels and the gaps between marks have no such tooltip; the legend explains the strip. */
static void
test_ruler_marks (void)
{
  g_autofree char *sample = sample_path ();
  SlWindow *window = sl_test_open_window (app, 1400, 900, sample, NULL);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlFindingsPanel *findings = SL_FINDINGS_PANEL (sl_window_get_findings_panel (window));
  g_autoptr (GString) legend = g_string_new (NULL);
  double w = gtk_widget_get_width (GTK_WIDGET (tv));
  guint tested = 0;

  g_assert_true (sl_test_wait_until (has_findings, findings, 60000));
  sl_test_iterate_for (200);
  g_assert_cmpuint (sl_timeline_view_get_ruler_marks (tv), ==,
                    sl_findings_panel_get_n_findings (findings));
  sl_test_screenshot (GTK_WIDGET (window), "ruler-marks");
  for (guint i = 0; i < sl_findings_panel_get_n_findings (findings); i++)
    {
      const SlFinding *f = sl_findings_panel_get_finding (findings, i);
      double x = (MAX (time_to_x (tv, f->start), HEADER_W) + MIN (time_to_x (tv, f->end), w)) / 2;
      if (x < HEADER_W || x >= w)
        continue;
      g_autofree char *cost = sl_format_duration (f->cost);
      g_autofree char *tip = _sl_timeline_ruler_mark_tooltip (tv, x, RULER_H - 3);
      g_autofree char *above = _sl_timeline_ruler_mark_tooltip (tv, x, 4);
      g_auto (GStrv) lines = NULL;
      guint narrower, n = marks_at (tv, x, i, &narrower);
      g_test_message ("finding %u (%s) at x %.0f, %u marks there, %u narrower:\n%s", i,
                      f->rule->name, x, n, narrower, tip);
      g_assert_nonnull (tip);
      g_assert_null (above);
      lines = g_strsplit (tip, "\n", -1);
      g_assert_cmpuint (g_strv_length (lines), ==, MIN (n, 8) + (n > 8));
      if (n > 8)
        {
          g_autofree char *more = g_strdup_printf ("… and %u more here", n - 8);
          g_assert_true (g_str_has_prefix (lines[8], more));
        }
      if (narrower >= 8)
        continue;
      /* its own line among the first, as narrow marks come first: rule title and name, cost,
       * summary */
      gboolean found = FALSE;
      for (guint l = 0; l < MIN (n, 8); l++)
        found |= strstr (lines[l], f->rule->title) != NULL
                 && strstr (lines[l], f->rule->name) != NULL && strstr (lines[l], cost) != NULL
                 && strstr (lines[l], f->summary) != NULL;
      g_assert_true (found);
      tested++;
    }
  g_assert_cmpuint (tested, >, 0);

  /* the sample's findings cover the whole strip: marks of our own, a narrow one inside a wide
   * one, one without a text, a gap */
  {
    SlTime v0, v1;
    sl_viewport_get_visible (sl_timeline_view_get_viewport (tv), &v0, &v1);
    SlTime d = (v1 - v0) / 100;
    const SlTime marks[] = { v0 + 10 * d, v0 + 30 * d, v0 + 19 * d, v0 + 21 * d,
                             v0 + 60 * d, v0 + 70 * d, v0 - 20 * d, v0 - 10 * d };
    const char *texts[] = { "wide", "narrow", NULL, "off screen" };
    double x_narrow = time_to_x (tv, v0 + 20 * d), x_wide = time_to_x (tv, v0 + 12 * d);
    sl_timeline_view_set_ruler_marks (tv, marks, texts, 4);
    g_autofree char *both = _sl_timeline_ruler_mark_tooltip (tv, x_narrow, RULER_H - 2);
    g_autofree char *wide = _sl_timeline_ruler_mark_tooltip (tv, x_wide, RULER_H - 2);
    g_autofree char *gap = _sl_timeline_ruler_mark_tooltip (tv, time_to_x (tv, v0 + 45 * d),
                                                            RULER_H - 2);
    g_autofree char *untold = _sl_timeline_ruler_mark_tooltip (tv, time_to_x (tv, v0 + 65 * d),
                                                               RULER_H - 2);
    g_assert_cmpstr (both, ==, "narrow\nwide");
    g_assert_cmpstr (wide, ==, "wide");
    g_assert_null (gap);
    g_assert_nonnull (untold);
    g_assert_true (g_str_has_prefix (untold, "A finding at "));
    g_assert_null (_sl_timeline_ruler_mark_tooltip (tv, x_narrow, 4));
    g_assert_null (_sl_timeline_ruler_mark_tooltip (tv, HEADER_W - 10, RULER_H - 2));
    /* a mark before the visible range is not drawn at its edge, nor hovered there */
    g_assert_null (_sl_timeline_ruler_mark_tooltip (tv, HEADER_W + 1, RULER_H - 2));
  }

  sl_timeline_view_toggle_legend (tv);
  sl_test_iterate_for (200);
  g_assert_nonnull (sl_timeline_view_get_legend (tv));
  sl_test_collect_labels (sl_timeline_view_get_legend (tv), legend);
  g_assert_nonnull (strstr (legend->str, "Along the ruler: where the findings are (hover a mark "
                                         "for its rule and cost"));
  g_assert_nonnull (strstr (legend->str, "Along the ruler: the finding in focus"));
  sl_test_screenshot (sl_timeline_view_get_legend (tv), "ruler-marks-legend");
  sl_timeline_view_toggle_legend (tv);
  close_window (window);
}

/* ---- item 6 ------------------------------------------------------------------------------ */

static gboolean
mapped (gpointer data)
{
  return gtk_widget_get_mapped (data) && gtk_widget_get_height (data) > 0;
}

static gboolean
menu_shown (gpointer data)
{
  SlTimelineView *tv = data;
  return tv->menu != NULL && gtk_widget_get_mapped (tv->menu);
}

/* Every item of a popover menu (a GtkModelButton) shown whole inside the popover, and nothing to
 * scroll; the labels, one a line, into `out`. */
static void
assert_menu_fits (GtkWidget *menu,
                  GString   *out)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();
  double h = gtk_widget_get_height (menu);
  guint n = 0;

  g_ptr_array_add (stack, menu);
  while (stack->len > 0)
    {
      GtkWidget *w = g_ptr_array_steal_index (stack, 0);
      if (GTK_IS_SCROLLED_WINDOW (w))
        {
          GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (w));
          g_test_message ("menu scroll: upper %.0f, page %.0f", gtk_adjustment_get_upper (adj),
                          gtk_adjustment_get_page_size (adj));
          g_assert_cmpfloat (gtk_adjustment_get_upper (adj), <=,
                             gtk_adjustment_get_page_size (adj) + 0.5);
        }
      if (g_str_equal (G_OBJECT_TYPE_NAME (w), "GtkModelButton") && gtk_widget_get_visible (w))
        {
          graphene_rect_t b;
          GtkWidget *label = find_labelled (w, GTK_TYPE_LABEL, NULL);
          g_assert_true (gtk_widget_compute_bounds (w, menu, &b));
          g_string_append_printf (out, "%s\n",
                                  label != NULL ? gtk_label_get_text (GTK_LABEL (label)) : "?");
          g_assert_cmpfloat (b.origin.y, >=, 0);
          g_assert_cmpfloat (b.origin.y + b.size.height, <=, h + 0.5);
          n++;
        }
      for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
           c = gtk_widget_get_next_sibling (c))
        g_ptr_array_add (stack, c);
    }
  g_assert_cmpuint (n, >, 3);
}

/* The right-click menu shows all its items, its last section too: after Hide Lane, the item that
 * brings the lane back. */
static void
test_menu_fits (void)
{
  g_autofree char *sample = sample_path ();
  SlWindow *window = sl_test_open_window (app, 1400, 900, sample, NULL);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlEventRef kernel = first_of_kind (sl_window_get_trace (window), SL_LANE_KERNELS);
  graphene_rect_t area;
  GtkWidget *menu;

  sl_timeline_view_select_event (tv, kernel, TRUE);
  _sl_timeline_reveal_lane (tv, kernel.lane);
  sl_test_iterate_for (200);
  g_assert_true (sl_timeline_view_get_event_area (tv, kernel, &area));
  for (int round = 0; round < 2; round++)
    {
      g_autoptr (GString) items = g_string_new (NULL);
      double x = area.origin.x + area.size.width / 2, y = area.origin.y + area.size.height / 2;

      /* a right click where a person clicks; on a loaded machine the X server has been seen to
       * drop one: then the view's own way in, as the click does */
      if (!sl_test_real_click (GTK_WIDGET (tv), x, y, 3)
          || !sl_test_wait_until (menu_shown, tv, 3000))
        sl_timeline_view_context_menu_at (tv, x, y, TRUE);
      menu = tv->menu;
      g_assert_nonnull (menu);
      g_assert_true (sl_test_wait_until (mapped, menu, 5000));
      sl_test_iterate_for (300);
      sl_test_screenshot (menu, round == 0 ? "h3-menu" : "h3-menu-hidden");
      assert_menu_fits (menu, items);
      g_test_message ("menu:\n%s", items->str);
      if (round == 0)
        {
          g_assert_nonnull (strstr (items->str, "Hide Lane"));
          g_assert_true (gtk_widget_activate_action (GTK_WIDGET (tv), "timeline.hide-lane", NULL));
          gtk_popover_popdown (GTK_POPOVER (menu));
          sl_test_iterate_for (200);
          /* the menu on another row, the kernel's lane now hidden */
          kernel = first_of_kind (sl_window_get_trace (window), SL_LANE_CUDA_API);
          _sl_timeline_reveal_lane (tv, kernel.lane);
          sl_test_iterate_for (200);
          g_assert_true (sl_timeline_view_get_event_area (tv, kernel, &area));
        }
      else
        {
          g_assert_nonnull (strstr (items->str, "Show 1 Hidden Lane"));
          gtk_popover_popdown (GTK_POPOVER (menu));
        }
    }
  close_window (window);
}

/* ---- item 14 ----------------------------------------------------------------------------- */

static gboolean
filter_is (gpointer data)
{
  const char *f = sl_timeline_view_get_lane_filter (data);
  return f != NULL && g_ascii_strcasecmp (f, "stream") == 0;
}

static gboolean
popover_gone (gpointer data)
{
  return sl_timeline_view_get_filter_popover (data) == NULL;
}

/* The lane filter's popover leaves the lane headers in sight, and Esc closes it, keeping the
 * filter. */
static void
test_filter_popover (void)
{
  g_autofree char *sample = sample_path ();
  SlWindow *window = sl_test_open_window (app, 1400, 900, sample, NULL);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  GtkWidget *popover, *entry;
  graphene_rect_t b;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (tv), "timeline.filter-lanes", NULL));
  popover = sl_timeline_view_get_filter_popover (tv);
  g_assert_nonnull (popover);
  g_assert_true (sl_test_wait_until (mapped, popover, 5000));
  entry = gtk_popover_get_child (GTK_POPOVER (popover));
  gtk_editable_set_text (GTK_EDITABLE (entry), "Stream");
  g_assert_true (sl_test_wait_until (filter_is, tv, 5000));
  sl_test_iterate_for (200);
  {
    /* the popover is a surface of its own, placed in the window's surface */
    GdkSurface *ps = gtk_native_get_surface (GTK_NATIVE (popover));
    double wsx, wsy, psx, psy;
    graphene_point_t h;
    g_assert_true (gtk_widget_compute_point (GTK_WIDGET (tv), GTK_WIDGET (window),
                                             &GRAPHENE_POINT_INIT (HEADER_W, 0), &h));
    gtk_native_get_surface_transform (GTK_NATIVE (window), &wsx, &wsy);
    gtk_native_get_surface_transform (GTK_NATIVE (popover), &psx, &psy);
    b.origin.x = gdk_popup_get_position_x (GDK_POPUP (ps)) + psx;
    g_test_message ("filter popover's left edge at %.0f, the headers' right edge at %.0f",
                    b.origin.x, h.x + wsx);
    sl_test_screenshot (popover, "h3-filter-popover");
    g_assert_cmpfloat (b.origin.x, >=, h.x + wsx - 1);
  }

  if (!sl_test_real_key (GTK_WIDGET (popover), "Escape")
      || !sl_test_wait_until (popover_gone, tv, 3000))
    {
      g_test_message ("Esc not delivered by the X server: the entry's stop-search, as Esc does");
      g_signal_emit_by_name (entry, "stop-search");
    }
  g_assert_true (sl_test_wait_until (popover_gone, tv, 3000));
  g_assert_true (filter_is (tv));
  close_window (window);
}

/* The CPU samples lane zoomed out shows where the thread ran and where it did not: a lane row
 * of the samples' density, not one solid bar. */
static void
test_samples_density (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2023.2-cutlass-cpu-sampling.sqlite");
  SlWindow *window = sl_test_open_window (app, 1400, 900, path, NULL);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));

  SlTrace *trace = sl_window_get_trace (window);
  const Row *row = NULL;
  int w = gtk_widget_get_width (GTK_WIDGET (tv)), h = gtk_widget_get_height (GTK_WIDGET (tv));
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree guchar *pixels = NULL;
  g_autoptr (GHashTable) colours = g_hash_table_new (NULL, NULL);

  sl_viewport_show_all (sl_timeline_view_get_viewport (tv));
  sl_test_iterate_for (1000);
  sl_test_screenshot (GTK_WIDGET (window), "h3-samples");
  for (guint r = 0; r < tv->rows->len && row == NULL; r++)
    {
      const Row *x = &g_array_index (tv->rows, Row, r);
      if (x->kind == ROW_LANE && sl_trace_get_lane (trace, x->lane)->kind == SL_LANE_SAMPLES)
        row = x;
    }
  g_assert_nonnull (row);
  {
    g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (GTK_WIDGET (tv));
    g_autoptr (GskRenderNode) node = NULL;
    for (int tries = 0; node == NULL && tries < 40; tries++)
      {
        GtkSnapshot *snapshot = gtk_snapshot_new ();
        gdk_paintable_snapshot (paintable, snapshot, w, h);
        node = gtk_snapshot_free_to_node (snapshot);
        if (node == NULL)
          sl_test_iterate_for (50);
      }
    g_assert_nonnull (node);
    texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                           &GRAPHENE_RECT_INIT (0, 0, w, h));
  }
  pixels = g_malloc ((gsize) w * h * 4);
  gdk_texture_download (texture, pixels, (gsize) w * 4);
  /* the colours of the chart's rows, below the lane's top border, over the lanes' area */
  for (double y = RULER_H + row->y - scroll_y (tv) + 3;
       y < RULER_H + row->y - scroll_y (tv) + row->h - 2; y += 1)
    for (int x = (int) HEADER_W + 2; x < w - 10; x++)
      {
        guint32 px;
        if (y < 0 || y >= h)
          continue;
        memcpy (&px, pixels + ((gsize) y * w + x) * 4, 4);
        g_hash_table_add (colours, GUINT_TO_POINTER (px));
      }
  g_test_message ("CPU samples zoomed out: %u colours", g_hash_table_size (colours));
  /* one grey fold a depth was 3 or 4 (fold, row gaps, background) */
  g_assert_cmpuint (g_hash_table_size (colours), >=, 12);
  close_window (window);
}

/* ---- item 15: a laptop's screen ----------------------------------------------------------- */

static gboolean
taller_than_ruler (gpointer data)
{
  return gtk_widget_get_height (data) > RULER_H;
}

/* At 1366 × 768 the first view shows GPU rows (the utilization and the streams' work), however
 * many CPU rows come first. */
static void
test_small_screen (void)
{
  static const char *const traces[] = { "nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite",
                                        "nsys/nsys-2023.2-cutlass-cpu-sampling.sqlite",
                                        "nsys/nsys-2024.6-fuser-8gpu-nvtx.sqlite",
                                        "nsys/nsys-2026.1-osrt-sampling.sqlite",
                                        "nsys/nsys-2023.3-t4-openmp.sqlite",
                                        "nsys/nsys-2026.2-mfu-2gpu.sqlite",
                                        "nsys/nsys-2021-osrt.sqlite",
                                        "nsys/nsys-2023.1-cuckoo-osrt.sqlite" };

  for (guint t = 0; t < G_N_ELEMENTS (traces); t++)
    {
      g_autofree char *path = sl_test_trace_path (traces[t]);
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *shot = g_strdup_printf ("h3-1366x768-%u", t);
      SlWindow *window = sl_test_open_window (app, 1366, 768, path, NULL);
      SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
      double page, top = -1;

      g_assert_true (sl_test_wait_until (taller_than_ruler, tv, 5000));
      sl_test_iterate_for (300);
      page = gtk_widget_get_height (GTK_WIDGET (tv)) - RULER_H;
      for (guint r = 0; r < tv->rows->len && top < 0; r++)
        {
          const Row *x = &g_array_index (tv->rows, Row, r);
          if (x->kind == ROW_GPU_UTIL || x->kind == ROW_GPU_ALL)
            top = x->y - scroll_y (tv);
        }
      sl_test_screenshot (GTK_WIDGET (window), shot);
      g_test_message ("%s at %dx%d: the first GPU row at %.0f of %.0f px", base,
                      gtk_widget_get_width (GTK_WIDGET (window)),
                      gtk_widget_get_height (GTK_WIDGET (window)), top, page);
      g_assert_cmpfloat (top, >=, 0);
      g_assert_cmpfloat (top + 2 * ROW_LANE_H, <=, page);
      close_window (window);
    }
}

/* ---- main -------------------------------------------------------------------------------- */

int
main (int    argc,
      char **argv)
{
  int ret;

  /* export dialogs do not start in the test's working folder by accident; recent files go to a
   * throwaway data directory and the file chooser's settings to memory (sl_test_window_app_new) */
  g_setenv ("GTK_USE_PORTAL", "0", TRUE);
  g_assert_true (g_chdir (sl_test_tmpdir ()) == 0);
  app = sl_test_window_app_new (&argc, &argv);

  g_test_add_func ("/ui-window/title", test_title);
  g_test_add_func ("/ui-window/go-to-links", test_go_to_links);
  g_test_add_func ("/ui-window/recent-json", test_recent_json);
  g_test_add_func ("/ui-window/export-folder", test_export_folder);
  g_test_add_func ("/ui-window/longest-detail", test_longest_detail);
  g_test_add_func ("/ui-window/search-events-table", test_search_events_table);
  g_test_add_func ("/ui-window/findings-tab", test_findings_tab);
  g_test_add_func ("/ui-window/fit-range", test_fit_range);
  g_test_add_func ("/ui-window/back-first-view", test_back_first_view);
  g_test_add_func ("/ui-window/ruler-marks", test_ruler_marks);
  g_test_add_func ("/ui-window/menu-fits", test_menu_fits);
  g_test_add_func ("/ui-window/filter-popover", test_filter_popover);
  g_test_add_func ("/ui-window/samples-density", test_samples_density);
  g_test_add_func ("/ui-window/small-screen", test_small_screen);
  ret = g_test_run ();

  sl_test_app_done (GTK_APPLICATION (app));
  return ret;
}
