/* bench-model.c: load time, memory, level-of-detail and overlap query cost of the model,
 * each as a ratio against a baseline measured in the same run.
 *
 *   bench-model FILE [RUNS]
 *
 * Baselines: loading is compared with a bare SQLite scan of the same columns of the same rows
 * (the floor: every row must be read once); LOD over the whole span with LOD over a narrow
 * window (cost must not grow with events); an overlap query with the number of events it returns.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "sl-lane.h"
#include "sl-resident.h"
#include "sl-sort.h"
#include "sl-trace.h"

typedef struct
{
  const char *table;
  const char *columns;
  const char *where;
} ScanTable;

/* the columns sl-reader.c reads, table by table */
static const ScanTable scan_tables[] = {
  { "CUPTI_ACTIVITY_KIND_RUNTIME", "start,end,globalTid,correlationId,nameId,eventClass,returnValue", NULL },
  { "CUPTI_ACTIVITY_KIND_KERNEL", "start,end,deviceId,contextId,streamId,globalPid,correlationId,demangledName,"
    "shortName,mangledName,launchType,cacheConfig,registersPerThread,gridX,gridY,gridZ,blockX,blockY,blockZ,"
    "staticSharedMemory,dynamicSharedMemory,localMemoryPerThread,sharedMemoryExecuted", NULL },
  { "CUPTI_ACTIVITY_KIND_MEMCPY", "start,end,deviceId,contextId,streamId,globalPid,correlationId,bytes,copyKind,"
    "srcKind,dstKind,srcDeviceId,dstDeviceId", NULL },
  { "CUPTI_ACTIVITY_KIND_MEMSET", "start,end,deviceId,contextId,streamId,globalPid,correlationId,bytes,value,memKind", NULL },
  { "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "start,end,deviceId,contextId,streamId,globalPid,correlationId,syncType", NULL },
  { "NVTX_EVENTS", "start,end,eventType,globalTid,endGlobalTid,textId,text,color,domainId", NULL },
  { "OSRT_API", "start,end,globalTid,nameId,returnValue,callchainId", "eventClass = 27" },
  { "COMPOSITE_EVENTS", "start,start,globalTid,id,threadState", NULL },
  { "SCHED_EVENTS", "start,start,cpu,isSchedIn,globalTid,threadState,threadBlock", NULL },
};

static double
now (void)
{
  return g_get_monotonic_time () / 1e6;
}



/* Reads every selected column of every row once; returns rows read. */
static gint64
bare_scan (const char *path)
{
  sqlite3 *db = NULL;
  gint64 rows = 0, sink = 0;

  sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL);
  for (guint t = 0; t < G_N_ELEMENTS (scan_tables); t++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT %s FROM %s%s%s", scan_tables[t].columns, scan_tables[t].table,
                                              scan_tables[t].where ? " WHERE " : "",
                                              scan_tables[t].where ? scan_tables[t].where : "");
      sqlite3_stmt *stmt = NULL;
      if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
        continue;   /* table (or a column) not in this file */
      int n = sqlite3_column_count (stmt);
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          rows++;
          for (int c = 0; c < n; c++)
            {
              if (sqlite3_column_type (stmt, c) == SQLITE_TEXT)
                sink += sqlite3_column_bytes (stmt, c);
              else
                sink += sqlite3_column_int64 (stmt, c);
            }
        }
      sqlite3_finalize (stmt);
    }
  sqlite3_close (db);
  if (sink == 42)
    printf (" ");
  return rows;
}

/* One LOD query on every lane, as a frame does; returns seconds, and the slowest lane's. */
static double
lod_all_lanes (SlTrace *trace,
               SlTime   t0,
               SlTime   t1,
               guint    width,
               GArray  *items,
               gsize   *n_items,
               double  *worst_lane)
{
  double start = now ();
  *n_items = 0;
  *worst_lane = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      double t = now ();
      sl_lane_lod (sl_trace_get_lane (trace, i), t0, t1, width, 1.0, items);
      *worst_lane = MAX (*worst_lane, now () - t);
      *n_items += items->len;
    }
  return now () - start;
}

int
main (int    argc,
      char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: %s FILE [RUNS]\n", argv[0]);
      return 2;
    }
  const char *path = argv[1];
  guint runs = argc > 2 ? (guint) atoi (argv[2]) : 3;
  runs = CLAMP (runs, 1, 20);
  g_autofree double *scan = g_new (double, runs);
  g_autofree double *load = g_new (double, runs);
  g_autofree double *load_nosched = g_new (double, runs);
  gint64 rows = 0;

  printf ("file                     %s\n", path);
  gsize rss0 = sl_resident_bytes ();
  g_autoptr (GError) error = NULL;
  /* first load in this process, so that VmRSS growth is this trace's alone */
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  gsize rss1 = sl_resident_bytes ();
  if (trace == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  gsize n = MAX (sl_trace_get_n_events (trace), 1);
  printf ("events                   %" G_GSIZE_FORMAT " in %u lanes\n", n, sl_trace_get_n_lanes (trace));
  printf ("model memory             %.1f bytes/event (counted by the model)\n",
          (double) sl_trace_get_memory_size (trace) / n);
  printf ("resident memory          %.1f bytes/event (VmRSS growth while loading; target <= 48)\n",
          (double) (rss1 - MIN (rss0, rss1)) / n);

  bare_scan (path);  /* warm the page cache for both */
  for (guint r = 0; r < runs; r++)
    {
      double t = now ();
      rows = bare_scan (path);
      scan[r] = now () - t;

      g_autoptr (GError) run_error = NULL;
      t = now ();
      g_autoptr (SlTrace) run = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &run_error);
      load[r] = now () - t;
      if (run == NULL)
        {
          fprintf (stderr, "%s\n", run_error->message);
          return 1;
        }
      g_clear_pointer (&run, sl_trace_unref);

      /* the same load without thread states (SCHED_EVENTS, or states derived) */
      t = now ();
      run = sl_trace_load (path, SL_LOAD_ALL & ~SL_LOAD_SCHED, NULL, NULL, NULL, NULL);
      load_nosched[r] = now () - t;
    }
  double scan_s = sl_median_double (scan, runs), load_s = sl_median_double (load, runs);
  printf ("rows                     %" G_GINT64_FORMAT "\n", rows);
  printf ("bare sqlite3 scan        %.3f s (median of %u)\n", scan_s, runs);
  printf ("model load               %.3f s (median of %u)\n", load_s, runs);
  printf ("load / scan              %.2f   (target <= 1.5)\n", load_s / scan_s);
  double nosched_s = sl_median_double (load_nosched, runs);
  gsize states = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    if (sl_trace_get_lane (trace, i)->kind == SL_LANE_SCHED)
      states += sl_trace_get_lane (trace, i)->n_events;
  printf ("thread-state events      %" G_GSIZE_FORMAT " (%.1f%% of events)\n", states,
          100.0 * (double) states / (double) n);
  printf ("load without states      %.3f s (median of %u, interleaved)\n", nosched_s, runs);
  printf ("load with / without      %.2f\n", load_s / nosched_s);

  /* level of detail: whole span vs. zoom levels down to 1 µs, 2000 px, every lane */
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (SlLodItem));
  SlTime t0 = sl_trace_get_start (trace), t1 = sl_trace_get_end (trace);
  gsize n_items;
  printf ("LOD, 2000 px, %u lanes (target <= 2 ms per lane set at every zoom):\n", sl_trace_get_n_lanes (trace));
  double worst = 0, worst_one = 0;
  for (SlTime span = t1 - t0; span >= 1000; span /= 10)
    {
      double v[9], w[9];
      SlTime mid = t0 + (t1 - t0) / 3;
      for (guint r = 0; r < G_N_ELEMENTS (v); r++)
        v[r] = lod_all_lanes (trace, mid - span / 2, mid + span / 2, 2000, items, &n_items, &w[r]);
      double m = sl_median_double (v, G_N_ELEMENTS (v)), m1 = sl_median_double (w, G_N_ELEMENTS (w));
      worst = MAX (worst, m);
      worst_one = MAX (worst_one, m1);
      printf ("  window %14" G_GINT64_FORMAT " ns: all lanes %8.3f ms, slowest lane %6.3f ms, %7" G_GSIZE_FORMAT " items\n",
              span, m * 1e3, m1 * 1e3, n_items);
    }
  printf ("  worst median           all lanes %.3f ms, one lane %.3f ms\n", worst * 1e3, worst_one * 1e3);

  /* overlap: cost per returned event for small k and large k on the largest lane */
  const SlLane *big = NULL;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    if (big == NULL || sl_trace_get_lane (trace, i)->n_events > big->n_events)
      big = sl_trace_get_lane (trace, i);
  if (big != NULL && big->n_events > 100)
    {
      printf ("overlap queries on the largest lane (%" G_GSIZE_FORMAT " events):\n", big->n_events);
      for (gsize k = 1; k <= big->n_events / 10; k *= 100)
        {
          double t = now ();
          gsize got = 0;
          guint q;
          for (q = 0; q < 1000 && now () - t < 1.0; q++)
            {
              gsize i = (q * 7919u) % (big->n_events - k);
              got += sl_lane_overlap (big, big->events[i].start, big->events[i + k - 1].end, NULL, NULL);
            }
          double per = (now () - t) / q;
          printf ("  k ~ %-10" G_GSIZE_FORMAT " %10.3f µs per query, %.1f ns per returned event\n",
                  got / q, per * 1e6, per * 1e9 / MAX (got / q, 1));
        }
    }
  return 0;
}
