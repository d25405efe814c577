/* bench-render.c: frame time of the timeline widget at zoom levels from the whole trace to 1 µs.
 *
 * Usage: xvfb-run -a -s "-screen 0 1920x1080x24" bench-render TRACE [SMALL_TRACE] [FRAMES]
 *
 * Each frame is the widget's own snapshot of a 1920×1080 view, turned into a render node and
 * rendered to a texture by the GskRenderer of the realized window: what a real frame costs, less
 * the upload to the screen.  With SMALL_TRACE (e.g. 10 k events) it prints cost(TRACE) /
 * cost(SMALL) per level: drawing should follow pixels, not events.  The two traces are in two
 * windows and take turns every ten frames, so that a slow stretch of a shared machine hits both
 * alike.  Not a test: prints, asserts nothing.  BENCH_LEVEL=k measures level k only (0 = whole
 * trace), for a profiler; BENCH_PNG=DIR saves each trace's first frame of each level there, to
 * look at; BENCH_NVTXPROJ=1 opens the "NVTX (projected)" groups first; BENCH_METRICS=1 opens
 * every GPU's folded GPU metrics ("N more metrics": all its metric rows shown, not only SMs
 * Active); BENCH_CPU=1 counts the process's CPU time (every thread's: the frame's worker and
 * the renderer run in it) instead of wall time, steadier on a shared, loaded machine where a
 * frame waits for a core; BENCH_BOUND=B prints the worst level's ratio against the bound B (a trace with GPU
 * metrics against the same trace without them: 1.2); BENCH_SWAP=N measures N
 * live updates instead (bench_swap).  A TRACE that is a folder: its *.sqlite and *.json[.gz]
 * files loaded merged (sl_trace_load_merged), as `sightline --merge` shows them (64 ranks of 1 M
 * events: bench-merge --traces 64 writes them). */
#include <gtk/gtk.h>
#include <stdlib.h>
#include <time.h>

#include "sl-cpu-util.h"
#include "sl-sort.h"
#include "sl-timeline-view-private.h"

#define WIDTH  1920
#define HEIGHT 1080
#define MAX_LEVELS 16
#define TURN       10   /* frames of one trace before the other's */

typedef struct
{
  SlTime span;
  double median_ms, max_ms, snap_median_ms;
} Level;


static gint
sort_paths_cb (gconstpointer a,
               gconstpointer b,
               gpointer      data)
{
  (void) data;
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

/* The traces of a folder, merged, in name order. */
static SlTrace *
load_folder (const char  *path,
             GError     **error)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, error);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (dir == NULL)
    return NULL;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".sqlite") || g_str_has_suffix (name, ".json")
        || g_str_has_suffix (name, ".json.gz"))
      g_ptr_array_add (files, g_build_filename (path, name, NULL));
  g_ptr_array_sort_with_data (files, sort_paths_cb, NULL);
  return sl_trace_load_merged ((const char *const *) files->pdata, files->len, SL_LOAD_ALL, NULL,
                               NULL, NULL, NULL, error);
}

static void
spin (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static gboolean cpu_time;   /* BENCH_CPU=1: the process's CPU time, not wall time */

static gint64
now_us (void)
{
  struct timespec ts;

  if (!cpu_time)
    return g_get_monotonic_time ();
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static double
frame_ms (GtkWidget  *view,
          double     *snap_ms,
          const char *png)
{
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (view));
  gint64 a = now_us (), b;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  GdkTexture *texture;

  GTK_WIDGET_GET_CLASS (view)->snapshot (view, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  b = now_us ();
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (view),
                                                              gtk_widget_get_height (view)));
  *snap_ms = (b - a) / 1000.0;
  a = now_us () - a;
  if (png != NULL && !gdk_texture_save_to_png (texture, png))
    g_printerr ("bench-render: could not write %s\n", png);
  g_object_unref (texture);
  gsk_render_node_unref (node);
  return a / 1000.0;
}

/* BENCH_NVTXPROJ=1: the "NVTX (projected)" groups opened (they start collapsed), once their
 * rows are computed */
static void
open_nvtxproj (SlTimelineView *view)
{
  gint64 t = g_get_monotonic_time ();
  gboolean opened = FALSE;

  for (guint i = 0; i < view->rows->len; i++)
    if (g_strcmp0 (g_array_index (view->rows, Row, i).label, "NVTX (projected)") == 0
        && g_array_index (view->rows, Row, i).collapsed)
      {
        _sl_timeline_toggle_group (view, (gint) i);
        opened = TRUE;
      }
  while (opened && !sl_timeline_view_nvtxproj_ready (view))
    g_main_context_iteration (NULL, TRUE);
  spin ();
  g_print ("NVTX (projected) rows computed in %.1f s\n", (g_get_monotonic_time () - t) / 1e6);
}

/* BENCH_METRICS=1: every GPU's "N more metrics" group opened (they start folded). */
static void
open_metrics (SlTimelineView *view)
{
  guint opened = 0;

  for (guint i = 0; i < view->rows->len; i++)
    {
      const Row *r = &g_array_index (view->rows, Row, i);
      if (r->kind == ROW_GROUP && r->collapsed && r->label != NULL
          && g_str_has_suffix (r->label, "more metrics"))
        {
          _sl_timeline_toggle_group (view, (gint) i);
          opened++;
        }
    }
  spin ();
  g_print ("GPU metrics: %u folded groups opened\n", opened);
}

/* One trace in its own window and view. */
typedef struct
{
  const char *path;
  GtkWidget  *window, *view;
  SlTrace    *trace;
  SlTime      start, end;
  GRand      *rand;
  Level       levels[MAX_LEVELS];
  double     *times, *snaps;
} Bench;

static gint only_level = -1;   /* BENCH_LEVEL=k measures only level k (for profiling) */

static void
bench_open (Bench      *b,
            const char *path,
            guint       frames)
{
  g_autoptr (GError) error = NULL;
  gint64 t = g_get_monotonic_time (), deadline;

  b->path = path;
  b->window = gtk_window_new ();
  gtk_window_set_decorated (GTK_WINDOW (b->window), FALSE);
  gtk_window_set_default_size (GTK_WINDOW (b->window), WIDTH, HEIGHT);
  b->view = sl_timeline_view_new ();
  gtk_window_set_child (GTK_WINDOW (b->window), b->view);
  gtk_window_present (GTK_WINDOW (b->window));
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((!gtk_widget_get_mapped (b->view) || gtk_widget_get_width (b->view) < 100)
         && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  spin ();

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    b->trace = load_folder (path, &error);
  else
    b->trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  if (b->trace == NULL)
    {
      g_printerr ("bench-render: %s\n", error->message);
      exit (1);
    }
  g_print ("%s: %" G_GSIZE_FORMAT " events in %u lanes, loaded in %.1f s; renderer %s, view %d×%d\n",
           path, sl_trace_get_n_events (b->trace), sl_trace_get_n_lanes (b->trace),
           (g_get_monotonic_time () - t) / 1e6,
           G_OBJECT_TYPE_NAME (gtk_native_get_renderer (gtk_widget_get_native (b->view))),
           gtk_widget_get_width (b->view), gtk_widget_get_height (b->view));
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (b->view), b->trace);
  spin ();
  if (g_getenv ("BENCH_NVTXPROJ") != NULL)
    open_nvtxproj (SL_TIMELINE_VIEW (b->view));
  if (g_getenv ("BENCH_METRICS") != NULL)
    open_metrics (SL_TIMELINE_VIEW (b->view));
  b->start = sl_trace_get_start (b->trace);
  b->end = sl_trace_get_end (b->trace);
  b->rand = g_rand_new_with_seed (42);
  b->times = g_new (double, frames);
  b->snaps = g_new (double, frames);
}

/* Frame `i` of a level: a window `span` wide at a random place inside the trace. */
static void
bench_frame (Bench  *b,
             SlTime  span,
             guint   i)
{
  SlViewport *vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (b->view));
  SlTime t0 = b->start + (SlTime) (g_rand_double (b->rand) * (double) MAX (b->end - b->start - span, 0));

  sl_viewport_set_visible (vp, t0, t0 + span, FALSE);
  b->times[i] = frame_ms (b->view, &b->snaps[i], NULL);
}

/* The first frame of a level, at the start of the trace: warms caches, and is saved with
 * BENCH_PNG. */
static void
bench_warm (Bench  *b,
            SlTime  span,
            guint   level)
{
  SlViewport *vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (b->view));
  g_autofree char *png = NULL;
  double dummy;

  if (g_getenv ("BENCH_PNG") != NULL)
    {
      g_autofree char *base = g_path_get_basename (b->path);
      g_autofree char *name = g_strdup_printf ("%s-level%u.png", base, level);
      png = g_build_filename (g_getenv ("BENCH_PNG"), name, NULL);
    }
  sl_viewport_set_visible (vp, b->start, b->start + span, FALSE);
  frame_ms (b->view, &dummy, png);
  /* what that frame started on other threads (a flame chart's first build) lands, as it does
   * between a person's frames: the measured frames draw what is made, not its placeholder */
  {
    gint64 until = g_get_monotonic_time () + 300000;
    while (g_get_monotonic_time () < until)
      {
        spin ();
        g_usleep (5000);
      }
  }
}

static void
bench_level_done (Bench  *b,
                  guint   level,
                  SlTime  span,
                  guint   frames)
{
  qsort (b->times, frames, sizeof (double), sl_cmp_double);
  qsort (b->snaps, frames, sizeof (double), sl_cmp_double);
  b->levels[level] = (Level) { span, b->times[frames / 2], b->times[frames - 1],
                               b->snaps[frames / 2] };
}

static void
bench_print (Bench *b,
             guint  n_levels)
{
  g_print ("%s:\n  %-12s %10s %10s %12s\n", b->path, "span", "median ms", "max ms", "snapshot ms");
  for (guint n = 0; n < n_levels; n++)
    {
      SlTime span = b->levels[n].span;
      g_autofree char *s = NULL;
      if (only_level >= 0 && (gint) n != only_level)
        continue;
      if (span >= 1000000000)
        s = g_strdup_printf ("%.3f s", span / 1e9);
      else if (span >= 1000000)
        s = g_strdup_printf ("%.3f ms", span / 1e6);
      else
        s = g_strdup_printf ("%.3f µs", span / 1e3);
      g_print ("  %-12s %10.2f %10.2f %12.2f\n", s, b->levels[n].median_ms, b->levels[n].max_ms,
               b->levels[n].snap_median_ms);
    }
}

/* BENCH_SWAP=N: what a live update costs the main thread once the trace is big.  A second load
 * of TRACE stands for the next live state: N times, the view is given the other one
 * (sl_timeline_view_continue_trace, as the window's live updates do) and draws its next frame;
 * between two swaps, the baseline: a frame after the view moved without a swap.  The whole trace
 * in view, as a live view that follows its recording shows it. */
static int
bench_swap (Bench *b,
            guint  n)
{
  g_autoptr (GError) error = NULL;
  SlTimelineView *view = SL_TIMELINE_VIEW (b->view);
  SlViewport *vp = sl_timeline_view_get_viewport (view);
  g_autoptr (SlTrace) other = sl_trace_load (b->path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_autofree double *swaps = g_new (double, n), *after = g_new (double, n);
  g_autofree double *plain = g_new (double, n);
  SlTrace *traces[2] = { b->trace, other };
  double snap;

  if (other == NULL)
    {
      g_printerr ("bench-render: %s\n", error->message);
      return 1;
    }
  sl_cpu_util_get (other);   /* as the live view's loading thread does */
  sl_viewport_show_all (vp);
  frame_ms (b->view, &snap, NULL);
  for (guint i = 0; i < n; i++)
    {
      /* the baseline: the view moved by a thousandth, as a live view that follows its recording
       * moves at each update (what the level of detail and utilization cached is redone) */
      SlTime d = (b->end - b->start) / 1000 * (i % 2 == 0 ? 1 : -1);
      sl_viewport_set_visible (vp, b->start + d, b->end + d, FALSE);
      plain[i] = frame_ms (b->view, &snap, NULL);
      gint64 t = g_get_monotonic_time ();
      sl_timeline_view_continue_trace (view, traces[(i + 1) % 2]);
      sl_viewport_show_all (vp);
      swaps[i] = (g_get_monotonic_time () - t) / 1000.0;
      after[i] = frame_ms (b->view, &snap, NULL);
      spin ();
    }
  qsort (swaps, n, sizeof (double), sl_cmp_double);
  qsort (after, n, sizeof (double), sl_cmp_double);
  qsort (plain, n, sizeof (double), sl_cmp_double);
  g_print ("%u swaps: continue_trace median %.2f ms (max %.2f); the frame after it median %.2f ms "
           "(max %.2f); a frame after moving the view instead median %.2f ms (max %.2f)\n"
           "swap + its frame / a moved frame: %.2f×\n",
           n, swaps[n / 2], swaps[n - 1], after[n / 2], after[n - 1], plain[n / 2], plain[n - 1],
           (swaps[n / 2] + after[n / 2]) / plain[n / 2]);
  sl_timeline_view_set_trace (view, b->trace);
  return 0;
}

int
main (int   argc,
      char *argv[])
{
  Bench big = { 0 }, small = { 0 };
  gboolean two = argc > 2;
  SlTime spans[MAX_LEVELS], span;
  guint n_spans = 0, frames = 30;

  if (argc < 2)
    {
      g_printerr ("Usage: %s TRACE [SMALL_TRACE] [FRAMES]\n", argv[0]);
      return 2;
    }
  if (argc > 3)
    frames = MAX (atoi (argv[3]), 1);
  if (g_getenv ("BENCH_LEVEL") != NULL)
    only_level = atoi (g_getenv ("BENCH_LEVEL"));
  cpu_time = g_getenv ("BENCH_CPU") != NULL;
  g_setenv ("GTK_A11Y", "none", FALSE);
  gtk_init ();
  bench_open (&big, argv[1], frames);
  if (g_getenv ("BENCH_SWAP") != NULL)
    return bench_swap (&big, MAX (atoi (g_getenv ("BENCH_SWAP")), 1));
  if (two)
    bench_open (&small, argv[2], frames);
  g_print ("%u frames per level%s\n", frames,
           two ? ", the two traces taking turns every 10" : "");

  /* levels: the spans of the first trace, decades down to 1 µs; the second reuses them so that
   * the ratio compares frames of the same width in time */
  for (span = big.end - big.start; n_spans < MAX_LEVELS; span = span / 10 >= 1000 ? span / 10 : 1000)
    {
      spans[n_spans++] = span;
      if (span <= 1000)
        break;
    }
  for (guint n = 0; n < n_spans; n++)
    {
      if (only_level >= 0 && (gint) n != only_level)
        continue;
      bench_warm (&big, spans[n], n);
      if (two)
        bench_warm (&small, spans[n], n);
      /* taking turns ten frames each: a slow stretch of a shared machine hits both traces alike,
       * and most frames still follow one of their own trace, as when a person pans (frame by
       * frame, the other trace's frame in between left the caches cold) */
      for (guint i = 0; i < frames; i += TURN)
        {
          for (guint k = i; k < MIN (i + TURN, frames); k++)
            bench_frame (&big, spans[n], k);
          for (guint k = i; two && k < MIN (i + TURN, frames); k++)
            bench_frame (&small, spans[n], k);
        }
      bench_level_done (&big, n, spans[n], frames);
      if (two)
        bench_level_done (&small, n, spans[n], frames);
    }
  bench_print (&big, n_spans);
  if (two)
    {
      bench_print (&small, n_spans);
      double worst = 0;
      guint worst_level = 0;
      g_print ("cost ratio %s / %s (median frame time, same span):\n", argv[1], argv[2]);
      for (guint i = 0; i < n_spans; i++)
        if (only_level < 0 || (gint) i == only_level)
          {
            double ratio = big.levels[i].median_ms / MAX (small.levels[i].median_ms, 1e-3);
            g_print ("  level %u (%" G_GINT64_FORMAT " ns): %.2f\n", i, spans[i], ratio);
            if (ratio > worst)
              {
                worst = ratio;
                worst_level = i;
              }
          }
      if (g_getenv ("BENCH_BOUND") != NULL)
        {
          double bound = g_ascii_strtod (g_getenv ("BENCH_BOUND"), NULL);
          g_print ("worst level %u: %.2f× (bound %.2f×: %s)\n", worst_level, worst, bound,
                   worst <= bound ? "within" : "OVER");
        }
    }
  return 0;
}
