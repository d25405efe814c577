/* sl-diff-panel.c: the Comparison page: a report menu, the diff table as the statistics show a
 * report (sortable columns), the summary of what changed beside it, and the step to align on. */
#include "sl-diff-panel.h"

#include "sl-stats-panel-private.h"

struct _SlDiffPanel
{
  GtkWidget     parent_instance;

  GtkWidget    *box;
  GtkWidget    *reports;   /* GtkDropDown of the report titles */
  GtkWidget    *step;      /* GtkSpinButton, from 1 */
  GtkWidget    *status;
  GtkWidget    *pages;     /* GtkStack: the table page of the report shown */
  GtkWidget    *summary;
  GPtrArray    *diffs;     /* SlDiff or NULL, by report; NULL while computing */
  _SlStatsPage *page;
  guint         shown;     /* index of the report shown */
};

G_DEFINE_FINAL_TYPE (SlDiffPanel, sl_diff_panel, GTK_TYPE_WIDGET)

enum
{
  ALIGN_STEP,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static guint
n_reports (void)
{
  return g_strv_length ((char **) sl_diff_report_names ());
}

static void
diffs_free (GPtrArray *diffs)
{
  if (diffs == NULL)
    return;
  for (guint i = 0; i < diffs->len; i++)
    g_clear_pointer (&diffs->pdata[i], sl_diff_free);
  g_ptr_array_unref (diffs);
}

/* The table and summary of the report chosen, or what there is instead. */
static void
show (SlDiffPanel *self)
{
  const char *name = sl_diff_report_names ()[self->shown];
  const SlDiff *diff = self->diffs != NULL && self->shown < self->diffs->len
                         ? g_ptr_array_index (self->diffs, self->shown)
                         : NULL;
  GtkWidget *old = gtk_stack_get_visible_child (GTK_STACK (self->pages));
  g_autoptr (GString) summary = g_string_new (NULL);

  g_clear_pointer (&self->page, _sl_stats_page_free);
  if (diff != NULL)
    {
      self->page = _sl_stats_page_new (name, sl_report_copy (diff->table));
      g_autofree char *info = g_strdup_printf ("%s: %zu names, by |Delta|; A: %s, B: %s",
                                               sl_report_get_title (diff->table),
                                               sl_report_get_n_rows (diff->table),
                                               diff->a.path, diff->b.path);
      _sl_stats_page_set_info (self->page, info);
      gtk_stack_add_child (GTK_STACK (self->pages), self->page->box);
      gtk_stack_set_visible_child (GTK_STACK (self->pages), self->page->box);
      sl_diff_write_summary (diff, summary);
    }
  else
    {
      GtkWidget *label = gtk_label_new (self->diffs == NULL ? "Comparing the two traces…"
                                                            : "Neither trace has data for this "
                                                              "report.");
      gtk_widget_add_css_class (label, "dim-label");
      gtk_stack_add_child (GTK_STACK (self->pages), label);
      gtk_stack_set_visible_child (GTK_STACK (self->pages), label);
    }
  if (old != NULL)
    gtk_stack_remove (GTK_STACK (self->pages), old);
  gtk_label_set_text (GTK_LABEL (self->summary), summary->str);
}

static void
report_selected_cb (GObject    *dropdown,
                    GParamSpec *pspec,
                    gpointer    data)
{
  SlDiffPanel *self = data;
  guint i = gtk_drop_down_get_selected (GTK_DROP_DOWN (dropdown));

  (void) pspec;
  if (i == GTK_INVALID_LIST_POSITION || i == self->shown)
    return;
  self->shown = i;
  show (self);
}

static void
align_clicked_cb (GtkButton *button,
                  gpointer   data)
{
  SlDiffPanel *self = data;

  (void) button;
  g_signal_emit (self, signals[ALIGN_STEP], 0, sl_diff_panel_get_step (self));
}

/* The summary's pane starts at 45 % of the page, enough for its figure lines (~60 characters)
 * unwrapped beside a table of seven columns; once set (or dragged), the table takes what the
 * window gains. */
static void
paned_max_position_cb (GObject    *paned,
                       GParamSpec *pspec,
                       gpointer    data)
{
  int max = 0;
  gboolean set = FALSE;

  (void) pspec;
  (void) data;
  g_object_get (paned, "max-position", &max, "position-set", &set, NULL);
  if (max > 0 && !set)
    gtk_paned_set_position (GTK_PANED (paned), max - max * 45 / 100);
}

static void
sl_diff_panel_dispose (GObject *object)
{
  SlDiffPanel *self = SL_DIFF_PANEL (object);

  g_clear_pointer (&self->page, _sl_stats_page_free);
  g_clear_pointer (&self->diffs, diffs_free);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (sl_diff_panel_parent_class)->dispose (object);
}

static void
sl_diff_panel_class_init (SlDiffPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sl_diff_panel_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  signals[ALIGN_STEP] = g_signal_new ("align-step", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                      0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
sl_diff_panel_init (SlDiffPanel *self)
{
  const char *const *names = sl_diff_report_names ();
  g_autoptr (GPtrArray) titles = g_ptr_array_new ();
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *align = gtk_button_new_with_mnemonic ("_Align");

  for (guint i = 0; names[i] != NULL; i++)
    g_ptr_array_add (titles, (gpointer) sl_report_name_get_title (names[i]));
  g_ptr_array_add (titles, NULL);
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  g_object_set (bar, "margin-start", 6, "margin-end", 6, "margin-top", 4, "margin-bottom", 4, NULL);
  gtk_box_append (GTK_BOX (bar), gtk_label_new ("Compare"));
  self->reports = gtk_drop_down_new_from_strings ((const char *const *) titles->pdata);
  gtk_widget_set_tooltip_text (self->reports, "The report whose rows are compared");
  gtk_box_append (GTK_BOX (bar), self->reports);
  gtk_box_append (GTK_BOX (bar), gtk_label_new ("on step"));
  self->step = gtk_spin_button_new_with_range (1, 1000000, 1);
  gtk_widget_set_tooltip_text (self->step, "Put the start of this training step of B at that of "
                                           "A (NVTX or ProfilerStep#N ranges)");
  gtk_box_append (GTK_BOX (bar), self->step);
  gtk_widget_set_tooltip_text (align, "Align the two traces on the start of this step");
  gtk_box_append (GTK_BOX (bar), align);
  self->status = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->status), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->status), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->status, TRUE);
  gtk_widget_add_css_class (self->status, "dim-label");
  gtk_box_append (GTK_BOX (bar), self->status);
  gtk_box_append (GTK_BOX (self->box), bar);

  self->pages = gtk_stack_new ();
  gtk_widget_set_hexpand (self->pages, TRUE);
  gtk_paned_set_start_child (GTK_PANED (paned), self->pages);
  gtk_paned_set_resize_start_child (GTK_PANED (paned), TRUE);
  self->summary = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0);
  gtk_label_set_yalign (GTK_LABEL (self->summary), 0);
  gtk_label_set_selectable (GTK_LABEL (self->summary), TRUE);
  gtk_widget_add_css_class (self->summary, "monospace"); /* its figures are aligned in columns */
  /* its lines are as long as a finding's summary or a trace's path (200 characters and more):
   * wrapped to the pane, read top to bottom, never scrolled sideways; ~72 characters wide
   * unless the pane is dragged wider */
  gtk_label_set_wrap (GTK_LABEL (self->summary), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->summary), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_max_width_chars (GTK_LABEL (self->summary), 72);
  g_object_set (self->summary, "margin-start", 8, "margin-end", 8, "margin-top", 4, NULL);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->summary);
  gtk_widget_set_size_request (scroller, 360, -1);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_paned_set_end_child (GTK_PANED (paned), scroller);
  gtk_paned_set_resize_end_child (GTK_PANED (paned), FALSE);
  gtk_widget_set_vexpand (paned, TRUE);
  g_signal_connect (paned, "notify::max-position", G_CALLBACK (paned_max_position_cb), NULL);
  gtk_box_append (GTK_BOX (self->box), paned);

  g_signal_connect (self->reports, "notify::selected", G_CALLBACK (report_selected_cb), self);
  g_signal_connect (align, "clicked", G_CALLBACK (align_clicked_cb), self);
  show (self);
}

GtkWidget *
sl_diff_panel_new (void)
{
  return g_object_new (SL_TYPE_DIFF_PANEL, NULL);
}

void
sl_diff_panel_set_diffs (SlDiffPanel *self,
                         GPtrArray   *diffs,
                         const char  *status)
{
  g_return_if_fail (SL_IS_DIFF_PANEL (self));
  g_return_if_fail (diffs == NULL || diffs->len == n_reports ());

  g_clear_pointer (&self->diffs, diffs_free);
  self->diffs = diffs;
  gtk_label_set_text (GTK_LABEL (self->status), status != NULL ? status : "");
  show (self);
}

const char *
sl_diff_panel_get_report (SlDiffPanel *self)
{
  g_return_val_if_fail (SL_IS_DIFF_PANEL (self), NULL);
  return sl_diff_report_names ()[self->shown];
}

gboolean
sl_diff_panel_show_report (SlDiffPanel *self,
                           const char  *report)
{
  const char *const *names = sl_diff_report_names ();

  g_return_val_if_fail (SL_IS_DIFF_PANEL (self), FALSE);
  for (guint i = 0; names[i] != NULL; i++)
    if (g_strcmp0 (names[i], report) == 0)
      {
        gtk_drop_down_set_selected (GTK_DROP_DOWN (self->reports), i);
        return TRUE;
      }
  return FALSE;
}

guint
sl_diff_panel_get_step (SlDiffPanel *self)
{
  g_return_val_if_fail (SL_IS_DIFF_PANEL (self), 0);
  return (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->step)) - 1;
}

void
sl_diff_panel_set_step (SlDiffPanel *self,
                        guint        step)
{
  g_return_if_fail (SL_IS_DIFF_PANEL (self));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->step), step + 1);
}

char *
sl_diff_panel_get_csv (SlDiffPanel *self)
{
  g_return_val_if_fail (SL_IS_DIFF_PANEL (self), NULL);
  const SlDiff *diff = self->diffs != NULL ? g_ptr_array_index (self->diffs, self->shown) : NULL;
  if (diff == NULL)
    return NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  sl_diff_write (diff, SL_DIFF_CSV, out);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

const char *
sl_diff_panel_get_summary (SlDiffPanel *self)
{
  g_return_val_if_fail (SL_IS_DIFF_PANEL (self), NULL);
  return gtk_label_get_text (GTK_LABEL (self->summary));
}
