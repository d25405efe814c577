/* sl-application.c: the GtkApplication: one window per trace, app-wide actions and accelerators. */
#include "sl-application.h"

#include "sl-window.h"

struct _SlApplication
{
  GtkApplication parent_instance;
  gboolean       merge;    /* the files given open as one merged trace */
  gboolean       compare;  /* the two files given open compared */
};

G_DEFINE_FINAL_TYPE (SlApplication, sl_application, GTK_TYPE_APPLICATION)

SlApplication *
sl_application_new (void)
{
  return g_object_new (SL_TYPE_APPLICATION,
                       "application-id", SL_APPLICATION_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                       NULL);
}

static SlWindow *
find_idle_window (SlApplication *self)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (SL_IS_WINDOW (l->data) && !sl_window_is_busy (l->data))
      return l->data;
  return NULL;
}

SlWindow *
sl_application_open_file (SlApplication *self,
                          GFile         *file)
{
  SlWindow *window;

  g_return_val_if_fail (SL_IS_APPLICATION (self), NULL);
  g_return_val_if_fail (G_IS_FILE (file), NULL);

  window = find_idle_window (self);
  if (window == NULL)
    window = sl_window_new (self);
  gtk_window_present (GTK_WINDOW (window));
  sl_window_open (window, file);
  return window;
}

void
sl_application_set_merge (SlApplication *self,
                          gboolean       merge)
{
  g_return_if_fail (SL_IS_APPLICATION (self));
  self->merge = merge;
}

void
sl_application_set_compare (SlApplication *self,
                            gboolean       compare)
{
  g_return_if_fail (SL_IS_APPLICATION (self));
  self->compare = compare;
}

static void
sl_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (sl_window_new (SL_APPLICATION (app)));
  gtk_window_present (window);
}

static void
sl_application_open (GApplication  *app,
                     GFile        **files,
                     gint           n_files,
                     const char    *hint)
{
  SlApplication *self = SL_APPLICATION (app);

  (void) hint;
  if (self->compare && n_files == 2)
    {
      SlWindow *window = find_idle_window (self);
      if (window == NULL)
        window = sl_window_new (self);
      gtk_window_present (GTK_WINDOW (window));
      sl_window_open_compare (window, files[0], files[1]);
      return;
    }
  if (self->merge && n_files > 1)
    {
      SlWindow *window = find_idle_window (self);
      if (window == NULL)
        window = sl_window_new (self);
      gtk_window_present (GTK_WINDOW (window));
      sl_window_open_merged (window, files, (guint) n_files);
      return;
    }
  for (gint i = 0; i < n_files; i++)
    sl_application_open_file (self, files[i]);
}

static void
open_action_cb (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  SlApplication *self = user_data;
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  (void) action;
  (void) parameter;
  if (!SL_IS_WINDOW (window))
    {
      window = GTK_WINDOW (sl_window_new (self));
      gtk_window_present (window);
    }
  sl_window_show_open_dialog (SL_WINDOW (window));
}

static void
quit_action_cb (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  (void) action;
  (void) parameter;
  /* Closing each window cancels its load; the application ends with its last window. */
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (user_data)); l != NULL;)
    {
      GList *next = l->next;
      gtk_window_close (l->data);
      l = next;
    }
  g_application_quit (G_APPLICATION (user_data));
}

static void
shortcuts_action_cb (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  g_autoptr (GtkBuilder) builder =
    gtk_builder_new_from_resource ("/dev/sightline/Sightline/ui/sl-shortcuts-window.ui");
  GtkWindow *shortcuts = GTK_WINDOW (gtk_builder_get_object (builder, "shortcuts"));
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  (void) action;
  (void) parameter;
  gtk_window_set_transient_for (shortcuts, parent);
  gtk_window_set_application (shortcuts, GTK_APPLICATION (user_data));
  gtk_window_present (shortcuts);
}

static void
about_action_cb (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  const char *authors[] = { "The Sightline authors", NULL };

  (void) action;
  (void) parameter;
  gtk_show_about_dialog (gtk_application_get_active_window (GTK_APPLICATION (user_data)),
                         "program-name", "Sightline",
                         "version", "0.1.0",
                         "comments", "A native Linux profiler for CUDA programs",
                         "logo-icon-name", SL_APPLICATION_ID,
                         "authors", authors,
                         "license-type", GTK_LICENSE_UNKNOWN,
                         NULL);
}

static void
sl_application_startup (GApplication *app)
{
  static const GActionEntry entries[] = {
    { "open", open_action_cb, NULL, NULL, NULL, { 0 } },
    { "quit", quit_action_cb, NULL, NULL, NULL, { 0 } },
    { "shortcuts", shortcuts_action_cb, NULL, NULL, NULL, { 0 } },
    { "about", about_action_cb, NULL, NULL, NULL, { 0 } },
  };
  static const struct
  {
    const char *action;
    const char *accels[3];
  } accels[] = {
    { "win.open", { "<Control>o", NULL } },
    { "win.record", { "<Control>r", NULL } },
    { "app.quit", { "<Control>q", NULL } },
    { "window.close", { "<Control>w", NULL } },
    { "win.find", { "<Control>f", NULL } },
    { "win.critical-path", { "<Control><Shift>p", NULL } },
    { "app.shortcuts", { "<Control>question", NULL } },
    { "win.back", { "<Alt>Left", NULL } },
    { "win.forward", { "<Alt>Right", NULL } },
  };

  G_APPLICATION_CLASS (sl_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
  for (gsize i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[i].action,
                                           accels[i].accels);
}

static void
sl_application_class_init (SlApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->startup = sl_application_startup;
  app_class->activate = sl_application_activate;
  app_class->open = sl_application_open;
}

static void
sl_application_init (SlApplication *self)
{
  (void) self;
}
