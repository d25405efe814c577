/* sl-bench.h: what the benchmarks share: a wall clock, medians of runs, the load average, a
 * generated trace. */
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

/* Writes a trace of `events` ("10M") with `seed` by running the generator `gen`; FALSE (said on
 * stderr, after `who`) when it fails. */
static inline gboolean
sl_bench_generate (const char *who,
                   const char *gen,
                   const char *path,
                   guint       seed,
                   const char *events)
{
  g_autofree char *seed_text = g_strdup_printf ("%u", seed);
  const char *argv[] = { gen, "-o", path, "-n", events, "-s", seed_text, "--force", NULL };
  g_autoptr (GError) error = NULL;
  gint status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                     NULL, &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    {
      g_printerr ("%s: sightline-gen: %s\n", who, error->message);
      return FALSE;
    }
  return TRUE;
}
