/* sl-events-table-rows.c: the events table's rows as a GListModel: an SlEventsRow made per item
 * the list view asks for (a screenful), never one per event of a lane of millions.
 *
 * A change of all rows is announced as two: all removed, then all added.  As one change
 * (0, n, n), GTK 4.8's list item manager asks for every added item to look for the widgets of the
 * removed ones: on 3.6 M rows that made 3.6 M row objects and took seconds; added into an empty
 * list, only the rows on screen are asked for. */
#include "sl-events-table-private.h"

struct _SlEventsRow
{
  GObject parent_instance;
  guint   position;
};

G_DEFINE_FINAL_TYPE (SlEventsRow, sl_events_row, G_TYPE_OBJECT)

static void
sl_events_row_class_init (SlEventsRowClass *klass)
{
  (void) klass;
}

static void
sl_events_row_init (SlEventsRow *self)
{
  (void) self;
}

guint
_sl_events_row_get_position (SlEventsRow *row)
{
  g_return_val_if_fail (SL_IS_EVENTS_ROW (row), 0);
  return row->position;
}

struct _SlEventsRows
{
  GObject        parent_instance;
  SlEventsQuery *query;
};

static GType
sl_events_rows_get_item_type (GListModel *model)
{
  (void) model;
  return SL_TYPE_EVENTS_ROW;
}

static guint
sl_events_rows_get_n_items (GListModel *model)
{
  SlEventsRows *self = SL_EVENTS_ROWS (model);

  return self->query == NULL ? 0 : (guint) MIN (sl_events_query_get_n (self->query), G_MAXUINT);
}

static gpointer
sl_events_rows_get_item (GListModel *model,
                         guint       position)
{
  SlEventsRow *row;

  if (position >= sl_events_rows_get_n_items (model))
    return NULL;
  row = g_object_new (SL_TYPE_EVENTS_ROW, NULL);
  row->position = position;
  return row;
}

static void
sl_events_rows_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = sl_events_rows_get_item_type;
  iface->get_n_items = sl_events_rows_get_n_items;
  iface->get_item = sl_events_rows_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (SlEventsRows, sl_events_rows, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      sl_events_rows_list_model_init))

static void
sl_events_rows_finalize (GObject *object)
{
  g_clear_pointer (&SL_EVENTS_ROWS (object)->query, sl_events_query_free);
  G_OBJECT_CLASS (sl_events_rows_parent_class)->finalize (object);
}

static void
sl_events_rows_class_init (SlEventsRowsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sl_events_rows_finalize;
}

static void
sl_events_rows_init (SlEventsRows *self)
{
  (void) self;
}

SlEventsRows *
_sl_events_rows_new (void)
{
  return g_object_new (SL_TYPE_EVENTS_ROWS, NULL);
}

void
_sl_events_rows_set_query (SlEventsRows  *rows,
                           SlEventsQuery *query)
{
  guint before, after;

  g_return_if_fail (SL_IS_EVENTS_ROWS (rows));
  before = sl_events_rows_get_n_items (G_LIST_MODEL (rows));
  g_clear_pointer (&rows->query, sl_events_query_free);
  rows->query = query;
  after = sl_events_rows_get_n_items (G_LIST_MODEL (rows));
  if (before > 0)
    {
      /* emptied, as get_n_items says while the first signal runs */
      SlEventsQuery *keep = g_steal_pointer (&rows->query);
      g_list_model_items_changed (G_LIST_MODEL (rows), 0, before, 0);
      rows->query = keep;
    }
  if (after > 0)
    g_list_model_items_changed (G_LIST_MODEL (rows), 0, 0, after);
}

SlEventsQuery *
_sl_events_rows_get_query (SlEventsRows *rows)
{
  g_return_val_if_fail (SL_IS_EVENTS_ROWS (rows), NULL);
  return rows->query;
}

void
_sl_events_rows_reordered (SlEventsRows *rows)
{
  guint n;

  g_return_if_fail (SL_IS_EVENTS_ROWS (rows));
  n = sl_events_rows_get_n_items (G_LIST_MODEL (rows));
  if (n > 0)
    {
      SlEventsQuery *keep = g_steal_pointer (&rows->query);
      g_list_model_items_changed (G_LIST_MODEL (rows), 0, n, 0);
      rows->query = keep;
      g_list_model_items_changed (G_LIST_MODEL (rows), 0, 0, n);
    }
}
