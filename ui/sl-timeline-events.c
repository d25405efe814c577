/* sl-timeline-events.c: CUDA event records on the timeline: a marker where a stream recorded an
 * event, and, for a selected wait or record, arrows from the record to the waits it released.
 *
 * The model links them (sl-trace-events.c); this file only draws.  Markers: a lane's records
 * sorted by time, found by halving from the frame's start and then one per pixel column, so a
 * frame costs what its pixels cost (10^5 records on a stream zoomed out: ~width markers).  Arrows:
 * the waits of one record (1 … 10 typically, 32 drawn at most).
 */
#include "sl-timeline-view-private.h"

#define MAX_ARROWS 32

/* First position in records[from, n) whose record completes at or after t. */
static guint
records_lower_bound (SlTrace       *trace,
                     const guint32 *records,
                     guint          from,
                     guint          n,
                     SlTime         t)
{
  while (from < n)
    {
      guint mid = from + (n - from) / 2;
      if (sl_trace_get_event_record (trace, records[mid])->time < t)
        from = mid + 1;
      else
        n = mid;
    }
  return from;
}

void
_sl_timeline_draw_event_markers (SlTimelineView *self,
                                 Batch          *batch,
                                 const Frame    *f,
                                 const SlLane   *lane,
                                 double          y,
                                 double          h)
{
  const guint32 *records;
  guint n = sl_trace_get_lane_event_records (self->trace, lane->index, &records);
  guint i;

  if (n == 0 || h < 6)
    return;
  i = records_lower_bound (self->trace, records, 0, n, f->t0);
  while (i < n)
    {
      SlTime t = sl_trace_get_event_record (self->trace, records[i])->time;
      if (t >= f->t1)
        break;
      double x = floor (frame_x (f, t));
      /* a flag: a staff the row's height and a pennant at its top, right of it */
      batch_add (batch, x, x + 2, y + 1, h - 2, &self->pal.event_record);
      batch_add (batch, x + 2, x + 7, y + 1, 4, &self->pal.event_record);
      batch_flush (batch);
      SlTime next = f->t0 + (SlTime) ((x + 3 - HEADER_W) / f->scale);
      i = records_lower_bound (self->trace, records, i + 1, n, MAX (next, t + 1));
    }
}

gboolean
_sl_timeline_event_marker_hit (SlTimelineView *self,
                               const SlLane   *lane,
                               double          x,
                               SlEventRef     *call)
{
  const guint32 *records;
  guint n = sl_trace_get_lane_event_records (self->trace, lane->index, &records);
  const SlLane *call_lane;
  gsize call_index;
  double best = 5;   /* px */
  gint found = -1;

  if (n == 0)
    return FALSE;
  /* the records within 4 px either side of x, nearest first */
  SlTime t0 = x_to_time (self, x - 5), t1 = x_to_time (self, x + 8);
  for (guint i = records_lower_bound (self->trace, records, 0, n, t0); i < n; i++)
    {
      const SlEventRecord *rec = sl_trace_get_event_record (self->trace, records[i]);
      if (rec->time > t1)
        break;
      /* of records on one flag (completed at once), one that something waited for */
      double d = fabs (time_to_x (self, rec->time) + 2 - x) - (rec->n_waits > 0 ? 0.5 : 0);
      if (d < best && rec->call != SL_NO_LINK)
        {
          best = d;
          found = (gint) records[i];
        }
    }
  if (found < 0
      || !sl_trace_resolve (self->trace, sl_trace_get_event_record (self->trace, found)->call,
                            &call_lane, &call_index))
    return FALSE;
  *call = (SlEventRef) { (gint) call_lane->index, call_index };
  return TRUE;
}

/* The record the selection is about: a wait's (its synchronization event or its call), or the
 * record a cudaEventRecord call made; FALSE for anything else. */
static gboolean
selected_record (SlTimelineView *self,
                 guint          *record)
{
  const SlLane *lane;
  SlEventWait w;

  if (self->trace == NULL || self->selected.lane < 0
      || (guint) self->selected.lane >= sl_trace_get_n_lanes (self->trace))
    return FALSE;
  lane = sl_trace_get_lane (self->trace, self->selected.lane);
  if (self->selected.index >= lane->n_events
      || (lane->kind != SL_LANE_SYNC && lane->kind != SL_LANE_CUDA_API))
    return FALSE;
  guint32 id = lane->base + (guint32) self->selected.index;
  if (sl_trace_get_event_wait (self->trace, id, &w))
    {
      *record = w.record;
      return w.record != G_MAXUINT;
    }
  return lane->kind == SL_LANE_CUDA_API && sl_trace_find_event_record (self->trace, id, record);
}

/* Where a record's arrows start: its marker when its row is shown, else its call's start. */
static gboolean
record_point (SlTimelineView      *self,
              const SlEventRecord *rec,
              graphene_point_t    *p)
{
  const SlLane *lane;
  gsize index;
  graphene_rect_t r;

  if (rec->lane >= 0 && rec->time != G_MININT64 && self->lane_row != NULL
      && self->lane_row[rec->lane] >= 0)
    {
      const Row *row = row_get (self, self->lane_row[rec->lane]);
      *p = GRAPHENE_POINT_INIT (time_to_x (self, rec->time) + 1,
                                RULER_H + row->y - scroll_y (self) + row->h / 2);
      return TRUE;
    }
  if (rec->call == SL_NO_LINK || !sl_trace_resolve (self->trace, rec->call, &lane, &index)
      || !_sl_timeline_event_rect (self, (SlEventRef) { (gint) lane->index, index }, &r))
    return FALSE;
  *p = GRAPHENE_POINT_INIT (r.origin.x, r.origin.y + r.size.height / 2);
  return TRUE;
}

guint
_sl_timeline_event_arrow_points (SlTimelineView   *self,
                                 graphene_point_t *from,
                                 graphene_point_t *to,
                                 guint             max)
{
  guint record, n_arrows = 0;
  graphene_point_t a;
  const guint32 *waits;

  if (!selected_record (self, &record)
      || !record_point (self, sl_trace_get_event_record (self->trace, record), &a))
    return 0;
  guint n = sl_trace_get_event_record_waits (self->trace, record, &waits);
  double right = MAX (gtk_widget_get_width (GTK_WIDGET (self)), HEADER_W);
  for (guint i = 0; i < n && n_arrows < max; i++)
    {
      const SlLane *lane, *api_lane;
      gsize index, api_index;
      graphene_rect_t b;
      if (!sl_trace_resolve (self->trace, waits[i], &lane, &index))
        continue;
      /* to the wait's synchronization record, or where its row is hidden its call */
      const SlEvent *ev = &lane->events[index];
      if (!_sl_timeline_event_rect (self, (SlEventRef) { (gint) lane->index, index }, &b)
          && (ev->link == SL_NO_LINK
              || !sl_trace_resolve (self->trace, ev->link, &api_lane, &api_index)
              || !_sl_timeline_event_rect (self, (SlEventRef) { (gint) api_lane->index,
                                                                api_index }, &b)))
        continue;
      from[n_arrows] = a;
      to[n_arrows] = GRAPHENE_POINT_INIT (b.origin.x, b.origin.y + b.size.height / 2);
      /* ends off screen are pinned to the edge, on their own rows */
      from[n_arrows].x = CLAMP (from[n_arrows].x, HEADER_W, right);
      to[n_arrows].x = CLAMP (to[n_arrows].x, HEADER_W, right);
      n_arrows++;
    }
  return n_arrows;
}

void
_sl_timeline_draw_event_arrows (SlTimelineView *self,
                                GtkSnapshot    *snapshot,
                                int             width,
                                int             height)
{
  graphene_point_t from[MAX_ARROWS], to[MAX_ARROWS];
  guint n = _sl_timeline_event_arrow_points (self, from, to, MAX_ARROWS);
  static const double dash[] = { 5, 3 };

  if (n == 0)
    return;
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (HEADER_W, RULER_H,
                                                                          width - HEADER_W,
                                                                          height - RULER_H));
  gdk_cairo_set_source_rgba (cr, &self->pal.event_record);
  cairo_set_line_width (cr, 1.5);
  for (guint i = 0; i < n; i++)
    {
      graphene_point_t a = from[i], b = to[i];
      double mx = (a.x + b.x) / 2, len = 9;
      /* a dependency, not a launch: dashed, leaving the marker sideways, into the wait's start */
      cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
      cairo_move_to (cr, a.x, a.y);
      cairo_curve_to (cr, MAX (mx, a.x + 20), a.y, MIN (mx, b.x - 20), b.y, b.x, b.y);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      double ang = 0;   /* the curve comes in level, from the left */
      cairo_move_to (cr, b.x, b.y);
      cairo_line_to (cr, b.x - len * cos (ang - 0.4), b.y - len * sin (ang - 0.4));
      cairo_line_to (cr, b.x - len * cos (ang + 0.4), b.y - len * sin (ang + 0.4));
      cairo_close_path (cr);
      cairo_fill (cr);
      cairo_arc (cr, a.x, a.y, 3, 0, 2 * G_PI);
      cairo_fill (cr);
    }
  cairo_destroy (cr);
}
