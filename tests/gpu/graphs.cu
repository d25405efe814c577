// tests/gpu/graphs.cu: a CUDA graph and CUDA events for tests/gpu/run.sh.  A graph of three
// kernels is captured from stream s1 and launched GRAPHS_LAUNCHES times; then s2 waits for s1
// through an event (cudaStreamWaitEvent), runs a kernel, and the host waits for s2 through a second
// event (cudaEventSynchronize).  Prints "GRAPHS key value" lines for the checks.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define GRAPHS_LAUNCHES 5
#define GRAPHS_N        (1 << 16)

#define CHECK(call)                                                                                \
  do                                                                                               \
    {                                                                                              \
      cudaError_t e_ = (call);                                                                     \
      if (e_ != cudaSuccess)                                                                       \
        {                                                                                          \
          fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString (e_)); \
          exit (1);                                                                                \
        }                                                                                          \
    }                                                                                              \
  while (0)

__global__ void
step_kernel (float *x, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] * a + 1.0f;
}

__global__ void
reduce_kernel (const float *x, float *out, int n)
{
  __shared__ float part[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads ();
  for (int s = blockDim.x / 2; s > 0; s /= 2)
    {
      if (threadIdx.x < s)
        part[threadIdx.x] += part[threadIdx.x + s];
      __syncthreads ();
    }
  if (threadIdx.x == 0)
    atomicAdd (out, part[0]);
}

__global__ void
consume_kernel (const float *sum, float *y, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = *sum;
}

int
main ()
{
  float *x, *y, *sum;
  cudaStream_t s1, s2;
  cudaEvent_t produced, consumed;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  const int blocks = GRAPHS_N / 256;

  CHECK (cudaMalloc (&x, GRAPHS_N * sizeof (float)));
  CHECK (cudaMalloc (&y, GRAPHS_N * sizeof (float)));
  CHECK (cudaMalloc (&sum, sizeof (float)));
  CHECK (cudaMemset (x, 0, GRAPHS_N * sizeof (float)));
  CHECK (cudaMemset (sum, 0, sizeof (float)));
  CHECK (cudaStreamCreateWithFlags (&s1, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&s2, cudaStreamNonBlocking));
  CHECK (cudaEventCreateWithFlags (&produced, cudaEventDisableTiming));
  CHECK (cudaEventCreateWithFlags (&consumed, cudaEventDisableTiming));

  // the graph: step, step, reduce, captured from s1 (its launches during capture run nothing)
  CHECK (cudaStreamBeginCapture (s1, cudaStreamCaptureModeGlobal));
  step_kernel<<<blocks, 256, 0, s1>>> (x, 0.5f, GRAPHS_N);
  step_kernel<<<blocks, 256, 0, s1>>> (x, 2.0f, GRAPHS_N);
  reduce_kernel<<<blocks, 256, 0, s1>>> (x, sum, GRAPHS_N);
  CHECK (cudaStreamEndCapture (s1, &graph));
  size_t n_nodes = 0;
  CHECK (cudaGraphGetNodes (graph, NULL, &n_nodes));
  CHECK (cudaGraphInstantiate (&exec, graph, 0));
  for (int i = 0; i < GRAPHS_LAUNCHES; i++)
    CHECK (cudaGraphLaunch (exec, s1));

  // s2 waits for s1's graphs, then the host waits for s2
  CHECK (cudaEventRecord (produced, s1));
  CHECK (cudaStreamWaitEvent (s2, produced, 0));
  consume_kernel<<<blocks, 256, 0, s2>>> (sum, y, GRAPHS_N);
  CHECK (cudaGetLastError ());
  CHECK (cudaEventRecord (consumed, s2));
  CHECK (cudaEventSynchronize (consumed));

  float host_sum = 0;
  CHECK (cudaMemcpy (&host_sum, sum, sizeof host_sum, cudaMemcpyDeviceToHost));
  CHECK (cudaDeviceSynchronize ());

  printf ("GRAPHS launches %d\n", GRAPHS_LAUNCHES);
  printf ("GRAPHS nodes %zu\n", n_nodes);
  printf ("GRAPHS event_records 2\n");
  printf ("GRAPHS sum %g\n", host_sum);

  CHECK (cudaGraphExecDestroy (exec));
  CHECK (cudaGraphDestroy (graph));
  CHECK (cudaEventDestroy (produced));
  CHECK (cudaEventDestroy (consumed));
  CHECK (cudaStreamDestroy (s1));
  CHECK (cudaStreamDestroy (s2));
  CHECK (cudaFree (x));
  CHECK (cudaFree (y));
  CHECK (cudaFree (sum));
  return 0;
}
