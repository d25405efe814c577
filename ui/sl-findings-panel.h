/* sl-findings-panel.h: the findings of `sightline analyze` as a list; selecting one zooms the
 * timeline to it, puts its lanes and events in focus and shows its evidence and advice. */
#pragma once

#include "sl-analyze.h"
#include "sl-timeline-view.h"

G_BEGIN_DECLS

#define SL_TYPE_FINDINGS_PANEL (sl_findings_panel_get_type ())
G_DECLARE_FINAL_TYPE (SlFindingsPanel, sl_findings_panel, SL, FINDINGS_PANEL, GtkWidget)

GtkWidget       *sl_findings_panel_new             (void);

/* The timeline to drive (not reffed: the window owns both) and the analysis of its trace
 * (transfer full; NULL shows that none was made).  Marks every finding on the ruler. */
void             sl_findings_panel_set_analysis    (SlFindingsPanel *self,
                                                    SlTimelineView  *timeline,
                                                    SlAnalysis      *analysis);

G_END_DECLS
