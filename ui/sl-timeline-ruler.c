/* sl-timeline-ruler.c: the time ruler on top of the timeline, and the grid of its ticks. */
#include "sl-timeline-view-private.h"
#include "sl-format.h"

/* A file of the timeline, not a widget of its own: it is drawn into the frame's top node while the
 * frame's second thread prefetches (sl-timeline-frame.c), with the timeline's palette and label
 * layout; the selected range it labels is banded over the rows by the same code, and drag-to-select
 * on it is the timeline's one drag gesture (sl-timeline-input.c). */

/* 1, 2 or 5 × 10^k ns, so that ticks are at least `min_px` apart. */
static SlTime
tick_step (double span,
           double width,
           double min_px)
{
  double want = span * min_px / MAX (width, 1);
  SlTime step = 1;

  while ((double) step < want)
    {
      if ((double) step * 2 >= want)
        return step * 2;
      if ((double) step * 5 >= want)
        return step * 5;
      step *= 10;
    }
  return step;
}

/* A tick label in the unit the step calls for, with just the decimals it needs. */
static void
format_tick (char   *buf,
             gsize   n,
             SlTime  t,
             SlTime  step,
             gboolean plus)
{
  static const struct { SlTime ns; const char *name; } units[] = {
    { 1000000000, "s" }, { 1000000, "ms" }, { 1000, "µs" }, { 1, "ns" } };
  guint u = 3;
  int dec;

  /* 200 µs steps read as 0.2 ms, 100 µs steps as 100 µs */
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (step * 5 >= units[i].ns)
      {
        u = i;
        break;
      }
  dec = 0;
  for (SlTime s = step; s < units[u].ns && dec < 9; s *= 10)
    dec++;
  g_snprintf (buf, n, "%s%.*f %s", plus && t >= 0 ? "+" : "", dec,
              (double) t / (double) units[u].ns, units[u].name);
}

/* Where a finding's mark is drawn along the ruler's foot, from the x of its start and end: 2 px
 * at least, so that a finding of a few ns shows; clipped at the header and the right edge. */
static void
mark_extent (double  xa,
             double  xb,
             double  right,
             double *x0,
             double *x1)
{
  *x0 = MAX (xa, HEADER_W - 1);
  *x1 = MAX (MIN (xb, right + 1), *x0 + 2);
}

/* Time 0 of the labels: the trace's (sl_trace_get_origin: the session's start, where nsys-ui
 * counts from), else the viewport's start. */
static SlTime
ruler_origin (SlTimelineView *self,
              SlTime          start)
{
  return self->trace != NULL ? sl_trace_get_origin (self->trace) : start;
}

/* Whether absolute labels (time since the trace's time 0) would be long in the step's unit:
 * more than four integer digits ("2046600 µs") or more than ten characters; such frames label
 * offsets from a base tick instead, the base written in the corner. */
static gboolean
labels_relative (SlTime t,
                 SlTime step)
{
  char buf[64];
  const char *sp;

  format_tick (buf, sizeof buf, t, step, FALSE);
  sp = strchr (buf, '.');
  if (sp == NULL)
    sp = strchr (buf, ' ');
  return (sp != NULL && sp - buf > 4) || g_utf8_strlen (buf, -1) > 10;
}

/* The ruler's labels for a frame: one per tick whose label fits wholly between the header and
 * the right edge (a label the edges would cut is left out, so the leftmost is never clipped);
 * `*base` is set to the base of relative labels, or -1 when they are absolute. */
void
_sl_timeline_ruler_labels (SlTimelineView *self,
                           GtkSnapshot    *snapshot,
                           const Frame    *f,
                           GArray         *out,
                           SlTime         *base)
{
  SlTime start, end, step, first;
  gboolean relative;

  g_array_set_size (out, 0);
  sl_viewport_get_bounds (self->viewport, &start, &end);
  start = ruler_origin (self, start);
  step = tick_step ((double) (f->t1 - f->t0), f->width, 110);
  first = start + ((f->t0 - start) / step) * step;
  if (first < f->t0)
    first += step;
  relative = labels_relative (f->t1 - start, step);
  *base = relative ? first : -1;
  pango_layout_set_width (self->layout, -1);
  pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_NONE);
  for (SlTime t = first; t < f->t1 + step; t += step)
    {
      SlRulerLabel l;
      int w;

      l.x = frame_x (f, t) + 3;
      if (l.x >= f->right)
        break;
      format_tick (l.text, sizeof l.text, relative ? t - first : t - start, step, relative);
      pango_layout_set_text (self->layout, l.text, -1);
      pango_layout_get_pixel_size (self->layout, &w, NULL);
      l.w = w;
      if (l.x < HEADER_W || l.x + l.w + 2 > f->right)
        continue;
      g_array_append_val (out, l);
      if (snapshot != NULL)
        _sl_timeline_draw_text_plain (self, snapshot, NULL, l.x, 3, &self->pal.fg);
    }
}

void
_sl_timeline_draw_ruler (SlTimelineView *self,
                         GtkSnapshot    *snapshot,
                         const Frame    *f,
                         double          height)
{
  SlTime start, end, span = f->t1 - f->t0, step, first, base;
  gboolean relative;
  GdkRGBA tc = self->pal.fg, dc = self->pal.dim_fg;

  sl_viewport_get_bounds (self->viewport, &start, &end);
  start = ruler_origin (self, start);   /* ticks on the labels' grid */
  gtk_snapshot_append_color (snapshot, &self->pal.ruler_bg,
                             &GRAPHENE_RECT_INIT (0, 0, f->right, RULER_H));
  gtk_snapshot_append_color (snapshot, &self->pal.grid,
                             &GRAPHENE_RECT_INIT (0, RULER_H - 1, f->right, 1));
  step = tick_step ((double) span, f->width, 110);
  first = start + ((f->t0 - start) / step) * step;
  if (first < f->t0)
    first += step;

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (HEADER_W, 0, f->width, RULER_H));
  for (SlTime t = first - step; t < f->t1 + step; t += step)
    {
      double x = frame_x (f, t);
      gtk_snapshot_append_color (snapshot, &dc, &GRAPHENE_RECT_INIT (floor (x), RULER_H - 9, 1, 8));
      for (int k = 1; k < 5; k++)
        gtk_snapshot_append_color (snapshot, &self->pal.grid,
                                   &GRAPHENE_RECT_INIT (floor (x + k * step * f->scale / 5),
                                                        RULER_H - 5, 1, 4));
    }
  if (self->ruler_labels == NULL)
    self->ruler_labels = g_array_new (FALSE, FALSE, sizeof (SlRulerLabel));
  _sl_timeline_ruler_labels (self, snapshot, f, self->ruler_labels, &base);
  self->ruler_base = base;
  relative = base >= 0;
  gtk_snapshot_pop (snapshot);

  /* the corner: visible span, and the base when labels are relative */
  gtk_snapshot_append_color (snapshot, &self->pal.header_bg,
                             &GRAPHENE_RECT_INIT (0, 0, HEADER_W, RULER_H));
  {
    g_autofree char *d = sl_format_duration (span);
    g_autofree char *line = NULL;
    if (relative)
      {
        g_autofree char *o = sl_format_offset (base - start);
        /* the base first: the ticks are relative to it, and an ellipsis takes the end of a
         * line that does not fit ("1.500 µs wide · base +10…" lost the base) */
        line = g_strdup_printf ("base %s · %s wide", o, d);
      }
    else
      line = g_strdup_printf ("%s wide", d);
    if (self->lane_filter != NULL)
      {
        /* the lane filter is on: say so (a click here opens its entry, sl-timeline-lanes.c) */
        g_free (line);
        line = g_strdup_printf ("Lanes: “%s”", self->lane_filter);
        dc = self->pal.focus;
      }
    int lw;
    /* the legend is a click away (sl-timeline-legend.c) */
    pango_layout_set_width (self->layout, -1);
    pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_NONE);
    pango_layout_set_text (self->layout, LEGEND_LABEL, -1);
    pango_layout_get_pixel_size (self->layout, &lw, NULL);
    _sl_timeline_draw_text_plain (self, snapshot, NULL, HEADER_W - 8 - lw,
                                  (RULER_H - self->text_h) / 2, &self->pal.focus);
    _sl_timeline_draw_text (self, snapshot, SL_NO_STR, line, 8, (RULER_H - self->text_h) / 2,
                            HEADER_W - 20 - lw, &dc);
  }

  /* where the findings are: shaded marks along the ruler's foot, the one in focus stronger */
  if (self->ruler_marks != NULL && self->ruler_marks->len > 0)
    {
      GdkRGBA mark = self->pal.idle, strong = self->pal.focus;
      mark.alpha = RULER_MARK_ALPHA;
      gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (HEADER_W, 0, f->width, RULER_H));
      for (guint i = 0; i + 1 < self->ruler_marks->len; i += 2)
        {
          SlTime a = g_array_index (self->ruler_marks, SlTime, i);
          SlTime b = g_array_index (self->ruler_marks, SlTime, i + 1);
          double x0, x1;
          if (b < f->t0 || a > f->t1)
            continue;
          mark_extent (frame_x (f, a), frame_x (f, b), f->right, &x0, &x1);
          gtk_snapshot_append_color (snapshot, &mark,
                                     &GRAPHENE_RECT_INIT (x0, RULER_H - 6, x1 - x0, 5));
        }
      if (self->focus_t1 > self->focus_t0 && self->focus_t1 >= f->t0 && self->focus_t0 <= f->t1)
        {
          double x0, x1;
          mark_extent (frame_x (f, self->focus_t0), frame_x (f, self->focus_t1), f->right, &x0,
                       &x1);
          gtk_snapshot_append_color (snapshot, &strong,
                                     &GRAPHENE_RECT_INIT (x0, RULER_H - 6, x1 - x0, 5));
        }
      gtk_snapshot_pop (snapshot);
    }

  /* the selected range, with its duration */
  {
    SlTime s0, s1;
    if (sl_viewport_get_selection (self->viewport, &s0, &s1))
      {
        double x0 = MAX (frame_x (f, s0), HEADER_W), x1 = MIN (frame_x (f, s1), f->right);
        if (x1 > x0 - 1)
          {
            g_autofree char *d = sl_format_duration (s1 - s0);
            GdkRGBA strong = self->pal.range;
            int w;
            strong.alpha = MIN (1.0f, strong.alpha * 4);
            gtk_snapshot_append_color (snapshot, &strong,
                                       &GRAPHENE_RECT_INIT (x0, 0, MAX (x1 - x0, 1), RULER_H));
            gtk_snapshot_append_color (snapshot, &self->pal.range,
                                       &GRAPHENE_RECT_INIT (x0, RULER_H, MAX (x1 - x0, 1),
                                                            height - RULER_H));
            pango_layout_set_width (self->layout, -1);
            pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_NONE);
            pango_layout_set_text (self->layout, d, -1);
            pango_layout_get_pixel_size (self->layout, &w, NULL);
            double tx = CLAMP ((x0 + x1) / 2 - w / 2.0, HEADER_W + 2, f->right - w - 2);
            gtk_snapshot_append_color (snapshot, &self->pal.ruler_bg,
                                       &GRAPHENE_RECT_INIT (tx - 3, RULER_H - self->text_h - 4,
                                                            w + 6, self->text_h + 2));
            _sl_timeline_draw_text (self, snapshot, SL_NO_STR, d, tx, RULER_H - self->text_h - 3,
                                    w + 1, &tc);
          }
      }
  }
}

#define MARK_TOOLTIP_LINES 8  /* findings a mark's tooltip lists; the rest are counted */
#define MARK_SLACK_PX      2  /* a mark 2 px wide is hard to hover: this much either side counts */

typedef struct
{
  guint  mark;   /* index of the mark: its finding's, most costly first */
  SlTime span;
} MarkHit;

/* Narrowest first: a few pixels of mark under the pointer are what it was aimed at, where a
 * finding over the whole trace is under it everywhere; then the findings' order. */
static int
compare_mark_hits (gconstpointer pa,
                   gconstpointer pb)
{
  const MarkHit *a = pa, *b = pb;

  if (a->span != b->span)
    return a->span < b->span ? -1 : 1;
  return a->mark < b->mark ? -1 : a->mark > b->mark;
}

char *
_sl_timeline_ruler_mark_tooltip (SlTimelineView *self,
                                 double          x,
                                 double          y)
{
  g_autoptr (GArray) hits = NULL;
  GString *out;
  double right = gtk_widget_get_width (GTK_WIDGET (self));
  SlTime v0, v1;

  /* the marks are the ruler's lower part; its upper part is its labels */
  if (self->ruler_marks == NULL || self->trace == NULL || x < HEADER_W || y < RULER_H / 2
      || y >= RULER_H)
    return NULL;
  sl_viewport_get_visible (self->viewport, &v0, &v1);
  /* 10^1 … 10^3 findings, looked at once a hover */
  hits = g_array_new (FALSE, FALSE, sizeof (MarkHit));
  for (guint i = 0; i + 1 < self->ruler_marks->len; i += 2)
    {
      SlTime a = g_array_index (self->ruler_marks, SlTime, i);
      SlTime b = g_array_index (self->ruler_marks, SlTime, i + 1);
      MarkHit hit = { i / 2, b - a };
      double x0, x1;

      /* as drawn: a mark off screen is not there, not 2 px at the edge */
      if (b < v0 || a > v1)
        continue;
      mark_extent (time_to_x (self, a), time_to_x (self, b), right, &x0, &x1);
      if (x >= x0 - MARK_SLACK_PX && x <= x1 + MARK_SLACK_PX)
        g_array_append_val (hits, hit);
    }
  if (hits->len == 0)
    return NULL;
  g_array_sort (hits, compare_mark_hits);
  out = g_string_new (NULL);
  for (guint k = 0; k < MIN (hits->len, MARK_TOOLTIP_LINES); k++)
    {
      const MarkHit *hit = &g_array_index (hits, MarkHit, k);
      const char *text = self->ruler_texts != NULL && hit->mark < self->ruler_texts->len
                           ? g_ptr_array_index (self->ruler_texts, hit->mark)
                           : NULL;

      if (k > 0)
        g_string_append_c (out, '\n');
      if (text != NULL)
        g_string_append (out, text);
      else
        {
          SlTime a = g_array_index (self->ruler_marks, SlTime, 2 * hit->mark);
          g_autofree char *at = sl_format_offset (a - sl_trace_get_origin (self->trace));
          g_autofree char *d = sl_format_duration (hit->span);
          g_string_append_printf (out, "A finding at %s, %s long", at, d);
        }
    }
  if (hits->len > MARK_TOOLTIP_LINES)
    g_string_append_printf (out, "\n… and %u more here (the Findings tab lists them all)",
                            hits->len - MARK_TOOLTIP_LINES);
  return g_string_free (out, FALSE);
}

/* The grid of a frame: a line every `*step` ns from `*first` on, as the ruler's ticks. */
void
_sl_timeline_grid_ticks (SlTimelineView *self,
                         const Frame    *f,
                         SlTime         *first,
                         SlTime         *step)
{
  SlTime start, end;

  *step = tick_step ((double) (f->t1 - f->t0), f->width, 110);
  sl_viewport_get_bounds (self->viewport, &start, &end);
  start = ruler_origin (self, start);
  *first = start + ((f->t0 - start) / *step) * *step - *step;
}
