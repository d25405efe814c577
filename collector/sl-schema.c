/* sl-schema.c: CREATE TABLE text, ENUM rows and export metadata of the nsys 3.25.0 schema. */
#include "sl-schema.h"

#include <stdio.h>
#include <string.h>

#define SL_N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))

/* Table and column names, declared types, NOT NULL and key constraints are those of a real
 * nsys 2026.2 (schema 3.25.0) export, and of a 2026.1 (3.24.14) export for the CPU-side tables
 * the 3.25.0 file at hand does not have; tests/test-gen.c compares `pragma table_info` of both.
 * Column order matters: scripts select by position as often as by name. */
static const SlSchemaTable tables[] = {
  /* Interned strings; every *Id / name column of the event tables points here. */
  { "StringIds", "CREATE TABLE StringIds (\n"
                 "  id                               INTEGER  NOT NULL PRIMARY KEY,\n"
                 "  value                            TEXT     NOT NULL\n"
                 ")" },
  /* One row per named thread. */
  { "ThreadNames", "CREATE TABLE ThreadNames (\n"
                   "  nameId                           INTEGER  NOT NULL,\n"
                   "  priority                         INTEGER,\n"
                   "  globalTid                        INTEGER\n"
                   ")" },
  /* One row per traced process. */
  { "PROCESSES", "CREATE TABLE PROCESSES (\n"
                 "  globalPid                        INTEGER,\n"
                 "  pid                              INTEGER,\n"
                 "  name                             TEXT\n"
                 ")" },
  /* One row per GPU: identity, size and hardware limits. */
  { "TARGET_INFO_GPU", "CREATE TABLE TARGET_INFO_GPU (\n"
                       "  vmId                             INTEGER  NOT NULL,\n"
                       "  id                               INTEGER  NOT NULL,\n"
                       "  name                             TEXT,\n"
                       "  busLocation                      TEXT,\n"
                       "  isDiscrete                       INTEGER,\n"
                       "  l2CacheSize                      INTEGER,\n"
                       "  totalMemory                      INTEGER,\n"
                       "  memoryBandwidth                  INTEGER,\n"
                       "  clockRate                        INTEGER,\n"
                       "  smCount                          INTEGER,\n"
                       "  pwGpuId                          INTEGER,\n"
                       "  uuid                             TEXT,\n"
                       "  luid                             INTEGER,\n"
                       "  chipName                         TEXT,\n"
                       "  cuDevice                         INTEGER,\n"
                       "  ctxswDevPath                     TEXT,\n"
                       "  ctrlDevPath                      TEXT,\n"
                       "  revision                         INTEGER,\n"
                       "  nodeMask                         INTEGER,\n"
                       "  constantMemory                   INTEGER,\n"
                       "  maxIPC                           INTEGER,\n"
                       "  maxRegistersPerBlock             INTEGER,\n"
                       "  maxShmemPerBlock                 INTEGER,\n"
                       "  maxShmemPerBlockOptin            INTEGER,\n"
                       "  maxShmemPerSm                    INTEGER,\n"
                       "  maxRegistersPerSm                INTEGER,\n"
                       "  threadsPerWarp                   INTEGER,\n"
                       "  asyncEngines                     INTEGER,\n"
                       "  maxWarpsPerSm                    INTEGER,\n"
                       "  maxBlocksPerSm                   INTEGER,\n"
                       "  maxThreadsPerBlock               INTEGER,\n"
                       "  maxBlockDimX                     INTEGER,\n"
                       "  maxBlockDimY                     INTEGER,\n"
                       "  maxBlockDimZ                     INTEGER,\n"
                       "  maxGridDimX                      INTEGER,\n"
                       "  maxGridDimY                      INTEGER,\n"
                       "  maxGridDimZ                      INTEGER,\n"
                       "  computeMajor                     INTEGER,\n"
                       "  computeMinor                     INTEGER,\n"
                       "  smMajor                          INTEGER,\n"
                       "  smMinor                          INTEGER\n"
                       ")" },
  /* The CUDA devices a process saw. */
  { "TARGET_INFO_CUDA_DEVICE", "CREATE TABLE TARGET_INFO_CUDA_DEVICE (\n"
                               "  gpuId                            INTEGER,\n"
                               "  cudaId                           INTEGER  NOT NULL,\n"
                               "  pid                              INTEGER  NOT NULL,\n"
                               "  uuid                             TEXT,\n"
                               "  numMultiprocessors               INTEGER\n"
                               ")" },
  /* One row per CUDA context. */
  { "TARGET_INFO_CUDA_CONTEXT_INFO", "CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (\n"
                                     "  nullStreamId                     INTEGER  NOT NULL,\n"
                                     "  hwId                             INTEGER  NOT NULL,\n"
                                     "  vmId                             INTEGER  NOT NULL,\n"
                                     "  processId                        INTEGER  NOT NULL,\n"
                                     "  deviceId                         INTEGER  NOT NULL,\n"
                                     "  contextId                        INTEGER  NOT NULL,\n"
                                     "  parentContextId                  INTEGER,\n"
                                     "  isGreenContext                   INTEGER,\n"
                                     "  numMultiprocessors               INTEGER\n"
                                     ")" },
  /* One row per CUDA stream (flag: ENUM_CUPTI_STREAM_TYPE). */
  { "TARGET_INFO_CUDA_STREAM", "CREATE TABLE TARGET_INFO_CUDA_STREAM (\n"
                               "  streamId                         INTEGER  NOT NULL,\n"
                               "  hwId                             INTEGER  NOT NULL,\n"
                               "  vmId                             INTEGER  NOT NULL,\n"
                               "  processId                        INTEGER  NOT NULL,\n"
                               "  contextId                        INTEGER  NOT NULL,\n"
                               "  priority                         INTEGER  NOT NULL,\n"
                               "  flag                             INTEGER  NOT NULL\n"
                               ")" },
  /* Wall-clock anchor of the session time base. */
  { "TARGET_INFO_SESSION_START_TIME", "CREATE TABLE TARGET_INFO_SESSION_START_TIME (\n"
                                      "  utcEpochNs                       INTEGER,\n"
                                      "  utcTime                          TEXT,\n"
                                      "  localTime                        TEXT,\n"
                                      "  systemClockNs                    INTEGER\n"
                                      ")" },
  /* Extent of the trace in session time. */
  { "ANALYSIS_DETAILS", "CREATE TABLE ANALYSIS_DETAILS (\n"
                        "  globalVid                        INTEGER  NOT NULL,\n"
                        "  duration                         INTEGER  NOT NULL,\n"
                        "  startTime                        INTEGER  NOT NULL,\n"
                        "  stopTime                         INTEGER  NOT NULL\n"
                        ")" },
  /* Capture settings as name/value pairs. */
  { "META_DATA_CAPTURE", "CREATE TABLE META_DATA_CAPTURE (\n"
                         "  name                             TEXT     NOT NULL,\n"
                         "  value                            TEXT\n"
                         ")" },
  /* Who wrote the file and in which schema version. */
  { "META_DATA_EXPORT", "CREATE TABLE META_DATA_EXPORT (\n"
                        "  name                             TEXT     NOT NULL,\n"
                        "  value                            TEXT\n"
                        ")" },
  /* GPU kernel executions. */
  { "CUPTI_ACTIVITY_KIND_KERNEL", "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (\n"
                                  "  start                            INTEGER  NOT NULL,\n"
                                  "  end                              INTEGER  NOT NULL,\n"
                                  "  deviceId                         INTEGER  NOT NULL,\n"
                                  "  contextId                        INTEGER  NOT NULL,\n"
                                  "  greenContextId                   INTEGER,\n"
                                  "  streamId                         INTEGER  NOT NULL,\n"
                                  "  correlationId                    INTEGER,\n"
                                  "  globalPid                        INTEGER,\n"
                                  "  demangledName                    INTEGER  NOT NULL,\n"
                                  "  shortName                        INTEGER  NOT NULL,\n"
                                  "  mangledName                      INTEGER,\n"
                                  "  launchType                       INTEGER,\n"
                                  "  cacheConfig                      INTEGER,\n"
                                  "  registersPerThread               INTEGER  NOT NULL,\n"
                                  "  gridX                            INTEGER  NOT NULL,\n"
                                  "  gridY                            INTEGER  NOT NULL,\n"
                                  "  gridZ                            INTEGER  NOT NULL,\n"
                                  "  blockX                           INTEGER  NOT NULL,\n"
                                  "  blockY                           INTEGER  NOT NULL,\n"
                                  "  blockZ                           INTEGER  NOT NULL,\n"
                                  "  staticSharedMemory               INTEGER  NOT NULL,\n"
                                  "  dynamicSharedMemory              INTEGER  NOT NULL,\n"
                                  "  localMemoryPerThread             INTEGER  NOT NULL,\n"
                                  "  localMemoryTotal                 INTEGER  NOT NULL,\n"
                                  "  gridId                           INTEGER  NOT NULL,\n"
                                  "  sharedMemoryExecuted             INTEGER,\n"
                                  "  graphNodeId                      INTEGER,\n"
                                  "  sharedMemoryLimitConfig          INTEGER,\n"
                                  "  qmdBulkReleaseDone               INTEGER,\n"
                                  "  qmdPreexitDone                   INTEGER,\n"
                                  "  qmdLastCtaDone                   INTEGER,\n"
                                  "  graphId                          INTEGER,\n"
                                  "  clusterX                         INTEGER,\n"
                                  "  clusterY                         INTEGER,\n"
                                  "  clusterZ                         INTEGER,\n"
                                  "  clusterSchedulingPolicy          INTEGER,\n"
                                  "  maxPotentialClusterSize          INTEGER,\n"
                                  "  maxActiveClusters                INTEGER,\n"
                                  "  sharedMemoryRequestedPercentage  INTEGER,\n"
                                  "  tensorSizeMinusOneElements       TEXT     NOT NULL\n"
                                  ")" },
  /* GPU memory copies. */
  { "CUPTI_ACTIVITY_KIND_MEMCPY", "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (\n"
                                  "  start                            INTEGER  NOT NULL,\n"
                                  "  end                              INTEGER  NOT NULL,\n"
                                  "  deviceId                         INTEGER  NOT NULL,\n"
                                  "  contextId                        INTEGER  NOT NULL,\n"
                                  "  greenContextId                   INTEGER,\n"
                                  "  streamId                         INTEGER  NOT NULL,\n"
                                  "  correlationId                    INTEGER,\n"
                                  "  globalPid                        INTEGER,\n"
                                  "  bytes                            INTEGER  NOT NULL,\n"
                                  "  copyKind                         INTEGER  NOT NULL,\n"
                                  "  deprecatedSrcId                  INTEGER,\n"
                                  "  srcKind                          INTEGER,\n"
                                  "  dstKind                          INTEGER,\n"
                                  "  srcDeviceId                      INTEGER,\n"
                                  "  srcContextId                     INTEGER,\n"
                                  "  dstDeviceId                      INTEGER,\n"
                                  "  dstContextId                     INTEGER,\n"
                                  "  migrationCause                   INTEGER,\n"
                                  "  graphNodeId                      INTEGER,\n"
                                  "  virtualAddress                   INTEGER,\n"
                                  "  copyCount                        INTEGER\n"
                                  ")" },
  /* GPU memory sets. */
  { "CUPTI_ACTIVITY_KIND_MEMSET", "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (\n"
                                  "  start                            INTEGER  NOT NULL,\n"
                                  "  end                              INTEGER  NOT NULL,\n"
                                  "  deviceId                         INTEGER  NOT NULL,\n"
                                  "  contextId                        INTEGER  NOT NULL,\n"
                                  "  greenContextId                   INTEGER,\n"
                                  "  streamId                         INTEGER  NOT NULL,\n"
                                  "  correlationId                    INTEGER,\n"
                                  "  globalPid                        INTEGER,\n"
                                  "  value                            INTEGER  NOT NULL,\n"
                                  "  bytes                            INTEGER  NOT NULL,\n"
                                  "  graphNodeId                      INTEGER,\n"
                                  "  memKind                          INTEGER\n"
                                  ")" },
  /* CUDA runtime (eventClass 0) and driver (eventClass 1) API calls. */
  { "CUPTI_ACTIVITY_KIND_RUNTIME", "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (\n"
                                   "  start                            INTEGER  NOT NULL,\n"
                                   "  end                              INTEGER  NOT NULL,\n"
                                   "  eventClass                       INTEGER  NOT NULL,\n"
                                   "  globalTid                        INTEGER,\n"
                                   "  correlationId                    INTEGER,\n"
                                   "  nameId                           INTEGER  NOT NULL,\n"
                                   "  returnValue                      INTEGER  NOT NULL,\n"
                                   "  callchainId                      INTEGER\n"
                                   ")" },
  /* What a synchronizing API call waited for. */
  { "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (\n"
                                           "  start                            INTEGER  NOT NULL,\n"
                                           "  end                              INTEGER  NOT NULL,\n"
                                           "  deviceId                         INTEGER  NOT NULL,\n"
                                           "  contextId                        INTEGER  NOT NULL,\n"
                                           "  greenContextId                   INTEGER,\n"
                                           "  streamId                         INTEGER  NOT NULL,\n"
                                           "  correlationId                    INTEGER,\n"
                                           "  globalPid                        INTEGER,\n"
                                           "  deprecatedSyncType               INTEGER,\n"
                                           "  syncType                         INTEGER  NOT NULL,\n"
                                           "  eventId                          INTEGER  NOT NULL,\n"
                                           "  eventSyncId                      INTEGER\n"
                                           ")" },
  /* NVTX marks, ranges and domain names. */
  { "NVTX_EVENTS", "CREATE TABLE NVTX_EVENTS (\n"
                   "  start                            INTEGER  NOT NULL,\n"
                   "  end                              INTEGER,\n"
                   "  eventType                        INTEGER  NOT NULL,\n"
                   "  rangeId                          INTEGER,\n"
                   "  category                         INTEGER,\n"
                   "  color                            INTEGER,\n"
                   "  text                             TEXT,\n"
                   "  globalTid                        INTEGER,\n"
                   "  endGlobalTid                     INTEGER,\n"
                   "  textId                           INTEGER,\n"
                   "  domainId                         INTEGER,\n"
                   "  uint64Value                      INTEGER,\n"
                   "  int64Value                       INTEGER,\n"
                   "  doubleValue                      REAL,\n"
                   "  uint32Value                      INTEGER,\n"
                   "  int32Value                       INTEGER,\n"
                   "  floatValue                       REAL,\n"
                   "  jsonTextId                       INTEGER,\n"
                   "  jsonText                         TEXT,\n"
                   "  binaryData                       TEXT\n"
                   ")" },
  /* Blocking OS runtime calls (eventClass 27). */
  { "OSRT_API", "CREATE TABLE OSRT_API (\n"
                "  start                            INTEGER  NOT NULL,\n"
                "  end                              INTEGER  NOT NULL,\n"
                "  eventClass                       INTEGER  NOT NULL,\n"
                "  globalTid                        INTEGER,\n"
                "  nameId                           INTEGER  NOT NULL,\n"
                "  returnValue                      INTEGER  NOT NULL,\n"
                "  nestingLevel                     INTEGER,\n"
                "  callchainId                      INTEGER  NOT NULL,\n"
                "  argumentsId                      INTEGER  NOT NULL\n"
                ")" },
  /* Call stacks of OSRT_API rows, one row per frame. */
  { "OSRT_CALLCHAINS", "CREATE TABLE OSRT_CALLCHAINS (\n"
                       "  id                               INTEGER  NOT NULL,\n"
                       "  symbol                           INTEGER  NOT NULL,\n"
                       "  module                           INTEGER  NOT NULL,\n"
                       "  kernelMode                       INTEGER,\n"
                       "  thumbCode                        INTEGER,\n"
                       "  unresolved                       INTEGER,\n"
                       "  specialEntry                     INTEGER,\n"
                       "  originalIP                       INTEGER,\n"
                       "  unwindMethod                     INTEGER,\n"
                       "  stackDepth                       INTEGER  NOT NULL,\n"
                       "  PRIMARY KEY (id, stackDepth)\n"
                       ")" },
  /* Thread scheduling in/out. */
  { "SCHED_EVENTS", "CREATE TABLE SCHED_EVENTS (\n"
                    "  start                            INTEGER  NOT NULL,\n"
                    "  cpu                              INTEGER  NOT NULL,\n"
                    "  isSchedIn                        INTEGER  NOT NULL,\n"
                    "  globalTid                        INTEGER,\n"
                    "  threadState                      INTEGER,\n"
                    "  threadBlock                      INTEGER\n"
                    ")" },
  /* CPU samples. */
  { "COMPOSITE_EVENTS", "CREATE TABLE COMPOSITE_EVENTS (\n"
                        "  id                               INTEGER  NOT NULL PRIMARY KEY,\n"
                        "  start                            INTEGER  NOT NULL,\n"
                        "  cpu                              INTEGER,\n"
                        "  threadState                      INTEGER,\n"
                        "  globalTid                        INTEGER,\n"
                        "  cpuCycles                        INTEGER  NOT NULL\n"
                        ")" },
  /* Call stacks of CPU samples, one row per frame; stackDepth 0 is the leaf. */
  { "SAMPLING_CALLCHAINS", "CREATE TABLE SAMPLING_CALLCHAINS (\n"
                           "  id                               INTEGER  NOT NULL,\n"
                           "  symbol                           INTEGER  NOT NULL,\n"
                           "  module                           INTEGER  NOT NULL,\n"
                           "  kernelMode                       INTEGER,\n"
                           "  thumbCode                        INTEGER,\n"
                           "  unresolved                       INTEGER,\n"
                           "  specialEntry                     INTEGER,\n"
                           "  originalIP                       INTEGER,\n"
                           "  unwindMethod                     INTEGER,\n"
                           "  stackDepth                       INTEGER  NOT NULL,\n"
                           "  PRIMARY KEY (id, stackDepth)\n"
                           ")" },
};

static const SlSchemaEnumValue enum_cuda_memcpy_oper[] = {
  { 0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown" },
  { 1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device" },
  { 2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host" },
  { 3, "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array" },
  { 4, "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host" },
  { 5, "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array" },
  { 6, "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device" },
  { 7, "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array" },
  { 8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device" },
  { 9, "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host" },
  { 10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer" },
  { 11, "CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device" },
  { 12, "CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host" },
  { 13, "CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device" },
};
static const SlSchemaEnumValue enum_cuda_mem_kind[] = {
  { 0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable" },
  { 1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned" },
  { 2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device" },
  { 3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array" },
  { 4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed" },
  { 5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static" },
  { 6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static" },
  { 7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown" },
};
static const SlSchemaEnumValue enum_nsys_event_class[] = {
  { 0, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "CUDA runtime" },
  { 1, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "CUDA driver" },
  { 2, "TRACE_PROCESS_EVENT_GL", "GL" },
  { 3, "TRACE_PROCESS_EVENT_TSP_OVERHEAD", "TSP overhead" },
  { 4, "TRACE_PROCESS_EVENT_GL_DEBUG", "GL debug" },
  { 5, "TRACE_PROCESS_EVENT_GL_WORKLOAD", "GL workload" },
  { 6, "TRACE_PROCESS_EVENT_NVTX_START", "NVTX start" },
  { 7, "TRACE_PROCESS_EVENT_NVTX_FINISH", "NVTX finish" },
  { 8, "TRACE_PROCESS_EVENT_GL_START", "GL start" },
  { 9, "TRACE_PROCESS_EVENT_GL_FINISH", "GL finish" },
  { 10, "TRACE_PROCESS_EVENT_CUDA_START", "CUDA start" },
  { 11, "TRACE_PROCESS_EVENT_CUDA_FINISH", "CUDA finish" },
  { 12, "TRACE_PROCESS_EVENT_CUDA_INIT_ERROR", "CUDA init error" },
  { 13, "TRACE_PROCESS_EVENT_CUDA_EGL_DRIVER", "CUDA EGL driver" },
  { 18, "TRACE_PROCESS_EVENT_VSYNC", "Vsync" },
  { 26, "TRACE_PROCESS_EVENT_CUDA_API", "CUDA API" },
  { 27, "TRACE_PROCESS_EVENT_OS_RUNTIME", "OSRT runtime" },
  { 28, "TRACE_PROCESS_EVENT_CUDNN", "cuDNN" },
  { 29, "TRACE_PROCESS_EVENT_CUBLAS", "cuBLAS" },
  { 31, "TRACE_PROCESS_EVENT_OS_RUNTIME_START", "OSRT start" },
  { 32, "TRACE_PROCESS_EVENT_OS_RUNTIME_FINISH", "OSRT finish" },
  { 33, "TRACE_PROCESS_EVENT_CUDNN_START", "cuDNN start" },
  { 34, "TRACE_PROCESS_EVENT_CUDNN_FINISH", "cuDNN finish" },
  { 35, "TRACE_PROCESS_EVENT_CUBLAS_START", "cuBLAS start" },
  { 36, "TRACE_PROCESS_EVENT_CUBLAS_FINISH", "cuBLAS finish" },
  { 37, "TRACE_PROCESS_EVENT_THREAD_BLOCK", "Thread block" },
  { 38, "TRACE_PROCESS_EVENT_NVMEDIA", "NVmedia" },
  { 39, "TRACE_PROCESS_EVENT_NVMEDIA_START", "NVmedia start" },
  { 40, "TRACE_PROCESS_EVENT_NVMEDIA_FINISH", "NVmedia finish" },
  { 41, "TRACE_PROCESS_EVENT_DX12_API", "DX12 API" },
  { 42, "TRACE_PROCESS_EVENT_DX12_WORKLOAD", "DX12 workload" },
  { 43, "TRACE_PROCESS_EVENT_DX12_START", "DX12 start" },
  { 44, "TRACE_PROCESS_EVENT_DX12_FINISH", "DX12 finish" },
  { 45, "TRACE_PROCESS_EVENT_OPENACC_START", "OpenACC start" },
  { 46, "TRACE_PROCESS_EVENT_OPENACC_FINISH", "OpenACC finish" },
  { 47, "TRACE_PROCESS_EVENT_OPENACC_INIT_ERROR", "OpenACC init error" },
  { 48, "TRACE_PROCESS_EVENT_OPENACC", "OpenACC" },
  { 49, "TRACE_PROCESS_EVENT_CPU_FPS", "CPU FPS" },
  { 50, "TRACE_PROCESS_EVENT_GPU_FPS", "GPU FPS" },
  { 51, "TRACE_PROCESS_EVENT_GL_MULTI_ERROR", "GL multi-error" },
  { 52, "TRACE_PROCESS_EVENT_DX12_DISPLAY", "DX12 display" },
  { 53, "TRACE_PROCESS_EVENT_VULKAN_API", "Vulkan API" },
  { 54, "TRACE_PROCESS_EVENT_VULKAN_WORKLOAD", "Vulkan workload" },
  { 55, "TRACE_PROCESS_EVENT_VULKAN_START", "Vulkan start" },
  { 56, "TRACE_PROCESS_EVENT_VULKAN_FINISH", "Vulkan finish" },
  { 57, "TRACE_PROCESS_EVENT_SYSTEM_EVENT", "System event" },
  { 58, "TRACE_PROCESS_EVENT_GPU_MEMORY", "GPU memory" },
  { 59, "TRACE_PROCESS_EVENT_DX12_CREATE_OBJECT", "DX12 create object" },
  { 60, "TRACE_PROCESS_EVENT_VULKAN_CREATE_OBJECT", "Vulkan create object" },
  { 61, "TRACE_PROCESS_EVENT_CUSTOM_ETW_TRACE", "Custom ETW trace" },
  { 62, "TRACE_PROCESS_EVENT_SLI_DEPRECATED", "SLI (Deprecated)" },
  { 63, "TRACE_PROCESS_EVENT_SLI_START_DEPRECATED", "SLI start (Deprecated)" },
  { 64, "TRACE_PROCESS_EVENT_SLI_FINISH_DEPRECATED", "SLI finish (Deprecated)" },
  { 65, "TRACE_PROCESS_EVENT_DX12_DEBUG_API", "DX12 debug API" },
  { 66, "TRACE_PROCESS_EVENT_VULKAN_DEBUG_API", "Vulkan debug API" },
  { 67, "TRACE_PROCESS_EVENT_CUDABACKTRACE", "CUDA backtrace" },
  { 68, "TRACE_PROCESS_EVENT_CUDABACKTRACE_START", "CUDA backtrace start" },
  { 69, "TRACE_PROCESS_EVENT_CUDABACKTRACE_FINISH", "CUDA backtrace finish" },
  { 70, "TRACE_PROCESS_EVENT_WDDM", "WDDM" },
  { 71, "TRACE_PROCESS_EVENT_DX11_API", "DX11 API" },
  { 72, "TRACE_PROCESS_EVENT_DX11_START", "DX11 start" },
  { 73, "TRACE_PROCESS_EVENT_DX11_FINISH", "DX11 finish" },
  { 74, "TRACE_PROCESS_EVENT_DX11_CREATE_OBJECT", "DX11 create object" },
  { 75, "TRACE_PROCESS_EVENT_DX11_DEBUG_API", "DX11 debug API" },
  { 76, "TRACE_PROCESS_EVENT_DXCOMMON_API", "DX common API" },
  { 77, "TRACE_PROCESS_EVENT_CUDA_GRAPH_NODE_CREATION", "CUDA graph node creation" },
  { 78, "TRACE_PROCESS_EVENT_OPENMP", "OpenMP" },
  { 79, "TRACE_PROCESS_EVENT_OPENMP_START", "OpenMP start" },
  { 80, "TRACE_PROCESS_EVENT_OPENMP_FINISH", "OpenMP finish" },
  { 81, "TRACE_PROCESS_EVENT_NVAPI", "NV API" },
  { 82, "TRACE_PROCESS_EVENT_ETWDXGKRNL", "ETW DXG KRNL" },
  { 83, "TRACE_PROCESS_EVENT_NVENCODE", "NVENCODE" },
  { 84, "TRACE_PROCESS_EVENT_NVENCODE_START", "NVENCODE start" },
  { 85, "TRACE_PROCESS_EVENT_NVENCODE_FINISH", "NVENCODE finish" },
  { 86, "TRACE_PROCESS_EVENT_NVDECODE", "NVDECODE" },
  { 87, "TRACE_PROCESS_EVENT_NVDECODE_START", "NVDECODE start" },
  { 88, "TRACE_PROCESS_EVENT_NVDECODE_FINISH", "NVDECODE finish" },
  { 89, "TRACE_PROCESS_EVENT_NVJPEG", "nvJPEG" },
  { 90, "TRACE_PROCESS_EVENT_NVJPEG_START", "nvJPEG start" },
  { 91, "TRACE_PROCESS_EVENT_NVJPEG_FINISH", "nvJPEG finish" },
  { 92, "TRACE_PROCESS_EVENT_DX12_BATCH_WORKLOAD", "DX12 batch workload" },
  { 93, "TRACE_PROCESS_EVENT_VULKAN_BATCH_WORKLOAD", "Vulkan batch workload" },
  { 94, "TRACE_PROCESS_EVENT_CUDA_GRAPHEXEC_CREATION", "CUDA graph exec creation" },
  { 95, "TRACE_PROCESS_EVENT_CUDA_GRAPH_CREATION", "CUDA graph creation" },
  { 96, "TRACE_PROCESS_EVENT_CUDA_GRAPH_CLONE", "CUDA graph clone" },
  { 98, "TRACE_PROCESS_EVENT_OPENCL", "OpenCL event" },
  { 99, "TRACE_PROCESS_EVENT_OPENCL_START", "OpenCL start" },
  { 100, "TRACE_PROCESS_EVENT_OPENCL_FINISH", "OpenCL finish" },
  { 101, "TRACE_PROCESS_EVENT_OPENCL_INIT_ERROR", "OpenCL Init error" },
  { 102, "TRACE_PROCESS_EVENT_CUDA_JIT", "CUDA JIT" },
  { 103, "TRACE_PROCESS_EVENT_CUDA_OVERHEAD", "CUDA overhead" },
  { 104, "TRACE_PROCESS_EVENT_OPENXR", "OpenXR event" },
  { 105, "TRACE_PROCESS_EVENT_OPENXR_START", "OpenXR start" },
  { 106, "TRACE_PROCESS_EVENT_OPENXR_FINISH", "OpenXR finish" },
  { 107, "TRACE_PROCESS_EVENT_SYSCALL", "Syscall" },
  { 108, "TRACE_PROCESS_EVENT_TEGRA_INTERNAL", "Tegra Internal API" },
  { 109, "TRACE_PROCESS_EVENT_TEGRA_INTERNAL_START", "Tegra Internal API start" },
  { 110, "TRACE_PROCESS_EVENT_TEGRA_INTERNAL_FINISH", "Tegra Internal API finish" },
  { 111, "TRACE_PROCESS_EVENT_CUDA_GRAPH_EXEC_NODE_SET_PARAMS", "CUDA graph exec-node set params" },
};
static const SlSchemaEnumValue enum_nsys_event_type[] = {
  { 0, "Unknown", "Unknown" },
  { 1, "CpuCycles", "CpuCycles" },
  { 2, "Instructions", "Instructions" },
  { 3, "CacheReferences", "CacheReferences" },
  { 4, "L1CacheDataWriteMisses", "L1CacheDataWriteMisses" },
  { 5, "L1CacheDataReadMisses", "L1CacheDataReadMisses" },
  { 6, "L1CacheInstructionMisses", "L1CacheInstructionMisses" },
  { 7, "L2CacheDataWriteMisses", "L2CacheDataWriteMisses" },
  { 8, "L2CacheDataReadMisses", "L2CacheDataReadMisses" },
  { 9, "L2CacheInstructionMisses", "L2CacheInstructionMisses" },
  { 10, "BranchInstructions", "BranchInstructions" },
  { 11, "BranchMisses", "BranchMisses" },
  { 12, "BusCycles", "BusCycles" },
  { 13, "CpuClock", "CpuClock" },
  { 14, "TaskClock", "TaskClock" },
  { 15, "PageFault", "PageFault" },
  { 16, "ContextSwitches", "ContextSwitches" },
  { 17, "CpuMigrations", "CpuMigrations" },
  { 18, "PageFaultsMin", "PageFaultsMin" },
  { 19, "PageFaultsMax", "PageFaultsMax" },
  { 20, "AlignmentFaults", "AlignmentFaults" },
  { 21, "EmulationFaults", "EmulationFaults" },
  { 22, "ThreadState", "ThreadState" },
  { 23, "Frames", "Frames" },
  { 24, "Annotations", "Annotations" },
  { 25, "SchedSwitch", "SchedSwitch" },
  { 26, "SchedWakeup", "SchedWakeup" },
  { 27, "Command", "Command" },
  { 28, "Mmap", "Mmap" },
  { 29, "MemUsage", "MemUsage" },
  { 30, "Emc", "Emc" },
  { 31, "Composite", "Composite" },
  { 32, "NvtxEvents", "NvtxEvents" },
  { 33, "NvtxCategory", "NvtxCategory" },
  { 34, "NvtxMark", "NvtxMark" },
  { 35, "NvtxPushRange", "NvtxPushRange" },
  { 36, "NvtxPopRange", "NvtxPopRange" },
  { 37, "NvtxStartRange", "NvtxStartRange" },
  { 38, "NvtxEndRange", "NvtxEndRange" },
  { 39, "NvtxThread", "NvtxThread" },
  { 40, "PowerRate", "PowerRate" },
  { 41, "Sched", "Sched" },
  { 42, "CpuCyclesSelf", "CpuCyclesSelf" },
  { 43, "CpuCyclesTotal", "CpuCyclesTotal" },
  { 44, "CpuCyclesSelfPlus", "CpuCyclesSelfPlus" },
  { 45, "Cuda", "Cuda" },
  { 46, "CudaDevice", "CudaDevice" },
  { 47, "TraceProcess", "TraceProcess" },
  { 48, "TraceFunctions", "TraceFunctions" },
  { 49, "Diagnostic", "Diagnostic" },
  { 50, "GlWorkload", "GlWorkload" },
  { 51, "BandwidthUsage", "BandwidthUsage" },
  { 52, "KhrDebugMark", "KhrDebugMark" },
  { 53, "KhrDebugPushRange", "KhrDebugPushRange" },
  { 54, "KhrDebugPopRange", "KhrDebugPopRange" },
  { 55, "KhrDebugGpuMark", "KhrDebugGpuMark" },
  { 56, "KhrDebugGpuPushRange", "KhrDebugGpuPushRange" },
  { 57, "KhrDebugGpuPopRange", "KhrDebugGpuPopRange" },
  { 58, "GpuCtxsw", "GpuCtxsw" },
  { 59, "NvtxPushPopRange", "NvtxPushPopRange" },
  { 60, "NvtxStartEndRange", "NvtxStartEndRange" },
  { 61, "ProfTime", "ProfTime" },
  { 62, "KhrDebugPushPopRange", "KhrDebugPushPopRange" },
  { 63, "KhrDebugGpuPushPopRange", "KhrDebugGpuPushPopRange" },
  { 64, "NvtxtCategory", "NvtxtCategory" },
  { 65, "NvtxtMark", "NvtxtMark" },
  { 66, "NvtxtPushRange", "NvtxtPushRange" },
  { 67, "NvtxtPopRange", "NvtxtPopRange" },
  { 68, "NvtxtStartRange", "NvtxtStartRange" },
  { 69, "NvtxtEndRange", "NvtxtEndRange" },
  { 70, "NvtxtPushPopRange", "NvtxtPushPopRange" },
  { 71, "NvtxtStartEndRange", "NvtxtStartEndRange" },
  { 72, "NvtxtMetaThread", "NvtxtMetaThread" },
  { 73, "NvtxtMetaProcess", "NvtxtMetaProcess" },
  { 74, "NvtxtMetaFileDisplay", "NvtxtMetaFileDisplay" },
  { 75, "NvtxDomainCreate", "NvtxDomainCreate" },
  { 76, "NvtxDomainDestroy", "NvtxDomainDestroy" },
  { 77, "NvnGpuCmdBuf", "NvnGpuCmdBuf" },
  { 78, "TraceVSync", "TraceVSync" },
  { 79, "CudaDeviceKernel", "CudaDeviceKernel" },
  { 80, "CudaDeviceMemory", "CudaDeviceMemory" },
  { 81, "Pmu", "Pmu" },
  { 82, "NvnGpuDraw", "NvnGpuDraw" },
  { 83, "NvnGpuCompute", "NvnGpuCompute" },
  { 84, "NvnGpuDebug", "NvnGpuDebug" },
  { 85, "OS runtime libraries", "OS runtime libraries" },
  { 86, "CuDNN", "CuDNN" },
  { 87, "CuBLAS", "CuBLAS" },
  { 88, "NvMedia", "NvMedia" },
  { 89, "OpenACC", "OpenACC" },
  { 90, "Correlation", "Correlation" },
  { 91, "DX12", "DX12" },
  { 92, "DX12Workload", "DX12Workload" },
  { 93, "PmuRawEvent", "PmuRawEvent" },
  { 94, "GraphicsFrame", "GraphicsFrame" },
  { 95, "Vulkan", "Vulkan" },
  { 96, "VulkanWorkload", "VulkanWorkload" },
  { 97, "NvtxNameCudaDevice", "NvtxNameCudaDevice" },
  { 98, "NvtxNameCudaContext", "NvtxNameCudaContext" },
  { 99, "NvtxNameCudaStream", "NvtxNameCudaStream" },
  { 100, "SystemEvent", "SystemEvent" },
  { 101, "GpuMemoryEvent", "GpuMemoryEvent" },
  { 102, "DX12CreateObject", "DX12CreateObject" },
  { 103, "VulkanCreateObject", "VulkanCreateObject" },
  { 104, "UnitTraceEvent", "UnitTraceEvent" },
  { 105, "CustomETWEvent", "CustomETWEvent" },
  { 106, "CudaSyncEvent", "CudaSyncEvent" },
  { 107, "SLIEvent (DEPRECATED)", "SLIEvent (DEPRECATED)" },
  { 108, "CudaBacktrace", "CudaBacktrace" },
  { 109, "WddmEvent", "WddmEvent" },
  { 110, "DX11", "DX11" },
  { 111, "DX11CreateObject", "DX11CreateObject" },
  { 112, "DXGI", "DXGI" },
  { 113, "CudaGraphNodeCreation", "CudaGraphNodeCreation" },
  { 114, "OpenMP", "OpenMP" },
  { 115, "UncorePmuEvent", "UncorePmuEvent" },
  { 116, "UncorePmuCarmel", "UncorePmuCarmel" },
  { 117, "CudaDeviceMemoryUsage", "CudaDeviceMemoryUsage" },
  { 118, "ETWDxgKrnlEvent", "ETWDxgKrnlEvent" },
  { 119, "CudaUvmCpuPageFaultEvent", "CudaUvmCpuPageFaultEvent" },
  { 120, "CudaUvmGpuPageFaultEvent", "CudaUvmGpuPageFaultEvent" },
  { 121, "NICMetricsValuesEvent", "NICMetricsValuesEvent" },
  { 122, "NICMetricsListEvent", "NICMetricsListEvent" },
  { 123, "InterruptHandler", "InterruptHandler" },
  { 124, "NvEncode", "NvEncode" },
  { 125, "NVDecode", "NVDecode" },
  { 126, "nvJPEG", "nvJPEG" },
  { 127, "CudaEventRecord", "CudaEventRecord" },
  { 128, "PerfEventCountEvent", "PerfEventCountEvent" },
  { 129, "CudaDeviceMemoryPool", "CudaDeviceMemoryPool" },
  { 130, "CudaDeviceGraph", "CudaDeviceGraph" },
  { 131, "CudaGraphExecCreation", "CudaGraphExecCreation" },
  { 132, "CudaGraphCreation", "CudaGraphCreation" },
  { 133, "CudaGraphClone", "CudaGraphClone" },
  { 134, "GpuMemoryTransferEvent", "GpuMemoryTransferEvent" },
  { 135, "GlTrace", "GlTrace" },
  { 136, "GpuVideoEngineWorkload", "GpuVideoEngineWorkload" },
  { 137, "IBSwitchMetricsValuesEvent", "IBSwitchMetricsValuesEvent" },
  { 138, "GenericEvent", "GenericEvent" },
  { 139, "UncorePmuT23xScf", "UncorePmuT23xScf" },
  { 140, "UncorePmuT23xDsu", "UncorePmuT23xDsu" },
  { 141, "IBSwitchCongestionEvent", "IBSwitchCongestionEvent" },
  { 142, "CudaDeviceMemcpy", "CudaDeviceMemcpy" },
  { 143, "PerfMetricValueEvent", "PerfMetricValueEvent" },
  { 144, "OpenXREvent", "OpenXREvent" },
  { 145, "TegraInternalEvent", "TegraInternalEvent" },
  { 146, "TraceStartFinish", "TraceStartFinish" },
  { 147, "Syscall", "Syscall" },
  { 148, "CudaConfidentialComputeKeyRotation", "CudaConfidentialComputeKeyRotation" },
  { 149, "CudaGraphExecNodeSetParams", "CudaGraphExecNodeSetParams" },
  { 150, "NvApi", "NvApi" },
  { 151, "CudaHostFunc", "CudaHostFunc" },
  { 152, "CudaApi", "CudaApi" },
  { 153, "Overhead", "Overhead" },
  { 154, "CudaOverhead", "CudaOverhead" },
};
static const SlSchemaEnumValue enum_cupti_sync_type[] = {
  { 0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown" },
  { 1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event sync" },
  { 2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream wait sync" },
  { 3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync" },
  { 4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context sync" },
};
static const SlSchemaEnumValue enum_cuda_kernel_launch_type[] = {
  { 0, "CUDA_KERNEL_LAUNCH_TYPE_UNKNOWN", "Unknown" },
  { 1, "CUDA_KERNEL_LAUNCH_TYPE_REGULAR", "Regular" },
  { 2, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE", "Coop Single Device" },
  { 3, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE", "Coop Multi Device" },
};
static const SlSchemaEnumValue enum_cupti_stream_type[] = {
  { 0, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_UNKNOWN", "Unknown stream type" },
  { 1, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT", "Default stream" },
  { 2, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING", "Non-blocking stream" },
  { 3, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL", "Null stream" },
};
static const SlSchemaEnumValue enum_cuda_func_cache_config[] = {
  { 0, "CU_FUNC_CACHE_PREFER_NONE", "None" },
  { 1, "CU_FUNC_CACHE_PREFER_SHARED", "Shared" },
  { 2, "CU_FUNC_CACHE_PREFER_L1", "L1" },
  { 3, "CU_FUNC_CACHE_PREFER_EQUAL", "Equal" },
};
static const SlSchemaEnumValue enum_cuda_shared_mem_limit_config[] = {
  { 0, "CUDA_SHARED_MEM_LIMIT_DEFAULT", "Default" },
  { 1, "CUDA_SHARED_MEM_LIMIT_OPTIN", "Opt in" },
};
static const SlSchemaEnumValue enum_cuda_unif_mem_migration[] = {
  { 0, "CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_UNKNOWN", "Unknown" },
  { 1, "CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_USER", "User prefetch" },
  { 2, "CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE", "Page fault" },
  { 3, "CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH", "Speculative prefecth" },
  { 4, "CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_EVICTION", "Eviction" },
  { 5, "CUDA_UNIFIED_MEMORY_MIGRATION_CAUSE_ACCESS_COUNTERS", "Access counters" },
};
static const SlSchemaEnumValue enum_cuda_unif_mem_access_type[] = {
  { 0, "CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_UNKNOWN", "Unknown" },
  { 1, "CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_READ", "Read" },
  { 2, "CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_WRITE", "Write" },
  { 3, "CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_ATOMIC", "Atomic" },
  { 4, "CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_PREFETCH", "Prefetch" },
};
static const SlSchemaEnumValue enum_cuda_dev_mem_event_oper[] = {
  { 0, "CUDA_DEV_MEM_EVENT_OPR_ALLOCATION", "Allocation" },
  { 1, "CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION", "Deallocation" },
};
static const SlSchemaEnumValue enum_cupti_overhead_type[] = {
  { 0, "OVERHEAD_UNDEFINED", "Undefined" },
  { 1, "OVERHEAD_UNKNOWN", "Unknown" },
  { 2, "OVERHEAD_DRIVER_COMPILER", "Driver JIT compiler (CUDA)" },
  { 3, "OVERHEAD_CUPTI_BUFFER_FLUSH", "Buffer flush (Profiler)" },
  { 4, "OVERHEAD_CUPTI_INSTRUMENTATION", "Instrumentation (Profiler)" },
  { 5, "OVERHEAD_CUPTI_RESOURCE", "Resource creation/destruction (Profiler)" },
  { 6, "OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING", "Runtime module loading (CUDA)" },
  { 7, "OVERHEAD_LAZY_FUNCTION_LOADING", "Lazy function loading (CUDA)" },
  { 8, "OVERHEAD_COMMAND_BUFFER_FULL", "Command buffer full (CUDA)" },
};
static const SlSchemaEnumValue enum_sampling_thread_state[] = {
  { 0, "Unknown", "Unknown" },
  { 1, "Running", "Running" },
  { 2, "Interruptible", "Interruptible" },
  { 3, "Uninterruptible", "Uninterruptible" },
  { 4, "Stopped", "Stopped" },
  { 5, "Terminated", "Terminated" },
  { 6, "Unscheduled", "Unscheduled" },
  { 7, "Waiting", "Waiting" },
  { 8, "OSRuntime", "OS runtime" },
  { 9, "Initialized", "Initialized" },
  { 10, "Transition", "Transition" },
};
/* As nsys 3.16+ writes it (SCHED_EVENTS.threadBlock); names and labels are the same. */
static const SlSchemaEnumValue enum_scheduling_thread_block[] = {
  { 0, "NonBlocked", "NonBlocked" }, { 1, "Unknown", "Unknown" }, { 2, "SigSuspend", "SigSuspend" },
  { 3, "Stopped", "Stopped" }, { 4, "Nanosleep", "Nanosleep" }, { 5, "Intr", "Intr" },
  { 6, "Mutex", "Mutex" }, { 7, "CondVar", "CondVar" }, { 8, "Sem", "Sem" }, { 9, "Join", "Join" },
  { 10, "SigWaitInfo", "SigWaitInfo" }, { 11, "WaitCtx", "WaitCtx" }, { 12, "Send", "Send" },
  { 13, "Receive", "Receive" }, { 14, "Reply", "Reply" }, { 15, "Stack", "Stack" },
  { 16, "WaitThread", "WaitThread" }, { 17, "WaitPage", "WaitPage" }, { 18, "NetSend", "NetSend" },
  { 19, "NetReply", "NetReply" }, { 20, "FreePage", "FreePage" }, { 21, "PageIn", "PageIn" },
  { 22, "PoolAllocation", "PoolAllocation" }, { 23, "DelayExecution", "DelayExecution" },
  { 24, "Suspended", "Suspended" }, { 25, "UserRequest", "UserRequest" },
  { 26, "EventPair", "EventPair" }, { 27, "Queue", "Queue" }, { 28, "LPCReceive", "LPCReceive" },
  { 29, "LPCReply", "LPCReply" }, { 30, "VirtualMemory", "VirtualMemory" },
  { 31, "PageOut", "PageOut" }, { 32, "Rendezvous", "Rendezvous" },
  { 33, "KeyedEvent", "KeyedEvent" }, { 34, "Terminated", "Terminated" },
  { 35, "ProcessInSwap", "ProcessInSwap" }, { 36, "CPURateControl", "CPURateControl" },
  { 37, "WrCalloutStack", "WrCalloutStack" }, { 38, "Kernel", "Kernel" },
  { 39, "Resource", "Resource" }, { 40, "PushLock", "PushLock" },
  { 41, "WindowsMutex", "WindowsMutex" }, { 42, "QuantumEnd", "QuantumEnd" },
  { 43, "DispatchInt", "DispatchInt" }, { 44, "Preempted", "Preempted" },
  { 45, "YieldExecution", "YieldExecution" }, { 46, "FastMutex", "FastMutex" },
  { 47, "GuardedMutex", "GuardedMutex" }, { 48, "Rundown", "Rundown" },
  { 49, "ReadyToRun", "ReadyToRun" }, { 50, "AlertByThreadId", "AlertByThreadId" },
  { 51, "DeferredPreempt", "DeferredPreempt" }, { 52, "PhysicalFault", "PhysicalFault" },
  { 53, "MqSend", "MqSend" }, { 54, "MqReceive", "MqReceive" }, { 55, "MuonMutex", "MuonMutex" },
  { 56, "Barrier", "Barrier" }, { 57, "RwlockRead", "RwlockRead" },
  { 58, "RwlockWrite", "RwlockWrite" }, { 59, "TraceBuffer", "TraceBuffer" },
  { 60, "InterruptAttachEvent", "InterruptAttachEvent" }, { 61, "TimerDelegate", "TimerDelegate" },
};
static const SlSchemaEnumValue enum_stack_unwind_method[] = {
  { 0, "Unknown", "Unknown" },
  { 1, "FramePointer", "Frame pointer" },
  { 2, "UnwindTable", "Unwind table" },
  { 3, "LR_FramePointer", "LR frame pointer" },
  { 4, "LR_UnwindTable", "LR unwind table" },
  { 5, "KernelContext", "Kernel context" },
  { 6, "DWARF_EH", "DWARF EH" },
  { 7, "DWARF_DF", "DWARF DF" },
  { 8, "LBR", "LBR" },
  { 255, "Undefined", "Undefined" },
};
static const SlSchemaEnumValue enum_diagnostic_severity_level[] = {
  { 0, "UnknownLevel", "Unknown" }, { 1, "Info", "Info" },       { 2, "Warning", "Warning" },
  { 3, "Error", "Error" },          { 4, "Verbose", "Verbose" },
};

static const SlSchemaEnum enums[] = {
  { "ENUM_CUDA_MEMCPY_OPER", enum_cuda_memcpy_oper, SL_N_ELEMENTS (enum_cuda_memcpy_oper) },
  { "ENUM_CUDA_MEM_KIND", enum_cuda_mem_kind, SL_N_ELEMENTS (enum_cuda_mem_kind) },
  { "ENUM_NSYS_EVENT_CLASS", enum_nsys_event_class, SL_N_ELEMENTS (enum_nsys_event_class) },
  { "ENUM_NSYS_EVENT_TYPE", enum_nsys_event_type, SL_N_ELEMENTS (enum_nsys_event_type) },
  { "ENUM_CUPTI_SYNC_TYPE", enum_cupti_sync_type, SL_N_ELEMENTS (enum_cupti_sync_type) },
  { "ENUM_CUDA_KERNEL_LAUNCH_TYPE", enum_cuda_kernel_launch_type,
    SL_N_ELEMENTS (enum_cuda_kernel_launch_type) },
  { "ENUM_CUPTI_STREAM_TYPE", enum_cupti_stream_type, SL_N_ELEMENTS (enum_cupti_stream_type) },
  { "ENUM_CUDA_FUNC_CACHE_CONFIG", enum_cuda_func_cache_config,
    SL_N_ELEMENTS (enum_cuda_func_cache_config) },
  { "ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG", enum_cuda_shared_mem_limit_config,
    SL_N_ELEMENTS (enum_cuda_shared_mem_limit_config) },
  { "ENUM_CUDA_UNIF_MEM_MIGRATION", enum_cuda_unif_mem_migration,
    SL_N_ELEMENTS (enum_cuda_unif_mem_migration) },
  { "ENUM_CUDA_UNIF_MEM_ACCESS_TYPE", enum_cuda_unif_mem_access_type,
    SL_N_ELEMENTS (enum_cuda_unif_mem_access_type) },
  { "ENUM_CUDA_DEV_MEM_EVENT_OPER", enum_cuda_dev_mem_event_oper,
    SL_N_ELEMENTS (enum_cuda_dev_mem_event_oper) },
  { "ENUM_CUPTI_OVERHEAD_TYPE", enum_cupti_overhead_type,
    SL_N_ELEMENTS (enum_cupti_overhead_type) },
  { "ENUM_SAMPLING_THREAD_STATE", enum_sampling_thread_state,
    SL_N_ELEMENTS (enum_sampling_thread_state) },
  { "ENUM_SCHEDULING_THREAD_BLOCK", enum_scheduling_thread_block,
    SL_N_ELEMENTS (enum_scheduling_thread_block) },
  { "ENUM_STACK_UNWIND_METHOD", enum_stack_unwind_method,
    SL_N_ELEMENTS (enum_stack_unwind_method) },
  { "ENUM_DIAGNOSTIC_SEVERITY_LEVEL", enum_diagnostic_severity_level,
    SL_N_ELEMENTS (enum_diagnostic_severity_level) },
};

static const char enum_table_sql[] =
    "CREATE TABLE %s (\n"
    "  id                               INTEGER  NOT NULL PRIMARY KEY,\n"
    "  name                             TEXT,\n"
    "  label                            TEXT\n"
    ")";

static const char *const gpu_metric_names[SL_GPU_METRIC_N] = {
  [SL_GPU_METRIC_GPC_CLOCK] = "GPC Clock Frequency [MHz]",
  [SL_GPU_METRIC_SYS_CLOCK] = "SYS Clock Frequency [MHz]",
  [SL_GPU_METRIC_GR_ACTIVE] = "GR Active [Throughput %]",
  [SL_GPU_METRIC_SYNC_COMPUTE] = "Sync Compute in Flight [Throughput %]",
  [SL_GPU_METRIC_ASYNC_COMPUTE] = "Async Compute in Flight [Throughput %]",
  [SL_GPU_METRIC_SMS_ACTIVE] = "SMs Active [Throughput %]",
  [SL_GPU_METRIC_SM_ISSUE] = "SM Issue [Throughput %]",
  [SL_GPU_METRIC_TENSOR_ACTIVE] = "Tensor Active [Throughput %]",
  [SL_GPU_METRIC_WARPS_IN_FLIGHT] = "Compute Warps in Flight [Throughput %]",
  [SL_GPU_METRIC_UNALLOCATED_WARPS] = "Unallocated Warps in Active SMs [Throughput %]",
  [SL_GPU_METRIC_DRAM_READ] = "DRAM Read Bandwidth [Throughput %]",
  [SL_GPU_METRIC_DRAM_WRITE] = "DRAM Write Bandwidth [Throughput %]",
  [SL_GPU_METRIC_PCIE_RX] = "PCIe RX Throughput [Throughput %]",
  [SL_GPU_METRIC_PCIE_TX] = "PCIe TX Throughput [Throughput %]",
  [SL_GPU_METRIC_PCIE_BAR1_READS] = "PCIe Read Requests to BAR1 [Requests]",
  [SL_GPU_METRIC_PCIE_BAR1_WRITES] = "PCIe Write Requests to BAR1 [Requests]",
  [SL_GPU_METRIC_NVLINK_RX] = "NVLink RX Responses User Data [Throughput %]",
  [SL_GPU_METRIC_NVLINK_TX] = "NVLink TX Responses User Data [Throughput %]",
};

const char *
sl_schema_gpu_metric_name (unsigned id)
{
  return id < SL_GPU_METRIC_N ? gpu_metric_names[id] : NULL;
}

const SlSchemaTable *
sl_schema_get_tables (size_t *n_tables)
{
  if (n_tables != NULL)
    *n_tables = SL_N_ELEMENTS (tables);
  return tables;
}

const SlSchemaEnum *
sl_schema_get_enums (size_t *n_enums)
{
  if (n_enums != NULL)
    *n_enums = SL_N_ELEMENTS (enums);
  return enums;
}

static bool
set_error (sqlite3 *db, char **errmsg, const char *what)
{
  if (errmsg != NULL)
    *errmsg = sqlite3_mprintf ("%s: %s", what, sqlite3_errmsg (db));
  return false;
}

static bool
exec_sql (sqlite3 *db, const char *sql, char **errmsg)
{
  char *msg = NULL;

  if (sqlite3_exec (db, sql, NULL, NULL, &msg) != SQLITE_OK)
    {
      if (errmsg != NULL)
        *errmsg = sqlite3_mprintf ("%s", msg != NULL ? msg : sqlite3_errmsg (db));
      sqlite3_free (msg);
      return false;
    }
  return true;
}

bool
sl_schema_add_meta (
    sqlite3 *db, const char *table, const char *name, const char *value, char **errmsg)
{
  sqlite3_stmt *stmt = NULL;
  char sql[128];
  bool ok;

  if (db == NULL || table == NULL || name == NULL ||
      (strcmp (table, "META_DATA_EXPORT") != 0 && strcmp (table, "META_DATA_CAPTURE") != 0))
    {
      if (errmsg != NULL)
        *errmsg = sqlite3_mprintf ("sl_schema_add_meta: bad arguments");
      return false;
    }
  snprintf (sql, sizeof sql, "INSERT INTO %s (name, value) VALUES (?, ?)", table);
  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
    return set_error (db, errmsg, table);
  sqlite3_bind_text (stmt, 1, name, -1, SQLITE_STATIC);
  if (value != NULL)
    sqlite3_bind_text (stmt, 2, value, -1, SQLITE_STATIC);
  ok = sqlite3_step (stmt) == SQLITE_DONE;
  if (!ok)
    set_error (db, errmsg, table);
  sqlite3_finalize (stmt);
  return ok;
}

static bool
create_enums (sqlite3 *db, char **errmsg)
{
  for (size_t i = 0; i < SL_N_ELEMENTS (enums); i++)
    {
      const SlSchemaEnum *e = &enums[i];
      sqlite3_stmt *stmt = NULL;
      char sql[512];

      snprintf (sql, sizeof sql, enum_table_sql, e->table);
      if (!exec_sql (db, sql, errmsg))
        return false;
      snprintf (sql, sizeof sql, "INSERT INTO %s (id, name, label) VALUES (?, ?, ?)", e->table);
      if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
        return set_error (db, errmsg, e->table);
      for (size_t j = 0; j < e->n_values; j++)
        {
          sqlite3_bind_int64 (stmt, 1, e->values[j].id);
          sqlite3_bind_text (stmt, 2, e->values[j].name, -1, SQLITE_STATIC);
          sqlite3_bind_text (stmt, 3, e->values[j].label, -1, SQLITE_STATIC);
          if (sqlite3_step (stmt) != SQLITE_DONE)
            {
              set_error (db, errmsg, e->table);
              sqlite3_finalize (stmt);
              return false;
            }
          sqlite3_reset (stmt);
        }
      sqlite3_finalize (stmt);
    }
  return true;
}

static bool
add_export_meta (sqlite3 *db, char **errmsg)
{
  char major[16], minor[16], micro[16];
  const struct
  {
    const char *name;
    const char *value;
  } rows[] = {
    { "EXPORT_PRODUCT_NAME", SL_SCHEMA_PRODUCT_NAME },
    { "EXPORT_PRODUCT_VERSION", SL_SCHEMA_PRODUCT_VERSION },
    { "EXPORT_SCHEMA_VERSION", SL_SCHEMA_VERSION },
    { "EXPORT_SCHEMA_VERSION_MAJOR", major },
    { "EXPORT_SCHEMA_VERSION_MINOR", minor },
    { "EXPORT_SCHEMA_VERSION_MICRO", micro },
    { "EXPORT_PLATFORM", "linux-desktop" },
#if defined(__x86_64__)
    { "EXPORT_ARCH", "x64" },
#elif defined(__aarch64__)
    { "EXPORT_ARCH", "arm64" },
#else
    { "EXPORT_ARCH", "unknown" },
#endif
    { "EXPORT_PARAM_EXPORT_TYPE", "SQLite" },
  };

  snprintf (major, sizeof major, "%d", SL_SCHEMA_VERSION_MAJOR);
  snprintf (minor, sizeof minor, "%d", SL_SCHEMA_VERSION_MINOR);
  snprintf (micro, sizeof micro, "%d", SL_SCHEMA_VERSION_MICRO);
  for (size_t i = 0; i < SL_N_ELEMENTS (rows); i++)
    if (!sl_schema_add_meta (db, "META_DATA_EXPORT", rows[i].name, rows[i].value, errmsg))
      return false;
  return true;
}

#define MPI_EVENT_COLUMNS "start INTEGER NOT NULL, end INTEGER, globalTid INTEGER, textId INTEGER"

const char *const sl_schema_mpi_sql[SL_SCHEMA_N_MPI_TABLES] = {
  "CREATE TABLE IF NOT EXISTS MPI_P2P_EVENTS (" MPI_EVENT_COLUMNS ", commHandle INTEGER, "
  "tag INTEGER, remoteRank INTEGER, size INTEGER, requestHandle INTEGER)",
  "CREATE TABLE IF NOT EXISTS MPI_COLLECTIVES_EVENTS (" MPI_EVENT_COLUMNS ", commHandle INTEGER, "
  "rootRank INTEGER, size INTEGER, recvSize INTEGER, requestHandle INTEGER)",
  "CREATE TABLE IF NOT EXISTS MPI_START_WAIT_EVENTS (" MPI_EVENT_COLUMNS ", requestHandle "
  "INTEGER)",
  "CREATE TABLE IF NOT EXISTS MPI_OTHER_EVENTS (" MPI_EVENT_COLUMNS ")",
  "CREATE TABLE IF NOT EXISTS MPI_RANKS (globalTid INTEGER NOT NULL, rank INTEGER NOT NULL)",
  "CREATE TABLE IF NOT EXISTS MPI_COMMUNICATORS (rank INTEGER, timestamp INTEGER, commHandle "
  "INTEGER, parentHandle INTEGER, localRank INTEGER, size INTEGER, groupRoot INTEGER, "
  "groupRootUid INTEGER, members TEXT, commUid INTEGER)",
};

bool
sl_schema_create (sqlite3 *db, char **errmsg)
{
  bool ok = true;

  if (errmsg != NULL)
    *errmsg = NULL;
  if (db == NULL)
    {
      if (errmsg != NULL)
        *errmsg = sqlite3_mprintf ("sl_schema_create: no database");
      return false;
    }
  if (!exec_sql (db, "SAVEPOINT sl_schema_create", errmsg))
    return false;
  for (size_t i = 0; ok && i < SL_N_ELEMENTS (tables); i++)
    ok = exec_sql (db, tables[i].sql, errmsg);
  ok = ok && create_enums (db, errmsg);
  ok = ok && add_export_meta (db, errmsg);
  if (ok)
    return exec_sql (db, "RELEASE sl_schema_create", errmsg);
  sqlite3_exec (db, "ROLLBACK TO sl_schema_create; RELEASE sl_schema_create", NULL, NULL, NULL);
  return false;
}
