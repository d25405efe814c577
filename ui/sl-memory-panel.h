/* sl-memory-panel.h: the Memory tab: a GPU's allocations live at an instant, never freed, all. */
#pragma once

#include "sl-trace.h"
#include "sl-ui-types.h"

G_BEGIN_DECLS

/*
 * A panel beside Statistics and Findings, for the GPU memory of CUDA_GPU_MEMORY_USAGE_EVENTS
 * (model/sl-memory.c): for one GPU, the allocations live at its peak or at the cursor (the end of
 * the timeline's selected range: "At peak / At cursor", which follows the selection), those never
 * freed, or all of them largest first, as a table: size, kind, address, name, allocated at, freed
 * at, lifetime, the allocating call.  Activating a row emits "go-to-event" (gint lane, guint64
 * index) for the call that made the allocation, as the detail pane's links do.  A trace without
 * memory usage greys the tab and says how to record it.
 */
#define SL_TYPE_MEMORY_PANEL (sl_memory_panel_get_type ())
G_DECLARE_FINAL_TYPE (SlMemoryPanel, sl_memory_panel, SL, MEMORY_PANEL, GtkWidget)

typedef enum
{
  SL_MEMORY_VIEW_LIVE,          /* live at the peak or the cursor */
  SL_MEMORY_VIEW_NEVER_FREED,   /* allocated and not freed within the trace */
  SL_MEMORY_VIEW_LARGEST,       /* every allocation */
  SL_MEMORY_N_VIEWS
} SlMemoryView;

GtkWidget *sl_memory_panel_new           (void);

/* The timeline whose trace and selected range the panel follows (not reffed: the window owns
 * both); it reads the trace when the timeline shows a new one. */
void       sl_memory_panel_set_timeline  (SlMemoryPanel  *self,
                                          SlTimelineView *timeline);

void       sl_memory_panel_set_view      (SlMemoryPanel  *self,
                                          SlMemoryView    view);
/* Live at the cursor (TRUE) or at the peak; the cursor only while the timeline has a selection. */
void       sl_memory_panel_set_at_cursor (SlMemoryPanel  *self,
                                          gboolean        at_cursor);

G_END_DECLS
