/* sl-test-gui.h: what the GUI tests (test-ui-*) share: running the main loop, waiting, screenshots,
 * the labels a window shows. */
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
/* Renders what the widget shows into build/tests/screenshots/NAME.png, to look at. */
void     sl_test_screenshot  (GtkWidget  *widget,
                              const char *name);
/* Appends the text of every visible label under widget (itself included), a line each. */
void     sl_test_collect_labels (GtkWidget *widget,
                                 GString   *out);

G_END_DECLS
