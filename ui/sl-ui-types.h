/* sl-ui-types.h: forward declarations shared by the GTK widgets of ui/. */
#pragma once

#include <gtk/gtk.h>

#include "sl-types.h"

G_BEGIN_DECLS

typedef struct _SlViewport     SlViewport;
typedef struct _SlTimelineView SlTimelineView;

G_END_DECLS
