/* sl-flame-graph.h: a call tree drawn as a flame graph: frames by depth, width by samples. */
#pragma once

#include "sl-calltree.h"
#include "sl-ui-types.h"

G_BEGIN_DECLS

/*
 * The root ("all") on top and callees below it (an icicle, as speedscope and the Firefox
 * profiler draw it); a frame is as wide as its share of the zoomed frame's samples.  A click
 * zooms into a frame: its ancestors stay as full-width rows above it, and a click on one of them
 * zooms back out to it.  Frames whose name holds the search text are drawn in the match colour.
 * Properties: "zoom" (node index of the zoomed frame, 0 for the root), "matched" (samples under
 * a matching frame, read-only).
 */
#define SL_TYPE_FLAME_GRAPH (sl_flame_graph_get_type ())
G_DECLARE_FINAL_TYPE (SlFlameGraph, sl_flame_graph, SL, FLAME_GRAPH, GtkWidget)

GtkWidget *sl_flame_graph_new         (void);

/* The tree (reffed; NULL for none) and which of its orders to draw; the zoom goes back to the
 * root. */
void       sl_flame_graph_set_tree    (SlFlameGraph    *self,
                                       SlCalltree      *tree,
                                       SlCalltreeOrder  order);
SlCalltree *sl_flame_graph_get_tree   (SlFlameGraph    *self);
SlCalltreeOrder sl_flame_graph_get_order (SlFlameGraph *self);

/* Case-insensitive text that marks the frames whose function name holds it; NULL or "": none. */
void       sl_flame_graph_set_search  (SlFlameGraph    *self,
                                       const char      *needle);
/* Samples whose stack passes through a matching frame (each counted once). */
guint64    sl_flame_graph_get_matched (SlFlameGraph    *self);

void       sl_flame_graph_set_zoom    (SlFlameGraph    *self,
                                       guint            node);
guint      sl_flame_graph_get_zoom    (SlFlameGraph    *self);

G_END_DECLS
