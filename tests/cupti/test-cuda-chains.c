/* test-cuda-chains.c: the daemon's writer ties a CUDA call's backtrace (SL_WIRE_CUDA_BACKTRACE,
 * sent by the calling thread) to its CUPTI_ACTIVITY_KIND_RUNTIME row (SL_WIRE_CUDA_API, from
 * CUPTI's buffers) whichever comes first: the usual order, the row first in one transaction or
 * across a commit, a call without a backtrace, the same correlation id in two processes and for
 * the driver's call. */
#include <glib.h>
#include <sqlite3.h>
#include <string.h>

#include "sl-schema.h"
#include "sl-test-util.h"
#include "sl-trace-writer.h"
#include "sl-wire.h"

static void
hello (SlTraceWriter *w,
       int32_t        pid)
{
  struct
  {
    SlWireHello h;
    char cmd[8];
  } r;

  memset (&r, 0, sizeof r);
  r.h.h = (SlWireHeader) { SL_WIRE_HELLO, sizeof r, (uint32_t) pid };
  r.h.magic = SL_WIRE_MAGIC;
  r.h.version = SL_WIRE_VERSION;
  r.h.pid = pid;
  strcpy (r.cmd, "fake");
  g_assert_true (sl_trace_writer_add (w, pid, &r.h.h));
}

static void
api (SlTraceWriter *w,
     int32_t        pid,
     uint32_t       corr,
     uint32_t       event_class)
{
  struct
  {
    SlWireCudaApi a;
    char name[24];
  } r;

  memset (&r, 0, sizeof r);
  r.a.h = (SlWireHeader) { SL_WIRE_CUDA_API, sizeof r, (uint32_t) pid };
  r.a.start_ns = 1000 + corr;
  r.a.end_ns = 2000 + corr;
  r.a.correlation_id = corr;
  r.a.event_class = event_class;
  strcpy (r.name, "cudaStreamSynchronize");
  g_assert_true (sl_trace_writer_add (w, pid, &r.a.h));
}

static void
backtrace (SlTraceWriter *w,
           int32_t        pid,
           uint32_t       corr,
           uint32_t       event_class,
           uint32_t       n_frames)
{
  struct
  {
    SlWireCudaBacktrace b;
    uint64_t f[4];
  } r;

  g_assert_cmpuint (n_frames, <=, 4);
  memset (&r, 0, sizeof r);
  r.b.h = (SlWireHeader) { SL_WIRE_CUDA_BACKTRACE,
                           (uint16_t) (sizeof r.b + n_frames * sizeof (uint64_t)),
                           (uint32_t) pid };
  r.b.time_ns = 2000 + corr;
  r.b.correlation_id = corr;
  r.b.event_class = event_class;
  r.b.n_frames = n_frames;
  for (uint32_t k = 0; k < n_frames; k++)
    r.f[k] = 0x1000 * (k + 1) + corr;
  g_assert_true (sl_trace_writer_add (w, pid, &r.b.h));
}

/* The frames of the chain of (pid, corr, class)'s row; -1 without a callchainId. */
static gint64
frames_of (sqlite3 *db,
           int32_t  pid,
           uint32_t corr,
           uint32_t event_class)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT CASE WHEN r.callchainId IS NULL THEN -1 ELSE (SELECT count(*) FROM CUDA_CALLCHAINS "
      "c WHERE c.id = r.callchainId) END FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE "
      "r.correlationId = %u AND r.eventClass = %u AND (r.globalTid >> 24) & 16777215 = %d",
      corr, event_class, pid);
  return sl_test_sql_int (db, sql);
}

static void
test_order (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "chains.sqlite", NULL);
  char *error = NULL;
  SlTraceWriter *w = sl_trace_writer_open (path, true, &error);

  g_assert_null (error);
  g_assert_nonnull (w);
  hello (w, 42);
  hello (w, 43);
  backtrace (w, 42, 1, SL_EVENT_CLASS_CUDA_RUNTIME, 2); /* the usual order */
  api (w, 42, 1, SL_EVENT_CLASS_CUDA_RUNTIME);
  api (w, 42, 2, SL_EVENT_CLASS_CUDA_RUNTIME); /* the row first */
  backtrace (w, 42, 2, SL_EVENT_CLASS_CUDA_RUNTIME, 3);
  api (w, 42, 3, SL_EVENT_CLASS_CUDA_RUNTIME); /* the row first, committed before */
  g_assert_true (sl_trace_writer_commit (w, &error));
  backtrace (w, 42, 3, SL_EVENT_CLASS_CUDA_RUNTIME, 4);
  api (w, 42, 4, SL_EVENT_CLASS_CUDA_RUNTIME); /* no backtrace */
  backtrace (w, 43, 1, SL_EVENT_CLASS_CUDA_RUNTIME, 1); /* another process, the same id */
  api (w, 43, 1, SL_EVENT_CLASS_CUDA_RUNTIME);
  api (w, 42, 1, SL_EVENT_CLASS_CUDA_DRIVER); /* the driver's id 1: none */
  g_assert_true (sl_trace_writer_finish (w, &error));

  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpint (frames_of (db, 42, 1, SL_EVENT_CLASS_CUDA_RUNTIME), ==, 2);
  g_assert_cmpint (frames_of (db, 42, 2, SL_EVENT_CLASS_CUDA_RUNTIME), ==, 3);
  g_assert_cmpint (frames_of (db, 42, 3, SL_EVENT_CLASS_CUDA_RUNTIME), ==, 4);
  g_assert_cmpint (frames_of (db, 42, 4, SL_EVENT_CLASS_CUDA_RUNTIME), ==, -1);
  g_assert_cmpint (frames_of (db, 43, 1, SL_EVENT_CLASS_CUDA_RUNTIME), ==, 1);
  g_assert_cmpint (frames_of (db, 42, 1, SL_EVENT_CLASS_CUDA_DRIVER), ==, -1);
  /* each frame's address as sent, leaf at depth 0 */
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM CUDA_CALLCHAINS c JOIN "
                                        "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.callchainId = c.id "
                                        "WHERE c.originalIP != 4096 * (c.stackDepth + 1) "
                                        "+ r.correlationId"),
                   ==, 0);
  sqlite3_close (db);
}

/* Without a backtrace no CUDA_CALLCHAINS table, as nsys. */
static void
test_none (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "no-chains.sqlite", NULL);
  char *error = NULL;
  SlTraceWriter *w = sl_trace_writer_open (path, true, &error);

  g_assert_nonnull (w);
  hello (w, 42);
  api (w, 42, 1, SL_EVENT_CLASS_CUDA_RUNTIME);
  g_assert_true (sl_trace_writer_finish (w, &error));
  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM sqlite_master "
                                        "WHERE name = 'CUDA_CALLCHAINS'"),
                   ==, 0);
  sqlite3_close (db);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/cuda-chains/order", test_order);
  g_test_add_func ("/collector/cuda-chains/none", test_none);
  return g_test_run ();
}
