/* sl-window-private.h: what the files of the window share (sl-window.c, -loader.c, -search.c,
 * -recording.c), and the getters the GUI test reads the window through. */
#pragma once

#include "sl-recording.h"
#include "sl-viewport.h"
#include "sl-window.h"

G_BEGIN_DECLS

typedef enum
{
  SL_CHOOSER_OPEN,     /* Open a Trace */
  SL_CHOOSER_ADD,      /* Add Traces to This Window */
  SL_CHOOSER_COMPARE,  /* Compare With Another Trace */
} SlChooserMode;

struct _SlWindow
{
  GtkApplicationWindow parent_instance;

  /* template children (data/ui/sl-window.ui) */
  GtkWidget    *title;
  GtkWidget    *back_button;
  GtkWidget    *stack;
  GtkWidget    *start_page;
  GtkWidget    *loading_label;
  GtkWidget    *progress;
  GtkWidget    *search_bar;
  GtkWidget    *search_entry;
  GtkWidget    *search_label;
  GtkWidget    *timeline;
  GtkWidget    *detail;
  GtkWidget    *stats;
  GtkWidget    *findings;
  GtkWidget    *calltree;      /* the call tree and flame graph (sl-calltree-panel.c) */
  GtkWidget    *events;        /* the events table (sl-events-table.c) */
  GtkWidget    *bottom;        /* notebook: statistics, findings, events */
  GtkWidget    *output_box;
  GtkWidget    *output_view;
  GtkWidget    *status;
  GtkWidget    *status_right;
  GBinding     *status_bindings[2]; /* viewport "selection" → status, "visible" → status_right;
                                     * weak pointers, NULL once a binding is gone */
  GtkWidget    *stop_button;

  GtkWidget    *error_dialog;
  GtkFileChooserNative *chooser;
  char         *color_by;      /* "kind" or "name": the win.color-by property action */
  gboolean      util_overlay;

  SlTrace      *trace;
  GCancellable *cancellable;   /* non-NULL while loading */
  gboolean      disposed;      /* the window went while a load or its reports were running: their
                                * callbacks (the tasks hold a reference) must not touch widgets */
  GFile        *file;          /* being loaded or shown (the first of merged ones) */
  GPtrArray    *merged;        /* GFile: the traces loaded or shown together (2 or more), else
                                * NULL */
  GArray       *offsets;       /* SlTime per merged file: its offset on the merged axis (as
                                * sl_trace_merge takes them), or NULL: from the wall clocks, or
                                * for a comparison from `align_step` */
  gboolean      compare;       /* the two merged files are compared (sightline --compare) */
  guint         align_step;    /* the step a comparison is aligned on, from 0 */
  GtkWidget    *critpath;      /* the Critical Path page (SlCriticalPathPanel) in `bottom` */
  GtkWidget    *diff;          /* the Comparison page (SlDiffPanel) in `bottom`, shown for a
                                * comparison */
  SlChooserMode chooser_mode;  /* what the chooser's file is for */
  SlViewport   *viewport;      /* the timeline's, reffed to disconnect from it */

  /* A recording in progress (File → Record…): every 0.5 s while the program runs the rows
   * committed since are appended to the trace (sl_trace_append), then it is loaded afresh once
   * it is complete. */
  SlRecording  *recording;
  guint         live_timer;
  GCancellable *live_cancellable; /* non-NULL while a live load runs */
  guint         n_live;           /* live loads shown */
  gboolean      live_whole;       /* bench-live: reload the whole file each time instead */
  gint64        live_swap_max_us; /* bench-live: the longest swap of a live state on screen */
  gboolean      load_continues;   /* the load under way replaces the last live state of its file */
  char         *recording_status;

  gsize         n_matches;     /* of the timeline's search */
};

/* sl-window.c */
void     _sl_window_show_page          (SlWindow     *self,
                                        const char   *page);
void     _sl_window_show_error         (SlWindow     *self,
                                        const char   *primary,
                                        const GError *error);
/* Follows the timeline's viewport (status line, Back and Forward) from now on. */
void     _sl_window_watch_viewport     (SlWindow     *self);
/* The status line anew, for a new trace in the same viewport (a live reload). */
void     _sl_window_update_status      (SlWindow     *self);
void     _sl_window_emit_load_finished (SlWindow     *self,
                                        gboolean      ok);
/* Lets go of the window's reference to a trace on a thread of its own (NULL: nothing): the last
 * reference to a trace of tens of millions of events frees gigabytes, hundreds of milliseconds
 * the main thread's frames cannot spare. */
void     _sl_window_drop_trace         (SlTrace      *trace);

/* sl-window-loader.c: `show_loading`: the loading page while it loads (else whatever is shown
 * stays, as a recording's last live state does until its complete trace replaces it). */
void     _sl_window_load_file          (SlWindow     *self,
                                        GFile        *file,
                                        gboolean      show_loading);

/* sl-window-nsys.c: the dialog for an Nsight Systems report (`error`: the model's
 * SL_TRACE_ERROR_NSYS_REPORT for `report`), with "Export with nsys" where nsys is on PATH: the
 * export runs on a thread, then its SQLite file opens in the window. */
/* Closes the window, later, if it holds nothing (no trace, no load, no dialog) and another is open:
 * after a file that could not be opened. */
void     _sl_window_close_if_empty     (SlWindow     *self);
void     _sl_window_show_nsys_report   (SlWindow     *self,
                                        const char   *report,
                                        const GError *error);

/* sl-window-compare.c: traces compared and aligned.  The loading thread's part: `paths` (2)
 * loaded side by side, each side's diff of every report (sl_diff_report_names () order, NULL
 * where neither has data) and the two merged, with `offsets` (NULL: B's step `step` put at A's,
 * or their starts when either lacks it; `status` says which). */
SlTrace *_sl_window_compare_load       (char          **paths,
                                        const SlTime   *offsets,
                                        guint           step,
                                        SlProgressFunc  progress,
                                        gpointer        user_data,
                                        GCancellable   *cancellable,
                                        GPtrArray     **diffs,
                                        char          **status,
                                        GError        **error);
/* Installs win.compare, win.trace-offsets; connects the timeline's align-on-name and the
 * Comparison page (made here) */
void     _sl_window_compare_class_init (GtkWidgetClass *widget_class);
void     _sl_window_compare_init       (SlWindow       *self);
/* The merged files loaded again as they are, with self->offsets / align_step. */
void     _sl_window_reload_merged      (SlWindow       *self);
/* The actions that depend on what is shown, updated for a new trace. */
void     _sl_window_compare_update     (SlWindow       *self);

/* sl-window-search.c (template callbacks and actions) */
void     _sl_window_search_changed_cb  (GtkSearchEntry *entry,
                                        SlWindow       *self);
void     _sl_window_search_next_cb     (GtkSearchEntry *entry,
                                        SlWindow       *self);
void     _sl_window_search_previous_cb (GtkSearchEntry *entry,
                                        SlWindow       *self);
void     _sl_window_search_stop_cb     (GtkSearchEntry *entry,
                                        SlWindow       *self);
void     _sl_window_search_step        (SlWindow       *self,
                                        gboolean        forward);
void     _sl_window_find               (SlWindow       *self);
void     _sl_window_timeline_selected_cb (SlWindow     *self);
void     _sl_window_detail_go_to_cb    (GtkWidget      *pane,
                                        gint            lane,
                                        guint64         index,
                                        SlWindow       *self);

/* sl-window-export.c: installs win.export-image and win.export-stats-csv (a file chooser, then
 * the file) on the window's class */
void     _sl_window_export_class_init  (GtkWidgetClass *widget_class);

/* sl-window-critpath.c: installs win.critical-path (the selected range's) and
 * win.clear-critical-path; adds the Critical Path page and connects the timeline's requests */
void     _sl_window_critpath_class_init (GtkWidgetClass *widget_class);
void     _sl_window_critpath_init      (SlWindow       *self);

/* sl-window-recording.c */
void     _sl_window_stop_clicked_cb    (GtkButton      *button,
                                        SlWindow       *self);
/* The window goes: the program is ended and the trace kept, as with Stop. */
void     _sl_window_recording_dispose  (SlWindow       *self);

/* For tests/test-ui-app.c and bench/bench-live.c: the state the GUI test and the live-view
 * benchmark wait on, the live reloads shown so far and the program's output. */
gboolean    sl_window_is_recording      (SlWindow *self);
gboolean    sl_window_is_loading        (SlWindow *self);
SlTrace    *sl_window_get_trace         (SlWindow *self);
GtkWidget  *sl_window_get_timeline      (SlWindow *self);
guint       sl_window_get_n_live_updates (SlWindow *self);
/* bench-live: the live view reloads the whole file every time, as it did before appending (the
 * figure appending is measured against). */
void        sl_window_set_live_whole    (SlWindow *self,
                                         gboolean  whole);
/* bench-live: the longest time the main thread spent swapping a live state in (µs). */
gint64      sl_window_get_live_swap_max (SlWindow *self);
char       *sl_window_get_output_text   (SlWindow *self);

/* sl-window-export.c, for tests: the timeline as shown, saved as PNG (or SVG when `path` ends in
 * .svg, its text also as invisible <text>); the statistics report shown as CSV. */
gboolean    sl_window_export_timeline   (SlWindow    *self,
                                         const char  *path,
                                         GError     **error);
char       *sl_window_get_stats_csv     (SlWindow    *self,
                                         GError     **error);

/* For tests: "empty", "loading" or "trace"; the widgets of the trace page. */
const char *sl_window_get_page          (SlWindow *self);
GtkWidget  *sl_window_get_detail_pane   (SlWindow *self);
GtkWidget  *sl_window_get_stats_panel   (SlWindow *self);
GtkWidget  *sl_window_get_findings_panel (SlWindow *self);
GtkWidget  *sl_window_get_calltree_panel (SlWindow *self);
GtkWidget  *sl_window_get_events_table  (SlWindow *self);
GtkWidget  *sl_window_get_diff_panel    (SlWindow *self);
GtkWidget  *sl_window_get_critical_path_panel (SlWindow *self);
/* Trace Offsets… (merged traces): the dialog shown, NULL when there is nothing to offset. */
GtkWidget  *sl_window_show_offsets_dialog (SlWindow *self);
GtkWidget  *sl_window_get_search_entry  (SlWindow *self);
/* The header bar's Back button (its sensitivity follows win.back). */
GtkWidget  *sl_window_get_back_button   (SlWindow *self);
/* Status line ("Selection: 1.234 ms …") and search result ("3 of 17") as shown. */
const char *sl_window_get_status_text   (SlWindow *self);
const char *sl_window_get_search_text   (SlWindow *self);
/* The error dialog while it is shown, or NULL. */
GtkWidget  *sl_window_get_error_dialog  (SlWindow *self);
/* The recording status line. */
const char *sl_window_get_recording_status (SlWindow *self);

G_END_DECLS
