/* test-cuda-events.c: CUDA event records and the waits that consumed them (sl-trace-events.c),
 * against nsys's own tables read with SQL, on every real trace; bad input; merge, cache and a
 * first look give the same links. */
#include <sqlite3.h>
#include <string.h>

#include "sl-lane.h"
#include "sl-test-util.h"
#include "sl-trace-private.h"

#define NONE "4294967295"

static gboolean
has_table (sqlite3    *db,
           const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                                          "AND name = '%s'", table);
  return sl_test_sql_int (db, sql) > 0;
}

static gboolean
has_column (sqlite3    *db,
            const char *table,
            const char *column)
{
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM pragma_table_info('%s') WHERE "
                                          "name = '%s'", table, column);
  return sl_test_sql_int (db, sql) > 0;
}

/* (process, correlation id, start) of a wait, as a key */
static char *
wait_key (guint64 pid,
          guint32 corr,
          SlTime  start)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT ":%u:%" G_GINT64_FORMAT, pid, corr, start);
}

/* What the model made of each wait: key -> the record's correlation id, or -1 when unlinked. */
static GHashTable *
model_waits (SlTrace *trace,
             guint    by_type[5],
             guint    linked_by_type[5])
{
  GHashTable *waits = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_SYNC)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          SlEventWait w;
          if (!sl_trace_get_event_wait (trace, lane->base + (guint32) k, &w))
            continue;
          gint64 corr = -1;
          by_type[MIN (ev->aux, 4)]++;
          if (w.record != G_MAXUINT)
            {
              const SlEventRecord *rec = sl_trace_get_event_record (trace, w.record);
              corr = rec->corr;
              linked_by_type[MIN (ev->aux, 4)]++;
              g_assert_cmpuint (w.how, !=, SL_EVENT_LINK_NONE);
              if (w.event_id != SL_NO_LINK)
                g_assert_cmpuint (rec->event_id, ==, w.event_id);
              /* the wait is among its record's */
              const guint32 *ids;
              guint n = sl_trace_get_event_record_waits (trace, w.record, &ids);
              gboolean found = FALSE;
              for (guint j = 0; j < n; j++)
                found |= ids[j] == lane->base + k;
              g_assert_true (found);
            }
          else
            g_assert_cmpuint (w.how, ==, SL_EVENT_LINK_NONE);
          /* the call that made it says the same */
          SlEventWait via_call;
          if (ev->link != SL_NO_LINK)
            {
              g_assert_true (sl_trace_get_event_wait (trace, ev->link, &via_call));
              g_assert_cmpuint (via_call.record, ==, w.record);
            }
          g_hash_table_insert (waits, wait_key (lane->global_pid, ev->corr, ev->start),
                               GINT_TO_POINTER ((gint) (corr + 1)));
        }
    }
  return waits;
}

/* Every record of CUPTI_ACTIVITY_KIND_CUDA_EVENT read, with its stream and its call; every wait
 * linked to the record SQL says (eventSyncId where the wait has one, else the event's last
 * record called before the wait's call), counted by syncType; the GPU work before each record
 * as SQL finds it. */
static void
test_real (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();

  for (guint f = 0; files[f] != NULL; f++)
    {
      const char *path = files[f];
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      sqlite3 *db = sl_test_open_db (path);
      gboolean events = has_table (db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT");
      gboolean syncs = has_table (db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")
                       && has_column (db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "eventId");

      /* records: every row, by process and correlation id, stream and event as the file says */
      gint64 n_rec = events ? sl_test_sql_int (db, "SELECT count(*) FROM "
                                                   "CUPTI_ACTIVITY_KIND_CUDA_EVENT") : 0;
      g_assert_cmpint (sl_trace_get_n_event_records (trace), ==, n_rec);
      if (n_rec > 0)
        {
          sqlite3_stmt *stmt;
          g_assert_cmpint (sqlite3_prepare_v2 (db,
                                               "SELECT (globalPid >> 24) << 24, correlationId, "
                                               "eventId, streamId, contextId, (SELECT count(*) "
                                               "FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE "
                                               "r.correlationId = e.correlationId AND "
                                               "(r.globalTid >> 24) = (e.globalPid >> 24)) "
                                               "FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT e ORDER BY 1, "
                                               "2", -1, &stmt, NULL), ==, SQLITE_OK);
          guint i = 0, with_call = 0, with_work = 0;
          while (sqlite3_step (stmt) == SQLITE_ROW)
            {
              const SlEventRecord *rec = sl_trace_get_event_record (trace, i++);
              g_assert_cmpuint (rec->global_pid, ==, (guint64) sqlite3_column_int64 (stmt, 0));
              g_assert_cmpuint (rec->corr, ==, sqlite3_column_int64 (stmt, 1));
              g_assert_cmpuint (rec->event_id, ==, sqlite3_column_int64 (stmt, 2));
              g_assert_cmpuint (rec->stream, ==, sqlite3_column_int64 (stmt, 3));
              g_assert_cmpuint (rec->context, ==, sqlite3_column_int64 (stmt, 4));
              if (sqlite3_column_int64 (stmt, 5) > 0)
                {
                  const SlLane *lane;
                  gsize k;
                  g_assert_true (sl_trace_resolve (trace, rec->call, &lane, &k));
                  g_assert_cmpuint (lane->kind, ==, SL_LANE_CUDA_API);
                  g_assert_cmpuint (lane->events[k].corr, ==, rec->corr);
                  g_assert_true (g_str_has_prefix (sl_trace_str (trace, lane->events[k].name),
                                                   "cudaEventRecord"));
                  guint back;
                  g_assert_true (sl_trace_find_event_record (trace, rec->call, &back));
                  g_assert_cmpuint (back, ==, i - 1);
                  with_call++;
                }
              if (rec->work != SL_NO_LINK)
                {
                  const SlLane *lane;
                  gsize k;
                  g_assert_true (sl_trace_resolve (trace, rec->work, &lane, &k));
                  g_assert_cmpuint (lane->stream_id, ==, rec->stream);
                  g_assert_cmpuint (lane->events[k].corr, <, rec->corr);
                  g_assert_cmpint (rec->time, >=, lane->events[k].end);
                  with_work++;
                }
            }
          sqlite3_finalize (stmt);
          g_assert_cmpuint (i, ==, n_rec);
          g_assert_cmpuint (with_call, ==, n_rec);   /* every real record has its call */
          /* the work before each record: the last kernel, copy or set of its stream by
           * correlation id, as SQL finds it */
          gint64 sql_work = sl_test_sql_int (db,
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT e WHERE EXISTS (SELECT 1 FROM ("
            "SELECT correlationId c, globalPid p, contextId x, streamId s FROM "
            "CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT correlationId, globalPid, contextId, "
            "streamId FROM CUPTI_ACTIVITY_KIND_MEMCPY) w WHERE w.p = e.globalPid AND w.x = "
            "e.contextId AND w.s = e.streamId AND w.c < e.correlationId)");
          if (!has_table (db, "CUPTI_ACTIVITY_KIND_MEMSET"))
            g_assert_cmpuint (with_work, ==, sql_work);
          else
            g_assert_cmpuint (with_work, >=, sql_work);
          g_test_message ("%s: %" G_GINT64_FORMAT " records, %u with GPU work before them",
                          files[f], n_rec, with_work);
        }

      /* waits: each synchronization row that names an event, and the record SQL links it to */
      guint by_type[5] = { 0 }, linked_by_type[5] = { 0 };
      g_autoptr (GHashTable) waits = model_waits (trace, by_type, linked_by_type);
      guint n_waits, n_linked;
      sl_trace_get_event_wait_counts (trace, &n_waits, &n_linked);
      g_assert_cmpuint (g_hash_table_size (waits), ==, n_waits);
      if (!syncs)
        {
          g_assert_cmpuint (n_waits, ==, 0);
          sqlite3_close (db);
          continue;
        }
      gboolean sync_ids = has_column (db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "eventSyncId")
                          && events && has_column (db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
                                                   "eventSyncId");
      g_autofree char *sql = g_strdup_printf (
        /* the type by what it waited for (the reader's rule: nsys's syncType is wrong in some
         * versions): an event on a stream is a stream's wait, an event alone a host's */
        "SELECT (s.globalPid >> 24) << 24, s.correlationId, s.start, "
        "CASE WHEN s.streamId != " NONE " THEN 2 ELSE 1 END, %s "
        "FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION s WHERE s.eventId != " NONE,
        !events ? "NULL"
        : sync_ids
          ? "CASE WHEN s.eventSyncId IS NOT NULL AND s.eventSyncId != " NONE " THEN (SELECT "
            "e.correlationId FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT e WHERE e.eventSyncId = "
            "s.eventSyncId AND e.globalPid >> 24 = s.globalPid >> 24) ELSE (SELECT "
            "max(e.correlationId) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT e WHERE e.eventId = "
            "s.eventId AND e.globalPid >> 24 = s.globalPid >> 24 AND e.correlationId < "
            "s.correlationId) END"
          : "(SELECT max(e.correlationId) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT e WHERE "
            "e.eventId = s.eventId AND e.globalPid >> 24 = s.globalPid >> 24 AND "
            "e.correlationId < s.correlationId)");
      sqlite3_stmt *stmt;
      g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
      guint rows = 0, linked = 0, sql_by_type[5] = { 0 }, sql_linked[5] = { 0 };
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          g_autofree char *key = wait_key ((guint64) sqlite3_column_int64 (stmt, 0),
                                           (guint32) sqlite3_column_int64 (stmt, 1),
                                           sqlite3_column_int64 (stmt, 2));
          gpointer v;
          g_assert_true (g_hash_table_lookup_extended (waits, key, NULL, &v));
          gint64 want = sqlite3_column_type (stmt, 4) == SQLITE_NULL
                        ? -1 : sqlite3_column_int64 (stmt, 4);
          g_assert_cmpint (GPOINTER_TO_INT (v) - 1, ==, want);
          guint type = (guint) CLAMP (sqlite3_column_int64 (stmt, 3), 0, 4);
          sql_by_type[type]++;
          rows++;
          if (want >= 0)
            {
              sql_linked[type]++;
              linked++;
            }
        }
      sqlite3_finalize (stmt);
      g_assert_cmpuint (rows, ==, n_waits);
      g_assert_cmpuint (linked, ==, n_linked);
      for (guint t = 0; t < 5; t++)
        {
          g_assert_cmpuint (by_type[t], ==, sql_by_type[t]);
          g_assert_cmpuint (linked_by_type[t], ==, sql_linked[t]);
          if (by_type[t] > 0)
            g_test_message ("%s: syncType %u: %u waits, %u linked", files[f], t, by_type[t],
                            linked_by_type[t]);
        }
      /* records' waits add up to the linked waits */
      guint sum = 0;
      for (guint i = 0; i < sl_trace_get_n_event_records (trace); i++)
        {
          const guint32 *ids;
          guint n = sl_trace_get_event_record_waits (trace, i, &ids);
          g_assert_cmpuint (n, ==, sl_trace_get_event_record (trace, i)->n_waits);
          for (guint j = 1; j < n; j++)
            {
              const SlLane *a, *b;
              gsize ia, ib;
              g_assert_true (sl_trace_resolve (trace, ids[j - 1], &a, &ia));
              g_assert_true (sl_trace_resolve (trace, ids[j], &b, &ib));
              g_assert_cmpint (a->events[ia].start, <=, b->events[ib].start);
            }
          sum += n;
        }
      g_assert_cmpuint (sum, ==, n_linked);
      sqlite3_close (db);
    }
}

/* The two traces with records, in numbers: what the report quotes. */
static void
test_counts (void)
{
  static const struct { const char *file; guint records, waits, linked; } cases[] = {
    { "nsys/nsys-2025.5-cuda-events.sqlite", 4000, 2000, 2000 },
    { "nsys/nsys-2024.2-memory-usage-cuda-events.sqlite", 280, 61, 60 },
    { "nsys/nsys-2026.2-mfu-2gpu.sqlite", 0, 333, 0 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *path = sl_test_trace_path (cases[c].file);
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, NULL);
      guint waits, linked;
      g_assert_nonnull (trace);
      sl_trace_get_event_wait_counts (trace, &waits, &linked);
      g_assert_cmpuint (sl_trace_get_n_event_records (trace), ==, cases[c].records);
      g_assert_cmpuint (waits, ==, cases[c].waits);
      g_assert_cmpuint (linked, ==, cases[c].linked);
    }
  /* 2025.5: each record of the 2000 waited for has exactly one wait, linked by eventSyncId,
   * and lies on a lane of its stream with a time */
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2025.5-cuda-events.sqlite");
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, NULL);
  guint with_waits = 0, markers = 0;
  for (guint i = 0; i < sl_trace_get_n_event_records (trace); i++)
    {
      const SlEventRecord *rec = sl_trace_get_event_record (trace, i);
      with_waits += rec->n_waits == 1;
      g_assert_cmpuint (rec->n_waits, <=, 1);
      g_assert_cmpint (rec->lane, >=, 0);
      g_assert_cmpint (rec->time, !=, G_MININT64);
    }
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const guint32 *ids;
      guint n = sl_trace_get_lane_event_records (trace, l, &ids);
      for (guint j = 0; j < n; j++)
        {
          g_assert_cmpint (sl_trace_get_event_record (trace, ids[j])->lane, ==, (gint) l);
          if (j > 0)
            g_assert_cmpint (sl_trace_get_event_record (trace, ids[j - 1])->time, <=,
                             sl_trace_get_event_record (trace, ids[j])->time);
        }
      markers += n;
    }
  g_assert_cmpuint (with_waits, ==, 2000);
  g_assert_cmpuint (markers, ==, 4000);
  SlEventWait w;
  /* a kernel is no wait; an id past the trace neither */
  g_assert_false (sl_trace_get_event_wait (trace, (guint32) sl_trace_get_n_events (trace), &w));
  g_assert_cmpuint (w.record, ==, G_MAXUINT);
}

static void
first_look_cb (SlTrace *first_look,
               gpointer user_data)
{
  guint waits, linked;

  /* a first look links what it has read */
  sl_trace_get_event_wait_counts (first_look, &waits, &linked);
  g_assert_cmpuint (linked, <=, waits);
  (void) user_data;
}

/* The same links whether the trace is loaded whole, as a first look then appended, merged with
 * itself (twice the records and waits, each file's linked within it) or read from the cache. */
static void
test_other_loads (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2025.5-cuda-events.sqlite");
  guint waits, linked;

  g_setenv ("SIGHTLINE_FIRST_LOOK_MIN", "0", TRUE);
  g_autoptr (SlTrace) look = sl_trace_load_progressive (path, first_look_cb, NULL, NULL, NULL,
                                                        NULL);
  g_unsetenv ("SIGHTLINE_FIRST_LOOK_MIN");
  g_assert_nonnull (look);
  sl_trace_get_event_wait_counts (look, &waits, &linked);
  g_assert_cmpuint (sl_trace_get_n_event_records (look), ==, 4000);
  g_assert_cmpuint (waits, ==, 2000);
  g_assert_cmpuint (linked, ==, 2000);

  const char *paths[] = { path, path };
  g_autoptr (SlTrace) merged = sl_trace_load_merged (paths, 2, SL_LOAD_ALL, NULL, NULL, NULL,
                                                     NULL, NULL);
  g_assert_nonnull (merged);
  sl_trace_get_event_wait_counts (merged, &waits, &linked);
  g_assert_cmpuint (sl_trace_get_n_event_records (merged), ==, 8000);
  g_assert_cmpuint (waits, ==, 4000);
  g_assert_cmpuint (linked, ==, 4000);
  for (guint i = 0; i < sl_trace_get_n_event_records (merged); i++)
    {
      const SlEventRecord *rec = sl_trace_get_event_record (merged, i);
      const guint32 *ids;
      guint n = sl_trace_get_event_record_waits (merged, i, &ids);
      for (guint j = 0; j < n; j++)
        {
          const SlLane *lane;
          gsize k;
          g_assert_true (sl_trace_resolve (merged, ids[j], &lane, &k));
          g_assert_cmpuint (lane->global_pid, ==, rec->global_pid);
        }
    }

  /* the cache: a second load reads the model back, with its records and waits */
  g_autofree char *home = g_build_filename (sl_test_tmpdir (), "cache", NULL);
  g_setenv ("XDG_CACHE_HOME", home, TRUE);
  g_setenv ("SIGHTLINE_CACHE", "1", TRUE);
  g_setenv ("SIGHTLINE_CACHE_MIN_MS", "0", TRUE);
  SlCacheStats before, after;
  g_autoptr (SlTrace) first = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, NULL);
  _sl_trace_cache_get_stats (&before);
  g_autoptr (SlTrace) cached = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, NULL);
  _sl_trace_cache_get_stats (&after);
  g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
  g_assert_cmpuint (after.hits, ==, before.hits + 1);
  sl_trace_get_event_wait_counts (cached, &waits, &linked);
  g_assert_cmpuint (sl_trace_get_n_event_records (cached), ==, 4000);
  g_assert_cmpuint (linked, ==, 2000);
  for (guint i = 0; i < 4000; i++)
    {
      const SlEventRecord *a = sl_trace_get_event_record (first, i);
      const SlEventRecord *b = sl_trace_get_event_record (cached, i);
      g_assert_cmpmem (a, sizeof *a, b, sizeof *b);
    }
}

/* Damaged tables: NULL and dangling ids, ids out of range or of the wrong type, records of no
 * process, no records at all: nothing crashes, the waits are shown unlinked. */
static void
test_bad_input (void)
{
  g_autofree char *copy = sl_test_copy_trace ("nsys/nsys-2024.2-memory-usage-cuda-events.sqlite",
                                              "bad-events.sqlite");
  /* a CUDA_EVENT table whose columns may be anything */
  sl_test_exec_sql (copy, "CREATE TABLE ev AS SELECT * FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT; "
                          "DROP TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT; "
                          "CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (deviceId, contextId, "
                          "streamId, correlationId, globalPid, eventId, eventSyncId); "
                          "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT SELECT deviceId, contextId, "
                          "streamId, correlationId, globalPid, eventId, NULL FROM ev; DROP TABLE ev; "
                          "UPDATE CUPTI_ACTIVITY_KIND_CUDA_EVENT SET globalPid = NULL WHERE rowid % 7 = 0; "
                          "UPDATE CUPTI_ACTIVITY_KIND_CUDA_EVENT SET eventId = NULL WHERE rowid % 7 = 1; "
                          "UPDATE CUPTI_ACTIVITY_KIND_CUDA_EVENT SET eventId = 'x' WHERE rowid % 7 = 2; "
                          "UPDATE CUPTI_ACTIVITY_KIND_CUDA_EVENT SET eventId = -5 WHERE rowid % 7 = 3; "
                          "UPDATE CUPTI_ACTIVITY_KIND_CUDA_EVENT SET streamId = 1e300, "
                          "correlationId = -1 WHERE rowid % 7 = 4; "
                          "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (NULL, NULL, NULL, "
                          "NULL, 1, 7, 3);");
  /* waits naming events no record has */
  sl_test_exec_sql (copy, "UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET eventId = 999999 "
                          "WHERE rowid % 3 = 0 AND eventId != " NONE);
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (copy, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  guint waits, linked;
  sl_trace_get_event_wait_counts (trace, &waits, &linked);
  g_assert_cmpuint (waits, ==, 61);
  g_assert_cmpuint (linked, <, 60);
  for (guint i = 0; i < sl_trace_get_n_event_records (trace); i++)
    {
      const SlEventRecord *rec = sl_trace_get_event_record (trace, i);
      g_assert_cmpuint (rec->event_id, !=, SL_NO_LINK);
      const guint32 *ids;
      guint n = sl_trace_get_event_record_waits (trace, i, &ids);
      g_assert_cmpuint (n, ==, rec->n_waits);
    }

  /* no records at all: every wait unknown */
  sl_test_exec_sql (copy, "DELETE FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT");
  g_autoptr (SlTrace) empty = sl_trace_load (copy, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sl_trace_get_event_wait_counts (empty, &waits, &linked);
  g_assert_cmpuint (sl_trace_get_n_event_records (empty), ==, 0);
  g_assert_cmpuint (waits, ==, 61);
  g_assert_cmpuint (linked, ==, 0);

  /* no eventId column (a 2021 export): no waits */
  g_autofree char *old = sl_test_trace_path ("nsys/nsys-2021-old-layout.sqlite");
  g_autoptr (SlTrace) old_trace = sl_trace_load (old, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sl_trace_get_event_wait_counts (old_trace, &waits, &linked);
  g_assert_cmpuint (waits, ==, 0);
}

#ifdef SL_GEN_PATH
/* At scale: sightline-gen --cuda-events writes a record before each stream wait, tied to it by
 * eventSyncId; every wait is linked to it, and linked to the same record by eventId alone once
 * the eventSyncIds are gone (4 event objects reused each step: the last record before the call
 * must be found among thousands of the same id). */
static void
test_gen_scale (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "gen-events.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };

  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "1M", "--gpus", "2", "--streams", "3",
               "--cuda-events", "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  const char *line = strstr (run.out, "cuda_events ");
  g_assert_nonnull (line);
  guint64 n = g_ascii_strtoull (line + 12, NULL, 10);
  g_assert_cmpuint (n, >, 1000);

  guint waits, linked;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, NULL);
  gint64 t0 = g_get_monotonic_time ();
  sl_trace_get_event_wait_counts (trace, &waits, &linked);
  g_test_message ("%" G_GUINT64_FORMAT " records, %u waits linked in %.1f ms", n, linked,
                  (g_get_monotonic_time () - t0) / 1000.0);
  g_assert_cmpuint (sl_trace_get_n_event_records (trace), ==, n);
  g_assert_cmpuint (waits, ==, n);
  g_assert_cmpuint (linked, ==, n);
  for (guint i = 0; i < n; i++)
    {
      const SlEventRecord *rec = sl_trace_get_event_record (trace, i);
      const SlLane *lane;
      gsize k;
      g_assert_cmpuint (rec->n_waits, ==, 1);
      g_assert_true (sl_trace_resolve (trace, rec->work, &lane, &k));
      g_assert_cmpint (lane->events[k].end, <=, rec->time);
      g_assert_cmpuint (lane->stream_id, ==, rec->stream);
    }

  sl_test_exec_sql (path, "UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET eventSyncId = NULL");
  g_autoptr (SlTrace) by_id = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, NULL);
  sl_trace_get_event_wait_counts (by_id, &waits, &linked);
  g_assert_cmpuint (linked, ==, n);
  for (guint i = 0; i < sl_trace_get_n_lanes (by_id); i++)
    {
      const SlLane *lane = sl_trace_get_lane (by_id, i);
      for (gsize k = 0; lane->kind == SL_LANE_SYNC && k < lane->n_events; k++)
        {
          SlEventWait a, b;
          if (!sl_trace_get_event_wait (by_id, lane->base + k, &b))
            continue;
          g_assert_true (sl_trace_get_event_wait (trace, lane->base + k, &a));
          g_assert_cmpuint (a.how, ==, SL_EVENT_LINK_SYNC_ID);
          g_assert_cmpuint (b.how, ==, SL_EVENT_LINK_LAST_RECORD);
          g_assert_cmpuint (a.record, ==, b.record);
        }
    }
}
#endif

/* Each synchronization's type is what its call did, on every shared trace, whatever syncType
 * nsys wrote (2024.2: 3 for cudaStreamWaitEvent, 1 for cudaDeviceSynchronize; 2025.5: 2 for
 * cudaStreamSynchronize): 1 an event's host wait, 2 a stream's wait for an event, 3 a stream
 * synchronize, 4 a context synchronize. */
static void
test_sync_types (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();
  const struct
  {
    const char *call;
    guint       type;
  } known[] = { { "cudaEventSynchronize", 1 }, { "cuEventSynchronize", 1 },
                { "cudaStreamWaitEvent", 2 },  { "cuStreamWaitEvent", 2 },
                { "cudaStreamSynchronize", 3 }, { "cuStreamSynchronize", 3 },
                { "cudaDeviceSynchronize", 4 }, { "cuCtxSynchronize", 4 } };
  guint checked[5] = { 0 };

  for (guint f = 0; files[f] != NULL; f++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (files[f], SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      /* (process, correlation id) -> the CUDA call's name */
      g_autoptr (GHashTable) calls = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, i);
          for (gsize k = 0; lane->kind == SL_LANE_CUDA_API && k < lane->n_events; k++)
            g_hash_table_insert (calls,
                                 g_strdup_printf ("%" G_GUINT64_FORMAT " %u", lane->global_pid,
                                                  lane->events[k].corr),
                                 (gpointer) sl_trace_str (trace, lane->events[k].name));
        }
      for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, i);
          for (gsize k = 0; lane->kind == SL_LANE_SYNC && k < lane->n_events; k++)
            {
              g_autofree char *key = g_strdup_printf ("%" G_GUINT64_FORMAT " %u",
                                                      lane->global_pid, lane->events[k].corr);
              const char *call = g_hash_table_lookup (calls, key);
              for (gsize c = 0; call != NULL && c < G_N_ELEMENTS (known); c++)
                if (g_str_has_prefix (call, known[c].call)
                    && (call[strlen (known[c].call)] == '\0'
                        || call[strlen (known[c].call)] == '_'))
                  {
                    if (lane->events[k].aux != known[c].type)
                      g_test_message ("%s: %s has sync type %u", files[f], call,
                                      lane->events[k].aux);
                    g_assert_cmpuint (lane->events[k].aux, ==, known[c].type);
                    checked[known[c].type]++;
                  }
            }
        }
    }
  /* each kind met on some real trace */
  for (guint t = 1; t <= 4; t++)
    g_assert_cmpuint (checked[t], >, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/cuda-events/real", test_real);
  g_test_add_func ("/model/cuda-events/counts", test_counts);
  g_test_add_func ("/model/cuda-events/sync-types", test_sync_types);
  g_test_add_func ("/model/cuda-events/other-loads", test_other_loads);
  g_test_add_func ("/model/cuda-events/bad-input", test_bad_input);
#ifdef SL_GEN_PATH
  g_test_add_func ("/model/cuda-events/gen-scale", test_gen_scale);
#endif
  return g_test_run ();
}
