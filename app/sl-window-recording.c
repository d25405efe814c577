/* sl-window-recording.c: File → Record… in the window: the record dialog, the live timeline
 * brought up to date every LIVE_MS while the program runs (the rows committed since appended),
 * its output in a pane, the Stop question, and the complete trace loaded afresh at the end. */
#include "sl-window-private.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sl-cpu-util.h"
#include "sl-detail-pane.h"
#include "sl-format.h"
#include "sl-record-dialog.h"
#include "sl-timeline-view.h"

#define LIVE_MS 500
/* How much lower than the window's the live loads' priority is (nice, per thread): an append
 * over tens of millions of events takes seconds of CPU while the program, the daemon and the
 * window's frames want it too, and of those the live view matters least. */
#define LIVE_NICE 5

static void
set_recording_status (SlWindow   *self,
                      const char *text)
{
  g_free (self->recording_status);
  self->recording_status = g_strdup (text);
  gtk_label_set_text (GTK_LABEL (self->status_right), text != NULL ? text : "");
  gtk_label_set_text (GTK_LABEL (self->loading_label), text != NULL ? text : "");
}

/* What a live load starts from: the file, and the trace on screen, which it continues. */
typedef struct
{
  char    *path;
  SlTrace *prev;   /* NULL for the first load */
} LiveLoad;

static void
live_load_free (gpointer data)
{
  LiveLoad *load = data;

  g_free (load->path);
  g_clear_pointer (&load->prev, sl_trace_unref);
  g_free (load);
}

static gboolean
drop_task_cb (gpointer data)
{
  (void) data;
  return G_SOURCE_REMOVE;   /* the source's destroy notify drops the task */
}

/* The first load reads the file; each later one appends the rows committed since the trace on
 * screen was read (sl_trace_append), building a new trace on its own thread, niced by LIVE_NICE
 * (threads it starts inherit that), while the window keeps drawing the old one, which the append
 * only reads: the main thread swaps them in live_show.  Its own thread, not GTask's pool: a
 * thread's priority cannot be raised again, and the pool's threads serve the window's other
 * work.  It lets go of the old trace before returning, so that the window's is the last. */
static gpointer
live_load_thread (gpointer data)
{
  GTask *task = data;
  LiveLoad *load = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  GError *error = NULL;
  pid_t tid = gettid ();

  errno = 0;
  int nice = getpriority (PRIO_PROCESS, (id_t) tid);
  if (errno == 0)
    setpriority (PRIO_PROCESS, (id_t) tid, MIN (nice + LIVE_NICE, 19));
  SlTrace *trace = load->prev != NULL
                   ? sl_trace_append (load->prev, cancellable, &error)
                   : sl_trace_load (load->path, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL,
                                    cancellable, &error);
  g_clear_pointer (&load->prev, sl_trace_unref);
  if (trace == NULL)
    g_task_return_error (task, error);
  else
    {
      sl_cpu_util_get (trace);   /* the timeline's rows need it: built here, not at the swap */
      g_task_return_pointer (task, trace, (GDestroyNotify) sl_trace_unref);
    }
  /* the window may have dropped its references already (live_done_cb ran): this one can be the
   * last, and with it the task's own of the window, whose last must go on the main thread */
  GSource *drop = g_idle_source_new ();
  g_source_set_callback (drop, drop_task_cb, task, g_object_unref);
  g_source_attach (drop, g_task_get_context (task));
  g_source_unref (drop);
  return NULL;
}

/* A newer state of the recording: shown in place.  The view follows the end, as a terminal does,
 * unless the person has looked elsewhere: the whole trace stays the whole trace, a window at the
 * end slides with it, any other window stays put. */
static void
live_show (SlWindow *self,
           SlTrace  *trace)
{
  SlTime old_start = 0, old_end = 0, t0 = 0, t1 = 0, start, end;
  gboolean first = self->trace == NULL;
  SlViewport *vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (self->timeline));
  gint64 swap_start = g_get_monotonic_time ();

  if (!first)
    {
      sl_viewport_get_bounds (vp, &old_start, &old_end);
      sl_viewport_get_visible (vp, &t0, &t1);
    }
  SlTrace *old = g_steal_pointer (&self->trace);
  self->trace = trace;
  /* what the person did (groups collapsed, scrolled, a range or an event selected) stays */
  sl_timeline_view_continue_trace (SL_TIMELINE_VIEW (self->timeline), self->trace);
  sl_detail_pane_set_trace (SL_DETAIL_PANE (self->detail), self->trace);
  sl_detail_pane_set_event (SL_DETAIL_PANE (self->detail),
                            sl_timeline_view_get_selected_event (SL_TIMELINE_VIEW (self->timeline)));
  _sl_window_drop_trace (old);
  sl_viewport_get_bounds (vp, &start, &end);
  if (!first)
    {
      SlTime slack = MAX ((t1 - t0) / 100, 1);
      if (t0 <= old_start + slack && t1 >= old_end - slack)
        sl_viewport_set_visible (vp, start, end, FALSE);
      else if (t1 >= old_end - slack)
        sl_viewport_set_visible (vp, MAX (end - (t1 - t0), start), end, FALSE);
      else
        sl_viewport_set_visible (vp, t0, t1, FALSE);
    }
  if (first)
    {
      _sl_window_watch_viewport (self);
      _sl_window_show_page (self, "trace");
    }
  self->n_live++;
  self->live_swap_max_us = MAX (self->live_swap_max_us, g_get_monotonic_time () - swap_start);
  _sl_window_update_status (self);
  gtk_label_set_text (GTK_LABEL (self->status_right),
                      self->recording_status != NULL ? self->recording_status : "");
}

static void
live_done_cb (GObject      *source,
              GAsyncResult *res,
              gpointer      user_data)
{
  SlWindow *self = SL_WINDOW (source);
  g_autoptr (GError) error = NULL;
  SlTrace *trace = g_task_propagate_pointer (G_TASK (res), &error);

  (void) user_data;
  g_clear_object (&self->live_cancellable);
  /* a load that failed (the file not written yet, a commit in the way) is tried again at the next
   * tick; one that lands after the recording ended is dropped: the final load follows */
  if (trace != NULL && self->recording != NULL && sl_recording_is_running (self->recording))
    live_show (self, trace);
  else
    _sl_window_drop_trace (trace);
}

static gboolean
live_tick_cb (gpointer data)
{
  SlWindow *self = data;
  GTask *task;

  if (self->recording == NULL || !sl_recording_is_running (self->recording))
    {
      self->live_timer = 0;
      return G_SOURCE_REMOVE;
    }
  if (self->live_cancellable != NULL
      || !g_file_test (sl_recording_get_output (self->recording), G_FILE_TEST_EXISTS))
    return G_SOURCE_CONTINUE;
  self->live_cancellable = g_cancellable_new ();
  task = g_task_new (self, self->live_cancellable, live_done_cb, NULL);
  LiveLoad *load = g_new0 (LiveLoad, 1);
  load->path = g_strdup (sl_recording_get_output (self->recording));
  /* during a recording the window's trace is the last live state (it starts empty) */
  if (self->n_live > 0 && self->trace != NULL && !self->live_whole)
    load->prev = sl_trace_ref (self->trace);
  g_task_set_task_data (task, load, live_load_free);
  GThread *thread = g_thread_try_new ("sl-live-load", live_load_thread, task, NULL);
  if (thread != NULL)
    g_thread_unref (thread);
  else
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "no thread for a live load");
      g_object_unref (task);
    }
  return G_SOURCE_CONTINUE;
}

static void
recording_output_cb (SlRecording *recording,
                     const char  *text,
                     gpointer     data)
{
  SlWindow *self = data;
  GtkTextBuffer *b = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->output_view));
  GtkTextIter end;

  (void) recording;
  gtk_text_buffer_get_end_iter (b, &end);
  gtk_text_buffer_insert (b, &end, text, -1);
  gtk_widget_set_visible (self->output_box, TRUE);
  /* keep the newest output in view */
  gtk_text_buffer_get_end_iter (b, &end);
  gtk_text_view_scroll_to_iter (GTK_TEXT_VIEW (self->output_view), &end, 0, FALSE, 0, 1);
}

static void
recording_started_cb (SlRecording *recording,
                      int          pid,
                      gpointer     data)
{
  SlWindow *self = data;
  g_autofree char *text = g_strdup_printf ("Recording (pid %d)…", pid);

  (void) recording;
  set_recording_status (self, text);
  if (self->live_timer == 0)
    self->live_timer = g_timeout_add (LIVE_MS, live_tick_cb, self);
}

static void
recording_progress_cb (SlRecording *recording,
                       guint64      elapsed,
                       guint64      events,
                       gpointer     data)
{
  SlWindow *self = data;
  g_autofree char *d = sl_format_duration ((SlTime) elapsed);
  g_autofree char *text = g_strdup_printf ("Recording: %s, %" G_GUINT64_FORMAT " events", d, events);

  (void) recording;
  set_recording_status (self, text);
}

static void
recording_exited_cb (SlRecording *recording,
                     int          status,
                     gpointer     data)
{
  SlWindow *self = data;
  g_autofree char *text = NULL;

  (void) recording;
  if (WIFSIGNALED (status))
    text = g_strdup_printf ("\nsightline: the program ended on signal %d (%s)\n", WTERMSIG (status),
                            g_strsignal (WTERMSIG (status)));
  else
    text = g_strdup_printf ("\nsightline: the program exited with status %d\n",
                            WEXITSTATUS (status));
  recording_output_cb (recording, text, self);
  set_recording_status (self, "Finishing the trace…");
}

static void
recording_finished_cb (SlRecording *recording,
                       guint64      events,
                       guint64      dropped,
                       const char  *error,
                       gpointer     data)
{
  SlWindow *self = data;
  g_autoptr (GFile) file = g_file_new_for_path (sl_recording_get_output (recording));
  g_autoptr (SlRecording) done = g_object_ref (recording);
  gboolean exists = g_file_query_exists (file, NULL);
  g_autofree char *summary = NULL;

  g_clear_handle_id (&self->live_timer, g_source_remove);
  if (self->live_cancellable != NULL)
    g_cancellable_cancel (self->live_cancellable);
  g_signal_handlers_disconnect_by_data (done, self);
  if (error != NULL && !exists)
    {
      g_autoptr (GError) e = g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED, "%s", error);
      g_clear_object (&self->recording);
      g_clear_pointer (&self->trace, sl_trace_unref);
      gtk_widget_set_visible (self->stop_button, FALSE);
      set_recording_status (self, NULL);
      _sl_window_show_page (self, "empty");
      _sl_window_show_error (self, "Could not record the program", e);
      return;
    }
  /* the complete trace, exactly as opening the file afresh shows it (the last live state stays on
   * screen meanwhile); the window is "loading" from the moment it stops "recording" */
  g_clear_object (&self->recording);
  _sl_window_load_file (self, file, FALSE);
  gtk_widget_set_visible (self->stop_button, FALSE);
  set_recording_status (self, NULL);
  if (error != NULL)
    {
      g_autofree char *text = g_strdup_printf ("sightline: %s\n", error);
      recording_output_cb (done, text, self);
    }
  /* the daemon went away: it could not count what it wrote */
  if (error != NULL)
    summary = g_strdup_printf ("sightline: what was recorded until then is in %s\n",
                               sl_recording_get_output (done));
  else
    summary = g_strdup_printf ("sightline: %" G_GUINT64_FORMAT " events written to %s%s\n", events,
                               sl_recording_get_output (done),
                               dropped > 0 ? " (some records were lost: see SIGHTLINE_DROPPED_RECORDS)"
                                           : "");
  recording_output_cb (done, summary, self);
}

void
sl_window_stop_recording (SlWindow       *self,
                          SlRecordingStop how)
{
  g_return_if_fail (SL_IS_WINDOW (self));
  if (self->recording == NULL)
    return;
  sl_recording_stop (self->recording, how);
  if (how == SL_RECORDING_END)
    {
      /* if the program does not end on SIGINT, the button kills it */
      gtk_button_set_label (GTK_BUTTON (self->stop_button), "_Kill the Program");
      gtk_button_set_use_underline (GTK_BUTTON (self->stop_button), TRUE);
      set_recording_status (self, "Stopping the program (SIGINT)…");
    }
  else if (how == SL_RECORDING_DETACH)
    set_recording_status (self, "Finishing the trace; the program runs on…");
}

static void
stop_response_cb (GtkDialog *dialog,
                  int        response,
                  gpointer   data)
{
  SlWindow *self = data;

  gtk_window_destroy (GTK_WINDOW (dialog));
  if (response == SL_RECORDING_END || response == SL_RECORDING_DETACH)
    sl_window_stop_recording (self, (SlRecordingStop) response);
}

/* Stop: ask whether the program ends too (SIGINT) or runs on unrecorded; once it was asked to
 * end, the button kills it. */
void
_sl_window_stop_clicked_cb (GtkButton *button,
                            SlWindow  *self)
{
  GtkWidget *dialog;

  if (self->recording == NULL)
    return;
  if (g_strcmp0 (gtk_button_get_label (button), "_Kill the Program") == 0)
    {
      sl_window_stop_recording (self, SL_RECORDING_KILL);
      return;
    }
  dialog = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE,
                                   "Stop recording?");
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog),
                                            "The program can end now (it gets SIGINT, as from "
                                            "Ctrl+C) or go on running without being recorded. "
                                            "Either way the trace keeps what was recorded.");
  gtk_dialog_add_buttons (GTK_DIALOG (dialog), "_Cancel", GTK_RESPONSE_CANCEL,
                          "_Leave It Running", SL_RECORDING_DETACH, "_End the Program",
                          SL_RECORDING_END, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), SL_RECORDING_END);
  g_signal_connect (dialog, "response", G_CALLBACK (stop_response_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

gboolean
sl_window_record (SlWindow               *self,
                  const SlRecordSettings *settings,
                  GError                **error)
{
  g_autoptr (SlRecording) recording = NULL;
  g_autofree char *base = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (SL_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (!sl_window_is_busy (self), FALSE);

  recording = sl_recording_new (settings);
  g_signal_connect (recording, "output", G_CALLBACK (recording_output_cb), self);
  g_signal_connect (recording, "started", G_CALLBACK (recording_started_cb), self);
  g_signal_connect (recording, "progress", G_CALLBACK (recording_progress_cb), self);
  g_signal_connect (recording, "exited", G_CALLBACK (recording_exited_cb), self);
  g_signal_connect (recording, "finished", G_CALLBACK (recording_finished_cb), self);
  if (!sl_recording_start (recording, error))
    return FALSE;
  self->recording = g_steal_pointer (&recording);
  self->n_live = 0;
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->output_view)), "", -1);
  base = g_path_get_basename (settings->output);
  gtk_label_set_text (GTK_LABEL (self->title), base);
  text = g_strdup_printf ("Starting %s…", settings->program);
  set_recording_status (self, text);
  gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), 0);
  gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress), "Waiting for the first events");
  gtk_button_set_label (GTK_BUTTON (self->stop_button), "_Stop Recording");
  gtk_button_set_use_underline (GTK_BUTTON (self->stop_button), TRUE);
  gtk_widget_set_visible (self->stop_button, TRUE);
  _sl_window_show_page (self, "loading");
  return TRUE;
}

static void
dialog_record_cb (SlRecordDialog   *dialog,
                  SlRecordSettings *settings,
                  gpointer          data)
{
  SlWindow *self = data;
  SlWindow *target = self;
  g_autoptr (GError) error = NULL;

  (void) dialog;
  if (sl_window_is_busy (self))
    {
      /* one window per trace: a new recording gets a new window */
      target = sl_window_new (SL_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
      gtk_window_present (GTK_WINDOW (target));
    }
  if (!sl_window_record (target, settings, &error))
    _sl_window_show_error (target, "Could not start the recording", error);
}

SlRecordDialog *
sl_window_show_record_dialog (SlWindow *self)
{
  SlRecordDialog *dialog;

  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  dialog = sl_record_dialog_new (GTK_WINDOW (self));
  g_signal_connect_object (dialog, "record", G_CALLBACK (dialog_record_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  return dialog;
}

void
_sl_window_recording_dispose (SlWindow *self)
{
  g_clear_handle_id (&self->live_timer, g_source_remove);
  if (self->live_cancellable != NULL)
    g_cancellable_cancel (self->live_cancellable);
  if (self->recording != NULL)
    {
      /* the window goes: the program is ended and the trace kept, as with Stop */
      g_signal_handlers_disconnect_by_data (self->recording, self);
      sl_recording_stop (self->recording, SL_RECORDING_END);
      g_clear_object (&self->recording);
    }
}

gboolean
sl_window_is_recording (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), FALSE);
  return self->recording != NULL;
}

void
sl_window_set_live_whole (SlWindow *self,
                          gboolean  whole)
{
  g_return_if_fail (SL_IS_WINDOW (self));
  self->live_whole = whole;
}

gint64
sl_window_get_live_swap_max (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), 0);
  return self->live_swap_max_us;
}

guint
sl_window_get_n_live_updates (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), 0);
  return self->n_live;
}

char *
sl_window_get_output_text (SlWindow *self)
{
  GtkTextBuffer *b;
  GtkTextIter start, end;

  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  b = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->output_view));
  gtk_text_buffer_get_bounds (b, &start, &end);
  return gtk_text_buffer_get_text (b, &start, &end, FALSE);
}

const char *
sl_window_get_recording_status (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->recording_status;
}
