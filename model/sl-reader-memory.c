/* sl-reader-memory.c: CUDA_GPU_MEMORY_USAGE_EVENTS (nsys --cuda-memory-usage), each row an
 * allocation or a free, kept as read and sorted by time (sl-memory.c makes bytes in use and
 * allocations of them).  A few per cudaMalloc / cudaFree: 10^1 … 10^6 rows. */
#include "sl-reader-private.h"

#include <string.h>

typedef struct
{
  guint32 seq;
  guint64 bad_kind;   /* a memKind or an operation outside nsys's enums */
} MemRows;

static void
mem_usage_row (SlReader     *r,
               sqlite3_stmt *stmt,
               SlEvent      *ev,
               SlRowLoop    *loop)
{
  MemRows *rows = loop->data;
  SlMemUsage m;

  if (G_UNLIKELY (sqlite3_column_type (stmt, 2) == SQLITE_NULL
                  || sqlite3_column_type (stmt, 3) == SQLITE_NULL))
    {
      loop->trouble.null_owner++;   /* no process, or no GPU to be about */
      return;
    }
  gint64 kind = sqlite3_column_int64 (stmt, 8), op = sqlite3_column_int64 (stmt, 9);
  if (G_UNLIKELY (kind < 0 || kind > 255 || (op != SL_MEM_ALLOC && op != SL_MEM_FREE)))
    {
      rows->bad_kind++;
      return;
    }
  memset (&m, 0, sizeof m);
  m.start = ev->start;
  m.global_pid = (guint64) sqlite3_column_int64 (stmt, 2);
  m.gpu = _sl_reader_gpu_for (r, _sl_clamp_u32 (sqlite3_column_int64 (stmt, 3)));
  m.context = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 4));
  m.address = (guint64) sqlite3_column_int64 (stmt, 5);
  m.pc = (guint64) sqlite3_column_int64 (stmt, 6);
  m.bytes = (guint64) MAX (sqlite3_column_int64 (stmt, 7), 0);
  m.mem_kind = (guint8) kind;
  m.op = (guint8) op;
  m.name = sqlite3_column_type (stmt, 10) == SQLITE_TEXT ? _sl_reader_col_text (r, stmt, 10)
                                                         : _sl_reader_col_str (r, stmt, 10);
  m.corr = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 11));
  m.seq = rows->seq++;
  g_array_append_val (r->trace->mem_usage, m);
}

static void
mem_usage_done (SlReader  *r,
                SlRowLoop *loop)
{
  MemRows *rows = loop->data;

  if (rows->bad_kind > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " rows of CUDA_GPU_MEMORY_USAGE_EVENTS "
                    "have a memory kind or an operation that is not nsys's; they were not read",
                    r->trace->path, rows->bad_kind);
  _sl_trace_sort_mem_usage (r->trace);
}

gboolean
_sl_reader_read_mem_usage (SlReader *r,
                           GError  **error)
{
  MemRows rows = { 0, 0 };
  /* a row's `name` is text, not a StringIds id, in the layouts seen (2022.1, 2024.2) */
  SlRowLoop loop = {
    .table = "CUDA_GPU_MEMORY_USAGE_EVENTS", .what = "GPU memory usage", .times = TRUE,
    .sql = "SELECT start, start, globalPid, deviceId, {contextId:0}, {address:0}, {pc:0}, "
           "{bytes:0}, {memKind:7}, {memoryOperationType:0}, {name:NULL}, {correlationId:0} "
           "FROM CUDA_GPU_MEMORY_USAGE_EVENTS",
    .row = mem_usage_row, .done = mem_usage_done, .data = &rows,
  };

  /* an append reads them whole again (they are not in the live view's rowid tables) */
  g_array_set_size (r->trace->mem_usage, 0);
  return _sl_reader_each_row (r, &loop, error);
}
