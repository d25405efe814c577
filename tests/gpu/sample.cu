// sample.cu: a small CUDA program of known shape that tests/gpu/run.sh records and checks: two
// kernels of known launch configuration on two streams, pageable and pinned copies both ways of
// known sizes, a memset, stream and device synchronization, NVTX push/pop ranges.  It prints
// what the trace must agree with ("SAMPLE key value" lines: registers and static shared memory
// as the compiler chose them, the device's properties) before doing the work.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#define CHECK(call)                                                                                \
  do                                                                                               \
    {                                                                                              \
      cudaError_t err_ = (call);                                                                   \
      if (err_ != cudaSuccess)                                                                     \
        {                                                                                          \
          fprintf (stderr, "sample: %s: %s\n", #call, cudaGetErrorString (err_));                  \
          exit (2);                                                                                \
        }                                                                                          \
    }                                                                                              \
  while (0)

constexpr int kIterations = 10;
constexpr int kScaleGrid = 64, kScaleBlock = 256; // scale_kernel<<<64, 256>>>
constexpr int kN = kScaleGrid * kScaleBlock;      // 16384 floats
constexpr int kSumGrid = 13, kSumBlock = 96;      // shared_sum_kernel<4><<<13, 96, 4 KiB>>>
constexpr size_t kSumDynamicShared = 4096;
constexpr size_t kPageableBytes = 1 << 20; // cudaMemcpy from/to malloc'd memory
constexpr size_t kPinnedBytes = 2 << 20;   // cudaMemcpyAsync from/to cudaMallocHost'd memory
constexpr size_t kMemsetBytes = kN * sizeof (float);

// mangled _Z12scale_kernelPffi: "scale_kernel(float *, float, int)" in nsys's spelling
__global__ void
scale_kernel (float *x,
              float  a,
              int    n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] * a + 1.0f;
}

// mangled _Z17shared_sum_kernelILi4EEvPKfPfi:
// "void shared_sum_kernel<(int)4>(const float *, float *, int)"
template <int N>
__global__ void
shared_sum_kernel (const float *x,
                   float       *out,
                   int          n)
{
  extern __shared__ float buf[]; // kSumDynamicShared bytes, one float a thread used
  __shared__ float partial[32];  // 128 bytes of static shared memory
  int tid = threadIdx.x;
  float acc = 0.0f;

  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x)
    acc += x[i] * N;
  buf[tid] = acc;
  __syncthreads ();
  if (tid < 32)
    {
      float s = 0.0f;
      for (int j = tid; j < blockDim.x; j += 32)
        s += buf[j];
      partial[tid] = s;
    }
  __syncthreads ();
  if (tid == 0)
    {
      float s = 0.0f;
      for (int j = 0; j < 32; j++)
        s += partial[j];
      out[blockIdx.x] = s;
    }
}

int
main (void)
{
  cudaDeviceProp prop;
  cudaFuncAttributes scale_attr, sum_attr;

  CHECK (cudaSetDevice (0));
  CHECK (cudaGetDeviceProperties (&prop, 0));
  CHECK (cudaFuncGetAttributes (&scale_attr, scale_kernel));
  CHECK (cudaFuncGetAttributes (&sum_attr, shared_sum_kernel<4>));
  printf ("SAMPLE sm_count %d\n", prop.multiProcessorCount);
  printf ("SAMPLE cc %d.%d\n", prop.major, prop.minor);
  printf ("SAMPLE optin %zu\n", prop.sharedMemPerBlockOptin);
  printf ("SAMPLE shmem_per_sm %zu\n", prop.sharedMemPerMultiprocessor);
  printf ("SAMPLE bus %04x:%02x:%02x.0\n", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
  printf ("SAMPLE scale_regs %d\n", scale_attr.numRegs);
  printf ("SAMPLE scale_static %zu\n", scale_attr.sharedSizeBytes);
  printf ("SAMPLE sum_regs %d\n", sum_attr.numRegs);
  printf ("SAMPLE sum_static %zu\n", sum_attr.sharedSizeBytes);
  printf ("SAMPLE name %s\n", prop.name);
  fflush (stdout);

  nvtxRangePushA ("setup");
  cudaStream_t s1, s2;
  CHECK (cudaStreamCreateWithFlags (&s1, cudaStreamNonBlocking)); // ENUM_CUPTI_STREAM_TYPE 2
  CHECK (cudaStreamCreate (&s2));                                 // 1: default (blocking)
  float *d_x, *d_y, *d_out, *h_pinned;
  CHECK (cudaMalloc (&d_x, kPinnedBytes));
  CHECK (cudaMalloc (&d_y, kMemsetBytes));
  CHECK (cudaMalloc (&d_out, kSumGrid * sizeof (float)));
  CHECK (cudaMallocHost (&h_pinned, kPinnedBytes));
  float *h_pageable = static_cast<float *> (malloc (kPageableBytes));
  if (h_pageable == nullptr)
    return 2;
  for (size_t i = 0; i < kPageableBytes / sizeof (float); i++)
    h_pageable[i] = 1.0f;
  for (size_t i = 0; i < kPinnedBytes / sizeof (float); i++)
    h_pinned[i] = 2.0f;
  // HtoD pageable, then pinned
  CHECK (cudaMemcpy (d_x, h_pageable, kPageableBytes, cudaMemcpyHostToDevice));
  CHECK (cudaMemcpyAsync (d_x, h_pinned, kPinnedBytes, cudaMemcpyHostToDevice, s1));
  CHECK (cudaMemsetAsync (d_y, 0, kMemsetBytes, s2));
  CHECK (cudaStreamSynchronize (s1)); // SYNCHRONIZATION: stream sync (3)
  CHECK (cudaStreamSynchronize (s2));
  nvtxRangePop ();

  for (int it = 0; it < kIterations; it++)
    {
      nvtxRangePushA ("iteration");
      scale_kernel<<<kScaleGrid, kScaleBlock, 0, s1>>> (d_x, 1.0001f, kN);
      shared_sum_kernel<4><<<kSumGrid, kSumBlock, kSumDynamicShared, s2>>> (d_y, d_out, kN);
      CHECK (cudaGetLastError ());
      nvtxRangePop ();
    }
  CHECK (cudaDeviceSynchronize ()); // SYNCHRONIZATION: context sync (4)

  nvtxRangePushA ("download");
  // DtoH pageable, then pinned
  CHECK (cudaMemcpy (h_pageable, d_x, kPageableBytes, cudaMemcpyDeviceToHost));
  CHECK (cudaMemcpyAsync (h_pinned, d_x, kPinnedBytes, cudaMemcpyDeviceToHost, s2));
  CHECK (cudaStreamSynchronize (s2));
  nvtxRangePop ();
  printf ("SAMPLE checksum %.3f %.3f\n", h_pageable[0], h_pinned[kN - 1]);

  CHECK (cudaStreamDestroy (s1));
  CHECK (cudaStreamDestroy (s2));
  CHECK (cudaFree (d_x));
  CHECK (cudaFree (d_y));
  CHECK (cudaFree (d_out));
  CHECK (cudaFreeHost (h_pinned));
  free (h_pageable);
  return 0;
}
