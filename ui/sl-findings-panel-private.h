/* sl-findings-panel-private.h: the findings panel as the GUI test reads and drives it. */
#pragma once

#include "sl-findings-panel.h"

G_BEGIN_DECLS

/* For tests/test-ui-app.c. */
guint            sl_findings_panel_get_n_findings  (SlFindingsPanel *self);
const SlFinding *sl_findings_panel_get_finding     (SlFindingsPanel *self,
                                                    guint            i);
/* Selects finding i as a click on its row would: zoom, focus, details. */
void             sl_findings_panel_select          (SlFindingsPanel *self,
                                                    guint            i);
/* Opens or closes the row of finding i, a group: its instances' rows show under it. */
void             sl_findings_panel_set_expanded    (SlFindingsPanel *self,
                                                    guint            i,
                                                    gboolean         expanded);
gboolean         sl_findings_panel_get_expanded    (SlFindingsPanel *self,
                                                    guint            i);
/* Selects instance k of group i as a click on its row would (opening the group). */
void             sl_findings_panel_select_instance (SlFindingsPanel *self,
                                                    guint            i,
                                                    guint            k);
/* The details shown for the selection, as plain text ("" when none). */
char            *sl_findings_panel_get_details     (SlFindingsPanel *self);

G_END_DECLS
