/* test-ui-detail.c: what the detail pane says about events of a planted trace: no negative
 * queue delay, start / end offsets precise enough to tell a short event's ends apart, a kernel's
 * waves, and what a synchronizing call waited for. */
#include <gtk/gtk.h>
#include <sqlite3.h>
#include <string.h>

#include "sl-detail-pane-private.h"
#include "sl-file-access.h"
#include "sl-format.h"
#include "sl-metrics.h"
#include "sl-plant.h"
#include "sl-schema.h"
#include "sl-test-gui.h"
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

/* Issue 33, item 4: an open call's file in the pane, as OSRT_FILE_ACCESS_EVENTS names it: every
 * access of a real 2026.1 export shown under its call, a call without one shows no File. */
static void
test_osrt_files (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-osrt-sampling.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  guint shown = 0, without = 0;

  g_assert_no_error (error);
  GtkWidget *pane = g_object_ref_sink (sl_detail_pane_new ());
  sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT e.startedAt, d.filePath FROM OSRT_FILE_ACCESS_EVENTS e "
                                           "JOIN OSRT_FILE_ACCESS_DESCRIPTORS d USING (fileAccessId)",
                                       -1, &st, NULL), ==, SQLITE_OK);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      SlEventRef ref = SL_EVENT_REF_NONE;
      for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, i);
          for (gsize k = 0; lane->kind == SL_LANE_OSRT && k < lane->n_events; k++)
            if (lane->events[k].start == sqlite3_column_int64 (st, 0))
              ref = (SlEventRef) { (gint) i, k };
        }
      g_assert_cmpint (ref.lane, >=, 0);
      sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
      g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
      g_autofree char *want = g_strdup_printf ("Open: %s\n", (const char *) sqlite3_column_text (st, 1));
      if (shown == 0)
        g_test_message ("%s", text);
      g_assert_nonnull (strstr (text, "File"));
      g_assert_nonnull (strstr (text, want));
      shown++;
    }
  sqlite3_finalize (st);
  sqlite3_close (db);
  g_assert_cmpuint (shown, >, 0);
  /* the first call of the trace that opened nothing */
  for (guint i = 0; i < sl_trace_get_n_lanes (trace) && without == 0; i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_OSRT && k < lane->n_events && without == 0; k++)
        {
          g_autoptr (GPtrArray) files = sl_trace_get_file_accesses (trace, lane, k, NULL);
          if (files == NULL || files->len > 0)
            continue;
          sl_detail_pane_set_event (SL_DETAIL_PANE (pane), (SlEventRef) { (gint) i, k });
          g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
          g_assert_null (strstr (text, "Unknown file"));
          without++;
        }
    }
  g_assert_cmpuint (without, ==, 1);
  g_object_unref (pane);
}

/* Issue 30, item 3: a CUDA API call's backtrace in the pane as an OS call's, frame by frame as
 * SQL has it (this nsys's callchainId k is chain k + 1): the longest call with one; the
 * runtime's own row of the same call (class 0, same correlation id) shows none. */
static void
test_cuda_backtrace (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2021-cuda-backtraces.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  gint64 start = 0, chain = 0, corr = 0;
  SlEventRef ref = SL_EVENT_REF_NONE, inner = SL_EVENT_REF_NONE;
  const char *at;
  guint frames = 0;

  g_assert_no_error (error);
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT start, callchainId, correlationId FROM "
                                           "CUPTI_ACTIVITY_KIND_RUNTIME WHERE callchainId IS NOT "
                                           "NULL ORDER BY end - start DESC LIMIT 1",
                                       -1, &st, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (st), ==, SQLITE_ROW);
  start = sqlite3_column_int64 (st, 0);
  chain = sqlite3_column_int64 (st, 1);
  corr = sqlite3_column_int64 (st, 2);
  sqlite3_finalize (st);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_CUDA_API && k < lane->n_events; k++)
        if (lane->events[k].corr == corr && lane->events[k].start == start)
          ref = (SlEventRef) { (gint) i, k };
        else if (lane->events[k].corr == corr)
          inner = (SlEventRef) { (gint) i, k };
    }
  g_assert_cmpint (ref.lane, >=, 0);
  g_assert_cmpint (inner.lane, >=, 0);

  GtkWidget *pane = g_object_ref_sink (sl_detail_pane_new ());
  sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), inner);
  {
    g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
    g_assert_null (strstr (text, "Backtrace"));
  }
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
  g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_test_message ("%s", text);
  at = strstr (text, "Backtrace (leaf first)");
  g_assert_nonnull (at);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT s.value, m.value FROM CUDA_CALLCHAINS c "
                                           "JOIN StringIds s ON s.id = c.symbol "
                                           "JOIN StringIds m ON m.id = c.module "
                                           "WHERE c.id = ? + 1 ORDER BY c.stackDepth",
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

/* The first widget under `root` that is a button labelled `label`, or NULL. */
static GtkWidget *
find_button (GtkWidget  *root,
             const char *label)
{
  if (GTK_IS_BUTTON (root) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (root)), label) == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_button (c, label);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
go_to_event_cb (SlDetailPane *pane G_GNUC_UNUSED,
                gint          lane,
                guint64       index,
                SlEventRef   *out)
{
  *out = (SlEventRef) { lane, (gsize) index };
}

/* Issue 28, item 7: a kernel's grid in waves beside its occupancy.  40 blocks on 28 SMs at one
 * block per SM (255 registers × 256 threads take an SM's register file) are 1.43 waves, the
 * second 12 of 28 slots full; a grid of 56 fills two whole waves and shows no tail. */
static void
test_waves (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "detail-waves.sqlite", NULL);
  const PlantConfig tail = { 40, 256, 255, 0 }, whole = { 56, 256, 255, 0 };
  Plant *p = plant_new (path);
  gint64 corr;

  plant_api (p, PLANT_MAIN, "cudaFree", 0, PLANT_US);
  corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", PLANT_MS, PLANT_MS + 5 * PLANT_US);
  plant_kernel (p, "k_tail", &tail, PLANT_MS + 10 * PLANT_US, 3 * PLANT_MS, corr);
  corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 4 * PLANT_MS,
                    4 * PLANT_MS + 5 * PLANT_US);
  plant_kernel (p, "k_whole", &whole, 4 * PLANT_MS + 10 * PLANT_US, 6 * PLANT_MS, corr);
  plant_finish (p);
  plant_sql (path, "UPDATE TARGET_INFO_GPU SET smCount = 28");

  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sl_trace_get_gpu (trace, 0)->limits.sm_count, ==, 28);
  GtkWidget *pane = g_object_ref_sink (sl_detail_pane_new ());
  sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
  SlEventRef ref;

  g_assert_true (find_event (trace, SL_LANE_KERNELS, "k_tail", &ref));
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
  g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_test_message ("%s", text);
  g_autofree char *waves = line_of (text, "Waves");
  g_autofree char *size = line_of (text, "Wave size");
  g_autofree char *bps = line_of (text, "Blocks per SM");
  g_assert_cmpstr (bps, ==, "1");
  g_assert_cmpstr (waves, ==, "1.43 (last wave 43 % full)");
  g_assert_cmpstr (size, ==, "28 blocks (28 SMs × 1)");
  g_assert_nonnull (strstr (text, "Tail effect: the last wave runs 12 blocks in 28 slots and "
                                  "leaves 16 of 28 SMs idle: 29 % of the SM time"));
  /* next to the occupancy, before the launch configuration */
  g_assert_true (strstr (text, "Waves:") > strstr (text, "Occupancy:"));
  g_assert_true (strstr (text, "Waves:") < strstr (text, "Launch configuration"));
  {
    GtkWidget *window = gtk_window_new ();
    gtk_window_set_default_size (GTK_WINDOW (window), 520, 900);
    gtk_window_set_child (GTK_WINDOW (window), pane);
    gtk_window_present (GTK_WINDOW (window));
    sl_test_iterate_for (300);
    sl_test_screenshot (window, "detail-kernel-waves");
    gtk_window_set_child (GTK_WINDOW (window), NULL);
    gtk_window_destroy (GTK_WINDOW (window));
  }

  g_assert_true (find_event (trace, SL_LANE_KERNELS, "k_whole", &ref));
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
  g_autofree char *whole_text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_autofree char *whole_waves = line_of (whole_text, "Waves");
  g_assert_cmpstr (whole_waves, ==, "2.00 (last wave 100 % full)");
  g_assert_null (strstr (whole_text, "Tail effect"));
  g_object_unref (pane);
}

/* Issue 28, item 8: a synchronizing call launched nothing.  Its pane says what it waited for
 * and links to the synchronization record (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, tied to it by
 * correlation id), and that record's pane names the call that waited, not a "launch". */
static void
test_sync_call (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "detail-sync.sqlite", NULL);
  Plant *p = plant_new (path);
  gint64 corr, sync_corr, ctx_corr;

  plant_api (p, PLANT_MAIN, "cudaFree", 0, PLANT_US);
  corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", PLANT_MS, PLANT_MS + 5 * PLANT_US);
  plant_kernel (p, "k_long", &plant_config_full, PLANT_MS + 10 * PLANT_US, 4 * PLANT_MS, corr);
  sync_corr = plant_api (p, PLANT_MAIN, "cudaStreamSynchronize_v3020", PLANT_MS + 20 * PLANT_US,
                         4 * PLANT_MS + 3 * PLANT_US);
  ctx_corr = plant_api (p, PLANT_MAIN, "cudaDeviceSynchronize_v3020", 5 * PLANT_MS,
                        5 * PLANT_MS + 4 * PLANT_US);
  plant_finish (p);
  g_autofree char *sql = g_strdup_printf (
    "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, contextId, streamId, "
    "correlationId, globalPid, syncType, eventId) VALUES "
    "(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 0, 1, 7, %" G_GINT64_FORMAT ", %"
    G_GINT64_FORMAT ", 3, -1), "
    "(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 0, 1, 4294967295, %" G_GINT64_FORMAT ", %"
    G_GINT64_FORMAT ", 4, -1)",   /* a context sync: no stream, no event, as nsys writes it */
    PLANT_MS + 22 * PLANT_US, 4 * PLANT_MS + 1 * PLANT_US, sync_corr,
    (gint64) SL_GLOBAL_PID (1, 100), 5 * PLANT_MS + 1 * PLANT_US, 5 * PLANT_MS + 3 * PLANT_US,
    ctx_corr, (gint64) SL_GLOBAL_PID (1, 100));
  plant_sql (path, sql);

  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  GtkWidget *pane = g_object_ref_sink (sl_detail_pane_new ());
  SlEventRef ref, went = SL_EVENT_REF_NONE;
  sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
  g_signal_connect (pane, "go-to-event", G_CALLBACK (go_to_event_cb), &went);

  g_assert_true (find_event (trace, SL_LANE_CUDA_API, "cudaStreamSynchronize_v3020", &ref));
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
  g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_test_message ("%s", text);
  g_autofree char *waited = line_of (text, "Waited for");
  g_autofree char *time = line_of (text, "Synchronization time");
  g_assert_cmpstr (waited, ==, "stream 7 sync");
  g_assert_cmpstr (time, ==, "2.979 ms");
  g_assert_null (line_of (text, "Launched"));
  g_assert_null (line_of (text, "Queue delay"));
  g_assert_null (strstr (text, "GPU work"));
  g_assert_nonnull (strstr (text, "[Go to the synchronization]"));

  /* the button goes to the synchronization record */
  GtkWidget *button = find_button (pane, "Go to the synchronization");
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpint (went.lane, >=, 0);
  const SlLane *sync_lane = sl_trace_get_lane (trace, went.lane);
  g_assert_cmpint (sync_lane->kind, ==, SL_LANE_SYNC);
  g_assert_cmpint (sync_lane->events[went.index].start, ==, PLANT_MS + 22 * PLANT_US);

  /* whose own pane names the call that waited */
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), went);
  g_autofree char *sync_text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_test_message ("%s", sync_text);
  g_autofree char *call = line_of (sync_text, "API call");
  g_assert_cmpstr (call, ==, "cudaStreamSynchronize");   /* as the statistics name it */
  g_assert_null (strstr (sync_text, "Launch\n"));
  g_assert_null (line_of (sync_text, "Queue delay"));
  g_assert_nonnull (strstr (sync_text, "[Go to the call]"));

  /* a context sync waits for all the context's streams */
  g_assert_true (find_event (trace, SL_LANE_CUDA_API, "cudaDeviceSynchronize_v3020", &ref));
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
  g_autofree char *device = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_autofree char *device_waited = line_of (device, "Waited for");
  g_assert_cmpstr (device_waited, ==, "context 1 sync (all its streams)");
  {
    GtkWidget *window = gtk_window_new ();
    sl_detail_pane_set_event (SL_DETAIL_PANE (pane), (SlEventRef) { ref.lane, ref.index });
    g_assert_true (find_event (trace, SL_LANE_CUDA_API, "cudaStreamSynchronize_v3020", &ref));
    sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
    gtk_window_set_default_size (GTK_WINDOW (window), 520, 600);
    gtk_window_set_child (GTK_WINDOW (window), pane);
    gtk_window_present (GTK_WINDOW (window));
    sl_test_iterate_for (300);
    sl_test_screenshot (window, "detail-sync-call");
    gtk_window_set_child (GTK_WINDOW (window), NULL);
    gtk_window_destroy (GTK_WINDOW (window));
  }
  g_object_unref (pane);
}

/* On a real trace (2005 synchronization records: 2000 event syncs, 3 context syncs, 2 stream
 * waits), no call whose correlation leads to a synchronization says it launched anything. */
static void
test_sync_real (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2025.5-cuda-events.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  GtkWidget *pane = g_object_ref_sink (sl_detail_pane_new ());
  guint n = 0, n_waited = 0, n_event = 0;

  g_assert_no_error (error);
  sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace) && n < 50; i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_CUDA_API && k < lane->n_events && n < 50; k++)
        {
          const SlLane *gl;
          gsize gk;
          if (lane->events[k].link == SL_NO_LINK
              || !sl_trace_resolve (trace, lane->events[k].link, &gl, &gk)
              || gl->kind != SL_LANE_SYNC)
            continue;
          sl_detail_pane_set_event (SL_DETAIL_PANE (pane), (SlEventRef) { (gint) i, k });
          g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
          g_autofree char *waited = line_of (text, "Waited for");
          g_autofree char *made = line_of (text, "Makes wait");
          if (n == 0 || (waited == NULL) != (n_waited == 0))
            g_test_message ("%s", text);
          /* host syncs wait; a cudaStreamWaitEvent (2 in this trace) makes a stream wait */
          g_assert_true ((waited != NULL) != (made != NULL));
          g_assert_null (strstr (text, "4294967295"));
          n_waited += waited != NULL;
          n_event += waited != NULL && strcmp (waited, "event sync") == 0;
          g_assert_null (line_of (text, "Launched"));
          g_assert_nonnull (strstr (text, "[Go to the synchronization]"));
          n++;
        }
    }
  g_assert_cmpuint (n, ==, 50);
  g_assert_cmpuint (n_waited, >, 0);
  g_assert_cmpuint (n_event, >, 0);
  g_object_unref (pane);
}

/* Issue 30, item 2: a wait (a cudaStreamWaitEvent or cudaEventSynchronize call, or its
 * synchronization record) names the event, the stream that recorded it, when, and the GPU work
 * before the record; a cudaEventRecord call lists its waits; a wait whose event has no record
 * says so.  On the real nsys traces with records and on a Kineto trace. */
static void
test_event_waits (void)
{
  const char *files[] = {
    "nsys/nsys-2024.2-memory-usage-cuda-events.sqlite", "nsys/nsys-2025.5-cuda-events.sqlite",
    "nsys/nsys-2026.2-mfu-2gpu.sqlite",
    "pytorch/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
  };
  GtkWidget *pane = g_object_ref_sink (sl_detail_pane_new ());

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = sl_test_trace_path (files[f]);
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      guint shown = 0, linked = 0, unknown = 0, records = 0;

      g_assert_no_error (error);
      sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
      for (guint i = 0; i < sl_trace_get_n_lanes (trace) && shown < 200; i++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, i);
          if (lane->kind != SL_LANE_CUDA_API && lane->kind != SL_LANE_SYNC)
            continue;
          for (gsize k = 0; k < lane->n_events && shown < 200; k++)
            {
              SlEventWait w;
              guint record;
              gboolean is_wait = sl_trace_get_event_wait (trace, lane->base + k, &w);
              gboolean is_record = !is_wait && lane->kind == SL_LANE_CUDA_API
                                   && sl_trace_find_event_record (trace, lane->base + k, &record);
              if (!is_wait && !is_record)
                continue;
              sl_detail_pane_set_event (SL_DETAIL_PANE (pane), (SlEventRef) { (gint) i, k });
              g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
              if (shown++ < 2)
                g_test_message ("%s", text);
              if (is_record)
                {
                  const SlEventRecord *rec = sl_trace_get_event_record (trace, record);
                  g_autofree char *waits = line_of (text, "Waits");
                  g_autofree char *on = line_of (text, "Recorded on");
                  g_autofree char *want = g_strdup_printf ("stream %u (context %u)", rec->stream,
                                                           rec->context);
                  g_assert_nonnull (strstr (text, "CUDA event record\n"));
                  g_assert_cmpstr (on, ==, want);
                  g_assert_nonnull (waits);
                  guint links = 0;
                  for (const char *p = text; (p = strstr (p, "[Go to the wait]")) != NULL; p++)
                    links++;
                  g_assert_cmpuint (links, ==, MIN (rec->n_waits, 32));
                  if (rec->n_waits == 0)
                    g_assert_true (g_str_has_prefix (waits, "none"));
                  records++;
                  continue;
                }
              g_autofree char *event = line_of (text, "Event");
              g_autofree char *want_event = g_strdup_printf ("id %u", w.event_id);
              g_assert_nonnull (strstr (text, "CUDA event waited for\n"));
              if (w.event_id != SL_NO_LINK)
                g_assert_cmpstr (event, ==, want_event);
              if (w.record == G_MAXUINT)
                {
                  g_autofree char *rec_line = line_of (text, "Recorded");
                  g_assert_nonnull (rec_line);
                  g_assert_true (g_str_has_prefix (rec_line, "unknown"));
                  unknown++;
                  continue;
                }
              const SlEventRecord *rec = sl_trace_get_event_record (trace, w.record);
              g_autofree char *on = line_of (text, "Recorded on");
              g_autofree char *want = g_strdup_printf ("stream %u (context %u)", rec->stream,
                                                       rec->context);
              g_autofree char *work = line_of (text, "GPU work waited for");
              g_autofree char *how = line_of (text, "Linked by");
              g_assert_cmpstr (on, ==, want);
              g_autofree char *completed = line_of (text, "Completed");
              g_assert_nonnull (completed);
              g_assert_nonnull (work);
              g_assert_nonnull (how);
              if (rec->work != SL_NO_LINK)
                {
                  const SlLane *wl;
                  gsize wk;
                  g_assert_true (sl_trace_resolve (trace, rec->work, &wl, &wk));
                  g_assert_true (g_str_has_prefix (work, sl_trace_str (trace,
                                                                       wl->events[wk].name)));
                  g_assert_nonnull (strstr (text, "[Go to the GPU work]"));
                }
              linked++;
            }
        }
      g_test_message ("%s: %u shown, %u waits linked, %u unknown, %u records", files[f], shown,
                      linked, unknown, records);
      g_assert_cmpuint (shown, >, 0);
      if (sl_trace_get_n_event_records (trace) > 0)
        g_assert_cmpuint (linked + records, >, 0);
      else
        g_assert_cmpuint (unknown, >, 0);
    }
  g_object_unref (pane);
}

/* Issue 29, item 12: nsys's versioned CUDA API names ("cudaLaunchKernel_v7000") read in the pane
 * as every other pane writes them (sl_trace_display_name), on every real nsys trace that has
 * them, for the first events of each lane: the heading, the API call a piece of GPU work or a
 * synchronization came from, the thread.  "Name in the trace" alone gives the name as the file
 * has it. */
static void
test_display_names (void)
{
  static const char *const traces[] = {
    "nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite", "nsys/nsys-2025.5-cuda-events.sqlite",
    "nsys/nsys-2021-cuda-backtraces.sqlite", "nsys/nsys-2023.1-rtx3090.sqlite",
  };
  /* nsys's reports drop a 4-digit "_vNNNN" only ("cudaLaunchKernelExC_v11060" stays whole in
   * cuda_api_sum), and so does every pane */
  g_autoptr (GRegex) versioned = g_regex_new ("\\bcu[A-Za-z0-9]*_v[0-9]{4}\\b", 0, 0, NULL);
  guint raw = 0, shown = 0;

  for (gsize t = 0; t < G_N_ELEMENTS (traces); t++)
    {
      g_autofree char *path = sl_test_trace_path (traces[t]);
      g_autoptr (GError) error = NULL;
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        {
          g_test_skip ("real traces not found");
          return;
        }
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      GtkWidget *pane = g_object_ref_sink (sl_detail_pane_new ());
      sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
      for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, l);
          for (gsize i = 0; i < lane->n_events && i < 20; i++)
            {
              sl_detail_pane_set_event (SL_DETAIL_PANE (pane), (SlEventRef) { (gint) l, i });
              g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
              g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
              for (guint k = 0; lines[k] != NULL; k++)
                {
                  if (g_str_has_prefix (lines[k], "Name in the trace: "))
                    {
                      raw++;
                      continue;
                    }
                  if (g_regex_match (versioned, lines[k], 0, NULL))
                    g_test_message ("%s, lane %u (%s), event %" G_GSIZE_FORMAT ": %s", traces[t],
                                    l, sl_trace_str (trace, lane->label), i, lines[k]);
                  g_assert_false (g_regex_match (versioned, lines[k], 0, NULL));
                }
              shown++;
            }
        }
      g_object_unref (pane);
    }
  g_test_message ("%u events shown, %u with a versioned name in the trace", shown, raw);
  g_assert_cmpuint (raw, >, 0);
}

/* Issue 30: a CUDA graph launch traced whole (sightline-gen --graphs graph) says its graph and
 * exec ids, stream and duration and goes to its cudaGraphLaunch; a kernel traced as a graph node
 * (--graphs node) says which node of which graph it is. */
static void
test_graphs (void)
{
  static const char *const modes[] = { "graph", "node" };

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autofree char *name = g_strdup_printf ("detail-graphs-%s.sqlite", modes[m]);
      g_autofree char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
      g_auto (SlTestRun) run = { 0 };
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = NULL;
      GtkWidget *pane;
      SlEventRef ref = SL_EVENT_REF_NONE;
      g_autofree char *text = NULL;

      sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "5000", "--graphs", modes[m], "--force",
                   NULL);
      g_assert_cmpint (run.status, ==, 0);
      trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      for (guint i = 0; i < sl_trace_get_n_lanes (trace) && ref.lane < 0; i++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, i);
          for (gsize k = 0; k < lane->n_events && ref.lane < 0; k++)
            {
              const SlKernelInfo *ki = lane->kind == SL_LANE_KERNELS
                                         ? sl_trace_get_kernel_info (trace, lane->events[k].aux)
                                         : NULL;
              if (m == 0 ? lane->kind == SL_LANE_GRAPHS
                         : ki != NULL && ki->graph_id != 0
                           && ki->graph_node_id == ((G_GUINT64_CONSTANT (1) << 32) | 3))
                ref = (SlEventRef) { (gint) i, k };
            }
        }
      g_assert_cmpint (ref.lane, >=, 0);
      pane = g_object_ref_sink (sl_detail_pane_new ());
      sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
      sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
      text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
      g_test_message ("%s", text);
      if (m == 0)
        {
          const SlEvent *ev = &sl_trace_get_lane (trace, ref.lane)->events[ref.index];
          g_autofree char *dur = sl_format_duration (ev->end - ev->start);
          g_autofree char *kind = line_of (text, "Kind");
          g_autofree char *graph = line_of (text, "Graph id");
          g_autofree char *exec = line_of (text, "Graph exec id");
          g_autofree char *stream = line_of (text, "Stream");
          g_autofree char *shown = line_of (text, "Duration");
          g_autofree char *call = line_of (text, "API call");
          g_assert_nonnull (strstr (text, "CUDA Graph 1"));
          g_assert_cmpstr (kind, ==, "CUDA graph launch");
          g_assert_cmpstr (graph, ==, "1");
          g_assert_cmpstr (exec, ==, "101");
          g_assert_cmpstr (stream, ==, "7");
          g_assert_cmpstr (shown, ==, dur);
          g_assert_nonnull (call);
          g_assert_nonnull (strstr (call, "cudaGraphLaunch"));
          /* where it was made (CUDA_GRAPH_EVENTS): captured, then instantiated */
          g_autofree char *made = line_of (text, "Graph created");
          g_autofree char *inst = line_of (text, "Executable graph instantiated");
          g_assert_nonnull (made);
          g_assert_true (g_str_has_prefix (made, "by cudaStreamEndCapture"));
          g_assert_nonnull (strstr (made, " on python3 (tid "));
          g_assert_nonnull (inst);
          g_assert_true (g_str_has_prefix (inst, "by cudaGraphInstantiate"));
        }
      else
        {
          g_autofree char *node = line_of (text, "CUDA graph");
          g_assert_cmpstr (node, ==, "node 4294967299 of graph 1");
          /* the launch it is a node of (sl-detail-graph.c), as the model groups it */
          const SlLane *lane = sl_trace_get_lane (trace, ref.lane);
          const SlGraphGroup *g = sl_trace_find_graph_group (trace, ref.lane, ref.index);
          g_assert_nonnull (g);
          g_autofree char *gpu = sl_format_duration (g->end - g->start);
          g_autofree char *kind = g_strdup_printf ("%s", strstr (text, "Kind: CUDA graph launch "
                                                                       "(traced node by node)")
                                                           != NULL ? "yes" : "no");
          g_autofree char *time = line_of (text, "GPU time");
          g_autofree char *count = line_of (text, "Node count");
          g_autofree char *exec = line_of (text, "Graph exec id");
          g_autofree char *launched = line_of (text, "Launched by");
          g_autofree char *made = line_of (text, "Graph created");
          g_autofree char *node_made = line_of (text, "Node created");
          g_autofree char *cloned = line_of (text, "Node cloned");
          g_autofree char *first = line_of (text, "1");
          g_assert_cmpstr (kind, ==, "yes");
          g_assert_cmpstr (time, ==, gpu);
          g_assert_cmpstr (count, ==, "8");
          g_assert_cmpstr (exec, ==, "101");
          g_assert_nonnull (launched);
          g_assert_true (g_str_has_prefix (launched, "cudaGraphLaunch"));
          g_assert_nonnull (made);
          g_assert_true (g_str_has_prefix (made, "by cudaStreamEndCapture"));
          /* the node: made by a kernel launch during the capture, cloned when instantiated */
          g_assert_nonnull (node_made);
          g_assert_true (g_str_has_prefix (node_made, "by cudaLaunchKernel"));
          g_assert_nonnull (cloned);
          g_assert_true (g_str_has_prefix (cloned, "by cudaGraphInstantiate"));
          /* the nodes listed with their durations, the first one the group's first */
          g_autofree char *d0 = sl_format_duration (
            lane->events[sl_trace_get_graph_group_nodes (trace, g)[0]].end
            - lane->events[sl_trace_get_graph_group_nodes (trace, g)[0]].start);
          g_assert_nonnull (first);
          g_assert_true (g_str_has_suffix (first, d0));
          g_assert_nonnull (strstr (text, "[Go to cudaGraphLaunch"));
        }
      {
        GtkWidget *window = gtk_window_new ();
        g_autofree char *shot = g_strdup_printf ("detail-graph-%s", modes[m]);
        gtk_window_set_default_size (GTK_WINDOW (window), 520, 700);
        gtk_window_set_child (GTK_WINDOW (window), pane);
        gtk_window_present (GTK_WINDOW (window));
        sl_test_iterate_for (300);
        sl_test_screenshot (window, shot);
        gtk_window_set_child (GTK_WINDOW (window), NULL);
        gtk_window_destroy (GTK_WINDOW (window));
      }
      g_object_unref (pane);
    }
}

/* Issue 31: a kernel on a GPU with GPU metrics (sightline-gen --gpu-metrics) shows achieved
 * occupancy beside the theoretical one and a "GPU metrics" section, each metric its GPU's
 * time-weighted mean over the kernel's run, as the model computes it; a GPU without metrics
 * shows neither. */
static void
test_gpu_metrics (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "detail-metrics.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };
  g_autoptr (GError) error = NULL;

  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "5000", "--gpu-metrics", "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_metrics_get_n_series (trace), >, 0);

  /* the longest kernel (many samples), and the shortest (part of one) */
  SlEventRef longest = SL_EVENT_REF_NONE, shortest = SL_EVENT_REF_NONE;
  SlTime most = 0, least = G_MAXINT64;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_KERNELS && k < lane->n_events; k++)
        {
          SlTime d = lane->events[k].end - lane->events[k].start;
          if (d > most)
            {
              most = d;
              longest = (SlEventRef) { (gint) i, k };
            }
          if (d > 0 && d < least)
            {
              least = d;
              shortest = (SlEventRef) { (gint) i, k };
            }
        }
    }
  g_assert_cmpint (longest.lane, >=, 0);

  GtkWidget *pane = g_object_ref_sink (sl_detail_pane_new ());
  sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
  SlEventRef refs[] = { longest, shortest };
  for (guint r = 0; r < G_N_ELEMENTS (refs); r++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, refs[r].lane);
      const SlEvent *ev = &lane->events[refs[r].index];
      SlTime d = ev->end - ev->start;
      sl_detail_pane_set_event (SL_DETAIL_PANE (pane), refs[r]);
      g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
      g_test_message ("%s", text);

      /* achieved occupancy: warps in flight ÷ SMs Active, each the mean over the kernel */
      SlMetricStats warps, active;
      gint w = sl_metrics_find_series (trace, lane->gpu, SL_METRIC_WARPS_IN_FLIGHT);
      gint a = sl_metrics_find_series (trace, lane->gpu, SL_METRIC_SMS_ACTIVE);
      g_assert_true (w >= 0 && a >= 0);
      g_autofree char *achieved = line_of (text, "Achieved occupancy");
      g_assert_nonnull (achieved);
      if (sl_metrics_stats (trace, (guint) w, ev->start, ev->end, &warps)
          && sl_metrics_stats (trace, (guint) a, ev->start, ev->end, &active) && active.mean > 0)
        {
          g_autofree char *want = g_strdup_printf (
            "%.1f %% while SMs are active (%.1f %% of the time)",
            MIN (warps.mean / active.mean, 1.0) * 100, active.mean);
          g_assert_true (g_str_has_prefix (achieved, want));
          g_autofree char *ratio = g_strdup_printf ("(Compute Warps in Flight %.1f %% ÷ SMs Active "
                                                    "%.1f %%)", warps.mean, active.mean);
          g_assert_nonnull (strstr (achieved, ratio));
        }
      else
        g_assert_true (g_str_has_prefix (achieved, "unknown"));
      /* beside the theoretical occupancy, before the GPU metrics and the launch configuration */
      g_assert_true (strstr (text, "Achieved occupancy:") > strstr (text, "Occupancy:"));
      g_assert_true (strstr (text, "GPU metrics") > strstr (text, "Achieved occupancy:"));
      g_assert_true (strstr (text, "GPU metrics") < strstr (text, "Launch configuration"));

      /* each metric of its GPU: the mean over [start, end), with its cover when partial */
      guint rows = 0;
      for (guint i = 0; i < sl_metrics_get_n_series (trace); i++)
        {
          SlMetricStats st;
          if (sl_metrics_get_series (trace, i)->gpu != lane->gpu)
            continue;
          g_autofree char *got = line_of (text, sl_metrics_get_name (trace, i));
          if (!sl_metrics_stats (trace, i, ev->start, ev->end, &st))
            {
              g_assert_null (got);
              continue;
            }
          g_autofree char *want = st.covered < d
            ? g_strdup_printf ("%.1f (over %.0f %% of the kernel)", st.mean,
                               100.0 * (double) st.covered / (double) d)
            : g_strdup_printf ("%.1f", st.mean);
          g_assert_cmpstr (got, ==, want);
          rows++;
        }
      g_assert_cmpuint (rows, >=, 18);
      g_autofree char *samples = line_of (text, "Samples");
      g_assert_nonnull (samples);
      /* a kernel shorter than two sampling periods is told so */
      g_assert_cmpint (strstr (samples, "periods longer than the kernel") != NULL, ==,
                       d < 2 * sl_metrics_get_series (trace, (guint) a)->period);
      if (r == 0)
        {
          GtkWidget *window = gtk_window_new ();
          gtk_window_set_default_size (GTK_WINDOW (window), 560, 1300);
          gtk_window_set_child (GTK_WINDOW (window), pane);
          gtk_window_present (GTK_WINDOW (window));
          sl_test_iterate_for (300);
          sl_test_screenshot (window, "detail-kernel-metrics");
          gtk_window_set_child (GTK_WINDOW (window), NULL);
          gtk_window_destroy (GTK_WINDOW (window));
        }
    }
  g_object_unref (pane);

  /* damaged: values past any range, samples at ±2^61, kernels as long: every kernel's pane
   * still made (UBSan runs this too) */
  g_autofree char *bad = g_build_filename (sl_test_tmpdir (), "detail-metrics-bad.sqlite", NULL);
  {
    g_autofree char *bytes = NULL;
    gsize len = 0;
    g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));
    g_assert_true (g_file_set_contents (bad, bytes, len, NULL));
  }
  sl_test_exec_sql (bad, "UPDATE GPU_METRICS SET value = -9e18 WHERE rowid % 7 = 0;"
                         "UPDATE GPU_METRICS SET value = 9e18 WHERE rowid % 11 = 0;"
                         "UPDATE GPU_METRICS SET timestamp = 2305843009213693952 "
                         "  WHERE rowid % 13 = 0;"
                         "UPDATE GPU_METRICS SET timestamp = -2305843009213693952 "
                         "  WHERE rowid % 17 = 0;"
                         "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 2305843009213693952 "
                         "  WHERE rowid % 5 = 0;"
                         "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -2305843009213693952 "
                         "  WHERE rowid % 3 = 0;");
  {
    g_autoptr (SlTrace) damaged = sl_trace_load (bad, SL_LOAD_ALL, NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    GtkWidget *bad_pane = g_object_ref_sink (sl_detail_pane_new ());
    guint shown = 0;
    sl_detail_pane_set_trace (SL_DETAIL_PANE (bad_pane), damaged);
    for (guint i = 0; i < sl_trace_get_n_lanes (damaged); i++)
      {
        const SlLane *lane = sl_trace_get_lane (damaged, i);
        for (gsize k = 0; lane->kind == SL_LANE_KERNELS && k < lane->n_events; k += 3)
          {
            sl_detail_pane_set_event (SL_DETAIL_PANE (bad_pane), (SlEventRef) { (gint) i, k });
            g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (bad_pane));
            g_assert_true (g_utf8_validate (text, -1, NULL));
            shown++;
          }
      }
    g_assert_cmpuint (shown, >, 100);
    g_object_unref (bad_pane);
  }

  /* a trace without GPU metrics: neither */
  g_autofree char *plain = g_build_filename (sl_test_tmpdir (), "detail-no-metrics.sqlite", NULL);
  Plant *p = plant_new (plain);
  gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", PLANT_MS,
                           PLANT_MS + 5 * PLANT_US);
  plant_kernel (p, "k_plain", &plant_config_full, PLANT_MS + 10 * PLANT_US, 3 * PLANT_MS, corr);
  plant_finish (p);
  g_autoptr (SlTrace) none = sl_trace_load (plain, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  SlEventRef ref;
  g_assert_true (find_event (none, SL_LANE_KERNELS, "k_plain", &ref));
  GtkWidget *other = g_object_ref_sink (sl_detail_pane_new ());
  sl_detail_pane_set_trace (SL_DETAIL_PANE (other), none);
  sl_detail_pane_set_event (SL_DETAIL_PANE (other), ref);
  g_autofree char *none_text = _sl_detail_pane_get_text (SL_DETAIL_PANE (other));
  g_assert_null (strstr (none_text, "Achieved occupancy"));
  g_assert_null (strstr (none_text, "GPU metrics"));
  g_object_unref (other);
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
  g_test_add_func ("/ui/detail/osrt-files", test_osrt_files);
  g_test_add_func ("/ui/detail/cuda-backtrace", test_cuda_backtrace);
  g_test_add_func ("/ui/detail/process-origin", test_process_origin);
  g_test_add_func ("/ui/detail/waves", test_waves);
  g_test_add_func ("/ui/detail/gpu-metrics", test_gpu_metrics);
  g_test_add_func ("/ui/detail/sync-call", test_sync_call);
  g_test_add_func ("/ui/detail/sync-real", test_sync_real);
  g_test_add_func ("/ui/detail/display-names", test_display_names);
  g_test_add_func ("/ui/detail/graphs", test_graphs);
  g_test_add_func ("/ui/detail/event-waits", test_event_waits);
  return g_test_run ();
}
