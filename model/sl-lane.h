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

/* A pixel column of sl_lane_lod_columns: the narrow events starting in it, summed. */
typedef struct
{
  SlTime  busy;    /* summed duration */
  guint32 count;   /* how many */
  guint32 last;    /* index of the last of them (the event itself when count is 1) */
} SlLodColumn;

/*
 * The level of detail for drawing: wide events (at least `min_px` pixels) become items in `out`,
 * as in sl_lane_lod; every narrow event is added to `cols[px]` (width_px entries, added to, not
 * cleared) of the pixel column it starts in or the one before (a bucket of them, at most a pixel
 * wide, goes to its first event's column; column 0 for one that began before t0), and no item.
 * A dense lane zoomed out is then a read of its buckets, which reads an event only where a bucket
 * holds a wide one: O(pixels + wide events), with no item per fold.  Returns whether anything
 * went to `cols`.
 */
gboolean sl_lane_lod_columns (const SlLane *lane,
                              SlTime        t0,
                              SlTime        t1,
                              guint         width_px,
                              double        min_px,
                              GArray       *out,
                              SlLodColumn  *cols);

G_END_DECLS
