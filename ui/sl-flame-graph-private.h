/* sl-flame-graph-private.h: the flame graph's frames as drawn, for hit tests and the GUI tests. */
#pragma once

#include "sl-flame-graph.h"

G_BEGIN_DECLS

/* The node whose frame is drawn at widget (x, y), or SL_CALLTREE_NONE. */
guint    _sl_flame_graph_node_at   (SlFlameGraph    *self,
                                    double           x,
                                    double           y);
/* Where the node's frame is drawn (widget coordinates, at the widget's present width); FALSE
 * when it is not drawn (too narrow, or outside the zoomed frame). */
gboolean _sl_flame_graph_get_frame (SlFlameGraph    *self,
                                    guint            node,
                                    graphene_rect_t *rect);

G_END_DECLS
