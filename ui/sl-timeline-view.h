/* sl-timeline-view.h: the swimlane timeline: lane headers, ruler, events, utilization, arrows. */
#pragma once

#include "sl-critical-path.h"
#include "sl-search.h"
#include "sl-trace.h"
#include "sl-ui-types.h"
#include "sl-viewport.h"

G_BEGIN_DECLS

#define SL_TYPE_TIMELINE_VIEW (sl_timeline_view_get_type ())
G_DECLARE_FINAL_TYPE (SlTimelineView, sl_timeline_view, SL, TIMELINE_VIEW, GtkWidget)

typedef enum
{
  SL_COLOR_BY_KIND,
  SL_COLOR_BY_NAME,     /* hash of the name; NVTX ranges keep their own colour */
} SlColorMode;

GtkWidget  *sl_timeline_view_new                (void);

/* The trace to show (reffed), or NULL.  Resets the viewport to the whole trace. */
void        sl_timeline_view_set_trace          (SlTimelineView *self,
                                                 SlTrace        *trace);
/* A newer state of the same trace (a live update, the recording's complete trace): as
 * set_trace, but what the person did stays: collapsed groups, lanes pinned or hidden, the
 * vertical scroll, the selected time range, the selected event and an open context menu's row
 * and event, found again in the new trace (sl_trace_find_same_lane, sl_trace_find_same_event).
 * The visible range is the caller's. */
void        sl_timeline_view_continue_trace     (SlTimelineView *self,
                                                 SlTrace        *trace);
SlTrace    *sl_timeline_view_get_trace          (SlTimelineView *self);
/* Scrolls the first GPU's rows into sight, now or once the view has a height (a new trace's
 * first view on a small screen). */
void        sl_timeline_view_reveal_gpu         (SlTimelineView *self);
SlViewport *sl_timeline_view_get_viewport       (SlTimelineView *self);

/* The selected event; "event-selected" (SlEventRef *) is emitted on a click, and
 * "event-activated" on a double-click (which also fits the event). */
void        sl_timeline_view_select_event       (SlTimelineView *self,
                                                 SlEventRef      ref,
                                                 gboolean        scroll_to);
SlEventRef  sl_timeline_view_get_selected_event (SlTimelineView *self);

/* Instances of one name (a string id) are drawn highlighted; SL_NO_STR for none. */
void        sl_timeline_view_set_highlight_name (SlTimelineView *self,
                                                 guint32         name);
/* Search: events whose name contains `needle` (case-insensitive) are marked; returns how many. */
gsize       sl_timeline_view_set_search         (SlTimelineView *self,
                                                 const char     *needle);
/* Moves the selection to the next/previous match after/before the current one; FALSE when none. */
gboolean    sl_timeline_view_search_step        (SlTimelineView *self,
                                                 gboolean        forward);
/* The matches of the current search (owned by the view), NULL when there is none. */
const SlSearch *sl_timeline_view_get_search     (SlTimelineView *self);

void        sl_timeline_view_set_color_mode     (SlTimelineView *self,
                                                 SlColorMode     mode);
/* Overlay GPU utilization on the GPU lanes; stretches below `threshold` (0..1) are shaded. */
void        sl_timeline_view_set_util_overlay   (SlTimelineView *self,
                                                 gboolean        overlay);
void        sl_timeline_view_set_util_threshold (SlTimelineView *self,
                                                 double          threshold);

/* A finding in focus: its time range banded, its lanes tinted (headers too), its events
 * underlined.  t1 <= t0 and no lanes or events clear it. */
void        sl_timeline_view_set_focus          (SlTimelineView   *self,
                                                 SlTime            t0,
                                                 SlTime            t1,
                                                 const guint32    *lanes,
                                                 guint             n_lanes,
                                                 const SlEventRef *events,
                                                 guint             n_events);
/* While the trace shown is a first look (sl_trace_get_loading), the share of the whole load
 * done (0..1) for its "Loading… N %" label; reset by each sl_timeline_view_set_trace. */
void        sl_timeline_view_set_loading_fraction (SlTimelineView *self,
                                                   double          fraction);
/* Shaded marks along the ruler where findings are: `n_ranges` (start, end) pairs, and for each
 * the text its tooltip gives (the finding's rule, cost and summary; `texts` or one of them may be
 * NULL: its time then). */
void        sl_timeline_view_set_ruler_marks    (SlTimelineView    *self,
                                                 const SlTime      *ranges,
                                                 const char *const *texts,
                                                 guint              n_ranges);

/* The critical path of a range (sl_critical_path_get_segments; copied, n 0: none) drawn over the
 * events: the rest dimmed, each segment's event outlined on its row with a bar of its kind's
 * colour, a connector where the path goes to another row.  Gone with the trace.  The context
 * menu of a range event ("Critical Path of This Range") or with a selected range ("… of
 * Selection") emits "critical-path" (gint64 t0, gint64 t1, const char *what) for the window to
 * compute it. */
void        sl_timeline_view_set_critical_path  (SlTimelineView    *self,
                                                 const SlCpSegment *segments,
                                                 gsize              n);
/* The segments drawn (owned by the view), NULL and *n 0 when none. */
const SlCpSegment *sl_timeline_view_get_critical_path (SlTimelineView *self,
                                                       gsize          *n);
/* The colour of a kind of critical-path time, as the timeline and the panel show it. */
void        sl_critical_path_kind_color         (SlCpKind        kind,
                                                 GdkRGBA        *color);

/* Opens or closes the legend of the colours (also a click on "Legend" in the ruler's corner). */
void        sl_timeline_view_toggle_legend      (SlTimelineView  *self);

/* Lane management: pinned lanes come first, under a "Pinned" group; hidden lanes have no row
 * until shown again; the lane filter (case-insensitive) keeps the rows whose title or an
 * ancestor's (process, thread, GPU, context, stream) holds it, and their ancestors.  The context
 * menu (right-click) emits "find-name" (const char *) and "show-in-events-table" (gint lane) for
 * the window to act on. */
void        sl_timeline_view_set_lane_pinned    (SlTimelineView *self,
                                                 guint           lane,
                                                 gboolean        pinned);
gboolean    sl_timeline_view_get_lane_pinned    (SlTimelineView *self,
                                                 guint           lane);
void        sl_timeline_view_set_lane_hidden    (SlTimelineView *self,
                                                 guint           lane,
                                                 gboolean        hidden);
guint       sl_timeline_view_get_n_hidden_lanes (SlTimelineView *self);
void        sl_timeline_view_show_hidden_lanes  (SlTimelineView *self);
void        sl_timeline_view_set_lane_filter    (SlTimelineView *self,
                                                 const char     *text);
const char *sl_timeline_view_get_lane_filter    (SlTimelineView *self);

/* The timeline's keys as Perfetto has them (W/S zoom, continuously while held; A/D pan; F fit;
 * 0 show all; Esc clear), for a key event seen anywhere in the window: a window forwards its key
 * presses and releases here unless the focus is in a text entry.  TRUE when the key is one of
 * them (with no Ctrl, Alt or Super held) and was handled. */
gboolean    sl_timeline_view_handle_key         (SlTimelineView  *self,
                                                 guint            keyval,
                                                 GdkModifierType  state,
                                                 gboolean         pressed);

G_END_DECLS
