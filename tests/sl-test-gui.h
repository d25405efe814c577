/* sl-test-gui.h: what the GUI tests (test-ui-*) share: running the main loop, waiting, screenshots,
 * the labels a window shows, a dialog found among the toplevels.  What needs the application's
 * window (SlWindow) is in sl-test-window.h. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef gboolean (*SlTestCond) (gpointer data);

/* Runs the main loop for `ms` milliseconds. */
void     sl_test_iterate_for (guint       ms);
/* Runs the main loop until cond (data) holds; FALSE after timeout_ms without it. */
gboolean sl_test_wait_until  (SlTestCond  cond,
                              gpointer    data,
                              guint       timeout_ms);
/* Whether the widget (a GtkWidget) has its size: a condition for sl_test_wait_until. */
gboolean sl_test_allocated   (gpointer    widget);
/* Renders what the widget shows into build/tests/screenshots/NAME.png, to look at. */
void     sl_test_screenshot  (GtkWidget  *widget,
                              const char *name);
/* Appends the text of every visible label under widget (itself included), a line each. */
void     sl_test_collect_labels (GtkWidget *widget,
                                 GString   *out);
/* A count as a table shows it, "1,234" (digits and separators): 1234. */
gint64   sl_test_parse_count (const char *text);
/* The first toplevel window that is a `type` (a class, or an interface as GTK_TYPE_FILE_CHOOSER)
 * and shown: mapped (on screen) when `mapped`, else visible (asked to show: a file chooser is
 * visible before the X server maps it); NULL when there is none. */
GtkWidget *sl_test_find_toplevel (GType     type,
                                  gboolean  mapped);

/* A click of `button` through the X server at widget coordinates (x, y), as a user's: FALSE
 * without xdotool or X11. */
gboolean sl_test_real_click (GtkWidget *widget,
                             double     x,
                             double     y,
                             int        button);
/* The same with a double-click of button 1. */
gboolean sl_test_real_double_click (GtkWidget *widget,
                                    double     x,
                                    double     y);
/* A key ("Escape", "ctrl+shift+p") through the X server to what has the X focus, as a user's:
 * FALSE without xdotool or X11. */
gboolean sl_test_real_key   (GtkWidget  *widget,
                             const char *key);
/* The end of a GUI test program: its windows destroyed, the hold g_test_run () ran under
 * released, `app` unreferenced. */
void     sl_test_app_done    (GtkApplication *app);

G_END_DECLS
