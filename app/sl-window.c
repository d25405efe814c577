/* sl-window.c: the window for one trace (data/ui/sl-window.ui): its pages, actions, status line
 * and errors.  Loading is in sl-window-loader.c, the search bar in sl-window-search.c, recording
 * in sl-window-recording.c. */
#include "sl-window-private.h"

#include "sl-calltree-panel.h"
#include "sl-detail-pane.h"
#include "sl-events-table.h"
#include "sl-findings-panel.h"
#include "sl-format.h"
#include "sl-memory-panel.h"
#include "sl-start-page.h"
#include "sl-stats-panel.h"
#include "sl-timeline-view.h"
#include "sl-trace-info.h"

G_DEFINE_FINAL_TYPE (SlWindow, sl_window, GTK_TYPE_APPLICATION_WINDOW)

enum
{
  PROP_0,
  PROP_COLOR_BY,
  PROP_UTIL_OVERLAY,
  N_PROPS
};

enum
{
  LOAD_FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

SlWindow *
sl_window_new (SlApplication *app)
{
  return g_object_new (SL_TYPE_WINDOW, "application", app, NULL);
}

void
_sl_window_emit_load_finished (SlWindow *self,
                               gboolean  ok)
{
  g_signal_emit (self, signals[LOAD_FINISHED], 0, ok);
}

void
_sl_window_show_page (SlWindow   *self,
                      const char *page)
{
  if (g_str_equal (page, "empty"))
    {
      sl_start_page_update_recent (SL_START_PAGE (self->start_page));
      gtk_label_set_text (GTK_LABEL (self->title), "Sightline");
    }
  if (g_str_equal (page, "trace")
      && g_strcmp0 (gtk_stack_get_visible_child_name (GTK_STACK (self->stack)), "trace") != 0)
    {
      /* The detail pane beside the timeline: a paned keeps a position set before its first
       * allocation as it is, so a window enlarged on its start page would give the timeline
       * the template's 1000 px and the pane the rest.  Set from the window's width now, it
       * then follows the window (the timeline takes what the window gains). */
      GtkWidget *paned = gtk_widget_get_ancestor (self->timeline, GTK_TYPE_PANED);
      int width = gtk_widget_get_width (GTK_WIDGET (self)), height;
      if (width <= 0)
        gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);   /* (both, or 4.8 crashes) */
      if (paned != NULL && width > 0)
        gtk_paned_set_position (GTK_PANED (paned),
                                width - CLAMP (width * 22 / 100, 300, 440));
    }
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), page);
}

static gboolean
other_windows_exist (SlWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  for (GList *l = app != NULL ? gtk_application_get_windows (app) : NULL; l != NULL; l = l->next)
    if (l->data != (gpointer) self && SL_IS_WINDOW (l->data))
      return TRUE;
  return FALSE;
}

static gboolean
close_if_empty_cb (gpointer data)
{
  SlWindow *self = data;

  if (self->trace == NULL && self->cancellable == NULL && self->error_dialog == NULL
      && other_windows_exist (self))
    gtk_window_close (GTK_WINDOW (self));
  return G_SOURCE_REMOVE;
}

void
_sl_window_close_if_empty (SlWindow *self)
{
  /* from an idle, not inside the dialog's response: the dialog still points at the window until
   * its emission ends, and would let go of a freed one */
  g_idle_add_full (G_PRIORITY_DEFAULT, close_if_empty_cb, g_object_ref (self), g_object_unref);
}

static void
error_response_cb (GtkDialog *dialog,
                   int        response,
                   SlWindow  *self)
{
  (void) response;
  gtk_window_destroy (GTK_WINDOW (dialog));
  self->error_dialog = NULL;
  _sl_window_close_if_empty (self);
}

void
_sl_window_show_error (SlWindow     *self,
                       const char   *primary,
                       const GError *error)
{
  GtkWidget *dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                              GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                              GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", primary);

  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s\n\n%s",
                                            error->message,
                                            "Sightline opens SQLite exports of Nsight Systems "
                                            "(nsys export --type sqlite) and its own recordings.");
  gtk_window_set_title (GTK_WINDOW (dialog), "Could not open the trace");
  g_signal_connect (dialog, "response", G_CALLBACK (error_response_cb), self);
  if (self->error_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->error_dialog));
  self->error_dialog = dialog;
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- status line, Back and Forward: they follow the viewport ----------------------------- */

/* The status line's two labels are bound to the viewport: "Selection: …" to its "selection",
 * "Visible: … · N events in M lanes" to its "visible".  The transforms read the window's trace for
 * the offsets and counts. */
static gboolean
selection_to_status (GBinding     *binding,
                     const GValue *from,
                     GValue       *to,
                     gpointer      data)
{
  SlWindow *self = data;
  const SlTimeRange *sel = g_value_get_boxed (from);

  (void) binding;
  if (self->trace == NULL)
    g_value_set_string (to, "");
  else if (sel != NULL)
    {
      SlTime origin = sl_trace_get_origin (self->trace);
      g_autofree char *d = sl_format_duration (sel->end - sel->start);
      g_autofree char *a = sl_format_offset (sel->start - origin);
      g_autofree char *b = sl_format_offset (sel->end - origin);
      g_value_take_string (to, g_strdup_printf ("Selection: %s (%s … %s)", d, a, b));
    }
  else
    g_value_set_string (to, "No time range selected: Shift+drag in the timeline to select one");
  return TRUE;
}

static gboolean
visible_to_status (GBinding     *binding,
                   const GValue *from,
                   GValue       *to,
                   gpointer      data)
{
  SlWindow *self = data;
  const SlTimeRange *vis = g_value_get_boxed (from);

  (void) binding;
  if (self->trace == NULL || vis == NULL)
    g_value_set_string (to, "");
  else
    {
      g_autofree char *d = sl_format_duration (vis->end - vis->start);
      g_autofree char *n = sl_format_int ((gint64) sl_trace_get_n_events (self->trace));
      g_value_take_string (to, g_strdup_printf ("Visible: %s · %s events in %u lanes", d, n,
                                                sl_trace_get_n_lanes (self->trace)));
    }
  return TRUE;
}

static void
unbind_status (SlWindow *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->status_bindings); i++)
    if (self->status_bindings[i] != NULL)
      {
        GBinding *binding = self->status_bindings[i];
        g_object_remove_weak_pointer (G_OBJECT (binding), (gpointer *) &self->status_bindings[i]);
        self->status_bindings[i] = NULL;
        g_binding_unbind (binding);
      }
}

static gpointer
drop_thread_main (gpointer data)
{
  sl_trace_unref (data);
  return NULL;
}

void
_sl_window_drop_trace (SlTrace *trace)
{
  if (trace == NULL)
    return;
  GThread *thread = g_thread_try_new ("sl-drop-trace", drop_thread_main, trace, NULL);
  if (thread != NULL)
    g_thread_unref (thread);
  else
    sl_trace_unref (trace);
}

void
_sl_window_update_status (SlWindow *self)
{
  static const char *const source[] = { "selection", "visible" };
  GBindingTransformFunc transform[] = { selection_to_status, visible_to_status };
  GtkWidget *label[] = { self->status, self->status_right };

  unbind_status (self);
  if (self->viewport == NULL || self->trace == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->status), "");
      gtk_label_set_text (GTK_LABEL (self->status_right), "");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (self->status_bindings); i++)
    {
      self->status_bindings[i] = g_object_bind_property_full (self->viewport, source[i], label[i],
                                                              "label", G_BINDING_SYNC_CREATE,
                                                              transform[i], NULL, self, NULL);
      g_object_add_weak_pointer (G_OBJECT (self->status_bindings[i]),
                                 (gpointer *) &self->status_bindings[i]);
    }
}

static void
update_history (SlWindow *self)
{
  gboolean back = self->viewport != NULL && sl_viewport_can_go_back (self->viewport);
  gboolean forward = self->viewport != NULL && sl_viewport_can_go_forward (self->viewport);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.back", back);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.forward", forward);
}

static void
viewport_history_cb (SlWindow *self)
{
  update_history (self);
}

static void
disconnect_viewport (SlWindow *self)
{
  unbind_status (self);
  if (self->viewport == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->viewport, self);
  g_clear_object (&self->viewport);
}

void
_sl_window_watch_viewport (SlWindow *self)
{
  static const char *const history[] = { "notify::can-go-back", "notify::can-go-forward" };

  disconnect_viewport (self);
  self->viewport = g_object_ref (sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (self->timeline)));
  for (gsize i = 0; i < G_N_ELEMENTS (history); i++)
    g_signal_connect_swapped (self->viewport, history[i], G_CALLBACK (viewport_history_cb), self);
  update_history (self);
}

/* ---- actions and template callbacks ------------------------------------------------------ */

static void
window_action_cb (GtkWidget  *widget,
                  const char *name,
                  GVariant   *parameter)
{
  SlWindow *self = SL_WINDOW (widget);

  (void) parameter;
  if (g_str_equal (name, "win.open"))
    sl_window_show_open_dialog (self);
  else if (g_str_equal (name, "win.add-trace"))
    sl_window_show_add_dialog (self);
  else if (g_str_equal (name, "win.record"))
    sl_window_show_record_dialog (self);
  else if (g_str_equal (name, "win.back") && self->viewport != NULL)
    sl_viewport_back (self->viewport);
  else if (g_str_equal (name, "win.forward") && self->viewport != NULL)
    sl_viewport_forward (self->viewport);
  else if (g_str_equal (name, "win.find"))
    _sl_window_find (self);
  else if (g_str_equal (name, "win.search-next"))
    _sl_window_search_step (self, TRUE);
  else if (g_str_equal (name, "win.search-previous"))
    _sl_window_search_step (self, FALSE);
  else if (g_str_equal (name, "win.findings"))
    sl_window_show_findings (self);
  else if (g_str_equal (name, "win.about-trace") && self->trace != NULL)
    gtk_window_present (GTK_WINDOW (sl_trace_info_new (GTK_WINDOW (self), self->trace)));
}

static void
start_page_open_cb (SlStartPage *page,
                    GFile       *file,
                    SlWindow    *self)
{
  (void) page;
  sl_window_open (self, file);
}

static void
cancel_clicked_cb (SlWindow *self)
{
  sl_window_cancel_load (self);
}

static gboolean
drop_cb (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         SlWindow      *self)
{
  GdkFileList *list;
  g_autoptr (GSList) files = NULL;
  g_autoptr (GPtrArray) array = g_ptr_array_new ();

  (void) x;
  (void) y;
  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  list = g_value_get_boxed (value);
  files = gdk_file_list_get_files (list);
  for (GSList *l = files; l != NULL; l = l->next)
    g_ptr_array_add (array, l->data);
  /* Ctrl or Shift held: added to the traces shown */
  GdkModifierType held = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (target));
  sl_window_drop_files (self, (GFile **) array->pdata, array->len,
                        (held & (GDK_CONTROL_MASK | GDK_SHIFT_MASK)) != 0);
  return files != NULL;
}

static gboolean
close_request_cb (GtkWindow *window)
{
  sl_window_cancel_load (SL_WINDOW (window));
  return FALSE;
}

/* win.color-by ("kind" or "name") and win.util-overlay are property actions over these. */
static void
set_color_by (SlWindow   *self,
              const char *mode)
{
  if (mode == NULL || g_strcmp0 (mode, self->color_by) == 0)
    return;
  g_free (self->color_by);
  self->color_by = g_strdup (mode);
  sl_timeline_view_set_color_mode (SL_TIMELINE_VIEW (self->timeline),
                                   g_str_equal (mode, "name") ? SL_COLOR_BY_NAME : SL_COLOR_BY_KIND);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COLOR_BY]);
}

static void
set_util_overlay (SlWindow *self,
                  gboolean  on)
{
  if (self->util_overlay == !!on)
    return;
  self->util_overlay = !!on;
  sl_timeline_view_set_util_overlay (SL_TIMELINE_VIEW (self->timeline), self->util_overlay);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_UTIL_OVERLAY]);
}

/* ---- GObject ----------------------------------------------------------------------------- */

static void
sl_window_dispose (GObject *object)
{
  SlWindow *self = SL_WINDOW (object);

  self->disposed = TRUE;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  _sl_window_recording_dispose (self);
  disconnect_viewport (self);
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);
  G_OBJECT_CLASS (sl_window_parent_class)->dispose (object);
}

static void
sl_window_finalize (GObject *object)
{
  SlWindow *self = SL_WINDOW (object);

  g_clear_pointer (&self->trace, sl_trace_unref);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->file);
  g_clear_pointer (&self->merged, g_ptr_array_unref);
  g_clear_pointer (&self->offsets, g_array_unref);
  g_clear_object (&self->live_cancellable);
  g_free (self->recording_status);
  g_free (self->color_by);
  G_OBJECT_CLASS (sl_window_parent_class)->finalize (object);
}

static void
sl_window_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  SlWindow *self = SL_WINDOW (object);

  switch (prop_id)
    {
    case PROP_COLOR_BY:
      g_value_set_string (value, self->color_by);
      break;
    case PROP_UTIL_OVERLAY:
      g_value_set_boolean (value, self->util_overlay);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sl_window_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  SlWindow *self = SL_WINDOW (object);

  switch (prop_id)
    {
    case PROP_COLOR_BY:
      set_color_by (self, g_value_get_string (value));
      break;
    case PROP_UTIL_OVERLAY:
      set_util_overlay (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sl_window_class_init (SlWindowClass *klass)
{
  static const char *const actions[] = {
    "win.open", "win.add-trace", "win.record", "win.back", "win.forward", "win.find", "win.search-next",
    "win.search-previous", "win.findings", "win.about-trace",
  };
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = sl_window_dispose;
  object_class->finalize = sl_window_finalize;
  object_class->get_property = sl_window_get_property;
  object_class->set_property = sl_window_set_property;
  window_class->close_request = close_request_cb;

  properties[PROP_COLOR_BY] =
    g_param_spec_string ("color-by", NULL, NULL, "kind",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_UTIL_OVERLAY] =
    g_param_spec_boolean ("util-overlay", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  signals[LOAD_FINISHED] = g_signal_new ("load-finished", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                         G_TYPE_BOOLEAN);

  /* Their keys are the application's accelerators (sl-application.c), so they work wherever the
   * focus is; Back and Forward are enabled as the viewport's can-go-back/-forward say. */
  for (gsize i = 0; i < G_N_ELEMENTS (actions); i++)
    gtk_widget_class_install_action (widget_class, actions[i], NULL, window_action_cb);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Back, 0, "win.back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Forward, 0, "win.forward", NULL);
  gtk_widget_class_install_property_action (widget_class, "win.color-by", "color-by");
  gtk_widget_class_install_property_action (widget_class, "win.util-overlay", "util-overlay");
  _sl_window_export_class_init (widget_class);
  _sl_window_compare_class_init (widget_class);
  _sl_window_critpath_class_init (widget_class);

  g_type_ensure (SL_TYPE_START_PAGE);
  g_type_ensure (SL_TYPE_TIMELINE_VIEW);
  g_type_ensure (SL_TYPE_DETAIL_PANE);
  g_type_ensure (SL_TYPE_STATS_PANEL);
  g_type_ensure (SL_TYPE_FINDINGS_PANEL);
  g_type_ensure (SL_TYPE_CALLTREE_PANEL);
  g_type_ensure (SL_TYPE_EVENTS_TABLE);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/dev/sightline/Sightline/ui/sl-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SlWindow, title);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, back_button);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, start_page);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, loading_label);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, progress);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, search_bar);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, search_label);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, timeline);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, detail);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, stats);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, findings);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, calltree);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, events);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, bottom);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, output_box);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, output_view);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, status);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, status_right);
  gtk_widget_class_bind_template_child (widget_class, SlWindow, stop_button);
  gtk_widget_class_bind_template_callback (widget_class, start_page_open_cb);
  gtk_widget_class_bind_template_callback (widget_class, cancel_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, _sl_window_search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, _sl_window_search_next_cb);
  gtk_widget_class_bind_template_callback (widget_class, _sl_window_search_previous_cb);
  gtk_widget_class_bind_template_callback (widget_class, _sl_window_search_stop_cb);
  gtk_widget_class_bind_template_callback (widget_class, _sl_window_timeline_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, _sl_window_detail_go_to_cb);
  gtk_widget_class_bind_template_callback (widget_class, _sl_window_stop_clicked_cb);
}

/* ---- the timeline's context menu: what needs the window ---------------------------------- */

/* "Find all": the search bar, filled with the event's name (its own handler then searches). */
static void
timeline_find_name_cb (SlTimelineView *timeline,
                       const char     *name,
                       SlWindow       *self)
{
  (void) timeline;
  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), TRUE);
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), name);
}

/* "Show in events table": the table's tab, showing the lane. */
static void
timeline_show_in_table_cb (SlTimelineView *timeline,
                           gint            lane,
                           SlWindow       *self)
{
  (void) timeline;
  gtk_notebook_set_current_page (GTK_NOTEBOOK (self->bottom),
                                 gtk_notebook_page_num (GTK_NOTEBOOK (self->bottom), self->events));
  sl_events_table_show_lane (SL_EVENTS_TABLE (self->events), (guint) lane);
}

static void
connect_timeline_menu (SlWindow *self)
{
  g_signal_connect (self->timeline, "find-name", G_CALLBACK (timeline_find_name_cb), self);
  g_signal_connect (self->timeline, "show-in-events-table", G_CALLBACK (timeline_show_in_table_cb),
                    self);
}

/* ---- the timeline's keys anywhere in the window ------------------------------------------ */

/* W/S/A/D, F, 0 and Esc reach the timeline wherever the focus is (the Statistics or Findings
 * pane, the detail pane), as in Perfetto, except in a text entry or a popover, which keep them. */
static gboolean
timeline_keys_apply (SlWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  if (self->trace == NULL || g_strcmp0 (sl_window_get_page (self), "trace") != 0)
    return FALSE;
  return focus == NULL
         || (!GTK_IS_EDITABLE (focus) && gtk_widget_get_ancestor (focus, GTK_TYPE_POPOVER) == NULL);
}

static gboolean
timeline_key_event_cb (GtkEventControllerLegacy *controller,
                       GdkEvent                 *event,
                       SlWindow                 *self)
{
  GdkEventType type = gdk_event_get_event_type (event);
  SlTimelineView *tv = SL_TIMELINE_VIEW (self->timeline);

  (void) controller;
  if (type == GDK_KEY_PRESS)
    return timeline_keys_apply (self)
           && sl_timeline_view_handle_key (tv, gdk_key_event_get_keyval (event),
                                           gdk_event_get_modifier_state (event), TRUE);
  /* a release stops a held W/S wherever the focus went meanwhile, and goes on to the focus */
  if (type == GDK_KEY_RELEASE)
    sl_timeline_view_handle_key (tv, gdk_key_event_get_keyval (event),
                                 gdk_event_get_modifier_state (event), FALSE);
  return FALSE;
}

/* A key held while the window loses the focus never sees its release: stop a held W/S then. */
static void
timeline_keys_active_cb (SlWindow   *self,
                         GParamSpec *pspec,
                         gpointer    user_data)
{
  (void) pspec;
  (void) user_data;
  if (!gtk_window_is_active (GTK_WINDOW (self)))
    {
      sl_timeline_view_handle_key (SL_TIMELINE_VIEW (self->timeline), GDK_KEY_w, 0, FALSE);
      sl_timeline_view_handle_key (SL_TIMELINE_VIEW (self->timeline), GDK_KEY_s, 0, FALSE);
    }
}

static void
add_timeline_keys (SlWindow *self)
{
  GtkEventController *keys = gtk_event_controller_legacy_new ();

  g_signal_connect (self, "notify::is-active", G_CALLBACK (timeline_keys_active_cb), NULL);
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "event", G_CALLBACK (timeline_key_event_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}

/* The window's own title follows the header bar's ("run1.sqlite — Sightline"), so the taskbar
 * and the window switcher tell traces apart. */
static void
title_label_cb (SlWindow *self)
{
  const char *shown = gtk_label_get_text (GTK_LABEL (self->title));
  g_autofree char *title = NULL;

  if (*shown != '\0' && g_strcmp0 (shown, "Sightline") != 0)
    title = g_strdup_printf ("%s — Sightline", shown);
  gtk_window_set_title (GTK_WINDOW (self), title != NULL ? title : "Sightline");
}

static void
sl_window_init (SlWindow *self)
{
  GtkDropTarget *drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  self->color_by = g_strdup ("kind"); /* before the menu asks for win.color-by's state */
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_swapped (self->title, "notify::label", G_CALLBACK (title_label_cb), self);
  gtk_search_bar_connect_entry (GTK_SEARCH_BAR (self->search_bar),
                                GTK_EDITABLE (self->search_entry));
  /* the events table reads the timeline's trace itself, when it is shown */
  sl_events_table_set_timeline (SL_EVENTS_TABLE (self->events), SL_TIMELINE_VIEW (self->timeline));
  /* so does the call tree, building it when it is shown */
  sl_calltree_panel_set_timeline (SL_CALLTREE_PANEL (self->calltree),
                                  SL_TIMELINE_VIEW (self->timeline));
  /* and the Memory tab, the GPU memory live at the peak or the cursor (sl-memory-panel.c) */
  GtkWidget *memory = sl_memory_panel_new ();
  gtk_notebook_append_page (GTK_NOTEBOOK (self->bottom), memory,
                            gtk_label_new_with_mnemonic ("_Memory"));
  sl_memory_panel_set_timeline (SL_MEMORY_PANEL (memory), SL_TIMELINE_VIEW (self->timeline));
  g_signal_connect (memory, "go-to-event", G_CALLBACK (_sl_window_detail_go_to_cb), self);
  g_signal_connect (drop, "drop", G_CALLBACK (drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
  _sl_window_show_page (self, "empty");
  update_history (self);
  add_timeline_keys (self);
  connect_timeline_menu (self);
  _sl_window_compare_init (self);
  _sl_window_critpath_init (self);
}

/* ---- public API ------------------------------------------------------------------------- */

gboolean
sl_window_is_loading (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), FALSE);
  return self->cancellable != NULL;
}

gboolean
sl_window_is_busy (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), FALSE);
  return self->cancellable != NULL || self->trace != NULL || self->error_dialog != NULL
         || self->recording != NULL;
}

SlTrace *
sl_window_get_trace (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->trace;
}

void
sl_window_show_findings (SlWindow *self)
{
  g_return_if_fail (SL_IS_WINDOW (self));
  gtk_notebook_set_current_page (GTK_NOTEBOOK (self->bottom),
                                 gtk_notebook_page_num (GTK_NOTEBOOK (self->bottom), self->findings));
}

/* ---- for tests (sl-window-private.h) ------------------------------------------------------ */

const char *
sl_window_get_page (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return gtk_stack_get_visible_child_name (GTK_STACK (self->stack));
}

GtkWidget *
sl_window_get_timeline (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->timeline;
}

GtkWidget *
sl_window_get_detail_pane (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->detail;
}

GtkWidget *
sl_window_get_stats_panel (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->stats;
}

GtkWidget *
sl_window_get_findings_panel (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->findings;
}

GtkWidget *
sl_window_get_calltree_panel (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->calltree;
}

GtkWidget *
sl_window_get_events_table (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->events;
}

GtkWidget *
sl_window_get_search_entry (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->search_entry;
}

GtkWidget *
sl_window_get_back_button (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->back_button;
}

const char *
sl_window_get_status_text (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return gtk_label_get_text (GTK_LABEL (self->status));
}

const char *
sl_window_get_search_text (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return gtk_label_get_text (GTK_LABEL (self->search_label));
}

GtkWidget *
sl_window_get_error_dialog (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->error_dialog;
}
