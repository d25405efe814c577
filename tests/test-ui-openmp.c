/* test-ui-openmp.c: a trace with OpenMP and OpenACC (sightline-gen --openmp --openacc) in the
 * timeline under Xvfb: the rows "OpenMP" and "OpenACC" of the primary thread and the team's
 * workers, a parallel region's and an OpenACC data event's details in the detail pane (threads,
 * source line; bytes, variable), a worker's implicit task linked to its region; a screenshot to
 * look at (timeline-openmp.png). */
#include <gtk/gtk.h>
#include <string.h>

#include "sl-detail-pane-private.h"
#include "sl-openmp.h"
#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-timeline-view-private.h"

/* The first event from `source` in a lane of `kind` (of a thread other than the primary one
 * when `worker`). */
static SlEventRef
find_event (SlTrace    *trace,
            SlLaneKind  kind,
            guint       source,
            gboolean    worker)
{
  gint32 primary = -1;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind == SL_LANE_OPENMP && lane->depth == 0 && lane->n_events > 0
          && lane->events[0].aux == SL_OMP_PARALLEL)
        primary = lane->thread;
    }
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != kind || (worker && lane->thread == primary))
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        if (lane->events[k].aux == source)
          return (SlEventRef) { (gint) i, k };
    }
  return SL_EVENT_REF_NONE;
}

static char *
pane_text (SlTrace    *trace,
           SlEventRef  ref)
{
  GtkWidget *pane = sl_detail_pane_new ();
  g_object_ref_sink (pane);
  sl_detail_pane_set_trace (SL_DETAIL_PANE (pane), trace);
  sl_detail_pane_set_event (SL_DETAIL_PANE (pane), ref);
  char *text = _sl_detail_pane_get_text (SL_DETAIL_PANE (pane));
  g_object_unref (pane);
  return text;
}

static void
test_rows (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "ui-openmp.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };
  g_autoptr (GError) error = NULL;

  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "12k", "--openmp", "--openacc", "--force",
               NULL);
  g_assert_cmpint (run.status, ==, 0);
  SlTrace *trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  SlEventRef region = find_event (trace, SL_LANE_OPENMP, SL_OMP_PARALLEL, FALSE);
  SlEventRef task = find_event (trace, SL_LANE_OPENMP, SL_OMP_TASK, TRUE);
  SlEventRef data = find_event (trace, SL_LANE_OPENACC, SL_ACC_DATA, FALSE);
  g_assert_cmpint (region.lane, >=, 0);
  g_assert_cmpint (task.lane, >=, 0);
  g_assert_cmpint (data.lane, >=, 0);

  GtkWidget *window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  GtkWidget *view = sl_timeline_view_new ();
  gtk_window_set_child (GTK_WINDOW (window), view);
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (view), trace);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sl_test_wait_until (sl_test_allocated, view, 10000));
  sl_test_iterate_for (200);

  /* a window of a few steps around the region, the OpenMP and OpenACC rows revealed */
  SlTimelineView *tv = SL_TIMELINE_VIEW (view);
  const SlLane *rl = sl_trace_get_lane (trace, region.lane);
  SlTime t = rl->events[region.index].start;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      SlLaneKind k = sl_trace_get_lane (trace, i)->kind;
      if (k == SL_LANE_OPENMP || k == SL_LANE_OPENACC)
        _sl_timeline_reveal_lane (tv, (gint) i);
    }
  sl_viewport_set_visible (sl_timeline_view_get_viewport (tv), t - 1000000, t + 3000000, FALSE);
  sl_test_iterate_for (300);

  /* the rows: "OpenMP" for the primary thread and each worker, "OpenACC" for the primary one */
  g_auto (GStrv) labels = sl_timeline_view_dup_row_labels (tv);
  guint n_omp = 0, n_acc = 0;
  for (char **l = labels; *l != NULL; l++)
    {
      const char *s = g_strstrip (*l);
      n_omp += strcmp (s, "OpenMP") == 0;
      n_acc += strcmp (s, "OpenACC") == 0;
    }
  /* one row a lane (a thread's nesting depth); the lanes of 4 threads: the primary and 3
   * workers */
  guint lanes_omp = 0, lanes_acc = 0;
  g_autoptr (GHashTable) threads = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      lanes_omp += lane->kind == SL_LANE_OPENMP;
      lanes_acc += lane->kind == SL_LANE_OPENACC;
      if (lane->kind == SL_LANE_OPENMP)
        g_hash_table_add (threads, GINT_TO_POINTER (lane->thread + 1));
    }
  g_test_message ("rows: %u OpenMP, %u OpenACC", n_omp, n_acc);
  g_assert_cmpuint (g_hash_table_size (threads), ==, 4);
  g_assert_cmpuint (n_omp, ==, lanes_omp);
  g_assert_cmpuint (n_acc, ==, lanes_acc);
  g_assert_cmpuint (n_acc, >, 0);
  /* the OpenMP and OpenACC rows alone (the filter keeps their process and thread above them) */
  sl_timeline_view_set_lane_filter (tv, "Open");
  sl_timeline_view_select_event (tv, region, FALSE);
  sl_test_iterate_for (300);
  sl_test_screenshot (window, "timeline-openmp");

  g_autofree char *region_text = pane_text (trace, region);
  g_test_message ("%s", region_text);
  g_assert_nonnull (strstr (region_text, "Kind: OpenMP event"));
  g_assert_nonnull (strstr (region_text, "Event: parallel region (OPENMP_EVENT_KIND_PARALLEL)"));
  g_assert_true (strstr (region_text, "Threads: 4") != NULL
                 || strstr (region_text, "Threads: 2") != NULL);
  g_assert_true (strstr (region_text, "Source line: data.c:42") != NULL
                 || strstr (region_text, "Source line: data.c:57") != NULL);
  g_assert_nonnull (strstr (region_text, "Parallel region id: "));

  g_autofree char *task_text = pane_text (trace, task);
  g_assert_nonnull (strstr (task_text, "Type: Implicit task"));
  g_assert_nonnull (strstr (task_text, "[Go to its parallel region]"));

  g_autofree char *data_text = pane_text (trace, data);
  g_test_message ("%s", data_text);
  g_assert_nonnull (strstr (data_text, "Kind: OpenACC event"));
  g_assert_nonnull (strstr (data_text, "Source line: solver.c:"));
  g_assert_nonnull (strstr (data_text, "Bytes: "));
  g_assert_true (strstr (data_text, "Variable: grid") != NULL
                 || strstr (data_text, "Variable: err") != NULL);
  g_assert_nonnull (strstr (data_text, "Construct: parallel"));

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
  g_test_add_func ("/ui-openmp/rows", test_rows);
  return g_test_run ();
}
