/* test-diff.c: issue 17, item 4: `sightline diff A B`: planted traces with known changes (a
 * kernel twice as slow, one gone, one new, ties, a GPU gap and slower steps in B) checked row by
 * row in the three formats; real traces against themselves (every delta 0, the rows those of
 * `sightline stats`); an nsys export against a Kineto trace, against `stats` of each; the model's
 * API; a side without the report's data; bad input. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "sl-diff.h"
#include "sl-plant.h"
#include "sl-test-util.h"
#include "sl-trace.h"

static char *
tmp_path (const char *name)
{
  return g_build_filename (sl_test_tmpdir (), name, NULL);
}

/* ---- planted traces ---------------------------------------------------------------------- */

static char *planted_a, *planted_b;

/* A: k_slow 4 × 100 µs, k_same 3 × 50 µs, k_gone 2 × 30 µs, k_gone2 1 × 10 µs; three 100 µs
 * steps.  B: k_slow 4 × 200 µs, then the GPU idle 50 ms, k_same as in A, k_new 5 × 20 µs,
 * k_tie_b and k_tie_a 1 × 10 µs each; three 200 µs steps; OS runtime calls (A has none). */
static void
plant_pair (void)
{
  if (planted_a != NULL)
    return;
  planted_a = tmp_path ("a.sqlite");
  planted_b = tmp_path ("b.sqlite");

  Plant *a = plant_new (planted_a);
  gint64 t = PLANT_MS;
  t = plant_loop (a, t, 4, 100 * PLANT_US, 100 * PLANT_US, "k_slow", &plant_config_full);
  t = plant_loop (a, t, 3, 50 * PLANT_US, 50 * PLANT_US, "k_same", &plant_config_full);
  t = plant_loop (a, t, 2, 30 * PLANT_US, 30 * PLANT_US, "k_gone", &plant_config_full);
  plant_loop (a, t, 1, 10 * PLANT_US, 10 * PLANT_US, "k_gone2", &plant_config_full);
  plant_finish (a);
  for (guint i = 0; i < 3; i++)
    plant_nvtx (planted_a, PLANT_MAIN, 59, "train_step", PLANT_MS + i * 100 * PLANT_US,
                PLANT_MS + (i + 1) * 100 * PLANT_US);

  Plant *b = plant_new (planted_b);
  t = PLANT_MS;
  t = plant_loop (b, t, 4, 200 * PLANT_US, 200 * PLANT_US, "k_slow", &plant_config_full);
  t += 50 * PLANT_MS;
  t = plant_loop (b, t, 3, 50 * PLANT_US, 50 * PLANT_US, "k_same", &plant_config_full);
  t = plant_loop (b, t, 5, 20 * PLANT_US, 20 * PLANT_US, "k_new", &plant_config_full);
  t = plant_loop (b, t, 1, 10 * PLANT_US, 10 * PLANT_US, "k_tie_b", &plant_config_full);
  plant_loop (b, t, 1, 10 * PLANT_US, 10 * PLANT_US, "k_tie_a", &plant_config_full);
  plant_osrt (b, PLANT_LOADER_0, "read", 2 * PLANT_MS, 3 * PLANT_MS);
  plant_osrt (b, PLANT_LOADER_0, "read", 4 * PLANT_MS, 6 * PLANT_MS);
  plant_finish (b);
  for (guint i = 0; i < 3; i++)
    plant_nvtx (planted_b, PLANT_MAIN, 59, "train_step", PLANT_MS + i * 200 * PLANT_US,
                PLANT_MS + (i + 1) * 200 * PLANT_US);
}

/* The rows as `diff --format csv` writes them: by |delta| descending, ties by name; Delta (%)
 * empty where the name is not in A. */
static const char expected_csv[] =
    "Name,Instances A,Instances B,Total Time A (ns),Total Time B (ns),Delta (ns),Delta (%)\n"
    "k_slow,4,4,400000,800000,400000,100.0\n"
    "k_new,0,5,0,100000,100000,\n"
    "k_gone,2,0,60000,0,-60000,-100.0\n"
    "k_gone2,1,0,10000,0,-10000,-100.0\n"
    "k_tie_a,0,1,0,10000,10000,\n"
    "k_tie_b,0,1,0,10000,10000,\n"
    "k_same,3,3,150000,150000,0,0.0\n";

static JsonNode *
parse (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static void
test_planted_csv (void)
{
  g_auto (SlTestRun) run = { 0 };
  g_autofree char *out = tmp_path ("diff.csv");
  g_autofree char *written = NULL;

  plant_pair ();
  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", "--format", "csv", planted_a, planted_b, NULL);
  g_test_message ("stderr: %s", run.err);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==, expected_csv);
  g_assert_cmpstr (run.err, ==, "");

  /* -o: the same bytes in the file, nothing on standard output */
  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", "-f", "csv", "-o", out, planted_a, planted_b, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_true (g_file_get_contents (out, &written, NULL, NULL));
  g_assert_cmpstr (written, ==, expected_csv);
}

static gboolean
has_rule (JsonArray  *findings,
          const char *rule)
{
  for (guint i = 0; i < json_array_get_length (findings); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (findings, i),
                                                  "rule"), rule) == 0)
      return TRUE;
  return FALSE;
}

static void
test_planted_json (void)
{
  g_auto (SlTestRun) run = { 0 };
  static const struct
  {
    const char *name;
    gint64      n_a, n_b, t_a, t_b;
    double      pct;  /* -1: null */
  } rows[] = {
    { "k_slow", 4, 4, 400000, 800000, 100.0 }, { "k_new", 0, 5, 0, 100000, -1 },
    { "k_gone", 2, 0, 60000, 0, -100.0 },      { "k_gone2", 1, 0, 10000, 0, -100.0 },
    { "k_tie_a", 0, 1, 0, 10000, -1 },         { "k_tie_b", 0, 1, 0, 10000, -1 },
    { "k_same", 3, 3, 150000, 150000, 0.0 },
  };

  plant_pair ();
  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", "--format", "json", planted_a, planted_b, NULL);
  g_test_message ("stdout: %s\nstderr: %s", run.out, run.err);
  g_assert_cmpint (run.status, ==, 0);
  g_autoptr (JsonNode) root = parse (run.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "report"), ==, "cuda_gpu_kern_sum");
  g_assert_cmpstr (json_object_get_string_member (o, "a"), ==, planted_a);
  g_assert_cmpstr (json_object_get_string_member (o, "b"), ==, planted_b);

  JsonArray *got = json_object_get_array_member (o, "rows");
  g_assert_cmpuint (json_array_get_length (got), ==, G_N_ELEMENTS (rows));
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      JsonObject *r = json_array_get_object_element (got, i);
      g_assert_cmpstr (json_object_get_string_member (r, "Name"), ==, rows[i].name);
      g_assert_cmpint (json_object_get_int_member (r, "Instances A"), ==, rows[i].n_a);
      g_assert_cmpint (json_object_get_int_member (r, "Instances B"), ==, rows[i].n_b);
      g_assert_cmpint (json_object_get_int_member (r, "Total Time A (ns)"), ==, rows[i].t_a);
      g_assert_cmpint (json_object_get_int_member (r, "Total Time B (ns)"), ==, rows[i].t_b);
      g_assert_cmpint (json_object_get_int_member (r, "Delta (ns)"), ==, rows[i].t_b - rows[i].t_a);
      if (rows[i].pct < -0.5 && rows[i].t_a == 0)
        g_assert_true (json_object_get_null_member (r, "Delta (%)"));
      else
        g_assert_cmpfloat (json_object_get_double_member (r, "Delta (%)"), ==, rows[i].pct);
    }

  /* the figures: steps from the NVTX "train_step" ranges, B's twice as long; the 50 ms gap of
   * GPU 0 a finding of B alone */
  JsonObject *s = json_object_get_object_member (o, "summary");
  JsonObject *sa = json_object_get_object_member (s, "a");
  JsonObject *sb = json_object_get_object_member (s, "b");
  g_assert_cmpstr (json_object_get_string_member (sa, "trace"), ==, planted_a);
  g_assert_cmpint (json_object_get_int_member (sa, "steps"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (sb, "steps"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (sa, "step_ns"), ==, 100 * PLANT_US);
  g_assert_cmpint (json_object_get_int_member (sb, "step_ns"), ==, 200 * PLANT_US);
  g_assert_cmpint (json_object_get_int_member (s, "step_delta_ns"), ==, 100 * PLANT_US);
  g_assert_cmpint (json_object_get_int_member (sa, "gpus"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (s, "span_delta_ns"), ==,
                   json_object_get_int_member (sb, "span_ns")
                       - json_object_get_int_member (sa, "span_ns"));
  g_assert_true (json_object_get_null_member (sa, "no_data"));
  g_assert_true (has_rule (json_object_get_array_member (s, "new_findings"), "gpu_gaps"));
  g_assert_false (has_rule (json_object_get_array_member (s, "gone_findings"), "gpu_gaps"));
  g_assert_cmpfloat (json_object_get_double_member (sa, "gpu_utilization"), >,
                     json_object_get_double_member (sb, "gpu_utilization"));
}

static void
test_planted_column (void)
{
  g_auto (SlTestRun) run = { 0 };

  plant_pair ();
  /* the default format and report */
  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", planted_a, planted_b, NULL);
  g_test_message ("stdout: %s\nstderr: %s", run.out, run.err);
  g_assert_cmpint (run.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (run.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), >, 12);
  g_assert_cmpstr (lines[0], ==, "** CUDA GPU Kernel Summary, B against A (cuda_gpu_kern_sum):");
  /* as `stats` prints: numbers right-aligned with separators, the name last */
  g_assert_cmpstr (lines[2], ==, " Instances A  Instances B  Total Time A (ns)  Total Time B (ns)"
                                 "  Delta (ns)  Delta (%)  Name");
  g_assert_cmpstr (lines[4], ==, "           4            4            400,000            800,000"
                                 "     400,000      100.0  k_slow");
  g_assert_cmpstr (lines[5], ==, "           0            5                  0            100,000"
                                 "     100,000             k_new");
  g_assert_cmpstr (lines[6], ==, "           2            0             60,000                  0"
                                 "     -60,000     -100.0  k_gone");
  g_assert_cmpstr (lines[10], ==, "           3            3            150,000            150,000"
                                  "           0        0.0  k_same");
  g_assert_nonnull (strstr (run.out, "\n** Summary, B against A:\n"));
  g_assert_nonnull (strstr (run.out, "\n  Steps            3 → 3\n"));
  g_assert_nonnull (strstr (run.out, "\n  Median step      100.000 µs → 200.000 µs  (+100.000 µs, "
                                     "+100.0%)\n"));
  g_assert_nonnull (strstr (run.out, "\n  New in B:\n"));
  g_assert_nonnull (strstr (run.out, "\n    [gpu_gaps] GPU 0 idle for 50.000 ms"));
}

/* A without OS runtime calls: said on standard error, B's rows printed (0 in A). */
static void
test_one_side (void)
{
  g_auto (SlTestRun) run = { 0 };

  plant_pair ();
  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", "-r", "osrt_sum", "-f", "csv", planted_a, planted_b,
               NULL);
  g_test_message ("stdout: %s\nstderr: %s", run.out, run.err);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_cmpstr (run.out, ==,
                   "Name,Instances A,Instances B,Total Time A (ns),Total Time B (ns),Delta (ns),"
                   "Delta (%)\nread,0,2,0,3000000,3000000,\n");
  g_assert_nonnull (strstr (run.err, planted_a));
  g_assert_nonnull (strstr (run.err, "does not contain"));

  /* neither side: an error naming both */
  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", "-r", "osrt_sum", planted_a, planted_a, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_nonnull (strstr (run.err, "does not contain"));

  /* json: the side's reason in the summary */
  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", "-r", "osrt_sum", "-f", "json", planted_a,
               planted_b, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_autoptr (JsonNode) root = parse (run.out);
  JsonObject *s = json_object_get_object_member (json_node_get_object (root), "summary");
  g_assert_nonnull (strstr (json_object_get_string_member (json_object_get_object_member (s, "a"),
                                                           "no_data"),
                            "does not contain"));
  g_assert_true (json_object_get_null_member (json_object_get_object_member (s, "b"), "no_data"));
}

/* ---- real traces against themselves ------------------------------------------------------ */

/* diff X X: every delta 0 (Delta (%) 0 or, for a name with no time, null), no finding new or
 * gone, and the rows `stats` prints for X: the same names, instances and totals. */
static void
check_self (const char *relative,
            const char *report)
{
  g_autofree char *path = sl_test_trace_path (relative);
  g_auto (SlTestRun) run = { 0 };

  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", "-r", report, "-f", "json", path, path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_autoptr (JsonNode) root = parse (run.out);
  JsonObject *o = json_node_get_object (root);
  JsonArray *rows = json_object_get_array_member (o, "rows");

  sl_test_run (&run, SL_SIGHTLINE_BIN, "stats", "-r", report, "-f", "json", path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_autoptr (JsonNode) stats_root = parse (run.out);
  JsonArray *stats = json_node_get_array (stats_root);
  const char *count = strcmp (report, "cuda_api_sum") == 0 || strcmp (report, "osrt_sum") == 0
                          ? "Num Calls" : "Instances";
  const char *name = strcmp (report, "nvtx_sum") == 0 ? "Range" : "Name";
  g_autoptr (GHashTable) expect = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < json_array_get_length (stats); i++)
    {
      JsonObject *r = json_array_get_object_element (stats, i);
      g_hash_table_insert (expect, (gpointer) json_object_get_string_member (r, name), r);
    }
  g_assert_cmpuint (json_array_get_length (rows), >, 0);
  /* nvtx_sum has a row per range and style: one diff row per range */
  g_assert_cmpuint (json_array_get_length (rows), ==, g_hash_table_size (expect));
  const char *previous = NULL;
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *r = json_array_get_object_element (rows, i);
      const char *n = json_object_get_string_member (r, "Name");
      JsonObject *s = g_hash_table_lookup (expect, n);
      g_assert_nonnull (s);
      gint64 total = json_object_get_int_member (r, "Total Time A (ns)");
      g_assert_cmpint (json_object_get_int_member (r, "Delta (ns)"), ==, 0);
      g_assert_cmpint (json_object_get_int_member (r, "Instances A"), ==,
                       json_object_get_int_member (r, "Instances B"));
      g_assert_cmpint (total, ==, json_object_get_int_member (r, "Total Time B (ns)"));
      if (strcmp (report, "nvtx_sum") != 0)
        {
          g_assert_cmpint (json_object_get_int_member (r, "Instances A"), ==,
                           json_object_get_int_member (s, count));
          g_assert_cmpint (total, ==, json_object_get_int_member (s, "Total Time (ns)"));
        }
      if (total != 0)
        g_assert_cmpfloat (json_object_get_double_member (r, "Delta (%)"), ==, 0.0);
      /* all deltas tie at 0: by name */
      g_assert_true (previous == NULL || strcmp (previous, n) < 0);
      previous = n;
    }
  JsonObject *s = json_object_get_object_member (o, "summary");
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (s, "new_findings")), ==, 0);
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (s, "gone_findings")), ==,
                   0);
  g_assert_cmpint (json_object_get_int_member (s, "span_delta_ns"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (s, "a"), "findings"),
                   ==,
                   json_object_get_int_member (json_object_get_object_member (s, "b"), "findings"));
}

static void
test_self_nsys (void)
{
  check_self ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite", "cuda_gpu_kern_sum");
  check_self ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite", "cuda_api_sum");
  check_self ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite", "nvtx_sum");
  check_self ("nsys/nsys-2023.1-cuckoo-osrt.sqlite", "osrt_sum");
}

static void
test_self_kineto (void)
{
  check_self ("pytorch/trace_filter_sampled_rank-0.json.gz", "cuda_gpu_kern_sum");
  check_self ("pytorch/trace_filter_sampled_rank-0.json.gz", "cuda_api_sum");
}

/* `stats --format json` of one side, by name: {instances, total} (a name's rows added up, as
 * nvtx_sum has one per range and style). */
static GHashTable *
stats_by_name (const char *path,
               const char *report)
{
  g_auto (SlTestRun) run = { 0 };
  GHashTable *by = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const char *count = strcmp (report, "cuda_api_sum") == 0 || strcmp (report, "osrt_sum") == 0
                          ? "Num Calls" : "Instances";
  const char *name = strcmp (report, "nvtx_sum") == 0 ? "Range" : "Name";

  sl_test_run (&run, SL_SIGHTLINE_BIN, "stats", "-r", report, "-f", "json", path, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_autoptr (JsonNode) root = parse (run.out);
  JsonArray *rows = json_node_get_array (root);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *r = json_array_get_object_element (rows, i);
      const char *n = json_object_get_string_member (r, name);
      gint64 *v = g_hash_table_lookup (by, n);
      if (v == NULL)
        g_hash_table_insert (by, g_strdup (n), v = g_new0 (gint64, 2));
      v[0] += json_object_get_int_member (r, count);
      v[1] += json_object_get_int_member (r, "Total Time (ns)");
    }
  return by;
}

/* diff of two different traces (an nsys export against a Kineto trace) checked against `stats`
 * of each: every name of either once, its figures, delta, percent and order. */
static void
test_mixed (void)
{
  g_autofree char *a = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_autofree char *b = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-0.json.gz");
  const char *reports[] = { "cuda_gpu_kern_sum", "cuda_api_sum" };

  for (guint k = 0; k < G_N_ELEMENTS (reports); k++)
    {
      g_auto (SlTestRun) run = { 0 };
      g_autoptr (GHashTable) sa = stats_by_name (a, reports[k]);
      g_autoptr (GHashTable) sb = stats_by_name (b, reports[k]);
      g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
      GHashTableIter it;
      gpointer key;

      g_hash_table_iter_init (&it, sa);
      while (g_hash_table_iter_next (&it, &key, NULL))
        g_hash_table_add (names, key);
      g_hash_table_iter_init (&it, sb);
      while (g_hash_table_iter_next (&it, &key, NULL))
        g_hash_table_add (names, key);

      sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", "-r", reports[k], "-f", "json", a, b, NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_autoptr (JsonNode) root = parse (run.out);
      JsonArray *rows = json_object_get_array_member (json_node_get_object (root), "rows");
      g_assert_cmpuint (json_array_get_length (rows), ==, g_hash_table_size (names));
      gint64 previous = G_MAXINT64;
      const char *previous_name = NULL;
      for (guint i = 0; i < json_array_get_length (rows); i++)
        {
          JsonObject *r = json_array_get_object_element (rows, i);
          const char *n = json_object_get_string_member (r, "Name");
          const gint64 zero[2] = { 0, 0 };
          const gint64 *va = g_hash_table_lookup (sa, n), *vb = g_hash_table_lookup (sb, n);
          g_assert_true (va != NULL || vb != NULL);
          if (va == NULL)
            va = zero;
          if (vb == NULL)
            vb = zero;
          g_assert_cmpint (json_object_get_int_member (r, "Instances A"), ==, va[0]);
          g_assert_cmpint (json_object_get_int_member (r, "Instances B"), ==, vb[0]);
          g_assert_cmpint (json_object_get_int_member (r, "Total Time A (ns)"), ==, va[1]);
          g_assert_cmpint (json_object_get_int_member (r, "Total Time B (ns)"), ==, vb[1]);
          gint64 delta = vb[1] - va[1];
          g_assert_cmpint (json_object_get_int_member (r, "Delta (ns)"), ==, delta);
          if (va == zero)
            g_assert_true (json_object_get_null_member (r, "Delta (%)"));
          else
            g_assert_cmpfloat_with_epsilon (json_object_get_double_member (r, "Delta (%)"),
                                            100.0 * (double) delta / (double) va[1], 0.05 + 1e-9);
          /* |delta| descending, ties by name */
          g_assert_cmpint (ABS (delta), <=, previous);
          if (ABS (delta) == previous)
            g_assert_cmpint (strcmp (previous_name, n), <, 0);
          previous = ABS (delta);
          previous_name = n;
        }
    }
}

/* The model's API on loaded traces: a trace against itself (one SlTrace: the sides one after the
 * other), the table's columns, and a report a diff cannot compare. */
static void
test_api (void)
{
  g_autoptr (GError) error = NULL;

  plant_pair ();
  g_autoptr (SlTrace) a = sl_trace_load (planted_a, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlDiff) d = sl_diff_compute (a, a, "cuda_gpu_kern_sum", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_report_get_n_rows (d->table), ==, 4);
  g_assert_cmpuint (sl_report_get_n_columns (d->table), ==, 7);
  g_assert_cmpstr (sl_report_get_column (d->table, 0), ==, "Name");
  g_assert_cmpstr (sl_report_get_column (d->table, 6), ==, "Delta (%)");
  for (gsize i = 0; i < 4; i++)
    g_assert_cmpint (sl_report_get_cell (d->table, i, 5)->v.i, ==, 0);
  /* 0 delta everywhere: by name */
  g_assert_cmpstr (sl_report_get_cell (d->table, 0, 0)->v.s, ==, "k_gone");
  g_assert_cmpstr (sl_report_get_cell (d->table, 3, 0)->v.s, ==, "k_slow");
  g_assert_cmpuint (d->new_findings->len, ==, 0);
  g_assert_cmpuint (d->gone_findings->len, ==, 0);
  g_assert_cmpint (d->a.figures.steps, ==, 3);
  g_assert_null (d->a.no_data);

  g_assert_null (sl_diff_compute (a, a, "cuda_gpu_trace", &error));
  g_assert_error (error, SL_STATS_ERROR, SL_STATS_ERROR_UNKNOWN_REPORT);
  g_clear_error (&error);
  g_assert_null (sl_diff_compute (a, a, "osrt_sum", &error));
  g_assert_error (error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
  g_clear_error (&error);

  /* the two steps the command takes: a part per trace (each on its loading thread), joined;
   * the parts hold their traces */
  g_assert_null (sl_diff_input_new (a, "nvtx_kern_sum", &error));
  g_assert_error (error, SL_STATS_ERROR, SL_STATS_ERROR_UNKNOWN_REPORT);
  g_clear_error (&error);
  g_autoptr (SlDiffInput) in_a = sl_diff_input_new (a, "cuda_gpu_kern_sum", &error);
  g_assert_no_error (error);
  g_autoptr (SlDiffInput) in_b = NULL;
  {
    g_autoptr (SlTrace) b = sl_trace_load (planted_b, SL_LOAD_ALL, NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    in_b = sl_diff_input_new (b, "cuda_gpu_kern_sum", &error);
    g_assert_no_error (error);
  }
  g_autoptr (SlDiff) joined = sl_diff_join (in_a, in_b, &error);
  g_assert_no_error (error);
  g_autoptr (GString) csv = g_string_new (NULL);
  sl_diff_write (joined, SL_DIFF_CSV, csv);
  g_assert_cmpstr (csv->str, ==, expected_csv);
  g_assert_cmpuint (joined->new_findings->len, >, 0);
}

/* ---- bad input --------------------------------------------------------------------------- */

static void
test_bad_input (void)
{
  g_auto (SlTestRun) run = { 0 };
  g_autofree char *missing = tmp_path ("missing.sqlite");
  g_autofree char *text = tmp_path ("not-a-trace.sqlite");

  plant_pair ();
  g_assert_true (g_file_set_contents (text, "hello, not a trace\n", -1, NULL));

  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", planted_a, missing, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_nonnull (strstr (run.err, missing));

  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", text, planted_b, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_nonnull (strstr (run.err, text));

  /* both bad: both named */
  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", text, missing, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, text));
  g_assert_nonnull (strstr (run.err, missing));

  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", "-r", "cuda_gpu_trace", planted_a, planted_b, NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_nonnull (strstr (run.err, "unknown report 'cuda_gpu_trace'"));
  g_assert_nonnull (strstr (run.err, "cuda_gpu_kern_sum, cuda_api_sum, nvtx_sum, osrt_sum"));

  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", "-f", "xml", planted_a, planted_b, NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "unknown format 'xml'"));

  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", planted_a, NULL);
  g_assert_cmpint (run.status, ==, 2);
  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", planted_a, planted_b, planted_a, NULL);
  g_assert_cmpint (run.status, ==, 2);
  sl_test_run (&run, SL_SIGHTLINE_BIN, "diff", "--no-such-option", planted_a, planted_b, NULL);
  g_assert_cmpint (run.status, ==, 2);

  /* listed in the help */
  sl_test_run (&run, SL_SIGHTLINE_BIN, "--help", NULL);
  g_assert_nonnull (strstr (run.out, "sightline diff A B"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/diff/planted/csv", test_planted_csv);
  g_test_add_func ("/diff/planted/json", test_planted_json);
  g_test_add_func ("/diff/planted/column", test_planted_column);
  g_test_add_func ("/diff/one-side", test_one_side);
  g_test_add_func ("/diff/self/nsys", test_self_nsys);
  g_test_add_func ("/diff/self/kineto", test_self_kineto);
  g_test_add_func ("/diff/mixed", test_mixed);
  g_test_add_func ("/diff/api", test_api);
  g_test_add_func ("/diff/bad-input", test_bad_input);
  return g_test_run ();
}
