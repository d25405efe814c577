/* sl-stats-panel.h: the `sightline stats` reports as sortable tables that follow the selection. */
#pragma once

#include "sl-trace.h"
#include "sl-ui-types.h"

G_BEGIN_DECLS

#define SL_TYPE_STATS_PANEL (sl_stats_panel_get_type ())
G_DECLARE_FINAL_TYPE (SlStatsPanel, sl_stats_panel, SL, STATS_PANEL, GtkWidget)

GtkWidget *sl_stats_panel_new             (void);

/* Every report of sl_report_names() for the whole trace, in that order, NULL where the trace has
 * no data for one.  Thread-safe: the window runs it on its loading thread. */
GPtrArray *sl_stats_panel_compute_reports (SlTrace        *trace);

/* The timeline whose trace, viewport and highlight the panel follows (not reffed: the window owns
 * both).  `reports` (transfer full, may be NULL: computed here) comes from
 * sl_stats_panel_compute_reports() on the timeline's trace. */
void       sl_stats_panel_set_timeline    (SlStatsPanel   *self,
                                           SlTimelineView *timeline,
                                           GPtrArray      *reports);

G_END_DECLS
