/* test-critical-path.c: the critical path (model/sl-critical-path.c): its properties on every real
 * trace, planted traces with a known answer, and HTA's own reference traces. */
#include <stdio.h>
#include <string.h>

#include "sl-critical-path.h"
#include "sl-lane.h"
#include "sl-plant.h"
#include "sl-test-util.h"
#include "sl-trace.h"

#define US ((SlTime) 1000)
#define HTA_FORWARD "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
#define SIMPLE_ADD  SL_SOURCE_DIR "/tests/data/hta-critical-path-simple-add.json.gz"

static SlTrace *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  SlTrace *trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static const SlEvent *
ref_event (SlTrace      *trace,
           SlEventRef    ref,
           const SlLane **lane)
{
  g_assert_cmpint (ref.lane, >=, 0);
  g_assert_cmpuint ((guint) ref.lane, <, sl_trace_get_n_lanes (trace));
  *lane = sl_trace_get_lane (trace, (guint) ref.lane);
  g_assert_cmpuint (ref.index, <, (*lane)->n_events);
  return &(*lane)->events[ref.index];
}

static gboolean
is_gpu_work (const SlLane *lane)
{
  return lane->gpu >= 0
         && (lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_MEMCPY
             || lane->kind == SL_LANE_MEMSET || lane->kind == SL_LANE_GRAPHS);
}

/* The path's properties: segments tile [t0, t1) in order, the kinds add up to the span, and each
 * segment is what its kind says of the event it names (inside it, on its thread or stream; a
 * launch delay from the launch call to its op; a wait ending with the call that waited, or
 * starting with the end of the op waited for). */
static void
check_path (SlTrace        *trace,
            SlCriticalPath *path,
            SlTime          t0,
            SlTime          t1,
            const char     *what)
{
  gsize n;
  const SlCpSegment *s = sl_critical_path_get_segments (path, &n);
  SlTime sum = 0, work = 0;

  g_assert_cmpuint (n, >, 0);
  g_assert_cmpint (sl_critical_path_get_start (path), ==, t0);
  g_assert_cmpint (sl_critical_path_get_end (path), ==, t1);
  g_assert_cmpint (s[0].start, ==, t0);
  g_assert_cmpint (s[n - 1].end, ==, t1);
  for (gsize i = 0; i < n; i++)
    {
      const SlLane *lane;
      const SlEvent *ev;
      if (s[i].start >= s[i].end || (i > 0 && s[i - 1].end != s[i].start))
        g_error ("%s: segment %zu [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") after one ending at "
                 "%" G_GINT64_FORMAT, what, i, s[i].start, s[i].end,
                 i > 0 ? s[i - 1].end : t0);
      g_assert_true ((s[i].thread >= 0) != (s[i].gpu >= 0) || s[i].kind == SL_CP_IDLE);
      switch (s[i].kind)
        {
        case SL_CP_CPU:
          ev = ref_event (trace, s[i].event, &lane);
          g_assert_true (lane->kind == SL_LANE_CUDA_API || lane->kind == SL_LANE_NVTX);
          g_assert_cmpint (lane->thread, ==, s[i].thread);
          g_assert_cmpint (ev->start, <=, s[i].start);
          g_assert_cmpint (ev->end, >=, s[i].end);
          break;
        case SL_CP_GPU:
          ev = ref_event (trace, s[i].event, &lane);
          g_assert_true (is_gpu_work (lane));
          g_assert_cmpint (lane->gpu, ==, s[i].gpu);
          g_assert_cmpuint (lane->stream_id, ==, s[i].stream_id);
          g_assert_cmpint (ev->start, <=, s[i].start);
          g_assert_cmpint (ev->end, >=, s[i].end);
          break;
        case SL_CP_LAUNCH:
          ev = ref_event (trace, s[i].event, &lane);
          if (lane->kind == SL_LANE_CUDA_API)
            {
              /* from the call's return (or start) to its op's start */
              g_assert_true (ev->end == s[i].start || ev->start == s[i].start);
              const SlLane *op_lane;
              gsize op_index;
              g_assert_true (sl_trace_resolve (trace, ev->link, &op_lane, &op_index));
            }
          else
            {
              /* a stream's queue: the op that starts after it, launched before it began */
              g_assert_true (is_gpu_work (lane));
              g_assert_cmpint (ev->start, ==, s[i].end);
              g_assert_cmpint (lane->gpu, ==, s[i].gpu);
            }
          break;
        case SL_CP_WAIT:
          ev = ref_event (trace, s[i].event, &lane);
          if (lane->kind == SL_LANE_CUDA_API)
            {
              g_assert_cmpint (lane->thread, ==, s[i].thread);
              g_assert_cmpint (ev->end, >=, s[i].end);
            }
          else
            {
              /* a stream waited for another's op, from its end */
              g_assert_true (is_gpu_work (lane));
              g_assert_cmpint (ev->end, ==, s[i].start);
            }
          break;
        case SL_CP_IDLE:
          g_assert_cmpint (s[i].event.lane, ==, -1);
          break;
        default:
          g_assert_not_reached ();
        }
      sum += s[i].end - s[i].start;
    }
  g_assert_cmpint (sum, ==, t1 - t0);
  sum = 0;
  for (SlCpKind k = 0; k < SL_CP_N_KINDS; k++)
    sum += sl_critical_path_get_time (path, k);
  g_assert_cmpint (sum, ==, t1 - t0);
  work = sl_critical_path_get_time (path, SL_CP_CPU) + sl_critical_path_get_time (path, SL_CP_GPU)
         + sl_critical_path_get_time (path, SL_CP_LAUNCH);
  g_assert_cmpint (sl_critical_path_get_weight (path), <=, work);
  g_assert_cmpint (sl_critical_path_get_weight (path), >=, 0);
}

static SlCriticalPath *
compute (SlTrace *trace,
         SlTime   t0,
         SlTime   t1)
{
  g_autoptr (GError) error = NULL;
  SlCriticalPath *path = sl_critical_path_compute (trace, t0, t1, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (path);
  return path;
}

/* The whole trace, its middle third, and its first step where it has one. */
static void
check_trace (const char *file)
{
  g_autoptr (SlTrace) trace = load (file);
  SlTime a = sl_trace_get_start (trace), b = sl_trace_get_end (trace);
  SlTime ranges[3][2] = { { a, b }, { a + (b - a) / 3, a + 2 * (b - a) / 3 }, { 0, 0 } };
  guint n = 2;

  if (b <= a)
    return;
  if (sl_critical_path_find_range (trace, "ProfilerStep", 0, &ranges[2][0], &ranges[2][1], NULL)
      || sl_critical_path_find_range (trace, "step", 0, &ranges[2][0], &ranges[2][1], NULL))
    n = 3;
  for (guint r = 0; r < n; r++)
    {
      g_autofree char *what = g_strdup_printf ("%s range %u", file, r);
      g_autoptr (SlCriticalPath) path = compute (trace, ranges[r][0], ranges[r][1]);
      gsize nodes, edges, path_edges, events, n_segs;
      check_path (trace, path, ranges[r][0], ranges[r][1], what);
      sl_critical_path_get_counts (path, &nodes, &edges, &path_edges, &events);
      sl_critical_path_get_segments (path, &n_segs);
      g_assert_cmpuint (path_edges, >=, n_segs);
      double span = (double) (ranges[r][1] - ranges[r][0]);
      g_test_message ("%s range %u: %zu nodes, %zu edges, path %zu edges, %zu events, "
                      "%zu segments; cpu %.1f%% gpu %.1f%% launch %.1f%% wait %.1f%% idle %.1f%%",
                      file, r, nodes, edges, path_edges, events, n_segs,
                      100.0 * (double) sl_critical_path_get_time (path, SL_CP_CPU) / span,
                      100.0 * (double) sl_critical_path_get_time (path, SL_CP_GPU) / span,
                      100.0 * (double) sl_critical_path_get_time (path, SL_CP_LAUNCH) / span,
                      100.0 * (double) sl_critical_path_get_time (path, SL_CP_WAIT) / span,
                      100.0 * (double) sl_critical_path_get_time (path, SL_CP_IDLE) / span);
    }
}

static void
test_properties_nsys (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();

  for (guint i = 0; files[i] != NULL; i++)
    check_trace (files[i]);
}

static void
test_properties_kineto (void)
{
  g_autofree char *pt = sl_test_trace_path ("pytorch");
  g_autoptr (GDir) dir = g_dir_open (pt, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *file = g_build_filename (pt, name, NULL);
      if (sl_trace_file_is_json (file))
        check_trace (file);
    }
  check_trace (SIMPLE_ADD);
}

/* ---- planted ------------------------------------------------------------------------------- */

#define GPID_SQL "(SELECT globalPid FROM PROCESSES WHERE pid = 100)"

static void
plant_sync (const char *path,
            gint        type,
            gint        stream,
            gint64      start,
            gint64      end,
            gint64      corr)
{
  g_autofree char *sql
    = g_strdup_printf ("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, "
                       "contextId, streamId, correlationId, globalPid, syncType, eventId) VALUES "
                       "(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 0, 1, %d, %" G_GINT64_FORMAT
                       ", " GPID_SQL ", %d, %s)", start, end, stream, corr, type,
                       /* an event only for the event types, as nsys writes them */
                       type == 1 || type == 2 ? "1" : "4294967295");
  plant_sql (path, sql);
}

typedef struct
{
  SlCpKind kind;
  SlTime   start, end;
  gboolean gpu;
} Expect;

static void
check_expected (SlTrace        *trace,
                SlCriticalPath *path,
                const Expect   *want,
                gsize           n_want)
{
  gsize n;
  const SlCpSegment *s = sl_critical_path_get_segments (path, &n);

  for (gsize i = 0; i < n; i++)
    g_test_message ("segment %zu: %s [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") gpu %d thread %d",
                    i, sl_cp_kind_name (s[i].kind), s[i].start, s[i].end, s[i].gpu, s[i].thread);
  g_assert_cmpuint (n, ==, n_want);
  for (gsize i = 0; i < n; i++)
    {
      g_assert_cmpint (s[i].kind, ==, want[i].kind);
      g_assert_cmpint (s[i].start, ==, want[i].start);
      g_assert_cmpint (s[i].end, ==, want[i].end);
      if (want[i].kind != SL_CP_IDLE)
        g_assert_cmpint (s[i].gpu >= 0, ==, want[i].gpu);
    }
  check_path (trace, path, want[0].start, want[n_want - 1].end, "planted");
}

/* Two kernels queued back to back, a stream sync that waits for them, then a launch on an idle
 * stream: launch delay, the kernels, the sync's return, the host, the last launch's delay and
 * its kernel. */
static void
test_planted_sync (void)
{
  g_autofree char *file = g_build_filename (sl_test_tmpdir (), "cp-sync.sqlite", NULL);
  Plant *p = plant_new (file);
  gint64 c1 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 10 * US, 15 * US);
  gint64 c2 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 20 * US, 25 * US);
  gint64 cs = plant_api (p, PLANT_MAIN, "cudaStreamSynchronize_v3020", 30 * US, 1530 * US);
  gint64 c3 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 1600 * US, 1605 * US);

  plant_kernel (p, "k1", &plant_config_full, 20 * US, 1020 * US, c1);
  plant_kernel (p, "k2", &plant_config_full, 1020 * US, 1520 * US, c2);
  plant_kernel (p, "k3", &plant_config_full, 1610 * US, 1710 * US, c3);
  plant_finish (p);
  plant_sync (file, 3, 7, 1525 * US, 1526 * US, cs);

  g_autoptr (SlTrace) trace = load (file);
  SlTime t0 = 0, t1 = 1800 * US;
  g_autoptr (SlCriticalPath) path = compute (trace, t0, t1);
  const Expect want[] = {
    { SL_CP_IDLE, 0, 10 * US, FALSE },
    { SL_CP_CPU, 10 * US, 15 * US, FALSE },
    { SL_CP_LAUNCH, 15 * US, 20 * US, TRUE },
    { SL_CP_GPU, 20 * US, 1020 * US, TRUE },
    { SL_CP_GPU, 1020 * US, 1520 * US, TRUE },
    { SL_CP_WAIT, 1520 * US, 1530 * US, FALSE },
    { SL_CP_IDLE, 1530 * US, 1600 * US, FALSE },
    { SL_CP_CPU, 1600 * US, 1605 * US, FALSE },
    { SL_CP_LAUNCH, 1605 * US, 1610 * US, TRUE },
    { SL_CP_GPU, 1610 * US, 1710 * US, TRUE },
    { SL_CP_IDLE, 1710 * US, 1800 * US, FALSE },
  };
  check_expected (trace, path, want, G_N_ELEMENTS (want));
  g_assert_cmpint (sl_critical_path_get_weight (path), ==, 10 * US + 1500 * US + 110 * US);
  g_assert_cmpuint (sl_critical_path_count_path_edges (path, SL_CP_EDGE_SYNC), ==, 1);
  g_assert_cmpuint (sl_critical_path_count_path_edges (path, SL_CP_EDGE_LAUNCH), ==, 2);
  /* the wait is the sync call's, on its thread */
  gsize n;
  const SlCpSegment *s = sl_critical_path_get_segments (path, &n);
  const SlLane *lane;
  const SlEvent *ev = ref_event (trace, s[5].event, &lane);
  g_assert_cmpstr (sl_trace_str (trace, ev->name), ==, "cudaStreamSynchronize_v3020");
  g_assert_cmpint (s[5].thread, >=, 0);

  /* a range inside the kernels: all GPU */
  g_autoptr (SlCriticalPath) inner = compute (trace, 100 * US, 1200 * US);
  g_assert_cmpint (sl_critical_path_get_time (inner, SL_CP_GPU), ==, 1100 * US);
}

/* The CPU bound: a host that launches slower than the GPU runs; the path stays on the thread,
 * through the launch calls and the host between them, to the last launch. */
static void
test_planted_cpu_bound (void)
{
  g_autofree char *file = g_build_filename (sl_test_tmpdir (), "cp-cpu.sqlite", NULL);
  Plant *p = plant_new (file);

  for (guint i = 0; i < 10; i++)
    {
      SlTime t = 100 * US * i;
      gint64 c = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 90 * US);
      plant_kernel (p, "tiny", &plant_config_full, t + 92 * US, t + 95 * US, c);
    }
  plant_finish (p);

  g_autoptr (SlTrace) trace = load (file);
  g_autoptr (SlCriticalPath) path = compute (trace, 0, 1000 * US);
  check_path (trace, path, 0, 1000 * US, "cpu-bound");
  /* 10 calls of 90 µs on the path (the last reaching its kernel by a launch delay of 2 µs and
   * the kernel's 3 µs), the gaps idle */
  g_assert_cmpint (sl_critical_path_get_time (path, SL_CP_CPU), ==, 900 * US);
  g_assert_cmpint (sl_critical_path_get_time (path, SL_CP_GPU), ==, 3 * US);
  g_assert_cmpint (sl_critical_path_get_time (path, SL_CP_LAUNCH), ==, 2 * US);
}

/* A kernel that starts the instant its launch call returns: the launch edge has no length, and
 * its source (the call's end, on a thread) is met after its destination (streams first at one
 * instant); the path still goes through the call, then the kernel. */
static void
test_planted_zero_gap (void)
{
  g_autofree char *file = g_build_filename (sl_test_tmpdir (), "cp-zero.sqlite", NULL);
  Plant *p = plant_new (file);

  gint64 c = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 0, 90 * US);
  plant_kernel (p, "at_once", &plant_config_full, 90 * US, 500 * US, c);
  plant_finish (p);

  g_autoptr (SlTrace) trace = load (file);
  g_autoptr (SlCriticalPath) path = compute (trace, 0, 500 * US);
  check_path (trace, path, 0, 500 * US, "zero-gap");
  g_assert_cmpint (sl_critical_path_get_time (path, SL_CP_CPU), ==, 90 * US);
  g_assert_cmpint (sl_critical_path_get_time (path, SL_CP_GPU), ==, 410 * US);
  g_assert_cmpint (sl_critical_path_get_time (path, SL_CP_LAUNCH), ==, 0);
}

/* A kernel on stream 8 that waited (cudaStreamWaitEvent) for one on stream 7: the path crosses
 * streams through the event wait, and the second kernel's launch, long before, is no launch
 * delay. */
static SlCriticalPath *
planted_event_wait (SlTrace           **trace_out,
                    SlCpDependencyFunc  extra)
{
  g_autofree char *file = g_build_filename (sl_test_tmpdir (), "cp-event.sqlite", NULL);

  if (!g_file_test (file, G_FILE_TEST_EXISTS))
    {
      Plant *p = plant_new (file);
      gint64 c1 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 10 * US, 15 * US);
      plant_api (p, PLANT_MAIN, "cudaEventRecord_v3020", 16 * US, 17 * US);
      gint64 cw = plant_api (p, PLANT_MAIN, "cudaStreamWaitEvent_v3020", 17 * US, 18 * US);
      gint64 c2 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 19 * US, 24 * US);
      plant_kernel (p, "producer", &plant_config_full, 20 * US, 520 * US, c1);
      plant_kernel (p, "consumer", &plant_config_full, 521 * US, 821 * US, c2);
      plant_finish (p);
      g_autofree char *sql
        = g_strdup_printf ("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = 8 WHERE "
                           "correlationId = %" G_GINT64_FORMAT, c2);
      plant_sql (file, sql);
      plant_sync (file, 2, 8, 17 * US, 18 * US, cw);
    }
  *trace_out = load (file);
  g_autoptr (GError) error = NULL;
  SlCriticalPath *path = sl_critical_path_compute (*trace_out, 0, 900 * US, extra, NULL, &error);
  g_assert_no_error (error);
  return path;
}

static void
test_planted_event_wait (void)
{
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlCriticalPath) path = planted_event_wait (&trace, NULL);
  const Expect want[] = {
    { SL_CP_IDLE, 0, 10 * US, FALSE },
    { SL_CP_CPU, 10 * US, 15 * US, FALSE },
    { SL_CP_LAUNCH, 15 * US, 20 * US, TRUE },
    { SL_CP_GPU, 20 * US, 520 * US, TRUE },
    { SL_CP_WAIT, 520 * US, 521 * US, TRUE },
    { SL_CP_GPU, 521 * US, 821 * US, TRUE },
    { SL_CP_IDLE, 821 * US, 900 * US, FALSE },
  };
  check_expected (trace, path, want, G_N_ELEMENTS (want));
  /* the trace has no CUDA event records: the wait's source is guessed */
  g_assert_cmpuint (sl_critical_path_count_edges (path, SL_CP_EDGE_EVENT_GUESS), ==, 1);
  g_assert_cmpuint (sl_critical_path_count_path_edges (path, SL_CP_EDGE_EVENT_GUESS), ==, 1);
  gsize n;
  const SlCpSegment *s = sl_critical_path_get_segments (path, &n);
  g_assert_cmpuint (s[2].stream_id, ==, 7);
  g_assert_cmpuint (s[4].stream_id, ==, 8);
}

/* An edge source plugged in: its dependencies are edges of the graph (the stand-in for the
 * trace's own record of which event a wait waited for). */
static void
extra_deps (SlTrace *trace,
            SlTime   t0,
            SlTime   t1,
            GArray  *deps,
            gpointer data)
{
  SlEventRef producer = SL_EVENT_REF_NONE, consumer = SL_EVENT_REF_NONE;

  (void) t0, (void) t1, (void) data;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_KERNELS)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const char *name = sl_trace_str (trace, lane->events[k].name);
          if (strcmp (name, "producer") == 0)
            producer = (SlEventRef) { (gint) i, k };
          if (strcmp (name, "consumer") == 0)
            consumer = (SlEventRef) { (gint) i, k };
        }
    }
  g_assert_cmpint (producer.lane, >=, 0);
  g_assert_cmpint (consumer.lane, >=, 0);
  SlCpDependency d = { producer, consumer, SL_CP_WAIT };
  g_array_append_val (deps, d);
}

static void
test_extra_source (void)
{
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlCriticalPath) path = planted_event_wait (&trace, extra_deps);

  g_assert_cmpuint (sl_critical_path_count_edges (path, SL_CP_EDGE_EXTRA), ==, 1);
  check_path (trace, path, 0, 900 * US, "extra");
  g_assert_cmpint (sl_critical_path_get_time (path, SL_CP_GPU), ==, 800 * US);
}

/* ---- ranges by name ------------------------------------------------------------------------- */

static void
test_find_range (void)
{
  g_autoptr (SlTrace) trace = load (SIMPLE_ADD);
  g_autoptr (GError) error = NULL;
  SlTime t0, t1, u0, u1;

  g_assert_true (sl_critical_path_find_range (trace, HTA_FORWARD, 0, &t0, &t1, &error));
  g_assert_no_error (error);
  g_assert_true (sl_critical_path_find_range (trace, HTA_FORWARD, 1, &u0, &u1, &error));
  g_assert_cmpint (u0, >, t0);
  /* the trace's times, in µs: instance 1 is 243351 µs long */
  g_assert_cmpint (u1 - u0, ==, 243351 * US);
  g_assert_false (sl_critical_path_find_range (trace, HTA_FORWARD, 2, &t0, &t1, &error));
  g_assert_error (error, SL_CRITICAL_PATH_ERROR, SL_CRITICAL_PATH_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (sl_critical_path_find_range (trace, "no such range", 0, &t0, &t1, &error));
  g_assert_error (error, SL_CRITICAL_PATH_ERROR, SL_CRITICAL_PATH_ERROR_NOT_FOUND);
  g_clear_error (&error);
  /* a name held by several (HTA's substring match): both "…|warmup|forward]" come first */
  g_assert_true (sl_critical_path_find_range (trace, "alex_net|0|0|0|warmup", 1, &t0, &t1,
                                              &error));
  g_assert_null (sl_critical_path_compute (trace, t1, t0, NULL, NULL, &error));
  g_assert_error (error, SL_CRITICAL_PATH_ERROR, SL_CRITICAL_PATH_ERROR_EMPTY);
}

/* ---- HTA's reference traces ---------------------------------------------------------------- */

/* HTA's test_critical_path_basic_add: on simple_add, instance 1 of the forward annotation, 159
 * events and 314 edges are critical; its path holds relu_ > clamp_min_ > cudaLaunchKernel as
 * edges of 15, 14, 17, 15 and 32 µs.  Ours counts the events its segments and nodes belong to
 * (see sightline-critical-path(1), "Compared with HTA"). */
static void
test_hta_simple_add (void)
{
  g_autoptr (SlTrace) trace = load (SIMPLE_ADD);
  SlTime t0, t1;

  g_assert_true (sl_critical_path_find_range (trace, HTA_FORWARD, 1, &t0, &t1, NULL));
  g_autoptr (SlCriticalPath) path = compute (trace, t0, t1);
  check_path (trace, path, t0, t1, "simple_add");
  gsize nodes, edges, path_edges, events, n;
  const SlCpSegment *s = sl_critical_path_get_segments (path, &n);
  sl_critical_path_get_counts (path, &nodes, &edges, &path_edges, &events);
  printf ("# simple_add: %zu events on the path (HTA: 159), %zu path edges (HTA: 314), %zu "
          "segments; graph %zu nodes, %zu edges\n", events, path_edges, n, nodes, edges);
  g_assert_cmpuint (events, ==, 159);   /* HTA's count (its edges differ: see the man page) */

  static const struct { const char *name; SlTime dur; } chain[] = {
    { "aten::relu_", 15 }, { "aten::clamp_min_", 14 }, { "cudaLaunchKernel", 17 },
    { "aten::clamp_min_", 15 }, { "aten::relu_", 32 },
  };
  gboolean found = FALSE;
  for (gsize i = 0; i + G_N_ELEMENTS (chain) <= n && !found; i++)
    {
      found = TRUE;
      for (gsize k = 0; k < G_N_ELEMENTS (chain) && found; k++)
        {
          const SlLane *lane;
          const SlCpSegment *g = &s[i + k];
          if (g->kind != SL_CP_CPU)
            {
              found = FALSE;
              break;
            }
          const SlEvent *ev = ref_event (trace, g->event, &lane);
          found = strcmp (sl_trace_str (trace, ev->name), chain[k].name) == 0
                  && g->end - g->start == chain[k].dur * US;
        }
    }
  g_assert_true (found);
  /* the forward pass of an AlexNet with cudaMalloc in it: CPU bound */
  g_assert_cmpint (sl_critical_path_get_time (path, SL_CP_CPU), >, (t1 - t0) * 9 / 10);
}

/* HTA's test_critical_path_inter_stream_sync: on the alexnet trace the graph has synchronization
 * edges between streams from CUDA events; here the path takes one. */
static void
test_hta_alexnet (void)
{
  g_autofree char *file
    = sl_test_trace_path ("pytorch/critical_path_alexnet_benchmark_result_2869224_1695835535_trace"
                          ".json.gz");
  g_autoptr (SlTrace) trace = load (file);
  SlTime t0, t1;

  g_assert_true (sl_critical_path_find_range (trace, HTA_FORWARD, 1, &t0, &t1, NULL));
  g_autoptr (SlCriticalPath) path = compute (trace, t0, t1);
  check_path (trace, path, t0, t1, "alexnet");
  gsize events, path_edges;
  sl_critical_path_get_counts (path, NULL, NULL, &path_edges, &events);
  printf ("# alexnet: %zu events on the path, %zu path edges; %zu event-wait and %zu sync edges "
          "in the graph, %zu event waits on the path\n", events, path_edges,
          sl_critical_path_count_edges (path, SL_CP_EDGE_EVENT_WAIT),
          sl_critical_path_count_edges (path, SL_CP_EDGE_SYNC),
          sl_critical_path_count_path_edges (path, SL_CP_EDGE_EVENT_WAIT));
  g_assert_cmpuint (sl_critical_path_count_edges (path, SL_CP_EDGE_EVENT_WAIT), >, 0);
  g_assert_cmpuint (sl_critical_path_count_edges (path, SL_CP_EDGE_SYNC), >, 0);
  g_assert_cmpuint (sl_critical_path_count_path_edges (path, SL_CP_EDGE_EVENT_WAIT), >, 0);
  /* it goes through two streams */
  gsize n;
  const SlCpSegment *s = sl_critical_path_get_segments (path, &n);
  guint32 first_stream = G_MAXUINT32;
  gboolean two = FALSE;
  for (gsize i = 0; i < n; i++)
    if (s[i].kind == SL_CP_GPU)
      {
        if (first_stream == G_MAXUINT32)
          first_stream = s[i].stream_id;
        else if (s[i].stream_id != first_stream)
          two = TRUE;
      }
  g_assert_true (two);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* every trace read from its file, none written to the person's model cache */
  g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
  g_test_add_func ("/model/critical-path/planted-sync", test_planted_sync);
  g_test_add_func ("/model/critical-path/planted-cpu-bound", test_planted_cpu_bound);
  g_test_add_func ("/model/critical-path/planted-zero-gap", test_planted_zero_gap);
  g_test_add_func ("/model/critical-path/planted-event-wait", test_planted_event_wait);
  g_test_add_func ("/model/critical-path/extra-source", test_extra_source);
  g_test_add_func ("/model/critical-path/find-range", test_find_range);
  g_test_add_func ("/model/critical-path/hta-simple-add", test_hta_simple_add);
  g_test_add_func ("/model/critical-path/hta-alexnet", test_hta_alexnet);
  g_test_add_func ("/model/critical-path/properties-nsys", test_properties_nsys);
  g_test_add_func ("/model/critical-path/properties-kineto", test_properties_kineto);
  return g_test_run ();
}
