/* sl-timeline-mpi.c: MPI messages over the timeline: an arrow from each send to the receive
 * that matched it (sl_trace_get_mpi_messages: communicator, tag, source and destination; to the
 * end of the receive, or of the wait that completed a nonblocking one posted earlier), for
 * the messages of the visible window whose two rows are shown; the selected call's message
 * stands out.  In a merged job the arrows cross from rank to rank. */
#include "sl-timeline-view-private.h"

#include <math.h>

#include "sl-mpi.h"

#define MAX_MPI_ARROWS 2048

/* The arrow of message `m` into from/to; FALSE when a row of it is hidden. */
static gboolean
arrow_of (SlTimelineView     *self,
          const SlMpiMessage *m,
          double              right,
          graphene_point_t   *from,
          graphene_point_t   *to)
{
  const SlLane *sl = sl_trace_get_lane (self->trace, m->send.lane);
  const SlLane *rl = sl_trace_get_lane (self->trace, m->recv.lane);
  const SlEvent *se = &sl->events[m->send.index], *re = &rl->events[m->recv.index];
  graphene_rect_t a, b;
  SlEventRef at = m->recv;

  /* from the send's start to the receive's end: the data left, and had arrived; a nonblocking
   * receive posted before the send completes in the thread's next wait */
  if (re->end < se->start)
    for (gsize k = m->recv.index + 1; k < rl->n_events; k++)
      if (SL_MPI_SOURCE_OF (rl->events[k].aux) == SL_MPI_START_WAIT)
        {
          if (rl->events[k].end >= se->start)
            at.index = k;
          break;
        }
  if (!_sl_timeline_event_rect (self, m->send, &a) || !_sl_timeline_event_rect (self, at, &b))
    return FALSE;
  *from = GRAPHENE_POINT_INIT (CLAMP (a.origin.x, HEADER_W, right),
                               a.origin.y + a.size.height / 2);
  *to = GRAPHENE_POINT_INIT (CLAMP (b.origin.x + b.size.width, HEADER_W, right),
                             b.origin.y + b.size.height / 2);
  return TRUE;
}

guint
_sl_timeline_mpi_arrow_points (SlTimelineView   *self,
                               graphene_point_t *from,
                               graphene_point_t *to,
                               gboolean         *selected,
                               guint             max)
{
  guint n = 0;

  if (self->trace == NULL || sl_trace_get_n_mpi_calls (self->trace) == 0)
    return 0;
  const SlMpiMessages *msgs = sl_trace_get_mpi_messages (self->trace);
  double right = MAX (gtk_widget_get_width (GTK_WIDGET (self)), HEADER_W);
  SlTime v0 = x_to_time (self, HEADER_W), v1 = x_to_time (self, right);

  /* the selection's message first, wherever it is */
  const SlMpiMessage *sel = self->selected.lane >= 0
                              ? sl_mpi_find_message (msgs, self->selected) : NULL;
  if (sel != NULL && n < max && arrow_of (self, sel, right, &from[n], &to[n]))
    {
      if (selected != NULL)
        selected[n] = TRUE;
      n++;
    }
  /* the first message that can meet the window: by send start, at most max_span before it */
  gsize lo = 0, hi = msgs->n_messages;
  SlTime from_t = v0 - msgs->max_span;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      const SlLane *ml = sl_trace_get_lane (self->trace, msgs->messages[mid].send.lane);
      if (ml->events[msgs->messages[mid].send.index].start < from_t)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (gsize i = lo; i < msgs->n_messages && n < max; i++)
    {
      const SlMpiMessage *m = &msgs->messages[i];
      const SlLane *sl = sl_trace_get_lane (self->trace, m->send.lane);
      const SlLane *rl = sl_trace_get_lane (self->trace, m->recv.lane);
      if (sl->events[m->send.index].start > v1)
        break;
      if (m == sel || MAX (sl->events[m->send.index].start, rl->events[m->recv.index].end) < v0)
        continue;
      if (!arrow_of (self, m, right, &from[n], &to[n]))
        continue;
      if (selected != NULL)
        selected[n] = FALSE;
      n++;
    }
  return n;
}

static void
draw_one (cairo_t                *cr,
          const graphene_point_t *a,
          const graphene_point_t *b,
          double                  len)
{
  double ang = atan2 (b->y - a->y, b->x - a->x);

  cairo_move_to (cr, a->x, a->y);
  cairo_line_to (cr, b->x, b->y);
  cairo_stroke (cr);
  cairo_move_to (cr, b->x, b->y);
  cairo_line_to (cr, b->x - len * cos (ang - 0.4), b->y - len * sin (ang - 0.4));
  cairo_line_to (cr, b->x - len * cos (ang + 0.4), b->y - len * sin (ang + 0.4));
  cairo_close_path (cr);
  cairo_fill (cr);
  cairo_arc (cr, a->x, a->y, 2, 0, 2 * G_PI);
  cairo_fill (cr);
}

void
_sl_timeline_draw_mpi_arrows (SlTimelineView *self,
                              GtkSnapshot    *snapshot,
                              int             width,
                              int             height)
{
  g_autofree graphene_point_t *from = g_new (graphene_point_t, MAX_MPI_ARROWS);
  g_autofree graphene_point_t *to = g_new (graphene_point_t, MAX_MPI_ARROWS);
  g_autofree gboolean *selected = g_new (gboolean, MAX_MPI_ARROWS);
  guint n = _sl_timeline_mpi_arrow_points (self, from, to, selected, MAX_MPI_ARROWS);

  if (n == 0)
    return;
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (HEADER_W, RULER_H,
                                                                          width - HEADER_W,
                                                                          height - RULER_H));
  GdkRGBA c = self->pal.fg;
  c.alpha = 0.55f;
  gdk_cairo_set_source_rgba (cr, &c);
  cairo_set_line_width (cr, 1);
  for (guint i = 0; i < n; i++)
    if (!selected[i])
      draw_one (cr, &from[i], &to[i], 6);
  gdk_cairo_set_source_rgba (cr, &self->pal.select);
  cairo_set_line_width (cr, 2);
  for (guint i = 0; i < n; i++)
    if (selected[i])
      draw_one (cr, &from[i], &to[i], 9);
  cairo_destroy (cr);
}
