/* sl-stats-panel-private.h: what the stats panel's files share: tables, rows, pages. */
#pragma once

#include <gtk/gtk.h>

#include "sl-stats-panel.h"
#include "sl-stats.h"

G_BEGIN_DECLS

/* ------------------------------------------------------------------------------------------------
 * sl-stats-table.c: one report as the panel shows it, reference-counted because row objects
 * point into it.  A report has up to 10^6 rows (cuda_gpu_trace); the table adds a flag per
 * column, never a copy of the cells.
 */
typedef struct
{
  SlReport *report;    /* owned */
  guint     n_columns;
  gsize     n_rows;
  gboolean *numeric;   /* per column: sorts and aligns as a number */
} _SlStatsTable;

/* Takes `report`; the numeric flags come from `like` (a table of the same report, so that a
 * range holding no row sorts as the whole trace does), else from the report's units and cells. */
_SlStatsTable *_sl_stats_table_new       (SlReport            *report,
                                          const _SlStatsTable *like);
_SlStatsTable *_sl_stats_table_ref       (_SlStatsTable       *table);
void           _sl_stats_table_unref     (_SlStatsTable       *table);
/* A NULL cell outside the table */
const SlCell  *_sl_stats_table_cell      (const _SlStatsTable *table,
                                          gsize                row,
                                          guint                column);
/* As the panel shows it: thousands separators, one digit for ns doubles, MB with three */
char          *_sl_stats_table_cell_text (const _SlStatsTable *table,
                                          gsize                row,
                                          guint                column);
/* Index of the column with that header, or -1 */
gint           _sl_stats_table_find      (const _SlStatsTable *table,
                                          const char          *header);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (_SlStatsTable, _sl_stats_table_unref)

/* ------------------------------------------------------------------------------------------------
 * sl-stats-row.c: one row of a table, made when the list asks for it (never one per row up
 * front: a table can hold 10^6).
 */
#define SL_TYPE_STATS_ROW (sl_stats_row_get_type ())
G_DECLARE_FINAL_TYPE (SlStatsRow, sl_stats_row, SL, STATS_ROW, GObject)

SlStatsRow    *_sl_stats_row_new       (_SlStatsTable *table,
                                        gsize          row);
_SlStatsTable *_sl_stats_row_get_table (SlStatsRow    *self);
gsize          _sl_stats_row_get_row   (SlStatsRow    *self);

/* sl-stats-rows.c: the rows of a table as a GListModel of SlStatsRow */
#define SL_TYPE_STATS_ROWS (sl_stats_rows_get_type ())
G_DECLARE_FINAL_TYPE (SlStatsRows, sl_stats_rows, SL, STATS_ROWS, GObject)

GListModel    *_sl_stats_rows_new      (_SlStatsTable *table);

/* ------------------------------------------------------------------------------------------------
 * sl-stats-page.c: one notebook page: an info line, a sortable column view of one report, and
 * for cuda_gpu_kern_sum a "Longest instance" button.
 */
typedef struct
{
  gpointer            owner;     /* the panel, for its callbacks */
  const char         *name;      /* static, from sl_report_names () */
  _SlStatsTable      *full;      /* whole trace; NULL when the trace has no data for it */
  _SlStatsTable      *shown;
  GtkWidget          *box;       /* the page, owned by the notebook */
  GtkWidget          *info;
  GtkWidget          *view;
  GtkSortListModel   *sort;
  GtkSingleSelection *selection;
  GtkWidget          *longest;   /* cuda_gpu_kern_sum only */
} _SlStatsPage;

/* A page for report `name` (takes `report`, NULL when the trace has no data for it). */
_SlStatsPage *_sl_stats_page_new          (const char    *name,
                                           SlReport      *report);
void          _sl_stats_page_free         (_SlStatsPage  *page);
/* Shows `table` (full or a range of it); FALSE when it was shown already. */
gboolean      _sl_stats_page_show         (_SlStatsPage  *page,
                                           _SlStatsTable *table);
void          _sl_stats_page_set_info     (_SlStatsPage  *page,
                                           const char    *text);
SlStatsRow   *_sl_stats_page_selected_row (_SlStatsPage  *page);

/* ------------------------------------------------------------------------------------------------
 * sl-stats-panel.c, for tests/test-ui-app.c: the report shown, its rows as shown (sorted), one
 * cell's text, and the panel driven as clicks would. */
const char *sl_stats_panel_get_report     (SlStatsPanel   *self);
gboolean   sl_stats_panel_show_report     (SlStatsPanel   *self,
                                           const char     *name);
guint      sl_stats_panel_get_n_rows      (SlStatsPanel   *self);
char      *sl_stats_panel_get_cell_text   (SlStatsPanel   *self,
                                           guint           row,
                                           const char     *column);
/* Selects a row of the report shown (as a click would) */
void       sl_stats_panel_select_row      (SlStatsPanel   *self,
                                           guint           row);
/* "Longest instance" of the selected cuda_gpu_kern_sum row; FALSE when there is none. */
gboolean   sl_stats_panel_go_to_longest   (SlStatsPanel   *self);
/* Whether the tables describe the selected time range (TRUE) or the whole trace. */
gboolean   sl_stats_panel_is_ranged       (SlStatsPanel   *self);

G_END_DECLS
