/* sl-record-dialog-private.h: the record dialog as the GUI test reads it. */
#pragma once

#include "sl-record-dialog.h"

G_BEGIN_DECLS

/* The message of the check that failed, as the dialog shows it (tests/test-ui-app.c). */
const char *sl_record_dialog_get_error (SlRecordDialog *self);

G_END_DECLS
