/* sl-um-faults.h: unified memory's page faults (sl_trace_get_um_fault) by where they came: a
 * series per GPU of its GPU faults (every process), and one per process of its CPU faults.
 *
 * Each series holds its rows' starts in time order with a running sum of their faults, so that
 * the faults of a time range cost two halving searches: a timeline row asks that once per pixel
 * column (10^3 columns, 10^2 … 10^6 rows).  Built on first use and kept with the trace. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

typedef struct
{
  SlUmFaultSide  side;
  gint           gpu;         /* GPU faults: index into the GPU table; -1 for a process's */
  guint64        global_pid;  /* CPU faults: the process; 0 for a GPU's */
  const guint32 *rows;        /* sl_trace_get_um_fault indices, in time order */
  const SlTime  *starts;      /* beside `rows`: each row's start */
  const guint64 *prefix;      /* n_rows + 1 entries: the faults of rows [0, i) */
  gsize          n_rows;
} SlUmFaultSeries;

/* The series: a GPU's in the order of the GPU table, then the processes' by global pid. */
guint                  sl_um_faults_get_n_series   (SlTrace                 *trace);
const SlUmFaultSeries *sl_um_faults_get_series     (SlTrace                 *trace,
                                                    guint                    i);
/* The series of GPU `gpu`'s faults (SL_UM_FAULT_GPU) or of process `global_pid`'s CPU faults
 * (SL_UM_FAULT_CPU); -1 when it had none. */
gint                   sl_um_faults_find_series    (SlTrace                 *trace,
                                                    SlUmFaultSide            side,
                                                    gint                     gpu,
                                                    guint64                  global_pid);
/* The first of the series' rows (a position in `rows`) that starts at or after `t`; n_rows when
 * none does. */
gsize                  sl_um_fault_series_lower    (const SlUmFaultSeries   *s,
                                                    SlTime                   t);
/* The faults (numberOfPageFaults summed; a CPU row is one) of the rows that start in [t0, t1). */
guint64                sl_um_fault_series_count    (const SlUmFaultSeries   *s,
                                                    SlTime                   t0,
                                                    SlTime                   t1);
/* "Read", "Write" …: an access type's label as ENUM_CUDA_UNIF_MEM_ACCESS_TYPE names it;
 * "Unknown" for a value it does not name. */
const char            *sl_um_access_label          (guint8                   access);

G_END_DECLS
