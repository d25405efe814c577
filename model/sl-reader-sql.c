/* sl-reader-sql.c: the reader's SQLite helpers: schema probes, progress, and the one row loop
 * every table is read with.
 *
 * Each event table is one SELECT stepped once (10^6 … 10^7 rows): the loop checks the times of
 * a row inline and hands it to the table's row function, one call through a function pointer a
 * row; progress and cancellation are looked at every CHECK_EVERY rows.
 */
#include "sl-reader-private.h"

#include <string.h>

#define CHECK_EVERY 65536  /* rows between progress reports and cancellation checks */

/* Whether the file's schema has an object of that type ("table", "view") and name. */
static gboolean
schema_has (SlReader   *r,
            const char *type,
            const char *name)
{
  sqlite3_stmt *stmt = NULL;
  gboolean found = FALSE;

  if (sqlite3_prepare_v2 (r->db, "SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?",
                          -1, &stmt, NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, type, -1, SQLITE_STATIC);
      sqlite3_bind_text (stmt, 2, name, -1, SQLITE_STATIC);
      found = sqlite3_step (stmt) == SQLITE_ROW;
    }
  sqlite3_finalize (stmt);
  return found;
}

gboolean
_sl_reader_table_exists (SlReader   *r,
                         const char *table)
{
  return schema_has (r, "table", table);
}

/* Column names of a table, as a set. */
static GHashTable *
table_columns (SlReader   *r,
               const char *table)
{
  GHashTable *cols = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *sql = g_strdup_printf ("SELECT name FROM pragma_table_info('%s')", table);
  sqlite3_stmt *stmt = NULL;

  if (sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) == SQLITE_OK)
    while (sqlite3_step (stmt) == SQLITE_ROW)
      {
        const char *name = (const char *) sqlite3_column_text (stmt, 0);
        if (name != NULL)
          g_hash_table_add (cols, g_strdup (name));
      }
  sqlite3_finalize (stmt);
  return cols;
}

/* A SELECT for the columns a table has: each "{col:fallback}" in the template becomes col when
 * the table has it, else the fallback expression ("NULL", "0"): nsys adds and renames columns. */
static char *
expand_sql (GHashTable *cols,
            const char *template)
{
  GString *sql = g_string_sized_new (strlen (template));

  for (const char *p = template; *p != '\0'; p++)
    {
      const char *colon, *close;
      if (*p != '{' || (colon = strchr (p, ':')) == NULL || (close = strchr (colon, '}')) == NULL)
        {
          g_string_append_c (sql, *p);
          continue;
        }
      g_autofree char *name = g_strndup (p + 1, colon - p - 1);
      if (g_hash_table_contains (cols, name))
        g_string_append (sql, name);
      else
        g_string_append_len (sql, colon + 1, close - colon - 1);
      p = close;
    }
  return g_string_free (sql, FALSE);
}

/* Whether a table has rowids (not WITHOUT ROWID), for a "{rowid:…}" in a SELECT. */
static gboolean
has_rowid (SlReader   *r,
           const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT rowid FROM \"%s\" LIMIT 0", table);
  sqlite3_stmt *stmt = NULL;
  gboolean ok = sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) == SQLITE_OK;

  sqlite3_finalize (stmt);
  return ok;
}

gboolean
_sl_reader_has_column (SlReader   *r,
                       const char *table,
                       const char *column)
{
  g_autoptr (GHashTable) cols = table_columns (r, table);
  return g_hash_table_contains (cols, column);
}

gboolean
_sl_reader_view_exists (SlReader   *r,
                        const char *name)
{
  return schema_has (r, "view", name);
}


/* An estimate of a table's rows that costs O(log n): the largest rowid. */
static gint64
table_rows_estimate (SlReader   *r,
                     const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT max(rowid) FROM \"%s\"", table);
  sqlite3_stmt *stmt = NULL;
  gint64 n = 0;

  if (sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    n = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return MAX (n, 1);
}

void
_sl_reader_report_progress (SlReader   *r,
                            double      mine,
                            const char *what)
{
  if (r->progress == NULL)
    return;
  g_mutex_lock (&r->prog->lock);
  r->prog->part[r->slot] = mine;
  double total = MIN (r->prog->part[0] + r->prog->part[1], 1.0);
  if (total >= r->prog->last)
    {
      r->prog->last = total;
      r->progress (total, what, r->user_data);
    }
  g_mutex_unlock (&r->prog->lock);
}

static gboolean
tick (SlReader    *r,
      const char  *what,
      gint64       row,
      gint64       rows,
      GError     **error)
{
  if (g_cancellable_set_error_if_cancelled (r->cancellable, error))
    return FALSE;
  if (g_atomic_int_get (&r->prog->failed))
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_CORRUPT, "%s: loading stopped",
                   r->trace->path);
      return FALSE;
    }
  double part = MIN ((double) row / (double) rows, 1.0);
  _sl_reader_report_progress (r, r->done + r->share * part, what);
  return TRUE;
}

static void
report_trouble (SlReader           *r,
                const char         *table,
                const SlRowTrouble *t)
{
  const struct { guint64 n; const char *what; } kinds[] = {
    { t->null_time, "rows with a NULL start or end were skipped" },
    { t->bad_type, "rows whose start or end is not a number were skipped" },
    { t->bad_range, "times lie more than 73 years from time 0 and were clamped" },
    { t->bad_order, "rows end before they start; their end was set to their start" },
    { t->null_owner, "rows name no thread or process and were skipped" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (kinds[i].n > 0)
      _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " %s", table, kinds[i].n, kinds[i].what);
}

void
_sl_reader_not_read (SlReader   *r,
                     const char *table,
                     const char *why)
{
  SlTableRead read = { (char *) table, why, 0, 0, 0, 0, 0, 0, 0 };
  _sl_trace_note_table (r->trace, &read);
}

gboolean
_sl_reader_each_row (SlReader  *r,
                     SlRowLoop *loop,
                     GError   **error)
{
  sqlite3_stmt *stmt = NULL;
  g_autofree char *sql = NULL;
  gint64 rows = loop->what != NULL ? table_rows_estimate (r, loop->table) : 1, row = 0;
  int rc;

  if (strchr (loop->sql, '{') != NULL)
    {
      g_autoptr (GHashTable) cols = table_columns (r, loop->table);
      if (strstr (loop->sql, "{rowid:") != NULL && has_rowid (r, loop->table))
        g_hash_table_add (cols, g_strdup ("rowid"));
      sql = expand_sql (cols, loop->sql);
    }
  if (r->trace->live != NULL)
    {
      char *live = _sl_live_sql (r, loop->table, sql != NULL ? sql : loop->sql);
      if (live != NULL)
        {
          g_free (sql);
          sql = live;
        }
    }
  if (sqlite3_prepare_v2 (r->db, sql != NULL ? sql : loop->sql, -1, &stmt, NULL) != SQLITE_OK)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_CORRUPT, "%s: cannot read table %s: %s",
                   r->trace->path, loop->table, sqlite3_errmsg (r->db));
      return FALSE;
    }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SlEvent ev;

      if (G_UNLIKELY (++row % CHECK_EVERY == 0) && loop->what != NULL
          && !tick (r, loop->what, row, rows, error))
        {
          sqlite3_finalize (stmt);
          return FALSE;
        }
      if (loop->times && !_sl_reader_row_times (stmt, &ev.start, &ev.end, FALSE, &loop->trouble))
        continue;
      loop->row (r, stmt, &ev, loop);
    }
  sqlite3_finalize (stmt);
  if (loop->done != NULL)
    loop->done (r, loop);
  guint64 rows_read = (guint64) row;
  if (r->trace->live != NULL && rc == SQLITE_DONE)
    _sl_live_rows_done (r, loop, &rows_read);
  report_trouble (r, loop->table, &loop->trouble);
  if (rc == SQLITE_DONE)
    {
      if (!loop->some_rows)
        {
          const SlRowTrouble *t = &loop->trouble;
          SlTableRead read = {
            (char *) loop->table, NULL, rows_read, t->null_time, t->bad_type, t->null_owner,
            t->not_events, t->bad_range, t->bad_order,
          };
          _sl_trace_note_table (r->trace, &read);
        }
      return TRUE;
    }
  g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_CORRUPT,
               "%s: table %s is damaged (%s); the file may be truncated or corrupt",
               r->trace->path, loop->table, sqlite3_errmsg (r->db));
  return FALSE;
}
