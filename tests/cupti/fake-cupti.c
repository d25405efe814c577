/* fake-cupti.c: libsl-fake-cupti.so, a test double of libcupti.so for machines without a GPU.
 *
 * The injection library opens CUPTI with dlopen ($SIGHTLINE_CUPTI names this file) and calls it
 * as it calls the real one: it registers its buffer callbacks and timestamp callback, enables
 * activity kinds, subscribes to API callbacks, flushes, and walks completed buffers with
 * cuptiActivityGetNextRecord.  This double answers every one of those entry points, and exports
 * a fake CUDA (fake-cupti.h) that a test program calls; each fake call does what CUPTI does
 * around a real one: API enter/exit callbacks to the subscriber, an API activity record, and the
 * GPU side's records (kernel, copy, set, synchronization, CUDA event, graph launch) in CUDA's own
 * structs, the versions CUDA 13's CUPTI writes and the injection library reads.
 *
 * Time: a simulated GPU.  Each stream has a "busy until"; work starts when the host asks for it
 * (plus a launch latency) or when the stream's earlier work ends, whichever is later; a
 * synchronizing call sleeps until the work it waits for has ended.  All times come from the
 * client's timestamp callback when it registered one (as CUPTI's do), else from
 * CLOCK_MONOTONIC_RAW.
 *
 * Buffers: one at a time, asked of the client when the first record comes and handed back when
 * full or flushed (on the thread that made the record or called cuptiActivityFlushAll: CUPTI
 * uses a worker thread for full buffers, a test needs no more than one 8 MiB buffer).  A few
 * hundred records per test program; nothing here is fast, all of it is checked.
 *
 * What a test asks of it by environment variables (read in the recorded program):
 *   FAKE_CUPTI_VERSION=N       cuptiGetVersion says N, and the buffers hold the record versions
 *                              that CUPTI writes: below 26 (CUDA 12.8) CUpti_ActivityCudaEvent
 *                              and CUpti_ActivitySynchronization, below 18 (CUDA 11.8)
 *                              CUpti_ActivityKernel7 (each the newer one's first bytes)
 *   FAKE_CUPTI_NO_GRAPH_TRACE=1  cuptiActivityEnable(GRAPH_TRACE) fails (CUPTI_ERROR_NOT_SUPPORTED)
 *   FAKE_CUPTI_SUBSCRIBED=1    another subscriber came first: cuptiSubscribe fails with
 *                              CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
 *   FAKE_CUPTI_GRAPH_REPEAT=N  each cudaGraphLaunch launches the graph N times
 *   FAKE_CUPTI_NO_UM=1         cuptiActivityConfigureUnifiedMemoryCounter fails
 *                              (CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED, as in a VM or under MPS)
 *   FAKE_CUPTI_PM_PRIVILEGES=1  PM sampling refused for want of privileges (see "PM sampling")
 *
 * Memory (CUPTI_ACTIVITY_KIND_MEMORY2): cudaMalloc, cudaMallocManaged and cudaFree make an
 * allocation or release record inside their call, with its correlation id.  Unified memory
 * (CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER, the counters configured): managed memory is kept
 * in FAKE_UM_PAGE pages, each untouched, on the host or on the GPU; a touch from the side that
 * does not hold a page faults (a CPU fault record, or a GPU fault group of FAKE_UM_GPU_FAULTS) and
 * migrates it (a transfer record, cause "coherence") unless it was untouched; a prefetch migrates
 * without a fault (cause "user"). */
#include <cupti.h> /* with the API callbacks' parameter structs (generated_cuda_*meta.h) */
#include <cupti_activity_deprecated.h> /* the older record versions (FAKE_CUPTI_VERSION) */
#include <cupti_pmsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include "sl-inject-cupti-host.h" /* the profiler host API, declared for C */

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake-cupti.h"

#define EXPORT __attribute__ ((visibility ("default")))

#define FAKE_CONTEXT       1u
#define FAKE_DEVICE        0u
#define FAKE_NULL_STREAM   7u   /* the legacy default stream's id in real traces */
#define FAKE_LATENCY_NS    3000 /* host call to GPU start */
#define FAKE_MAX_NODES     16
#define FAKE_MAX_STREAMS   64
#define FAKE_INVALID       CUPTI_SYNCHRONIZATION_INVALID_VALUE
#define FAKE_UM_PAGE       65536 /* managed memory's unit of migration and fault */
#define FAKE_UM_GPU_FAULTS 3     /* faults a GPU fault group counts */
#define FAKE_MAX_ALLOCS    64
#define FAKE_MAX_UM_PAGES  64

/* The fields the injection library reads from MEMORY2 and UNIFIED_MEMORY_COUNTER records are at
 * the same offsets in every version CUPTI writes (sl-inject-cupti.c reads the newest struct
 * without a version gate). */
#define SAME_OFFSET(a, b, field)                                                                   \
  _Static_assert (offsetof (a, field) == offsetof (b, field), #field " moved")
SAME_OFFSET (CUpti_ActivityMemory2, CUpti_ActivityMemory4, memoryOperationType);
SAME_OFFSET (CUpti_ActivityMemory2, CUpti_ActivityMemory4, memoryKind);
SAME_OFFSET (CUpti_ActivityMemory2, CUpti_ActivityMemory4, correlationId);
SAME_OFFSET (CUpti_ActivityMemory2, CUpti_ActivityMemory4, address);
SAME_OFFSET (CUpti_ActivityMemory2, CUpti_ActivityMemory4, bytes);
SAME_OFFSET (CUpti_ActivityMemory2, CUpti_ActivityMemory4, timestamp);
SAME_OFFSET (CUpti_ActivityMemory2, CUpti_ActivityMemory4, PC);
SAME_OFFSET (CUpti_ActivityMemory2, CUpti_ActivityMemory4, deviceId);
SAME_OFFSET (CUpti_ActivityMemory2, CUpti_ActivityMemory4, contextId);
SAME_OFFSET (CUpti_ActivityMemory2, CUpti_ActivityMemory4, name);
SAME_OFFSET (CUpti_ActivityMemory3, CUpti_ActivityMemory4, name);
SAME_OFFSET (CUpti_ActivityUnifiedMemoryCounter2, CUpti_ActivityUnifiedMemoryCounter3,
             counterKind);
SAME_OFFSET (CUpti_ActivityUnifiedMemoryCounter2, CUpti_ActivityUnifiedMemoryCounter3, value);
SAME_OFFSET (CUpti_ActivityUnifiedMemoryCounter2, CUpti_ActivityUnifiedMemoryCounter3, start);
SAME_OFFSET (CUpti_ActivityUnifiedMemoryCounter2, CUpti_ActivityUnifiedMemoryCounter3, end);
SAME_OFFSET (CUpti_ActivityUnifiedMemoryCounter2, CUpti_ActivityUnifiedMemoryCounter3, address);
SAME_OFFSET (CUpti_ActivityUnifiedMemoryCounter2, CUpti_ActivityUnifiedMemoryCounter3, srcId);
SAME_OFFSET (CUpti_ActivityUnifiedMemoryCounter2, CUpti_ActivityUnifiedMemoryCounter3, dstId);
SAME_OFFSET (CUpti_ActivityUnifiedMemoryCounter2, CUpti_ActivityUnifiedMemoryCounter3, flags);
#undef SAME_OFFSET

struct _FakeStream
{
  uint32_t id;
  uint64_t busy_until;
  FakeGraph *capturing;
};

struct _FakeEvent
{
  uint32_t id;
  uint64_t done_at;  /* when the work before its last record ends */
  uint64_t sync_id;  /* its last record's cudaEventSyncId */
  bool recorded;
};

typedef struct
{
  const char *name;
  uint32_t grid, block;
  uint64_t gpu_ns;
  uint64_t node_id;
} FakeNode;

struct _FakeGraph
{
  uint32_t id;
  FakeNode nodes[FAKE_MAX_NODES];
  unsigned n_nodes;
};

struct _FakeGraphExec
{
  uint32_t id;
  FakeGraph *graph;
};

static struct
{
  pthread_mutex_t lock; /* the buffer, the ids and the streams' times */
  CUpti_BuffersCallbackRequestFunc requested;
  CUpti_BuffersCallbackCompleteFunc completed;
  CUpti_TimestampCallbackFunc timestamp;
  bool enabled[CUPTI_ACTIVITY_KIND_COUNT];
  bool system_tids;
  uint8_t *buffer;
  size_t size, used;
  size_t dropped;

  /* the one subscriber CUPTI allows */
  bool subscribed;
  CUpti_CallbackFunc callback;
  void *userdata;
  bool domains[CUPTI_CB_DOMAIN_SIZE];
  bool runtime_cbids[CUPTI_RUNTIME_TRACE_CBID_SIZE];
  bool driver_cbids[CUPTI_DRIVER_TRACE_CBID_SIZE];

  uint32_t next_correlation;
  uint32_t next_stream, next_event, next_graph, next_exec;
  uint64_t next_node, next_sync_id;
  uint32_t next_grid;
  FakeStream null_stream;
  FakeStream *streams[FAKE_MAX_STREAMS]; /* created ones, for cudaDeviceSynchronize */
  unsigned n_streams;
  bool initialized;

  /* memory: what cudaFree is told about an address; managed pages' places */
  struct
  {
    uint64_t address, bytes;
    CUpti_ActivityMemoryKind kind;
  } allocs[FAKE_MAX_ALLOCS];
  unsigned n_allocs;
  struct
  {
    uint64_t address;
    enum { FAKE_UNTOUCHED, FAKE_ON_HOST, FAKE_ON_GPU } where;
  } um_pages[FAKE_MAX_UM_PAGES];
  unsigned n_um_pages;
  bool um_counters[CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_COUNT];
} f = {
  .lock = PTHREAD_MUTEX_INITIALIZER,
  .next_stream = 13, /* real CUPTI's first created stream, after the NULL stream's 7 */
  .next_event = 1,
  .next_graph = 1,
  .next_exec = 1,
  .next_node = UINT64_C (0x100000001),
  .next_sync_id = 1,
  .null_stream = { .id = FAKE_NULL_STREAM },
};

/* ---- CUPTI's names for the callbacks this fake makes ---------------------------------------- */

#define RT(x) { CUPTI_RUNTIME_TRACE_CBID_##x, #x }
#define DRV(x) { CUPTI_DRIVER_TRACE_CBID_##x, #x }
static const struct
{
  CUpti_CallbackId cbid;
  const char *name;
} runtime_names[] = {
  RT (cudaMalloc_v3020),
  RT (cudaFree_v3020),
  RT (cudaMallocManaged_v6000),
  RT (cudaMemPrefetchAsync_v8000),
  RT (cudaMemcpy_v3020),
  RT (cudaMemsetAsync_v3020),
  RT (cudaStreamCreate_v3020),
  RT (cudaStreamSynchronize_v3020),
  RT (cudaEventCreate_v3020),
  RT (cudaEventRecord_v3020),
  RT (cudaEventSynchronize_v3020),
  RT (cudaStreamWaitEvent_v3020),
  RT (cudaDeviceSynchronize_v3020),
  RT (cudaLaunchKernel_v7000),
  RT (cudaGraphInstantiate_v10000),
  RT (cudaGraphLaunch_v10000),
  RT (cudaStreamBeginCapture_v10000),
  RT (cudaStreamEndCapture_v10000),
  RT (cudaProfilerStart_v4000),
  RT (cudaProfilerStop_v4000),
}, driver_names[] = {
  DRV (cuLaunchKernel),
  DRV (cuGraphLaunch),
};
#undef RT
#undef DRV

/* ---- time ----------------------------------------------------------------------------------- */

static uint64_t
now (void)
{
  struct timespec ts;

  if (f.timestamp != NULL)
    return f.timestamp ();
  clock_gettime (CLOCK_MONOTONIC_RAW, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* The host waits for the GPU: sleeps until now() reaches `t` (tens of µs in the tests). */
static void
wait_until (uint64_t t)
{
  for (uint64_t n = now (); n < t; n = now ())
    {
      uint64_t left = t - n < 1000000 ? t - n : 1000000;
      struct timespec ts = { 0, (long) left };
      nanosleep (&ts, NULL);
    }
}

/* When work of `gpu_ns` asked for at `t` on `s` runs: after the stream's earlier work. */
static void
schedule (FakeStream *s,
          uint64_t    t,
          uint64_t    gpu_ns,
          uint64_t   *start,
          uint64_t   *end)
{
  uint64_t at = t + FAKE_LATENCY_NS;

  *start = at > s->busy_until ? at : s->busy_until;
  *end = *start + gpu_ns;
  s->busy_until = *end;
}

static FakeStream *
stream_or_null (FakeStream *s)
{
  return s != NULL ? s : &f.null_stream;
}

/* ---- what the test asked for ----------------------------------------------------------------- */

static long
env_number (const char *name,
            long        fallback)
{
  const char *v = getenv (name);

  return v != NULL && *v != '\0' ? strtol (v, NULL, 10) : fallback;
}

/* The API version this CUPTI claims (FAKE_CUPTI_VERSION), CUDA 13's by default. */
static uint32_t
fake_version (void)
{
  static uint32_t version;

  if (version == 0)
    version = (uint32_t) env_number ("FAKE_CUPTI_VERSION", CUPTI_API_VERSION);
  return version;
}

/* ---- activity buffers ----------------------------------------------------------------------- */

/* The size CUPTI gives a record of `kind` in its buffers (and walks by); 0 for kinds this fake
 * never writes.  An older CUPTI's records are its older structs: the newer ones' first bytes
 * (their common fields have the same offsets), so a record built in the newest struct is copied
 * short. */
static size_t
record_size (CUpti_ActivityKind kind)
{
  uint32_t v = fake_version ();

  switch (kind)
    {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      if (v < 18)
        return sizeof (CUpti_ActivityKernel7);
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      if (v < 26)
        return sizeof (CUpti_ActivitySynchronization);
      break;
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      if (v < 26)
        return sizeof (CUpti_ActivityCudaEvent);
      break;
    default:
      break;
    }
  switch (kind)
    {
    case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof (CUpti_ActivityDevice5);
    case CUPTI_ACTIVITY_KIND_CONTEXT: return sizeof (CUpti_ActivityContext3);
    case CUPTI_ACTIVITY_KIND_STREAM: return sizeof (CUpti_ActivityStream);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof (CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof (CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof (CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof (CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof (CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof (CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: return sizeof (CUpti_ActivityCudaEvent2);
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: return sizeof (CUpti_ActivityGraphTrace2);
    case CUPTI_ACTIVITY_KIND_MEMORY2: return sizeof (CUpti_ActivityMemory4);
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER:
      return sizeof (CUpti_ActivityUnifiedMemoryCounter3);
    default: return 0;
    }
}

static size_t
aligned (size_t n)
{
  return (n + 7) & ~(size_t) 7;
}

/* Appends a record to the current buffer when its kind is enabled; called with f.lock held.  A
 * full buffer is returned in *full for the caller to complete once the lock is released. */
static void
queue_locked (const CUpti_Activity *rec,
              uint8_t             **full,
              size_t               *full_size,
              size_t               *full_used)
{
  size_t n = aligned (record_size (rec->kind));

  if (n == 0 || rec->kind >= CUPTI_ACTIVITY_KIND_COUNT || !f.enabled[rec->kind])
    return;
  if (f.buffer != NULL && f.used + n > f.size)
    {
      *full = f.buffer;
      *full_size = f.size;
      *full_used = f.used;
      f.buffer = NULL;
    }
  if (f.buffer == NULL && f.requested != NULL)
    {
      size_t max_records = 0;
      f.requested (&f.buffer, &f.size, &max_records);
      f.used = 0;
      if (f.buffer != NULL && f.size < n)
        f.buffer = NULL; /* the client's to free: CUPTI cannot use it either */
    }
  if (f.buffer == NULL)
    {
      f.dropped++;
      return;
    }
  memcpy (f.buffer + f.used, rec, record_size (rec->kind));
  memset (f.buffer + f.used + record_size (rec->kind), 0, n - record_size (rec->kind));
  f.used += n;
}

static void
complete (uint8_t *buffer,
          size_t   size,
          size_t   used)
{
  if (buffer != NULL && f.completed != NULL)
    f.completed (NULL, 0, buffer, size, used);
}

/* Queues one record (takes the lock). */
static void
queue (const void *rec)
{
  uint8_t *full = NULL;
  size_t full_size = 0, full_used = 0;

  pthread_mutex_lock (&f.lock);
  queue_locked (rec, &full, &full_size, &full_used);
  pthread_mutex_unlock (&f.lock);
  complete (full, full_size, full_used);
}

/* ---- API calls: callbacks and API records ---------------------------------------------------- */

typedef struct
{
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  const char *name;
  const void *params;
  uint32_t correlation;
  uint64_t start;
  uint64_t correlation_data;
  int result;
} FakeCall;

static bool
callback_on (CUpti_CallbackDomain domain,
             CUpti_CallbackId     cbid)
{
  if (!f.subscribed || f.callback == NULL || domain >= CUPTI_CB_DOMAIN_SIZE)
    return false;
  if (f.domains[domain])
    return true;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
    return f.runtime_cbids[cbid];
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
    return f.driver_cbids[cbid];
  return false;
}

static void
fire (FakeCall              *c,
      CUpti_ApiCallbackSite  site)
{
  CUpti_CallbackData data;

  if (!callback_on (c->domain, c->cbid))
    return;
  memset (&data, 0, sizeof data);
  data.callbackSite = site;
  data.functionName = c->name;
  data.functionParams = c->params;
  data.functionReturnValue = &c->result;
  data.context = (CUcontext) &f.null_stream; /* any non-NULL handle: one context */
  data.contextUid = FAKE_CONTEXT;
  data.correlationData = &c->correlation_data;
  data.correlationId = c->correlation;
  f.callback (f.userdata, c->domain, c->cbid, &data);
}

static const char *
callback_name (CUpti_CallbackDomain domain,
               CUpti_CallbackId     cbid)
{
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    {
      for (size_t i = 0; i < sizeof runtime_names / sizeof runtime_names[0]; i++)
        if (runtime_names[i].cbid == cbid)
          return runtime_names[i].name;
    }
  else if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
    {
      for (size_t i = 0; i < sizeof driver_names / sizeof driver_names[0]; i++)
        if (driver_names[i].cbid == cbid)
          return driver_names[i].name;
    }
  return NULL;
}

static void
call_begin (FakeCall             *c,
            CUpti_CallbackDomain  domain,
            CUpti_CallbackId      cbid,
            const void           *params)
{
  memset (c, 0, sizeof *c);
  c->domain = domain;
  c->cbid = cbid;
  c->name = callback_name (domain, cbid);
  c->params = params;
  pthread_mutex_lock (&f.lock);
  c->correlation = ++f.next_correlation;
  pthread_mutex_unlock (&f.lock);
  c->start = now ();
  fire (c, CUPTI_API_ENTER);
}

static void
call_end (FakeCall *c)
{
  CUpti_ActivityAPI a;

  fire (c, CUPTI_API_EXIT);
  memset (&a, 0, sizeof a);
  a.kind = c->domain == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_ACTIVITY_KIND_RUNTIME
                                                     : CUPTI_ACTIVITY_KIND_DRIVER;
  a.cbid = c->cbid;
  a.start = c->start;
  a.end = now ();
  a.processId = (uint32_t) getpid ();
  a.threadId = f.system_tids ? (uint32_t) syscall (SYS_gettid) : (uint32_t) pthread_self ();
  a.correlationId = c->correlation;
  a.returnValue = (uint32_t) c->result;
  queue (&a);
}

/* ---- GPU-side records ----------------------------------------------------------------------- */

static void
queue_kernel (const char *name,
              uint32_t    grid,
              uint32_t    block,
              uint64_t    start,
              uint64_t    end,
              uint32_t    stream,
              uint32_t    correlation,
              uint32_t    graph_id,
              uint64_t    node_id)
{
  CUpti_ActivityKernel10 k;

  memset (&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.cacheConfig.config.requested = 0;
  k.cacheConfig.config.executed = 0;
  k.registersPerThread = 32;
  k.start = start;
  k.end = end;
  k.completed = end;
  k.deviceId = FAKE_DEVICE;
  k.contextId = FAKE_CONTEXT;
  k.streamId = stream;
  k.gridX = (int32_t) grid;
  k.gridY = 1;
  k.gridZ = 1;
  k.blockX = (int32_t) block;
  k.blockY = 1;
  k.blockZ = 1;
  k.staticSharedMemory = 0;
  k.dynamicSharedMemory = 0;
  k.localMemoryPerThread = 0;
  k.localMemoryTotal = 0;
  k.correlationId = correlation;
  k.name = name;
  k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
  k.sharedMemoryExecuted = 0;
  k.graphNodeId = node_id;
  k.graphId = graph_id;
  k.clusterX = k.clusterY = k.clusterZ = 1;
  pthread_mutex_lock (&f.lock);
  k.gridId = (int64_t) ++f.next_grid;
  pthread_mutex_unlock (&f.lock);
  queue (&k);
}

static void
queue_sync (CUpti_ActivitySynchronizationType type,
            const FakeCall                   *c,
            uint64_t                          end,
            uint32_t                          stream,
            const FakeEvent                  *event)
{
  CUpti_ActivitySynchronization2 s;

  memset (&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = type;
  s.start = c->start;
  s.end = end;
  s.correlationId = c->correlation;
  s.contextId = FAKE_CONTEXT;
  s.streamId = stream;
  s.cudaEventId = event != NULL ? event->id : FAKE_INVALID;
  s.cudaEventSyncId = event != NULL ? event->sync_id : FAKE_INVALID;
  queue (&s);
}

static void
queue_stream (uint32_t id,
              uint32_t flag)
{
  CUpti_ActivityStream s;

  memset (&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_STREAM;
  s.contextId = FAKE_CONTEXT;
  s.streamId = id;
  s.priority = 0;
  s.flag = (CUpti_ActivityStreamFlag) flag;
  queue (&s);
}

/* ---- the CUPTI entry points ----------------------------------------------------------------- */

EXPORT CUptiResult CUPTIAPI
cuptiGetResultString (CUptiResult  result,
                      const char **str)
{
  if (str == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  switch (result)
    {
    case CUPTI_SUCCESS: *str = "CUPTI_SUCCESS"; break;
    case CUPTI_ERROR_INVALID_PARAMETER: *str = "CUPTI_ERROR_INVALID_PARAMETER"; break;
    case CUPTI_ERROR_INVALID_KIND: *str = "CUPTI_ERROR_INVALID_KIND"; break;
    case CUPTI_ERROR_MAX_LIMIT_REACHED: *str = "CUPTI_ERROR_MAX_LIMIT_REACHED"; break;
    case CUPTI_ERROR_NOT_SUPPORTED: *str = "CUPTI_ERROR_NOT_SUPPORTED"; break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      *str = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
      break;
    case CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED:
      *str = "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED";
      break;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      *str = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
      break;
    default: *str = "CUPTI_ERROR_UNKNOWN"; break;
    }
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiGetVersion (uint32_t *version)
{
  if (version == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  *version = fake_version ();
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiGetCallbackName (CUpti_CallbackDomain domain,
                      uint32_t             cbid,
                      const char         **name)
{
  if (name == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  *name = callback_name (domain, cbid);
  return *name != NULL ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

EXPORT CUptiResult CUPTIAPI
cuptiGetTimestamp (uint64_t *timestamp)
{
  if (timestamp == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  *timestamp = now ();
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiSetThreadIdType (CUpti_ActivityThreadIdType type)
{
  f.system_tids = type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivitySetAttribute (CUpti_ActivityAttribute attr,
                           size_t                 *value_size,
                           void                   *value)
{
  (void) attr;
  return value_size != NULL && value != NULL ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityRegisterCallbacks (CUpti_BuffersCallbackRequestFunc  requested,
                                CUpti_BuffersCallbackCompleteFunc completed)
{
  if (requested == NULL || completed == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  f.requested = requested;
  f.completed = completed;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityRegisterTimestampCallback (CUpti_TimestampCallbackFunc callback)
{
  if (callback == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  f.timestamp = callback;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityEnable (CUpti_ActivityKind kind)
{
  if (kind >= CUPTI_ACTIVITY_KIND_COUNT || (record_size (kind) == 0))
    return CUPTI_ERROR_INVALID_KIND;
  if (kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE && env_number ("FAKE_CUPTI_NO_GRAPH_TRACE", 0) != 0)
    return CUPTI_ERROR_NOT_SUPPORTED;
  f.enabled[kind] = true;
  return CUPTI_SUCCESS;
}

/* Which counters UNIFIED_MEMORY_COUNTER records are made for; CUPTI wants this before the kind is
 * enabled, and refuses it where the platform cannot count (FAKE_CUPTI_NO_UM). */
EXPORT CUptiResult CUPTIAPI
cuptiActivityConfigureUnifiedMemoryCounter (CUpti_ActivityUnifiedMemoryCounterConfig *config,
                                            uint32_t                                  count)
{
  if (config == NULL || count == 0)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (f.enabled[CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER])
    return CUPTI_ERROR_INVALID_OPERATION; /* too late */
  if (env_number ("FAKE_CUPTI_NO_UM", 0) != 0)
    return CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED;
  for (uint32_t i = 0; i < count; i++)
    if (config[i].kind <= CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_UNKNOWN
        || config[i].kind >= CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_COUNT)
      return CUPTI_ERROR_INVALID_PARAMETER;
  for (uint32_t i = 0; i < count; i++)
    f.um_counters[config[i].kind] = config[i].enable != 0;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityDisable (CUpti_ActivityKind kind)
{
  if (kind >= CUPTI_ACTIVITY_KIND_COUNT)
    return CUPTI_ERROR_INVALID_KIND;
  f.enabled[kind] = false;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityEnableCudaEventDeviceTimestamps (uint8_t enable)
{
  (void) enable;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityFlushAll (uint32_t flag)
{
  uint8_t *buffer;
  size_t size, used;

  (void) flag; /* every record of this fake is complete when queued */
  pthread_mutex_lock (&f.lock);
  buffer = f.used > 0 ? f.buffer : NULL;
  size = f.size;
  used = f.used;
  if (buffer != NULL)
    {
      f.buffer = NULL;
      f.used = 0;
    }
  pthread_mutex_unlock (&f.lock);
  complete (buffer, size, used);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityGetNextRecord (uint8_t         *buffer,
                            size_t           valid_size,
                            CUpti_Activity **record)
{
  size_t at, n;

  if (buffer == NULL || record == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (*record == NULL)
    at = 0;
  else
    at = (size_t) ((uint8_t *) *record - buffer) + aligned (record_size ((*record)->kind));
  if (at >= valid_size)
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  n = aligned (record_size (((CUpti_Activity *) (buffer + at))->kind));
  if (n == 0 || at + n > valid_size)
    return CUPTI_ERROR_INVALID_KIND;
  *record = (CUpti_Activity *) (buffer + at);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiActivityGetNumDroppedRecords (CUcontext context,
                                   uint32_t  stream_id,
                                   size_t   *dropped)
{
  (void) context;
  (void) stream_id;
  if (dropped == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock (&f.lock);
  *dropped = f.dropped;
  f.dropped = 0;
  pthread_mutex_unlock (&f.lock);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiSubscribe (CUpti_SubscriberHandle *subscriber,
                CUpti_CallbackFunc      callback,
                void                   *userdata)
{
  if (subscriber == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  /* the program's own profiler (Kineto) subscribed first */
  if (f.subscribed || env_number ("FAKE_CUPTI_SUBSCRIBED", 0) != 0)
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  f.subscribed = true;
  f.callback = callback;
  f.userdata = userdata;
  *subscriber = (CUpti_SubscriberHandle) &f;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiUnsubscribe (CUpti_SubscriberHandle subscriber)
{
  if (subscriber != (CUpti_SubscriberHandle) &f || !f.subscribed)
    return CUPTI_ERROR_INVALID_PARAMETER;
  f.subscribed = false;
  f.callback = NULL;
  memset (f.domains, 0, sizeof f.domains);
  memset (f.runtime_cbids, 0, sizeof f.runtime_cbids);
  memset (f.driver_cbids, 0, sizeof f.driver_cbids);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiEnableCallback (uint32_t               enable,
                     CUpti_SubscriberHandle subscriber,
                     CUpti_CallbackDomain   domain,
                     CUpti_CallbackId       cbid)
{
  if (subscriber != (CUpti_SubscriberHandle) &f || !f.subscribed)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
    f.runtime_cbids[cbid] = enable != 0;
  else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
    f.driver_cbids[cbid] = enable != 0;
  else
    return CUPTI_ERROR_INVALID_PARAMETER;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiEnableDomain (uint32_t               enable,
                   CUpti_SubscriberHandle subscriber,
                   CUpti_CallbackDomain   domain)
{
  if (subscriber != (CUpti_SubscriberHandle) &f || !f.subscribed || domain >= CUPTI_CB_DOMAIN_SIZE)
    return CUPTI_ERROR_INVALID_PARAMETER;
  f.domains[domain] = enable != 0;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiGetGraphExecId (CUgraphExec graph_exec,
                     uint32_t   *id)
{
  if (graph_exec == NULL || id == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  *id = ((FakeGraphExec *) (void *) graph_exec)->id;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiGetGraphId (CUgraph graph,
                 uint32_t *id)
{
  if (graph == NULL || id == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  *id = ((FakeGraph *) (void *) graph)->id;
  return CUPTI_SUCCESS;
}

/* ---- PM sampling (--gpu-metrics) ------------------------------------------------------------
 *
 * The fake GPU (device 0, a "GH100"; no device 1) offers a few of the metrics the injection
 * library asks for (pm_metrics: one where the library's first choice is missing, so that it
 * falls back to its second) and refuses the rest, as a chip without them does.  Once started,
 * it "samples" FAKE_PM_SAMPLES hand-built samples (pm_value: known values, one of them NaN), one
 * every sampling interval after Start, on CLOCK_REALTIME as a GPU's global timer is; a sample
 * exists once its end has passed (or Stop came after it).  A counter data image holds at most
 * FAKE_PM_IMAGE samples whatever size was asked: decoding fills it and says so
 * (COUNTER_DATA_FULL), as a real one does when the program outruns the reader.
 *
 *   FAKE_CUPTI_PM_PRIVILEGES=1  cuptiPmSamplingEnable fails with
 *                               CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (counters for admins only)
 *   FAKE_CUPTI_PM_UNSUPPORTED=1 cuptiPmSamplingGetCounterAvailability fails with
 *                               CUPTI_ERROR_NOT_SUPPORTED (a GPU or driver without PM sampling)
 *   FAKE_CUPTI_PM_STOP_LOSES=1  what was not decoded before Stop is lost: the samples in the
 *                               trace are those the library's decoding thread read while it ran
 */
#define FAKE_PM_SAMPLES 8
#define FAKE_PM_IMAGE   3
#define FAKE_PM_MAGIC   0x46504d31u /* "FPM1" */

static const char *const pm_metrics[] = {
  "gpc__cycles_elapsed.avg.per_second",
  "sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
  "sm__inst_executed.avg.pct_of_peak_sustained_elapsed", /* not its _realtime first choice */
  "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
  "sm__warps_active.avg.pct_of_peak_sustained_elapsed",
  "dram__read_throughput.avg.pct_of_peak_sustained_elapsed",
};
#define FAKE_PM_N_METRICS (sizeof pm_metrics / sizeof pm_metrics[0])

/* Sample `i`'s value of pm_metrics[m]: what test-fake-cupti expects in GPU_METRICS (rounded). */
static double
pm_value (unsigned m,
          unsigned i)
{
  static const double sms_active[FAKE_PM_SAMPLES] = { 0, 20, 40, 60, 80, 100, 90, 10 };

  switch (m)
    {
    case 0: return 1755e6;                    /* Hz: 1755 MHz */
    case 1: return sms_active[i];             /* mean 50 */
    case 2: return 5.0 * i;                   /* 0 … 35, mean 17.5 */
    case 3: return i % 2 == 0 ? 12.4 : 12.6; /* rounded: 12, 13 */
    case 4: return 45;
    case 5: return i == 3 ? NAN : 30;         /* one sample without a value */
    default: return 0;
    }
}

typedef struct
{
  uint32_t magic;
  uint32_t capacity; /* samples */
  uint32_t n;        /* decoded into it */
  uint32_t first;    /* the fake GPU's index of its first sample */
} FakePmImage;

static struct
{
  pthread_mutex_t lock;
  bool initialized, enabled, configured, started;
  bool host_metrics[FAKE_PM_N_METRICS]; /* added to the host object's config */
  uint64_t interval_ns;
  uint64_t start_raw, stop_raw; /* CLOCK_REALTIME ns; stop_raw 0 while running */
  unsigned next;                /* the first sample not decoded yet */
  int sampler, host;            /* the objects handed out: their addresses */
} pm = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t
realtime_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_REALTIME, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int
pm_metric (const char *name)
{
  for (unsigned m = 0; m < FAKE_PM_N_METRICS; m++)
    if (name != NULL && strcmp (name, pm_metrics[m]) == 0)
      return (int) m;
  return -1;
}

EXPORT CUptiResult CUPTIAPI
cuptiProfilerInitialize (CUpti_Profiler_Initialize_Params *p)
{
  if (p == NULL || p->structSize == 0)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pm.initialized = true;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiProfilerDeInitialize (CUpti_Profiler_DeInitialize_Params *p)
{
  if (p == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pm.initialized = false;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiDeviceGetChipName (CUpti_Device_GetChipName_Params *p)
{
  if (p == NULL || p->structSize == 0)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (!pm.initialized)
    return CUPTI_ERROR_NOT_INITIALIZED;
  if (p->deviceIndex != FAKE_DEVICE)
    return CUPTI_ERROR_INVALID_DEVICE;
  p->pChipName = "GH100";
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiPmSamplingGetCounterAvailability (CUpti_PmSampling_GetCounterAvailability_Params *p)
{
  if (p == NULL || p->deviceIndex != FAKE_DEVICE || !pm.initialized)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (env_number ("FAKE_CUPTI_PM_UNSUPPORTED", 0) != 0)
    return CUPTI_ERROR_NOT_SUPPORTED;
  if (p->pCounterAvailabilityImage == NULL)
    p->counterAvailabilityImageSize = 64;
  else if (p->counterAvailabilityImageSize < 64)
    return CUPTI_ERROR_INVALID_PARAMETER;
  else
    memset (p->pCounterAvailabilityImage, 0xa5, 64);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiProfilerHostInitialize (CUpti_Profiler_Host_Initialize_Params *p)
{
  if (p == NULL || p->profilerType != CUPTI_PROFILER_TYPE_PM_SAMPLING || p->pChipName == NULL
      || strcmp (p->pChipName, "GH100") != 0)
    return CUPTI_ERROR_INVALID_PARAMETER;
  memset (pm.host_metrics, 0, sizeof pm.host_metrics);
  p->pHostObject = (CUpti_Profiler_Host_Object *) (void *) &pm.host;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiProfilerHostDeinitialize (CUpti_Profiler_Host_Deinitialize_Params *p)
{
  if (p == NULL || p->pHostObject != (void *) &pm.host)
    return CUPTI_ERROR_INVALID_PARAMETER;
  return CUPTI_SUCCESS;
}

/* All or nothing, as CUPTI: one metric the chip lacks refuses the call. */
EXPORT CUptiResult CUPTIAPI
cuptiProfilerHostConfigAddMetrics (CUpti_Profiler_Host_ConfigAddMetrics_Params *p)
{
  if (p == NULL || p->pHostObject != (void *) &pm.host || p->ppMetricNames == NULL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  for (size_t i = 0; i < p->numMetrics; i++)
    if (pm_metric (p->ppMetricNames[i]) < 0)
      return CUPTI_ERROR_INVALID_METRIC_NAME;
  for (size_t i = 0; i < p->numMetrics; i++)
    pm.host_metrics[pm_metric (p->ppMetricNames[i])] = true;
  return CUPTI_SUCCESS;
}

/* The config image: one byte a metric, 1 where it was added. */
EXPORT CUptiResult CUPTIAPI
cuptiProfilerHostGetConfigImageSize (CUpti_Profiler_Host_GetConfigImageSize_Params *p)
{
  if (p == NULL || p->pHostObject != (void *) &pm.host)
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->configImageSize = FAKE_PM_N_METRICS;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiProfilerHostGetConfigImage (CUpti_Profiler_Host_GetConfigImage_Params *p)
{
  if (p == NULL || p->pHostObject != (void *) &pm.host || p->pConfigImage == NULL
      || p->configImageSize < FAKE_PM_N_METRICS)
    return CUPTI_ERROR_INVALID_PARAMETER;
  for (unsigned m = 0; m < FAKE_PM_N_METRICS; m++)
    p->pConfigImage[m] = pm.host_metrics[m];
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiPmSamplingEnable (CUpti_PmSampling_Enable_Params *p)
{
  if (p == NULL || p->deviceIndex != FAKE_DEVICE || !pm.initialized)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (env_number ("FAKE_CUPTI_PM_PRIVILEGES", 0) != 0)
    return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  if (pm.enabled)
    return CUPTI_ERROR_INVALID_OPERATION;
  pm.enabled = true;
  p->pPmSamplingObject = (CUpti_PmSampling_Object *) (void *) &pm.sampler;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiPmSamplingDisable (CUpti_PmSampling_Disable_Params *p)
{
  if (p == NULL || p->pPmSamplingObject != (void *) &pm.sampler || !pm.enabled)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pm.enabled = pm.configured = false;
  return CUPTI_SUCCESS;
}

/* Every metric of the config must be one of the chip's, the interval in ns (GPU time trigger). */
EXPORT CUptiResult CUPTIAPI
cuptiPmSamplingSetConfig (CUpti_PmSampling_SetConfig_Params *p)
{
  if (p == NULL || p->pPmSamplingObject != (void *) &pm.sampler || p->pConfig == NULL
      || p->configSize != FAKE_PM_N_METRICS || p->samplingInterval == 0
      || p->hardwareBufferSize == 0
      || p->triggerMode != CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL)
    return CUPTI_ERROR_INVALID_PARAMETER;
  pm.interval_ns = p->samplingInterval;
  pm.configured = true;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiPmSamplingGetCounterDataSize (CUpti_PmSampling_GetCounterDataSize_Params *p)
{
  if (p == NULL || p->pPmSamplingObject != (void *) &pm.sampler || p->pMetricNames == NULL
      || p->numMetrics == 0 || p->maxSamples == 0)
    return CUPTI_ERROR_INVALID_PARAMETER;
  for (size_t i = 0; i < p->numMetrics; i++)
    if (pm_metric (p->pMetricNames[i]) < 0 || !pm.host_metrics[pm_metric (p->pMetricNames[i])])
      return CUPTI_ERROR_INVALID_METRIC_NAME;
  p->counterDataSize = sizeof (FakePmImage);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiPmSamplingCounterDataImageInitialize (CUpti_PmSampling_CounterDataImage_Initialize_Params *p)
{
  if (p == NULL || p->pPmSamplingObject != (void *) &pm.sampler || p->pCounterData == NULL
      || p->counterDataSize < sizeof (FakePmImage))
    return CUPTI_ERROR_INVALID_PARAMETER;
  FakePmImage image = { FAKE_PM_MAGIC, FAKE_PM_IMAGE, 0, 0 };
  memcpy (p->pCounterData, &image, sizeof image);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiPmSamplingStart (CUpti_PmSampling_Start_Params *p)
{
  if (p == NULL || p->pPmSamplingObject != (void *) &pm.sampler || !pm.configured || pm.started)
    return CUPTI_ERROR_INVALID_OPERATION;
  pthread_mutex_lock (&pm.lock);
  pm.start_raw = realtime_ns ();
  pm.stop_raw = 0;
  pm.next = 0;
  pm.started = true;
  pthread_mutex_unlock (&pm.lock);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiPmSamplingStop (CUpti_PmSampling_Stop_Params *p)
{
  if (p == NULL || p->pPmSamplingObject != (void *) &pm.sampler || !pm.started)
    return CUPTI_ERROR_INVALID_OPERATION;
  pthread_mutex_lock (&pm.lock);
  pm.stop_raw = realtime_ns ();
  if (env_number ("FAKE_CUPTI_PM_STOP_LOSES", 0) != 0)
    pm.next = FAKE_PM_SAMPLES; /* only the periodic decoding can have read them */
  pm.started = false;
  pthread_mutex_unlock (&pm.lock);
  return CUPTI_SUCCESS;
}

static bool
image_of (const uint8_t *data,
          size_t         size,
          FakePmImage   *image)
{
  if (data == NULL || size < sizeof *image)
    return false;
  memcpy (image, data, sizeof *image);
  return image->magic == FAKE_PM_MAGIC && image->n <= image->capacity;
}

/* The samples whose end has passed (before Stop), into the image until it is full. */
EXPORT CUptiResult CUPTIAPI
cuptiPmSamplingDecodeData (CUpti_PmSampling_DecodeData_Params *p)
{
  FakePmImage image;

  if (p == NULL || p->pPmSamplingObject != (void *) &pm.sampler
      || !image_of (p->pCounterDataImage, p->counterDataImageSize, &image))
    return CUPTI_ERROR_INVALID_PARAMETER;
  pthread_mutex_lock (&pm.lock);
  uint64_t until = pm.stop_raw != 0 ? pm.stop_raw : realtime_ns ();
  if (image.n == 0)
    image.first = pm.next;
  while (image.n < image.capacity && pm.next < FAKE_PM_SAMPLES && pm.interval_ns > 0
         && pm.start_raw + (pm.next + 1) * pm.interval_ns <= until)
    {
      pm.next++;
      image.n++;
    }
  p->decodeStopReason = image.n == image.capacity
                            ? CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL
                            : CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
  p->overflow = 0;
  pthread_mutex_unlock (&pm.lock);
  memcpy (p->pCounterDataImage, &image, sizeof image);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiPmSamplingGetCounterDataInfo (CUpti_PmSampling_GetCounterDataInfo_Params *p)
{
  FakePmImage image;

  if (p == NULL || !image_of (p->pCounterDataImage, p->counterDataImageSize, &image))
    return CUPTI_ERROR_INVALID_PARAMETER;
  p->numTotalSamples = image.capacity;
  p->numPopulatedSamples = image.n;
  p->numCompletedSamples = image.n;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiPmSamplingCounterDataGetSampleInfo (CUpti_PmSampling_CounterData_GetSampleInfo_Params *p)
{
  FakePmImage image;

  if (p == NULL || !image_of (p->pCounterDataImage, p->counterDataImageSize, &image)
      || p->sampleIndex >= image.n)
    return CUPTI_ERROR_INVALID_PARAMETER;
  uint64_t i = image.first + p->sampleIndex;
  p->startTimestamp = pm.start_raw + i * pm.interval_ns;
  p->endTimestamp = p->startTimestamp + pm.interval_ns;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult CUPTIAPI
cuptiProfilerHostEvaluateToGpuValues (CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
  FakePmImage image;

  if (p == NULL || p->pHostObject != (void *) &pm.host || p->ppMetricNames == NULL
      || p->pMetricValues == NULL
      || !image_of (p->pCounterDataImage, p->counterDataImageSize, &image)
      || p->rangeIndex >= image.n)
    return CUPTI_ERROR_INVALID_PARAMETER;
  for (size_t k = 0; k < p->numMetrics; k++)
    {
      int m = pm_metric (p->ppMetricNames[k]);
      if (m < 0 || !pm.host_metrics[m])
        return CUPTI_ERROR_INVALID_METRIC_NAME;
      p->pMetricValues[k] = pm_value ((unsigned) m, image.first + (unsigned) p->rangeIndex);
    }
  return CUPTI_SUCCESS;
}

/* ---- the fake CUDA -------------------------------------------------------------------------- */

EXPORT int
fake_cuInit (void)
{
  const char *path = getenv ("CUDA_INJECTION64_PATH");
  CUpti_ActivityDevice5 d;
  CUpti_ActivityContext3 c;

  if (f.initialized)
    return 0;
  f.initialized = true;
  /* libcuda: dlopen the injection library and call its entry point once */
  if (path != NULL && *path != '\0')
    {
      void *lib = dlopen (path, RTLD_NOW);
      int (*init) (void) = lib != NULL ? (int (*) (void)) dlsym (lib, "InitializeInjection") : NULL;
      if (init == NULL)
        {
          fprintf (stderr, "fake_cuInit: %s: %s\n", path, dlerror ());
          return -1;
        }
      init ();
    }
  /* the primary context of device 0 */
  memset (&d, 0, sizeof d);
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = FAKE_DEVICE;
  d.name = "Sightline Fake GPU";
  d.computeCapabilityMajor = 9;
  d.computeCapabilityMinor = 0;
  d.numMultiprocessors = 132;
  d.maxThreadsPerBlock = 1024;
  d.maxWarpsPerMultiprocessor = 64;
  d.maxBlocksPerMultiprocessor = 32;
  d.maxRegistersPerBlock = 65536;
  d.maxRegistersPerMultiprocessor = 65536;
  d.maxSharedMemoryPerBlock = 49152;
  d.maxSharedMemoryPerMultiprocessor = 233472;
  d.numThreadsPerWarp = 32;
  d.coreClockRate = 1980000;
  d.numMemcpyEngines = 3;
  d.l2CacheSize = 52428800;
  d.globalMemorySize = UINT64_C (84942979072);
  d.globalMemoryBandwidth = UINT64_C (3352320000);
  d.maxBlockDimX = 1024;
  d.maxBlockDimY = 1024;
  d.maxBlockDimZ = 64;
  d.maxGridDimX = 2147483647;
  d.maxGridDimY = 65535;
  d.maxGridDimZ = 65535;
  for (int i = 0; i < 16; i++)
    d.uuid.bytes[i] = (char) (0x51 + i);
  queue (&d);
  memset (&c, 0, sizeof c);
  c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  c.contextId = FAKE_CONTEXT;
  c.deviceId = FAKE_DEVICE;
  c.nullStreamId = FAKE_NULL_STREAM;
  queue (&c);
  queue_stream (FAKE_NULL_STREAM, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL);
  return 0;
}

/* A MEMORY2 record of the call `c`: an allocation or release of `bytes` at `address`. */
static void
queue_memory (const FakeCall                   *c,
              CUpti_ActivityMemoryOperationType op,
              CUpti_ActivityMemoryKind          kind,
              uint64_t                          address,
              uint64_t                          bytes)
{
  CUpti_ActivityMemory4 m;

  memset (&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = op;
  m.memoryKind = kind;
  m.correlationId = c->correlation;
  m.address = address;
  m.bytes = bytes;
  m.timestamp = now ();
  m.PC = 0; /* what nsys's rows show */
  m.processId = (uint32_t) getpid ();
  m.deviceId = FAKE_DEVICE;
  m.contextId = FAKE_CONTEXT;
  m.streamId = CUPTI_INVALID_STREAM_ID; /* not an async allocation */
  m.name = NULL;
  queue (&m);
}

/* An allocation by `cbid`: aligned to FAKE_UM_PAGE (as the driver's are to 2 MiB), remembered for
 * cudaFree, its managed pages untouched. */
static void *
allocate (CUpti_CallbackId         cbid,
          CUpti_ActivityMemoryKind kind,
          size_t                   bytes)
{
  size_t size = (bytes + FAKE_UM_PAGE - 1) / FAKE_UM_PAGE * FAKE_UM_PAGE;
  FakeCall c;
  void *p;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, NULL);
  p = aligned_alloc (FAKE_UM_PAGE, size > 0 ? size : FAKE_UM_PAGE);
  if (p != NULL)
    memset (p, 0, size > 0 ? size : FAKE_UM_PAGE);
  pthread_mutex_lock (&f.lock);
  if (p != NULL && f.n_allocs < FAKE_MAX_ALLOCS)
    {
      f.allocs[f.n_allocs].address = (uint64_t) (uintptr_t) p;
      f.allocs[f.n_allocs].bytes = bytes;
      f.allocs[f.n_allocs].kind = kind;
      f.n_allocs++;
    }
  for (size_t at = 0; p != NULL && kind == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED && at < bytes
                      && f.n_um_pages < FAKE_MAX_UM_PAGES;
       at += FAKE_UM_PAGE)
    {
      f.um_pages[f.n_um_pages].address = (uint64_t) (uintptr_t) p + at;
      f.um_pages[f.n_um_pages].where = FAKE_UNTOUCHED;
      f.n_um_pages++;
    }
  pthread_mutex_unlock (&f.lock);
  if (p != NULL)
    queue_memory (&c, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, kind,
                  (uint64_t) (uintptr_t) p, bytes);
  call_end (&c);
  return p;
}

EXPORT void *
fake_cudaMalloc (size_t bytes)
{
  return allocate (CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                   bytes);
}

EXPORT void *
fake_cudaMallocManaged (size_t bytes)
{
  return allocate (CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000,
                   CUPTI_ACTIVITY_MEMORY_KIND_MANAGED, bytes);
}

EXPORT void
fake_cudaFree (void *p)
{
  uint64_t address = (uint64_t) (uintptr_t) p, bytes = 0;
  CUpti_ActivityMemoryKind kind = CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN;
  bool known = false;
  FakeCall c;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, NULL);
  pthread_mutex_lock (&f.lock);
  for (unsigned i = 0; i < f.n_allocs; i++)
    if (f.allocs[i].address == address)
      {
        bytes = f.allocs[i].bytes;
        kind = f.allocs[i].kind;
        f.allocs[i] = f.allocs[--f.n_allocs];
        known = true;
        break;
      }
  for (unsigned i = 0; i < f.n_um_pages;)
    if (known && f.um_pages[i].address >= address && f.um_pages[i].address < address + bytes)
      f.um_pages[i] = f.um_pages[--f.n_um_pages];
    else
      i++;
  pthread_mutex_unlock (&f.lock);
  if (known)
    {
      queue_memory (&c, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, kind, address, bytes);
      free (p);
    }
  c.result = known ? 0 : 1; /* cudaErrorInvalidValue */
  call_end (&c);
}

/* ---- unified memory ------------------------------------------------------------------------ */

/* A counter record, when its kind is configured and the records are enabled. */
static void
queue_um (CUpti_ActivityUnifiedMemoryCounterKind kind,
          uint64_t                               start,
          uint64_t                               end,
          uint64_t                               address,
          uint64_t                               value,
          uint32_t                               flags)
{
  CUpti_ActivityUnifiedMemoryCounter3 u;

  if (!f.um_counters[kind])
    return;
  memset (&u, 0, sizeof u);
  u.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;
  u.counterKind = kind;
  u.start = start;
  u.end = kind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT ? 0 : end;
  u.address = address;
  u.value = value;
  /* CUPTI's ids: the CPU is processor 0 of the host, the GPU its device id; unused ones 0 */
  u.srcId = kind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD ? 0 : FAKE_DEVICE;
  u.dstId = kind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD ? FAKE_DEVICE : 0;
  u.streamId = CUPTI_INVALID_STREAM_ID;
  u.processId = (uint32_t) getpid ();
  u.flags = flags;
  queue (&u);
}

/* The managed pages of [p, p + bytes) that are not on `to` (the GPU, or the host): each faults
 * from `to`'s side (unless `prefetch`) and, unless untouched, migrates; from `t` on, 2 µs a
 * page.  `pc` is the host's faulting instruction.  Returns when the last one is done. */
static uint64_t
um_move (void    *p,
         size_t   bytes,
         bool     to_gpu,
         bool     prefetch,
         uint64_t pc,
         uint64_t t)
{
  uint64_t lo = (uint64_t) (uintptr_t) p, hi = lo + bytes;
  uint64_t pages[FAKE_MAX_UM_PAGES];
  bool untouched[FAKE_MAX_UM_PAGES];
  unsigned n = 0;

  pthread_mutex_lock (&f.lock);
  for (unsigned i = 0; i < f.n_um_pages; i++)
    if (f.um_pages[i].address >= lo && f.um_pages[i].address < hi
        && f.um_pages[i].where != (to_gpu ? FAKE_ON_GPU : FAKE_ON_HOST))
      {
        untouched[n] = f.um_pages[i].where == FAKE_UNTOUCHED;
        pages[n++] = f.um_pages[i].address;
        f.um_pages[i].where = to_gpu ? FAKE_ON_GPU : FAKE_ON_HOST;
      }
  pthread_mutex_unlock (&f.lock);
  for (unsigned i = 0; i < n; i++, t += 2000)
    {
      if (!prefetch && to_gpu)
        queue_um (CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT, t, t + 500, pages[i],
                  FAKE_UM_GPU_FAULTS, CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_WRITE);
      else if (!prefetch)
        queue_um (CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT, t, 0, pages[i],
                  pc, 0);
      if (!untouched[i] || prefetch)
        queue_um (to_gpu ? CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD
                         : CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
                  t + 600, t + 1800, pages[i], FAKE_UM_PAGE,
                  prefetch ? CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER
                           : CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE);
    }
  return t;
}

EXPORT void
fake_um_host_touch (void   *p,
                    size_t  bytes)
{
  /* the faulting instruction: inside this function, as a CPU's write to the page would be */
  uint64_t pc = (uint64_t) (uintptr_t) fake_um_host_touch + 16;

  wait_until (um_move (p, bytes, false, false, pc, now ()));
  memset (p, 1, bytes); /* the host's write */
}

EXPORT void
fake_um_kernel_touch (const char *name,
                      void       *p,
                      size_t      bytes,
                      uint64_t    gpu_ns,
                      FakeStream *stream)
{
  FakeStream *s = stream_or_null (stream);
  uint64_t start, end;
  FakeCall c;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
              NULL);
  pthread_mutex_lock (&f.lock);
  schedule (s, c.start, gpu_ns, &start, &end);
  pthread_mutex_unlock (&f.lock);
  /* the kernel's faults and migrations, while it runs; it ends after the last */
  uint64_t last = um_move (p, bytes, true, false, 0, start + 1000);
  if (last > end)
    {
      pthread_mutex_lock (&f.lock);
      s->busy_until = end = last;
      pthread_mutex_unlock (&f.lock);
    }
  queue_kernel (name, 1, 32, start, end, s->id, c.correlation, 0, 0);
  call_end (&c);
}

EXPORT void
fake_cudaMemPrefetchAsync (void       *p,
                           size_t      bytes,
                           int         to_gpu,
                           FakeStream *stream)
{
  FakeStream *s = stream_or_null (stream);
  uint64_t start, end;
  FakeCall c;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v8000, NULL);
  pthread_mutex_lock (&f.lock);
  schedule (s, c.start, 1000, &start, &end);
  pthread_mutex_unlock (&f.lock);
  uint64_t last = um_move (p, bytes, to_gpu != 0, true, 0, start);
  pthread_mutex_lock (&f.lock);
  if (last > s->busy_until)
    s->busy_until = last;
  pthread_mutex_unlock (&f.lock);
  call_end (&c);
}

EXPORT FakeStream *
fake_cudaStreamCreate (void)
{
  FakeCall c;
  FakeStream *s = calloc (1, sizeof *s);

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020,
              NULL);
  pthread_mutex_lock (&f.lock);
  s->id = f.next_stream++;
  if (f.n_streams < FAKE_MAX_STREAMS)
    f.streams[f.n_streams++] = s;
  pthread_mutex_unlock (&f.lock);
  queue_stream (s->id, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT);
  call_end (&c);
  return s;
}

EXPORT void
fake_cudaMemcpy (FakeCopyKind kind,
                 size_t       bytes,
                 uint64_t     gpu_ns)
{
  CUpti_ActivityMemcpy6 m;
  FakeCall c;
  FakeStream *s = &f.null_stream;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, NULL);
  memset (&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = (uint8_t) kind;
  m.srcKind = kind == FAKE_COPY_HTOD ? CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE
                                     : CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = kind == FAKE_COPY_DTOH ? CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE
                                     : CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = bytes;
  pthread_mutex_lock (&f.lock);
  schedule (s, c.start, gpu_ns, &m.start, &m.end);
  pthread_mutex_unlock (&f.lock);
  m.deviceId = FAKE_DEVICE;
  m.contextId = FAKE_CONTEXT;
  m.streamId = s->id;
  m.correlationId = c.correlation;
  queue (&m);
  wait_until (m.end); /* a copy from pageable memory returns when it is done */
  call_end (&c);
}

EXPORT void
fake_cudaMemsetAsync (size_t      bytes,
                      int         value,
                      uint64_t    gpu_ns,
                      FakeStream *stream)
{
  CUpti_ActivityMemset4 m;
  FakeCall c;
  FakeStream *s = stream_or_null (stream);

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
              NULL);
  memset (&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.value = (uint32_t) value;
  m.bytes = bytes;
  pthread_mutex_lock (&f.lock);
  schedule (s, c.start, gpu_ns, &m.start, &m.end);
  pthread_mutex_unlock (&f.lock);
  m.deviceId = FAKE_DEVICE;
  m.contextId = FAKE_CONTEXT;
  m.streamId = s->id;
  m.correlationId = c.correlation;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  queue (&m);
  call_end (&c);
}

/* A launch by the runtime or the driver: a kernel record, or a node of a graph being captured. */
static void
launch (CUpti_CallbackDomain domain,
        CUpti_CallbackId     cbid,
        const void          *params,
        const char          *name,
        uint32_t             grid,
        uint32_t             block,
        uint64_t             gpu_ns,
        FakeStream          *stream)
{
  FakeStream *s = stream_or_null (stream);
  uint64_t start = 0, end = 0;
  FakeCall c;

  call_begin (&c, domain, cbid, params);
  pthread_mutex_lock (&f.lock);
  FakeGraph *g = s->capturing;
  if (g != NULL && g->n_nodes < FAKE_MAX_NODES)
    g->nodes[g->n_nodes++] = (FakeNode) { name, grid, block, gpu_ns, f.next_node++ };
  else if (g == NULL)
    schedule (s, c.start, gpu_ns, &start, &end);
  pthread_mutex_unlock (&f.lock);
  if (g == NULL)
    queue_kernel (name, grid, block, start, end, s->id, c.correlation, 0, 0);
  call_end (&c);
}

EXPORT void
fake_cudaLaunchKernel (const char *name,
                       uint32_t    grid,
                       uint32_t    block,
                       uint64_t    gpu_ns,
                       FakeStream *stream)
{
  cudaLaunchKernel_v7000_params p = {
    .func = name,
    .gridDim = { grid, 1, 1 },
    .blockDim = { block, 1, 1 },
    .stream = (cudaStream_t) stream,
  };

  launch (CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &p, name,
          grid, block, gpu_ns, stream);
}

EXPORT void
fake_cuLaunchKernel (const char *name,
                     uint32_t    grid,
                     uint32_t    block,
                     uint64_t    gpu_ns,
                     FakeStream *stream)
{
  cuLaunchKernel_params p = {
    .gridDimX = grid, .gridDimY = 1, .gridDimZ = 1,
    .blockDimX = block, .blockDimY = 1, .blockDimZ = 1,
    .hStream = (CUstream) stream,
  };

  launch (CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p, name, grid,
          block, gpu_ns, stream);
}

EXPORT void
fake_cudaStreamSynchronize (FakeStream *stream)
{
  FakeStream *s = stream_or_null (stream);
  FakeCall c;
  uint64_t until;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, NULL);
  pthread_mutex_lock (&f.lock);
  until = s->busy_until;
  pthread_mutex_unlock (&f.lock);
  wait_until (until);
  queue_sync (CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, &c, now (), s->id, NULL);
  call_end (&c);
}

EXPORT void
fake_cudaDeviceSynchronize (void)
{
  FakeCall c;
  uint64_t until = 0;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, NULL);
  pthread_mutex_lock (&f.lock);
  until = f.null_stream.busy_until;
  for (unsigned i = 0; i < f.n_streams; i++)
    if (f.streams[i]->busy_until > until)
      until = f.streams[i]->busy_until;
  pthread_mutex_unlock (&f.lock);
  wait_until (until);
  queue_sync (CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, &c, now (), FAKE_INVALID,
              NULL);
  call_end (&c);
}

/* cudaProfilerStart/Stop: API calls and nothing on the GPU; what they mean is the profiler's. */
static void
profiler_call (CUpti_CallbackId cbid)
{
  FakeCall c;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, NULL);
  call_end (&c);
}

EXPORT void
fake_cudaProfilerStart (void)
{
  profiler_call (CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
}

EXPORT void
fake_cudaProfilerStop (void)
{
  profiler_call (CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
}

EXPORT FakeEvent *
fake_cudaEventCreate (void)
{
  FakeEvent *e = calloc (1, sizeof *e);
  FakeCall c;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventCreate_v3020,
              NULL);
  pthread_mutex_lock (&f.lock);
  e->id = f.next_event++;
  pthread_mutex_unlock (&f.lock);
  call_end (&c);
  return e;
}

EXPORT void
fake_cudaEventRecord (FakeEvent  *event,
                      FakeStream *stream)
{
  FakeStream *s = stream_or_null (stream);
  CUpti_ActivityCudaEvent2 r;
  FakeCall c;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
              NULL);
  memset (&r, 0, sizeof r);
  pthread_mutex_lock (&f.lock);
  event->done_at = s->busy_until;
  event->sync_id = f.next_sync_id++;
  event->recorded = true;
  pthread_mutex_unlock (&f.lock);
  r.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  r.correlationId = c.correlation;
  r.contextId = FAKE_CONTEXT;
  r.streamId = s->id;
  r.eventId = event->id;
  r.deviceId = FAKE_DEVICE;
  r.deviceTimestamp = 0; /* cuptiActivityEnableCudaEventDeviceTimestamps: off by default */
  r.cudaEventSyncId = event->sync_id;
  queue (&r);
  call_end (&c);
}

EXPORT void
fake_cudaStreamWaitEvent (FakeStream *stream,
                          FakeEvent  *event)
{
  FakeStream *s = stream_or_null (stream);
  FakeCall c;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, NULL);
  pthread_mutex_lock (&f.lock);
  if (event->done_at > s->busy_until)
    s->busy_until = event->done_at; /* the stream's later work waits for the event */
  pthread_mutex_unlock (&f.lock);
  queue_sync (CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, &c, now (), s->id, event);
  call_end (&c);
}

EXPORT void
fake_cudaEventSynchronize (FakeEvent *event)
{
  FakeCall c;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, NULL);
  wait_until (event->done_at);
  queue_sync (CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, &c, now (), FAKE_INVALID,
              event);
  call_end (&c);
}

EXPORT void
fake_cudaStreamBeginCapture (FakeStream *stream)
{
  FakeStream *s = stream_or_null (stream);
  FakeGraph *g = calloc (1, sizeof *g);
  FakeCall c;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000, NULL);
  pthread_mutex_lock (&f.lock);
  g->id = f.next_graph++;
  s->capturing = g;
  pthread_mutex_unlock (&f.lock);
  call_end (&c);
}

EXPORT FakeGraph *
fake_cudaStreamEndCapture (FakeStream *stream)
{
  FakeStream *s = stream_or_null (stream);
  FakeGraph *g;
  FakeCall c;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, NULL);
  pthread_mutex_lock (&f.lock);
  g = s->capturing;
  s->capturing = NULL;
  pthread_mutex_unlock (&f.lock);
  call_end (&c);
  return g;
}

EXPORT FakeGraphExec *
fake_cudaGraphInstantiate (FakeGraph *graph)
{
  FakeGraphExec *x = calloc (1, sizeof *x);
  FakeCall c;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API,
              CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v10000, NULL);
  pthread_mutex_lock (&f.lock);
  x->id = f.next_exec++;
  x->graph = graph;
  pthread_mutex_unlock (&f.lock);
  call_end (&c);
  return x;
}

/* One launch of a graph: with CUPTI_ACTIVITY_KIND_GRAPH_TRACE enabled, one record for the whole
 * graph and none for its nodes (nsys --cuda-graph-trace=graph); else a kernel record per node,
 * carrying the graph's and the node's ids and the launch's correlation id (=node). */
static void graph_launch_once (FakeGraphExec *exec, FakeStream *stream);

EXPORT void
fake_cudaGraphLaunch (FakeGraphExec *exec,
                      FakeStream    *stream)
{
  long n = env_number ("FAKE_CUPTI_GRAPH_REPEAT", 1);

  for (long i = 0; i < (n > 0 ? n : 1); i++)
    graph_launch_once (exec, stream);
}

static void
graph_launch_once (FakeGraphExec *exec,
                   FakeStream    *stream)
{
  FakeStream *s = stream_or_null (stream);
  FakeGraph *g = exec->graph;
  uint64_t starts[FAKE_MAX_NODES], ends[FAKE_MAX_NODES];
  cudaGraphLaunch_v10000_params p = {
    .graphExec = (cudaGraphExec_t) (void *) exec,
    .stream = (cudaStream_t) stream,
  };
  bool whole;
  FakeCall c;

  call_begin (&c, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
              &p);
  pthread_mutex_lock (&f.lock);
  whole = f.enabled[CUPTI_ACTIVITY_KIND_GRAPH_TRACE];
  for (unsigned i = 0; i < g->n_nodes; i++)
    schedule (s, c.start, g->nodes[i].gpu_ns, &starts[i], &ends[i]);
  pthread_mutex_unlock (&f.lock);
  /* the GPU's records after the call has returned (its exit callback first), as a GPU's */
  call_end (&c);
  if (whole && g->n_nodes > 0)
    {
      CUpti_ActivityGraphTrace2 t;
      memset (&t, 0, sizeof t);
      t.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
      t.correlationId = c.correlation;
      t.start = starts[0];
      t.end = ends[g->n_nodes - 1];
      t.deviceId = FAKE_DEVICE;
      t.graphId = g->id;
      t.contextId = FAKE_CONTEXT;
      t.streamId = s->id;
      t.endDeviceId = FAKE_DEVICE;
      t.endContextId = FAKE_CONTEXT;
      queue (&t);
    }
  else
    for (unsigned i = 0; i < g->n_nodes; i++)
      queue_kernel (g->nodes[i].name, g->nodes[i].grid, g->nodes[i].block, starts[i], ends[i],
                    s->id, c.correlation, g->id, g->nodes[i].node_id);
}

EXPORT uint32_t
fake_stream_id (FakeStream *stream)
{
  return stream_or_null (stream)->id;
}

EXPORT uint32_t
fake_event_id (FakeEvent *event)
{
  return event->id;
}

EXPORT uint32_t
fake_graph_id (FakeGraph *graph)
{
  return graph->id;
}

EXPORT uint32_t
fake_graph_exec_id (FakeGraphExec *exec)
{
  return exec->id;
}
