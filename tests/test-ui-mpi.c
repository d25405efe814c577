/* test-ui-mpi.c: a merged 4-rank MPI job (sightline-gen --mpi --ranks 4) in the timeline under
 * Xvfb: each rank's MPI row, an arrow from each send to its receive across the ranks' rows, the
 * selected call's message highlighted, and the detail pane of an MPI send; screenshots to look
 * at (timeline-mpi.png, timeline-mpi-selected.png). */
#include <gtk/gtk.h>
#include <string.h>

#include "sl-detail-pane-private.h"
#include "sl-mpi.h"
#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-timeline-view-private.h"

#define N_RANKS 4
#define MAX_ARROWS 4096

static void
test_arrows (void)
{
  g_autofree char *pattern = g_build_filename (sl_test_tmpdir (), "ui-job-%r.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };
  g_autoptr (GError) error = NULL;
  char *paths[N_RANKS];

  sl_test_run (&run, SL_GEN_PATH, "-o", pattern, "-n", "12k", "--ranks", "4", "--straggler", "2",
               "--mpi", "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  for (int r = 0; r < N_RANKS; r++)
    paths[r] = g_strdup_printf ("%s/ui-job-%d.sqlite", sl_test_tmpdir (), r);
  SlTrace *trace = sl_trace_load_merged ((const char *const *) paths, N_RANKS, SL_LOAD_ALL, NULL,
                                         NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  for (int r = 0; r < N_RANKS; r++)
    g_free (paths[r]);

  const SlMpiMessages *msgs = sl_trace_get_mpi_messages (trace);
  g_assert_cmpuint (msgs->n_messages, >, 8);
  GtkWidget *window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  GtkWidget *view = sl_timeline_view_new ();
  gtk_window_set_child (GTK_WINDOW (window), view);
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (view), trace);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sl_test_wait_until (sl_test_allocated, view, 10000));
  sl_test_iterate_for (200);

  /* a window of about three steps around the fifth message: the MPI rows revealed */
  const SlMpiMessage *m = &msgs->messages[msgs->n_messages / 2];
  const SlLane *sl = sl_trace_get_lane (trace, m->send.lane);
  SlTime t = sl->events[m->send.index].start;
  SlTimelineView *tv = SL_TIMELINE_VIEW (view);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    if (sl_trace_get_lane (trace, i)->kind == SL_LANE_MPI)
      _sl_timeline_reveal_lane (tv, (gint) i);
  sl_viewport_set_visible (sl_timeline_view_get_viewport (tv), t - 30000000, t + 30000000, FALSE);
  sl_test_iterate_for (300);
  /* the MPI rows alone (the filter keeps their rank, process and thread above them) */
  sl_timeline_view_set_lane_filter (tv, "MPI");
  sl_test_iterate_for (300);

  g_autofree graphene_point_t *from = g_new (graphene_point_t, MAX_ARROWS);
  g_autofree graphene_point_t *to = g_new (graphene_point_t, MAX_ARROWS);
  g_autofree gboolean *selected = g_new (gboolean, MAX_ARROWS);
  guint n = _sl_timeline_mpi_arrow_points (tv, from, to, selected, MAX_ARROWS);
  g_assert_cmpuint (n, >, 0);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpfloat (from[i].y, !=, to[i].y);   /* rank to rank: another row */
      g_assert_false (selected[i]);
    }
  sl_test_screenshot (window, "timeline-mpi");

  /* the send selected: its message stands out, the pane says where it went */
  sl_timeline_view_select_event (tv, m->send, FALSE);
  sl_test_iterate_for (100);
  n = _sl_timeline_mpi_arrow_points (tv, from, to, selected, MAX_ARROWS);
  guint n_selected = 0;
  for (guint i = 0; i < n; i++)
    n_selected += selected[i];
  g_assert_cmpuint (n_selected, ==, 1);
  sl_test_screenshot (window, "timeline-mpi-selected");

  GtkWidget *pane = sl_detail_pane_new ();
  g_object_ref_sink (pane);
  sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), m->send);
  g_autofree char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_assert_nonnull (strstr (text, "Kind: MPI call"));
  g_assert_nonnull (strstr (text, "To rank: "));
  g_assert_nonnull (strstr (text, "Tag: "));
  g_assert_nonnull (strstr (text, "Bytes: "));
  g_assert_nonnull (strstr (text, "Communicator: "));
  g_assert_nonnull (strstr (text, "[Go to the matching receive]"));
  g_object_unref (pane);

  gtk_window_destroy (GTK_WINDOW (window));
  sl_test_iterate_for (50);
  sl_trace_unref (trace);
}

int
main (int   argc,
      char *argv[])
{
  g_setenv ("GTK_A11Y", "none", FALSE);
  gtk_init ();
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui-mpi/arrows", test_arrows);
  return g_test_run ();
}
