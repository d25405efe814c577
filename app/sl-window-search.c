/* sl-window-search.c: the window's search bar: the timeline's model search asked once per
 * keystroke (sl_timeline_view_set_search), next/previous through it, "k of N" shown. */
#include "sl-window-private.h"

#include "sl-detail-pane.h"
#include "sl-search.h"
#include "sl-timeline-view.h"

static void
update_search_label (SlWindow *self)
{
  const char *needle = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  SlEventRef sel;
  const SlSearch *search;
  g_autofree char *text = NULL;
  gsize k = 0;

  if (*needle == '\0')
    {
      gtk_label_set_text (GTK_LABEL (self->search_label), "");
      return;
    }
  if (self->n_matches == 0)
    {
      gtk_label_set_text (GTK_LABEL (self->search_label), "No matches");
      return;
    }
  sel = sl_timeline_view_get_selected_event (SL_TIMELINE_VIEW (self->timeline));
  search = sl_timeline_view_get_search (SL_TIMELINE_VIEW (self->timeline));
  if (search != NULL && sel.lane >= 0)
    k = (gsize) (sl_search_get_position (search, sel) + 1);
  if (k > 0)
    text = g_strdup_printf ("%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT, k, self->n_matches);
  else
    text = g_strdup_printf ("%" G_GSIZE_FORMAT " %s", self->n_matches,
                            self->n_matches == 1 ? "match" : "matches");
  gtk_label_set_text (GTK_LABEL (self->search_label), text);
}

void
_sl_window_search_changed_cb (GtkSearchEntry *entry,
                              SlWindow       *self)
{
  const char *needle = gtk_editable_get_text (GTK_EDITABLE (entry));

  if (self->trace == NULL)
    return;
  self->n_matches = sl_timeline_view_set_search (SL_TIMELINE_VIEW (self->timeline),
                                                 *needle != '\0' ? needle : NULL);
  update_search_label (self);
}

static void
show_selected_event (SlWindow *self)
{
  SlEventRef ref = sl_timeline_view_get_selected_event (SL_TIMELINE_VIEW (self->timeline));

  sl_detail_pane_set_event (SL_DETAIL_PANE (self->detail), ref);
}

void
_sl_window_search_step (SlWindow *self,
                        gboolean  forward)
{
  if (self->trace == NULL)
    return;
  if (sl_timeline_view_search_step (SL_TIMELINE_VIEW (self->timeline), forward))
    show_selected_event (self);
  update_search_label (self);
}

void
_sl_window_search_next_cb (GtkSearchEntry *entry,
                           SlWindow       *self)
{
  (void) entry;
  _sl_window_search_step (self, TRUE);
}

void
_sl_window_search_previous_cb (GtkSearchEntry *entry,
                               SlWindow       *self)
{
  (void) entry;
  _sl_window_search_step (self, FALSE);
}

void
_sl_window_search_stop_cb (GtkSearchEntry *entry,
                           SlWindow       *self)
{
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), FALSE);
  if (self->trace != NULL)
    gtk_widget_grab_focus (self->timeline);
}

/* The timeline emits "event-selected" with the event; reading the selection back keeps this
 * handler independent of how the signal carries it. */
void
_sl_window_timeline_selected_cb (SlWindow *self)
{
  show_selected_event (self);
  update_search_label (self);
}

void
_sl_window_detail_go_to_cb (GtkWidget *pane,
                            gint       lane,
                            guint64    index,
                            SlWindow  *self)
{
  SlEventRef ref = { lane, (gsize) index };

  (void) pane;
  sl_timeline_view_select_event (SL_TIMELINE_VIEW (self->timeline), ref, TRUE);
  /* as a click on it: the detail pane, the search's "k of N" and the events table follow */
  g_signal_emit_by_name (self->timeline, "event-selected", &ref);
}

/* win.find (Ctrl+F): only with a trace to search. */
void
_sl_window_find (SlWindow *self)
{
  if (self->trace == NULL)
    return;
  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), TRUE);
  gtk_widget_grab_focus (self->search_entry);
}
