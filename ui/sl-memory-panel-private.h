/* sl-memory-panel-private.h: the Memory tab's rows model (sl-memory-rows.c) and its test hooks. */
#pragma once

#include "sl-memory-panel.h"

G_BEGIN_DECLS

/* One row, made when the list view asks for it: the index of its allocation (sl_memory_get_alloc),
 * never one object per allocation of the 10^6 a trace may hold. */
#define SL_TYPE_MEMORY_ROW (sl_memory_row_get_type ())
G_DECLARE_FINAL_TYPE (SlMemoryRow, sl_memory_row, SL, MEMORY_ROW, GObject)

guint32        _sl_memory_row_get_alloc  (SlMemoryRow  *row);

/* Allocation indices as a GListModel of SlMemoryRow. */
#define SL_TYPE_MEMORY_ROWS (sl_memory_rows_get_type ())
G_DECLARE_FINAL_TYPE (SlMemoryRows, sl_memory_rows, SL, MEMORY_ROWS, GObject)

SlMemoryRows  *_sl_memory_rows_new       (void);
/* Takes `allocs` (guint32; NULL: no rows); every row changes. */
void           _sl_memory_rows_set       (SlMemoryRows *rows,
                                          GArray       *allocs);

/* For tests/test-ui-memory.c: the rows shown (allocation indices), the state of the controls,
 * the line over the table, and the table (to activate a row as a person would). */
guint          sl_memory_panel_get_n_rows    (SlMemoryPanel *self);
guint32        sl_memory_panel_get_row_alloc (SlMemoryPanel *self,
                                              guint          row);
gboolean       sl_memory_panel_get_at_cursor (SlMemoryPanel *self);
/* The GPU series shown (sl_memory_get_series), -1 when none. */
gint           sl_memory_panel_get_series    (SlMemoryPanel *self);
/* The instant the live rows are at. */
SlTime         sl_memory_panel_get_instant   (SlMemoryPanel *self);
const char    *sl_memory_panel_get_summary   (SlMemoryPanel *self);
GtkWidget     *sl_memory_panel_get_view      (SlMemoryPanel *self);

G_END_DECLS
