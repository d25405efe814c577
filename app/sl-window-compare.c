/* sl-window-compare.c: traces side by side in one window: two runs compared (the Comparison
 * page, aligned on a step), merged traces aligned on an event's name or by offsets given by hand,
 * and files dropped with a modifier added to those shown. */
#include "sl-window-private.h"

#include <math.h>

#include "sl-diff-panel.h"
#include "sl-summaries.h"
#include "sl-timeline-view.h"

/* ---- loading (on the window's loading thread) ---------------------------------------------- */

typedef struct
{
  const char     *path;
  const char     *report;
  SlProgressFunc  progress;    /* A's; B loads without */
  gpointer        user_data;
  GCancellable   *cancellable;
  SlTrace        *trace;
  SlDiffInput    *input;
  GError         *error;
} Side;

/* A side loaded and its part of the diff computed (its analysis: the costly part). */
static gpointer
side_load (gpointer data)
{
  Side *s = data;

  s->trace = sl_trace_load (s->path, SL_LOAD_ALL, s->progress, s->user_data, s->cancellable,
                            &s->error);
  if (s->trace != NULL)
    s->input = sl_diff_input_new (s->trace, s->report, &s->error);
  return NULL;
}

static void
side_clear (Side *s)
{
  g_clear_pointer (&s->input, sl_diff_input_free);
  g_clear_pointer (&s->trace, sl_trace_unref);
  g_clear_error (&s->error);
}

/* The start of step `step` of a trace, or FALSE when it has no such step. */
static gboolean
step_start (SlTrace *trace,
            guint    step,
            SlTime  *start)
{
  g_autoptr (GArray) steps = sl_trace_steps (trace, G_MININT64, G_MAXINT64, NULL, NULL);

  if (step >= steps->len)
    return FALSE;
  *start = g_array_index (steps, SlStep, step).start;
  return TRUE;
}

SlTrace *
_sl_window_compare_load (char          **paths,
                         const SlTime   *offsets,
                         guint           step,
                         SlProgressFunc  progress,
                         gpointer        user_data,
                         GCancellable   *cancellable,
                         GPtrArray     **diffs,
                         char          **status,
                         GError        **error)
{
  const char *const *reports = sl_diff_report_names ();
  Side a = { paths[0], reports[0], progress, user_data, cancellable, NULL, NULL, NULL };
  Side b = { paths[1], reports[0], NULL, NULL, cancellable, NULL, NULL, NULL };
  GThread *thread = g_thread_new ("sl-compare", side_load, &b);

  side_load (&a);
  g_thread_join (thread);
  if (a.input == NULL || b.input == NULL)
    {
      g_propagate_error (error, a.input == NULL ? g_steal_pointer (&a.error)
                                                : g_steal_pointer (&b.error));
      side_clear (&a);
      side_clear (&b);
      return NULL;
    }

  /* every report's diff from the one analysis of each side; the diffs hold no trace */
  *diffs = g_ptr_array_new ();
  for (guint i = 0; reports[i] != NULL; i++)
    {
      SlDiff *diff = NULL;
      if ((i == 0 || (sl_diff_input_set_report (a.input, reports[i], NULL)
                      && sl_diff_input_set_report (b.input, reports[i], NULL))))
        diff = sl_diff_join (a.input, b.input, NULL);
      g_ptr_array_add (*diffs, diff);
    }
  g_clear_pointer (&a.input, sl_diff_input_free);
  g_clear_pointer (&b.input, sl_diff_input_free);

  SlTime off[2] = { 0, 0 }, sa = 0, sb = 0;
  if (offsets != NULL)
    {
      off[0] = offsets[0];
      off[1] = offsets[1];
      *status = g_strdup ("Aligned by the offsets given");
    }
  else if (step_start (a.trace, step, &sa) && step_start (b.trace, step, &sb))
    {
      off[1] = sa - sb;
      *status = g_strdup_printf ("Aligned on the start of step %u of each", step + 1);
    }
  else
    {
      off[1] = sl_trace_get_start (a.trace) - sl_trace_get_start (b.trace);
      *status = g_strdup_printf ("Aligned on their starts: %s has no step %u",
                                 step_start (a.trace, step, &sa) ? "B" : "A", step + 1);
    }
  SlTrace *traces[2] = { g_steal_pointer (&a.trace), g_steal_pointer (&b.trace) };
  SlTrace *merged = sl_trace_merge (traces, 2, off, error);
  if (merged == NULL)
    g_clear_pointer (status, g_free);
  return merged;
}

/* ---- actions ----------------------------------------------------------------------------- */

void
sl_window_open_compare (SlWindow *self,
                        GFile    *a,
                        GFile    *b)
{
  g_return_if_fail (SL_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (a) && G_IS_FILE (b));

  if (self->cancellable != NULL || self->recording != NULL)
    {
      SlWindow *other = sl_window_new (SL_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
      gtk_window_present (GTK_WINDOW (other));
      sl_window_open_compare (other, a, b);
      return;
    }
  GPtrArray *merged = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (merged, g_object_ref (a));
  g_ptr_array_add (merged, g_object_ref (b));
  g_clear_pointer (&self->merged, g_ptr_array_unref);
  self->merged = merged;
  g_clear_pointer (&self->offsets, g_array_unref);
  self->compare = TRUE;
  self->align_step = 0;
  _sl_window_load_file (self, a, TRUE);
}

void
_sl_window_reload_merged (SlWindow *self)
{
  if (self->merged == NULL || self->cancellable != NULL)
    return;
  _sl_window_load_file (self, g_ptr_array_index (self->merged, 0), TRUE);
}

void
sl_window_drop_files (SlWindow *self,
                      GFile   **files,
                      guint     n_files,
                      gboolean  add)
{
  g_return_if_fail (SL_IS_WINDOW (self));

  if (add && self->trace != NULL && self->recording == NULL)
    {
      sl_window_add_traces (self, files, n_files);
      return;
    }
  /* the first goes into this window when it is empty; sl_window_open passes the rest on */
  for (guint i = 0; i < n_files; i++)
    sl_window_open (self, files[i]);
}

static void
set_offsets (SlWindow     *self,
             const SlTime *offsets,
             guint         n)
{
  g_clear_pointer (&self->offsets, g_array_unref);
  if (offsets != NULL)
    {
      self->offsets = g_array_sized_new (FALSE, FALSE, sizeof (SlTime), n);
      g_array_append_vals (self->offsets, offsets, n);
    }
}

/* The timeline's "Align Traces on “NAME”": each trace put on its first event of that name. */
static void
align_on_name_cb (SlTimelineView *timeline,
                  const char     *name,
                  SlWindow       *self)
{
  guint n = self->trace != NULL ? sl_trace_get_n_sources (self->trace) : 0;
  g_autofree SlTime *offsets = g_new0 (SlTime, MAX (n, 1));
  g_autoptr (GError) error = NULL;

  (void) timeline;
  if (n < 2 || self->merged == NULL || self->merged->len != n)
    return;
  for (guint i = 0; i < n; i++)
    if (i == 0)
      offsets[i] = sl_trace_get_source (self->trace, 0)->offset;
    else if (!sl_trace_align_on (self->trace, i, name, &offsets[i], &error))
      {
        _sl_window_show_error (self, "Could not align the traces", error);
        return;
      }
  set_offsets (self, offsets, n);
  _sl_window_reload_merged (self);
}

/* The Comparison page's "Align on step N". */
static void
align_step_cb (SlDiffPanel *panel,
               guint        step,
               SlWindow    *self)
{
  (void) panel;
  if (!self->compare)
    return;
  self->align_step = step;
  g_clear_pointer (&self->offsets, g_array_unref);
  _sl_window_reload_merged (self);
}

/* ---- Trace Offsets… ------------------------------------------------------------------------ */

typedef struct
{
  SlWindow  *window;   /* weak: the dialog is the window's transient, destroyed with it */
  GPtrArray *spins;    /* GtkSpinButton per source, ms */
} OffsetsDialog;

static void
offsets_dialog_free (gpointer data)
{
  OffsetsDialog *d = data;

  g_ptr_array_unref (d->spins);
  g_free (d);
}

static void
offsets_apply_cb (GtkButton *button,
                  GtkWindow *dialog)
{
  OffsetsDialog *d = g_object_get_data (G_OBJECT (dialog), "sl-offsets");
  SlWindow *self = d->window;
  g_autofree SlTime *offsets = g_new0 (SlTime, d->spins->len);

  (void) button;
  for (guint i = 0; i < d->spins->len; i++)
    offsets[i] = (SlTime) llround (gtk_spin_button_get_value (
                                     GTK_SPIN_BUTTON (g_ptr_array_index (d->spins, i))) * 1e6);
  if (self->merged != NULL && self->merged->len == d->spins->len)
    {
      set_offsets (self, offsets, d->spins->len);
      _sl_window_reload_merged (self);
    }
  gtk_window_destroy (dialog);
}

static void
offsets_reset_cb (GtkButton *button,
                  GtkWindow *dialog)
{
  OffsetsDialog *d = g_object_get_data (G_OBJECT (dialog), "sl-offsets");
  SlWindow *self = d->window;

  (void) button;
  g_clear_pointer (&self->offsets, g_array_unref);
  _sl_window_reload_merged (self);
  gtk_window_destroy (dialog);
}

static GtkWidget *
offsets_dialog_new (SlWindow *self)
{
  GtkWidget *dialog = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *intro = gtk_label_new (self->compare
                                      ? "Where each trace's own time 0 lies on the common axis, "
                                        "in milliseconds. The Comparison page's step puts them "
                                        "back on a step."
                                      : "Where each trace's own time 0 lies on the common axis, "
                                        "in milliseconds: for clocks that disagree. From Wall "
                                        "Clocks puts them back as their clocks say.");
  GtkWidget *reset = gtk_button_new_with_mnemonic (self->compare ? "_Step Alignment"
                                                                 : "From _Wall Clocks");
  GtkWidget *apply = gtk_button_new_with_mnemonic ("_Apply");
  OffsetsDialog *d = g_new0 (OffsetsDialog, 1);
  guint n = sl_trace_get_n_sources (self->trace);

  d->window = self;
  d->spins = g_ptr_array_new ();
  gtk_window_set_title (GTK_WINDOW (dialog), "Trace Offsets");
  gtk_window_set_transient_for (GTK_WINDOW (dialog), GTK_WINDOW (self));
  gtk_window_set_modal (GTK_WINDOW (dialog), TRUE);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  g_object_set (box, "margin-start", 18, "margin-end", 18, "margin-top", 18, "margin-bottom", 18,
                NULL);
  gtk_label_set_wrap (GTK_LABEL (intro), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (intro), 50);
  gtk_label_set_xalign (GTK_LABEL (intro), 0);
  gtk_box_append (GTK_BOX (box), intro);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  for (guint i = 0; i < n; i++)
    {
      const SlSource *src = sl_trace_get_source (self->trace, i);
      GtkWidget *label = gtk_label_new (src->label);
      GtkWidget *spin = gtk_spin_button_new_with_range (-1e12, 1e12, 1);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_set_tooltip_text (label, src->path);
      gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), 6); /* ns: no drift on Apply */
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), (double) src->offset / 1e6);
      gtk_widget_set_hexpand (spin, TRUE);
      gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      src->label, -1);
      gtk_grid_attach (GTK_GRID (grid), label, 0, (int) i, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), spin, 1, (int) i, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), gtk_label_new ("ms"), 2, (int) i, 1, 1);
      g_ptr_array_add (d->spins, spin);
    }
  gtk_box_append (GTK_BOX (box), grid);
  gtk_widget_set_halign (buttons, GTK_ALIGN_END);
  gtk_widget_add_css_class (apply, "suggested-action");
  gtk_widget_set_name (apply, "apply");
  gtk_box_append (GTK_BOX (buttons), reset);
  gtk_box_append (GTK_BOX (buttons), apply);
  gtk_box_append (GTK_BOX (box), buttons);
  gtk_window_set_child (GTK_WINDOW (dialog), box);
  g_object_set_data_full (G_OBJECT (dialog), "sl-offsets", d, offsets_dialog_free);
  g_signal_connect (apply, "clicked", G_CALLBACK (offsets_apply_cb), dialog);
  g_signal_connect (reset, "clicked", G_CALLBACK (offsets_reset_cb), dialog);
  gtk_window_set_default_widget (GTK_WINDOW (dialog), apply);
  return dialog;
}

GtkWidget *
sl_window_show_offsets_dialog (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  if (self->trace == NULL || self->merged == NULL || self->cancellable != NULL)
    return NULL;
  GtkWidget *dialog = offsets_dialog_new (self);
  gtk_window_present (GTK_WINDOW (dialog));
  return dialog;
}

static void
compare_action_cb (GtkWidget  *widget,
                   const char *action,
                   GVariant   *param)
{
  SlWindow *self = SL_WINDOW (widget);

  (void) param;
  if (g_str_equal (action, "win.compare"))
    sl_window_show_compare_dialog (self);
  else if (g_str_equal (action, "win.trace-offsets"))
    sl_window_show_offsets_dialog (self);
}

void
_sl_window_compare_update (SlWindow *self)
{
  gboolean shown = self->trace != NULL && self->cancellable == NULL && self->recording == NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compare", shown && self->file != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.trace-offsets",
                                 shown && self->merged != NULL);
}

void
_sl_window_compare_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.compare", NULL, compare_action_cb);
  gtk_widget_class_install_action (widget_class, "win.trace-offsets", NULL, compare_action_cb);
}

void
_sl_window_compare_init (SlWindow *self)
{
  GtkWidget *label = gtk_label_new_with_mnemonic ("C_omparison");

  self->diff = sl_diff_panel_new ();
  gtk_notebook_append_page (GTK_NOTEBOOK (self->bottom), self->diff, label);
  gtk_widget_set_visible (self->diff, FALSE);
  g_signal_connect (self->diff, "align-step", G_CALLBACK (align_step_cb), self);
  g_signal_connect (self->timeline, "align-on-name", G_CALLBACK (align_on_name_cb), self);
  _sl_window_compare_update (self);
}

/* ---- for tests ------------------------------------------------------------------------------ */

GtkWidget *
sl_window_get_diff_panel (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->diff;
}
