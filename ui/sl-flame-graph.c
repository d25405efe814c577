/* sl-flame-graph.c: a call tree drawn as a flame graph: frames by depth, width by samples.
 *
 * The layout is a list of the frames wide enough to draw (at least MIN_W px; a narrower frame's
 * callees are narrower still), made again when the tree, the zoom or the width changes: at most
 * about width / MIN_W frames a row, whatever the tree holds (10^5 nodes for a million samples
 * of real stacks).  Drawing and hit tests read that list.
 */
#include "sl-flame-graph-private.h"

#include <string.h>

#include "sl-format.h"

#define ROW_H   18.0   /* px per frame row */
#define MIN_W   0.5    /* px: narrower frames are not drawn */
#define TEXT_W  28.0   /* px: narrower frames get no label */

typedef struct
{
  guint32 node;
  guint32 row;
  double  x;
  double  w;
} Frame;

struct _SlFlameGraph
{
  GtkWidget       parent_instance;

  SlCalltree     *tree;
  SlCalltreeOrder order;
  guint           zoom;
  guint           n_chain;      /* rows above the zoomed frame's callees: root … zoom */
  guint           max_depth;    /* deepest node under the zoomed one, relative to it */
  char           *needle;       /* search text (ASCII case-insensitive), NULL for none */
  guint8         *match;        /* per node: its name holds the needle */
  guint64         matched;
  GArray         *frames;       /* Frame, for `laid_out_w` */
  double          laid_out_w;   /* < 0: lay out again */
  PangoLayout    *layout;
};

enum
{
  PROP_0,
  PROP_ZOOM,
  PROP_MATCHED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (SlFlameGraph, sl_flame_graph, GTK_TYPE_WIDGET)

GtkWidget *
sl_flame_graph_new (void)
{
  return g_object_new (SL_TYPE_FLAME_GRAPH, NULL);
}

static const SlCalltreeNode *
node_of (SlFlameGraph *self,
         guint         i)
{
  return sl_calltree_get_node (self->tree, self->order, i);
}

/* ---- layout ----------------------------------------------------------------------------- */

static void
place_callees (SlFlameGraph *self,
               guint32       parent,
               double        x,
               guint         row,
               double        scale)
{
  for (guint32 c = node_of (self, parent)->first_child; c != SL_CALLTREE_NONE;
       c = node_of (self, c)->next_sibling)
    {
      double w = (double) node_of (self, c)->total * scale;
      if (w < MIN_W)
        break;   /* siblings come largest first: the rest are narrower */
      Frame f = { c, row, x, w };
      g_array_append_val (self->frames, f);
      place_callees (self, c, x, row + 1, scale);
      x += w;
    }
}

static void
ensure_layout (SlFlameGraph *self)
{
  double width = gtk_widget_get_width (GTK_WIDGET (self));

  if (self->laid_out_w == width)
    return;
  self->laid_out_w = width;
  g_array_set_size (self->frames, 0);
  if (self->tree == NULL || width <= 0)
    return;

  /* the zoomed frame and its ancestors, root first, full width */
  guint row = node_of (self, self->zoom)->depth;
  for (guint32 n = self->zoom; n != SL_CALLTREE_NONE; n = node_of (self, n)->parent)
    {
      Frame f = { n, row--, 0, width };
      g_array_append_val (self->frames, f);
    }
  guint64 total = node_of (self, self->zoom)->total;
  if (total > 0)
    place_callees (self, self->zoom, 0, self->n_chain, width / (double) total);
}

static void
invalidate (SlFlameGraph *self,
            gboolean      resize)
{
  self->laid_out_w = -1;
  if (resize)
    gtk_widget_queue_resize (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Depth of the deepest node under `node`, relative to it. */
static guint
subtree_depth (SlFlameGraph *self,
               guint32       node)
{
  guint deepest = 0, base = node_of (self, node)->depth;
  guint32 n = node_of (self, node)->first_child;

  /* depth-first without recursion: down to the first child, else along, else back up */
  while (n != SL_CALLTREE_NONE)
    {
      const SlCalltreeNode *x = node_of (self, n);
      deepest = MAX (deepest, x->depth - base);
      if (x->first_child != SL_CALLTREE_NONE)
        {
          n = x->first_child;
          continue;
        }
      while (n != node && node_of (self, n)->next_sibling == SL_CALLTREE_NONE)
        n = node_of (self, n)->parent;
      n = n == node ? SL_CALLTREE_NONE : node_of (self, n)->next_sibling;
    }
  return deepest;
}

/* ---- search ----------------------------------------------------------------------------- */

static const char *
node_name (SlFlameGraph *self,
           guint         i)
{
  if (i == 0)
    return "all";
  return sl_calltree_symbol_name (self->tree, node_of (self, i)->symbol);
}

static void
update_matches (SlFlameGraph *self)
{
  guint64 matched = 0;

  g_clear_pointer (&self->match, g_free);
  if (self->tree != NULL && self->needle != NULL)
    {
      guint n = sl_calltree_get_n_nodes (self->tree, self->order);
      self->match = g_new0 (guint8, n);
      for (guint i = 1; i < n; i++)
        self->match[i] = strcasestr (node_name (self, i), self->needle) != NULL;
      /* a sample counts once: under the outermost matching frame of its path */
      for (guint i = 1; i < n; i++)
        {
          if (!self->match[i])
            continue;
          gboolean outer = TRUE;
          for (guint32 p = node_of (self, i)->parent; p != 0 && outer;
               p = node_of (self, p)->parent)
            outer = !self->match[p];
          if (outer)
            matched += node_of (self, i)->total;
        }
    }
  if (matched != self->matched)
    {
      self->matched = matched;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MATCHED]);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* ---- drawing ---------------------------------------------------------------------------- */

/* flamegraph.pl's "hot" palette, picked by a hash of the name so a function keeps its colour */
static void
frame_color (SlFlameGraph *self,
             guint         node,
             GdkRGBA      *c)
{
  const SlCalltreeNode *n = node_of (self, node);

  if (self->match != NULL && self->match[node])
    {
      *c = (GdkRGBA) { 0.90f, 0.0f, 0.90f, 1.0f };
      return;
    }
  if (node == 0 || n->symbol == SL_CALLTREE_NO_STACK)
    {
      *c = (GdkRGBA) { 0.72f, 0.72f, 0.72f, 1.0f };
      return;
    }
  guint h = g_str_hash (node_name (self, node));
  float v1 = (float) (h & 0xFF) / 255.0f, v2 = (float) ((h >> 8) & 0xFF) / 255.0f;
  float v3 = (float) ((h >> 16) & 0xFF) / 255.0f;
  *c = (GdkRGBA) { (205.0f + 50.0f * v3) / 255.0f, (230.0f * v1) / 255.0f,
                   (55.0f * v2) / 255.0f, 1.0f };
}

static void
sl_flame_graph_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  SlFlameGraph *self = SL_FLAME_GRAPH (widget);
  const GdkRGBA text = { 0.0f, 0.0f, 0.0f, 1.0f };

  ensure_layout (self);
  if (self->layout == NULL)
    self->layout = gtk_widget_create_pango_layout (widget, NULL);
  pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_END);
  for (guint i = 0; i < self->frames->len; i++)
    {
      const Frame *f = &g_array_index (self->frames, Frame, i);
      double y = f->row * ROW_H;
      GdkRGBA c;

      frame_color (self, f->node, &c);
      if (f->row < self->n_chain - 1)
        c.alpha = 0.55f;   /* the zoomed frame's ancestors: click to zoom back out */
      double gap = f->w >= 3 ? 1 : 0;
      gtk_snapshot_append_color (snapshot, &c,
                                 &GRAPHENE_RECT_INIT ((float) f->x, (float) y,
                                                      (float) (f->w - gap), (float) (ROW_H - 1)));
      if (f->w < TEXT_W)
        continue;
      g_autofree char *label = NULL;
      if (f->node == 0)
        {
          g_autofree char *n = sl_calltree_format_value (self->tree, node_of (self, 0)->total,
                                                         TRUE);
          label = g_strdup_printf ("all (%s)", n);
        }
      pango_layout_set_text (self->layout, label != NULL ? label : node_name (self, f->node), -1);
      pango_layout_set_width (self->layout, (int) ((f->w - 6) * PANGO_SCALE));
      int th = 0;
      pango_layout_get_pixel_size (self->layout, NULL, &th);
      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((float) f->x + 3,
                                                              (float) (y + (ROW_H - 1 - th) / 2)));
      gtk_snapshot_append_layout (snapshot, self->layout, &text);
      gtk_snapshot_restore (snapshot);
    }
}

static void
sl_flame_graph_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  SlFlameGraph *self = SL_FLAME_GRAPH (widget);

  (void) for_size;
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *minimum = *natural = 200;
  else
    *minimum = *natural = self->tree == NULL ? 0
                                             : (int) ((self->n_chain + self->max_depth) * ROW_H);
  *minimum_baseline = *natural_baseline = -1;
}

static void
sl_flame_graph_size_allocate (GtkWidget *widget,
                              int        width,
                              int        height,
                              int        baseline)
{
  (void) width;
  (void) height;
  (void) baseline;
  SL_FLAME_GRAPH (widget)->laid_out_w = -1;
}

/* ---- input ------------------------------------------------------------------------------ */

static void
click_released_cb (GtkGestureClick *gesture,
                   int              n_press,
                   double           x,
                   double           y,
                   SlFlameGraph    *self)
{
  (void) gesture;
  if (n_press != 1)
    return;
  guint node = _sl_flame_graph_node_at (self, x, y);
  if (node != SL_CALLTREE_NONE)
    sl_flame_graph_set_zoom (self, node);
}

static gboolean
query_tooltip_cb (GtkWidget    *widget,
                  int           x,
                  int           y,
                  gboolean      keyboard,
                  GtkTooltip   *tooltip,
                  SlFlameGraph *self)
{
  (void) widget;
  if (keyboard)
    return FALSE;
  guint node = _sl_flame_graph_node_at (self, x, y);
  if (node == SL_CALLTREE_NONE)
    return FALSE;

  const SlCalltreeNode *n = node_of (self, node);
  double all = (double) MAX (node_of (self, 0)->total, 1);
  g_autofree char *total = sl_calltree_format_value (self->tree, n->total, TRUE);
  g_autofree char *self_n = sl_calltree_format_value (self->tree, n->self, TRUE);
  const char *module = n->module != SL_NO_STR
                           ? sl_trace_str (sl_calltree_get_trace (self->tree), n->module) : NULL;
  g_autofree char *text = g_strdup_printf ("%s%s%s\nTotal: %s (%.1f%%)\nSelf: %s "
                                           "(%.1f%%)%s", node_name (self, node),
                                           module != NULL && *module != '\0' ? "\n" : "",
                                           module != NULL ? module : "", total,
                                           100.0 * (double) n->total / all, self_n,
                                           100.0 * (double) n->self / all,
                                           node == self->zoom ? ""
                                           : node_of (self, self->zoom)->depth > n->depth
                                               ? "\nClick to zoom out to it"
                                               : "\nClick to zoom in");
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

/* ---- GObject ---------------------------------------------------------------------------- */

static void
sl_flame_graph_finalize (GObject *object)
{
  SlFlameGraph *self = SL_FLAME_GRAPH (object);

  g_clear_pointer (&self->tree, sl_calltree_unref);
  g_clear_pointer (&self->needle, g_free);
  g_clear_pointer (&self->match, g_free);
  g_array_unref (self->frames);
  g_clear_object (&self->layout);
  G_OBJECT_CLASS (sl_flame_graph_parent_class)->finalize (object);
}

static void
sl_flame_graph_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  SlFlameGraph *self = SL_FLAME_GRAPH (object);

  switch (prop_id)
    {
    case PROP_ZOOM: g_value_set_uint (value, self->zoom); break;
    case PROP_MATCHED: g_value_set_uint64 (value, self->matched); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sl_flame_graph_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  SlFlameGraph *self = SL_FLAME_GRAPH (object);

  switch (prop_id)
    {
    case PROP_ZOOM: sl_flame_graph_set_zoom (self, g_value_get_uint (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sl_flame_graph_class_init (SlFlameGraphClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = sl_flame_graph_finalize;
  object_class->get_property = sl_flame_graph_get_property;
  object_class->set_property = sl_flame_graph_set_property;
  widget_class->snapshot = sl_flame_graph_snapshot;
  widget_class->measure = sl_flame_graph_measure;
  widget_class->size_allocate = sl_flame_graph_size_allocate;

  properties[PROP_ZOOM] = g_param_spec_uint ("zoom", NULL, NULL, 0, G_MAXUINT32, 0,
                                             G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY
                                                 | G_PARAM_STATIC_STRINGS);
  properties[PROP_MATCHED] = g_param_spec_uint64 ("matched", NULL, NULL, 0, G_MAXUINT64, 0,
                                                  G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY
                                                      | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  gtk_widget_class_set_css_name (widget_class, "flamegraph");
}

static void
sl_flame_graph_init (SlFlameGraph *self)
{
  GtkGesture *click = gtk_gesture_click_new ();

  self->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  self->laid_out_w = -1;
  self->n_chain = 1;
  g_signal_connect (click, "released", G_CALLBACK (click_released_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), self);
}

/* ---- public API ------------------------------------------------------------------------- */

void
sl_flame_graph_set_tree (SlFlameGraph    *self,
                         SlCalltree      *tree,
                         SlCalltreeOrder  order)
{
  g_return_if_fail (SL_IS_FLAME_GRAPH (self));
  g_return_if_fail (order < SL_CALLTREE_N_ORDERS);

  if (tree != NULL)
    sl_calltree_ref (tree);
  g_clear_pointer (&self->tree, sl_calltree_unref);
  self->tree = tree;
  self->order = order;
  self->zoom = G_MAXUINT;   /* so that the zoom below notifies and measures */
  sl_flame_graph_set_zoom (self, 0);
  update_matches (self);
}

SlCalltree *
sl_flame_graph_get_tree (SlFlameGraph *self)
{
  g_return_val_if_fail (SL_IS_FLAME_GRAPH (self), NULL);
  return self->tree;
}

SlCalltreeOrder
sl_flame_graph_get_order (SlFlameGraph *self)
{
  g_return_val_if_fail (SL_IS_FLAME_GRAPH (self), SL_CALLTREE_TOP_DOWN);
  return self->order;
}

void
sl_flame_graph_set_search (SlFlameGraph *self,
                           const char   *needle)
{
  g_return_if_fail (SL_IS_FLAME_GRAPH (self));

  if (needle != NULL && *needle == '\0')
    needle = NULL;
  if (g_strcmp0 (needle, self->needle) == 0)
    return;
  g_free (self->needle);
  self->needle = g_strdup (needle);
  update_matches (self);
}

guint64
sl_flame_graph_get_matched (SlFlameGraph *self)
{
  g_return_val_if_fail (SL_IS_FLAME_GRAPH (self), 0);
  return self->matched;
}

void
sl_flame_graph_set_zoom (SlFlameGraph *self,
                         guint         node)
{
  g_return_if_fail (SL_IS_FLAME_GRAPH (self));

  if (self->tree == NULL || node >= sl_calltree_get_n_nodes (self->tree, self->order))
    node = 0;
  if (node == self->zoom)
    return;
  self->zoom = node;
  if (self->tree != NULL)
    {
      self->n_chain = node_of (self, node)->depth + 1;
      self->max_depth = subtree_depth (self, node);
    }
  invalidate (self, TRUE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

guint
sl_flame_graph_get_zoom (SlFlameGraph *self)
{
  g_return_val_if_fail (SL_IS_FLAME_GRAPH (self), 0);
  return self->zoom;
}

/* ---- for hit tests and tests (sl-flame-graph-private.h) --------------------------------- */

guint
_sl_flame_graph_node_at (SlFlameGraph *self,
                         double        x,
                         double        y)
{
  g_return_val_if_fail (SL_IS_FLAME_GRAPH (self), SL_CALLTREE_NONE);

  ensure_layout (self);
  if (y < 0)
    return SL_CALLTREE_NONE;
  guint row = (guint) (y / ROW_H);
  for (guint i = 0; i < self->frames->len; i++)
    {
      const Frame *f = &g_array_index (self->frames, Frame, i);
      if (f->row == row && x >= f->x && x < f->x + f->w)
        return f->node;
    }
  return SL_CALLTREE_NONE;
}

gboolean
_sl_flame_graph_get_frame (SlFlameGraph    *self,
                           guint            node,
                           graphene_rect_t *rect)
{
  g_return_val_if_fail (SL_IS_FLAME_GRAPH (self), FALSE);

  ensure_layout (self);
  for (guint i = 0; i < self->frames->len; i++)
    {
      const Frame *f = &g_array_index (self->frames, Frame, i);
      if (f->node == node)
        {
          graphene_rect_init (rect, (float) f->x, (float) (f->row * ROW_H), (float) f->w,
                              (float) ROW_H);
          return TRUE;
        }
    }
  return FALSE;
}
