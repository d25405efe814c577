/* sl-analyze-sync.c: the rules about CUDA calls that block the host, as nsys's expert rules:
 * sync_memcpy, pageable_memcpy, sync_memset and sync_api, each grouping calls by thread, call,
 * GPU, stream and memory kinds. */
#include "sl-analyze-private.h"

#include <string.h>

#include "sl-display-name.h"
#include "sl-format.h"

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
  GArray  *calls;            /* SlSpan: the calls */
  SlTime   given;            /* GPU idle time during them, from the idle account */
  GArray  *events;           /* SlFindingEvent: API calls and ops, the first ones */
  GHashTable *sites;         /* where the calls were made (their backtraces, nsys
                              * --cudabacktrace): symbol id -> SiteTally; NULL without any */
} CallGroup;

typedef struct
{
  gsize  count;
  SlTime time;
} SiteTally;

static void
call_group_free (gpointer data)
{
  CallGroup *g = data;

  g_array_unref (g->durations);
  g_array_unref (g->calls);
  g_array_unref (g->events);
  g_clear_pointer (&g->sites, g_hash_table_unref);
  g_free (g);
}

/* Where a CUDA call was made, from its backtrace (CUDA_CALLCHAINS): the first frame from the leaf
 * that is neither the CUDA libraries' (libcuda, libcudart, libcupti, or an unresolved address)
 * nor the call or a wrapper named after it (cudaMalloc<double>, a runtime linked in statically).
 * SL_NO_STR when the call has no backtrace or only such frames.  nsys's frames carry no file and
 * line; a frame whose name holds them (a Python frame) gives them. */
static guint32
call_site (SlTrace       *trace,
           const SlLane  *lane,
           const SlEvent *ev)
{
  const guint32 *syms, *mods;
  guint n = sl_trace_get_cuda_callchain (trace, lane, ev, &syms, &mods);
  const char *api = n > 0 ? sl_trace_display_name (trace, SL_LANE_CUDA_API, ev->name) : "";

  for (guint i = 0; i < n; i++)
    {
      const char *sym = sl_trace_str (trace, syms[i]);
      const char *mod = sl_trace_str (trace, mods[i]);
      const char *base = strrchr (mod, '/');
      base = base != NULL ? base + 1 : mod;
      if (*sym == '\0' || g_str_has_prefix (sym, "0x") || g_str_has_prefix (base, "libcuda")
          || g_str_has_prefix (base, "libcupti") || (*api != '\0' && strstr (sym, api) != NULL))
        continue;
      return syms[i];
    }
  return SL_NO_STR;
}

/* What a group is: thread, call, GPU, stream and the op's kinds */
typedef struct
{
  gint    thread;
  guint32 api_name;
  gint    gpu;
  guint32 stream;
  guint32 kinds;     /* copy, source, destination and memory kind, a byte each */
} CallKey;

static guint
call_key_hash (gconstpointer p)
{
  const CallKey *k = p;

  return (((((guint) k->thread * 31u + k->api_name) * 31u + (guint) k->gpu) * 31u + k->stream)
          * 31u) + k->kinds;
}

static gboolean
call_key_equal (gconstpointer a,
                gconstpointer b)
{
  const CallKey *x = a, *y = b;

  return x->thread == y->thread && x->api_name == y->api_name && x->gpu == y->gpu
         && x->stream == y->stream && x->kinds == y->kinds;
}

/* Groups by CallKey (owned by the table). */
static GHashTable *
call_groups_new (void)
{
  return g_hash_table_new_full (call_key_hash, call_key_equal, g_free, call_group_free);
}

static CallGroup *
call_group (GHashTable       *groups,
            gint              thread,
            guint32           api_name,
            gint              gpu,
            guint32           stream,
            const SlCopyInfo *info)
{
  CallKey key = { thread, api_name, gpu, stream,
                  info == NULL ? 0
                               : (guint32) info->copy_kind | (guint32) info->src_kind << 8
                                   | (guint32) info->dst_kind << 16
                                   | (guint32) info->mem_kind << 24 };
  CallGroup *g = g_hash_table_lookup (groups, &key);

  if (g != NULL)
    return g;
  g = g_new0 (CallGroup, 1);
  g->thread = thread;
  g->api_name = api_name;
  g->gpu = gpu;
  g->stream = stream;
  g->info = info;
  g->first = G_MAXINT64;
  g->last = G_MININT64;
  g->durations = g_array_new (FALSE, FALSE, sizeof (SlTime));
  g->calls = g_array_new (FALSE, FALSE, sizeof (SlSpan));
  g->events = g_array_new (FALSE, FALSE, sizeof (SlFindingEvent));
  g_hash_table_insert (groups, g_memdup2 (&key, sizeof key), g);
  return g;
}

static void
call_group_add (SlTrace      *trace,
                CallGroup    *g,
                const SlLane *api_lane,
                gsize         api_index,
                const SlLane *op_lane,
                gsize         op_index)
{
  const SlEvent *api = &api_lane->events[api_index];
  SlTime d = api->end - api->start;
  guint32 site = call_site (trace, api_lane, api);

  if (site != SL_NO_STR)
    {
      if (g->sites == NULL)
        g->sites = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      SiteTally *t = g_hash_table_lookup (g->sites, GUINT_TO_POINTER (site));
      if (t == NULL)
        {
          t = g_new0 (SiteTally, 1);
          g_hash_table_insert (g->sites, GUINT_TO_POINTER (site), t);
        }
      t->count++;
      t->time = _sl_time_add (t->time, d);
    }

  g->count++;
  g->api_time = _sl_time_add (g->api_time, d);
  g_array_append_val (g->durations, d);
  {
    SlSpan sp = { api->start, api->end };
    g_array_append_val (g->calls, sp);
  }
  g->first = MIN (g->first, api->start);
  g->last = MAX (g->last, api->end);
  g->longest = MAX (g->longest, d);
  if (g->events->len < SL_MAX_FINDING_EVENTS)
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
mem_kind_name (SlAnalyzeCtx *ctx,
               guint         kind)
{
  return kind == SL_MEM_KIND_NONE ? "?" : sl_trace_enum_label (ctx->trace, SL_ENUM_MEM_KIND, kind);
}

/* Whether an op of a call of class c counts; min_bytes is sync_memcpy's threshold (read once: a
 * rule's parameter is looked up by name). */
typedef gboolean (*OpFilter) (SlApiClass c, const SlCopyInfo *info, guint64 min_bytes);

static gboolean
filter_sync_memcpy (SlApiClass        c,
                    const SlCopyInfo *info,
                    guint64           min_bytes)
{
  if (c != SL_API_MEMCPY_SYNC || info == NULL)
    return FALSE;
  /* as nsys: small host-to-device copies and copies within one device are left out */
  if (info->copy_kind == 1 && info->bytes <= min_bytes)
    return FALSE;
  if (info->src_device >= 0 && info->src_device == info->dst_device)
    return FALSE;
  return TRUE;
}

static gboolean
filter_pageable_memcpy (SlApiClass        c,
                        const SlCopyInfo *info,
                        guint64           min_bytes)
{
  (void) min_bytes;
  return c == SL_API_MEMCPY_ASYNC && info != NULL
         && (info->src_kind == 0 /* pageable */ || info->dst_kind == 0);
}

static gboolean
filter_sync_memset (SlApiClass        c,
                    const SlCopyInfo *info,
                    guint64           min_bytes)
{
  (void) min_bytes;
  return c == SL_API_MEMSET_SYNC && info != NULL
         && (info->mem_kind == 1 /* pinned */ || info->mem_kind == 4 /* managed */);
}

/* Groups the GPU ops of `kind` lanes that pass `filter` by thread, call, GPU, stream and kinds;
 * in a window, the ops whose call starts in it. */
static void
collect_ops (SlAnalyzeCtx *ctx,
             SlLaneKind    kind,
             OpFilter      filter,
             guint64       min_bytes,
             GHashTable   *groups)
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
          gint thread = _sl_launch_thread (ctx, op, &api_lane, &api_index);
          const SlCopyInfo *info = sl_trace_get_copy_info (ctx->trace, op->aux);
          SlApiClass c;
          if (thread < 0 || api_lane->events[api_index].start < ctx->t0
              || api_lane->events[api_index].start >= ctx->t1)
            continue;
          c = _sl_api_class (ctx, api_lane->events[api_index].name);
          if (!filter (c, info, min_bytes))
            continue;
          CallGroup *g = call_group (groups, thread, api_lane->events[api_index].name, lane->gpu,
                                     lane->stream_id, info);
          call_group_add (ctx->trace, g, api_lane, api_index, lane, e);
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

/* Gives each group the GPU idle time of `cause` during its calls: on its GPU, or on every GPU
 * for calls that name none (cudaDeviceSynchronize). */
static void
attribute_groups (SlAnalyzeCtx *ctx,
                  GPtrArray    *groups,
                  SlIdleCause   cause)
{
  for (guint gpu = 0; gpu < ctx->n_gpus; gpu++)
    {
      g_autoptr (GArray) requests = g_array_new (FALSE, FALSE, sizeof (SlIdleRequest));
      if (ctx->gpus[gpu].ops->len == 0)
        continue;
      for (guint i = 0; i < groups->len; i++)
        {
          CallGroup *g = g_ptr_array_index (groups, i);
          if (g->gpu >= 0 && (guint) g->gpu != gpu)
            continue;
          for (guint k = 0; k < g->calls->len; k++)
            {
              SlIdleRequest r = { g_array_index (g->calls, SlSpan, k).s,
                                  g_array_index (g->calls, SlSpan, k).e, &g->given };
              g_array_append_val (requests, r);
            }
        }
      _sl_idle_attribute (ctx, gpu, 1u << cause, requests);
    }
}

static SlFinding *
group_finding (SlAnalyzeCtx *ctx,
               CallGroup    *g)
{
  SlFinding *f = _sl_finding_new (ctx, g->first, g->last, 0);
  g_autofree char *total = sl_format_duration (g->api_time);
  g_autofree char *longest = sl_format_duration (g->longest);
  g_autofree char *median = sl_format_duration (_sl_median_of (g->durations));

  f->thread = g->thread;
  f->global_pid = _sl_thread_pid (ctx, g->thread);
  f->gpu = g->gpu >= 0 ? (gint) _sl_gpu_id (ctx, (guint) g->gpu) : -1;
  f->stream = g->stream;
  /* what the calls cost the GPU: its idle time while the host was in them (the host's own time
   * is the evidence) */
  _sl_finding_set_attributed (f, g->given);
  _sl_evidence (f, "count", "Calls", (double) g->count, "%" G_GSIZE_FORMAT, g->count);
  _sl_evidence (f, "host_blocked_ns", "Host blocked in them", (double) g->api_time, "%s", total);
  _sl_evidence (f, "median_ns", "Median call", (double) _sl_median_of (g->durations), "%s", median);
  _sl_evidence (f, "longest_ns", "Longest call", (double) g->longest, "%s", longest);
  if (g->sites != NULL)
    {
      /* the call site that holds most of the calls' time (ties: the lower string id) */
      GHashTableIter it;
      gpointer k, v;
      guint32 best = SL_NO_STR;
      const SiteTally *top = NULL;
      g_hash_table_iter_init (&it, g->sites);
      while (g_hash_table_iter_next (&it, &k, &v))
        {
          const SiteTally *t = v;
          if (top == NULL || t->time > top->time
              || (t->time == top->time && GPOINTER_TO_UINT (k) < best))
            {
              top = t;
              best = GPOINTER_TO_UINT (k);
            }
        }
      g_autofree char *time = sl_format_duration (top->time);
      _sl_evidence (f, "call_site", "Top call site", (double) top->count,
                    "%s (%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " calls, %s; from their "
                    "backtraces)", sl_trace_str (ctx->trace, best), top->count, g->count, time);
    }
  for (guint i = 0; i < g->events->len; i++)
    {
      const SlFindingEvent *e = &g_array_index (g->events, SlFindingEvent, i);
      _sl_finding_add_event (ctx, f, e->lane, e->index);
    }
  return f;
}

static void
rule_copies (SlAnalyzeCtx *ctx,
             SlLaneKind    kind,
             OpFilter      filter,
             guint64       min_bytes)
{
  g_autoptr (GHashTable) groups = call_groups_new ();
  g_autoptr (GPtrArray) sorted = NULL;
  gboolean sets = kind == SL_LANE_MEMSET;

  collect_ops (ctx, kind, filter, min_bytes, groups);
  sorted = sorted_groups (groups);
  attribute_groups (ctx, sorted, SL_IDLE_COPY);
  for (guint i = 0; i < sorted->len; i++)
    {
      CallGroup *g = g_ptr_array_index (sorted, i);
      SlFinding *f = group_finding (ctx, g);
      g_autofree char *who = _sl_thread_label (ctx, g->thread);
      g_autofree char *bytes = sl_format_bytes (g->bytes);
      g_autofree char *gpu_time = sl_format_duration (g->gpu_time);
      g_autofree char *blocked = sl_format_duration (g->api_time);
      const char *api = sl_trace_display_name (ctx->trace, SL_LANE_CUDA_API, g->api_name);
      g_autofree char *kinds = NULL;

      if (sets)
        kinds = g_strdup_printf ("%s memory", mem_kind_name (ctx, g->info->mem_kind));
      else
        kinds = g_strdup_printf ("%s, %s → %s",
                                 sl_trace_enum_label (ctx->trace, SL_ENUM_MEMCPY_OPER,
                                                      g->info->copy_kind),
                                 mem_kind_name (ctx, g->info->src_kind),
                                 mem_kind_name (ctx, g->info->dst_kind));
      _sl_evidence (f, "bytes", "Bytes", (double) g->bytes, "%s", bytes);
      _sl_evidence (f, "gpu_ns", sets ? "GPU time of the sets" : "GPU time of the copies",
                    (double) g->gpu_time, "%s", gpu_time);
      _sl_evidence (f, "kind", sets ? "Memory" : "Copies", 0, "%s", kinds);
      {
        g_autofree char *idle = sl_format_duration (g->given);
        f->summary = g_strdup_printf ("%s: %" G_GSIZE_FORMAT " × %s (%s, %s), host blocked %s, "
                                      "GPU idle %s meanwhile", who, g->count, api, kinds, bytes,
                                      blocked, idle);
      }
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
  _sl_analyze_note (ctx, "%u distinct calls", g_hash_table_size (groups));
}

void
_sl_rule_sync_memcpy (SlAnalyzeCtx *ctx)
{
  rule_copies (ctx, SL_LANE_MEMCPY, filter_sync_memcpy,
               (guint64) _sl_analyze_param (ctx, "min_bytes"));
}

void
_sl_rule_pageable_memcpy (SlAnalyzeCtx *ctx)
{
  rule_copies (ctx, SL_LANE_MEMCPY, filter_pageable_memcpy, 0);
}

void
_sl_rule_sync_memset (SlAnalyzeCtx *ctx)
{
  rule_copies (ctx, SL_LANE_MEMSET, filter_sync_memset, 0);
}

void
_sl_rule_sync_api (SlAnalyzeCtx *ctx)
{
  g_autoptr (GHashTable) groups = call_groups_new ();
  g_autoptr (GPtrArray) sorted = NULL;

  for (guint t = 0; t < ctx->n_threads; t++)
    {
      const SlLane *lane = _sl_lane_or_null (ctx, ctx->tl[t].api);
      gsize e0, e1;
      if (lane == NULL)
        continue;
      _sl_analyze_lane_window (ctx, lane, &e0, &e1);
      for (gsize e = e0; e < e1; e++)
        if (_sl_api_class (ctx, lane->events[e].name) == SL_API_SYNC)
          call_group_add (ctx->trace, call_group (groups, t, lane->events[e].name, -1, 0, NULL),
                          lane, e, NULL, 0);
    }
  sorted = sorted_groups (groups);
  attribute_groups (ctx, sorted, SL_IDLE_SYNC);
  for (guint i = 0; i < sorted->len; i++)
    {
      CallGroup *g = g_ptr_array_index (sorted, i);
      SlFinding *f = group_finding (ctx, g);
      g_autofree char *who = _sl_thread_label (ctx, g->thread);
      g_autofree char *blocked = sl_format_duration (g->api_time);
      SlTime span = g->last - g->first;
      double rate = span > 0 ? (double) (g->count - 1) * 1e9 / (double) span : 0;

      _sl_evidence (f, "rate_per_s", "Calls per second", rate, "%.1f", rate);
      {
        g_autofree char *idle = sl_format_duration (g->given);
        f->summary = g_strdup_printf ("%s: %" G_GSIZE_FORMAT " × %s, host blocked %s, GPU idle %s "
                                      "meanwhile", who, g->count,
                                      sl_trace_display_name (ctx->trace, SL_LANE_CUDA_API,
                                                             g->api_name),
                                      blocked, idle);
      }
      f->advice = g_strdup ("Each synchronization stalls the host until the GPU is done, then "
                            "the GPU idles until the host queues more work. Synchronize only "
                            "where the result is needed (not every step: .item(), .cpu(), "
                            "printing a tensor all synchronize), and order streams with events "
                            "(cudaEventRecord, cudaStreamWaitEvent) instead.");
    }
  _sl_analyze_note (ctx, "%u distinct calls", g_hash_table_size (groups));
}
