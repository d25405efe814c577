/* sl-trace-live.c: the live view's appends: a trace of a file still being written, continued with
 * the rows committed since it was read instead of the file read again.
 *
 * The daemon's writer (collector/daemon/sl-trace-writer.c) only ever INSERTs into the event tables
 * and commits in batches, so rowids grow with time: a load with SL_LOAD_LIVE notes, at its start,
 * the last rowid of each event table it reads by rowid (live_tables below) and reads up to there;
 * sl_trace_append() reads the rows past it.  Those tables are where a recording's millions of rows
 * are (10^5 a second at most), CPU samples and their side tables of call chains included,
 * OSRT_CALLCHAINS, and SCHED_EVENTS, whose state machine per thread spans commits (the live state
 * keeps where each thread was: SlSchedCarry), the MPI calls' four tables and the OpenMP and OpenACC
 * ones (their details, trace->mpi_calls and omp_events, the previous trace's followed by the new
 * rows'); every other table is read whole on each append: the metadata (tens of rows, and UPDATEd:
 * a thread renamed, a process exec'd), CUDA_CALLCHAINS (a CUDA call's row is UPDATEd with its
 * backtrace's id) and SAMPLING_CALLCHAINS (empty until the recording ends).
 *
 * Thread safety: the viewer keeps drawing the old trace (its frame thread, the panes' threads
 * read it) while the next is built on a loading thread, so sl_trace_append() never writes to
 * the trace it continues: it makes a new one, copies the old one's strings (in id order, so ids
 * stay), processes, threads, GPUs, kernel and copy descriptions, call chains and events into the
 * reader's tables as a fresh load would have them after reading the old rows (a CPU lane's depths
 * merged back into one sorted run per thread and kind, a GPU stream's events as they were), reads
 * the new rows after them and finishes it as any load does; the window swaps it in on the main
 * thread (app/sl-window-recording.c).  Appended rows that start before earlier ones (a CUDA call
 * committed after a later one, NVTX ranges written when they close, which is after what they
 * enclose) are sorted and merged in from where the first of them goes (_sl_events_sort), and the
 * depths of that thread's ranges follow as a fresh load would give them.
 *
 * That copy saves the SQLite reading (about 1 µs a row, most of a full reload), but is itself a
 * pass over what was loaded (tens of ns an event: the copy, then every lane's indexes, links and
 * GPU busy unions made again).  So an append first reads the new rows alone (SlTrace.extend) and
 * adds them to the previous trace's lanes, sharing their events (sl-trace-extend.c: a live trace
 * keeps room in each lane's global ids and storage for that); only where that cannot be (a new
 * thread or stream, CUDA calls committed out of order, a lane past its room) does it read them
 * again after a copy as above.  bench/bench-live.c measures both against the full reload.
 *
 * An appended trace holds what a fresh load of the file holds (tests/test-live-append.c compares
 * them at every step), numbered in the order things were met: new strings, threads, GPUs and
 * kernel or copy descriptions come after the earlier ones, where a fresh load numbers them in
 * table order (and its two loading threads intern strings in either order anyway).  Where it can
 * still differ: synchronization rows of a context whose first kernel or copy was committed after
 * them stay on the device their row names (a fresh load puts them on the kernel's); the counts of
 * a few warnings (OS calls naming a call chain the file lacks, names not UTF-8, string ids that
 * point nowhere) cover the rows of the last append, not the whole table.  What would make the
 * events read before differ is caught instead: MPI_RANKS or MPI_COMMUNICATORS changed for calls
 * read (the file loaded whole: sl-reader-mpi.c), implicit tasks of an OpenMP region read before
 * (its team: the copy corrected, sl-reader-openmp.c).
 */
#include "sl-reader-private.h"

#include <glib/gstdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <sys/stat.h>

/* The event tables read by rowid (or, for a table without one, by a key the writer numbers in
 * the order it commits); the order is irrelevant. */
static const struct
{
  const char *name;
  const char *key;
} live_tables[] = {
  { "CUPTI_ACTIVITY_KIND_RUNTIME", "rowid" },
  { "CUPTI_ACTIVITY_KIND_KERNEL", "rowid" },
  { "CUPTI_ACTIVITY_KIND_MEMCPY", "rowid" },
  { "CUPTI_ACTIVITY_KIND_MEMSET", "rowid" },
  { "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "rowid" },
  { "NVTX_EVENTS", "rowid" },
  { "OSRT_API", "rowid" },
  /* CPU samples as the daemon writes them while recording: sample ids and chain ids count up
   * from 1, a chain's frames in one commit (SAMPLING_CALLCHAINS is filled at the end, when the
   * side tables are dropped: a schema change, so a whole load) */
  { "COMPOSITE_EVENTS", "rowid" },
  { "SIGHTLINE_SAMPLE_CHAINS", "rowid" },
  { "SIGHTLINE_CHAIN_FRAMES", "chainId" },   /* WITHOUT ROWID */
  /* context switches: each thread's state machine goes on from where the last load left it
   * (sl-reader-sched.c); a switch committed before one already read loads the file whole */
  { "SCHED_EVENTS", "rowid" },
  /* OS calls' backtraces: the writer numbers chains in the order it commits them, a chain's
   * frames in one commit (the trace continued holds the ids read before: SlChainId) */
  { "OSRT_CALLCHAINS", "id" },
  /* MPI calls (sl-reader-mpi.c): their details follow the previous trace's (trace->mpi_calls),
   * the ranks and communicators that name them are read whole (a few rows a rank) and load
   * the file whole where they changed since calls were read */
  { "MPI_P2P_EVENTS", "rowid" },
  { "MPI_COLLECTIVES_EVENTS", "rowid" },
  { "MPI_START_WAIT_EVENTS", "rowid" },
  { "MPI_OTHER_EVENTS", "rowid" },
  /* OpenMP and OpenACC (sl-reader-openmp.c): details in trace->omp_events the same way; a
   * region's team counts the implicit tasks read so far (SlLiveState.omp_teams) */
  { "OPENMP_EVENT_KIND_THREAD", "rowid" },
  { "OPENMP_EVENT_KIND_PARALLEL", "rowid" },
  { "OPENMP_EVENT_KIND_SYNC_REGION_WAIT", "rowid" },
  { "OPENMP_EVENT_KIND_SYNC_REGION", "rowid" },
  { "OPENMP_EVENT_KIND_TASK", "rowid" },
  { "OPENMP_EVENT_KIND_MASTER", "rowid" },
  { "OPENMP_EVENT_KIND_REDUCTION", "rowid" },
  { "OPENMP_EVENT_KIND_TASK_CREATE", "rowid" },
  { "OPENMP_EVENT_KIND_TASK_SCHEDULE", "rowid" },
  { "OPENMP_EVENT_KIND_CANCEL", "rowid" },
  { "OPENMP_EVENT_KIND_MUTEX_WAIT", "rowid" },
  { "OPENMP_EVENT_KIND_CRITICAL_SECTION", "rowid" },
  { "OPENMP_EVENT_KIND_MUTEX_RELEASED", "rowid" },
  { "OPENMP_EVENT_KIND_LOCK_INIT", "rowid" },
  { "OPENMP_EVENT_KIND_LOCK_DESTROY", "rowid" },
  { "OPENMP_EVENT_KIND_WORKSHARE", "rowid" },
  { "OPENMP_EVENT_KIND_DISPATCH", "rowid" },
  { "OPENMP_EVENT_KIND_FLUSH", "rowid" },
  { "CUPTI_ACTIVITY_KIND_OPENACC_DATA", "rowid" },
  { "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH", "rowid" },
  { "CUPTI_ACTIVITY_KIND_OPENACC_OTHER", "rowid" },
};
#define N_LIVE_TABLES G_N_ELEMENTS (live_tables)

typedef struct
{
  gint64       first;     /* first rowid read, 0 before any */
  gint64       first_start, last_start;  /* their starts: a rowid reused after a delete is not
                                          * the row read */
  gint64       done;      /* last rowid read by the earlier loads */
  gint64       upto;      /* last rowid this load reads, noted at its start */
  guint64      rows;      /* rows read by every load so far */
  SlRowTrouble trouble;   /* and what was wrong with them */
  guint64      bad;       /* rows whose details were absurd (MPI, OpenMP: warned about) */
} LiveTable;

struct _SlLiveState
{
  SlLoadFlags flags;
  guint64     dev, ino;           /* the file read: another one in its place is loaded whole */
  gint64      schema_cookie;      /* PRAGMA schema_version: tables added, dropped, altered */
  char       *keep_from;          /* META_DATA_CAPTURE KEEP_LAST_FROM: where a flight recorder's
                                   * window starts (record --keep-last), NULL before any cut */
  LiveTable   tables[N_LIVE_TABLES];
  SlTime      nvtx_max_time;      /* latest NVTX_EVENTS timestamp read */
  guint64     nvtx_unterminated;  /* ranges read with no end */
  GHashTable *nvtx_domains;       /* the reader's NVTX domain names (rows read once) */
  GHashTable *side_chains;        /* SIGHTLINE_CHAIN_FRAMES chainId -> chain index + 1 */
  SlSchedCarry *sched;            /* where SCHED_EVENTS' threads were left */
  char       *whole;              /* why this append must be a whole load instead, or NULL */
  char       *no_extend;          /* why it must copy the previous trace, or NULL */
  GHashTable *omp_teams;          /* _sl_live_omp_teams: one entry a parallel region (10^2 …
                                   * 10^5), copied at each append */
  GHashTable *mpi_sides;          /* _sl_live_mpi_sides: a few rows a rank */
  /* a first look (sl_trace_load_progressive) that left rows unread: where the least advanced
   * table stopped, where the whole file ends, the share of the rows read */
  gboolean    look;
  SlTime      look_from, look_end;
  double      look_share;
};

/* what sl_trace_append() did in this process (tests, bench-live) */
static guint n_appended, n_reloaded, n_extended;
/* where the time of the append running on this thread goes, and of the last one */
static _Thread_local double *phases_now;
static double phases_last[SL_LIVE_N_PHASES];
G_LOCK_DEFINE_STATIC (phases);

gint64
_sl_live_phase_end (SlLivePhase phase,
                    gint64      since)
{
  gint64 now = g_get_monotonic_time ();

  if (phases_now != NULL)
    phases_now[phase] += (double) (now - since) / 1e6;
  return now;
}

void
_sl_live_get_phases (double seconds[SL_LIVE_N_PHASES])
{
  G_LOCK (phases);
  memcpy (seconds, phases_last, sizeof phases_last);
  G_UNLOCK (phases);
}

void
_sl_live_get_counts (guint *appended,
                     guint *reloaded)
{
  *appended = g_atomic_int_get (&n_appended);
  *reloaded = g_atomic_int_get (&n_reloaded);
}

guint
_sl_live_get_extended (void)
{
  return g_atomic_int_get (&n_extended);
}

void
_sl_live_state_free (SlLiveState *live)
{
  if (live == NULL)
    return;
  g_clear_pointer (&live->nvtx_domains, g_hash_table_unref);
  g_clear_pointer (&live->side_chains, g_hash_table_unref);
  g_clear_pointer (&live->sched, _sl_sched_carry_free);
  g_clear_pointer (&live->omp_teams, g_hash_table_unref);
  g_clear_pointer (&live->mpi_sides, g_hash_table_unref);
  g_free (live->whole);
  g_free (live->no_extend);
  g_free (live->keep_from);
  g_free (live);
}

SlSchedCarry *
_sl_live_sched_carry (SlReader *r)
{
  return r->trace->live != NULL ? r->trace->live->sched : NULL;
}

gboolean
_sl_live_sched_final (SlTrace *trace,
                      guint    thread)
{
  return trace->live != NULL && _sl_sched_carry_final (trace->live->sched, thread);
}

void
_sl_live_set_sched_carry (SlReader     *r,
                          SlSchedCarry *carry)
{
  if (r->trace->live == NULL)
    {
      _sl_sched_carry_free (carry);
      return;
    }
  g_clear_pointer (&r->trace->live->sched, _sl_sched_carry_free);
  r->trace->live->sched = carry;
}

void
_sl_live_load_whole (SlReader   *r,
                     const char *why)
{
  if (r->trace->live != NULL && r->trace->live->whole == NULL)
    r->trace->live->whole = g_strdup (why);
}

void
_sl_live_no_extend (SlReader   *r,
                    const char *why)
{
  if (r->trace->live != NULL && r->trace->live->no_extend == NULL)
    r->trace->live->no_extend = g_strdup (why);
}

const char *
_sl_live_why_not_extend (SlTrace *trace)
{
  return trace->live != NULL ? trace->live->no_extend : NULL;
}

GHashTable *
_sl_live_omp_teams (SlReader *r)
{
  return r->trace->live != NULL ? r->trace->live->omp_teams : NULL;
}

GHashTable *
_sl_live_mpi_sides (SlReader *r)
{
  return r->trace->live != NULL ? r->trace->live->mpi_sides : NULL;
}

static LiveTable *
live_table (SlReader   *r,
            const char *table)
{
  for (guint i = 0; i < N_LIVE_TABLES; i++)
    if (strcmp (live_tables[i].name, table) == 0)
      return &r->trace->live->tables[i];
  return NULL;
}

static gint64
query_int (sqlite3    *db,
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

static gboolean
table_exists (sqlite3    *db,
              const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM sqlite_master WHERE type = "
                                          "'table' AND name = '%s'", table);
  return query_int (db, sql) > 0;
}

/* Where the window of a flight recorder (record --keep-last) starts, as the file says: the
 * writer moves it on and deletes what ended before it, anywhere in a table; NULL before any
 * cut. */
static char *
keep_last_from (sqlite3 *db)
{
  sqlite3_stmt *stmt = NULL;
  char *v = NULL;

  if (table_exists (db, "META_DATA_CAPTURE")
      && sqlite3_prepare_v2 (db, "SELECT value FROM META_DATA_CAPTURE WHERE name = "
                             "'KEEP_LAST_FROM'", -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_text (stmt, 0) != NULL)
    v = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
  sqlite3_finalize (stmt);
  return v;
}

static gint64
last_key (sqlite3 *db,
          guint    i)
{
  g_autofree char *sql = g_strdup_printf ("SELECT max(%s) FROM \"%s\"", live_tables[i].key,
                                          live_tables[i].name);
  return table_exists (db, live_tables[i].name) ? query_int (db, sql) : 0;
}

/* What identifies the row of key `key` of live table `i`: its start (its number of rows for a
 * key that has several: a chain's frames); G_MININT64 when it is gone. */
static gint64
row_start (sqlite3 *db,
           guint    i,
           gint64   key)
{
  gboolean rowid = g_str_equal (live_tables[i].key, "rowid");
  g_autofree char *sql = g_strdup_printf ("SELECT %s FROM \"%s\" WHERE %s = %" G_GINT64_FORMAT
                                          "%s",
                                          rowid ? "coalesce(start, -9223372036854775807)"
                                                : "count(*)",
                                          live_tables[i].name, live_tables[i].key, key,
                                          rowid ? "" : " HAVING count(*) > 0");
  sqlite3_stmt *stmt = NULL;
  gint64 v = G_MININT64;

  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    v = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return v;
}

/* The latest end among the last rows of `table` (a row is written about when it ends, so the
 * file's last rows hold its end, or near enough for a first look's time axis). */
static SlTime
table_end (sqlite3    *db,
           const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT max(coalesce(end, start)) FROM (SELECT start, end "
                                          "FROM \"%s\" ORDER BY rowid DESC LIMIT 256)", table);
  return query_int (db, sql);
}

/* A first look: each event table read up to `share` of its rows (by rowid); notes where the
 * least advanced one stopped (the start of its last row read) and where the whole file ends. */
static void
first_look_cap (sqlite3     *db,
                SlLiveState *live,
                double       share)
{
  gint64 read = 0, all = 0;

  live->look_from = G_MAXINT64;
  live->look_end = G_MININT64;
  for (guint i = 0; i < N_LIVE_TABLES; i++)
    {
      LiveTable *t = &live->tables[i];
      const char *name = live_tables[i].name;
      if (g_str_equal (name, "COMPOSITE_EVENTS") || g_str_has_prefix (name, "SIGHTLINE_")
          || g_str_equal (name, "SCHED_EVENTS"))
        {
          /* CPU samples and thread states are not in a first look (load_first_look): the
           * append reads them all */
          memset (t, 0, sizeof *t);
          continue;
        }
      /* backtraces are read whole by a first look: the calls read may name any of them */
      if (t->upto <= 0 || t->first <= 0 || g_str_equal (name, "OSRT_CALLCHAINS"))
        continue;
      gint64 n = t->upto - t->first + 1;
      gint64 cap = MAX (t->first + (gint64) ((double) n * share) - 1, t->first);
      all += n;
      live->look_end = MAX (live->look_end, table_end (db, name));
      if (cap >= t->upto)
        {
          read += n;
          continue;
        }
      t->upto = cap;
      t->last_start = row_start (db, i, cap);
      read += cap - t->first + 1;
      live->look_from = MIN (live->look_from, t->last_start);
    }
  live->look = live->look_from != G_MAXINT64;
  live->look_share = all > 0 ? (double) read / (double) all : 1.0;
}

/* A copy of a table of string keys and integer values (or strings: `strings`). */
static GHashTable *
copy_str_table (GHashTable *from,
                gboolean    strings)
{
  GHashTable *to = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          strings ? g_free : NULL);
  GHashTableIter iter;
  gpointer key, value;

  if (from == NULL)
    return to;
  g_hash_table_iter_init (&iter, from);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (to, g_strdup (key), strings ? g_strdup (value) : value);
  return to;
}

/* A copy of a per-call detail array with room for the rows an append brings (an eighth more). */
static GArray *
copy_details (GArray *from)
{
  if (from == NULL)
    return NULL;
  guint elt = g_array_get_element_size (from);
  GArray *to = g_array_sized_new (FALSE, FALSE, elt, from->len + from->len / 8 + 64);
  g_array_append_vals (to, from->data, from->len);
  return to;
}

/* A copy of a table of 64-bit keys and integer values. */
static GHashTable *
copy_domains (GHashTable *from)
{
  GHashTable *to = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  GHashTableIter iter;
  gpointer key, value;

  if (from == NULL)
    return to;
  g_hash_table_iter_init (&iter, from);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (to, g_memdup2 (key, sizeof (guint64)), value);
  return to;
}

/* Room in `a` for `n` more events and the rows an append brings (an eighth more): one block
 * allocated once, not the doublings and copies of appending to a GArray, in huge pages (the
 * copy of the previous trace was 90-120 ns an event here in 4 KiB pages' first writes, 8 with
 * huge pages: bench-live --grow). */
static void
reserve (GArray *a,
         gsize   n)
{
  guint len = a->len;
  g_array_set_size (a, len + n + n / 8);
  g_array_set_size (a, len);
  _sl_huge_pages (a->data + (gsize) len * sizeof (SlEvent), (n + n / 8) * sizeof (SlEvent));
}

/* The depth lanes of one thread and kind merged back into the one sorted run the reader had
 * before it split them (split_by_depth in sl-reader.c).  Of two events that sort as equal the
 * shallower came first: the second was pushed below the first, still open at its start.  Lanes
 * are few (one per depth), so the smallest head is found by looking at each. */
void
_sl_live_merge_depths (GArray    *out,
                       GPtrArray *lanes)
{
  g_autofree gsize *at = g_new0 (gsize, lanes->len);
  gsize total = 0;

  for (guint k = 0; k < lanes->len; k++)
    total += ((const SlLane *) g_ptr_array_index (lanes, k))->n_events;
  reserve (out, total);
  g_array_set_size (out, total);
  SlEvent *o = (SlEvent *) (void *) out->data;
  for (gsize n = 0; n < total; n++)
    {
      const SlEvent *best = NULL;
      guint from = 0;
      for (guint k = 0; k < lanes->len; k++)
        {
          const SlLane *lane = g_ptr_array_index (lanes, k);
          if (at[k] < lane->n_events
              && (best == NULL || _sl_event_before (&lane->events[at[k]], best)))
            {
              best = &lane->events[at[k]];
              from = k;
            }
        }
      o[n] = *best;
      at[from]++;
    }
}

static guint
cpu_group_hash (gconstpointer p)
{
  const SlCpuKey *k = p;
  return k->thread * 31u + k->kind;
}

static gboolean
cpu_group_equal (gconstpointer a,
                 gconstpointer b)
{
  const SlCpuKey *x = a, *y = b;
  return x->thread == y->thread && x->kind == y->kind;
}

/* The previous trace as the reader's tables would hold it after reading its rows: strings first,
 * in id order (the events' ids keep their meaning), then processes, threads, GPUs, descriptions,
 * call chains and the events of every lane but the thread states (read whole again). */
static void
prime_from (SlReader *r,
            SlTrace  *prev)
{
  SlTrace *trace = r->trace;

  /* the strings: the previous trace's chunk shared, its ids' pointers copied and its interning
   * table taken over (O(strings) pointers, where interning each again hashed and copied every
   * one: Python frames' names make 10^4 … 10^5) */
  if (g_hash_table_size (prev->str_ids) == prev->strs->len)
    {
      if (prev->chunk_ref == NULL)
        prev->chunk_ref = _sl_chunk_ref_new (prev->chunk);
      g_string_chunk_free (trace->chunk);
      trace->chunk = prev->chunk;
      trace->chunk_ref = _sl_chunk_ref_ref (prev->chunk_ref);
      g_ptr_array_set_size (trace->strs, 0);
      for (guint i = 0; i < prev->strs->len; i++)
        g_ptr_array_add (trace->strs, g_ptr_array_index (prev->strs, i));
      g_hash_table_unref (trace->str_ids);
      trace->str_ids = prev->str_ids;
      prev->str_ids = g_hash_table_new (g_str_hash, g_str_equal);
      trace->str_bytes = prev->str_bytes;
    }
  else
    for (guint i = 1; i < prev->strs->len; i++)
      {
        G_GNUC_UNUSED guint32 id = _sl_trace_intern (trace, g_ptr_array_index (prev->strs, i),
                                                     -1);
        g_assert (id == i);
      }

  g_array_append_vals (trace->processes, prev->processes->data, prev->processes->len);
  for (guint i = 0; i < prev->processes->len; i++)
    g_hash_table_insert (r->processes,
                         g_memdup2 (&g_array_index (prev->processes, SlProcess, i).global_pid,
                                    sizeof (guint64)),
                         GUINT_TO_POINTER (i + 1));
  g_array_append_vals (trace->threads, prev->threads->data, prev->threads->len);
  for (guint i = 0; i < prev->threads->len; i++)
    g_hash_table_insert (r->threads,
                         g_memdup2 (&g_array_index (prev->threads, SlThread, i).global_tid,
                                    sizeof (guint64)),
                         GUINT_TO_POINTER (i + 1));
  g_array_append_vals (trace->gpus, prev->gpus->data, prev->gpus->len);
  /* the descriptions, and the sets that find them, taken over from the previous trace (it needs
   * them no more: the next append of it, if this one fails, fills new ones) */
  g_array_append_vals (trace->kernel_infos, prev->kernel_infos->data, prev->kernel_infos->len);
  g_array_append_vals (trace->copy_infos, prev->copy_infos->data, prev->copy_infos->len);
  if (prev->kernel_set != NULL && _sl_info_set_len (prev->kernel_set) == prev->kernel_infos->len
      && _sl_info_set_len (prev->copy_set) == prev->copy_infos->len)
    {
      _sl_info_set_free (r->kernel_infos);
      _sl_info_set_free (r->copy_infos);
      r->kernel_infos = g_steal_pointer (&prev->kernel_set);
      r->copy_infos = g_steal_pointer (&prev->copy_set);
    }
  else
    {
      _sl_info_set_fill (r->kernel_infos, trace->kernel_infos);
      _sl_info_set_fill (r->copy_infos, trace->copy_infos);
    }
  /* the call chains, same indices (samples and OSRT_CALLCHAINS' ids hold them) */
  g_array_set_size (trace->chain_offsets, 0);
  g_array_append_vals (trace->chain_offsets, prev->chain_offsets->data, prev->chain_offsets->len);
  g_array_append_vals (trace->chain_symbols, prev->chain_symbols->data, prev->chain_symbols->len);
  g_array_append_vals (trace->chain_modules, prev->chain_modules->data, prev->chain_modules->len);
  g_array_append_vals (trace->osrt_chains, prev->osrt_chains->data, prev->osrt_chains->len);
  if (prev->live->nvtx_domains != NULL)
    {
      g_hash_table_unref (r->nvtx_domains);
      r->nvtx_domains = copy_domains (prev->live->nvtx_domains);
    }

  /* the MPI calls' and OpenMP events' details, same indices (the events' corr), the new rows'
   * after them: 56 and 96 bytes an event copied (the old trace reads its own meanwhile) */
  g_clear_pointer (&trace->mpi_calls, g_array_unref);
  g_clear_pointer (&trace->omp_events, g_array_unref);
  trace->mpi_calls = copy_details (prev->mpi_calls);
  trace->omp_events = copy_details (prev->omp_events);

  /* an append adding to the previous trace's lanes reads the new rows' events alone */
  if (trace->extend)
    return;
  g_autoptr (GHashTable) groups = g_hash_table_new_full (cpu_group_hash, cpu_group_equal, g_free,
                                                         (GDestroyNotify) g_ptr_array_unref);
  for (guint i = 0; i < prev->lanes->len; i++)
    {
      SlLane *lane = g_ptr_array_index (prev->lanes, i);
      switch (lane->kind)
        {
        case SL_LANE_SCHED:
          break;   /* read whole again (or derived again from samples and OS calls) */
        case SL_LANE_SAMPLES:
          {
            /* their chains are the previous trace's, copied with their indices below */
            GArray *a = _sl_reader_cpu_events (r, lane->thread, SL_LANE_SAMPLES);
            reserve (a, lane->n_events);
            g_array_append_vals (a, lane->events, lane->n_events);
            break;
          }
        case SL_LANE_CUDA_API:
        case SL_LANE_NVTX:
        case SL_LANE_OSRT:
        case SL_LANE_MPI:      /* corr: their details, copied above with their indices */
        case SL_LANE_OPENMP:
        case SL_LANE_OPENACC:
          {
            SlCpuKey key = { lane->kind, lane->thread };
            GPtrArray *depths = g_hash_table_lookup (groups, &key);
            if (depths == NULL)
              {
                depths = g_ptr_array_new ();
                g_hash_table_insert (groups, g_memdup2 (&key, sizeof key), depths);
              }
            g_ptr_array_add (depths, lane);   /* in depth order: lanes are sorted */
            break;
          }
        case SL_LANE_KERNELS:
        case SL_LANE_MEMCPY:
        case SL_LANE_MEMSET:
        case SL_LANE_SYNC:
        case SL_LANE_GRAPHS:
          {
            SlGpuKey key = {
              lane->global_pid, g_array_index (prev->gpus, SlGpu, lane->gpu).device_id,
              lane->context_id, lane->stream_id, lane->green_context_id, lane->kind,
            };
            GArray *a = _sl_reader_gpu_lookup (r, &key);
            gsize from = a->len;
            reserve (a, lane->n_events);
            g_array_append_vals (a, lane->events, lane->n_events);
            /* links are global ids of the previous trace: made again once the lanes are */
            for (gsize k = from; k < a->len; k++)
              g_array_index (a, SlEvent, k).link = SL_NO_LINK;
            break;
          }
        case SL_N_LANE_KINDS:
        default:
          g_assert_not_reached ();
        }
    }
  r->last_gpu_array = NULL;

  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, groups);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const SlCpuKey *k = key;
      GArray *a = _sl_reader_cpu_events (r, k->thread, k->kind);
      _sl_live_merge_depths (a, value);
      if (k->kind == SL_LANE_CUDA_API)
        for (guint e = 0; e < a->len; e++)
          g_array_index (a, SlEvent, e).link = SL_NO_LINK;
    }
}

guint64
_sl_live_lane_room (guint64 n)
{
  return 2 * n + 4096;
}

gboolean
_sl_live_begin (SlReader *r,
                GError  **error)
{
  SlLiveState *live = g_new0 (SlLiveState, 1);
  SlTrace *prev = r->prev;
  gint64 t0 = g_get_monotonic_time ();
  struct stat st;

  (void) error;
  if (prev != NULL && prev->live != NULL)
    {
      *live = *prev->live;
      live->nvtx_domains = NULL;
      /* chain ids -> chains, shared with the previous trace (copying it cost O(chains) an
       * append): a load only adds the ids past the previous one's end, and reads every id past
       * it, so what a failed append left there is written again before any use */
      live->side_chains = g_hash_table_ref (prev->live->side_chains);
      live->sched = _sl_sched_carry_copy (prev->live->sched);
      live->whole = NULL;
      live->no_extend = NULL;
      live->omp_teams = copy_str_table (prev->live->omp_teams, FALSE);
      live->mpi_sides = copy_str_table (prev->live->mpi_sides, TRUE);
      live->keep_from = g_strdup (prev->live->keep_from);
      for (guint i = 0; i < N_LIVE_TABLES; i++)
        live->tables[i].done = live->tables[i].upto;
    }
  live->flags = r->flags;
  /* room to grow in each lane's ids, but in a first look and the whole trace after it (a big
   * file read in two steps, kept in the model cache, whose ids are dense) */
  r->trace->headroom = r->trace->first_look == 0 && (prev == NULL || prev->first_look == 0);
  if (live->side_chains == NULL)
    live->side_chains = copy_domains (NULL);
  if (live->omp_teams == NULL)
    live->omp_teams = copy_str_table (NULL, FALSE);
  if (live->mpi_sides == NULL)
    live->mpi_sides = copy_str_table (NULL, TRUE);
  r->trace->live = live;
  if (g_stat (r->trace->path, &st) == 0)
    {
      live->dev = st.st_dev;
      live->ino = st.st_ino;
    }
  live->schema_cookie = query_int (r->db, "PRAGMA schema_version");
  /* an append keeps the start append_blocker() found unchanged (in the copy above): one the
   * writer moved since is the next append's to notice; read again here, it would hide the rows
   * deleted meanwhile */
  if (prev == NULL || prev->live == NULL)
    live->keep_from = keep_last_from (r->db);
  /* the end of each table now: rows committed later wait for the next append, so that what
   * this load read of a table is exactly its rows up to there (the GPU side's own connection
   * of a fresh load sees them too: they were committed before) */
  for (guint i = 0; i < N_LIVE_TABLES; i++)
    {
      LiveTable *t = &live->tables[i];
      t->upto = MAX (last_key (r->db, i), t->done);
      if (t->first == 0 && t->upto > 0)
        {
          g_autofree char *sql = g_strdup_printf ("SELECT min(%s) FROM \"%s\"",
                                                  live_tables[i].key, live_tables[i].name);
          t->first = query_int (r->db, sql);
          t->first_start = row_start (r->db, i, t->first);
        }
      t->last_start = row_start (r->db, i, t->upto);
    }
  live->look = FALSE;
  if (prev == NULL && r->trace->first_look > 0 && r->trace->first_look < 1)
    first_look_cap (r->db, live, r->trace->first_look);
  if (prev != NULL)
    {
      prime_from (r, prev);
      _sl_live_phase_end (SL_LIVE_COPY, t0);
    }
  return TRUE;
}

char *
_sl_live_sql (SlReader   *r,
              const char *table,
              const char *sql)
{
  LiveTable *t = live_table (r, table);
  g_autofree char *from = g_strdup_printf ("FROM %s", table);
  const char *at;

  if (t == NULL)
    return NULL;
  /* every SELECT of an event table is ours and names it first where its rows are read (a join
   * may name it again: the NVTX domains of the MPI ranges, read whole) */
  at = strstr (sql, from);
  g_assert (at != NULL);
  /* SQLite flattens the subquery: one scan of the rowid range, in rowid order as before; the
   * rowid named, as a subquery's `*` leaves it out and a reader may select it (NVTX's RangeId) */
  const char *key = live_tables[t - r->trace->live->tables].key;
  const char *rest = at + strlen (from);
  /* a SELECT that names the table otherwise (the NVTX ranges of a domain "MPI": AS n) keeps
   * its own name for the subquery */
  gboolean alias = g_ascii_strncasecmp (rest, " AS ", 4) == 0;
  return g_strdup_printf ("%.*sFROM (SELECT %s* FROM %s WHERE %s > %" G_GINT64_FORMAT
                          " AND %s <= %" G_GINT64_FORMAT ")%s%s%s",
                          (int) (at - sql), sql, strcmp (key, "rowid") == 0 ? "rowid, " : "",
                          table, key, t->done, key, t->upto, alias ? "" : " AS ",
                          alias ? "" : table, rest);
}

void
_sl_live_rows_done (SlReader  *r,
                    SlRowLoop *loop,
                    guint64   *rows)
{
  LiveTable *t = live_table (r, loop->table);

  /* a SELECT of some rows (NVTX domains) is not the table's count */
  if (t == NULL || loop->some_rows)
    return;
  t->rows += *rows;
  t->trouble.null_time += loop->trouble.null_time;
  t->trouble.bad_type += loop->trouble.bad_type;
  t->trouble.bad_range += loop->trouble.bad_range;
  t->trouble.bad_order += loop->trouble.bad_order;
  t->trouble.null_owner += loop->trouble.null_owner;
  t->trouble.not_events += loop->trouble.not_events;
  loop->trouble = t->trouble;
  *rows = t->rows;
}

guint64
_sl_live_bad_details (SlReader   *r,
                      const char *table,
                      guint64     bad)
{
  LiveTable *t = r->trace->live != NULL ? live_table (r, table) : NULL;

  if (t == NULL)
    return bad;
  t->bad += bad;
  return t->bad;
}

GHashTable *
_sl_live_side_chains (SlReader *r)
{
  return r->trace->live->side_chains;
}

SlTime
_sl_live_nvtx_max_time (SlReader *r)
{
  return r->prev != NULL ? r->trace->live->nvtx_max_time : G_MININT64;
}

void
_sl_live_set_nvtx (SlReader *r,
                   SlTime    max_time,
                   guint64   unterminated)
{
  r->trace->live->nvtx_max_time = max_time;
  r->trace->live->nvtx_unterminated = unterminated;
}

void
_sl_live_end (SlReader *r)
{
  SlLiveState *live = r->trace->live;

  g_clear_pointer (&live->nvtx_domains, g_hash_table_unref);
  live->nvtx_domains = copy_domains (r->nvtx_domains);
}

/* Why the file cannot be appended to `trace` (newly allocated), or NULL when it can. */
static char *
append_blocker (sqlite3 *db,
                SlTrace *trace)
{
  const SlLiveState *live = trace->live;
  struct stat st;

  if (live == NULL)
    return g_strdup ("the trace was not loaded live");
  if (g_stat (trace->path, &st) != 0 || (guint64) st.st_dev != live->dev
      || (guint64) st.st_ino != live->ino)
    return g_strdup ("another file is in its place");
  if (query_int (db, "PRAGMA schema_version") != live->schema_cookie)
    return g_strdup ("its schema changed (a table added, dropped or altered)");
  g_autofree char *keep_from = keep_last_from (db);
  if (g_strcmp0 (keep_from, live->keep_from) != 0)
    return g_strdup ("its flight recorder dropped the events before a later start "
                     "(record --keep-last)");
  for (guint i = 0; i < N_LIVE_TABLES; i++)
    {
      /* the first and last rows read are still there, as they were (rows are only appended;
       * SQLite gives the rowid of a deleted last row to the next one); a row deleted between
       * them would go unnoticed (counting costs a scan of the table): the writer never does */
      const LiveTable *t = &live->tables[i];
      if (t->upto > 0 && (row_start (db, i, t->first) != t->first_start
                          || row_start (db, i, t->upto) != t->last_start))
        return g_strdup_printf ("rows of %s were deleted", live_tables[i].name);
    }
  if (live->nvtx_unterminated > 0)
    return g_strdup ("NVTX ranges read were never closed (their end moves with the file's)");
  return NULL;
}

static SlTrace *
append (SlTrace        *trace,
        SlProgressFunc  progress,
        gpointer        user_data,
        GCancellable   *cancellable,
        GError        **error)
{
  g_autofree char *why = NULL;
  SlLoadFlags flags;
  sqlite3 *db;

  g_return_val_if_fail (trace != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  flags = trace->live != NULL ? trace->live->flags : SL_LOAD_ALL | SL_LOAD_LIVE;
  if (trace->live == NULL)
    why = g_strdup ("the trace was not loaded live");
  else
    {
      db = _sl_trace_open_db (trace->path, TRUE, error);
      if (db == NULL)
        return NULL;
      why = append_blocker (db, trace);
      /* first adding to the previous trace's lanes; where that cannot be, copying them */
      gboolean extend = trace->headroom && trace->corr_maps != NULL
                        && g_getenv ("SIGHTLINE_APPEND_COPY") == NULL;
      for (guint attempt = 0; why == NULL && attempt < 2; attempt++, extend = FALSE)
        {
          double phases[SL_LIVE_N_PHASES] = { 0 };
          phases_now = phases;
          g_autoptr (SlTrace) next = _sl_trace_new (trace->path);
          next->extend = extend;
          gboolean ok = _sl_reader_read (next, db, flags, trace, progress, user_data, cancellable,
                                         error);
          if (!ok)
            {
              phases_now = NULL;
              sqlite3_close (db);
              if (error != NULL && *error != NULL && (*error)->domain != SL_TRACE_ERROR)
                g_prefix_error (error, "%s: ", trace->path);
              return NULL;
            }
          /* what the rows read said cannot be gone on from (the reader's _sl_live_load_whole) */
          if (next->live->whole != NULL)
            {
              why = g_strdup (next->live->whole);
              phases_now = NULL;
              break;
            }
          g_autofree char *no = NULL;
          if (extend && !_sl_trace_extend (next, trace, &no))
            {
              g_debug ("%s: appended by copy: %s", trace->path, no);
              phases_now = NULL;
              continue;
            }
          ok = extend || _sl_trace_finish (next, error);
          phases_now = NULL;
          sqlite3_close (db);
          if (!ok)
            return NULL;
          G_LOCK (phases);
          memcpy (phases_last, phases, sizeof phases);
          G_UNLOCK (phases);
          g_atomic_int_inc (&n_appended);
          if (extend)
            g_atomic_int_inc (&n_extended);
          return g_steal_pointer (&next);
        }
      sqlite3_close (db);
    }
  g_debug ("%s: loaded whole, not appended: %s", trace->path, why);
  g_atomic_int_inc (&n_reloaded);
  return _sl_trace_load_file (trace->path, flags | SL_LOAD_LIVE, FALSE, progress, user_data,
                              cancellable, error);
}

SlTrace *
sl_trace_append (SlTrace       *trace,
                 GCancellable  *cancellable,
                 GError       **error)
{
  return append (trace, NULL, NULL, cancellable, error);
}

/* ---- a first look at a big file ------------------------------------------------------------ */

/* The progress of a first look (its share of the work: about as much as its share of the rows
 * and the tables it reads whole) and of the rest after it, as one bar. */
typedef struct
{
  SlProgressFunc progress;
  gpointer       user_data;
  double         from, width;
} LookProgress;

static void
look_progress_cb (double      fraction,
                  const char *what,
                  gpointer    data)
{
  const LookProgress *p = data;

  if (p->progress != NULL)
    p->progress (p->from + p->width * fraction, what, p->user_data);
}

/* The first `share` of the file's rows, read live (the rest can be appended), marked as loading
 * when rows were left.  Without the CPU samples and thread states: their tables are read whole
 * by every append (their chains and state machines span commits), and a sampled trace's call
 * chains are a third of its rows (10 M generated events: 4 M rows of SAMPLING_CALLCHAINS), so
 * they come with the whole trace. */
static SlTrace *
load_first_look (const char     *path,
                 double          share,
                 SlProgressFunc  progress,
                 gpointer        user_data,
                 GCancellable   *cancellable,
                 GError        **error)
{
  g_autoptr (SlTrace) trace = NULL;
  sqlite3 *db = _sl_trace_open_db (path, TRUE, error);

  if (db == NULL)
    return NULL;
  trace = _sl_trace_new (path);
  trace->first_look = share;
  gboolean ok = _sl_reader_read (trace, db,
                                 (SL_LOAD_ALL & ~(SL_LOAD_SAMPLES | SL_LOAD_SCHED)) | SL_LOAD_LIVE,
                                 NULL, progress, user_data, cancellable, error);
  sqlite3_close (db);
  if (!ok)
    {
      if (error != NULL && *error != NULL && (*error)->domain != SL_TRACE_ERROR)
        g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  if (!_sl_trace_finish (trace, error))
    return NULL;
  /* what the append reads: everything */
  trace->live->flags = SL_LOAD_ALL | SL_LOAD_LIVE;
  if (trace->live->look)
    _sl_trace_set_loading (trace, trace->live->look_from, trace->live->look_end,
                           trace->live->look_share);
  return g_steal_pointer (&trace);
}

SlTrace *
sl_trace_load_progressive (const char      *path,
                           SlFirstLookFunc  first_look,
                           SlProgressFunc   progress,
                           gpointer         user_data,
                           GCancellable    *cancellable,
                           GError         **error)
{
  const char *env = g_getenv ("SIGHTLINE_FIRST_LOOK_MIN");
  guint64 min = env != NULL ? g_ascii_strtoull (env, NULL, 10) : 128u << 20;
  SlCacheKey key = { 0 };
  SlTrace *trace;
  struct stat st;

  g_return_val_if_fail (path != NULL, NULL);
  if (first_look == NULL || g_stat (path, &st) != 0 || !S_ISREG (st.st_mode)
      || (guint64) st.st_size < min || sl_trace_file_is_json (path))
    return sl_trace_load (path, SL_LOAD_ALL, progress, user_data, cancellable, error);
  if (!g_cancellable_is_cancelled (cancellable) && (trace = _sl_trace_cache_load (path, &key)) != NULL)
    {
      _sl_cache_key_clear (&key);
      if (progress != NULL)
        progress (1.0, "done", user_data);
      return trace;
    }

  gint64 t0 = g_get_monotonic_time ();
  LookProgress p = { progress, user_data, 0, 0.1 };
  g_autoptr (SlTrace) first = load_first_look (path, SL_FIRST_LOOK_SHARE, look_progress_cb, &p,
                                               cancellable, error);
  if (first == NULL)
    {
      _sl_cache_key_clear (&key);
      return NULL;
    }
  if (!first->loading)
    {
      /* every table was small enough to be read whole */
      first->first_look = 0;
      _sl_trace_cache_store (first, &key, g_get_monotonic_time () - t0);
      _sl_cache_key_clear (&key);
      return g_steal_pointer (&first);
    }
  first_look (first, user_data);
  p = (LookProgress) { progress, user_data, 0.1, 0.9 };
  trace = append (first, look_progress_cb, &p, cancellable, error);
  g_clear_pointer (&first, sl_trace_unref);
  if (trace != NULL)
    {
#ifdef __GLIBC__
      malloc_trim (0);   /* the first look's copy, and the loading's tables (sl_trace_load) */
#endif
      _sl_trace_cache_store (trace, &key, g_get_monotonic_time () - t0);
    }
  _sl_cache_key_clear (&key);
  return trace;
}
