/* sl-detail-pane.h: everything known about the selected event, as copyable text. */
#pragma once

#include "sl-trace.h"
#include "sl-ui-types.h"

G_BEGIN_DECLS

#define SL_TYPE_DETAIL_PANE (sl_detail_pane_get_type ())
G_DECLARE_FINAL_TYPE (SlDetailPane, sl_detail_pane, SL, DETAIL_PANE, GtkWidget)

GtkWidget *sl_detail_pane_new       (void);

/* The trace the events belong to (reffed), or NULL; clears the event. */
void       sl_detail_pane_set_trace (SlDetailPane *self,
                                     SlTrace      *trace);
/* Shows one event, or the "nothing selected" hint for SL_EVENT_REF_NONE.
 * A link in the pane ("Go to launch", "Go to GPU work") emits
 * "go-to-event" (gint lane, guint64 index), which the window turns into a selection. */
void       sl_detail_pane_set_event (SlDetailPane *self,
                                     SlEventRef    ref);
G_END_DECLS
