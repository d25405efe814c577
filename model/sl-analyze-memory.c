/* sl-analyze-memory.c: rules about GPU memory (issue 31): allocation churn in a loop (host time in
 * cudaMalloc / cudaFree calls made over and over), device memory that grows and is never freed,
 * and a peak near the GPU's memory (CUDA_GPU_MEMORY_USAGE_EVENTS, model/sl-memory.c).
 *
 * Churn is such calls in at least half of ten equal slices of the run past its first tenth (a
 * loop, not a burst at start-up or teardown).  It costs the host time of those calls (cudaFree
 * also waits for the device), per thread, so no cost exceeds the window.  Growth and a high peak cost no time yet: they put the run at
 * stake (an out-of-memory error to come), so their cost is 0 and they list after the findings
 * that cost time. */
#include "sl-analyze-private.h"
#include "sl-format.h"
#include "sl-memory.h"
#include "sl-utilization.h"

#include <string.h>

/* An allocation or free that goes to the driver each time: not the stream-ordered pool calls
 * (cudaMallocAsync, cudaFreeAsync, cuMemAllocAsync), which are the cure. */
static gboolean
is_driver_alloc (const char *name)
{
  return (strstr (name, "lloc") != NULL || strstr (name, "Free") != NULL)
         && strstr (name, "Async") == NULL && strstr (name, "Pool") == NULL;
}

/* The window analysed, within the trace: [*s, *e). */
static void
window (SlAnalyzeCtx *ctx,
        SlTime       *s,
        SlTime       *e)
{
  *s = MAX (ctx->t0, sl_trace_get_start (ctx->trace));
  *e = MIN (ctx->t1, sl_trace_get_end (ctx->trace));
  if (*e <= *s)
    *e = *s + 1;
}

void
_sl_rule_memory_churn (SlAnalyzeCtx *ctx)
{
  SlTime min_time = (SlTime) _sl_analyze_param (ctx, "time");
  gsize min_count = (gsize) _sl_analyze_param (ctx, "count");
  SlTime w0, w1;
  window (ctx, &w0, &w1);
  /* calls past the first tenth of the window: set-up allocates once at the start */
  SlTime from = w0 + (w1 - w0) / 10;
  guint threads = 0;

  for (guint t = 0; t < ctx->n_threads; t++)
    {
      const SlLane *lane = _sl_lane_or_null (ctx, ctx->tl[t].api);
      gsize e0, e1, count = 0, allocs = 0;
      guint slices = 0;   /* bit k: a call in the k-th tenth of [from, t1) */
      SlTime time = 0, first = 0, last = 0;
      g_autoptr (GHashTable) by_name = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (gsize));

      if (lane == NULL)
        continue;
      _sl_analyze_lane_window (ctx, lane, &e0, &e1);
      for (gsize e = e0; e < e1; e++)
        {
          const SlEvent *ev = &lane->events[e];
          if (ev->start < from
              || !is_driver_alloc (sl_trace_display_name (ctx->trace, SL_LANE_CUDA_API, ev->name)))
            continue;
          SlTime d = MIN (ev->end, w1) - ev->start;
          if (count == 0)
            first = ev->start;
          last = ev->start;
          count++;
          allocs += strstr (sl_trace_str (ctx->trace, ev->name), "lloc") != NULL;
          time = _sl_time_add (time, MAX (d, 0));
          _sl_by_name_add (by_name, ev->name, MAX (d, 0));
          g_array_append_val (calls, e);
          /* in double: a damaged file's times reach ±2^61, and ten times their distance overflows */
          slices |= 1u << (guint) MIN (9.0, (double) (ev->start - from) * 10.0
                                                / (double) MAX (w1 - from, 1));
        }
      /* in a loop: over at least half of the run, not a burst at start-up or teardown */
      if (count < min_count || time < min_time || __builtin_popcount (slices) < 5)
        continue;
      threads++;

      SlFinding *f = _sl_finding_new (ctx, first, last, time);
      g_autofree char *who = _sl_thread_label (ctx, (gint) t);
      g_autofree char *spent = sl_format_duration (time);
      SlTime top_time;
      guint32 top = _sl_top_name (by_name, &top_time);
      double rate = last > first ? (double) (count - 1) * 1e9 / (double) (last - first) : 0;

      f->thread = (gint) t;
      f->global_pid = lane->global_pid;
      f->cause = g_strdup_printf ("%s allocates and frees", who);
      for (guint i = 0; i < calls->len; i++)
        _sl_finding_add_event (ctx, f, lane->index, g_array_index (calls, gsize, i));
      _sl_evidence (f, "calls", "Allocation and free calls", (double) count, "%" G_GSIZE_FORMAT,
                    count);
      _sl_evidence (f, "allocations", "Of them allocations", (double) allocs, "%" G_GSIZE_FORMAT,
                    allocs);
      _sl_evidence_duration (f, "call_ns", "Host time in them", time);
      _sl_evidence (f, "rate_per_s", "Calls per second", rate, "%.1f", rate);
      {
        g_autofree char *top_text = sl_format_duration (top_time);
        _sl_evidence (f, "top_call", "Costliest call", (double) top_time, "%s (%s)",
                      sl_trace_display_name (ctx->trace, SL_LANE_CUDA_API, top), top_text);
      }
      f->summary = g_strdup_printf ("%s: %" G_GSIZE_FORMAT " cudaMalloc/cudaFree-like calls "
                                    "after start-up (%.0f a second), %s of host time in them",
                                    who, count, rate, spent);
      f->advice = g_strdup ("Allocating and freeing device memory in a loop goes to the driver "
                            "each time, and cudaFree waits for the whole device. Allocate once "
                            "and reuse the buffers, or use a caching allocator or a memory pool "
                            "(PyTorch's caching allocator does this: do not call "
                            "torch.cuda.empty_cache() in the loop; in CUDA, cudaMallocAsync and "
                            "cudaFreeAsync with a memory pool).");
    }
  _sl_analyze_note (ctx, "%u threads churn", threads);
}

/* Allocations on GPU `gpu`'s series made after `from` and never freed: their count and bytes. */
static void
never_freed_after (SlTrace           *trace,
                   const SlMemSeries *s,
                   SlTime             from,
                   SlTime             to,
                   guint             *count,
                   guint64           *bytes)
{
  *count = 0;
  *bytes = 0;
  for (guint i = 0; i < sl_memory_get_n_allocs (trace); i++)
    {
      const SlMemAlloc *a = sl_memory_get_alloc (trace, i);
      if (a->alloc == SL_NO_LINK || a->free != SL_NO_LINK || a->start < from || a->start >= to
          || !sl_mem_series_holds (s, a))
        continue;
      (*count)++;
      *bytes += a->bytes;
    }
}

void
_sl_rule_memory_growth (SlAnalyzeCtx *ctx)
{
  guint min_count = (guint) _sl_analyze_param (ctx, "count");
  guint64 min_bytes = (guint64) _sl_analyze_param (ctx, "bytes");
  guint found = 0;
  SlTime w0, w1;

  window (ctx, &w0, &w1);
  for (guint i = 0; i < sl_memory_get_n_series (ctx->trace); i++)
    {
      const SlMemSeries *s = sl_memory_get_series (ctx->trace, i);
      if (s->kind != SL_MEM_SERIES_GPU || s->n_steps < 2)
        continue;
      /* over the window past its first tenth: what was allocated then and never freed */
      SlTime from = w0 + (w1 - w0) / 10;
      guint count;
      guint64 bytes;
      never_freed_after (ctx->trace, s, from, w1, &count, &bytes);
      gint64 grew = sl_mem_series_bytes_at (s, w1 - 1) - sl_mem_series_bytes_at (s, from);
      if (count < min_count || bytes < min_bytes || grew <= 0)
        continue;
      found++;

      const SlGpu *gpu = sl_trace_get_gpu (ctx->trace, (guint) s->gpu);
      SlFinding *f = _sl_finding_new (ctx, from, w1, 0);
      g_autofree char *grew_text = sl_format_bytes ((guint64) grew);
      g_autofree char *left = sl_format_bytes (bytes);
      double rate = (double) grew * 1e9 / (double) MAX (w1 - from, 1);
      g_autofree char *rate_text = sl_format_bytes ((guint64) rate);

      f->gpu = (gint) gpu->device_id;
      _sl_finding_add_gpu_lanes (ctx, f, (guint) s->gpu);
      _sl_evidence (f, "grew_bytes", "Growth after start-up", (double) grew, "%s", grew_text);
      _sl_evidence (f, "never_freed", "Allocations never freed", (double) count, "%u", count);
      _sl_evidence (f, "never_freed_bytes", "Their bytes", (double) bytes, "%s", left);
      _sl_evidence (f, "rate_bytes_per_s", "Growth a second", rate, "%s/s", rate_text);
      if (gpu->total_memory > MAX (s->peak, 0) && rate > 0)
        {
          double left_s = (double) (gpu->total_memory - MAX (s->peak, 0)) / rate;
          _sl_evidence (f, "full_in_s", "The GPU full in", left_s, "%.0f s at this rate",
                        left_s);
        }
      f->summary = g_strdup_printf ("GPU %u: memory grows by %s (%s/s) after start-up, %u "
                                    "allocations never freed", gpu->device_id, grew_text,
                                    rate_text, count);
      f->advice = g_strdup ("Memory allocated step after step and never freed runs the GPU out "
                            "of memory in a long run. Free what each step allocates, or keep "
                            "what must live in one buffer; in PyTorch, a tensor kept alive by "
                            "a list of losses (append loss.item(), not loss) or a growing cache "
                            "does this. `sightline memory --at TIME` lists what is live.");
    }
  _sl_analyze_note (ctx, "%u GPUs grow", found);
}

void
_sl_rule_memory_peak (SlAnalyzeCtx *ctx)
{
  double share_min = _sl_analyze_param (ctx, "share");
  guint found = 0;
  SlTime w0, w1;

  window (ctx, &w0, &w1);
  for (guint i = 0; i < sl_memory_get_n_series (ctx->trace); i++)
    {
      const SlMemSeries *s = sl_memory_get_series (ctx->trace, i);
      if (s->kind != SL_MEM_SERIES_GPU)
        continue;
      const SlGpu *gpu = sl_trace_get_gpu (ctx->trace, (guint) s->gpu);
      gint64 peak = sl_mem_series_max_between (s, w0, w1);
      if (gpu->total_memory <= 0 || peak <= 0)
        continue;
      double share = (double) peak / (double) gpu->total_memory;
      if (share < share_min)
        continue;
      found++;

      SlTime when = s->peak_time >= w0 && s->peak_time < w1 ? s->peak_time : w0;
      SlFinding *f = _sl_finding_new (ctx, when, when + 1, 0);
      g_autofree char *peak_text = sl_format_bytes ((guint64) peak);
      g_autofree char *total = sl_format_bytes ((guint64) gpu->total_memory);
      g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (guint32));
      guint n = sl_memory_live_at (ctx->trace, i, when, live);
      GString *largest = g_string_new (NULL);

      for (guint k = 0; k < MIN (n, 3); k++)
        {
          const SlMemAlloc *a = sl_memory_get_alloc (ctx->trace, g_array_index (live, guint32, k));
          g_autofree char *b = sl_format_bytes (a->bytes);
          char *paren = strstr (b, " (");
          if (paren != NULL)
            *paren = '\0';
          g_string_append_printf (largest, "%s%s", k > 0 ? ", " : "", b);
        }
      f->gpu = (gint) gpu->device_id;
      _sl_finding_add_gpu_lanes (ctx, f, (guint) s->gpu);
      _sl_evidence (f, "peak_bytes", "Peak in use", (double) peak, "%s", peak_text);
      _sl_evidence (f, "total_bytes", "GPU memory", (double) gpu->total_memory, "%s", total);
      _sl_evidence_share (f, "peak_share", "Share", share);
      _sl_evidence (f, "live_at_peak", "Allocations live then", (double) n, "%u (largest: %s)",
                    n, largest->str);
      g_string_free (largest, TRUE);
      f->summary = g_strdup_printf ("GPU %u: memory in use peaks at %s, %.0f %% of its %s",
                                    gpu->device_id, peak_text, 100.0 * share, total);
      f->advice = g_strdup ("A peak this close to the GPU's memory fails with out-of-memory on "
                            "a larger batch or input, and leaves the allocator no room to avoid "
                            "fragmentation. `sightline memory --at peak` lists what is live "
                            "then; activation checkpointing, a smaller batch with gradient "
                            "accumulation, or freeing buffers earlier lower it.");
    }
  _sl_analyze_note (ctx, "%u GPUs near full", found);
}

/* Fault-driven migrations' time by 2 MiB region of the address space (the granule of the
 * driver's large pages and of its prefetches): what a cudaMemPrefetchAsync would cover. */
#define UM_REGION_SHIFT 21
#define UM_HOTTEST      3

typedef struct
{
  guint64 region;   /* address >> UM_REGION_SHIFT */
  SlTime  time;
  gsize   count;
} UmRegion;

static gint
compare_regions_by_time (gconstpointer a,
                         gconstpointer b)
{
  const UmRegion *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? 1 : -1;
  return (x->region > y->region) - (x->region < y->region);
}

/* The hottest regions as evidence: "hottest_regions.0x7f…" → ns (an object in JSON), and one line
 * of text naming them. */
static void
um_hottest_evidence (SlFinding  *f,
                     GHashTable *regions)
{
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (UmRegion));
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, regions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_array_append_val (all, *(UmRegion *) value);
  if (all->len == 0)
    return;
  g_array_sort (all, compare_regions_by_time);
  for (guint i = 0; i < MIN (all->len, UM_HOTTEST); i++)
    {
      const UmRegion *r = &g_array_index (all, UmRegion, i);
      g_autofree char *key = g_strdup_printf ("hottest_regions.0x%" G_GINT64_MODIFIER "x",
                                              r->region << UM_REGION_SHIFT);
      g_autofree char *label = g_strdup_printf ("2 MiB at 0x%" G_GINT64_MODIFIER "x (%"
                                                G_GSIZE_FORMAT " migrations)",
                                                r->region << UM_REGION_SHIFT, r->count);
      _sl_evidence_duration (f, key, label, r->time);
    }
  _sl_evidence (f, "fault_regions", "2 MiB regions migrated on faults", (double) all->len, "%u",
                all->len);
}

/* Unified memory (issue 31, item 2): per GPU, the time its migrations took (memcpy rows of the
 * unified kinds, by the trace's cause labels) and of them the migrations made on a page fault,
 * which the kernel or the host waited for, with the address regions that took most of it.  Its
 * cost is the fault-driven migrations' time on the GPU, merged where they overlap: at most the
 * window. */
void
_sl_rule_um_migrations (SlAnalyzeCtx *ctx)
{
  double share_min = _sl_analyze_param (ctx, "share");
  guint found = 0;
  SlTime w0, w1;

  window (ctx, &w0, &w1);
  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      const SlGpuInfo *gi = &ctx->gpus[g];
      SlTime by_cause[256] = { 0 };
      SlTime total = 0, fault = 0, fault_end = G_MININT64, first = G_MAXINT64, last = G_MININT64;
      gsize count = 0, faults = 0;
      g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (SlSpan));
      g_autoptr (GHashTable) regions = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
                                                              g_free);
      SlFinding *f = NULL;

      for (guint k = 0; k < gi->ops->len; k++)
        {
          guint32 li = g_array_index (gi->ops, guint32, k);
          const SlLane *lane = sl_trace_get_lane (ctx->trace, li);
          gsize e0, e1;
          if (lane->kind != SL_LANE_MEMCPY)
            continue;
          _sl_analyze_lane_window (ctx, lane, &e0, &e1);
          for (gsize e = e0; e < e1; e++)
            {
              const SlEvent *ev = &lane->events[e];
              const SlCopyInfo *ci = sl_trace_get_copy_info (ctx->trace, ev->aux);
              if (ci == NULL || ci->migration_cause == SL_MIGRATION_NONE)
                continue;
              SlTime d = MAX (MIN (ev->end, w1) - ev->start, 0);
              by_cause[ci->migration_cause] = _sl_time_add (by_cause[ci->migration_cause], d);
              total = _sl_time_add (total, d);
              count++;
              first = MIN (first, ev->start);
              last = MAX (last, MIN (ev->end, w1));
              if (ci->migration_cause == 2)
                {
                  SlSpan s = { ev->start, MIN (ev->end, w1) };
                  guint64 region = ci->address >> UM_REGION_SHIFT;
                  UmRegion *r = g_hash_table_lookup (regions, &region);
                  g_array_append_val (spans, s);
                  faults++;
                  if (r == NULL)
                    {
                      r = g_new0 (UmRegion, 1);
                      r->region = region;
                      g_hash_table_insert (regions, &r->region, r);
                    }
                  r->time = _sl_time_add (r->time, d);
                  r->count++;
                }
            }
        }
      if (count == 0)
        continue;
      /* the fault-driven ones merged: lanes of one GPU may overlap */
      _sl_sort_by_start (spans->data, spans->len, sizeof (SlSpan));
      for (guint i = 0; i < spans->len; i++)
        {
          const SlSpan *s = &g_array_index (spans, SlSpan, i);
          SlTime from = MAX (s->s, fault_end);
          if (s->e > from)
            fault = _sl_time_add (fault, s->e - from);
          fault_end = MAX (fault_end, s->e);
        }
      SlTime busy = sl_trace_gpu_busy_time (ctx->trace, g, SL_UTIL_ANY, w0, w1);
      double share = busy > 0 ? (double) fault / (double) busy : 0;
      if (fault == 0 || share < share_min)
        continue;
      found++;

      guint32 device = _sl_gpu_id (ctx, g);
      g_autofree char *fault_text = sl_format_duration (fault);
      g_autofree char *total_text = sl_format_duration (total);
      f = _sl_finding_new (ctx, first, last, fault);
      f->gpu = (gint) device;
      _sl_finding_add_gpu_lanes (ctx, f, g);
      _sl_evidence_duration (f, "migration_ns", "Migration time", total);
      _sl_evidence_duration (f, "fault_migration_ns", "Of it on page faults (merged)", fault);
      _sl_evidence_share (f, "fault_share_of_busy", "Share of the GPU's busy time", share);
      _sl_evidence (f, "migrations", "Migrations", (double) count, "%" G_GSIZE_FORMAT, count);
      _sl_evidence (f, "fault_migrations", "On page faults", (double) faults, "%" G_GSIZE_FORMAT,
                    faults);
      for (guint c = 0; c < G_N_ELEMENTS (by_cause); c++)
        if (by_cause[c] > 0)
          {
            const char *label = sl_trace_enum_label (ctx->trace, SL_ENUM_UM_MIGRATION, c);
            g_autofree char *key = g_strdup_printf ("migration_ns_by_cause.%s",
                                                    label != NULL ? label : "Unknown");
            g_autofree char *text_label = g_strdup_printf ("Migrations: %s",
                                                           label != NULL ? label : "unknown");
            _sl_evidence_duration (f, key, text_label, by_cause[c]);
          }
      um_hottest_evidence (f, regions);
      f->summary = g_strdup_printf ("GPU %u: %s of unified-memory migrations on page faults "
                                    "(%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " migrations, %s "
                                    "in all), %.0f %% of the GPU's busy time",
                                    device, fault_text, faults, count, total_text,
                                    100.0 * share);
      f->advice = g_strdup ("Pages migrated on demand stall the kernel (or the host) that "
                            "touched them, a page at a time. Move the data before it is used: "
                            "cudaMemPrefetchAsync to the GPU before the kernel (and back before "
                            "the host reads it), cudaMemAdvise (SetPreferredLocation, "
                            "SetAccessedBy, SetReadMostly), or explicit cudaMemcpyAsync of "
                            "device buffers.");
    }
  _sl_analyze_note (ctx, "%u GPUs migrate on faults", found);
}
