/* sl-analyze-kernels.c: the rules about kernels: tiny_kernels (launch overhead dominates),
 * low_occupancy (large share of GPU time at low theoretical occupancy, with what more blocks per
 * SM could save) and tail_effect (a grid of under two waves whose last is mostly empty). */
#include "sl-analyze-private.h"

#include <math.h>
#include <string.h>

#include "sl-format.h"
#include "sl-kernel-kind.h"
#include "sl-occupancy.h"
#include "sl-reader-private.h"
#include "sl-utilization.h"

typedef struct
{
  guint32 name;
  gsize   at, n;       /* its instances: starts and durations [at, at + n) of the GPU's groups */
  SlTime  total;
  guint32 lane;
  gsize   index;       /* an instance */
} KernelGroup;

typedef struct
{
  GArray *groups;      /* KernelGroup, in the order their names first appear */
  SlTime *starts;      /* a group's instances in a stretch of its own, lane by lane */
  SlTime *durations;
} KernelGroups;

static void
kernel_groups_clear (KernelGroups *kgs)
{
  g_array_unref (kgs->groups);
  g_free (kgs->starts);
  g_free (kgs->durations);
}

/* Grouping a GPU's kernels by name (kernel_groups): a slot a string id */
typedef struct
{
  KernelGroups *kgs;
  guint32      *slot;     /* by name id: index in kgs->groups, G_MAXUINT32 when none yet */
  guint         n_strs;
  SlTrace      *trace;
  gboolean      nodes;    /* some kernel info is a graph's node: each kernel is asked */
} GroupScan;

/* The kernel's group, made on its name's first instance; NULL for a name past the strings and
 * for a graph's node: its graph launch was the host's one launch, not each node. */
static KernelGroup *
group_of (GroupScan    *scan,
          const SlLane *lane,
          gsize         index)
{
  guint32 name = lane->events[index].name;

  if (name >= scan->n_strs
      || (scan->nodes && _sl_kernel_is_graph_node (scan->trace, lane, &lane->events[index])))
    return NULL;
  if (scan->slot[name] == G_MAXUINT32)
    {
      KernelGroup fresh = { name, 0, 0, 0, lane->index, index };
      scan->slot[name] = scan->kgs->groups->len;
      g_array_append_val (scan->kgs->groups, fresh);
    }
  return &g_array_index (scan->kgs->groups, KernelGroup, scan->slot[name]);
}

static void
group_count_cb (const SlLane *lane,
                gsize         index,
                gpointer      user_data)
{
  KernelGroup *kg = group_of (user_data, lane, index);

  if (kg != NULL)
    kg->n++;
}

static void
group_fill_cb (const SlLane *lane,
               gsize         index,
               gpointer      user_data)
{
  GroupScan *scan = user_data;
  KernelGroup *kg = group_of (scan, lane, index);
  const SlEvent *ev = &lane->events[index];

  if (kg == NULL)
    return;
  scan->kgs->starts[kg->at + kg->n] = ev->start;
  scan->kgs->durations[kg->at + kg->n] = ev->end - ev->start;
  kg->total = _sl_time_add (kg->total, ev->end - ev->start);
  kg->n++;
}

/* A GPU's kernels in the window grouped by name, as a counting sort: a count a name, then each
 * instance's start and duration written to its group's stretch.  No hash lookup or array growth
 * a kernel (~10^6 of them, a few hundred names). */
static void
kernel_groups (SlAnalyzeCtx *ctx,
               guint         gpu,
               KernelGroups *kgs)
{
  guint n_strs = sl_trace_get_n_strs (ctx->trace);
  g_autofree guint32 *slot = g_new (guint32, MAX (n_strs, 1));
  GroupScan scan = { kgs, slot, n_strs, ctx->trace, FALSE };
  gsize all = 0;

  memset (slot, 0xff, sizeof (guint32) * MAX (n_strs, 1));
  /* a few thousand infos looked at once, rather than each of ~10^6 kernels' */
  for (guint i = 0; i < ctx->trace->kernel_infos->len && !scan.nodes; i++)
    scan.nodes = g_array_index (ctx->trace->kernel_infos, SlKernelInfo, i).graph_id != 0;
  *kgs = (KernelGroups) { g_array_new (FALSE, FALSE, sizeof (KernelGroup)), NULL, NULL };
  _sl_analyze_foreach_kernel (ctx, gpu, group_count_cb, &scan);
  /* each group's stretch, then filled from its start */
  for (guint i = 0; i < kgs->groups->len; i++)
    {
      KernelGroup *kg = &g_array_index (kgs->groups, KernelGroup, i);
      kg->at = all;
      all += kg->n;
      kg->n = 0;
    }
  kgs->starts = g_new (SlTime, MAX (all, 1));
  kgs->durations = g_new (SlTime, MAX (all, 1));
  _sl_analyze_foreach_kernel (ctx, gpu, group_fill_cb, &scan);
}

void
_sl_rule_tiny_kernels (SlAnalyzeCtx *ctx)
{
  SlTime max_median = (SlTime) _sl_analyze_param (ctx, "duration");
  gsize min_count = (gsize) _sl_analyze_param (ctx, "count");
  guint n_found = 0;

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      KernelGroups kgs;
      SlGpuInfo *gi = &ctx->gpus[g];
      /* each finding's idle time: the GPU's between its instances inside their bursts, given from
       * the idle account once the GPU's groups are all asked for (overlapping bursts of two
       * kernels split it, never count it twice) */
      g_autoptr (GArray) requests = g_array_new (FALSE, FALSE, sizeof (SlIdleRequest));
      g_autoptr (GPtrArray) found = g_ptr_array_new ();
      g_autoptr (GArray) given = g_array_new (FALSE, TRUE, sizeof (SlTime *));
      kernel_groups (ctx, g, &kgs);
      for (guint k = 0; k < kgs.groups->len; k++)
        {
          KernelGroup *kg = &g_array_index (kgs.groups, KernelGroup, k);
          gsize n = kg->n, n_gaps = 0;
          SlTime *starts = kgs.starts + kg->at, *gaps;
          SlTime median, interval, first, last, launch = 0;

          if (n < MAX (min_count, 2))
            continue;
          median = _sl_median_of_n (kgs.durations + kg->at, n);
          if (median >= max_median)
            continue;
          /* in time order already when its kernels run on one stream */
          _sl_sort_by_start (starts, n, sizeof (SlTime));
          first = starts[0];
          last = starts[n - 1];
          /* the spacing of launches inside their bursts: pairs under 1 ms apart (the gaps go
           * where the group's durations were: their median is taken) */
          gaps = kgs.durations + kg->at;
          for (gsize i = 1; i < n; i++)
            if (starts[i] - starts[i - 1] < 1 * SL_MS)
              gaps[n_gaps++] = starts[i] - starts[i - 1];
          if (n_gaps == 0)
            continue;
          {
            SlTime *acc = g_new0 (SlTime, 1);
            g_array_append_val (given, acc);
            /* the spaces of a burst touch: one request a burst */
            for (gsize i = 1; i < n; i++)
              {
                const SlTime *s = &starts[i];
                SlIdleRequest r = { s[-1], s[0], acc };
                SlIdleRequest *last = requests->len > 0
                                        ? &g_array_index (requests, SlIdleRequest,
                                                          requests->len - 1)
                                        : NULL;
                if (s[0] - s[-1] >= 1 * SL_MS)
                  continue;
                if (last != NULL && last->attributed == acc && last->e == s[-1])
                  last->e = s[0];
                else
                  g_array_append_val (requests, r);
              }
          }
          interval = _sl_median_of_n (gaps, n_gaps);
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
            SlFinding *f = _sl_finding_new (ctx, first, last + median, 0);
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
            g_ptr_array_add (found, f);
            n_found++;
          }
        }
      kernel_groups_clear (&kgs);
      _sl_idle_attribute (ctx, g, SL_IDLE_ALL, requests);
      for (guint i = 0; i < found->len; i++)
        {
          SlTime *acc = g_array_index (given, SlTime *, i);
          _sl_finding_set_attributed (g_ptr_array_index (found, i), *acc);
        }
      for (guint i = 0; i < given->len; i++)
        g_free (g_array_index (given, SlTime *, i));
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
  GArray  *groups;   /* ConfigGroup, in the order their configurations first appear */
  guint32 *slot;     /* by kernel info (aux; n_infos: any other aux): index in groups,
                      * G_MAXUINT32 when none yet */
  guint32 *canon;    /* by kernel info: the first info of the same configuration (the same
                      * but for graph ids: a graph's nodes are infos of their own) */
  guint32  n_infos;
  SlTime   all;      /* kernel time of the GPU */
} ConfigScan;

static void
config_group_add_cb (const SlLane *lane,
                     gsize         index,
                     gpointer      user_data)
{
  ConfigScan *scan = user_data;
  const SlEvent *ev = &lane->events[index];
  guint32 at = ev->aux < scan->n_infos ? scan->canon[ev->aux] : scan->n_infos;
  ConfigGroup *cg;

  if (scan->slot[at] == G_MAXUINT32)
    {
      ConfigGroup fresh = { ev->aux, 0, 0, ev->start, ev->end, lane->index, index };
      scan->slot[at] = scan->groups->len;
      g_array_append_val (scan->groups, fresh);
    }
  cg = &g_array_index (scan->groups, ConfigGroup, scan->slot[at]);
  cg->first = MIN (cg->first, ev->start);
  cg->last = MAX (cg->last, ev->end);
  cg->count++;
  cg->total = _sl_time_add (cg->total, ev->end - ev->start);
  scan->all = _sl_time_add (scan->all, ev->end - ev->start);
}

/* Each kernel info's first info of the same configuration (canon[i] == i for most). */
static guint32 *
config_canon (SlTrace *trace)
{
  guint32 n = trace->kernel_infos->len;
  guint32 *canon = g_new (guint32, MAX (n, 1));
  g_autofree SlKernelInfo *keys = g_new (SlKernelInfo, MAX (n, 1));
  g_autoptr (GHashTable) first = g_hash_table_new (_sl_kernel_info_hash, _sl_kernel_info_equal);

  for (guint32 i = 0; i < n; i++)
    {
      gpointer at;
      /* a configuration: the info's bytes (padding too: zeroed where infos are made, so bytes
       * compare as fields do) without the graph ids */
      memcpy (&keys[i], &g_array_index (trace->kernel_infos, SlKernelInfo, i), sizeof keys[i]);
      keys[i].graph_id = 0;
      keys[i].graph_exec_id = 0;
      keys[i].graph_node_id = 0;
      if (g_hash_table_lookup_extended (first, &keys[i], NULL, &at))
        canon[i] = GPOINTER_TO_UINT (at);
      else
        {
          canon[i] = i;
          g_hash_table_insert (first, &keys[i], GUINT_TO_POINTER (i));
        }
    }
  return canon;
}

/* A GPU's kernels by launch configuration (ConfigGroup), made once for low_occupancy and
 * tail_effect; `all` is its kernel time.  A slot a configuration: no hash lookup a kernel; the
 * nodes of CUDA graphs (an info each) fall into their configuration's group. */
static GArray *
config_groups (SlAnalyzeCtx *ctx,
               guint         g,
               SlTime       *all)
{
  SlGpuInfo *gi = &ctx->gpus[g];

  if (gi->config_groups == NULL)
    {
      guint32 n_infos = ctx->trace->kernel_infos->len;
      g_autofree guint32 *slot = g_new (guint32, n_infos + 1);
      g_autofree guint32 *canon = config_canon (ctx->trace);
      ConfigScan scan = { g_array_new (FALSE, FALSE, sizeof (ConfigGroup)), slot, canon, n_infos,
                          0 };
      memset (slot, 0xff, sizeof (guint32) * (n_infos + 1));
      _sl_analyze_foreach_kernel (ctx, g, config_group_add_cb, &scan);
      gi->config_groups = scan.groups;
      gi->kernel_time = scan.all;
    }
  *all = gi->kernel_time;
  return gi->config_groups;
}

/* Theoretical occupancy of a configuration on `gpu`; FALSE when it cannot be computed. */
static gboolean
config_occupancy (const SlGpu        *gpu,
                  const SlKernelInfo *ki,
                  SlOccupancy        *occ)
{
  gint64 threads = sl_block_threads (ki->block);

  return sl_occupancy_compute (&gpu->limits, (gint) MIN (threads, G_MAXINT),
                               (gint) ki->registers_per_thread,
                               (gint64) ki->static_shared + ki->dynamic_shared, occ);
}

/* Blocks per SM the configuration would run at `target` occupancy were its limiting
 * resource(s) to allow it, the others still counting; 0 when they allow no more than now.  The
 * warp slots are the hardware's and always count.  A kernel limited by the block slots (small
 * blocks) would get larger blocks, which runs the same warps in the same waves as lifting the
 * slot limit: that is how it is counted. */
static gint
target_blocks_per_sm (const SlOccupancy *occ,
                      double             target)
{
  gint warps_per_block = occ->warps_per_sm / MAX (occ->blocks_per_sm, 1);
  gint by[SL_OCC_LIMIT_BLOCKS + 1] = { 0 };
  gint want, cap = G_MAXINT;

  by[SL_OCC_LIMIT_WARPS] = occ->blocks_by_warps;
  by[SL_OCC_LIMIT_REGISTERS] = occ->blocks_by_registers;
  by[SL_OCC_LIMIT_SHARED_MEMORY] = occ->blocks_by_shared_memory;
  by[SL_OCC_LIMIT_BLOCKS] = occ->blocks_by_blocks;
  if (warps_per_block <= 0)
    return 0;
  want = (gint) ceil (target * occ->max_warps_per_sm / warps_per_block - 1e-9);
  for (gint f = SL_OCC_LIMIT_WARPS; f <= SL_OCC_LIMIT_BLOCKS; f++)
    if (f == SL_OCC_LIMIT_WARPS || (occ->limit_mask & SL_OCC_LIMIT_BIT (f)) == 0)
      cap = MIN (cap, by[f]);
  want = MIN (want, cap);
  return want > occ->blocks_per_sm ? want : 0;
}

/* What to do about a library's kernel at low occupancy: how it is called, never how it is
 * compiled (its registers and block size are the library's). */
static const char *
library_occupancy_advice (SlKernelLibrary library)
{
  switch (library)
    {
    case SL_KERNEL_LIBRARY_NCCL:
      return "An NCCL kernel: it runs one block per channel, a few blocks by design, and its time "
             "is the link's, not the SMs': occupancy is not its limit. If the link is not "
             "saturated, give collectives more channels (NCCL_MIN_NCHANNELS); make fewer, larger "
             "collectives (bucket the gradients) and overlap them with compute.";
    case SL_KERNEL_LIBRARY_BLAS:
      return "A cuBLAS/CUTLASS GEMM: its tiles, registers and shared memory are tuned by the "
             "library for this shape. Change how it is called: dimensions in multiples of 8 "
             "(16-bit) or 16 (8-bit) so that tensor cores apply, a lower precision (TF32, BF16: "
             "torch.backends.cuda.matmul.allow_tf32), larger or batched matrices (bmm, grouped "
             "GEMM), or another algorithm (cuBLASLt heuristics, torch.compile max-autotune).";
    case SL_KERNEL_LIBRARY_DNN:
      return "A cuDNN kernel: its configuration is the algorithm cuDNN chose for this shape. Let "
             "it time the alternatives (torch.backends.cudnn.benchmark = True), use channels_last "
             "with FP16/BF16 so that tensor-core algorithms apply, and larger batches.";
    case SL_KERNEL_LIBRARY_ATTENTION:
      return "A fused attention kernel (FlashAttention, fmha): large tiles in shared memory give "
             "it few blocks per SM by design. Change the call: batch × heads enough to fill the "
             "SMs, sequence lengths in multiples of its tile (128), a head dimension it is tuned "
             "for (64, 128), BF16/FP16.";
    case SL_KERNEL_LIBRARY_PYTORCH:
      return "PyTorch's own kernel (at::native): its launch configuration and registers are set "
             "in PyTorch's source. Change how it is called: fewer, larger tensors (batch the op), "
             "contiguous inputs, a lower precision, or a fused kernel (torch.compile).";
    case SL_KERNEL_LIBRARY_NONE:
    default:
      return NULL;
    }
}

/* Advice for the user's own kernel, by what limits it. */
static char *
kernel_occupancy_advice (const SlOccupancy  *occ,
                         const SlKernelInfo *ki,
                         gint64              threads)
{
  switch (occ->limit)
    {
    case SL_OCC_LIMIT_REGISTERS:
      return g_strdup_printf ("%u registers per thread allow %d block(s) per SM: cap them "
                              "(__launch_bounds__, -maxrregcount) or simplify the kernel.",
                              ki->registers_per_thread, occ->blocks_per_sm);
    case SL_OCC_LIMIT_SHARED_MEMORY:
      return g_strdup_printf ("%d B of shared memory per block allow %d block(s) per SM: use "
                              "smaller tiles or less shared memory per block.",
                              occ->shared_per_block, occ->blocks_per_sm);
    case SL_OCC_LIMIT_BLOCKS:
      return g_strdup_printf ("Blocks of %" G_GINT64_FORMAT " threads hit the limit of blocks per "
                              "SM: use larger blocks (128 threads or more).", threads);
    case SL_OCC_LIMIT_WARPS:
    case SL_OCC_LIMIT_NONE:
    default:
      return g_strdup ("Change the launch configuration (block size) so that more warps fit on "
                       "each SM.");
    }
}

void
_sl_rule_low_occupancy (SlAnalyzeCtx *ctx)
{
  double max_occ = _sl_analyze_param (ctx, "occupancy");
  double min_share = _sl_analyze_param (ctx, "share");
  SlTime min_time = (SlTime) _sl_analyze_param (ctx, "time");
  guint n_estimated = 0, n_none = 0;

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      const SlGpu *gpu = sl_trace_get_gpu (ctx->trace, g);
      SlTime all;
      GArray *groups = config_groups (ctx, g, &all);

      if (all == 0)
        continue;
      if (gpu->limits.cc_major == 0)
        {
          _sl_analyze_note (ctx, "GPU %u: compute capability unknown, occupancy not computed",
                            _sl_gpu_id (ctx, g));
          continue;
        }
      for (guint i = 0; i < groups->len; i++)
        {
          ConfigGroup *cg = &g_array_index (groups, ConfigGroup, i);
          const SlKernelInfo *ki = sl_trace_get_kernel_info (ctx->trace, cg->aux);
          double share = (double) cg->total / (double) all;
          SlOccupancy occ;
          SlWaves now = { 0 }, then = { 0 };
          gint64 threads, grid;
          gint target = 0;
          gboolean has_waves;
          double saving = 0;

          if (ki == NULL || share < min_share || cg->total < min_time)
            continue;
          if (!config_occupancy (gpu, ki, &occ) || occ.occupancy >= max_occ)
            continue;
          threads = sl_block_threads (ki->block);
          grid = sl_grid_blocks (ki->grid);
          /* The estimate: the grid's waves now against at the blocks per SM that `max_occ`
           * needs, a wave taken to last as long with more blocks beside each other (true where
           * the kernel is latency-bound: an upper bound).  A grid that takes as many waves
           * either way (under one wave, most often) saves nothing. */
          has_waves = sl_occupancy_waves (&gpu->limits, occ.blocks_per_sm, grid, &now);
          if (has_waves)
            target = target_blocks_per_sm (&occ, max_occ);
          if (target > 0 && sl_occupancy_waves (&gpu->limits, target, grid, &then)
              && then.n_waves < now.n_waves)
            saving = 1.0 - (double) then.n_waves / (double) now.n_waves;
          {
            SlFinding *f = _sl_finding_new (ctx, cg->first, cg->last,
                                            (SlTime) ((double) cg->total * saving));
            const char *name = sl_trace_str (ctx->trace, ki->demangled_name);
            const char *limit = sl_occupancy_limit_name (occ.limit);
            SlKernelLibrary library = sl_kernel_library (name);
            const char *lib_advice = library_occupancy_advice (library);
            g_autofree char *tot = sl_format_duration (cg->total);
            g_autofree char *why = NULL, *kernel_advice = NULL, *estimate = NULL;

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
            _sl_evidence (f, "grid_blocks", "Grid", (double) grid, "%u × %u × %u",
                          ki->grid[0], ki->grid[1], ki->grid[2]);
            if (has_waves)
              {
                g_autofree char *wt = sl_occupancy_waves_format (&now);
                _sl_evidence (f, "waves", "Waves", now.waves, "%s", wt);
                _sl_evidence (f, "wave_slots", "Blocks a wave holds", (double) now.slots,
                              "%" G_GINT64_FORMAT " (%d SMs × %d)", now.slots,
                              gpu->limits.sm_count, occ.blocks_per_sm);
                _sl_evidence_share (f, "tail", "Last wave's slots left empty", now.tail);
              }
            if (saving > 0)
              {
                _sl_evidence (f, "target_blocks_per_sm", "Blocks per SM at the target occupancy",
                              target, "%d (%.0f%% occupancy)", target, max_occ * 100);
                _sl_evidence (f, "target_waves", "Waves at the target occupancy",
                              (double) then.n_waves, "%" G_GINT64_FORMAT " instead of %"
                              G_GINT64_FORMAT, then.n_waves, now.n_waves);
              }
            _sl_evidence_share (f, "estimated_saving", "Estimated saving (share of its time)",
                                saving);
            if (library != SL_KERNEL_LIBRARY_NONE)
              _sl_evidence (f, "library", "Library", library, "%s",
                            sl_kernel_library_name (library));
            _sl_evidence_share (f, "gpu_time_share", "Share of the GPU's kernel time", share);
            _sl_evidence_duration (f, "gpu_ns", "GPU time", cg->total);
            _sl_evidence (f, "count", "Instances", (double) cg->count, "%" G_GSIZE_FORMAT,
                          cg->count);
            _sl_finding_add_event (ctx, f, cg->lane, cg->index);
            _sl_finding_add_gpu_lanes (ctx, f, g);

            if (saving > 0)
              {
                g_autofree char *saved = sl_format_duration (f->cost);
                why = g_strdup_printf ("at %d blocks per SM its grid would take %" G_GINT64_FORMAT
                                       " wave%s instead of %" G_GINT64_FORMAT ": up to %s saved",
                                       target, then.n_waves, then.n_waves == 1 ? "" : "s",
                                       now.n_waves, saved);
                n_estimated++;
              }
            else
              {
                if (!has_waves)
                  why = g_strdup ("no saving estimated: the GPU's SM count is unknown");
                else if (now.n_waves == 1)
                  why = g_strdup_printf ("no saving estimated: its grid of %" G_GINT64_FORMAT
                                         " block%s fits in one wave (%.*f), which more blocks "
                                         "per SM would not shorten", grid, grid == 1 ? "" : "s",
                                         now.waves < 0.1 ? 4 : 2, now.waves);
                else if (target == 0)
                  why = g_strdup_printf ("no saving estimated: the other resources allow no more "
                                         "than %d block(s) per SM", occ.blocks_per_sm);
                else
                  why = g_strdup_printf ("no saving estimated: its grid takes %" G_GINT64_FORMAT
                                         " waves at %d blocks per SM as at %d",
                                         now.n_waves, target, occ.blocks_per_sm);
                n_none++;
              }
            f->summary = g_strdup_printf ("%s: %.0f%% theoretical occupancy (limited by %s) in "
                                          "%.0f%% of GPU %u's kernel time (%s); %s",
                                          name, occ.occupancy * 100, limit, share * 100,
                                          _sl_gpu_id (ctx, g), tot, why);
            if (lib_advice == NULL)
              kernel_advice = kernel_occupancy_advice (&occ, ki, threads);
            estimate = g_strdup_printf (
                " Estimated saving: its time × (1 − its waves at the blocks per SM that %.0f%% "
                "occupancy needs ÷ its waves now), a wave taken to last as long with more blocks "
                "per SM: an upper bound, reached by a latency-bound kernel only; none where the "
                "grid takes as many waves either way.", max_occ * 100);
            f->advice = g_strconcat (lib_advice != NULL ? lib_advice : kernel_advice, estimate,
                                     NULL);
          }
        }
    }
  if (n_estimated + n_none > 0)
    _sl_analyze_note (ctx, "%u with an estimated saving, %u without", n_estimated, n_none);
}

/* --- tail_effect ------------------------------------------------------------------------------ */

/* GPU time of the instances of configuration `aux` during which no other kernel of GPU `g`
 * runs: the SMs a tail leaves empty are idle only then.  The other kernel lanes are searched around
 * each instance (a stream's kernels do not overlap), O(instances × streams × log n); it runs
 * only for the few configurations with a tail. */
static SlTime
time_alone (SlAnalyzeCtx *ctx,
            guint         g,
            guint32       aux)
{
  SlGpuInfo *gi = &ctx->gpus[g];
  SlTime alone = 0;

  for (guint k = 0; k < gi->kernels->len; k++)
    {
      const SlLane *lane = sl_trace_get_lane (ctx->trace, g_array_index (gi->kernels, guint32, k));
      gsize e0, e1;

      _sl_analyze_lane_window (ctx, lane, &e0, &e1);
      for (gsize e = e0; e < e1; e++)
        {
          const SlEvent *ev = &lane->events[e];
          SlTime d = ev->end - ev->start, shared = 0;

          if (ev->aux != aux)
            continue;
          for (guint o = 0; o < gi->kernels->len && shared < d; o++)
            {
              const SlLane *other = sl_trace_get_lane (ctx->trace,
                                                       g_array_index (gi->kernels, guint32, o));
              gsize i;

              if (other == lane)
                continue;
              i = sl_lane_lower_bound (other, ev->start);
              if (i > 0)
                i--;
              for (; i < other->n_events && other->events[i].start < ev->end; i++)
                {
                  SlTime s = MAX (other->events[i].start, ev->start);
                  SlTime t = MIN (other->events[i].end, ev->end);
                  if (t > s)
                    shared = _sl_time_add (shared, t - s);
                }
            }
          alone = _sl_time_add (alone, d - MIN (shared, d));
        }
    }
  return alone;
}

/* What to do about a grid whose last wave is mostly empty. */
static char *
tail_advice (SlKernelLibrary library,
             const SlWaves  *w,
             gint64          grid)
{
  static const char estimate[] = " Estimated saving: its time with no other kernel beside it × "
                                 "the SMs the last wave leaves without a block ÷ (SMs × its "
                                 "waves), waves taken to last alike.";
  gint64 down = (w->n_waves - 1) * w->slots, up;   /* down <= the grid: no overflow */
  g_autofree char *sizes = NULL;

  if (__builtin_mul_overflow (w->n_waves, w->slots, &up))
    up = G_MAXINT64;

  if (library != SL_KERNEL_LIBRARY_NONE)
    return g_strdup_printf (
        "The library sizes the grid from the problem's shape: %" G_GINT64_FORMAT " blocks for "
        "%" G_GINT64_FORMAT " slots. Change the shape so that it fills whole waves (the batch "
        "size, or the matrix or sequence dimensions, in multiples of the tile), batch several "
        "such calls into one (bmm, grouped GEMM, larger batches), or run independent work beside "
        "it on another stream.%s", grid, w->slots, estimate);
  if (down > 0)
    sizes = g_strdup_printf ("%" G_GINT64_FORMAT " blocks (the same work in larger blocks) or %"
                             G_GINT64_FORMAT " (in smaller ones)", down, up);
  else
    sizes = g_strdup_printf ("%" G_GINT64_FORMAT " blocks (the same work in smaller blocks)", up);
  return g_strdup_printf ("Size the grid in whole waves of %" G_GINT64_FORMAT " blocks (SMs × "
                          "blocks per SM): %s instead of %" G_GINT64_FORMAT ", e.g. with a "
                          "grid-stride loop, or run independent work beside it on another "
                          "stream.%s", w->slots, sizes, grid, estimate);
}

void
_sl_rule_tail_effect (SlAnalyzeCtx *ctx)
{
  double max_waves = _sl_analyze_param (ctx, "waves");
  double max_fill = _sl_analyze_param (ctx, "fill");
  double min_share = _sl_analyze_param (ctx, "share");
  SlTime min_time = (SlTime) _sl_analyze_param (ctx, "time");
  guint n_beside = 0;

  for (guint g = 0; g < ctx->n_gpus; g++)
    {
      SlGpuInfo *gi = &ctx->gpus[g];
      const SlGpu *gpu = sl_trace_get_gpu (ctx->trace, g);
      SlTime all;
      GArray *groups = config_groups (ctx, g, &all);

      if (all == 0)
        continue;
      if (gpu->limits.cc_major == 0 || gpu->limits.sm_count <= 0)
        {
          _sl_analyze_note (ctx, "GPU %u: %s unknown, waves not computed", _sl_gpu_id (ctx, g),
                            gpu->limits.cc_major == 0 ? "compute capability" : "SM count");
          continue;
        }
      for (guint i = 0; i < groups->len; i++)
        {
          ConfigGroup *cg = &g_array_index (groups, ConfigGroup, i);
          const SlKernelInfo *ki = sl_trace_get_kernel_info (ctx->trace, cg->aux);
          double share = (double) cg->total / (double) all;
          const char *name;
          SlKernelLibrary library;
          SlOccupancy occ;
          SlWaves w;
          gint64 grid;
          SlTime alone;

          if (ki == NULL || share < min_share || cg->total < min_time)
            continue;
          grid = sl_grid_blocks (ki->grid);
          if (!config_occupancy (gpu, ki, &occ)
              || !sl_occupancy_waves (&gpu->limits, occ.blocks_per_sm, grid, &w)
              || w.waves >= max_waves
              || (double) w.last_sms >= max_fill * gpu->limits.sm_count)
            continue;
          name = sl_trace_str (ctx->trace, ki->demangled_name);
          library = sl_kernel_library (name);
          /* NCCL's blocks are its channels and its time is the link's: a partial wave of them
           * leaves the SMs to the compute beside it, by design */
          if (library == SL_KERNEL_LIBRARY_NCCL)
            continue;
          /* other streams' kernels beside it fill the SMs it leaves: judged on its time alone */
          alone = time_alone (ctx, g, cg->aux);
          if (alone < MAX (min_time, 1))
            {
              n_beside++;
              continue;
            }
          {
            SlFinding *f = _sl_finding_new (ctx, cg->first, cg->last,
                                            (SlTime) ((double) alone * w.idle));
            g_autofree char *wt = sl_occupancy_waves_format (&w);
            g_autofree char *tot = sl_format_duration (cg->total);
            g_autofree char *cost = sl_format_duration (f->cost);

            f->gpu = (gint) _sl_gpu_id (ctx, g);
            f->global_pid = gi->global_pid;
            _sl_evidence (f, "waves", "Waves", w.waves, "%s", wt);
            _sl_evidence (f, "grid_blocks", "Grid", (double) grid, "%" G_GINT64_FORMAT
                          " blocks (%u × %u × %u)", grid, ki->grid[0], ki->grid[1], ki->grid[2]);
            _sl_evidence (f, "wave_slots", "Blocks a wave holds", (double) w.slots,
                          "%" G_GINT64_FORMAT " (%d SMs × %d)", w.slots, gpu->limits.sm_count,
                          occ.blocks_per_sm);
            _sl_evidence (f, "last_wave_blocks", "Blocks in the last wave",
                          (double) w.last_blocks, "%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT,
                          w.last_blocks, w.slots);
            _sl_evidence_share (f, "tail", "Last wave's slots left empty", w.tail);
            _sl_evidence (f, "last_wave_sms", "SMs busy in the last wave", (double) w.last_sms,
                          "%" G_GINT64_FORMAT " of %d", w.last_sms, gpu->limits.sm_count);
            _sl_evidence_share (f, "idle_sm_time", "Idle share of the SM time of its waves",
                                w.idle);
            _sl_evidence_share (f, "occupancy", "Theoretical occupancy", occ.occupancy);
            if (library != SL_KERNEL_LIBRARY_NONE)
              _sl_evidence (f, "library", "Library", library, "%s",
                            sl_kernel_library_name (library));
            _sl_evidence_share (f, "gpu_time_share", "Share of the GPU's kernel time", share);
            _sl_evidence_duration (f, "gpu_ns", "GPU time", cg->total);
            _sl_evidence_duration (f, "alone_ns", "GPU time with no other kernel beside it",
                                   alone);
            _sl_evidence (f, "count", "Instances", (double) cg->count, "%" G_GSIZE_FORMAT,
                          cg->count);
            _sl_finding_add_event (ctx, f, cg->lane, cg->index);
            _sl_finding_add_gpu_lanes (ctx, f, g);
            f->summary = g_strdup_printf (
                "%s: a grid of %" G_GINT64_FORMAT " block%s on GPU %u is %.*f waves of %"
                G_GINT64_FORMAT ", the last keeping %" G_GINT64_FORMAT " of %d SMs busy (%.0f%% "
                "of the GPU's kernel time, %s): up to %s to gain from whole waves",
                name, grid, grid == 1 ? "" : "s", _sl_gpu_id (ctx, g), w.waves < 0.1 ? 4 : 2,
                w.waves, w.slots, w.last_sms, gpu->limits.sm_count, share * 100, tot, cost);
            f->advice = tail_advice (library, &w, grid);
          }
        }
    }
  if (n_beside > 0)
    _sl_analyze_note (ctx, "%u kernel configuration(s) with a tail left out: other kernels ran "
                      "beside them (their time alone under the time threshold)", n_beside);
}
