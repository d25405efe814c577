/* sl-test-gui.c: what the GUI tests (test-ui-*) share: running the main loop, waiting, screenshots,
 * labels, dialogs among the toplevels. */
#include "sl-test-gui.h"

#include <math.h>

#include <gdk/x11/gdkx.h>

void
sl_test_iterate_for (guint ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < until)
    {
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (2000);
    }
}

/* A sanitized build runs several times slower, and CI runs it on two loaded cores: a wait that
 * is ample in a plain build (the search entry's delay and search, a page's first draw) is not
 * there. The waits are for things that do happen, so a longer limit costs nothing when they do. */
#if defined(__SANITIZE_ADDRESS__)
#define WAIT_SCALE 6
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WAIT_SCALE 6
#endif
#endif
#ifndef WAIT_SCALE
#define WAIT_SCALE 1
#endif

gboolean
sl_test_wait_until (SlTestCond cond,
                    gpointer   data,
                    guint      timeout_ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) timeout_ms * 1000 * WAIT_SCALE;

  while (!cond (data))
    {
      if (g_get_monotonic_time () > until)
        return FALSE;
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (2000);
    }
  return TRUE;
}

gboolean
sl_test_allocated (gpointer widget)
{
  return gtk_widget_get_width (widget) > 0;
}

void
sl_test_screenshot (GtkWidget  *widget,
                    const char *name)
{
  g_autofree char *dir = g_build_filename (SL_BUILD_DIR, "tests", "screenshots", NULL);
  g_autofree char *file = g_strdup_printf ("%s.png", name);
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autoptr (GdkPaintable) paintable = NULL;
  GtkSnapshot *snapshot;
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  int w, h;

  sl_test_iterate_for (150);
  if (gtk_widget_get_width (widget) == 0)
    {
      /* a window presented just now may wait on the X server (a loaded machine) */
      gint64 t0 = g_get_monotonic_time ();
      gboolean ok = sl_test_wait_until (sl_test_allocated, widget, 5000);
      g_test_message ("%s: allocated after %.0f more ms (mapped %d)", name,
                      (g_get_monotonic_time () - t0) / 1e3, gtk_widget_get_mapped (widget));
      (void) ok;
    }
  w = gtk_widget_get_width (widget);
  h = gtk_widget_get_height (widget);
  g_assert_cmpint (w, >, 0);
  g_assert_cmpint (h, >, 0);
  g_mkdir_with_parents (dir, 0755);
  paintable = gtk_widget_paintable_new (widget);
  /* Right after a page switch the widget may not have drawn yet: give it a few frames. */
  for (int tries = 0; node == NULL && tries < 40; tries++)
    {
      snapshot = gtk_snapshot_new ();
      gdk_paintable_snapshot (paintable, snapshot, w, h);
      node = gtk_snapshot_free_to_node (snapshot);
      if (node == NULL)
        sl_test_iterate_for (50);
    }
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)),
                                         node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
}

void
sl_test_collect_labels (GtkWidget *widget,
                        GString   *out)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    sl_test_collect_labels (c, out);
}

GtkWidget *
sl_test_find_toplevel (GType    type,
                       gboolean mapped)
{
  GListModel *tops = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GObject) w = g_list_model_get_item (tops, i);
      GtkWidget *widget = GTK_WIDGET (w);
      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type)
          && (mapped ? gtk_widget_get_mapped (widget) : gtk_widget_get_visible (widget)))
        return widget;
    }
  return NULL;
}

gint64
sl_test_parse_count (const char *text)
{
  gint64 v = 0;

  g_assert_nonnull (text);
  for (const char *p = text; *p != '\0'; p++)
    if (g_ascii_isdigit (*p))
      v = v * 10 + (*p - '0');
  return v;
}

/* xdotool's `clicks` ("click 1", "click --repeat 2 --delay 60 1") at widget coordinates (x, y)
 * of `widget`'s X window; FALSE without xdotool or X11. */
static gboolean
real_clicks (GtkWidget  *widget,
             double      x,
             double      y,
             const char *clicks)
{
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  GtkNative *native = gtk_widget_get_native (widget);
  GdkSurface *surface = gtk_native_get_surface (native);
  graphene_point_t p;
  double sx, sy;
  g_autofree char *cmd = NULL;
  gint status = -1;

  if (xdotool == NULL || !GDK_IS_X11_SURFACE (surface))
    return FALSE;
  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native),
                                           &GRAPHENE_POINT_INIT ((float) x, (float) y), &p));
  gtk_native_get_surface_transform (native, &sx, &sy);
  cmd = g_strdup_printf ("%s mousemove --sync --window %lu %d %d %s", xdotool,
                         (unsigned long) gdk_x11_surface_get_xid (surface),
                         (int) lround (p.x + sx), (int) lround (p.y + sy), clicks);
  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
  g_assert_cmpint (status, ==, 0);
  return TRUE;
}

gboolean
sl_test_real_click (GtkWidget *widget,
                    double     x,
                    double     y,
                    int        button)
{
  g_autofree char *clicks = g_strdup_printf ("click %d", button);
  return real_clicks (widget, x, y, clicks);
}

gboolean
sl_test_real_double_click (GtkWidget *widget,
                           double     x,
                           double     y)
{
  return real_clicks (widget, x, y, "click --repeat 2 --delay 60 1");
}

/* XTEST, to whatever has the X focus (a popover grabs it): GTK ignores keys sent to a window. */
gboolean
sl_test_real_key (GtkWidget  *widget,
                  const char *key)
{
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  GdkSurface *surface = gtk_native_get_surface (gtk_widget_get_native (widget));
  g_autofree char *cmd = NULL;
  gint status = -1;

  if (xdotool == NULL || !GDK_IS_X11_SURFACE (surface))
    return FALSE;
  cmd = g_strdup_printf ("%s key %s", xdotool, key);
  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
  g_assert_cmpint (status, ==, 0);
  return TRUE;
}

void
sl_test_app_done (GtkApplication *app)
{
  for (GList *l = gtk_application_get_windows (app); l != NULL;
       l = gtk_application_get_windows (app))
    gtk_window_destroy (l->data);
  sl_test_iterate_for (50);
  g_application_release (G_APPLICATION (app));
  g_object_unref (app);
}
