/* test-ui-timeline.c: the timeline widget in a real window under Xvfb: pixels, zoom, selection. */
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include <sqlite3.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

#include "sl-lane.h"
#include "sl-plant.h"
#include "sl-schema.h"
#include "sl-sort.h"
#include "sl-stats-panel-private.h"
#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-timeline-view-private.h"
#include "sl-trace-private.h"
#include "sl-utilization.h"

#define HEADER_PX 220   /* the widget's header column, as drawn */

typedef struct
{
  SlTrace   *trace;
  GtkWidget *window;
  GtkWidget *view;
} Fixture;

static void
spin (guint ms)
{
  gint64 until = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < until)
    while (g_main_context_iteration (NULL, FALSE))
      ;
}

/* The trace at `path` in a timeline of a window `width` × `height`. */
static void
fixture_open_sized (Fixture    *f,
                    const char *path,
                    int         width,
                    int         height)
{
  g_autoptr (GError) error = NULL;
  gint64 deadline;

  f->trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (f->trace);
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), width, height);
  f->view = sl_timeline_view_new ();
  gtk_window_set_child (GTK_WINDOW (f->window), f->view);
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (f->view), f->trace);
  gtk_window_present (GTK_WINDOW (f->window));
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((!gtk_widget_get_mapped (f->view) || gtk_widget_get_width (f->view) < 1000)
         && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (gtk_widget_get_mapped (f->view));
  spin (100);
}

static void
fixture_open (Fixture    *f,
              const char *path)
{
  fixture_open_sized (f, path, 1600, 900);
}

static void
fixture_close (Fixture *f)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  spin (50);
  sl_trace_unref (f->trace);
}

/* Renders the widget through the window's own renderer; saved to the tmpdir and to
 * build/tests/screenshots/ so people can look at them. */
static GdkTexture *
render_widget (GtkWidget  *widget,
               const char *name)
{
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  GdkTexture *texture;
  g_autofree char *dir = g_build_filename (SL_BUILD_DIR, "tests", "screenshots", NULL);
  g_autofree char *file = g_strconcat (name, ".png", NULL);
  g_autofree char *p1 = g_build_filename (sl_test_tmpdir (), file, NULL);
  g_autofree char *p2 = g_build_filename (dir, file, NULL);

  spin (30);
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);
  g_assert_true (gdk_texture_save_to_png (texture, p1));
  g_mkdir_with_parents (dir, 0755);
  g_assert_true (gdk_texture_save_to_png (texture, p2));
  g_test_message ("screenshot %s", p2);
  return texture;
}

static GdkTexture *
render (Fixture    *f,
        const char *name)
{
  return render_widget (f->view, name);
}

/* The view's next frame, drawn now (no main loop turn first: no thread's work lands before it),
 * as pixels. */
static GBytes *
frame_now (GtkWidget *view)
{
  int w = gtk_widget_get_width (view), h = gtk_widget_get_height (view);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (view));

  GTK_WIDGET_GET_CLASS (view)->snapshot (view, snapshot);
  GskRenderNode *node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  GdkTexture *t = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);
  gsize stride = (gsize) w * 4;
  guchar *data = g_malloc (stride * (gsize) h);
  gdk_texture_download (t, data, stride);
  g_object_unref (t);
  return g_bytes_new_take (data, stride * (gsize) h);
}

typedef struct
{
  guchar *data;   /* cairo ARGB32, premultiplied, native endian */
  int     w, h;
  gsize   stride;
} Pixels;

static Pixels
pixels_get (GdkTexture *t)
{
  Pixels p;

  p.w = gdk_texture_get_width (t);
  p.h = gdk_texture_get_height (t);
  p.stride = p.w * 4;
  p.data = g_malloc (p.stride * p.h);
  gdk_texture_download (t, p.data, p.stride);
  return p;
}

static void
pixel_rgb (const Pixels *p,
           int           x,
           int           y,
           int          *r,
           int          *g,
           int          *b)
{
  guint32 v = *(const guint32 *) (p->data + y * p->stride + x * 4);

  *r = (v >> 16) & 0xFF;
  *g = (v >> 8) & 0xFF;
  *b = v & 0xFF;
}

static gint
find_lane (SlTrace    *trace,
           SlLaneKind  kind)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    if (sl_trace_get_lane (trace, i)->kind == kind && sl_trace_get_lane (trace, i)->n_events > 0)
      return i;
  return -1;
}

/* A kernel whose launch is close by, so that both ends of the arrow fit one view. */
static SlEventRef
pick_kernel (SlTrace *trace)
{
  gint l = find_lane (trace, SL_LANE_KERNELS);
  const SlLane *lane, *other;
  gsize oi;

  g_assert_cmpint (l, >=, 0);
  lane = sl_trace_get_lane (trace, l);
  for (gsize i = lane->n_events / 2; i < lane->n_events; i++)
    {
      const SlEvent *ev = &lane->events[i];
      SlTime d = ev->end - ev->start;
      if (d < 2000 || !sl_trace_resolve (trace, ev->link, &other, &oi))
        continue;
      if (ev->end - other->events[oi].start < 10 * d)
        return (SlEventRef) { l, i };
    }
  return (SlEventRef) { l, lane->n_events / 2 };
}

static void
test_render_h100 (void)
{
  Fixture f;
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_autoptr (GdkTexture) all = NULL, zoomed = NULL;
  Pixels p;
  gsize colourful = 0, total = 0;
  SlEventRef k, sel;
  graphene_rect_t area;
  graphene_point_t from, to;
  GdkRGBA kc;
  int kr, kg, kb, match = 0, n = 0;

  fixture_open (&f, path);
  all = render (&f, "h100-whole-trace");
  p = pixels_get (all);

  /* the GPU lanes are not background only: kernels and copies are saturated colours */
  for (int y = 0; y < p.h; y++)
    {
      gint lane = sl_timeline_view_lane_at (SL_TIMELINE_VIEW (f.view), y);
      if (lane < 0 || sl_trace_get_lane (f.trace, lane)->gpu < 0)
        continue;
      for (int x = HEADER_PX + 1; x < p.w; x += 2)
        {
          int r, g, b;
          pixel_rgb (&p, x, y, &r, &g, &b);
          total++;
          if (MAX (r, MAX (g, b)) - MIN (r, MIN (g, b)) > 60)
            colourful++;
        }
    }
  g_test_message ("GPU lane pixels: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " coloured",
                  colourful, total);
  g_assert_cmpuint (total, >, 0);
  g_assert_cmpuint (colourful, >, total / 50);
  g_free (p.data);

  /* select a kernel and scroll to it: its box has the kernel colour, the arrow is on screen */
  k = pick_kernel (f.trace);
  sl_timeline_view_select_event (SL_TIMELINE_VIEW (f.view), k, TRUE);
  sel = sl_timeline_view_get_selected_event (SL_TIMELINE_VIEW (f.view));
  g_assert_cmpint (sel.lane, ==, k.lane);
  g_assert_cmpuint (sel.index, ==, k.index);
  g_assert_true (sl_timeline_view_get_event_area (SL_TIMELINE_VIEW (f.view), k, &area));
  g_assert_cmpfloat (area.size.width, >, 8);
  g_assert_cmpint (sl_timeline_view_lane_at (SL_TIMELINE_VIEW (f.view),
                                             area.origin.y + area.size.height / 2), ==, k.lane);
  g_assert_true (sl_timeline_view_get_event_color (SL_TIMELINE_VIEW (f.view), k, &kc));
  kr = (int) lround (kc.red * 255);
  kg = (int) lround (kc.green * 255);
  kb = (int) lround (kc.blue * 255);
  zoomed = render (&f, "h100-kernel-selected");
  p = pixels_get (zoomed);
  /* inside the 2 px selection outline; the label covers some of it */
  for (int y = (int) area.origin.y + 3; y < (int) (area.origin.y + area.size.height) - 2; y++)
    for (int x = (int) area.origin.x + 3; x < (int) (area.origin.x + area.size.width) - 3; x++)
      {
        int r, g, b;
        pixel_rgb (&p, x, y, &r, &g, &b);
        n++;
        if (abs (r - kr) <= 2 && abs (g - kg) <= 2 && abs (b - kb) <= 2)
          match++;
      }
  g_test_message ("kernel box: %d of %d pixels in the kernel colour", match, n);
  g_assert_cmpint (n, >, 0);
  g_assert_cmpint (match, >, n / 2);
  g_free (p.data);

  g_assert_true (sl_timeline_view_get_arrow (SL_TIMELINE_VIEW (f.view), &from, &to));
  g_test_message ("arrow (%.0f, %.0f) → (%.0f, %.0f)", from.x, from.y, to.x, to.y);
  g_assert_cmpfloat (from.x, >=, HEADER_PX);
  g_assert_cmpfloat (to.x, >=, HEADER_PX);
  g_assert_cmpfloat (from.x, <=, gtk_widget_get_width (f.view));
  g_assert_cmpfloat (to.x, <=, gtk_widget_get_width (f.view));
  g_assert_cmpfloat (from.y, >=, 0);
  g_assert_cmpfloat (to.y, >=, 0);
  g_assert_cmpfloat (from.y, <=, gtk_widget_get_height (f.view));
  g_assert_cmpfloat (to.y, <=, gtk_widget_get_height (f.view));
  /* the arrow ends at the kernel's box */
  g_assert_cmpfloat (fabs (to.x - area.origin.x), <, 1.5);

  fixture_close (&f);
}

static void
test_zoom_keys (void)
{
  Fixture f;
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  SlViewport *vp;
  SlTime t0, t1, z0, z1, start, end;
  double a, f15 = KEY_ZOOM_STEP;

  fixture_open (&f, path);
  vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (f.view));
  sl_viewport_get_bounds (vp, &start, &end);
  g_assert_cmpint (start, ==, sl_trace_get_start (f.trace));
  g_assert_cmpint (end, ==, sl_trace_get_end (f.trace));
  sl_viewport_get_visible (vp, &t0, &t1);
  g_assert_cmpint (t0, ==, start);
  g_assert_cmpint (t1, ==, end);

  g_assert_true (gtk_widget_activate_action (f.view, "timeline.zoom-in", NULL));
  sl_viewport_get_visible (vp, &z0, &z1);
  /* shrank by 1.5 around an anchor that stays put: a = (z0·f − t0) / (f − 1) */
  g_assert_cmpfloat (fabs ((double) (z1 - z0) - (double) (t1 - t0) / f15), <=, 4);
  a = ((double) z0 * f15 - (double) t0) / (f15 - 1);
  g_assert_cmpfloat (a, >=, t0 - 4);
  g_assert_cmpfloat (a, <=, t1 + 4);
  g_assert_cmpfloat (fabs ((double) z1 - (a + (t1 - a) / f15)), <=, 8);

  g_assert_true (gtk_widget_activate_action (f.view, "timeline.zoom-in", NULL));
  g_assert_true (gtk_widget_activate_action (f.view, "timeline.pan-right", NULL));
  sl_viewport_get_visible (vp, &z0, &z1);
  g_assert_cmpfloat (fabs ((double) (z1 - z0) - (double) (t1 - t0) / (f15 * f15)), <=, 8);

  g_assert_true (gtk_widget_activate_action (f.view, "timeline.show-all", NULL));
  sl_viewport_get_visible (vp, &t0, &t1);
  g_assert_cmpint (t0, ==, start);
  g_assert_cmpint (t1, ==, end);
  /* show-all is remembered: back returns to the zoomed range, forward to the whole (Back and
   * Forward are the window's actions, tested in test-ui-app; here the history they step) */
  g_assert_true (sl_viewport_back (vp));
  sl_viewport_get_visible (vp, &t0, &t1);
  g_assert_cmpint (t0, ==, z0);
  g_assert_cmpint (t1, ==, z1);
  g_assert_true (sl_viewport_forward (vp));
  sl_viewport_get_visible (vp, &t0, &t1);
  g_assert_cmpint (t0, ==, start);
  g_assert_cmpint (t1, ==, end);

  g_assert_true (gtk_widget_activate_action (f.view, "timeline.zoom-out", NULL));
  g_assert_true (gtk_widget_get_focusable (f.view));
  fixture_close (&f);
}

/* W held zooms on smoothly and stops when it goes up; a tap is one small step; the key repeat of
 * a held key adds nothing; with Ctrl the keys are not the timeline's (issue 13, item 12). */
static void
test_zoom_held (void)
{
  Fixture f;
  g_autofree char *path = g_build_filename (SL_SOURCE_DIR, "data", "sample.sqlite", NULL);
  SlTimelineView *view;
  SlViewport *vp;
  SlTime t0, t1, a0, a1, b0, b1;
  double one, held, secs;
  gint64 down;

  fixture_open_sized (&f, path, 1600, 300);   /* short: rows to scroll */
  view = SL_TIMELINE_VIEW (f.view);
  vp = sl_timeline_view_get_viewport (view);
  sl_viewport_get_visible (vp, &t0, &t1);
  g_assert_false (sl_timeline_view_handle_key (view, GDK_KEY_w, GDK_CONTROL_MASK, TRUE));
  g_assert_false (sl_timeline_view_handle_key (view, GDK_KEY_q, 0, TRUE));

  /* a tap, and the key repeat of the key held: one step of KEY_ZOOM_STEP */
  g_assert_true (sl_timeline_view_handle_key (view, GDK_KEY_w, 0, TRUE));
  g_assert_true (sl_timeline_view_handle_key (view, GDK_KEY_w, 0, TRUE));
  sl_viewport_get_visible (vp, &a0, &a1);
  one = (double) (t1 - t0) / (double) (a1 - a0);
  g_assert_cmpfloat (fabs (one - KEY_ZOOM_STEP), <, 0.01);
  g_assert_true (sl_timeline_view_handle_key (view, GDK_KEY_w, 0, FALSE));
  spin (400);
  sl_viewport_get_visible (vp, &b0, &b1);
  g_assert_cmpint (b1 - b0, ==, a1 - a0);

  /* held for 0.8 s: KEY_ZOOM_RATE per second after the first 0.15 s */
  sl_viewport_show_all (vp);
  down = g_get_monotonic_time ();
  g_assert_true (sl_timeline_view_handle_key (view, GDK_KEY_W, GDK_SHIFT_MASK, TRUE));
  spin (800);
  g_assert_true (sl_timeline_view_handle_key (view, GDK_KEY_W, GDK_SHIFT_MASK, FALSE));
  secs = (double) (g_get_monotonic_time () - down) / G_USEC_PER_SEC;
  sl_viewport_get_visible (vp, &a0, &a1);
  held = (double) (t1 - t0) / (double) (a1 - a0);
  g_test_message ("W held %.2f s: zoomed %.2f×", secs, held);
  g_assert_cmpfloat (held, >, KEY_ZOOM_STEP * 1.5);
  g_assert_cmpfloat (held, <=, KEY_ZOOM_STEP * pow (KEY_ZOOM_RATE, secs) * 1.01);
  spin (300);
  sl_viewport_get_visible (vp, &b0, &b1);
  g_assert_cmpint (b1 - b0, ==, a1 - a0);

  /* S held zooms out again; 0 shows all, F with nothing selected leaves the view */
  g_assert_true (sl_timeline_view_handle_key (view, GDK_KEY_s, 0, TRUE));
  spin (500);
  g_assert_true (sl_timeline_view_handle_key (view, GDK_KEY_s, 0, FALSE));
  sl_viewport_get_visible (vp, &b0, &b1);
  g_assert_cmpint (b1 - b0, >, a1 - a0);
  g_assert_true (sl_timeline_view_handle_key (view, GDK_KEY_0, 0, TRUE));
  sl_viewport_get_visible (vp, &b0, &b1);
  g_assert_cmpint (b0, ==, t0);
  g_assert_cmpint (b1, ==, t1);
  fixture_close (&f);
}

static void
check_util (Fixture *f)
{
  int width = gtk_widget_get_width (f->view);

  for (guint gpu = 0; gpu < sl_trace_get_n_gpus (f->trace); gpu++)
    for (int x = HEADER_PX; x < width; x += 97)
      {
        SlTime a, b;
        double v = sl_timeline_view_get_util_value (SL_TIMELINE_VIEW (f->view), gpu, x + 0.5, &a,
                                                    &b);
        double want = sl_trace_gpu_utilization (f->trace, gpu, SL_UTIL_KERNELS, a, b);
        g_assert_cmpint (b, >, a);
        /* bucket edges may round differently by a nanosecond */
        g_assert_cmpfloat (fabs (v - want), <=, 2.0 / (double) (b - a) + 1e-9);
      }
}

static gsize
brute_count (SlTrace    *trace,
             const char *needle)
{
  g_autofree char *n = g_utf8_casefold (needle, -1);
  gsize count = 0;

  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      for (gsize i = 0; i < lane->n_events; i++)
        {
          g_autofree char *h = g_utf8_casefold (sl_trace_str (trace, lane->events[i].name), -1);
          if (strstr (h, n) != NULL)
            count++;
        }
    }
  return count;
}

static void
test_sample (void)
{
  Fixture f;
  g_autofree char *path = g_build_filename (SL_SOURCE_DIR, "data", "sample.sqlite", NULL);
  static const char *needles[] = { "memcpy", "KERNEL", "cudaLaunch", "sync", "no-such-name" };
  SlViewport *vp;
  SlTime start, end;
  g_autoptr (GdkTexture) t1 = NULL, t2 = NULL, t3 = NULL, t4 = NULL, t5 = NULL;
  gint kl;
  SlEventRef first;

  fixture_open (&f, path);
  vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (f.view));
  sl_viewport_get_bounds (vp, &start, &end);
  t1 = render (&f, "sample-whole-trace");
  check_util (&f);

  /* utilization follows the zoom */
  sl_viewport_set_visible (vp, start + (end - start) / 3, start + (end - start) / 3 + 2000000,
                           TRUE);
  check_util (&f);
  t2 = render (&f, "sample-2ms");
  sl_viewport_set_visible (vp, start + (end - start) / 3, start + (end - start) / 3 + 40000, TRUE);
  check_util (&f);
  t3 = render (&f, "sample-40us");

  /* search: the same count as a brute-force scan, and stepping selects matches in time order */
  for (guint i = 0; i < G_N_ELEMENTS (needles); i++)
    {
      gsize got = sl_timeline_view_set_search (SL_TIMELINE_VIEW (f.view), needles[i]);
      gsize want = brute_count (f.trace, needles[i]);
      g_test_message ("search '%s': %" G_GSIZE_FORMAT " matches", needles[i], got);
      g_assert_cmpuint (got, ==, want);
    }
  g_assert_cmpuint (sl_timeline_view_set_search (SL_TIMELINE_VIEW (f.view), "memcpy"), >, 1);
  sl_timeline_view_select_event (SL_TIMELINE_VIEW (f.view), SL_EVENT_REF_NONE, FALSE);
  sl_viewport_show_all (vp);
  g_assert_true (sl_timeline_view_search_step (SL_TIMELINE_VIEW (f.view), TRUE));
  first = sl_timeline_view_get_selected_event (SL_TIMELINE_VIEW (f.view));
  g_assert_cmpint (first.lane, >=, 0);
  {
    const SlEvent *e0 = &sl_trace_get_lane (f.trace, first.lane)->events[first.index];
    g_autofree char *name = g_utf8_casefold (sl_trace_str (f.trace, e0->name), -1);
    SlEventRef second;
    g_assert_nonnull (strstr (name, "memcpy"));
    g_assert_true (sl_timeline_view_search_step (SL_TIMELINE_VIEW (f.view), TRUE));
    second = sl_timeline_view_get_selected_event (SL_TIMELINE_VIEW (f.view));
    g_assert_cmpint (sl_trace_get_lane (f.trace, second.lane)->events[second.index].start, >=,
                     e0->start);
    g_assert_true (sl_timeline_view_search_step (SL_TIMELINE_VIEW (f.view), FALSE));
    second = sl_timeline_view_get_selected_event (SL_TIMELINE_VIEW (f.view));
    g_assert_cmpint (second.lane, ==, first.lane);
    g_assert_cmpuint (second.index, ==, first.index);
    /* nothing before the first match */
    g_assert_false (sl_timeline_view_search_step (SL_TIMELINE_VIEW (f.view), FALSE));
  }
  t4 = render (&f, "sample-search-memcpy");
  sl_timeline_view_set_search (SL_TIMELINE_VIEW (f.view), NULL);

  /* highlight one kernel name, the utilization overlay, colour by name, dark theme */
  kl = find_lane (f.trace, SL_LANE_KERNELS);
  g_assert_cmpint (kl, >=, 0);
  sl_viewport_set_visible (vp, start + (end - start) / 2, start + (end - start) / 2 + 5000000,
                           TRUE);
  {
    /* a name that runs in this window: the kernel at its middle */
    const SlLane *klane = sl_trace_get_lane (f.trace, kl);
    gsize mid = sl_lane_lower_bound (klane, start + (end - start) / 2 + 2500000);
    g_assert_cmpuint (mid, <, klane->n_events);
    sl_timeline_view_set_highlight_name (SL_TIMELINE_VIEW (f.view), klane->events[mid].name);
  }
  sl_timeline_view_set_util_overlay (SL_TIMELINE_VIEW (f.view), TRUE);
  t5 = render (&f, "sample-highlight-overlay");
  sl_timeline_view_set_highlight_name (SL_TIMELINE_VIEW (f.view), SL_NO_STR);
  sl_timeline_view_set_util_overlay (SL_TIMELINE_VIEW (f.view), FALSE);
  sl_timeline_view_set_color_mode (SL_TIMELINE_VIEW (f.view), SL_COLOR_BY_NAME);
  g_clear_object (&t5);
  t5 = render (&f, "sample-by-name");
  sl_timeline_view_set_color_mode (SL_TIMELINE_VIEW (f.view), SL_COLOR_BY_KIND);
  g_object_set (gtk_settings_get_default (), "gtk-application-prefer-dark-theme", TRUE, NULL);
  spin (100);
  g_clear_object (&t5);
  t5 = render (&f, "sample-dark");
  {
    Pixels p = pixels_get (t5);
    int r, g, b;
    pixel_rgb (&p, HEADER_PX + 5, p.h - 2, &r, &g, &b);
    g_test_message ("dark background %d %d %d", r, g, b);
    g_assert_cmpint (r + g + b, <, 3 * 90);
    g_free (p.data);
  }
  g_object_set (gtk_settings_get_default (), "gtk-application-prefer-dark-theme", FALSE, NULL);
  spin (50);
  fixture_close (&f);
}

/* Pixels in rows [y0, y1) and columns [x0, x1) drawn in the colour c. */
static int
count_colour (const Pixels  *p,
              int            x0,
              int            x1,
              int            y0,
              int            y1,
              const GdkRGBA *c)
{
  int cr = (int) lround (c->red * 255), cg = (int) lround (c->green * 255);
  int cb = (int) lround (c->blue * 255), n = 0;

  for (int y = MAX (y0, 0); y < MIN (y1, p->h); y++)
    for (int x = MAX (x0, 0); x < MIN (x1, p->w); x++)
      {
        int r, g, b;
        pixel_rgb (p, x, y, &r, &g, &b);
        n += abs (r - cr) <= 8 && abs (g - cg) <= 8 && abs (b - cb) <= 8;
      }
  return n;
}

/* The selection outline of an event that starts left of the view ends where the event ends; an
 * event entirely off screen has none (issue 13, item 7). */
static void
test_selection_clipped (void)
{
  Fixture f;
  g_autofree char *path = g_build_filename (SL_SOURCE_DIR, "data", "sample.sqlite", NULL);
  SlTimelineView *view;
  SlViewport *vp;
  const SlLane *lane;
  const SlEvent *ev = NULL;
  SlEventRef ref = SL_EVENT_REF_NONE;
  graphene_rect_t area, box;
  g_autoptr (GdkTexture) t1 = NULL, t2 = NULL;
  GdkRGBA sel;
  double end_x;
  int width, top;
  Pixels p;

  fixture_open_sized (&f, path, 1600, 300);   /* short: rows to scroll */
  view = SL_TIMELINE_VIEW (f.view);
  vp = sl_timeline_view_get_viewport (view);
  lane = sl_trace_get_lane (f.trace, find_lane (f.trace, SL_LANE_KERNELS));
  for (gsize i = lane->n_events / 3; i < lane->n_events && ev == NULL; i++)
    if (lane->events[i].end - lane->events[i].start >= 20000)
      {
        ev = &lane->events[i];
        ref = (SlEventRef) { (gint) lane->index, i };
      }
  g_assert_nonnull (ev);
  sl_timeline_view_select_event (view, ref, TRUE);
  sel = view->pal.select;
  width = gtk_widget_get_width (f.view);

  /* the view starts in the middle of the event and shows 10 of its lengths */
  sl_viewport_set_visible (vp, ev->start + (ev->end - ev->start) / 2,
                           ev->start + (ev->end - ev->start) / 2 + 10 * (ev->end - ev->start),
                           FALSE);
  spin (50);
  g_assert_true (sl_timeline_view_get_event_area (view, ref, &area));
  end_x = area.origin.x + area.size.width;
  g_assert_cmpfloat (fabs (area.origin.x - HEADER_PX), <, 1);
  g_assert_cmpfloat (end_x, <, HEADER_PX + (width - HEADER_PX) / 5.0);
  g_assert_true (sl_timeline_view_get_selection_outline (view, &box));
  g_test_message ("event ends at x %.1f, outline %.1f … %.1f", end_x, box.origin.x,
                  box.origin.x + box.size.width);
  g_assert_cmpfloat (box.origin.x, <, HEADER_PX);
  g_assert_cmpfloat (fabs (box.origin.x + box.size.width - end_x), <, 1.01);
  t1 = render (&f, "selection-starts-left");
  p = pixels_get (t1);
  top = (int) area.origin.y - 2;
  /* the outline's top edge runs along the event and stops at its end */
  g_assert_cmpint (count_colour (&p, HEADER_PX + 2, (int) end_x - 2, top, top + 2, &sel), >,
                   (int) (end_x - HEADER_PX - 4));
  g_assert_cmpint (count_colour (&p, (int) end_x + 4, width, top, top + 2, &sel), ==, 0);
  g_free (p.data);

  /* the event entirely left of the view: no outline anywhere */
  sl_viewport_set_visible (vp, ev->end + 1000, ev->end + 1000 + 10 * (ev->end - ev->start),
                           FALSE);
  spin (50);
  g_assert_false (sl_timeline_view_get_event_area (view, ref, &area));
  g_assert_false (sl_timeline_view_get_selection_outline (view, &box));
  t2 = render (&f, "selection-off-screen");
  p = pixels_get (t2);
  g_assert_cmpint (count_colour (&p, HEADER_PX + 1, width, top, top + 2, &sel), ==, 0);
  g_free (p.data);
  fixture_close (&f);
}

/* The ruler's labels at several zoom levels: each wholly inside the lanes area (the leftmost not
 * clipped by the header), in the unit of the tick spacing with at most four integer digits (no
 * "2046600 µs"), evenly spaced in value (issue 13, item 10). */
static void
test_ruler_labels (void)
{
  Fixture f;
  g_autofree char *path = g_build_filename (SL_SOURCE_DIR, "data", "sample.sqlite", NULL);
  SlTimelineView *view;
  SlViewport *vp;
  SlTime start, end;
  static const double where[] = { 0.0, 0.37, 0.9, 0.999 };
  static const SlTime span[] = { 0, 2000000, 1000000, 40000, 700, 30 };
  int width;

  fixture_open_sized (&f, path, 1600, 300);   /* short: rows to scroll */
  view = SL_TIMELINE_VIEW (f.view);
  vp = sl_timeline_view_get_viewport (view);
  sl_viewport_get_bounds (vp, &start, &end);
  width = gtk_widget_get_width (f.view);
  for (guint w = 0; w < G_N_ELEMENTS (where); w++)
    for (guint s = 0; s < G_N_ELEMENTS (span); s++)
      {
        SlTime t0 = start + (SlTime) ((double) (end - start) * where[w]);
        SlTime t1 = span[s] == 0 ? end : t0 + span[s];
        const GArray *labels;
        SlTime base;
        double prev_v = 0, gap = 0;
        g_autoptr (GdkTexture) shot = NULL;

        if (span[s] == 0 && w > 0)
          continue;
        if (t1 > end)
          {
            t0 -= t1 - end;
            t1 = end;
          }
        sl_viewport_set_visible (vp, t0, t1, FALSE);
        spin (30);
        shot = render (&f, "ruler");
        labels = sl_timeline_view_get_ruler_labels (view, &base);
        g_assert_nonnull (labels);
        g_assert_cmpuint (labels->len, >=, 4);
        for (guint i = 0; i < labels->len; i++)
          {
            const SlRulerLabel *l = &g_array_index (labels, SlRulerLabel, i);
            const char *num = l->text + (l->text[0] == '+');
            char *rest;
            double v = g_ascii_strtod (num, &rest);
            const char *dot = strchr (num, '.');
            gsize int_digits = (dot != NULL && dot < rest ? dot : rest) - num;

            if (i == 0)
              g_test_message ("[%s] %s … (%u labels, base %" G_GINT64_FORMAT ")", "ruler",
                              l->text, labels->len, base);
            g_assert_cmpfloat (l->x, >=, HEADER_PX);
            g_assert_cmpfloat (l->x + l->w, <=, width);
            g_assert_cmpfloat (l->w, >, 8);
            g_assert_cmpuint (int_digits, <=, 4);
            g_assert_true (g_str_has_suffix (l->text, " s") || g_str_has_suffix (l->text, " ms")
                           || g_str_has_suffix (l->text, " µs")
                           || g_str_has_suffix (l->text, " ns"));
            /* one unit per frame, so values step evenly */
            if (i > 0)
              g_assert_true (strcmp (strrchr (l->text, ' '),
                                     strrchr (g_array_index (labels, SlRulerLabel, 0).text,
                                              ' ')) == 0);
            if (i == 1)
              gap = v - prev_v;
            else if (i > 1)
              g_assert_cmpfloat (fabs ((v - prev_v) - gap), <=, 1e-6 * MAX (fabs (gap), 1));
            prev_v = v;
          }
        g_assert_cmpfloat (gap, >, 0);
      }
  fixture_close (&f);
}

static void
sql (const char *path,
     const char *statements)
{
  sqlite3 *db;
  char *msg = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  if (sqlite3_exec (db, statements, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s: %s", statements, msg);
  sqlite3_close (db);
}

#define LANES_CUDA_TID 130
#define LANES_STREAM_NONE "4294967295"

/* A trace laid out the way real ones are and the viewer used to show badly: ten busy workers and
 * four quiet ones (2 events) come before the thread that makes every CUDA call; GPU 1 is listed
 * before GPU 0; host waits on stream 7 (which has kernels), on stream 9 (nothing else) and on no
 * stream (a 50 ms event sync after the GPU went idle). */
static char *
write_lanes_trace (void)
{
  char *path = g_build_filename (sl_test_tmpdir (), "lanes.sqlite", NULL);
  Plant *p = plant_new (path);
  g_autofree char *edit = NULL;
  gint64 t = PLANT_MS;

  for (int k = 0; k < 10; k++)
    for (int i = 0; i < 6 + k; i++)
      plant_osrt (p, 110 + k, "pthread_cond_wait", t + i * 100 * PLANT_US,
                  t + i * 100 * PLANT_US + 50 * PLANT_US);
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < 2; i++)
      plant_osrt (p, 120 + k, "poll", t + i * PLANT_MS, t + i * PLANT_MS + 10 * PLANT_US);
  for (int i = 0; i < 20; i++)
    {
      gint64 a = t + i * 200 * PLANT_US;
      gint64 corr = plant_api (p, LANES_CUDA_TID, "cudaLaunchKernel", a, a + 5 * PLANT_US);
      plant_kernel (p, "gemm", &plant_config_full, a + 10 * PLANT_US, a + 150 * PLANT_US, corr);
    }
  plant_finish (p);
  /* names in file order: the workers, then the CUDA thread (a reader meets threads so) */
  for (int k = 0; k < 14; k++)
    {
      g_autofree char *name = g_strdup_printf (
        "INSERT INTO StringIds VALUES (%d, 'worker_%d');"
        "INSERT INTO ThreadNames VALUES (%d, 20, %" G_GINT64_FORMAT ");", 900100 + k, 110 + k,
        900100 + k, (gint64) SL_GLOBAL_TID (1, 100, 110 + k));
      sql (path, name);
    }
  edit = g_strdup_printf (
    "INSERT INTO StringIds VALUES (900001, 'trainer');"
    "INSERT INTO ThreadNames VALUES (900001, 20, %" G_GINT64_FORMAT ");"
    /* GPU 1 first in the file; the odd kernels run on it, in a context of their own */
    "CREATE TEMP TABLE g AS SELECT * FROM TARGET_INFO_GPU;"
    "UPDATE TARGET_INFO_GPU SET id = 1, busLocation = '0000:19:00.0';"
    "INSERT INTO TARGET_INFO_GPU SELECT * FROM g;"
    "INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (1, 1, 100, 'uuid-1', 132);"
    "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 1, contextId = 2 WHERE correlationId %% 2;"
    "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, contextId, streamId, "
    "  correlationId, globalPid, syncType, eventId) VALUES "
    "  (2000000, 2300000, 0, 1, 7, 0, %" G_GINT64_FORMAT ", 3, 4294967295),"
    "  (2500000, 2600000, 0, 1, 9, 0, %" G_GINT64_FORMAT ", 3, 4294967295),"
    "  (10000000, 60000000, 0, 1, " LANES_STREAM_NONE ", 0, %" G_GINT64_FORMAT ", 1, 0);",
    (gint64) SL_GLOBAL_TID (1, 100, LANES_CUDA_TID), (gint64) SL_GLOBAL_PID (1, 100),
    (gint64) SL_GLOBAL_PID (1, 100), (gint64) SL_GLOBAL_PID (1, 100));
  sql (path, edit);
  return path;
}

static gint
find_label (char      **labels,
            const char *label)
{
  for (gint i = 0; labels[i] != NULL; i++)
    {
      const char *l = labels[i];
      while (*l == ' ')
        l++;
      if (g_str_equal (l, label))
        return i;
    }
  return -1;
}

/* Lane order (issue 13, item 8): GPUs by device id, the CUDA-calling thread first, busier threads
 * before idler ones, the quiet threads folded into one collapsed group; host waits (item 9) make
 * no stream groups of their own. */
static void
test_lane_order (void)
{
  Fixture f;
  g_autofree char *path = write_lanes_trace ();
  g_auto (GStrv) labels = NULL;
  gint cuda_lane = -1, first_worker_lane = -1, quiet, prev = -1;

  fixture_open (&f, path);
  /* the file as written: the CUDA thread comes after the workers, GPU 1 before GPU 0 */
  for (guint i = 0; i < sl_trace_get_n_lanes (f.trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (f.trace, i);
      if (lane->kind == SL_LANE_CUDA_API && cuda_lane < 0)
        cuda_lane = (gint) i;
      if (lane->kind == SL_LANE_OSRT && first_worker_lane < 0)
        first_worker_lane = (gint) i;
    }
  g_assert_cmpint (cuda_lane, >, first_worker_lane);
  g_assert_cmpuint (sl_trace_get_n_gpus (f.trace), ==, 2);
  g_assert_cmpuint (sl_trace_get_gpu (f.trace, 0)->device_id, ==, 1);

  labels = sl_timeline_view_dup_row_labels (SL_TIMELINE_VIEW (f.view));
  for (guint i = 0; labels[i] != NULL; i++)
    g_test_message ("%s", labels[i]);
  /* process, then the CUDA thread */
  g_assert_cmpstr (labels[0], ==, "python3 [100]");
  g_assert_cmpstr (labels[1], ==, "  trainer (130)");
  /* the workers by activity: 119 (15 events) first, 110 (6) last of them */
  for (int k = 9; k >= 0; k--)
    {
      g_autofree char *want = g_strdup_printf ("worker_%d (%d)", 110 + k, 110 + k);
      gint at = find_label (labels, want);
      g_assert_cmpint (at, >, prev);
      prev = at;
    }
  /* the quiet ones: one collapsed group after the workers, their rows hidden */
  quiet = find_label (labels, "4 quiet threads");
  g_assert_cmpint (quiet, >, prev);
  g_assert_true (sl_timeline_view_group_collapsed (SL_TIMELINE_VIEW (f.view), "4 quiet threads"));
  g_assert_cmpint (find_label (labels, "worker_120 (120)"), <, 0);
  /* GPUs by device id */
  g_assert_cmpint (find_label (labels, "GPU 0: NVIDIA H100 80GB HBM3"), >, quiet);
  g_assert_cmpint (find_label (labels, "GPU 1: NVIDIA H100 80GB HBM3"), >,
                   find_label (labels, "GPU 0: NVIDIA H100 80GB HBM3"));
  /* host waits: with stream 7's kernels, under the context for stream 9 and no stream */
  g_assert_cmpint (find_label (labels, "No stream"), <, 0);
  g_assert_cmpint (find_label (labels, "Stream 9"), <, 0);
  g_assert_cmpint (find_label (labels, "Host waits"), >, 0);
  g_assert_cmpint (find_label (labels, "Host waits · stream 9"), >, 0);
  {
    gint s7 = find_label (labels, "Stream 7");
    g_assert_cmpint (s7, >, 0);
    g_assert_cmpstr (labels[s7 + 1], ==, "      Kernels");
    g_assert_cmpstr (labels[s7 + 2], ==, "      Host waits");
  }
  g_object_unref (render (&f, "lanes-order"));

  /* selecting an event of a quiet thread opens their group */
  for (guint i = 0; i < sl_trace_get_n_lanes (f.trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (f.trace, i);
      if (lane->thread >= 0 && sl_trace_get_thread (f.trace, lane->thread)->tid == 121)
        sl_timeline_view_select_event (SL_TIMELINE_VIEW (f.view), (SlEventRef) { (gint) i, 0 },
                                       TRUE);
    }
  g_assert_cmpint (sl_timeline_view_get_selected_event (SL_TIMELINE_VIEW (f.view)).lane, >=, 0);
  g_assert_false (sl_timeline_view_group_collapsed (SL_TIMELINE_VIEW (f.view), "4 quiet threads"));
  {
    g_auto (GStrv) after = sl_timeline_view_dup_row_labels (SL_TIMELINE_VIEW (f.view));
    g_assert_cmpint (find_label (after, "worker_121 (121)"), >,
                     find_label (after, "4 quiet threads"));
  }
  fixture_close (&f);
}

/* Host waits are never GPU busy time (item 9): the utilization over the 50 ms event sync is 0,
 * its lane is drawn as a faint box between two edges, not a solid bar. */
static void
test_host_waits (void)
{
  Fixture f;
  g_autofree char *path = write_lanes_trace ();
  SlViewport *vp;
  const SlLane *waits = NULL;
  SlEventRef ref;
  graphene_rect_t area;
  g_autoptr (GdkTexture) shot = NULL;
  Pixels p;
  GdkRGBA c;
  int edge = 0, middle = 0, x;
  guint gpu0 = 1;

  fixture_open (&f, path);
  for (guint i = 0; i < sl_trace_get_n_lanes (f.trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (f.trace, i);
      if (lane->kind == SL_LANE_SYNC && lane->stream_id == G_MAXUINT32)
        waits = lane;
    }
  g_assert_nonnull (waits);
  g_assert_cmpuint (waits->n_events, ==, 1);
  g_assert_cmpuint (sl_trace_get_gpu (f.trace, gpu0)->device_id, ==, 0);
  g_assert_cmpint (waits->gpu, ==, (gint) gpu0);
  g_assert_cmpfloat (sl_trace_gpu_utilization (f.trace, gpu0, SL_UTIL_ANY, waits->events[0].start,
                                               waits->events[0].end), ==, 0.0);
  g_assert_cmpfloat (sl_trace_gpu_utilization (f.trace, gpu0, SL_UTIL_KERNELS,
                                               waits->events[0].start, waits->events[0].end),
                     ==, 0.0);

  vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (f.view));
  sl_viewport_set_visible (vp, waits->events[0].start - 10 * PLANT_MS,
                           waits->events[0].end + 10 * PLANT_MS, FALSE);
  ref = (SlEventRef) { (gint) waits->index, 0 };
  spin (50);
  g_assert_true (sl_timeline_view_get_event_area (SL_TIMELINE_VIEW (f.view), ref, &area));
  g_assert_true (sl_timeline_view_get_event_color (SL_TIMELINE_VIEW (f.view), ref, &c));
  shot = render (&f, "host-waits");
  p = pixels_get (shot);
  x = (int) (area.origin.x + area.size.width / 2);
  edge = count_colour (&p, x - 20, x + 20, (int) area.origin.y, (int) area.origin.y + 1, &c);
  middle = count_colour (&p, x - 20, x + 20, (int) (area.origin.y + area.size.height / 2),
                         (int) (area.origin.y + area.size.height / 2) + 1, &c);
  g_test_message ("host wait: %d edge pixels, %d middle pixels in its colour", edge, middle);
  g_assert_cmpint (edge, ==, 40);
  g_assert_cmpint (middle, ==, 0);
  g_free (p.data);
  fixture_close (&f);
}

/* A process without a name is "Process [pid]", not " [pid]"; the stats panel opens on the first
 * report with rows, not on an empty kernel summary (issue 13, item 13). */
static void
test_unnamed_process_stats (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "no-kernels.sqlite", NULL);
  g_autofree char *sample = g_build_filename (SL_SOURCE_DIR, "data", "sample.sqlite", NULL);
  Plant *pl = plant_new (path);
  Fixture f;
  g_auto (GStrv) labels = NULL;
  GtkWidget *panel, *holder;

  for (int i = 0; i < 20; i++)
    {
      plant_osrt (pl, PLANT_MAIN, "read", i * PLANT_MS, i * PLANT_MS + 300 * PLANT_US);
      plant_api (pl, PLANT_MAIN, "cudaMalloc", i * PLANT_MS + 400 * PLANT_US,
                 i * PLANT_MS + 500 * PLANT_US);
    }
  plant_finish (pl);
  sql (path, "UPDATE PROCESSES SET name = ''; DELETE FROM ThreadNames");

  fixture_open (&f, path);
  labels = sl_timeline_view_dup_row_labels (SL_TIMELINE_VIEW (f.view));
  g_assert_cmpstr (labels[0], ==, "Process [100]");
  panel = sl_stats_panel_new ();
  holder = gtk_window_new ();
  gtk_window_set_child (GTK_WINDOW (holder), panel);
  sl_stats_panel_set_timeline (SL_STATS_PANEL (panel), SL_TIMELINE_VIEW (f.view), NULL);
  g_test_message ("no kernels: the panel opens on %s",
                  sl_stats_panel_get_report (SL_STATS_PANEL (panel)));
  g_assert_cmpstr (sl_stats_panel_get_report (SL_STATS_PANEL (panel)), !=, "cuda_gpu_kern_sum");
  g_assert_cmpuint (sl_stats_panel_get_n_rows (SL_STATS_PANEL (panel)), >, 0);
  sl_stats_panel_set_timeline (SL_STATS_PANEL (panel), NULL, NULL);
  fixture_close (&f);

  /* with kernels, kernels first */
  fixture_open (&f, sample);
  sl_stats_panel_set_timeline (SL_STATS_PANEL (panel), SL_TIMELINE_VIEW (f.view), NULL);
  g_assert_cmpstr (sl_stats_panel_get_report (SL_STATS_PANEL (panel)), ==, "cuda_gpu_kern_sum");
  sl_stats_panel_set_timeline (SL_STATS_PANEL (panel), NULL, NULL);
  gtk_window_destroy (GTK_WINDOW (holder));
  fixture_close (&f);
}

/* The texts of the labels inside `w`, one per line. */
static void
collect_labels (GtkWidget *w,
                GString   *out)
{
  if (GTK_IS_LABEL (w))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (w)));
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    collect_labels (c, out);
}

/* The utilization row has a scale and names its threshold; a click on the ruler's corner opens
 * a legend of the colours in the current mode, another closes it (issue 13, item 11). */
static void
test_legend (void)
{
  Fixture f;
  g_autofree char *path = g_build_filename (SL_SOURCE_DIR, "data", "sample.sqlite", NULL);
  SlTimelineView *view;
  GtkWidget *legend;
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (GdkTexture) shot = NULL;
  Pixels p;
  int dim = 0;

  fixture_open (&f, path);
  view = SL_TIMELINE_VIEW (f.view);
  sl_timeline_view_set_util_threshold (view, 0.6);
  shot = render (&f, "util-scale");
  /* the scale's ticks: dim pixels at the header's right edge, on the utilization row */
  {
    g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (view);
    g_assert_cmpint (find_label (labels, "Utilization"), >, 0);
  }
  p = pixels_get (shot);
  for (int y = 0; y < p.h; y++)
    dim += count_colour (&p, HEADER_PX - 6, HEADER_PX - 1, y, y + 1, &view->pal.dim_fg) == 5;
  g_test_message ("scale ticks: %d rows of them", dim);
  g_assert_cmpint (dim, >=, 3 * (int) sl_trace_get_n_gpus (f.trace));
  g_free (p.data);

  g_assert_null (sl_timeline_view_get_legend (view));
  sl_timeline_view_toggle_legend (view);
  spin (200);
  legend = sl_timeline_view_get_legend (view);
  g_assert_nonnull (legend);
  collect_labels (legend, text);
  g_test_message ("legend:\n%s", text->str);
  g_object_unref (render_widget (legend, "legend"));
  g_assert_nonnull (strstr (text->str, "coloured by kind"));
  g_assert_nonnull (strstr (text->str, "Kernel\n"));
  g_assert_nonnull (strstr (text->str, "NVTX range"));
  g_assert_nonnull (strstr (text->str, "Host wait"));
  g_assert_nonnull (strstr (text->str, "below 60%"));
  g_assert_nonnull (strstr (text->str, "kernels running"));
  g_assert_nonnull (strstr (text->str, "copies or sets"));
  sl_timeline_view_toggle_legend (view);
  spin (100);
  g_assert_null (sl_timeline_view_get_legend (view));

  sl_timeline_view_set_color_mode (view, SL_COLOR_BY_NAME);
  sl_timeline_view_toggle_legend (view);
  spin (200);
  g_string_truncate (text, 0);
  collect_labels (sl_timeline_view_get_legend (view), text);
  g_assert_nonnull (strstr (text->str, "coloured by name"));
  g_assert_null (strstr (text->str, "Kernel\n"));
  sl_timeline_view_toggle_legend (view);
  fixture_close (&f);
}

/* Widget y of the middle of lane `lane`'s row, -1 when it has none. */
static double
lane_y (SlTimelineView *view,
        gint            lane)
{
  const Row *r;

  if (view->lane_row[lane] < 0)
    return -1;
  r = row_get (view, view->lane_row[lane]);
  return RULER_H + r->y + r->h / 2 - gtk_adjustment_get_value (view->vadjustment);
}

static gint
kernel_lane_on_stream (SlTrace *trace,
                       guint32  stream)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind == SL_LANE_KERNELS && lane->stream_id == stream && lane->n_events > 0)
        return (gint) i;
    }
  return -1;
}

/* Pin and hide through the context menu's actions (the menu pointed where a right-click would
 * point it), and the lane filter (issue 13, item 16). */
/* A newer state of the same trace (a live update) keeps what the person did: a group collapsed,
 * the vertical scroll, the selected range and event (found again in the new trace, which
 * numbers its lanes and strings anew); a new trace (set_trace) starts afresh. */
static char *write_flame_trace (void);

static void
test_continue (void)
{
  Fixture f;
  g_autofree char *path = write_lanes_trace ();
  SlTimelineView *view;
  SlViewport *vp;
  SlTime s0 = 0, s1 = 0, b0, b1;

  fixture_open_sized (&f, path, 1600, 300);   /* short: rows to scroll */
  view = SL_TIMELINE_VIEW (f.view);
  vp = sl_timeline_view_get_viewport (view);
  {
    g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (view);
    _sl_timeline_toggle_group (view, find_label (labels, "worker_113 (113)"));
  }
  g_assert_true (sl_timeline_view_group_collapsed (view, "worker_113 (113)"));
  gint lane = kernel_lane_on_stream (f.trace, 7);
  g_assert_cmpint (lane, >=, 0);
  const SlEvent *e = &sl_trace_get_lane (f.trace, (guint) lane)->events[2];
  /* stream 7's kernels pinned, the first OS-runtime lane hidden */
  gint hide = -1;
  for (guint i = 0; i < sl_trace_get_n_lanes (f.trace) && hide < 0; i++)
    if (sl_trace_get_lane (f.trace, i)->kind == SL_LANE_OSRT)
      hide = (gint) i;
  g_assert_cmpint (hide, >=, 0);
  const SlLane *hidden_lane = sl_trace_get_lane (f.trace, (guint) hide);
  guint64 hidden_tid = sl_trace_get_thread (f.trace, hidden_lane->thread)->global_tid;
  sl_timeline_view_set_lane_pinned (view, (guint) lane, TRUE);
  sl_timeline_view_set_lane_hidden (view, (guint) hide, TRUE);
  sl_timeline_view_select_event (view, (SlEventRef) { lane, 2 }, FALSE);
  /* a context menu open on the kernel */
  graphene_rect_t area;
  g_assert_true (sl_timeline_view_get_event_area (view, (SlEventRef) { lane, 2 }, &area));
  GtkWidget *menu = sl_timeline_view_context_menu_at (view, area.origin.x + area.size.width / 2,
                                                      area.origin.y + area.size.height / 2, TRUE);
  spin (100);
  g_assert_true (gtk_widget_get_visible (menu));

  sl_viewport_get_bounds (vp, &b0, &b1);
  sl_viewport_set_selection (vp, b0 + (b1 - b0) / 4, b0 + (b1 - b0) / 2);
  double upper = gtk_adjustment_get_upper (view->vadjustment)
                 - gtk_adjustment_get_page_size (view->vadjustment);
  g_assert_cmpfloat (upper, >, 40);
  gtk_adjustment_set_value (view->vadjustment, 40);
  spin (50);

  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) again = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sl_timeline_view_continue_trace (view, again);
  spin (50);
  g_assert_true (sl_timeline_view_get_trace (view) == again);
  g_assert_true (sl_timeline_view_group_collapsed (view, "worker_113 (113)"));
  g_assert_cmpfloat (gtk_adjustment_get_value (view->vadjustment), ==, 40);
  g_assert_true (sl_viewport_get_selection (vp, &s0, &s1));
  g_assert_cmpint (s0, ==, b0 + (b1 - b0) / 4);
  g_assert_cmpint (s1, ==, b0 + (b1 - b0) / 2);
  SlEventRef sel = sl_timeline_view_get_selected_event (view);
  g_assert_cmpint (sel.lane, >=, 0);
  const SlLane *l2 = sl_trace_get_lane (again, (guint) sel.lane);
  g_assert_cmpint (l2->kind, ==, SL_LANE_KERNELS);
  g_assert_cmpint (l2->events[sel.index].start, ==, e->start);
  g_assert_cmpint (l2->events[sel.index].end, ==, e->end);
  g_assert_cmpstr (sl_trace_str (again, l2->events[sel.index].name), ==,
                   sl_trace_str (f.trace, e->name));
  g_assert_true (sl_timeline_view_get_lane_pinned (view, (guint) sel.lane));
  g_assert_cmpuint (sl_timeline_view_get_n_hidden_lanes (view), ==, 1);
  for (guint i = 0; i < sl_trace_get_n_lanes (again); i++)
    {
      const SlLane *l = sl_trace_get_lane (again, i);
      if (l->kind == SL_LANE_OSRT
          && sl_trace_get_thread (again, l->thread)->global_tid == hidden_tid)
        g_assert_cmpint (view->lane_row[i], ==, -1);
    }
  /* the kernel's menu still open, about the same kernel of the new trace (checked after the
   * selection: its Zoom to Event selects that kernel too) */
  g_assert_true (gtk_widget_get_visible (menu));
  gtk_popover_popdown (GTK_POPOVER (menu));
  sl_timeline_view_select_event (view, SL_EVENT_REF_NONE, FALSE);
  sl_viewport_show_all (vp);
  gtk_widget_activate_action (f.view, "timeline.zoom-to-event", NULL);
  {
    SlTime t0, t1;
    sl_viewport_get_visible (vp, &t0, &t1);
    g_assert_cmpint (t0, <, e->start);
    g_assert_cmpint (t1, >, e->end);
    g_assert_cmpint (t1 - t0, <, 2 * (e->end - e->start));
  }

  /* a menu on a group header stays about that group */
  {
    g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (view);
    gint gi = find_label (labels, "worker_113 (113)");
    double gy = RULER_H + row_get (view, gi)->y + 2 - gtk_adjustment_get_value (view->vadjustment);
    menu = sl_timeline_view_context_menu_at (view, 30, gy, TRUE);
  }
  spin (100);
  g_autoptr (SlTrace) third = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sl_timeline_view_continue_trace (view, third);
  spin (50);
  g_assert_true (gtk_widget_get_visible (menu));
  gtk_popover_popdown (GTK_POPOVER (menu));
  gtk_widget_activate_action (f.view, "timeline.toggle-collapse", NULL);
  g_assert_false (sl_timeline_view_group_collapsed (view, "worker_113 (113)"));

  /* on a kernel whose lane the next trace does not have (another program's): closed */
  gtk_adjustment_set_value (view->vadjustment, 0);
  spin (50);
  g_assert_true (sl_timeline_view_get_event_area (view, sl_timeline_view_get_selected_event (view),
                                                  &area));
  menu = sl_timeline_view_context_menu_at (view, area.origin.x + area.size.width / 2,
                                           area.origin.y + area.size.height / 2, TRUE);
  spin (100);
  g_assert_true (gtk_widget_get_visible (menu));
  g_assert_cmpint (view->menu_ref.lane, ==, sl_timeline_view_get_selected_event (view).lane);
  g_autofree char *flame_path = write_flame_trace ();
  g_autoptr (SlTrace) flame = sl_trace_load (flame_path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sl_timeline_view_continue_trace (view, flame);
  spin (50);
  g_assert_false (gtk_widget_get_visible (menu));

  /* another trace: none of it stays */
  g_autoptr (SlTrace) other = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sl_timeline_view_set_trace (view, other);
  spin (50);
  g_assert_false (sl_timeline_view_group_collapsed (view, "worker_113 (113)"));
  g_assert_cmpfloat (gtk_adjustment_get_value (view->vadjustment), ==, 0);
  g_assert_false (sl_viewport_get_selection (vp, &s0, &s1));
  g_assert_cmpint (sl_timeline_view_get_selected_event (view).lane, ==, -1);
  g_assert_cmpuint (sl_timeline_view_get_n_hidden_lanes (view), ==, 0);
  g_assert_false (sl_timeline_view_get_lane_pinned (view, (guint) lane));
  fixture_close (&f);
}

static void
test_lane_pin_hide_filter (void)
{
  Fixture f;
  g_autofree char *path = write_lanes_trace ();
  SlTimelineView *view;
  gint lane;
  double y0, y;
  guint n_rows;
  g_auto (GStrv) before = NULL;

  fixture_open (&f, path);
  view = SL_TIMELINE_VIEW (f.view);
  lane = kernel_lane_on_stream (f.trace, 7);
  g_assert_cmpint (lane, >=, 0);
  before = sl_timeline_view_dup_row_labels (view);
  n_rows = g_strv_length (before);
  y0 = lane_y (view, lane);
  g_assert_cmpfloat (y0, >, RULER_H + 10 * ROW_LANE_H);

  /* pin: the lane's row moves to the top, under "Pinned (1)", named by its GPU and stream */
  sl_timeline_view_context_menu_at (view, HEADER_PX / 2, y0, FALSE);
  g_assert_cmpint (sl_timeline_view_lane_at (view, y0), ==, lane);
  gtk_widget_activate_action (f.view, "timeline.pin-lane", NULL);
  g_assert_true (sl_timeline_view_get_lane_pinned (view, (guint) lane));
  y = lane_y (view, lane);
  g_assert_cmpfloat (y, ==, RULER_H + ROW_GROUP_H + ROW_LANE_H / 2);
  g_assert_cmpint (sl_timeline_view_lane_at (view, y), ==, lane);
  {
    g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (view);
    g_test_message ("pinned: %s", labels[1]);
    g_assert_cmpstr (labels[0], ==, "Pinned (1)");
    g_assert_cmpstr (labels[1], ==, "  GPU 1 · Stream 7 · Kernels");
    /* two rows more (the group, the lane); the lane's own place in the tree is gone, and with
     * it its stream's and context's groups, left empty */
    g_assert_cmpuint (g_strv_length (labels), ==, n_rows + 2 - 3);
    g_assert_cmpint (find_label (labels, "pid 100 · context 2"), <, 0);
  }
  g_object_unref (render (&f, "lanes-pinned"));
  /* unpin, from its new place: back where it was */
  sl_timeline_view_context_menu_at (view, HEADER_PX + 5, y, FALSE);
  gtk_widget_activate_action (f.view, "timeline.pin-lane", NULL);
  g_assert_false (sl_timeline_view_get_lane_pinned (view, (guint) lane));
  g_assert_cmpfloat (lane_y (view, lane), ==, y0);

  /* hide: no row; "show hidden" brings it back where it was */
  sl_timeline_view_context_menu_at (view, HEADER_PX / 2, y0, FALSE);
  gtk_widget_activate_action (f.view, "timeline.hide-lane", NULL);
  g_assert_cmpfloat (lane_y (view, lane), <, 0);
  g_assert_cmpuint (sl_timeline_view_get_n_hidden_lanes (view), ==, 1);
  {
    g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (view);
    g_assert_cmpuint (g_strv_length (labels), ==, n_rows - 3);
    g_assert_cmpint (find_label (labels, "pid 100 · context 2"), <, 0);
    g_assert_cmpint (find_label (labels, "GPU 1: NVIDIA H100 80GB HBM3"), >, 0);
  }
  gtk_widget_activate_action (f.view, "timeline.show-hidden-lanes", NULL);
  g_assert_cmpuint (sl_timeline_view_get_n_hidden_lanes (view), ==, 0);
  g_assert_cmpfloat (lane_y (view, lane), ==, y0);
  /* selecting an event of a hidden lane shows it again */
  sl_timeline_view_set_lane_hidden (view, (guint) lane, TRUE);
  g_assert_cmpfloat (lane_y (view, lane), <, 0);
  sl_timeline_view_select_event (view, (SlEventRef) { lane, 0 }, TRUE);
  g_assert_cmpuint (sl_timeline_view_get_n_hidden_lanes (view), ==, 0);
  g_assert_cmpint (view->lane_row[lane], >=, 0);
  sl_timeline_view_select_event (view, SL_EVENT_REF_NONE, FALSE);
  gtk_adjustment_set_value (view->vadjustment, 0);

  /* the filter: rows whose title or an ancestor's holds the text, and their ancestors */
  sl_timeline_view_set_lane_filter (view, "WORKER_11");
  {
    g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (view);
    for (guint i = 0; labels[i] != NULL; i++)
      g_test_message ("filter worker_11: %s", labels[i]);
    g_assert_cmpstr (labels[0], ==, "python3 [100]");
    for (int k = 0; k < 10; k++)
      {
        g_autofree char *want = g_strdup_printf ("worker_%d (%d)", 110 + k, 110 + k);
        gint at = find_label (labels, want);
        g_assert_cmpint (at, >, 0);
        g_assert_cmpstr (labels[at + 1], ==, "    OS runtime");
      }
    g_assert_cmpint (find_label (labels, "trainer (130)"), <, 0);
    g_assert_cmpint (find_label (labels, "worker_120 (120)"), <, 0);
    g_assert_cmpint (find_label (labels, "Utilization"), <, 0);
    g_assert_cmpuint (g_strv_length (labels), ==, 1 + 10 * 2);
  }
  /* a group collapsed by hand stays so under the filter */
  {
    g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (view);
    _sl_timeline_toggle_group (view, find_label (labels, "worker_113 (113)"));
  }
  {
    g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (view);
    gint at = find_label (labels, "worker_113 (113)");
    g_assert_true (sl_timeline_view_group_collapsed (view, "worker_113 (113)"));
    g_assert_cmpstr (labels[at + 1], ==, "  worker_112 (112)");
    g_assert_cmpuint (g_strv_length (labels), ==, 1 + 10 * 2 - 1);
    _sl_timeline_toggle_group (view, at);
  }
  /* a group's match keeps all below it, collapsed or not (the quiet threads are) */
  sl_timeline_view_set_lane_filter (view, "quiet");
  {
    g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (view);
    g_assert_cmpint (find_label (labels, "4 quiet threads"), ==, 1);
    g_assert_cmpint (find_label (labels, "worker_120 (120)"), >, 1);
    g_assert_cmpint (find_label (labels, "worker_119 (119)"), <, 0);
  }
  /* a stream: its GPU and context above it, its lanes below, not the other streams */
  sl_timeline_view_set_lane_filter (view, "stream 7");
  {
    g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (view);
    gint s7 = find_label (labels, "Stream 7");
    for (guint i = 0; labels[i] != NULL; i++)
      g_test_message ("filter stream 7: %s", labels[i]);
    g_assert_cmpstr (labels[0], ==, "GPU 0: NVIDIA H100 80GB HBM3");
    g_assert_cmpint (s7, ==, 2);
    g_assert_cmpstr (labels[s7 + 1], ==, "      Kernels");
    g_assert_cmpint (find_label (labels, "Host waits · stream 9"), <, 0);
    g_assert_cmpint (find_label (labels, "python3 [100]"), <, 0);
    g_assert_cmpfloat (lane_y (view, lane), >, RULER_H);
  }
  g_object_unref (render (&f, "lanes-filtered"));
  /* the menu's "clear" brings every row back */
  gtk_widget_activate_action (f.view, "timeline.clear-lane-filter", NULL);
  g_assert_null (sl_timeline_view_get_lane_filter (view));
  g_assert_cmpfloat (lane_y (view, lane), ==, y0);
  fixture_close (&f);
}

static void
find_name_cb (SlTimelineView *view,
              const char     *name,
              char          **out)
{
  (void) view;
  g_free (*out);
  *out = g_strdup (name);
}

static void
show_in_table_cb (SlTimelineView *view,
                  gint            lane,
                  gint           *out)
{
  (void) view;
  *out = lane;
}

static void
menu_labels (GMenuModel *model,
             GString    *out)
{
  for (gint i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *label = NULL;
      g_autoptr (GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);
      if (section != NULL)
        menu_labels (section, out);
      else if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_LABEL, "s", &label))
        g_string_append_printf (out, "%s\n", label);
    }
}

static char *
clipboard_text (GtkWidget *w)
{
  GdkContentProvider *content = gdk_clipboard_get_content (gtk_widget_get_clipboard (w));
  GValue v = G_VALUE_INIT;
  char *text;

  g_assert_nonnull (content);
  g_value_init (&v, G_TYPE_STRING);
  g_assert_true (gdk_content_provider_get_value (content, &v, NULL));
  text = g_value_dup_string (&v);
  g_value_unset (&v);
  return text;
}

/* The context menu on an event and on a group's header: each action does what it says. */
static void
test_context_menu (void)
{
  Fixture f;
  g_autofree char *path = write_lanes_trace ();
  g_autofree char *found = NULL;
  g_autofree char *copied = NULL;
  g_autoptr (GString) items = g_string_new (NULL);
  SlTimelineView *view;
  SlEventRef ref;
  const SlEvent *ev;
  graphene_rect_t area;
  GtkWidget *menu;
  gint table_lane = -1;
  SlTime t0, t1;
  double qy;

  fixture_open (&f, path);
  view = SL_TIMELINE_VIEW (f.view);
  g_signal_connect (view, "find-name", G_CALLBACK (find_name_cb), &found);
  g_signal_connect (view, "show-in-events-table", G_CALLBACK (show_in_table_cb), &table_lane);
  ref.lane = kernel_lane_on_stream (f.trace, 7);
  g_assert_cmpint (ref.lane, >=, 0);
  /* GPU 0's, higher up in the view, with the process collapsed: room for the menu below it
   * (Xvfb's screen is 1280 × 1024) */
  _sl_timeline_toggle_group (view, 0);
  for (guint i = 0; i < sl_trace_get_n_lanes (f.trace); i++)
    {
      const SlLane *l = sl_trace_get_lane (f.trace, i);
      if (l->kind == SL_LANE_KERNELS && l->stream_id == 7 && l->n_events > 3
          && view->lane_row[i] >= 0 && view->lane_row[i] < view->lane_row[ref.lane])
        ref.lane = (gint) i;
    }
  ref.index = 3;
  ev = &sl_trace_get_lane (f.trace, ref.lane)->events[ref.index];
  /* a view where the kernel is a box of its own */
  sl_viewport_set_visible (sl_timeline_view_get_viewport (view),
                           ev->start - (ev->end - ev->start) * 5,
                           ev->end + (ev->end - ev->start) * 5, FALSE);
  spin (50);
  g_assert_true (sl_timeline_view_get_event_area (view, ref, &area));

  menu = sl_timeline_view_context_menu_at (view, area.origin.x + area.size.width / 2,
                                           area.origin.y + area.size.height / 2, TRUE);
  g_assert_nonnull (menu);
  spin (200);
  g_assert_true (gtk_widget_get_visible (menu));
  menu_labels (gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (menu)), items);
  g_test_message ("menu on a kernel:\n%s", items->str);
  g_assert_nonnull (strstr (items->str, "Copy Name\nFind All “gemm”\nZoom to Event\n"
                                        "Show in Events Table\nPin Lane to Top\nHide Lane\n"));
  g_assert_nonnull (strstr (items->str, "Filter Lanes…"));
  g_object_unref (render_widget (menu, "timeline-context-menu"));
  gtk_popover_popdown (GTK_POPOVER (menu));
  spin (50);

  gtk_widget_activate_action (f.view, "timeline.copy-name", NULL);
  copied = clipboard_text (f.view);
  g_assert_cmpstr (copied, ==, "gemm");
  gtk_widget_activate_action (f.view, "timeline.find-name", NULL);
  g_assert_cmpstr (found, ==, "gemm");
  gtk_widget_activate_action (f.view, "timeline.show-in-events-table", NULL);
  g_assert_cmpint (table_lane, ==, ref.lane);
  g_assert_cmpint (sl_timeline_view_get_selected_event (view).lane, ==, ref.lane);
  g_assert_cmpuint (sl_timeline_view_get_selected_event (view).index, ==, ref.index);
  sl_viewport_show_all (sl_timeline_view_get_viewport (view));
  gtk_widget_activate_action (f.view, "timeline.zoom-to-event", NULL);
  sl_viewport_get_visible (sl_timeline_view_get_viewport (view), &t0, &t1);
  g_assert_cmpint (t0, <, ev->start);
  g_assert_cmpint (t1, >, ev->end);
  g_assert_cmpint (t1 - t0, <, 2 * (ev->end - ev->start));

  /* on a group's header: expand, copy its name; nothing about events */
  _sl_timeline_toggle_group (view, 0);
  {
    g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (view);
    gint qi = find_label (labels, "4 quiet threads");
    g_assert_cmpint (qi, >, 0);
    qy = RULER_H + row_get (view, qi)->y + 2 - gtk_adjustment_get_value (view->vadjustment);
  }
  g_assert_true (sl_timeline_view_group_collapsed (view, "4 quiet threads"));
  menu = sl_timeline_view_context_menu_at (view, 30, qy, TRUE);
  spin (200);
  g_string_truncate (items, 0);
  menu_labels (gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (menu)), items);
  gtk_popover_popdown (GTK_POPOVER (menu));
  spin (50);
  g_test_message ("menu on a group:\n%s", items->str);
  g_assert_nonnull (strstr (items->str, "Expand\nCopy Name\n"));
  g_assert_null (strstr (items->str, "Find All"));
  g_assert_null (strstr (items->str, "Hide Lane"));
  gtk_widget_activate_action (f.view, "timeline.copy-name", NULL);
  g_free (copied);
  copied = clipboard_text (f.view);
  g_assert_cmpstr (copied, ==, "4 quiet threads");
  gtk_widget_activate_action (f.view, "timeline.toggle-collapse", NULL);
  g_assert_false (sl_timeline_view_group_collapsed (view, "4 quiet threads"));
  /* the actions of an event do nothing here */
  g_clear_pointer (&found, g_free);
  gtk_widget_activate_action (f.view, "timeline.find-name", NULL);
  g_assert_null (found);
  fixture_close (&f);
}

/* One real right-click, through the gesture: xdotool moves the X pointer onto a kernel and
 * presses button 3; the menu opens about that kernel. */
static void
test_context_menu_click (void)
{
#ifdef GDK_WINDOWING_X11
  Fixture f;
  g_autofree char *path = write_lanes_trace ();
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  g_autofree char *cmd = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) items = g_string_new (NULL);
  SlTimelineView *view;
  GdkSurface *surface;
  graphene_point_t at;
  graphene_rect_t area;
  SlEventRef ref;
  const SlEvent *ev;
  gint status = -1;

  if (xdotool == NULL || !GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    {
      g_test_skip ("needs xdotool on X11");
      return;
    }
  fixture_open (&f, path);
  view = SL_TIMELINE_VIEW (f.view);
  ref.lane = kernel_lane_on_stream (f.trace, 7);
  ref.index = 5;
  ev = &sl_trace_get_lane (f.trace, ref.lane)->events[ref.index];
  sl_viewport_set_visible (sl_timeline_view_get_viewport (view), ev->start - (ev->end - ev->start),
                           ev->end + (ev->end - ev->start), FALSE);
  spin (50);
  g_assert_true (sl_timeline_view_get_event_area (view, ref, &area));
  at = GRAPHENE_POINT_INIT (area.origin.x + area.size.width / 2, area.origin.y + 3);
  g_assert_true (gtk_widget_compute_point (f.view, f.window, &at, &at));
  surface = gtk_native_get_surface (GTK_NATIVE (f.window));
  cmd = g_strdup_printf ("%s mousemove --sync --window %lu %d %d click 3", xdotool,
                         (gulong) gdk_x11_surface_get_xid (surface), (int) at.x, (int) at.y);
  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  spin (300);
  g_assert_nonnull (view->menu);
  g_assert_true (gtk_widget_get_visible (view->menu));
  g_assert_cmpint (view->menu_ref.lane, ==, ref.lane);
  g_assert_cmpuint (view->menu_ref.index, ==, ref.index);
  menu_labels (gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (view->menu)), items);
  g_assert_nonnull (strstr (items->str, "Find All “gemm”"));
  gtk_popover_popdown (GTK_POPOVER (view->menu));
  spin (50);
  gtk_widget_activate_action (f.view, "timeline.pin-lane", NULL);
  g_assert_true (sl_timeline_view_get_lane_pinned (view, (guint) ref.lane));

  /* Ctrl+L opens the lane filter's entry; typing there filters */
  gtk_widget_grab_focus (f.view);
  g_free (cmd);
  cmd = g_strdup_printf ("%s key --window %lu ctrl+l", xdotool,
                         (gulong) gdk_x11_surface_get_xid (surface));
  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  spin (300);
  g_assert_nonnull (sl_timeline_view_get_filter_popover (view));
  gtk_editable_set_text (GTK_EDITABLE (gtk_popover_get_child (
                           GTK_POPOVER (sl_timeline_view_get_filter_popover (view)))), "Trainer");
  spin (400);   /* the entry's search-changed comes after a delay */
  g_assert_cmpstr (sl_timeline_view_get_lane_filter (view), ==, "trainer");
  gtk_popover_popdown (GTK_POPOVER (sl_timeline_view_get_filter_popover (view)));
  spin (100);

  /* with a lane filter on, a click on the header corner (which names it) opens its entry */
  sl_timeline_view_set_lane_filter (view, "stream");
  g_assert_null (sl_timeline_view_get_filter_popover (view));
  g_assert_true (gtk_widget_compute_point (f.view, f.window, &GRAPHENE_POINT_INIT (20, 15), &at));
  g_free (cmd);
  cmd = g_strdup_printf ("%s mousemove --sync --window %lu %d %d click 1", xdotool,
                         (gulong) gdk_x11_surface_get_xid (surface), (int) at.x, (int) at.y);
  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  spin (300);
  g_assert_nonnull (sl_timeline_view_get_filter_popover (view));
  g_object_unref (render_widget (sl_timeline_view_get_filter_popover (view), "lane-filter-entry"));
  g_object_unref (render (&f, "lane-filter-corner"));
  fixture_close (&f);
#else
  g_test_skip ("needs X11");
#endif
}

/* ------------------------------------------------------------------------------------------- */
/* CPU samples as a flame chart                                                                 */

#define FLAME_T0 (10 * PLANT_MS)
#define FLAME_DT PLANT_MS

/* Sample i of the flame trace's main thread: 1 ms apart, a 50 ms pause before sample 100. */
static gint64
flame_time (int i)
{
  return FLAME_T0 + i * FLAME_DT + (i >= 100 ? 50 * PLANT_MS : 0);
}

/* Samples first … last - 1 of the main thread, each with the stack of the names at `stack` (root
 * first, -1 after the last), as SQL into q. */
static void
flame_samples (GString   *q,
               int        first,
               int        last,
               const int *stack)
{
  int len = 0;

  while (stack[len] >= 0)
    len++;
  for (int i = first; i < last; i++)
    {
      g_string_append_printf (q, "INSERT INTO COMPOSITE_EVENTS VALUES (%d, %" G_GINT64_FORMAT
                                 ", 0, 1, %" G_GINT64_FORMAT ", 0);",
                              5000 + i, flame_time (i),
                              (gint64) SL_GLOBAL_TID (1, 100, PLANT_MAIN));
      /* stackDepth 0 is the leaf */
      for (int d = 0; d < len; d++)
        g_string_append_printf (q, "INSERT INTO SAMPLING_CALLCHAINS VALUES (%d, %d, 800100, 0, "
                                   "0, 0, NULL, NULL, 7, %d);",
                                5000 + i, 800000 + stack[len - 1 - d], d);
    }
}

/*
 * A trace whose main thread has 122 samples of known stacks (root first), written with SQL:
 *   0 … 39   main train forward matmul
 *   40 … 69  main train backward
 *   70 … 99  main load read
 *   (50 ms without samples)
 *   100 … 109 main load read
 *   110 … 119 main train read      ("read" again, under another parent)
 *   120, 121  main a b c d e f g h i  (10 deep)
 */
static char *
write_flame_trace (void)
{
  char *path = g_build_filename (sl_test_tmpdir (), "flame.sqlite", NULL);
  static const char *const names[] = { "main", "train", "forward", "matmul", "backward", "load",
                                       "read", "a", "b", "c", "d", "e", "f", "g", "h", "i" };
  static const int stacks[][11] = {
    { 0, 1, 2, 3, -1 }, { 0, 1, 4, -1 }, { 0, 5, 6, -1 }, { 0, 5, 6, -1 }, { 0, 1, 6, -1 },
    { 0, 7, 8, 9, 10, 11, 12, 13, 14, 15, -1 },
  };
  static const int from[] = { 0, 40, 70, 100, 110, 120, 122 };
  Plant *p = plant_new (path);
  GString *q = g_string_new ("BEGIN;");

  plant_api (p, PLANT_MAIN, "cudaLaunchKernel", FLAME_T0, FLAME_T0 + 5 * PLANT_US);
  plant_finish (p);
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    g_string_append_printf (q, "INSERT INTO StringIds VALUES (%u, '%s');", 800000 + k, names[k]);
  g_string_append (q, "INSERT INTO StringIds VALUES (800100, 'libflame.so');");
  for (guint s = 0; s + 1 < G_N_ELEMENTS (from); s++)
    flame_samples (q, from[s], from[s + 1], stacks[s]);
  g_string_append (q, "COMMIT;");
  sql (path, q->str);
  g_string_free (q, TRUE);
  return path;
}

static void
assert_flame_box (SlTimelineView *view,
                  guint           lane,
                  guint           depth,
                  int             sample,
                  int             first,
                  int             last,
                  gint64          end)
{
  SlTime a, b;
  guint n;

  g_assert_true (sl_timeline_view_get_flame_box (view, lane, depth, sample, &a, &b, &n));
  g_test_message ("depth %u, sample %d: [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "), %u samples",
                  depth, sample, a, b, n);
  g_assert_cmpint (a, ==, flame_time (first));
  g_assert_cmpint (b, ==, end);
  g_assert_cmpuint (n, ==, last - first + 1);
}

/* Issue 14, item 4: samples drawn as a flame chart by stack depth: boxes merge consecutive
 * samples with the same frames from the root down, span to the next sample (a sampling interval
 * past the last), break at a pause, never merge under another parent; coloured by function,
 * labelled; a click selects a sample; deep stacks show a few levels until the header is
 * clicked. */
static void
test_flame (void)
{
  Fixture f;
  g_autofree char *path = write_flame_trace ();
  SlTimelineView *view;
  gint lane = -1, row;
  g_auto (GStrv) labels = NULL;
  g_autoptr (GdkTexture) shot = NULL;
  SlEventRef ref;
  SlTime t0, t1;
  graphene_rect_t area;
  Pixels px;
  GdkRGBA matmul;
  int hits = 0;

  fixture_open (&f, path);
  view = SL_TIMELINE_VIEW (f.view);
  lane = find_lane (f.trace, SL_LANE_SAMPLES);
  g_assert_cmpint (lane, >=, 0);
  g_assert_cmpuint (sl_trace_get_lane (f.trace, lane)->n_events, ==, 122);
  /* the first frame that showed the lane started its build on a thread; it lands by itself */
  {
    gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
    while (!_sl_timeline_flame_built (view, lane) && g_get_monotonic_time () < until)
      spin (20);
    g_assert_true (_sl_timeline_flame_built (view, lane));
  }

  /* depth 0: "main" from sample 0 up to the pause, then again after it */
  assert_flame_box (view, lane, 0, 50, 0, 99, flame_time (99) + FLAME_DT + FLAME_DT / 2);
  assert_flame_box (view, lane, 0, 100, 100, 121, flame_time (121) + FLAME_DT + FLAME_DT / 2);
  /* depth 1: "train" up to the next sample after its last, "load" to the pause */
  assert_flame_box (view, lane, 1, 0, 0, 69, flame_time (70));
  assert_flame_box (view, lane, 1, 75, 70, 99, flame_time (99) + FLAME_DT + FLAME_DT / 2);
  assert_flame_box (view, lane, 1, 105, 100, 109, flame_time (110));
  /* depth 2: forward, backward; "read" under "load" and under "train" are two boxes */
  assert_flame_box (view, lane, 2, 39, 0, 39, flame_time (40));
  assert_flame_box (view, lane, 2, 40, 40, 69, flame_time (70));
  assert_flame_box (view, lane, 2, 109, 100, 109, flame_time (110));
  assert_flame_box (view, lane, 2, 110, 110, 119, flame_time (120));
  /* depth 3: matmul only under forward; nothing under backward */
  assert_flame_box (view, lane, 3, 20, 0, 39, flame_time (40));
  {
    SlTime a, b;
    guint n;
    g_assert_false (sl_timeline_view_get_flame_box (view, lane, 3, 50, &a, &b, &n));
    /* the deep stack, depth 9 */
    g_assert_true (sl_timeline_view_get_flame_box (view, lane, 9, 121, &a, &b, &n));
    g_assert_cmpuint (n, ==, 2);
  }

  /* 10 levels deep: a few shown until the header is clicked */
  labels = sl_timeline_view_dup_row_labels (view);
  g_assert_cmpint (find_label (labels, "CPU samples · 4 of 10 levels ▸"), >=, 0);
  row = view->lane_row[lane];
  g_assert_cmpfloat (row_get (view, row)->h, ==, FLAME_ROWS_COLLAPSED * FLAME_ROW_H + 2);
  _sl_timeline_toggle_group (view, row);
  g_clear_pointer (&labels, g_strfreev);
  labels = sl_timeline_view_dup_row_labels (view);
  g_assert_cmpint (find_label (labels, "CPU samples · 10 levels"), >=, 0);
  row = view->lane_row[lane];
  g_assert_cmpfloat (row_get (view, row)->h, ==, 10 * FLAME_ROW_H + 2);

  /* drawn: the matmul box of depth 3 in matmul's colour, nothing at depth 3 under backward */
  sl_viewport_set_visible (sl_timeline_view_get_viewport (view), flame_time (0) - 2 * PLANT_MS,
                           flame_time (121) + 4 * PLANT_MS, FALSE);
  spin (50);
  shot = render (&f, "flame");
  px = pixels_get (shot);
  {
    double y0 = RULER_H + row_get (view, row)->y - scroll_y (view) + 1;
    double yd3 = y0 + 3 * FLAME_ROW_H + FLAME_ROW_H / 2;
    double xa = time_to_x (view, flame_time (5)), xb = time_to_x (view, flame_time (35));
    double xc = time_to_x (view, flame_time (55) + FLAME_DT / 2);
    guint32 id = 0;
    for (guint s = 0; s < sl_trace_get_n_strs (f.trace); s++)
      if (g_str_equal (sl_trace_str (f.trace, s), "matmul"))
        id = s;
    g_assert_cmpuint (id, !=, 0);
    matmul = _sl_timeline_flame_color (view, id);
    g_assert_cmpint (count_colour (&px, (int) xa, (int) xb, (int) yd3, (int) yd3 + 1, &matmul),
                     >, (int) (xb - xa) / 2);
    g_assert_cmpint (count_colour (&px, (int) xc - 5, (int) xc + 5, (int) yd3, (int) yd3 + 1,
                                   &matmul), ==, 0);

    /* a click on depth 2 over "backward" selects one of its samples; the box is the item */
    g_assert_true (_sl_timeline_item_at (view, xc, y0 + 2 * FLAME_ROW_H + 4, &ref, &t0, &t1));
    g_assert_cmpint (ref.lane, ==, lane);
    g_assert_cmpuint (ref.index, ==, 55);
    g_assert_cmpint (t0, ==, flame_time (40));
    g_assert_cmpint (t1, ==, flame_time (70));
    hits++;
    {
      g_autofree char *tip = _sl_timeline_flame_tooltip (view, sl_trace_get_lane (f.trace, lane),
                                                         xc, 1 + 2 * FLAME_ROW_H + 4);
      g_test_message ("%s", tip);
      g_assert_nonnull (tip);
      g_assert_true (g_str_has_prefix (tip, "backward\nlibflame.so\n"));
      g_assert_nonnull (strstr (tip, "30 samples"));
    }
    /* below the deepest frame of that stack: nothing */
    g_assert_false (_sl_timeline_item_at (view, xc, y0 + 5 * FLAME_ROW_H + 4, &ref, &t0, &t1));
    sl_timeline_view_select_event (view, (SlEventRef) { lane, 55 }, FALSE);
    g_assert_true (sl_timeline_view_get_event_area (view, (SlEventRef) { lane, 55 }, &area));
  }
  g_free (px.data);
  g_assert_cmpint (hits, ==, 1);

  /* a newer state of the trace (a live update) keeps the lane expanded; another trace does not */
  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr (SlTrace) again = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, NULL);
      g_assert_nonnull (again);
      if (pass == 0)
        sl_timeline_view_continue_trace (view, again);
      else
        sl_timeline_view_set_trace (view, again);
      gint same = find_lane (again, SL_LANE_SAMPLES);
      gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
      while (!_sl_timeline_flame_built (view, same) && g_get_monotonic_time () < until)
        spin (20);
      g_assert_true (_sl_timeline_flame_built (view, same));
      g_auto (GStrv) now = sl_timeline_view_dup_row_labels (view);
      g_assert_cmpint (find_label (now, pass == 0 ? "CPU samples · 10 levels"
                                                  : "CPU samples · 4 of 10 levels ▸"), >=, 0);
      sl_timeline_view_set_trace (view, f.trace);
    }

  /* a live update (an append: string ids kept) draws the old flame until its own is built: the
   * first frame after it the same as the last before, not ticks */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (SlTrace) live = sl_trace_load (path, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL, NULL,
                                              &error);
    g_assert_no_error (error);
    sl_timeline_view_set_trace (view, live);
    gint l = find_lane (live, SL_LANE_SAMPLES);
    SlViewport *vp = sl_timeline_view_get_viewport (view);
    sl_viewport_set_visible (vp, flame_time (0) - 2 * PLANT_MS, flame_time (121) + 4 * PLANT_MS,
                             FALSE);
    gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
    while (!_sl_timeline_flame_built (view, l) && g_get_monotonic_time () < until)
      {
        g_bytes_unref (frame_now (f.view));   /* drawing asks for the build */
        spin (20);
      }
    g_assert_true (_sl_timeline_flame_built (view, l));
    g_autoptr (GBytes) before = frame_now (f.view);
    g_autoptr (SlTrace) next = sl_trace_append (live, NULL, &error);
    g_assert_no_error (error);
    sl_timeline_view_continue_trace (view, next);
    sl_viewport_set_visible (vp, flame_time (0) - 2 * PLANT_MS, flame_time (121) + 4 * PLANT_MS,
                             FALSE);
    gint same = find_lane (next, SL_LANE_SAMPLES);
    g_assert_true (_sl_timeline_flame_stale (view, same));
    g_assert_false (_sl_timeline_flame_built (view, same));
    g_autoptr (GBytes) after = frame_now (f.view);
    g_assert_true (g_bytes_equal (before, after));
    until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
    while (!_sl_timeline_flame_built (view, same) && g_get_monotonic_time () < until)
      spin (20);
    g_assert_true (_sl_timeline_flame_built (view, same));
    g_assert_false (_sl_timeline_flame_stale (view, same));
    /* built by going on from the old flame: what a build from scratch gives */
    g_assert_true (_sl_timeline_flame_extended (view, same));
    g_assert_true (_sl_timeline_flame_check (view, same));

    /* new samples committed: the flame goes on from the old one's last sample (the 10-deep
     * stack continued, then others, then one a level deeper than any before) */
    static const int more[][12] = {
      { 0, 7, 8, 9, 10, 11, 12, 13, 14, 15, -1 }, { 0, 1, 2, 3, -1 },
      { 0, 7, 8, 9, 10, 11, 12, 13, 14, 15, 3, -1 },
    };
    static const int more_from[] = { 122, 126, 136, 138 };
    GString *q = g_string_new ("BEGIN;");
    for (guint k = 0; k + 1 < G_N_ELEMENTS (more_from); k++)
      flame_samples (q, more_from[k], more_from[k + 1], more[k]);
    g_string_append (q, "COMMIT;");
    sql (path, q->str);
    g_string_free (q, TRUE);
    g_autoptr (SlTrace) grown = sl_trace_append (next, NULL, &error);
    g_assert_no_error (error);
    sl_timeline_view_continue_trace (view, grown);
    same = find_lane (grown, SL_LANE_SAMPLES);
    g_assert_cmpuint (sl_trace_get_lane (grown, same)->n_events, ==, 138);
    g_assert_true (_sl_timeline_flame_stale (view, same));
    until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
    while (!_sl_timeline_flame_built (view, same) && g_get_monotonic_time () < until)
      {
        g_bytes_unref (frame_now (f.view));
        spin (20);
      }
    g_assert_true (_sl_timeline_flame_built (view, same));
    g_assert_true (_sl_timeline_flame_extended (view, same));
    g_assert_true (_sl_timeline_flame_check (view, same));
    g_auto (GStrv) grown_labels = sl_timeline_view_dup_row_labels (view);
    g_assert_cmpint (find_label (grown_labels, "CPU samples · 4 of 11 levels ▸"), >=, 0);
  }
  fixture_close (&f);
}

/* Issue 17: `sightline record -- torchrun …` records each rank's process with its rank
 * (SL_PROCESS_INFO.rank): the process's title starts with it, its tooltip says it; a process
 * without one (torchrun itself) is titled as before. */
static void
test_process_ranks (void)
{
  Fixture f;
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "ranks.sqlite", NULL);
  Plant *p = plant_new (path);
  GString *q = g_string_new ("BEGIN; INSERT INTO StringIds VALUES (900500, 'read');"
                             "CREATE TABLE SL_PROCESS_INFO (globalPid INTEGER NOT NULL, pid "
                             "INTEGER NOT NULL, parentPid INTEGER, commandLine TEXT, rank "
                             "INTEGER);");
  static const int pids[] = { 200, 201, 202 };
  g_auto (GStrv) labels = NULL;

  plant_api (p, PLANT_MAIN, "cudaLaunchKernel", PLANT_MS, PLANT_MS + 5 * PLANT_US);
  plant_finish (p);
  for (guint k = 0; k < G_N_ELEMENTS (pids); k++)
    {
      g_string_append_printf (q, "INSERT INTO PROCESSES VALUES (%" G_GINT64_FORMAT ", %d, '%s');"
                                 "INSERT INTO OSRT_API VALUES (%" G_GINT64_FORMAT ", %"
                                 G_GINT64_FORMAT ", 27, %" G_GINT64_FORMAT ", 900500, 0, 0, 0,"
                                 " 0);",
                              (gint64) SL_GLOBAL_PID (1, pids[k]), pids[k], "python3",
                              (gint64) (2 + k) * PLANT_MS, (gint64) (3 + k) * PLANT_MS,
                              (gint64) SL_GLOBAL_TID (1, pids[k], pids[k]));
      if (k == 0)
        g_string_append_printf (q, "INSERT INTO SL_PROCESS_INFO VALUES (%" G_GINT64_FORMAT
                                   ", 200, 1, 'python3 /usr/bin/torchrun train.py', NULL);",
                                (gint64) SL_GLOBAL_PID (1, 200));
      else
        g_string_append_printf (q, "INSERT INTO SL_PROCESS_INFO VALUES (%" G_GINT64_FORMAT
                                   ", %d, 200, 'python3 train.py', %u);",
                                (gint64) SL_GLOBAL_PID (1, pids[k]), pids[k], k - 1);
    }
  g_string_append (q, "COMMIT;");
  sql (path, q->str);
  g_string_free (q, TRUE);

  fixture_open (&f, path);
  labels = sl_timeline_view_dup_row_labels (SL_TIMELINE_VIEW (f.view));
  for (guint i = 0; labels[i] != NULL; i++)
    g_test_message ("%s", labels[i]);
  g_assert_cmpint (find_label (labels, "python3 [200] /usr/bin/torchrun train.py"), >=, 0);
  /* under torchrun, one level in */
  gint r0 = find_label (labels, "rank 0 · python3 [201] train.py");
  gint r1 = find_label (labels, "rank 1 · python3 [202] train.py");
  g_assert_cmpint (r0, >=, 0);
  g_assert_cmpint (r1, >=, 0);
  g_assert_true (g_str_has_prefix (labels[r0], "  rank 0"));
  g_autofree char *tip = _sl_timeline_row_tooltip (SL_TIMELINE_VIEW (f.view), r1);
  g_assert_nonnull (tip);
  g_assert_nonnull (strstr (tip, "Rank: 1"));
  g_object_unref (render (&f, "process-ranks"));
  fixture_close (&f);
}

/* Issue 17, item 1: two ranks' traces merged (sightline --merge): a group per file, titled by its
 * rank and file, holding that file's processes and GPUs; the two GPU 0s are two groups (folding
 * one leaves the other open); the CPU's and GPU's rows of each rank drawn. */
static void
test_merged_ranks (void)
{
  Fixture f;
  g_autofree char *a = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-0.json.gz");
  g_autofree char *b = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-1.json.gz");
  const char *paths[] = { a, b };
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) labels = NULL;
  gint64 deadline;

  f.trace = sl_trace_load_merged (paths, 2, SL_LOAD_ALL, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_sources (f.trace), ==, 2);
  f.window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f.window), 1600, 900);
  f.view = sl_timeline_view_new ();
  gtk_window_set_child (GTK_WINDOW (f.window), f.view);
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (f.view), f.trace);
  gtk_window_present (GTK_WINDOW (f.window));
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((!gtk_widget_get_mapped (f.view) || gtk_widget_get_width (f.view) < 1000)
         && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  spin (100);

  labels = sl_timeline_view_dup_row_labels (SL_TIMELINE_VIEW (f.view));
  for (guint i = 0; labels[i] != NULL; i++)
    g_test_message ("%s", labels[i]);
  gint g0 = -1, g1 = -1;
  for (gint i = 0; labels[i] != NULL; i++)
    if (g_str_has_prefix (labels[i], "rank 0 · trace_filter_sampled_rank-0.json.gz"))
      g0 = i;
    else if (g_str_has_prefix (labels[i], "rank 1 · trace_filter_sampled_rank-1.json.gz"))
      g1 = i;
  g_assert_cmpint (g0, ==, 0);
  g_assert_cmpint (g1, >, g0);
  /* every other row is inside one of the two groups; each holds a process and a GPU */
  guint procs[2] = { 0 }, gpus[2] = { 0 };
  for (gint i = 1; labels[i] != NULL; i++)
    {
      if (i == g1)
        continue;
      g_assert_true (g_str_has_prefix (labels[i], "  "));
      guint side = i > g1;
      const char *l = labels[i] + 2;
      if (*l != ' ' && g_str_has_prefix (l, "GPU "))
        gpus[side]++;
      else if (*l != ' ' && strchr (l, '[') != NULL)
        procs[side]++;
    }
  g_test_message ("processes %u, %u; GPUs %u, %u", procs[0], procs[1], gpus[0], gpus[1]);
  g_assert_cmpuint (procs[0], >=, 1);
  g_assert_cmpuint (procs[1], >=, 1);
  g_assert_cmpuint (gpus[0], >=, 1);
  g_assert_cmpuint (gpus[1], >=, 1);

  g_autoptr (GdkTexture) shot = render (&f, "merged-ranks");
  fixture_close (&f);

  /* a file with itself: two "GPU 0" groups, each with a key of its own (folding the second
   * leaves the first open) */
  const char *same[] = { a, a };
  f.trace = sl_trace_load_merged (same, 2, SL_LOAD_ALL, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  f.view = sl_timeline_view_new ();
  g_object_ref_sink (f.view);
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (f.view), f.trace);
  g_auto (GStrv) twice = sl_timeline_view_dup_row_labels (SL_TIMELINE_VIEW (f.view));
  gint first = -1, second = -1;
  for (gint i = 0; twice[i] != NULL; i++)
    if (g_str_equal (twice[i], "  GPU 0"))
      {
        if (first < 0)
          first = i;
        else if (second < 0)
          second = i;
      }
  g_assert_cmpint (first, >, 0);
  g_assert_cmpint (second, >, first);
  _sl_timeline_toggle_group (SL_TIMELINE_VIEW (f.view), second);
  g_auto (GStrv) folded = sl_timeline_view_dup_row_labels (SL_TIMELINE_VIEW (f.view));
  g_assert_cmpuint (g_strv_length (folded), <, g_strv_length (twice));
  g_assert_cmpstr (folded[first + 1], ==, twice[first + 1]);   /* the first stays open */
  g_assert_cmpstr (folded[second], ==, "  GPU 0");
  g_assert_cmpuint (g_strv_length (folded) - second, <, g_strv_length (twice) - second);
  g_object_unref (f.view);
  sl_trace_unref (f.trace);
}

/* Issue 14, item 5: with SL_PROCESS_INFO, child processes go under their parent's group (the
 * DataLoader workers under the training process, it under the shell that started it), titled
 * with their arguments, collapsible, the whole command line and parent in the header's tooltip;
 * a parent that is not in the trace leaves a process at the top. */
static void
test_process_tree (void)
{
  Fixture f;
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "tree.sqlite", NULL);
  Plant *p = plant_new (path);
  GString *q = g_string_new ("BEGIN; INSERT INTO StringIds VALUES (900500, 'read');");
  static const int pids[] = { 101, 102, 103, 104, 300, 500, 501 };
  g_auto (GStrv) labels = NULL;
  g_autofree char *tip = NULL;
  gint row = -1;

  plant_api (p, PLANT_MAIN, "cudaLaunchKernel", PLANT_MS, PLANT_MS + 5 * PLANT_US);
  plant_finish (p);
  for (guint k = 0; k < G_N_ELEMENTS (pids); k++)
    {
      g_string_append_printf (q, "INSERT INTO PROCESSES VALUES (%" G_GINT64_FORMAT ", %d, '%s');",
                              (gint64) SL_GLOBAL_PID (1, pids[k]), pids[k],
                              pids[k] == 300 ? "bash" : pids[k] >= 500 ? "loop" : "python3");
      for (int i = 0; i < 6; i++)
        g_string_append_printf (q, "INSERT INTO OSRT_API VALUES (%" G_GINT64_FORMAT ", %"
                                   G_GINT64_FORMAT ", 27, %" G_GINT64_FORMAT
                                   ", 900500, 0, 0, 0, 0);",
                                (gint64) (2 + i) * PLANT_MS, (gint64) (2 + i) * PLANT_MS + 50000,
                                (gint64) SL_GLOBAL_TID (1, pids[k], pids[k]));
    }
  g_string_append_printf (
    q, "CREATE TABLE SL_PROCESS_INFO (globalPid INTEGER NOT NULL, pid INTEGER NOT NULL, "
       "  parentPid INTEGER, commandLine TEXT);"
       "INSERT INTO SL_PROCESS_INFO VALUES (%" G_GINT64_FORMAT ", 300, 1, '/bin/bash run.sh'),"
       "  (%" G_GINT64_FORMAT ", 100, 300, 'python3 train.py --workers 4');",
    (gint64) SL_GLOBAL_PID (1, 300), (gint64) SL_GLOBAL_PID (1, 100));
  for (guint k = 0; k < 4; k++)
    g_string_append_printf (q, "INSERT INTO SL_PROCESS_INFO VALUES (%" G_GINT64_FORMAT ", %d, 100, "
                               "'python3 train.py --workers 4');",
                            (gint64) SL_GLOBAL_PID (1, pids[k]), pids[k]);
  /* a damaged file's parents that loop: each shown once, one of them at the top */
  g_string_append_printf (q, "INSERT INTO SL_PROCESS_INFO VALUES (%" G_GINT64_FORMAT ", 500, 501, "
                             "NULL), (%" G_GINT64_FORMAT ", 501, 500, NULL);",
                          (gint64) SL_GLOBAL_PID (1, 500), (gint64) SL_GLOBAL_PID (1, 501));
  g_string_append (q, "COMMIT;");
  sql (path, q->str);
  g_string_free (q, TRUE);

  fixture_open (&f, path);
  labels = sl_timeline_view_dup_row_labels (SL_TIMELINE_VIEW (f.view));
  {
    guint loops = 0, top = 0;
    for (guint i = 0; labels[i] != NULL; i++)
      if (strstr (labels[i], "loop [50") != NULL)
        {
          loops++;
          top += g_str_has_prefix (labels[i], "loop");
        }
    g_assert_cmpuint (loops, ==, 2);
    g_assert_cmpuint (top, ==, 1);
  }
  for (guint i = 0; labels[i] != NULL; i++)
    g_test_message ("%s", labels[i]);
  g_assert_cmpstr (labels[0], ==, "bash [300] run.sh");
  g_assert_cmpint (find_label (labels, "python3 [100] train.py --workers 4"), >=, 0);
  /* the training process one level in, its workers two, after its own threads */
  for (guint i = 0; labels[i] != NULL; i++)
    if (strstr (labels[i], "python3 [10") != NULL)
      {
        gboolean main = strstr (labels[i], "[100]") != NULL;
        g_assert_true (g_str_has_prefix (labels[i], main ? "  python3" : "    python3"));
        if (!main)
          {
            g_assert_cmpint (i, >, find_label (labels, "python3 [100] train.py --workers 4"));
            g_assert_cmpint (i, >, find_label (labels, "python3 (100)"));
          }
      }
  for (gint i = 0; labels[i] != NULL; i++)
    if (g_str_has_prefix (labels[i], "    python3 [101]"))
      row = i;
  g_assert_cmpint (row, >, 0);
  tip = _sl_timeline_row_tooltip (SL_TIMELINE_VIEW (f.view), row);
  g_assert_nonnull (tip);
  g_assert_nonnull (strstr (tip, "python3 train.py --workers 4"));
  g_assert_nonnull (strstr (tip, "Parent: pid 100"));

  g_object_unref (render (&f, "process-tree-open"));
  /* collapsing the training process folds its workers too */
  _sl_timeline_toggle_group (SL_TIMELINE_VIEW (f.view),
                             find_label (labels, "python3 [100] train.py --workers 4"));
  g_clear_pointer (&labels, g_strfreev);
  labels = sl_timeline_view_dup_row_labels (SL_TIMELINE_VIEW (f.view));
  for (guint i = 0; labels[i] != NULL; i++)
    g_assert_null (strstr (labels[i], "[101]"));
  g_object_unref (render (&f, "process-tree-collapsed"));
  fixture_close (&f);
}

/* The flame charts of the real traces with samples: every sample is in exactly one box at each
 * depth of its stack and in none below it, inside the box's span; neighbours share a box only
 * when their stacks agree down to it, and do when they agree and follow each other closely (no
 * further apart than the median gap).  Drawn zoomed in, to look at. */
static void
test_flame_real (void)
{
  static const char *const files[] = { "nsys/nsys-2023.2-cutlass-cpu-sampling.sqlite",
                                       "nsys/nsys-2026.1-osrt-sampling.sqlite" };

  for (guint k = 0; k < G_N_ELEMENTS (files); k++)
    {
      g_autofree char *path = sl_test_trace_path (files[k]);
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *shot = g_strconcat ("flame-", base, NULL);
      SlTimelineView *view;
      gsize boxes_checked = 0, merged = 0, folds = 0;
      Fixture f;

      fixture_open (&f, path);
      view = SL_TIMELINE_VIEW (f.view);
      for (guint li = 0; li < sl_trace_get_n_lanes (f.trace); li++)
        {
          const SlLane *lane = sl_trace_get_lane (f.trace, li);
          g_autofree SlTime *gaps = NULL;
          SlTime median = 0;

          if (lane->kind != SL_LANE_SAMPLES || lane->n_events < 2)
            continue;
          gaps = g_new (SlTime, lane->n_events - 1);
          for (gsize i = 1; i < lane->n_events; i++)
            gaps[i - 1] = lane->events[i].start - lane->events[i - 1].start;
          qsort (gaps, lane->n_events - 1, sizeof (SlTime), sl_cmp_int64);
          median = gaps[(lane->n_events - 1) / 2];
          for (gsize i = 0; i < lane->n_events; i++)
            {
              const guint32 *syms, *mods, *nsyms = NULL, *nmods = NULL;
              guint len = sl_trace_get_callchain (f.trace, lane->events[i].aux, &syms, &mods);
              guint nlen = i + 1 < lane->n_events
                           ? sl_trace_get_callchain (f.trace, lane->events[i + 1].aux, &nsyms,
                                                     &nmods)
                           : 0;
              gboolean agree = TRUE;
              for (guint d = 0; d < MIN (len, FLAME_ROWS_MAX) + 1 && d < FLAME_ROWS_MAX; d++)
                {
                  SlTime a, b, na, nb;
                  guint n, nn;
                  gboolean has = sl_timeline_view_get_flame_box (view, li, d, i, &a, &b, &n);
                  g_assert_true (has == (d < len));
                  if (!has)
                    break;
                  g_assert_cmpint (a, <=, lane->events[i].start);
                  g_assert_cmpint (b, >, lane->events[i].start);
                  boxes_checked++;
                  agree = agree && d < nlen
                          && syms[len - 1 - d] == nsyms[nlen - 1 - d]
                          && mods[len - 1 - d] == nmods[nlen - 1 - d];
                  if (i + 1 >= lane->n_events || d >= nlen)
                    continue;
                  g_assert_true (sl_timeline_view_get_flame_box (view, li, d, i + 1, &na, &nb,
                                                                 &nn));
                  if (na == a)
                    {
                      g_assert_true (agree);
                      merged++;
                    }
                  else if (agree && lane->events[i + 1].start - lane->events[i].start <= median)
                    g_assert_not_reached ();
                }
            }
        }
      g_test_message ("%s: %" G_GSIZE_FORMAT " sample-depths in boxes, %" G_GSIZE_FORMAT
                      " merged with the next sample", base, boxes_checked, merged);
      g_assert_cmpuint (boxes_checked, >, 0);
      g_assert_cmpuint (merged, >, 0);

      /* the whole trace shown: a click on a box under MIN_PX (inside a grey fold) is on a fold,
       * and zooms to a few pixels around it; on a wider box it selects a sample of the box (the
       * first view is where the GPU work is: the whole trace is asked for) */
      sl_viewport_set_visible (sl_timeline_view_get_viewport (view), sl_trace_get_start (f.trace),
                               sl_trace_get_end (f.trace), FALSE);
      spin (100);
      for (guint li = 0; li < sl_trace_get_n_lanes (f.trace); li++)
        {
          const SlLane *lane = sl_trace_get_lane (f.trace, li);
          SlTime v0, v1;
          if (lane->kind != SL_LANE_SAMPLES || view->lane_row[li] < 0)
            continue;
          sl_viewport_get_visible (sl_timeline_view_get_viewport (view), &v0, &v1);
          double px = (double) (v1 - v0) / lanes_width (view);
          double y0 = RULER_H + row_get (view, view->lane_row[li])->y - scroll_y (view);
          for (gsize i = 0; i < lane->n_events; i += MAX (lane->n_events / 50, 1))
            {
              SlTime a, b, t0, t1;
              SlEventRef ref;
              guint n;
              if (!sl_timeline_view_get_flame_box (view, li, 0, i, &a, &b, &n))
                continue;
              g_assert_true (_sl_timeline_item_at (view, time_to_x (view, (a + b) / 2), y0 + 5,
                                                   &ref, &t0, &t1));
              if ((double) (b - a) < MIN_PX * px)
                {
                  g_assert_cmpint (ref.lane, <, 0);
                  g_assert_cmpfloat ((double) (t1 - t0), <=, 8 * px + 1);
                  folds++;
                }
              else
                g_assert_cmpint (ref.lane, ==, (gint) li);
            }
        }
      g_test_message ("%" G_GSIZE_FORMAT " clicks on folds", folds);
      if (k == 0)
        g_assert_cmpuint (folds, >, 0);

      /* zoomed to 40 ms in the middle of the first samples lane, to look at */
      for (guint li = 0; li < sl_trace_get_n_lanes (f.trace); li++)
        {
          const SlLane *lane = sl_trace_get_lane (f.trace, li);
          if (lane->kind == SL_LANE_SAMPLES && lane->n_events > 0)
            {
              SlTime mid = lane->events[lane->n_events / 2].start;
              sl_viewport_set_visible (sl_timeline_view_get_viewport (view), mid - 20 * PLANT_MS,
                                       mid + 20 * PLANT_MS, FALSE);
              break;
            }
        }
      spin (50);
      g_object_unref (render (&f, shot));
      fixture_close (&f);
    }
}

/* Every real nsys export opens: its lanes are laid out and drawn, and the events are not all
 * background.  (The issue: "It opens every file in ../shared/traces/nsys/".) */
/* Rows of a kind, in order. */
static GArray *
rows_of (SlTimelineView *view,
         RowKind         kind)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < view->rows->len; i++)
    if (row_get (view, i)->kind == kind)
      g_array_append_val (out, i);
  return out;
}

/* Thread states and CPU rows draw: on a real trace with SCHED_EVENTS, the CPU-utilization row of
 * its process shows bars in the running colour, every core row shows threads, and a Running
 * slice of a state lane is drawn in the running colour (issue 14). */
static void
test_thread_states (void)
{
  Fixture f;
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-osrt-sampling.sqlite");
  SlTimelineView *view;
  SlViewport *vp;

  fixture_open (&f, path);
  view = SL_TIMELINE_VIEW (f.view);
  SlCpuUtil *u = _sl_timeline_cpu_util (view);
  g_assert_nonnull (u);
  g_assert_cmpuint (sl_cpu_util_get_n_cpus (u), >, 1);

  /* the CPU rows alone: the utilization rows and the "CPUs" group */
  sl_timeline_view_set_lane_filter (view, "cpu");
  spin (50);
  g_autoptr (GArray) util_rows = rows_of (view, ROW_CPU_UTIL);
  g_autoptr (GArray) core_rows = rows_of (view, ROW_CPU_CORE);
  g_assert_cmpuint (util_rows->len, >=, 1);
  g_assert_cmpuint (core_rows->len, ==, sl_cpu_util_get_n_cpus (u));
  g_assert_nonnull (strstr (row_get (view, g_array_index (util_rows, guint, 0))->label, "cores"));
  {
    g_autoptr (GdkTexture) shot = render (&f, "cpu-rows");
    Pixels p = pixels_get (shot);
    const Row *r = row_get (view, g_array_index (util_rows, guint, 0));
    int y0 = (int) (RULER_H + r->y), y1 = (int) (RULER_H + r->y + r->h);
    int bars = count_colour (&p, HEADER_PX, p.w, y0, y1, &view->pal.sched_running);
    g_test_message ("CPU utilization row: %d pixels in the running colour", bars);
    g_assert_cmpint (bars, >, 50);
    /* threads are saturated colours; background and grid are grey */
    int busy_rows = 0, all = 0;
    for (guint k = 0; k < core_rows->len; k++)
      {
        const Row *c = row_get (view, g_array_index (core_rows, guint, k));
        int cy = (int) (RULER_H + c->y + c->h / 2), n = 0;
        g_assert_cmpint (cy, <, p.h);
        for (int x = HEADER_PX; x < p.w; x++)
          {
            int cr, cg, cb;
            pixel_rgb (&p, x, cy, &cr, &cg, &cb);
            n += MAX (cr, MAX (cg, cb)) - MIN (cr, MIN (cg, cb)) > 40;
          }
        g_test_message ("CPU %u: %d pixels show a thread", sl_cpu_util_get_cpu (u, k), n);
        busy_rows += n > 0;
        all += n;
      }
    g_assert_cmpint (busy_rows, >=, 3);
    g_assert_cmpint (all, >, 500);
    g_free (p.data);
  }

  /* the state lanes: a long Running slice, zoomed to, drawn in the running colour */
  sl_timeline_view_set_lane_filter (view, "thread state");
  spin (50);
  const SlLane *lane = NULL;
  gsize best = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (f.trace) && lane == NULL; i++)
    {
      const SlLane *l = sl_trace_get_lane (f.trace, i);
      if (l->kind != SL_LANE_SCHED || view->lane_row[i] < 0)
        continue;
      for (gsize e = 0; e < l->n_events; e++)
        if (SL_STATE_OF (l->events[e].aux) == SL_STATE_RUNNING
            && l->events[e].end - l->events[e].start > 100000)
          {
            lane = l;
            best = e;
            break;
          }
    }
  g_assert_nonnull (lane);
  const SlEvent *ev = &lane->events[best];
  vp = sl_timeline_view_get_viewport (view);
  sl_viewport_set_visible (vp, ev->start - (ev->end - ev->start) * 2,
                           ev->end + (ev->end - ev->start) * 2, FALSE);
  spin (50);
  SlEventRef ref = { (gint) lane->index, best };
  graphene_rect_t area;
  GdkRGBA c;
  g_assert_true (sl_timeline_view_get_event_area (view, ref, &area));
  g_assert_true (sl_timeline_view_get_event_color (view, ref, &c));
  g_assert_true (gdk_rgba_equal (&c, &view->pal.sched_running));
  {
    g_autoptr (GdkTexture) shot = render (&f, "thread-states");
    Pixels p = pixels_get (shot);
    int cy = (int) (area.origin.y + area.size.height / 2);
    int x0 = (int) area.origin.x + 2, x1 = (int) (area.origin.x + area.size.width) - 2;
    int on = count_colour (&p, x0, x1, cy, cy + 1, &view->pal.sched_running);
    g_test_message ("running slice: %d of %d pixels in the running colour", on, x1 - x0);
    g_assert_cmpint (on, >=, (x1 - x0) * 9 / 10);
    g_free (p.data);
  }
  sl_timeline_view_set_lane_filter (view, NULL);
  fixture_close (&f);
}

static void
test_every_nsys_file (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();

  for (guint i = 0; files[i] != NULL; i++)
    {
      Fixture f;
      g_autofree char *base = g_path_get_basename (files[i]);
      g_autofree char *name = g_strconcat ("every-", base, NULL);
      g_autoptr (GdkTexture) shot = NULL;
      gsize drawn = 0, lanes_seen = 0;

      g_test_message ("%s", files[i]);
      fixture_open (&f, files[i]);
      shot = render (&f, name);
      Pixels p = pixels_get (shot);
      gint last = -2;
      for (int y = 0; y < p.h; y++)
        {
          gint lane = sl_timeline_view_lane_at (SL_TIMELINE_VIEW (f.view), y);
          if (lane < 0)
            continue;
          g_assert_cmpint (lane, <, (gint) sl_trace_get_n_lanes (f.trace));
          lanes_seen += lane != last;
          last = lane;
          for (int x = HEADER_PX + 1; x < p.w; x += 3)
            {
              int r, g, b;
              pixel_rgb (&p, x, y, &r, &g, &b);
              drawn += MAX (r, MAX (g, b)) - MIN (r, MIN (g, b)) > 60;
            }
        }
      g_free (p.data);
      g_assert_cmpuint (lanes_seen, >, 0);
      g_assert_cmpuint (drawn, >, 0);
      /* no SL_PROCESS_INFO in an nsys export: every process group at the top (issue 14) */
      {
        SlTimelineView *v = SL_TIMELINE_VIEW (f.view);
        for (guint r = 0; r < v->rows->len; r++)
          if (row_get (v, r)->kind == ROW_GROUP && g_str_has_prefix (row_get (v, r)->key, "p:"))
            g_assert_cmpuint (row_get (v, r)->level, ==, 0);
      }
      fixture_close (&f);
    }
}

/*
 * NVTX projected onto the GPU, in µs: the main thread pushes "step" [0, 100] around "fwd"
 * [10, 50] and launches kernels at [12, 17] (runs [15, 30]), [20, 25] (runs [40, 60]) and
 * [60, 65] (runs [70, 90]); a second "step" [200, 300] launches one at [210, 215] (runs
 * [220, 280]).  Under GPU 0, "step" projects to [15, 90] and [220, 280] (level 0, 3 and 1 GPU
 * ops), "fwd" to [15, 60] (level 1, 2 ops).  A cudaFree at 2 s makes the trace 2 s long.
 */
static char *
write_nvtxproj_trace (void)
{
  char *path = g_build_filename (sl_test_tmpdir (), "nvtxproj.sqlite", NULL);
  Plant *p = plant_new (path);
  const gint64 us = PLANT_US;
  const gint64 launch[][4] = { { 12, 17, 15, 30 }, { 20, 25, 40, 60 }, { 60, 65, 70, 90 },
                               { 210, 215, 220, 280 } };

  for (guint i = 0; i < G_N_ELEMENTS (launch); i++)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel", launch[i][0] * us,
                               launch[i][1] * us);
      plant_kernel (p, "k", &plant_config_full, launch[i][2] * us, launch[i][3] * us, corr);
    }
  plant_api (p, PLANT_MAIN, "cudaFree", 2 * PLANT_S, 2 * PLANT_S + us);   /* a 2 s trace */
  plant_finish (p);
  plant_nvtx (path, PLANT_MAIN, 59, "step", 0, 100 * us);
  plant_nvtx (path, PLANT_MAIN, 59, "fwd", 10 * us, 50 * us);
  plant_nvtx (path, PLANT_MAIN, 59, "step", 200 * us, 300 * us);
  return path;
}

/* The NVTX range of the main thread's depth-`depth` lane starting at `start` */
static SlEventRef
nvtx_range (SlTrace *trace,
            guint    depth,
            SlTime   start)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_NVTX || lane->depth != depth)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        if (lane->events[k].start == start)
          return (SlEventRef) { (gint) i, k };
    }
  g_error ("no NVTX range at depth %u starting at %" G_GINT64_FORMAT, depth, start);
}

static gint
row_labelled (SlTimelineView *view,
              const char     *label)
{
  for (guint i = 0; i < view->rows->len; i++)
    if (g_strcmp0 (g_array_index (view->rows, Row, i).label, label) == 0)
      return (gint) i;
  return -1;
}

/* The row of the GPU's projected NVTX track `track`, or -1 */
static gint
proj_row (SlTimelineView *view,
          gint            track)
{
  for (guint i = 0; i < view->rows->len; i++)
    if (g_array_index (view->rows, Row, i).kind == ROW_NVTX_PROJ
        && g_array_index (view->rows, Row, i).track == track)
      return (gint) i;
  return -1;
}

/* The "NVTX (projected)" group under the GPU: collapsed at first, its tracks once opened, each
 * range drawn outlined in its colour over its projected span, its tooltip, a click on it
 * selecting the NVTX range, and zoomed out the ranges under a pixel taken together */
static void
test_nvtx_projected (void)
{
  Fixture f;
  g_autofree char *path = write_nvtxproj_trace ();
  const gint64 us = PLANT_US;
  SlTimelineView *view;
  SlViewport *vp;
  gint64 deadline;
  graphene_rect_t area;
  SlEventRef ref;
  SlTime t0, t1;

  fixture_open_sized (&f, path, 1600, 300);   /* short: rows to scroll */
  view = SL_TIMELINE_VIEW (f.view);
  vp = sl_timeline_view_get_viewport (view);
  /* nothing is computed before the group is opened */
  spin (200);
  g_assert_false (sl_timeline_view_nvtxproj_ready (view));
  g_assert_true (sl_timeline_view_group_collapsed (view, "NVTX (projected)"));
  g_assert_cmpint (proj_row (view, 0), <, 0);
  _sl_timeline_toggle_group (view, row_labelled (view, "NVTX (projected)"));
  g_assert_false (sl_timeline_view_group_collapsed (view, "NVTX (projected)"));
  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (!sl_timeline_view_nvtxproj_ready (view) && g_get_monotonic_time () < deadline)
    spin (20);
  g_assert_true (sl_timeline_view_nvtxproj_ready (view));
  gint level0 = proj_row (view, 0), level1 = proj_row (view, 1);
  g_assert_cmpint (level0, >, row_labelled (view, "NVTX (projected)"));
  g_assert_cmpint (level1, ==, level0 + 1);
  g_assert_cmpint (proj_row (view, 2), <, 0);
  /* one "NVTX" header over the levels, as a thread's own NVTX rows have (issue 29, 12) */
  g_assert_cmpstr (g_array_index (view->rows, Row, level0).label, ==, "NVTX");
  g_assert_false (_sl_timeline_row_continues (view, (guint) level0));
  g_assert_true (_sl_timeline_row_continues (view, (guint) level1));

  sl_viewport_set_visible (vp, 0, 320 * us, FALSE);
  spin (50);
  g_autoptr (GdkTexture) shot = render (&f, "nvtx-projected");
  Pixels p = pixels_get (shot);
  double width = gtk_widget_get_width (f.view) - HEADER_PX;
  SlTime v0, v1;
  sl_viewport_get_visible (vp, &v0, &v1);
  const struct
  {
    guint  depth;
    SlTime start, p0, p1;
    gint   row;
  } want[] = { { 0, 0, 15, 90, level0 }, { 1, 10 * us, 15, 60, level1 },
               { 0, 200 * us, 220, 280, level0 } };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      const Row *row = &g_array_index (view->rows, Row, want[i].row);
      double x0 = HEADER_PX + (double) (want[i].p0 * us - v0) * width / (double) (v1 - v0);
      double x1 = HEADER_PX + (double) (want[i].p1 * us - v0) * width / (double) (v1 - v0);
      GdkRGBA c;
      int r, g, b;

      ref = nvtx_range (f.trace, want[i].depth, want[i].start);
      g_assert_true (sl_timeline_view_get_nvtxproj_area (view, 0, ref, &area));
      g_assert_cmpfloat (fabs (area.origin.x - x0), <, 0.5);
      g_assert_cmpfloat (fabs (area.origin.x + area.size.width - x1), <, 0.5);
      g_assert_cmpfloat (area.origin.y, ==, RULER_H + row->y);
      /* outlined in the range's colour: its top edge; inside, a light fill, not the colour */
      g_assert_true (sl_timeline_view_get_event_color (view, ref, &c));
      pixel_rgb (&p, (int) ((x0 + x1) / 2), (int) area.origin.y + 2, &r, &g, &b);
      g_assert_cmpint (abs (r - (int) (c.red * 255)), <=, 12);
      g_assert_cmpint (abs (g - (int) (c.green * 255)), <=, 12);
      g_assert_cmpint (abs (b - (int) (c.blue * 255)), <=, 12);
      pixel_rgb (&p, (int) x0 + 3, (int) (area.origin.y + area.size.height / 2), &r, &g, &b);
      g_assert_cmpint (abs (r - (int) (c.red * 255)) + abs (g - (int) (c.green * 255))
                         + abs (b - (int) (c.blue * 255)), >, 60);

      /* what the pointer finds there: the range itself, its tooltip */
      double cx = (x0 + x1) / 2, cy = area.origin.y + area.size.height / 2;
      g_assert_true (_sl_timeline_item_at (view, cx, cy, &ref, &t0, &t1));
      g_assert_cmpint (ref.lane, ==, nvtx_range (f.trace, want[i].depth, want[i].start).lane);
      g_assert_cmpuint (ref.index, ==, nvtx_range (f.trace, want[i].depth, want[i].start).index);
      g_assert_cmpint (t0, ==, want[i].p0 * us);
      g_assert_cmpint (t1, ==, want[i].p1 * us);
      g_autofree char *tip = _sl_timeline_nvtxproj_tooltip (view, row, cx);
      g_assert_nonnull (strstr (tip, want[i].depth == 0 ? "step" : "fwd"));
      g_assert_nonnull (strstr (tip, "Projected start"));
      g_assert_nonnull (strstr (tip, i == 0 ? "3 GPU operations" : i == 1 ? "2 GPU operations"
                                                                        : "1 GPU operation"));
    }
  g_free (p.data);

#ifdef GDK_WINDOWING_X11
  /* a real click on "fwd" projected selects the NVTX range (the detail pane follows the
   * selection, as for a click in its thread lane) */
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  if (xdotool != NULL && GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    {
      SlEventRef fwd = nvtx_range (f.trace, 1, 10 * us);
      graphene_point_t at;
      g_autoptr (GError) error = NULL;
      gint status = -1;
      g_assert_true (sl_timeline_view_get_nvtxproj_area (view, 0, fwd, &area));
      at = GRAPHENE_POINT_INIT (area.origin.x + area.size.width / 2, area.origin.y + 9);
      g_assert_true (gtk_widget_compute_point (f.view, f.window, &at, &at));
      g_autofree char *cmd = g_strdup_printf (
        "%s mousemove --sync --window %lu %d %d click 1", xdotool,
        (gulong) gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (f.window))),
        (int) at.x, (int) at.y);
      g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, &error));
      g_assert_no_error (error);
      spin (300);
      ref = sl_timeline_view_get_selected_event (view);
      g_assert_cmpint (ref.lane, ==, fwd.lane);
      g_assert_cmpuint (ref.index, ==, fwd.index);
      g_object_unref (render (&f, "nvtx-projected-selected"));
    }
#endif

  /* zoomed out, both "step" ranges are under one pixel: one light box, a fold to the pointer */
  sl_viewport_set_visible (vp, 0, 2 * PLANT_S, FALSE);
  spin (50);
  g_object_unref (render (&f, "nvtx-projected-out"));
  const Row *row = &g_array_index (view->rows, Row, level0);
  g_assert_true (_sl_timeline_item_at (view, HEADER_PX + 0.5, RULER_H + row->y + 9, &ref, &t0,
                                       &t1));
  g_assert_cmpint (ref.lane, <, 0);
  g_assert_cmpint (t0, ==, 15 * us);
  g_assert_cmpint (t1, ==, 280 * us);
  g_autofree char *tip = _sl_timeline_nvtxproj_tooltip (view, row, HEADER_PX + 0.5);
  g_assert_nonnull (strstr (tip, "2 projected NVTX ranges"));
  fixture_close (&f);
}

/* A trace still loading (a big file's first look): the time past what is read is washed and
 * hatched under "Loading… N %", the time before it drawn as before. */
static void
test_loading (void)
{
  Fixture f;
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_autoptr (GdkTexture) before = NULL, loading = NULL;
  SlTime t0, t1, from = 0;
  double share = 0;

  fixture_open (&f, path);
  g_assert_false (sl_trace_get_loading (f.trace, NULL, NULL));
  before = render (&f, "loading-before");
  SlViewport *vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (f.view));
  sl_viewport_get_visible (vp, &t0, &t1);
  SlTime mid = t0 + (t1 - t0) / 2, end = sl_trace_get_end (f.trace);
  _sl_trace_set_loading (f.trace, mid, end, 0.374);
  g_assert_true (sl_trace_get_loading (f.trace, &from, &share));
  g_assert_cmpint (from, ==, mid);
  g_assert_cmpfloat (share, ==, 0.374);
  g_assert_cmpint (sl_trace_get_end (f.trace), ==, end);
  gtk_widget_queue_draw (f.view);
  loading = render (&f, "loading-band");

  Pixels a = pixels_get (before), b = pixels_get (loading);
  int width = gtk_widget_get_width (f.view);
  double xm = HEADER_PX + sl_viewport_time_to_x (vp, mid, width - HEADER_PX);
  gsize left_same = 0, left = 0, right_changed = 0, right = 0;
  for (int y = 40; y < a.h; y += 3)
    for (int x = HEADER_PX + 2; x < a.w - 2; x += 3)
      {
        int r0, g0, b0, r1, g1, b1;
        if (fabs (x - xm) < 4)
          continue;
        pixel_rgb (&a, x, y, &r0, &g0, &b0);
        pixel_rgb (&b, x, y, &r1, &g1, &b1);
        gboolean same = r0 == r1 && g0 == g1 && b0 == b1;
        if (x < xm)
          left++, left_same += same;
        else
          right++, right_changed += !same;
      }
  g_test_message ("left of %.0f px: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " pixels unchanged; "
                  "right: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " changed",
                  xm, left_same, left, right_changed, right);
  /* before the horizon nothing moves; past it, most pixels are washed or hatched */
  g_assert_cmpuint (left_same, ==, left);
  g_assert_cmpuint (right_changed * 10, >=, right * 6);
  g_free (a.data);
  g_free (b.data);
  fixture_close (&f);
}

/* The colour of translucent c over the opaque bg, 0 … 255 a channel. */
static void
rgb_over (const GdkRGBA *c,
          const GdkRGBA *bg,
          int            rgb[3])
{
  rgb[0] = (int) lround (255 * (c->alpha * c->red + (1 - c->alpha) * bg->red));
  rgb[1] = (int) lround (255 * (c->alpha * c->green + (1 - c->alpha) * bg->green));
  rgb[2] = (int) lround (255 * (c->alpha * c->blue + (1 - c->alpha) * bg->blue));
}

static gboolean
pixel_is (const Pixels *p,
          int           x,
          int           y,
          const int     rgb[3])
{
  int r, g, b;

  pixel_rgb (p, x, y, &r, &g, &b);
  return abs (r - rgb[0]) <= 8 && abs (g - rgb[1]) <= 8 && abs (b - rgb[2]) <= 8;
}

/* Whether the pixel is the idle shade over either row background. */
static gboolean
pixel_idle (SlTimelineView *view,
            const Pixels   *p,
            int             x,
            int             y)
{
  int a[3], b[3];

  rgb_over (&view->pal.idle, &view->pal.bg, a);
  rgb_over (&view->pal.idle, &view->pal.bg_alt, b);
  return pixel_is (p, x, y, a) || pixel_is (p, x, y, b);
}

typedef struct
{
  SlTime last_end, gap0, gap1;
} Gap;

static gboolean
longest_gap_cb (SlTime   start,
                SlTime   end,
                gpointer user_data)
{
  Gap *g = user_data;

  if (g->last_end >= 0 && start - g->last_end > g->gap1 - g->gap0)
    {
      g->gap0 = g->last_end;
      g->gap1 = start;
    }
  g->last_end = end;
  return TRUE;
}

/* The Utilization row shows what the GPU is busy with (issue 28, item 2).  On the 2×H100 trace
 * each GPU is ~99 % busy, nearly all of it host → device copies with no kernel running: those
 * columns are drawn in the copies' colour with no idle shade (the row counted kernels only and
 * shaded them idle), kernel-dense columns in the kernels' colour; zoomed into a gap of no work at
 * all the shade is there.  The tooltips give the split, as the model computes it. */
static void
test_util_busy_by_what (void)
{
  Fixture f;
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  SlTimelineView *view;
  SlViewport *vp;
  SlTime s, e;
  Pixels p;
  g_autoptr (GArray) rows = NULL;

  fixture_open (&f, path);
  view = SL_TIMELINE_VIEW (f.view);
  vp = sl_timeline_view_get_viewport (view);
  sl_viewport_get_bounds (vp, &s, &e);
  sl_timeline_view_set_lane_filter (view, "utilization");
  spin (100);
  {
    g_autoptr (GdkTexture) shot = render (&f, "h100-utilization");
    p = pixels_get (shot);
  }
  rows = rows_of (view, ROW_GPU_UTIL);
  g_assert_cmpuint (rows->len, ==, sl_trace_get_n_gpus (f.trace));
  for (guint k = 0; k < rows->len; k++)
    {
      guint ri = g_array_index (rows, guint, k);
      const Row *r = row_get (view, ri);
      guint gpu = (guint) r->gpu;
      double busy = sl_trace_gpu_utilization (f.trace, gpu, SL_UTIL_ANY, s, e);
      double kernels = sl_trace_gpu_utilization (f.trace, gpu, SL_UTIL_KERNELS, s, e);
      UtilCache *u = _sl_timeline_util_current (view, gpu);
      double y = RULER_H + r->y - gtk_adjustment_get_value (view->vadjustment);
      /* the row's second pixel row, above any bar; the middle of the bars; just above their base */
      int top = (int) ceil (y) + 1, mid = (int) floor (y + r->h - 2 - 0.5 * (r->h - 6));
      int low = (int) floor (y + r->h - 3);
      int copy_cols = 0, copy_drawn = 0, shaded = 0, kernel_cols = 0, kernel_drawn = 0;
      gint copy_col = -1;
      g_autofree char *want = NULL, *header = NULL, *hover = NULL;

      g_assert_cmpint (low, <, p.h);
      g_test_message ("GPU %u: busy %.1f%% of the trace, kernels %.1f%% of that", gpu, 100 * busy,
                      100 * kernels / busy);
      /* what the test stands on: the GPU is busy, and not with kernels */
      g_assert_cmpfloat (busy, >, 0.9);
      g_assert_cmpfloat (kernels / busy, <, 0.05);
      for (guint i = 0; i < u->n && HEADER_PX + (int) i < p.w; i++)
        {
          int x = HEADER_PX + (int) i;
          if (u->any[i] >= 0.95 && u->kernels[i] <= 0.05)
            {
              copy_cols++;
              copy_drawn += count_colour (&p, x, x + 1, mid, mid + 1, &view->pal.util_copies);
              shaded += pixel_idle (view, &p, x, top);
              copy_col = (gint) i;
            }
          /* (where the GPU is below the threshold the shade tints the bars) */
          if (u->kernels[i] >= 0.2 && u->any[i] >= view->util_threshold)
            {
              kernel_cols++;
              kernel_drawn += count_colour (&p, x, x + 1, low, low + 1, &view->pal.util_kernels);
            }
        }
      g_test_message ("GPU %u: %d of %u columns busy copying, %d drawn so, %d shaded idle; "
                      "%d busy with kernels ≥ 20%%, %d drawn so", gpu, copy_cols, u->n, copy_drawn,
                      shaded, kernel_cols, kernel_drawn);
      g_assert_cmpint (copy_cols, >, (int) u->n / 2);
      g_assert_cmpint (copy_drawn, ==, copy_cols);
      g_assert_cmpint (shaded, ==, 0);
      g_assert_cmpint (kernel_drawn, ==, kernel_cols);

      /* the tooltips: a copying column's split, the window's as the model has it */
      hover = _sl_timeline_util_text (view, gpu, (guint) copy_col);
      g_test_message ("GPU %u, column %d: %s", gpu, copy_col, hover);
      want = g_strdup_printf ("GPU busy %.1f%%: kernels %.1f%%, copies and sets %.1f%%",
                              100 * u->any[copy_col], 100 * u->kernels[copy_col],
                              100 * (u->any[copy_col] - u->kernels[copy_col]));
      g_assert_cmpstr (hover, ==, want);
      g_free (want);
      header = _sl_timeline_row_tooltip (view, (gint) ri);
      g_test_message ("GPU %u, the row's header: %s", gpu, header);
      want = g_strdup_printf ("GPU busy %.1f%%: kernels %.1f%%, copies and sets %.1f%%",
                              100 * busy, 100 * kernels, 100 * (busy - kernels));
      g_assert_nonnull (strstr (header, want));
    }
  g_free (p.data);

  /* zoomed into GPU 0's longest gap, the row is shaded idle all along */
  {
    const Row *r = row_get (view, g_array_index (rows, guint, 0));
    Gap g = { -1, 0, 0 };
    double y = RULER_H + r->y - gtk_adjustment_get_value (view->vadjustment);
    int top = (int) ceil (y) + 1, shaded = 0, n = 0;

    sl_trace_gpu_busy_foreach (f.trace, (guint) r->gpu, SL_UTIL_ANY, longest_gap_cb, &g);
    g_test_message ("GPU %d: longest gap %" G_GINT64_FORMAT " ns", r->gpu,
                    (gint64) (g.gap1 - g.gap0));
    g_assert_cmpint (g.gap1 - g.gap0, >, 1000);
    sl_viewport_set_visible (vp, g.gap0 + (g.gap1 - g.gap0) / 4, g.gap1 - (g.gap1 - g.gap0) / 4,
                             TRUE);
    spin (100);
    g_autoptr (GdkTexture) shot = render (&f, "h100-utilization-gap");
    p = pixels_get (shot);
    for (int x = HEADER_PX; x < p.w; x++, n++)
      shaded += pixel_idle (view, &p, x, top);
    g_test_message ("in the gap: %d of %d columns shaded idle", shaded, n);
    /* all but the ruler's grid lines, which show through the shade */
    g_assert_cmpint (shaded, >=, n - n / 20);
    g_free (p.data);
  }
  fixture_close (&f);
}

/* Issue 30: a CUDA graph launch traced whole (sightline-gen --graphs graph) is a box on its
 * stream, in the graph colour, not a GPU that looks idle; looked at in timeline-graphs.png. */
static void
test_graphs (void)
{
  Fixture f;
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "timeline-graphs.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };
  const SlLane *graphs = NULL;
  const SlEvent *ev;
  SlEventRef ref;
  graphene_rect_t area;
  g_autoptr (GdkTexture) shot = NULL;
  Pixels p;
  GdkRGBA c;
  int inside;

  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "5000", "--graphs", "graph", "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  fixture_open (&f, path);
  for (guint i = 0; i < sl_trace_get_n_lanes (f.trace) && graphs == NULL; i++)
    if (sl_trace_get_lane (f.trace, i)->kind == SL_LANE_GRAPHS)
      graphs = sl_trace_get_lane (f.trace, i);
  g_assert_nonnull (graphs);
  ev = &graphs->events[graphs->n_events / 2];
  sl_viewport_set_visible (sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (f.view)),
                           ev->start - (ev->end - ev->start) * 2,
                           ev->end + (ev->end - ev->start) * 2, FALSE);
  ref = (SlEventRef) { (gint) graphs->index, graphs->n_events / 2 };
  spin (50);
  g_assert_true (sl_timeline_view_get_event_area (SL_TIMELINE_VIEW (f.view), ref, &area));
  g_assert_true (sl_timeline_view_get_event_color (SL_TIMELINE_VIEW (f.view), ref, &c));
  shot = render (&f, "timeline-graphs");
  p = pixels_get (shot);
  inside = count_colour (&p, (int) area.origin.x + 2, (int) (area.origin.x + area.size.width) - 2,
                         (int) (area.origin.y + area.size.height / 2),
                         (int) (area.origin.y + area.size.height / 2) + 1, &c);
  g_test_message ("graph box %.0f×%.0f px, %d px of its middle row in its colour",
                  area.size.width, area.size.height, inside);
  g_assert_cmpfloat (area.size.width, >, 100);
  g_assert_cmpint (inside, >, (int) area.size.width / 2);
  g_free (p.data);
  fixture_close (&f);
}

/* Issue 30, item 2: a flag where a stream recorded a CUDA event; a click on a wait (a
 * cudaStreamWaitEvent's synchronization record) draws an arrow from that flag to it, and a click
 * on the flag selects the cudaEventRecord call, whose record's waits get the same arrows.  On the
 * real 2024.2 trace, against the model's links (tests/test-cuda-events.c checks those against
 * SQL). */
static void
test_event_arrows (void)
{
  Fixture f;
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2024.2-memory-usage-cuda-events.sqlite");
  SlTimelineView *view;
  SlEventRef wait_ref = SL_EVENT_REF_NONE;
  const SlEventRecord *rec = NULL;
  graphene_point_t from[8], to[8];
  graphene_rect_t area;
  double height;

  fixture_open (&f, path);
  view = SL_TIMELINE_VIEW (f.view);
  height = gtk_widget_get_height (f.view);
  /* a linked wait whose row and whose record's row are on screen, the closest pair in time */
  SlTime best = G_MAXINT64;
  for (guint i = 0; i < sl_trace_get_n_lanes (f.trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (f.trace, i);
      if (lane->kind != SL_LANE_SYNC || view->lane_row[i] < 0)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          SlEventWait w;
          if (!sl_trace_get_event_wait (f.trace, lane->base + k, &w) || w.record == G_MAXUINT)
            continue;
          const SlEventRecord *r = sl_trace_get_event_record (f.trace, w.record);
          if (r->lane < 0 || r->time == G_MININT64 || view->lane_row[r->lane] < 0
              || r->time > lane->events[k].start)
            continue;
          const Row *a = &g_array_index (view->rows, Row, view->lane_row[i]);
          const Row *b = &g_array_index (view->rows, Row, view->lane_row[r->lane]);
          if (RULER_H + MAX (a->y, b->y) + 30 > height)
            continue;
          if (lane->events[k].start - r->time < best)
            {
              best = lane->events[k].start - r->time;
              wait_ref = (SlEventRef) { (gint) i, k };
              rec = r;
            }
        }
    }
  g_assert_nonnull (rec);
  const SlLane *wait_lane = sl_trace_get_lane (f.trace, wait_ref.lane);
  const SlEvent *wait = &wait_lane->events[wait_ref.index];
  SlTime span = MAX (wait->end - rec->time, 1000);
  SlViewport *vp = sl_timeline_view_get_viewport (view);
  sl_viewport_set_visible (vp, rec->time - span, wait->end + span, FALSE);
  spin (100);

  /* the flag on the recording stream's row */
  g_autoptr (GdkTexture) plain = render (&f, "event-record-marker");
  Pixels p = pixels_get (plain);
  const Row *rrow = &g_array_index (view->rows, Row, view->lane_row[rec->lane]);
  int mx = (int) floor (time_to_x (view, rec->time));
  int flag = count_colour (&p, mx - 2, mx + 8, (int) (RULER_H + rrow->y), (int) (RULER_H + rrow->y
                                                                                 + rrow->h),
                           &view->pal.event_record);
  g_test_message ("flag at x %d: %d pixels in its colour", mx, flag);
  g_assert_cmpint (flag, >=, (int) rrow->h - 2);
  g_free (p.data);
  g_assert_cmpuint (_sl_timeline_event_arrow_points (view, from, to, 8), ==, 0);

  /* a click on the wait: selected, an arrow from the flag to its start */
  g_assert_true (sl_timeline_view_get_event_area (view, wait_ref, &area));
  graphene_point_t at = GRAPHENE_POINT_INIT (area.origin.x + MAX (area.size.width / 2, 1),
                                             area.origin.y + area.size.height / 2);
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  gboolean clicked = FALSE;
#ifdef GDK_WINDOWING_X11
  if (xdotool != NULL && GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    clicked = sl_test_real_click (f.view, at.x, at.y, 1);
#endif
  if (!clicked)
    sl_timeline_view_select_event (view, wait_ref, FALSE);
  spin (300);
  SlEventRef sel = sl_timeline_view_get_selected_event (view);
  g_assert_cmpint (sel.lane, ==, wait_ref.lane);
  g_assert_cmpuint (sel.index, ==, wait_ref.index);
  guint n = _sl_timeline_event_arrow_points (view, from, to, 8);
  g_assert_cmpuint (n, ==, rec->n_waits);
  gboolean to_wait = FALSE;
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpfloat (fabs (from[i].x - (time_to_x (view, rec->time) + 1)), <, 0.5);
      to_wait |= fabs (to[i].x - area.origin.x) < 0.5
                 && fabs (to[i].y - (area.origin.y + area.size.height / 2)) < 0.5;
    }
  g_assert_true (to_wait);
  g_autoptr (GdkTexture) shot = render (&f, "event-wait-arrow");
  p = pixels_get (shot);
  /* the arrow's head, left of the wait's start, on its row */
  int head = count_colour (&p, (int) area.origin.x - 9, (int) area.origin.x + 1,
                           (int) (area.origin.y + area.size.height / 2) - 3,
                           (int) (area.origin.y + area.size.height / 2) + 4,
                           &view->pal.event_record);
  g_test_message ("arrow head: %d pixels", head);
  g_assert_cmpint (head, >, 10);
  g_free (p.data);

  /* the flag stands for its cudaEventRecord call: a click on it selects the call */
  SlEventRef call;
  SlTime t0, t1;
  g_assert_true (_sl_timeline_item_at (view, time_to_x (view, rec->time) + 1,
                                       RULER_H + rrow->y - scroll_y (view) + 2, &call, &t0,
                                       &t1));
  /* (records completing at the same instant share a flag: the click takes one waited for) */
  guint clicked_record;
  g_assert_cmpint (call.lane, >=, 0);
  const SlLane *call_lane = sl_trace_get_lane (f.trace, call.lane);
  g_assert_cmpuint (call_lane->kind, ==, SL_LANE_CUDA_API);
  g_assert_true (sl_trace_find_event_record (f.trace, call_lane->base + call.index,
                                             &clicked_record));
  const SlEventRecord *crec = sl_trace_get_event_record (f.trace, clicked_record);
  g_assert_cmpint (crec->lane, ==, rec->lane);
  g_assert_cmpfloat (fabs (time_to_x (view, crec->time) - time_to_x (view, rec->time)), <, 1);
  g_assert_cmpuint (crec->n_waits, >, 0);
  sl_timeline_view_select_event (view, call, FALSE);
  spin (100);
  g_assert_cmpuint (_sl_timeline_event_arrow_points (view, from, to, 8), ==, crec->n_waits);
  g_object_unref (render (&f, "event-record-selected"));
  fixture_close (&f);
}

int
main (int   argc,
      char *argv[])
{
  g_setenv ("GTK_A11Y", "none", FALSE);
  gtk_init ();
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/timeline/render-h100", test_render_h100);
  g_test_add_func ("/ui/timeline/zoom-keys", test_zoom_keys);
  g_test_add_func ("/ui/timeline/zoom-held", test_zoom_held);
  g_test_add_func ("/ui/timeline/sample", test_sample);
  g_test_add_func ("/ui/timeline/selection-clipped", test_selection_clipped);
  g_test_add_func ("/ui/timeline/ruler-labels", test_ruler_labels);
  g_test_add_func ("/ui/timeline/lane-order", test_lane_order);
  g_test_add_func ("/ui/timeline/host-waits", test_host_waits);
  g_test_add_func ("/ui/timeline/unnamed-process-stats", test_unnamed_process_stats);
  g_test_add_func ("/ui/timeline/legend", test_legend);
  g_test_add_func ("/ui/timeline/lane-pin-hide-filter", test_lane_pin_hide_filter);
  g_test_add_func ("/ui/timeline/continue", test_continue);
  g_test_add_func ("/ui/timeline/context-menu", test_context_menu);
  g_test_add_func ("/ui/timeline/context-menu-click", test_context_menu_click);
  g_test_add_func ("/ui/timeline/event-arrows", test_event_arrows);
  g_test_add_func ("/ui/timeline/every-nsys-file", test_every_nsys_file);
  g_test_add_func ("/ui/timeline/thread-states", test_thread_states);
  g_test_add_func ("/ui/timeline/nvtx-projected", test_nvtx_projected);
  g_test_add_func ("/ui/timeline/flame", test_flame);
  g_test_add_func ("/ui/timeline/process-tree", test_process_tree);
  g_test_add_func ("/ui/timeline/process-ranks", test_process_ranks);
  g_test_add_func ("/ui/timeline/merged-ranks", test_merged_ranks);
  g_test_add_func ("/ui/timeline/loading", test_loading);
  g_test_add_func ("/ui/timeline/flame-real", test_flame_real);
  g_test_add_func ("/ui/timeline/util-busy-by-what", test_util_busy_by_what);
  g_test_add_func ("/ui/timeline/graphs", test_graphs);
  return g_test_run ();
}
