// tests/gpu/metrics.cu: GPU work for `sightline record --gpu-metrics` (tests/gpu/run.sh checks
// the trace's GPU_METRICS).
//
// What it does, on every GPU in turn: 100 ms idle, then one kernel that keeps every SM busy
// (four blocks of 256 threads per SM spinning on clock64) for about 300 ms, then 100 ms idle.
// At nsys's default 10 kHz that is ~3000 samples of the kernel per GPU, SMs Active near 100 %
// during it.  Prints "METRICS key value" lines for run.sh.
#include <cstdio>
#include <unistd.h>

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
spin_kernel (long long cycles, int *sink)
{
  long long start = clock64 ();
  int x = threadIdx.x;

  while (clock64 () - start < cycles)
    x = x * 1664525 + 1013904223;
  if (x == 42)
    *sink = x; // never, but the compiler cannot know
}

int
main ()
{
  int devices = 0;

  CHECK (cudaGetDeviceCount (&devices));
  std::printf ("METRICS devices %d\n", devices);
  for (int d = 0; d < devices; d++)
    {
      int sms = 0, khz = 0;
      int *sink = nullptr;

      CHECK (cudaSetDevice (d));
      CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, d));
      CHECK (cudaDeviceGetAttribute (&khz, cudaDevAttrClockRate, d));
      CHECK (cudaMalloc (&sink, sizeof *sink));
      CHECK (cudaDeviceSynchronize ());
      usleep (100000);
      spin_kernel<<<sms * 4, 256>>> ((long long) khz * 300, sink);
      CHECK (cudaGetLastError ());
      CHECK (cudaDeviceSynchronize ());
      usleep (100000);
      CHECK (cudaFree (sink));
      std::printf ("METRICS spun %d %d\n", d, sms);
    }
  std::fflush (stdout);
  return 0;
}
