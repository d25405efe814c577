/* sl-test-window.h: what the GUI tests that drive the application's real window (SlWindow; those
 * whose tests/ui-NAME.cmake compiles the application's sources) share: opening traces in it. */
#pragma once

#include "sl-application.h"
#include "sl-window.h"

G_BEGIN_DECLS

/* The start of such a test's main(): its own XDG data folder (recent files) and in-memory
 * settings, g_test_init, and the application registered and held; sl_test_app_done ends it. */
SlApplication *sl_test_window_app_new (int    *argc,
                                       char ***argv);
/* Whether `window` (an SlWindow) is done loading: a condition for sl_test_wait_until. */
gboolean  sl_test_window_loaded (gpointer       window);
/* A new window of `width` × `height` (0 × 0: its default size), presented and allocated, then
 * the traces that follow, up to a NULL, opened in it (one; several: merged, a rank each).  Returns
 * once they are loaded (within two minutes), the trace shown (asserted: no error) and its first
 * frames drawn. */
SlWindow *sl_test_open_window   (SlApplication *app,
                                 int            width,
                                 int            height,
                                 const char    *path,
                                 ...) G_GNUC_NULL_TERMINATED;

G_END_DECLS
