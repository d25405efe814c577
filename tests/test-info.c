/* test-info.c: `sightline info --format json` and the inventory under it (model/sl-inventory.c),
 * checked against SQL counts on the real traces and on a generated file with damaged rows, an
 * unknown table, nsys diagnostics and lost records. */
#include <json-glib/json-glib.h>
#include <sqlite3.h>
#include <string.h>

#include "sl-cpu-util.h"
#include "sl-inventory.h"
#include "sl-test-util.h"
#include "sl-trace.h"

/* The event tables and the SQL condition of a row the loader makes an event of (times that are
 * numbers, an owner), written from nsys's schema, not from the reader. */
typedef struct
{
  const char *table;
  const char *owner;   /* a condition on the owner columns; NULL: see owner_sql() */
  gboolean    gpu;
} EventTable;

static const EventTable event_tables[] = {
  { "CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid IS NOT NULL", FALSE },
  { "CUPTI_ACTIVITY_KIND_KERNEL", NULL, TRUE },
  { "CUPTI_ACTIVITY_KIND_MEMCPY", NULL, TRUE },
  { "CUPTI_ACTIVITY_KIND_MEMSET", NULL, TRUE },
  { "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", NULL, TRUE },
  { "NVTX_EVENTS", NULL, FALSE },
  { "OSRT_API", "globalTid IS NOT NULL", FALSE },
  { "COMPOSITE_EVENTS", "globalTid IS NOT NULL", FALSE },
};

static gboolean
has_column (sqlite3    *db,
            const char *table,
            const char *column)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'", table, column);
  return sl_test_sql_int (db, sql) > 0;
}

static gboolean
has_table (sqlite3    *db,
           const char *table)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", table);
  return sl_test_sql_int (db, sql) > 0;
}

/* Rows of an event table that must become events. */
static gint64
sql_loaded (sqlite3          *db,
            const EventTable *t)
{
  const char *num = "typeof(%s) IN ('integer', 'real')";
  g_autofree char *start_ok = g_strdup_printf (num, "start");
  g_autofree char *end_ok = NULL;
  g_autofree char *owner = NULL;
  const char *extra = "1";

  if (strcmp (t->table, "COMPOSITE_EVENTS") == 0)
    end_ok = g_strdup ("1");   /* a sample is an instant: its end is its start */
  else if (strcmp (t->table, "NVTX_EVENTS") == 0)
    end_ok = g_strdup ("typeof(end) NOT IN ('text', 'blob')");   /* an open range: NULL end */
  else
    end_ok = g_strdup_printf (num, "end");
  if (t->gpu)
    owner = g_strdup (has_column (db, t->table, "globalPid")
                      ? "(deviceId IS NOT NULL OR globalPid IS NOT NULL)"
                      : "deviceId IS NOT NULL");
  else if (t->owner != NULL)
    {
      owner = g_strdup (t->owner);
      if (strcmp (t->table, "OSRT_API") == 0 && has_column (db, t->table, "eventClass"))
        extra = "eventClass = 27";   /* OS runtime calls; other classes share the table */
    }
  else
    {
      owner = g_strdup (has_column (db, t->table, "endGlobalTid")
                        ? "(globalTid IS NOT NULL OR endGlobalTid IS NOT NULL)"
                        : "globalTid IS NOT NULL");
      extra = "eventType IN (34, 59, 60, 70, 71)";   /* marks and ranges */
    }
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM %s WHERE %s AND %s AND %s AND %s",
                                          t->table, start_ok, end_ok, owner, extra);
  return sl_test_sql_int (db, sql);
}

/* Runs `sightline info PATH --format json` and parses what it prints. */
static JsonNode *
info_json (const char *path)
{
  const char *argv[] = { SL_SIGHTLINE_BIN, "info", path, "--format", "json", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = -1;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  JsonNode *root = json_from_string (out, &error);
  g_assert_no_error (error);
  g_assert_nonnull (root);
  return root;
}

static JsonObject *
find_table (JsonArray  *tables,
            const char *name)
{
  for (guint i = 0; i < json_array_get_length (tables); i++)
    {
      JsonObject *t = json_array_get_object_element (tables, i);
      if (g_strcmp0 (json_object_get_string_member (t, "name"), name) == 0)
        return t;
    }
  return NULL;
}

/* Every table of the file once, its rows as SQL counts them, loaded + skipped = rows; the event
 * tables' loaded rows as SQL finds them and summing to the model's events; threads, GPUs, span
 * and diagnostics as the model and SQL have them. */
static void
check_trace (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (JsonNode) root = info_json (path);
  JsonObject *o = json_node_get_object (root);
  JsonArray *tables = json_object_get_array_member (o, "tables");
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (json_array_get_length (tables), ==,
                   sl_test_sql_int (db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                                "AND name NOT LIKE 'sqlite_%'"));
  for (guint i = 0; i < json_array_get_length (tables); i++)
    {
      JsonObject *t = json_array_get_object_element (tables, i);
      const char *name = json_object_get_string_member (t, "name");
      g_autofree char *count = g_strdup_printf ("SELECT count(*) FROM \"%s\"", name);
      gint64 rows = json_object_get_int_member (t, "rows");
      g_assert_cmpint (rows, ==, sl_test_sql_int (db, count));
      g_assert_cmpint (json_object_get_int_member (t, "loaded")
                       + json_object_get_int_member (t, "skipped"), ==, rows);
      g_assert_true (json_object_has_member (t, "why"));
      /* a table nobody reads is said to be so, and none of its rows counts as loaded */
      if (g_strcmp0 (json_object_get_string_member (t, "state"), "not read by Sightline yet") == 0)
        {
          g_assert_cmpint (json_object_get_int_member (t, "loaded"), ==, 0);
          g_assert_cmpstr (json_object_get_string_member (t, "why"), ==,
                           "not read by Sightline yet");
        }
    }

  gint64 events = 0, cpu_events = 0;
  for (guint i = 0; i < G_N_ELEMENTS (event_tables); i++)
    {
      JsonObject *t = find_table (tables, event_tables[i].table);
      if (!has_table (db, event_tables[i].table))
        {
          g_assert_null (t);
          continue;
        }
      g_assert_nonnull (t);
      g_assert_cmpstr (json_object_get_string_member (t, "state"), ==, "loaded");
      gint64 loaded = json_object_get_int_member (t, "loaded");
      g_assert_cmpint (loaded, ==, sql_loaded (db, &event_tables[i]));
      events += loaded;
      if (!event_tables[i].gpu)
        cpu_events += loaded;
    }
  /* the model's events are the tables' rows and the thread-state slices made from them */
  gint64 state_events = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    if (sl_trace_get_lane (trace, i)->kind == SL_LANE_SCHED)
      state_events += sl_trace_get_lane (trace, i)->n_events;
  g_assert_cmpint (events + state_events, ==, sl_trace_get_n_events (trace));
  g_assert_cmpint (json_object_get_int_member (o, "events"), ==, events + state_events);

  /* threads: all of them, their events the CPU tables' loaded rows */
  JsonArray *threads = json_object_get_array_member (o, "threads");
  g_assert_cmpuint (json_array_get_length (threads), ==, sl_trace_get_n_threads (trace));
  gint64 thread_events = 0;
  for (guint i = 0; i < json_array_get_length (threads); i++)
    {
      JsonObject *t = json_array_get_object_element (threads, i);
      g_assert_cmpint (json_object_get_int_member (t, "tid"), ==,
                       sl_trace_get_thread (trace, i)->tid);
      g_assert_true (json_object_has_member (t, "name"));
      thread_events += json_object_get_int_member (t, "events");
      /* running_ns: null without scheduling data for the thread, else what the model sums
       * (test-sched checks that against SQL) */
      g_assert_true (json_object_has_member (t, "running_ns"));
      SlTime running = sl_trace_thread_running (trace, i);
      g_autofree char *rows = g_strdup_printf (
          "SELECT count(*) FROM SCHED_EVENTS WHERE globalTid = %" G_GUINT64_FORMAT,
          sl_trace_get_thread (trace, i)->global_tid);
      if (!has_table (db, "SCHED_EVENTS") || sl_test_sql_int (db, rows) == 0)
        g_assert_true (json_object_get_null_member (t, "running_ns"));
      else
        g_assert_cmpint (json_object_get_int_member (t, "running_ns"), ==, running);
    }
  g_assert_cmpint (thread_events, ==, cpu_events + state_events);

  /* GPUs: those the file describes, with their limits */
  JsonArray *gpus = json_object_get_array_member (o, "gpus");
  g_assert_cmpuint (json_array_get_length (gpus), ==, sl_trace_get_n_gpus (trace));
  /* the early-2021 layout: TARGET_INFO_CUDA_GPU (beside a TARGET_INFO_GPU keyed by deviceId) */
  const char *sm_sql = has_table (db, "TARGET_INFO_GPU") && has_column (db, "TARGET_INFO_GPU", "id")
                         ? "SELECT smCount FROM TARGET_INFO_GPU WHERE id = %" G_GINT64_FORMAT
                       : has_table (db, "TARGET_INFO_CUDA_GPU")
                         ? "SELECT numMultiprocessors FROM TARGET_INFO_CUDA_GPU WHERE deviceId = %"
                           G_GINT64_FORMAT " LIMIT 1"
                         : NULL;
  if (sm_sql != NULL)
    for (guint i = 0; i < json_array_get_length (gpus); i++)
      {
        JsonObject *g = json_array_get_object_element (gpus, i);
        if (!json_object_get_boolean_member (g, "described"))
          continue;
        g_autofree char *sql = g_strdup_printf (sm_sql, json_object_get_int_member (g, "device_id"));
        JsonObject *limits = json_object_get_object_member (g, "limits");
        g_assert_cmpint (json_object_get_int_member (limits, "sm_count"), ==, sl_test_sql_int (db, sql));
      }

  /* issue 14: OS runtime backtraces are read; an nsys export names no parent or command line */
  if (has_table (db, "OSRT_CALLCHAINS"))
    g_assert_cmpstr (json_object_get_string_member (find_table (tables, "OSRT_CALLCHAINS"),
                                                    "state"), ==, "loaded");
  /* issue 30: CUDA calls' backtraces too, every row */
  if (has_table (db, "CUDA_CALLCHAINS"))
    {
      JsonObject *t = find_table (tables, "CUDA_CALLCHAINS");
      g_assert_cmpstr (json_object_get_string_member (t, "state"), ==, "loaded");
      g_assert_cmpint (json_object_get_int_member (t, "loaded"), ==,
                       sl_test_sql_int (db, "SELECT count(*) FROM CUDA_CALLCHAINS"));
      g_assert_cmpint (json_object_get_int_member (t, "loaded"), >, 0);
    }
  if (!has_table (db, "SL_PROCESS_INFO"))
    {
      JsonArray *procs = json_object_get_array_member (o, "processes");
      for (guint i = 0; i < json_array_get_length (procs); i++)
        {
          JsonObject *pr = json_array_get_object_element (procs, i);
          g_assert_true (json_object_get_null_member (pr, "parent_pid"));
          g_assert_true (json_object_get_null_member (pr, "command_line"));
        }
    }

  JsonObject *span = json_object_get_object_member (o, "span");
  g_assert_cmpint (json_object_get_int_member (span, "start_ns"), ==, sl_trace_get_start (trace));
  g_assert_cmpint (json_object_get_int_member (span, "end_ns"), ==, sl_trace_get_end (trace));

  JsonArray *diagnostics = json_object_get_array_member (o, "diagnostics");
  g_assert_cmpint (json_array_get_length (diagnostics), ==,
                   has_table (db, "DIAGNOSTIC_EVENT")
                   ? sl_test_sql_int (db, "SELECT count(*) FROM DIAGNOSTIC_EVENT WHERE text IS NOT NULL")
                   : 0);
  sqlite3_close (db);
}

static void
test_real_traces (void)
{
  g_auto (GStrv) traces = sl_test_nsys_traces ();

  if (traces[0] == NULL)
    {
      g_test_skip ("no real traces under ../shared/traces/nsys");
      return;
    }
  for (guint i = 0; traces[i] != NULL; i++)
    {
      g_test_message ("%s", traces[i]);
      check_trace (traces[i]);
    }
}

static void
exec (sqlite3    *db,
      const char *sql)
{
  char *msg = NULL;
  if (sqlite3_exec (db, sql, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s: %s", sql, msg);
}

#define GTID "((1 << 24) | 7)"   /* pid 1, tid 7 */

/* A file with damaged CUDA API rows, NVTX rows that are not ranges, a table of our own and
 * nsys's diagnostics and lost records: each said where it belongs. */
static void
test_generated (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "damaged.sqlite", NULL);
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec (db,
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel'), (2, 'step'), (3, 'domain');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER,"
        " globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER);"
        /* 5 good rows, 1 ending before it starts (repaired, loaded), 2 NULL starts, 1 start that
         * is text, 1 with no thread */
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
        " (100, 200, 0, " GTID ", 1, 1, 0), (300, 400, 0, " GTID ", 2, 1, 0),"
        " (500, 600, 0, " GTID ", 3, 1, 0), (700, 800, 0, " GTID ", 4, 1, 0),"
        " (900, 1000, 0, " GTID ", 5, 1, 0), (1200, 1100, 0, " GTID ", 6, 1, 0),"
        " (NULL, 1300, 0, " GTID ", 7, 1, 0), (NULL, NULL, 0, " GTID ", 8, 1, 0),"
        " ('soon', 1500, 0, " GTID ", 9, 1, 0), (1600, 1700, 0, NULL, 10, 1, 0);"
        "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER,"
        " category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,"
        " textId INTEGER, domainId INTEGER);"
        "INSERT INTO NVTX_EVENTS VALUES"
        " (50, NULL, 75, NULL, NULL, NULL, NULL, " GTID ", NULL, 3, 1),"
        " (100, 1000, 59, NULL, NULL, NULL, NULL, " GTID ", NULL, 2, 0),"
        " (200, 300, 59, NULL, NULL, NULL, NULL, " GTID ", NULL, 2, 0),"
        " (400, NULL, 34, NULL, NULL, NULL, NULL, " GTID ", NULL, 2, 0);"
        "CREATE TABLE MY_OWN_TABLE (x INTEGER);"
        "INSERT INTO MY_OWN_TABLE VALUES (1), (2), (3);"
        "CREATE TABLE ENUM_DIAGNOSTIC_SEVERITY_LEVEL (id INTEGER PRIMARY KEY, name TEXT,"
        " label TEXT);"
        "INSERT INTO ENUM_DIAGNOSTIC_SEVERITY_LEVEL VALUES (1, 'INFO', 'Info'),"
        " (2, 'WARN', 'Warning');"
        "CREATE TABLE ENUM_DIAGNOSTIC_SOURCE_TYPE (id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
        "INSERT INTO ENUM_DIAGNOSTIC_SOURCE_TYPE VALUES (1, 'INJ', 'Injection');"
        "CREATE TABLE DIAGNOSTIC_EVENT (timestamp INTEGER NOT NULL, timestampType INTEGER NOT NULL,"
        " source INTEGER NOT NULL, severity INTEGER NOT NULL, text TEXT NOT NULL,"
        " globalPid INTEGER);"
        "INSERT INTO DIAGNOSTIC_EVENT VALUES (20, 0, 1, 2, 'No CUDA events collected', NULL),"
        " (10, 0, 1, 1, 'Profiling has started.', NULL), (30, 0, 7, 4, 'Late', NULL);"
        "CREATE TABLE SIGHTLINE_DROPPED_RECORDS (time INTEGER, globalPid INTEGER, source TEXT,"
        " count INTEGER);"
        "INSERT INTO SIGHTLINE_DROPPED_RECORDS VALUES (1, 1, 'ring buffer full', 5),"
        " (2, 1, 'ring buffer full', 7), (3, 1, 'samples', 2);");
  sqlite3_close (db);

  g_autoptr (JsonNode) root = info_json (path);
  JsonObject *o = json_node_get_object (root);
  JsonArray *tables = json_object_get_array_member (o, "tables");
  JsonObject *api = find_table (tables, "CUPTI_ACTIVITY_KIND_RUNTIME");
  g_assert_nonnull (api);
  g_assert_cmpint (json_object_get_int_member (api, "rows"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (api, "loaded"), ==, 6);
  g_assert_cmpint (json_object_get_int_member (api, "skipped"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (api, "repaired"), ==, 1);
  const char *why = json_object_get_string_member (api, "why");
  g_assert_nonnull (strstr (why, "2 with a NULL start or end"));
  g_assert_nonnull (strstr (why, "1 whose start or end is not a number"));
  g_assert_nonnull (strstr (why, "1 naming no thread or process"));
  g_assert_nonnull (strstr (why, "1 ending before they start"));

  JsonObject *nvtx = find_table (tables, "NVTX_EVENTS");
  g_assert_cmpint (json_object_get_int_member (nvtx, "rows"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (nvtx, "loaded"), ==, 3);
  g_assert_nonnull (strstr (json_object_get_string_member (nvtx, "why"), "1 that are not events"));

  JsonObject *own = find_table (tables, "MY_OWN_TABLE");
  g_assert_nonnull (own);
  g_assert_cmpint (json_object_get_int_member (own, "rows"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (own, "loaded"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (own, "skipped"), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (own, "why"), ==, "not read by Sightline yet");
  g_assert_cmpstr (json_object_get_string_member (find_table (tables, "StringIds"), "state"), ==,
                   "metadata");
  g_assert_cmpint (json_object_get_int_member (o, "events"), ==, 6 + 3);

  /* diagnostics in time order, with their enums' labels: the file's, else nsys's (severity 4 is
   * Verbose), else the number (no source 7) */
  JsonArray *diagnostics = json_object_get_array_member (o, "diagnostics");
  g_assert_cmpuint (json_array_get_length (diagnostics), ==, 3);
  JsonObject *d = json_array_get_object_element (diagnostics, 1);
  g_assert_cmpstr (json_object_get_string_member (d, "text"), ==, "No CUDA events collected");
  g_assert_cmpstr (json_object_get_string_member (d, "severity"), ==, "Warning");
  g_assert_cmpstr (json_object_get_string_member (d, "source"), ==, "Injection");
  d = json_array_get_object_element (diagnostics, 2);
  g_assert_cmpstr (json_object_get_string_member (d, "severity"), ==, "Verbose");
  g_assert_cmpstr (json_object_get_string_member (d, "source"), ==, "7");
  {
    /* read once, with the trace: the inventory lists what was loaded, not what the file holds
     * by the time it is asked (here a row added after the load), and labels as the model does */
    g_autoptr (GError) error = NULL;
    g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (sl_trace_enum_label (trace, SL_ENUM_DIAGNOSTIC_SEVERITY, 2), ==, "Warning");
    g_assert_cmpstr (sl_trace_enum_label (trace, SL_ENUM_DIAGNOSTIC_SOURCE, 3), ==, "Analysis");
    g_assert_cmpstr (sl_trace_enum_label (trace, SL_ENUM_DIAGNOSTIC_SOURCE, 7), ==, "Unknown");
    g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
    exec (db, "INSERT INTO DIAGNOSTIC_EVENT VALUES (40, 0, 1, 3, 'After the load', NULL);");
    sqlite3_close (db);
    g_autoptr (SlInventory) inv = sl_inventory_new (trace, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (sl_inventory_get_n_diagnostics (inv), ==, sl_trace_get_n_diagnostics (trace));
    g_assert_cmpuint (sl_inventory_get_n_diagnostics (inv), ==, 3);
    for (guint i = 0; i < 3; i++)
      {
        const SlInventoryDiagnostic *id = sl_inventory_get_diagnostic (inv, i);
        const SlDiagnostic *td = sl_trace_get_diagnostic (trace, i);
        g_assert_cmpint (id->time, ==, td->timestamp);
        g_assert_cmpstr (id->text, ==, sl_trace_str (trace, td->text));
      }
    g_assert_cmpstr (sl_inventory_get_diagnostic (inv, 0)->severity, ==, "Info");
  }

  JsonArray *lost = json_object_get_array_member (o, "lost_records");
  g_assert_cmpuint (json_array_get_length (lost), ==, 2);
  JsonObject *ring = json_array_get_object_element (lost, 0);
  g_assert_cmpstr (json_object_get_string_member (ring, "source"), ==, "ring buffer full");
  g_assert_cmpint (json_object_get_int_member (ring, "count"), ==, 12);

  /* the text output stays as it was, and works on this file too */
  const char *argv[] = { SL_SIGHTLINE_BIN, "info", path, NULL };
  g_autofree char *out = NULL;
  int status = -1;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                               &out, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, "Events:     9 in"));
}

/* The inventory of a trace loaded without some tables says they were not loaded, not unknown. */
/* Issue 14, item 5: SL_PROCESS_INFO (written by `sightline record`): each process's parent and
 * command line in `info` (text and JSON), the table listed as loaded. */
static void
test_process_info (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "process-info.sqlite", NULL);
  const char *argv[] = { SL_SIGHTLINE_BIN, "info", path, NULL };
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  sqlite3 *db = NULL;
  int status = -1;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec (db,
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO StringIds VALUES (1, 'read'), (2, 'python3');"
        "CREATE TABLE OSRT_API (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,"
        " nameId INTEGER, returnValue INTEGER, nestingLevel INTEGER, callchainId INTEGER,"
        " argumentsId INTEGER);"
        "INSERT INTO OSRT_API VALUES (100, 200, 27, (100 << 24) | 100, 1, 0, 0, 0, 0),"
        " (300, 400, 27, (101 << 24) | 101, 1, 0, 0, 0, 0);"
        "CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);"
        "INSERT INTO PROCESSES VALUES (100 << 24, 100, 'python3'), (101 << 24, 101, 'python3');"
        "CREATE TABLE SL_PROCESS_INFO (globalPid INTEGER NOT NULL, pid INTEGER NOT NULL,"
        " parentPid INTEGER, commandLine TEXT);"
        "INSERT INTO SL_PROCESS_INFO VALUES (100 << 24, 100, 77, 'python3 train.py'),"
        " (101 << 24, 101, 100, 'python3 train.py');");
  sqlite3_close (db);

  g_autoptr (JsonNode) root = info_json (path);
  JsonObject *o = json_node_get_object (root);
  JsonArray *procs = json_object_get_array_member (o, "processes");
  guint seen = 0;
  g_assert_cmpstr (json_object_get_string_member (find_table (json_object_get_array_member (
                                                                o, "tables"), "SL_PROCESS_INFO"),
                                                  "state"), ==, "loaded");
  for (guint i = 0; i < json_array_get_length (procs); i++)
    {
      JsonObject *pr = json_array_get_object_element (procs, i);
      gint64 pid = json_object_get_int_member (pr, "pid");
      g_assert_cmpstr (json_object_get_string_member (pr, "command_line"), ==, "python3 train.py");
      g_assert_cmpint (json_object_get_int_member (pr, "parent_pid"), ==, pid == 100 ? 77 : 100);
      seen++;
    }
  g_assert_cmpuint (seen, ==, 2);

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                &status, &error);
  g_assert_no_error (error);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "parent pid 77 · python3 train.py"));
  g_assert_nonnull (strstr (out, "parent pid 100 · python3 train.py"));
}

/* Issue 17: the trace's rank.  An nsys export's recorded environment (META_DATA_CAPTURE's
 * PROCESS_0:ENVIRONMENT_VARIABLE rows) says it: the real traces of a SLURM job and of a torchrun
 * job, planted ones for the order of the variables, values that are no rank, and SL_PROCESS_INFO's
 * ranks of a recording (one shared rank: the trace's; several: none). */
static gint64
rank_of_planted (const char *name,
                 const char *sql)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
  g_autoptr (GError) error = NULL;
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec (db,
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO StringIds VALUES (1, 'read');"
        "CREATE TABLE OSRT_API (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,"
        " nameId INTEGER, returnValue INTEGER, nestingLevel INTEGER, callchainId INTEGER);"
        "INSERT INTO OSRT_API VALUES (100, 200, 27, (100 << 24) | 100, 1, 0, 0, 0),"
        " (300, 400, 27, (101 << 24) | 101, 1, 0, 0, 0);"
        "CREATE TABLE META_DATA_CAPTURE (name TEXT, value TEXT);");
  exec (db, sql);
  sqlite3_close (db);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  return sl_trace_get_rank (trace) * 1000 + sl_trace_get_world_size (trace);
}

static void
test_trace_rank (void)
{
  static const struct
  {
    const char *trace;
    gint64      rank;
  } real[] = {
    { "nsys/nsys-2023.3-t4-openmp.sqlite", 0 },     /* SLURM_PROCID="0" */
    { "nsys/nsys-2024.6-fuser-8gpu-nvtx.sqlite", 0 }, /* RANK="0", SLURM_PROCID="0" */
    { "nsys/nsys-2026.1-tiny.sqlite", -1 },
    { "nsys/nsys-2021-old-layout.sqlite", -1 },      /* no META_DATA_CAPTURE */
  };

  for (guint i = 0; i < G_N_ELEMENTS (real); i++)
    {
      g_autofree char *path = sl_test_trace_path (real[i].trace);
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (sl_trace_get_rank (trace), ==, real[i].rank);
      g_autoptr (JsonNode) root = info_json (path);
      JsonObject *o = json_node_get_object (root);
      if (real[i].rank < 0)
        g_assert_true (json_object_get_null_member (o, "rank"));
      else
        g_assert_cmpint (json_object_get_int_member (o, "rank"), ==, real[i].rank);
    }

  const char *env = "INSERT INTO META_DATA_CAPTURE VALUES ";
  g_autofree char *a = g_strconcat (env, "('PROCESS_0:ENVIRONMENT_VARIABLE', 'SLURM_PROCID=\"3\"'),"
                                    "('PROCESS_0:ENVIRONMENT_VARIABLE', 'RANK=\"12\"'),"
                                    "('PROCESS_0:ENVIRONMENT_VARIABLE', 'WORLD_SIZE=\"16\"'),"
                                    "('PROCESS_0:ENVIRONMENT_VARIABLE', 'SLURM_NTASKS=\"4\"')",
                                    NULL);
  g_assert_cmpint (rank_of_planted ("rank-a.sqlite", a), ==, 12 * 1000 + 16);
  /* RANK no number: the next one that is, with its own size */
  g_autofree char *b = g_strconcat (env, "('PROCESS_0:ENVIRONMENT_VARIABLE', 'RANK=\"x1\"'),"
                                    "('PROCESS_0:ENVIRONMENT_VARIABLE', 'PMI_RANK=\"7\"'),"
                                    "('PROCESS_0:ENVIRONMENT_VARIABLE', 'WORLD_SIZE=\"16\"')",
                                    NULL);
  g_assert_cmpint (rank_of_planted ("rank-b.sqlite", b), ==, 7 * 1000);
  /* unquoted, negative, huge, a longer name that starts like one, another process's */
  g_autofree char *c = g_strconcat (env, "('PROCESS_0:ENVIRONMENT_VARIABLE', 'RANK=-1'),"
                                    "('PROCESS_0:ENVIRONMENT_VARIABLE', 'PMI_RANK=99999999999'),"
                                    "('PROCESS_0:ENVIRONMENT_VARIABLE', 'RANKS=\"2\"'),"
                                    "('PROCESS_0:ENVIRONMENT_VARIABLE', 'LOCAL_RANK=\"2\"'),"
                                    "('PROCESS_1:ENVIRONMENT_VARIABLE', 'RANK=\"2\"'),"
                                    "('PROCESS_0:ENVIRONMENT_VARIABLE', NULL),"
                                    "('PROCESS_0:ENVIRONMENT_VARIABLE', 'OMPI_COMM_WORLD_RANK=5')",
                                    NULL);
  g_assert_cmpint (rank_of_planted ("rank-c.sqlite", c), ==, 5 * 1000);
  /* a recording: the rank its processes share, none when they differ */
  const char *info = "CREATE TABLE SL_PROCESS_INFO (globalPid INTEGER NOT NULL, pid INTEGER NOT"
                     " NULL, parentPid INTEGER, commandLine TEXT, rank INTEGER);";
  g_autofree char *d = g_strconcat (info, "INSERT INTO SL_PROCESS_INFO VALUES (100 << 24, 100, 1, "
                                    "'a', 6), (101 << 24, 101, 100, 'b', 6), (102 << 24, 102, 1,"
                                    " 'c', NULL)", NULL);
  g_assert_cmpint (rank_of_planted ("rank-d.sqlite", d), ==, 6 * 1000);
  g_autofree char *e = g_strconcat (info, "INSERT INTO SL_PROCESS_INFO VALUES (100 << 24, 100, 1, "
                                    "'a', 6), (101 << 24, 101, 100, 'b', 2)", NULL);
  g_assert_cmpint (rank_of_planted ("rank-e.sqlite", e), ==, -1000);
  /* a bad rank in the table is no rank (and no crash) */
  g_autofree char *f = g_strconcat (info, "INSERT INTO SL_PROCESS_INFO VALUES (100 << 24, 100, 1, "
                                    "'a', -4), (101 << 24, 101, 1, 'b', 'two'), (102 << 24, 102,"
                                    " 1, 'c', 1e30)", NULL);
  g_assert_cmpint (rank_of_planted ("rank-f.sqlite", f), ==, -1000);
  {
    g_autofree char *path = g_build_filename (sl_test_tmpdir (), "rank-f.sqlite", NULL);
    g_autoptr (GError) error = NULL;
    g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
    const char *const *w = sl_trace_get_warnings (trace);
    gboolean said = FALSE;
    for (guint i = 0; w[i] != NULL; i++)
      said |= strstr (w[i], "SL_PROCESS_INFO: 3 ranks are not whole numbers") != NULL;
    g_assert_true (said);
  }
}

static void
test_not_loaded (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autoptr (GError) error = NULL;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no tiny trace");
      return;
    }
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_KERNELS, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlInventory) inv = sl_inventory_new (trace, &error);
  g_assert_no_error (error);
  const SlTableInfo *api = sl_inventory_find_table (inv, "CUPTI_ACTIVITY_KIND_RUNTIME");
  g_assert_nonnull (api);
  g_assert_cmpint (api->state, ==, SL_TABLE_NOT_LOADED);
  g_assert_cmpint (api->loaded, ==, 0);
  g_assert_cmpint (api->skipped, ==, api->rows);
  g_assert_cmpstr (api->why, ==, "not needed by this command");
  const SlTableInfo *kernels = sl_inventory_find_table (inv, "CUPTI_ACTIVITY_KIND_KERNEL");
  g_assert_cmpint (kernels->state, ==, SL_TABLE_LOADED);
  g_assert_cmpint (kernels->loaded, ==, kernels->rows);
}

/* A load that skips OS runtime calls and samples skips their call chains too, for the same
 * reason (they were listed "not read by Sightline yet"); a full load reads them. */
static void
test_chains_not_loaded (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-osrt-sampling.sqlite");
  static const char *const chains[] = { "OSRT_CALLCHAINS", "SAMPLING_CALLCHAINS" };

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no osrt-sampling trace");
      return;
    }
  for (guint full = 0; full < 2; full++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, full ? SL_LOAD_ALL : SL_LOAD_KERNELS, NULL,
                                                 NULL, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (SlInventory) inv = sl_inventory_new (trace, &error);
      g_assert_no_error (error);
      for (guint i = 0; i < G_N_ELEMENTS (chains); i++)
        {
          const SlTableInfo *t = sl_inventory_find_table (inv, chains[i]);
          g_assert_nonnull (t);
          g_assert_cmpint (t->rows, >, 0);
          if (full)
            {
              g_assert_cmpint (t->state, ==, SL_TABLE_LOADED);
              g_assert_cmpint (t->loaded, ==, t->rows);
              continue;
            }
          g_assert_cmpint (t->state, ==, SL_TABLE_NOT_LOADED);
          g_assert_cmpint (t->loaded, ==, 0);
          g_assert_cmpint (t->skipped, ==, t->rows);
          g_assert_cmpstr (t->why, ==, "not needed by this command");
        }
    }

  /* CUDA calls' backtraces (issue 30) go with the calls */
  g_autofree char *cuda = sl_test_trace_path ("nsys/nsys-2021-cuda-backtraces.sqlite");
  for (guint full = 0; full < 2; full++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (cuda, full ? SL_LOAD_CUDA_API : SL_LOAD_KERNELS,
                                                 NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (SlInventory) inv = sl_inventory_new (trace, &error);
      g_assert_no_error (error);
      const SlTableInfo *t = sl_inventory_find_table (inv, "CUDA_CALLCHAINS");
      g_assert_nonnull (t);
      g_assert_cmpint (t->rows, ==, 148);
      g_assert_cmpint (t->state, ==, full ? SL_TABLE_LOADED : SL_TABLE_NOT_LOADED);
      g_assert_cmpint (t->loaded, ==, full ? 148 : 0);
      if (!full)
        g_assert_cmpstr (t->why, ==, "not needed by this command");
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/app/info/real-traces", test_real_traces);
  g_test_add_func ("/app/info/generated", test_generated);
  g_test_add_func ("/app/info/process-info", test_process_info);
  g_test_add_func ("/app/info/trace-rank", test_trace_rank);
  g_test_add_func ("/model/inventory/not-loaded", test_not_loaded);
  g_test_add_func ("/model/inventory/chains-not-loaded", test_chains_not_loaded);
  return g_test_run ();
}
