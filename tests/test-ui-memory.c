/* test-ui-memory.c: a GPU's memory in use in the real window under Xvfb (issue 31, item 1): a
 * "Memory" row under the GPU's utilization with the step graph of the bytes on the GPU drawn to
 * its peak (pixels), a tooltip that gives the bytes then, a real click on a change that selects
 * the cudaMalloc that made it, whose detail pane says what it allocated and where it was freed.
 * Screenshots to look at.  Criticals are fatal (G_DEBUG=fatal-criticals). */
#include <string.h>

#include <gtk/gtk.h>

#include "sl-application.h"
#include "sl-detail-pane-private.h"
#include "sl-format.h"
#include "sl-memory-panel-private.h"
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

/* The Memory tab of the window's bottom notebook, shown. */
static SlMemoryPanel *
show_memory_panel (SlWindow *window)
{
  GtkNotebook *notebook = GTK_NOTEBOOK (window->bottom);

  for (int i = 0; i < gtk_notebook_get_n_pages (notebook); i++)
    if (SL_IS_MEMORY_PANEL (gtk_notebook_get_nth_page (notebook, i)))
      {
        gtk_notebook_set_current_page (notebook, i);
        sl_test_iterate_for (100);
        return SL_MEMORY_PANEL (gtk_notebook_get_nth_page (notebook, i));
      }
  g_assert_not_reached ();
}

/* The panel's rows are the allocations `want` (guint32), in order. */
static void
assert_rows (SlMemoryPanel *panel,
             GArray        *want)
{
  g_assert_cmpuint (sl_memory_panel_get_n_rows (panel), ==, want->len);
  for (guint i = 0; i < want->len; i++)
    g_assert_cmpuint (sl_memory_panel_get_row_alloc (panel, i), ==,
                      g_array_index (want, guint32, i));
}

static GtkWidget *
find_label (GtkWidget  *widget,
            const char *text)
{
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0
      && gtk_widget_get_mapped (widget))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_label (c, text);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The Memory tab on a trace with memory usage: at the peak its rows are the model's live set
 * there; a selected range turns it to "At cursor", the live set at the range's end; "At peak" by
 * hand, and a cleared selection, bring the peak's back; a real double-click on a row selects the
 * cudaMalloc that made the allocation; "Never freed" lists those the trace never frees. */
static void
test_panel (void)
{
  g_autofree char *path = sl_test_trace_path (MEM_2024);

  /* the earlier test's window closed: real clicks go to whichever window is on top there */
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL;
       l = gtk_application_get_windows (GTK_APPLICATION (app)))
    gtk_window_destroy (l->data);
  sl_test_iterate_for (50);
  SlWindow *window = sl_test_open_window (app, 1600, 1000, path, NULL);
  SlTrace *trace = sl_window_get_trace (window);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlViewport *vp = sl_timeline_view_get_viewport (tv);
  SlMemoryPanel *panel = show_memory_panel (window);
  gint series = sl_memory_find_gpu_series (trace, 0);
  g_assert_cmpint (series, >=, 0);
  const SlMemSeries *s = sl_memory_get_series (trace, (guint) series);
  g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (guint32));

  GtkWidget *tab = gtk_notebook_get_tab_label (GTK_NOTEBOOK (window->bottom), GTK_WIDGET (panel));
  g_assert_true (gtk_widget_get_sensitive (tab));
  g_assert_cmpint (sl_memory_panel_get_series (panel), ==, series);

  /* at the peak */
  g_assert_false (sl_memory_panel_get_at_cursor (panel));
  g_assert_cmpint (sl_memory_panel_get_instant (panel), ==, s->peak_time);
  sl_memory_live_at (trace, (guint) series, s->peak_time, live);
  g_assert_cmpuint (live->len, >, 1);
  assert_rows (panel, live);
  g_autofree char *peak = sl_format_bytes ((guint64) s->peak);
  g_test_message ("%s", sl_memory_panel_get_summary (panel));
  g_assert_nonnull (strstr (sl_memory_panel_get_summary (panel), peak));
  g_assert_nonnull (strstr (sl_memory_panel_get_summary (panel), "its peak"));
  sl_test_screenshot (GTK_WIDGET (window), "memory-panel-peak");

  /* a range selected before the peak: at its end, fewer bytes live than at the peak */
  gsize k = s->peak_step / 2;
  SlTime t1 = s->steps[k].time;
  g_assert_cmpint (s->steps[k].bytes, <, s->peak);
  sl_viewport_set_selection (vp, s->steps[0].time - 1000, t1);
  sl_test_iterate_for (50);
  g_assert_true (sl_memory_panel_get_at_cursor (panel));
  g_assert_cmpint (sl_memory_panel_get_instant (panel), ==, t1);
  g_array_set_size (live, 0);
  sl_memory_live_at (trace, (guint) series, t1, live);
  assert_rows (panel, live);
  g_assert_nonnull (strstr (sl_memory_panel_get_summary (panel), "the end of the selection"));
  sl_test_screenshot (GTK_WIDGET (window), "memory-panel-cursor");

  /* "At peak" by hand, the selection kept; then the selection cleared */
  sl_memory_panel_set_at_cursor (panel, FALSE);
  g_array_set_size (live, 0);
  sl_memory_live_at (trace, (guint) series, s->peak_time, live);
  assert_rows (panel, live);
  sl_memory_panel_set_at_cursor (panel, TRUE);
  g_assert_cmpint (sl_memory_panel_get_instant (panel), ==, t1);
  sl_viewport_clear_selection (vp);
  sl_test_iterate_for (50);
  g_assert_false (sl_memory_panel_get_at_cursor (panel));
  assert_rows (panel, live);

  /* a double-click on a row made by a call (the largest ones are) selects that call */
  guint row = 0;
  while (row < live->len
         && sl_memory_get_row_call (trace, sl_memory_get_alloc (
                                             trace, g_array_index (live, guint32, row))->alloc)
              == SL_NO_LINK)
    row++;
  g_assert_cmpuint (row, <, 5);   /* on screen */
  const SlMemAlloc *a = sl_memory_get_alloc (trace, g_array_index (live, guint32, row));
  const SlLane *lane;
  gsize index;
  g_assert_true (sl_trace_resolve (trace, sl_memory_get_row_call (trace, a->alloc), &lane,
                                   &index));
  Selected want = { tv, { (gint) lane->index, index } };
  g_assert_false (is_selected (&want));
  g_autofree char *address = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", a->address);
  GtkWidget *cell = find_label (sl_memory_panel_get_view (panel), address);
  g_assert_nonnull (cell);
  /* a real double-click, else (no xdotool) as one does; on a loaded machine xdotool's two
   * clicks can land further apart than a double-click's time, so up to three tries */
  gboolean selected = FALSE;
  for (guint tries = 0; tries < 3 && !selected; tries++)
    {
      sl_test_iterate_for (100);
      if (!sl_test_real_double_click (cell, gtk_widget_get_width (cell) / 2.0,
                                      gtk_widget_get_height (cell) / 2.0))
        {
          g_test_message ("no xdotool: the row activated as a double-click does");
          g_signal_emit_by_name (sl_memory_panel_get_view (panel), "activate", row);
        }
      selected = sl_test_wait_until (is_selected, &want, 3000);
      g_test_message ("double-click %u: %s", tries + 1, selected ? "selected" : "not yet");
    }
  if (!selected)
    {
      /* xdotool's clicks lost under load (1 run in 2 here with the suite running beside it):
       * what the activation does is still checked */
      g_test_message ("real double-clicks did not arrive: the row activated as one does");
      g_signal_emit_by_name (sl_memory_panel_get_view (panel), "activate", row);
      selected = sl_test_wait_until (is_selected, &want, 3000);
    }
  g_assert_true (selected);
  sl_test_iterate_for (100);
  g_autofree char *text = _sl_detail_pane_get_text (
    SL_DETAIL_PANE (sl_window_get_detail_pane (window)));
  g_assert_nonnull (strstr (text, address));
  sl_test_screenshot (GTK_WIDGET (window), "memory-panel-activated");

  /* never freed: the allocations of the GPU with no free, largest first (the tab shown again: a
   * real click that went astray under load may have opened another one, and a hidden panel
   * lists its rows when it is shown) */
  panel = show_memory_panel (window);
  sl_memory_panel_set_view (panel, SL_MEMORY_VIEW_NEVER_FREED);
  guint never = 0;
  for (guint i = 0; i < sl_memory_get_n_allocs (trace); i++)
    {
      const SlMemAlloc *n = sl_memory_get_alloc (trace, i);
      never += n->alloc != SL_NO_LINK && n->free == SL_NO_LINK && sl_mem_series_holds (s, n);
    }
  g_assert_cmpuint (sl_memory_panel_get_n_rows (panel), ==, never);
  for (guint i = 0; i < sl_memory_panel_get_n_rows (panel); i++)
    {
      const SlMemAlloc *n = sl_memory_get_alloc (trace, sl_memory_panel_get_row_alloc (panel, i));
      g_assert_cmpuint (n->free, ==, SL_NO_LINK);
      if (i > 0)
        g_assert_cmpuint (n->bytes, <=, sl_memory_get_alloc (
                                          trace, sl_memory_panel_get_row_alloc (panel, i - 1))
                                          ->bytes);
    }
  sl_test_iterate_for (100);
  if (never > 0)   /* the cells say so */
    g_assert_nonnull (find_label (sl_memory_panel_get_view (panel), "never"));
  sl_test_screenshot (GTK_WIDGET (window), "memory-panel-never-freed");
  sl_memory_panel_set_view (panel, SL_MEMORY_VIEW_LARGEST);
  guint held = 0;
  for (guint i = 0; i < sl_memory_get_n_allocs (trace); i++)
    {
      const SlMemAlloc *n = sl_memory_get_alloc (trace, i);
      held += n->alloc != SL_NO_LINK && sl_mem_series_holds (s, n);
    }
  g_assert_cmpuint (sl_memory_panel_get_n_rows (panel), ==, held);
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

  /* and a greyed Memory tab that says how to record it */
  SlMemoryPanel *panel = show_memory_panel (window);
  GtkWidget *tab = gtk_notebook_get_tab_label (GTK_NOTEBOOK (window->bottom), GTK_WIDGET (panel));
  g_assert_false (gtk_widget_get_sensitive (tab));
  g_assert_cmpuint (sl_memory_panel_get_n_rows (panel), ==, 0);
  g_autoptr (GString) labels = g_string_new (NULL);
  sl_test_collect_labels (GTK_WIDGET (panel), labels);
  g_assert_nonnull (strstr (labels->str, "sightline record --cuda-memory-usage"));
  sl_test_screenshot (GTK_WIDGET (window), "memory-panel-none");
}

int
main (int    argc,
      char **argv)
{
  int ret;

  app = sl_test_window_app_new (&argc, &argv);

  g_test_add_func ("/ui-memory/row", test_row);
  g_test_add_func ("/ui-memory/panel", test_panel);
  g_test_add_func ("/ui-memory/none", test_none);
  ret = g_test_run ();

  sl_test_app_done (GTK_APPLICATION (app));
  return ret;
}
