/* sl-fuzz.c: the scratch folder and the trace exerciser of the fuzz targets (sl-fuzz.h). */
#include "sl-fuzz.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sl-analyze.h"
#include "sl-calltree.h"
#include "sl-export.h"
#include "sl-stats.h"
#include "sl-summaries.h"
#include "sl-trace.h"

static char *scratch;

static void
remove_scratch (void)
{
  if (scratch == NULL)
    return;
  g_autoptr (GDir) dir = g_dir_open (scratch, 0, NULL);
  const char *name;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (scratch, name, NULL);
      g_unlink (path);
    }
  g_rmdir (scratch);
}

static void
quiet_log_cb (const char     *domain,
              GLogLevelFlags  level,
              const char     *message,
              gpointer        data)
{
  (void) domain;
  (void) data;
  /* a critical is a failed precondition: the fuzzer found a bug even when nothing crashed */
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR))
    {
      fprintf (stderr, "sl-fuzz: GLib critical: %s\n", message);
      abort ();
    }
}

void
sl_fuzz_init (void)
{
  GError *error = NULL;

  if (scratch != NULL)
    return;
  g_log_set_default_handler (quiet_log_cb, NULL);
  /* a slow input would otherwise leave its model in the user's cache (sl-trace-cache.c) */
  g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
  /* tmpfs when there is one: every input writes a file */
  const char *base = g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR) ? "/dev/shm" : g_get_tmp_dir ();
  g_autofree char *tmpl = g_build_filename (base, "sl-fuzz-XXXXXX", NULL);
  scratch = g_mkdtemp (g_steal_pointer (&tmpl));
  if (scratch == NULL)
    {
      fprintf (stderr, "sl-fuzz: cannot make a scratch folder in %s: %s\n", base,
               error != NULL ? error->message : g_strerror (errno));
      abort ();
    }
  atexit (remove_scratch);
}

const char *
sl_fuzz_path (const char *name)
{
  /* a few names per target, kept for the process's life */
  static GHashTable *paths;
  if (paths == NULL)
    paths = g_hash_table_new (g_str_hash, g_str_equal);
  const char *path = g_hash_table_lookup (paths, name);
  if (path == NULL)
    {
      char *p = g_build_filename (scratch, name, NULL);
      g_hash_table_insert (paths, g_strdup (name), p);
      path = p;
    }
  return path;
}

void
sl_fuzz_write_file (const char *path,
                    const void *data,
                    size_t      size)
{
  FILE *f = fopen (path, "wb");
  if (f == NULL || (size > 0 && fwrite (data, 1, size, f) != size) || fclose (f) != 0)
    {
      fprintf (stderr, "sl-fuzz: cannot write %s\n", path);
      abort ();
    }
}

const char *
sl_fuzz_traces_dir (void)
{
  const char *env = g_getenv ("SL_FUZZ_TRACES");
  return env != NULL && *env != '\0' ? env : SL_TRACES_DIR;
}

/* Every report over [t0, t1), written when `write`: the per-event ones only up to 1,000 rows
 * (their writing is the same for every row, and under ASan ten thousand rows cost a second) */
static void
exercise_reports (SlTrace  *trace,
                  SlTime    t0,
                  SlTime    t1,
                  gboolean  write)
{
  for (const char *const *name = sl_report_names (); *name != NULL; name++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlReport) report = sl_report_compute_range (trace, *name, t0, t1, &error);
      if (report == NULL || !write
          || (sl_report_is_per_event (*name) && sl_report_get_n_rows (report) > 1000))
        continue;
      g_autoptr (GString) out = g_string_new (NULL);
      sl_report_write (report, SL_REPORT_FORMAT_COLUMN, out);
      sl_report_write (report, SL_REPORT_FORMAT_JSON, out);
    }
}

/* SL_FUZZ_VERBOSE=1: the time each part took since the last call (where an input's time goes) */
static void
phase (const char *done)
{
  static gint64 last;
  gint64 now = g_get_monotonic_time ();
  if (done != NULL && g_getenv ("SL_FUZZ_VERBOSE") != NULL)
    fprintf (stderr, "sl-fuzz:   %-10s %8.1f ms\n", done, (double) (now - last) / 1000.0);
  last = now;
}

void
sl_fuzz_exercise (SlTrace *trace)
{
  SlTime start = sl_trace_get_start (trace), end = sl_trace_get_end (trace);

  phase (NULL);
  exercise_reports (trace, G_MININT64, G_MAXINT64, TRUE);
  /* a range: the middle half, with its clipping and binary searches */
  SlTime quarter = (SlTime) (((double) end - (double) start) / 4.0);
  exercise_reports (trace, start + quarter, end - quarter, FALSE);
  phase ("reports");

  g_autoptr (GError) error = NULL;
  g_autoptr (SlAnalyzeParams) params = sl_analyze_params_new ();
  g_autoptr (SlAnalysis) analysis = sl_analyze (trace, NULL, params, &error);
  if (analysis != NULL)
    {
      g_free (sl_analysis_to_text (analysis, trace));
      g_free (sl_analysis_to_json (analysis, trace));
      SlRankSummary summary = { 0 };
      sl_rank_summary_compute (&summary, trace, analysis);
      g_autoptr (GArray) ranks = g_array_new (FALSE, TRUE, sizeof (SlRankSummary));
      g_array_set_clear_func (ranks, (GDestroyNotify) sl_rank_summary_clear);
      g_array_append_val (ranks, summary);
      const char *key = sl_summaries_rank (ranks);
      FILE *null = fopen ("/dev/null", "w");
      if (null != NULL)
        {
          sl_summaries_write (ranks, key, SL_SUMMARIES_JSON, null);
          fclose (null);
        }
    }
  g_clear_error (&error);
  if (end - quarter > start + quarter)
    {
      sl_analyze_params_set_range (params, start + quarter, end - quarter);
      g_autoptr (SlAnalysis) part = sl_analyze (trace, NULL, params, &error);
      if (part != NULL)
        g_free (sl_analysis_to_json (part, trace));
      g_clear_error (&error);
    }
  phase ("analysis");

  SlCalltreeScope scope;
  sl_calltree_scope_init (&scope);
  g_autoptr (SlCalltree) tree = sl_calltree_build (trace, &scope, NULL, &error);
  if (tree != NULL)
    {
      g_autoptr (GString) out = g_string_new (NULL);
      sl_calltree_write_folded (tree, out);
      sl_calltree_write_top (tree, out);
    }
  g_clear_error (&error);
  phase ("calltree");

  if (!sl_export_chrome (trace, sl_fuzz_path ("export.json"), G_MININT64, G_MAXINT64, &error))
    g_clear_error (&error);
  phase ("chrome");
  if (sl_export_sqlite (trace, sl_fuzz_path ("export.sqlite"), G_MININT64, G_MAXINT64, &error))
    {
      phase ("sqlite");
      /* what we write, we read back */
      g_autoptr (SlTrace) back = sl_trace_load (sl_fuzz_path ("export.sqlite"), SL_LOAD_ALL, NULL,
                                                NULL, NULL, &error);
      if (back == NULL)
        {
          fprintf (stderr, "sl-fuzz: our own export does not load: %s\n", error->message);
          abort ();
        }
    }
  g_clear_error (&error);
  phase ("read back");
}

gboolean
sl_fuzz_load (const char  *path,
              char       **error_message)
{
  g_autoptr (GError) error = NULL;
  phase (NULL);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  phase ("load");

  /* SL_FUZZ_VERBOSE=1: what each input became (to check that seeds reach the model) */
  if (g_getenv ("SL_FUZZ_VERBOSE") != NULL)
    {
      if (trace != NULL)
        fprintf (stderr, "sl-fuzz: %s: %" G_GSIZE_FORMAT " events, %u lanes\n", path,
                 sl_trace_get_n_events (trace), sl_trace_get_n_lanes (trace));
      else
        fprintf (stderr, "sl-fuzz: %s: %s\n", path, error->message);
    }
  if (trace == NULL)
    {
      if (error_message != NULL)
        *error_message = g_strdup (error->message);
      return FALSE;
    }
  sl_fuzz_exercise (trace);
  return TRUE;
}
