/* sl-record-dialog.h: File → Record…: what to run and what to trace; remembers the last settings. */
#pragma once

#include <gtk/gtk.h>

#include "sl-recording.h"

G_BEGIN_DECLS

#define SL_TYPE_RECORD_DIALOG (sl_record_dialog_get_type ())
G_DECLARE_FINAL_TYPE (SlRecordDialog, sl_record_dialog, SL, RECORD_DIALOG, GtkWindow)

/* "record" (SlRecordSettings *settings): the person pressed Record and the settings passed the
 * checks (they were saved as the last ones); the dialog closes itself after. */
SlRecordDialog   *sl_record_dialog_new           (GtkWindow              *parent);
void              sl_record_dialog_set_settings  (SlRecordDialog         *self,
                                                  const SlRecordSettings *settings);
SlRecordSettings *sl_record_dialog_get_settings  (SlRecordDialog         *self);
/* Presses Record (as the button does); FALSE when a check failed (its message is shown in the
 * dialog). */
gboolean          sl_record_dialog_record        (SlRecordDialog         *self);

G_END_DECLS
