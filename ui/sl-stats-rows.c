/* sl-stats-rows.c: the rows of a stats table as a GListModel, one SlStatsRow made per item asked. */
#include "sl-stats-panel-private.h"

struct _SlStatsRows
{
  GObject        parent_instance;
  _SlStatsTable *table;
};

static GType
sl_stats_rows_get_item_type (GListModel *model)
{
  (void) model;
  return SL_TYPE_STATS_ROW;
}

static guint
sl_stats_rows_get_n_items (GListModel *model)
{
  return (guint) MIN (SL_STATS_ROWS (model)->table->n_rows, G_MAXUINT);
}

static gpointer
sl_stats_rows_get_item (GListModel *model,
                        guint       position)
{
  SlStatsRows *self = SL_STATS_ROWS (model);

  if (position >= self->table->n_rows)
    return NULL;
  return _sl_stats_row_new (self->table, position);
}

static void
sl_stats_rows_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = sl_stats_rows_get_item_type;
  iface->get_n_items = sl_stats_rows_get_n_items;
  iface->get_item = sl_stats_rows_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (SlStatsRows, sl_stats_rows, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      sl_stats_rows_list_model_init))

static void
sl_stats_rows_finalize (GObject *object)
{
  g_clear_pointer (&SL_STATS_ROWS (object)->table, _sl_stats_table_unref);
  G_OBJECT_CLASS (sl_stats_rows_parent_class)->finalize (object);
}

static void
sl_stats_rows_class_init (SlStatsRowsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sl_stats_rows_finalize;
}

static void
sl_stats_rows_init (SlStatsRows *self)
{
  (void) self;
}

GListModel *
_sl_stats_rows_new (_SlStatsTable *table)
{
  SlStatsRows *rows = g_object_new (SL_TYPE_STATS_ROWS, NULL);

  rows->table = _sl_stats_table_ref (table);
  return G_LIST_MODEL (rows);
}
