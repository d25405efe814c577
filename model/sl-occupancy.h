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
/* "warps", "registers", "shared memory", "blocks"; "none" for SL_OCC_LIMIT_NONE. */
const char *sl_occupancy_limit_name         (SlOccupancyLimit   limit);
/* Threads of a block of dimensions `block` (a kernel's, from a file): their product, G_MAXINT64
 * when absurd dimensions overflow it (three of 2^32 - 1 do). */
gint64      sl_block_threads                (const guint32      block[3]);

G_END_DECLS
