/* sl-trace-info.c: About this Trace (data/ui/sl-trace-info.ui): the trace's span and events, its
 * GPUs and their limits, then what model/sl-inventory.c says of the file: every table with its
 * rows, how many were loaded and why the rest were not, nsys's diagnostics and lost records.
 *
 * The inventory counts the rows of the tables the loader did not read with SQL (an nsys export
 * has 40 … 90 tables; an unread one can hold millions of rows), so it runs on a thread; the
 * page says so until it is in.
 */
#include "sl-trace-info-private.h"

#include "sl-format.h"
#include "sl-inventory.h"

/* A file with more diagnostics than this shows the first ones and a count. */
#define MAX_DIAGNOSTICS_SHOWN 200

struct _SlTraceInfo
{
  GtkWindow     parent_instance;

  GtkWidget    *summary;
  GtkWidget    *gpus;
  GtkWidget    *status;
  GtkWidget    *tables;
  GtkWidget    *diagnostics;
  GtkWidget    *lost;
  GtkWidget    *copy;

  SlTrace      *trace;
  GString      *report;       /* the page as text, for Copy */
  GCancellable *cancellable;
  guint         n_tables;
};

G_DEFINE_FINAL_TYPE (SlTraceInfo, sl_trace_info, GTK_TYPE_WINDOW)

static void
show_summary (SlTraceInfo *self)
{
  SlTrace *trace = self->trace;
  SlTime t0 = sl_trace_get_start (trace), t1 = sl_trace_get_end (trace);
  g_autofree char *span = sl_format_duration (t1 - t0);
  g_autofree char *events = sl_format_int ((gint64) sl_trace_get_n_events (trace));
  g_autofree char *text = g_strdup_printf (
      "File: %s\nSchema: %s\nTime span: %s (%" G_GINT64_FORMAT " … %" G_GINT64_FORMAT " ns)\n"
      "Events: %s in %u lanes · %u processes · %u threads",
      sl_trace_get_path (trace), sl_trace_get_schema (trace), span, t0, t1, events,
      sl_trace_get_n_lanes (trace), sl_trace_get_n_processes (trace),
      sl_trace_get_n_threads (trace));

  gtk_label_set_text (GTK_LABEL (self->summary), text);
  g_string_append_printf (self->report, "%s\n", text);
}

static void
show_gpus (SlTraceInfo *self)
{
  SlTrace *trace = self->trace;
  g_autoptr (GString) text = g_string_new (NULL);

  for (guint i = 0; i < sl_trace_get_n_gpus (trace); i++)
    {
      const SlGpu *gpu = sl_trace_get_gpu (trace, i);
      const SlGpuLimits *l = &gpu->limits;

      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append_printf (text, "GPU %u: %s", gpu->device_id, sl_trace_str (trace, gpu->name));
      if (!gpu->described)
        g_string_append (text, " (not described in the trace)");
      if (gpu->total_memory > 0)
        g_string_append_printf (text, " · %.1f GiB", gpu->total_memory / (1024.0 * 1024 * 1024));
      if (gpu->clock_rate > 0)
        g_string_append_printf (text, " · %.0f MHz", gpu->clock_rate / 1e6);
      if (l->cc_major > 0)
        g_string_append_printf (text, "\n    compute capability %d.%d, %d SMs, %d warps/SM, "
                                      "%d blocks/SM, %d registers/SM, %d B shared/SM, "
                                      "%d B shared/block (%d opt-in), %d threads/block",
                                l->cc_major, l->cc_minor, l->sm_count, l->max_warps_per_sm,
                                l->max_blocks_per_sm, l->max_regs_per_sm, l->max_smem_per_sm,
                                l->max_smem_per_block, l->max_smem_per_block_optin,
                                l->max_threads_per_block);
      else
        g_string_append (text, "\n    compute capability unknown: occupancy cannot be computed");
    }
  gtk_label_set_text (GTK_LABEL (self->gpus), text->len > 0 ? text->str : "None in this trace.");
  g_string_append_printf (self->report, "\nGPUs\n%s\n",
                          gtk_label_get_text (GTK_LABEL (self->gpus)));
}

static GtkWidget *
cell (const char *text,
      gboolean    numeric,
      gboolean    heading)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0f : 0.0f);
  if (heading)
    gtk_widget_add_css_class (label, "heading");
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  return label;
}

static GtkWidget *
count_cell (gint64 n)
{
  g_autofree char *text = n >= 0 ? sl_format_int (n) : g_strdup ("?");
  return cell (text, TRUE, FALSE);
}

static void
show_tables (SlTraceInfo *self,
             SlInventory *inv)
{
  static const char *const headings[] = { "Table", "Rows", "Loaded", "Skipped", "Why" };
  GtkGrid *grid = GTK_GRID (self->tables);

  g_string_append (self->report, "\nTables\n");
  for (guint c = 0; c < G_N_ELEMENTS (headings); c++)
    {
      gtk_grid_attach (grid, cell (headings[c], c > 0 && c < 4, TRUE), c, 0, 1, 1);
      g_string_append_printf (self->report, "%s%c", headings[c],
                              c + 1 < G_N_ELEMENTS (headings) ? '\t' : '\n');
    }
  for (guint i = 0; i < sl_inventory_get_n_tables (inv); i++)
    {
      const SlTableInfo *t = sl_inventory_get_table (inv, i);
      GtkWidget *why = cell (t->why, FALSE, FALSE);

      gtk_label_set_wrap (GTK_LABEL (why), TRUE);
      gtk_label_set_max_width_chars (GTK_LABEL (why), 70);
      gtk_widget_set_hexpand (why, TRUE);
      if (t->state != SL_TABLE_LOADED)
        gtk_widget_add_css_class (why, "dim-label");
      gtk_grid_attach (grid, cell (t->name, FALSE, FALSE), 0, i + 1, 1, 1);
      gtk_grid_attach (grid, count_cell (t->rows), 1, i + 1, 1, 1);
      gtk_grid_attach (grid, count_cell (t->loaded), 2, i + 1, 1, 1);
      gtk_grid_attach (grid, count_cell (t->skipped), 3, i + 1, 1, 1);
      gtk_grid_attach (grid, why, 4, i + 1, 1, 1);
      g_string_append_printf (self->report,
                              "%s\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT
                              "\t%s\n",
                              t->name, t->rows, t->loaded, t->skipped, t->why);
    }
  self->n_tables = sl_inventory_get_n_tables (inv);
}

static void
show_diagnostics (SlTraceInfo *self,
                  SlInventory *inv)
{
  g_autoptr (GString) text = g_string_new (NULL);
  guint n = sl_inventory_get_n_diagnostics (inv);
  SlTime origin = sl_trace_get_origin (self->trace);

  for (guint i = 0; i < n && i < MAX_DIAGNOSTICS_SHOWN; i++)
    {
      const SlInventoryDiagnostic *d = sl_inventory_get_diagnostic (inv, i);
      g_autofree char *at = sl_format_offset (d->time - origin);
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append_printf (text, "%s  %s  %s: %s", at, d->severity, d->source, d->text);
    }
  if (n > MAX_DIAGNOSTICS_SHOWN)
    g_string_append_printf (text, "\n… %u more", n - MAX_DIAGNOSTICS_SHOWN);
  gtk_label_set_text (GTK_LABEL (self->diagnostics),
                      text->len > 0 ? text->str : "None in this file (no DIAGNOSTIC_EVENT rows).");

  g_string_truncate (text, 0);
  for (guint i = 0; i < sl_inventory_get_n_lost (inv); i++)
    {
      const SlLostRecords *l = sl_inventory_get_lost (inv, i);
      g_autofree char *count = sl_format_int (l->count);
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append_printf (text, "%s records lost (%s)", count, l->source);
    }
  gtk_label_set_text (GTK_LABEL (self->lost),
                      text->len > 0 ? text->str : "None recorded in this file.");
  g_string_append_printf (self->report,
                          "\nDiagnostics from Nsight Systems\n%s\n\nLost records\n%s\n",
                          gtk_label_get_text (GTK_LABEL (self->diagnostics)),
                          gtk_label_get_text (GTK_LABEL (self->lost)));
}

static void
copy_clicked_cb (SlTraceInfo *self)
{
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), self->report->str);
}

static void
inventory_thread (GTask        *task,
                  gpointer      source,
                  gpointer      data,
                  GCancellable *cancellable)
{
  GError *error = NULL;
  SlInventory *inv;

  (void) source;
  (void) cancellable;
  inv = sl_inventory_new (data, &error);
  if (inv == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, inv, (GDestroyNotify) sl_inventory_free);
}

static void
inventory_done_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      data)
{
  SlTraceInfo *self = SL_TRACE_INFO (source);
  g_autoptr (GError) error = NULL;
  g_autoptr (SlInventory) inv = g_task_propagate_pointer (G_TASK (result), &error);

  (void) data;
  /* closed while it read: the window's widgets are gone */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->cancellable == NULL)
    return;
  if (inv == NULL)
    {
      g_autofree char *text = g_strdup_printf ("The file's tables cannot be read: %s",
                                               error->message);
      gtk_label_set_text (GTK_LABEL (self->status), text);
      return;
    }
  gtk_widget_set_visible (self->status, FALSE);
  show_tables (self, inv);
  show_diagnostics (self, inv);
  gtk_widget_set_sensitive (self->copy, TRUE);
}

static void
sl_trace_info_dispose (GObject *object)
{
  SlTraceInfo *self = SL_TRACE_INFO (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), SL_TYPE_TRACE_INFO);
  G_OBJECT_CLASS (sl_trace_info_parent_class)->dispose (object);
}

static void
sl_trace_info_finalize (GObject *object)
{
  SlTraceInfo *self = SL_TRACE_INFO (object);

  g_clear_pointer (&self->trace, sl_trace_unref);
  g_string_free (self->report, TRUE);
  G_OBJECT_CLASS (sl_trace_info_parent_class)->finalize (object);
}

static void
sl_trace_info_class_init (SlTraceInfoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sl_trace_info_dispose;
  object_class->finalize = sl_trace_info_finalize;
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/dev/sightline/Sightline/ui/sl-trace-info.ui");
  gtk_widget_class_bind_template_child (widget_class, SlTraceInfo, summary);
  gtk_widget_class_bind_template_child (widget_class, SlTraceInfo, gpus);
  gtk_widget_class_bind_template_child (widget_class, SlTraceInfo, status);
  gtk_widget_class_bind_template_child (widget_class, SlTraceInfo, tables);
  gtk_widget_class_bind_template_child (widget_class, SlTraceInfo, diagnostics);
  gtk_widget_class_bind_template_child (widget_class, SlTraceInfo, lost);
  gtk_widget_class_bind_template_child (widget_class, SlTraceInfo, copy);
  gtk_widget_class_bind_template_callback (widget_class, copy_clicked_cb);
}

static void
sl_trace_info_init (SlTraceInfo *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->report = g_string_new (NULL);
}

SlTraceInfo *
sl_trace_info_new (GtkWindow *parent,
                   SlTrace   *trace)
{
  g_return_val_if_fail (trace != NULL, NULL);

  SlTraceInfo *self = g_object_new (SL_TYPE_TRACE_INFO, NULL);
  g_autoptr (GTask) task = NULL;

  if (parent != NULL)
    {
      gtk_window_set_transient_for (GTK_WINDOW (self), parent);
      gtk_window_set_application (GTK_WINDOW (self), gtk_window_get_application (parent));
    }
  self->trace = sl_trace_ref (trace);
  show_summary (self);
  show_gpus (self);
  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, inventory_done_cb, NULL);
  g_task_set_task_data (task, sl_trace_ref (trace), (GDestroyNotify) sl_trace_unref);
  g_task_run_in_thread (task, inventory_thread);
  return self;
}

guint
sl_trace_info_get_n_tables (SlTraceInfo *self)
{
  return self->n_tables;
}

char *
sl_trace_info_get_text (SlTraceInfo *self)
{
  return g_strdup (self->report->str);
}
