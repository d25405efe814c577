/* sl-reader-mpi.c: MPI calls (nsys -t mpi) into a thread's MPI lanes (SL_LANE_MPI): the four
 * tables MPI_P2P_EVENTS, MPI_COLLECTIVES_EVENTS, MPI_START_WAIT_EVENTS and MPI_OTHER_EVENTS with
 * their details (sl-mpi.h's SlMpiCall, in trace->mpi_calls), the caller's rank from MPI_RANKS and
 * job-wide communicators from MPI_COMMUNICATORS; and the NVTX ranges of a domain named "MPI"
 * (MPI wrappers of older setups) as MPI calls without details.  Every table is optional; a job
 * makes 10^2 … 10^6 calls a rank. */
#include "sl-mpi.h"
#include "sl-reader-private.h"

#include <string.h>

/* A communicator of one rank: MPI_COMMUNICATORS' (rank, commHandle) -> commUid, localRank. */
typedef struct
{
  gint64 uid;
  gint32 local_rank;
  gboolean has_local;
} MpiComm;

typedef struct
{
  SlMpiSource  source;
  GHashTable  *tid_rank;   /* globalTid -> rank + 1 (gint64 keys) */
  GHashTable  *pid_rank;   /* globalPid -> rank + 1 */
  GHashTable  *comms;      /* "rank:handle" -> MpiComm */
  GHashTable  *dirs;       /* name string id -> SlMpiDir + 1 */
  guint64      bad;        /* rows whose details are absurd (a rank past 2^31 …): kept, details
                            * dropped */
} MpiRows;

static guint
int64_hash (gconstpointer p)
{
  return g_int64_hash (p);
}

/* Whether the side tables as read now (`now`: "t:globalTid", "p:globalPid" -> rank, "c:rank:handle"
 * -> "uid:localRank") give a call of the previous trace other details than it has: a row
 * changed or gone, a thread's or process's first rank where it made calls, a communicator its
 * calls named by their own handle.  A live append reads them whole (a few rows a rank) and
 * compares; a thread's first calls bring its rank row, a new communicator its row, before any
 * call that names them (the daemon's writer), so appends go on. */
static gboolean
sides_changed (SlReader   *r,
               GHashTable *before,
               GHashTable *now)
{
  SlTrace *prev = r->prev;
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (now, key))
      return TRUE;
  g_hash_table_iter_init (&iter, now);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *k = key, *old = g_hash_table_lookup (before, k);
      if (old != NULL)
        {
          if (strcmp (old, value) != 0)
            return TRUE;
          continue;
        }
      gint64 a = g_ascii_strtoll (k + 2, NULL, 10);
      if (k[0] == 'c')
        {
          /* calls of that rank that kept the handle as their communicator */
          gint64 handle = g_ascii_strtoll (strchr (k + 2, ':') + 1, NULL, 10);
          for (guint i = 0; i < prev->mpi_calls->len; i++)
            {
              const SlMpiCall *c = &g_array_index (prev->mpi_calls, SlMpiCall, i);
              if ((c->flags & SL_MPI_HAS_COMM) && (c->flags & SL_MPI_HAS_RANK) && c->rank == a
                  && c->comm == handle)
                return TRUE;
            }
          continue;
        }
      for (guint i = 0; i < prev->lanes->len; i++)
        {
          const SlLane *lane = g_ptr_array_index (prev->lanes, i);
          if (lane->kind != SL_LANE_MPI || lane->n_events == 0 || lane->thread < 0)
            continue;
          guint64 tid = g_array_index (prev->threads, SlThread, lane->thread).global_tid;
          if (k[0] == 't' ? tid == (guint64) a : GPID_OF (tid) == (guint64) a)
            return TRUE;
        }
    }
  return FALSE;
}

/* The small side tables, read again for each MPI table (a few rows a rank); a live append loads
 * the file whole where they changed since calls were read. */
static void
read_side_tables (SlReader *r,
                  MpiRows  *rows)
{
  sqlite3_stmt *stmt = NULL;
  GHashTable *live = _sl_live_mpi_sides (r);
  g_autoptr (GHashTable) now = live != NULL ? g_hash_table_new_full (g_str_hash, g_str_equal,
                                                                     g_free, g_free)
                                            : NULL;

  rows->tid_rank = g_hash_table_new_full (int64_hash, g_int64_equal, g_free, NULL);
  rows->pid_rank = g_hash_table_new_full (int64_hash, g_int64_equal, g_free, NULL);
  rows->comms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  rows->dirs = g_hash_table_new (NULL, NULL);
  if (_sl_reader_table_exists (r, "MPI_RANKS")
      && _sl_reader_has_column (r, "MPI_RANKS", "globalTid")
      && _sl_reader_has_column (r, "MPI_RANKS", "rank")
      && sqlite3_prepare_v2 (r->db, "SELECT globalTid, rank FROM MPI_RANKS", -1, &stmt, NULL)
         == SQLITE_OK)
    {
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          if (sqlite3_column_type (stmt, 0) != SQLITE_INTEGER
              || sqlite3_column_type (stmt, 1) != SQLITE_INTEGER)
            continue;
          gint64 tid = sqlite3_column_int64 (stmt, 0), rank = sqlite3_column_int64 (stmt, 1);
          if (rank < 0 || rank >= G_MAXINT32)
            continue;
          gint64 pid = (gint64) GPID_OF ((guint64) tid);
          if (now != NULL)
            {
              g_hash_table_replace (now, g_strdup_printf ("t:%" G_GINT64_FORMAT, tid),
                                    g_strdup_printf ("%" G_GINT64_FORMAT, rank));
              g_hash_table_replace (now, g_strdup_printf ("p:%" G_GINT64_FORMAT, pid),
                                    g_strdup_printf ("%" G_GINT64_FORMAT, rank));
            }
          g_hash_table_replace (rows->tid_rank, g_memdup2 (&tid, sizeof tid),
                                GINT_TO_POINTER ((gint) rank + 1));
          g_hash_table_replace (rows->pid_rank, g_memdup2 (&pid, sizeof pid),
                                GINT_TO_POINTER ((gint) rank + 1));
        }
    }
  sqlite3_finalize (stmt);
  stmt = NULL;
  if (_sl_reader_table_exists (r, "MPI_COMMUNICATORS")
      && _sl_reader_has_column (r, "MPI_COMMUNICATORS", "rank")
      && _sl_reader_has_column (r, "MPI_COMMUNICATORS", "commHandle")
      && _sl_reader_has_column (r, "MPI_COMMUNICATORS", "commUid")
      && _sl_reader_has_column (r, "MPI_COMMUNICATORS", "localRank")
      && sqlite3_prepare_v2 (r->db, "SELECT rank, commHandle, commUid, localRank "
                                    "FROM MPI_COMMUNICATORS", -1, &stmt, NULL) == SQLITE_OK)
    {
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          if (sqlite3_column_type (stmt, 0) != SQLITE_INTEGER
              || sqlite3_column_type (stmt, 1) != SQLITE_INTEGER
              || sqlite3_column_type (stmt, 2) != SQLITE_INTEGER)
            continue;
          MpiComm *c = g_new0 (MpiComm, 1);
          gint64 local = sqlite3_column_int64 (stmt, 3);
          c->uid = sqlite3_column_int64 (stmt, 2);
          c->has_local = sqlite3_column_type (stmt, 3) == SQLITE_INTEGER && local >= 0
                         && local < G_MAXINT32;
          c->local_rank = c->has_local ? (gint32) local : -1;
          char *key = g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                                       (gint64) sqlite3_column_int64 (stmt, 0),
                                       (gint64) sqlite3_column_int64 (stmt, 1));
          if (now != NULL)
            g_hash_table_replace (now, g_strconcat ("c:", key, NULL),
                                  g_strdup_printf ("%" G_GINT64_FORMAT ":%d", c->uid,
                                                   c->local_rank));
          g_hash_table_replace (rows->comms, key, c);
        }
    }
  sqlite3_finalize (stmt);
  if (live == NULL)
    return;
  /* the first read of this load compares with the previous trace's, the others find the same */
  if (r->prev != NULL && r->prev->mpi_calls != NULL && r->prev->mpi_calls->len > 0
      && sides_changed (r, live, now))
    _sl_live_load_whole (r, "MPI_RANKS or MPI_COMMUNICATORS changed for MPI calls read before");
  g_hash_table_remove_all (live);
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, now);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_hash_table_iter_steal (&iter);
      g_hash_table_insert (live, key, value);
    }
}

static void
clear_side_tables (MpiRows *rows)
{
  g_hash_table_unref (rows->tid_rank);
  g_hash_table_unref (rows->pid_rank);
  g_hash_table_unref (rows->comms);
  g_hash_table_unref (rows->dirs);
}

static void
mpi_done (SlReader  *r,
          SlRowLoop *loop)
{
  MpiRows *rows = loop->data;
  /* a live load's count is the table's so far, as a fresh load counts */
  guint64 bad = _sl_live_bad_details (r, loop->table, rows->bad);

  if (bad > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " rows hold a rank, tag or size that no "
                              "MPI call can have; those details were left out",
                    loop->table, bad);
}

/* An int column into a gint32 field: FALSE when NULL, past 32 bits (counted) or not a number. */
static gboolean
col_i32 (sqlite3_stmt *stmt,
         int           col,
         gint32       *out,
         MpiRows      *rows)
{
  gint64 v;

  if (!_sl_reader_col_int (stmt, col, G_MININT32, G_MAXINT32, &v, &rows->bad))
    return FALSE;
  *out = (gint32) v;
  return TRUE;
}

static SlMpiDir
dir_of_name (const char *name)
{
  g_autofree char *low = g_ascii_strdown (name != NULL ? name : "", -1);
  gboolean send = strstr (low, "send") != NULL, recv = strstr (low, "recv") != NULL;

  if (send && recv)
    return SL_MPI_DIR_BOTH;
  return send ? SL_MPI_DIR_SEND : recv ? SL_MPI_DIR_RECV : SL_MPI_DIR_NONE;
}

/* The direction of the calls named `name`, looked up once a name: the other loading thread may
 * add strings meanwhile, so the table of strings is read under the trace's lock. */
static SlMpiDir
name_dir (SlReader *r,
          MpiRows  *rows,
          guint32   name)
{
  gpointer found = g_hash_table_lookup (rows->dirs, GUINT_TO_POINTER (name));
  if (found != NULL)
    return (SlMpiDir) (GPOINTER_TO_UINT (found) - 1);
  g_mutex_lock (&r->trace->lock);
  SlMpiDir dir = dir_of_name (sl_trace_str (r->trace, name));
  g_mutex_unlock (&r->trace->lock);
  g_hash_table_insert (rows->dirs, GUINT_TO_POINTER (name), GUINT_TO_POINTER (dir + 1));
  return dir;
}

/* Appends the call and its event to the thread's MPI lane. */
static void
add_call (SlReader    *r,
          gint32       thread,
          SlEvent     *ev,
          SlMpiCall   *call,
          SlMpiDir     dir,
          SlMpiSource  source)
{
  SlTrace *trace = r->trace;

  if (trace->mpi_calls == NULL)
    trace->mpi_calls = g_array_new (FALSE, FALSE, sizeof (SlMpiCall));
  if (trace->mpi_calls->len >= G_MAXUINT32 - 1)
    return;
  ev->corr = trace->mpi_calls->len;
  ev->link = SL_NO_LINK;
  ev->aux = (guint32) source | ((guint32) dir << 8);
  g_array_append_val (trace->mpi_calls, *call);
  GArray *a = _sl_reader_cpu_events (r, thread, SL_LANE_MPI);
  g_array_append_val (a, *ev);
}

/* The rank of the calling thread, from MPI_RANKS (the thread, else its process). */
static void
fill_rank (MpiRows   *rows,
           gint64     global_tid,
           SlMpiCall *call)
{
  gint64 pid = (gint64) GPID_OF ((guint64) global_tid);
  gint rank1 = GPOINTER_TO_INT (g_hash_table_lookup (rows->tid_rank, &global_tid));

  if (rank1 == 0)
    {
      rank1 = GPOINTER_TO_INT (g_hash_table_lookup (rows->pid_rank, &pid));
      if (rank1 > 0)
        call->flags |= SL_MPI_RANK_OF_PROCESS;
    }
  call->rank = call->local_rank = rank1 - 1;
  if (rank1 > 0)
    call->flags |= SL_MPI_HAS_RANK;
}

/* The communicator handle in column `col`, made job-wide through MPI_COMMUNICATORS. */
static void
fill_comm (MpiRows      *rows,
           sqlite3_stmt *stmt,
           int           col,
           SlMpiCall    *call)
{
  if (sqlite3_column_type (stmt, col) != SQLITE_INTEGER)
    return;
  gint64 handle = sqlite3_column_int64 (stmt, col);
  char key[48];
  g_snprintf (key, sizeof key, "%d:%" G_GINT64_FORMAT, call->rank, handle);
  const MpiComm *c = (call->flags & SL_MPI_HAS_RANK) ? g_hash_table_lookup (rows->comms, key)
                                                     : NULL;
  call->comm = c != NULL ? c->uid : handle;
  if (c != NULL && c->has_local)
    call->local_rank = c->local_rank;
  call->flags |= SL_MPI_HAS_COMM;
}

/* Columns: start, end, globalTid, textId, then the table's own (see the SELECTs below). */
static void
mpi_row (SlReader     *r,
         sqlite3_stmt *stmt,
         SlEvent      *ev,
         SlRowLoop    *loop)
{
  MpiRows *rows = loop->data;
  SlMpiCall call;
  SlMpiDir dir = SL_MPI_DIR_NONE;

  gint32 thread = _sl_reader_row_thread (r, stmt, 2, &loop->trouble);
  if (thread < 0)
    return;
  memset (&call, 0, sizeof call);
  call.peer = call.tag = call.root = -1;
  fill_rank (rows, sqlite3_column_int64 (stmt, 2), &call);
  ev->name = _sl_reader_col_str (r, stmt, 3);
  switch (rows->source)
    {
    case SL_MPI_P2P:
      /* commHandle, tag, remoteRank, size, requestHandle */
      fill_comm (rows, stmt, 4, &call);
      if (col_i32 (stmt, 5, &call.tag, rows))
        call.flags |= SL_MPI_HAS_TAG;
      if (col_i32 (stmt, 6, &call.peer, rows))
        call.flags |= SL_MPI_HAS_PEER;
      if (_sl_reader_col_int (stmt, 7, 0, G_MAXINT64, &call.size, &rows->bad))
        call.flags |= SL_MPI_HAS_SIZE;
      if (sqlite3_column_type (stmt, 8) == SQLITE_INTEGER)
        {
          call.request = sqlite3_column_int64 (stmt, 8);
          call.flags |= SL_MPI_HAS_REQUEST;
        }
      dir = name_dir (r, rows, ev->name);
      break;
    case SL_MPI_COLLECTIVE:
      /* commHandle, rootRank, size, recvSize, requestHandle */
      fill_comm (rows, stmt, 4, &call);
      if (col_i32 (stmt, 5, &call.root, rows))
        call.flags |= SL_MPI_HAS_ROOT;
      if (_sl_reader_col_int (stmt, 6, 0, G_MAXINT64, &call.size, &rows->bad))
        call.flags |= SL_MPI_HAS_SIZE;
      if (_sl_reader_col_int (stmt, 7, 0, G_MAXINT64, &call.recv_size, &rows->bad))
        call.flags |= SL_MPI_HAS_RECV_SIZE;
      if (sqlite3_column_type (stmt, 8) == SQLITE_INTEGER)
        {
          call.request = sqlite3_column_int64 (stmt, 8);
          call.flags |= SL_MPI_HAS_REQUEST;
        }
      break;
    case SL_MPI_START_WAIT:
      /* requestHandle */
      if (sqlite3_column_type (stmt, 4) == SQLITE_INTEGER)
        {
          call.request = sqlite3_column_int64 (stmt, 4);
          call.flags |= SL_MPI_HAS_REQUEST;
        }
      break;
    case SL_MPI_OTHER:
    case SL_MPI_NVTX:
    case SL_MPI_N_SOURCES:
      break;
    }
  add_call (r, thread, ev, &call, dir, rows->source);
}

static gboolean
read_table (SlReader    *r,
            const char  *table,
            const char  *sql,
            SlMpiSource  source,
            GError     **error)
{
  MpiRows rows = { .source = source };
  SlRowLoop loop = {
    .table = table, .what = NULL, .times = TRUE, .sql = sql,
    .row = mpi_row, .done = mpi_done, .data = &rows,
  };

  if (!_sl_reader_has_column (r, table, "start") || !_sl_reader_has_column (r, table, "end")
      || !_sl_reader_has_column (r, table, "globalTid"))
    {
      _sl_reader_not_read (r, table, "it lacks start, end or globalTid");
      return TRUE;
    }
  read_side_tables (r, &rows);
  gboolean ok = _sl_reader_each_row (r, &loop, error);
  clear_side_tables (&rows);
  return ok;
}

gboolean
_sl_reader_read_mpi_p2p (SlReader *r,
                         GError  **error)
{
  return read_table (r, "MPI_P2P_EVENTS",
                     "SELECT start, end, globalTid, {textId:NULL}, {commHandle:NULL}, {tag:NULL}, "
                     "{remoteRank:NULL}, {size:NULL}, {requestHandle:NULL} FROM MPI_P2P_EVENTS",
                     SL_MPI_P2P, error);
}

gboolean
_sl_reader_read_mpi_coll (SlReader *r,
                          GError  **error)
{
  return read_table (r, "MPI_COLLECTIVES_EVENTS",
                     "SELECT start, end, globalTid, {textId:NULL}, {commHandle:NULL}, "
                     "{rootRank:NULL}, {size:NULL}, {recvSize:NULL}, {requestHandle:NULL} "
                     "FROM MPI_COLLECTIVES_EVENTS",
                     SL_MPI_COLLECTIVE, error);
}

gboolean
_sl_reader_read_mpi_wait (SlReader *r,
                          GError  **error)
{
  return read_table (r, "MPI_START_WAIT_EVENTS",
                     "SELECT start, end, globalTid, {textId:NULL}, {requestHandle:NULL} "
                     "FROM MPI_START_WAIT_EVENTS",
                     SL_MPI_START_WAIT, error);
}

gboolean
_sl_reader_read_mpi_other (SlReader *r,
                           GError  **error)
{
  return read_table (r, "MPI_OTHER_EVENTS",
                     "SELECT start, end, globalTid, {textId:NULL} FROM MPI_OTHER_EVENTS",
                     SL_MPI_OTHER, error);
}

/* ---- NVTX ranges of the domain "MPI" ------------------------------------------------------ */

/* Columns: start, end, globalTid, the range's text. */
static void
nvtx_mpi_row (SlReader     *r,
              sqlite3_stmt *stmt,
              SlEvent      *ev,
              SlRowLoop    *loop)
{
  MpiRows *rows = loop->data;
  SlMpiCall call;

  gint32 thread = _sl_reader_row_thread (r, stmt, 2, &loop->trouble);
  if (thread < 0)
    return;
  memset (&call, 0, sizeof call);
  call.peer = call.tag = call.root = -1;
  fill_rank (rows, sqlite3_column_int64 (stmt, 2), &call);
  ev->name = _sl_reader_col_text (r, stmt, 3);
  add_call (r, thread, ev, &call, name_dir (r, rows, ev->name), SL_MPI_NVTX);
}

/* The push/pop (59) and start/end (60) ranges whose domain (an eventType 75 row of the same
 * process and domainId) is named "MPI": as nsys names a domain, StringIds' text of its textId,
 * else its text. */
gboolean
_sl_reader_read_mpi_nvtx (SlReader *r,
                          GError  **error)
{
  static const char *const need[] = { "start", "end", "globalTid", "eventType", "domainId",
                                      "text", "textId" };
  MpiRows rows = { .source = SL_MPI_NVTX };
  SlRowLoop loop = {
    .table = "NVTX_EVENTS", .what = NULL, .times = TRUE, .some_rows = TRUE,
    .sql = "SELECT n.start, n.end, n.globalTid, coalesce(s.value, n.text) "
           "FROM NVTX_EVENTS AS n "
           "JOIN (SELECT DISTINCT d.domainId AS domainId, "
           "             d.globalTid & 0x0000FFFFFF000000 AS pid "
           "      FROM NVTX_EVENTS AS d LEFT JOIN StringIds AS ds ON ds.id = d.textId "
           "      WHERE d.eventType = 75 AND coalesce(ds.value, d.text) = 'MPI') AS m "
           "  ON m.domainId = n.domainId AND m.pid = (n.globalTid & 0x0000FFFFFF000000) "
           "LEFT JOIN StringIds AS s ON s.id = n.textId "
           "WHERE n.eventType IN (59, 60) AND n.end IS NOT NULL",
    .row = nvtx_mpi_row, .data = &rows,
  };

  for (guint i = 0; i < G_N_ELEMENTS (need); i++)
    if (!_sl_reader_has_column (r, "NVTX_EVENTS", need[i]))
      return TRUE;
  if (!_sl_reader_table_exists (r, "StringIds"))
    return TRUE;
  /* the NVTX step before this one named the domains (r->nvtx_domains): most traces have no
   * domain "MPI", and then NVTX_EVENTS is not read a second time */
  GHashTableIter iter;
  gpointer value;
  gboolean any = FALSE;
  g_hash_table_iter_init (&iter, r->nvtx_domains);
  while (!any && g_hash_table_iter_next (&iter, NULL, &value))
    any = g_strcmp0 (sl_trace_str (r->trace, GPOINTER_TO_UINT (value)), "MPI") == 0;
  if (!any)
    return TRUE;
  read_side_tables (r, &rows);
  gboolean ok = _sl_reader_each_row (r, &loop, error);
  clear_side_tables (&rows);
  return ok;
}
