/* test-summaries.c: issue 17, item 5: a rank's figures in `analyze --format json` and `sightline
 * merge-summaries` ranking the ranks: training steps against json-glib's reading of the real
 * Kineto traces, the figures merged against analyze's, planted ranks with a known straggler, and
 * bad input (every bad file named, nothing printed). */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "sl-analyze.h"
#include "sl-plant.h"
#include "sl-summaries.h"
#include "sl-test-util.h"
#include "sl-trace.h"

static char *
tmp_path (const char *name)
{
  return g_build_filename (sl_test_tmpdir (), name, NULL);
}

/* `sightline ARGS…` with the arguments of a list (merge-summaries takes any number of files). */
static void
run_list (SlTestRun  *run,
          GPtrArray  *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_ptr_array_add (argv, SL_SIGHTLINE_BIN);
  for (guint i = 0; i < args->len; i++)
    g_ptr_array_add (argv, g_ptr_array_index (args, i));
  g_ptr_array_add (argv, NULL);
  sl_test_run_clear (run);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &run->out, &run->err, &status, &error));
  g_assert_no_error (error);
  run->status = WIFEXITED (status) ? WEXITSTATUS (status) : -1;
  g_test_message ("stdout: %s\nstderr: %s", run->out, run->err);
}

/* `sightline analyze --format json TRACE > OUT`; the parsed output. */
static JsonNode *
analyze_to (const char *trace,
            const char *out)
{
  g_auto (SlTestRun) run = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;

  sl_test_run (&run, SL_SIGHTLINE_BIN, "analyze", "--format", "json", "-o", out, trace, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (json_parser_load_from_file (parser, out, &error));
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

/* `sightline ARGS… FILES…`, asserted to succeed (and to say nothing on stderr when `quiet`); its
 * standard output parsed as JSON. */
static JsonNode *
run_json (GPtrArray *args,
          GPtrArray *files,
          gboolean   quiet)
{
  g_auto (SlTestRun) run = { 0 };
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add (args, g_ptr_array_index (files, i));
  run_list (&run, args);
  g_assert_cmpint (run.status, ==, 0);
  if (quiet)
    g_assert_cmpstr (run.err, ==, "");
  g_assert_true (json_parser_load_from_data (parser, run.out, -1, &error));
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

/* merge-summaries --format json of `files`; the parsed output (status asserted 0). */
static JsonNode *
merge_json (GPtrArray *files)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();

  g_ptr_array_add (args, "merge-summaries");
  g_ptr_array_add (args, "--format");
  g_ptr_array_add (args, "json");
  return run_json (args, files, TRUE);
}

static gint64
int_or (JsonObject *o,
        const char *name,
        gint64      fallback)
{
  JsonNode *n = json_object_get_member (o, name);
  return n != NULL && !JSON_NODE_HOLDS_NULL (n) ? json_node_get_int (n) : fallback;
}

static int
cmp_i64 (gconstpointer a,
         gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

/* ---- steps ------------------------------------------------------------------------------- */

/* The oracle: a Kineto trace read whole by json-glib (through zlib); the median of the
 * "ProfilerStep#N" complete events of the thread that has most of them. */
static gint64
kineto_median_step (const char *path,
                    guint      *n)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, NULL));
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (z));
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) by_tid = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) g_array_unref);

  g_assert_true (json_parser_load_from_stream (parser, in, NULL, &error));
  g_assert_no_error (error);
  JsonArray *events = json_object_get_array_member (
      json_node_get_object (json_parser_get_root (parser)), "traceEvents");
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      if (!json_object_has_member (e, "name") || !json_object_has_member (e, "dur")
          || g_strcmp0 (json_object_get_string_member_with_default (e, "ph", ""), "X") != 0
          || !g_str_has_prefix (json_object_get_string_member (e, "name"), "ProfilerStep#"))
        continue;
      g_autofree char *tid = g_strdup_printf (
          "%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, json_object_get_int_member (e, "pid"),
          json_object_get_int_member (e, "tid"));
      GArray *d = g_hash_table_lookup (by_tid, tid);
      if (d == NULL)
        g_hash_table_insert (by_tid, g_strdup (tid), d = g_array_new (FALSE, FALSE, 8));
      gint64 ns = llround (json_object_get_double_member (e, "dur") * 1000);
      g_array_append_val (d, ns);
    }
  GArray *best = NULL;
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init (&it, by_tid);
  while (g_hash_table_iter_next (&it, NULL, &value))
    if (best == NULL || ((GArray *) value)->len > best->len)
      best = value;
  g_assert_nonnull (best);
  g_array_sort (best, cmp_i64);
  gint64 *v = (gint64 *) best->data;
  *n = best->len;
  return best->len % 2 ? v[best->len / 2] : (v[best->len / 2 - 1] + v[best->len / 2]) / 2;
}

static void
test_steps_kineto (void)
{
  const char *names[] = { "pytorch/trace_filter_sampled_rank-0.json.gz",
                          "pytorch/trace_filter_sampled_rank-1.json.gz" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = sl_test_trace_path (names[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      guint n = 0, want_n = 0;
      g_assert_no_error (error);
      gint64 want = kineto_median_step (path, &want_n);
      SlTime got = sl_trace_median_step (trace, sl_trace_get_start (trace),
                                         sl_trace_get_end (trace), &n);
      g_assert_cmpuint (n, ==, want_n);
      g_assert_cmpint (got, ==, want);
    }
}

/* Named NVTX steps: any case, a number after the name; marks and look-alikes are not steps; the
 * thread with most steps counts; Kineto's ProfilerStep#N before named ones; the window. */
static void
test_steps_planted (void)
{
  g_autofree char *path = tmp_path ("steps.sqlite");
  Plant *p = plant_new (path);
  plant_loop (p, 0, 10, PLANT_MS, 100 * PLANT_US, "k", &plant_config_full);
  plant_finish (p);
  const gint64 durs[] = { 140, 100, 130, 110, 120 }; /* ms: median 120 */
  const char *texts[] = { "step 1", "Step 2", "STEP#3", "step_4", "step" };
  for (guint i = 0; i < G_N_ELEMENTS (durs); i++)
    plant_nvtx (path, PLANT_MAIN, 59, texts[i], i * 200 * PLANT_MS,
                i * 200 * PLANT_MS + durs[i] * PLANT_MS);
  plant_nvtx (path, PLANT_MAIN, 34, "step 9", 50 * PLANT_MS, 50 * PLANT_MS); /* a mark */
  plant_nvtx (path, PLANT_MAIN, 59, "stepper", 900 * PLANT_MS, 990 * PLANT_MS);
  plant_nvtx (path, PLANT_MAIN, 59, "forward step", 900 * PLANT_MS, 990 * PLANT_MS);
  /* fewer on another thread: not counted */
  plant_nvtx (path, PLANT_LOADER_0, 59, "iteration 1", 0, 999 * PLANT_MS);

  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  guint n = 0;
  SlTime t0 = sl_trace_get_start (trace), t1 = sl_trace_get_end (trace) + PLANT_S;
  g_assert_cmpint (sl_trace_median_step (trace, t0, t1, &n), ==, 120 * PLANT_MS);
  g_assert_cmpuint (n, ==, 5);
  /* a window: the steps that start in it (the 2nd to the 4th: 100, 130, 110) */
  g_assert_cmpint (sl_trace_median_step (trace, t0 + 200 * PLANT_MS, t0 + 601 * PLANT_MS, &n),
                   ==, 110 * PLANT_MS);
  g_assert_cmpuint (n, ==, 3);

  /* ProfilerStep#N wins over named steps, even on a thread with fewer */
  plant_nvtx (path, PLANT_LOADER_1, 59, "ProfilerStep#7", 0, 10 * PLANT_MS);
  plant_nvtx (path, PLANT_LOADER_1, 59, "ProfilerStep#8", 10 * PLANT_MS, 40 * PLANT_MS);
  g_autoptr (SlTrace) again = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sl_trace_median_step (again, t0, t1, &n), ==, 20 * PLANT_MS);
  g_assert_cmpuint (n, ==, 2);

  /* none */
  g_autofree char *bare = tmp_path ("no-steps.sqlite");
  Plant *q = plant_new (bare);
  plant_loop (q, 0, 10, PLANT_MS, 100 * PLANT_US, "k", &plant_config_full);
  plant_finish (q);
  g_autoptr (SlTrace) none = sl_trace_load (bare, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sl_trace_median_step (none, 0, G_MAXINT64, &n), ==, -1);
  g_assert_cmpuint (n, ==, 0);
}

/* ---- the straggler rule ------------------------------------------------------------------ */

/* `sightline analyze --merge --format json -r straggler [--set …] FILES`: its straggler finding,
 * NULL when there is none. */
static JsonNode *
straggler_of (GPtrArray  *files,
              const char *set)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();

  g_ptr_array_add (args, "analyze");
  g_ptr_array_add (args, "--merge");
  g_ptr_array_add (args, "--format");
  g_ptr_array_add (args, "json");
  g_ptr_array_add (args, "-r");
  g_ptr_array_add (args, "straggler");
  if (set != NULL)
    {
      g_ptr_array_add (args, "--set");
      g_ptr_array_add (args, (char *) set);
    }
  g_autoptr (JsonNode) root = run_json (args, files, FALSE);
  JsonArray *findings = json_object_get_array_member (json_node_get_object (root), "findings");
  if (json_array_get_length (findings) == 0)
    return NULL;
  g_assert_cmpuint (json_array_get_length (findings), ==, 1);
  return json_node_copy (json_array_get_element (findings, 0));
}

static gint64
evidence_int (JsonNode   *finding,
              const char *key)
{
  JsonObject *ev = json_object_get_object_member (json_node_get_object (finding), "evidence");
  g_assert_true (json_object_has_member (ev, key));
  return (gint64) llround (json_object_get_double_member (ev, key));
}

static gint64
median_i64 (GArray *v)
{
  g_autoptr (GArray) c = g_array_copy (v);
  g_array_sort (c, cmp_i64);
  gint64 *x = (gint64 *) c->data;
  return c->len % 2 ? x[c->len / 2] : (x[c->len / 2 - 1] + x[c->len / 2]) / 2;
}

/* The oracle for one rank's Kineto file (json-glib, times through doubles): per ProfilerStep#N
 * of the thread with most, N and its time to the collectives: its duration less the time NCCL
 * kernels run inside it. */
static void
kineto_own_times (const char *path,
                  GArray     *numbers,
                  GArray     *own)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, NULL));
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (z));
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) steps = g_array_new (FALSE, FALSE, 3 * sizeof (double));
  g_autoptr (GArray) nccl = g_array_new (FALSE, FALSE, 2 * sizeof (double));

  g_assert_true (json_parser_load_from_stream (parser, in, NULL, &error));
  g_assert_no_error (error);
  JsonArray *events = json_object_get_array_member (
      json_node_get_object (json_parser_get_root (parser)), "traceEvents");
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      const char *name = json_object_get_string_member_with_default (e, "name", "");
      if (g_strcmp0 (json_object_get_string_member_with_default (e, "ph", ""), "X") != 0
          || !json_object_has_member (e, "dur"))
        continue;
      double ts = json_object_get_double_member (e, "ts") * 1000;
      double end = ts + json_object_get_double_member (e, "dur") * 1000;
      if (g_str_has_prefix (name, "ProfilerStep#"))
        {
          double s[3] = { g_ascii_strtod (name + 13, NULL), ts, end };
          g_array_append_val (steps, s);
        }
      else if (g_strcmp0 (json_object_get_string_member_with_default (e, "cat", ""), "kernel") == 0
               && strstr (name, "nccl") != NULL)
        {
          double k[2] = { ts, end };
          g_array_append_val (nccl, k);
        }
    }
  for (guint i = 0; i < steps->len; i++)
    {
      const double *s = &g_array_index (steps, double, 3 * i);
      double comm = 0;
      for (guint k = 0; k < nccl->len; k++)
        {
          const double *n = &g_array_index (nccl, double, 2 * k);
          double d = MIN (n[1], s[2]) - MAX (n[0], s[1]);
          comm += d > 0 ? d : 0;
        }
      gint64 number = (gint64) s[0], t = llround (s[2] - s[1] - comm);
      g_array_append_val (numbers, number);
      g_array_append_val (own, t);
    }
}

/* The two ranks of a real PyTorch job, merged: the straggler rule's figures against the
 * oracle's (each step's slowest rank by its time to the collectives); below the default 5 % it
 * says nothing. */
static void
test_straggler_real (void)
{
  g_autofree char *a = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-0.json.gz");
  g_autofree char *b = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-1.json.gz");
  g_autoptr (GPtrArray) files = g_ptr_array_new ();
  g_autoptr (GArray) n0 = g_array_new (FALSE, FALSE, 8), o0 = g_array_new (FALSE, FALSE, 8);
  g_autoptr (GArray) n1 = g_array_new (FALSE, FALSE, 8), o1 = g_array_new (FALSE, FALSE, 8);

  g_ptr_array_add (files, a);
  g_ptr_array_add (files, b);
  kineto_own_times (a, n0, o0);
  kineto_own_times (b, n1, o1);
  g_assert_cmpuint (n0->len, ==, 2);
  g_assert_cmpuint (n1->len, ==, 2);
  guint slow0 = 0, slow1 = 0;
  for (guint i = 0; i < n0->len; i++)
    for (guint j = 0; j < n1->len; j++)
      if (g_array_index (n0, gint64, i) == g_array_index (n1, gint64, j))
        {
          if (g_array_index (o0, gint64, i) >= g_array_index (o1, gint64, j))
            slow0++;
          else
            slow1++;
        }
  gint64 m0 = median_i64 (o0), m1 = median_i64 (o1);
  gboolean one = slow1 > slow0 || (slow1 == slow0 && m1 > m0);
  gint64 mine = one ? m1 : m0, theirs = one ? m0 : m1;
  g_test_message ("rank 0: %" G_GINT64_FORMAT " ns, rank 1: %" G_GINT64_FORMAT " ns; slowest "
                  "in %u and %u steps", m0, m1, slow0, slow1);

  g_autoptr (JsonNode) quiet = straggler_of (files, NULL);
  if ((double) mine < 1.05 * (double) theirs)
    g_assert_null (quiet);
  g_autoptr (JsonNode) f = straggler_of (files, "straggler.excess=0%");
  g_assert_nonnull (f);
  const char *summary = json_object_get_string_member (json_node_get_object (f), "summary");
  g_assert_true (g_str_has_prefix (summary, one ? "rank 1 is the slowest" : "rank 0 is the slowest"));
  g_assert_cmpint (evidence_int (f, "ranks"), ==, 2);
  g_assert_cmpint (evidence_int (f, "steps"), ==, 2);
  g_assert_cmpint (evidence_int (f, "slowest_steps"), ==, one ? slow1 : slow0);
  /* times through doubles in the oracle: a kernel cut by a step's edge may be 0.25 µs off */
  g_assert_cmpint (ABS (evidence_int (f, "step_ns") - mine), <=, 2000);
  g_assert_cmpint (ABS (evidence_int (f, "others_step_ns") - theirs), <=, 2000);
}

/* Three planted ranks of a synchronous job, 10 steps of 100 ms that end together: rank 2 waits
 * 30 ms a step on its data loader (poll) and spends 10 ms in the all-reduce; ranks 0 and 1 wait
 * 2 ms and then 38 ms in the all-reduce for it.  The rule names rank 2, 90 ms against 62 ms, the
 * poll, and 28 ms a step of waiting by the others; without rank 2's slowness, nothing. */
static char *
plant_rank (guint    rank,
            gboolean slow)
{
  g_autofree char *name = g_strdup_printf ("straggler-rank%u%s.sqlite", rank, slow ? "" : "-even");
  char *path = tmp_path (name);
  Plant *p = plant_new (path);
  const gint64 MS = PLANT_MS, step = 100 * MS, t0 = 10 * MS;
  gint64 wait = slow && rank == 2 ? 30 * MS : 2 * MS;

  for (gint k = 0; k < 10; k++)
    {
      gint64 s = t0 + k * step;
      plant_osrt (p, PLANT_MAIN, "poll", s + MS / 2, s + MS / 2 + wait);
      gint64 t = s + MS / 2 + wait + 100 * PLANT_US;
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel", t, t + 5 * PLANT_US);
      plant_kernel (p, "gemm_kernel", &plant_config_full, t + 10 * PLANT_US, t + 10 * PLANT_US + 50 * MS,
                    corr);
      /* the all-reduce starts when this rank gets there and ends when the last one does */
      gint64 arrive = t + 10 * PLANT_US + 50 * MS;
      gint64 done = s + step - MS;
      corr = plant_api (p, PLANT_MAIN, "ncclAllReduce", arrive - 20 * PLANT_US, arrive - 10 * PLANT_US);
      plant_kernel (p, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", &plant_config_full, arrive, done,
                    corr);
      plant_set_gpu_free (p, done);
    }
  plant_finish (p);
  for (gint k = 0; k < 10; k++)
    {
      g_autofree char *text = g_strdup_printf ("step %d", k);
      plant_nvtx (path, PLANT_MAIN, 59, text, t0 + k * step, t0 + (k + 1) * step);
    }
  g_autofree char *env = g_strdup_printf ("INSERT INTO META_DATA_CAPTURE VALUES "
                                          "('PROCESS_0:ENVIRONMENT_VARIABLE', 'RANK=\"%u\"')",
                                          rank);
  plant_sql (path, env);
  return path;
}

static void
test_straggler_planted (void)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) even = g_ptr_array_new_with_free_func (g_free);

  for (guint r = 0; r < 3; r++)
    {
      g_ptr_array_add (files, plant_rank (r, TRUE));
      g_ptr_array_add (even, plant_rank (r, FALSE));
    }
  g_autoptr (JsonNode) f = straggler_of (files, NULL);
  g_assert_nonnull (f);
  const char *summary = json_object_get_string_member (json_node_get_object (f), "summary");
  g_assert_true (g_str_has_prefix (summary, "rank 2 is the slowest rank in 10 of 10 steps"));
  g_assert_nonnull (strstr (summary, "OS calls (most in poll)"));
  /* time to the collectives: the step less the all-reduce, i.e. the poll, the launch, the gemm
   * and the last millisecond of the step after it (0.5 + wait + 0.11 + 50 + 1 ms) */
  gint64 mine = evidence_int (f, "step_ns"), theirs = evidence_int (f, "others_step_ns");
  g_test_message ("%s", summary);
  g_assert_cmpint (ABS (mine - (81 * PLANT_MS + 610 * PLANT_US)), <=, 1000);
  g_assert_cmpint (ABS (theirs - (53 * PLANT_MS + 610 * PLANT_US)), <=, 1000);
  g_assert_cmpint (evidence_int (f, "osrt_ns"), ==, 30 * PLANT_MS);
  g_assert_cmpint (ABS (evidence_int (f, "others_wait_ns") - 28 * PLANT_MS), <=, 1000);
  g_assert_cmpint (ABS (evidence_int (f, "compute_ns") - 50 * PLANT_MS), <=, 1000);
  /* each step costs the others rank 2's lead: 10 × 28 ms */
  gint64 cost = json_object_get_int_member (json_node_get_object (f), "cost_ns");
  g_assert_cmpint (ABS (cost - 280 * PLANT_MS), <=, 10000);

  g_autoptr (JsonNode) none = straggler_of (even, NULL);
  g_assert_null (none);
}

/* Generated ranks (sightline-gen --ranks 4 --straggler 1: its batch comes 30 % of a step late,
 * the others wait in the all-reduce): rank 1 named, in nearly every step, about 30 % slower to
 * the collectives, because of its poll; "%r" names the files. */
static void
test_straggler_generated (void)
{
  g_autofree char *pattern = tmp_path ("gen-job-%r.sqlite");
  g_auto (SlTestRun) run = { 0 };
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

  sl_test_run (&run, SL_GEN_BIN, "-o", pattern, "-n", "30k", "--ranks", "4", "--straggler", "1",
               "-f", NULL);
  g_assert_cmpint (run.status, ==, 0);
  for (guint r = 0; r < 4; r++)
    {
      g_autofree char *name = g_strdup_printf ("gen-job-%u.sqlite", r);
      char *path = tmp_path (name);
      g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (sl_trace_get_rank (trace), ==, r);
      g_assert_cmpint (sl_trace_get_world_size (trace), ==, 4);
      g_ptr_array_add (files, path);
    }
  g_autoptr (JsonNode) f = straggler_of (files, NULL);
  g_assert_nonnull (f);
  const char *summary = json_object_get_string_member (json_node_get_object (f), "summary");
  g_test_message ("%s", summary);
  g_assert_true (g_str_has_prefix (summary, "rank 1 is the slowest rank in "));
  g_assert_nonnull (strstr (summary, "(most in poll)"));
  gint64 steps = evidence_int (f, "steps"), slowest = evidence_int (f, "slowest_steps");
  g_assert_cmpint (steps, >=, 40);
  g_assert_cmpint (slowest * 10, >=, steps * 9);
  JsonObject *ev = json_object_get_object_member (json_node_get_object (f), "evidence");
  double excess = json_object_get_double_member (ev, "excess_share");
  g_assert_cmpfloat (excess, >=, 0.2);
  g_assert_cmpfloat (excess, <=, 0.5);
  g_assert_cmpint (evidence_int (f, "others_wait_ns"), >, 0);

  /* --straggler needs --ranks above it */
  sl_test_run (&run, SL_GEN_BIN, "-o", pattern, "-n", "1k", "--ranks", "2", "--straggler", "2",
               "-f", NULL);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_nonnull (strstr (run.err, "--straggler"));
}

/* ---- merge-summaries --------------------------------------------------------------------- */

/* Every rank of the merge against its own analyze JSON; slowest first; deviations against the
 * median of the keys, computed here. */
static void
check_merge (JsonNode   *merged,
             GPtrArray  *analyses,
             GPtrArray  *files,
             const char *want_key)
{
  JsonObject *m = json_node_get_object (merged);
  JsonArray *ranks = json_object_get_array_member (m, "ranks");
  g_autoptr (GArray) keys = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 last = G_MAXINT64;

  g_assert_cmpstr (json_object_get_string_member (m, "key"), ==, want_key);
  g_assert_cmpuint (json_array_get_length (ranks), ==, analyses->len);
  for (guint i = 0; i < analyses->len; i++)
    {
      JsonObject *s = json_object_get_object_member (
          json_node_get_object (g_ptr_array_index (analyses, i)), "summary");
      gint64 k = int_or (s, g_str_equal (want_key, "step") ? "step_ns" : "span_ns", -1);
      g_array_append_val (keys, k);
    }
  g_array_sort (keys, cmp_i64);
  gint64 *k = (gint64 *) keys->data;
  double median = keys->len % 2 ? (double) k[keys->len / 2]
                                : ((double) k[keys->len / 2 - 1] + k[keys->len / 2]) / 2;
  g_assert_cmpint (int_or (m, "median_ns", -1), ==, llround (median));

  for (guint r = 0; r < json_array_get_length (ranks); r++)
    {
      JsonObject *row = json_array_get_object_element (ranks, r);
      const char *source = json_object_get_string_member (row, "source");
      guint i = 0;
      while (i < files->len && g_strcmp0 (g_ptr_array_index (files, i), source) != 0)
        i++;
      g_assert_cmpuint (i, <, files->len);
      JsonObject *a = json_node_get_object (g_ptr_array_index (analyses, i));
      JsonObject *s = json_object_get_object_member (a, "summary");
      g_assert_cmpstr (json_object_get_string_member (row, "trace"), ==,
                       json_object_get_string_member (a, "file"));
      g_assert_cmpint (int_or (row, "rank", -1), ==, int_or (a, "rank", -1));
      g_assert_cmpint (int_or (row, "span_ns", -1), ==, int_or (s, "span_ns", -2));
      g_assert_cmpint (int_or (row, "step_ns", -1), ==, int_or (s, "step_ns", -1));
      g_assert_cmpint (int_or (row, "steps", -1), ==, int_or (s, "steps", -2));
      g_assert_cmpint (int_or (row, "gpus", -1), ==, int_or (s, "gpus", -2));
      g_assert_cmpint (int_or (row, "gpu_time_ns", -1), ==, int_or (s, "gpu_time_ns", -2));
      JsonObject *sev = json_object_get_object_member (s, "findings_by_severity");
      JsonObject *got = json_object_get_object_member (row, "findings");
      gint64 total = 0;
      for (guint v = 0; v < SL_N_SEVERITIES; v++)
        {
          const char *name = sl_severity_name (v);
          g_assert_cmpint (int_or (got, name, -1), ==, int_or (sev, name, -2));
          total += int_or (got, name, 0);
        }
      JsonArray *findings = json_object_get_array_member (a, "findings");
      g_assert_cmpint (total, ==, json_array_get_length (findings));
      gint64 key = int_or (row, "key_ns", -1);
      g_assert_cmpint (key, <=, last); /* slowest first */
      last = key;
      g_assert_cmpint (int_or (row, "deviation_ns", 0), ==, llround (key - median));
      if (median > 0)
        g_assert_cmpfloat_with_epsilon (json_object_get_double_member (row, "deviation_pct"),
                                        100.0 * (key - median) / median, 1e-3);
    }
}

/* The two ranks of a real PyTorch job (steps: the median step ranks them), then with an nsys
 * trace that has no steps (the span does). */
static void
test_merge_real (void)
{
  const char *names[] = { "pytorch/trace_filter_sampled_rank-0.json.gz",
                          "pytorch/trace_filter_sampled_rank-1.json.gz",
                          "nsys/nsys-2026.2-mfu-2gpu.sqlite" };
  g_autoptr (GPtrArray) analyses
    = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *trace = sl_test_trace_path (names[i]);
      g_autofree char *name = g_strdup_printf ("real-%u.json", i);
      char *out = tmp_path (name);
      g_ptr_array_add (analyses, analyze_to (trace, out));
      g_ptr_array_add (files, out);
    }
  /* the figures analyze wrote are the trace's */
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *a = json_node_get_object (g_ptr_array_index (analyses, i));
      g_assert_cmpint (int_or (a, "rank", -1), ==, i);
      g_assert_cmpint (int_or (a, "world_size", -1), ==, 128);
      g_autofree char *trace = sl_test_trace_path (names[i]);
      guint n = 0;
      gint64 step = kineto_median_step (trace, &n);
      JsonObject *s = json_object_get_object_member (a, "summary");
      g_assert_cmpint (int_or (s, "step_ns", -1), ==, step);
      g_assert_cmpint (int_or (s, "steps", -1), ==, n);
    }
  {
    JsonObject *a = json_node_get_object (g_ptr_array_index (analyses, 2));
    g_autofree char *trace = sl_test_trace_path (names[2]);
    g_autoptr (GError) error = NULL;
    g_autoptr (SlTrace) t = sl_trace_load (trace, SL_LOAD_ALL, NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    JsonObject *s = json_object_get_object_member (a, "summary");
    g_assert_true (json_object_get_null_member (a, "rank"));
    g_assert_cmpint (int_or (s, "span_ns", -1), ==, sl_trace_get_end (t) - sl_trace_get_start (t));
    g_assert_cmpint (int_or (s, "gpus", -1), ==, 2);
    g_assert_true (json_object_get_null_member (s, "step_ns"));
  }

  g_autoptr (GPtrArray) two = g_ptr_array_new ();
  g_autoptr (GPtrArray) two_a = g_ptr_array_new ();
  for (guint i = 0; i < 2; i++)
    {
      g_ptr_array_add (two, g_ptr_array_index (files, i));
      g_ptr_array_add (two_a, g_ptr_array_index (analyses, i));
    }
  g_autoptr (JsonNode) m2 = merge_json (two);
  check_merge (m2, two_a, two, "step");
  /* rank 1's median step (619.3 ms) is longer than rank 0's (615.1 ms) */
  g_assert_cmpint (int_or (json_array_get_object_element (
                               json_object_get_array_member (json_node_get_object (m2), "ranks"),
                               0), "rank", -1), ==, 1);

  g_autoptr (JsonNode) m3 = merge_json (files);
  check_merge (m3, analyses, files, "span");
}

/* Four planted ranks of one job, rank 2 the straggler: its steps 30% longer.  Ranks come from the
 * recorded environment (nsys's META_DATA_CAPTURE), as with `srun nsys profile`. */
static void
test_merge_planted (void)
{
  g_autoptr (GPtrArray) analyses
    = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

  for (guint rank = 0; rank < 4; rank++)
    {
      g_autofree char *name = g_strdup_printf ("planted-%u.sqlite", rank);
      g_autofree char *path = tmp_path (name);
      gint64 step = (rank == 2 ? 130 : 100 + rank) * PLANT_MS;
      Plant *p = plant_new (path);
      plant_loop (p, 0, 50, 10 * PLANT_MS, 5 * PLANT_MS, "gemm", &plant_config_full);
      plant_finish (p);
      for (guint s = 0; s < 4; s++)
        {
          g_autofree char *text = g_strdup_printf ("train_step %u", s);
          plant_nvtx (path, PLANT_MAIN, 59, text, s * step, (s + 1) * step);
        }
      g_autofree char *sql = g_strdup_printf (
          "CREATE TABLE IF NOT EXISTS META_DATA_CAPTURE (name TEXT, value TEXT);"
          "INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_0:ENVIRONMENT_VARIABLE', "
          "'RANK=\"%u\"'), ('PROCESS_0:ENVIRONMENT_VARIABLE', 'WORLD_SIZE=\"4\"');", rank);
      plant_sql (path, sql);
      g_autofree char *json_name = g_strdup_printf ("planted-%u.json", rank);
      char *out = tmp_path (json_name);
      g_ptr_array_add (analyses, analyze_to (path, out));
      g_ptr_array_add (files, out);
    }
  g_autoptr (JsonNode) m = merge_json (files);
  check_merge (m, analyses, files, "step");
  JsonArray *ranks = json_object_get_array_member (json_node_get_object (m), "ranks");
  JsonObject *first = json_array_get_object_element (ranks, 0);
  /* the median of 100, 101, 103, 130 ms is 102 ms: rank 2 is 28 ms (27.45%) over it */
  g_assert_cmpint (int_or (first, "rank", -1), ==, 2);
  g_assert_cmpint (int_or (first, "step_ns", -1), ==, 130 * PLANT_MS);
  g_assert_cmpint (int_or (json_node_get_object (m), "median_ns", -1), ==, 102 * PLANT_MS);
  g_assert_cmpint (int_or (first, "deviation_ns", -1), ==, 28 * PLANT_MS);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (first, "deviation_pct"),
                                  100.0 * 28 / 102, 1e-3);
  g_assert_cmpint (int_or (first, "world_size", -1), ==, 4);
  /* the rest, slowest first: 3, 1, 0 */
  const gint64 order[] = { 2, 3, 1, 0 };
  for (guint i = 1; i < 4; i++)
    g_assert_cmpint (int_or (json_array_get_object_element (ranks, i), "rank", -1), ==, order[i]);

  /* the same order in the other formats: the straggler on the first row */
  g_auto (SlTestRun) run = { 0 };
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_ptr_array_add (args, "merge-summaries");
  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add (args, g_ptr_array_index (files, i));
  run_list (&run, args);
  g_assert_cmpint (run.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (run.out, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], "Rank "));
  g_assert_nonnull (strstr (lines[0], "Step vs median"));
  g_assert_true (g_str_has_prefix (lines[1], "2 "));
  g_assert_nonnull (strstr (lines[1], "+27.5%"));
  g_assert_nonnull (strstr (lines[1], "planted-2.sqlite"));
  g_assert_true (g_str_has_prefix (lines[4], "0 "));
  g_assert_cmpstr (lines[5], ==, "");

  g_ptr_array_insert (args, 1, "--format");
  g_ptr_array_insert (args, 2, "csv");
  run_list (&run, args);
  g_assert_cmpint (run.status, ==, 0);
  g_auto (GStrv) csv = g_strsplit (run.out, "\n", -1);
  g_assert_true (g_str_has_prefix (csv[0], "rank,steps,step_ns,span_ns,key,deviation_ns,"));
  g_autofree char *want = g_strdup_printf ("2,4,%" G_GINT64_FORMAT ",", 130 * PLANT_MS);
  g_assert_true (g_str_has_prefix (csv[1], want));
  g_assert_nonnull (strstr (csv[1], ",step,28000000,27.451,"));
}

/* Bad input: each bad file named with what is wrong; nothing on standard output; status 1.  Bad
 * use: status 2. */
static void
test_merge_bad (void)
{
  g_autofree char *good = tmp_path ("good.json");
  g_autofree char *good2 = tmp_path ("good2.json");
  g_autofree char *trace = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-0.json.gz");
  g_autoptr (JsonNode) a = analyze_to (trace, good);
  g_autoptr (GError) error = NULL;

  /* not JSON; JSON of something else; analyze's without the figures; a figure of the wrong type;
   * a finding without its cost; no such file */
  g_autofree char *text = tmp_path ("notes.json");
  g_autofree char *other = tmp_path ("info.json");
  g_autofree char *old = tmp_path ("old-analyze.json");
  g_autofree char *typed = tmp_path ("typed.json");
  g_autofree char *costless = tmp_path ("costless.json");
  g_autofree char *missing = tmp_path ("missing.json");
  g_assert_true (g_file_set_contents (text, "rank 3 was slow\n", -1, &error));
  g_assert_true (g_file_set_contents (other, "{\"file\": \"x\", \"processes\": []}", -1, &error));
  g_assert_true (g_file_set_contents (old, "{\"file\": \"x\", \"rules\": [], \"findings\": []}",
                                      -1, &error));
  g_assert_true (g_file_set_contents (
      typed, "{\"file\": \"x\", \"rank\": 4, \"rules\": [], \"findings\": [], \"summary\": "
             "{\"span_ns\": \"long\", \"gpus\": 1, \"gpu_time_ns\": 5, \"steps\": 0, "
             "\"step_ns\": null}}", -1, &error));
  g_assert_true (g_file_set_contents (
      costless, "{\"file\": \"x\", \"rank\": 5, \"rules\": [], \"findings\": [{\"rule\": \"a\"}], "
                "\"summary\": {\"span_ns\": 9, \"gpus\": 1, \"gpu_time_ns\": 5, \"steps\": 0, "
                "\"step_ns\": null}}", -1, &error));
  const struct
  {
    const char *file, *says;
  } cases[] = {
    { text, "not readable as JSON" },
    { other, "not the output of `sightline analyze --format json`" },
    { old, "no \"summary\"" },
    { typed, "\"span_ns\" is something else" },
    { costless, "finding 1: \"cost_ns\" is missing" },
    { missing, "not readable as JSON" },
    { trace, "not readable as JSON" }, /* a trace, not its analysis */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (SlTestRun) run = { 0 };
      sl_test_run (&run, SL_SIGHTLINE_BIN, "merge-summaries", good, cases[i].file, NULL);
      g_assert_cmpint (run.status, ==, 1);
      g_assert_cmpstr (run.out, ==, "");
      g_autofree char *want = g_strdup_printf ("%s: ", cases[i].file);
      g_assert_nonnull (strstr (run.err, want));
      g_assert_nonnull (strstr (run.err, cases[i].says));
      g_assert_null (strstr (run.err, "good.json")); /* the good file is not blamed */
    }
  /* all the bad ones named at once */
  g_auto (SlTestRun) all = { 0 };
  sl_test_run (&all, SL_SIGHTLINE_BIN, "merge-summaries", text, good, old, NULL);
  g_assert_cmpint (all.status, ==, 1);
  g_assert_nonnull (strstr (all.err, text));
  g_assert_nonnull (strstr (all.err, old));

  /* a rank given twice */
  g_autoptr (JsonNode) b = analyze_to (trace, good2);
  g_auto (SlTestRun) twice = { 0 };
  sl_test_run (&twice, SL_SIGHTLINE_BIN, "merge-summaries", good, good2, NULL);
  g_assert_cmpint (twice.status, ==, 1);
  g_assert_cmpstr (twice.out, ==, "");
  g_assert_nonnull (strstr (twice.err, "are both rank 0"));
  g_assert_nonnull (strstr (twice.err, good2));

  /* bad use */
  g_auto (SlTestRun) none = { 0 };
  sl_test_run (&none, SL_SIGHTLINE_BIN, "merge-summaries", NULL);
  g_assert_cmpint (none.status, ==, 2);
  g_auto (SlTestRun) format = { 0 };
  sl_test_run (&format, SL_SIGHTLINE_BIN, "merge-summaries", "--format", "xml", good, NULL);
  g_assert_cmpint (format.status, ==, 2);
  g_assert_nonnull (strstr (format.err, "unknown format 'xml'"));

  /* one good file alone: itself the median */
  g_auto (SlTestRun) one = { 0 };
  sl_test_run (&one, SL_SIGHTLINE_BIN, "merge-summaries", "--format", "csv", good, NULL);
  g_assert_cmpint (one.status, ==, 0);
  g_assert_nonnull (strstr (one.out, ",step,0,0.000,"));
}

/* Severity: a finding's cost against the time analysed. */
static void
test_severity (void)
{
  g_assert_cmpint (sl_severity_of (100, 1000), ==, SL_SEVERITY_HIGH);
  g_assert_cmpint (sl_severity_of (99, 1000), ==, SL_SEVERITY_MEDIUM);
  g_assert_cmpint (sl_severity_of (10, 1000), ==, SL_SEVERITY_MEDIUM);
  g_assert_cmpint (sl_severity_of (9, 1000), ==, SL_SEVERITY_LOW);
  g_assert_cmpint (sl_severity_of (5, 0), ==, SL_SEVERITY_LOW);
  g_assert_cmpstr (sl_severity_name (SL_SEVERITY_MEDIUM), ==, "medium");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/summaries/severity", test_severity);
  g_test_add_func ("/model/summaries/steps-kineto", test_steps_kineto);
  g_test_add_func ("/model/summaries/steps-planted", test_steps_planted);
  g_test_add_func ("/app/merge-summaries/real", test_merge_real);
  g_test_add_func ("/analyze/straggler/real", test_straggler_real);
  g_test_add_func ("/analyze/straggler/planted", test_straggler_planted);
  g_test_add_func ("/analyze/straggler/generated", test_straggler_generated);
  g_test_add_func ("/app/merge-summaries/planted", test_merge_planted);
  g_test_add_func ("/app/merge-summaries/bad-input", test_merge_bad);
  return g_test_run ();
}
