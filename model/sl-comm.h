/* sl-comm.h: communication on the GPUs: which kernels are collectives (NCCL, c10d, gloo), and how
 * much of their time compute kernels run beside them (HTA's compute/communication overlap). */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

/* Whether a kernel's name is a communication kernel's: NCCL's (ncclKernel_…, ncclDevKernel_…),
 * or a c10d or gloo collective.  Everything else a kernel runs is compute. */
gboolean sl_name_is_comm (const char *name);

/* The kernels of one rank that start in [t0, t1), by kind. */
typedef struct
{
  SlTime kernel_time;   /* durations summed, as cuda_gpu_kern_sum's totals add up */
  SlTime comm_time;     /* of the communication kernels */
  SlTime compute_time;  /* of the others */
  SlTime comm_busy;     /* the union of the communication kernels' intervals, over the rank's
                         * GPUs together */
  SlTime overlap;       /* how much of comm_busy some compute kernel of the rank also ran */
  guint  n_comm;        /* communication kernels */
} SlCommTimes;

/* The kernels of `source` (an index among sl_trace_get_n_sources (); -1: the whole trace) that
 * start in [t0, t1).  The overlap is HTA's: the communication kernels' intervals merged into
 * one union, the compute kernels' into another, on all GPUs of the rank together, and the
 * length of their intersection; sl_comm_overlap_pct () makes it a share of comm_busy.  Memory
 * copies and sets are neither.  Costs a sort of the rank's kernels, O(n log n). */
void     sl_trace_comm_times (SlTrace     *trace,
                              gint         source,
                              SlTime       t0,
                              SlTime       t1,
                              SlCommTimes *out);

/* 100 × overlap / comm_busy, NAN when the rank ran no communication. */
double   sl_comm_overlap_pct (const SlCommTimes *times);

G_END_DECLS
