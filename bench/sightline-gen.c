/* sightline-gen.c: writes a synthetic, seed-deterministic nsys-schema trace of a training loop. */
#include "sl-gen-kernels.h"
#include "sl-gen-kineto.h"
#include "sl-schema.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))
#define US INT64_C (1000)
#define MS INT64_C (1000000)

/* Session time base: the trace extent starts here, the first event 0.1 s later (start-up). */
#define SESSION_START_NS INT64_C (900000000)
/* 2026-01-01T00:00:00Z: a fixed wall-clock anchor keeps the output independent of when it ran. */
#define SESSION_EPOCH_NS INT64_C (1767225600000000000)

/* Share of the event budget per kind (percent); API calls and kernels follow from the op mix. */
#define SHARE_OSRT 4.0
#define SHARE_SAMPLES 1.0   /* the default; --sample-share sets it */

typedef struct
{
  uint64_t s[4];
} Rng;

typedef enum
{
  STMT_STRING,
  STMT_RUNTIME,
  STMT_KERNEL,
  STMT_MEMCPY,
  STMT_MEMSET,
  STMT_SYNC,
  STMT_NVTX,
  STMT_OSRT,
  STMT_COMPOSITE,
  STMT_CALLCHAIN,
  STMT_SCHED,
  STMT_GRAPH,
  STMT_CUDA_EVENT,
  STMT_GRAPH_MADE,
  STMT_GRAPH_NODE_MADE,
  STMT_UM_MIGRATION,
  STMT_UM_CPU_FAULT,
  STMT_UM_GPU_FAULT,
  STMT_MEM_USAGE,
  STMT_GPU_METRIC,
  N_STMTS
} StmtId;

/* Statements reused for every row; constant columns are literals so fewer values are bound. */
static const char *stmt_sql[N_STMTS] = {
  [STMT_STRING] = "INSERT INTO StringIds (id, value) VALUES (?, ?)",
  [STMT_RUNTIME] = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, ?, ?, 0, NULL)",
  [STMT_KERNEL] =
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, 1, 1, ?, "
      "?, ?, ?, ?, ?, ?, ?, ?, 0, 250871808, ?, ?, ?, 0, NULL, NULL, NULL, ?, "
      "0, 0, 0, 1, 0, 0, NULL, '[]')",
  [STMT_MEMCPY] =
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, NULL, ?, ?, "
      "NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1)",
  [STMT_MEMSET] =
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?, ?, ?, ?, 0, ?, ?, ?, 0, ?, NULL, ?)",
  [STMT_SYNC] = "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?, ?, ?, ?, 0, ?, ?, ?, "
                "NULL, ?, ?, ?)",
  [STMT_NVTX] = "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, color, text, globalTid, "
                "endGlobalTid, textId, domainId) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  [STMT_OSRT] = "INSERT INTO OSRT_API VALUES (?, ?, 27, ?, ?, ?, 0, 0, 0)",
  [STMT_COMPOSITE] = "INSERT INTO COMPOSITE_EVENTS VALUES (?, ?, ?, ?, ?, ?)",
  [STMT_CALLCHAIN] = "INSERT INTO SAMPLING_CALLCHAINS VALUES (?, ?, ?, 0, 0, 0, NULL, ?, 7, ?)",
  [STMT_SCHED] = "INSERT INTO SCHED_EVENTS VALUES (?, ?, ?, ?, ?, ?)",
  /* prepared only with --graphs graph, after its table is created */
  [STMT_GRAPH] =
      "INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)",
  /* prepared only with --cuda-events, after its table is created */
  [STMT_CUDA_EVENT] =
      "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?)",
  /* prepared only with --graphs */
  [STMT_GRAPH_MADE] = "INSERT INTO CUDA_GRAPH_EVENTS VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
  [STMT_GRAPH_NODE_MADE] = "INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES (?, ?, 77, ?, ?, ?, ?)",
  /* prepared only with --um-faults: a migration as real exports have it (context, stream and
   * correlation id 0, memory kinds Unknown), and the two fault tables */
  [STMT_UM_MIGRATION] =
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, ?, 0, NULL, 0, 0, ?, ?, ?, NULL, 7, 7, "
      "NULL, NULL, NULL, NULL, ?, NULL, ?, NULL)",
  [STMT_UM_CPU_FAULT] =
      "INSERT INTO CUDA_UM_CPU_PAGE_FAULT_EVENTS VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)",
  [STMT_UM_GPU_FAULT] =
      "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS VALUES (?, ?, ?, ?, ?, ?, ?)",
  /* prepared only with --memory-usage */
  [STMT_MEM_USAGE] =
      "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, NULL, "
      "NULL, NULL, NULL, NULL, NULL)",
  /* prepared only with --gpu-metrics */
  [STMT_GPU_METRIC] = "INSERT INTO GPU_METRICS VALUES (?, ?, ?, ?, ?)",
};

/* --um-faults: unified memory, as nsys --cuda-um-cpu-page-faults=true
 * --cuda-um-gpu-page-faults=true records it.  Each GPU has UM_BUFFERS managed buffers of
 * UM_CHUNKS chunks of UM_CHUNK bytes; UM_HOT chunks of each take nearly all faults, so faults
 * cluster on a few addresses.  Each step a buffer is prefetched (cudaMemPrefetchAsync: HtoD
 * migrations, cause "User prefetch"), kernels fault on hot chunks (GPU faults, each followed by
 * its HtoD migration, cause "Page fault", now and then a speculative prefetch of the next chunk)
 * and the host reads results back (CPU faults, each followed by a DtoH migration). */
#define UM_BUFFERS 4
#define UM_CHUNKS 64
#define UM_CHUNK INT64_C (0x80000) /* 512 KiB */
#define UM_HOT 4
#define UM_CAUSE_USER 1            /* ENUM_CUDA_UNIF_MEM_MIGRATION */
#define UM_CAUSE_COHERENCE 2
#define UM_CAUSE_PREFETCH 3
#define UM_CAUSE_EVICTION 4
#define SL_MEMCPY_UVM_HTOD 11      /* ENUM_CUDA_MEMCPY_OPER */
#define SL_MEMCPY_UVM_DTOH 12
/* MPICH's MPI_COMM_WORLD handle, and the job-wide id the export gives it */
#define MPI_COMM_WORLD_HANDLE INT64_C (0x44000000)
#define MPI_COMM_WORLD_UID INT64_C (0x1000)
/* the NVTX domain of --mpi=nvtx */
#define MPI_NVTX_DOMAIN 2

typedef enum
{
  MPI_NONE,
  MPI_TABLES,   /* --mpi: MPI_* tables, as nsys -t mpi */
  MPI_NVTX      /* --mpi=nvtx: NVTX ranges in a domain "MPI", as older MPI wrappers */
} MpiMode;

typedef enum
{
  MPI_F_INIT,
  MPI_F_COMM_RANK,
  MPI_F_ISEND,
  MPI_F_IRECV,
  MPI_F_WAITALL,
  MPI_F_ALLREDUCE,
  MPI_F_BCAST,
  MPI_F_BARRIER,
  MPI_F_FINALIZE,
  MPI_F_SEND,
  MPI_F_RECV,
  N_MPI_F
} MpiFunc;

static const char *const mpi_func_names[N_MPI_F] = {
  "MPI_Init", "MPI_Comm_rank", "MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Allreduce",
  "MPI_Bcast", "MPI_Barrier", "MPI_Finalize", "MPI_Send", "MPI_Recv",
};

/* The fault tables as NVIDIA's SQLite schema reference (3.28.1) lists them (the access type enum
 * they reference, ENUM_CUDA_UNIF_MEM_ACCESS_TYPE, is sl_schema_create's). */
#define UM_FAULTS_SQL                                                                             \
  "CREATE TABLE CUDA_UM_CPU_PAGE_FAULT_EVENTS (\n"                                                \
  "  start                            INTEGER  NOT NULL,\n"                                       \
  "  globalPid                        INTEGER  NOT NULL,\n"                                       \
  "  address                          INTEGER  NOT NULL,\n"                                       \
  "  originalFaultPc                  INTEGER,\n"                                                 \
  "  CpuInstruction                   INTEGER  NOT NULL,\n"                                       \
  "  module                           INTEGER  NOT NULL,\n"                                       \
  "  unresolvedFaultPc                INTEGER,\n"                                                 \
  "  sourceFile                       INTEGER,\n"                                                 \
  "  sourceLine                       INTEGER\n"                                                  \
  ");"                                                                                            \
  "CREATE TABLE CUDA_UM_GPU_PAGE_FAULT_EVENTS (\n"                                                \
  "  start                            INTEGER  NOT NULL,\n"                                       \
  "  end                              INTEGER  NOT NULL,\n"                                       \
  "  globalPid                        INTEGER  NOT NULL,\n"                                       \
  "  deviceId                         INTEGER  NOT NULL,\n"                                       \
  "  address                          INTEGER  NOT NULL,\n"                                       \
  "  numberOfPageFaults               INTEGER  NOT NULL,\n"                                       \
  "  faultAccessType                  INTEGER  NOT NULL\n"                                        \
  ");"
/* Where the host faults: function (CpuInstruction), module, and source file and line where the
 * profile has them (a library without debug information has none). */
static const char *um_cpu_sites[][4] = {
  { "train_step", "train", "train.cu", "142" },
  { "compute_loss", "train", "loss.cu", "57" },
  { "at::native::copy_kernel_cpu", "libtorch_cpu.so", NULL, NULL },
};

/* --memory-usage[=N]: CUDA_GPU_MEMORY_USAGE_EVENTS as nsys 2024.2 (--cuda-memory-usage=true)
 * writes it, each row tied by correlationId to its cudaMalloc / cudaFree call: per GPU a static
 * allocation and the weights at start-up, then each step N workspaces allocated and freed again
 * (the allocator hands back the same addresses) and one cache block a little larger each step,
 * never freed: the usage grows step after step. */
#define MEM_OPER_ALLOCATION 0      /* ENUM_CUDA_DEV_MEM_EVENT_OPER */
#define MEM_OPER_DEALLOCATION 1
#define MEM_KIND_DEVICE_STATIC 5   /* ENUM_CUDA_MEM_KIND */
#define MEM_CHURN_MAX 64
#define MEM_USAGE_SQL                                                                             \
  "CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (\n"                                                 \
  "  start                            INTEGER  NOT NULL,\n"                                       \
  "  globalPid                        INTEGER  NOT NULL,\n"                                       \
  "  deviceId                         INTEGER  NOT NULL,\n"                                       \
  "  contextId                        INTEGER  NOT NULL,\n"                                       \
  "  address                          INTEGER  NOT NULL,\n"                                       \
  "  pc                               INTEGER  NOT NULL,\n"                                       \
  "  bytes                            INTEGER  NOT NULL,\n"                                       \
  "  memKind                          INTEGER  NOT NULL,\n"                                       \
  "  memoryOperationType              INTEGER  NOT NULL,\n"                                       \
  "  name                             TEXT,\n"                                                    \
  "  correlationId                    INTEGER,\n"                                                 \
  "  localMemoryPoolAddress           INTEGER,\n"                                                 \
  "  localMemoryPoolReleaseThreshold  INTEGER,\n"                                                 \
  "  localMemoryPoolSize              INTEGER,\n"                                                 \
  "  localMemoryPoolUtilizedSize      INTEGER,\n"                                                 \
  "  importedMemoryPoolAddress        INTEGER,\n"                                                 \
  "  importedMemoryPoolProcessId      INTEGER\n"                                                  \
  ");"

/* --gpu-metrics[=HZ]: GPU_METRICS and TARGET_INFO_GPU_METRICS as NVIDIA's SQLite schema
 * reference lists them, sampled HZ times a second (nsys's default 10 kHz) over the whole trace
 * on each GPU, with the metric names nsys uses for an H100.  Each sample covers the period
 * before it: the share of it that kernels (tensor-core ones, NCCL ones) and copies took drives
 * the values.  typeId = <hw:8><vm:8><source:16><type:32>, the type's low byte the GPU. */
#define METRICS_HZ_DEFAULT 10000
#define METRICS_SOURCE 2
#define METRICS_TAG 1
#define METRICS_SQL                                                                               \
  "CREATE TABLE TARGET_INFO_GPU_METRICS (\n"                                                      \
  "  typeId                           INTEGER  NOT NULL,\n"                                       \
  "  sourceId                         INTEGER  NOT NULL,\n"                                       \
  "  typeName                         TEXT     NOT NULL,\n"                                       \
  "  metricId                         INTEGER  NOT NULL,\n"                                       \
  "  metricName                       TEXT     NOT NULL\n"                                        \
  ");"                                                                                            \
  "CREATE TABLE GPU_METRICS (\n"                                                                  \
  "  rawTimestamp                     INTEGER  NOT NULL,\n"                                       \
  "  timestamp                        INTEGER  NOT NULL,\n"                                       \
  "  typeId                           INTEGER  NOT NULL,\n"                                       \
  "  metricId                         INTEGER  NOT NULL,\n"                                       \
  "  value                            INTEGER  NOT NULL\n"                                        \
  ");"
enum
{
  MET_GPC_CLOCK,
  MET_SYS_CLOCK,
  MET_GR_ACTIVE,
  MET_SYNC_COMPUTE,
  MET_ASYNC_COMPUTE,
  MET_SMS_ACTIVE,
  MET_SM_ISSUE,
  MET_TENSOR_ACTIVE,
  MET_WARPS_IN_FLIGHT,
  MET_UNALLOCATED_WARPS,
  MET_DRAM_READ,
  MET_DRAM_WRITE,
  MET_PCIE_RX,
  MET_PCIE_TX,
  MET_PCIE_BAR1_READS,
  MET_PCIE_BAR1_WRITES,
  MET_NVLINK_RX,
  MET_NVLINK_TX,
  N_METRICS
};
static const char *metric_names[N_METRICS] = {
  "GPC Clock Frequency [MHz]",
  "SYS Clock Frequency [MHz]",
  "GR Active [Throughput %]",
  "Sync Compute in Flight [Throughput %]",
  "Async Compute in Flight [Throughput %]",
  "SMs Active [Throughput %]",
  "SM Issue [Throughput %]",
  "Tensor Active [Throughput %]",
  "Compute Warps in Flight [Throughput %]",
  "Unallocated Warps in Active SMs [Throughput %]",
  "DRAM Read Bandwidth [Throughput %]",
  "DRAM Write Bandwidth [Throughput %]",
  "PCIe RX Throughput [Throughput %]",
  "PCIe TX Throughput [Throughput %]",
  "PCIe Read Requests to BAR1 [Requests]",
  "PCIe Write Requests to BAR1 [Requests]",
  "NVLink RX Responses User Data [Throughput %]",
  "NVLink TX Responses User Data [Throughput %]",
};

/* One GPU's activity per sample period, summed as the rows are written (ns of kernels, of
 * tensor-core kernels, of NCCL kernels; bytes copied to and from the device). */
enum
{
  BIN_KERNEL,
  BIN_TENSOR,
  BIN_NCCL,
  BIN_H2D,
  BIN_D2H,
  N_BINS
};
typedef struct
{
  int64_t n, cap;
  float *v[N_BINS];
} MetricBins;

/* --cuda-events: the program reuses this many CUDA event objects (eventId 1 … N), as real ones
 * create a few and record them again each step; eventSyncId tells the records apart. */
#define CUDA_EVENT_OBJECTS 4

/* --graphs: the optimizer step of each GPU is one captured CUDA graph of GRAPH_NODES kernels,
 * launched once a step with cudaGraphLaunch, instead of its ops launched one by one. */
#define GRAPH_NODES 8
typedef enum
{
  GRAPHS_NONE,
  GRAPHS_GRAPH,  /* --cuda-graph-trace=graph: one GRAPH_TRACE row a launch */
  GRAPHS_NODE,   /* --cuda-graph-trace=node: the nodes' kernels, with graphId / graphNodeId */
} GraphMode;

/* Scheduling (SCHED_EVENTS): each thread is switched out for every OS runtime call it makes
 * (blocked, with the call's block reason) and back in when it returns, maybe on another core;
 * the main thread is also preempted once a step.  CPUs numbered 0 … SCHED_CPUS - 1. */
#define SCHED_CPUS 16
#define SCHED_STATE_RUNNING 1          /* ENUM_SAMPLING_THREAD_STATE */
#define SCHED_STATE_INTERRUPTIBLE 2
#define SCHED_BLOCK_UNKNOWN 1          /* ENUM_SCHEDULING_THREAD_BLOCK */
#define SCHED_BLOCK_NANOSLEEP 4
#define SCHED_BLOCK_MUTEX 6
#define SCHED_BLOCK_CONDVAR 7
#define SCHED_BLOCK_PREEMPTED 44

/* CUDA API names, as nsys spells them (runtime calls carry the _vNNNN suffix). */
enum
{
  API_LAUNCH_KERNEL,
  API_MEMCPY_ASYNC,
  API_MEMSET_ASYNC,
  API_STREAM_SYNC,
  API_DEVICE_SYNC,
  API_EVENT_RECORD,
  API_STREAM_WAIT_EVENT,
  API_CU_LAUNCH_KERNEL_EX,
  N_APIS
};
static const char *api_names[N_APIS] = {
  "cudaLaunchKernel_v7000",      "cudaMemcpyAsync_v3020",
  "cudaMemsetAsync_v3020",       "cudaStreamSynchronize_v3020",
  "cudaDeviceSynchronize_v3020", "cudaEventRecord_v3020",
  "cudaStreamWaitEvent_v3020",   "cuLaunchKernelEx",
};
/* cudaGraphLaunch_v10000: apart from api_names so that traces without graphs keep their string
 * ids; and the calls that capture and instantiate each graph once, before its first launch */
#define API_GRAPH_LAUNCH N_APIS
enum
{
  GRAPH_API_BEGIN_CAPTURE,
  GRAPH_API_END_CAPTURE,
  GRAPH_API_INSTANTIATE,
  GRAPH_NAME_GRAPH,       /* CUDA_GRAPH_EVENTS' and CUDA_GRAPH_NODE_EVENTS' nameId */
  GRAPH_NAME_EXEC,
  GRAPH_NAME_NODE,
  N_GRAPH_STRS
};
static const char *graph_strs[N_GRAPH_STRS] = {
  "cudaStreamBeginCapture_v10000", "cudaStreamEndCapture_v10000", "cudaGraphInstantiate_v10000",
  "Graph Creation",                "GraphExec Creation",          "Graph Node Creation",
};
/* Where graphs and nodes are made, in the columns of NVIDIA's SQLite schema reference (nsys
 * writes them with --cuda-graph-trace; eventClass from ENUM_NSYS_EVENT_CLASS: 95 graph creation,
 * 94 graph exec creation, 77 graph node creation). */
#define GRAPH_EVENTS_SQL                                                                          \
  "CREATE TABLE CUDA_GRAPH_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass "    \
  "INTEGER NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL, graphId INTEGER, "              \
  "originalGraphId INTEGER, graphExecId INTEGER);"                                               \
  "CREATE TABLE CUDA_GRAPH_NODE_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL, "          \
  "eventClass INTEGER NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL, graphNodeId "        \
  "INTEGER NOT NULL, originalGraphNodeId INTEGER);"
#define CLASS_GRAPH_NODE_CREATION 77
#define CLASS_GRAPHEXEC_CREATION 94
#define CLASS_GRAPH_CREATION 95

/* Registered NVTX strings (textId) of the "train" domain. */
enum
{
  NVTX_FORWARD,
  NVTX_BACKWARD,
  NVTX_OPTIMIZER,
  N_NVTX_NAMES
};
static const char *nvtx_names[N_NVTX_NAMES] = { "forward", "backward", "optimizer" };

/* Inline NVTX op names (text) per phase, as torch.autograd.profiler.emit_nvtx writes them. */
static const char *ops_forward[] = {
  "aten::linear",
  "aten::layer_norm",
  "aten::scaled_dot_product_attention",
  "aten::gelu",
  "aten::add",
  "aten::dropout",
  "aten::embedding",
  "aten::matmul",
  "aten::softmax",
  "aten::cross_entropy_loss",
  "aten::conv2d",
  "aten::batch_norm",
  "aten::cat",
  "aten::mul",
};
static const char *ops_backward[] = {
  "autograd::engine::evaluate_function: AddmmBackward0",
  "autograd::engine::evaluate_function: NativeLayerNormBackward0",
  "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0",
  "autograd::engine::evaluate_function: GeluBackward0",
  "autograd::engine::evaluate_function: AddBackward0",
  "autograd::engine::evaluate_function: EmbeddingBackward0",
  "autograd::engine::evaluate_function: ConvolutionBackward0",
  "autograd::engine::evaluate_function: NllLossBackward0",
  "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
};
static const char *ops_optimizer[] = {
  "Optimizer.step#AdamW.step", "aten::_fused_adamw_", "aten::_foreach_mul_",
  "aten::_foreach_add_",       "aten::_foreach_norm", "aten::clamp",
};

static const char *osrt_names[] = {
  "read",    "pthread_cond_wait", "poll",   "nanosleep", "pthread_mutex_lock",
  "recvmsg", "sem_wait",          "open64", "mmap64",    "fstat"
};
enum
{
  OSRT_READ,
  OSRT_COND_WAIT,
  OSRT_POLL,
  OSRT_NANOSLEEP,
  OSRT_MUTEX_LOCK,
  OSRT_RECVMSG,
  OSRT_SEM_WAIT,
  OSRT_OPEN,
  OSRT_MMAP,
  OSRT_FSTAT,
};

/* CPU sample stacks, leaf first; each frame is "symbol@module".  Each sample's stack goes on with
 * one of TAIL_VARIANTS interpreter tails (see below). */
static const char *stacks_main[][5] = {
  { "cudaLaunchKernel@libcudart.so.12", "at::native::gpu_kernel_impl@libtorch_cuda.so",
    "at::native::add_kernel@libtorch_cuda.so", "_PyEval_EvalFrameDefault@libpython3.10.so.1.0",
    NULL },
  { "cuLaunchKernelEx@libcuda.so.1", "cudaLaunchKernel@libcudart.so.12",
    "at::cuda::blas::gemm@libtorch_cuda.so", NULL, NULL },
  { "_PyEval_EvalFrameDefault@libpython3.10.so.1.0", "_PyFunction_Vectorcall@libpython3.10.so.1.0",
    "PyObject_Call@libpython3.10.so.1.0", NULL, NULL },
  { "c10::TensorImpl::~TensorImpl@libc10.so",
    "torch::autograd::Engine::evaluate_function@libtorch_cpu.so",
    "torch::autograd::Engine::thread_main@libtorch_cpu.so", NULL, NULL },
  { "ioctl@libc.so.6", "cuStreamSynchronize@libcuda.so.1", "cudaStreamSynchronize@libcudart.so.12",
    "at::native::_local_scalar_dense_cuda@libtorch_cuda.so",
    "THPVariable_item@libtorch_python.so" },
};
static const char *stacks_worker[][5] = {
  { "jpeg_idct_islow@libjpeg.so.8", "decompress_onepass@libjpeg.so.8",
    "ImagingJpegDecode@_imaging.cpython-310-x86_64-linux-gnu.so",
    "_PyEval_EvalFrameDefault@libpython3.10.so.1.0", NULL },
  { "__memmove_avx_unaligned_erms@libc.so.6", "at::native::copy_impl@libtorch_cpu.so",
    "torch::utils::collate@libtorch_python.so", "_PyEval_EvalFrameDefault@libpython3.10.so.1.0",
    NULL },
  { "__libc_read@libc.so.6", "_Py_read@libpython3.10.so.1.0",
    "_io_FileIO_readinto@libpython3.10.so.1.0", NULL, NULL },
  { "PyArray_NewFromDescr@_multiarray_umath.cpython-310-x86_64-linux-gnu.so",
    "PyArray_FromAny@_multiarray_umath.cpython-310-x86_64-linux-gnu.so",
    "_PyEval_EvalFrameDefault@libpython3.10.so.1.0", NULL, NULL },
};

/* Below the leaf frames a real native stack of a Python program runs through the interpreter:
 * pairs of eval/call frames per Python call, then the process's roots.  A sample's tail is one of
 * TAIL_VARIANTS fixed call paths (TAIL_MIN..TAIL_MAX interpreter frames), so a stack is ~40 frames
 * deep on average and a trace holds a few thousand distinct stacks, as a training loop's do. */
#define TAIL_VARIANTS 256
#define TAIL_MIN 18
#define TAIL_MAX 42
static const char *tail_frames[] = {
  "_PyEval_EvalFrameDefault@libpython3.10.so.1.0", "_PyFunction_Vectorcall@libpython3.10.so.1.0",
  "method_vectorcall@libpython3.10.so.1.0",        "PyObject_Call@libpython3.10.so.1.0",
  "slot_tp_call@libpython3.10.so.1.0",             "_PyObject_MakeTpCall@libpython3.10.so.1.0",
  "cfunction_call@libpython3.10.so.1.0",           "PyVectorcall_Call@libpython3.10.so.1.0",
};
static const char *tail_roots[] = {
  "PyEval_EvalCode@libpython3.10.so.1.0", "pymain_run_python@libpython3.10.so.1.0",
  "Py_RunMain@libpython3.10.so.1.0", "Py_BytesMain@libpython3.10.so.1.0",
  "__libc_start_main@libc.so.6", "_start@python3",
};

/* ARGB colours of NVTX ranges. */
static const uint32_t colours[] = { 0xFF76B900, 0xFF0071C5, 0xFFE8A33D,
                                    0xFFC0392B, 0xFF8E44AD, 0xFF16A085 };

typedef struct
{
  const char *output;
  uint64_t n_events;
  uint64_t seed;
  int gpus;
  int streams;
  int threads;
  double sample_share; /* percent of the budget that is CPU samples */
  bool force;
  bool no_sched;   /* leave SCHED_EVENTS empty */
  bool kineto;     /* write Kineto JSON (through the model) instead of nsys SQLite */
  int ranks;       /* --ranks N: N files of one synchronous job; 0: one trace */
  int rank;        /* the file being written */
  int straggler;   /* the rank whose data loading is slower, -1: none */
  int slowdown;    /* by this many percent of a step */
  GraphMode graphs; /* --graphs graph|node */
  bool cuda_events; /* --cuda-events: CUPTI_ACTIVITY_KIND_CUDA_EVENT rows for the records */
  bool um_faults;   /* --um-faults: unified-memory migrations and page faults */
  int memory_usage; /* --memory-usage[=N]: N workspace malloc/free pairs a step; 0: none */
  int metrics_hz;   /* --gpu-metrics[=HZ]: samples a second; 0: none */
  MpiMode mpi;      /* --mpi[=nvtx]: MPI calls of the job's ranks each step */
  bool openmp;      /* --openmp: an OpenMP parallel region each step */
  bool openacc;     /* --openacc: an OpenACC compute construct each step */
} Options;

typedef struct
{
  int64_t demangled, short_name, mangled;
} KernelIds;

typedef struct
{
  int64_t symbol, module;
} Frame;

typedef struct
{
  uint64_t runtime, driver, kernel, memcpy, memset, sync, nvtx, osrt, samples, frames, sched;
  uint64_t graphs, graph_kernels;  /* graph launches; kernels that are graph nodes (node mode) */
  uint64_t cuda_events;            /* CUDA_EVENT rows (--cuda-events; not in the budget) */
  uint64_t graph_made, node_made;  /* CUDA_GRAPH_EVENTS, CUDA_GRAPH_NODE_EVENTS rows (--graphs) */
  /* rows of the options below, none in the budget (their API calls are) */
  uint64_t um_migrations, um_cpu_faults, um_gpu_faults; /* --um-faults */
  uint64_t mem_events;                                  /* --memory-usage */
  uint64_t metrics;                                     /* --gpu-metrics */
  uint64_t mpi;                                         /* --mpi: MPI calls */
  uint64_t openmp, openacc;                             /* --openmp, --openacc: their rows */
} Counts;

typedef struct
{
  const Options *opt;
  sqlite3 *db;
  sqlite3_stmt *stmt[N_STMTS];
  Rng rng;
  Counts n;
  char *error; /* first failure, malloc'ed */

  int64_t pid;
  int64_t global_pid;
  int64_t main_tid;     /* globalTid of the main thread */
  int64_t *worker_tids; /* globalTid of the data-loader threads, threads - 1 of them */
  int64_t *worker_t;    /* each data-loader thread's clock */
  int *sched_cpu;       /* each thread's core (main first) */

  int64_t next_string;
  int64_t api_ids[N_APIS];
  int64_t graph_launch_id;  /* "cudaGraphLaunch_v10000", interned only with --graphs */
  int64_t graph_str_ids[N_GRAPH_STRS];  /* graph_strs, interned only with --graphs */
  uint64_t graphs_made;     /* bit g: GPU g's graph was captured and instantiated */
  int64_t nvtx_ids[N_NVTX_NAMES];
  int64_t osrt_ids[N_ELEMENTS (osrt_names)];
  KernelIds kernel_ids[N_ELEMENTS (sl_gen_kernels)];
  Frame stacks_main_ids[N_ELEMENTS (stacks_main)][5];
  Frame stacks_worker_ids[N_ELEMENTS (stacks_worker)][5];
  Frame tails[TAIL_VARIANTS][TAIL_MAX + N_ELEMENTS (tail_roots)];
  int tail_len[TAIL_VARIANTS];
  Rng tail_rng; /* apart from `rng`, so the other rows are those of shallower stacks */

  /* Cumulative launch weights of the kernels of each phase (index = phase bit). */
  uint32_t phase_kernels[3][N_ELEMENTS (sl_gen_kernels)];
  uint32_t phase_weights[3][N_ELEMENTS (sl_gen_kernels)];
  uint32_t phase_n[3];

  int64_t cpu_t;        /* main thread clock */
  int64_t *stream_free; /* per (gpu, stream): when the stream's last operation ends */
  int64_t *grid_ids;    /* per gpu */
  int64_t correlation;
  int64_t range_id;
  int64_t sync_event;
  int64_t sample_id;
  int64_t max_t;
  int64_t step;
  int op_seq;
  double osrt_carry, sample_carry;
  double last_step_rows; /* main-thread rows of the step before, for the OSRT quota */
  int64_t base_step;     /* the step before without the straggler's delay (--ranks): the same on
                          * every rank */

  /* --um-faults, --memory-usage, --gpu-metrics: their own random numbers, so that the training
   * loop's draws are those of a trace without them */
  Rng ext_rng;
  int64_t um_prefetch_id;                      /* "cudaMemPrefetchAsync_v8000" */
  int64_t um_site_ids[N_ELEMENTS (um_cpu_sites)][3]; /* function, module, source file (-1: none) */
  int64_t um_hot[UM_BUFFERS][UM_HOT];          /* hot chunk indices of each buffer */
  int64_t malloc_id, free_id;                  /* "cudaMalloc_v3020", "cudaFree_v3020" */
  int64_t *mem_next;                           /* per GPU: the allocator's next fresh address */
  int64_t *mem_workspace;                      /* per GPU x N: the workspaces' addresses, 0: none */
  int64_t *um_t;                               /* per GPU: when its last migration ends */
  MetricBins *bins;                            /* per GPU */
  bool tensor_kernel[N_ELEMENTS (sl_gen_kernels)];
  int64_t mpi_names[N_MPI_F];                  /* --mpi: string ids of the MPI functions */
  sqlite3_stmt *mpi_stmt[4];                   /* --mpi: P2P, collectives, start/wait, other */
  int64_t mpi_request;                         /* the last request handle given */
} Gen;

/* --- random numbers: xoshiro256** seeded by splitmix64
 * -------------------------------------------- */

static uint64_t
splitmix64 (uint64_t *x)
{
  uint64_t z = (*x += UINT64_C (0x9E3779B97F4A7C15));

  z = (z ^ (z >> 30)) * UINT64_C (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static void
rng_seed (Rng *rng, uint64_t seed)
{
  for (int i = 0; i < 4; i++)
    rng->s[i] = splitmix64 (&seed);
}

static inline uint64_t
rotl (uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

static inline uint64_t
rng_next (Rng *rng)
{
  uint64_t *s = rng->s;
  uint64_t result = rotl (s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift; the tiny bias is irrelevant here). */
static inline uint64_t
rng_below (Rng *rng, uint64_t n)
{
  return (uint64_t)(((unsigned __int128)rng_next (rng) * n) >> 64);
}

/* Uniform in [lo, hi]. */
static inline int64_t
rng_range (Rng *rng, int64_t lo, int64_t hi)
{
  return lo + (int64_t)rng_below (rng, (uint64_t)(hi - lo) + 1);
}

static inline double
rng_double (Rng *rng)
{
  return (double)(rng_next (rng) >> 11) * 0x1.0p-53;
}

static inline bool
rng_chance (Rng *rng, double p)
{
  return rng_double (rng) < p;
}

/* --- rows ---------------------------------------------------------------------------------------
 */

static void
gen_fail (Gen *gen, const char *fmt, ...)
{
  va_list ap;
  char buf[1024];

  if (gen->error != NULL)
    return;
  va_start (ap, fmt);
  vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  gen->error = strdup (buf);
}

static inline void
bind_i64 (sqlite3_stmt *stmt, int col, int64_t v)
{
  sqlite3_bind_int64 (stmt, col, v);
}

static inline void
bind_opt (sqlite3_stmt *stmt, int col, int64_t v, bool present)
{
  if (present)
    sqlite3_bind_int64 (stmt, col, v);
  else
    sqlite3_bind_null (stmt, col);
}

static void
step_stmt (Gen *gen, StmtId id)
{
  sqlite3_stmt *stmt = gen->stmt[id];

  if (sqlite3_step (stmt) != SQLITE_DONE)
    gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
  sqlite3_reset (stmt);
}

static void
note_time (Gen *gen, int64_t t)
{
  if (t > gen->max_t)
    gen->max_t = t;
}

/* --- --gpu-metrics: activity per sample period ------------------------------------------------
 */

static int64_t
metrics_period (const Gen *gen)
{
  return INT64_C (1000000000) / gen->opt->metrics_hz;
}

static bool
bins_reserve (Gen *gen, MetricBins *b, int64_t n)
{
  if (n > b->cap)
    {
      int64_t cap = b->cap * 2 > n ? b->cap * 2 : n + 1024;

      for (int f = 0; f < N_BINS; f++)
        {
          float *v = realloc (b->v[f], (size_t)cap * sizeof (float));

          if (v == NULL)
            {
              gen_fail (gen, "out of memory");
              return false;
            }
          memset (v + b->cap, 0, (size_t)(cap - b->cap) * sizeof (float));
          b->v[f] = v;
        }
      b->cap = cap;
    }
  if (n > b->n)
    b->n = n;
  return true;
}

/* Adds [start, end) of @gpu to the periods it covers: its ns in each (@bytes < 0), or @bytes
 * spread over them in proportion. */
static void
metrics_add (Gen *gen, int gpu, int field, int64_t start, int64_t end, double bytes)
{
  if (gen->bins == NULL || end <= start || start < SESSION_START_NS)
    return;

  MetricBins *b = &gen->bins[gpu];
  int64_t p = metrics_period (gen);
  int64_t first = (start - SESSION_START_NS) / p, last = (end - 1 - SESSION_START_NS) / p;

  if (!bins_reserve (gen, b, last + 1))
    return;
  for (int64_t i = first; i <= last; i++)
    {
      int64_t lo = SESSION_START_NS + i * p, hi = lo + p;
      double share = (double)((end < hi ? end : hi) - (start > lo ? start : lo));

      b->v[field][i] += (float)(bytes < 0 ? share : bytes * share / (double)(end - start));
    }
}

static int64_t
string_add (Gen *gen, const char *value)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_STRING];
  int64_t id = gen->next_string++;

  bind_i64 (stmt, 1, id);
  sqlite3_bind_text (stmt, 2, value, -1, SQLITE_TRANSIENT);
  step_stmt (gen, STMT_STRING);
  return id;
}

static uint64_t
total_events (const Gen *gen)
{
  const Counts *n = &gen->n;

  return n->runtime + n->kernel + n->memcpy + n->memset + n->sync + n->nvtx + n->osrt + n->samples
         + n->sched + n->graphs;
}

/* A CUDA API call on the main thread, named by the string id @name_id. */
static int64_t
add_runtime_id (Gen *gen, int64_t start, int64_t end, int64_t name_id, bool driver)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_RUNTIME];
  int64_t corr = ++gen->correlation;

  bind_i64 (stmt, 1, start);
  bind_i64 (stmt, 2, end);
  bind_i64 (stmt, 3, driver ? SL_EVENT_CLASS_CUDA_DRIVER : SL_EVENT_CLASS_CUDA_RUNTIME);
  bind_i64 (stmt, 4, gen->main_tid);
  bind_i64 (stmt, 5, corr);
  bind_i64 (stmt, 6, name_id);
  step_stmt (gen, STMT_RUNTIME);
  gen->n.runtime++;
  if (driver)
    gen->n.driver++;
  note_time (gen, end);
  return corr;
}

static int64_t
add_runtime (Gen *gen, int64_t start, int64_t end, int api)
{
  return add_runtime_id (gen, start, end,
                         api == API_GRAPH_LAUNCH ? gen->graph_launch_id
                         : api > API_GRAPH_LAUNCH
                             ? gen->graph_str_ids[api - API_GRAPH_LAUNCH - 1]
                             : gen->api_ids[api],
                         api == API_CU_LAUNCH_KERNEL_EX);
}

static int64_t
stream_id (const Gen *gen, int gpu, int stream)
{
  /* CUPTI stream ids are unique within a process; 7 is what real exports give the first null
   * stream. */
  return 7 + (int64_t)gpu * gen->opt->streams + stream;
}

static int64_t *
stream_clock (Gen *gen, int gpu, int stream)
{
  return &gen->stream_free[gpu * gen->opt->streams + stream];
}

/* Where a GPU operation queued at @submit on (gpu, stream) can start, after what the stream holds.
 */
static int64_t
gpu_start (Gen *gen, int gpu, int stream, int64_t submit)
{
  int64_t queued = submit + rng_range (&gen->rng, 1500, 4500);
  int64_t after = *stream_clock (gen, gpu, stream) + rng_range (&gen->rng, 600, 2000);

  return queued > after ? queued : after;
}

/* A kernel row; @graph_id and @node_id are 0 unless it is a node of a graph launch traced in node
 * mode (then its correlationId is the launch's). */
static void
add_kernel_node (Gen *gen, int gpu, int stream, size_t k, int64_t start, int64_t end,
                 int64_t corr, int64_t graph_id, int64_t node_id)
{
  const SlGenKernel *kern = &sl_gen_kernels[k];
  sqlite3_stmt *stmt = gen->stmt[STMT_KERNEL];
  uint32_t smem = kern->static_smem + kern->dynamic_smem;
  static const uint32_t carveouts[] = { 32768, 65536, 102400, 135168, 167936, 200704, 233472 };
  uint32_t executed = carveouts[N_ELEMENTS (carveouts) - 1];

  for (size_t i = 0; i < N_ELEMENTS (carveouts); i++)
    if (carveouts[i] >= smem)
      {
        executed = carveouts[i];
        break;
      }
  bind_i64 (stmt, 1, start);
  bind_i64 (stmt, 2, end);
  bind_i64 (stmt, 3, gpu);
  bind_i64 (stmt, 4, gpu + 1);
  bind_i64 (stmt, 5, stream_id (gen, gpu, stream));
  bind_i64 (stmt, 6, corr);
  bind_i64 (stmt, 7, gen->global_pid);
  bind_i64 (stmt, 8, gen->kernel_ids[k].demangled);
  bind_i64 (stmt, 9, gen->kernel_ids[k].short_name);
  bind_i64 (stmt, 10, gen->kernel_ids[k].mangled);
  bind_i64 (stmt, 11, kern->registers);
  bind_i64 (stmt, 12, kern->grid[0]);
  bind_i64 (stmt, 13, kern->grid[1]);
  bind_i64 (stmt, 14, kern->grid[2]);
  bind_i64 (stmt, 15, kern->block[0]);
  bind_i64 (stmt, 16, kern->block[1]);
  bind_i64 (stmt, 17, kern->block[2]);
  bind_i64 (stmt, 18, kern->static_smem);
  bind_i64 (stmt, 19, kern->dynamic_smem);
  bind_i64 (stmt, 20, ++gen->grid_ids[gpu]);
  bind_i64 (stmt, 21, executed);
  bind_opt (stmt, 22, node_id, graph_id != 0);
  bind_opt (stmt, 23, graph_id, graph_id != 0);
  step_stmt (gen, STMT_KERNEL);
  gen->n.kernel++;
  *stream_clock (gen, gpu, stream) = end;
  note_time (gen, end);
  metrics_add (gen, gpu, BIN_KERNEL, start, end, -1);
  if (gen->bins != NULL && gen->tensor_kernel[k])
    metrics_add (gen, gpu, BIN_TENSOR, start, end, -1);
  if (k == SL_GEN_ALLREDUCE)
    metrics_add (gen, gpu, BIN_NCCL, start, end, -1);
}

static void
add_kernel (Gen *gen, int gpu, int stream, size_t k, int64_t start, int64_t end, int64_t corr)
{
  add_kernel_node (gen, gpu, stream, k, start, end, corr, 0, 0);
}

static void
add_memcpy (Gen *gen,
            int gpu,
            int stream,
            int64_t start,
            int64_t end,
            int64_t corr,
            int64_t bytes,
            int kind,
            int src_kind,
            int dst_kind)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_MEMCPY];

  bind_i64 (stmt, 1, start);
  bind_i64 (stmt, 2, end);
  bind_i64 (stmt, 3, gpu);
  bind_i64 (stmt, 4, gpu + 1);
  bind_i64 (stmt, 5, stream_id (gen, gpu, stream));
  bind_i64 (stmt, 6, corr);
  bind_i64 (stmt, 7, gen->global_pid);
  bind_i64 (stmt, 8, bytes);
  bind_i64 (stmt, 9, kind);
  bind_i64 (stmt, 10, src_kind);
  bind_i64 (stmt, 11, dst_kind);
  step_stmt (gen, STMT_MEMCPY);
  gen->n.memcpy++;
  *stream_clock (gen, gpu, stream) = end;
  note_time (gen, end);
  if (kind == SL_MEMCPY_HTOD || kind == SL_MEMCPY_DTOH)
    metrics_add (gen, gpu, kind == SL_MEMCPY_HTOD ? BIN_H2D : BIN_D2H, start, end, (double)bytes);
}

static void
add_memset (Gen *gen, int gpu, int stream, int64_t start, int64_t end, int64_t corr, int64_t bytes)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_MEMSET];

  bind_i64 (stmt, 1, start);
  bind_i64 (stmt, 2, end);
  bind_i64 (stmt, 3, gpu);
  bind_i64 (stmt, 4, gpu + 1);
  bind_i64 (stmt, 5, stream_id (gen, gpu, stream));
  bind_i64 (stmt, 6, corr);
  bind_i64 (stmt, 7, gen->global_pid);
  bind_i64 (stmt, 8, bytes);
  bind_i64 (stmt, 9, SL_MEM_KIND_DEVICE);
  step_stmt (gen, STMT_MEMSET);
  gen->n.memset++;
  *stream_clock (gen, gpu, stream) = end;
  note_time (gen, end);
}

static void
add_sync (Gen *gen,
          int gpu,
          int64_t stream,
          int64_t start,
          int64_t end,
          int64_t corr,
          int type,
          int64_t event_id,
          int64_t sync_id)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_SYNC];

  bind_i64 (stmt, 1, start);
  bind_i64 (stmt, 2, end);
  bind_i64 (stmt, 3, gpu);
  bind_i64 (stmt, 4, gpu + 1);
  bind_i64 (stmt, 5, stream);
  bind_i64 (stmt, 6, corr);
  bind_i64 (stmt, 7, gen->global_pid);
  bind_i64 (stmt, 8, type);
  bind_i64 (stmt, 9, event_id);
  bind_opt (stmt, 10, sync_id, sync_id != SL_SCHEMA_ID_NONE);
  step_stmt (gen, STMT_SYNC);
  gen->n.sync++;
  note_time (gen, end);
}

/* One NVTX_EVENTS row; @end < 0 means NULL, @text_id < 0 means inline @text. */
static void
add_nvtx (Gen *gen,
          int type,
          int64_t start,
          int64_t end,
          int64_t tid,
          const char *text,
          int64_t text_id,
          int64_t domain,
          int64_t colour)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_NVTX];
  bool start_end = type == SL_EVENT_TYPE_NVTX_START_END_RANGE;

  bind_i64 (stmt, 1, start);
  bind_opt (stmt, 2, end, end >= 0);
  bind_i64 (stmt, 3, type);
  bind_opt (stmt, 4, ++gen->range_id, start_end);
  bind_opt (stmt, 5, colour, colour >= 0);
  if (text_id < 0 && text != NULL)
    sqlite3_bind_text (stmt, 6, text, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (stmt, 6);
  bind_i64 (stmt, 7, tid);
  bind_opt (stmt, 8, tid, start_end);
  bind_opt (stmt, 9, text_id, text_id >= 0);
  bind_i64 (stmt, 10, domain);
  step_stmt (gen, STMT_NVTX);
  gen->n.nvtx++;
  note_time (gen, end >= 0 ? end : start);
}

static void
add_switch (Gen *gen, int64_t tid, int64_t t, int cpu, bool in, int state, int block)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_SCHED];

  bind_i64 (stmt, 1, t);
  bind_i64 (stmt, 2, cpu);
  bind_i64 (stmt, 3, in ? 1 : 0);
  bind_i64 (stmt, 4, tid);
  bind_opt (stmt, 5, state, !in);
  bind_opt (stmt, 6, block, !in);
  step_stmt (gen, STMT_SCHED);
  gen->n.sched++;
  note_time (gen, t);
}

/* The core a thread last ran on (main = 0, workers 1 …); it moves now and then when woken. */
static int *
sched_cpu (Gen *gen, int64_t tid)
{
  if (tid == gen->main_tid)
    return &gen->sched_cpu[0];
  for (int w = 0; w < gen->opt->threads - 1; w++)
    if (gen->worker_tids[w] == tid)
      return &gen->sched_cpu[w + 1];
  return &gen->sched_cpu[0];
}

/* The thread sleeps through an OS runtime call: out a little after it starts, in a little before
 * it returns.  No random numbers drawn: --no-sched writes the same other rows. */
static void
sched_block (Gen *gen, int64_t tid, int name, int64_t start, int64_t end)
{
  int *cpu = sched_cpu (gen, tid);
  int64_t edge = (end - start) / 16;
  int block = name == OSRT_NANOSLEEP   ? SCHED_BLOCK_NANOSLEEP
              : name == OSRT_COND_WAIT ? SCHED_BLOCK_CONDVAR
              : name >= OSRT_MUTEX_LOCK ? SCHED_BLOCK_MUTEX
                                       : SCHED_BLOCK_UNKNOWN;

  /* never the budget's last eighth: a tiny trace still gets its GPU work */
  if (gen->opt->no_sched || end - start < 2 * US
      || total_events (gen) + 2 >= gen->opt->n_events - gen->opt->n_events / 8)
    return;
  add_switch (gen, tid, start + edge, *cpu, false, SCHED_STATE_INTERRUPTIBLE, block);
  if ((start >> 12) % 5 == 0)
    *cpu = (int)(((uint64_t)start >> 8) % SCHED_CPUS);
  add_switch (gen, tid, end - edge, *cpu, true, 0, 0);
}

static void
add_osrt (Gen *gen, int64_t tid, int name, int64_t start, int64_t end, int64_t ret)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_OSRT];

  sched_block (gen, tid, name, start, end);
  bind_i64 (stmt, 1, start);
  bind_i64 (stmt, 2, end);
  bind_i64 (stmt, 3, tid);
  bind_i64 (stmt, 4, gen->osrt_ids[name]);
  bind_i64 (stmt, 5, ret);
  step_stmt (gen, STMT_OSRT);
  gen->n.osrt++;
  note_time (gen, end);
}

static void
add_sample (Gen *gen, int64_t tid, int64_t t, const Frame *frames)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_COMPOSITE];
  int64_t id = ++gen->sample_id;

  bind_i64 (stmt, 1, id);
  bind_i64 (stmt, 2, t);
  bind_i64 (stmt, 3, rng_range (&gen->rng, 0, 15));
  bind_i64 (stmt, 4, SL_THREAD_STATE_RUNNING);
  bind_i64 (stmt, 5, tid);
  bind_i64 (stmt, 6, rng_range (&gen->rng, 200000, 3000000));
  step_stmt (gen, STMT_COMPOSITE);
  gen->n.samples++;
  stmt = gen->stmt[STMT_CALLCHAIN];
  int leaf = 0, tail = (int)rng_below (&gen->tail_rng, TAIL_VARIANTS);
  while (leaf < 5 && frames[leaf].symbol > 0)
    leaf++;
  for (int depth = 0; depth < leaf + gen->tail_len[tail]; depth++)
    {
      const Frame *f = depth < leaf ? &frames[depth] : &gen->tails[tail][depth - leaf];

      bind_i64 (stmt, 1, id);
      bind_i64 (stmt, 2, f->symbol);
      bind_i64 (stmt, 3, f->module);
      bind_i64 (stmt, 4,
                INT64_C (0x7f3a00000000) + f->symbol * 0x1000 +
                    (depth < leaf ? rng_range (&gen->rng, 0, 0xfff) : 0));
      bind_i64 (stmt, 5, depth);
      step_stmt (gen, STMT_CALLCHAIN);
      gen->n.frames++;
    }
  note_time (gen, t);
}

/* --- the training loop --------------------------------------------------------------------------
 */

static int64_t
jitter (Gen *gen, int64_t mean)
{
  return mean * 3 / 4 + (int64_t)rng_below (&gen->rng, (uint64_t)mean / 2 + 1);
}

/* Python overhead between two API calls on the main thread. */
static void
cpu_gap (Gen *gen)
{
  if (rng_chance (&gen->rng, 0.04))
    gen->cpu_t += rng_range (&gen->rng, 20 * US, 90 * US);
  else
    gen->cpu_t += rng_range (&gen->rng, 1 * US, 9 * US);
}

static size_t
pick_kernel (Gen *gen, int phase)
{
  uint32_t n = gen->phase_n[phase];
  uint32_t r = (uint32_t)rng_below (&gen->rng, gen->phase_weights[phase][n - 1]);
  uint32_t lo = 0, hi = n - 1;

  while (lo < hi)
    {
      uint32_t mid = (lo + hi) / 2;

      if (gen->phase_weights[phase][mid] > r)
        hi = mid;
      else
        lo = mid + 1;
    }
  return gen->phase_kernels[phase][lo];
}

static void
launch (Gen *gen, int gpu, int stream, int phase)
{
  size_t k = pick_kernel (gen, phase);
  const SlGenKernel *kern = &sl_gen_kernels[k];
  int64_t api_start = gen->cpu_t;
  int64_t api_dur = rng_chance (&gen->rng, 0.01) ? rng_range (&gen->rng, 20 * US, 60 * US)
                                                 : rng_range (&gen->rng, 2500, 7000);
  int64_t corr = add_runtime (gen, api_start, api_start + api_dur,
                              kern->driver ? API_CU_LAUNCH_KERNEL_EX : API_LAUNCH_KERNEL);
  int64_t start = gpu_start (gen, gpu, stream, api_start);

  add_kernel (gen, gpu, stream, k, start, start + jitter (gen, kern->mean_ns), corr);
  gen->cpu_t = api_start + api_dur;
}

/* A row of CUDA_GRAPH_EVENTS (@node_id < 0) or CUDA_GRAPH_NODE_EVENTS, at @t on the main thread. */
static void
add_graph_made (Gen *gen, int64_t t, int64_t event_class, int name, int64_t graph_id,
                int64_t exec_id, int64_t node_id, int64_t original_node_id)
{
  bool node = node_id >= 0;
  sqlite3_stmt *stmt = gen->stmt[node ? STMT_GRAPH_NODE_MADE : STMT_GRAPH_MADE];

  bind_i64 (stmt, 1, t);
  bind_i64 (stmt, 2, t + 200);
  if (node)
    {
      bind_i64 (stmt, 3, gen->main_tid);
      bind_i64 (stmt, 4, gen->graph_str_ids[name]);
      bind_i64 (stmt, 5, node_id);
      bind_opt (stmt, 6, original_node_id, original_node_id > 0);
      step_stmt (gen, STMT_GRAPH_NODE_MADE);
      gen->n.node_made++;
      return;
    }
  bind_i64 (stmt, 3, event_class);
  bind_i64 (stmt, 4, gen->main_tid);
  bind_i64 (stmt, 5, gen->graph_str_ids[name]);
  bind_i64 (stmt, 6, graph_id);
  bind_opt (stmt, 7, exec_id, exec_id > 0);
  step_stmt (gen, STMT_GRAPH_MADE);
  gen->n.graph_made++;
}

/* Before its first launch, the graph of @gpu is captured from stream 0 (a cudaLaunchKernel per
 * node, each making a node: ids (graph_id << 32) | (0x100 + i)) and instantiated (its nodes cloned
 * into the executable graph: the ids its kernels carry, (graph_id << 32) | (i + 1)). */
static void
graph_capture (Gen *gen, int gpu, int64_t graph_id, int64_t exec_id)
{
  int64_t t = gen->cpu_t, d;

  add_runtime (gen, t, t + 2 * US, API_GRAPH_LAUNCH + 1 + GRAPH_API_BEGIN_CAPTURE);
  t += 3 * US;
  for (int i = 0; i < GRAPH_NODES; i++)
    {
      d = rng_range (&gen->rng, 2 * US, 4 * US);
      add_runtime (gen, t, t + d, API_LAUNCH_KERNEL);
      add_graph_made (gen, t + d / 2, CLASS_GRAPH_NODE_CREATION, GRAPH_NAME_NODE, graph_id, 0,
                      (graph_id << 32) | (0x100 + i + 1), 0);
      t += d + US;
    }
  add_runtime (gen, t, t + 5 * US, API_GRAPH_LAUNCH + 1 + GRAPH_API_END_CAPTURE);
  add_graph_made (gen, t + 2 * US, CLASS_GRAPH_CREATION, GRAPH_NAME_GRAPH, graph_id, 0, -1, 0);
  t += 6 * US;
  d = 40 * US;
  add_runtime (gen, t, t + d, API_GRAPH_LAUNCH + 1 + GRAPH_API_INSTANTIATE);
  add_graph_made (gen, t + d - 2 * US, CLASS_GRAPHEXEC_CREATION, GRAPH_NAME_EXEC, graph_id,
                  exec_id, -1, 0);
  for (int i = 0; i < GRAPH_NODES; i++)
    add_graph_made (gen, t + US + i * 3 * US, CLASS_GRAPH_NODE_CREATION, GRAPH_NAME_NODE,
                    graph_id, 0, (graph_id << 32) | (i + 1), (graph_id << 32) | (0x100 + i + 1));
  gen->cpu_t = t + d + US;
  gen->graphs_made |= UINT64_C (1) << (gpu & 63);
}

/* The optimizer step of @gpu as one cudaGraphLaunch on stream 0 of a graph of GRAPH_NODES
 * kernels (the optimizer's first ones, back to back): in graph mode one GRAPH_TRACE row from the
 * first node's start to the last one's end, in node mode the kernels with graphId / graphNodeId
 * and the launch's correlationId.  Graph ids are 1 + gpu, exec ids 101 + gpu. */
static void
graph_launch (Gen *gen, int gpu)
{
  int64_t graph_id = 1 + gpu, exec_id = 101 + gpu;

  if (!(gen->graphs_made & (UINT64_C (1) << (gpu & 63))))
    graph_capture (gen, gpu, graph_id, exec_id);

  int64_t api_start = gen->cpu_t, api_dur = rng_range (&gen->rng, 3 * US, 9 * US);
  int64_t corr = add_runtime (gen, api_start, api_start + api_dur, API_GRAPH_LAUNCH);
  int64_t start = gpu_start (gen, gpu, 0, api_start), end = start;

  for (int i = 0; i < GRAPH_NODES; i++)
    {
      size_t k = gen->phase_kernels[2][i % gen->phase_n[2]];
      int64_t t = i == 0 ? start : end + rng_range (&gen->rng, 300, 900);

      end = t + jitter (gen, sl_gen_kernels[k].mean_ns);
      if (gen->opt->graphs == GRAPHS_NODE)
        {
          add_kernel_node (gen, gpu, 0, k, t, end, corr, graph_id, (graph_id << 32) | (i + 1));
          gen->n.graph_kernels++;
        }
    }
  if (gen->opt->graphs == GRAPHS_GRAPH)
    {
      sqlite3_stmt *stmt = gen->stmt[STMT_GRAPH];

      bind_i64 (stmt, 1, start);
      bind_i64 (stmt, 2, end);
      bind_i64 (stmt, 3, gpu);
      bind_i64 (stmt, 4, gpu + 1);
      bind_i64 (stmt, 5, stream_id (gen, gpu, 0));
      bind_i64 (stmt, 6, corr);
      bind_i64 (stmt, 7, gen->global_pid);
      bind_i64 (stmt, 8, graph_id);
      bind_i64 (stmt, 9, exec_id);
      step_stmt (gen, STMT_GRAPH);
      gen->n.graphs++;
      metrics_add (gen, gpu, BIN_KERNEL, start, end, -1);
      *stream_clock (gen, gpu, 0) = end;
      note_time (gen, end);
    }
  gen->cpu_t = api_start + api_dur;
}

/* Copy time at @gbps GB/s plus a fixed cost. */
static int64_t
copy_ns (int64_t bytes, int64_t gbps)
{
  return 1500 + bytes / gbps;
}

static void
memcpy_async (Gen *gen, int gpu, int stream, int kind, int src, int dst, int64_t bytes)
{
  int64_t api_start = gen->cpu_t;
  int64_t api_dur = rng_range (&gen->rng, 3 * US, 8 * US);
  int64_t gbps = kind == SL_MEMCPY_DTOD
                     ? 1500
                     : (src == SL_MEM_KIND_PAGEABLE || dst == SL_MEM_KIND_PAGEABLE ? 10 : 24);
  int64_t start, end, corr;

  /* A copy from or to pageable memory is staged by the driver: the call returns when it is done. */
  if (src == SL_MEM_KIND_PAGEABLE || dst == SL_MEM_KIND_PAGEABLE)
    {
      start = gpu_start (gen, gpu, stream, api_start);
      end = start + jitter (gen, copy_ns (bytes, gbps));
      api_dur = end - api_start + rng_range (&gen->rng, 1 * US, 4 * US);
    }
  else
    {
      start = gpu_start (gen, gpu, stream, api_start);
      end = start + jitter (gen, copy_ns (bytes, gbps));
    }
  corr = add_runtime (gen, api_start, api_start + api_dur, API_MEMCPY_ASYNC);
  add_memcpy (gen, gpu, stream, start, end, corr, bytes, kind, src, dst);
  gen->cpu_t = api_start + api_dur;
}

static void
memset_async (Gen *gen, int gpu, int stream, int64_t bytes)
{
  int64_t api_start = gen->cpu_t;
  int64_t api_dur = rng_range (&gen->rng, 2 * US, 5 * US);
  int64_t corr = add_runtime (gen, api_start, api_start + api_dur, API_MEMSET_ASYNC);
  int64_t start = gpu_start (gen, gpu, stream, api_start);

  add_memset (gen, gpu, stream, start, start + jitter (gen, copy_ns (bytes, 2000)), corr, bytes);
  gen->cpu_t = api_start + api_dur;
}

/* --- --um-faults --------------------------------------------------------------------------------
 */

/* Where chunk @chunk of managed buffer @buffer of @gpu starts. */
static int64_t
um_address (int gpu, int buffer, int64_t chunk)
{
  return INT64_C (0x7f4000000000) + (int64_t)gpu * INT64_C (0x100000000) +
         ((int64_t)buffer * UM_CHUNKS + chunk) * UM_CHUNK;
}

/* A chunk of @buffer that a fault hits: nearly always one of its hot ones, the first most. */
static int64_t
um_fault_chunk (Gen *gen, int buffer)
{
  if (rng_chance (&gen->ext_rng, 0.1))
    return (int64_t)rng_below (&gen->ext_rng, UM_CHUNKS);
  return gen->um_hot[buffer][rng_below (&gen->ext_rng, rng_below (&gen->ext_rng, UM_HOT) + 1)];
}

/* A migration of @gpu's unified memory, after the one before it: when it ends. */
static int64_t
add_um_migration (Gen *gen, int gpu, int64_t ready, int64_t bytes, int kind, int cause,
                  int64_t address)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_UM_MIGRATION];
  int64_t start = ready > gen->um_t[gpu] ? ready : gen->um_t[gpu] + rng_range (&gen->ext_rng, 200, 900);
  int64_t end = start + 1000 + bytes / 12 + rng_range (&gen->ext_rng, 0, 800);

  bind_i64 (stmt, 1, start);
  bind_i64 (stmt, 2, end);
  bind_i64 (stmt, 3, gpu);
  bind_i64 (stmt, 4, gen->global_pid);
  bind_i64 (stmt, 5, bytes);
  bind_i64 (stmt, 6, kind);
  bind_i64 (stmt, 7, cause);
  bind_i64 (stmt, 8, address);
  step_stmt (gen, STMT_UM_MIGRATION);
  gen->n.um_migrations++;
  gen->um_t[gpu] = end;
  note_time (gen, end);
  metrics_add (gen, gpu, kind == SL_MEMCPY_UVM_HTOD ? BIN_H2D : BIN_D2H, start, end,
               (double)bytes);
  return end;
}

/* cudaMemPrefetchAsync of four chunks of this step's buffer to @gpu (the chunks move along the
 * hot part of the buffer, so some are hot ones). */
static void
um_prefetch (Gen *gen, int gpu)
{
  int buffer = (int)((gen->step + gpu) % UM_BUFFERS);
  int64_t first = (gen->step * 4) % 16;
  int64_t start = gen->cpu_t, dur = rng_range (&gen->ext_rng, 4 * US, 12 * US);

  add_runtime_id (gen, start, start + dur, gen->um_prefetch_id, false);
  for (int64_t c = first; c < first + 4; c++)
    add_um_migration (gen, gpu, start + dur, UM_CHUNK, SL_MEMCPY_UVM_HTOD, UM_CAUSE_USER,
                      um_address (gpu, buffer, c));
  gen->cpu_t = start + dur;
}

/* The kernels of @gpu that ran in [t0, t1) faulted: a few fault groups, each followed by the
 * migration that served it and now and then a speculative prefetch of the chunk after it. */
static void
um_gpu_faults (Gen *gen, int gpu, int64_t t0, int64_t t1)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_UM_GPU_FAULT];
  int n = 3 + (int)rng_below (&gen->ext_rng, 6);

  if (t1 <= t0)
    return;
  for (int i = 0; i < n; i++)
    {
      int buffer = rng_chance (&gen->ext_rng, 0.7) ? (int)((gen->step + gpu) % UM_BUFFERS)
                                                   : (int)rng_below (&gen->ext_rng, UM_BUFFERS);
      int64_t address = um_address (gpu, buffer, um_fault_chunk (gen, buffer));
      int64_t start = t0 + (int64_t)((double)(t1 - t0) * ((double)i + rng_double (&gen->ext_rng)) / n);
      int64_t end = start + rng_range (&gen->ext_rng, 2 * US, 25 * US);
      double r = rng_double (&gen->ext_rng);

      bind_i64 (stmt, 1, start);
      bind_i64 (stmt, 2, end);
      bind_i64 (stmt, 3, gen->global_pid);
      bind_i64 (stmt, 4, gpu);
      bind_i64 (stmt, 5, address);
      bind_i64 (stmt, 6, 1 + rng_range (&gen->ext_rng, 0, 11));
      bind_i64 (stmt, 7, r < 0.6 ? 1 : r < 0.95 ? 2 : 3); /* read, write, atomic */
      step_stmt (gen, STMT_UM_GPU_FAULT);
      gen->n.um_gpu_faults++;
      note_time (gen, end);
      add_um_migration (gen, gpu, end, 4096 * rng_range (&gen->ext_rng, 1, 16), SL_MEMCPY_UVM_HTOD,
                        UM_CAUSE_COHERENCE, address);
      if (rng_chance (&gen->ext_rng, 0.35))
        add_um_migration (gen, gpu, end, 65536 * rng_range (&gen->ext_rng, 1, 8),
                          SL_MEMCPY_UVM_HTOD, UM_CAUSE_PREFETCH, address + UM_CHUNK);
    }
}

/* The host reads results in managed memory of @gpu: CPU faults on the main thread, each waiting
 * for its DtoH migration; now and then the driver evicts a cold chunk. */
static void
um_cpu_faults (Gen *gen, int gpu)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_UM_CPU_FAULT];
  int buffer = (int)((gen->step + gpu) % UM_BUFFERS);
  int n = 2 + (int)rng_below (&gen->ext_rng, 4);

  for (int i = 0; i < n; i++)
    {
      size_t site = rng_chance (&gen->ext_rng, 0.6) ? 0 : 1 + rng_below (&gen->ext_rng, 2);
      int64_t address = um_address (gpu, buffer, um_fault_chunk (gen, buffer));
      int64_t t = gen->cpu_t + rng_range (&gen->ext_rng, 1 * US, 6 * US);

      bind_i64 (stmt, 1, t);
      bind_i64 (stmt, 2, gen->global_pid);
      bind_i64 (stmt, 3, address);
      bind_i64 (stmt, 4, INT64_C (0x55d4c0001000) + (int64_t)site * 0x2000 +
                             rng_range (&gen->ext_rng, 0, 0x3f) * 4);
      bind_i64 (stmt, 5, gen->um_site_ids[site][0]);
      bind_i64 (stmt, 6, gen->um_site_ids[site][1]);
      bind_opt (stmt, 7, gen->um_site_ids[site][2], gen->um_site_ids[site][2] >= 0);
      bind_opt (stmt, 8, um_cpu_sites[site][3] != NULL ? atoi (um_cpu_sites[site][3]) : 0,
                um_cpu_sites[site][3] != NULL);
      step_stmt (gen, STMT_UM_CPU_FAULT);
      gen->n.um_cpu_faults++;
      note_time (gen, t);
      gen->cpu_t = add_um_migration (gen, gpu, t + 1 * US, 4096 * rng_range (&gen->ext_rng, 1, 16),
                                     SL_MEMCPY_UVM_DTOH, UM_CAUSE_COHERENCE, address) +
                   rng_range (&gen->ext_rng, 1 * US, 3 * US);
    }
  if (rng_chance (&gen->ext_rng, 0.1))
    add_um_migration (gen, gpu, gen->cpu_t, UM_CHUNK, SL_MEMCPY_UVM_DTOH, UM_CAUSE_EVICTION,
                      um_address (gpu, (buffer + 1) % UM_BUFFERS,
                                  16 + (int64_t)rng_below (&gen->ext_rng, UM_CHUNKS - 16)));
}

/* --- --memory-usage -----------------------------------------------------------------------------
 */

static void
add_mem_event (Gen *gen, int gpu, int64_t t, int64_t address, int64_t bytes, int kind, int oper,
               const char *name, int64_t corr)
{
  sqlite3_stmt *stmt = gen->stmt[STMT_MEM_USAGE];

  bind_i64 (stmt, 1, t);
  bind_i64 (stmt, 2, gen->global_pid);
  bind_i64 (stmt, 3, gpu);
  bind_i64 (stmt, 4, gpu + 1);
  bind_i64 (stmt, 5, address);
  bind_i64 (stmt, 6, bytes);
  bind_i64 (stmt, 7, kind);
  bind_i64 (stmt, 8, oper);
  if (name != NULL)
    sqlite3_bind_text (stmt, 9, name, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (stmt, 9);
  bind_i64 (stmt, 10, corr);
  step_stmt (gen, STMT_MEM_USAGE);
  gen->n.mem_events++;
  note_time (gen, t);
}

/* cudaMalloc (@address 0: a fresh block from the allocator) or cudaFree of @bytes on @gpu, on
 * the main thread, with its usage event; returns the address. */
static int64_t
mem_call (Gen *gen, int gpu, int64_t bytes, int64_t address, bool free_)
{
  int64_t start = gen->cpu_t + rng_range (&gen->ext_rng, 1 * US, 4 * US);
  int64_t dur = free_ ? rng_range (&gen->ext_rng, 20 * US, 300 * US)
                      : rng_range (&gen->ext_rng, 5 * US, 20 * US) + bytes / (64 << 20) * US;
  int64_t corr = add_runtime_id (gen, start, start + dur, free_ ? gen->free_id : gen->malloc_id,
                                 false);

  if (address == 0)
    {
      address = gen->mem_next[gpu];
      gen->mem_next[gpu] += (bytes + (2 << 20) - 1) / (2 << 20) * (2 << 20);
    }
  add_mem_event (gen, gpu, start + (dur / 3 < 10 * US ? dur / 3 : 10 * US), address, bytes,
                 SL_MEM_KIND_DEVICE, free_ ? MEM_OPER_DEALLOCATION : MEM_OPER_ALLOCATION, NULL,
                 corr);
  gen->cpu_t = start + dur;
  return address;
}

/* Start-up: a static allocation of cuBLAS (no call) and the weights of each GPU. */
static void
mem_startup (Gen *gen)
{
  for (int g = 0; g < gen->opt->gpus; g++)
    {
      gen->mem_next[g] = INT64_C (0x7f6000000000) + (int64_t)g * INT64_C (0x1000000000);
      add_mem_event (gen, g, gen->cpu_t, gen->mem_next[g] - (2 << 20), 112, MEM_KIND_DEVICE_STATIC,
                     MEM_OPER_ALLOCATION, "_ZN6cublas8internal15deviceConstantsE", 0);
      mem_call (gen, g, INT64_C (1610612736), 0, false);
    }
}

/* The workspaces of this step (the same blocks each step, after the first) and the cache block
 * that grows by 256 KiB a step and is never freed. */
static void
mem_step_begin (Gen *gen)
{
  int n = gen->opt->memory_usage;

  for (int g = 0; g < gen->opt->gpus; g++)
    {
      for (int j = 0; j < n; j++)
        {
          int64_t *ws = &gen->mem_workspace[g * n + j];
          *ws = mem_call (gen, g, (INT64_C (64) << 20) + (int64_t)j * (16 << 20), *ws, false);
        }
      mem_call (gen, g, (INT64_C (1) << 20) + gen->step * (256 << 10), 0, false);
    }
}

static void
mem_step_end (Gen *gen)
{
  int n = gen->opt->memory_usage;

  for (int g = 0; g < gen->opt->gpus; g++)
    for (int j = 0; j < n; j++)
      mem_call (gen, g, (INT64_C (64) << 20) + (int64_t)j * (16 << 20),
                gen->mem_workspace[g * n + j], true);
}

/* cudaEventRecord on @stream; with --cuda-events its CUPTI_ACTIVITY_KIND_CUDA_EVENT row, for the
 * stream_wait that follows (its eventSyncId is the next wait's), completing when the stream's
 * work queued so far has. */
static void
event_record (Gen *gen, int gpu, int stream)
{
  int64_t start = gen->cpu_t;
  int64_t dur = rng_range (&gen->rng, 1 * US, 3 * US);
  int64_t corr = add_runtime (gen, start, start + dur, API_EVENT_RECORD);

  if (gen->opt->cuda_events)
    {
      sqlite3_stmt *stmt = gen->stmt[STMT_CUDA_EVENT];
      int64_t done = *stream_clock (gen, gpu, stream);
      bind_i64 (stmt, 1, done > start + dur ? done : start + dur);
      bind_i64 (stmt, 2, gpu);
      bind_i64 (stmt, 3, gpu + 1);
      bind_i64 (stmt, 4, stream_id (gen, gpu, stream));
      bind_i64 (stmt, 5, corr);
      bind_i64 (stmt, 6, gen->global_pid);
      bind_i64 (stmt, 7, gen->sync_event % CUDA_EVENT_OBJECTS + 1);
      bind_i64 (stmt, 8, gen->sync_event + 1);
      step_stmt (gen, STMT_CUDA_EVENT);
      gen->n.cuda_events++;
    }
  gen->cpu_t = start + dur;
}

/* Stream @waiter waits (on the GPU) for what @signaller holds now: cudaStreamWaitEvent. */
static void
stream_wait (Gen *gen, int gpu, int waiter, int signaller)
{
  int64_t start = gen->cpu_t;
  int64_t dur = rng_range (&gen->rng, 1 * US, 3 * US);
  int64_t corr = add_runtime (gen, start, start + dur, API_STREAM_WAIT_EVENT);
  int64_t *w = stream_clock (gen, gpu, waiter);
  int64_t s = *stream_clock (gen, gpu, signaller);

  /* the event (the record's, with --cuda-events) and this wait's eventSyncId */
  int64_t event_id = gen->opt->cuda_events ? gen->sync_event % CUDA_EVENT_OBJECTS + 1
                                           : gen->sync_event + 1;
  int64_t sync_id = ++gen->sync_event;
  add_sync (gen, gpu, stream_id (gen, gpu, waiter), start + 300, start + dur - 200, corr,
            SL_SYNC_STREAM_WAIT_EVENT, event_id, sync_id);
  if (s > *w)
    *w = s;
  gen->cpu_t = start + dur;
}

/* --- MPI (--mpi) ------------------------------------------------------------------------------
 * Each step of each rank, on its main thread: a halo exchange with its ring neighbours
 * (MPI_Irecv from both, MPI_Isend to both, then MPI_Waitall), the loss's MPI_Allreduce, an
 * MPI_Bcast from rank 0 every 25 steps and an MPI_Barrier every 10.  Ranks draw the same random
 * numbers, so their calls line up; the straggler's neighbours wait for its sends in MPI_Waitall
 * and the others in the MPI_Allreduce, all of them until it gets there.  The GPU keeps running
 * the step's kernels meanwhile (communication overlapping computation). */

#define MPI_NULL INT64_MIN   /* a NULL column */

static bool exec_sql (Gen *gen, const char *sql);

enum
{
  MPI_T_P2P,
  MPI_T_COLL,
  MPI_T_WAIT,
  MPI_T_OTHER
};

static const char *const mpi_stmt_sql[4] = {
  "INSERT INTO MPI_P2P_EVENTS VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  "INSERT INTO MPI_COLLECTIVES_EVENTS VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  "INSERT INTO MPI_START_WAIT_EVENTS VALUES (?, ?, ?, ?, ?)",
  "INSERT INTO MPI_OTHER_EVENTS VALUES (?, ?, ?, ?)",
};

/* One MPI call on the main thread; @v: the table's columns after textId (MPI_NULL: NULL). */
static void
mpi_call (Gen *gen, int table, MpiFunc f, int64_t start, int64_t end, const int64_t *v)
{
  gen->n.mpi++;
  if (gen->opt->mpi == MPI_NVTX)
    {
      add_nvtx (gen, SL_EVENT_TYPE_NVTX_PUSH_POP_RANGE, start, end, gen->main_tid,
                mpi_func_names[f], -1, MPI_NVTX_DOMAIN, -1);
      return;
    }
  sqlite3_stmt *stmt = gen->mpi_stmt[table];
  int n = sqlite3_bind_parameter_count (stmt);
  bind_i64 (stmt, 1, start);
  bind_i64 (stmt, 2, end);
  bind_i64 (stmt, 3, gen->main_tid);
  bind_i64 (stmt, 4, gen->mpi_names[f]);
  for (int i = 5; i <= n; i++)
    bind_opt (stmt, i, v[i - 5], v[i - 5] != MPI_NULL);
  if (sqlite3_step (stmt) != SQLITE_DONE)
    gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
  sqlite3_reset (stmt);
  note_time (gen, end);
}

/* A call's length: a few microseconds, plus @wait. */
static int64_t
mpi_span (Gen *gen, MpiFunc f, int64_t wait, const int64_t *v, int table)
{
  int64_t start = gen->cpu_t + rng_range (&gen->rng, 300, 900);
  int64_t end = start + rng_range (&gen->rng, 2 * US, 9 * US) + wait;
  mpi_call (gen, table, f, start, end, v);
  gen->cpu_t = end;
  return end;
}

/* The tables, the rank of the main thread, the communicator, the names; and MPI_Init. */
static bool
mpi_begin (Gen *gen)
{
  const Options *opt = gen->opt;
  char sql[8192];
  int size = opt->ranks > 0 ? opt->ranks : 1;

  if (opt->mpi == MPI_NVTX)
    {
      add_nvtx (gen, SL_EVENT_TYPE_NVTX_DOMAIN_CREATE, gen->cpu_t, -1, gen->main_tid, "MPI", -1,
                MPI_NVTX_DOMAIN, -1);
      return true;
    }
  for (int i = 0; i < SL_SCHEMA_N_MPI_TABLES; i++)
    if (!exec_sql (gen, sl_schema_mpi_sql[i]))
      return false;
  for (int i = 0; i < 4; i++)
    if (sqlite3_prepare_v2 (gen->db, mpi_stmt_sql[i], -1, &gen->mpi_stmt[i], NULL) != SQLITE_OK)
      {
        gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
        return false;
      }
  for (int f = 0; f < N_MPI_F; f++)
    gen->mpi_names[f] = string_add (gen, mpi_func_names[f]);
  snprintf (sql, sizeof sql, "INSERT INTO MPI_RANKS VALUES (%" PRId64 ", %d)", gen->main_tid,
            opt->rank);
  if (!exec_sql (gen, sql))
    return false;
  char members[4096] = "";
  for (int r = 0; r < size && strlen (members) + 8 < sizeof members; r++)
    snprintf (members + strlen (members), sizeof members - strlen (members), "%s%d",
              r > 0 ? "," : "", r);
  snprintf (sql, sizeof sql, "INSERT INTO MPI_COMMUNICATORS VALUES (%d, %" PRId64 ", %" PRId64
            ", NULL, %d, %d, 0, %" PRId64 ", '%s', %" PRId64 ")", opt->rank, gen->cpu_t,
            MPI_COMM_WORLD_HANDLE, opt->rank, size, MPI_COMM_WORLD_UID, members,
            MPI_COMM_WORLD_UID);
  return exec_sql (gen, sql);
}

static void
mpi_init (Gen *gen)
{
  static const int64_t none[1] = { MPI_NULL };
  mpi_span (gen, MPI_F_INIT, 2 * MS, none, MPI_T_OTHER);
  mpi_span (gen, MPI_F_COMM_RANK, 0, none, MPI_T_OTHER);
}

static void
mpi_finalize (Gen *gen)
{
  static const int64_t none[1] = { MPI_NULL };
  mpi_span (gen, MPI_F_FINALIZE, 1 * MS, none, MPI_T_OTHER);
}

/* The step's MPI calls; @late: how long the straggler kept the others waiting. */
static void
mpi_step (Gen *gen, int64_t late)
{
  const Options *opt = gen->opt;
  int size = opt->ranks > 0 ? opt->ranks : 1, rank = opt->rank;
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int64_t comm = MPI_COMM_WORLD_HANDLE, tag = gen->step % 30000;
  /* the same on every rank: a message's size is its sender's and its receiver's */
  int64_t bytes = (int64_t) 64 << 10 << (gen->step % 5);
  bool straggler = opt->straggler >= 0 && rank == opt->straggler;
  bool next_to = opt->straggler >= 0 && !straggler
                 && (left == opt->straggler || right == opt->straggler);
  int64_t first = gen->mpi_request + 1;

  if (size > 1)
    {
      /* tags: 2 tag rightward, 2 tag + 1 leftward */
      int64_t a[5] = { comm, 2 * tag, left, bytes, ++gen->mpi_request };
      mpi_span (gen, MPI_F_IRECV, 0, a, MPI_T_P2P);
      int64_t b[5] = { comm, 2 * tag + 1, right, bytes, ++gen->mpi_request };
      mpi_span (gen, MPI_F_IRECV, 0, b, MPI_T_P2P);
      int64_t c[5] = { comm, 2 * tag, right, bytes, ++gen->mpi_request };
      mpi_span (gen, MPI_F_ISEND, 0, c, MPI_T_P2P);
      int64_t d[5] = { comm, 2 * tag + 1, left, bytes, ++gen->mpi_request };
      mpi_span (gen, MPI_F_ISEND, 0, d, MPI_T_P2P);
      int64_t w[1] = { first };
      mpi_span (gen, MPI_F_WAITALL, next_to ? late : 0, w, MPI_T_WAIT);
    }
  int64_t ar[5] = { comm, MPI_NULL, 8, 8, MPI_NULL };
  mpi_span (gen, MPI_F_ALLREDUCE, !straggler && !next_to ? late : 0, ar, MPI_T_COLL);
  if (gen->step % 25 == 1)
    {
      int64_t bc[5] = { comm, 0, 4096, 4096, MPI_NULL };
      mpi_span (gen, MPI_F_BCAST, 0, bc, MPI_T_COLL);
    }
  if (gen->step % 10 == 0)
    {
      int64_t br[5] = { comm, MPI_NULL, MPI_NULL, MPI_NULL, MPI_NULL };
      mpi_span (gen, MPI_F_BARRIER, 0, br, MPI_T_COLL);
    }
}

/* --- OpenMP (--openmp) and OpenACC (--openacc) ---------------------------------------------------
 * --openmp: each step the main thread preprocesses the batch in an OpenMP parallel region before
 * the forward pass, two regions by turns (a team of OMP_TEAM threads at line 42 of data.c, of 2 at
 * line 57), as the OPENMP_EVENT_KIND_* tables of NVIDIA's schema hold it: the region on the
 * primary thread (PARALLEL), one implicit task a team thread (TASK, kind 2), its loop (WORKSHARE,
 * kind 1) and its implicit barrier (SYNC_REGION, kind 2) with the wait in it (SYNC_REGION_WAIT),
 * a critical section every 5 steps (MUTEX_WAIT, CRITICAL_SECTION), each worker's life (THREAD).
 * --openacc: each step a compute construct of solver.c by turns (jacobi at line 88, residual at
 * line 112) as CUPTI_ACTIVITY_KIND_OPENACC_{DATA,LAUNCH,OTHER} hold it: its enter data (alloc,
 * create, enqueue upload of a variable), the kernel's launch (gangs, workers, vector length), its
 * exit data (enqueue download, wait, delete, free); an update every 10 steps.  Their own random
 * numbers, so that the other rows are those of a trace without them; none in EVENTS. */
#define OMP_TEAM 4
#define OMP_CLASS 78          /* ENUM_NSYS_EVENT_CLASS: TRACE_PROCESS_EVENT_OPENMP */
#define ACC_CLASS 48          /* TRACE_PROCESS_EVENT_OPENACC */

#define OMP_COLUMNS                                                                               \
  "start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, "                   \
  "globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, eventKind INTEGER"
#define ACC_COLUMNS                                                                               \
  "start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, "                   \
  "globalTid INTEGER, nameId INTEGER NOT NULL, eventKind INTEGER, parentConstruct INTEGER, "      \
  "lineNo INTEGER, endLineNo INTEGER, srcFile INTEGER, funcName INTEGER"

typedef enum
{
  OMP_T_THREAD,
  OMP_T_PARALLEL,
  OMP_T_SYNC_WAIT,
  OMP_T_SYNC,
  OMP_T_TASK,
  OMP_T_MUTEX_WAIT,
  OMP_T_CRITICAL,
  OMP_T_WORKSHARE,
  ACC_T_DATA,
  ACC_T_LAUNCH,
  ACC_T_OTHER,
  N_OMP_T
} OmpTable;

/* Each table: CREATE, its INSERT, the eventKind of its rows (ENUM_OPENMP_EVENT_KIND) */
static const struct
{
  const char *create, *insert;
  int kind;
} omp_tables[N_OMP_T] = {
  [OMP_T_THREAD] = { "CREATE TABLE OPENMP_EVENT_KIND_THREAD (" OMP_COLUMNS ", threadId INTEGER, "
                     "threadType INTEGER)",
                     "INSERT INTO OPENMP_EVENT_KIND_THREAD VALUES (?, ?, 78, ?, 0, ?, 27, ?, ?)",
                     27 },
  [OMP_T_PARALLEL] = { "CREATE TABLE OPENMP_EVENT_KIND_PARALLEL (" OMP_COLUMNS
                       ", parallelId INTEGER, parentTaskId INTEGER)",
                       "INSERT INTO OPENMP_EVENT_KIND_PARALLEL VALUES "
                       "(?, ?, 78, ?, 0, ?, 28, ?, ?)",
                       28 },
  [OMP_T_SYNC_WAIT] = { "CREATE TABLE OPENMP_EVENT_KIND_SYNC_REGION_WAIT (" OMP_COLUMNS
                        ", parallelId INTEGER, taskId INTEGER, kind INTEGER)",
                        "INSERT INTO OPENMP_EVENT_KIND_SYNC_REGION_WAIT VALUES "
                        "(?, ?, 78, ?, 0, ?, 29, ?, ?, ?)", 29 },
  [OMP_T_SYNC] = { "CREATE TABLE OPENMP_EVENT_KIND_SYNC_REGION (" OMP_COLUMNS
                   ", parallelId INTEGER, taskId INTEGER, kind INTEGER)",
                   "INSERT INTO OPENMP_EVENT_KIND_SYNC_REGION VALUES "
                   "(?, ?, 78, ?, 0, ?, 30, ?, ?, ?)", 30 },
  [OMP_T_TASK] = { "CREATE TABLE OPENMP_EVENT_KIND_TASK (" OMP_COLUMNS
                   ", parallelId INTEGER, taskId INTEGER, kind INTEGER)",
                   "INSERT INTO OPENMP_EVENT_KIND_TASK VALUES (?, ?, 78, ?, 0, ?, 31, ?, ?, ?)",
                   31 },
  [OMP_T_MUTEX_WAIT] = { "CREATE TABLE OPENMP_EVENT_KIND_MUTEX_WAIT (" OMP_COLUMNS
                         ", kind INTEGER, waitId INTEGER, taskId INTEGER)",
                         "INSERT INTO OPENMP_EVENT_KIND_MUTEX_WAIT VALUES "
                         "(?, ?, 78, ?, 0, ?, 34, ?, ?, ?)", 34 },
  [OMP_T_CRITICAL] = { "CREATE TABLE OPENMP_EVENT_KIND_CRITICAL_SECTION (" OMP_COLUMNS
                       ", kind INTEGER, waitId INTEGER)",
                       "INSERT INTO OPENMP_EVENT_KIND_CRITICAL_SECTION VALUES "
                       "(?, ?, 78, ?, 0, ?, 35, ?, ?)", 35 },
  [OMP_T_WORKSHARE] = { "CREATE TABLE OPENMP_EVENT_KIND_WORKSHARE (" OMP_COLUMNS
                        ", kind INTEGER, parallelId INTEGER, taskId INTEGER, count INTEGER)",
                        "INSERT INTO OPENMP_EVENT_KIND_WORKSHARE VALUES "
                        "(?, ?, 78, ?, 0, ?, 36, ?, ?, ?, ?)", 36 },
  [ACC_T_DATA] = { "CREATE TABLE CUPTI_ACTIVITY_KIND_OPENACC_DATA (" ACC_COLUMNS
                   ", bytes INTEGER, varName INTEGER)",
                   "INSERT INTO CUPTI_ACTIVITY_KIND_OPENACC_DATA VALUES "
                   "(?, ?, 48, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", 0 },
  [ACC_T_LAUNCH] = { "CREATE TABLE CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH (" ACC_COLUMNS
                     ", numGangs INTEGER, numWorkers INTEGER, vectorLength INTEGER)",
                     "INSERT INTO CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH VALUES "
                     "(?, ?, 48, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", 0 },
  [ACC_T_OTHER] = { "CREATE TABLE CUPTI_ACTIVITY_KIND_OPENACC_OTHER (" ACC_COLUMNS ")",
                    "INSERT INTO CUPTI_ACTIVITY_KIND_OPENACC_OTHER VALUES "
                    "(?, ?, 48, ?, ?, ?, ?, ?, ?, ?, ?)", 0 },
};

/* OpenACC event kinds (CUpti_OpenAccEventKind) and the names nsys gives their rows */
enum
{
  ACC_ENQUEUE_LAUNCH = 4,
  ACC_ENQUEUE_UPLOAD = 5,
  ACC_ENQUEUE_DOWNLOAD = 6,
  ACC_WAIT = 7,
  ACC_COMPUTE_CONSTRUCT = 9,
  ACC_UPDATE = 10,
  ACC_ENTER_DATA = 11,
  ACC_EXIT_DATA = 12,
  ACC_CREATE = 13,
  ACC_DELETE = 14,
  ACC_ALLOC = 15,
  ACC_FREE = 16,
  ACC_N_KINDS
};
static const char *const acc_kind_names[ACC_N_KINDS] = {
  [ACC_ENQUEUE_LAUNCH] = "Enqueue Launch", [ACC_ENQUEUE_UPLOAD] = "Enqueue Upload",
  [ACC_ENQUEUE_DOWNLOAD] = "Enqueue Download", [ACC_WAIT] = "Wait",
  [ACC_COMPUTE_CONSTRUCT] = "Compute Construct", [ACC_UPDATE] = "Update",
  [ACC_ENTER_DATA] = "Enter Data", [ACC_EXIT_DATA] = "Exit Data", [ACC_CREATE] = "Create",
  [ACC_DELETE] = "Delete", [ACC_ALLOC] = "Alloc", [ACC_FREE] = "Free",
};

/* The two OpenMP regions and the two OpenACC constructs, by turns */
static const struct
{
  const char *name;
  int team;
} omp_regions[2] = {
  { "omp parallel: preprocess (data.c:42)", OMP_TEAM },
  { "omp parallel: augment (data.c:57)", 2 },
};
static const struct
{
  const char *func, *var;
  int line, end_line;
  int64_t bytes, gangs, vector;
} acc_constructs[2] = {
  { "jacobi", "grid", 88, 104, 8 << 20, 1024, 128 },
  { "residual", "err", 112, 121, 64 << 10, 256, 256 },
};

/* The OpenMP / OpenACC state of a generator: tables, names, team threads, ids. */
typedef struct
{
  sqlite3_stmt *stmt[N_OMP_T];
  Rng rng;
  int64_t tids[OMP_TEAM];           /* the team: the main thread, then OMP_TEAM - 1 workers */
  int64_t first_t[OMP_TEAM], last_t; /* the workers' lives: their first region, the last one */
  int64_t parallel_id, task_id;
  int64_t region_names[2], task_name, loop_name, barrier_name, wait_name, mutex_name, crit_name,
      thread_name;
  int64_t acc_names[ACC_N_KINDS], acc_file, acc_funcs[2], acc_vars[2];
} OmpGen;

static OmpGen omp_gen;

static void
omp_row (Gen *gen, OmpTable t, int64_t start, int64_t end, int64_t tid, int64_t name,
         const int64_t *v, int n)
{
  sqlite3_stmt *stmt = omp_gen.stmt[t];
  bind_i64 (stmt, 1, start);
  bind_i64 (stmt, 2, end);
  bind_i64 (stmt, 3, tid);
  bind_i64 (stmt, 4, name);
  for (int i = 0; i < n; i++)
    bind_i64 (stmt, 5 + i, v[i]);
  if (sqlite3_step (stmt) != SQLITE_DONE)
    gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
  sqlite3_reset (stmt);
  note_time (gen, end);
  if (t < ACC_T_DATA)
    gen->n.openmp++;
  else
    gen->n.openacc++;
}

static bool
omp_begin (Gen *gen)
{
  const Options *opt = gen->opt;
  sqlite3_stmt *names = NULL;

  rng_seed (&omp_gen.rng, opt->seed ^ UINT64_C (0x0e9e9acc));
  for (int t = 0; t < N_OMP_T; t++)
    {
      if (t < ACC_T_DATA ? !opt->openmp : !opt->openacc)
        continue;
      if (!exec_sql (gen, omp_tables[t].create))
        return false;
      if (sqlite3_prepare_v2 (gen->db, omp_tables[t].insert, -1, &omp_gen.stmt[t], NULL)
          != SQLITE_OK)
        {
          gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
          return false;
        }
    }
  if (opt->openmp)
    {
      if (sqlite3_prepare_v2 (gen->db, "INSERT INTO ThreadNames VALUES (?, 20, ?)", -1, &names,
                              NULL) != SQLITE_OK)
        {
          gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
          return false;
        }
      omp_gen.tids[0] = gen->main_tid;
      for (int w = 1; w < OMP_TEAM; w++)
        {
          char name[32];
          omp_gen.tids[w] = SL_GLOBAL_TID (1, gen->pid, gen->pid + 200 + w);
          snprintf (name, sizeof name, "omp_worker_%d", w);
          bind_i64 (names, 1, string_add (gen, name));
          bind_i64 (names, 2, omp_gen.tids[w]);
          sqlite3_step (names);
          sqlite3_reset (names);
        }
      sqlite3_finalize (names);
      for (int i = 0; i < 2; i++)
        omp_gen.region_names[i] = string_add (gen, omp_regions[i].name);
      omp_gen.task_name = string_add (gen, "omp implicit task");
      omp_gen.loop_name = string_add (gen, "omp for");
      omp_gen.barrier_name = string_add (gen, "omp implicit barrier");
      omp_gen.wait_name = string_add (gen, "omp barrier wait");
      omp_gen.mutex_name = string_add (gen, "omp critical wait");
      omp_gen.crit_name = string_add (gen, "omp critical");
      omp_gen.thread_name = string_add (gen, "omp worker thread");
      for (int w = 0; w < OMP_TEAM; w++)
        omp_gen.first_t[w] = -1;
    }
  if (opt->openacc)
    {
      for (int k = 0; k < ACC_N_KINDS; k++)
        omp_gen.acc_names[k] = acc_kind_names[k] != NULL ? string_add (gen, acc_kind_names[k]) : 0;
      omp_gen.acc_file = string_add (gen, "solver.c");
      for (int i = 0; i < 2; i++)
        {
          omp_gen.acc_funcs[i] = string_add (gen, acc_constructs[i].func);
          omp_gen.acc_vars[i] = string_add (gen, acc_constructs[i].var);
        }
    }
  return gen->error == NULL;
}

/* One parallel region on the main thread from gen->cpu_t; the main thread's clock moves past it. */
static void
omp_step (Gen *gen)
{
  Rng *rng = &omp_gen.rng;
  int which = (int) (gen->step % 2), team = omp_regions[which].team;
  int64_t ps = gen->cpu_t + rng_range (rng, 2 * US, 6 * US);
  int64_t work = rng_range (rng, 150 * US, 600 * US);
  int64_t par_id = ++omp_gen.parallel_id;
  int64_t barrier_end = ps + 4 * US + work + rng_range (rng, 20 * US, 60 * US);
  int64_t pe = barrier_end + rng_range (rng, 2 * US, 5 * US);

  for (int i = 0; i < team; i++)
    {
      int64_t task = ++omp_gen.task_id, tid = omp_gen.tids[i];
      int64_t ts = ps + 1 * US + (i == 0 ? 0 : rng_range (rng, 1 * US, 3 * US));
      int64_t ls = ts + 1 * US, le = ls + work - rng_range (rng, 0, work / 3);
      int64_t iters = rng_range (rng, 1000, 100000);
      const int64_t loop[4] = { 1, par_id, task, iters };
      omp_row (gen, OMP_T_WORKSHARE, ls, le, tid, omp_gen.loop_name, loop, 4);
      /* every 5 steps the team adds to a shared sum in a critical section */
      if (gen->step % 5 == 0)
        {
          int64_t ms = le + 200, me = ms + rng_range (rng, 1 * US, 8 * US);
          const int64_t mutex[3] = { 5, 0x7f00d000, task };
          omp_row (gen, OMP_T_MUTEX_WAIT, ms, me, tid, omp_gen.mutex_name, mutex, 3);
          const int64_t crit[2] = { 5, 0x7f00d000 };
          omp_row (gen, OMP_T_CRITICAL, me, me + 2 * US, tid, omp_gen.crit_name, crit, 2);
          le = me + 2 * US;
        }
      /* the implicit barrier: who finished early waits in it */
      int64_t bs = le + 500;
      const int64_t sync[3] = { par_id, task, 2 };
      omp_row (gen, OMP_T_SYNC, bs, barrier_end, tid, omp_gen.barrier_name, sync, 3);
      if (barrier_end - bs > 2 * US)
        omp_row (gen, OMP_T_SYNC_WAIT, bs + 1 * US, barrier_end - 500, tid, omp_gen.wait_name,
                 sync, 3);
      const int64_t t[3] = { par_id, task, 2 };
      omp_row (gen, OMP_T_TASK, ts, barrier_end + 1 * US, tid, omp_gen.task_name, t, 3);
      if (i > 0 && omp_gen.first_t[i] < 0)
        omp_gen.first_t[i] = ts - 20 * US;
    }
  const int64_t par[2] = { par_id, 1 };
  omp_row (gen, OMP_T_PARALLEL, ps, pe, gen->main_tid, omp_gen.region_names[which], par, 2);
  omp_gen.last_t = pe + 10 * US;
  gen->cpu_t = pe + rng_range (rng, 1 * US, 4 * US);
}

/* An OpenACC row; @v: the table's columns after funcName. */
static void
acc_row (Gen *gen, OmpTable t, int kind, int c, int64_t start, int64_t end, const int64_t *v,
         int n)
{
  const int64_t common[7] = {
    omp_gen.acc_names[kind], kind, 1 /* parallel */, acc_constructs[c].line,
    acc_constructs[c].end_line, omp_gen.acc_file, omp_gen.acc_funcs[c],
  };
  int64_t all[10];
  memcpy (all, common, sizeof common);
  for (int i = 0; i < n; i++)
    all[7 + i] = v[i];
  sqlite3_stmt *stmt = omp_gen.stmt[t];
  bind_i64 (stmt, 1, start);
  bind_i64 (stmt, 2, end);
  bind_i64 (stmt, 3, gen->main_tid);
  for (int i = 0; i < 7 + n; i++)
    bind_i64 (stmt, 4 + i, all[i]);
  if (sqlite3_step (stmt) != SQLITE_DONE)
    gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
  sqlite3_reset (stmt);
  note_time (gen, end);
  gen->n.openacc++;
}

/* One compute construct on the main thread from gen->cpu_t, nested as the runtime reports it. */
static void
acc_step (Gen *gen)
{
  Rng *rng = &omp_gen.rng;
  int c = (int) (gen->step % 2);
  int64_t bytes = acc_constructs[c].bytes;
  const int64_t data[2] = { bytes, omp_gen.acc_vars[c] };
  int64_t s = gen->cpu_t + rng_range (rng, 2 * US, 5 * US), t = s + 1 * US;

  /* enter data: alloc, create, upload */
  int64_t es = t;
  acc_row (gen, ACC_T_DATA, ACC_ALLOC, c, t, t + 3 * US, data, 2);
  t += 4 * US;
  acc_row (gen, ACC_T_DATA, ACC_CREATE, c, t, t + 1 * US, data, 2);
  t += 2 * US;
  int64_t up = bytes / 12000 + rng_range (rng, 5 * US, 15 * US);
  acc_row (gen, ACC_T_DATA, ACC_ENQUEUE_UPLOAD, c, t, t + up, data, 2);
  t += up + 1 * US;
  acc_row (gen, ACC_T_OTHER, ACC_ENTER_DATA, c, es, t, NULL, 0);
  t += 1 * US;
  /* the kernel's launch */
  const int64_t launch[3] = { acc_constructs[c].gangs, 1, acc_constructs[c].vector };
  int64_t ld = rng_range (rng, 4 * US, 9 * US);
  acc_row (gen, ACC_T_LAUNCH, ACC_ENQUEUE_LAUNCH, c, t, t + ld, launch, 3);
  t += ld + 1 * US;
  /* exit data: download, wait, delete, free */
  int64_t xs = t;
  int64_t down = bytes / 12000 + rng_range (rng, 5 * US, 15 * US);
  acc_row (gen, ACC_T_DATA, ACC_ENQUEUE_DOWNLOAD, c, t, t + down, data, 2);
  t += down + 1 * US;
  int64_t wait = rng_range (rng, 50 * US, 400 * US);
  acc_row (gen, ACC_T_OTHER, ACC_WAIT, c, t, t + wait, NULL, 0);
  t += wait + 1 * US;
  acc_row (gen, ACC_T_DATA, ACC_DELETE, c, t, t + 1 * US, data, 2);
  t += 2 * US;
  acc_row (gen, ACC_T_DATA, ACC_FREE, c, t, t + 2 * US, data, 2);
  t += 3 * US;
  acc_row (gen, ACC_T_OTHER, ACC_EXIT_DATA, c, xs, t, NULL, 0);
  t += 1 * US;
  acc_row (gen, ACC_T_OTHER, ACC_COMPUTE_CONSTRUCT, c, s, t, NULL, 0);
  /* an update of the host copy every 10 steps */
  if (gen->step % 10 == 0)
    {
      t += 2 * US;
      int64_t u = rng_range (rng, 20 * US, 80 * US);
      acc_row (gen, ACC_T_OTHER, ACC_UPDATE, c, t, t + u, NULL, 0);
      t += u;
    }
  gen->cpu_t = t + rng_range (rng, 1 * US, 4 * US);
}

/* The workers' lives (THREAD rows), and the statements. */
static void
omp_end (Gen *gen)
{
  for (int w = 1; gen->opt->openmp && gen->error == NULL && w < OMP_TEAM; w++)
    if (omp_gen.first_t[w] >= 0)
      {
        const int64_t v[2] = { w + 1, 2 /* worker */ };
        omp_row (gen, OMP_T_THREAD, omp_gen.first_t[w], omp_gen.last_t, omp_gen.tids[w],
                 omp_gen.thread_name, v, 2);
      }
  for (int t = 0; t < N_OMP_T; t++)
    {
      sqlite3_finalize (omp_gen.stmt[t]);
      omp_gen.stmt[t] = NULL;
    }
}

/* The host blocks until the stream (or, with @stream < 0, the whole device) is idle. */
static void
host_sync (Gen *gen, int gpu, int stream)
{
  int64_t start = gen->cpu_t;
  int64_t busy = start;
  int64_t end, corr;

  for (int s = 0; s < gen->opt->streams; s++)
    if (stream < 0 || s == stream)
      if (*stream_clock (gen, gpu, s) > busy)
        busy = *stream_clock (gen, gpu, s);
  end = busy + rng_range (&gen->rng, 2 * US, 6 * US);
  corr = add_runtime (gen, start, end, stream < 0 ? API_DEVICE_SYNC : API_STREAM_SYNC);
  add_sync (gen, gpu, stream < 0 ? SL_SCHEMA_ID_NONE : stream_id (gen, gpu, stream), start + 400,
            end - 300, corr, stream < 0 ? SL_SYNC_CONTEXT : SL_SYNC_STREAM, SL_SCHEMA_ID_NONE,
            SL_SCHEMA_ID_NONE);
  gen->cpu_t = end;
}

static bool
budget_reached (const Gen *gen)
{
  return total_events (gen) >= gen->opt->n_events || gen->error != NULL;
}

/* One autograd-level op: an NVTX range in the default domain around 2-4 API calls. */
static void
run_op (Gen *gen, int phase)
{
  static const char **op_lists[3] = { ops_forward, ops_backward, ops_optimizer };
  static const size_t op_counts[3] = { N_ELEMENTS (ops_forward), N_ELEMENTS (ops_backward),
                                       N_ELEMENTS (ops_optimizer) };
  const char *name = op_lists[phase][rng_below (&gen->rng, op_counts[phase])];
  int streams = gen->opt->streams;
  int gpu = gen->op_seq++ % gen->opt->gpus;
  int stream = 0;
  int actions = (int)rng_range (&gen->rng, 2, 4);
  int64_t start;

  /* Side streams (2 and up; 1 is the copy stream) get some of the work when there are any. */
  if (streams > 2 && rng_chance (&gen->rng, 0.15))
    stream = 2 + (int)rng_below (&gen->rng, (uint64_t)streams - 2);
  else if (streams == 2 && rng_chance (&gen->rng, 0.05))
    stream = 1;

  cpu_gap (gen);
  start = gen->cpu_t;
  gen->cpu_t += rng_range (&gen->rng, 300, 1500);
  for (int i = 0; i < actions; i++)
    {
      double r = rng_double (&gen->rng);

      if (i > 0)
        cpu_gap (gen);
      if (r < 0.875)
        launch (gen, gpu, stream, phase);
      else if (r < 0.925)
        memcpy_async (gen, gpu, stream, SL_MEMCPY_DTOD, SL_MEM_KIND_DEVICE, SL_MEM_KIND_DEVICE,
                      rng_range (&gen->rng, 4096, 64 << 20));
      else if (r < 0.970)
        memset_async (gen, gpu, stream, rng_range (&gen->rng, 4096, 32 << 20));
      else if (r < 0.985)
        memcpy_async (gen, gpu, stream, SL_MEMCPY_HTOD, SL_MEM_KIND_PAGEABLE, SL_MEM_KIND_DEVICE,
                      rng_range (&gen->rng, 64, 1 << 20));
      else
        memcpy_async (gen, gpu, stream, SL_MEMCPY_DTOH, SL_MEM_KIND_DEVICE, SL_MEM_KIND_PINNED,
                      rng_range (&gen->rng, 4, 1 << 16));
    }
  gen->cpu_t += rng_range (&gen->rng, 300, 1500);
  add_nvtx (gen, SL_EVENT_TYPE_NVTX_PUSH_POP_RANGE, start, gen->cpu_t, gen->main_tid, name, -1, 0,
            colours[(phase * 2 + 1) % N_ELEMENTS (colours)]);
}

/* One phase (forward, backward, optimizer): a "train"-domain range around @n_ops ops. */
static void
run_phase (Gen *gen, int phase, int n_ops)
{
  int64_t start;

  gen->cpu_t += rng_range (&gen->rng, 1 * US, 5 * US);
  start = gen->cpu_t;
  gen->cpu_t += rng_range (&gen->rng, 200, 800);
  if (phase == 2)
    /* optimizer.zero_grad() without set_to_none clears the gradient buckets. */
    memset_async (gen, 0, 0, rng_range (&gen->rng, 1 << 20, 64 << 20));
  for (int i = 0; i < n_ops && !budget_reached (gen); i++)
    run_op (gen, phase);
  gen->cpu_t += rng_range (&gen->rng, 200, 800);
  add_nvtx (gen, SL_EVENT_TYPE_NVTX_PUSH_POP_RANGE, start, gen->cpu_t, gen->main_tid, NULL,
            gen->nvtx_ids[phase], 1, colours[phase * 2 % N_ELEMENTS (colours)]);
}

/* The optimizer phase with --graphs: zero_grad's memset, then one graph launch a GPU, in the
 * same "optimizer" range. */
static void
run_graph_phase (Gen *gen)
{
  int64_t start;

  gen->cpu_t += rng_range (&gen->rng, 1 * US, 5 * US);
  start = gen->cpu_t;
  gen->cpu_t += rng_range (&gen->rng, 200, 800);
  memset_async (gen, 0, 0, rng_range (&gen->rng, 1 << 20, 64 << 20));
  for (int g = 0; g < gen->opt->gpus && !budget_reached (gen); g++)
    {
      cpu_gap (gen);
      graph_launch (gen, g);
    }
  gen->cpu_t += rng_range (&gen->rng, 200, 800);
  add_nvtx (gen, SL_EVENT_TYPE_NVTX_PUSH_POP_RANGE, start, gen->cpu_t, gen->main_tid, NULL,
            gen->nvtx_ids[2], 1, colours[2 * 2 % N_ELEMENTS (colours)]);
}

static int64_t
osrt_duration (Gen *gen, int name, int64_t *ret)
{
  switch (name)
    {
    case OSRT_READ:
      *ret = rng_range (&gen->rng, 4096, 1 << 20);
      return rng_range (&gen->rng, 20 * US, 400 * US);
    case OSRT_COND_WAIT: *ret = 0; return rng_range (&gen->rng, 100 * US, 5 * MS);
    case OSRT_POLL: *ret = 1; return rng_range (&gen->rng, 10 * US, 800 * US);
    case OSRT_NANOSLEEP: *ret = 0; return rng_range (&gen->rng, 50 * US, 1 * MS);
    case OSRT_RECVMSG:
      *ret = rng_range (&gen->rng, 64, 65536);
      return rng_range (&gen->rng, 5 * US, 200 * US);
    case OSRT_OPEN:
      *ret = rng_range (&gen->rng, 3, 200);
      return rng_range (&gen->rng, 5 * US, 60 * US);
    case OSRT_MMAP:
      *ret = INT64_C (0x7f0000000000) + rng_range (&gen->rng, 0, 1 << 30) * 4096;
      return rng_range (&gen->rng, 3 * US, 40 * US);
    default: *ret = 0; return rng_range (&gen->rng, 2 * US, 120 * US);
    }
}

/* Data-loader work for one step: @n OS runtime calls spread over the worker threads (or, with a
 * single thread, done synchronously by the main thread before the step), now and then inside an
 * NVTX start/end range "load batch N". */
static void
run_loader (Gen *gen, uint64_t n, int64_t step_start)
{
  int workers = gen->opt->threads - 1;

  if (workers <= 0)
    {
      for (uint64_t i = 0; i < n; i++)
        {
          int name = (int)rng_below (&gen->rng, N_ELEMENTS (osrt_names));
          int64_t ret, dur;

          if (name == OSRT_COND_WAIT)
            name = OSRT_READ;
          dur = osrt_duration (gen, name, &ret) / 4;
          gen->cpu_t += rng_range (&gen->rng, 2 * US, 20 * US);
          add_osrt (gen, gen->main_tid, name, gen->cpu_t, gen->cpu_t + dur, ret);
          gen->cpu_t += dur;
        }
      return;
    }

  for (int w = 0; w < workers; w++)
    {
      uint64_t calls = n / (uint64_t)workers + ((uint64_t)w < n % (uint64_t)workers ? 1 : 0);
      int64_t *t = &gen->worker_t[w];
      bool ranged = calls > 0 && (gen->step + w) % 4 == 0;
      int64_t range_start;

      if (*t < step_start)
        *t = step_start + rng_range (&gen->rng, 0, 200 * US);
      range_start = *t;
      for (uint64_t i = 0; i < calls; i++)
        {
          double r = rng_double (&gen->rng);
          int name = r < 0.40   ? OSRT_READ
                     : r < 0.60 ? OSRT_COND_WAIT
                     : r < 0.75 ? OSRT_POLL
                     : r < 0.85
                         ? OSRT_NANOSLEEP
                         : OSRT_MUTEX_LOCK + (int)rng_below (&gen->rng, N_ELEMENTS (osrt_names) -
                                                                            OSRT_MUTEX_LOCK);
          int64_t ret, dur = osrt_duration (gen, name, &ret);

          *t += rng_range (&gen->rng, 5 * US, 150 * US);
          add_osrt (gen, gen->worker_tids[w], name, *t, *t + dur, ret);
          *t += dur;
        }
      if (ranged && !budget_reached (gen))
        {
          char text[64];

          *t += rng_range (&gen->rng, 1 * US, 10 * US);
          snprintf (text, sizeof text, "load batch %" PRId64, gen->step + 1);
          add_nvtx (gen, SL_EVENT_TYPE_NVTX_START_END_RANGE, range_start, *t, gen->worker_tids[w],
                    text, -1, (gen->step / 4) % 2, colours[4]);
        }
    }
}

static void
run_samples (Gen *gen, uint64_t n, int64_t start, int64_t end)
{
  int workers = gen->opt->threads - 1;

  if (end <= start)
    end = start + 1;
  for (uint64_t i = 0; i < n; i++)
    {
      int64_t t = start + (int64_t)((double)(end - start) * ((double)i + rng_double (&gen->rng)) /
                                    (double)n);
      bool on_worker = workers > 0 && rng_chance (&gen->rng, 0.3);

      if (on_worker)
        add_sample (gen, gen->worker_tids[rng_below (&gen->rng, (uint64_t)workers)], t,
                    gen->stacks_worker_ids[rng_below (&gen->rng, N_ELEMENTS (stacks_worker))]);
      else
        add_sample (gen, gen->main_tid, t,
                    gen->stacks_main_ids[rng_below (&gen->rng, N_ELEMENTS (stacks_main))]);
    }
}

/* Takes the whole part of an accumulated fractional quota. */
static uint64_t
take_quota (double *carry, double amount)
{
  uint64_t whole;

  *carry += amount;
  whole = (uint64_t)*carry;
  *carry -= (double)whole;
  return whole;
}

static void
run_step (Gen *gen)
{
  const Options *opt = gen->opt;
  int copy_stream = opt->streams > 1 ? 1 : 0;
  /* Quota of OS runtime calls, from the size of the step before (about 430 rows). */
  double per_main = gen->last_step_rows / (100.0 - SHARE_OSRT - opt->sample_share);
  uint64_t main_before;
  uint64_t n_osrt = take_quota (&gen->osrt_carry, per_main * SHARE_OSRT);
  uint64_t n_samples;
  int64_t step_start, t;
  char text[32];

  gen->step++;
  /* Now and then the GPU starves: the main thread waits for the data loader (a queue get). */
  if (gen->step > 1 && rng_chance (&gen->rng, 0.12))
    {
      int64_t wait = rng_range (&gen->rng, 2 * MS, 15 * MS);

      if (!budget_reached (gen))
        add_osrt (gen, gen->main_tid, OSRT_POLL, gen->cpu_t + 1 * US, gen->cpu_t + wait, 1);
      gen->cpu_t += wait + rng_range (&gen->rng, 2 * US, 10 * US);
    }
  step_start = gen->cpu_t;
  run_loader (gen, n_osrt, step_start);
  if (opt->threads <= 1)
    step_start = gen->cpu_t;
  if (budget_reached (gen))
    return;

  main_before = total_events (gen);
  gen->cpu_t += rng_range (&gen->rng, 2 * US, 8 * US);
  t = gen->cpu_t;
  gen->cpu_t += rng_range (&gen->rng, 200, 600);
  /* several ranks: the straggler's batch comes late by a share of a step; it waits for it (the
   * others wait in the all-reduce at the end).  No random draw: every rank's rows stay alike. */
  int64_t late = opt->ranks > 0 && opt->straggler >= 0 && gen->step > 1
                     ? gen->base_step * opt->slowdown / 100 : 0;
  if (late > 0 && opt->rank == opt->straggler && opt->mpi == MPI_NONE)
    {
      add_osrt (gen, gen->main_tid, OSRT_POLL, gen->cpu_t, gen->cpu_t + late, 1);
      gen->cpu_t += late;
    }

  /* The batch goes to every GPU from pinned memory on the copy stream; compute waits for it. */
  for (int g = 0; g < opt->gpus && !budget_reached (gen); g++)
    {
      memcpy_async (gen, g, copy_stream, SL_MEMCPY_HTOD, SL_MEM_KIND_PINNED, SL_MEM_KIND_DEVICE,
                    rng_range (&gen->rng, 2 << 20, 24 << 20));
      if (copy_stream != 0)
        {
          cpu_gap (gen);
          event_record (gen, g, copy_stream);
          cpu_gap (gen);
          stream_wait (gen, g, 0, copy_stream);
        }
    }
  /* --memory-usage: this step's workspaces and cache block; --um-faults: the prefetches, and
   * where the forward kernels of each GPU start */
  bool allocated = false;
  int64_t forward_from[16];
  if (opt->memory_usage > 0 && !budget_reached (gen))
    {
      mem_step_begin (gen);
      allocated = true;
    }
  for (int g = 0; g < opt->gpus && opt->um_faults; g++)
    {
      if (!budget_reached (gen))
        {
          cpu_gap (gen);
          um_prefetch (gen, g);
        }
      forward_from[g] = *stream_clock (gen, g, 0);
    }
  if (!budget_reached (gen))
    run_phase (gen, 0, 24);
  for (int g = 0; g < opt->gpus && opt->um_faults; g++)
    um_gpu_faults (gen, g, forward_from[g], *stream_clock (gen, g, 0));
  if (!budget_reached (gen))
    run_phase (gen, 1, 28);
  if (!budget_reached (gen) && opt->graphs == GRAPHS_NONE)
    run_phase (gen, 2, 8);
  else if (!budget_reached (gen))
    run_graph_phase (gen);

  /* --mpi: the step's MPI calls while the GPU runs its kernels (the ranks wait for the
   * straggler there, and no longer in the all-reduce kernel below) */
  if (opt->mpi != MPI_NONE && !budget_reached (gen))
    {
      /* with MPI the straggler's slow host work comes while its GPU computes, just before the
       * exchange, as the others' wait for it does: every rank's step then lasts as long */
      if (late > 0 && opt->rank == opt->straggler)
        {
          add_osrt (gen, gen->main_tid, OSRT_POLL, gen->cpu_t, gen->cpu_t + late, 1);
          gen->cpu_t += late;
        }
      mpi_step (gen, late);
    }
  /* --openmp, --openacc: a region and a compute construct on the main thread */
  if (opt->openmp && !budget_reached (gen))
    omp_step (gen);
  if (opt->openacc && !budget_reached (gen))
    acc_step (gen);

  /* several ranks: the gradients' all-reduce, which ends when the last rank gets there */
  if (opt->ranks > 0 && !budget_reached (gen))
    {
      cpu_gap (gen);
      int64_t api_start = gen->cpu_t, api_dur = rng_range (&gen->rng, 3 * US, 8 * US);
      int64_t corr = add_runtime (gen, api_start, api_start + api_dur, API_LAUNCH_KERNEL);
      int64_t start = gpu_start (gen, 0, 0, api_start);
      int64_t transfer = rng_range (&gen->rng, 2 * MS, 4 * MS);
      add_kernel (gen, 0, 0, SL_GEN_ALLREDUCE, start,
                  start + transfer
                      + (opt->rank == opt->straggler || opt->mpi != MPI_NONE ? 0 : late),
                  corr);
      gen->cpu_t = api_start + api_dur;
    }

  /* loss.item(): a small copy to pageable memory and a stream synchronize. */
  cpu_gap (gen);
  memcpy_async (gen, 0, 0, SL_MEMCPY_DTOH, SL_MEM_KIND_DEVICE, SL_MEM_KIND_PAGEABLE, 4);
  cpu_gap (gen);
  host_sync (gen, 0, 0);
  for (int g = 0; g < opt->gpus && opt->um_faults; g++)
    um_cpu_faults (gen, g);
  if (allocated)
    mem_step_end (gen);
  if (gen->step % 10 == 0)
    for (int g = 0; g < opt->gpus; g++)
      {
        cpu_gap (gen);
        host_sync (gen, g, -1);
      }
  if (gen->step % 25 == 1)
    {
      char mark[64];

      snprintf (mark, sizeof mark, "lr=%.2e", 3e-4 * (1.0 - (double)gen->step / 1e6));
      add_nvtx (gen, SL_EVENT_TYPE_NVTX_MARK, gen->cpu_t, -1, gen->main_tid, mark, -1, 1, -1);
    }
  gen->cpu_t += rng_range (&gen->rng, 200, 600);
  if (!opt->no_sched && total_events (gen) + 2 < opt->n_events - opt->n_events / 8)
    {
      /* the main thread loses its core for a moment: a quantum ended */
      int64_t wait = rng_range (&gen->rng, 5 * US, 80 * US);
      add_switch (gen, gen->main_tid, gen->cpu_t, gen->sched_cpu[0], false, SCHED_STATE_RUNNING,
                  SCHED_BLOCK_PREEMPTED);
      gen->cpu_t += wait;
      add_switch (gen, gen->main_tid, gen->cpu_t, gen->sched_cpu[0], true, 0, 0);
    }
  snprintf (text, sizeof text, "step %" PRId64, gen->step);
  add_nvtx (gen, SL_EVENT_TYPE_NVTX_PUSH_POP_RANGE, t, gen->cpu_t, gen->main_tid, text, -1, 1,
            colours[gen->step % N_ELEMENTS (colours)]);

  gen->base_step = gen->cpu_t - t - late;
  gen->last_step_rows = (double)(total_events (gen) - main_before);
  n_samples =
      take_quota (&gen->sample_carry,
                  gen->last_step_rows / (100.0 - SHARE_OSRT - opt->sample_share) *
                      opt->sample_share);
  if (!budget_reached (gen))
    run_samples (gen, n_samples, step_start, gen->cpu_t);
}

/* --- set-up -------------------------------------------------------------------------------------
 */

static int64_t
frame_string (Gen *gen, const char *frame, bool module)
{
  const char *at = strchr (frame, '@');
  char buf[256];

  if (module)
    return string_add (gen, at + 1);
  snprintf (buf, sizeof buf, "%.*s", (int)(at - frame), frame);
  return string_add (gen, buf);
}

static void
intern_strings (Gen *gen)
{
  gen->next_string = 1;
  for (size_t i = 0; i < N_APIS; i++)
    gen->api_ids[i] = string_add (gen, api_names[i]);
  if (gen->opt->graphs != GRAPHS_NONE)
    {
      gen->graph_launch_id = string_add (gen, "cudaGraphLaunch_v10000");
      for (size_t i = 0; i < N_GRAPH_STRS; i++)
        gen->graph_str_ids[i] = string_add (gen, graph_strs[i]);
    }
  for (size_t i = 0; i < N_NVTX_NAMES; i++)
    gen->nvtx_ids[i] = string_add (gen, nvtx_names[i]);
  for (size_t i = 0; i < N_ELEMENTS (osrt_names); i++)
    gen->osrt_ids[i] = string_add (gen, osrt_names[i]);
  for (size_t i = 0; i < N_ELEMENTS (sl_gen_kernels); i++)
    {
      const SlGenKernel *k = &sl_gen_kernels[i];
      KernelIds *ids = &gen->kernel_ids[i];

      /* Equal strings share one id, as in a real export. */
      ids->demangled = ids->short_name = ids->mangled = -1;
      for (size_t j = 0; j < i; j++)
        {
          if (strcmp (sl_gen_kernels[j].short_name, k->short_name) == 0)
            ids->short_name = gen->kernel_ids[j].short_name;
        }
      ids->demangled = string_add (gen, k->demangled);
      if (ids->short_name < 0)
        ids->short_name = strcmp (k->short_name, k->demangled) == 0
                              ? ids->demangled
                              : string_add (gen, k->short_name);
      ids->mangled =
          strcmp (k->mangled, k->demangled) == 0 ? ids->demangled : string_add (gen, k->mangled);
    }
  /* Stack frames: symbols and modules; repeated ones are simply separate ids (few dozen strings).
   */
  for (size_t i = 0; i < N_ELEMENTS (stacks_main); i++)
    for (size_t d = 0; d < 5; d++)
      if (stacks_main[i][d] != NULL)
        {
          gen->stacks_main_ids[i][d].symbol = frame_string (gen, stacks_main[i][d], false);
          gen->stacks_main_ids[i][d].module = frame_string (gen, stacks_main[i][d], true);
        }
  for (size_t i = 0; i < N_ELEMENTS (stacks_worker); i++)
    for (size_t d = 0; d < 5; d++)
      if (stacks_worker[i][d] != NULL)
        {
          gen->stacks_worker_ids[i][d].symbol = frame_string (gen, stacks_worker[i][d], false);
          gen->stacks_worker_ids[i][d].module = frame_string (gen, stacks_worker[i][d], true);
        }
  {
    Frame pool[N_ELEMENTS (tail_frames)], roots[N_ELEMENTS (tail_roots)];

    for (size_t i = 0; i < N_ELEMENTS (tail_frames); i++)
      pool[i] = (Frame){ frame_string (gen, tail_frames[i], false),
                         frame_string (gen, tail_frames[i], true) };
    for (size_t i = 0; i < N_ELEMENTS (tail_roots); i++)
      roots[i] = (Frame){ frame_string (gen, tail_roots[i], false),
                          frame_string (gen, tail_roots[i], true) };
    /* a Python call is an eval frame under one or two call frames */
    for (int v = 0; v < TAIL_VARIANTS; v++)
      {
        int n = (int)rng_range (&gen->tail_rng, TAIL_MIN, TAIL_MAX), k = 0;

        while (k < n)
          {
            gen->tails[v][k++] = pool[1 + rng_below (&gen->tail_rng, N_ELEMENTS (tail_frames) - 1)];
            if (k < n && rng_chance (&gen->tail_rng, 0.3))
              gen->tails[v][k++] =
                  pool[1 + rng_below (&gen->tail_rng, N_ELEMENTS (tail_frames) - 1)];
            if (k < n)
              gen->tails[v][k++] = pool[0];
          }
        for (size_t r = 0; r < N_ELEMENTS (tail_roots); r++)
          gen->tails[v][k++] = roots[r];
        gen->tail_len[v] = k;
      }
  }

  /* the options' strings last: a trace without them keeps its string ids */
  if (gen->opt->um_faults)
    {
      gen->um_prefetch_id = string_add (gen, "cudaMemPrefetchAsync_v8000");
      for (size_t i = 0; i < N_ELEMENTS (um_cpu_sites); i++)
        {
          gen->um_site_ids[i][0] = string_add (gen, um_cpu_sites[i][0]);
          gen->um_site_ids[i][1] = string_add (gen, um_cpu_sites[i][1]);
          gen->um_site_ids[i][2] =
              um_cpu_sites[i][2] != NULL ? string_add (gen, um_cpu_sites[i][2]) : -1;
        }
    }
  if (gen->opt->memory_usage > 0)
    {
      gen->malloc_id = string_add (gen, "cudaMalloc_v3020");
      gen->free_id = string_add (gen, "cudaFree_v3020");
    }

  for (int phase = 0; phase < 3; phase++)
    {
      uint32_t sum = 0, n = 0;

      for (size_t i = 0; i < N_ELEMENTS (sl_gen_kernels); i++)
        if (sl_gen_kernels[i].phases & (1u << phase))
          {
            sum += sl_gen_kernels[i].weight;
            gen->phase_kernels[phase][n] = (uint32_t)i;
            gen->phase_weights[phase][n] = sum;
            n++;
          }
      gen->phase_n[phase] = n;
    }
}

static bool
exec_sql (Gen *gen, const char *sql)
{
  char *msg = NULL;

  if (sqlite3_exec (gen->db, sql, NULL, NULL, &msg) != SQLITE_OK)
    {
      gen_fail (gen, "%s", msg != NULL ? msg : sqlite3_errmsg (gen->db));
      sqlite3_free (msg);
      return false;
    }
  return true;
}

/* Process, threads, GPUs, contexts, streams and session rows. */
static void
write_target_info (Gen *gen)
{
  const Options *opt = gen->opt;
  sqlite3_stmt *stmt = NULL;
  int64_t vm = SL_GLOBAL_PID (1, 0);

  if (sqlite3_prepare_v2 (gen->db, "INSERT INTO PROCESSES VALUES (?, ?, 'python3')", -1, &stmt,
                          NULL) != SQLITE_OK)
    goto fail;
  bind_i64 (stmt, 1, gen->global_pid);
  bind_i64 (stmt, 2, gen->pid);
  sqlite3_step (stmt);
  sqlite3_finalize (stmt);

  if (sqlite3_prepare_v2 (gen->db, "INSERT INTO ThreadNames VALUES (?, 20, ?)", -1, &stmt, NULL) !=
      SQLITE_OK)
    goto fail;
  bind_i64 (stmt, 1, string_add (gen, "python3"));
  bind_i64 (stmt, 2, gen->main_tid);
  sqlite3_step (stmt);
  sqlite3_reset (stmt);
  for (int w = 0; w < opt->threads - 1; w++)
    {
      char name[32];

      snprintf (name, sizeof name, "pt_data_worker_%d", w);
      bind_i64 (stmt, 1, string_add (gen, name));
      bind_i64 (stmt, 2, gen->worker_tids[w]);
      sqlite3_step (stmt);
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);

  if (sqlite3_prepare_v2 (
          gen->db,
          "INSERT INTO TARGET_INFO_GPU VALUES (?, ?, 'NVIDIA H100 80GB HBM3', ?, 1, 52428800, "
          "85520809984, 3352320000000, 1980000000, 132, ?, ?, 0, 'GH100', ?, NULL, NULL, 161, 0, "
          "65536, 4, 65536, 49152, 232448, 233472, 65536, 32, 3, 64, 32, 1024, 1024, 1024, 64, "
          "2147483647, 65535, 65535, 9, 0, 9, 0)",
          -1, &stmt, NULL) != SQLITE_OK)
    goto fail;
  for (int g = 0; g < opt->gpus; g++)
    {
      char bus[32], uuid[64];
      uint64_t u1 = rng_next (&gen->rng), u2 = rng_next (&gen->rng);

      snprintf (bus, sizeof bus, "0000:%02x:00.0", 0x18 + 0x11 * g);
      snprintf (uuid, sizeof uuid,
                "%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64, u1 >> 32,
                (u1 >> 16) & 0xffff, u1 & 0xffff, u2 >> 48, u2 & UINT64_C (0xffffffffffff));
      bind_i64 (stmt, 1, vm);
      bind_i64 (stmt, 2, g);
      sqlite3_bind_text (stmt, 3, bus, -1, SQLITE_TRANSIENT);
      bind_i64 (stmt, 4, g);
      sqlite3_bind_text (stmt, 5, uuid, -1, SQLITE_TRANSIENT);
      bind_i64 (stmt, 6, g);
      sqlite3_step (stmt);
      sqlite3_reset (stmt);

      {
        sqlite3_stmt *dev = NULL;

        if (sqlite3_prepare_v2 (gen->db,
                                "INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (?, ?, ?, ?, 132)", -1,
                                &dev, NULL) == SQLITE_OK)
          {
            bind_i64 (dev, 1, g);
            bind_i64 (dev, 2, g);
            bind_i64 (dev, 3, gen->pid);
            sqlite3_bind_text (dev, 4, uuid, -1, SQLITE_TRANSIENT);
            sqlite3_step (dev);
          }
        sqlite3_finalize (dev);
      }
    }
  sqlite3_finalize (stmt);

  if (sqlite3_prepare_v2 (
          gen->db, "INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES (?, 0, 1, ?, ?, ?, 0, 0, 0)",
          -1, &stmt, NULL) != SQLITE_OK)
    goto fail;
  for (int g = 0; g < opt->gpus; g++)
    {
      bind_i64 (stmt, 1, stream_id (gen, g, 0));
      bind_i64 (stmt, 2, gen->pid);
      bind_i64 (stmt, 3, g);
      bind_i64 (stmt, 4, g + 1);
      sqlite3_step (stmt);
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);

  if (sqlite3_prepare_v2 (gen->db,
                          "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (?, 0, 1, ?, ?, ?, ?)", -1,
                          &stmt, NULL) != SQLITE_OK)
    goto fail;
  for (int g = 0; g < opt->gpus; g++)
    for (int s = 0; s < opt->streams; s++)
      {
        bind_i64 (stmt, 1, stream_id (gen, g, s));
        bind_i64 (stmt, 2, gen->pid);
        bind_i64 (stmt, 3, g + 1);
        /* Priorities are stored unsigned: the copy stream has high priority (-1). */
        bind_i64 (stmt, 4, s == 1 ? INT64_C (4294967295) : 0);
        bind_i64 (stmt, 5, s == 0 ? SL_STREAM_TYPE_NULL : SL_STREAM_TYPE_NON_BLOCKING);
        sqlite3_step (stmt);
        sqlite3_reset (stmt);
      }
  sqlite3_finalize (stmt);

  if (sqlite3_prepare_v2 (
          gen->db,
          "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '2026-01-01T00:00:00', "
          "'2026-01-01T00:00:00', ?)",
          -1, &stmt, NULL) != SQLITE_OK)
    goto fail;
  bind_i64 (stmt, 1, SESSION_EPOCH_NS);
  bind_i64 (stmt, 2, SESSION_START_NS);
  sqlite3_step (stmt);
  sqlite3_finalize (stmt);

  {
    static const char *capture[][2] = {
      { "CAPTURE_EVENT_TYPE", "Cuda" },      { "CAPTURE_EVENT_TYPE", "NvtxEvents" },
      { "CAPTURE_EVENT_TYPE", "OSRuntime" }, { "CAPTURE_EVENT_TYPE", "CpuSampling" },
      { "PROCESS_0:COMMAND", "python3" },    { "PROCESS_0:ARGUMENT_0", "train.py" },
    };
    char *msg = NULL;

    for (size_t i = 0; i < N_ELEMENTS (capture); i++)
      if (!sl_schema_add_meta (gen->db, "META_DATA_CAPTURE", capture[i][0], capture[i][1], &msg))
        {
          gen_fail (gen, "%s", msg);
          sqlite3_free (msg);
          return;
        }
    /* --cuda-graph-trace, as nsys 2024+ records it */
    if (opt->graphs != GRAPHS_NONE
        && !sl_schema_add_meta (gen->db, "META_DATA_CAPTURE",
                                "PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE",
                                opt->graphs == GRAPHS_GRAPH ? "Graph" : "Node", &msg))
      {
        gen_fail (gen, "%s", msg);
        sqlite3_free (msg);
        return;
      }
    /* one rank of several: its environment says which, as nsys records it */
    if (opt->ranks > 0)
      {
        char rank[64], size[64];
        snprintf (rank, sizeof rank, "RANK=\"%d\"", opt->rank);
        snprintf (size, sizeof size, "WORLD_SIZE=\"%d\"", opt->ranks);
        if (!sl_schema_add_meta (gen->db, "META_DATA_CAPTURE", "PROCESS_0:ENVIRONMENT_VARIABLE",
                                 rank, &msg)
            || !sl_schema_add_meta (gen->db, "META_DATA_CAPTURE", "PROCESS_0:ENVIRONMENT_VARIABLE",
                                    size, &msg))
          {
            gen_fail (gen, "%s", msg);
            sqlite3_free (msg);
            return;
          }
      }
  }
  return;

fail:
  gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
}

/* x >= 0 rounded half up */
static int64_t
round_pos (double x)
{
  return (int64_t)(x + 0.5);
}

/* --gpu-metrics: each GPU's metric names, then a sample of every metric each period from the
 * trace's start to @stop, from what ran in the period before it. */
static void
write_gpu_metrics (Gen *gen, int64_t stop)
{
  sqlite3_stmt *info = NULL;
  sqlite3_stmt *stmt = gen->stmt[STMT_GPU_METRIC];
  int64_t p = metrics_period (gen), n = (stop - SESSION_START_NS) / p;

  if (sqlite3_prepare_v2 (gen->db, "INSERT INTO TARGET_INFO_GPU_METRICS VALUES (?, ?, ?, ?, ?)",
                          -1, &info, NULL) != SQLITE_OK)
    {
      gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
      return;
    }
  for (int g = 0; g < gen->opt->gpus && gen->error == NULL; g++)
    {
      int64_t type_id = ((int64_t)1 << 48) | ((int64_t)METRICS_SOURCE << 32) |
                        ((int64_t)METRICS_TAG << 8) | g;
      MetricBins *b = &gen->bins[g];
      char type_name[64];

      snprintf (type_name, sizeof type_name, "GPU %d: GH100", g);
      for (int m = 0; m < N_METRICS; m++)
        {
          bind_i64 (info, 1, type_id);
          bind_i64 (info, 2, METRICS_SOURCE);
          sqlite3_bind_text (info, 3, type_name, -1, SQLITE_TRANSIENT);
          bind_i64 (info, 4, m);
          sqlite3_bind_text (info, 5, metric_names[m], -1, SQLITE_STATIC);
          if (sqlite3_step (info) != SQLITE_DONE)
            gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
          sqlite3_reset (info);
        }
      if (!bins_reserve (gen, b, n))
        break;
      for (int64_t i = 0; i < n && gen->error == NULL; i++)
        {
          double busy = b->v[BIN_KERNEL][i] / (double)p, tensor = b->v[BIN_TENSOR][i] / (double)p;
          double nccl = b->v[BIN_NCCL][i] / (double)p;
          /* bytes per ns are GB/s; PCIe 5 x16 carries about 64 GB/s each way */
          double rx = b->v[BIN_H2D][i] / (double)p / 64.0, tx = b->v[BIN_D2H][i] / (double)p / 64.0;
          double noise = rng_double (&gen->ext_rng);
          int64_t v[N_METRICS], t = SESSION_START_NS + (i + 1) * p;

          busy = busy > 1.0 ? 1.0 : busy;
          tensor = tensor > 1.0 ? 1.0 : tensor;
          nccl = nccl > 1.0 ? 1.0 : nccl;
          v[MET_GPC_CLOCK] = busy > 0 ? 1980 : 1755;
          v[MET_SYS_CLOCK] = 1755;
          v[MET_GR_ACTIVE] = round_pos (100.0 * busy);
          v[MET_SYNC_COMPUTE] = round_pos (100.0 * busy * (1.0 - 0.5 * nccl));
          v[MET_ASYNC_COMPUTE] = round_pos (50.0 * nccl);
          v[MET_SMS_ACTIVE] = round_pos (busy * (86.0 + 10.0 * noise));
          v[MET_SM_ISSUE] = round_pos (busy * (28.0 + 14.0 * noise) + tensor * 10.0);
          v[MET_TENSOR_ACTIVE] = round_pos (tensor * (52.0 + 12.0 * noise));
          v[MET_WARPS_IN_FLIGHT] = round_pos (busy * (38.0 + 12.0 * noise));
          v[MET_UNALLOCATED_WARPS] = round_pos (busy * (18.0 + 10.0 * noise));
          v[MET_DRAM_READ] = round_pos (busy * (22.0 + 20.0 * noise) + 30.0 * nccl);
          v[MET_DRAM_WRITE] = round_pos (busy * (10.0 + 12.0 * noise) + 25.0 * nccl);
          v[MET_PCIE_RX] = round_pos (100.0 * (rx > 1.0 ? 1.0 : rx));
          v[MET_PCIE_TX] = round_pos (100.0 * (tx > 1.0 ? 1.0 : tx));
          v[MET_PCIE_BAR1_READS] = rx > 0 ? 1 + (int64_t)(noise * 4) : 0;
          v[MET_PCIE_BAR1_WRITES] = busy > 0 ? (int64_t)(noise * 3) : 0;
          v[MET_NVLINK_RX] = round_pos (nccl * (55.0 + 20.0 * noise));
          v[MET_NVLINK_TX] = round_pos (nccl * (55.0 + 20.0 * noise));
          for (int m = 0; m < N_METRICS; m++)
            {
              /* the GPU's own clock, on the session's wall clock give or take a little */
              bind_i64 (stmt, 1, SESSION_EPOCH_NS - SESSION_START_NS + t + 137 * g);
              bind_i64 (stmt, 2, t);
              bind_i64 (stmt, 3, type_id);
              bind_i64 (stmt, 4, m);
              bind_i64 (stmt, 5, v[m]);
              step_stmt (gen, STMT_GPU_METRIC);
            }
          gen->n.metrics += N_METRICS;
        }
    }
  sqlite3_finalize (info);
}

static void
write_analysis_details (Gen *gen)
{
  sqlite3_stmt *stmt = NULL;
  int64_t stop = gen->max_t + 1 * MS;

  if (sqlite3_prepare_v2 (gen->db, "INSERT INTO ANALYSIS_DETAILS VALUES (?, ?, ?, ?)", -1, &stmt,
                          NULL) != SQLITE_OK)
    {
      gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
      return;
    }
  bind_i64 (stmt, 1, SL_GLOBAL_PID (1, 0));
  bind_i64 (stmt, 2, stop - SESSION_START_NS);
  bind_i64 (stmt, 3, SESSION_START_NS);
  bind_i64 (stmt, 4, stop);
  if (sqlite3_step (stmt) != SQLITE_DONE)
    gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
  sqlite3_finalize (stmt);
}

static bool
generate (Gen *gen)
{
  const Options *opt = gen->opt;
  char *msg = NULL;

  rng_seed (&gen->rng, opt->seed);
  rng_seed (&gen->tail_rng, opt->seed ^ UINT64_C (0x5eed7a11));
  rng_seed (&gen->ext_rng, opt->seed ^ UINT64_C (0xe47e4a11));
  /* A plausible pid, fixed by the seed; the data-loader threads follow it. */
  gen->pid = 20000 + (int64_t)(opt->seed % 40000) + opt->rank;
  gen->global_pid = SL_GLOBAL_PID (1, gen->pid);
  gen->main_tid = SL_GLOBAL_TID (1, gen->pid, gen->pid);
  gen->worker_tids = calloc ((size_t)opt->threads, sizeof (int64_t));
  gen->worker_t = calloc ((size_t)opt->threads, sizeof (int64_t));
  gen->sched_cpu = calloc ((size_t)opt->threads, sizeof (int));
  gen->stream_free = calloc ((size_t)opt->gpus * (size_t)opt->streams, sizeof (int64_t));
  gen->grid_ids = calloc ((size_t)opt->gpus, sizeof (int64_t));
  gen->um_t = calloc ((size_t)opt->gpus, sizeof (int64_t));
  gen->mem_next = calloc ((size_t)opt->gpus, sizeof (int64_t));
  gen->mem_workspace =
      calloc ((size_t)opt->gpus * (size_t)(opt->memory_usage + 1), sizeof (int64_t));
  if (opt->metrics_hz > 0)
    gen->bins = calloc ((size_t)opt->gpus, sizeof (MetricBins));
  if (gen->worker_tids == NULL || gen->worker_t == NULL || gen->sched_cpu == NULL ||
      gen->stream_free == NULL || gen->grid_ids == NULL || gen->um_t == NULL ||
      gen->mem_next == NULL || gen->mem_workspace == NULL ||
      (opt->metrics_hz > 0 && gen->bins == NULL))
    {
      gen_fail (gen, "out of memory");
      return false;
    }
  for (int w = 0; w < opt->threads - 1; w++)
    gen->worker_tids[w] = SL_GLOBAL_TID (1, gen->pid, gen->pid + 9 + w);
  for (int i = 0; i < opt->threads; i++)
    gen->sched_cpu[i] = (i * 5 + 2) % SCHED_CPUS;
  /* tensor-core kernels (GEMMs, attention) drive Tensor Active */
  for (size_t k = 0; k < N_ELEMENTS (sl_gen_kernels); k++)
    gen->tensor_kernel[k] = strstr (sl_gen_kernels[k].demangled, "gemm") != NULL ||
                            strstr (sl_gen_kernels[k].demangled, "fmha") != NULL ||
                            strstr (sl_gen_kernels[k].demangled, "flash") != NULL;
  /* each managed buffer's hot chunks: distinct, among its first 16 */
  for (int b = 0; b < UM_BUFFERS; b++)
    for (int h = 0; h < UM_HOT; h++)
      gen->um_hot[b][h] = (b * 5 + h * 3 + (int)(opt->seed % 4)) % 16;

  if (!exec_sql (gen, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536; "
                      "PRAGMA temp_store=MEMORY; PRAGMA locking_mode=EXCLUSIVE; BEGIN"))
    return false;
  if (!sl_schema_create (gen->db, &msg))
    {
      gen_fail (gen, "%s", msg);
      sqlite3_free (msg);
      return false;
    }
  if (opt->graphs == GRAPHS_GRAPH && !exec_sql (gen, SL_SCHEMA_GRAPH_TRACE_SQL))
    return false;
  if (opt->cuda_events && !exec_sql (gen, SL_SCHEMA_CUDA_EVENT_SQL))
    return false;
  if (opt->graphs != GRAPHS_NONE && !exec_sql (gen, GRAPH_EVENTS_SQL))
    return false;
  if (opt->um_faults && !exec_sql (gen, UM_FAULTS_SQL))
    return false;
  if (opt->memory_usage > 0 && !exec_sql (gen, MEM_USAGE_SQL))
    return false;
  if (opt->metrics_hz > 0 && !exec_sql (gen, METRICS_SQL))
    return false;
  for (int i = 0; i < N_STMTS; i++)
    if ((i != STMT_GRAPH || opt->graphs == GRAPHS_GRAPH)
        && (i != STMT_CUDA_EVENT || opt->cuda_events)
        && ((i != STMT_GRAPH_MADE && i != STMT_GRAPH_NODE_MADE) || opt->graphs != GRAPHS_NONE)
        && ((i != STMT_UM_MIGRATION && i != STMT_UM_CPU_FAULT && i != STMT_UM_GPU_FAULT)
            || opt->um_faults)
        && (i != STMT_MEM_USAGE || opt->memory_usage > 0)
        && (i != STMT_GPU_METRIC || opt->metrics_hz > 0)
        && sqlite3_prepare_v3 (gen->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &gen->stmt[i],
                               NULL) != SQLITE_OK)
      {
        gen_fail (gen, "%s", sqlite3_errmsg (gen->db));
        return false;
      }

  intern_strings (gen);
  write_target_info (gen);

  gen->last_step_rows = 430.0;
  gen->cpu_t = SESSION_START_NS + 100 * MS;
  add_nvtx (gen, SL_EVENT_TYPE_NVTX_DOMAIN_CREATE, gen->cpu_t, -1, gen->main_tid, "train", -1, 1,
            -1);
  gen->cpu_t += 5 * MS;
  if (opt->mpi != MPI_NONE)
    {
      if (!mpi_begin (gen))
        return false;
      mpi_init (gen);
    }
  if ((opt->openmp || opt->openacc) && !omp_begin (gen))
    return false;
  if (opt->memory_usage > 0)
    mem_startup (gen);
  while (!budget_reached (gen))
    run_step (gen);
  if (opt->mpi != MPI_NONE && gen->error == NULL)
    mpi_finalize (gen);
  omp_end (gen);

  if (opt->metrics_hz > 0 && gen->error == NULL)
    write_gpu_metrics (gen, gen->max_t + 1 * MS);
  write_analysis_details (gen);
  for (int i = 0; i < N_STMTS; i++)
    {
      sqlite3_finalize (gen->stmt[i]);
      gen->stmt[i] = NULL;
    }
  for (int i = 0; i < 4; i++)
    {
      sqlite3_finalize (gen->mpi_stmt[i]);
      gen->mpi_stmt[i] = NULL;
    }
  if (gen->error != NULL)
    return false;
  /* Leave an ordinary rollback-journal database behind. */
  return exec_sql (
      gen,
      "COMMIT; PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL; PRAGMA locking_mode=NORMAL");
}

/* --- command line -------------------------------------------------------------------------------
 */

static void
usage (FILE *out)
{
  fprintf (out,
           "Usage: sightline-gen -o FILE -n EVENTS [--seed S] [--gpus G] [--streams K] [--threads "
           "T] [--sample-share P] [--no-sched] [--format nsys|kineto] [--ranks N [--straggler R]\n"
           "       [--slowdown P]] [--graphs graph|node] [--cuda-events] [--um-faults]\n"
           "       [--memory-usage[=N]] [--gpu-metrics[=HZ]] [--mpi[=nvtx]]\n"
           "       [--openmp] [--openacc] [--force]\n"
           "Write a synthetic Nsight Systems SQLite trace (schema " SL_SCHEMA_VERSION
           ") of about EVENTS events,\n"
           "shaped like a PyTorch training loop; the same arguments give the same rows.\n"
           "With --format kineto the same trace is written as PyTorch profiler (Kineto) JSON,\n"
           "gzipped when FILE ends in .gz (CPU samples and scheduling rows have no place there).\n"
           "\n"
           "  -o, --output FILE   trace to write\n"
           "  -n, --events N      event budget (suffixes k, M: 10M); counts API calls, kernels, "
           "copies,\n"
           "                      sets, syncs, NVTX, OS runtime calls, CPU samples and "
           "scheduling rows\n"
           "  -s, --seed S        random seed (default 1)\n"
           "  -g, --gpus G        GPUs (default 1, at most 16)\n"
           "  -k, --streams K     CUDA streams per GPU (default 2, at most 64)\n"
           "  -t, --threads T     CPU threads: main + T-1 data loaders (default 3, at most 256)\n"
           "  -S, --sample-share P  percent of the events that are CPU samples (default 1, at\n"
           "                      most 50; stacks are ~40 frames deep)\n"
           "  -N, --no-sched      no scheduling data (SCHED_EVENTS left empty)\n"
           "  -F, --format F      nsys (default) or kineto\n"
           "  -R, --ranks N       N files, the ranks of one synchronous job: each step ends in an\n"
           "                      NCCL all-reduce; FILE's \"%%r\" is the rank (else -rankN is added)\n"
           "  -T, --straggler R   rank R's data loading is slower: it waits a share of each step\n"
           "                      for its batch, the others wait for it in the all-reduce\n"
           "  -D, --slowdown P    that share, in percent of a step (default 30)\n"
           "  -G, --graphs MODE   the optimizer step is one CUDA graph a GPU (cudaGraphLaunch of\n"
           "                      %d kernels), traced as nsys --cuda-graph-trace=MODE does: graph\n"
           "                      (one CUPTI_ACTIVITY_KIND_GRAPH_TRACE row a launch) or node (the\n"
           "                      kernels, with graphId and graphNodeId)\n"
           "  -E, --cuda-events   a CUPTI_ACTIVITY_KIND_CUDA_EVENT row for each cudaEventRecord (%d\n"
           "                      event objects, recorded again each step), its stream wait tied\n"
           "                      to it by eventSyncId (rows not counted in EVENTS)\n"
           "  -U, --um-faults     unified memory: each step a cudaMemPrefetchAsync a GPU, GPU page\n"
           "                      faults during the forward kernels and CPU page faults when the\n"
           "                      host reads results, clustered on %d hot chunks of each of %d\n"
           "                      managed buffers, each served by a migration (MEMCPY rows of\n"
           "                      copyKind 11/12 with migrationCause and virtualAddress);\n"
           "                      CUDA_UM_CPU_PAGE_FAULT_EVENTS, CUDA_UM_GPU_PAGE_FAULT_EVENTS\n"
           "  -M, --memory-usage[=N]  CUDA_GPU_MEMORY_USAGE_EVENTS (nsys --cuda-memory-usage):\n"
           "                      cudaMalloc/cudaFree of N workspaces a step and GPU (default 1,\n"
           "                      at most %d), a cache block that grows each step and is never\n"
           "                      freed, the weights and a static allocation at start-up\n"
           "  -P, --gpu-metrics[=HZ]  GPU_METRICS sampled HZ times a second on each GPU (default\n"
           "                      %d), H100 metric names in TARGET_INFO_GPU_METRICS; values follow\n"
           "                      the kernels and copies (these options' rows, not their API\n"
           "                      calls, are outside EVENTS)\n"
           "  -I, --mpi[=nvtx]    MPI calls each step on the main thread (nsys -t mpi's tables\n"
           "                      MPI_P2P_EVENTS, MPI_COLLECTIVES_EVENTS, MPI_START_WAIT_EVENTS,\n"
           "                      MPI_OTHER_EVENTS, MPI_RANKS, MPI_COMMUNICATORS): a ring halo\n"
           "                      exchange (Isend/Irecv/Waitall), an Allreduce, a Bcast and a\n"
           "                      Barrier now and then; with --ranks the straggler's neighbours\n"
           "                      wait for it in Waitall, the others in Allreduce.  =nvtx: the\n"
           "                      calls as NVTX ranges of a domain \"MPI\" instead (rows not\n"
           "                      counted in EVENTS)\n"
           "      --openmp        an OpenMP parallel region each step before the forward pass\n"
           "                      (OPENMP_EVENT_KIND_PARALLEL, _TASK, _WORKSHARE, _SYNC_REGION,\n"
           "                      _SYNC_REGION_WAIT, _MUTEX_WAIT, _CRITICAL_SECTION, _THREAD):\n"
           "                      two regions by turns, teams of 4 and 2 threads\n"
           "      --openacc       an OpenACC compute construct each step\n"
           "                      (CUPTI_ACTIVITY_KIND_OPENACC_DATA, _LAUNCH, _OTHER): enter\n"
           "                      data, launch, exit data, an update every 10 steps (these two\n"
           "                      options' rows are outside EVENTS)\n"
           "  -f, --force         overwrite FILE if it exists\n"
           "  -h, --help          show this help\n",
           GRAPH_NODES, CUDA_EVENT_OBJECTS, UM_HOT, UM_BUFFERS, MEM_CHURN_MAX,
           METRICS_HZ_DEFAULT);
}

static bool
parse_count (const char *s, uint64_t *out)
{
  char *end = NULL;
  unsigned long long v;

  errno = 0;
  v = strtoull (s, &end, 10);
  if (errno != 0 || end == s || s[0] == '-')
    return false;
  if (*end == 'k' || *end == 'K')
    v *= 1000, end++;
  else if (*end == 'm' || *end == 'M')
    v *= 1000000, end++;
  if (*end != '\0')
    return false;
  *out = v;
  return true;
}

static bool
parse_int (const char *s, int lo, int hi, int *out)
{
  uint64_t v;

  if (!parse_count (s, &v) || v < (uint64_t)lo || v > (uint64_t)hi)
    return false;
  *out = (int)v;
  return true;
}

/* One trace file: written beside its name and renamed at the end (a Kineto one through the
 * model); prints what it holds. */
static int
write_trace (const Options *opt)
{
  Gen gen = { 0 };
  char *tmp = NULL;
  struct timespec t0, t1;
  int fd, rc = 1;
  size_t len;

  if (!opt->force && access (opt->output, F_OK) == 0)
    {
      fprintf (stderr, "sightline-gen: '%s' already exists; pass --force to overwrite it\n",
               opt->output);
      return 1;
    }

  /* Write beside the target and rename at the end, so FILE is either the old file or a whole trace.
   */
  len = strlen (opt->output) + 32;
  tmp = malloc (len);
  if (tmp == NULL)
    return 1;
  snprintf (tmp, len, "%s.tmp-sightline-gen", opt->output);
  unlink (tmp);
  fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0)
    {
      fprintf (stderr, "sightline-gen: cannot write '%s': %s\n", opt->output, strerror (errno));
      free (tmp);
      return 1;
    }
  close (fd);

  clock_gettime (CLOCK_MONOTONIC, &t0);
  gen.opt = opt;
  if (sqlite3_open_v2 (tmp, &gen.db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
    gen_fail (&gen, "%s", gen.db != NULL ? sqlite3_errmsg (gen.db) : "cannot open");
  else
    generate (&gen);
  if (gen.db != NULL && sqlite3_close (gen.db) != SQLITE_OK && gen.error == NULL)
    gen_fail (&gen, "closing the database failed");
  if (gen.error == NULL && opt->kineto)
    {
      /* the model writes the JSON itself, replacing FILE only when whole */
      char *why = NULL;
      if (!sl_gen_to_kineto (tmp, opt->output, &why))
        gen_fail (&gen, "%s", why);
      free (why);
      unlink (tmp);
    }
  else if (gen.error == NULL && rename (tmp, opt->output) != 0)
    gen_fail (&gen, "%s", strerror (errno));
  clock_gettime (CLOCK_MONOTONIC, &t1);

  if (gen.error != NULL)
    {
      fprintf (stderr, "sightline-gen: cannot write '%s': %s\n", opt->output, gen.error);
      unlink (tmp);
    }
  else
    {
      const Counts *n = &gen.n;

      printf ("wrote %s (seed %" PRIu64 ", %d GPU, %d streams/GPU, %d threads) in %.2f s\n",
              opt->output, opt->seed, opt->gpus, opt->streams, opt->threads,
              (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
      printf ("runtime %" PRIu64 "\n", n->runtime);
      printf ("driver %" PRIu64 "\n", n->driver);
      printf ("kernel %" PRIu64 "\n", n->kernel);
      printf ("memcpy %" PRIu64 "\n", n->memcpy);
      printf ("memset %" PRIu64 "\n", n->memset);
      printf ("sync %" PRIu64 "\n", n->sync);
      printf ("nvtx %" PRIu64 "\n", n->nvtx);
      printf ("osrt %" PRIu64 "\n", n->osrt);
      printf ("samples %" PRIu64 "\n", n->samples);
      printf ("frames %" PRIu64 "\n", n->frames);
      printf ("sched %" PRIu64 "\n", n->sched);
      if (opt->graphs != GRAPHS_NONE)
        {
          printf ("graph_launches %" PRIu64 "\n", n->graphs);
          printf ("graph_kernels %" PRIu64 "\n", n->graph_kernels);
          printf ("graph_made %" PRIu64 "\n", n->graph_made);
          printf ("graph_node_made %" PRIu64 "\n", n->node_made);
        }
      if (opt->cuda_events)
        printf ("cuda_events %" PRIu64 "\n", n->cuda_events);
      if (opt->um_faults)
        {
          printf ("um_migrations %" PRIu64 "\n", n->um_migrations);
          printf ("um_cpu_faults %" PRIu64 "\n", n->um_cpu_faults);
          printf ("um_gpu_faults %" PRIu64 "\n", n->um_gpu_faults);
        }
      if (opt->memory_usage > 0)
        printf ("memory_events %" PRIu64 "\n", n->mem_events);
      if (opt->metrics_hz > 0)
        printf ("gpu_metrics %" PRIu64 "\n", n->metrics);
      if (opt->mpi != MPI_NONE)
        printf ("mpi %" PRIu64 "\n", n->mpi);
      if (opt->openmp)
        printf ("openmp %" PRIu64 "\n", n->openmp);
      if (opt->openacc)
        printf ("openacc %" PRIu64 "\n", n->openacc);
      printf ("steps %" PRId64 "\n", gen.step);
      printf ("total %" PRIu64 "\n", total_events (&gen));
      rc = 0;
    }
  free (gen.error);
  free (gen.worker_tids);
  free (gen.worker_t);
  free (gen.sched_cpu);
  free (gen.stream_free);
  free (gen.grid_ids);
  free (gen.um_t);
  free (gen.mem_next);
  free (gen.mem_workspace);
  if (gen.bins != NULL)
    for (int g = 0; g < opt->gpus; g++)
      for (int f = 0; f < N_BINS; f++)
        free (gen.bins[g].v[f]);
  free (gen.bins);
  free (tmp);
  return rc;
}

int
main (int argc, char *argv[])
{
  static const struct option longopts[] = {
    { "output", required_argument, NULL, 'o' },
    { "events", required_argument, NULL, 'n' },
    { "seed", required_argument, NULL, 's' },
    { "gpus", required_argument, NULL, 'g' },
    { "streams", required_argument, NULL, 'k' },
    { "threads", required_argument, NULL, 't' },
    { "sample-share", required_argument, NULL, 'S' },
    { "force", no_argument, NULL, 'f' },
    { "no-sched", no_argument, NULL, 'N' },
    { "format", required_argument, NULL, 'F' },
    { "ranks", required_argument, NULL, 'R' },
    { "straggler", required_argument, NULL, 'T' },
    { "slowdown", required_argument, NULL, 'D' },
    { "graphs", required_argument, NULL, 'G' },
    { "cuda-events", no_argument, NULL, 'E' },
    { "um-faults", no_argument, NULL, 'U' },
    { "memory-usage", optional_argument, NULL, 'M' },
    { "gpu-metrics", optional_argument, NULL, 'P' },
    { "mpi", optional_argument, NULL, 'I' },
    { "openmp", no_argument, NULL, 0x100 },
    { "openacc", no_argument, NULL, 0x101 },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  Options opt = { .seed = 1, .gpus = 1, .streams = 2, .threads = 3, .sample_share = SHARE_SAMPLES,
                  .straggler = -1, .slowdown = 30 };
  bool have_n = false;
  int c;

  while ((c = getopt_long (argc, argv, "o:n:s:g:k:t:S:fNEUM::P::I::F:R:T:D:G:h", longopts, NULL)) != -1)
    {
      bool ok = true;

      switch (c)
        {
        case 'o': opt.output = optarg; break;
        case 'n':
          ok = parse_count (optarg, &opt.n_events) && opt.n_events > 0;
          have_n = true;
          break;
        case 's': ok = parse_count (optarg, &opt.seed); break;
        case 'g': ok = parse_int (optarg, 1, 16, &opt.gpus); break;
        case 'k': ok = parse_int (optarg, 1, 64, &opt.streams); break;
        case 't': ok = parse_int (optarg, 1, 256, &opt.threads); break;
        case 'S':
          {
            int percent = 0;
            ok = parse_int (optarg, 1, 50, &percent);
            opt.sample_share = percent;
            break;
          }
        case 'f': opt.force = true; break;
        case 0x100: opt.openmp = true; break;
        case 0x101: opt.openacc = true; break;
        case 'N': opt.no_sched = true; break;
        case 'E': opt.cuda_events = true; break;
        case 'U': opt.um_faults = true; break;
        case 'M':
          opt.memory_usage = 1;
          ok = optarg == NULL || parse_int (optarg, 1, MEM_CHURN_MAX, &opt.memory_usage);
          break;
        case 'P':
          opt.metrics_hz = METRICS_HZ_DEFAULT;
          ok = optarg == NULL || parse_int (optarg, 1, 200000, &opt.metrics_hz);
          break;
        case 'I':
          opt.mpi = optarg != NULL && strcmp (optarg, "nvtx") == 0 ? MPI_NVTX : MPI_TABLES;
          ok = optarg == NULL || strcmp (optarg, "nvtx") == 0 || strcmp (optarg, "tables") == 0;
          break;
        case 'F':
          ok = strcmp (optarg, "nsys") == 0 || strcmp (optarg, "kineto") == 0;
          opt.kineto = strcmp (optarg, "kineto") == 0;
          break;
        case 'R': ok = parse_int (optarg, 1, 1024, &opt.ranks); break;
        case 'T': ok = parse_int (optarg, 0, 1023, &opt.straggler); break;
        case 'D': ok = parse_int (optarg, 1, 1000, &opt.slowdown); break;
        case 'G':
          ok = strcmp (optarg, "graph") == 0 || strcmp (optarg, "node") == 0;
          opt.graphs = strcmp (optarg, "graph") == 0 ? GRAPHS_GRAPH : GRAPHS_NODE;
          break;
        case 'h': usage (stdout); return 0;
        default: usage (stderr); return 2;
        }
      if (!ok)
        {
          fprintf (stderr, "sightline-gen: invalid value '%s' for -%c\n", optarg, c);
          usage (stderr);
          return 2;
        }
    }
  if (opt.straggler >= 0 && opt.straggler >= opt.ranks)
    {
      fprintf (stderr, "sightline-gen: --straggler %d needs --ranks above it\n", opt.straggler);
      return 2;
    }
  if (opt.cuda_events && opt.kineto)
    {
      fprintf (stderr, "sightline-gen: --cuda-events writes nsys SQLite only, not --format "
                       "kineto\n");
      return 2;
    }
  if ((opt.um_faults || opt.memory_usage > 0 || opt.metrics_hz > 0) && opt.kineto)
    {
      fprintf (stderr, "sightline-gen: --um-faults, --memory-usage and --gpu-metrics write nsys "
                       "SQLite only, not --format kineto\n");
      return 2;
    }
  if (opt.mpi != MPI_NONE && opt.kineto)
    {
      fprintf (stderr, "sightline-gen: --mpi writes nsys SQLite only, not --format kineto\n");
      return 2;
    }
  if ((opt.openmp || opt.openacc) && opt.kineto)
    {
      fprintf (stderr, "sightline-gen: --openmp and --openacc write nsys SQLite only, not "
                       "--format kineto\n");
      return 2;
    }
  if (opt.graphs != GRAPHS_NONE && opt.kineto)
    {
      fprintf (stderr, "sightline-gen: --graphs writes nsys SQLite only, not --format kineto\n");
      return 2;
    }
  if (opt.output == NULL || !have_n || optind != argc)
    {
      fprintf (stderr, "sightline-gen: %s\n",
               optind != argc       ? "unexpected argument"
               : opt.output == NULL ? "missing -o FILE"
                                    : "missing -n EVENTS");
      usage (stderr);
      return 2;
    }

  if (opt.ranks == 0)
    return write_trace (&opt);
  /* one file per rank: "%r" in the name is the rank, else "-rankN" goes before the extension */
  for (int r = 0; r < opt.ranks; r++)
    {
      Options one = opt;
      char name[4096];
      const char *at = strstr (opt.output, "%r");
      const char *dot = strrchr (opt.output, '.');
      if (dot != NULL && strchr (dot, '/') != NULL)
        dot = NULL;
      if (at != NULL)
        snprintf (name, sizeof name, "%.*s%d%s", (int) (at - opt.output), opt.output, r, at + 2);
      else if (dot != NULL)
        snprintf (name, sizeof name, "%.*s-rank%d%s", (int) (dot - opt.output), opt.output, r,
                  dot);
      else
        snprintf (name, sizeof name, "%s-rank%d", opt.output, r);
      one.output = name;
      one.rank = r;
      int rc = write_trace (&one);
      if (rc != 0)
        return rc;
    }
  return 0;
}
