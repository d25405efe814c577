/* sl-detail-graph.c: the detail pane's account of a CUDA graph launch: ids, stream, GPU time,
 * its nodes (traced node by node) or why they are not in the trace (traced whole), the
 * cudaGraphLaunch call that ran it, and where the graph and the node were made
 * (CUDA_GRAPH_EVENTS, CUDA_GRAPH_NODE_EVENTS: the API call around each row, and its backtrace).
 *
 * A launch has 10 … 10^3 nodes: the pane lists the first MAX_NODES of them.
 */
#include "sl-detail-pane-private.h"
#include "sl-display-name.h"

#include "sl-format.h"

#define MAX_NODES  64
#define MAX_MADE   16   /* rows about one graph or node: creation, instantiation, clones */
#define MAX_FRAMES 32   /* of a creating call's backtrace */

static const char *
str_of (SlTrace *trace,
        guint32  id)
{
  const char *s = sl_trace_str (trace, id);

  return s != NULL && *s != '\0' ? s : "—";
}

static char *
offset_text (SlTrace *trace,
             SlTime   t)
{
  return _sl_detail_pane_format_offset (t - sl_trace_get_origin (trace), 1000);
}

static char *
thread_text (SlTrace *trace,
             guint64  global_tid)
{
  for (guint i = 0; i < sl_trace_get_n_threads (trace); i++)
    {
      const SlThread *th = sl_trace_get_thread (trace, i);
      if (th->global_tid == global_tid)
        return th->name != SL_NO_STR
                 ? g_strdup_printf ("%s (tid %u)", str_of (trace, th->name), th->tid)
                 : g_strdup_printf ("tid %u", th->tid);
    }
  return g_strdup_printf ("tid %" G_GUINT64_FORMAT, global_tid & 0xFFFFFF);
}

/* What a creation row says happened, from its event class (ENUM_NSYS_EVENT_CLASS), else its
 * nameId. */
static const char *
made_what (SlTrace           *trace,
           const SlGraphMade *m)
{
  switch (m->event_class)
    {
    case 95: return "Graph created";
    case 94: return "Executable graph instantiated";
    case 96: return "Graph cloned";
    case 77: return m->original != 0 ? "Node cloned" : "Node created";
    default: return m->name != SL_NO_STR ? str_of (trace, m->name) : "Made";
    }
}

/* One row of CUDA_GRAPH_EVENTS / CUDA_GRAPH_NODE_EVENTS: "Created by cudaStreamEndCapture at
 * +1.234 s on thread X", a link to that call, its backtrace. */
static void
add_made (SlDetailPane *self,
          SlTrace      *trace,
          guint         i)
{
  const SlGraphMade *m = sl_trace_get_graph_made (trace, i);
  guint32 call = sl_trace_get_graph_made_call (trace, i);
  g_autofree char *at = offset_text (trace, m->start);
  g_autofree char *thread = thread_text (trace, m->global_tid);
  g_autofree char *text = NULL;
  const SlLane *lane;
  gsize index;

  if (call == SL_NO_LINK || !sl_trace_resolve (trace, call, &lane, &index))
    {
      text = g_strdup_printf ("at %s on %s (no CUDA API call of that thread holds it)", at,
                              thread);
      _sl_detail_pane_row (self, made_what (trace, m), text);
      return;
    }
  const SlEvent *ev = &lane->events[index];
  const char *name = sl_trace_display_name (trace, SL_LANE_CUDA_API, ev->name);
  text = g_strdup_printf ("by %s at %s on %s", name, at, thread);
  _sl_detail_pane_row (self, made_what (trace, m), text);
  {
    g_autofree char *go = g_strdup_printf ("Go to %s", name);
    _sl_detail_pane_link (self, go, lane, index);
  }
  const guint32 *syms, *mods;
  guint n = sl_trace_get_cuda_callchain (trace, lane, ev, &syms, &mods);
  for (guint k = 0; k < n && k < MAX_FRAMES; k++)
    {
      const char *module = str_of (trace, mods[k]);
      g_autofree char *frame = g_strdup_printf ("%s  (%s)", str_of (trace, syms[k]), module);
      _sl_detail_pane_row (self, k == 0 ? "Backtrace" : "", frame);
    }
  if (n > MAX_FRAMES)
    {
      g_autofree char *more = g_strdup_printf ("… %u more frames", n - MAX_FRAMES);
      _sl_detail_pane_row (self, "", more);
    }
}

/* The executable graph's id where the trace says (a graph exec creation row of this graph). */
static guint64
exec_id_of (SlTrace *trace,
            guint32  graph_id)
{
  guint made[MAX_MADE];
  guint n = sl_trace_find_graph_made (trace, SL_GRAPH_MADE_GRAPH, graph_id, made, MAX_MADE);

  for (guint i = 0; i < n; i++)
    if (sl_trace_get_graph_made (trace, made[i])->exec_id != 0)
      return sl_trace_get_graph_made (trace, made[i])->exec_id;
  return 0;
}

static void
add_launch_call (SlDetailPane *self,
                 SlTrace      *trace,
                 guint32       launch,
                 guint32       corr)
{
  const SlLane *lane;
  gsize index;

  if (launch == SL_NO_LINK || !sl_trace_resolve (trace, launch, &lane, &index))
    {
      _sl_detail_pane_row (self, "Launched by",
                           "not in the trace (no CUDA API call has this correlation id)");
      return;
    }
  const char *name = sl_trace_display_name (trace, SL_LANE_CUDA_API, lane->events[index].name);
  g_autofree char *text = g_strdup_printf ("%s (correlation id %u)", name, corr);
  g_autofree char *go = g_strdup_printf ("Go to %s", name);
  _sl_detail_pane_row (self, "Launched by", text);
  _sl_detail_pane_link (self, go, lane, index);
}

static void
add_graph_made (SlDetailPane *self,
                SlTrace      *trace,
                guint32       graph_id)
{
  guint made[MAX_MADE];
  guint n = sl_trace_find_graph_made (trace, SL_GRAPH_MADE_GRAPH, graph_id, made, MAX_MADE);

  if (n == 0)
    {
      if (sl_trace_get_n_graph_made (trace) == 0)
        _sl_detail_pane_row (self, "Made", "not in the trace (no CUDA_GRAPH_EVENTS)");
      else
        _sl_detail_pane_row (self, "Made", "not in the trace (CUDA_GRAPH_EVENTS has no row of "
                                           "this graph)");
      return;
    }
  for (guint i = 0; i < n; i++)
    add_made (self, trace, made[i]);
}

void
_sl_detail_graph_show (SlDetailPane  *self,
                       SlTrace       *trace,
                       const SlLane  *lane,
                       const SlEvent *ev)
{
  const SlKernelInfo *ki = sl_trace_get_kernel_info (trace, ev->aux);

  if (ki == NULL || ki->graph_id == 0)
    return;
  if (lane->kind == SL_LANE_GRAPHS)
    {
      /* traced whole: the pane has its ids and launch already */
      _sl_detail_pane_heading (self, "Where the graph was made");
      add_graph_made (self, trace, ki->graph_id);
      return;
    }

  const SlGraphGroup *g = sl_trace_find_graph_group (trace, lane->index,
                                                     (gsize) (ev - lane->events));
  if (g == NULL)
    return;
  const guint32 *nodes = sl_trace_get_graph_group_nodes (trace, g);
  guint64 exec_id = exec_id_of (trace, g->graph_id);
  g_autofree char *title = g_strdup_printf ("CUDA Graph %u", g->graph_id);
  g_autofree char *start = offset_text (trace, g->start);
  g_autofree char *dur = sl_format_duration (g->end - g->start);
  g_autofree char *stream = g_strdup_printf ("%u", lane->stream_id);
  g_autofree char *count = g_strdup_printf ("%u", g->n_nodes);
  g_autofree char *id = g_strdup_printf ("%u", g->graph_id);
  g_autofree char *exec = exec_id != 0 ? g_strdup_printf ("%" G_GUINT64_FORMAT, exec_id)
                                       : g_strdup ("not in the trace");

  _sl_detail_pane_heading (self, title);
  _sl_detail_pane_row (self, "Kind", "CUDA graph launch (traced node by node)");
  _sl_detail_pane_row (self, "Graph id", id);
  _sl_detail_pane_row (self, "Graph exec id", exec);
  _sl_detail_pane_row (self, "Stream", stream);
  _sl_detail_pane_row (self, "Start", start);
  _sl_detail_pane_row (self, "GPU time", dur);
  _sl_detail_pane_row (self, "Node count", count);
  add_launch_call (self, trace, g->launch, g->corr);

  _sl_detail_pane_heading (self, "Nodes");
  for (guint k = 0; k < g->n_nodes && k < MAX_NODES; k++)
    {
      const SlEvent *node = &lane->events[nodes[k]];
      const SlKernelInfo *nk = sl_trace_get_kernel_info (trace, node->aux);
      g_autofree char *key = g_strdup_printf ("%u", k + 1);
      g_autofree char *d = sl_format_duration (node->end - node->start);
      g_autofree char *text = g_strdup_printf ("%s%s — %s", node == ev ? "▶ " : "",
                                               str_of (trace, nk != NULL ? nk->short_name
                                                                         : node->name), d);
      _sl_detail_pane_row (self, key, text);
    }
  if (g->n_nodes > MAX_NODES)
    {
      g_autofree char *more = g_strdup_printf ("… %u more nodes", g->n_nodes - MAX_NODES);
      _sl_detail_pane_row (self, "", more);
    }

  _sl_detail_pane_heading (self, "Where the graph was made");
  add_graph_made (self, trace, g->graph_id);
  {
    guint made[MAX_MADE];
    guint n = sl_trace_find_graph_made (trace, SL_GRAPH_MADE_NODE, ki->graph_node_id, made,
                                        MAX_MADE);
    if (n > 0)
      {
        _sl_detail_pane_heading (self, "Where this node was made");
        for (guint i = 0; i < n; i++)
          add_made (self, trace, made[i]);
      }
  }
}
