/* sl-detail-pane-private.h: the detail pane as the GUI test reads it. */
#pragma once

#include "sl-detail-pane.h"

G_BEGIN_DECLS

/* The event shown (tests/test-ui-app.c). */
SlEventRef sl_detail_pane_get_event (SlDetailPane *self);
/* What the pane shows, one "Key: value" line per row (headings alone on theirs, links as
 * "[Go to launch]"), in order. */
char      *_sl_detail_pane_get_text (SlDetailPane *self);

/* The pane's wording, testable without a widget (tests/test-ui-detail.c): an offset from the
 * trace start precise enough for an event of `resolution` ns, and a queue delay. */
char      *_sl_detail_pane_format_offset      (SlTime offset,
                                               SlTime resolution);
char      *_sl_detail_pane_format_queue_delay (SlTime api_end,
                                               SlTime work_start);

G_END_DECLS
