/* sl-critical-path-panel.h: the critical path of a range as a panel: its length, its share by
 * kind as a bar, its segments in order; a click on one shows its event on the timeline. */
#pragma once

#include "sl-critical-path.h"
#include "sl-timeline-view.h"

G_BEGIN_DECLS

/*
 * A panel beside Statistics and Findings.  sl_critical_path_panel_compute computes the path of a
 * range of the timeline's trace on a thread (the next request or a Clear drops it), then shows it
 * here and draws it on the timeline (sl_timeline_view_set_critical_path).  A click on a segment
 * emits "go-to-event" (gint lane, guint64 index) for the window to select and show its event (a
 * segment with none, idle time, is brought into view); Clear removes the path from both.
 */
#define SL_TYPE_CRITICAL_PATH_PANEL (sl_critical_path_panel_get_type ())
G_DECLARE_FINAL_TYPE (SlCriticalPathPanel, sl_critical_path_panel, SL, CRITICAL_PATH_PANEL,
                      GtkWidget)

GtkWidget *sl_critical_path_panel_new          (void);

/* The timeline whose trace the path is computed on and drawn over (not reffed: the window owns
 * both).  A new trace in it clears the path. */
void       sl_critical_path_panel_set_timeline (SlCriticalPathPanel *self,
                                                SlTimelineView      *timeline);
/* The path of [t0, t1) of the timeline's trace; `what` names the range ("step 3", "the
 * selection"). */
void       sl_critical_path_panel_compute      (SlCriticalPathPanel *self,
                                                SlTime               t0,
                                                SlTime               t1,
                                                const char          *what);
void       sl_critical_path_panel_clear        (SlCriticalPathPanel *self);

G_END_DECLS
