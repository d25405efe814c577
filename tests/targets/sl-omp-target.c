/* sl-omp-target.c: the OpenMP program test-record-openmp records (built with clang -fopenmp -g:
 * LLVM's libomp, whose tools interface the library uses).  Parallel regions of known thread
 * counts at known lines, repeated; it prints each region's line and the threads its team had,
 * "region LINE THREADS COUNT", for the test to find in the trace. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double sink;

int
main (int    argc,
      char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 20;
  int threads_a = 0, threads_b = 0;
  int line_a = 0, line_b = 0;

  for (int i = 0; i < rounds; i++)
    {
      line_a = __LINE__ + 1;
#pragma omp parallel num_threads (3)
      {
        double x = 0;
        for (int k = 0; k < 20000; k++)
          x += k * 0.5;
#pragma omp atomic
        sink += x;
#pragma omp single
        threads_a = omp_get_num_threads ();
      }
      line_b = __LINE__ + 1;
#pragma omp parallel num_threads (2)
      {
#pragma omp single
        threads_b = omp_get_num_threads ();
      }
    }
  printf ("region %d %d %d\n", line_a, threads_a, rounds);
  printf ("region %d %d %d\n", line_b, threads_b, rounds);
  return sink > 0 ? 0 : 1;
}
