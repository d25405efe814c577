/* test-ui-critpath.c: the critical path in the real window under Xvfb (issue 30, item 6): asked
 * for from a range's right-click menu and for the selection (win.critical-path), listed in its
 * panel as the model computes it, a click on a segment selecting its event, the path drawn on the
 * timeline (pixels), Clear.  Criticals are fatal (G_DEBUG=fatal-criticals). */
#include <math.h>
#include <string.h>

#include <gtk/gtk.h>
#include <gdk/x11/gdkx.h>
#include <glib/gstdio.h>

#include "sl-application.h"
#include "sl-critical-path-panel-private.h"
#include "sl-display-name.h"
#include "sl-format.h"
#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-test-window.h"
#include "sl-timeline-view-private.h"
#include "sl-window-private.h"

static SlApplication *app;

/* The NVTX range named `name` (the bundled sample's training steps are "step 1" … "step 20"). */
static SlEventRef
find_range (SlTrace    *trace,
            const char *name)
{
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind != SL_LANE_NVTX)
        continue;
      for (gsize i = 0; i < lane->n_events; i++)
        if (g_strcmp0 (sl_trace_display_name (trace, lane->kind, lane->events[i].name), name) == 0)
          return (SlEventRef) { (gint) l, i };
    }
  return SL_EVENT_REF_NONE;
}

static const SlEvent *
event_of (SlTrace    *trace,
          SlEventRef  ref)
{
  return &sl_trace_get_lane (trace, (guint) ref.lane)->events[ref.index];
}

static gboolean
menu_shown (gpointer data)
{
  SlTimelineView *tv = data;
  return tv->menu != NULL && gtk_widget_get_mapped (tv->menu);
}

static gboolean
path_ready (gpointer data)
{
  SlCriticalPathPanel *panel = data;
  return !_sl_critical_path_panel_is_busy (panel)
         && _sl_critical_path_panel_get_path (panel) != NULL;
}

typedef struct
{
  SlTimelineView *tv;
  SlEventRef      ref;
} Selected;

static gboolean
is_selected (gpointer data)
{
  Selected *s = data;
  SlEventRef r = sl_timeline_view_get_selected_event (s->tv);
  return r.lane == s->ref.lane && r.index == s->ref.index;
}

/* The first widget under `root` that is a `type` and, for a label, says `text` (NULL: any). */
static GtkWidget *
find_widget (GtkWidget  *root,
             GType       type,
             const char *text)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type)
      && (text == NULL || (GTK_IS_LABEL (root)
                           && g_strcmp0 (gtk_label_get_text (GTK_LABEL (root)), text) == 0)))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, type, text);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Field by field: the struct's padding is not initialised. */
static gboolean
same_segment (const SlCpSegment *a,
              const SlCpSegment *b)
{
  return a->kind == b->kind && a->thread == b->thread && a->gpu == b->gpu
         && (a->gpu < 0 || a->stream_id == b->stream_id) && a->event.lane == b->event.lane
         && (a->event.lane < 0 || a->event.index == b->event.index) && a->start == b->start
         && a->end == b->end;
}

/* The panel shows what the model computes for [t0, t1): the same segments, each row's cells as
 * the test formats them itself. */
static void
assert_panel_matches_model (SlCriticalPathPanel *panel,
                            SlTimelineView      *tv,
                            SlTrace             *trace,
                            SlTime               t0,
                            SlTime               t1)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlCriticalPath) model = sl_critical_path_compute (trace, t0, t1, NULL, NULL, &error);
  SlCriticalPath *shown = _sl_critical_path_panel_get_path (panel);
  gsize n, n_shown, n_drawn;
  const SlCpSegment *segs, *shown_segs, *drawn;

  g_assert_no_error (error);
  g_assert_nonnull (shown);
  segs = sl_critical_path_get_segments (model, &n);
  shown_segs = sl_critical_path_get_segments (shown, &n_shown);
  drawn = sl_timeline_view_get_critical_path (tv, &n_drawn);
  g_assert_cmpuint (n, >, 1);
  g_assert_cmpuint (n_shown, ==, n);
  g_assert_cmpuint (n_drawn, ==, n);
  g_assert_cmpuint (_sl_critical_path_panel_get_n_rows (panel), ==, n);
  g_assert_cmpint (sl_critical_path_get_start (shown), ==, t0);
  g_assert_cmpint (sl_critical_path_get_end (shown), ==, t1);
  for (gsize i = 0; i < n; i++)
    {
      const SlCpSegment *s = &segs[i];
      g_autofree char *at = sl_format_offset (s->start - t0);
      g_autofree char *d = sl_format_duration (s->end - s->start);
      g_autofree char *row = _sl_critical_path_panel_dup_row_text (panel, (guint) i);
      const char *name = "";
      if (s->event.lane >= 0)
        {
          const SlLane *lane = sl_trace_get_lane (trace, (guint) s->event.lane);
          name = sl_trace_display_name (trace, lane->kind, lane->events[s->event.index].name);
        }
      else if (s->kind == SL_CP_IDLE)
        name = "(nothing traced)";
      g_auto (GStrv) cells = g_strsplit (row, "\t", -1);
      g_assert_cmpuint (g_strv_length (cells), ==, 5);
      g_assert_cmpstr (cells[0], ==, at);
      g_assert_cmpstr (cells[1], ==, d);
      g_assert_cmpstr (cells[2], ==, sl_cp_kind_name (s->kind));
      g_assert_cmpstr (cells[4], ==, name);
      g_assert_true (same_segment (s, &shown_segs[i]));
      g_assert_true (same_segment (s, &drawn[i]));
    }
}

/* The timeline rendered, as BGRA bytes (GDK_MEMORY_DEFAULT), `stride` = 4 × width. */
static guchar *
render (GtkWidget *widget,
        int       *w,
        int       *h)
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  guchar *pixels;

  *w = gtk_widget_get_width (widget);
  *h = gtk_widget_get_height (widget);
  for (int tries = 0; node == NULL && tries < 40; tries++)
    {
      GtkSnapshot *snapshot = gtk_snapshot_new ();
      gdk_paintable_snapshot (paintable, snapshot, *w, *h);
      node = gtk_snapshot_free_to_node (snapshot);
      if (node == NULL)
        sl_test_iterate_for (50);
    }
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)),
                                         node, &GRAPHENE_RECT_INIT (0, 0, *w, *h));
  pixels = g_malloc ((gsize) *w * *h * 4);
  gdk_texture_download (texture, pixels, (gsize) *w * 4);
  return pixels;
}

static void
assert_pixel (const guchar  *pixels,
              int            w,
              double         x,
              double         y,
              const GdkRGBA *c,
              const char    *what)
{
  const guchar *p = pixels + ((gsize) floor (y) * w + (gsize) floor (x)) * 4;
  int r = (int) lround (c->red * 255), g = (int) lround (c->green * 255);
  int b = (int) lround (c->blue * 255);

  g_test_message ("%s at (%.0f, %.0f): #%02x%02x%02x, wanted #%02x%02x%02x", what, x, y, p[2],
                  p[1], p[0], r, g, b);
  g_assert_cmpint (ABS (p[2] - r), <=, 8);
  g_assert_cmpint (ABS (p[1] - g), <=, 8);
  g_assert_cmpint (ABS (p[0] - b), <=, 8);
}

static void
test_range (void)
{
  g_autofree char *sample = g_build_filename (SL_SOURCE_DIR, "data", "sample.sqlite", NULL);
  SlWindow *window = sl_test_open_window (app, 1400, 900, sample, NULL);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlCriticalPathPanel *panel = SL_CRITICAL_PATH_PANEL (sl_window_get_critical_path_panel (window));
  SlTrace *trace = sl_window_get_trace (window);
  SlViewport *vp = sl_timeline_view_get_viewport (tv);
  SlEventRef step = find_range (trace, "step 3");
  const SlEvent *ev;
  graphene_rect_t area;
  gsize n;

  g_assert_cmpint (step.lane, >=, 0);
  ev = event_of (trace, step);
  g_assert_cmpstr (_sl_critical_path_panel_get_summary (panel), !=, "");
  g_assert_false (gtk_widget_is_sensitive (_sl_critical_path_panel_get_clear_button (panel)));
  /* nothing selected: Ctrl+Shift+P's action does nothing */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.critical-path", NULL);
  g_assert_false (_sl_critical_path_panel_is_busy (panel));

  /* the step on screen, a little margin either side */
  SlTime span = ev->end - ev->start;
  sl_viewport_set_visible (vp, ev->start - span / 20, ev->end + span / 20, TRUE);
  _sl_timeline_reveal_lane (tv, step.lane);
  sl_test_iterate_for (300);
  g_assert_true (sl_timeline_view_get_event_area (tv, step, &area));

  /* right-click on it: "Critical Path of This Range", clicked where it shows */
  double x = area.origin.x + MIN (area.size.width / 2, 200);
  double y = area.origin.y + area.size.height / 2;
  if (!sl_test_real_click (GTK_WIDGET (tv), x, y, 3) || !sl_test_wait_until (menu_shown, tv, 3000))
    sl_timeline_view_context_menu_at (tv, x, y, TRUE);
  g_assert_true (sl_test_wait_until (menu_shown, tv, 5000));
  sl_test_iterate_for (300);
  GtkWidget *item = find_widget (tv->menu, GTK_TYPE_LABEL, "Critical Path of This Range");
  g_assert_nonnull (item);
  sl_test_screenshot (tv->menu, "critpath-menu");
  if (!sl_test_real_click (item, gtk_widget_get_width (item) / 2.0,
                           gtk_widget_get_height (item) / 2.0, 1)
      || !sl_test_wait_until ((SlTestCond) _sl_critical_path_panel_is_busy, panel, 2000))
    {
      g_test_message ("the menu item was not clicked through X: activating its action");
      gtk_popover_popdown (GTK_POPOVER (tv->menu));
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (tv), "timeline.critical-path", NULL));
    }
  g_assert_true (sl_test_wait_until (path_ready, panel, 60000));
  sl_test_iterate_for (200);
  g_test_message ("%s\n%s", _sl_critical_path_panel_get_summary (panel),
                  _sl_critical_path_panel_get_shares (panel));
  g_assert_nonnull (strstr (_sl_critical_path_panel_get_summary (panel), "step 3"));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (panel)));  /* its tab shown */
  assert_panel_matches_model (panel, tv, trace, ev->start, ev->end);

  /* a click on a GPU segment's row: its kernel selected on the timeline */
  const SlCpSegment *segs = sl_timeline_view_get_critical_path (tv, &n);
  gsize pick = n;
  for (gsize i = 0; i < n && pick == n; i++)
    if (segs[i].kind == SL_CP_GPU && segs[i].event.lane >= 0)
      pick = i;
  g_assert_cmpuint (pick, <, n);
  GtkWidget *row = NULL;
  for (int tries = 0; row == NULL && tries < 20; tries++)
    {
      row = _sl_critical_path_panel_get_row_widget (panel, (guint) pick);
      sl_test_iterate_for (100);
    }
  g_assert_nonnull (row);
  Selected sel = { tv, segs[pick].event };
  if (!sl_test_real_click (row, 40, gtk_widget_get_height (row) / 2.0, 1)
      || !sl_test_wait_until (is_selected, &sel, 3000))
    {
      g_test_message ("the row was not clicked through X: activating it");
      g_signal_emit_by_name (find_widget (GTK_WIDGET (panel), GTK_TYPE_LIST_VIEW, NULL), "activate",
                             (guint) pick);
    }
  g_assert_true (sl_test_wait_until (is_selected, &sel, 3000));

  /* the path on the timeline: the step again, then a segment's bar in its kind's colour and an
   * event's outline in the path's orange, on a segment away from the selection */
  sl_viewport_set_visible (vp, ev->start - span / 20, ev->end + span / 20, TRUE);
  sl_test_iterate_for (300);
  gsize bar = n, outline = n;
  double right = gtk_widget_get_width (GTK_WIDGET (tv));
  double bottom = gtk_widget_get_height (GTK_WIDGET (tv));
  for (gsize i = 0; i < n; i++)
    {
      graphene_rect_t r, e;
      if (!sl_timeline_view_get_critical_path_area (tv, i, &r) || r.size.width < 6
          || r.origin.x < HEADER_W + 4 || r.origin.x + r.size.width > right - 4
          || r.origin.y < RULER_H + 4 || r.origin.y + r.size.height > bottom - 4)
        continue;
      if (bar == n && (i + 1 >= n || segs[i + 1].event.lane != segs[i].event.lane
                       || segs[i + 1].event.index != segs[i].event.index))
        bar = i;
      if (outline == n && segs[i].event.lane >= 0 && segs[i].event.lane != sel.ref.lane
          && sl_timeline_view_get_event_area (tv, segs[i].event, &e) && e.size.width > 12
          && e.origin.x > HEADER_W + 4 && e.origin.x + e.size.width < right - 4)
        outline = i;
    }
  g_assert_cmpuint (bar, <, n);
  g_assert_cmpuint (outline, <, n);
  {
    int w, h;
    g_autofree guchar *pixels = render (GTK_WIDGET (tv), &w, &h);
    graphene_rect_t r, e;
    GdkRGBA kind, orange;

    g_assert_true (sl_timeline_view_get_critical_path_area (tv, bar, &r));
    sl_critical_path_kind_color (segs[bar].kind, &kind);
    assert_pixel (pixels, w, r.origin.x + r.size.width / 2, r.origin.y + r.size.height / 2, &kind,
                  "a segment's bar");
    g_assert_true (sl_timeline_view_get_event_area (tv, segs[outline].event, &e));
    _sl_rgba_set (&orange, 0xff7800, 1);
    assert_pixel (pixels, w, e.origin.x + e.size.width / 2, e.origin.y, &orange,
                  "an event's outline");
  }
  sl_test_screenshot (GTK_WIDGET (window), "critpath");

  /* the selection's path: Ctrl+Shift+P's action, enabled with a selection */
  SlEventRef other = find_range (trace, "step 5");
  g_assert_cmpint (other.lane, >=, 0);
  const SlEvent *ev5 = event_of (trace, other);
  SlTime s0 = ev5->start + (ev5->end - ev5->start) / 4, s1 = ev5->end;
  sl_viewport_set_selection (vp, s0, s1);
  sl_test_iterate_for (50);
  gtk_widget_grab_focus (GTK_WIDGET (tv));
  if (!sl_test_real_key (GTK_WIDGET (window), "ctrl+shift+p")
      || !sl_test_wait_until ((SlTestCond) _sl_critical_path_panel_is_busy, panel, 2000))
    {
      g_test_message ("Ctrl+Shift+P did not come through X: activating win.critical-path");
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.critical-path", NULL));
    }
  g_assert_true (sl_test_wait_until (path_ready, panel, 60000));
  g_assert_nonnull (strstr (_sl_critical_path_panel_get_summary (panel), "the selection"));
  assert_panel_matches_model (panel, tv, trace, s0, s1);

  /* Clear: gone from the panel and the timeline */
  GtkWidget *clear = _sl_critical_path_panel_get_clear_button (panel);
  g_assert_true (gtk_widget_is_sensitive (clear));
  if (!sl_test_real_click (clear, gtk_widget_get_width (clear) / 2.0,
                           gtk_widget_get_height (clear) / 2.0, 1))
    g_signal_emit_by_name (clear, "clicked");
  for (int tries = 0; tries < 30 && _sl_critical_path_panel_get_path (panel) != NULL; tries++)
    sl_test_iterate_for (100);
  g_assert_null (_sl_critical_path_panel_get_path (panel));
  g_assert_cmpuint (_sl_critical_path_panel_get_n_rows (panel), ==, 0);
  g_assert_null (sl_timeline_view_get_critical_path (tv, &n));
  g_assert_cmpuint (n, ==, 0);

  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (50);
}

int
main (int    argc,
      char **argv)
{
  int ret;

  app = sl_test_window_app_new (&argc, &argv);

  g_test_add_func ("/ui-critpath/range", test_range);
  ret = g_test_run ();

  sl_test_app_done (GTK_APPLICATION (app));
  return ret;
}
