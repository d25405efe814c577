/* test-ui-json.c: the real application under Xvfb opening each PyTorch (Kineto JSON) trace: the
 * trace page, its GPU lanes in the timeline's rows, the rank in About this Trace; screenshots. */
#include <string.h>

#include <gtk/gtk.h>

#include "sl-application.h"
#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-test-window.h"
#include "sl-timeline-view-private.h"
#include "sl-window-private.h"

static SlApplication *app;

static void
test_open (gconstpointer data)
{
  const char *path = data;
  SlWindow *window = sl_test_open_window (app, 1600, 1000, path, NULL);
  SlTrace *trace = sl_window_get_trace (window);
  g_assert_true (sl_trace_is_json (trace));
  sl_test_iterate_for (200);

  /* every GPU with work has its rows, and every GPU lane of the model a row under them */
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  g_auto (GStrv) rows = sl_timeline_view_dup_row_labels (tv);
  g_autofree char *joined = g_strjoinv ("\n", rows);
  guint gpu_lanes = 0;
  g_test_message ("%s: rows:\n%s", path, joined);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->gpu < 0)
        continue;
      gpu_lanes++;
      const SlGpu *gpu = sl_trace_get_gpu (trace, lane->gpu);
      g_autofree char *stream = g_strdup_printf ("Stream %u", lane->stream_id);
      /* a context's synchronization has no stream: its row is the context's "Host waits" */
      g_assert_true (lane->kind == SL_LANE_SYNC || strstr (joined, stream) != NULL);
      g_assert_nonnull (strstr (joined, sl_trace_str (trace, gpu->name)));
    }
  g_test_message ("%u GPU lanes", gpu_lanes);

  g_autofree char *base = g_path_get_basename (path);
  char *dot = strchr (base, '.');
  if (dot != NULL)
    *dot = '\0';
  g_autofree char *shot = g_strdup_printf ("json-%s", base);
  sl_test_screenshot (GTK_WIDGET (window), shot);
  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (50);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *home = g_build_filename (sl_test_tmpdir (), "xdg-data", NULL);

  /* recent files go to a throwaway data directory, not the person's */
  g_mkdir_with_parents (home, 0700);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  g_test_init (&argc, &argv, NULL);
  app = sl_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_application_hold (G_APPLICATION (app));

  g_autofree char *dir = sl_test_trace_path ("pytorch");
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".json") || g_str_has_suffix (name, ".json.gz"))
      g_ptr_array_add (paths, g_build_filename (dir, name, NULL));
  g_ptr_array_sort (paths, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < paths->len; i++)
    {
      g_autofree char *base = g_path_get_basename (g_ptr_array_index (paths, i));
      g_autofree char *test = g_strdup_printf ("/ui-json/open/%s", base);
      g_test_add_data_func (test, g_ptr_array_index (paths, i), test_open);
    }
  int ret = g_test_run ();
  g_application_release (G_APPLICATION (app));
  return ret;
}
