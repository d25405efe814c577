/* bench-live.c: what the live view costs (issue 5): a program producing ~100 k events a second,
 * recorded by `sightline record` alone and by the viewer's live recording, in one run.
 *
 * Usage: xvfb-run -a bench-live SIGHTLINE BENCH-TARGET [RATE] [SECONDS]
 *
 * Prints the program's own run time both ways (target: live ≤ 1.05 × record alone), and, while
 * the viewer records, how long the main loop was away between two turns (a 2 ms timer that also
 * asks the timeline to redraw: the longest gap bounds a frame; target: under 16 ms), with the
 * number of live reloads shown.  Not a test: prints, asserts nothing.
 */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "sl-application.h"
#include "sl-sort.h"
#include "sl-window-private.h"

static double
parse_wall (const char *text)
{
  const char *p = text != NULL ? strstr (text, "wall_s ") : NULL;

  return p != NULL ? g_ascii_strtod (p + 7, NULL) : -1;
}

typedef struct
{
  SlWindow *window;
  gint64    last;
  GArray   *gaps;   /* ms between turns of the main loop */
} Watch;

static gboolean
watch_cb (gpointer data)
{
  Watch *w = data;
  gint64 now = g_get_monotonic_time ();

  if (w->last != 0)
    {
      double gap = (now - w->last) / 1000.0;
      g_array_append_val (w->gaps, gap);
    }
  w->last = now;
  gtk_widget_queue_draw (sl_window_get_timeline (w->window));
  return G_SOURCE_CONTINUE;
}


int
main (int   argc,
      char *argv[])
{
  const char *rate = argc > 3 ? argv[3] : "100000", *secs = argc > 4 ? argv[4] : "3";
  g_autofree char *dir = g_dir_make_tmp ("bench-live-XXXXXX", NULL);
  g_autofree char *cli_trace = g_build_filename (dir, "cli.sqlite", NULL);
  g_autofree char *gui_trace = g_build_filename (dir, "gui.sqlite", NULL);
  g_autofree char *run = g_build_filename (dir, "run", NULL);
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  if (argc < 3)
    {
      g_printerr ("Usage: %s SIGHTLINE BENCH-TARGET [RATE] [SECONDS]\n", argv[0]);
      return 2;
    }
  g_mkdir (run, 0700);
  g_setenv ("SIGHTLINE_RUNTIME_DIR", run, TRUE);
  g_setenv ("GTK_A11Y", "none", FALSE);

  /* 1. `sightline record` alone */
  const char *cli[] = { argv[1], "record", "-s", "none", "--osrt-threshold", "0", "-o", cli_trace,
                        "--", argv[2], "events", rate, secs, NULL };
  if (!g_spawn_sync (NULL, (char **) cli, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                     &status, &error))
    {
      g_printerr ("bench-live: %s\n", error->message);
      return 1;
    }
  double cli_wall = parse_wall (out);

  /* 2. the same from the viewer, live */
  gtk_init ();
  g_autoptr (SlApplication) app = sl_application_new ();
  g_application_register (G_APPLICATION (app), NULL, NULL);
  g_application_hold (G_APPLICATION (app));
  SlWindow *window = sl_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (window));
  g_autoptr (SlRecordSettings) s = sl_record_settings_new ();
  s->program = g_strdup (argv[2]);
  g_strfreev (s->args);
  s->args = g_new0 (char *, 4);
  s->args[0] = g_strdup ("events");
  s->args[1] = g_strdup (rate);
  s->args[2] = g_strdup (secs);
  s->sample_hz = 0;
  s->osrt_threshold_ns = 1;
  s->output = g_strdup (gui_trace);
  Watch w = { window, 0, g_array_new (FALSE, FALSE, sizeof (double)) };
  if (!sl_window_record (window, s, &error))
    {
      g_printerr ("bench-live: %s\n", error->message);
      return 1;
    }
  guint watch = g_timeout_add (2, watch_cb, &w);
  while (sl_window_is_recording (window))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (watch);
  guint live = sl_window_get_n_live_updates (window);
  g_autofree char *text = sl_window_get_output_text (window);
  double gui_wall = parse_wall (text);
  while (sl_window_is_loading (window))
    g_main_context_iteration (NULL, TRUE);

  g_array_sort (w.gaps, sl_cmp_double);
  double median = w.gaps->len ? g_array_index (w.gaps, double, w.gaps->len / 2) : 0;
  double p99 = w.gaps->len ? g_array_index (w.gaps, double, w.gaps->len * 99 / 100) : 0;
  double max = w.gaps->len ? g_array_index (w.gaps, double, w.gaps->len - 1) : 0;
  guint over = 0;
  for (guint i = 0; i < w.gaps->len; i++)
    over += g_array_index (w.gaps, double, i) > 16.0;
  SlTrace *trace = sl_window_get_trace (window);

  g_print ("program at %s events/s for %s s (%" G_GSIZE_FORMAT " events in the trace)\n", rate,
           secs, trace != NULL ? sl_trace_get_n_events (trace) : 0);
  g_print ("  run time under `sightline record`: %.3f s; under the live viewer: %.3f s; "
           "ratio %.3f (target <= 1.05)\n",
           cli_wall, gui_wall, cli_wall > 0 ? gui_wall / cli_wall : 0);
  g_print ("  main loop while recording: %u turns, gap median %.1f ms, p99 %.1f ms, max %.1f ms, "
           "%u over 16 ms; %u live reloads shown\n",
           w.gaps->len, median, p99, max, over, live);
  gtk_window_destroy (GTK_WINDOW (window));
  g_application_release (G_APPLICATION (app));
  {
    g_autofree char *pidfile = g_build_filename (run, "sightlined.sock.pid", NULL);
    g_autofree char *pid = NULL;
    if (g_file_get_contents (pidfile, &pid, NULL, NULL) && atoi (pid) > 1)
      kill (atoi (pid), SIGTERM);
  }
  g_unlink (cli_trace);
  g_unlink (gui_trace);
  return 0;
}
