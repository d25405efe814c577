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

/* For tests and the window: the report shown, its rows as shown (sorted), one cell's text. */
const char *sl_stats_panel_get_report     (SlStatsPanel   *self);
gboolean   sl_stats_panel_show_report     (SlStatsPanel   *self,
                                           const char     *name);
guint      sl_stats_panel_get_n_rows      (SlStatsPanel   *self);
char      *sl_stats_panel_get_cell_text   (SlStatsPanel   *self,
                                           guint           row,
                                           const char     *column);
/* Selects a row of the report shown (as a click would) */
void       sl_stats_panel_select_row      (SlStatsPanel   *self,
                                           guint           row);
/* "Longest instance" of the selected cuda_gpu_kern_sum row; FALSE when there is none. */
gboolean   sl_stats_panel_go_to_longest   (SlStatsPanel   *self);
/* Whether the tables describe the selected time range (TRUE) or the whole trace. */
gboolean   sl_stats_panel_is_ranged       (SlStatsPanel   *self);

G_END_DECLS
