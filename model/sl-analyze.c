/* sl-analyze.c: the rules of `sightline analyze` and the findings panel.
 *
 * Each rule reads the model (lanes, GPU busy unions, kernel and copy tables) and adds findings
 * with their time range, where they happen, the figures that show it, what they cost and what to
 * do.  Everything is one or a few linear passes over the lanes involved, or O(log n) queries per
 * window: a 10^7-event trace is analysed in about its load time.
 */
#include "sl-analyze.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sl-format.h"
#include "sl-lane.h"
#include "sl-occupancy.h"
#include "sl-trace-private.h"
#include "sl-utilization.h"

#define US ((SlTime) 1000)
#define MS ((SlTime) 1000000)
#define MAX_FINDING_EVENTS 256

/* --- rules and parameters ---------------------------------------------------------------------- */

static const SlRuleParam p_gpu_util[] = {
  { "threshold", SL_PARAM_FRACTION, 0.80, "a chunk is low below this share of busy time" },
  { "chunks", SL_PARAM_COUNT, 30, "chunks the GPU's active span is cut into (1…1000)" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_gpu_gaps[] = {
  { "gap", SL_PARAM_DURATION, 500.0 * US, "shortest idle gap reported" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_cpu_bound[] = {
  { "window", SL_PARAM_DURATION, 100.0 * MS, "stretches are judged in windows of this length" },
  { "threshold", SL_PARAM_FRACTION, 0.80, "the GPU waits when busy less than this" },
  { "busy", SL_PARAM_FRACTION, 0.50, "the CPU side is busy above this share of a window" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_gpu_bound[] = {
  { "window", SL_PARAM_DURATION, 100.0 * MS, "stretches are judged in windows of this length" },
  { "threshold", SL_PARAM_FRACTION, 0.95, "the GPU is saturated above this busy share" },
  { "sync", SL_PARAM_FRACTION, 0.50, "the launching thread waits in sync calls above this share" },
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
  { "duration", SL_PARAM_DURATION, 10.0 * US, "a kernel is tiny when its median duration is below" },
  { "count", SL_PARAM_COUNT, 1000, "fewest instances of a kernel worth reporting" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_low_occupancy[] = {
  { "occupancy", SL_PARAM_FRACTION, 0.50, "theoretical occupancy below this is low" },
  { "share", SL_PARAM_FRACTION, 0.10, "smallest share of the GPU's kernel time worth reporting" },
  { "time", SL_PARAM_DURATION, 1.0 * MS, "smallest GPU time of a kernel worth reporting" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_launch_latency[] = {
  { "latency", SL_PARAM_DURATION, 200.0 * US, "launch call to GPU start above this is late" },
  { "idle", SL_PARAM_FRACTION, 0.50, "counted only when the GPU is idle this much of the delay" },
  { NULL, 0, 0, NULL },
};
static const SlRuleParam p_idle_breakdown[] = {
  { "idle", SL_PARAM_FRACTION, 0.20, "reported when the GPU is idle this share of its span" },
  { NULL, 0, 0, NULL },
};

enum
{
  RULE_GPU_UTIL,
  RULE_GPU_GAPS,
  RULE_CPU_BOUND,
  RULE_GPU_BOUND,
  RULE_SYNC_MEMCPY,
  RULE_PAGEABLE_MEMCPY,
  RULE_SYNC_MEMSET,
  RULE_SYNC_API,
  RULE_TINY_KERNELS,
  RULE_LOW_OCCUPANCY,
  RULE_LAUNCH_LATENCY,
  RULE_IDLE_BREAKDOWN,
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
    "the GPU is saturated and the launching thread waits for it in sync calls", p_gpu_bound },
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
  { "launch_latency", "Launch latency",
    "kernels starting long after their launch call while the GPU was idle", p_launch_latency },
  { "idle_breakdown", "GPU time breakdown",
    "each GPU's time: busy (kernels, copies, sets), idle in host sync, idle while launching, other",
    p_idle_breakdown },
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
parse_value (SlParamKind  kind,
             const char  *text,
             double      *out,
             const char **why)
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
sl_analyze_params_set (SlAnalyzeParams *params,
                       const char      *assignment,
                       GError         **error)
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

/* --- findings ------------------------------------------------------------------------------------ */

static void
evidence_clear (gpointer data)
{
  SlEvidence *e = data;

  g_free (e->key);
  g_free (e->label);
  g_free (e->text);
}

static void
finding_free (gpointer data)
{
  SlFinding *f = data;

  g_free (f->summary);
  g_free (f->advice);
  g_array_unref (f->evidence);
  g_array_unref (f->events);
  g_array_unref (f->lanes);
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
  g_free (analysis);
}

/* Per-thread lanes the rules read. */
typedef struct
{
  gint api;        /* CUDA API at depth 0 (runtime, or driver where the runtime is absent) */
  gint osrt;       /* OS runtime at depth 0 */
  gint samples;
  SlTime sample_period;   /* average spacing of its samples, 0 without */
} ThreadLanes;

typedef struct
{
  GArray *ops;          /* guint32 lanes: kernels, memcpy, memset */
  GArray *kernels;
  SlTime  first, last;  /* span of its work; first >= last when it has none */
  gint    launcher;     /* thread launching most of its work, -1 when unknown */
  GArray *threads;      /* guint: threads of the processes that use it */
  guint64 global_pid;   /* process of most of its work */
} GpuInfo;

typedef enum
{
  API_OTHER,
  API_SYNC,          /* cudaDeviceSynchronize, cudaStreamSynchronize (and the driver's) */
  API_SYNC_OTHER,    /* cudaEventSynchronize, cuCtxSynchronize …: block, not in nsys's rule */
  API_MEMCPY_SYNC,   /* cudaMemcpy* without Async */
  API_MEMCPY_ASYNC,
  API_MEMSET_SYNC,
  API_MEMSET_ASYNC,
} ApiClass;

typedef struct
{
  SlTrace               *trace;
  const SlAnalyzeParams *params;
  GPtrArray             *findings;
  GArray                *summaries;
  guint                  n_threads, n_gpus;
  ThreadLanes           *tl;
  GpuInfo               *gpus;
  GHashTable            *api_class;   /* name id → ApiClass + 1 */
  const SlRule          *rule;        /* running now */
  guint                  n_found;     /* by the running rule */
  SlTime                 cost;
  GString               *note;
} Ctx;

static double
param (Ctx        *ctx,
       const char *name)
{
  return sl_analyze_params_get (ctx->params, ctx->rule, name);
}

static SlFinding *
finding_new (Ctx   *ctx,
             SlTime start,
             SlTime end,
             SlTime cost)
{
  SlFinding *f = g_new0 (SlFinding, 1);

  f->rule = ctx->rule;
  f->start = start;
  f->end = MAX (end, start);
  f->cost = MAX (cost, 0);
  f->gpu = -1;
  f->thread = -1;
  f->evidence = g_array_new (FALSE, TRUE, sizeof (SlEvidence));
  g_array_set_clear_func (f->evidence, evidence_clear);
  f->events = g_array_new (FALSE, FALSE, sizeof (SlFindingEvent));
  f->lanes = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_ptr_array_add (ctx->findings, f);
  ctx->n_found++;
  ctx->cost = _sl_time_add (ctx->cost, f->cost);
  return f;
}

static void G_GNUC_PRINTF (5, 6)
evidence (SlFinding  *f,
          const char *key,
          const char *label,
          double      value,
          const char *fmt,
          ...)
{
  SlEvidence e = { g_strdup (key), g_strdup (label), NULL, value };
  va_list ap;

  va_start (ap, fmt);
  e.text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_array_append_val (f->evidence, e);
}

static void
evidence_duration (SlFinding  *f,
                   const char *key,
                   const char *label,
                   SlTime      ns)
{
  g_autofree char *d = sl_format_duration (ns);

  evidence (f, key, label, (double) ns, "%s", d);
}

static void
evidence_share (SlFinding  *f,
                const char *key,
                const char *label,
                double      share)
{
  evidence (f, key, label, share, "%.1f%%", share * 100);
}

static void
finding_add_lane (SlFinding *f,
                  guint32    lane)
{
  for (guint i = 0; i < f->lanes->len; i++)
    if (g_array_index (f->lanes, guint32, i) == lane)
      return;
  g_array_append_val (f->lanes, lane);
}

static void
finding_add_event (SlFinding *f,
                   guint32    lane,
                   gsize      index)
{
  SlFindingEvent e = { lane, index };

  finding_add_lane (f, lane);
  if (f->events->len < MAX_FINDING_EVENTS)
    g_array_append_val (f->events, e);
}

static void G_GNUC_PRINTF (2, 3)
note (Ctx        *ctx,
      const char *fmt,
      ...)
{
  va_list ap;

  if (ctx->note->len > 0)
    g_string_append (ctx->note, "; ");
  va_start (ap, fmt);
  g_string_append_vprintf (ctx->note, fmt, ap);
  va_end (ap);
}

/* --- what the rules share ------------------------------------------------------------------------ */

static ApiClass
api_class (Ctx     *ctx,
           guint32  name)
{
  gpointer v = g_hash_table_lookup (ctx->api_class, GUINT_TO_POINTER (name));
  const char *s;
  ApiClass c = API_OTHER;

  if (v != NULL)
    return GPOINTER_TO_UINT (v) - 1;
  s = sl_trace_str (ctx->trace, name);
  if (g_str_has_prefix (s, "cudaDeviceSynchronize") || g_str_has_prefix (s, "cudaStreamSynchronize")
      || g_str_has_prefix (s, "cuCtxSynchronize") || g_str_has_prefix (s, "cuStreamSynchronize")
      || g_str_has_prefix (s, "cudaThreadSynchronize"))
    c = API_SYNC;
  else if (strstr (s, "Synchronize") != NULL)
    c = API_SYNC_OTHER;
  else if (g_str_has_prefix (s, "cudaMemcpy") || g_str_has_prefix (s, "cuMemcpy"))
    c = strstr (s, "Async") != NULL ? API_MEMCPY_ASYNC : API_MEMCPY_SYNC;
  else if (g_str_has_prefix (s, "cudaMemset") || g_str_has_prefix (s, "cuMemset"))
    {
      g_autofree char *lower = g_ascii_strdown (s, -1);
      c = strstr (lower, "async") != NULL ? API_MEMSET_ASYNC : API_MEMSET_SYNC;
    }
  g_hash_table_insert (ctx->api_class, GUINT_TO_POINTER (name), GUINT_TO_POINTER (c + 1));
  return c;
}

/* A call during which the host waits for the GPU. */
static gboolean
class_blocks (ApiClass c)
{
  return c == API_SYNC || c == API_SYNC_OTHER || c == API_MEMCPY_SYNC || c == API_MEMSET_SYNC;
}

static char *
thread_label (Ctx *ctx,
              gint thread)
{
  const SlThread *t;

  if (thread < 0)
    return g_strdup ("an unknown thread");
  t = sl_trace_get_thread (ctx->trace, thread);
  if (t->name != SL_NO_STR)
    return g_strdup_printf ("%s [%u]", sl_trace_str (ctx->trace, t->name), t->tid);
  return g_strdup_printf ("thread %u", t->tid);
}

static guint64
thread_pid (Ctx *ctx,
            gint thread)
{
  const SlThread *t = sl_trace_get_thread (ctx->trace, thread);

  return sl_trace_get_process (ctx->trace, t->process)->global_pid;
}

static gint
launch_thread (Ctx         *ctx,
               const SlEvent *op,
               const SlLane **api_lane,
               gsize       *api_index)
{
  const SlLane *lane;
  gsize index;

  if (op->link == SL_NO_LINK || !sl_trace_resolve (ctx->trace, op->link, &lane, &index)
      || lane->kind != SL_LANE_CUDA_API)
    return -1;
  if (api_lane != NULL)
    *api_lane = lane;
  if (api_index != NULL)
    *api_index = index;
  return lane->thread;
}

static void
ctx_init (Ctx *ctx)
{
  SlTrace *trace = ctx->trace;
  guint n_lanes = sl_trace_get_n_lanes (trace);

  ctx->n_threads = sl_trace_get_n_threads (trace);
  ctx->n_gpus = sl_trace_get_n_gpus (trace);
  ctx->tl = g_new (ThreadLanes, MAX (ctx->n_threads, 1));
  for (guint i = 0; i < ctx->n_threads; i++)
    ctx->tl[i] = (ThreadLanes) { -1, -1, -1, 0 };
  ctx->gpus = g_new0 (GpuInfo, MAX (ctx->n_gpus, 1));
  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      ctx->gpus[g].ops = g_array_new (FALSE, FALSE, sizeof (guint32));
      ctx->gpus[g].kernels = g_array_new (FALSE, FALSE, sizeof (guint32));
      ctx->gpus[g].threads = g_array_new (FALSE, FALSE, sizeof (guint));
      ctx->gpus[g].first = G_MAXINT64;
      ctx->gpus[g].last = G_MININT64;
      ctx->gpus[g].launcher = -1;
    }
  ctx->api_class = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < n_lanes; i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->n_events == 0)
        continue;
      if (lane->thread >= 0 && (guint) lane->thread < ctx->n_threads)
        {
          ThreadLanes *tl = &ctx->tl[lane->thread];
          if (lane->kind == SL_LANE_CUDA_API && lane->depth == 0)
            tl->api = i;
          else if (lane->kind == SL_LANE_OSRT && lane->depth == 0)
            tl->osrt = i;
          else if (lane->kind == SL_LANE_SAMPLES)
            {
              tl->samples = i;
              if (lane->n_events > 1)
                tl->sample_period = (lane->events[lane->n_events - 1].start - lane->events[0].start)
                                    / (SlTime) (lane->n_events - 1);
            }
        }
      if (lane->gpu >= 0 && (guint) lane->gpu < ctx->n_gpus
          && (lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_MEMCPY
              || lane->kind == SL_LANE_MEMSET))
        {
          GpuInfo *g = &ctx->gpus[lane->gpu];
          guint32 li = i;
          g_array_append_val (g->ops, li);
          if (lane->kind == SL_LANE_KERNELS)
            g_array_append_val (g->kernels, li);
          g->first = MIN (g->first, lane->events[0].start);
          for (gsize k = 0; k < lane->n_events; k++)
            g->last = MAX (g->last, lane->events[k].end);
        }
    }

  /* a GPU without work has an empty span */
  for (guint g = 0; g < ctx->n_gpus; g++)
    if (ctx->gpus[g].ops->len == 0 || ctx->gpus[g].last <= ctx->gpus[g].first)
      ctx->gpus[g].first = ctx->gpus[g].last = 0;

  /* who launches a GPU's work (a sample of it), and which threads belong to its processes */
  g_autofree guint *launches = g_new (guint, MAX (ctx->n_threads, 1));
  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      GpuInfo *gi = &ctx->gpus[g];
      gsize best_ops = 0;

      memset (launches, 0, MAX (ctx->n_threads, 1) * sizeof *launches);
      for (guint k = 0; k < gi->ops->len; k++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, g_array_index (gi->ops, guint32, k));
          gsize step = MAX (lane->n_events / 2000, 1);
          if (lane->n_events > best_ops)
            {
              best_ops = lane->n_events;
              gi->global_pid = lane->global_pid;
            }
          for (gsize e = 0; e < lane->n_events; e += step)
            {
              gint t = launch_thread (ctx, &lane->events[e], NULL, NULL);
              if (t >= 0 && (guint) t < ctx->n_threads)
                launches[t]++;
            }
        }
      for (guint t = 0; t < ctx->n_threads; t++)
        {
          if (launches[t] > 0 && (gi->launcher < 0 || launches[t] > launches[gi->launcher]))
            gi->launcher = t;
        }
      for (guint t = 0; t < ctx->n_threads; t++)
        {
          guint64 pid = thread_pid (ctx, t);
          gboolean mine = launches[t] > 0 || pid == gi->global_pid;
          for (guint k = 0; !mine && k < gi->ops->len; k++)
            mine = sl_trace_get_lane (trace, g_array_index (gi->ops, guint32, k))->global_pid == pid;
          if (mine)
            g_array_append_val (gi->threads, t);
        }
    }
}

static void
ctx_clear (Ctx *ctx)
{
  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      g_array_unref (ctx->gpus[g].ops);
      g_array_unref (ctx->gpus[g].kernels);
      g_array_unref (ctx->gpus[g].threads);
    }
  g_free (ctx->gpus);
  g_free (ctx->tl);
  g_hash_table_unref (ctx->api_class);
}

static const SlLane *
lane_or_null (Ctx *ctx,
              gint index)
{
  return index >= 0 ? sl_trace_get_lane (ctx->trace, index) : NULL;
}

/* Time of [a, b) a lane's events cover, summed (a lane at one depth does not overlap itself);
 * per name into `by_name` (name id → SlTime*) and per class of CUDA API call into `by_class`
 * when given; the events are added to `f`. */
typedef struct
{
  Ctx        *ctx;
  SlTime      a, b;
  SlTime      total;
  GHashTable *by_name;
  SlTime     *by_class;
  SlFinding  *f;
} OverlapSum;

static gboolean
overlap_sum_cb (const SlLane *lane,
                gsize         index,
                gpointer      user_data)
{
  OverlapSum *o = user_data;
  const SlEvent *ev = &lane->events[index];
  SlTime d = MIN (ev->end, o->b) - MAX (ev->start, o->a);

  if (d <= 0)
    return TRUE;
  o->total = _sl_time_add (o->total, d);
  if (o->by_name != NULL)
    {
      SlTime *t = g_hash_table_lookup (o->by_name, GUINT_TO_POINTER (ev->name));
      if (t == NULL)
        {
          t = g_new0 (SlTime, 1);
          g_hash_table_insert (o->by_name, GUINT_TO_POINTER (ev->name), t);
        }
      *t = _sl_time_add (*t, d);
    }
  if (o->by_class != NULL)
    o->by_class[api_class (o->ctx, ev->name)] = _sl_time_add (o->by_class[api_class (o->ctx, ev->name)], d);
  if (o->f != NULL)
    finding_add_event (o->f, lane->index, index);
  return TRUE;
}

static SlTime
overlap_sum (Ctx          *ctx,
             const SlLane *lane,
             SlTime        a,
             SlTime        b,
             GHashTable   *by_name,
             SlTime       *by_class,
             SlFinding    *f)
{
  OverlapSum o = { ctx, a, b, 0, by_name, by_class, f };

  if (lane == NULL || b <= a)
    return 0;
  sl_lane_overlap (lane, a, b, overlap_sum_cb, &o);
  return o.total;
}

static gsize
samples_in (const SlLane *lane,
            SlTime        a,
            SlTime        b)
{
  if (lane == NULL || b <= a)
    return 0;
  return sl_lane_lower_bound (lane, b) - sl_lane_lower_bound (lane, a);
}

/* The name with the most time in a by_name table, and that time. */
static guint32
top_name (GHashTable *by_name,
          SlTime     *time)
{
  GHashTableIter it;
  gpointer k, v;
  guint32 best = SL_NO_STR;

  *time = 0;
  g_hash_table_iter_init (&it, by_name);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (*(SlTime *) v > *time)
      {
        *time = *(SlTime *) v;
        best = GPOINTER_TO_UINT (k);
      }
  return best;
}

static gint
cmp_time (gconstpointer a,
          gconstpointer b)
{
  SlTime x = *(const SlTime *) a, y = *(const SlTime *) b;

  return x < y ? -1 : x > y;
}

static SlTime
median_of (GArray *times)
{
  if (times->len == 0)
    return 0;
  g_array_sort (times, cmp_time);
  return g_array_index (times, SlTime, times->len / 2);
}

static void
add_gpu_lanes (Ctx       *ctx,
               SlFinding *f,
               guint      gpu)
{
  for (guint k = 0; k < ctx->gpus[gpu].ops->len; k++)
    finding_add_lane (f, g_array_index (ctx->gpus[gpu].ops, guint32, k));
}

static void
add_thread_lanes (Ctx       *ctx,
                  SlFinding *f,
                  gint       thread)
{
  if (thread < 0)
    return;
  if (ctx->tl[thread].api >= 0)
    finding_add_lane (f, ctx->tl[thread].api);
  if (ctx->tl[thread].osrt >= 0)
    finding_add_lane (f, ctx->tl[thread].osrt);
  if (ctx->tl[thread].samples >= 0)
    finding_add_lane (f, ctx->tl[thread].samples);
}

static char *
range_text (Ctx   *ctx,
            SlTime a,
            SlTime b)
{
  SlTime t0 = sl_trace_get_start (ctx->trace);
  g_autofree char *x = sl_format_offset (a - t0), *y = sl_format_offset (b - t0);

  return g_strdup_printf ("%s … %s", x, y);
}

/* --- gpu_util ------------------------------------------------------------------------------------ */

static void
rule_gpu_util (Ctx *ctx)
{
  double threshold = param (ctx, "threshold");
  guint chunks = (guint) CLAMP (param (ctx, "chunks"), 1, 1000);

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      GpuInfo *gi = &ctx->gpus[g];
      SlTime span = gi->last - gi->first, run_start = 0, run_busy = 0;
      guint run_chunks = 0, low = 0;

      if (span <= 0)
        continue;
      for (guint c = 0; c <= chunks; c++)
        {
          SlTime a = gi->first + (SlTime) ((double) span * c / chunks);
          SlTime b = c == chunks ? gi->last : gi->first + (SlTime) ((double) span * (c + 1) / chunks);
          SlTime busy = c < chunks ? sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_ANY, a, b) : 0;
          gboolean is_low = c < chunks && b > a && (double) busy < threshold * (double) (b - a);

          if (is_low)
            {
              if (run_chunks == 0)
                run_start = a;
              run_chunks++;
              run_busy = _sl_time_add (run_busy, busy);
              low++;
              continue;
            }
          if (run_chunks == 0)
            continue;
          /* the run ended at a */
          {
            SlTime len = a - run_start;
            double util = (double) run_busy / (double) MAX (len, 1);
            double kern = sl_trace_gpu_utilization (ctx->trace, g, SL_UTIL_KERNELS, run_start, a);
            g_autofree char *range = range_text (ctx, run_start, a);
            g_autofree char *d = sl_format_duration (len);
            SlFinding *f = finding_new (ctx, run_start, a, len - run_busy);

            f->gpu = g;
            f->global_pid = gi->global_pid;
            f->summary = g_strdup_printf ("GPU %u busy %.0f%% of %s (%s)", g, util * 100, d, range);
            evidence_share (f, "busy_share", "GPU busy", util);
            evidence_share (f, "kernel_share", "Running kernels", kern);
            evidence_duration (f, "duration_ns", "Stretch", len);
            evidence_duration (f, "idle_ns", "GPU idle in it", len - run_busy);
            {
              g_autofree char *chunk = sl_format_duration (span / chunks);
              evidence (f, "chunks", "Low chunks", run_chunks, "%u of %u (each %s)", run_chunks,
                        chunks, chunk);
            }
            f->advice = g_strdup ("The GPU waits for work in this stretch. The gpu_gaps, cpu_bound "
                                  "and sync_api findings in the same range say what the host did "
                                  "instead; keep the GPU's queue full (asynchronous copies from "
                                  "pinned memory, no host synchronization in the loop, enough "
                                  "data-loader workers).");
            add_gpu_lanes (ctx, f, g);
            run_chunks = 0;
            run_busy = 0;
          }
        }
      note (ctx, "GPU %u: %u of %u chunks below %.0f%%", g, low, chunks, threshold * 100);
    }
}

/* --- gpu_gaps ------------------------------------------------------------------------------------ */

typedef struct
{
  SlTime min_gap;
  SlTime prev_end;
  GArray *gaps;   /* SlTime pairs */
} GapScan;

static gboolean
gap_scan_cb (SlTime   start,
             SlTime   end,
             gpointer user_data)
{
  GapScan *g = user_data;

  if (g->prev_end != G_MININT64 && start - g->prev_end > g->min_gap)
    {
      SlTime pair[2] = { g->prev_end, start };
      g_array_append_vals (g->gaps, pair, 2);
    }
  g->prev_end = MAX (g->prev_end, end);
  return TRUE;
}

static gint
cmp_gap_desc (gconstpointer a,
              gconstpointer b)
{
  const SlTime *x = a, *y = b;
  SlTime lx = x[1] - x[0], ly = y[1] - y[0];

  return lx > ly ? -1 : lx < ly ? 1 : (x[0] > y[0]) - (x[0] < y[0]);
}

/* What one thread did in [a, b): CUDA API calls, OS runtime calls and samples by name. */
typedef struct
{
  gint       thread;
  SlTime     api, osrt;       /* covered time */
  guint32    api_top, osrt_top, sample_top;
  SlTime     api_top_t, osrt_top_t;
  gsize      samples, sample_top_n;
  SlTime     sampled;         /* samples × period */
} ThreadActivity;

static void
thread_activity (Ctx            *ctx,
                 gint            thread,
                 SlTime          a,
                 SlTime          b,
                 SlFinding      *f,
                 ThreadActivity *out)
{
  const ThreadLanes *tl = &ctx->tl[thread];
  g_autoptr (GHashTable) api = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr (GHashTable) osrt = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  const SlLane *samples = lane_or_null (ctx, tl->samples);

  *out = (ThreadActivity) { thread, 0, 0, SL_NO_STR, SL_NO_STR, SL_NO_STR, 0, 0, 0, 0, 0 };
  out->api = overlap_sum (ctx, lane_or_null (ctx, tl->api), a, b, api, NULL, f);
  out->osrt = overlap_sum (ctx, lane_or_null (ctx, tl->osrt), a, b, osrt, NULL, f);
  out->api_top = top_name (api, &out->api_top_t);
  out->osrt_top = top_name (osrt, &out->osrt_top_t);
  out->samples = samples_in (samples, a, b);
  out->sampled = MIN ((SlTime) out->samples * tl->sample_period, b - a);
  if (out->samples > 0)
    {
      /* the most frequent leaf symbol */
      g_autoptr (GHashTable) counts = g_hash_table_new (NULL, NULL);
      gsize i0 = sl_lane_lower_bound (samples, a), i1 = sl_lane_lower_bound (samples, b);
      for (gsize i = i0; i < i1; i++)
        {
          guint32 name = samples->events[i].name;
          gsize n = GPOINTER_TO_SIZE (g_hash_table_lookup (counts, GUINT_TO_POINTER (name))) + 1;
          g_hash_table_insert (counts, GUINT_TO_POINTER (name), GSIZE_TO_POINTER (n));
          if (n > out->sample_top_n)
            {
              out->sample_top_n = n;
              out->sample_top = name;
            }
        }
    }
}

static SlTime
activity_total (const ThreadActivity *t)
{
  return t->api + t->osrt + (t->api + t->osrt == 0 ? t->sampled : 0);
}

/* "read 600.000 ms (OS runtime), cudaStreamSynchronize 5.000 ms; 12 samples, most in foo" */
static char *
activity_text (Ctx                  *ctx,
               const ThreadActivity *t)
{
  g_autoptr (GString) s = g_string_new (NULL);

  if (t->osrt_top_t > 0)
    {
      g_autofree char *d = sl_format_duration (t->osrt_top_t);
      g_autofree char *all = sl_format_duration (t->osrt);
      g_string_append_printf (s, "in %s %s (OS runtime, %s in all)",
                              sl_trace_str (ctx->trace, t->osrt_top), d, all);
    }
  if (t->api_top_t > 0)
    {
      g_autofree char *d = sl_format_duration (t->api_top_t);
      g_autofree char *all = sl_format_duration (t->api);
      g_string_append_printf (s, "%sin %s %s (CUDA API, %s in all)", s->len ? "; " : "",
                              sl_trace_str (ctx->trace, t->api_top), d, all);
    }
  if (t->samples > 0)
    g_string_append_printf (s, "%s%" G_GSIZE_FORMAT " CPU samples, %" G_GSIZE_FORMAT " in %s",
                            s->len ? "; " : "", t->samples, t->sample_top_n,
                            sl_trace_str (ctx->trace, t->sample_top));
  if (s->len == 0)
    g_string_append (s, "no traced activity (idle, or in untraced code)");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* Describes what the threads of a GPU's processes did in [a, b) into `f`; returns the summary
 * clause ("python3 [100] in read 600 ms") and sets the advice. */
static char *
describe_host (Ctx       *ctx,
               guint      gpu,
               SlTime     a,
               SlTime     b,
               SlFinding *f)
{
  GpuInfo *gi = &ctx->gpus[gpu];
  g_autoptr (GArray) acts = g_array_new (FALSE, FALSE, sizeof (ThreadActivity));
  const ThreadActivity *launcher = NULL, *best = NULL;
  SlTime len = b - a;
  char *clause;

  for (guint k = 0; k < gi->threads->len; k++)
    {
      ThreadActivity t;
      gint thread = (gint) g_array_index (gi->threads, guint, k);
      thread_activity (ctx, thread, a, b, f, &t);
      g_array_append_val (acts, t);
    }
  for (guint k = 0; k < acts->len; k++)
    {
      const ThreadActivity *t = &g_array_index (acts, ThreadActivity, k);
      if (t->thread == gi->launcher)
        launcher = t;
      if (best == NULL || activity_total (t) > activity_total (best))
        best = t;
    }
  /* the launching thread first: its state is what starves the GPU */
  if (launcher != NULL && (activity_total (launcher) * 10 >= len || best == NULL
                           || activity_total (best) == 0))
    best = launcher;

  for (guint k = 0, shown = 0; k < acts->len && shown < 6; k++)
    {
      const ThreadActivity *t = &g_array_index (acts, ThreadActivity, k);
      g_autofree char *who = thread_label (ctx, t->thread);
      g_autofree char *what = activity_text (ctx, t);
      g_autofree char *key = g_strdup_printf ("thread_%u_active_ns",
                                              sl_trace_get_thread (ctx->trace, t->thread)->tid);
      if (activity_total (t) == 0 && t->thread != gi->launcher)
        continue;
      evidence (f, key, who, (double) activity_total (t), "%s%s", what,
                t->thread == gi->launcher ? " — launches the GPU's work" : "");
      add_thread_lanes (ctx, f, t->thread);
      shown++;
    }

  if (best == NULL || activity_total (best) == 0)
    {
      f->advice = g_strdup ("No CPU activity was traced in the gap: the process waited on "
                            "something untraced (trace OS runtime calls and sample the CPU to see "
                            "what), or its work on this GPU simply paused.");
      return g_strdup ("no traced CPU activity");
    }
  g_autofree char *who = thread_label (ctx, best->thread);
  if (best->osrt_top_t >= best->api_top_t && best->osrt_top_t > 0)
    {
      g_autofree char *d = sl_format_duration (best->osrt_top_t);
      const char *fn = sl_trace_str (ctx->trace, best->osrt_top);
      clause = g_strdup_printf ("%s blocked in %s for %s", who, fn, d);
      f->thread = best->thread;
      f->advice = g_strdup_printf (
          "The host thread blocks in %s while the GPU has nothing to do. Move the I/O or the "
          "wait off the thread that launches GPU work (more DataLoader workers, prefetching, "
          "pinned-memory staging), or overlap it with queued GPU work.", fn);
    }
  else if (best->api_top_t > 0)
    {
      g_autofree char *d = sl_format_duration (best->api_top_t);
      const char *fn = sl_trace_str (ctx->trace, best->api_top);
      ApiClass c = api_class (ctx, best->api_top);
      clause = g_strdup_printf ("%s in %s for %s", who, fn, d);
      f->thread = best->thread;
      if (class_blocks (c))
        f->advice = g_strdup_printf ("The host waits in %s, so the GPU's queue runs dry until the "
                                     "host queues more work. Synchronize less often (not every "
                                     "step; avoid .item() and .cpu() in the loop), or queue the "
                                     "next work first.", fn);
      else if (strstr (fn, "Launch") != NULL)
        f->advice = g_strdup_printf ("The host spends the gap in %s: launch overhead (a long "
                                     "first launch loads the kernel's module). Fewer, larger "
                                     "launches (fused kernels, CUDA Graphs) keep the GPU fed; "
                                     "warm up before timing.", fn);
      else if (strstr (fn, "lloc") != NULL || strstr (fn, "Free") != NULL
               || strstr (fn, "Library") != NULL || strstr (fn, "Module") != NULL)
        f->advice = g_strdup_printf ("The host spends the gap in %s: allocation or module "
                                     "loading, not GPU work. Do it once before the loop (a "
                                     "caching allocator, preallocated buffers, eager module "
                                     "loading).", fn);
      else
        f->advice = g_strdup_printf ("The host spends the gap in %s instead of queuing GPU "
                                     "work: move it out of the loop or overlap it.", fn);
    }
  else
    {
      clause = g_strdup_printf ("%s busy on the CPU (%" G_GSIZE_FORMAT " samples, most in %s)",
                                who, best->samples, sl_trace_str (ctx->trace, best->sample_top));
      f->thread = best->thread;
      f->advice = g_strdup_printf ("The host computes (%s) instead of feeding the GPU. Move that "
                                   "work off the launching thread, or onto the GPU.",
                                   sl_trace_str (ctx->trace, best->sample_top));
    }
  return clause;
}

#define MAX_DESCRIBED 1000

static void
rule_gpu_gaps (Ctx *ctx)
{
  SlTime min_gap = (SlTime) param (ctx, "gap");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      GapScan scan;
      SlTime total = 0;
      gsize n;

      if (ctx->gpus[g].ops->len == 0)
        continue;
      scan = (GapScan) { min_gap, G_MININT64, g_array_new (FALSE, FALSE, sizeof (SlTime)) };

      sl_trace_gpu_busy_foreach (ctx->trace, g, SL_UTIL_ANY, gap_scan_cb, &scan);
      n = scan.gaps->len / 2;
      for (gsize i = 0; i < n; i++)
        total = _sl_time_add (total, g_array_index (scan.gaps, SlTime, 2 * i + 1) - g_array_index (scan.gaps, SlTime, 2 * i));
      /* the longest first; a trace with thousands of them describes the longest ones */
      if (n > 1)
        qsort (scan.gaps->data, n, 2 * sizeof (SlTime), cmp_gap_desc);
      for (gsize i = 0; i < MIN (n, MAX_DESCRIBED); i++)
        {
          SlTime a = g_array_index (scan.gaps, SlTime, 2 * i);
          SlTime b = g_array_index (scan.gaps, SlTime, 2 * i + 1);
          SlFinding *f = finding_new (ctx, a, b, b - a);
          g_autofree char *d = sl_format_duration (b - a);
          g_autofree char *what = NULL;

          f->gpu = g;
          f->global_pid = ctx->gpus[g].global_pid;
          evidence_duration (f, "gap_ns", "GPU idle", b - a);
          what = describe_host (ctx, g, a, b, f);
          f->summary = g_strdup_printf ("GPU %u idle for %s; %s", g, d, what);
          add_gpu_lanes (ctx, f, g);
        }
      {
        g_autofree char *t = sl_format_duration (total), *m = sl_format_duration (min_gap);
        note (ctx, "GPU %u: %" G_GSIZE_FORMAT " gaps over %s, %s in all%s", g, n, m, t,
              n > MAX_DESCRIBED ? " (the longest 1000 listed)" : "");
      }
      g_array_unref (scan.gaps);
    }
}

/* --- unions of time spans ---------------------------------------------------------------------- */

typedef struct
{
  SlTime s, e;
} Span;

static gint
cmp_span (gconstpointer a,
          gconstpointer b)
{
  const Span *x = a, *y = b;

  return x->s < y->s ? -1 : x->s > y->s;
}

/* Sorts and merges spans in place into a union. */
static void
spans_merge (GArray *spans)
{
  guint out = 0;

  g_array_sort (spans, cmp_span);
  for (guint i = 0; i < spans->len; i++)
    {
      Span sp = g_array_index (spans, Span, i);
      if (sp.e <= sp.s)
        continue;
      if (out > 0 && sp.s <= g_array_index (spans, Span, out - 1).e)
        {
          Span *last = &g_array_index (spans, Span, out - 1);
          last->e = MAX (last->e, sp.e);
        }
      else
        g_array_index (spans, Span, out++) = sp;
    }
  g_array_set_size (spans, out);
}

/* Total length of the intersection of two unions. */
static SlTime
spans_intersect (GArray *x,
                 GArray *y)
{
  SlTime total = 0;
  guint i = 0, j = 0;

  while (i < x->len && j < y->len)
    {
      const Span *a = &g_array_index (x, Span, i), *b = &g_array_index (y, Span, j);
      SlTime s = MAX (a->s, b->s), e = MIN (a->e, b->e);
      if (e > s)
        total = _sl_time_add (total, e - s);
      if (a->e < b->e)
        i++;
      else
        j++;
    }
  return total;
}

static SlTime
spans_total (GArray *x)
{
  SlTime total = 0;

  for (guint i = 0; i < x->len; i++)
    total = _sl_time_add (total, g_array_index (x, Span, i).e - g_array_index (x, Span, i).s);
  return total;
}

static void
spans_add_lane (GArray       *spans,
                const SlLane *lane)
{
  for (gsize e = 0; e < lane->n_events; e++)
    {
      Span sp = { lane->events[e].start, lane->events[e].end };
      g_array_append_val (spans, sp);
    }
}

typedef struct
{
  SlTime  a, b;
  GArray *out;
} SpanClip;

static gboolean
span_clip_cb (const SlLane *lane,
              gsize         index,
              gpointer      user_data)
{
  SpanClip *c = user_data;
  Span sp = { MAX (lane->events[index].start, c->a), MIN (lane->events[index].end, c->b) };

  if (sp.e > sp.s)
    g_array_append_val (c->out, sp);
  return TRUE;
}

/* The parts of a lane's events inside [a, b), appended (not merged). */
static void
spans_add_overlap (const SlLane *lane,
                   SlTime        a,
                   SlTime        b,
                   GArray       *out)
{
  SpanClip c = { a, b, out };

  if (lane != NULL && b > a)
    sl_lane_overlap (lane, a, b, span_clip_cb, &c);
}

/* --- cpu_bound, gpu_bound ---------------------------------------------------------------------- */

typedef enum
{
  VERDICT_NONE,
  VERDICT_LAUNCH,    /* cpu_bound: the launching thread is busy */
  VERDICT_LOADER,    /* cpu_bound: it waits, while other threads produce data */
  VERDICT_GPU,       /* gpu_bound */
} Verdict;

typedef struct
{
  SlTime  len, busy_gpu;      /* window, GPU busy time in it */
  SlTime  blocked_sync;       /* launching thread in blocking CUDA calls */
  SlTime  api_other;          /* in other CUDA calls */
  SlTime  osrt;               /* in OS runtime calls */
  SlTime  host_busy;          /* not blocked: launching or computing */
  SlTime  others;             /* other threads active while it is blocked in OS runtime calls */
  gint    other;              /* the busiest of them */
} WindowStats;

static void
window_stats (Ctx         *ctx,
              guint        gpu,
              SlTime       a,
              SlTime       b,
              WindowStats *w)
{
  GpuInfo *gi = &ctx->gpus[gpu];
  const ThreadLanes *tl = &ctx->tl[gi->launcher];
  SlTime by_class[API_MEMSET_ASYNC + 1] = { 0 };
  SlTime len = b - a;

  memset (w, 0, sizeof *w);
  w->len = len;
  w->other = -1;
  w->busy_gpu = sl_trace_gpu_busy_time (ctx->trace, gpu, SL_UTIL_ANY, a, b);
  overlap_sum (ctx, lane_or_null (ctx, tl->api), a, b, NULL, by_class, NULL);
  for (guint c = 0; c <= API_MEMSET_ASYNC; c++)
    {
      if (class_blocks (c))
        w->blocked_sync += by_class[c];
      else
        w->api_other += by_class[c];
    }
  w->osrt = overlap_sum (ctx, lane_or_null (ctx, tl->osrt), a, b, NULL, NULL, NULL);
  w->host_busy = MAX (len - w->blocked_sync - w->osrt, 0);
  if (tl->samples >= 0 && tl->sample_period > 0)
    {
      /* sampled: running is what the samples say, launching is what the API calls say */
      SlTime running = MIN ((SlTime) samples_in (lane_or_null (ctx, tl->samples), a, b)
                            * tl->sample_period, len);
      w->host_busy = MIN (w->host_busy, MAX (running, w->api_other));
    }
  /* the other threads' activity, and how much of it falls while the launching thread is
   * blocked in OS runtime calls: waiting for them */
  {
    g_autoptr (GArray) blocked = g_array_new (FALSE, FALSE, sizeof (Span));
    g_autoptr (GArray) active = g_array_new (FALSE, FALSE, sizeof (Span));
    SlTime best = 0;

    spans_add_overlap (lane_or_null (ctx, tl->osrt), a, b, blocked);
    spans_merge (blocked);
    for (guint k = 0; k < gi->threads->len; k++)
      {
        gint t = (gint) g_array_index (gi->threads, guint, k);
        const ThreadLanes *o = &ctx->tl[t];
        guint before = active->len;
        SlTime act = 0;
        if (t == gi->launcher)
          continue;
        spans_add_overlap (lane_or_null (ctx, o->osrt), a, b, active);
        spans_add_overlap (lane_or_null (ctx, o->api), a, b, active);
        if (o->sample_period > 0)
          {
            const SlLane *sl = lane_or_null (ctx, o->samples);
            gsize i0 = sl_lane_lower_bound (sl, a), i1 = sl_lane_lower_bound (sl, b);
            for (gsize i = i0; i < i1; i++)
              {
                Span sp = { MAX (sl->events[i].start - o->sample_period / 2, a),
                            MIN (sl->events[i].start + o->sample_period / 2, b) };
                g_array_append_val (active, sp);
              }
          }
        for (guint i = before; i < active->len; i++)
          act = _sl_time_add (act, g_array_index (active, Span, i).e - g_array_index (active, Span, i).s);
        if (act > best)
          {
            best = act;
            w->other = t;
          }
      }
    spans_merge (active);
    w->others = spans_intersect (blocked, active);
  }
}

static Verdict
judge (const WindowStats *w,
       gboolean           cpu,
       double             threshold,
       double             share)
{
  double len = (double) MAX (w->len, 1);

  if (cpu)
    {
      if ((double) w->busy_gpu >= threshold * len)
        return VERDICT_NONE;
      if ((double) w->osrt >= share * len && (double) w->others >= share * len)
        return VERDICT_LOADER;
      if ((double) w->host_busy >= share * len)
        return VERDICT_LAUNCH;
      return VERDICT_NONE;
    }
  if ((double) w->busy_gpu >= threshold * len && (double) w->blocked_sync >= share * len)
    return VERDICT_GPU;
  return VERDICT_NONE;
}

static void
bound_finding (Ctx               *ctx,
               guint              gpu,
               Verdict            v,
               SlTime             a,
               SlTime             b,
               const WindowStats *sum)
{
  GpuInfo *gi = &ctx->gpus[gpu];
  double len = (double) MAX (b - a, 1);
  g_autofree char *who = thread_label (ctx, gi->launcher);
  g_autofree char *d = sl_format_duration (b - a);
  g_autoptr (GHashTable) osrt = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr (GHashTable) api = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  SlTime top_t;
  guint32 top;
  SlFinding *f;

  f = finding_new (ctx, a, b, v == VERDICT_GPU ? sum->blocked_sync : (b - a) - sum->busy_gpu);
  f->gpu = gpu;
  f->thread = gi->launcher;
  f->global_pid = gi->global_pid;
  evidence_share (f, "gpu_busy_share", "GPU busy", (double) sum->busy_gpu / len);
  evidence_share (f, "host_busy_share", "Launching thread busy", (double) sum->host_busy / len);
  evidence_share (f, "host_sync_share", "Launching thread in sync calls",
                  (double) sum->blocked_sync / len);
  evidence_share (f, "host_osrt_share", "Launching thread in OS runtime calls",
                  (double) sum->osrt / len);
  evidence_duration (f, "duration_ns", "Stretch", b - a);
  add_gpu_lanes (ctx, f, gpu);
  add_thread_lanes (ctx, f, gi->launcher);

  switch (v)
    {
    case VERDICT_LOADER:
      {
        g_autofree char *other = thread_label (ctx, sum->other);
        overlap_sum (ctx, lane_or_null (ctx, ctx->tl[gi->launcher].osrt), a, b, osrt, NULL, NULL);
        top = top_name (osrt, &top_t);
        evidence_share (f, "others_busy_share", other, (double) sum->others / len);
        add_thread_lanes (ctx, f, sum->other);
        f->summary = g_strdup_printf ("GPU %u busy %.0f%% for %s while %s waits in %s (%.0f%%) "
                                      "and %s works (%.0f%%): the data loader is the bottleneck",
                                      gpu, 100.0 * sum->busy_gpu / len, d, who,
                                      sl_trace_str (ctx->trace, top), 100.0 * top_t / len, other,
                                      100.0 * sum->others / len);
        f->advice = g_strdup ("The training loop waits for its input: the data loader cannot keep "
                              "up. Use more DataLoader workers (num_workers), pin_memory=True and "
                              "prefetching, decode on the GPU, or cache preprocessed data.");
        break;
      }
    case VERDICT_LAUNCH:
      overlap_sum (ctx, lane_or_null (ctx, ctx->tl[gi->launcher].api), a, b, api, NULL, NULL);
      top = top_name (api, &top_t);
      f->summary = g_strdup_printf ("GPU %u busy %.0f%% for %s while %s is busy %.0f%% (most in "
                                    "%s): the CPU cannot feed the GPU",
                                    gpu, 100.0 * sum->busy_gpu / len, d, who,
                                    100.0 * sum->host_busy / len,
                                    top != SL_NO_STR ? sl_trace_str (ctx->trace, top)
                                                     : "its own code");
      f->advice = g_strdup ("The launching thread is busy and the GPU waits: CPU overhead between "
                            "kernels (Python, framework, launch calls). Fuse small kernels, use "
                            "CUDA Graphs or torch.compile, larger batches, and move CPU work out "
                            "of the loop.");
      break;
    case VERDICT_GPU:
      overlap_sum (ctx, lane_or_null (ctx, ctx->tl[gi->launcher].api), a, b, api, NULL, NULL);
      top = top_name (api, &top_t);
      f->summary = g_strdup_printf ("GPU %u busy %.0f%% for %s while %s waits for it %.0f%% of "
                                    "the time (%s): the GPU is the bottleneck",
                                    gpu, 100.0 * sum->busy_gpu / len, d, who,
                                    100.0 * sum->blocked_sync / len,
                                    sl_trace_str (ctx->trace, top));
      f->advice = g_strdup ("The GPU is saturated and the host waits for it: speed up the "
                            "kernels that take the most time (see `sightline stats`, the "
                            "low_occupancy findings), use lower precision or tensor cores, or "
                            "overlap the host's waiting with useful work.");
      break;
    case VERDICT_NONE:
      break;
    }
}

static void
rule_bound (Ctx     *ctx,
            gboolean cpu)
{
  SlTime window = MAX ((SlTime) param (ctx, "window"), 1 * US);
  double threshold = param (ctx, "threshold"), share = param (ctx, cpu ? "busy" : "sync");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      GpuInfo *gi = &ctx->gpus[g];
      SlTime span = gi->last - gi->first, w = window, run_start = 0;
      Verdict run = VERDICT_NONE;
      WindowStats sum = { 0 };
      guint n;

      if (span <= 0 || gi->launcher < 0)
        {
          if (span > 0)
            note (ctx, "GPU %u: no launching thread known", g);
          continue;
        }
      /* at most 100 000 windows */
      if (span / w > 100000)
        w = span / 100000 + 1;
      n = (guint) ((span + w - 1) / w);
      for (guint i = 0; i <= n; i++)
        {
          SlTime a = gi->first + (SlTime) i * w, b = MIN (a + w, gi->last);
          WindowStats ws = { 0 };
          Verdict v = VERDICT_NONE;

          if (i < n && b > a)
            {
              window_stats (ctx, g, a, b, &ws);
              v = judge (&ws, cpu, threshold, share);
            }
          if (v != run && run != VERDICT_NONE)
            bound_finding (ctx, g, run, run_start, MIN (a, gi->last), &sum);
          if (v != run)
            {
              run = v;
              run_start = a;
              memset (&sum, 0, sizeof sum);
              sum.other = -1;
            }
          if (v != VERDICT_NONE)
            {
              sum.len = _sl_time_add (sum.len, ws.len);
              sum.busy_gpu = _sl_time_add (sum.busy_gpu, ws.busy_gpu);
              sum.blocked_sync = _sl_time_add (sum.blocked_sync, ws.blocked_sync);
              sum.osrt = _sl_time_add (sum.osrt, ws.osrt);
              sum.host_busy = _sl_time_add (sum.host_busy, ws.host_busy);
              if (ws.other >= 0 && (sum.other < 0 || ws.other == sum.other))
                {
                  sum.others = _sl_time_add (sum.others, ws.others);
                  sum.other = ws.other;
                }
            }
        }
      {
        g_autofree char *who = thread_label (ctx, gi->launcher), *wd = sl_format_duration (w);
        note (ctx, "GPU %u: %u windows of %s, launching thread %s", g, n, wd, who);
      }
    }
}

static void
rule_cpu_bound (Ctx *ctx)
{
  rule_bound (ctx, TRUE);
}

static void
rule_gpu_bound (Ctx *ctx)
{
  rule_bound (ctx, FALSE);
}

/* --- sync_memcpy, pageable_memcpy, sync_memset, sync_api ----------------------------------------- */

typedef struct
{
  gint     thread;
  guint32  api_name;
  gint     gpu;
  guint32  stream;
  const SlCopyInfo *info;    /* of the first op (copies and sets) */
  gsize    count;
  SlTime   api_time, gpu_time;
  guint64  bytes;
  SlTime   first, last;
  SlTime   longest;
  GArray  *durations;        /* SlTime: API call durations */
  GArray  *events;           /* SlFindingEvent: API calls and ops, the first ones */
} CallGroup;

static void
call_group_free (gpointer data)
{
  CallGroup *g = data;

  g_array_unref (g->durations);
  g_array_unref (g->events);
  g_free (g);
}

static CallGroup *
call_group (GHashTable       *groups,
            gint              thread,
            guint32           api_name,
            gint              gpu,
            guint32           stream,
            const SlCopyInfo *info)
{
  char *key = g_strdup_printf ("%d:%u:%d:%u:%u:%u:%u:%u", thread, api_name, gpu, stream,
                               info ? info->copy_kind : 0, info ? info->src_kind : 0,
                               info ? info->dst_kind : 0, info ? info->mem_kind : 0);
  CallGroup *g = g_hash_table_lookup (groups, key);

  if (g != NULL)
    {
      g_free (key);
      return g;
    }
  g = g_new0 (CallGroup, 1);
  g->thread = thread;
  g->api_name = api_name;
  g->gpu = gpu;
  g->stream = stream;
  g->info = info;
  g->first = G_MAXINT64;
  g->last = G_MININT64;
  g->durations = g_array_new (FALSE, FALSE, sizeof (SlTime));
  g->events = g_array_new (FALSE, FALSE, sizeof (SlFindingEvent));
  g_hash_table_insert (groups, key, g);
  return g;
}

static void
call_group_add (CallGroup     *g,
                const SlLane  *api_lane,
                gsize          api_index,
                const SlLane  *op_lane,
                gsize          op_index)
{
  const SlEvent *api = &api_lane->events[api_index];
  SlTime d = api->end - api->start;

  g->count++;
  g->api_time = _sl_time_add (g->api_time, d);
  g_array_append_val (g->durations, d);
  g->first = MIN (g->first, api->start);
  g->last = MAX (g->last, api->end);
  g->longest = MAX (g->longest, d);
  if (g->events->len < MAX_FINDING_EVENTS)
    {
      SlFindingEvent e = { api_lane->index, api_index };
      g_array_append_val (g->events, e);
      if (op_lane != NULL)
        {
          e = (SlFindingEvent) { op_lane->index, op_index };
          g_array_append_val (g->events, e);
        }
    }
  if (op_lane != NULL)
    {
      const SlEvent *op = &op_lane->events[op_index];
      g->gpu_time = _sl_time_add (g->gpu_time, op->end - op->start);
    }
}

static const char *
mem_kind_name (Ctx  *ctx,
               guint kind)
{
  return kind == SL_MEM_KIND_NONE ? "?" : sl_trace_enum_label (ctx->trace, SL_ENUM_MEM_KIND, kind);
}

typedef gboolean (*OpFilter) (Ctx *ctx, ApiClass c, const SlCopyInfo *info);

static gboolean
filter_sync_memcpy (Ctx              *ctx,
                    ApiClass          c,
                    const SlCopyInfo *info)
{
  guint64 min_bytes = (guint64) param (ctx, "min_bytes");

  if (c != API_MEMCPY_SYNC || info == NULL)
    return FALSE;
  /* as nsys: small host-to-device copies and copies within one device are left out */
  if (info->copy_kind == 1 && info->bytes <= min_bytes)
    return FALSE;
  if (info->src_device >= 0 && info->src_device == info->dst_device)
    return FALSE;
  return TRUE;
}

static gboolean
filter_pageable_memcpy (Ctx              *ctx,
                        ApiClass          c,
                        const SlCopyInfo *info)
{
  (void) ctx;
  return c == API_MEMCPY_ASYNC && info != NULL
         && (info->src_kind == 0 /* pageable */ || info->dst_kind == 0);
}

static gboolean
filter_sync_memset (Ctx              *ctx,
                    ApiClass          c,
                    const SlCopyInfo *info)
{
  (void) ctx;
  return c == API_MEMSET_SYNC && info != NULL
         && (info->mem_kind == 1 /* pinned */ || info->mem_kind == 4 /* managed */);
}

/* Groups the GPU ops of `kind` lanes that pass `filter` by thread, call, GPU, stream and kinds. */
static void
collect_ops (Ctx        *ctx,
             SlLaneKind  kind,
             OpFilter    filter,
             GHashTable *groups)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (ctx->trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (ctx->trace, i);
      if (lane->kind != kind)
        continue;
      for (gsize e = 0; e < lane->n_events; e++)
        {
          const SlEvent *op = &lane->events[e];
          const SlLane *api_lane;
          gsize api_index;
          gint thread = launch_thread (ctx, op, &api_lane, &api_index);
          const SlCopyInfo *info = sl_trace_get_copy_info (ctx->trace, op->aux);
          ApiClass c;
          if (thread < 0)
            continue;
          c = api_class (ctx, api_lane->events[api_index].name);
          if (!filter (ctx, c, info))
            continue;
          CallGroup *g = call_group (groups, thread, api_lane->events[api_index].name, lane->gpu,
                                     lane->stream_id, info);
          call_group_add (g, api_lane, api_index, lane, e);
          if (info != NULL)
            g->bytes = g->bytes + info->bytes < g->bytes ? G_MAXUINT64 : g->bytes + info->bytes;
        }
    }
}

static gint
cmp_group_cost (gconstpointer a,
                gconstpointer b)
{
  const CallGroup *x = *(CallGroup *const *) a, *y = *(CallGroup *const *) b;

  return x->api_time > y->api_time ? -1 : x->api_time < y->api_time;
}

static GPtrArray *
sorted_groups (GHashTable *groups)
{
  GPtrArray *out = g_ptr_array_new ();
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, groups);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_ptr_array_add (out, v);
  g_ptr_array_sort (out, cmp_group_cost);
  return out;
}

static SlFinding *
group_finding (Ctx       *ctx,
               CallGroup *g)
{
  SlFinding *f = finding_new (ctx, g->first, g->last, g->api_time);
  g_autofree char *total = sl_format_duration (g->api_time);
  g_autofree char *longest = sl_format_duration (g->longest);
  g_autofree char *median = sl_format_duration (median_of (g->durations));

  f->thread = g->thread;
  f->global_pid = thread_pid (ctx, g->thread);
  f->gpu = g->gpu;
  f->stream = g->stream;
  evidence (f, "count", "Calls", (double) g->count, "%" G_GSIZE_FORMAT, g->count);
  evidence (f, "host_blocked_ns", "Host blocked in them", (double) g->api_time, "%s", total);
  evidence (f, "median_ns", "Median call", (double) median_of (g->durations), "%s", median);
  evidence (f, "longest_ns", "Longest call", (double) g->longest, "%s", longest);
  for (guint i = 0; i < g->events->len; i++)
    {
      const SlFindingEvent *e = &g_array_index (g->events, SlFindingEvent, i);
      finding_add_event (f, e->lane, e->index);
    }
  return f;
}

static void
rule_copies (Ctx        *ctx,
             SlLaneKind  kind,
             OpFilter    filter)
{
  g_autoptr (GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         call_group_free);
  g_autoptr (GPtrArray) sorted = NULL;
  gboolean sets = kind == SL_LANE_MEMSET;

  collect_ops (ctx, kind, filter, groups);
  sorted = sorted_groups (groups);
  for (guint i = 0; i < sorted->len; i++)
    {
      CallGroup *g = g_ptr_array_index (sorted, i);
      SlFinding *f = group_finding (ctx, g);
      g_autofree char *who = thread_label (ctx, g->thread);
      g_autofree char *bytes = sl_format_bytes (g->bytes);
      g_autofree char *gpu_time = sl_format_duration (g->gpu_time);
      g_autofree char *blocked = sl_format_duration (g->api_time);
      const char *api = sl_trace_str (ctx->trace, g->api_name);
      g_autofree char *kinds = NULL;

      if (sets)
        kinds = g_strdup_printf ("%s memory", mem_kind_name (ctx, g->info->mem_kind));
      else
        kinds = g_strdup_printf ("%s, %s → %s",
                                 sl_trace_enum_label (ctx->trace, SL_ENUM_MEMCPY_OPER,
                                                      g->info->copy_kind),
                                 mem_kind_name (ctx, g->info->src_kind),
                                 mem_kind_name (ctx, g->info->dst_kind));
      evidence (f, "bytes", "Bytes", (double) g->bytes, "%s", bytes);
      evidence (f, "gpu_ns", sets ? "GPU time of the sets" : "GPU time of the copies",
                (double) g->gpu_time, "%s", gpu_time);
      evidence (f, "kind", sets ? "Memory" : "Copies", 0, "%s", kinds);
      f->summary = g_strdup_printf ("%s: %" G_GSIZE_FORMAT " × %s (%s, %s), host blocked %s", who,
                                    g->count, api, kinds, bytes, blocked);
      if (filter == filter_pageable_memcpy)
        f->advice = g_strdup ("An asynchronous copy from or to pageable memory is staged through a "
                              "pinned buffer by the driver and blocks the host: use pinned memory "
                              "(cudaHostAlloc / cudaHostRegister; pin_memory=True in PyTorch).");
      else if (sets)
        f->advice = g_strdup ("cudaMemset on pinned or managed memory blocks the host: use "
                              "cudaMemsetAsync on a stream.");
      else if (g->info->src_kind == 0 || g->info->dst_kind == 0)
        f->advice = g_strdup ("Each call blocks the host until the copy is done, and pageable "
                              "memory makes the copy slower still: use cudaMemcpyAsync with "
                              "pinned host memory, and overlap copies with kernels.");
      else
        f->advice = g_strdup ("Each call blocks the host until the copy is done: use "
                              "cudaMemcpyAsync() on a stream instead, and overlap copies with "
                              "kernels.");
    }
  note (ctx, "%u distinct calls", g_hash_table_size (groups));
}

static void
rule_sync_memcpy (Ctx *ctx)
{
  rule_copies (ctx, SL_LANE_MEMCPY, filter_sync_memcpy);
}

static void
rule_pageable_memcpy (Ctx *ctx)
{
  rule_copies (ctx, SL_LANE_MEMCPY, filter_pageable_memcpy);
}

static void
rule_sync_memset (Ctx *ctx)
{
  rule_copies (ctx, SL_LANE_MEMSET, filter_sync_memset);
}

static void
rule_sync_api (Ctx *ctx)
{
  g_autoptr (GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         call_group_free);
  g_autoptr (GPtrArray) sorted = NULL;

  for (guint t = 0; t < ctx->n_threads; t++)
    {
      const SlLane *lane = lane_or_null (ctx, ctx->tl[t].api);
      if (lane == NULL)
        continue;
      for (gsize e = 0; e < lane->n_events; e++)
        if (api_class (ctx, lane->events[e].name) == API_SYNC)
          call_group_add (call_group (groups, t, lane->events[e].name, -1, 0, NULL), lane, e,
                          NULL, 0);
    }
  sorted = sorted_groups (groups);
  for (guint i = 0; i < sorted->len; i++)
    {
      CallGroup *g = g_ptr_array_index (sorted, i);
      SlFinding *f = group_finding (ctx, g);
      g_autofree char *who = thread_label (ctx, g->thread);
      g_autofree char *blocked = sl_format_duration (g->api_time);
      SlTime span = g->last - g->first;
      double rate = span > 0 ? (double) (g->count - 1) * 1e9 / (double) span : 0;

      evidence (f, "rate_per_s", "Calls per second", rate, "%.1f", rate);
      f->summary = g_strdup_printf ("%s: %" G_GSIZE_FORMAT " × %s, host blocked %s", who, g->count,
                                    sl_trace_str (ctx->trace, g->api_name), blocked);
      f->advice = g_strdup ("Each synchronization stalls the host until the GPU is done, then "
                            "the GPU idles until the host queues more work. Synchronize only "
                            "where the result is needed (not every step: .item(), .cpu(), "
                            "printing a tensor all synchronize), and order streams with events "
                            "(cudaEventRecord, cudaStreamWaitEvent) instead.");
    }
  note (ctx, "%u distinct calls", g_hash_table_size (groups));
}

/* --- tiny_kernels -------------------------------------------------------------------------------- */

typedef struct
{
  guint32 name;
  GArray *starts;      /* SlTime */
  GArray *durations;   /* SlTime */
  SlTime  total;
  guint32 lane;
  gsize   index;       /* an instance */
} KernelGroup;

static void
kernel_group_free (gpointer data)
{
  KernelGroup *k = data;

  g_array_unref (k->starts);
  g_array_unref (k->durations);
  g_free (k);
}

static void
rule_tiny_kernels (Ctx *ctx)
{
  SlTime max_median = (SlTime) param (ctx, "duration");
  gsize min_count = (gsize) param (ctx, "count");
  guint n_found = 0;

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      g_autoptr (GHashTable) groups = g_hash_table_new_full (NULL, NULL, NULL, kernel_group_free);
      GpuInfo *gi = &ctx->gpus[g];
      GHashTableIter it;
      gpointer v;

      for (guint k = 0; k < gi->kernels->len; k++)
        {
          const SlLane *lane = sl_trace_get_lane (ctx->trace, g_array_index (gi->kernels, guint32, k));
          for (gsize e = 0; e < lane->n_events; e++)
            {
              const SlEvent *ev = &lane->events[e];
              KernelGroup *kg = g_hash_table_lookup (groups, GUINT_TO_POINTER (ev->name));
              SlTime d = ev->end - ev->start;
              if (kg == NULL)
                {
                  kg = g_new0 (KernelGroup, 1);
                  kg->name = ev->name;
                  kg->starts = g_array_new (FALSE, FALSE, sizeof (SlTime));
                  kg->durations = g_array_new (FALSE, FALSE, sizeof (SlTime));
                  kg->lane = lane->index;
                  kg->index = e;
                  g_hash_table_insert (groups, GUINT_TO_POINTER (ev->name), kg);
                }
              g_array_append_val (kg->starts, ev->start);
              g_array_append_val (kg->durations, d);
              kg->total = _sl_time_add (kg->total, d);
            }
        }
      g_hash_table_iter_init (&it, groups);
      while (g_hash_table_iter_next (&it, NULL, &v))
        {
          KernelGroup *kg = v;
          gsize n = kg->starts->len;
          SlTime median, interval, first, last, launch = 0;
          g_autoptr (GArray) gaps = NULL;

          if (n < MAX (min_count, 2))
            continue;
          median = median_of (kg->durations);
          if (median >= max_median)
            continue;
          g_array_sort (kg->starts, cmp_time);
          first = g_array_index (kg->starts, SlTime, 0);
          last = g_array_index (kg->starts, SlTime, n - 1);
          /* the spacing of launches inside their bursts: pairs under 1 ms apart */
          gaps = g_array_sized_new (FALSE, FALSE, sizeof (SlTime), n);
          for (gsize i = 1; i < n; i++)
            {
              SlTime d = g_array_index (kg->starts, SlTime, i) - g_array_index (kg->starts, SlTime, i - 1);
              if (d < 1 * MS)
                g_array_append_val (gaps, d);
            }
          if (gaps->len == 0)
            continue;
          interval = median_of (gaps);
          /* launch calls: a sample of up to 4096 instances */
          {
            const SlLane *lane = sl_trace_get_lane (ctx->trace, kg->lane);
            g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (SlTime));
            gsize step = MAX (lane->n_events / 4096, 1);
            for (gsize e = 0; e < lane->n_events; e += step)
              {
                const SlLane *al;
                gsize ai;
                if (lane->events[e].name == kg->name
                    && launch_thread (ctx, &lane->events[e], &al, &ai) >= 0)
                  {
                    SlTime d = al->events[ai].end - al->events[ai].start;
                    g_array_append_val (calls, d);
                  }
              }
            launch = median_of (calls);
          }
          {
            SlTime overhead = MAX (interval - median, 0);
            SlFinding *f = finding_new (ctx, first, last + median, (SlTime) n * overhead);
            g_autofree char *md = sl_format_duration (median), *iv = sl_format_duration (interval);
            g_autofree char *tot = sl_format_duration (kg->total);
            double rate = last > first ? (double) (n - 1) * 1e9 / (double) (last - first) : 0;

            f->gpu = g;
            f->global_pid = gi->global_pid;
            evidence (f, "count", "Instances", (double) n, "%u", (guint) n);
            evidence_duration (f, "median_ns", "Median duration", median);
            evidence_duration (f, "total_ns", "GPU time", kg->total);
            evidence_duration (f, "interval_ns", "Median time between launches", interval);
            evidence (f, "interval_ratio", "Time between launches ÷ kernel time",
                      (double) interval / (double) MAX (median, 1), "%.1f",
                      (double) interval / (double) MAX (median, 1));
            evidence (f, "rate_per_s", "Launches per second", rate, "%.0f", rate);
            if (launch > 0)
              evidence_duration (f, "launch_call_ns", "Median launch call", launch);
            finding_add_event (f, kg->lane, kg->index);
            add_gpu_lanes (ctx, f, g);
            add_thread_lanes (ctx, f, gi->launcher);
            f->thread = gi->launcher;
            f->summary = g_strdup_printf ("%u × %s of %s median, launched every %s: the GPU "
                                          "spends more time between them than in them (%s of "
                                          "kernel time)",
                                          (guint) n, sl_trace_str (ctx->trace, kg->name), md, iv,
                                          tot);
            f->advice = g_strdup ("Launch overhead dominates these kernels: fuse them (a larger "
                                  "kernel, torch.compile, fused optimizers and foreach ops), batch "
                                  "the work, or capture the loop in a CUDA Graph.");
            n_found++;
          }
        }
    }
  {
    g_autofree char *d = sl_format_duration (max_median);
    note (ctx, "%u kernel names with %" G_GSIZE_FORMAT " or more instances of median under %s",
          n_found, min_count, d);
  }
}

/* --- low_occupancy ------------------------------------------------------------------------------- */

typedef struct
{
  guint32 aux;
  gsize   count;
  SlTime  total;
  SlTime  first, last;   /* first start, last end */
  guint32 lane;
  gsize   index;
} ConfigGroup;

static void
rule_low_occupancy (Ctx *ctx)
{
  double max_occ = param (ctx, "occupancy"), min_share = param (ctx, "share");
  SlTime min_time = (SlTime) param (ctx, "time");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      g_autoptr (GHashTable) groups = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      GpuInfo *gi = &ctx->gpus[g];
      const SlGpu *gpu = sl_trace_get_gpu (ctx->trace, g);
      SlTime all = 0;
      GHashTableIter it;
      gpointer v;

      for (guint k = 0; k < gi->kernels->len; k++)
        {
          const SlLane *lane = sl_trace_get_lane (ctx->trace, g_array_index (gi->kernels, guint32, k));
          for (gsize e = 0; e < lane->n_events; e++)
            {
              const SlEvent *ev = &lane->events[e];
              ConfigGroup *cg = g_hash_table_lookup (groups, GUINT_TO_POINTER (ev->aux + 1));
              if (cg == NULL)
                {
                  cg = g_new0 (ConfigGroup, 1);
                  cg->aux = ev->aux;
                  cg->lane = lane->index;
                  cg->index = e;
                  cg->first = ev->start;
                  cg->last = ev->end;
                  g_hash_table_insert (groups, GUINT_TO_POINTER (ev->aux + 1), cg);
                }
              cg->first = MIN (cg->first, ev->start);
              cg->last = MAX (cg->last, ev->end);
              cg->count++;
              cg->total = _sl_time_add (cg->total, ev->end - ev->start);
              all = _sl_time_add (all, ev->end - ev->start);
            }
        }
      if (all == 0)
        continue;
      if (gpu->limits.cc_major == 0)
        {
          note (ctx, "GPU %u: compute capability unknown, occupancy not computed", g);
          continue;
        }
      g_hash_table_iter_init (&it, groups);
      while (g_hash_table_iter_next (&it, NULL, &v))
        {
          ConfigGroup *cg = v;
          const SlKernelInfo *ki = sl_trace_get_kernel_info (ctx->trace, cg->aux);
          double share = (double) cg->total / (double) all;
          SlOccupancy occ;
          gint64 threads;

          if (ki == NULL || share < min_share || cg->total < min_time)
            continue;
          threads = (gint64) ki->block[0] * ki->block[1] * ki->block[2];
          if (!sl_occupancy_compute (&gpu->limits, (gint) MIN (threads, G_MAXINT),
                                     (gint) ki->registers_per_thread,
                                     (gint64) ki->static_shared + ki->dynamic_shared, &occ)
              || occ.occupancy >= max_occ)
            continue;
          {
            SlFinding *f = finding_new (ctx, cg->first, cg->last,
                                        (SlTime) ((double) cg->total * (1.0 - occ.occupancy)));
            const char *name = sl_trace_str (ctx->trace, ki->demangled_name);
            const char *limit = sl_occupancy_limit_name (occ.limit);
            g_autofree char *tot = sl_format_duration (cg->total);

            f->gpu = g;
            f->global_pid = gi->global_pid;
            evidence_share (f, "occupancy", "Theoretical occupancy", occ.occupancy);
            evidence (f, "limit", "Limited by", occ.limit, "%s", limit);
            evidence (f, "blocks_per_sm", "Blocks per SM", occ.blocks_per_sm, "%d",
                      occ.blocks_per_sm);
            evidence (f, "warps_per_sm", "Warps per SM", occ.warps_per_sm, "%d of %d",
                      occ.warps_per_sm, occ.max_warps_per_sm);
            evidence (f, "registers_per_thread", "Registers per thread", ki->registers_per_thread,
                      "%u", ki->registers_per_thread);
            evidence (f, "shared_bytes", "Shared memory per block",
                      (double) ki->static_shared + ki->dynamic_shared, "%u B static + %u B dynamic",
                      ki->static_shared, ki->dynamic_shared);
            evidence (f, "block_threads", "Block", (double) threads, "%u × %u × %u",
                      ki->block[0], ki->block[1], ki->block[2]);
            evidence (f, "grid_blocks", "Grid",
                      (double) ki->grid[0] * ki->grid[1] * ki->grid[2], "%u × %u × %u",
                      ki->grid[0], ki->grid[1], ki->grid[2]);
            evidence_share (f, "gpu_time_share", "Share of the GPU's kernel time", share);
            evidence_duration (f, "gpu_ns", "GPU time", cg->total);
            evidence (f, "count", "Instances", (double) cg->count, "%" G_GSIZE_FORMAT, cg->count);
            finding_add_event (f, cg->lane, cg->index);
            add_gpu_lanes (ctx, f, g);
            f->summary = g_strdup_printf ("%s: %.0f%% theoretical occupancy (limited by %s) in "
                                          "%.0f%% of GPU %u's kernel time (%s)",
                                          name, occ.occupancy * 100, limit, share * 100, g, tot);
            switch (occ.limit)
              {
              case SL_OCC_LIMIT_REGISTERS:
                f->advice = g_strdup_printf (
                    "%u registers per thread allow %d block(s) per SM: cap them (__launch_bounds__, "
                    "-maxrregcount) or simplify the kernel.", ki->registers_per_thread,
                    occ.blocks_per_sm);
                break;
              case SL_OCC_LIMIT_SHARED_MEMORY:
                f->advice = g_strdup_printf (
                    "%d B of shared memory per block allow %d block(s) per SM: use smaller tiles or "
                    "less shared memory per block.", occ.shared_per_block, occ.blocks_per_sm);
                break;
              case SL_OCC_LIMIT_BLOCKS:
                f->advice = g_strdup_printf (
                    "Blocks of %" G_GINT64_FORMAT " threads hit the limit of blocks per SM: use "
                    "larger blocks (128 threads or more).", threads);
                break;
              case SL_OCC_LIMIT_WARPS:
              case SL_OCC_LIMIT_NONE:
              default:
                f->advice = g_strdup ("Change the launch configuration (block size) so that more "
                                      "warps fit on each SM.");
                break;
              }
          }
        }
    }
}

/* --- launch_latency ------------------------------------------------------------------------------ */

static void
rule_launch_latency (Ctx *ctx)
{
  SlTime latency = (SlTime) param (ctx, "latency");
  double idle_share = param (ctx, "idle");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      GpuInfo *gi = &ctx->gpus[g];
      for (guint k = 0; k < gi->ops->len; k++)
        {
          const SlLane *lane = sl_trace_get_lane (ctx->trace, g_array_index (gi->ops, guint32, k));
          g_autoptr (GArray) delays = g_array_new (FALSE, FALSE, sizeof (SlTime));
          g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (SlFindingEvent));
          SlTime idle_total = 0, first = 0, last = 0, worst = 0;
          gint thread = -1;

          if (lane->kind != SL_LANE_KERNELS)
            continue;
          for (gsize e = 0; e < lane->n_events; e++)
            {
              const SlEvent *ev = &lane->events[e];
              const SlLane *al;
              gsize ai;
              SlTime delay, idle;
              if (launch_thread (ctx, ev, &al, &ai) < 0)
                continue;
              delay = ev->start - al->events[ai].end;
              if (delay <= latency)
                continue;
              idle = delay - sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_ANY,
                                                     al->events[ai].end, ev->start);
              if ((double) idle < idle_share * (double) delay)
                continue;
              if (delays->len == 0)
                first = al->events[ai].start;
              last = ev->end;
              g_array_append_val (delays, delay);
              idle_total = _sl_time_add (idle_total, idle);
              worst = MAX (worst, delay);
              thread = al->thread;
              if (events->len < MAX_FINDING_EVENTS)
                {
                  SlFindingEvent pair[2] = { { al->index, ai }, { lane->index, e } };
                  g_array_append_vals (events, pair, 2);
                }
            }
          if (delays->len == 0)
            continue;
          {
            SlFinding *f = finding_new (ctx, first, last, idle_total);
            g_autofree char *med = sl_format_duration (median_of (delays));
            g_autofree char *w = sl_format_duration (worst);
            g_autofree char *idle = sl_format_duration (idle_total);

            f->gpu = g;
            f->stream = lane->stream_id;
            f->thread = thread;
            f->global_pid = lane->global_pid;
            evidence (f, "count", "Late kernels", delays->len, "%u", delays->len);
            evidence (f, "median_delay_ns", "Median queue delay", (double) median_of (delays),
                      "%s", med);
            evidence (f, "max_delay_ns", "Longest queue delay", (double) worst, "%s", w);
            evidence (f, "idle_ns", "GPU idle during the delays", (double) idle_total, "%s", idle);
            for (guint i = 0; i < events->len; i++)
              finding_add_event (f, g_array_index (events, SlFindingEvent, i).lane,
                                 g_array_index (events, SlFindingEvent, i).index);
            f->summary = g_strdup_printf ("Stream %u on GPU %u: %u kernels started %s (median) "
                                          "after their launch call while the GPU was idle",
                                          lane->stream_id, g, delays->len, med);
            f->advice = g_strdup ("The GPU was idle, yet the kernels started late: the launch "
                                  "waited on something else (a stream or event dependency, an "
                                  "implicit synchronization of the legacy default stream, or "
                                  "the driver). Use non-blocking streams and check the "
                                  "dependencies of these launches.");
          }
        }
    }
}

/* --- idle_breakdown ------------------------------------------------------------------------------ */

typedef struct
{
  GArray *idle;
  SlTime  prev_end;
} IdleScan;

static gboolean
idle_scan_cb (SlTime   start,
              SlTime   end,
              gpointer user_data)
{
  IdleScan *s = user_data;

  if (s->prev_end != G_MININT64 && start > s->prev_end)
    {
      Span sp = { s->prev_end, start };
      g_array_append_val (s->idle, sp);
    }
  s->prev_end = MAX (s->prev_end, end);
  return TRUE;
}

static void
rule_idle_breakdown (Ctx *ctx)
{
  double min_idle = param (ctx, "idle");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      GpuInfo *gi = &ctx->gpus[g];
      SlTime span = gi->last - gi->first, kern, kc, any;
      g_autoptr (GArray) copies = g_array_new (FALSE, FALSE, sizeof (Span));
      g_autoptr (GArray) sync = g_array_new (FALSE, FALSE, sizeof (Span));
      g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (Span));
      IdleScan scan = { g_array_new (FALSE, FALSE, sizeof (Span)), G_MININT64 };
      SlTime idle, idle_sync, idle_calls, other;

      if (span <= 0)
        continue;
      kern = sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_KERNELS, gi->first, gi->last);
      any = sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_ANY, gi->first, gi->last);
      /* kernels and copies together: their union, from the lanes */
      for (guint k = 0; k < gi->ops->len; k++)
        {
          const SlLane *lane = sl_trace_get_lane (ctx->trace, g_array_index (gi->ops, guint32, k));
          if (lane->kind != SL_LANE_MEMSET)
            spans_add_lane (copies, lane);
        }
      spans_merge (copies);
      kc = spans_total (copies);

      sl_trace_gpu_busy_foreach (ctx->trace, g, SL_UTIL_ANY, idle_scan_cb, &scan);
      idle = spans_total (scan.idle);
      /* the host side: blocking calls and all CUDA calls of the GPU's threads */
      for (guint k = 0; k < gi->threads->len; k++)
        {
          const SlLane *lane = lane_or_null (ctx, ctx->tl[g_array_index (gi->threads, guint, k)].api);
          if (lane == NULL)
            continue;
          for (gsize e = 0; e < lane->n_events; e++)
            {
              Span sp = { lane->events[e].start, lane->events[e].end };
              g_array_append_val (calls, sp);
              if (class_blocks (api_class (ctx, lane->events[e].name)))
                g_array_append_val (sync, sp);
            }
        }
      spans_merge (sync);
      spans_merge (calls);
      idle_sync = spans_intersect (scan.idle, sync);
      idle_calls = spans_intersect (scan.idle, calls);
      other = MAX (idle - idle_calls, 0);

      {
        double sp = (double) span;
        g_autofree char *d = sl_format_duration (span);
        note (ctx, "GPU %u over %s: kernels %.1f%%, copies %.1f%%, sets %.1f%%; idle in host sync "
              "%.1f%%, idle while launching %.1f%%, other idle %.1f%%", g, d, 100.0 * kern / sp,
              100.0 * (kc - kern) / sp, 100.0 * (any - kc) / sp, 100.0 * idle_sync / sp,
              100.0 * (idle_calls - idle_sync) / sp, 100.0 * other / sp);
        if ((double) idle >= min_idle * sp)
          {
            SlFinding *f = finding_new (ctx, gi->first, gi->last, idle);
            const char *worst;
            f->gpu = g;
            f->global_pid = gi->global_pid;
            evidence_duration (f, "span_ns", "Span of its work", span);
            evidence_share (f, "kernels_share", "Running kernels", kern / sp);
            evidence_share (f, "copies_share", "Copying (no kernel)", (kc - kern) / sp);
            evidence_share (f, "sets_share", "Setting memory (no kernel or copy)", (any - kc) / sp);
            evidence_share (f, "idle_sync_share", "Idle, host in a sync call", idle_sync / sp);
            evidence_share (f, "idle_launch_share", "Idle, host in other CUDA calls",
                            (idle_calls - idle_sync) / sp);
            evidence_share (f, "idle_other_share", "Idle otherwise", other / sp);
            add_gpu_lanes (ctx, f, g);
            add_thread_lanes (ctx, f, gi->launcher);
            if (idle_sync >= idle_calls - idle_sync && idle_sync >= other)
              {
                worst = "while the host waits in sync calls";
                f->advice = g_strdup ("Most idle time falls while the host synchronizes: the GPU "
                                      "drains and waits for the next work. See the sync_api "
                                      "findings.");
              }
            else if (idle_calls - idle_sync >= other)
              {
                worst = "while the host is in CUDA calls (launch overhead)";
                f->advice = g_strdup ("Most idle time falls while the host is launching work: "
                                      "launch overhead. See the tiny_kernels and cpu_bound "
                                      "findings; CUDA Graphs and fused kernels cut it.");
              }
            else
              {
                worst = "while the host does other things";
                f->advice = g_strdup ("Most idle time falls outside CUDA calls: the host is busy "
                                      "elsewhere (data loading, Python, I/O). See the gpu_gaps "
                                      "and cpu_bound findings.");
              }
            f->summary = g_strdup_printf ("GPU %u idle %.0f%% of %s, mostly %s", g,
                                          100.0 * idle / sp, d, worst);
          }
      }
      g_array_unref (scan.idle);
    }
}

/* --- running them -------------------------------------------------------------------------------- */

typedef void (*RuleFunc) (Ctx *ctx);

static const RuleFunc rule_funcs[N_RULES] = {
  rule_gpu_util,        rule_gpu_gaps,     rule_cpu_bound,      rule_gpu_bound,
  rule_sync_memcpy,     rule_pageable_memcpy, rule_sync_memset, rule_sync_api,
  rule_tiny_kernels,    rule_low_occupancy, rule_launch_latency, rule_idle_breakdown,
};

static gint
cmp_finding (gconstpointer a,
             gconstpointer b)
{
  const SlFinding *x = *(SlFinding *const *) a, *y = *(SlFinding *const *) b;

  if (x->cost != y->cost)
    return x->cost > y->cost ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

SlAnalysis *
sl_analyze (SlTrace               *trace,
            const char *const     *names,
            const SlAnalyzeParams *params,
            GError               **error)
{
  gboolean run[N_RULES] = { 0 };
  SlAnalysis *analysis;
  Ctx ctx = { 0 };

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
  analysis->findings = g_ptr_array_new_with_free_func (finding_free);
  analysis->summaries = g_array_new (FALSE, TRUE, sizeof (SlRuleSummary));
  ctx.trace = trace;
  ctx.params = params;
  ctx.findings = analysis->findings;
  ctx_init (&ctx);
  for (guint k = 0; k < N_RULES; k++)
    {
      SlRuleSummary s;
      if (!run[k])
        continue;
      ctx.rule = &rules[k];
      ctx.n_found = 0;
      ctx.cost = 0;
      ctx.note = g_string_new (NULL);
      if (ctx.n_gpus == 0 && k != RULE_SYNC_API)
        note (&ctx, "no GPU work in the trace");
      else
        rule_funcs[k] (&ctx);
      s = (SlRuleSummary) { &rules[k], ctx.n_found, ctx.cost, g_string_free (ctx.note, FALSE) };
      g_array_append_val (analysis->summaries, s);
    }
  ctx_clear (&ctx);
  g_ptr_array_sort (analysis->findings, cmp_finding);
  return analysis;
}

/* --- output ------------------------------------------------------------------------------------ */

static char *
where_text (const SlFinding *f,
            SlTrace         *trace)
{
  g_autoptr (GString) s = g_string_new (NULL);

  if (f->gpu >= 0)
    g_string_append_printf (s, "GPU %d", f->gpu);
  if (f->stream != 0)
    g_string_append_printf (s, "%sstream %u", s->len ? ", " : "", f->stream);
  if (f->thread >= 0)
    {
      const SlThread *t = sl_trace_get_thread (trace, f->thread);
      g_string_append_printf (s, "%spid %u tid %u", s->len ? ", " : "", t->pid, t->tid);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

char *
sl_analysis_to_text (const SlAnalysis *analysis,
                     SlTrace          *trace)
{
  g_autoptr (GString) out = g_string_new (NULL);
  SlTime t0 = sl_trace_get_start (trace);

  g_return_val_if_fail (analysis != NULL, NULL);
  if (analysis->findings->len == 0)
    g_string_append (out, "No findings.\n");
  else
    g_string_append_printf (out, "%u findings, most costly first:\n", analysis->findings->len);
  for (guint i = 0; i < analysis->findings->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (analysis->findings, i);
      g_autofree char *cost = sl_format_duration (f->cost);
      g_autofree char *a = sl_format_offset (f->start - t0), *b = sl_format_offset (f->end - t0);
      g_autofree char *where = where_text (f, trace);

      g_string_append_printf (out, "\n%u. [%s] %s\n", i + 1, f->rule->name, f->summary);
      g_string_append_printf (out, "   %-34s %s … %s%s%s\n", "When", a, b, *where ? ", " : "",
                              where);
      g_string_append_printf (out, "   %-34s %s\n", "Costs", cost);
      for (guint k = 0; k < f->evidence->len; k++)
        {
          const SlEvidence *e = &g_array_index (f->evidence, SlEvidence, k);
          glong w = g_utf8_strlen (e->label, -1);
          g_string_append_printf (out, "   %s%*s %s\n", e->label, (int) MAX (34 - w, 0), "",
                                  e->text);
        }
      if (f->advice != NULL)
        g_string_append_printf (out, "   Advice: %s\n", f->advice);
    }

  g_string_append (out, "\nRules:\n");
  for (guint i = 0; i < analysis->summaries->len; i++)
    {
      const SlRuleSummary *s = &g_array_index (analysis->summaries, SlRuleSummary, i);
      g_autofree char *cost = sl_format_duration (s->cost);
      g_string_append_printf (out, "  %-16s %4u finding%s, %12s   %s\n", s->rule->name,
                              s->n_findings, s->n_findings == 1 ? " " : "s", cost,
                              s->note != NULL ? s->note : "");
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
json_string (GString    *out,
             const char *s)
{
  g_autofree char *valid = g_utf8_make_valid (s != NULL ? s : "", -1);

  g_string_append_c (out, '"');
  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;
      if (c == '"' || c == '\\')
        g_string_append_printf (out, "\\%c", c);
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c < 0x20)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);
    }
  g_string_append_c (out, '"');
}

static void
json_number (GString *out,
             double   v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (v))
    g_string_append (out, "null");
  else if (v == floor (v) && fabs (v) < 9e15)
    g_string_append_printf (out, "%.0f", v);
  else
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

char *
sl_analysis_to_json (const SlAnalysis *analysis,
                     SlTrace          *trace)
{
  g_autoptr (GString) out = g_string_new ("{\n  \"file\": ");
  SlTime t0 = sl_trace_get_start (trace);

  g_return_val_if_fail (analysis != NULL, NULL);
  json_string (out, sl_trace_get_path (trace));
  g_string_append_printf (out, ",\n  \"start_ns\": %" G_GINT64_FORMAT ",\n  \"rules\": [", t0);
  for (guint i = 0; i < analysis->summaries->len; i++)
    {
      const SlRuleSummary *s = &g_array_index (analysis->summaries, SlRuleSummary, i);
      g_string_append_printf (out, "%s\n    {\"name\": ", i ? "," : "");
      json_string (out, s->rule->name);
      g_string_append (out, ", \"title\": ");
      json_string (out, s->rule->title);
      g_string_append_printf (out, ", \"findings\": %u, \"cost_ns\": %" G_GINT64_FORMAT
                              ", \"note\": ", s->n_findings, s->cost);
      json_string (out, s->note);
      g_string_append (out, "}");
    }
  g_string_append (out, "\n  ],\n  \"findings\": [");
  for (guint i = 0; i < analysis->findings->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (analysis->findings, i);
      g_string_append_printf (out, "%s\n    {\"rule\": ", i ? "," : "");
      json_string (out, f->rule->name);
      g_string_append_printf (out, ", \"start_ns\": %" G_GINT64_FORMAT ", \"end_ns\": %"
                              G_GINT64_FORMAT ", \"cost_ns\": %" G_GINT64_FORMAT,
                              f->start, f->end, f->cost);
      g_string_append (out, ", \"gpu\": ");
      if (f->gpu >= 0)
        g_string_append_printf (out, "%d", f->gpu);
      else
        g_string_append (out, "null");
      g_string_append (out, ", \"stream\": ");
      if (f->stream != 0)
        g_string_append_printf (out, "%u", f->stream);
      else
        g_string_append (out, "null");
      if (f->thread >= 0)
        {
          const SlThread *t = sl_trace_get_thread (trace, f->thread);
          g_string_append_printf (out, ", \"pid\": %u, \"tid\": %u", t->pid, t->tid);
        }
      else
        g_string_append (out, ", \"pid\": null, \"tid\": null");
      g_string_append (out, ",\n     \"summary\": ");
      json_string (out, f->summary);
      g_string_append (out, ",\n     \"advice\": ");
      json_string (out, f->advice);
      {
        g_autoptr (GString) text = g_string_new (NULL);
        g_string_append (out, ",\n     \"evidence\": {");
        for (guint k = 0; k < f->evidence->len; k++)
          {
            const SlEvidence *e = &g_array_index (f->evidence, SlEvidence, k);
            g_string_append (out, k ? ", " : "");
            json_string (out, e->key);
            g_string_append (out, ": ");
            json_number (out, e->value);
            g_string_append (text, k ? ", [" : "[");
            json_string (text, e->label);
            g_string_append (text, ", ");
            json_string (text, e->text);
            g_string_append (text, "]");
          }
        g_string_append_printf (out, "},\n     \"evidence_text\": [%s", text->str);
      }
      g_string_append (out, "]}");
    }
  g_string_append (out, "\n  ]\n}\n");
  return g_string_free (g_steal_pointer (&out), FALSE);
}
