/* sl-timeline-overlays.c: drawn over the events: marks, focus, selection outline, arrow. */
#include "sl-timeline-view-private.h"

void
_sl_timeline_markset_clear (MarkSet *m)
{
  for (guint i = 0; i < m->n_lanes; i++)
    if (m->lanes[i] != NULL)
      g_array_unref (m->lanes[i]);
  g_clear_pointer (&m->lanes, g_free);
  m->n_lanes = 0;
}

void
_sl_timeline_markset_add (MarkSet *m,
                          guint    lane,
                          guint32  index)
{
  if (m->lanes[lane] == NULL)
    m->lanes[lane] = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_append_val (m->lanes[lane], index);
}

/* First position in idx[from, n) whose event starts at or after t. */
static guint
marks_lower_bound (const SlLane  *lane,
                   const guint32 *idx,
                   guint          from,
                   guint          n,
                   SlTime         t)
{
  while (from < n)
    {
      guint mid = from + (n - from) / 2;
      if (lane->events[idx[mid]].start < t)
        from = mid + 1;
      else
        n = mid;
    }
  return from;
}

/* Events of a mark set in one lane, one per pixel column at most: O(pixels × log n). */
void
_sl_timeline_draw_lane_marks (SlTimelineView *self,
                              Batch          *batch,
                              const Frame    *f,
                              const SlLane   *lane,
                              const guint32  *idx,
                              guint           n,
                              double          y,
                              double          h,
                              const GdkRGBA  *underline)
{
  guint i;

  i = marks_lower_bound (lane, idx, 0, n, f->t0);
  if (i > 0 && lane->events[idx[i - 1]].end > f->t0)
    i--;
  while (i < n)
    {
      const SlEvent *ev = &lane->events[idx[i]];
      double x0, x1;
      SlTime next;
      GdkRGBA c;

      if (ev->start >= f->t1)
        break;
      x0 = MAX (frame_x (f, ev->start), HEADER_W - 1);
      x1 = MAX (MIN (frame_x (f, ev->end), f->right + 1), x0 + 1);
      if (underline != NULL)
        batch_add (batch, x0, MAX (x1, x0 + 2), y + h - 3, 3, underline);
      else
        {
          c = _sl_timeline_event_color (self, lane, ev);
          batch_add (batch, x0, x1, y + 1, h - 2, &c);
        }
      next = f->t0 + (SlTime) ((floor (x1 - HEADER_W) + 1) / f->scale);
      if (next <= ev->start)
        next = ev->start + 1;
      i = marks_lower_bound (lane, idx, i + 1, n, next);
    }
}

/* The matches of a model search in one lane. */
void
_sl_timeline_draw_search_marks (SlTimelineView *self,
                                Batch          *batch,
                                const Frame    *f,
                                const SlLane   *lane,
                                const SlSearch *search,
                                double          y,
                                double          h,
                                const GdkRGBA  *underline)
{
  gsize n;
  const guint32 *idx = sl_search_get_lane_matches (search, lane->index, &n);

  if (n > 0)
    _sl_timeline_draw_lane_marks (self, batch, f, lane, idx, (guint) n, y, h, underline);
}

void
_sl_timeline_draw_outline (GtkSnapshot   *snapshot,
                           const graphene_rect_t *r,
                           const GdkRGBA *c,
                           double         w)
{
  gtk_snapshot_append_color (snapshot, c, &GRAPHENE_RECT_INIT (r->origin.x - w, r->origin.y - w,
                                                               r->size.width + 2 * w, w));
  gtk_snapshot_append_color (snapshot, c, &GRAPHENE_RECT_INIT (r->origin.x - w,
                                                               r->origin.y + r->size.height,
                                                               r->size.width + 2 * w, w));
  gtk_snapshot_append_color (snapshot, c, &GRAPHENE_RECT_INIT (r->origin.x - w, r->origin.y, w,
                                                               r->size.height));
  gtk_snapshot_append_color (snapshot, c, &GRAPHENE_RECT_INIT (r->origin.x + r->size.width,
                                                               r->origin.y, w, r->size.height));
}

/* Area of an event in widget coordinates, unclipped horizontally; FALSE when its row is hidden. */
gboolean
_sl_timeline_event_rect (SlTimelineView  *self,
                         SlEventRef       ref,
                         graphene_rect_t *out)
{
  const SlLane *lane;
  const SlEvent *ev;
  const Row *row;
  double x0, x1, y;

  if (self->trace == NULL || ref.lane < 0 || (guint) ref.lane >= sl_trace_get_n_lanes (self->trace)
      || self->lane_row == NULL || self->lane_row[ref.lane] < 0)
    return FALSE;
  lane = sl_trace_get_lane (self->trace, ref.lane);
  if (ref.index >= lane->n_events)
    return FALSE;
  ev = &lane->events[ref.index];
  row = row_get (self, self->lane_row[ref.lane]);
  x0 = time_to_x (self, ev->start);
  x1 = MAX (time_to_x (self, ev->end), x0 + 1);
  y = RULER_H + row->y - scroll_y (self);
  graphene_rect_init (out, x0, y + 1, x1 - x0, row->h - 2);
  return TRUE;
}

/* The box the selection outline goes around: the selected event clipped to the lanes area, its
 * cut sides just outside it (so that an event running on past an edge shows no side there);
 * FALSE when the event is hidden or entirely off screen. */
gboolean
_sl_timeline_selection_outline (SlTimelineView  *self,
                                graphene_rect_t *out)
{
  graphene_rect_t r;
  double right = gtk_widget_get_width (GTK_WIDGET (self));
  double bottom = gtk_widget_get_height (GTK_WIDGET (self));
  double x0, x1;

  if (!_sl_timeline_event_rect (self, self->selected, &r))
    return FALSE;
  x0 = r.origin.x;
  x1 = r.origin.x + r.size.width;
  if (x1 <= HEADER_W || x0 >= right || r.origin.y + r.size.height <= RULER_H
      || r.origin.y >= bottom)
    return FALSE;
  x0 = MAX (x0, HEADER_W - 3);
  x1 = MIN (x1, right + 3);
  graphene_rect_init (out, x0, r.origin.y, x1 - x0, r.size.height);
  return TRUE;
}

/* The launch → GPU work pair of the selection, when both rows are shown. */
gboolean
_sl_timeline_arrow_points (SlTimelineView   *self,
                           graphene_point_t *from,
                           graphene_point_t *to)
{
  const SlLane *lane, *other;
  gsize other_index;
  graphene_rect_t a, b;
  SlEventRef oref;

  if (self->trace == NULL || self->selected.lane < 0)
    return FALSE;
  lane = sl_trace_get_lane (self->trace, self->selected.lane);
  if (self->selected.index >= lane->n_events || lane->kind == SL_LANE_NVTX
      || lane->kind == SL_LANE_OSRT || lane->kind == SL_LANE_SAMPLES)
    return FALSE;
  if (lane->events[self->selected.index].link == SL_NO_LINK
      || !sl_trace_resolve (self->trace, lane->events[self->selected.index].link, &other,
                            &other_index))
    return FALSE;
  oref = (SlEventRef) { (gint) other->index, other_index };
  if (lane->kind == SL_LANE_CUDA_API)
    {
      if (!_sl_timeline_event_rect (self, self->selected, &a)
          || !_sl_timeline_event_rect (self, oref, &b))
        return FALSE;
    }
  else if (!_sl_timeline_event_rect (self, oref, &a)
           || !_sl_timeline_event_rect (self, self->selected, &b))
    return FALSE;
  /* from the launch call's start to the GPU op's start */
  *from = GRAPHENE_POINT_INIT (a.origin.x, a.origin.y + a.size.height);
  *to = GRAPHENE_POINT_INIT (b.origin.x, b.origin.y);
  if (b.origin.y < a.origin.y)
    {
      from->y = a.origin.y;
      to->y = b.origin.y + b.size.height;
    }
  /* an end off screen is pinned to the edge of its own row, so the arrow visibly leaves the
   * launch call's row (a clipped curve from far away would seem to start in another row) */
  double right = gtk_widget_get_width (GTK_WIDGET (self));
  from->x = CLAMP (from->x, HEADER_W, MAX (right, HEADER_W));
  to->x = CLAMP (to->x, HEADER_W, MAX (right, HEADER_W));
  return TRUE;
}

void
_sl_timeline_draw_arrow (SlTimelineView *self,
                         GtkSnapshot    *snapshot,
                         int             width,
                         int             height)
{
  graphene_point_t a, b;
  cairo_t *cr;
  double ang, len = 9;

  if (!_sl_timeline_arrow_points (self, &a, &b))
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (HEADER_W, RULER_H,
                                                                 width - HEADER_W,
                                                                 height - RULER_H));
  gdk_cairo_set_source_rgba (cr, &self->pal.select);
  cairo_set_line_width (cr, 1.5);
  cairo_move_to (cr, a.x, a.y);
  cairo_curve_to (cr, a.x, (a.y + b.y) / 2, b.x, (a.y + b.y) / 2, b.x, b.y);
  cairo_stroke (cr);
  ang = atan2 (b.y - (a.y + b.y) / 2, 0.0001);
  cairo_move_to (cr, b.x, b.y);
  cairo_line_to (cr, b.x - len * cos (ang - 0.4), b.y - len * sin (ang - 0.4));
  cairo_line_to (cr, b.x - len * cos (ang + 0.4), b.y - len * sin (ang + 0.4));
  cairo_close_path (cr);
  cairo_fill (cr);
  cairo_arc (cr, a.x, a.y, 2.5, 0, 2 * G_PI);
  cairo_fill (cr);
  cairo_destroy (cr);
}

void
_sl_timeline_draw_loading (SlTimelineView *self,
                           GtkSnapshot    *snapshot,
                           const Frame    *f,
                           int             height)
{
  SlTime from;
  double share;

  if (!sl_trace_get_loading (self->trace, &from, &share))
    return;
  double x0 = MAX (frame_x (f, from), HEADER_W), x1 = f->right, h = height - RULER_H;
  if (x1 <= x0 || h <= 0)
    return;
  /* washed towards the background, so that what is drawn there (rows of events that have not all
   * arrived) reads as provisional, and hatched, so that it is not taken for an idle stretch */
  GdkRGBA wash = self->pal.bg, hatch = self->pal.dim_fg;
  wash.alpha = 0.6f;
  hatch.alpha = 0.25f;
  gtk_snapshot_append_color (snapshot, &wash, &GRAPHENE_RECT_INIT (x0, RULER_H, x1 - x0, h));
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (x0, RULER_H, x1 - x0, h));
  gdk_cairo_set_source_rgba (cr, &hatch);
  cairo_set_line_width (cr, 1);
  /* 45° lines every 12 px, fixed to the widget (not to time) so that they do not crawl on a pan */
  for (double x = floor ((x0 - h) / 12) * 12; x < x1; x += 12)
    {
      cairo_move_to (cr, x, RULER_H + h);
      cairo_line_to (cr, x + h, RULER_H);
    }
  cairo_stroke (cr);
  cairo_destroy (cr);
  /* the label on a plate of the background, readable over the hatching */
  g_autofree char *text = g_strdup_printf ("Loading… %.0f %%",
                                           floor ((self->loading_fraction >= 0
                                                   ? self->loading_fraction : share) * 100));
  int tw, th;
  pango_layout_set_width (self->layout, -1);
  pango_layout_set_text (self->layout, text, -1);
  pango_layout_get_pixel_size (self->layout, &tw, &th);
  gtk_snapshot_append_color (snapshot, &self->pal.bg,
                             &GRAPHENE_RECT_INIT (x0 + 4, RULER_H + 3, tw + 8, th + 4));
  _sl_timeline_draw_text_plain (self, snapshot, text, x0 + 8, RULER_H + 5, &self->pal.fg);
}
