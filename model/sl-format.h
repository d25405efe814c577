/* sl-format.h: how the CLI, panes and status lines write times, sizes and counts for people. */
#pragma once

#include <glib.h>

#include "sl-types.h"

G_BEGIN_DECLS

/* "1.234 ms", "17 ns", "2.500 s": three decimals in the largest unit that keeps the value >= 1. */
char *sl_format_duration (SlTime  ns);
/* "+12.345 ms": a time relative to the trace start (negative before it). */
char *sl_format_offset   (SlTime  ns);
/* "1.50 MiB (1,572,864 bytes)" */
char *sl_format_bytes    (guint64 bytes);
/* "12.3 GB/s" from bytes and nanoseconds; "—" when ns is 0. */
char *sl_format_rate     (guint64 bytes,
                          SlTime  ns);
/* "1,234,567": integers with thousands separators (the CLI's column format does the same). */
char *sl_format_int      (gint64  value);

G_END_DECLS
