/* sl-window-loader.c: loading a trace into the window off the main thread (GTask): progress,
 * cancelling, errors, then the statistics and findings on a thread of their own; the Open dialog. */
#include "sl-window-private.h"

#include "sl-cpu-util.h"
#include "sl-detail-pane.h"
#include "sl-diff-panel.h"
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
  GPtrArray  *diffs;       /* a comparison's (SlDiff or NULL, by report) */
  char       *status;      /* how a comparison is aligned */
} LoadResult;

/* The window, weakly, as a load's messages to the main thread carry it: the loading threads pass
 * it on without ever holding the window itself (its last reference, let go there, would dispose
 * of the window off the main thread); only the main thread turns it into the window. */
typedef struct
{
  GWeakRef ref;
} WindowRef;

static WindowRef *
window_ref_new (SlWindow *window)
{
  WindowRef *w = g_atomic_rc_box_new0 (WindowRef);

  g_weak_ref_init (&w->ref, window);
  return w;
}

static void
window_ref_clear (gpointer data)
{
  WindowRef *w = data;

  g_weak_ref_clear (&w->ref);
}

static void
window_ref_release (WindowRef *w)
{
  if (w != NULL)
    g_atomic_rc_box_release_full (w, window_ref_clear);
}

/* Shared by the loading threads (never concurrently, says sl_trace_load) and the task. */
typedef struct
{
  char     *path;
  GStrv     merged;        /* the paths of merged traces, or NULL */
  SlTime   *offsets;       /* one per merged trace, or NULL */
  gboolean  compare;
  guint     align_step;
  WindowRef *window;
  GCancellable *cancellable;  /* the window's for this load */
  double    last_fraction;
  char     *last_what;
} LoadData;

typedef struct
{
  WindowRef *window;
  double     fraction;
  char      *what;
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
  if (r->diffs != NULL)
    {
      for (guint i = 0; i < r->diffs->len; i++)
        g_clear_pointer (&r->diffs->pdata[i], sl_diff_free);
      g_ptr_array_unref (r->diffs);
    }
  g_free (r->status);
  g_free (r);
}

static void
load_data_free (gpointer data)
{
  LoadData *d = data;

  g_free (d->path);
  g_strfreev (d->merged);
  g_free (d->offsets);
  g_free (d->last_what);
  window_ref_release (d->window);
  g_clear_object (&d->cancellable);
  g_free (d);
}

static gboolean
progress_idle_cb (gpointer data)
{
  Progress *p = data;
  g_autoptr (SlWindow) self = g_weak_ref_get (&p->window->ref);

  if (self != NULL && self->cancellable != NULL)
    {
      gtk_progress_bar_set_fraction (GTK_PROGRESS_BAR (self->progress), p->fraction);
      gtk_progress_bar_set_text (GTK_PROGRESS_BAR (self->progress), p->what);
      /* a first look on screen: its "Loading… N %" follows the rest of the load */
      if (sl_trace_get_loading (self->trace, NULL, NULL))
        sl_timeline_view_set_loading_fraction (SL_TIMELINE_VIEW (self->timeline), p->fraction);
    }
  return G_SOURCE_REMOVE;
}

static void
progress_free (gpointer data)
{
  Progress *p = data;

  window_ref_release (p->window);
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
  Progress *p;

  if (fraction - d->last_fraction < 0.01 && g_strcmp0 (what, d->last_what) == 0)
    return;
  d->last_fraction = fraction;
  g_free (d->last_what);
  d->last_what = g_strdup (what);
  p = g_new0 (Progress, 1);
  p->window = g_atomic_rc_box_acquire (d->window);
  p->fraction = fraction;
  p->what = g_strdup (what);
  /* queued for the main thread, never run here: g_main_context_invoke() runs the function in
   * the calling thread whenever it can take the default context, which a thread can between
   * two iterations of the main loop (tests iterate it by hand), and GTK is not thread-safe */
  g_idle_add_full (G_PRIORITY_DEFAULT, progress_idle_cb, p, progress_free);
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
bench_watch_first_frame (SlWindow *self)
{
  static gboolean watched;

  if (g_getenv ("SIGHTLINE_BENCH_FIRST_FRAME") != NULL && !watched)
    {
      GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));
      if (clock != NULL)
        {
          watched = TRUE;
          g_signal_connect (clock, "after-paint", G_CALLBACK (bench_after_paint_cb), self);
        }
    }
}

typedef struct
{
  WindowRef    *window;
  GCancellable *cancellable;   /* the load's: a first look of a load given up is not shown */
  SlTrace      *trace;
} FirstLook;

static void
first_look_free (gpointer data)
{
  FirstLook *l = data;

  window_ref_release (l->window);
  g_clear_object (&l->cancellable);
  g_clear_pointer (&l->trace, sl_trace_unref);
  g_free (l);
}

/* A big file's first rows on screen while the rest loads (sl_trace_load_progressive): the
 * timeline and the detail pane, the time not read yet marked; no statistics or findings yet
 * (they come with the whole trace, in show_trace). */
static gboolean
first_look_idle_cb (gpointer data)
{
  FirstLook *l = data;
  g_autoptr (SlWindow) self = g_weak_ref_get (&l->window->ref);

  if (self == NULL || self->disposed || self->cancellable != l->cancellable
      || g_cancellable_is_cancelled (l->cancellable))
    return G_SOURCE_REMOVE;
  SlTrace *old = g_steal_pointer (&self->trace);
  self->trace = g_steal_pointer (&l->trace);
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (self->timeline), self->trace);
  sl_timeline_view_reveal_gpu (SL_TIMELINE_VIEW (self->timeline));
  sl_detail_pane_set_trace (SL_DETAIL_PANE (self->detail), self->trace);
  sl_findings_panel_set_analysis (SL_FINDINGS_PANEL (self->findings),
                                  SL_TIMELINE_VIEW (self->timeline), NULL);
  sl_stats_panel_set_timeline (SL_STATS_PANEL (self->stats), NULL, NULL);
  _sl_window_drop_trace (old);
  _sl_window_show_page (self, "trace");
  _sl_window_update_status (self);
  bench_watch_first_frame (self);
  return G_SOURCE_REMOVE;
}

/* On the loading thread: hands the first look to the main thread. */
static void
load_first_look_cb (SlTrace  *trace,
                    gpointer  user_data)
{
  LoadData *d = user_data;
  FirstLook *l = g_new0 (FirstLook, 1);

  l->window = g_atomic_rc_box_acquire (d->window);
  l->cancellable = d->cancellable != NULL ? g_object_ref (d->cancellable) : NULL;
  l->trace = sl_trace_ref (trace);
  sl_cpu_util_get (trace);   /* (as in load_thread_cb) */
  /* queued for the main thread (see load_progress_cb) */
  g_idle_add_full (G_PRIORITY_DEFAULT, first_look_idle_cb, l, first_look_free);
  /* tests (test-ui-app first-look): the first look stays on screen this long before the rest
   * is read, however small the file */
  const char *hold = g_getenv ("SIGHTLINE_TEST_FIRST_LOOK_HOLD_MS");
  if (hold != NULL)
    g_usleep (1000 * g_ascii_strtoull (hold, NULL, 10));
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
  GPtrArray *diffs = NULL;
  char *status = NULL;

  (void) source_object;
  if (d->compare)
    trace = _sl_window_compare_load (d->merged, d->offsets, d->align_step, load_progress_cb, d,
                                     cancellable, &diffs, &status, &error);
  else if (d->merged != NULL)
    trace = sl_trace_load_merged ((const char *const *) d->merged, g_strv_length (d->merged),
                                  SL_LOAD_ALL, d->offsets, load_progress_cb, d, cancellable,
                                  &error);
  else
    trace = sl_trace_load_progressive (d->path, load_first_look_cb, load_progress_cb, d,
                                       cancellable, &error);
  if (trace == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  sl_cpu_util_get (trace);   /* the timeline's rows need it: built here, not on the main thread */
  result = g_new0 (LoadResult, 1);
  result->trace = trace;
  result->diffs = diffs;
  result->status = status;
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

/* Whether two paths name one file (a recording's output as given, and as a GFile made it). */
static gboolean
same_file (const char *a,
           const char *b)
{
  if (a == NULL || b == NULL)
    return FALSE;
  g_autoptr (GFile) fa = g_file_new_for_path (a);
  g_autoptr (GFile) fb = g_file_new_for_path (b);
  return g_file_equal (fa, fb);
}

static void
show_trace (SlWindow   *self,
            LoadResult *result)
{
  g_autofree char *base = g_file_get_basename (self->file);
  g_autofree char *uri = g_file_get_uri (self->file);
  GtkRecentData recent = {
    .display_name = base,
    .mime_type = (char *) (g_str_has_suffix (base, ".gz") ? "application/gzip"
                           : sl_trace_is_json (result->trace) ? "application/json"
                                                              : "application/vnd.sqlite3"),
    .app_name = (char *) "sightline",
    .app_exec = (char *) "sightline %f",
  };

  /* the whole of a file after its first look or a recording's last live state: what the person
   * did meanwhile stays (the range moved to, groups, scroll, a selected event) */
  SlViewport *vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (self->timeline));
  SlTime b0 = 0, b1 = 0, v0 = 0, v1 = 0;
  gboolean same = self->trace != NULL
                  && (self->load_continues || sl_trace_get_loading (self->trace, NULL, NULL))
                  && same_file (sl_trace_get_path (self->trace), sl_trace_get_path (result->trace));
  gboolean keep = same;
  if (keep)
    {
      sl_viewport_get_bounds (vp, &b0, &b1);
      sl_viewport_get_visible (vp, &v0, &v1);
      keep = v0 > b0 || v1 < b1;
    }
  SlTrace *old = g_steal_pointer (&self->trace);
  self->trace = g_steal_pointer (&result->trace);
  if (same)
    sl_timeline_view_continue_trace (SL_TIMELINE_VIEW (self->timeline), self->trace);
  else
    {
      sl_timeline_view_set_trace (SL_TIMELINE_VIEW (self->timeline), self->trace);
      sl_timeline_view_reveal_gpu (SL_TIMELINE_VIEW (self->timeline));
    }
  if (keep)
    sl_viewport_set_visible (vp, v0, v1, FALSE);
  sl_detail_pane_set_trace (SL_DETAIL_PANE (self->detail), self->trace);
  if (same)
    sl_detail_pane_set_event (SL_DETAIL_PANE (self->detail),
                              sl_timeline_view_get_selected_event (SL_TIMELINE_VIEW (self->timeline)));
  sl_findings_panel_set_analysis (SL_FINDINGS_PANEL (self->findings),
                                  SL_TIMELINE_VIEW (self->timeline), NULL);
  /* the last trace's tables go now: this one's come from the reports thread */
  sl_stats_panel_set_timeline (SL_STATS_PANEL (self->stats), NULL, NULL);
  _sl_window_drop_trace (old);
  g_autoptr (GTask) reports = g_task_new (self, NULL, reports_done_cb, NULL);
  g_task_set_task_data (reports, sl_trace_ref (self->trace), (GDestroyNotify) sl_trace_unref);
  g_task_run_in_thread (reports, reports_thread_cb);
  bench_watch_first_frame (self);
  _sl_window_watch_viewport (self);
  gtk_widget_set_visible (self->diff, self->compare);
  if (self->compare)
    {
      sl_diff_panel_set_diffs (SL_DIFF_PANEL (self->diff), g_steal_pointer (&result->diffs),
                               result->status);
      sl_diff_panel_set_step (SL_DIFF_PANEL (self->diff), self->align_step);
      gtk_notebook_set_current_page (GTK_NOTEBOOK (self->bottom),
                                     gtk_notebook_page_num (GTK_NOTEBOOK (self->bottom), self->diff));
    }
  _sl_window_compare_update (self);
  if (self->merged != NULL && self->compare)
    {
      /* "Comparing run1.sqlite (A) with run2.sqlite (B)" */
      g_autofree char *a = g_path_get_basename (sl_trace_get_source (self->trace, 0)->path);
      g_autofree char *b = g_path_get_basename (sl_trace_get_source (self->trace, 1)->path);
      g_autofree char *title = g_strdup_printf ("Comparing %s (A) with %s (B)", a, b);
      g_autofree char *tip = g_strdup_printf ("A: %s\nB: %s", sl_trace_get_source (self->trace, 0)->path,
                                              sl_trace_get_source (self->trace, 1)->path);
      gtk_label_set_text (GTK_LABEL (self->title), title);
      gtk_widget_set_tooltip_text (self->title, tip);
    }
  else if (self->merged != NULL)
    {
      /* "3 traces: rank0.sqlite, rank1.sqlite, rank2.sqlite", each file in the tooltip */
      g_autoptr (GString) title = g_string_new (NULL), tip = g_string_new (NULL);
      guint n = sl_trace_get_n_sources (self->trace);
      g_string_printf (title, "%u traces: ", n);
      for (guint i = 0; i < n; i++)
        {
          const SlSource *src = sl_trace_get_source (self->trace, i);
          g_autofree char *name = g_path_get_basename (src->path);
          g_string_append_printf (title, i > 0 ? ", %s" : "%s", name);
          g_string_append_printf (tip, i > 0 ? "\n%s: %s" : "%s: %s", src->label, src->path);
        }
      gtk_label_set_text (GTK_LABEL (self->title), title->str);
      gtk_widget_set_tooltip_text (self->title, tip->str);
    }
  else
    {
      gtk_label_set_text (GTK_LABEL (self->title), base);
      gtk_widget_set_tooltip_text (self->title, sl_trace_get_path (self->trace));
      gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &recent);
    }
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
      /* an nsys report opened alone: its own dialog, which can export it (sl-window-nsys.c) */
      g_autofree char *report = NULL;
      if (g_error_matches (error, SL_TRACE_ERROR, SL_TRACE_ERROR_NSYS_REPORT)
          && self->merged == NULL && self->file != NULL)
        report = g_file_get_path (self->file);
      /* a first look of the load that failed or was cancelled is not left behind as if loaded */
      if (sl_trace_get_loading (self->trace, NULL, NULL))
        {
          sl_timeline_view_set_trace (SL_TIMELINE_VIEW (self->timeline), NULL);
          sl_detail_pane_set_trace (SL_DETAIL_PANE (self->detail), NULL);
          g_clear_pointer (&self->trace, sl_trace_unref);
        }
      g_clear_object (&self->file);
      g_clear_pointer (&self->merged, g_ptr_array_unref);
      g_clear_pointer (&self->offsets, g_array_unref);
      self->compare = FALSE;
      _sl_window_show_page (self, "empty");
      if (report != NULL)
        _sl_window_show_nsys_report (self, report, error);
      else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
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
  g_clear_pointer (&self->merged, g_ptr_array_unref);
  g_clear_pointer (&self->offsets, g_array_unref);
  self->compare = FALSE;
  _sl_window_load_file (self, file, TRUE);
}

void
sl_window_open_merged (SlWindow *self,
                       GFile   **files,
                       guint     n_files)
{
  g_return_if_fail (SL_IS_WINDOW (self));
  g_return_if_fail (n_files >= 1);

  if (n_files == 1)
    {
      sl_window_open (self, files[0]);
      return;
    }
  if (self->cancellable != NULL || self->recording != NULL)
    {
      /* loading or recording: the merged traces get a window of their own */
      SlWindow *other = sl_window_new (SL_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
      gtk_window_present (GTK_WINDOW (other));
      sl_window_open_merged (other, files, n_files);
      return;
    }
  GPtrArray *merged = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < n_files; i++)
    g_ptr_array_add (merged, g_object_ref (files[i]));
  g_clear_pointer (&self->merged, g_ptr_array_unref);
  self->merged = merged;
  g_clear_pointer (&self->offsets, g_array_unref);
  self->compare = FALSE;
  _sl_window_load_file (self, files[0], TRUE);
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
  self->load_continues = !show_loading && self->trace != NULL;

  d = g_new0 (LoadData, 1);
  d->path = g_file_get_path (file);
  if (d->path == NULL)
    d->path = g_file_get_uri (file);  /* the model says it cannot open it, naming it */
  if (self->merged != NULL)
    {
      d->merged = g_new0 (char *, self->merged->len + 1);
      for (guint i = 0; i < self->merged->len; i++)
        {
          GFile *f = g_ptr_array_index (self->merged, i);
          d->merged[i] = g_file_get_path (f);
          if (d->merged[i] == NULL)
            d->merged[i] = g_file_get_uri (f);
        }
      if (self->offsets != NULL && self->offsets->len == self->merged->len)
        d->offsets = g_memdup2 (self->offsets->data, sizeof (SlTime) * self->offsets->len);
      d->compare = self->compare && self->merged->len == 2;
      d->align_step = self->align_step;
      g_free (text);
      text = g_strdup_printf (d->compare ? "Comparing %u traces…" : "Loading %u traces…",
                              self->merged->len);
      gtk_label_set_text (GTK_LABEL (self->loading_label), text);
    }
  d->last_fraction = -1;
  d->window = window_ref_new (self);
  d->cancellable = g_object_ref (self->cancellable);
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
  if (response == GTK_RESPONSE_ACCEPT && self->chooser_mode == SL_CHOOSER_COMPARE)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      GFile *shown = self->merged != NULL ? g_ptr_array_index (self->merged, 0) : self->file;
      if (file != NULL && shown != NULL)
        {
          g_autoptr (GFile) a = g_object_ref (shown);
          sl_window_open_compare (self, a, file);
        }
    }
  else if (response == GTK_RESPONSE_ACCEPT && self->chooser_mode == SL_CHOOSER_ADD)
    {
      g_autoptr (GListModel) chosen = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));
      g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < g_list_model_get_n_items (chosen); i++)
        g_ptr_array_add (files, g_list_model_get_item (chosen, i));
      if (files->len > 0)
        sl_window_add_traces (self, (GFile **) files->pdata, files->len);
    }
  else if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      if (file != NULL)
        sl_window_open (self, file);
    }
  g_clear_object (&self->chooser);
}

static void
show_chooser (SlWindow      *self,
              SlChooserMode  mode)
{
  static const char *const titles[] = { "Open a Trace", "Add Traces to This Window",
                                        "Compare With Another Trace" };
  static const char *const accept[] = { "_Open", "_Add", "_Compare" };
  GtkFileFilter *traces = gtk_file_filter_new ();
  GtkFileFilter *all = gtk_file_filter_new ();

  if (self->chooser != NULL)
    {
      /* the other kind was open: replaced */
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
      g_clear_object (&self->chooser);
    }
  self->chooser_mode = mode;
  self->chooser = gtk_file_chooser_native_new (titles[mode], GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_OPEN, accept[mode],
                                               "_Cancel");
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (self->chooser),
                                        mode == SL_CHOOSER_ADD);
  gtk_file_filter_set_name (traces, "Traces (*.sqlite, *.json, *.json.gz)");
  gtk_file_filter_add_pattern (traces, "*.sqlite");
  gtk_file_filter_add_pattern (traces, "*.json");
  gtk_file_filter_add_pattern (traces, "*.json.gz");
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

void
sl_window_add_traces (SlWindow *self,
                      GFile   **files,
                      guint     n_files)
{
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_if_fail (SL_IS_WINDOW (self));
  if (self->merged != NULL)
    for (guint i = 0; i < self->merged->len; i++)
      g_ptr_array_add (all, g_object_ref (g_ptr_array_index (self->merged, i)));
  else if (self->file != NULL && self->trace != NULL && self->recording == NULL)
    g_ptr_array_add (all, g_object_ref (self->file));
  for (guint i = 0; i < n_files; i++)
    g_ptr_array_add (all, g_object_ref (files[i]));
  if (all->len > 0)
    sl_window_open_merged (self, (GFile **) all->pdata, all->len);
}

void
sl_window_show_open_dialog (SlWindow *self)
{
  g_return_if_fail (SL_IS_WINDOW (self));
  if (self->chooser != NULL && self->chooser_mode == SL_CHOOSER_OPEN)
    gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
  else
    show_chooser (self, SL_CHOOSER_OPEN);
}

void
sl_window_show_add_dialog (SlWindow *self)
{
  g_return_if_fail (SL_IS_WINDOW (self));
  if (self->chooser != NULL && self->chooser_mode == SL_CHOOSER_ADD)
    gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
  else
    show_chooser (self, SL_CHOOSER_ADD);
}

void
sl_window_show_compare_dialog (SlWindow *self)
{
  g_return_if_fail (SL_IS_WINDOW (self));
  if (self->chooser != NULL && self->chooser_mode == SL_CHOOSER_COMPARE)
    gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
  else
    show_chooser (self, SL_CHOOSER_COMPARE);
}
