/* sl-bench.h: what the benchmarks share: a wall clock, medians of runs, the load average. */
#pragma once

#include <glib.h>

#include "sl-sort.h"

/* Seconds on the monotonic clock. */
static inline double
sl_bench_now (void)
{
  return (double) g_get_monotonic_time () / 1e6;
}

/* The median of an array of doubles (sorted in place), 0 when empty. */
static inline double
sl_bench_median (GArray *a)
{
  return a->len == 0 ? 0 : sl_median_double ((double *) (void *) a->data, a->len);
}

/* "1.20 0.95 0.80" from /proc/loadavg, "unknown" where it cannot be read. */
static inline char *
sl_bench_load_average (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    return g_strdup ("unknown");
  g_auto (GStrv) parts = g_strsplit (text, " ", 4);
  return g_strdup_printf ("%s %s %s", parts[0], parts[1] ? parts[1] : "",
                          parts[1] && parts[2] ? parts[2] : "");
}
