/* sl-sched-target.c: the program the scheduling tests record: threads that spin, sleep and block
 * in known ways, in two processes, each reporting the CPU time it used over a window it measured.
 *
 *   sl-sched-target REPORT        main ("sched-main") holds a mutex and starts five threads:
 *                                 "spinner" spins all the time, "duty" spins 2 ms of CPU and
 *                                 sleeps 6 ms in turn, "sleeper" sleeps 10 ms at a time, "piper"
 *                                 blocks in read() on a pipe (pipe_wait_fn) and "locker" blocks
 *                                 on the mutex (mutex_wait_fn) until main lets them through, 8
 *                                 times 100 ms; main forks and execs "sl-sched-target child
 *                                 REPORT" without LD_PRELOAD (a program the injection library
 *                                 is not in: only the daemon sees it) and waits for it
 *   sl-sched-target child REPORT  "child-main" sleeps, its thread "child-spin" spins
 *
 * Every thread first sleeps 150 ms (a /proc poller looks for new threads every 50 ms), then
 * measures its window: a line "NAME PID TID START_NS END_NS CPU_NS" is appended to REPORT, with
 * CLOCK_MONOTONIC times (the trace's clock) and CLOCK_THREAD_CPUTIME_ID over the window.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUN_NS   800000000ull /* each window */
#define ROUNDS   8
#define ROUND_NS 100000000ull

static const char *report;
static int pipe_fds[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct
{
  const char *name;
  unsigned long long t0, c0;
} Window;

static unsigned long long
clock_ns (clockid_t id)
{
  struct timespec ts;

  clock_gettime (id, &ts);
  return (unsigned long long) ts.tv_sec * 1000000000ull + (unsigned long long) ts.tv_nsec;
}

static void
sleep_ns (unsigned long long ns)
{
  struct timespec ts = { (time_t) (ns / 1000000000ull), (long) (ns % 1000000000ull) };

  while (nanosleep (&ts, &ts) != 0)
    ;
}

static Window
window_begin (const char *name)
{
  pthread_setname_np (pthread_self (), name);
  sleep_ns (150000000ull);
  return (Window) { name, clock_ns (CLOCK_MONOTONIC), clock_ns (CLOCK_THREAD_CPUTIME_ID) };
}

static void
window_end (const Window *w)
{
  unsigned long long c1 = clock_ns (CLOCK_THREAD_CPUTIME_ID), t1 = clock_ns (CLOCK_MONOTONIC);
  char line[256];
  int n = snprintf (line, sizeof line, "%s %d %ld %llu %llu %llu\n", w->name, (int) getpid (),
                    (long) syscall (SYS_gettid), w->t0, t1, c1 - w->c0);
  int fd = open (report, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

  if (fd >= 0)
    {
      ssize_t r = write (fd, line, (size_t) n);
      (void) r;
      close (fd);
    }
}

static void __attribute__ ((noinline))
spin_until (unsigned long long end_ns)
{
  while (clock_ns (CLOCK_MONOTONIC) < end_ns)
    ;
}

static void __attribute__ ((noinline))
spin_cpu (unsigned long long cpu_ns)
{
  unsigned long long end = clock_ns (CLOCK_THREAD_CPUTIME_ID) + cpu_ns;

  while (clock_ns (CLOCK_THREAD_CPUTIME_ID) < end)
    ;
}

static void * __attribute__ ((noinline))
spinner (void *data)
{
  Window w = window_begin (data);
  spin_until (w.t0 + RUN_NS);
  window_end (&w);
  return NULL;
}

static void *
duty (void *data)
{
  Window w = window_begin (data);
  while (clock_ns (CLOCK_MONOTONIC) < w.t0 + RUN_NS)
    {
      spin_cpu (2000000ull);
      sleep_ns (6000000ull);
    }
  window_end (&w);
  return NULL;
}

static void *
sleeper (void *data)
{
  Window w = window_begin (data);
  while (clock_ns (CLOCK_MONOTONIC) < w.t0 + RUN_NS)
    sleep_ns (10000000ull);
  window_end (&w);
  return NULL;
}

static void __attribute__ ((noinline))
pipe_wait_fn (void)
{
  char c;
  ssize_t r = read (pipe_fds[0], &c, 1);
  (void) r;
}

static void *
piper (void *data)
{
  Window w = window_begin (data);
  for (int i = 0; i < ROUNDS; i++)
    pipe_wait_fn ();
  window_end (&w);
  return NULL;
}

static void __attribute__ ((noinline))
mutex_wait_fn (void)
{
  pthread_mutex_lock (&lock);
  pthread_mutex_unlock (&lock);
}

static void *
locker (void *data)
{
  Window w = window_begin (data);
  for (int i = 0; i < ROUNDS; i++)
    {
      mutex_wait_fn ();
      sleep_ns (10000000ull); /* main takes the mutex back meanwhile */
    }
  window_end (&w);
  return NULL;
}

static int
run_child (void)
{
  pthread_t t;

  pthread_setname_np (pthread_self (), "child-main");
  pthread_create (&t, NULL, spinner, "child-spin");
  Window w = window_begin ("child-main");
  sleep_ns (RUN_NS / 2);
  window_end (&w);
  pthread_join (t, NULL);
  return 0;
}

int
main (int   argc,
      char *argv[])
{
  static void *(*const fns[]) (void *) = { spinner, duty, sleeper, piper, locker };
  static const char *const names[] = { "spinner", "duty", "sleeper", "piper", "locker" };
  pthread_t threads[5];

  if (argc == 3 && strcmp (argv[1], "child") == 0)
    {
      report = argv[2];
      return run_child ();
    }
  if (argc != 2)
    {
      fprintf (stderr, "usage: sl-sched-target REPORT\n");
      return 2;
    }
  report = argv[1];
  if (pipe (pipe_fds) != 0)
    return 1;
  pthread_setname_np (pthread_self (), "sched-main");
  pthread_mutex_lock (&lock);
  for (int i = 0; i < 5; i++)
    pthread_create (&threads[i], NULL, fns[i], (void *) names[i]);

  pid_t child = fork ();
  if (child == 0)
    {
      char *args[] = { argv[0], "child", argv[1], NULL };
      unsetenv ("LD_PRELOAD");
      execv ("/proc/self/exe", args);
      _exit (127);
    }

  /* after the threads' first 150 ms: let piper and locker through once every 100 ms */
  sleep_ns (150000000ull);
  for (int i = 0; i < ROUNDS; i++)
    {
      sleep_ns (ROUND_NS);
      pthread_mutex_unlock (&lock);
      ssize_t r = write (pipe_fds[1], "x", 1);
      (void) r;
      sleep_ns (1000000ull);
      pthread_mutex_lock (&lock);
    }
  pthread_mutex_unlock (&lock);
  for (int i = 0; i < 5; i++)
    pthread_join (threads[i], NULL);
  int status = 0;
  if (child > 0)
    waitpid (child, &status, 0);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
}
