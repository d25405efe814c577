/* sl-window.h: the window for one trace: timeline, detail pane, stats tables, search, loading. */
#pragma once

#include <gtk/gtk.h>

#include "sl-application.h"
#include "sl-record-dialog.h"
#include "sl-trace.h"

G_BEGIN_DECLS

#define SL_TYPE_WINDOW (sl_window_get_type ())
G_DECLARE_FINAL_TYPE (SlWindow, sl_window, SL, WINDOW, GtkApplicationWindow)

SlWindow  *sl_window_new              (SlApplication *app);

/* Loads `file` off the main thread into this window.  "load-finished" (gboolean ok) follows:
 * on success the trace is shown; on failure a modal dialog names the file and the problem, and
 * the window goes back to its empty start state; once the dialog is dismissed it closes instead
 * when another window of the application exists (so failed opens leave no stray windows). */
void       sl_window_open             (SlWindow      *self,
                                       GFile         *file);
/* Loads `files` (2 or more) into this window as one trace on one time axis, a group per file
 * (sl_trace_load_merged): `sightline --merge A B …`, File → Add Trace to This Window. */
void       sl_window_open_merged      (SlWindow      *self,
                                       GFile        **files,
                                       guint          n_files);
void       sl_window_show_open_dialog (SlWindow      *self);
/* File → Add Traces to This Window: a file chooser, then sl_window_add_traces. */
void       sl_window_show_add_dialog  (SlWindow      *self);
/* Loads the window's traces (the one shown, or the merged ones) and `files` after them, merged;
 * `files` alone when the window shows none. */
void       sl_window_add_traces       (SlWindow      *self,
                                       GFile        **files,
                                       guint          n_files);
/* `a` and `b` compared (`sightline --compare A B`, Compare With Another Trace…): both on one time
 * axis, B's first step at A's, and the Comparison page (the diff of each report, the figures and
 * findings of each side). */
void       sl_window_open_compare     (SlWindow      *self,
                                       GFile         *a,
                                       GFile         *b);
/* File → Compare With Another Trace…: a file chooser, then the shown trace compared with it. */
void       sl_window_show_compare_dialog (SlWindow   *self);
/* Files dropped: opened (the first in this window when it is empty), or with `add` (a modifier
 * held: Ctrl or Shift) added to the traces shown, as Add Traces does. */
void       sl_window_drop_files       (SlWindow      *self,
                                       GFile        **files,
                                       guint          n_files,
                                       gboolean       add);
/* Cancels a load in progress (the Cancel button). */
void       sl_window_cancel_load      (SlWindow      *self);

/* File → Record…: the launch dialog (its "record" starts a recording in this window, or in a new
 * one when this one is busy). */
SlRecordDialog *sl_window_show_record_dialog (SlWindow *self);
/* Records `settings` here: the program's output in a pane, the timeline reloaded every 0.5 s while
 * it runs (following the end), the complete trace loaded afresh at the end.  FALSE when the
 * daemon cannot be reached. */
gboolean   sl_window_record           (SlWindow               *self,
                                       const SlRecordSettings *settings,
                                       GError                **error);
/* Stop (the Stop button asks which): the program ends (SIGINT), is killed, or runs on
 * unrecorded; the trace is finished and shown. */
void       sl_window_stop_recording   (SlWindow       *self,
                                       SlRecordingStop how);

/* Loading, showing a trace, or showing an error: a new file goes to another window. */
gboolean   sl_window_is_busy          (SlWindow      *self);

/* Shows the tab of the findings of `sightline analyze` under the timeline. */
void           sl_window_show_findings      (SlWindow *self);

G_END_DECLS
