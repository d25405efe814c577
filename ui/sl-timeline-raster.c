/* sl-timeline-raster.c: rows of events as pixel columns, runs and row images, and their labels. */
#include "sl-timeline-view-private.h"

/* Columns for `n` pixel columns, cleared: reused by every row (n is the lanes width, ~2 k). */
Column *
_sl_timeline_columns_get (SlTimelineView *self,
                          guint           n)
{
  if (n > self->n_cols)
    {
      g_free (self->cols);
      g_free (self->runs);
      self->cols = g_new0 (Column, n);
      self->runs = g_new (Run, n + 1);
      self->n_cols = n;
    }
  return self->cols;
}

/* The lane's colour for folds: darker. */
static guint32
fold_key_of (SlTimelineView *self,
             const SlLane   *lane)
{
  GdkRGBA fc = _sl_timeline_lane_base_color (self, lane->kind);

  fc.red *= 0.72f;
  fc.green *= 0.72f;
  fc.blue *= 0.72f;
  return rgb_key (&fc) | KEY_FOLD;
}

/*
 * The key of a column of narrow events (see columns_add_narrow): one event in its colour, several
 * as a fold.  `last` caches the colour of the last single event.
 */
static inline guint32
narrow_key (SlTimelineView    *self,
            const SlLane      *lane,
            const SlLodColumn *col,
            guint32            fold_key,
            GdkRGBA           *last_c,
            guint32           *last_key)
{
  GdkRGBA ec;

  if (col->count != 1)
    return fold_key;
  ec = _sl_timeline_event_color (self, lane, &lane->events[col->last]);
  /* neighbours mostly share a colour */
  if (ec.red != last_c->red || ec.green != last_c->green || ec.blue != last_c->blue)
    {
      *last_c = ec;
      *last_key = rgb_key (&ec);
    }
  return *last_key;
}

/*
 * A lane's narrow events, summed per column by where they start: a column of one event is drawn
 * in its colour, one of several as a fold.  An event of up to MIN_PX reaches into the next
 * columns: what a column's sum has beyond its pixel carries over (up to MIN_PX), so that a lane of
 * back-to-back 1.5 px events shows no holes.
 */
static void
columns_add_narrow (SlTimelineView    *self,
                    const SlLane      *lane,
                    Column            *cols,
                    const SlLodColumn *narrow,
                    guint              n,
                    double             scale,
                    guint32            fold_key)
{
  gboolean samples = lane->kind == SL_LANE_SAMPLES;
  GdkRGBA last_c = { -1, -1, -1, -1 };
  guint32 last_key = 0;
  double carry = 0;

  for (guint c = 0; c < n; c++)
    {
      guint32 key;
      double px;
      float w;

      if (narrow[c].count == 0 && carry <= 0)
        continue;
      key = narrow_key (self, lane, &narrow[c], fold_key, &last_c, &last_key);
      /* samples and marks have no duration: drawn whole */
      px = (double) narrow[c].busy * scale + carry;
      if (narrow[c].count > 0 && (samples || narrow[c].busy == 0))
        px = MAX (px, 1.0);
      carry = MIN (MAX (px - 1.0, 0.0), MIN_PX);
      if (px <= 0)
        continue;
      w = narrow[c].count > 0 ? 1.0f : (float) MIN (px, 1.0);
      if (w >= cols[c].w)
        {
          cols[c].w = w;
          cols[c].key = narrow[c].count > 0 ? key : fold_key;
        }
      cols[c].busy += (float) MIN (px, 1.0);
    }
}

static void
columns_add_lane (SlTimelineView *self,
                  const Frame    *f,
                  const SlLane   *lane,
                  Column         *cols,
                  guint           n)
{
  const LaneLod *l = _sl_timeline_lane_lod (self, lane, f->t0, f->t1, n);
  GArray *lod = l->items;
  guint32 fold_key = fold_key_of (self, lane), last_key = 0;
  GdkRGBA last_c = { -1, -1, -1, -1 };

  if (l->dense)
    columns_add_narrow (self, lane, cols, l->cols, n, f->scale, fold_key);
  for (guint k = 0; k < lod->len; k++)
    {
      const SlLodItem *it = &g_array_index (lod, SlLodItem, k);
      double x0 = (double) (it->start - f->t0) * f->scale;
      double x1 = (double) (it->end - f->t0) * f->scale;
      double fill = 1;
      guint32 key;
      gint c0, c1;

      if (it->count == 1)
        {
          const SlEvent *ev = &lane->events[it->first];
          GdkRGBA c = _sl_timeline_event_color (self, lane, ev);
          /* neighbours mostly share a colour */
          if (c.red != last_c.red || c.green != last_c.green || c.blue != last_c.blue)
            {
              last_c = c;
              last_key = rgb_key (&c);
            }
          key = last_key;
          if (ev->start == ev->end)
            {
              /* samples and marks: a thin tick */
              x0 -= 0.5;
              x1 = x0 + 1;
            }
        }
      else
        {
          key = fold_key;
          if (lane->kind != SL_LANE_SAMPLES)
            fill = CLAMP ((double) it->busy / (double) MAX (it->end - it->start, 1), 0.0, 1.0);
        }
      /* every event at least 1 px where it was */
      if (x1 - x0 < 1)
        x1 = x0 + 1;
      if (x1 <= 0 || x0 >= n)
        continue;
      x0 = MAX (x0, 0);
      x1 = MIN (x1, n);
      c0 = (gint) x0;
      c1 = (gint) ceil (x1);
      if (c1 - c0 == 1)
        {
          /* zoomed out most items are a fold inside one column: ~25 k of them a frame */
          float ov = (float) (x1 - x0);
          if (ov >= cols[c0].w)
            {
              cols[c0].w = ov;
              cols[c0].key = key;
            }
          cols[c0].busy += (float) (ov * fill);
          continue;
        }
      for (gint c = c0; c < c1; c++)
        {
          float ov = (float) (MIN (x1, c + 1.0) - MAX (x0, (double) c));
          /* ties go to the later item: it was drawn on top */
          if (ov >= cols[c].w)
            {
              cols[c].w = ov;
              cols[c].key = key;
            }
          cols[c].busy += (float) (ov * fill);
        }
    }
}

/* Alpha of `busy` px of 1 (mean over a run): folds at least 0.35 so that they stay visible. */
static double
fold_alpha (double busy)
{
  return 0.35 + 0.65 * floor (MIN (busy, 1.0) * FOLD_LEVELS + 0.5) / FOLD_LEVELS;
}

/* The premultiplied ARGB32 pixel of a run of `key` (dimmed: 0.22 of its opacity). */
static inline guint32
run_pixel (guint32  key,
           float    busy,
           gboolean dim)
{
  float a = (key & KEY_FOLD) ? (float) fold_alpha (busy) : 1.0f;

  if (dim)
    a *= 0.22f;
  return ((guint32) (a * 255 + 0.5f) << 24) | ((guint32) ((key >> 24) * a + 0.5f) << 16)
         | ((guint32) (((key >> 16) & 0xFF) * a + 0.5f) << 8)
         | (guint32) (((key >> 8) & 0xFF) * a + 0.5f);
}

/*
 * Runs of columns of one colour, made column by column.  Busy fractions of neighbouring folds
 * jitter by a level or so, and at 20 s per 1.7 k px that alone made ~16 k runs in 20 lanes: a
 * fold run goes on while a column is within one opacity level of the run's mean, and is drawn at
 * that mean.  Key 0 is an empty column.
 */
typedef struct
{
  Run     *runs;     /* room for a run per column, and one */
  guint    n_runs;
  guint32  run;      /* key of the run going on, 0 for none */
  guint    from;
  float    sum;      /* busy over its columns */
} RunBuilder;

static inline void
run_push (RunBuilder *b,
          guint       c,
          guint32     key,
          float       busy)
{
  float len = (float) (c - b->from);

  /* |busy - sum / len| within a level, without a division a column */
  if (key != 0 && key == b->run
      && (!(key & KEY_FOLD) || fabsf (busy * len - b->sum) <= (1.0f / FOLD_LEVELS + 1e-6f) * len))
    {
      b->sum += busy;
      return;
    }
  if (b->run != 0)
    b->runs[b->n_runs++] = (Run) { b->from, c, b->run, b->sum / len,
                                   run_pixel (b->run, b->sum / len, FALSE) };
  b->run = key;
  b->from = c;
  b->sum = busy;
}

/* The runs of `n` columns; clears the columns for the next row.  Returns how many it wrote to
 * `runs` (n + 1 room). */
static guint
columns_runs (Column *cols,
              guint   n,
              Run    *runs)
{
  RunBuilder b = { runs, 0, 0, 0, 0 };

  for (guint c = 0; c < n; c++)
    run_push (&b, c, cols[c].w > 0 ? cols[c].key : 0, MIN (cols[c].busy, 1.0f));
  run_push (&b, n, 0, 0);
  memset (cols, 0, n * sizeof *cols);
  return b.n_runs;
}

/*
 * Paints a premultiplied ARGB32 image at (x, y), `h` px high: the image itself (CAIRO_EXTEND_PAD,
 * as GTK draws a texture node: edges padded), or a one-pixel-high image repeated down
 * (CAIRO_EXTEND_REPEAT: pixman repeats it row by row as fast as it copies a full-height image,
 * without our writing one).  Not a GdkMemoryTexture: GTK 4.8's cairo renderer converts one
 * through floats on every draw (~3 ns a pixel, 2 ms for the textures of a frame), while the image
 * of a cairo node is composited by pixman as it is.
 */
void
_sl_timeline_append_image (GtkSnapshot     *snapshot,
                           cairo_surface_t *image,
                           double           x,
                           double           y,
                           double           h,
                           cairo_extend_t   extend)
{
  int w = cairo_image_surface_get_width (image);
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (x, y, w, h));

  cairo_set_source_surface (cr, image, x, y);
  cairo_pattern_set_extend (cairo_get_source (cr), extend);
  cairo_rectangle (cr, x, y, w, h);
  cairo_fill (cr);
  cairo_destroy (cr);
}

/*
 * An n × h image for a dense row, from a pool that outlives frames: a fresh one each row and frame
 * was ~3 MB a frame allocated (mmap'd, page-faulted and cleared by the kernel) and freed.  An image
 * still held by a render node (ours holds one reference; the node, until it is freed, another)
 * is not reused; the pool keeps at most 64, and forgets images of another size.
 */
static cairo_surface_t *
row_image (SlTimelineView *self,
           guint           n,
           guint           h,
           cairo_format_t  format)
{
  cairo_surface_t *image;

  if (self->row_images == NULL)
    self->row_images = g_ptr_array_new_with_free_func ((GDestroyNotify) cairo_surface_destroy);
  for (guint i = 0; i < self->row_images->len; i++)
    {
      image = g_ptr_array_index (self->row_images, i);
      if (cairo_surface_get_reference_count (image) == 1
          && cairo_image_surface_get_width (image) == (int) n
          && cairo_image_surface_get_height (image) == (int) h
          && cairo_image_surface_get_format (image) == format)
        return image;
    }
  /* drop the free ones of other sizes, then make room */
  for (guint i = self->row_images->len; i-- > 0;)
    if (cairo_surface_get_reference_count (g_ptr_array_index (self->row_images, i)) == 1)
      {
        cairo_surface_t *old = g_ptr_array_index (self->row_images, i);
        if (cairo_image_surface_get_width (old) != (int) n || self->row_images->len >= 64)
          g_ptr_array_remove_index_fast (self->row_images, i);
      }
  image = cairo_image_surface_create (format, (int) n, (int) h);
  g_ptr_array_add (self->row_images, image);
  return image;
}

/*
 * The runs of a lane that has only narrow events in the window (the usual dense lane zoomed out):
 * columns_add_narrow and columns_runs in one pass, with no columns in between.
 */
static guint
narrow_runs (SlTimelineView    *self,
             const SlLane      *lane,
             const SlLodColumn *narrow,
             guint              n,
             double             scale,
             Run               *runs)
{
  gboolean samples = lane->kind == SL_LANE_SAMPLES;
  guint32 fold_key = fold_key_of (self, lane), last_key = 0;
  GdkRGBA last_c = { -1, -1, -1, -1 };
  RunBuilder b = { runs, 0, 0, 0, 0 };
  double carry = 0;

  for (guint c = 0; c < n; c++)
    {
      const SlLodColumn *col = &narrow[c];
      double px;

      if (col->count == 0 && carry <= 0)
        {
          if (b.run != 0)
            run_push (&b, c, 0, 0);
          continue;
        }
      px = (double) col->busy * scale;
      /* a full column (most, zoomed out on a busy lane) carries the most whatever came before:
       * the branch spares the next column the wait on this one's sum */
      if (px >= 1.0 + MIN_PX)
        carry = MIN_PX;
      else
        {
          px += carry;
          if (col->count > 0 && (samples || col->busy == 0))
            px = MAX (px, 1.0);
          carry = MIN (MAX (px - 1.0, 0.0), MIN_PX);
        }
      if (px <= 0)
        run_push (&b, c, 0, 0);
      else
        run_push (&b, c,
                  col->count > 0 ? narrow_key (self, lane, col, fold_key, &last_c, &last_key)
                                 : fold_key,
                  (float) MIN (px, 1.0));
    }
  run_push (&b, n, 0, 0);
  return b.n_runs;
}

/*
 * A lane's own row for this frame as runs: made on either thread of the frame (frame_job_run),
 * right after its level of detail, with that thread's columns.
 */
void
_sl_timeline_lane_runs (SlTimelineView *self,
                        const Frame    *f,
                        const SlLane   *lane,
                        Column         *cols,
                        guint           n)
{
  LaneLod *l = &self->lod_cache[lane->index];

  if (l->runs_cap < n + 1)
    {
      g_free (l->runs);
      l->runs = g_new (Run, n + 1);
      l->runs_cap = n + 1;
    }
  if (l->dense && l->items->len == 0)
    l->n_runs = narrow_runs (self, lane, l->cols, n, f->scale, l->runs);
  else
    {
      columns_add_lane (self, f, lane, cols, n);
      l->n_runs = columns_runs (cols, n, l->runs);
    }
  l->runs_epoch = self->colors_epoch;
}

/* A GPU's "All streams" row: every stream's kernels, copies and sets in one set of columns.  Made
 * on either thread of the frame, once the lanes' levels of detail are. */
void
_sl_timeline_gpu_row_runs (SlTimelineView *self,
                           const Frame    *f,
                           guint           gpu,
                           Column         *cols)
{
  GpuRow *g = &self->gpu_rows[gpu];
  GArray *lanes = self->gpu_lanes[gpu];
  guint n = (guint) ceil (f->width);

  for (guint k = 0; k < lanes->len; k++)
    columns_add_lane (self, f, sl_trace_get_lane (self->trace, g_array_index (lanes, guint, k)),
                      cols, n);
  if (g->cap < n + 1)
    {
      g_free (g->runs);
      g->runs = g_new (Run, n + 1);
      g->cap = n + 1;
    }
  g->n_runs = columns_runs (cols, n, g->runs);
  g->t0 = f->t0;
  g->t1 = f->t1;
  g->width = n;
  g->epoch = self->colors_epoch;
}

/*
 * Draws the runs of a row: one rectangle each where they are few; where they are many (a dense
 * lane zoomed out: an event of 2 px, a fold of 3 px, ... ~1 k per lane) one image of the row,
 * n × h px, because the renderer pays ~1 µs per node and ~nothing per pixel of an image.  With
 * `under` (what the row shows beneath its events, _sl_timeline_frame_under) the image is opaque:
 * the events blended over it here, one row of pixels, and copied down the row by pixman, which
 * blends a
 * translucent image at ~5 times the cost of copying an opaque one (~0.25 ms a dense frame).
 */
#define DENSE_RUNS 64

static inline guint32
pixel_blend (guint32 v,
             guint32 under)
{
  guint32 a = v >> 24, out = 0xFF000000u;

  if (a == 0xFF)
    return v;
  for (guint shift = 0; shift < 24; shift += 8)
    out |= (((v >> shift) & 0xFF) + (((under >> shift) & 0xFF) * (255 - a) + 127) / 255) << shift;
  return out;
}

void
_sl_timeline_runs_emit (SlTimelineView *self,
                        GtkSnapshot    *snapshot,
                        const Run      *runs,
                        guint           n_runs,
                        guint           n,
                        double          y,
                        double          h,
                        gboolean        dim,
                        const guint32  *under)
{
  if (n_runs <= DENSE_RUNS || h < 1)
    {
      for (guint i = 0; i < n_runs; i++)
        {
          const Run *r = &runs[i];
          double a = (r->key & KEY_FOLD) ? fold_alpha (r->busy) : 1;
          if (dim)
            a *= 0.22;
          gtk_snapshot_append_color (snapshot,
                                     &(GdkRGBA) { (r->key >> 24) / 255.f,
                                                  ((r->key >> 16) & 0xFF) / 255.f,
                                                  ((r->key >> 8) & 0xFF) / 255.f, (float) a },
                                     &GRAPHENE_RECT_INIT (HEADER_W + r->from, y,
                                                          r->to - r->from, h));
        }
      return;
    }
  {
    guint hh = (guint) ceil (h);
    /* one row of pixels, repeated down the row's height when drawn */
    cairo_surface_t *image = row_image (self, n, 1,
                                        under != NULL ? CAIRO_FORMAT_RGB24 : CAIRO_FORMAT_ARGB32);
    gsize stride = (gsize) cairo_image_surface_get_stride (image) / 4;
    guint32 *px = (guint32 *) cairo_image_surface_get_data (image);
    guint c = 0;

    cairo_surface_flush (image);
    /* premultiplied ARGB32, transparent between runs */
    for (guint i = 0; i < n_runs; i++)
      {
        const Run *r = &runs[i];
        guint32 v = dim ? run_pixel (r->key, r->busy, TRUE) : r->argb;
        if (under != NULL)
          {
            /* what is under a run is mostly one colour: blend once for each change */
            guint32 u = 0, out = 0;
            for (; c < r->from; c++)
              px[c] = under[c];
            if (c < r->to)
              out = pixel_blend (v, u = under[c]);
            for (; c < r->to; c++)
              {
                if (under[c] != u)
                  out = pixel_blend (v, u = under[c]);
                px[c] = out;
              }
            continue;
          }
        for (; c < r->from; c++)
          px[c] = 0;
        for (; c < r->to; c++)
          px[c] = v;
      }
    for (; c < n; c++)
      px[c] = under != NULL ? under[c] : 0;
    for (; c < stride; c++)
      px[c] = 0;
    cairo_surface_mark_dirty (image);
    _sl_timeline_append_image (snapshot, image, HEADER_W, y, hh, CAIRO_EXTEND_REPEAT);
  }
}

/* Labels of the single events wide enough for one, over the boxes columns_emit drew. */
static void
draw_lane_labels (SlTimelineView *self,
                  GtkSnapshot    *snapshot,
                  const Frame    *f,
                  const SlLane   *lane,
                  double          by,
                  double          bh)
{
  GArray *lod = _sl_timeline_lane_lod (self, lane, f->t0, f->t1, (guint) ceil (f->width))->items;

  if (bh < self->text_h)
    return;
  for (guint k = 0; k < lod->len; k++)
    {
      const SlLodItem *it = &g_array_index (lod, SlLodItem, k);
      double x0, x1;
      const SlEvent *ev;
      const char *text;
      guint32 id;
      GdkRGBA c, tc;

      /* folds and narrow events never get one: no colour, no string, no Pango */
      if (it->count != 1 || (double) (it->end - it->start) * f->scale < TEXT_MIN_W)
        continue;
      x0 = MAX (frame_x (f, it->start), HEADER_W - 1);
      x1 = MIN (frame_x (f, it->end), f->right + 1);
      if (x1 - x0 < TEXT_MIN_W)
        continue;
      ev = &lane->events[it->first];
      c = _sl_timeline_event_color (self, lane, ev);
      tc = lane->kind == SL_LANE_SYNC ? self->pal.fg : _sl_timeline_text_on (&c);
      text = _sl_timeline_event_label (self, lane, ev, &id);
      _sl_timeline_draw_text (self, snapshot, id, text, x0 + 4, by + (bh - self->text_h) / 2,
                              x1 - x0 - 8, &tc);
    }
}

/* The events of a lane's own row, and their labels: its runs, made with its level of detail
 * (_sl_timeline_lane_runs), here when the frame's prefetch did not. */
void
_sl_timeline_draw_lane_row (SlTimelineView *self,
                            GtkSnapshot    *snapshot,
                            const Frame    *f,
                            const SlLane   *lane,
                            double          y,
                            double          h,
                            gboolean        dim,
                            const guint32  *under)
{
  guint n = (guint) ceil (f->width);
  const LaneLod *l = &self->lod_cache[lane->index];

  if (lane->kind == SL_LANE_SAMPLES
      && _sl_timeline_flame_draw (self, snapshot, f, lane, y, h, dim, under))
    return;
  if (!lane_lod_fresh (l, f->t0, f->t1, n) || l->runs_epoch != self->colors_epoch)
    {
      _sl_timeline_lane_lod (self, lane, f->t0, f->t1, n);
      _sl_timeline_lane_runs (self, f, lane, _sl_timeline_columns_get (self, n), n);
    }
  _sl_timeline_runs_emit (self, snapshot, l->runs, l->n_runs, n, y + 1, h - 2, dim, under);
  if (lane->kind == SL_LANE_SYNC && h >= 8)
    {
      /* host waits are no GPU work: a faint box between two strong edges, not a solid bar (the
       * middle washed with the background: one rectangle, not a second image) */
      GdkRGBA wash = self->pal.bg;
      wash.alpha = 0.75f;
      gtk_snapshot_append_color (snapshot, &wash, &GRAPHENE_RECT_INIT (HEADER_W, y + 3, f->width,
                                                                       h - 6));
    }
  if (!dim)
    draw_lane_labels (self, snapshot, f, lane, y + 1, h - 2);
}

/*
 * What a row shows under its events, one row of opaque pixels (xRGB) of the lanes area: the row's
 * background (`alt`: the other of the alternating two; `tint`: a finding's lane), the grid and a
 * finding's band, as the frame draws them beneath.  Made once a frame for each of the four kinds
 * of row (see _sl_timeline_runs_emit).
 */
const guint32 *
_sl_timeline_frame_under (SlTimelineView *self,
                          const Frame    *f,
                          gboolean        alt,
                          gboolean        tint)
{
  guint n = (guint) ceil (f->width), kind = (alt ? 1 : 0) | (tint ? 2 : 0);
  guint32 *px, base;
  float bg[4] = { 0, 0, 0, 0 };
  SlTime first, step;

  if (self->under_n != n)
    {
      g_free (self->under);
      self->under = g_new (guint32, 4 * (gsize) MAX (n, 1));
      self->under_n = n;
      self->under_ok = 0;
    }
  px = self->under + (gsize) kind * n;
  if (self->under_ok & (1u << kind))
    return px;

  pixel_over (bg, &self->pal.bg, 1);   /* the widget's, under the row's own */
  pixel_over (bg, alt ? &self->pal.bg_alt : &self->pal.bg, 1);
  if (tint)
    {
      GdkRGBA c = self->pal.focus;
      c.alpha = 0.12f;
      pixel_over (bg, &c, 1);
    }
  base = pixel_pack (bg) | 0xFF000000u;
  for (guint c = 0; c < n; c++)
    px[c] = base;
  _sl_timeline_grid_ticks (self, f, &first, &step);
  for (SlTime t = first; t < f->t1 + step; t += step)
    {
      double x = floor (frame_x (f, t)) - HEADER_W;
      if (x >= 0 && x < n)
        {
          float p[4] = { bg[0], bg[1], bg[2], bg[3] };
          pixel_over (p, &self->pal.grid, 1);
          px[(guint) x] = pixel_pack (p) | 0xFF000000u;
        }
    }
  if (self->focus_t1 > self->focus_t0)
    {
      GdkRGBA band = self->pal.focus;
      double x0 = MAX (frame_x (f, self->focus_t0), HEADER_W - 1);
      double x1 = MIN (frame_x (f, self->focus_t1), f->right + 1);
      band.alpha = 0.07f;
      if (x1 > x0)
        {
          x1 = MAX (x1, x0 + 1);
          for (gint c = MAX ((gint) floor (x0 - HEADER_W), 0);
               c < (gint) MIN (ceil (x1 - HEADER_W), (double) n); c++)
            {
              float cover = (float) (MIN (x1, HEADER_W + c + 1.0) - MAX (x0, HEADER_W + c));
              float p[4];
              p[0] = ((px[c] >> 16) & 0xFF) / 255.f;
              p[1] = ((px[c] >> 8) & 0xFF) / 255.f;
              p[2] = (px[c] & 0xFF) / 255.f;
              p[3] = 1;
              pixel_over (p, &band, cover);
              px[c] = pixel_pack (p) | 0xFF000000u;
            }
        }
    }
  self->under_ok |= 1u << kind;
  return px;
}
