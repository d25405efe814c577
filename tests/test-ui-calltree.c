/* test-ui-calltree.c: the Call Tree panel in the real window under Xvfb: a selected range's hottest
 * function is the flame graph's widest frame; top-down, bottom-up, search, zoom, one thread. */
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include <gtk/gtk.h>

#include "sl-application.h"
#include "sl-calltree-panel-private.h"
#include "sl-flame-graph-private.h"
#include "sl-plant.h"
#include "sl-schema.h"
#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-test-window.h"
#include "sl-timeline-view.h"
#include "sl-window-private.h"

static SlApplication *app;

/*
 * The program the trace stands for: its main thread parses input for 100 ms (parse_input is the
 * hottest function of the whole trace), then spins 100 ms in spin_hot with some logging, while a
 * worker thread waits; samples every 0.5 ms.  In [100 ms, 200 ms) spin_hot is the hottest.
 */
#define N_PARSE 200
#define N_SPIN  150
#define N_LOG   50
#define N_IDLE  60

static void
exec_sql (sqlite3    *db,
          const char *sql)
{
  char *message = NULL;
  if (sqlite3_exec (db, sql, NULL, NULL, &message) != SQLITE_OK)
    g_error ("%s: %s", sql, message);
}

/* One sample of thread `tid` at `t` with frames leaf first ("|"-separated). */
static void
add_sample (sqlite3    *db,
            gint64      id,
            gint        tid,
            gint64      t,
            const char *frames)
{
  g_auto (GStrv) names = g_strsplit (frames, "|", -1);
  g_autofree char *sample = g_strdup_printf ("INSERT INTO COMPOSITE_EVENTS VALUES (%"
                                             G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 0, 1, %"
                                             G_GINT64_FORMAT ", 0)", id, t,
                                             (gint64) SL_GLOBAL_TID (1, PLANT_MAIN, tid));
  exec_sql (db, sample);
  for (guint d = 0; names[d] != NULL; d++)
    {
      g_autofree char *row = g_strdup_printf (
          "INSERT INTO SAMPLING_CALLCHAINS VALUES (%" G_GINT64_FORMAT ", (SELECT id FROM StringIds "
          "WHERE value = '%s'), (SELECT id FROM StringIds WHERE value = 'spinner'), 0, 0, 0, NULL, "
          "NULL, 7, %u)", id, names[d], d);
      exec_sql (db, row);
    }
}

static char *
write_trace (void)
{
  static const char *const names[] = { "spinner", "main", "run", "load", "parse_input",
                                       "spin_hot", "log_line", "start_thread", "worker_loop",
                                       "idle_wait" };
  char *path = g_build_filename (sl_test_tmpdir (), "spinner.sqlite", NULL);
  Plant *p = plant_new (path);
  sqlite3 *db = NULL;
  gint64 id = 1000;

  plant_api (p, PLANT_MAIN, "cudaFree", 0, 10 * PLANT_US);
  plant_osrt (p, PLANT_LOADER_0, "pthread_cond_wait", 0, 300 * PLANT_MS);
  plant_finish (p);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec_sql (db, "BEGIN");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *s = g_strdup_printf ("INSERT INTO StringIds VALUES (%u, '%s')", 200000 + i,
                                            names[i]);
      exec_sql (db, s);
    }
  for (gint i = 0; i < N_PARSE; i++)
    add_sample (db, id++, PLANT_MAIN, i * PLANT_MS / 2, "parse_input|load|main");
  for (gint i = 0; i < N_SPIN + N_LOG; i++)
    add_sample (db, id++, PLANT_MAIN, 100 * PLANT_MS + i * PLANT_MS / 2,
                i % 4 == 3 ? "log_line|run|main" : "spin_hot|run|main");
  for (gint i = 0; i < N_IDLE; i++)
    add_sample (db, id++, PLANT_LOADER_0, 5 * PLANT_MS * i,
                "idle_wait|worker_loop|start_thread");
  exec_sql (db, "COMMIT");
  sqlite3_close (db);
  return path;
}

static gboolean
panel_ready (gpointer data)
{
  SlCalltreePanel *panel = data;
  return !_sl_calltree_panel_is_busy (panel) && _sl_calltree_panel_get_tree (panel) != NULL;
}

static void
wait_for_panel (SlCalltreePanel *panel)
{
  sl_test_iterate_for (50);
  g_assert_true (sl_test_wait_until (panel_ready, panel, 60000));
  sl_test_iterate_for (200);   /* drawn */
}

/* The widest frame drawn on the row below the zoomed frame, by the geometry the widget drew. */
static guint
widest_below_zoom (SlFlameGraph *flame,
                   double       *width)
{
  SlCalltree *tree = sl_flame_graph_get_tree (flame);
  SlCalltreeOrder order = sl_flame_graph_get_order (flame);
  const SlCalltreeNode *zoom = sl_calltree_get_node (tree, order, sl_flame_graph_get_zoom (flame));
  guint widest = SL_CALLTREE_NONE;
  graphene_rect_t r;

  *width = 0;
  for (guint32 c = zoom->first_child; c != SL_CALLTREE_NONE;
       c = sl_calltree_get_node (tree, order, c)->next_sibling)
    if (_sl_flame_graph_get_frame (flame, c, &r) && r.size.width > *width)
      {
        *width = r.size.width;
        widest = c;
      }
  return widest;
}

static const char *
name_of (SlFlameGraph *flame,
         guint         node)
{
  SlCalltree *tree = sl_flame_graph_get_tree (flame);
  return sl_calltree_symbol_name (tree,
                                  sl_calltree_get_node (tree, sl_flame_graph_get_order (flame),
                                                        node)->symbol);
}

/* The node of the top-down tree at the path "a;b;c" from the root. */
static guint
find_path (SlCalltree *tree,
           const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, ";", -1);
  guint node = 0;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      guint32 c = sl_calltree_get_node (tree, SL_CALLTREE_TOP_DOWN, node)->first_child;
      while (c != SL_CALLTREE_NONE
             && strcmp (sl_calltree_symbol_name (tree, sl_calltree_get_node (
                            tree, SL_CALLTREE_TOP_DOWN, c)->symbol), parts[i]) != 0)
        c = sl_calltree_get_node (tree, SL_CALLTREE_TOP_DOWN, c)->next_sibling;
      g_assert_cmpuint (c, !=, SL_CALLTREE_NONE);
      node = c;
    }
  return node;
}

static void
test_flame_graph (void)
{
  g_autofree char *path = write_trace ();
  SlWindow *window = sl_test_open_window (app, 1400, 900, path, NULL);

  SlCalltreePanel *panel = SL_CALLTREE_PANEL (sl_window_get_calltree_panel (window));
  SlFlameGraph *flame = SL_FLAME_GRAPH (_sl_calltree_panel_get_flame_graph (panel));
  SlTimelineView *tv = SL_TIMELINE_VIEW (sl_window_get_timeline (window));
  SlTrace *trace = sl_window_get_trace (window);
  GtkNotebook *bottom = GTK_NOTEBOOK (gtk_widget_get_ancestor (GTK_WIDGET (panel),
                                                               GTK_TYPE_NOTEBOOK));
  gtk_notebook_set_current_page (bottom, gtk_notebook_page_num (bottom, GTK_WIDGET (panel)));
  sl_calltree_panel_set_view (panel, "flame-graph");

  /* the whole trace: parse_input is where most samples are taken */
  wait_for_panel (panel);
  SlCalltree *tree = _sl_calltree_panel_get_tree (panel);
  g_assert_cmpuint (sl_calltree_get_n_samples (tree), ==, N_PARSE + N_SPIN + N_LOG + N_IDLE);
  sl_calltree_panel_set_order (panel, SL_CALLTREE_BOTTOM_UP);
  sl_test_iterate_for (200);
  double width = 0;
  g_assert_cmpstr (name_of (flame, widest_below_zoom (flame, &width)), ==, "parse_input");

  /* select [100 ms, 200 ms) as a Shift+drag does: spin_hot is then the widest frame, as wide as
   * its share of the range's samples */
  sl_viewport_set_selection (sl_timeline_view_get_viewport (tv), 100 * PLANT_MS, 200 * PLANT_MS);
  wait_for_panel (panel);
  tree = _sl_calltree_panel_get_tree (panel);
  guint64 in_range = N_SPIN + N_LOG + 20;   /* the worker's samples every 5 ms */
  g_assert_cmpuint (sl_calltree_get_n_samples (tree), ==, in_range);
  guint widest = widest_below_zoom (flame, &width);
  g_assert_cmpstr (name_of (flame, widest), ==, "spin_hot");
  double full = gtk_widget_get_width (GTK_WIDGET (flame));
  g_assert_cmpfloat (fabs (width - full * N_SPIN / (double) in_range), <, 1.0);
  sl_test_screenshot (GTK_WIDGET (window), "calltree-bottom-up");

  /* top-down: main → run → spin_hot, spin_hot as wide as its samples; the table lists the path */
  sl_calltree_panel_set_order (panel, SL_CALLTREE_TOP_DOWN);
  sl_test_iterate_for (200);
  g_assert_cmpstr (name_of (flame, widest_below_zoom (flame, &width)), ==, "main");
  guint spin = find_path (tree, "main;run;spin_hot");
  graphene_rect_t r;
  g_assert_true (_sl_flame_graph_get_frame (flame, spin, &r));
  g_assert_cmpfloat (fabs (r.size.width - full * N_SPIN / (double) in_range), <, 1.0);
  g_assert_cmpuint (_sl_flame_graph_node_at (flame, r.origin.x + r.size.width / 2,
                                             r.origin.y + r.size.height / 2), ==, spin);

  /* search marks spin_hot: its samples are the matched ones */
  _sl_calltree_panel_set_search (panel, "SPIN");
  sl_test_iterate_for (100);
  g_assert_cmpuint (sl_flame_graph_get_matched (flame), ==, N_SPIN);
  g_assert_nonnull (strstr (_sl_calltree_panel_get_summary (panel), "“SPIN”: 150"));
  sl_test_screenshot (GTK_WIDGET (window), "calltree-flame-search");

  /* a click zooms into run: it fills the width, main and the root stay above it */
  guint run = find_path (tree, "main;run");
  g_assert_true (_sl_flame_graph_get_frame (flame, run, &r));
  g_assert_cmpuint (_sl_flame_graph_node_at (flame, r.origin.x + 2, r.origin.y + 2), ==, run);
  sl_flame_graph_set_zoom (flame, _sl_flame_graph_node_at (flame, r.origin.x + 2, r.origin.y + 2));
  sl_test_iterate_for (100);
  g_assert_true (_sl_flame_graph_get_frame (flame, run, &r));
  g_assert_cmpfloat (r.size.width, ==, full);
  g_assert_true (_sl_flame_graph_get_frame (flame, 0, &r));
  g_assert_true (_sl_flame_graph_get_frame (flame, spin, &r));
  g_assert_cmpfloat (fabs (r.size.width - full * N_SPIN / (double) (N_SPIN + N_LOG)), <, 1.0);
  sl_test_screenshot (GTK_WIDGET (window), "calltree-flame-zoom");
  sl_flame_graph_set_zoom (flame, 0);
  _sl_calltree_panel_set_search (panel, NULL);

  /* one thread: the worker's samples alone */
  for (guint t = 0; t < sl_trace_get_n_threads (trace); t++)
    if (sl_trace_get_thread (trace, t)->tid == PLANT_LOADER_0)
      sl_calltree_panel_set_thread (panel, (gint) t);
  wait_for_panel (panel);
  g_assert_cmpuint (sl_calltree_get_n_samples (_sl_calltree_panel_get_tree (panel)), ==, 20);
  g_assert_cmpstr (name_of (flame, widest_below_zoom (flame, &width)), ==, "start_thread");
  sl_calltree_panel_set_thread (panel, -1);
  wait_for_panel (panel);

  /* the table: the hottest path opened, Self and Total as the tree has them */
  sl_calltree_panel_set_view (panel, "tree");
  sl_test_iterate_for (200);
  g_assert_cmpuint (_sl_calltree_panel_get_n_rows (panel), >=, 4);
  sl_test_screenshot (GTK_WIDGET (window), "calltree-table");

  /* no selection: the whole trace again */
  sl_viewport_clear_selection (sl_timeline_view_get_viewport (tv));
  wait_for_panel (panel);
  g_assert_cmpuint (sl_calltree_get_n_samples (_sl_calltree_panel_get_tree (panel)), ==,
                    N_PARSE + N_SPIN + N_LOG + N_IDLE);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* `path` opened in a window of its own (`*window`), the call tree panel shown as a flame graph
 * and its tree built. */
static SlCalltreePanel *
open_flame_graph (const char *path,
                  SlWindow  **window)
{
  *window = sl_test_open_window (app, 1400, 900, path, NULL);

  SlCalltreePanel *panel = SL_CALLTREE_PANEL (sl_window_get_calltree_panel (*window));
  GtkNotebook *bottom = GTK_NOTEBOOK (gtk_widget_get_ancestor (GTK_WIDGET (panel),
                                                               GTK_TYPE_NOTEBOOK));
  gtk_notebook_set_current_page (bottom, gtk_notebook_page_num (bottom, GTK_WIDGET (panel)));
  sl_calltree_panel_set_view (panel, "flame-graph");
  wait_for_panel (panel);
  return panel;
}

/* A real nsys trace with 13 303 samples of C++ code: bottom-up, the widest frame is the function
 * with most self samples (the model's first function); top-down, a frame is as wide as its
 * samples. */
static void
test_real_trace (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2023.2-cutlass-cpu-sampling.sqlite");
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("real nsys traces not found");
      return;
    }
  SlWindow *window = NULL;
  SlCalltreePanel *panel = open_flame_graph (path, &window);
  SlFlameGraph *flame = SL_FLAME_GRAPH (_sl_calltree_panel_get_flame_graph (panel));
  SlCalltree *tree = _sl_calltree_panel_get_tree (panel);
  g_assert_cmpuint (sl_calltree_get_n_samples (tree), ==, 13303);
  sl_test_screenshot (GTK_WIDGET (window), "calltree-cutlass-top-down");

  double full = gtk_widget_get_width (GTK_WIDGET (flame)), width = 0;
  const SlCalltreeNode *root = sl_calltree_get_node (tree, SL_CALLTREE_TOP_DOWN, 0);
  graphene_rect_t r;
  for (guint32 c = root->first_child; c != SL_CALLTREE_NONE;
       c = sl_calltree_get_node (tree, SL_CALLTREE_TOP_DOWN, c)->next_sibling)
    {
      double share = full * (double) sl_calltree_get_node (tree, SL_CALLTREE_TOP_DOWN, c)->total
                     / (double) root->total;
      if (share >= 1)
        {
          g_assert_true (_sl_flame_graph_get_frame (flame, c, &r));
          g_assert_cmpfloat (fabs (r.size.width - share), <, 1.0);
        }
    }

  sl_calltree_panel_set_order (panel, SL_CALLTREE_BOTTOM_UP);
  sl_test_iterate_for (200);
  const SlCalltreeFunction *hottest = sl_calltree_get_function (tree, 0);
  g_assert_cmpstr (name_of (flame, widest_below_zoom (flame, &width)), ==,
                   sl_calltree_symbol_name (tree, hottest->symbol));
  g_assert_cmpfloat (fabs (width - full * (double) hottest->self / 13303.0), <, 1.0);
  sl_test_screenshot (GTK_WIDGET (window), "calltree-cutlass-bottom-up");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A PyTorch profiler trace (no CPU samples): the panel shows its nested ranges by time and says
 * so; a frame's tooltip and the table give times. */
static void
test_kineto_ranges (void)
{
  g_autofree char *path = sl_test_trace_path (
      "pytorch/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz");
  SlWindow *window = NULL;
  SlCalltreePanel *panel = open_flame_graph (path, &window);
  SlCalltree *tree = _sl_calltree_panel_get_tree (panel);
  g_assert_cmpint (sl_calltree_get_unit (tree), ==, SL_CALLTREE_NANOSECONDS);
  g_assert_cmpuint (sl_calltree_get_n_samples (tree), >, 0);
  const char *summary = _sl_calltree_panel_get_summary (panel);
  g_test_message ("%s", summary);
  g_assert_true (g_str_has_prefix (summary, "No CPU samples: nested ranges by time, "));
  /* the widest frame under the root, bottom-up: the function with most self time */
  sl_calltree_panel_set_order (panel, SL_CALLTREE_BOTTOM_UP);
  sl_test_iterate_for (200);
  double width = 0;
  SlFlameGraph *flame = SL_FLAME_GRAPH (_sl_calltree_panel_get_flame_graph (panel));
  g_assert_cmpstr (name_of (flame, widest_below_zoom (flame, &width)), ==,
                   sl_calltree_symbol_name (tree, sl_calltree_get_function (tree, 0)->symbol));
  sl_test_screenshot (GTK_WIDGET (window), "calltree-kineto-ranges");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Issue 30: a trace with CUDA backtraces offers CUDA API calls as the source, by count and by
 * time: the tree is the model's for that source (calls by API name as `samples --source cuda-api`
 * has them), the summary says what it counts, and the widest frame bottom-up is the API called
 * most; a trace without them offers CPU samples only. */
static void
test_cuda_api_source (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2021-cuda-backtraces.sqlite");
  SlWindow *window = NULL;
  SlCalltreePanel *panel = open_flame_graph (path, &window);
  SlFlameGraph *flame = SL_FLAME_GRAPH (_sl_calltree_panel_get_flame_graph (panel));

  g_assert_true (_sl_calltree_panel_has_sources (panel));
  g_assert_cmpint (sl_calltree_get_source (_sl_calltree_panel_get_tree (panel)), ==,
                   SL_CALLTREE_FROM_SAMPLES);
  _sl_calltree_panel_set_source (panel, SL_CALLTREE_FROM_CUDA_API, SL_CALLTREE_BY_COUNT);
  wait_for_panel (panel);
  SlCalltree *tree = _sl_calltree_panel_get_tree (panel);
  g_assert_cmpint (sl_calltree_get_source (tree), ==, SL_CALLTREE_FROM_CUDA_API);
  g_assert_cmpint (sl_calltree_get_unit (tree), ==, SL_CALLTREE_CALLS);
  g_assert_cmpuint (sl_calltree_get_n_samples (tree), ==, 18);
  const char *summary = _sl_calltree_panel_get_summary (panel);
  g_test_message ("%s", summary);
  g_assert_true (g_str_has_prefix (summary, "CUDA API calls with a backtrace: 18 calls"));
  sl_calltree_panel_set_order (panel, SL_CALLTREE_BOTTOM_UP);
  sl_test_iterate_for (200);
  double width = 0;
  g_assert_cmpstr (name_of (flame, widest_below_zoom (flame, &width)), ==,
                   "cudaDeviceSynchronize");
  sl_test_screenshot (GTK_WIDGET (window), "calltree-cuda-api-count");

  _sl_calltree_panel_set_source (panel, SL_CALLTREE_FROM_CUDA_API, SL_CALLTREE_BY_TIME);
  wait_for_panel (panel);
  tree = _sl_calltree_panel_get_tree (panel);
  g_assert_cmpint (sl_calltree_get_unit (tree), ==, SL_CALLTREE_NANOSECONDS);
  sqlite3 *db = sl_test_open_db (path);
  g_assert_cmpuint (sl_calltree_get_n_samples (tree), ==,
                    sl_test_sql_int (db, "SELECT sum(end - start) FROM "
                                         "CUPTI_ACTIVITY_KIND_RUNTIME WHERE callchainId IS NOT "
                                         "NULL"));
  sqlite3_close (db);
  sl_test_iterate_for (200);
  sl_test_screenshot (GTK_WIDGET (window), "calltree-cuda-api-time");
  gtk_window_destroy (GTK_WINDOW (window));

  g_autofree char *plain = sl_test_trace_path ("nsys/nsys-2023.2-cutlass-cpu-sampling.sqlite");
  panel = open_flame_graph (plain, &window);
  g_assert_false (_sl_calltree_panel_has_sources (panel));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *home = g_build_filename (sl_test_tmpdir (), "xdg-data", NULL);
  g_autoptr (GError) error = NULL;

  /* recent files go to a throwaway data directory, not the person's */
  g_mkdir_with_parents (home, 0700);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  g_test_init (&argc, &argv, NULL);
  app = sl_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_application_hold (G_APPLICATION (app));
  g_test_add_func ("/ui-calltree/flame-graph", test_flame_graph);
  g_test_add_func ("/ui-calltree/real-trace", test_real_trace);
  g_test_add_func ("/ui-calltree/kineto-ranges", test_kineto_ranges);
  g_test_add_func ("/ui-calltree/cuda-api-source", test_cuda_api_source);
  int ret = g_test_run ();
  g_application_release (G_APPLICATION (app));
  g_object_unref (app);
  return ret;
}
