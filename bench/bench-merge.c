/* bench-merge.c: N traces loaded in parallel and merged into one (sl_trace_load_merged) against
 * the sum of their loads one after the other (the baseline, measured in the same run, runs
 * interleaved); the merge step alone (sl_trace_merge on the loaded traces); the merged model's
 * bytes per event against one file's, and the memory the merge itself takes at its peak.
 *
 *   bench-merge [--runs R] [--dir DIR] [--events N] [--traces K] [--memory] [FILE…]
 *
 * Without FILEs: K traces (default 8) DIR/merge-N-S.sqlite of N events (default 1M), seeds
 * 1 … K, written by sightline-gen when missing.  Targets (issue 17): merged ≤ 0.6 × the sum of
 * the single loads on a 2-core machine; ≤ 48 bytes per event.  --memory: only the merged load,
 * once, and the process's resident memory per event at its peak and after it (64 × 1 M events
 * at ≤ 48 bytes per event); against the model's own count of its bytes.  Prints the load
 * average: the machine is shared.  Every load reads its file (SIGHTLINE_CACHE=0).  Not a test.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>

#include <glib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "sl-bench.h"
#include "sl-resident.h"
#include "sl-trace-private.h"

/* CPU seconds of this process so far, every thread, user and system. */
static double
cpu (void)
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* Peak resident memory since the last reset (VmHWM), in bytes; 0 when /proc does not say. */
static gsize
peak_resident (void)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return 0;
  const char *line = strstr (text, "VmHWM:");
  return line != NULL ? (gsize) g_ascii_strtoull (line + 6, NULL, 10) * 1024 : 0;
}

/* Resets VmHWM to the current RSS (Linux 4.0+); FALSE where it cannot. */
static gboolean
reset_peak (void)
{
  FILE *f = fopen ("/proc/self/clear_refs", "w");
  gboolean ok = f != NULL && fputs ("5", f) >= 0;
  if (f != NULL)
    ok &= fclose (f) == 0;
  return ok;
}

/* Where the model's bytes go, per event (as sl_trace_get_memory_size counts them). */
static void
print_breakdown (SlTrace *t)
{
  double n = MAX (sl_trace_get_n_events (t), 1);
  gsize events = 0, trees = 0, prefix = 0, lod = 0, busy = 0;

  for (guint i = 0; i < t->lanes->len; i++)
    {
      const SlLane *lane = g_ptr_array_index (t->lanes, i);
      events += lane->n_events * sizeof (SlEvent);
      trees += lane->max_end != NULL ? lane->n_events * sizeof (SlTime) : 0;
      prefix += (lane->n_events / SL_BUSY_STRIDE + 1) * sizeof (SlTime);
      for (guint l = 0; l < lane->n_lod; l++)
        lod += lane->lod[l].n * sizeof (SlLodBucket);
    }
  for (guint g = 0; t->gpu_busy != NULL && g < t->gpus->len; g++)
    {
      const SlGpuBusy *b = &t->gpu_busy[g];
      const SlBusyUnion *u[2] = { &b->kernels, &b->any };
      for (guint k = 0; k < (b->any.chunks != b->kernels.chunks ? 2u : 1u); k++)
        busy += u[k]->n_chunks * sizeof (SlBusyChunk) + u[k]->n_idx * sizeof (guint32);
    }
  gsize chains = (t->chain_offsets->len + t->chain_symbols->len * 2) * sizeof (guint32);
  gsize strings = t->str_bytes + t->strs->len * sizeof (gpointer);
  gsize total = sl_trace_get_memory_size (t);
  g_print ("  events %.1f, interval trees %.1f, busy sums %.1f, LOD %.1f, GPU busy unions %.1f, "
           "call chains %.1f, strings %.1f, the rest %.1f\n",
           events / n, trees / n, prefix / n, lod / n, busy / n, chains / n, strings / n,
           (total - events - trees - prefix - lod - busy - chains - strings) / n);
}

/* The merged load alone: the process's peak and final resident memory per event (what a person
 * opening 64 ranks needs), beside the model's own count of its bytes. */
static int
memory_only (char  **files,
             guint   n)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *load_before = sl_bench_load_average ();
  gsize base = sl_resident_bytes ();
  gboolean peak_known = reset_peak ();
  double t0 = sl_bench_now ();
  g_autoptr (SlTrace) all = sl_trace_load_merged ((const char *const *) files, n, SL_LOAD_ALL, NULL,
                                                  NULL, NULL, NULL, &error);
  double t = sl_bench_now () - t0;

  if (all == NULL)
    {
      g_printerr ("bench-merge: %s\n", error->message);
      return 1;
    }
  gsize events = MAX (sl_trace_get_n_events (all), 1), peak = peak_resident ();
  gsize after = sl_resident_bytes ();
  g_print ("%u traces, %" G_GSIZE_FORMAT " events merged in %.1f s\n", n, events, t);
  g_print ("model                 %8.1f bytes/event (its own count)\n",
           (double) sl_trace_get_memory_size (all) / events);
  print_breakdown (all);
  g_print ("resident after        %8.1f bytes/event (%.0f MiB; the process before the load: "
           "%.0f MiB) (target ≤ 48)\n",
           (double) (after - MIN (base, after)) / events, after / (1024.0 * 1024),
           base / (1024.0 * 1024));
  if (peak_known)
    g_print ("resident at the peak  %8.1f bytes/event (%.0f MiB) (target ≤ 48)\n",
             (double) (peak - MIN (base, peak)) / events, peak / (1024.0 * 1024));
  g_autofree char *load_after = sl_bench_load_average ();
  g_print ("load average          before %s, after %s\n", load_before, load_after);
  return 0;
}

int
main (int    argc,
      char **argv)
{
  gint runs = 3, n_traces = 8;
  gboolean memory = FALSE;
  g_autofree char *dir = NULL;
  g_autofree char *events = NULL;
  g_auto (GStrv) files = NULL;
  GOptionEntry entries[] = {
    { "runs", 'r', 0, G_OPTION_ARG_INT, &runs, "Interleaved runs of each (default 3)", "R" },
    { "dir", 'd', 0, G_OPTION_ARG_FILENAME, &dir,
      "Where the generated traces are (default /tmp/sightline-bench-merge)", "DIR" },
    { "events", 'n', 0, G_OPTION_ARG_STRING, &events, "Events per generated trace (default 1M)",
      "N" },
    { "traces", 't', 0, G_OPTION_ARG_INT, &n_traces, "Generated traces (default 8)", "K" },
    { "memory", 'm', 0, G_OPTION_ARG_NONE, &memory,
      "Only the merged load, once: resident memory per event, peak and after", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE…" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("[FILE…] - load and merge traces");
  g_autoptr (GError) error = NULL;

  setlocale (LC_ALL, "");
  /* first loads on both sides: a single load served from the model cache is not what a merge of
   * files never opened before is compared with */
  g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("bench-merge: %s\n", error->message);
      return 2;
    }
  if (files == NULL || files[0] == NULL)
    {
      g_strfreev (files);
      n_traces = CLAMP (n_traces, 1, 1024);
      files = g_new0 (char *, (gsize) n_traces + 1);
      if (dir == NULL)
        dir = g_strdup ("/tmp/sightline-bench-merge");
      g_mkdir_with_parents (dir, 0755);
      for (guint s = 1; s <= (guint) n_traces; s++)
        {
          files[s - 1] = g_strdup_printf ("%s/merge-%s-%u.sqlite", dir,
                                          events != NULL ? events : "1M", s);
          if (g_file_test (files[s - 1], G_FILE_TEST_EXISTS))
            continue;
          g_print ("writing %s (%s events, seed %u)\n", files[s - 1],
                   events != NULL ? events : "1M", s);
          if (!sl_bench_generate ("bench-merge", SL_GEN_BIN, files[s - 1], s,
                                  events != NULL ? events : "1M"))
            return 1;
        }
    }
  guint n = g_strv_length (files);
  if (memory)
    return memory_only (files, n);
  g_autoptr (GArray) t_single = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) t_merged = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) t_step = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) ratio = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) c_single = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) c_merged = g_array_new (FALSE, FALSE, sizeof (double));
  double bytes_single = 0, bytes_merged = 0;
  gsize events_merged = 0, merge_peak = 0;
  gssize merge_after = 0;
  gboolean peak_known = TRUE;
  g_autofree char *load_before = sl_bench_load_average ();

  g_print ("%u traces, %d runs, %u processors\n", n, runs, g_get_num_processors ());
  for (gint r = 0; r < runs; r++)
    {
      double single = 0, merged = 0, cpu_single = 0, cpu_merged = 0;
      /* interleaved, and the order swapped every run: neither side always runs on a warm cache */
      for (guint side = 0; side < 2; side++)
        {
          if ((side == 0) == (r % 2 == 0))
            {
              /* one after the other, each alone; then the merge step on those */
              g_autofree SlTrace **traces = g_new0 (SlTrace *, n);
              gsize model = 0, ev = 0;
              for (guint i = 0; i < n; i++)
                {
                  double t0 = sl_bench_now (), c0 = cpu ();
                  traces[i] = sl_trace_load (files[i], SL_LOAD_ALL, NULL, NULL, NULL, &error);
                  single += sl_bench_now () - t0;
                  cpu_single += cpu () - c0;
                  if (traces[i] == NULL)
                    {
                      g_printerr ("bench-merge: %s\n", error->message);
                      return 1;
                    }
                  model += sl_trace_get_memory_size (traces[i]);
                  ev += sl_trace_get_n_events (traces[i]);
                }
              bytes_single = ev > 0 ? (double) model / ev : 0;
              gsize rss = sl_resident_bytes ();
              peak_known &= reset_peak ();
              double t0 = sl_bench_now ();
              g_autoptr (SlTrace) all = sl_trace_merge (traces, n, NULL, &error);
              double step = sl_bench_now () - t0;
              if (all == NULL)
                {
                  g_printerr ("bench-merge: %s\n", error->message);
                  return 1;
                }
              gsize peak = peak_resident ();
              merge_peak = MAX (merge_peak, peak > rss ? peak - rss : 0);
#ifdef __GLIBC__
              malloc_trim (0);
#endif
              gsize after = sl_resident_bytes ();
              merge_after = after > rss ? (gssize) (after - rss) : -(gssize) (rss - after);
              g_array_append_val (t_step, step);
            }
          else
            {
              double t0 = sl_bench_now (), c0 = cpu ();
              g_autoptr (SlTrace) all = sl_trace_load_merged ((const char *const *) files, n,
                                                              SL_LOAD_ALL, NULL, NULL, NULL,
                                                              NULL, &error);
              merged = sl_bench_now () - t0;
              cpu_merged = cpu () - c0;
              if (all == NULL)
                {
                  g_printerr ("bench-merge: %s\n", error->message);
                  return 1;
                }
              events_merged = sl_trace_get_n_events (all);
              bytes_merged = (double) sl_trace_get_memory_size (all) / MAX (events_merged, 1);
              if (r == runs - 1)
                print_breakdown (all);
            }
        }
      double q = merged / single;
      g_array_append_val (t_single, single);
      g_array_append_val (t_merged, merged);
      g_array_append_val (ratio, q);
      g_array_append_val (c_single, cpu_single);
      g_array_append_val (c_merged, cpu_merged);
      g_print ("run %d: single loads %.3f s in all (CPU %.3f s), load_merged %.3f s (CPU %.3f s) "
               "%.2f ×, merge step %.3f s\n",
               r + 1, single, cpu_single, merged, cpu_merged, q,
               g_array_index (t_step, double, t_step->len - 1));
    }

  g_autofree char *load_after = sl_bench_load_average ();
  double ms = sl_bench_median (t_single), mm = sl_bench_median (t_merged), mstep = sl_bench_median (t_step);
  g_print ("\n%" G_GSIZE_FORMAT " events in %u traces\n", events_merged, n);
  g_print ("sum of single loads   %8.3f s (median)\n", ms);
  g_print ("load_merged           %8.3f s (median)   ratio %.2f × (median of runs %.2f ×; "
           "target ≤ 0.6)\n",
           mm, mm / ms, sl_bench_median (ratio));
  double cs = sl_bench_median (c_single), cm = sl_bench_median (c_merged);
  g_print ("CPU time              %8.3f s single loads (%.2f cores busy), %.3f s merged "
           "(%.2f cores): on %u cores the merged load cannot take less than %.2f × the sum\n",
           cs, cs / ms, cm, cm / mm, g_get_num_processors (),
           cm / g_get_num_processors () / ms);
  g_print ("merge step alone      %8.3f s (median)   %.1f %% of the single loads\n", mstep,
           100 * mstep / ms);
  g_print ("model                 %8.1f bytes/event merged, %.1f for the files alone "
           "(target ≤ 48)\n",
           bytes_merged, bytes_single);
  if (peak_known)
    g_print ("merge's peak          %8.1f MiB above the loaded traces' (%.2f bytes/event); "
             "after it (trimmed) %+.1f MiB: the merged tables are new, the files' freed; no "
             "event is copied\n",
             merge_peak / (1024.0 * 1024), (double) merge_peak / MAX (events_merged, 1),
             merge_after / (1024.0 * 1024));
  g_print ("load average          before %s, after %s\n", load_before, load_after);
  return 0;
}
