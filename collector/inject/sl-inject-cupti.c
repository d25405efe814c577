/* sl-inject-cupti.c: CUDA activity from CUPTI (kernels, copies, sets, synchronization, CUDA events,
 * graph launches, runtime and driver calls, devices, contexts, streams; when asked, GPU memory
 * allocated and freed and unified memory's migrations and page faults; GPU metrics in
 * sl-inject-cupti-pm.c) as wire records, and from
 * its API callbacks the calls' backtraces (--cudabacktrace) and cudaProfilerStart/Stop.  C11 +
 * POSIX + CUPTI, no GLib: it runs inside someone else's process.
 *
 * libcuda calls InitializeInjection() from cuInit (CUDA_INJECTION64_PATH).  We give CUPTI empty
 * buffers; it fills them on the application's threads and hands each back, full or flushed, on
 * its worker thread (or in cuptiActivityFlushAll's caller), where every record becomes one wire
 * record.  That thread is not the application's, so emitting waits for ring space instead of
 * dropping.  CUPTI is told to take its timestamps from _sl_now(): every record is on the
 * session's CLOCK_MONOTONIC axis without conversion.
 *
 * A buffer comes back by itself only when full; our flush thread asks CUPTI every
 * SL_CUPTI_FLUSH_MS for the buffers whose records are complete, so that the trace on disk follows
 * the GPU within about a second and a crash loses at most that much GPU activity.
 *
 * Sizes: a busy PyTorch process makes 10^4 ... 10^5 activity records a second, 40 ... 216 bytes
 * each; an 8 MiB buffer holds ~40 000 of them, and a handful of buffers are in flight at a time.
 */
#include "sl-inject-cupti.h"
#include "sl-inject-cupti-api.h" /* <cupti.h>, with the API callbacks' parameter structs */

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "sl-schema.h"

#define SL_CUPTI_BUFFER_SIZE (8u << 20) /* ~40 000 records */
#define SL_CUPTI_POOL        4          /* idle buffers kept for reuse; more are freed */
#define SL_CUPTI_MAX_ERRORS  4          /* lines on stderr at most, for the whole process */
#define SL_CUPTI_MAX_CONTEXTS 256       /* contexts remembered for their device */
#define SL_CUPTI_FLUSH_MS    500        /* completed buffers are fetched this often */
#define SL_CUPTI_GRAPH_EXECS SL_WIRE_GRAPH_EXEC_SLOTS /* graph launches noted for their exec's id */

/* nsys's --cudabacktrace classes of CUDA call, one bit each in a cbid's class */
enum
{
  SL_BT_KERNEL, /* launches: cudaLaunchKernel, cuLaunchKernel, cudaGraphLaunch … */
  SL_BT_MEMORY, /* allocation, release, copies, sets */
  SL_BT_SYNC,   /* the host waits: cuda*Synchronize, cu*Synchronize */
  SL_BT_OTHER,  /* the rest */
  SL_BT_N
};
#define SL_BT_DEFAULT_NS 80000 /* nsys's threshold where the option names none */

/* CUPTI's activity buffers hold the records of the libcupti that runs, not of the headers we
 * were built with: each CUPTI writes its newest version of a kind's struct (an older driver or
 * toolkit at run time writes older, shorter ones).  Each newer version keeps its predecessors'
 * fields where they were and adds at the end (checked with offsetof over cupti_activity.h and
 * cupti_activity_deprecated.h of CUDA 13 for every field read below), so a record is read through
 * the newest struct, and a field only when the running CUPTI's API version (cuptiGetVersion,
 * CUPTI_API_VERSION's history in cupti_version.h) writes the version that has it.  Where the
 * headers say "deprecated in CUDA X" of the older struct, X is where the newer one came. */
#define SL_CUPTI_V_11_0 13 /* CUDA 11.0: CUpti_ActivityKernel5 (graphNodeId, graphId) */
#define SL_CUPTI_V_11_8 18 /* CUDA 11.8: CUpti_ActivityKernel8 (clusterX/Y/Z,
                            * localMemoryTotal_v2) */
#define SL_CUPTI_V_12_8 26 /* CUDA 12.8: CUpti_ActivityCudaEvent2 (deviceId, deviceTimestamp,
                            * cudaEventSyncId), CUpti_ActivitySynchronization2
                            * (cudaEventSyncId); from 13.0 on the version is 130000 and up */

_Static_assert (sizeof (SlWireMemcpy) % 8 == 0, "wire records are multiples of 8");
_Static_assert (sizeof (SlWireMemset) % 8 == 0, "wire records are multiples of 8");
_Static_assert (sizeof (SlWireSync) % 8 == 0, "wire records are multiples of 8");
_Static_assert (sizeof (SlWireContext) % 8 == 0, "wire records are multiples of 8");
_Static_assert (sizeof (SlWireStream) % 8 == 0, "wire records are multiples of 8");
_Static_assert (sizeof (SlWireCudaEvent) % 8 == 0, "wire records are multiples of 8");
_Static_assert (sizeof (SlWireGraph) % 8 == 0, "wire records are multiples of 8");
_Static_assert (sizeof (SlWireCudaMemory) % 8 == 0, "wire records are multiples of 8");
_Static_assert (sizeof (SlWireUm) % 8 == 0, "wire records are multiples of 8");

static struct
{
  _Atomic int started; /* activity enabled: flush and stop have something to do */
  pid_t started_pid;   /* in this process: a forked child has CUPTI's state, not its threads */
  _Atomic int errors;
  _Atomic uint32_t version; /* cuptiGetVersion's, 0 until asked (cupti_version()) */
  int64_t time_offset; /* added to CUPTI times when the timestamp callback was refused */

  pthread_mutex_t pool_lock;
  uint8_t *pool[SL_CUPTI_POOL];
  unsigned n_pool;

  /* contextId -> deviceId, from CONTEXT records: stream and synchronization records lack it */
  pthread_mutex_t contexts_lock;
  uint32_t context_ids[SL_CUPTI_MAX_CONTEXTS];
  uint32_t context_devices[SL_CUPTI_MAX_CONTEXTS];
  unsigned n_contexts;

  const char *proc_root;

  /* the periodic flush: a thread of ours, stopped before the final forced flush */
  pthread_t flush_thread;
  pid_t flush_thread_pid; /* not ours in a forked child */
  pthread_mutex_t flush_lock;
  pthread_cond_t flush_cond;
  bool flush_stop;

  /* nsys --cuda-graph-trace: graph launches as one GRAPH_TRACE record (graph, the default) or
   * as their nodes' kernels (node) */
  bool graph_trace;
  /* a graph launch's correlationId (high 32 bits) and its exec's id (low), at correlationId %
   * SL_CUPTI_GRAPH_EXECS: written by the launch's API callback on the program's thread, read
   * when its GRAPH_TRACE record comes (within about a second); 64 KiB */
  _Atomic uint64_t graph_execs[SL_CUPTI_GRAPH_EXECS];

  /* nsys --cudabacktrace: the classes of call whose backtrace is taken (SL_BT_* bits) and their
   * thresholds; each cbid's class, from its name (a few hundred names looked at once, at start) */
  uint32_t bt_classes;
  uint64_t bt_threshold[SL_BT_N];
  uint8_t bt_runtime[CUPTI_RUNTIME_TRACE_CBID_SIZE];
  uint8_t bt_driver[CUPTI_DRIVER_TRACE_CBID_SIZE];

  /* nsys --cuda-memory-usage: CUPTI_ACTIVITY_KIND_MEMORY2 enabled; --cuda-um-cpu-page-faults /
   * --cuda-um-gpu-page-faults: CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER enabled */
  bool memory_usage;
  bool unified_memory;

  /* cuptiGetCallbackName() by cbid, looked up once: one API record in three needs it */
  _Atomic (const char *) runtime_names[CUPTI_RUNTIME_TRACE_CBID_SIZE];
  _Atomic (const char *) driver_names[CUPTI_DRIVER_TRACE_CBID_SIZE];
} cu = {
  .pool_lock = PTHREAD_MUTEX_INITIALIZER,
  .contexts_lock = PTHREAD_MUTEX_INITIALIZER,
  .flush_lock = PTHREAD_MUTEX_INITIALIZER,
  .flush_cond = PTHREAD_COND_INITIALIZER,
};

/* The activity kinds we record; those this CUPTI refuses are reported and skipped. */
static const CUpti_ActivityKind activity_kinds[] = {
  CUPTI_ACTIVITY_KIND_DEVICE,
  CUPTI_ACTIVITY_KIND_CONTEXT,
  CUPTI_ACTIVITY_KIND_STREAM,
  CUPTI_ACTIVITY_KIND_RUNTIME,
  CUPTI_ACTIVITY_KIND_DRIVER,
  CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
  CUPTI_ACTIVITY_KIND_MEMCPY,
  CUPTI_ACTIVITY_KIND_MEMCPY2, /* peer to peer */
  CUPTI_ACTIVITY_KIND_MEMSET,
  CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
  CUPTI_ACTIVITY_KIND_CUDA_EVENT,
};

/* ---------------------------------------------------------------------------------------------- */
/* Errors: one line on stderr, a few at most per process, never an abort                        */

static void
say (const char *line)
{
  size_t n = strlen (line);

  if (atomic_fetch_add (&cu.errors, 1) >= SL_CUPTI_MAX_ERRORS)
    return;
  /* our own write: not one of the program's OS calls */
  _sl_enter_library ();
  ssize_t w = write (STDERR_FILENO, line, n);
  (void) w;
  _sl_leave_library ();
}

static const char *
result_text (CUptiResult result)
{
  const char *text = NULL;

  if (cuptiGetResultString (result, &text) != CUPTI_SUCCESS || text == NULL)
    text = "unknown error";
  return text;
}

static void
report (const char *what,
        CUptiResult result)
{
  char line[256];

  snprintf (line, sizeof line, "sightline: %s failed: %s\n", what, result_text (result));
  say (line);
}

/* Start-up gathers its failures into one line: the first, and how many more. */
typedef struct
{
  const char *what;
  CUptiResult result;
  unsigned more;
} SlCuptiFailures;

static bool
check (SlCuptiFailures *f,
       const char      *what,
       CUptiResult      result)
{
  if (result == CUPTI_SUCCESS)
    return true;
  if (f->what == NULL)
    {
      f->what = what;
      f->result = result;
    }
  else
    f->more++;
  return false;
}

/* The running CUPTI's API version: which record versions its buffers hold.  Asked once; a CUPTI
 * that cannot say is taken to be the one of our headers. */
static uint32_t
cupti_version (void)
{
  uint32_t v = atomic_load_explicit (&cu.version, memory_order_relaxed);
  uint32_t got = 0;

  if (v != 0)
    return v;
  v = CUPTI_API_VERSION;
  if (_sl_cupti_load (NULL, 0) && cuptiGetVersion != NULL && cuptiGetVersion (&got) == CUPTI_SUCCESS
      && got != 0)
    v = got;
  atomic_store_explicit (&cu.version, v, memory_order_relaxed);
  return v;
}

/* ---------------------------------------------------------------------------------------------- */
/* Mapping CUPTI's values to nsys's                                                               */

/* 0 stays 0: "no timestamp could be collected" */
static uint64_t
session_time (uint64_t t)
{
  return t == 0 ? 0 : (uint64_t) ((int64_t) t + cu.time_offset);
}

/* CUpti_ActivityMemcpyKind is ENUM_CUDA_MEMCPY_OPER for 0 ... 10 (HtoD 1, DtoH 2, DtoD 8,
 * HtoH 9, PtoP 10; the array kinds 3 ... 7) */
static uint32_t
copy_kind (uint32_t cupti)
{
  return cupti <= CUPTI_ACTIVITY_MEMCPY_KIND_PTOP ? cupti : SL_MEMCPY_UNKNOWN;
}

/* CUpti_ActivityMemoryKind counts from Unknown = 0, ENUM_CUDA_MEM_KIND from Pageable = 0 */
static uint32_t
mem_kind (uint32_t cupti)
{
  switch (cupti)
    {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return SL_MEM_KIND_PAGEABLE;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return SL_MEM_KIND_PINNED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return SL_MEM_KIND_DEVICE;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return SL_MEM_KIND_ARRAY;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return SL_MEM_KIND_MANAGED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return SL_MEM_KIND_DEVICE_STATIC;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return SL_MEM_KIND_MANAGED_STATIC;
    default: return SL_MEM_KIND_UNKNOWN;
    }
}

/* CUpti_ActivitySynchronizationType is ENUM_CUPTI_SYNC_TYPE */
static uint32_t
sync_type (uint32_t cupti)
{
  return cupti <= CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE ? cupti : SL_SYNC_UNKNOWN;
}

/* CUpti_ActivityStreamFlag (low 16 bits) is ENUM_CUPTI_STREAM_TYPE */
static uint32_t
stream_type (uint32_t cupti)
{
  uint32_t flag = cupti & CUPTI_ACTIVITY_STREAM_CREATE_MASK;

  return flag <= CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL ? flag : SL_STREAM_TYPE_UNKNOWN;
}

/* CUPTI's Regular is 0, nsys's ENUM_CUDA_KERNEL_LAUNCH_TYPE keeps 0 for Unknown: Regular 1,
 * cooperative single device 2, multi device 3 */
static uint32_t
launch_type (uint32_t cupti)
{
  return cupti <= CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE ? cupti + 1
                                                                      : SL_LAUNCH_TYPE_UNKNOWN;
}

/* nsys's cacheConfig is the executed CUfunc_cache + 1, seen in real exports: 1 ... 4, with 3
 * (PREFER_L1) on Turing kernels that ran with 32 KiB of shared memory, 2 (PREFER_SHARED) on
 * Ampere kernels with 100 KiB, 1 (PREFER_NONE) everywhere on Hopper */
static uint32_t
cache_config (const CUpti_ActivityKernel10 *k)
{
  return (uint32_t) k->cacheConfig.config.executed + 1;
}

static void
remember_context (uint32_t context_id,
                  uint32_t device_id)
{
  pthread_mutex_lock (&cu.contexts_lock);
  unsigned i;
  for (i = 0; i < cu.n_contexts; i++)
    if (cu.context_ids[i] == context_id)
      break;
  if (i == cu.n_contexts && i < SL_CUPTI_MAX_CONTEXTS)
    cu.n_contexts++;
  if (i < SL_CUPTI_MAX_CONTEXTS)
    {
      cu.context_ids[i] = context_id;
      cu.context_devices[i] = device_id;
    }
  pthread_mutex_unlock (&cu.contexts_lock);
}

/* The device of a context, 0 when its CONTEXT record has not come (nsys writes 0 there too). */
static uint32_t
context_device (uint32_t context_id)
{
  uint32_t device = 0;

  pthread_mutex_lock (&cu.contexts_lock);
  for (unsigned i = 0; i < cu.n_contexts; i++)
    if (cu.context_ids[i] == context_id)
      {
        device = cu.context_devices[i];
        break;
      }
  pthread_mutex_unlock (&cu.contexts_lock);
  return device;
}

static const char *
api_name (bool     runtime,
          uint32_t cbid)
{
  _Atomic (const char *) *cache = NULL;
  const char *name = NULL;

  if (runtime && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
    cache = &cu.runtime_names[cbid];
  else if (!runtime && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
    cache = &cu.driver_names[cbid];
  if (cache != NULL && (name = atomic_load_explicit (cache, memory_order_relaxed)) != NULL)
    return name;
  /* CUPTI's names are nsys's: "cudaLaunchKernel_v7000", "cuLaunchKernelEx" */
  if (!_sl_cupti_load (NULL, 0)
      || cuptiGetCallbackName (runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                            cbid, &name)
          != CUPTI_SUCCESS
      || name == NULL)
    return NULL;
  if (cache != NULL)
    atomic_store_explicit (cache, name, memory_order_relaxed);
  return name;
}

/* ---------------------------------------------------------------------------------------------- */
/* PCI location of a device, from the driver's /proc listing (CUPTI's device record lacks it)    */

void
_sl_cupti_set_proc_root (const char *root)
{
  cu.proc_root = root;
}

/* "GPU-b27a2541-9522-6b9b-99d1-bf1a89bf7a62", as the driver writes a UUID */
static void
format_uuid (const uint8_t uuid[16],
             char          out[41])
{
  static const int dashes_after[] = { 3, 5, 7, 9 };
  char *p = out + 4;

  memcpy (out, "GPU-", 4);
  for (int i = 0, d = 0; i < 16; i++)
    {
      p += snprintf (p, 3, "%02x", uuid[i]);
      if (d < 4 && i == dashes_after[d])
        {
          *p++ = '-';
          d++;
        }
    }
  *p = '\0';
}

/* Reads up to 2 KiB of @path (the information file is ~400 bytes); false when absent. */
static bool
read_small_file (const char *path,
                 char       *buf,
                 size_t      size)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return false;
  n = read (fd, buf, size - 1);
  close (fd);
  if (n < 0)
    return false;
  buf[n] = '\0';
  return true;
}

/* Finds the GPU whose "GPU UUID:" is @uuid among root/<bus location>/information. */
static bool
pci_location (const uint8_t uuid[16],
              uint32_t     *domain,
              uint32_t     *bus,
              uint32_t     *device)
{
  const char *root = cu.proc_root != NULL ? cu.proc_root : "/proc/driver/nvidia/gpus";
  char want[41];
  bool found = false;
  DIR *dir;

  format_uuid (uuid, want);
  _sl_enter_library (); /* our reads are not the program's OS calls */
  dir = opendir (root);
  for (struct dirent *e; dir != NULL && !found && (e = readdir (dir)) != NULL;)
    {
      char path[512], info[2048];
      unsigned d, b, dev, fn;

      if (e->d_name[0] == '.'
          || snprintf (path, sizeof path, "%s/%s/information", root, e->d_name) >= (int) sizeof path
          || !read_small_file (path, info, sizeof info))
        continue;
      const char *line = strstr (info, "GPU UUID:");
      if (line == NULL)
        continue;
      line += strlen ("GPU UUID:");
      line += strspn (line, " \t");
      if (strncasecmp (line, want, strlen (want)) != 0)
        continue;
      /* "Bus Location: 0000:1b:00.0"; the directory has the same name */
      const char *loc = strstr (info, "Bus Location:");
      if (loc != NULL)
        {
          loc += strlen ("Bus Location:");
          loc += strspn (loc, " \t");
        }
      else
        loc = e->d_name;
      if (sscanf (loc, "%x:%x:%x.%x", &d, &b, &dev, &fn) == 4)
        {
          *domain = d;
          *bus = b;
          *device = dev;
          found = true;
        }
    }
  if (dir != NULL)
    closedir (dir);
  _sl_leave_library ();
  return found;
}

/* ---------------------------------------------------------------------------------------------- */
/* Records                                                                                        */

/* A fixed part (its header's type and size are set here) and text; @tid 0 keeps the emitting
 * thread's. */
static void
emit (uint16_t    type,
      const void *fixed,
      size_t      fixed_size,
      const char *text,
      uint32_t    tid)
{
  size_t len = text != NULL ? _sl_text_len (text, SL_WIRE_MAX_RECORD - 64 - fixed_size) : 0;
  uint32_t size = text != NULL ? sl_wire_size ((uint32_t) fixed_size, (uint32_t) len)
                               : (uint32_t) fixed_size;
  uint8_t *rec = _sl_emit_begin_wait (type, size);

  if (rec == NULL)
    return; /* counted by the core, reported as SL_WIRE_DROPPED */
  memcpy (rec + sizeof (SlWireHeader), (const uint8_t *) fixed + sizeof (SlWireHeader),
          fixed_size - sizeof (SlWireHeader));
  if (tid != 0)
    ((SlWireHeader *) rec)->tid = tid;
  if (text != NULL)
    {
      _sl_put_text (rec, fixed_size, text, len);
      /* no stale ring bytes in the padding */
      memset (rec + fixed_size + len + 1, 0, size - fixed_size - len - 1);
    }
  _sl_emit_end (rec);
}

/* A message for the trace's DIAGNOSTIC_EVENT (SL_DIAG_MESSAGE at `severity`), or the graph mode
 * in effect (SL_DIAG_CUDA_GRAPH_MODE): a few per process, at start. */
static void
diagnose (uint32_t    kind,
          uint32_t    severity,
          const char *text)
{
  SlWireDiagnostic w = { 0 };

  w.time_ns = _sl_now ();
  w.kind = kind;
  w.severity = severity;
  emit (SL_WIRE_DIAGNOSTIC, &w, sizeof w, text, 0);
}

/* The same said on stderr (the recorded program's, which `sightline record` shares) and in the
 * trace: "sightline: " and a newline around the first, not the second. */
static void
say_and_diagnose (uint32_t    severity,
                  const char *text)
{
  char line[640];

  snprintf (line, sizeof line, "sightline: %s\n", text);
  say (line);
  diagnose (SL_DIAG_MESSAGE, severity, text);
}

void
_sl_cupti_warn (const char *text)
{
  say_and_diagnose (SL_DIAG_WARNING, text);
}

static void
emit_kernel (const CUpti_ActivityKernel10 *k)
{
  SlWireKernel w = { 0 };
  uint32_t version = cupti_version ();

  if (!_sl_capture_covers (session_time (k->start)))
    return; /* outside the capture ranges */
  w.start_ns = session_time (k->start);
  w.end_ns = session_time (k->end);
  w.device_id = k->deviceId;
  w.context_id = k->contextId;
  w.stream_id = k->streamId;
  w.correlation_id = k->correlationId;
  w.grid_x = k->gridX;
  w.grid_y = k->gridY;
  w.grid_z = k->gridZ;
  w.block_x = k->blockX;
  w.block_y = k->blockY;
  w.block_z = k->blockZ;
  w.registers_per_thread = k->registersPerThread;
  w.static_shared_memory = k->staticSharedMemory;
  w.dynamic_shared_memory = k->dynamicSharedMemory;
  w.local_memory_per_thread = k->localMemoryPerThread;
  /* the 32-bit field overflows on big GPUs (H100: 250 MB); _v2 is its 64-bit successor */
  w.local_memory_total = version >= SL_CUPTI_V_11_8 && k->localMemoryTotal_v2 != 0
                             ? k->localMemoryTotal_v2
                             : k->localMemoryTotal;
  w.grid_id = k->gridId;
  w.launch_type = launch_type (k->launchType);
  w.cache_config = cache_config (k);
  w.shared_memory_executed = k->sharedMemoryExecuted;
  if (version >= SL_CUPTI_V_11_0)
    {
      w.graph_node_id_lo = (uint32_t) k->graphNodeId;
      w.graph_node_id_hi = (uint32_t) (k->graphNodeId >> 32);
      w.graph_id = k->graphId;
    }
  if (version >= SL_CUPTI_V_11_8)
    {
      w.cluster_x = (int32_t) k->clusterX;
      w.cluster_y = (int32_t) k->clusterY;
      w.cluster_z = (int32_t) k->clusterZ;
    }
  else
    w.flags |= SL_WIRE_KERNEL_NO_CLUSTER;
  emit (SL_WIRE_KERNEL, &w, sizeof w, k->name != NULL ? k->name : "", 0);
}

static void
emit_memcpy (const CUpti_ActivityMemcpy6 *m)
{
  SlWireMemcpy w = { 0 };

  if (!_sl_capture_covers (session_time (m->start)))
    return; /* outside the capture ranges */
  w.start_ns = session_time (m->start);
  w.end_ns = session_time (m->end);
  w.bytes = m->bytes;
  w.device_id = m->deviceId;
  w.context_id = m->contextId;
  w.stream_id = m->streamId;
  w.correlation_id = m->correlationId;
  w.copy_kind = copy_kind (m->copyKind);
  w.src_kind = mem_kind (m->srcKind);
  w.dst_kind = mem_kind (m->dstKind);
  w.src_device_id = m->deviceId;
  w.dst_device_id = m->deviceId;
  emit (SL_WIRE_MEMCPY, &w, sizeof w, NULL, 0);
}

static void
emit_memcpy_peer (const CUpti_ActivityMemcpyPtoP4 *m)
{
  SlWireMemcpy w = { 0 };

  if (!_sl_capture_covers (session_time (m->start)))
    return; /* outside the capture ranges */
  w.start_ns = session_time (m->start);
  w.end_ns = session_time (m->end);
  w.bytes = m->bytes;
  w.device_id = m->deviceId;
  w.context_id = m->contextId;
  w.stream_id = m->streamId;
  w.correlation_id = m->correlationId;
  w.copy_kind = copy_kind (m->copyKind);
  w.src_kind = mem_kind (m->srcKind);
  w.dst_kind = mem_kind (m->dstKind);
  w.src_device_id = m->srcDeviceId;
  w.dst_device_id = m->dstDeviceId;
  emit (SL_WIRE_MEMCPY, &w, sizeof w, NULL, 0);
}

static void
emit_memset (const CUpti_ActivityMemset4 *m)
{
  SlWireMemset w = { 0 };

  if (!_sl_capture_covers (session_time (m->start)))
    return; /* outside the capture ranges */
  w.start_ns = session_time (m->start);
  w.end_ns = session_time (m->end);
  w.bytes = m->bytes;
  w.device_id = m->deviceId;
  w.context_id = m->contextId;
  w.stream_id = m->streamId;
  w.correlation_id = m->correlationId;
  w.value = m->value;
  w.mem_kind = mem_kind (m->memoryKind);
  emit (SL_WIRE_MEMSET, &w, sizeof w, NULL, 0);
}

static void
emit_sync (const CUpti_ActivitySynchronization2 *s)
{
  SlWireSync w = { 0 };

  if (!_sl_capture_covers (session_time (s->start)))
    return; /* outside the capture ranges */
  w.start_ns = session_time (s->start);
  w.end_ns = session_time (s->end);
  w.device_id = context_device (s->contextId);
  w.context_id = s->contextId;
  /* CUPTI_SYNCHRONIZATION_INVALID_VALUE is UINT32_MAX, the wire's "none" */
  w.stream_id = s->streamId;
  w.correlation_id = s->correlationId;
  w.sync_type = sync_type (s->type);
  w.event_id = s->cudaEventId;
  /* CUPTI_SYNCHRONIZATION_INVALID_VALUE (32 bits) where no event is waited for; not in the
   * records before CUpti_ActivitySynchronization2 */
  w.event_sync_id = cupti_version () >= SL_CUPTI_V_12_8 ? s->cudaEventSyncId : SL_WIRE_ABSENT_ID;
  emit (SL_WIRE_SYNC, &w, sizeof w, NULL, 0);
}

static void
emit_cuda_event (const CUpti_ActivityCudaEvent2 *e)
{
  SlWireCudaEvent w = { 0 };

  if (cupti_version () >= SL_CUPTI_V_12_8)
    {
      w.timestamp_ns = session_time (e->deviceTimestamp);
      w.event_sync_id = e->cudaEventSyncId;
      w.device_id = e->deviceId;
    }
  else
    {
      /* CUpti_ActivityCudaEvent: no device, no time on the GPU, nothing a synchronization names
       * it by; the device is its context's */
      w.timestamp_ns = 0;
      w.event_sync_id = SL_WIRE_ABSENT_ID;
      w.device_id = context_device (e->contextId);
    }
  w.context_id = e->contextId;
  w.stream_id = e->streamId;
  w.correlation_id = e->correlationId;
  w.event_id = e->eventId;
  emit (SL_WIRE_CUDA_EVENT, &w, sizeof w, NULL, 0);
}

/* The exec's id a graph launch's callback left for `correlation_id`, 0 when it did not.  A slot
 * that a later launch took (more than SL_CUPTI_GRAPH_EXECS launches between a launch and its
 * record's flush) lost this one's id: counted as SL_DROP_GRAPH_EXEC, which the trace reports. */
static uint32_t
graph_exec_of (uint32_t correlation_id)
{
  uint64_t v = atomic_load_explicit (&cu.graph_execs[correlation_id % SL_CUPTI_GRAPH_EXECS],
                                     memory_order_relaxed);
  uint32_t noted = (uint32_t) (v >> 32);

  if (noted == correlation_id)
    return (uint32_t) v;
  /* correlation ids grow: the difference as 32 signed bits survives their wrap */
  if (v != 0 && (int32_t) (noted - correlation_id) > 0)
    _sl_count_drop (SL_DROP_GRAPH_EXEC, 1);
  return 0;
}

static void
emit_graph (const CUpti_ActivityGraphTrace2 *g)
{
  SlWireGraph w = { 0 };

  if (!_sl_capture_covers (session_time (g->start)))
    return; /* outside the capture ranges */
  w.start_ns = session_time (g->start);
  w.end_ns = session_time (g->end);
  /* INT_MAX: the graph starts on the host; nsys keeps the value as CUPTI gives it */
  w.device_id = g->deviceId;
  w.context_id = g->contextId;
  w.stream_id = g->streamId;
  w.correlation_id = g->correlationId;
  w.graph_id = g->graphId;
  w.graph_exec_id = graph_exec_of (g->correlationId);
  emit (SL_WIRE_GRAPH, &w, sizeof w, NULL, 0);
}

/* CUPTI_ACTIVITY_KIND_MEMORY2: an allocation or a release.  The fields read are those of its
 * first version, CUpti_ActivityMemory2 (CUDA 11.2), at the same offsets in every later one
 * (tests/cupti/fake-cupti.c checks it): no version gate. */
static void
emit_memory (const CUpti_ActivityMemory4 *m)
{
  SlWireCudaMemory w = { 0 };

  if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION)
    w.operation = SL_MEM_OPER_ALLOCATION;
  else if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
    w.operation = SL_MEM_OPER_DEALLOCATION;
  else
    return; /* CUPTI's "invalid": nothing happened */
  if (!_sl_capture_covers (session_time (m->timestamp)))
    return; /* outside the capture ranges */
  w.time_ns = session_time (m->timestamp);
  w.address = m->address;
  w.bytes = m->bytes;
  w.pc = m->PC;
  w.device_id = m->deviceId;
  /* a device-static variable has no context: nsys writes 0 (its column is NOT NULL) */
  w.context_id = m->contextId == CUPTI_INVALID_CONTEXT_ID ? 0 : m->contextId;
  w.correlation_id = m->correlationId;
  w.mem_kind = mem_kind (m->memoryKind);
  emit (SL_WIRE_CUDA_MEMORY, &w, sizeof w, m->name != NULL ? m->name : "", 0);
}

/* CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER: the migrations and page faults configured at start
 * (um_start); others (thrashing, throttling, remote maps) are not asked for and dropped.  Fields
 * of CUpti_ActivityUnifiedMemoryCounter2 (CUDA 7.0) only, at the same offsets in 3: no gate. */
static void
emit_um (const CUpti_ActivityUnifiedMemoryCounter3 *u)
{
  SlWireUm w = { 0 };

  switch (u->counterKind)
    {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
      w.kind = SL_UM_HTOD;
      w.device_id = u->dstId; /* the GPU the pages went to */
      break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
      w.kind = SL_UM_DTOH;
      w.device_id = u->srcId;
      break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT:
      w.kind = SL_UM_CPU_FAULT;
      break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
      w.kind = SL_UM_GPU_FAULT;
      w.device_id = u->srcId; /* the GPU that faulted */
      break;
    default:
      return;
    }
  if (!_sl_capture_covers (session_time (u->start)))
    return; /* outside the capture ranges */
  w.start_ns = session_time (u->start);
  /* a CPU fault's end is not set (CUPTI: "ignore this field") */
  w.end_ns = w.kind == SL_UM_CPU_FAULT || u->end < u->start ? w.start_ns : session_time (u->end);
  w.address = u->address;
  w.value = u->value;
  /* CUpti_ActivityUnifiedMemoryMigrationCause and _AccessType are nsys's ENUM_CUDA_UNIF_MEM_*:
   * their 0 ... 5 and 0 ... 4; what a newer CUPTI adds beyond becomes 0, "Unknown" */
  if (w.kind == SL_UM_HTOD || w.kind == SL_UM_DTOH)
    w.flags = u->flags <= CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_ACCESS_COUNTERS ? u->flags
                                                                                         : 0;
  else if (w.kind == SL_UM_GPU_FAULT)
    w.flags = u->flags <= CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_PREFETCH ? u->flags : 0;
  emit (SL_WIRE_UM, &w, sizeof w, NULL, 0);
}

static void
emit_api (const CUpti_ActivityAPI *a)
{
  bool runtime = a->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
  SlWireCudaApi w = { 0 };
  char unknown[48];
  const char *name = api_name (runtime, a->cbid);

  if (!_sl_capture_covers (session_time (a->start)))
    return; /* outside the capture ranges */
  w.start_ns = session_time (a->start);
  w.end_ns = session_time (a->end);
  w.correlation_id = a->correlationId;
  w.event_class = runtime ? SL_EVENT_CLASS_CUDA_RUNTIME : SL_EVENT_CLASS_CUDA_DRIVER;
  w.return_value = (int32_t) a->returnValue;
  w.cbid = a->cbid;
  if (name == NULL)
    {
      /* a newer driver than this CUPTI knows */
      snprintf (unknown, sizeof unknown, "%s_cbid_%u", runtime ? "cudaRuntime" : "cuDriver",
                (unsigned) a->cbid);
      name = unknown;
    }
  /* on the thread that made the call (CUPTI is told to report kernel tids) */
  emit (SL_WIRE_CUDA_API, &w, sizeof w, name, a->threadId);
}

static int32_t
clamp_i32 (uint64_t v)
{
  return v > INT32_MAX ? INT32_MAX : (int32_t) v;
}

static void
emit_device (const CUpti_ActivityDevice5 *d)
{
  SlWireGpu w = { 0 };

  w.device_id = d->id;
  w.compute_major = clamp_i32 (d->computeCapabilityMajor);
  w.compute_minor = clamp_i32 (d->computeCapabilityMinor);
  w.sm_count = clamp_i32 (d->numMultiprocessors);
  w.max_threads_per_block = clamp_i32 (d->maxThreadsPerBlock);
  w.max_warps_per_sm = clamp_i32 (d->maxWarpsPerMultiprocessor);
  w.max_blocks_per_sm = clamp_i32 (d->maxBlocksPerMultiprocessor);
  w.max_registers_per_block = clamp_i32 (d->maxRegistersPerBlock);
  w.max_registers_per_sm = clamp_i32 (d->maxRegistersPerMultiprocessor);
  w.max_shmem_per_block = clamp_i32 (d->maxSharedMemoryPerBlock);
  w.max_shmem_per_sm = clamp_i32 (d->maxSharedMemoryPerMultiprocessor);
  /* Not in CUPTI's record.  The opt-in limit is the SM's shared memory less the 1 KiB the
   * driver reserves per block from compute capability 8.0 on (A100 163 KiB of 164, H100 227 of
   * 228, sm_86/89/120 99 of 100); all of it on 7.x; the plain 48 KiB before.  Checked against
   * maxShmemPerBlockOptin of every GPU in the real exports. */
  if (d->computeCapabilityMajor >= 8 && d->maxSharedMemoryPerMultiprocessor > 1024)
    w.max_shmem_per_block_optin = clamp_i32 (d->maxSharedMemoryPerMultiprocessor - 1024);
  else if (d->computeCapabilityMajor == 7)
    w.max_shmem_per_block_optin = clamp_i32 (d->maxSharedMemoryPerMultiprocessor);
  else
    w.max_shmem_per_block_optin = clamp_i32 (d->maxSharedMemoryPerBlock);
  w.threads_per_warp = clamp_i32 (d->numThreadsPerWarp);
  w.clock_rate_khz = clamp_i32 (d->coreClockRate);
  w.async_engines = clamp_i32 (d->numMemcpyEngines);
  w.l2_cache_size = clamp_i32 (d->l2CacheSize);
  w.total_memory = d->globalMemorySize;
  w.memory_bandwidth = d->globalMemoryBandwidth * 1000; /* CUPTI: kB/s; an RTX 3090: 936 GB/s */
  w.max_block_dim[0] = clamp_i32 (d->maxBlockDimX);
  w.max_block_dim[1] = clamp_i32 (d->maxBlockDimY);
  w.max_block_dim[2] = clamp_i32 (d->maxBlockDimZ);
  w.max_grid_dim[0] = clamp_i32 (d->maxGridDimX);
  w.max_grid_dim[1] = clamp_i32 (d->maxGridDimY);
  w.max_grid_dim[2] = clamp_i32 (d->maxGridDimZ);
  _Static_assert (sizeof w.uuid == sizeof d->uuid.bytes, "UUIDs are 16 bytes");
  memcpy (w.uuid, d->uuid.bytes, sizeof w.uuid);
  pci_location (w.uuid, &w.pci_domain, &w.pci_bus, &w.pci_device);
  emit (SL_WIRE_GPU, &w, sizeof w, d->name != NULL ? d->name : "", 0);
}

static void
emit_context (const CUpti_ActivityContext3 *c)
{
  SlWireContext w = { 0 };

  remember_context (c->contextId, c->deviceId);
  w.device_id = c->deviceId;
  w.context_id = c->contextId;
  w.null_stream_id = c->nullStreamId;
  emit (SL_WIRE_CONTEXT, &w, sizeof w, NULL, 0);
}

static void
emit_stream (const CUpti_ActivityStream *s)
{
  SlWireStream w = { 0 };

  w.device_id = context_device (s->contextId);
  w.context_id = s->contextId;
  w.stream_id = s->streamId;
  w.priority = (int32_t) s->priority; /* nsys keeps it unsigned: 4294967291 is -5 */
  w.flag = stream_type (s->flag);
  emit (SL_WIRE_STREAM, &w, sizeof w, NULL, 0);
}

void
_sl_cupti_emit_record (const CUpti_Activity *record)
{
  if (record == NULL)
    return;
  switch (record->kind)
    {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      emit_kernel ((const CUpti_ActivityKernel10 *) record);
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      emit_memcpy ((const CUpti_ActivityMemcpy6 *) record);
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      emit_memcpy_peer ((const CUpti_ActivityMemcpyPtoP4 *) record);
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      emit_memset ((const CUpti_ActivityMemset4 *) record);
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      emit_sync ((const CUpti_ActivitySynchronization2 *) record);
      break;
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      emit_cuda_event ((const CUpti_ActivityCudaEvent2 *) record);
      break;
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
      emit_graph ((const CUpti_ActivityGraphTrace2 *) record);
      break;
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      emit_memory ((const CUpti_ActivityMemory4 *) record);
      break;
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER:
      emit_um ((const CUpti_ActivityUnifiedMemoryCounter3 *) record);
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      emit_api ((const CUpti_ActivityAPI *) record);
      break;
    case CUPTI_ACTIVITY_KIND_DEVICE:
      emit_device ((const CUpti_ActivityDevice5 *) record);
      break;
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      emit_context ((const CUpti_ActivityContext3 *) record);
      break;
    case CUPTI_ACTIVITY_KIND_STREAM:
      emit_stream ((const CUpti_ActivityStream *) record);
      break;
    default:
      break; /* overhead and others we did not ask for */
    }
}

size_t
_sl_cupti_walk_buffer (uint8_t *buffer,
                       size_t   valid_size,
                       size_t   dropped)
{
  CUpti_Activity *record = NULL;
  size_t n = 0;

  if (buffer != NULL && valid_size > 0 && _sl_cupti_load (NULL, 0))
    for (;;)
      {
        CUptiResult r = cuptiActivityGetNextRecord (buffer, valid_size, &record);
        if (r == CUPTI_ERROR_MAX_LIMIT_REACHED)
          break;
        if (r != CUPTI_SUCCESS)
          {
            /* an incomplete or unknown record: the rest of the buffer cannot be walked */
            report ("cuptiActivityGetNextRecord", r);
            break;
          }
        _sl_cupti_emit_record (record);
        n++;
      }
  if (dropped > 0)
    _sl_count_drop (SL_DROP_CUPTI, dropped);
  return n;
}

/* ---------------------------------------------------------------------------------------------- */
/* CUPTI's callbacks                                                                              */

static void CUPTIAPI
buffer_requested_cb (uint8_t **buffer,
                     size_t   *size,
                     size_t   *max_records)
{
  uint8_t *b = NULL;

  _sl_enter_library ();
  pthread_mutex_lock (&cu.pool_lock);
  if (cu.n_pool > 0)
    b = cu.pool[--cu.n_pool];
  pthread_mutex_unlock (&cu.pool_lock);
  _sl_leave_library ();
  /* calloc'd: the kernel's zero pages, so CUPTI need not clear 8 MiB on the program's thread
   * (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER); malloc's alignment is CUPTI's 8 and more */
  if (b == NULL)
    b = calloc (1, SL_CUPTI_BUFFER_SIZE);
  *buffer = b;
  *size = b != NULL ? SL_CUPTI_BUFFER_SIZE : 0; /* none: CUPTI drops and counts */
  *max_records = 0;
}

static void CUPTIAPI
buffer_completed_cb (CUcontext context,
                     uint32_t  stream_id,
                     uint8_t  *buffer,
                     size_t    size,
                     size_t    valid_size)
{
  size_t dropped = 0;
  int depth = 0;

  (void) context;
  (void) stream_id;
  /* the records are the program's even when CUPTI calls us from inside our own flush */
  while (_sl_in_library ())
    {
      _sl_leave_library ();
      depth++;
    }
  if (cuptiActivityGetNumDroppedRecords (NULL, 0, &dropped) != CUPTI_SUCCESS)
    dropped = 0;
  _sl_cupti_walk_buffer (buffer, valid_size, dropped);
  while (depth-- > 0)
    _sl_enter_library ();
  if (buffer == NULL)
    return;
  /* back to all zeros (CUPTI wrote only the valid part), then to the pool or away */
  memset (buffer, 0, valid_size <= size ? valid_size : size);
  _sl_enter_library ();
  pthread_mutex_lock (&cu.pool_lock);
  if (size == SL_CUPTI_BUFFER_SIZE && cu.n_pool < SL_CUPTI_POOL)
    {
      cu.pool[cu.n_pool++] = buffer;
      buffer = NULL;
    }
  pthread_mutex_unlock (&cu.pool_lock);
  _sl_leave_library ();
  free (buffer);
}

static uint64_t CUPTIAPI
timestamp_cb (void)
{
  return _sl_now ();
}

/* A graph launch's entry: CUPTI's GRAPH_TRACE record has the graph's id but not its exec's, which
 * nsys writes (graphExecId); the launch's parameters name the exec.  Allocation-free, on the
 * program's thread, once per graph launch. */
static void
graph_launch (CUpti_CallbackDomain       domain,
              CUpti_CallbackId           cbid,
              const CUpti_CallbackData *data)
{
  CUgraphExec exec = NULL;
  uint32_t id = 0;

  if (data->functionParams == NULL || cuptiGetGraphExecId == NULL)
    return; /* an older CUPTI: the rows get graphExecId 0 */
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API
      && (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000
          || cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000))
    /* both parameter structs start with the exec */
    exec = (CUgraphExec) ((const cudaGraphLaunch_v10000_params *) data->functionParams)->graphExec;
  else if (domain == CUPTI_CB_DOMAIN_DRIVER_API
           && (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch
               || cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz))
    exec = ((const cuGraphLaunch_params *) data->functionParams)->hGraph;
  if (exec == NULL || cuptiGetGraphExecId (exec, &id) != CUPTI_SUCCESS)
    return;
  atomic_store_explicit (&cu.graph_execs[data->correlationId % SL_CUPTI_GRAPH_EXECS],
                         (uint64_t) data->correlationId << 32 | id, memory_order_relaxed);
}

static bool
is_graph_launch (CUpti_CallbackDomain domain,
                 CUpti_CallbackId     cbid)
{
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000
           || cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000;
  return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch
         || cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

/* cudaProfilerStart (`start`) or cudaProfilerStop, of the runtime or the driver. */
static bool
is_profiler_call (CUpti_CallbackDomain domain,
                  CUpti_CallbackId     cbid,
                  bool                 start)
{
  if (!_sl_capture_by_profiler_api ())
    return false;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
    return cbid == (start ? CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
                          : CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
  return cbid == (start ? CUPTI_DRIVER_TRACE_CBID_cuProfilerStart
                        : CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
}

/* The class of a call by its CUPTI name (SL_BT_*): nsys's kernel, memory and sync groups. */
static unsigned
call_class (const char *name)
{
  static const char *const memory[] = { "Malloc", "Free", "Memcpy", "Memset", "MemAlloc",
                                        "MemFree", "HostAlloc", "MemPrefetch" };

  if (strstr (name, "Synchronize") != NULL)
    return SL_BT_SYNC;
  if (strstr (name, "Launch") != NULL)
    return SL_BT_KERNEL;
  for (size_t i = 0; i < sizeof memory / sizeof memory[0]; i++)
    if (strstr (name, memory[i]) != NULL)
      return SL_BT_MEMORY;
  return SL_BT_OTHER;
}

/* Reads nsys's --cudabacktrace value ("all", "none", or CLASS[:NS] separated by commas, CLASS
 * one of kernel, memory, sync, other; NS 80 µs where not given).  False for none or nonsense. */
static bool
backtrace_parse (const char *v)
{
  static const char *const names[SL_BT_N] = { "kernel", "memory", "sync", "other" };
  char buf[256];

  cu.bt_classes = 0;
  if (v == NULL || *v == '\0' || strlen (v) >= sizeof buf)
    return false;
  snprintf (buf, sizeof buf, "%s", v);
  for (char *save = NULL, *item = strtok_r (buf, ",", &save); item != NULL;
       item = strtok_r (NULL, ",", &save))
    {
      char *colon = strchr (item, ':');
      uint64_t ns = SL_BT_DEFAULT_NS;
      if (colon != NULL)
        {
          *colon = '\0';
          ns = strtoull (colon + 1, NULL, 10);
        }
      for (unsigned k = 0; k < SL_BT_N; k++)
        if (strcmp (item, "all") == 0 || strcmp (item, names[k]) == 0)
          {
            cu.bt_classes |= 1u << k;
            cu.bt_threshold[k] = ns;
          }
    }
  return cu.bt_classes != 0;
}

/* The calling thread's depth in runtime calls that take backtraces: a driver call made by one
 * (cudaStreamSynchronize's cuStreamSynchronize) is the same call, not a second backtrace. */
static __thread unsigned tls_runtime_depth __attribute__ ((tls_model ("initial-exec")));

/* The backtrace of a CUDA call, from `from` (the return address into CUDA's code that called
 * our callback) up, with the Python frames merged in as samples have them: sent now, tied by
 * the daemon to the call's record by its correlation id.  ~2 … 10 µs for 10 … 40 frames. */
static void __attribute__ ((noinline))
emit_backtrace (uint64_t from,
                uint32_t correlation_id,
                uint32_t event_class)
{
  uint64_t frames[SL_WIRE_MAX_FRAMES];
  uint32_t n;

  _sl_enter_library (); /* the unwinder may lock or read: not the program's OS calls */
  n = _sl_unwind_from (from, frames, SL_WIRE_MAX_FRAMES);
  _sl_leave_library ();
  if (n == 0)
    {
      frames[0] = from; /* no unwind information: where CUDA called us at least */
      n = 1;
    }
  n = _sl_python_merge (frames, n, SL_WIRE_MAX_FRAMES, false);
  SlWireCudaBacktrace *r
      = _sl_emit_begin (SL_WIRE_CUDA_BACKTRACE, (uint32_t) (sizeof *r + n * sizeof *frames));
  if (r == NULL)
    return; /* counted by the core */
  r->time_ns = _sl_now ();
  r->correlation_id = correlation_id;
  r->event_class = event_class;
  r->n_frames = n;
  r->pad = 0;
  memcpy (r + 1, frames, n * sizeof *frames);
  _sl_emit_end (r);
}

/* Our one subscriber's callback (CUPTI allows one): graph launches' exec ids, backtraces of
 * the calls their class asks for, the profiler API's capture ranges.  On the program's thread,
 * for the enabled cbids only: a backtrace-less call costs two calls here and a clock read. */
static void CUPTIAPI
api_cb (void                *userdata,
        CUpti_CallbackDomain domain,
        CUpti_CallbackId     cbid,
        const void          *cbdata)
{
  uint64_t from = (uint64_t) (uintptr_t) __builtin_extract_return_addr (
      __builtin_return_address (0));
  const CUpti_CallbackData *data = cbdata;
  bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  unsigned cls = 0;

  (void) userdata;
  if (data == NULL
      || (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API))
    return;
  if (runtime && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
    cls = cu.bt_runtime[cbid];
  else if (!runtime && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
    cls = cu.bt_driver[cbid];
  if (data->callbackSite == CUPTI_API_ENTER)
    {
      /* the exec is an input: noted before the launch, so that a flush on another thread cannot
       * deliver the launch's record before it is known */
      if (cu.graph_trace && is_graph_launch (domain, cbid))
        graph_launch (domain, cbid, data);
      if (is_profiler_call (domain, cbid, false))
        _sl_capture_end (); /* before cudaProfilerStop: the call is not in the range */
      if (cls != 0 && data->correlationData != NULL)
        {
          *data->correlationData = _sl_now ();
          if (runtime)
            tls_runtime_depth++;
        }
      return;
    }
  if (data->callbackSite != CUPTI_API_EXIT)
    return;
  if (cls != 0 && data->correlationData != NULL)
    {
      uint64_t t0 = *data->correlationData;
      if (runtime && tls_runtime_depth > 0)
        tls_runtime_depth--;
      if (t0 != 0 && (runtime || tls_runtime_depth == 0) && _sl_capturing ()
          && _sl_now () - t0 >= cu.bt_threshold[cls - 1])
        emit_backtrace (from, data->correlationId,
                        runtime ? SL_EVENT_CLASS_CUDA_RUNTIME : SL_EVENT_CLASS_CUDA_DRIVER);
    }
  if (is_profiler_call (domain, cbid, true))
    _sl_capture_begin (); /* after cudaProfilerStart: the call is not in the range */
}

/* Enables `cbid` for our callback (api_cb). */
static void
enable_cbid (SlCuptiFailures       *f,
             CUpti_SubscriberHandle subscriber,
             CUpti_CallbackDomain   domain,
             CUpti_CallbackId       cbid,
             const char            *what)
{
  check (f, what, cuptiEnableCallback (1, subscriber, domain, cbid));
}

/* Subscribes to the calls we need a callback for: graph launches (graphExecId), the classes of
 * --cudabacktrace, cudaProfilerStart/Stop (--capture-range=cudaProfilerApi).  A CUPTI without
 * the callback API, or another subscriber (CUPTI allows one), costs those: the rows are written
 * with graphExecId 0 and no backtraces, a capture range never starts (said on stderr and in the
 * trace's DIAGNOSTIC_EVENT; where CUPTI records no kernel at all, in start-up's one line). */
static void
callbacks_start (SlCuptiFailures *f,
                 bool             kernels)
{
  static const struct
  {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId cbid;
  } launches[] = {
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000 },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz },
  }, profiler[] = {
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000 },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop },
  };
  CUpti_SubscriberHandle subscriber = NULL;
  bool backtraces = backtrace_parse (getenv ("SIGHTLINE_CUDA_BACKTRACE"));
  bool profiler_api = _sl_capture_by_profiler_api ();

  if (!cu.graph_trace && !backtraces && !profiler_api)
    return;
  CUptiResult r = cuptiSubscribe == NULL || cuptiEnableCallback == NULL
                      ? CUPTI_ERROR_NOT_SUPPORTED
                      : cuptiSubscribe (&subscriber, api_cb, NULL);
  if (r != CUPTI_SUCCESS && !kernels)
    {
      /* CUPTI refuses everything (no driver): one line says so */
      check (f, "cuptiSubscribe", r);
      return;
    }
  if (r != CUPTI_SUCCESS)
    {
      /* what the callbacks were for, said in the trace and on stderr: not a silent loss */
      char lost[160], text[600];
      snprintf (lost, sizeof lost, "%s%s%s%s%s",
                cu.graph_trace ? "graph launches' graphExecId" : "",
                cu.graph_trace && (backtraces || profiler_api) ? ", " : "",
                backtraces ? "CUDA backtraces (--cudabacktrace)" : "",
                backtraces && profiler_api ? ", " : "",
                profiler_api ? "the cudaProfilerApi capture range, which never starts" : "");
      if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        snprintf (text, sizeof text,
                  "another CUPTI subscriber is in this process (the program's own profiler, such "
                  "as PyTorch's Kineto, or another CUPTI tool; CUPTI allows one): cuptiSubscribe "
                  "failed: %s.  CUDA activity is recorded, without %s.  Turn the program's own "
                  "profiler off, or record without CUDA tracing (-t nvtx,osrt)",
                  result_text (r), lost);
      else
        snprintf (text, sizeof text,
                  "CUPTI's callbacks are not available (cuptiSubscribe: %s): CUDA activity is "
                  "recorded, without %s",
                  cuptiSubscribe == NULL || cuptiEnableCallback == NULL ? "not in this CUPTI"
                                                                        : result_text (r),
                  lost);
      say_and_diagnose (SL_DIAG_WARNING, text);
      return;
    }
  if (cu.graph_trace && cuptiGetGraphExecId != NULL)
    for (size_t i = 0; i < sizeof launches / sizeof launches[0]; i++)
      enable_cbid (f, subscriber, launches[i].domain, launches[i].cbid,
                   "cuptiEnableCallback(graph launch)");
  if (profiler_api)
    for (size_t i = 0; i < sizeof profiler / sizeof profiler[0]; i++)
      enable_cbid (f, subscriber, profiler[i].domain, profiler[i].cbid,
                   "cuptiEnableCallback(cudaProfilerStart/Stop)");
  if (!backtraces)
    return;
  /* each call of a class asked for, by its name (CUPTI's names are nsys's) */
  for (int d = 0; d < 2; d++)
    {
      CUpti_CallbackDomain domain = d == 0 ? CUPTI_CB_DOMAIN_RUNTIME_API
                                           : CUPTI_CB_DOMAIN_DRIVER_API;
      uint32_t size = d == 0 ? CUPTI_RUNTIME_TRACE_CBID_SIZE : CUPTI_DRIVER_TRACE_CBID_SIZE;
      uint8_t *classes = d == 0 ? cu.bt_runtime : cu.bt_driver;
      for (uint32_t cbid = 1; cbid < size; cbid++)
        {
          const char *name = NULL;
          if (cuptiGetCallbackName (domain, cbid, &name) != CUPTI_SUCCESS || name == NULL)
            continue;
          unsigned k = call_class (name);
          if ((cu.bt_classes & (1u << k)) == 0)
            continue;
          classes[cbid] = (uint8_t) (k + 1);
          enable_cbid (f, subscriber, domain, cbid, "cuptiEnableCallback(backtraces)");
        }
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* Start, flush, stop                                                                             */

void
_sl_cupti_wait_ms (pthread_cond_t  *cond,
                   pthread_mutex_t *lock,
                   long             ms)
{
  struct timespec until;

  clock_gettime (CLOCK_REALTIME, &until);
  until.tv_nsec += ms * 1000000L;
  until.tv_sec += until.tv_nsec / 1000000000L;
  until.tv_nsec %= 1000000000L;
  pthread_cond_timedwait (cond, lock, &until);
}

/* Asks CUPTI for the buffers whose records are all complete, full or not (CUPTI's "default
 * flush", meant to be called periodically from a thread of the client's). */
static void *
flush_thread_main (void *data)
{
  (void) data;
  _sl_enter_library (); /* its waits and CUPTI's calls are not the program's */
  _sl_name_library_thread ("sightline-cupti");
  pthread_mutex_lock (&cu.flush_lock);
  while (!cu.flush_stop)
    {
      _sl_cupti_wait_ms (&cu.flush_cond, &cu.flush_lock, SL_CUPTI_FLUSH_MS);
      if (cu.flush_stop)
        break;
      pthread_mutex_unlock (&cu.flush_lock);
      cuptiActivityFlushAll (0);
      pthread_mutex_lock (&cu.flush_lock);
    }
  pthread_mutex_unlock (&cu.flush_lock);
  _sl_leave_library ();
  return NULL;
}

static void
flush_thread_start (void)
{
  sigset_t all, old;

  /* no signal meant for the program lands on our thread */
  sigfillset (&all);
  _sl_enter_library ();
  pthread_sigmask (SIG_BLOCK, &all, &old);
  if (pthread_create (&cu.flush_thread, NULL, flush_thread_main, NULL) == 0)
    cu.flush_thread_pid = getpid ();
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  _sl_leave_library ();
}

static void
flush_thread_stop (void)
{
  if (cu.flush_thread_pid == 0 || cu.flush_thread_pid != getpid ())
    return; /* none, or the parent's (a forked child has only the forking thread) */
  _sl_enter_library ();
  pthread_mutex_lock (&cu.flush_lock);
  cu.flush_stop = true;
  pthread_cond_signal (&cu.flush_cond);
  pthread_mutex_unlock (&cu.flush_lock);
  pthread_join (cu.flush_thread, NULL);
  _sl_leave_library ();
  cu.flush_thread_pid = 0;
}

/* "true" (as nsys writes its booleans) or "1" in the environment variable `name`. */
static bool
env_true (const char *name)
{
  const char *v = getenv (name);

  return v != NULL && (strcmp (v, "true") == 0 || strcmp (v, "1") == 0);
}

/* nsys --cuda-memory-usage=true: every allocation and release as a MEMORY2 record.  A CUPTI that
 * refuses it (before CUDA 11.2) costs that table only, said on stderr and in the trace. */
static void
memory_start (void)
{
  CUptiResult r;
  char text[320];

  if (!env_true ("SIGHTLINE_CUDA_MEMORY_USAGE"))
    return;
  r = cuptiActivityEnable (CUPTI_ACTIVITY_KIND_MEMORY2);
  cu.memory_usage = r == CUPTI_SUCCESS;
  if (cu.memory_usage)
    return;
  snprintf (text, sizeof text,
            "--cuda-memory-usage could not be enabled (cuptiActivityEnable("
            "CUPTI_ACTIVITY_KIND_MEMORY2): %s): GPU memory allocations are not recorded",
            result_text (r));
  say_and_diagnose (SL_DIAG_WARNING, text);
}

/* nsys --cuda-um-cpu-page-faults / --cuda-um-gpu-page-faults: CUPTI's unified-memory counters
 * for the faults asked for, and the migrations (host to device and back) either asks for, are
 * configured, then their records enabled.  CUPTI refuses where the driver or platform cannot
 * count them (CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED*: some virtual machines, MPS, GPUs
 * without peer access to one another, Windows' WDDM): that is said, and the rest is recorded. */
static void
um_start (void)
{
  bool cpu = env_true ("SIGHTLINE_CUDA_UM_CPU_PAGE_FAULTS");
  bool gpu = env_true ("SIGHTLINE_CUDA_UM_GPU_PAGE_FAULTS");
  CUpti_ActivityUnifiedMemoryCounterConfig config[4];
  const CUpti_ActivityUnifiedMemoryCounterKind kinds[4] = {
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
  };
  const char *what = "cuptiActivityConfigureUnifiedMemoryCounter";
  CUptiResult r;
  char text[480];

  if (!cpu && !gpu)
    return;
  memset (config, 0, sizeof config);
  for (int i = 0; i < 4; i++)
    {
      config[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_ALL_DEVICES;
      config[i].kind = kinds[i];
      config[i].deviceId = 0;
      config[i].enable = i < 2 || (i == 2 && cpu) || (i == 3 && gpu);
    }
  r = cuptiActivityConfigureUnifiedMemoryCounter == NULL
          ? CUPTI_ERROR_NOT_SUPPORTED
          : cuptiActivityConfigureUnifiedMemoryCounter (config, 4);
  if (r == CUPTI_SUCCESS)
    {
      what = "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)";
      r = cuptiActivityEnable (CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    }
  cu.unified_memory = r == CUPTI_SUCCESS;
  if (cu.unified_memory)
    return;
  snprintf (text, sizeof text,
            "%s%s%s could not be enabled (%s: %s): unified memory's page faults and migrations "
            "are not recorded, the rest is",
            cpu ? "--cuda-um-cpu-page-faults" : "", cpu && gpu ? " and " : "",
            gpu ? "--cuda-um-gpu-page-faults" : "", what,
            cuptiActivityConfigureUnifiedMemoryCounter == NULL ? "not in this CUPTI"
                                                               : result_text (r));
  say_and_diagnose (SL_DIAG_WARNING, text);
}

bool
_sl_cupti_start (void)
{
  static _Atomic int once;
  static const char *const kind_names[] = {
    [CUPTI_ACTIVITY_KIND_DEVICE] = "cuptiActivityEnable(DEVICE)",
    [CUPTI_ACTIVITY_KIND_CONTEXT] = "cuptiActivityEnable(CONTEXT)",
    [CUPTI_ACTIVITY_KIND_STREAM] = "cuptiActivityEnable(STREAM)",
    [CUPTI_ACTIVITY_KIND_RUNTIME] = "cuptiActivityEnable(RUNTIME)",
    [CUPTI_ACTIVITY_KIND_DRIVER] = "cuptiActivityEnable(DRIVER)",
    [CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] = "cuptiActivityEnable(CONCURRENT_KERNEL)",
    [CUPTI_ACTIVITY_KIND_MEMCPY] = "cuptiActivityEnable(MEMCPY)",
    [CUPTI_ACTIVITY_KIND_MEMCPY2] = "cuptiActivityEnable(MEMCPY2)",
    [CUPTI_ACTIVITY_KIND_MEMSET] = "cuptiActivityEnable(MEMSET)",
    [CUPTI_ACTIVITY_KIND_SYNCHRONIZATION] = "cuptiActivityEnable(SYNCHRONIZATION)",
    [CUPTI_ACTIVITY_KIND_CUDA_EVENT] = "cuptiActivityEnable(CUDA_EVENT)",
  };
  const char *graph_mode = getenv ("SIGHTLINE_CUDA_GRAPH_TRACE");
  SlCuptiFailures f = { 0 };
  uint8_t zeroed = 1;
  size_t zeroed_size = sizeof zeroed;
  bool kernels = false;

  if (atomic_exchange (&once, 1))
    return atomic_load (&cu.started);
  char why[256];
  if (!_sl_cupti_load (why, sizeof why))
    {
      /* the program runs on, its CPU side recorded */
      char line[320];
      snprintf (line, sizeof line, "sightline: CUDA is not traced: %s\n", why);
      say (line);
      return false;
    }
  /* API records on the kernel's tid (gettid), not pthread_self() */
  check (&f, "cuptiSetThreadIdType", cuptiSetThreadIdType (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM));
  check (&f, "cuptiActivitySetAttribute(ZEROED_OUT_ACTIVITY_BUFFER)",
         cuptiActivitySetAttribute (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &zeroed_size,
                                    &zeroed));
  if (check (&f, "cuptiActivityRegisterCallbacks",
             cuptiActivityRegisterCallbacks (buffer_requested_cb, buffer_completed_cb)))
    {
      /* before any kind is enabled, so that every record is on our clock */
      if (cuptiActivityRegisterTimestampCallback == NULL
          || cuptiActivityRegisterTimestampCallback (timestamp_cb) != CUPTI_SUCCESS)
        {
          /* an older CUPTI: measure its clock against ours once (~100 ns of error) */
          uint64_t cupti_now = 0;
          uint64_t before = _sl_now ();
          if (cuptiGetTimestamp (&cupti_now) == CUPTI_SUCCESS)
            {
              uint64_t after = _sl_now ();
              cu.time_offset = (int64_t) (before + (after - before) / 2) - (int64_t) cupti_now;
            }
        }
      for (size_t i = 0; i < sizeof activity_kinds / sizeof activity_kinds[0]; i++)
        {
          CUpti_ActivityKind kind = activity_kinds[i];
          bool ok = check (&f, kind_names[kind], cuptiActivityEnable (kind));
          if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            kernels = ok;
        }
      /* nsys's default is graph; node leaves GRAPH_TRACE off, and CUPTI reports the nodes, as
       * it does when GRAPH_TRACE is refused: the mode in effect is what the trace says */
      cu.graph_trace = graph_mode == NULL || strcmp (graph_mode, "node") != 0;
      if (cu.graph_trace && kernels)
        {
          CUptiResult r = cuptiActivityEnable (CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
          if (r != CUPTI_SUCCESS)
            {
              char text[320];
              cu.graph_trace = false;
              snprintf (text, sizeof text,
                        "--cuda-graph-trace=graph could not be enabled "
                        "(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE): %s): CUDA graphs "
                        "are traced by node, each kernel of a launch a row of its own",
                        result_text (r));
              say_and_diagnose (SL_DIAG_WARNING, text);
            }
        }
      if (kernels)
        {
          diagnose (SL_DIAG_CUDA_GRAPH_MODE, SL_DIAG_INFO, cu.graph_trace ? "Graph" : "Node");
          memory_start ();
          um_start ();
          _sl_cupti_pm_start ();
        }
      callbacks_start (&f, kernels);
    }
  if (f.what != NULL)
    {
      /* e.g. another profiler holds CUPTI (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) */
      char line[320];
      char more[48] = "";
      if (f.more > 0)
        snprintf (more, sizeof more, " (and %u more)", f.more);
      snprintf (line, sizeof line, "%s%s failed: %s%s",
                kernels ? "" : "no CUDA activity recorded: ", f.what, result_text (f.result), more);
      say_and_diagnose (kernels ? SL_DIAG_WARNING : SL_DIAG_ERROR, line);
    }
  cu.started_pid = getpid ();
  atomic_store (&cu.started, kernels ? 1 : 0);
  if (kernels)
    flush_thread_start ();
  return kernels;
}

/* Leaves CUPTI alone in a forked child (DataLoader workers): its threads are the parent's, a lock
 * one of them held at fork time would never be released. */
static bool
started_here (void)
{
  return atomic_load (&cu.started) && cu.started_pid == getpid ();
}

void
_sl_cupti_flush (void)
{
  if (started_here ())
    cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void
_sl_cupti_stop (void)
{
  CUptiResult r;

  if (!started_here () || !atomic_exchange (&cu.started, 0))
    return;
  flush_thread_stop ();
  _sl_cupti_pm_stop ();
  if ((r = cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)) != CUPTI_SUCCESS)
    report ("cuptiActivityFlushAll", r);
  for (size_t i = 0; i < sizeof activity_kinds / sizeof activity_kinds[0]; i++)
    cuptiActivityDisable (activity_kinds[i]);
  if (cu.graph_trace)
    cuptiActivityDisable (CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
  if (cu.memory_usage)
    cuptiActivityDisable (CUPTI_ACTIVITY_KIND_MEMORY2);
  if (cu.unified_memory)
    cuptiActivityDisable (CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
}

/* libcuda's entry point: cuInit loads CUDA_INJECTION64_PATH and calls this once.  Returns 1 even
 * when CUPTI refuses (reported on stderr): the program's cuInit must not fail because of us. */
SL_EXPORT int
InitializeInjection (void)
{
  _sl_inject_ensure_started ();
  if (_sl_trace_enabled ("cuda"))
    _sl_cupti_start ();
  return 1;
}
