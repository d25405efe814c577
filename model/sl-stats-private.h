/* sl-stats-private.h: what the stats files share: the report object, the report table,
 * aggregates. */
#pragma once

#include "sl-lane.h"
#include "sl-stats.h"
#include "sl-trace-private.h"

G_BEGIN_DECLS

typedef struct
{
  const char *header;
  SlUnit      unit;
} _SlColumn;

struct _SlReport
{
  char            *name;
  const char      *title;
  const _SlColumn *columns;
  guint            n_columns;
  GArray          *cells;      /* SlCell, row-major */
  GStringChunk    *strings;    /* text of cells not owned by the trace */
  SlTrace         *trace;      /* keeps the trace's strings alive */
  _SlColumn       *own_columns; /* `columns` when made for this report (a Rank column added),
                                 * else NULL */
  GPtrArray       *parts;      /* SlReport: the ranks' reports whose cells it holds, or NULL */
};

typedef enum
{
  _SL_ORDER_TOTAL_DESC,             /* ORDER BY 2 DESC (ties: name, style) */
  _SL_ORDER_TOTAL_DESC_COUNT_NAME,  /* ORDER BY 2 DESC, 3, "Name" */
} _SlSummaryOrder;

typedef struct _SlReportInfo _SlReportInfo;

/* Computes a report over the events that start in [t0, t1); the whole trace is
 * [G_MININT64, G_MAXINT64).  `source` >= 0 reads only that source's lanes (one file of a merged
 * trace: its rank's rows, as that file alone gives them); -1 reads every lane.  NULL with
 * SL_STATS_ERROR_NO_DATA when the trace (not the range) lacks the report's data: a range with
 * nothing in it gives a report without rows. */
typedef SlReport *(*_SlReportComputeFunc) (SlTrace             *trace,
                                           const _SlReportInfo *info,
                                           SlTime               t0,
                                           SlTime               t1,
                                           gint                 source,
                                           GError             **error);

/* One report of `nsys stats`: a row of the table in sl-stats-reports.c. */
struct _SlReportInfo
{
  const char           *name;
  const char           *title;
  SlLoadFlags           needs;
  _SlReportComputeFunc  compute;
  const _SlColumn      *columns;
  guint                 n_columns;
  /* the time summaries that differ only in these: the lanes they read, what the error says a
   * trace without them lacks, and their ORDER BY */
  SlLaneKind            kind;
  SlLaneKind            also;
  const char           *what;
  _SlSummaryOrder       order;
  gboolean              per_event;  /* a row per event (a trace, not a summary) */
};

/* sl-stats-reports.c: the table, in sl_report_names () order, and a lookup in it */
extern const _SlReportInfo _sl_report_infos[];
extern const guint         _sl_n_report_infos;
const _SlReportInfo *_sl_report_info_find (const char *name);

/* sl-stats.c: a report without rows, shaped by `info` */
SlReport *_sl_report_new (SlTrace             *trace,
                          const _SlReportInfo *info);

/* A report's cells, appended row-major: inline, since cuda_gpu_trace appends 21 a GPU operation
 * (10^8 for a large trace). */
static inline void
_sl_report_add_int (SlReport *r,
                    gint64    v)
{
  SlCell c = { .type = SL_CELL_INT, .v.i = v };
  g_array_append_val (r->cells, c);
}

static inline void
_sl_report_add_double (SlReport *r,
                       double    v)
{
  SlCell c = { .type = SL_CELL_DOUBLE, .v.d = v };
  g_array_append_val (r->cells, c);
}

static inline void
_sl_report_add_null (SlReport *r)
{
  SlCell c = { .type = SL_CELL_NULL };
  g_array_append_val (r->cells, c);
}

/* s must outlive the report: a trace string or one in r->strings; NULL adds a NULL cell */
static inline void
_sl_report_add_text (SlReport   *r,
                     const char *s)
{
  SlCell c = { .type = s != NULL ? SL_CELL_TEXT : SL_CELL_NULL, .v.s = s };
  g_array_append_val (r->cells, c);
}

/* sl-stats-reports.c: what the report functions share ----------------------------------- */

/* The events of `lane` that start in [t0, t1): indices [*first, *end). */
static inline void
_sl_stats_lane_range (const SlLane *lane,
                      SlTime        t0,
                      SlTime        t1,
                      gsize        *first,
                      gsize        *end)
{
  *first = t0 == G_MININT64 ? 0 : sl_lane_lower_bound (lane, t0);
  *end = t1 == G_MAXINT64 ? lane->n_events : sl_lane_lower_bound (lane, t1);
  if (*end < *first)
    *end = *first;
}

/* Whether a report over `source` (-1: every source) reads `lane`. */
static inline gboolean
_sl_stats_lane_in (const SlLane *lane,
                   gint          source)
{
  return source < 0 || lane->source == (guint32) source;
}

/* Whether the trace (its source `source`, -1: any) has an event in a lane of that kind. */
gboolean _sl_stats_trace_has (SlTrace    *trace,
                              SlLaneKind  kind,
                              gint        source);
/* Sets SL_STATS_ERROR_NO_DATA "FILE does not contain WHAT."; returns FALSE. */
gboolean _sl_stats_no_data   (SlTrace    *trace,
                              GError    **error,
                              const char *what);
/* The GPU's device id, 0 for a lane of no known GPU. */
guint32  _sl_stats_lane_device_id (SlTrace      *trace,
                                   const SlLane *lane);

/* A kernel and the call that launched it (same correlation id in the same process: the model's
 * `link`), as nsys's cuda_kern_exec_* scripts JOIN them. */
typedef struct
{
  const SlEvent  *kernel;
  const SlEvent  *api;
  const SlThread *thread;     /* the launching thread */
  guint32         device_id;  /* the kernel's GPU */
} _SlLaunch;

/* The kernels that start in [t0, t1) (of source `source`, -1: all) with their launch calls
 * (those without one in the trace are left out), lane by lane; a kernel whose id several nested
 * calls share comes once per call, as in nsys's JOIN.  NULL and SL_STATS_ERROR_NO_DATA when the
 * trace has no kernels or no CUDA API calls. */
GArray     *_sl_stats_launches (SlTrace    *trace,
                                SlTime      t0,
                                SlTime      t1,
                                gint        source,
                                GError    **error);
/* An API name without "_vNNNN", interned in the report's chunk (pointer-equal for equal text);
 * `names` caches them by string id. */
const char *_sl_stats_api_name (SlReport   *r,
                                GHashTable *names,
                                guint32     id);

/* sl-stats-nvtx.c and sl-stats-traces.c: the reports that are not in sl-stats-reports.c */
SlReport *_sl_report_compute_nvtx_gpu_proj_trace (SlTrace             *trace,
                                                  const _SlReportInfo *info,
                                                  SlTime               t0,
                                                  SlTime               t1,
                                                  gint                 source,
                                                  GError             **error);
SlReport *_sl_report_compute_nvtx_gpu_proj_sum   (SlTrace             *trace,
                                                  const _SlReportInfo *info,
                                                  SlTime               t0,
                                                  SlTime               t1,
                                                  gint                 source,
                                                  GError             **error);
SlReport *_sl_report_compute_nvtx_kern_sum       (SlTrace             *trace,
                                                  const _SlReportInfo *info,
                                                  SlTime               t0,
                                                  SlTime               t1,
                                                  gint                 source,
                                                  GError             **error);
SlReport *_sl_report_compute_cuda_api_trace      (SlTrace             *trace,
                                                  const _SlReportInfo *info,
                                                  SlTime               t0,
                                                  SlTime               t1,
                                                  gint                 source,
                                                  GError             **error);
SlReport *_sl_report_compute_cuda_kern_exec_trace (SlTrace             *trace,
                                                   const _SlReportInfo *info,
                                                   SlTime               t0,
                                                   SlTime               t1,
                                                   gint                 source,
                                                   GError             **error);
SlReport *_sl_report_compute_nvtx_pushpop_trace (SlTrace             *trace,
                                                 const _SlReportInfo *info,
                                                 SlTime               t0,
                                                 SlTime               t1,
                                                 gint                 source,
                                                 GError             **error);
extern const _SlColumn _sl_nvtx_pushpop_trace_columns[14];
extern const _SlColumn _sl_nvtx_gpu_proj_trace_columns[14];
extern const _SlColumn _sl_nvtx_gpu_proj_sum_columns[14];
extern const _SlColumn _sl_nvtx_kern_sum_columns[13];
extern const _SlColumn _sl_cuda_api_trace_columns[9];
extern const _SlColumn _sl_cuda_kern_exec_trace_columns[14];

/* sl-stats-ranks.c: rank_sum, a row per rank (source) of the trace */
SlReport *_sl_report_compute_rank_sum            (SlTrace             *trace,
                                                  const _SlReportInfo *info,
                                                  SlTime               t0,
                                                  SlTime               t1,
                                                  gint                 source,
                                                  GError             **error);
extern const _SlColumn _sl_rank_sum_columns[10];

/* sl-stats-um.c: um_sum, um_total_sum, um_cpu_page_faults_sum, read from the trace's files (the
 * model keeps no page faults nor migration addresses) */
SlReport *_sl_report_compute_um_sum              (SlTrace             *trace,
                                                  const _SlReportInfo *info,
                                                  SlTime               t0,
                                                  SlTime               t1,
                                                  gint                 source,
                                                  GError             **error);
SlReport *_sl_report_compute_um_total_sum        (SlTrace             *trace,
                                                  const _SlReportInfo *info,
                                                  SlTime               t0,
                                                  SlTime               t1,
                                                  gint                 source,
                                                  GError             **error);
SlReport *_sl_report_compute_um_cpu_page_faults_sum (SlTrace             *trace,
                                                     const _SlReportInfo *info,
                                                     SlTime               t0,
                                                     SlTime               t1,
                                                     gint                 source,
                                                     GError             **error);
extern const _SlColumn _sl_um_sum_columns[6];
extern const _SlColumn _sl_um_total_sum_columns[6];
extern const _SlColumn _sl_um_cpu_page_faults_sum_columns[4];

/* sl-stats-syscall.c: syscall_sum, read from the SYSCALL table of the trace's files (the model
 * keeps no syscalls) */
SlReport *_sl_report_compute_syscall_sum          (SlTrace             *trace,
                                                   const _SlReportInfo *info,
                                                   SlTime               t0,
                                                   SlTime               t1,
                                                   gint                 source,
                                                   GError             **error);

/* sl-stats-metrics.c: Sightline's gpu_metrics_sum and gpu_metrics_kern_sum, from GPU_METRICS */
SlReport *_sl_report_compute_gpu_metrics_sum      (SlTrace             *trace,
                                                   const _SlReportInfo *info,
                                                   SlTime               t0,
                                                   SlTime               t1,
                                                   gint                 source,
                                                   GError             **error);
SlReport *_sl_report_compute_gpu_metrics_kern_sum (SlTrace             *trace,
                                                   const _SlReportInfo *info,
                                                   SlTime               t0,
                                                   SlTime               t1,
                                                   gint                 source,
                                                   GError             **error);
extern const _SlColumn _sl_gpu_metrics_sum_columns[6];
extern const _SlColumn _sl_gpu_metrics_kern_sum_columns[6];

/* sl-stats-mpi.c: mpi_event_sum, mpi_event_trace, mpi_msg_size_sum (NVIDIA's MPI reports) */
SlReport *_sl_report_compute_mpi_event_sum    (SlTrace             *trace,
                                               const _SlReportInfo *info,
                                               SlTime               t0,
                                               SlTime               t1,
                                               gint                 source,
                                               GError             **error);
SlReport *_sl_report_compute_mpi_event_trace  (SlTrace             *trace,
                                               const _SlReportInfo *info,
                                               SlTime               t0,
                                               SlTime               t1,
                                               gint                 source,
                                               GError             **error);
SlReport *_sl_report_compute_mpi_msg_size_sum (SlTrace             *trace,
                                               const _SlReportInfo *info,
                                               SlTime               t0,
                                               SlTime               t1,
                                               gint                 source,
                                               GError             **error);
extern const _SlColumn _sl_mpi_event_sum_columns[10];
extern const _SlColumn _sl_mpi_event_trace_columns[13];
extern const _SlColumn _sl_mpi_msg_size_sum_columns[9];

/* sl-stats-openmp.c: openmp_sum, openacc_sum (NVIDIA's OpenMP and OpenACC reports) */
SlReport *_sl_report_compute_openmp_sum  (SlTrace             *trace,
                                          const _SlReportInfo *info,
                                          SlTime               t0,
                                          SlTime               t1,
                                          gint                 source,
                                          GError             **error);
SlReport *_sl_report_compute_openacc_sum (SlTrace             *trace,
                                          const _SlReportInfo *info,
                                          SlTime               t0,
                                          SlTime               t1,
                                          gint                 source,
                                          GError             **error);
extern const _SlColumn _sl_openmp_sum_columns[9];
extern const _SlColumn _sl_openacc_sum_columns[9];

/* sl-stats-aggregate.c -------------------------------------------------------------------- */

/* One group's values: sum (saturating at G_MAXINT64 / G_MININT64: a damaged file's durations
 * reach 2^62 each, and SQLite's sum() would fail with "integer overflow" there), count, extremes, Welford's running mean and M2 in the order
 * values arrive (as extension-functions.c's stdev() sees them), and the values themselves for
 * the median. */
typedef struct
{
  GArray *values;  /* gint64 */
  gint64  total;
  gint64  n;
  gint64  min;
  gint64  max;
  double  mean;
  double  m2;
} _SlAcc;

void   _sl_acc_init   (_SlAcc *a);
void   _sl_acc_clear  (_SlAcc *a);
double _sl_acc_avg    (const _SlAcc *a);
double _sl_acc_stdev  (const _SlAcc *a);
/* median(): reorders the values (selection, O(n) expected) */
double _sl_acc_median (_SlAcc *a);

static inline void
_sl_acc_add (_SlAcc *a,
             gint64  v)
{
  if (a->n == 0 || v < a->min)
    a->min = v;
  if (a->n == 0 || v > a->max)
    a->max = v;
  a->n++;
  a->total = _sl_time_add (a->total, v);
  double x = (double) v;
  double delta = x - a->mean;
  a->mean += delta / a->n;
  a->m2 += delta * (x - a->mean);
  g_array_append_val (a->values, v);
}

/* A summary's group: its values and the name column(s) it is shown under. */
typedef struct
{
  _SlAcc      acc;
  const char *name;    /* the Name / Operation / Range column */
  const char *style;   /* nvtx_sum only */
  guint32     key;     /* string id it was grouped by */
} _SlGroup;

typedef struct
{
  GPtrArray  *groups;  /* _SlGroup *, owned */
  GPtrArray  *by_id;   /* _SlGroup * indexed by string id, for O(1) lookup per event */
  GHashTable *by_key;  /* guint64 key -> _SlGroup *, where one id is not the key */
} _SlGroups;

void      _sl_groups_init   (_SlGroups *gs);
void      _sl_groups_clear  (_SlGroups *gs);
_SlGroup *_sl_groups_by_key (_SlGroups *gs,
                             guint64    key,
                             gboolean  *created);
/* the slow path of _sl_groups_by_id: a new group for that id */
_SlGroup *_sl_groups_add_id (_SlGroups *gs,
                             guint32    id);

static inline _SlGroup *
_sl_groups_by_id (_SlGroups *gs,
                  guint32    id)
{
  if (id < gs->by_id->len)
    {
      _SlGroup *g = g_ptr_array_index (gs->by_id, id);
      if (g != NULL)
        return g;
    }
  return _sl_groups_add_id (gs, id);
}

void   _sl_groups_sort      (_SlGroups      *gs,
                             _SlSummaryOrder order);

/* sl-stats-reports.c: a time summary's rows, one a group (summary_row's eight columns, then
 * the group's style where it has one, then its name), ordered by `order` */
SlReport *_sl_stats_summary_emit (SlReport        *r,
                                  _SlGroups       *gs,
                                  _SlSummaryOrder  order);

/* cuda_api_sum and cuda_kern_exec_sum show API names without "_vNNNN": the length kept */
gsize  _sl_api_name_length  (const char *name);

/* Whether every NVTX range has its NVTX_EVENTS rowid (SL_NVTX_ROWID): not a JSON trace's, nor one
 * past SL_NVTX_ROWID_MAX, nor those of traces merged from several files, whose rowids repeat.
 * One look at each NVTX event (10^3 … 10^6 of them). */
gboolean _sl_nvtx_ranges_have_rowids (SlTrace      *trace);
/* nsys's RangeId of an NVTX range: its NVTX_EVENTS rowid; where the trace lacks them
 * (!by_rowid), its global event id + 1 (unique in the trace, not nsys's, and what a SQLite export
 * of the trace writes as the row's rowid) */
guint32  _sl_nvtx_range_id           (const SlLane *lane,
                                      gsize         index,
                                      gboolean      by_rowid);

G_END_DECLS
