/* sl-test-window.c: opening traces in the application's real window, for the GUI tests. */
#include "sl-test-window.h"

#include <stdarg.h>

#include "sl-test-gui.h"
#include "sl-test-util.h"
#include "sl-window-private.h"

SlApplication *
sl_test_window_app_new (int    *argc,
                        char ***argv)
{
  g_autofree char *home = g_build_filename (sl_test_tmpdir (), "xdg-data", NULL);
  g_autoptr (GError) error = NULL;
  SlApplication *app;

  g_mkdir_with_parents (home, 0700);
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_test_init (argc, argv, NULL);
  app = sl_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_application_hold (G_APPLICATION (app));
  return app;
}

gboolean
sl_test_window_loaded (gpointer window)
{
  return !sl_window_is_loading (window);
}

SlWindow *
sl_test_open_window (SlApplication *app,
                     int            width,
                     int            height,
                     const char    *path,
                     ...)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  SlWindow *window = sl_window_new (app);
  va_list ap;

  g_assert_nonnull (path);
  va_start (ap, path);
  for (const char *p = path; p != NULL; p = va_arg (ap, const char *))
    g_ptr_array_add (files, g_file_new_for_path (p));
  va_end (ap);

  if (width > 0 && height > 0)
    gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  /* the size it opens at is the one it is given (a loaded machine maps it late) */
  sl_test_wait_until (sl_test_allocated, window, 5000);
  if (files->len == 1)
    sl_window_open (window, files->pdata[0]);
  else
    sl_window_open_merged (window, (GFile **) files->pdata, files->len);
  g_assert_true (sl_test_wait_until (sl_test_window_loaded, window, 120000));
  g_assert_null (sl_window_get_error_dialog (window));
  g_assert_cmpstr (sl_window_get_page (window), ==, "trace");
  g_assert_nonnull (sl_window_get_trace (window));
  sl_test_iterate_for (300);
  return window;
}
