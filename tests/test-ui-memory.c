/* test-ui-memory.c: a GPU's memory in use in the real window under Xvfb (issue 31, item 1): a
 * "Memory" row under the GPU's utilization with the step graph of the bytes on the GPU drawn to
 * its peak (pixels), a tooltip that gives the bytes then, a real click on a change that selects
 * the cudaMalloc that made it, whose detail pane says what it allocated and where it was freed.
 * Unified memory's page faults (issue 31, item 2): a "Page faults" row under each GPU that
 * faulted and a "CPU page faults" row under each process that did, their bars as tall as the
 * model's faults per pixel column, their tooltips the model's numbers.
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
#include "sl-um-faults.h"
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

#ifdef SL_GEN_PATH
/* The faults of `side` (of GPU `gpu`, or process `pid`) starting in [t0, t1), by brute force over
 * the rows: how many, in how many rows, their addresses' range and per access type. */
typedef struct
{
  guint64 faults, rows, lo, hi;
  guint64 by_access[5];
} FaultSum;

static FaultSum
faults_between (SlTrace      *trace,
                SlUmFaultSide side,
                gint          gpu,
                guint64       pid,
                SlTime        t0,
                SlTime        t1)
{
  FaultSum s = { 0, 0, G_MAXUINT64, 0, { 0 } };

  for (guint i = 0; i < sl_trace_get_n_um_faults (trace); i++)
    {
      const SlUmFault *f = sl_trace_get_um_fault (trace, i);
      if (f->side != side || (side == SL_UM_FAULT_GPU ? f->gpu != gpu : f->global_pid != pid)
          || f->start < t0 || f->start >= t1)
        continue;
      s.faults += f->n_faults;
      s.rows++;
      s.lo = MIN (s.lo, f->address);
      s.hi = MAX (s.hi, f->address);
      if (f->access < 5)
        s.by_access[f->access] += f->n_faults;
    }
  return s;
}

/* The height of the bar drawn in the fault colour in column `x` of `pixels` between rows y0 and
 * y1 (widget coordinates). */
static int
bar_height (SlTimelineView *tv,
            const guchar   *pixels,
            gsize           stride,
            int             x,
            int             y0,
            int             y1)
{
  GdkRGBA c = tv->pal.um_fault;
  int h = 0;

  for (int y = y0; y < y1; y++)
    {
      const guchar *p = pixels + (gsize) y * stride + (gsize) x * 4;   /* B G R A */
      h += ABS (p[2] - (int) (c.red * 255)) < 40 && ABS (p[1] - (int) (c.green * 255)) < 40
           && ABS (p[0] - (int) (c.blue * 255)) < 40;
    }
  return h;
}

/* The widget drawn to pixels (B G R A rows of `stride` bytes). */
static guchar *
render (SlTimelineView *tv,
        gsize          *stride)
{
  GtkWidget *w = GTK_WIDGET (tv);
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (w);
  g_autoptr (GskRenderNode) node = NULL;
  /* the paintable has the widget's image once it has drawn a frame with it */
  for (int tries = 0; node == NULL && tries < 40; tries++)
    {
      GtkSnapshot *snapshot = gtk_snapshot_new ();
      gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (w),
                              gtk_widget_get_height (w));
      node = gtk_snapshot_free_to_node (snapshot);
      if (node == NULL)
        sl_test_iterate_for (50);
    }
  g_assert_nonnull (node);
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (w));
  g_autoptr (GdkTexture) texture = gsk_renderer_render_texture (renderer, node, NULL);
  *stride = (gsize) gdk_texture_get_width (texture) * 4;
  guchar *pixels = g_malloc (*stride * (gsize) gdk_texture_get_height (texture));
  gdk_texture_download (texture, pixels, *stride);
  return pixels;
}

/* A faults row, shown over [t0, t1): each column's bar is as tall as its faults (by brute force,
 * columns bounded as a frame bounds them) over the most of any column, the tooltip over the
 * fullest column gives the model's numbers.  Returns how many columns had faults. */
static guint
check_faults_row (SlTimelineView *tv,
                  SlTrace        *trace,
                  gint            ri,
                  SlTime          t0,
                  SlTime          t1)
{
  const Row *r = row_get (tv, ri);
  const SlUmFaultSeries *s = sl_um_faults_get_series (trace, (guint) r->track);
  SlUmFaultSide side = s->side;

  sl_viewport_set_visible (sl_timeline_view_get_viewport (tv), t0, t1, FALSE);
  gtk_adjustment_set_value (tv->vadjustment, MAX (r->y - 200, 0));
  sl_test_iterate_for (200);
  r = row_get (tv, ri);
  double y = RULER_H + r->y - scroll_y (tv);
  SlTime v0, v1;
  sl_viewport_get_visible (sl_timeline_view_get_viewport (tv), &v0, &v1);
  double width = gtk_widget_get_width (GTK_WIDGET (tv)) - HEADER_W;
  double scale = width / (double) MAX (v1 - v0, 1);
  guint n = (guint) ceil (width);
  g_autofree guint64 *want = g_new0 (guint64, n);
  guint64 most = 0;
  guint cmax = 0, with = 0;
  for (guint c = 0; c < n; c++)
    {
      SlTime a = c == 0 ? v0 : v0 + (SlTime) ((double) c / scale);
      SlTime b = v0 + (SlTime) ((double) (c + 1) / scale);
      want[c] = faults_between (trace, side, s->gpu, s->global_pid, a, b).faults;
      if (want[c] > most)
        {
          most = want[c];
          cmax = c;
        }
      with += want[c] > 0;
    }
  g_assert_cmpuint (most, >, 0);

  gsize stride;
  g_autofree guchar *pixels = render (tv, &stride);
  double full = r->h - 5;
  int top = (int) (y + 3), bottom = (int) ceil (y + 3 + full);
  guint checked = 0, exact = 0;
  /* past the "max … faults / px" label at the row's left */
  for (guint c = 240; c < n; c++)
    {
      int want_h = want[c] == 0 ? 0 : (int) MAX (1.0, round (full * (double) want[c] / most));
      int got = bar_height (tv, pixels, stride, (int) (HEADER_W + c), top, bottom);
      checked++;
      exact += got == want_h;
      if (got != want_h && checked - exact < 5)
        g_test_message ("column %u: %" G_GUINT64_FORMAT " faults, bar %d px, want %d", c, want[c],
                        got, want_h);
    }
  g_test_message ("%s: %u columns with faults, most %" G_GUINT64_FORMAT ", %u of %u bars right",
                  r->label, with, most, exact, checked);
  g_assert_cmpuint (exact, >=, checked - checked / 50);   /* a column at a rounding edge */
  /* the fullest column's bar reaches the top; an empty one is empty */
  if (cmax >= 240)
    g_assert_cmpint (bar_height (tv, pixels, stride, (int) (HEADER_W + cmax), top, bottom), >=,
                     (int) full - 1);

  /* the tooltip over the fullest column: the model's faults in the window under the pointer */
  double x = HEADER_W + cmax + 0.5;
  SlTime w0, w1;
  _sl_timeline_faults_window (tv, x, &w0, &w1);
  FaultSum sum = faults_between (trace, side, s->gpu, s->global_pid, w0, w1);
  g_autofree char *tip = _sl_timeline_faults_tooltip (tv, r, x);
  g_assert_nonnull (tip);
  g_test_message ("tooltip: %s", tip);
  g_assert_cmpuint (sum.faults, >=, most);
  g_autofree char *head = side == SL_UM_FAULT_GPU
    ? g_strdup_printf ("GPU page faults: %" G_GUINT64_FORMAT " in %" G_GUINT64_FORMAT " group%s",
                       sum.faults, sum.rows, sum.rows == 1 ? "" : "s")
    : g_strdup_printf ("CPU page faults: %" G_GUINT64_FORMAT "\n", sum.faults);
  g_assert_nonnull (strstr (tip, head));
  g_autofree char *addr = sum.lo == sum.hi
    ? g_strdup_printf ("Address 0x%" G_GINT64_MODIFIER "x", sum.lo)
    : g_strdup_printf ("Addresses 0x%" G_GINT64_MODIFIER "x – 0x%" G_GINT64_MODIFIER "x",
                       sum.lo, sum.hi);
  g_assert_nonnull (strstr (tip, addr));
  for (guint a = 0; side == SL_UM_FAULT_GPU && a < 5; a++)
    if (sum.by_access[a] > 0)
      {
        g_autofree char *part = g_strdup_printf ("%s %" G_GUINT64_FORMAT,
                                                 sl_um_access_label ((guint8) a), sum.by_access[a]);
        g_assert_nonnull (strstr (tip, part));
      }
  g_autofree char *in_view = g_strdup_printf (
    "\n%" G_GUINT64_FORMAT " in view", faults_between (trace, side, s->gpu, s->global_pid, v0,
                                                      v1).faults);
  g_assert_true (g_str_has_suffix (tip, in_view));
  return with;
}

/* sightline-gen --um-faults (2 GPUs): each GPU's "Page faults" row, beside its Memory row or
 * under its utilization, and the faulting process's "CPU page faults" row in its group. */
static void
test_faults (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "ui-um-faults.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };
  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "30000", "--gpus", "2", "--um-faults",
               "--memory-usage", "--seed", "3", "--force", NULL);
  if (run.status != 0)
    g_error ("sightline-gen: %s", run.err);
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL;
       l = gtk_application_get_windows (GTK_APPLICATION (app)))
    gtk_window_destroy (l->data);
  sl_test_iterate_for (50);
  SlWindow *window = sl_test_open_window (app, 1600, 1000, path, NULL);
  SlTrace *trace = sl_window_get_trace (window);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  guint gpu_rows = 0, cpu_rows = 0;

  g_assert_cmpuint (sl_trace_get_n_um_faults (trace), >, 0);
  for (guint k = 0; k < sl_um_faults_get_n_series (trace); k++)
    {
      const SlUmFaultSeries *s = sl_um_faults_get_series (trace, k);
      gint ri = -1;
      for (guint i = 0; i < tv->rows->len && ri < 0; i++)
        if (row_get (tv, i)->kind == ROW_UM_FAULTS && row_get (tv, i)->track == (gint) k)
          ri = (gint) i;
      g_assert_cmpint (ri, >, 0);
      const Row *r = row_get (tv, ri), *above = row_get (tv, ri - 1);
      if (s->side == SL_UM_FAULT_GPU)
        {
          /* right below the GPU's Memory row */
          g_assert_cmpstr (r->label, ==, "Page faults");
          g_assert_cmpint (r->gpu, ==, s->gpu);
          g_assert_cmpint (above->kind, ==, ROW_GPU_MEMORY);
          g_assert_cmpint (above->gpu, ==, s->gpu);
          gpu_rows++;
        }
      else
        {
          /* in the group of its process */
          g_assert_cmpstr (r->label, ==, "CPU page faults");
          g_autofree char *key = g_strdup_printf ("p:%" G_GUINT64_FORMAT, s->global_pid);
          gint g = ri - 1;
          while (g >= 0 && !(row_get (tv, g)->kind == ROW_GROUP
                             && row_get (tv, g)->level < r->level))
            g--;
          g_assert_cmpint (g, >=, 0);
          g_assert_cmpstr (row_get (tv, g)->key, ==, key);
          cpu_rows++;
        }
      /* all of them, the first past the label at the row's left */
      SlTime a = s->starts[0], b = s->starts[s->n_rows - 1];
      SlTime t0 = a - (b - a) / 4, t1 = b + (b - a) / 20;
      g_assert_cmpuint (check_faults_row (tv, trace, ri, t0, t1), >, 20);
      g_autofree char *shot = g_strdup_printf ("faults-%s-%u",
                                               s->side == SL_UM_FAULT_GPU ? "gpu" : "cpu", k);
      sl_test_screenshot (GTK_WIDGET (window), shot);
    }
  g_assert_cmpuint (gpu_rows, ==, 2);
  g_assert_cmpuint (cpu_rows, >=, 1);
}
#endif

int
main (int    argc,
      char **argv)
{
  int ret;

  app = sl_test_window_app_new (&argc, &argv);

  g_test_add_func ("/ui-memory/row", test_row);
  g_test_add_func ("/ui-memory/panel", test_panel);
  g_test_add_func ("/ui-memory/none", test_none);
#ifdef SL_GEN_PATH
  g_test_add_func ("/ui-memory/faults", test_faults);
#endif
  ret = g_test_run ();

  sl_test_app_done (GTK_APPLICATION (app));
  return ret;
}
