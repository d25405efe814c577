/* sl-fake-cuda-target.c: a "CUDA program" for machines without a GPU: it calls the fake CUDA of
 * libsl-fake-cupti.so (tests/cupti/fake-cupti.h), which makes the CUPTI callbacks and activity
 * records a real run would, so that `sightline record` with SIGHTLINE_CUPTI pointing at the
 * double goes through the injection library, the daemon and the writer end to end.
 *
 * What it does, and what test-fake-cupti counts in the trace (graph mode / node mode):
 *   28 runtime calls, 1 driver call (cuLaunchKernel);
 *   kernels: 3 on s1, 1 on s2, 1 by the driver on s2, and 3 launches of a 4-kernel graph on s1
 *   (graph mode: 3 CUPTI_ACTIVITY_KIND_GRAPH_TRACE rows; node mode: 12 more kernels);
 *   2 copies on the default stream, 1 set on s1;
 *   2 CUDA event records of one event (on s1, then on s2);
 *   4 synchronizations: stream waits for the event, event, stream, context (device). */
#include <stdio.h>
#include <stdlib.h>

#include "fake-cupti.h"

int
main (void)
{
  if (fake_cuInit () != 0)
    return 1;
  void *a = fake_cudaMalloc (1 << 20);
  void *b = fake_cudaMalloc (1 << 20);
  FakeStream *s1 = fake_cudaStreamCreate ();
  FakeStream *s2 = fake_cudaStreamCreate ();

  fake_cudaMemcpy (FAKE_COPY_HTOD, 1 << 20, 40000);
  fake_cudaMemsetAsync (1 << 20, 0, 5000, s1);
  for (int i = 0; i < 3; i++)
    fake_cudaLaunchKernel ("_Z5scaleiPf", 256, 128, 30000, s1);

  /* s2 waits for s1's work through an event; the host waits for s2's */
  FakeEvent *e = fake_cudaEventCreate ();
  fake_cudaEventRecord (e, s1);
  fake_cudaStreamWaitEvent (s2, e);
  fake_cudaLaunchKernel ("_Z3addPfS_", 512, 256, 20000, s2);
  fake_cudaEventRecord (e, s2);
  fake_cudaEventSynchronize (e);

  /* a graph captured from s1 and launched three times */
  fake_cudaStreamBeginCapture (s1);
  fake_cudaLaunchKernel ("_Z4stepPfi", 64, 128, 10000, s1);
  fake_cudaLaunchKernel ("_Z4stepPfi", 64, 128, 10000, s1);
  fake_cudaLaunchKernel ("_Z6reducePf", 32, 256, 15000, s1);
  fake_cudaLaunchKernel ("_Z4stepPfi", 64, 128, 10000, s1);
  FakeGraph *g = fake_cudaStreamEndCapture (s1);
  FakeGraphExec *x = fake_cudaGraphInstantiate (g);
  for (int i = 0; i < 3; i++)
    fake_cudaGraphLaunch (x, s1);

  fake_cuLaunchKernel ("_Z6driverv", 1, 32, 8000, s2);
  fake_cudaStreamSynchronize (s1);
  fake_cudaMemcpy (FAKE_COPY_DTOH, 1 << 20, 40000);
  fake_cudaDeviceSynchronize ();

  printf ("fake-cuda: streams %u %u, event %u, graph %u exec %u\n", fake_stream_id (s1),
          fake_stream_id (s2), fake_event_id (e), fake_graph_id (g), fake_graph_exec_id (x));
  free (a);
  free (b);
  return 0;
}
