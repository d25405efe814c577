/* sl-cpu-util.c: CPU use from the thread-state lanes: running time per thread, busy cores per
 * process as a step function with its running integral (any window's mean in O(log n)), and the
 * Running slices of each CPU core. */
#include "sl-cpu-util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sl-trace-private.h"

const SlLane *
sl_trace_thread_state_lane (SlTrace *trace,
                            guint    thread)
{
  g_return_val_if_fail (trace != NULL, NULL);
  for (guint i = 0; i < trace->lanes->len; i++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, i);
      if (lane->kind == SL_LANE_SCHED && lane->thread == (gint32) thread)
        return lane;
    }
  return NULL;
}

SlTime
sl_trace_thread_running (SlTrace *trace,
                         guint    thread)
{
  const SlLane *lane = sl_trace_thread_state_lane (trace, thread);
  SlTime sum = 0;

  if (lane == NULL || lane->n_events == 0 || (lane->events[0].aux & SL_STATE_DERIVED))
    return -1;
  for (gsize i = 0; i < lane->n_events; i++)
    if (SL_STATE_OF (lane->events[i].aux) == SL_STATE_RUNNING)
      sum = _sl_time_add (sum, lane->events[i].end - lane->events[i].start);
  return sum;
}

typedef struct
{
  guint    process;
  gboolean derived;
  guint    peak;     /* most cores busy at once */
  gsize    n;
  SlTime  *t;        /* change points, increasing */
  gint32  *level;    /* cores busy from t[k] to t[k + 1] */
  double  *integ;    /* core·ns busy before t[k] */
} ProcSteps;

typedef struct
{
  guint32  cpu;
  GArray  *slices;   /* SlEvent */
} CpuRow;

struct _SlCpuUtil
{
  SlTrace    *trace;
  GArray     *procs;    /* ProcSteps, by process index */
  GArray     *cpus;     /* CpuRow, by cpu number */
  gint        cores;    /* the machine's, -1 until read */
  gboolean    cores_at_least;
  const char *cores_from;
};

typedef struct
{
  SlTime t;
  gint32 d;
} Change;

static int
compare_change (const void *a,
                const void *b)
{
  const Change *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t;
}

static int
compare_cpu (const void *a,
             const void *b)
{
  const CpuRow *x = a, *y = b;
  return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* The steps of `p` from its point k0 on made again from `changes` (sorted here): the changes at
 * or after p's point k0 (those of the points before stay).  One point a time where the level
 * changes (changes at one instant are summed; an instant where they cancel is no point), so
 * that the same running slices give the same steps however they were gathered (a live append
 * goes on from the previous trace's: _sl_cpu_util_extend). */
static int
compare_slice (const void *a,
               const void *b)
{
  const SlEvent *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start ? 1 : (x->link > y->link) - (x->link < y->link);
}

static void
steps_build_from (ProcSteps *p,
                  gsize      k0,
                  GArray    *changes)
{
  g_array_sort (changes, compare_change);
  gsize cap = k0 + changes->len + 1;
  p->t = g_renew (SlTime, p->t, cap);
  p->level = g_renew (gint32, p->level, cap);
  p->integ = g_renew (double, p->integ, cap);
  gint32 level = k0 > 0 ? p->level[k0 - 1] : 0;
  gsize n = k0;
  for (guint i = 0; i < changes->len;)
    {
      SlTime t = g_array_index (changes, Change, i).t;
      gint32 to = level;
      for (; i < changes->len && g_array_index (changes, Change, i).t == t; i++)
        to += g_array_index (changes, Change, i).d;
      if (to == level)
        continue;
      p->integ[n] = n == 0 ? 0
                           : p->integ[n - 1]
                               + (double) p->level[n - 1] * (double) (t - p->t[n - 1]);
      p->t[n] = t;
      p->level[n] = level = to;
      n++;
    }
  p->n = n;
  p->peak = 0;
  for (gsize k = 0; k < n; k++)
    p->peak = MAX (p->peak, (guint) MAX (p->level[k], 0));
}

static void
steps_build (ProcSteps *p,
             GArray    *changes)
{
  steps_build_from (p, 0, changes);
}

SlCpuUtil *
sl_cpu_util_new (SlTrace *trace)
{
  SlCpuUtil *u = g_new0 (SlCpuUtil, 1);
  g_autoptr (GHashTable) cpu_rows = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autofree GArray **per_proc = g_new0 (GArray *, trace->processes->len + 1);
  g_autofree gboolean *derived = g_new0 (gboolean, trace->processes->len + 1);

  u->trace = trace;
  u->cores = -1;
  u->procs = g_array_new (FALSE, TRUE, sizeof (ProcSteps));
  u->cpus = g_array_new (FALSE, TRUE, sizeof (CpuRow));
  for (guint l = 0; l < trace->lanes->len; l++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, l);
      if (lane->kind != SL_LANE_SCHED || lane->thread < 0
          || (guint) lane->thread >= trace->threads->len)
        continue;
      const SlThread *th = &g_array_index (trace->threads, SlThread, lane->thread);
      guint p = MIN (th->process, trace->processes->len);
      for (gsize i = 0; i < lane->n_events; i++)
        {
          const SlEvent *ev = &lane->events[i];
          if (SL_STATE_OF (ev->aux) != SL_STATE_RUNNING || ev->end <= ev->start)
            continue;
          if (per_proc[p] == NULL)
            per_proc[p] = g_array_new (FALSE, FALSE, sizeof (Change));
          derived[p] |= (ev->aux & SL_STATE_DERIVED) != 0;
          Change c[2] = { { ev->start, 1 }, { ev->end, -1 } };
          g_array_append_vals (per_proc[p], c, 2);
          if (ev->corr == SL_NO_LINK)
            continue;
          gpointer cpu_key = GUINT_TO_POINTER (ev->corr + 1);
          guint row = GPOINTER_TO_UINT (g_hash_table_lookup (cpu_rows, cpu_key));
          if (row == 0)
            {
              CpuRow r = { ev->corr, g_array_new (FALSE, FALSE, sizeof (SlEvent)) };
              g_array_append_val (u->cpus, r);
              row = u->cpus->len;
              g_hash_table_insert (cpu_rows, cpu_key, GUINT_TO_POINTER (row));
            }
          SlEvent s = { ev->start, ev->end, th->name, (guint32) lane->thread,
                        lane->base + (guint32) i, ev->aux };
          g_array_append_val (g_array_index (u->cpus, CpuRow, row - 1).slices, s);
        }
    }
  for (guint p = 0; p <= trace->processes->len; p++)
    if (per_proc[p] != NULL)
      {
        ProcSteps steps = { p, derived[p], 0, 0, NULL, NULL, NULL };
        steps_build (&steps, per_proc[p]);
        g_array_free (per_proc[p], TRUE);
        g_array_append_val (u->procs, steps);
      }
  g_array_sort (u->cpus, compare_cpu);
  for (guint i = 0; i < u->cpus->len; i++)
    {
      GArray *a = g_array_index (u->cpus, CpuRow, i).slices;
      g_array_sort (a, compare_slice);
    }
  return u;
}

SlCpuUtil *
sl_cpu_util_get (SlTrace *trace)
{
  SlCpuUtil **slot;

  g_return_val_if_fail (trace != NULL, NULL);
  slot = (SlCpuUtil **) &trace->cpu_util;
  if (g_once_init_enter (slot))
    g_once_init_leave (slot, sl_cpu_util_new (trace));
  return *slot;
}

void
sl_cpu_util_free (SlCpuUtil *u)
{
  if (u == NULL)
    return;
  for (guint i = 0; i < u->procs->len; i++)
    {
      ProcSteps *p = &g_array_index (u->procs, ProcSteps, i);
      g_free (p->t);
      g_free (p->level);
      g_free (p->integ);
    }
  /* unref: a live append's CPU use shares the rows of cores without new slices */
  for (guint i = 0; i < u->cpus->len; i++)
    g_array_unref (g_array_index (u->cpus, CpuRow, i).slices);
  g_array_free (u->procs, TRUE);
  g_array_free (u->cpus, TRUE);
  g_free (u);
}

guint
sl_cpu_util_get_n_cpus (SlCpuUtil *u)
{
  return u->cpus->len;
}

guint32
sl_cpu_util_get_cpu (SlCpuUtil *u,
                     guint      i)
{
  g_return_val_if_fail (i < u->cpus->len, 0);
  return g_array_index (u->cpus, CpuRow, i).cpu;
}

const SlEvent *
sl_cpu_util_get_slices (SlCpuUtil *u,
                        guint      i,
                        gsize     *n)
{
  g_return_val_if_fail (i < u->cpus->len, NULL);
  GArray *a = g_array_index (u->cpus, CpuRow, i).slices;
  *n = a->len;
  return (const SlEvent *) a->data;
}

/* How many of the n values at `base`, `stride` bytes apart and increasing, are <= t. */
static gsize
count_at_or_before (const void *base,
                    gsize       stride,
                    gsize       n,
                    SlTime      t)
{
  gsize lo = 0, hi = n;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (*(const SlTime *) ((const guint8 *) base + mid * stride) <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

gssize
sl_cpu_util_slice_at (SlCpuUtil *u,
                      guint      i,
                      SlTime     t)
{
  gsize n = 0;
  const SlEvent *s = sl_cpu_util_get_slices (u, i, &n);

  /* the last slice starting at or before t, if it lasts past t */
  gsize k = s != NULL ? count_at_or_before (&s->start, sizeof *s, n, t) : 0;
  if (k == 0 || s[k - 1].end <= t)
    return -1;
  return (gssize) k - 1;
}

SlTime
sl_cpu_util_next_start (SlCpuUtil *u,
                         guint      i,
                         SlTime     t)
{
  gsize n = 0;
  const SlEvent *s = sl_cpu_util_get_slices (u, i, &n);
  gsize k = s != NULL ? count_at_or_before (&s->start, sizeof *s, n, t) : 0;
  return k < n ? s[k].start : G_MAXINT64;
}

guint
sl_cpu_util_get_n_processes (SlCpuUtil *u)
{
  return u->procs->len;
}

guint
sl_cpu_util_get_process (SlCpuUtil *u,
                         guint      i)
{
  g_return_val_if_fail (i < u->procs->len, 0);
  return g_array_index (u->procs, ProcSteps, i).process;
}

gboolean
sl_cpu_util_is_derived (SlCpuUtil *u,
                        guint      i)
{
  g_return_val_if_fail (i < u->procs->len, FALSE);
  return g_array_index (u->procs, ProcSteps, i).derived;
}

guint
sl_cpu_util_get_peak (SlCpuUtil *u,
                       guint      i)
{
  g_return_val_if_fail (i < u->procs->len, 0);
  return g_array_index (u->procs, ProcSteps, i).peak;
}

/* Core·ns busy before x. */
static double
integral_at (const ProcSteps *p,
             SlTime           x)
{
  gsize lo = count_at_or_before (p->t, sizeof (SlTime), p->n, x);
  if (lo == 0)
    return 0;
  return p->integ[lo - 1] + (double) p->level[lo - 1] * (double) (x - p->t[lo - 1]);
}

double
sl_cpu_util_busy_cores (SlCpuUtil *u,
                        guint      i,
                        SlTime     t0,
                        SlTime     t1)
{
  g_return_val_if_fail (i < u->procs->len, 0);
  const ProcSteps *p = &g_array_index (u->procs, ProcSteps, i);
  if (t1 <= t0)
    return 0;
  return (integral_at (p, t1) - integral_at (p, t0)) / (double) (t1 - t0);
}

void
sl_cpu_util_buckets (SlCpuUtil *u,
                     guint      i,
                     SlTime     t0,
                     SlTime     t1,
                     guint      n,
                     double    *out)
{
  g_return_if_fail (i < u->procs->len);
  const ProcSteps *p = &g_array_index (u->procs, ProcSteps, i);
  double span = (double) (t1 - t0);
  double prev = integral_at (p, t0);
  for (guint b = 0; b < n; b++)
    {
      SlTime a = t0 + (SlTime) (span * b / n), e = t0 + (SlTime) (span * (b + 1) / n);
      double next = integral_at (p, e);
      out[b] = e > a ? (next - prev) / (double) (e - a) : 0;
      prev = next;
    }
}

gint
sl_cpu_util_find_process (SlCpuUtil *u,
                          guint      process)
{
  guint lo = 0, hi = u->procs->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      guint p = g_array_index (u->procs, ProcSteps, mid).process;
      if (p == process)
        return (gint) mid;
      if (p < process)
        lo = mid + 1;
      else
        hi = mid;
    }
  return -1;
}

/* CpuCores of TARGET_INFO_SYSTEM_ENV in the file at `path`, 0 when it has none (or is no SQLite
 * file). */
static guint
file_env_cores (const char *path)
{
  sqlite3 *db = path != NULL ? _sl_trace_open_db (path, FALSE, NULL) : NULL;
  sqlite3_stmt *stmt = NULL;
  guint64 n = 0;

  if (db == NULL)
    return 0;
  if (sqlite3_prepare_v2 (db, "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'CpuCores'",
                          -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    {
      g_autofree char *v = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
      if (v == NULL || !g_ascii_string_to_unsigned (g_strstrip (v), 10, 1, 1 << 16, &n, NULL))
        n = 0;
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return (guint) n;
}

/* The trace's cores: its file's, or for merged files (ranks, often one machine each) the most
 * any of them has. */
static guint
system_env_cores (SlTrace *trace)
{
  guint n = 0, sources = sl_trace_get_n_sources (trace);

  if (sources <= 1)
    return trace->is_json ? 0 : file_env_cores (trace->path);
  for (guint i = 0; i < sources; i++)
    n = MAX (n, file_env_cores (sl_trace_get_source (trace, i)->path));
  return n;
}

guint
sl_cpu_util_machine_cores (SlCpuUtil   *u,
                           gboolean    *at_least,
                           const char **source)
{
  if (u->cores < 0)
    {
      u->cores = (gint) system_env_cores (u->trace);
      u->cores_at_least = FALSE;
      u->cores_from = "CpuCores in TARGET_INFO_SYSTEM_ENV";
      if (u->cores == 0 && u->cpus->len > 0)
        {
          u->cores = (gint) g_array_index (u->cpus, CpuRow, u->cpus->len - 1).cpu + 1;
          u->cores_at_least = TRUE;
          u->cores_from = "the highest CPU number in the scheduling data + 1";
        }
      else if (u->cores == 0)
        u->cores_from = "neither TARGET_INFO_SYSTEM_ENV nor CPU numbers in scheduling data";
    }
  if (at_least != NULL)
    *at_least = u->cores_at_least;
  if (source != NULL)
    *source = u->cores_from;
  return (guint) u->cores;
}

gsize
sl_cpu_util_get_memory_size (SlCpuUtil *u)
{
  gsize bytes = sizeof *u;
  for (guint i = 0; i < u->procs->len; i++)
    bytes += g_array_index (u->procs, ProcSteps, i).n * (sizeof (SlTime) + sizeof (gint32)
                                                         + sizeof (double));
  for (guint i = 0; i < u->cpus->len; i++)
    bytes += g_array_index (u->cpus, CpuRow, i).slices->len * sizeof (SlEvent);
  return bytes;
}

/* ---- a live append ------------------------------------------------------------------------- */

typedef struct
{
  GArray *net;       /* Change: the running slices added, less those dropped */
} ProcDelta;

/*
 * `next` continues `prev` (sl-trace-extend.c): lane i of next is prev's lane i, its first keep[i]
 * events, then new ones (a thread-state lane's final span is dropped and ended again).  Its CPU
 * use from prev's (built): each process's steps kept up to the earliest instant a running slice
 * added or dropped changes, made again from there (a live update: the last seconds); each core's
 * slices kept, less those dropped, with the new ones merged in; a core without new slices shares
 * prev's.  What sl_cpu_util_new (next) gives (tests/test-live-append.c compares them).  NULL where
 * it cannot (processes or threads added: a process's row moves): then built anew on first use.
 */
SlCpuUtil *
_sl_cpu_util_extend (SlTrace     *next,
                     SlTrace     *prev,
                     const gsize *keep)
{
  SlCpuUtil *was = g_atomic_pointer_get ((SlCpuUtil **) &prev->cpu_util);
  guint n_proc = next->processes->len;

  if (was == NULL || n_proc != prev->processes->len || next->lanes->len != prev->lanes->len)
    return NULL;
  g_autofree ProcDelta *delta = g_new0 (ProcDelta, n_proc + 1);
  g_autoptr (GHashTable) row_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GPtrArray) added = g_ptr_array_new ();     /* per row of `was`, then new rows */
  g_autoptr (GPtrArray) dropped = g_ptr_array_new ();   /* guint32 global ids, per row */
  g_autoptr (GArray) new_cpus = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint r = 0; r < was->cpus->len; r++)
    {
      g_hash_table_insert (row_of, GUINT_TO_POINTER (g_array_index (was->cpus, CpuRow, r).cpu + 1),
                           GUINT_TO_POINTER (r + 1));
      g_ptr_array_add (added, NULL);
      g_ptr_array_add (dropped, NULL);
    }
  for (guint l = 0; l < next->lanes->len; l++)
    {
      const SlLane *lane = g_ptr_array_index (next->lanes, l);
      const SlLane *old = g_ptr_array_index (prev->lanes, l);
      if (lane->kind != SL_LANE_SCHED || lane->thread < 0
          || (guint) lane->thread >= next->threads->len)
        continue;
      if ((lane->n_events > 0 && (lane->events[0].aux & SL_STATE_DERIVED))
          || old->kind != SL_LANE_SCHED || old->thread != lane->thread || old->base != lane->base)
        return NULL;
      const SlThread *th = &g_array_index (next->threads, SlThread, lane->thread);
      guint p = MIN (th->process, n_proc);
      for (guint side = 0; side < 2; side++)
        {
          const SlLane *from = side == 0 ? old : lane;
          for (gsize i = keep[l]; i < from->n_events; i++)
            {
              const SlEvent *ev = &from->events[i];
              if (SL_STATE_OF (ev->aux) != SL_STATE_RUNNING || ev->end <= ev->start)
                continue;
              gint32 sign = side == 0 ? -1 : 1;
              if (delta[p].net == NULL)
                delta[p].net = g_array_new (FALSE, FALSE, sizeof (Change));
              Change c[2] = { { ev->start, sign }, { ev->end, -sign } };
              g_array_append_vals (delta[p].net, c, 2);
              if (ev->corr == SL_NO_LINK)
                continue;
              gpointer key = GUINT_TO_POINTER (ev->corr + 1);
              guint row = GPOINTER_TO_UINT (g_hash_table_lookup (row_of, key));
              if (row == 0)
                {
                  g_array_append_val (new_cpus, ev->corr);
                  g_ptr_array_add (added, NULL);
                  g_ptr_array_add (dropped, NULL);
                  row = added->len;
                  g_hash_table_insert (row_of, key, GUINT_TO_POINTER (row));
                }
              GPtrArray *side_rows = side == 0 ? dropped : added;
              if (side_rows->pdata[row - 1] == NULL)
                side_rows->pdata[row - 1] = g_array_new (FALSE, FALSE, side == 0 ? sizeof (guint32)
                                                                          : sizeof (SlEvent));
              if (side == 0)
                {
                  guint32 id = old->base + (guint32) i;
                  g_array_append_val (side_rows->pdata[row - 1], id);
                }
              else
                {
                  SlEvent s = { ev->start, ev->end, th->name, (guint32) lane->thread,
                                lane->base + (guint32) i, ev->aux };
                  g_array_append_val (side_rows->pdata[row - 1], s);
                }
            }
        }
    }

  SlCpuUtil *u = g_new0 (SlCpuUtil, 1);
  u->trace = next;
  u->cores = -1;
  u->procs = g_array_new (FALSE, TRUE, sizeof (ProcSteps));
  u->cpus = g_array_new (FALSE, TRUE, sizeof (CpuRow));

  /* each process: its old steps, made again from the first instant that changed */
  guint at = 0;
  for (guint p = 0; p <= n_proc; p++)
    {
      const ProcSteps *o = at < was->procs->len
                           && g_array_index (was->procs, ProcSteps, at).process == p
                           ? &g_array_index (was->procs, ProcSteps, at++) : NULL;
      GArray *net = delta[p].net;
      if (o == NULL && net == NULL)
        continue;
      ProcSteps steps = { p, o != NULL && o->derived, 0, 0, NULL, NULL, NULL };
      gsize k0 = 0;
      if (net != NULL)
        {
          /* the first instant the added and dropped slices do not cancel at */
          g_array_sort (net, compare_change);
          SlTime first = G_MAXINT64;
          for (guint i = 0; i < net->len && first == G_MAXINT64;)
            {
              SlTime t = g_array_index (net, Change, i).t;
              gint32 sum = 0;
              for (; i < net->len && g_array_index (net, Change, i).t == t; i++)
                sum += g_array_index (net, Change, i).d;
              if (sum != 0)
                first = t;
            }
          k0 = o != NULL ? count_at_or_before (o->t, sizeof (SlTime), o->n, first - 1) : 0;
          /* the old points from there on, as changes */
          for (gsize k = k0; o != NULL && k < o->n; k++)
            {
              Change c = { o->t[k], o->level[k] - (k > 0 ? o->level[k - 1] : 0) };
              g_array_append_val (net, c);
            }
        }
      else
        k0 = o->n;
      if (o != NULL && k0 > 0)
        {
          steps.t = g_memdup2 (o->t, k0 * sizeof (SlTime));
          steps.level = g_memdup2 (o->level, k0 * sizeof (gint32));
          steps.integ = g_memdup2 (o->integ, k0 * sizeof (double));
        }
      if (net != NULL)
        steps_build_from (&steps, k0, net);
      else
        {
          steps.n = o->n;
          steps.peak = o->peak;
        }
      if (steps.n > 0)
        g_array_append_val (u->procs, steps);
      else
        {
          g_free (steps.t);
          g_free (steps.level);
          g_free (steps.integ);
        }
      if (net != NULL)
        g_array_free (net, TRUE);
    }

  /* each core: its slices less those dropped, the new ones merged in by start */
  for (guint r = 0; r < added->len; r++)
    {
      GArray *add = added->pdata[r], *drop = dropped->pdata[r];
      GArray *old = r < was->cpus->len ? g_array_index (was->cpus, CpuRow, r).slices : NULL;
      CpuRow row = { r < was->cpus->len ? g_array_index (was->cpus, CpuRow, r).cpu
                                        : g_array_index (new_cpus, guint32, r - was->cpus->len),
                     NULL };
      if (add == NULL && drop == NULL)
        {
          row.slices = g_array_ref (old);   /* never written once built */
          g_array_append_val (u->cpus, row);
          continue;
        }
      gsize n_old = old != NULL ? old->len : 0;
      row.slices = g_array_sized_new (FALSE, FALSE, sizeof (SlEvent),
                                      (guint) (n_old + (add != NULL ? add->len : 0)));
      if (add != NULL)
        qsort (add->data, add->len, sizeof (SlEvent), compare_slice);
      /* the dropped slices are a thread's last: from the earliest of them on, the old slices are
       * merged with the new ones one by one; before it they are copied */
      gsize cut = n_old;
      guint found = 0;
      for (gsize k = n_old; drop != NULL && k-- > 0 && found < drop->len;)
        for (guint j = 0; j < drop->len; j++)
          if (g_array_index (old, SlEvent, k).link == g_array_index (drop, guint32, j))
            {
              cut = k;
              found++;
            }
      SlTime first_new = add != NULL && add->len > 0 ? g_array_index (add, SlEvent, 0).start
                                                     : G_MAXINT64;
      gsize copy = MIN (cut, old != NULL ? count_at_or_before (&((SlEvent *) (void *) old->data)->start,
                                                               sizeof (SlEvent), n_old,
                                                               first_new - 1) : 0);
      if (copy > 0)
        g_array_append_vals (row.slices, old->data, (guint) copy);
      gsize a = 0;
      for (gsize k = copy; k < n_old || (add != NULL && a < add->len);)
        {
          const SlEvent *o = k < n_old ? &g_array_index (old, SlEvent, k) : NULL;
          if (o != NULL && drop != NULL)
            {
              gboolean gone = FALSE;
              for (guint j = 0; j < drop->len && !gone; j++)
                gone = o->link == g_array_index (drop, guint32, j);
              if (gone)
                {
                  k++;
                  continue;
                }
            }
          const SlEvent *n = add != NULL && a < add->len ? &g_array_index (add, SlEvent, a) : NULL;
          if (n != NULL && (o == NULL || compare_slice (n, o) < 0))
            {
              g_array_append_vals (row.slices, n, 1);
              a++;
            }
          else
            {
              g_array_append_vals (row.slices, o, 1);
              k++;
            }
        }
      g_array_append_val (u->cpus, row);
      if (add != NULL)
        g_array_free (add, TRUE);
      if (drop != NULL)
        g_array_free (drop, TRUE);
    }
  g_array_sort (u->cpus, compare_cpu);
  return u;
}

/* Test hook: whether two CPU uses are the same (steps, peaks, cores' slices). */
gboolean
_sl_cpu_util_equal (SlCpuUtil *a,
                    SlCpuUtil *b)
{
  if (a->procs->len != b->procs->len || a->cpus->len != b->cpus->len)
    {
      g_debug ("cpu util: %u/%u processes, %u/%u cores", a->procs->len, b->procs->len,
               a->cpus->len, b->cpus->len);
      return FALSE;
    }
  for (guint i = 0; i < a->procs->len; i++)
    {
      const ProcSteps *x = &g_array_index (a->procs, ProcSteps, i);
      const ProcSteps *y = &g_array_index (b->procs, ProcSteps, i);
      if (x->process != y->process || x->derived != y->derived || x->peak != y->peak
          || x->n != y->n || memcmp (x->t, y->t, x->n * sizeof (SlTime)) != 0
          || memcmp (x->level, y->level, x->n * sizeof (gint32)) != 0)
        {
          g_debug ("cpu util: process %u/%u: %" G_GSIZE_FORMAT "/%" G_GSIZE_FORMAT " steps, peak "
                   "%u/%u", x->process, y->process, x->n, y->n, x->peak, y->peak);
          return FALSE;
        }
      for (gsize k = 0; k < x->n; k++)
        if (fabs (x->integ[k] - y->integ[k]) > 1e-9 * MAX (fabs (x->integ[k]), 1.0))
          return FALSE;
    }
  for (guint i = 0; i < a->cpus->len; i++)
    {
      const CpuRow *x = &g_array_index (a->cpus, CpuRow, i);
      const CpuRow *y = &g_array_index (b->cpus, CpuRow, i);
      if (x->cpu != y->cpu || x->slices->len != y->slices->len
          || memcmp (x->slices->data, y->slices->data, x->slices->len * sizeof (SlEvent)) != 0)
        {
          g_debug ("cpu util: core %u/%u: %u/%u slices", x->cpu, y->cpu, x->slices->len,
                   y->slices->len);
          return FALSE;
        }
    }
  return TRUE;
}
