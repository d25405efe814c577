/* bench-pytorch.c: what CPU sampling at 1 kHz costs a real PyTorch training loop
 * (bench/bench-pytorch.py: DataLoader with 4 workers, a small conv net on CPU).
 *
 * Usage: bench-pytorch SIGHTLINE SCRIPT [RUNS [STEPS]]   (defaults: 5 runs of 60 steps)
 *
 * Each round runs the loop under `sightline record -s none`, under `sightline record -s 1000`
 * and, where perf works, under `perf record -F 1000 -g`, interleaved; the training loop's wall
 * time (the script's own clock, imports excluded) is compared median against median with the
 * `-s none` runs of the same rounds (target: ≤ 3 %).  Also prints the samples recorded and their
 * mean depth, so a cheap run that records nothing shows.  Needs python3 with torch and numpy
 * (Debian's python3-torch: bench/setup-pytorch.sh); without them it says so and exits 0.
 *
 * Not a test: prints, asserts nothing.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
  MODE_NONE,
  MODE_SAMPLE,
  MODE_PERF,
  N_MODES
};

#define MAX_RUNS 31

/* The loop time the script printed ("loop SECONDS"), -1 on failure. */
static double
run_loop (const char *const *argv)
{
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                     &status, &error))
    {
      g_printerr ("bench-pytorch: %s\n", error->message);
      return -1;
    }
  g_auto (GStrv) lines = g_strsplit (out != NULL ? out : "", "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    if (g_str_has_prefix (*l, "loop "))
      return g_ascii_strtod (*l + 5, NULL);
  g_printerr ("bench-pytorch: %s gave no loop time (status %d, stderr: %s)\n", argv[0], status,
              err != NULL ? err : "");
  return -1;
}

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (const double *v,
        int           n)
{
  double s[MAX_RUNS];
  int k = 0;

  for (int i = 0; i < n; i++)
    if (v[i] > 0)
      s[k++] = v[i];
  if (k == 0)
    return -1;
  qsort (s, (size_t) k, sizeof *s, cmp_double);
  return k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
}

/* Samples in the trace and their mean number of frames; false when it cannot be read. */
static gboolean
trace_samples (const char *trace,
               gint64     *n_samples,
               double     *mean_depth)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  gboolean ok = FALSE;

  if (sqlite3_open_v2 (trace, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK
      && sqlite3_prepare_v2 (db,
                             "SELECT (SELECT count(*) FROM COMPOSITE_EVENTS),"
                             " (SELECT count(*) FROM SAMPLING_CALLCHAINS)",
                             -1, &st, NULL) == SQLITE_OK
      && sqlite3_step (st) == SQLITE_ROW)
    {
      *n_samples = sqlite3_column_int64 (st, 0);
      gint64 frames = sqlite3_column_int64 (st, 1);
      *mean_depth = *n_samples > 0 ? (double) frames / (double) *n_samples : 0;
      ok = TRUE;
    }
  sqlite3_finalize (st);
  sqlite3_close (db);
  return ok;
}

static gboolean
have_torch (void)
{
  const char *argv[] = { "python3", "-c", "import torch, numpy", NULL };
  int status = 0;

  return g_spawn_sync (NULL, (char **) argv, NULL,
                       G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL
                         | G_SPAWN_STDERR_TO_DEV_NULL,
                       NULL, NULL, NULL, NULL, &status, NULL)
         && g_spawn_check_wait_status (status, NULL);
}

int
main (int   argc,
      char *argv[])
{
  if (argc < 3)
    {
      g_printerr ("Usage: %s SIGHTLINE SCRIPT [RUNS [STEPS]]\n", argv[0]);
      return 2;
    }
  const char *sightline = argv[1], *script = argv[2];
  int runs = argc > 3 ? CLAMP (atoi (argv[3]), 1, MAX_RUNS) : 5;
  const char *steps = argc > 4 ? argv[4] : "60";

  if (!have_torch ())
    {
      g_print ("bench-pytorch: skipped: python3 cannot import torch and numpy "
               "(install Debian's python3-torch: bench/setup-pytorch.sh)\n");
      return 0;
    }
  g_autofree char *trace = g_build_filename (g_get_tmp_dir (), "bench-pytorch.sqlite", NULL);
  g_autofree char *perf_data = g_build_filename (g_get_tmp_dir (), "bench-pytorch.perf", NULL);
  g_autofree char *perf_path = g_find_program_in_path ("perf");
  const char *none[] = { sightline, "record", "-f", "-o", trace, "-s", "none", "--",
                         "python3", script, steps, NULL };
  const char *sample[] = { sightline, "record", "-f", "-o", trace, "-s", "1000", "--",
                           "python3", script, steps, NULL };
  const char *perf[] = { "perf", "record", "-q", "-F", "1000", "-g", "-o", perf_data, "--",
                         "python3", script, steps, NULL };
  const char *const *modes[N_MODES] = { none, sample, perf };
  double t[N_MODES][MAX_RUNS];
  gint64 n_samples = 0;
  double depth = 0;

  g_print ("bench-pytorch: %s steps, %d interleaved rounds of -s none / -s 1000%s\n", steps,
           runs, perf_path != NULL ? " / perf record -F 1000 -g" : "");
  (void) run_loop (none); /* warm the page cache: the first import of torch reads ~1 GB */
  for (int i = 0; i < runs; i++)
    for (int m = 0; m < N_MODES; m++)
      {
        t[m][i] = m == MODE_PERF && perf_path == NULL ? -1 : run_loop (modes[m]);
        if (m == MODE_SAMPLE && t[m][i] > 0)
          trace_samples (trace, &n_samples, &depth);
        g_print ("   round %d %-6s %.3f s\n", i + 1,
                 m == MODE_NONE ? "none" : m == MODE_SAMPLE ? "1 kHz" : "perf", t[m][i]);
      }
  double base = median (t[MODE_NONE], runs), smp = median (t[MODE_SAMPLE], runs);
  double prf = median (t[MODE_PERF], runs);
  if (base <= 0 || smp <= 0)
    {
      g_printerr ("bench-pytorch: the loop did not run\n");
      return 1;
    }
  g_print ("   -s none %.3f s, -s 1000 %.3f s: ratio %.4f, %+.2f %% (target <= 3 %%); "
           "last trace: %" G_GINT64_FORMAT " samples, %.1f frames each\n",
           base, smp, smp / base, 100.0 * (smp - base) / base, n_samples, depth);
  if (prf > 0)
    g_print ("   perf record -F 1000 -g %.3f s: ratio %.4f, %+.2f %%\n", prf, prf / base,
             100.0 * (prf - base) / base);
  else
    g_print ("   perf record -F 1000 -g: not available here (no perf, or perf_event_paranoid)\n");
  g_unlink (trace);
  g_unlink (perf_data);
  return 0;
}
