/* test-ui-detail.c: what the detail pane says about events of a planted trace: no negative
 * queue delay, and start / end offsets precise enough to tell a short event's ends apart. */
#include <gtk/gtk.h>
#include <sqlite3.h>
#include <string.h>

#include "sl-detail-pane-private.h"
#include "sl-plant.h"
#include "sl-schema.h"
#include "sl-test-util.h"

/* The offsets: digits follow the event's duration, down to the nanosecond */
static void
test_offset_precision (void)
{
  const struct { SlTime offset, resolution; const char *want; } cases[] = {
    { 2046600000, 100000, "+2.04660 s" },       /* a 100 µs call 2 s in: 10 µs digits */
    { 2046700000, 100000, "+2.04670 s" },
    { 2046600000, 0, "+2.047 s" },              /* an instant: as sl_format_offset */
    { 2500000007, 50, "+2.500000007 s" },       /* 50 ns: to the nanosecond */
    { 2046649999, 1000000000, "+2.047 s" },     /* long events keep 3 decimals, rounded */
    { 1500000, 2000, "+1.5000 ms" },
    { 1999999999, 1000, "+2.0000000 s" },       /* rounding carries into the whole part */
    { 1234567, 1, "+1.234567 ms" },
    { 4321, 5, "+4.321 µs" },
    { 500, 1, "+500 ns" },
    { -2046600000, 100000, "−2.04660 s" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = _sl_detail_pane_format_offset (cases[i].offset, cases[i].resolution);
      g_assert_cmpstr (got, ==, cases[i].want);
    }
  g_autofree char *queued = _sl_detail_pane_format_queue_delay (1000, 6145);
  g_autofree char *early = _sl_detail_pane_format_queue_delay (6145, 1000);
  g_assert_cmpstr (queued, ==, "5.145 µs");
  g_assert_cmpstr (early, ==, "none: started before the call returned");
}

static gboolean
find_event (SlTrace    *trace,
            SlLaneKind  kind,
            const char *name,
            SlEventRef *ref)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != kind)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        if (strcmp (sl_trace_str (trace, lane->events[k].name), name) == 0)
          {
            *ref = (SlEventRef) { (gint) i, k };
            return TRUE;
          }
    }
  return FALSE;
}

static char *
line_of (const char *text,
         const char *key)
{
  g_autofree char *prefix = g_strconcat (key, ": ", NULL);
  const char *at = strstr (text, prefix);

  if (at == NULL)
    return NULL;
  at += strlen (prefix);
  return g_strndup (at, strcspn (at, "\n"));
}

/* A kernel that starts 2 µs before its 100 µs launch call returns, 2.0466 s into the trace */
static void
test_pane (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "detail.sqlite", NULL);
  Plant *p = plant_new (path);
  gint64 t = 2046600 * PLANT_US;
  plant_api (p, PLANT_MAIN, "cudaFree", 0, PLANT_US);   /* the trace starts at 0 */
  gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 100 * PLANT_US);
  plant_kernel (p, "k_early", &plant_config_full, t + 98 * PLANT_US, t + 300 * PLANT_US, corr);
  gint64 corr2 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t + PLANT_MS, t + PLANT_MS + 5000);
  plant_kernel (p, "k_queued", &plant_config_full, t + PLANT_MS + 10145, t + 2 * PLANT_MS, corr2);
  plant_finish (p);

  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  GtkWidget *pane = g_object_ref_sink (sl_detail_pane_new ());
  sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
  SlTime origin = sl_trace_get_start (trace);
  SlEventRef ref;

  /* the kernel: no negative delay anywhere in the pane */
  g_assert_true (find_event (trace, SL_LANE_KERNELS, "k_early", &ref));
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
  g_autofree char *kernel = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_test_message ("%s", kernel);
  g_autofree char *delay = line_of (kernel, "Queue delay");
  g_assert_cmpstr (delay, ==, "none: started before the call returned");
  g_assert_null (strstr (kernel, "−"));
  g_assert_null (strstr (kernel, "-2"));

  /* its launch call: the same, and start and end 100 µs apart that read apart */
  const SlLane *kl = sl_trace_get_lane (trace, ref.lane);
  const SlLane *al;
  gsize ai;
  g_assert_true (sl_trace_resolve (trace, kl->events[ref.index].link, &al, &ai));
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), (SlEventRef) { (gint) al->index, ai });
  g_autofree char *api = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_test_message ("%s", api);
  g_autofree char *api_delay = line_of (api, "Queue delay");
  g_autofree char *start = line_of (api, "Start");
  g_autofree char *end = line_of (api, "End");
  g_autofree char *want_start = _sl_detail_pane_format_offset (t - origin, 100 * PLANT_US);
  g_assert_cmpstr (api_delay, ==, "none: started before the call returned");
  g_assert_cmpstr (start, ==, want_start);
  g_assert_cmpstr (start, !=, end);
  g_assert_cmpint (origin, ==, 0);
  g_assert_cmpstr (start, ==, "+2.04660 s");
  g_assert_cmpstr (end, ==, "+2.04670 s");

  /* a kernel that did queue: its delay as a duration */
  g_assert_true (find_event (trace, SL_LANE_KERNELS, "k_queued", &ref));
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
  g_autofree char *queued = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_autofree char *queued_delay = line_of (queued, "Queue delay");
  g_assert_cmpstr (queued_delay, ==, "5.145 µs");
  g_object_unref (pane);
}

/* A thread-state slice: its state, CPU, why it blocked and the OS runtime call it blocked in
 * (issue 14). */
static void
test_thread_state (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "detail-sched.sqlite", NULL);
  Plant *p = plant_new (path);
  plant_api (p, PLANT_MAIN, "cudaFree", 0, PLANT_US);
  plant_osrt (p, PLANT_MAIN, "pthread_cond_wait", PLANT_MS, 5 * PLANT_MS);
  plant_finish (p);
  gint64 gtid = SL_GLOBAL_TID (1, 100, PLANT_MAIN);
  g_autofree char *sql = g_strdup_printf (
    "INSERT INTO SCHED_EVENTS VALUES (0, 2, 1, %" G_GINT64_FORMAT ", NULL, NULL), (%"
    G_GINT64_FORMAT ", 2, 0, %" G_GINT64_FORMAT ", 2, 7), (%" G_GINT64_FORMAT ", 6, 1, %"
    G_GINT64_FORMAT ", NULL, NULL), (%" G_GINT64_FORMAT ", 6, 0, %" G_GINT64_FORMAT ", 1, 44);",
    gtid, PLANT_MS + 2000, gtid, 5 * PLANT_MS, gtid, 6 * PLANT_MS, gtid);
  sqlite3 *db = NULL;
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);

  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  GtkWidget *pane = g_object_ref_sink (sl_detail_pane_new ());
  sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
  SlEventRef ref;

  g_assert_true (find_event (trace, SL_LANE_SCHED, "Blocked", &ref));
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
  g_autofree char *blocked = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_test_message ("%s", blocked);
  g_autofree char *on = line_of (blocked, "Blocked on");
  g_autofree char *in = line_of (blocked, "In call");
  g_assert_cmpstr (on, ==, "CondVar");
  g_assert_nonnull (in);
  g_assert_true (g_str_has_prefix (in, "pthread_cond_wait (OS runtime"));
  g_assert_nonnull (strstr (blocked, "from scheduling data"));

  g_assert_true (find_event (trace, SL_LANE_SCHED, "Running", &ref));
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
  g_autofree char *running = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_autofree char *cpu = line_of (running, "CPU");
  g_assert_cmpstr (cpu, ==, "2");
  g_assert_null (line_of (running, "In call"));
  g_object_unref (pane);
}

/* Issue 14, item 3: an OS runtime call's backtrace in the pane, frame by frame as SQL has it: the
 * longest call with one in a real trace. */
static void
test_osrt_backtrace (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-osrt-sampling.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  gint64 start = 0, chain = 0;
  SlEventRef ref = SL_EVENT_REF_NONE;
  g_autofree char *text = NULL;
  const char *at;
  guint frames = 0;

  g_assert_no_error (error);
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT start, callchainId FROM OSRT_API WHERE "
                                           "callchainId <> 0 ORDER BY end - start DESC LIMIT 1",
                                       -1, &st, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (st), ==, SQLITE_ROW);
  start = sqlite3_column_int64 (st, 0);
  chain = sqlite3_column_int64 (st, 1);
  sqlite3_finalize (st);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_OSRT && k < lane->n_events; k++)
        if (lane->events[k].start == start && lane->events[k].corr == chain)
          ref = (SlEventRef) { (gint) i, k };
    }
  g_assert_cmpint (ref.lane, >=, 0);

  GtkWidget *pane = g_object_ref_sink (sl_detail_pane_new ());
  sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
  text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_test_message ("%s", text);
  at = strstr (text, "Backtrace (leaf first)");
  g_assert_nonnull (at);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT s.value, m.value FROM OSRT_CALLCHAINS c "
                                           "JOIN StringIds s ON s.id = c.symbol "
                                           "JOIN StringIds m ON m.id = c.module "
                                           "WHERE c.id = ? ORDER BY c.stackDepth",
                                       -1, &st, NULL), ==, SQLITE_OK);
  sqlite3_bind_int64 (st, 1, chain);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      g_autofree char *want = g_strdup_printf ("%s  (%s)", sqlite3_column_text (st, 0),
                                               sqlite3_column_text (st, 1));
      const char *next = strstr (at, want);
      g_assert_nonnull (next);   /* in order, leaf first */
      at = next + strlen (want);
      frames++;
    }
  g_assert_cmpuint (frames, >, 1);
  sqlite3_finalize (st);
  sqlite3_close (db);
  g_object_unref (pane);
}

/* Issue 14, item 5: a process's command line and parent, from SL_PROCESS_INFO, by its events. */
static void
test_process_origin (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "origin.sqlite", NULL);
  Plant *p = plant_new (path);
  sqlite3 *db = NULL;
  g_autoptr (GError) error = NULL;
  SlEventRef ref;

  plant_api (p, PLANT_MAIN, "cudaFree", 0, PLANT_US);
  plant_finish (p);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_autofree char *sql = g_strdup_printf (
    "CREATE TABLE SL_PROCESS_INFO (globalPid INTEGER NOT NULL, pid INTEGER NOT NULL, "
    "  parentPid INTEGER, commandLine TEXT);"
    "INSERT INTO SL_PROCESS_INFO VALUES (%" G_GINT64_FORMAT ", 100, 77, "
    "  'python3 train.py --workers 4');",
    (gint64) SL_GLOBAL_PID (1, 100));
  g_assert_cmpint (sqlite3_exec (db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);

  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  GtkWidget *pane = g_object_ref_sink (sl_detail_pane_new ());
  sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
  g_assert_true (find_event (trace, SL_LANE_CUDA_API, "cudaFree", &ref));
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
  g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_autofree char *cmd = line_of (text, "Command line");
  g_autofree char *parent = line_of (text, "Parent");
  g_test_message ("%s", text);
  g_assert_cmpstr (cmd, ==, "python3 train.py --workers 4");
  g_assert_cmpstr (parent, ==, "pid 77");
  g_object_unref (pane);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/detail/offset-precision", test_offset_precision);
  g_test_add_func ("/ui/detail/pane", test_pane);
  g_test_add_func ("/ui/detail/thread-state", test_thread_state);
  g_test_add_func ("/ui/detail/osrt-backtrace", test_osrt_backtrace);
  g_test_add_func ("/ui/detail/process-origin", test_process_origin);
  return g_test_run ();
}
