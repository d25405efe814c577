/* sl-memory.h: GPU memory in use over time and the allocations behind it, from the rows of
 * CUDA_GPU_MEMORY_USAGE_EVENTS (nsys --cuda-memory-usage; sl_trace_get_mem_usage).
 *
 * Bytes in use are a running sum of the rows, allocations adding their bytes and frees taking
 * theirs away, as a SQL window sum over the table gives it: one series per GPU, process and
 * memory kind, and one per GPU for the memory that lives on it (kinds Device, Array and Device
 * Static, every process).  Allocations pair each free with the latest allocation of the same
 * process, GPU and address still open.  Built on first use and kept with the trace. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

/* `kind` of a GPU's series of device-resident memory (sl_mem_kind_on_gpu), every process */
#define SL_MEM_SERIES_GPU (-1)

/* After a row of a series: the bytes in use. */
typedef struct
{
  SlTime  time;
  gint64  bytes;   /* may be negative where the trace frees what it saw no allocation of */
  guint32 row;     /* the row (sl_trace_get_mem_usage) that made the change */
  guint32 reserved;
} SlMemStep;

typedef struct
{
  gint             gpu;         /* index into the GPU table */
  guint64          global_pid;  /* 0 for a GPU's series */
  gint             kind;        /* ENUM_CUDA_MEM_KIND, or SL_MEM_SERIES_GPU */
  const SlMemStep *steps;       /* one per row, in time order */
  gsize            n_steps;
  gint64           peak;        /* the most bytes in use, 0 when never above 0 */
  SlTime           peak_time;   /* when the peak was first reached (the first step's time when
                                 * the peak is 0) */
  gsize            peak_step;
} SlMemSeries;

/* An allocation, from its allocation row to its free row. */
typedef struct
{
  guint32 alloc;   /* row of the allocation, SL_NO_LINK when the trace has only the free */
  guint32 free;    /* row of the free, SL_NO_LINK when it was never freed */
  SlTime  start;   /* G_MININT64 without an allocation row */
  SlTime  end;     /* G_MAXINT64 when never freed */
  guint64 bytes;
  guint64 address;
  guint64 global_pid;
  gint32  gpu;
  guint8  mem_kind;
  guint8  reserved[3];
} SlMemAlloc;

/* Whether memory of this ENUM_CUDA_MEM_KIND lives on the GPU: Device, Array, Device Static.
 * Pinned and pageable memory is the host's; managed memory moves between both and is left out
 * of a GPU's series (it has its own). */
gboolean           sl_mem_kind_on_gpu          (gint kind);
/* "Device", "Pinned" …: the trace's ENUM_CUDA_MEM_KIND label, else nsys's; "GPU memory" for
 * SL_MEM_SERIES_GPU. */
const char        *sl_mem_kind_label           (SlTrace *trace,
                                                gint     kind);

guint              sl_memory_get_n_series      (SlTrace *trace);
/* Series in order: by GPU, its own series first, then by process and kind. */
const SlMemSeries *sl_memory_get_series        (SlTrace *trace,
                                                guint    i);
/* The series of GPU `gpu`'s device-resident memory, -1 when it has no such rows. */
gint               sl_memory_find_gpu_series   (SlTrace *trace,
                                                gint     gpu);
/* The step in effect at `t` (the last one at or before it), -1 before the first. */
gssize             sl_mem_series_step_at       (const SlMemSeries *series,
                                                SlTime             t);
/* The bytes in use at `t`, 0 before the first step. */
gint64             sl_mem_series_bytes_at      (const SlMemSeries *series,
                                                SlTime             t);
/* The most bytes in use within [t0, t1) (the value in effect at t0 included), 0 when nothing. */
gint64             sl_mem_series_max_between   (const SlMemSeries *series,
                                                SlTime             t0,
                                                SlTime             t1);

guint              sl_memory_get_n_allocs      (SlTrace *trace);
/* Allocations by start (those without an allocation row first). */
const SlMemAlloc  *sl_memory_get_alloc         (SlTrace *trace,
                                                guint    i);
/* The allocation a row belongs to (as its allocation or its free), SL_NO_LINK when none. */
guint32            sl_memory_find_row_alloc    (SlTrace *trace,
                                                guint    row);
/* The allocations of series `series` live at `t` (allocated at or before, freed after it),
 * largest first (then oldest): their indices appended to `out` (guint32).  Returns how many. */
guint              sl_memory_live_at           (SlTrace *trace,
                                                guint    series,
                                                SlTime   t,
                                                GArray  *out);
/* The CUDA call that made row `row` (global event id: same process, same correlation id),
 * SL_NO_LINK when the trace has none. */
guint32            sl_memory_get_row_call      (SlTrace *trace,
                                                guint    row);
/* The name of the CUDA call that made row `row` as every pane shows it ("cudaMalloc"); "" for
 * SL_NO_LINK or a row the trace has no call of. */
const char        *sl_memory_row_call_name     (SlTrace *trace,
                                                guint32  row);
/* An allocation's name (a static variable's), from its allocation row or else its free row;
 * "" when it has none. */
const char        *sl_memory_alloc_name        (SlTrace          *trace,
                                                const SlMemAlloc *alloc);
/* The rows the CUDA call `call` (a global event id) made, in time order: up to `max` indices
 * written to `out`; returns how many there are in all. */
guint              sl_memory_find_call_rows    (SlTrace *trace,
                                                guint32  call,
                                                guint   *out,
                                                guint    max);
/* Whether allocation `a` belongs to series `s` (its GPU, process and kind; a GPU's series: any
 * process, a device-resident kind). */
gboolean           sl_mem_series_holds         (const SlMemSeries *s,
                                                const SlMemAlloc  *a);

G_END_DECLS
