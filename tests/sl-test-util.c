/* sl-test-util.c: small helpers shared by the test programs. */
#include "sl-test-util.h"

#include <sqlite3.h>

#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>

char *
sl_test_trace_path (const char *relative)
{
  return g_build_filename (SL_TRACES_DIR, relative, NULL);
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

char **
sl_test_nsys_traces (void)
{
  g_autofree char *dir = g_build_filename (SL_TRACES_DIR, "nsys", NULL);
  g_autoptr (GPtrArray) files = g_ptr_array_new ();
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".sqlite"))
      g_ptr_array_add (files, g_build_filename (dir, name, NULL));
  g_ptr_array_sort (files, compare_paths);
  g_assert_cmpuint (files->len, >, 0);
  g_ptr_array_add (files, NULL);
  return (char **) g_ptr_array_steal (files, NULL);
}

static char *tmpdir;

/* Removes a directory and everything below it (tests leave files and folders there). */
static void
remove_tree (const char *path)
{
  g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
remove_tmpdir (void)
{
  remove_tree (tmpdir);
  g_free (tmpdir);
}

const char *
sl_test_tmpdir (void)
{
  if (tmpdir == NULL)
    {
      tmpdir = g_dir_make_tmp ("sightline-test-XXXXXX", NULL);
      g_assert_nonnull (tmpdir);
      atexit (remove_tmpdir);
    }
  return tmpdir;
}

guint32
sl_test_seed (void)
{
  const char *env = g_getenv ("SL_TEST_SEED");
  guint32 seed = env != NULL ? (guint32) g_ascii_strtoull (env, NULL, 10) : (guint32) g_get_real_time ();

  g_printerr ("# seed %u (set SL_TEST_SEED=%u to replay)\n", seed, seed);
  return seed;
}

void
sl_test_run_clear (SlTestRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

void
sl_test_run (SlTestRun  *run,
             const char *program,
             ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  int wait_status = 0;
  va_list ap;

  g_ptr_array_add (argv, (char *) program);
  va_start (ap, program);
  for (const char *arg; (arg = va_arg (ap, const char *)) != NULL;)
    g_ptr_array_add (argv, (char *) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  sl_test_run_clear (run);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &run->out, &run->err, &wait_status, &error));
  g_assert_no_error (error);
  run->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
}

char *
sl_test_copy_trace (const char *relative,
                    const char *name)
{
  g_autofree char *src = sl_test_trace_path (relative);
  g_autofree char *data = NULL;
  g_autoptr (GError) error = NULL;
  char *dst = g_build_filename (sl_test_tmpdir (), name, NULL);
  gsize len = 0;

  g_assert_true (g_file_get_contents (src, &data, &len, &error));
  g_assert_true (g_file_set_contents_full (dst, data, len, G_FILE_SET_CONTENTS_NONE, 0644, &error));
  g_assert_no_error (error);
  return dst;
}

void
sl_test_exec_sql (const char *path,
                  const char *sql)
{
  sqlite3 *db = NULL;
  char *msg = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  if (sqlite3_exec (db, sql, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s: %s: %s", path, sql, msg);
  sqlite3_close (db);
}

char *
sl_test_absurd_trace (const char *relative,
                      const char *name)
{
  static const char *const tables[] = {
    "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS",
    "OSRT_API",
  };
  char *path = sl_test_copy_trace (relative, name);
  sqlite3 *db = sl_test_open_db (path);

  g_autoptr (GString) sql = g_string_new ("BEGIN;");
  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    {
      g_autofree char *exists = g_strdup_printf ("SELECT count(*) FROM sqlite_master "
                                                 "WHERE type = 'table' AND name = '%s'", tables[i]);
      if (sl_test_sql_int (db, exists) > 0)
        g_string_append_printf (sql, "UPDATE %s SET start = -4611686018427387904, "
                                     "end = 4611686018427387904 WHERE rowid %% 2 = 1;", tables[i]);
    }
  g_string_append (sql, "COMMIT;");
  sqlite3_close (db);
  sl_test_exec_sql (path, sql->str);
  return path;
}

struct sqlite3 *
sl_test_open_db (const char *path)
{
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  return db;
}

gint64
sl_test_sql_int (struct sqlite3 *db,
                 const char     *sql)
{
  sqlite3_stmt *st = NULL;
  gint64 v = -1;

  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  if (sqlite3_step (st) == SQLITE_ROW)
    v = sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  return v;
}

char *
sl_test_sql_text (struct sqlite3 *db,
                  const char     *sql)
{
  sqlite3_stmt *st = NULL;
  char *v = NULL;

  if (sqlite3_prepare_v2 (db, sql, -1, &st, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  if (sqlite3_step (st) == SQLITE_ROW && sqlite3_column_text (st, 0) != NULL)
    v = g_strdup ((const char *) sqlite3_column_text (st, 0));
  sqlite3_finalize (st);
  return v;
}
