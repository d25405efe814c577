/* sl-stats-page.c: one report's page in the stats panel: an info line and a sortable column view. */
#include "sl-stats-panel-private.h"

#include <math.h>

static double
cell_number (const SlCell *cell)
{
  switch (cell->type)
    {
    case SL_CELL_INT:
      return (double) cell->v.i;
    case SL_CELL_DOUBLE:
      return cell->v.d;
    case SL_CELL_TEXT:
      return g_ascii_strtod (cell->v.s, NULL);
    case SL_CELL_NULL:
    default:
      return -INFINITY;
    }
}

static void
setup_cell_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *item,
               gpointer                  user_data)
{
  gboolean numeric = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (factory), "sl-numeric"));
  GtkWidget *label = gtk_label_new (NULL);

  (void) user_data;
  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1 : 0);
  if (!numeric)
    {
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_label_set_width_chars (GTK_LABEL (label), 24);
    }
  else
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
bind_cell_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *item,
              gpointer                  user_data)
{
  guint column = GPOINTER_TO_UINT (user_data);
  SlStatsRow *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  g_autofree char *text = NULL;
  _SlStatsTable *table;

  (void) factory;
  if (row == NULL)
    return;
  table = _sl_stats_row_get_table (row);
  text = _sl_stats_table_cell_text (table, _sl_stats_row_get_row (row), column);
  gtk_label_set_text (GTK_LABEL (label), text);
  if (!table->numeric[column])
    gtk_widget_set_tooltip_text (label, text);
}

static int
compare_rows_cb (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  SlStatsRow *ra = (SlStatsRow *) a, *rb = (SlStatsRow *) b;
  guint column = GPOINTER_TO_UINT (user_data);
  _SlStatsTable *ta = _sl_stats_row_get_table (ra), *tb = _sl_stats_row_get_table (rb);
  const SlCell *ca = _sl_stats_table_cell (ta, _sl_stats_row_get_row (ra), column);
  const SlCell *cb = _sl_stats_table_cell (tb, _sl_stats_row_get_row (rb), column);

  if (ta->numeric[column])
    {
      double x = cell_number (ca), y = cell_number (cb);
      return x < y ? GTK_ORDERING_SMALLER : x > y ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
    }
  return gtk_ordering_from_cmpfunc (g_strcmp0 (ca->type == SL_CELL_TEXT ? ca->v.s : "",
                                               cb->type == SL_CELL_TEXT ? cb->v.s : ""));
}

/* The column view of a table: one column per report column, each sortable. */
static GtkWidget *
column_view_new (const _SlStatsTable *table)
{
  GtkWidget *view = gtk_column_view_new (NULL);

  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (view), TRUE);
  gtk_column_view_set_reorderable (GTK_COLUMN_VIEW (view), FALSE);
  for (guint c = 0; c < table->n_columns; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;
      GtkCustomSorter *sorter = gtk_custom_sorter_new (compare_rows_cb, GUINT_TO_POINTER (c), NULL);

      g_object_set_data (G_OBJECT (factory), "sl-numeric", GINT_TO_POINTER (table->numeric[c]));
      g_signal_connect (factory, "setup", G_CALLBACK (setup_cell_cb), NULL);
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cell_cb), GUINT_TO_POINTER (c));
      column = gtk_column_view_column_new (sl_report_get_column (table->report, c), factory);
      gtk_column_view_column_set_sorter (column, GTK_SORTER (sorter));
      gtk_column_view_column_set_resizable (column, TRUE);
      if (!table->numeric[c])
        gtk_column_view_column_set_expand (column, TRUE);
      gtk_column_view_append_column (GTK_COLUMN_VIEW (view), column);
      g_object_unref (sorter);
      g_object_unref (column);
    }
  return view;
}

_SlStatsPage *
_sl_stats_page_new (const char *name,
                    SlReport   *report)
{
  _SlStatsPage *page = g_new0 (_SlStatsPage, 1);
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *scroller = gtk_scrolled_window_new ();

  page->name = name;
  page->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  page->info = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (page->info), 0);
  gtk_label_set_wrap (GTK_LABEL (page->info), TRUE);
  gtk_label_set_selectable (GTK_LABEL (page->info), TRUE);
  gtk_widget_set_hexpand (page->info, TRUE);
  gtk_widget_add_css_class (page->info, "dim-label");
  g_object_set (bar, "margin-start", 6, "margin-end", 6, "margin-top", 4, "margin-bottom", 4, NULL);
  gtk_box_append (GTK_BOX (bar), page->info);
  gtk_box_append (GTK_BOX (page->box), bar);

  if (report != NULL)
    {
      page->full = _sl_stats_table_new (report, NULL);
      page->view = column_view_new (page->full);
      page->sort = gtk_sort_list_model_new (NULL, g_object_ref (gtk_column_view_get_sorter (
                                                    GTK_COLUMN_VIEW (page->view))));
      page->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (page->sort)));
      gtk_single_selection_set_autoselect (page->selection, FALSE);
      gtk_single_selection_set_can_unselect (page->selection, TRUE);
      gtk_column_view_set_model (GTK_COLUMN_VIEW (page->view),
                                 GTK_SELECTION_MODEL (page->selection));
      gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), page->view);
      if (g_strcmp0 (name, "cuda_gpu_kern_sum") == 0)
        {
          page->longest = gtk_button_new_with_mnemonic ("_Longest instance");
          gtk_widget_set_tooltip_text (page->longest, "Select the longest instance of the "
                                                      "selected kernel in the timeline");
          gtk_widget_set_sensitive (page->longest, FALSE);
          gtk_box_append (GTK_BOX (bar), page->longest);
        }
      _sl_stats_page_show (page, page->full);
    }
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_box_append (GTK_BOX (page->box), scroller);
  return page;
}

void
_sl_stats_page_free (_SlStatsPage *page)
{
  g_clear_pointer (&page->full, _sl_stats_table_unref);
  g_clear_pointer (&page->shown, _sl_stats_table_unref);
  g_clear_object (&page->sort);
  g_clear_object (&page->selection);
  g_free (page);
}

gboolean
_sl_stats_page_show (_SlStatsPage  *page,
                     _SlStatsTable *table)
{
  g_autoptr (GListModel) rows = NULL;

  if (page->shown == table)
    return FALSE;
  g_clear_pointer (&page->shown, _sl_stats_table_unref);
  page->shown = _sl_stats_table_ref (table);
  rows = _sl_stats_rows_new (table);
  gtk_sort_list_model_set_model (page->sort, rows);
  if (page->longest != NULL)
    gtk_widget_set_sensitive (page->longest, FALSE);
  return TRUE;
}

void
_sl_stats_page_set_info (_SlStatsPage *page,
                         const char   *text)
{
  gtk_label_set_text (GTK_LABEL (page->info), text);
}

SlStatsRow *
_sl_stats_page_selected_row (_SlStatsPage *page)
{
  return page->selection != NULL ? gtk_single_selection_get_selected_item (page->selection) : NULL;
}
