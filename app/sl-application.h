/* sl-application.h: the GtkApplication: one window per trace, app-wide actions and accelerators. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SL_APPLICATION_ID "dev.sightline.Sightline"

#define SL_TYPE_APPLICATION (sl_application_get_type ())
G_DECLARE_FINAL_TYPE (SlApplication, sl_application, SL, APPLICATION, GtkApplication)

typedef struct _SlWindow SlWindow;

SlApplication *sl_application_new       (void);
/* Opens `file` in an empty start window when there is one, else in a new window; returns it. */
SlWindow      *sl_application_open_file (SlApplication *self,
                                         GFile         *file);
/* `sightline --merge A B …`: the files given are opened together, as one trace in one window. */
void           sl_application_set_merge (SlApplication *self,
                                         gboolean       merge);
/* `sightline --compare A B`: the two files given are opened compared (sl_window_open_compare). */
void           sl_application_set_compare (SlApplication *self,
                                           gboolean       compare);

G_END_DECLS
