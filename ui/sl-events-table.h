/* sl-events-table.h: the events of a lane or of the selected time range as a sortable table. */
#pragma once

#include "sl-trace.h"
#include "sl-ui-types.h"

G_BEGIN_DECLS

#define SL_TYPE_EVENTS_TABLE (sl_events_table_get_type ())
G_DECLARE_FINAL_TYPE (SlEventsTable, sl_events_table, SL, EVENTS_TABLE, GtkWidget)

GtkWidget *sl_events_table_new          (void);

/* The timeline the table follows (not reffed: the window owns both): a time range selected in its
 * viewport shows the events of every lane in it; otherwise the lane of the event last clicked
 * ("event-selected") shows all its events.  The trace is the timeline's, read when the rows are
 * made (only while the table is on screen).  A click on a row emits "go-to-event" (gint lane,
 * guint64 index), which the window turns into the timeline's selection and the detail pane. */
void       sl_events_table_set_timeline (SlEventsTable  *self,
                                         SlTimelineView *timeline);
/* Shows every event of lane `lane` (the time range, if any, still restricts it). */
void       sl_events_table_show_lane    (SlEventsTable  *self,
                                         guint           lane);
/* The rows as CSV (header first): the selected ones, or all when `selected_only` is FALSE. */
char      *sl_events_table_get_csv      (SlEventsTable  *self,
                                         gboolean        selected_only);

G_END_DECLS
