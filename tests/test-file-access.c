/* test-file-access.c: the files of OS runtime calls (model/sl-file-access.c) against SQL on the
 * real nsys 2026.1 exports that hold OSRT_FILE_ACCESS_EVENTS, and on damaged copies. */
#include <sqlite3.h>
#include <string.h>

#include <glib.h>

#include "sl-file-access.h"
#include "sl-lane.h"
#include "sl-test-util.h"
#include "sl-trace.h"

static const char *const traces[] = {
  "nsys/nsys-2026.1-osrt-sampling.sqlite",
  "nsys/nsys-2026.1-um-overhead-file-access.sqlite",
};

/* The OSRT lane and index of the call of (pid, tid) with these times, FALSE when none. */
static gboolean
find_call (SlTrace       *trace,
           gint64         pid,
           gint64         tid,
           SlTime         start,
           SlTime         end,
           const SlLane **lane,
           gsize         *index)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *l = sl_trace_get_lane (trace, i);
      if (l->kind != SL_LANE_OSRT || l->thread < 0)
        continue;
      const SlThread *t = sl_trace_get_thread (trace, l->thread);
      if (t->pid != pid || t->tid != tid)
        continue;
      for (gsize k = sl_lane_lower_bound (l, start); k < l->n_events && l->events[k].start == start; k++)
        if (l->events[k].end == end)
          {
            *lane = l;
            *index = k;
            return TRUE;
          }
    }
  return FALSE;
}

/* Every OS runtime call gets the files of the accesses SQL puts inside it on its thread (the
 * innermost such call: on these exports every call is at nesting level 0), by name and action;
 * each access is found by one call, and calls with none get none. */
static void
test_real (void)
{
  for (gsize f = 0; f < G_N_ELEMENTS (traces); f++)
    {
      g_autofree char *path = sl_test_trace_path (traces[f]);
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      sqlite3 *db = sl_test_open_db (path);
      sqlite3_stmt *stmt = NULL;
      gsize n_access = 0, n_calls = 0, n_with = 0;

      /* the oracle: each access with the call of its thread that holds it, the deepest first */
      g_assert_cmpint (sqlite3_prepare_v2 (db,
        "SELECT d.processId, e.threadId, o.start, o.end, d.filePath, t.name, "
        "(SELECT count(*) FROM OSRT_FILE_ACCESS_EVENTS AS e2 JOIN OSRT_FILE_ACCESS_DESCRIPTORS AS d2 "
        "USING (fileAccessId) WHERE e2.threadId = e.threadId AND d2.processId = d.processId "
        "AND e2.startedAt >= o.start AND e2.endedAt <= o.end) "
        "FROM OSRT_FILE_ACCESS_EVENTS AS e JOIN OSRT_FILE_ACCESS_DESCRIPTORS AS d USING (fileAccessId) "
        "JOIN ENUM_OSRT_FILE_ACCESS_EVENT_TYPE AS t ON t.id = e.eventType "
        "JOIN OSRT_API AS o ON o.globalTid = (d.processId << 24) + e.threadId + "
        "(o.globalTid & ~0xFFFFFFFFFFFF) AND o.start <= e.startedAt AND o.end >= e.endedAt "
        "AND o.eventClass = 27 "
        "WHERE NOT EXISTS (SELECT 1 FROM OSRT_API AS o2 WHERE o2.globalTid = o.globalTid "
        "AND o2.eventClass = 27 AND o2.rowid != o.rowid AND o2.start >= o.start AND o2.end <= o.end "
        "AND o2.end - o2.start < o.end - o.start AND o2.start <= e.startedAt AND o2.end >= e.endedAt)",
        -1, &stmt, NULL), ==, SQLITE_OK);
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          const SlLane *lane = NULL;
          gsize index = 0;
          const char *file = (const char *) sqlite3_column_text (stmt, 4);
          const char *action = (const char *) sqlite3_column_text (stmt, 5);
          gboolean found = FALSE;

          g_assert_true (find_call (trace, sqlite3_column_int64 (stmt, 0), sqlite3_column_int64 (stmt, 1),
                                    sqlite3_column_int64 (stmt, 2), sqlite3_column_int64 (stmt, 3), &lane,
                                    &index));
          g_autoptr (GPtrArray) got = sl_trace_get_file_accesses (trace, lane, index, &error);
          g_assert_no_error (error);
          g_assert_cmpint (got->len, ==, sqlite3_column_int64 (stmt, 6));
          for (guint i = 0; i < got->len; i++)
            {
              const SlFileAccess *a = g_ptr_array_index (got, i);
              if (strcmp (a->path, file) == 0 && strcmp (a->action, action) == 0)
                found = TRUE;
            }
          g_assert_true (found);
          n_access++;
        }
      g_assert_cmpint (sqlite3_finalize (stmt), ==, SQLITE_OK);
      g_assert_cmpuint (n_access, ==, (gsize) sl_test_sql_int (db, "SELECT count(*) FROM OSRT_FILE_ACCESS_EVENTS"));
      g_assert_cmpuint (n_access, >, 0);

      /* every call: as many files as SQL has accesses inside it on its thread */
      for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
        {
          const SlLane *l = sl_trace_get_lane (trace, i);
          if (l->kind != SL_LANE_OSRT)
            continue;
          const SlThread *t = sl_trace_get_thread (trace, l->thread);
          for (gsize k = 0; k < l->n_events; k++)
            {
              g_autoptr (GPtrArray) got = sl_trace_get_file_accesses (trace, l, k, &error);
              g_assert_no_error (error);
              g_autofree char *sql = g_strdup_printf (
                "SELECT count(*) FROM OSRT_FILE_ACCESS_EVENTS AS e JOIN OSRT_FILE_ACCESS_DESCRIPTORS AS d "
                "USING (fileAccessId) WHERE d.processId = %u AND e.threadId = %u AND e.startedAt >= %"
                G_GINT64_FORMAT " AND e.endedAt <= %" G_GINT64_FORMAT, t->pid, t->tid, l->events[k].start,
                l->events[k].end);
              g_assert_cmpint (got->len, ==, sl_test_sql_int (db, sql));
              n_calls++;
              n_with += got->len > 0;
            }
        }
      g_test_message ("%s: %" G_GSIZE_FORMAT " accesses, %" G_GSIZE_FORMAT " calls, %" G_GSIZE_FORMAT
                      " with files", traces[f], n_access, n_calls, n_with);
      sqlite3_close (db);
    }
}

/* Damaged tables: no descriptors, NULL times and paths, an unknown action and no enum table, a
 * renamed column; never a crash, an error only where the file cannot be read. */
static void
test_bad (void)
{
  const char *const edits[] = {
    "DROP TABLE OSRT_FILE_ACCESS_DESCRIPTORS",
    "DROP TABLE ENUM_OSRT_FILE_ACCESS_EVENT_TYPE; UPDATE OSRT_FILE_ACCESS_EVENTS SET eventType = 99 "
    "WHERE rowid % 2 = 0",
    "CREATE TABLE x AS SELECT * FROM OSRT_FILE_ACCESS_DESCRIPTORS; DROP TABLE OSRT_FILE_ACCESS_DESCRIPTORS; "
    "CREATE TABLE OSRT_FILE_ACCESS_DESCRIPTORS (fileAccessId, processId, openedAt, closedAt, filePath); "
    "INSERT INTO OSRT_FILE_ACCESS_DESCRIPTORS SELECT fileAccessId, processId, openedAt, closedAt, NULL FROM x",
    "ALTER TABLE OSRT_FILE_ACCESS_EVENTS RENAME COLUMN threadId TO tid",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (edits); i++)
    {
      g_autofree char *name = g_strdup_printf ("bad-%" G_GSIZE_FORMAT ".sqlite", i);
      g_autofree char *path = sl_test_copy_trace (traces[1], name);
      g_autoptr (GError) error = NULL;

      sl_test_exec_sql (path, edits[i]);
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      gsize files = 0;
      for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, l);
          for (gsize k = 0; lane->kind == SL_LANE_OSRT && k < lane->n_events; k++)
            {
              g_autoptr (GPtrArray) got = sl_trace_get_file_accesses (trace, lane, k, &error);
              g_assert_no_error (error);
              for (guint j = 0; j < got->len; j++)
                {
                  const SlFileAccess *a = g_ptr_array_index (got, j);
                  g_assert_nonnull (a->path);
                  g_assert_nonnull (a->action);
                }
              files += got->len;
            }
        }
      /* without descriptors or a thread column no file; an unknown action or a NULL path keeps
       * every access */
      sqlite3 *db = sl_test_open_db (path);
      gint64 rows = sl_test_sql_int (db, "SELECT count(*) FROM OSRT_FILE_ACCESS_EVENTS");
      sqlite3_close (db);
      g_assert_cmpint ((gint64) files, ==, i == 1 || i == 2 ? rows : 0);
      g_test_message ("edit %" G_GSIZE_FORMAT ": %" G_GSIZE_FORMAT " files", i, files);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/file-access/real", test_real);
  g_test_add_func ("/model/file-access/bad", test_bad);
  return g_test_run ();
}
