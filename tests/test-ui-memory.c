/* test-ui-memory.c: a GPU's memory in use in the real window under Xvfb (issue 31, item 1): a
 * "Memory" row under the GPU's utilization with the step graph of the bytes on the GPU drawn to
 * its peak (pixels), a tooltip that gives the bytes then, a real click on a change that selects
 * the cudaMalloc that made it, whose detail pane says what it allocated and where it was freed.
 * Screenshots to look at.  Criticals are fatal (G_DEBUG=fatal-criticals). */
#include <string.h>

#include <gtk/gtk.h>

#include "sl-application.h"
#include "sl-detail-pane-private.h"
#include "sl-memory.h"
#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-test-window.h"
#include "sl-timeline-view-private.h"
#include "sl-window-private.h"

#define MEM_2024 "nsys/nsys-2024.2-memory-usage-cuda-events.sqlite"

static SlApplication *app;

static gint
find_row (SlTimelineView *tv,
          RowKind         kind)
{
  for (guint i = 0; i < tv->rows->len; i++)
    if (g_array_index (tv->rows, Row, i).kind == kind)
      return (gint) i;
  return -1;
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

/* The share of the columns of [x0, x1) on row line `y` (widget coordinates) drawn in the memory
 * colour, from a snapshot of the widget rendered to pixels. */
static double
memory_share (SlTimelineView *tv,
              double          x0,
              double          x1,
              double          y)
{
  GtkWidget *w = GTK_WIDGET (tv);
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (w);
  int width = gtk_widget_get_width (w), height = gtk_widget_get_height (w);
  g_autoptr (GtkSnapshot) snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  g_autoptr (GskRenderNode) node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (w));
  g_autoptr (GdkTexture) texture = gsk_renderer_render_texture (renderer, node, NULL);
  gsize stride = (gsize) gdk_texture_get_width (texture) * 4;
  g_autofree guchar *pixels = g_malloc (stride * (gsize) gdk_texture_get_height (texture));
  gdk_texture_download (texture, pixels, stride);
  GdkRGBA c = tv->pal.memory;
  guint hits = 0, n = 0;
  for (int x = (int) x0; x < (int) x1; x++, n++)
    {
      const guchar *p = pixels + (gsize) y * stride + (gsize) x * 4;   /* B G R A */
      if (ABS (p[2] - (int) (c.red * 255)) < 40 && ABS (p[1] - (int) (c.green * 255)) < 40
          && ABS (p[0] - (int) (c.blue * 255)) < 40)
        hits++;
    }
  return n > 0 ? (double) hits / n : 0;
}

static void
test_row (void)
{
  g_autofree char *path = sl_test_trace_path (MEM_2024);
  SlWindow *window = sl_test_open_window (app, 1600, 1000, path, NULL);
  SlTrace *trace = sl_window_get_trace (window);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  gint series = sl_memory_find_gpu_series (trace, 0);
  g_assert_cmpint (series, >=, 0);
  const SlMemSeries *s = sl_memory_get_series (trace, (guint) series);

  /* one Memory row, right under the GPU's utilization, showing the GPU's series */
  gint mi = find_row (tv, ROW_GPU_MEMORY);
  g_assert_cmpint (mi, >=, 0);
  g_assert_cmpint (find_row (tv, ROW_GPU_UTIL), ==, mi - 1);
  const Row *r = row_get (tv, mi);
  g_assert_cmpint (r->track, ==, series);
  g_assert_cmpstr (r->label, ==, "Memory");

  /* the first second of allocations fills the middle of the view, the row scrolled into it */
  SlTime t0 = s->steps[0].time, t1 = s->steps[s->n_steps - 1].time;
  sl_viewport_set_visible (sl_timeline_view_get_viewport (tv), t0 - (t1 - t0) / 10,
                           t1 + (t1 - t0) / 10, FALSE);
  gtk_adjustment_set_value (tv->vadjustment, MAX (r->y - 100, 0));
  sl_test_iterate_for (200);
  double y = RULER_H + r->y - scroll_y (tv);
  sl_test_screenshot (GTK_WIDGET (window), "memory-row");

  /* drawn: near the top of the row at the peak's column, nothing before the first allocation */
  double peak_x = time_to_x (tv, s->peak_time);
  double before_x = time_to_x (tv, t0) - 40;
  double mid_y = y + r->h - 6;
  g_assert_cmpfloat (memory_share (tv, peak_x + 2, peak_x + 30, mid_y), >, 0.8);
  g_assert_cmpfloat (memory_share (tv, MAX (before_x - 30, HEADER_W), before_x, mid_y), <, 0.1);

  /* the tooltip: bytes in use there, and the change under the pointer */
  g_autofree char *tip = _sl_timeline_memory_tooltip (tv, r, peak_x + 10);
  g_assert_nonnull (tip);
  g_test_message ("tooltip: %s", tip);
  g_assert_nonnull (strstr (tip, "GPU memory in use: "));
  g_assert_nonnull (strstr (tip, "Peak: "));

  /* a real click on the first cudaMalloc's change selects that call; the pane says what it
   * made (the first changes are static allocations, made by no call) */
  gsize k = 0;
  while (k < s->n_steps && sl_memory_get_row_call (trace, s->steps[k].row) == SL_NO_LINK)
    k++;
  g_assert_cmpuint (k, <, s->n_steps);
  guint32 call = sl_memory_get_row_call (trace, s->steps[k].row);
  SlTime tk = s->steps[k].time;
  const SlLane *lane;
  gsize index;
  g_assert_true (sl_trace_resolve (trace, call, &lane, &index));
  g_assert_cmpstr (sl_trace_display_name (trace, lane->kind, lane->events[index].name), ==,
                   "cudaMalloc");
  Selected want = { tv, { (gint) lane->index, index } };
  /* zoomed so that this change stands apart from the next (they are ~100 µs apart) */
  sl_viewport_set_visible (sl_timeline_view_get_viewport (tv), tk - 20000, tk + 60000, FALSE);
  sl_test_iterate_for (100);
  y = RULER_H + r->y - scroll_y (tv);
  g_assert_true (sl_test_real_click (GTK_WIDGET (tv), time_to_x (tv, tk), y + r->h / 2, 1));
  g_assert_true (sl_test_wait_until (is_selected, &want, 5000));
  sl_test_iterate_for (100);
  g_autofree char *text = _sl_detail_pane_get_text (
    SL_DETAIL_PANE (sl_window_get_detail_pane (window)));
  g_test_message ("detail pane:\n%s", text);
  g_assert_nonnull (strstr (text, "GPU memory allocated"));
  const SlMemUsage *m = sl_trace_get_mem_usage (trace, s->steps[k].row);
  g_autofree char *address = g_strdup_printf ("Address: 0x%" G_GINT64_MODIFIER "x", m->address);
  g_assert_nonnull (strstr (text, address));
  g_assert_nonnull (strstr (text, "Kind: Device"));
  const SlMemAlloc *a = sl_memory_get_alloc (trace, sl_memory_find_row_alloc (trace,
                                                                            s->steps[k].row));
  g_assert_nonnull (strstr (text, a->free != SL_NO_LINK ? "[Go to the free]"
                                                        : "Freed: never, within the trace"));
  sl_test_screenshot (GTK_WIDGET (window), "memory-click");
}

/* A trace without memory usage has no Memory row. */
static void
test_none (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  SlWindow *window = sl_test_open_window (app, 0, 0, path, NULL);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));

  g_assert_cmpint (find_row (tv, ROW_GPU_MEMORY), ==, -1);
  g_assert_cmpint (find_row (tv, ROW_GPU_UTIL), >=, 0);
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *home = g_build_filename (sl_test_tmpdir (), "xdg-data", NULL);
  g_autoptr (GError) error = NULL;
  int ret;

  g_mkdir_with_parents (home, 0700);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_test_init (&argc, &argv, NULL);

  app = sl_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_application_hold (G_APPLICATION (app));

  g_test_add_func ("/ui-memory/row", test_row);
  g_test_add_func ("/ui-memory/none", test_none);
  ret = g_test_run ();

  sl_test_app_done (GTK_APPLICATION (app));
  return ret;
}
