/* sl-events-table.c: the Events tab: a lane's events, or those of every lane in the selected time
 * range, in a column view sorted by the query's index (model/sl-events-query.c), rows made on
 * demand; a click selects the event in the timeline; selected rows copy as CSV. */
#include "sl-events-table-private.h"

#include <string.h>

#include "sl-format.h"
#include "sl-timeline-view.h"
#include "sl-viewport.h"

struct _SlEventsTable
{
  GtkWidget          parent_instance;

  GtkWidget         *box;
  GtkWidget         *summary;
  GtkWidget         *copy_button;
  GtkWidget         *scrolled;
  GtkWidget         *view;
  SlEventsRows      *rows;
  GtkMultiSelection *selection;
  GtkColumnViewColumn *columns[SL_EVENTS_N_COLUMNS];
  GObject           *probe[2];   /* two items the column view's sorter is asked to compare */
  gint               probed;     /* the column whose sorter answered the probe, -1 none */

  SlTimelineView    *timeline;   /* weak */
  SlViewport        *viewport;   /* reffed, to disconnect */
  gulong             selected_id;
  SlTrace           *trace;      /* what `lane` indexes into; reffed */
  gint               lane;       /* of the event last clicked in the timeline; -1 none */
  gboolean           dirty;      /* the scope changed: rows to make, on map or after a pause */
  guint              rebuild_id; /* that pause: a Shift+drag changes the range each motion */
  gboolean           emitting;
  GtkFileChooserNative *chooser;
};

G_DEFINE_FINAL_TYPE (SlEventsTable, sl_events_table, GTK_TYPE_WIDGET)

enum
{
  GO_TO_EVENT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const struct
{
  const char *title;
  gboolean    numeric;
  gboolean    sortable;
  int         width;
} column_info[SL_EVENTS_N_COLUMNS] = {
  [SL_EVENTS_COLUMN_NAME] = { "Name", FALSE, TRUE, 280 },
  [SL_EVENTS_COLUMN_START] = { "Start", TRUE, TRUE, 110 },
  [SL_EVENTS_COLUMN_DURATION] = { "Duration", TRUE, TRUE, 100 },
  [SL_EVENTS_COLUMN_LANE] = { "Thread / stream", FALSE, TRUE, 220 },
  [SL_EVENTS_COLUMN_DETAILS] = { "Details", FALSE, FALSE, 400 },
};

GtkWidget *
sl_events_table_new (void)
{
  return g_object_new (SL_TYPE_EVENTS_TABLE, NULL);
}

/* ---- rows ---------------------------------------------------------------------------------- */

static SlEventsQuery *
query (SlEventsTable *self)
{
  return _sl_events_rows_get_query (self->rows);
}

static void
set_summary (SlEventsTable *self,
             const char    *text)
{
  gtk_label_set_text (GTK_LABEL (self->summary), text);
}

/* The row of the timeline's selected event, selected and scrolled to: an event found by search,
 * gone to or clicked is the table's row too.  One pass over the rows at most (4 M: a few tens of
 * ms, once a click); a lane in start order finds it at its index. */
static void
show_selected (SlEventsTable *self)
{
  SlEventRef sel = self->timeline != NULL ? sl_timeline_view_get_selected_event (self->timeline)
                                          : SL_EVENT_REF_NONE;
  SlEventsQuery *q = query (self);
  gsize n = q != NULL ? sl_events_query_get_n (q) : 0, pos = G_MAXSIZE;
  SlEventRef at;

  if (q == NULL || self->dirty || self->emitting)
    return;
  at = sl_events_query_get (q, sel.index);
  if (sel.lane >= 0 && at.lane == sel.lane && at.index == sel.index)
    pos = sel.index;
  for (gsize i = 0; sel.lane >= 0 && pos == G_MAXSIZE && i < n; i++)
    {
      at = sl_events_query_get (q, i);
      if (at.lane == sel.lane && at.index == sel.index)
        pos = i;
    }
  self->emitting = TRUE;
  if (pos == G_MAXSIZE)
    gtk_selection_model_unselect_all (GTK_SELECTION_MODEL (self->selection));
  else
    {
      gtk_selection_model_select_item (GTK_SELECTION_MODEL (self->selection), (guint) pos, TRUE);
      /* GTK 4.8 has no gtk_column_view_scroll_to: its list view's action does it */
      for (GtkWidget *c = gtk_widget_get_first_child (self->view); c != NULL;
           c = gtk_widget_get_next_sibling (c))
        if (GTK_IS_LIST_VIEW (c))
          gtk_widget_activate_action (c, "list.scroll-to-item", "u", (guint) pos);
    }
  self->emitting = FALSE;
}

/* Makes the rows for what the timeline selects now: a range across lanes, or one lane. */
static void
rebuild (SlEventsTable *self)
{
  SlTrace *trace = self->timeline != NULL ? sl_timeline_view_get_trace (self->timeline) : NULL;
  SlTime t0 = 0, t1 = 0;
  SlEventsQuery *q = NULL;
  g_autofree char *count = NULL;
  g_autofree char *text = NULL;
  gboolean descending = FALSE;
  SlEventsColumn sort = SL_EVENTS_COLUMN_START;

  self->dirty = FALSE;
  g_clear_handle_id (&self->rebuild_id, g_source_remove);
  if (trace != self->trace)
    {
      /* a live reload of the same file keeps the lane index (the lanes of a recording may still
       * be reordered as it grows: then the next click puts it right) */
      if (trace == NULL || self->trace == NULL
          || g_strcmp0 (sl_trace_get_path (trace), sl_trace_get_path (self->trace)) != 0)
        self->lane = -1;
      g_clear_pointer (&self->trace, sl_trace_unref);
      self->trace = trace != NULL ? sl_trace_ref (trace) : NULL;
    }
  if (query (self) != NULL)
    sort = sl_events_query_get_sort (query (self), &descending);
  if (trace == NULL)
    {
      _sl_events_rows_set_query (self->rows, NULL);
      set_summary (self, "");
      return;
    }
  if (self->viewport != NULL && sl_viewport_get_selection (self->viewport, &t0, &t1))
    {
      g_autofree char *d = sl_format_duration (t1 - t0);
      q = sl_events_query_new_range (trace, t0, t1);
      count = sl_format_int ((gint64) sl_events_query_get_n (q));
      text = g_strdup_printf ("%s events in the selected %s, all lanes", count, d);
    }
  else if (self->lane >= 0 && (guint) self->lane < sl_trace_get_n_lanes (trace))
    {
      const SlLane *lane = sl_trace_get_lane (trace, (guint) self->lane);
      g_autofree char *title = sl_events_lane_title (trace, lane);
      q = sl_events_query_new_lane (trace, (guint) self->lane, 0, 0);
      count = sl_format_int ((gint64) sl_events_query_get_n (q));
      /* a nesting lane is one row of its thread's (the calls or ranges inside others): which,
       * as the detail pane counts depth */
      if (lane->depth > 0 && (lane->kind == SL_LANE_CUDA_API || lane->kind == SL_LANE_NVTX
                              || lane->kind == SL_LANE_OSRT))
        text = g_strdup_printf ("%s events of %s, depth %u", count, title, lane->depth);
      else
        text = g_strdup_printf ("%s events of %s", count, title);
    }
  if (q != NULL)
    sl_events_query_sort (q, sort, descending);
  _sl_events_rows_set_query (self->rows, q);
  set_summary (self, text != NULL ? text
                                  : "Click an event to list its lane's events, or Shift+drag to "
                                    "list every event in a time range");
  show_selected (self);
}

static gboolean
rebuild_cb (gpointer data)
{
  SlEventsTable *self = data;

  self->rebuild_id = 0;
  rebuild (self);
  return G_SOURCE_REMOVE;
}

/* The rows follow after 50 ms without another change (a range being dragged), and only while
 * the table is on screen; otherwise when it is mapped. */
static void
invalidate (SlEventsTable *self)
{
  self->dirty = TRUE;
  if (gtk_widget_get_mapped (GTK_WIDGET (self)) && self->rebuild_id == 0)
    self->rebuild_id = g_timeout_add (50, rebuild_cb, self);
}

static void
flush (SlEventsTable *self)
{
  if (self->dirty)
    rebuild (self);
}

static void
selection_range_cb (SlEventsTable *self)
{
  invalidate (self);
}

static void
timeline_selected_cb (SlTimelineView   *timeline,
                      const SlEventRef *ref,
                      SlEventsTable    *self)
{
  SlEventRef sel = sl_timeline_view_get_selected_event (timeline);

  (void) ref;
  if (sel.lane < 0 || sel.lane == self->lane)
    {
      show_selected (self);
      return;
    }
  self->lane = sel.lane;
  /* a range shows every lane already: the lane matters once the range is cleared */
  if (self->viewport != NULL && sl_viewport_get_selection (self->viewport, NULL, NULL))
    {
      show_selected (self);
      return;
    }
  invalidate (self);
}

/* ---- cells --------------------------------------------------------------------------------- */

static void
cell_setup_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               gpointer                  data)
{
  SlEventsColumn column = GPOINTER_TO_INT (data);
  GtkWidget *label = gtk_label_new (NULL);

  (void) factory;
  gtk_label_set_xalign (GTK_LABEL (label), column_info[column].numeric ? 1.0f : 0.0f);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  if (column_info[column].numeric)
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
cell_bind_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  data)
{
  SlEventsColumn column = GPOINTER_TO_INT (data);
  SlEventsTable *self = g_object_get_data (G_OBJECT (factory), "sl-events-table");
  SlEventsRow *row = gtk_list_item_get_item (item);
  g_autofree char *text = NULL;

  if (row != NULL && query (self) != NULL)
    text = sl_events_query_cell_text (query (self), _sl_events_row_get_position (row), column);
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), text != NULL ? text : "");
}

/* ---- sorting: the column view's sorter, read through a probe ------------------------------- */

/* GTK 4.8 has no public getter for the column view's sort column (4.10 added one): each column's
 * sorter notes that it was asked, and the column view's sorter is asked to compare two probe items;
 * the primary column answers first, and the sign says ascending or descending. */
static int
column_sort_cb (gconstpointer a,
                gconstpointer b,
                gpointer      data)
{
  GtkColumnViewColumn *column = GTK_COLUMN_VIEW_COLUMN (data);
  SlEventsTable *self = g_object_get_data (G_OBJECT (column), "sl-events-table");

  (void) b;
  if (self->probed < 0)
    self->probed = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (column), "sl-column"));
  return a == self->probe[0] ? GTK_ORDERING_SMALLER : GTK_ORDERING_LARGER;
}

static void
sorter_changed_cb (GtkSorter       *sorter,
                   GtkSorterChange  change,
                   SlEventsTable   *self)
{
  GtkOrdering order;

  (void) change;
  self->probed = -1;
  order = gtk_sorter_compare (sorter, self->probe[0], self->probe[1]);
  if (query (self) == NULL)
    return;
  if (self->probed < 0)
    sl_events_query_sort (query (self), SL_EVENTS_COLUMN_START, FALSE);
  else
    sl_events_query_sort (query (self), self->probed, order == GTK_ORDERING_LARGER);
  gtk_selection_model_unselect_all (GTK_SELECTION_MODEL (self->selection));
  _sl_events_rows_reordered (self->rows);
}

/* ---- selection and CSV --------------------------------------------------------------------- */

static void
row_selection_cb (GtkSelectionModel *model,
                  guint              position,
                  guint              n_items,
                  SlEventsTable     *self)
{
  g_autoptr (GtkBitset) sel = gtk_selection_model_get_selection (model);
  SlEventRef ref;

  (void) position;
  (void) n_items;
  gtk_widget_set_sensitive (self->copy_button, !gtk_bitset_is_empty (sel));
  if (gtk_bitset_get_size (sel) != 1 || query (self) == NULL || self->emitting)
    return;
  ref = sl_events_query_get (query (self), gtk_bitset_get_minimum (sel));
  if (ref.lane < 0)
    return;
  self->emitting = TRUE;
  g_signal_emit (self, signals[GO_TO_EVENT], 0, ref.lane, (guint64) ref.index);
  self->emitting = FALSE;
}

char *
sl_events_table_get_csv (SlEventsTable *self,
                         gboolean       selected_only)
{
  GString *out;
  SlEventsQuery *q;

  g_return_val_if_fail (SL_IS_EVENTS_TABLE (self), NULL);
  flush (self);
  out = g_string_new (NULL);
  q = query (self);
  sl_events_query_csv_header (out);
  if (q == NULL)
    return g_string_free (out, FALSE);
  if (selected_only)
    {
      GtkSelectionModel *model = GTK_SELECTION_MODEL (self->selection);
      g_autoptr (GtkBitset) sel = gtk_selection_model_get_selection (model);
      GtkBitsetIter iter;
      guint pos;

      for (gboolean ok = gtk_bitset_iter_init_first (&iter, sel, &pos); ok;
           ok = gtk_bitset_iter_next (&iter, &pos))
        sl_events_query_csv_row (q, pos, out);
    }
  else
    for (gsize i = 0; i < sl_events_query_get_n (q); i++)
      sl_events_query_csv_row (q, i, out);
  return g_string_free (out, FALSE);
}

static void
copy_csv (SlEventsTable *self)
{
  g_autofree char *csv = sl_events_table_get_csv (self, TRUE);

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), csv);
}

static void
save_response_cb (GtkNativeDialog *dialog,
                  int              response,
                  SlEventsTable   *self)
{
  g_autoptr (GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  gtk_native_dialog_destroy (dialog);
  g_clear_object (&self->chooser);
  if (file != NULL)
    {
      g_autofree char *csv = sl_events_table_get_csv (self, FALSE);
      g_autoptr (GError) error = NULL;

      if (!g_file_replace_contents (file, csv, strlen (csv), NULL, FALSE,
                                    G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, &error))
        set_summary (self, error->message);
    }
}

static void
save_csv (SlEventsTable *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  if (self->chooser != NULL)
    return;
  self->chooser = gtk_file_chooser_native_new ("Save Events as CSV",
                                               GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                               GTK_FILE_CHOOSER_ACTION_SAVE, "_Save", "_Cancel");
  if (self->trace != NULL && sl_trace_get_path (self->trace) != NULL)
    {
      /* beside the trace, not in the folder Sightline was started from */
      g_autofree char *dir = g_path_get_dirname (sl_trace_get_path (self->trace));
      g_autoptr (GFile) folder = g_file_new_for_path (dir);
      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (self->chooser), folder, NULL);
    }
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser), "events.csv");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (save_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
table_action_cb (GtkWidget  *widget,
                 const char *name,
                 GVariant   *parameter)
{
  SlEventsTable *self = SL_EVENTS_TABLE (widget);

  (void) parameter;
  if (g_str_equal (name, "events.copy"))
    copy_csv (self);
  else if (g_str_equal (name, "events.save"))
    save_csv (self);
}

/* ---- GObject ------------------------------------------------------------------------------- */

static void
disconnect_timeline (SlEventsTable *self)
{
  if (self->viewport != NULL)
    g_signal_handlers_disconnect_by_data (self->viewport, self);
  g_clear_object (&self->viewport);
  if (self->timeline != NULL)
    {
      g_clear_signal_handler (&self->selected_id, self->timeline);
      g_object_remove_weak_pointer (G_OBJECT (self->timeline), (gpointer *) &self->timeline);
      self->timeline = NULL;
    }
}

static void
sl_events_table_map (GtkWidget *widget)
{
  SlEventsTable *self = SL_EVENTS_TABLE (widget);

  GTK_WIDGET_CLASS (sl_events_table_parent_class)->map (widget);
  flush (self);
}

static void
sl_events_table_dispose (GObject *object)
{
  SlEventsTable *self = SL_EVENTS_TABLE (object);

  disconnect_timeline (self);
  /* the column view going removes its columns, which unselects a row selected: the button
   * that follows the selection is gone by then */
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_func (self->selection, row_selection_cb, self);
  g_clear_handle_id (&self->rebuild_id, g_source_remove);
  if (self->chooser != NULL)
    gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
  g_clear_object (&self->chooser);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_object (&self->selection);
  g_clear_object (&self->rows);
  g_clear_object (&self->probe[0]);
  g_clear_object (&self->probe[1]);
  g_clear_pointer (&self->trace, sl_trace_unref);
  G_OBJECT_CLASS (sl_events_table_parent_class)->dispose (object);
}

static void
sl_events_table_class_init (SlEventsTableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sl_events_table_dispose;
  widget_class->map = sl_events_table_map;
  signals[GO_TO_EVENT] = g_signal_new ("go-to-event", G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                       G_TYPE_INT, G_TYPE_UINT64);
  gtk_widget_class_install_action (widget_class, "events.copy", NULL, table_action_cb);
  gtk_widget_class_install_action (widget_class, "events.save", NULL, table_action_cb);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK, "events.copy",
                                       NULL);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sl-events-table");
}

static void
sl_events_table_init (SlEventsTable *self)
{
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *save = gtk_button_new_with_mnemonic ("_Save as CSV…");
  GtkSorter *sorter;

  self->lane = -1;
  self->probed = -1;
  self->probe[0] = g_object_new (G_TYPE_OBJECT, NULL);
  self->probe[1] = g_object_new (G_TYPE_OBJECT, NULL);
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  self->summary = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->summary), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->summary, TRUE);
  self->copy_button = gtk_button_new_with_mnemonic ("_Copy as CSV");
  gtk_widget_set_tooltip_text (self->copy_button, "Copy the selected rows as CSV (Ctrl+C)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->copy_button), "events.copy");
  gtk_widget_set_sensitive (self->copy_button, FALSE);
  gtk_widget_set_tooltip_text (save, "Save every row of the table as CSV");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (save), "events.save");
  gtk_box_append (GTK_BOX (header), self->summary);
  gtk_box_append (GTK_BOX (header), self->copy_button);
  gtk_box_append (GTK_BOX (header), save);
  gtk_widget_set_margin_start (header, 6);
  gtk_widget_set_margin_end (header, 6);
  gtk_widget_set_margin_top (header, 3);
  gtk_widget_set_margin_bottom (header, 3);
  gtk_box_append (GTK_BOX (self->box), header);

  self->rows = _sl_events_rows_new ();
  self->selection = gtk_multi_selection_new (G_LIST_MODEL (g_object_ref (self->rows)));
  g_signal_connect (self->selection, "selection-changed", G_CALLBACK (row_selection_cb), self);
  self->view = gtk_column_view_new (GTK_SELECTION_MODEL (g_object_ref (self->selection)));
  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (self->view), TRUE);
  gtk_widget_add_css_class (self->view, "data-table");
  for (guint c = 0; c < SL_EVENTS_N_COLUMNS; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;

      g_object_set_data (G_OBJECT (factory), "sl-events-table", self);
      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup_cb), GINT_TO_POINTER (c));
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind_cb), GINT_TO_POINTER (c));
      column = gtk_column_view_column_new (column_info[c].title, factory);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_fixed_width (column, column_info[c].width);
      gtk_column_view_column_set_expand (column, c == SL_EVENTS_COLUMN_DETAILS);
      g_object_set_data (G_OBJECT (column), "sl-events-table", self);
      g_object_set_data (G_OBJECT (column), "sl-column", GINT_TO_POINTER (c));
      if (column_info[c].sortable)
        {
          GtkSorter *s = GTK_SORTER (gtk_custom_sorter_new (column_sort_cb, column, NULL));
          gtk_column_view_column_set_sorter (column, s);
          g_object_unref (s);
        }
      gtk_column_view_append_column (GTK_COLUMN_VIEW (self->view), column);
      self->columns[c] = column;
      g_object_unref (column);
    }
  sorter = gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->view));
  g_signal_connect (sorter, "changed", G_CALLBACK (sorter_changed_cb), self);

  self->scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scrolled), self->view);
  gtk_widget_set_vexpand (self->scrolled, TRUE);
  gtk_box_append (GTK_BOX (self->box), self->scrolled);
  set_summary (self, "");
}

/* ---- public API ---------------------------------------------------------------------------- */

void
sl_events_table_set_timeline (SlEventsTable  *self,
                              SlTimelineView *timeline)
{
  g_return_if_fail (SL_IS_EVENTS_TABLE (self));
  g_return_if_fail (timeline == NULL || SL_IS_TIMELINE_VIEW (timeline));

  disconnect_timeline (self);
  if (timeline != NULL)
    {
      static const char *const follow[] = { "notify::selection", "notify::bounds" };

      self->timeline = timeline;
      g_object_add_weak_pointer (G_OBJECT (timeline), (gpointer *) &self->timeline);
      self->selected_id = g_signal_connect (timeline, "event-selected",
                                            G_CALLBACK (timeline_selected_cb), self);
      self->viewport = g_object_ref (sl_timeline_view_get_viewport (timeline));
      for (guint i = 0; i < G_N_ELEMENTS (follow); i++)
        g_signal_connect_swapped (self->viewport, follow[i], G_CALLBACK (selection_range_cb), self);
    }
  invalidate (self);
}

void
sl_events_table_show_lane (SlEventsTable *self,
                           guint          lane)
{
  g_return_if_fail (SL_IS_EVENTS_TABLE (self));
  self->lane = (gint) lane;
  invalidate (self);
}

/* ---- for tests (sl-events-table-private.h) ------------------------------------------------- */

guint
sl_events_table_get_n_rows (SlEventsTable *self)
{
  g_return_val_if_fail (SL_IS_EVENTS_TABLE (self), 0);
  flush (self);
  return g_list_model_get_n_items (G_LIST_MODEL (self->rows));
}

char *
sl_events_table_get_cell (SlEventsTable  *self,
                          guint           row,
                          SlEventsColumn  column)
{
  g_return_val_if_fail (SL_IS_EVENTS_TABLE (self), NULL);
  flush (self);
  if (query (self) == NULL)
    return NULL;
  return sl_events_query_cell_text (query (self), row, column);
}

void
sl_events_table_select_row (SlEventsTable *self,
                            guint          row)
{
  g_return_if_fail (SL_IS_EVENTS_TABLE (self));
  flush (self);
  gtk_selection_model_select_item (GTK_SELECTION_MODEL (self->selection), row, TRUE);
}

void
sl_events_table_sort_by (SlEventsTable  *self,
                         SlEventsColumn  column,
                         gboolean        descending)
{
  g_return_if_fail (SL_IS_EVENTS_TABLE (self));
  g_return_if_fail (column < SL_EVENTS_N_COLUMNS);
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (self->view), self->columns[column],
                                  descending ? GTK_SORT_DESCENDING : GTK_SORT_ASCENDING);
}

SlEventRef
sl_events_table_get_selected (SlEventsTable *self)
{
  g_autoptr (GtkBitset) sel = NULL;

  g_return_val_if_fail (SL_IS_EVENTS_TABLE (self), SL_EVENT_REF_NONE);
  flush (self);
  sel = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  if (gtk_bitset_get_size (sel) != 1 || query (self) == NULL)
    return SL_EVENT_REF_NONE;
  return sl_events_query_get (query (self), gtk_bitset_get_minimum (sel));
}

const char *
sl_events_table_get_summary (SlEventsTable *self)
{
  g_return_val_if_fail (SL_IS_EVENTS_TABLE (self), NULL);
  flush (self);
  return gtk_label_get_text (GTK_LABEL (self->summary));
}

GtkWidget *
sl_events_table_get_scrolled (SlEventsTable *self)
{
  g_return_val_if_fail (SL_IS_EVENTS_TABLE (self), NULL);
  return self->scrolled;
}
