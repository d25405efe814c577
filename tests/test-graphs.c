/* test-graphs.c: CUDA graph launches traced node by node, grouped per launch (sl-graph-groups.c),
 * and where graphs and nodes were made (CUDA_GRAPH_EVENTS, CUDA_GRAPH_NODE_EVENTS), on traces
 * sightline-gen writes with --graphs, against SQL over the same files. */
#include <sqlite3.h>
#include <string.h>

#include "sl-inventory.h"
#include "sl-lane.h"
#include "sl-test-util.h"
#include "sl-trace-private.h"

static char *
gen_trace (const char *mode,
           const char *gpus)
{
  g_autofree char *name = g_strdup_printf ("graphs-%s-%s.sqlite", mode, gpus);
  char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
  g_auto (SlTestRun) run = { 0 };

  sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "20000", "--gpus", gpus, "--graphs", mode,
               "--force", NULL);
  g_assert_cmpint (run.status, ==, 0);
  return path;
}

static gint64
query_int (const char *path,
           const char *sql)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gint64 v;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  v = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return v;
}

static const char *
call_name (SlTrace *trace,
           guint32  call)
{
  const SlLane *lane;
  gsize index;

  if (call == SL_NO_LINK || !sl_trace_resolve (trace, call, &lane, &index))
    return NULL;
  g_assert_cmpint (lane->kind, ==, SL_LANE_CUDA_API);
  return sl_trace_str (trace, lane->events[index].name);
}

/* Every node kernel is in exactly one group, found again from the kernel; a group spans its
 * nodes' min start to max end, holds one launch's 8 nodes, and names that cudaGraphLaunch call;
 * as many groups as the file has launches. */
static void
test_groups_node (void)
{
  g_autofree char *path = gen_trace ("node", "2");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  gint64 launches = query_int (path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN "
                                     "StringIds s ON s.id = r.nameId WHERE s.value = "
                                     "'cudaGraphLaunch_v10000'");
  gint64 node_kernels = query_int (path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE "
                                         "graphId IS NOT NULL");
  guint n_groups = 0, n_nodes = 0;

  g_assert_no_error (error);
  g_assert_cmpint (launches, >, 20);
  g_assert_cmpuint (sl_trace_get_n_graph_groups (trace), ==, (guint) launches);
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      const SlGraphGroup *groups;
      guint n = sl_trace_get_graph_groups (trace, l, &groups);
      g_autofree guint8 *seen = g_new0 (guint8, MAX (lane->n_events, 1));

      if (lane->kind != SL_LANE_KERNELS)
        {
          g_assert_cmpuint (n, ==, 0);
          continue;
        }
      for (guint g = 0; g < n; g++)
        {
          const SlGraphGroup *grp = &groups[g];
          const guint32 *nodes = sl_trace_get_graph_group_nodes (trace, grp);
          SlTime lo = G_MAXINT64, hi = G_MININT64;

          g_assert_cmpuint (grp->lane, ==, l);
          g_assert_cmpuint (grp->n_nodes, ==, 8);
          if (g > 0)
            g_assert_cmpint (groups[g - 1].start, <=, grp->start);
          for (guint k = 0; k < grp->n_nodes; k++)
            {
              const SlEvent *ev = &lane->events[nodes[k]];
              const SlKernelInfo *ki = sl_trace_get_kernel_info (trace, ev->aux);
              if (k > 0)
                g_assert_cmpuint (nodes[k - 1], <, nodes[k]);
              g_assert_cmpuint (seen[nodes[k]], ==, 0);
              seen[nodes[k]] = 1;
              g_assert_cmpuint (ki->graph_id, ==, grp->graph_id);
              g_assert_cmpuint (ev->corr, ==, grp->corr);
              g_assert_true (sl_trace_find_graph_group (trace, l, nodes[k]) == grp);
              lo = MIN (lo, ev->start);
              hi = MAX (hi, ev->end);
            }
          g_assert_cmpint (grp->start, ==, lo);
          g_assert_cmpint (grp->end, ==, hi);
          g_assert_cmpstr (call_name (trace, grp->launch), ==, "cudaGraphLaunch_v10000");
          n_nodes += grp->n_nodes;
          n_groups++;
        }
      /* and the kernels of no graph are in none */
      for (gsize i = 0; i < lane->n_events; i++)
        {
          const SlKernelInfo *ki = sl_trace_get_kernel_info (trace, lane->events[i].aux);
          g_assert_cmpint (seen[i], ==, ki->graph_id != 0);
          if (ki->graph_id == 0)
            g_assert_null (sl_trace_find_graph_group (trace, l, i));
        }
    }
  g_assert_cmpuint (n_groups, ==, (guint) launches);
  g_assert_cmpuint (n_nodes, ==, (guint) node_kernels);
}

/* Graph mode: launches are GRAPH_TRACE rows, no kernel is a node, no group; the launch arrow
 * from each launch goes to its cudaGraphLaunch call (correlation). */
static void
test_groups_graph (void)
{
  g_autofree char *path = gen_trace ("graph", "1");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  guint n_launches = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_graph_groups (trace), ==, 0);
  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind != SL_LANE_GRAPHS)
        continue;
      for (gsize i = 0; i < lane->n_events; i++, n_launches++)
        g_assert_cmpstr (call_name (trace, lane->events[i].link), ==, "cudaGraphLaunch_v10000");
    }
  g_assert_cmpint (n_launches, ==, query_int (path, "SELECT count(*) FROM "
                                                    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"));
}

/* CUDA_GRAPH_EVENTS and CUDA_GRAPH_NODE_EVENTS: every row read, counted by `info` as loaded;
 * each tied to the API call on its thread that holds it; a graph's rows (captured, then
 * instantiated) and a node's chain (made in the capture, cloned by the instantiation). */
static void
test_made (void)
{
  static const char *const modes[] = { "node", "graph" };

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autofree char *path = gen_trace (modes[m], "2");
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      gint64 graphs = query_int (path, "SELECT count(*) FROM CUDA_GRAPH_EVENTS");
      gint64 nodes = query_int (path, "SELECT count(*) FROM CUDA_GRAPH_NODE_EVENTS");
      guint found[16];

      g_assert_no_error (error);
      g_assert_cmpint (graphs, ==, 4);        /* 2 GPUs: a graph each, made and instantiated */
      g_assert_cmpint (nodes, ==, 2 * 2 * 8); /* each node made, then cloned */
      g_assert_cmpuint (sl_trace_get_n_graph_made (trace), ==, (guint) (graphs + nodes));
      for (guint i = 0; i < sl_trace_get_n_graph_made (trace); i++)
        {
          const SlGraphMade *made = sl_trace_get_graph_made (trace, i);
          guint32 call = sl_trace_get_graph_made_call (trace, i);
          const SlLane *lane;
          gsize index;
          g_assert_true (sl_trace_resolve (trace, call, &lane, &index));
          g_assert_cmpint (lane->events[index].start, <=, made->start);
          g_assert_cmpint (lane->events[index].end, >=, made->end);
          g_assert_cmpuint (sl_trace_get_thread (trace, (guint) lane->thread)->global_tid, ==,
                            made->global_tid);
        }
      for (guint32 graph = 1; graph <= 2; graph++)
        {
          guint n = sl_trace_find_graph_made (trace, SL_GRAPH_MADE_GRAPH, graph, found, 16);
          g_assert_cmpuint (n, ==, 2);
          g_assert_cmpint (sl_trace_get_graph_made (trace, found[0])->event_class, ==, 95);
          g_assert_cmpstr (call_name (trace, sl_trace_get_graph_made_call (trace, found[0])), ==,
                           "cudaStreamEndCapture_v10000");
          g_assert_cmpint (sl_trace_get_graph_made (trace, found[1])->event_class, ==, 94);
          g_assert_cmpuint (sl_trace_get_graph_made (trace, found[1])->exec_id, ==, 100 + graph);
          g_assert_cmpstr (call_name (trace, sl_trace_get_graph_made_call (trace, found[1])), ==,
                           "cudaGraphInstantiate_v10000");
          /* node 3 of the graph: made by a launch in the capture, cloned into the exec graph */
          n = sl_trace_find_graph_made (trace, SL_GRAPH_MADE_NODE,
                                        ((guint64) graph << 32) | 3, found, 16);
          g_assert_cmpuint (n, ==, 2);
          g_assert_cmpuint (sl_trace_get_graph_made (trace, found[0])->original, ==, 0);
          g_assert_cmpstr (call_name (trace, sl_trace_get_graph_made_call (trace, found[0])), ==,
                           "cudaLaunchKernel_v7000");
          g_assert_cmpuint (sl_trace_get_graph_made (trace, found[1])->id, ==,
                            ((guint64) graph << 32) | 3);
          g_assert_cmpstr (call_name (trace, sl_trace_get_graph_made_call (trace, found[1])), ==,
                           "cudaGraphInstantiate_v10000");
        }

      /* info: loaded = rows */
      SlInventory *inv = sl_inventory_new (trace, &error);
      g_assert_no_error (error);
      guint checked = 0;
      for (guint i = 0; i < sl_inventory_get_n_tables (inv); i++)
        {
          const SlTableInfo *t = sl_inventory_get_table (inv, i);
          if (g_strcmp0 (t->name, "CUDA_GRAPH_EVENTS") != 0
              && g_strcmp0 (t->name, "CUDA_GRAPH_NODE_EVENTS") != 0)
            continue;
          g_assert_cmpint (t->state, ==, SL_TABLE_LOADED);
          g_assert_cmpint (t->loaded, ==, t->rows);
          g_assert_cmpint (t->rows, ==,
                           g_str_equal (t->name, "CUDA_GRAPH_EVENTS") ? graphs : nodes);
          checked++;
        }
      g_assert_cmpuint (checked, ==, 2);
      sl_inventory_free (inv);
    }
}

/* A row with no thread or no id is skipped (and said so), the others read. */
static void
test_made_bad_rows (void)
{
  g_autofree char *src = gen_trace ("node", "1");
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "graphs-bad.sqlite", NULL);
  g_autoptr (GError) error = NULL;
  sqlite3 *db = NULL;

  g_autoptr (GFile) from = g_file_new_for_path (src);
  g_autoptr (GFile) to = g_file_new_for_path (path);
  g_assert_true (g_file_copy (from, to, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, &error));
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "UPDATE CUDA_GRAPH_EVENTS SET globalTid = NULL WHERE "
                                     "eventClass = 94; INSERT INTO CUDA_GRAPH_NODE_EVENTS VALUES "
                                     "(5, 6, 77, NULL, 1, 9, NULL)", NULL, NULL, NULL),
                   ==, SQLITE_OK);
  sqlite3_close (db);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_graph_made (trace), ==, 1 + 16);
}

/* The model cache keeps the creation rows (SEC_GRAPH_MADE) and a cached load groups the same
 * launches. */
static void
test_cache (void)
{
  g_autofree char *path = gen_trace ("node", "2");
  g_autofree char *home = g_build_filename (sl_test_tmpdir (), "graphs-cache", NULL);
  g_autoptr (GError) error = NULL;
  SlCacheStats before, after;

  g_setenv ("XDG_CACHE_HOME", home, TRUE);
  g_setenv ("SIGHTLINE_CACHE", "1", TRUE);
  g_setenv ("SIGHTLINE_CACHE_MIN_MS", "0", TRUE);
  g_autoptr (SlTrace) fresh = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  _sl_trace_cache_get_stats (&before);
  g_autoptr (SlTrace) cached = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  _sl_trace_cache_get_stats (&after);
  g_unsetenv ("SIGHTLINE_CACHE");
  g_assert_cmpuint (after.hits, ==, before.hits + 1);
  g_assert_cmpuint (sl_trace_get_n_graph_made (cached), ==, sl_trace_get_n_graph_made (fresh));
  g_assert_cmpuint (sl_trace_get_n_graph_made (fresh), >, 0);
  for (guint i = 0; i < sl_trace_get_n_graph_made (fresh); i++)
    {
      g_assert_cmpmem (sl_trace_get_graph_made (fresh, i), sizeof (SlGraphMade),
                       sl_trace_get_graph_made (cached, i), sizeof (SlGraphMade));
      g_assert_cmpuint (sl_trace_get_graph_made_call (fresh, i), ==,
                        sl_trace_get_graph_made_call (cached, i));
    }
  g_assert_cmpuint (sl_trace_get_n_graph_groups (cached), ==,
                    sl_trace_get_n_graph_groups (fresh));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/graphs/groups/node", test_groups_node);
  g_test_add_func ("/graphs/groups/graph", test_groups_graph);
  g_test_add_func ("/graphs/made", test_made);
  g_test_add_func ("/graphs/made/bad-rows", test_made_bad_rows);
  g_test_add_func ("/graphs/cache", test_cache);
  return g_test_run ();
}
