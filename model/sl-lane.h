/* sl-lane.h: queries on one lane: overlap, level of detail. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

/* Index of the first event (by start) whose start is >= t; n_events when none. */
gsize sl_lane_lower_bound (const SlLane *lane,
                           SlTime        t);

/*
 * Every event overlapping [t0, t1) (start < t1 and end > t0; a zero-length event at t counts
 * when t0 <= t < t1), in order of start.  O(log n + k) with the lane's interval tree.
 * Calls func for each; stops early when func returns FALSE.  Returns how many were visited.
 */
typedef gboolean (*SlLaneVisitFunc) (const SlLane *lane, gsize index, gpointer user_data);

gsize sl_lane_overlap (const SlLane    *lane,
                       SlTime           t0,
                       SlTime           t1,
                       SlLaneVisitFunc  func,
                       gpointer         user_data);

/* One drawable item of a level-of-detail list. */
typedef struct
{
  SlTime  start;   /* of the first event it covers */
  SlTime  end;     /* max end of the events it covers */
  gsize   first;   /* index of the first event */
  guint32 count;   /* events it stands for: 1 = a real event, >1 = a fold */
  SlTime  busy;    /* summed duration of those events */
} SlLodItem;

/*
 * Level of detail for [t0, t1) drawn `width_px` pixels wide: at most about 2 items per pixel.
 * Events narrower than `min_px` pixels that follow each other within a pixel are folded into
 * one item.  Writes into `out` (cleared first).  Cost is O(items × log n), not O(events).
 */
void  sl_lane_lod     (const SlLane *lane,
                       SlTime        t0,
                       SlTime        t1,
                       guint         width_px,
                       double        min_px,
                       GArray       *out);

G_END_DECLS
