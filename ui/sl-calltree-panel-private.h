/* sl-calltree-panel-private.h: what the call-tree panel's files share (the tree's rows), and its
 * test hooks. */
#pragma once

#include "sl-calltree-panel.h"

G_BEGIN_DECLS

/* ---- sl-calltree-rows.c: one row of the tree table, made when its parent is expanded ------- */
#define _SL_TYPE_CALLTREE_ROW (_sl_calltree_row_get_type ())
G_DECLARE_FINAL_TYPE (_SlCalltreeRow, _sl_calltree_row, _SL, CALLTREE_ROW, GObject)

/* The tree as rows: its root's children, each expanding into its own children. */
GtkTreeListModel     *_sl_calltree_rows_new       (SlCalltree      *tree,
                                                   SlCalltreeOrder  order);
SlCalltree           *_sl_calltree_row_get_tree   (_SlCalltreeRow  *row);
guint                 _sl_calltree_row_get_node   (_SlCalltreeRow  *row);
const SlCalltreeNode *_sl_calltree_row_get_data   (_SlCalltreeRow  *row);

/* ---- test hooks (sl-calltree-panel.c) ---------------------------------------------------- */

/* The tree shown now (NULL before the first); whether a build is under way or waiting. */
SlCalltree *_sl_calltree_panel_get_tree        (SlCalltreePanel *self);
gboolean    _sl_calltree_panel_is_busy         (SlCalltreePanel *self);
GtkWidget  *_sl_calltree_panel_get_flame_graph (SlCalltreePanel *self);
void        _sl_calltree_panel_set_search      (SlCalltreePanel *self,
                                                const char      *text);
/* Picks the source of the stacks, as the source dropdown does (shown, and so used, only where
 * the trace has CUDA backtraces: _sl_calltree_panel_has_sources). */
void        _sl_calltree_panel_set_source      (SlCalltreePanel  *self,
                                                SlCalltreeSource  source,
                                                SlCalltreeWeight  weight);
gboolean    _sl_calltree_panel_has_sources     (SlCalltreePanel *self);
/* The summary line over the views. */
const char *_sl_calltree_panel_get_summary     (SlCalltreePanel *self);
/* Rows of the table as shown (expanded rows' children included). */
guint       _sl_calltree_panel_get_n_rows      (SlCalltreePanel *self);

G_END_DECLS
