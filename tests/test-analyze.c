/* test-analyze.c: the rules of `sightline analyze` on traces with planted problems (each found at
 * its place with its figures, a clean trace with none), and on the real nsys traces. */
#include <gio/gio.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "sl-analyze-private.h"
#include "sl-sort.h"
#include "sl-kernel-kind.h"
#include "sl-metrics.h"
#include "sl-inventory.h"
#include "sl-plant.h"
#include "sl-schema.h"
#include "sl-range.h"
#include "sl-summaries.h"
#include "sl-utilization.h"
#include "sl-test-util.h"

#define US PLANT_US
#define MS PLANT_MS
#define S  PLANT_S

/* A healthy second: kernels of 95 µs launched every 100 µs (95% busy), the loaders reading in
 * the background and the main thread sampled while it launches. */
static gint64
clean_stretch (Plant *p,
               gint64 t,
               gint64 len)
{
  guint n = (guint) (len / (100 * US));

  for (gint64 r = t; r + 300 * US < t + len; r += 400 * US)
    {
      plant_osrt (p, PLANT_LOADER_0, "read", r, r + 200 * US);
      plant_osrt (p, PLANT_LOADER_1, "read", r + 100 * US, r + 300 * US);
    }
  for (gint64 s = t; s < t + len; s += MS)
    plant_sample (p, PLANT_MAIN, s + 3 * US, "_PyEval_EvalFrameDefault");
  return plant_loop (p, t, n, 100 * US, 95 * US, "gemm_kernel_clean", &plant_config_full);
}

static char *
trace_path (const char *name)
{
  return g_build_filename (sl_test_tmpdir (), name, NULL);
}

static SlAnalysis *
analyze (const char *path,
         SlTrace   **trace_out)
{
  g_autoptr (GError) error = NULL;
  SlTrace *trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  SlAnalysis *analysis;

  g_assert_no_error (error);
  analysis = sl_analyze (trace, NULL, NULL, &error);
  g_assert_no_error (error);
  if (g_test_verbose ())
    {
      g_autofree char *text = sl_analysis_to_text (analysis, trace);
      g_test_message ("%s:\n%s", path, text);
    }
  *trace_out = trace;
  return analysis;
}

/* The findings of one rule, most costly first. */
static GPtrArray *
of_rule (SlAnalysis *a,
         const char *rule)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < a->findings->len; i++)
    {
      SlFinding *f = g_ptr_array_index (a->findings, i);
      if (strcmp (f->rule->name, rule) == 0)
        g_ptr_array_add (out, f);
    }
  return out;
}

/* The findings of one rule with each group replaced by its instances. */
static GPtrArray *
instances_of_rule (SlAnalysis *a,
                   const char *rule)
{
  g_autoptr (GPtrArray) found = of_rule (a, rule);
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < found->len; i++)
    {
      SlFinding *f = g_ptr_array_index (found, i);
      if (f->instances == NULL)
        g_ptr_array_add (out, f);
      for (guint k = 0; f->instances != NULL && k < f->instances->len; k++)
        g_ptr_array_add (out, g_ptr_array_index (f->instances, k));
    }
  return out;
}

/* The one finding of a rule: there must be exactly one. */
static const SlFinding *
the_only (SlAnalysis *a,
          const char *rule)
{
  g_autoptr (GPtrArray) found = of_rule (a, rule);

  g_assert_cmpuint (found->len, ==, 1);
  return g_ptr_array_index (found, 0);
}

static const SlEvidence *
evidence_of (const SlFinding *f,
             const char      *key)
{
  for (guint i = 0; i < f->evidence->len; i++)
    {
      const SlEvidence *e = &g_array_index (f->evidence, SlEvidence, i);
      if (strcmp (e->key, key) == 0)
        return e;
    }
  g_error ("finding '%s' has no evidence '%s'", f->summary, key);
  return NULL;
}

static double
ev (const SlFinding *f,
    const char      *key)
{
  return evidence_of (f, key)->value;
}

static const char *
ev_text (const SlFinding *f,
         const char      *key)
{
  return evidence_of (f, key)->text;
}

static void
assert_near (gint64 value,
             gint64 expected,
             gint64 tolerance)
{
  if (value < expected - tolerance || value > expected + tolerance)
    g_error ("%" G_GINT64_FORMAT " is not within %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT,
             value, tolerance, expected);
}

/* A clean trace: no rule finds anything. */
static void
test_clean (void)
{
  g_autofree char *path = trace_path ("clean.sqlite");
  Plant *p = plant_new (path);
  gint64 t = clean_stretch (p, 10 * MS, 3 * S);
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;

  (void) t;
  plant_finish (p);
  a = analyze (path, &trace);
  for (guint i = 0; i < a->findings->len; i++)
    g_test_message ("unexpected: [%s] %s",
                    ((SlFinding *) g_ptr_array_index (a->findings, i))->rule->name,
                    ((SlFinding *) g_ptr_array_index (a->findings, i))->summary);
  g_assert_cmpuint (a->findings->len, ==, 0);
  /* and every rule ran */
  guint n_rules = 0;
  for (const SlRule *r = sl_analyze_rules (); r->name != NULL; r++)
    n_rules++;
  g_assert_cmpuint (a->summaries->len, ==, n_rules);
}

/* Two GPUs whose file lists device 1 first (its GPU row and its kernels): a gap on device 0 is
 * named "GPU 0" in the text, the JSON and the rule notes, and every lane it tints is device 0's. */
static void
test_gpu_ids (void)
{
  static const guint devices[] = { 1, 0 };
  g_autofree char *path = trace_path ("gpu-ids.sqlite");
  Plant *p = plant_new_gpus (path, devices, G_N_ELEMENTS (devices));
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;
  gint64 t, gap_start, gap_end;

  /* device 1: busy (95 µs of every 100 µs) for 2.6 s, launched by a loader thread */
  for (t = 10 * MS; t < 2610 * MS; t += 100 * US)
    {
      gint64 corr = plant_api (p, PLANT_LOADER_1, "cudaLaunchKernel_v7000", t, t + 5 * US);
      plant_kernel_on (p, 1, "gemm_kernel_one", &plant_config_full, t + 8 * US, t + 103 * US,
                       corr);
    }
  /* device 0: 1 s busy, 600 ms idle while the main thread reads, 1 s busy */
  for (t = 10 * MS; t < 1010 * MS; t += 100 * US)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 5 * US);
      plant_kernel_on (p, 0, "gemm_kernel_zero", &plant_config_full, t + 8 * US, t + 103 * US,
                       corr);
    }
  gap_start = t - 100 * US + 103 * US;
  plant_osrt (p, PLANT_MAIN, "read", t, t + 600 * MS);
  t += 600 * MS + 10 * US;
  gap_end = t + 8 * US;
  for (gint64 end = t + 1 * S; t < end; t += 100 * US)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 5 * US);
      plant_kernel_on (p, 0, "gemm_kernel_zero", &plant_config_full, t + 8 * US, t + 103 * US,
                       corr);
    }
  plant_finish (p);

  a = analyze (path, &trace);
  /* the planted order holds: the first GPU of the table is device 1 */
  g_assert_cmpuint (sl_trace_get_n_gpus (trace), ==, 2);
  g_assert_cmpuint (sl_trace_get_gpu (trace, 0)->device_id, ==, 1);
  f = the_only (a, "gpu_gaps");
  g_assert_cmpint (f->start, ==, gap_start);
  g_assert_cmpint (f->end, ==, gap_end);
  g_assert_cmpint (f->gpu, ==, 0);
  g_assert_true (g_str_has_prefix (f->summary, "GPU 0 idle for 600."));
  /* the lanes the viewer tints: device 0's GPU lanes (and host threads'), none of device 1 */
  {
    guint n_gpu_lanes = 0;
    for (guint i = 0; i < f->lanes->len; i++)
      {
        const SlLane *lane = sl_trace_get_lane (trace, g_array_index (f->lanes, guint32, i));
        if (lane->gpu < 0)
          continue;
        g_assert_cmpuint (sl_trace_get_gpu (trace, lane->gpu)->device_id, ==, 0);
        n_gpu_lanes++;
      }
    g_assert_cmpuint (n_gpu_lanes, >, 0);
  }
  {
    g_autofree char *text = sl_analysis_to_text (a, trace);
    g_autofree char *json = sl_analysis_to_json (a, trace);
    g_autofree char *range = g_strdup_printf ("\"rule\": \"gpu_gaps\", \"start_ns\": %"
                                              G_GINT64_FORMAT ", \"end_ns\": %" G_GINT64_FORMAT
                                              ", \"cost_ns\": %" G_GINT64_FORMAT ", \"gpu\": 0,",
                                              gap_start, gap_end, gap_end - gap_start);
    const char *note;

    g_assert_nonnull (strstr (text, "] GPU 0 idle for 600."));
    g_assert_null (strstr (text, "GPU 1 idle for"));
    g_assert_nonnull (strstr (json, range));
    /* idle_breakdown's note: device 0 ran kernels 95% of 2 s in 2.6 s, device 1 95% */
    note = strstr (text, "GPU 0 over ");
    g_assert_nonnull (note);
    g_assert_nonnull (strstr (note, "kernels 73."));
    note = strstr (text, "GPU 1 over ");
    g_assert_nonnull (note);
    g_assert_nonnull (strstr (note, "kernels 95."));
  }
}

/* Does any cpu_bound finding claim the thread busy? */
static gboolean
claims_busy (SlAnalysis *a)
{
  g_autoptr (GPtrArray) cpu = of_rule (a, "cpu_bound");

  for (guint i = 0; i < cpu->len; i++)
    if (strstr (((SlFinding *) g_ptr_array_index (cpu, i))->summary, " is busy ") != NULL)
      return TRUE;
  return FALSE;
}

/* cpu_bound without CPU evidence (no samples, no OS runtime calls): a 1.9 s stretch in which the
 * launching thread makes no CUDA call after a 1 ms asynchronous copy from pinned memory is not
 * "busy 100% (most in cuMemcpyHtoDAsync_v2)": the finding says what the trace lacks. */
static void
test_cpu_bound_no_evidence (void)
{
  g_autofree char *path = trace_path ("cpu-no-evidence.sqlite");
  Plant *p = plant_new (path);
  gint64 t = plant_loop (p, 10 * MS, 3000, 100 * US, 95 * US, "gemm_kernel_clean",
                         &plant_config_full), corr;
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;

  corr = plant_api (p, PLANT_MAIN, "cuMemcpyHtoDAsync_v2", t, t + MS);
  plant_memcpy (p, 1, 1, 2, 1 << 20, t + 10 * US, t + 500 * US, corr);
  t += 1900 * MS;
  plant_loop (p, t, 3000, 100 * US, 95 * US, "gemm_kernel_clean", &plant_config_full);
  plant_finish (p);

  a = analyze (path, &trace);
  g_assert_false (claims_busy (a));
  f = the_only (a, "cpu_bound");
  g_assert_nonnull (strstr (f->summary, "in no traced call"));
  g_assert_nonnull (strstr (f->summary, "without CPU samples or OS runtime calls"));
  g_assert_null (strstr (f->summary, "cuMemcpyHtoDAsync_v2"));
  g_assert_cmpfloat (ev (f, "host_busy_share"), <, 0.01);
  g_assert_cmpfloat (ev (f, "host_untraced_share"), >, 0.99);
  g_assert_cmpstr (ev_text (f, "cpu_evidence"), ==, "CUDA calls only");
  g_assert_nonnull (strstr (f->advice, "CPU samples"));
  assert_near (f->end - f->start, 1900 * MS, 100 * MS);
}

/* Each millisecond: a 10 µs launch, 390 µs in cudaStreamSynchronize, 600 µs outside any call.
 * Without samples the 600 µs are not busy, and the sync call is never the busy work; with samples
 * in those 600 µs the thread is busy there, in what the samples name. */
static void
test_cpu_bound_sync_not_busy (void)
{
  for (guint sampled = 0; sampled < 2; sampled++)
    {
      g_autofree char *path = trace_path (sampled ? "cpu-sync-sampled.sqlite"
                                                  : "cpu-sync.sqlite");
      Plant *p = plant_new (path);
      g_autoptr (SlTrace) trace = NULL;
      g_autoptr (SlAnalysis) a = NULL;
      g_autoptr (GPtrArray) cpu = NULL;

      for (gint64 t = 10 * MS; t < 1010 * MS; t += MS)
        {
          gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 10 * US);
          plant_kernel (p, "step_kernel", &plant_config_full, t + 15 * US, t + 395 * US, corr);
          plant_api (p, PLANT_MAIN, "cudaStreamSynchronize_v3020", t + 10 * US, t + 400 * US);
          for (gint64 s = t + 450 * US; sampled && s < t + MS; s += 100 * US)
            plant_sample (p, PLANT_MAIN, s, "compute_loss");
        }
      plant_finish (p);

      a = analyze (path, &trace);
      cpu = of_rule (a, "cpu_bound");
      g_assert_cmpuint (cpu->len, ==, 1);
      for (guint i = 0; i < cpu->len; i++)
        g_assert_null (strstr (((SlFinding *) g_ptr_array_index (cpu, i))->summary,
                               "cudaStreamSynchronize"));
      if (!sampled)
        {
          const SlFinding *f = g_ptr_array_index (cpu, 0);
          g_assert_false (claims_busy (a));
          g_assert_nonnull (strstr (f->summary, "unknown"));
          g_assert_cmpfloat_with_epsilon (ev (f, "host_sync_share"), 0.39, 0.01);
          g_assert_cmpfloat_with_epsilon (ev (f, "host_busy_share"), 0.01, 0.005);
        }
      else
        {
          const SlFinding *f = g_ptr_array_index (cpu, 0);
          g_assert_nonnull (strstr (f->summary, " is busy 61% (most in compute_loss, "));
          g_assert_cmpstr (ev_text (f, "cpu_evidence"), ==, "CPU samples, CUDA calls");
          /* the kernels run 380 µs: no launch-overhead advice */
          g_assert_null (strstr (f->advice, "CUDA Graphs"));
        }
    }
}

/* Kernels of 350 ms, and 250 ms of sampled CPU work between them: the advice is about the
 * thread's work, never launch overhead (CUDA Graphs, torch.compile). */
static void
test_cpu_bound_long_kernels (void)
{
  g_autofree char *path = trace_path ("cpu-long-kernels.sqlite");
  Plant *p = plant_new (path);
  gint64 t = 10 * MS;
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  g_autoptr (GPtrArray) cpu = NULL;

  for (guint step = 0; step < 6; step++)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 10 * US);
      plant_kernel (p, "triad_kernel", &plant_config_full, t + 20 * US, t + 350 * MS, corr);
      plant_api (p, PLANT_MAIN, "cudaStreamSynchronize_v3020", t + 10 * US, t + 350 * MS + 5 * US);
      t += 350 * MS + 10 * US;
      for (gint64 s = t; s < t + 250 * MS; s += MS)
        plant_sample (p, PLANT_MAIN, s, "prepare_batch");
      t += 250 * MS;
    }
  plant_finish (p);

  a = analyze (path, &trace);
  /* one group: the same cause between each pair of kernels */
  g_assert_cmpuint (the_only (a, "cpu_bound")->instances->len, >=, 4);
  g_assert_null (strstr (the_only (a, "cpu_bound")->advice, "CUDA Graphs"));
  cpu = instances_of_rule (a, "cpu_bound");
  g_assert_cmpuint (cpu->len, >=, 4);
  for (guint i = 0; i < cpu->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (cpu, i);
      g_assert_nonnull (strstr (f->summary, "most in prepare_batch"));
      g_assert_null (strstr (f->advice, "CUDA Graphs"));
      g_assert_null (strstr (f->advice, "torch.compile"));
      g_assert_nonnull (strstr (f->advice, "kernels run long (median 349.98"));
    }
}

/* Issue 15: samples with Python frames name the innermost Python function and its line, not the
 * interpreter's C function at the leaf. */
static void
test_cpu_bound_python (void)
{
  g_autofree char *path = trace_path ("cpu-python.sqlite");
  Plant *p = plant_new (path);
  gint64 t = 10 * MS;
  static const char *const stack[] = {
    "PyObject_Free@/usr/bin/python3.11", "collate@/srv/data/dataset.py:42",
    "_PyEval_EvalFrameDefault@/usr/bin/python3.11", "train_step@/srv/train.py:7",
  };
  static const char *const native[] = { "memcpy@libc.so.6", "main@/usr/bin/python3.11" };
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  g_autoptr (GPtrArray) cpu = NULL;

  for (guint step = 0; step < 6; step++)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 10 * US);
      plant_kernel (p, "triad_kernel", &plant_config_full, t + 20 * US, t + 350 * MS, corr);
      plant_api (p, PLANT_MAIN, "cudaStreamSynchronize_v3020", t + 10 * US, t + 350 * MS + 5 * US);
      t += 350 * MS + 10 * US;
      /* 2 of 3 samples in collate (under an interpreter leaf), 1 in native code */
      for (gint64 s = t, k = 0; s < t + 250 * MS; s += MS, k++)
        if (k % 3 == 2)
          plant_sample_stack (p, PLANT_MAIN, s, native, G_N_ELEMENTS (native));
        else
          plant_sample_stack (p, PLANT_MAIN, s, stack, G_N_ELEMENTS (stack));
      t += 250 * MS;
    }
  plant_finish (p);

  a = analyze (path, &trace);
  cpu = instances_of_rule (a, "cpu_bound");
  g_assert_cmpuint (cpu->len, >=, 4);
  for (guint i = 0; i < cpu->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (cpu, i);
      g_test_message ("%s", f->summary);
      g_assert_nonnull (strstr (f->summary, "most in collate (/srv/data/dataset.py:42), "));
    }
}

/* 48 gaps of one cause (the GPU idle 4.4 ms while the host is in cuStreamSynchronize) and one of
 * another (a 600 ms read): the 48 come as one finding with their count, summed cost and the
 * instances under it, in the text and the JSON; the other stays on its own. */
static gint64
plant_sync_gaps (Plant  *p,
                 gint64  t,
                 guint   n,
                 GArray *gaps)
{
  for (guint i = 0; i < n; i++)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cuLaunchKernel", t, t + 5 * US);
      gint64 end = t + 8 * US + MS;
      plant_kernel (p, "step_kernel", &plant_config_full, t + 8 * US, end, corr);
      /* an event sync, not a stream sync: sync_api (nsys's rule: device and stream syncs)
       * would take the idle time during a stream sync; these gaps are gpu_gaps' */
      plant_api (p, PLANT_MAIN, "cuEventSynchronize", t + 5 * US, end + 4400 * US);
      t = end + 4400 * US + 10 * US;
      if (gaps != NULL)
        {
          SlTime gap[2] = { end, t + 8 * US };
          g_array_append_vals (gaps, gap, 2);
        }
    }
  return t;
}

static void
test_grouped (void)
{
  g_autofree char *path = trace_path ("grouped.sqlite");
  Plant *p = plant_new (path);
  gint64 t = clean_stretch (p, 10 * MS, 1 * S);
  g_autoptr (GArray) gaps = g_array_new (FALSE, FALSE, sizeof (SlTime));
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  g_autoptr (GPtrArray) found = NULL;
  const SlFinding *group = NULL, *read = NULL;
  SlTime sum = 0;

  t = plant_sync_gaps (p, t, 48, gaps);
  t = clean_stretch (p, t, 1 * S);
  plant_osrt (p, PLANT_MAIN, "read", t, t + 600 * MS);
  t += 600 * MS + 10 * US;
  clean_stretch (p, t, 1 * S);
  plant_finish (p);

  a = analyze (path, &trace);
  found = of_rule (a, "gpu_gaps");
  g_assert_cmpuint (found->len, ==, 2);
  for (guint i = 0; i < found->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (found, i);
      if (f->instances != NULL)
        group = f;
      else
        read = f;
    }
  g_assert_nonnull (group);
  g_assert_nonnull (read);
  g_assert_nonnull (strstr (read->summary, "blocked in read"));
  g_assert_cmpuint (group->instances->len, ==, 48);
  g_assert_cmpuint ((guint) ev (group, "count"), ==, 48);
  g_assert_true (g_str_has_prefix (group->summary,
                                   "48 × GPU 0 idle; python3 [100] in cuEventSynchronize ("));
  g_assert_cmpstr (group->cause, ==, "GPU 0 idle; python3 [100] in cuEventSynchronize");
  g_assert_cmpint (group->gpu, ==, 0);
  g_assert_cmpint (sl_trace_get_thread (trace, group->thread)->tid, ==, PLANT_MAIN);
  /* the instances in time order, each the gap planted */
  for (guint i = 0; i < 48; i++)
    {
      const SlFinding *f = g_ptr_array_index (group->instances, i);
      g_assert_cmpint (f->start, ==, g_array_index (gaps, SlTime, 2 * i));
      g_assert_cmpint (f->end, ==, g_array_index (gaps, SlTime, 2 * i + 1));
      g_assert_true (g_str_has_prefix (f->summary, "GPU 0 idle for 4.41"));
      g_assert_nonnull (strstr (f->summary, "in cuEventSynchronize for 4.4"));
      g_assert_null (f->instances);
      sum += f->cost;
      /* the group tints every lane an instance does */
      for (guint k = 0; k < f->lanes->len; k++)
        {
          gboolean in = FALSE;
          for (guint j = 0; j < group->lanes->len; j++)
            in |= g_array_index (group->lanes, guint32, j) == g_array_index (f->lanes, guint32, k);
          g_assert_true (in);
        }
    }
  g_assert_cmpint (group->cost, ==, sum);
  g_assert_cmpint ((gint64) ev (group, "total_cost_ns"), ==, sum);
  g_assert_cmpint (group->start, ==, g_array_index (gaps, SlTime, 0));
  g_assert_cmpint (group->end, ==, g_array_index (gaps, SlTime, 95));
  {
    g_autofree char *text = sl_analysis_to_text (a, trace);
    g_autofree char *json = sl_analysis_to_json (a, trace);
    guint n = 0;

    g_assert_nonnull (strstr (text, "] 48 × GPU 0 idle; python3 [100] in cuEventSynchronize ("));
    g_assert_nonnull (strstr (text, "   Instances (48, in time order):\n"));
    g_assert_nonnull (strstr (text, "… and 28 more"));
    /* one gpu_gaps finding line for the group, not 48 */
    for (const char *q = text; (q = strstr (q, "[gpu_gaps]")) != NULL; q++)
      n++;
    g_assert_cmpuint (n, ==, 2);
    g_assert_nonnull (strstr (json, "\"count\": 48"));
    n = 0;
    for (const char *q = json; (q = strstr (q, "\"rule\": \"gpu_gaps\"")) != NULL; q++)
      n++;
    g_assert_cmpuint (n, ==, 2 + 48);
  }
}

/* A trace with only OS runtime calls and nsys's diagnostics: no bare "No findings.", but what it
 * lacks and holds, and nsys's warning, in the text and the JSON. */
static void
test_no_cuda (void)
{
  g_autofree char *path = trace_path ("no-cuda.sqlite");
  Plant *p = plant_new (path);
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  g_autofree char *text = NULL, *json = NULL;
  sqlite3 *db = NULL;

  for (gint64 t = 10 * MS; t < 110 * MS; t += MS)
    plant_osrt (p, PLANT_MAIN, "read", t, t + 500 * US);
  plant_finish (p);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db,
                                 "CREATE TABLE DIAGNOSTIC_EVENT (timestamp INTEGER NOT NULL, "
                                 "timestampType INTEGER NOT NULL, source INTEGER NOT NULL, "
                                 "severity INTEGER NOT NULL, text TEXT NOT NULL, "
                                 "globalPid INTEGER);"
                                 "INSERT INTO DIAGNOSTIC_EVENT VALUES (120000000, 1, 3, 2, "
                                 "'No CUDA events collected. Does the process use CUDA?', NULL);"
                                 "INSERT INTO DIAGNOSTIC_EVENT VALUES (0, 1, 3, 1, "
                                 "'Profiling has started.', NULL);",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);

  a = analyze (path, &trace);
  /* the model reads the table, in the order of time */
  g_assert_cmpuint (sl_trace_get_n_diagnostics (trace), ==, 2);
  g_assert_cmpstr (sl_trace_str (trace, sl_trace_get_diagnostic (trace, 1)->text), ==,
                   "No CUDA events collected. Does the process use CUDA?");
  g_assert_cmpint (sl_trace_get_diagnostic (trace, 1)->severity, ==, SL_DIAGNOSTIC_WARNING);
  g_assert_cmpint (sl_trace_get_diagnostic (trace, 1)->timestamp, ==, 120000000);
  g_assert_cmpuint (a->findings->len, ==, 0);
  g_assert_cmpstr (a->lacks, ==, "no CUDA API calls and no GPU activity (kernels, copies, "
                                 "memsets); it holds 100 OS runtime calls");
  text = sl_analysis_to_text (a, trace);
  g_assert_null (strstr (text, "No findings.\n"));
  g_assert_nonnull (strstr (text, "The trace has no CUDA API calls and no GPU activity"));
  g_assert_nonnull (strstr (text, "it holds 100 OS runtime calls.\n"));
  g_assert_nonnull (strstr (text, "No findings: the rules need CUDA API calls and GPU activity."));
  g_assert_nonnull (strstr (text, "  Warning  No CUDA events collected. Does the process use "
                                  "CUDA?\n"));
  /* info messages are left to the JSON */
  g_assert_null (strstr (text, "Profiling has started"));
  json = sl_analysis_to_json (a, trace);
  g_assert_nonnull (strstr (json, "\"lacks\": \"no CUDA API calls and no GPU activity"));
  g_assert_nonnull (strstr (json, "{\"timestamp_ns\": 120000000, \"severity\": \"Warning\", "
                                  "\"source\": 3, \"text\": \"No CUDA events collected."));
  g_assert_nonnull (strstr (json, "\"text\": \"Profiling has started.\"}"));
}

/* Launches from two threads, `n` kernels from `t`: three in five from PLANT_LOADER_1 (as
 * pt_autograd_0 launches the backward pass), the rest from the main thread. */
static gint64
two_launchers (Plant *p,
               gint64 t,
               guint  n)
{
  for (guint i = 0; i < n; i++)
    {
      gint tid = i % 5 < 3 ? PLANT_LOADER_1 : PLANT_MAIN;
      gint64 corr = plant_api (p, tid, "cudaLaunchKernel_v7000", t, t + 5 * US);
      gint64 start = MAX (t + 8 * US, plant_gpu_free (p));
      plant_kernel (p, "gemm_kernel_clean", &plant_config_full, start, start + 95 * US, corr);
      t += 100 * US;
    }
  return t;
}

/* Seen on a real PyTorch run (the first optimizer step imports torch._dynamo): two threads launch
 * the GPU's work; in a 600 ms gap the main thread computes (samples, and a few short reads) while
 * the thread that launches most idles and another waits on a condition variable the whole gap.
 * The gap is the main thread's, busy on the CPU, not the waiting thread's. */
static void
test_gap_two_launchers (void)
{
  g_autofree char *path = trace_path ("gap-two-launchers.sqlite");
  Plant *p = plant_new (path);
  gint64 t = two_launchers (p, 10 * MS, 250);
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;

  plant_osrt (p, PLANT_LOADER_0, "pthread_cond_timedwait", t, t + 600 * MS);
  for (gint64 s = t; s < t + 600 * MS; s += MS)
    plant_sample (p, PLANT_MAIN, s + 3 * US, "build_dataclass");
  for (gint k = 0; k < 3; k++)
    plant_osrt (p, PLANT_MAIN, "read", t + k * 200 * MS + 50 * MS, t + k * 200 * MS + 50 * MS + 100 * US);
  t = two_launchers (p, t + 600 * MS + 10 * US, 250);
  plant_finish (p);

  a = analyze (path, &trace);
  const SlFinding *f = the_only (a, "gpu_gaps");
  g_test_message ("%s", f->summary);
  g_assert_cmpint (sl_trace_get_thread (trace, f->thread)->tid, ==, PLANT_MAIN);
  g_assert_nonnull (strstr (f->summary, "busy on the CPU"));
  g_assert_nonnull (strstr (f->summary, "build_dataclass"));
  g_assert_null (strstr (f->summary, "pthread_cond_timedwait"));
  /* its evidence counts the running time, not only the 300 µs of reads */
  assert_near ((gint64) ev (f, "thread_100_active_ns"), 600 * MS, 2 * MS);
}

/* A 600 ms gap while the main thread blocks in read. */
static void
test_gap_read (void)
{
  g_autofree char *path = trace_path ("gap-read.sqlite");
  Plant *p = plant_new (path);
  gint64 t = clean_stretch (p, 10 * MS, 1 * S), gap_start, gap_end;
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  g_autoptr (GPtrArray) cpu = NULL;
  const SlFinding *f;

  gap_start = plant_gpu_free (p);
  plant_osrt (p, PLANT_MAIN, "read", t, t + 600 * MS);
  t += 600 * MS + 10 * US;
  gap_end = t + 8 * US;   /* the next kernel's start */
  clean_stretch (p, t, 1 * S);
  plant_finish (p);

  a = analyze (path, &trace);
  f = the_only (a, "gpu_gaps");
  g_assert_cmpint (f->start, ==, gap_start);
  g_assert_cmpint (f->end, ==, gap_end);
  g_assert_cmpint (f->cost, ==, gap_end - gap_start);
  assert_near ((gint64) ev (f, "gap_ns"), 600 * MS, 200 * US);
  g_assert_cmpint (f->gpu, ==, 0);
  g_assert_cmpint (sl_trace_get_thread (trace, f->thread)->tid, ==, PLANT_MAIN);
  g_assert_nonnull (strstr (f->summary, "blocked in read"));
  g_assert_nonnull (strstr (f->advice, "read"));
  /* the main thread's evidence: ~600 ms in read */
  assert_near ((gint64) ev (f, "thread_100_active_ns"), 600 * MS, 200 * US);
  g_assert_true (g_str_has_prefix (ev_text (f, "thread_100_active_ns"), "in read 599.99"));
  /* it is the costliest finding, and the events involved include the read */
  g_assert_true (g_ptr_array_index (a->findings, 0) == f
                 || strcmp (((SlFinding *) g_ptr_array_index (a->findings, 0))->rule->name,
                            "gpu_util") == 0
                 || strcmp (((SlFinding *) g_ptr_array_index (a->findings, 0))->rule->name,
                            "idle_breakdown") == 0);
  g_assert_cmpuint (f->events->len, >=, 1);

  /* utilization: the stretch of low chunks covers the gap */
  f = the_only (a, "gpu_util");
  g_assert_cmpint (f->start, <=, gap_start + 100 * MS);
  g_assert_cmpint (f->end, >=, gap_end - 100 * MS);
  g_assert_cmpfloat (ev (f, "busy_share"), <, 0.8);
  /* the same in JSON, for scripts */
  {
    g_autofree char *json = sl_analysis_to_json (a, trace);
    g_autofree char *gap = g_strdup_printf ("\"gap_ns\": %" G_GINT64_FORMAT, gap_end - gap_start);
    g_autofree char *range = g_strdup_printf ("\"start_ns\": %" G_GINT64_FORMAT ", \"end_ns\": %"
                                              G_GINT64_FORMAT, gap_start, gap_end);
    g_assert_nonnull (strstr (json, "\"rule\": \"gpu_gaps\""));
    g_assert_nonnull (strstr (json, gap));
    g_assert_nonnull (strstr (json, range));
    g_assert_nonnull (strstr (json, "\"pid\": 100, \"tid\": 100"));
  }
  /* the breakdown: the gap is idle time with the host outside CUDA calls */
  {
    f = the_only (a, "idle_breakdown");
    /* 600 ms of 2.6 s with the host in read; in the loops each kernel starts 8 µs after its
     * launch call, the one before ended 3 µs after that call began: of the 5 µs idle, the call
     * covers 2 (launching), then 3 with the kernel queued */
    g_assert_cmpfloat_with_epsilon (ev (f, "idle_host_share"), 0.6 / 2.6, 0.001);
    g_assert_cmpfloat_with_epsilon (ev (f, "idle_queued_share"), 0.03 * 2.0 / 2.6, 0.001);
    g_assert_cmpfloat_with_epsilon (ev (f, "idle_launch_share"), 0.02 * 2.0 / 2.6, 0.001);
    g_assert_cmpfloat_with_epsilon (ev (f, "kernels_share"), 0.95 * 2.0 / 2.6, 0.01);
    /* the gap is gpu_gaps': the findings account for it */
    g_assert_cmpfloat_with_epsilon (ev (f, "accounted_share"), 0.6 / 2.6, 0.001);
    g_assert_cmpfloat (ev (f, "idle_sync_share"), ==, 0);
  }
  /* the main thread reads itself while the loaders idle: not the data-loader case */
  cpu = of_rule (a, "cpu_bound");
  g_assert_cmpuint (cpu->len, ==, 0);
}

/* Synchronous copies from pageable memory, and asynchronous ones that are not. */
static void
test_pageable (void)
{
  g_autofree char *path = trace_path ("pageable.sqlite");
  Plant *p = plant_new (path);
  gint64 t = 10 * MS;
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;
  gint64 blocked = 0, async_blocked = 0;

  for (guint i = 0; i < 50; i++)
    {
      /* 8 MB at ~8 GB/s: 1 ms; cudaMemcpy returns when it is done */
      gint64 start = MAX (t + 10 * US, plant_gpu_free (p));
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaMemcpy_v3020", t, start + MS + 5 * US);
      plant_memcpy (p, 1, 0, 2, 8000000, start, start + MS, corr);
      blocked += start + MS + 5 * US - t;
      t = start + MS + 5 * US;
      t = plant_loop (p, t, 10, 100 * US, 95 * US, "gemm_kernel_clean", &plant_config_full);
      if (i % 5 == 0)
        {
          /* loss.item() as an asynchronous copy into pageable memory */
          gint64 s2 = MAX (t + 10 * US, plant_gpu_free (p));
          gint64 c2 = plant_api (p, PLANT_MAIN, "cudaMemcpyAsync_v3020", t, s2 + 20 * US);
          plant_memcpy (p, 2, 2, 0, 4, s2, s2 + 3 * US, c2);
          async_blocked += s2 + 20 * US - t;
          t = s2 + 20 * US;
        }
    }
  /* small host-to-device copies are left out, as nsys does */
  for (guint i = 0; i < 5; i++)
    {
      gint64 start = MAX (t + 10 * US, plant_gpu_free (p));
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaMemcpy_v3020", t, start + 10 * US);
      plant_memcpy (p, 1, 0, 2, 64000, start, start + 5 * US, corr);
      t = start + 10 * US;
    }
  plant_finish (p);

  a = analyze (path, &trace);
  f = the_only (a, "sync_memcpy");
  g_assert_cmpuint ((guint) ev (f, "count"), ==, 50);
  g_assert_cmpuint ((guint64) ev (f, "bytes"), ==, 400000000);
  g_assert_cmpint ((gint64) ev (f, "host_blocked_ns"), ==, blocked);
  /* its cost is the GPU's idle time while the host was in the calls: the calls less the copies
   * (the GPU copies most of each call) */
  g_assert_cmpint (f->cost, ==, (gint64) ev (f, "attributed_idle_ns"));
  g_assert_cmpint (f->cost, >, 0);
  g_assert_cmpint (f->cost, <=, blocked - 50 * MS);
  g_assert_cmpint ((gint64) ev (f, "gpu_ns"), ==, 50 * MS);
  g_assert_cmpstr (ev_text (f, "kind"), ==, "Host-to-Device, Pageable → Device");
  g_assert_cmpint (sl_trace_get_thread (trace, f->thread)->tid, ==, PLANT_MAIN);
  g_assert_cmpuint (f->stream, ==, 7);
  g_assert_nonnull (strstr (f->advice, "pinned"));
  g_assert_cmpint (f->start, ==, 10 * MS);

  f = the_only (a, "pageable_memcpy");
  g_assert_cmpuint ((guint) ev (f, "count"), ==, 10);
  g_assert_cmpint ((gint64) ev (f, "host_blocked_ns"), ==, async_blocked);
  g_assert_cmpstr (ev_text (f, "kind"), ==, "Device-to-Host, Device → Pageable");
}

/* A loop of 10 000 tiny kernels. */
static void
test_tiny_kernels (void)
{
  g_autofree char *path = trace_path ("tiny.sqlite");
  Plant *p = plant_new (path);
  gint64 t = clean_stretch (p, 10 * MS, 500 * MS), loop_start;
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;

  loop_start = t;
  /* 2 µs kernels launched every 8 µs: the GPU idles 3/4 of the time */
  for (guint i = 0; i < 10000; i++)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 6 * US);
      gint64 start = MAX (t + 7 * US, plant_gpu_free (p));
      plant_kernel (p, "vectorized_elementwise_kernel_add", &plant_config_full, start,
                    start + 2 * US, corr);
      t += 8 * US;
    }
  clean_stretch (p, t, 500 * MS);
  plant_finish (p);

  a = analyze (path, &trace);
  f = the_only (a, "tiny_kernels");
  g_assert_nonnull (strstr (f->summary, "vectorized_elementwise_kernel_add"));
  g_assert_cmpuint ((guint) ev (f, "count"), ==, 10000);
  g_assert_cmpint ((gint64) ev (f, "median_ns"), ==, 2 * US);
  g_assert_cmpint ((gint64) ev (f, "interval_ns"), ==, 8 * US);
  g_assert_cmpint ((gint64) ev (f, "launch_call_ns"), ==, 6 * US);
  g_assert_cmpfloat_with_epsilon (ev (f, "interval_ratio"), 4.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (ev (f, "rate_per_s"), 125000, 1);
  /* the GPU's idle time between them: 6 µs in each of the 9999 spaces between 10 000 */
  g_assert_cmpint (f->cost, ==, 9999 * 6 * US);
  g_assert_true (f->idle_view);
  g_assert_cmpint (f->start, ==, loop_start + 7 * US);
  g_assert_cmpint (f->end, ==, loop_start + 9999 * 8 * US + 9 * US);
}

/* One kernel with low occupancy that dominates GPU time. */
static void
test_low_occupancy (void)
{
  g_autofree char *path = trace_path ("occupancy.sqlite");
  Plant *p = plant_new (path);
  /* 255 registers × 256 threads: one block of 8 warps per SM of 64, 12.5% */
  const PlantConfig heavy = { 1056, 256, 255, 0 };
  gint64 t = clean_stretch (p, 10 * MS, 200 * MS), first = 0;
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;

  for (guint i = 0; i < 200; i++)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 5 * US);
      gint64 start = MAX (t + 8 * US, plant_gpu_free (p));
      if (i == 0)
        first = start;
      plant_kernel (p, "attention_fwd_kernel", &heavy, start, start + 2 * MS, corr);
      t += 2 * MS + 20 * US;
    }
  clean_stretch (p, t, 200 * MS);
  plant_finish (p);

  a = analyze (path, &trace);
  f = the_only (a, "low_occupancy");
  g_assert_nonnull (strstr (f->summary, "attention_fwd_kernel"));
  g_assert_cmpfloat_with_epsilon (ev (f, "occupancy"), 0.125, 1e-9);
  g_assert_cmpstr (ev_text (f, "limit"), ==, "registers");
  g_assert_cmpint ((gint) ev (f, "blocks_per_sm"), ==, 1);
  g_assert_cmpstr (ev_text (f, "warps_per_sm"), ==, "8 of 64");
  g_assert_cmpint ((gint64) ev (f, "gpu_ns"), ==, 400 * MS);
  g_assert_cmpuint ((guint) ev (f, "count"), ==, 200);
  /* 400 ms of ~780 ms of kernel time */
  g_assert_cmpfloat (ev (f, "gpu_time_share"), >, 0.5);
  g_assert_cmpint (f->start, ==, first);
  g_assert_nonnull (strstr (f->advice, "255 registers"));
}

/* cudaDeviceSynchronize after every step. */
static void
test_sync_every_step (void)
{
  g_autofree char *path = trace_path ("sync.sqlite");
  Plant *p = plant_new (path);
  gint64 t = clean_stretch (p, 10 * MS, 200 * MS), blocked = 0, first = 0;
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;

  for (guint step = 0; step < 100; step++)
    {
      gint64 end;
      /* 20 kernels of 1 ms queued in 400 µs, then the host waits for all of them */
      t = plant_loop (p, t, 20, 20 * US, MS, "gemm_kernel_clean", &plant_config_full);
      end = plant_gpu_free (p) + 4 * US;
      if (step == 0)
        first = t;
      plant_api (p, PLANT_MAIN, "cudaDeviceSynchronize_v3020", t, end);
      blocked += end - t;
      t = end + 30 * US;
    }
  clean_stretch (p, t, 200 * MS);
  plant_finish (p);

  a = analyze (path, &trace);
  f = the_only (a, "sync_api");
  g_assert_nonnull (strstr (f->summary, "100 × cudaDeviceSynchronize"));
  g_assert_cmpuint ((guint) ev (f, "count"), ==, 100);
  g_assert_cmpint ((gint64) ev (f, "host_blocked_ns"), ==, blocked);
  /* the host waits for busy GPUs: what the syncs cost the GPU is the 4 µs each lasts after it
   * (the GPU idle, the host still in the call), not the 1.96 s the host waits */
  g_assert_cmpint (f->cost, ==, 100 * 4 * US);
  g_assert_cmpint ((gint64) ev (f, "attributed_idle_ns"), ==, 100 * 4 * US);
  g_assert_cmpint (f->start, ==, first);
  g_assert_cmpint (sl_trace_get_thread (trace, f->thread)->tid, ==, PLANT_MAIN);
  /* each of them ~19.6 ms (20 ms of kernels less the 400 µs of launching) */
  assert_near ((gint64) ev (f, "median_ns"), 19600 * US, 100 * US);
  g_assert_cmpuint (f->events->len, >=, 100);
}

/* Issue 30, item 3: a sync finding names where its calls were made, from their backtraces
 * (CUDA_CALLCHAINS): the 7 cudaDeviceSynchronize calls of nsys-2021-cuda-backtraces.sqlite are
 * all made in main (their chains: libcupti and libcuda addresses, cudaDeviceSynchronize linked in
 * statically, main, __libc_start_main, _start). */
static void
test_sync_call_site (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2021-cuda-backtraces.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = analyze (path, &trace);
  const SlFinding *f = the_only (a, "sync_api");

  g_assert_nonnull (strstr (f->summary, "7 × cudaDeviceSynchronize"));
  g_test_message ("%s", ev_text (f, "call_site"));
  g_assert_true (g_str_has_prefix (ev_text (f, "call_site"), "main (7 of 7 calls, "));
  g_assert_cmpuint ((guint) ev (f, "call_site"), ==, 7);
}

/* Issue 30: a copy finding names its calls' top call site, in a trace numbered as later nsys
 * numbers CUDA backtraces (CUDA_CALLCHAINS ids from 1, callchainId 0 for none): 15 of 20
 * cudaMemcpy calls made in load_batch, 5 in eval_step, each frame below them the CUDA
 * libraries' (an address in libcuda, cudaMemcpy in libcudart) or a wrapper named after the call. */
static void
test_copy_call_site (void)
{
  g_autofree char *path = trace_path ("copy-site.sqlite");
  Plant *p = plant_new (path);
  gint64 t = 10 * MS;
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;

  for (guint i = 0; i < 20; i++)
    {
      gint64 start = MAX (t + 10 * US, plant_gpu_free (p));
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaMemcpy_v3020", t, start + MS + 5 * US);
      plant_memcpy (p, 1, 0, 2, 8000000, start, start + MS, corr);
      t = start + MS + 5 * US;
      t = plant_loop (p, t, 10, 100 * US, 95 * US, "gemm_kernel_clean", &plant_config_full);
    }
  plant_finish (p);
  sl_test_exec_sql (path,
    "CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, "
    "  module INTEGER NOT NULL, unresolved INTEGER, originalIP INTEGER, "
    "  stackDepth INTEGER NOT NULL, PRIMARY KEY (id, stackDepth));"
    "INSERT INTO StringIds VALUES (900001, '0x7f3a12345678'), (900002, '/usr/lib/libcuda.so.1'), "
    "  (900003, 'cudaMemcpy'), (900004, '/usr/local/cuda/lib64/libcudart.so.12'), "
    "  (900005, 'cudaError cudaMemcpy<float>(float*, float const*)'), (900006, 'train'), "
    "  (900007, 'load_batch(Batch*)'), (900008, 'eval_step()'), (900009, 'main');"
    "INSERT INTO CUDA_CALLCHAINS (id, symbol, module, stackDepth) VALUES "
    "  (1, 900001, 900002, 0), (1, 900003, 900004, 1), (1, 900005, 900006, 2), "
    "  (1, 900007, 900006, 3), (1, 900009, 900006, 4), "
    "  (2, 900001, 900002, 0), (2, 900003, 900004, 1), (2, 900008, 900006, 2), "
    "  (2, 900009, 900006, 3);"
    "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 0;"
    "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 1 WHERE rowid IN (SELECT r.rowid FROM "
    "  CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
    "  WHERE s.value = 'cudaMemcpy_v3020' ORDER BY r.start LIMIT 15);"
    "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 2 WHERE rowid IN (SELECT r.rowid FROM "
    "  CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
    "  WHERE s.value = 'cudaMemcpy_v3020' ORDER BY r.start DESC LIMIT 5);");

  a = analyze (path, &trace);
  g_assert_cmpuint (sl_trace_get_n_cuda_callchains (trace), ==, 20);
  for (const char *const *w = sl_trace_get_warnings (trace); *w != NULL; w++)
    g_assert_null (strstr (*w, "callchainId"));
  f = the_only (a, "sync_memcpy");
  g_assert_cmpuint ((guint) ev (f, "count"), ==, 20);
  g_test_message ("%s", ev_text (f, "call_site"));
  g_assert_true (g_str_has_prefix (ev_text (f, "call_site"),
                                   "load_batch(Batch*) (15 of 20 calls, "));
  g_assert_cmpuint ((guint) ev (f, "call_site"), ==, 15);
}

/* A stretch bound by the data loader: the main thread waits for batches while the loader threads
 * read and decode, and the GPU idles. */
static void
test_loader_bound (void)
{
  g_autofree char *path = trace_path ("loader.sqlite");
  Plant *p = plant_new (path);
  gint64 t = clean_stretch (p, 10 * MS, 1 * S), stretch_start, stretch_end;
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;

  stretch_start = t;
  for (guint batch = 0; batch < 10; batch++)
    {
      /* the main thread waits 48 ms for a batch, then queues 2 ms of work */
      plant_osrt (p, PLANT_MAIN, "pthread_cond_wait", t, t + 48 * MS);
      for (gint64 r = t; r < t + 48 * MS; r += 4 * MS)
        {
          plant_osrt (p, PLANT_LOADER_0, "read", r, r + 3 * MS);
          plant_osrt (p, PLANT_LOADER_1, "read", r + MS, r + 4 * MS);
          plant_sample (p, PLANT_LOADER_0, r + 3500 * US, "jpeg_idct_islow");
        }
      t += 48 * MS + 10 * US;
      t = plant_loop (p, t, 20, 100 * US, 95 * US, "gemm_kernel_clean", &plant_config_full);
    }
  stretch_end = t;
  clean_stretch (p, t, 1 * S);
  plant_finish (p);

  a = analyze (path, &trace);
  f = the_only (a, "cpu_bound");
  /* windows of 100 ms: the finding covers the stretch to within a window */
  assert_near (f->start, stretch_start, 100 * MS);
  assert_near (f->end, stretch_end, 100 * MS);
  g_assert_cmpint (f->end - f->start, >=, 300 * MS);
  g_assert_nonnull (strstr (f->summary, "pthread_cond_wait"));
  g_assert_nonnull (strstr (f->summary, "data loader"));
  g_assert_cmpfloat (ev (f, "gpu_busy_share"), <, 0.2);
  g_assert_cmpfloat (ev (f, "host_osrt_share"), >, 0.8);
  g_assert_cmpint (sl_trace_get_thread (trace, f->thread)->tid, ==, PLANT_MAIN);
  g_assert_nonnull (strstr (f->advice, "workers"));
}

/* Every real nsys trace analyses, in text and JSON; findings checked by hand against the rows
 * (sqlite3) are pinned down. */
/* Every rule, the text and JSON, and the rank summary on traces whose durations overflow 64-bit
 * sums (issue 18): costs, figures and utilization stay in range (saturated, not wrapped). */
static void
test_absurd_times (void)
{
  static const char *const traces[] = { "nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite",
                                        "nsys/nsys-2026.1-osrt-sampling.sqlite" };

  for (guint t = 0; t < G_N_ELEMENTS (traces); t++)
    {
      g_autofree char *name = g_strdup_printf ("absurd-%u.sqlite", t);
      g_autofree char *path = sl_test_absurd_trace (traces[t], name);
      g_autoptr (SlTrace) trace = NULL;
      g_autoptr (SlAnalysis) a = analyze (path, &trace);
      g_autofree char *text = sl_analysis_to_text (a, trace);
      g_autofree char *json = sl_analysis_to_json (a, trace);
      g_assert_true (g_utf8_validate (text, -1, NULL));
      g_assert_true (g_str_has_prefix (json, "{"));
      for (guint k = 0; k < a->findings->len; k++)
        {
          const SlFinding *f = g_ptr_array_index (a->findings, k);
          g_assert_cmpint (f->end, >=, f->start);
          g_assert_cmpint (f->cost, >=, 0);
        }
      for (guint k = 0; k < a->summaries->len; k++)
        g_assert_cmpint (g_array_index (a->summaries, SlRuleSummary, k).cost, >=, 0);
      SlRankSummary s = { 0 };
      sl_rank_summary_compute (&s, trace, a);
      g_assert_true (s.gpu_time >= -1);
      g_assert_true (isnan (s.gpu_util) || (s.gpu_util >= 0 && s.gpu_util <= 1));
      sl_rank_summary_clear (&s);
    }
}

static void
test_real_traces (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();

  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autoptr (SlTrace) trace = NULL;
      g_autoptr (SlAnalysis) a = analyze (files[i], &trace);
      g_autofree char *text = sl_analysis_to_text (a, trace);
      g_autofree char *json = sl_analysis_to_json (a, trace);
      g_assert_true (g_utf8_validate (text, -1, NULL));
      g_assert_true (g_str_has_prefix (json, "{"));
      guint n_rules = 0;
      while (sl_analyze_rules ()[n_rules].name != NULL)
        n_rules++;
      g_assert_cmpuint (a->summaries->len, ==, n_rules);
      /* CUDA calls named as every pane names them, by the rules that write them: no nsys
       * "_vNNNN" suffix anywhere in the findings' text (summaries, causes, evidence, blame) */
      {
        g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
        for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
          {
            const SlLane *lane = sl_trace_get_lane (trace, l);
            if (lane->kind != SL_LANE_CUDA_API)
              continue;
            for (gsize e = 0; e < lane->n_events; e++)
              if (g_hash_table_add (seen, GUINT_TO_POINTER (lane->events[e].name + 1)))
                {
                  const char *raw = sl_trace_str (trace, lane->events[e].name);
                  if (sl_api_display_length (raw) < strlen (raw) && strstr (text, raw) != NULL)
                    g_error ("%s: the findings write %s, not %s", files[i], raw,
                             sl_trace_display_name (trace, SL_LANE_CUDA_API,
                                                    lane->events[e].name));
                }
          }
      }
      for (guint k = 0; k < a->findings->len; k++)
        {
          const SlFinding *f = g_ptr_array_index (a->findings, k);
          g_assert_cmpint (f->end, >=, f->start);
          g_assert_cmpint (f->cost, >=, 0);
          g_assert_nonnull (f->summary);
          g_assert_nonnull (f->advice);
          if (k > 0)
            g_assert_cmpint (f->cost, <=, ((SlFinding *) g_ptr_array_index (a->findings, k - 1))->cost);
        }
    }

  /* nsys-2026.1-osrt-sampling: 23 rows of DIAGNOSTIC_EVENT (sqlite3), 5 of them warnings, shown */
  {
    g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-osrt-sampling.sqlite");
    g_autoptr (SlTrace) trace = NULL;
    g_autoptr (SlAnalysis) a = analyze (path, &trace);
    g_autofree char *text = sl_analysis_to_text (a, trace);
    guint warnings = 0;

    g_assert_cmpuint (sl_trace_get_n_diagnostics (trace), ==, 23);
    for (guint i = 0; i < 23; i++)
      warnings += sl_trace_get_diagnostic (trace, i)->severity == SL_DIAGNOSTIC_WARNING;
    g_assert_cmpuint (warnings, ==, 5);
    g_assert_nonnull (strstr (text, "  Warning  No NVTX events collected. Does the process use "
                                    "NVTX?\n"));
    g_assert_null (a->lacks);
  }

  /* nsys-2026.1-tiny: two kernels and a copy; the GPU idles 18.250538 ms between the kernels
   * (1517728492 → 1535979030) while the host is in the second cudaLaunchKernel (17.764006 ms, it
   * loads the module), then 4.196760 ms while cudaHostAlloc runs (3.543812 ms of it). */
  {
    g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
    g_autoptr (SlTrace) trace = NULL;
    g_autoptr (SlAnalysis) a = analyze (path, &trace);
    g_autoptr (GPtrArray) gaps = of_rule (a, "gpu_gaps"), sync = of_rule (a, "sync_api");
    const SlFinding *f;

    g_assert_cmpuint (gaps->len, ==, 2);
    f = g_ptr_array_index (gaps, 0);
    g_assert_cmpint (f->start, ==, 1517728492);
    g_assert_cmpint (f->end, ==, 1535979030);
    g_assert_nonnull (strstr (f->summary, "in cudaLaunchKernel for 17.764 ms"));
    g_assert_nonnull (strstr (f->advice, "module"));
    f = g_ptr_array_index (gaps, 1);
    g_assert_cmpint (f->cost, ==, 4196760);
    g_assert_nonnull (strstr (f->summary, "in cudaHostAlloc for 3.544 ms"));
    g_assert_nonnull (strstr (f->advice, "allocation"));
    g_assert_cmpuint (sync->len, ==, 1);
    f = g_ptr_array_index (sync, 0);
    /* the host waits 16.012 µs; the GPU is idle 24 ns of it (its copy ends first) */
    g_assert_cmpint ((gint64) ev (f, "host_blocked_ns"), ==, 16012);
    g_assert_cmpint (f->cost, ==, 24);
  }

  /* nsys-2021-osrt: 164 cudaMemcpy host-to-device from pageable memory, 128 of them over 64000
   * bytes (536,870,912 bytes, host blocked 129.859 ms), and 24 device-to-host into pageable
   * memory (738,663,444 bytes, 297.320818 ms): the two sync_memcpy findings. */
  {
    g_autofree char *path = sl_test_trace_path ("nsys/nsys-2021-osrt.sqlite");
    g_autoptr (SlTrace) trace = NULL;
    g_autoptr (SlAnalysis) a = analyze (path, &trace);
    g_autoptr (GPtrArray) sync = of_rule (a, "sync_memcpy");
    const SlFinding *f;

    g_assert_cmpuint (sync->len, ==, 2);
    /* ordered by the GPU idle time they account for, not the host's: find them by count */
    f = g_ptr_array_index (sync, 0);
    if ((guint) ev (f, "count") != 24)
      f = g_ptr_array_index (sync, 1);
    g_assert_cmpuint ((guint) ev (f, "count"), ==, 24);
    g_assert_cmpint ((gint64) ev (f, "host_blocked_ns"), ==, 297320818);
    g_assert_cmpint (f->cost, <=, 297320818);
    g_assert_cmpuint ((guint64) ev (f, "bytes"), ==, 738663444);
    g_assert_cmpstr (ev_text (f, "kind"), ==, "Device-to-Host, Device → Pageable");
    f = g_ptr_array_index (sync, f == g_ptr_array_index (sync, 0) ? 1 : 0);
    g_assert_cmpuint ((guint) ev (f, "count"), ==, 128);
    g_assert_cmpuint ((guint64) ev (f, "bytes"), ==, 536870912);
  }

  /* nsys-2024.6-fuser-8gpu-nvtx: only device 0 works (the last of the 8 rows of TARGET_INFO_GPU,
   * which lists devices 6 5 4 7 3 2 1 0: named by its id, not its position 7); it idles
   * 351.080 ms after its first kernel while test_matmul launches (the longest of its 10 gaps over
   * 500 µs; gaps of one cause come grouped). */
  {
    g_autofree char *path = sl_test_trace_path ("nsys/nsys-2024.6-fuser-8gpu-nvtx.sqlite");
    g_autoptr (SlTrace) trace = NULL;
    g_autoptr (SlAnalysis) a = analyze (path, &trace);
    g_autoptr (GPtrArray) gaps = instances_of_rule (a, "gpu_gaps");
    const SlFinding *f = NULL;

    g_assert_cmpuint (gaps->len, ==, 10);
    for (guint i = 0; i < gaps->len; i++)
      if (f == NULL || ((SlFinding *) g_ptr_array_index (gaps, i))->cost > f->cost)
        f = g_ptr_array_index (gaps, i);
    g_assert_cmpint (f->gpu, ==, 0);
    g_assert_true (g_str_has_prefix (f->summary, "GPU 0 idle"));
    assert_near (f->cost, 351080000, 1000);
    g_assert_nonnull (strstr (f->summary, "test_matmul"));
  }
}

static gboolean has_column (sqlite3    *db,
                            const char *table,
                            const char *column);

/* SQL over a thread's events of one name within [a, b): what a blame's overlap must equal.
 * Its table by kind: CUDA calls (runtime, or driver for cu… names), OS runtime calls, NVTX
 * ranges (text or textId). */
static gint64
sql_blame_overlap (sqlite3       *db,
                   const SlBlame *bl,
                   guint64        global_tid,
                   gint64         a,
                   gint64         b)
{
  static const char *const api_tables[] = { "CUPTI_ACTIVITY_KIND_RUNTIME",
                                            "CUPTI_ACTIVITY_KIND_DRIVER" };
  const char *const *tables = bl->kind == SL_BLAME_OSRT ? (const char *const[]) { "OSRT_API" }
                              : bl->kind == SL_BLAME_NVTX ? (const char *const[]) { "NVTX_EVENTS" }
                                                          : api_tables;
  guint n_tables = bl->kind == SL_BLAME_CUDA_API ? 2 : 1;
  gint64 total = 0;

  for (guint t = 0; t < n_tables; t++)
    {
      g_autofree char *q = NULL;
      sqlite3_stmt *st = NULL;
      if (!has_column (db, tables[t], "start"))
        continue;
      if (bl->kind == SL_BLAME_NVTX)
        q = g_strdup_printf ("SELECT total(min(e.end, %" G_GINT64_FORMAT ") - max(e.start, %"
                             G_GINT64_FORMAT ")) FROM NVTX_EVENTS e LEFT JOIN StringIds s ON "
                             "s.id = %s WHERE e.globalTid = %" G_GUINT64_FORMAT " AND e.end > "
                             "e.start AND e.start < %" G_GINT64_FORMAT " AND e.end > %"
                             G_GINT64_FORMAT " AND coalesce(e.text, s.value) = ?1", b, a,
                             has_column (db, "NVTX_EVENTS", "textId") ? "e.textId" : "NULL",
                             global_tid, b, a);
      else
        q = g_strdup_printf ("SELECT total(min(e.end, %" G_GINT64_FORMAT ") - max(e.start, %"
                             G_GINT64_FORMAT ")) FROM %s e JOIN StringIds s ON s.id = e.nameId "
                             "WHERE e.globalTid = %" G_GUINT64_FORMAT " AND e.start < %"
                             G_GINT64_FORMAT " AND e.end > %" G_GINT64_FORMAT " AND s.value = ?1",
                             b, a, tables[t], global_tid, b, a);
      if (sqlite3_prepare_v2 (db, q, -1, &st, NULL) != SQLITE_OK)
        g_error ("%s: %s", q, sqlite3_errmsg (db));
      sqlite3_bind_text (st, 1, bl->name, -1, SQLITE_STATIC);
      if (sqlite3_step (st) == SQLITE_ROW)
        total += (gint64) sqlite3_column_double (st, 0);
      sqlite3_finalize (st);
    }
  return total;
}

/* The account's properties on one analysed trace: each GPU's time adds up to its window, its idle
 * causes to its idle time; the findings' attributed idle time never exceeds a GPU's idle time;
 * no cost exceeds the span times the GPUs it concerns; a kernel-bound stretch is busy mostly with
 * kernels; every blame's overlap equals SQL over the file (when `db`).  Returns the gaps whose
 * blame was checked against SQL. */
static guint
check_account (SlTrace    *trace,
               SlAnalysis *a,
               sqlite3    *db)
{
  SlTime span = sl_trace_get_end (trace) - sl_trace_get_start (trace);
  gint64 all_idle = 0, all_attributed = 0;
  guint n_gpus = a->gpu_times->len, checked = 0;
  g_autoptr (GPtrArray) flat = g_ptr_array_new ();

  for (guint g = 0; g < n_gpus; g++)
    {
      const SlGpuTime *t = &g_array_index (a->gpu_times, SlGpuTime, g);
      gint64 causes = 0;
      for (guint c = 0; c < G_N_ELEMENTS (t->idle_by_cause); c++)
        {
          g_assert_cmpint (t->idle_by_cause[c], >=, 0);
          causes += t->idle_by_cause[c];
        }
      g_assert_cmpint (causes, ==, t->idle);
      g_assert_cmpint (t->kernels + t->copies + t->sets + t->idle, ==, t->end - t->start);
      g_assert_cmpint (t->attributed, <=, t->idle);
      all_idle += t->idle;
    }
  /* the findings, a group's instances in its place */
  for (guint i = 0; i < a->findings->len; i++)
    {
      SlFinding *f = g_ptr_array_index (a->findings, i);
      guint concerned = f->gpu >= 0 ? 1 : MAX (n_gpus, 1);
      g_assert_cmpint (f->cost, >=, 0);
      g_assert_cmpint (f->cost, <=, span * (gint64) concerned);
      if (f->instances == NULL)
        g_ptr_array_add (flat, f);
      for (guint k = 0; f->instances != NULL && k < f->instances->len; k++)
        g_ptr_array_add (flat, g_ptr_array_index (f->instances, k));
    }
  for (guint g = 0; g < n_gpus; g++)
    {
      const SlGpuTime *t = &g_array_index (a->gpu_times, SlGpuTime, g);
      gint64 sum = 0;
      for (guint i = 0; i < flat->len; i++)
        {
          const SlFinding *f = g_ptr_array_index (flat, i);
          if (f->idle_view && f->gpu == (gint) t->device_id)
            sum += f->attributed_idle;
        }
      g_assert_cmpint (sum, <=, t->idle);
    }
  for (guint i = 0; i < flat->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (flat, i);
      if (f->idle_view)
        {
          g_assert_cmpint (f->cost, ==, f->attributed_idle);
          g_assert_cmpint ((gint64) ev (f, "attributed_idle_ns"), ==, f->attributed_idle);
          all_attributed += f->attributed_idle;
        }
      if (strcmp (f->rule->name, "idle_breakdown") == 0 || strcmp (f->rule->name, "gpu_util") == 0)
        g_assert_false (f->idle_view);
      /* a kernel-bound stretch is busy mostly running kernels */
      if (strcmp (f->rule->name, "gpu_bound") == 0)
        for (guint g = 0; g < sl_trace_get_n_gpus (trace); g++)
          if (sl_trace_get_gpu (trace, g)->device_id == (guint32) f->gpu)
            g_assert_cmpint (2 * sl_trace_gpu_busy_time (trace, g, SL_UTIL_KERNELS, f->start,
                                                         f->end),
                             >=, sl_trace_gpu_busy_time (trace, g, SL_UTIL_ANY, f->start, f->end));
      /* a gap's blame: its overlap is SQL's over that thread's events of that name */
      if (f->blame != NULL && db != NULL
          && (f->blame->kind == SL_BLAME_NVTX || f->blame->kind == SL_BLAME_CUDA_API
              || f->blame->kind == SL_BLAME_OSRT))
        {
          guint64 gtid = sl_trace_get_thread (trace, f->blame->thread)->global_tid;
          g_assert_cmpint (sql_blame_overlap (db, f->blame, gtid, f->start, f->end), ==,
                           f->blame->overlap);
          g_assert_cmpint (2 * f->blame->overlap, >=, f->end - f->start);
          checked++;
        }
      if (f->blame != NULL && f->blame->kind == SL_BLAME_NONE)
        g_assert_nonnull (strstr (f->summary, "no single cause"));
    }
  g_assert_cmpint (all_attributed, <=, all_idle);
  return checked;
}

/* The account's properties on every real trace: nsys exports (blames checked against SQL),
 * PyTorch traces and merged pairs of ranks. */
static void
test_accounts_real (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();
  g_autofree char *pt = sl_test_trace_path ("pytorch");
  g_autoptr (GDir) dir = g_dir_open (pt, 0, NULL);
  guint blamed = 0;
  const char *name;

  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autoptr (SlTrace) trace = NULL;
      g_autoptr (SlAnalysis) a = analyze (files[i], &trace);
      sqlite3 *db = NULL;
      g_assert_cmpint (sqlite3_open_v2 (files[i], &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
      blamed += check_account (trace, a, db);
      sqlite3_close (db);
    }
  /* the blames of nsys traces' gaps, each checked: some must exist to check */
  g_assert_cmpuint (blamed, >, 0);
  g_test_message ("%u blames checked against SQL", blamed);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (pt, name, NULL);
      g_autoptr (SlTrace) trace = NULL;
      g_autoptr (SlAnalysis) a = NULL;
      if (!g_str_has_suffix (name, ".json.gz"))
        continue;
      a = analyze (path, &trace);
      check_account (trace, a, NULL);
    }
  /* two ranks of one job, merged: each GPU's window is its rank's */
  {
    g_autofree char *r0 = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-0.json.gz");
    g_autofree char *r1 = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-1.json.gz");
    const char *paths[] = { r0, r1 };
    g_autoptr (GError) error = NULL;
    g_autoptr (SlTrace) trace = sl_trace_load_merged (paths, 2, SL_LOAD_ALL, NULL, NULL, NULL,
                                                      NULL, &error);
    g_autoptr (SlAnalysis) a = NULL;
    g_assert_no_error (error);
    a = sl_analyze (trace, NULL, NULL, &error);
    g_assert_no_error (error);
    check_account (trace, a, NULL);
    g_assert_cmpuint (a->gpu_times->len, ==, 2);
  }
}

/* Issue 28's cases on the traces they came from, or planted: a GPU busy copying is copy-bound,
 * not kernel-bound; a GPU that idles the whole trace but for one short copy is said to idle. */
static void
test_idle_cases (void)
{
  /* nsys-2026.2-h100-2gpu-nvtx: kernels are 2.3 % of each GPU's busy time, host-to-device copies
   * (pinned) the rest: copy_bound on both GPUs, no gpu_bound */
  {
    g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
    g_autoptr (SlTrace) trace = NULL;
    g_autoptr (SlAnalysis) a = analyze (path, &trace);
    g_autoptr (GPtrArray) gpu = instances_of_rule (a, "gpu_bound");
    g_autoptr (GPtrArray) copy = instances_of_rule (a, "copy_bound");
    gboolean seen[2] = { FALSE, FALSE };

    g_assert_cmpuint (gpu->len, ==, 0);
    g_assert_cmpuint (copy->len, >=, 2);
    for (guint i = 0; i < copy->len; i++)
      {
        const SlFinding *f = g_ptr_array_index (copy, i);
        g_assert_cmpint (f->gpu, >=, 0);
        g_assert_cmpint (f->gpu, <=, 1);
        seen[f->gpu] = TRUE;
        g_assert_cmpfloat (ev (f, "copies_share"), >, 0.9);
        g_assert_nonnull (strstr (f->summary, "Host-to-Device pinned"));
        g_assert_null (strstr (f->advice, "tensor cores"));
      }
    g_assert_true (seen[0] && seen[1]);
    for (guint g = 0; g < a->gpu_times->len; g++)
      {
        const SlGpuTime *t = &g_array_index (a->gpu_times, SlGpuTime, g);
        g_assert_cmpint (t->copies, >, 30 * t->kernels);
      }
  }
  /* one 1.5 µs copy in 569 ms: the GPU idles the whole trace (the old rules measured over the
   * span of its work and found nothing) */
  {
    g_autofree char *path = trace_path ("idle-gpu.sqlite");
    Plant *p = plant_new (path);
    g_autoptr (SlTrace) trace = NULL;
    g_autoptr (SlAnalysis) a = NULL;
    const SlFinding *f;
    gint64 corr;

    plant_osrt (p, PLANT_MAIN, "read", 0, 300 * MS);
    corr = plant_api (p, PLANT_MAIN, "cudaMemcpyAsync_v3020", 300 * MS, 300 * MS + 5 * US);
    plant_memcpy (p, 1, 1, 2, 4096, 300 * MS + 10 * US, 300 * MS + 11500, corr);
    plant_osrt (p, PLANT_MAIN, "read", 300 * MS + 20 * US, 569 * MS);
    plant_finish (p);
    a = analyze (path, &trace);
    f = the_only (a, "idle_breakdown");
    g_assert_cmpint (f->start, ==, 0);
    g_assert_cmpint (f->end, ==, 569 * MS);
    g_assert_cmpint ((gint64) ev (f, "idle_ns"), ==, 569 * MS - 1500);
    g_assert_cmpint (f->cost, ==, 569 * MS - 1500);
    g_assert_false (f->idle_view);
    g_assert_true (g_str_has_prefix (f->summary, "GPU 0 idle 100% of 569.000 ms"));
    /* the host was in read: a named activity */
    assert_near ((gint64) (ev (f, "idle_host_share") * 569 * MS), 569 * MS - 20 * US, 10 * US);
    the_only (a, "gpu_util");
  }
}

/* nsys repeats a warning per process (27 times in a job seen): the text says each one once, with
 * how often it came; the JSON keeps every row. */
static void
test_diagnostics_merged (void)
{
  g_autofree char *path = sl_test_copy_trace ("nsys/nsys-2026.1-osrt-sampling.sqlite",
                                              "diagnostics.sqlite");
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  g_autofree char *text = NULL, *json = NULL;
  const char *line = "  Warning  Not all NVTX events might have been collected. (27 times)\n";
  const char *q;
  guint n = 0;

  /* the warning is there once; 26 more copies of it, from other processes */
  sl_test_exec_sql (path, "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE "
                          "i < 26) INSERT INTO DIAGNOSTIC_EVENT SELECT d.timestamp + k.i, "
                          "d.timestampType, d.source, d.severity, d.text, d.globalPid + k.i FROM "
                          "DIAGNOSTIC_EVENT d, k WHERE d.text = 'Not all NVTX events might have "
                          "been collected.'");
  a = analyze (path, &trace);
  g_assert_cmpuint (sl_trace_get_n_diagnostics (trace), ==, 23 + 26);
  text = sl_analysis_to_text (a, trace);
  g_assert_nonnull (strstr (text, line));
  for (q = text; (q = strstr (q, "Not all NVTX events")) != NULL; q++)
    n++;
  g_assert_cmpuint (n, ==, 1);
  /* the other warnings still come once each, without a count */
  g_assert_nonnull (strstr (text, "  Warning  No NVTX events collected. Does the process use "
                                  "NVTX?\n"));
  json = sl_analysis_to_json (a, trace);
  n = 0;
  for (q = json; (q = strstr (q, "Not all NVTX events")) != NULL; q++)
    n++;
  g_assert_cmpuint (n, ==, 27);
}

/* The one file (rank) of a merged trace that a finding's lanes are of, -1 when several. */
static gint
lanes_source (SlTrace         *trace,
              const SlFinding *f)
{
  gint source = -1;

  for (guint i = 0; i < f->lanes->len; i++)
    {
      gint s = (gint) sl_trace_get_lane (trace, g_array_index (f->lanes, guint32, i))->source;
      if (source >= 0 && s != source)
        return -1;
      source = s;
    }
  return source;
}

/* Two ranks of one job merged (issue 29, item 13): each finding of one rank's GPUs or threads
 * says which, "rank N: " before its summary and "rank": N in the JSON, groups and their
 * instances alike; a group never holds findings of two ranks.  Alone, a file names no rank in
 * the text. */
static void
test_merged_ranks (void)
{
  g_autofree char *r0 = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-0.json.gz");
  g_autofree char *r1 = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-1.json.gz");
  const char *paths[] = { r0, r1 };
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load_merged (paths, 2, SL_LOAD_ALL, NULL, NULL, NULL,
                                                    NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlAnalysis) a = sl_analyze (trace, NULL, NULL, &error);
  g_assert_no_error (error);
  guint per_rank[2] = { 0, 0 };

  g_assert_cmpuint (sl_trace_get_n_sources (trace), ==, 2);
  for (guint i = 0; i < a->findings->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (a->findings, i);
      gint s = lanes_source (trace, f);
      g_test_message ("%d %s", s, f->summary);
      if (s < 0)
        continue;
      g_autofree char *prefix = g_strdup_printf ("rank %d: ", s);
      g_assert_true (g_str_has_prefix (f->summary, prefix));
      per_rank[s]++;
      for (guint k = 0; f->instances != NULL && k < f->instances->len; k++)
        {
          const SlFinding *in = g_ptr_array_index (f->instances, k);
          g_assert_cmpint (lanes_source (trace, in), ==, s);
          g_assert_true (g_str_has_prefix (in->summary, prefix));
        }
    }
  g_assert_cmpuint (per_rank[0], >, 0);
  g_assert_cmpuint (per_rank[1], >, 0);
  g_autofree char *text = sl_analysis_to_text (a, trace);
  g_autofree char *json = sl_analysis_to_json (a, trace);
  g_assert_nonnull (strstr (text, "] rank 0: "));
  g_assert_nonnull (strstr (text, "] rank 1: "));
  g_assert_nonnull (strstr (json, "\"rank\": 0, \"rank_label\": \"rank 0\""));
  g_assert_nonnull (strstr (json, "\"rank\": 1, \"rank_label\": \"rank 1\""));

  /* one file: its rank in the JSON (Kineto's distributedInfo), no label in the text */
  g_autoptr (SlTrace) one = NULL;
  g_autoptr (SlAnalysis) b = analyze (r1, &one);
  g_autofree char *one_text = sl_analysis_to_text (b, one);
  g_autofree char *one_json = sl_analysis_to_json (b, one);
  g_assert_null (strstr (one_text, "rank 1: "));
  g_assert_nonnull (strstr (one_json, "\"rank\": 1, \"rank_label\": null"));
}

/* The median by selection equals the sorted array's middle, on random arrays with many ties. */
static void
test_median (void)
{
  for (guint round = 0; round < 2000; round++)
    {
      guint n = (guint) g_test_rand_int_range (1, 300);
      gint64 range = round % 2 ? 5 : 1000000;
      g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (SlTime));
      g_autoptr (GArray) b = NULL;
      for (guint i = 0; i < n; i++)
        {
          SlTime v = (SlTime) g_test_rand_int_range (0, (gint32) range);
          g_array_append_val (a, v);
        }
      b = g_array_copy (a);
      g_array_sort (b, sl_cmp_int64);
      g_assert_cmpint (_sl_median_of (a), ==, g_array_index (b, SlTime, n / 2));
    }
}

/* The radix sort by start equals a stable comparison sort: times of every sign and spread (one
 * byte apart, 2^40 apart, around 0), runs already in order, and requests with equal starts that
 * keep their order. */
static void
test_sort_by_start (void)
{
  for (guint round = 0; round < 600; round++)
    {
      guint n = (guint) g_test_rand_int_range (0, 2000);
      gint64 scale = round % 3 == 0 ? 1 : round % 3 == 1 ? 1000003 : G_GINT64_CONSTANT (1) << 40;
      g_autofree SlTime *t = g_new (SlTime, MAX (n, 1));
      g_autofree SlTime *want = NULL;
      g_autofree SlIdleRequest *r = g_new (SlIdleRequest, MAX (n, 1));
      g_autofree SlTime *tags = g_new (SlTime, MAX (n, 1));
      for (guint i = 0; i < n; i++)
        {
          /* a quarter of the rounds: sorted runs of 100, as rules' requests come; a quarter: 1
           * to 40 runs (merged below 33, radix sorted above), as a kernel name's instances on
           * several streams */
          guint runs = 1 + round % 40;
          gint64 v = round % 4 == 3   ? (gint64) (i % 100)
                     : round % 4 == 2 ? (gint64) (i % (n / runs + 1)) / 2
                                      : g_test_rand_int_range (-50, 50);
          t[i] = v * scale;
          r[i] = (SlIdleRequest) { t[i], t[i] + 1, &tags[i] };
        }
      want = g_memdup2 (t, sizeof (SlTime) * n);
      if (n > 0)   /* g_memdup2 of nothing is NULL, which qsort may not be given */
        qsort (want, n, sizeof (SlTime), sl_cmp_int64);
      _sl_sort_by_start (t, n, sizeof (SlTime));
      g_assert_true (n == 0 || memcmp (t, want, sizeof (SlTime) * n) == 0);
      /* spans (16 bytes) the same */
      {
        g_autofree SlSpan *sp = g_new (SlSpan, MAX (n, 1));
        for (guint i = 0; i < n; i++)
          sp[i] = (SlSpan) { r[i].s, (SlTime) i };
        _sl_sort_by_start (sp, n, sizeof (SlSpan));
        for (guint i = 0; i < n; i++)
          {
            g_assert_cmpint (sp[i].s, ==, want[i]);
            if (i > 0 && sp[i].s == sp[i - 1].s)
              g_assert_cmpint (sp[i].e, >, sp[i - 1].e);
          }
      }
      /* stable: equal starts keep the order of their accumulators (increasing addresses) */
      _sl_sort_by_start (r, n, sizeof (SlIdleRequest));
      for (guint i = 0; i < n; i++)
        {
          g_assert_cmpint (r[i].s, ==, want[i]);
          if (i > 0 && r[i].s == r[i - 1].s)
            g_assert_true (r[i].attributed > r[i - 1].attributed);
        }
    }
}

/* Kernels that start 2 ms after their launch call on an idle GPU (waiting on something else). */
static void
test_launch_latency (void)
{
  g_autofree char *path = trace_path ("latency.sqlite");
  Plant *p = plant_new (path);
  gint64 t = clean_stretch (p, 10 * MS, 300 * MS);
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;

  for (guint i = 0; i < 40; i++)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 5 * US);
      plant_kernel (p, "gemm_kernel_clean", &plant_config_full, t + 5 * US + 2 * MS,
                    t + 5 * US + 2 * MS + 95 * US, corr);
      t += 3 * MS;
    }
  clean_stretch (p, t, 300 * MS);
  plant_finish (p);

  a = analyze (path, &trace);
  f = the_only (a, "launch_latency");
  g_assert_cmpuint ((guint) ev (f, "count"), ==, 40);
  g_assert_cmpint ((gint64) ev (f, "median_delay_ns"), ==, 2 * MS);
  g_assert_cmpint ((gint64) ev (f, "max_delay_ns"), ==, 2 * MS);
  /* the GPU idled through every delay but the first one's start (the previous kernel ran on) */
  assert_near (f->cost, 40 * 2 * MS, 100 * US);
  g_assert_cmpuint (f->stream, ==, 7);
  g_assert_cmpint (sl_trace_get_thread (trace, f->thread)->tid, ==, PLANT_MAIN);
}

/* Thresholds from the command line's syntax, and their errors. */
static void
test_params (void)
{
  g_autoptr (SlAnalyzeParams) params = sl_analyze_params_new ();
  g_autoptr (GError) error = NULL;
  const SlRule *gaps = sl_analyze_find_rule ("gpu_gaps"), *util = sl_analyze_find_rule ("gpu_util");

  g_assert_cmpfloat (sl_analyze_params_get (params, gaps, "gap"), ==, 500e3);
  g_assert_true (sl_analyze_params_set (params, "gpu_gaps.gap=2ms", &error));
  g_assert_cmpfloat (sl_analyze_params_get (params, gaps, "gap"), ==, 2e6);
  g_assert_true (sl_analyze_params_set (params, "gpu_util.threshold=70%", &error));
  g_assert_cmpfloat_with_epsilon (sl_analyze_params_get (params, util, "threshold"), 0.7, 1e-12);
  g_assert_true (sl_analyze_params_set (params, "gpu_util.threshold=0.5", &error));
  g_assert_cmpfloat_with_epsilon (sl_analyze_params_get (params, util, "threshold"), 0.5, 1e-12);

  g_assert_false (sl_analyze_params_set (params, "gpu_gaps.gap=2", &error));
  g_assert_nonnull (strstr (error->message, "unit"));
  g_clear_error (&error);
  g_assert_false (sl_analyze_params_set (params, "gpu_gapz.gap=2ms", &error));
  g_assert_nonnull (strstr (error->message, "no rule named 'gpu_gapz'"));
  g_clear_error (&error);
  g_assert_false (sl_analyze_params_set (params, "gpu_gaps.size=2ms", &error));
  g_assert_nonnull (strstr (error->message, "it has: gap"));
  g_clear_error (&error);
  g_assert_false (sl_analyze_params_set (params, "gpu_util.threshold=120%", &error));
  g_clear_error (&error);
  g_assert_false (sl_analyze_params_set (params, "gpu_util", &error));
  g_clear_error (&error);

  /* an unknown rule name in the list */
  {
    g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
    g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
    const char *names[] = { "gpu_gaps", "no_such_rule", NULL };
    g_assert_no_error (error);
    g_assert_null (sl_analyze (trace, names, NULL, &error));
    g_assert_nonnull (strstr (error->message, "no_such_rule"));
  }
}

/* ---- --range: a window against SQL over the file (the events that start in [A, B)) ---------- */

static gboolean
has_column (sqlite3    *db,
            const char *table,
            const char *column)
{
  g_autofree char *q = g_strdup_printf ("SELECT %s FROM %s LIMIT 0", column, table);
  sqlite3_stmt *st = NULL;
  gboolean ok = sqlite3_prepare_v2 (db, q, -1, &st, NULL) == SQLITE_OK;

  sqlite3_finalize (st);
  return ok;
}

static gint
cmp_pair (gconstpointer a,
          gconstpointer b)
{
  const gint64 *x = a, *y = b;

  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Length of the union of [start, end) pairs, clipped to [a, b): the brute-force busy time. */
static gint64
union_clipped (GArray *pairs,
               gint64  a,
               gint64  b)
{
  gint64 total = 0, s = 0, e = G_MININT64;

  qsort (pairs->data, pairs->len / 2, 2 * sizeof (gint64), cmp_pair);
  for (guint i = 0; i <= pairs->len / 2; i++)
    {
      const gint64 *p = i < pairs->len / 2 ? &g_array_index (pairs, gint64, 2 * i) : NULL;
      if (p != NULL && p[0] <= e)
        {
          e = MAX (e, p[1]);
          continue;
        }
      if (e != G_MININT64 && MIN (e, b) > MAX (s, a))
        total += MIN (e, b) - MAX (s, a);
      if (p != NULL)
        {
          s = p[0];
          e = p[1];
        }
    }
  return total;
}

/* The [start, end) pairs of a device's kernels and graph launches (and copies and sets unless
 * kernels_only). */
static GArray *
sql_ops (sqlite3 *db,
         guint32  device,
         gboolean kernels_only)
{
  static const char *const tables[] = { "CUPTI_ACTIVITY_KIND_KERNEL",
                                        "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
                                        "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET" };
  GArray *pairs = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint k = 0; k < (kernels_only ? 2 : G_N_ELEMENTS (tables)); k++)
    {
      g_autofree char *q = g_strdup_printf ("SELECT start, end FROM %s WHERE deviceId = %u "
                                            "AND end > start", tables[k], device);
      sqlite3_stmt *st = NULL;
      if (!has_column (db, tables[k], "deviceId"))
        continue;
      g_assert_cmpint (sqlite3_prepare_v2 (db, q, -1, &st, NULL), ==, SQLITE_OK);
      while (sqlite3_step (st) == SQLITE_ROW)
        {
          gint64 pair[2] = { sqlite3_column_int64 (st, 0), sqlite3_column_int64 (st, 1) };
          g_array_append_vals (pairs, pair, 2);
        }
      sqlite3_finalize (st);
    }
  return pairs;
}

static void
check_range (const char *path,
             double      from,
             double      to)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_autoptr (SlAnalyzeParams) params = sl_analyze_params_new ();
  g_autoptr (SlAnalysis) a = NULL;
  g_autofree char *text = NULL;
  SlTime start, span, origin, t0, t1;
  sqlite3 *db = NULL;
  const char *name_col;

  g_assert_no_error (error);
  start = sl_trace_get_start (trace);
  span = sl_trace_get_end (trace) - start;
  origin = sl_trace_get_origin (trace);
  /* through the command line's parser: bare numbers are nanoseconds from time 0 (the session's
   * start, as the viewer and `sightline info` count) */
  text = g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                          start - origin + (SlTime) (span * from),
                          start - origin + (SlTime) (span * to));
  g_assert_true (sl_range_parse (text, trace, &t0, &t1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (t0, ==, start + (SlTime) (span * from));
  sl_analyze_params_set_range (params, t0, t1);
  /* every stretch a finding of gpu_util (one chunk, low below 100%); every repeated kernel tiny */
  g_assert_true (sl_analyze_params_set (params, "gpu_util.threshold=100%", &error));
  g_assert_true (sl_analyze_params_set (params, "gpu_util.chunks=1", &error));
  g_assert_true (sl_analyze_params_set (params, "tiny_kernels.count=2", &error));
  g_assert_true (sl_analyze_params_set (params, "tiny_kernels.duration=100s", &error));
  a = sl_analyze (trace, NULL, params, &error);
  g_assert_no_error (error);
  g_assert_cmpint (a->t0, ==, t0);
  g_assert_cmpint (a->t1, ==, t1);

  /* every finding lies in the window, and every event it lists starts in it */
  for (guint i = 0; i < a->findings->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (a->findings, i);
      g_assert_cmpint (f->start, >=, t0);
      g_assert_cmpint (f->end, <=, t1);
      g_assert_cmpint (f->start, <=, f->end);
      for (guint k = 0; k < f->events->len; k++)
        {
          const SlFindingEvent *e = &g_array_index (f->events, SlFindingEvent, k);
          const SlEvent *ev = &sl_trace_get_lane (trace, e->lane)->events[e->index];
          g_assert_cmpint (ev->start, >=, t0);
          g_assert_cmpint (ev->start, <, t1);
        }
    }

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  name_col = has_column (db, "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName")
               ? "coalesce(k.demangledName, k.shortName)" : "k.shortName";
  for (guint g = 0; g < sl_trace_get_n_gpus (trace); g++)
    {
      guint32 device = sl_trace_get_gpu (trace, g)->device_id;
      g_autoptr (GArray) ops = sql_ops (db, device, FALSE);
      g_autoptr (GArray) kernels = sql_ops (db, device, TRUE);
      g_autoptr (GPtrArray) util = of_rule (a, "gpu_util"), tiny = of_rule (a, "tiny_kernels");
      g_autoptr (GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                             g_free);
      gint64 first = G_MAXINT64, last = G_MININT64, busy;
      const SlFinding *found = NULL;
      guint n_tiny = 0, n_expected = 0;

      /* gpu_util: the trace's span clipped to the window (an idle start or end counts), the
       * GPU's busy union clipped to that */
      for (guint i = 0; i < ops->len; i += 2)
        {
          first = MIN (first, g_array_index (ops, gint64, i));
          last = MAX (last, g_array_index (ops, gint64, i + 1));
        }
      if (ops->len > 0)
        {
          first = MAX (sl_trace_get_start (trace), t0);
          last = MIN (sl_trace_get_end (trace), t1);
        }
      busy = last > first ? union_clipped (ops, first, last) : 0;
      for (guint i = 0; i < util->len; i++)
        if (((SlFinding *) g_ptr_array_index (util, i))->gpu == (gint) device)
          {
            g_assert_null (found);
            found = g_ptr_array_index (util, i);
          }
      if (last <= first || busy == last - first)
        g_assert_null (found);
      else
        {
          g_assert_nonnull (found);
          g_assert_cmpint (found->start, ==, first);
          g_assert_cmpint (found->end, ==, last);
          g_assert_cmpint ((gint64) ev (found, "idle_ns"), ==, (last - first) - busy);
          g_assert_cmpfloat_with_epsilon (ev (found, "kernel_share"),
                                          (double) union_clipped (kernels, first, last)
                                            / (double) (last - first), 1e-9);
        }

      /* tiny_kernels: per kernel name, the instances that start in the window */
      {
        g_autofree char *q = g_strdup_printf (
            "SELECT s.value, k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
            "ON s.id = %s WHERE k.deviceId = %u AND k.start >= %" G_GINT64_FORMAT " AND k.start < %"
            G_GINT64_FORMAT " ORDER BY s.value, k.start", name_col, device, t0, t1);
        sqlite3_stmt *st = NULL;
        if (has_column (db, "CUPTI_ACTIVITY_KIND_KERNEL", "deviceId"))
          {
            g_assert_cmpint (sqlite3_prepare_v2 (db, q, -1, &st, NULL), ==, SQLITE_OK);
            while (sqlite3_step (st) == SQLITE_ROW)
              {
                const char *name = (const char *) sqlite3_column_text (st, 0);
                gint64 *c = g_hash_table_lookup (counts, name);
                gint64 s = sqlite3_column_int64 (st, 1), e = sqlite3_column_int64 (st, 2);
                if (c == NULL)
                  {
                    /* count, total time, previous start, whether two start under 1 ms apart */
                    c = g_new0 (gint64, 4);
                    c[2] = G_MININT64;
                    g_hash_table_insert (counts, g_strdup (name), c);
                  }
                c[0]++;
                c[1] += e - s;
                if (c[2] != G_MININT64 && s - c[2] < 1000000)
                  c[3] = 1;
                c[2] = s;
              }
            sqlite3_finalize (st);
          }
      }
      {
        GHashTableIter it;
        gpointer v;
        g_hash_table_iter_init (&it, counts);
        while (g_hash_table_iter_next (&it, NULL, &v))
          if (((gint64 *) v)[0] >= 2 && ((gint64 *) v)[3])
            n_expected++;
      }
      for (guint i = 0; i < tiny->len; i++)
        {
          const SlFinding *f = g_ptr_array_index (tiny, i);
          const SlFindingEvent *e;
          const gint64 *c;
          guint32 ev_name;
          if (f->gpu != (gint) device)
            continue;
          n_tiny++;
          g_assert_cmpuint (f->events->len, >=, 1);
          e = &g_array_index (f->events, SlFindingEvent, 0);
          ev_name = sl_trace_get_lane (trace, e->lane)->events[e->index].name;
          c = g_hash_table_lookup (counts, sl_trace_str (trace, ev_name));
          g_assert_nonnull (c);
          g_assert_cmpint ((gint64) ev (f, "count"), ==, c[0]);
          g_assert_cmpint ((gint64) ev (f, "total_ns"), ==, c[1]);
        }
      g_assert_cmpuint (n_tiny, ==, n_expected);
      g_test_message ("%s %s GPU %u: busy %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " ns, %u tiny "
                      "kernel names", path, text, g, busy, last > first ? last - first : 0, n_tiny);
    }
  sqlite3_close (db);
}

static void
test_range (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();

  for (guint i = 0; files[i] != NULL; i++)
    {
      check_range (files[i], 0.25, 0.6);
      check_range (files[i], 0.0, 0.1);
      check_range (files[i], 0.5, 1.0);
    }
}

/* The command line: a window's findings; reversed, outside and garbage ranges refused. */
static void
run_analyze (const char *path,
             const char *range,
             int        *status,
             char      **out,
             char      **err)
{
  const char *argv[] = { SL_SIGHTLINE_BIN, "analyze", path, "--format", "json", "--range", range,
                         NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                                         | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);

  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (p, NULL, NULL, out, err, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (p));
  *status = g_subprocess_get_exit_status (p);
}

static void
test_range_cli (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-mfu-2gpu.sqlite");
  static const struct { const char *range, *why; } bad[] = {
    { "200ms:100ms", "reversed" },
    { "100ms:100ms", "empty" },
    { "10s:20s", "outside the trace" },
    { "100ms:0.15s", "outside the trace" },   /* from the first event it would not be */
    { "banana", "not a range" },
    { "1x:2x", "not a time" },
  };
  int status;

  {
    g_autofree char *out = NULL, *err = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
    g_autofree char *expect = NULL;

    g_assert_no_error (error);
    /* from time 0, the session's start: the first event is at 60.11 s */
    run_analyze (path, "60.2s:60.25s", &status, &out, &err);
    g_assert_cmpint (status, ==, 0);
    expect = g_strdup_printf ("\"range_start_ns\": %" G_GINT64_FORMAT ",\n  \"range_end_ns\": %"
                              G_GINT64_FORMAT,
                              sl_trace_get_origin (trace) + G_GINT64_CONSTANT (60200000000),
                              sl_trace_get_origin (trace) + G_GINT64_CONSTANT (60250000000));
    g_assert_nonnull (strstr (out, expect));
  }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      run_analyze (path, bad[i].range, &status, &out, &err);
      g_test_message ("--range %s: exit %d, %s", bad[i].range, status, err);
      g_assert_cmpint (status, !=, 0);
      g_assert_cmpstr (out, ==, "");
      g_assert_nonnull (strstr (err, path));
      g_assert_nonnull (strstr (err, bad[i].why));
    }
}

/* Issue 14: the launching thread's states in a cpu_bound stretch from planted SCHED_EVENTS.  Each
 * millisecond it launches a kernel of 85 µs, runs 600 µs (sampled), is preempted 100 µs
 * (Runnable), runs 50 µs more and blocks 250 µs (threadBlock 13, "Receive"), 240 µs of it in
 * read: running 65%, runnable 10%, blocked 25%, on Receive, in read. */
static void
test_cpu_bound_states (void)
{
  g_autofree char *path = trace_path ("cpu-states.sqlite");
  Plant *p = plant_new (path);
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;
  double len;

  for (gint64 t = 10 * MS; t < 1010 * MS; t += MS)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 10 * US);
      plant_kernel (p, "step_kernel", &plant_config_full, t + 15 * US, t + 100 * US, corr);
      plant_sched_slice (p, 100, PLANT_MAIN, 3, t, t + 600 * US, 1, -1);
      plant_sched_slice (p, 100, PLANT_MAIN, 3, t + 700 * US, t + 750 * US, 2, 13);
      plant_osrt (p, PLANT_MAIN, "read", t + 750 * US, t + 990 * US);
      for (gint64 s = t + 50 * US; s < t + 600 * US; s += 100 * US)
        plant_sample (p, PLANT_MAIN, s, "compute_loss");
    }
  plant_finish (p);

  a = analyze (path, &trace);
  f = the_only (a, "cpu_bound");
  g_test_message ("%s", f->summary);
  len = (double) (f->end - f->start);
  g_assert_cmpfloat (len, >, 900 * MS);
  g_assert_nonnull (strstr (f->summary, " is busy "));
  g_assert_cmpstr (ev_text (f, "thread_states"), ==, "from scheduling data (SCHED_EVENTS)");
  g_assert_cmpfloat_with_epsilon (ev (f, "running_ns") / len, 0.65, 0.01);
  g_assert_nonnull (strstr (ev_text (f, "running_ns"), "(65%) (scheduling data)"));
  g_assert_cmpfloat_with_epsilon (ev (f, "runnable_ns") / len, 0.10, 0.01);
  g_assert_cmpfloat_with_epsilon (ev (f, "blocked_ns") / len, 0.25, 0.01);
  g_test_message ("%s", ev_text (f, "blocked_ns"));
  g_assert_nonnull (strstr (ev_text (f, "blocked_ns"), "(25%), on Receive, "));
  g_assert_true (g_str_has_suffix (ev_text (f, "blocked_ns"), " of it in read"));
  /* 240 of each 250 µs blocked fall in read */
  {
    g_autofree char *in_read = NULL;
    const char *of = strstr (ev_text (f, "blocked_ns"), "Receive, ");
    in_read = g_strndup (of + 9, strstr (of, " of it") - of - 9);
    g_test_message ("in read: %s", in_read);
    g_assert_true (g_str_has_suffix (in_read, " ms"));
    g_assert_cmpfloat_with_epsilon (g_ascii_strtod (in_read, NULL) * 1e6 / (len * 0.24), 1, 0.02);
  }
  /* no worker processes: no word about them */
  for (guint i = 0; i < f->evidence->len; i++)
    g_assert_false (g_str_has_prefix (g_array_index (f->evidence, SlEvidence, i).key, "workers"));
}

/* Issue 15: a gap in which the main thread computes in Python: gpu_gaps names the Python
 * function (the innermost Python frame under the interpreter's C leaf) and its line. */
static void
test_gap_python (void)
{
  g_autofree char *path = trace_path ("gap-python.sqlite");
  Plant *p = plant_new (path);
  gint64 t = plant_loop (p, 10 * MS, 5000, 100 * US, 95 * US, "gemm_kernel_clean",
                         &plant_config_full);
  static const char *const stack[] = {
    "_PyEval_EvalFrameDefault@/usr/bin/python3.11", "augment@/srv/data/transforms.py:88",
    "_PyEval_EvalFrameDefault@/usr/bin/python3.11", "train_step@/srv/train.py:7",
  };
  static const char *const other[] = { "memmove@libc.so.6", "train_step@/srv/train.py:9" };
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;

  for (gint64 s = t + 500 * US, k = 0; s < t + 100 * MS; s += MS, k++)
    if (k % 3 == 2)
      plant_sample_stack (p, PLANT_MAIN, s, other, G_N_ELEMENTS (other));
    else
      plant_sample_stack (p, PLANT_MAIN, s, stack, G_N_ELEMENTS (stack));
  plant_loop (p, t + 100 * MS, 5000, 100 * US, 95 * US, "gemm_kernel_clean", &plant_config_full);
  plant_finish (p);

  a = analyze (path, &trace);
  f = the_only (a, "gpu_gaps");
  g_test_message ("%s", f->summary);
  g_assert_nonnull (strstr (f->summary, "python3 [100] busy on the CPU (100 samples, most in "
                                        "augment (/srv/data/transforms.py:88))"));
  g_assert_nonnull (strstr (f->cause, "augment (/srv/data/transforms.py:88)"));
  g_assert_nonnull (strstr (f->advice, "augment (/srv/data/transforms.py:88)"));
  g_assert_nonnull (strstr (ev_text (f, "thread_100_active_ns"),
                            "; 100 CPU samples, 67 in augment (/srv/data/transforms.py:88)"));
}

/* --- the DataLoader case (issue 14): worker processes against the machine's cores ------------ */

typedef enum
{
  WORKERS_SATURATE,     /* two run while two wait, on the two cores there are */
  WORKERS_SPREAD,       /* each on a core of its own */
  WORKERS_IDLE,         /* asleep, a millisecond of work each */
  WORKERS_NO_EVIDENCE,  /* no scheduling data, no samples */
  WORKERS_SAMPLED,      /* no scheduling data: sampled every millisecond while they work */
  WORKERS_CROWD,        /* each on a core of its own, the main thread on the last one, computing */
} WorkersMode;

#define N_WORKERS 4

/* 500 ms of healthy steps, a 300 ms gap in which the main thread (100) blocks in read for its
 * next batch (scheduled out in threadBlock 13, "Receive") or, WORKERS_CROWD, computes in
 * prepare_batch (sampled every ms), 500 ms of steps again; four DataLoader
 * workers (processes 201 … 204, children of 100) doing, in the gap, what `mode` says; 3 of 5 of
 * their samples in collate.  `cores`: TARGET_INFO_SYSTEM_ENV's CpuCores, 0 for none.  Returns the
 * gap. */
static void
plant_dataloader (const char  *path,
                  WorkersMode  mode,
                  guint        cores,
                  gint64      *gap_start,
                  gint64      *gap_end)
{
  static const char *const collate[] = {
    "collate@/srv/data/dataset.py:42",
    "_worker_loop@/usr/lib/python3/dist-packages/torch/utils/data/_utils/worker.py:308",
  };
  static const char *const decode[] = {
    "decode@/srv/data/dataset.py:17",
    "_worker_loop@/usr/lib/python3/dist-packages/torch/utils/data/_utils/worker.py:308",
  };
  /* the main thread's wait for the batch: a read of the workers' result pipe */
  static const char *const wait[] = {
    "read@/lib/x86_64-linux-gnu/libc.so.6", "_recv_bytes@/usr/lib/python3.11/multiprocessing/"
    "connection.py:413", "get@/usr/lib/python3.11/multiprocessing/queues.py:103",
    "_next_data@/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py:1328",
  };
  Plant *p = plant_new (path);
  gint64 t = plant_loop (p, 10 * MS, 5000, 100 * US, 95 * US, "gemm_kernel_clean",
                         &plant_config_full);
  gint64 g0 = t, g1 = t + 300 * MS, end;
  gboolean sched = mode != WORKERS_NO_EVIDENCE && mode != WORKERS_SAMPLED;
  guint k = 0;

  *gap_start = plant_gpu_free (p);
  for (gint w = 0; w < N_WORKERS; w++)
    plant_process (p, 201 + w, 100, "python3 (DataLoader worker)",
                   "/usr/bin/python3 -c from multiprocessing.spawn import spawn_main");
  if (cores > 0)
    {
      g_autofree char *n = g_strdup_printf ("%u", cores);
      plant_system_env (p, "CpuCores", n);
    }
  if (mode == WORKERS_CROWD)
    for (gint64 s = g0 + MS / 2; s < g1; s += MS)
      plant_sample (p, PLANT_MAIN, s, "prepare_batch");
  else
    plant_osrt_backtrace (p, PLANT_MAIN, "read", g0, g1, wait, G_N_ELEMENTS (wait));
  t = g1 + 10 * US;
  *gap_end = t + 8 * US;
  end = plant_loop (p, t, 5000, 100 * US, 95 * US, "gemm_kernel_clean", &plant_config_full);
  if (sched)
    {
      /* the main thread runs on CPU 0 but while it waits for the batch */
      if (mode == WORKERS_CROWD)
        plant_sched_slice (p, 100, PLANT_MAIN, 0, 5 * MS, end, 2, 13);
      else
        {
          plant_sched_slice (p, 100, PLANT_MAIN, 0, 5 * MS, g0, 2, 13);
          plant_sched_slice (p, 100, PLANT_MAIN, 0, g1, end, 2, 13);
        }
      /* the workers wait for work until the gap */
      for (gint w = 0; w < N_WORKERS; w++)
        plant_sched_slice (p, 201 + w, 201 + w, 1, 1 * MS + w * 10 * US, 2 * MS, 2, 27);
    }
  for (gint w = 0; w < N_WORKERS; w++)
    for (gint64 s = g0; s < g1; s += 10 * MS)
      {
        gboolean runs = mode == WORKERS_SATURATE ? (((s - g0) / (10 * MS)) % 2 == w / 2)
                      : mode == WORKERS_IDLE ? s == g0 : TRUE;
        gint64 e = mode == WORKERS_IDLE ? s + MS : s + 10 * MS;
        gint cpu = mode == WORKERS_SATURATE ? w % 2 : mode == WORKERS_CROWD ? 1 + w : 2 + w;
        if (!runs)
          continue;
        if (sched)
          plant_sched_slice (p, 201 + w, 201 + w, cpu, s + (mode == WORKERS_IDLE ? w * MS : 0),
                       e + (mode == WORKERS_IDLE ? w * MS : 0), e + 10 * MS < g1 ? 1 : 2,
                       e + 10 * MS < g1 ? -1 : 27);
        for (gint64 x = s + MS / 2; mode != WORKERS_NO_EVIDENCE && mode != WORKERS_IDLE && x < e;
             x += MS, k++)
          plant_sample_stack_of (p, 201 + w, 201 + w, x, k % 5 < 3 ? collate : decode, 2);
      }
  plant_finish (p);
}

static void
test_dataloader (void)
{
  static const struct
  {
    WorkersMode mode;
    guint       cores;
    const char *text;      /* in the gap's and the stretch's summaries; NULL: no DataLoader point */
    const char *verdict;
    const char *advice;
    double      busy;      /* cores the workers kept busy; < 0: no evidence */
    const char *machine;   /* the machine_cores evidence */
  } cases[] = {
    { WORKERS_SATURATE, 2, "4 worker processes ran 100% of 2 cores, 60% of their samples in "
      "collate (/srv/data/dataset.py:42)", "the machine's 2 cores are saturated",
      "more workers cannot help", 2.0, "2 (CpuCores in TARGET_INFO_SYSTEM_ENV)" },
    { WORKERS_SATURATE, 0, "4 worker processes ran 100% of 2 cores, 60% of their samples in "
      "collate (/srv/data/dataset.py:42)", "all 2 cores the scheduling data shows are busy",
      "unless the machine has more cores than the scheduling data shows", 2.0,
      "at least 2 (the highest CPU number in the scheduling data + 1)" },
    { WORKERS_SPREAD, 16, "4 worker processes ran 100% of 4 cores, 60% of their samples in "
      "collate (/srv/data/dataset.py:42)", "12 of the machine's 16 cores idle",
      "Raise num_workers (to about 16)", 4.0, "16 (CpuCores in TARGET_INFO_SYSTEM_ENV)" },
    { WORKERS_SPREAD, 0, "4 worker processes ran 100% of 4 cores", "2 of the machine's at least "
      "6 cores idle", "Raise num_workers (to about 6)", 4.0,
      "at least 6 (the highest CPU number in the scheduling data + 1)" },
    { WORKERS_SAMPLED, 16, "4 worker processes ran 100% of 4 cores, 60% of their samples in "
      "collate (/srv/data/dataset.py:42)", "12 of the machine's 16 cores idle",
      "Raise num_workers", 4.0, "16 (CpuCores in TARGET_INFO_SYSTEM_ENV)" },
    { WORKERS_CROWD, 5, "4 worker processes ran 100% of 4 cores, 60% of their samples in "
      "collate (/srv/data/dataset.py:42)", "the machine's 5 cores are saturated",
      "more workers cannot help", 4.0, "5 (CpuCores in TARGET_INFO_SYSTEM_ENV)" },
    { WORKERS_IDLE, 2, NULL, NULL, NULL, 4.0 / 300, "2 (CpuCores in TARGET_INFO_SYSTEM_ENV)" },
    { WORKERS_NO_EVIDENCE, 2, NULL, NULL, NULL, -1, NULL },
  };

  static const char backtrace[] =
    "read, 300.000 ms: read ← _recv_bytes (/usr/lib/python3.11/multiprocessing/connection.py:413) "
    "← get (/usr/lib/python3.11/multiprocessing/queues.py:103) ← _next_data "
    "(/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py:1328)";

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *name = g_strdup_printf ("dataloader-%u.sqlite", c);
      g_autofree char *path = trace_path (name);
      g_autoptr (SlTrace) trace = NULL;
      g_autoptr (SlAnalysis) a = NULL;
      g_autoptr (GPtrArray) cpu = NULL;
      gint64 gap_start, gap_end;
      const SlFinding *f;
      gboolean crowd = cases[c].mode == WORKERS_CROWD;

      plant_dataloader (path, cases[c].mode, cases[c].cores, &gap_start, &gap_end);
      a = analyze (path, &trace);
      f = the_only (a, "gpu_gaps");
      g_test_message ("case %u: %s\n  %s", c, f->summary, f->advice);
      for (guint i = 0; i < f->evidence->len; i++)
        g_test_message ("  %s: %s", g_array_index (f->evidence, SlEvidence, i).label,
                        g_array_index (f->evidence, SlEvidence, i).text);
      g_assert_cmpint (f->start, ==, gap_start);
      g_assert_cmpint (f->end, ==, gap_end);
      g_assert_nonnull (strstr (f->summary, crowd ? "python3 [100] busy on the CPU (300 samples, "
                                                    "most in prepare_batch); "
                                                  : "python3 [100] blocked in read for 299.99"));
      g_assert_cmpfloat (ev (f, "workers"), ==, N_WORKERS);
      g_assert_true (g_str_has_prefix (ev_text (f, "workers"), "4 (child processes without GPU "
                                       "work; python3 (DataLoader worker): 201, 202, 203, 204)"));
      if (cases[c].busy < 0)
        g_assert_true (g_str_has_prefix (ev_text (f, "workers_cpu"), "no evidence: the trace has "
                                         "no scheduling data (SCHED_EVENTS) and no CPU samples"));
      else
        {
          g_assert_cmpfloat_with_epsilon (ev (f, "workers_busy_cores"), cases[c].busy, 0.01);
          g_assert_cmpstr (ev_text (f, "machine_cores"), ==, cases[c].machine);
          g_assert_nonnull (strstr (ev_text (f, "workers_busy_cores"),
                                    cases[c].mode == WORKERS_SAMPLED
                                      ? "derived from CPU samples" : "from scheduling data"));
        }
      cpu = of_rule (a, "cpu_bound");
      if (cases[c].text == NULL)
        {
          /* no DataLoader point: the main thread's read, nothing about the loader */
          g_assert_null (strstr (f->summary, "worker process"));
          g_assert_null (strstr (f->summary, "data loader"));
          g_assert_null (strstr (f->advice, "num_workers"));
          g_assert_cmpuint (cpu->len, ==, 0);
          continue;
        }
      g_assert_nonnull (strstr (f->summary, cases[c].text));
      g_assert_nonnull (strstr (f->summary, cases[c].verdict));
      g_assert_nonnull (strstr (f->advice, cases[c].advice));
      if (crowd)
        {
          /* the main thread computes: its own advice first, then the workers' */
          g_assert_null (strstr (f->summary, "the data loader is the bottleneck"));
          g_assert_true (g_str_has_prefix (f->advice, "The host computes (prepare_batch)"));
        }
      else
        {
          g_assert_nonnull (strstr (f->summary, "the data loader is the bottleneck"));
          g_assert_cmpstr (ev_text (f, "wait_backtrace"), ==, backtrace);
        }
      /* cpu_bound: the three windows of the gap, the same point */
      g_assert_cmpuint (cpu->len, ==, 1);
      f = g_ptr_array_index (cpu, 0);
      g_test_message ("  cpu_bound: %s\n  %s", f->summary, f->advice);
      assert_near (f->start, gap_start, 100 * MS);
      assert_near (f->end, gap_end, 100 * MS);
      g_assert_nonnull (strstr (f->summary, cases[c].text));
      g_assert_nonnull (strstr (f->summary, cases[c].verdict));
      g_assert_nonnull (strstr (f->advice, cases[c].advice));
      if (crowd)
        {
          g_assert_nonnull (strstr (f->summary, "python3 [100] is busy 100% (most in "
                                                "prepare_batch, 300 CPU samples)"));
          g_assert_nonnull (strstr (f->cause, "the data loader's workers take every core"));
          continue;
        }
      g_assert_nonnull (strstr (f->summary, "python3 [100] waits in read ("));
      g_assert_nonnull (strstr (f->cause, "the data loader is the bottleneck"));
      g_assert_cmpstr (ev_text (f, "wait_backtrace"), ==, backtrace);
    }
}

/* ---- issue 28 item 7: occupancy estimates, library kernels, the tail effect --------------- */

/* `n` kernels of `dur` back to back from `t` (a 5 µs launch each); returns the time after. */
static gint64
plant_kernels (Plant             *p,
               gint64             t,
               guint              n,
               gint64             dur,
               const char        *name,
               const PlantConfig *config)
{
  for (guint i = 0; i < n; i++)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 5 * US);
      gint64 start = MAX (t + 8 * US, plant_gpu_free (p));
      plant_kernel (p, name, config, start, start + dur, corr);
      t = start + dur + 20 * US;
    }
  return t;
}

static const SlFinding *
finding_naming (SlAnalysis *a,
                const char *rule,
                const char *name)
{
  g_autoptr (GPtrArray) found = instances_of_rule (a, rule);

  for (guint i = 0; i < found->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (found, i);
      if (strstr (f->summary, name) != NULL)
        return f;
    }
  return NULL;
}

/* Advice a library's kernel cannot follow: how it is compiled or launched. */
static void
assert_no_compile_advice (const SlFinding *f)
{
  g_test_message ("%s\n  %s", f->summary, f->advice);
  g_assert_null (strstr (f->advice, "maxrregcount"));
  g_assert_null (strstr (f->advice, "__launch_bounds__"));
  g_assert_null (strstr (f->advice, "block size"));
  g_assert_null (strstr (f->advice, "larger blocks"));
}

/* An NCCL kernel (16 blocks of 640 threads, 96 registers: one block per SM, 31 %) and a CUTLASS
 * GEMM (232 registers, 72 KiB of shared memory: one block per SM, 12.5 %) at low occupancy.
 * Neither gets compile-time advice.  The GEMM's 528 blocks are 4 waves on 132 SMs; at the 3
 * blocks per SM its shared memory allows (50 % would need 4) they are 2: up to half its time.
 * NCCL's 16 blocks are under one wave at any occupancy: no saving, cost 0. */
static void
test_occupancy_library (void)
{
  g_autofree char *path = trace_path ("occupancy-library.sqlite");
  Plant *p = plant_new (path);
  const PlantConfig nccl = { 16, 640, 96, 0 }, gemm = { 528, 256, 232, 72 * 1024 };
  const char *nccl_name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage"
                          "<(unsigned long)4096>)";
  const char *gemm_name = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_16x3_nn_"
                          "align4>(cutlass_80_tensorop_s1688gemm_256x128_16x3_nn_align4::Params)";
  gint64 t = clean_stretch (p, 10 * MS, 100 * MS);
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;

  t = plant_kernels (p, t, 20, 2 * MS, nccl_name, &nccl);
  t = plant_kernels (p, t, 20, 2 * MS, gemm_name, &gemm);
  clean_stretch (p, t, 100 * MS);
  plant_finish (p);
  a = analyze (path, &trace);

  f = finding_naming (a, "low_occupancy", "ncclDevKernel_AllReduce");
  g_assert_nonnull (f);
  assert_no_compile_advice (f);
  g_assert_cmpstr (ev_text (f, "library"), ==, "NCCL");
  g_assert_cmpstr (ev_text (f, "limit"), ==, "registers");
  g_assert_cmpint ((gint) ev (f, "blocks_per_sm"), ==, 1);
  g_assert_cmpstr (ev_text (f, "waves"), ==, "0.12 (last wave 12 % full)");
  g_assert_cmpint (f->cost, ==, 0);
  g_assert_cmpfloat (ev (f, "estimated_saving"), ==, 0.0);
  g_assert_nonnull (strstr (f->summary, "no saving estimated"));
  g_assert_nonnull (strstr (f->summary, "fits in one wave (0.12)"));
  g_assert_nonnull (strstr (f->advice, "NCCL_MIN_NCHANNELS"));
  g_assert_nonnull (strstr (f->advice, "Estimated saving"));

  f = finding_naming (a, "low_occupancy", "cutlass::Kernel");
  g_assert_nonnull (f);
  assert_no_compile_advice (f);
  g_assert_cmpstr (ev_text (f, "library"), ==, "cuBLAS/CUTLASS");
  g_assert_cmpfloat_with_epsilon (ev (f, "occupancy"), 0.125, 1e-9);
  g_assert_cmpstr (ev_text (f, "waves"), ==, "4.00 (last wave 100 % full)");
  g_assert_cmpint ((gint) ev (f, "target_blocks_per_sm"), ==, 3);
  g_assert_cmpstr (ev_text (f, "target_waves"), ==, "2 instead of 4");
  g_assert_cmpfloat_with_epsilon (ev (f, "estimated_saving"), 0.5, 1e-12);
  g_assert_cmpint ((gint64) ev (f, "gpu_ns"), ==, 40 * MS);
  g_assert_cmpint (f->cost, ==, 20 * MS);
  g_assert_nonnull (strstr (f->summary, "would take 2 waves instead of 4"));
  g_assert_nonnull (strstr (f->advice, "tensor cores"));

  /* no tail: NCCL's partial wave is by design, the GEMM fills whole waves */
  g_assert_null (finding_naming (a, "tail_effect", "nccl"));
  g_assert_null (finding_naming (a, "tail_effect", "cutlass"));
}

/* 40 blocks on 28 SMs at one block per SM (the issue's case): 1.43 waves, the second keeping
 * 12 SMs busy and 16 idle, 16 / 56 of the SM time of its two waves.  One instance shares its
 * time with a kernel of another stream, which fills the idle SMs: its time is left out.  A grid
 * of 56 (two whole waves) has no tail. */
static void
test_tail_effect (void)
{
  g_autofree char *path = trace_path ("tail.sqlite");
  Plant *p = plant_new (path);
  const PlantConfig tail = { 40, 256, 255, 0 }, whole = { 56, 256, 255, 0 };
  gint64 t = clean_stretch (p, 10 * MS, 100 * MS);
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (SlAnalysis) a = NULL;
  const SlFinding *f;

  t = plant_kernels (p, t, 20, 2 * MS, "wave_tail_kernel", &tail);
  t = plant_kernels (p, t, 20, 2 * MS, "whole_waves_kernel", &whole);
  clean_stretch (p, t, 100 * MS);
  plant_finish (p);
  plant_sql (path, "UPDATE TARGET_INFO_GPU SET smCount = 28");
  /* the first tail instance's time, on stream 8, a kernel of the clean loop's name */
  plant_sql (path,
             "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
             "correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, "
             "gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, "
             "localMemoryPerThread, localMemoryTotal, gridId, tensorSizeMinusOneElements) "
             "SELECT k.start, k.end, k.deviceId, k.contextId, 8, 999999, k.globalPid, "
             "c.demangledName, c.shortName, 32, 264, 1, 1, 256, 1, 1, 0, 0, 0, 0, 0, '[]' "
             "FROM CUPTI_ACTIVITY_KIND_KERNEL k, "
             "(SELECT demangledName, shortName FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE gridX = 264 "
             " LIMIT 1) c WHERE k.gridX = 40 ORDER BY k.start LIMIT 1");
  a = analyze (path, &trace);
  g_assert_cmpint (sl_trace_get_gpu (trace, 0)->limits.sm_count, ==, 28);

  f = finding_naming (a, "tail_effect", "wave_tail_kernel");
  g_assert_nonnull (f);
  g_test_message ("%s\n  %s", f->summary, f->advice);
  g_assert_cmpfloat_with_epsilon (ev (f, "waves"), 40.0 / 28.0, 1e-12);
  g_assert_cmpstr (ev_text (f, "waves"), ==, "1.43 (last wave 43 % full)");
  g_assert_cmpstr (ev_text (f, "wave_slots"), ==, "28 (28 SMs × 1)");
  g_assert_cmpstr (ev_text (f, "last_wave_blocks"), ==, "12 of 28");
  g_assert_cmpstr (ev_text (f, "last_wave_sms"), ==, "12 of 28");
  g_assert_cmpfloat_with_epsilon (ev (f, "tail"), 16.0 / 28.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (ev (f, "idle_sm_time"), 16.0 / 56.0, 1e-12);
  g_assert_cmpint ((gint64) ev (f, "gpu_ns"), ==, 40 * MS);
  g_assert_cmpint ((gint64) ev (f, "alone_ns"), ==, 38 * MS);
  assert_near (f->cost, 38 * MS * 16 / 56, 1);
  g_assert_nonnull (strstr (f->summary, "is 1.43 waves of 28"));
  g_assert_nonnull (strstr (f->summary, "12 of 28 SMs busy"));
  g_assert_nonnull (strstr (f->advice, "28 blocks (the same work in larger blocks) or 56"));

  /* the same kernel is at 12.5 % occupancy: at 4 blocks per SM its 40 blocks would be one wave
   * instead of two, up to half its time */
  f = finding_naming (a, "low_occupancy", "wave_tail_kernel");
  g_assert_nonnull (f);
  g_assert_cmpfloat_with_epsilon (ev (f, "estimated_saving"), 0.5, 1e-12);
  g_assert_cmpint (f->cost, ==, 20 * MS);
  g_assert_cmpfloat_with_epsilon (ev (f, "tail"), 16.0 / 28.0, 1e-12);

  g_assert_null (finding_naming (a, "tail_effect", "whole_waves_kernel"));
  /* the clean loop's 264 blocks at 8 per SM keep all 28 SMs busy in their last wave */
  g_assert_null (finding_naming (a, "tail_effect", "gemm_kernel_clean"));
  f = finding_naming (a, "low_occupancy", "whole_waves_kernel");
  g_assert_nonnull (f);
  /* 56 blocks: 2 waves at 1 block per SM, 1 at 4 */
  g_assert_cmpstr (ev_text (f, "target_waves"), ==, "1 instead of 2");
}

/* The occupancy findings' figures on `trace`: every cost an estimate no larger than the GPU time
 * of the kernels it is about (summed here from the trace's own events of the finding's
 * configuration), cost 0 exactly when no saving is estimated and then said so, and a library's
 * kernels never told to change how they are compiled. */
static guint
check_occupancy_costs (SlTrace    *trace,
                       SlAnalysis *a,
                       const char *file,
                       double      max_waves)
{
  static const char *const rules[] = { "low_occupancy", "tail_effect" };
  guint n = 0;

  for (guint r = 0; r < G_N_ELEMENTS (rules); r++)
    {
      g_autoptr (GPtrArray) found = instances_of_rule (a, rules[r]);
      for (guint i = 0; i < found->len; i++)
        {
          const SlFinding *f = g_ptr_array_index (found, i);
          const SlFindingEvent *fe = &g_array_index (f->events, SlFindingEvent, 0);
          const SlLane *fl = sl_trace_get_lane (trace, fe->lane);
          const SlKernelInfo *ki = sl_trace_get_kernel_info (trace, fl->events[fe->index].aux);
          guint32 aux = fl->events[fe->index].aux;
          SlTime gpu_time = 0;

          g_assert_cmpuint (f->events->len, >=, 1);
          for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
            {
              const SlLane *lane = sl_trace_get_lane (trace, l);
              if (lane->kind != SL_LANE_KERNELS || lane->gpu != fl->gpu)
                continue;
              for (gsize e = 0; e < lane->n_events; e++)
                if (lane->events[e].aux == aux)
                  gpu_time += lane->events[e].end - lane->events[e].start;
            }
          if (n < 6 || f->cost > 0)
            g_test_message ("%s [%s] cost %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " ns: %s",
                            file, rules[r], f->cost, gpu_time, f->summary);
          g_assert_cmpint ((gint64) ev (f, "gpu_ns"), ==, gpu_time);
          g_assert_cmpint (f->cost, >=, 0);
          g_assert_cmpint (f->cost, <=, gpu_time);
          if (strcmp (rules[r], "low_occupancy") == 0)
            {
              g_assert_cmpint (f->cost, ==, (SlTime) ((double) gpu_time
                                                      * ev (f, "estimated_saving")));
              g_assert_true ((f->cost == 0) == (ev (f, "estimated_saving") == 0));
              if (ev (f, "estimated_saving") == 0)
                g_assert_nonnull (strstr (f->summary, "no saving estimated"));
              g_assert_nonnull (strstr (f->advice, "Estimated saving"));
            }
          else
            {
              g_assert_cmpint (f->cost, <=, (SlTime) ev (f, "alone_ns"));
              g_assert_cmpint ((SlTime) ev (f, "alone_ns"), <=, gpu_time);
              g_assert_cmpfloat (ev (f, "waves"), <, max_waves);
            }
          if (sl_kernel_library (sl_trace_str (trace, ki->demangled_name))
              != SL_KERNEL_LIBRARY_NONE)
            {
              g_assert_null (strstr (f->advice, "maxrregcount"));
              g_assert_null (strstr (f->advice, "block size"));
            }
          n++;
        }
    }
  return n;
}

/* On every real trace, nsys and PyTorch's (Kineto), at the default thresholds and with every
 * kernel configuration judged (share and time 0, occupancy below 100 % low, tails under 100
 * waves): the occupancy findings' costs are estimates bounded by their kernels' time. */
static void
test_occupancy_costs_real (void)
{
  static const char *const pytorch[] = {
    "pytorch/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
    "pytorch/trace_filter_sampled_rank-0.json.gz",
    "pytorch/trace_filter_sampled_rank-1.json.gz",
    "pytorch/nccl_parser_config_nccl_data.json.gz",
    "pytorch/ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "pytorch/trace_diff_control_control.json.gz",
  };
  static const char *const all[] = {
    "low_occupancy.share=0", "low_occupancy.time=1ns", "low_occupancy.occupancy=100%",
    "tail_effect.share=0", "tail_effect.time=0ns", "tail_effect.waves=100",
    "tail_effect.fill=100%",
  };
  g_auto (GStrv) nsys = sl_test_nsys_traces ();
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  guint n_default = 0, n_all = 0, n_costly = 0;

  for (guint i = 0; nsys[i] != NULL; i++)
    g_ptr_array_add (files, g_strdup (nsys[i]));
  for (guint i = 0; i < G_N_ELEMENTS (pytorch); i++)
    g_ptr_array_add (files, sl_test_trace_path (pytorch[i]));
  for (guint i = 0; i < files->len; i++)
    {
      const char *file = g_ptr_array_index (files, i);
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (file, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_autoptr (SlAnalyzeParams) params = sl_analyze_params_new ();
      g_autoptr (SlAnalysis) a = NULL, b = NULL;

      g_assert_no_error (error);
      a = sl_analyze (trace, NULL, NULL, &error);
      g_assert_no_error (error);
      n_default += check_occupancy_costs (trace, a, file, 2);
      for (guint k = 0; k < G_N_ELEMENTS (all); k++)
        g_assert_true (sl_analyze_params_set (params, all[k], &error));
      b = sl_analyze (trace, NULL, params, &error);
      g_assert_no_error (error);
      n_all += check_occupancy_costs (trace, b, file, 100);
      for (guint k = 0; k < b->findings->len; k++)
        {
          const SlFinding *f = g_ptr_array_index (b->findings, k);
          n_costly += (strcmp (f->rule->name, "low_occupancy") == 0
                       || strcmp (f->rule->name, "tail_effect") == 0) && f->cost > 0;
        }
    }
  g_test_message ("%u occupancy findings at the defaults, %u with every configuration judged "
                  "(%u with a cost)", n_default, n_all, n_costly);
  /* the properties were tried on something: every kernel configuration of 23 traces */
  g_assert_cmpuint (n_all, >, 100);
  g_assert_cmpuint (n_costly, >, 0);
}

/* The NCCL kernels of a device, [start, end) pairs by start. */
static GArray *
sql_nccl (sqlite3 *db,
          guint32  device)
{
  g_autofree char *q = g_strdup_printf ("SELECT k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
                                        "JOIN StringIds AS n ON n.id = k.demangledName "
                                        "WHERE k.deviceId = %u AND instr(n.value, 'nccl') > 0 "
                                        "ORDER BY 1", device);
  GArray *pairs = g_array_new (FALSE, FALSE, sizeof (gint64));
  sqlite3_stmt *st = NULL;

  g_assert_cmpint (sqlite3_prepare_v2 (db, q, -1, &st, NULL), ==, SQLITE_OK);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      gint64 pair[2] = { sqlite3_column_int64 (st, 0), sqlite3_column_int64 (st, 1) };
      g_array_append_vals (pairs, pair, 2);
    }
  sqlite3_finalize (st);
  return pairs;
}

/* How long `mine`'s collectives wait for `theirs`': each from its start to the start of the first
 * of theirs that starts within it, as [start, end) pairs (not merged); the longest in *longest,
 * its kernel's duration in *longest_op. */
static GArray *
sql_waits (GArray *mine,
           GArray *theirs,
           gint64 *longest,
           gint64 *longest_op)
{
  GArray *waits = g_array_new (FALSE, FALSE, sizeof (gint64));

  *longest = 0;
  for (guint i = 0; i < mine->len / 2; i++)
    {
      gint64 s = g_array_index (mine, gint64, 2 * i), e = g_array_index (mine, gint64, 2 * i + 1);
      for (guint j = 0; j < theirs->len / 2; j++)
        {
          gint64 t = g_array_index (theirs, gint64, 2 * j);
          if (t < s)
            continue;
          if (t < e && t > s)
            {
              gint64 pair[2] = { s, t };
              g_array_append_vals (waits, pair, 2);
              if (t - s > *longest)
                {
                  *longest = t - s;
                  *longest_op = e - s;
                }
            }
          break;
        }
    }
  return waits;
}

/* Issue 28, item 6: an nsys export of a two-rank job (torchrun under nsys; two processes, a GPU
 * each, no RANK recorded, no training steps).  GPU 0 runs 17.2 ms of NCCL SendRecv, GPU 1 8.2 ms:
 * GPU 0's kernels start first and wait for GPU 1's.  The straggler rule names process 145 on GPU
 * 1 as the late one, with each GPU's NCCL time, the waits and the longest one, and what GPU 1 did
 * meanwhile, all against SQL; its cost is the wait, within the trace's span on the two GPUs. */
static void
test_straggler_processes (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-mfu-2gpu.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  const char *const rules[] = { "straggler", NULL };
  g_autoptr (SlAnalysis) a = NULL;
  sqlite3 *db = sl_test_open_db (path);

  g_assert_no_error (error);
  a = sl_analyze (trace, rules, NULL, &error);
  g_assert_no_error (error);
  const SlFinding *f = the_only (a, "straggler");
  g_test_message ("%s", f->summary);
  g_assert_true (g_str_has_prefix (f->summary, "process 144 (GPU 0) waits "));
  g_assert_nonnull (strstr (f->summary, "for process 145 (GPU 1), which reaches them late"));
  g_assert_cmpint (f->gpu, ==, 1);

  /* the oracle: each GPU's NCCL kernels, the waits of each for the other */
  g_autoptr (GArray) nccl0 = sql_nccl (db, 0), nccl1 = sql_nccl (db, 1);
  gint64 longest = 0, longest_op = 0, late_longest = 0, late_longest_op = 0;
  g_autoptr (GArray) waits = sql_waits (nccl0, nccl1, &longest, &longest_op);
  g_autoptr (GArray) late_waits = sql_waits (nccl1, nccl0, &late_longest, &late_longest_op);
  gint64 waited = union_clipped (waits, G_MININT64, G_MAXINT64);
  gint64 late_waited = union_clipped (late_waits, G_MININT64, G_MAXINT64);
  g_test_message ("GPU 0 waits %" G_GINT64_FORMAT " ns (longest %" G_GINT64_FORMAT " ns of %"
                  G_GINT64_FORMAT "), GPU 1 %" G_GINT64_FORMAT " ns", waited, longest, longest_op,
                  late_waited);
  GArray *nccl[2] = { nccl0, nccl1 };
  gint64 nccl_time[2] = { 0, 0 };
  for (guint d = 0; d < 2; d++)
    for (guint i = 0; i < nccl[d]->len / 2; i++)
      nccl_time[d] += g_array_index (nccl[d], gint64, 2 * i + 1) - g_array_index (nccl[d], gint64, 2 * i);
  g_assert_cmpint (ev (f, "comm_ns"), ==, nccl_time[0]);
  g_assert_cmpint (ev (f, "late_comm_ns"), ==, nccl_time[1]);
  g_assert_cmpint (ev (f, "comm_ns"), ==, 17172652);
  g_assert_cmpint (ev (f, "late_comm_ns"), ==, 8229100);
  g_assert_cmpint (ev (f, "comm_by_gpu_ns"), ==, 17172652 + 8229100);
  g_assert_nonnull (strstr (ev_text (f, "comm_by_gpu_ns"), "GPU 0: "));
  g_assert_nonnull (strstr (ev_text (f, "comm_by_gpu_ns"), ", GPU 1: "));
  g_assert_cmpint (ev (f, "wait_ns"), ==, waited);
  g_assert_cmpint (ev (f, "late_wait_ns"), ==, late_waited);
  g_assert_cmpint (ev (f, "longest_wait_ns"), ==, longest);
  g_assert_cmpint (ev (f, "longest_op_ns"), ==, longest_op);
  g_assert_cmpint (waited, >, 2 * late_waited);

  /* what GPU 1 did while GPU 0 waited: busy with any work, brute force over its kernels, copies
   * and sets in each merged wait */
  g_autoptr (GArray) ops1 = sql_ops (db, 1, FALSE);
  g_autoptr (GArray) merged = g_array_new (FALSE, FALSE, sizeof (gint64));
  qsort (waits->data, waits->len / 2, 2 * sizeof (gint64), cmp_pair);
  for (guint i = 0; i < waits->len / 2; i++)
    {
      gint64 *w = &g_array_index (waits, gint64, 2 * i);
      gint64 *last = merged->len > 0 ? &g_array_index (merged, gint64, merged->len - 1) : NULL;
      if (last != NULL && w[0] <= *last)
        *last = MAX (*last, w[1]);
      else
        g_array_append_vals (merged, w, 2);
    }
  gint64 busy = 0;
  for (guint i = 0; i < merged->len / 2; i++)
    busy += union_clipped (ops1, g_array_index (merged, gint64, 2 * i),
                           g_array_index (merged, gint64, 2 * i + 1));
  g_assert_cmpint (ev (f, "late_busy_ns"), ==, busy);
  g_assert_cmpint (ev (f, "late_idle_ns"), ==, waited - busy);

  /* the cost is GPU 0's waiting: within the span on the two GPUs it concerns */
  SlTime span = sl_trace_get_end (trace) - sl_trace_get_start (trace);
  g_assert_cmpint (f->cost, ==, waited);
  g_assert_cmpint (f->cost, <=, 2 * span);
  g_assert_cmpint (f->start, <=, f->end);
  g_assert_cmpuint (f->events->len, >=, 1);

  /* before the first collective, nobody waits: nothing */
  g_autoptr (SlAnalyzeParams) params = sl_analyze_params_new ();
  g_autoptr (SlAnalysis) quiet = NULL;
  gint64 first = MIN (g_array_index (nccl0, gint64, 0), g_array_index (nccl1, gint64, 0));
  sl_analyze_params_set_range (params, sl_trace_get_start (trace), first);
  quiet = sl_analyze (trace, rules, params, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) none = of_rule (quiet, "straggler");
  g_assert_cmpuint (none->len, ==, 0);
  sqlite3_close (db);
}

/* ---- CUDA graphs: sightline-gen --graphs graph|node (issue 30) ------------------------------ */

static gint
cmp_line (gconstpointer a,
          gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The low_occupancy findings of every configuration (thresholds open) of `path`, as "cost
 * summary" lines, sorted. */
static char *
occupancy_lines (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlAnalyzeParams) params = sl_analyze_params_new ();
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_autoptr (SlAnalysis) a = NULL;
  g_autoptr (GPtrArray) found = NULL;
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);

  g_assert_no_error (error);
  g_assert_true (sl_analyze_params_set (params, "low_occupancy.occupancy=1", &error));
  g_assert_true (sl_analyze_params_set (params, "low_occupancy.share=0", &error));
  g_assert_true (sl_analyze_params_set (params, "low_occupancy.time=1ns", &error));
  a = sl_analyze (trace, (const char *const[]) { "low_occupancy", NULL }, params, &error);
  g_assert_no_error (error);
  found = instances_of_rule (a, "low_occupancy");
  for (guint i = 0; i < found->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (found, i);
      g_ptr_array_add (lines, g_strdup_printf ("%" G_GINT64_FORMAT " %s", f->cost, f->summary));
    }
  g_ptr_array_sort (lines, cmp_line);
  g_ptr_array_add (lines, NULL);
  return g_strjoinv ("\n", (char **) lines->pdata);
}

/* A graph's nodes are kernel infos of their own (their graph ids): low_occupancy still judges
 * each launch configuration as one, as for the same kernels launched on their own. */
static void
test_graph_node_configs (void)
{
  g_autofree char *path = trace_path ("graph-node-configs.sqlite");
  g_autofree char *plain = trace_path ("graph-node-configs-plain.sqlite");
  g_auto (SlTestRun) run = { 0 };
  g_autofree char *with_ids = NULL, *without = NULL;
  g_autoptr (GFile) from = g_file_new_for_path (path), to = g_file_new_for_path (plain);

  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "30000", "--seed", "5", "--graphs", "node",
               "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  /* every node of the graph one kernel in one configuration (a captured step of one GEMM), at
   * low occupancy (255 registers a thread), so that it is judged */
  sl_test_exec_sql (path, "CREATE TEMP TABLE one AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL "
                          "WHERE graphId IS NOT NULL LIMIT 1;"
                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET registersPerThread = 255, "
                          "demangledName = (SELECT demangledName FROM one), shortName = (SELECT "
                          "shortName FROM one), mangledName = (SELECT mangledName FROM one), "
                          "gridX = 512, gridY = 1, gridZ = 1, blockX = 128, blockY = 1, "
                          "blockZ = 1, staticSharedMemory = 0, dynamicSharedMemory = 0, "
                          "localMemoryPerThread = 0, localMemoryTotal = 0, "
                          "sharedMemoryExecuted = 0 WHERE graphId IS NOT NULL");
  g_assert_true (g_file_copy (from, to, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, NULL));
  sl_test_exec_sql (plain, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET graphId = NULL, "
                           "graphNodeId = NULL");
  with_ids = occupancy_lines (path);
  without = occupancy_lines (plain);
  g_assert_cmpstr (with_ids, !=, "");
  g_assert_cmpstr (with_ids, ==, without);
}

/* On a generated trace whose optimizer step is one CUDA graph a GPU: each GPU's busy time from
 * analyze is the SQL union of kernels, copies, sets and graph launches (its kernel time that of
 * kernels and graph launches); every GRAPH_TRACE row is loaded; no tiny_kernels finding counts a
 * graph's nodes as launches, and launch_latency judges only a graph's first node. */
static void
test_graphs (void)
{
  static const char *const modes[] = { "graph", "node" };

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autofree char *name = g_strdup_printf ("graphs-%s.sqlite", modes[m]);
      g_autofree char *path = trace_path (name);
      g_auto (SlTestRun) run = { 0 };
      g_autoptr (GError) error = NULL;
      g_autoptr (SlAnalyzeParams) params = sl_analyze_params_new ();
      g_autoptr (SlTrace) trace = NULL;
      g_autoptr (SlAnalysis) a = NULL;
      gboolean graph_mode = m == 0;
      sqlite3 *db;
      gint64 rows, loaded = 0, nodes;

      sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "30000", "--seed", "5", "--gpus", "2",
                   "--graphs", modes[m], "--force", NULL);
      g_assert_cmpint (run.status, ==, 0);
      trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      /* every repeated kernel name is a tiny_kernels group: its count is its host launches */
      g_assert_true (sl_analyze_params_set (params, "tiny_kernels.count=2", &error));
      g_assert_true (sl_analyze_params_set (params, "tiny_kernels.duration=100s", &error));
      a = sl_analyze (trace, NULL, params, &error);
      g_assert_no_error (error);
      db = sl_test_open_db (path);

      /* graph mode: every row loaded, on its stream's lane of graph launches */
      rows = graph_mode ? sl_test_sql_int (db, "SELECT count(*) FROM "
                                               "CUPTI_ACTIVITY_KIND_GRAPH_TRACE") : 0;
      for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, i);
          if (lane->kind != SL_LANE_GRAPHS)
            continue;
          loaded += lane->n_events;
          for (gsize e = 0; e < lane->n_events; e++)
            {
              /* linked to its cudaGraphLaunch */
              const SlLane *al;
              gsize ai;
              g_assert_true (sl_trace_resolve (trace, lane->events[e].link, &al, &ai));
              g_assert_cmpint (al->kind, ==, SL_LANE_CUDA_API);
              g_assert_nonnull (strstr (sl_trace_str (trace, al->events[ai].name),
                                        "cudaGraphLaunch"));
            }
        }
      g_assert_cmpint (loaded, ==, rows);
      if (graph_mode)
        {
          /* and so `info --format json` says: loaded = rows */
          SlInventory *inv = sl_inventory_new (trace, &error);
          const SlTableInfo *ti;
          g_assert_no_error (error);
          ti = sl_inventory_find_table (inv, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE");
          g_assert_nonnull (ti);
          g_assert_cmpint (ti->state, ==, SL_TABLE_LOADED);
          g_assert_cmpint (ti->rows, ==, rows);
          g_assert_cmpint (ti->loaded, ==, rows);
          sl_inventory_free (inv);
          g_assert_cmpint (rows, >, 10);
        }
      nodes = sl_test_sql_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                                   "WHERE graphId IS NOT NULL");
      g_assert_cmpint (nodes > 0, ==, !graph_mode);

      /* busy time: the SQL union of kernels, copies, sets and graph launches */
      g_assert_cmpuint (a->gpu_times->len, ==, 2);
      for (guint g = 0; g < a->gpu_times->len; g++)
        {
          const SlGpuTime *t = &g_array_index (a->gpu_times, SlGpuTime, g);
          g_autoptr (GArray) busy = sql_ops (db, t->device_id, FALSE);
          g_autoptr (GArray) kern = sql_ops (db, t->device_id, TRUE);
          gint64 want = union_clipped (busy, t->start, t->end);
          g_assert_cmpint (t->kernels + t->copies + t->sets, ==, want);
          g_assert_cmpint (t->idle, ==, (t->end - t->start) - want);
          g_assert_cmpint (t->kernels, ==, union_clipped (kern, t->start, t->end));
        }

      /* tiny_kernels: a name's count is its kernels launched on their own, never graph nodes */
      {
        g_autoptr (GPtrArray) tiny = instances_of_rule (a, "tiny_kernels");
        guint with_nodes = 0;
        g_assert_cmpuint (tiny->len, >, 0);
        for (guint i = 0; i < tiny->len; i++)
          {
            const SlFinding *f = g_ptr_array_index (tiny, i);
            const SlFindingEvent *fe = &g_array_index (f->events, SlFindingEvent, 0);
            const SlEvent *kev = &sl_trace_get_lane (trace, fe->lane)->events[fe->index];
            const SlKernelInfo *info = sl_trace_get_kernel_info (trace, kev->aux);
            g_autofree char *q = NULL;
            g_assert_cmpint (sl_trace_get_lane (trace, fe->lane)->kind, ==, SL_LANE_KERNELS);
            g_assert_cmpuint (info->graph_id, ==, 0);
            q = g_strdup_printf ("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                                 "StringIds s ON s.id = k.demangledName WHERE k.deviceId = %d "
                                 "AND s.value = '%s' AND k.graphId IS NULL",
                                 f->gpu, sl_trace_str (trace, info->demangled_name));
            g_assert_cmpint ((gint64) ev (f, "count"), ==, sl_test_sql_int (db, q));
            g_free (q);
            q = g_strdup_printf ("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                                 "StringIds s ON s.id = k.demangledName WHERE k.deviceId = %d "
                                 "AND s.value = '%s' AND k.graphId IS NOT NULL",
                                 f->gpu, sl_trace_str (trace, info->demangled_name));
            with_nodes += sl_test_sql_int (db, q) > 0;
          }
        /* the test means something: some names run both alone and as graph nodes */
        g_assert_cmpuint (with_nodes > 0, ==, !graph_mode);
      }

      /* launch_latency: a graph's later nodes wait for its earlier ones, not for their launch */
      {
        g_autoptr (GPtrArray) late = instances_of_rule (a, "launch_latency");
        for (guint i = 0; i < late->len; i++)
          {
            const SlFinding *f = g_ptr_array_index (late, i);
            for (guint k = 0; k < f->events->len; k++)
              {
                const SlFindingEvent *fe = &g_array_index (f->events, SlFindingEvent, k);
                const SlLane *lane = sl_trace_get_lane (trace, fe->lane);
                const SlKernelInfo *info;
                if (lane->kind != SL_LANE_KERNELS)
                  continue;
                info = sl_trace_get_kernel_info (trace, lane->events[fe->index].aux);
                if (info->graph_id != 0)
                  g_assert_cmpuint (info->graph_node_id & 0xFFFFFFFFu, ==, 1);
              }
          }
      }

      /* no advice to capture in a graph what a graph launch already runs */
      for (guint i = 0; i < a->findings->len; i++)
        {
          const SlFinding *f = g_ptr_array_index (a->findings, i);
          if (f->summary != NULL && strstr (f->summary, "cudaGraphLaunch") != NULL)
            g_assert_null (f->advice != NULL ? strstr (f->advice, "CUDA Graphs)") : NULL);
        }
      sqlite3_close (db);
    }
}

/* GPU memory (issue 31): a loop that allocates and frees a workspace each step is churn costing
 * the host time of those calls, on its thread; a cache that grows by 64 MiB a step and is never
 * freed is growth; filling 95 % of the H100's memory is a peak near full.  A trace allocating only
 * at start-up and freeing at teardown has no churn. */
static void
test_memory (void)
{
  g_autofree char *path = trace_path ("memory.sqlite");
  Plant *p = plant_new (path);
  PlantConfig config = { 132, 256, 32, 0 };
  g_autoptr (GString) rows = g_string_new (NULL);
  const gint64 gpid = (gint64) SL_GLOBAL_PID (1, 100), big = 80LL << 30, step_bytes = 64LL << 20;
  gint64 t = 10 * PLANT_MS, churn_time = 0;
  guint64 address = 0x7f0000000000;

  /* start-up: one big allocation (80 GiB of the 79.6 GiB H100: near full from the start) */
  gint64 corr = plant_api (p, PLANT_MAIN, "cudaMalloc", t, t + 2 * PLANT_MS);
  g_string_append_printf (rows, "(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 0, 1, %"
                                G_GUINT64_FORMAT ", 0, %" G_GINT64_FORMAT ", 2, 0, NULL, %"
                                G_GINT64_FORMAT ")", t + PLANT_MS, gpid, address, big / 20 * 19,
                          corr);
  address += 1ULL << 40;
  t += 10 * PLANT_MS;
  for (guint i = 0; i < 100; i++)
    {
      gint64 a = plant_api (p, PLANT_MAIN, "cudaMalloc", t, t + 100 * PLANT_US);
      plant_kernel (p, "step_kernel", &config, t + 200 * PLANT_US, t + 800 * PLANT_US,
                    plant_api (p, PLANT_MAIN, "cudaLaunchKernel", t + 110 * PLANT_US,
                               t + 120 * PLANT_US));
      gint64 f = plant_api (p, PLANT_MAIN, "cudaFree", t + 900 * PLANT_US, t + 1000 * PLANT_US);
      gint64 c = plant_api (p, PLANT_MAIN, "cudaMalloc", t + 1010 * PLANT_US,
                            t + 1020 * PLANT_US);
      churn_time += 100 * PLANT_US + 100 * PLANT_US + 10 * PLANT_US;
      /* the workspace, allocated and freed; the cache block, never freed */
      g_string_append_printf (rows, ", (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 0, 1, %"
                                    G_GUINT64_FORMAT ", 0, 1048576, 2, 0, NULL, %" G_GINT64_FORMAT
                                    "), (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 0, 1, %"
                                    G_GUINT64_FORMAT ", 0, 1048576, 2, 1, NULL, %" G_GINT64_FORMAT
                                    "), (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 0, 1, %"
                                    G_GUINT64_FORMAT ", 0, %" G_GINT64_FORMAT ", 2, 0, NULL, %"
                                    G_GINT64_FORMAT ")",
                              t + 50 * PLANT_US, gpid, address, a, t + 950 * PLANT_US, gpid,
                              address, f, t + 1015 * PLANT_US, gpid,
                              address + 4096 + i * step_bytes, step_bytes, c);
      t += 2 * PLANT_MS;
    }
  plant_finish (p);
  {
    g_autofree char *sql = g_strdup_printf ("%s; INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS (start, "
                                            "globalPid, deviceId, contextId, address, pc, bytes, "
                                            "memKind, memoryOperationType, name, correlationId) "
                                            "VALUES %s;", SL_SCHEMA_CUDA_GPU_MEMORY_USAGE_SQL,
                                            rows->str);
    plant_sql (path, sql);
  }

  SlTrace *trace;
  g_autoptr (SlAnalysis) a = analyze (path, &trace);
  g_autoptr (SlTrace) owned = trace;

  const SlFinding *churn = the_only (a, "memory_churn");
  g_assert_cmpint (churn->thread, >=, 0);
  g_assert_cmpuint (sl_trace_get_thread (trace, (guint) churn->thread)->tid, ==, PLANT_MAIN);
  /* the calls past the first tenth of the trace: its 300 calls less those before */
  g_assert_cmpint ((gint64) ev (churn, "calls"), >, 250);
  g_assert_cmpint ((gint64) ev (churn, "calls"), <=, 300);
  g_assert_cmpint (churn->cost, ==, (gint64) ev (churn, "call_ns"));
  g_assert_cmpint (churn->cost, <=, churn_time);
  g_assert_cmpint (churn->cost, >=, churn_time * 8 / 10);

  const SlFinding *growth = the_only (a, "memory_growth");
  g_assert_cmpint (growth->gpu, ==, 0);
  g_assert_cmpint (growth->cost, ==, 0);
  g_assert_cmpint ((gint64) ev (growth, "never_freed"), >=, 80);
  /* what stays less what was in use then (a workspace of 1 MiB, if it was live) */
  gint64 stays = (gint64) ev (growth, "never_freed") * step_bytes;
  g_assert_cmpint ((gint64) ev (growth, "grew_bytes"), <=, stays);
  g_assert_cmpint ((gint64) ev (growth, "grew_bytes"), >=, stays - (1 << 20));

  const SlFinding *peak = the_only (a, "memory_peak");
  g_assert_cmpint (peak->gpu, ==, 0);
  g_assert_cmpint ((gint64) ev (peak, "peak_bytes"), ==, big / 20 * 19 + 100 * step_bytes);
  g_assert_cmpint ((gint64) ev (peak, "total_bytes"), ==, 85520809984);
  g_assert_cmpfloat (ev (peak, "peak_share"), >, 0.9);

  /* without the loop's frees and growth: allocations at start-up and teardown only are no churn,
   * memory that does not grow no growth */
  g_autofree char *still = trace_path ("memory-still.sqlite");
  Plant *q = plant_new (still);
  t = 10 * PLANT_MS;
  for (guint i = 0; i < 60; i++)
    plant_api (q, PLANT_MAIN, "cudaMalloc", t + i * 100 * PLANT_US,
               t + i * 100 * PLANT_US + 90 * PLANT_US);
  for (guint i = 0; i < 100; i++)
    plant_kernel (q, "step_kernel", &config, 50 * PLANT_MS + i * 2 * PLANT_MS,
                  50 * PLANT_MS + i * 2 * PLANT_MS + PLANT_MS,
                  plant_api (q, PLANT_MAIN, "cudaLaunchKernel", 49 * PLANT_MS + i * 2 * PLANT_MS,
                             49 * PLANT_MS + i * 2 * PLANT_MS + 10 * PLANT_US));
  for (guint i = 0; i < 60; i++)
    plant_api (q, PLANT_MAIN, "cudaFree", 260 * PLANT_MS + i * 100 * PLANT_US,
               260 * PLANT_MS + i * 100 * PLANT_US + 90 * PLANT_US);
  plant_finish (q);
  SlTrace *trace2;
  g_autoptr (SlAnalysis) b = analyze (still, &trace2);
  g_autoptr (SlTrace) owned2 = trace2;
  g_autoptr (GPtrArray) none = of_rule (b, "memory_churn");
  g_assert_cmpuint (none->len, ==, 0);
  g_autoptr (GPtrArray) none2 = of_rule (b, "memory_growth");
  g_assert_cmpuint (none2->len, ==, 0);
}

/* Unified memory (issue 31, item 2): a GPU busy mostly migrating pages on faults before each of
 * its kernels: the um_migrations finding is the first, its cost the fault-driven migrations'
 * time, its causes the trace's labels; prefetches alone make no finding. */
static void
test_um_migrations (void)
{
  g_autofree char *path = trace_path ("um.sqlite");
  Plant *p = plant_new (path);
  PlantConfig config = { 132, 256, 32, 0 };
  gint64 t = 10 * PLANT_MS;

  for (guint i = 0; i < 100; i++)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel", t, t + 10 * PLANT_US);
      /* a prefetch asked for (0.5 ms), then faults (7 ms) the kernel waits for */
      plant_memcpy (p, 11, 7, 7, 1 << 20, t + 20 * PLANT_US, t + 520 * PLANT_US, 0);
      plant_memcpy (p, 11, 7, 7, 8 << 20, t + 600 * PLANT_US, t + 7600 * PLANT_US, 0);
      plant_kernel (p, "touch_managed", &config, t + 7700 * PLANT_US, t + 8500 * PLANT_US, corr);
      t += 9 * PLANT_MS;
    }
  plant_finish (p);
  plant_sql (path, "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET migrationCause = "
                   "CASE WHEN end - start > 1000000 THEN 2 ELSE 1 END;");
  /* the faults of every fourth step (i = 3, 7 … 99: start / 9 ms = i + 1) in one 2 MiB region,
   * the others in the region below it */
  plant_sql (path, "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET virtualAddress = "
                   "CASE WHEN (start / 9000000) % 4 = 0 THEN 139637979037696 "
                   "ELSE 139637976731648 END;");   /* 0x7f0000234000, 0x7f0000001000 */

  SlTrace *trace;
  g_autoptr (SlAnalysis) a = analyze (path, &trace);
  g_autoptr (SlTrace) owned = trace;
  const SlFinding *first = g_ptr_array_index (a->findings, 0);
  g_assert_cmpstr (first->rule->name, ==, "um_migrations");
  const SlFinding *f = the_only (a, "um_migrations");
  g_assert_cmpint (f->gpu, ==, 0);
  g_assert_cmpint (f->cost, ==, 100 * 7 * PLANT_MS);
  g_assert_cmpint ((gint64) ev (f, "migration_ns"), ==, 100 * (7 * PLANT_MS + 500 * PLANT_US));
  g_assert_cmpint ((gint64) ev (f, "migration_ns_by_cause.Page fault"), ==, 100 * 7 * PLANT_MS);
  g_assert_cmpint ((gint64) ev (f, "migration_ns_by_cause.User prefetch"), ==,
                   100 * 500 * PLANT_US);
  g_assert_cmpint ((gint64) ev (f, "migrations"), ==, 200);
  g_assert_cmpint ((gint64) ev (f, "fault_migrations"), ==, 100);
  /* the regions the faults took their time in, the hottest first */
  g_assert_cmpint ((gint64) ev (f, "fault_regions"), ==, 2);
  g_assert_cmpint ((gint64) ev (f, "hottest_regions.0x7f0000000000"), ==, 75 * 7 * PLANT_MS);
  g_assert_cmpint ((gint64) ev (f, "hottest_regions.0x7f0000200000"), ==, 25 * 7 * PLANT_MS);
  /* in JSON, the causes are an object keyed by the trace's labels */
  {
    g_autofree char *json = sl_analysis_to_json (a, trace);
    g_assert_nonnull (strstr (json, "\"migration_ns_by_cause\": {\"User prefetch\": 50000000, "
                                    "\"Page fault\": 700000000}"));
    g_assert_nonnull (strstr (json, "\"hottest_regions\": {\"0x7f0000000000\": 525000000, "
                                    "\"0x7f0000200000\": 175000000}"));
  }

  /* the same with prefetches only: no finding */
  plant_sql (path, "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET migrationCause = 1;");
  SlTrace *trace2;
  g_autoptr (SlAnalysis) b = analyze (path, &trace2);
  g_autoptr (SlTrace) owned2 = trace2;
  g_autoptr (GPtrArray) none = of_rule (b, "um_migrations");
  g_assert_cmpuint (none->len, ==, 0);
}

/* GPU metrics planted on GPU 0 every 100 µs (nsys's 10 kHz): SMs Active 90 %, warps in flight
 * 45 % while nothing listed runs through a whole sample, and over the samples wholly inside a
 * run of `low_name` (or of NCCL's kernel, always) `low_sm` and `low_warps` (unallocated: the
 * difference). */
static void
plant_metrics (const char *path,
               gint        low_sm,
               gint        low_warps)
{
  g_autofree char *sql = g_strdup_printf (
    "CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL, "
    "  typeName TEXT NOT NULL, metricId INTEGER NOT NULL, metricName TEXT NOT NULL);"
    "CREATE TABLE GPU_METRICS (rawTimestamp INTEGER NOT NULL, timestamp INTEGER NOT NULL, "
    "  typeId INTEGER NOT NULL, metricId INTEGER NOT NULL, value INTEGER NOT NULL);"
    "INSERT INTO TARGET_INFO_GPU_METRICS VALUES "
    "  (281483566645504, 2, 'GPU 0: GH100', 5, '%s'), "
    "  (281483566645504, 2, 'GPU 0: GH100', 8, '%s'), "
    "  (281483566645504, 2, 'GPU 0: GH100', 9, '%s');"
    "WITH RECURSIVE ts(t) AS (SELECT MIN(start) - 1000000 FROM CUPTI_ACTIVITY_KIND_KERNEL "
    "  UNION ALL SELECT t + 100000 FROM ts "
    "  WHERE t < (SELECT MAX(end) + 1000000 FROM CUPTI_ACTIVITY_KIND_KERNEL)), "
    "low(s, e, sm, w) AS (SELECT k.start, k.end, "
    "  CASE WHEN n.value LIKE 'nccl%%' THEN 10 ELSE %d END, "
    "  CASE WHEN n.value LIKE 'nccl%%' THEN 2 ELSE %d END "
    "  FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS n ON n.id = k.demangledName "
    "  WHERE n.value IN ('stencil_uneven', 'ncclDevKernel_AllReduce_Sum_f32_RING_LL')), "
    "v AS (SELECT t, COALESCE((SELECT sm FROM low WHERE s <= t AND e >= t + 100000), 90) AS sm, "
    "  COALESCE((SELECT w FROM low WHERE s <= t AND e >= t + 100000), 45) AS w FROM ts) "
    "INSERT INTO GPU_METRICS SELECT t, t, 281483566645504, 5, sm FROM v "
    "  UNION ALL SELECT t, t, 281483566645504, 8, w FROM v "
    "  UNION ALL SELECT t, t, 281483566645504, 9, sm - w FROM v;",
    SL_METRIC_SMS_ACTIVE, SL_METRIC_WARPS_IN_FLIGHT, SL_METRIC_UNALLOCATED, low_sm, low_warps);
  plant_sql (path, sql);
}

/* 100 runs of 2 ms of a user's kernel of `grid` blocks of 256 threads (1056: 8 a SM on 132, one
 * whole wave at 100 % theoretical occupancy) and 100 of an NCCL kernel, between two healthy
 * stretches; GPU metrics as plant_metrics gives them. */
static char *
plant_sm_activity (const char *name,
                   gint        low_sm,
                   gint        low_warps,
                   guint       grid)
{
  char *path = trace_path (name);
  Plant *p = plant_new (path);
  const PlantConfig full_wave = { grid, 256, 32, 0 }, nccl = { 16, 512, 96, 0 };
  gint64 t = clean_stretch (p, 10 * MS, 100 * MS);

  for (guint i = 0; i < 200; i++)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 5 * US);
      gint64 start = MAX (t + 8 * US, plant_gpu_free (p));
      plant_kernel (p, i % 2 ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL" : "stencil_uneven",
                    i % 2 ? &nccl : &full_wave, start, start + 2 * MS, corr);
      t += 2 * MS + 20 * US;
    }
  clean_stretch (p, t, 100 * MS);
  plant_finish (p);
  plant_metrics (path, low_sm, low_warps);
  return path;
}

/* low_sm_activity: a user's kernel with its SMs idle 70 % of its runs is found, with the
 * metrics, its theoretical occupancy and the SM time it leaves idle; not when its SMs are busy,
 * never for NCCL's kernel (its few blocks are by design), never on a generated trace whose
 * samples are the GPU's share of busy time, nor on the real traces (no GPU metrics). */
static void
test_low_sm_activity (void)
{
  {
    g_autofree char *path = plant_sm_activity ("sm-activity-low.sqlite", 30, 6, 1056);
    g_autoptr (SlTrace) trace = NULL;
    g_autoptr (SlAnalysis) a = analyze (path, &trace);
    const SlFinding *f = the_only (a, "low_sm_activity");

    g_assert_nonnull (strstr (f->summary, "stencil_uneven"));
    g_assert_nonnull (strstr (f->summary, "SMs active 30% of the time, achieved occupancy 20%"));
    /* every sample wholly inside a run is the planted one */
    g_assert_cmpfloat_with_epsilon (ev (f, "sm_active"), 0.30, 1e-12);
    g_assert_cmpfloat_with_epsilon (ev (f, "achieved_occupancy"), 0.20, 1e-12);
    g_assert_cmpfloat_with_epsilon (ev (f, "occupancy"), 1.0, 1e-12);
    g_assert_cmpstr (ev_text (f, "limit"), ==, "warps");
    g_assert_cmpuint ((guint) ev (f, "count"), ==, 100);
    g_assert_cmpint ((gint64) ev (f, "gpu_ns"), ==, 200 * MS);
    g_assert_cmpfloat (ev (f, "gpu_busy_share"), >, 0.2);
    /* samples wholly inside each 2 ms run: 19 or 20 of 100 µs */
    g_assert_cmpfloat (ev (f, "judged_share"), >=, 0.95);
    /* a whole wave: no tail, no low theoretical occupancy: the estimate is all its own */
    g_assert_cmpint (f->cost, ==, (SlTime) (200.0 * MS * (1.0 - 0.30)));
    g_assert_nonnull (strstr (f->advice, "Balance the work per block"));
    for (guint i = 0; i < a->summaries->len; i++)
      {
        const SlRuleSummary *s = &g_array_index (a->summaries, SlRuleSummary, i);
        if (strcmp (s->rule->name, "low_sm_activity") == 0)
          g_assert_nonnull (strstr (s->note, "1 library kernel name left out"));
      }

    /* the threshold is a parameter: at 25 % SMs active and 10 % occupancy it is not low */
    g_autoptr (SlAnalyzeParams) params = sl_analyze_params_new ();
    g_autoptr (GError) error = NULL;
    const char *only[] = { "low_sm_activity", NULL };
    g_assert_true (sl_analyze_params_set (params, "low_sm_activity.sm_active=25%", &error));
    g_assert_true (sl_analyze_params_set (params, "low_sm_activity.occupancy=10%", &error));
    g_autoptr (SlAnalysis) b = sl_analyze (trace, only, params, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (b->findings->len, ==, 0);
  }
  {
    /* SMs busy, warps few: found, but not priced */
    g_autofree char *path = plant_sm_activity ("sm-activity-warps.sqlite", 90, 9, 1056);
    g_autoptr (SlTrace) trace = NULL;
    g_autoptr (SlAnalysis) a = analyze (path, &trace);
    const SlFinding *f = the_only (a, "low_sm_activity");
    g_assert_cmpfloat_with_epsilon (ev (f, "achieved_occupancy"), 0.10, 1e-12);
    g_assert_cmpint (f->cost, ==, 0);
    g_assert_nonnull (strstr (f->summary, "no saving estimated"));
  }
  {
    /* a grid of 16 blocks: tail_effect prices the 116 SMs it leaves idle; this rule adds only
     * what its SMs Active says beyond that (10 %: 180 ms of 200, tail_effect 175.8 ms) */
    g_autofree char *path = plant_sm_activity ("sm-activity-grid.sqlite", 10, 2, 16);
    g_autoptr (SlTrace) trace = NULL;
    g_autoptr (SlAnalysis) a = analyze (path, &trace);
    const SlFinding *f = the_only (a, "low_sm_activity");
    const SlFinding *tail = NULL;
    g_autoptr (GPtrArray) tails = of_rule (a, "tail_effect");
    for (guint i = 0; i < tails->len; i++)
      if (strstr (((const SlFinding *) g_ptr_array_index (tails, i))->summary, "stencil_uneven"))
        tail = g_ptr_array_index (tails, i);
    g_assert_nonnull (tail);
    g_assert_cmpint ((gint64) ev (f, "estimated_ns"), ==, (SlTime) (200.0 * MS * (1.0 - 0.10)));
    g_assert_cmpint ((gint64) ev (f, "other_findings_ns"), ==, tail->cost);
    g_assert_cmpint (tail->cost, >, 0);
    g_assert_cmpint (f->cost, ==, (gint64) ev (f, "estimated_ns") - tail->cost);
    g_assert_nonnull (strstr (f->advice, "Its grid of 16 blocks gives work to at most 16 of the "
                                         "GPU's 132 SMs"));
    /* at 30 % SMs active (140 ms) tail_effect's estimate holds it all */
    g_autofree char *thirty = plant_sm_activity ("sm-activity-grid-30.sqlite", 30, 6, 16);
    g_autoptr (SlTrace) trace30 = NULL;
    g_autoptr (SlAnalysis) a30 = analyze (thirty, &trace30);
    const SlFinding *f30 = the_only (a30, "low_sm_activity");
    g_assert_cmpint (f30->cost, ==, 0);
    g_assert_nonnull (strstr (f30->summary, "no saving beyond what tail_effect"));
  }
  {
    g_autofree char *path = plant_sm_activity ("sm-activity-high.sqlite", 90, 45, 1056);
    g_autoptr (SlTrace) trace = NULL;
    g_autoptr (SlAnalysis) a = analyze (path, &trace);
    g_autoptr (GPtrArray) found = of_rule (a, "low_sm_activity");
    g_assert_cmpuint (found->len, ==, 0);
  }
  {
    /* generated: kernels' samples are the GPU's busy share × 86–96 % SMs active */
    g_autofree char *path = trace_path ("sm-activity-gen.sqlite");
    g_auto (SlTestRun) run = { 0 };
    sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "30000", "--seed", "3", "--gpus", "2",
                 "--gpu-metrics", "--force", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_autoptr (SlTrace) trace = NULL;
    g_autoptr (SlAnalysis) a = analyze (path, &trace);
    g_autoptr (GPtrArray) found = of_rule (a, "low_sm_activity");
    for (guint i = 0; i < found->len; i++)
      g_test_message ("generated: %s",
                      ((const SlFinding *) g_ptr_array_index (found, i))->summary);
    g_assert_cmpuint (found->len, ==, 0);
  }
  {
    g_auto (GStrv) files = sl_test_nsys_traces ();
    const char *only[] = { "low_sm_activity", NULL };
    for (guint i = 0; files[i] != NULL; i++)
      {
        g_autoptr (GError) error = NULL;
        g_autoptr (SlTrace) trace = sl_trace_load (files[i], SL_LOAD_ALL, NULL, NULL, NULL,
                                                   &error);
        g_assert_no_error (error);
        g_autoptr (SlAnalysis) a = sl_analyze (trace, only, NULL, &error);
        g_assert_no_error (error);
        g_assert_cmpuint (a->findings->len, ==, 0);
        const SlRuleSummary *s = &g_array_index (a->summaries, SlRuleSummary, 0);
        g_assert_nonnull (strstr (s->note, sl_trace_get_n_gpus (trace) > 0 ? "no GPU metrics"
                                                                           : "GPU"));
      }
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analyze/clean", test_clean);
  g_test_add_func ("/analyze/gap-read", test_gap_read);
  g_test_add_func ("/analyze/gap-two-launchers", test_gap_two_launchers);
  g_test_add_func ("/analyze/gpu-ids", test_gpu_ids);
  g_test_add_func ("/analyze/grouped", test_grouped);
  g_test_add_func ("/analyze/no-cuda", test_no_cuda);
  g_test_add_func ("/analyze/pageable", test_pageable);
  g_test_add_func ("/analyze/tiny-kernels", test_tiny_kernels);
  g_test_add_func ("/analyze/low-occupancy", test_low_occupancy);
  g_test_add_func ("/analyze/sync-every-step", test_sync_every_step);
  g_test_add_func ("/analyze/sync-call-site", test_sync_call_site);
  g_test_add_func ("/analyze/copy-call-site", test_copy_call_site);
  g_test_add_func ("/analyze/loader-bound", test_loader_bound);
  g_test_add_func ("/analyze/cpu-bound-no-evidence", test_cpu_bound_no_evidence);
  g_test_add_func ("/analyze/cpu-bound-sync-not-busy", test_cpu_bound_sync_not_busy);
  g_test_add_func ("/analyze/cpu-bound-long-kernels", test_cpu_bound_long_kernels);
  g_test_add_func ("/analyze/cpu-bound-python", test_cpu_bound_python);
  g_test_add_func ("/analyze/cpu-bound-states", test_cpu_bound_states);
  g_test_add_func ("/analyze/gap-python", test_gap_python);
  g_test_add_func ("/analyze/dataloader", test_dataloader);
  g_test_add_func ("/analyze/launch-latency", test_launch_latency);
  g_test_add_func ("/analyze/params", test_params);
  g_test_add_func ("/analyze/real-traces", test_real_traces);
  g_test_add_func ("/analyze/accounts-real", test_accounts_real);
  g_test_add_func ("/analyze/idle-cases", test_idle_cases);
  g_test_add_func ("/analyze/median", test_median);
  g_test_add_func ("/analyze/sort-by-start", test_sort_by_start);
  g_test_add_func ("/analyze/diagnostics-merged", test_diagnostics_merged);
  g_test_add_func ("/analyze/merged-ranks", test_merged_ranks);
  g_test_add_func ("/analyze/absurd-times", test_absurd_times);
  g_test_add_func ("/analyze/range", test_range);
  g_test_add_func ("/analyze/range-cli", test_range_cli);
  g_test_add_func ("/analyze/occupancy-library", test_occupancy_library);
  g_test_add_func ("/analyze/tail-effect", test_tail_effect);
  g_test_add_func ("/analyze/occupancy-costs-real", test_occupancy_costs_real);
  g_test_add_func ("/analyze/straggler-processes", test_straggler_processes);
  g_test_add_func ("/analyze/graphs", test_graphs);
  g_test_add_func ("/analyze/graph-node-configs", test_graph_node_configs);
  g_test_add_func ("/analyze/memory", test_memory);
  g_test_add_func ("/analyze/um-migrations", test_um_migrations);
  g_test_add_func ("/analyze/low-sm-activity", test_low_sm_activity);
  return g_test_run ();
}
