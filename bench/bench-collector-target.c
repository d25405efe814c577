/* bench-collector-target.c: the program bench-collector runs plain and under `sightline record`.
 *   calls N   N uncontended mutex lock/unlock pairs and N one-byte writes to /dev/null; prints
 *             "mutex_ns X" and "write_ns Y" (per call)
 *   work      a fixed amount of CPU work (~1 s); prints "cpu_s X", the process's CPU time
 *   events R S [H]  R one-byte writes to /dev/null a second (record them with --osrt-threshold
 *             0) for S seconds, in batches every 10 ms, then a fixed CPU loop; prints "wall_s X",
 *             its own run time; then idles H seconds (default 0: a live view's last update then
 *             holds every event)
 *   switches T N  T threads each doing N rounds of ~0.2 ms of CPU work and a 100 µs sleep
 *             (thousands of context switches a second); prints "wall_s X", its own run time, and
 *             "cpu_s Y", its CPU time (user and system: perf's switch records are system time)
 *   pingpong N  two threads pass a byte back and forth over pipes N times (every pass two
 *             context switches: the worst case for scheduling recording); prints "wall_s X" and
 *             "cpu_s Y" */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now (clockid_t clock)
{
  struct timespec ts;
  clock_gettime (clock, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

__attribute__ ((noinline)) static double
work (long n)
{
  volatile double x = 1;
  for (long i = 0; i < n; i++)
    x = x * 1.0000001 + 0.5;
  return x;
}

static long switch_rounds;
static int  ping[2], pong[2];

static void *
pong_thread (void *data)
{
  char c;

  (void) data;
  for (long i = 0; i < switch_rounds; i++)
    if (read (ping[0], &c, 1) != 1 || write (pong[1], &c, 1) != 1)
      break;
  return NULL;
}

static void *
switch_thread (void *data)
{
  struct timespec ts = { 0, 100000 };

  (void) data;
  for (long i = 0; i < switch_rounds; i++)
    {
      work (60000L);
      nanosleep (&ts, NULL);
    }
  return NULL;
}

int
main (int   argc,
      char *argv[])
{
  if (argc > 1 && strcmp (argv[1], "calls") == 0)
    {
      long n = argc > 2 ? atol (argv[2]) : 1000000;
      pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
      int fd = open ("/dev/null", O_WRONLY);
      double t = now (CLOCK_MONOTONIC);
      for (long i = 0; i < n; i++)
        {
          pthread_mutex_lock (&m);
          pthread_mutex_unlock (&m);
        }
      double mutex = (now (CLOCK_MONOTONIC) - t) / (double) n * 1e9;
      t = now (CLOCK_MONOTONIC);
      for (long i = 0; i < n; i++)
        if (write (fd, "x", 1) != 1)
          return 1;
      double wr = (now (CLOCK_MONOTONIC) - t) / (double) n * 1e9;
      printf ("mutex_ns %.2f\nwrite_ns %.2f\n", mutex, wr);
      return 0;
    }
  if (argc > 1 && strcmp (argv[1], "work") == 0)
    {
      work (400000000L);
      printf ("cpu_s %.4f\n", now (CLOCK_PROCESS_CPUTIME_ID));
      return 0;
    }
  if (argc > 1 && strcmp (argv[1], "events") == 0)
    {
      long rate = argc > 2 ? atol (argv[2]) : 100000, secs = argc > 3 ? atol (argv[3]) : 3;
      int fd = open ("/dev/null", O_WRONLY);
      double t0 = now (CLOCK_MONOTONIC);
      for (long tick = 0; tick < secs * 100; tick++)
        {
          for (long i = 0; i < rate / 100; i++)
            if (write (fd, "x", 1) != 1)
              return 1;
          /* sleep to the next 10 ms tick: the program uses little CPU, as a data loader would */
          double next = t0 + (double) (tick + 1) / 100, left = next - now (CLOCK_MONOTONIC);
          if (left > 0)
            {
              struct timespec ts = { 0, (long) (left * 1e9) };
              nanosleep (&ts, NULL);
            }
        }
      work (200000000L);
      printf ("wall_s %.4f\n", now (CLOCK_MONOTONIC) - t0);
      fflush (stdout);
      if (argc > 4 && atol (argv[4]) > 0)
        sleep ((unsigned) atol (argv[4]));
      return 0;
    }
  if (argc > 1 && strcmp (argv[1], "switches") == 0)
    {
      int n = argc > 2 ? atoi (argv[2]) : 2;
      pthread_t threads[64];
      switch_rounds = argc > 3 ? atol (argv[3]) : 3000;
      n = n < 1 ? 1 : n > 64 ? 64 : n;
      double t0 = now (CLOCK_MONOTONIC);
      for (int i = 0; i < n; i++)
        pthread_create (&threads[i], NULL, switch_thread, NULL);
      for (int i = 0; i < n; i++)
        pthread_join (threads[i], NULL);
      printf ("wall_s %.4f\ncpu_s %.4f\n", now (CLOCK_MONOTONIC) - t0,
              now (CLOCK_PROCESS_CPUTIME_ID));
      return 0;
    }
  if (argc > 1 && strcmp (argv[1], "pingpong") == 0)
    {
      pthread_t t;
      char c = 'x';
      switch_rounds = argc > 2 ? atol (argv[2]) : 100000;
      if (pipe (ping) != 0 || pipe (pong) != 0)
        return 1;
      double t0 = now (CLOCK_MONOTONIC);
      pthread_create (&t, NULL, pong_thread, NULL);
      for (long i = 0; i < switch_rounds; i++)
        if (write (ping[1], &c, 1) != 1 || read (pong[0], &c, 1) != 1)
          return 1;
      pthread_join (t, NULL);
      printf ("wall_s %.4f\ncpu_s %.4f\n", now (CLOCK_MONOTONIC) - t0,
              now (CLOCK_PROCESS_CPUTIME_ID));
      return 0;
    }
  fprintf (stderr, "usage: %s calls N | work | events RATE SECONDS [HOLD] | switches THREADS ROUNDS | "
                   "pingpong N\n",
           argv[0]);
  return 2;
}
