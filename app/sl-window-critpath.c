/* sl-window-critpath.c: the window's critical path: its tab (SlCriticalPathPanel),
 * win.critical-path (the selected range: main menu, Ctrl+Shift+P) and the timeline's "Critical
 * Path of …" items. */
#include "sl-window-private.h"

#include "sl-critical-path-panel.h"
#include "sl-timeline-view.h"

static void
show_tab (SlWindow *self)
{
  gtk_notebook_set_current_page (GTK_NOTEBOOK (self->bottom),
                                 gtk_notebook_page_num (GTK_NOTEBOOK (self->bottom),
                                                        self->critpath));
}

/* The timeline's context menu: a range event's span, or the selection. */
static void
timeline_critical_path_cb (SlTimelineView *timeline,
                           gint64          t0,
                           gint64          t1,
                           const char     *what,
                           SlWindow       *self)
{
  (void) timeline;
  show_tab (self);
  sl_critical_path_panel_compute (SL_CRITICAL_PATH_PANEL (self->critpath), t0, t1, what);
}

static void
critpath_action_cb (GtkWidget  *widget,
                    const char *name,
                    GVariant   *parameter)
{
  SlWindow *self = SL_WINDOW (widget);
  SlViewport *vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (self->timeline));
  SlTime t0, t1;

  (void) parameter;
  if (g_str_equal (name, "win.critical-path") && self->trace != NULL
      && sl_viewport_get_selection (vp, &t0, &t1) && t1 > t0)
    {
      show_tab (self);
      sl_critical_path_panel_compute (SL_CRITICAL_PATH_PANEL (self->critpath), t0, t1,
                                      "the selection");
    }
  else if (g_str_equal (name, "win.clear-critical-path"))
    sl_critical_path_panel_clear (SL_CRITICAL_PATH_PANEL (self->critpath));
}

/* win.critical-path only with a range selected. */
static void
selection_changed_cb (SlWindow *self)
{
  SlViewport *vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (self->timeline));

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.critical-path",
                                 sl_viewport_get_selection (vp, NULL, NULL));
}

void
_sl_window_critpath_class_init (GtkWidgetClass *widget_class)
{
  g_type_ensure (SL_TYPE_CRITICAL_PATH_PANEL);
  gtk_widget_class_install_action (widget_class, "win.critical-path", NULL, critpath_action_cb);
  gtk_widget_class_install_action (widget_class, "win.clear-critical-path", NULL,
                                   critpath_action_cb);
}

void
_sl_window_critpath_init (SlWindow *self)
{
  GtkWidget *label = gtk_label_new_with_mnemonic ("Critical _Path");
  SlViewport *vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (self->timeline));

  self->critpath = sl_critical_path_panel_new ();
  gtk_notebook_append_page (GTK_NOTEBOOK (self->bottom), self->critpath, label);
  sl_critical_path_panel_set_timeline (SL_CRITICAL_PATH_PANEL (self->critpath),
                                       SL_TIMELINE_VIEW (self->timeline));
  /* a click on a segment: its event selected as the events table's "go to" does */
  g_signal_connect (self->critpath, "go-to-event", G_CALLBACK (_sl_window_detail_go_to_cb), self);
  g_signal_connect (self->timeline, "critical-path", G_CALLBACK (timeline_critical_path_cb), self);
  /* the timeline's viewport lives as long as the timeline, a template child of the window */
  g_signal_connect_object (vp, "notify::has-selection", G_CALLBACK (selection_changed_cb), self,
                           G_CONNECT_SWAPPED);
  selection_changed_cb (self);
}

/* ---- for tests ------------------------------------------------------------------------------ */

GtkWidget *
sl_window_get_critical_path_panel (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->critpath;
}
