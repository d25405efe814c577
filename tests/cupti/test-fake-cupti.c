/* test-fake-cupti.c: the CUDA side of `sightline record` end to end without a GPU: the real
 * client, daemon and injection library record tests/targets/sl-fake-cuda-target, whose CUDA is
 * libsl-fake-cupti.so (tests/cupti/fake-cupti.c, a test double of libcupti that SIGHTLINE_CUPTI
 * names).  The written trace is checked with SQL (rows per table, correlation ids tying each call
 * to its GPU work, names, streams, events, graphs, memory allocations and unified memory's
 * migrations and faults, GPU metrics) and read back by `sightline info`, `stats`, `analyze` and
 * `memory`, and by the model. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sl-test-util.h"
#include "sl-trace.h"

static const char *runtime_dir;

/* Runs `sightline record -o PATH EXTRA… -- the fake program`; asserts it succeeded. */
static char *
record (const char *name,
        const char *extra)
{
  char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
  g_auto (SlTestRun) run = { 0 };

  if (extra != NULL)
    sl_test_run (&run, SL_SIGHTLINE_PATH, "record", "-o", path, "-s", "none", "--sched", "off",
                 "--cuda-graph-trace", extra, "--", SL_FAKE_TARGET_PATH, NULL);
  else
    sl_test_run (&run, SL_SIGHTLINE_PATH, "record", "-o", path, "-s", "none", "--sched", "off",
                 "--", SL_FAKE_TARGET_PATH, NULL);
  g_test_message ("record stdout: %s\nrecord stderr: %s", run.out, run.err);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "fake-cuda: streams 13 14, event 1, graph 1 exec 1"));
  g_assert_null (strstr (run.err, "CUDA is not traced"));
  g_assert_nonnull (strstr (run.err, "events written to"));
  return path;
}

static gint64
count (sqlite3    *db,
       const char *sql)
{
  return sl_test_sql_int (db, sql);
}

static gboolean
has_table (sqlite3    *db,
           const char *table)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", table);
  return sl_test_sql_int (db, sql) > 0;
}

/* Rows of every event table: what the summary's "N events written" counts. */
static gint64
event_rows (sqlite3 *db)
{
  static const char *const tables[] = {
    "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "CUPTI_ACTIVITY_KIND_CUDA_EVENT", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "NVTX_EVENTS",
    "OSRT_API", "COMPOSITE_EVENTS", "SCHED_EVENTS",
  };
  gint64 n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    if (has_table (db, tables[i]))
      {
        g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM %s", tables[i]);
        n += sl_test_sql_int (db, sql);
      }
  return n;
}

/* The API call (name) whose correlationId `table`'s rows carry, for every row: each GPU row has
 * exactly one call, in the same process, that started before the work did. */
static void
assert_correlated (sqlite3    *db,
                   const char *table)
{
  g_autofree char *orphans = g_strdup_printf (
      "SELECT count(*) FROM %s g WHERE (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
      "WHERE r.correlationId = g.correlationId AND (r.globalTid >> 24) = (g.globalPid >> 24) "
      "AND r.start <= g.start) != 1",
      table);
  g_assert_cmpint (count (db, orphans), ==, 0);
}

/* How many rows of `table` were launched by the API function `api` (its name in StringIds). */
static gint64
launched_by (sqlite3    *db,
             const char *table,
             const char *api)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM %s g JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
      "ON r.correlationId = g.correlationId JOIN StringIds s ON s.id = r.nameId "
      "WHERE s.value = '%s'",
      table, api);
  return count (db, sql);
}

static gint64
kernels_named (sqlite3    *db,
               const char *short_name,
               guint       stream)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
      "WHERE s.value = '%s' AND k.streamId = %u",
      short_name, stream);
  return count (db, sql);
}

/* What both graph modes write alike. */
static void
check_common (sqlite3 *db)
{
  /* 28 runtime calls and the driver's cuLaunchKernel, all on the program's main thread */
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 0"),
                   ==, 28);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1"),
                   ==, 1);
  g_assert_cmpint (count (db, "SELECT count(DISTINCT globalTid) FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
                   ==, 1);
  g_assert_cmpint (count (db, "SELECT count(DISTINCT correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
                   ==, 29);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s "
                              "ON s.id = r.nameId WHERE s.value = 'cudaLaunchKernel_v7000'"),
                   ==, 8);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s "
                              "ON s.id = r.nameId WHERE s.value = 'cuLaunchKernel'"),
                   ==, 1);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE end < start "
                              "OR returnValue != 0"),
                   ==, 0);

  /* the device, its context and three streams */
  g_assert_cmpint (count (db, "SELECT count(*) FROM TARGET_INFO_GPU WHERE name = 'Sightline Fake GPU' "
                              "AND smCount = 132 AND computeMajor = 9"),
                   ==, 1);
  g_assert_cmpint (count (db, "SELECT count(*) FROM TARGET_INFO_CUDA_CONTEXT_INFO "
                              "WHERE contextId = 1 AND nullStreamId = 7"),
                   ==, 1);
  g_assert_cmpint (count (db, "SELECT count(*) FROM TARGET_INFO_CUDA_STREAM "
                              "WHERE streamId IN (7, 13, 14)"),
                   ==, 3);

  /* kernels outside graphs: names demangled, streams, the launching call */
  g_assert_cmpint (kernels_named (db, "scale", 13), ==, 3);
  g_assert_cmpint (kernels_named (db, "add", 14), ==, 1);
  g_assert_cmpint (kernels_named (db, "driver", 14), ==, 1);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
                              "ON s.id = k.demangledName WHERE s.value = 'scale(int, float *)' "
                              "AND k.gridX = 256 AND k.blockX = 128"),
                   ==, 3);
  assert_correlated (db, "CUPTI_ACTIVITY_KIND_KERNEL");
  g_assert_cmpint (launched_by (db, "CUPTI_ACTIVITY_KIND_KERNEL", "cuLaunchKernel"), ==, 1);

  /* copies and the set */
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE streamId = 7 "
                              "AND bytes = 1048576 AND copyKind IN (1, 2)"),
                   ==, 2);
  g_assert_cmpint (launched_by (db, "CUPTI_ACTIVITY_KIND_MEMCPY", "cudaMemcpy_v3020"), ==, 2);
  assert_correlated (db, "CUPTI_ACTIVITY_KIND_MEMCPY");
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE streamId = 13"),
                   ==, 1);
  g_assert_cmpint (launched_by (db, "CUPTI_ACTIVITY_KIND_MEMSET", "cudaMemsetAsync_v3020"), ==, 1);
  /* a stream runs its work in order: the set, then the three kernels */
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k, "
                              "CUPTI_ACTIVITY_KIND_MEMSET m WHERE k.streamId = 13 "
                              "AND k.start < m.end"),
                   ==, 0);

  /* synchronization: each row names its call, its stream or its event as nsys writes them */
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), ==, 4);
  assert_correlated (db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION "
                              "WHERE syncType = 2 AND streamId = 14 AND eventId = 1 "
                              "AND eventSyncId = 1"),
                   ==, 1); /* s2 waits for the event's first record */
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION "
                              "WHERE syncType = 1 AND streamId = 4294967295 AND eventId = 1 "
                              "AND eventSyncId = 2"),
                   ==, 1); /* the host waits for its second */
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION "
                              "WHERE syncType = 3 AND streamId = 13 AND eventId = 4294967295 "
                              "AND eventSyncId = 4294967295"),
                   ==, 1);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION "
                              "WHERE syncType = 4 AND streamId = 4294967295 "
                              "AND eventId = 4294967295"),
                   ==, 1);
  /* a stream synchronization ends after the stream's last kernel */
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION s "
                              "WHERE s.syncType = 3 AND s.end >= (SELECT max(end) FROM "
                              "CUPTI_ACTIVITY_KIND_KERNEL WHERE streamId = 13)"),
                   ==, 1);

  /* CUDA events: both records of event 1, each tied to its cudaEventRecord call, linked to the
   * synchronizations by eventSyncId; columns as nsys 2025.5 writes them */
  g_assert_true (has_table (db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT"));
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT"), ==, 2);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT "
                              "WHERE eventId = 1 AND deviceId = 0 AND contextId = 1 "
                              "AND timestamp = 0 AND globalPid IS NOT NULL"),
                   ==, 2);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT "
                              "WHERE (streamId = 13 AND eventSyncId = 1) "
                              "OR (streamId = 14 AND eventSyncId = 2)"),
                   ==, 2);
  g_assert_cmpint (launched_by (db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT", "cudaEventRecord_v3020"), ==,
                   2);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION s "
                              "JOIN CUPTI_ACTIVITY_KIND_CUDA_EVENT e "
                              "ON e.eventSyncId = s.eventSyncId AND e.eventId = s.eventId"),
                   ==, 2);
}

/* The columns of `table` in order, comma-separated. */
static char *
columns (sqlite3    *db,
         const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT group_concat(name, ',') FROM "
                                          "(SELECT name FROM pragma_table_info('%s') ORDER BY cid)",
                                          table);
  return sl_test_sql_text (db, sql);
}

/* `sightline info PATH --format json` parsed; asserted to succeed. */
static JsonNode *
info_json (const char *path)
{
  g_auto (SlTestRun) run = { 0 };
  g_autoptr (GError) error = NULL;

  sl_test_run (&run, SL_SIGHTLINE_PATH, "info", path, "--format", "json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  JsonNode *node = json_from_string (run.out, &error);
  g_assert_no_error (error);
  return node;
}

/* The number `info --format json` gives for `table` (rows, loaded or counted), -1 if absent. */
static gint64
info_rows (JsonNode   *root,
           const char *table)
{
  JsonObject *o = json_node_get_object (root);
  JsonArray *tables = json_object_has_member (o, "tables") ? json_object_get_array_member (o, "tables")
                                                          : NULL;

  for (guint i = 0; tables != NULL && i < json_array_get_length (tables); i++)
    {
      JsonObject *t = json_array_get_object_element (tables, i);
      if (g_strcmp0 (json_object_get_string_member_with_default (t, "name", ""), table) == 0)
        return json_object_get_int_member_with_default (t, "rows", -1);
    }
  return -1;
}

/* `sightline stats` and `analyze` read the recording and see its kernels. */
static void
check_commands (const char *path)
{
  g_auto (SlTestRun) stats = { 0 };
  g_auto (SlTestRun) analyze = { 0 };

  sl_test_run (&stats, SL_SIGHTLINE_PATH, "stats", path, NULL);
  g_test_message ("stats: %s%s", stats.out, stats.err);
  g_assert_cmpint (stats.status, ==, 0);
  g_assert_nonnull (strstr (stats.out, "scale"));
  g_assert_nonnull (strstr (stats.out, "cudaLaunchKernel"));
  g_assert_nonnull (strstr (stats.out, "cudaEventSynchronize"));
  sl_test_run (&analyze, SL_SIGHTLINE_PATH, "analyze", path, "--format", "json", NULL);
  g_test_message ("analyze: %s%s", analyze.out, analyze.err);
  g_assert_cmpint (analyze.status, ==, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = json_from_string (analyze.out, &error);
  g_assert_no_error (error);
}

static void
test_graph_mode (void)
{
  g_autofree char *path = record ("graph.sqlite", NULL); /* graph: the default, as nsys's */
  sqlite3 *db = sl_test_open_db (path);

  check_common (db);
  g_autofree char *mode = sl_test_sql_text (
      db, "SELECT value FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE'");
  g_assert_cmpstr (mode, ==, "Graph");

  /* three launches of the graph, one row each, no kernel row for its nodes */
  g_assert_true (has_table (db, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"));
  g_autofree char *graph_columns = columns (db, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE");
  g_assert_cmpstr (graph_columns, ==,
                   "start,end,deviceId,contextId,greenContextId,streamId,correlationId,globalPid,"
                   "graphId,graphExecId");
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE WHERE "
                              "streamId = 13 AND graphId = 1 AND graphExecId = 1 AND deviceId = 0 "
                              "AND contextId = 1 AND end - start = 45000"),
                   ==, 3);
  assert_correlated (db, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE");
  g_assert_cmpint (launched_by (db, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "cudaGraphLaunch_v10000"),
                   ==, 3);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), ==, 5);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                              "WHERE graphId IS NOT NULL OR graphNodeId IS NOT NULL"),
                   ==, 0);
  g_autofree char *event_columns = columns (db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT");
  g_assert_cmpstr (event_columns, ==,
                   "timestamp,deviceId,contextId,greenContextId,streamId,correlationId,globalPid,"
                   "eventId,eventSyncId");

  /* the summary counts every row written */
  gint64 rows = event_rows (db);
  sqlite3_close (db);

  /* Sightline's own reader: the info inventory, the graph lane, the commands */
  g_autoptr (JsonNode) info = info_json (path);
  g_assert_cmpint (info_rows (info, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"), ==, 3);
  g_assert_cmpint (info_rows (info, "CUPTI_ACTIVITY_KIND_KERNEL"), ==, 5);
  g_assert_cmpint (info_rows (info, "CUPTI_ACTIVITY_KIND_RUNTIME"), ==, 29);
  g_assert_cmpint (info_rows (info, "CUPTI_ACTIVITY_KIND_CUDA_EVENT"), ==, 2);
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  guint graphs = 0, kernels = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind == SL_LANE_GRAPHS)
        graphs += lane->n_events;
      else if (lane->kind == SL_LANE_KERNELS)
        kernels += lane->n_events;
    }
  g_assert_cmpuint (graphs, ==, 3);
  g_assert_cmpuint (kernels, ==, 5);
  check_commands (path);
  g_assert_cmpint (rows, >, 0);
}

static void
test_node_mode (void)
{
  g_autofree char *path = record ("node.sqlite", "node");
  sqlite3 *db = sl_test_open_db (path);

  check_common (db);
  g_autofree char *mode = sl_test_sql_text (
      db, "SELECT value FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE'");
  g_assert_cmpstr (mode, ==, "Node");

  /* no graph rows: each launch's four kernels, with the graph's and their nodes' ids */
  g_assert_false (has_table (db, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"));
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), ==, 17);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                              "WHERE graphId = 1 AND graphNodeId IS NOT NULL AND streamId = 13"),
                   ==, 12);
  g_assert_cmpint (count (db, "SELECT count(DISTINCT graphNodeId) FROM CUPTI_ACTIVITY_KIND_KERNEL"),
                   ==, 4);
  g_assert_cmpint (kernels_named (db, "step", 13), ==, 9);
  g_assert_cmpint (kernels_named (db, "reduce", 13), ==, 3);
  g_assert_cmpint (launched_by (db, "CUPTI_ACTIVITY_KIND_KERNEL", "cudaGraphLaunch_v10000"), ==, 12);
  sqlite3_close (db);

  g_autoptr (JsonNode) info = info_json (path);
  g_assert_cmpint (info_rows (info, "CUPTI_ACTIVITY_KIND_KERNEL"), ==, 17);
  check_commands (path);
}

/* `sightline record -o PATH OPTS… -- PROGRAM TARGET_ARGS…` (both NULL-terminated) into `run`;
 * the path is returned. */
static char *
run_record_program (SlTestRun         *run,
                    const char        *name,
                    const char *const *opts,
                    const char        *program,
                    const char *const *target_args)
{
  char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  int wait_status = 0;

  g_ptr_array_add (argv, (char *) SL_SIGHTLINE_PATH);
  g_ptr_array_add (argv, (char *) "record");
  g_ptr_array_add (argv, (char *) "-o");
  g_ptr_array_add (argv, path);
  g_ptr_array_add (argv, (char *) "--sched");
  g_ptr_array_add (argv, (char *) "off");
  for (; opts != NULL && *opts != NULL; opts++)
    g_ptr_array_add (argv, (char *) *opts);
  g_ptr_array_add (argv, (char *) "--");
  g_ptr_array_add (argv, (char *) program);
  for (; target_args != NULL && *target_args != NULL; target_args++)
    g_ptr_array_add (argv, (char *) *target_args);
  g_ptr_array_add (argv, NULL);
  sl_test_run_clear (run);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &run->out, &run->err, &wait_status, &error));
  g_assert_no_error (error);
  run->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  g_test_message ("record stdout: %s\nrecord stderr: %s", run->out, run->err);
  return path;
}

/* The same with the fake C program. */
static char *
run_record (SlTestRun         *run,
            const char        *name,
            const char *const *opts,
            const char *const *target_args)
{
  return run_record_program (run, name, opts, SL_FAKE_TARGET_PATH, target_args);
}

/* The calls (name without nsys's _vNNNN, one per row) that have a backtrace, sorted, joined by
 * ','. */
static char *
calls_with_backtraces (sqlite3 *db)
{
  return sl_test_sql_text (
      db, "SELECT group_concat(n, ',') FROM (SELECT substr(s.value, 1, instr(s.value || '_v', "
          "'_v') - 1) AS n FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
          "WHERE r.callchainId IS NOT NULL ORDER BY n)");
}

/* The frames (symbols, leaf first, joined by ';') of the backtrace of the call named `api`. */
static char *
backtrace_of (sqlite3    *db,
              const char *api)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT group_concat(sym, ';') FROM (SELECT s.value AS sym FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
      "JOIN StringIds n ON n.id = r.nameId JOIN CUDA_CALLCHAINS c ON c.id = r.callchainId "
      "JOIN StringIds s ON s.id = c.symbol WHERE n.value = '%s' ORDER BY c.stackDepth)",
      api);
  return sl_test_sql_text (db, sql);
}

/* --cudabacktrace: the synchronizing calls' backtraces (all of them with :0) in CUDA_CALLCHAINS,
 * named by their rows' callchainId, through the fake target's own functions; `samples --source
 * cuda-api` lists them.  `all` gives every call one; `none` makes no table; the default
 * (sync:250000) names only synchronizing calls. */
static void
test_backtraces (void)
{
  static const char *const sync0[] = { "-s", "none", "--cudabacktrace", "sync:0", NULL };
  static const char *const all[] = { "-s", "none", "--cudabacktrace=all:0", NULL };
  static const char *const none[] = { "-s", "none", "--cudabacktrace", "none", NULL };
  static const char *const dflt[] = { "-s", "none", NULL };
  g_auto (SlTestRun) run = { 0 };

  g_autofree char *path = run_record (&run, "bt-sync.sqlite", sync0, NULL);
  g_assert_cmpint (run.status, ==, 0);
  sqlite3 *db = sl_test_open_db (path);
  check_common (db);
  g_assert_true (has_table (db, "CUDA_CALLCHAINS"));
  g_autofree char *calls = calls_with_backtraces (db);
  g_assert_cmpstr (calls, ==, "cudaDeviceSynchronize,cudaEventSynchronize,cudaStreamSynchronize");
  /* one chain per call, each chain's rows from depth 0 without a gap */
  g_assert_cmpint (count (db, "SELECT count(DISTINCT callchainId) FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
                   ==, 3);
  g_assert_cmpint (count (db, "SELECT count(*) FROM (SELECT id FROM CUDA_CALLCHAINS GROUP BY id "
                              "HAVING min(stackDepth) != 0 OR max(stackDepth) + 1 != count(*))"),
                   ==, 0);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUDA_CALLCHAINS WHERE unresolved != 0 AND "
                              "stackDepth < 5"),
                   ==, 0);
  g_autofree char *stream = backtrace_of (db, "cudaStreamSynchronize_v3020");
  g_autofree char *device = backtrace_of (db, "cudaDeviceSynchronize_v3020");
  g_test_message ("cudaStreamSynchronize: %s", stream);
  g_assert_nonnull (stream);
  g_assert_nonnull (strstr (stream, "fake_cudaStreamSynchronize;wait_for_stream;main"));
  g_assert_nonnull (strstr (device, "fake_cudaDeviceSynchronize;wait_for_device;main"));
  g_autofree char *meta = sl_test_sql_text (
      db, "SELECT value FROM META_DATA_CAPTURE WHERE name = 'CUDA_BACKTRACE'");
  g_assert_cmpstr (meta, ==, "sync:0");
  sqlite3_close (db);

  g_auto (SlTestRun) samples = { 0 };
  sl_test_run (&samples, SL_SIGHTLINE_PATH, "samples", path, "--source", "cuda-api", NULL);
  g_test_message ("samples: %s%s", samples.out, samples.err);
  g_assert_cmpint (samples.status, ==, 0);
  g_assert_nonnull (strstr (samples.out, "main;wait_for_stream;fake_cudaStreamSynchronize"));
  g_assert_nonnull (strstr (samples.out, "main;wait_for_device;fake_cudaDeviceSynchronize"));

  g_autofree char *path_all = run_record (&run, "bt-all.sqlite", all, NULL);
  g_assert_cmpint (run.status, ==, 0);
  db = sl_test_open_db (path_all);
  g_assert_cmpint (count (db, "SELECT count(DISTINCT callchainId) FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
                   ==, 29);
  g_autofree char *launch = backtrace_of (db, "cuLaunchKernel");
  g_assert_nonnull (strstr (launch, "fake_cuLaunchKernel;main"));
  sqlite3_close (db);

  g_autofree char *path_none = run_record (&run, "bt-none.sqlite", none, NULL);
  g_assert_cmpint (run.status, ==, 0);
  db = sl_test_open_db (path_none);
  g_assert_false (has_table (db, "CUDA_CALLCHAINS"));
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                              "WHERE callchainId IS NOT NULL"),
                   ==, 0);
  sqlite3_close (db);

  g_autofree char *path_default = run_record (&run, "bt-default.sqlite", dflt, NULL);
  g_assert_cmpint (run.status, ==, 0);
  db = sl_test_open_db (path_default);
  g_autofree char *dmeta = sl_test_sql_text (
      db, "SELECT value FROM META_DATA_CAPTURE WHERE name = 'CUDA_BACKTRACE'");
  g_assert_cmpstr (dmeta, ==, "sync:250000");
  /* which waits took 250 µs depends on the machine; no other call has one */
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s "
                              "ON s.id = r.nameId WHERE r.callchainId IS NOT NULL "
                              "AND (s.value NOT LIKE '%Synchronize%' OR r.end - r.start < 250000)"),
                   ==, 0);
  sqlite3_close (db);

  /* a bad value is refused before anything runs */
  static const char *const bad[] = { "--cudabacktrace", "syncs", NULL };
  g_autofree char *path_bad = run_record (&run, "bt-bad.sqlite", bad, NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "--cudabacktrace"));
  g_assert_false (g_file_test (path_bad, G_FILE_TEST_EXISTS));
}

/* A Python caller (tests/targets/sl-fake-cuda.py, through ctypes): the synchronization's
 * backtrace has the Python function that made it, at its line, between the native frames of the
 * fake CUDA and the interpreter's, as CPU samples have them. */
static void
test_backtraces_python (void)
{
  static const char *const opts[] = { "-s", "none", "--cudabacktrace", "sync:0", NULL };
  const char *const args[] = { SL_FAKE_PY_TARGET, SL_FAKE_CUPTI_PATH, NULL };
  g_auto (SlTestRun) run = { 0 };

  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no /usr/bin/python3");
      return;
    }
  g_autofree char *path = run_record_program (&run, "bt-python.sqlite", opts, "/usr/bin/python3",
                                              args);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "fake-cuda.py: done"));
  sqlite3 *db = sl_test_open_db (path);
  g_autofree char *stream = backtrace_of (db, "cudaStreamSynchronize_v3020");
  g_test_message ("cudaStreamSynchronize from Python: %s", stream);
  g_assert_nonnull (stream);
  g_assert_nonnull (strstr (stream, "fake_cudaStreamSynchronize;"));
  g_assert_nonnull (strstr (stream, ";wait_in_python;main;<module>"));
  /* the Python frame's module is "file.py:line", the line of the call */
  g_autofree char *where = sl_test_sql_text (
      db, "SELECT m.value FROM CUDA_CALLCHAINS c JOIN StringIds s ON s.id = c.symbol "
          "JOIN StringIds m ON m.id = c.module WHERE s.value = 'wait_in_python'");
  g_autofree char *script = NULL;
  g_assert_true (g_file_get_contents (SL_FAKE_PY_TARGET, &script, NULL, NULL));
  const char *mark = strstr (script, "# LINE:wait");
  g_assert_nonnull (mark);
  int line = 1;
  for (const char *c = script; c < mark; c++)
    line += *c == '\n';
  g_autofree char *tail = g_strdup_printf ("sl-fake-cuda.py:%d", line);
  g_assert_nonnull (where);
  g_assert_true (g_str_has_suffix (where, tail));
  sqlite3_close (db);
}

/* The kernels of a recording of `profiler` mode, by short name in time order, joined by ','. */
static char *
kernel_names (sqlite3 *db)
{
  return sl_test_sql_text (db, "SELECT group_concat(n, ',') FROM (SELECT s.value AS n FROM "
                               "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName "
                               "ORDER BY k.start)");
}

/* --capture-range=cudaProfilerApi: only what happened between cudaProfilerStart and Stop is in
 * the trace (calls, kernels, synchronizations, OS runtime calls, backtraces); stop ends the
 * collection with the first range, repeat records both, stop-shutdown (the default) ends the
 * program at the first stop. */
static void
test_capture_profiler (void)
{
  static const char *const target[] = { "profiler", NULL };
  static const char *const stop[] = { "-s", "none", "--capture-range=cudaProfilerApi",
                                      "--capture-range-end=stop", "--cudabacktrace", "sync:0",
                                      "--osrt-threshold", "1", NULL };
  static const char *const repeat[] = { "-s", "none", "--capture-range", "cudaProfilerApi",
                                        "--capture-range-end", "repeat", NULL };
  static const char *const repeat1[] = { "-s", "none", "--capture-range", "cudaProfilerApi",
                                         "--capture-range-end", "repeat:1", NULL };
  static const char *const shutdown[] = { "-s", "none", "--capture-range", "cudaProfilerApi",
                                          NULL };
  static const char *const nothing[] = { "-s", "none", NULL };
  g_auto (SlTestRun) run = { 0 };

  g_autofree char *path = run_record (&run, "cap-stop.sqlite", stop, target);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "fake-cuda: profiler done"));
  sqlite3 *db = sl_test_open_db (path);
  g_autofree char *k = kernel_names (db);
  g_assert_cmpstr (k, ==, "first");
  /* the calls between the two: the launch, the wait and cudaProfilerStop (made inside the range,
   * as nsys shows it), not cudaProfilerStart (made before it) */
  g_autofree char *calls = sl_test_sql_text (
      db, "SELECT group_concat(s.value, ',') FROM (SELECT nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME "
          "ORDER BY start) r JOIN StringIds s ON s.id = r.nameId");
  g_assert_cmpstr (calls, ==,
                   "cudaLaunchKernel_v7000,cudaStreamSynchronize_v3020,cudaProfilerStop_v4000");
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), ==, 1);
  g_autofree char *bt = calls_with_backtraces (db);
  g_assert_cmpstr (bt, ==, "cudaStreamSynchronize");
  /* OS runtime calls (the wait's nanosleep) only inside the range */
  g_assert_cmpint (count (db, "SELECT count(*) FROM OSRT_API o WHERE o.start < (SELECT min(start) "
                              "FROM CUPTI_ACTIVITY_KIND_RUNTIME) OR o.start > (SELECT max(end) "
                              "FROM CUPTI_ACTIVITY_KIND_RUNTIME)"),
                   ==, 0);
  g_autofree char *meta = sl_test_sql_text (
      db, "SELECT value FROM META_DATA_CAPTURE WHERE name = 'CAPTURE_RANGE'");
  g_assert_cmpstr (meta, ==, "cudaProfilerApi");
  sqlite3_close (db);

  g_autofree char *path_repeat = run_record (&run, "cap-repeat.sqlite", repeat, target);
  g_assert_cmpint (run.status, ==, 0);
  db = sl_test_open_db (path_repeat);
  g_autofree char *k2 = kernel_names (db);
  g_assert_cmpstr (k2, ==, "first,second");
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), ==, 6);
  sqlite3_close (db);

  g_autofree char *path_repeat1 = run_record (&run, "cap-repeat1.sqlite", repeat1, target);
  g_assert_cmpint (run.status, ==, 0);
  db = sl_test_open_db (path_repeat1);
  g_autofree char *k3 = kernel_names (db);
  g_assert_cmpstr (k3, ==, "first");
  sqlite3_close (db);

  /* stop-shutdown: the program is ended at the first stop (SIGTERM), what was captured kept */
  g_autofree char *path_shutdown = run_record (&run, "cap-shutdown.sqlite", shutdown, target);
  g_assert_cmpint (run.status, !=, 0);
  g_assert_null (strstr (run.out, "profiler done"));
  db = sl_test_open_db (path_shutdown);
  g_autofree char *k4 = kernel_names (db);
  g_assert_cmpstr (k4, ==, "first");
  sqlite3_close (db);

  /* without a capture range, everything */
  g_autofree char *path_all = run_record (&run, "cap-none.sqlite", nothing, target);
  g_assert_cmpint (run.status, ==, 0);
  db = sl_test_open_db (path_all);
  g_autofree char *k5 = kernel_names (db);
  g_assert_cmpstr (k5, ==, "outside,first,outside,second,outside");
  sqlite3_close (db);
}

/* The graph mode the trace says it was recorded in. */
static char *
graph_mode_of (sqlite3 *db)
{
  return sl_test_sql_text (db, "SELECT value FROM META_DATA_CAPTURE "
                               "WHERE name = 'PROCESS_0:CUDA_GRAPH_TRACE_OPTIONS:MODE'");
}

/* DIAGNOSTIC_EVENT rows at `severity` whose text has `part`, from the recorded process. */
static gint64
diagnostics_with (sqlite3    *db,
                  int         severity,
                  const char *part)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM DIAGNOSTIC_EVENT WHERE severity = %d AND instr(text, '%s') > 0 "
      "AND source = 1 AND timestamp > 0",
      severity, part);

  g_assert_true (has_table (db, "DIAGNOSTIC_EVENT"));
  return count (db, sql);
}

/* An older CUPTI at run time (CUPTI API version 17: CUDA 11.6) fills its buffers with older,
 * shorter records: kernels without clusters and localMemoryTotal_v2 (CUpti_ActivityKernel7),
 * synchronizations and CUDA events without the 12.8 fields (CUpti_ActivitySynchronization,
 * CUpti_ActivityCudaEvent).  The fields they lack are written as nsys writes an absent value
 * (NULL), never read from the next record; the rest as always. */
static void
test_old_cupti (void)
{
  static const char *const opts[] = { "-s", "none", "--env", "FAKE_CUPTI_VERSION=17", NULL };
  static const char *const newest[] = { "-s", "none", NULL };
  g_auto (SlTestRun) run = { 0 };
  g_autofree char *path = run_record (&run, "old-cupti.sqlite", opts, NULL);

  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "fake-cuda: streams 13 14, event 1, graph 1 exec 1"));
  g_assert_null (strstr (run.err, "failed"));
  sqlite3 *db = sl_test_open_db (path);
  /* check_common()'s rows, less what ties a synchronization to its event record */
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), ==, 29);
  assert_correlated (db, "CUPTI_ACTIVITY_KIND_KERNEL");
  assert_correlated (db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"), ==, 2);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), ==, 5);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE clusterX "
                              "IS NULL AND clusterY IS NULL AND clusterZ IS NULL AND "
                              "localMemoryTotal = 0 AND registersPerThread = 32 AND blockX > 0"),
                   ==, 5);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), ==, 4);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION "
                              "WHERE eventSyncId IS NOT NULL"),
                   ==, 0);
  /* the event waited for is still named by its id (a field of the first version) */
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION "
                              "WHERE eventId = 1"),
                   ==, 2);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT WHERE "
                              "eventSyncId IS NULL AND timestamp = 0 AND deviceId = 0 AND "
                              "contextId = 1 AND eventId = 1"),
                   ==, 2);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE WHERE "
                              "graphId = 1 AND graphExecId = 1"),
                   ==, 3);
  g_autofree char *mode = graph_mode_of (db);
  g_assert_cmpstr (mode, ==, "Graph");
  sqlite3_close (db);
  /* the model reads it */
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  /* CUDA 13's CUPTI (the default) has them all */
  g_autofree char *now = run_record (&run, "new-cupti.sqlite", newest, NULL);
  g_assert_cmpint (run.status, ==, 0);
  db = sl_test_open_db (now);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE clusterX = 1 "
                              "AND clusterY = 1 AND clusterZ = 1"),
                   ==, 5);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT "
                              "WHERE eventSyncId IS NOT NULL"),
                   ==, 2);
  g_assert_false (has_table (db, "DIAGNOSTIC_EVENT")); /* nothing to say */
  sqlite3_close (db);
}

/* CUPTI refuses CUPTI_ACTIVITY_KIND_GRAPH_TRACE: graphs are traced by node (each launch's
 * kernels, as CUPTI then reports them), and the trace says so: the mode in effect, "Node", in
 * META_DATA_CAPTURE, and why in DIAGNOSTIC_EVENT and on stderr. */
static void
test_graph_trace_refused (void)
{
  static const char *const opts[] = { "-s", "none", "--env", "FAKE_CUPTI_NO_GRAPH_TRACE=1", NULL };
  g_auto (SlTestRun) run = { 0 };
  g_autofree char *path = run_record (&run, "graph-refused.sqlite", opts, NULL);

  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.err, "sightline: --cuda-graph-trace=graph could not be enabled"));
  g_assert_nonnull (strstr (run.err, "CUPTI_ERROR_NOT_SUPPORTED"));
  sqlite3 *db = sl_test_open_db (path);
  check_common (db);
  g_autofree char *mode = graph_mode_of (db);
  g_assert_cmpstr (mode, ==, "Node");
  g_assert_false (has_table (db, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"));
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE graphId = 1"),
                   ==, 12);
  g_assert_cmpint (diagnostics_with (db, 2, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE): "
                                            "CUPTI_ERROR_NOT_SUPPORTED"),
                   ==, 1);
  g_assert_cmpint (count (db, "SELECT count(*) FROM DIAGNOSTIC_EVENT"), ==, 1);
  sqlite3_close (db);
}

/* The program subscribed to CUPTI first (its own profiler: CUPTI allows one subscriber):
 * Sightline's cuptiSubscribe fails.  Activity is recorded all the same, what needed the
 * callbacks (graphExecId here) is not, and that is said on stderr and in the trace. */
static void
test_other_subscriber (void)
{
  static const char *const opts[] = { "-s", "none", "--env", "FAKE_CUPTI_SUBSCRIBED=1", NULL };
  g_auto (SlTestRun) run = { 0 };
  g_autofree char *path = run_record (&run, "subscribed.sqlite", opts, NULL);

  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.err, "sightline: another CUPTI subscriber is in this process"));
  g_assert_nonnull (strstr (run.err, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"));
  g_assert_nonnull (strstr (run.err, "-t nvtx,osrt"));
  sqlite3 *db = sl_test_open_db (path);
  check_common (db);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE "
                              "WHERE graphExecId = 0"),
                   ==, 3);
  g_assert_cmpint (diagnostics_with (db, 2, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"), ==,
                   1);
  /* the default --cudabacktrace (sync:250000) needs them too; '' is SQL's quote */
  g_assert_cmpint (
      diagnostics_with (db, 2, "without graph launches'' graphExecId, CUDA backtraces"), ==, 1);
  sqlite3_close (db);
}

/* More graph launches between two flushes than the library's table of launches has slots
 * (8192): the ones whose slot was taken are written with graphExecId 0, and their count is in
 * DIAGNOSTIC_EVENT.  The fake program's three launches, 3000 times each: ~9000 within a few
 * ms, well inside one 500 ms flush period (a flush between them makes fewer lost, never a
 * wrong count). */
static void
test_graph_exec_table_full (void)
{
  static const char *const opts[] = { "-s", "none", "--env", "FAKE_CUPTI_GRAPH_REPEAT=3000",
                                      NULL };
  g_auto (SlTestRun) run = { 0 };
  g_autofree char *path = run_record (&run, "graph-execs.sqlite", opts, NULL);

  g_assert_cmpint (run.status, ==, 0);
  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE"), ==, 9000);
  gint64 lost = count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE "
                           "WHERE graphExecId = 0");
  g_test_message ("%" G_GINT64_FORMAT " launches without their exec's id", lost);
  g_assert_cmpint (lost, >, 0);
  g_assert_cmpint (lost, <=, 9000 - 8192);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE "
                              "WHERE graphExecId NOT IN (0, 1)"),
                   ==, 0);
  g_autofree char *said = g_strdup_printf ("%" G_GINT64_FORMAT " CUDA graph launches have "
                                           "graphExecId 0", lost);
  g_assert_cmpint (diagnostics_with (db, 2, said), ==, 1);
  sqlite3_close (db);
}

/* tests/cupti/fake-cuda-memory.py (beside tests/targets/, where SL_FAKE_PY_TARGET is):
 * allocations, frees and managed memory. */
static char *
memory_program (void)
{
  g_autofree char *targets = g_path_get_dirname (SL_FAKE_PY_TARGET);
  return g_build_filename (targets, "..", "cupti", "fake-cuda-memory.py", NULL);
}

/* Records the memory program with `opts`; NULL (the test skipped) without python3.  Its three
 * allocations' addresses in a, b, m. */
static char *
record_memory (SlTestRun         *run,
               const char        *name,
               const char *const *opts,
               guint64            addr[3])
{
  g_autofree char *script = memory_program ();
  const char *const args[] = { script, SL_FAKE_CUPTI_PATH, NULL };

  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no /usr/bin/python3");
      return NULL;
    }
  char *path = run_record_program (run, name, opts, "/usr/bin/python3", args);
  const char *said = strstr (run->out, "fake-cuda-memory.py: a=");
  g_assert_nonnull (said);
  g_assert_cmpint (sscanf (said, "fake-cuda-memory.py: a=%" G_GUINT64_FORMAT " b=%" G_GUINT64_FORMAT
                                 " m=%" G_GUINT64_FORMAT,
                           &addr[0], &addr[1], &addr[2]),
                   ==, 3);
  return path;
}

/* Rows of CUDA_GPU_MEMORY_USAGE_EVENTS that `where` selects. */
static gint64
memory_rows (sqlite3    *db,
             const char *where)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE %s", where);
  return count (db, sql);
}

/* nsys --cuda-memory-usage, --cuda-um-cpu-page-faults, --cuda-um-gpu-page-faults (in each of the
 * spellings nsys takes): every allocation and free a row of CUDA_GPU_MEMORY_USAGE_EVENTS inside
 * its call and carrying its correlationId, a free at its allocation's address; unified memory's
 * migrations CUPTI_ACTIVITY_KIND_MEMCPY rows (copyKind 11, 12) with their cause and pages'
 * address, its faults rows of CUDA_UM_CPU_PAGE_FAULT_EVENTS (the faulting function named) and
 * CUDA_UM_GPU_PAGE_FAULT_EVENTS; the queries of nsys's um_sum / um_total_sum read them; `sightline
 * memory` reads the allocations. */
static void
test_memory_usage (void)
{
  static const char *const opts[] = { "-s", "none", "--cuda-memory-usage",
                                      "--cuda-um-cpu-page-faults", "true",
                                      "--cuda-um-gpu-page-faults=true", NULL };
  g_auto (SlTestRun) run = { 0 };
  guint64 addr[3];
  g_autofree char *path = record_memory (&run, "memory.sqlite", opts, addr);

  if (path == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  g_assert_null (strstr (run.err, "could not be enabled"));
  sqlite3 *db = sl_test_open_db (path);
  g_autofree char *meta = sl_test_sql_text (
      db, "SELECT group_concat(name || '=' || value, ',') FROM (SELECT * FROM META_DATA_CAPTURE "
          "WHERE name LIKE 'CUDA_MEMORY_USAGE' OR name LIKE 'CUDA_UM_%' ORDER BY name)");
  g_assert_cmpstr (meta, ==, "CUDA_MEMORY_USAGE=true,CUDA_UM_CPU_PAGE_FAULTS=true,"
                             "CUDA_UM_GPU_PAGE_FAULTS=true");

  /* allocations: two on the device, one managed; two of them freed */
  g_assert_cmpint (memory_rows (db, "1"), ==, 5);
  g_assert_cmpint (memory_rows (db, "memoryOperationType = 0 AND memKind = 2"), ==, 2);
  g_assert_cmpint (memory_rows (db, "memoryOperationType = 0 AND memKind = 4 AND bytes = 262144"),
                   ==, 1);
  g_assert_cmpint (memory_rows (db, "memoryOperationType = 1"), ==, 2);
  g_assert_cmpint (memory_rows (db, "deviceId = 0 AND contextId = 1 AND pc = 0 AND name IS NULL"),
                   ==, 5);
  g_autofree char *where_a = g_strdup_printf ("address = %" G_GUINT64_FORMAT
                                              " AND bytes = 1048576 AND memKind = 2", addr[0]);
  g_autofree char *where_b = g_strdup_printf ("address = %" G_GUINT64_FORMAT
                                              " AND bytes = 4096", addr[1]);
  g_autofree char *where_m = g_strdup_printf ("address = %" G_GUINT64_FORMAT
                                              " AND memKind = 4", addr[2]);
  g_assert_cmpint (memory_rows (db, where_a), ==, 2);
  g_assert_cmpint (memory_rows (db, where_b), ==, 1);
  g_assert_cmpint (memory_rows (db, where_m), ==, 2);
  /* each free after an allocation at its address, of its size and kind */
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS f WHERE "
                              "f.memoryOperationType = 1 AND EXISTS (SELECT 1 FROM "
                              "CUDA_GPU_MEMORY_USAGE_EVENTS a WHERE a.memoryOperationType = 0 AND "
                              "a.address = f.address AND a.bytes = f.bytes AND a.memKind = f.memKind "
                              "AND a.start < f.start)"),
                   ==, 2);
  /* each row inside the call whose correlationId it carries, in the same process */
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS u "
                              "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = "
                              "u.correlationId AND (r.globalTid >> 24) = (u.globalPid >> 24) "
                              "AND u.start BETWEEN r.start AND r.end JOIN StringIds s "
                              "ON s.id = r.nameId WHERE (s.value = 'cudaMalloc_v3020' AND "
                              "u.memoryOperationType = 0 AND u.memKind = 2) OR (s.value = "
                              "'cudaMallocManaged_v6000' AND u.memKind = 4 AND "
                              "u.memoryOperationType = 0) OR (s.value = 'cudaFree_v3020' AND "
                              "u.memoryOperationType = 1)"),
                   ==, 5);
  g_assert_cmpint (count (db, "SELECT count(*) FROM ENUM_CUDA_DEV_MEM_EVENT_OPER WHERE "
                              "(id = 0 AND name = 'CUDA_DEV_MEM_EVENT_OPR_ALLOCATION' AND label = "
                              "'Allocation') OR (id = 1 AND name = "
                              "'CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION' AND label = 'Deallocation')"),
                   ==, 2);
  g_assert_cmpint (count (db, "SELECT count(*) FROM ENUM_CUDA_MEM_KIND"), ==, 8);

  /* migrations: 4 pages to the GPU on the kernel's faults, 2 back on the host's, 2 prefetched;
   * as nsys writes them: no context, stream or call, memory kinds Unknown */
  g_autofree char *in_m = g_strdup_printf ("virtualAddress BETWEEN %" G_GUINT64_FORMAT
                                           " AND %" G_GUINT64_FORMAT " + 3 * 65536 AND "
                                           "(virtualAddress - %" G_GUINT64_FORMAT ") %% 65536 = 0",
                                           addr[2], addr[2], addr[2]);
  g_autofree char *migrations = g_strdup_printf (
      "SELECT group_concat(k, ',') FROM (SELECT copyKind || ':' || migrationCause || 'x' || "
      "count(*) AS k FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind IN (11, 12) AND bytes = 65536 "
      "AND srcKind = 7 AND dstKind = 7 AND contextId = 0 AND streamId = 0 AND correlationId = 0 "
      "AND deviceId = 0 AND srcDeviceId IS NULL AND end > start AND %s GROUP BY copyKind, "
      "migrationCause ORDER BY copyKind, migrationCause)",
      in_m);
  g_autofree char *moved = sl_test_sql_text (db, migrations);
  g_assert_cmpstr (moved, ==, "11:1x2,11:2x4,12:2x2");
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"), ==, 8);

  /* faults: the host's 4 + 2, named by the function that touched the page; the GPU's 4 groups
   * of 3, writes, while the kernel ran */
  g_assert_true (has_table (db, "CUDA_UM_CPU_PAGE_FAULT_EVENTS"));
  g_autofree char *cpu_in_m = g_strdup_printf ("address BETWEEN %" G_GUINT64_FORMAT " AND %"
                                               G_GUINT64_FORMAT " + 3 * 65536",
                                               addr[2], addr[2]);
  g_autofree char *cpu_faults = g_strdup_printf (
      "SELECT count(*) FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS c JOIN StringIds s "
      "ON s.id = c.CpuInstruction JOIN StringIds mo ON mo.id = c.module WHERE %s AND "
      "s.value = 'fake_um_host_touch' AND mo.value LIKE '%%libsl-fake-cupti.so' AND "
      "c.unresolved = 0 AND c.originalFaultPc > 0 AND c.sourceFile IS NULL",
      cpu_in_m);
  g_assert_cmpint (count (db, cpu_faults), ==, 6);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS"), ==, 6);
  g_autofree char *gpu_faults = g_strdup_printf (
      "SELECT count(*) || ',' || sum(numberOfPageFaults) FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS g, "
      "CUPTI_ACTIVITY_KIND_KERNEL k WHERE %s AND g.faultAccessType = 2 AND g.deviceId = 0 AND "
      "g.start >= k.start AND g.end <= k.end AND g.end > g.start",
      cpu_in_m);
  g_autofree char *gpu = sl_test_sql_text (db, gpu_faults);
  g_assert_cmpstr (gpu, ==, "4,12");
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS e JOIN "
                              "PROCESSES p ON p.globalPid = e.globalPid"),
                   ==, 4);

  /* nsys's um_total_sum, as its report script asks it (columns and tables it reads) */
  g_autofree char *totals = sl_test_sql_text (
      db, "SELECT (SELECT sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 11) || ',' "
          "|| (SELECT sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 12) || ',' || "
          "(SELECT count(*) FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS) || ',' || (SELECT "
          "sum(numberOfPageFaults) FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS)");
  g_assert_cmpstr (totals, ==, "393216,131072,6,12");
  /* um_sum joins faults and migrations by the page's address: all of m's 4 pages meet */
  g_assert_cmpint (count (db, "SELECT count(DISTINCT c.address) FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS "
                              "c JOIN CUDA_UM_GPU_PAGE_FAULT_EVENTS g USING (address) JOIN "
                              "CUPTI_ACTIVITY_KIND_MEMCPY m ON m.virtualAddress = c.address"),
                   ==, 4);
  sqlite3_close (db);

  /* the viewer's reader: `sightline memory` */
  g_auto (SlTestRun) mem = { 0 };
  sl_test_run (&mem, SL_SIGHTLINE_PATH, "memory", path, NULL);
  g_test_message ("memory: %s%s", mem.out, mem.err);
  g_assert_cmpint (mem.status, ==, 0);
  g_autofree char *hex_b = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", addr[1]);
  g_assert_nonnull (strstr (mem.out, hex_b)); /* never freed: live at the end and the peak */
  g_assert_nonnull (strstr (mem.out, "by cudaMalloc"));
  g_assert_nonnull (strstr (mem.out, "by cudaMallocManaged"));
  g_assert_nonnull (strstr (mem.out, "Never freed: 1 allocation, 4.00 KiB"));
  /* the model reads the whole trace */
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
}

/* Without the options, the same program leaves none of those tables and no migration rows, as
 * nsys; with --cuda-um-gpu-page-faults alone, the GPU's faults and the migrations, not the CPU's
 * faults. */
static void
test_memory_absent (void)
{
  static const char *const none[] = { "-s", "none", NULL };
  static const char *const gpu_only[] = { "-s", "none", "--cuda-um-gpu-page-faults",
                                          "--cuda-memory-usage=false", NULL };
  g_auto (SlTestRun) run = { 0 };
  guint64 addr[3];
  g_autofree char *path = record_memory (&run, "memory-none.sqlite", none, addr);

  if (path == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  sqlite3 *db = sl_test_open_db (path);
  g_assert_false (has_table (db, "CUDA_GPU_MEMORY_USAGE_EVENTS"));
  g_assert_false (has_table (db, "CUDA_UM_CPU_PAGE_FAULT_EVENTS"));
  g_assert_false (has_table (db, "CUDA_UM_GPU_PAGE_FAULT_EVENTS"));
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"), ==, 0);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), ==, 9);
  g_assert_cmpint (count (db, "SELECT count(*) FROM ENUM_CUDA_DEV_MEM_EVENT_OPER"), ==, 2);
  g_assert_cmpint (count (db, "SELECT count(*) FROM ENUM_CUDA_UNIF_MEM_ACCESS_TYPE"), ==, 5);
  g_assert_false (has_table (db, "DIAGNOSTIC_EVENT"));
  sqlite3_close (db);

  g_autofree char *path_gpu = record_memory (&run, "memory-gpu.sqlite", gpu_only, addr);
  g_assert_cmpint (run.status, ==, 0);
  db = sl_test_open_db (path_gpu);
  g_assert_false (has_table (db, "CUDA_GPU_MEMORY_USAGE_EVENTS"));
  g_assert_false (has_table (db, "CUDA_UM_CPU_PAGE_FAULT_EVENTS"));
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS"), ==, 4);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind IN "
                              "(11, 12)"),
                   ==, 8);
  sqlite3_close (db);
}

/* CUPTI refuses to count unified memory (FAKE_CUPTI_NO_UM: CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED,
 * as in a VM or under MPS): one line on stderr, one warning in DIAGNOSTIC_EVENT, no UM rows, and
 * the rest recorded as always (allocations, calls, the kernel). */
static void
test_um_refused (void)
{
  static const char *const opts[] = { "-s", "none", "--cuda-memory-usage",
                                      "--cuda-um-cpu-page-faults", "--cuda-um-gpu-page-faults",
                                      "--env", "FAKE_CUPTI_NO_UM=1", NULL };
  g_auto (SlTestRun) run = { 0 };
  guint64 addr[3];
  g_autofree char *path = record_memory (&run, "memory-um-refused.sqlite", opts, addr);

  if (path == NULL)
    return;
  g_assert_cmpint (run.status, ==, 0);
  const char *line = strstr (run.err, "sightline: --cuda-um-cpu-page-faults and "
                                      "--cuda-um-gpu-page-faults could not be enabled");
  g_assert_nonnull (line);
  g_assert_nonnull (strstr (line, "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED"));
  g_assert_null (strstr (strstr (line, "could not be enabled") + 1, "could not be enabled"));
  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpint (diagnostics_with (db, 2, "cuptiActivityConfigureUnifiedMemoryCounter: "
                                            "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED"),
                   ==, 1);
  g_assert_cmpint (count (db, "SELECT count(*) FROM DIAGNOSTIC_EVENT"), ==, 1);
  g_assert_false (has_table (db, "CUDA_UM_CPU_PAGE_FAULT_EVENTS"));
  g_assert_false (has_table (db, "CUDA_UM_GPU_PAGE_FAULT_EVENTS"));
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"), ==, 0);
  g_assert_cmpint (memory_rows (db, "1"), ==, 5);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), ==, 9);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), ==, 1);
  assert_correlated (db, "CUPTI_ACTIVITY_KIND_KERNEL");
  sqlite3_close (db);

  /* a value that is neither true nor false: refused before anything runs */
  static const char *const bad[] = { "--cuda-memory-usage=yes", NULL };
  g_autofree char *path_bad = run_record (&run, "memory-bad.sqlite", bad, NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "--cuda-memory-usage wants true or false"));
  g_assert_false (g_file_test (path_bad, G_FILE_TEST_EXISTS));
}

/* The GPU_METRICS rows of `metric` (TARGET_INFO_GPU_METRICS' name) on GPU 0 that satisfy `where`
 * (over GPU_METRICS m). */
static gint64
metric_rows (sqlite3    *db,
             const char *metric,
             const char *where)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM GPU_METRICS m JOIN TARGET_INFO_GPU_METRICS i "
      "ON i.typeId = m.typeId AND i.metricId = m.metricId "
      "WHERE i.metricName = '%s' AND (m.typeId & 255) = 0 AND (%s)",
      metric, where);
  return count (db, sql);
}

/* sightline record --gpu-metrics=1000 of a program whose one kernel runs 20 ms: the fake GPU's
 * eight hand-built samples (one a millisecond from Start) come back as GPU_METRICS rows, one per
 * metric the chip offered and the sample has a value of, rounded as nsys stores them, named in
 * TARGET_INFO_GPU_METRICS as nsys names them, a sampling period apart on the trace's clock and
 * inside the recording; `sightline stats --report gpu_metrics_sum` averages them. */
static void
test_gpu_metrics (void)
{
  static const char *const opts[] = { "-s", "none", "--gpu-metrics=1000", NULL };
  static const char *const args[] = { "wait", "1", "20000000", NULL };
  g_auto (SlTestRun) run = { 0 };
  g_autofree char *path = run_record (&run, "gpu-metrics.sqlite", opts, args);

  g_assert_cmpint (run.status, ==, 0);
  g_assert_null (strstr (run.err, "--gpu-metrics:"));
  sqlite3 *db = sl_test_open_db (path);
  /* the chip's six of nsys's metrics, by nsys's names, GPU 0's type, source 2 */
  g_assert_cmpint (count (db, "SELECT count(*) FROM TARGET_INFO_GPU_METRICS"), ==, 6);
  g_assert_cmpint (count (db, "SELECT count(*) FROM TARGET_INFO_GPU_METRICS WHERE typeId = "
                              "(1 << 48) | (2 << 32) | (1 << 8) AND sourceId = 2 AND "
                              "typeName = 'GPU 0: GH100'"),
                   ==, 6);
  g_autofree char *names = sl_test_sql_text (
      db, "SELECT group_concat(metricId || '=' || metricName, ';') FROM "
          "(SELECT * FROM TARGET_INFO_GPU_METRICS ORDER BY metricId)");
  g_assert_cmpstr (names, ==,
                   "0=GPC Clock Frequency [MHz];5=SMs Active [Throughput %];"
                   "6=SM Issue [Throughput %];7=Tensor Active [Throughput %];"
                   "8=Compute Warps in Flight [Throughput %];"
                   "10=DRAM Read Bandwidth [Throughput %]");
  /* 8 samples × 6 metrics, less the one DRAM value that was NaN */
  g_assert_cmpint (count (db, "SELECT count(*) FROM GPU_METRICS"), ==, 47);
  g_assert_cmpint (count (db, "SELECT count(DISTINCT timestamp) FROM GPU_METRICS"), ==, 8);
  g_assert_cmpint (metric_rows (db, "GPC Clock Frequency [MHz]", "value = 1755"), ==, 8);
  g_assert_cmpint (metric_rows (db, "Compute Warps in Flight [Throughput %]", "value = 45"), ==, 8);
  g_assert_cmpint (metric_rows (db, "DRAM Read Bandwidth [Throughput %]", "value = 30"), ==, 7);
  g_assert_cmpint (metric_rows (db, "Tensor Active [Throughput %]", "value = 12"), ==, 4);
  g_assert_cmpint (metric_rows (db, "Tensor Active [Throughput %]", "value = 13"), ==, 4);
  /* each sample's values at its time: SMs Active 0 20 40 60 80 100 90 10, SM Issue 0 5 … 35 */
  g_autofree char *sms = sl_test_sql_text (
      db, "SELECT group_concat(value, ' ') FROM (SELECT m.value FROM GPU_METRICS m "
          "JOIN TARGET_INFO_GPU_METRICS i ON i.typeId = m.typeId AND i.metricId = m.metricId "
          "WHERE i.metricName = 'SMs Active [Throughput %]' ORDER BY m.timestamp)");
  g_assert_cmpstr (sms, ==, "0 20 40 60 80 100 90 10");
  g_autofree char *issue = sl_test_sql_text (
      db, "SELECT group_concat(value, ' ') FROM (SELECT m.value FROM GPU_METRICS m "
          "WHERE m.metricId = 6 ORDER BY m.timestamp)");
  g_assert_cmpstr (issue, ==, "0 5 10 15 20 25 30 35");
  /* a millisecond apart; the GPU's clock (CLOCK_REALTIME's) a constant away from the trace's, the
   * session's start on both clocks telling that constant within 50 ms; inside the recording,
   * from the session's start (PM sampling starts with CUDA, before the first call) to the last
   * call's end */
  g_assert_cmpint (count (db, "SELECT max(timestamp) - min(timestamp) FROM GPU_METRICS"), ==,
                   7000000);
  g_assert_cmpint (count (db, "SELECT count(DISTINCT rawTimestamp - timestamp) FROM GPU_METRICS"),
                   ==, 1);
  g_assert_cmpint (count (db, "SELECT count(*) FROM GPU_METRICS, TARGET_INFO_SESSION_START_TIME s "
                              "WHERE abs(rawTimestamp - (timestamp - s.systemClockNs + "
                              "s.utcEpochNs)) > 50000000"),
                   ==, 0);
  g_assert_cmpint (count (db, "SELECT count(*) FROM GPU_METRICS WHERE timestamp < "
                              "(SELECT systemClockNs FROM TARGET_INFO_SESSION_START_TIME) OR "
                              "timestamp > (SELECT max(end) FROM CUPTI_ACTIVITY_KIND_RUNTIME)"),
                   ==, 0);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), ==, 1);
  g_autofree char *hz = sl_test_sql_text (db, "SELECT value FROM META_DATA_CAPTURE WHERE name = "
                                             "'GPU_METRICS_FREQUENCY'");
  g_assert_cmpstr (hz, ==, "1000");
  g_assert_false (has_table (db, "DIAGNOSTIC_EVENT"));
  sqlite3_close (db);

  /* the report: time-weighted means of evenly spaced samples, as the values fed in */
  g_auto (SlTestRun) st = { 0 };
  sl_test_run (&st, SL_SIGHTLINE_PATH, "stats", "--report", "gpu_metrics_sum", "--format", "csv",
               path, NULL);
  g_test_message ("stats: %s%s", st.out, st.err);
  g_assert_cmpint (st.status, ==, 0);
  g_assert_nonnull (strstr (st.out, "0,SMs Active [Throughput %],50.0,100,0,8"));
  g_assert_nonnull (strstr (st.out, "0,SM Issue [Throughput %],17.5,35,0,8"));
  g_assert_nonnull (strstr (st.out, "0,Tensor Active [Throughput %],12.5,13,12,8"));
  g_assert_nonnull (strstr (st.out, "0,GPC Clock Frequency [MHz],1755.0,1755,1755,8"));
  g_assert_nonnull (strstr (st.out, "0,DRAM Read Bandwidth [Throughput %],30.0,30,30,7"));
}

/* The same samples read while the program runs (a 120 ms kernel: the library decodes every 50 ms),
 * not at its end: with FAKE_CUPTI_PM_STOP_LOSES the last decoding finds nothing, so every row
 * came from the decoding thread. */
static void
test_gpu_metrics_periodic (void)
{
  static const char *const opts[] = { "-s", "none", "--gpu-metrics=1000", "--env",
                                      "FAKE_CUPTI_PM_STOP_LOSES=1", NULL };
  static const char *const args[] = { "wait", "1", "120000000", NULL };
  g_auto (SlTestRun) run = { 0 };
  g_autofree char *path = run_record (&run, "gpu-metrics-periodic.sqlite", opts, args);

  g_assert_cmpint (run.status, ==, 0);
  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpint (count (db, "SELECT count(*) FROM GPU_METRICS"), ==, 47);
  g_autofree char *sms = sl_test_sql_text (
      db, "SELECT group_concat(value, ' ') FROM (SELECT value FROM GPU_METRICS "
          "WHERE metricId = 5 ORDER BY timestamp)");
  g_assert_cmpstr (sms, ==, "0 20 40 60 80 100 90 10");
  sqlite3_close (db);
}

/* Without --gpu-metrics no table of them; a bad rate is refused before anything runs. */
static void
test_gpu_metrics_absent (void)
{
  static const char *const none[] = { "-s", "none", NULL };
  static const char *const args[] = { "wait", "1", "1000", NULL };
  g_auto (SlTestRun) run = { 0 };
  g_autofree char *path = run_record (&run, "gpu-metrics-none.sqlite", none, args);

  g_assert_cmpint (run.status, ==, 0);
  sqlite3 *db = sl_test_open_db (path);
  g_assert_false (has_table (db, "GPU_METRICS"));
  g_assert_false (has_table (db, "TARGET_INFO_GPU_METRICS"));
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), ==, 1);
  sqlite3_close (db);

  static const char *const bad[] = { "--gpu-metrics=5", NULL };
  g_autofree char *path_bad = run_record (&run, "gpu-metrics-bad.sqlite", bad, args);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "--gpu-metrics=5: samples a second, 10 to 200000"));
  g_assert_false (g_file_test (path_bad, G_FILE_TEST_EXISTS));
}

/* The driver keeps the counters for admin users (FAKE_CUPTI_PM_PRIVILEGES:
 * CUPTI_ERROR_INSUFFICIENT_PRIVILEGES): one line on stderr naming the cause and the fix, the
 * same warning in DIAGNOSTIC_EVENT, no GPU metrics tables, and the kernel and calls recorded;
 * the same for a GPU or driver that cannot PM-sample. */
static void
test_gpu_metrics_refused (void)
{
  static const char *const opts[] = { "-s", "none", "--gpu-metrics", "--env",
                                      "FAKE_CUPTI_PM_PRIVILEGES=1", NULL };
  static const char *const args[] = { "wait", "1", "2000000", NULL };
  g_auto (SlTestRun) run = { 0 };
  g_autofree char *path = run_record (&run, "gpu-metrics-refused.sqlite", opts, args);

  g_assert_cmpint (run.status, ==, 0);
  const char *line = strstr (run.err, "sightline: --gpu-metrics: GPU 0: cuptiPmSamplingEnable "
                                      "failed (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)");
  g_assert_nonnull (line);
  const char *eol = strchr (line, '\n');
  g_assert_nonnull (eol);
  g_autofree char *said = g_strndup (line, (gsize) (eol - line));
  g_assert_nonnull (strstr (said, "NVreg_RestrictProfilingToAdminUsers=0"));
  g_assert_nonnull (strstr (said, "as root"));
  g_assert_null (strstr (eol, "--gpu-metrics")); /* said once */
  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpint (diagnostics_with (db, 2, "cuptiPmSamplingEnable failed "
                                            "(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)"),
                   ==, 1);
  g_assert_cmpint (diagnostics_with (db, 2, "NVreg_RestrictProfilingToAdminUsers=0"), ==, 1);
  g_assert_false (has_table (db, "GPU_METRICS"));
  g_assert_false (has_table (db, "TARGET_INFO_GPU_METRICS"));
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), ==, 1);
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), >=, 2);
  assert_correlated (db, "CUPTI_ACTIVITY_KIND_KERNEL");
  sqlite3_close (db);

  /* a GPU or driver without PM sampling (FAKE_CUPTI_PM_UNSUPPORTED: CUPTI_ERROR_NOT_SUPPORTED) */
  static const char *const unsupported[] = { "-s", "none", "--gpu-metrics", "--env",
                                             "FAKE_CUPTI_PM_UNSUPPORTED=1", NULL };
  g_autofree char *path_u = run_record (&run, "gpu-metrics-unsupported.sqlite", unsupported, args);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.err, "sightline: --gpu-metrics: GPU 0: "
                                     "cuptiPmSamplingGetCounterAvailability failed "
                                     "(CUPTI_ERROR_NOT_SUPPORTED): this GPU or driver cannot "
                                     "PM-sample"));
  db = sl_test_open_db (path_u);
  g_assert_cmpint (diagnostics_with (db, 2, "this GPU or driver cannot PM-sample"), ==, 1);
  g_assert_false (has_table (db, "GPU_METRICS"));
  g_assert_cmpint (count (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), ==, 1);
  sqlite3_close (db);
}

/* Without the option's value: refused before anything runs. */
static void
test_bad_mode (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "bad.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };

  sl_test_run (&run, SL_SIGHTLINE_PATH, "record", "-o", path, "--cuda-graph-trace", "edges", "--",
               SL_FAKE_TARGET_PATH, NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "--cuda-graph-trace"));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  runtime_dir = g_build_filename (sl_test_tmpdir (), "run", NULL);
  g_mkdir (runtime_dir, 0700);
  g_setenv ("SIGHTLINE_RUNTIME_DIR", runtime_dir, TRUE);
  g_setenv ("SIGHTLINE_CUPTI", SL_FAKE_CUPTI_PATH, TRUE);
  g_test_add_func ("/collector/fake-cupti/graph", test_graph_mode);
  g_test_add_func ("/collector/fake-cupti/node", test_node_mode);
  g_test_add_func ("/collector/fake-cupti/bad-mode", test_bad_mode);
  g_test_add_func ("/collector/fake-cupti/backtraces", test_backtraces);
  g_test_add_func ("/collector/fake-cupti/backtraces-python", test_backtraces_python);
  g_test_add_func ("/collector/fake-cupti/capture-profiler", test_capture_profiler);
  g_test_add_func ("/collector/fake-cupti/old-cupti", test_old_cupti);
  g_test_add_func ("/collector/fake-cupti/graph-trace-refused", test_graph_trace_refused);
  g_test_add_func ("/collector/fake-cupti/other-subscriber", test_other_subscriber);
  g_test_add_func ("/collector/fake-cupti/graph-exec-table-full", test_graph_exec_table_full);
  g_test_add_func ("/collector/fake-cupti/memory-usage", test_memory_usage);
  g_test_add_func ("/collector/fake-cupti/memory-absent", test_memory_absent);
  g_test_add_func ("/collector/fake-cupti/um-refused", test_um_refused);
  g_test_add_func ("/collector/fake-cupti/gpu-metrics", test_gpu_metrics);
  g_test_add_func ("/collector/fake-cupti/gpu-metrics-periodic", test_gpu_metrics_periodic);
  g_test_add_func ("/collector/fake-cupti/gpu-metrics-absent", test_gpu_metrics_absent);
  g_test_add_func ("/collector/fake-cupti/gpu-metrics-refused", test_gpu_metrics_refused);
  int r = g_test_run ();
  /* our daemon would exit by itself after a minute idle; do not leave it behind */
  g_autofree char *pidfile = g_build_filename (runtime_dir, "sightlined.sock.pid", NULL);
  g_autofree char *text = NULL;
  if (g_file_get_contents (pidfile, &text, NULL, NULL) && atoi (text) > 1)
    kill (atoi (text), SIGTERM);
  return r;
}
