/* sl-mpi-ring.c: the MPI program test-record-mpi and bench-collector-mpi record: a ring of
 * point-to-point messages (each rank to the next, both blocking and nonblocking forms), an
 * MPI_Allreduce every 100 steps, a broadcast and barriers; the last rank is made slow on purpose
 * (a 2 ms sleep every 100 steps), so that the others wait for it.
 *
 * Usage: sl-mpi-ring [STEPS [BYTES]] (default 1000 steps of 64-byte messages).  At the end each
 * rank prints how many times it called each MPI function, "calls RANK FUNCTION N", so that a
 * trace can be checked against the program's own count; with SL_RING_QUIET set it prints instead
 * each rank's CPU time ("cpu RANK SECONDS": the process's, its threads and the library's
 * included) and rank 0 the loop's wall time ("ring STEPS steps SECONDS s"), for the benchmark.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum
{
  F_INIT,
  F_COMM_RANK,
  F_COMM_SIZE,
  F_SEND,
  F_ISEND,
  F_RECV,
  F_IRECV,
  F_WAIT,
  F_WAITALL,
  F_ALLREDUCE,
  F_BCAST,
  F_BARRIER,
  F_FINALIZE,
  N_F
};

static const char *const names[N_F] = {
  "MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Send", "MPI_Isend", "MPI_Recv", "MPI_Irecv",
  "MPI_Wait", "MPI_Waitall", "MPI_Allreduce", "MPI_Bcast", "MPI_Barrier", "MPI_Finalize",
};

static long calls[N_F];

int
main (int    argc,
      char **argv)
{
  long steps = argc > 1 ? atol (argv[1]) : 1000;
  int bytes = argc > 2 ? atoi (argv[2]) : 64;
  int quiet = getenv ("SL_RING_QUIET") != NULL;
  int rank, size;
  struct timespec t0, t1;

  if (steps < 1 || bytes < 1 || bytes > (1 << 24))
    {
      fprintf (stderr, "usage: sl-mpi-ring [STEPS [BYTES]]\n");
      return 2;
    }
  MPI_Init (&argc, &argv);
  calls[F_INIT]++;
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  calls[F_COMM_RANK]++;
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  calls[F_COMM_SIZE]++;

  char *out = calloc (1, (size_t) bytes);
  char *in = calloc (1, (size_t) bytes);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  long total = 0;
  int seed = 0;

  if (rank == 0)
    seed = 42;
  MPI_Bcast (&seed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  calls[F_BCAST]++;
  MPI_Barrier (MPI_COMM_WORLD);
  calls[F_BARRIER]++;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < steps; i++)
    {
      MPI_Request req[2];
      int tag = (int) (i % 1000);
      out[0] = (char) i;
      if (i % 2 == 0)
        {
          /* nonblocking send, blocking receive from any source: the status tells which */
          MPI_Isend (out, bytes, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req[0]);
          calls[F_ISEND]++;
          MPI_Recv (in, bytes, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          calls[F_RECV]++;
          MPI_Wait (&req[0], MPI_STATUS_IGNORE);
          calls[F_WAIT]++;
        }
      else
        {
          /* a receive posted first, then a blocking send */
          MPI_Irecv (in, bytes, MPI_BYTE, left, tag, MPI_COMM_WORLD, &req[0]);
          calls[F_IRECV]++;
          MPI_Send (out, bytes, MPI_BYTE, right, tag, MPI_COMM_WORLD);
          calls[F_SEND]++;
          MPI_Waitall (1, req, MPI_STATUSES_IGNORE);
          calls[F_WAITALL]++;
        }
      total += in[0];
      if (i % 100 == 99)
        {
          long sum = 0;
          if (rank == size - 1)
            usleep (2000); /* the slow rank */
          MPI_Allreduce (&total, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
          calls[F_ALLREDUCE]++;
        }
    }
  clock_gettime (CLOCK_MONOTONIC, &t1);
  MPI_Barrier (MPI_COMM_WORLD);
  calls[F_BARRIER]++;
  if (!quiet)
    for (int f = 0; f < N_F; f++)
      if (f != F_FINALIZE)
        printf ("calls %d %s %ld\n", rank, names[f], calls[f]);
  calls[F_FINALIZE]++;
  if (!quiet)
    printf ("calls %d %s %ld\n", rank, names[F_FINALIZE], calls[F_FINALIZE]);
  else
    {
      struct timespec cpu;
      clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &cpu);
      printf ("cpu %d %.6f\n", rank, (double) cpu.tv_sec + (double) cpu.tv_nsec * 1e-9);
      if (rank == 0)
        printf ("ring %ld steps %.6f s\n", steps,
                (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    }
  fflush (stdout);
  free (out);
  free (in);
  MPI_Finalize ();
  return 0;
}
