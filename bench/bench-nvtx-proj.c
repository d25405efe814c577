/* bench-nvtx-proj.c: the NVTX projection onto the GPU (index + rows by range, and by GPU and
 * stream) against what loading the trace costs, measured in the same run: rounds of load, then
 * project, interleaved; prints the medians and their ratio (issue 13's target: <= 0.2 on the
 * 10 M-event generated trace, `sightline-gen -o /tmp/10m.sqlite -n 10M`).  Not a test. */
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

#include "sl-nvtx-proj.h"
#include "sl-sort.h"
#include "sl-trace.h"

int
main (int    argc,
      char **argv)
{
  int rounds = argc > 2 ? atoi (argv[2]) : 3;
  g_autoptr (GArray) load = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) by_range = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) by_stream = g_array_new (FALSE, FALSE, sizeof (double));
  gsize n_events = 0, n_rows = 0, n_stream_rows = 0;

  if (argc < 2 || rounds < 1)
    {
      fprintf (stderr, "usage: %s TRACE.sqlite [ROUNDS]\n", argv[0]);
      return 2;
    }
  for (int round = 0; round < rounds; round++)
    {
      g_autoptr (GError) error = NULL;
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr (SlTrace) trace = sl_trace_load (argv[1], SL_LOAD_ALL, NULL, NULL, NULL, &error);
      gint64 t1 = g_get_monotonic_time ();

      if (trace == NULL)
        {
          fprintf (stderr, "%s\n", error->message);
          return 1;
        }
      n_events = sl_trace_get_n_events (trace);
      g_autoptr (SlNvtxProj) proj = sl_nvtx_proj_new (trace);
      gint64 t2 = g_get_monotonic_time ();
      g_autoptr (GArray) rows = sl_nvtx_proj_compute (proj, SL_NVTX_PROJ_BY_RANGE);
      gint64 t3 = g_get_monotonic_time ();
      g_autoptr (GArray) stream_rows = sl_nvtx_proj_compute (proj, SL_NVTX_PROJ_BY_STREAM);
      gint64 t4 = g_get_monotonic_time ();
      double d[] = { (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t1) / 1e6,
                     ((t2 - t1) + (t4 - t3)) / 1e6 };

      g_array_append_val (load, d[0]);
      g_array_append_val (by_range, d[2]);
      g_array_append_val (by_stream, d[3]);
      n_rows = rows->len;
      n_stream_rows = stream_rows->len;
      printf ("round %d: load %.3f s, index %.3f s, + by range %.3f s, + by stream %.3f s\n", round,
              d[0], d[1], (t3 - t2) / 1e6, (t4 - t3) / 1e6);
    }
  double l = sl_median_double ((double *) load->data, load->len);
  double r = sl_median_double ((double *) by_range->data, by_range->len);
  double s = sl_median_double ((double *) by_stream->data, by_stream->len);
  printf ("%s: %" G_GSIZE_FORMAT " events, %" G_GSIZE_FORMAT " projected ranges, %" G_GSIZE_FORMAT
          " rows by GPU and stream\n", argv[1], n_events, n_rows, n_stream_rows);
  printf ("median of %d: load %.3f s; projection by range (index + rows) %.3f s = %.3f x load; "
          "by stream %.3f s = %.3f x load\n", rounds, l, r, r / l, s, s / l);
  return 0;
}
