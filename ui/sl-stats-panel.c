/* sl-stats-panel.c: the `sightline stats` reports as sortable tables that follow the selection. */
#include "sl-stats-panel.h"

#include <math.h>
#include <string.h>

#include "sl-format.h"
#include "sl-lane.h"
#include "sl-stats.h"
#include "sl-timeline-view.h"

#define RANGE_DELAY_MS 120   /* a Shift+drag notifies on every motion: recompute when it settles */

/* ------------------------------------------------------------------------------------------------
 * A table: the rows of one report, either the model's whole-trace SlReport (possibly through a
 * row map, for cuda_gpu_trace in a range) or cells of our own (per-name aggregates in a range).
 * Reference-counted, because row objects point into it.
 */
typedef struct
{
  SlReport     *report;       /* owned unless borrowed (then `owner` holds it) */
  gboolean      borrowed;
  guint         n_columns;
  char        **headers;
  SlUnit       *units;
  gboolean     *numeric;
  SlCell       *cells;        /* n_rows * n_columns, or NULL */
  GStringChunk *strings;
  gsize        *row_map;      /* rows of `report`, or NULL */
  gsize         n_rows;
} Table;

static void
table_clear (gpointer data)
{
  Table *t = data;

  if (!t->borrowed)
    g_clear_pointer (&t->report, sl_report_free);
  g_strfreev (t->headers);
  g_free (t->units);
  g_free (t->numeric);
  g_free (t->cells);
  g_free (t->row_map);
  if (t->strings != NULL)
    g_string_chunk_free (t->strings);
}

static Table *
table_ref (Table *t)
{
  return g_rc_box_acquire (t);
}

static void
table_unref (Table *t)
{
  g_rc_box_release_full (t, table_clear);
}

static const SlCell *
table_cell (const Table *t,
            gsize        row,
            guint        column)
{
  static const SlCell null_cell = { SL_CELL_NULL, { 0 } };

  if (row >= t->n_rows || column >= t->n_columns)
    return &null_cell;
  if (t->cells != NULL)
    return &t->cells[row * t->n_columns + column];
  return sl_report_get_cell (t->report, t->row_map != NULL ? t->row_map[row] : row, column);
}

/* A table over a whole-trace report, with the column shape that range tables copy. */
static Table *
table_new_for_report (SlReport *report)
{
  Table *t = g_rc_box_new0 (Table);
  gsize n_rows = sl_report_get_n_rows (report);

  t->report = report;
  t->n_rows = n_rows;
  t->n_columns = sl_report_get_n_columns (report);
  t->headers = g_new0 (char *, t->n_columns + 1);
  t->units = g_new0 (SlUnit, t->n_columns);
  t->numeric = g_new0 (gboolean, t->n_columns);
  for (guint c = 0; c < t->n_columns; c++)
    {
      t->headers[c] = g_strdup (sl_report_get_column (report, c));
      t->units[c] = sl_report_get_column_unit (report, c);
      t->numeric[c] = t->units[c] != SL_UNIT_NONE;
      for (gsize r = 0; r < n_rows && !t->numeric[c]; r++)
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

/* An empty table of the same shape, borrowing `like`'s report for cell lookups. */
static Table *
table_new_like (const Table *like)
{
  Table *t = g_rc_box_new0 (Table);

  t->report = like->report;
  t->borrowed = TRUE;
  t->n_columns = like->n_columns;
  t->headers = g_strdupv (like->headers);
  t->units = g_memdup2 (like->units, sizeof (SlUnit) * like->n_columns);
  t->numeric = g_memdup2 (like->numeric, sizeof (gboolean) * like->n_columns);
  return t;
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

static char *
cell_text (const Table  *t,
           guint         column,
           const SlCell *cell)
{
  SlUnit unit = column < t->n_columns ? t->units[column] : SL_UNIT_NONE;
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

/* ------------------------------------------------------------------------------------------------
 * Row objects: one small GObject per table row, made when the list asks for it.
 */
#define SL_TYPE_STATS_ROW (sl_stats_row_get_type ())
G_DECLARE_FINAL_TYPE (SlStatsRow, sl_stats_row, SL, STATS_ROW, GObject)

struct _SlStatsRow
{
  GObject  parent_instance;
  Table   *table;
  gsize    row;
};

G_DEFINE_FINAL_TYPE (SlStatsRow, sl_stats_row, G_TYPE_OBJECT)

static void
sl_stats_row_finalize (GObject *object)
{
  SlStatsRow *self = SL_STATS_ROW (object);

  g_clear_pointer (&self->table, table_unref);
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

#define SL_TYPE_STATS_ROWS (sl_stats_rows_get_type ())
G_DECLARE_FINAL_TYPE (SlStatsRows, sl_stats_rows, SL, STATS_ROWS, GObject)

struct _SlStatsRows
{
  GObject  parent_instance;
  Table   *table;
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
  SlStatsRow *row;

  if (position >= self->table->n_rows)
    return NULL;
  row = g_object_new (SL_TYPE_STATS_ROW, NULL);
  row->table = table_ref (self->table);
  row->row = position;
  return row;
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
  g_clear_pointer (&SL_STATS_ROWS (object)->table, table_unref);
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

static GListModel *
rows_new (Table *table)
{
  SlStatsRows *rows = g_object_new (SL_TYPE_STATS_ROWS, NULL);

  rows->table = table_ref (table);
  return G_LIST_MODEL (rows);
}

/* ------------------------------------------------------------------------------------------------
 * The panel.
 */
typedef struct
{
  SlStatsPanel       *panel;
  const char         *name;      /* static, from sl_report_names () */
  Table              *full;      /* whole trace; NULL when the trace has no data for it */
  Table              *shown;
  GtkWidget          *info;
  GtkWidget          *view;
  GtkSortListModel   *sort;
  GtkSingleSelection *selection;
  GtkWidget          *longest;   /* cuda_gpu_kern_sum only */
} Page;

struct _SlStatsPanel
{
  GtkWidget       parent_instance;

  GtkWidget      *notebook;
  GPtrArray      *pages;       /* Page *, one per report name */
  SlTimelineView *timeline;    /* weak */
  SlTrace        *trace;
  SlViewport     *viewport;
  gulong          selection_handler;
  guint           range_source;
  gboolean        ranged;
  SlTime          r0, r1;
  GHashTable     *kernel_ids;  /* demangled name -> string id, of the kernels in the trace */
};

G_DEFINE_FINAL_TYPE (SlStatsPanel, sl_stats_panel, GTK_TYPE_WIDGET)

GtkWidget *
sl_stats_panel_new (void)
{
  return g_object_new (SL_TYPE_STATS_PANEL, NULL);
}

/* cuda_gpu_trace has a row per GPU operation, ~200 bytes of cells each: past a million the
 * table would cost the viewer more than the whole trace, so the panel leaves it to the CLI. */
#define GPU_TRACE_MAX_ROWS 1000000

static gsize
gpu_operations (SlTrace *trace)
{
  gsize n = 0;

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_MEMCPY || lane->kind == SL_LANE_MEMSET)
        n += lane->n_events;
    }
  return n;
}

GPtrArray *
sl_stats_panel_compute_reports (SlTrace *trace)
{
  GPtrArray *reports = g_ptr_array_new ();

  g_return_val_if_fail (trace != NULL, reports);

  for (const char *const *n = sl_report_names (); *n != NULL; n++)
    {
      g_autoptr (GError) error = NULL;
      if (g_str_equal (*n, "cuda_gpu_trace") && gpu_operations (trace) > GPU_TRACE_MAX_ROWS)
        g_ptr_array_add (reports, NULL);
      else
        g_ptr_array_add (reports, sl_report_compute (trace, *n, &error));
    }
  return reports;
}

static void
page_free (gpointer data)
{
  Page *page = data;

  g_clear_pointer (&page->full, table_unref);
  g_clear_pointer (&page->shown, table_unref);
  g_clear_object (&page->sort);
  g_clear_object (&page->selection);
  g_free (page);
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

  (void) factory;
  if (row == NULL)
    return;
  text = cell_text (row->table, column, table_cell (row->table, row->row, column));
  gtk_label_set_text (GTK_LABEL (label), text);
  if (!row->table->numeric[column])
    gtk_widget_set_tooltip_text (label, text);
}

static int
compare_rows_cb (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  const SlStatsRow *ra = a, *rb = b;
  guint column = GPOINTER_TO_UINT (user_data);
  const SlCell *ca = table_cell (ra->table, ra->row, column);
  const SlCell *cb = table_cell (rb->table, rb->row, column);

  if (ra->table->numeric[column])
    {
      double x = cell_number (ca), y = cell_number (cb);
      return x < y ? GTK_ORDERING_SMALLER : x > y ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
    }
  return gtk_ordering_from_cmpfunc (g_strcmp0 (ca->type == SL_CELL_TEXT ? ca->v.s : "",
                                               cb->type == SL_CELL_TEXT ? cb->v.s : ""));
}

static gint
page_find_column (Page       *page,
                  const char *header)
{
  for (guint c = 0; page->shown != NULL && c < page->shown->n_columns; c++)
    if (g_strcmp0 (page->shown->headers[c], header) == 0)
      return (gint) c;
  return -1;
}

static SlStatsRow *
page_selected_row (Page *page)
{
  return page->selection != NULL ? gtk_single_selection_get_selected_item (page->selection) : NULL;
}

static guint32
kernel_id_for_row (SlStatsPanel *self,
                   Page         *page,
                   SlStatsRow   *row)
{
  gint name_col = page_find_column (page, "Name");
  const SlCell *cell;

  if (row == NULL || name_col < 0 || self->kernel_ids == NULL)
    return SL_NO_STR;
  cell = table_cell (row->table, row->row, (guint) name_col);
  if (cell->type != SL_CELL_TEXT)
    return SL_NO_STR;
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->kernel_ids, cell->v.s));
}

static void
selection_changed_cb (GtkSingleSelection *selection,
                      GParamSpec         *pspec,
                      Page               *page)
{
  SlStatsPanel *self = page->panel;
  guint32 id;

  (void) selection;
  (void) pspec;
  if (page->longest == NULL || self->timeline == NULL)
    return;
  id = kernel_id_for_row (self, page, page_selected_row (page));
  sl_timeline_view_set_highlight_name (self->timeline, id);
  gtk_widget_set_sensitive (page->longest, id != SL_NO_STR);
}

static void
longest_clicked_cb (GtkButton    *button,
                    SlStatsPanel *self)
{
  (void) button;
  sl_stats_panel_go_to_longest (self);
}

static void
update_info (SlStatsPanel *self,
             Page         *page)
{
  g_autofree char *text = NULL;
  gsize n = page->shown != NULL ? page->shown->n_rows : 0;
  const char *rows = n == 1 ? "row" : "rows";

  if (page->full == NULL && g_str_equal (page->name, "cuda_gpu_trace")
      && gpu_operations (self->trace) > GPU_TRACE_MAX_ROWS)
    text = g_strdup_printf ("This trace has %" G_GSIZE_FORMAT " GPU operations, too many to list "
                            "here; `sightline stats --report cuda_gpu_trace %s` prints them all.",
                            gpu_operations (self->trace), sl_trace_get_path (self->trace));
  else if (page->full == NULL)
    text = g_strdup ("This trace has no data for this report.");
  else if (!self->ranged)
    text = g_strdup_printf ("Whole trace: %" G_GSIZE_FORMAT " %s. Select a time range (Shift+drag) "
                            "to see the events that start in it.", n, rows);
  else if (page->shown == page->full)
    text = g_strdup_printf ("Whole trace: %" G_GSIZE_FORMAT " %s (this report does not follow the "
                            "selected range).", n, rows);
  else
    {
      SlTime origin = sl_trace_get_start (self->trace);
      g_autofree char *a = sl_format_offset (self->r0 - origin);
      g_autofree char *b = sl_format_offset (self->r1 - origin);
      g_autofree char *d = sl_format_duration (self->r1 - self->r0);
      text = g_strdup_printf ("Selected range %s … %s (%s): %" G_GSIZE_FORMAT " %s, from the "
                              "events that start in it.", a, b, d, n, rows);
    }
  gtk_label_set_text (GTK_LABEL (page->info), text);
}

static void
page_show (SlStatsPanel *self,
           Page         *page,
           Table        *table)
{
  g_autoptr (GListModel) rows = NULL;

  if (page->shown == table)
    return;
  g_clear_pointer (&page->shown, table_unref);
  page->shown = table_ref (table);
  rows = rows_new (table);
  gtk_sort_list_model_set_model (page->sort, rows);
  if (page->longest != NULL)
    gtk_widget_set_sensitive (page->longest, FALSE);
  update_info (self, page);
}

static Page *
page_new (SlStatsPanel *self,
          const char   *name,
          SlReport     *report)
{
  Page *page = g_new0 (Page, 1);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *tab = gtk_label_new (sl_report_name_get_title (name));

  page->panel = self;
  page->name = name;
  page->info = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (page->info), 0);
  gtk_label_set_wrap (GTK_LABEL (page->info), TRUE);
  gtk_label_set_selectable (GTK_LABEL (page->info), TRUE);
  gtk_widget_set_hexpand (page->info, TRUE);
  gtk_widget_add_css_class (page->info, "dim-label");
  g_object_set (bar, "margin-start", 6, "margin-end", 6, "margin-top", 4, "margin-bottom", 4, NULL);
  gtk_box_append (GTK_BOX (bar), page->info);
  gtk_box_append (GTK_BOX (box), bar);
  gtk_widget_set_tooltip_text (tab, name);

  if (report != NULL)
    {
      g_autoptr (GListModel) empty = NULL;

      page->full = table_new_for_report (report);
      page->view = gtk_column_view_new (NULL);
      gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (page->view), TRUE);
      gtk_column_view_set_reorderable (GTK_COLUMN_VIEW (page->view), FALSE);
      for (guint c = 0; c < page->full->n_columns; c++)
        {
          GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
          GtkColumnViewColumn *column;
          GtkCustomSorter *sorter = gtk_custom_sorter_new (compare_rows_cb, GUINT_TO_POINTER (c),
                                                           NULL);

          g_object_set_data (G_OBJECT (factory), "sl-numeric",
                             GINT_TO_POINTER (page->full->numeric[c]));
          g_signal_connect (factory, "setup", G_CALLBACK (setup_cell_cb), NULL);
          g_signal_connect (factory, "bind", G_CALLBACK (bind_cell_cb), GUINT_TO_POINTER (c));
          column = gtk_column_view_column_new (page->full->headers[c], factory);
          gtk_column_view_column_set_sorter (column, GTK_SORTER (sorter));
          gtk_column_view_column_set_resizable (column, TRUE);
          if (!page->full->numeric[c])
            gtk_column_view_column_set_expand (column, TRUE);
          gtk_column_view_append_column (GTK_COLUMN_VIEW (page->view), column);
          g_object_unref (sorter);
          g_object_unref (column);
        }
      page->sort = gtk_sort_list_model_new (NULL, g_object_ref (gtk_column_view_get_sorter (
                                                    GTK_COLUMN_VIEW (page->view))));
      page->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (page->sort)));
      gtk_single_selection_set_autoselect (page->selection, FALSE);
      gtk_single_selection_set_can_unselect (page->selection, TRUE);
      gtk_column_view_set_model (GTK_COLUMN_VIEW (page->view),
                                 GTK_SELECTION_MODEL (page->selection));
      g_signal_connect (page->selection, "notify::selected", G_CALLBACK (selection_changed_cb),
                        page);
      gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), page->view);
      if (g_strcmp0 (name, "cuda_gpu_kern_sum") == 0)
        {
          page->longest = gtk_button_new_with_mnemonic ("_Longest instance");
          gtk_widget_set_tooltip_text (page->longest, "Select the longest instance of the "
                                                      "selected kernel in the timeline");
          gtk_widget_set_sensitive (page->longest, FALSE);
          g_signal_connect (page->longest, "clicked", G_CALLBACK (longest_clicked_cb), self);
          gtk_box_append (GTK_BOX (bar), page->longest);
        }
      page_show (self, page, page->full);
    }
  update_info (self, page);
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_box_append (GTK_BOX (box), scroller);
  gtk_notebook_append_page (GTK_NOTEBOOK (self->notebook), box, tab);
  return page;
}

/* ------------------------------------------------------------------------------------------------
 * Per-name aggregates of the events that start in [t0, t1): what the summary reports would say
 * about a trace cut to that range.  O(events in the range) plus a sort per name for the median.
 */
typedef struct
{
  char   *style;    /* nvtx_sum only */
  char   *name;
  GArray *values;   /* gint64: durations or bytes */
  gint64  total;
} Group;

static void
group_free (gpointer data)
{
  Group *g = data;

  g_free (g->style);
  g_free (g->name);
  g_array_unref (g->values);
  g_free (g);
}

static int
compare_i64 (gconstpointer a,
             gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static int
compare_groups (gconstpointer a,
                gconstpointer b)
{
  const Group *x = *(Group *const *) a, *y = *(Group *const *) b;

  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return g_strcmp0 (x->name, y->name);
}

static Table *
range_summary (SlStatsPanel *self,
               Page         *page)
{
  const char *name = page->name;
  gboolean bytes = g_str_equal (name, "cuda_gpu_mem_size_sum");
  gboolean nvtx = g_str_equal (name, "nvtx_sum");
  g_autoptr (GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         group_free);
  g_autoptr (GPtrArray) sorted = NULL;
  gint64 grand = 0;
  Table *t = table_new_like (page->full);
  guint nc = t->n_columns;

  for (guint l = 0; l < sl_trace_get_n_lanes (self->trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, l);
      gboolean wanted;

      if (g_str_equal (name, "cuda_gpu_kern_sum"))
        wanted = lane->kind == SL_LANE_KERNELS;
      else if (g_str_equal (name, "cuda_api_sum"))
        wanted = lane->kind == SL_LANE_CUDA_API;
      else if (g_str_equal (name, "osrt_sum"))
        wanted = lane->kind == SL_LANE_OSRT;
      else if (nvtx)
        wanted = lane->kind == SL_LANE_NVTX;
      else
        wanted = lane->kind == SL_LANE_MEMCPY || lane->kind == SL_LANE_MEMSET;
      if (!wanted)
        continue;
      for (gsize i = sl_lane_lower_bound (lane, self->r0);
           i < lane->n_events && lane->events[i].start < self->r1; i++)
        {
          const SlEvent *ev = &lane->events[i];
          const char *style = NULL;
          g_autofree char *key = NULL;
          Group *g;
          gint64 v = ev->end - ev->start;

          if (nvtx && (ev->link & SL_NVTX_MARK))
            continue;
          if (nvtx)
            style = (ev->link & SL_NVTX_START_END) ? "StartEnd" : "PushPop";
          if (bytes)
            {
              const SlCopyInfo *ci = sl_trace_get_copy_info (self->trace, ev->aux);
              v = ci != NULL ? (gint64) MIN (ci->bytes, (guint64) G_MAXINT64) : 0;
            }
          key = g_strdup_printf ("%s\x1f%s", style != NULL ? style : "",
                                 sl_trace_str (self->trace, ev->name));
          g = g_hash_table_lookup (groups, key);
          if (g == NULL)
            {
              g = g_new0 (Group, 1);
              g->style = g_strdup (style);
              g->name = g_strdup (sl_trace_str (self->trace, ev->name));
              g->values = g_array_new (FALSE, FALSE, sizeof (gint64));
              g_hash_table_insert (groups, g_steal_pointer (&key), g);
            }
          g_array_append_val (g->values, v);
          g->total += v;
          grand += v;
        }
    }

  sorted = g_ptr_array_new ();
  {
    GHashTableIter iter;
    gpointer value;

    g_hash_table_iter_init (&iter, groups);
    while (g_hash_table_iter_next (&iter, NULL, &value))
      g_ptr_array_add (sorted, value);
  }
  g_ptr_array_sort (sorted, compare_groups);
  t->n_rows = sorted->len;
  t->cells = g_new0 (SlCell, MAX (t->n_rows * nc, 1));
  t->strings = g_string_chunk_new (1024);
  for (guint r = 0; r < sorted->len; r++)
    {
      Group *g = sorted->pdata[r];
      gint64 *v = (gint64 *) (void *) g->values->data;
      guint n = g->values->len;
      double mean = (double) g->total / n, m2 = 0, median;

      g_array_sort (g->values, compare_i64);
      for (guint i = 0; i < n; i++)
        m2 += ((double) v[i] - mean) * ((double) v[i] - mean);
      median = n % 2 ? (double) v[n / 2] : ((double) v[n / 2 - 1] + (double) v[n / 2]) / 2;
      for (guint c = 0; c < nc; c++)
        {
          const char *h = t->headers[c];
          SlCell *cell = &t->cells[r * nc + c];

          if (g_str_has_prefix (h, "Time (%"))
            *cell = (SlCell) { SL_CELL_DOUBLE, { .d = grand > 0 ? 100.0 * g->total / grand : 0 } };
          else if (g_str_has_prefix (h, "Total"))
            *cell = (SlCell) { SL_CELL_INT, { .i = g->total } };
          else if (g_str_equal (h, "Instances") || g_str_equal (h, "Num Calls")
                   || g_str_equal (h, "Count"))
            *cell = (SlCell) { SL_CELL_INT, { .i = n } };
          else if (g_str_has_prefix (h, "Avg"))
            *cell = (SlCell) { SL_CELL_DOUBLE, { .d = mean } };
          else if (g_str_has_prefix (h, "Med"))
            *cell = (SlCell) { SL_CELL_DOUBLE, { .d = median } };
          else if (g_str_has_prefix (h, "Min"))
            *cell = (SlCell) { SL_CELL_INT, { .i = v[0] } };
          else if (g_str_has_prefix (h, "Max"))
            *cell = (SlCell) { SL_CELL_INT, { .i = v[n - 1] } };
          else if (g_str_has_prefix (h, "StdDev"))
            *cell = (SlCell) { SL_CELL_DOUBLE, { .d = n > 1 ? sqrt (m2 / (n - 1)) : 0 } };
          else if (g_str_equal (h, "Style"))
            *cell = (SlCell) { SL_CELL_TEXT, { .s = g_string_chunk_insert (t->strings,
                                                                            g->style) } };
          else
            *cell = (SlCell) { SL_CELL_TEXT, { .s = g_string_chunk_insert (t->strings,
                                                                            g->name) } };
        }
    }
  return t;
}

/* cuda_gpu_trace lists events: keep the rows whose start lies in the range. */
static Table *
range_rows (SlStatsPanel *self,
            Page         *page)
{
  Table *t = table_new_like (page->full);
  gint start_col = page_find_column (page, "Start (ns)");
  gsize n = page->full->n_rows;

  if (start_col < 0)
    start_col = 0;
  t->row_map = g_new (gsize, MAX (n, 1));
  for (gsize r = 0; r < n; r++)
    {
      const SlCell *cell = table_cell (page->full, r, (guint) start_col);
      if (cell->type == SL_CELL_INT && cell->v.i >= self->r0 && cell->v.i < self->r1)
        t->row_map[t->n_rows++] = r;
    }
  return t;
}

static void
recompute (SlStatsPanel *self)
{
  for (guint i = 0; i < self->pages->len; i++)
    {
      Page *page = self->pages->pdata[i];
      Table *t;

      if (page->full == NULL)
        continue;
      if (!self->ranged || g_str_equal (page->name, "cuda_kern_exec_sum"))
        {
          page_show (self, page, page->full);
          update_info (self, page);
          continue;
        }
      t = g_str_equal (page->name, "cuda_gpu_trace") ? range_rows (self, page)
                                                    : range_summary (self, page);
      page_show (self, page, t);
      table_unref (t);
    }
}

static gboolean
range_timeout_cb (gpointer data)
{
  SlStatsPanel *self = data;

  self->range_source = 0;
  self->ranged = self->viewport != NULL && sl_viewport_get_selection (self->viewport, &self->r0,
                                                                      &self->r1)
                 && self->r1 > self->r0;
  recompute (self);
  return G_SOURCE_REMOVE;
}

static void
viewport_selection_changed_cb (SlViewport   *viewport,
                               GParamSpec   *pspec,
                               SlStatsPanel *self)
{
  (void) viewport;
  (void) pspec;
  if (self->range_source != 0)
    g_source_remove (self->range_source);
  self->range_source = g_timeout_add (RANGE_DELAY_MS, range_timeout_cb, self);
}

static void
clear_pages (SlStatsPanel *self)
{
  while (gtk_notebook_get_n_pages (GTK_NOTEBOOK (self->notebook)) > 0)
    gtk_notebook_remove_page (GTK_NOTEBOOK (self->notebook), -1);
  g_ptr_array_set_size (self->pages, 0);
}

static void
disconnect_viewport (SlStatsPanel *self)
{
  if (self->viewport != NULL && self->selection_handler != 0)
    g_signal_handler_disconnect (self->viewport, self->selection_handler);
  self->selection_handler = 0;
  g_clear_object (&self->viewport);
  g_clear_handle_id (&self->range_source, g_source_remove);
}

static void
sl_stats_panel_dispose (GObject *object)
{
  SlStatsPanel *self = SL_STATS_PANEL (object);

  disconnect_viewport (self);
  g_clear_pointer (&self->notebook, gtk_widget_unparent);
  g_clear_pointer (&self->pages, g_ptr_array_unref);
  g_clear_pointer (&self->kernel_ids, g_hash_table_unref);
  g_clear_pointer (&self->trace, sl_trace_unref);
  if (self->timeline != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->timeline), (gpointer *) &self->timeline);
  self->timeline = NULL;
  G_OBJECT_CLASS (sl_stats_panel_parent_class)->dispose (object);
}

static void
sl_stats_panel_class_init (SlStatsPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sl_stats_panel_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sl-stats-panel");
}

static void
sl_stats_panel_init (SlStatsPanel *self)
{
  self->pages = g_ptr_array_new_with_free_func (page_free);
  self->notebook = gtk_notebook_new ();
  gtk_notebook_set_scrollable (GTK_NOTEBOOK (self->notebook), TRUE);
  gtk_widget_set_parent (self->notebook, GTK_WIDGET (self));
}

void
sl_stats_panel_set_timeline (SlStatsPanel   *self,
                             SlTimelineView *timeline,
                             GPtrArray      *reports)
{
  g_autoptr (GPtrArray) owned = reports;
  guint i = 0;

  g_return_if_fail (SL_IS_STATS_PANEL (self));

  disconnect_viewport (self);
  clear_pages (self);
  g_clear_pointer (&self->kernel_ids, g_hash_table_unref);
  g_clear_pointer (&self->trace, sl_trace_unref);
  if (self->timeline != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->timeline), (gpointer *) &self->timeline);
  self->timeline = timeline;
  self->ranged = FALSE;
  if (timeline == NULL || sl_timeline_view_get_trace (timeline) == NULL)
    {
      self->timeline = NULL;
      for (guint k = 0; owned != NULL && k < owned->len; k++)
        g_clear_pointer (&owned->pdata[k], sl_report_free);
      return;
    }
  g_object_add_weak_pointer (G_OBJECT (timeline), (gpointer *) &self->timeline);
  self->trace = sl_trace_ref (sl_timeline_view_get_trace (timeline));
  self->viewport = g_object_ref (sl_timeline_view_get_viewport (timeline));
  self->selection_handler = g_signal_connect (self->viewport, "notify::selection",
                                              G_CALLBACK (viewport_selection_changed_cb), self);
  if (owned == NULL)
    owned = sl_stats_panel_compute_reports (self->trace);

  /* Kernel rows name kernels by demangled name; the timeline highlights by string id. */
  self->kernel_ids = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint l = 0; l < sl_trace_get_n_lanes (self->trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, l);
      guint32 last = SL_NO_STR;

      if (lane->kind != SL_LANE_KERNELS)
        continue;
      for (gsize e = 0; e < lane->n_events; e++)
        {
          guint32 id = lane->events[e].name;
          if (id == last)
            continue;
          last = id;
          g_hash_table_insert (self->kernel_ids, (gpointer) sl_trace_str (self->trace, id),
                               GUINT_TO_POINTER (id));
        }
    }

  for (const char *const *n = sl_report_names (); *n != NULL; n++, i++)
    {
      SlReport *report = i < owned->len ? g_steal_pointer (&owned->pdata[i]) : NULL;
      g_ptr_array_add (self->pages, page_new (self, *n, report));
    }
  for (; i < owned->len; i++)
    g_clear_pointer (&owned->pdata[i], sl_report_free);
  /* Kernels first: they are what a person looks at first. */
  sl_stats_panel_show_report (self, "cuda_gpu_kern_sum");
  /* A selection made before the tables existed applies too. */
  viewport_selection_changed_cb (self->viewport, NULL, self);
}

static Page *
current_page (SlStatsPanel *self)
{
  gint n = gtk_notebook_get_current_page (GTK_NOTEBOOK (self->notebook));

  if (n < 0 || (guint) n >= self->pages->len)
    return NULL;
  return self->pages->pdata[n];
}

const char *
sl_stats_panel_get_report (SlStatsPanel *self)
{
  Page *page;

  g_return_val_if_fail (SL_IS_STATS_PANEL (self), NULL);
  page = current_page (self);
  return page != NULL ? page->name : NULL;
}

gboolean
sl_stats_panel_show_report (SlStatsPanel *self,
                            const char   *name)
{
  g_return_val_if_fail (SL_IS_STATS_PANEL (self), FALSE);

  for (guint i = 0; i < self->pages->len; i++)
    if (g_strcmp0 (((Page *) self->pages->pdata[i])->name, name) == 0)
      {
        gtk_notebook_set_current_page (GTK_NOTEBOOK (self->notebook), (gint) i);
        return TRUE;
      }
  return FALSE;
}

guint
sl_stats_panel_get_n_rows (SlStatsPanel *self)
{
  Page *page;

  g_return_val_if_fail (SL_IS_STATS_PANEL (self), 0);
  page = current_page (self);
  return page != NULL && page->sort != NULL ? g_list_model_get_n_items (G_LIST_MODEL (page->sort))
                                            : 0;
}

char *
sl_stats_panel_get_cell_text (SlStatsPanel *self,
                              guint         row,
                              const char   *column)
{
  Page *page;
  g_autoptr (SlStatsRow) item = NULL;
  gint c;

  g_return_val_if_fail (SL_IS_STATS_PANEL (self), NULL);
  page = current_page (self);
  if (page == NULL || page->sort == NULL || (c = page_find_column (page, column)) < 0)
    return NULL;
  item = g_list_model_get_item (G_LIST_MODEL (page->sort), row);
  if (item == NULL)
    return NULL;
  return cell_text (item->table, (guint) c, table_cell (item->table, item->row, (guint) c));
}

void
sl_stats_panel_select_row (SlStatsPanel *self,
                           guint         row)
{
  Page *page;

  g_return_if_fail (SL_IS_STATS_PANEL (self));
  page = current_page (self);
  if (page != NULL && page->selection != NULL)
    gtk_single_selection_set_selected (page->selection, row);
}

gboolean
sl_stats_panel_go_to_longest (SlStatsPanel *self)
{
  Page *page = NULL;
  guint32 id;
  SlEventRef best = SL_EVENT_REF_NONE;
  SlTime best_dur = -1;

  g_return_val_if_fail (SL_IS_STATS_PANEL (self), FALSE);

  for (guint i = 0; i < self->pages->len; i++)
    if (((Page *) self->pages->pdata[i])->longest != NULL)
      page = self->pages->pdata[i];
  if (page == NULL || self->timeline == NULL)
    return FALSE;
  id = kernel_id_for_row (self, page, page_selected_row (page));
  if (id == SL_NO_STR)
    return FALSE;
  for (guint l = 0; l < sl_trace_get_n_lanes (self->trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, l);
      gsize e = self->ranged ? sl_lane_lower_bound (lane, self->r0) : 0;

      if (lane->kind != SL_LANE_KERNELS)
        continue;
      for (; e < lane->n_events; e++)
        {
          const SlEvent *ev = &lane->events[e];
          if (self->ranged && ev->start >= self->r1)
            break;
          if (ev->name == id && ev->end - ev->start > best_dur)
            {
              best_dur = ev->end - ev->start;
              best = (SlEventRef) { (gint) l, e };
            }
        }
    }
  if (best.lane < 0)
    return FALSE;
  sl_timeline_view_select_event (self->timeline, best, TRUE);
  return TRUE;
}

gboolean
sl_stats_panel_is_ranged (SlStatsPanel *self)
{
  g_return_val_if_fail (SL_IS_STATS_PANEL (self), FALSE);
  return self->ranged;
}
