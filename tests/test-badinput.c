/* test-badinput.c: damaged, hostile and non-trace files: a clear error or a warning, never a crash. */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sl-analyze.h"
#include "sl-utilization.h"
#include "sl-test-util.h"
#include "sl-trace.h"

#define TINY "nsys/nsys-2026.1-tiny.sqlite"
#define BIG  "nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite"

/* What an undamaged load holds, to tell lost good rows from skipped bad ones. */
typedef struct
{
  gsize  n_events;
  gsize  by_kind[SL_N_LANE_KINDS];
  SlTime start;
  SlTime end;
} Counts;

static Counts tiny_counts, big_counts;

/* ---- helpers ----------------------------------------------------------------------------- */

static void
count_events (SlTrace *trace,
              Counts  *c)
{
  memset (c, 0, sizeof *c);
  c->n_events = sl_trace_get_n_events (trace);
  c->start = sl_trace_get_start (trace);
  c->end = sl_trace_get_end (trace);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      c->by_kind[lane->kind] += lane->n_events;
    }
}

/* SHA-256 of a file's bytes, NULL when it cannot be read (missing, a directory …). */
static char *
file_checksum (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR) || !g_file_get_contents (path, &data, &len, NULL))
    return NULL;
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, len);
}

static char *
tmp_path (const char *name)
{
  return g_build_filename (sl_test_tmpdir (), name, NULL);
}

/* The table's schema text without NOT NULL, so a test can store NULLs nsys would not. */
static void
drop_not_null (const char *path,
               const char *table)
{
  g_autofree char *sql = g_strdup_printf ("PRAGMA writable_schema = ON; "
                                          "UPDATE sqlite_master SET sql = replace(sql, 'NOT NULL', '') "
                                          "WHERE name = '%s';", table);
  sl_test_exec_sql (path, sql);
}

static const char *const journal_suffixes[] = { "-journal", "-wal", "-shm" };

/*
 * Every load goes through here: it must leave the file's bytes as they were and create no
 * journal, WAL or shared-memory file beside it (the loader opens read-only and immutable).
 */
static SlTrace *
load (const char  *path,
      GError     **error)
{
  g_autofree char *before = file_checksum (path);
  gboolean had[G_N_ELEMENTS (journal_suffixes)];
  SlTrace *trace;

  for (guint i = 0; i < G_N_ELEMENTS (journal_suffixes); i++)
    {
      g_autofree char *side = g_strconcat (path, journal_suffixes[i], NULL);
      had[i] = g_file_test (side, G_FILE_TEST_EXISTS);
    }
  trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, error);

  g_autofree char *after = file_checksum (path);
  g_assert_cmpstr (before, ==, after);
  for (guint i = 0; i < G_N_ELEMENTS (journal_suffixes); i++)
    {
      g_autofree char *side = g_strconcat (path, journal_suffixes[i], NULL);
      g_assert_cmpint (had[i], ==, g_file_test (side, G_FILE_TEST_EXISTS));
    }
  return trace;
}

static gboolean
contains_nocase (const char *haystack,
                 const char *needle)
{
  g_autofree char *h = g_ascii_strdown (haystack, -1);
  g_autofree char *n = g_ascii_strdown (needle, -1);
  return strstr (h, n) != NULL;
}

/* An error a person can act on: one line, names the file, says what is wrong (one of `words`,
 * a NULL-terminated list). */
static void
assert_clear_error (const GError *error,
                    const char   *path,
                    const char   *const *words)
{
  gboolean said = FALSE;

  g_assert_nonnull (error);
  g_test_message ("error: %s", error->message);
  g_assert_true (error->domain == SL_TRACE_ERROR);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_null (strchr (error->message, '\n'));
  for (guint i = 0; words[i] != NULL; i++)
    said |= contains_nocase (error->message, words[i]);
  if (!said)
    g_error ("error message says nothing about the problem: %s", error->message);
}

static void
expect_error (const char         *path,
              const char *const  *words)
{
  g_autoptr (GError) error = NULL;
  SlTrace *trace = load (path, &error);

  if (trace != NULL)
    g_error ("%s loaded, but it should have been refused", path);
  assert_clear_error (error, path, words);
}

static void
print_warnings (SlTrace *trace)
{
  for (const char *const *w = sl_trace_get_warnings (trace); *w != NULL; w++)
    g_test_message ("warning: %s", *w);
}

/* TRUE when some warning mentions every word given (NULL-terminated). */
static gboolean
has_warning (SlTrace    *trace,
             const char *first,
             ...)
{
  for (const char *const *w = sl_trace_get_warnings (trace); *w != NULL; w++)
    {
      gboolean all = TRUE;
      va_list args;

      va_start (args, first);
      for (const char *word = first; word != NULL; word = va_arg (args, const char *))
        all &= contains_nocase (*w, word);
      va_end (args);
      if (all)
        return TRUE;
    }
  return FALSE;
}

static SlTrace *
load_ok (const char *path)
{
  g_autoptr (GError) error = NULL;
  SlTrace *trace = load (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  print_warnings (trace);
  /* whatever loads can be analysed: every rule runs over it without a crash */
  {
    g_autoptr (SlAnalysis) analysis = sl_analyze (trace, NULL, NULL, &error);
    g_autofree char *text = NULL;
    g_assert_no_error (error);
    text = sl_analysis_to_text (analysis, trace);
    g_assert_true (g_utf8_validate (text, -1, NULL));
  }
  return trace;
}

static void
assert_kinds_equal (const Counts *got,
                    const Counts *want,
                    SlLaneKind    except)
{
  for (guint k = 0; k < SL_N_LANE_KINDS; k++)
    if ((int) k != (int) except)
      g_assert_cmpuint (got->by_kind[k], ==, want->by_kind[k]);
}

#define ALL_KINDS ((SlLaneKind) -1)

static const char *const damage_words[] = {
  "truncated", "corrupt", "malformed", "damaged", "not a database", "not a readable", "not an nsight", NULL
};

/* The H100 export has no TARGET_INFO_GPU: GPU-table damage goes into a copy of the tiny one,
 * whose events must all load. */
static SlTrace *
damage_tiny (const char *name,
             const char *sql)
{
  g_autofree char *path = sl_test_copy_trace (TINY, name);
  SlTrace *trace;
  Counts got;

  sl_test_exec_sql (path, sql);
  trace = load_ok (path);
  count_events (trace, &got);
  assert_kinds_equal (&got, &tiny_counts, ALL_KINDS);
  return trace;
}

/* ---- files that are not traces ----------------------------------------------------------- */

static void
test_not_sqlite (void)
{
  g_autofree char *path = tmp_path ("not-sqlite.sqlite");
  static const char *const words[] = { "sqlite", "not a", NULL };

  g_assert_true (g_file_set_contents (path, "hello, this is a text file and not a trace\n", -1, NULL));
  expect_error (path, words);
}

static void
test_empty (void)
{
  g_autofree char *path = tmp_path ("empty.sqlite");
  static const char *const words[] = { "not an nsight", "empty", NULL };

  /* SQLite reads a zero-byte file as an empty database: the schema check must catch it */
  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  expect_error (path, words);
}

static void
test_directory (void)
{
  g_autofree char *path = tmp_path ("a-directory.sqlite");
  static const char *const words[] = { "directory", NULL };

  g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
  expect_error (path, words);
  g_rmdir (path);
}

static void
test_missing (void)
{
  g_autofree char *path = tmp_path ("does-not-exist.sqlite");
  static const char *const words[] = { "no such file", NULL };

  expect_error (path, words);
}

static void
test_unreadable (void)
{
  g_autofree char *path = sl_test_copy_trace (TINY, "unreadable.sqlite");
  static const char *const words[] = { "permission", "cannot open", "cannot read", "unable to open", NULL };

  g_assert_cmpint (g_chmod (path, 0), ==, 0);
  if (access (path, R_OK) == 0)
    {
      /* root reads through mode 000 */
      g_chmod (path, 0644);
      g_test_skip ("running as a user that can read a mode-000 file (root)");
      return;
    }
  expect_error (path, words);
  g_chmod (path, 0644);
}

static void
test_sqlite_not_trace (void)
{
  g_autofree char *path = tmp_path ("unrelated.sqlite");
  static const char *const words[] = { "not an nsight", NULL };

  sl_test_exec_sql (path, "CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT);"
                  "INSERT INTO recipes (name) VALUES ('bread'), ('soup');");
  expect_error (path, words);
}

static void
test_zero_rows (void)
{
  g_autofree char *path = sl_test_copy_trace (BIG, "zero-rows.sqlite");
  g_autoptr (SlTrace) trace = NULL;

  sl_test_exec_sql (path, "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME; DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL;"
                  "DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY; DELETE FROM CUPTI_ACTIVITY_KIND_MEMSET;"
                  "DELETE FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION; DELETE FROM NVTX_EVENTS;"
                  "DELETE FROM StringIds; DELETE FROM PROCESSES; DELETE FROM ThreadNames;");
  trace = load_ok (path);
  g_assert_cmpuint (sl_trace_get_n_events (trace), ==, 0);
  g_assert_cmpuint (sl_trace_get_n_lanes (trace), ==, 0);
  g_assert_false (sl_trace_resolve (trace, 0, NULL, NULL));
  g_assert_true (has_warning (trace, "no events", NULL));
}

/* ---- damaged bytes ----------------------------------------------------------------------- */

/* A load of a damaged file: refused with a clear error, or loaded; then every good row that
 * was lost must be owned up to by a warning. */
static void
load_damaged (const char   *path,
              const Counts *want)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = load (path, &error);
  Counts got;

  if (trace == NULL)
    {
      assert_clear_error (error, path, damage_words);
      return;
    }
  print_warnings (trace);
  count_events (trace, &got);
  g_test_message ("%s loaded with %zu of %zu events", path, got.n_events, want->n_events);
  if (got.n_events != want->n_events)
    g_assert_nonnull (sl_trace_get_warnings (trace)[0]);
}

static void
write_bytes (const char *path,
             const char *data,
             gsize       len)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents_full (path, data, len, G_FILE_SET_CONTENTS_NONE, 0644, &error));
  g_assert_no_error (error);
}

static void
test_truncated (void)
{
  const char *bases[] = { TINY, BIG };
  const Counts *counts[] = { &tiny_counts, &big_counts };

  for (guint b = 0; b < G_N_ELEMENTS (bases); b++)
    {
      g_autofree char *src = sl_test_trace_path (bases[b]);
      g_autofree char *data = NULL;
      gsize len = 0;

      g_assert_true (g_file_get_contents (src, &data, &len, NULL));
      gsize cuts[] = { 100, 4096 * 3, len / 2, len - 4096, len - 1 };
      for (guint i = 0; i < G_N_ELEMENTS (cuts); i++)
        {
          g_autofree char *name = g_strdup_printf ("truncated-%u-%zu.sqlite", b, cuts[i]);
          g_autofree char *path = tmp_path (name);

          write_bytes (path, data, cuts[i]);
          load_damaged (path, counts[b]);
        }
    }

  /* 100 bytes hold no complete header: always refused */
  g_autofree char *path = tmp_path ("truncated-0-100.sqlite");
  expect_error (path, damage_words);
}

static void
test_garbage_pages (void)
{
  g_autofree char *src = sl_test_trace_path (BIG);
  g_autofree char *data = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (sl_test_seed ());
  gsize len = 0;

  g_assert_true (g_file_get_contents (src, &data, &len, NULL));
  gsize n_pages = len / 4096;
  for (guint round = 0; round < 24; round++)
    {
      g_autofree char *bad = g_memdup2 (data, len);
      g_autofree char *name = g_strdup_printf ("garbage-%u.sqlite", round);
      g_autofree char *path = tmp_path (name);
      /* a run of pages in the middle, or a single page anywhere (round 0: the header page) */
      gsize first = round == 0 ? 0 : round < 8 ? n_pages / 8 * round : (gsize) g_rand_int_range (rand, 1, (gint32) n_pages);
      gsize count = round < 8 ? 8 : 1;
      gboolean zeros = round % 5 == 4;

      for (gsize p = first; p < MIN (first + count, n_pages); p++)
        for (gsize k = 0; k < 4096; k++)
          {
            /* round 0 keeps the magic string, so SQLite reads on into a garbled header */
            if (p == 0 && k < 16)
              continue;
            bad[p * 4096 + k] = zeros ? 0 : (char) g_rand_int (rand);
          }
      write_bytes (path, bad, len);
      load_damaged (path, &big_counts);
    }
}

/* ---- damaged tables ---------------------------------------------------------------------- */

static void
test_missing_table (void)
{
  struct
  {
    const char *base;
    const char *table;
    SlLaneKind  lost;      /* the kind whose events go with the table */
    gboolean    warns;
  } cases[] = {
    { BIG, "StringIds", ALL_KINDS, TRUE },
    { TINY, "TARGET_INFO_GPU", ALL_KINDS, TRUE },
    { BIG, "PROCESSES", ALL_KINDS, FALSE },
    { BIG, "ThreadNames", ALL_KINDS, FALSE },
    { BIG, "CUPTI_ACTIVITY_KIND_KERNEL", SL_LANE_KERNELS, FALSE },
    { BIG, "NVTX_EVENTS", SL_LANE_NVTX, FALSE },
    { TINY, "CUPTI_ACTIVITY_KIND_RUNTIME", SL_LANE_CUDA_API, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("no-%s.sqlite", cases[i].table);
      g_autofree char *path = sl_test_copy_trace (cases[i].base, name);
      const Counts *want = strcmp (cases[i].base, BIG) == 0 ? &big_counts : &tiny_counts;
      g_autofree char *sql = g_strdup_printf ("DROP TABLE %s;", cases[i].table);
      g_autoptr (SlTrace) trace = NULL;
      Counts got;

      sl_test_exec_sql (path, sql);
      trace = load_ok (path);
      count_events (trace, &got);
      assert_kinds_equal (&got, want, cases[i].lost);
      if (cases[i].lost != ALL_KINDS)
        g_assert_cmpuint (got.by_kind[cases[i].lost], ==, 0);
      if (cases[i].warns)
        g_assert_true (has_warning (trace, cases[i].table, NULL));
    }
}

/* nsys adds and renames columns: an optional one that is missing reads as its default (every
 * event kept), a required one skips its table with a warning naming what is missing. */
static void
test_missing_column (void)
{
  struct
  {
    const char *base;
    const char *table;
    const char *column;
    SlLaneKind  lost;      /* the kind whose events go with the column, ALL_KINDS for none */
    const char *warning;   /* a word the warning holds, NULL when none is due */
  } cases[] = {
    { BIG, "CUPTI_ACTIVITY_KIND_KERNEL", "correlationId", ALL_KINDS, NULL },
    { BIG, "CUPTI_ACTIVITY_KIND_KERNEL", "shortName", ALL_KINDS, NULL },
    { BIG, "CUPTI_ACTIVITY_KIND_KERNEL", "gridX", SL_LANE_KERNELS, "launch configuration" },
    { BIG, "CUPTI_ACTIVITY_KIND_MEMCPY", "srcKind", ALL_KINDS, NULL },
    { BIG, "CUPTI_ACTIVITY_KIND_RUNTIME", "returnValue", ALL_KINDS, NULL },
    { BIG, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "syncType", ALL_KINDS, NULL },
    { BIG, "NVTX_EVENTS", "domainId", ALL_KINDS, NULL },
    { BIG, "NVTX_EVENTS", "eventType", SL_LANE_NVTX, "eventType" },
    { TINY, "TARGET_INFO_GPU", "smCount", ALL_KINDS, NULL },
    { TINY, "TARGET_INFO_GPU", "id", ALL_KINDS, "id column" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("no-%s-%s.sqlite", cases[i].table, cases[i].column);
      g_autofree char *path = sl_test_copy_trace (cases[i].base, name);
      const Counts *want = strcmp (cases[i].base, BIG) == 0 ? &big_counts : &tiny_counts;
      g_autofree char *sql = g_strdup_printf ("ALTER TABLE %s DROP COLUMN %s;", cases[i].table,
                                              cases[i].column);
      g_autoptr (SlTrace) trace = NULL;
      Counts got;

      sl_test_exec_sql (path, sql);
      trace = load_ok (path);
      count_events (trace, &got);
      assert_kinds_equal (&got, want, cases[i].lost);
      if (cases[i].lost != ALL_KINDS)
        g_assert_cmpuint (got.by_kind[cases[i].lost], ==, 0);
      if (cases[i].warning != NULL)
        g_assert_true (has_warning (trace, cases[i].table, cases[i].warning, NULL));
      if (strcmp (cases[i].column, "smCount") == 0)
        {
          /* the GPU is still described, with the one limit it lacks unknown */
          const SlGpu *gpu = sl_trace_get_gpu (trace, 0);
          g_assert_true (gpu->described);
          g_assert_cmpint (gpu->limits.sm_count, ==, 0);
          g_assert_cmpint (gpu->limits.warp_size, ==, 32);
        }
    }
}

static void
test_null_times (void)
{
  g_autofree char *path = sl_test_copy_trace (BIG, "null-times.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  Counts got;

  drop_not_null (path, "CUPTI_ACTIVITY_KIND_RUNTIME");
  drop_not_null (path, "CUPTI_ACTIVITY_KIND_KERNEL");
  sl_test_exec_sql (path, "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = NULL WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid LIMIT 5);"
                  "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = NULL WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid DESC LIMIT 3);"
                  "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = NULL, globalPid = NULL WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid LIMIT 2);"
                  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = NULL WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid DESC LIMIT 4);"
                  "UPDATE NVTX_EVENTS SET end = NULL WHERE rowid IN "
                  "(SELECT rowid FROM NVTX_EVENTS WHERE eventType = 59 LIMIT 6);");
  trace = load_ok (path);
  count_events (trace, &got);
  g_assert_cmpuint (got.by_kind[SL_LANE_CUDA_API], ==, big_counts.by_kind[SL_LANE_CUDA_API] - 9);
  g_assert_cmpuint (got.by_kind[SL_LANE_KERNELS], ==, big_counts.by_kind[SL_LANE_KERNELS] - 5);
  /* open-ended NVTX ranges are kept, closed at the last NVTX timestamp */
  g_assert_cmpuint (got.by_kind[SL_LANE_NVTX], ==, big_counts.by_kind[SL_LANE_NVTX]);
  g_assert_cmpuint (got.by_kind[SL_LANE_MEMCPY], ==, big_counts.by_kind[SL_LANE_MEMCPY]);
  g_assert_true (has_warning (trace, "CUPTI_ACTIVITY_KIND_RUNTIME", "NULL", NULL));
  g_assert_true (has_warning (trace, "CUPTI_ACTIVITY_KIND_RUNTIME", "no thread", NULL));
  g_assert_true (has_warning (trace, "CUPTI_ACTIVITY_KIND_KERNEL", "NULL", NULL));
  g_assert_true (has_warning (trace, "CUPTI_ACTIVITY_KIND_KERNEL", "no thread or process", NULL));
  g_assert_true (has_warning (trace, "NVTX_EVENTS", "never closed", NULL));
}

static void
test_end_before_start (void)
{
  g_autofree char *path = sl_test_copy_trace (BIG, "end-before-start.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  Counts got;

  sl_test_exec_sql (path, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 1000000 WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid LIMIT 7);"
                  "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET end = 0 WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY rowid LIMIT 2);");
  trace = load_ok (path);
  count_events (trace, &got);
  assert_kinds_equal (&got, &big_counts, ALL_KINDS);
  g_assert_true (has_warning (trace, "CUPTI_ACTIVITY_KIND_KERNEL", "end before", NULL));
  g_assert_true (has_warning (trace, "CUPTI_ACTIVITY_KIND_MEMCPY", "end before", NULL));
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; k < lane->n_events; k++)
        g_assert_cmpint (lane->events[k].end, >=, lane->events[k].start);
    }
}

static void
test_dangling_ids (void)
{
  g_autofree char *path = sl_test_copy_trace (BIG, "dangling-ids.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  Counts got;

  sl_test_exec_sql (path, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 999999999, shortName = 999999998, "
                  "mangledName = 999999997, correlationId = 77777777 WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid LIMIT 10);"
                  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = 888888888 WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid LIMIT 10);"
                  "UPDATE ThreadNames SET nameId = 555555555;"
                  "UPDATE NVTX_EVENTS SET textId = 666666666, domainId = 4242 WHERE rowid IN "
                  "(SELECT rowid FROM NVTX_EVENTS ORDER BY rowid LIMIT 10);");
  trace = load_ok (path);
  count_events (trace, &got);
  assert_kinds_equal (&got, &big_counts, ALL_KINDS);
  g_assert_true (has_warning (trace, "point nowhere", NULL));
}

static void
assert_utf8 (const char *s)
{
  g_assert_nonnull (s);
  g_assert_true (g_utf8_validate (s, -1, NULL));
}

/* Issue 14: OS runtime calls whose callchainId points nowhere, and OSRT_CALLCHAINS rows with ids
 * no call can name, text ids, frames of missing strings: warnings, no backtrace, never a crash. */
static void
test_osrt_chains (void)
{
  g_autofree char *path = sl_test_copy_trace ("nsys/nsys-2026.1-osrt-sampling.sqlite",
                                      "osrt-chains.sqlite");
  g_autoptr (SlTrace) clean = NULL, trace = NULL;
  Counts want, got;
  guint with = 0;

  clean = load_ok (path);
  count_events (clean, &want);
  drop_not_null (path, "OSRT_CALLCHAINS");
  sl_test_exec_sql (path, "UPDATE OSRT_API SET callchainId = 99999999 WHERE rowid IN "
                  "(SELECT rowid FROM OSRT_API WHERE callchainId <> 0 ORDER BY rowid LIMIT 10);"
                  "UPDATE OSRT_API SET callchainId = -5 WHERE rowid IN "
                  "(SELECT rowid FROM OSRT_API WHERE callchainId <> 0 ORDER BY rowid LIMIT 3);"
                  "INSERT INTO OSRT_CALLCHAINS (id, symbol, module, stackDepth) VALUES "
                  "  (-7, 1, 1, 0), (0, 1, 1, 0), (99999999999, 1, 1, 0), ('abc', 1, 1, 0), "
                  "  (NULL, 1, 1, 0), (5000000, 987654321, NULL, 0), (5000000, 'x', 1, 3);"
                  "UPDATE OSRT_CALLCHAINS SET stackDepth = NULL WHERE rowid IN "
                  "(SELECT rowid FROM OSRT_CALLCHAINS ORDER BY rowid LIMIT 5);");
  trace = load_ok (path);
  count_events (trace, &got);
  assert_kinds_equal (&got, &want, ALL_KINDS);
  g_assert_true (has_warning (trace, "OSRT_API", "callchainId", "no backtrace", NULL));
  g_assert_true (has_warning (trace, "OSRT_CALLCHAINS", "left out", NULL));
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize e = 0; lane->kind == SL_LANE_OSRT && e < lane->n_events; e++)
        {
          const guint32 *syms, *mods;
          guint n = sl_trace_get_osrt_callchain (trace, lane->events[e].corr, &syms, &mods);
          if (lane->events[e].corr == 99999999 || lane->events[e].corr == 0)
            g_assert_cmpuint (n, ==, 0);
          for (guint k = 0; k < n; k++)
            {
              g_assert_nonnull (sl_trace_str (trace, syms[k]));
              g_assert_nonnull (sl_trace_str (trace, mods[k]));
            }
          with += n > 0;
        }
    }
  g_assert_cmpuint (with, >, 0);
  {
    const guint32 *syms, *mods;
    g_assert_cmpuint (sl_trace_get_osrt_callchain (trace, 5000000, &syms, &mods), ==, 2);
    g_assert_cmpuint (sl_trace_get_osrt_callchain (trace, G_MAXUINT32, &syms, &mods), ==, 0);
  }
}

/* The CUDA calls' backtraces of a trace, checked to be readable, and how many calls have one. */
static guint
count_cuda_chains (SlTrace *trace)
{
  guint with = 0;

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize e = 0; lane->kind == SL_LANE_CUDA_API && e < lane->n_events; e++)
        {
          const guint32 *syms, *mods;
          guint n = sl_trace_get_cuda_callchain (trace, lane, &lane->events[e], &syms, &mods);
          for (guint k = 0; k < n; k++)
            {
              assert_utf8 (sl_trace_str (trace, syms[k]));
              assert_utf8 (sl_trace_str (trace, mods[k]));
            }
          with += n > 0;
        }
    }
  g_assert_cmpuint (with, ==, sl_trace_get_n_cuda_callchains (trace));
  return with;
}

/* Issue 30: CUDA calls whose callchainId points nowhere (chains deleted, an id too large, text),
 * CUDA_CALLCHAINS rows with NULLs, bad ids and missing strings, and no CUDA_CALLCHAINS at all:
 * every event loads, the rest of the calls keep their backtraces, a warning names the table and
 * what was wrong, never a crash. */
static void
test_cuda_chains (void)
{
  g_autofree char *path = sl_test_copy_trace ("nsys/nsys-2021-cuda-backtraces.sqlite",
                                              "cuda-chains.sqlite");
  g_autoptr (SlTrace) clean = NULL, trace = NULL, bare = NULL;
  Counts want, got;

  clean = load_ok (path);
  count_events (clean, &want);
  g_assert_cmpuint (count_cuda_chains (clean), ==, 18);

  drop_not_null (path, "CUDA_CALLCHAINS");
  /* callchainId k is chain k + 1 in this file: 3 calls lose their chain's rows, 1 names a chain
   * that never was, 1 names one by text; a chain that no call names gets NULL frames */
  sl_test_exec_sql (path, "DELETE FROM CUDA_CALLCHAINS WHERE id IN (3, 4, 5);"
                  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 99999 "
                  "WHERE callchainId = 9;"
                  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 'abc' "
                  "WHERE callchainId = 10;"
                  "UPDATE CUDA_CALLCHAINS SET symbol = NULL, module = NULL WHERE id = 2;"
                  "UPDATE CUDA_CALLCHAINS SET symbol = 987654321, module = 'x' WHERE id = 7;"
                  "UPDATE CUDA_CALLCHAINS SET stackDepth = NULL WHERE id = 8 AND stackDepth = 0;"
                  "INSERT INTO CUDA_CALLCHAINS (id, symbol, module, stackDepth) VALUES "
                  "  (-7, 1, 1, 0), (99999999999, 1, 1, 0), ('abc', 1, 1, 0), (NULL, 1, 1, 0);");
  trace = load_ok (path);
  count_events (trace, &got);
  assert_kinds_equal (&got, &want, ALL_KINDS);
  g_assert_cmpuint (count_cuda_chains (trace), ==, 18 - 5);
  g_assert_true (has_warning (trace, "CUPTI_ACTIVITY_KIND_RUNTIME", "5 of 18", "callchainId",
                              "CUDA_CALLCHAINS", "no backtrace", NULL));
  g_assert_true (has_warning (trace, "CUDA_CALLCHAINS", "left out", NULL));

  /* without the table, callchainId 0 reads as none, as later nsys numbers: 17 calls name one */
  sl_test_exec_sql (path, "DROP TABLE CUDA_CALLCHAINS;");
  bare = load_ok (path);
  count_events (bare, &got);
  assert_kinds_equal (&got, &want, ALL_KINDS);
  g_assert_cmpuint (count_cuda_chains (bare), ==, 0);
  g_assert_true (has_warning (bare, "CUPTI_ACTIVITY_KIND_RUNTIME", "17 calls", "callchainId",
                              "no CUDA_CALLCHAINS table", NULL));
}

/* SL_PROCESS_INFO (Sightline's own table) with a NULL or text globalPid, a parent that is no pid,
 * a command line that is not UTF-8 or not text: the good rows read, the rest ignored. */
static void
test_process_info (void)
{
  g_autofree char *path = sl_test_copy_trace (TINY, "process-info.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  const SlProcess *pr = NULL;
  Counts got;
  gint64 gpid;

  {
    g_autoptr (SlTrace) t = load_ok (path);
    g_assert_cmpuint (sl_trace_get_n_processes (t), >, 0);
    gpid = (gint64) sl_trace_get_process (t, 0)->global_pid;
  }
  g_autofree char *sql = g_strdup_printf (
    "CREATE TABLE SL_PROCESS_INFO (globalPid INTEGER, pid INTEGER, parentPid INTEGER, "
    "  commandLine TEXT);"
    "INSERT INTO SL_PROCESS_INFO VALUES (NULL, 1, 2, 'x'), ('abc', 1, 2, 'y'), "
    "  (%" G_GINT64_FORMAT ", 0, -4, X'C3283A'), (%" G_GINT64_FORMAT ", 0, 99999999999, 42),"
    "  (%" G_GINT64_FORMAT ", 0, 4242, 'python3 train.py --workers 4');", gpid, gpid, gpid);
  sl_test_exec_sql (path, sql);
  trace = load_ok (path);
  count_events (trace, &got);
  assert_kinds_equal (&got, &tiny_counts, ALL_KINDS);
  for (guint i = 0; i < sl_trace_get_n_processes (trace); i++)
    if ((gint64) sl_trace_get_process (trace, i)->global_pid == gpid)
      pr = sl_trace_get_process (trace, i);
  g_assert_nonnull (pr);
  g_assert_cmpuint (pr->parent_pid, ==, 4242);
  g_assert_cmpstr (sl_trace_str (trace, pr->command_line), ==, "python3 train.py --workers 4");
  for (guint i = 0; i < sl_trace_get_n_processes (trace); i++)
    assert_utf8 (sl_trace_str (trace, sl_trace_get_process (trace, i)->command_line));
}

static void
test_not_utf8 (void)
{
  g_autofree char *path = sl_test_copy_trace (BIG, "not-utf8.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  Counts got;

  sl_test_exec_sql (path, "UPDATE StringIds SET value = CAST(x'c328ff' AS TEXT) WHERE id IN "
                  "(SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL);"
                  "UPDATE StringIds SET value = CAST(x'41ed9fbfed' AS TEXT) WHERE id IN "
                  "(SELECT nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME);"
                  "UPDATE PROCESSES SET name = CAST(x'ff00fe' AS TEXT);"
                  "UPDATE NVTX_EVENTS SET text = CAST(x'e282' AS TEXT), textId = NULL WHERE rowid IN "
                  "(SELECT rowid FROM NVTX_EVENTS LIMIT 20);");
  trace = load_ok (path);
  count_events (trace, &got);
  assert_kinds_equal (&got, &big_counts, ALL_KINDS);
  g_assert_true (has_warning (trace, "UTF-8", NULL));
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      assert_utf8 (sl_trace_str (trace, lane->label));
      for (gsize k = 0; k < lane->n_events; k++)
        assert_utf8 (sl_trace_str (trace, lane->events[k].name));
      if (lane->kind == SL_LANE_KERNELS)
        for (gsize k = 0; k < lane->n_events; k++)
          {
            const SlKernelInfo *info = sl_trace_get_kernel_info (trace, lane->events[k].aux);
            assert_utf8 (sl_trace_str (trace, info->short_name));
            assert_utf8 (sl_trace_str (trace, info->mangled_name));
          }
    }
  for (guint i = 0; i < sl_trace_get_n_processes (trace); i++)
    assert_utf8 (sl_trace_str (trace, sl_trace_get_process (trace, i)->name));
  for (guint i = 0; i < sl_trace_get_n_threads (trace); i++)
    assert_utf8 (sl_trace_str (trace, sl_trace_get_thread (trace, i)->name));

  g_autoptr (SlTrace) tiny = damage_tiny ("not-utf8-gpu.sqlite",
                                          "UPDATE TARGET_INFO_GPU SET name = CAST(x'80808080' AS TEXT), "
                                          "uuid = x'00ff', chipName = CAST(x'c0af' AS TEXT);");
  g_assert_true (has_warning (tiny, "UTF-8", NULL));
  g_assert_cmpuint (sl_trace_get_n_gpus (tiny), >, 0);
  for (guint i = 0; i < sl_trace_get_n_gpus (tiny); i++)
    {
      const SlGpu *gpu = sl_trace_get_gpu (tiny, i);
      assert_utf8 (sl_trace_str (tiny, gpu->name));
      assert_utf8 (sl_trace_str (tiny, gpu->uuid));
      assert_utf8 (sl_trace_str (tiny, gpu->chip_name));
    }
}

static void
test_wrong_types (void)
{
  g_autofree char *path = sl_test_copy_trace (BIG, "wrong-types.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  Counts got;

  /* INTEGER affinity keeps text that is not a number as TEXT: these rows have no usable time */
  sl_test_exec_sql (path, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'soon' WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid LIMIT 3);"
                  "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = x'0102' WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid DESC LIMIT 2);"
                  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = 'yesterday', end = 'today' WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid LIMIT 4);"
                  /* text where ids are expected: rows are kept, the ids read as nothing useful */
                  "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 'kernel', deviceId = 'gpu', "
                  "gridX = 'big', correlationId = x'ff' WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid LIMIT 10 OFFSET 20);"
                  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = 'main' WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid LIMIT 3 OFFSET 50);"
                  "UPDATE ThreadNames SET globalTid = 'worker', nameId = 'name';");
  trace = load_ok (path);
  count_events (trace, &got);
  g_assert_cmpuint (got.by_kind[SL_LANE_KERNELS], ==, big_counts.by_kind[SL_LANE_KERNELS] - 5);
  g_assert_cmpuint (got.by_kind[SL_LANE_CUDA_API], ==, big_counts.by_kind[SL_LANE_CUDA_API] - 4);
  g_assert_cmpuint (got.by_kind[SL_LANE_NVTX], ==, big_counts.by_kind[SL_LANE_NVTX]);
  g_assert_true (has_warning (trace, "CUPTI_ACTIVITY_KIND_KERNEL", "not a number", NULL));
  g_assert_true (has_warning (trace, "CUPTI_ACTIVITY_KIND_RUNTIME", "not a number", NULL));
  /* a skipped row must not drag the trace's start to time 0 */
  g_assert_cmpint (got.start, >=, big_counts.start);

  g_autoptr (SlTrace) tiny = damage_tiny ("wrong-types-gpu.sqlite",
                                          "UPDATE TARGET_INFO_GPU SET id = 'zero', smCount = 'many', "
                                          "totalMemory = 'lots', name = 42, computeMajor = x'09';");
}

static void
test_huge_ids (void)
{
  g_autofree char *path = sl_test_copy_trace (BIG, "huge-ids.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  Counts got;

  sl_test_exec_sql (path, "INSERT INTO StringIds VALUES (9223372036854775807, 'the largest id');"
                  "INSERT INTO StringIds VALUES (-9223372036854775808, 'the smallest id');"
                  "INSERT INTO StringIds VALUES (-5, 'negative');"
                  "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 9223372036854775807, "
                  "shortName = -5, mangledName = -9223372036854775808, correlationId = -1, "
                  "deviceId = 9223372036854775807, contextId = -1, streamId = -9223372036854775808, "
                  "globalPid = -1, gridX = -1, blockX = 9223372036854775807, registersPerThread = -7 "
                  "WHERE rowid IN (SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid LIMIT 4);"
                  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = -1, correlationId = 9223372036854775807, "
                  "nameId = -9223372036854775808, returnValue = -1 WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid LIMIT 4);"
                  "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -1, copyKind = 9223372036854775807, "
                  "srcKind = -1, dstDeviceId = 9223372036854775807 WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY rowid LIMIT 4);"
                  "UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET syncType = -9223372036854775808 WHERE rowid IN "
                  "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION ORDER BY rowid LIMIT 4);"
                  "UPDATE NVTX_EVENTS SET domainId = -1, color = -1 WHERE rowid IN "
                  "(SELECT rowid FROM NVTX_EVENTS ORDER BY rowid LIMIT 50);"
                  "UPDATE ThreadNames SET globalTid = 9223372036854775807 WHERE rowid IN "
                  "(SELECT rowid FROM ThreadNames LIMIT 1);");
  trace = load_ok (path);
  count_events (trace, &got);
  assert_kinds_equal (&got, &big_counts, ALL_KINDS);
  g_assert_cmpuint (got.n_events, ==, big_counts.n_events);

  /* GPU limits that would divide by zero or overflow in occupancy arithmetic */
  g_autoptr (SlTrace) tiny = damage_tiny ("huge-ids-gpu.sqlite",
                                          "UPDATE TARGET_INFO_GPU SET id = 9223372036854775807, smCount = -5, "
                                          "threadsPerWarp = 0, maxThreadsPerBlock = 9223372036854775807, "
                                          "maxWarpsPerSm = 0, maxShmemPerSm = -1, totalMemory = -1, "
                                          "clockRate = 9223372036854775807, computeMajor = -1;"
                                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = 9223372036854775807;");
}

static void
test_extreme_times (void)
{
  g_autofree char *path = sl_test_copy_trace (BIG, "extreme-times.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  Counts got;

  /* durations of 2^64 - 1 ns and instants at both ends of the time line */
  sl_test_exec_sql (path, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -9223372036854775808, end = 9223372036854775807 "
                  "WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL);"
                  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = -9223372036854775808, end = 9223372036854775807 "
                  "WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_RUNTIME);"
                  "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET start = 9223372036854775807, end = 9223372036854775807 "
                  "WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_MEMCPY);"
                  "UPDATE NVTX_EVENTS SET start = -9223372036854775808, end = 9223372036854775807 WHERE rowid IN "
                  "(SELECT rowid FROM NVTX_EVENTS WHERE eventType = 59 LIMIT 2);"
                  "UPDATE NVTX_EVENTS SET start = 9223372036854775807, end = 9223372036854775807 WHERE rowid IN "
                  "(SELECT rowid FROM NVTX_EVENTS WHERE eventType = 59 LIMIT 2 OFFSET 5);"
                  "UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET start = 1.5e300, end = -1.5e300 WHERE rowid = "
                  "(SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);");
  trace = load_ok (path);
  count_events (trace, &got);
  g_assert_cmpuint (got.by_kind[SL_LANE_KERNELS], ==, big_counts.by_kind[SL_LANE_KERNELS]);
  g_assert_cmpuint (got.by_kind[SL_LANE_CUDA_API], ==, big_counts.by_kind[SL_LANE_CUDA_API]);
  g_assert_cmpuint (got.by_kind[SL_LANE_MEMCPY], ==, big_counts.by_kind[SL_LANE_MEMCPY]);
  g_assert_cmpuint (got.by_kind[SL_LANE_NVTX], ==, big_counts.by_kind[SL_LANE_NVTX]);
  g_assert_cmpint (sl_trace_get_start (trace), <=, sl_trace_get_end (trace));
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    g_assert_cmpint (sl_trace_get_lane (trace, i)->busy, >=, 0);
  /* a GPU's busy time over the whole time line: its work reaches -2^61, the query G_MAXINT64 */
  for (guint g = 0; g < sl_trace_get_n_gpus (trace); g++)
    {
      SlTime busy = sl_trace_gpu_busy_time (trace, g, SL_UTIL_ANY, G_MININT64, G_MAXINT64);
      g_assert_cmpint (busy, >=, 0);
      g_assert_cmpint (busy, <=, sl_trace_gpu_busy_time (trace, g, SL_UTIL_ANY, G_MININT64,
                                                         G_MAXINT64 - 1) + 1);
    }
}

/* ---- hostile files: a trace must never run code or change itself ------------------------- */

static void
test_trigger (void)
{
  g_autofree char *path = sl_test_copy_trace (BIG, "trigger.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  Counts got;

  /* would empty the event tables, were anything ever written through the loader's connection */
  sl_test_exec_sql (path, "CREATE TABLE pwned (what TEXT);"
                  "CREATE TRIGGER t1 AFTER INSERT ON StringIds BEGIN "
                  "  DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL; INSERT INTO pwned VALUES ('insert'); END;"
                  "CREATE TRIGGER t2 BEFORE UPDATE ON CUPTI_ACTIVITY_KIND_RUNTIME BEGIN "
                  "  INSERT INTO pwned VALUES (load_extension('/nonexistent/evil.so')); END;"
                  "CREATE TRIGGER t3 BEFORE DELETE ON PROCESSES BEGIN "
                  "  INSERT INTO pwned VALUES ('delete'); END;");
  trace = load_ok (path);
  count_events (trace, &got);
  assert_kinds_equal (&got, &big_counts, ALL_KINDS);
}

static void
test_view_shadow (void)
{
  g_autofree char *path = sl_test_copy_trace (BIG, "view-shadow.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (GTimer) timer = g_timer_new ();
  Counts got;

  /* Views named like event and string tables: one never ends, one loads an extension.  The
   * loader must not read either (nor hang); the real tables' rows stay unread with them. */
  sl_test_exec_sql (path, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO kernels_real;"
                  "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS "
                  "  WITH RECURSIVE forever(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM forever) "
                  "  SELECT k.* FROM kernels_real k, forever;"
                  "ALTER TABLE StringIds RENAME TO strings_real;"
                  "CREATE VIEW StringIds AS SELECT id, load_extension('/nonexistent/evil.so') AS value "
                  "  FROM strings_real;"
                  "CREATE VIEW NVTX_EVENTS_V AS SELECT * FROM NVTX_EVENTS;");
  trace = load_ok (path);
  count_events (trace, &got);
  g_assert_cmpfloat (g_timer_elapsed (timer, NULL), <, 60.0);
  g_assert_cmpuint (got.by_kind[SL_LANE_KERNELS], ==, 0);
  g_assert_cmpuint (got.by_kind[SL_LANE_CUDA_API], ==, big_counts.by_kind[SL_LANE_CUDA_API]);
  g_assert_cmpuint (got.by_kind[SL_LANE_NVTX], ==, big_counts.by_kind[SL_LANE_NVTX]);
  g_assert_true (has_warning (trace, "CUPTI_ACTIVITY_KIND_KERNEL", "view", NULL));
  g_assert_true (has_warning (trace, "StringIds", NULL));
}

static void
test_view_as_table (void)
{
  g_autofree char *path = sl_test_copy_trace (BIG, "view-as-table.sqlite");
  static const char *const words[] = { "malformed", NULL };

  /* A view that sqlite_master calls a table, so a check of the type column alone would read it. */
  sl_test_exec_sql (path, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO kernels_real;"
                  "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS "
                  "  WITH RECURSIVE forever(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM forever) "
                  "  SELECT k.* FROM kernels_real k, forever;");
  sl_test_exec_sql (path, "PRAGMA writable_schema = ON;"
                  "UPDATE sqlite_master SET type = 'table' WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL';");
  expect_error (path, words);
}

static void
test_generated_column (void)
{
  g_autofree char *path = sl_test_copy_trace (TINY, "generated-column.sqlite");
  static const char *const words[] = { "malformed", NULL };

  /* A time column computed by load_extension(): SQLite itself refuses to create one, so it is
   * written into the schema text directly; reading the column would call the function. */
  sl_test_exec_sql (path, "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (startRaw INTEGER, end INTEGER, deviceId INTEGER, "
                  "  start INTEGER AS (startRaw + 0));"
                  "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (startRaw, end, deviceId) VALUES (1, 2, 0);");
  sl_test_exec_sql (path, "PRAGMA writable_schema = ON;"
                  "UPDATE sqlite_master SET sql = replace(sql, 'startRaw + 0', "
                  "  'load_extension(''/nonexistent/evil.so'')') WHERE name = 'CUPTI_ACTIVITY_KIND_MEMSET';");
  expect_error (path, words);
}

static void
test_wal (void)
{
  g_autofree char *path = sl_test_copy_trace (BIG, "wal-mode.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  Counts got;

  /* A WAL-mode file: an ordinary read-only open would create -wal and -shm files beside it. */
  sl_test_exec_sql (path, "PRAGMA journal_mode = WAL;");
  trace = load_ok (path);
  count_events (trace, &got);
  assert_kinds_equal (&got, &big_counts, ALL_KINDS);
}

static void
test_hot_journal (void)
{
  g_autofree char *scratch = sl_test_copy_trace (BIG, "hot-journal-scratch.sqlite");
  g_autofree char *scratch_journal = g_strconcat (scratch, "-journal", NULL);
  g_autofree char *path = sl_test_copy_trace (BIG, "hot-journal.sqlite");
  g_autofree char *journal = g_strconcat (path, "-journal", NULL);
  g_autofree char *journal_data = NULL;
  g_autoptr (SlTrace) trace = NULL;
  sqlite3 *db = NULL;
  gsize len = 0;
  Counts got;

  /* A real rollback journal, taken while a transaction is open: beside an undamaged copy it
   * looks hot, and SQLite would roll it back into the file (or fail) were it not immutable. */
  g_assert_cmpint (sqlite3_open (scratch, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "PRAGMA cache_size = 10; BEGIN;"
                                     "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = start + 1;"
                                     "UPDATE NVTX_EVENTS SET start = start + 1;", NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_true (g_file_get_contents (scratch_journal, &journal_data, &len, NULL));
  g_assert_cmpuint (len, >, 512);
  sqlite3_exec (db, "ROLLBACK;", NULL, NULL, NULL);
  sqlite3_close (db);
  write_bytes (journal, journal_data, len);

  g_autofree char *journal_before = file_checksum (journal);
  trace = load_ok (path);
  g_autofree char *journal_after = file_checksum (journal);
  g_assert_cmpstr (journal_before, ==, journal_after);
  count_events (trace, &got);
  assert_kinds_equal (&got, &big_counts, ALL_KINDS);
  g_unlink (journal);
}

/* ---- the command line -------------------------------------------------------------------- */

static void
run_cli (const char *command,
         const char *path,
         int        *status,
         char      **out,
         char      **err)
{
  const char *argv[] = { SL_SIGHTLINE_BIN, command, path, NULL };
  g_autoptr (GError) error = NULL;
  int wait_status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err,
                               &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  *status = WEXITSTATUS (wait_status);
}

static void
test_cli (void)
{
  g_autofree char *not_sqlite = tmp_path ("cli-not-sqlite.sqlite");
  g_autofree char *missing = tmp_path ("cli-missing.sqlite");
  g_autofree char *dir = tmp_path ("cli-directory.sqlite");
  g_autofree char *truncated = tmp_path ("cli-truncated.sqlite");
  g_autofree char *unrelated = tmp_path ("cli-unrelated.sqlite");
  g_autofree char *src = sl_test_trace_path (BIG);
  g_autofree char *data = NULL;
  gsize len = 0;

  g_assert_true (g_file_set_contents (not_sqlite, "#!/bin/sh\necho not a trace\n", -1, NULL));
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_true (g_file_get_contents (src, &data, &len, NULL));
  write_bytes (truncated, data, len / 2);
  sl_test_exec_sql (unrelated, "CREATE TABLE t (x);");

  const char *bad[] = { not_sqlite, missing, dir, truncated, unrelated };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int status;

      for (guint c = 0; c < 2; c++)
        {
          const char *command = c == 0 ? "info" : "analyze";
          g_clear_pointer (&out, g_free);
          g_clear_pointer (&err, g_free);
          run_cli (command, bad[i], &status, &out, &err);
          g_test_message ("sightline %s %s: exit %d, stderr: %s", command, bad[i], status, err);
          g_assert_cmpint (status, ==, 1);
          g_assert_nonnull (strstr (err, bad[i]));
          g_assert_true (g_str_has_suffix (err, "\n"));
          g_assert_null (strchr (err, '\n') + 1 == err + strlen (err) ? NULL : "more than one line");
        }
    }
  g_rmdir (dir);

  /* a damaged but loadable file is described, its warnings on stderr; no crash either way */
  g_autofree char *zero = sl_test_copy_trace (BIG, "cli-zero.sqlite");
  sl_test_exec_sql (zero, "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME; DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL;"
                  "DELETE FROM CUPTI_ACTIVITY_KIND_MEMCPY; DELETE FROM CUPTI_ACTIVITY_KIND_MEMSET;"
                  "DELETE FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION; DELETE FROM NVTX_EVENTS;");
  g_autofree char *out = NULL, *err = NULL;
  int status;
  run_cli ("info", zero, &status, &out, &err);
  g_test_message ("sightline info %s: exit %d, stderr: %s", zero, status, err);
  g_assert_cmpint (status, ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  run_cli ("analyze", zero, &status, &out, &err);
  g_test_message ("sightline analyze %s: exit %d, stdout: %s", zero, status, out);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "Rules:"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  /* a hang is a failure, not a stuck CI job */
  alarm (600);

  {
    g_autofree char *tiny = sl_test_trace_path (TINY);
    g_autofree char *big = sl_test_trace_path (BIG);
    g_autoptr (SlTrace) t = load_ok (tiny);
    g_autoptr (SlTrace) b = load_ok (big);
    count_events (t, &tiny_counts);
    count_events (b, &big_counts);
    g_assert_cmpuint (big_counts.by_kind[SL_LANE_KERNELS], >, 20);
    g_assert_cmpuint (big_counts.by_kind[SL_LANE_NVTX], >, 20);
  }

  g_test_add_func ("/model/badinput/not-sqlite", test_not_sqlite);
  g_test_add_func ("/model/badinput/empty", test_empty);
  g_test_add_func ("/model/badinput/directory", test_directory);
  g_test_add_func ("/model/badinput/missing", test_missing);
  g_test_add_func ("/model/badinput/unreadable", test_unreadable);
  g_test_add_func ("/model/badinput/sqlite-not-trace", test_sqlite_not_trace);
  g_test_add_func ("/model/badinput/zero-rows", test_zero_rows);
  g_test_add_func ("/model/badinput/truncated", test_truncated);
  g_test_add_func ("/model/badinput/garbage-pages", test_garbage_pages);
  g_test_add_func ("/model/badinput/missing-table", test_missing_table);
  g_test_add_func ("/model/badinput/missing-column", test_missing_column);
  g_test_add_func ("/model/badinput/null-times", test_null_times);
  g_test_add_func ("/model/badinput/end-before-start", test_end_before_start);
  g_test_add_func ("/model/badinput/dangling-ids", test_dangling_ids);
  g_test_add_func ("/model/badinput/not-utf8", test_not_utf8);
  g_test_add_func ("/model/badinput/osrt-chains", test_osrt_chains);
  g_test_add_func ("/model/badinput/cuda-chains", test_cuda_chains);
  g_test_add_func ("/model/badinput/process-info", test_process_info);
  g_test_add_func ("/model/badinput/wrong-types", test_wrong_types);
  g_test_add_func ("/model/badinput/huge-ids", test_huge_ids);
  g_test_add_func ("/model/badinput/extreme-times", test_extreme_times);
  g_test_add_func ("/model/badinput/hostile/trigger", test_trigger);
  g_test_add_func ("/model/badinput/hostile/view-shadow", test_view_shadow);
  g_test_add_func ("/model/badinput/hostile/view-as-table", test_view_as_table);
  g_test_add_func ("/model/badinput/hostile/generated-column", test_generated_column);
  g_test_add_func ("/model/badinput/hostile/wal", test_wal);
  g_test_add_func ("/model/badinput/hostile/hot-journal", test_hot_journal);
  g_test_add_func ("/model/badinput/cli", test_cli);
  return g_test_run ();
}
