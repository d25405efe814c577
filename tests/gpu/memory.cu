// tests/gpu/memory.cu: GPU memory for `sightline record --cuda-memory-usage
// --cuda-um-cpu-page-faults --cuda-um-gpu-page-faults` (tests/gpu/run.sh checks the trace).
//
// What it does: cudaMalloc a (8 MiB) and b (1 MiB), a cudaMemset of a, cudaFree a (b is freed
// at the end); cudaMallocManaged m (16 MiB) written by the host first (CPU page faults, no
// migration: the pages were untouched), then by a kernel (GPU page faults, host-to-device
// migrations), then read back by the host page by page (CPU faults, device-to-host migrations),
// then, where the GPU can (concurrentManagedAccess), prefetched to the GPU (migrations caused by
// the user's prefetch); cudaFree m and b.  Prints "MEMORY key value" lines for run.sh.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CHECK(call)                                                                                \
  do                                                                                               \
    {                                                                                              \
      cudaError_t e_ = (call);                                                                     \
      if (e_ != cudaSuccess)                                                                       \
        {                                                                                          \
          std::fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                    \
                        cudaGetErrorString (e_));                                                  \
          return 1;                                                                                \
        }                                                                                          \
    }                                                                                              \
  while (0)

__global__ void
touch_kernel (float *p, size_t n)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    p[i] += 1.0f;
}

int
main ()
{
  const size_t a_bytes = 8u << 20, b_bytes = 1u << 20, m_bytes = 16u << 20;
  const size_t n = m_bytes / sizeof (float);
  cudaDeviceProp prop;
  float *a = nullptr, *b = nullptr, *m = nullptr;
  int dev = 0;

  CHECK (cudaSetDevice (dev));
  CHECK (cudaGetDeviceProperties (&prop, dev));
  CHECK (cudaMalloc (&a, a_bytes));
  CHECK (cudaMalloc (&b, b_bytes));
  CHECK (cudaMemset (a, 0, a_bytes));
  CHECK (cudaDeviceSynchronize ());
  CHECK (cudaFree (a));

  CHECK (cudaMallocManaged (&m, m_bytes));
  for (size_t i = 0; i < n; i++) // first touch on the host
    m[i] = 1.0f;
  touch_kernel<<<prop.multiProcessorCount * 4, 256>>> (m, n);
  CHECK (cudaGetLastError ());
  CHECK (cudaDeviceSynchronize ());
  double sum = 0;
  for (size_t i = 0; i < n; i += 4096 / sizeof (float)) // one read a 4 KiB page
    sum += m[i];
  int prefetched = 0;
  if (prop.concurrentManagedAccess)
    {
#if CUDART_VERSION >= 13000
      cudaMemLocation to = {};
      to.type = cudaMemLocationTypeDevice;
      to.id = dev;
      CHECK (cudaMemPrefetchAsync (m, m_bytes, to, 0, 0));
#else
      CHECK (cudaMemPrefetchAsync (m, m_bytes, dev, 0));
#endif
      CHECK (cudaDeviceSynchronize ());
      prefetched = 1;
    }
  CHECK (cudaFree (m));
  CHECK (cudaFree (b));

  std::printf ("MEMORY a %llu\n", (unsigned long long) (size_t) a);
  std::printf ("MEMORY b %llu\n", (unsigned long long) (size_t) b);
  std::printf ("MEMORY m %llu\n", (unsigned long long) (size_t) m);
  std::printf ("MEMORY a_bytes %zu\n", a_bytes);
  std::printf ("MEMORY b_bytes %zu\n", b_bytes);
  std::printf ("MEMORY m_bytes %zu\n", m_bytes);
  std::printf ("MEMORY pages_read %zu\n", m_bytes / 4096);
  std::printf ("MEMORY concurrent_managed %d\n", prop.concurrentManagedAccess);
  std::printf ("MEMORY prefetched %d\n", prefetched);
  std::printf ("MEMORY sum %.0f\n", sum);
  return 0;
}
