/* sl-viewport.h: the visible and selected time ranges every lane, ruler and pane follows. */
#pragma once

#include "sl-ui-types.h"

G_BEGIN_DECLS

/* A time range [start, end) in trace nanoseconds: the value of the viewport's properties. */
typedef struct
{
  SlTime start;
  SlTime end;
} SlTimeRange;

#define SL_TYPE_TIME_RANGE (sl_time_range_get_type ())
GType sl_time_range_get_type (void) G_GNUC_CONST;

/* The visible and selected ranges of one timeline, as properties that widgets follow through
 * notify:: or bind to: "bounds" (the whole trace, read-only), "visible", "selection" (NULL when
 * none), "has-selection", "can-go-back", "can-go-forward" (the zoom history; read-only). */
#define SL_TYPE_VIEWPORT (sl_viewport_get_type ())
G_DECLARE_FINAL_TYPE (SlViewport, sl_viewport, SL, VIEWPORT, GObject)

SlViewport *sl_viewport_new             (void);

/* The whole trace: the visible range is kept inside it (with a little margin). */
void        sl_viewport_set_bounds      (SlViewport *self,
                                         SlTime      start,
                                         SlTime      end);
void        sl_viewport_get_bounds      (SlViewport *self,
                                         SlTime     *start,
                                         SlTime     *end);

/* Visible range; setting it clamps to the bounds and to a minimum width of 100 ns,
 * notifies "changed".  `remember` pushes the previous range on the Back history. */
void        sl_viewport_get_visible     (SlViewport *self,
                                         SlTime     *t0,
                                         SlTime     *t1);
void        sl_viewport_set_visible     (SlViewport *self,
                                         SlTime      t0,
                                         SlTime      t1,
                                         gboolean    remember);
/* factor > 1 zooms in, keeping `anchor` at the same place on screen. */
void        sl_viewport_zoom            (SlViewport *self,
                                         double      factor,
                                         SlTime      anchor);
void        sl_viewport_pan             (SlViewport *self,
                                         SlTime      delta);
void        sl_viewport_show_all        (SlViewport *self);
gboolean    sl_viewport_back            (SlViewport *self);
gboolean    sl_viewport_forward         (SlViewport *self);
gboolean    sl_viewport_can_go_back     (SlViewport *self);
gboolean    sl_viewport_can_go_forward  (SlViewport *self);

/* Selected time range (Shift+drag, drag on the ruler); notifies "selection-changed". */
gboolean    sl_viewport_get_selection   (SlViewport *self,
                                         SlTime     *t0,
                                         SlTime     *t1);
void        sl_viewport_set_selection   (SlViewport *self,
                                         SlTime      t0,
                                         SlTime      t1);
void        sl_viewport_clear_selection (SlViewport *self);

/* Pixel <-> time for a widget `width` pixels wide showing the visible range. */
double      sl_viewport_time_to_x       (SlViewport *self,
                                         SlTime      t,
                                         double      width);
SlTime      sl_viewport_x_to_time       (SlViewport *self,
                                         double      x,
                                         double      width);

G_END_DECLS
