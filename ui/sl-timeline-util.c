/* sl-timeline-util.c: GPU utilization per pixel: its cache, the utilization row's image, shade.
 *
 * A GPU is busy when anything runs on it: kernels, copies or sets.  The row draws what with
 * (kernels from the base up, then copies and sets where no kernel runs) and shades it idle where
 * all of that together is below the threshold: a GPU 99 % busy copying is not idle (issue 28,
 * item 2). */
#include "sl-timeline-view-private.h"
#include "sl-metrics.h"
#include "sl-utilization.h"

/* Makes `u` the cache of [t0, t1) in n columns, its series sized for them but not computed;
 * FALSE when it already is (nothing to compute). */
gboolean
_sl_timeline_util_prepare (UtilCache *u,
                           SlTime     t0,
                           SlTime     t1,
                           guint      n)
{
  if (u->kernels != NULL && u->t0 == t0 && u->t1 == t1 && u->n == n)
    return FALSE;
  u->tex_h = 0;   /* its image is of other series: made again (in the same memory, if free) */
  if (u->n != n || u->kernels == NULL)
    {
      g_free (u->kernels);
      g_free (u->any);
      u->kernels = g_new0 (double, MAX (n, 1));
      u->any = g_new0 (double, MAX (n, 1));
    }
  u->t0 = t0;
  u->t1 = t1;
  u->n = n;
  return TRUE;
}

static void
util_ensure (SlTimelineView *self,
             guint           gpu,
             SlTime          t0,
             SlTime          t1,
             guint           n)
{
  UtilCache *u = &self->util[gpu];

  if (!_sl_timeline_util_prepare (u, t0, t1, n)
      || _sl_timeline_metrics_util_fill (self, gpu, t0, t1, n, u->kernels, u->any))
    return;
  sl_trace_gpu_utilization_buckets (self->trace, gpu, SL_UTIL_KERNELS, t0, t1, n, u->kernels);
  sl_trace_gpu_utilization_buckets (self->trace, gpu, SL_UTIL_ANY, t0, t1, n, u->any);
}

UtilCache *
_sl_timeline_util_current (SlTimelineView *self,
                           guint           gpu)
{
  SlTime t0, t1;

  sl_viewport_get_visible (self->viewport, &t0, &t1);
  util_ensure (self, gpu, t0, t1, (guint) ceil (lanes_width (self)));
  return &self->util[gpu];
}

/* Whether column i of `u`, the frame's window f, is shaded idle: inside the trace [s, e), busy
 * with anything below the threshold (outside it nothing ran, but nothing was recorded either). */
static gboolean
util_idle (SlTimelineView  *self,
           const UtilCache *u,
           const Frame     *f,
           guint            i,
           SlTime           s,
           SlTime           e)
{
  SlTime bt0 = f->t0 + (SlTime) ((double) (f->t1 - f->t0) * i / u->n);
  SlTime bt1 = f->t0 + (SlTime) ((double) (f->t1 - f->t0) * (i + 1) / u->n);

  return !(bt1 <= s || bt0 >= e) && u->any[i] < self->util_threshold;
}

/* "GPU busy 99.1%: kernels 2.3%, copies and sets 96.8%" of fractions `kernels` ⊂ `any`. */
static char *
util_split_text (double kernels,
                 double any)
{
  return g_strdup_printf ("GPU busy %.1f%%: kernels %.1f%%, copies and sets %.1f%%", 100 * any,
                          100 * kernels, 100 * MAX (any - kernels, 0.0));
}

/* The same from SMs Active (the GPU metrics): `sm` ⊂ `any`, the rest copies or sets with no
 * kernel. */
static char *
util_sm_text (double sm,
              double any)
{
  return g_strdup_printf ("GPU busy %.1f%%: SMs Active %.1f%% (GPU metrics), copies and sets "
                          "%.1f%%", 100 * any, 100 * sm, 100 * MAX (any - sm, 0.0));
}

char *
_sl_timeline_util_text (SlTimelineView *self,
                        guint           gpu,
                        guint           col)
{
  UtilCache *u;

  if (self->trace == NULL || gpu >= self->n_gpus)
    return NULL;
  u = _sl_timeline_util_current (self, gpu);
  if (col >= u->n)
    return NULL;
  if (_sl_timeline_util_sm_series (self, gpu) >= 0)
    return util_sm_text (u->kernels[col], u->any[col]);
  return util_split_text (u->kernels[col], u->any[col]);
}

/* Two O(log n) queries: cheap enough for a tooltip. */
char *
_sl_timeline_util_window_text (SlTimelineView *self,
                               guint           gpu)
{
  SlTime t0, t1;
  g_autofree char *split = NULL;

  if (self->trace == NULL || gpu >= self->n_gpus)
    return NULL;
  sl_viewport_get_visible (self->viewport, &t0, &t1);
  if (t1 <= t0)
    return NULL;
  double kernels = sl_trace_gpu_utilization (self->trace, gpu, SL_UTIL_KERNELS, t0, t1);
  double any = sl_trace_gpu_utilization (self->trace, gpu, SL_UTIL_ANY, t0, t1);
  gint sm = _sl_timeline_util_sm_series (self, gpu);
  SlMetricStats st;
  if (sm >= 0)
    {
      double active = sl_metrics_stats (self->trace, (guint) sm, t0, t1, &st)
                        ? CLAMP (st.mean / 100, 0.0, 1.0)
                        : 0;
      split = util_sm_text (active, MIN (active + MAX (any - kernels, 0.0), 1.0));
    }
  else
    split = util_split_text (kernels, any);
  return g_strdup_printf ("In view: %s\nShaded idle where busy < %.0f%%", split,
                          100 * self->util_threshold);
}

/* Semi-transparent red where the GPU is busy (with anything) below the threshold. */
void
_sl_timeline_draw_idle_shade (SlTimelineView *self,
                              Batch          *batch,
                              const Frame    *f,
                              guint           gpu,
                              double          y,
                              double          h)
{
  UtilCache *u;
  SlTime s, e;

  util_ensure (self, gpu, f->t0, f->t1, (guint) ceil (f->width));
  u = &self->util[gpu];
  sl_viewport_get_bounds (self->viewport, &s, &e);
  for (guint i = 0; i < u->n; i++)
    if (util_idle (self, u, f, i, s, e))
      batch_add (batch, HEADER_W + i, HEADER_W + i + 1, y, h, &self->pal.idle);
  batch_flush (batch);
}

/*
 * The utilization row of a GPU: the graph (any work in the copies' colour, kernels over it from
 * the base, so that what shows of the first is busy with no kernel) and the idle shade.  As
 * rectangles that is one per pixel column and layer, ~3 k nodes that cost the cairo renderer
 * ~4 ms a frame; as one n × h image (8 pixel states looked up, ~0.1 ms) the same pixels cost one
 * node.  Geometry is that of the rectangles: bars in whole pixels from their top down to h - 2,
 * the shade h - 1 px high where kernels are below the threshold inside the trace.  The dotted
 * threshold line stays vector, one path, so that its fractional height is anti-aliased as before.
 */
void
_sl_timeline_util_image_ensure (SlTimelineView *self,
                                const Frame    *f,
                                guint           gpu,
                                double          y,
                                double          h)
{
  UtilCache *u = &self->util[gpu];
  guint hh = (guint) ceil (h), n = u->n;
  guint32 colors[3] = { rgba_key (&self->pal.util_copies), rgba_key (&self->pal.util_kernels),
                        rgba_key (&self->pal.idle) };

  if (n == 0 || hh == 0)
    return;
  if (u->image == NULL || u->tex_h != hh || u->tex_y != y - floor (y)
      || u->tex_threshold != self->util_threshold
      || memcmp (u->tex_colors, colors, sizeof colors) != 0)
    {
      double base = h - 2, gh = h - 6;
      SlTime s, e;
      cairo_surface_t *image = u->image;
      gsize stride;
      guint32 *px;
      float lut[8][4];   /* premultiplied colour of each state: any bar 1, kernels bar 2, idle 4 */
      guint32 packed[8];

      /* the last image, when no render node holds it any more */
      if (image == NULL || cairo_surface_get_reference_count (image) != 1
          || cairo_image_surface_get_width (image) != (int) n
          || cairo_image_surface_get_height (image) != (int) hh)
        {
          g_clear_pointer (&u->image, cairo_surface_destroy);
          image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) n, (int) hh);
        }
      else
        cairo_surface_flush (image);
      stride = (gsize) cairo_image_surface_get_stride (image) / 4;
      px = (guint32 *) cairo_image_surface_get_data (image);

      for (guint k = 0; k < 8; k++)
        {
          memset (lut[k], 0, sizeof lut[k]);
          if (k & 1)
            pixel_over (lut[k], &self->pal.util_copies, 1);
          if (k & 2)
            pixel_over (lut[k], &self->pal.util_kernels, 1);
          if (k & 4)
            pixel_over (lut[k], &self->pal.idle, 1);
          packed[k] = pixel_pack (lut[k]);
        }
      sl_viewport_get_bounds (self->viewport, &s, &e);
      for (guint i = 0; i < n; i++)
        {
          gboolean idle = util_idle (self, u, f, i, s, e);
          /* where the idle shade ends and each bar starts (whole pixels from its top down to the
           * base line, as the rectangles) */
          gint idle_end, top_any = G_MAXINT, top_kernels = G_MAXINT, r = 0;
          gint cut[4];

          idle_end = idle ? (gint) (h - 1) : 0;
          if (u->any[i] > 0)
            top_any = (gint) floor_fast (floor_fast (y + base - u->any[i] * gh) - y + 0.5);
          if (u->kernels[i] > 0)
            top_kernels = (gint) floor_fast (floor_fast (y + base - u->kernels[i] * gh) - y + 0.5);
          /* the rows where the state changes, in order (an insertion sort of four); between two
           * of them the column is one colour, filled down */
          cut[0] = idle_end;
          cut[1] = top_any;
          cut[2] = top_kernels;
          cut[3] = (gint) base;
          for (guint c = 1; c < G_N_ELEMENTS (cut); c++)
            for (guint d = c; d > 0 && cut[d - 1] > cut[d]; d--)
              {
                gint tmp = cut[d];
                cut[d] = cut[d - 1];
                cut[d - 1] = tmp;
              }
          for (guint c = 0; c <= G_N_ELEMENTS (cut) && r < (gint) hh; c++)
            {
              gint to = c < G_N_ELEMENTS (cut) ? MIN (cut[c], (gint) hh) : (gint) hh;
              gboolean bar = r < (gint) base;
              guint32 v;
              if (to <= r)
                continue;
              v = packed[(r < idle_end ? 4 : 0) | (bar && r >= top_any ? 1 : 0)
                         | (bar && r >= top_kernels ? 2 : 0)];
              for (; r < to; r++)
                px[(gsize) r * stride + i] = v;
            }
        }
      cairo_surface_mark_dirty (image);
      u->image = image;
      u->tex_h = hh;
      u->tex_y = y - floor (y);
      u->tex_threshold = self->util_threshold;
      memcpy (u->tex_colors, colors, sizeof colors);
    }
}

void
_sl_timeline_draw_util_texture (SlTimelineView *self,
                                GtkSnapshot    *snapshot,
                                const Frame    *f,
                                guint           gpu,
                                double          y,
                                double          h)
{
  UtilCache *u = &self->util[gpu];

  util_ensure (self, gpu, f->t0, f->t1, (guint) ceil (f->width));
  _sl_timeline_util_image_ensure (self, f, gpu, y, h);
  if (u->image == NULL)
    return;
  _sl_timeline_append_image (snapshot, u->image, HEADER_W, y,
                             cairo_image_surface_get_height (u->image), CAIRO_EXTEND_PAD);

  /* the threshold as a dotted line, 3 px of every 6: one path of ~300 boxes in one node,
   * anti-aliased at its fractional height as rectangles are */
  {
    GdkRGBA tl = self->pal.idle;
    double ty = y + h - 2 - self->util_threshold * (h - 6);
    cairo_t *cr = gtk_snapshot_append_cairo (snapshot,
                                             &GRAPHENE_RECT_INIT (HEADER_W, floor (ty),
                                                                  f->right - HEADER_W + 3, 2));
    tl.alpha = 0.8f;
    for (double x = HEADER_W; x < f->right; x += 6)
      cairo_rectangle (cr, x, ty, 3, 1);
    gdk_cairo_set_source_rgba (cr, &tl);
    cairo_fill (cr);
    cairo_destroy (cr);
  }
}
