/* sl-stats-row.c: one row of a stats table as a list item, made when the list view asks for it. */
#include "sl-stats-panel-private.h"

struct _SlStatsRow
{
  GObject        parent_instance;
  _SlStatsTable *table;
  gsize          row;
};

G_DEFINE_FINAL_TYPE (SlStatsRow, sl_stats_row, G_TYPE_OBJECT)

static void
sl_stats_row_finalize (GObject *object)
{
  SlStatsRow *self = SL_STATS_ROW (object);

  g_clear_pointer (&self->table, _sl_stats_table_unref);
  G_OBJECT_CLASS (sl_stats_row_parent_class)->finalize (object);
}

static void
sl_stats_row_class_init (SlStatsRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sl_stats_row_finalize;
}

static void
sl_stats_row_init (SlStatsRow *self)
{
  (void) self;
}

SlStatsRow *
_sl_stats_row_new (_SlStatsTable *table,
                   gsize          row)
{
  SlStatsRow *self = g_object_new (SL_TYPE_STATS_ROW, NULL);

  self->table = _sl_stats_table_ref (table);
  self->row = row;
  return self;
}

_SlStatsTable *
_sl_stats_row_get_table (SlStatsRow *self)
{
  return self->table;
}

gsize
_sl_stats_row_get_row (SlStatsRow *self)
{
  return self->row;
}
