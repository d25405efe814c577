/* sl-analyze-kernels.c: the rules about kernels: tiny_kernels (launch overhead dominates),
 * low_occupancy (large share of GPU time at low theoretical occupancy) and launch_latency
 * (kernels starting long after their launch while the GPU idles). */
#include "sl-analyze-private.h"

#include "sl-format.h"
#include "sl-occupancy.h"
#include "sl-sort.h"
#include "sl-utilization.h"

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

typedef void (*KernelFunc) (const SlLane *lane, gsize index, gpointer user_data);

/* Calls func for each kernel of a GPU that starts in the window, lane by lane. */
static void
foreach_kernel (SlAnalyzeCtx *ctx,
                guint         gpu,
                KernelFunc    func,
                gpointer      user_data)
{
  SlGpuInfo *gi = &ctx->gpus[gpu];

  for (guint k = 0; k < gi->kernels->len; k++)
    {
      const SlLane *lane = sl_trace_get_lane (ctx->trace,
                                              g_array_index (gi->kernels, guint32, k));
      gsize e0, e1;

      _sl_analyze_lane_window (ctx, lane, &e0, &e1);
      for (gsize e = e0; e < e1; e++)
        func (lane, e, user_data);
    }
}

/* Groups kernels by name (GHashTable name → KernelGroup). */
static void
kernel_group_add_cb (const SlLane *lane,
                     gsize         index,
                     gpointer      user_data)
{
  GHashTable *groups = user_data;
  const SlEvent *ev = &lane->events[index];
  KernelGroup *kg = g_hash_table_lookup (groups, GUINT_TO_POINTER (ev->name));
  SlTime d = ev->end - ev->start;

  if (kg == NULL)
    {
      kg = g_new0 (KernelGroup, 1);
      kg->name = ev->name;
      kg->starts = g_array_new (FALSE, FALSE, sizeof (SlTime));
      kg->durations = g_array_new (FALSE, FALSE, sizeof (SlTime));
      kg->lane = lane->index;
      kg->index = index;
      g_hash_table_insert (groups, GUINT_TO_POINTER (ev->name), kg);
    }
  g_array_append_val (kg->starts, ev->start);
  g_array_append_val (kg->durations, d);
  kg->total = _sl_time_add (kg->total, d);
}

void
_sl_rule_tiny_kernels (SlAnalyzeCtx *ctx)
{
  SlTime max_median = (SlTime) _sl_analyze_param (ctx, "duration");
  gsize min_count = (gsize) _sl_analyze_param (ctx, "count");
  guint n_found = 0;

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      g_autoptr (GHashTable) groups = g_hash_table_new_full (NULL, NULL, NULL, kernel_group_free);
      SlGpuInfo *gi = &ctx->gpus[g];
      GHashTableIter it;
      gpointer v;

      foreach_kernel (ctx, g, kernel_group_add_cb, groups);
      g_hash_table_iter_init (&it, groups);
      while (g_hash_table_iter_next (&it, NULL, &v))
        {
          KernelGroup *kg = v;
          gsize n = kg->starts->len;
          SlTime median, interval, first, last, launch = 0;
          g_autoptr (GArray) gaps = NULL;

          if (n < MAX (min_count, 2))
            continue;
          median = _sl_median_of (kg->durations);
          if (median >= max_median)
            continue;
          g_array_sort (kg->starts, sl_cmp_int64);
          first = g_array_index (kg->starts, SlTime, 0);
          last = g_array_index (kg->starts, SlTime, n - 1);
          /* the spacing of launches inside their bursts: pairs under 1 ms apart */
          gaps = g_array_sized_new (FALSE, FALSE, sizeof (SlTime), n);
          for (gsize i = 1; i < n; i++)
            {
              const SlTime *s = &g_array_index (kg->starts, SlTime, i);
              SlTime d = s[0] - s[-1];
              if (d < 1 * SL_MS)
                g_array_append_val (gaps, d);
            }
          if (gaps->len == 0)
            continue;
          interval = _sl_median_of (gaps);
          /* launch calls: a sample of up to 4096 instances */
          {
            const SlLane *lane = sl_trace_get_lane (ctx->trace, kg->lane);
            g_autoptr (GArray) calls = g_array_new (FALSE, FALSE, sizeof (SlTime));
            gsize e0, e1, step;

            _sl_analyze_lane_window (ctx, lane, &e0, &e1);
            step = MAX ((e1 - e0) / 4096, 1);
            for (gsize e = e0; e < e1; e += step)
              {
                const SlLane *al;
                gsize ai;
                if (lane->events[e].name == kg->name
                    && _sl_launch_thread (ctx, &lane->events[e], &al, &ai) >= 0)
                  {
                    SlTime d = al->events[ai].end - al->events[ai].start;
                    g_array_append_val (calls, d);
                  }
              }
            launch = _sl_median_of (calls);
          }
          {
            SlTime overhead = MAX (interval - median, 0);
            SlFinding *f = _sl_finding_new (ctx, first, last + median, (SlTime) n * overhead);
            g_autofree char *md = sl_format_duration (median), *iv = sl_format_duration (interval);
            g_autofree char *tot = sl_format_duration (kg->total);
            double rate = last > first ? (double) (n - 1) * 1e9 / (double) (last - first) : 0;

            f->gpu = (gint) _sl_gpu_id (ctx, g);
            f->global_pid = gi->global_pid;
            _sl_evidence (f, "count", "Instances", (double) n, "%u", (guint) n);
            _sl_evidence_duration (f, "median_ns", "Median duration", median);
            _sl_evidence_duration (f, "total_ns", "GPU time", kg->total);
            _sl_evidence_duration (f, "interval_ns", "Median time between launches", interval);
            _sl_evidence (f, "interval_ratio", "Time between launches ÷ kernel time",
                          (double) interval / (double) MAX (median, 1), "%.1f",
                          (double) interval / (double) MAX (median, 1));
            _sl_evidence (f, "rate_per_s", "Launches per second", rate, "%.0f", rate);
            if (launch > 0)
              _sl_evidence_duration (f, "launch_call_ns", "Median launch call", launch);
            _sl_finding_add_event (ctx, f, kg->lane, kg->index);
            _sl_finding_add_gpu_lanes (ctx, f, g);
            _sl_finding_add_thread_lanes (ctx, f, gi->launcher);
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
    _sl_analyze_note (ctx, "%u kernel names with %" G_GSIZE_FORMAT " or more instances of "
                      "median under %s", n_found, min_count, d);
  }
}

/* --- low_occupancy ---------------------------------------------------------------------------- */

typedef struct
{
  guint32 aux;
  gsize   count;
  SlTime  total;
  SlTime  first, last;   /* first start, last end */
  guint32 lane;
  gsize   index;
} ConfigGroup;

typedef struct
{
  GHashTable *groups;   /* aux + 1 → ConfigGroup */
  SlTime      all;      /* kernel time of the GPU */
} ConfigScan;

static void
config_group_add_cb (const SlLane *lane,
                     gsize         index,
                     gpointer      user_data)
{
  ConfigScan *scan = user_data;
  const SlEvent *ev = &lane->events[index];
  ConfigGroup *cg = g_hash_table_lookup (scan->groups, GUINT_TO_POINTER (ev->aux + 1));

  if (cg == NULL)
    {
      cg = g_new0 (ConfigGroup, 1);
      cg->aux = ev->aux;
      cg->lane = lane->index;
      cg->index = index;
      cg->first = ev->start;
      cg->last = ev->end;
      g_hash_table_insert (scan->groups, GUINT_TO_POINTER (ev->aux + 1), cg);
    }
  cg->first = MIN (cg->first, ev->start);
  cg->last = MAX (cg->last, ev->end);
  cg->count++;
  cg->total = _sl_time_add (cg->total, ev->end - ev->start);
  scan->all = _sl_time_add (scan->all, ev->end - ev->start);
}

void
_sl_rule_low_occupancy (SlAnalyzeCtx *ctx)
{
  double max_occ = _sl_analyze_param (ctx, "occupancy");
  double min_share = _sl_analyze_param (ctx, "share");
  SlTime min_time = (SlTime) _sl_analyze_param (ctx, "time");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      g_autoptr (GHashTable) groups = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      SlGpuInfo *gi = &ctx->gpus[g];
      const SlGpu *gpu = sl_trace_get_gpu (ctx->trace, g);
      ConfigScan scan = { groups, 0 };
      SlTime all;
      GHashTableIter it;
      gpointer v;

      foreach_kernel (ctx, g, config_group_add_cb, &scan);
      all = scan.all;
      if (all == 0)
        continue;
      if (gpu->limits.cc_major == 0)
        {
          _sl_analyze_note (ctx, "GPU %u: compute capability unknown, occupancy not computed",
                            _sl_gpu_id (ctx, g));
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
          threads = sl_block_threads (ki->block);
          if (!sl_occupancy_compute (&gpu->limits, (gint) MIN (threads, G_MAXINT),
                                     (gint) ki->registers_per_thread,
                                     (gint64) ki->static_shared + ki->dynamic_shared, &occ)
              || occ.occupancy >= max_occ)
            continue;
          {
            SlFinding *f = _sl_finding_new (ctx, cg->first, cg->last,
                                            (SlTime) ((double) cg->total * (1.0 - occ.occupancy)));
            const char *name = sl_trace_str (ctx->trace, ki->demangled_name);
            const char *limit = sl_occupancy_limit_name (occ.limit);
            g_autofree char *tot = sl_format_duration (cg->total);

            f->gpu = (gint) _sl_gpu_id (ctx, g);
            f->global_pid = gi->global_pid;
            _sl_evidence_share (f, "occupancy", "Theoretical occupancy", occ.occupancy);
            _sl_evidence (f, "limit", "Limited by", occ.limit, "%s", limit);
            _sl_evidence (f, "blocks_per_sm", "Blocks per SM", occ.blocks_per_sm, "%d",
                          occ.blocks_per_sm);
            _sl_evidence (f, "warps_per_sm", "Warps per SM", occ.warps_per_sm, "%d of %d",
                          occ.warps_per_sm, occ.max_warps_per_sm);
            _sl_evidence (f, "registers_per_thread", "Registers per thread",
                          ki->registers_per_thread, "%u", ki->registers_per_thread);
            _sl_evidence (f, "shared_bytes", "Shared memory per block",
                          (double) ki->static_shared + ki->dynamic_shared,
                          "%u B static + %u B dynamic", ki->static_shared, ki->dynamic_shared);
            _sl_evidence (f, "block_threads", "Block", (double) threads, "%u × %u × %u",
                          ki->block[0], ki->block[1], ki->block[2]);
            _sl_evidence (f, "grid_blocks", "Grid",
                          (double) ki->grid[0] * ki->grid[1] * ki->grid[2], "%u × %u × %u",
                          ki->grid[0], ki->grid[1], ki->grid[2]);
            _sl_evidence_share (f, "gpu_time_share", "Share of the GPU's kernel time", share);
            _sl_evidence_duration (f, "gpu_ns", "GPU time", cg->total);
            _sl_evidence (f, "count", "Instances", (double) cg->count, "%" G_GSIZE_FORMAT,
                          cg->count);
            _sl_finding_add_event (ctx, f, cg->lane, cg->index);
            _sl_finding_add_gpu_lanes (ctx, f, g);
            f->summary = g_strdup_printf ("%s: %.0f%% theoretical occupancy (limited by %s) in "
                                          "%.0f%% of GPU %u's kernel time (%s)",
                                          name, occ.occupancy * 100, limit, share * 100,
                                          _sl_gpu_id (ctx, g), tot);
            switch (occ.limit)
              {
              case SL_OCC_LIMIT_REGISTERS:
                f->advice = g_strdup_printf (
                    "%u registers per thread allow %d block(s) per SM: cap them "
                    "(__launch_bounds__, -maxrregcount) or simplify the kernel.",
                    ki->registers_per_thread,
                    occ.blocks_per_sm);
                break;
              case SL_OCC_LIMIT_SHARED_MEMORY:
                f->advice = g_strdup_printf (
                    "%d B of shared memory per block allow %d block(s) per SM: use smaller tiles "
                    "or less shared memory per block.", occ.shared_per_block, occ.blocks_per_sm);
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

/* --- launch_latency --------------------------------------------------------------------------- */

void
_sl_rule_launch_latency (SlAnalyzeCtx *ctx)
{
  SlTime latency = (SlTime) _sl_analyze_param (ctx, "latency");
  double idle_share = _sl_analyze_param (ctx, "idle");

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      for (guint k = 0; k < gi->ops->len; k++)
        {
          const SlLane *lane = sl_trace_get_lane (ctx->trace, g_array_index (gi->ops, guint32, k));
          g_autoptr (GArray) delays = g_array_new (FALSE, FALSE, sizeof (SlTime));
          g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (SlFindingEvent));
          SlTime idle_total = 0, first = 0, last = 0, worst = 0;
          gint thread = -1;
          gsize e0, e1;

          if (lane->kind != SL_LANE_KERNELS)
            continue;
          _sl_analyze_lane_window (ctx, lane, &e0, &e1);
          for (gsize e = e0; e < e1; e++)
            {
              const SlEvent *ev = &lane->events[e];
              const SlLane *al;
              gsize ai;
              SlTime delay, idle;
              if (_sl_launch_thread (ctx, ev, &al, &ai) < 0)
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
              if (events->len < SL_MAX_FINDING_EVENTS)
                {
                  SlFindingEvent pair[2] = { { al->index, ai }, { lane->index, e } };
                  g_array_append_vals (events, pair, 2);
                }
            }
          if (delays->len == 0)
            continue;
          {
            SlFinding *f = _sl_finding_new (ctx, first, last, idle_total);
            g_autofree char *med = sl_format_duration (_sl_median_of (delays));
            g_autofree char *w = sl_format_duration (worst);
            g_autofree char *idle = sl_format_duration (idle_total);

            f->gpu = (gint) _sl_gpu_id (ctx, g);
            f->stream = lane->stream_id;
            f->thread = thread;
            f->global_pid = lane->global_pid;
            _sl_evidence (f, "count", "Late kernels", delays->len, "%u", delays->len);
            _sl_evidence (f, "median_delay_ns", "Median queue delay",
                          (double) _sl_median_of (delays), "%s", med);
            _sl_evidence (f, "max_delay_ns", "Longest queue delay", (double) worst, "%s", w);
            _sl_evidence (f, "idle_ns", "GPU idle during the delays", (double) idle_total, "%s",
                          idle);
            for (guint i = 0; i < events->len; i++)
              _sl_finding_add_event (ctx, f, g_array_index (events, SlFindingEvent, i).lane,
                                     g_array_index (events, SlFindingEvent, i).index);
            f->summary = g_strdup_printf ("Stream %u on GPU %u: %u kernels started %s (median) "
                                          "after their launch call while the GPU was idle",
                                          lane->stream_id, _sl_gpu_id (ctx, g), delays->len, med);
            f->advice = g_strdup ("The GPU was idle, yet the kernels started late: the launch "
                                  "waited on something else (a stream or event dependency, an "
                                  "implicit synchronization of the legacy default stream, or "
                                  "the driver). Use non-blocking streams and check the "
                                  "dependencies of these launches.");
          }
        }
    }
}
