/* sl-analyze.c: the registry of `sightline analyze`: the table of rules and their thresholds,
 * `--set` parsing, and running the rules (sl-analyze-gpu.c, -bound.c, -sync.c, -kernels.c,
 * -metrics.c …) over a trace or a window of it, most costly finding first.
 *
 * Each rule reads the model (lanes, GPU busy unions, kernel and copy tables) and adds findings
 * with their time range, where they happen, the figures that show it, what they cost and what to
 * do.  Everything is one or a few linear passes over the lanes involved, or O(log n) queries per
 * window: a 10^7-event trace is analysed in about its load time.
 */
#include "sl-analyze-private.h"

#include <math.h>
#include <string.h>

#include "sl-format.h"

/* --- rules and parameters --------------------------------------------------------------------- */

static const SlRuleParam p_gpu_util[] = {
  { "threshold", SL_PARAM_FRACTION, 0.80, "a chunk is low below this share of busy time" },
  { "chunks", SL_PARAM_COUNT, 30, "chunks the GPU's active span is cut into (1…1000)" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_gpu_gaps[] = {
  { "gap", SL_PARAM_DURATION, 500.0 * SL_US, "shortest idle gap reported" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_cpu_bound[] = {
  { "window", SL_PARAM_DURATION, 100.0 * SL_MS, "stretches are judged in windows of this length" },
  { "threshold", SL_PARAM_FRACTION, 0.80, "the GPU waits when busy less than this" },
  { "busy", SL_PARAM_FRACTION, 0.50, "the CPU side is busy above this share of a window" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_gpu_bound[] = {
  { "window", SL_PARAM_DURATION, 100.0 * SL_MS, "stretches are judged in windows of this length" },
  { "threshold", SL_PARAM_FRACTION, 0.95, "the GPU is saturated above this busy share" },
  { "sync", SL_PARAM_FRACTION, 0.50, "the launching thread waits in sync calls above this share" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_copy_bound[] = {
  { "window", SL_PARAM_DURATION, 100.0 * SL_MS, "stretches are judged in windows of this length" },
  { "threshold", SL_PARAM_FRACTION, 0.80, "the GPU is busy above this share of a window" },
  { "copies", SL_PARAM_FRACTION, 0.50,
    "copies (no kernel running) take this share of its busy time" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_sync_memcpy[] = {
  { "min_bytes", SL_PARAM_BYTES, 64000, "host-to-device copies of this size or less are left out" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_none[] = {
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_tiny_kernels[] = {
  { "duration", SL_PARAM_DURATION, 10.0 * SL_US,
    "a kernel is tiny when its median duration is below" },
  { "count", SL_PARAM_COUNT, 1000, "fewest instances of a kernel worth reporting" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_low_occupancy[] = {
  { "occupancy", SL_PARAM_FRACTION, 0.50, "theoretical occupancy below this is low" },
  { "share", SL_PARAM_FRACTION, 0.10, "smallest share of the GPU's kernel time worth reporting" },
  { "time", SL_PARAM_DURATION, 1.0 * SL_MS, "smallest GPU time of a kernel worth reporting" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_tail_effect[] = {
  { "waves", SL_PARAM_COUNT, 2, "grids of fewer waves than this are judged" },
  { "fill", SL_PARAM_FRACTION, 0.50, "a last wave giving fewer SMs than this a block is a tail" },
  { "share", SL_PARAM_FRACTION, 0.10, "smallest share of the GPU's kernel time worth reporting" },
  { "time", SL_PARAM_DURATION, 1.0 * SL_MS,
    "smallest GPU time of a kernel worth reporting, and of its time with no kernel beside it" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_launch_latency[] = {
  { "latency", SL_PARAM_DURATION, 200.0 * SL_US, "launch call to GPU start above this is late" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_straggler[] = {
  { "excess", SL_PARAM_FRACTION, 0.05,
    "reported when the slowest rank takes this much longer than the others to reach a step's "
    "collectives" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_mpi_straggler[] = {
  { "excess", SL_PARAM_FRACTION, 0.25,
    "reported when the rank that waits least in MPI waits this much less than the others' "
    "median" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_memory_churn[] = {
  { "count", SL_PARAM_COUNT, 50,
    "fewest allocation and free calls of a thread after the first tenth of the trace" },
  { "time", SL_PARAM_DURATION, 1.0 * SL_MS, "least host time in them worth reporting" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_memory_growth[] = {
  { "count", SL_PARAM_COUNT, 10,
    "fewest allocations made after the first tenth of the trace and never freed" },
  { "bytes", SL_PARAM_BYTES, 64.0 * 1024 * 1024, "least bytes of them worth reporting" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_um_migrations[] = {
  { "share", SL_PARAM_FRACTION, 0.10,
    "reported when migrations on page faults take this share of the GPU's busy time" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_memory_peak[] = {
  { "share", SL_PARAM_FRACTION, 0.90, "a peak above this share of the GPU's memory is near full" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_low_sm_activity[] = {
  { "sm_active", SL_PARAM_FRACTION, 0.50, "SMs Active over a kernel's runs below this is low" },
  { "occupancy", SL_PARAM_FRACTION, 0.20,
    "achieved occupancy (warps per active SM cycle ÷ the SM's maximum) below this is low" },
  { "share", SL_PARAM_FRACTION, 0.10, "smallest share of the GPU's busy time worth reporting" },
  { "time", SL_PARAM_DURATION, 1.0 * SL_MS, "smallest GPU time of a kernel worth reporting" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_idle_breakdown[] = {
  { "idle", SL_PARAM_FRACTION, 0.20, "reported when the GPU is idle this share of the trace" },
  { NULL, 0, 0, NULL },
};

enum
{
  RULE_GPU_UTIL,
  RULE_GPU_GAPS,
  RULE_CPU_BOUND,
  RULE_GPU_BOUND,
  RULE_COPY_BOUND,
  RULE_SYNC_MEMCPY,
  RULE_PAGEABLE_MEMCPY,
  RULE_SYNC_MEMSET,
  RULE_SYNC_API,
  RULE_TINY_KERNELS,
  RULE_LOW_OCCUPANCY,
  RULE_TAIL_EFFECT,
  RULE_LAUNCH_LATENCY,
  RULE_IDLE_BREAKDOWN,
  RULE_STRAGGLER,
  RULE_MEMORY_CHURN,
  RULE_MEMORY_GROWTH,
  RULE_MEMORY_PEAK,
  RULE_UM_MIGRATIONS,
  RULE_LOW_SM_ACTIVITY,
  RULE_MPI_STRAGGLER,
  N_RULES
};

static const SlRule rules[N_RULES + 1] = {
  { "gpu_util", "GPU utilization",
    "stretches where a GPU is busy less than a threshold of the time", p_gpu_util },
  { "gpu_gaps", "GPU idle gaps",
    "GPU idle gaps longer than a threshold, with what the CPU did meanwhile", p_gpu_gaps },
  { "cpu_bound", "CPU-bound stretches",
    "the GPU waits while the CPU side is busy: launch overhead or the data loader", p_cpu_bound },
  { "gpu_bound", "GPU-bound stretches",
    "the GPU is saturated running kernels and the launching thread waits for it in sync calls",
    p_gpu_bound },
  { "copy_bound", "Copy-bound stretches",
    "the GPU is busy mostly copying memory, not running kernels: pinned or pageable, the "
    "bandwidth achieved against the link's", p_copy_bound },
  { "sync_memcpy", "Synchronous memcpy",
    "cudaMemcpy calls that block the host (as nsys cuda_memcpy_sync)", p_sync_memcpy },
  { "pageable_memcpy", "Async memcpy with pageable memory",
    "cudaMemcpyAsync from or to pageable memory: synchronous in fact (as nsys cuda_memcpy_async)",
    p_none },
  { "sync_memset", "Synchronous memset",
    "cudaMemset on pinned or managed memory, which blocks the host (as nsys cuda_memset_sync)",
    p_none },
  { "sync_api", "Synchronization APIs",
    "cudaDeviceSynchronize and cudaStreamSynchronize calls (as nsys cuda_api_sync)", p_none },
  { "tiny_kernels", "Tiny kernels",
    "kernels so short and frequent that launch overhead dominates", p_tiny_kernels },
  { "low_occupancy", "Low occupancy",
    "kernels taking a large share of GPU time at low theoretical occupancy", p_low_occupancy },
  { "tail_effect", "Tail effect",
    "kernels taking a large share of GPU time whose grid of under two waves leaves most SMs "
    "idle in its last wave", p_tail_effect },
  { "launch_latency", "Launch latency",
    "GPU idle time while kernels launched for it waited to start (a dependency, the driver)",
    p_launch_latency },
  { "idle_breakdown", "GPU time breakdown",
    "each GPU's time over the trace: busy (kernels, copies, sets) and idle by cause, the one "
    "account the other findings' idle time comes from",
    p_idle_breakdown },
  { "straggler", "Straggler rank",
    "in a trace of several ranks (files merged, processes with a rank, or processes running NCCL "
    "on GPUs of their own), the rank the others wait for in each step's collectives (without "
    "steps: in the collectives themselves), and what it does differently", p_straggler },
  { "memory_churn", "Allocation churn",
    "a thread allocating and freeing device memory over and over (cudaMalloc / cudaFree in a "
    "loop): host time in those calls, and cudaFree waits for the device", p_memory_churn },
  { "memory_growth", "GPU memory growth",
    "device memory allocated after start-up and never freed, growing step after step "
    "(CUDA_GPU_MEMORY_USAGE_EVENTS, nsys --cuda-memory-usage)", p_memory_growth },
  { "memory_peak", "GPU memory near full",
    "a GPU's memory in use peaking near its capacity (CUDA_GPU_MEMORY_USAGE_EVENTS and the GPU's "
    "memory size)", p_memory_peak },
  { "um_migrations", "Unified-memory page faults",
    "GPU time in unified-memory migrations made on page faults (the kernel or host waited for "
    "them) against prefetches, by the trace's causes", p_um_migrations },
  { "low_sm_activity", "Low SM activity",
    "kernels taking a large share of a GPU's busy time while its GPU metrics show SMs mostly idle "
    "or few warps per active SM (achieved occupancy), with the theoretical occupancy's limit "
    "(GPU_METRICS, nsys --gpu-metrics-devices)", p_low_sm_activity },
  { "mpi_straggler", "MPI straggler",
    "in an MPI job (nsys -t mpi, or NVTX ranges of a domain \"MPI\"): each rank's time in MPI "
    "waits and the share of its MPI time its GPU kept computing, and the rank the others wait "
    "for in MPI", p_mpi_straggler },
  { NULL, NULL, NULL, NULL },
};

const SlRule *
sl_analyze_rules (void)
{
  return rules;
}

const SlRule *
sl_analyze_find_rule (const char *name)
{
  for (guint i = 0; i < N_RULES; i++)
    if (g_strcmp0 (rules[i].name, name) == 0)
      return &rules[i];
  return NULL;
}

static const SlRuleParam *
find_param (const SlRule *rule,
            const char   *name)
{
  for (const SlRuleParam *p = rule->params; p->name != NULL; p++)
    if (strcmp (p->name, name) == 0)
      return p;
  return NULL;
}

struct _SlAnalyzeParams
{
  GHashTable *values;   /* "rule.param" → double* */
  SlTime      t0, t1;   /* the window; 0, 0 for the whole trace */
};

SlAnalyzeParams *
sl_analyze_params_new (void)
{
  SlAnalyzeParams *p = g_new0 (SlAnalyzeParams, 1);

  p->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return p;
}

void
sl_analyze_params_free (SlAnalyzeParams *params)
{
  if (params == NULL)
    return;
  g_hash_table_unref (params->values);
  g_free (params);
}

/* "500us" → 500000; FALSE when it does not parse. */
static gboolean
parse_value (SlParamKind   kind,
             const char   *text,
             double       *out,
             const char  **why)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);

  if (end == text || !isfinite (v) || v < 0)
    {
      *why = "not a number of 0 or more";
      return FALSE;
    }
  while (*end == ' ')
    end++;
  switch (kind)
    {
    case SL_PARAM_DURATION:
      {
        static const struct { const char *unit; double ns; } units[] = {
          { "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
        };
        for (guint i = 0; i < G_N_ELEMENTS (units); i++)
          if (strcmp (end, units[i].unit) == 0)
            {
              *out = v * units[i].ns;
              return TRUE;
            }
        *why = "a duration needs its unit: ns, us, ms or s (500us, 2ms)";
        return FALSE;
      }
    case SL_PARAM_FRACTION:
      if (*end == '%' && end[1] == '\0')
        v /= 100;
      else if (*end != '\0')
        {
          *why = "a share is written 80% or 0.8";
          return FALSE;
        }
      if (v > 1)
        {
          *why = "a share cannot exceed 100%";
          return FALSE;
        }
      *out = v;
      return TRUE;
    case SL_PARAM_COUNT:
      if (*end != '\0' || v != floor (v))
        {
          *why = "not a whole number";
          return FALSE;
        }
      *out = v;
      return TRUE;
    case SL_PARAM_BYTES:
      {
        static const struct { const char *unit; double bytes; } units[] = {
          { "", 1 }, { "B", 1 }, { "k", 1e3 }, { "K", 1e3 }, { "KB", 1e3 }, { "KiB", 1024 },
          { "M", 1e6 }, { "MB", 1e6 }, { "MiB", 1048576 }, { "G", 1e9 }, { "GB", 1e9 },
          { "GiB", 1073741824 },
        };
        for (guint i = 0; i < G_N_ELEMENTS (units); i++)
          if (strcmp (end, units[i].unit) == 0)
            {
              *out = floor (v * units[i].bytes);
              return TRUE;
            }
        *why = "a size is written in bytes, or with k, M, G (64k, 1MiB)";
        return FALSE;
      }
    }
  return FALSE;
}

gboolean
sl_analyze_params_set (SlAnalyzeParams  *params,
                       const char       *assignment,
                       GError          **error)
{
  const char *eq = strchr (assignment, '='), *dot = strchr (assignment, '.');
  g_autofree char *rule_name = NULL, *param_name = NULL;
  const SlRule *rule;
  const SlRuleParam *param;
  const char *why = NULL;
  double v;

  if (eq == NULL || dot == NULL || dot > eq)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "'%s': expected RULE.PARAMETER=VALUE, for example gpu_gaps.gap=2ms", assignment);
      return FALSE;
    }
  rule_name = g_strndup (assignment, dot - assignment);
  param_name = g_strndup (dot + 1, eq - dot - 1);
  rule = sl_analyze_find_rule (rule_name);
  if (rule == NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "'%s': no rule named '%s'",
                   assignment, rule_name);
      return FALSE;
    }
  param = find_param (rule, param_name);
  if (param == NULL)
    {
      g_autoptr (GString) names = g_string_new (NULL);
      for (const SlRuleParam *p = rule->params; p->name != NULL; p++)
        g_string_append_printf (names, "%s%s", names->len ? ", " : "", p->name);
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "'%s': rule %s has no parameter '%s' (it has: %s)", assignment, rule->name,
                   param_name, names->len ? names->str : "none");
      return FALSE;
    }
  if (!parse_value (param->kind, eq + 1, &v, &why))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "'%s': %s", assignment, why);
      return FALSE;
    }
  g_hash_table_insert (params->values, g_strdup_printf ("%s.%s", rule->name, param->name),
                       g_memdup2 (&v, sizeof v));
  return TRUE;
}

void
sl_analyze_params_set_range (SlAnalyzeParams *params,
                             SlTime           t0,
                             SlTime           t1)
{
  g_return_if_fail (params != NULL);
  g_return_if_fail (t1 > t0 || (t0 == 0 && t1 == 0));
  params->t0 = t0;
  params->t1 = t1;
}

double
sl_analyze_params_get (const SlAnalyzeParams *params,
                       const SlRule          *rule,
                       const char            *name)
{
  const SlRuleParam *p = find_param (rule, name);
  g_autofree char *key = NULL;
  const double *v;

  g_return_val_if_fail (p != NULL, 0);
  if (params == NULL)
    return p->def;
  key = g_strdup_printf ("%s.%s", rule->name, name);
  v = g_hash_table_lookup (params->values, key);
  return v != NULL ? *v : p->def;
}

char *
sl_analyze_param_format (SlParamKind kind,
                         double      value)
{
  switch (kind)
    {
    case SL_PARAM_DURATION: return sl_format_duration ((SlTime) value);
    case SL_PARAM_FRACTION: return g_strdup_printf ("%g%%", value * 100);
    case SL_PARAM_BYTES: return sl_format_bytes ((guint64) value);
    case SL_PARAM_COUNT:
    default: return g_strdup_printf ("%.0f", value);
    }
}

/* --- findings --------------------------------------------------------------------------------- */

void
_sl_finding_free (gpointer data)
{
  SlFinding *f = data;

  g_free (f->summary);
  g_free (f->advice);
  g_free (f->cause);
  _sl_blame_free (f->blame);
  g_array_unref (f->evidence);
  g_array_unref (f->events);
  g_array_unref (f->lanes);
  if (f->instances != NULL)
    g_ptr_array_unref (f->instances);
  g_free (f);
}

void
sl_analysis_free (SlAnalysis *analysis)
{
  if (analysis == NULL)
    return;
  g_ptr_array_unref (analysis->findings);
  for (guint i = 0; i < analysis->summaries->len; i++)
    g_free (g_array_index (analysis->summaries, SlRuleSummary, i).note);
  g_array_unref (analysis->summaries);
  g_array_unref (analysis->gpu_times);
  g_free (analysis->lacks);
  g_free (analysis);
}

/* --- running them ----------------------------------------------------------------------------- */

typedef void (*RuleFunc) (SlAnalyzeCtx *ctx);

/* In the order of `rules`. */
static const RuleFunc rule_funcs[N_RULES] = {
  _sl_rule_gpu_util,       _sl_rule_gpu_gaps,        _sl_rule_cpu_bound,
  _sl_rule_gpu_bound,      _sl_rule_copy_bound,      _sl_rule_sync_memcpy,
  _sl_rule_pageable_memcpy, _sl_rule_sync_memset,    _sl_rule_sync_api,
  _sl_rule_tiny_kernels,   _sl_rule_low_occupancy,   _sl_rule_tail_effect,
  _sl_rule_launch_latency, _sl_rule_idle_breakdown,  _sl_rule_straggler,
  _sl_rule_memory_churn,   _sl_rule_memory_growth,   _sl_rule_memory_peak,
  _sl_rule_um_migrations,  _sl_rule_low_sm_activity, _sl_rule_mpi_straggler,
};

/* The order rules run in: the views of the idle account ask for idle time most specific cause
 * first (work queued, blocking copies, sync calls, tiny kernels' launch overhead, then the gaps
 * by what covers them, then what is left in CPU-bound stretches), so a nanosecond goes to the
 * finding that explains it best; the summaries of the account come last. */
static const guint run_order[N_RULES] = {
  RULE_LAUNCH_LATENCY, RULE_SYNC_MEMCPY, RULE_PAGEABLE_MEMCPY, RULE_SYNC_MEMSET, RULE_SYNC_API,
  RULE_TINY_KERNELS,   RULE_GPU_GAPS,    RULE_CPU_BOUND,       RULE_GPU_BOUND,   RULE_COPY_BOUND,
  RULE_LOW_OCCUPANCY,  RULE_TAIL_EFFECT, RULE_LOW_SM_ACTIVITY, RULE_STRAGGLER, RULE_GPU_UTIL,
  RULE_IDLE_BREAKDOWN, RULE_MEMORY_CHURN, RULE_MEMORY_GROWTH, RULE_MEMORY_PEAK,
  RULE_UM_MIGRATIONS, RULE_MPI_STRAGGLER,
};
G_STATIC_ASSERT (G_N_ELEMENTS (run_order) == N_RULES);

/* What the trace lacks for the rules, and what it holds instead; NULL when it has CUDA API calls
 * and GPU work. */
static char *
lacks_text (SlTrace *trace)
{
  static const struct { SlLaneKind kind; const char *what; } held[] = {
    { SL_LANE_CUDA_API, "CUDA API calls" },  { SL_LANE_KERNELS, "kernels" },
    { SL_LANE_MEMCPY, "copies" },            { SL_LANE_MEMSET, "memsets" },
    { SL_LANE_NVTX, "NVTX ranges" },         { SL_LANE_OSRT, "OS runtime calls" },
    { SL_LANE_SAMPLES, "CPU samples" },      { SL_LANE_GRAPHS, "CUDA graph launches" },
  };
  gsize n[G_N_ELEMENTS (held)] = { 0 };
  g_autoptr (GString) s = g_string_new (NULL);
  g_autoptr (GString) has = g_string_new (NULL);
  gboolean gpu;

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (guint k = 0; k < G_N_ELEMENTS (held); k++)
        if (lane->kind == held[k].kind)
          n[k] += lane->n_events;
    }
  gpu = n[1] + n[2] + n[3] + n[7] > 0;
  if (n[0] > 0 && gpu)
    return NULL;
  if (n[0] == 0)
    g_string_append (s, "no CUDA API calls");
  if (!gpu)
    g_string_append_printf (s, "%sno GPU activity (kernels, copies, memsets)",
                            s->len > 0 ? " and " : "");
  for (guint k = 0; k < G_N_ELEMENTS (held); k++)
    if (n[k] > 0)
      g_string_append_printf (has, "%s%" G_GSIZE_FORMAT " %s", has->len > 0 ? ", " : "", n[k],
                              held[k].what);
  g_string_append_printf (s, "; it holds %s", has->len > 0 ? has->str : "no events at all");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static gint
cmp_finding (gconstpointer a,
             gconstpointer b)
{
  const SlFinding *x = *(SlFinding *const *) a, *y = *(SlFinding *const *) b;

  if (x->cost != y->cost)
    return x->cost > y->cost ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Sets `source` from what the finding is of: its lanes, thread and process (before grouping:
 * findings of one cause on two ranks are two groups).  A finding of several ranks (the
 * straggler's) names them itself. */
static void
name_source (SlTrace   *trace,
             SlFinding *f)
{
  gint source = -1;
  gboolean several = FALSE;
  guint n_lanes = sl_trace_get_n_lanes (trace);

  /* the straggler compares ranks: it points at the slowest's events, and is of them all */
  if (f->rule == &rules[RULE_STRAGGLER])
    return;

#define SEEN(s)                                                 \
  G_STMT_START                                                  \
  {                                                             \
    several |= source >= 0 && source != (gint) (s);             \
    source = (gint) (s);                                        \
  }                                                             \
  G_STMT_END
  for (guint i = 0; i < f->lanes->len; i++)
    if (g_array_index (f->lanes, guint32, i) < n_lanes)
      SEEN (sl_trace_get_lane (trace, g_array_index (f->lanes, guint32, i))->source);
  if (f->thread >= 0 && (guint) f->thread < sl_trace_get_n_threads (trace))
    SEEN (sl_trace_get_thread (trace, f->thread)->source);
  for (guint i = 0; f->global_pid != 0 && i < sl_trace_get_n_processes (trace); i++)
    if (sl_trace_get_process (trace, i)->global_pid == f->global_pid)
      SEEN (sl_trace_get_process (trace, i)->source);
#undef SEEN
  if (!several && source >= 0 && (guint) source < sl_trace_get_n_sources (trace))
    f->source = source;
}

/* In a merged trace (a file a rank), a finding of one rank, a group's instances too, says which
 * first: "rank 1: GPU 0 idle …", in every pane and output at once. */
static void
name_rank (SlTrace   *trace,
           SlFinding *f)
{
  if (f->source < 0 || sl_trace_get_n_sources (trace) < 2)
    return;
  const char *label = sl_trace_get_source (trace, (guint) f->source)->label;
  char **texts[] = { &f->summary, &f->cause };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    if (*texts[i] != NULL)
      {
        char *named = g_strdup_printf ("%s: %s", label, *texts[i]);
        g_free (*texts[i]);
        *texts[i] = named;
      }
  for (guint i = 0; f->instances != NULL && i < f->instances->len; i++)
    name_rank (trace, g_ptr_array_index (f->instances, i));
}

SlAnalysis *
sl_analyze (SlTrace                *trace,
            const char *const      *names,
            const SlAnalyzeParams  *params,
            GError                **error)
{
  gboolean run[N_RULES] = { 0 };
  SlAnalysis *analysis;
  SlAnalyzeCtx ctx = { 0 };

  g_return_val_if_fail (trace != NULL, NULL);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      const SlRule *r = sl_analyze_find_rule (names[i]);
      if (r == NULL)
        {
          g_autoptr (GString) all = g_string_new (NULL);
          for (guint k = 0; k < N_RULES; k++)
            g_string_append_printf (all, "%s%s", k ? ", " : "", rules[k].name);
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "no rule named '%s' (rules: %s)", names[i], all->str);
          return NULL;
        }
      run[r - rules] = TRUE;
    }
  if (names == NULL || names[0] == NULL)
    for (guint k = 0; k < N_RULES; k++)
      run[k] = TRUE;

  analysis = g_new0 (SlAnalysis, 1);
  analysis->findings = g_ptr_array_new_with_free_func (_sl_finding_free);
  analysis->summaries = g_array_new (FALSE, TRUE, sizeof (SlRuleSummary));
  analysis->gpu_times = g_array_new (FALSE, TRUE, sizeof (SlGpuTime));
  ctx.trace = trace;
  ctx.params = params;
  /* the whole trace is the widest window: every test against it passes */
  ctx.t0 = G_MININT64;
  ctx.t1 = G_MAXINT64;
  if (params != NULL && params->t1 > params->t0)
    {
      analysis->t0 = ctx.t0 = params->t0;
      analysis->t1 = ctx.t1 = params->t1;
    }
  ctx.findings = analysis->findings;
  _sl_analyze_ctx_init (&ctx);
  {
    SlRuleSummary done[N_RULES];
    for (guint i = 0; i < N_RULES; i++)
      {
        guint k = run_order[i];
        if (!run[k])
          continue;
        SlRuleSummary *s = &done[k];
        ctx.rule = &rules[k];
        ctx.note = g_string_new (NULL);
        if (ctx.n_gpus == 0 && k != RULE_SYNC_API)
          _sl_analyze_note (&ctx, "no GPU work in the trace");
        else
          rule_funcs[k] (&ctx);
        /* counted from its findings once it is done: an idle finding's cost is set after it is
         * made, from what the account gives it */
        *s = (SlRuleSummary) { &rules[k], 0, 0, g_string_free (ctx.note, FALSE) };
        for (guint f = 0; f < analysis->findings->len; f++)
          {
            const SlFinding *x = g_ptr_array_index (analysis->findings, f);
            if (x->rule == &rules[k])
              {
                s->n_findings++;
                s->cost = _sl_time_add (s->cost, x->cost);
              }
          }
      }
    for (guint k = 0; k < N_RULES; k++)
      if (run[k])
        g_array_append_val (analysis->summaries, done[k]);
  }
  /* before grouping: findings of two ranks are never one group */
  for (guint f = 0; f < analysis->findings->len; f++)
    name_source (trace, g_ptr_array_index (analysis->findings, f));
  for (guint g = 0; g < ctx.n_gpus; g++)
    if (ctx.gpus[g].ops->len > 0)
      {
        SlGpuTime t;
        _sl_gpu_time (&ctx, g, &t);
        g_array_append_val (analysis->gpu_times, t);
      }
  _sl_analyze_ctx_clear (&ctx);
  analysis->lacks = lacks_text (trace);
  _sl_analyze_group (analysis->findings);
  for (guint f = 0; f < analysis->findings->len; f++)
    name_rank (trace, g_ptr_array_index (analysis->findings, f));
  g_ptr_array_sort (analysis->findings, cmp_finding);
  return analysis;
}
