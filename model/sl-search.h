/* sl-search.h: finding events by name, for the search bar and the highlighted kernel. */
#pragma once

#include <glib.h>

#include "sl-types.h"

G_BEGIN_DECLS

/* The matches of one search: per lane the indexes of the matching events, ascending (4 bytes a
 * match: a search that matches all of a 10^8-event trace holds 400 MB, the old window and
 * timeline lists together 2.8 GB).  "Time order" is (start, lane, index) throughout; a position
 * among the matches and the step to the next one are found per lane with binary searches, so
 * no merged list is ever built: O(lanes · log matches) a step. */
typedef struct _SlSearch SlSearch;

/* Events whose name contains needle, ignoring case (g_utf8_casefold).  One pass over every
 * event, each distinct name decided once.  A NULL or empty needle matches nothing. */
SlSearch      *sl_trace_search             (SlTrace        *trace,
                                            const char     *needle);
/* Events whose name is the string id `name` (SL_NO_STR matches nothing). */
SlSearch      *sl_trace_search_name        (SlTrace        *trace,
                                            guint32         name);
void           sl_search_free              (SlSearch       *search);

gsize          sl_search_get_n_matches     (const SlSearch *search);
/* The matching events of one lane: indexes into the lane's events, ascending; NULL when none. */
const guint32 *sl_search_get_lane_matches  (const SlSearch *search,
                                            guint           lane,
                                            gsize          *n_matches);
gboolean       sl_search_contains          (const SlSearch *search,
                                            SlEventRef      ref);
/* 0-based position of ref among the matches in time order, -1 when ref is not a match. */
gssize         sl_search_get_position      (const SlSearch *search,
                                            SlEventRef      ref);
/* The match after (forward) or before `from` in time order.  With no event (from.lane < 0) the
 * step starts at time t: forward is the first match starting at or after t, backward the last
 * one starting before it.  FALSE when there is none that way. */
gboolean       sl_search_step              (const SlSearch *search,
                                            SlEventRef      from,
                                            SlTime          t,
                                            gboolean        forward,
                                            SlEventRef     *match);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlSearch, sl_search_free)

G_END_DECLS
