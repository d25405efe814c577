/* sl-timeline-metrics.c: nsys's GPU metrics (GPU_METRICS, model/sl-metrics.h) as counter rows in
 * a "GPU metrics" group under each GPU: SMs Active shown, the GPU's other metrics in a folded
 * group beneath it (the rows are built in sl-timeline-rows.c).  A row is a filled step graph per
 * pixel column: the largest value in effect in the column, lighter, and the time-weighted mean
 * over it; "%" metrics (the unit in brackets ends in %) drawn 0 … 100, the others 0 … their
 * largest sample.  Hovering gives the value in effect under the pointer and the column's mean
 * and max.  SMs Active can also stand in for kernel coverage in the utilization rows and the
 * idle overlay (the utilization row's menu: "Utilization from: SM Active").
 *
 * Sizes: nsys samples 10 kHz, ~20 metrics a GPU: 10^6 … 10^7 samples in a trace.  A row's frame
 * asks sl_metrics_columns for its window, O(columns × log n + samples in view), and draws a few
 * rectangles where the view is a few samples wide, else one image (1–2 rectangles a column would
 * be ~3 k render nodes a row), kept while the window stays; only the rows on screen are drawn,
 * and all but SMs Active start folded.  A 10 M-event trace with 10^6 samples draws within 1.2×
 * of the same trace without them (bench-render with BENCH_BOUND=1.2).
 */
#include "sl-timeline-view-private.h"
#include "sl-format.h"
#include "sl-metrics.h"
#include "sl-utilization.h"

#define LIGHT_SHARE 0.4   /* the max colour: this much of the mean colour over the background */
#define RECT_RUNS_MAX 64  /* at most this many runs of equal columns are drawn as rectangles (a
                           * view a few samples wide), more as one image (zoomed out: a run a
                           * column, and ~3 k rectangle nodes cost the cairo renderer ~4 ms) */

/* A row's last image and what it was drawn for: a frame of the same window redraws it as it is
 * (hovering, a tooltip, the other rows' changes: the series' pass over its samples is skipped). */
typedef struct
{
  cairo_surface_t *image;
  SlTime           t0, t1;
  guint            n, h, epoch;   /* epoch: the view's colors_epoch, 0: none */
} RowImage;

typedef struct _SlMetricsState
{
  SlTrace          *trace;     /* the trace the state is of (not a reference: the view holds it) */
  guint             n_series;
  double           *top;       /* per series: the value drawn at full height, 0 until known */
  gint             *sm;        /* per GPU: its SMs Active series, -1 when none */
  guint             n_gpus;
  double           *max, *mean;   /* scratch of one frame: one per pixel column, and their */
  gint             *h_max, *h_mean; /* bars' heights in pixels */
  guint             n_cols;
  RowImage         *images;    /* per series: its row's last image, written again when no node
                                * holds it any more */
} SlMetricsState;

void
_sl_timeline_metrics_reset (SlTimelineView *self)
{
  SlMetricsState *m = self->metrics;

  if (m != NULL)
    {
      for (guint i = 0; i < m->n_series; i++)
        g_clear_pointer (&m->images[i].image, cairo_surface_destroy);
      g_free (m->images);
      g_free (m->top);
      g_free (m->sm);
      g_free (m->max);
      g_free (m->mean);
      g_free (m->h_max);
      g_free (m->h_mean);
      g_clear_pointer (&self->metrics, g_free);
    }
  if (self->trace == NULL || sl_metrics_get_n_series (self->trace) == 0)
    return;

  /* made here, on the main thread, whole: the frame's worker reads `sm` */
  m = self->metrics = g_new0 (SlMetricsState, 1);
  m->trace = self->trace;
  m->n_series = sl_metrics_get_n_series (self->trace);
  m->n_gpus = sl_trace_get_n_gpus (self->trace);
  m->top = g_new0 (double, m->n_series);
  m->images = g_new0 (RowImage, m->n_series);
  m->sm = g_new (gint, MAX (m->n_gpus, 1));
  for (guint g = 0; g < m->n_gpus; g++)
    m->sm[g] = -1;
  for (guint i = 0; i < m->n_series; i++)
    {
      const SlMetricSeries *s = sl_metrics_get_series (self->trace, i);
      if (s->gpu >= 0 && (guint) s->gpu < m->n_gpus && m->sm[s->gpu] < 0
          && strstr (sl_metrics_get_name (self->trace, i), "SMs Active") != NULL)
        m->sm[s->gpu] = (gint) i;
    }
}

gint
_sl_timeline_metrics_sm_active (SlTimelineView *self,
                                guint           gpu)
{
  SlMetricsState *m = self->metrics;

  return m != NULL && m->trace == self->trace && gpu < m->n_gpus ? m->sm[gpu] : -1;
}

gint
_sl_timeline_util_sm_series (SlTimelineView *self,
                             guint           gpu)
{
  return self->util_sm ? _sl_timeline_metrics_sm_active (self, gpu) : -1;
}

/* The unit of a metric: what its name has in its last brackets ("Throughput %", "MHz"), "" when
 * none. */
static char *
name_unit (const char *name)
{
  const char *open = strrchr (name, '[');
  const char *close = open != NULL ? strchr (open, ']') : NULL;

  if (close == NULL)
    return g_strdup ("");
  return g_strndup (open + 1, (gsize) (close - open - 1));
}

char *
_sl_timeline_metrics_title (SlTimelineView *self,
                            guint           series)
{
  const char *name = sl_metrics_get_name (self->trace, series);
  const char *open = strrchr (name, '[');
  char *title = open != NULL && open > name ? g_strndup (name, (gsize) (open - name))
                                            : g_strdup (name);

  g_strstrip (title);
  if (*title == '\0')
    {
      g_free (title);
      return g_strdup (name);
    }
  return title;
}

static gboolean
unit_is_percent (const char *unit)
{
  return g_str_has_suffix (unit, "%");
}

/* The value a row draws at full height: 100 for a "%" metric, else the series' largest sample
 * (once per series: a pass over its samples, 10^4 … 10^6). */
static double
series_top (SlTimelineView *self,
            guint           i)
{
  SlMetricsState *m = self->metrics;
  g_autofree char *unit = name_unit (sl_metrics_get_name (self->trace, i));
  SlMetricStats st;

  if (m->top[i] > 0)
    return m->top[i];
  if (unit_is_percent (unit))
    m->top[i] = 100;
  else if (sl_metrics_stats (self->trace, i, G_MININT64, G_MAXINT64, &st) && st.max > 0
           && isfinite (st.max))
    m->top[i] = st.max;
  else
    m->top[i] = 1;
  return m->top[i];
}

/* A value as a row's texts give it: whole from 100 up, else three significant digits. */
static char *
value_text (double v)
{
  if (!isfinite (v))
    return g_strdup ("—");
  if (fabs (v) >= 100)
    return g_strdup_printf ("%.0f", v);
  return g_strdup_printf ("%.*f", fabs (v) >= 10 ? 1 : 2, v);
}

static const SlMetricSeries *
row_series (SlTimelineView *self,
            const Row      *r)
{
  if (self->metrics == NULL || self->metrics->trace != self->trace || r->track < 0
      || (guint) r->track >= self->metrics->n_series)
    return NULL;
  return sl_metrics_get_series (self->trace, (guint) r->track);
}

/* Bar heights in whole pixels, as the row draws them (tests measure them). */
static gint
bar_px (double value,
        double top,
        double gh)
{
  if (!(value > 0))
    return 0;
  return (gint) MAX (1.0, round (gh * MIN (value / top, 1.0)));
}

/* The bars of series i in n columns of the frame's window, in a row `hh` px high at y0. */
static void
draw_bars (SlTimelineView *self,
           GtkSnapshot    *snapshot,
           const Frame    *f,
           guint           i,
           guint           n,
           guint           hh,
           double          y0)
{
  SlMetricsState *m = self->metrics;
  RowImage *ri = &m->images[i];
  double top = series_top (self, i), gh = (double) hh - 6;
  gint b = (gint) hh - 2;   /* the base: bars end on the row's last pixel but one */

  if (m->n_cols < n)
    {
      g_free (m->max);
      g_free (m->mean);
      g_free (m->h_max);
      g_free (m->h_mean);
      m->max = g_new (double, n);
      m->mean = g_new (double, n);
      m->h_max = g_new (gint, n);
      m->h_mean = g_new (gint, n);
      m->n_cols = n;
    }
  sl_metrics_columns (self->trace, i, f->t0, f->t1, n, m->max, m->mean);
  /* zoomed in to under a nanosecond a column, some columns are empty spans of time: they show
   * the value in effect where they start, as their neighbours do (not a gap every other pixel) */
  if ((double) f->t1 - (double) f->t0 < n)
    for (guint k = 0; k < n; k++)
      if (isnan (m->mean[k]))
        {
          SlTime a = (SlTime) (f->t0 + ((__int128) f->t1 - f->t0) * k / n);
          double v;
          if (sl_metrics_value_at (self->trace, i, a, &v))
            m->mean[k] = m->max[k] = v;
        }

  /* opaque colours, the max one the mean's mixed into the background */
  GdkRGBA c = self->pal.util_kernels, bg = self->pal.bg;
  float dp[4] = { bg.red, bg.green, bg.blue, 1 };
  pixel_over (dp, &c, 1);
  GdkRGBA dark = { dp[0], dp[1], dp[2], 1 };
  GdkRGBA light = { bg.red + (dp[0] - bg.red) * LIGHT_SHARE,
                    bg.green + (dp[1] - bg.green) * LIGHT_SHARE,
                    bg.blue + (dp[2] - bg.blue) * LIGHT_SHARE, 1 };
  float lp[4] = { light.red, light.green, light.blue, 1 };
  guint32 light_px = pixel_pack (lp), dark_px = pixel_pack (dp);

  /* bar heights; runs of equal columns (a zoomed-in view is a few samples wide) */
  guint runs = 0;
  for (guint k = 0; k < n; k++)
    {
      m->h_mean[k] = MIN (bar_px (m->mean[k], top, gh), b);
      m->h_max[k] = MIN (MAX (bar_px (m->max[k], top, gh), m->h_mean[k]), b);
      runs += k == 0 || m->h_mean[k] != m->h_mean[k - 1] || m->h_max[k] != m->h_max[k - 1];
    }
  ri->epoch = 0;
  if (runs <= RECT_RUNS_MAX)
    {
      for (guint k = 0, from = 0; k < n; k++)
        {
          if (k + 1 < n && m->h_mean[k + 1] == m->h_mean[k] && m->h_max[k + 1] == m->h_max[k])
            continue;
          double x = HEADER_W + from, w = k + 1 - from;
          if (m->h_max[k] > m->h_mean[k])
            gtk_snapshot_append_color (snapshot, &light,
                                       &GRAPHENE_RECT_INIT (x, y0 + b - m->h_max[k], w,
                                                            m->h_max[k] - m->h_mean[k]));
          if (m->h_mean[k] > 0)
            gtk_snapshot_append_color (snapshot, &dark,
                                       &GRAPHENE_RECT_INIT (x, y0 + b - m->h_mean[k], w,
                                                            m->h_mean[k]));
          from = k + 1;
        }
      return;
    }

  cairo_surface_t *image = ri->image;
  if (image == NULL || cairo_surface_get_reference_count (image) != 1
      || cairo_image_surface_get_width (image) != (int) n
      || cairo_image_surface_get_height (image) != (int) hh)
    {
      g_clear_pointer (&ri->image, cairo_surface_destroy);
      image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) n, (int) hh);
    }
  else
    cairo_surface_flush (image);
  gsize stride = (gsize) cairo_image_surface_get_stride (image) / 4;
  guint32 *px = (guint32 *) cairo_image_surface_get_data (image);
  /* row by row, every pixel written: no clearing pass, memory in order */
  for (gint row = 0; row < (gint) hh; row++)
    {
      guint32 *line = px + (gsize) row * stride;
      gint above = b - row;   /* a bar at least this many pixels high covers the row */
      for (guint k = 0; k < n; k++)
        line[k] = row >= b                ? 0
                  : m->h_mean[k] >= above ? dark_px
                  : m->h_max[k] >= above  ? light_px
                                          : 0;
    }
  cairo_surface_mark_dirty (image);
  *ri = (RowImage) { image, f->t0, f->t1, n, hh, self->colors_epoch };
  _sl_timeline_append_image (snapshot, image, HEADER_W, y0, hh, CAIRO_EXTEND_NONE);
}

void
_sl_timeline_metrics_draw (SlTimelineView *self,
                           GtkSnapshot    *snapshot,
                           const Frame    *f,
                           const Row      *r,
                           double          y)
{
  const SlMetricSeries *s = row_series (self, r);
  guint n = (guint) ceil (f->width), hh = (guint) MAX (r->h, 1);
  double y0 = round (y);

  if (s != NULL && n > 0 && f->t1 > f->t0)
    {
      const RowImage *ri = &self->metrics->images[r->track];
      if (ri->image != NULL && ri->epoch == self->colors_epoch && ri->t0 == f->t0
          && ri->t1 == f->t1 && ri->n == n && ri->h == hh)
        _sl_timeline_append_image (snapshot, ri->image, HEADER_W, y0, hh, CAIRO_EXTEND_NONE);
      else
        draw_bars (self, snapshot, f, (guint) r->track, n, hh, y0);
    }
  gtk_snapshot_append_color (snapshot, &self->pal.grid,
                             &GRAPHENE_RECT_INIT (HEADER_W, y + r->h - 1, f->width, 1));
}

/* "0 – 100 Throughput %", "0 – 1755 MHz": the scale a row is drawn to. */
static char *
scale_text (SlTimelineView *self,
            guint           i)
{
  g_autofree char *unit = name_unit (sl_metrics_get_name (self->trace, i));
  g_autofree char *top = value_text (series_top (self, i));

  return g_strdup_printf ("0 – %s%s%s", top, *unit != '\0' ? " " : "", unit);
}

void
_sl_timeline_metrics_header (SlTimelineView *self,
                             GtkSnapshot    *snapshot,
                             const Row      *r,
                             double          x,
                             double          y,
                             const GdkRGBA  *tc)
{
  _sl_timeline_draw_text (self, snapshot, SL_NO_STR, r->label, x, y + 3, HEADER_W - x - 6, tc);
  if (row_series (self, r) == NULL)
    return;
  g_autofree char *scale = scale_text (self, (guint) r->track);
  _sl_timeline_draw_text (self, snapshot, SL_NO_STR, scale, x, y + 3 + self->text_h,
                          HEADER_W - x - 6, &self->pal.dim_fg);
}

/* The span of pixel column `col` of the view, as sl_metrics_columns splits it. */
static void
column_span (SlTimelineView *self,
             guint           col,
             SlTime         *a,
             SlTime         *b)
{
  SlTime t0, t1;
  guint n = (guint) ceil (lanes_width (self));
  __int128 span;

  sl_viewport_get_visible (self->viewport, &t0, &t1);
  span = (__int128) t1 - t0;
  *a = (SlTime) (t0 + span * col / MAX (n, 1));
  *b = (SlTime) (t0 + span * (col + 1) / MAX (n, 1));
}

char *
_sl_timeline_metrics_tooltip (SlTimelineView *self,
                              const Row      *r,
                              double          x)
{
  const SlMetricSeries *s = row_series (self, r);
  SlTime t, a, b;
  double v;
  SlMetricStats st;

  if (s == NULL || x < HEADER_W)
    return NULL;
  guint i = (guint) r->track;
  g_autofree char *unit = name_unit (sl_metrics_get_name (self->trace, i));
  const char *sp = *unit != '\0' ? " " : "";
  GString *text = g_string_new (sl_metrics_get_name (self->trace, i));

  t = x_to_time (self, x);
  g_autofree char *at = sl_format_offset (t - sl_trace_get_origin (self->trace));
  if (sl_metrics_value_at (self->trace, i, t, &v))
    {
      g_autofree char *value = value_text (v);
      g_string_append_printf (text, "\nValue: %s%s%s at %s", value, sp, unit, at);
    }
  else
    g_string_append_printf (text, "\nNo sample in effect at %s", at);
  column_span (self, (guint) (x - HEADER_W), &a, &b);
  if (b > a && sl_metrics_stats (self->trace, i, a, b, &st))
    {
      g_autofree char *mean = value_text (st.mean);
      g_autofree char *max = value_text (st.max);
      g_string_append_printf (text, "\nThis pixel: mean %s, max %s%s%s (%" G_GUINT64_FORMAT
                              " %s)", mean, max, sp, unit, st.n, st.n == 1 ? "sample" : "samples");
    }
  return g_string_free (text, FALSE);
}

char *
_sl_timeline_metrics_row_tooltip (SlTimelineView *self,
                                  const Row      *r)
{
  const SlMetricSeries *s = row_series (self, r);
  SlMetricStats st;

  if (s == NULL)
    return NULL;
  guint i = (guint) r->track;
  g_autofree char *scale = scale_text (self, i);
  g_autofree char *period = sl_format_duration (s->period);
  g_autofree char *count = sl_format_int ((gint64) s->count);
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "%s\nDrawn %s: per pixel the mean, the max lighter above it\n"
                                "%s samples, one every %s",
                          sl_metrics_get_name (self->trace, i), scale, count, period);
  if (sl_metrics_stats (self->trace, i, G_MININT64, G_MAXINT64, &st))
    {
      g_autofree char *mean = value_text (st.mean);
      g_autofree char *min = value_text (st.min);
      g_autofree char *max = value_text (st.max);
      g_string_append_printf (text, "\nWhole trace: mean %s, min %s, max %s", mean, min, max);
    }
  return g_string_free (text, FALSE);
}

gboolean
_sl_timeline_metrics_util_fill (SlTimelineView *self,
                                guint           gpu,
                                SlTime          t0,
                                SlTime          t1,
                                guint           n,
                                double         *kernels,
                                double         *any)
{
  gint sm = _sl_timeline_util_sm_series (self, gpu);

  if (sm < 0 || n == 0 || t1 <= t0)
    return FALSE;
  g_autofree double *cover = g_new (double, n);
  sl_metrics_columns (self->trace, (guint) sm, t0, t1, n, NULL, kernels);
  sl_trace_gpu_utilization_buckets (self->trace, gpu, SL_UTIL_ANY, t0, t1, n, any);
  sl_trace_gpu_utilization_buckets (self->trace, gpu, SL_UTIL_KERNELS, t0, t1, n, cover);
  for (guint c = 0; c < n; c++)
    {
      /* busy: the SMs' share, and the time copies or sets ran with no kernel (the SMs idle) */
      double active = isfinite (kernels[c]) ? CLAMP (kernels[c] / 100, 0.0, 1.0) : 0;
      kernels[c] = active;
      any[c] = MIN (active + MAX (any[c] - cover[c], 0.0), 1.0);
    }
  return TRUE;
}

void
_sl_timeline_metrics_menu (SlTimelineView *self,
                           const Row      *r,
                           GMenu          *section)
{
  if (r == NULL || r->kind != ROW_GPU_UTIL || r->gpu < 0
      || _sl_timeline_metrics_sm_active (self, (guint) r->gpu) < 0)
    return;
  g_menu_append (section, self->util_sm ? "Utilization from: Kernels"
                                        : "Utilization from: SM Active",
                 "timeline.util-from-sm");
}

static void
util_from_sm_cb (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);

  (void) action_name;
  (void) parameter;
  self->util_sm = !self->util_sm;
  /* every GPU's series are of the other source now: recomputed at the next frame */
  for (guint g = 0; self->util != NULL && g < self->n_gpus; g++)
    {
      self->util[g].t0 = self->util[g].t1 = 0;
      self->util[g].tex_h = 0;
    }
  _sl_timeline_rows_rebuild (self);   /* the utilization rows' titles say which */
  gtk_widget_queue_draw (widget);
}

void
_sl_timeline_metrics_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "timeline.util-from-sm", NULL, util_from_sm_cb);
}
