/* sl-inventory.c: what a trace file holds, table by table, next to what the loader made of it.
 *
 * The loader records each table its row loop read (rows, and the rows it skipped or repaired by
 * cause: SlTableRead in sl-trace-private.h); this file lists every table of the file, counts the
 * ones the loader did not read with SQL (nsys exports have 40 … 90 tables, most of them small or
 * empty), labels the trace's copy of nsys's own diagnostics and reads the records a recording
 * lost.  It runs once, when
 * `info` or the About page asks, not during a load.
 */
#include "sl-inventory.h"

#include "sl-trace-private.h"

struct _SlInventory
{
  GArray *tables;       /* SlTableInfo, by name */
  GArray *diagnostics;  /* SlInventoryDiagnostic, by time */
  GArray *lost;         /* SlLostRecords, by source */
};

/* Tables read whole (or looked up as needed) outside the row loop, and so never in the
 * loader's record: names, enum labels, the schema version; and the ones this file reads. */
static const char *const metadata_tables[] = {
  "StringIds",
  "META_DATA_EXPORT",
  "EXPORT_META_DATA",
  "ENUM_CUDA_MEMCPY_OPER",
  "ENUM_CUDA_MEM_KIND",
  "ENUM_CUPTI_SYNC_TYPE",
  "ENUM_NSYS_EVENT_CLASS",
  "ENUM_CUDA_KERNEL_LAUNCH_TYPE",
  "ENUM_CUDA_KRENEL_LAUNCH_TYPE",
  "ENUM_SAMPLING_THREAD_STATE",
  "ENUM_SCHEDULING_THREAD_BLOCK",
  "DIAGNOSTIC_EVENT",
  "ENUM_DIAGNOSTIC_SEVERITY_LEVEL",
  "ENUM_DIAGNOSTIC_SOURCE_TYPE",
  "ENUM_CUDA_UNIF_MEM_MIGRATION",
  "SIGHTLINE_DROPPED_RECORDS",
};

static void
table_info_clear (gpointer p)
{
  SlTableInfo *t = p;
  g_free (t->name);
  g_free (t->why);
}

static void
diagnostic_clear (gpointer p)
{
  SlInventoryDiagnostic *d = p;
  g_free (d->severity);
  g_free (d->source);
  g_free (d->text);
}

static void
lost_clear (gpointer p)
{
  SlLostRecords *l = p;
  g_free (l->source);
}

void
sl_inventory_free (SlInventory *inv)
{
  if (inv == NULL)
    return;
  g_array_unref (inv->tables);
  g_array_unref (inv->diagnostics);
  g_array_unref (inv->lost);
  g_free (inv);
}

const char *
sl_table_state_label (SlTableState state)
{
  switch (state)
    {
    case SL_TABLE_LOADED:
      return "loaded";
    case SL_TABLE_METADATA:
      return "metadata";
    case SL_TABLE_NOT_LOADED:
      return "not loaded";
    case SL_TABLE_UNKNOWN:
    default:
      return "not read by Sightline yet";
    }
}

/* Text of a column as valid UTF-8 (a file's bytes are untrusted), or NULL. */
static char *
col_text (sqlite3_stmt *stmt,
          int           col)
{
  const char *v = (const char *) sqlite3_column_text (stmt, col);
  return v != NULL ? g_utf8_make_valid (v, -1) : NULL;
}

static gint64
count_rows (sqlite3    *db,
            const char *table)
{
  char *sql = sqlite3_mprintf ("SELECT count(*) FROM \"%w\"", table);
  sqlite3_stmt *stmt = NULL;
  gint64 n = -1;

  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    n = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_free (sql);
  return n;
}

static void
append_part (GString    *why,
             guint64     n,
             const char *what)
{
  if (n == 0)
    return;
  if (why->len > 0)
    g_string_append (why, ", ");
  g_string_append_printf (why, "%" G_GUINT64_FORMAT " %s", n, what);
}

/* "skipped: 3 with a NULL start or end; repaired: 1 ended before it started" */
static char *
describe_read (const SlTableRead *r)
{
  g_autoptr (GString) skipped = g_string_new (NULL);
  g_autoptr (GString) repaired = g_string_new (NULL);

  append_part (skipped, r->null_time, "with a NULL start or end");
  append_part (skipped, r->bad_type, "whose start or end is not a number");
  append_part (skipped, r->null_owner, "naming no thread or process");
  append_part (skipped, r->not_events,
               "that are not events (NVTX domains, other event classes …)");
  append_part (repaired, r->bad_range, "with times clamped to ±73 years");
  append_part (repaired, r->bad_order, "ending before they start (end set to start)");
  if (skipped->len > 0 && repaired->len > 0)
    return g_strdup_printf ("skipped: %s; repaired: %s", skipped->str, repaired->str);
  if (skipped->len > 0)
    return g_strdup_printf ("skipped: %s", skipped->str);
  if (repaired->len > 0)
    return g_strdup_printf ("repaired: %s", repaired->str);
  return g_strdup ("");
}

static const SlTableRead *
find_read (SlTrace    *trace,
           const char *table)
{
  const SlTableRead *found = NULL;

  /* the last record wins: a table read twice (it is not, today) says what the last read did */
  for (guint i = 0; i < trace->table_reads->len; i++)
    {
      const SlTableRead *r = &g_array_index (trace->table_reads, SlTableRead, i);
      if (g_strcmp0 (r->table, table) == 0)
        found = r;
    }
  return found;
}

/* Tables the loader reads in the step of another (a call's backtraces with the calls): a command
 * that does not need that one skips them too, and the reason is that one's. */
static const char *const companions[][2] = {
  { "OSRT_CALLCHAINS", "OSRT_API" },
  { "SAMPLING_CALLCHAINS", "COMPOSITE_EVENTS" },
  { "CUDA_CALLCHAINS", "CUPTI_ACTIVITY_KIND_RUNTIME" },
  { "CUPTI_ACTIVITY_KIND_CUDA_EVENT", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" },
};

static const SlTableRead *
find_companion_skip (SlTrace    *trace,
                     const char *table)
{
  for (guint i = 0; i < G_N_ELEMENTS (companions); i++)
    if (g_strcmp0 (companions[i][0], table) == 0)
      {
        const SlTableRead *r = find_read (trace, companions[i][1]);
        return r != NULL && r->not_read != NULL ? r : NULL;
      }
  return NULL;
}

static gboolean
is_metadata (const char *table)
{
  for (guint i = 0; i < G_N_ELEMENTS (metadata_tables); i++)
    if (g_strcmp0 (metadata_tables[i], table) == 0)
      return TRUE;
  return FALSE;
}

static void
describe_table (SlTrace     *trace,
                sqlite3     *db,
                const char  *name,
                SlTableInfo *t)
{
  const SlTableRead *r = find_read (trace, name);

  if (r == NULL)
    r = find_companion_skip (trace, name);
  t->name = g_strdup (name);
  if (r != NULL && r->not_read == NULL)
    {
      guint64 skipped = r->null_time + r->bad_type + r->null_owner + r->not_events;
      t->state = SL_TABLE_LOADED;
      t->rows = (gint64) r->rows;
      t->skipped = (gint64) MIN (skipped, r->rows);
      t->loaded = t->rows - t->skipped;
      t->repaired = (gint64) (r->bad_range + r->bad_order);
      t->why = describe_read (r);
      return;
    }
  t->rows = count_rows (db, name);
  if (t->rows < 0)
    {
      t->state = r != NULL ? SL_TABLE_NOT_LOADED : SL_TABLE_UNKNOWN;
      t->why = g_strdup_printf ("cannot be counted: %s", sqlite3_errmsg (db));
      return;
    }
  if (r != NULL)
    {
      t->state = SL_TABLE_NOT_LOADED;
      t->skipped = t->rows;
      t->why = g_strdup (r->not_read);
    }
  else if (is_metadata (name))
    {
      t->state = SL_TABLE_METADATA;
      t->loaded = t->rows;
      t->why = g_strdup ("");
    }
  else
    {
      t->state = SL_TABLE_UNKNOWN;
      t->skipped = t->rows;
      t->why = g_strdup (sl_table_state_label (SL_TABLE_UNKNOWN));
    }
}

static gboolean
has_table (sqlite3    *db,
           const char *name)
{
  sqlite3_stmt *stmt = NULL;
  gboolean found = FALSE;

  if (sqlite3_prepare_v2 (db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1,
                          &stmt, NULL) == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, name, -1, SQLITE_STATIC);
      found = sqlite3_step (stmt) == SQLITE_ROW;
    }
  sqlite3_finalize (stmt);
  return found;
}

/* The trace's diagnostics (read with it: sl-reader-meta.c), with their enums' labels (the file's,
 * else nsys's), numbers where there is none. */
static void
copy_diagnostics (SlInventory *inv,
                  SlTrace     *trace)
{
  for (guint i = 0; i < sl_trace_get_n_diagnostics (trace); i++)
    {
      const SlDiagnostic *d = sl_trace_get_diagnostic (trace, i);
      const char *severity = _sl_trace_enum_find (trace, SL_ENUM_DIAGNOSTIC_SEVERITY, d->severity);
      const char *source = _sl_trace_enum_find (trace, SL_ENUM_DIAGNOSTIC_SOURCE, d->source);
      SlInventoryDiagnostic c = {
        d->timestamp,
        severity != NULL ? g_strdup (severity) : g_strdup_printf ("%d", d->severity),
        source != NULL ? g_strdup (source) : g_strdup_printf ("%d", d->source),
        g_strdup (sl_trace_str (trace, d->text)),
      };
      g_array_append_val (inv->diagnostics, c);
    }
}

static void
read_lost (SlInventory *inv,
           sqlite3     *db)
{
  sqlite3_stmt *stmt = NULL;

  if (has_table (db, "SIGHTLINE_DROPPED_RECORDS")
      && sqlite3_prepare_v2 (db, "SELECT coalesce(source, 'unknown'), sum(count) "
                                 "FROM SIGHTLINE_DROPPED_RECORDS GROUP BY 1 ORDER BY 1",
                             -1, &stmt, NULL) == SQLITE_OK)
    while (sqlite3_step (stmt) == SQLITE_ROW)
      {
        SlLostRecords l = { col_text (stmt, 0), sqlite3_column_int64 (stmt, 1) };
        if (l.source == NULL)
          l.source = g_strdup ("unknown");
        g_array_append_val (inv->lost, l);
      }
  sqlite3_finalize (stmt);
}

static SlInventory *
inventory_alloc (guint n_tables)
{
  SlInventory *inv = g_new0 (SlInventory, 1);
  inv->tables = g_array_sized_new (FALSE, TRUE, sizeof (SlTableInfo), n_tables);
  g_array_set_clear_func (inv->tables, table_info_clear);
  inv->diagnostics = g_array_new (FALSE, TRUE, sizeof (SlInventoryDiagnostic));
  g_array_set_clear_func (inv->diagnostics, diagnostic_clear);
  inv->lost = g_array_new (FALSE, TRUE, sizeof (SlLostRecords));
  g_array_set_clear_func (inv->lost, lost_clear);
  return inv;
}

/* A JSON trace has no tables: its "tables" are the kinds of events the reader took from
 * traceEvents (sl-reader-json.c notes each), all loaded, the trouble on the first. */
static SlInventory *
json_inventory (SlTrace *trace)
{
  SlInventory *inv = inventory_alloc (trace->table_reads->len);

  for (guint i = 0; i < trace->table_reads->len; i++)
    {
      const SlTableRead *r = &g_array_index (trace->table_reads, SlTableRead, i);
      SlTableInfo t = { 0 };
      describe_table (trace, NULL, r->table, &t);
      g_array_append_val (inv->tables, t);
    }
  return inv;
}

SlInventory *
sl_inventory_new (SlTrace *trace,
                  GError **error)
{
  g_return_val_if_fail (trace != NULL, NULL);

  /* a JSON trace has no tables to list; merged files have theirs under their labels */
  if (trace->is_json || sl_trace_get_n_sources (trace) > 1)
    return json_inventory (trace);

  sqlite3 *db = _sl_trace_open_db (trace->path, FALSE, error);
  sqlite3_stmt *stmt = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  if (db == NULL)
    return NULL;
  if (sqlite3_prepare_v2 (db, "SELECT name FROM sqlite_master WHERE type = 'table' "
                              "AND name NOT LIKE 'sqlite_%' ORDER BY name",
                          -1, &stmt, NULL) != SQLITE_OK)
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN, "%s: cannot list its tables: %s",
                   trace->path, sqlite3_errmsg (db));
      sqlite3_close (db);
      return NULL;
    }
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      char *name = col_text (stmt, 0);
      if (name != NULL)
        g_ptr_array_add (names, name);
    }
  sqlite3_finalize (stmt);

  SlInventory *inv = inventory_alloc (names->len);

  for (guint i = 0; i < names->len; i++)
    {
      SlTableInfo t = { 0 };
      describe_table (trace, db, g_ptr_array_index (names, i), &t);
      g_array_append_val (inv->tables, t);
    }
  copy_diagnostics (inv, trace);
  read_lost (inv, db);
  sqlite3_close (db);
  return inv;
}

guint
sl_inventory_get_n_tables (SlInventory *inv)
{
  return inv->tables->len;
}

const SlTableInfo *
sl_inventory_get_table (SlInventory *inv,
                        guint        i)
{
  g_return_val_if_fail (i < inv->tables->len, NULL);
  return &g_array_index (inv->tables, SlTableInfo, i);
}

const SlTableInfo *
sl_inventory_find_table (SlInventory *inv,
                         const char  *name)
{
  for (guint i = 0; i < inv->tables->len; i++)
    if (g_strcmp0 (g_array_index (inv->tables, SlTableInfo, i).name, name) == 0)
      return &g_array_index (inv->tables, SlTableInfo, i);
  return NULL;
}

guint
sl_inventory_get_n_diagnostics (SlInventory *inv)
{
  return inv->diagnostics->len;
}

const SlInventoryDiagnostic *
sl_inventory_get_diagnostic (SlInventory *inv,
                             guint        i)
{
  g_return_val_if_fail (i < inv->diagnostics->len, NULL);
  return &g_array_index (inv->diagnostics, SlInventoryDiagnostic, i);
}

guint
sl_inventory_get_n_lost (SlInventory *inv)
{
  return inv->lost->len;
}

const SlLostRecords *
sl_inventory_get_lost (SlInventory *inv,
                       guint        i)
{
  g_return_val_if_fail (i < inv->lost->len, NULL);
  return &g_array_index (inv->lost, SlLostRecords, i);
}
