/* test-live-append.c: sl_trace_append() (sl-trace-live.c): a file grown in commits, appended to
 * after each, is at every step the trace a fresh load of the file gives; where the file changed
 * in a way appending cannot follow, it is loaded whole, and still the same.
 *
 * The growing files are real traces copied in steps: their metadata at once, their event rows in
 * the order they ended (as the daemon's writer commits a CUDA call, an OS call or an NVTX range
 * when it ends), cut into steps by time.  So an NVTX range is committed after the ranges it
 * encloses, a launch and its kernel often land in different steps, and threads, streams and GPUs
 * appear in the step of their first event that ends.
 */
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

#include "sl-test-trace.h"
#include "sl-test-util.h"
#include "sl-cpu-util.h"
#include "sl-mpi.h"
#include "sl-openmp.h"
#include "sl-trace-private.h"

/* Tables whose rows are copied in steps; everything else is copied whole at the start. */
static const char *const grown[] = {
  "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
  "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS", "OSRT_API",
  "COMPOSITE_EVENTS", "SCHED_EVENTS",
  /* MPI calls and OpenMP/OpenACC events (MPI_RANKS and MPI_COMMUNICATORS come at once) */
  "MPI_P2P_EVENTS", "MPI_COLLECTIVES_EVENTS", "MPI_START_WAIT_EVENTS", "MPI_OTHER_EVENTS",
  "OPENMP_EVENT_KIND_THREAD", "OPENMP_EVENT_KIND_PARALLEL", "OPENMP_EVENT_KIND_SYNC_REGION_WAIT",
  "OPENMP_EVENT_KIND_SYNC_REGION", "OPENMP_EVENT_KIND_TASK", "OPENMP_EVENT_KIND_MASTER",
  "OPENMP_EVENT_KIND_REDUCTION", "OPENMP_EVENT_KIND_TASK_CREATE",
  "OPENMP_EVENT_KIND_TASK_SCHEDULE", "OPENMP_EVENT_KIND_CANCEL", "OPENMP_EVENT_KIND_MUTEX_WAIT",
  "OPENMP_EVENT_KIND_CRITICAL_SECTION", "OPENMP_EVENT_KIND_MUTEX_RELEASED",
  "OPENMP_EVENT_KIND_LOCK_INIT", "OPENMP_EVENT_KIND_LOCK_DESTROY", "OPENMP_EVENT_KIND_WORKSHARE",
  "OPENMP_EVENT_KIND_DISPATCH", "OPENMP_EVENT_KIND_FLUSH", "CUPTI_ACTIVITY_KIND_OPENACC_DATA",
  "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH", "CUPTI_ACTIVITY_KIND_OPENACC_OTHER",
};

static void
exec (sqlite3    *db,
      const char *sql)
{
  char *msg = NULL;
  if (sqlite3_exec (db, sql, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s: %s", sql, msg);
}

static gboolean
is_grown (const char *table)
{
  for (guint i = 0; i < G_N_ELEMENTS (grown); i++)
    if (strcmp (grown[i], table) == 0)
      return TRUE;
  return FALSE;
}

/* The time a row is committed at: its end, or its start where it has none. */
static const char *
commit_time (sqlite3    *db,
             const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM pragma_table_info('%s') "
                                          "WHERE name = 'end'", table);
  sqlite3_stmt *stmt = NULL;
  gboolean has_end = FALSE;

  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    has_end = sqlite3_column_int (stmt, 0) > 0;
  sqlite3_finalize (stmt);
  return has_end ? "coalesce(\"end\", start, 0)" : "coalesce(start, 0)";
}

typedef struct
{
  sqlite3   *db;       /* the growing file, with the source attached as `src` */
  GPtrArray *tables;   /* grown tables the source has, committed by time */
  GPtrArray *keyed;    /* and those keyed by an integer (COMPOSITE_EVENTS' id), committed in key
                        * order, as the daemon numbers its samples in the order it writes them */
  SlTime     t0, t1;   /* commit times of the source's rows */
  gboolean   hold;     /* every fourth row is committed a step late, after later rows of its
                        * thread or stream (a buffer flushed late) */
  const char *hold_only;  /* if set, only in the tables named so (a prefix) */
} Grower;

/* Opens `path` for writing with `source` attached read-only as `src`. */
static void
grower_attach (Grower     *g,
               const char *source,
               const char *path)
{
  g_autofree char *attach = g_strdup_printf ("ATTACH DATABASE 'file:%s?mode=ro' AS src", source);

  g_assert_cmpint (sqlite3_open_v2 (path, &g->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                                    | SQLITE_OPEN_URI, NULL), ==, SQLITE_OK);
  exec (g->db, attach);
}

/* A new file at `path` with the tables of `source`: the metadata copied, the event tables empty. */
static void
grower_open (Grower     *g,
             const char *source,
             const char *path)
{
  sqlite3_stmt *stmt = NULL;

  g_unlink (path);
  grower_attach (g, source, path);
  g->tables = g_ptr_array_new_with_free_func (g_free);
  g->t0 = G_MAXINT64;
  g->t1 = G_MININT64;
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (g_free);
  g_assert_cmpint (sqlite3_prepare_v2 (g->db, "SELECT name, sql FROM src.sqlite_master WHERE "
                                       "type = 'table' AND sql IS NOT NULL ORDER BY rowid",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  exec (g->db, "BEGIN");
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      const char *name = (const char *) sqlite3_column_text (stmt, 0);
      exec (g->db, (const char *) sqlite3_column_text (stmt, 1));
      g_ptr_array_add (is_grown (name) ? g->tables : all, g_strdup (name));
    }
  sqlite3_finalize (stmt);
  for (guint i = 0; i < all->len; i++)
    {
      g_autofree char *sql = g_strdup_printf ("INSERT INTO main.\"%s\" SELECT * FROM src.\"%s\"",
                                              (char *) all->pdata[i], (char *) all->pdata[i]);
      exec (g->db, sql);
    }
  exec (g->db, "COMMIT");
  g->keyed = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < g->tables->len; i++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM pragma_table_info('%s') "
                                              "WHERE pk > 0 AND upper(type) = 'INTEGER'",
                                              (char *) g->tables->pdata[i]);
      g_assert_cmpint (sqlite3_prepare_v2 (g->db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
      gboolean keyed = sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_int64 (stmt, 0) > 0;
      sqlite3_finalize (stmt);
      if (keyed)
        {
          g_ptr_array_add (g->keyed, g_strdup (g->tables->pdata[i]));
          g_ptr_array_remove_index (g->tables, i--);
        }
    }
  for (guint i = 0; i < g->tables->len; i++)
    {
      const char *t = g->tables->pdata[i];
      g_autofree char *sql = g_strdup_printf ("SELECT min(%s), max(%s) FROM src.\"%s\"",
                                              commit_time (g->db, t), commit_time (g->db, t), t);
      g_assert_cmpint (sqlite3_prepare_v2 (g->db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
      if (sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_type (stmt, 0) != SQLITE_NULL)
        {
          g->t0 = MIN (g->t0, sqlite3_column_int64 (stmt, 0));
          g->t1 = MAX (g->t1, sqlite3_column_int64 (stmt, 1));
        }
      sqlite3_finalize (stmt);
    }
}

/* Commits the source's rows of step `k` of `n` (by commit time), in the order they ended. */
static void
grower_step (Grower *g,
             guint   k,
             guint   n)
{
  SlTime span = g->t1 - g->t0 + 1;
  SlTime from = g->t0 + span / n * k, to = k + 1 == n ? G_MAXINT64 : g->t0 + span / n * (k + 1);
  SlTime held = k == 0 ? from : g->t0 + span / n * (k - 1);

  exec (g->db, "BEGIN");
  for (guint i = 0; i < g->tables->len; i++)
    {
      const char *t = g->tables->pdata[i];
      const char *when = commit_time (g->db, t);
      g_autofree char *now = g_strdup_printf ("%s >= %" G_GINT64_FORMAT " AND %s < %"
                                              G_GINT64_FORMAT, when,
                                              k == 0 ? G_MININT64 : from, when, to);
      g_autofree char *late = g_strdup_printf ("%s >= %" G_GINT64_FORMAT " AND %s < %"
                                               G_GINT64_FORMAT, when,
                                               k == 1 ? G_MININT64 : held, when, from);
      gboolean hold = g->hold && (g->hold_only == NULL || g_str_has_prefix (t, g->hold_only));
      g_autofree char *sql =
        !hold ? g_strdup_printf ("INSERT INTO main.\"%s\" SELECT * FROM src.\"%s\" WHERE %s "
                                    "ORDER BY %s, rowid", t, t, now, when)
        : g_strdup_printf ("INSERT INTO main.\"%s\" SELECT * FROM src.\"%s\" WHERE (%s AND "
                           "(rowid %% 4 != 0 OR %d)) OR (%s AND rowid %% 4 = 0 AND %d) "
                           "ORDER BY %s, rowid", t, t, now, k + 1 == n, late, k > 0, when);
      exec (g->db, sql);
    }
  for (guint i = 0; i < g->keyed->len; i++)
    {
      const char *t = g->keyed->pdata[i];
      g_autofree char *max = g_strdup_printf ("SELECT coalesce(max(rowid), 0) FROM src.\"%s\"",
                                              t);
      sqlite3_stmt *stmt = NULL;
      gint64 last = 0;
      g_assert_cmpint (sqlite3_prepare_v2 (g->db, max, -1, &stmt, NULL), ==, SQLITE_OK);
      if (sqlite3_step (stmt) == SQLITE_ROW)
        last = sqlite3_column_int64 (stmt, 0);
      sqlite3_finalize (stmt);
      g_autofree char *sql = g_strdup_printf ("INSERT INTO main.\"%s\" SELECT * FROM src.\"%s\" "
                                              "WHERE rowid > %" G_GINT64_FORMAT " AND rowid <= %"
                                              G_GINT64_FORMAT, t, t, k == 0 ? G_MININT64
                                                                            : last * k / n,
                                              last * (k + 1) / n);
      exec (g->db, sql);
    }
  exec (g->db, "COMMIT");
}

/* The event table read by rowid with most rows in the growing file so far. */
static char *
fullest_table (Grower *g)
{
  const char *best = NULL;
  gint64 most = 0;

  for (guint i = 0; i < g->tables->len; i++)
    {
      const char *t = g->tables->pdata[i];
      g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM main.\"%s\"", t);
      sqlite3_stmt *stmt = NULL;
      if (strcmp (t, "COMPOSITE_EVENTS") == 0 || strcmp (t, "SCHED_EVENTS") == 0)
        continue;
      g_assert_cmpint (sqlite3_prepare_v2 (g->db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
      g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
      if (sqlite3_column_int64 (stmt, 0) > most)
        {
          most = sqlite3_column_int64 (stmt, 0);
          best = t;
        }
      sqlite3_finalize (stmt);
    }
  g_assert_nonnull (best);
  return g_strdup (best);
}

static void
grower_close (Grower *g)
{
  sqlite3_close (g->db);
  g_ptr_array_unref (g->tables);
  g_ptr_array_unref (g->keyed);
}

static SlTrace *
load_fresh (const char *path)
{
  g_autoptr (GError) error = NULL;
  SlTrace *trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

static SlTrace *
append (SlTrace  *trace,
        gboolean  expect_append)
{
  g_autoptr (GError) error = NULL;
  guint a0, r0, a1, r1;

  _sl_live_get_counts (&a0, &r0);
  SlTrace *next = sl_trace_append (trace, NULL, &error);
  _sl_live_get_counts (&a1, &r1);
  g_assert_no_error (error);
  g_assert_nonnull (next);
  g_assert_cmpuint (a1 - a0, ==, expect_append ? 1 : 0);
  g_assert_cmpuint (r1 - r0, ==, expect_append ? 0 : 1);
  return next;
}

/* Events of `kind` in `next` that `prev` did not have and that start before the last start of
 * their thread's (or GPU stream's) events in `prev`: what the append merged in rather than added
 * at the end. */
static gsize
merged_in (SlTrace    *prev,
           SlTrace    *next,
           SlLaneKind  kind)
{
  g_autoptr (GHashTable) last = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  gint64 count = 0;

  for (guint pass = 0; pass < 3; pass++)
    {
      SlTrace *t = pass == 1 ? next : prev;
      for (guint i = 0; i < sl_trace_get_n_lanes (t); i++)
        {
          const SlLane *lane = sl_trace_get_lane (t, i);
          if (lane->kind != kind || lane->n_events == 0)
            continue;
          g_autofree char *key = g_strdup_printf (
            "%" G_GUINT64_FORMAT " %d %u %u", lane->thread >= 0
            ? sl_trace_get_thread (t, lane->thread)->global_tid : 0,
            lane->gpu >= 0 ? (gint) sl_trace_get_gpu (t, lane->gpu)->device_id : -1,
            lane->context_id, lane->stream_id);
          SlTime *m = g_hash_table_lookup (last, key);
          if (pass == 0)
            {
              if (m == NULL)
                g_hash_table_insert (last, g_strdup (key), m = g_new (SlTime, 1)), *m = G_MININT64;
              *m = MAX (*m, lane->events[lane->n_events - 1].start);
              continue;
            }
          for (gsize k = 0; m != NULL && k < lane->n_events; k++)
            count += (lane->events[k].start < *m) * (pass == 1 ? 1 : -1);
        }
    }
  g_assert_cmpint (count, >=, 0);
  return (gsize) count;
}

/* The events of `prev` found again in `next`, a later state of the same file
 * (sl_trace_find_same_event, which the live view uses to keep a selected event): the first,
 * middle and last of every lane, found with the same start, name and end (an NVTX range may have
 * moved to another depth's lane).  Returns how many were looked up. */
static gsize
assert_found_again (SlTrace *prev,
                    SlTrace *next)
{
  gsize n = 0;

  for (guint i = 0; i < sl_trace_get_n_lanes (prev); i++)
    {
      const SlLane *lane = sl_trace_get_lane (prev, i);
      if (lane->n_events == 0)
        continue;
      const gsize at[3] = { 0, lane->n_events / 2, lane->n_events - 1 };
      for (guint k = 0; k < 3; k++)
        {
          const SlEvent *e = &lane->events[at[k]];
          SlEventRef found;
          if ((e->link & SL_NVTX_UNTERMINATED) != 0 && lane->kind == SL_LANE_NVTX)
            continue;   /* its end is the trace's, which moves */
          g_assert_true (sl_trace_find_same_event (prev, (SlEventRef) { (gint) i, at[k] }, next,
                                                   &found));
          const SlLane *other = sl_trace_get_lane (next, (guint) found.lane);
          const SlEvent *o = &other->events[found.index];
          g_assert_cmpint (other->kind, ==, lane->kind);
          g_assert_cmpint (o->start, ==, e->start);
          g_assert_cmpint (o->end, ==, e->end);
          g_assert_cmpstr (sl_trace_str (next, o->name), ==, sl_trace_str (prev, e->name));
          n++;
        }
    }
  SlEventRef none;
  g_assert_false (sl_trace_find_same_event (prev, (SlEventRef) { -1, 0 }, next, &none));
  g_assert_cmpint (none.lane, ==, -1);
  g_assert_false (sl_trace_find_same_event (prev, (SlEventRef) { 0, G_MAXSIZE }, next, &none));
  return n;
}

/* Every real nsys trace grown in `n` steps: appended after each, the same as a fresh load. */
static void
test_real_steps (void)
{
  g_auto (GStrv) paths = sl_test_nsys_traces ();
  guint with_lanes_later = 0, extended0 = _sl_live_get_extended (), steps = 0, cpu_goes_on = 0;

  for (guint p = 0; paths[p] != NULL; p++)
    {
      g_autofree char *base = g_path_get_basename (paths[p]);
      g_autofree char *path = g_build_filename (sl_test_tmpdir (), base, NULL);
      Grower g = { 0 };
      const guint n = 5;
      g_autoptr (SlTrace) live = NULL;
      g_autoptr (SlTrace) live_fresh = NULL;

      g_test_message ("%s", base);
      grower_open (&g, paths[p], path);
      for (guint k = 0; k < n; k++)
        {
          grower_step (&g, k, n);
          g_autoptr (SlTrace) next = NULL;
          if (live == NULL)
            {
              g_autoptr (GError) error = NULL;
              next = sl_trace_load (path, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL, NULL, &error);
              g_assert_no_error (error);
            }
          else
            {
              /* the viewer's load builds the CPU use of each trace: an append goes on from it */
              sl_cpu_util_get (live);
              guint ext0 = _sl_live_get_extended ();
              next = append (live, TRUE);
              gboolean states = FALSE;
              for (guint l = 0; l < sl_trace_get_n_lanes (next); l++)
                states |= sl_trace_get_lane (next, l)->kind == SL_LANE_SCHED;
              if (_sl_live_get_extended () > ext0 && states)
                cpu_goes_on += next->cpu_util != NULL;
              /* made on from the previous trace's or anew: what a build from scratch gives */
              SlCpuUtil *own = sl_cpu_util_new (next);
              g_assert_true (_sl_cpu_util_equal (sl_cpu_util_get (next), own));
              sl_cpu_util_free (own);
              g_test_message ("  step %u: %" G_GSIZE_FORMAT " -> %" G_GSIZE_FORMAT " events (%"
                              G_GSIZE_FORMAT " CUDA calls, %" G_GSIZE_FORMAT " NVTX ranges "
                              "merged in), %u -> %u lanes", k, sl_trace_get_n_events (live),
                              sl_trace_get_n_events (next),
                              merged_in (live, next, SL_LANE_CUDA_API),
                              merged_in (live, next, SL_LANE_NVTX), sl_trace_get_n_lanes (live),
                              sl_trace_get_n_lanes (next));
              with_lanes_later += sl_trace_get_n_lanes (next) > sl_trace_get_n_lanes (live);
              /* the trace appended to is still what it was: an append that added to its lanes
               * wrote only past their events, and links only a new trace resolves */
              sl_test_assert_equivalent (live, live_fresh);
              steps++;
            }
          g_autoptr (SlTrace) fresh = load_fresh (path);
          sl_test_assert_equivalent (next, fresh);
          g_clear_pointer (&live, sl_trace_unref);
          live = g_steal_pointer (&next);
          g_clear_pointer (&live_fresh, sl_trace_unref);
          live_fresh = g_steal_pointer (&fresh);
        }
      grower_close (&g);
      g_unlink (path);
    }
  /* lanes (threads, streams) that first appear in a later step were among the cases */
  g_assert_cmpuint (with_lanes_later, >, 0);
  /* and appends that added to the lanes (sl-trace-extend.c) rather than copied them */
  g_test_message ("%u of %u appends added to the previous trace's lanes",
                  _sl_live_get_extended () - extended0, steps);
  g_assert_cmpuint (_sl_live_get_extended () - extended0, >, steps / 5);
  g_test_message ("%u appends made the CPU use on from the previous trace's", cpu_goes_on);
  g_assert_cmpuint (cpu_goes_on, >, 0);
}

/* Rows committed after later-starting ones are merged in: every fourth row of each table is
 * committed a step late, so each append has CUDA calls, NVTX ranges, OS calls and kernels that
 * start before the last ones of their thread or stream read before. */
static void
test_out_of_order (void)
{
  g_autofree char *source = sl_test_trace_path ("nsys/nsys-2026.2-mfu-2gpu.sqlite");
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "order.sqlite", NULL);
  Grower g = { .hold = TRUE };
  const guint n = 6;
  gsize early[4] = { 0 };
  const SlLaneKind kinds[4] = { SL_LANE_CUDA_API, SL_LANE_NVTX, SL_LANE_KERNELS, SL_LANE_MEMCPY };

  grower_open (&g, source, path);
  grower_step (&g, 0, n);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL, NULL,
                                             NULL);
  g_assert_nonnull (trace);
  for (guint k = 1; k < n; k++)
    {
      grower_step (&g, k, n);
      g_autoptr (SlTrace) next = append (trace, TRUE);
      for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
        early[i] += merged_in (trace, next, kinds[i]);
      g_autoptr (SlTrace) fresh = load_fresh (path);
      sl_test_assert_equivalent (next, fresh);
      /* found again in the appended trace and in a fresh load (strings numbered otherwise) */
      g_assert_cmpuint (assert_found_again (trace, next), >, 0);
      g_assert_cmpuint (assert_found_again (trace, fresh), >, 0);
      g_clear_pointer (&trace, sl_trace_unref);
      trace = g_steal_pointer (&next);
    }
  /* a trace of another program has none of them */
  g_autofree char *other_path = sl_test_trace_path ("nsys/nsys-2023.1-rtx3090.sqlite");
  g_autoptr (SlTrace) other = load_fresh (other_path);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      SlEventRef none;
      if (sl_trace_get_lane (trace, i)->n_events > 0)
        g_assert_false (sl_trace_find_same_event (trace, (SlEventRef) { (gint) i, 0 }, other,
                                                  &none));
    }
  g_test_message ("merged in: %" G_GSIZE_FORMAT " CUDA calls, %" G_GSIZE_FORMAT " NVTX ranges, %"
                  G_GSIZE_FORMAT " kernels, %" G_GSIZE_FORMAT " copies",
                  early[0], early[1], early[2], early[3]);
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    g_assert_cmpuint (early[i], >, 0);
  grower_close (&g);
}

/* What appending cannot follow is loaded whole: the last or first row read of a table deleted,
 * the schema changed, another file in the place; each time the result is a fresh load's, and
 * appending goes on after it. */
static void
test_fallback (void)
{
  g_autofree char *source = sl_test_trace_path ("nsys/nsys-2023.1-cuckoo-osrt.sqlite");
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "fallback.sqlite", NULL);
  g_autofree char *other = g_build_filename (sl_test_tmpdir (), "fallback-other.sqlite", NULL);
  Grower g = { 0 };
  const guint n = 6;

  grower_open (&g, source, path);
  grower_step (&g, 0, n);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL, NULL,
                                             NULL);
  g_assert_nonnull (trace);
  for (guint k = 1; k < n; k++)
    {
      gboolean whole = TRUE;
      /* the last row read of a table, then the first */
      if (k == 1 || k == 2)
        {
          g_autofree char *table = fullest_table (&g);
          g_autofree char *sql = g_strdup_printf ("DELETE FROM \"%s\" WHERE rowid = (SELECT "
                                                  "%s(rowid) FROM \"%s\")", table,
                                                  k == 1 ? "max" : "min", table);
          exec (g.db, sql);
        }
      grower_step (&g, k, n);
      switch (k)
        {
        case 1:
        case 2:
          break;
        case 3:
          exec (g.db, "CREATE TABLE SIGHTLINE_SOMETHING_NEW (x INTEGER)");
          break;
        case 4:
          {
            /* a copy renamed over it: the same rows, another file */
            g_autofree char *sql = g_strdup_printf ("VACUUM INTO '%s'", other);
            g_unlink (other);
            exec (g.db, sql);
            g_assert_cmpint (g_rename (other, path), ==, 0);
            sqlite3_close (g.db);
            grower_attach (&g, source, path);
            break;
          }
        default:
          whole = FALSE;
          break;
        }
      g_autoptr (SlTrace) next = append (trace, !whole);
      g_autoptr (SlTrace) fresh = load_fresh (path);
      sl_test_assert_equivalent (next, fresh);
      g_clear_pointer (&trace, sl_trace_unref);
      trace = g_steal_pointer (&next);
    }
  grower_close (&g);

  /* a trace not loaded live is loaded whole */
  g_autoptr (SlTrace) plain = load_fresh (path);
  g_autoptr (SlTrace) again = append (plain, FALSE);
  sl_test_assert_equivalent (again, plain);
}

/* Nothing committed since: the same trace again. */
static void
test_nothing_new (void)
{
  g_autofree char *source = sl_test_trace_path ("nsys/nsys-2026.1-osrt-sampling.sqlite");
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "same.sqlite", NULL);
  Grower g = { 0 };

  grower_open (&g, source, path);
  grower_step (&g, 0, 2);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL, NULL,
                                             NULL);
  g_assert_nonnull (trace);
  g_autoptr (SlTrace) same = append (trace, TRUE);
  sl_test_assert_equivalent (same, trace);
  grower_step (&g, 1, 2);
  g_autoptr (SlTrace) all = append (same, TRUE);
  g_assert_cmpuint (sl_trace_get_n_events (all), >, sl_trace_get_n_events (same));
  g_autoptr (SlTrace) fresh = load_fresh (path);
  sl_test_assert_equivalent (all, fresh);
  grower_close (&g);
}

/* What a test does to the growing file once step `k`'s rows are in, before the load or append
 * (`prev`: the trace to append to, NULL at step 0); FALSE when that append is to load the file
 * whole instead. */
typedef gboolean (*StepHook) (Grower *g, guint k, SlTrace *prev, gpointer data);

/* The trace `source` (under traces/) grown into `name` in `n` steps, loaded live after the
 * first and appended to after each, every result a fresh load's; returns the last one. */
static SlTrace *
grow_and_append (const char *source,
                 const char *name,
                 guint       n,
                 StepHook    hook,
                 gpointer    data)
{
  g_autofree char *from = sl_test_trace_path (source);
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
  Grower g = { 0 };
  SlTrace *trace = NULL;

  grower_open (&g, from, path);
  for (guint k = 0; k < n; k++)
    {
      grower_step (&g, k, n);
      gboolean goes_on = hook (&g, k, trace, data);
      g_autoptr (SlTrace) next = trace == NULL
                                 ? sl_trace_load (path, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL,
                                                  NULL, NULL)
                                 : append (trace, goes_on);
      g_assert_nonnull (next);
      g_autoptr (SlTrace) fresh = load_fresh (path);
      sl_test_assert_equivalent (next, fresh);
      g_clear_pointer (&trace, sl_trace_unref);
      trace = g_steal_pointer (&next);
    }
  grower_close (&g);
  return trace;
}

/* What a test writes into the growing file at one step (before its append, which then loads
 * the file whole). */
typedef struct
{
  guint       step;
  const char *sql;
} SqlAtStep;

static gboolean
sql_at_step (Grower  *g,
             guint    k,
             SlTrace *prev G_GNUC_UNUSED,
             gpointer data)
{
  const SqlAtStep *at = data;

  if (k != at->step)
    return TRUE;
  exec (g->db, at->sql);
  return FALSE;
}

/* Thread states go on from where each thread was left: an append reads only the context
 * switches committed since, and its states are a fresh load's at every step (the states that
 * run to the table's last time included); a switch committed after later ones of its thread
 * loads the file whole, and appending goes on after it. */
static void
test_sched (void)
{
  /* at step 3, the first switch of the busiest thread again, after its later ones */
  SqlAtStep late = {
    3, "INSERT INTO SCHED_EVENTS SELECT * FROM SCHED_EVENTS WHERE rowid = (SELECT min(rowid) "
       "FROM SCHED_EVENTS WHERE globalTid = (SELECT globalTid FROM SCHED_EVENTS GROUP BY "
       "globalTid ORDER BY count(*) DESC LIMIT 1))",
  };
  g_autoptr (SlTrace) trace = grow_and_append ("nsys/nsys-2023.3-t4-openmp.sqlite",
                                               "sched.sqlite", 6, sql_at_step, &late);
  guint64 states = 0;

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    if (sl_trace_get_lane (trace, i)->kind == SL_LANE_SCHED)
      states += sl_trace_get_lane (trace, i)->n_events;
  g_assert_cmpuint (states, >, 1000);
}

/* (test_osrt_chains) the chains of the calls committed so far, by id; counts the steps whose
 * trace to append to has more chains than the one before */
static gboolean
chains_with_calls (Grower  *g,
                   guint    k,
                   SlTrace *prev,
                   gpointer data)
{
  guint *counts = data;   /* steps that grew, chains of the last trace seen */

  if (k == 0)
    exec (g->db, "DELETE FROM main.OSRT_CALLCHAINS");
  exec (g->db, "INSERT INTO main.OSRT_CALLCHAINS SELECT * FROM src.OSRT_CALLCHAINS WHERE id > "
               "(SELECT coalesce(max(id), 0) FROM main.OSRT_CALLCHAINS) AND id <= (SELECT "
               "coalesce(max(callchainId), 0) FROM main.OSRT_API)");
  if (prev != NULL)
    {
      counts[0] += counts[1] > 0 && prev->osrt_chains->len > counts[1];
      counts[1] = prev->osrt_chains->len;
    }
  return TRUE;
}

/* OS calls' backtraces are read as they are committed, by id (the daemon writes a chain with
 * its call, numbered in the order it commits): the chains of each step's calls come in that
 * step, and the trace is a fresh load's at every step. */
static void
test_osrt_chains (void)
{
  guint counts[2] = { 0, 0 };
  g_autoptr (SlTrace) trace = grow_and_append ("nsys/nsys-2021-osrt.sqlite", "osrt-chains.sqlite",
                                               6, chains_with_calls, counts);

  g_assert_cmpuint (counts[0], >, 0);
  g_assert_cmpuint (trace->osrt_chains->len, ==, 1690);
}

/* A flight recorder (record --keep-last) deletes the events that ended before its window's new
 * start anywhere in a table, not only its first rows, and says where the window starts: the
 * file is then loaded whole. */
static void
test_keep_last (void)
{
  /* at step 2, what a prune does: the CUDA calls of the first half of the rows deleted (not
   * the first one), the window's new start written */
  SqlAtStep prune = {
    2, "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE rowid > (SELECT min(rowid) FROM "
       "CUPTI_ACTIVITY_KIND_RUNTIME) AND rowid < (SELECT max(rowid) / 2 FROM "
       "CUPTI_ACTIVITY_KIND_RUNTIME); INSERT INTO META_DATA_CAPTURE (name, value) VALUES "
       "('KEEP_LAST_FROM', '1000')",
  };
  g_autoptr (SlTrace) trace = grow_and_append ("nsys/nsys-2023.3-t4-openmp.sqlite",
                                               "keep-last.sqlite", 4, sql_at_step, &prune);
  g_assert_nonnull (trace);
}

/* ---- MPI calls, OpenMP and OpenACC (sightline-gen --mpi, --openmp --openacc) --------------- */

static void keep_first_look_cb (SlTrace *first_look, gpointer user_data);

static gsize
events_of (SlTrace    *trace,
           SlLaneKind  kind)
{
  gsize n = 0;

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    if (sl_trace_get_lane (trace, i)->kind == kind)
      n += sl_trace_get_lane (trace, i)->n_events;
  return n;
}

/* PARALLEL regions of `trace` with a team (its threads counted from implicit tasks). */
static gsize
regions_with_team (SlTrace *trace)
{
  gsize n = 0;

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_OPENMP && k < lane->n_events; k++)
        {
          const SlOmpEvent *o = sl_trace_get_omp_event (trace, lane, &lane->events[k]);
          n += lane->events[k].aux == SL_OMP_PARALLEL && (o->flags & SL_OMP_HAS_THREADS);
        }
    }
  return n;
}

typedef struct
{
  const char *name;
  const char *gen[4];   /* sightline-gen's options (NULL-ended) */
  const char *rank;     /* with --ranks 3: the file of this rank, which has both neighbours */
  SlLaneKind  kinds[2]; /* the lanes it is about */
  const char *hold;     /* every fourth row of these tables (a prefix) a step late */
  SqlAtStep   at;       /* what is written at a step (its append loads the file whole) */
  gboolean    at_goes_on;  /* unless this: what it writes changes nothing read before */
} GenCase;

/* A generated trace grown in steps and appended to after each, every result a fresh load's;
 * counts the appends and those that added to the previous trace's lanes.  Each step brings
 * events of the case's kinds. */
static void
grow_generated (const GenCase *c,
                guint         *appends,
                guint         *extended)
{
  g_autofree char *gen = g_build_filename (sl_test_tmpdir (), "gen", c->name, NULL);
  g_autofree char *out = g_strdup_printf ("%s-%s.sqlite", gen, c->rank != NULL ? "%r" : "0");
  g_autofree char *src = g_strdup_printf ("%s-%s.sqlite", gen, c->rank != NULL ? c->rank : "0");
  g_autofree char *base = g_strdup_printf ("%s.sqlite", c->name);
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), base, NULL);
  g_auto (SlTestRun) run = { 0 };
  Grower g = { .hold = c->hold != NULL, .hold_only = c->hold };
  const guint n = 8;
  g_autoptr (SlTrace) trace = NULL;

  g_autofree char *dir = g_path_get_dirname (gen);
  const char *args[6] = { NULL };
  guint na = 0;
  if (c->rank != NULL)
    {
      args[na++] = "--ranks";
      args[na++] = "3";
    }
  for (guint i = 0; i < G_N_ELEMENTS (c->gen) && c->gen[i] != NULL; i++)
    args[na++] = c->gen[i];
  g_mkdir_with_parents (dir, 0755);
  sl_test_run (&run, SL_GEN_PATH, "-o", out, "-n", "30k", "--force", args[0], args[1], args[2],
               args[3], args[4], NULL);
  g_assert_cmpint (run.status, ==, 0);
  grower_open (&g, src, path);
  for (guint k = 0; k < n; k++)
    {
      grower_step (&g, k, n);
      gboolean whole = c->at.sql != NULL && k == c->at.step;
      if (whole)
        exec (g.db, c->at.sql);
      whole = whole && !c->at_goes_on;
      g_autoptr (SlTrace) next = NULL;
      if (trace == NULL)
        next = sl_trace_load (path, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL, NULL, NULL);
      else
        {
          guint ext0 = _sl_live_get_extended ();
          next = append (trace, !whole);
          *extended += _sl_live_get_extended () - ext0;
          *appends += 1;
        }
      g_assert_nonnull (next);
      g_autoptr (SlTrace) fresh = load_fresh (path);
      sl_test_assert_equivalent (next, fresh);
      for (guint i = 0; i < G_N_ELEMENTS (c->kinds) && c->kinds[i] != 0; i++)
        {
          gsize now = events_of (next, c->kinds[i]);
          g_test_message ("  %s step %u: %" G_GSIZE_FORMAT " events of lane kind %d", c->name, k,
                          now, c->kinds[i]);
          g_assert_cmpuint (now, >, trace != NULL ? events_of (trace, c->kinds[i]) : 0);
        }
      if (trace != NULL)
        {
          /* the trace appended to is unchanged (it shares lanes, not details) */
          g_assert_cmpuint (sl_trace_get_n_mpi_calls (trace), <=, sl_trace_get_n_mpi_calls (next));
          g_assert_cmpuint (sl_trace_get_n_omp_events (trace), <=,
                            sl_trace_get_n_omp_events (next));
        }
      g_clear_pointer (&trace, sl_trace_unref);
      trace = g_steal_pointer (&next);
    }
  if (events_of (trace, SL_LANE_OPENMP) > 0)
    g_assert_cmpuint (regions_with_team (trace), >, 0);
  grower_close (&g);
  g_unlink (path);
}

/* MPI calls (the four tables, and NVTX ranges of a domain "MPI") and OpenMP and OpenACC events
 * are read as committed since the last append, their details following the earlier ones, and
 * added to the previous trace's lanes: every appended trace is a fresh load's, and most appends
 * copy nothing.  Rows committed a step late (implicit tasks after their region: its team grows)
 * and ranks or communicators that change after calls were read are still a fresh load's. */
static void
test_mpi_openmp (void)
{
  static const GenCase cases[] = {
    { "mpi", { "--mpi" }, "1", { SL_LANE_MPI }, NULL, { 0 }, FALSE },
    { "mpi-nvtx", { "--mpi=nvtx" }, "1", { SL_LANE_MPI, SL_LANE_NVTX }, NULL, { 0 }, FALSE },
    { "openmp", { "--openmp", "--openacc" }, NULL, { SL_LANE_OPENMP, SL_LANE_OPENACC }, NULL,
      { 0 }, FALSE },
    { "openmp-late", { "--openmp", "--openacc" }, NULL, { SL_LANE_OPENMP, SL_LANE_OPENACC },
      "OPENMP_", { 0 }, FALSE },
    { "mpi-late", { "--mpi" }, "1", { SL_LANE_MPI }, "MPI_", { 0 }, FALSE },
    /* every communicator's job-wide id changed after calls naming it were read */
    { "mpi-comms", { "--mpi" }, "1", { SL_LANE_MPI }, NULL,
      { 3, "UPDATE MPI_COMMUNICATORS SET commUid = commUid + 1000" }, FALSE },
    /* a thread's first rank row, another a communicator of its own: no call read names them
     * (the writer adds them with the first calls that do) */
    { "mpi-new-rows", { "--mpi" }, "1", { SL_LANE_MPI }, NULL,
      { 3, "INSERT INTO MPI_RANKS SELECT globalTid + 1, rank FROM MPI_RANKS LIMIT 1; "
           "INSERT INTO MPI_COMMUNICATORS (rank, commHandle, commUid, localRank) SELECT rank, "
           "commHandle + 77, commUid + 77, 0 FROM MPI_COMMUNICATORS LIMIT 1" }, TRUE },
    /* the process's rank row of a thread whose calls had it from another thread's */
    { "mpi-thread-rank", { "--mpi" }, "1", { SL_LANE_MPI }, NULL,
      { 3, "UPDATE MPI_RANKS SET globalTid = globalTid + 1" }, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint appends = 0, extended = 0;
      grow_generated (&cases[i], &appends, &extended);
      g_test_message ("%s: %u of %u appends added to the previous trace's lanes", cases[i].name,
                      extended, appends);
      /* in commit order, most appends add to the lanes (a thread first seen, a lane past the
       * ids kept for it since the last copy make one copy); rows committed late make more */
      if (cases[i].hold == NULL)
        g_assert_cmpuint (2 * extended, >, appends);
    }

  /* a big file's first look and the rest appended to it (regions read before their implicit
   * tasks, calls before the rest): the trace a fresh load gives */
  static const char *const firsts[] = { "gen/openmp-0.sqlite", "gen/mpi-1.sqlite" };
  g_setenv ("SIGHTLINE_FIRST_LOOK_MIN", "0", TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (firsts); i++)
    {
      g_autofree char *path = g_build_filename (sl_test_tmpdir (), firsts[i], NULL);
      g_autoptr (GError) error = NULL;
      SlTrace *first = NULL;
      g_autoptr (SlTrace) whole = sl_trace_load_progressive (path, keep_first_look_cb, NULL,
                                                             &first, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (first);
      g_assert_cmpuint (sl_trace_get_n_events (first), <, sl_trace_get_n_events (whole));
      g_autoptr (SlTrace) fresh = load_fresh (path);
      sl_test_assert_equivalent (whole, fresh);
      sl_trace_unref (first);
    }
  g_setenv ("SIGHTLINE_FIRST_LOOK_MIN", "134217728", TRUE);
}

/* A cancelled append fails, and leaves the trace it continues as it was. */
static void
test_cancelled (void)
{
  g_autofree char *source = sl_test_trace_path ("nsys/nsys-2026.2-mfu-2gpu.sqlite");
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "cancel.sqlite", NULL);
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  Grower g = { 0 };

  grower_open (&g, source, path);
  grower_step (&g, 0, 2);
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL | SL_LOAD_LIVE, NULL, NULL, NULL,
                                             NULL);
  grower_step (&g, 1, 2);
  g_cancellable_cancel (cancel);
  g_assert_null (sl_trace_append (trace, cancel, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_autoptr (SlTrace) next = append (trace, TRUE);
  g_autoptr (SlTrace) fresh = load_fresh (path);
  sl_test_assert_equivalent (next, fresh);
  grower_close (&g);
}

/* ---- a first look at a big file (sl_trace_load_progressive) -------------------------------- */

static void
keep_first_look_cb (SlTrace  *first_look,
                    gpointer  user_data)
{
  SlTrace **out = user_data;

  g_assert_null (*out);
  *out = sl_trace_ref (first_look);
}

/* Whether every kernel of `part` (by start, end and name) is among `whole`'s kernels. */
static gsize
kernels_missing (SlTrace *part,
                 SlTrace *whole)
{
  g_autoptr (GHashTable) have = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gsize missing = 0;

  for (guint l = 0; l < sl_trace_get_n_lanes (whole); l++)
    {
      const SlLane *lane = sl_trace_get_lane (whole, l);
      for (gsize e = 0; lane->kind == SL_LANE_KERNELS && e < lane->n_events; e++)
        g_hash_table_add (have, g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %s",
                                                 lane->events[e].start, lane->events[e].end,
                                                 sl_trace_str (whole, lane->events[e].name)));
    }
  for (guint l = 0; l < sl_trace_get_n_lanes (part); l++)
    {
      const SlLane *lane = sl_trace_get_lane (part, l);
      for (gsize e = 0; lane->kind == SL_LANE_KERNELS && e < lane->n_events; e++)
        {
          g_autofree char *k = g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %s",
                                                lane->events[e].start, lane->events[e].end,
                                                sl_trace_str (part, lane->events[e].name));
          missing += !g_hash_table_contains (have, k);
        }
    }
  return missing;
}

/* A big file opened in the viewer: a first look at its first rows, marked as loading from where
 * it stopped and spanning the whole file, then the whole trace, the same as a fresh load.  Real
 * traces, made "big" by SIGHTLINE_FIRST_LOOK_MIN=0. */
static void
test_first_look (void)
{
  static const char *const files[] = {
    "nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite", "nsys/nsys-2026.2-mfu-2gpu.sqlite",
    "nsys/nsys-2023.2-cutlass-cpu-sampling.sqlite",
  };

  g_setenv ("SIGHTLINE_FIRST_LOOK_MIN", "0", TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = sl_test_trace_path (files[i]);
      g_autoptr (GError) error = NULL;
      SlTrace *first = NULL;
      SlTime from = 0;
      double share = 0;

      g_autoptr (SlTrace) whole = sl_trace_load_progressive (path, keep_first_look_cb, NULL,
                                                             &first, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (SlTrace) fresh = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (first);
      g_assert_true (sl_trace_get_loading (first, &from, &share));
      g_assert_false (sl_trace_get_loading (whole, NULL, NULL));
      g_test_message ("%s: first look %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " events, %.1f %% "
                      "of the rows, loading from %+.3f ms",
                      files[i], sl_trace_get_n_events (first), sl_trace_get_n_events (whole),
                      100 * share, (from - sl_trace_get_start (whole)) / 1e6);
      /* a small part of the rows, up to a time inside the trace, on the whole trace's axis */
      g_assert_cmpfloat (share, >, 0);
      g_assert_cmpfloat (share, <=, 2 * SL_FIRST_LOOK_SHARE);
      g_assert_cmpuint (sl_trace_get_n_events (first), <, sl_trace_get_n_events (whole));
      g_assert_cmpint (from, >=, sl_trace_get_start (whole));
      g_assert_cmpint (from, <, sl_trace_get_end (whole));
      g_assert_cmpint (sl_trace_get_end (first), >, from);
      g_assert_cmpint (sl_trace_get_end (first), <=, sl_trace_get_end (whole));
      g_assert_cmpint (sl_trace_get_end (first), >=,
                       sl_trace_get_end (whole) - (sl_trace_get_end (whole)
                                                   - sl_trace_get_start (whole)) / 20);
      /* what it shows is true: its kernels are the whole trace's */
      g_assert_cmpuint (kernels_missing (first, whole), ==, 0);
      /* and the rest appended to it is the trace a fresh load gives */
      sl_test_assert_equivalent (whole, fresh);
      sl_trace_unref (first);
    }
  g_setenv ("SIGHTLINE_FIRST_LOOK_MIN", "134217728", TRUE);

  /* a file under the threshold is loaded whole at once: no first look */
  g_autofree char *small = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  SlTrace *none = NULL;
  g_autoptr (SlTrace) t = sl_trace_load_progressive (small, keep_first_look_cb, NULL, &none, NULL,
                                                     NULL);
  g_assert_nonnull (t);
  g_assert_null (none);
}

/* CUDA backtraces numbered from 0 (nsys 2021): the one call naming 0 is in one part of the rows
 * only, yet both parts read the file's numbering (each call keeps its own backtrace). */
static void
test_first_look_backtraces (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2021-cuda-backtraces.sqlite");
  g_autoptr (GError) error = NULL;
  SlTrace *first = NULL;

  g_setenv ("SIGHTLINE_FIRST_LOOK_MIN", "0", TRUE);
  g_autoptr (SlTrace) whole = sl_trace_load_progressive (path, keep_first_look_cb, NULL, &first,
                                                         NULL, &error);
  g_setenv ("SIGHTLINE_FIRST_LOOK_MIN", "134217728", TRUE);
  g_assert_no_error (error);
  g_assert_nonnull (first);
  g_autoptr (SlTrace) fresh = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_trace_get_n_cuda_callchains (fresh), ==, 18);
  sl_test_assert_equivalent (whole, fresh);
  sl_trace_unref (first);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/live/real-steps", test_real_steps);
  g_test_add_func ("/model/live/out-of-order", test_out_of_order);
  g_test_add_func ("/model/live/fallback", test_fallback);
  g_test_add_func ("/model/live/nothing-new", test_nothing_new);
  g_test_add_func ("/model/live/sched", test_sched);
  g_test_add_func ("/model/live/osrt-chains", test_osrt_chains);
  g_test_add_func ("/model/live/keep-last", test_keep_last);
  g_test_add_func ("/model/live/cancelled", test_cancelled);
  g_test_add_func ("/model/live/mpi-openmp", test_mpi_openmp);
  g_test_add_func ("/model/live/first-look", test_first_look);
  g_test_add_func ("/model/live/first-look-backtraces", test_first_look_backtraces);
  return g_test_run ();
}
