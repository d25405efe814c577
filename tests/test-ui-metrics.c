/* test-ui-metrics.c: nsys's GPU metrics in the real window under Xvfb (issue 31, item 3): under
 * each GPU a "GPU metrics" group with SMs Active shown and the GPU's other metrics folded (a real
 * click unfolds them, in the model's order, titled without their units); the bars drawn in pixel
 * columns as tall as sl_metrics_columns' mean and max say (a "%" metric to 100, a MHz one to its
 * largest sample); the tooltip's value is the model's at that time; "Utilization from: SM
 * Active" in the utilization row's menu makes the utilization and the idle overlay SMs Active's,
 * and says so.  A trace without metrics has no group and no such choice.  Screenshots to look
 * at.  Criticals are fatal (G_DEBUG=fatal-criticals). */
#include <math.h>
#include <string.h>

#include <gtk/gtk.h>

#include "sl-application.h"
#include "sl-metrics.h"
#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-test-window.h"
#include "sl-timeline-view-private.h"
#include "sl-utilization.h"
#include "sl-window-private.h"

#define SMS_ACTIVE "SMs Active [Throughput %]"
#define GPC_CLOCK  "GPC Clock Frequency [MHz]"

static SlApplication *app;

/* sightline-gen -n 20000 --gpus 2 [--gpu-metrics] (nsys's 10 kHz: ~3 k samples a series, two or
 * three a pixel column of the whole trace), made once per name. */
static char *
generated (const char *name,
           gboolean    metrics)
{
  char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
  g_auto (SlTestRun) run = { 0 };

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "20000", "--gpus", "2", "--seed", "7",
               "--force", metrics ? "--gpu-metrics" : NULL, NULL);
  if (run.status != 0)
    g_error ("sightline-gen: %s", run.err);
  return path;
}

static void
spin (guint ms)
{
  sl_test_iterate_for (ms);
}

/* The rows of `kind` of GPU `gpu`, in order (indices into the view's rows). */
static GArray *
rows_of (SlTimelineView *tv,
         RowKind         kind,
         gint            gpu)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gint));

  for (guint i = 0; i < tv->rows->len; i++)
    if (row_get (tv, (gint) i)->kind == kind && row_get (tv, (gint) i)->gpu == gpu)
      {
        gint k = (gint) i;
        g_array_append_val (out, k);
      }
  return out;
}

static gint
group_row (SlTimelineView *tv,
           gint            gpu,
           const char     *label)
{
  for (guint i = 0; i < tv->rows->len; i++)
    {
      const Row *r = row_get (tv, (gint) i);
      if (r->kind == ROW_GROUP && r->gpu == gpu && g_strcmp0 (r->label, label) == 0)
        return (gint) i;
    }
  return -1;
}

/* The series of GPU `gpu` in the model's order, and the one named `name` (-1 when none). */
static GArray *
model_series (SlTrace    *trace,
              gint        gpu,
              const char *name,
              gint       *named)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gint));

  *named = -1;
  for (guint i = 0; i < sl_metrics_get_n_series (trace); i++)
    if (sl_metrics_get_series (trace, i)->gpu == gpu)
      {
        gint k = (gint) i;
        g_array_append_val (out, k);
        if (g_str_equal (sl_metrics_get_name (trace, i), name))
          *named = k;
      }
  return out;
}

/* What the widget shows, as pixels (B G R A rows of `stride` bytes). */
static guchar *
render (SlTimelineView *tv,
        gsize          *stride)
{
  GtkWidget *w = GTK_WIDGET (tv);
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (w);
  int width = gtk_widget_get_width (w), height = gtk_widget_get_height (w);
  g_autoptr (GskRenderNode) node = NULL;
  /* a widget that has not drawn since it changed gives no node yet: a few frames more */
  for (int tries = 0; node == NULL && tries < 40; tries++)
    {
      GtkSnapshot *snapshot = gtk_snapshot_new ();
      gdk_paintable_snapshot (paintable, snapshot, width, height);
      node = gtk_snapshot_free_to_node (snapshot);
      if (node == NULL)
        sl_test_iterate_for (50);
    }
  g_assert_nonnull (node);
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (w));
  g_autoptr (GdkTexture) texture
    = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  *stride = (gsize) gdk_texture_get_width (texture) * 4;
  guchar *pixels = g_malloc (*stride * (gsize) gdk_texture_get_height (texture));
  gdk_texture_download (texture, pixels, *stride);
  return pixels;
}

static gboolean
is_color (const guchar  *p,
          const GdkRGBA *c)
{
  return ABS (p[2] - (int) (c->red * 255)) < 14 && ABS (p[1] - (int) (c->green * 255)) < 14
         && ABS (p[0] - (int) (c->blue * 255)) < 14;
}

/* The bar heights a value is drawn with in a row of height h, full at `top`. */
static gint
expected_px (double value,
             double top,
             double h)
{
  double gh = h - 6;
  if (!(value > 0))
    return 0;
  return (gint) MAX (1.0, round (gh * MIN (value / top, 1.0)));
}

/*
 * Row `ri`'s bars against the model: in every 7th pixel column, from the row's base up, the mean
 * colour as high as the column's mean and above it the max colour (the mean's mixed 40 % over
 * the background) up to its max, within a pixel.  Returns how many columns had a bar.
 */
static guint
check_bars (SlTimelineView *tv,
            gint            ri,
            double          top,
            gboolean        zoomed_out)
{
  const Row *r = row_get (tv, ri);
  SlTrace *trace = tv->trace;
  gsize stride;
  g_autofree guchar *px = render (tv, &stride);
  SlTime t0, t1;
  guint n = (guint) ceil (gtk_widget_get_width (GTK_WIDGET (tv)) - HEADER_W);
  g_autofree double *max = g_new (double, n);
  g_autofree double *mean = g_new (double, n);
  GdkRGBA dark = tv->pal.util_kernels, bg = tv->pal.bg, light;
  guint bars = 0, taller = 0;
  int y0 = (int) round (RULER_H + r->y - scroll_y (tv));
  int bottom = y0 + (int) (r->h - 2) - 1;   /* the lowest row of a bar */

  g_assert_cmpfloat (dark.alpha, ==, 1);
  light = (GdkRGBA) { bg.red + (dark.red - bg.red) * 0.4f, bg.green + (dark.green - bg.green) * 0.4f,
                      bg.blue + (dark.blue - bg.blue) * 0.4f, 1 };
  sl_viewport_get_visible (sl_timeline_view_get_viewport (tv), &t0, &t1);
  sl_metrics_columns (trace, (guint) r->track, t0, t1, n, max, mean);
  for (guint c = 3; c + 3 < n; c += 7)
    {
      const guchar *p = px + (gsize) HEADER_W * 4 + (gsize) c * 4;
      gint want_mean = expected_px (mean[c], top, r->h), want_max = expected_px (max[c], top, r->h);
      gint got_mean = 0, got_max;
      while (got_mean < 60 && is_color (p + (gsize) (bottom - got_mean) * stride, &dark))
        got_mean++;
      got_max = got_mean;
      while (got_max < 60 && is_color (p + (gsize) (bottom - got_max) * stride, &light))
        got_max++;
      if (ABS (got_mean - want_mean) > 1 || ABS (MAX (got_max, got_mean) - MAX (want_max, want_mean)) > 1)
        g_error ("row %s, column %u: drawn mean %d px, max %d px; the model's mean %g, max %g: "
                 "%d px, %d px", r->label, c, got_mean, got_max, mean[c], max[c], want_mean,
                 want_max);
      bars += want_mean > 0;
      taller += want_max > want_mean + 1;
    }
  g_test_message ("row %s: %u columns with a bar, %u with a max above the mean", r->label, bars,
                  taller);
  if (zoomed_out)
    g_assert_cmpuint (taller, >, 0);   /* several samples a column: their max shows */
  return bars;
}

/* The value a metrics tooltip gives (after "Value: "), NAN when none. */
static double
tooltip_value (const char *tip)
{
  const char *v = strstr (tip, "Value: ");
  return v != NULL ? g_ascii_strtod (v + 7, NULL) : NAN;
}

static void
check_tooltips (SlTimelineView *tv,
                gint            ri)
{
  const Row *r = row_get (tv, ri);
  const char *name = sl_metrics_get_name (tv->trace, (guint) r->track);
  guint checked = 0;

  for (double x = HEADER_W + 10.5; x < gtk_widget_get_width (GTK_WIDGET (tv)) - 10; x += 97)
    {
      double v;
      g_autofree char *tip = _sl_timeline_metrics_tooltip (tv, r, x);
      g_assert_nonnull (tip);
      g_assert_true (g_str_has_prefix (tip, name));
      if (!sl_metrics_value_at (tv->trace, (guint) r->track, x_to_time (tv, x), &v))
        {
          g_assert_nonnull (strstr (tip, "No sample in effect"));
          continue;
        }
      /* given to three significant digits, whole from 100 up */
      double got = tooltip_value (tip);
      double slack = fabs (v) >= 100 ? 0.5 : fabs (v) >= 10 ? 0.05 : 0.005;
      if (!(fabs (got - v) <= slack + 1e-9))
        g_error ("tooltip at x %g: %s\nthe model's value there: %g", x, tip, v);
      g_assert_nonnull (strstr (tip, "This pixel: mean "));
      checked++;
    }
  g_assert_cmpuint (checked, >, 5);
}

/* Whether GPU 0's "N more metrics" group is open: a condition for sl_test_wait_until. */
static gboolean
more_open (gpointer data)
{
  SlTimelineView *tv = data;
  gint gi = group_row (tv, 0, "GPU metrics");

  return gi >= 0 && (guint) gi + 2 < tv->rows->len && row_get (tv, gi + 2)->kind == ROW_GROUP
         && !row_get (tv, gi + 2)->collapsed;
}

static void
test_rows (void)
{
  g_autofree char *path = generated ("metrics.sqlite", TRUE);
  SlWindow *window = sl_test_open_window (app, 1600, 1000, path, NULL);
  SlTrace *trace = sl_window_get_trace (window);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlViewport *vp = sl_timeline_view_get_viewport (tv);

  g_assert_cmpuint (sl_metrics_get_n_series (trace), >, 0);
  for (gint g = 0; g < 2; g++)
    {
      gint sm, gpc;
      g_autoptr (GArray) series = model_series (trace, g, SMS_ACTIVE, &sm);
      g_autoptr (GArray) shown = rows_of (tv, ROW_GPU_METRIC, g);
      g_autofree char *more = g_strdup_printf ("%u more metrics", series->len - 1);
      gint gi = group_row (tv, g, "GPU metrics"), mi = group_row (tv, g, more);

      g_array_unref (model_series (trace, g, GPC_CLOCK, &gpc));
      g_assert_cmpint (sm, >=, 0);
      g_assert_cmpint (gpc, >=, 0);
      g_assert_cmpuint (series->len, >, 2);
      /* the group, open; SMs Active in it, titled without its unit; the rest folded after it */
      g_assert_cmpint (gi, >=, 0);
      g_assert_false (row_get (tv, gi)->collapsed);
      g_assert_cmpuint (shown->len, ==, 1);
      g_assert_cmpint (g_array_index (shown, gint, 0), ==, gi + 1);
      g_assert_cmpint (row_get (tv, gi + 1)->track, ==, sm);
      g_assert_cmpstr (row_get (tv, gi + 1)->label, ==, "SMs Active");
      g_assert_cmpint (mi, ==, gi + 2);
      g_assert_true (row_get (tv, mi)->collapsed);
      g_assert_cmpuint (row_get (tv, mi)->level, ==, row_get (tv, gi)->level + 1);
    }

  /* the whole trace in view, GPU 0's metrics at the top */
  sl_viewport_show_all (vp);
  gint gi = group_row (tv, 0, "GPU metrics");
  gtk_adjustment_set_value (tv->vadjustment, row_get (tv, gi)->y - 60);
  spin (200);
  sl_test_screenshot (GTK_WIDGET (window), "metrics-group");

  /* SMs Active's bars and tooltips, drawn to 100 % */
  guint bars = check_bars (tv, gi + 1, 100, TRUE);
  g_assert_cmpuint (bars, >, 20);
  check_tooltips (tv, gi + 1);
  g_autofree char *header = _sl_timeline_row_tooltip (tv, gi + 1);
  g_test_message ("header tooltip: %s", header);
  g_assert_true (g_str_has_prefix (header, SMS_ACTIVE "\nDrawn 0 – 100 Throughput %"));

  /* a real click on "N more metrics" unfolds them: every series of the GPU, in the model's order */
  gint sm, gpc;
  g_autoptr (GArray) series = model_series (trace, 0, SMS_ACTIVE, &sm);
  g_array_unref (model_series (trace, 0, GPC_CLOCK, &gpc));
  double my = RULER_H + row_get (tv, gi + 2)->y - scroll_y (tv) + ROW_GROUP_H / 2;
  g_assert_true (sl_test_real_click (GTK_WIDGET (tv), 60, my, 1));
  g_assert_true (sl_test_wait_until (more_open, tv, 5000));
  spin (100);
  gi = group_row (tv, 0, "GPU metrics");
  g_autoptr (GArray) shown = rows_of (tv, ROW_GPU_METRIC, 0);
  g_assert_cmpuint (shown->len, ==, series->len);
  for (guint k = 0, s = 0; k < series->len; k++)
    {
      gint track = g_array_index (series, gint, k);
      if (track == sm)
        continue;
      const Row *r = row_get (tv, g_array_index (shown, gint, ++s));
      g_autofree char *name = g_strdup (sl_metrics_get_name (trace, (guint) track));
      *strrchr (name, '[') = '\0';
      g_assert_cmpint (r->track, ==, track);
      g_assert_cmpstr (r->label, ==, g_strstrip (name));
    }
  /* the other GPU's stay folded */
  g_autoptr (GArray) other = rows_of (tv, ROW_GPU_METRIC, 1);
  g_assert_cmpuint (other->len, ==, 1);

  /* GPC Clock: MHz, drawn to its largest sample */
  gint ci = -1;
  for (guint k = 0; k < shown->len; k++)
    if (row_get (tv, g_array_index (shown, gint, k))->track == gpc)
      ci = g_array_index (shown, gint, k);
  g_assert_cmpint (ci, >=, 0);
  gtk_adjustment_set_value (tv->vadjustment, row_get (tv, ci)->y - 200);
  spin (200);
  sl_test_screenshot (GTK_WIDGET (window), "metrics-unfolded");
  SlMetricStats st;
  g_assert_true (sl_metrics_stats (trace, (guint) gpc, G_MININT64, G_MAXINT64, &st));
  g_assert_cmpuint (check_bars (tv, ci, st.max, TRUE), >, 20);
  check_tooltips (tv, ci);
  g_autofree char *clock = _sl_timeline_row_tooltip (tv, ci);
  g_autofree char *range = g_strdup_printf ("Drawn 0 – %.0f MHz", st.max);
  g_test_message ("header tooltip: %s", clock);
  g_assert_nonnull (strstr (clock, range));

  /* zoomed in where the SMs are busy: a few samples across the view, each a step (a column
   * holds one sample, or two at a step: its max above its mean there only) */
  const double *values = sl_metrics_get_values (trace, (guint) sm);
  guint64 k = 0;
  while (k + 8 < sl_metrics_get_series (trace, (guint) sm)->count
         && !(values[k] > 20 && values[k + 2] > 20 && values[k + 4] > 20))
    k++;
  SlTime a = sl_metrics_get_times (trace, (guint) sm)[k];
  sl_viewport_set_visible (vp, a, a + 6 * sl_metrics_get_series (trace, (guint) sm)->period, FALSE);
  gtk_adjustment_set_value (tv->vadjustment, row_get (tv, gi)->y - 60);
  spin (200);
  g_assert_cmpuint (check_bars (tv, gi + 1, 100, FALSE), >, 20);
  check_tooltips (tv, gi + 1);
  sl_test_screenshot (GTK_WIDGET (window), "metrics-zoomed");
  gtk_window_destroy (GTK_WINDOW (window));
  spin (100);
}

static gchar *
menu_text (SlTimelineView *tv,
           double          x,
           double          y)
{
  GtkWidget *menu = sl_timeline_view_context_menu_at (tv, x, y, TRUE);
  GMenuModel *model = gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (menu));
  GString *out = g_string_new (NULL);

  for (gint i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autoptr (GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);
      for (gint k = 0; section != NULL && k < g_menu_model_get_n_items (section); k++)
        {
          g_autofree char *label = NULL;
          if (g_menu_model_get_item_attribute (section, k, G_MENU_ATTRIBUTE_LABEL, "s", &label))
            g_string_append_printf (out, "%s\n", label);
        }
    }
  gtk_popover_popdown (GTK_POPOVER (menu));
  spin (50);
  return g_string_free (out, FALSE);
}

/* The middle pixel line of GPU 0's "All streams" row (the overlay shades it), B G R A. */
static guchar *
all_streams_line (SlTimelineView *tv)
{
  g_autoptr (GArray) all = rows_of (tv, ROW_GPU_ALL, 0);
  const Row *r = row_get (tv, g_array_index (all, gint, 0));
  gsize stride;
  g_autofree guchar *px = render (tv, &stride);
  int y = (int) (RULER_H + r->y - scroll_y (tv) + r->h / 2);

  return g_memdup2 (px + (gsize) y * stride, stride);
}

/* Columns of the lanes area where two such lines differ. */
static guint
columns_differ (SlTimelineView *tv,
                const guchar   *a,
                const guchar   *b)
{
  guint n = 0;

  for (int x = (int) HEADER_W; x < gtk_widget_get_width (GTK_WIDGET (tv)); x++)
    n += memcmp (a + x * 4, b + x * 4, 3) != 0;
  return n;
}

static void
test_util_sm (void)
{
  g_autofree char *path = generated ("metrics.sqlite", TRUE);
  SlWindow *window = sl_test_open_window (app, 1600, 1000, path, NULL);
  SlTrace *trace = sl_window_get_trace (window);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  gint sm;
  g_array_unref (model_series (trace, 0, SMS_ACTIVE, &sm));
  g_autoptr (GArray) util = rows_of (tv, ROW_GPU_UTIL, 0);
  gint ui = g_array_index (util, gint, 0);

  sl_viewport_show_all (sl_timeline_view_get_viewport (tv));
  sl_timeline_view_set_util_overlay (tv, TRUE);
  gtk_adjustment_set_value (tv->vadjustment, MAX (row_get (tv, ui)->y - 60, 0));
  spin (200);
  double uy = RULER_H + row_get (tv, ui)->y - scroll_y (tv) + 10;
  g_assert_cmpstr (row_get (tv, ui)->label, ==, "Utilization");
  g_autofree guchar *before = all_streams_line (tv);
  g_autofree char *tip0 = _sl_timeline_util_text (tv, 0, 400);
  g_assert_nonnull (strstr (tip0, "kernels"));

  /* offered on the utilization row of a GPU with SMs Active, not on others rows */
  g_autofree char *items = menu_text (tv, HEADER_W + 300, uy);
  g_test_message ("menu on the utilization row:\n%s", items);
  g_assert_nonnull (strstr (items, "Utilization from: SM Active\n"));
  g_autoptr (GArray) all = rows_of (tv, ROW_GPU_ALL, 0);
  g_autofree char *elsewhere = menu_text (tv, HEADER_W + 300,
                                          RULER_H + row_get (tv, g_array_index (all, gint, 0))->y
                                            - scroll_y (tv) + 5);
  g_assert_null (strstr (elsewhere, "Utilization from"));

  /* chosen: the row's series are SMs Active's column means, the busy one adds copies alone */
  g_free (menu_text (tv, HEADER_W + 300, uy));   /* the menu's target is that row */
  gtk_widget_activate_action (GTK_WIDGET (tv), "timeline.util-from-sm", NULL);
  spin (200);
  ui = group_row (tv, 0, "GPU metrics") - 1;
  while (row_get (tv, ui)->kind != ROW_GPU_UTIL)
    ui--;
  g_assert_cmpstr (row_get (tv, ui)->label, ==, "Utilization (SMs Active)");
  UtilCache *u = _sl_timeline_util_current (tv, 0);
  g_autofree double *mean = g_new (double, u->n);
  sl_metrics_columns (trace, (guint) sm, u->t0, u->t1, u->n, NULL, mean);
  guint differ = 0;
  for (guint c = 0; c < u->n; c += 5)
    {
      double x = HEADER_W + c + 0.5, kernels;
      SlTime a, b;
      double v = sl_timeline_view_get_util_value (tv, 0, x, &a, &b);
      double want = isfinite (mean[c]) ? CLAMP (mean[c] / 100, 0.0, 1.0) : 0;
      g_assert_cmpfloat_with_epsilon (v, want, 1e-12);
      kernels = sl_trace_gpu_utilization (trace, 0, SL_UTIL_KERNELS, a, b);
      double copies = sl_trace_gpu_utilization (trace, 0, SL_UTIL_ANY, a, b) - kernels;
      g_assert_cmpfloat_with_epsilon (u->any[c], MIN (want + MAX (copies, 0.0), 1.0), 1e-6);
      differ += fabs (kernels - v) > 0.05;
    }
  g_assert_cmpuint (differ, >, 10);
  /* the idle overlay follows: shaded where SMs Active (and copies) are below the threshold */
  g_autofree guchar *after = all_streams_line (tv);
  guint changed = columns_differ (tv, before, after);
  g_test_message ("All streams: %u pixel columns shaded otherwise from SMs Active", changed);
  g_assert_cmpuint (changed, >, 50);
  g_autofree char *tip = _sl_timeline_util_text (tv, 0, 400);
  g_assert_nonnull (strstr (tip, "SMs Active"));
  g_autofree char *window_tip = _sl_timeline_row_tooltip (tv, ui);
  g_assert_nonnull (strstr (window_tip, "SMs Active"));
  sl_timeline_view_toggle_legend (tv);
  spin (100);
  g_autoptr (GString) legend = g_string_new (NULL);
  sl_test_collect_labels (sl_timeline_view_get_legend (tv), legend);
  g_assert_nonnull (strstr (legend->str, "Busy: SMs Active (GPU metrics)"));
  g_assert_nonnull (strstr (legend->str, "GPU metrics rows"));
  sl_timeline_view_toggle_legend (tv);
  spin (100);
  gtk_adjustment_set_value (tv->vadjustment, MAX (row_get (tv, ui)->y - 60, 0));
  spin (200);
  sl_test_screenshot (GTK_WIDGET (window), "metrics-util-sm");

  /* and back */
  uy = RULER_H + row_get (tv, ui)->y - scroll_y (tv) + 10;
  g_autofree char *back = menu_text (tv, HEADER_W + 300, uy);
  g_assert_nonnull (strstr (back, "Utilization from: Kernels\n"));
  gtk_widget_activate_action (GTK_WIDGET (tv), "timeline.util-from-sm", NULL);
  spin (200);
  g_autofree guchar *again = all_streams_line (tv);
  g_assert_cmpuint (columns_differ (tv, before, again), ==, 0);
  g_autofree char *tip1 = _sl_timeline_util_text (tv, 0, 400);
  g_assert_cmpstr (tip1, ==, tip0);
  gtk_window_destroy (GTK_WINDOW (window));
  spin (100);
}

/* A trace without metrics: no group, no row, no choice. */
static void
test_none (void)
{
  g_autofree char *path = generated ("plain.sqlite", FALSE);
  SlWindow *window = sl_test_open_window (app, 1600, 1000, path, NULL);
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));

  g_assert_cmpuint (sl_metrics_get_n_series (sl_window_get_trace (window)), ==, 0);
  for (guint i = 0; i < tv->rows->len; i++)
    {
      g_assert_cmpint (row_get (tv, (gint) i)->kind, !=, ROW_GPU_METRIC);
      g_assert_cmpstr (row_get (tv, (gint) i)->label, !=, "GPU metrics");
    }
  g_autoptr (GArray) util = rows_of (tv, ROW_GPU_UTIL, 0);
  gint ui = g_array_index (util, gint, 0);
  gtk_adjustment_set_value (tv->vadjustment, MAX (row_get (tv, ui)->y - 60, 0));
  spin (100);
  g_autofree char *items = menu_text (tv, HEADER_W + 300,
                                      RULER_H + row_get (tv, ui)->y - scroll_y (tv) + 10);
  g_assert_nonnull (strstr (items, "Filter Lanes…"));
  g_assert_null (strstr (items, "Utilization from"));
  sl_test_screenshot (GTK_WIDGET (window), "metrics-none");
}

int
main (int    argc,
      char **argv)
{
  int ret;

  app = sl_test_window_app_new (&argc, &argv);

  g_test_add_func ("/ui-metrics/rows", test_rows);
  g_test_add_func ("/ui-metrics/util-sm", test_util_sm);
  g_test_add_func ("/ui-metrics/none", test_none);
  ret = g_test_run ();

  sl_test_app_done (GTK_APPLICATION (app));
  return ret;
}
