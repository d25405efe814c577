/* sl-timeline-lanes.c: lane management: pinned and hidden lanes, the lane filter, context menu. */
#include "sl-timeline-view-private.h"

enum
{
  FIND_NAME,
  SHOW_IN_EVENTS_TABLE,
  ALIGN_ON_NAME,
  N_LANE_SIGNALS
};

static guint lane_signals[N_LANE_SIGNALS];

gboolean
_sl_timeline_lane_pinned (SlTimelineView *self,
                          gint            lane)
{
  for (guint i = 0; i < self->pinned->len; i++)
    if (g_array_index (self->pinned, gint, i) == lane)
      return TRUE;
  return FALSE;
}

static void
lanes_changed (SlTimelineView *self)
{
  _sl_timeline_rows_rebuild (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* ------------------------------------------------------------------------------------------- */
/* Public API                                                                                  */

void
sl_timeline_view_set_lane_pinned (SlTimelineView *self,
                                  guint           lane,
                                  gboolean        pinned)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  if (self->trace == NULL || lane >= sl_trace_get_n_lanes (self->trace)
      || _sl_timeline_lane_pinned (self, (gint) lane) == !!pinned)
    return;
  if (pinned)
    {
      gint l = (gint) lane;
      g_array_append_val (self->pinned, l);
      g_hash_table_remove (self->hidden, GINT_TO_POINTER (l + 1));
    }
  else
    for (guint i = 0; i < self->pinned->len; i++)
      if (g_array_index (self->pinned, gint, i) == (gint) lane)
        g_array_remove_index (self->pinned, i--);
  lanes_changed (self);
}

gboolean
sl_timeline_view_get_lane_pinned (SlTimelineView *self,
                                  guint           lane)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  return _sl_timeline_lane_pinned (self, (gint) lane);
}

void
sl_timeline_view_set_lane_hidden (SlTimelineView *self,
                                  guint           lane,
                                  gboolean        hidden)
{
  gpointer key = GINT_TO_POINTER ((gint) lane + 1);

  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  if (self->trace == NULL || lane >= sl_trace_get_n_lanes (self->trace)
      || g_hash_table_contains (self->hidden, key) == !!hidden)
    return;
  if (hidden)
    {
      sl_timeline_view_set_lane_pinned (self, lane, FALSE);
      g_hash_table_add (self->hidden, key);
    }
  else
    g_hash_table_remove (self->hidden, key);
  lanes_changed (self);
}

guint
sl_timeline_view_get_n_hidden_lanes (SlTimelineView *self)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), 0);
  return g_hash_table_size (self->hidden);
}

void
sl_timeline_view_show_hidden_lanes (SlTimelineView *self)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  if (g_hash_table_size (self->hidden) == 0)
    return;
  g_hash_table_remove_all (self->hidden);
  lanes_changed (self);
}

void
sl_timeline_view_set_lane_filter (SlTimelineView *self,
                                  const char     *text)
{
  g_autofree char *folded = NULL;

  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  if (text != NULL)
    text += strspn (text, " \t");
  folded = text != NULL && *text != '\0' ? g_utf8_casefold (text, -1) : NULL;
  if (g_strcmp0 (folded, self->lane_filter) == 0)
    return;
  g_free (self->lane_filter);
  self->lane_filter = g_steal_pointer (&folded);
  lanes_changed (self);
}

const char *
sl_timeline_view_get_lane_filter (SlTimelineView *self)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), NULL);
  return self->lane_filter;
}

/* ------------------------------------------------------------------------------------------- */
/* The lane filter's entry, in a popover under the header corner                               */

static void
filter_changed_cb (GtkSearchEntry *entry,
                   SlTimelineView *self)
{
  sl_timeline_view_set_lane_filter (self, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

/* Esc closes the popover and keeps the filter: the lanes it leaves are what the person asked
 * for (the entry's clear icon or "Clear Lane Filter" clear it). */
static void
filter_stop_cb (GtkSearchEntry *entry,
                SlTimelineView *self)
{
  (void) entry;
  gtk_popover_popdown (GTK_POPOVER (self->filter_popover));
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

void
_sl_timeline_filter_open (SlTimelineView *self)
{
  GtkWidget *entry;

  if (self->filter_popover == NULL)
    {
      self->filter_popover = gtk_popover_new ();
      gtk_widget_set_parent (self->filter_popover, GTK_WIDGET (self));
      /* beside the lane headers, over the lanes' events: the headers it filters stay in
       * sight (under the corner it covered them) */
      gtk_popover_set_position (GTK_POPOVER (self->filter_popover), GTK_POS_RIGHT);
      gtk_popover_set_pointing_to (GTK_POPOVER (self->filter_popover),
                                   &(GdkRectangle) { (int) HEADER_W + 4, 0, 1, (int) RULER_H });
      entry = gtk_search_entry_new ();
      g_object_set (entry, "placeholder-text", "Filter lanes by name", NULL);
      gtk_editable_set_width_chars (GTK_EDITABLE (entry), 24);
      g_signal_connect (entry, "search-changed", G_CALLBACK (filter_changed_cb), self);
      g_signal_connect (entry, "stop-search", G_CALLBACK (filter_stop_cb), self);
      gtk_popover_set_child (GTK_POPOVER (self->filter_popover), entry);
    }
  gtk_popover_popup (GTK_POPOVER (self->filter_popover));
  gtk_widget_grab_focus (gtk_popover_get_child (GTK_POPOVER (self->filter_popover)));
}

GtkWidget *
sl_timeline_view_get_filter_popover (SlTimelineView *self)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), NULL);
  return self->filter_popover != NULL && gtk_widget_get_visible (self->filter_popover)
           ? self->filter_popover
           : NULL;
}

/* ------------------------------------------------------------------------------------------- */
/* The context menu: what is under the pointer, remembered when it opens, and its actions       */

static const Row *
menu_row (SlTimelineView *self)
{
  if (self->trace == NULL || self->menu_row < 0 || (guint) self->menu_row >= self->rows->len)
    return NULL;
  return row_get (self, self->menu_row);
}

/* The lane the menu is about: the event's, else the lane row's; -1 when none. */
static gint
menu_lane (SlTimelineView *self)
{
  const Row *r = menu_row (self);

  if (self->trace == NULL)
    return -1;
  if (self->menu_ref.lane >= 0)
    return self->menu_ref.lane;
  return r != NULL && r->kind == ROW_LANE ? r->lane : -1;
}

static const char *
menu_event_name (SlTimelineView *self)
{
  const SlLane *lane;

  if (self->trace == NULL || self->menu_ref.lane < 0)
    return NULL;
  lane = sl_trace_get_lane (self->trace, self->menu_ref.lane);
  return sl_trace_display_name (self->trace, lane->kind, lane->events[self->menu_ref.index].name);
}

static void
menu_target (SlTimelineView *self,
             double          x,
             double          y)
{
  self->pointer_x = x;
  self->pointer_y = y;
  self->menu_row = self->trace != NULL ? _sl_timeline_row_at (self, y) : -1;
  self->menu_ref = SL_EVENT_REF_NONE;
  self->menu_t0 = 0;
  self->menu_t1 = -1;
  if (self->menu_row >= 0 && x >= HEADER_W
      && !_sl_timeline_item_at (self, x, y, &self->menu_ref, &self->menu_t0, &self->menu_t1))
    {
      self->menu_ref = SL_EVENT_REF_NONE;
      self->menu_t1 = -1;
    }
}

static void
menu_add (GMenu      *section,
          const char *label,
          const char *action)
{
  g_menu_append (section, label, action);
}

/* An event's name as a menu label shows it: at most 48 characters (a C++ kernel's is often
 * hundreds, and made the menu as wide as the screen), its underscores doubled (a GMenu label
 * takes one for a mnemonic: "flash_fwd_kernel" read "flashfwdkernel"). */
static char *
menu_name (const char *name)
{
  g_autofree char *shown = NULL;
  g_auto (GStrv) parts = NULL;

  if (g_utf8_strlen (name, -1) > 48)
    {
      g_autofree char *head = g_utf8_substring (name, 0, 47);
      shown = g_strconcat (head, "…", NULL);
    }
  else
    shown = g_strdup (name);
  parts = g_strsplit (shown, "_", -1);
  return g_strjoinv ("__", parts);
}

static GMenuModel *
menu_model (SlTimelineView *self)
{
  GMenu *menu = g_menu_new ();
  g_autoptr (GMenu) event = g_menu_new ();
  g_autoptr (GMenu) lane = g_menu_new ();
  g_autoptr (GMenu) lanes = g_menu_new ();
  const Row *r = menu_row (self);
  const char *name = menu_event_name (self);
  gint l = menu_lane (self);
  guint n_hidden = g_hash_table_size (self->hidden);

  if (name != NULL)
    {
      g_autofree char *shown = menu_name (name);
      g_autofree char *find = g_strdup_printf ("Find All “%s”", shown);
      menu_add (event, "Copy Name", "timeline.copy-name");
      menu_add (event, find, "timeline.find-name");
      if (sl_trace_get_n_sources (self->trace) > 1)
        {
          g_autofree char *align = g_strdup_printf ("Align Traces on “%s”", shown);
          menu_add (event, align, "timeline.align-on-name");
        }
    }
  if (self->menu_t1 >= self->menu_t0)
    menu_add (event, name != NULL ? "Zoom to Event" : "Zoom to These Events",
              "timeline.zoom-to-event");
  if (l >= 0)
    menu_add (event, name != NULL ? "Show in Events Table" : "Show Lane in Events Table",
              "timeline.show-in-events-table");
  _sl_timeline_critpath_menu (self, event);
  {
    /* a node of a graph launch (on its stream, or the launch's own box) */
    const SlGraphGroup *g = _sl_timeline_graphs_menu_group (self);
    if (g != NULL)
      menu_add (event, _sl_timeline_graph_is_open (self, g->lane, g) ? "Collapse Graph"
                                                                      : "Expand Graph",
                "timeline.toggle-graph");
  }
  if (l >= 0)
    {
      menu_add (lane, _sl_timeline_lane_pinned (self, l) ? "Unpin Lane" : "Pin Lane to Top",
                "timeline.pin-lane");
      menu_add (lane, "Hide Lane", "timeline.hide-lane");
    }
  if (r != NULL && r->kind == ROW_GROUP)
    menu_add (lane, r->collapsed ? "Expand" : "Collapse", "timeline.toggle-collapse");
  _sl_timeline_metrics_menu (self, r, lane);
  if (r != NULL && name == NULL)
    menu_add (lane, "Copy Name", "timeline.copy-name");
  menu_add (lanes, "Filter Lanes…", "timeline.filter-lanes");
  if (self->lane_filter != NULL)
    menu_add (lanes, "Clear Lane Filter", "timeline.clear-lane-filter");
  if (n_hidden > 0)
    {
      g_autofree char *show = g_strdup_printf (n_hidden == 1 ? "Show %u Hidden Lane"
                                                             : "Show %u Hidden Lanes", n_hidden);
      menu_add (lanes, show, "timeline.show-hidden-lanes");
    }
  g_menu_append_section (menu, NULL, G_MENU_MODEL (event));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (lane));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (lanes));
  return G_MENU_MODEL (menu);
}

/* GTK 4.8's popover menu is sized before its sections' separators show, one item short (its
 * last, "Filter Lanes…" or "Show N Hidden Lanes", was below the fold): its scrolled window is
 * asked for at least its content's natural height, up to what a screen holds. */
static void
menu_fit_height (GtkWidget *w)
{
  if (GTK_IS_SCROLLED_WINDOW (w))
    {
      GtkWidget *child = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (w));
      int min_w = 0, nat = 0, nat_min_w = 0;
      if (child != NULL)
        {
          gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &min_w, NULL, NULL, NULL);
          gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, -1, NULL, &nat, NULL, NULL);
          gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, min_w, NULL, &nat_min_w, NULL,
                              NULL);
        }
      gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (w),
                                                  MIN (MAX (nat, nat_min_w), 640));
      return;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    menu_fit_height (c);
}

static gboolean
menu_fit_idle_cb (gpointer data)
{
  if (gtk_widget_get_mapped (data))
    {
      menu_fit_height (data);
      gtk_popover_present (GTK_POPOVER (data));  /* 4.8 resizes a shown popover only so */
    }
  return G_SOURCE_REMOVE;
}

/* After the menu's sections have shown their separators (an idle of GtkMenuSectionBox, at
 * G_PRIORITY_HIGH_IDLE, once the popover is sized): 13 px each, two of them a row short. */
static void
menu_mapped_cb (GtkWidget *menu)
{
  g_idle_add_full (G_PRIORITY_LOW, menu_fit_idle_cb, g_object_ref (menu), g_object_unref);
}

GtkWidget *
sl_timeline_view_context_menu_at (SlTimelineView *self,
                                  double          x,
                                  double          y,
                                  gboolean        popup)
{
  g_autoptr (GMenuModel) model = NULL;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), NULL);
  menu_target (self, x, y);
  if (!popup || self->trace == NULL)
    return NULL;
  model = menu_model (self);
  if (self->menu == NULL)
    {
      self->menu = gtk_popover_menu_new_from_model (model);
      gtk_widget_set_parent (self->menu, GTK_WIDGET (self));
      gtk_popover_set_position (GTK_POPOVER (self->menu), GTK_POS_BOTTOM);
      gtk_popover_set_has_arrow (GTK_POPOVER (self->menu), FALSE);
      g_signal_connect (self->menu, "map", G_CALLBACK (menu_mapped_cb), NULL);
    }
  else
    gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->menu), model);
  gtk_popover_set_pointing_to (GTK_POPOVER (self->menu),
                               &(GdkRectangle) { (int) x, (int) y, 1, 1 });
  gtk_popover_popup (GTK_POPOVER (self->menu));
  return self->menu;
}

static void
right_click_cb (GtkGestureClick *gesture,
                int              n_press,
                double           x,
                double           y,
                SlTimelineView  *self)
{
  (void) n_press;
  if (self->trace == NULL)
    return;
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  sl_timeline_view_context_menu_at (self, x, y, TRUE);
}

static void
action_lane_cb (GtkWidget  *widget,
                const char *action,
                GVariant   *param)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);
  gint l = menu_lane (self);

  (void) param;
  if (l < 0)
    return;
  if (g_str_equal (action, "timeline.pin-lane"))
    sl_timeline_view_set_lane_pinned (self, (guint) l, !_sl_timeline_lane_pinned (self, l));
  else if (g_str_equal (action, "timeline.hide-lane"))
    sl_timeline_view_set_lane_hidden (self, (guint) l, TRUE);
  else if (g_str_equal (action, "timeline.show-in-events-table"))
    {
      if (self->menu_ref.lane >= 0)
        _sl_timeline_select_ref (self, self->menu_ref, TRUE);
      g_signal_emit (self, lane_signals[SHOW_IN_EVENTS_TABLE], 0, l);
    }
}

static void
action_event_cb (GtkWidget  *widget,
                 const char *action,
                 GVariant   *param)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);
  const char *name = menu_event_name (self);
  const Row *r = menu_row (self);

  (void) param;
  if (g_str_equal (action, "timeline.copy-name"))
    {
      const char *text = name != NULL ? name : r != NULL ? r->label : NULL;
      if (text != NULL)
        gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
    }
  else if (g_str_equal (action, "timeline.find-name") && name != NULL)
    g_signal_emit (self, lane_signals[FIND_NAME], 0, name);
  else if (g_str_equal (action, "timeline.align-on-name") && name != NULL)
    g_signal_emit (self, lane_signals[ALIGN_ON_NAME], 0, name);
  else if (g_str_equal (action, "timeline.zoom-to-event") && self->menu_t1 >= self->menu_t0)
    {
      _sl_timeline_fit_range (self, self->menu_t0, self->menu_t1);
      if (self->menu_ref.lane >= 0)
        _sl_timeline_select_ref (self, self->menu_ref, TRUE);
    }
  else if (g_str_equal (action, "timeline.toggle-collapse"))
    _sl_timeline_toggle_group (self, r != NULL && r->kind == ROW_GROUP ? self->menu_row : -1);
}

static void
action_lanes_cb (GtkWidget  *widget,
                 const char *action,
                 GVariant   *param)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);

  (void) param;
  if (g_str_equal (action, "timeline.show-hidden-lanes"))
    sl_timeline_view_show_hidden_lanes (self);
  else if (g_str_equal (action, "timeline.filter-lanes"))
    _sl_timeline_filter_open (self);
  else if (g_str_equal (action, "timeline.clear-lane-filter"))
    {
      if (self->filter_popover != NULL)
        gtk_editable_set_text (GTK_EDITABLE (gtk_popover_get_child (
                                 GTK_POPOVER (self->filter_popover))), "");
      sl_timeline_view_set_lane_filter (self, NULL);
    }
}

/* ------------------------------------------------------------------------------------------- */
/* Set-up                                                                                      */

/* The menu's actions and the signals by which the window does what needs more than the view:
 * "find-name" (const char *name): search the window for every event so named;
 * "show-in-events-table" (gint lane): show that lane (and the selected event) in the table;
 * "align-on-name" (const char *name): merged traces, put on the first occurrence of that name in
 * each (sl_trace_align_on). */
void
_sl_timeline_lanes_class_init (GtkWidgetClass *widget_class)
{
  static const struct { const char *name; GtkWidgetActionActivateFunc cb; } actions[] = {
    { "timeline.pin-lane", action_lane_cb },
    { "timeline.hide-lane", action_lane_cb },
    { "timeline.show-in-events-table", action_lane_cb },
    { "timeline.copy-name", action_event_cb },
    { "timeline.find-name", action_event_cb },
    { "timeline.align-on-name", action_event_cb },
    { "timeline.zoom-to-event", action_event_cb },
    { "timeline.toggle-collapse", action_event_cb },
    { "timeline.show-hidden-lanes", action_lanes_cb },
    { "timeline.filter-lanes", action_lanes_cb },
    { "timeline.clear-lane-filter", action_lanes_cb },
    { "timeline.toggle-graph", _sl_timeline_graphs_toggle_action },
  };

  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    gtk_widget_class_install_action (widget_class, actions[i].name, NULL, actions[i].cb);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_l, GDK_CONTROL_MASK,
                                       "timeline.filter-lanes", NULL);
  lane_signals[FIND_NAME] = g_signal_new ("find-name", G_TYPE_FROM_CLASS (widget_class),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                          G_TYPE_STRING);
  lane_signals[ALIGN_ON_NAME] = g_signal_new ("align-on-name", G_TYPE_FROM_CLASS (widget_class),
                                              G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                              1, G_TYPE_STRING);
  lane_signals[SHOW_IN_EVENTS_TABLE] = g_signal_new ("show-in-events-table",
                                                     G_TYPE_FROM_CLASS (widget_class),
                                                     G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                     G_TYPE_NONE, 1, G_TYPE_INT);
}

void
_sl_timeline_lanes_init (SlTimelineView *self)
{
  GtkGesture *g = gtk_gesture_click_new ();

  self->pinned = g_array_new (FALSE, FALSE, sizeof (gint));
  self->hidden = g_hash_table_new (NULL, NULL);
  self->menu_row = -1;
  self->menu_ref = SL_EVENT_REF_NONE;
  self->menu_t1 = -1;
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (g), GDK_BUTTON_SECONDARY);
  g_signal_connect (g, "pressed", G_CALLBACK (right_click_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (g));
}

/* A new trace: its lanes are others.  `keep_menu`: a newer state of the same recording, whose
 * caller finds the open menu's target again (_sl_timeline_menu_continue) or closes it. */
void
_sl_timeline_lanes_reset (SlTimelineView *self,
                          gboolean        keep_menu)
{
  g_array_set_size (self->pinned, 0);
  g_hash_table_remove_all (self->hidden);
  self->menu_row = -1;
  self->menu_ref = SL_EVENT_REF_NONE;
  self->menu_t1 = -1;
  if (self->menu != NULL && !keep_menu)
    gtk_popover_popdown (GTK_POPOVER (self->menu));
}

void
_sl_timeline_menu_keep (SlTimelineView *self,
                        SlMenuKept     *kept)
{
  const Row *r = menu_row (self);

  *kept = (SlMenuKept) { .open = self->menu != NULL && gtk_widget_get_visible (self->menu),
                         .on_row = r != NULL, .ref = self->menu_ref, .t0 = self->menu_t0,
                         .t1 = self->menu_t1 };
  if (!kept->open || r == NULL)
    return;
  kept->kind = r->kind;
  kept->lane = r->lane;
  kept->gpu = r->gpu;
  kept->key = g_strdup (r->key);
  kept->label = g_strdup (r->label);
}

/* The row and event the open menu was about, in the trace that replaced `old`: a lane's row by
 * its lane, a group's by its key, any other (a GPU's, a process's utilization) by its kind, GPU
 * and label.  Closed when either is gone. */
void
_sl_timeline_menu_continue (SlTimelineView *self,
                            SlTrace        *old,
                            SlMenuKept     *kept)
{
  gint row = -1;
  SlEventRef ref = SL_EVENT_REF_NONE;

  if (!kept->open)
    return;
  gboolean found = kept->on_row
                   && (kept->ref.lane < 0
                       || sl_trace_find_same_event (old, kept->ref, self->trace, &ref));
  if (found && kept->kind == ROW_LANE)
    {
      gint lane = sl_trace_find_same_lane (old, (guint) kept->lane, self->trace);
      row = lane >= 0 ? self->lane_row[lane] : -1;
    }
  else if (found)
    for (guint i = 0; i < self->rows->len && row < 0; i++)
      {
        const Row *r = row_get (self, i);
        if (r->kind == kept->kind
            && (kept->kind == ROW_GROUP ? g_strcmp0 (r->key, kept->key) == 0
                                        : r->gpu == kept->gpu
                                            && g_strcmp0 (r->label, kept->label) == 0))
          row = (gint) i;
      }
  if (row >= 0)
    {
      self->menu_row = row;
      self->menu_ref = ref;
      self->menu_t0 = kept->t0;
      self->menu_t1 = kept->t1;
    }
  else
    gtk_popover_popdown (GTK_POPOVER (self->menu));
  g_free (kept->key);
  g_free (kept->label);
}

void
_sl_timeline_lanes_dispose (SlTimelineView *self)
{
  /* closed first: unparented while open, a popover asks its gone surface for the pointer */
  if (self->menu != NULL)
    gtk_popover_popdown (GTK_POPOVER (self->menu));
  if (self->filter_popover != NULL)
    gtk_popover_popdown (GTK_POPOVER (self->filter_popover));
  g_clear_pointer (&self->menu, gtk_widget_unparent);
  g_clear_pointer (&self->filter_popover, gtk_widget_unparent);
}

void
_sl_timeline_lanes_finalize (SlTimelineView *self)
{
  g_array_unref (self->pinned);
  g_hash_table_unref (self->hidden);
  g_free (self->lane_filter);
}
