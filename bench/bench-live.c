/* bench-live.c: what the live view costs (issues 5 and 18): a program producing ~100 k events a
 * second, recorded by `sightline record` alone and by the viewer's live recording, in one run;
 * and the model's appends on a file grown far past what a few seconds of recording give.
 *
 * Usage: xvfb-run -a bench-live SIGHTLINE BENCH-TARGET [RATE] [SECONDS]
 *        bench-live --grow SIGHTLINE-GEN [EVENTS] [STEP] [no-samples] [no-sched] [mpi] [openmp]
 *        xvfb-run -a bench-live --long BENCH-TARGET [RATE] [SECONDS]
 *
 * The first prints the program's own run time both ways (target: live ≤ 1.05 × record alone),
 * and, while the viewer records, how long the main loop was away between two turns (a 2 ms timer
 * that also asks the timeline to redraw: the longest gap bounds a frame; target: under 16 ms),
 * with the number of live updates shown: once with the live view appending the rows committed
 * since (sl_trace_append), once reloading the whole file each time as it did before.
 *
 * The second is the 100 k events/s for 10 minutes (6·10^7 events), compressed: a trace
 * from sightline-gen (EVENTS, 4M by default) is copied into a new file in commits of STEP rows
 * (50k: what 0.5 s, one live update, brings at 100 k/s) as fast as SQLite takes them, the trace
 * appended after each; at eight points the whole file is also loaded as the old live view did
 * (in a forked child: its freed heap would otherwise stay in this process's resident memory).
 * `no-sched` leaves the thread scheduling rows (SCHED_EVENTS) out; `mpi` adds MPI calls
 * (sightline-gen --mpi: the MPI_* tables), `openmp` OpenMP and OpenACC events (--openmp
 * --openacc), committed as the other event rows.
 * `no-samples` leaves the CPU samples out; with them, their stacks (sightline-gen writes them as
 * nsys does, in SAMPLING_CALLCHAINS, which an append would read whole) go into the side tables the
 * daemon writes while it records (SIGHTLINE_SAMPLE_CHAINS, SIGHTLINE_CHAIN_FRAMES: each distinct
 * stack once, numbered in the order of its first sample), committed with the first sample naming
 * it, which an append reads by key.  An append's time includes the CPU use built for
 * the new trace (sl_cpu_util_get), as the viewer's loading thread does.
 * It prints the time of an append and of a whole load against the events already loaded, their
 * slopes (what an event already loaded costs each update), each phase of an append's own
 * (sl-trace-live.c: copy, read, build, sort, index, link, GPU busy) and both extrapolated to
 * 6·10^7 events,
 * the model's and the process's resident bytes per event, and what dropping the old trace costs
 * at the swap (the viewer does that on a thread of its own; the main thread's swap itself is what
 * the third measures).
 *
 * The third is the figure itself, not compressed: one recording from the viewer at RATE
 * events a second (100 k) for SECONDS (600), the live view appending throughout.  Every 30 s it
 * prints the events shown, the live updates and the time between the last two (what an append
 * takes once the events loaded dominate), the process's resident memory (bytes an event, and its
 * peak: the trace shown and the next one being built coexist) and the main loop's longest gap in
 * those 30 s; at the end the gaps of the whole run, and the last live state (the program idles
 * after its events until two more updates have gone by) against a fresh open of the finished
 * file: events and every statistics report compared, what differs printed (the idle sleep
 * itself and the exit, which end after the last update).  SIGHTLINE_BENCH_GAPS=1 prints each
 * gap over 16 ms and where it fell.  Not a test: prints, asserts nothing.
 */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sl-application.h"
#include "sl-bench.h"
#include "sl-cpu-util.h"
#include "sl-resident.h"
#include "sl-sort.h"
#include "sl-stats.h"
#include "sl-trace-private.h"
#include "sl-window-private.h"

static double
parse_wall (const char *text)
{
  const char *p = text != NULL ? strstr (text, "wall_s ") : NULL;

  return p != NULL ? g_ascii_strtod (p + 7, NULL) : -1;
}

typedef struct
{
  SlWindow *window;
  gint64    last;
  GArray   *gaps;   /* ms between turns of the main loop */
} Watch;

static gboolean
watch_cb (gpointer data)
{
  Watch *w = data;
  gint64 now = g_get_monotonic_time ();

  if (w->last != 0)
    {
      double gap = (now - w->last) / 1000.0;
      g_array_append_val (w->gaps, gap);
    }
  w->last = now;
  gtk_widget_queue_draw (sl_window_get_timeline (w->window));
  return G_SOURCE_CONTINUE;
}

/* The gap at `permille` of the sorted gaps (500: the median, 1000: the longest), 0 when none. */
static double
gap_at (GArray *sorted,
        guint   permille)
{
  if (sorted->len == 0)
    return 0;
  return g_array_index (sorted, double, MIN ((gsize) sorted->len * permille / 1000,
                                             sorted->len - 1));
}

/* How many gaps are longer than a frame (16 ms). */
static guint
gaps_over_frame (GArray *gaps)
{
  guint over = 0;

  for (guint i = 0; i < gaps->len; i++)
    over += g_array_index (gaps, double, i) > 16.0;
  return over;
}

/* `PROGRAM events RATE SECS [HOLD]` (bench-collector-target) recorded into `output`: every OS
 * call, no samples. */
static SlRecordSettings *
events_settings (const char *program,
                 const char *rate,
                 const char *secs,
                 const char *hold,
                 const char *output)
{
  SlRecordSettings *s = sl_record_settings_new ();

  s->program = g_strdup (program);
  g_strfreev (s->args);
  s->args = g_new0 (char *, 5);
  s->args[0] = g_strdup ("events");
  s->args[1] = g_strdup (rate);
  s->args[2] = g_strdup (secs);
  s->args[3] = g_strdup (hold);   /* NULL: none */
  s->sample_hz = 0;
  s->osrt_threshold_ns = 1;
  s->output = g_strdup (output);
  return s;
}

/* Stops the daemon the recordings started in the runtime folder `run`. */
static void
stop_daemon (const char *run)
{
  g_autofree char *pidfile = g_build_filename (run, "sightlined.sock.pid", NULL);
  g_autofree char *pid = NULL;

  if (g_file_get_contents (pidfile, &pid, NULL, NULL) && atoi (pid) > 1)
    kill (atoi (pid), SIGTERM);
}


/* What the main loop did while the viewer recorded. */
typedef struct
{
  double wall;     /* the program's run time, as it printed it */
  guint  turns, over, live;
  double median, p99, max;
  gsize  events;
  gsize  rss_growth;
  double swap_max;   /* ms the main thread spent swapping a live state in, at most */
} ViewerRun;

/* Records `program events RATE SECS` from a window, the live view appending (or, `whole`,
 * reloading the whole file); the main loop watched by a 2 ms timer meanwhile. */
static gboolean
run_viewer (SlApplication *app,
            const char    *program,
            const char    *rate,
            const char    *secs,
            const char    *output,
            gboolean       whole,
            ViewerRun     *run)
{
  g_autoptr (GError) error = NULL;
  SlWindow *window = sl_window_new (app);
  gsize rss0 = sl_resident_bytes ();

  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (window));
  sl_window_set_live_whole (window, whole);
  g_autoptr (SlRecordSettings) s = events_settings (program, rate, secs, NULL, output);
  Watch w = { window, 0, g_array_new (FALSE, FALSE, sizeof (double)) };
  if (!sl_window_record (window, s, &error))
    {
      g_printerr ("bench-live: %s\n", error->message);
      return FALSE;
    }
  guint watch = g_timeout_add (2, watch_cb, &w);
  while (sl_window_is_recording (window))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (watch);
  run->live = sl_window_get_n_live_updates (window);
  run->swap_max = sl_window_get_live_swap_max (window) / 1000.0;
  run->rss_growth = sl_resident_bytes () - MIN (rss0, sl_resident_bytes ());
  g_autofree char *text = sl_window_get_output_text (window);
  run->wall = parse_wall (text);
  while (sl_window_is_loading (window))
    g_main_context_iteration (NULL, TRUE);

  g_array_sort (w.gaps, sl_cmp_double);
  run->turns = w.gaps->len;
  run->median = gap_at (w.gaps, 500);
  run->p99 = gap_at (w.gaps, 990);
  run->max = gap_at (w.gaps, 1000);
  run->over = gaps_over_frame (w.gaps);
  SlTrace *trace = sl_window_get_trace (window);
  run->events = trace != NULL ? sl_trace_get_n_events (trace) : 0;
  g_array_unref (w.gaps);
  gtk_window_destroy (GTK_WINDOW (window));
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  return TRUE;
}

static void
print_viewer (const char      *how,
              const ViewerRun *v,
              double           cli_wall)
{
  g_print ("  %s: run time %.3f s (ratio to `sightline record` %.3f, target <= 1.05); main loop "
           "%u turns, gap median %.1f ms, p99 %.1f ms, max %.1f ms, %u over 16 ms; %u live "
           "updates shown, the longest swap %.1f ms; resident +%.1f MiB\n",
           how, v->wall, cli_wall > 0 ? v->wall / cli_wall : 0, v->turns, v->median, v->p99,
           v->max, v->over, v->live, v->swap_max, v->rss_growth / 1048576.0);
}

/* ---- the model alone: a file grown by commits ----------------------------------------------- */

static void
exec_sql (sqlite3    *db,
          const char *sql)
{
  char *msg = NULL;
  if (sqlite3_exec (db, sql, NULL, NULL, &msg) != SQLITE_OK)
    {
      g_printerr ("bench-live: %s: %s\n", sql, msg);
      exit (1);
    }
}

static gint64
sql_int (sqlite3    *db,
         const char *sql)
{
  sqlite3_stmt *stmt = NULL;
  gint64 v = 0;

  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    v = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return v;
}

/* The tables copied by commits, as the daemon writes them; the rest is copied at the start. */
static const char *const grown[] = {
  "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
  "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS", "OSRT_API",
  "COMPOSITE_EVENTS", "SCHED_EVENTS",
  "MPI_P2P_EVENTS", "MPI_COLLECTIVES_EVENTS", "MPI_START_WAIT_EVENTS", "MPI_OTHER_EVENTS",
  "OPENMP_EVENT_KIND_THREAD", "OPENMP_EVENT_KIND_PARALLEL", "OPENMP_EVENT_KIND_SYNC_REGION_WAIT",
  "OPENMP_EVENT_KIND_SYNC_REGION", "OPENMP_EVENT_KIND_TASK", "OPENMP_EVENT_KIND_MUTEX_WAIT",
  "OPENMP_EVENT_KIND_CRITICAL_SECTION", "OPENMP_EVENT_KIND_WORKSHARE",
  "CUPTI_ACTIVITY_KIND_OPENACC_DATA", "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH",
  "CUPTI_ACTIVITY_KIND_OPENACC_OTHER",
};

static gboolean
is_grown (const char *table)
{
  for (guint i = 0; i < G_N_ELEMENTS (grown); i++)
    if (g_str_equal (grown[i], table))
      return TRUE;
  return FALSE;
}

/* The whole file loaded as the old live view did, in a child process, so that its heap (a second
 * trace as big as the live one, freed) stays out of this one's, whose resident memory is then
 * what the appends hold.  The seconds it took (-1: failed) and, in *grew, the child's resident
 * memory it added. */
static double
whole_in_child (const char *path,
                gsize      *grew)
{
  double got[2] = { -1, 0 };
  int fds[2];

  *grew = 0;
  if (pipe (fds) != 0)
    return -1;
  pid_t pid = fork ();
  if (pid == 0)
    {
      close (fds[0]);
      gsize r0 = sl_resident_bytes ();
      double t0 = sl_bench_now ();
      SlTrace *whole = sl_trace_load (path, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL, NULL, NULL);
      double out[2] = { whole != NULL ? sl_bench_now () - t0 : -1,
                        (double) (sl_resident_bytes () - MIN (r0, sl_resident_bytes ())) };
      ssize_t w = write (fds[1], out, sizeof out);
      _exit (w == (ssize_t) sizeof out ? 0 : 1);
    }
  close (fds[1]);
  if (pid > 0 && read (fds[0], got, sizeof got) != (ssize_t) sizeof got)
    got[0] = -1;
  close (fds[0]);
  if (pid > 0)
    waitpid (pid, NULL, 0);
  *grew = (gsize) got[1];
  return got[0];
}

/* Least squares: y = a + b x. */
static void
fit (GArray *x,
     GArray *y,
     double *a,
     double *b)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0, n = x->len;

  for (guint i = 0; i < x->len; i++)
    {
      double u = g_array_index (x, double, i), v = g_array_index (y, double, i);
      sx += u;
      sy += v;
      sxx += u * u;
      sxy += u * v;
    }
  *b = n > 1 && n * sxx - sx * sx != 0 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) : 0;
  *a = n > 0 ? (sy - *b * sx) / n : 0;
}

static int
grow (const char *gen,
      const char *events,
      const char *step_text,
      gboolean    samples,
      gboolean    sched,
      gboolean    mpi,
      gboolean    openmp)
{
  g_autofree char *dir = g_dir_make_tmp ("bench-live-grow-XXXXXX", NULL);
  g_autofree char *src = g_build_filename (dir, "source.sqlite", NULL);
  g_autofree char *path = g_build_filename (dir, "live.sqlite", NULL);
  gint64 step = g_ascii_strtoll (step_text, NULL, 10);
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;

  /* scheduling rows as the daemon writes them by default (an append reads those committed
   * since: sl-reader-sched.c goes on from where each thread was left); `no-sched` leaves them
   * out */
  const char *argv[] = { gen, "-o", src, "-n", events, sched ? "--force" : "--no-sched",
                         mpi ? "--mpi" : "--force", openmp ? "--openmp" : "--force",
                         openmp ? "--openacc" : "--force", "--force", NULL };
  g_autoptr (GError) error = NULL;
  gint status = 0;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                     NULL, &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    {
      g_printerr ("bench-live: sightline-gen: %s\n", error->message);
      return 1;
    }

  /* the growing file: every table of the source, the event tables empty */
  if (sqlite3_open (path, &db) != SQLITE_OK)
    return 1;
  g_autofree char *attach = g_strdup_printf ("ATTACH DATABASE '%s' AS src", src);
  exec_sql (db, attach);
  exec_sql (db, "PRAGMA journal_mode = DELETE; PRAGMA synchronous = OFF");
  g_autoptr (GPtrArray) tables = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (gint64));
  exec_sql (db, "BEGIN");
  sqlite3_prepare_v2 (db, "SELECT name, sql FROM src.sqlite_master WHERE type = 'table' AND "
                          "sql IS NOT NULL", -1, &stmt, NULL);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      const char *name = (const char *) sqlite3_column_text (stmt, 0);
      exec_sql (db, (const char *) sqlite3_column_text (stmt, 1));
      if (!samples && (g_str_equal (name, "COMPOSITE_EVENTS")
                       || g_str_equal (name, "SAMPLING_CALLCHAINS")))
        continue;
      /* the samples' stacks go in commits to the side tables below, as the daemon writes them */
      if (g_str_equal (name, "SAMPLING_CALLCHAINS"))
        continue;
      if (is_grown (name))
        g_ptr_array_add (tables, g_strdup (name));
      else
        {
          g_autofree char *copy = g_strdup_printf ("INSERT INTO main.\"%s\" SELECT * FROM "
                                                   "src.\"%s\"", name, name);
          exec_sql (db, copy);
        }
    }
  sqlite3_finalize (stmt);
  if (samples)
    {
      /* collector/daemon/sl-trace-writer.c's tables: a chain a sample (the reader keeps each
       * distinct one once; the daemon writes each once), committed with its sample */
      exec_sql (db, "CREATE TABLE SIGHTLINE_CHAIN_FRAMES (chainId INTEGER NOT NULL, stackDepth "
                    "INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL, "
                    "unresolved INTEGER, originalIP INTEGER, unwindMethod INTEGER, PRIMARY KEY "
                    "(chainId, stackDepth)) WITHOUT ROWID");
      exec_sql (db, "CREATE TABLE SIGHTLINE_SAMPLE_CHAINS (sampleId INTEGER NOT NULL PRIMARY KEY, "
                    "chainId INTEGER NOT NULL)");
      exec_sql (db, "CREATE INDEX src.grow_chains ON SAMPLING_CALLCHAINS (id, stackDepth)");
      /* each distinct stack once, numbered from 1 in the order of its first sample, as the
       * daemon numbers and commits them */
      exec_sql (db, "CREATE TEMP TABLE chain_sig AS SELECT id, group_concat(symbol || ',' || "
                    "module, ';') AS sig FROM (SELECT id, symbol, module FROM "
                    "src.SAMPLING_CALLCHAINS ORDER BY id, stackDepth) GROUP BY id");
      exec_sql (db, "CREATE TEMP TABLE chain_first AS SELECT sig, row_number() OVER (ORDER BY "
                    "min(e.start), min(s.id)) AS chain, min(e.start) AS t, min(s.id) AS first "
                    "FROM chain_sig AS s JOIN src.COMPOSITE_EVENTS AS e ON e.id = s.id "
                    "GROUP BY sig");
      exec_sql (db, "CREATE TEMP TABLE chain_of AS SELECT s.id AS id, f.chain AS chain FROM "
                    "chain_sig AS s JOIN chain_first AS f USING (sig)");
      exec_sql (db, "CREATE INDEX temp.chain_of_id ON chain_of (id)");
      exec_sql (db, "CREATE INDEX temp.chain_first_t ON chain_first (t)");
    }
  exec_sql (db, "COMMIT");
  gint64 total = 0;
  for (guint i = 0; i < tables->len; i++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM src.\"%s\"",
                                              (char *) tables->pdata[i]);
      gint64 n = sql_int (db, sql);
      g_array_append_val (rows, n);
      total += n;
    }
  /* a commit holds the rows that ended in its share of the time, as the daemon writes a row when
   * it ends: a kernel after its launch, an NVTX range after what it encloses */
  g_autoptr (GPtrArray) when = g_ptr_array_new_with_free_func (g_free);
  SlTime t_first = G_MAXINT64, t_last = G_MININT64;
  for (guint i = 0; i < tables->len; i++)
    {
      const char *name = tables->pdata[i];
      g_autofree char *probe = g_strdup_printf ("SELECT count(*) FROM pragma_table_info('%s', "
                                                "'src') WHERE name = 'end'", name);
      char *expr = g_strdup (sql_int (db, probe) > 0 ? "coalesce(\"end\", start)" : "start");
      g_autofree char *index = g_strdup_printf ("CREATE INDEX src.\"grow_%s\" ON \"%s\" (%s)",
                                                name, name, expr);
      exec_sql (db, index);
      g_autofree char *lo = g_strdup_printf ("SELECT min(%s) FROM src.\"%s\"", expr, name);
      g_autofree char *hi = g_strdup_printf ("SELECT max(%s) FROM src.\"%s\"", expr, name);
      if (g_array_index (rows, gint64, i) > 0)
        {
          t_first = MIN (t_first, sql_int (db, lo));
          t_last = MAX (t_last, sql_int (db, hi));
        }
      g_ptr_array_add (when, expr);
    }
  guint n_steps = (guint) MAX (total / MAX (step, 1), 1);
  guint every = MAX (n_steps / 8, 1);
  g_autofree char *load = sl_bench_load_average ();
  g_print ("a file grown to %" G_GINT64_FORMAT " event rows in %u commits of ~%" G_GINT64_FORMAT
           " rows (one live update at 100 k events/s; each the rows that ended in its share of the "
           "time), %s, %s; load average %s\n",
           total, n_steps, step,
           samples ? "with CPU samples (1%; their stacks in the daemon's side tables, each "
                     "distinct one once)"
                   : "without CPU samples",
           sched ? "with thread scheduling" : "without thread scheduling", load);
  if (mpi || openmp)
    g_print ("with %s%s%s\n", mpi ? "MPI calls (--mpi)" : "", mpi && openmp ? " and " : "",
             openmp ? "OpenMP and OpenACC events (--openmp --openacc)" : "");
  g_print ("%12s %12s %12s %8s %10s %10s %12s\n", "events", "append ms", "whole ms", "ratio",
           "model B/ev", "RSS MiB", "drop old ms");

  g_autoptr (GArray) ax = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) ay = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) ex = g_array_new (FALSE, FALSE, sizeof (double));   /* added to lanes */
  g_autoptr (GArray) ey = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) wx = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) wy = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) drops = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *phase_y[SL_LIVE_N_PHASES];
  for (guint p = 0; p < SL_LIVE_N_PHASES; p++)
    phase_y[p] = g_array_new (FALSE, FALSE, sizeof (double));
  SlTrace *trace = NULL;
  gsize rss0 = sl_resident_bytes (), rss_whole = 0, rss_append = 0;
  double max_drop = 0;
  for (guint k = 0; k < n_steps; k++)
    {
      /* the next commit: each table's next share of rows, in rowid order */
      exec_sql (db, "BEGIN");
      SlTime span = t_last - t_first + 1;
      SlTime from = k == 0 ? G_MININT64 : t_first + (SlTime) ((double) span * k / n_steps);
      SlTime to = k + 1 == n_steps ? G_MAXINT64
                                   : t_first + (SlTime) ((double) span * (k + 1) / n_steps);
      for (guint i = 0; i < tables->len; i++)
        {
          const char *expr = when->pdata[i];
          g_autofree char *sql = g_strdup_printf ("INSERT INTO main.\"%s\" SELECT * FROM "
                                                  "src.\"%s\" WHERE %s > %" G_GINT64_FORMAT
                                                  " AND %s <= %" G_GINT64_FORMAT " ORDER BY rowid",
                                                  (char *) tables->pdata[i],
                                                  (char *) tables->pdata[i], expr, from, expr, to);
          exec_sql (db, sql);
        }
      if (samples)
        {
          g_autofree char *which = g_strdup_printf ("SELECT id FROM src.COMPOSITE_EVENTS WHERE "
                                                    "start > %" G_GINT64_FORMAT " AND start <= %"
                                                    G_GINT64_FORMAT, from, to);
          g_autofree char *pairs = g_strdup_printf ("INSERT INTO main.SIGHTLINE_SAMPLE_CHAINS "
                                                    "SELECT id, chain FROM temp.chain_of WHERE id "
                                                    "IN (%s)", which);
          g_autofree char *frames = g_strdup_printf (
            "INSERT INTO main.SIGHTLINE_CHAIN_FRAMES SELECT f.chain, c.stackDepth, c.symbol, "
            "c.module, NULL, NULL, NULL FROM temp.chain_first AS f JOIN src.SAMPLING_CALLCHAINS "
            "AS c ON c.id = f.first WHERE f.t > %" G_GINT64_FORMAT " AND f.t <= %"
            G_GINT64_FORMAT " ORDER BY f.chain, c.stackDepth", from, to);
          exec_sql (db, frames);
          exec_sql (db, pairs);
        }
      exec_sql (db, "COMMIT");

      double loaded = trace != NULL ? (double) sl_trace_get_n_events (trace) : 0;
      guint extended0 = _sl_live_get_extended ();
      double t0 = sl_bench_now ();
      SlTrace *next = trace != NULL
                      ? sl_trace_append (trace, NULL, &error)
                      : sl_trace_load (path, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL, NULL, &error);
      if (next != NULL)
        sl_cpu_util_get (next);   /* the viewer's loading thread builds it too */
      double append_s = sl_bench_now () - t0;
      if (next == NULL)
        {
          g_printerr ("bench-live: %s\n", error->message);
          return 1;
        }
      /* letting go of the old trace at the swap (the viewer does it on a thread of its own,
       * _sl_window_drop_trace: this is that thread's time, not the main thread's) */
      t0 = sl_bench_now ();
      g_clear_pointer (&trace, sl_trace_unref);
      double drop = sl_bench_now () - t0;
      trace = next;
      if (k > 0)
        {
          g_array_append_val (ax, loaded);
          g_array_append_val (ay, append_s);
          if (_sl_live_get_extended () > extended0)
            {
              g_array_append_val (ex, loaded);
              g_array_append_val (ey, append_s);
            }
          g_array_append_val (drops, drop);
          max_drop = MAX (max_drop, drop);
          double phases[SL_LIVE_N_PHASES];
          _sl_live_get_phases (phases);
          for (guint p = 0; p < SL_LIVE_N_PHASES; p++)
            g_array_append_val (phase_y[p], phases[p]);
        }
      if ((k + 1) % every != 0 && k + 1 != n_steps)
        continue;

      /* what the appends hold, less what malloc keeps of the whole loads' memory */
#ifdef __GLIBC__
      malloc_trim (0);
#endif
      rss_append = sl_resident_bytes ();
#ifdef __GLIBC__
      /* SIGHTLINE_BENCH_MALLOC=1: what malloc holds against what is in use (to tell the model's
       * bytes from the heap's slack) */
      if (g_getenv ("SIGHTLINE_BENCH_MALLOC") != NULL && k + 1 == n_steps)
        malloc_stats ();
#endif
      /* the old live view at this point: the whole file, on the same machine and moment */
      gsize grew = 0;
      double whole_s = whole_in_child (path, &grew);
      double n_now = (double) sl_trace_get_n_events (trace);
      rss_whole = MAX (rss_whole, rss_append + grew);
      g_array_append_val (wx, n_now);
      g_array_append_val (wy, whole_s);
      g_print ("%12.0f %12.1f %12.1f %8.1f %10.1f %10.1f %12.2f\n", n_now, append_s * 1e3,
               whole_s * 1e3, append_s > 0 ? whole_s / append_s : 0,
               (double) sl_trace_get_memory_size (trace) / MAX (n_now, 1),
               rss_append / 1048576.0, drop * 1e3);
    }
  guint appended, reloaded;
  _sl_live_get_counts (&appended, &reloaded);

  double a0, a1, w0, w1;
  fit (ax, ay, &a0, &a1);
  fit (wx, wy, &w0, &w1);
  double n_final = (double) sl_trace_get_n_events (trace), big = 6e7;
  g_print ("appends: %u (%u loaded whole instead, %u added to the previous trace's lanes, "
           "the rest copied them); per update: %.1f ms + %.1f ns for each event "
           "already loaded (whole load: %.1f ms + %.1f ns an event: %.1f times the append's "
           "slope)\n",
           appended, reloaded, _sl_live_get_extended (), a0 * 1e3, a1 * 1e9, w0 * 1e3, w1 * 1e9, a1 > 0 ? w1 / a1 : 0);
  double e0, e1;
  fit (ex, ey, &e0, &e1);
  g_print ("appends that added to the previous trace's lanes (%u): %.1f ms + %.2f ns for each "
           "event already loaded\n", ex->len, e0 * 1e3, e1 * 1e9);
  /* where an append's time goes: each phase's own fit */
  static const char *const phase_names[SL_LIVE_N_PHASES] = {
    "copy of the previous trace", "new rows read", "lanes built", "sort check",
    "trees, busy sums, levels of detail", "correlation links", "GPU busy unions",
  };
  g_print ("an append's phases (wall time; fit against the events already loaded):\n");
  for (guint p = 0; p < SL_LIVE_N_PHASES; p++)
    {
      double p0, p1;
      fit (ax, phase_y[p], &p0, &p1);
      g_print ("  %-36s %8.1f ms + %6.1f ns an event loaded\n", phase_names[p], p0 * 1e3,
               p1 * 1e9);
      g_array_unref (phase_y[p]);
    }
  g_print ("extrapolated to 10 min at 100 k events/s (6e7 events): an append %.2f s, a whole "
           "load %.1f s (ratio %.1f); the new rows of one update alone ~%.1f ms\n",
           a0 + a1 * big, w0 + w1 * big,
           (a0 + a1 * big) > 0 ? (w0 + w1 * big) / (a0 + a1 * big) : 0,
           a0 * 1e3);
  g_print ("memory: model %.1f bytes an event; resident %.1f bytes an event loaded while "
           "appending (%.1f with a whole load beside it, as the old live view held two)\n",
           (double) sl_trace_get_memory_size (trace) / MAX (n_final, 1),
           (double) (rss_append - MIN (rss0, rss_append)) / MAX (n_final, 1),
           (double) (rss_whole - MIN (rss0, rss_whole)) / MAX (n_final, 1));
  g_print ("dropping the old trace at the swap (the viewer's drop thread): median %.2f ms, max "
           "%.2f ms\n",
           sl_bench_median (drops) * 1e3, max_drop * 1e3);
  sl_trace_unref (trace);
  sqlite3_close (db);
  g_unlink (path);
  g_unlink (src);
  g_rmdir (dir);
  return 0;
}

/* ---- the 10 minutes themselves ---------------------------------------------------------------- */

typedef struct
{
  Watch     watch;         /* the gaps of the whole run */
  gint64    start, next_print, last_update, prev_update;
  guint     n_live;
  SlTrace  *live;          /* the last live state shown */
  double    span_max;      /* the longest gap since the last line */
  guint     span_over;     /* gaps over 16 ms since the last line */
  gsize     rss0, rss_peak;
  gboolean  each_gap;      /* SIGHTLINE_BENCH_GAPS=1: each gap over 16 ms on stderr */
} LongWatch;

static gboolean
long_watch_cb (gpointer data)
{
  LongWatch *w = data;
  GArray *gaps = w->watch.gaps;
  SlWindow *window = w->watch.window;
  guint n_gaps = gaps->len;

  watch_cb (&w->watch);
  gint64 now = w->watch.last;
  double gap = gaps->len > n_gaps ? g_array_index (gaps, double, gaps->len - 1) : 0;
  w->span_max = MAX (w->span_max, gap);
  w->span_over += gap > 16.0;
  guint n = sl_window_get_n_live_updates (window);
  /* each gap over a frame, and how long after the last live update was first seen (a gap just
   * after one is the new trace's first frame; one during an append, the loading thread's) */
  if (w->each_gap && gap > 16.0)
    g_printerr ("gap %.1f ms at %.3f s, %.1f ms after the last update seen%s\n", gap,
                (now - w->start) / 1e6, (now - w->last_update) / 1e3,
                n != w->n_live ? " (another one now)" : "");
  if (n != w->n_live && sl_window_get_trace (window) != NULL)
    {
      /* let go where the window does: on a thread of its own, not in a frame */
      _sl_window_drop_trace (g_steal_pointer (&w->live));
      w->live = sl_trace_ref (sl_window_get_trace (window));
      w->n_live = n;
      w->prev_update = w->last_update;
      w->last_update = now;
    }
  if (gaps->len % 50 == 0)
    w->rss_peak = MAX (w->rss_peak, sl_resident_bytes ());
  if (now >= w->next_print)
    {
      gsize rss = sl_resident_bytes (), events = w->live ? sl_trace_get_n_events (w->live) : 0;
      w->rss_peak = MAX (w->rss_peak, rss);
      g_print ("%6.0f %12" G_GSIZE_FORMAT " %7u %10.0f %9.0f %9.1f %11.1f %9.1f %6u\n",
               (now - w->start) / 1e6, events, w->n_live,
               w->prev_update ? (w->last_update - w->prev_update) / 1000.0 : 0,
               (rss - MIN (w->rss0, rss)) / 1048576.0,
               events ? (double) (rss - MIN (w->rss0, rss)) / events : 0,
               events ? (double) (w->rss_peak - MIN (w->rss0, w->rss_peak)) / events : 0,
               w->span_max, w->span_over);
      w->span_max = 0;
      w->span_over = 0;
      w->next_print = now + 30 * G_USEC_PER_SEC;
    }
  return G_SOURCE_CONTINUE;
}

/* How many of the statistics reports read the same from both traces. */
static guint
same_reports (SlTrace *a,
              SlTrace *b,
              guint   *n_reports)
{
  guint same = 0;

  *n_reports = 0;
  for (const char *const *n = sl_report_names (); *n != NULL; n++)
    {
      g_autoptr (GError) ea = NULL;
      g_autoptr (GError) eb = NULL;
      g_autoptr (SlReport) ra = sl_report_compute (a, *n, &ea);
      g_autoptr (SlReport) rb = sl_report_compute (b, *n, &eb);
      g_autoptr (GString) ta = g_string_new (NULL);
      g_autoptr (GString) tb = g_string_new (NULL);

      (*n_reports)++;
      if (ra != NULL)
        sl_report_write (ra, SL_REPORT_FORMAT_CSV, ta);
      else
        g_string_append (ta, ea->message);
      if (rb != NULL)
        sl_report_write (rb, SL_REPORT_FORMAT_CSV, tb);
      else
        g_string_append (tb, eb->message);
      if (g_str_equal (ta->str, tb->str))
        same++;
      else
        {
          /* the lines of each that the other lacks */
          g_auto (GStrv) la = g_strsplit (ta->str, "\n", -1);
          g_auto (GStrv) lb = g_strsplit (tb->str, "\n", -1);
          g_print ("  report %s differs:\n", *n);
          for (guint i = 0; la[i] != NULL; i++)
            if (!g_strv_contains ((const char *const *) lb, la[i]))
              g_print ("    live:  %s\n", la[i]);
          for (guint i = 0; lb[i] != NULL; i++)
            if (!g_strv_contains ((const char *const *) la, lb[i]))
              g_print ("    fresh: %s\n", lb[i]);
        }
    }
  return same;
}

/* A folder this benchmark made, and the files in it. */
static void
remove_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        remove_dir (path);
      else
        g_unlink (path);
    }
  g_rmdir (dir);
}

static int
long_run (const char *program,
          const char *rate,
          const char *secs)
{
  /* the program idles after its events until two live updates of the longest kind have gone by
   * (an append at the end of 10 minutes takes ~10 s here), so that the last live state holds
   * everything a fresh open of the finished file does */
  g_autofree char *hold = g_strdup_printf ("%d", 10 + (int) (g_ascii_strtod (secs, NULL) / 20));
  g_autofree char *dir = g_dir_make_tmp ("bench-live-long-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "live.sqlite", NULL);
  g_autofree char *run = g_build_filename (dir, "run", NULL);
  g_autoptr (GError) error = NULL;

  g_mkdir (run, 0700);
  g_setenv ("SIGHTLINE_RUNTIME_DIR", run, TRUE);
  g_setenv ("GTK_A11Y", "none", FALSE);
  /* the window's final load and the fresh open below read the file, not the model cache (which
   * would also be gigabytes written to $XDG_CACHE_HOME) */
  g_setenv ("SIGHTLINE_CACHE", "0", TRUE);
  gtk_init ();
  g_autoptr (SlApplication) app = sl_application_new ();
  g_application_register (G_APPLICATION (app), NULL, NULL);
  g_application_hold (G_APPLICATION (app));

  SlWindow *window = sl_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (window));
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  g_autoptr (SlRecordSettings) s = events_settings (program, rate, secs, hold, path);
  g_autofree char *load = sl_bench_load_average ();
  g_print ("the viewer records a program at %s events/s for %s s, the live view appending; load "
           "average %s\n", rate, secs, load);
  g_print ("%6s %12s %7s %10s %9s %9s %11s %9s %6s\n", "s", "events", "updates", "last ms",
           "RSS MiB", "RSS B/ev", "peak B/ev", "gap max", ">16ms");
  LongWatch w = { { window, 0, g_array_new (FALSE, FALSE, sizeof (double)) }, 0, 0, 0, 0, 0,
                  NULL, 0, 0, sl_resident_bytes (), 0, g_getenv ("SIGHTLINE_BENCH_GAPS") != NULL };
  if (!sl_window_record (window, s, &error))
    {
      g_printerr ("bench-live: %s\n", error->message);
      return 1;
    }
  w.start = g_get_monotonic_time ();
  w.next_print = w.start + 30 * G_USEC_PER_SEC;
  guint watch = g_timeout_add (2, long_watch_cb, &w);
  while (sl_window_is_recording (window))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (watch);
  double swap_max = sl_window_get_live_swap_max (window) / 1000.0;
  g_autofree char *text = sl_window_get_output_text (window);
  double wall = parse_wall (text);

  GArray *gaps = w.watch.gaps;
  g_array_sort (gaps, sl_cmp_double);
  g_print ("program's run time %.1f s; main loop %u turns, gap median %.2f ms, p99 %.2f ms, "
           "p99.9 %.2f ms, max %.1f ms, %u over 16 ms; %u live updates, the longest swap %.1f ms; "
           "resident peak %.1f bytes an event\n",
           wall, gaps->len, gap_at (gaps, 500), gap_at (gaps, 990), gap_at (gaps, 999),
           gap_at (gaps, 1000), gaps_over_frame (gaps), w.n_live, swap_max,
           w.live ? (double) (w.rss_peak - MIN (w.rss0, w.rss_peak))
                    / MAX (sl_trace_get_n_events (w.live), 1) : 0);
  while (sl_window_is_loading (window))
    g_main_context_iteration (NULL, TRUE);
  gtk_window_destroy (GTK_WINDOW (window));
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);

  /* the last live state, built by the chain of appends, against a fresh open of the file: the
   * program idled after its events until the live view had them all */
  if (w.live != NULL)
    {
      guint appended, reloaded, n_reports = 0;
      _sl_live_get_counts (&appended, &reloaded);
      double t0 = sl_bench_now ();
      g_autoptr (SlTrace) fresh = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      double fresh_s = sl_bench_now () - t0;
      if (fresh == NULL)
        g_printerr ("bench-live: %s\n", error->message);
      else
        {
          guint same = same_reports (w.live, fresh, &n_reports);
          /* what the last live state cannot hold: calls that ended after it was read (the
           * program's idle sleep, its exit), committed when they ended */
          gsize late = 0;
          SlTime live_end = sl_trace_get_end (w.live);
          for (guint l = 0; l < sl_trace_get_n_lanes (fresh); l++)
            {
              const SlLane *lane = sl_trace_get_lane (fresh, l);
              for (gsize i = 0; i < lane->n_events; i++)
                late += lane->events[i].end > live_end;
            }
          g_print ("live updates appended %u, loaded whole %u; the last live state against a "
                   "fresh open of the finished file (%.2f s): %" G_GSIZE_FORMAT " and %"
                   G_GSIZE_FORMAT " events (%" G_GSIZE_FORMAT " of the fresh one's end after the "
                   "live state's last), %u of %u reports the same\n", appended, reloaded,
                   fresh_s, sl_trace_get_n_events (w.live), sl_trace_get_n_events (fresh), late,
                   same, n_reports);
        }
      g_clear_pointer (&w.live, sl_trace_unref);
    }
  g_array_unref (gaps);
  g_application_release (G_APPLICATION (app));
  stop_daemon (run);
  g_unlink (path);
  remove_dir (run);
  remove_dir (dir);
  return 0;
}

int
main (int   argc,
      char *argv[])
{
  if (argc >= 3 && g_str_equal (argv[1], "--long"))
    return long_run (argv[2], argc > 3 ? argv[3] : "100000", argc > 4 ? argv[4] : "600");
  if (argc >= 3 && g_str_equal (argv[1], "--grow"))
    {
      gboolean samples = TRUE, sched = TRUE, mpi = FALSE, openmp = FALSE;
      for (int i = 5; i < argc; i++)
        {
          samples &= !g_str_equal (argv[i], "no-samples");
          sched &= !g_str_equal (argv[i], "no-sched");
          mpi |= g_str_equal (argv[i], "mpi");
          openmp |= g_str_equal (argv[i], "openmp");
        }
      return grow (argv[2], argc > 3 ? argv[3] : "4M", argc > 4 ? argv[4] : "50000", samples,
                   sched, mpi, openmp);
    }

  const char *rate = argc > 3 ? argv[3] : "100000", *secs = argc > 4 ? argv[4] : "3";
  g_autofree char *dir = g_dir_make_tmp ("bench-live-XXXXXX", NULL);
  g_autofree char *cli_trace = g_build_filename (dir, "cli.sqlite", NULL);
  g_autofree char *gui_trace = g_build_filename (dir, "gui.sqlite", NULL);
  g_autofree char *run = g_build_filename (dir, "run", NULL);
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  if (argc < 3)
    {
      g_printerr ("Usage: %s SIGHTLINE BENCH-TARGET [RATE] [SECONDS]\n"
                  "       %s --grow SIGHTLINE-GEN [EVENTS] [STEP] [no-samples] [no-sched] [mpi] "
                  "[openmp]\n"
                  "       %s --long BENCH-TARGET [RATE] [SECONDS]\n", argv[0],
                  argv[0], argv[0]);
      return 2;
    }
  g_mkdir (run, 0700);
  g_setenv ("SIGHTLINE_RUNTIME_DIR", run, TRUE);
  g_setenv ("GTK_A11Y", "none", FALSE);

  /* 1. `sightline record` alone */
  const char *cli[] = { argv[1], "record", "-s", "none", "--osrt-threshold", "0", "-o", cli_trace,
                        "--", argv[2], "events", rate, secs, NULL };
  if (!g_spawn_sync (NULL, (char **) cli, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                     &status, &error))
    {
      g_printerr ("bench-live: %s\n", error->message);
      return 1;
    }
  double cli_wall = parse_wall (out);

  /* 2. the same from the viewer, live: appending, then reloading the whole file as before */
  gtk_init ();
  g_autoptr (SlApplication) app = sl_application_new ();
  g_application_register (G_APPLICATION (app), NULL, NULL);
  g_application_hold (G_APPLICATION (app));
  /* a recording to warm up (the first of a process also pays for its arenas and caches, its
   * figures are not kept), then two rounds, each way once a round, alternating */
  ViewerRun warm = { 0 };
  if (!run_viewer (app, argv[2], rate, "2", gui_trace, FALSE, &warm))
    return 1;
  g_unlink (gui_trace);
  ViewerRun runs[2][2] = { { { 0 } } };
  for (guint round = 0; round < 2; round++)
    for (guint way = 0; way < 2; way++)
      {
        gboolean whole = (round + way) % 2 == 1;
        if (!run_viewer (app, argv[2], rate, secs, gui_trace, whole, &runs[round][whole]))
          return 1;
        g_unlink (gui_trace);
      }

  g_print ("program at %s events/s for %s s (%" G_GSIZE_FORMAT " events in the trace); "
           "`sightline record` alone: %.3f s\n", rate, secs, runs[0][0].events, cli_wall);
  for (guint round = 0; round < 2; round++)
    {
      g_print (" round %u%s\n", round + 1, round == 0 ? " (appending first)"
                                                     : " (reloading first)");
      print_viewer ("live view appending        ", &runs[round][0], cli_wall);
      print_viewer ("live view reloading (before)", &runs[round][1], cli_wall);
    }
  double max[2] = { 0 }, med[2] = { 0 }, live[2] = { 0 };
  for (guint way = 0; way < 2; way++)
    for (guint round = 0; round < 2; round++)
      {
        max[way] = MAX (max[way], runs[round][way].max);
        med[way] += runs[round][way].median / 2;
        live[way] += runs[round][way].live / 2.0;
      }
  g_print ("  ratios appending / reloading (both rounds): gap max %.2f, mean of medians %.2f, "
           "live updates %.2f\n", max[1] > 0 ? max[0] / max[1] : 0,
           med[1] > 0 ? med[0] / med[1] : 0,
           live[1] > 0 ? live[0] / live[1] : 0);
  g_application_release (G_APPLICATION (app));
  stop_daemon (run);
  g_unlink (cli_trace);
  return 0;
}
