/* bench-render.c: frame time of the timeline widget at zoom levels from the whole trace to 1 µs.
 *
 * Usage: xvfb-run -a -s "-screen 0 1920x1080x24" bench-render TRACE [SMALL_TRACE] [FRAMES]
 *
 * Each frame is the widget's own snapshot of a 1920×1080 view, turned into a render node and
 * rendered to a texture by the GskRenderer of the realized window: what a real frame costs, less
 * the upload to the screen.  With SMALL_TRACE (e.g. 10 k events) it prints cost(TRACE) /
 * cost(SMALL) per level: drawing should follow pixels, not events.  Not a test: prints, asserts
 * nothing.  BENCH_LEVEL=k measures level k only (0 = whole trace), for a profiler; BENCH_PNG=DIR
 * saves each trace's first frame of each level there, to look at. */
#include <gtk/gtk.h>
#include <stdlib.h>

#include "sl-timeline-view.h"

#define WIDTH  1920
#define HEIGHT 1080
#define MAX_LEVELS 16

typedef struct
{
  SlTime span;
  double median_ms, max_ms, snap_median_ms;
} Level;

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static void
spin (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static double
frame_ms (GtkWidget  *view,
          double     *snap_ms,
          const char *png)
{
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (view));
  gint64 a = g_get_monotonic_time (), b;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  GdkTexture *texture;

  GTK_WIDGET_GET_CLASS (view)->snapshot (view, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  b = g_get_monotonic_time ();
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (view),
                                                              gtk_widget_get_height (view)));
  *snap_ms = (b - a) / 1000.0;
  a = g_get_monotonic_time () - a;
  if (png != NULL && !gdk_texture_save_to_png (texture, png))
    g_printerr ("bench-render: could not write %s\n", png);
  g_object_unref (texture);
  gsk_render_node_unref (node);
  return a / 1000.0;
}

/* Levels are the spans of the first trace (decades down to 1 µs); the second reuses them so that
 * the ratio compares frames of the same width in time. */
static SlTime spans[MAX_LEVELS];
static guint n_spans;
static gint only_level = -1;   /* BENCH_LEVEL=k measures only level k (for profiling) */

static guint
run_trace (GtkWidget  *view,
           const char *path,
           guint       frames,
           Level      *levels)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = NULL;
  SlViewport *vp = sl_timeline_view_get_viewport (SL_TIMELINE_VIEW (view));
  SlTime start, end, span;
  GRand *rand = g_rand_new_with_seed (42);
  double *times = g_new (double, frames), *snaps = g_new (double, frames);
  gint64 t = g_get_monotonic_time ();
  guint n = 0;

  trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  if (trace == NULL)
    {
      g_printerr ("bench-render: %s\n", error->message);
      exit (1);
    }
  g_print ("%s: %" G_GSIZE_FORMAT " events in %u lanes, loaded in %.1f s\n", path,
           sl_trace_get_n_events (trace), sl_trace_get_n_lanes (trace),
           (g_get_monotonic_time () - t) / 1e6);
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (view), trace);
  spin ();
  start = sl_trace_get_start (trace);
  end = sl_trace_get_end (trace);

  g_print ("  %-12s %10s %10s %12s\n", "span", "median ms", "max ms", "snapshot ms");
  if (n_spans == 0)
    for (span = end - start; n_spans < MAX_LEVELS; span = span / 10 >= 1000 ? span / 10 : 1000)
      {
        spans[n_spans++] = span;
        if (span <= 1000)
          break;
      }
  for (n = 0; n < n_spans; n++)
    {
      span = spans[n];
      double dummy;
      if (only_level >= 0 && (gint) n != only_level)
        {
          levels[n] = (Level) { span, 0, 0, 0 };
          continue;
        }
      g_autofree char *png = NULL;
      if (g_getenv ("BENCH_PNG") != NULL)
        {
          g_autofree char *base = g_path_get_basename (path);
          g_autofree char *name = g_strdup_printf ("%s-level%u.png", base, n);
          png = g_build_filename (g_getenv ("BENCH_PNG"), name, NULL);
        }
      /* warm caches for this level, at the start of the trace */
      sl_viewport_set_visible (vp, start, start + span, FALSE);
      frame_ms (view, &dummy, png);
      for (guint i = 0; i < frames; i++)
        {
          /* various positions: random, inside the trace */
          SlTime t0 = start + (SlTime) (g_rand_double (rand) * (double) MAX (end - start - span, 0));
          sl_viewport_set_visible (vp, t0, t0 + span, FALSE);
          times[i] = frame_ms (view, &snaps[i], NULL);
        }
      qsort (times, frames, sizeof (double), cmp_double);
      qsort (snaps, frames, sizeof (double), cmp_double);
      levels[n] = (Level) { span, times[frames / 2], times[frames - 1], snaps[frames / 2] };
      {
        g_autofree char *s = NULL;
        if (span >= 1000000000)
          s = g_strdup_printf ("%.3f s", span / 1e9);
        else if (span >= 1000000)
          s = g_strdup_printf ("%.3f ms", span / 1e6);
        else
          s = g_strdup_printf ("%.3f µs", span / 1e3);
        g_print ("  %-12s %10.2f %10.2f %12.2f\n", s, levels[n].median_ms, levels[n].max_ms,
                 levels[n].snap_median_ms);
      }
    }
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (view), NULL);
  g_rand_free (rand);
  g_free (times);
  g_free (snaps);
  return n;
}

int
main (int   argc,
      char *argv[])
{
  GtkWidget *window, *view;
  Level big[MAX_LEVELS], small[MAX_LEVELS];
  guint n_big, n_small = 0, frames = 30;
  gint64 deadline;

  if (argc < 2)
    {
      g_printerr ("Usage: %s TRACE [SMALL_TRACE] [FRAMES]\n", argv[0]);
      return 2;
    }
  if (argc > 3)
    frames = MAX (atoi (argv[3]), 1);
  if (g_getenv ("BENCH_LEVEL") != NULL)
    only_level = atoi (g_getenv ("BENCH_LEVEL"));
  g_setenv ("GTK_A11Y", "none", FALSE);
  gtk_init ();
  window = gtk_window_new ();
  gtk_window_set_decorated (GTK_WINDOW (window), FALSE);
  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, HEIGHT);
  view = sl_timeline_view_new ();
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((!gtk_widget_get_mapped (view) || gtk_widget_get_width (view) < 100)
         && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  spin ();
  g_print ("renderer %s, view %d×%d, %u frames per level\n",
           G_OBJECT_TYPE_NAME (gtk_native_get_renderer (gtk_widget_get_native (view))),
           gtk_widget_get_width (view), gtk_widget_get_height (view), frames);

  n_big = run_trace (view, argv[1], frames, big);
  if (argc > 2)
    {
      n_small = run_trace (view, argv[2], frames, small);
      g_print ("cost ratio %s / %s (median frame time, same span):\n", argv[1],
               argv[2]);
      for (guint i = 0; i < MIN (n_big, n_small); i++)
        g_print ("  level %u (%" G_GINT64_FORMAT " ns): %.2f\n", i, spans[i],
                 big[i].median_ms / MAX (small[i].median_ms, 1e-3));
    }
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
