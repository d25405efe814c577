/* sl-window.c: the window for one trace: timeline, detail pane, stats tables, search, loading. */
#include "sl-window.h"

#include <sys/wait.h>

#include "sl-detail-pane.h"
#include "sl-record-dialog.h"
#include "sl-recording.h"
#include "sl-format.h"
#include "sl-findings-panel.h"
#include "sl-stats-panel.h"
#include "sl-stats.h"
#include "sl-timeline-view.h"

#define MAX_RECENT 8
#define LIVE_MS    500

struct _SlWindow
{
  GtkApplicationWindow parent_instance;

  GtkWidget    *title;
  GtkWidget    *stack;
  GtkWidget    *recent_box;
  GtkWidget    *recent_list;
  GtkWidget    *loading_label;
  GtkWidget    *progress;
  GtkWidget    *search_bar;
  GtkWidget    *search_entry;
  GtkWidget    *search_label;
  GtkWidget    *timeline;
  GtkWidget    *detail;
  GtkWidget    *stats;
  GtkWidget    *findings;
  GtkWidget    *bottom;        /* notebook: statistics, findings */
  GtkWidget    *status;
  GtkWidget    *status_right;
  GtkWidget    *error_dialog;
  GtkFileChooserNative *chooser;

  SlTrace      *trace;
  GCancellable *cancellable;   /* non-NULL while loading */
  GFile        *file;          /* being loaded or shown */
  SlViewport   *viewport;      /* the timeline's, reffed to disconnect from it */
  gulong        viewport_changed;
  gulong        viewport_selection;

  /* A recording in progress (File → Record…): the trace is reloaded every LIVE_MS while the
   * program runs, then loaded afresh once it is complete. */
  SlRecording  *recording;
  guint         live_timer;
  GCancellable *live_cancellable; /* non-NULL while a live load runs */
  guint         n_live;           /* live loads shown */
  GtkWidget    *output_box;
  GtkWidget    *output_view;
  GtkWidget    *stop_button;
  char         *recording_status;

  /* Search: the matches by start time (lane, index), to tell "k of N". */
  GArray       *matches;
  gsize         n_matches;     /* as the timeline counts them */
};

G_DEFINE_FINAL_TYPE (SlWindow, sl_window, GTK_TYPE_APPLICATION_WINDOW)

enum
{
  LOAD_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct
{
  gint   lane;
  gsize  index;
  SlTime start;
} Match;

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

SlWindow *
sl_window_new (SlApplication *app)
{
  return g_object_new (SL_TYPE_WINDOW, "application", app, NULL);
}

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
  /* another trace may have been opened in this window meanwhile */
  if (result != NULL && result->trace == self->trace)
    {
      sl_stats_panel_set_timeline (SL_STATS_PANEL (self->stats), SL_TIMELINE_VIEW (self->timeline),
                                   g_steal_pointer (&result->reports));
      sl_findings_panel_set_analysis (SL_FINDINGS_PANEL (self->findings),
                                      SL_TIMELINE_VIEW (self->timeline),
                                      g_steal_pointer (&result->analysis));
      g_signal_emit (self, signals[LOAD_FINISHED], 0, TRUE);
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
show_page (SlWindow   *self,
           const char *page);

/* Newest first. */
static gint
compare_recent (gconstpointer a,
                gconstpointer b)
{
  GDateTime *x = gtk_recent_info_get_modified ((GtkRecentInfo *) a);
  GDateTime *y = gtk_recent_info_get_modified ((GtkRecentInfo *) b);

  return -g_date_time_compare (x, y);
}

static void
update_recent (SlWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  GtkWidget *child;
  guint shown = 0;

  while ((child = gtk_widget_get_first_child (self->recent_list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->recent_list), child);
  items = g_list_sort (items, compare_recent);
  for (GList *l = items; l != NULL && shown < MAX_RECENT; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      const char *uri = gtk_recent_info_get_uri (info);
      g_autoptr (GFile) file = NULL;
      g_autofree char *path = NULL;
      g_autofree char *base = NULL;
      GtkWidget *row, *box, *name, *where;

      if (!g_str_has_suffix (uri, ".sqlite") || !gtk_recent_info_has_application (info, "sightline"))
        continue;
      file = g_file_new_for_uri (uri);
      path = g_file_get_path (file);
      if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
        continue;
      base = g_path_get_basename (path);
      box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      name = gtk_label_new (base);
      where = gtk_label_new (path);
      gtk_label_set_xalign (GTK_LABEL (name), 0);
      gtk_label_set_xalign (GTK_LABEL (where), 0);
      gtk_label_set_ellipsize (GTK_LABEL (where), PANGO_ELLIPSIZE_MIDDLE);
      gtk_widget_add_css_class (where, "dim-label");
      gtk_widget_add_css_class (where, "caption");
      gtk_box_append (GTK_BOX (box), name);
      gtk_box_append (GTK_BOX (box), where);
      g_object_set (box, "margin-start", 12, "margin-end", 12, "margin-top", 6, "margin-bottom", 6,
                    NULL);
      row = gtk_list_box_row_new ();
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
      g_object_set_data_full (G_OBJECT (row), "sl-file", g_steal_pointer (&file), g_object_unref);
      gtk_list_box_append (GTK_LIST_BOX (self->recent_list), row);
      shown++;
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  gtk_widget_set_visible (self->recent_box, shown > 0);
}

static void
show_page (SlWindow   *self,
           const char *page)
{
  if (g_str_equal (page, "empty"))
    {
      update_recent (self);
      gtk_label_set_text (GTK_LABEL (self->title), "Sightline");
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

static void
error_response_cb (GtkDialog *dialog,
                   int        response,
                   SlWindow  *self)
{
  (void) response;
  gtk_window_destroy (GTK_WINDOW (dialog));
  self->error_dialog = NULL;
  if (self->trace == NULL && self->cancellable == NULL && other_windows_exist (self))
    gtk_window_close (GTK_WINDOW (self));
}

static void
show_error (SlWindow     *self,
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

static void update_status (SlWindow *self);
static void update_history (SlWindow *self);

static void
viewport_changed_cb (SlViewport *viewport,
                     GParamSpec *pspec,
                     SlWindow   *self)
{
  (void) viewport;
  (void) pspec;
  update_history (self);
  update_status (self);
}

static void
viewport_selection_cb (SlViewport *viewport,
                       GParamSpec *pspec,
                       SlWindow   *self)
{
  (void) viewport;
  (void) pspec;
  update_status (self);
}

static void
disconnect_viewport (SlWindow *self)
{
  if (self->viewport == NULL)
    return;
  g_clear_signal_handler (&self->viewport_changed, self->viewport);
  g_clear_signal_handler (&self->viewport_selection, self->viewport);
  g_clear_object (&self->viewport);
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
  disconnect_viewport (self);
  self->viewport = g_object_ref (sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (self->timeline)));
  self->viewport_changed = g_signal_connect (self->viewport, "notify::visible",
                                             G_CALLBACK (viewport_changed_cb), self);
  self->viewport_selection = g_signal_connect (self->viewport, "notify::selection",
                                               G_CALLBACK (viewport_selection_cb), self);
  gtk_label_set_text (GTK_LABEL (self->title), base);
  gtk_widget_set_tooltip_text (self->title, sl_trace_get_path (self->trace));
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &recent);
  show_page (self, "trace");
  update_history (self);
  update_status (self);
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
  if (result == NULL)
    {
      g_clear_object (&self->file);
      show_page (self, "empty");
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, "Could not open the trace", error);
      g_signal_emit (self, signals[LOAD_FINISHED], 0, FALSE);
      return;
    }
  show_trace (self, result);
  load_result_free (result);
  /* "load-finished" (TRUE) follows when the stats tables are in too: reports_done_cb */
}

static void load_file (SlWindow *self, GFile *file, gboolean show_loading);

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
  load_file (self, file, TRUE);
}

/* `show_loading`: the loading page while it loads (else whatever is shown stays, as a recording's
 * last live state does until its complete trace replaces it). */
static void
load_file (SlWindow *self,
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
    show_page (self, "loading");

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

/* ---- status line, history, search -------------------------------------------------------- */

static void
update_status (SlWindow *self)
{
  SlViewport *vp = self->viewport;
  SlTime t0, t1, origin;
  g_autofree char *left = NULL;
  g_autofree char *right = NULL;

  if (vp == NULL || self->trace == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->status), "");
      gtk_label_set_text (GTK_LABEL (self->status_right), "");
      return;
    }
  origin = sl_trace_get_start (self->trace);
  if (sl_viewport_get_selection (vp, &t0, &t1))
    {
      g_autofree char *d = sl_format_duration (t1 - t0);
      g_autofree char *a = sl_format_offset (t0 - origin);
      g_autofree char *b = sl_format_offset (t1 - origin);
      left = g_strdup_printf ("Selection: %s (%s … %s)", d, a, b);
    }
  else
    left = g_strdup ("No time range selected: Shift+drag in the timeline to select one");
  sl_viewport_get_visible (vp, &t0, &t1);
  {
    g_autofree char *d = sl_format_duration (t1 - t0);
    g_autofree char *n = sl_format_int ((gint64) sl_trace_get_n_events (self->trace));
    right = g_strdup_printf ("Visible: %s · %s events in %u lanes", d, n,
                             sl_trace_get_n_lanes (self->trace));
  }
  gtk_label_set_text (GTK_LABEL (self->status), left);
  gtk_label_set_text (GTK_LABEL (self->status_right), right);
}

static void
update_history (SlWindow *self)
{
  gboolean back = self->viewport != NULL && sl_viewport_can_go_back (self->viewport);
  gboolean forward = self->viewport != NULL && sl_viewport_can_go_forward (self->viewport);
  GAction *a;

  a = g_action_map_lookup_action (G_ACTION_MAP (self), "back");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (a), back);
  a = g_action_map_lookup_action (G_ACTION_MAP (self), "forward");
  g_simple_action_set_enabled (G_SIMPLE_ACTION (a), forward);
}

static int
compare_matches (gconstpointer a,
                 gconstpointer b)
{
  const Match *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->lane != y->lane)
    return x->lane < y->lane ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The events whose name contains the needle, ignoring case: the same rule as the timeline's.
 * One pass over every event, with the answer per string id cached: done once per keystroke. */
static void
collect_matches (SlWindow   *self,
                 const char *needle)
{
  g_autoptr (GHashTable) verdict = g_hash_table_new (NULL, NULL);
  g_autofree char *folded = g_utf8_casefold (needle, -1);

  g_array_set_size (self->matches, 0);
  if (self->trace == NULL || *needle == '\0')
    return;
  for (guint l = 0; l < sl_trace_get_n_lanes (self->trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, l);

      for (gsize i = 0; i < lane->n_events; i++)
        {
          guint32 id = lane->events[i].name;
          gpointer v;

          if (!g_hash_table_lookup_extended (verdict, GUINT_TO_POINTER (id), NULL, &v))
            {
              g_autofree char *name = g_utf8_casefold (sl_trace_str (self->trace, id), -1);
              v = GINT_TO_POINTER (strstr (name, folded) != NULL ? 1 : 2);
              g_hash_table_insert (verdict, GUINT_TO_POINTER (id), v);
            }
          if (GPOINTER_TO_INT (v) == 1)
            {
              Match m = { (gint) l, i, lane->events[i].start };
              g_array_append_val (self->matches, m);
            }
        }
    }
  g_array_sort (self->matches, compare_matches);
}

static void
update_search_label (SlWindow *self)
{
  const char *needle = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  SlEventRef sel;
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
  for (guint i = 0; sel.lane >= 0 && i < self->matches->len; i++)
    {
      const Match *m = &g_array_index (self->matches, Match, i);
      if (m->lane == sel.lane && m->index == sel.index)
        {
          k = i + 1;
          break;
        }
    }
  if (k > 0)
    text = g_strdup_printf ("%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT, k, self->n_matches);
  else
    text = g_strdup_printf ("%" G_GSIZE_FORMAT " %s", self->n_matches,
                            self->n_matches == 1 ? "match" : "matches");
  gtk_label_set_text (GTK_LABEL (self->search_label), text);
}

static void
search_changed_cb (GtkSearchEntry *entry,
                   SlWindow       *self)
{
  const char *needle = gtk_editable_get_text (GTK_EDITABLE (entry));

  if (self->trace == NULL)
    return;
  self->n_matches = sl_timeline_view_set_search (SL_TIMELINE_VIEW (self->timeline),
                                                 *needle != '\0' ? needle : NULL);
  collect_matches (self, needle);
  update_search_label (self);
}

static void
show_selected_event (SlWindow *self)
{
  SlEventRef ref = sl_timeline_view_get_selected_event (SL_TIMELINE_VIEW (self->timeline));

  sl_detail_pane_set_event (SL_DETAIL_PANE (self->detail), ref);
}

static void
search_step (SlWindow *self,
             gboolean  forward)
{
  if (self->trace == NULL)
    return;
  if (sl_timeline_view_search_step (SL_TIMELINE_VIEW (self->timeline), forward))
    show_selected_event (self);
  update_search_label (self);
}

static void
search_activate_cb (GtkSearchEntry *entry,
                    SlWindow       *self)
{
  (void) entry;
  search_step (self, TRUE);
}

static void
search_next_cb (GtkSearchEntry *entry,
                SlWindow       *self)
{
  (void) entry;
  search_step (self, TRUE);
}

static void
search_previous_cb (GtkSearchEntry *entry,
                    SlWindow       *self)
{
  (void) entry;
  search_step (self, FALSE);
}

static void
search_stop_cb (GtkSearchEntry *entry,
                SlWindow       *self)
{
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), FALSE);
  if (self->trace != NULL)
    gtk_widget_grab_focus (self->timeline);
}

/* The timeline emits "event-selected" with the event; reading the selection back keeps this
 * handler independent of how the signal carries it. */
static void
timeline_selected_cb (SlWindow *self)
{
  show_selected_event (self);
  update_search_label (self);
}

static void
detail_go_to_cb (SlDetailPane *pane,
                 gint          lane,
                 guint64       index,
                 SlWindow     *self)
{
  SlEventRef ref = { lane, (gsize) index };

  (void) pane;
  sl_timeline_view_select_event (SL_TIMELINE_VIEW (self->timeline), ref, TRUE);
  sl_detail_pane_set_event (SL_DETAIL_PANE (self->detail), ref);
}

/* ---- recording ------------------------------------------------------------------------- */

static void
set_recording_status (SlWindow   *self,
                      const char *text)
{
  g_free (self->recording_status);
  self->recording_status = g_strdup (text);
  gtk_label_set_text (GTK_LABEL (self->status_right), text != NULL ? text : "");
  gtk_label_set_text (GTK_LABEL (self->loading_label), text != NULL ? text : "");
}

static void
live_load_thread_cb (GTask        *task,
                     gpointer      source,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  GError *error = NULL;
  SlTrace *trace = sl_trace_load (task_data, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL, cancellable,
                                  &error);

  (void) source;
  if (trace == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, trace, (GDestroyNotify) sl_trace_unref);
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

  if (!first)
    {
      sl_viewport_get_bounds (vp, &old_start, &old_end);
      sl_viewport_get_visible (vp, &t0, &t1);
    }
  g_clear_pointer (&self->trace, sl_trace_unref);
  self->trace = trace;
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (self->timeline), self->trace);
  sl_detail_pane_set_trace (SL_DETAIL_PANE (self->detail), self->trace);
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
      disconnect_viewport (self);
      self->viewport = g_object_ref (vp);
      self->viewport_changed = g_signal_connect (self->viewport, "notify::visible",
                                                 G_CALLBACK (viewport_changed_cb), self);
      self->viewport_selection = g_signal_connect (self->viewport, "notify::selection",
                                                   G_CALLBACK (viewport_selection_cb), self);
      show_page (self, "trace");
    }
  self->n_live++;
  update_status (self);
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
  else if (trace != NULL)
    sl_trace_unref (trace);
}

static gboolean
live_tick_cb (gpointer data)
{
  SlWindow *self = data;
  g_autoptr (GTask) task = NULL;

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
  g_task_set_task_data (task, g_strdup (sl_recording_get_output (self->recording)), g_free);
  g_task_run_in_thread (task, live_load_thread_cb);
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
      show_page (self, "empty");
      show_error (self, "Could not record the program", e);
      return;
    }
  /* the complete trace, exactly as opening the file afresh shows it (the last live state stays on
   * screen meanwhile); the window is "loading" from the moment it stops "recording" */
  g_clear_object (&self->recording);
  load_file (self, file, FALSE);
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
static void
stop_clicked_cb (GtkButton *button,
                 gpointer   data)
{
  SlWindow *self = data;
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
  show_page (self, "loading");
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
    show_error (target, "Could not start the recording", error);
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

/* ---- actions ---------------------------------------------------------------------------- */

static void
record_action_cb (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       data)
{
  (void) action;
  (void) parameter;
  sl_window_show_record_dialog (data);
}


static void
open_action_cb (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  (void) action;
  (void) parameter;
  sl_window_show_open_dialog (SL_WINDOW (user_data));
}

static void
back_action_cb (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  SlWindow *self = user_data;

  (void) action;
  (void) parameter;
  if (self->viewport != NULL)
    sl_viewport_back (self->viewport);
}

static void
forward_action_cb (GSimpleAction *action,
                   GVariant      *parameter,
                   gpointer       user_data)
{
  SlWindow *self = user_data;

  (void) action;
  (void) parameter;
  if (self->viewport != NULL)
    sl_viewport_forward (self->viewport);
}

static void
find_action_cb (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  SlWindow *self = user_data;

  (void) action;
  (void) parameter;
  if (self->trace == NULL)
    return;
  gtk_search_bar_set_search_mode (GTK_SEARCH_BAR (self->search_bar), TRUE);
  gtk_widget_grab_focus (self->search_entry);
}

static void
search_next_action_cb (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  (void) action;
  (void) parameter;
  search_step (SL_WINDOW (user_data), TRUE);
}

static void
search_previous_action_cb (GSimpleAction *action,
                           GVariant      *parameter,
                           gpointer       user_data)
{
  (void) action;
  (void) parameter;
  search_step (SL_WINDOW (user_data), FALSE);
}

static void
color_by_action_cb (GSimpleAction *action,
                    GVariant      *value,
                    gpointer       user_data)
{
  SlWindow *self = user_data;
  const char *mode = g_variant_get_string (value, NULL);

  g_simple_action_set_state (action, value);
  sl_timeline_view_set_color_mode (SL_TIMELINE_VIEW (self->timeline),
                                   g_str_equal (mode, "name") ? SL_COLOR_BY_NAME
                                                              : SL_COLOR_BY_KIND);
}

static void
util_overlay_action_cb (GSimpleAction *action,
                        GVariant      *value,
                        gpointer       user_data)
{
  SlWindow *self = user_data;

  g_simple_action_set_state (action, value);
  sl_timeline_view_set_util_overlay (SL_TIMELINE_VIEW (self->timeline),
                                     g_variant_get_boolean (value));
}

static void
cancel_clicked_cb (GtkButton *button,
                   SlWindow  *self)
{
  (void) button;
  sl_window_cancel_load (self);
}

static void
recent_activated_cb (GtkListBox    *box,
                     GtkListBoxRow *row,
                     SlWindow      *self)
{
  GFile *file = g_object_get_data (G_OBJECT (row), "sl-file");

  (void) box;
  if (file != NULL)
    sl_window_open (self, file);
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

  (void) target;
  (void) x;
  (void) y;
  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  list = g_value_get_boxed (value);
  files = gdk_file_list_get_files (list);
  /* The first goes into this window when it is empty; sl_window_open passes the rest on. */
  for (GSList *l = files; l != NULL; l = l->next)
    sl_window_open (self, l->data);
  return files != NULL;
}

static gboolean
close_request_cb (GtkWindow *window)
{
  sl_window_cancel_load (SL_WINDOW (window));
  return FALSE;
}

/* ---- construction ----------------------------------------------------------------------- */

static GtkWidget *
build_empty_page (SlWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *icon = gtk_image_new_from_icon_name ("document-open-symbolic");
  GtkWidget *title = gtk_label_new ("Open a trace to see it here");
  GtkWidget *hint = gtk_label_new ("An Nsight Systems SQLite export (nsys export --type sqlite) or "
                                   "a Sightline recording. You can also drop a .sqlite file on "
                                   "this window.");
  GtkWidget *button = gtk_button_new_with_mnemonic ("_Open a trace…");
  GtkWidget *recent_title = gtk_label_new ("Recent traces");
  GtkWidget *frame = gtk_frame_new (NULL);

  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_halign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (box, 420, -1);
  gtk_image_set_pixel_size (GTK_IMAGE (icon), 64);
  gtk_widget_add_css_class (icon, "dim-label");
  gtk_widget_add_css_class (title, "title-1");
  gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
  gtk_label_set_justify (GTK_LABEL (hint), GTK_JUSTIFY_CENTER);
  gtk_label_set_max_width_chars (GTK_LABEL (hint), 50);
  gtk_widget_add_css_class (hint, "dim-label");
  gtk_widget_add_css_class (button, "suggested-action");
  gtk_widget_add_css_class (button, "pill");
  gtk_widget_set_halign (button, GTK_ALIGN_CENTER);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.open");
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), hint);
  gtk_box_append (GTK_BOX (box), button);
  {
    GtkWidget *record = gtk_button_new_with_mnemonic ("_Record a program…");
    gtk_widget_add_css_class (record, "pill");
    gtk_widget_set_halign (record, GTK_ALIGN_CENTER);
    gtk_widget_set_tooltip_text (record, "Run a program and record it (Ctrl+R)");
    gtk_actionable_set_action_name (GTK_ACTIONABLE (record), "win.record");
    gtk_box_append (GTK_BOX (box), record);
  }

  self->recent_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_top (self->recent_box, 18);
  gtk_label_set_xalign (GTK_LABEL (recent_title), 0);
  gtk_widget_add_css_class (recent_title, "heading");
  self->recent_list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (self->recent_list), GTK_SELECTION_NONE);
  gtk_list_box_set_activate_on_single_click (GTK_LIST_BOX (self->recent_list), TRUE);
  g_signal_connect (self->recent_list, "row-activated", G_CALLBACK (recent_activated_cb), self);
  gtk_frame_set_child (GTK_FRAME (frame), self->recent_list);
  gtk_box_append (GTK_BOX (self->recent_box), recent_title);
  gtk_box_append (GTK_BOX (self->recent_box), frame);
  gtk_box_append (GTK_BOX (box), self->recent_box);
  return box;
}

static GtkWidget *
build_loading_page (SlWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *cancel = gtk_button_new_with_mnemonic ("_Cancel");

  gtk_widget_set_valign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_halign (box, GTK_ALIGN_CENTER);
  gtk_widget_set_size_request (box, 420, -1);
  self->loading_label = gtk_label_new (NULL);
  gtk_widget_add_css_class (self->loading_label, "title-2");
  gtk_label_set_ellipsize (GTK_LABEL (self->loading_label), PANGO_ELLIPSIZE_MIDDLE);
  self->progress = gtk_progress_bar_new ();
  gtk_progress_bar_set_show_text (GTK_PROGRESS_BAR (self->progress), TRUE);
  gtk_widget_set_halign (cancel, GTK_ALIGN_CENTER);
  g_signal_connect (cancel, "clicked", G_CALLBACK (cancel_clicked_cb), self);
  gtk_box_append (GTK_BOX (box), self->loading_label);
  gtk_box_append (GTK_BOX (box), self->progress);
  gtk_box_append (GTK_BOX (box), cancel);
  return box;
}

static GtkWidget *
build_trace_page (SlWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *search_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *prev = gtk_button_new_from_icon_name ("go-up-symbolic");
  GtkWidget *next = gtk_button_new_from_icon_name ("go-down-symbolic");
  GtkWidget *vpaned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  GtkWidget *hpaned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  GtkWidget *timeline_box;
  GtkWidget *status_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkEventController *keys = gtk_shortcut_controller_new ();

  /* Search bar: Enter = next, Shift+Enter = previous, "k of N". */
  self->search_entry = gtk_search_entry_new ();
  gtk_widget_set_size_request (self->search_entry, 320, -1);
  g_object_set (self->search_entry, "placeholder-text", "Find events by name", NULL);
  self->search_label = gtk_label_new (NULL);
  gtk_widget_set_size_request (self->search_label, 110, -1);
  gtk_widget_set_tooltip_text (prev, "Previous match (Shift+Enter)");
  gtk_widget_set_tooltip_text (next, "Next match (Enter)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (prev), "win.search-previous");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (next), "win.search-next");
  gtk_box_append (GTK_BOX (search_box), self->search_entry);
  gtk_box_append (GTK_BOX (search_box), prev);
  gtk_box_append (GTK_BOX (search_box), next);
  gtk_box_append (GTK_BOX (search_box), self->search_label);
  self->search_bar = gtk_search_bar_new ();
  gtk_search_bar_set_child (GTK_SEARCH_BAR (self->search_bar), search_box);
  gtk_search_bar_connect_entry (GTK_SEARCH_BAR (self->search_bar),
                                GTK_EDITABLE (self->search_entry));
  gtk_search_bar_set_show_close_button (GTK_SEARCH_BAR (self->search_bar), TRUE);
  g_signal_connect (self->search_entry, "search-changed", G_CALLBACK (search_changed_cb), self);
  g_signal_connect (self->search_entry, "activate", G_CALLBACK (search_activate_cb), self);
  g_signal_connect (self->search_entry, "next-match", G_CALLBACK (search_next_cb), self);
  g_signal_connect (self->search_entry, "previous-match", G_CALLBACK (search_previous_cb), self);
  g_signal_connect (self->search_entry, "stop-search", G_CALLBACK (search_stop_cb), self);
  gtk_shortcut_controller_add_shortcut (
    GTK_SHORTCUT_CONTROLLER (keys),
    gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("<Shift>Return|<Shift>KP_Enter"),
                      gtk_named_action_new ("win.search-previous")));
  gtk_widget_add_controller (self->search_entry, keys);
  gtk_box_append (GTK_BOX (box), self->search_bar);

  /* Timeline | detail pane, over the stats tables. */
  self->timeline = sl_timeline_view_new ();
  gtk_widget_set_hexpand (self->timeline, TRUE);
  gtk_widget_set_vexpand (self->timeline, TRUE);
  gtk_widget_set_focusable (self->timeline, TRUE);
  if (g_type_is_a (SL_TYPE_TIMELINE_VIEW, GTK_TYPE_SCROLLABLE))
    {
      timeline_box = gtk_scrolled_window_new ();
      gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (timeline_box), self->timeline);
    }
  else
    timeline_box = self->timeline;
  g_signal_connect_swapped (self->timeline, "event-selected", G_CALLBACK (timeline_selected_cb),
                            self);
  self->detail = sl_detail_pane_new ();
  gtk_widget_set_size_request (self->detail, 300, -1);
  g_signal_connect (self->detail, "go-to-event", G_CALLBACK (detail_go_to_cb), self);
  gtk_paned_set_start_child (GTK_PANED (hpaned), timeline_box);
  gtk_paned_set_end_child (GTK_PANED (hpaned), self->detail);
  gtk_paned_set_resize_end_child (GTK_PANED (hpaned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (hpaned), FALSE);
  gtk_paned_set_position (GTK_PANED (hpaned), 1000);

  /* under them: the statistics tables and the findings, one tab each */
  self->stats = sl_stats_panel_new ();
  self->findings = sl_findings_panel_new ();
  self->bottom = gtk_notebook_new ();
  gtk_notebook_set_tab_pos (GTK_NOTEBOOK (self->bottom), GTK_POS_LEFT);
  gtk_notebook_append_page (GTK_NOTEBOOK (self->bottom), self->stats,
                            gtk_label_new_with_mnemonic ("_Statistics"));
  gtk_notebook_append_page (GTK_NOTEBOOK (self->bottom), self->findings,
                            gtk_label_new_with_mnemonic ("F_indings"));
  gtk_widget_set_size_request (self->bottom, -1, 180);
  gtk_paned_set_start_child (GTK_PANED (vpaned), hpaned);
  gtk_paned_set_end_child (GTK_PANED (vpaned), self->bottom);
  gtk_paned_set_resize_end_child (GTK_PANED (vpaned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (vpaned), FALSE);
  gtk_paned_set_position (GTK_PANED (vpaned), 560);
  gtk_widget_set_vexpand (vpaned, TRUE);
  gtk_box_append (GTK_BOX (box), vpaned);

  self->status = gtk_label_new (NULL);
  self->status_right = gtk_label_new (NULL);
  self->stop_button = gtk_button_new_with_mnemonic ("_Stop Recording");
  gtk_widget_add_css_class (self->stop_button, "destructive-action");
  gtk_widget_set_visible (self->stop_button, FALSE);
  g_signal_connect (self->stop_button, "clicked", G_CALLBACK (stop_clicked_cb), self);
  gtk_label_set_selectable (GTK_LABEL (self->status), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->status), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->status), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->status, TRUE);
  gtk_widget_add_css_class (self->status_right, "dim-label");
  g_object_set (status_box, "margin-start", 8, "margin-end", 8, "margin-top", 3, "margin-bottom", 3,
                NULL);
  gtk_box_append (GTK_BOX (status_box), self->status);
  gtk_box_append (GTK_BOX (status_box), self->status_right);
  gtk_box_append (GTK_BOX (status_box), self->stop_button);

  /* the recorded program's stdout and stderr */
  {
    GtkWidget *scroller = gtk_scrolled_window_new ();
    self->output_view = gtk_text_view_new ();
    gtk_text_view_set_editable (GTK_TEXT_VIEW (self->output_view), FALSE);
    gtk_text_view_set_monospace (GTK_TEXT_VIEW (self->output_view), TRUE);
    gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->output_view);
    gtk_widget_set_size_request (scroller, -1, 110);
    self->output_box = gtk_expander_new_with_mnemonic ("Program _output");
    gtk_expander_set_expanded (GTK_EXPANDER (self->output_box), TRUE);
    gtk_expander_set_child (GTK_EXPANDER (self->output_box), scroller);
    gtk_widget_set_visible (self->output_box, FALSE);
    gtk_box_append (GTK_BOX (box), self->output_box);
  }
  gtk_box_append (GTK_BOX (box), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  gtk_box_append (GTK_BOX (box), status_box);
  return box;
}

static void
findings_action_cb (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  (void) action;
  (void) parameter;
  sl_window_show_findings (SL_WINDOW (user_data));
}

static GMenuModel *
build_menu (void)
{
  GMenu *menu = g_menu_new ();
  g_autoptr (GMenu) color = g_menu_new ();
  g_autoptr (GMenu) view = g_menu_new ();
  g_autoptr (GMenu) help = g_menu_new ();

  g_autoptr (GMenu) file = g_menu_new ();
  g_menu_append (file, "_Open a Trace…", "win.open");
  g_menu_append (file, "_Record a Program…", "win.record");
  g_menu_append (color, "Color by _Kind", "win.color-by::kind");
  g_menu_append (color, "Color by _Name", "win.color-by::name");
  g_menu_append (view, "_Utilization Overlay", "win.util-overlay");
  g_menu_append (view, "_Findings", "win.findings");
  g_menu_append (help, "_Keyboard Shortcuts", "app.shortcuts");
  g_menu_append (help, "_About Sightline", "app.about");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (file));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (color));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (view));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (help));
  return G_MENU_MODEL (menu);
}

static void
sl_window_dispose (GObject *object)
{
  SlWindow *self = SL_WINDOW (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
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
  g_clear_object (&self->live_cancellable);
  g_free (self->recording_status);
  g_array_unref (self->matches);
  G_OBJECT_CLASS (sl_window_parent_class)->finalize (object);
}

static void
sl_window_class_init (SlWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = sl_window_dispose;
  object_class->finalize = sl_window_finalize;
  window_class->close_request = close_request_cb;
  signals[LOAD_FINISHED] = g_signal_new ("load-finished", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                         G_TYPE_BOOLEAN);
}

static void
sl_window_init (SlWindow *self)
{
  static const GActionEntry entries[] = {
    { "open", open_action_cb, NULL, NULL, NULL, { 0 } },
    { "record", record_action_cb, NULL, NULL, NULL, { 0 } },
    { "back", back_action_cb, NULL, NULL, NULL, { 0 } },
    { "forward", forward_action_cb, NULL, NULL, NULL, { 0 } },
    { "find", find_action_cb, NULL, NULL, NULL, { 0 } },
    { "search-next", search_next_action_cb, NULL, NULL, NULL, { 0 } },
    { "search-previous", search_previous_action_cb, NULL, NULL, NULL, { 0 } },
    { "color-by", NULL, "s", "'kind'", color_by_action_cb, { 0 } },
    { "util-overlay", NULL, NULL, "false", util_overlay_action_cb, { 0 } },
    { "findings", findings_action_cb, NULL, NULL, NULL, { 0 } },
  };
  GtkWidget *header = gtk_header_bar_new ();
  GtkWidget *open = gtk_button_new_from_icon_name ("document-open-symbolic");
  GtkWidget *nav = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *back = gtk_button_new_from_icon_name ("go-previous-symbolic");
  GtkWidget *forward = gtk_button_new_from_icon_name ("go-next-symbolic");
  GtkWidget *menu_button = gtk_menu_button_new ();
  GtkWidget *find = gtk_button_new_from_icon_name ("edit-find-symbolic");
  g_autoptr (GMenuModel) menu = build_menu ();
  GtkDropTarget *drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  self->matches = g_array_new (FALSE, FALSE, sizeof (Match));
  g_action_map_add_action_entries (G_ACTION_MAP (self), entries, G_N_ELEMENTS (entries), self);

  gtk_window_set_default_size (GTK_WINDOW (self), 1400, 900);
  gtk_window_set_title (GTK_WINDOW (self), "Sightline");
  gtk_window_set_icon_name (GTK_WINDOW (self), SL_APPLICATION_ID);

  self->title = gtk_label_new ("Sightline");
  gtk_widget_add_css_class (self->title, "title");
  gtk_label_set_ellipsize (GTK_LABEL (self->title), PANGO_ELLIPSIZE_MIDDLE);
  gtk_header_bar_set_title_widget (GTK_HEADER_BAR (header), self->title);
  gtk_widget_set_tooltip_text (open, "Open a trace (Ctrl+O)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (open), "win.open");
  gtk_widget_set_tooltip_text (back, "Back to the previous view (Alt+Left)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (back), "win.back");
  gtk_widget_set_tooltip_text (forward, "Forward (Alt+Right)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (forward), "win.forward");
  gtk_widget_add_css_class (nav, "linked");
  gtk_box_append (GTK_BOX (nav), back);
  gtk_box_append (GTK_BOX (nav), forward);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), open);
  {
    GtkWidget *record = gtk_button_new_from_icon_name ("media-record-symbolic");
    gtk_widget_set_tooltip_text (record, "Record a program (Ctrl+R)");
    gtk_actionable_set_action_name (GTK_ACTIONABLE (record), "win.record");
    gtk_header_bar_pack_start (GTK_HEADER_BAR (header), record);
  }
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), nav);
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (menu_button), "open-menu-symbolic");
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (menu_button), menu);
  gtk_widget_set_tooltip_text (menu_button, "Main menu");
  gtk_widget_set_tooltip_text (find, "Find events by name (Ctrl+F)");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (find), "win.find");
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), menu_button);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), find);
  gtk_window_set_titlebar (GTK_WINDOW (self), header);

  self->stack = gtk_stack_new ();
  gtk_stack_add_named (GTK_STACK (self->stack), build_empty_page (self), "empty");
  gtk_stack_add_named (GTK_STACK (self->stack), build_loading_page (self), "loading");
  gtk_stack_add_named (GTK_STACK (self->stack), build_trace_page (self), "trace");
  gtk_window_set_child (GTK_WINDOW (self), self->stack);
  gtk_search_bar_set_key_capture_widget (GTK_SEARCH_BAR (self->search_bar), NULL);

  g_signal_connect (drop, "drop", G_CALLBACK (drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  show_page (self, "empty");
  update_history (self);
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

gboolean
sl_window_is_recording (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), FALSE);
  return self->recording != NULL;
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

SlTrace *
sl_window_get_trace (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->trace;
}

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

void
sl_window_show_findings (SlWindow *self)
{
  g_return_if_fail (SL_IS_WINDOW (self));
  gtk_notebook_set_current_page (GTK_NOTEBOOK (self->bottom),
                                 gtk_notebook_page_num (GTK_NOTEBOOK (self->bottom), self->findings));
}

GtkWidget *
sl_window_get_search_entry (SlWindow *self)
{
  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  return self->search_entry;
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
