/* fake-cupti.h: the CUDA that libsl-fake-cupti.so (fake-cupti.c, a test double of libcupti)
 * pretends to run.  A fake "CUDA program" (tests/targets/sl-fake-cuda-target.c) calls these
 * instead of the CUDA runtime and driver; each call fires CUPTI's API enter/exit callbacks and
 * queues the activity records CUPTI would (API, kernel, copy, set, synchronization, CUDA event,
 * graph), with timestamps from a simulated GPU whose streams run their work one after another.
 * No CUDA header is needed to call them. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef struct _FakeStream FakeStream; /* NULL: the default (legacy NULL) stream */
  typedef struct _FakeEvent FakeEvent;
  typedef struct _FakeGraph FakeGraph;
  typedef struct _FakeGraphExec FakeGraphExec;

  /* CUpti_ActivityMemcpyKind's values */
  typedef enum
  {
    FAKE_COPY_HTOD = 1,
    FAKE_COPY_DTOH = 2,
    FAKE_COPY_DTOD = 8,
  } FakeCopyKind;

  /* What libcuda's cuInit does for a profiler: loads $CUDA_INJECTION64_PATH and calls its
   * InitializeInjection(); then the primary context of device 0 is made (DEVICE, CONTEXT and the
   * NULL stream's STREAM record).  Returns 0, or -1 when the injection library cannot be loaded
   * (the program runs on untraced, as under a real driver). */
  int fake_cuInit (void);

  /* Allocations and their release: MEMORY2 records (nsys --cuda-memory-usage). */
  void *fake_cudaMalloc (size_t bytes);
  void *fake_cudaMallocManaged (size_t bytes);
  void fake_cudaFree (void *p);
  /* Managed memory (fake-cupti.c keeps it in 64 KiB pages) touched by the host, by a kernel
   * launched with cudaLaunchKernel, or prefetched (to the GPU when `to_gpu`): the
   * UNIFIED_MEMORY_COUNTER records of their page faults and migrations. */
  void fake_um_host_touch (void *p, size_t bytes);
  void fake_um_kernel_touch (const char *name, void *p, size_t bytes, uint64_t gpu_ns,
                             FakeStream *stream);
  void fake_cudaMemPrefetchAsync (void *p, size_t bytes, int to_gpu, FakeStream *stream);
  FakeStream *fake_cudaStreamCreate (void);
  /* The copy runs on the default stream and the call returns once it is done. */
  void fake_cudaMemcpy (FakeCopyKind kind, size_t bytes, uint64_t gpu_ns);
  void fake_cudaMemsetAsync (size_t bytes, int value, uint64_t gpu_ns, FakeStream *stream);
  void fake_cudaLaunchKernel (const char *name, uint32_t grid, uint32_t block, uint64_t gpu_ns,
                              FakeStream *stream);
  /* The driver API's launch (eventClass 1 in the trace). */
  void fake_cuLaunchKernel (const char *name, uint32_t grid, uint32_t block, uint64_t gpu_ns,
                            FakeStream *stream);
  void fake_cudaStreamSynchronize (FakeStream *stream);
  void fake_cudaDeviceSynchronize (void);
  /* The profiler API (nsys --capture-range=cudaProfilerApi): calls with no GPU work. */
  void fake_cudaProfilerStart (void);
  void fake_cudaProfilerStop (void);

  FakeEvent *fake_cudaEventCreate (void);
  void fake_cudaEventRecord (FakeEvent *event, FakeStream *stream);
  void fake_cudaStreamWaitEvent (FakeStream *stream, FakeEvent *event);
  void fake_cudaEventSynchronize (FakeEvent *event);

  /* Stream capture: kernels launched on a capturing stream become the graph's nodes. */
  void fake_cudaStreamBeginCapture (FakeStream *stream);
  FakeGraph *fake_cudaStreamEndCapture (FakeStream *stream);
  FakeGraphExec *fake_cudaGraphInstantiate (FakeGraph *graph);
  void fake_cudaGraphLaunch (FakeGraphExec *exec, FakeStream *stream);

  /* Ids as CUPTI reports them, for the program to print what the trace must hold. */
  uint32_t fake_stream_id (FakeStream *stream);
  uint32_t fake_event_id (FakeEvent *event);
  uint32_t fake_graph_id (FakeGraph *graph);
  uint32_t fake_graph_exec_id (FakeGraphExec *exec);

#ifdef __cplusplus
}
#endif
