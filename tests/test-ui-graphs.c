/* test-ui-graphs.c: CUDA graph launches traced node by node in the timeline under Xvfb: a
 * "CUDA graphs" row under the stream's kernels with a box per launch, opened into its nodes by a
 * real double-click, closed by the context menu's action; screenshots to look at. */
#include <gtk/gtk.h>
#include <string.h>

#include "sl-lane.h"
#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-timeline-view-private.h"

typedef struct
{
  SlTrace   *trace;
  GtkWidget *window;
  GtkWidget *view;
} Fixture;

static void
fixture_open (Fixture    *f,
              const char *path)
{
  g_autoptr (GError) error = NULL;
  gint64 deadline;

  f->trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1600, 900);
  f->view = sl_timeline_view_new ();
  gtk_window_set_child (GTK_WINDOW (f->window), f->view);
  sl_timeline_view_set_trace (SL_TIMELINE_VIEW (f->view), f->trace);
  gtk_window_present (GTK_WINDOW (f->window));
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((!gtk_widget_get_mapped (f->view) || gtk_widget_get_width (f->view) < 1000)
         && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (gtk_widget_get_mapped (f->view));
  sl_test_iterate_for (100);
}

static void
fixture_close (Fixture *f)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  sl_test_iterate_for (50);
  sl_trace_unref (f->trace);
}

/* The row of kind `kind` (of lane `lane` when >= 0), -1 when none. */
static gint
find_row (SlTimelineView *view,
          RowKind         kind,
          gint            lane)
{
  for (guint i = 0; i < view->rows->len; i++)
    {
      const Row *r = &g_array_index (view->rows, Row, i);
      if (r->kind == kind && (lane < 0 || r->lane == lane))
        return (gint) i;
    }
  return -1;
}

static gboolean
row_present_cb (gpointer data)
{
  SlTimelineView *view = data;
  return find_row (view, ROW_GRAPH_NODES, -1) >= 0;
}

/* A node-mode trace: the kernels lane of the graphs' stream has a "CUDA graphs" row beneath it,
 * a box per launch in the graph colour; a double-click on one opens a "Graph nodes" row beneath
 * that shows exactly its kernels (the view's hit test finds each node there, the group's first
 * node under the box), "Collapse Graph" closes it.  timeline-graph-open.png shows it open. */
static void
test_open_close (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "ui-graphs.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };
  Fixture f;
  SlTimelineView *view;
  const SlGraphGroup *groups, *g = NULL;
  const SlLane *lane = NULL;
  gint graph_row, lane_row;

  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "5000", "--graphs", "node", "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  fixture_open (&f, path);
  view = SL_TIMELINE_VIEW (f.view);
  for (guint i = 0; i < sl_trace_get_n_lanes (f.trace) && g == NULL; i++)
    {
      guint n = sl_trace_get_graph_groups (f.trace, i, &groups);
      if (n > 0)
        {
          lane = sl_trace_get_lane (f.trace, i);
          g = &groups[n / 2];
        }
    }
  g_assert_nonnull (g);
  graph_row = find_row (view, ROW_GRAPHS, (gint) lane->index);
  lane_row = view->lane_row[lane->index];
  g_assert_cmpint (graph_row, >=, 0);
  g_assert_cmpint (graph_row, ==, lane_row + 1);   /* right under its stream's kernels */
  g_assert_cmpint (find_row (view, ROW_GRAPH_NODES, -1), ==, -1);

  /* the launch fills the middle half of the view */
  SlTime span = g->end - g->start;
  sl_viewport_set_visible (sl_timeline_view_get_viewport (view), g->start - span / 2,
                           g->end + span / 2, FALSE);
  _sl_timeline_reveal_lane (view, (gint) lane->index);
  sl_test_iterate_for (100);
  const Row *r = row_get (view, find_row (view, ROW_GRAPHS, (gint) lane->index));
  double x = time_to_x (view, g->start + span / 3);
  double y = RULER_H + r->y - scroll_y (view) + r->h / 2;
  SlEventRef ref;
  SlLodItem item;
  g_assert_true (_sl_timeline_graphs_hit (view, r, x, &ref, &item));
  g_assert_cmpint (ref.lane, ==, (gint) lane->index);
  g_assert_cmpuint (ref.index, ==, sl_trace_get_graph_group_nodes (f.trace, g)[0]);
  g_assert_cmpint (item.start, ==, g->start);
  g_assert_cmpint (item.end, ==, g->end);
  sl_test_screenshot (f.window, "timeline-graph-closed");

  /* open it: a real double-click, else (no xdotool) as the double-click does */
  if (!sl_test_real_double_click (f.view, x, y))
    {
      g_test_message ("no xdotool: opened as the double-click does");
      _sl_timeline_graph_set_open (view, g->lane, g, TRUE);
    }
  g_assert_true (sl_test_wait_until (row_present_cb, view, 5000));
  g_assert_true (_sl_timeline_graph_is_open (view, g->lane, g));
  sl_test_iterate_for (100);
  gint nodes_row = find_row (view, ROW_GRAPH_NODES, (gint) lane->index);
  g_assert_cmpint (nodes_row, ==, find_row (view, ROW_GRAPHS, (gint) lane->index) + 1);

  /* each node is in the sub-row where it ran, and nothing else is */
  const Row *nr = row_get (view, nodes_row);
  const guint32 *nodes = sl_trace_get_graph_group_nodes (f.trace, g);
  for (guint k = 0; k < g->n_nodes; k++)
    {
      const SlEvent *ev = &lane->events[nodes[k]];
      double nx = (time_to_x (view, ev->start) + time_to_x (view, ev->end)) / 2;
      g_assert_true (_sl_timeline_graphs_hit (view, nr, nx, &ref, &item));
      g_assert_cmpint (ref.lane, ==, (gint) lane->index);
      g_assert_cmpuint (ref.index, ==, nodes[k]);
    }
  g_assert_false (_sl_timeline_graphs_hit (view, nr, time_to_x (view, g->start - span / 4), &ref,
                                           &item));
  sl_test_screenshot (f.window, "timeline-graph-open");

  /* close it with the context menu's "Collapse Graph" */
  view->menu_ref = (SlEventRef) { (gint) lane->index, nodes[0] };
  g_assert_true (_sl_timeline_graphs_menu_group (view) == g);
  g_assert_true (gtk_widget_activate_action (f.view, "timeline.toggle-graph", NULL));
  sl_test_iterate_for (50);
  g_assert_false (_sl_timeline_graph_is_open (view, g->lane, g));
  g_assert_cmpint (find_row (view, ROW_GRAPH_NODES, -1), ==, -1);
  /* and open it again the same way ("Expand Graph") */
  g_assert_true (gtk_widget_activate_action (f.view, "timeline.toggle-graph", NULL));
  sl_test_iterate_for (50);
  g_assert_cmpint (find_row (view, ROW_GRAPH_NODES, -1), >=, 0);
  fixture_close (&f);
}

/* Graph mode has no group: no "CUDA graphs" row (its launches are a lane of their own). */
static void
test_graph_mode (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "ui-graphs-graph.sqlite", NULL);
  g_auto (SlTestRun) run = { 0 };
  Fixture f;

  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "5000", "--graphs", "graph", "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  fixture_open (&f, path);
  g_assert_cmpint (find_row (SL_TIMELINE_VIEW (f.view), ROW_GRAPHS, -1), ==, -1);
  fixture_close (&f);
}

int
main (int   argc,
      char *argv[])
{
  g_setenv ("GTK_A11Y", "none", FALSE);
  gtk_init ();
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/graphs/open-close", test_open_close);
  g_test_add_func ("/ui/graphs/graph-mode", test_graph_mode);
  return g_test_run ();
}
