/* sl-events-table-private.h: the events table's rows model (sl-events-table-rows.c) and the test
 * and benchmark hooks of the table. */
#pragma once

#include "sl-events-query.h"
#include "sl-events-table.h"

G_BEGIN_DECLS

/* One row, made when the list view asks for it and dropped when it scrolls away: it holds only
 * its position, the cells are read from the query when the row is bound. */
#define SL_TYPE_EVENTS_ROW (sl_events_row_get_type ())
G_DECLARE_FINAL_TYPE (SlEventsRow, sl_events_row, SL, EVENTS_ROW, GObject)

guint          _sl_events_row_get_position (SlEventsRow  *row);

/* The rows of a query as a GListModel of SlEventsRow (n items, none held). */
#define SL_TYPE_EVENTS_ROWS (sl_events_rows_get_type ())
G_DECLARE_FINAL_TYPE (SlEventsRows, sl_events_rows, SL, EVENTS_ROWS, GObject)

SlEventsRows  *_sl_events_rows_new         (void);
/* Takes `query` (may be NULL: no rows); every row changes. */
void           _sl_events_rows_set_query   (SlEventsRows  *rows,
                                            SlEventsQuery *query);
SlEventsQuery *_sl_events_rows_get_query   (SlEventsRows  *rows);
/* The query was re-sorted: every row changes, the count stays. */
void           _sl_events_rows_reordered   (SlEventsRows  *rows);

/* For tests and bench/bench-events.c: the rows as shown, one cell's text, the table driven as
 * clicks would (a row, a column header), and its scrolled window. */
guint          sl_events_table_get_n_rows   (SlEventsTable  *self);
char          *sl_events_table_get_cell     (SlEventsTable  *self,
                                             guint           row,
                                             SlEventsColumn  column);
void           sl_events_table_select_row   (SlEventsTable  *self,
                                             guint           row);
void           sl_events_table_sort_by      (SlEventsTable  *self,
                                             SlEventsColumn  column,
                                             gboolean        descending);
/* The event of the one selected row; none when no row or several are. */
SlEventRef     sl_events_table_get_selected (SlEventsTable  *self);
/* What the header line says ("4,000,000 events of GPU 0 · Stream 7 · Kernels") */
const char    *sl_events_table_get_summary  (SlEventsTable  *self);
GtkWidget     *sl_events_table_get_scrolled (SlEventsTable  *self);

G_END_DECLS
