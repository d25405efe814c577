/* sl-trace-info-private.h: About this Trace as the GUI test reads it. */
#pragma once

#include "sl-trace-info.h"

G_BEGIN_DECLS

/* Tables listed; 0 until the file's tables were read (on a thread). */
guint  sl_trace_info_get_n_tables (SlTraceInfo *self);
/* The page as Copy puts it on the clipboard: what a person reads, tables as tab-separated rows. */
char  *sl_trace_info_get_text     (SlTraceInfo *self);

G_END_DECLS
