/* bench-cache.c: reopening a trace through the model cache against loading it from its file,
 * measured in one run.
 *
 *   bench-cache FILE [RUNS]
 *
 * Uses a cache folder of its own (a temporary $XDG_CACHE_HOME, removed at the end).  The first load
 * writes the cache file; then fresh loads (SIGHTLINE_CACHE=0) and cached ones alternate, RUNS of
 * each (3 by default), and the medians are compared.  The target: a cached load takes at
 * most 10% of a fresh one.  Also shown: what the cached load spends rebuilding the derived arrays
 * (interval trees, busy sums, LOD pyramids; GPU busy unions) rather than reading them, and the
 * cache file's bytes per event.  Times are with the files in the page cache.
 */
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "sl-sort.h"
#include "sl-trace-private.h"

static double
now (void)
{
  return g_get_monotonic_time () / 1e6;
}

static SlTrace *
timed_load (const char *path,
            double     *seconds)
{
  g_autoptr (GError) error = NULL;
  double t = now ();
  SlTrace *trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);

  *seconds = now () - t;
  if (trace == NULL)
    g_error ("%s", error->message);
  return trace;
}

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

int
main (int    argc,
      char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: %s FILE [RUNS]\n", argv[0]);
      return 2;
    }
  const char *path = argv[1];
  guint runs = argc > 2 ? (guint) CLAMP (atoi (argv[2]), 1, 20) : 3;
  g_autofree double *fresh = g_new (double, runs), *cached = g_new (double, runs);
  g_autoptr (GError) error = NULL;
  g_autofree char *home = g_dir_make_tmp ("bench-cache-XXXXXX", &error);
  SlCacheStats before, after;
  double first, t;

  if (home == NULL)
    g_error ("%s", error->message);
  g_setenv ("XDG_CACHE_HOME", home, TRUE);
  g_setenv ("SIGHTLINE_CACHE_MIN_MS", "0", TRUE);
  g_setenv ("SIGHTLINE_CACHE_MAX", "1099511627776", TRUE);
  g_setenv ("SIGHTLINE_CACHE", "1", TRUE);

  /* the first load writes the cache file */
  _sl_trace_cache_get_stats (&before);
  g_autoptr (SlTrace) stored = timed_load (path, &first);
  _sl_trace_cache_get_stats (&after);
  if (after.stores != before.stores + 1)
    g_error ("the first load was not stored in the cache");
  gsize n_events = sl_trace_get_n_events (stored);
  g_clear_pointer (&stored, sl_trace_unref);

  for (guint r = 0; r < runs; r++)
    {
      g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
      g_autoptr (SlTrace) a = timed_load (path, &fresh[r]);
      g_setenv ("SIGHTLINE_CACHE", "1", TRUE);
      _sl_trace_cache_get_stats (&before);
      g_autoptr (SlTrace) b = timed_load (path, &cached[r]);
      _sl_trace_cache_get_stats (&after);
      if (after.hits != before.hits + 1)
        g_error ("a load meant to come from the cache did not");
      if (sl_trace_get_n_events (a) != sl_trace_get_n_events (b))
        g_error ("cached and fresh loads differ in events");
    }

  /* what a cached load spends rebuilding: the lanes' derived arrays, the GPUs' busy unions */
  g_autoptr (SlTrace) again = timed_load (path, &t);
  t = now ();
  if (!_sl_trace_index_lanes (again, NULL))
    g_error ("indexing failed");
  double rebuild_lanes = now () - t;
  t = now ();
  for (guint g = 0; g < sl_trace_get_n_gpus (again); g++)
    _sl_gpu_busy_clear (&again->gpu_busy[g]);
  g_free (again->gpu_busy);
  _sl_gpu_busy_build (again);
  double rebuild_gpus = now () - t;

  /* writing the cache file again, on its own (the first load above paid it on top) */
  SlCacheKey key = { 0 };
  g_autoptr (SlTrace) none = NULL;
  if ((none = _sl_trace_cache_load (path, &key)) == NULL || key.file == NULL)
    g_error ("no cache file to rewrite");
  g_clear_pointer (&none, sl_trace_unref);
  g_unlink (key.file);
  _sl_trace_cache_get_stats (&before);
  t = now ();
  _sl_trace_cache_store (again, &key, G_MAXINT64 / 2);
  double write = now () - t;
  _sl_trace_cache_get_stats (&after);
  if (after.stores != before.stores + 1)
    g_error ("the cache file was not written again");
  _sl_cache_key_clear (&key);

  /* the cache file: the folder holds just this one */
  g_autofree char *dir = _sl_trace_cache_dir ();
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint64 bytes = 0;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *file = g_build_filename (dir, name, NULL);
      struct stat st;
      if (stat (file, &st) == 0)
        bytes += st.st_size;
    }

  qsort (fresh, runs, sizeof (double), sl_cmp_double);
  qsort (cached, runs, sizeof (double), sl_cmp_double);
  double f = fresh[runs / 2], c = cached[runs / 2];
  printf ("file                       %s\n", path);
  printf ("events                     %zu\n", n_events);
  printf ("first load (+ cache write) %.3f s\n", first);
  printf ("fresh load                 %.3f s (median of %u; min %.3f, max %.3f)\n", f, runs, fresh[0],
          fresh[runs - 1]);
  printf ("cached load                %.3f s (median of %u; min %.3f, max %.3f)\n", c, runs,
          cached[0], cached[runs - 1]);
  printf ("  of which rebuilt: lanes' trees, busy sums, LOD %.3f s; GPU busy unions %.3f s\n",
          rebuild_lanes, rebuild_gpus);
  printf ("cache write                %.3f s (part of a first load)\n", write);
  printf ("cache file                 %.1f MB, %.1f bytes/event\n", bytes / 1e6,
          n_events > 0 ? (double) bytes / n_events : 0.0);
  printf ("cached / fresh             %.3f   (target <= 0.10)\n", c / f);
  remove_tree (home);
  return 0;
}
