/* sl-timeline-critpath.c: the critical path of a range drawn over the timeline: the rest dimmed,
 * each segment's event redrawn and outlined on its row with a bar of its kind's colour, and a
 * connector where the path moves to another row; the context menu's "Critical Path of …". */
#include "sl-timeline-view-private.h"

#define CP_WASH_ALPHA 0.5f  /* what is not on the path, washed towards the background */
#define CP_BAR_H      4.0   /* px: the kind's bar along the foot of a segment's row */

/* The path as set: its segments (copied), and for each the lane whose row it is drawn on (the
 * event's, else a lane of its thread or stream), -1 when it has none in this trace.  A path of a
 * ProfilerStep is typically 10^2–10^4 segments; a frame draws those overlapping the window, at most
 * one per pixel column and row. */
struct _SlCritPathState
{
  SlCpSegment *segs;
  gint        *lanes;
  gsize        n;
};

enum
{
  CP_SIGNAL,
  N_CP_SIGNALS
};

static guint cp_signals[N_CP_SIGNALS];

void
sl_critical_path_kind_color (SlCpKind kind,
                             GdkRGBA *color)
{
  static const guint32 rgb[SL_CP_N_KINDS] = {
    [SL_CP_CPU] = 0x3584e4,     /* blue: the host working */
    [SL_CP_GPU] = 0x2ec27e,     /* green: a stream working */
    [SL_CP_LAUNCH] = 0xe5a50a,  /* amber: launch delay and queueing */
    [SL_CP_WAIT] = 0xe01b24,    /* red: blocked */
    [SL_CP_IDLE] = 0x9a9996,    /* grey: nothing traced */
  };

  _sl_rgba_set (color, (guint) kind < SL_CP_N_KINDS ? rgb[kind] : 0x9a9996, 1);
}

/* The outline and connectors: an orange that neither theme's selection (white or black) nor any
 * kind's colour is. */
static GdkRGBA
accent (void)
{
  GdkRGBA c;

  _sl_rgba_set (&c, 0xff7800, 1);
  return c;
}

void
_sl_timeline_critpath_reset (SlTimelineView *self)
{
  if (self->critpath == NULL)
    return;
  g_free (self->critpath->segs);
  g_free (self->critpath->lanes);
  g_clear_pointer (&self->critpath, g_free);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Where time on a thread or stream with no event of its own is drawn: the thread's CUDA API row
 * (else its outermost NVTX row, else any of its rows but samples and states), the stream's kernel
 * row (else its copies', sets' or graphs'). */
static gint
place_rank (const SlLane      *lane,
            const SlCpSegment *s)
{
  if (s->gpu >= 0)
    {
      if (lane->gpu != s->gpu || lane->stream_id != s->stream_id)
        return -1;
      return lane->kind == SL_LANE_KERNELS ? 0 : lane->kind == SL_LANE_SYNC ? -1 : 1;
    }
  if (s->thread < 0 || lane->thread != s->thread || lane->kind == SL_LANE_SAMPLES
      || lane->kind == SL_LANE_SCHED)
    return -1;
  if (lane->kind == SL_LANE_CUDA_API && lane->depth == 0)
    return 0;
  if (lane->kind == SL_LANE_NVTX && lane->depth == 0)
    return 1;
  return 2;
}

void
sl_timeline_view_set_critical_path (SlTimelineView    *self,
                                    const SlCpSegment *segments,
                                    gsize              n)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));

  _sl_timeline_critpath_reset (self);
  if (n == 0 || segments == NULL || self->trace == NULL)
    return;
  self->critpath = g_new0 (struct _SlCritPathState, 1);
  self->critpath->segs = g_memdup2 (segments, n * sizeof (SlCpSegment));
  self->critpath->lanes = g_new (gint, n);
  self->critpath->n = n;

  /* places without an event: a few dozen threads and streams, looked up once each */
  g_autoptr (GHashTable) places = g_hash_table_new (NULL, NULL);
  guint n_lanes = sl_trace_get_n_lanes (self->trace);
  for (gsize i = 0; i < n; i++)
    {
      const SlCpSegment *s = &segments[i];
      gint lane = -1;

      if (s->event.lane >= 0 && (guint) s->event.lane < n_lanes)
        lane = s->event.lane;
      else if (s->gpu >= 0 || s->thread >= 0)
        {
          gpointer key = GSIZE_TO_POINTER (s->gpu >= 0 ? ((gsize) s->gpu << 33)
                                                         | ((gsize) s->stream_id << 1) | 1
                                                       : (gsize) s->thread << 1);
          gpointer found;
          if (g_hash_table_lookup_extended (places, key, NULL, &found))
            lane = GPOINTER_TO_INT (found);
          else
            {
              gint best = G_MAXINT;
              for (guint l = 0; l < n_lanes; l++)
                {
                  gint rank = place_rank (sl_trace_get_lane (self->trace, l), s);
                  if (rank >= 0 && rank < best)
                    {
                      best = rank;
                      lane = (gint) l;
                    }
                }
              g_hash_table_insert (places, key, GINT_TO_POINTER (lane));
            }
        }
      self->critpath->lanes[i] = lane;
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const SlCpSegment *
sl_timeline_view_get_critical_path (SlTimelineView *self,
                                    gsize          *n)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), NULL);
  if (n != NULL)
    *n = self->critpath != NULL ? self->critpath->n : 0;
  return self->critpath != NULL ? self->critpath->segs : NULL;
}

/* The row segment i is drawn on, in widget coordinates: FALSE when it has none shown. */
static gboolean
segment_row (SlTimelineView *self,
             gsize           i,
             double         *y,
             double         *h)
{
  gint lane = self->critpath->lanes[i];
  gint row;

  if (lane < 0 || self->lane_row == NULL || (row = self->lane_row[lane]) < 0)
    return FALSE;
  *y = RULER_H + row_get (self, row)->y - scroll_y (self);
  *h = row_get (self, row)->h;
  return TRUE;
}

/* The first segment that ends after t: the segments follow each other, so ends are sorted. */
static gsize
first_after (const struct _SlCritPathState *cp,
             SlTime                         t)
{
  gsize lo = 0, hi = cp->n;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (cp->segs[mid].end <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

gboolean
sl_timeline_view_get_critical_path_area (SlTimelineView  *self,
                                         gsize            i,
                                         graphene_rect_t *area)
{
  double y, h;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  if (self->critpath == NULL || i >= self->critpath->n || !segment_row (self, i, &y, &h))
    return FALSE;
  double x0 = time_to_x (self, self->critpath->segs[i].start);
  double x1 = MAX (time_to_x (self, self->critpath->segs[i].end), x0 + 1);
  graphene_rect_init (area, x0, y + h - CP_BAR_H, x1 - x0, CP_BAR_H);
  return TRUE;
}

static void
draw_connector (cairo_t *cr,
                double   x,
                double   ya,
                double   yb,
                gboolean head)
{
  double dir = yb > ya ? 1 : -1;

  cairo_move_to (cr, x, ya);
  cairo_line_to (cr, x, yb - dir * 4);
  cairo_stroke (cr);
  cairo_arc (cr, x, ya, 2.5, 0, 2 * G_PI);
  cairo_fill (cr);
  if (!head)
    return;
  cairo_move_to (cr, x, yb);
  cairo_line_to (cr, x - 4, yb - dir * 7);
  cairo_line_to (cr, x + 4, yb - dir * 7);
  cairo_close_path (cr);
  cairo_fill (cr);
}

void
_sl_timeline_critpath_draw (SlTimelineView *self,
                            GtkSnapshot    *snapshot,
                            const Frame    *f,
                            int             height)
{
  const struct _SlCritPathState *cp = self->critpath;
  GdkRGBA wash = self->pal.bg, edge = accent ();
  SlEventRef last_event = SL_EVENT_REF_NONE;
  gint last_lane = -1;
  double last_px = -1, conn_px = -1, conn_y0 = 0, conn_y1 = 0;
  GtkSnapshot *boxes, *lines, *bars;
  GskRenderNode *node;
  cairo_t *cr;

  if (cp == NULL || self->trace == NULL)
    return;
  wash.alpha = CP_WASH_ALPHA;
  gtk_snapshot_append_color (snapshot, &wash,
                             &GRAPHENE_RECT_INIT (HEADER_W, RULER_H, f->width, height - RULER_H));
  /* made side by side: the events' boxes, over them the outlines and connectors, on top the
   * kinds' bars */
  boxes = gtk_snapshot_new ();
  lines = gtk_snapshot_new ();
  bars = gtk_snapshot_new ();
  cr = gtk_snapshot_append_cairo (lines, &GRAPHENE_RECT_INIT (HEADER_W, RULER_H, f->width,
                                                              height - RULER_H));
  gdk_cairo_set_source_rgba (cr, &edge);
  cairo_set_line_width (cr, 2);

  for (gsize i = first_after (cp, f->t0); i < cp->n && cp->segs[i].start < f->t1; i++)
    {
      const SlCpSegment *s = &cp->segs[i];
      double y, h, yn, hn;
      double x0 = MAX (frame_x (f, s->start), HEADER_W - 1);
      double x1 = MAX (MIN (frame_x (f, s->end), f->right + 1), x0 + 1);
      GdkRGBA kc;

      if (!segment_row (self, i, &y, &h))
        continue;
      /* a segment that shares its pixel column and row with the one before adds nothing */
      if (cp->lanes[i] != last_lane || floor (x1) > last_px)
        {
          if (s->event.lane >= 0 && (s->event.lane != last_event.lane
                                     || s->event.index != last_event.index))
            {
              const SlLane *lane = sl_trace_get_lane (self->trace, (guint) s->event.lane);
              const SlEvent *ev = &lane->events[s->event.index];
              double e0 = MAX (frame_x (f, ev->start), HEADER_W - 3);
              double e1 = MAX (MIN (frame_x (f, ev->end), f->right + 3), e0 + 1);
              GdkRGBA c = _sl_timeline_event_color (self, lane, ev);
              gtk_snapshot_append_color (boxes, &c,
                                         &GRAPHENE_RECT_INIT (e0, y + 1, e1 - e0, h - 2));
              cairo_rectangle (cr, e0, y + 1, e1 - e0, h - 2);
              cairo_stroke (cr);
              last_event = s->event;
            }
          sl_critical_path_kind_color (s->kind, &kc);
          if (s->event.lane >= 0)
            gtk_snapshot_append_color (bars, &kc,
                                       &GRAPHENE_RECT_INIT (x0, y + h - CP_BAR_H, x1 - x0,
                                                            CP_BAR_H));
          else
            {
              /* time with nothing traced: a line through the middle of its thread's row */
              gtk_snapshot_append_color (bars, &kc,
                                         &GRAPHENE_RECT_INIT (x0, y + h / 2 - 1, x1 - x0, 2));
              gtk_snapshot_append_color (bars, &kc,
                                         &GRAPHENE_RECT_INIT (x0, y + h - CP_BAR_H, x1 - x0,
                                                              CP_BAR_H));
            }
          last_lane = cp->lanes[i];
          last_px = floor (x1);
        }
      /* the path moves to another row at the segment's end: one connector per pixel column, as
       * long as the rows it joins there */
      if (i + 1 < cp->n && cp->lanes[i + 1] != cp->lanes[i] && segment_row (self, i + 1, &yn, &hn)
          && yn != y)
        {
          double x = floor (frame_x (f, s->end)) + 0.5;
          double ya = y + h / 2, yb = yn + hn / 2;
          if (x == conn_px)
            {
              conn_y0 = MIN (conn_y0, MIN (ya, yb));
              conn_y1 = MAX (conn_y1, MAX (ya, yb));
              continue;
            }
          if (conn_px >= 0 && conn_y1 > conn_y0)
            draw_connector (cr, conn_px, conn_y0, conn_y1, FALSE);
          if (x < HEADER_W || x > f->right)
            {
              conn_px = -1;
              continue;
            }
          /* far enough from its neighbours to show which way it goes: an arrowhead */
          draw_connector (cr, x, ya, yb, TRUE);
          conn_px = x;
          conn_y0 = conn_y1 = ya;
        }
    }
  if (conn_px >= 0 && conn_y1 > conn_y0)
    draw_connector (cr, conn_px, conn_y0, conn_y1, FALSE);
  cairo_destroy (cr);
  for (guint k = 0; k < 3; k++)
    if ((node = gtk_snapshot_free_to_node (k == 0 ? boxes : k == 1 ? lines : bars)) != NULL)
      {
        gtk_snapshot_append_node (snapshot, node);
        gsk_render_node_unref (node);
      }
}

/* ---- the context menu ------------------------------------------------------------------ */

/* An event the path of whose span is asked for: a range (NVTX, a PyTorch annotation or op, a
 * ProfilerStep; the JSON reader puts those in NVTX lanes). */
static gboolean
menu_range (SlTimelineView *self,
            const char    **name)
{
  const SlLane *lane;

  if (self->trace == NULL || self->menu_ref.lane < 0 || self->menu_t1 <= self->menu_t0)
    return FALSE;
  lane = sl_trace_get_lane (self->trace, (guint) self->menu_ref.lane);
  if (lane->kind != SL_LANE_NVTX || self->menu_ref.index >= lane->n_events)
    return FALSE;
  *name = sl_trace_display_name (self->trace, lane->kind,
                                 lane->events[self->menu_ref.index].name);
  return TRUE;
}

void
_sl_timeline_critpath_menu (SlTimelineView *self,
                            GMenu          *section)
{
  const char *name;

  if (menu_range (self, &name))
    g_menu_append (section, "Critical Path of This Range", "timeline.critical-path");
  if (self->viewport != NULL && sl_viewport_get_selection (self->viewport, NULL, NULL))
    g_menu_append (section, "Critical Path of Selection", "timeline.critical-path-selection");
}

static void
action_cb (GtkWidget  *widget,
           const char *action,
           GVariant   *param)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);
  const char *name;
  SlTime t0, t1;

  (void) param;
  if (g_str_equal (action, "timeline.critical-path") && menu_range (self, &name))
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, (guint) self->menu_ref.lane);
      const SlEvent *ev = &lane->events[self->menu_ref.index];
      _sl_timeline_select_ref (self, self->menu_ref, TRUE);
      g_signal_emit (self, cp_signals[CP_SIGNAL], 0, (gint64) ev->start, (gint64) ev->end, name);
    }
  else if (g_str_equal (action, "timeline.critical-path-selection")
           && sl_viewport_get_selection (self->viewport, &t0, &t1) && t1 > t0)
    g_signal_emit (self, cp_signals[CP_SIGNAL], 0, (gint64) t0, (gint64) t1, "the selection");
}

/* "critical-path" (gint64 t0, gint64 t1, const char *what): the person asked for the critical
 * path of [t0, t1) ("step 3", "the selection"); the window computes it (SlCriticalPathPanel) and
 * hands it back with sl_timeline_view_set_critical_path. */
void
_sl_timeline_critpath_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "timeline.critical-path", NULL, action_cb);
  gtk_widget_class_install_action (widget_class, "timeline.critical-path-selection", NULL,
                                   action_cb);
  cp_signals[CP_SIGNAL] = g_signal_new ("critical-path", G_TYPE_FROM_CLASS (widget_class),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                                        G_TYPE_INT64, G_TYPE_INT64, G_TYPE_STRING);
}
