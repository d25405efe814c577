/* sl-stats-table.c: a report as the stats panel shows it: cells as text, columns that sort as numbers. */
#include "sl-stats-panel-private.h"

#include <math.h>

#include "sl-format.h"

static void
table_clear (gpointer data)
{
  _SlStatsTable *t = data;

  g_clear_pointer (&t->report, sl_report_free);
  g_free (t->numeric);
}

_SlStatsTable *
_sl_stats_table_new (SlReport            *report,
                     const _SlStatsTable *like)
{
  _SlStatsTable *t = g_rc_box_new0 (_SlStatsTable);

  t->report = report;
  t->n_rows = sl_report_get_n_rows (report);
  t->n_columns = sl_report_get_n_columns (report);
  if (like != NULL)
    {
      g_assert (like->n_columns == t->n_columns);
      t->numeric = g_memdup2 (like->numeric, sizeof (gboolean) * t->n_columns);
      return t;
    }
  t->numeric = g_new0 (gboolean, t->n_columns);
  for (guint c = 0; c < t->n_columns; c++)
    {
      /* a unit says number; a column without one is a number when its first value is */
      t->numeric[c] = sl_report_get_column_unit (report, c) != SL_UNIT_NONE;
      for (gsize r = 0; r < t->n_rows && !t->numeric[c]; r++)
        {
          const SlCell *cell = sl_report_get_cell (report, r, c);
          if (cell->type == SL_CELL_NULL)
            continue;
          t->numeric[c] = cell->type == SL_CELL_INT || cell->type == SL_CELL_DOUBLE;
          break;
        }
    }
  return t;
}

_SlStatsTable *
_sl_stats_table_ref (_SlStatsTable *table)
{
  return g_rc_box_acquire (table);
}

void
_sl_stats_table_unref (_SlStatsTable *table)
{
  g_rc_box_release_full (table, table_clear);
}

const SlCell *
_sl_stats_table_cell (const _SlStatsTable *table,
                      gsize                row,
                      guint                column)
{
  static const SlCell null_cell = { SL_CELL_NULL, { 0 } };

  if (row >= table->n_rows || column >= table->n_columns)
    return &null_cell;
  return sl_report_get_cell (table->report, row, column);
}

static char *
format_tenths (double d)
{
  gint64 tenths = (gint64) llround (d * 10);
  g_autofree char *whole = sl_format_int (tenths / 10);

  if (tenths < 0 && tenths / 10 == 0)
    return g_strdup_printf ("-0.%d", (int) (-tenths % 10));
  return g_strdup_printf ("%s.%d", whole, (int) ABS (tenths % 10));
}

char *
_sl_stats_table_cell_text (const _SlStatsTable *table,
                           gsize                row,
                           guint                column)
{
  const SlCell *cell = _sl_stats_table_cell (table, row, column);
  SlUnit unit = column < table->n_columns ? sl_report_get_column_unit (table->report, column)
                                          : SL_UNIT_NONE;
  gboolean mega = unit == SL_UNIT_MEM_B || unit == SL_UNIT_THRU_B;

  switch (cell->type)
    {
    case SL_CELL_TEXT:
      return g_strdup (cell->v.s != NULL ? cell->v.s : "");
    case SL_CELL_INT:
      if (mega)
        return g_strdup_printf ("%.3f", cell->v.i / 1e6);
      return sl_format_int (cell->v.i);
    case SL_CELL_DOUBLE:
      if (mega)
        return g_strdup_printf ("%.3f", cell->v.d / 1e6);
      return format_tenths (cell->v.d);
    case SL_CELL_NULL:
    default:
      return g_strdup ("");
    }
}

gint
_sl_stats_table_find (const _SlStatsTable *table,
                      const char          *header)
{
  return table != NULL ? sl_report_find_column (table->report, header) : -1;
}
