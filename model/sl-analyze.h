/* sl-analyze.h: rules that find the bottleneck in a trace, each finding with its evidence. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

/* A parameter of a rule: a threshold the command line can set ("gpu_gaps.gap=2ms"). */
typedef enum
{
  SL_PARAM_DURATION,   /* ns; written with a unit: 500us, 2ms, 1.5s */
  SL_PARAM_FRACTION,   /* 0..1; written as a percentage: 80% (or 0.8) */
  SL_PARAM_COUNT,      /* a whole number */
  SL_PARAM_BYTES,      /* bytes; 64k, 1M accepted */
} SlParamKind;

typedef struct
{
  const char  *name;
  SlParamKind  kind;
  double       def;         /* default, in ns, 0..1, or units */
  const char  *help;
} SlRuleParam;

typedef struct
{
  const char        *name;         /* "gpu_gaps" */
  const char        *title;        /* "GPU idle gaps" */
  const char        *description;  /* one line */
  const SlRuleParam *params;       /* terminated by a NULL name */
} SlRule;

/* The rules, in the order they run and print; terminated by a NULL name. */
const SlRule *sl_analyze_rules     (void);
const SlRule *sl_analyze_find_rule (const char *name);

/* An event a finding points at: lane index and event index. */
typedef struct
{
  guint32 lane;
  gsize   index;
} SlFindingEvent;

/* A figure of the evidence, for people (label, text) and for scripts (key, value). */
typedef struct
{
  char   *key;      /* "gap_ns", "api_share" */
  char   *label;    /* "Gap" */
  char   *text;     /* "612.000 ms" */
  double  value;    /* the number behind it, in ns, bytes, counts or 0..1 */
} SlEvidence;

/* What covers most of a span of GPU idle time on the threads that launch its work. */
typedef enum
{
  SL_BLAME_NONE,       /* nothing covers half of it: no single cause */
  SL_BLAME_NVTX,       /* an NVTX range (a framework operator: aten::…) */
  SL_BLAME_CUDA_API,   /* a CUDA call */
  SL_BLAME_OSRT,       /* an OS runtime call */
  SL_BLAME_SAMPLE,     /* the function most CPU samples are in */
  SL_BLAME_STATE,      /* a thread state (blocked, runnable) without a call to name */
} SlBlameKind;

typedef struct
{
  SlBlameKind kind;
  char       *name;       /* the range, call, function or state; NULL for SL_BLAME_NONE */
  guint32     name_id;    /* its string id for a call or range, else SL_NO_STR */
  gint        thread;     /* thread index, -1 for SL_BLAME_NONE */
  SlTime      overlap;    /* ns of the span it covers: its events of that name on that thread,
                           * clipped to the span and summed (samples: their count × period) */
} SlBlame;

const char *sl_blame_kind_name (SlBlameKind kind);

typedef struct
{
  const SlRule *rule;
  SlTime        start, end;     /* where it happens */
  SlTime        cost;           /* time it costs (or puts at stake), ns: findings sort by it */
  char         *summary;        /* one line: "GPU 0 idle for 612 ms while main blocks in read" */
  char         *advice;
  gint          gpu;            /* GPU device id (as the timeline names it), -1 when none */
  gint          thread;         /* thread index, -1 when none */
  guint64       global_pid;     /* 0 when none */
  guint32       stream;         /* stream id, 0 when none */
  gint          source;         /* the file (of a merged trace: the rank) its lanes, thread and
                                 * process are of, -1 when they are of several or none; in a
                                 * merged trace its summary and cause begin with that rank's
                                 * label ("rank 1: …") */
  GArray       *evidence;       /* SlEvidence */
  GArray       *events;         /* SlFindingEvent: the events involved (at most a few hundred) */
  GArray       *lanes;          /* guint32: lanes involved */
  char         *cause;          /* what findings of its rule with one cause share ("GPU 0 idle;
                                 * python3 [100] in cuStreamSynchronize"): such findings are
                                 * grouped into one; NULL: never grouped */
  GPtrArray    *instances;      /* SlFinding: a group's findings, in time order (each with its
                                 * own range, cost, events and lanes); NULL when not a group */
  gboolean      idle_view;      /* its cost is GPU idle time attributed to it from the idle
                                 * account (evidence attributed_idle_ns): for each GPU, such
                                 * findings never spend the same nanosecond twice */
  SlTime        attributed_idle; /* that time, ns */
  SlBlame      *blame;          /* what covers most of its idle span; NULL when not judged */
} SlFinding;

/* Thresholds: rule.param → value, as set on the command line; unset ones keep their default. */
typedef struct _SlAnalyzeParams SlAnalyzeParams;

SlAnalyzeParams *sl_analyze_params_new   (void);
void             sl_analyze_params_free  (SlAnalyzeParams *params);
/* "gpu_gaps.gap=2ms": FALSE with an error naming what is wrong (no such rule or parameter, a
 * value that does not parse or is out of range). */
gboolean         sl_analyze_params_set   (SlAnalyzeParams *params,
                                          const char      *assignment,
                                          GError         **error);
double           sl_analyze_params_get   (const SlAnalyzeParams *params,
                                          const SlRule          *rule,
                                          const char            *name);
/* Analyse only the window [t0, t1) (absolute trace times, as sl_range_parse gives them): the
 * events that start in it (kernels; for the copy, set and sync rules the CUDA calls), each GPU's
 * span, gaps and utilization clipped to it; findings and the events they list lie inside it.
 * 0, 0: the whole trace. */
void             sl_analyze_params_set_range (SlAnalyzeParams *params,
                                              SlTime           t0,
                                              SlTime           t1);
/* A value as the command line would write it: "500 µs", "80%", "1000". */
char            *sl_analyze_param_format (SlParamKind kind,
                                          double      value);

typedef struct
{
  const SlRule *rule;
  guint         n_findings;
  SlTime        cost;           /* summed over its findings */
  char         *note;           /* what it looked at, or why it could not run */
} SlRuleSummary;

/* A GPU's time over the window analysed: busy by what, idle by cause (the one account the
 * findings' idle time comes from) and how much of it findings account for. */
typedef struct
{
  guint32 device_id;
  SlTime  start, end;         /* the window: the trace's span (its rank's, in a merged trace) */
  SlTime  kernels;            /* a kernel running */
  SlTime  copies;             /* copies and no kernel */
  SlTime  sets;               /* sets only */
  SlTime  idle;               /* nothing running */
  SlTime  idle_by_cause[6];   /* queued, copy, sync, launch, host, untraced: a partition of idle */
  SlTime  attributed;         /* idle time given to findings (attributed_idle_ns, summed) */
} SlGpuTime;

const char *sl_idle_cause_label (guint cause);

typedef struct
{
  GPtrArray *findings;   /* SlFinding, most costly first */
  GArray    *gpu_times;  /* SlGpuTime, for each GPU with work, in the trace's GPU order */
  GArray    *summaries;  /* SlRuleSummary, one per rule run, in rule order */
  SlTime     t0, t1;     /* the window analysed; 0, 0 for the whole trace */
  char      *lacks;      /* what the trace lacks for the rules ("no CUDA API calls, no GPU
                          * activity (kernels, copies, memsets)") and what it holds instead;
                          * NULL when it has both CUDA calls and GPU work */
} SlAnalysis;

/* Runs `rules` (NULL: all) over the trace.  FALSE with an error for an unknown rule name.
 * Findings of one rule with one cause (SlFinding.cause) come as one group finding: its count of
 * instances, their summed cost, the span of them all, and the instances under it. */
SlAnalysis *sl_analyze      (SlTrace               *trace,
                             const char *const     *rules,
                             const SlAnalyzeParams *params,
                             GError               **error);
void        sl_analysis_free (SlAnalysis *analysis);

/* The findings as text (ordered by cost, a summary line per rule) or JSON; what the trace lacks
 * and nsys's diagnostics (warnings and errors in the text, all in the JSON) with them. */
char       *sl_analysis_to_text (const SlAnalysis *analysis,
                                 SlTrace          *trace);
char       *sl_analysis_to_json (const SlAnalysis *analysis,
                                 SlTrace          *trace);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlAnalysis, sl_analysis_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlAnalyzeParams, sl_analyze_params_free)

G_END_DECLS
