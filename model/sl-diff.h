/* sl-diff.h: two traces compared (`sightline diff A B`): a summary report's rows side by side
 * with their deltas, each side's figures (span, GPU utilization, steps) and the findings new in
 * B or gone from it. */
#pragma once

#include "sl-stats.h"
#include "sl-summaries.h"

G_BEGIN_DECLS

/* The reports a diff compares: summaries with a name, a count and a total time per row. */
const char *const *sl_diff_report_names   (void);
gboolean           sl_diff_report_is_valid (const char *name);

/* A finding of one side that the other side lacks. */
typedef struct
{
  const char *rule;       /* "gpu_gaps" (static) */
  const char *title;      /* "GPU idle gaps" (static) */
  char       *summary;    /* the finding's own line, from the side that has it */
  char       *subject;    /* what it is compared by: its cause, or its summary, figures masked */
  SlTime      cost;       /* ns */
} SlDiffFinding;

typedef struct
{
  char          *path;
  char          *no_data;  /* why the side has no rows ("FILE does not contain …"), else NULL */
  SlRankSummary  figures;  /* span, GPUs, GPU time and utilization, steps (sl-summaries.h) */
  guint          n_findings;
} SlDiffSide;

typedef struct
{
  char       *report;     /* "cuda_gpu_kern_sum" */
  /* the rows as a report, so that they are written as `sightline stats` writes its tables:
   * Name, Instances A, Instances B, Total Time A (ns), Total Time B (ns), Delta (ns) (B − A),
   * Delta (%) (against A; NULL when the name is not in A), by |Delta| descending, then name */
  SlReport   *table;
  SlDiffSide  a, b;
  GPtrArray  *new_findings;   /* SlDiffFinding: in B, not in A; most costly first */
  GPtrArray  *gone_findings;  /* SlDiffFinding: in A, not in B; most costly first */
} SlDiff;

typedef enum
{
  SL_DIFF_COLUMN,  /* the table as `stats` prints it, then the summary as lines */
  SL_DIFF_CSV,     /* the table only */
  SL_DIFF_JSON,    /* {"report", "a", "b", "rows": [...], "summary": {...}} */
} SlDiffFormat;

/* Compares `a` and `b` by `report` (one of sl_diff_report_names ()), with every analysis rule at
 * its defaults run on each.  The two sides are computed on two threads.  A side without the
 * report's data has no rows (its `no_data` says why); NULL with SL_STATS_ERROR_NO_DATA when
 * neither has any, with SL_STATS_ERROR_UNKNOWN_REPORT for a report a diff cannot compare. */
SlDiff  *sl_diff_compute (SlTrace     *a,
                          SlTrace     *b,
                          const char  *report,
                          GError     **error);
void     sl_diff_free    (SlDiff      *diff);

/* One trace's part of a diff (its report, figures and findings), for a caller that loads each
 * trace on a thread of its own and computes its part there as soon as it is loaded, while the
 * other trace is still loading.  Holds a reference to the trace.  NULL with
 * SL_STATS_ERROR_UNKNOWN_REPORT for a report a diff cannot compare. */
typedef struct _SlDiffInput SlDiffInput;

SlDiffInput *sl_diff_input_new  (SlTrace            *trace,
                                 const char         *report,
                                 GError            **error);
/* The trace at `path` loaded (every table) and its part computed, on the calling thread: what
 * `sightline diff` runs on each of its two threads.  NULL with the load's error (it names the
 * file) or SL_STATS_ERROR_UNKNOWN_REPORT. */
SlDiffInput *sl_diff_input_load (const char         *path,
                                 const char         *report,
                                 GError            **error);
/* Its rows for another report (the analysis and figures stay): the viewer's comparison computes
 * every report's diff from one analysis of each side.  FALSE with
 * SL_STATS_ERROR_UNKNOWN_REPORT for a report a diff cannot compare. */
gboolean     sl_diff_input_set_report (SlDiffInput  *input,
                                       const char   *report,
                                       GError      **error);
void         sl_diff_input_free (SlDiffInput        *input);
/* The diff of two parts of one report; errors as sl_diff_compute's. */
SlDiff      *sl_diff_join       (const SlDiffInput  *a,
                                 const SlDiffInput  *b,
                                 GError            **error);

gboolean sl_diff_format_parse (const char   *text,
                               SlDiffFormat *format);
void     sl_diff_write   (const SlDiff *diff,
                          SlDiffFormat  format,
                          GString      *out);
/* The summary alone, as the column format writes it after the table (figures side by side,
 * findings new in B and gone from it). */
void     sl_diff_write_summary (const SlDiff *diff,
                                GString      *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlDiff, sl_diff_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlDiffInput, sl_diff_input_free)

G_END_DECLS
