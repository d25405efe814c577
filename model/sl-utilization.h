/* sl-utilization.h: how busy each GPU was, for any window and for N buckets. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

typedef enum
{
  SL_UTIL_KERNELS,   /* at least one kernel or CUDA graph launch running */
  SL_UTIL_ANY,       /* any GPU work: kernels, graph launches, copies, sets */
} SlUtilKind;

/* Time in [t0, t1) during which the GPU was busy (union over its streams). O(log n). */
SlTime sl_trace_gpu_busy_time   (SlTrace    *trace,
                                 guint       gpu,
                                 SlUtilKind  kind,
                                 SlTime      t0,
                                 SlTime      t1);
/* Fraction of [t0, t1) the GPU was busy, 0 … 1. */
double sl_trace_gpu_utilization (SlTrace    *trace,
                                 guint       gpu,
                                 SlUtilKind  kind,
                                 SlTime      t0,
                                 SlTime      t1);
/* Utilization of n equal buckets of [t0, t1) into out[0 … n-1].  O(n log m). */
void   sl_trace_gpu_utilization_buckets (SlTrace    *trace,
                                         guint       gpu,
                                         SlUtilKind  kind,
                                         SlTime      t0,
                                         SlTime      t1,
                                         guint       n,
                                         double     *out);
/* Number of disjoint busy intervals (for tests and `sightline info`). */
gsize  sl_trace_gpu_busy_intervals (SlTrace   *trace,
                                    guint      gpu,
                                    SlUtilKind kind);

/* Calls func for each interval of the union, in order; stops when it returns FALSE. */
typedef gboolean (*SlBusyFunc) (SlTime start, SlTime end, gpointer user_data);

void   sl_trace_gpu_busy_foreach   (SlTrace    *trace,
                                    guint       gpu,
                                    SlUtilKind  kind,
                                    SlBusyFunc  func,
                                    gpointer    user_data);

G_END_DECLS
