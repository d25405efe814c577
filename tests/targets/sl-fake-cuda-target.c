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
 *   4 synchronizations: stream waits for the event, event, stream, context (device).
 * The stream and device synchronizations are made from named functions (wait_for_stream,
 * wait_for_device) whose frames the CUDA backtraces must show.
 *
 * `loop N`: N synchronizations of an idle stream, each after ~5 µs of the host's own work (about
 * 10^5 a second), timed: what bench-cudabacktrace measures.
 * `wait N NS`: N synchronizations that each wait for a kernel of NS ns (the bench makes it just
 * over the default backtrace threshold: the default's worst case).
 * `profiler`: kernels outside and inside two cudaProfilerStart/Stop ranges (nsys
 * --capture-range=cudaProfilerApi): "outside" before, between and after, "first" in the first
 * range, "second" in the second. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake-cupti.h"

/* Not static, not inlined: their names must be in the trace's backtraces. */
void __attribute__ ((noinline)) wait_for_stream (FakeStream *s);
void __attribute__ ((noinline)) wait_for_device (void);

void __attribute__ ((noinline))
wait_for_stream (FakeStream *s)
{
  fake_cudaStreamSynchronize (s);
  __asm__ volatile ("" ::: "memory"); /* not a tail call: this frame stays on the stack */
}

void __attribute__ ((noinline))
wait_for_device (void)
{
  fake_cudaDeviceSynchronize ();
  __asm__ volatile ("" ::: "memory");
}

static uint64_t
now_ns (int clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* ~5 µs of arithmetic the compiler cannot drop */
static volatile uint64_t sink;
static void
host_work (void)
{
  uint64_t x = sink;
  for (int i = 0; i < 2000; i++)
    x = x * 6364136223846793005u + 1442695040888963407u;
  sink = x;
}

static int
loop (long     n,
      uint64_t wait_ns)
{
  FakeStream *s = fake_cudaStreamCreate ();
  uint64_t t0 = now_ns (CLOCK_MONOTONIC), c0 = now_ns (CLOCK_PROCESS_CPUTIME_ID);

  for (long i = 0; i < n; i++)
    {
      if (wait_ns > 0)
        fake_cudaLaunchKernel ("_Z4workv", 1, 32, wait_ns, s);
      else
        host_work ();
      wait_for_stream (s);
    }
  uint64_t t1 = now_ns (CLOCK_MONOTONIC), c1 = now_ns (CLOCK_PROCESS_CPUTIME_ID);
  printf ("fake-cuda: loop %ld syncs wall %llu ns cpu %llu ns\n", n,
          (unsigned long long) (t1 - t0), (unsigned long long) (c1 - c0));
  return 0;
}

static int
profiler (void)
{
  FakeStream *s = fake_cudaStreamCreate ();

  fake_cudaLaunchKernel ("_Z7outsidev", 1, 32, 1000, s);
  wait_for_stream (s);
  for (int r = 0; r < 2; r++)
    {
      fake_cudaProfilerStart ();
      fake_cudaLaunchKernel (r == 0 ? "_Z5firstv" : "_Z6secondv", 1, 32, 1000, s);
      wait_for_stream (s);
      fake_cudaProfilerStop ();
      fake_cudaLaunchKernel ("_Z7outsidev", 1, 32, 1000, s);
      wait_for_stream (s);
    }
  printf ("fake-cuda: profiler done\n");
  fflush (stdout);
  return 0;
}

int
main (int   argc,
      char *argv[])
{
  if (fake_cuInit () != 0)
    return 1;
  if (argc > 2 && strcmp (argv[1], "loop") == 0)
    return loop (atol (argv[2]), 0);
  if (argc > 3 && strcmp (argv[1], "wait") == 0)
    return loop (atol (argv[2]), strtoull (argv[3], NULL, 10));
  if (argc > 1 && strcmp (argv[1], "profiler") == 0)
    return profiler ();
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
  wait_for_stream (s1);
  fake_cudaMemcpy (FAKE_COPY_DTOH, 1 << 20, 40000);
  wait_for_device ();

  printf ("fake-cuda: streams %u %u, event %u, graph %u exec %u\n", fake_stream_id (s1),
          fake_stream_id (s2), fake_event_id (e), fake_graph_id (g), fake_graph_exec_id (x));
  free (a);
  free (b);
  return 0;
}
