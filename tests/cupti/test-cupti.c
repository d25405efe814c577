/* test-cupti.c: the injection library's CUPTI part on activity records built by hand in CUDA 13's
 * own structs (no GPU or driver needed): every field of every wire record, a whole activity buffer
 * walked by CUPTI's cuptiActivityGetNextRecord, CUPTI's dropped-record count, and start-up where
 * CUPTI cannot work. */
#include "sl-inject-cupti.h"
#include "sl-schema.h"
#include "sl-test-util.h"

#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers --------------------------------------------------------------------------------- */

/* _sl_count_drop as the library calls it, seen through the linker's --wrap (tests/cupti.cmake). */
void __real__sl_count_drop (uint32_t source, uint64_t n);
void __wrap__sl_count_drop (uint32_t source, uint64_t n);

static uint64_t cupti_drops;

void
__wrap__sl_count_drop (uint32_t source,
                       uint64_t n)
{
  if (source == SL_DROP_CUPTI)
    cupti_drops += n;
  __real__sl_count_drop (source, n);
}

static void
copy_record_cb (const SlWireHeader *h,
                void               *data)
{
  g_ptr_array_add (data, g_memdup2 (h, h->size));
}

/* Everything emitted since the last call, in order (one thread: one ring). */
static GPtrArray *
drain (void)
{
  GPtrArray *records = g_ptr_array_new_with_free_func (g_free);

  _sl_drain (copy_record_cb, records);
  return records;
}

static void
start (void)
{
  _sl_inject_start_for_test ();
  g_ptr_array_unref (drain ());
}

/* The record's frame as a reader must check it: type, 8-byte size, the producing thread, and
 * for records with text: terminated inside, no larger than needed. */
static const SlWireHeader *
check_frame (GPtrArray *records,
             guint      index,
             SlWireType type,
             size_t     fixed,
             gboolean   has_text)
{
  g_assert_cmpuint (index, <, records->len);
  const SlWireHeader *h = records->pdata[index];
  g_assert_cmpuint (h->type, ==, type);
  g_assert_cmpuint (h->size % 8, ==, 0);
  g_assert_cmpuint (h->size, >=, fixed);
  if (!has_text)
    g_assert_cmpuint (h->size, ==, fixed);
  else
    {
      const char *text = (const char *) h + fixed;
      size_t len = strnlen (text, h->size - fixed);
      g_assert_cmpuint (len, <, h->size - fixed);
      g_assert_cmpuint (h->size, ==, sl_wire_size ((uint32_t) fixed, (uint32_t) len));
      /* the padding is zeros, not stale ring bytes */
      for (size_t i = fixed + len; i < h->size; i++)
        g_assert_cmpint (((const char *) h)[i], ==, 0);
    }
  return h;
}

static const char *
text_of (const SlWireHeader *h,
         size_t              fixed)
{
  return (const char *) h + fixed;
}

static CUpti_ActivityKernel10
make_kernel (uint32_t stream,
             uint32_t correlation,
             uint64_t start_ns,
             uint64_t duration,
             const char *name)
{
  CUpti_ActivityKernel10 k;

  memset (&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start_ns;
  k.end = start_ns + duration;
  k.deviceId = 0;
  k.contextId = 1;
  k.streamId = stream;
  k.correlationId = correlation;
  k.gridX = 64;
  k.gridY = 1;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.registersPerThread = 32;
  k.name = name;
  return k;
}

/* ---- kernels --------------------------------------------------------------------------------- */

static void
test_kernel (void)
{
  static const char *const name
      = "_ZN2at6native24vectorized_gather_kernelILi16ElEEvPcS2_PT0_illllb";
  CUpti_ActivityKernel10 k = make_kernel (13, 4242, 1000000123, 45678, name);
  const SlWireKernel *w;

  start ();
  k.deviceId = 1;
  k.contextId = 2;
  k.gridX = 13;
  k.gridY = 2;
  k.gridZ = 3;
  k.blockX = 96;
  k.blockY = 2;
  k.blockZ = 1;
  k.registersPerThread = 40;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 4096;
  k.localMemoryPerThread = 16;
  k.localMemoryTotal = 12345;
  k.localMemoryTotal_v2 = UINT64_C (250871808);
  k.gridId = INT64_C (1) << 40;
  k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE;
  k.cacheConfig.config.requested = 0;
  k.cacheConfig.config.executed = 2; /* CU_FUNC_CACHE_PREFER_L1 */
  k.sharedMemoryExecuted = 32768;
  k.graphNodeId = UINT64_C (0x123456789a);
  k.graphId = 77;
  k.clusterX = 2;
  k.clusterY = 1;
  k.clusterZ = 1;
  _sl_cupti_emit_record ((const CUpti_Activity *) &k);

  /* the oldest kind names the same struct */
  CUpti_ActivityKernel10 k2 = make_kernel (7, 1, 5, 5, "plain_kernel");
  k2.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  k2.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
  k2.localMemoryTotal = 4096; /* no _v2: the 32-bit field */
  k2.name = NULL;
  _sl_cupti_emit_record ((const CUpti_Activity *) &k2);

  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, 2);
  w = (const SlWireKernel *) check_frame (records, 0, SL_WIRE_KERNEL, sizeof *w, TRUE);
  g_assert_cmpuint (w->start_ns, ==, 1000000123);
  g_assert_cmpuint (w->end_ns, ==, 1000000123 + 45678);
  g_assert_cmpuint (w->device_id, ==, 1);
  g_assert_cmpuint (w->context_id, ==, 2);
  g_assert_cmpuint (w->stream_id, ==, 13);
  g_assert_cmpuint (w->correlation_id, ==, 4242);
  g_assert_cmpint (w->grid_x, ==, 13);
  g_assert_cmpint (w->grid_y, ==, 2);
  g_assert_cmpint (w->grid_z, ==, 3);
  g_assert_cmpint (w->block_x, ==, 96);
  g_assert_cmpint (w->block_y, ==, 2);
  g_assert_cmpint (w->block_z, ==, 1);
  g_assert_cmpint (w->registers_per_thread, ==, 40);
  g_assert_cmpint (w->static_shared_memory, ==, 1024);
  g_assert_cmpint (w->dynamic_shared_memory, ==, 4096);
  g_assert_cmpuint (w->local_memory_per_thread, ==, 16);
  g_assert_cmpuint (w->local_memory_total, ==, 250871808);
  g_assert_cmpint (w->grid_id, ==, INT64_C (1) << 40);
  g_assert_cmpuint (w->launch_type, ==, 2); /* ENUM_CUDA_KERNEL_LAUNCH_TYPE: Coop Single Device */
  g_assert_cmpuint (w->cache_config, ==, 3); /* executed PREFER_L1 + 1, as nsys stores it */
  g_assert_cmpuint (w->shared_memory_executed, ==, 32768);
  g_assert_cmpuint (w->graph_node_id_lo, ==, 0x3456789a);
  g_assert_cmpuint (w->graph_node_id_hi, ==, 0x12);
  g_assert_cmpuint (w->graph_id, ==, 77);
  g_assert_cmpint (w->cluster_x, ==, 2);
  g_assert_cmpint (w->cluster_y, ==, 1);
  g_assert_cmpint (w->cluster_z, ==, 1);
  g_assert_cmpuint (w->flags, ==, 0); /* CUDA 13's CUPTI: clusters known */
  g_assert_cmpstr (text_of (&w->h, sizeof *w), ==, name);

  w = (const SlWireKernel *) check_frame (records, 1, SL_WIRE_KERNEL, sizeof *w, TRUE);
  g_assert_cmpuint (w->stream_id, ==, 7);
  g_assert_cmpuint (w->launch_type, ==, SL_LAUNCH_TYPE_REGULAR);
  g_assert_cmpuint (w->cache_config, ==, 1); /* executed PREFER_NONE */
  g_assert_cmpuint (w->local_memory_total, ==, 4096);
  g_assert_cmpuint (w->graph_node_id_lo, ==, 0);
  g_assert_cmpuint (w->graph_node_id_hi, ==, 0);
  g_assert_cmpstr (text_of (&w->h, sizeof *w), ==, ""); /* no name: empty, still terminated */
}

/* Kernels on several streams keep their stream, correlation and order; a name longer than a
 * record can hold is cut, still terminated. */
static void
test_kernel_streams (void)
{
  static const uint32_t streams[] = { 7, 13, 14, 15 };
  g_autofree char *huge = g_malloc (100000);

  start ();
  for (guint i = 0; i < 12; i++)
    {
      CUpti_ActivityKernel10 k = make_kernel (streams[i % G_N_ELEMENTS (streams)], 100 + i,
                                              2000 + 10 * i, 5, i % 2 ? "_Z4oddsv" : "_Z5evensv");
      _sl_cupti_emit_record ((const CUpti_Activity *) &k);
    }
  memset (huge, 'x', 99999);
  huge[99999] = '\0';
  CUpti_ActivityKernel10 big = make_kernel (7, 999, 1, 1, huge);
  _sl_cupti_emit_record ((const CUpti_Activity *) &big);

  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, 13);
  for (guint i = 0; i < 12; i++)
    {
      const SlWireKernel *w = (const SlWireKernel *) check_frame (records, i, SL_WIRE_KERNEL,
                                                                  sizeof *w, TRUE);
      g_assert_cmpuint (w->stream_id, ==, streams[i % G_N_ELEMENTS (streams)]);
      g_assert_cmpuint (w->correlation_id, ==, 100 + i);
      g_assert_cmpuint (w->start_ns, ==, 2000 + 10 * i);
      g_assert_cmpuint (w->end_ns, ==, 2005 + 10 * i);
      g_assert_cmpint (w->grid_x, ==, 64);
      g_assert_cmpint (w->block_x, ==, 256);
      g_assert_cmpstr (text_of (&w->h, sizeof *w), ==, i % 2 ? "_Z4oddsv" : "_Z5evensv");
    }
  const SlWireKernel *w = (const SlWireKernel *) check_frame (records, 12, SL_WIRE_KERNEL,
                                                              sizeof *w, TRUE);
  g_assert_cmpuint (w->h.size, <=, SL_WIRE_MAX_RECORD - 8);
  g_assert_cmpuint (strlen (text_of (&w->h, sizeof *w)), >, 60000);
  g_assert_cmpuint (w->correlation_id, ==, 999);
}

/* ---- copies and sets ------------------------------------------------------------------------- */

static void
test_memcpy (void)
{
  static const struct
  {
    uint8_t copy, src, dst;
    uint32_t want_copy, want_src, want_dst;
    uint64_t bytes;
  } cases[] = {
#define C(x) CUPTI_ACTIVITY_MEMCPY_KIND_##x
#define K(x) CUPTI_ACTIVITY_MEMORY_KIND_##x
    /* pageable and pinned uploads and downloads, as cudaMemcpy makes them */
    { C (HTOD), K (PAGEABLE), K (DEVICE), SL_MEMCPY_HTOD, SL_MEM_KIND_PAGEABLE, SL_MEM_KIND_DEVICE,
      4 << 20 },
    { C (HTOD), K (PINNED), K (DEVICE), SL_MEMCPY_HTOD, SL_MEM_KIND_PINNED, SL_MEM_KIND_DEVICE,
      1 << 20 },
    { C (DTOH), K (DEVICE), K (PAGEABLE), SL_MEMCPY_DTOH, SL_MEM_KIND_DEVICE, SL_MEM_KIND_PAGEABLE,
      65536 },
    { C (DTOH), K (DEVICE), K (PINNED), SL_MEMCPY_DTOH, SL_MEM_KIND_DEVICE, SL_MEM_KIND_PINNED, 8 },
    { C (DTOD), K (DEVICE), K (DEVICE), SL_MEMCPY_DTOD, SL_MEM_KIND_DEVICE, SL_MEM_KIND_DEVICE,
      123 },
    { C (HTOH), K (PINNED), K (PAGEABLE), SL_MEMCPY_HTOH, SL_MEM_KIND_PINNED, SL_MEM_KIND_PAGEABLE,
      1 },
    /* arrays (ENUM_CUDA_MEMCPY_OPER 3 ... 7 as CUPTI numbers them) and managed memory */
    { C (HTOA), K (PAGEABLE), K (ARRAY), 3, SL_MEM_KIND_PAGEABLE, SL_MEM_KIND_ARRAY, 2 },
    { C (ATOD), K (ARRAY), K (MANAGED), 6, SL_MEM_KIND_ARRAY, SL_MEM_KIND_MANAGED, 3 },
    { C (DTOA), K (DEVICE_STATIC), K (MANAGED_STATIC), 7, 5, 6, 4 },
    /* what CUPTI does not know stays unknown, and never out of the enums' range */
    { C (UNKNOWN), K (UNKNOWN), 200, SL_MEMCPY_UNKNOWN, SL_MEM_KIND_UNKNOWN, SL_MEM_KIND_UNKNOWN,
      5 },
    { 42, K (PAGEABLE), K (DEVICE), SL_MEMCPY_UNKNOWN, SL_MEM_KIND_PAGEABLE, SL_MEM_KIND_DEVICE,
      6 },
#undef C
#undef K
  };

  start ();
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      CUpti_ActivityMemcpy6 m;
      memset (&m, 0, sizeof m);
      m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
      m.copyKind = cases[i].copy;
      m.srcKind = cases[i].src;
      m.dstKind = cases[i].dst;
      m.bytes = cases[i].bytes;
      m.start = 5000 + i;
      m.end = 6000 + i;
      m.deviceId = 2;
      m.contextId = 3;
      m.streamId = 20 + i;
      m.correlationId = 300 + i;
      m.runtimeCorrelationId = 300 + i;
      _sl_cupti_emit_record ((const CUpti_Activity *) &m);
    }
  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, G_N_ELEMENTS (cases));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const SlWireMemcpy *w = (const SlWireMemcpy *) check_frame (records, i, SL_WIRE_MEMCPY,
                                                                  sizeof *w, FALSE);
      g_assert_cmpuint (w->start_ns, ==, 5000 + i);
      g_assert_cmpuint (w->end_ns, ==, 6000 + i);
      g_assert_cmpuint (w->bytes, ==, cases[i].bytes);
      g_assert_cmpuint (w->device_id, ==, 2);
      g_assert_cmpuint (w->context_id, ==, 3);
      g_assert_cmpuint (w->stream_id, ==, 20 + i);
      g_assert_cmpuint (w->correlation_id, ==, 300 + i);
      g_assert_cmpuint (w->copy_kind, ==, cases[i].want_copy);
      g_assert_cmpuint (w->src_kind, ==, cases[i].want_src);
      g_assert_cmpuint (w->dst_kind, ==, cases[i].want_dst);
      g_assert_cmpuint (w->src_device_id, ==, 2);
      g_assert_cmpuint (w->dst_device_id, ==, 2);
      g_assert_cmpuint (w->pad, ==, 0);
    }
}

static void
test_memcpy_peer (void)
{
  CUpti_ActivityMemcpyPtoP4 p;

  start ();
  memset (&p, 0, sizeof p);
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.bytes = UINT64_C (3) << 30;
  p.start = 10;
  p.end = 20;
  p.deviceId = 0;
  p.contextId = 1;
  p.streamId = 7;
  p.srcDeviceId = 0;
  p.srcContextId = 1;
  p.dstDeviceId = 1;
  p.dstContextId = 2;
  p.correlationId = 55;
  _sl_cupti_emit_record ((const CUpti_Activity *) &p);

  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, 1);
  const SlWireMemcpy *w = (const SlWireMemcpy *) check_frame (records, 0, SL_WIRE_MEMCPY,
                                                              sizeof *w, FALSE);
  g_assert_cmpuint (w->copy_kind, ==, SL_MEMCPY_PTOP);
  g_assert_cmpuint (w->src_kind, ==, SL_MEM_KIND_DEVICE);
  g_assert_cmpuint (w->dst_kind, ==, SL_MEM_KIND_DEVICE);
  g_assert_cmpuint (w->bytes, ==, UINT64_C (3) << 30);
  g_assert_cmpuint (w->start_ns, ==, 10);
  g_assert_cmpuint (w->end_ns, ==, 20);
  g_assert_cmpuint (w->device_id, ==, 0);
  g_assert_cmpuint (w->context_id, ==, 1);
  g_assert_cmpuint (w->stream_id, ==, 7);
  g_assert_cmpuint (w->correlation_id, ==, 55);
  g_assert_cmpuint (w->src_device_id, ==, 0);
  g_assert_cmpuint (w->dst_device_id, ==, 1);
}

static void
test_memset (void)
{
  CUpti_ActivityMemset4 m;

  start ();
  memset (&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.value = 0xab;
  m.bytes = 1 << 20;
  m.start = 700;
  m.end = 900;
  m.deviceId = 3;
  m.contextId = 4;
  m.streamId = 5;
  m.correlationId = 6;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  _sl_cupti_emit_record ((const CUpti_Activity *) &m);
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  m.value = 0;
  _sl_cupti_emit_record ((const CUpti_Activity *) &m);

  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, 2);
  const SlWireMemset *w = (const SlWireMemset *) check_frame (records, 0, SL_WIRE_MEMSET,
                                                              sizeof *w, FALSE);
  g_assert_cmpuint (w->start_ns, ==, 700);
  g_assert_cmpuint (w->end_ns, ==, 900);
  g_assert_cmpuint (w->bytes, ==, 1 << 20);
  g_assert_cmpuint (w->device_id, ==, 3);
  g_assert_cmpuint (w->context_id, ==, 4);
  g_assert_cmpuint (w->stream_id, ==, 5);
  g_assert_cmpuint (w->correlation_id, ==, 6);
  g_assert_cmpuint (w->value, ==, 0xab);
  g_assert_cmpuint (w->mem_kind, ==, SL_MEM_KIND_DEVICE);
  w = (const SlWireMemset *) check_frame (records, 1, SL_WIRE_MEMSET, sizeof *w, FALSE);
  g_assert_cmpuint (w->mem_kind, ==, SL_MEM_KIND_MANAGED);
  g_assert_cmpuint (w->value, ==, 0);
}

/* ---- synchronization, contexts, streams ------------------------------------------------------ */

static void
emit_context (uint32_t device,
              uint32_t context,
              uint16_t null_stream)
{
  CUpti_ActivityContext3 c;

  memset (&c, 0, sizeof c);
  c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  c.contextId = context;
  c.deviceId = device;
  c.nullStreamId = null_stream;
  c.computeApiKind = CUPTI_ACTIVITY_COMPUTE_API_CUDA;
  _sl_cupti_emit_record ((const CUpti_Activity *) &c);
}

static void
test_sync (void)
{
  static const struct
  {
    uint32_t type, context, stream, event;
    uint32_t want_type, want_device;
  } cases[] = {
#define T(x) CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_##x
#define NONE CUPTI_SYNCHRONIZATION_INVALID_VALUE
    { T (EVENT_SYNCHRONIZE), 11, NONE, 9, SL_SYNC_EVENT, 1 },
    { T (STREAM_WAIT_EVENT), 11, 15, 9, SL_SYNC_STREAM_WAIT_EVENT, 1 },
    { T (STREAM_SYNCHRONIZE), 11, 15, NONE, SL_SYNC_STREAM, 1 },
    { T (CONTEXT_SYNCHRONIZE), 11, NONE, NONE, SL_SYNC_CONTEXT, 1 },
    /* a context whose record has not come: device 0, as nsys writes it */
    { T (UNKNOWN), 99, 3, NONE, SL_SYNC_UNKNOWN, 0 },
    { 17, 11, 3, 4, SL_SYNC_UNKNOWN, 1 },
#undef T
#undef NONE
  };

  start ();
  emit_context (1, 11, 14);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      CUpti_ActivitySynchronization2 s;
      memset (&s, 0, sizeof s);
      s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
      s.type = cases[i].type;
      s.start = 100 * i + 1;
      s.end = 100 * i + 50;
      s.correlationId = 40 + i;
      s.contextId = cases[i].context;
      s.streamId = cases[i].stream;
      s.cudaEventId = cases[i].event;
      _sl_cupti_emit_record ((const CUpti_Activity *) &s);
    }

  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, 1 + G_N_ELEMENTS (cases));
  check_frame (records, 0, SL_WIRE_CONTEXT, sizeof (SlWireContext), FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const SlWireSync *w = (const SlWireSync *) check_frame (records, 1 + i, SL_WIRE_SYNC,
                                                              sizeof *w, FALSE);
      g_assert_cmpuint (w->start_ns, ==, 100 * i + 1);
      g_assert_cmpuint (w->end_ns, ==, 100 * i + 50);
      g_assert_cmpuint (w->correlation_id, ==, 40 + i);
      g_assert_cmpuint (w->context_id, ==, cases[i].context);
      g_assert_cmpuint (w->device_id, ==, cases[i].want_device);
      g_assert_cmpuint (w->stream_id, ==, cases[i].stream);
      g_assert_cmpuint (w->event_id, ==, cases[i].event);
      g_assert_cmpuint (w->sync_type, ==, cases[i].want_type);
    }
  /* "none" is UINT32_MAX on the wire, which the daemon writes as nsys's 4294967295 */
  g_assert_cmpuint (((const SlWireSync *) records->pdata[1])->stream_id, ==, UINT32_MAX);
  g_assert_cmpint ((int64_t) UINT32_MAX, ==, SL_SCHEMA_ID_NONE);
}

/* CUDA events (CUpti_ActivityCudaEvent2) and graph launches (CUpti_ActivityGraphTrace2): every
 * field onto the wire, the synchronization's eventSyncId with them; a graph launch whose API
 * callback was not seen has exec id 0. */
static void
test_event_graph (void)
{
  start ();
  CUpti_ActivityCudaEvent2 e;
  memset (&e, 0, sizeof e);
  e.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  e.correlationId = 71;
  e.contextId = 11;
  e.streamId = 15;
  e.eventId = 3;
  e.deviceId = 1;
  e.deviceTimestamp = 0;
  e.cudaEventSyncId = 12;
  _sl_cupti_emit_record ((const CUpti_Activity *) &e);
  CUpti_ActivitySynchronization2 y;
  memset (&y, 0, sizeof y);
  y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
  y.start = 500;
  y.end = 600;
  y.correlationId = 72;
  y.contextId = 11;
  y.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  y.cudaEventId = 3;
  y.cudaEventSyncId = 12;
  _sl_cupti_emit_record ((const CUpti_Activity *) &y);
  CUpti_ActivityGraphTrace2 g;
  memset (&g, 0, sizeof g);
  g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  g.correlationId = 73;
  g.start = 1000;
  g.end = 5000;
  g.deviceId = 1;
  g.graphId = 4;
  g.contextId = 11;
  g.streamId = 15;
  g.endDeviceId = 1;
  g.endContextId = 11;
  _sl_cupti_emit_record ((const CUpti_Activity *) &g);

  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, 3);
  const SlWireCudaEvent *we = (const SlWireCudaEvent *) check_frame (
      records, 0, SL_WIRE_CUDA_EVENT, sizeof (SlWireCudaEvent), FALSE);
  g_assert_cmpuint (we->timestamp_ns, ==, 0); /* not collected stays 0, as nsys writes it */
  g_assert_cmpuint (we->event_sync_id, ==, 12);
  g_assert_cmpuint (we->device_id, ==, 1);
  g_assert_cmpuint (we->context_id, ==, 11);
  g_assert_cmpuint (we->stream_id, ==, 15);
  g_assert_cmpuint (we->correlation_id, ==, 71);
  g_assert_cmpuint (we->event_id, ==, 3);
  const SlWireSync *wy = (const SlWireSync *) check_frame (records, 1, SL_WIRE_SYNC,
                                                           sizeof (SlWireSync), FALSE);
  g_assert_cmpuint (wy->event_id, ==, 3);
  g_assert_cmpuint (wy->event_sync_id, ==, 12);
  const SlWireGraph *wg = (const SlWireGraph *) check_frame (records, 2, SL_WIRE_GRAPH,
                                                             sizeof (SlWireGraph), FALSE);
  g_assert_cmpuint (wg->start_ns, ==, 1000);
  g_assert_cmpuint (wg->end_ns, ==, 5000);
  g_assert_cmpuint (wg->device_id, ==, 1);
  g_assert_cmpuint (wg->context_id, ==, 11);
  g_assert_cmpuint (wg->stream_id, ==, 15);
  g_assert_cmpuint (wg->correlation_id, ==, 73);
  g_assert_cmpuint (wg->graph_id, ==, 4);
  g_assert_cmpuint (wg->graph_exec_id, ==, 0);
}

/* MEMORY2 and UNIFIED_MEMORY_COUNTER records: CUPTI's memory kinds and operations become nsys's
 * (ENUM_CUDA_MEM_KIND from Pageable = 0, ENUM_CUDA_DEV_MEM_EVENT_OPER from 0), a device-static
 * variable's missing context 0 and its name kept; an "invalid" operation and counters that were
 * not asked for (thrashing) are dropped; a CPU fault's unset end is its start; causes and access
 * types beyond nsys's enums are Unknown (0). */
static void
test_memory_um (void)
{
  start ();
  CUpti_ActivityMemory4 m;
  memset (&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC;
  m.correlationId = 0;
  m.address = 0x7f0000001000;
  m.bytes = 112;
  m.timestamp = 900;
  m.PC = 0x401000;
  m.deviceId = 1;
  m.contextId = CUPTI_INVALID_CONTEXT_ID;
  m.name = "_ZN6cublas8internal15deviceConstantsE";
  _sl_cupti_emit_record ((const CUpti_Activity *) &m);
  m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.contextId = 11;
  m.correlationId = 81;
  m.name = NULL;
  _sl_cupti_emit_record ((const CUpti_Activity *) &m);
  m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID;
  _sl_cupti_emit_record ((const CUpti_Activity *) &m); /* dropped */

  CUpti_ActivityUnifiedMemoryCounter3 u;
  memset (&u, 0, sizeof u);
  u.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;
  u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH;
  u.start = 1000;
  u.end = 1500;
  u.address = 0x7f0000200000;
  u.value = 65536;
  u.srcId = 2;
  u.dstId = 0;
  u.flags = CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_EVICTION;
  _sl_cupti_emit_record ((const CUpti_Activity *) &u);
  u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT;
  u.end = 0;
  u.value = 0x401234; /* the faulting instruction */
  u.flags = 0;
  _sl_cupti_emit_record ((const CUpti_Activity *) &u);
  u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT;
  u.end = 1800;
  u.value = 5;
  u.srcId = 2;
  u.flags = 99; /* an access type newer than nsys's enum */
  _sl_cupti_emit_record ((const CUpti_Activity *) &u);
  u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING;
  _sl_cupti_emit_record ((const CUpti_Activity *) &u); /* not asked for: dropped */

  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, 5);
  const SlWireCudaMemory *a = (const SlWireCudaMemory *) check_frame (
      records, 0, SL_WIRE_CUDA_MEMORY, sizeof (SlWireCudaMemory), TRUE);
  g_assert_cmpuint (a->time_ns, ==, 900);
  g_assert_cmpuint (a->address, ==, 0x7f0000001000);
  g_assert_cmpuint (a->bytes, ==, 112);
  g_assert_cmpuint (a->pc, ==, 0x401000);
  g_assert_cmpuint (a->device_id, ==, 1);
  g_assert_cmpuint (a->context_id, ==, 0);
  g_assert_cmpuint (a->correlation_id, ==, 0);
  g_assert_cmpuint (a->mem_kind, ==, SL_MEM_KIND_DEVICE_STATIC);
  g_assert_cmpuint (a->operation, ==, SL_MEM_OPER_ALLOCATION);
  g_assert_cmpstr (text_of (&a->h, sizeof *a), ==, "_ZN6cublas8internal15deviceConstantsE");
  const SlWireCudaMemory *f = (const SlWireCudaMemory *) check_frame (
      records, 1, SL_WIRE_CUDA_MEMORY, sizeof (SlWireCudaMemory), TRUE);
  g_assert_cmpuint (f->mem_kind, ==, SL_MEM_KIND_PINNED);
  g_assert_cmpuint (f->operation, ==, SL_MEM_OPER_DEALLOCATION);
  g_assert_cmpuint (f->context_id, ==, 11);
  g_assert_cmpuint (f->correlation_id, ==, 81);
  g_assert_cmpstr (text_of (&f->h, sizeof *f), ==, "");
  const SlWireUm *d = (const SlWireUm *) check_frame (records, 2, SL_WIRE_UM,
                                                      sizeof (SlWireUm), FALSE);
  g_assert_cmpuint (d->kind, ==, SL_UM_DTOH);
  g_assert_cmpuint (d->start_ns, ==, 1000);
  g_assert_cmpuint (d->end_ns, ==, 1500);
  g_assert_cmpuint (d->address, ==, 0x7f0000200000);
  g_assert_cmpuint (d->value, ==, 65536);
  g_assert_cmpuint (d->device_id, ==, 2); /* the source GPU */
  g_assert_cmpuint (d->flags, ==, 4);     /* Eviction */
  const SlWireUm *c = (const SlWireUm *) check_frame (records, 3, SL_WIRE_UM,
                                                      sizeof (SlWireUm), FALSE);
  g_assert_cmpuint (c->kind, ==, SL_UM_CPU_FAULT);
  g_assert_cmpuint (c->end_ns, ==, 1000);
  g_assert_cmpuint (c->value, ==, 0x401234);
  const SlWireUm *g = (const SlWireUm *) check_frame (records, 4, SL_WIRE_UM,
                                                      sizeof (SlWireUm), FALSE);
  g_assert_cmpuint (g->kind, ==, SL_UM_GPU_FAULT);
  g_assert_cmpuint (g->end_ns, ==, 1800);
  g_assert_cmpuint (g->value, ==, 5);
  g_assert_cmpuint (g->device_id, ==, 2);
  g_assert_cmpuint (g->flags, ==, 0);
}

static void
test_context_stream (void)
{
  static const struct
  {
    uint32_t stream, priority, flag;
    int32_t want_priority;
    uint32_t want_flag;
  } cases[] = {
    { 21, 0, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL, 0, SL_STREAM_TYPE_NULL },
    { 22, 0, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT, 0, SL_STREAM_TYPE_DEFAULT },
    { 23, (uint32_t) -5, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING, -5,
      SL_STREAM_TYPE_NON_BLOCKING },
    { 24, 0, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_UNKNOWN, 0, SL_STREAM_TYPE_UNKNOWN },
    { 25, 0, 0x10000 | CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT, 0, SL_STREAM_TYPE_DEFAULT },
    { 26, 0, 9, 0, SL_STREAM_TYPE_UNKNOWN },
  };

  start ();
  emit_context (3, 21, 21);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      CUpti_ActivityStream s;
      memset (&s, 0, sizeof s);
      s.kind = CUPTI_ACTIVITY_KIND_STREAM;
      s.contextId = 21;
      s.streamId = cases[i].stream;
      s.priority = cases[i].priority;
      s.flag = (CUpti_ActivityStreamFlag) cases[i].flag;
      s.correlationId = 0;
      _sl_cupti_emit_record ((const CUpti_Activity *) &s);
    }

  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, 1 + G_N_ELEMENTS (cases));
  const SlWireContext *c = (const SlWireContext *) check_frame (records, 0, SL_WIRE_CONTEXT,
                                                                sizeof *c, FALSE);
  g_assert_cmpuint (c->device_id, ==, 3);
  g_assert_cmpuint (c->context_id, ==, 21);
  g_assert_cmpuint (c->null_stream_id, ==, 21);
  g_assert_cmpuint (c->pad, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const SlWireStream *w = (const SlWireStream *) check_frame (records, 1 + i, SL_WIRE_STREAM,
                                                                  sizeof *w, FALSE);
      g_assert_cmpuint (w->device_id, ==, 3); /* from the context's record */
      g_assert_cmpuint (w->context_id, ==, 21);
      g_assert_cmpuint (w->stream_id, ==, cases[i].stream);
      g_assert_cmpint (w->priority, ==, cases[i].want_priority);
      g_assert_cmpuint (w->flag, ==, cases[i].want_flag);
      g_assert_cmpuint (w->pad, ==, 0);
    }
}

/* ---- runtime and driver calls ---------------------------------------------------------------- */

static void
test_api (void)
{
  static const struct
  {
    CUpti_ActivityKind kind;
    uint32_t cbid;
    const char *name;
    uint32_t event_class;
    uint32_t return_value;
  } cases[] = {
    /* CUPTI's names carry nsys's _vNNNN suffix for the runtime API */
    { CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
      "cudaLaunchKernel_v7000", SL_EVENT_CLASS_CUDA_RUNTIME, 0 },
    { CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
      "cudaMemcpyAsync_v3020", SL_EVENT_CLASS_CUDA_RUNTIME, 0 },
    { CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
      "cudaStreamSynchronize_v3020", SL_EVENT_CLASS_CUDA_RUNTIME, 0 },
    { CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc_v3020",
      SL_EVENT_CLASS_CUDA_RUNTIME, 2 /* cudaErrorMemoryAllocation */ },
    /* the driver's as nsys writes them too */
    { CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel",
      SL_EVENT_CLASS_CUDA_DRIVER, 0 },
    { CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, "cuLaunchKernelEx",
      SL_EVENT_CLASS_CUDA_DRIVER, 0 },
    { CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2",
      SL_EVENT_CLASS_CUDA_DRIVER, 0 },
    /* a call this CUPTI has no name for still gets one */
    { CUPTI_ACTIVITY_KIND_DRIVER, 60000, "cuDriver_cbid_60000", SL_EVENT_CLASS_CUDA_DRIVER, 0 },
  };

  start ();
  for (int round = 0; round < 2; round++) /* the second from the name cache */
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        CUpti_ActivityAPI a;
        memset (&a, 0, sizeof a);
        a.kind = cases[i].kind;
        a.cbid = cases[i].cbid;
        a.start = 1000 * i + 1;
        a.end = 1000 * i + 999;
        a.processId = 4242;
        a.threadId = 31337 + i;
        a.correlationId = 500 + i;
        a.returnValue = cases[i].return_value;
        _sl_cupti_emit_record ((const CUpti_Activity *) &a);
      }

  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, 2 * G_N_ELEMENTS (cases));
  for (guint r = 0; r < records->len; r++)
    {
      guint i = r % G_N_ELEMENTS (cases);
      const SlWireCudaApi *w = (const SlWireCudaApi *) check_frame (records, r, SL_WIRE_CUDA_API,
                                                                    sizeof *w, TRUE);
      /* on the thread that made the call, not CUPTI's */
      g_assert_cmpuint (w->h.tid, ==, 31337 + i);
      g_assert_cmpuint (w->start_ns, ==, 1000 * i + 1);
      g_assert_cmpuint (w->end_ns, ==, 1000 * i + 999);
      g_assert_cmpuint (w->correlation_id, ==, 500 + i);
      g_assert_cmpuint (w->event_class, ==, cases[i].event_class);
      g_assert_cmpint (w->return_value, ==, (int32_t) cases[i].return_value);
      g_assert_cmpuint (w->cbid, ==, cases[i].cbid);
      g_assert_cmpstr (text_of (&w->h, sizeof *w), ==, cases[i].name);
    }
}

/* ---- devices --------------------------------------------------------------------------------- */

static CUpti_ActivityDevice5
make_h100 (void)
{
  static const uint8_t uuid[16] = { 0xb2, 0x7a, 0x25, 0x41, 0x95, 0x22, 0x6b, 0x9b,
                                    0x99, 0xd1, 0xbf, 0x1a, 0x89, 0xbf, 0x7a, 0x62 };
  CUpti_ActivityDevice5 d;

  memset (&d, 0, sizeof d);
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 0;
  d.name = "NVIDIA H100 80GB HBM3";
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
  d.globalMemoryBandwidth = UINT64_C (3352320000); /* kB/s */
  d.maxBlockDimX = 1024;
  d.maxBlockDimY = 1024;
  d.maxBlockDimZ = 64;
  d.maxGridDimX = 2147483647;
  d.maxGridDimY = 65535;
  d.maxGridDimZ = 65535;
  d.constantMemorySize = 65536;
  memcpy (d.uuid.bytes, uuid, 16);
  return d;
}

/* A fake /proc/driver/nvidia/gpus with the H100 and another GPU, as the driver lays it out. */
static char *
fake_proc (void)
{
  char *root = g_build_filename (sl_test_tmpdir (), "gpus", NULL);
  static const char *const gpus[][2] = {
    { "0000:01:00.0", "GPU-110bc05b-778a-a2aa-f210-230b5a8ea938" },
    { "0000:1b:00.0", "GPU-B27A2541-9522-6B9B-99D1-BF1A89BF7A62" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (gpus); i++)
    {
      g_autofree char *dir = g_build_filename (root, gpus[i][0], NULL);
      g_autofree char *file = g_build_filename (dir, "information", NULL);
      g_autofree char *text = g_strdup_printf ("Model: \t\t NVIDIA Something\n"
                                               "IRQ:   \t\t 173\n"
                                               "GPU UUID: \t %s\n"
                                               "Video BIOS: \t 96.00.99.00.01\n"
                                               "Bus Type: \t PCIe\n"
                                               "DMA Size: \t 52 bits\n"
                                               "Bus Location: \t %s\n"
                                               "Device Minor: \t %u\n",
                                               gpus[i][1], gpus[i][0], i);
      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      g_assert_true (g_file_set_contents (file, text, -1, NULL));
    }
  return root;
}

static void
test_device (void)
{
  g_autofree char *root = fake_proc ();
  CUpti_ActivityDevice5 d = make_h100 ();

  start ();
  _sl_cupti_set_proc_root (root);
  _sl_cupti_emit_record ((const CUpti_Activity *) &d);

  /* a Turing card (7.5: all of the SM's 64 KiB opt-in), an old Pascal one (the plain 48 KiB),
   * a device the driver does not list (no PCI location) */
  CUpti_ActivityDevice5 t4 = make_h100 ();
  t4.id = 1;
  t4.name = "Tesla T4";
  t4.computeCapabilityMajor = 7;
  t4.computeCapabilityMinor = 5;
  t4.maxSharedMemoryPerMultiprocessor = 65536;
  t4.uuid.bytes[0] = 0;
  _sl_cupti_emit_record ((const CUpti_Activity *) &t4);
  CUpti_ActivityDevice5 p100 = t4;
  p100.id = 2;
  p100.name = NULL;
  p100.computeCapabilityMajor = 6;
  p100.computeCapabilityMinor = 0;
  _sl_cupti_emit_record ((const CUpti_Activity *) &p100);
  _sl_cupti_set_proc_root (NULL);

  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, 3);
  const SlWireGpu *w = (const SlWireGpu *) check_frame (records, 0, SL_WIRE_GPU, sizeof *w, TRUE);
  g_assert_cmpuint (w->device_id, ==, 0);
  g_assert_cmpint (w->compute_major, ==, 9);
  g_assert_cmpint (w->compute_minor, ==, 0);
  g_assert_cmpint (w->sm_count, ==, 132);
  g_assert_cmpint (w->max_threads_per_block, ==, 1024);
  g_assert_cmpint (w->max_warps_per_sm, ==, 64);
  g_assert_cmpint (w->max_blocks_per_sm, ==, 32);
  g_assert_cmpint (w->max_registers_per_block, ==, 65536);
  g_assert_cmpint (w->max_registers_per_sm, ==, 65536);
  g_assert_cmpint (w->max_shmem_per_block, ==, 49152);
  g_assert_cmpint (w->max_shmem_per_block_optin, ==, 232448); /* TARGET_INFO_GPU of a real H100 */
  g_assert_cmpint (w->max_shmem_per_sm, ==, 233472);
  g_assert_cmpint (w->threads_per_warp, ==, 32);
  g_assert_cmpint (w->clock_rate_khz, ==, 1980000);
  g_assert_cmpint (w->async_engines, ==, 3);
  g_assert_cmpint (w->l2_cache_size, ==, 52428800);
  g_assert_cmpuint (w->total_memory, ==, UINT64_C (84942979072));
  g_assert_cmpuint (w->memory_bandwidth, ==, UINT64_C (3352320000000)); /* B/s, as nsys has it */
  g_assert_cmpint (w->max_block_dim[0], ==, 1024);
  g_assert_cmpint (w->max_block_dim[1], ==, 1024);
  g_assert_cmpint (w->max_block_dim[2], ==, 64);
  g_assert_cmpint (w->max_grid_dim[0], ==, 2147483647);
  g_assert_cmpint (w->max_grid_dim[1], ==, 65535);
  g_assert_cmpint (w->max_grid_dim[2], ==, 65535);
  g_assert_cmpuint (w->pci_domain, ==, 0);
  g_assert_cmpuint (w->pci_bus, ==, 0x1b);
  g_assert_cmpuint (w->pci_device, ==, 0);
  g_assert_cmpmem (w->uuid, 16, d.uuid.bytes, 16);
  g_assert_cmpuint (w->pad, ==, 0);
  g_assert_cmpstr (text_of (&w->h, sizeof *w), ==, "NVIDIA H100 80GB HBM3");

  w = (const SlWireGpu *) check_frame (records, 1, SL_WIRE_GPU, sizeof *w, TRUE);
  g_assert_cmpuint (w->device_id, ==, 1);
  g_assert_cmpint (w->max_shmem_per_block_optin, ==, 65536);
  g_assert_cmpuint (w->pci_bus, ==, 0);
  g_assert_cmpstr (text_of (&w->h, sizeof *w), ==, "Tesla T4");
  w = (const SlWireGpu *) check_frame (records, 2, SL_WIRE_GPU, sizeof *w, TRUE);
  g_assert_cmpuint (w->device_id, ==, 2);
  g_assert_cmpint (w->max_shmem_per_block_optin, ==, 49152);
  g_assert_cmpstr (text_of (&w->h, sizeof *w), ==, "");
}

/* ---- a whole buffer, walked by CUPTI ------------------------------------------------------- */

typedef struct
{
  guint8 *data;
  gsize len, size;
} Buffer;

/* Records back to back, each 8-aligned, as CUPTI lays them out. */
static void
buffer_add (Buffer     *b,
            const void *record,
            gsize       size)
{
  gsize padded = (size + 7) & ~(gsize) 7;

  g_assert_cmpuint (b->len + padded, <=, b->size);
  memcpy (b->data + b->len, record, size);
  b->len += padded;
}

static void
test_buffer (void)
{
  Buffer b = { g_malloc0 (1 << 16), 0, 1 << 16 };
  CUpti_ActivityDevice5 device = make_h100 ();
  CUpti_ActivityContext3 context;
  CUpti_ActivityAPI launch;
  CUpti_ActivityKernel10 kernel = make_kernel (7, 9001, 50000, 1000, "_Z6kernelPf");
  CUpti_ActivityMemcpy6 copy;
  static const SlWireType want[] = { SL_WIRE_GPU, SL_WIRE_CONTEXT, SL_WIRE_CUDA_API, SL_WIRE_KERNEL,
                                     SL_WIRE_MEMCPY };

  start ();
  memset (&context, 0, sizeof context);
  context.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  context.contextId = 1;
  context.deviceId = 0;
  context.nullStreamId = 7;
  memset (&launch, 0, sizeof launch);
  launch.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  launch.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  launch.start = 40000;
  launch.end = 41000;
  launch.threadId = 4321;
  launch.correlationId = 9001;
  memset (&copy, 0, sizeof copy);
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  copy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  copy.bytes = 4096;
  copy.start = 52000;
  copy.end = 53000;
  copy.streamId = 7;
  copy.correlationId = 9002;

  buffer_add (&b, &device, sizeof device);
  buffer_add (&b, &context, sizeof context);
  buffer_add (&b, &launch, sizeof launch);
  buffer_add (&b, &kernel, sizeof kernel);
  /* a kind we did not ask for is walked over, not recorded */
  CUpti_ActivityOverhead3 oh;
  memset (&oh, 0, sizeof oh);
  oh.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  buffer_add (&b, &oh, sizeof oh);
  buffer_add (&b, &copy, sizeof copy);

  /* CUPTI's own walker takes our layout: the structs are CUDA 13's */
  cupti_drops = 0;
  g_assert_cmpuint (_sl_cupti_walk_buffer (b.data, b.len, 7), ==, 6);
  g_assert_cmpuint (cupti_drops, ==, 7); /* CUPTI's dropped count, never silent */

  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpuint (((const SlWireHeader *) records->pdata[i])->type, ==, want[i]);
  const SlWireCudaApi *api = records->pdata[2];
  const SlWireKernel *k = records->pdata[3];
  const SlWireMemcpy *m = records->pdata[4];
  /* the launch and its kernel share the correlation id, the API call is on its thread */
  g_assert_cmpuint (api->correlation_id, ==, k->correlation_id);
  g_assert_cmpuint (api->h.tid, ==, 4321);
  g_assert_cmpstr (text_of (&api->h, sizeof *api), ==, "cudaLaunchKernel_v7000");
  g_assert_cmpstr (text_of (&k->h, sizeof *k), ==, "_Z6kernelPf");
  g_assert_cmpuint (m->copy_kind, ==, SL_MEMCPY_DTOH);
  g_assert_cmpuint (m->dst_kind, ==, SL_MEM_KIND_PINNED);

  /* an empty buffer, and none at all: nothing, but the drops still count */
  g_assert_cmpuint (_sl_cupti_walk_buffer (b.data, 0, 0), ==, 0);
  g_assert_cmpuint (_sl_cupti_walk_buffer (NULL, 100, 3), ==, 0);
  g_assert_cmpuint (cupti_drops, ==, 10);
  g_ptr_array_unref (drain ());
  g_free (b.data);
}

/* A buffer cut in the middle of a record (a flush of a half-written one) stops the walk there. */
static void
test_buffer_cut (void)
{
  if (g_test_subprocess ())
    {
      Buffer b = { g_malloc0 (4096), 0, 4096 };
      CUpti_ActivityKernel10 k = make_kernel (7, 1, 1, 1, "_Z1kv");
      start ();
      buffer_add (&b, &k, sizeof k);
      buffer_add (&b, &k, sizeof k);
      /* the second record only half there */
      size_t walked = _sl_cupti_walk_buffer (b.data, sizeof k + sizeof k / 2, 0);
      g_autoptr (GPtrArray) records = drain ();
      g_assert_cmpuint (walked, ==, records->len);
      g_assert_cmpuint (records->len, <=, 1);
      g_free (b.data);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  /* whatever CUPTI says about it is one line of ours, or nothing */
  g_test_trap_assert_stdout ("");
}

/* Zero times are CUPTI's "no timestamp": kept 0, not shifted onto the session's clock. */
static void
test_zero_times (void)
{
  CUpti_ActivityKernel10 k = make_kernel (7, 1, 0, 0, "_Z1kv");

  start ();
  _sl_cupti_emit_record ((const CUpti_Activity *) &k);
  _sl_cupti_emit_record (NULL);
  g_autoptr (GPtrArray) records = drain ();
  g_assert_cmpuint (records->len, ==, 1);
  const SlWireKernel *w = records->pdata[0];
  g_assert_cmpuint (w->start_ns, ==, 0);
  g_assert_cmpuint (w->end_ns, ==, 0);
}

/* ---- start-up -------------------------------------------------------------------------------- */

/* Without a driver CUPTI refuses everything: we say so in one line on stderr with our prefix,
 * and the program goes on; flush and stop are then no-ops. */
static void
test_start_without_driver (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *path = g_build_filename (sl_test_tmpdir (), "stderr", NULL);
      g_autofree char *text = NULL;
      int fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int saved = dup (STDERR_FILENO);

      g_assert_cmpint (fd, >=, 0);
      dup2 (fd, STDERR_FILENO);
      start ();
      gboolean started = _sl_cupti_start ();
      gboolean again = _sl_cupti_start (); /* once only */
      _sl_cupti_flush ();
      _sl_cupti_stop ();
      dup2 (saved, STDERR_FILENO);
      close (fd);
      close (saved);
      g_assert_false (started);
      g_assert_false (again);
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      g_test_message ("stderr: %s", text);
      g_assert_true (g_str_has_prefix (text, "sightline: no CUDA activity recorded: "));
      g_assert_true (g_str_has_suffix (text, "\n"));
      g_assert_true (strchr (text, '\n') == text + strlen (text) - 1); /* one line */
      g_ptr_array_unref (drain ());
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("");
}

/* CUPTI nowhere to be found (SIGHTLINE_CUPTI names a file that is not there): the library, which
 * opens it at run time instead of linking it, says so in one line and the program goes on. */
static void
test_start_without_cupti (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *path = g_build_filename (sl_test_tmpdir (), "stderr-no-cupti", NULL);
      g_autofree char *text = NULL;
      int fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int saved = dup (STDERR_FILENO);

      g_setenv ("SIGHTLINE_CUPTI", "/nonexistent/libcupti.so.13", TRUE);
      g_assert_cmpint (fd, >=, 0);
      dup2 (fd, STDERR_FILENO);
      start ();
      gboolean started = _sl_cupti_start ();
      _sl_cupti_flush ();
      _sl_cupti_stop ();
      dup2 (saved, STDERR_FILENO);
      close (fd);
      close (saved);
      g_assert_false (started);
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      g_test_message ("stderr: %s", text);
      g_assert_true (g_str_has_prefix (text, "sightline: CUDA is not traced: SIGHTLINE_CUPTI="
                                             "/nonexistent/libcupti.so.13 cannot be opened"));
      g_assert_true (strchr (text, '\n') == text + strlen (text) - 1); /* one line */
      g_ptr_array_unref (drain ());
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* InitializeInjection in a process that is not being recorded (no SIGHTLINE_SOCKET): nothing at
 * all happens, and libcuda is told all is well. */
static void
test_initialize_injection (void)
{
  if (g_test_subprocess ())
    {
      g_unsetenv ("SIGHTLINE_SOCKET");
      g_assert_cmpint (InitializeInjection (), ==, 1);
      g_assert_cmpint (InitializeInjection (), ==, 1);
      return;
    }
  g_test_trap_subprocess (NULL, 20 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/cupti/kernel", test_kernel);
  g_test_add_func ("/collector/cupti/kernel-streams", test_kernel_streams);
  g_test_add_func ("/collector/cupti/memcpy", test_memcpy);
  g_test_add_func ("/collector/cupti/memcpy-peer", test_memcpy_peer);
  g_test_add_func ("/collector/cupti/memset", test_memset);
  g_test_add_func ("/collector/cupti/sync", test_sync);
  g_test_add_func ("/collector/cupti/context-stream", test_context_stream);
  g_test_add_func ("/collector/cupti/api", test_api);
  g_test_add_func ("/collector/cupti/device", test_device);
  g_test_add_func ("/collector/cupti/buffer", test_buffer);
  g_test_add_func ("/collector/cupti/buffer-cut", test_buffer_cut);
  g_test_add_func ("/collector/cupti/zero-times", test_zero_times);
  g_test_add_func ("/collector/cupti/event-graph", test_event_graph);
  g_test_add_func ("/collector/cupti/memory-um", test_memory_um);
  g_test_add_func ("/collector/cupti/start-without-driver", test_start_without_driver);
  g_test_add_func ("/collector/cupti/start-without-cupti", test_start_without_cupti);
  g_test_add_func ("/collector/cupti/initialize-injection", test_initialize_injection);
  return g_test_run ();
}
