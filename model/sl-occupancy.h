/* sl-occupancy.h: theoretical occupancy of a CUDA kernel launch; Kineto's estimate of achieved. */
#pragma once

#include "sl-types.h"

G_BEGIN_DECLS

/* The resource that allows the fewest blocks per SM. */
typedef enum
{
  SL_OCC_LIMIT_NONE,            /* invalid configuration: occupancy 0 */
  SL_OCC_LIMIT_WARPS,
  SL_OCC_LIMIT_REGISTERS,
  SL_OCC_LIMIT_SHARED_MEMORY,
  SL_OCC_LIMIT_BLOCKS,
} SlOccupancyLimit;

typedef enum
{
  SL_OCC_FLAG_NONE     = 0,
  /* Per-block shared memory may not exceed max_smem_per_block (48 KiB) even where the GPU
   * allows a kernel to opt in to more.  This is how Kineto (PyTorch's profiler) computes
   * occupancy, so its figure is 0 for every kernel that opted in. */
  SL_OCC_FLAG_NO_OPTIN = 1 << 0,
} SlOccupancyFlags;

/* Bit of SlOccupancy.limit_mask for one limit. */
#define SL_OCC_LIMIT_BIT(limit) (1u << (limit))

typedef struct
{
  gint   blocks_per_sm;         /* active blocks per SM the configuration allows */
  gint   warps_per_sm;          /* active warps per SM = blocks_per_sm * warps per block */
  gint   max_warps_per_sm;
  double occupancy;             /* warps_per_sm / max_warps_per_sm, 0..1 */
  /* The factor that allows the fewest blocks.  Ties go to the first of warps, registers,
   * shared memory, blocks: the order in which cuda_occupancy.h tests its limiting factors.
   * limit_mask has SL_OCC_LIMIT_BIT() of every tied factor, as cuda_occupancy.h reports them. */
  SlOccupancyLimit limit;
  guint  limit_mask;
  /* Blocks per SM each resource alone allows; G_MAXINT when the kernel uses none of it
   * (no registers, or no shared memory on a GPU without a per-block reservation). */
  gint   blocks_by_warps, blocks_by_registers, blocks_by_shared_memory, blocks_by_blocks;
  gint   shared_per_block;      /* bytes per block, with the per-block reservation, rounded up
                                 * to the allocation granularity */
  gint   registers_per_block;   /* after allocation granularity */
} SlOccupancy;

/* Limits of a compute capability from built-in tables: 5.0 5.2 5.3 6.0 6.1 6.2 7.0 7.2 7.5 8.0
 * 8.6 8.7 8.9 9.0 10.0 10.1 10.3 11.0 12.0 12.1.  sm_count is 0 (it differs between products of
 * one compute capability).  FALSE (and *out zeroed) for an unknown one. */
gboolean    sl_gpu_limits_for_cc            (gint               major,
                                             gint               minor,
                                             SlGpuLimits       *out);
/* Fills every 0 field of `limits` from the table of its compute capability (sm_count stays as
 * it is); FALSE, with `limits` unchanged, when the compute capability is unknown. */
gboolean    sl_gpu_limits_complete          (SlGpuLimits       *limits);
/* Shared memory the driver reserves for each block: 1 KiB on sm_80 and later, 0 before. */
gint        sl_gpu_reserved_smem_per_block  (const SlGpuLimits *limits);

/* threads_per_block = blockX*blockY*blockZ; shared_bytes = static + dynamic shared memory per
 * block.  Fields of `limits` that are 0 are taken from the table of its compute capability.
 * Shared memory: the L1/shared carveout is assumed at its maximum (what the driver picks when
 * a kernel needs it; an explicit smaller carveout is not modelled) and a kernel may use up to
 * max_smem_per_block_optin (see SL_OCC_FLAG_NO_OPTIN).  Partitioned global caching (sm_52,
 * sm_6x) is taken to be off, as the CUDA runtime does by default.
 * Returns FALSE (and occupancy 0, limit NONE) for a configuration that cannot launch or an
 * unknown compute capability; the per-resource fields are still filled where they could be
 * computed, to say why. */
gboolean    sl_occupancy_compute            (const SlGpuLimits *limits,
                                             gint               threads_per_block,
                                             gint               registers_per_thread,
                                             gint64             shared_bytes,
                                             SlOccupancy       *out);
gboolean    sl_occupancy_compute_full       (const SlGpuLimits *limits,
                                             gint               threads_per_block,
                                             gint               registers_per_thread,
                                             gint64             shared_bytes,
                                             SlOccupancyFlags   flags,
                                             SlOccupancy       *out);

/* What Kineto calls "est. achieved occupancy %" (divided by 100): the theoretical blocks per
 * SM capped by the blocks the grid gives each SM on average,
 *
 *   min (occ->blocks_per_sm, grid_blocks / sm_count) * threads_per_block
 *     / (max_warps_per_sm * warp_size)
 *
 * with a fractional grid_blocks / sm_count (not rounded up) and threads, not whole warps.
 * Kineto prints (int) (0.5 + 100 * this) and computes occ without opt-in shared memory
 * (SL_OCC_FLAG_NO_OPTIN).  -1 when limits->sm_count is unknown (0). */
double      sl_occupancy_estimated_achieved (const SlGpuLimits *limits,
                                             const SlOccupancy *occ,
                                             gint64             grid_blocks,
                                             gint               threads_per_block);
/* How a grid runs: the GPU holds sm_count × blocks_per_sm blocks at once (its slots), so a grid
 * of more blocks runs in waves, and a last wave that is partly empty leaves SMs idle while it
 * runs (the tail effect).  40 blocks on 28 SMs at one block per SM: 1.43 waves, the second
 * holds 12 blocks in 28 slots (tail: 57 % of them empty), 16 SMs have nothing to run in it,
 * and of the SM time of the two waves 16 / 56 = 0.29 is idle.
 *
 * The block scheduler spreads a wave's blocks over the SMs before it doubles them up, so an SM
 * is idle in the last wave only when the wave has fewer blocks than there are SMs; an SM given
 * fewer blocks than it could hold still runs (less latency hidden, not idle), and `idle` does
 * not count it.  Waves are taken to last alike and the kernel to run alone on the GPU: what an
 * estimate can assume without per-block timings. */
typedef struct
{
  gint64 slots;                 /* blocks resident at once: sm_count × blocks_per_sm */
  gint64 n_waves;               /* ceil (grid_blocks / slots) */
  double waves;                 /* grid_blocks / slots: 1.43 */
  gint64 last_blocks;           /* blocks of the last wave, 1 … slots */
  double last_fill;             /* last_blocks / slots, (0, 1]: 0.43 */
  double tail;                  /* 1 − last_fill: share of the last wave's slots left empty */
  gint64 last_sms;              /* SMs given a block in the last wave: min (SMs, last_blocks) */
  double idle;                  /* SMs with no block in the last wave ÷ (SMs × n_waves): the share
                                 * of the grid's SM time idle, what a grid of whole waves of the
                                 * same work would save; = empty slots ÷ all slots at one block
                                 * per SM */
} SlWaves;

/* The waves of a grid of `grid_blocks` blocks at `blocks_per_sm` (SlOccupancy.blocks_per_sm)
 * on a GPU of limits->sm_count SMs.  FALSE (and *out zeroed) when the SM count is unknown (0)
 * or either count is not positive. */
gboolean    sl_occupancy_waves              (const SlGpuLimits *limits,
                                             gint               blocks_per_sm,
                                             gint64             grid_blocks,
                                             SlWaves           *out);
/* "1.43 (last wave 43 % full)", as the detail pane and the rules write waves: two significant
 * digits under 0.1 ("0.00077"), "< 1 %" for a last wave that is not empty but rounds to 0. */
char       *sl_occupancy_waves_format       (const SlWaves     *waves);
/* "warps", "registers", "shared memory", "blocks"; "none" for SL_OCC_LIMIT_NONE. */
const char *sl_occupancy_limit_name         (SlOccupancyLimit   limit);
/* Threads of a block of dimensions `block` (a kernel's, from a file): their product, G_MAXINT64
 * when absurd dimensions overflow it (three of 2^32 - 1 do). */
gint64      sl_block_threads                (const guint32      block[3]);
/* Blocks of a grid of dimensions `grid`, the same way: G_MAXINT64 when the product overflows. */
gint64      sl_grid_blocks                  (const guint32      grid[3]);

G_END_DECLS
