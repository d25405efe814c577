/* sl-cpu-util.c: CPU use from the thread-state lanes: running time per thread, busy cores per
 * process as a step function with its running integral (any window's mean in O(log n)), and the
 * Running slices of each CPU core. */
#include "sl-cpu-util.h"

#include <stdlib.h>

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

static int
compare_start (const void *a,
               const void *b)
{
  const SlEvent *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

static void
steps_build (ProcSteps *p,
             GArray    *changes)
{
  g_array_sort (changes, compare_change);
  p->t = g_new (SlTime, changes->len + 1);
  p->level = g_new (gint32, changes->len + 1);
  p->integ = g_new (double, changes->len + 1);
  gint32 level = 0;
  gsize n = 0;
  for (guint i = 0; i < changes->len; i++)
    {
      const Change *c = &g_array_index (changes, Change, i);
      level += c->d;
      p->peak = MAX (p->peak, (guint) MAX (level, 0));
      if (n > 0 && p->t[n - 1] == c->t)
        {
          p->level[n - 1] = level;
          continue;
        }
      p->integ[n] = n == 0 ? 0
                           : p->integ[n - 1]
                               + (double) p->level[n - 1] * (double) (c->t - p->t[n - 1]);
      p->t[n] = c->t;
      p->level[n] = level;
      n++;
    }
  p->n = n;
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
      g_array_sort (a, compare_start);
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
  for (guint i = 0; i < u->cpus->len; i++)
    g_array_free (g_array_index (u->cpus, CpuRow, i).slices, TRUE);
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
