/* sl-format.h: how the CLI, panes and status lines write times, sizes and counts for people, and
 * strings into the JSON that the commands write. */
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

/* Appends `s` to `out` as a JSON string, quoted.  A name from a trace may be any bytes: invalid
 * UTF-8 becomes U+FFFD (g_utf8_make_valid), so the output is always valid JSON; NULL is "".
 * Escapes '"' and '\\', the control characters with a short form as \b \f \n \r \t, the others
 * as \u00XX; everything else, non-ASCII included, is copied.  The one escaper of the JSON that
 * analyze, stats, diff, critical-path, memory and merge-summaries write (the Chrome trace export
 * keeps its own, on a length and 10^7 strings). */
void  sl_json_append_string (GString    *out,
                             const char *s);

G_END_DECLS
