/* sl-summaries.h: one rank's figures (computed from its trace for `analyze --format json`, read
 * back by `merge-summaries`) and the ranking of many ranks, slowest first. */
#pragma once

#include <stdio.h>

#include "sl-analyze.h"

G_BEGIN_DECLS

/* How much a finding matters against the time analysed: its cost at least 10% of the span is
 * high, at least 1% medium, less low.  Analyze's findings carry no severity of their own; this is
 * the one place it is decided. */
typedef enum
{
  SL_SEVERITY_HIGH,
  SL_SEVERITY_MEDIUM,
  SL_SEVERITY_LOW,
  SL_N_SEVERITIES
} SlSeverity;

#define SL_SEVERITY_HIGH_SHARE   0.10
#define SL_SEVERITY_MEDIUM_SHARE 0.01

SlSeverity  sl_severity_of   (SlTime cost,
                              SlTime span);
/* "high", "medium", "low" */
const char *sl_severity_name (SlSeverity severity);

typedef struct
{
  char   *source;       /* where the figures came from: the analyze JSON file (merge), else the
                         * trace */
  char   *trace;        /* the trace the analysis read */
  gint64  rank;         /* -1 when the trace does not say */
  gint64  world_size;   /* 0 when the trace does not say */
  SlTime  span;         /* the wall time analysed (the trace, or --range's window), ns; -1
                         * unknown */
  guint   gpus;         /* GPUs that ran work in the trace (it may list the machine's others) */
  SlTime  gpu_time;     /* time some GPU work ran, each GPU's union summed over GPUs, ns; -1
                         * unknown */
  double  gpu_util;     /* gpu_time / (span × gpus), 0 … 1; NAN without GPUs or figures */
  guint   steps;        /* training steps seen (ProfilerStep#N or NVTX "step" ranges) */
  SlTime  step;         /* their median duration, ns; -1 without steps */
  guint   findings[SL_N_SEVERITIES];
  /* sl_summaries_rank() fills these */
  SlTime  key;          /* what "slow" is measured by: the median step where every rank has
                         * steps, else the span */
  double  deviation;    /* key − the ranks' median key, ns */
  double  deviation_pct; /* the same against the median, in % (NAN when the median is 0) */
} SlRankSummary;

void sl_rank_summary_clear (SlRankSummary *s);

/* The figures of `trace` over the window `analysis` ran on, its findings by severity. */
void sl_rank_summary_compute (SlRankSummary    *s,
                              SlTrace          *trace,
                              const SlAnalysis *analysis);

/* Median step duration of the training steps that start in [t0, t1): ranges named
 * "ProfilerStep#N" (Kineto), else NVTX ranges named "step", "train_step", "training_step",
 * "iteration" or "iter" (any case, a number after it), on the one thread that has most of them.
 * -1 when there are none; *n_steps their count. */
SlTime sl_trace_median_step (SlTrace *trace,
                             SlTime   t0,
                             SlTime   t1,
                             guint   *n_steps);

/* One training step (sl_trace_steps). */
typedef struct
{
  gint64 number;   /* the number at the end of its name ("ProfilerStep#12": 12), -1 when none */
  SlTime start, end;
  gint   thread;
} SlStep;

/* Which threads sl_trace_steps looks at. */
typedef gboolean (*SlThreadFilter) (SlTrace *trace,
                                    gint     thread,
                                    gpointer data);

/* The steps sl_trace_median_step takes, among the threads `keep` accepts (NULL: every thread),
 * in time order; an empty array when there are none. */
GArray *sl_trace_steps (SlTrace        *trace,
                        SlTime          t0,
                        SlTime          t1,
                        SlThreadFilter  keep,
                        gpointer        data);

typedef enum
{
  SL_SUMMARIES_COLUMN,
  SL_SUMMARIES_CSV,
  SL_SUMMARIES_JSON,
} SlSummariesFormat;

/* Orders `ranks` (SlRankSummary) slowest first (by key, then GPU time, then rank) and fills each
 * one's key and deviation from the median.  Returns the name of the key ("step" or "span"). */
const char *sl_summaries_rank  (GArray            *ranks);
void        sl_summaries_write (GArray            *ranks,
                                const char        *key,
                                SlSummariesFormat  format,
                                FILE              *out);

G_END_DECLS
