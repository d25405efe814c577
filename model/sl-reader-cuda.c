/* sl-reader-cuda.c: the CUPTI tables: CUDA runtime calls, kernels, memcpy, memset,
 * synchronization and CUDA graph launches, each row one event in a thread's or a GPU stream's
 * lane.
 *
 * Kernel and runtime tables reach 10^6 … 10^7 rows: a row function reads its columns, interns
 * what repeats (kernel launch configurations, copy descriptions) and appends one SlEvent.
 */
#include "sl-reader-private.h"

#include <string.h>

/* ---- CUDA API calls ---------------------------------------------------------------------- */

typedef struct
{
  GArray *a;          /* the lane of the thread of the last row */
  gint32  a_thread;
  GArray *chain_ids;  /* CUDA_CALLCHAINS: SlChainId sorted by id; NULL when the file has none */
  GArray *pending;    /* PendingChain: the calls naming a callchainId, mapped once all are read */
  guint64 zeros;      /* calls naming callchainId 0 */
  gboolean chain_0;  /* CUDA_CALLCHAINS has an integer id 0 */
  gint64  offset;     /* added to a callchainId to give its CUDA_CALLCHAINS id; -1: not known yet */
  guint64 chained;    /* calls that name a callchainId */
  guint64 dangling;   /* of those, calls whose callchainId is not in CUDA_CALLCHAINS */
} RuntimeRows;

typedef struct
{
  SlCudaChain call;   /* its chain not known yet */
  gint64      id;     /* the callchainId as the row has it; G_MININT64: not an integer */
} PendingChain;

/* The call-chain index of a CUDA_CALLCHAINS id, G_MAXUINT32 when the file has none of that id. */
static guint32
find_chain (GArray *ids,
            gint64  id)
{
  const SlChainId *c = (const SlChainId *) ids->data;
  guint lo = 0, hi = ids->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if ((gint64) c[mid].id < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < ids->len && (gint64) c[lo].id == id ? c[lo].chain : G_MAXUINT32;
}

/* A call's callchainId, kept with its process and correlation id (its event has no field left)
 * until the numbering is known. */
static void
runtime_chain (SlReader      *r,
               RuntimeRows   *rows,
               gint32         thread,
               const SlEvent *ev,
               gint64         id)
{
  PendingChain p = { { GPID_OF (g_array_index (r->trace->threads, SlThread, thread).global_tid),
                       ev->corr, ev->aux & 0xFF, 0, 0 },
                     id };

  rows->zeros += id == 0;
  g_array_append_val (rows->pending, p);
}

/* nsys of 2021 numbered a call's callchainId from 0 and CUDA_CALLCHAINS' ids from 1 (callchainId
 * k is chain k + 1: the API names of the 18 calls of nsys-2021-cuda-backtraces.sqlite match
 * their chains so and only so; Extra-P joins `id - 1 = callchainId` for these files), a call
 * without a backtrace NULL; each chain is one call's, so one call names 0.  Where both count
 * from 1, 0 (if used) is "none", which many calls are.  So the old numbering is: exactly one call
 * naming 0, and no chain 0 (which calls are NULL says nothing: nsys writes each backtraced call
 * twice, once without its id).  The calls naming 0 are counted while the rows are read: a query
 * of its own scanned the whole table again (half a second of CPU on 3.7 M calls); chain 0 is
 * looked up in the table (its primary key), where a text id would read as 0.  A live load reads
 * part of the rows (a big file's first look, then appends): it asks the whole table. */
static void
map_chains (SlReader    *r,
            RuntimeRows *rows)
{
  gint64 offset = rows->offset >= 0 ? rows->offset : rows->zeros == 1 && !rows->chain_0 ? 1 : 0;

  for (guint i = 0; i < rows->pending->len; i++)
    {
      PendingChain *p = &g_array_index (rows->pending, PendingChain, i);
      gint64 chain_id;
      if (p->id == G_MININT64 || __builtin_add_overflow (p->id, offset, &chain_id))
        chain_id = -1;   /* a text, real or absurd id: no chain has it */
      if (chain_id == 0)
        continue;   /* none: 0 where the numbering starts at 1 */
      rows->chained++;
      guint32 chain = find_chain (rows->chain_ids, chain_id);
      if (chain == G_MAXUINT32)
        {
          rows->dangling++;
          continue;
        }
      p->call.chain = chain;
      g_array_append_val (r->trace->cuda_chains, p->call);
    }
}

/* The numbering of a live load, which reads part of the calls: one call naming 0 in the whole
 * table (not merely in the rows read now), the caller having found no chain 0. */
static gint64
whole_table_offset (SlReader *r)
{
  sqlite3_stmt *stmt = NULL;
  gint64 offset = 0;

  if (sqlite3_prepare_v2 (r->db,
                          "SELECT COUNT (*) = 1 FROM (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                          "WHERE callchainId = 0 LIMIT 2)", -1, &stmt, NULL)
        == SQLITE_OK
      && sqlite3_step (stmt) == SQLITE_ROW)
    offset = sqlite3_column_int64 (stmt, 0) != 0 ? 1 : 0;
  sqlite3_finalize (stmt);
  return offset;
}

static void
runtime_done (SlReader  *r,
              SlRowLoop *loop)
{
  RuntimeRows *rows = loop->data;

  if (rows->chain_ids != NULL)
    map_chains (r, rows);
  else   /* no table: every id dangles but 0, which reads as none */
    for (guint i = 0; i < rows->pending->len; i++)
      {
        gint64 id = g_array_index (rows->pending, PendingChain, i).id;
        rows->chained += id != 0;
        rows->dangling += id != 0;
      }
  _sl_trace_sort_cuda_chains (r->trace);
  if (rows->dangling == 0)
    return;
  if (rows->chain_ids == NULL)
    _sl_trace_warn (r->trace,
                    "%s: %" G_GUINT64_FORMAT " calls name a callchainId but the file has no "
                    "CUDA_CALLCHAINS table; they show no backtrace",
                    loop->table, rows->dangling);
  else
    _sl_trace_warn (r->trace,
                    "%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " calls name a callchainId "
                    "that CUDA_CALLCHAINS does not have; they show no backtrace",
                    loop->table, rows->dangling, rows->chained);
}

static void
runtime_row (SlReader     *r,
             sqlite3_stmt *stmt,
             SlEvent      *ev,
             SlRowLoop    *loop)
{
  RuntimeRows *rows = loop->data;

  gint32 thread = _sl_reader_row_thread (r, stmt, 2, &loop->trouble);
  if (thread < 0)
    return;
  if (thread != rows->a_thread)
    {
      rows->a = _sl_reader_cpu_events (r, thread, SL_LANE_CUDA_API);
      rows->a_thread = thread;
    }
  ev->corr = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 3));
  ev->name = _sl_reader_col_str (r, stmt, 4);
  ev->link = SL_NO_LINK;
  ev->aux = (guint32) (sqlite3_column_int64 (stmt, 5) & 0xFF)
            | (guint32) (MIN ((guint64) sqlite3_column_int64 (stmt, 6), 0xFFFFFFu) << 8);
  int chain_type = sqlite3_column_type (stmt, 7);
  if (G_UNLIKELY (chain_type != SQLITE_NULL))   /* a text or real callchainId names no chain */
    runtime_chain (r, rows, thread, ev,
                   chain_type == SQLITE_INTEGER ? sqlite3_column_int64 (stmt, 7) : G_MININT64);
  g_array_append_val (rows->a, *ev);
}

gboolean
_sl_reader_read_runtime (SlReader *r,
                         GError  **error)
{
  g_autoptr (GArray) chain_ids = NULL;
  g_autoptr (GArray) pending = g_array_new (FALSE, FALSE, sizeof (PendingChain));
  RuntimeRows rows = { NULL, -1, NULL, pending, 0, FALSE, -1, 0, 0 };
  SlRowLoop loop = {
    .table = "CUPTI_ACTIVITY_KIND_RUNTIME", .what = "CUDA API calls", .times = TRUE,
    .sql = "SELECT start, end, globalTid, {correlationId:0}, {nameId:NULL}, {eventClass:0}, "
           "{returnValue:0}, {callchainId:NULL} FROM CUPTI_ACTIVITY_KIND_RUNTIME",
    .row = runtime_row, .done = runtime_done, .data = &rows,
  };

  /* an append reads the new calls only: the earlier ones keep their backtraces (the call-chain
   * table is the previous trace's, same indices) */
  if (r->prev != NULL)
    g_array_append_vals (r->trace->cuda_chains, r->prev->cuda_chains->data,
                         r->prev->cuda_chains->len);
  if (_sl_reader_table_exists (r, "CUDA_CALLCHAINS"))
    {
      chain_ids = g_array_new (FALSE, FALSE, sizeof (SlChainId));
      if (!_sl_reader_read_chain_ids (r, "CUDA_CALLCHAINS", chain_ids, error))
        return FALSE;
      rows.chain_ids = chain_ids;
      sqlite3_stmt *stmt = NULL;
      if (sqlite3_prepare_v2 (r->db, "SELECT EXISTS (SELECT 1 FROM CUDA_CALLCHAINS WHERE id = 0)",
                              -1, &stmt, NULL)
            == SQLITE_OK
          && sqlite3_step (stmt) == SQLITE_ROW)
        rows.chain_0 = sqlite3_column_int64 (stmt, 0) != 0;
      sqlite3_finalize (stmt);
      if ((r->flags & SL_LOAD_LIVE) && !rows.chain_0)
        rows.offset = whole_table_offset (r);
    }
  return _sl_reader_each_row (r, &loop, error);
}

/* ---- GPU lanes --------------------------------------------------------------------------- */

/* Columns 2..5 of GPU tables: deviceId, contextId, streamId, globalPid; column 6 correlationId;
 * greenContextId in column `green_col` (NULL or 0 when none). */
static gboolean
gpu_row_key (sqlite3_stmt *stmt,
             SlLaneKind    kind,
             int           green_col,
             SlGpuKey     *key,
             SlRowTrouble *trouble)
{
  if (G_UNLIKELY (sqlite3_column_type (stmt, 5) == SQLITE_NULL
                  && sqlite3_column_type (stmt, 2) == SQLITE_NULL))
    {
      trouble->null_owner++;
      return FALSE;
    }
  memset (key, 0, sizeof *key);
  key->device = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 2));
  key->context = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 3));
  key->stream = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 4));
  key->global_pid = GPID_OF ((guint64) sqlite3_column_int64 (stmt, 5));
  key->green_context = _sl_clamp_u32 (sqlite3_column_int64 (stmt, green_col));
  key->kind = kind;
  return TRUE;
}

/* The rest of a GPU row's event: its correlation id (column 6) and the lane it goes to. */
static void
gpu_append (SlReader       *r,
            sqlite3_stmt   *stmt,
            const SlGpuKey *key,
            SlEvent        *ev)
{
  ev->corr = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 6));
  ev->link = SL_NO_LINK;
  GArray *a = _sl_reader_gpu_events (r, key);
  g_array_append_val (a, *ev);
}

/* called once per kernel row (10^6 … 10^7): mix whole words, not bytes */
guint
_sl_kernel_info_hash (gconstpointer p)
{
  const guint32 *w = p;
  guint64 h = 0x9E3779B97F4A7C15u;

  G_STATIC_ASSERT (sizeof (SlKernelInfo) % sizeof (guint32) == 0);
  for (gsize i = 0; i < sizeof (SlKernelInfo) / sizeof (guint32); i++)
    h = (h ^ w[i]) * 0xFF51AFD7ED558CCDu;
  return (guint) (h ^ (h >> 32));
}

gboolean
_sl_kernel_info_equal (gconstpointer a,
                       gconstpointer b)
{
  return memcmp (a, b, sizeof (SlKernelInfo)) == 0;
}

guint
_sl_copy_info_hash (gconstpointer p)
{
  const guchar *b = p;
  guint32 h = 2166136261u;
  for (gsize i = 0; i < sizeof (SlCopyInfo); i++)
    h = (h ^ b[i]) * 16777619u;
  return h;
}

gboolean
_sl_copy_info_equal (gconstpointer a,
                     gconstpointer b)
{
  return memcmp (a, b, sizeof (SlCopyInfo)) == 0;
}

/* ---- kernels ----------------------------------------------------------------------------- */

static void
kernel_row (SlReader     *r,
            sqlite3_stmt *stmt,
            SlEvent      *ev,
            SlRowLoop    *loop)
{
  SlGpuKey key;
  SlKernelInfo info;

  if (!gpu_row_key (stmt, SL_LANE_KERNELS, 23, &key, &loop->trouble))
    return;
  memset (&info, 0, sizeof info);
  info.demangled_name = _sl_reader_col_str (r, stmt, 7);
  info.short_name = _sl_reader_col_str (r, stmt, 8);
  info.mangled_name = _sl_reader_col_str (r, stmt, 9);
  if (info.demangled_name == SL_NO_STR)
    info.demangled_name = info.short_name;
  if (info.short_name == SL_NO_STR)
    info.short_name = info.demangled_name;
  info.launch_type = (guint16) CLAMP (sqlite3_column_int64 (stmt, 10), 0, G_MAXUINT16);
  info.cache_config = (guint16) CLAMP (sqlite3_column_int64 (stmt, 11), 0, G_MAXUINT16);
  info.registers_per_thread = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 12));
  for (int i = 0; i < 3; i++)
    {
      info.grid[i] = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 13 + i));
      info.block[i] = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 16 + i));
    }
  info.static_shared = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 19));
  info.dynamic_shared = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 20));
  info.local_per_thread = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 21));
  info.shared_executed = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 22));
  /* a graph node (--cuda-graph-trace=node): a run of a graph's kernels shares a few infos */
  info.graph_id = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 24));
  info.graph_node_id = (guint64) MAX (sqlite3_column_int64 (stmt, 25), 0);

  ev->name = info.demangled_name;
  ev->aux = _sl_info_set_intern (r->kernel_infos, r->trace->kernel_infos, &info);
  gpu_append (r, stmt, &key, ev);
}

gboolean
_sl_reader_read_kernels (SlReader *r,
                         GError  **error)
{
  SlRowLoop loop = {
    .table = "CUPTI_ACTIVITY_KIND_KERNEL", .what = "kernels", .times = TRUE,
    .sql = "SELECT start, end, deviceId, {contextId:0}, {streamId:0}, {globalPid:NULL}, "
           "{correlationId:0}, {demangledName:NULL}, {shortName:NULL}, {mangledName:NULL}, "
           "{launchType:0}, {cacheConfig:0}, {registersPerThread:0}, gridX, gridY, gridZ, "
           "blockX, blockY, blockZ, {staticSharedMemory:0}, {dynamicSharedMemory:0}, "
           "{localMemoryPerThread:0}, {sharedMemoryExecuted:0}, {greenContextId:0}, "
           "{graphId:0}, {graphNodeId:0} FROM CUPTI_ACTIVITY_KIND_KERNEL",
    .row = kernel_row,
  };

  if (!_sl_reader_has_column (r, loop.table, "gridX"))
    {
      _sl_trace_warn (r->trace, "%s lacks launch configuration columns and was skipped",
                      loop.table);
      return TRUE;
    }
  return _sl_reader_each_row (r, &loop, error);
}

/* ---- CUDA graph launches ----------------------------------------------------------------- */

/* The name of the last graph a row named: a few graphs are launched 10^3 … 10^5 times, mostly
 * in runs, so a name is made and interned once a run. */
typedef struct
{
  guint32 graph_id;
  guint32 name;       /* SL_NO_STR until the first row */
} GraphRows;

/* A graph launch traced whole (nsys --cuda-graph-trace=graph, the default): its kernels are not
 * in CUPTI_ACTIVITY_KIND_KERNEL, so this row is all the GPU time the graph took.  Named
 * "CUDA Graph <graphId>". */
static void
graph_row (SlReader     *r,
           sqlite3_stmt *stmt,
           SlEvent      *ev,
           SlRowLoop    *loop)
{
  GraphRows *rows = loop->data;
  SlGpuKey key;
  SlKernelInfo info;

  if (!gpu_row_key (stmt, SL_LANE_GRAPHS, 7, &key, &loop->trouble))
    return;
  memset (&info, 0, sizeof info);
  info.graph_id = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 8));
  info.graph_exec_id = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 9));
  if (rows->name == SL_NO_STR || rows->graph_id != info.graph_id)
    {
      char name[40];
      g_snprintf (name, sizeof name, "CUDA Graph %" G_GUINT32_FORMAT, info.graph_id);
      rows->name = _sl_trace_intern (r->trace, name, -1);
      rows->graph_id = info.graph_id;
    }
  info.demangled_name = info.short_name = rows->name;
  ev->name = info.demangled_name;
  ev->aux = _sl_info_set_intern (r->kernel_infos, r->trace->kernel_infos, &info);
  gpu_append (r, stmt, &key, ev);
}

gboolean
_sl_reader_read_graphs (SlReader *r,
                        GError  **error)
{
  GraphRows rows = { 0, SL_NO_STR };
  SlRowLoop loop = {
    .table = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", .what = "CUDA graph launches", .times = TRUE,
    .sql = "SELECT start, end, deviceId, {contextId:0}, {streamId:0}, {globalPid:NULL}, "
           "{correlationId:0}, {greenContextId:0}, {graphId:0}, {graphExecId:0} "
           "FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
    .row = graph_row, .data = &rows,
  };

  return _sl_reader_each_row (r, &loop, error);
}

/* ---- where graphs and graph nodes were made ---------------------------------------------- */

/* A row of CUDA_GRAPH_EVENTS or CUDA_GRAPH_NODE_EVENTS (a few per graph and node: 10^1 … 10^4):
 * kept as read; the API call around it is looked up on first use (sl-graph-groups.c). */
static void
graph_made_row (SlReader     *r,
                sqlite3_stmt *stmt,
                SlEvent      *ev,
                SlRowLoop    *loop)
{
  SlGraphMade g;

  if (G_UNLIKELY (sqlite3_column_type (stmt, 3) == SQLITE_NULL
                  || sqlite3_column_type (stmt, 5) == SQLITE_NULL))
    {
      loop->trouble.null_owner++;   /* no thread, or no graph / node to be about */
      return;
    }
  memset (&g, 0, sizeof g);
  g.kind = GPOINTER_TO_INT (loop->data);
  g.start = ev->start;
  g.end = ev->end;
  g.event_class = (gint32) CLAMP (sqlite3_column_int64 (stmt, 2), G_MININT32, G_MAXINT32);
  g.global_tid = (guint64) sqlite3_column_int64 (stmt, 3);
  g.name = _sl_reader_col_str (r, stmt, 4);
  g.id = (guint64) MAX (sqlite3_column_int64 (stmt, 5), 0);
  g.original = (guint64) MAX (sqlite3_column_int64 (stmt, 6), 0);
  g.exec_id = (guint64) MAX (sqlite3_column_int64 (stmt, 7), 0);
  g_mutex_lock (&r->trace->lock);   /* the CPU tables' thread; the GPU one reads alongside */
  g_array_append_val (r->trace->graph_made, g);
  g_mutex_unlock (&r->trace->lock);
}

gboolean
_sl_reader_read_graph_made (SlReader *r,
                            GError  **error)
{
  SlRowLoop loop = {
    .table = "CUDA_GRAPH_EVENTS", .times = TRUE,
    .sql = "SELECT start, end, {eventClass:0}, {globalTid:NULL}, {nameId:NULL}, {graphId:NULL}, "
           "{originalGraphId:NULL}, {graphExecId:NULL} FROM CUDA_GRAPH_EVENTS",
    .row = graph_made_row, .data = GINT_TO_POINTER (SL_GRAPH_MADE_GRAPH),
  };

  return _sl_reader_each_row (r, &loop, error);
}

gboolean
_sl_reader_read_graph_node_made (SlReader *r,
                                 GError  **error)
{
  SlRowLoop loop = {
    .table = "CUDA_GRAPH_NODE_EVENTS", .times = TRUE,
    .sql = "SELECT start, end, {eventClass:0}, {globalTid:NULL}, {nameId:NULL}, "
           "{graphNodeId:NULL}, {originalGraphNodeId:NULL}, NULL FROM CUDA_GRAPH_NODE_EVENTS",
    .row = graph_made_row, .data = GINT_TO_POINTER (SL_GRAPH_MADE_NODE),
  };

  /* an append reads them whole again (they are not in the live view's rowid tables) */
  return _sl_reader_each_row (r, &loop, error);
}

/* ---- memcpy and memset ------------------------------------------------------------------- */

guint32
_sl_reader_memcpy_name (SlReader *r,
                        gint64    kind)
{
  if (kind >= 0 && kind < (gint64) G_N_ELEMENTS (r->memcpy_names) && r->memcpy_names[kind] != 0)
    return r->memcpy_names[kind];
  g_autofree char *name = g_strdup_printf ("[CUDA memcpy %s]",
                                           sl_trace_enum_label (r->trace,
                                                                SL_ENUM_MEMCPY_OPER, kind));
  guint32 id = _sl_trace_intern (r->trace, name, -1);
  if (kind >= 0 && kind < (gint64) G_N_ELEMENTS (r->memcpy_names))
    r->memcpy_names[kind] = id;
  return id;
}

static guint8
mem_kind (sqlite3_stmt *stmt,
          int           col)
{
  if (sqlite3_column_type (stmt, col) == SQLITE_NULL)
    return SL_MEM_KIND_NONE;
  return (guint8) CLAMP (sqlite3_column_int64 (stmt, col), 0, 0xFE);
}

static gint16
device_or_none (sqlite3_stmt *stmt,
                int           col)
{
  if (sqlite3_column_type (stmt, col) == SQLITE_NULL)
    return -1;
  return (gint16) CLAMP (sqlite3_column_int64 (stmt, col), -1, G_MAXINT16);
}

/* A copy or set row's description: bytes in column 7, the rest filled by the caller. */
static void
copy_info_init (SlCopyInfo   *info,
                sqlite3_stmt *stmt)
{
  memset (info, 0, sizeof *info);
  info->bytes = (guint64) MAX (sqlite3_column_int64 (stmt, 7), 0);
  info->src_kind = info->dst_kind = info->mem_kind = SL_MEM_KIND_NONE;
  info->src_device = info->dst_device = -1;
  info->migration_cause = SL_MIGRATION_NONE;
}

static void
memcpy_row (SlReader     *r,
            sqlite3_stmt *stmt,
            SlEvent      *ev,
            SlRowLoop    *loop)
{
  SlGpuKey key;
  SlCopyInfo info;

  if (!gpu_row_key (stmt, SL_LANE_MEMCPY, 13, &key, &loop->trouble))
    return;
  copy_info_init (&info, stmt);
  gint64 kind = sqlite3_column_int64 (stmt, 8);
  info.copy_kind = (guint8) CLAMP (kind, 0, 0xFF);
  info.src_kind = mem_kind (stmt, 9);
  info.dst_kind = mem_kind (stmt, 10);
  info.src_device = device_or_none (stmt, 11);
  info.dst_device = device_or_none (stmt, 12);
  if (SL_COPY_KIND_IS_UNIFIED (kind) && sqlite3_column_type (stmt, 14) != SQLITE_NULL)
    info.migration_cause = (guint8) CLAMP (sqlite3_column_int64 (stmt, 14), 0, 0xFE);
  if (SL_COPY_KIND_IS_UNIFIED (kind))
    info.address = (guint64) sqlite3_column_int64 (stmt, 15);
  ev->name = _sl_reader_memcpy_name (r, kind);
  ev->aux = _sl_info_set_intern (r->copy_infos, r->trace->copy_infos, &info);
  gpu_append (r, stmt, &key, ev);
}

static void
memset_row (SlReader     *r,
            sqlite3_stmt *stmt,
            SlEvent      *ev,
            SlRowLoop    *loop)
{
  const guint32 *memset_name = loop->data;
  SlGpuKey key;
  SlCopyInfo info;

  if (!gpu_row_key (stmt, SL_LANE_MEMSET, 10, &key, &loop->trouble))
    return;
  copy_info_init (&info, stmt);
  info.value = (guint32) sqlite3_column_int64 (stmt, 8);
  info.mem_kind = mem_kind (stmt, 9);
  ev->name = *memset_name;
  ev->aux = _sl_info_set_intern (r->copy_infos, r->trace->copy_infos, &info);
  gpu_append (r, stmt, &key, ev);
}

gboolean
_sl_reader_read_memcpy (SlReader *r,
                        GError  **error)
{
  SlRowLoop loop = {
    .table = "CUPTI_ACTIVITY_KIND_MEMCPY", .what = "memory operations", .times = TRUE,
    .sql = "SELECT start, end, deviceId, {contextId:0}, {streamId:0}, {globalPid:NULL}, "
           "{correlationId:0}, {bytes:0}, {copyKind:0}, {srcKind:NULL}, {dstKind:NULL}, "
           "{srcDeviceId:NULL}, {dstDeviceId:NULL}, {greenContextId:0}, "
           "{migrationCause:NULL}, {virtualAddress:NULL} FROM CUPTI_ACTIVITY_KIND_MEMCPY",
    .row = memcpy_row,
  };

  /* the memcpy reader has always interned the memset name too: string ids stay as they were */
  _sl_trace_intern (r->trace, "[CUDA memset]", -1);
  return _sl_reader_each_row (r, &loop, error);
}

gboolean
_sl_reader_read_memset (SlReader *r,
                        GError  **error)
{
  guint32 memset_name = _sl_trace_intern (r->trace, "[CUDA memset]", -1);
  SlRowLoop loop = {
    .table = "CUPTI_ACTIVITY_KIND_MEMSET", .what = "memory operations", .times = TRUE,
    .sql = "SELECT start, end, deviceId, {contextId:0}, {streamId:0}, {globalPid:NULL}, "
           "{correlationId:0}, {bytes:0}, {value:0}, {memKind:NULL}, {greenContextId:0} "
           "FROM CUPTI_ACTIVITY_KIND_MEMSET",
    .row = memset_row, .data = &memset_name,
  };

  return _sl_reader_each_row (r, &loop, error);
}

/* ---- synchronization --------------------------------------------------------------------- */

static guint64
context_key (guint64 global_pid,
             guint32 context)
{
  return (global_pid >> 24) << 24 ^ context;
}

/* Sync rows carry deviceId 0 even for other devices' streams (seen in real 2-GPU exports):
 * place them by (process, context) where a kernel or copy tells us the context's device. */
static void
map_contexts (SlReader *r)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, r->gpu_lanes);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const SlGpuKey *k = key;
      guint64 ck = context_key (k->global_pid, k->context);
      if (!g_hash_table_contains (r->context_gpu, &ck))
        g_hash_table_insert (r->context_gpu, g_memdup2 (&ck, sizeof ck),
                             GUINT_TO_POINTER (k->device + 1));
    }
}

/* An eventId or eventSyncId column: SL_NO_LINK for NULL, nsys's 2^32 - 1 ("none") and anything
 * outside 0 … 2^32 - 2 (no real id is). */
static guint32
event_col (sqlite3_stmt *stmt,
           int           col)
{
  if (sqlite3_column_type (stmt, col) != SQLITE_INTEGER)
    return SL_NO_LINK;
  gint64 v = sqlite3_column_int64 (stmt, col);
  return v >= 0 && v < (gint64) SL_NO_LINK ? (guint32) v : SL_NO_LINK;
}

static void
sync_row (SlReader     *r,
          sqlite3_stmt *stmt,
          SlEvent      *ev,
          SlRowLoop    *loop)
{
  guint32 *names = loop->data;   /* the five known sync types' names, 0 until first seen */
  SlGpuKey key;

  if (!gpu_row_key (stmt, SL_LANE_SYNC, 8, &key, &loop->trouble))
    return;
  guint64 ck = context_key (key.global_pid, key.context);
  guint dev = GPOINTER_TO_UINT (g_hash_table_lookup (r->context_gpu, &ck));
  if (dev != 0)
    key.device = dev - 1;
  gint64 type = sqlite3_column_int64 (stmt, 7);
  if (sqlite3_column_type (stmt, 9) == SQLITE_INTEGER)
    {
      /* what it waited for says what it is, where syncType does not: nsys 2024.2 wrote 3 (stream
       * synchronize) for cudaStreamWaitEvent and 1 for cudaDeviceSynchronize, 2025.5 2 (stream
       * wait event) for cudaStreamSynchronize; an event and a stream are a stream's wait for an
       * event, an event alone a host's, a stream alone a stream synchronize, neither a context
       * synchronize (CUpti_ActivitySynchronizationType's 2, 1, 3, 4) */
      gboolean event = event_col (stmt, 9) != SL_NO_LINK, stream = key.stream != G_MAXUINT32;
      type = event ? (stream ? 2 : 1) : (stream ? 3 : 4);
    }
  guint t = (guint) CLAMP (type, 0, 4);
  if (t != type || names[t] == 0)
    {
      const char *label = sl_trace_enum_label (r->trace, SL_ENUM_SYNC_TYPE, type);
      ev->name = _sl_trace_intern (r->trace, label, -1);
      if (t == type)
        names[t] = ev->name;
    }
  else
    ev->name = names[t];
  ev->aux = (guint32) t;
  gpu_append (r, stmt, &key, ev);
  /* the event it waited for (cudaStreamWaitEvent, cudaEventSynchronize), for sl-trace-events.c */
  SlCudaWaitRow w = { key.global_pid, ev->start, ev->corr, event_col (stmt, 9),
                      event_col (stmt, 10), 0 };
  if (w.event_id != SL_NO_LINK || w.sync_id != SL_NO_LINK)
    g_array_append_val (r->trace->event_waits, w);
}

static void
sync_done (SlReader  *r,
           SlRowLoop *loop)
{
  (void) loop;
  _sl_trace_sort_event_waits (r->trace);
}

/* ---- CUDA event records ------------------------------------------------------------------ */

/* A record: which stream recorded which event, tied to its cudaEventRecord call by correlation
 * id (typically one row per call, 10^2 … 10^5).  No times of its own: `timestamp` is the
 * device's completion where collected (nsys 2025.5 and later), 0 otherwise. */
static void
cuda_event_row (SlReader     *r,
                sqlite3_stmt *stmt,
                SlEvent      *ev,
                SlRowLoop    *loop)
{
  SlCudaEventRow row;

  (void) ev;
  if (G_UNLIKELY (sqlite3_column_type (stmt, 4) == SQLITE_NULL))
    {
      loop->trouble.null_owner++;
      return;
    }
  memset (&row, 0, sizeof row);
  row.global_pid = GPID_OF ((guint64) sqlite3_column_int64 (stmt, 4));
  row.timestamp = sqlite3_column_type (stmt, 0) == SQLITE_INTEGER
                  ? _sl_reader_clamp_time (sqlite3_column_int64 (stmt, 0), &loop->trouble) : 0;
  row.device = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 1));
  row.context = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 2));
  row.stream = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 3));
  row.corr = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 5));
  row.event_id = event_col (stmt, 6);
  row.sync_id = event_col (stmt, 7);
  if (row.event_id == SL_NO_LINK)
    {
      loop->trouble.not_events++;   /* a record of no event: nothing can wait for it */
      return;
    }
  g_array_append_val (r->trace->cuda_events, row);
}

gboolean
_sl_reader_read_sync (SlReader *r,
                      GError  **error)
{
  guint32 names[5] = { 0 };
  SlRowLoop loop = {
    .table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", .times = TRUE,
    .sql = "SELECT start, end, deviceId, {contextId:0}, {streamId:0}, {globalPid:NULL}, "
           "{correlationId:0}, {syncType:0}, {greenContextId:0}, {eventId:NULL}, "
           "{eventSyncId:NULL} FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    .row = sync_row, .done = sync_done, .data = names,
  };
  SlRowLoop events = {
    .table = "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
    .sql = "SELECT {timestamp:NULL}, {deviceId:0}, {contextId:0}, {streamId:0}, {globalPid:NULL}, "
           "{correlationId:0}, {eventId:NULL}, {eventSyncId:NULL} "
           "FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT",
    .row = cuda_event_row,
  };

  map_contexts (r);
  /* an append reads the new synchronization rows only (the table is read by rowid): the waits
   * read before are the previous trace's; the records are read whole each time */
  if (r->prev != NULL)
    g_array_append_vals (r->trace->event_waits, r->prev->event_waits->data,
                         r->prev->event_waits->len);
  if (!_sl_reader_each_row (r, &loop, error))
    return FALSE;
  return !_sl_reader_table_exists (r, events.table) || _sl_reader_each_row (r, &events, error);
}
