/* sl-ui-types.h: forward declarations shared by the GTK widgets of ui/. */
#pragma once

#include <gtk/gtk.h>

#include "sl-types.h"

G_BEGIN_DECLS

typedef struct _SlViewport     SlViewport;
typedef struct _SlTimelineView SlTimelineView;

/* An event on screen: a lane of the trace and an index in it. */
typedef struct
{
  gint  lane;    /* -1 = none */
  gsize index;
} SlEventRef;

#define SL_EVENT_REF_NONE ((SlEventRef) { -1, 0 })

G_END_DECLS
