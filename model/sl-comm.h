/* sl-comm.h: communication on the GPUs: which kernels are collectives (NCCL, c10d, gloo), how
 * much of their time compute kernels run beside them on the same GPU (HTA's compute/communication
 * overlap), and the ranks of a job a trace holds. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

/* Whether a kernel's name is a communication kernel's: NCCL's (ncclKernel_…, ncclDevKernel_…),
 * or a c10d or gloo collective.  Everything else a kernel runs is compute. */
gboolean sl_name_is_comm (const char *name);

/* The kernels of one rank (or one GPU) that start in [t0, t1), by kind. */
typedef struct
{
  SlTime kernel_time;   /* durations summed, as cuda_gpu_kern_sum's totals add up */
  SlTime comm_time;     /* of the communication kernels */
  SlTime compute_time;  /* of the others */
  SlTime comm_busy;     /* the union of the communication kernels' intervals on each GPU,
                         * summed over the GPUs */
  SlTime overlap;       /* how much of comm_busy a compute kernel ran on the same GPU */
  guint  n_comm;        /* communication kernels */
} SlCommTimes;

/* The kernels of `source` (an index among sl_trace_get_n_sources (); -1: the whole trace) that
 * start in [t0, t1).  The overlap is HTA's (get_comm_comp_overlap) taken GPU by GPU: on each
 * GPU, the communication kernels' intervals merged into one union, its compute kernels' into
 * another, and the length of their intersection; summed over the GPUs.  A compute kernel on one
 * GPU does not overlap a collective on another (in a file of two ranks, one GPU each, GPU 0's
 * compute beside GPU 1's NCCL is no overlap at all).  sl_comm_overlap_pct () makes it a share
 * of comm_busy.  Memory copies and sets are neither.  Costs a sort of the kernels, O(n log n). */
void     sl_trace_comm_times (SlTrace     *trace,
                              gint         source,
                              SlTime       t0,
                              SlTime       t1,
                              SlCommTimes *out);

/* The same for the kernels of one GPU (an index into the trace's GPU table). */
void     sl_trace_gpu_comm_times (SlTrace     *trace,
                                  guint        gpu,
                                  SlTime       t0,
                                  SlTime       t1,
                                  SlCommTimes *out);

/* 100 × overlap / comm_busy, NAN when the rank ran no communication. */
double   sl_comm_overlap_pct (const SlCommTimes *times);

/*
 * A rank of a distributed job as a trace holds it.  Each file of a merged trace is a rank.  One
 * file holds several when its processes say different ranks (SL_PROCESS_INFO of a recording of
 * the job), or, when none says one, when two or more of its processes ran communication
 * kernels, each on GPUs no other of them used (nsys run over torchrun: a process a rank, its
 * rank not recorded).  Otherwise the trace is one rank.
 */
typedef struct
{
  char    *label;       /* "rank 3"; the file's label; "process 144" */
  gint     source;      /* its file among merged ones, -1 for a rank of one file */
  gint64   rank;        /* the rank its processes say, -1 when it is not chosen by rank */
  guint64  global_pid;  /* its one process, 0 when it is not chosen by process */
} SlCommRank;

/* The trace's ranks (SlCommRank, their labels freed with the array): one per file of a merged
 * trace, else one per rank or process of the file as above, else one for the whole trace
 * (source 0, labelled as that file). */
GArray  *sl_trace_comm_ranks       (SlTrace          *trace);
gboolean sl_comm_rank_has_process  (SlTrace          *trace,
                                    const SlCommRank *rank,
                                    const SlProcess  *process);
/* A thread's by its process. */
gboolean sl_comm_rank_has_thread   (SlTrace          *trace,
                                    const SlCommRank *rank,
                                    gint              thread);
/* The same as a thread filter of sl_trace_steps: `rank` is the const SlCommRank *. */
gboolean sl_comm_rank_thread_filter (SlTrace         *trace,
                                     gint             thread,
                                     gpointer         rank);
/* A CPU lane's by its thread, a GPU lane's by the process whose work it holds. */
gboolean sl_comm_rank_has_lane     (SlTrace          *trace,
                                    const SlCommRank *rank,
                                    const SlLane     *lane);
/* As sl_trace_comm_times, over the rank's GPU lanes. */
void     sl_trace_rank_comm_times  (SlTrace          *trace,
                                    const SlCommRank *rank,
                                    SlTime            t0,
                                    SlTime            t1,
                                    SlCommTimes      *out);

G_END_DECLS
