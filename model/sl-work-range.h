/* sl-work-range.h: where a trace's work is, for the first view of it: its GPU work, else its CPU
 * work less the ranges that only enclose it (a profiler's session span, a whole-run step). */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

/* The range a first view should show, inside the trace's bounds: the GPU work (kernels, copies,
 * sets) with a margin when there is any, else the CPU events shorter than half the trace; the
 * whole trace when that range is most of it or the trace holds no such events.  TRUE when the
 * range is narrower than the whole trace. */
gboolean sl_trace_get_work_range (SlTrace *trace,
                                  SlTime  *start,
                                  SlTime  *end);

G_END_DECLS
