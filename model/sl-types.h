/* sl-types.h: forward declarations and the small value types shared by the model layer. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SlTrace SlTrace;
typedef struct _SlLane  SlLane;

/* Times are integer nanoseconds on the trace's own time base, as nsys writes them. */
typedef gint64 SlTime;

#define SL_NO_STR   ((guint32) 0)          /* string id 0 is always "" */
#define SL_NO_LINK  ((guint32) 0xFFFFFFFFu) /* an event that correlates with nothing */

/* One event: a lane of the trace and an index in it. */
typedef struct
{
  gint  lane;    /* -1 = none */
  gsize index;
} SlEventRef;

#define SL_EVENT_REF_NONE ((SlEventRef) { -1, 0 })

/* What a lane holds.  One lane is one row on screen. */
typedef enum
{
  SL_LANE_CUDA_API,  /* a thread's CUDA runtime and driver calls */
  SL_LANE_NVTX,      /* a thread's NVTX ranges and marks at one nesting depth */
  SL_LANE_OSRT,      /* a thread's OS runtime calls */
  SL_LANE_SAMPLES,   /* a thread's CPU samples (start == end) */
  SL_LANE_KERNELS,   /* a GPU stream's kernels */
  SL_LANE_MEMCPY,    /* a GPU stream's memory copies */
  SL_LANE_MEMSET,    /* a GPU stream's memory sets */
  SL_LANE_SYNC,      /* a GPU stream's synchronization records */
  SL_LANE_SCHED,     /* a thread's states (running, runnable, blocked), tiling its time */
  SL_LANE_GRAPHS,    /* a GPU stream's CUDA graph launches (CUPTI_ACTIVITY_KIND_GRAPH_TRACE) */
  SL_LANE_MPI,       /* a thread's MPI calls (MPI_* tables, NVTX domain "MPI"): sl-mpi.h */
  SL_LANE_OPENMP,    /* a thread's OpenMP regions (OPENMP_EVENT_KIND_*) at one nesting depth:
                      * sl-openmp.h */
  SL_LANE_OPENACC,   /* a thread's OpenACC events (CUPTI_ACTIVITY_KIND_OPENACC_*) at one depth */
  SL_N_LANE_KINDS
} SlLaneKind;

/*
 * One event: 32 bytes, no pointers.  A lane is a flat array of these sorted by start.
 * The meaning of `corr`, `link` and `aux` depends on the lane kind:
 *
 *   kind      name              corr            link                 aux
 *   CUDA_API  API name          correlation id  global id of GPU op  eventClass | returnValue << 8
 *   NVTX      range text        domain string   SL_NVTX_* flags |    ARGB colour (0 = none)
 *                                               rowid << 4
 *   OSRT      function name     callchain id    -                    returnValue (low 32 bits)
 *   SAMPLES   leaf symbol       thread state    -                    index into the call-chain
 *                                                                    table
 *   KERNELS   demangled name    correlation id  global id of launch  index of SlKernelInfo
 *   MEMCPY    "[CUDA memcpy …]" correlation id  global id of launch  index of SlCopyInfo
 *   MEMSET    "[CUDA memset]"   correlation id  global id of launch  index of SlCopyInfo
 *   SYNC      sync type label   correlation id  global id of launch  syncType
 *   GRAPHS    "CUDA Graph <id>" correlation id  global id of launch  index of SlKernelInfo
 *                                                                    (graph_id, graph_exec_id)
 *   MPI       MPI function      index of        SL_NO_LINK           SlMpiSource |
 *             name              SlMpiCall                            SlMpiDir << 8
 *   OPENMP,   event name        index of        SL_NO_LINK           SlOmpSource (its table)
 *   OPENACC   (nameId)          SlOmpEvent
 *   SCHED     state label       CPU (Running)   block reason         SlThreadState
 *                               or SL_NO_LINK   (ENUM_SCHEDULING_    | SL_STATE_DERIVED
 *                                               THREAD_BLOCK) or
 *                                               SL_NO_LINK
 */
typedef struct
{
  SlTime  start;
  SlTime  end;
  guint32 name;
  guint32 corr;
  guint32 link;
  guint32 aux;
} SlEvent;

G_STATIC_ASSERT (sizeof (SlEvent) == 32);

/* NVTX flags kept in SlEvent.link */
#define SL_NVTX_START_END    (1u << 0)  /* a start/end range (otherwise push/pop) */
#define SL_NVTX_MARK         (1u << 1)  /* an instantaneous mark */
#define SL_NVTX_UNTERMINATED (1u << 2)  /* end was NULL in the file; clamped to the trace end */
#define SL_NVTX_OTHER_THREAD (1u << 3)  /* a start/end range ended on another thread (endGlobalTid):
                                         * drawn on the thread it started on, never projected */
/* Above those 4 bits, the row's NVTX_EVENTS rowid: nsys's RangeId (nvtx_gpu_proj_trace), which
 * follows the file's row order, not time order (nsys writes a range when it ends).  0 where the
 * trace has none (a JSON trace) or it is past SL_NVTX_ROWID_MAX (268 million rows). */
#define SL_NVTX_FLAGS        0xFu
#define SL_NVTX_ROWID_SHIFT  4
#define SL_NVTX_ROWID_MAX    ((gint64) (G_MAXUINT32 >> SL_NVTX_ROWID_SHIFT))
#define SL_NVTX_ROWID(link)  ((guint32) (link) >> SL_NVTX_ROWID_SHIFT)

/* A thread's state in an SL_LANE_SCHED event's `aux` (low 8 bits). */
typedef enum
{
  SL_STATE_UNKNOWN  = 0,  /* the file does not say */
  SL_STATE_RUNNING  = 1,  /* on a CPU (`corr`) */
  SL_STATE_RUNNABLE = 2,  /* preempted: ready, waiting for a CPU */
  SL_STATE_BLOCKED  = 3,  /* asleep or waiting (`link`: why, where the file says) */
  SL_N_THREAD_STATES
} SlThreadState;

/* Set in `aux` when the state was derived from CPU samples and OS runtime calls, not read from
 * scheduling data. */
#define SL_STATE_DERIVED (1u << 8)
#define SL_STATE_OF(aux) ((SlThreadState) ((aux) & 0xFFu))

/* Launch configuration of a kernel; identical configurations are stored once. */
typedef struct
{
  guint32 demangled_name;
  guint32 short_name;
  guint32 mangled_name;       /* SL_NO_STR where the file has none */
  guint32 grid[3];
  guint32 block[3];
  guint32 registers_per_thread;
  guint32 static_shared;      /* bytes */
  guint32 dynamic_shared;     /* bytes */
  guint32 local_per_thread;   /* bytes */
  guint32 shared_executed;    /* bytes configured by the driver, 0 when unknown */
  guint16 launch_type;
  guint16 cache_config;
  /* CUDA graphs: a kernel traced as a graph node (nsys --cuda-graph-trace=node) has its graph's
   * id and its node's; a graph launch (an SL_LANE_GRAPHS event) has its graph's and its
   * executable graph's id (graph_node_id 0).  All 0 for a kernel launched on its own. */
  guint32 graph_id;
  guint32 graph_exec_id;
  guint64 graph_node_id;
} SlKernelInfo;

/* Bytes and memory kinds of a copy or set; identical ones are stored once. */
typedef struct
{
  guint64 bytes;
  guint32 value;              /* memset value */
  guint8  copy_kind;          /* ENUM_CUDA_MEMCPY_OPER */
  guint8  src_kind;           /* ENUM_CUDA_MEM_KIND, SL_MEM_KIND_NONE when absent */
  guint8  dst_kind;
  guint8  mem_kind;           /* memset */
  gint16  src_device;         /* -1 when absent */
  gint16  dst_device;
  guint8  migration_cause;    /* a unified-memory migration's (ENUM_CUDA_UNIF_MEM_MIGRATION: 1
                               * user prefetch, 2 page fault, 3 speculative prefetch, 4
                               * eviction, 5 access counters), SL_MIGRATION_NONE otherwise */
  guint8  reserved[3];        /* 0: no padding of unknown bytes in the model cache */
  guint64 address;            /* a migration's virtualAddress, 0 otherwise: migrations of
                               * different pages are different infos (~10^3 … 10^5 in a trace;
                               * other copies still share theirs) */
} SlCopyInfo;

G_STATIC_ASSERT (sizeof (SlCopyInfo) == 32);

#define SL_MIGRATION_NONE 0xFF
/* A copy kind of unified memory (ENUM_CUDA_MEMCPY_OPER 11 … 13): a migration. */
#define SL_COPY_KIND_IS_UNIFIED(k) ((k) >= 11 && (k) <= 13)

#define SL_MEM_KIND_NONE 0xFF

/* The limits of a GPU that occupancy needs.  0 means "unknown": see sl_gpu_limits_complete(). */
typedef struct
{
  gint cc_major;
  gint cc_minor;
  gint sm_count;
  gint warp_size;
  gint max_threads_per_block;
  gint max_warps_per_sm;
  gint max_blocks_per_sm;
  gint max_regs_per_block;
  gint max_regs_per_sm;
  gint max_smem_per_block;        /* bytes, without opt-in */
  gint max_smem_per_block_optin;  /* bytes */
  gint max_smem_per_sm;           /* bytes */
} SlGpuLimits;

G_END_DECLS
