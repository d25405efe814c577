// oracle.cc: answers occupancy queries with NVIDIA's cuda_occupancy.h, for tests/test-occupancy.c.
//
// One query per input line, twelve device fields then four launch fields:
//   major minor maxThreadsPerBlock maxThreadsPerSM regsPerBlock regsPerSM warpSize
//   smemPerBlock smemPerSM numSms smemPerBlockOptin reservedSmemPerBlock
//   blockSize regsPerThread smemBytes optin(0|1)
// and one answer line each:
//   status activeBlocks limitingFactors blockLimitWarps blockLimitRegs blockLimitSharedMem
//   blockLimitBlocks allocatedRegistersPerBlock allocatedSharedMemPerBlock
// The whole shared memory is passed as static; with no dynamic part the split does not matter.
#include <cuda_occupancy.h>

#include <cstdio>

int
main ()
{
  int major, minor, max_threads_per_block, max_threads_per_sm, regs_per_block, regs_per_sm;
  int warp_size, sm_count, block_size, regs, optin;
  long long smem_per_block, smem_per_sm, smem_optin, reserved, smem;

  while (std::scanf ("%d %d %d %d %d %d %d %lld %lld %d %lld %lld %d %d %lld %d",
                     &major, &minor, &max_threads_per_block, &max_threads_per_sm,
                     &regs_per_block, &regs_per_sm, &warp_size, &smem_per_block, &smem_per_sm,
                     &sm_count, &smem_optin, &reserved, &block_size, &regs, &smem, &optin)
         == 16)
    {
      cudaOccDeviceProp prop;
      cudaOccFuncAttributes attr;
      cudaOccDeviceState state;
      cudaOccResult result = {};
      cudaOccError status;

      prop.computeMajor = major;
      prop.computeMinor = minor;
      prop.maxThreadsPerBlock = max_threads_per_block;
      prop.maxThreadsPerMultiprocessor = max_threads_per_sm;
      prop.regsPerBlock = regs_per_block;
      prop.regsPerMultiprocessor = regs_per_sm;
      prop.warpSize = warp_size;
      prop.sharedMemPerBlock = (size_t) smem_per_block;
      prop.sharedMemPerMultiprocessor = (size_t) smem_per_sm;
      prop.numSms = sm_count;
      prop.sharedMemPerBlockOptin = (size_t) smem_optin;
      prop.reservedSharedMemPerBlock = (size_t) reserved;

      // What the CUDA runtime's conversion from cudaFuncAttributes gives a real kernel.
      attr.maxThreadsPerBlock = max_threads_per_block;
      attr.numRegs = regs;
      attr.sharedSizeBytes = (size_t) smem;
      attr.partitionedGCConfig = PARTITIONED_GC_OFF;
      attr.shmemLimitConfig = optin ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
      attr.maxDynamicSharedSizeBytes = 0;
      attr.numBlockBarriers = 1;
      attr.virtualResourceCount = 0;

      status = cudaOccMaxActiveBlocksPerMultiprocessor (&result, &prop, &attr, &state,
                                                        block_size, 0);
      std::printf ("%d %d %u %d %d %d %d %d %zu\n", (int) status,
                   result.activeBlocksPerMultiprocessor, result.limitingFactors,
                   result.blockLimitWarps, result.blockLimitRegs, result.blockLimitSharedMem,
                   result.blockLimitBlocks, result.allocatedRegistersPerBlock,
                   result.allocatedSharedMemPerBlock);
    }
  return 0;
}
