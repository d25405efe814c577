/* sl-test-target.c: the program the collector tests record.  Each mode does a known amount of
 * known work, so that the trace can be checked field by field:
 *
 *   threads  main names itself "sl-main"; two threads named "worker-a" (by their creator) and
 *            "worker-b" (by itself, prctl); each sleeps 5 × 2 ms (nanosleep), blocks ~30 ms in
 *            read() on a pipe, pushes NVTX "step 0…2" with a nested "inner", and burns ~200 ms of
 *            CPU in busy_alpha / busy_beta; a forked child sleeps 3 × 5 ms (usleep), makes an
 *            NVTX mark "child mark" and _exits 0; an NVTX start/end range "whole run" spans it all
 *   crash    NVTX push "doomed", 3 × 1 ms nanosleep, waits 300 ms, then SIGSEGV
 *   sigkill  3 × 1 ms nanosleep, waits 300 ms, then SIGKILL itself
 *   exit N   exits with status N
 *   sleep MS sleeps MS milliseconds in 10 ms steps, then writes argv[3] (a marker file)
 *   live     for the live view: every 500 ms a new thread "live-N" (N = 1…6) sleeps 20 × 5 ms;
 *            prints "tick N" on stdout and "warn N" on stderr as each starts (~3.2 s in all);
 *            with argv[2], it then waits (up to 60 s) until that file exists, so that a test on a
 *            slow build decides when the recording ends
 *   spin MS  writes argv[3] (a marker file), then burns MS ms of CPU in 10 ms turns of
 *            busy_alpha and busy_beta (samples with a few distinct stacks, for a while)
 *   futex    8 raw futex(2) waits through syscall() in futex_wait_fn, each timing out after
 *            20 ms, and 100 wakes nobody waits for
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef SL_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#else
/* without the NVTX headers the NVTX calls are no-ops */
static int nvtxRangePushA (const char *s) { (void) s; return 0; }
static int nvtxRangePop (void) { return 0; }
static void nvtxMarkA (const char *s) { (void) s; }
static unsigned long long nvtxRangeStartA (const char *s) { (void) s; return 0; }
static void nvtxRangeEnd (unsigned long long id) { (void) id; }
#endif

static int pipes[2][2];
static atomic_int reading;   /* workers about to block in read() on their pipe */

static void
sleep_ms (int ms)
{
  struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
  nanosleep (&ts, NULL);
}

static double
cpu_seconds (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

__attribute__ ((noinline)) static double
busy_alpha (double seconds)
{
  volatile double x = 1;
  double end = cpu_seconds () + seconds;
  while (cpu_seconds () < end)
    for (int i = 0; i < 1000; i++)
      x = x * 1.0000001 + 0.5;
  return x;
}

__attribute__ ((noinline)) static double
busy_beta (double seconds)
{
  volatile double x = 2;
  double end = cpu_seconds () + seconds;
  while (cpu_seconds () < end)
    for (int i = 0; i < 1000; i++)
      x = x * 0.9999999 + 0.25;
  return x;
}

static void *
worker (void *data)
{
  int which = (int) (long) data;
  char c;

  if (which == 1)
    prctl (PR_SET_NAME, "worker-b", 0, 0, 0);
  for (int i = 0; i < 5; i++)
    sleep_ms (2);
  atomic_fetch_add (&reading, 1);
  if (read (pipes[which][0], &c, 1) != 1)
    return NULL;
  for (int i = 0; i < 3; i++)
    {
      char name[32];
      snprintf (name, sizeof name, "step %d", i);
      nvtxRangePushA (name);
      nvtxRangePushA ("inner");
      sleep_ms (1);
      nvtxRangePop ();
      nvtxRangePop ();
    }
  if (which == 0)
    busy_alpha (0.2);
  else
    busy_beta (0.2);
  return NULL;
}

static int
mode_threads (void)
{
  pthread_t t[2];
  unsigned long long whole = nvtxRangeStartA ("whole run");

  pthread_setname_np (pthread_self (), "sl-main");
  for (int i = 0; i < 2; i++)
    if (pipe (pipes[i]) != 0)
      return 1;
  pthread_create (&t[0], NULL, worker, (void *) 0L);
  pthread_setname_np (t[0], "worker-a");
  pthread_create (&t[1], NULL, worker, (void *) 1L);

  pid_t child = fork ();
  if (child == 0)
    {
      for (int i = 0; i < 3; i++)
        usleep (5000);
      nvtxMarkA ("child mark");
      _exit (0); /* as worker processes end: no atexit, the library must flush anyway */
    }
  /* the workers are done sleeping after ~11 ms; each blocks in read until 20 ms after both got
   * there (on a loaded machine their sleeps once stretched past a fixed 40 ms: a read that did
   * not block) */
  sleep_ms (40);
  while (atomic_load (&reading) < 2)
    sleep_ms (1);
  sleep_ms (20);
  for (int i = 0; i < 2; i++)
    if (write (pipes[i][1], "x", 1) != 1)
      return 1;
  for (int i = 0; i < 2; i++)
    pthread_join (t[i], NULL);
  int status = 0;
  waitpid (child, &status, 0);
  nvtxRangeEnd (whole);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
}

static void *
live_worker (void *data)
{
  char name[16];

  snprintf (name, sizeof name, "live-%d", (int) (long) data);
  pthread_setname_np (pthread_self (), name);
  for (int i = 0; i < 20; i++)
    sleep_ms (5);
  return NULL;
}

static int
mode_live (const char *hold)
{
  pthread_t t[6];

  setvbuf (stdout, NULL, _IOLBF, 0);
  for (int i = 0; i < 6; i++)
    {
      pthread_create (&t[i], NULL, live_worker, (void *) (long) (i + 1));
      printf ("tick %d\n", i + 1);
      fprintf (stderr, "warn %d\n", i + 1);
      sleep_ms (500);
    }
  for (int i = 0; i < 6; i++)
    pthread_join (t[i], NULL);
  /* waits with poll, not nanosleep: the test counts the program's own sleeps, and how long it
   * takes to write the file (seconds under ASan) is not one of them */
  for (int i = 0; hold != NULL && i < 6000 && access (hold, F_OK) != 0; i++)
    poll (NULL, 0, 10);
  return 0;
}

static void __attribute__ ((noinline))
futex_wait_fn (int *word)
{
  struct timespec timeout = { 0, 20000000 };
  syscall (SYS_futex, word, FUTEX_WAIT_PRIVATE, 0, &timeout, NULL, 0);
}

int
main (int   argc,
      char *argv[])
{
  const char *mode = argc > 1 ? argv[1] : "threads";

  if (strcmp (mode, "threads") == 0)
    return mode_threads ();
  if (strcmp (mode, "live") == 0)
    return mode_live (argc > 2 ? argv[2] : NULL);
  if (strcmp (mode, "crash") == 0)
    {
      nvtxRangePushA ("doomed");
      for (int i = 0; i < 3; i++)
        sleep_ms (1);
      sleep_ms (300);
      raise (SIGSEGV);
      return 0;
    }
  if (strcmp (mode, "sigkill") == 0)
    {
      for (int i = 0; i < 3; i++)
        sleep_ms (1);
      sleep_ms (300);
      kill (getpid (), SIGKILL);
      return 0;
    }
  if (strcmp (mode, "spin") == 0)
    {
      int ms = argc > 2 ? atoi (argv[2]) : 1000;
      if (argc > 3)
        {
          FILE *f = fopen (argv[3], "w");
          if (f != NULL)
            fclose (f);
        }
      for (int t = 0; t < ms; t += 20)
        {
          busy_alpha (0.01);
          busy_beta (0.01);
        }
      return 0;
    }
  if (strcmp (mode, "futex") == 0)
    {
      static int word;
      for (int i = 0; i < 8; i++)
        futex_wait_fn (&word);
      for (int i = 0; i < 100; i++)
        syscall (SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
      return 0;
    }
  if (strcmp (mode, "exit") == 0)
    return argc > 2 ? atoi (argv[2]) : 0;
  if (strcmp (mode, "sleep") == 0)
    {
      int ms = argc > 2 ? atoi (argv[2]) : 1000;
      for (int t = 0; t < ms; t += 10)
        sleep_ms (10);
      if (argc > 3)
        {
          FILE *f = fopen (argv[3], "w");
          if (f != NULL)
            fclose (f);
        }
      return 0;
    }
  fprintf (stderr, "sl-test-target: unknown mode %s\n", mode);
  return 2;
}
