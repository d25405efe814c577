/* sl-display-name.h: the names a person reads for events, the same in every pane. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

/* The name shown for an event of a `kind` lane whose name is string `id`: nsys's versioned CUDA
 * API names lose their "_vNNNN" ("cudaLaunchKernel_v7000" → "cudaLaunchKernel"), as nsys's
 * reports (cuda_api_sum) and nsys-ui write them; any other name as the trace has it.  Valid as
 * long as the trace; safe from any thread. */
const char *sl_trace_display_name (SlTrace    *trace,
                                   SlLaneKind  kind,
                                   guint32     id);
/* The same for a name's text, known to be a CUDA API name: its length without the suffix. */
gsize       sl_api_display_length  (const char *name);

/* What a lane is called wherever it is shown (the timeline's rows, the events table, its CSV):
 * its kind ("CUDA API", "Host waits", "Thread state (derived)"), never its depth: a thread's
 * nesting lanes read as one row that grows in depth, as nsys-ui shows them, not "NVTX 1 … NVTX
 * 10"; "Unified memory" for copies that are all unified-memory migrations (copyKind 11 … 13,
 * as nsys writes them on a stream of their own), which `trace` (NULL: not asked) tells.  A
 * static string. */
const char *sl_lane_display_title  (SlTrace      *trace,
                                    const SlLane *lane);

G_END_DECLS
