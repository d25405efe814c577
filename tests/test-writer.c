/* test-writer.c: the daemon's trace writer, round trip: wire records built by hand (as the
 * injection library sends them, GPU ones included, which no test here can get from a real GPU) →
 * sl-trace-writer → SQLite → the model, field by field. */
#include <link.h>
#include <sqlite3.h>
#include <string.h>

#include "sl-chains.h"
#include "sl-python.h"
#include "sl-schema.h"
#include "sl-symbols.h"
#include "sl-test-util.h"
#include "sl-trace-writer.h"
/* after the wire's names: the model's macros shadow some */
#include <glib/gstdio.h>

#include "sl-calltree.h"
#include "sl-stats.h"
#include "sl-test-trace.h"
#include "sl-trace-private.h"

#define PID  4242
#define TID  4243
#define PID2 4250 /* a forked worker: the same code at the same addresses */
#define TID2 4251

/* A record of `fixed` bytes plus `text`, header filled. */
static SlWireHeader *
rec (uint16_t    type,
     const void *fixed_part,
     size_t      fixed,
     const char *text)
{
  size_t len = text != NULL ? strlen (text) : 0;
  uint32_t size = sl_wire_size ((uint32_t) fixed, (uint32_t) len);
  uint8_t *r = g_malloc0 (size);

  memcpy (r, fixed_part, fixed);
  ((SlWireHeader *) r)->type = type;
  ((SlWireHeader *) r)->size = (uint16_t) size;
  ((SlWireHeader *) r)->tid = ((const SlWireHeader *) fixed_part)->tid;
  if (text != NULL)
    memcpy (r + fixed, text, len);
  return (SlWireHeader *) r;
}

static void
add (SlTraceWriter *w,
     SlWireHeader  *r)
{
  g_assert_true (sl_trace_writer_add (w, PID, r));
  g_free (r);
}

static const SlLane *
lane_of_kind (SlTrace    *trace,
              SlLaneKind  kind)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    if (sl_trace_get_lane (trace, i)->kind == kind)
      return sl_trace_get_lane (trace, i);
  return NULL;
}

static void
test_round_trip (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "writer.sqlite", NULL);
  char *error = NULL;
  SlTraceWriter *w = sl_trace_writer_open (path, FALSE, &error);
  g_autoptr (GError) gerror = NULL;
  const uint64_t T = 1000000000;

  g_assert_null (error);
  g_assert_nonnull (w);
  {
    SlWireHello h = { { 0, 0, TID }, SL_WIRE_MAGIC, SL_WIRE_VERSION, PID, 1, 7, T, T * 5 };
    add (w, rec (SL_WIRE_HELLO, &h, sizeof h, "/usr/bin/train --fast"));
  }
  {
    SlWireThreadName n = { { 0, 0, TID }, T };
    add (w, rec (SL_WIRE_THREAD_NAME, &n, sizeof n, "trainer"));
  }
  {
    SlWireGpu g = { { 0, 0, TID }, 0, 8, 0, 108, 1024, 64, 32, 65536, 65536, 49152, 166912,
                    167936, 32, 1410000, 2, 41943040, 42949672960ull, 1555000000000ull,
                    { 1024, 1024, 64 }, { 2147483647, 65535, 65535 }, 0, 0x17, 0, { 1, 2 }, 0 };
    add (w, rec (SL_WIRE_GPU, &g, sizeof g, "NVIDIA A100-SXM4-40GB"));
    SlWireContext c = { { 0, 0, TID }, 0, 1, 7, 0 };
    add (w, rec (SL_WIRE_CONTEXT, &c, sizeof c, NULL));
    SlWireStream st = { { 0, 0, TID }, 0, 1, 13, -2, SL_STREAM_TYPE_NON_BLOCKING, 0 };
    add (w, rec (SL_WIRE_STREAM, &st, sizeof st, NULL));
  }
  /* two launches of one kernel on stream 13, a copy and a set on stream 7, a sync */
  for (int i = 0; i < 2; i++)
    {
      SlWireCudaApi a = { { 0, 0, TID }, T + i * 1000000, T + i * 1000000 + 5000, 100 + i,
                          SL_EVENT_CLASS_CUDA_RUNTIME, 0, 211 };
      add (w, rec (SL_WIRE_CUDA_API, &a, sizeof a, "cudaLaunchKernel_v7000"));
      SlWireKernel k = { { 0, 0, 0 }, T + i * 1000000 + 20000, T + i * 1000000 + 520000, 0, 1, 13,
                         100 + i, 64, 2, 1, 256, 1, 1, 40, 1024, 4096, 0, 0, 7 + i,
                         SL_LAUNCH_TYPE_REGULAR, 2, 8192, 0, 0, 0, 0, 0, 0, 0 };
      add (w, rec (SL_WIRE_KERNEL, &k, sizeof k,
                   "_ZN5flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi128ELi128ELi64ELi4ELb0E"
                   "Lb0EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi128ELi64ELi4ES3_EEL"
                   "b0ELb0ELb0ELb0ELb0ELb1ELb0ELb0EEEvNS_16Flash_fwd_paramsE"));
    }
  {
    SlWireCudaApi a = { { 0, 0, TID }, T + 3000000, T + 3400000, 200, SL_EVENT_CLASS_CUDA_RUNTIME,
                        0, 31 };
    add (w, rec (SL_WIRE_CUDA_API, &a, sizeof a, "cudaMemcpy_v3020"));
    SlWireMemcpy m = { { 0, 0, 0 }, T + 3100000, T + 3300000, 1 << 20, 0, 1, 7, 200,
                       SL_MEMCPY_HTOD, SL_MEM_KIND_PAGEABLE, SL_MEM_KIND_DEVICE, 0, 0, 0 };
    add (w, rec (SL_WIRE_MEMCPY, &m, sizeof m, NULL));
    SlWireMemset s = { { 0, 0, 0 }, T + 3500000, T + 3510000, 4096, 0, 1, 7, 201, 0,
                       SL_MEM_KIND_DEVICE };
    add (w, rec (SL_WIRE_MEMSET, &s, sizeof s, NULL));
    SlWireSync y = { { 0, 0, 0 }, T + 3600000, T + 3700000, 0, 1, UINT32_MAX, 202,
                     SL_SYNC_CONTEXT, UINT32_MAX, UINT32_MAX };
    add (w, rec (SL_WIRE_SYNC, &y, sizeof y, NULL));
    SlWireDropped d = { { 0, 0, TID }, T + 4000000, 7, SL_DROP_CUPTI, 0 };
    add (w, rec (SL_WIRE_DROPPED, &d, sizeof d, NULL));
  }
  /* hostile records are refused, not written: short, unterminated text, end before start */
  {
    SlWireOsrt o = { { SL_WIRE_OSRT, 8, TID }, T, T + 10, 0, 0, 0 };
    g_assert_false (sl_trace_writer_add (w, PID, &o.h));
    SlWireOsrt back = { { SL_WIRE_OSRT, sizeof back, TID }, T + 10, T, 0, 0, 0 };
    g_assert_false (sl_trace_writer_add (w, PID, &back.h));
    struct
    {
      SlWireThreadName n;
      char text[8];
    } bad = { { { SL_WIRE_THREAD_NAME, sizeof bad, TID }, T }, { 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x' } };
    g_assert_false (sl_trace_writer_add (w, PID, &bad.n.h));
  }
  g_assert_cmpuint (sl_trace_writer_n_bad (w), ==, 3);
  g_assert_cmpuint (sl_trace_writer_n_dropped (w), ==, 7);
  g_assert_true (sl_trace_writer_finish (w, &error));
  g_assert_null (error);

  /* the model reads it back */
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &gerror);
  g_assert_no_error (gerror);
  g_assert_cmpuint (sl_trace_get_n_processes (trace), ==, 1);
  g_assert_cmpstr (sl_trace_str (trace, sl_trace_get_process (trace, 0)->name), ==, "train");
  g_assert_cmpuint (sl_trace_get_n_gpus (trace), ==, 1);
  const SlGpu *gpu = sl_trace_get_gpu (trace, 0);
  g_assert_cmpstr (sl_trace_str (trace, gpu->name), ==, "NVIDIA A100-SXM4-40GB");
  g_assert_cmpint (gpu->limits.sm_count, ==, 108);
  g_assert_cmpint (gpu->limits.cc_major, ==, 8);
  g_assert_cmpint (gpu->limits.max_regs_per_sm, ==, 65536);

  const SlLane *kernels = lane_of_kind (trace, SL_LANE_KERNELS);
  const SlLane *api = lane_of_kind (trace, SL_LANE_CUDA_API);
  const SlLane *copies = lane_of_kind (trace, SL_LANE_MEMCPY);
  g_assert_nonnull (kernels);
  g_assert_nonnull (api);
  g_assert_nonnull (copies);
  g_assert_cmpuint (kernels->stream_id, ==, 13);
  g_assert_cmpuint (kernels->n_events, ==, 2);
  g_assert_cmpint (kernels->events[0].start, ==, (SlTime) T + 20000);
  g_assert_cmpint (kernels->events[0].end, ==, (SlTime) T + 520000);
  const SlKernelInfo *ki = sl_trace_get_kernel_info (trace, kernels->events[0].aux);
  g_assert_cmpstr (sl_trace_str (trace, ki->short_name), ==, "flash_fwd_kernel");
  g_assert_nonnull (strstr (sl_trace_str (trace, ki->demangled_name), "flash::flash_fwd_kernel<"));
  g_assert_true (g_str_has_prefix (sl_trace_str (trace, ki->mangled_name), "_ZN5flash"));
  g_assert_cmpuint (ki->grid[0], ==, 64);
  g_assert_cmpuint (ki->grid[1], ==, 2);
  g_assert_cmpuint (ki->block[0], ==, 256);
  g_assert_cmpuint (ki->registers_per_thread, ==, 40);
  g_assert_cmpuint (ki->static_shared, ==, 1024);
  g_assert_cmpuint (ki->dynamic_shared, ==, 4096);
  /* each kernel links to its launch, and back */
  for (int i = 0; i < 2; i++)
    {
      const SlLane *l = NULL;
      gsize idx = 0;
      g_assert_true (sl_trace_resolve (trace, kernels->events[i].link, &l, &idx));
      g_assert_true (l == api);
      g_assert_cmpstr (sl_trace_str (trace, l->events[idx].name), ==, "cudaLaunchKernel_v7000");
      g_assert_cmpuint (l->events[idx].corr, ==, (guint32) (100 + i));
    }
  const SlCopyInfo *ci = sl_trace_get_copy_info (trace, copies->events[0].aux);
  g_assert_cmpuint (ci->bytes, ==, 1 << 20);
  g_assert_cmpuint (ci->copy_kind, ==, SL_MEMCPY_HTOD);
  g_assert_cmpuint (ci->src_kind, ==, SL_MEM_KIND_PAGEABLE);
  g_assert_cmpuint (ci->dst_kind, ==, SL_MEM_KIND_DEVICE);
  g_assert_nonnull (lane_of_kind (trace, SL_LANE_MEMSET));
  g_assert_nonnull (lane_of_kind (trace, SL_LANE_SYNC));

  /* and in SQL, as nsys scripts read it */
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                       " JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                                       " AND k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000)),"
                                       " (SELECT streamId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION),"
                                       " (SELECT count FROM SIGHTLINE_DROPPED_RECORDS),"
                                       " (SELECT value FROM StringIds s JOIN ThreadNames t ON t.nameId = s.id),"
                                       " (SELECT flag FROM TARGET_INFO_CUDA_STREAM WHERE streamId = 13)",
                                       -1, &st, NULL),
                   ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (st), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int (st, 0), ==, 2);
  g_assert_cmpint (sqlite3_column_int64 (st, 1), ==, 4294967295); /* "none", as nsys writes it */
  g_assert_cmpint (sqlite3_column_int (st, 2), ==, 7);
  g_assert_cmpstr ((const char *) sqlite3_column_text (st, 3), ==, "trainer");
  g_assert_cmpint (sqlite3_column_int (st, 4), ==, SL_STREAM_TYPE_NON_BLOCKING);
  sqlite3_finalize (st);
  sqlite3_close (db);
}

static gint64
sql_int (sqlite3    *db,
         const char *sql)
{
  sqlite3_stmt *st = NULL;
  gint64 v = -1;

  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &st, NULL), ==, SQLITE_OK);
  if (sqlite3_step (st) == SQLITE_ROW)
    v = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  return v;
}

/* The CPU side: scheduling records (made by the daemon), OS runtime backtraces, and processes'
 * command lines and parents, exec included. */
static void
test_cpu_records (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "writer-cpu.sqlite", NULL);
  char *error = NULL;
  SlTraceWriter *w = sl_trace_writer_open (path, TRUE, &error);
  const uint64_t T = 1000000000;
  const int64_t g = SL_GLOBAL_TID (1, PID, TID);

  g_assert_nonnull (w);
  {
    SlWireHello h = { { 0, 0, TID }, SL_WIRE_MAGIC, SL_WIRE_VERSION, PID, 77, 7, T, T * 5 };
    add (w, rec (SL_WIRE_HELLO, &h, sizeof h, "/usr/bin/python3 train.py"));
    /* the same pid after exec: the new program */
    add (w, rec (SL_WIRE_HELLO, &h, sizeof h, "/usr/bin/worker --id 3"));
  }
  /* a read with a 3-frame backtrace, one without, one whose frames do not fit the record */
  {
    struct
    {
      SlWireOsrt o;
      uint64_t frames[3];
    } r = { { { SL_WIRE_OSRT, sizeof r, TID }, T, T + 200000, 1, SL_OSRT_READ, 3 },
            { 0x1000, 0x2004, 0x3008 } };
    add (w, rec (SL_WIRE_OSRT, &r, sizeof r, NULL));
    SlWireOsrt plain = { { SL_WIRE_OSRT, sizeof plain, TID }, T + 300000, T + 300500, 1,
                         SL_OSRT_READ, 0 };
    add (w, rec (SL_WIRE_OSRT, &plain, sizeof plain, NULL));
    SlWireOsrt lying = { { SL_WIRE_OSRT, sizeof lying, TID }, T + 400000, T + 500000, 1,
                         SL_OSRT_READ, 100 };
    add (w, rec (SL_WIRE_OSRT, &lying, sizeof lying, NULL));
  }
  /* in on CPU 1, preempted, in on CPU 0, out for good; one without a process is refused */
  {
    const struct
    {
      uint64_t t;
      uint16_t cpu;
      uint8_t in, state;
    } sw[] = { { T, 1, 1, 1 }, { T + 1000, 1, 0, 1 }, { T + 5000, 0, 1, 1 }, { T + 9000, 0, 0, 5 } };
    for (guint i = 0; i < G_N_ELEMENTS (sw); i++)
      {
        SlWireSched r = { { SL_WIRE_SCHED, sizeof r, TID }, sw[i].t, PID, sw[i].cpu, sw[i].in,
                          sw[i].state };
        add (w, rec (SL_WIRE_SCHED, &r, sizeof r, NULL));
      }
    SlWireSched orphan = { { SL_WIRE_SCHED, sizeof orphan, TID }, T, 0, 0, 1, 1 };
    g_assert_false (sl_trace_writer_add (w, PID, &orphan.h));
  }
  /* a process without the library, as the daemon read it from /proc: the latest reading wins,
   * whatever order they come in */
  {
    SlWireProcess r = { { 0, 0, 999 }, 2 * T, 999, PID };
    add (w, rec (SL_WIRE_PROCESS, &r, sizeof r, "/opt/bin/static-prog -x"));
    r.time_ns = T;
    add (w, rec (SL_WIRE_PROCESS, &r, sizeof r, "/bin/sh -c static-prog"));
    /* older than the process's own HELLO (after its exec): ignored */
    SlWireProcess old = { { 0, 0, PID }, T / 2, PID, 1 };
    add (w, rec (SL_WIRE_PROCESS, &old, sizeof old, "/bin/bash"));
  }
  g_assert_cmpuint (sl_trace_writer_n_bad (w), ==, 1);
  /* 3 OSRT rows and 4 switches are events */
  g_assert_cmpuint (sl_trace_writer_n_events (w), ==, 7);
  g_assert_true (sl_trace_writer_finish (w, &error));

  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_autofree char *pi = g_strdup_printf (
      "SELECT count(*) FROM SL_PROCESS_INFO WHERE globalPid = %" G_GINT64_FORMAT " AND pid = %d "
      "AND parentPid = 77 AND commandLine = '/usr/bin/worker --id 3'", SL_GLOBAL_PID (1, PID), PID);
  g_assert_cmpint (sql_int (db, pi), ==, 1);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM SL_PROCESS_INFO"), ==, 2);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM PROCESSES"), ==, 2);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM PROCESSES WHERE name = 'worker'"), ==, 1);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM PROCESSES WHERE pid = 999 AND name = 'static-prog'"),
                   ==, 1);
  g_autofree char *child = g_strdup_printf (
      "SELECT count(*) FROM SL_PROCESS_INFO WHERE pid = 999 AND parentPid = %d AND "
      "commandLine = '/opt/bin/static-prog -x'", PID);
  g_assert_cmpint (sql_int (db, child), ==, 1);

  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM OSRT_API"), ==, 3);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM OSRT_API WHERE callchainId = 1 AND start = 1000000000"),
                   ==, 1);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM OSRT_API WHERE callchainId = 0"), ==, 2);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM OSRT_CALLCHAINS"), ==, 3);
  g_assert_cmpint (sql_int (db, "SELECT sum(stackDepth * originalIP) FROM OSRT_CALLCHAINS WHERE id = 1"),
                   ==, 0x2004 + 2 * 0x3008);
  /* no module covers these addresses: unresolved, but named */
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM OSRT_CALLCHAINS WHERE unresolved = 1 AND "
                                "symbol IN (SELECT id FROM StringIds)"),
                   ==, 3);

  g_autofree char *sched = g_strdup_printf (
      "SELECT count(*) FROM SCHED_EVENTS WHERE globalTid = %" G_GINT64_FORMAT, g);
  g_assert_cmpint (sql_int (db, sched), ==, 4);
  g_assert_cmpint (sql_int (db, "SELECT sum(isSchedIn * cpu) FROM SCHED_EVENTS"), ==, 1);
  g_assert_cmpint (sql_int (db, "SELECT threadState FROM SCHED_EVENTS ORDER BY start DESC LIMIT 1"), ==, 5);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM SCHED_EVENTS WHERE threadBlock IS NOT NULL"), ==, 0);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM ENUM_SCHEDULING_THREAD_BLOCK"), ==, 62);
  sqlite3_close (db);
}

/* Samples' call chains of several lengths (1, 7, 8, 9, 16, 17, 40 frames), as batched inserts
 * would cut them: each chain whole, in order, each frame its own address. */
static void
test_sample_chains (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "writer-chains.sqlite", NULL);
  char *error = NULL;
  SlTraceWriter *w = sl_trace_writer_open (path, TRUE, &error);
  const uint64_t T = 1000000000;
  static const uint32_t lengths[] = { 1, 7, 8, 9, 16, 17, 40 };

  g_assert_nonnull (w);
  SlWireHello h = { { 0, 0, TID }, SL_WIRE_MAGIC, SL_WIRE_VERSION, PID, 77, 7, T, T * 5 };
  add (w, rec (SL_WIRE_HELLO, &h, sizeof h, "/usr/bin/python3 train.py"));
  for (guint i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      struct
      {
        SlWireSample s;
        uint64_t frames[40];
      } r = { { { SL_WIRE_SAMPLE, 0, TID }, T + i * 1000, lengths[i], 1 }, { 0 } };
      for (uint32_t k = 0; k < lengths[i]; k++)
        r.frames[k] = 0x100000 * (i + 1) + 0x10 * k;
      r.s.h.size = (uint16_t) (sizeof r.s + lengths[i] * sizeof (uint64_t));
      add (w, rec (SL_WIRE_SAMPLE, &r, r.s.h.size, NULL));
    }
  g_assert_true (sl_trace_writer_finish (w, &error));

  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM COMPOSITE_EVENTS"), ==, G_N_ELEMENTS (lengths));
  for (guint i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      /* the i-th sample (ids in time order): its rows, depths 0..n-1, each with its own address */
      g_autofree char *q = g_strdup_printf (
          "SELECT count(*) FROM SAMPLING_CALLCHAINS c JOIN COMPOSITE_EVENTS e ON e.id = c.id "
          "WHERE e.start = %" G_GUINT64_FORMAT " AND c.originalIP = %d + 16 * c.stackDepth "
          "AND c.unwindMethod = %d AND c.unresolved = 1 AND c.symbol IN (SELECT id FROM StringIds)",
          T + i * 1000, 0x100000 * (int) (i + 1), SL_UNWIND_TABLE);
      g_assert_cmpint (sql_int (db, q), ==, lengths[i]);
      g_autofree char *depth = g_strdup_printf (
          "SELECT max(c.stackDepth) FROM SAMPLING_CALLCHAINS c JOIN COMPOSITE_EVENTS e "
          "ON e.id = c.id WHERE e.start = %" G_GUINT64_FORMAT, T + i * 1000);
      g_assert_cmpint (sql_int (db, depth), ==, lengths[i] - 1);
    }
  g_assert_cmpint (sql_int (db, "SELECT count(*) FROM SAMPLING_CALLCHAINS"), ==, 1 + 7 + 8 + 9 + 16 + 17 + 40);
  sqlite3_close (db);
}

/* A file that exists is never overwritten without `force`, and the error names it. */
static void
test_no_overwrite (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "taken.sqlite", NULL);
  char *error = NULL;

  g_assert_true (g_file_set_contents (path, "mine", -1, NULL));
  g_assert_null (sl_trace_writer_open (path, FALSE, &error));
  g_assert_nonnull (strstr (error, path));
  free (error);
}

/* ---- call chains written once (issue 15, item 4) ------------------------------------------ */

/* What the old writer made of a sample, frame by frame (a SAMPLING_CALLCHAINS row each): named at
 * the commit of its batch with the names known then, through a symbolizer and a code table of
 * the test's own fed the same records.  The oracle the chain tables must reproduce. */
typedef struct
{
  SlSymbolizer *symbols;
  SlPyCodes    *py;
  GArray       *batch;    /* samples added since the last commit: SampleRec */
  GString      *rows;     /* "id|symbol|module|0|0|unresolved|0|address|2|depth\n" … */
  GHashTable   *by_time;  /* sample time → its stack, "symbol@module;…" leaf first */
  gint64        next_id;
} ChainOracle;

typedef struct
{
  int32_t  pid;
  uint64_t time;
  guint    n;
  uint64_t frames[48];
} SampleRec;

static void
oracle_name (ChainOracle *o,
             int32_t      pid,
             uint64_t     addr,
             guint        k,
             char       **sym,
             char       **mod,
             gboolean    *found)
{
  const char *s = NULL, *m = NULL, *file = NULL;
  int line = 0;

  if ((addr & SL_WIRE_PYFRAME_BIT) != 0)
    {
      *found = sl_py_codes_lookup (o->py, pid, addr, &s, &file, &line);
      *sym = g_strdup (s);
      *mod = g_strdup_printf ("%s:%d", file, line);
    }
  else
    {
      *found = sl_symbolizer_lookup_frame (o->symbols, pid, addr, k == 0, &s, &m);
      *sym = g_strdup (s);
      *mod = g_strdup (m);
    }
}

/* The batch's samples as the old writer named them at this commit. */
static void
oracle_commit (ChainOracle *o)
{
  for (guint i = 0; i < o->batch->len; i++)
    {
      const SampleRec *s = &g_array_index (o->batch, SampleRec, i);
      GString *stack = g_string_new (NULL);
      gint64 id = o->next_id++;
      for (guint k = 0; k < s->n; k++)
        {
          g_autofree char *sym = NULL, *mod = NULL;
          gboolean found;
          oracle_name (o, s->pid, s->frames[k], k, &sym, &mod, &found);
          g_string_append_printf (o->rows, "%" G_GINT64_FORMAT "|%s|%s|0|0|%d|0|%" G_GINT64_FORMAT
                                  "|%d|%u\n", id, sym, mod, found ? 0 : 1,
                                  (gint64) s->frames[k], SL_UNWIND_TABLE, k);
          g_string_append_printf (stack, "%s%s@%s", k > 0 ? ";" : "", sym, mod);
        }
      g_hash_table_insert (o->by_time, g_memdup2 (&s->time, sizeof s->time),
                           g_string_free (stack, FALSE));
    }
  g_array_set_size (o->batch, 0);
}

/* Every SAMPLING_CALLCHAINS row in rowid order, as the oracle writes them. */
static char *
callchain_rows (const char *path)
{
  sqlite3 *db = sl_test_open_db (path);
  sqlite3_stmt *st = NULL;
  GString *out = g_string_new (NULL);

  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT c.id, s.value, m.value, c.kernelMode, c.thumbCode, "
                                       "c.unresolved, c.specialEntry, c.originalIP, "
                                       "c.unwindMethod, c.stackDepth FROM SAMPLING_CALLCHAINS c "
                                       "JOIN StringIds s ON s.id = c.symbol "
                                       "JOIN StringIds m ON m.id = c.module ORDER BY c.rowid",
                                       -1, &st, NULL),
                   ==, SQLITE_OK);
  while (sqlite3_step (st) == SQLITE_ROW)
    for (int c = 0; c < 10; c++)
      g_string_append_printf (out, "%s%c", (const char *) sqlite3_column_text (st, c),
                              c < 9 ? '|' : '\n');
  sqlite3_finalize (st);
  sqlite3_close (db);
  return g_string_free (out, FALSE);
}

/* Each sample's stack through the model equals the oracle's; returns how many samples. */
static guint
check_model_stacks (const char  *path,
                    ChainOracle *o)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  guint n = 0;

  g_assert_no_error (error);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_SAMPLES)
        continue;
      for (gsize e = 0; e < lane->n_events; e++)
        {
          const SlEvent *ev = &lane->events[e];
          const guint32 *syms = NULL, *mods = NULL;
          guint depth = ev->aux == G_MAXUINT32 ? 0
                                               : sl_trace_get_callchain (trace, ev->aux, &syms,
                                                                         &mods);
          g_autoptr (GString) stack = g_string_new (NULL);
          for (guint k = 0; k < depth; k++)
            g_string_append_printf (stack, "%s%s@%s", k > 0 ? ";" : "",
                                    sl_trace_str (trace, syms[k]), sl_trace_str (trace, mods[k]));
          guint64 t = (guint64) ev->start;
          const char *want = g_hash_table_lookup (o->by_time, &t);
          g_assert_nonnull (want);
          g_assert_cmpstr (stack->str, ==, want);
          n++;
        }
    }
  return n;
}

static char *
folded (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_SAMPLES, NULL, NULL, NULL, &error);
  SlCalltreeScope scope;

  g_assert_no_error (error);
  sl_calltree_scope_init (&scope);
  g_autoptr (SlCalltree) tree = sl_calltree_build (trace, &scope, NULL, &error);
  g_assert_no_error (error);
  GString *out = g_string_new (NULL);
  sl_calltree_write_folded (tree, out);
  return g_string_free (out, FALSE);
}

/* A consistent copy of a file another connection is writing (the live view's reading). */
static void
snapshot (const char *from,
          const char *to)
{
  sqlite3 *src = sl_test_open_db (from), *dst = NULL;

  g_assert_cmpint (sqlite3_open (to, &dst), ==, SQLITE_OK);
  sqlite3_backup *b = sqlite3_backup_init (dst, "main", src, "main");
  g_assert_nonnull (b);
  g_assert_cmpint (sqlite3_backup_step (b, -1), ==, SQLITE_DONE);
  sqlite3_backup_finish (b);
  sqlite3_close (dst);
  sqlite3_close (src);
}

static gboolean
has_table (const char *path,
           const char *table)
{
  sqlite3 *db = sl_test_open_db (path);
  g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", table);
  gboolean has = sl_test_sql_int (db, sql) > 0;

  sqlite3_close (db);
  return has;
}

typedef struct
{
  SlTraceWriter *w;
  ChainOracle   *o;
} ChainFeed;

static int
feed_module_cb (struct dl_phdr_info *info,
                size_t               size,
                void                *data)
{
  ChainFeed *f = data;
  SlWireModule m = { { SL_WIRE_MODULE, 0, TID }, info->dlpi_addr, UINT64_MAX, 0 };
  g_autofree char *path = NULL;

  (void) size;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD)
      {
        m.start = MIN (m.start, info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        m.end = MAX (m.end, info->dlpi_addr + info->dlpi_phdr[i].p_vaddr
                              + info->dlpi_phdr[i].p_memsz);
      }
  path = info->dlpi_name[0] == '\0' ? g_file_read_link ("/proc/self/exe", NULL)
                                    : g_strdup (info->dlpi_name);
  if (m.start >= m.end || path == NULL)
    return 0;
  for (int32_t pid = PID; pid <= PID2; pid += PID2 - PID)
    {
      SlWireHeader *r = rec (SL_WIRE_MODULE, &m, sizeof m, path);
      sl_symbolizer_add_module (f->o->symbols, pid, m.base, m.start, m.end, path);
      g_assert_true (sl_trace_writer_add (f->w, pid, r));
      g_free (r);
    }
  return 0;
}

static SlWireHeader *
pycode (uint64_t    code,
        const char *name,
        const char *file)
{
  /* 3.11 location table: code units 0-3 at the first line + 2, 4-5 at + 5 */
  static const guint8 table[] = { 0x80 | 13 << 3 | 3, 4, 0x80 | 13 << 3 | 1, 6 };
  size_t nl = strlen (name), fl = strlen (file);
  uint32_t size = (uint32_t) ((sizeof (SlWirePyCode) + nl + 1 + fl + 1 + sizeof table + 7) & ~7u);
  SlWirePyCode *r = g_malloc0 (size);

  *r = (SlWirePyCode) { { SL_WIRE_PYCODE, (uint16_t) size, TID }, code, 10, (uint16_t) nl,
                        (uint16_t) fl, sizeof table, 0x030b, 0 };
  char *t = (char *) (r + 1);
  memcpy (t, name, nl + 1);
  memcpy (t + nl + 1, file, fl + 1);
  memcpy (t + nl + 1 + fl + 1, table, sizeof table);
  return &r->h;
}

static void
add_pycode (ChainFeed  *f,
            uint64_t    code,
            const char *name,
            const char *file)
{
  SlWireHeader *r = pycode (code, name, file);

  g_assert_true (sl_py_codes_add (f->o->py, PID, r));
  g_assert_true (sl_trace_writer_add (f->w, PID, r));
  g_free (r);
}

static void
add_module (ChainFeed  *f,
            uint64_t    start,
            uint64_t    end,
            const char *name)
{
  SlWireModule m = { { SL_WIRE_MODULE, 0, TID }, 0, start, end };
  SlWireHeader *r = rec (SL_WIRE_MODULE, &m, sizeof m, name);

  sl_symbolizer_add_module (f->o->symbols, PID, 0, start, end, name);
  g_assert_true (sl_trace_writer_add (f->w, PID, r));
  g_free (r);
}

static uint64_t
py (uint64_t code,
    guint    unit)
{
  return SL_WIRE_PYFRAME_BIT | (uint64_t) unit << 47 | code;
}

#define CODE_STEP    UINT64_C (0x7f0000001000)
#define CODE_COLLATE UINT64_C (0x7f0000002000)
#define CODE_LATE    UINT64_C (0x7f0000003000) /* described only in the second batch */

/* `n` samples of random stacks from a few shapes, in both processes, plus one without frames. */
static void
add_samples (ChainFeed *f,
             GRand     *rand,
             guint      n,
             uint64_t  *time)
{
  const uint64_t self = (uint64_t) (uintptr_t) test_round_trip, rec_fn = (uint64_t) (uintptr_t) rec;
  const uint64_t mainf = (uint64_t) (uintptr_t) test_sample_chains + 16;
  const uint64_t glib = (uint64_t) (uintptr_t) g_test_run;
  const uint64_t sql = (uint64_t) (uintptr_t) sqlite3_open_v2;
  const uint64_t shapes[][8] = {
    { 3, self, rec_fn + 8, mainf },
    { 3, glib, py (CODE_STEP, 2), mainf },
    { 4, 0x1234, py (CODE_LATE, 0), py (CODE_COLLATE, 5), mainf },
    { 5, sql, py (CODE_COLLATE, 1), py (CODE_STEP, 3), 0x1244, mainf },
    { 1, 0x1234 },
    { 1, glib + 1 },
  };

  for (guint i = 0; i < n; i++)
    {
      SampleRec s = { g_rand_boolean (rand) ? PID : PID2, (*time += 1000), 0, { 0 } };
      guint shape = (guint) g_rand_int_range (rand, 0, G_N_ELEMENTS (shapes) + 2);
      if (shape < G_N_ELEMENTS (shapes))
        {
          s.n = (guint) shapes[shape][0];
          memcpy (s.frames, &shapes[shape][1], s.n * sizeof (uint64_t));
        }
      else if (shape == G_N_ELEMENTS (shapes))
        {
          /* deep: 40 frames, a few distinct */
          s.n = 40;
          for (guint k = 0; k < s.n; k++)
            s.frames[k] = k % 3 == 0 ? py (CODE_STEP, k % 6) : self + (k % 5) * 4;
          s.frames[39] = mainf + (uint64_t) g_rand_int_range (rand, 0, 3) * 8;
        }
      /* else none */
      struct
      {
        SlWireSample s;
        uint64_t frames[48];
      } r = { { { SL_WIRE_SAMPLE, 0, s.pid == PID ? TID : TID2 }, s.time, s.n, 1 }, { 0 } };
      memcpy (r.frames, s.frames, s.n * sizeof (uint64_t));
      r.s.h.size = (uint16_t) (sizeof r.s + s.n * sizeof (uint64_t));
      g_assert_true (sl_trace_writer_add (f->w, s.pid, &r.s.h));
      g_array_append_val (f->o->batch, s);
    }
}

static void
commit (ChainFeed *f)
{
  char *error = NULL;

  g_assert_true (sl_trace_writer_commit (f->w, &error));
  oracle_commit (f->o);
}

/* Issue 15, item 4: each distinct chain is written once and SAMPLING_CALLCHAINS made at the end.
 * Its rows must be what the old writer wrote row by row (all columns, in order), names looked up
 * at each batch's commit as before even where a module or a code object arrived between batches
 * (the daemon's name cache must not keep a stale name); a copy taken mid-recording, which has
 * only the side tables (the live view; a daemon killed then), must give each sample the same
 * stack through the model, and the same folded stacks as the finished file. */
static void
test_chain_tables (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "writer-dedup.sqlite", NULL);
  g_autofree char *mid = g_build_filename (sl_test_tmpdir (), "writer-dedup-mid.sqlite", NULL);
  g_autofree char *cut = g_build_filename (sl_test_tmpdir (), "writer-dedup-cut.sqlite", NULL);
  char *error = NULL;
  guint32 seed = sl_test_seed ();
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  ChainOracle o = { sl_symbolizer_new (), sl_py_codes_new (), g_array_new (FALSE, FALSE,
                                                                           sizeof (SampleRec)),
                    g_string_new (NULL),
                    g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free), 1 };
  ChainFeed f = { sl_trace_writer_open (path, TRUE, &error), &o };
  uint64_t time = 1000000000;

  g_assert_nonnull (f.w);
  for (int32_t pid = PID; pid <= PID2; pid += PID2 - PID)
    {
      SlWireHello h = { { 0, 0, pid == PID ? TID : TID2 }, SL_WIRE_MAGIC, SL_WIRE_VERSION, pid,
                        77, 7, time, time * 5 };
      add (f.w, rec (SL_WIRE_HELLO, &h, sizeof h, "/usr/bin/python3 train.py"));
    }
  dl_iterate_phdr (feed_module_cb, &f);
  add_pycode (&f, CODE_STEP, "train_step", "/src/train.py");
  add_pycode (&f, CODE_COLLATE, "collate_fn", "/src/dataset.py");
  add_samples (&f, rand, 150, &time);
  commit (&f);
  /* named at this commit: CODE_LATE and a module over 0x1234, both after the batch's samples */
  add_samples (&f, rand, 150, &time);
  add_pycode (&f, CODE_LATE, "late", "/src/late.py");
  add_module (&f, 0x1000, 0x2000, "[jit]");
  commit (&f);
  snapshot (path, mid);
  /* a code object freed and another made at its address */
  add_pycode (&f, CODE_STEP, "train_step_v2", "/src/train2.py");
  add_samples (&f, rand, 150, &time);
  g_assert_true (sl_trace_writer_finish (f.w, &error));
  g_assert_null (error);
  oracle_commit (&o);

  /* the finished file: SAMPLING_CALLCHAINS as the old writer had it, the side tables gone */
  g_autofree char *rows = callchain_rows (path);
  g_auto (GStrv) got = g_strsplit (rows, "\n", -1), want = g_strsplit (o.rows->str, "\n", -1);
  for (guint i = 0; got[i] != NULL || want[i] != NULL; i++)
    g_assert_cmpstr (got[i], ==, want[i]); /* the first row that differs */
  g_assert_false (has_table (path, "SIGHTLINE_SAMPLE_CHAINS"));
  g_assert_false (has_table (path, "SIGHTLINE_CHAIN_FRAMES"));
  g_assert_cmpuint (check_model_stacks (path, &o), ==, 450);

  /* mid-recording: the side tables only, each distinct chain once across both processes */
  sqlite3 *db = sl_test_open_db (mid);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM SAMPLING_CALLCHAINS"), ==, 0);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM COMPOSITE_EVENTS"), ==, 300);
  gint64 chains = sl_test_sql_int (db, "SELECT count(DISTINCT chainId) "
                                       "FROM SIGHTLINE_CHAIN_FRAMES");
  g_test_message ("seed %u: %" G_GINT64_FORMAT " chains for 300 samples", seed, chains);
  g_assert_cmpint (chains, >, 6);
  g_assert_cmpint (chains, <=, 2 * (6 + 6 * 3));
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM SIGHTLINE_SAMPLE_CHAINS"), <, 300);
  sqlite3_close (db);
  g_assert_cmpuint (check_model_stacks (mid, &o), ==, 300);

  /* the same folded stacks as the finished file cut to the same samples */
  g_assert_true (g_file_set_contents (cut, "", 0, NULL));
  snapshot (path, cut);
  g_assert_cmpint (sqlite3_open (cut, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "DELETE FROM COMPOSITE_EVENTS WHERE id > 300", NULL, NULL,
                                 NULL),
                   ==, SQLITE_OK);
  sqlite3_close (db);
  g_autofree char *folded_mid = folded (mid), *folded_cut = folded (cut);
  g_assert_nonnull (strstr (folded_mid, "train_step"));
  g_assert_nonnull (strstr (folded_mid, "late"));
  g_assert_cmpstr (folded_mid, ==, folded_cut);

  sl_symbolizer_free (o.symbols);
  sl_py_codes_free (o.py);
  g_array_unref (o.batch);
  g_string_free (o.rows, TRUE);
  g_hash_table_unref (o.by_time);
}

/* The daemon's frame-name cache and chain table: found again by key, stale by generation, and
 * bounded (past their size they start again empty; rows are written again, never wrong ones). */
static void
test_chain_table_limits (void)
{
  SlChains t = { .max_slots = 64 };
  SlFrameNames c = { .max_slots = 64 };
  SlChainHash first, h;
  bool fresh;

  for (int i = 0; i < 200; i++)
    {
      sl_chain_hash_init (&h);
      sl_chain_hash_frame (&h, 0x1000 + (uint64_t) i, 5, 6, false);
      sl_chain_hash_frame (&h, 0x2000, 7, 8, true);
      sl_chain_hash_end (&h);
      if (i == 0)
        first = h;
      SlChain *e = sl_chains_get (&t, &h, &fresh);
      g_assert_nonnull (e);
      g_assert_true (fresh);
      e->id = i + 1;
      e->role = i % 3 == 0 ? g_strdup ("DataLoader worker") : NULL; /* freed by the table */
      g_assert_cmpuint (t.cap, <=, 64);
      g_assert_cmpuint (t.n, <=, 32);
      g_assert_cmpint (sl_chains_get (&t, &h, &fresh)->id, ==, i + 1);
      g_assert_false (fresh);
    }
  /* the first chain went with a reset: met again, it is new */
  g_assert_cmpint (sl_chains_get (&t, &first, &fresh)->id, ==, 0);
  g_assert_true (fresh);
  sl_chains_get (&t, &first, &fresh)->id = 201;
  /* one frame more, or one flag other, is another chain */
  sl_chain_hash_init (&h);
  sl_chain_hash_frame (&h, 0x1000, 5, 6, false);
  sl_chain_hash_frame (&h, 0x2000, 7, 8, false);
  sl_chain_hash_end (&h);
  g_assert_true (h.h1 != first.h1 || h.h2 != first.h2);
  sl_chains_clear (&t);

  for (int i = 0; i < 200; i++)
    {
      SlFrameName *e = sl_frame_names_get (&c, 7, 0x400000 + (uint64_t) i * 16, i == 0, 1, &fresh);
      g_assert_nonnull (e);
      g_assert_true (fresh);
      e->symbol = i;
      g_assert_cmpuint (c.cap, <=, 64);
      e = sl_frame_names_get (&c, 7, 0x400000 + (uint64_t) i * 16, i == 0, 1, &fresh);
      g_assert_false (fresh);
      g_assert_cmpint (e->symbol, ==, i);
      /* another generation of the process (a module loaded since), another process, the same
       * address as a leaf: each named anew */
      sl_frame_names_get (&c, 7, 0x400000 + (uint64_t) i * 16, i == 0, 2, &fresh);
      g_assert_true (fresh);
      sl_frame_names_get (&c, 8, 0x400000 + (uint64_t) i * 16, i == 0, 2, &fresh);
      g_assert_true (fresh);
      sl_frame_names_get (&c, 7, 0x400000 + (uint64_t) i * 16, i != 0, 2, &fresh);
      g_assert_true (fresh);
    }
  sl_frame_names_clear (&c);
}

/* The live view on a file the writer is writing (issue 18): after each commit the trace on
 * screen is appended to (sl_trace_append) and is what a fresh load of the file gives, samples
 * and their side tables of call chains included: a chain written once, in the commit of the
 * first sample that names it, is found again by the samples of later commits. */
static void
test_live_append (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "writer-live.sqlite", NULL);
  char *error = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (sl_test_seed ());
  ChainOracle o = { sl_symbolizer_new (), sl_py_codes_new (), g_array_new (FALSE, FALSE,
                                                                           sizeof (SampleRec)),
                    g_string_new (NULL),
                    g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free), 1 };
  ChainFeed f = { sl_trace_writer_open (path, TRUE, &error), &o };
  uint64_t time = 1000000000;
  g_autoptr (SlTrace) live = NULL;
  guint appended0, reloaded0, appended, reloaded;

  g_assert_nonnull (f.w);
  _sl_live_get_counts (&appended0, &reloaded0);
  for (int32_t pid = PID; pid <= PID2; pid += PID2 - PID)
    {
      SlWireHello h = { { 0, 0, pid == PID ? TID : TID2 }, SL_WIRE_MAGIC, SL_WIRE_VERSION, pid,
                        77, 7, time, time * 5 };
      add (f.w, rec (SL_WIRE_HELLO, &h, sizeof h, "/usr/bin/python3 train.py"));
    }
  dl_iterate_phdr (feed_module_cb, &f);
  add_pycode (&f, CODE_STEP, "train_step", "/src/train.py");
  add_pycode (&f, CODE_COLLATE, "collate_fn", "/src/dataset.py");
  for (guint k = 0; k < 5; k++)
    {
      add_samples (&f, rand, 120, &time);
      if (k == 2)
        add_pycode (&f, CODE_LATE, "late", "/src/late.py");
      commit (&f);
      g_autoptr (GError) err = NULL;
      g_autoptr (SlTrace) next = live == NULL
                                 ? sl_trace_load (path, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL,
                                                  NULL, &err)
                                 : sl_trace_append (live, NULL, &err);
      g_assert_no_error (err);
      g_autoptr (SlTrace) fresh = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &err);
      g_assert_no_error (err);
      g_assert_cmpuint (sl_trace_get_n_events (next), >=, 120 * (k + 1) - 30);
      sl_test_assert_equivalent (next, fresh);
      g_clear_pointer (&live, sl_trace_unref);
      live = g_steal_pointer (&next);
    }
  _sl_live_get_counts (&appended, &reloaded);
  g_assert_cmpuint (appended - appended0, ==, 4);
  g_assert_cmpuint (reloaded - reloaded0, ==, 0);
  g_assert_true (sl_trace_writer_finish (f.w, &error));
  g_assert_null (error);
  oracle_commit (&o);
  sl_symbolizer_free (o.symbols);
  sl_py_codes_free (o.py);
  g_array_unref (o.batch);
  g_string_free (o.rows, TRUE);
  g_hash_table_unref (o.by_time);
}

/* ---- issue 32: a flight recorder (--keep-last) and a bounded trace (--max-size) ---- */

/* A record on its way to the writers: GPU work and CUDA calls come from CUPTI's buffers up to a
 * few commits after they happened, as a real recording has them. */
typedef struct
{
  guint         tick; /* the commit it comes in */
  int32_t       pid;
  SlWireHeader *r;
} Pending;

typedef struct
{
  SlTraceWriter *w[2];
  GArray        *pending; /* Pending */
  GRand         *rand;
  guint          tick;
} KeepFeed;

static void
keep_send (KeepFeed     *f,
           int32_t       pid,
           SlWireHeader *r,
           guint         late)
{
  Pending p = { f->tick + late, pid, r };

  g_array_append_val (f->pending, p);
}

/* What is due goes to each writer (the same records), then both commit. */
static void
keep_commit (KeepFeed *f,
             gboolean  all)
{
  char *error = NULL;

  for (guint i = 0; i < f->pending->len;)
    {
      Pending *p = &g_array_index (f->pending, Pending, i);
      if (!all && p->tick > f->tick)
        {
          i++;
          continue;
        }
      for (guint k = 0; k < 2; k++)
        if (f->w[k] != NULL && !sl_trace_writer_add (f->w[k], p->pid, p->r))
          g_error ("writer %u refused a record of type %u (%u)", k, p->r->type,
                   p->r->type == SL_WIRE_NVTX ? ((SlWireNvtx *) p->r)->op : 0);
      g_free (p->r);
      g_array_remove_index (f->pending, i);
    }
  for (guint k = 0; k < 2; k++)
    if (f->w[k] != NULL)
      {
        g_assert_true (sl_trace_writer_commit (f->w[k], &error));
        g_assert_null (error);
      }
  f->tick++;
}

#define MS UINT64_C (1000000)
/* SlNvtxOp's values: the model's headers, included after the wire's, shadow some of its names */
#define NVTX_MARK  0u
#define NVTX_PUSH  1u
#define NVTX_POP   2u
#define NVTX_START 3u
#define NVTX_END   4u

/* 100 ms of a training-like program from `t`: a thread launching kernels (queued on a stream,
 * up to 150 ms behind their launch), copies, sets and syncs, NVTX steps with marks, a start/end
 * range across steps, an OS thread reading with backtraces, CPU samples with stacks, context
 * switches and GPU memory allocations, in two processes. */
static void
keep_tick (KeepFeed *f,
           uint64_t  t,
           uint32_t *corr,
           uint64_t *stream_free,
           guint    *step)
{
  GRand *rand = f->rand;

  for (uint64_t at = t; at < t + 100 * MS; at += 5 * MS)
    {
      uint64_t a = at + (uint64_t) g_rand_int_range (rand, 0, 1000000);
      guint kind = (guint) g_rand_int_range (rand, 0, 10);
      uint32_t c = ++*corr;
      const char *name = kind < 7 ? "cudaLaunchKernel_v7000"
                         : kind == 7 ? "cudaMemcpyAsync_v3020"
                         : kind == 8 ? "cudaMemsetAsync_v3020"
                                     : "cudaStreamSynchronize_v3020";
      uint64_t a_end = a + 5000 + (uint64_t) g_rand_int_range (rand, 0, 40000);
      uint64_t start = MAX (a + 20000 + (uint64_t) g_rand_int_range (rand, 0, 150) * MS / 10,
                            *stream_free);
      uint64_t end = start + 10000 + (uint64_t) g_rand_int_range (rand, 0, 2000000);
      guint late = (guint) g_rand_int_range (rand, 0, 4);
      if (kind == 9)
        {
          /* a sync: the call waits for the stream */
          a_end = MAX (a_end, *stream_free + 3000);
          start = a + 1000;
          end = a_end - 1000;
        }
      else
        *stream_free = end;
      SlWireCudaApi api = { { 0, 0, TID }, a, a_end, c, SL_EVENT_CLASS_CUDA_RUNTIME, 0,
                            kind < 7 ? 211 : kind == 7 ? 41 : kind == 8 ? 50 : 131 };
      keep_send (f, PID, rec (SL_WIRE_CUDA_API, &api, sizeof api, name), late);
      if (kind < 7)
        {
          SlWireKernel k = { { 0, 0, 0 }, start, end, 0, 1, 13, c, 64, 2, 1, 256, 1, 1, 40,
                             1024, 4096, 0, 0, (int64_t) c, SL_LAUNCH_TYPE_REGULAR, 2, 8192,
                             0, 0, 0, 0, 0, 0, 0 };
          keep_send (f, PID, rec (SL_WIRE_KERNEL, &k, sizeof k, kind < 4 ? "gemm" : "softmax"),
                     late);
        }
      else if (kind == 7)
        {
          SlWireMemcpy m = { { 0, 0, 0 }, start, end, 1 << 20, 0, 1, 13, c, SL_MEMCPY_HTOD,
                             SL_MEM_KIND_PINNED, SL_MEM_KIND_DEVICE, 0, 0, 0 };
          keep_send (f, PID, rec (SL_WIRE_MEMCPY, &m, sizeof m, NULL), late);
        }
      else if (kind == 8)
        {
          SlWireMemset m = { { 0, 0, 0 }, start, end, 4096, 0, 1, 13, c, 0, SL_MEM_KIND_DEVICE };
          keep_send (f, PID, rec (SL_WIRE_MEMSET, &m, sizeof m, NULL), late);
        }
      else
        {
          SlWireSync y = { { 0, 0, 0 }, start, end, 0, 1, 13, c, SL_SYNC_STREAM, UINT32_MAX,
                           UINT32_MAX };
          keep_send (f, PID, rec (SL_WIRE_SYNC, &y, sizeof y, NULL), late);
        }
    }
  /* NVTX: a step every 100 ms with a mark inside; a start/end range every 300 ms */
  {
    SlWireNvtx push = { { 0, 0, TID }, t + 1000, 0, 0, NVTX_PUSH, 0, 0, 0 };
    g_autofree char *text = g_strdup_printf ("step %u", (*step)++);
    keep_send (f, PID, rec (SL_WIRE_NVTX, &push, sizeof push, text), 0);
    SlWireNvtx mark = { { 0, 0, TID }, t + 50 * MS, 0, 0, NVTX_MARK, 0, 0, 0 };
    keep_send (f, PID, rec (SL_WIRE_NVTX, &mark, sizeof mark, "checkpoint"), 0);
    SlWireNvtx pop = { { 0, 0, TID }, t + 97 * MS, 0, 0, NVTX_POP, 0, 0, 0 };
    keep_send (f, PID, rec (SL_WIRE_NVTX, &pop, sizeof pop, ""), 0);
    if (*step % 3 == 0)
      {
        SlWireNvtx end = { { 0, 0, TID2 }, t + 20 * MS, *step - 3, 0, NVTX_END, 0, 0, 0 };
        if (*step > 3)
          keep_send (f, PID2, rec (SL_WIRE_NVTX, &end, sizeof end, ""), 0);
        SlWireNvtx start = { { 0, 0, TID2 }, t + 30 * MS, *step, 0, NVTX_START, 0, 0, 0 };
        keep_send (f, PID2, rec (SL_WIRE_NVTX, &start, sizeof start, "epoch part"), 0);
      }
  }
  /* the worker process: reads (some with a backtrace), samples, switches */
  for (uint64_t at = t; at < t + 100 * MS; at += 7 * MS)
    {
      struct
      {
        SlWireOsrt o;
        uint64_t frames[3];
      } r = { { { SL_WIRE_OSRT, 0, TID2 }, at, at + (uint64_t) g_rand_int_range (rand, 1, 6) * MS,
                4096, SL_OSRT_READ, g_rand_boolean (rand) ? 3 : 0 },
              { 0x1000, 0x2004, 0x3008 + (uint64_t) g_rand_int_range (rand, 0, 3) * 4 } };
      r.o.h.size = (uint16_t) (sizeof r.o + r.o.n_frames * sizeof (uint64_t));
      keep_send (f, PID2, rec (SL_WIRE_OSRT, &r, r.o.h.size, NULL), 0);
      SlWireSched in = { { SL_WIRE_SCHED, sizeof in, TID2 }, at + 6 * MS, PID2, 1, 1,
                         SL_THREAD_STATE_RUNNING };
      keep_send (f, PID2, rec (SL_WIRE_SCHED, &in, sizeof in, NULL), 0);
      SlWireSched out = { { SL_WIRE_SCHED, sizeof out, TID2 }, at + 7 * MS - 1000, PID2, 1, 0,
                          SL_THREAD_STATE_WAITING };
      keep_send (f, PID2, rec (SL_WIRE_SCHED, &out, sizeof out, NULL), 0);
    }
  for (uint64_t at = t; at < t + 100 * MS; at += 2 * MS)
    {
      struct
      {
        SlWireSample s;
        uint64_t frames[4];
      } r = { { { SL_WIRE_SAMPLE, sizeof r, TID }, at, 4, 1 },
              { 0x5000 + (uint64_t) g_rand_int_range (rand, 0, 4) * 16, 0x6000, 0x7000, 0x8000 } };
      keep_send (f, PID, rec (SL_WIRE_SAMPLE, &r, sizeof r, NULL), 0);
    }
  {
    SlWireCudaMemory m = { { 0, 0, TID }, t + 10 * MS, 0x7f0000000000 + t / MS * 4096, 1 << 20,
                           0, 0, 1, *corr, SL_MEM_KIND_DEVICE, 0, 0 };
    keep_send (f, PID, rec (SL_WIRE_CUDA_MEMORY, &m, sizeof m, ""), 1);
    m.time_ns = t + 80 * MS;
    m.operation = 1;
    keep_send (f, PID, rec (SL_WIRE_CUDA_MEMORY, &m, sizeof m, ""), 1);
  }
}

static uint64_t
keep_sql (const char *path,
          const char *sql)
{
  sqlite3 *db = sl_test_open_db (path);
  uint64_t v = (uint64_t) sql_int (db, sql);

  sqlite3_close (db);
  return v;
}

/* Issue 32 item 2: the same records to a full writer and to a --keep-last 2 s one, over 6 s of a
 * program: every report of the keep-last file over its window is the report of the full file cut
 * to that window (stats --range); the window is 2 s exactly and ends at the last event; rows go
 * while recording (not only at the end); a snapshot mid-run opens and spans 2 s; what stays
 * points at nothing that went (call chains, samples' stacks, kernels' launches). */
static void
test_keep_last (void)
{
  g_autofree char *full = g_build_filename (sl_test_tmpdir (), "writer-full.sqlite", NULL);
  g_autofree char *keep = g_build_filename (sl_test_tmpdir (), "writer-keep.sqlite", NULL);
  g_autofree char *snap = g_build_filename (sl_test_tmpdir (), "writer-keep-snap.sqlite", NULL);
  const uint64_t T = 10 * UINT64_C (1000000000), K = 2000 * MS;
  char *error = NULL;
  uint32_t corr = 0;
  uint64_t stream_free = 0;
  guint step = 0;
  KeepFeed f = { { sl_trace_writer_open (full, TRUE, &error),
                   sl_trace_writer_open (keep, TRUE, &error) },
                 g_array_new (FALSE, FALSE, sizeof (Pending)),
                 g_rand_new_with_seed (sl_test_seed ()), 0 };

  g_assert_nonnull (f.w[0]);
  g_assert_nonnull (f.w[1]);
  sl_trace_writer_set_keep_last (f.w[1], K);
  for (int32_t pid = PID; pid <= PID2; pid += PID2 - PID)
    {
      SlWireHello h = { { 0, 0, pid == PID ? TID : TID2 }, SL_WIRE_MAGIC, SL_WIRE_VERSION, pid,
                        77, 7, T, T * 5 };
      keep_send (&f, pid, rec (SL_WIRE_HELLO, &h, sizeof h, "/usr/bin/python3 train.py"), 0);
    }
  {
    SlWireGpu g = { { 0, 0, TID }, 0, 8, 0, 108, 1024, 64, 32, 65536, 65536, 49152, 166912,
                    167936, 32, 1410000, 2, 41943040, 42949672960ull, 1555000000000ull,
                    { 1024, 1024, 64 }, { 2147483647, 65535, 65535 }, 0, 0x17, 0, { 1, 2 }, 0 };
    keep_send (&f, PID, rec (SL_WIRE_GPU, &g, sizeof g, "NVIDIA A100-SXM4-40GB"), 0);
    SlWireContext c = { { 0, 0, TID }, 0, 1, 7, 0 };
    keep_send (&f, PID, rec (SL_WIRE_CONTEXT, &c, sizeof c, NULL), 0);
    SlWireStream st = { { 0, 0, TID }, 0, 1, 13, -2, SL_STREAM_TYPE_NON_BLOCKING, 0 };
    keep_send (&f, PID, rec (SL_WIRE_STREAM, &st, sizeof st, NULL), 0);
    SlWireThreadName n = { { 0, 0, TID2 }, T };
    keep_send (&f, PID2, rec (SL_WIRE_THREAD_NAME, &n, sizeof n, "loader"), 0);
  }
  for (guint i = 0; i < 60; i++)
    {
      keep_tick (&f, T + i * 100 * MS, &corr, &stream_free, &step);
      keep_commit (&f, FALSE);
      if (i == 40)
        {
          /* rows went while recording, in whole chunks (K / 8): none before the cut is left */
          uint64_t cut = sl_trace_writer_kept_from (f.w[1]);
          g_assert_cmpuint (cut, >, T);
          g_assert_cmpuint (cut % (K / 8), ==, 0);
          g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM OSRT_API WHERE end < "
                                                  "%" G_GUINT64_FORMAT, cut);
          g_assert_cmpuint (keep_sql (keep, sql), ==, 0);
          g_assert_true (sl_trace_writer_snapshot (f.w[1], snap, TRUE, &error));
          g_assert_null (error);
          /* one number each: two snapshots never share a file */
          g_assert_false (sl_trace_writer_snapshot (f.w[1], snap, FALSE, &error));
          g_assert_nonnull (strstr (error, "already exists"));
          g_clear_pointer (&error, free);
        }
    }
  keep_commit (&f, TRUE);
  g_assert_true (sl_trace_writer_finish (f.w[0], &error));
  g_assert_true (sl_trace_writer_finish (f.w[1], &error));
  g_assert_null (error);
  g_array_unref (f.pending);
  g_rand_free (f.rand);

  /* the snapshot: a whole trace of K, its stacks expanded */
  {
    g_autoptr (GError) gerror = NULL;
    g_autoptr (SlTrace) s = sl_trace_load (snap, SL_LOAD_ALL, NULL, NULL, NULL, &gerror);
    g_assert_no_error (gerror);
    g_assert_cmpuint (sl_trace_get_n_events (s), >, 1000);
    g_assert_cmpuint (keep_sql (snap, "SELECT stopTime - startTime FROM ANALYSIS_DETAILS"), ==, K);
    g_assert_cmpuint (keep_sql (snap, "SELECT count(*) FROM SAMPLING_CALLCHAINS"), >, 0);
    g_assert_false (has_table (snap, "SIGHTLINE_SAMPLE_CHAINS"));
  }

  /* the window: K exactly, ending at the last event, which both files share */
  uint64_t cut = keep_sql (keep, "SELECT startTime FROM ANALYSIS_DETAILS");
  uint64_t last = keep_sql (keep, "SELECT stopTime FROM ANALYSIS_DETAILS");
  g_assert_cmpuint (last, ==, keep_sql (full, "SELECT stopTime FROM ANALYSIS_DETAILS"));
  g_assert_cmpuint (last - cut, ==, K);
  g_assert_cmpuint (keep_sql (full, "SELECT startTime FROM ANALYSIS_DETAILS"), <, cut - K);
  /* nothing ended before it but the launches of GPU work in it (and NVTX ranges around them),
   * no instant is before it, and nothing points at a row that went */
  static const char *const checks[] = {
    "SELECT count(*) FROM OSRT_API WHERE end < %1$" G_GUINT64_FORMAT,
    "SELECT count(*) FROM COMPOSITE_EVENTS WHERE start < %1$" G_GUINT64_FORMAT,
    "SELECT count(*) FROM SCHED_EVENTS WHERE start < %1$" G_GUINT64_FORMAT,
    /* but, for the NVTX projection, one piece of work of a range open at the cut at most */
    "SELECT count(*) > (SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60) AND start < "
    "%1$" G_GUINT64_FORMAT ") FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE end < %1$" G_GUINT64_FORMAT,
    "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE start < %1$" G_GUINT64_FORMAT,
    "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34 AND start < %1$" G_GUINT64_FORMAT,
    "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE end < %1$" G_GUINT64_FORMAT
    " AND NOT EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE k.correlationId = "
    "r.correlationId UNION ALL SELECT 1 FROM CUPTI_ACTIVITY_KIND_MEMCPY k WHERE k.correlationId = "
    "r.correlationId UNION ALL SELECT 1 FROM CUPTI_ACTIVITY_KIND_MEMSET k WHERE k.correlationId = "
    "r.correlationId UNION ALL SELECT 1 FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION k WHERE "
    "k.correlationId = r.correlationId)",
    "SELECT count(*) FROM OSRT_CALLCHAINS WHERE id NOT IN (SELECT callchainId FROM OSRT_API)",
    "SELECT count(*) FROM SAMPLING_CALLCHAINS WHERE id NOT IN (SELECT id FROM COMPOSITE_EVENTS)",
  };
  for (guint i = 0; i < G_N_ELEMENTS (checks); i++)
    {
      g_autofree char *sql = g_strdup_printf (checks[i], cut);
      if (keep_sql (keep, sql) != 0)
        g_test_message ("%s", sql);
      g_assert_cmpuint (keep_sql (keep, sql), ==, 0);
    }
  /* launches that end before the window but whose kernel is in it: the case is in the data */
  g_autofree char *kept_launches = g_strdup_printf (
      "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE end < %" G_GUINT64_FORMAT, cut);
  g_test_message ("window %" G_GUINT64_FORMAT " … %" G_GUINT64_FORMAT " ns; launches kept from "
                  "before it: %" G_GUINT64_FORMAT,
                  cut, last, keep_sql (keep, kept_launches));
  g_assert_cmpuint (keep_sql (keep, "SELECT count(*) FROM NVTX_EVENTS"), >, 10);
  g_assert_cmpuint (keep_sql (keep, "SELECT count(*) FROM SAMPLING_CALLCHAINS"), >, 1000);

  /* every report over the window: the keep-last file's is the full file's */
  g_autoptr (GError) gerror = NULL;
  g_autoptr (SlTrace) a = sl_trace_load (full, SL_LOAD_ALL, NULL, NULL, NULL, &gerror);
  g_assert_no_error (gerror);
  g_autoptr (SlTrace) b = sl_trace_load (keep, SL_LOAD_ALL, NULL, NULL, NULL, &gerror);
  g_assert_no_error (gerror);
  guint compared = 0;
  for (const char *const *n = sl_report_names (); *n != NULL; n++)
    {
      g_autoptr (GError) ea = NULL;
      g_autoptr (GError) eb = NULL;
      g_autoptr (SlReport) ra = sl_report_compute_range (a, *n, (SlTime) cut, G_MAXINT64, &ea);
      g_autoptr (SlReport) rb = sl_report_compute_range (b, *n, (SlTime) cut, G_MAXINT64, &eb);
      g_assert_true ((ra == NULL) == (rb == NULL));
      if (ra == NULL)
        continue;
      g_autoptr (GString) ta = g_string_new (NULL);
      g_autoptr (GString) tb = g_string_new (NULL);
      sl_report_write (ra, SL_REPORT_FORMAT_CSV, ta);
      sl_report_write (rb, SL_REPORT_FORMAT_CSV, tb);
      /* rank_sum labels a rank by its file */
      g_string_replace (ta, "writer-full.sqlite", "writer-keep.sqlite", 0);
      if (g_strcmp0 (ta->str, tb->str) != 0)
        g_test_message ("report %s differs:\n%s\n%s", *n, ta->str, tb->str);
      g_assert_cmpstr (ta->str, ==, tb->str);
      compared += strchr (ta->str, '\n') != NULL && strchr (ta->str, '\n')[1] != '\0';
    }
  g_test_message ("%u reports with rows compared", compared);
  g_assert_cmpuint (compared, >=, 10);
}

/* `n` reads of 1 µs every 2 µs from `*t`, to each writer, committed every 10000. */
static void
feed_reads (SlTraceWriter *w,
            guint          n,
            uint64_t      *t)
{
  char *error = NULL;

  for (guint i = 0; i < n; i++)
    {
      SlWireOsrt o = { { SL_WIRE_OSRT, sizeof o, TID }, *t, *t + 1000, 1, SL_OSRT_READ, 0 };
      *t += 2000;
      g_assert_true (sl_trace_writer_add (w, PID, &o.h));
      if (i % 10000 == 9999)
        {
          g_assert_true (sl_trace_writer_commit (w, &error));
          g_assert_null (error);
        }
    }
}

static uint64_t
file_bytes (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return (uint64_t) st.st_size;
}

/* Issue 32 item 3: a writer fed ~10 times its --max-size stops at it (plus one commit), says
 * where in DIAGNOSTIC_EVENT, and the file opens; with --keep-last too, the newest events stay
 * under the size instead. */
static void
test_max_size (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "writer-max.sqlite", NULL);
  g_autofree char *both = g_build_filename (sl_test_tmpdir (), "writer-max-keep.sqlite", NULL);
  const uint64_t T = 10 * UINT64_C (1000000000), SIZE = 4 << 20;
  const uint64_t COMMIT = 1 << 20; /* 10000 rows are ~500 KB */
  char *error = NULL;
  uint64_t t = T;

  SlTraceWriter *w = sl_trace_writer_open (path, TRUE, &error);
  g_assert_nonnull (w);
  sl_trace_writer_set_max_size (w, SIZE);
  {
    SlWireHello h = { { 0, 0, TID }, SL_WIRE_MAGIC, SL_WIRE_VERSION, PID, 77, 7, T, T * 5 };
    add (w, rec (SL_WIRE_HELLO, &h, sizeof h, "/usr/bin/writer"));
  }
  /* the empty tables take ~3 MiB: 1 MiB of rows is ~22000; 10 times that */
  feed_reads (w, 220000, &t);
  g_assert_nonnull (sl_trace_writer_stop_reason (w));
  g_assert_nonnull (strstr (sl_trace_writer_stop_reason (w), "--max-size 4 MiB"));
  uint64_t written = sl_trace_writer_n_events (w);
  g_assert_true (sl_trace_writer_finish (w, &error));
  g_assert_null (error);
  g_assert_cmpuint (file_bytes (path), <=, SIZE + COMMIT);
  g_assert_cmpuint (keep_sql (path, "SELECT count(*) FROM OSRT_API"), ==, written);
  g_assert_cmpuint (written, <, 220000 / 4);
  g_assert_cmpuint (keep_sql (path, "SELECT count(*) FROM DIAGNOSTIC_EVENT WHERE severity = 2 AND "
                                    "text LIKE 'recording stopped at %--max-size%' AND timestamp = "
                                    "(SELECT max(end) FROM OSRT_API)"),
                    ==, 1);
  {
    g_autoptr (GError) gerror = NULL;
    g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &gerror);
    g_assert_no_error (gerror);
    g_assert_cmpuint (sl_trace_get_n_events (trace), ==, written);
  }

  /* --keep-last and --max-size: the newest under SIZE, by chunks freed and reused */
  t = T;
  w = sl_trace_writer_open (both, TRUE, &error);
  g_assert_nonnull (w);
  sl_trace_writer_set_max_size (w, SIZE);
  sl_trace_writer_set_keep_last (w, 3600 * UINT64_C (1000000000));
  {
    SlWireHello h = { { 0, 0, TID }, SL_WIRE_MAGIC, SL_WIRE_VERSION, PID, 77, 7, T, T * 5 };
    add (w, rec (SL_WIRE_HELLO, &h, sizeof h, "/usr/bin/writer"));
  }
  feed_reads (w, 220000, &t);
  g_assert_null (sl_trace_writer_stop_reason (w));
  g_assert_true (sl_trace_writer_finish (w, &error));
  g_assert_null (error);
  g_assert_cmpuint (file_bytes (both), <=, SIZE + COMMIT);
  g_assert_cmpuint (keep_sql (both, "SELECT max(start) FROM OSRT_API"), ==, t - 2000);
  g_assert_cmpuint (keep_sql (both, "SELECT min(start) FROM OSRT_API"), >, T);
  g_assert_cmpuint (keep_sql (both, "SELECT count(*) FROM OSRT_API"), >, 1000);
  g_autoptr (GError) gerror = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (both, SL_LOAD_ALL, NULL, NULL, NULL, &gerror);
  g_assert_no_error (gerror);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/writer/keep-last", test_keep_last);
  g_test_add_func ("/collector/writer/max-size", test_max_size);
  g_test_add_func ("/collector/writer/round-trip", test_round_trip);
  g_test_add_func ("/collector/writer/no-overwrite", test_no_overwrite);
  g_test_add_func ("/collector/writer/cpu-records", test_cpu_records);
  g_test_add_func ("/collector/writer/sample-chains", test_sample_chains);
  g_test_add_func ("/collector/writer/chain-tables", test_chain_tables);
  g_test_add_func ("/collector/writer/chain-table-limits", test_chain_table_limits);
  g_test_add_func ("/collector/writer/live-append", test_live_append);
  return g_test_run ();
}
