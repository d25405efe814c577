/* sl-events-query.h: the events of a lane or of a time range as a sortable index, with each row's
 * cells and CSV: what the events table shows, without one object per event. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

typedef struct _SlEventsQuery SlEventsQuery;

typedef enum
{
  SL_EVENTS_COLUMN_NAME,
  SL_EVENTS_COLUMN_START,     /* from time 0 (sl_trace_get_origin) */
  SL_EVENTS_COLUMN_DURATION,
  SL_EVENTS_COLUMN_LANE,      /* thread or GPU stream, and what the lane holds */
  SL_EVENTS_COLUMN_DETAILS,   /* the kind's own fields: grid, block, bytes, domain … (unsorted) */
  SL_EVENTS_N_COLUMNS
} SlEventsColumn;

/* The events of lane `lane` overlapping [t0, t1), or all of them when t1 <= t0.  A lane's events
 * are an index of one guint32 each (4 M events: 16 MiB), made in one pass; never an object each. */
SlEventsQuery *sl_events_query_new_lane    (SlTrace        *trace,
                                            guint           lane,
                                            SlTime          t0,
                                            SlTime          t1);
/* The events of every lane overlapping [t0, t1), in order of start (ties by lane). */
SlEventsQuery *sl_events_query_new_range   (SlTrace        *trace,
                                            SlTime          t0,
                                            SlTime          t1);
void           sl_events_query_free        (SlEventsQuery  *query);

SlTrace       *sl_events_query_get_trace   (SlEventsQuery  *query);
gsize          sl_events_query_get_n       (SlEventsQuery  *query);
/* The event at `position` in the current order. */
SlEventRef     sl_events_query_get         (SlEventsQuery  *query,
                                            gsize           position);
/* Orders the rows by `column` (a stable radix sort of 64-bit keys: ties keep start order);
 * DETAILS orders by start.  Cost O(n) per pass, a few passes: 4 M events in well under a second. */
void           sl_events_query_sort        (SlEventsQuery  *query,
                                            SlEventsColumn  column,
                                            gboolean        descending);
SlEventsColumn sl_events_query_get_sort    (SlEventsQuery  *query,
                                            gboolean       *descending);

/* A cell as the table shows it ("+1.234 ms", "12.500 µs", "GPU 0 · Stream 7 kernels"). */
char          *sl_events_query_cell_text   (SlEventsQuery  *query,
                                            gsize           position,
                                            SlEventsColumn  column);
/* CSV (RFC 4180): the header line, then one line per row; times in integer nanoseconds. */
void           sl_events_query_csv_header  (GString        *out);
void           sl_events_query_csv_row     (SlEventsQuery  *query,
                                            gsize           position,
                                            GString        *out);

/* The lane's title as the table shows it: "python [1234] · CUDA API",
 * "GPU 0 · Stream 7 · Kernels" */
char          *sl_events_lane_title        (SlTrace        *trace,
                                            const SlLane   *lane);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlEventsQuery, sl_events_query_free)

G_END_DECLS
