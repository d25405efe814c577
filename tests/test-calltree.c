/* test-calltree.c: call trees of CPU samples (model/sl-calltree.c) and `sightline samples`, against
 * SQL over COMPOSITE_EVENTS ⋈ SAMPLING_CALLCHAINS on every real trace with samples. */
#include <sqlite3.h>
#include <string.h>

#include "sl-calltree.h"
#include "sl-plant.h"
#include "sl-schema.h"
#include "sl-test-util.h"
#include "sl-trace.h"

/* ---- the oracle ------------------------------------------------------------------------------ */

/* A name as the folded format writes it: "[unknown]" for none, ';' and line breaks as '_'. */
static void
append_name (GString    *out,
             const char *name)
{
  if (name == NULL || *name == '\0')
    name = "[unknown]";
  for (const char *c = name; *c != '\0'; c++)
    g_string_append_c (out, *c == ';' || *c == '\n' || *c == '\r' ? '_' : *c);
}

static void
count_line (GHashTable *lines,
            const char *line,
            guint64     n)
{
  gpointer old = g_hash_table_lookup (lines, line);
  g_hash_table_insert (lines, g_strdup (line), GSIZE_TO_POINTER (GPOINTER_TO_SIZE (old) + n));
}

/* Stacks as SQL sees them: every sample of a thread (globalTid not NULL) in [t0, t1) (and of
 * one globalTid unless 0), its frames from SAMPLING_CALLCHAINS root first, as folded lines with
 * their counts. */
static GHashTable *
oracle_stacks (const char *path,
               gint64      t0,
               gint64      t1,
               gint64      global_tid)
{
  GHashTable *lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT e.id, c.stackDepth, s.value FROM COMPOSITE_EVENTS e "
                                       "LEFT JOIN SAMPLING_CALLCHAINS c ON c.id = e.id "
                                       "LEFT JOIN StringIds s ON s.id = c.symbol "
                                       "WHERE e.globalTid IS NOT NULL AND e.start >= ?1 "
                                       "AND e.start < ?2 AND (?3 = 0 OR e.globalTid = ?3) "
                                       "ORDER BY e.id, c.stackDepth DESC",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  sqlite3_bind_int64 (stmt, 1, t0);
  sqlite3_bind_int64 (stmt, 2, t1);
  sqlite3_bind_int64 (stmt, 3, global_tid);

  g_autoptr (GString) line = g_string_new (NULL);
  gint64 current = G_MININT64;
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);
      if (id != current)
        {
          if (current != G_MININT64)
            count_line (lines, line->str, 1);
          current = id;
          g_string_truncate (line, 0);
        }
      if (sqlite3_column_type (stmt, 1) == SQLITE_NULL)
        {
          g_string_append (line, "[no stack]");
          continue;
        }
      if (line->len > 0)
        g_string_append_c (line, ';');
      append_name (line, (const char *) sqlite3_column_text (stmt, 2));
    }
  if (current != G_MININT64)
    count_line (lines, line->str, 1);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return lines;
}

/* Per function (symbol and module): samples taken in it (leaf, depth 0) and samples whose chain
 * holds it, a recursive function once per sample.  Keys "symbol\tmodule". */
static void
oracle_functions (const char  *path,
                  GHashTable **self,
                  GHashTable **total)
{
  sqlite3 *db = NULL;
  const char *sql[2] = {
    "SELECT s.value, m.value, count(*) FROM COMPOSITE_EVENTS e "
    "JOIN SAMPLING_CALLCHAINS c ON c.id = e.id AND c.stackDepth = 0 "
    "LEFT JOIN StringIds s ON s.id = c.symbol LEFT JOIN StringIds m ON m.id = c.module "
    "WHERE e.globalTid IS NOT NULL GROUP BY c.symbol, c.module",
    "SELECT s.value, m.value, count(DISTINCT e.id) FROM COMPOSITE_EVENTS e "
    "JOIN SAMPLING_CALLCHAINS c ON c.id = e.id "
    "LEFT JOIN StringIds s ON s.id = c.symbol LEFT JOIN StringIds m ON m.id = c.module "
    "WHERE e.globalTid IS NOT NULL GROUP BY c.symbol, c.module",
  };
  GHashTable **out[2] = { self, total };

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  for (guint k = 0; k < 2; k++)
    {
      sqlite3_stmt *stmt = NULL;
      *out[k] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_assert_cmpint (sqlite3_prepare_v2 (db, sql[k], -1, &stmt, NULL), ==, SQLITE_OK);
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          const char *sym = (const char *) sqlite3_column_text (stmt, 0);
          const char *mod = (const char *) sqlite3_column_text (stmt, 1);
          g_autofree char *key = g_strdup_printf ("%s\t%s", sym != NULL && *sym != '\0' ? sym
                                                  : "[unknown]", mod != NULL ? mod : "");
          count_line (*out[k], key, (guint64) sqlite3_column_int64 (stmt, 2));
        }
      sqlite3_finalize (stmt);
    }
  sqlite3_close (db);
}

/* ---- comparing ------------------------------------------------------------------------------- */

/* "a;b COUNT\n" lines into a table; every line well formed, none twice. */
static GHashTable *
parse_folded (const char *text)
{
  GHashTable *lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) rows = g_strsplit (text, "\n", -1);

  for (char **r = rows; *r != NULL; r++)
    {
      if (**r == '\0')
        continue;
      char *space = strrchr (*r, ' ');
      g_assert_nonnull (space);
      *space = '\0';
      guint64 n = 0;
      g_assert_true (g_ascii_string_to_unsigned (space + 1, 10, 1, G_MAXUINT64, &n, NULL));
      g_assert_false (g_hash_table_contains (lines, *r));
      g_hash_table_insert (lines, g_strdup (*r), GSIZE_TO_POINTER (n));
    }
  return lines;
}

static void
assert_same_counts (GHashTable *expected,
                    GHashTable *got,
                    const char *what)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, expected);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      gpointer have = g_hash_table_lookup (got, key);
      if (GPOINTER_TO_SIZE (have) != GPOINTER_TO_SIZE (value))
        g_error ("%s: '%s': expected %" G_GSIZE_FORMAT ", got %" G_GSIZE_FORMAT, what,
                 (const char *) key, GPOINTER_TO_SIZE (value), GPOINTER_TO_SIZE (have));
    }
  g_assert_cmpuint (g_hash_table_size (got), ==, g_hash_table_size (expected));
}

static guint64
sum_counts (GHashTable *lines)
{
  GHashTableIter iter;
  gpointer value;
  guint64 sum = 0;

  g_hash_table_iter_init (&iter, lines);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    sum += GPOINTER_TO_SIZE (value);
  return sum;
}

/* Top-down, every node's total is its self plus its children's totals (bottom-up, at least its
 * children's); the children in order of total; depths and parents agree. */
static void
check_tree_shape (SlCalltree      *tree,
                  SlCalltreeOrder  order)
{
  guint n = sl_calltree_get_n_nodes (tree, order);
  guint visited = 1;

  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpuint (sl_calltree_get_node (tree, order, 0)->total, ==,
                    sl_calltree_get_n_samples (tree));
  for (guint i = 0; i < n; i++)
    {
      const SlCalltreeNode *node = sl_calltree_get_node (tree, order, i);
      /* bottom-up, a root's samples are all its self and go on into its callers */
      guint64 sum = order == SL_CALLTREE_TOP_DOWN ? node->self : 0, last = G_MAXUINT64;
      for (guint32 c = node->first_child; c != SL_CALLTREE_NONE;
           c = sl_calltree_get_node (tree, order, c)->next_sibling)
        {
          const SlCalltreeNode *child = sl_calltree_get_node (tree, order, c);
          g_assert_cmpuint (child->parent, ==, i);
          g_assert_cmpuint (child->depth, ==, node->depth + 1);
          g_assert_cmpuint (child->total, <=, last);
          g_assert_cmpuint (child->total, >, 0);
          last = child->total;
          sum += child->total;
          visited++;
        }
      if (order == SL_CALLTREE_TOP_DOWN)
        g_assert_cmpuint (sum, ==, node->total);
      else
        {
          g_assert_cmpuint (sum, <=, node->total);
          g_assert_cmpuint (node->self, ==, node->depth == 1 ? node->total : 0);
        }
    }
  g_assert_cmpuint (visited, ==, n);
}

/* Leaf counts: the bottom-up roots, by name, equal the leaves of the stacks. */
static void
check_leaves (SlCalltree *tree,
              GHashTable *stacks)
{
  g_autoptr (GHashTable) expected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) got = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, stacks);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *leaf = strrchr (key, ';');
      count_line (expected, leaf != NULL ? leaf + 1 : key, GPOINTER_TO_SIZE (value));
    }
  const SlCalltreeNode *root = sl_calltree_get_node (tree, SL_CALLTREE_BOTTOM_UP, 0);
  for (guint32 c = root->first_child; c != SL_CALLTREE_NONE;
       c = sl_calltree_get_node (tree, SL_CALLTREE_BOTTOM_UP, c)->next_sibling)
    {
      const SlCalltreeNode *n = sl_calltree_get_node (tree, SL_CALLTREE_BOTTOM_UP, c);
      g_autoptr (GString) name = g_string_new (NULL);
      append_name (name, sl_calltree_symbol_name (tree, n->symbol));
      g_assert_cmpuint (n->self, ==, n->total);
      count_line (got, name->str, n->self);
    }
  assert_same_counts (expected, got, "leaf");
}

/* `sightline samples ARGS…` */
#define run_samples(run, ...) sl_test_run ((run), SL_SIGHTLINE_BIN, "samples", __VA_ARGS__)

static GHashTable *
folded_of (SlCalltree *tree)
{
  g_autoptr (GString) text = g_string_new (NULL);
  sl_calltree_write_folded (tree, text);
  return parse_folded (text->str);
}

static gboolean
has_samples (const char *path)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gboolean yes = FALSE;

  if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
      && sqlite3_prepare_v2 (db, "SELECT count(*) FROM COMPOSITE_EVENTS", -1, &stmt, NULL)
             == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    yes = sqlite3_column_int64 (stmt, 0) > 0;
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return yes;
}

/* The sample times of a trace in the model, sorted, and the thread with most samples. */
static GArray *
sample_times (SlTrace *trace,
              guint   *busiest)
{
  GArray *times = g_array_new (FALSE, FALSE, sizeof (SlTime));
  gsize most = 0;

  *busiest = 0;
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind != SL_LANE_SAMPLES)
        continue;
      for (gsize i = 0; i < lane->n_events; i++)
        g_array_append_val (times, lane->events[i].start);
      if (lane->n_events > most)
        {
          most = lane->n_events;
          *busiest = (guint) lane->thread;
        }
    }
  return times;
}

/* ---- real traces ----------------------------------------------------------------------------- */

static int
compare_times (gconstpointer a,
               gconstpointer b)
{
  SlTime x = *(const SlTime *) a, y = *(const SlTime *) b;
  return x < y ? -1 : x > y;
}

static void
check_real (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  /* the whole trace: stacks, leaves, functions, the tree's shape, and the CLI */
  g_autoptr (SlCalltree) tree = sl_calltree_build (trace, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) stacks = oracle_stacks (path, G_MININT64, G_MAXINT64, 0);
  g_assert_cmpuint (sl_calltree_get_n_samples (tree), ==, sum_counts (stacks));
  g_assert_cmpuint (sl_calltree_get_n_samples (tree), >, 0);
  g_autoptr (GHashTable) folded = folded_of (tree);
  assert_same_counts (stacks, folded, "stack");
  check_leaves (tree, stacks);
  check_tree_shape (tree, SL_CALLTREE_TOP_DOWN);
  check_tree_shape (tree, SL_CALLTREE_BOTTOM_UP);

  g_autoptr (GHashTable) self = NULL;
  g_autoptr (GHashTable) total = NULL;
  oracle_functions (path, &self, &total);
  g_autoptr (GHashTable) got_self = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) got_total = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < sl_calltree_get_n_functions (tree); i++)
    {
      const SlCalltreeFunction *f = sl_calltree_get_function (tree, i);
      if (f->symbol == SL_CALLTREE_NO_STACK)
        continue;
      const char *mod = sl_trace_str (trace, f->module);
      g_autofree char *key = g_strdup_printf ("%s\t%s", sl_calltree_symbol_name (tree, f->symbol),
                                              mod != NULL ? mod : "");
      if (f->self > 0)
        count_line (got_self, key, f->self);
      count_line (got_total, key, f->total);
      if (i > 0)
        g_assert_cmpuint (sl_calltree_get_function (tree, i - 1)->self, >=, f->self);
    }
  assert_same_counts (self, got_self, "self");
  assert_same_counts (total, got_total, "total");

  g_auto (SlTestRun) run = { 0 };
  run_samples (&run, path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_autoptr (GHashTable) cli = parse_folded (run.out);
  assert_same_counts (stacks, cli, "CLI stack");

  /* a range: the middle third of the samples, by time */
  guint busiest = 0;
  g_autoptr (GArray) times = sample_times (trace, &busiest);
  g_array_sort (times, compare_times);
  SlTime t0 = g_array_index (times, SlTime, times->len / 3);
  SlTime t1 = g_array_index (times, SlTime, times->len * 2 / 3) + 1;
  SlCalltreeScope scope;
  sl_calltree_scope_init (&scope);
  scope.t0 = t0;
  scope.t1 = t1;
  g_autoptr (SlCalltree) ranged = sl_calltree_build (trace, &scope, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) ranged_stacks = oracle_stacks (path, t0, t1, 0);
  g_assert_cmpuint (sum_counts (ranged_stacks), <, sum_counts (stacks));
  g_autoptr (GHashTable) ranged_folded = folded_of (ranged);
  assert_same_counts (ranged_stacks, ranged_folded, "range stack");
  check_leaves (ranged, ranged_stacks);
  check_tree_shape (ranged, SL_CALLTREE_TOP_DOWN);
  check_tree_shape (ranged, SL_CALLTREE_BOTTOM_UP);

  g_autofree char *range = g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                                            t0 - sl_trace_get_origin (trace),
                                            t1 - sl_trace_get_origin (trace));
  g_auto (SlTestRun) ranged_run = { 0 };
  run_samples (&ranged_run, path, "--range", range, NULL);
  g_assert_cmpint (ranged_run.status, ==, 0);
  g_autoptr (GHashTable) ranged_cli = parse_folded (ranged_run.out);
  assert_same_counts (ranged_stacks, ranged_cli, "CLI range stack");

  /* one thread: the one with most samples, by index and through --pid/--tid */
  const SlThread *thread = sl_trace_get_thread (trace, busiest);
  scope.t0 = G_MININT64;
  scope.t1 = G_MAXINT64;
  scope.threads = &busiest;
  scope.n_threads = 1;
  g_autoptr (SlCalltree) one = sl_calltree_build (trace, &scope, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) one_stacks = oracle_stacks (path, G_MININT64, G_MAXINT64,
                                                     (gint64) thread->global_tid);
  g_autoptr (GHashTable) one_folded = folded_of (one);
  assert_same_counts (one_stacks, one_folded, "thread stack");
  g_autofree char *pid = g_strdup_printf ("%u", thread->pid);
  g_autofree char *tid = g_strdup_printf ("%u", thread->tid);
  g_auto (SlTestRun) one_run = { 0 };
  run_samples (&one_run, path, "--pid", pid, "--tid", tid, NULL);
  g_assert_cmpint (one_run.status, ==, 0);
  g_autoptr (GHashTable) one_cli = parse_folded (one_run.out);
  assert_same_counts (one_stacks, one_cli, "CLI thread stack");

  /* top: one line per function, the first being the function with most self samples */
  g_auto (SlTestRun) top = { 0 };
  run_samples (&top, path, "--format", "top", NULL);
  g_assert_cmpint (top.status, ==, 0);
  const SlCalltreeFunction *first = sl_calltree_get_function (tree, 0);
  g_autofree char *first_line = g_strdup_printf ("%" G_GUINT64_FORMAT " %6.2f%%", first->self,
                                                 100.0 * (double) first->self
                                                     / (double) sl_calltree_get_n_samples (tree));
  g_assert_nonnull (strstr (top.out, first_line));
  g_assert_nonnull (strstr (top.out, sl_calltree_symbol_name (tree, first->symbol)));
}

static void
test_real (void)
{
  g_auto (GStrv) traces = sl_test_nsys_traces ();
  guint checked = 0;

  for (char **t = traces; *t != NULL; t++)
    {
      if (!has_samples (*t))
        continue;
      g_test_message ("%s", *t);
      check_real (*t);
      checked++;
    }
  /* nsys-2023.2-cutlass-cpu-sampling and nsys-2026.1-osrt-sampling at least */
  g_assert_cmpuint (checked, >=, 2);
}

/* ---- planted stacks with known answers ------------------------------------------------------- */

/* Adds samples with call chains (frames leaf first, "|"-separated; "" for none) to a planted
 * trace, straight in SQL: ids from 1000, strings from 100000. */
typedef struct
{
  sqlite3 *db;
  gint64   next_id;
  gint64   next_str;
} Raw;

static gint64
raw_str (Raw        *raw,
         const char *text)
{
  sqlite3_stmt *stmt = NULL;
  gint64 id = raw->next_str++;

  g_assert_cmpint (sqlite3_prepare_v2 (raw->db, "INSERT INTO StringIds VALUES (?, ?)", -1, &stmt,
                                       NULL), ==, SQLITE_OK);
  sqlite3_bind_int64 (stmt, 1, id);
  sqlite3_bind_text (stmt, 2, text, -1, SQLITE_TRANSIENT);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
  sqlite3_finalize (stmt);
  return id;
}

static void
raw_exec (Raw        *raw,
          const char *sql)
{
  g_assert_cmpint (sqlite3_exec (raw->db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
}

static void
raw_sample (Raw        *raw,
            gint        tid,
            gint64      t,
            const char *frames)
{
  gint64 id = raw->next_id++;
  g_autofree char *sql = g_strdup_printf ("INSERT INTO COMPOSITE_EVENTS VALUES (%" G_GINT64_FORMAT
                                          ", %" G_GINT64_FORMAT ", 0, 1, %" G_GINT64_FORMAT ", 0)",
                                          id, t, (gint64) SL_GLOBAL_TID (1, PLANT_MAIN, tid));
  raw_exec (raw, sql);
  if (*frames == '\0')
    return;
  g_auto (GStrv) names = g_strsplit (frames, "|", -1);
  gint64 module = raw_str (raw, "libplant.so");
  for (guint d = 0; names[d] != NULL; d++)
    {
      gint64 sym = strcmp (names[d], "?") == 0 ? 999999 : raw_str (raw, names[d]);
      g_autofree char *row = g_strdup_printf ("INSERT INTO SAMPLING_CALLCHAINS VALUES (%"
                                              G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
                                              G_GINT64_FORMAT ", 0, 0, 0, NULL, NULL, 7, %u)",
                                              id, sym, module, d);
      raw_exec (raw, row);
    }
}

/* A trace with a plant's schema and one CUDA call (so it is a trace), then raw samples. */
static char *
planted_samples (const char *name,
                 void      (*add) (Raw *raw))
{
  char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
  Plant *p = plant_new (path);
  plant_api (p, PLANT_MAIN, "cudaFree", PLANT_MS, PLANT_MS + 10 * PLANT_US);
  plant_sample (p, PLANT_LOADER_0, 100 * PLANT_MS, "planted_leaf");
  plant_finish (p);

  Raw raw = { NULL, 1000, 100000 };
  g_assert_cmpint (sqlite3_open (path, &raw.db), ==, SQLITE_OK);
  raw_exec (&raw, "BEGIN");
  add (&raw);
  raw_exec (&raw, "COMMIT");
  sqlite3_close (raw.db);
  return path;
}

static void
add_known (Raw *raw)
{
  /* main: spin ×5 (of which 2 recursive), read ×2, one without a stack; loader: collate ×3 */
  for (int i = 0; i < 3; i++)
    raw_sample (raw, PLANT_MAIN, (10 + i) * PLANT_MS, "spin|work|main");
  for (int i = 0; i < 2; i++)
    raw_sample (raw, PLANT_MAIN, (20 + i) * PLANT_MS, "spin|work|spin|work|main");
  for (int i = 0; i < 2; i++)
    raw_sample (raw, PLANT_MAIN, (30 + i) * PLANT_MS, "read|load;data|main");
  raw_sample (raw, PLANT_MAIN, 40 * PLANT_MS, "");
  for (int i = 0; i < 3; i++)
    raw_sample (raw, PLANT_LOADER_0, (50 + i) * PLANT_MS, "collate|?|worker");
}

static const char *known_folded
  = "[no stack] 1\n"
    "main;load_data;read 2\n"
    "main;work;spin 3\n"
    "main;work;spin;work;spin 2\n"
    "planted_leaf 1\n"
    "worker;[unknown];collate 3\n";

static const SlCalltreeFunction *
find_function (SlCalltree *tree,
               const char *name)
{
  for (guint i = 0; i < sl_calltree_get_n_functions (tree); i++)
    {
      const SlCalltreeFunction *f = sl_calltree_get_function (tree, i);
      if (strcmp (sl_calltree_symbol_name (tree, f->symbol), name) == 0)
        return f;
    }
  return NULL;
}

static void
test_known (void)
{
  g_autofree char *path = planted_samples ("known.sqlite", add_known);
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlCalltree) tree = sl_calltree_build (trace, NULL, NULL, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (sl_calltree_get_n_samples (tree), ==, 12);
  g_autoptr (GString) folded = g_string_new (NULL);
  sl_calltree_write_folded (tree, folded);
  g_assert_cmpstr (folded->str, ==, known_folded);
  check_tree_shape (tree, SL_CALLTREE_TOP_DOWN);
  check_tree_shape (tree, SL_CALLTREE_BOTTOM_UP);

  /* recursion counts once per sample in a function's total */
  const SlCalltreeFunction *spin = find_function (tree, "spin");
  const SlCalltreeFunction *work = find_function (tree, "work");
  const SlCalltreeFunction *main_fn = find_function (tree, "main");
  g_assert_cmpuint (spin->self, ==, 5);
  g_assert_cmpuint (spin->total, ==, 5);
  g_assert_cmpuint (work->self, ==, 0);
  g_assert_cmpuint (work->total, ==, 5);
  g_assert_cmpuint (main_fn->total, ==, 7);
  g_assert_cmpstr (sl_calltree_symbol_name (tree, sl_calltree_get_function (tree, 0)->symbol), ==,
                   "spin");

  /* top-down: root → main (7) → work (5) → spin (5, self 3) → work (2) → spin (2, self 2) */
  const SlCalltreeNode *root = sl_calltree_get_node (tree, SL_CALLTREE_TOP_DOWN, 0);
  const SlCalltreeNode *n = sl_calltree_get_node (tree, SL_CALLTREE_TOP_DOWN, root->first_child);
  g_assert_cmpstr (sl_calltree_symbol_name (tree, n->symbol), ==, "main");
  g_assert_cmpuint (n->total, ==, 7);
  n = sl_calltree_get_node (tree, SL_CALLTREE_TOP_DOWN, n->first_child);
  g_assert_cmpstr (sl_calltree_symbol_name (tree, n->symbol), ==, "work");
  n = sl_calltree_get_node (tree, SL_CALLTREE_TOP_DOWN, n->first_child);
  g_assert_cmpstr (sl_calltree_symbol_name (tree, n->symbol), ==, "spin");
  g_assert_cmpuint (n->total, ==, 5);
  g_assert_cmpuint (n->self, ==, 3);

  /* bottom-up: spin (5) first, its callers: work (5) → main (3) and spin (2) */
  root = sl_calltree_get_node (tree, SL_CALLTREE_BOTTOM_UP, 0);
  n = sl_calltree_get_node (tree, SL_CALLTREE_BOTTOM_UP, root->first_child);
  g_assert_cmpstr (sl_calltree_symbol_name (tree, n->symbol), ==, "spin");
  g_assert_cmpuint (n->self, ==, 5);
  n = sl_calltree_get_node (tree, SL_CALLTREE_BOTTOM_UP, n->first_child);
  g_assert_cmpstr (sl_calltree_symbol_name (tree, n->symbol), ==, "work");
  g_assert_cmpuint (n->total, ==, 5);
  n = sl_calltree_get_node (tree, SL_CALLTREE_BOTTOM_UP, n->first_child);
  g_assert_cmpstr (sl_calltree_symbol_name (tree, n->symbol), ==, "main");
  g_assert_cmpuint (n->total, ==, 3);

  /* a range [20 ms, 31 ms) of the session (`--range` counts from its time 0) and the
   * loader thread alone, in the model and the CLI */
  SlCalltreeScope scope;
  sl_calltree_scope_init (&scope);
  scope.t0 = 20 * PLANT_MS;
  scope.t1 = 31 * PLANT_MS;
  g_autoptr (SlCalltree) ranged = sl_calltree_build (trace, &scope, NULL, &error);
  g_assert_no_error (error);
  g_string_truncate (folded, 0);
  sl_calltree_write_folded (ranged, folded);
  g_assert_cmpstr (folded->str, ==, "main;load_data;read 1\nmain;work;spin;work;spin 2\n");
  g_auto (SlTestRun) run = { 0 };
  g_autofree char *range = g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                                            scope.t0 - sl_trace_get_origin (trace),
                                            scope.t1 - sl_trace_get_origin (trace));
  run_samples (&run, path, "--range", range, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==, folded->str);

  g_auto (SlTestRun) loader = { 0 };
  run_samples (&loader, path, "--tid", "101", NULL);
  g_assert_cmpint (loader.status, ==, 0);
  g_assert_cmpstr (loader.out, ==, "planted_leaf 1\nworker;[unknown];collate 3\n");
  g_auto (SlTestRun) top = { 0 };
  run_samples (&top, path, "--tid", "101", "--format", "top", NULL);
  g_assert_cmpint (top.status, ==, 0);
  g_assert_nonnull (strstr (top.out, "4 samples"));
  g_assert_nonnull (strstr (top.out,
                            "         3  75.00%          3  75.00%  collate [libplant.so]"));
}

/* Damaged input: chains that point nowhere (no sample), samples whose chain is missing,
 * symbols that name no string, samples of no thread. */
static void
add_damaged (Raw *raw)
{
  raw_sample (raw, PLANT_MAIN, 10 * PLANT_MS, "a|b");
  raw_sample (raw, PLANT_MAIN, 11 * PLANT_MS, "?|?");
  raw_sample (raw, PLANT_MAIN, 12 * PLANT_MS, "");
  raw_exec (raw, "INSERT INTO SAMPLING_CALLCHAINS VALUES (77777, 1, 1, 0, 0, 0, NULL, NULL, 7, 0)");
  raw_exec (raw, "INSERT INTO COMPOSITE_EVENTS VALUES (88888, 13000000, 0, 1, NULL, 0)");
  raw_exec (raw, "INSERT INTO SAMPLING_CALLCHAINS VALUES (88888, 1, 1, 0, 0, 0, NULL, NULL, 7, 0)");
}

static void
test_damaged (void)
{
  g_autofree char *path = planted_samples ("damaged.sqlite", add_damaged);
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlCalltree) tree = sl_calltree_build (trace, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GString) folded = g_string_new (NULL);
  sl_calltree_write_folded (tree, folded);
  g_assert_cmpstr (folded->str, ==, "[no stack] 1\n[unknown];[unknown] 1\nb;a 1\nplanted_leaf 1\n");
  g_autoptr (GHashTable) stacks = oracle_stacks (path, G_MININT64, G_MAXINT64, 0);
  g_autoptr (GHashTable) got = parse_folded (folded->str);
  assert_same_counts (stacks, got, "damaged stack");

  /* a sample whose call-chain index is past the table: [no stack], never a read out of bounds */
  g_assert_cmpuint (sl_trace_get_callchain (trace, G_MAXUINT32 - 1, &(const guint32 *) { NULL },
                                            &(const guint32 *) { NULL }), ==, 0);

  /* no SAMPLING_CALLCHAINS at all: every sample counted, each as [no stack] */
  g_autofree char *chainless = planted_samples ("chainless.sqlite", add_known);
  {
    sqlite3 *db = NULL;
    g_assert_cmpint (sqlite3_open (chainless, &db), ==, SQLITE_OK);
    g_assert_cmpint (sqlite3_exec (db, "DROP TABLE SAMPLING_CALLCHAINS", NULL, NULL, NULL), ==,
                     SQLITE_OK);
    sqlite3_close (db);
  }
  g_auto (SlTestRun) chainless_run = { 0 };
  run_samples (&chainless_run, chainless, NULL);
  g_assert_cmpint (chainless_run.status, ==, 0);
  g_assert_cmpstr (chainless_run.out, ==, "[no stack] 12\n");

  /* a trace without samples: an empty tree */
  g_autofree char *none = g_build_filename (sl_test_tmpdir (), "none.sqlite", NULL);
  Plant *p = plant_new (none);
  plant_api (p, PLANT_MAIN, "cudaFree", PLANT_MS, 2 * PLANT_MS);
  plant_finish (p);
  g_autoptr (SlTrace) empty = sl_trace_load (none, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlCalltree) nothing = sl_calltree_build (empty, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_calltree_get_n_samples (nothing), ==, 0);
  g_assert_cmpuint (sl_calltree_get_n_nodes (nothing, SL_CALLTREE_TOP_DOWN), ==, 1);
  g_assert_cmpuint (sl_calltree_get_n_functions (nothing), ==, 0);
  g_auto (SlTestRun) run = { 0 };
  run_samples (&run, none, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_nonnull (strstr (run.err, "no CPU samples"));

  /* cancelled: NULL and G_IO_ERROR_CANCELLED */
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_cancellable_cancel (cancel);
  g_autoptr (GError) cancelled = NULL;
  g_assert_null (sl_calltree_build (trace, NULL, cancel, &cancelled));
  g_assert_error (cancelled, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_cmd_errors (void)
{
  g_autofree char *path = planted_samples ("errors.sqlite", add_known);
  struct
  {
    const char *args[4];
    const char *says;
  } cases[] = {
    { { "/nonexistent/x.sqlite" }, "/nonexistent/x.sqlite" },
    { { path, "--range", "5s:1s" }, "errors.sqlite: --range" },
    { { path, "--range", "10s:20s" }, "errors.sqlite: --range" },
    { { path, "--pid", "4242" }, "errors.sqlite: no process 4242" },
    { { path, "--tid", "4242" }, "errors.sqlite: no thread 4242" },
    { { path, "--format", "svg" }, "unknown format 'svg'" },
    { { path, path }, "exactly one trace FILE" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (SlTestRun) run = { 0 };
      run_samples (&run, cases[i].args[0], cases[i].args[1], cases[i].args[2], cases[i].args[3],
                   NULL);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_nonnull (strstr (run.err, cases[i].says));
      g_assert_cmpstr (run.out, ==, "");
    }
}

/* name -> count of the SQL's rows (name, count) */
static GHashTable *
sql_counts (sqlite3    *db,
            const char *sql)
{
  GHashTable *counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3_stmt *stmt = NULL;

  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    g_hash_table_insert (counts, g_strdup ((const char *) sqlite3_column_text (stmt, 0)),
                         GSIZE_TO_POINTER ((gsize) sqlite3_column_int64 (stmt, 1)));
  sqlite3_finalize (stmt);
  return counts;
}

static void
assert_same_totals (GHashTable *got,
                    GHashTable *want)
{
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpuint (g_hash_table_size (got), ==, g_hash_table_size (want));
  g_hash_table_iter_init (&iter, want);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_test_message ("%s: %" G_GSIZE_FORMAT, (const char *) key, GPOINTER_TO_SIZE (value));
      g_assert_true (g_hash_table_contains (got, key));
      g_assert_cmpuint (GPOINTER_TO_SIZE (g_hash_table_lookup (got, key)), ==,
                        GPOINTER_TO_SIZE (value));
    }
}

/* The calls of a tree of CUDA API calls by name: the self of each call's own frame. */
static GHashTable *
api_totals (SlCalltree *tree)
{
  GHashTable *totals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < sl_calltree_get_n_functions (tree); i++)
    {
      const SlCalltreeFunction *f = sl_calltree_get_function (tree, i);
      if (f->symbol >= SL_CALLTREE_STEPS || !(f->symbol & SL_CALLTREE_API_CALL))
        {
          g_assert_cmpuint (f->self, ==, 0);   /* a call's own frame is the leaf, always */
          continue;
        }
      const char *name = sl_calltree_symbol_name (tree, f->symbol);
      gsize before = GPOINTER_TO_SIZE (g_hash_table_lookup (totals, name));
      g_hash_table_insert (totals, g_strdup (name), GSIZE_TO_POINTER (before + f->self));
    }
  return totals;
}

/* The calls of folded lines by their leaf frame. */
static GHashTable *
folded_leaf_totals (const char *text)
{
  g_autoptr (GHashTable) lines = parse_folded (text);
  GHashTable *totals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, lines);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *leaf = strrchr (key, ';');
      leaf = leaf != NULL ? leaf + 1 : key;
      gsize before = GPOINTER_TO_SIZE (g_hash_table_lookup (totals, leaf));
      g_hash_table_insert (totals, g_strdup (leaf),
                           GSIZE_TO_POINTER (before + GPOINTER_TO_SIZE (value)));
    }
  return totals;
}

/* Issue 30, item 3: `samples --source cuda-api` of nsys-2021-cuda-backtraces.sqlite: the calls
 * with a backtrace by API name, counted or timed, equal SQL's, from the model and from the
 * command (folded: a line's leaf frame is the call); --name by glob and by text; a trace without
 * CUDA_CALLCHAINS says so; wrong options are errors. */
static void
test_cuda_api (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2021-cuda-backtraces.sqlite");
  g_autofree char *tiny = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  sqlite3 *db = sl_test_open_db (path);
  const char *calls = "SELECT s.value, %s FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s "
                      "ON s.id = r.nameId WHERE r.callchainId IS NOT NULL %s GROUP BY s.value";
  g_autofree char *by_count = g_strdup_printf (calls, "count(*)", "");
  g_autofree char *by_time = g_strdup_printf (calls, "sum(r.end - r.start)", "");
  g_autoptr (GHashTable) want_count = sql_counts (db, by_count);
  g_autoptr (GHashTable) want_time = sql_counts (db, by_time);
  SlCalltreeScope scope;

  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (want_count), ==, 4);
  sl_calltree_scope_init (&scope);
  scope.source = SL_CALLTREE_FROM_CUDA_API;
  {
    g_autoptr (SlCalltree) tree = sl_calltree_build (trace, &scope, NULL, &error);
    g_autoptr (GHashTable) got = api_totals (tree);
    g_assert_no_error (error);
    g_assert_cmpint (sl_calltree_get_unit (tree), ==, SL_CALLTREE_CALLS);
    g_assert_cmpuint (sl_calltree_get_n_samples (tree), ==,
                      sl_test_sql_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                                           "WHERE callchainId IS NOT NULL"));
    assert_same_totals (got, want_count);
  }
  scope.weight = SL_CALLTREE_BY_TIME;
  {
    g_autoptr (SlCalltree) tree = sl_calltree_build (trace, &scope, NULL, &error);
    g_autoptr (GHashTable) got = api_totals (tree);
    g_assert_cmpint (sl_calltree_get_unit (tree), ==, SL_CALLTREE_NANOSECONDS);
    assert_same_totals (got, want_time);
  }

  /* the command, by count and by time, and with a name pattern */
  {
    g_auto (SlTestRun) run = { 0 };
    run_samples (&run, path, "--source", "cuda-api", "--weight", "count", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_autoptr (GHashTable) got = folded_leaf_totals (run.out);
    assert_same_totals (got, want_count);
  }
  {
    g_auto (SlTestRun) run = { 0 };
    run_samples (&run, path, "--source", "cuda-api", "--weight", "time", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_autoptr (GHashTable) got = folded_leaf_totals (run.out);
    assert_same_totals (got, want_time);
  }
  static const char *const patterns[][2] = {
    { "cudaM*", "AND s.value GLOB 'cudaM*'" },
    { "Sync", "AND instr (s.value, 'Sync') > 0" },
    { "cuda?aunchKernel", "AND s.value GLOB 'cuda?aunchKernel'" },
    { "nothing", "AND 0" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (patterns); i++)
    {
      g_auto (SlTestRun) run = { 0 };
      g_autofree char *sql = g_strdup_printf (calls, "count(*)", patterns[i][1]);
      g_autoptr (GHashTable) want = sql_counts (db, sql);
      run_samples (&run, path, "--source", "cuda-api", "--name", patterns[i][0], NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_autoptr (GHashTable) got = folded_leaf_totals (run.out);
      assert_same_totals (got, want);
      if (g_hash_table_size (want) == 0)
        g_assert_nonnull (strstr (run.err, "no CUDA API call with a backtrace in the selection"));
    }
  {
    g_auto (SlTestRun) run = { 0 };
    run_samples (&run, path, "--source", "cuda-api", "--format", "top", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.out, "18 CUDA API calls with a backtrace"));
  }
  {
    g_auto (SlTestRun) run = { 0 };
    run_samples (&run, tiny, "--source", "cuda-api", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_cmpstr (run.out, ==, "");
    g_assert_nonnull (strstr (run.err, "no CUDA API call has a backtrace"));
  }
  static const struct
  {
    const char *args[4];
    const char *says;
  } wrong[] = {
    { { "--source", "gpu" }, "unknown source 'gpu'" },
    { { "--source", "cuda-api", "--weight", "bytes" }, "unknown weight 'bytes'" },
    { { "--weight", "time" }, "go with --source cuda-api" },
    { { "--name", "cuda*" }, "go with --source cuda-api" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (wrong); i++)
    {
      g_auto (SlTestRun) run = { 0 };
      run_samples (&run, path, wrong[i].args[0], wrong[i].args[1], wrong[i].args[2],
                   wrong[i].args[3], NULL);
      g_assert_cmpint (run.status, ==, 2);
      g_assert_nonnull (strstr (run.err, wrong[i].says));
      g_assert_cmpstr (run.out, ==, "");
    }
  sqlite3_close (db);
}

/* A thread with scheduling rows and no samples nor name (in a recording, a thread of a process
 * the injection library is not in, or one that only slept): `sightline info` lists it, so
 * `samples --tid` of it is an empty answer, exit 0, not "no thread" (issue 29, item 4); a thread
 * the trace does not hold still is an error. */
static void
test_cmd_thread_without_samples (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "sched-only.sqlite", NULL);
  g_autoptr (GError) error = NULL;
  Plant *p = plant_new (path);
  gboolean listed = FALSE;

  plant_sample (p, PLANT_MAIN, 10 * PLANT_MS, "main_leaf");
  plant_sched_slice (p, PLANT_MAIN, 103, 0, 5 * PLANT_MS, 6 * PLANT_MS, 2, -1);
  plant_sched_slice (p, PLANT_MAIN, 103, 1, 8 * PLANT_MS, 9 * PLANT_MS, 2, -1);
  plant_finish (p);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < sl_trace_get_n_threads (trace); i++)
    listed |= sl_trace_get_thread (trace, i)->tid == 103;
  g_assert_true (listed);

  const char *const selections[][4] = { { "--tid", "103" }, { "--pid", "100", "--tid", "103" } };
  for (guint i = 0; i < G_N_ELEMENTS (selections); i++)
    {
      g_auto (SlTestRun) run = { 0 };
      run_samples (&run, path, selections[i][0], selections[i][1], selections[i][2],
                   selections[i][3], NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_cmpstr (run.out, ==, "");
      g_assert_null (strstr (run.err, "no thread"));
      g_assert_nonnull (strstr (run.err, "no CPU samples"));
    }
  g_auto (SlTestRun) none = { 0 };
  run_samples (&none, path, "--tid", "104", NULL);
  g_assert_cmpint (none.status, ==, 2);
  g_assert_nonnull (strstr (none.err, "sched-only.sqlite: no thread 104"));
}

/* The node of `order` reached from the root by `path` (names, root first), NULL when none. */
static const SlCalltreeNode *
node_at (SlCalltree      *tree,
         SlCalltreeOrder  order,
         const char      *const *path)
{
  guint32 at = 0;

  for (guint d = 0; path[d] != NULL; d++)
    {
      guint32 c = sl_calltree_get_node (tree, order, at)->first_child;
      while (c != SL_CALLTREE_NONE
             && g_strcmp0 (sl_calltree_symbol_name (
                               tree, sl_calltree_get_node (tree, order, c)->symbol),
                           path[d]) != 0)
        c = sl_calltree_get_node (tree, order, c)->next_sibling;
      if (c == SL_CALLTREE_NONE)
        return NULL;
      at = c;
    }
  return sl_calltree_get_node (tree, order, at);
}

/* A PyTorch profiler trace has no CPU samples: its nested ranges (python_function, cpu_op) make
 * the trees, by time: each range's self time (its own less its children's) counted for its path,
 * the whole trace and a window.  The figures are worked out by hand below. */
static void
test_ranges (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "ranges.json", NULL);
  const char *json =
      "{\"schemaVersion\": 1, \"traceEvents\": [\n"
      "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(10): main\", "
      "\"pid\": 1, \"tid\": 1, \"ts\": 1000, \"dur\": 100},\n"
      "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(20): train_step\", "
      "\"pid\": 1, \"tid\": 1, \"ts\": 1010, \"dur\": 80},\n"
      "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.py(5): forward\", "
      "\"pid\": 1, \"tid\": 1, \"ts\": 1020, \"dur\": 30},\n"
      "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, "
      "\"ts\": 1025, \"dur\": 20},\n"
      "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.py(9): backward\", "
      "\"pid\": 1, \"tid\": 1, \"ts\": 1050, \"dur\": 35},\n"
      "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, "
      "\"ts\": 1060, \"dur\": 10},\n"
      "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(10): main\", "
      "\"pid\": 1, \"tid\": 2, \"ts\": 1000, \"dur\": 50}\n"
      "]}\n";
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlCalltree) tree = sl_calltree_build (trace, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sl_calltree_get_unit (tree), ==, SL_CALLTREE_NANOSECONDS);
  g_assert_cmpuint (sl_calltree_get_n_samples (tree), ==, 150000);   /* 100 + 50 µs */
  static const struct
  {
    const char *path[5];
    guint64     self, total;   /* µs */
  } want[] = {
    { { "train.py(10): main" }, 70, 150 },
    { { "train.py(10): main", "train.py(20): train_step" }, 15, 80 },
    { { "train.py(10): main", "train.py(20): train_step", "model.py(5): forward" }, 10, 30 },
    { { "train.py(10): main", "train.py(20): train_step", "model.py(5): forward", "aten::mm" },
      20, 20 },
    { { "train.py(10): main", "train.py(20): train_step", "model.py(9): backward" }, 25, 35 },
    { { "train.py(10): main", "train.py(20): train_step", "model.py(9): backward", "aten::mm" },
      10, 10 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      const SlCalltreeNode *n = node_at (tree, SL_CALLTREE_TOP_DOWN, want[i].path);
      g_assert_nonnull (n);
      g_assert_cmpuint (n->self, ==, want[i].self * 1000);
      g_assert_cmpuint (n->total, ==, want[i].total * 1000);
    }
  /* bottom-up: aten::mm's self time under both callers */
  const char *mm[] = { "aten::mm", NULL };
  g_assert_cmpuint (node_at (tree, SL_CALLTREE_BOTTOM_UP, mm)->total, ==, 30000);
  g_autofree char *v = sl_calltree_format_value (tree, 30000, TRUE);
  g_assert_cmpstr (v, ==, "30.000 µs");

  /* a window, 1040 … 1070 µs: forward 5 (its mm 5), backward 10 (its mm 10), thread 2's main 10 */
  SlCalltreeScope scope;
  sl_calltree_scope_init (&scope);
  scope.t0 = sl_trace_get_start (trace) + 40000;
  scope.t1 = sl_trace_get_start (trace) + 70000;
  g_autoptr (SlCalltree) part = sl_calltree_build (trace, &scope, NULL, &error);
  g_assert_cmpuint (sl_calltree_get_n_samples (part), ==, 40000);
  const char *fwd[] = { "train.py(10): main", "train.py(20): train_step", "model.py(5): forward",
                        NULL };
  g_assert_cmpuint (node_at (part, SL_CALLTREE_TOP_DOWN, fwd)->self, ==, 5000);
  const char *root[] = { "train.py(10): main", NULL };
  g_assert_cmpuint (node_at (part, SL_CALLTREE_TOP_DOWN, root)->self, ==, 10000);
}

/* A PyTorch profiler trace as HTA and TensorBoard read it (issue 29, item 12): the profiler's own
 * span ("PyTorch Profiler (0)", on its own "Spans" thread) is bookkeeping, no node; the steps
 * (ProfilerStep#551, #552) are one node, "ProfilerStep*" as PyTorch's key_averages () names it,
 * so an operator's time adds up across them.  The figures
 * are the trace's own, read from its JSON with Python: the steps last 607,312 and 622,928 µs;
 * "## backward ##" directly under them 234,964 and 229,175 µs, "## forward ##" 132,826 and
 * 146,447 µs. */
static void
test_ranges_steps (void)
{
  g_autofree char *path = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-0.json.gz");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlCalltree) tree = sl_calltree_build (trace, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sl_calltree_get_unit (tree), ==, SL_CALLTREE_NANOSECONDS);

  guint n_steps = 0;
  for (guint32 c = sl_calltree_get_node (tree, SL_CALLTREE_TOP_DOWN, 0)->first_child;
       c != SL_CALLTREE_NONE; c = sl_calltree_get_node (tree, SL_CALLTREE_TOP_DOWN, c)->next_sibling)
    {
      const char *name = sl_calltree_symbol_name (
          tree, sl_calltree_get_node (tree, SL_CALLTREE_TOP_DOWN, c)->symbol);
      g_assert_false (g_str_has_prefix (name, "PyTorch Profiler"));
      n_steps += g_str_has_prefix (name, "ProfilerStep");
    }
  g_assert_cmpuint (n_steps, ==, 1);
  for (guint i = 0; i < sl_calltree_get_n_functions (tree); i++)
    {
      const char *name = sl_calltree_symbol_name (tree, sl_calltree_get_function (tree, i)->symbol);
      g_assert_false (g_str_has_prefix (name, "PyTorch Profiler"));
      g_assert_false (g_str_has_prefix (name, "ProfilerStep#5"));
    }

  const char *steps[] = { "ProfilerStep*", NULL };
  const char *backward[] = { "ProfilerStep*", "## backward ##", NULL };
  const char *forward[] = { "ProfilerStep*", "## forward ##", NULL };
  g_assert_nonnull (node_at (tree, SL_CALLTREE_TOP_DOWN, steps));
  g_assert_cmpuint (node_at (tree, SL_CALLTREE_TOP_DOWN, steps)->total, ==,
                    (607312 + 622928) * G_GUINT64_CONSTANT (1000));
  g_assert_nonnull (node_at (tree, SL_CALLTREE_TOP_DOWN, backward));
  g_assert_cmpuint (node_at (tree, SL_CALLTREE_TOP_DOWN, backward)->total, ==,
                    (234964 + 229175) * G_GUINT64_CONSTANT (1000));
  g_assert_cmpuint (node_at (tree, SL_CALLTREE_TOP_DOWN, forward)->total, ==,
                    (132826 + 146447) * G_GUINT64_CONSTANT (1000));

  /* the collapsed stacks say the same: one step frame, no profiler span */
  g_autoptr (GString) folded = g_string_new (NULL);
  sl_calltree_write_folded (tree, folded);
  g_assert_null (strstr (folded->str, "PyTorch Profiler"));
  g_assert_null (strstr (folded->str, "ProfilerStep#551"));
  g_assert_nonnull (strstr (folded->str, "ProfilerStep*;## backward ##"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/calltree/real", test_real);
  g_test_add_func ("/model/calltree/known", test_known);
  g_test_add_func ("/model/calltree/damaged", test_damaged);
  g_test_add_func ("/model/calltree/ranges", test_ranges);
  g_test_add_func ("/model/calltree/ranges-steps", test_ranges_steps);
  g_test_add_func ("/app/samples/errors", test_cmd_errors);
  g_test_add_func ("/app/samples/cuda-api", test_cuda_api);
  g_test_add_func ("/app/samples/thread-without-samples", test_cmd_thread_without_samples);
  return g_test_run ();
}
