/* sl-critical-path-panel-private.h: the critical-path panel as the GUI test reads and drives it. */
#pragma once

#include "sl-critical-path-panel.h"

G_BEGIN_DECLS

/* Whether a computation is under way; the path shown (NULL when none). */
gboolean        _sl_critical_path_panel_is_busy       (SlCriticalPathPanel *self);
SlCriticalPath *_sl_critical_path_panel_get_path      (SlCriticalPathPanel *self);
/* The summary over the list and the shares' legend, as shown. */
const char     *_sl_critical_path_panel_get_summary   (SlCriticalPathPanel *self);
const char     *_sl_critical_path_panel_get_shares    (SlCriticalPathPanel *self);
/* The list's rows, and row i's cells as shown (start from the range's start, duration, kind,
 * where, event), joined by tabs. */
guint           _sl_critical_path_panel_get_n_rows    (SlCriticalPathPanel *self);
char           *_sl_critical_path_panel_dup_row_text  (SlCriticalPathPanel *self,
                                                       guint                i);
/* Row i's widget when the list has made it (on screen), scrolled to first; else NULL. */
GtkWidget      *_sl_critical_path_panel_get_row_widget (SlCriticalPathPanel *self,
                                                        guint                i);
GtkWidget      *_sl_critical_path_panel_get_clear_button (SlCriticalPathPanel *self);

G_END_DECLS
