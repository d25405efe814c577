/* sl-reader-host.c: the host-side tables: NVTX ranges and marks, OS runtime calls with their
 * backtraces (OSRT_API, OSRT_CALLCHAINS), and CPU samples with their call chains
 * (COMPOSITE_EVENTS, SAMPLING_CALLCHAINS).
 */
#include "sl-reader-private.h"

/* ---- NVTX -------------------------------------------------------------------------------- */

/* NVTX event types (ENUM_NSYS_EVENT_TYPE) */
#define NVTX_MARK          34
#define NVTX_PUSH_POP      59
#define NVTX_START_END     60
#define NVTXT_PUSH_POP     70
#define NVTXT_START_END    71
#define NVTX_DOMAIN_CREATE 75

static guint64
domain_key (guint64 global_tid,
            gint64  domain)
{
  return (PID_OF (global_tid) << 40) ^ (guint64) (domain & 0xFFFFFFFFFF);
}

static void
nvtx_domain_row (SlReader     *r,
                 sqlite3_stmt *stmt,
                 SlEvent      *ev G_GNUC_UNUSED,
                 SlRowLoop    *loop G_GNUC_UNUSED)
{
  guint64 key = domain_key ((guint64) sqlite3_column_int64 (stmt, 0),
                            sqlite3_column_int64 (stmt, 1));
  guint32 name = _sl_reader_col_str (r, stmt, 2);
  if (name == SL_NO_STR)
    name = _sl_reader_col_text (r, stmt, 3);
  g_hash_table_insert (r->nvtx_domains, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (name));
}

typedef struct
{
  SlTime     max_time;     /* the table's last timestamp, where open ranges end */
  GPtrArray *open_ended;   /* (GArray *, index) pairs of the ranges never closed */
  guint64    unterminated;
} NvtxRows;

static void
nvtx_row (SlReader     *r,
          sqlite3_stmt *stmt,
          SlEvent      *ev,
          SlRowLoop    *loop)
{
  NvtxRows *rows = loop->data;

  /* every row's times count towards the last timestamp, ranges or not */
  for (int col = 0; col < 2; col++)
    if (sqlite3_column_type (stmt, col) != SQLITE_NULL)
      rows->max_time = MAX (rows->max_time, CLAMP (sqlite3_column_int64 (stmt, col),
                                                   -SL_READER_TIME_LIMIT, SL_READER_TIME_LIMIT));

  gint64 type = sqlite3_column_int64 (stmt, 2);
  guint32 flags;
  switch (type)
    {
    case NVTX_PUSH_POP:
    case NVTXT_PUSH_POP:
      flags = 0;
      break;
    case NVTX_START_END:
    case NVTXT_START_END:
      flags = SL_NVTX_START_END;
      break;
    case NVTX_MARK:
      flags = SL_NVTX_MARK;
      break;
    default:
      loop->trouble.not_events++;
      return;   /* domain creation, categories, thread names … are not ranges */
    }
  if (!_sl_reader_row_times (stmt, &ev->start, &ev->end, TRUE, &loop->trouble))
    return;
  int owner = sqlite3_column_type (stmt, 3) != SQLITE_NULL ? 3 : 4;
  if (sqlite3_column_type (stmt, owner) == SQLITE_NULL)
    {
      loop->trouble.null_owner++;
      return;
    }
  guint64 gtid = (guint64) sqlite3_column_int64 (stmt, owner);
  if (sqlite3_column_type (stmt, 4) != SQLITE_NULL
      && (owner == 4 || sqlite3_column_int64 (stmt, 4) != (gint64) gtid))
    flags |= SL_NVTX_OTHER_THREAD;
  ev->name = _sl_reader_col_str (r, stmt, 5);
  if (ev->name == SL_NO_STR)
    ev->name = _sl_reader_col_text (r, stmt, 6);
  ev->aux = sqlite3_column_type (stmt, 7) == SQLITE_NULL
            ? 0
            : (guint32) sqlite3_column_int64 (stmt, 7);
  gint64 domain = sqlite3_column_int64 (stmt, 8);
  ev->corr = SL_NO_STR;
  if (domain != 0)
    {
      guint64 key = domain_key (gtid, domain);
      ev->corr = GPOINTER_TO_UINT (g_hash_table_lookup (r->nvtx_domains, &key));
    }
  if (flags & SL_NVTX_MARK)
    ev->end = ev->start;
  else if (ev->end == G_MININT64)
    flags |= SL_NVTX_UNTERMINATED;
  /* the rowid (nsys's RangeId) travels in the event: the lanes are sorted by time, the rows
   * are not (nsys writes a range when it ends) */
  gint64 rowid = sqlite3_column_int64 (stmt, 9);
  if (rowid > 0 && rowid <= SL_NVTX_ROWID_MAX)
    flags |= (guint32) rowid << SL_NVTX_ROWID_SHIFT;
  ev->link = flags;
  GArray *a = _sl_reader_cpu_events (r, _sl_reader_thread_for (r, gtid), SL_LANE_NVTX);
  if (flags & SL_NVTX_UNTERMINATED)
    {
      /* clamp once the table's last timestamp is known, as nvtx_sum does */
      g_ptr_array_add (rows->open_ended, a);
      g_ptr_array_add (rows->open_ended, GSIZE_TO_POINTER (a->len));
      rows->unterminated++;
    }
  g_array_append_val (a, *ev);
}

static void
nvtx_done (SlReader  *r,
           SlRowLoop *loop)
{
  NvtxRows *rows = loop->data;

  for (guint i = 0; i < rows->open_ended->len; i += 2)
    {
      GArray *a = g_ptr_array_index (rows->open_ended, i);
      gsize at = GPOINTER_TO_SIZE (g_ptr_array_index (rows->open_ended, i + 1));
      SlEvent *ev = &g_array_index (a, SlEvent, at);
      ev->end = MAX (rows->max_time, ev->start);
    }
  if (rows->unterminated > 0)
    _sl_trace_warn (r->trace,
                    "%s: %" G_GUINT64_FORMAT " ranges were never closed; they end at the last "
                    "NVTX timestamp",
                    loop->table, rows->unterminated);
}

gboolean
_sl_reader_read_nvtx (SlReader *r,
                      GError  **error)
{
  g_autoptr (GPtrArray) open_ended = g_ptr_array_new ();
  NvtxRows rows = { G_MININT64, open_ended, 0 };
  SlRowLoop domains = {
    .table = "NVTX_EVENTS",
    .sql = "SELECT globalTid, {domainId:0}, {textId:NULL}, {text:NULL} FROM NVTX_EVENTS "
           "WHERE eventType = " G_STRINGIFY (NVTX_DOMAIN_CREATE),
    .row = nvtx_domain_row, .some_rows = TRUE,
  };
  /* times are checked by the row function, after the row's type, and an end may be NULL */
  SlRowLoop ranges = {
    .table = "NVTX_EVENTS", .what = "NVTX ranges",
    .sql = "SELECT start, end, eventType, {globalTid:NULL}, {endGlobalTid:NULL}, {textId:NULL}, "
           "{text:NULL}, {color:NULL}, {domainId:0}, {rowid:NULL} FROM NVTX_EVENTS",
    .row = nvtx_row, .done = nvtx_done, .data = &rows,
  };

  if (!_sl_reader_has_column (r, "NVTX_EVENTS", "eventType"))
    {
      _sl_trace_warn (r->trace, "NVTX_EVENTS has no eventType column and was skipped");
      _sl_reader_not_read (r, "NVTX_EVENTS", "it has no eventType column");
      return TRUE;
    }
  /* a live load's rows are those committed since the last: unterminated ranges end at the last
   * timestamp of the whole table */
  if (r->trace->live != NULL)
    rows.max_time = _sl_live_nvtx_max_time (r);
  /* domains first: ranges name them by (process, domainId) */
  if (!_sl_reader_each_row (r, &domains, error) || !_sl_reader_each_row (r, &ranges, error))
    return FALSE;
  if (r->trace->live != NULL)
    _sl_live_set_nvtx (r, rows.max_time, rows.unterminated);
  return TRUE;
}

/* ---- call chains (SAMPLING_CALLCHAINS, OSRT_CALLCHAINS) ---------------------------------- */

/* Both tables go into the trace's one call-chain table: a chain is a run of frames, leaf first,
 * and its index there is what a sample's aux holds. */
typedef struct
{
  GHashTable *chain_of;   /* SAMPLING_CALLCHAINS id -> chain index + 1, or NULL */
  GArray     *ids;        /* OSRT_CALLCHAINS: SlChainId, or NULL */
  gint64      current;    /* id of the chain being read; G_MININT64 before the first */
  guint64     bad_ids;    /* ids that no call can name (not in first_id … 2^32-1) */
  GHashTable *distinct;   /* hash of a chain's frames (as a pointer: no allocation; truncated
                           * where pointers are 32 bits, the frames are compared anyway) -> the
                           * first chain with it, + 1 */
  gint64      first_id;   /* `ids`: 1 for OSRT_CALLCHAINS (callchainId 0: none), 0 for
                           * CUDA_CALLCHAINS (a CUDA call without one is NULL, so 0 can be an id) */
} ChainRows;

/* FNV-1a over a chain's frames, symbols and modules. */
static guint64
frames_hash (const guint32 *symbols,
             const guint32 *modules,
             guint32        n)
{
  guint64 h = G_GUINT64_CONSTANT (0xCBF29CE484222325) ^ n;

  for (guint32 i = 0; i < n; i++)
    {
      h = (h ^ symbols[i]) * G_GUINT64_CONSTANT (0x100000001B3);
      h = (h ^ modules[i]) * G_GUINT64_CONSTANT (0x100000001B3);
    }
  return h;
}

/* Closes the chain being read (its id is rows->current).  A chain identical to one read before is
 * not kept: its frames are dropped and its id names the earlier chain, so that a million samples
 * of a few thousand distinct stacks hold a few thousand chains (≈ 320 MB of frames less for a
 * million samples 40 frames deep), and whoever walks the samples' chains reads them from cache. */
static void
chain_end (SlTrace   *trace,
           ChainRows *rows)
{
  guint32 chain = trace->chain_offsets->len - 1;
  guint32 from = g_array_index (trace->chain_offsets, guint32, chain);
  guint32 n = trace->chain_symbols->len - from;
  const guint32 *syms = &g_array_index (trace->chain_symbols, guint32, from);
  const guint32 *mods = &g_array_index (trace->chain_modules, guint32, from);
  gpointer h = GSIZE_TO_POINTER ((gsize) frames_hash (syms, mods, n));
  gpointer found = g_hash_table_lookup (rows->distinct, h);

  if (found != NULL)
    {
      guint32 same = GPOINTER_TO_UINT (found) - 1;
      guint32 at = g_array_index (trace->chain_offsets, guint32, same);
      if (g_array_index (trace->chain_offsets, guint32, same + 1) - at == n
          && memcmp (&g_array_index (trace->chain_symbols, guint32, at), syms, n * sizeof *syms)
               == 0
          && memcmp (&g_array_index (trace->chain_modules, guint32, at), mods, n * sizeof *mods)
               == 0)
        {
          g_array_set_size (trace->chain_symbols, from);
          g_array_set_size (trace->chain_modules, from);
          if (rows->chain_of != NULL)
            g_hash_table_insert (rows->chain_of, g_memdup2 (&rows->current, sizeof rows->current),
                                 GUINT_TO_POINTER (same + 1));
          else if (rows->ids->len > 0
                   && g_array_index (rows->ids, SlChainId, rows->ids->len - 1).id
                        == rows->current)
            g_array_index (rows->ids, SlChainId, rows->ids->len - 1).chain = same;
          return;
        }
    }
  else
    g_hash_table_insert (rows->distinct, h, GUINT_TO_POINTER (chain + 1));
  guint32 end = trace->chain_symbols->len;
  g_array_append_val (trace->chain_offsets, end);
}

/* Rows come ordered by chain and depth: a new id closes the chain before it. */
static void
chain_row (SlReader     *r,
           sqlite3_stmt *stmt,
           SlEvent      *ev G_GNUC_UNUSED,
           SlRowLoop    *loop)
{
  ChainRows *rows = loop->data;
  gint64 id = sqlite3_column_int64 (stmt, 0);

  if (id != rows->current)
    {
      if (rows->current != G_MININT64)
        chain_end (r->trace, rows);
      rows->current = id;
      guint32 chain = r->trace->chain_offsets->len - 1;
      if (rows->chain_of != NULL)
        g_hash_table_insert (rows->chain_of, g_memdup2 (&id, sizeof id),
                             GUINT_TO_POINTER (chain + 1));
      else if (id >= rows->first_id && id < G_MAXUINT32)
        g_array_append_val (rows->ids, ((SlChainId) { (guint32) id, chain }));
      else
        rows->bad_ids++;
    }
  guint32 sym = _sl_reader_col_str (r, stmt, 1), mod = _sl_reader_col_str (r, stmt, 2);
  g_array_append_val (r->trace->chain_symbols, sym);
  g_array_append_val (r->trace->chain_modules, mod);
}

static void
chains_done (SlReader  *r,
             SlRowLoop *loop)
{
  ChainRows *rows = loop->data;

  if (rows->current != G_MININT64)
    chain_end (r->trace, rows);
  if (rows->bad_ids > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " call chains have an id no call can "
                              "name (0, negative or too large); they were left out",
                    loop->table, rows->bad_ids);
}

/* ---- OS runtime calls -------------------------------------------------------------------- */

static int
compare_chain_ids (gconstpointer a,
                   gconstpointer b)
{
  const SlChainId *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* (as g_array_sort, which is stable: of a damaged file's repeated ids the first is kept) */
static gint
compare_chain_ids_data (gconstpointer a,
                        gconstpointer b,
                        gpointer      user_data G_GNUC_UNUSED)
{
  return compare_chain_ids (a, b);
}

/* An append (sl-trace-live.c) starts from the previous trace's call-chain table: its chains are
 * known to the de-duplication as they would be after reading them, so that a chain read again
 * (CUDA_CALLCHAINS is read whole) or newly committed names the one already there. */
static void
prefill_distinct (SlTrace    *trace,
                  GHashTable *distinct)
{
  for (guint c = 0; c + 1 < trace->chain_offsets->len; c++)
    {
      guint32 from = g_array_index (trace->chain_offsets, guint32, c);
      guint32 n = g_array_index (trace->chain_offsets, guint32, c + 1) - from;
      gpointer h = GSIZE_TO_POINTER ((gsize) frames_hash (
        &g_array_index (trace->chain_symbols, guint32, from),
        &g_array_index (trace->chain_modules, guint32, from), n));
      if (!g_hash_table_contains (distinct, h))
        g_hash_table_insert (distinct, h, GUINT_TO_POINTER (c + 1));
    }
}

/* OSRT_CALLCHAINS or CUDA_CALLCHAINS (`table`, one shape) into `ids`, sorted by id, each id
 * once: the backtraces of OS runtime or CUDA API calls (nsys keeps those of calls over a
 * threshold, 80 µs by default for OS calls; an OS call without one has callchainId 0, a CUDA
 * call NULL or 0: sl-reader-cuda.c tells which).  An append reads the ids committed since
 * (sl-trace-live.c: OSRT_CALLCHAINS is a live table, keyed by id), after those of the trace it
 * continues, which `ids` already holds. */
gboolean
_sl_reader_read_chain_ids (SlReader   *r,
                           const char *table,
                           GArray     *ids,
                           GError    **error)
{
  g_autoptr (GHashTable) distinct = g_hash_table_new (NULL, NULL);
  g_autofree char *sql = g_strdup_printf ("SELECT id, symbol, module FROM %s "
                                          "ORDER BY id, stackDepth", table);
  ChainRows chains = { NULL, ids, G_MININT64, 0, distinct,
                       strcmp (table, "CUDA_CALLCHAINS") == 0 ? 0 : 1 };
  SlRowLoop loop = {
    .table = table, .sql = sql,
    .row = chain_row, .done = chains_done, .data = &chains,
  };
  guint from = ids->len, kept = from;

  if (r->prev != NULL)
    prefill_distinct (r->trace, distinct);
  if (!_sl_reader_each_row (r, &loop, error))
    return FALSE;
  /* a damaged file's ids may come out of order (text among integers): sort, keep the first;
   * those of an append all come after the ones already there */
  if (ids->len > from)
    g_qsort_with_data (&g_array_index (ids, SlChainId, from), (gint) (ids->len - from),
                       sizeof (SlChainId), compare_chain_ids_data, NULL);
  for (guint i = from; i < ids->len; i++)
    if (kept == 0 || g_array_index (ids, SlChainId, i).id != g_array_index (ids, SlChainId,
                                                                            kept - 1).id)
      g_array_index (ids, SlChainId, kept++) = g_array_index (ids, SlChainId, i);
  g_array_set_size (ids, kept);
  return TRUE;
}

typedef struct
{
  gboolean has_chains;     /* the file has OSRT_CALLCHAINS (without it, no call has one) */
  guint64  dangling;       /* calls whose callchainId is not in it */
} OsrtRows;

static void
osrt_done (SlReader  *r,
           SlRowLoop *loop)
{
  OsrtRows *rows = loop->data;

  if (rows->dangling > 0)
    _sl_trace_warn (r->trace,
                    "%s: %" G_GUINT64_FORMAT " calls name a callchainId that OSRT_CALLCHAINS does "
                    "not have; they show no backtrace",
                    loop->table, rows->dangling);
}

static void
osrt_row (SlReader     *r,
          sqlite3_stmt *stmt,
          SlEvent      *ev,
          SlRowLoop    *loop)
{
  OsrtRows *rows = loop->data;

  /* other event classes share the table (counted, so that the inventory accounts for them) */
  if (G_UNLIKELY (sqlite3_column_int64 (stmt, 6) != 27))
    {
      loop->trouble.not_events++;
      return;
    }
  gint32 thread = _sl_reader_row_thread (r, stmt, 2, &loop->trouble);
  if (thread < 0)
    return;
  ev->name = _sl_reader_col_str (r, stmt, 3);
  ev->aux = (guint32) sqlite3_column_int64 (stmt, 4);
  ev->corr = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 5));
  ev->link = SL_NO_LINK;
  if (ev->corr != 0 && rows->has_chains
      && _sl_trace_find_osrt_chain (r->trace, ev->corr) == G_MAXUINT32)
    rows->dangling++;
  GArray *a = _sl_reader_cpu_events (r, thread, SL_LANE_OSRT);
  g_array_append_val (a, *ev);
}

gboolean
_sl_reader_read_osrt (SlReader *r,
                      GError  **error)
{
  OsrtRows rows = { _sl_reader_table_exists (r, "OSRT_CALLCHAINS"), 0 };
  SlRowLoop loop = {
    .table = "OSRT_API", .what = "OS runtime calls", .times = TRUE,
    .sql = "SELECT start, end, globalTid, {nameId:NULL}, {returnValue:0}, {callchainId:0}, "
           "{eventClass:27} FROM OSRT_API",
    .row = osrt_row, .done = osrt_done, .data = &rows,
  };

  if (rows.has_chains
      && !_sl_reader_read_chain_ids (r, "OSRT_CALLCHAINS", r->trace->osrt_chains, error))
    return FALSE;
  return _sl_reader_each_row (r, &loop, error);
}

/* ---- CPU samples ------------------------------------------------------------------------- */

static void
sample_row (SlReader     *r,
            sqlite3_stmt *stmt,
            SlEvent      *ev,
            SlRowLoop    *loop)
{
  GHashTable *chain_of = loop->data;

  gint32 thread = _sl_reader_row_thread (r, stmt, 2, &loop->trouble);
  if (thread < 0)
    return;
  gint64 id = sqlite3_column_int64 (stmt, 3);
  guint chain = GPOINTER_TO_UINT (g_hash_table_lookup (chain_of, &id));
  ev->aux = chain != 0 ? chain - 1 : G_MAXUINT32;
  ev->name = SL_NO_STR;
  if (chain != 0)
    {
      const guint32 *syms, *mods;
      if (sl_trace_get_callchain (r->trace, chain - 1, &syms, &mods) > 0)
        ev->name = syms[0];
    }
  ev->corr = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 4));
  ev->link = SL_NO_LINK;
  GArray *a = _sl_reader_cpu_events (r, thread, SL_LANE_SAMPLES);
  g_array_append_val (a, *ev);
}

/* A row of SIGHTLINE_SAMPLE_CHAINS: sample id → chain id, kept until the chains are read. */
static void
sample_chain_row (SlReader     *r G_GNUC_UNUSED,
                  sqlite3_stmt *stmt,
                  SlEvent      *ev G_GNUC_UNUSED,
                  SlRowLoop    *loop)
{
  gint64 ids[2] = { sqlite3_column_int64 (stmt, 0), sqlite3_column_int64 (stmt, 1) };

  g_array_append_vals (loop->data, ids, 2);
}

/* A recording in progress (the live view), or one whose daemon died before the end, has its
 * samples' stacks in two side tables instead of SAMPLING_CALLCHAINS (collector/daemon/
 * sl-trace-writer.c writes each distinct chain once): SIGHTLINE_SAMPLE_CHAINS (sampleId,
 * chainId) and SIGHTLINE_CHAIN_FRAMES (chainId, stackDepth, symbol, module, …).  The samples'
 * rows are read first: a chain is committed with the first sample that names it, so a file
 * growing between the two reads still has every chain they name. */
static gboolean
read_side_chains (SlReader   *r,
                  GHashTable *chain_of,
                  GHashTable *distinct,
                  GError    **error)
{
  g_autoptr (GArray) pairs = g_array_new (FALSE, FALSE, sizeof (gint64));
  /* a live load keeps the chains read by chainId for the next append: a chain is committed
   * once, with the first sample that names it, and later samples name it again */
  g_autoptr (GHashTable) by_chain = r->trace->live != NULL
                                    ? g_hash_table_ref (_sl_live_side_chains (r))
                                    : g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                             NULL);
  ChainRows chains = { by_chain, NULL, G_MININT64, 0, distinct, 1 };
  SlRowLoop sample_loop = {
    .table = "SIGHTLINE_SAMPLE_CHAINS",
    .sql = "SELECT sampleId, chainId FROM SIGHTLINE_SAMPLE_CHAINS",
    .row = sample_chain_row, .data = pairs,
  };
  SlRowLoop chain_loop = {
    .table = "SIGHTLINE_CHAIN_FRAMES",
    .sql = "SELECT chainId, symbol, module FROM SIGHTLINE_CHAIN_FRAMES "
           "ORDER BY chainId, stackDepth",
    .row = chain_row, .done = chains_done, .data = &chains,
  };
  guint64 dangling = 0;

  if (!_sl_reader_each_row (r, &sample_loop, error) || !_sl_reader_each_row (r, &chain_loop, error))
    return FALSE;
  for (guint i = 0; i + 1 < pairs->len; i += 2)
    {
      gpointer chain = g_hash_table_lookup (by_chain, &g_array_index (pairs, gint64, i + 1));
      if (chain != NULL)
        g_hash_table_insert (chain_of, g_memdup2 (&g_array_index (pairs, gint64, i),
                                                  sizeof (gint64)),
                             chain);
      else
        dangling++;
    }
  if (dangling > 0)
    _sl_trace_warn (r->trace, "SIGHTLINE_SAMPLE_CHAINS: %" G_GUINT64_FORMAT " samples name a "
                              "chainId that SIGHTLINE_CHAIN_FRAMES does not have; they show no "
                              "stack", dangling);
  return TRUE;
}

gboolean
_sl_reader_read_samples (SlReader *r,
                         GError  **error)
{
  g_autoptr (GHashTable) chain_of = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                           NULL);
  g_autoptr (GHashTable) distinct = g_hash_table_new (NULL, NULL);
  ChainRows chains = { chain_of, NULL, G_MININT64, 0, distinct, 1 };

  if (r->prev != NULL)
    prefill_distinct (r->trace, distinct);
  SlRowLoop chain_loop = {
    .table = "SAMPLING_CALLCHAINS",
    .sql = "SELECT id, symbol, module FROM SAMPLING_CALLCHAINS ORDER BY id, stackDepth",
    .row = chain_row, .done = chains_done, .data = &chains,
  };

  if (_sl_reader_table_exists (r, chain_loop.table) && !_sl_reader_each_row (r, &chain_loop, error))
    return FALSE;
  if (_sl_reader_table_exists (r, "SIGHTLINE_SAMPLE_CHAINS")
      && _sl_reader_table_exists (r, "SIGHTLINE_CHAIN_FRAMES")
      && !read_side_chains (r, chain_of, distinct, error))
    return FALSE;

  SlRowLoop loop = {
    .table = "COMPOSITE_EVENTS", .times = TRUE,
    .sql = "SELECT start, start, globalTid, {id:NULL}, {threadState:0} FROM COMPOSITE_EVENTS",
    .row = sample_row, .data = chain_of,
  };

  return _sl_reader_each_row (r, &loop, error);
}
