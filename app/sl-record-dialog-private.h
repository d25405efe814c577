/* sl-record-dialog-private.h: the record dialog as the GUI test reads it. */
#pragma once

#include "sl-record-dialog.h"

G_BEGIN_DECLS

/* The message of the check that failed, as the dialog shows it (tests/test-ui-app.c). */
const char *sl_record_dialog_get_error (SlRecordDialog *self);
/* Whether the --capture-range-end drop-down and repeat's N take input now. */
gboolean    sl_record_dialog_capture_end_sensitive (SlRecordDialog *self,
                                                    gboolean       *n_sensitive);

G_END_DECLS
