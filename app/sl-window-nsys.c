/* sl-window-nsys.c: an Nsight Systems report opened in the viewer (.nsys-rep, .qdrep): a dialog
 * that says what the file is and the command that exports it, and where nsys is on PATH a button
 * that runs the export and opens the SQLite file it writes.  The export takes seconds to minutes
 * (8.9 s for a 5-minute H100 run): it runs on a thread of its own, the loading page shown. */
#include "sl-window-private.h"

#include "sl-nsys-report.h"

enum
{
  RESPONSE_EXPORT = 1,
};

typedef struct
{
  char *report;
  char *out;     /* FILE.sqlite beside it, where `nsys export` and `nsys stats` put it */
} ExportJob;

static void
export_job_free (gpointer data)
{
  ExportJob *job = data;

  g_free (job->report);
  g_free (job->out);
  g_free (job);
}

static void
export_thread (GTask        *task,
               gpointer      source,
               gpointer      data,
               GCancellable *cancellable)
{
  ExportJob *job = data;
  GError *error = NULL;

  (void) source;
  (void) cancellable;
  if (sl_nsys_report_export (job->report, job->out, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
export_done_cb (GObject      *source,
                GAsyncResult *res,
                gpointer      user_data)
{
  SlWindow *self = SL_WINDOW (source);
  ExportJob *job = g_task_get_task_data (G_TASK (res));
  g_autoptr (GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (res), &error);
  /* Stop on the loading page: at once, nsys left to finish on its thread, its file not opened */
  gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  (void) user_data;
  g_clear_object (&self->cancellable);
  if (self->disposed)
    return;
  if (!ok || cancelled)
    {
      _sl_window_show_page (self, "empty");
      if (!cancelled)
        _sl_window_show_error (self, "Could not export the report", error);
      _sl_window_emit_load_finished (self, FALSE);
      return;
    }
  g_autoptr (GFile) file = g_file_new_for_path (job->out);
  sl_window_open (self, file);
}

static void
export_start (SlWindow   *self,
              const char *report)
{
  ExportJob *job = g_new0 (ExportJob, 1);
  g_autoptr (GTask) task = NULL;
  g_autofree char *base = g_path_get_basename (report);
  g_autofree char *text = g_strdup_printf ("Exporting %s with nsys…", base);

  job->report = g_strdup (report);
  job->out = sl_nsys_report_sqlite_path (report);
  /* the window is busy, as while loading: another file opens in another window */
  self->cancellable = g_cancellable_new ();
  gtk_label_set_text (GTK_LABEL (self->loading_label), text);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), 0);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress), "nsys export --type sqlite");
  _sl_window_show_page (self, "loading");
  task = g_task_new (self, self->cancellable, export_done_cb, NULL);
  g_task_set_source_tag (task, export_start);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_set_task_data (task, job, export_job_free);
  g_task_run_in_thread (task, export_thread);
}

/* Whether a window of the application other than `self` is open. */
static void
response_cb (GtkDialog *dialog,
             int        response,
             SlWindow  *self)
{
  g_autofree char *report = g_strdup (g_object_get_data (G_OBJECT (dialog), "sl-report"));

  gtk_window_destroy (GTK_WINDOW (dialog));
  self->error_dialog = NULL;
  if (response == RESPONSE_EXPORT)
    export_start (self, report);
  /* as for any file that could not be opened: an empty window goes when others are open */
  else
    _sl_window_close_if_empty (self);
}

void
_sl_window_show_nsys_report (SlWindow     *self,
                             const char   *report,
                             const GError *error)
{
  g_autofree char *nsys = sl_nsys_find ();
  g_autofree char *out = sl_nsys_report_sqlite_path (report);
  g_autofree char *out_base = g_path_get_basename (out);
  GtkWidget *dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                              GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                              nsys != NULL ? GTK_MESSAGE_QUESTION
                                                           : GTK_MESSAGE_INFO,
                                              GTK_BUTTONS_NONE,
                                              "This is an Nsight Systems report");

  /* the model's message names the file and the command; then what to do here */
  if (nsys != NULL)
    gtk_message_dialog_format_secondary_text (
      GTK_MESSAGE_DIALOG (dialog),
      "%s\n\nnsys is installed (%s): Sightline can run the export and open %s.", error->message,
      nsys, out_base);
  else
    gtk_message_dialog_format_secondary_text (
      GTK_MESSAGE_DIALOG (dialog),
      "%s\n\nnsys is not on PATH: run that command where Nsight Systems is installed, then open "
      "%s.", error->message, out_base);
  gtk_dialog_add_button (GTK_DIALOG (dialog), "_Close", GTK_RESPONSE_CLOSE);
  if (nsys != NULL)
    {
      gtk_dialog_add_button (GTK_DIALOG (dialog), "_Export with nsys", RESPONSE_EXPORT);
      gtk_dialog_set_default_response (GTK_DIALOG (dialog), RESPONSE_EXPORT);
    }
  gtk_window_set_title (GTK_WINDOW (dialog), "An Nsight Systems report");
  g_object_set_data_full (G_OBJECT (dialog), "sl-report", g_strdup (report), g_free);
  g_signal_connect (dialog, "response", G_CALLBACK (response_cb), self);
  if (self->error_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->error_dialog));
  self->error_dialog = dialog;
  gtk_window_present (GTK_WINDOW (dialog));
}
