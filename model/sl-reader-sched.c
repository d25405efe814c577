/* sl-reader-sched.c: thread states: SCHED_EVENTS read into one SL_LANE_SCHED lane a thread, or,
 * where the file has no scheduling data, states derived from CPU samples and OS runtime calls.
 *
 * SCHED_EVENTS holds a row per context switch: (start, cpu, isSchedIn, globalTid) and, since
 * schema 3.16 (nsys 2024.6), the thread's state and block reason on a switch out.  A thread's
 * rows, in time order (table order among equal times), give its lane:
 *
 *   in at t0 on CPU c, out at t1 on CPU c   Running on c over [t0, t1)
 *   out at t1 ... next in at t2              over [t1, t2): Runnable when the state says the
 *                                            thread was preempted, Blocked (with the block
 *                                            reason) when it slept, Unknown where the file
 *                                            does not say (threadState 0 or no such column)
 *   in ... in, out ... out, out on another   the pairing is broken: that span is Unknown and
 *   CPU than the in                          the rows are counted in a warning
 *   a last in with no out                    Running until the table's last timestamp
 *   a last out (not "Terminated")            its state until the table's last timestamp
 *
 * A live load keeps where each thread was left (SlSchedCarry: in or out, since when, on which
 * CPU, in what state, the time of its last row, and whether its lane ends with a span to the
 * table's last timestamp) with the table's counts; an append reads the rows committed since
 * (sl-trace-live.c), goes on from there with the lanes of the trace it continues, less those
 * last spans, and ends them again at the table's new last timestamp: what a fresh load of the
 * whole table gives, as long as no thread's row comes before one already read (a switch
 * committed late: the file is then loaded whole).
 *
 * The derived lanes (aux | SL_STATE_DERIVED), for the threads with CPU samples: a sample taken
 * while the thread ran stands for one sampling period of running before it (the period
 * estimated from the samples' spacing); an OS runtime call not covered by such running is
 * Blocked; the rest is Unknown.  A thread without samples gets none: its OS runtime calls alone
 * are its OS runtime lane over again.
 */
#include "sl-reader-private.h"
#include "sl-cpu-util.h"

#include <stdlib.h>

/* CPU numbers above this are not believed (a hostile file's 2^40 would size per-CPU rows). */
#define SCHED_MAX_CPU 4095

/* ENUM_SAMPLING_THREAD_STATE values that matter here */
#define TS_UNKNOWN         0
#define TS_RUNNING         1
#define TS_INTERRUPTIBLE   2
#define TS_UNINTERRUPTIBLE 3
#define TS_STOPPED         4
#define TS_TERMINATED      5
#define TS_UNSCHEDULED     6
#define TS_WAITING         7
#define TS_OSRT            8
#define TS_TRANSITION      10
/* ENUM_SCHEDULING_THREAD_BLOCK: 0 NonBlocked, 1 Unknown, 2… a reason */
#define TB_NON_BLOCKED     0
#define TB_UNKNOWN         1
#define TB_QUANTUM_END     42
#define TB_DISPATCH_INT    43
#define TB_PREEMPTED       44
#define TB_YIELD           45
#define TB_READY_TO_RUN    49
#define TB_DEFERRED_PREEMPT 51
#define NONE8              0xFF   /* a NULL state or block column */

#define STATE_END 0xFF             /* after a "Terminated" switch out: the lane stops */

/* One row of SCHED_EVENTS, kept until the table is read (16 bytes). */
typedef struct
{
  SlTime  t;
  gint32  cpu;      /* -1: unknown */
  guint8  in;
  guint8  state;    /* threadState, NONE8 when NULL */
  guint8  block;    /* threadBlock, NONE8 when NULL */
  guint8  pad;
} SchedRec;

/* Where a thread's rows so far left its lane. */
typedef struct
{
  guint8  open;      /* switched in at `since` on `cpu` */
  guint8  pending;   /* switched out at `since`, into `state` (for `why`) */
  guint8  final;     /* its lane ends with the span from `since` to the table's last time */
  guint8  pad;
  gint32  cpu;
  guint32 state;
  guint32 why;
  SlTime  since;
  SlTime  last;      /* the time of its last row */
  guint64 n_rows;    /* 0: no row yet */
} SchedThread;

struct _SlSchedCarry
{
  SlTime   max_time;
  guint64  bad_cpu, bad_flag, unpaired, rows;
  GArray  *threads;   /* SchedThread by thread index */
};

SlSchedCarry *
_sl_sched_carry_copy (const SlSchedCarry *carry)
{
  if (carry == NULL)
    return NULL;
  SlSchedCarry *c = g_memdup2 (carry, sizeof *carry);
  c->threads = g_array_copy (carry->threads);
  return c;
}

gboolean
_sl_sched_carry_final (const SlSchedCarry *carry,
                       guint               thread)
{
  return carry != NULL && thread < carry->threads->len
         && g_array_index (carry->threads, SchedThread, thread).final;
}

void
_sl_sched_carry_free (SlSchedCarry *carry)
{
  if (carry == NULL)
    return;
  g_array_unref (carry->threads);
  g_free (carry);
}

typedef struct
{
  GPtrArray *per_thread;   /* thread index -> GArray of SchedRec (or NULL) */
  SlSchedCarry *carry;     /* the counts and threads so far (those of earlier loads too) */
  SlSchedCarry *from;      /* an append: where the trace it continues left them, else NULL */
  guint32    names[SL_N_THREAD_STATES];
} SchedRows;

static void
state_names (SlReader *r,
             guint32   names[SL_N_THREAD_STATES])
{
  static const char *const labels[SL_N_THREAD_STATES] = {
    "Unknown", "Running", "Runnable", "Blocked",
  };
  for (guint i = 0; i < SL_N_THREAD_STATES; i++)
    names[i] = _sl_trace_intern (r->trace, labels[i], -1);
}

static guint8
col_u8 (sqlite3_stmt *stmt,
        int           col)
{
  if (sqlite3_column_type (stmt, col) != SQLITE_INTEGER)
    return NONE8;
  gint64 v = sqlite3_column_int64 (stmt, col);
  return v >= 0 && v < NONE8 ? (guint8) v : NONE8;
}

static void
sched_row (SlReader     *r,
           sqlite3_stmt *stmt,
           SlEvent      *ev,
           SlRowLoop    *loop)
{
  SchedRows *rows = loop->data;
  SchedRec rec = { ev->start, -1, 0, NONE8, NONE8, 0 };

  if (G_UNLIKELY (sqlite3_column_type (stmt, 3) != SQLITE_INTEGER))
    {
      rows->carry->bad_flag++;
      loop->trouble.not_events++;   /* skipped: the inventory counts it, sched_done warns */
      return;
    }
  gint32 thread = _sl_reader_row_thread (r, stmt, 4, &loop->trouble);
  if (thread < 0)
    return;
  gint64 cpu = sqlite3_column_int64 (stmt, 2);
  if (G_LIKELY (sqlite3_column_type (stmt, 2) == SQLITE_INTEGER && cpu >= 0
                && cpu <= SCHED_MAX_CPU))
    rec.cpu = (gint32) cpu;
  else
    rows->carry->bad_cpu++;
  rec.in = sqlite3_column_int64 (stmt, 3) != 0;
  rec.state = col_u8 (stmt, 5);
  rec.block = col_u8 (stmt, 6);
  rows->carry->max_time = MAX (rows->carry->max_time, rec.t);
  rows->carry->rows++;

  if ((guint) thread >= rows->per_thread->len)
    g_ptr_array_set_size (rows->per_thread, thread + 1);
  GArray *a = g_ptr_array_index (rows->per_thread, thread);
  if (a == NULL)
    a = rows->per_thread->pdata[thread] = g_array_new (FALSE, FALSE, sizeof (SchedRec));
  g_array_append_val (a, rec);
}

/* The state a thread is in after a switch out, and why (a block reason or SL_NO_LINK). */
static guint
state_after_out (const SchedRec *rec,
                 guint32        *why)
{
  *why = SL_NO_LINK;
  if (rec->state == TS_TERMINATED)
    return STATE_END;
  if (rec->block != NONE8 && rec->block > TB_UNKNOWN)
    {
      *why = rec->block;
      switch (rec->block)
        {
        case TB_QUANTUM_END:
        case TB_DISPATCH_INT:
        case TB_PREEMPTED:
        case TB_YIELD:
        case TB_READY_TO_RUN:
        case TB_DEFERRED_PREEMPT:
          return SL_STATE_RUNNABLE;   /* reasons that say the thread was ready to run */
        default:
          return SL_STATE_BLOCKED;
        }
    }
  switch (rec->state)
    {
    case TS_RUNNING:
    case TS_UNSCHEDULED:
    case TS_TRANSITION:
      return SL_STATE_RUNNABLE;
    case TS_INTERRUPTIBLE:
    case TS_UNINTERRUPTIBLE:
    case TS_STOPPED:
    case TS_WAITING:
    case TS_OSRT:
      if (rec->block != NONE8)
        *why = rec->block;
      return SL_STATE_BLOCKED;
    default:
      break;
    }
  return rec->block == TB_NON_BLOCKED ? SL_STATE_RUNNABLE : SL_STATE_UNKNOWN;
}

static void
emit (GArray        *out,
      const guint32  names[SL_N_THREAD_STATES],
      SlTime         start,
      SlTime         end,
      guint          state,
      guint32        cpu,
      guint32        why,
      guint32        derived)
{
  if (end <= start || state >= SL_N_THREAD_STATES)
    return;
  SlEvent ev = { start, end, names[state], cpu, why, state | derived };
  g_array_append_val (out, ev);
}

static int
compare_rec (gconstpointer a,
             gconstpointer b)
{
  const SchedRec *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t;
}

static void
sort_recs (GArray *recs)
{
  for (guint i = 1; i < recs->len; i++)
    if (g_array_index (recs, SchedRec, i).t < g_array_index (recs, SchedRec, i - 1).t)
      {
        g_array_sort (recs, compare_rec);   /* a stable sort: table order among equal times */
        break;
      }
}

/* One thread's rows, in time order, into its lane (see the head of the file), going on from
 * where `st` left it; its last span ends at the table's last time. */
static void
build_lane (SchedRows   *rows,
            GArray      *recs,
            SchedThread *st,
            GArray      *out)
{
  SlSchedCarry *c = rows->carry;

  for (guint i = 0; recs != NULL && i < recs->len; i++)
    {
      const SchedRec *rec = &g_array_index (recs, SchedRec, i);
      if (rec->in)
        {
          if (st->open)
            {
              c->unpaired++;
              emit (out, rows->names, st->since, rec->t, SL_STATE_UNKNOWN, SL_NO_LINK,
                    SL_NO_LINK, 0);
            }
          else if (st->pending)
            emit (out, rows->names, st->since, rec->t, st->state, SL_NO_LINK, st->why, 0);
          st->open = TRUE;
          st->pending = FALSE;
          st->since = rec->t;
          st->cpu = rec->cpu;
        }
      else
        {
          if (st->open && rec->cpu == st->cpu)
            emit (out, rows->names, st->since, rec->t, SL_STATE_RUNNING,
                  st->cpu >= 0 ? (guint32) st->cpu : SL_NO_LINK, SL_NO_LINK, 0);
          else if (st->open || st->pending)
            {
              c->unpaired++;
              emit (out, rows->names, st->since, rec->t,
                    st->open ? SL_STATE_UNKNOWN : st->state, SL_NO_LINK,
                    st->open ? SL_NO_LINK : st->why, 0);
            }
          st->open = FALSE;
          st->state = state_after_out (rec, &st->why);
          st->pending = st->state != STATE_END;
          st->since = rec->t;
        }
      st->last = rec->t;
      st->n_rows++;
    }
  guint len = out->len;
  if (st->open)
    emit (out, rows->names, st->since, c->max_time, SL_STATE_RUNNING,
          st->cpu >= 0 ? (guint32) st->cpu : SL_NO_LINK, SL_NO_LINK, 0);
  else if (st->pending)
    emit (out, rows->names, st->since, c->max_time, st->state, SL_NO_LINK, st->why, 0);
  st->final = out->len > len;
}

/* An append: the lane of `thread` in the trace continued, less its span to the table's last
 * time (ended again by build_lane). */
static void
prime_lane (SlReader          *r,
            gint32             thread,
            const SchedThread *st,
            GArray            *out)
{
  const SlLane *lane = sl_trace_thread_state_lane (r->prev, (guint) thread);

  if (lane == NULL || (lane->events[0].aux & SL_STATE_DERIVED))
    return;
  gsize n = lane->n_events - (st->final && lane->n_events > 0 ? 1 : 0);
  g_array_append_vals (out, lane->events, (guint) n);
}

static void
sched_done (SlReader  *r,
            SlRowLoop *loop)
{
  SchedRows *rows = loop->data;
  SlSchedCarry *c = rows->carry;
  guint unnamed = 0;
  guint64 unnamed_rows = 0;

  for (guint th = 0; th < rows->per_thread->len; th++)
    {
      GArray *recs = g_ptr_array_index (rows->per_thread, th);
      if (recs == NULL)
        continue;
      sort_recs (recs);
      /* a row of a thread that comes before one read earlier: what follows it changes */
      if (th < c->threads->len)
        {
          const SchedThread *st = &g_array_index (c->threads, SchedThread, th);
          if (st->n_rows > 0 && g_array_index (recs, SchedRec, 0).t < st->last)
            {
              _sl_live_load_whole (r, "a thread's context switch was committed after later "
                                      "ones were read (SCHED_EVENTS)");
              return;
            }
        }
    }
  if (rows->per_thread->len > c->threads->len)
    g_array_set_size (c->threads, rows->per_thread->len);

  for (guint th = 0; th < c->threads->len; th++)
    {
      GArray *recs = th < rows->per_thread->len ? g_ptr_array_index (rows->per_thread, th) : NULL;
      SchedThread *st = &g_array_index (c->threads, SchedThread, th);
      if (recs == NULL && st->n_rows == 0)
        continue;
      if (st->n_rows == 0)
        *st = (SchedThread) { FALSE, FALSE, FALSE, 0, -1, SL_STATE_UNKNOWN, SL_NO_LINK, 0,
                              G_MININT64, 0 };
      const SlThread *t = &g_array_index (r->trace->threads, SlThread, th);
      GArray *out = _sl_reader_cpu_events (r, (gint32) th, SL_LANE_SCHED);
      /* an append adding to the lanes has the new spans alone (sl-trace-extend.c drops the old
       * lane's final span, which this one ends again) */
      if (rows->from != NULL && st->n_rows > 0 && !r->trace->extend)
        prime_lane (r, (gint32) th, st, out);
      build_lane (rows, recs, st, out);
      if (t->name == SL_NO_STR)
        {
          unnamed++;
          unnamed_rows += st->n_rows;
        }
      if (recs != NULL)
        {
          g_array_free (recs, TRUE);
          rows->per_thread->pdata[th] = NULL;
        }
    }
  r->sched_rows += c->rows;

  if (c->bad_flag > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " rows have no isSchedIn number and were "
                    "skipped", loop->table, c->bad_flag);
  if (c->bad_cpu > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " rows name no CPU or one outside "
                    "0…%d; their running time is kept on an unknown CPU",
                    loop->table, c->bad_cpu, SCHED_MAX_CPU);
  if (c->unpaired > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " switches do not pair (in after in, out "
                    "after out, or out on another CPU than the in); those spans are Unknown",
                    loop->table, c->unpaired);
  if (unnamed > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " rows are of %u threads ThreadNames does "
                    "not name; they are shown unnamed", loop->table, unnamed_rows, unnamed);
}

gboolean
_sl_reader_read_sched (SlReader *r,
                       GError  **error)
{
  g_autoptr (GPtrArray) per_thread = g_ptr_array_new ();
  /* an append goes on from where the trace it continues left the threads */
  SlSchedCarry *from = r->prev != NULL ? _sl_live_sched_carry (r) : NULL;
  SlSchedCarry *carry = from != NULL ? _sl_sched_carry_copy (from) : g_new0 (SlSchedCarry, 1);
  SchedRows rows = { per_thread, carry, from, { 0 } };
  SlRowLoop loop = {
    .table = "SCHED_EVENTS", .what = "thread scheduling", .times = TRUE,
    .sql = "SELECT start, start, {cpu:NULL}, {isSchedIn:NULL}, {globalTid:NULL}, "
           "{threadState:NULL}, {threadBlock:NULL} FROM SCHED_EVENTS",
    .row = sched_row, .done = sched_done, .data = &rows,
  };

  if (from == NULL)
    {
      carry->max_time = G_MININT64;
      carry->threads = g_array_new (FALSE, TRUE, sizeof (SchedThread));
    }
  state_names (r, rows.names);
  gboolean ok = _sl_reader_each_row (r, &loop, error);
  for (guint i = 0; i < per_thread->len; i++)
    if (per_thread->pdata[i] != NULL)
      g_array_free (per_thread->pdata[i], TRUE);
  if (ok)
    _sl_live_set_sched_carry (r, carry);   /* kept by a live load, else freed */
  else
    _sl_sched_carry_free (carry);
  return ok;
}

/* ---- states derived from samples and OS runtime calls ------------------------------------ */

typedef struct
{
  SlTime start, end;
} Span;

static int
compare_time (const void *a,
              const void *b)
{
  SlTime x = *(const SlTime *) a, y = *(const SlTime *) b;
  return x < y ? -1 : x > y;
}

static int
compare_span (const void *a,
              const void *b)
{
  const Span *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorts spans and merges those that overlap or touch, in place; returns how many remain. */
static guint
merge_spans (Span *s,
             guint n)
{
  if (n == 0)
    return 0;
  qsort (s, n, sizeof *s, compare_span);
  guint k = 0;
  for (guint i = 1; i < n; i++)
    if (s[i].start <= s[k].end)
      s[k].end = MAX (s[k].end, s[i].end);
    else
      s[++k] = s[i];
  return k + 1;
}

/* Times of the samples a thread was running in, sorted. */
static GArray *
running_samples (GArray *samples)
{
  GArray *t = g_array_new (FALSE, FALSE, sizeof (SlTime));
  for (guint i = 0; samples != NULL && i < samples->len; i++)
    {
      const SlEvent *ev = &g_array_index (samples, SlEvent, i);
      if (ev->corr == TS_RUNNING)
        g_array_append_val (t, ev->start);
    }
  g_array_sort (t, compare_time);
  return t;
}

/* The sampling period: the lower quartile of the gaps between a thread's consecutive samples
 * (a busy thread is sampled once a period of CPU time; an idle one less often). */
static SlTime
sampling_period (GPtrArray *times)
{
  g_autoptr (GArray) gaps = g_array_new (FALSE, FALSE, sizeof (SlTime));
  for (guint i = 0; i < times->len; i++)
    {
      GArray *t = g_ptr_array_index (times, i);
      for (guint k = 1; k < t->len; k++)
        {
          SlTime gap = g_array_index (t, SlTime, k) - g_array_index (t, SlTime, k - 1);
          if (gap > 0)
            g_array_append_val (gaps, gap);
        }
    }
  if (gaps->len == 0)
    return 1000000;   /* 1 ms, nsys's default rate, when no thread has two samples */
  g_array_sort (gaps, compare_time);
  return MAX (g_array_index (gaps, SlTime, gaps->len / 4), 1000);
}

static void
derive_thread (SlReader      *r,
               const guint32  names[SL_N_THREAD_STATES],
               gint32         thread,
               GArray        *times,
               GArray        *osrt,
               SlTime         period)
{
  guint nr = times->len, nb = osrt != NULL ? osrt->len : 0;
  g_autofree Span *run = g_new (Span, MAX (nr, 1));
  g_autofree Span *blk = g_new (Span, MAX (nb, 1));

  for (guint i = 0; i < nr; i++)
    {
      SlTime t = g_array_index (times, SlTime, i);
      run[i] = (Span) { MAX (t - period, -SL_READER_TIME_LIMIT), t };
    }
  for (guint i = 0; i < nb; i++)
    {
      const SlEvent *ev = &g_array_index (osrt, SlEvent, i);
      blk[i] = (Span) { ev->start, ev->end };
    }
  nr = merge_spans (run, nr);
  nb = merge_spans (blk, nb);
  if (nr + nb == 0)
    return;

  /* walk both sorted lists: running wins where they overlap, gaps between evidence are Unknown */
  GArray *out = _sl_reader_cpu_events (r, thread, SL_LANE_SCHED);
  SlTime at = MIN (nr > 0 ? run[0].start : G_MAXINT64, nb > 0 ? blk[0].start : G_MAXINT64);
  guint i = 0, j = 0;
  while (i < nr || j < nb)
    {
      while (j < nb && blk[j].end <= at)
        j++;
      if (i < nr && run[i].start <= at)
        {
          emit (out, names, at, run[i].end, SL_STATE_RUNNING, SL_NO_LINK, SL_NO_LINK,
                SL_STATE_DERIVED);
          at = run[i++].end;
          continue;
        }
      SlTime next_run = i < nr ? run[i].start : G_MAXINT64;
      if (j < nb && blk[j].start <= at)
        {
          SlTime end = MIN (blk[j].end, next_run);
          emit (out, names, at, end, SL_STATE_BLOCKED, SL_NO_LINK, SL_NO_LINK, SL_STATE_DERIVED);
          at = end;
          continue;
        }
      if (i >= nr && j >= nb)
        break;
      SlTime end = MIN (next_run, j < nb ? blk[j].start : G_MAXINT64);
      emit (out, names, at, end, SL_STATE_UNKNOWN, SL_NO_LINK, SL_NO_LINK, SL_STATE_DERIVED);
      at = end;
    }
}

void
_sl_reader_derive_sched (SlReader *r)
{
  g_autoptr (GPtrArray) times = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr (GArray) threads = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  GHashTableIter iter;
  gpointer key, value;
  guint32 names[SL_N_THREAD_STATES];

  if (!(r->flags & SL_LOAD_SCHED) || r->sched_rows > 0)
    return;
  g_hash_table_iter_init (&iter, r->cpu_builders);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const SlCpuKey *k = key;
      /* threads with samples: running time is what derived states add (a thread's OS runtime
       * calls alone are its OS runtime lane over again) */
      if (k->kind == SL_LANE_SAMPLES
          && !g_hash_table_contains (seen, GINT_TO_POINTER (k->thread + 1)))
        {
          g_hash_table_add (seen, GINT_TO_POINTER (k->thread + 1));
          g_array_append_val (threads, k->thread);
        }
    }
  if (threads->len == 0)
    return;
  for (guint i = 0; i < threads->len; i++)
    {
      SlCpuKey k = { SL_LANE_SAMPLES, g_array_index (threads, gint32, i) };
      g_ptr_array_add (times, running_samples (g_hash_table_lookup (r->cpu_builders, &k)));
    }
  SlTime period = sampling_period (times);
  state_names (r, names);
  for (guint i = 0; i < threads->len; i++)
    {
      SlCpuKey k = { SL_LANE_OSRT, g_array_index (threads, gint32, i) };
      derive_thread (r, names, k.thread, g_ptr_array_index (times, i),
                     g_hash_table_lookup (r->cpu_builders, &k), period);
    }
  _sl_trace_warn (r->trace, "the trace has no scheduling data (SCHED_EVENTS): thread states are "
                  "derived from CPU samples (one sampling period of %.3g ms running before each) "
                  "and OS runtime calls (blocked)", (double) period / 1e6);
}
