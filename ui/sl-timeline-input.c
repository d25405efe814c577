/* sl-timeline-input.c: the timeline's hit tests, tooltips, navigation, actions and gestures. */
#include "sl-timeline-view-private.h"
#include "sl-format.h"

typedef struct
{
  SlEventRef ref;     /* the event, or the first event of a fold */
  SlLodItem  item;
} Hit;

static gboolean
hit_lane (SlTimelineView *self,
          const SlLane   *lane,
          double          x,
          Hit            *hit)
{
  SlTime t0, t1;
  double width = lanes_width (self), best = 1e9;
  gboolean found = FALSE;
  GArray *lod;

  /* every item, folds included, of the pixels around x: on the frame's pixel grid */
  sl_viewport_get_visible (self->viewport, &t0, &t1);
  {
    double ns_per_px = (double) (t1 - t0) / ceil (width);
    double c0 = MAX (floor (x - HEADER_W) - 4, 0);
    SlTime h0 = t0 + (SlTime) (c0 * ns_per_px);
    sl_lane_lod (lane, h0, h0 + (SlTime) (9 * ns_per_px) + 1, 9, MIN_PX, self->lod);
  }
  lod = self->lod;
  for (guint k = 0; k < lod->len; k++)
    {
      const SlLodItem *it = &g_array_index (lod, SlLodItem, k);
      double x0 = time_to_x (self, it->start), x1 = MAX (time_to_x (self, it->end), x0 + 1);
      double d = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
      /* an exact hit wins; within 2 px the nearest */
      if (d <= 2 && d < best)
        {
          best = d;
          hit->ref = (SlEventRef) { (gint) lane->index, it->first };
          hit->item = *it;
          found = TRUE;
          if (d == 0 && it->count == 1)
            break;
        }
    }
  return found;
}

static gboolean
hit_test (SlTimelineView *self,
          double          x,
          double          y,
          Hit            *hit)
{
  gint ri;
  const Row *r;

  if (self->trace == NULL || x < HEADER_W)
    return FALSE;
  ri = _sl_timeline_row_at (self, y);
  if (ri < 0)
    return FALSE;
  r = row_get (self, ri);
  if (r->kind == ROW_LANE && _sl_timeline_flame_wants (self, r->lane))
    return _sl_timeline_flame_hit (self, sl_trace_get_lane (self->trace, r->lane), x,
                                   y - RULER_H + scroll_y (self) - r->y, &hit->ref, &hit->item);
  /* a CUDA event record's marker stands for its cudaEventRecord call */
  if (r->kind == ROW_LANE
      && _sl_timeline_event_marker_hit (self, sl_trace_get_lane (self->trace, r->lane), x,
                                        &hit->ref))
    {
      const SlLane *call_lane = sl_trace_get_lane (self->trace, hit->ref.lane);
      memset (&hit->item, 0, sizeof hit->item);
      hit->item.first = hit->ref.index;
      hit->item.count = 1;
      hit->item.start = call_lane->events[hit->ref.index].start;
      hit->item.end = call_lane->events[hit->ref.index].end;
      return TRUE;
    }
  if (r->kind == ROW_LANE)
    return hit_lane (self, sl_trace_get_lane (self->trace, r->lane), x, hit);
  if (r->kind == ROW_NVTX_PROJ)
    return _sl_timeline_nvtxproj_hit (self, r, x, &hit->ref, &hit->item);
  if (r->kind == ROW_GRAPHS || r->kind == ROW_GRAPH_NODES)
    return _sl_timeline_graphs_hit (self, r, x, &hit->ref, &hit->item);
  if (r->kind == ROW_GPU_MEMORY)
    return _sl_timeline_memory_hit (self, r, x, &hit->ref, &hit->item);
  if (r->kind == ROW_GPU_ALL)
    {
      GArray *lanes = self->gpu_lanes[r->gpu];
      for (guint k = 0; k < lanes->len; k++)
        if (hit_lane (self, sl_trace_get_lane (self->trace, g_array_index (lanes, guint, k)), x,
                      hit))
          return TRUE;
    }
  return FALSE;
}

static gboolean
query_tooltip_cb (GtkWidget  *widget,
                  int         x,
                  int         y,
                  gboolean    keyboard,
                  GtkTooltip *tooltip,
                  gpointer    user_data)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);
  SlTime start;
  Hit hit;
  gint ri;

  (void) keyboard;
  (void) user_data;
  if (self->trace == NULL)
    return FALSE;
  start = sl_trace_get_origin (self->trace);
  if (y < RULER_H)
    {
      g_autofree char *text = _sl_timeline_ruler_mark_tooltip (self, x, y);
      if (text != NULL)
        gtk_tooltip_set_text (tooltip, text);
      return text != NULL;
    }
  ri = _sl_timeline_row_at (self, y);
  if (ri >= 0 && x < HEADER_W)
    {
      g_autofree char *text = _sl_timeline_row_tooltip (self, ri);
      if (text != NULL)
        gtk_tooltip_set_text (tooltip, text);
      return text != NULL;
    }
  if (ri >= 0 && x >= HEADER_W && row_get (self, ri)->kind == ROW_GPU_UTIL)
    {
      g_autofree char *text = _sl_timeline_util_text (self, (guint) row_get (self, ri)->gpu,
                                                      (guint) (x - HEADER_W));
      if (text == NULL)
        return FALSE;
      gtk_tooltip_set_text (tooltip, text);
      return TRUE;
    }
  if (ri >= 0 && x >= HEADER_W
      && (row_get (self, ri)->kind == ROW_CPU_UTIL || row_get (self, ri)->kind == ROW_CPU_CORE))
    {
      g_autofree char *text = _sl_timeline_cpu_tooltip (self, row_get (self, ri),
                                                        x_to_time (self, x));
      gtk_tooltip_set_text (tooltip, text);
      return text != NULL;
    }
  if (ri >= 0 && x >= HEADER_W && row_get (self, ri)->kind == ROW_GPU_MEMORY)
    {
      g_autofree char *text = _sl_timeline_memory_tooltip (self, row_get (self, ri), x);
      if (text != NULL)
        gtk_tooltip_set_text (tooltip, text);
      return text != NULL;
    }
  if (ri >= 0 && x >= HEADER_W && row_get (self, ri)->kind == ROW_UM_FAULTS)
    {
      g_autofree char *text = _sl_timeline_faults_tooltip (self, row_get (self, ri), x);
      if (text != NULL)
        gtk_tooltip_set_text (tooltip, text);
      return text != NULL;
    }
  if (ri >= 0 && x >= HEADER_W && row_get (self, ri)->kind == ROW_GPU_METRIC)
    {
      g_autofree char *text = _sl_timeline_metrics_tooltip (self, row_get (self, ri), x);
      if (text != NULL)
        gtk_tooltip_set_text (tooltip, text);
      return text != NULL;
    }
  if (ri >= 0 && x >= HEADER_W && row_get (self, ri)->kind == ROW_GRAPHS)
    {
      g_autofree char *text = _sl_timeline_graphs_tooltip (self, row_get (self, ri), x);
      if (text != NULL)
        gtk_tooltip_set_text (tooltip, text);
      return text != NULL;
    }
  if (ri >= 0 && x >= HEADER_W && row_get (self, ri)->kind == ROW_NVTX_PROJ)
    {
      g_autofree char *text = _sl_timeline_nvtxproj_tooltip (self, row_get (self, ri), x);
      if (text != NULL)
        gtk_tooltip_set_text (tooltip, text);
      return text != NULL;
    }
  if (ri >= 0 && x >= HEADER_W && row_get (self, ri)->kind == ROW_LANE
      && _sl_timeline_flame_wants (self, row_get (self, ri)->lane))
    {
      const Row *r = row_get (self, ri);
      g_autofree char *text = _sl_timeline_flame_tooltip (
        self, sl_trace_get_lane (self->trace, r->lane), x, y - RULER_H + scroll_y (self) - r->y);
      if (text != NULL)
        gtk_tooltip_set_text (tooltip, text);
      return text != NULL;
    }
  if (!hit_test (self, x, y, &hit))
    return FALSE;
  {
    const SlLane *lane = sl_trace_get_lane (self->trace, hit.ref.lane);
    const SlEvent *ev = &lane->events[hit.ref.index];
    g_autofree char *off = sl_format_offset (hit.item.start - start);
    g_autofree char *text = NULL;

    if (hit.item.count == 1)
      {
        g_autofree char *dur = sl_format_duration (ev->end - ev->start);
        text = g_strdup_printf ("%s\nDuration %s\nStart %s",
                                sl_trace_display_name (self->trace, lane->kind, ev->name), dur, off);
      }
    else
      {
        g_autofree char *n = sl_format_int (hit.item.count);
        g_autofree char *busy = sl_format_duration (hit.item.busy);
        g_autofree char *span = sl_format_duration (hit.item.end - hit.item.start);
        text = g_strdup_printf ("%s events, busy %s\nover %s from %s\n(zoom in to see them)", n,
                                busy, span, off);
      }
    gtk_tooltip_set_text (tooltip, text);
  }
  return TRUE;
}

/* ------------------------------------------------------------------------------------------- */
/* Navigation                                                                                  */

/* The event (ref, when a single one) or fold (its span) at widget (x, y): the context menu's. */
gboolean
_sl_timeline_item_at (SlTimelineView *self,
                      double          x,
                      double          y,
                      SlEventRef     *ref,
                      SlTime         *t0,
                      SlTime         *t1)
{
  Hit hit;

  if (!hit_test (self, x, y, &hit))
    return FALSE;
  *ref = hit.item.count == 1 ? hit.ref : SL_EVENT_REF_NONE;
  *t0 = hit.item.start;
  *t1 = hit.item.end;
  return TRUE;
}

static SlTime
zoom_anchor (SlTimelineView *self)
{
  SlTime t0, t1;

  if (self->pointer_inside && self->pointer_x >= HEADER_W)
    return x_to_time (self, self->pointer_x);
  sl_viewport_get_visible (self->viewport, &t0, &t1);
  return t0 + (t1 - t0) / 2;
}

static void
fit_range (SlTimelineView *self,
           SlTime          a,
           SlTime          b)
{
  SlTime pad = MAX ((b - a) / 10, 50);

  sl_viewport_set_visible (self->viewport, a - pad, b + pad, TRUE);
}

void
_sl_timeline_fit_range (SlTimelineView *self,
                        SlTime          a,
                        SlTime          b)
{
  fit_range (self, a, b);
}

/* Collapses or expands the group of row `row`. */
void
_sl_timeline_toggle_group (SlTimelineView *self,
                           gint            row)
{
  const char *key;

  if (row >= 0 && (guint) row < self->rows->len && row_get (self, row)->kind == ROW_LANE
      && _sl_timeline_flame_toggle (self, row_get (self, row)->lane))
    return;
  if (row < 0 || (guint) row >= self->rows->len || row_get (self, row)->kind != ROW_GROUP)
    return;
  key = row_get (self, row)->key;
  if (!g_hash_table_remove (self->collapsed, key))
    g_hash_table_add (self->collapsed, g_strdup (key));
  _sl_timeline_rows_rebuild (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
action_zoom_cb (GtkWidget  *widget,
                const char *name,
                GVariant   *param)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);

  (void) param;
  sl_viewport_zoom (self->viewport, g_str_equal (name, "timeline.zoom-in") ? KEY_ZOOM_STEP
                                                                           : 1 / KEY_ZOOM_STEP,
                    zoom_anchor (self));
}

static void
action_pan_cb (GtkWidget  *widget,
               const char *name,
               GVariant   *param)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);
  SlTime t0, t1, d;

  (void) param;
  sl_viewport_get_visible (self->viewport, &t0, &t1);
  d = (SlTime) ((t1 - t0) * PAN_STEP);
  sl_viewport_pan (self->viewport, g_str_equal (name, "timeline.pan-left") ? -d : d);
}

static void
action_fit_cb (GtkWidget  *widget,
               const char *name,
               GVariant   *param)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);
  SlTime s0, s1;

  (void) name;
  (void) param;
  /* the newer of the two: a range dragged after the event was clicked wins */
  if (self->selected.lane == self->range_event.lane
      && self->selected.index == self->range_event.index
      && sl_viewport_get_selection (self->viewport, &s0, &s1))
    sl_viewport_set_visible (self->viewport, s0, s1, TRUE);
  else if (self->trace != NULL && self->selected.lane >= 0)
    {
      const SlEvent *ev = &sl_trace_get_lane (self->trace, self->selected.lane)
                             ->events[self->selected.index];
      fit_range (self, ev->start, ev->end);
    }
  else if (sl_viewport_get_selection (self->viewport, &s0, &s1))
    sl_viewport_set_visible (self->viewport, s0, s1, TRUE);
}

static void
action_misc_cb (GtkWidget  *widget,
                const char *name,
                GVariant   *param)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);

  (void) param;
  if (g_str_equal (name, "timeline.show-all"))
    sl_viewport_show_all (self->viewport);
  else if (g_str_equal (name, "timeline.clear"))
    {
      sl_viewport_clear_selection (self->viewport);
      if (self->selected.lane >= 0)
        _sl_timeline_select_ref (self, SL_EVENT_REF_NONE, TRUE);
    }
}

static gboolean
scroll_cb (GtkEventControllerScroll *controller,
           double                    dx,
           double                    dy,
           SlTimelineView           *self)
{
  GdkModifierType mods = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (controller));
  SlTime t0, t1;

  if (self->trace == NULL)
    return FALSE;
  sl_viewport_get_visible (self->viewport, &t0, &t1);
  if (mods & GDK_CONTROL_MASK)
    {
      SlTime anchor = self->pointer_x >= HEADER_W ? x_to_time (self, self->pointer_x)
                                                  : t0 + (t1 - t0) / 2;
      sl_viewport_zoom (self->viewport, pow (ZOOM_STEP, -dy), anchor);
    }
  else if (mods & GDK_SHIFT_MASK)
    sl_viewport_pan (self->viewport, (SlTime) ((dy + dx) * (t1 - t0) * 0.1));
  else
    {
      if (dx != 0)
        sl_viewport_pan (self->viewport, (SlTime) (dx * (t1 - t0) * 0.1));
      if (dy != 0 && self->vadjustment != NULL)
        gtk_adjustment_set_value (self->vadjustment,
                                  gtk_adjustment_get_value (self->vadjustment) + dy * 3 * ROW_LANE_H);
    }
  return TRUE;
}

static void
motion_cb (GtkEventControllerMotion *controller,
           double                    x,
           double                    y,
           SlTimelineView           *self)
{
  (void) controller;
  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;
}

static void
leave_cb (GtkEventControllerMotion *controller,
          SlTimelineView           *self)
{
  (void) controller;
  self->pointer_inside = FALSE;
}

static void
drag_begin_cb (GtkGestureDrag *gesture,
               double          x,
               double          y,
               SlTimelineView *self)
{
  GdkModifierType mods = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (gesture));

  gtk_widget_grab_focus (GTK_WIDGET (self));
  self->pointer_x = x;
  self->pointer_y = y;
  sl_viewport_get_visible (self->viewport, &self->drag_t0, &self->drag_t1);
  self->drag_vvalue = scroll_y (self);
  if (self->trace == NULL)
    self->drag_mode = DRAG_NONE;
  else if (x < HEADER_W)
    self->drag_mode = DRAG_HEADER;
  else if (y < RULER_H || (mods & GDK_SHIFT_MASK))
    {
      self->drag_mode = DRAG_RANGE;
      self->drag_anchor = x_to_time (self, x);
    }
  else
    self->drag_mode = DRAG_PAN;
}

static void
drag_update_cb (GtkGestureDrag *gesture,
                double          dx,
                double          dy,
                SlTimelineView *self)
{
  double sx, sy;

  gtk_gesture_drag_get_start_point (gesture, &sx, &sy);
  if (self->drag_mode == DRAG_PAN)
    {
      SlTime shift = (SlTime) (dx * (self->drag_t1 - self->drag_t0) / lanes_width (self));
      sl_viewport_set_visible (self->viewport, self->drag_t0 - shift, self->drag_t1 - shift,
                               FALSE);
      if (self->vadjustment != NULL)
        gtk_adjustment_set_value (self->vadjustment, self->drag_vvalue - dy);
    }
  else if (self->drag_mode == DRAG_RANGE && fabs (dx) >= 2)
    {
      double w = lanes_width (self);
      SlTime t = self->drag_t0 + (SlTime) ((CLAMP (sx + dx, HEADER_W, HEADER_W + w) - HEADER_W)
                                           * (self->drag_t1 - self->drag_t0) / w);
      sl_viewport_set_selection (self->viewport, self->drag_anchor, t);
      self->range_event = self->selected;
    }
}

static void
drag_end_cb (GtkGestureDrag *gesture,
             double          dx,
             double          dy,
             SlTimelineView *self)
{
  double sx, sy;
  int mode = self->drag_mode;

  self->drag_mode = DRAG_NONE;
  gtk_gesture_drag_get_start_point (gesture, &sx, &sy);
  if (fabs (dx) > 3 || fabs (dy) > 3 || self->trace == NULL)
    return;
  /* a click, not a drag */
  if (mode == DRAG_HEADER && sy < RULER_H && self->lane_filter != NULL && sx < HEADER_W / 2)
    _sl_timeline_filter_open (self);
  else if (mode == DRAG_HEADER && sy < RULER_H)
    _sl_timeline_legend_toggle (self);
  else if (mode == DRAG_HEADER)
    _sl_timeline_toggle_group (self, _sl_timeline_row_at (self, sy));
  else if (mode == DRAG_PAN)
    {
      Hit hit;
      if (hit_test (self, sx, sy, &hit))
        {
          if (hit.item.count == 1)
            _sl_timeline_select_ref (self, hit.ref, TRUE);
          else
            /* a fold stands for many events: clicking it zooms into them */
            fit_range (self, hit.item.start, hit.item.end);
        }
      else if (self->selected.lane >= 0)
        _sl_timeline_select_ref (self, SL_EVENT_REF_NONE, TRUE);
    }
}

static void
click_pressed_cb (GtkGestureClick *gesture,
                  int              n_press,
                  double           x,
                  double           y,
                  SlTimelineView  *self)
{
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));
  Hit hit;

  if (button == 8)
    sl_viewport_back (self->viewport);
  else if (button == 9)
    sl_viewport_forward (self->viewport);
  else if (button == GDK_BUTTON_PRIMARY && n_press == 2 && y >= RULER_H
           && _sl_timeline_row_at (self, y) >= 0
           && row_get (self, _sl_timeline_row_at (self, y))->kind == ROW_GRAPHS)
    {
      /* a graph launch opens into its nodes, or closes */
      const Row *r = row_get (self, _sl_timeline_row_at (self, y));
      const SlGraphGroup *g = _sl_timeline_graphs_group_at (self, r, x);
      if (g != NULL)
        _sl_timeline_graph_set_open (self, g->lane, g,
                                     !_sl_timeline_graph_is_open (self, g->lane, g));
    }
  else if (button == GDK_BUTTON_PRIMARY && n_press == 2 && hit_test (self, x, y, &hit))
    {
      fit_range (self, hit.item.start, hit.item.end);
      if (hit.item.count == 1)
        {
          _sl_timeline_select_ref (self, hit.ref, TRUE);
          _sl_timeline_emit_activated (self);
        }
    }
}

/* ------------------------------------------------------------------------------------------- */
/* Keys: W/S zoom a small step on a tap and smoothly while held (a tick callback, not the key
 * repeat: as fast on every machine, and it stops the moment the key goes up)                   */

static gboolean
key_zoom_tick_cb (GtkWidget     *widget,
                  GdkFrameClock *clock,
                  gpointer       user_data)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);
  gint64 now = gdk_frame_clock_get_frame_time (clock);

  (void) user_data;
  if (self->key_zoom_dir == 0 || self->trace == NULL)
    {
      self->key_zoom_tick = 0;
      self->key_zoom_dir = 0;
      return G_SOURCE_REMOVE;
    }
  if (now - self->key_zoom_down >= KEY_ZOOM_HOLD)
    {
      gint64 from = MAX (self->key_zoom_last, self->key_zoom_down + KEY_ZOOM_HOLD);
      double dt = MIN ((double) (now - from) / G_USEC_PER_SEC, 0.1);
      if (dt > 0)
        sl_viewport_zoom (self->viewport, pow (KEY_ZOOM_RATE, self->key_zoom_dir * dt),
                          zoom_anchor (self));
      self->key_zoom_last = now;
    }
  return G_SOURCE_CONTINUE;
}

void
_sl_timeline_key_zoom_stop (SlTimelineView *self)
{
  if (self->key_zoom_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->key_zoom_tick);
  self->key_zoom_tick = 0;
  self->key_zoom_dir = 0;
}

gboolean
sl_timeline_view_handle_key (SlTimelineView  *self,
                             guint            keyval,
                             GdkModifierType  state,
                             gboolean         pressed)
{
  const char *action = NULL;
  gint dir = 0;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK | GDK_META_MASK))
    return FALSE;
  switch (gdk_keyval_to_lower (keyval))
    {
    case GDK_KEY_w: dir = 1; break;
    case GDK_KEY_s: dir = -1; break;
    case GDK_KEY_a: action = "timeline.pan-left"; break;
    case GDK_KEY_d: action = "timeline.pan-right"; break;
    case GDK_KEY_f: action = "timeline.fit"; break;
    case GDK_KEY_0: case GDK_KEY_KP_0: action = "timeline.show-all"; break;
    case GDK_KEY_Escape: action = "timeline.clear"; break;
    default: return FALSE;
    }
  if (dir == 0)
    return !pressed || gtk_widget_activate_action (GTK_WIDGET (self), action, NULL);
  if (!pressed)
    {
      if (self->key_zoom_dir == dir)
        _sl_timeline_key_zoom_stop (self);
      return TRUE;
    }
  if (self->key_zoom_dir == dir || self->trace == NULL)
    return TRUE;   /* the key repeat of a key already held */
  _sl_timeline_key_zoom_stop (self);
  gtk_widget_activate_action (GTK_WIDGET (self), dir > 0 ? "timeline.zoom-in" : "timeline.zoom-out",
                              NULL);
  self->key_zoom_dir = dir;
  self->key_zoom_down = self->key_zoom_last = g_get_monotonic_time ();
  self->key_zoom_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), key_zoom_tick_cb, NULL,
                                                      NULL);
  return TRUE;
}

/* Presses and releases in one place: a held W/S needs both. */
static gboolean
key_event_cb (GtkEventControllerLegacy *controller,
              GdkEvent                 *event,
              SlTimelineView           *self)
{
  GdkEventType type = gdk_event_get_event_type (event);

  (void) controller;
  if (type != GDK_KEY_PRESS && type != GDK_KEY_RELEASE)
    return FALSE;
  return sl_timeline_view_handle_key (self, gdk_key_event_get_keyval (event),
                                      gdk_event_get_modifier_state (event),
                                      type == GDK_KEY_PRESS);
}

/* The timeline's actions, installed once on its class; their keys are a key controller's
 * (sl_timeline_view_handle_key, which a window also forwards to).  Back and Forward through the
 * viewport's history are the window's (win.back, win.forward: its header buttons reach them,
 * and its keys work wherever the focus is). */
void
_sl_timeline_input_class_init (GtkWidgetClass *widget_class)
{
  static const struct { const char *name; GtkWidgetActionActivateFunc cb; } actions[] = {
    { "timeline.zoom-in", action_zoom_cb },     { "timeline.zoom-out", action_zoom_cb },
    { "timeline.pan-left", action_pan_cb },     { "timeline.pan-right", action_pan_cb },
    { "timeline.fit", action_fit_cb },          { "timeline.show-all", action_misc_cb },
    { "timeline.clear", action_misc_cb },
  };

  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    gtk_widget_class_install_action (widget_class, actions[i].name, NULL, actions[i].cb);
}

/* The tooltip, the scroll and motion controllers, and the drag and click gestures. */
void
_sl_timeline_input_init (SlTimelineView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GtkEventController *ec;
  GtkGesture *g;

  g_signal_connect (widget, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);

  ec = gtk_event_controller_legacy_new ();
  g_signal_connect (ec, "event", G_CALLBACK (key_event_cb), self);
  gtk_widget_add_controller (widget, ec);

  ec = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (ec, "scroll", G_CALLBACK (scroll_cb), self);
  gtk_widget_add_controller (widget, ec);

  ec = gtk_event_controller_motion_new ();
  g_signal_connect (ec, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect (ec, "enter", G_CALLBACK (motion_cb), self);
  g_signal_connect (ec, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (widget, ec);

  g = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (g), GDK_BUTTON_PRIMARY);
  g_signal_connect (g, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect (g, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect (g, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (g));

  g = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (g), 0);
  g_signal_connect (g, "pressed", G_CALLBACK (click_pressed_cb), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (g));
}
