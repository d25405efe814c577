/* fuzz-sqlite-damage.c: real nsys exports damaged at the SQL level, then loaded and exercised.
 *
 * The input is not a file but a program of damage: its first byte picks one of the small real
 * traces in ../shared/traces, each following op (5 bytes + payload) names an operation, a table
 * and a column (modulo the file's own tables and columns, so every byte sequence means something),
 * and a row (modulo the table's rows; 0xffff: every row):
 *   0 NULL              1 text (payload bytes, not necessarily UTF-8)     2 a blob
 *   3 an extreme integer (±2^63-1, ±2^62, ±2^61, 2^32, -1, 0 …)          4 an integer (8 bytes)
 *   5 a real (8 bytes, NaN and infinities included)                        6 delete the row
 *   7 duplicate the row                                                    8 drop the table
 *   9 end before start (end = start - k)                                  10 swap two columns
 *  11 an id pointing nowhere (max(col) + k)
 * What a damaged file must give is a clear error or a trace with warnings, never a crash, a hang
 * or a sanitizer report: the reader, the model and every consumer of it are all downstream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "sl-fuzz.h"

/* small real exports of different nsys versions and contents (tiny, OS runtime + sampling, the
 * 2021 layout, NVTX on 8 GPUs, OS runtime with call chains); a few hundred KB each */
static const char *const base_names[] = {
  "nsys/nsys-2026.1-tiny.sqlite",
  "nsys/nsys-2026.1-osrt-sampling.sqlite",
  "nsys/nsys-2021-old-layout.sqlite",
  "nsys/nsys-2024.6-fuser-8gpu-nvtx.sqlite",
  "nsys/nsys-2023.1-cuckoo-osrt.sqlite",
};
#define N_BASES (sizeof base_names / sizeof base_names[0])

typedef struct
{
  char      *name;
  GPtrArray *columns;  /* char * */
} Table;

typedef struct
{
  char      *bytes;
  gsize      len;
  GPtrArray *tables;   /* Table * */
} Base;

static Base bases[N_BASES];
static guint n_bases;

static void
table_free (gpointer p)
{
  Table *t = p;
  g_free (t->name);
  g_ptr_array_unref (t->columns);
  g_free (t);
}

/* The tables and columns of a base, read once: the damage ops index them. */
static GPtrArray *
read_schema (const char *path)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  GPtrArray *tables = g_ptr_array_new_with_free_func (table_free);

  if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
    abort ();
  sqlite3_prepare_v2 (db, "SELECT name FROM sqlite_master WHERE type = 'table' "
                          "AND name NOT LIKE 'sqlite_%' ORDER BY name", -1, &st, NULL);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      Table *t = g_new0 (Table, 1);
      t->name = g_strdup ((const char *) sqlite3_column_text (st, 0));
      t->columns = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (tables, t);
    }
  sqlite3_finalize (st);
  for (guint i = 0; i < tables->len; i++)
    {
      Table *t = g_ptr_array_index (tables, i);
      g_autofree char *sql = g_strdup_printf ("PRAGMA table_info(\"%s\")", t->name);
      sqlite3_prepare_v2 (db, sql, -1, &st, NULL);
      while (sqlite3_step (st) == SQLITE_ROW)
        g_ptr_array_add (t->columns, g_strdup ((const char *) sqlite3_column_text (st, 1)));
      sqlite3_finalize (st);
    }
  sqlite3_close (db);
  return tables;
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  (void) argc;
  (void) argv;
  sl_fuzz_init ();
  for (guint i = 0; i < N_BASES; i++)
    {
      g_autofree char *path = g_build_filename (sl_fuzz_traces_dir (), base_names[i], NULL);
      Base *b = &bases[n_bases];
      if (!g_file_get_contents (path, &b->bytes, &b->len, NULL))
        continue;
      b->tables = read_schema (path);
      n_bases++;
    }
  if (n_bases == 0)
    {
      fprintf (stderr, "fuzz-sqlite-damage: no real traces in %s (set SL_FUZZ_TRACES)\n",
               sl_fuzz_traces_dir ());
      exit (1);
    }
  return 0;
}

/* The input, read a field at a time; past its end every field is 0. */
typedef struct
{
  const uint8_t *p;
  size_t         left;
} Cursor;

static guint64
take (Cursor *c,
      guint   n)
{
  guint64 v = 0;
  for (guint i = 0; i < n; i++)
    {
      v = (v << 8) | (c->left > 0 ? *c->p : 0);
      if (c->left > 0)
        c->p++, c->left--;
    }
  return v;
}

static const sqlite3_int64 extremes[] = {
  INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, (sqlite3_int64) 1 << 62,
  -((sqlite3_int64) 1 << 62), (sqlite3_int64) 1 << 61, -((sqlite3_int64) 1 << 61),
  ((sqlite3_int64) 1 << 61) + 1, (sqlite3_int64) 1 << 32, UINT32_MAX, INT32_MAX, INT32_MIN,
  (sqlite3_int64) 1 << 53, -1, 0, 1, 65535, 65536,
};

static const double reals[] = { 0.0, -0.0, 1e300, -1e300, 1.5, 9.3e18, -9.3e18, 1.0 / 0.0,
                                -1.0 / 0.0, 0.0 / 0.0 };

static void
exec (sqlite3    *db,
      const char *sql)
{
  /* damage may be refused (a UNIQUE or NOT NULL constraint): that op does nothing */
  sqlite3_exec (db, sql, NULL, NULL, NULL);
}

/* "rowid = (the row'th row)" or "1" for every row */
static char *
row_where (const char *table,
           guint       row)
{
  if (row == 0xffff)
    return g_strdup ("1");
  return g_strdup_printf ("rowid = (SELECT rowid FROM \"%s\" LIMIT 1 OFFSET (%u %% "
                          "max(1, (SELECT count(*) FROM \"%s\"))))", table, row, table);
}

static void
apply_op (sqlite3     *db,
          const Base  *b,
          Cursor      *c)
{
  guint op = (guint) take (c, 1) % 12;
  const Table *t = g_ptr_array_index (b->tables, take (c, 1) % b->tables->len);
  guint col_index = (guint) take (c, 1);
  guint row = (guint) take (c, 2);
  if (t->columns->len == 0)
    return;
  const char *col = g_ptr_array_index (t->columns, col_index % t->columns->len);
  const char *col2 = g_ptr_array_index (t->columns, (col_index / 7 + 1) % t->columns->len);
  g_autofree char *where = row_where (t->name, row);
  g_autofree char *sql = NULL;
  sqlite3_stmt *st = NULL;

  switch (op)
    {
    case 0:
      sql = g_strdup_printf ("UPDATE \"%s\" SET \"%s\" = NULL WHERE %s", t->name, col, where);
      break;
    case 1:
    case 2:
      {
        guint len = (guint) take (c, 1) % 64;
        guint8 bytes[64];
        for (guint i = 0; i < len; i++)
          bytes[i] = (guint8) take (c, 1);
        g_autofree char *update = g_strdup_printf ("UPDATE \"%s\" SET \"%s\" = ?1 WHERE %s",
                                                   t->name, col, where);
        if (sqlite3_prepare_v2 (db, update, -1, &st, NULL) == SQLITE_OK)
          {
            if (op == 1)
              sqlite3_bind_text (st, 1, (const char *) bytes, (int) len, SQLITE_TRANSIENT);
            else
              sqlite3_bind_blob (st, 1, bytes, (int) len, SQLITE_TRANSIENT);
            sqlite3_step (st);
          }
        sqlite3_finalize (st);
        return;
      }
    case 3:
    case 4:
    case 5:
      {
        g_autofree char *update = g_strdup_printf ("UPDATE \"%s\" SET \"%s\" = ?1 WHERE %s",
                                                   t->name, col, where);
        if (sqlite3_prepare_v2 (db, update, -1, &st, NULL) == SQLITE_OK)
          {
            if (op == 3)
              sqlite3_bind_int64 (st, 1, extremes[take (c, 1) % G_N_ELEMENTS (extremes)]);
            else if (op == 4)
              sqlite3_bind_int64 (st, 1, (sqlite3_int64) take (c, 8));
            else
              sqlite3_bind_double (st, 1, reals[take (c, 1) % G_N_ELEMENTS (reals)]);
            sqlite3_step (st);
          }
        sqlite3_finalize (st);
        return;
      }
    case 6:
      sql = g_strdup_printf ("DELETE FROM \"%s\" WHERE %s", t->name, where);
      break;
    case 7:
      sql = g_strdup_printf ("INSERT INTO \"%s\" SELECT * FROM \"%s\" WHERE %s", t->name,
                             t->name, where);
      break;
    case 8:
      sql = g_strdup_printf ("DROP TABLE \"%s\"", t->name);
      break;
    case 9:
      sql = g_strdup_printf ("UPDATE \"%s\" SET \"end\" = \"start\" - %u WHERE %s", t->name,
                             (guint) take (c, 2), where);
      break;
    case 10:
      sql = g_strdup_printf ("UPDATE \"%s\" SET \"%s\" = \"%s\", \"%s\" = \"%s\" WHERE %s",
                             t->name, col, col2, col2, col, where);
      break;
    default:
      sql = g_strdup_printf ("UPDATE \"%s\" SET \"%s\" = (SELECT max(\"%s\") FROM \"%s\") + %u "
                             "WHERE %s", t->name, col, col, t->name, (guint) take (c, 1) + 1,
                             where);
      break;
    }
  exec (db, sql);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *path = sl_fuzz_path ("damaged.sqlite");
  Cursor c = { data, size };
  sqlite3 *db = NULL;

  if (size == 0)
    return 0;
  /* a run of ops on a real trace; at most 64 of them (more says nothing new, and costs) */
  const Base *b = &bases[take (&c, 1) % n_bases];
  sl_fuzz_write_file (path, b->bytes, b->len);
  if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
    abort ();
  exec (db, "BEGIN");
  for (int i = 0; i < 64 && c.left > 0; i++)
    apply_op (db, b, &c);
  exec (db, "COMMIT");
  sqlite3_close (db);

  g_autofree char *error = NULL;
  sl_fuzz_load (path, &error);
  return 0;
}
