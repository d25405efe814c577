/* sl-trace-info.h: Main menu → About this Trace: what the file holds and what was loaded of it. */
#pragma once

#include <gtk/gtk.h>

#include "sl-trace.h"

G_BEGIN_DECLS

#define SL_TYPE_TRACE_INFO (sl_trace_info_get_type ())
G_DECLARE_FINAL_TYPE (SlTraceInfo, sl_trace_info, SL, TRACE_INFO, GtkWindow)

/* A window over `parent` describing `trace`; the file's tables are read on a thread after it
 * opens.  Present it. */
SlTraceInfo *sl_trace_info_new (GtkWindow *parent,
                                SlTrace   *trace);

G_END_DECLS
