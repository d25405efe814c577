/* test-gen.c: runs sightline-gen and checks its trace against real nsys exports and loop rules. */
#include "sl-schema.h"
#include "sl-test-util.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/wait.h>

#define REAL_3_25 "nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite" /* schema 3.25.0 */
#define REAL_3_24 "nsys/nsys-2026.1-osrt-sampling.sqlite"  /* 3.24.14: GPU info, OSRT, sampling */
#define MASK "0xFFFFFFFFFF000000"

/* The trace most tests read: 2 GPUs, 3 streams each, main + 2 loader threads, ~20 000 events. */
#define MAIN_EVENTS 20000

typedef struct
{
  int status; /* exit status */
  char *out;
  char *err;
  GHashTable *counts; /* "kernel" -> count, parsed from stdout */
} GenRun;

static void
gen_run_free (GenRun *run)
{
  g_free (run->out);
  g_free (run->err);
  g_clear_pointer (&run->counts, g_hash_table_unref);
  g_free (run);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GenRun, gen_run_free)

/* Runs sightline-gen with @args (NULL-terminated); never fails the test itself. */
static GenRun *
gen_spawn (const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  GenRun *run = g_new0 (GenRun, 1);
  int wait_status = 0;

  g_ptr_array_add (argv, (char *)SL_GEN_PATH);
  for (; *args != NULL; args++)
    g_ptr_array_add (argv, (char *)*args);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &run->out,
                     &run->err, &wait_status, &error))
    g_error ("cannot run %s: %s", SL_GEN_PATH, error->message);
  if (WIFEXITED (wait_status))
    run->status = WEXITSTATUS (wait_status);
  else
    run->status = -1;

  run->counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  {
    g_auto (GStrv) lines = g_strsplit (run->out, "\n", -1);

    for (char **l = lines; *l != NULL; l++)
      {
        g_auto (GStrv) f = g_strsplit (*l, " ", -1);
        guint64 v;

        if (g_strv_length (f) == 2 &&
            g_ascii_string_to_unsigned (f[1], 10, 0, G_MAXUINT64, &v, NULL))
          g_hash_table_insert (run->counts, g_strdup (f[0]), GSIZE_TO_POINTER ((gsize)v));
      }
  }
  return run;
}

static guint64
count_of (GenRun *run, const char *key)
{
  gpointer v;

  if (!g_hash_table_lookup_extended (run->counts, key, NULL, &v))
    g_error ("sightline-gen printed no '%s' count:\n%s", key, run->out);
  return GPOINTER_TO_SIZE (v);
}

/* Generates into the temp dir; the run must succeed. */
static GenRun *
gen_file (const char *name,
          const char *events,
          const char *seed,
          const char *gpus,
          const char *streams,
          const char *threads,
          char **path_out)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
  const char *args[] = { "-o", path,        "-n",    events,      "--seed", seed,      "--gpus",
                         gpus, "--streams", streams, "--threads", threads,  "--force", NULL };
  GenRun *run = gen_spawn (args);

  if (run->status != 0)
    g_error ("sightline-gen failed (%d): %s", run->status, run->err);
  *path_out = g_steal_pointer (&path);
  return run;
}

static const char *main_path;
static GenRun *main_run;

static const char *
main_trace (void)
{
  if (main_path == NULL)
    {
      char *path = NULL;

      main_run = gen_file ("main.sqlite", G_STRINGIFY (MAIN_EVENTS), "7", "2", "3", "3", &path);
      main_path = path;
    }
  return main_path;
}

static sqlite3 *
open_db (const char *path)
{
  sqlite3 *db = NULL;

  if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
    g_error ("cannot open %s: %s", path, sqlite3_errmsg (db));
  return db;
}

static gint64
query_int (sqlite3 *db, const char *sql)
{
  sqlite3_stmt *stmt = NULL;
  gint64 v;

  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  v = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return v;
}

/* All rows of @sql as text, one line per row, "|" between columns, "<null>" for NULL. */
static char *
query_text (sqlite3 *db, const char *sql)
{
  GString *s = g_string_new (NULL);
  sqlite3_stmt *stmt = NULL;

  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      for (int i = 0; i < sqlite3_column_count (stmt); i++)
        {
          const char *v = (const char *)sqlite3_column_text (stmt, i);

          if (i > 0)
            g_string_append_c (s, '|');
          g_string_append (s, v != NULL ? v : "<null>");
        }
      g_string_append_c (s, '\n');
    }
  sqlite3_finalize (stmt);
  return g_string_free (s, FALSE);
}

static gboolean
has_table (sqlite3 *db, const char *table)
{
  g_autofree char *sql = g_strdup_printf (
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", table);
  return query_int (db, sql) > 0;
}

static char *
table_info (sqlite3 *db, const char *table)
{
  g_autofree char *sql = g_strdup_printf ("PRAGMA table_info(%s)", table);

  return query_text (db, sql);
}

static char **
table_names (sqlite3 *db)
{
  g_autofree char *names =
      query_text (db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  char **v = g_strsplit (g_strstrip (names), "\n", -1);

  return v;
}

/* A digest of every row of every table, in rowid order. */
static char *
dump_digest (const char *path)
{
  sqlite3 *db = open_db (path);
  g_auto (GStrv) tables = table_names (db);
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);

  for (char **t = tables; *t != NULL; t++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT * FROM \"%s\" ORDER BY rowid", *t);
      sqlite3_stmt *stmt = NULL;

      g_checksum_update (sum, (const guchar *)*t, -1);
      g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
      while (sqlite3_step (stmt) == SQLITE_ROW)
        for (int i = 0; i < sqlite3_column_count (stmt); i++)
          {
            const char *v = (const char *)sqlite3_column_text (stmt, i);

            g_checksum_update (sum, (const guchar *)(v != NULL ? v : "\x01"), -1);
            g_checksum_update (sum, (const guchar *)"\x02", 1);
          }
      sqlite3_finalize (stmt);
    }
  sqlite3_close (db);
  return g_strdup (g_checksum_get_string (sum));
}

/* --- tests --------------------------------------------------------------------------------------
 */

/* Every table we write has the columns of a real export, in the same order, with the same declared
 * types, NOT NULL and key flags; the 3.25.0 file decides where it has the table. */
static void
test_schema_matches_real (void)
{
  g_autofree char *p325 = sl_test_trace_path (REAL_3_25);
  g_autofree char *p324 = sl_test_trace_path (REAL_3_24);
  sqlite3 *ours, *r325, *r324;
  g_auto (GStrv) tables = NULL;
  size_t n_schema = 0;
  const SlSchemaTable *schema = sl_schema_get_tables (&n_schema);
  guint compared = 0, compared_325 = 0;

  if (!g_file_test (p325, G_FILE_TEST_EXISTS) || !g_file_test (p324, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("real nsys exports not found under " SL_TRACES_DIR);
      return;
    }
  ours = open_db (main_trace ());
  r325 = open_db (p325);
  r324 = open_db (p324);
  tables = table_names (ours);

  for (char **t = tables; *t != NULL; t++)
    {
      g_autofree char *mine = table_info (ours, *t);
      sqlite3 *real = has_table (r325, *t) ? r325 : has_table (r324, *t) ? r324 : NULL;
      g_autofree char *theirs = NULL;

      if (real == NULL)
        {
          g_test_message ("table %s is in neither real export", *t);
          g_assert_true (g_str_has_prefix (*t, "SIGHTLINE_") || g_str_has_prefix (*t, "ENUM_"));
          continue;
        }
      theirs = table_info (real, *t);
      if (g_strcmp0 (mine, theirs) != 0)
        g_error ("columns of %s differ from the real export %s:\nours:\n%stheirs:\n%s", *t,
                 real == r325 ? REAL_3_25 : REAL_3_24, mine, theirs);
      compared++;
      if (real == r325)
        compared_325++;
    }
  g_test_message ("%u tables compared, %u against 3.25.0", compared, compared_325);
  g_assert_cmpuint (compared, >=, 30);
  g_assert_cmpuint (compared_325, >=, 20);

  /* Every table the schema library knows was created. */
  for (size_t i = 0; i < n_schema; i++)
    g_assert_true (has_table (ours, schema[i].name));

  /* The core event tables are all there. */
  {
    static const char *core[] = {
      "StringIds",
      "ThreadNames",
      "PROCESSES",
      "TARGET_INFO_GPU",
      "TARGET_INFO_CUDA_STREAM",
      "TARGET_INFO_SESSION_START_TIME",
      "ANALYSIS_DETAILS",
      "META_DATA_EXPORT",
      "CUPTI_ACTIVITY_KIND_KERNEL",
      "CUPTI_ACTIVITY_KIND_MEMCPY",
      "CUPTI_ACTIVITY_KIND_MEMSET",
      "CUPTI_ACTIVITY_KIND_RUNTIME",
      "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
      "NVTX_EVENTS",
      "OSRT_API",
      "COMPOSITE_EVENTS",
      "SAMPLING_CALLCHAINS",
      "ENUM_CUDA_MEMCPY_OPER",
      "ENUM_CUDA_MEM_KIND",
      "ENUM_NSYS_EVENT_CLASS",
      "ENUM_NSYS_EVENT_TYPE",
      "ENUM_CUPTI_SYNC_TYPE",
      "ENUM_CUDA_KERNEL_LAUNCH_TYPE",
      "ENUM_CUPTI_STREAM_TYPE",
      "ENUM_SAMPLING_THREAD_STATE",
    };

    for (size_t i = 0; i < G_N_ELEMENTS (core); i++)
      if (!has_table (ours, core[i]))
        g_error ("table %s missing", core[i]);
  }

  /* ENUM rows equal the real export's, where it has the table. */
  for (char **t = tables; *t != NULL; t++)
    if (g_str_has_prefix (*t, "ENUM_"))
      {
        sqlite3 *real = has_table (r325, *t) ? r325 : has_table (r324, *t) ? r324 : NULL;
        g_autofree char *sql = g_strdup_printf ("SELECT id, name, label FROM %s ORDER BY id", *t);
        g_autofree char *mine = query_text (ours, sql);
        g_autofree char *theirs = NULL;

        g_assert_nonnull (real);
        theirs = query_text (real, sql);
        if (g_strcmp0 (mine, theirs) != 0)
          g_error ("rows of %s differ from the real export", *t);
      }

  {
    g_autofree char *v = query_text (
        ours, "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'");
    g_autofree char *p =
        query_text (ours, "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_NAME'");

    g_assert_cmpstr (v, ==, "3.25.0\n");
    g_assert_cmpstr (p, ==, "Sightline\n");
  }
  /* An ordinary file: no journal mode left behind that a reader would trip on. */
  {
    g_autofree char *mode = query_text (ours, "PRAGMA journal_mode");

    g_assert_cmpstr (mode, ==, "delete\n");
  }
  sqlite3_close (ours);
  sqlite3_close (r325);
  sqlite3_close (r324);
}

/* sl_schema_create on a fresh database, twice in one connection: the second one fails cleanly. */
static void
test_schema_create (void)
{
  sqlite3 *db = NULL;
  char *msg = NULL;
  size_t n_enums = 0;
  const SlSchemaEnum *enums = sl_schema_get_enums (&n_enums);

  g_assert_cmpint (sqlite3_open (":memory:", &db), ==, SQLITE_OK);
  g_assert_true (sl_schema_create (db, &msg));
  g_assert_null (msg);
  for (size_t i = 0; i < n_enums; i++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM %s", enums[i].table);

      g_assert_cmpint (query_int (db, sql), ==, (gint64)enums[i].n_values);
    }
  g_assert_cmpint (
      query_int (db,
                 "SELECT count(*) FROM ENUM_NSYS_EVENT_TYPE WHERE id IN (34,35,36,37,38,59,60,75)"),
      ==, 8);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM ENUM_NSYS_EVENT_CLASS WHERE id IN (0,1,27)"), ==, 3);
  g_assert_false (sl_schema_create (db, &msg));
  g_assert_nonnull (msg);
  g_test_message ("second create: %s", msg);
  sqlite3_free (msg);
  /* The failed attempt left the first one intact. */
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'"),
      ==, 1);
  sqlite3_close (db);
}

/* What it printed is what is in the file, the total is about what was asked, and the mix is a
 * training loop's: ~40 % API, ~35 % kernels, ~5 % copies/sets, ~15 % NVTX, ~5 % OSRT + samples,
 * ~8 % scheduling rows. */
static void
test_counts (void)
{
  sqlite3 *db = open_db (main_trace ());
  static const struct
  {
    const char *key;
    const char *sql;
    double lo, hi; /* share of the total, percent */
  } kinds[] = {
    { "runtime", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME", 35, 45 },
    { "kernel", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL", 30, 40 },
    { "memcpy", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY", 1, 6 },
    { "memset", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET", 0.5, 4 },
    { "sync", "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", 0.1, 3 },
    { "nvtx", "SELECT count(*) FROM NVTX_EVENTS", 11, 19 },
    { "osrt", "SELECT count(*) FROM OSRT_API", 2, 7 },
    { "samples", "SELECT count(*) FROM COMPOSITE_EVENTS", 0.3, 2 },
    { "sched", "SELECT count(*) FROM SCHED_EVENTS", 4, 12 },
  };
  guint64 total = count_of (main_run, "total");
  guint64 sum = 0;

  for (size_t i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      guint64 printed = count_of (main_run, kinds[i].key);
      double share = 100.0 * (double)printed / (double)total;

      g_assert_cmpint (query_int (db, kinds[i].sql), ==, (gint64)printed);
      g_test_message ("%s %" G_GUINT64_FORMAT " (%.1f %%)", kinds[i].key, printed, share);
      if (share < kinds[i].lo || share > kinds[i].hi)
        g_error ("%s is %.1f %% of the events, expected %.1f-%.1f %%", kinds[i].key, share,
                 kinds[i].lo, kinds[i].hi);
      sum += printed;
    }
  g_assert_cmpuint (sum, ==, total);
  g_assert_cmpuint (total, >=, MAIN_EVENTS);
  g_assert_cmpuint (total, <=, MAIN_EVENTS + MAIN_EVENTS / 50);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1"), ==,
      (gint64)count_of (main_run, "driver"));
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM SAMPLING_CALLCHAINS"), ==,
                   (gint64)count_of (main_run, "frames"));
  sqlite3_close (db);
}

/* A tiny budget still gives a valid, small trace; a larger one scales. */
static void
test_budget_sizes (void)
{
  static const guint64 sizes[] = { 50, 1000, 60000 };

  for (size_t i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, sizes[i]);
      g_autofree char *name = g_strdup_printf ("size-%s.sqlite", n);
      g_autofree char *path = NULL;
      g_autoptr (GenRun) run = gen_file (name, n, "3", "1", "1", "1", &path);
      guint64 total = count_of (run, "total");

      g_assert_cmpuint (total, >=, sizes[i]);
      g_assert_cmpuint (total, <=, sizes[i] + sizes[i] / 50 + 64);
      g_assert_cmpuint (count_of (run, "kernel"), >, 0);
      g_unlink (path);
    }
}

/* --sample-share: that percent of the events are CPU samples (the call-tree bench's input). */
static void
test_sample_share (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "share.sqlite", NULL);
  const char *args[] = { "-o", path, "-n", "20000", "--sample-share", "10", "--force", NULL };
  const char *bad[] = { "-o", path, "-n", "20000", "--sample-share", "90", "--force", NULL };
  g_autoptr (GenRun) run = gen_spawn (args);
  g_autoptr (GenRun) refused = gen_spawn (bad);

  g_assert_cmpint (run->status, ==, 0);
  double share = 100.0 * (double)count_of (run, "samples") / (double)count_of (run, "total");
  g_assert_cmpfloat (share, >, 8);
  g_assert_cmpfloat (share, <, 12);
  g_assert_cmpint (refused->status, !=, 0);
  g_unlink (path);
}

static void
test_deterministic (void)
{
  g_autofree char *a = NULL, *b = NULL, *c = NULL;
  g_autoptr (GenRun) ra = gen_file ("det-a.sqlite", "8000", "42", "2", "2", "4", &a);
  g_autoptr (GenRun) rb = gen_file ("det-b.sqlite", "8000", "42", "2", "2", "4", &b);
  g_autoptr (GenRun) rc = gen_file ("det-c.sqlite", "8000", "43", "2", "2", "4", &c);
  g_autofree char *da = dump_digest (a);
  g_autofree char *db = dump_digest (b);
  g_autofree char *dc = dump_digest (c);

  g_assert_cmpstr (da, ==, db);
  g_assert_cmpstr (da, !=, dc);
  g_unlink (a);
  g_unlink (b);
  g_unlink (c);
}

/* nsys semantics: GPU work joins its API call on correlationId within the process. */
static void
test_correlation (void)
{
  sqlite3 *db = open_db (main_trace ());
  gint64 kernels = query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  static const char *gpu_tables[] = { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                      "CUPTI_ACTIVITY_KIND_MEMSET",
                                      "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" };

  g_assert_cmpint (kernels, >, 1000);
  /* correlationId is unique within a process. */
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM (SELECT correlationId, globalTid & " MASK
                                  " AS p, count(*) AS n "
                                  "FROM CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY 1, 2 HAVING n > 1)"),
                   ==, 0);
  g_assert_cmpint (
      query_int (db,
                 "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS NULL"),
      ==, 0);

  for (size_t i = 0; i < G_N_ELEMENTS (gpu_tables); i++)
    {
      g_autofree char *n_sql = g_strdup_printf ("SELECT count(*) FROM %s", gpu_tables[i]);
      g_autofree char *join =
          g_strdup_printf ("SELECT count(*) FROM %s k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                           "ON k.correlationId = r.correlationId "
                           "AND k.globalPid = (r.globalTid & " MASK ")",
                           gpu_tables[i]);
      g_autofree char *before =
          g_strdup_printf ("%s WHERE k.start <= r.start OR k.end < k.start", join);

      g_assert_cmpint (query_int (db, join), ==, query_int (db, n_sql));
      g_assert_cmpint (query_int (db, before), ==, 0);
    }

  /* Kernel names resolve, and each name keeps one launch shape. */
  g_assert_cmpint (
      query_int (db,
                 "SELECT count(*) FROM (SELECT s.value, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                 "JOIN StringIds s ON s.id = k.demangledName GROUP BY 1)"),
      >=, 30);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                                  "StringIds s ON s.id = k.shortName "
                                  "JOIN StringIds m ON m.id = k.mangledName"),
                   ==, kernels);
  g_assert_cmpint (
      query_int (
          db,
          "SELECT count(*) FROM (SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY 1 "
          "HAVING count(DISTINCT gridX || ',' || gridY || ',' || gridZ || ',' || blockX || ',' "
          "|| blockY || ',' || blockZ || ',' || registersPerThread || ',' || staticSharedMemory "
          "|| ',' || dynamicSharedMemory) > 1)"),
      ==, 0);
  /* A mix of very short and long kernels. */
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE end - start < 5000"), >,
      0);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE end - start > 200000"),
      >, 0);
  /* API names in nsys spelling, driver calls as eventClass 1. */
  g_assert_cmpint (
      query_int (
          db,
          "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
          "WHERE s.value = 'cudaLaunchKernel_v7000' AND r.eventClass = 0"),
      >, 0);
  g_assert_cmpint (
      query_int (
          db,
          "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
          "WHERE s.value LIKE 'cu%' AND s.value NOT LIKE 'cuda%' AND r.eventClass = 1"),
      >, 0);
  /* Copies: HtoD from pinned and from pageable memory, DtoH, DtoD; every copy names both kinds. */
  g_assert_cmpint (
      query_int (
          db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1 AND srcKind = 1"),
      >, 0);
  g_assert_cmpint (
      query_int (
          db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1 AND srcKind = 0"),
      >, 0);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 2"), >, 0);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 8"), >, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE srcKind "
                                  "IS NULL OR dstKind IS NULL "
                                  "OR copyKind NOT IN (SELECT id FROM ENUM_CUDA_MEMCPY_OPER)"),
                   ==, 0);
  /* One SYNCHRONIZATION row per synchronizing call. */
  g_assert_cmpint (
      query_int (
          db,
          "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
          "WHERE s.value IN ('cudaStreamSynchronize_v3020', 'cudaDeviceSynchronize_v3020', "
          "'cudaStreamWaitEvent_v3020')"),
      ==, query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"));
  /* GPU rows name a known GPU and stream. */
  g_assert_cmpint (
      query_int (db,
                 "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN TARGET_INFO_GPU g "
                 "ON g.id = k.deviceId WHERE g.id IS NULL"),
      ==, 0);
  g_assert_cmpint (
      query_int (
          db,
          "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN TARGET_INFO_CUDA_STREAM s "
          "ON s.streamId = k.streamId AND s.contextId = k.contextId WHERE s.streamId IS NULL"),
      ==, 0);
  sqlite3_close (db);
}

/* Kernels, copies and sets on one stream run one after the other. */
static void
test_streams_serial (void)
{
  sqlite3 *db = open_db (main_trace ());
  sqlite3_stmt *stmt = NULL;
  gint64 prev_stream = -1, prev_ctx = -1, prev_end = 0, streams = 0, rows = 0;
  const char *sql =
      "SELECT contextId, streamId, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL "
      "UNION ALL SELECT contextId, streamId, start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY "
      "UNION ALL SELECT contextId, streamId, start, end FROM CUPTI_ACTIVITY_KIND_MEMSET "
      "ORDER BY 1, 2, 3";

  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      gint64 ctx = sqlite3_column_int64 (stmt, 0), stream = sqlite3_column_int64 (stmt, 1);
      gint64 start = sqlite3_column_int64 (stmt, 2), end = sqlite3_column_int64 (stmt, 3);

      g_assert_cmpint (end, >, start);
      if (ctx != prev_ctx || stream != prev_stream)
        streams++;
      else if (start < prev_end)
        g_error ("overlap on context %" G_GINT64_FORMAT " stream %" G_GINT64_FORMAT
                 " at %" G_GINT64_FORMAT,
                 ctx, stream, start);
      prev_ctx = ctx;
      prev_stream = stream;
      prev_end = end;
      rows++;
    }
  sqlite3_finalize (stmt);
  g_assert_cmpint (rows, >, 0);
  /* 2 GPUs x 3 streams, all used. */
  g_assert_cmpint (streams, ==, 6);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM TARGET_INFO_CUDA_STREAM"), ==, 6);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM TARGET_INFO_GPU WHERE name = 'NVIDIA H100 80GB HBM3' "
                     "AND smCount = 132 AND computeMajor = 9 AND computeMinor = 0"),
      ==, 2);
  /* The GPU sits idle now and then (data-loader stalls): some gap between kernels of > 1 ms. */
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM (SELECT start - lag(end) OVER (PARTITION "
                                  "BY streamId ORDER BY start) "
                                  "AS gap FROM CUPTI_ACTIVITY_KIND_KERNEL) WHERE gap > 1000000"),
                   >, 0);
  sqlite3_close (db);
}

/* Push/pop ranges nest per thread; marks have no end; the domain is named. */
static void
test_nvtx (void)
{
  sqlite3 *db = open_db (main_trace ());
  sqlite3_stmt *stmt = NULL;
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 tid = -1, ranges = 0, max_depth = 0;
  const char *sql = "SELECT globalTid, start, end FROM NVTX_EVENTS WHERE eventType = 59 ORDER BY "
                    "globalTid, start, end DESC";

  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      gint64 t = sqlite3_column_int64 (stmt, 0), start = sqlite3_column_int64 (stmt, 1);
      gint64 end = sqlite3_column_int64 (stmt, 2);

      g_assert_cmpint (sqlite3_column_type (stmt, 2), !=, SQLITE_NULL);
      g_assert_cmpint (end, >=, start);
      if (t != tid)
        g_array_set_size (stack, 0);
      tid = t;
      while (stack->len > 0 && g_array_index (stack, gint64, stack->len - 1) <= start)
        g_array_set_size (stack, stack->len - 1);
      if (stack->len > 0 && end > g_array_index (stack, gint64, stack->len - 1))
        g_error ("range [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "] of thread %" G_GINT64_FORMAT
                 " overlaps its parent without nesting",
                 start, end, t);
      g_array_append_val (stack, end);
      max_depth = MAX (max_depth, (gint64)stack->len);
      ranges++;
    }
  sqlite3_finalize (stmt);
  g_assert_cmpint (ranges, >, 100);
  g_assert_cmpint (max_depth, ==, 3); /* step > phase > op */

  g_assert_cmpint (query_int (db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 75 AND "
                                  "domainId = 1 AND text = 'train'"),
                   ==, 1);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND domainId = 0"), >,
      0);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND domainId = 1"), >,
      0);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34 AND end IS NULL"), >,
      0);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34 AND end IS NOT NULL"),
      ==, 0);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND color IS NULL"), ==,
      0);
  /* Start/end ranges live on the data-loader threads, not the main one. */
  g_assert_cmpint (
      query_int (
          db, "SELECT count(*) FROM NVTX_EVENTS n JOIN ThreadNames t ON t.globalTid = n.globalTid "
              "JOIN StringIds s ON s.id = t.nameId WHERE n.eventType = 60 "
              "AND s.value LIKE 'pt_data_worker_%' AND n.endGlobalTid = n.globalTid"),
      ==, query_int (db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 60"));
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 60"), >, 0);
  /* Names: registered (textId) or inline (text), never neither. */
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId "
                     "WHERE coalesce(s.value, n.text) IS NULL"),
      ==, 0);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId "
                     "WHERE s.value IN ('forward', 'backward', 'optimizer')"),
      >, 0);
  sqlite3_close (db);
}

/* One python3 process; thread ids in nsys's layout; OSRT calls and samples on real threads. */
static void
test_threads (void)
{
  sqlite3 *db = open_db (main_trace ());
  g_autofree char *names =
      query_text (db, "SELECT s.value FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId "
                      "ORDER BY t.globalTid");

  g_assert_cmpstr (names, ==, "python3\npt_data_worker_0\npt_data_worker_1\n");
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM PROCESSES WHERE name = 'python3'"), ==, 1);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM ThreadNames t JOIN PROCESSES p "
                     "ON (t.globalTid & " MASK ") = p.globalPid "
                     "WHERE (t.globalTid >> 48) = 1 AND ((t.globalTid >> 24) & 0xFFFFFF) = p.pid"),
      ==, 3);
  /* Main thread: tid == pid. */
  g_assert_cmpint (
      query_int (
          db,
          "SELECT count(*) FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId JOIN PROCESSES p "
          "WHERE s.value = 'python3' AND (t.globalTid & 0xFFFFFF) = p.pid"),
      ==, 1);
  g_assert_cmpint (
      query_int (
          db,
          "SELECT count(*) FROM OSRT_API o LEFT JOIN ThreadNames t ON t.globalTid = o.globalTid "
          "WHERE t.globalTid IS NULL OR o.eventClass != 27 OR o.end < o.start"),
      ==, 0);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM OSRT_API o JOIN StringIds s ON s.id = o.nameId "
                     "WHERE s.value IN ('read', 'pthread_cond_wait', 'poll', 'nanosleep')"),
      >, 0);
  /* Every sample has a stack with resolvable names, as deep as a Python program's native stacks
   * (leaf frames, interpreter frames, the process's roots): ~40 frames on average. */
  g_assert_cmpint (
      query_int (db,
                 "SELECT count(*) FROM (SELECT c.id, count(*) AS n FROM COMPOSITE_EVENTS c "
                 "JOIN SAMPLING_CALLCHAINS f ON f.id = c.id JOIN StringIds s ON s.id = f.symbol "
                 "JOIN StringIds m ON m.id = f.module GROUP BY c.id) WHERE n BETWEEN 25 AND 60"),
      ==, query_int (db, "SELECT count(*) FROM COMPOSITE_EVENTS"));
  g_assert_cmpint (query_int (db, "SELECT count(*) / (SELECT count(*) FROM COMPOSITE_EVENTS) "
                                  "FROM SAMPLING_CALLCHAINS"), >=, 35);
  g_assert_cmpint (query_int (db, "SELECT count(*) / (SELECT count(*) FROM COMPOSITE_EVENTS) "
                                  "FROM SAMPLING_CALLCHAINS"), <=, 45);
  /* All events inside ANALYSIS_DETAILS. */
  g_assert_cmpint (query_int (db,
                              "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL, ANALYSIS_DETAILS a "
                              "WHERE start < a.startTime OR end > a.stopTime"),
                   ==, 0);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM ANALYSIS_DETAILS WHERE duration = stopTime - startTime"),
      ==, 1);
  g_assert_cmpint (
      query_int (db, "SELECT count(*) FROM TARGET_INFO_SESSION_START_TIME WHERE utcEpochNs > 0"),
      ==, 1);
  sqlite3_close (db);
}

/* --format kineto: the same seed's trace as Kineto JSON (json-glib's reading): every kernel of the
 * SQLite file, with its name, stream, correlation and duration, every runtime and driver call;
 * .gz is gzip. */
static void
test_kineto (void)
{
  g_autofree char *db_path = g_build_filename (sl_test_tmpdir (), "kineto.sqlite", NULL);
  g_autofree char *json_path = g_build_filename (sl_test_tmpdir (), "kineto.json", NULL);
  g_autofree char *gz_path = g_build_filename (sl_test_tmpdir (), "kineto.json.gz", NULL);
  const char *nsys[] = { "-o", db_path, "-n", "20k", "--seed", "7", "-f", NULL };
  const char *kineto[] = { "-o", json_path, "-n", "20k", "--seed", "7", "-F", "kineto", "-f", NULL };
  const char *gz[] = { "-o", gz_path, "-n", "20k", "--seed", "7", "--format", "kineto", "-f", NULL };
  const char *bad[] = { "-o", json_path, "-n", "20k", "--format", "perfetto", "-f", NULL };
  g_autoptr (GenRun) a = gen_spawn (nsys), b = gen_spawn (kineto), c = gen_spawn (gz);
  g_autoptr (GenRun) d = gen_spawn (bad);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (a->status, ==, 0);
  g_assert_cmpint (b->status, ==, 0);
  g_assert_cmpint (c->status, ==, 0);
  g_assert_cmpint (d->status, ==, 2);
  g_assert_nonnull (strstr (d->err, "perfetto"));

  sqlite3 *db = open_db (db_path);
  gint64 kernels = query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  gint64 kernel_ns = query_int (db, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  gint64 runtime = query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
  sqlite3_close (db);

  g_assert_true (json_parser_load_from_file (parser, json_path, &error));
  g_assert_no_error (error);
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (json_object_has_member (root, "deviceProperties"));
  JsonArray *events = json_object_get_array_member (root, "traceEvents");
  gint64 n_kernels = 0, n_api = 0;
  double kernel_us = 0;
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      const char *cat = json_object_get_string_member_with_default (e, "cat", "");
      if (g_str_equal (cat, "kernel"))
        {
          JsonObject *args = json_object_get_object_member (e, "args");
          g_assert_true (json_object_has_member (args, "stream"));
          g_assert_true (json_object_has_member (args, "correlation"));
          g_assert_cmpstr (json_object_get_string_member (e, "name"), !=, "");
          kernel_us += json_object_get_double_member (e, "dur");
          n_kernels++;
        }
      else if (g_str_equal (cat, "cuda_runtime") || g_str_equal (cat, "cuda_driver"))
        n_api++;
    }
  g_test_message ("%" G_GINT64_FORMAT " kernels, %" G_GINT64_FORMAT " runtime calls", n_kernels,
                  n_api);
  g_assert_cmpint (n_kernels, ==, kernels);
  g_assert_cmpint (n_api, ==, runtime);
  g_assert_cmpfloat (fabs (kernel_us * 1000 - (double) kernel_ns), <, 1.0 * (double) kernels);

  g_autofree char *head = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (gz_path, &head, &len, NULL));
  g_assert_cmpuint (len, >, 2);
  g_assert_cmpint ((guchar) head[0], ==, 0x1f);
  g_assert_cmpint ((guchar) head[1], ==, 0x8b);
}

static void
test_force (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "force.sqlite", NULL);
  const char *args[] = { "-o", path, "-n", "500", NULL };
  const char *args_force[] = { "-o", path, "-n", "700", "--force", NULL };
  g_autofree char *before = NULL, *after = NULL;
  gsize before_len = 0, after_len = 0;
  g_autoptr (GenRun) first = NULL;
  g_autoptr (GenRun) refused = NULL;
  g_autoptr (GenRun) forced = NULL;

  g_unlink (path);
  first = gen_spawn (args);
  g_assert_cmpint (first->status, ==, 0);
  g_assert_true (g_file_get_contents (path, &before, &before_len, NULL));

  refused = gen_spawn (args);
  g_assert_cmpint (refused->status, ==, 1);
  g_assert_nonnull (strstr (refused->err, path));
  g_assert_nonnull (strstr (refused->err, "--force"));
  g_assert_true (g_file_get_contents (path, &after, &after_len, NULL));
  g_assert_cmpmem (before, before_len, after, after_len);
  g_clear_pointer (&after, g_free);

  forced = gen_spawn (args_force);
  g_assert_cmpint (forced->status, ==, 0);
  g_assert_true (g_file_get_contents (path, &after, &after_len, NULL));
  g_assert_false (before_len == after_len && memcmp (before, after, before_len) == 0);
  {
    sqlite3 *db = open_db (path);

    g_assert_cmpint (query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME") +
                         query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"),
                     >, 300);
    sqlite3_close (db);
  }
  g_unlink (path);
}

static void
test_unwritable (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "no-such-dir", "out.sqlite", NULL);
  const char *args[] = { "-o", path, "-n", "100", NULL };
  g_autoptr (GenRun) run = gen_spawn (args);

  g_assert_cmpint (run->status, ==, 1);
  g_assert_nonnull (strstr (run->err, path));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

static void
test_usage (void)
{
  const char *no_n[] = { "-o", "x.sqlite", NULL };
  const char *bad_n[] = { "-o", "x.sqlite", "-n", "lots", NULL };
  const char *bad_gpus[] = { "-o", "x.sqlite", "-n", "10", "--gpus", "0", NULL };
  const char *help[] = { "--help", NULL };
  g_autoptr (GenRun) a = gen_spawn (no_n);
  g_autoptr (GenRun) b = gen_spawn (bad_n);
  g_autoptr (GenRun) c = gen_spawn (bad_gpus);
  g_autoptr (GenRun) d = gen_spawn (help);

  g_assert_cmpint (a->status, ==, 2);
  g_assert_cmpint (b->status, ==, 2);
  g_assert_cmpint (c->status, ==, 2);
  g_assert_cmpint (d->status, ==, 0);
  g_assert_nonnull (strstr (d->out, "--seed"));
  g_assert_false (g_file_test ("x.sqlite", G_FILE_TEST_EXISTS));
}

/* --graphs graph|node: each GPU's optimizer step is one cudaGraphLaunch; in graph mode its GPU work
 * is one CUPTI_ACTIVITY_KIND_GRAPH_TRACE row (the table as NVIDIA documents it, made only then),
 * in node mode the graph's kernels with graphId / graphNodeId and the launch's correlationId;
 * META_DATA_CAPTURE names the mode.  Without --graphs, neither the table nor the name. */
static void
test_graphs (void)
{
  static const char *const modes[] = { "graph", "node" };
  sqlite3 *plain = open_db (main_trace ());

  g_assert_cmpint (query_int (plain, "SELECT count(*) FROM sqlite_master WHERE name = "
                                     "'CUPTI_ACTIVITY_KIND_GRAPH_TRACE'"), ==, 0);
  g_assert_cmpint (query_int (plain, "SELECT count(*) FROM StringIds WHERE value LIKE "
                                     "'cudaGraphLaunch%'"), ==, 0);
  g_assert_cmpint (query_int (plain, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE "
                                     "graphId IS NOT NULL OR graphNodeId IS NOT NULL"), ==, 0);
  sqlite3_close (plain);

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autofree char *name = g_strdup_printf ("graphs-%s.sqlite", modes[m]);
      g_autofree char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
      const char *args[] = { "-o", path, "-n", "20000", "--gpus", "2", "--graphs", modes[m],
                             "--force", NULL };
      g_autoptr (GenRun) run = gen_spawn (args);
      gboolean graph_mode = m == 0;
      sqlite3 *db;
      gint64 launches;
      g_autofree char *mode = NULL, *cols = NULL;

      g_assert_cmpint (run->status, ==, 0);
      db = open_db (path);
      launches = query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN "
                                "StringIds s ON s.id = r.nameId "
                                "WHERE s.value = 'cudaGraphLaunch_v10000'");
      g_assert_cmpint (launches, >, 20);
      mode = query_text (db, "SELECT value FROM META_DATA_CAPTURE "
                             "WHERE name LIKE '%CUDA_GRAPH_TRACE_OPTIONS:MODE'");
      g_assert_cmpstr (mode, ==, graph_mode ? "Graph\n" : "Node\n");
      /* where each graph and node was made, in the columns of NVIDIA's schema reference: a
       * graph captured (95) and instantiated (94), each node made (77) and cloned from it */
      {
        g_autofree char *gcols = query_text (db, "SELECT group_concat(name, ', ') FROM "
                                                 "pragma_table_info('CUDA_GRAPH_EVENTS')");
        g_autofree char *ncols = query_text (db, "SELECT group_concat(name, ', ') FROM "
                                                 "pragma_table_info('CUDA_GRAPH_NODE_EVENTS')");
        g_assert_cmpstr (gcols, ==, "start, end, eventClass, globalTid, nameId, graphId, "
                                    "originalGraphId, graphExecId\n");
        g_assert_cmpstr (ncols, ==, "start, end, eventClass, globalTid, nameId, graphNodeId, "
                                    "originalGraphNodeId\n");
        g_assert_cmpint (query_int (db, "SELECT count(*) FROM CUDA_GRAPH_EVENTS"), ==, 4);
        g_assert_cmpint ((gint64) count_of (run, "graph_made"), ==, 4);
        g_assert_cmpint (query_int (db, "SELECT count(*) FROM CUDA_GRAPH_NODE_EVENTS WHERE "
                                        "originalGraphNodeId IN (SELECT graphNodeId FROM "
                                        "CUDA_GRAPH_NODE_EVENTS)"), ==, 16);
        g_assert_cmpint ((gint64) count_of (run, "graph_node_made"), ==, 32);
        /* every kernel's node is one made by the instantiation */
        g_assert_cmpint (query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE "
                                        "graphNodeId IS NOT NULL AND graphNodeId NOT IN (SELECT "
                                        "graphNodeId FROM CUDA_GRAPH_NODE_EVENTS)"), ==, 0);
      }
      if (graph_mode)
        {
          cols = query_text (db, "SELECT group_concat(name || ' ' || type || ' ' || \"notnull\", "
                                 "', ') FROM pragma_table_info('CUPTI_ACTIVITY_KIND_GRAPH_TRACE')");
          g_assert_cmpstr (cols, ==, "start INTEGER 1, end INTEGER 1, deviceId INTEGER 1, "
                                     "contextId INTEGER 1, greenContextId INTEGER 0, streamId "
                                     "INTEGER 1, correlationId INTEGER 0, globalPid INTEGER 0, "
                                     "graphId INTEGER 1, graphExecId INTEGER 1\n");
          /* one row a launch, tied to it by correlationId; the graph's kernels are not in KERNEL */
          g_assert_cmpint (query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE"),
                           ==, launches);
          g_assert_cmpint ((gint64)count_of (run, "graph_launches"), ==, launches);
          g_assert_cmpint (query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE g "
                                          "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId "
                                          "= g.correlationId JOIN StringIds s ON s.id = r.nameId "
                                          "WHERE s.value = 'cudaGraphLaunch_v10000' "
                                          "AND g.start >= r.start AND g.end > g.start"), ==,
                           launches);
          g_assert_cmpint (query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                                          "WHERE graphId IS NOT NULL"), ==, 0);
          /* a graph's launches all run its one executable graph */
          g_assert_cmpint (query_int (db, "SELECT count(DISTINCT graphId || ':' || graphExecId) "
                                          "FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE"), ==, 2);
        }
      else
        {
          g_assert_cmpint (query_int (db, "SELECT count(*) FROM sqlite_master WHERE name = "
                                          "'CUPTI_ACTIVITY_KIND_GRAPH_TRACE'"), ==, 0);
          /* each launch's nodes: 8 kernels with its correlationId, node ids distinct in it */
          g_assert_cmpint (query_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                          "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON "
                                          "r.correlationId = k.correlationId JOIN StringIds s ON "
                                          "s.id = r.nameId WHERE s.value = "
                                          "'cudaGraphLaunch_v10000' AND k.graphId IS NOT NULL "
                                          "AND k.graphNodeId IS NOT NULL"), ==, 8 * launches);
          g_assert_cmpint ((gint64)count_of (run, "graph_kernels"), ==, 8 * launches);
          g_assert_cmpint (query_int (db, "SELECT count(*) FROM (SELECT correlationId FROM "
                                          "CUPTI_ACTIVITY_KIND_KERNEL WHERE graphId IS NOT NULL "
                                          "GROUP BY correlationId HAVING count(DISTINCT "
                                          "graphNodeId) = 8)"), ==, launches);
        }
      sqlite3_close (db);
    }
}

int
main (int argc, char *argv[])
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gen/schema/matches-real-export", test_schema_matches_real);
  g_test_add_func ("/gen/schema/create", test_schema_create);
  g_test_add_func ("/gen/counts", test_counts);
  g_test_add_func ("/gen/budget-sizes", test_budget_sizes);
  g_test_add_func ("/gen/sample-share", test_sample_share);
  g_test_add_func ("/gen/deterministic", test_deterministic);
  g_test_add_func ("/gen/correlation", test_correlation);
  g_test_add_func ("/gen/streams-serial", test_streams_serial);
  g_test_add_func ("/gen/nvtx-nesting", test_nvtx);
  g_test_add_func ("/gen/threads", test_threads);
  g_test_add_func ("/gen/force", test_force);
  g_test_add_func ("/gen/kineto", test_kineto);
  g_test_add_func ("/gen/unwritable", test_unwritable);
  g_test_add_func ("/gen/usage", test_usage);
  g_test_add_func ("/gen/graphs", test_graphs);
  rc = g_test_run ();
  g_clear_pointer (&main_run, gen_run_free);
  g_free ((char *)main_path);
  return rc;
}
