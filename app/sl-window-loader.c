/* sl-window-loader.c: loading a trace into the window off the main thread (GTask): progress,
 * cancelling, errors, then the statistics and findings on a thread of their own; the Open dialog. */
#include "sl-window-private.h"

#include "sl-detail-pane.h"
#include "sl-findings-panel.h"
#include "sl-stats-panel.h"
#include "sl-stats.h"
#include "sl-timeline-view.h"

/* What the loading thread hands back. */
typedef struct
{
  SlTrace    *trace;
  GPtrArray  *reports;
  SlAnalysis *analysis;
} LoadResult;

/* Shared by the loading threads (never concurrently, says sl_trace_load) and the task. */
typedef struct
{
  char     *path;
  GWeakRef  window;
  double    last_fraction;
  char     *last_what;
} LoadData;

typedef struct
{
  GWeakRef window;
  double   fraction;
  char    *what;
} Progress;


static void
load_result_free (gpointer data)
{
  LoadResult *r = data;

  g_clear_pointer (&r->trace, sl_trace_unref);
  if (r->reports != NULL)
    {
      for (guint i = 0; i < r->reports->len; i++)
        g_clear_pointer (&r->reports->pdata[i], sl_report_free);
      g_ptr_array_unref (r->reports);
    }
  g_clear_pointer (&r->analysis, sl_analysis_free);
  g_free (r);
}

static void
load_data_free (gpointer data)
{
  LoadData *d = data;

  g_free (d->path);
  g_free (d->last_what);
  g_weak_ref_clear (&d->window);
  g_free (d);
}

static gboolean
progress_idle_cb (gpointer data)
{
  Progress *p = data;
  g_autoptr (SlWindow) self = g_weak_ref_get (&p->window);

  if (self != NULL && self->cancellable != NULL)
    {
      gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), p->fraction);
      gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress), p->what);
    }
  return G_SOURCE_REMOVE;
}

static void
progress_free (gpointer data)
{
  Progress *p = data;

  g_weak_ref_clear (&p->window);
  g_free (p->what);
  g_free (p);
}

/* Called from the loading threads up to every 65536 rows: pass on only what a person can see
 * (a change of 1 % or of the text), so the main loop gets ~100 updates, not one per batch. */
static void
load_progress_cb (double      fraction,
                  const char *what,
                  gpointer    user_data)
{
  LoadData *d = user_data;
  g_autoptr (GObject) window = NULL;
  Progress *p;

  if (fraction - d->last_fraction < 0.01 && g_strcmp0 (what, d->last_what) == 0)
    return;
  d->last_fraction = fraction;
  g_free (d->last_what);
  d->last_what = g_strdup (what);
  window = g_weak_ref_get (&d->window);
  if (window == NULL)
    return;
  p = g_new0 (Progress, 1);
  g_weak_ref_init (&p->window, window);
  p->fraction = fraction;
  p->what = g_strdup (what);
  g_main_context_invoke_full (NULL, G_PRIORITY_DEFAULT, progress_idle_cb, p, progress_free);
}

static void
load_thread_cb (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  LoadData *d = task_data;
  GError *error = NULL;
  LoadResult *result;
  SlTrace *trace;

  (void) source_object;
  trace = sl_trace_load (d->path, SL_LOAD_ALL, load_progress_cb, d, cancellable, &error);
  if (trace == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  result = g_new0 (LoadResult, 1);
  result->trace = trace;
  if (g_task_return_error_if_cancelled (task))
    {
      load_result_free (result);
      return;
    }
  g_task_return_pointer (task, result, load_result_free);
}

/* Reports and findings over the whole trace cost seconds on 10^7 events: they are computed after
 * the timeline is on screen, on a thread of their own. */
static void
reports_thread_cb (GTask        *task,
                   gpointer      source_object,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  LoadResult *result = g_new0 (LoadResult, 1);

  (void) source_object;
  (void) cancellable;
  result->trace = sl_trace_ref (task_data);
  result->reports = sl_stats_panel_compute_reports (result->trace);
  result->analysis = sl_analyze (result->trace, NULL, NULL, NULL);
  g_task_return_pointer (task, result, load_result_free);
}

static void
reports_done_cb (GObject      *source,
                 GAsyncResult *res,
                 gpointer      user_data)
{
  SlWindow *self = SL_WINDOW (source);
  LoadResult *result = g_task_propagate_pointer (G_TASK (res), NULL);

  (void) user_data;
  /* another trace may have been opened in this window meanwhile, or the window closed */
  if (result != NULL && result->trace == self->trace && !self->disposed)
    {
      sl_stats_panel_set_timeline (SL_STATS_PANEL (self->stats), SL_TIMELINE_VIEW (self->timeline),
                                   g_steal_pointer (&result->reports));
      sl_findings_panel_set_analysis (SL_FINDINGS_PANEL (self->findings),
                                      SL_TIMELINE_VIEW (self->timeline),
                                      g_steal_pointer (&result->analysis));
      _sl_window_emit_load_finished (self, TRUE);
    }
  g_clear_pointer (&result, load_result_free);
}

/* SIGHTLINE_BENCH_FIRST_FRAME=1 (bench/bench-open): print when the first frame of a loaded trace
 * was painted, counted from sl_window_open(), then quit. */
static gint64 bench_open_time;

static void
bench_after_paint_cb (GdkFrameClock *clock,
                      gpointer       user_data)
{
  SlWindow *self = user_data;

  g_signal_handlers_disconnect_by_func (clock, bench_after_paint_cb, self);
  g_print ("first-frame-ms %.1f\n", (g_get_monotonic_time () - bench_open_time) / 1e3);
  g_application_quit (G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
}

static void
show_trace (SlWindow   *self,
            LoadResult *result)
{
  g_autofree char *base = g_file_get_basename (self->file);
  g_autofree char *uri = g_file_get_uri (self->file);
  GtkRecentData recent = {
    .display_name = base,
    .mime_type = (char *) "application/vnd.sqlite3",
    .app_name = (char *) "sightline",
    .app_exec = (char *) "sightline %f",
  };

  g_clear_pointer (&self->trace, sl_trace_unref);
  self->trace = g_steal_pointer (&result->trace);
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (self->timeline), self->trace);
  sl_detail_pane_set_trace (SL_DETAIL_PANE (self->detail), self->trace);
  sl_findings_panel_set_analysis (SL_FINDINGS_PANEL (self->findings),
                                  SL_TIMELINE_VIEW (self->timeline), NULL);
  g_autoptr (GTask) reports = g_task_new (self, NULL, reports_done_cb, NULL);
  g_task_set_task_data (reports, sl_trace_ref (self->trace), (GDestroyNotify) sl_trace_unref);
  g_task_run_in_thread (reports, reports_thread_cb);
  if (g_getenv ("SIGHTLINE_BENCH_FIRST_FRAME") != NULL)
    {
      GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
      if (clock != NULL)
        g_signal_connect (clock, "after-paint", G_CALLBACK (bench_after_paint_cb), self);
    }
  _sl_window_watch_viewport (self);
  gtk_label_set_text (GTK_LABEL (self->title), base);
  gtk_widget_set_tooltip_text (self->title, sl_trace_get_path (self->trace));
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &recent);
  _sl_window_show_page (self, "trace");
  _sl_window_update_status (self);
  gtk_widget_grab_focus (self->timeline);
}

static void
load_done_cb (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  SlWindow *self = SL_WINDOW (source);
  g_autoptr (GError) error = NULL;
  LoadResult *result = g_task_propagate_pointer (G_TASK (res), &error);

  (void) user_data;
  g_clear_object (&self->cancellable);
  if (self->disposed)
    {
      g_clear_pointer (&result, load_result_free);
      return;
    }
  if (result == NULL)
    {
      g_clear_object (&self->file);
      _sl_window_show_page (self, "empty");
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _sl_window_show_error (self, "Could not open the trace", error);
      _sl_window_emit_load_finished (self, FALSE);
      return;
    }
  show_trace (self, result);
  load_result_free (result);
  /* "load-finished" (TRUE) follows when the stats tables are in too: reports_done_cb */
}

void
sl_window_open (SlWindow *self,
                GFile    *file)
{
  g_return_if_fail (SL_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  if (sl_window_is_busy (self))
    {
      GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
      if (SL_IS_APPLICATION (app))
        sl_application_open_file (SL_APPLICATION (app), file);
      return;
    }
  _sl_window_load_file (self, file, TRUE);
}

void
_sl_window_load_file (SlWindow *self,
                      GFile    *file,
                      gboolean  show_loading)
{
  g_autoptr (GTask) task = NULL;
  g_autofree char *base = NULL;
  g_autofree char *text = NULL;
  LoadData *d;

  g_set_object (&self->file, file);
  self->cancellable = g_cancellable_new ();
  bench_open_time = g_get_monotonic_time ();
  base = g_file_get_basename (file);
  text = g_strdup_printf ("Loading %s…", base);
  gtk_label_set_text (GTK_LABEL (self->loading_label), text);
  gtk_label_set_text (GTK_LABEL (self->title), base);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), 0);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress), "Opening");
  if (show_loading || self->trace == NULL)
    _sl_window_show_page (self, "loading");

  d = g_new0 (LoadData, 1);
  d->path = g_file_get_path (file);
  if (d->path == NULL)
    d->path = g_file_get_uri (file);  /* the model says it cannot open it, naming it */
  d->last_fraction = -1;
  g_weak_ref_init (&d->window, self);
  task = g_task_new (self, self->cancellable, load_done_cb, NULL);
  g_task_set_source_tag (task, sl_window_open);
  g_task_set_task_data (task, d, load_data_free);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, load_thread_cb);
}

void
sl_window_cancel_load (SlWindow *self)
{
  g_return_if_fail (SL_IS_WINDOW (self));
  if (self->cancellable != NULL)
    {
      g_cancellable_cancel (self->cancellable);
      gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress), "Cancelling");
    }
}

static void
chooser_response_cb (GtkNativeDialog *dialog,
                     int              response,
                     SlWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      if (file != NULL)
        sl_window_open (self, file);
    }
  g_clear_object (&self->chooser);
}

void
sl_window_show_open_dialog (SlWindow *self)
{
  GtkFileFilter *traces = gtk_file_filter_new ();
  GtkFileFilter *all = gtk_file_filter_new ();

  g_return_if_fail (SL_IS_WINDOW (self));
  if (self->chooser != NULL)
    {
      gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
      return;
    }
  self->chooser = gtk_file_chooser_native_new ("Open a Trace", GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
  gtk_file_filter_set_name (traces, "Traces (*.sqlite)");
  gtk_file_filter_add_pattern (traces, "*.sqlite");
  gtk_file_filter_set_name (all, "All files");
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), traces);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), all);
  gtk_file_chooser_set_filter (GTK_FILE_CHOOSER (self->chooser), traces);
  g_object_unref (traces);
  g_object_unref (all);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (chooser_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}
