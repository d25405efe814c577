/* sl-calltree-panel.h: the CPU samples of the selection as a call tree and a flame graph. */
#pragma once

#include "sl-calltree.h"
#include "sl-ui-types.h"

G_BEGIN_DECLS

/*
 * A panel beside Statistics and Findings: which threads (all, a process's, one thread's; a click
 * on an event of a thread's lane picks that thread), top-down or bottom-up, the tree as a table
 * (Self, Total, percentages of the samples) or as a flame graph, and a search that marks the
 * functions whose name holds it.  It follows the timeline's selected range (the whole trace
 * without one) and builds the tree on a thread, cancelled by the next selection.
 */
#define SL_TYPE_CALLTREE_PANEL (sl_calltree_panel_get_type ())
G_DECLARE_FINAL_TYPE (SlCalltreePanel, sl_calltree_panel, SL, CALLTREE_PANEL, GtkWidget)

GtkWidget *sl_calltree_panel_new          (void);

/* The timeline whose trace, selected range and selected event the panel follows (not reffed:
 * the window owns both); it reads the trace when the timeline shows a new one. */
void       sl_calltree_panel_set_timeline (SlCalltreePanel *self,
                                           SlTimelineView  *timeline);

void       sl_calltree_panel_set_order    (SlCalltreePanel *self,
                                           SlCalltreeOrder  order);
/* "tree" or "flame-graph". */
void       sl_calltree_panel_set_view     (SlCalltreePanel *self,
                                           const char      *view);
/* Only these threads' samples: a thread index, or -1 for every thread. */
void       sl_calltree_panel_set_thread   (SlCalltreePanel *self,
                                           gint             thread);

G_END_DECLS
