/* sl-stats.h: the `nsys stats` summary reports, computed from a loaded trace (not by SQL). */
#pragma once

#include <glib.h>

#include "sl-trace.h"

G_BEGIN_DECLS

#define SL_STATS_ERROR (sl_stats_error_quark ())

typedef enum
{
  SL_STATS_ERROR_UNKNOWN_REPORT, /* the name is not one of sl_report_names () */
  SL_STATS_ERROR_NO_DATA,        /* the trace lacks what the report needs ("FILE does not
                                  * contain …") */
} SlStatsError;

GQuark sl_stats_error_quark (void);

/* A cell holds what nsys's SQL would return for it: an integer, a double (already rounded
 * where the SQL rounds), a string, or NULL. */
typedef enum
{
  SL_CELL_NULL,
  SL_CELL_INT,
  SL_CELL_DOUBLE,
  SL_CELL_TEXT,
} SlCellType;

typedef struct
{
  SlCellType type;
  union
  {
    gint64      i;
    double      d;
    const char *s;   /* owned by the report */
  } v;
} SlCell;

/* The unit of a column, as nsys's "Label:unit" alias names it.  Cells keep SQL's unit
 * (ns, bytes, bytes/s); MEM_B and THRU_B are shown in MB and MB/s (10^6) when written. */
typedef enum
{
  SL_UNIT_NONE,
  SL_UNIT_RATIO,   /* ratio_% */
  SL_UNIT_DUR_NS,  /* dur_ns */
  SL_UNIT_TS_NS,   /* ts_ns */
  SL_UNIT_MEM_B,   /* mem_B: written as MB */
  SL_UNIT_THRU_B,  /* thru_B: written as MB/s */
} SlUnit;

typedef enum
{
  SL_REPORT_FORMAT_COLUMN,  /* like nsys's console output: aligned, thousands separators */
  SL_REPORT_FORMAT_CSV,
  SL_REPORT_FORMAT_JSON,    /* an array of objects keyed by column header */
} SlReportFormat;

typedef struct _SlReport SlReport;

/* Every report this module computes, NULL-terminated. */
const char *const *sl_report_names           (void);
/* What `nsys stats` runs when given no --report, in its order, NULL-terminated. */
const char *const *sl_report_default_names   (void);
gboolean           sl_report_name_is_valid   (const char     *name);
/* The current name of one of nsys's older report names ("gputrace": "cuda_gpu_trace"), which
 * nsys still takes with a note that it is deprecated; NULL for any other name. */
const char        *sl_report_name_current    (const char     *name);
/* "cudaapisum (cuda_api_sum), …": the older names taken, for --help. */
char              *sl_report_legacy_names_describe (void);
/* The display name nsys gives the report ("CUDA GPU Kernel Summary"), NULL when unknown. */
const char        *sl_report_name_get_title  (const char     *name);
/* One line on what the report is for (`stats --help`); its title where there is none, NULL when
 * the name is unknown. */
const char        *sl_report_name_get_purpose (const char    *name);
/* The tables a report reads, so that a stats run loads only those; 0 when unknown. */
SlLoadFlags        sl_report_needs           (const char     *name);
/* Whether the report has a row per event (cuda_gpu_trace, cuda_api_trace, cuda_kern_exec_trace,
 * nvtx_gpu_proj_trace: up to millions of rows on a large trace) rather than per group. */
gboolean           sl_report_is_per_event    (const char     *name);

gboolean           sl_report_format_parse    (const char     *text,
                                              SlReportFormat *format);

/* NULL with SL_STATS_ERROR_NO_DATA when the trace has none of the report's data. */
SlReport          *sl_report_compute         (SlTrace        *trace,
                                              const char     *name,
                                              GError        **error);
/* The report over the events that start in [t0, t1) (absolute trace times; for
 * cuda_kern_exec_sum the kernels, with their launch calls wherever those start), with the same
 * columns as the whole report, which is this range from G_MININT64 to G_MAXINT64.  A range that
 * holds nothing gives a report without rows; NULL with SL_STATS_ERROR_NO_DATA only when the
 * whole trace lacks the report's data.  Costs O(log n) per lane plus the events in the range. */
SlReport          *sl_report_compute_range   (SlTrace        *trace,
                                              const char     *name,
                                              SlTime          t0,
                                              SlTime          t1,
                                              GError        **error);
/* The report of each of `n` traces (one per rank of a job, as sl_report_compute gives it),
 * their rows one rank after the other, behind a leading "Rank" column of `labels` (rank_sum,
 * which has its own, gets these labels in it).  A rank without the report's data has no rows;
 * NULL with SL_STATS_ERROR_NO_DATA (the first rank's message) only when none has it. */
SlReport          *sl_report_compute_ranks   (SlTrace *const    *traces,
                                              const char *const *labels,
                                              guint              n,
                                              const char        *name,
                                              GError           **error);
/* A merged trace's report rank by rank, as sl_report_compute_ranks gives its files loaded one by
 * one: each source's rows (the events of its lanes that start in [t0, t1)) behind a leading
 * "Rank" column of the sources' labels.  A trace of one file: sl_report_compute_range.  Times
 * are the merged trace's (a file's own plus its offset); the NVTX projection's range ids are the
 * merged trace's own (its files' rowids repeat).  Each event is read once, the list of lanes
 * (and the projection's rows) once per source: a viewer's few to tens of ranks. */
SlReport          *sl_report_compute_sources (SlTrace           *trace,
                                              const char        *name,
                                              SlTime             t0,
                                              SlTime             t1,
                                              GError           **error);
void               sl_report_free            (SlReport       *report);

const char        *sl_report_get_name        (const SlReport *report);
const char        *sl_report_get_title       (const SlReport *report);
/* A copy that owns its text (it holds no trace). */
SlReport          *sl_report_copy            (const SlReport *report);
guint              sl_report_get_n_columns   (const SlReport *report);
/* Header as nsys prints it ("Total Time (ns)", "Total (MB)"). */
const char        *sl_report_get_column      (const SlReport *report,
                                              guint           column);
SlUnit             sl_report_get_column_unit (const SlReport *report,
                                              guint           column);
/* Index of the column with that header, or -1. */
gint               sl_report_find_column     (const SlReport *report,
                                              const char     *header);
gsize              sl_report_get_n_rows      (const SlReport *report);
const SlCell      *sl_report_get_cell        (const SlReport *report,
                                              gsize           row,
                                              guint           column);

/* Appends the report to out.  COLUMN starts with a title line; CSV and JSON hold only data. */
void               sl_report_write           (const SlReport *report,
                                              SlReportFormat  format,
                                              GString        *out);

/* SQLite's round(x, digits): printf-style rounding to that many digits, read back. */
double             sl_stats_round            (double          x,
                                              int             digits);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlReport, sl_report_free)

G_END_DECLS
