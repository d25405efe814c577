/* test-occupancy.c: occupancy against hand-checked cases, cuda_occupancy.h and Kineto traces. */
#include "sl-kernel-kind.h"
#include "sl-occupancy.h"
#include "sl-test-util.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Every compute capability the tables should know. */
static const gint known_ccs[][2] = {
  { 5, 0 }, { 5, 2 }, { 5, 3 }, { 6, 0 }, { 6, 1 }, { 6, 2 }, { 7, 0 }, { 7, 2 }, { 7, 5 },
  { 8, 0 }, { 8, 6 }, { 8, 7 }, { 8, 9 }, { 9, 0 }, { 10, 0 }, { 10, 1 }, { 10, 3 },
  { 11, 0 }, { 12, 0 }, { 12, 1 },
};

static SlGpuLimits
limits_for (gint major,
            gint minor)
{
  SlGpuLimits l;

  g_assert_true (sl_gpu_limits_for_cc (major, minor, &l));
  return l;
}

/* ---- hand-checked cases ------------------------------------------------------------------ */

static void
test_units_a100 (void)
{
  SlGpuLimits l = limits_for (8, 0);
  SlOccupancy o;

  /* 8 warps a block; 64 warp slots allow 8 blocks.  32 regs = 1024 per warp; a quarter of the
   * 64 Ki register file holds 16 such warps, 64 for the SM: 8 blocks too.  Warps win the tie. */
  g_assert_true (sl_occupancy_compute (&l, 256, 32, 0, &o));
  g_assert_cmpint (o.blocks_per_sm, ==, 8);
  g_assert_cmpint (o.warps_per_sm, ==, 64);
  g_assert_cmpint (o.max_warps_per_sm, ==, 64);
  g_assert_cmpfloat (o.occupancy, ==, 1.0);
  g_assert_cmpint (o.limit, ==, SL_OCC_LIMIT_WARPS);
  g_assert_cmpuint (o.limit_mask, ==, SL_OCC_LIMIT_BIT (SL_OCC_LIMIT_WARPS)
                                      | SL_OCC_LIMIT_BIT (SL_OCC_LIMIT_REGISTERS));
  g_assert_cmpint (o.blocks_by_warps, ==, 8);
  g_assert_cmpint (o.blocks_by_registers, ==, 8);
  /* No shared memory asked for, but the driver reserves 1 KiB a block: 164 KiB / 1 KiB. */
  g_assert_cmpint (o.shared_per_block, ==, 1024);
  g_assert_cmpint (o.blocks_by_shared_memory, ==, 164);
  g_assert_cmpint (o.blocks_by_blocks, ==, 32);
  g_assert_cmpint (o.registers_per_block, ==, 8 * 1024);

  /* Register-bound: 64 regs = 2048 per warp, 8 warps a sub-partition, 32 an SM, 4 blocks. */
  g_assert_true (sl_occupancy_compute (&l, 256, 64, 0, &o));
  g_assert_cmpint (o.blocks_per_sm, ==, 4);
  g_assert_cmpint (o.warps_per_sm, ==, 32);
  g_assert_cmpfloat (o.occupancy, ==, 0.5);
  g_assert_cmpint (o.limit, ==, SL_OCC_LIMIT_REGISTERS);
  g_assert_cmpint (o.registers_per_block, ==, 16384);

  /* 33 regs round up to 1280 a warp (units of 256): 12 warps a sub-partition, 48 an SM. */
  g_assert_true (sl_occupancy_compute (&l, 256, 33, 0, &o));
  g_assert_cmpint (o.blocks_per_sm, ==, 6);
  g_assert_cmpint (o.registers_per_block, ==, 1280 * 8);

  /* Shared-memory-bound: 48 KiB + 1 KiB reserved = 50176 B; 167936 / 50176 = 3 blocks. */
  g_assert_true (sl_occupancy_compute (&l, 128, 32, 48 * 1024, &o));
  g_assert_cmpint (o.shared_per_block, ==, 50176);
  g_assert_cmpint (o.blocks_per_sm, ==, 3);
  g_assert_cmpint (o.warps_per_sm, ==, 12);
  g_assert_cmpfloat (o.occupancy, ==, 12.0 / 64.0);
  g_assert_cmpint (o.limit, ==, SL_OCC_LIMIT_SHARED_MEMORY);

  /* Granularity 128 B: 1 B + 1 KiB reserved takes 1152 B. */
  g_assert_true (sl_occupancy_compute (&l, 32, 0, 1, &o));
  g_assert_cmpint (o.shared_per_block, ==, 1152);
  g_assert_cmpint (o.blocks_by_shared_memory, ==, 167936 / 1152);
  g_assert_cmpint (o.blocks_by_registers, ==, G_MAXINT);

  /* Block-slot-bound: one warp a block, 32 block slots, half the warp slots used. */
  g_assert_true (sl_occupancy_compute (&l, 32, 16, 0, &o));
  g_assert_cmpint (o.blocks_per_sm, ==, 32);
  g_assert_cmpint (o.limit, ==, SL_OCC_LIMIT_BLOCKS);
  g_assert_cmpfloat (o.occupancy, ==, 0.5);

  /* 100 KiB needs the opt-in: allowed by default, refused as Kineto computes it. */
  g_assert_true (sl_occupancy_compute (&l, 128, 32, 100 * 1024, &o));
  g_assert_cmpint (o.blocks_per_sm, ==, 1);
  g_assert_cmpint (o.limit, ==, SL_OCC_LIMIT_SHARED_MEMORY);
  g_assert_false (sl_occupancy_compute_full (&l, 128, 32, 100 * 1024, SL_OCC_FLAG_NO_OPTIN, &o));
  g_assert_cmpint (o.blocks_per_sm, ==, 0);
  g_assert_cmpint (o.limit, ==, SL_OCC_LIMIT_NONE);
  g_assert_cmpint (o.blocks_by_shared_memory, ==, 0);
  /* The whole opt-in fits; one byte more does not. */
  g_assert_true (sl_occupancy_compute (&l, 128, 32, 166912, &o));
  g_assert_false (sl_occupancy_compute (&l, 128, 32, 166913, &o));
  g_assert_cmpint (o.limit, ==, SL_OCC_LIMIT_NONE);
  g_assert_cmpfloat (o.occupancy, ==, 0.0);

  /* Configurations that cannot launch. */
  g_assert_false (sl_occupancy_compute (&l, 1025, 32, 0, &o));
  g_assert_cmpint (o.limit, ==, SL_OCC_LIMIT_NONE);
  g_assert_cmpint (o.blocks_by_warps, ==, 0);
  g_assert_false (sl_occupancy_compute (&l, 0, 32, 0, &o));
  g_assert_false (sl_occupancy_compute (&l, 32, -1, 0, &o));
  g_assert_false (sl_occupancy_compute (&l, 32, 0, -1, &o));
  g_assert_false (sl_occupancy_compute (&l, 32, 0, G_MAXINT64, &o));
  /* 1024 threads at 65 regs need 66560 registers: more than a block may have. */
  g_assert_false (sl_occupancy_compute (&l, 1024, 65, 0, &o));
  g_assert_cmpint (o.blocks_by_registers, ==, 0);
  g_assert_true (sl_occupancy_compute (&l, 1024, 64, 0, &o));
  g_assert_cmpint (o.blocks_per_sm, ==, 1);
}

static void
test_units_other_archs (void)
{
  SlGpuLimits l;
  SlOccupancy o;

  /* Turing: 32 warp slots, so one 1024-thread block fills the SM. */
  l = limits_for (7, 5);
  g_assert_true (sl_occupancy_compute (&l, 1024, 32, 0, &o));
  g_assert_cmpint (o.blocks_per_sm, ==, 1);
  g_assert_cmpfloat (o.occupancy, ==, 1.0);
  g_assert_cmpint (o.limit, ==, SL_OCC_LIMIT_WARPS);

  /* Volta: 256 B shared-memory granularity and no reservation; 96 KiB / 256 B = 384. */
  l = limits_for (7, 0);
  g_assert_true (sl_occupancy_compute (&l, 64, 0, 1, &o));
  g_assert_cmpint (o.shared_per_block, ==, 256);
  g_assert_cmpint (o.blocks_by_shared_memory, ==, 384);
  g_assert_true (sl_occupancy_compute (&l, 64, 0, 0, &o));
  g_assert_cmpint (o.blocks_by_shared_memory, ==, G_MAXINT);
  g_assert_cmpint (o.limit, ==, SL_OCC_LIMIT_WARPS);   /* 32 by warps = 32 by blocks */
  g_assert_cmpuint (o.limit_mask, ==, SL_OCC_LIMIT_BIT (SL_OCC_LIMIT_WARPS)
                                      | SL_OCC_LIMIT_BIT (SL_OCC_LIMIT_BLOCKS));

  /* Pascal allows at most 255 registers a thread, Volta on 256. */
  l = limits_for (6, 1);
  g_assert_false (sl_occupancy_compute (&l, 32, 256, 0, &o));
  g_assert_true (sl_occupancy_compute (&l, 32, 255, 0, &o));
  l = limits_for (7, 0);
  g_assert_true (sl_occupancy_compute (&l, 32, 256, 0, &o));

  /* No opt-in before Volta: 48 KiB is all a block gets. */
  l = limits_for (6, 1);
  g_assert_true (sl_occupancy_compute (&l, 32, 0, 48 * 1024, &o));
  g_assert_cmpint (o.blocks_per_sm, ==, 2);
  g_assert_false (sl_occupancy_compute (&l, 32, 0, 48 * 1024 + 1, &o));

  /* Ada (8.9): 24 block slots. */
  l = limits_for (8, 9);
  g_assert_true (sl_occupancy_compute (&l, 32, 0, 0, &o));
  g_assert_cmpint (o.blocks_per_sm, ==, 24);
  g_assert_cmpint (o.limit, ==, SL_OCC_LIMIT_BLOCKS);
  g_assert_cmpfloat (o.occupancy, ==, 0.5);
}

static void
test_limits_tables (void)
{
  SlGpuLimits l;
  SlOccupancy o;

  for (gsize i = 0; i < G_N_ELEMENTS (known_ccs); i++)
    {
      g_assert_true (sl_gpu_limits_for_cc (known_ccs[i][0], known_ccs[i][1], &l));
      g_assert_cmpint (l.cc_major, ==, known_ccs[i][0]);
      g_assert_cmpint (l.cc_minor, ==, known_ccs[i][1]);
      g_assert_cmpint (l.sm_count, ==, 0);
      g_assert_cmpint (l.warp_size, ==, 32);
      g_assert_cmpint (l.max_smem_per_block_optin, >=, l.max_smem_per_block);
      g_assert_cmpint (l.max_smem_per_sm, >=, l.max_smem_per_block_optin);
      g_assert_cmpint (sl_gpu_reserved_smem_per_block (&l), ==, l.cc_major >= 8 ? 1024 : 0);
    }

  /* GeForce RTX 3080 as a collector might see it: cc 8.6 and 68 SMs, nothing else. */
  memset (&l, 0, sizeof l);
  l.cc_major = 8;
  l.cc_minor = 6;
  l.sm_count = 68;
  g_assert_true (sl_gpu_limits_complete (&l));
  g_assert_cmpint (l.sm_count, ==, 68);
  g_assert_cmpint (l.warp_size, ==, 32);
  g_assert_cmpint (l.max_threads_per_block, ==, 1024);
  g_assert_cmpint (l.max_warps_per_sm, ==, 48);       /* 1536 threads */
  g_assert_cmpint (l.max_blocks_per_sm, ==, 16);
  g_assert_cmpint (l.max_regs_per_block, ==, 65536);
  g_assert_cmpint (l.max_regs_per_sm, ==, 65536);
  g_assert_cmpint (l.max_smem_per_block, ==, 49152);
  g_assert_cmpint (l.max_smem_per_block_optin, ==, 101376);  /* 99 KiB */
  g_assert_cmpint (l.max_smem_per_sm, ==, 102400);           /* 100 KiB */

  /* Fields already there are kept. */
  memset (&l, 0, sizeof l);
  l.cc_major = 8;
  l.cc_minor = 0;
  l.max_smem_per_sm = 100 * 1024;
  g_assert_true (sl_gpu_limits_complete (&l));
  g_assert_cmpint (l.max_smem_per_sm, ==, 100 * 1024);
  g_assert_cmpint (l.max_warps_per_sm, ==, 64);

  /* Unknown compute capabilities. */
  g_assert_false (sl_gpu_limits_for_cc (3, 5, &l));
  g_assert_cmpint (l.cc_major, ==, 0);
  g_assert_false (sl_gpu_limits_for_cc (8, 1, &l));
  g_assert_false (sl_gpu_limits_for_cc (13, 0, &l));
  g_assert_false (sl_gpu_limits_for_cc (0, 0, &l));
  memset (&l, 0, sizeof l);
  l.cc_major = 4;
  l.sm_count = 8;
  g_assert_false (sl_gpu_limits_complete (&l));
  g_assert_cmpint (l.warp_size, ==, 0);
  g_assert_cmpint (l.sm_count, ==, 8);
  g_assert_false (sl_occupancy_compute (&l, 128, 32, 0, &o));
  g_assert_cmpint (o.limit, ==, SL_OCC_LIMIT_NONE);

  g_assert_cmpstr (sl_occupancy_limit_name (SL_OCC_LIMIT_WARPS), ==, "warps");
  g_assert_cmpstr (sl_occupancy_limit_name (SL_OCC_LIMIT_REGISTERS), ==, "registers");
  g_assert_cmpstr (sl_occupancy_limit_name (SL_OCC_LIMIT_SHARED_MEMORY), ==, "shared memory");
  g_assert_cmpstr (sl_occupancy_limit_name (SL_OCC_LIMIT_BLOCKS), ==, "blocks");
  g_assert_cmpstr (sl_occupancy_limit_name (SL_OCC_LIMIT_NONE), ==, "none");
}

static void
test_estimated_achieved (void)
{
  SlGpuLimits l = limits_for (7, 0);
  SlOccupancy o;

  /* A V100 kernel from the ns_resolution trace: grid 4x106, 128 threads, 30 regs.  16 blocks fit
   * an SM but the grid gives each of the 80 SMs 5.3: 5.3 * 128 / 2048 = 33.125 %. */
  l.sm_count = 80;
  g_assert_true (sl_occupancy_compute (&l, 128, 30, 0, &o));
  g_assert_cmpint (o.blocks_per_sm, ==, 16);
  g_assert_cmpfloat_with_epsilon (sl_occupancy_estimated_achieved (&l, &o, 424, 128),
                                  0.33125, 1e-12);
  /* A big grid: the theoretical figure. */
  g_assert_cmpfloat_with_epsilon (sl_occupancy_estimated_achieved (&l, &o, 100000, 128),
                                  o.occupancy, 1e-12);
  /* Threads, not whole warps: 16 blocks of 100 threads use 1600 of 2048 thread slots. */
  g_assert_true (sl_occupancy_compute (&l, 100, 30, 0, &o));
  g_assert_cmpint (o.blocks_per_sm, ==, 16);
  g_assert_cmpfloat_with_epsilon (sl_occupancy_estimated_achieved (&l, &o, 100000, 100),
                                  1600.0 / 2048.0, 1e-12);
  g_assert_cmpfloat (sl_occupancy_estimated_achieved (&l, &o, 0, 100), ==, 0.0);
  l.sm_count = 0;
  g_assert_cmpfloat (sl_occupancy_estimated_achieved (&l, &o, 424, 100), ==, -1.0);
}

/* ---- against cuda_occupancy.h ------------------------------------------------------------ */

#ifdef SL_OCCUPANCY_ORACLE

#define N_ORACLE_CONFIGS 20000

typedef struct
{
  SlGpuLimits limits;
  gint        threads;
  gint        regs;
  gint64      smem;
  gboolean    optin;
} OracleCase;

/* cuda_occupancy.h's cudaOccLimitingFactor bits, in the order of our SlOccupancyLimit. */
static guint
mask_from_cuda (guint cuda)
{
  guint mask = 0;

  if (cuda & 0x01)
    mask |= SL_OCC_LIMIT_BIT (SL_OCC_LIMIT_WARPS);
  if (cuda & 0x02)
    mask |= SL_OCC_LIMIT_BIT (SL_OCC_LIMIT_REGISTERS);
  if (cuda & 0x04)
    mask |= SL_OCC_LIMIT_BIT (SL_OCC_LIMIT_SHARED_MEMORY);
  if (cuda & 0x08)
    mask |= SL_OCC_LIMIT_BIT (SL_OCC_LIMIT_BLOCKS);
  return mask;
}

static void
test_oracle (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (sl_test_seed ());
  g_autofree OracleCase *cases = g_new0 (OracleCase, N_ORACLE_CONFIGS);
  g_autoptr (GString) input = g_string_new (NULL);
  g_autoptr (GSubprocess) oracle = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *output = NULL;
  g_auto (GStrv) lines = NULL;
  guint mismatches = 0, invalid = 0;
  guint by_limit[SL_OCC_LIMIT_BLOCKS + 1] = { 0 };

  for (guint i = 0; i < N_ORACLE_CONFIGS; i++)
    {
      OracleCase *c = &cases[i];
      const gint *cc = known_ccs[g_rand_int_range (rand, 0, G_N_ELEMENTS (known_ccs))];
      gint64 smem_max;

      c->limits = limits_for (cc[0], cc[1]);
      c->limits.sm_count = g_rand_int_range (rand, 1, 200);
      /* Uniform block sizes and register counts mostly cannot launch (1024 threads at 65+
       * registers exceed a block's 64 Ki): draw small ones often so every limit shows up. */
      c->threads = g_rand_int_range (rand, 1, g_rand_boolean (rand) ? 1025 : 129);
      c->regs = g_rand_int_range (rand, 0, g_rand_boolean (rand) ? 256 : 65);
      c->optin = g_rand_boolean (rand);
      /* Past the opt-in limit by a little, to hit the boundary; small sizes often, to hit the
       * allocation granularity; none at all sometimes. */
      smem_max = c->limits.max_smem_per_block_optin + 2048;
      switch (g_rand_int_range (rand, 0, 4))
        {
        case 0:
          c->smem = 0;
          break;
        case 1:
          c->smem = g_rand_int_range (rand, 0, 4096);
          break;
        default:
          c->smem = g_rand_int_range (rand, 0, (gint32) smem_max + 1);
          break;
        }

      g_string_append_printf (input,
                              "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %" G_GINT64_FORMAT " %d\n",
                              c->limits.cc_major, c->limits.cc_minor,
                              c->limits.max_threads_per_block,
                              c->limits.max_warps_per_sm * c->limits.warp_size,
                              c->limits.max_regs_per_block, c->limits.max_regs_per_sm,
                              c->limits.warp_size, c->limits.max_smem_per_block,
                              c->limits.max_smem_per_sm, c->limits.sm_count,
                              c->limits.max_smem_per_block_optin,
                              sl_gpu_reserved_smem_per_block (&c->limits),
                              c->threads, c->regs, c->smem, c->optin ? 1 : 0);
    }

  oracle = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                             SL_OCCUPANCY_ORACLE, NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (oracle, input->str, NULL, &output, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_successful (oracle));
  lines = g_strsplit (output, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, N_ORACLE_CONFIGS + 1);

  for (guint i = 0; i < N_ORACLE_CONFIGS; i++)
    {
      const OracleCase *c = &cases[i];
      gint status, active, lim_warps, lim_regs, lim_smem, lim_blocks, alloc_regs;
      guint factors;
      gint64 alloc_smem;
      SlOccupancy o;
      gboolean ok, same;

      g_assert_cmpint (sscanf (lines[i], "%d %d %u %d %d %d %d %d %" G_GINT64_FORMAT,
                               &status, &active, &factors, &lim_warps, &lim_regs, &lim_smem,
                               &lim_blocks, &alloc_regs, &alloc_smem), ==, 9);
      g_assert_cmpint (status, ==, 0);

      ok = sl_occupancy_compute_full (&c->limits, c->threads, c->regs, c->smem,
                                      c->optin ? SL_OCC_FLAG_NONE : SL_OCC_FLAG_NO_OPTIN, &o);
      same = ok == (active > 0)
             && o.blocks_per_sm == active
             && o.limit_mask == mask_from_cuda (factors)
             && o.blocks_by_warps == lim_warps
             && o.blocks_by_registers == lim_regs
             && o.blocks_by_shared_memory == lim_smem
             && o.blocks_by_blocks == lim_blocks
             && o.registers_per_block == alloc_regs
             && o.shared_per_block == alloc_smem
             && o.warps_per_sm == active * ((c->threads + 31) / 32);
      /* Our single limit is the first tied factor in warps, registers, shared memory, blocks. */
      if (same && ok)
        same = (o.limit_mask & (SL_OCC_LIMIT_BIT (o.limit) - 1)) == 0
               && (o.limit_mask & SL_OCC_LIMIT_BIT (o.limit)) != 0;
      if (same && !ok)
        same = o.limit == SL_OCC_LIMIT_NONE && o.occupancy == 0.0;
      if (!same && mismatches++ < 10)
        g_printerr ("# mismatch: cc %d.%d threads %d regs %d smem %" G_GINT64_FORMAT " optin %d: "
                    "oracle %s, ours %d blocks mask %#x w%d r%d s%d b%d regs %d smem %d\n",
                    c->limits.cc_major, c->limits.cc_minor, c->threads, c->regs, c->smem,
                    c->optin, lines[i], o.blocks_per_sm, o.limit_mask, o.blocks_by_warps,
                    o.blocks_by_registers, o.blocks_by_shared_memory, o.blocks_by_blocks,
                    o.registers_per_block, o.shared_per_block);
      if (ok)
        by_limit[o.limit]++;
      else
        invalid++;
    }

  g_test_message ("%d configurations: %u limited by warps, %u registers, %u shared memory, "
                  "%u blocks, %u cannot launch; %u mismatches",
                  N_ORACLE_CONFIGS, by_limit[SL_OCC_LIMIT_WARPS], by_limit[SL_OCC_LIMIT_REGISTERS],
                  by_limit[SL_OCC_LIMIT_SHARED_MEMORY], by_limit[SL_OCC_LIMIT_BLOCKS], invalid,
                  mismatches);
  g_assert_cmpuint (mismatches, ==, 0);
  /* The generator must reach every outcome, or the comparison proves little. */
  for (gint f = SL_OCC_LIMIT_WARPS; f <= SL_OCC_LIMIT_BLOCKS; f++)
    g_assert_cmpuint (by_limit[f], >, 100);
  g_assert_cmpuint (invalid, >, 100);
}

#else /* !SL_OCCUPANCY_ORACLE */

static void
test_oracle (void)
{
  g_test_skip ("no C++ compiler or no cuda_occupancy.h at configure time: oracle not built");
}

#endif

/* ---- against Kineto's figures in real PyTorch traces ------------------------------------- */

/*
 * What Kineto's "est. achieved occupancy %" is (libkineto's ChromeTraceLogger and
 * kernelOccupancy(), confirmed by every kernel below):
 *
 *   blocks   = grid_blocks / numSms                         (a float, not rounded up:
 *                                                            it is also the "blocks per SM" arg)
 *   B        = cudaOccMaxActiveBlocksPerMultiprocessor (...)  with FUNC_SHMEM_LIMIT_DEFAULT,
 *              so a kernel with more than 48 KiB of shared memory gets 0
 *   figure   = (int) (0.5 + 100 * min (B, blocks) * threads_per_block
 *                                 / maxThreadsPerMultiprocessor)
 *
 * i.e. theoretical occupancy capped by the grid's average blocks per SM, counted in threads
 * rather than whole warps, rounded half up, all in single precision (so an exact .5 can come
 * out one lower).  Kineto takes the reserved 1 KiB a block from the
 * runtime's cudaDeviceProp; the trace's deviceProperties do not carry it, we know it from cc.
 */

/* A kernel of a trace without deviceProperties. */
typedef struct
{
  gint64 grid;
  gint   threads;
  gint   regs;
  gint64 smem;
  gint   figure;
  double blocks_arg;
} KinetoKernel;

typedef struct
{
  GArray *undescribed;  /* of KinetoKernel */
  guint kernels;        /* kernel events with launch configuration and occupancy */
  guint matched;
  guint no_device;      /* no deviceProperties for their device: nothing to compute from */
  guint optin;          /* > 48 KiB shared memory: Kineto says 0, Sightline says more */
  guint float_ties;     /* exactly at .5 in double, below it in Kineto's float */
} KinetoCounts;

static double
member_number (JsonObject *obj,
               const char *name,
               gboolean   *ok)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    {
      *ok = FALSE;
      return 0;
    }
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return (double) json_node_get_int (node);
    case G_TYPE_DOUBLE:
      return json_node_get_double (node);
    default:
      *ok = FALSE;
      return 0;
    }
}

/* Product of a [x, y, z] member; 0 when it is missing or malformed. */
static gint64
member_dim3 (JsonObject *obj,
             const char *name)
{
  JsonNode *node = json_object_get_member (obj, name);
  JsonArray *a;
  gint64 product = 1;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return 0;
  a = json_node_get_array (node);
  if (json_array_get_length (a) != 3)
    return 0;
  for (guint i = 0; i < 3; i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_INT64)
        return 0;
      product *= json_node_get_int (e);
    }
  return product;
}

static JsonNode *
load_gz_json (const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (GFileInputStream) raw = g_file_read (file, NULL, &error);
  g_autoptr (GZlibDecompressor) gunzip = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();

  g_assert_no_error (error);
  gunzip = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  stream = g_converter_input_stream_new (G_INPUT_STREAM (raw), G_CONVERTER (gunzip));
  json_parser_load_from_stream (parser, stream, NULL, &error);
  g_assert_no_error (error);
  return json_node_ref (json_parser_get_root (parser));
}

/* Kineto's figure for one kernel on `l`, in its single-precision arithmetic. */
static gint
kineto_percent (const SlGpuLimits *l,
                gint64             grid,
                gint               threads,
                gint               regs,
                gint64             smem)
{
  SlOccupancy o;
  float blocks;

  sl_occupancy_compute_full (l, threads, regs, smem, SL_OCC_FLAG_NO_OPTIN, &o);
  blocks = MIN ((float) o.blocks_per_sm, (float) grid / (float) l->sm_count);
  return (gint) (0.5 + blocks * (float) threads / (float) (o.max_warps_per_sm * l->warp_size)
                       * 100.0);
}

static void
check_kineto_file (const char   *path,
                   KinetoCounts *counts)
{
  g_autoptr (JsonNode) root = load_gz_json (path);
  g_autoptr (GHashTable) devices = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  JsonObject *top;
  JsonArray *events, *props;
  guint mismatches = 0, before = counts->kernels, matched_before = counts->matched;

  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  top = json_node_get_object (root);

  props = json_object_has_member (top, "deviceProperties")
          ? json_object_get_array_member (top, "deviceProperties") : NULL;
  for (guint i = 0; props != NULL && i < json_array_get_length (props); i++)
    {
      JsonObject *p = json_array_get_object_element (props, i);
      SlGpuLimits *l = g_new0 (SlGpuLimits, 1);
      gboolean ok = TRUE;
      gint id = (gint) member_number (p, "id", &ok);

      l->cc_major = (gint) member_number (p, "computeMajor", &ok);
      l->cc_minor = (gint) member_number (p, "computeMinor", &ok);
      l->sm_count = (gint) member_number (p, "numSms", &ok);
      l->warp_size = (gint) member_number (p, "warpSize", &ok);
      l->max_threads_per_block = (gint) member_number (p, "maxThreadsPerBlock", &ok);
      l->max_warps_per_sm = (gint) member_number (p, "maxThreadsPerMultiprocessor", &ok)
                            / MAX (l->warp_size, 1);
      l->max_regs_per_block = (gint) member_number (p, "regsPerBlock", &ok);
      l->max_regs_per_sm = (gint) member_number (p, "regsPerMultiprocessor", &ok);
      l->max_smem_per_block = (gint) member_number (p, "sharedMemPerBlock", &ok);
      l->max_smem_per_sm = (gint) member_number (p, "sharedMemPerMultiprocessor", &ok);
      l->max_smem_per_block_optin = (gint) member_number (p, "sharedMemPerBlockOptin", &ok);
      g_assert_true (ok);
      /* Block slots are not in deviceProperties. */
      g_assert_true (sl_gpu_limits_complete (l));
      g_hash_table_insert (devices, GINT_TO_POINTER (id), l);
    }

  events = json_object_get_array_member (top, "traceEvents");
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      JsonObject *args;
      const SlGpuLimits *l;
      gint64 grid, threads;
      gint regs, figure, device;
      double smem, blocks_arg, warps_arg, est;
      gboolean ok = TRUE;
      SlOccupancy o;

      if (g_strcmp0 (json_object_get_string_member_with_default (ev, "cat", ""), "kernel") != 0
          || !json_object_has_member (ev, "args"))
        continue;
      args = json_object_get_object_member (ev, "args");
      grid = member_dim3 (args, "grid");
      threads = member_dim3 (args, "block");
      regs = (gint) member_number (args, "registers per thread", &ok);
      smem = member_number (args, "shared memory", &ok);
      blocks_arg = member_number (args, "blocks per SM", &ok);
      warps_arg = member_number (args, "warps per SM", &ok);
      figure = (gint) member_number (args, "est. achieved occupancy %", &ok);
      device = (gint) member_number (args, "device", &ok);
      if (!ok || grid <= 0 || threads <= 0)
        continue;

      counts->kernels++;
      l = g_hash_table_lookup (devices, GINT_TO_POINTER (device));
      if (l == NULL)
        {
          KinetoKernel k = { grid, (gint) threads, regs, (gint64) smem, figure, blocks_arg };
          g_array_append_val (counts->undescribed, k);
          counts->no_device++;
          continue;
        }

      /* The other two figures Kineto prints are the grid spread over the SMs, uncapped. */
      g_assert_cmpfloat_with_epsilon (blocks_arg, (double) grid / l->sm_count,
                                      1e-6 * MAX (1.0, blocks_arg));
      g_assert_cmpfloat_with_epsilon (warps_arg, (double) grid / l->sm_count * threads / 32,
                                      1e-6 * MAX (1.0, warps_arg));

      sl_occupancy_compute_full (l, (gint) threads, regs, (gint64) smem, SL_OCC_FLAG_NO_OPTIN, &o);
      est = sl_occupancy_estimated_achieved (l, &o, grid, (gint) threads);

      /* Kineto works in single precision: grid / numSms = 7.2 becomes 7.1999998 and an exact
       * 22.5 % is printed as 22.  Redo its arithmetic to compare figure for figure, and hold
       * our double to the figure's rounding. */
      if (kineto_percent (l, grid, (gint) threads, regs, (gint64) smem) == figure
          && fabs (est * 100.0 - figure) <= 0.5 + 1e-4)
        counts->matched++;
      else if (mismatches++ < 10)
        g_printerr ("# %s: grid %" G_GINT64_FORMAT " block %" G_GINT64_FORMAT " regs %d smem %.0f:"
                    " Kineto %d %%, ours %.4f %% (%d blocks/SM by %s)\n",
                    path, grid, threads, regs, smem, figure, est * 100, o.blocks_per_sm,
                    sl_occupancy_limit_name (o.limit));
      if ((gint) (0.5 + est * 100.0) != figure)
        counts->float_ties++;

      if (smem > l->max_smem_per_block)
        {
          SlOccupancy with_optin;
          g_assert_cmpint (figure, ==, 0);
          if (sl_occupancy_compute (l, (gint) threads, regs, (gint64) smem, &with_optin))
            counts->optin++;
        }
    }
  g_test_message ("%s: %u kernels, %u matched", path, counts->kernels - before,
                  counts->matched - matched_before);
}

/* Which compute capabilities reproduce every figure of the traces without deviceProperties,
 * with the SM count read back from "blocks per SM" (= grid / numSms)?  A GPU must exist that
 * does, or the model is wrong; a bitmask over known_ccs. */
static guint32
undescribed_ccs (GArray *kernels)
{
  guint32 fits = 0;

  for (gsize c = 0; c < G_N_ELEMENTS (known_ccs); c++)
    {
      SlGpuLimits l = limits_for (known_ccs[c][0], known_ccs[c][1]);
      gboolean all = TRUE;

      for (guint i = 0; i < kernels->len && all; i++)
        {
          const KinetoKernel *k = &g_array_index (kernels, KinetoKernel, i);

          l.sm_count = (gint) lround (k->grid / k->blocks_arg);
          all = kineto_percent (&l, k->grid, k->threads, k->regs, k->smem) == k->figure;
        }
      if (all)
        fits |= 1u << c;
    }
  return fits;
}

static void
test_kineto (void)
{
  g_autofree char *dir = sl_test_trace_path ("pytorch");
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) undescribed = g_array_new (FALSE, FALSE, sizeof (KinetoKernel));
  KinetoCounts counts = { 0 };
  g_autoptr (GString) fitting = g_string_new (NULL);
  guint32 fits;
  const char *name;

  counts.undescribed = undescribed;
  if (d == NULL)
    {
      g_test_skip ("no PyTorch traces");
      return;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".json.gz"))
      g_ptr_array_add (files, g_build_filename (dir, name, NULL));
  g_assert_cmpuint (files->len, >, 0);

  for (guint i = 0; i < files->len; i++)
    check_kineto_file (g_ptr_array_index (files, i), &counts);

  g_test_message ("%u Kineto kernels; %u matched; %u on a device without deviceProperties "
                  "(trace_filter_sampled_*: checked by fit below); %u opted in to > 48 KiB "
                  "shared memory (Kineto 0 %%, Sightline > 0); %u rounded down by Kineto's "
                  "float from an exact .5",
                  counts.kernels, counts.matched, counts.no_device, counts.optin,
                  counts.float_ties);
  g_assert_cmpuint (counts.matched + counts.no_device, ==, counts.kernels);

  fits = undescribed_ccs (undescribed);
  for (gsize c = 0; c < G_N_ELEMENTS (known_ccs); c++)
    if (fits & (1u << c))
      g_string_append_printf (fitting, " %d.%d", known_ccs[c][0], known_ccs[c][1]);
  g_test_message ("the %u kernels without deviceProperties fit compute capabilities:%s",
                  undescribed->len, fitting->str);
  if (undescribed->len > 0)
    g_assert_cmpuint (fits, !=, 0);
  /* The traces hold about 17 000 such kernels with devices described; a reader that found
   * none would pass the line above trivially. */
  g_assert_cmpuint (counts.matched, >, 10000);
}

/* ---- library kernels by name ------------------------------------------------------------- */

/* Names as the real traces in ../shared/traces spell them (nsys demangledName, Kineto name). */
static void
test_kernel_library (void)
{
  static const struct { const char *name; SlKernelLibrary want; } cases[] = {
    { "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)",
      SL_KERNEL_LIBRARY_NCCL },
    { "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
      SL_KERNEL_LIBRARY_NCCL },
    { "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>"
      "(cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)", SL_KERNEL_LIBRARY_BLAS },
    { "void cutlass::Kernel2<cutlass_80_tensorop_d884gemm_64x64_16x4_nn_align1>(T1::Params)",
      SL_KERNEL_LIBRARY_BLAS },
    { "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x256x8_stage3_warpsize1x4x1_ffma_aligna4_"
      "alignc4_execute_kernel__5x_cublas", SL_KERNEL_LIBRARY_BLAS },
    { "nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN", SL_KERNEL_LIBRARY_BLAS },
    { "ampere_sgemm_32x32_sliced1x4_tn", SL_KERNEL_LIBRARY_BLAS },
    { "volta_sgemm_64x64_nt", SL_KERNEL_LIBRARY_BLAS },
    { "void nrm2_kernel<double, double, double, (int)0, (int)0, (int)128>(cublasNrm2Params<int, "
      "T1, T3>)", SL_KERNEL_LIBRARY_BLAS },
    { "void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams"
      "<float>, float const*, float const*, float*, float const*)", SL_KERNEL_LIBRARY_BLAS },
    { "sm80_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize128x128x32_stage4_"
      "warpsize2x2x1_g1_tensor16x8x16_t1r3s3_aACCESS_execute_kernel_trt", SL_KERNEL_LIBRARY_DNN },
    { "void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_args"
      "<float>)", SL_KERNEL_LIBRARY_DNN },
    { "void fft2d_r2c_32x32<float, false, 5u, true>(float2*, float const*, int, int, int, int, "
      "int, int, int, int, int, cudnn::reduced_divisor, bool)", SL_KERNEL_LIBRARY_DNN },
    { "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<(int)128, (int)128, (int)64, (int)4, "
      "(bool)0, (bool)0, cutlass::bfloat16_t>>(Flash_fwd_params)", SL_KERNEL_LIBRARY_ATTENTION },
    { "fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::"
      "half_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
      SL_KERNEL_LIBRARY_ATTENTION },
    { "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>, "
      "std::array<char *, (unsigned long)3>>(int, T2, T3)", SL_KERNEL_LIBRARY_PYTORCH },
    { "void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, "
      "at::native::MeanOps<float, float, float, float>, unsigned int, float, (int)4>>(T3)",
      SL_KERNEL_LIBRARY_PYTORCH },
    /* the users' own: a "gemm" in the name is not cuBLAS */
    { "naive_gemm(const float *, const float *, float *, int, int, int)", SL_KERNEL_LIBRARY_NONE },
    { "tiled_gemm", SL_KERNEL_LIBRARY_NONE },
    { "attention_fwd_kernel", SL_KERNEL_LIBRARY_NONE },
    { "__omp_offloading_31_18a80bc__Z_2", SL_KERNEL_LIBRARY_NONE },
    { "<unnamed>::nvfuser_none_f0_c0_r0_g0(<unnamed>::Tensor<<unnamed>::__half, (int)3, (int)3>)",
      SL_KERNEL_LIBRARY_NONE },
    { "", SL_KERNEL_LIBRARY_NONE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("%s", cases[i].name);
      g_assert_cmpint (sl_kernel_library (cases[i].name), ==, cases[i].want);
    }
  g_assert_cmpint (sl_kernel_library (NULL), ==, SL_KERNEL_LIBRARY_NONE);
  g_assert_null (sl_kernel_library_name (SL_KERNEL_LIBRARY_NONE));
  g_assert_cmpstr (sl_kernel_library_name (SL_KERNEL_LIBRARY_NCCL), ==, "NCCL");
  g_assert_cmpstr (sl_kernel_library_name (SL_KERNEL_LIBRARY_BLAS), ==, "cuBLAS/CUTLASS");
}

/* ---- waves ------------------------------------------------------------------------------- */

/* The case: 40 blocks on 28 SMs at one block per SM. */
static void
test_waves_example (void)
{
  SlGpuLimits l = limits_for (7, 5);
  const guint32 grid[3] = { 40, 1, 1 }, huge[3] = { G_MAXUINT32, G_MAXUINT32, G_MAXUINT32 };
  SlWaves w;

  l.sm_count = 28;
  g_assert_true (sl_occupancy_waves (&l, 1, sl_grid_blocks (grid), &w));
  g_assert_cmpint (w.slots, ==, 28);
  g_assert_cmpint (w.n_waves, ==, 2);
  g_assert_cmpfloat_with_epsilon (w.waves, 40.0 / 28.0, 1e-12);
  g_assert_cmpint (w.last_blocks, ==, 12);
  g_assert_cmpint (w.last_sms, ==, 12);
  g_assert_cmpfloat_with_epsilon (w.last_fill, 12.0 / 28.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (w.tail, 16.0 / 28.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (w.idle, 16.0 / 56.0, 1e-12);
  {
    g_autofree char *text = sl_occupancy_waves_format (&w);
    g_assert_cmpstr (text, ==, "1.43 (last wave 43 % full)");
  }
  /* a whole number of waves leaves nothing empty */
  g_assert_true (sl_occupancy_waves (&l, 2, 112, &w));
  g_assert_cmpint (w.n_waves, ==, 2);
  g_assert_cmpint (w.last_blocks, ==, 56);
  g_assert_cmpfloat (w.tail, ==, 0.0);
  g_assert_cmpfloat (w.idle, ==, 0.0);
  /* under one wave: the only wave is the last */
  g_assert_true (sl_occupancy_waves (&l, 1, 7, &w));
  g_assert_cmpint (w.n_waves, ==, 1);
  g_assert_cmpint (w.last_sms, ==, 7);
  g_assert_cmpfloat_with_epsilon (w.idle, 0.75, 1e-12);
  /* several blocks per SM: 40 blocks in 112 slots keep all 28 SMs busy, none idle */
  g_assert_true (sl_occupancy_waves (&l, 4, 40, &w));
  g_assert_cmpint (w.n_waves, ==, 1);
  g_assert_cmpfloat_with_epsilon (w.tail, 72.0 / 112.0, 1e-12);
  g_assert_cmpint (w.last_sms, ==, 28);
  g_assert_cmpfloat (w.idle, ==, 0.0);
  /* one block of a 1296-slot wave (nrm2_kernel on an A100, a real trace): digits that show */
  {
    SlGpuLimits a100 = limits_for (8, 0);
    g_autofree char *one = NULL, *nccl = NULL;

    a100.sm_count = 108;
    g_assert_true (sl_occupancy_waves (&a100, 12, 1, &w));
    one = sl_occupancy_waves_format (&w);
    g_assert_cmpstr (one, ==, "0.00077 (last wave < 1 % full)");
    g_assert_true (sl_occupancy_waves (&a100, 1, 13, &w));
    nccl = sl_occupancy_waves_format (&w);
    g_assert_cmpstr (nccl, ==, "0.12 (last wave 12 % full)");
  }
  /* unknown SM count, no blocks: nothing */
  g_assert_false (sl_occupancy_waves (&l, 0, 40, &w));
  g_assert_false (sl_occupancy_waves (&l, 1, 0, &w));
  g_assert_cmpint (w.n_waves, ==, 0);
  l.sm_count = 0;
  g_assert_false (sl_occupancy_waves (&l, 1, 40, &w));
  /* absurd grids from a file neither overflow nor lose the last wave */
  g_assert_cmpint (sl_grid_blocks (huge), ==, G_MAXINT64);
  l.sm_count = 132;
  g_assert_true (sl_occupancy_waves (&l, 32, G_MAXINT64, &w));
  g_assert_cmpint (w.n_waves, ==, G_MAXINT64 / (132 * 32) + 1);
  g_assert_cmpint (w.last_blocks, ==, G_MAXINT64 % (132 * 32));
  g_assert_cmpfloat (w.idle, >=, 0.0);
}

/* Against a brute-force count: blocks handed one by one to the SM holding the fewest (as the
 * block scheduler spreads them), SMs holding blocks_per_sm each, a wave ending when every slot is
 * taken (all blocks alike). */
static void
test_waves_brute (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (sl_test_seed ());
  SlGpuLimits l = limits_for (9, 0);

  /* ~10^8 steps in all: 1000 grids of up to 5000 blocks over up to 160 SMs */
  for (guint i = 0; i < 1000; i++)
    {
      gint sms = g_rand_int_range (rand, 1, 160), bps = g_rand_int_range (rand, 1, 33);
      gint64 grid = g_rand_int_range (rand, 1, i % 10 == 0 ? 50 : 5000);
      g_autofree gint *used = g_new0 (gint, sms);
      gint64 waves = 0, in_wave = 0, empty = 0, busy = 0;
      SlWaves w;

      for (gint64 b = 0; b < grid; b++)
        {
          gint sm = 0;
          for (gint k = 1; k < sms; k++)
            if (used[k] < used[sm])
              sm = k;
          if (used[sm] == bps || b == 0)
            {
              /* every slot taken (or the first block): a new wave */
              memset (used, 0, sizeof (gint) * sms);
              waves++;
              in_wave = 0;
              sm = 0;
            }
          used[sm]++;
          in_wave++;
        }
      for (gint sm = 0; sm < sms; sm++)
        {
          empty += bps - used[sm];
          busy += used[sm] > 0;
        }

      l.sm_count = sms;
      g_assert_true (sl_occupancy_waves (&l, bps, grid, &w));
      g_assert_cmpint (w.slots, ==, (gint64) sms * bps);
      g_assert_cmpint (w.n_waves, ==, waves);
      g_assert_cmpint (w.last_blocks, ==, in_wave);
      g_assert_cmpfloat_with_epsilon (w.waves, (double) grid / (double) w.slots, 1e-9);
      g_assert_cmpfloat_with_epsilon (w.tail, (double) empty / (double) w.slots, 1e-12);
      g_assert_cmpint (w.last_sms, ==, busy);
      g_assert_cmpfloat_with_epsilon (w.idle, (double) (sms - busy) / (double) (waves * sms),
                                      1e-12);
      if (bps == 1)
        g_assert_cmpfloat_with_epsilon (w.idle, (double) empty / (double) (waves * w.slots),
                                        1e-12);
      g_assert_cmpfloat (w.last_fill, >, 0.0);
      g_assert_cmpfloat (w.last_fill, <=, 1.0);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/model/occupancy/units/a100", test_units_a100);
  g_test_add_func ("/model/occupancy/units/other-archs", test_units_other_archs);
  g_test_add_func ("/model/occupancy/limits-tables", test_limits_tables);
  g_test_add_func ("/model/occupancy/estimated-achieved", test_estimated_achieved);
  g_test_add_func ("/model/occupancy/oracle", test_oracle);
  g_test_add_func ("/model/occupancy/kineto", test_kineto);
  g_test_add_func ("/model/occupancy/waves/example", test_waves_example);
  g_test_add_func ("/model/occupancy/waves/brute", test_waves_brute);
  g_test_add_func ("/model/occupancy/kernel-library", test_kernel_library);

  return g_test_run ();
}
