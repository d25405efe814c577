/* sl-start-page.h: the empty window's page: open a trace, record a program, the recent traces. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SL_TYPE_START_PAGE (sl_start_page_get_type ())
G_DECLARE_FINAL_TYPE (SlStartPage, sl_start_page, SL, START_PAGE, GtkWidget)

/* "open" (GFile *file): a recent trace was clicked.  Its buttons use win.open and win.record. */
GtkWidget *sl_start_page_new            (void);
/* Lists the newest recent traces of Sightline that still exist (up to 8); hidden when none. */
void       sl_start_page_update_recent  (SlStartPage *self);

G_END_DECLS
