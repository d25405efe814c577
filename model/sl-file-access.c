/* sl-file-access.c: the files of an OS runtime call, read from OSRT_FILE_ACCESS_EVENTS joined
 * with OSRT_FILE_ACCESS_DESCRIPTORS (nsys 2026.1+ exports with file-access tracing).
 *
 * A file access names no call: it has a thread id (threadId), its descriptor's process id, and
 * its own start and end, which on the real exports are those of the open/open64 call that made
 * it (same thread, same times, the call's name in apiCallId).  So an access belongs to the call
 * of that thread that encloses it, the innermost where OS runtime calls nest.  The model keeps
 * none of it (the tables are small and read only when a call is shown), so nothing about them
 * is in the trace, its live appends or its cache: each request is one query on the file.
 */
#include "sl-file-access.h"

#include <sqlite3.h>
#include <string.h>

#include "sl-lane.h"
#include "sl-trace-private.h"

/* ENUM_OSRT_FILE_ACCESS_EVENT_TYPE's names, for a file without the table */
static const char *const builtin_actions[] = {
  NULL, "Open", "Close", "Read", "Write", "MultiAction", "Metadata",
};

void
sl_file_access_free (SlFileAccess *access)
{
  if (access == NULL)
    return;
  g_free (access->path);
  g_free (access->action);
  g_free (access);
}

static gboolean
has_table (sqlite3    *db,
           const char *table)
{
  sqlite3_stmt *stmt = NULL;
  gboolean found = FALSE;

  if (sqlite3_prepare_v2 (db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1,
                          &stmt, NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, table, -1, SQLITE_STATIC);
      found = sqlite3_step (stmt) == SQLITE_ROW;
    }
  sqlite3_finalize (stmt);
  return found;
}

/* Whether another OS runtime call of the thread, inside `call` and shorter, holds [start, end]:
 * the access is that deeper call's.  A look near `start` in each OSRT lane of the thread. */
static gboolean
deeper_call_holds (SlTrace       *trace,
                   const SlLane  *lane,
                   const SlEvent *call,
                   SlTime         start,
                   SlTime         end)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *l = sl_trace_get_lane (trace, i);
      if (l->kind != SL_LANE_OSRT || l->thread != lane->thread || l->source != lane->source)
        continue;
      /* the calls starting at or before `start`, the nearest few (a lane's calls rarely overlap) */
      gsize k = start == G_MAXINT64 ? l->n_events : sl_lane_lower_bound (l, start + 1);
      for (gsize n = 0; k > 0 && n < 8; k--, n++)
        {
          const SlEvent *e = &l->events[k - 1];
          if (e == call || e->start > start || e->end < end)
            continue;
          if (e->start >= call->start && e->end <= call->end
              && e->end - e->start < call->end - call->start)
            return TRUE;
        }
    }
  return FALSE;
}

GPtrArray *
sl_trace_get_file_accesses (SlTrace      *trace,
                            const SlLane *lane,
                            gsize         index,
                            GError      **error)
{
  g_return_val_if_fail (trace != NULL, NULL);
  g_return_val_if_fail (lane != NULL, NULL);

  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) sl_file_access_free);
  if (lane->kind != SL_LANE_OSRT || index >= lane->n_events || lane->thread < 0
      || (guint) lane->thread >= sl_trace_get_n_threads (trace) || trace->is_json)
    return out;

  const SlThread *thread = sl_trace_get_thread (trace, lane->thread);
  const SlEvent *call = &lane->events[index];
  const char *path = trace->path;
  SlTime offset = 0;
  if (sl_trace_get_n_sources (trace) > 1)
    {
      if (lane->source >= sl_trace_get_n_sources (trace))
        return out;
      path = sl_trace_get_source (trace, lane->source)->path;
      offset = sl_trace_get_source (trace, lane->source)->offset;
    }
  if (path == NULL)
    return out;

  sqlite3 *db = _sl_trace_open_db (path, trace->live != NULL, error);
  if (db == NULL)
    {
      g_ptr_array_unref (out);
      return NULL;
    }
  if (!has_table (db, "OSRT_FILE_ACCESS_EVENTS") || !has_table (db, "OSRT_FILE_ACCESS_DESCRIPTORS"))
    {
      sqlite3_close (db);
      return out;
    }
  gboolean labels = has_table (db, "ENUM_OSRT_FILE_ACCESS_EVENT_TYPE");
  g_autofree char *sql = g_strdup_printf (
      "SELECT e.startedAt, e.endedAt, e.eventType, e.bytesProcessed, d.filePath, %s "
      "FROM OSRT_FILE_ACCESS_EVENTS AS e JOIN OSRT_FILE_ACCESS_DESCRIPTORS AS d "
      "ON d.fileAccessId = e.fileAccessId AND d.processId = ?1 "
      "%s WHERE e.threadId = ?2 AND e.startedAt >= ?3 AND e.endedAt <= ?4 "
      "ORDER BY e.startedAt, e.endedAt, e.rowid",
      labels ? "t.name" : "NULL",
      labels ? "LEFT JOIN ENUM_OSRT_FILE_ACCESS_EVENT_TYPE AS t ON t.id = e.eventType" : "");
  sqlite3_stmt *stmt = NULL;
  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
    {
      /* columns missing or renamed: the file says nothing we can read about its files */
      g_debug ("%s: file accesses not read: %s", path, sqlite3_errmsg (db));
      sqlite3_close (db);
      return out;
    }
  sqlite3_bind_int64 (stmt, 1, thread->pid);
  sqlite3_bind_int64 (stmt, 2, thread->tid);
  sqlite3_bind_int64 (stmt, 3, call->start - offset);
  sqlite3_bind_int64 (stmt, 4, call->end - offset);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      if (sqlite3_column_type (stmt, 0) == SQLITE_NULL || sqlite3_column_type (stmt, 1) == SQLITE_NULL)
        continue;
      SlTime start = _sl_time_add (sqlite3_column_int64 (stmt, 0), offset);
      SlTime end = _sl_time_add (sqlite3_column_int64 (stmt, 1), offset);
      if (end < start || deeper_call_holds (trace, lane, call, start, end))
        continue;
      gint64 type = sqlite3_column_int64 (stmt, 2);
      const char *name = (const char *) sqlite3_column_text (stmt, 5);
      const char *file = (const char *) sqlite3_column_text (stmt, 4);
      SlFileAccess *a = g_new0 (SlFileAccess, 1);
      a->path = g_strdup (file != NULL ? file : "");
      if (name != NULL)
        a->action = g_strdup (name);
      else if (type > 0 && type < (gint64) G_N_ELEMENTS (builtin_actions))
        a->action = g_strdup (builtin_actions[type]);
      else
        a->action = g_strdup_printf ("Access %" G_GINT64_FORMAT, type);
      a->bytes = sqlite3_column_type (stmt, 3) == SQLITE_INTEGER ? sqlite3_column_int64 (stmt, 3) : 0;
      g_ptr_array_add (out, a);
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return out;
}
