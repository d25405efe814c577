/* sl-range.h: the time ranges people type (`stats --range 1.5s:2s`), read into trace times. */
#pragma once

#include <glib.h>

#include "sl-types.h"

G_BEGIN_DECLS

#define SL_RANGE_ERROR (sl_range_error_quark ())

typedef enum
{
  SL_RANGE_ERROR_SYNTAX,   /* not "A:B" with two times */
  SL_RANGE_ERROR_EMPTY,    /* B is not after A */
  SL_RANGE_ERROR_OUTSIDE,  /* the range holds no instant of the trace */
} SlRangeError;

GQuark   sl_range_error_quark (void);

/* One time: a decimal number with an optional unit, ns (the default), us (or µs), ms or s:
 * "250ms", "1.5s", "1200".  Fractions finer than a nanosecond are truncated; no floating point,
 * so "0.1s" is exactly 100000000. */
gboolean sl_time_parse        (const char *text,
                               SlTime     *ns,
                               GError    **error);

/* "A:B", from the trace's time 0 (sl_trace_get_origin: an nsys export's session start, where
 * the viewer's ruler, its detail pane, `sightline info` and `analyze` count from; not its first
 * event), into the absolute times [*t0, *t1) of trace: B after A, and the range overlapping the
 * trace's events.  A time may carry the minus sign (U+2212) that Sightline prints. */
gboolean sl_range_parse       (const char *text,
                               SlTrace    *trace,
                               SlTime     *t0,
                               SlTime     *t1,
                               GError    **error);

G_END_DECLS
