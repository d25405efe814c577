/* sl-detail-pane-private.h: the detail pane as the GUI test reads it. */
#pragma once

#include "sl-detail-pane.h"

G_BEGIN_DECLS

/* The event shown (tests/test-ui-app.c). */
SlEventRef sl_detail_pane_get_event (SlDetailPane *self);

G_END_DECLS
