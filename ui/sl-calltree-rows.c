/* sl-calltree-rows.c: the call-tree panel's table rows: a GObject per shown node, made when its
 * parent is expanded (a tree of 10^5 nodes shows a few hundred), over the model's flat nodes. */
#include "sl-calltree-panel-private.h"

struct __SlCalltreeRow
{
  GObject         parent_instance;
  SlCalltree     *tree;
  SlCalltreeOrder order;
  guint           node;
};

G_DEFINE_FINAL_TYPE (_SlCalltreeRow, _sl_calltree_row, G_TYPE_OBJECT)

static void
_sl_calltree_row_finalize (GObject *object)
{
  _SlCalltreeRow *self = _SL_CALLTREE_ROW (object);

  g_clear_pointer (&self->tree, sl_calltree_unref);
  G_OBJECT_CLASS (_sl_calltree_row_parent_class)->finalize (object);
}

static void
_sl_calltree_row_class_init (_SlCalltreeRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = _sl_calltree_row_finalize;
}

static void
_sl_calltree_row_init (_SlCalltreeRow *self)
{
  (void) self;
}

/* The children of `node` as rows, largest total first; NULL when it has none. */
static GListModel *
children_of (SlCalltree      *tree,
             SlCalltreeOrder  order,
             guint            node)
{
  const SlCalltreeNode *n = sl_calltree_get_node (tree, order, node);

  if (n->first_child == SL_CALLTREE_NONE)
    return NULL;
  GListStore *store = g_list_store_new (_SL_TYPE_CALLTREE_ROW);
  for (guint32 c = n->first_child; c != SL_CALLTREE_NONE;
       c = sl_calltree_get_node (tree, order, c)->next_sibling)
    {
      g_autoptr (_SlCalltreeRow) row = g_object_new (_SL_TYPE_CALLTREE_ROW, NULL);
      row->tree = sl_calltree_ref (tree);
      row->order = order;
      row->node = c;
      g_list_store_append (store, row);
    }
  return G_LIST_MODEL (store);
}

static GListModel *
create_children_cb (gpointer item,
                    gpointer data)
{
  _SlCalltreeRow *row = item;

  (void) data;
  return children_of (row->tree, row->order, row->node);
}

GtkTreeListModel *
_sl_calltree_rows_new (SlCalltree      *tree,
                       SlCalltreeOrder  order)
{
  GListModel *roots = children_of (tree, order, 0);

  if (roots == NULL)
    roots = G_LIST_MODEL (g_list_store_new (_SL_TYPE_CALLTREE_ROW));
  return gtk_tree_list_model_new (roots, FALSE, FALSE, create_children_cb, NULL, NULL);
}

SlCalltree *
_sl_calltree_row_get_tree (_SlCalltreeRow *row)
{
  g_return_val_if_fail (_SL_IS_CALLTREE_ROW (row), NULL);
  return row->tree;
}

guint
_sl_calltree_row_get_node (_SlCalltreeRow *row)
{
  g_return_val_if_fail (_SL_IS_CALLTREE_ROW (row), 0);
  return row->node;
}

const SlCalltreeNode *
_sl_calltree_row_get_data (_SlCalltreeRow *row)
{
  g_return_val_if_fail (_SL_IS_CALLTREE_ROW (row), NULL);
  return sl_calltree_get_node (row->tree, row->order, row->node);
}
