/* sl-reader-faults.c: unified memory's page faults, CUDA_UM_GPU_PAGE_FAULT_EVENTS (nsys
 * --cuda-um-gpu-page-faults: a row per group of faults of a GPU on one page) and
 * CUDA_UM_CPU_PAGE_FAULT_EVENTS (--cuda-um-cpu-page-faults: a row per fault of the host), into
 * one array of the trace sorted by time (sl-um-faults.c indexes it per GPU and process).  Each
 * table is written only when a fault came: absent, nothing is read and nothing said.  A few per
 * migration: 10^2 … 10^6 rows. */
#include "sl-reader-private.h"

#include <string.h>

typedef struct
{
  guint32 seq;
  guint64 bad;   /* no address, a count below 1 or past 2^32, an access type past a byte */
} FaultRows;

/* Columns: start, end, globalPid, deviceId, address, numberOfPageFaults, faultAccessType. */
static void
gpu_fault_row (SlReader     *r,
               sqlite3_stmt *stmt,
               SlEvent      *ev,
               SlRowLoop    *loop)
{
  FaultRows *rows = loop->data;
  SlUmFault f;

  if (G_UNLIKELY (sqlite3_column_type (stmt, 2) == SQLITE_NULL
                  || sqlite3_column_type (stmt, 3) == SQLITE_NULL))
    {
      loop->trouble.null_owner++;   /* no process, or no GPU that faulted */
      return;
    }
  gint64 n = sqlite3_column_int64 (stmt, 5), access = sqlite3_column_int64 (stmt, 6);
  if (G_UNLIKELY (sqlite3_column_type (stmt, 4) == SQLITE_NULL
                  || sqlite3_column_type (stmt, 5) == SQLITE_NULL
                  || sqlite3_column_type (stmt, 6) == SQLITE_NULL || n < 1
                  || n > (gint64) G_MAXUINT32 || access < 0 || access > 255))
    {
      rows->bad++;
      return;
    }
  memset (&f, 0, sizeof f);
  f.start = ev->start;
  f.end = ev->end;
  f.global_pid = (guint64) sqlite3_column_int64 (stmt, 2);
  f.gpu = _sl_reader_gpu_for (r, _sl_clamp_u32 (sqlite3_column_int64 (stmt, 3)));
  f.address = (guint64) sqlite3_column_int64 (stmt, 4);
  f.n_faults = (guint32) n;
  f.access = (guint8) access;
  f.side = SL_UM_FAULT_GPU;
  f.instruction = f.source_file = SL_NO_STR;
  f.seq = rows->seq++;
  g_array_append_val (r->trace->um_faults, f);
}

/* Columns: start, start, globalPid, address, CpuInstruction, sourceFile, sourceLine. */
static void
cpu_fault_row (SlReader     *r,
               sqlite3_stmt *stmt,
               SlEvent      *ev,
               SlRowLoop    *loop)
{
  FaultRows *rows = loop->data;
  SlUmFault f;

  if (G_UNLIKELY (sqlite3_column_type (stmt, 2) == SQLITE_NULL))
    {
      loop->trouble.null_owner++;   /* no process that faulted */
      return;
    }
  if (G_UNLIKELY (sqlite3_column_type (stmt, 3) == SQLITE_NULL))
    {
      rows->bad++;
      return;
    }
  memset (&f, 0, sizeof f);
  f.start = ev->start;
  f.end = ev->start;
  f.global_pid = (guint64) sqlite3_column_int64 (stmt, 2);
  f.gpu = -1;
  f.address = (guint64) sqlite3_column_int64 (stmt, 3);
  f.n_faults = 1;
  f.side = SL_UM_FAULT_CPU;
  f.instruction = _sl_reader_col_str (r, stmt, 4);
  f.source_file = _sl_reader_col_str (r, stmt, 5);
  f.source_line = _sl_clamp_u32 (sqlite3_column_int64 (stmt, 6));
  f.seq = rows->seq++;
  g_array_append_val (r->trace->um_faults, f);
}

static void
faults_done (SlReader  *r,
             SlRowLoop *loop)
{
  FaultRows *rows = loop->data;

  if (rows->bad > 0)
    _sl_trace_warn (r->trace, "%s: %" G_GUINT64_FORMAT " rows of %s have no address, a fault "
                    "count below 1 or an access type that is not nsys's; they were not read",
                    r->trace->path, rows->bad, loop->table);
  _sl_trace_sort_um_faults (r->trace);
}

gboolean
_sl_reader_read_gpu_faults (SlReader *r,
                            GError  **error)
{
  FaultRows rows = { 0, 0 };
  SlRowLoop loop = {
    .table = "CUDA_UM_GPU_PAGE_FAULT_EVENTS", .what = "GPU page faults", .times = TRUE,
    .sql = "SELECT start, end, globalPid, deviceId, {address:NULL}, {numberOfPageFaults:1}, "
           "{faultAccessType:0} FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS",
    .row = gpu_fault_row, .done = faults_done, .data = &rows,
  };

  return _sl_reader_each_row (r, &loop, error);
}

gboolean
_sl_reader_read_cpu_faults (SlReader *r,
                            GError  **error)
{
  FaultRows rows = { 0, 0 };
  SlRowLoop loop = {
    .table = "CUDA_UM_CPU_PAGE_FAULT_EVENTS", .what = "CPU page faults", .times = TRUE,
    .sql = "SELECT start, start, globalPid, {address:NULL}, {CpuInstruction:NULL}, "
           "{sourceFile:NULL}, {sourceLine:NULL} FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS",
    .row = cpu_fault_row, .done = faults_done, .data = &rows,
  };

  return _sl_reader_each_row (r, &loop, error);
}
