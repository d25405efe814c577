/* sl-wire.h: the framed binary records the injection library streams to sightlined; no GLib.
 *
 * A target process opens one stream connection to the daemon and writes records back to back.
 * Every record starts with an SlWireHeader; `size` is the whole record, header included, and a
 * multiple of 8 so that the next header is aligned.  Fixed parts are plain C structs (both ends
 * are the same machine and the same build); variable text follows the fixed part, NUL-terminated,
 * its length included in `size`.  A reader trusts nothing: it checks `size` against the type's
 * fixed part and that text is terminated inside the record.
 *
 * Typical volumes: 10^3 … 10^6 records a second per process, 32 … 128 bytes each.  Times are
 * CLOCK_MONOTONIC nanoseconds; the daemon writes them as they are (the session time base).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define SL_WIRE_MAGIC   0x534c5731u /* "SLW1": first 4 bytes of a HELLO */
#define SL_WIRE_VERSION 1
#define SL_WIRE_MAX_RECORD (1u << 16) /* `size` is 16 bits: no record is bigger than 64 KiB - 8 */
#define SL_WIRE_MAX_FRAMES 128        /* frames of one CPU sample, leaf first */

  typedef enum
  {
    SL_WIRE_HELLO = 1,      /* first record of a connection: SlWireHello + command line text */
    SL_WIRE_THREAD_NAME,    /* SlWireThreadName + name */
    SL_WIRE_OSRT,           /* SlWireOsrt */
    SL_WIRE_NVTX,           /* SlWireNvtx + text (may be empty) */
    SL_WIRE_SAMPLE,         /* SlWireSample + n_frames uint64_t addresses */
    SL_WIRE_MODULE,         /* SlWireModule + path: an ELF object mapped into the process */
    SL_WIRE_CUDA_API,       /* SlWireCudaApi + API function name */
    SL_WIRE_KERNEL,         /* SlWireKernel + mangled (or plain) kernel name */
    SL_WIRE_MEMCPY,         /* SlWireMemcpy */
    SL_WIRE_MEMSET,         /* SlWireMemset */
    SL_WIRE_SYNC,           /* SlWireSync */
    SL_WIRE_GPU,            /* SlWireGpu + device name: a device's properties */
    SL_WIRE_CONTEXT,        /* SlWireContext */
    SL_WIRE_STREAM,         /* SlWireStream */
    SL_WIRE_DROPPED,        /* SlWireDropped: records lost on the way, never silent */
    SL_WIRE_BYE,            /* SlWireBye: the process ends normally (exit) or on a signal */
    SL_WIRE_SCHED,          /* SlWireSched: a context switch (made by the daemon, not the library) */
    SL_WIRE_PROCESS,        /* SlWireProcess + command line: a process of the tree (daemon) */
    SL_WIRE_PYCODE,         /* SlWirePyCode + name, file, line table: a Python code object */
    SL_WIRE_CUDA_EVENT,     /* SlWireCudaEvent: a cudaEventRecord's event on the GPU */
    SL_WIRE_GRAPH,          /* SlWireGraph: a CUDA graph launch traced whole */
    SL_WIRE_CUDA_BACKTRACE, /* SlWireCudaBacktrace + n_frames addresses: a CUDA call's stack */
    SL_WIRE_DIAGNOSTIC,     /* SlWireDiagnostic + text: the library about the collection itself */
    SL_WIRE_CUDA_MEMORY,    /* SlWireCudaMemory + variable name: GPU memory allocated or freed */
    SL_WIRE_UM,             /* SlWireUm: a unified-memory migration or page fault */
    SL_WIRE_GPU_METRIC_SET, /* SlWireGpuMetricSet + chip name: the metrics sampled on a GPU */
    SL_WIRE_GPU_METRICS,    /* SlWireGpuMetrics + n_values SlWireGpuMetricValue: one sample */
    SL_WIRE_MPI,            /* SlWireMpiCalls + calls: a thread's MPI calls (-t mpi) */
    SL_WIRE_MPI_COMM,       /* SlWireMpiComm + members: an MPI communicator as this rank sees it */
    SL_WIRE_OPENMP,         /* SlWireOpenmp: an OpenMP region or implicit task (-t openmp) */
    SL_WIRE_N_TYPES
  } SlWireType;

  typedef struct
  {
    uint16_t type; /* SlWireType */
    uint16_t size; /* whole record in bytes, multiple of 8 */
    uint32_t tid;  /* thread that produced it (kernel tid) */
  } SlWireHeader;

  typedef struct
  {
    SlWireHeader h;
    uint32_t magic;   /* SL_WIRE_MAGIC */
    uint32_t version; /* SL_WIRE_VERSION */
    int32_t pid;
    int32_t ppid;
    uint64_t session;  /* from SIGHTLINE_SESSION: which recording this process belongs to */
    uint64_t start_ns; /* CLOCK_MONOTONIC when the library started in this process */
    uint64_t realtime_ns; /* CLOCK_REALTIME at the same moment */
    /* followed by the command line: arguments separated by ' ', NUL-terminated; then, where the
     * process has a rank in a distributed job, "rank=N" and a NUL (N from the first of RANK,
     * SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK that holds a number): text after the command
     * line, so that a HELLO without it (or a reader that ignores it) means what it always did */
  } SlWireHello;

  typedef struct
  {
    SlWireHeader h;
    uint64_t time_ns;
    /* followed by the name */
  } SlWireThreadName;

  /* The interposed OS runtime functions; names in sl_wire_osrt_name(). */
  typedef enum
  {
    SL_OSRT_READ,
    SL_OSRT_WRITE,
    SL_OSRT_PREAD,
    SL_OSRT_PWRITE,
    SL_OSRT_READV,
    SL_OSRT_WRITEV,
    SL_OSRT_RECV,
    SL_OSRT_RECVFROM,
    SL_OSRT_RECVMSG,
    SL_OSRT_SEND,
    SL_OSRT_SENDTO,
    SL_OSRT_SENDMSG,
    SL_OSRT_ACCEPT,
    SL_OSRT_ACCEPT4,
    SL_OSRT_CONNECT,
    SL_OSRT_POLL,
    SL_OSRT_PPOLL,
    SL_OSRT_SELECT,
    SL_OSRT_PSELECT6,
    SL_OSRT_EPOLL_WAIT,
    SL_OSRT_EPOLL_PWAIT,
    SL_OSRT_NANOSLEEP,
    SL_OSRT_CLOCK_NANOSLEEP,
    SL_OSRT_USLEEP,
    SL_OSRT_SLEEP,
    SL_OSRT_PTHREAD_MUTEX_LOCK,
    SL_OSRT_PTHREAD_MUTEX_TIMEDLOCK,
    SL_OSRT_PTHREAD_COND_WAIT,
    SL_OSRT_PTHREAD_COND_TIMEDWAIT,
    SL_OSRT_PTHREAD_RWLOCK_RDLOCK,
    SL_OSRT_PTHREAD_RWLOCK_WRLOCK,
    SL_OSRT_PTHREAD_JOIN,
    SL_OSRT_SEM_WAIT,
    SL_OSRT_SEM_TIMEDWAIT,
    SL_OSRT_OPEN,
    SL_OSRT_OPEN64,
    SL_OSRT_OPENAT,
    SL_OSRT_CLOSE,
    SL_OSRT_FOPEN,
    SL_OSRT_FCLOSE,
    SL_OSRT_FREAD,
    SL_OSRT_FWRITE,
    SL_OSRT_IOCTL,
    SL_OSRT_WAITPID,
    SL_OSRT_FSYNC,
    SL_OSRT_SYSCALL_FUTEX,
    SL_OSRT_N_FUNCS
  } SlOsrtFunc;

  typedef struct
  {
    SlWireHeader h;
    uint64_t start_ns;
    uint64_t end_ns;
    int64_t ret; /* the call's return value */
    uint32_t func; /* SlOsrtFunc */
    uint32_t n_frames; /* return addresses that follow (the call's backtrace, caller first) */
    /* followed by n_frames uint64_t: calls longer than the backtrace threshold only */
  } SlWireOsrt;

  /* NVTX: the library sends what happened; the daemon pairs push/pop per thread and start/end by
   * range id into the ranges NVTX_EVENTS holds. */
  typedef enum
  {
    SL_NVTX_MARK,          /* time_ns */
    SL_NVTX_PUSH,          /* time_ns, text */
    SL_NVTX_POP,           /* time_ns */
    SL_NVTX_START,         /* time_ns, range_id, text */
    SL_NVTX_END,           /* time_ns, range_id */
    SL_NVTX_DOMAIN_CREATE, /* time_ns, domain, text = its name */
    SL_NVTX_THREAD_NAME,   /* nvtxNameOsThread: range_id = the tid, text = the name */
  } SlNvtxOp;

  typedef struct
  {
    SlWireHeader h;
    uint64_t time_ns;
    uint64_t range_id; /* nvtxRangeId_t of START/END */
    uint64_t domain;   /* 0: the default domain; else the library's handle */
    uint32_t op;       /* SlNvtxOp */
    uint32_t color;    /* ARGB */
    uint32_t category;
    uint32_t has_color;
    /* followed by the message text */
  } SlWireNvtx;

  typedef struct
  {
    SlWireHeader h;
    uint64_t time_ns;
    uint32_t n_frames;     /* return addresses that follow, leaf first */
    uint32_t thread_state; /* SL_THREAD_STATE_* of sl-schema.h */
    /* followed by n_frames uint64_t */
  } SlWireSample;

  typedef struct
  {
    SlWireHeader h;
    uint64_t base;  /* load bias (dlpi_addr) */
    uint64_t start; /* lowest mapped address of its PT_LOAD segments */
    uint64_t end;   /* one past the highest */
    /* followed by the path ("" for the main program: the daemon uses /proc/PID/exe's path sent
     * in HELLO, so this is filled by the library from /proc/self/exe) */
  } SlWireModule;

  typedef struct
  {
    SlWireHeader h;
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t correlation_id;
    uint32_t event_class; /* SL_EVENT_CLASS_CUDA_RUNTIME or _DRIVER */
    int32_t return_value;
    uint32_t cbid;
    /* followed by the API name, e.g. "cudaLaunchKernel_v7000" */
  } SlWireCudaApi;

  typedef struct
  {
    SlWireHeader h;
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t device_id;
    uint32_t context_id;
    uint32_t stream_id;
    uint32_t correlation_id;
    int32_t grid_x, grid_y, grid_z;
    int32_t block_x, block_y, block_z;
    int32_t registers_per_thread;
    int32_t static_shared_memory;
    int32_t dynamic_shared_memory;
    uint32_t local_memory_per_thread;
    uint64_t local_memory_total;
    int64_t grid_id;
    uint32_t launch_type;  /* SL_LAUNCH_TYPE_* */
    uint32_t cache_config; /* CUPTI's requested/executed byte, as nsys stores it */
    uint32_t shared_memory_executed;
    uint32_t graph_node_id_lo, graph_node_id_hi; /* 0 when not from a graph */
    uint32_t graph_id;
    int32_t cluster_x, cluster_y, cluster_z;
    uint32_t flags; /* SL_WIRE_KERNEL_* */
    /* followed by the (usually mangled) kernel name */
  } SlWireKernel;

/* SlWireKernel.flags: the running CUPTI's kernel record has no cluster dimensions (before CUDA
 * 11.8's CUpti_ActivityKernel8): cluster_* are not known, and written as NULL */
#define SL_WIRE_KERNEL_NO_CLUSTER 0x1u

/* An event_sync_id the running CUPTI's record lacks (before CUDA 12.8's
 * CUpti_ActivitySynchronization2 and CUpti_ActivityCudaEvent2): written as NULL, where
 * UINT32_MAX, CUPTI's own "none", is written as nsys writes it */
#define SL_WIRE_ABSENT_ID UINT64_MAX

  typedef struct
  {
    SlWireHeader h;
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t bytes;
    uint32_t device_id;
    uint32_t context_id;
    uint32_t stream_id;
    uint32_t correlation_id;
    uint32_t copy_kind; /* SL_MEMCPY_* (ENUM_CUDA_MEMCPY_OPER) */
    uint32_t src_kind;  /* SL_MEM_KIND_* (ENUM_CUDA_MEM_KIND) */
    uint32_t dst_kind;
    uint32_t src_device_id; /* peer copies; else device_id */
    uint32_t dst_device_id;
    uint32_t pad;
  } SlWireMemcpy;

  typedef struct
  {
    SlWireHeader h;
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t bytes;
    uint32_t device_id;
    uint32_t context_id;
    uint32_t stream_id;
    uint32_t correlation_id;
    uint32_t value;
    uint32_t mem_kind;
  } SlWireMemset;

  typedef struct
  {
    SlWireHeader h;
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t device_id;
    uint32_t context_id;
    uint32_t stream_id; /* UINT32_MAX: none */
    uint32_t correlation_id;
    uint32_t sync_type; /* SL_SYNC_* */
    uint32_t event_id;  /* UINT32_MAX: none */
    uint64_t event_sync_id; /* the event record waited for (SlWireCudaEvent); UINT32_MAX: none;
                             * SL_WIRE_ABSENT_ID: not in this CUPTI's record */
  } SlWireSync;

  /* CUPTI_ACTIVITY_KIND_CUDA_EVENT: a cudaEventRecord, once per record of an event. */
  typedef struct
  {
    SlWireHeader h;
    uint64_t timestamp_ns;  /* on the GPU when it was reached; 0: not collected (the default) */
    uint64_t event_sync_id; /* what SlWireSync.event_sync_id names it by; SL_WIRE_ABSENT_ID */
    uint32_t device_id;
    uint32_t context_id;
    uint32_t stream_id;
    uint32_t correlation_id; /* the cudaEventRecord call's */
    uint32_t event_id;
    uint32_t pad;
  } SlWireCudaEvent;

  /* CUPTI_ACTIVITY_KIND_GRAPH_TRACE: one launch of a CUDA graph, its nodes not traced one by
   * one (nsys --cuda-graph-trace=graph). */
  typedef struct
  {
    SlWireHeader h;
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t device_id;
    uint32_t context_id;
    uint32_t stream_id;
    uint32_t correlation_id; /* the launching call's */
    uint32_t graph_id;
    uint32_t graph_exec_id; /* 0: not known (the launch's callback was not seen) */
  } SlWireGraph;

  /* The backtrace of a CUDA API call (nsys --cudabacktrace), taken on the calling thread in
   * CUPTI's exit callback; the call's SL_WIRE_CUDA_API record comes later from CUPTI's buffers
   * (or, rarely, earlier) with the same correlation id and event class, and the daemon ties the
   * two together (CUPTI_ACTIVITY_KIND_RUNTIME.callchainId).  Frames leaf first: the return
   * address into the CUDA library that called CUPTI, then its callers; Python frames as in
   * samples. */
  typedef struct
  {
    SlWireHeader h;
    uint64_t time_ns;        /* the call's exit */
    uint32_t correlation_id;
    uint32_t event_class;    /* SL_EVENT_CLASS_CUDA_RUNTIME or _DRIVER, as SlWireCudaApi's */
    uint32_t n_frames;
    uint32_t pad;
    /* followed by n_frames uint64_t */
  } SlWireCudaBacktrace;

  /* CUPTI_ACTIVITY_KIND_MEMORY2 (nsys --cuda-memory-usage): one allocation or release of memory
   * by a CUDA call (or, for device-static variables, by loading a module), a row of
   * CUDA_GPU_MEMORY_USAGE_EVENTS.  A few per training step at most; 10^3 … 10^5 in a run. */
  typedef struct
  {
    SlWireHeader h;
    uint64_t time_ns;
    uint64_t address;
    uint64_t bytes;
    uint64_t pc;             /* CUPTI's program counter of the operation, 0 when it has none */
    uint32_t device_id;
    uint32_t context_id;     /* 0: none (a device-static variable's) */
    uint32_t correlation_id; /* the CUDA call's; 0: none */
    uint32_t mem_kind;       /* SL_MEM_KIND_* (ENUM_CUDA_MEM_KIND) */
    uint32_t operation;      /* SL_MEM_OPER_* (ENUM_CUDA_DEV_MEM_EVENT_OPER) */
    uint32_t pad;
    /* followed by the variable's name: "" for all but device-static and managed-static memory */
  } SlWireCudaMemory;

  /* SlWireUm.kind: which of CUPTI's unified-memory counters the record is */
  typedef enum
  {
    SL_UM_HTOD,      /* a migration to the GPU: a CUPTI_ACTIVITY_KIND_MEMCPY row, copyKind 11 */
    SL_UM_DTOH,      /* to the host: copyKind 12 */
    SL_UM_CPU_FAULT, /* a CPU page fault: a row of CUDA_UM_CPU_PAGE_FAULT_EVENTS */
    SL_UM_GPU_FAULT, /* a group of GPU page faults on a page: CUDA_UM_GPU_PAGE_FAULT_EVENTS */
  } SlUmKind;

  /* CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER (nsys --cuda-um-cpu-page-faults,
   * --cuda-um-gpu-page-faults): 10^2 … 10^6 in a run that touches managed memory from both
   * sides, one per 4 KiB … 2 MiB moved or faulted. */
  typedef struct
  {
    SlWireHeader h;
    uint64_t start_ns;
    uint64_t end_ns;  /* faults on the CPU have none: start_ns */
    uint64_t address; /* the pages' virtual base address; the faulting page's */
    uint64_t value;   /* migrations: bytes; GPU faults: how many; CPU faults: the faulting
                       * instruction's address */
    uint32_t kind;      /* SlUmKind */
    uint32_t device_id; /* the GPU of a migration (its destination or source) or GPU fault */
    uint32_t flags;     /* migrations: ENUM_CUDA_UNIF_MEM_MIGRATION; GPU faults:
                         * ENUM_CUDA_UNIF_MEM_ACCESS_TYPE (CUPTI's values are nsys's) */
    uint32_t pad;
  } SlWireUm;

  /* nsys --gpu-metrics: the metrics CUPTI's PM sampling reads on one GPU, sent once per GPU
   * before its first sample; `metrics` has bit SL_GPU_METRIC_* set for each (sl-schema.h names
   * them as nsys does), the chip name ("GH100") follows. */
  typedef struct
  {
    SlWireHeader h;
    uint64_t metrics;
    uint32_t device_id;
    uint32_t hz; /* samples a second asked for */
  } SlWireGpuMetricSet;

  typedef struct
  {
    uint32_t metric_id; /* SL_GPU_METRIC_* */
    uint32_t pad;
    int64_t value;      /* as nsys stores it: an integer (percent, MHz, requests) */
  } SlWireGpuMetricValue;

  /* One PM sample of a GPU: every metric of its set at the end of the period it covers.  10^4 a
   * second per GPU at nsys's default rate: one record a sample, ~20 values, ~350 bytes. */
  typedef struct
  {
    SlWireHeader h;
    uint64_t time_ns; /* the session's clock */
    uint64_t raw_ns;  /* the GPU's own timestamp (GPU_METRICS.rawTimestamp) */
    uint32_t device_id;
    uint32_t n_values;
    /* followed by n_values SlWireGpuMetricValue */
  } SlWireGpuMetrics;

  typedef struct
  {
    SlWireHeader h;
    uint32_t device_id;
    int32_t compute_major, compute_minor;
    int32_t sm_count;
    int32_t max_threads_per_block;
    int32_t max_warps_per_sm;
    int32_t max_blocks_per_sm;
    int32_t max_registers_per_block;
    int32_t max_registers_per_sm;
    int32_t max_shmem_per_block;
    int32_t max_shmem_per_block_optin;
    int32_t max_shmem_per_sm;
    int32_t threads_per_warp;
    int32_t clock_rate_khz;
    int32_t async_engines;
    int32_t l2_cache_size;
    uint64_t total_memory;
    uint64_t memory_bandwidth; /* bytes per second */
    int32_t max_block_dim[3];
    int32_t max_grid_dim[3];
    uint32_t pci_domain, pci_bus, pci_device;
    uint8_t uuid[16];
    uint32_t pad;
    /* followed by the device name */
  } SlWireGpu;

  typedef struct
  {
    SlWireHeader h;
    uint32_t device_id;
    uint32_t context_id;
    uint32_t null_stream_id;
    uint32_t pad;
  } SlWireContext;

  typedef struct
  {
    SlWireHeader h;
    uint32_t device_id;
    uint32_t context_id;
    uint32_t stream_id;
    int32_t priority;
    uint32_t flag; /* SL_STREAM_TYPE_* */
    uint32_t pad;
  } SlWireStream;

  typedef enum
  {
    SL_DROP_RING_FULL, /* a thread produced faster than the library could send */
    SL_DROP_CUPTI,     /* CUPTI's own dropped-record count */
    SL_DROP_SAMPLES,   /* samples skipped (reentrancy, no room) */
    /* not lost: stacks whose Python frames could not be read (their native frames kept), by why:
     * the interpreter's layout is not known; its frames or thread state were being changed (torn
     * reads); a code object could not be described (unreadable, or its ring full) */
    SL_DROP_PYTHON,
    SL_DROP_PYTHON_TORN,
    SL_DROP_PYTHON_CODE,
    /* not lost: CUDA graph launches whose exec id was overwritten in the library's table of
     * launches (SL_WIRE_GRAPH_EXEC_SLOTS) before their GRAPH_TRACE record came: rows written
     * with graphExecId 0 */
    SL_DROP_GRAPH_EXEC,
    SL_DROP_N_SOURCES
  } SlDropSource;

/* the injection library's table of graph launches noted for their exec's id */
#define SL_WIRE_GRAPH_EXEC_SLOTS 8192

  typedef struct
  {
    SlWireHeader h;
    uint64_t time_ns;
    uint64_t count;
    uint32_t source; /* SlDropSource */
    uint32_t pad;
  } SlWireDropped;

  typedef struct
  {
    SlWireHeader h;
    uint64_t time_ns;
    int32_t status; /* exit status, or -signal */
    uint32_t pad;
  } SlWireBye;

  /* SlWireDiagnostic.kind */
  typedef enum
  {
    SL_DIAG_MESSAGE,         /* a DIAGNOSTIC_EVENT row: the text, at its severity */
    SL_DIAG_CUDA_GRAPH_MODE, /* the --cuda-graph-trace mode in effect ("Graph" or "Node", as nsys
                              * names it): replaces the requested one in META_DATA_CAPTURE */
  } SlDiagKind;

/* SlWireDiagnostic.severity: ENUM_DIAGNOSTIC_SEVERITY_LEVEL's values */
#define SL_DIAG_INFO    1
#define SL_DIAG_WARNING 2
#define SL_DIAG_ERROR   3

  /* Something the library says about the collection itself (CUPTI refused a kind, another
   * subscriber holds CUPTI's callbacks): a handful per process at most. */
  typedef struct
  {
    SlWireHeader h;
    uint64_t time_ns;
    uint32_t kind;     /* SlDiagKind */
    uint32_t severity; /* ENUM_DIAGNOSTIC_SEVERITY_LEVEL: 1 info, 2 warning, 3 error */
    /* followed by the text */
  } SlWireDiagnostic;

  /* A thread switched in or out of a CPU.  The daemon makes these from perf context-switch
   * records or from polling /proc, and queues them as if a target had sent them; h.tid is the
   * thread. */
  typedef struct
  {
    SlWireHeader h;
    uint64_t time_ns;
    int32_t pid;
    uint16_t cpu;
    uint8_t is_in;
    uint8_t state; /* ENUM_SAMPLING_THREAD_STATE after the switch (SL_THREAD_STATE_*) */
  } SlWireSched;

  /* A process of the recorded tree as /proc showed it at `time_ns` (the daemon's scheduling
   * collector sends one when it first sees a process and again after an exec): what a process
   * without the library (a static program, one that dropped LD_PRELOAD) is known by.  The latest
   * of these and the processes' own HELLOs wins.  h.tid is the pid. */
  typedef struct
  {
    SlWireHeader h;
    uint64_t time_ns;
    int32_t pid;
    int32_t ppid;
    /* followed by the command line: arguments separated by ' ' */
  } SlWireProcess;

  /* A Python frame among a stack's addresses (CPU samples, OS runtime backtraces): bit 63 set,
   * bits 47-62 the code unit the frame was at (its "last instruction" index, clamped), bits 0-46
   * the code object's address, described by an SL_WIRE_PYCODE sent before its first use.  User
   * addresses on x86-64 and arm64 (47/48-bit) never have bit 63 set. */
#define SL_WIRE_PYFRAME_BIT   (UINT64_C (1) << 63)
#define SL_WIRE_PYFRAME_CODE  ((UINT64_C (1) << 47) - 1)
#define SL_WIRE_PYFRAME_LASTI(f) ((uint32_t) (((f) >> 47) & 0xffff))

  /* A Python code object: its qualified name (3.8-3.10: its name), file and line table (3.11+:
   * co_linetable, PEP 657's format; 3.10: co_linetable; 3.8, 3.9: co_lnotab), to turn a frame's
   * code unit into a line.  h.tid: the sending thread. */
  typedef struct
  {
    SlWireHeader h;
    uint64_t code;      /* its address (as in the frames) */
    int32_t firstlineno;
    uint16_t name_len;  /* bytes of the name, NUL not counted */
    uint16_t file_len;
    uint16_t table_len; /* bytes of the location table */
    uint16_t version;   /* PY_VERSION_HEX >> 16, 0x030b for 3.11: the table's format */
    uint32_t pad;
    /* followed by name NUL file NUL table */
  } SlWirePyCode;

  /* The MPI functions the library interposes (sl-inject-mpi.c), by the table nsys writes them in:
   * point-to-point (MPI_P2P_EVENTS), collectives (MPI_COLLECTIVES_EVENTS), waits
   * (MPI_START_WAIT_EVENTS), the rest (MPI_OTHER_EVENTS).  Names: "MPI_" and the enum's tail as
   * the standard spells it (the daemon's table, sl-trace-writer.c). */
  typedef enum
  {
    SL_MPI_SEND,
    SL_MPI_SSEND,
    SL_MPI_RSEND,
    SL_MPI_BSEND,
    SL_MPI_ISEND,
    SL_MPI_ISSEND,
    SL_MPI_RECV,
    SL_MPI_IRECV,
    SL_MPI_SENDRECV,
    SL_MPI_N_P2P,
    SL_MPI_BARRIER = SL_MPI_N_P2P,
    SL_MPI_BCAST,
    SL_MPI_REDUCE,
    SL_MPI_ALLREDUCE,
    SL_MPI_GATHER,
    SL_MPI_ALLGATHER,
    SL_MPI_SCATTER,
    SL_MPI_ALLTOALL,
    SL_MPI_REDUCE_SCATTER,
    SL_MPI_SCAN,
    SL_MPI_IBARRIER,
    SL_MPI_IBCAST,
    SL_MPI_IALLREDUCE,
    SL_MPI_N_COLL,
    SL_MPI_WAIT = SL_MPI_N_COLL,
    SL_MPI_WAITALL,
    SL_MPI_WAITANY,
    SL_MPI_TEST,
    SL_MPI_TESTALL,
    SL_MPI_N_WAIT,
    SL_MPI_INIT = SL_MPI_N_WAIT,
    SL_MPI_INIT_THREAD,
    SL_MPI_FINALIZE,
    SL_MPI_COMM_RANK,
    SL_MPI_COMM_SIZE,
    SL_MPI_COMM_DUP,
    SL_MPI_COMM_SPLIT,
    SL_MPI_COMM_FREE,
    SL_MPI_N_FUNCS
  } SlMpiFunc;

/* An MPI call's flags: which of its fields it has (the rest are written as NULL) */
#define SL_MPI_HAS_COMM      0x1u
#define SL_MPI_HAS_PEER      0x2u /* peer: the remote rank (p2p) or the root (rooted collectives) */
#define SL_MPI_HAS_TAG       0x4u
#define SL_MPI_HAS_SIZE      0x8u
#define SL_MPI_HAS_RECV_SIZE 0x10u
#define SL_MPI_HAS_REQUEST   0x20u
#define SL_MPI_LONG          0x40u /* the call took 2^32 ns or more: its end is a word of its own */
#define SL_MPI_MAX_WORDS     8     /* the longest call: every word below present */

  /* A batch of one thread's MPI calls, each timed around its PMPI_ entry: the library keeps a
   * thread's calls in a buffer of its own and sends them together (when ~8 KiB are there, when
   * the oldest is SL_FLUSH_MS old at a later call, at MPI_Finalize and at exit), so that a call
   * costs a few plain stores, not a record.  10^3 ... 10^6 calls a second per rank.
   *
   * After this header, `n_calls` calls of 8-byte words each, in the order they were made:
   *   word 0: func (SlMpiFunc) in bits 0-7, flags (SL_MPI_*) in bits 8-15, bits 16-31 zero, and
   *           the duration in ns in bits 32-63 (0 with SL_MPI_LONG);
   *   start (ns); then, each only when its flag is set and in this order: end (SL_MPI_LONG),
   *   comm (HAS_COMM), peer in the low and tag in the high 32 bits (HAS_PEER or HAS_TAG), size
   *   (HAS_SIZE), recv_size (HAS_RECV_SIZE), request (HAS_REQUEST).
   * Handles as the implementation has them: Open MPI's are pointers, MPICH's 32-bit integers
   * (zero-extended).  A receive's peer and tag are the status's (what arrived, also for
   * MPI_ANY_SOURCE) and its size the bytes received; an MPI_Irecv's are what was posted.  size:
   * bytes sent (p2p: of the message; collectives: this rank's part); recv_size: bytes received by
   * a collective; request: a nonblocking call's, or a wait's (MPI_Waitall: the first).  A ring
   * step's three calls take ~110 bytes, against 216 as one record each. */
  typedef struct
  {
    SlWireHeader h;
    uint32_t n_calls;
    uint32_t tid; /* the thread that made them (a batch is sent from another at MPI_Finalize and
                   * at exit): the header's tid is the sender's */
    /* followed by the calls */
  } SlWireMpiCalls;

  /* A communicator, sent once a process the first time a call uses it (MPI_COMM_WORLD at
   * MPI_Init): a row of MPI_COMMUNICATORS.  uid is the same on every rank for the same
   * communicator (a hash of its members and of how many communicators with those members this
   * rank met before it). */
  typedef struct
  {
    SlWireHeader h;
    uint64_t time_ns;
    uint64_t comm;
    uint64_t parent;     /* the communicator it was made from; 0: not known */
    uint64_t uid;
    int32_t  world_rank; /* this process's rank in MPI_COMM_WORLD */
    int32_t  local_rank; /* in this communicator */
    int32_t  size;
    int32_t  group_root; /* world rank of its rank 0; -1: not known */
    /* followed by the members' world ranks, "0,1,2,3" ("" when too many to send) */
  } SlWireMpiComm;

  /* SlWireOpenmp.kind: what the record is (nsys's OPENMP_EVENT_KIND_* tables) */
  typedef enum
  {
    SL_OMP_PARALLEL,      /* a parallel region, on the thread that began it (PARALLEL) */
    SL_OMP_IMPLICIT_TASK, /* a thread's part of a region (TASK, kind implicit) */
  } SlOmpKind;

  /* An OpenMP region from the runtime's OMPT callbacks (sl-inject-ompt.c), sent at its end. */
  typedef struct
  {
    SlWireHeader h;
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t parallel_id;  /* the library's, from 1 in a process */
    uint64_t task_id;      /* PARALLEL: the encountering task; TASK: the implicit task */
    uint64_t codeptr;      /* PARALLEL: the return address into the program (OMPT's
                            * codeptr_ra); 0: none */
    uint64_t code_offset;  /* codeptr less its module's load bias: the address in the file */
    uint32_t kind;         /* SlOmpKind */
    uint32_t requested;    /* PARALLEL: threads asked for */
    uint32_t actual;       /* PARALLEL: threads in the team; TASK: the thread's index in it */
    uint32_t pad;
    /* followed by the path of codeptr's module the first time a process sends that codeptr,
     * else "": the daemon names the region's function and line from it (DWARF) */
  } SlWireOpenmp;

  /* Size of a record with `text_len` bytes of text (without its NUL) after `fixed` bytes. */
  static inline uint32_t
  sl_wire_size (uint32_t fixed,
                uint32_t text_len)
  {
    return (fixed + text_len + 1 + 7) & ~7u;
  }

  /* The framing of a stream: the size of the record `buf` starts with when all of it is there, 0
   * when more bytes are needed, -1 when the header cannot be a record's (size below a header's
   * or not a multiple of 8: the stream is not ours and is closed).  The type and the fixed part
   * are the writer's to check. */
  static inline long
  sl_wire_frame (const void *buf,
                 size_t      len)
  {
    const SlWireHeader *h = (const SlWireHeader *) buf;
    if (len < sizeof (SlWireHeader))
      return 0;
    if (h->size < sizeof (SlWireHeader) || (h->size & 7) != 0)
      return -1;
    return h->size <= len ? (long) h->size : 0;
  }

  /* Name of an OS runtime function as nsys writes it in StringIds ("read",
   * "pthread_mutex_lock"). */
  const char *sl_wire_osrt_name (uint32_t func);

#ifdef __cplusplus
}
#endif
