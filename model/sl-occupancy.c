/* sl-occupancy.c: CUDA occupancy calculator: blocks per SM allowed by warps, registers, shared
 * memory and the block slots of each compute capability from sm_50 to sm_121.
 *
 * The rules are those of NVIDIA's occupancy calculator (cuda_occupancy.h, CUDA 13.0),
 * re-implemented here and checked against it by tests/test-occupancy.c on random launches:
 *
 *  - registers are allocated per warp in units of 256, and each of the SM's sub-partitions
 *    (4; 2 on sm_60) holds a quarter (half) of the register file and whole warps only;
 *  - a block's register request is also checked as if its warps were spread over all
 *    sub-partitions (the hardware launch check);
 *  - shared memory is allocated per block in units of 256 B before sm_80 and 128 B since, and
 *    from sm_80 on the driver adds 1 KiB per block for itself;
 *  - from sm_70 on shared memory and L1 share one array and the shared part (the carveout) is
 *    one of a few sizes per architecture; we take the largest, which is what the driver picks
 *    for a kernel that needs it and what cuda_occupancy.h assumes with no preference set.
 *
 * It is called once per distinct launch configuration (10^2 … 10^4 per trace), so it favours
 * being obviously right over being fast.
 */
#include "sl-occupancy.h"

#include <string.h>

/* The shared-memory carveouts an architecture offers, in KiB, ascending, ended by -1. */
static const gint carveout_volta[]  = { 0, 8, 16, 32, 64, 96, -1 };
static const gint carveout_turing[] = { 32, 64, -1 };
static const gint carveout_100k[]   = { 0, 8, 16, 32, 64, 100, -1 };
static const gint carveout_164k[]   = { 0, 8, 16, 32, 64, 100, 132, 164, -1 };
static const gint carveout_228k[]   = { 0, 8, 16, 32, 64, 100, 132, 164, 196, 228, -1 };

typedef struct
{
  gint8        major;
  gint8        minor;
  gint16       max_warps_per_sm;
  gint16       max_blocks_per_sm;
  gint16       max_regs_per_block_k;   /* in units of 1024 registers */
  gint16       smem_per_sm_k;          /* KiB */
  gint16       smem_optin_k;           /* KiB a block may opt in to */
  const gint  *carveouts;              /* NULL: dedicated shared memory, no carveout */
} CcLimits;

/* From the CUDA C++ Programming Guide's table of compute capabilities, cross-checked with
 * cuda_occupancy.h for the block slots.  Every entry has 1024 threads per block, warps of 32,
 * 64 Ki registers per SM and 48 KiB of shared memory per block without opt-in.  10.1 is what
 * CUDA 12.8 called the GPU CUDA 12.9 renamed 11.0 (Thor). */
static const CcLimits cc_table[] = {
  {  5, 0, 64, 32, 64,  64,  48, NULL },
  {  5, 2, 64, 32, 64,  96,  48, NULL },
  {  5, 3, 64, 32, 32,  64,  48, NULL },
  {  6, 0, 64, 32, 64,  64,  48, NULL },
  {  6, 1, 64, 32, 64,  96,  48, NULL },
  {  6, 2, 64, 32, 32,  64,  48, NULL },
  {  7, 0, 64, 32, 64,  96,  96, carveout_volta },
  {  7, 2, 64, 32, 64,  96,  96, carveout_volta },
  {  7, 5, 32, 16, 64,  64,  64, carveout_turing },
  {  8, 0, 64, 32, 64, 164, 163, carveout_164k },
  {  8, 6, 48, 16, 64, 100,  99, carveout_100k },
  {  8, 7, 48, 16, 64, 164, 163, carveout_164k },
  {  8, 9, 48, 24, 64, 100,  99, carveout_100k },
  {  9, 0, 64, 32, 64, 228, 227, carveout_228k },
  { 10, 0, 64, 32, 64, 228, 227, carveout_228k },
  { 10, 1, 48, 24, 64, 228, 227, carveout_228k },
  { 10, 3, 64, 32, 64, 228, 227, carveout_228k },
  { 11, 0, 48, 24, 64, 228, 227, carveout_228k },
  { 12, 0, 48, 24, 64, 100,  99, carveout_100k },
  { 12, 1, 48, 24, 64, 100,  99, carveout_100k },
};

#define REG_ALLOC_UNIT 256  /* registers, per warp, on every architecture since Kepler */

static const CcLimits *
cc_lookup (gint major,
           gint minor)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cc_table); i++)
    if (cc_table[i].major == major && cc_table[i].minor == minor)
      return &cc_table[i];
  return NULL;
}

static gint64
round_up (gint64 x,
          gint64 unit)
{
  return (x + unit - 1) / unit * unit;
}

gboolean
sl_gpu_limits_for_cc (gint         major,
                      gint         minor,
                      SlGpuLimits *out)
{
  const CcLimits *cc;

  g_return_val_if_fail (out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  cc = cc_lookup (major, minor);
  if (cc == NULL)
    return FALSE;

  out->cc_major = major;
  out->cc_minor = minor;
  out->sm_count = 0;
  out->warp_size = 32;
  out->max_threads_per_block = 1024;
  out->max_warps_per_sm = cc->max_warps_per_sm;
  out->max_blocks_per_sm = cc->max_blocks_per_sm;
  out->max_regs_per_block = cc->max_regs_per_block_k * 1024;
  out->max_regs_per_sm = 64 * 1024;
  out->max_smem_per_block = 48 * 1024;
  out->max_smem_per_block_optin = cc->smem_optin_k * 1024;
  out->max_smem_per_sm = cc->smem_per_sm_k * 1024;
  return TRUE;
}

gboolean
sl_gpu_limits_complete (SlGpuLimits *limits)
{
  SlGpuLimits t;

  g_return_val_if_fail (limits != NULL, FALSE);

  if (!sl_gpu_limits_for_cc (limits->cc_major, limits->cc_minor, &t))
    return FALSE;

#define FILL(field) if (limits->field == 0) limits->field = t.field
  FILL (warp_size);
  FILL (max_threads_per_block);
  FILL (max_warps_per_sm);
  FILL (max_blocks_per_sm);
  FILL (max_regs_per_block);
  FILL (max_regs_per_sm);
  FILL (max_smem_per_block);
  FILL (max_smem_per_block_optin);
  FILL (max_smem_per_sm);
#undef FILL
  return TRUE;
}

gint
sl_gpu_reserved_smem_per_block (const SlGpuLimits *limits)
{
  g_return_val_if_fail (limits != NULL, 0);

  return limits->cc_major >= 8 ? 1024 : 0;
}

/* Smallest carveout of the architecture that holds `bytes`; `bytes` itself past the largest
 * (limits that came from a device we have no carveout list for are trusted as they are). */
static gint64
carveout_round_up (const CcLimits *cc,
                   gint64          bytes)
{
  if (cc->carveouts == NULL)
    return bytes;
  for (const gint *c = cc->carveouts; *c >= 0; c++)
    if (bytes <= (gint64) *c * 1024)
      return (gint64) *c * 1024;
  return bytes;
}

/* Blocks per SM the register file allows, for `sub_partitions` sub-partitions. */
static gint
blocks_by_registers (const SlGpuLimits *l,
                     gint               registers_per_thread,
                     gint64             warps_per_block,
                     gint               sub_partitions,
                     gint64            *registers_per_block)
{
  gint max_per_thread = l->cc_major < 7 ? 255 : 256;
  gint64 per_warp = round_up ((gint64) registers_per_thread * l->warp_size, REG_ALLOC_UNIT);
  gint64 assumed = per_warp * round_up (warps_per_block, sub_partitions);
  gint64 warps_per_partition;

  *registers_per_block = per_warp * warps_per_block;
  if (registers_per_thread > max_per_thread
      || *registers_per_block > l->max_regs_per_block
      || assumed > l->max_regs_per_block)
    return 0;
  if (per_warp == 0)
    return G_MAXINT;
  warps_per_partition = (l->max_regs_per_sm / sub_partitions) / per_warp;
  return (gint) (warps_per_partition * sub_partitions / warps_per_block);
}

/* Blocks per SM shared memory allows; *allocated is the bytes a block takes. */
static gint
blocks_by_shared_memory (const SlGpuLimits *l,
                         const CcLimits    *cc,
                         gint64             shared_bytes,
                         SlOccupancyFlags   flags,
                         gint64            *allocated)
{
  gint reserved = sl_gpu_reserved_smem_per_block (l);
  gint unit = l->cc_major >= 8 ? 128 : 256;
  gint64 per_block_limit = l->max_smem_per_block;
  gint64 preferred, per_sm;

  /* Clamp first: a reader may hand us any 64-bit value. */
  *allocated = round_up (MIN (shared_bytes, (gint64) G_MAXINT) + reserved, unit);

  if (l->cc_major >= 7 && (flags & SL_OCC_FLAG_NO_OPTIN) == 0)
    per_block_limit = MAX (per_block_limit, l->max_smem_per_block_optin);
  /* The reservation does not count against what a kernel may ask for. */
  if (l->cc_major >= 8)
    per_block_limit += reserved;
  if (*allocated > per_block_limit)
    return 0;

  /* Before sm_70 shared memory is a dedicated array: all of it, whatever the block needs. */
  if (l->cc_major < 7)
    per_sm = l->max_smem_per_sm;
  else
    {
      preferred = carveout_round_up (cc, l->max_smem_per_sm);
      per_sm = preferred >= *allocated ? preferred : carveout_round_up (cc, *allocated);
    }
  if (*allocated == 0)
    return G_MAXINT;
  return (gint) MIN (per_sm / *allocated, (gint64) G_MAXINT);
}

gboolean
sl_occupancy_compute_full (const SlGpuLimits *limits,
                           gint               threads_per_block,
                           gint               registers_per_thread,
                           gint64             shared_bytes,
                           SlOccupancyFlags   flags,
                           SlOccupancy       *out)
{
  SlGpuLimits l;
  const CcLimits *cc;
  gint64 warps_per_block, regs_per_block, smem_per_block;
  gint by[SL_OCC_LIMIT_BLOCKS + 1];
  gint best;

  g_return_val_if_fail (limits != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  out->limit = SL_OCC_LIMIT_NONE;

  l = *limits;
  cc = cc_lookup (l.cc_major, l.cc_minor);
  if (cc == NULL || !sl_gpu_limits_complete (&l))
    return FALSE;
  out->max_warps_per_sm = l.max_warps_per_sm;
  if (l.warp_size <= 0 || l.max_threads_per_block <= 0 || l.max_warps_per_sm <= 0
      || l.max_blocks_per_sm <= 0 || l.max_regs_per_block <= 0 || l.max_regs_per_sm <= 0
      || l.max_smem_per_block <= 0 || l.max_smem_per_sm <= 0)
    return FALSE;
  if (threads_per_block <= 0 || registers_per_thread < 0 || shared_bytes < 0)
    return FALSE;

  warps_per_block = (threads_per_block + (gint64) l.warp_size - 1) / l.warp_size;

  by[SL_OCC_LIMIT_WARPS] = threads_per_block > l.max_threads_per_block
                           ? 0 : (gint) (l.max_warps_per_sm / warps_per_block);

  by[SL_OCC_LIMIT_REGISTERS] = blocks_by_registers (&l, registers_per_thread, warps_per_block,
                                                    l.cc_major == 6 && l.cc_minor == 0 ? 2 : 4,
                                                    &regs_per_block);
  /* sm_60 has two sub-partitions, the rest of Pascal four: a block that the four-partition
   * layout cannot hold is treated as unlaunchable on sm_60 too, so that a kernel tuned on one
   * Pascal runs on all (cuda_occupancy.h does the same). */
  if (l.cc_major == 6 && l.cc_minor == 0 && by[SL_OCC_LIMIT_REGISTERS] > 0)
    {
      gint64 unused;
      if (blocks_by_registers (&l, registers_per_thread, warps_per_block, 4, &unused) == 0)
        by[SL_OCC_LIMIT_REGISTERS] = 0;
    }

  by[SL_OCC_LIMIT_SHARED_MEMORY] = blocks_by_shared_memory (&l, cc, shared_bytes, flags,
                                                            &smem_per_block);
  by[SL_OCC_LIMIT_BLOCKS] = l.max_blocks_per_sm;

  best = G_MAXINT;
  for (gint f = SL_OCC_LIMIT_WARPS; f <= SL_OCC_LIMIT_BLOCKS; f++)
    best = MIN (best, by[f]);
  for (gint f = SL_OCC_LIMIT_BLOCKS; f >= SL_OCC_LIMIT_WARPS; f--)
    if (by[f] == best)
      {
        out->limit_mask |= SL_OCC_LIMIT_BIT (f);
        out->limit = f;   /* ends on the first tied factor in warps … blocks order */
      }

  out->blocks_by_warps = by[SL_OCC_LIMIT_WARPS];
  out->blocks_by_registers = by[SL_OCC_LIMIT_REGISTERS];
  out->blocks_by_shared_memory = by[SL_OCC_LIMIT_SHARED_MEMORY];
  out->blocks_by_blocks = by[SL_OCC_LIMIT_BLOCKS];
  out->shared_per_block = (gint) MIN (smem_per_block, (gint64) G_MAXINT);
  out->registers_per_block = (gint) MIN (regs_per_block, (gint64) G_MAXINT);

  if (best <= 0)
    {
      out->limit = SL_OCC_LIMIT_NONE;
      return FALSE;
    }

  out->blocks_per_sm = best;
  out->warps_per_sm = (gint) (best * warps_per_block);
  out->occupancy = (double) out->warps_per_sm / l.max_warps_per_sm;
  return TRUE;
}

gboolean
sl_occupancy_compute (const SlGpuLimits *limits,
                      gint               threads_per_block,
                      gint               registers_per_thread,
                      gint64             shared_bytes,
                      SlOccupancy       *out)
{
  return sl_occupancy_compute_full (limits, threads_per_block, registers_per_thread,
                                    shared_bytes, SL_OCC_FLAG_NONE, out);
}

double
sl_occupancy_estimated_achieved (const SlGpuLimits *limits,
                                 const SlOccupancy *occ,
                                 gint64             grid_blocks,
                                 gint               threads_per_block)
{
  SlGpuLimits l;
  double blocks, threads_per_sm;

  g_return_val_if_fail (limits != NULL, -1.0);
  g_return_val_if_fail (occ != NULL, -1.0);

  l = *limits;
  sl_gpu_limits_complete (&l);
  if (l.sm_count <= 0 || l.warp_size <= 0 || occ->max_warps_per_sm <= 0)
    return -1.0;
  if (grid_blocks <= 0 || threads_per_block <= 0)
    return 0.0;

  blocks = MIN ((double) occ->blocks_per_sm, (double) grid_blocks / l.sm_count);
  threads_per_sm = (double) occ->max_warps_per_sm * l.warp_size;
  return blocks * threads_per_block / threads_per_sm;
}

gboolean
sl_occupancy_waves (const SlGpuLimits *limits,
                    gint               blocks_per_sm,
                    gint64             grid_blocks,
                    SlWaves           *out)
{
  g_return_val_if_fail (limits != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  if (limits->sm_count <= 0 || blocks_per_sm <= 0 || grid_blocks <= 0)
    return FALSE;

  /* both factors are below 2^31: no overflow; grid_blocks may be anything up to G_MAXINT64 */
  out->slots = (gint64) limits->sm_count * blocks_per_sm;
  out->n_waves = grid_blocks / out->slots + (grid_blocks % out->slots != 0);
  out->last_blocks = grid_blocks - (out->n_waves - 1) * out->slots;
  out->waves = (double) (out->n_waves - 1) + (double) out->last_blocks / (double) out->slots;
  out->last_fill = (double) out->last_blocks / (double) out->slots;
  out->tail = 1.0 - out->last_fill;
  out->last_sms = MIN ((gint64) limits->sm_count, out->last_blocks);
  out->idle = (double) (limits->sm_count - out->last_sms)
              / ((double) limits->sm_count * (double) out->n_waves);
  return TRUE;
}

char *
sl_occupancy_waves_format (const SlWaves *waves)
{
  g_autofree char *fill = NULL;

  g_return_val_if_fail (waves != NULL, NULL);

  if (waves->last_fill > 0 && waves->last_fill < 0.005)
    fill = g_strdup ("< 1 %");
  else
    fill = g_strdup_printf ("%.0f %%", waves->last_fill * 100);
  return g_strdup_printf (waves->waves < 0.1 ? "%.2g (last wave %s full)"
                                             : "%.2f (last wave %s full)", waves->waves, fill);
}

const char *
sl_occupancy_limit_name (SlOccupancyLimit limit)
{
  switch (limit)
    {
    case SL_OCC_LIMIT_WARPS:
      return "warps";
    case SL_OCC_LIMIT_REGISTERS:
      return "registers";
    case SL_OCC_LIMIT_SHARED_MEMORY:
      return "shared memory";
    case SL_OCC_LIMIT_BLOCKS:
      return "blocks";
    case SL_OCC_LIMIT_NONE:
    default:
      return "none";
    }
}

gint64
sl_block_threads (const guint32 block[3])
{
  gint64 two, three;

  if (__builtin_mul_overflow ((gint64) block[0], (gint64) block[1], &two)
      || __builtin_mul_overflow (two, (gint64) block[2], &three))
    return G_MAXINT64;
  return three;
}

gint64
sl_grid_blocks (const guint32 grid[3])
{
  gint64 two, three;

  if (__builtin_mul_overflow ((gint64) grid[0], (gint64) grid[1], &two)
      || __builtin_mul_overflow (two, (gint64) grid[2], &three))
    return G_MAXINT64;
  return three;
}
