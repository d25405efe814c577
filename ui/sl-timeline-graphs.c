/* sl-timeline-graphs.c: CUDA graph launches traced node by node, as nsys-ui shows them: a
 * "CUDA graphs" row under a stream's kernels with one box per launch (its nodes grouped by the
 * model, sl_trace_get_graph_groups), which opens (double-click, or "Expand Graph" in the
 * context menu) into a "Graph nodes" row beneath that shows the launch's kernels, and closes
 * again.
 *
 * A frame walks the launches of the visible window only (typically 10^2 … 10^5 in a trace; a
 * binary search finds the first), boxes narrower than a pixel merged by the frame's Batch.  The
 * launches open are remembered by lane and start (a live update keeps them: a launch keeps its
 * lane and start in the next load), on the widget as object data so that the timeline's struct
 * and finalize stay as they are; typically a handful.
 */
#include "sl-timeline-view-private.h"
#include "sl-format.h"

#define OPEN_KEY "sl-timeline-graphs-open"

static GHashTable *
open_set (SlTimelineView *self,
          gboolean        create)
{
  GHashTable *set = g_object_get_data (G_OBJECT (self), OPEN_KEY);

  if (set == NULL && create)
    {
      set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_object_set_data_full (G_OBJECT (self), OPEN_KEY, set,
                              (GDestroyNotify) g_hash_table_unref);
    }
  return set;
}

static char *
open_key (guint               lane,
          const SlGraphGroup *g)
{
  return g_strdup_printf ("%u:%" G_GINT64_FORMAT, lane, g->start);
}

gboolean
_sl_timeline_graph_is_open (SlTimelineView     *self,
                            guint               lane,
                            const SlGraphGroup *g)
{
  GHashTable *set = open_set (self, FALSE);

  if (set == NULL || g_hash_table_size (set) == 0)
    return FALSE;
  g_autofree char *key = open_key (lane, g);
  return g_hash_table_contains (set, key);
}

/* The index of the first launch of `lane` that ends at or after t (launches of a stream do not
 * overlap: their ends are in order too, where not, a few more are looked at). */
static guint
first_visible (const SlGraphGroup *groups,
               guint               n,
               SlTime              t)
{
  guint lo = 0, hi = n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (groups[mid].start < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  while (lo > 0 && groups[lo - 1].end >= t)
    lo--;
  return lo;
}

gboolean
_sl_timeline_graphs_any_open (SlTimelineView *self,
                              guint           lane)
{
  const SlGraphGroup *groups;
  GHashTable *set = open_set (self, FALSE);

  if (set == NULL || g_hash_table_size (set) == 0 || self->trace == NULL)
    return FALSE;
  guint n = sl_trace_get_graph_groups (self->trace, lane, &groups);
  g_autofree char *prefix = g_strdup_printf ("%u:", lane);
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, set);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (g_str_has_prefix (key, prefix))
      {
        SlTime start = g_ascii_strtoll ((const char *) key + strlen (prefix), NULL, 10);
        guint i = first_visible (groups, n, start);   /* a few keys, each found by halving */
        for (; i < n && groups[i].start <= start; i++)
          if (groups[i].start == start)
            return TRUE;
      }
  return FALSE;
}

void
_sl_timeline_graph_set_open (SlTimelineView     *self,
                             guint               lane,
                             const SlGraphGroup *g,
                             gboolean            open)
{
  GHashTable *set = open_set (self, TRUE);
  g_autofree char *key = open_key (lane, g);

  if (open == g_hash_table_contains (set, key))
    return;
  if (open)
    g_hash_table_add (set, g_steal_pointer (&key));
  else
    g_hash_table_remove (set, key);
  _sl_timeline_rows_rebuild (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static char *
group_label (SlTimelineView     *self,
             guint               lane,
             const SlGraphGroup *g)
{
  return g_strdup_printf ("%s CUDA Graph %u · %u nodes",
                          _sl_timeline_graph_is_open (self, lane, g) ? "▾" : "▸", g->graph_id,
                          g->n_nodes);
}

void
_sl_timeline_graphs_draw (SlTimelineView *self,
                          GtkSnapshot    *snapshot,
                          const Frame    *f,
                          const Row      *r,
                          double          y)
{
  const SlGraphGroup *groups;
  guint n = sl_trace_get_graph_groups (self->trace, (guint) r->lane, &groups);
  const SlLane *lane = sl_trace_get_lane (self->trace, (guint) r->lane);
  Batch batch = { .snapshot = snapshot };
  GdkRGBA text = _sl_timeline_text_on (&self->pal.graph);

  for (guint i = first_visible (groups, n, f->t0); i < n && groups[i].start <= f->t1; i++)
    {
      const SlGraphGroup *g = &groups[i];
      double x0 = MAX (frame_x (f, g->start), HEADER_W);
      double x1 = MIN (MAX (frame_x (f, g->end), x0 + 1), f->right);

      if (r->kind == ROW_GRAPHS)
        {
          batch_add (&batch, x0, x1, y + 1, r->h - 2, &self->pal.graph);
          if (x1 - x0 >= TEXT_MIN_W)
            {
              g_autofree char *label = group_label (self, (guint) r->lane, g);
              batch_flush (&batch);
              _sl_timeline_draw_text (self, snapshot, SL_NO_STR, label, x0 + 3,
                                      y + (r->h - self->text_h) / 2, x1 - x0 - 6, &text);
            }
          continue;
        }
      /* ROW_GRAPH_NODES: the kernels of the launches open */
      if (!_sl_timeline_graph_is_open (self, (guint) r->lane, g))
        continue;
      const guint32 *nodes = sl_trace_get_graph_group_nodes (self->trace, g);
      for (guint k = 0; k < g->n_nodes; k++)
        {
          const SlEvent *ev = &lane->events[nodes[k]];
          double a = MAX (frame_x (f, ev->start), HEADER_W);
          double b = MIN (MAX (frame_x (f, ev->end), a + 1), f->right);
          GdkRGBA c = _sl_timeline_event_color (self, lane, ev);
          if (b < HEADER_W || a > f->right)
            continue;
          batch_add (&batch, a, b, y + 1, r->h - 2, &c);
          if (b - a >= TEXT_MIN_W)
            {
              GdkRGBA tc = _sl_timeline_text_on (&c);
              guint32 id;
              const char *label = _sl_timeline_event_label (self, lane, ev, &id);
              batch_flush (&batch);
              _sl_timeline_draw_text (self, snapshot, id, label, a + 2,
                                      y + (r->h - self->text_h) / 2, b - a - 4, &tc);
            }
          /* a thin gap between nodes that touch, so that they read as several */
          if (b - a >= 4)
            batch_add (&batch, b - 1, b, y + 1, r->h - 2, &self->pal.bg);
        }
    }
  batch_flush (&batch);
  gtk_snapshot_append_color (snapshot, &self->pal.grid,
                             &GRAPHENE_RECT_INIT (HEADER_W, y + r->h - 1, f->width, 1));
}

const SlGraphGroup *
_sl_timeline_graphs_group_at (SlTimelineView *self,
                              const Row      *r,
                              double          x)
{
  const SlGraphGroup *groups, *best = NULL;
  double best_d = 3;

  if (self->trace == NULL || (r->kind != ROW_GRAPHS && r->kind != ROW_GRAPH_NODES))
    return NULL;
  guint n = sl_trace_get_graph_groups (self->trace, (guint) r->lane, &groups);
  SlTime t0 = x_to_time (self, x - 3), t1 = x_to_time (self, x + 3);
  for (guint i = first_visible (groups, n, t0); i < n && groups[i].start <= t1; i++)
    {
      double x0 = time_to_x (self, groups[i].start);
      double x1 = MAX (time_to_x (self, groups[i].end), x0 + 1);
      double d = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
      if (d < best_d && (r->kind == ROW_GRAPHS
                         || _sl_timeline_graph_is_open (self, (guint) r->lane, &groups[i])))
        {
          best = &groups[i];
          best_d = d;
        }
    }
  return best;
}

/* A launch stands for its first node (the detail pane shows the launch of a node's graph); a
 * node for itself. */
gboolean
_sl_timeline_graphs_hit (SlTimelineView *self,
                         const Row      *r,
                         double          x,
                         SlEventRef     *ref,
                         SlLodItem      *item)
{
  const SlGraphGroup *g = _sl_timeline_graphs_group_at (self, r, x);
  const SlLane *lane;

  if (g == NULL)
    return FALSE;
  lane = sl_trace_get_lane (self->trace, (guint) r->lane);
  const guint32 *nodes = sl_trace_get_graph_group_nodes (self->trace, g);
  memset (item, 0, sizeof *item);
  item->count = 1;
  if (r->kind == ROW_GRAPHS)
    {
      *ref = (SlEventRef) { r->lane, nodes[0] };
      item->first = nodes[0];
      item->start = g->start;
      item->end = g->end;
      return TRUE;
    }
  SlTime t = x_to_time (self, x);
  double slop = 2.0 * (double) (x_to_time (self, x + 1) - t);
  for (guint k = 0; k < g->n_nodes; k++)
    {
      const SlEvent *ev = &lane->events[nodes[k]];
      if ((double) ev->start <= (double) t + slop && (double) ev->end >= (double) t - slop)
        {
          *ref = (SlEventRef) { r->lane, nodes[k] };
          item->first = nodes[k];
          item->start = ev->start;
          item->end = ev->end;
          return TRUE;
        }
    }
  return FALSE;
}

char *
_sl_timeline_graphs_tooltip (SlTimelineView *self,
                             const Row      *r,
                             double          x)
{
  const SlGraphGroup *g;

  if (r->kind != ROW_GRAPHS || (g = _sl_timeline_graphs_group_at (self, r, x)) == NULL)
    return NULL;
  g_autofree char *dur = sl_format_duration (g->end - g->start);
  g_autofree char *off = sl_format_offset (g->start - sl_trace_get_origin (self->trace));
  return g_strdup_printf ("CUDA Graph %u · %u nodes\nDuration %s\nStart %s\n%s", g->graph_id,
                          g->n_nodes, dur, off,
                          _sl_timeline_graph_is_open (self, (guint) r->lane, g)
                            ? "Double-click to close"
                            : "Double-click to show its nodes");
}

/* The launch that the context menu's event is a node of, NULL when none. */
const SlGraphGroup *
_sl_timeline_graphs_menu_group (SlTimelineView *self)
{
  if (self->trace == NULL || self->menu_ref.lane < 0)
    return NULL;
  return sl_trace_find_graph_group (self->trace, (guint) self->menu_ref.lane,
                                    self->menu_ref.index);
}

/* timeline.toggle-graph: opens or closes the launch of the menu's event */
void
_sl_timeline_graphs_toggle_action (GtkWidget  *widget,
                                   const char *action_name,
                                   GVariant   *parameter)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);
  const SlGraphGroup *g = _sl_timeline_graphs_menu_group (self);

  (void) action_name;
  (void) parameter;
  if (g != NULL)
    _sl_timeline_graph_set_open (self, g->lane, g,
                                 !_sl_timeline_graph_is_open (self, g->lane, g));
}
