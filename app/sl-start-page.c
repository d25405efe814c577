/* sl-start-page.c: the empty window's page (data/ui/sl-start-page.ui): open a trace, record a
 * program, and the recent traces from GtkRecentManager. */
#include "sl-start-page.h"

#define MAX_RECENT 8

struct _SlStartPage
{
  GtkWidget  parent_instance;

  GtkWidget *recent_box;
  GtkWidget *recent_list;
};

G_DEFINE_FINAL_TYPE (SlStartPage, sl_start_page, GTK_TYPE_WIDGET)

enum
{
  OPEN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

GtkWidget *
sl_start_page_new (void)
{
  return g_object_new (SL_TYPE_START_PAGE, NULL);
}

/* Newest first. */
static gint
compare_recent (gconstpointer a,
                gconstpointer b)
{
  GDateTime *x = gtk_recent_info_get_modified ((GtkRecentInfo *) a);
  GDateTime *y = gtk_recent_info_get_modified ((GtkRecentInfo *) b);

  return -g_date_time_compare (x, y);
}

static GtkWidget *
recent_row_new (GFile      *file,
                const char *path)
{
  g_autofree char *base = g_path_get_basename (path);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *name = gtk_label_new (base);
  GtkWidget *where = gtk_label_new (path);
  GtkWidget *row = gtk_list_box_row_new ();

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_xalign (GTK_LABEL (where), 0);
  gtk_label_set_ellipsize (GTK_LABEL (where), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (where, "dim-label");
  gtk_widget_add_css_class (where, "caption");
  gtk_box_append (GTK_BOX (box), name);
  gtk_box_append (GTK_BOX (box), where);
  g_object_set (box, "margin-start", 12, "margin-end", 12, "margin-top", 6, "margin-bottom", 6,
                NULL);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  g_object_set_data_full (G_OBJECT (row), "sl-file", g_object_ref (file), g_object_unref);
  return row;
}

void
sl_start_page_update_recent (SlStartPage *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  GtkWidget *child;
  guint shown = 0;

  g_return_if_fail (SL_IS_START_PAGE (self));
  while ((child = gtk_widget_get_first_child (self->recent_list)) != NULL)
    gtk_list_box_remove (GTK_LIST_BOX (self->recent_list), child);
  items = g_list_sort (items, compare_recent);
  for (GList *l = items; l != NULL && shown < MAX_RECENT; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      const char *uri = gtk_recent_info_get_uri (info);
      g_autoptr (GFile) file = NULL;
      g_autofree char *path = NULL;

      if (!gtk_recent_info_has_application (info, "sightline")
          || !(g_str_has_suffix (uri, ".sqlite") || g_str_has_suffix (uri, ".json")
               || g_str_has_suffix (uri, ".json.gz")))
        continue;
      file = g_file_new_for_uri (uri);
      path = g_file_get_path (file);
      if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
        continue;
      gtk_list_box_append (GTK_LIST_BOX (self->recent_list), recent_row_new (file, path));
      shown++;
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  gtk_widget_set_visible (self->recent_box, shown > 0);
}

static void
recent_activated_cb (GtkListBox    *box,
                     GtkListBoxRow *row,
                     SlStartPage   *self)
{
  GFile *file = g_object_get_data (G_OBJECT (row), "sl-file");

  (void) box;
  if (file != NULL)
    g_signal_emit (self, signals[OPEN], 0, file);
}

static void
sl_start_page_dispose (GObject *object)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (sl_start_page_parent_class)->dispose (object);
}

static void
sl_start_page_class_init (SlStartPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sl_start_page_dispose;
  signals[OPEN] = g_signal_new ("open", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                NULL, G_TYPE_NONE, 1, G_TYPE_FILE);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/dev/sightline/Sightline/ui/sl-start-page.ui");
  gtk_widget_class_bind_template_child (widget_class, SlStartPage, recent_box);
  gtk_widget_class_bind_template_child (widget_class, SlStartPage, recent_list);
  gtk_widget_class_bind_template_callback (widget_class, recent_activated_cb);
}

static void
sl_start_page_init (SlStartPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
