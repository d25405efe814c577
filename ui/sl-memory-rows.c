/* sl-memory-rows.c: the Memory tab's rows as a GListModel: an SlMemoryRow made per item the list
 * view asks for (a screenful), over an array of allocation indices (10^5 live at a peak, 10^6
 * for "Largest" on a big trace).  A new array is announced as all removed, then all added (as
 * sl-events-table-rows.c explains: GTK 4.8 then asks only for the rows on screen). */
#include "sl-memory-panel-private.h"

struct _SlMemoryRow
{
  GObject parent_instance;
  guint32 alloc;
};

G_DEFINE_FINAL_TYPE (SlMemoryRow, sl_memory_row, G_TYPE_OBJECT)

static void
sl_memory_row_class_init (SlMemoryRowClass *klass)
{
  (void) klass;
}

static void
sl_memory_row_init (SlMemoryRow *self)
{
  (void) self;
}

guint32
_sl_memory_row_get_alloc (SlMemoryRow *row)
{
  g_return_val_if_fail (SL_IS_MEMORY_ROW (row), SL_NO_LINK);
  return row->alloc;
}

struct _SlMemoryRows
{
  GObject  parent_instance;
  GArray  *allocs;   /* guint32, NULL when none */
};

static GType
sl_memory_rows_get_item_type (GListModel *model)
{
  (void) model;
  return SL_TYPE_MEMORY_ROW;
}

static guint
sl_memory_rows_get_n_items (GListModel *model)
{
  SlMemoryRows *self = SL_MEMORY_ROWS (model);

  return self->allocs != NULL ? self->allocs->len : 0;
}

static gpointer
sl_memory_rows_get_item (GListModel *model,
                         guint       position)
{
  SlMemoryRows *self = SL_MEMORY_ROWS (model);
  SlMemoryRow *row;

  if (position >= sl_memory_rows_get_n_items (model))
    return NULL;
  row = g_object_new (SL_TYPE_MEMORY_ROW, NULL);
  row->alloc = g_array_index (self->allocs, guint32, position);
  return row;
}

static void
sl_memory_rows_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = sl_memory_rows_get_item_type;
  iface->get_n_items = sl_memory_rows_get_n_items;
  iface->get_item = sl_memory_rows_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (SlMemoryRows, sl_memory_rows, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      sl_memory_rows_list_model_init))

static void
sl_memory_rows_finalize (GObject *object)
{
  g_clear_pointer (&SL_MEMORY_ROWS (object)->allocs, g_array_unref);
  G_OBJECT_CLASS (sl_memory_rows_parent_class)->finalize (object);
}

static void
sl_memory_rows_class_init (SlMemoryRowsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sl_memory_rows_finalize;
}

static void
sl_memory_rows_init (SlMemoryRows *self)
{
  (void) self;
}

SlMemoryRows *
_sl_memory_rows_new (void)
{
  return g_object_new (SL_TYPE_MEMORY_ROWS, NULL);
}

void
_sl_memory_rows_set (SlMemoryRows *rows,
                     GArray       *allocs)
{
  guint before, after;

  g_return_if_fail (SL_IS_MEMORY_ROWS (rows));
  before = sl_memory_rows_get_n_items (G_LIST_MODEL (rows));
  g_clear_pointer (&rows->allocs, g_array_unref);
  if (before > 0)
    g_list_model_items_changed (G_LIST_MODEL (rows), 0, before, 0);
  rows->allocs = allocs;
  after = sl_memory_rows_get_n_items (G_LIST_MODEL (rows));
  if (after > 0)
    g_list_model_items_changed (G_LIST_MODEL (rows), 0, 0, after);
}
