/* sl-inject-sample.c: periodic CPU sampling of the target's threads with their user call stacks,
 * and the ELF objects those stacks point into; C11 + POSIX, no GLib (runs inside the target).
 *
 * Clock.  Each thread is sampled on its own CPU time, so a thread is sampled only while it runs
 * (a blocked thread costs nothing and is never woken).  The thread calling _sl_sample_start() and
 * every thread calling _sl_sample_thread_start() afterwards are sampled; threads that were
 * running before are not.  Two ways, both per thread:
 *  - a POSIX timer on the thread's CPU-time clock (timer_create(CLOCK_THREAD_CPUTIME_ID,
 *    SIGEV_THREAD_ID)), the default: always allowed, and cheap because the kernel checks CPU-time
 *    timers on the scheduler tick it takes anyway.  That is also its limit: with CONFIG_HZ=250 a
 *    signal comes every 4 ms carrying 3 overruns, and on a loaded VM (whose ticks are late) one
 *    came after 10-50 ms of the thread's CPU time, at worst 400 ms.  Each signal then emits
 *    1 + overruns records (at most SL_SAMPLE_MAX_BURST) of the one stack it took, times spread
 *    back over the period, so that sample counts still measure CPU time at the rate asked for
 *    (CPU time is at most wall time: no time goes before the timer's start).  What a thread ran
 *    after its last signal is not sampled;
 *  - perf_event_open(PERF_COUNT_SW_TASK_CLOCK), overflow delivered as SIGPROF to the thread
 *    (F_SETOWN_EX/F_SETSIG/O_ASYNC), with SIGHTLINE_SAMPLER=perf: an hrtimer, so 1 kHz is
 *    1000 distinct stacks a second.  But every sample is an extra timer interrupt plus an
 *    irq_work: measured on a 2-core VM at 1 kHz, 5-6% of the thread's CPU time (3.6% with no
 *    signal at all) against 0-1% for the timer, over the 3% budget; and it needs
 *    perf_event_paranoid <= 2 (user time only) or CAP_PERFMON and no seccomp filter against it
 *    (Docker's default has one).  Falls back to the timer when refused.
 * perf only on SIGPROF: a real-time F_SETSIG signal queues one siginfo per overflow, and when a
 * thread that blocks it overflows the queue the kernel sends SIGIO instead, which kills.  A timer
 * has one preallocated siginfo (later expirations become overruns), so it can use a real-time
 * signal: that is what happens when the program already has a SIGPROF handler, which is left
 * alone.  SIGHTLINE_SAMPLER=timer|perf chooses; anything else is the timer.
 *
 * Stacks.  The handler unwinds with libgcc's _Unwind_Backtrace (DWARF CFI: code built without
 * frame pointers, i.e. nearly all of it, unwinds right; libgcc >= 12 finds FDEs through glibc's
 * lock-free _dl_find_object), the same walk glibc's backtrace() does without its lazy dlopen and
 * without sanitizers' interceptor around it.  It skips its own frames and the kernel's signal
 * trampoline up to the frame whose PC is the one the kernel saved in the ucontext: frame 0 is
 * the interrupted instruction, the others are return addresses.  No lock, no malloc, ~3 KiB of
 * stack.  The walk costs ~0.7 us for 14 frames; with the signal, the whole sample at 1 kHz
 * measured 0-1% of the sampled thread's CPU time (tests/test-sample.c /collector/sample/overhead).
 * A PyTorch training loop's stacks are deeper (~45 frames, half of them Python): on a loaded
 * 2-core VM a signal's handler took 120-180 µs, half in the native walk and half reading Python
 * frames (sl-inject-python.c), 3-4.4 % of the loop's CPU time.  SIGHTLINE_SAMPLE_STATS=1 keeps
 * that account (the thread's CPU clock around each handler), said on stderr at the end and asked
 * by sightline_sample_stats() (bench-pytorch).
 *
 * Modules.  _sl_modules_update() sends one SL_WIRE_MODULE per loaded object not sent yet; the
 * core calls it every flush (50 ms), so when nothing was loaded or unloaded (dlpi_adds/subs
 * unchanged) it stops at dl_iterate_phdr's first callback.
 *
 * Fork: timers are not inherited and a perf event's fd in the child belongs to the parent's
 * thread; the first call in the child (the core's atfork handler arms the forking thread) finds
 * the registry stamped with the parent's pid, closes the parent's fds and starts over, and the
 * module list is sent again on the child's own connection.  The locks here record their holder's
 * pid for the same reason: a lock held by another thread at fork is free in the child.
 */
#include "sl-inject-private.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <unwind.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define SL_SAMPLE_MAX_HZ    10000 /* 100 us of CPU a sample: beyond that the handler is the load */
#define SL_SAMPLE_MAX_SKIP  16    /* handler + trampoline frames before the interrupted one */
#define SL_SAMPLE_MAX_BURST 1024  /* timer: records for one signal (1 + overruns); see below */
#define SL_THREAD_RUNNING   1     /* SL_THREAD_STATE_RUNNING (sl-schema.h pulls in sqlite3.h) */

typedef enum
{
  SL_SAMPLER_NONE,
  SL_SAMPLER_PERF,
  SL_SAMPLER_TIMER,
} SlSamplerKind;

/* One armed thread: its perf event's fd or its timer. */
typedef struct
{
  pid_t   tid;
  int     fd;
  timer_t timer;
} SlSampledThread;

static struct
{
  _Atomic int      active;    /* the handler takes samples */
  _Atomic unsigned generation; /* one per _sl_sample_start(): stale per-thread state is ignored */
  int              signo;     /* 0: no handler installed yet */
  SlSamplerKind    kind;
  bool             exclude_kernel; /* perf: unprivileged, counts user time only */
  uint64_t         period_ns;
  struct sigaction installed; /* ours, to notice when the program replaces it */

  pthread_key_t    exit_key; /* its destructor disarms a thread that exits armed */
  bool             exit_key_ok;
  _Atomic pid_t    lock; /* pid of the holder (see lock_acquire()) */
  pid_t            pid;  /* process the registry belongs to */
  SlSampledThread *threads;
  size_t           n_threads, cap_threads;

  /* SIGHTLINE_SAMPLE_STATS=1: the handler's own time (the thread's CPU clock around it, not the
   * wall clock, which on a loaded machine has other threads' time in it; three reads of ~1 µs a
   * signal) and its signals, said on stderr when sampling stops and asked by
   * sightline_sample_stats(): the sampler's cost as a share of the process's CPU time, which a
   * loaded machine blurs far less than two runs' CPU times (the kernel's delivery of the signal
   * is not in it) */
  bool             stats;
  _Atomic uint64_t stats_ns, stats_python_ns, stats_signals;
} S;

typedef struct
{
  pid_t    pid;
  unsigned generation;
  bool     armed;
  int      fd;
  timer_t  timer;
} SlThreadSampler;

static __thread SlThreadSampler tls_sampler __attribute__ ((tls_model ("initial-exec")));

/* ---------------------------------------------------------------------------------------------- */
/* Locks that survive fork                                                                        */

/* A spin lock whose word is the holder's pid: after fork, a lock that a thread of the parent held
 * (that thread does not exist in the child) shows the parent's pid and is taken over.  Held for
 * a registry update or a module walk: microseconds, at thread start/exit and every 50 ms. */
static void
lock_acquire (_Atomic pid_t *lock)
{
  pid_t self = getpid ();

  for (;;)
    {
      pid_t cur = 0;
      if (atomic_compare_exchange_weak (lock, &cur, self))
        return;
      if (cur != 0 && cur != self && atomic_compare_exchange_weak (lock, &cur, self))
        return;
      sched_yield ();
    }
}

static void
lock_release (_Atomic pid_t *lock)
{
  atomic_store (lock, 0);
}

/* ---------------------------------------------------------------------------------------------- */
/* The signal handler                                                                             */

typedef struct
{
  uint64_t  pc; /* the interrupted instruction, from the ucontext; 0: unknown on this arch */
  uint64_t *frames;
  uint32_t  n, max;
  uint32_t  skipped;
  bool      found;
} SlUnwind;

static _Unwind_Reason_Code
unwind_cb (struct _Unwind_Context *ctx,
           void                   *data)
{
  SlUnwind *st = data;
  int signal_frame = 0;
  uint64_t ip = (uint64_t) _Unwind_GetIPInfo (ctx, &signal_frame);

  if (!st->found)
    {
      /* our frames, then the kernel's trampoline, then the interrupted one; libgcc marks the
       * frame under a signal frame, which is our fallback where the ucontext's PC is unknown */
      if (st->pc != 0 ? ip == st->pc : signal_frame != 0)
        st->found = true;
      else
        return ++st->skipped < SL_SAMPLE_MAX_SKIP ? _URC_NO_REASON : _URC_END_OF_STACK;
    }
  if (ip == 0 || st->n >= st->max)
    return _URC_END_OF_STACK;
  st->frames[st->n++] = ip;
  return _URC_NO_REASON;
}

/* The walk of a backtrace taken outside a signal handler (OS runtime calls): our frames are
 * skipped up to the one whose return address is `from`. */
typedef struct
{
  uint64_t  from;
  uint64_t *frames;
  uint32_t  n, max;
  uint32_t  skipped;
  bool      found;
} SlUnwindFrom;

static _Unwind_Reason_Code
unwind_from_cb (struct _Unwind_Context *ctx,
                void                   *data)
{
  SlUnwindFrom *st = data;
  uint64_t ip = (uint64_t) _Unwind_GetIP (ctx);

  if (!st->found)
    {
      if (ip != st->from)
        return ++st->skipped < SL_SAMPLE_MAX_SKIP ? _URC_NO_REASON : _URC_END_OF_STACK;
      st->found = true;
    }
  if (ip == 0 || st->n >= st->max)
    return _URC_END_OF_STACK;
  st->frames[st->n++] = ip;
  return _URC_NO_REASON;
}

uint32_t
_sl_unwind_from (uint64_t  from,
                 uint64_t *frames,
                 uint32_t  max)
{
  SlUnwindFrom st = { from, frames, 0, max, 0, false };

  _Unwind_Backtrace (unwind_from_cb, &st);
  return st.found ? st.n : 0;
}

static uint64_t
interrupted_pc (void *ucontext)
{
  const ucontext_t *uc = ucontext;

#if defined(__x86_64__)
  return (uint64_t) uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uint64_t) uc->uc_mcontext.pc;
#else
  (void) uc;
  return 0;
#endif
}

/* The calling thread's CPU time (SIGHTLINE_SAMPLE_STATS only). */
static uint64_t
thread_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void
emit_sample (uint64_t        time_ns,
             const uint64_t *frames,
             uint32_t        n)
{
  uint32_t size = (uint32_t) (sizeof (SlWireSample) + n * sizeof *frames);
  SlWireSample *rec = _sl_emit_begin (SL_WIRE_SAMPLE, size);

  if (rec == NULL)
    return; /* counted by the core */
  rec->time_ns = time_ns;
  rec->n_frames = n;
  rec->thread_state = SL_THREAD_RUNNING;
  memcpy (rec + 1, frames, n * sizeof *frames);
  _sl_emit_end (rec);
}

/* Async-signal-safe: the unwinder (primed in _sl_sample_start), the ring, clock_gettime. */
static void
take_sample (const siginfo_t *info,
             void            *ucontext)
{
  uint64_t frames[SL_WIRE_MAX_FRAMES];
  SlUnwind st = { interrupted_pc (ucontext), frames, 0, SL_WIRE_MAX_FRAMES, 0, false };
  uint32_t copies = 1;

  _Unwind_Backtrace (unwind_cb, &st);
  if (!st.found && st.pc != 0)
    {
      frames[0] = st.pc; /* no unwind info through the trampoline: the leaf at least */
      st.n = 1;
    }
  uint64_t t_native = S.stats ? thread_cpu_ns () : 0;
  st.n = _sl_python_merge (frames, st.n, SL_WIRE_MAX_FRAMES, st.found || st.pc != 0);
  if (S.stats)
    atomic_fetch_add_explicit (&S.stats_python_ns, thread_cpu_ns () - t_native,
                               memory_order_relaxed);
  if (info != NULL && info->si_code == SI_TIMER && info->si_overrun > 0)
    {
      uint64_t overrun = (uint64_t) info->si_overrun;
      copies = overrun < SL_SAMPLE_MAX_BURST ? (uint32_t) overrun + 1 : SL_SAMPLE_MAX_BURST;
      if (overrun + 1 > copies)
        _sl_count_drop (SL_DROP_SAMPLES, overrun + 1 - copies);
    }
  uint64_t now = _sl_now ();
  for (uint32_t k = copies; k-- > 0;)
    emit_sample (now - k * S.period_ns, frames, st.n);
}

static void
sample_signal_cb (int        sig,
                  siginfo_t *info,
                  void      *ucontext)
{
  int saved_errno = errno;

  (void) sig;
  /* armed: not a signal still queued when this thread's sampler was taken down on its way out
   * (its ring may be gone by then) */
  if (atomic_load_explicit (&S.active, memory_order_relaxed) && tls_sampler.armed)
    {
      uint64_t t0 = S.stats ? thread_cpu_ns () : 0;
      take_sample (info, ucontext);
      if (S.stats)
        {
          atomic_fetch_add_explicit (&S.stats_ns, thread_cpu_ns () - t0, memory_order_relaxed);
          atomic_fetch_add_explicit (&S.stats_signals, 1, memory_order_relaxed);
        }
    }
  errno = saved_errno;
}

/* ---------------------------------------------------------------------------------------------- */
/* Arming threads                                                                                 */

static int
perf_open (uint64_t period_ns,
           bool     exclude_kernel)
{
  struct perf_event_attr attr;

  memset (&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = period_ns; /* task-clock counts nanoseconds */
  attr.disabled = 1;
  attr.exclude_kernel = exclude_kernel;
  attr.exclude_hv = 1;
  return (int) syscall (SYS_perf_event_open, &attr, 0 /* this thread */, -1 /* any CPU */, -1,
                        PERF_FLAG_FD_CLOEXEC);
}

/* A task-clock event for the calling thread that signals it; -1 with errno when not allowed. */
static int
perf_arm (pid_t tid)
{
  int fd = perf_open (S.period_ns, S.exclude_kernel);

  if (fd < 0 && !S.exclude_kernel && (errno == EACCES || errno == EPERM))
    {
      /* perf_event_paranoid 2: user time only (time in system calls goes unsampled) */
      fd = perf_open (S.period_ns, true);
      if (fd >= 0)
        S.exclude_kernel = true;
    }
  if (fd < 0)
    return -1;
  struct f_owner_ex owner = { F_OWNER_TID, tid };
  int fl = fcntl (fd, F_GETFL);
  if (fcntl (fd, F_SETOWN_EX, &owner) != 0 || fcntl (fd, F_SETSIG, S.signo) != 0 || fl < 0
      || fcntl (fd, F_SETFL, fl | O_ASYNC | O_NONBLOCK) != 0
      || ioctl (fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
    {
      int e = errno;
      close (fd);
      errno = e;
      return -1;
    }
  return fd;
}

static bool
timer_arm (pid_t    tid,
           timer_t *timer)
{
  struct sigevent sev;
  struct itimerspec its;

  memset (&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = S.signo;
  sev.sigev_notify_thread_id = tid;
  if (timer_create (CLOCK_THREAD_CPUTIME_ID, &sev, timer) != 0)
    return false;
  its.it_interval.tv_sec = (time_t) (S.period_ns / 1000000000u);
  its.it_interval.tv_nsec = (long) (S.period_ns % 1000000000u);
  its.it_value = its.it_interval;
  if (timer_settime (*timer, 0, &its, NULL) != 0)
    {
      timer_delete (*timer);
      return false;
    }
  return true;
}

static void
thread_disarm (const SlSampledThread *t)
{
  if (t->fd >= 0)
    {
      ioctl (t->fd, PERF_EVENT_IOC_DISABLE, 0);
      close (t->fd);
    }
  else
    timer_delete (t->timer);
}

/* With S.lock held: drops a registry that the parent process left us after fork. */
static void
registry_check_pid (void)
{
  pid_t self = getpid ();

  if (S.pid == self)
    return;
  /* the parent's timers did not come along; its perf fds did, and they are its threads' */
  for (size_t i = 0; i < S.n_threads; i++)
    if (S.threads[i].fd >= 0)
      close (S.threads[i].fd);
  S.n_threads = 0;
  S.pid = self;
  atomic_store (&S.stats_ns, 0);
  atomic_store (&S.stats_python_ns, 0);
  atomic_store (&S.stats_signals, 0);
}

/* With S.lock held: arms the calling thread. */
static void
arm_self (void)
{
  unsigned generation = atomic_load (&S.generation);
  pid_t tid = (pid_t) gettid ();
  SlSampledThread t = { tid, -1, 0 };

  if (!atomic_load (&S.active))
    return;
  if (tls_sampler.armed && tls_sampler.pid == S.pid && tls_sampler.generation == generation)
    return; /* armed already */
  if (S.n_threads == S.cap_threads)
    {
      size_t cap = S.cap_threads > 0 ? S.cap_threads * 2 : 64;
      SlSampledThread *threads = realloc (S.threads, cap * sizeof *threads);
      if (threads == NULL)
        return;
      S.threads = threads;
      S.cap_threads = cap;
    }
  if (S.kind == SL_SAMPLER_PERF)
    {
      t.fd = perf_arm (tid);
      if (t.fd < 0)
        return; /* out of fds, say: this thread goes unsampled */
    }
  else if (!timer_arm (tid, &t.timer))
    return;
  S.threads[S.n_threads++] = t;
  tls_sampler = (SlThreadSampler){ S.pid, generation, true, t.fd, t.timer };
  _sl_python_thread_start ();
  /* a thread that exits without _sl_sample_thread_stop() would leave its timer behind, and
   * timers count against RLIMIT_SIGPENDING (the program's own sigqueue() would fail) */
  if (S.exit_key_ok)
    pthread_setspecific (S.exit_key, (void *) 1);
}

static void
disarm_all_locked (void)
{
  for (size_t i = 0; i < S.n_threads; i++)
    thread_disarm (&S.threads[i]);
  S.n_threads = 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Start and stop                                                                                 */

static _Unwind_Reason_Code
prime_cb (struct _Unwind_Context *ctx,
          void                   *data)
{
  (void) ctx;
  (void) data;
  return _URC_NO_REASON;
}

/* SIGPROF unless the program handles it; then the highest real-time signal nobody handles. */
static int
choose_signal (void)
{
  struct sigaction old;

  if (sigaction (SIGPROF, NULL, &old) == 0 && (old.sa_flags & SA_SIGINFO) == 0
      && (old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN))
    return SIGPROF;
  for (int sig = SIGRTMAX; sig >= SIGRTMIN + 2; sig--)
    if (sigaction (sig, NULL, &old) == 0 && (old.sa_flags & SA_SIGINFO) == 0
        && old.sa_handler == SIG_DFL)
      return sig;
  return 0;
}

static bool
sampler_works (SlSamplerKind kind)
{
  SlSampledThread t = { (pid_t) gettid (), -1, 0 };

  S.kind = kind;
  if (kind == SL_SAMPLER_PERF)
    t.fd = perf_arm (t.tid);
  else if (!timer_arm (t.tid, &t.timer))
    return false;
  if (kind == SL_SAMPLER_PERF && t.fd < 0)
    return false;
  thread_disarm (&t);
  return true;
}

static void
thread_exit_cb (void *data)
{
  (void) data;
  _sl_sample_thread_stop ();
}

static void
create_exit_key (void)
{
  S.exit_key_ok = pthread_key_create (&S.exit_key, thread_exit_cb) == 0;
}

/* Installs the handler, once per process: it stays for good, since a signal still queued after
 * a stop must not meet SIG_DFL (for SIGPROF and real-time signals that terminates). */
static bool
install_handler (void)
{
  struct sigaction sa;
  int sig;

  if (S.signo != 0)
    return true;
  sig = choose_signal ();
  if (sig == 0)
    return false; /* every signal taken: no sampling */
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = sample_signal_cb;
  /* SA_ONSTACK: a thread with an alternate stack (Go's, a stack-overflow handler's) wants every
   * handler there */
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset (&sa.sa_mask);
  if (sigaction (sig, &sa, NULL) != 0)
    return false;
  S.signo = sig;
  sigaction (sig, NULL, &S.installed);
  return true;
}

void
_sl_sample_start (unsigned hz)
{
  const char *force = getenv ("SIGHTLINE_SAMPLER");

  if (hz == 0 || atomic_load (&S.active))
    return;
  _sl_enter_library (); /* fcntl, ioctl, close: not the program's calls */
  S.period_ns = 1000000000u / (hz < SL_SAMPLE_MAX_HZ ? hz : SL_SAMPLE_MAX_HZ);

  /* the unwinder's one-time set-up (pthread_once, libgcc's register table) outside any handler */
  _Unwind_Backtrace (prime_cb, NULL);
  static pthread_once_t key_once = PTHREAD_ONCE_INIT;
  pthread_once (&key_once, create_exit_key);

  bool want_perf = force != NULL && strcmp (force, "perf") == 0;
  const char *stats = getenv ("SIGHTLINE_SAMPLE_STATS");
  S.stats = stats != NULL && strcmp (stats, "1") == 0;
  if (install_handler ()
      && ((want_perf && S.signo == SIGPROF && sampler_works (SL_SAMPLER_PERF))
          || sampler_works (SL_SAMPLER_TIMER)))
    {
      lock_acquire (&S.lock);
      registry_check_pid ();
      atomic_fetch_add (&S.generation, 1);
      atomic_store (&S.active, 1);
      arm_self ();
      lock_release (&S.lock);
    }
  _sl_leave_library ();
}

void
_sl_sample_thread_start (void)
{
  if (!atomic_load (&S.active))
    return;
  _sl_enter_library ();
  lock_acquire (&S.lock);
  registry_check_pid ();
  arm_self ();
  lock_release (&S.lock);
  _sl_leave_library ();
}

void
_sl_sample_thread_stop (void)
{
  if (!tls_sampler.armed)
    return;
  pid_t tid = (pid_t) gettid ();

  _sl_enter_library ();
  lock_acquire (&S.lock);
  registry_check_pid ();
  /* only what the registry still has: after a stop or a fork the fd may be someone else's */
  for (size_t i = 0; i < S.n_threads; i++)
    {
      SlSampledThread *t = &S.threads[i];
      if (t->tid == tid && tls_sampler.pid == S.pid
          && tls_sampler.generation == atomic_load (&S.generation) && t->fd == tls_sampler.fd
          && (t->fd >= 0 || t->timer == tls_sampler.timer))
        {
          thread_disarm (t);
          S.threads[i] = S.threads[--S.n_threads];
          break;
        }
    }
  tls_sampler.armed = false;
  lock_release (&S.lock);
  _sl_python_thread_stop ();
  _sl_leave_library ();
}

void
_sl_sample_stop (void)
{
  if (!atomic_exchange (&S.active, 0))
    return;
  _sl_enter_library ();
  lock_acquire (&S.lock);
  registry_check_pid ();
  disarm_all_locked ();
  lock_release (&S.lock);
  if (S.stats)
    {
      struct rusage ru;
      char line[160];
      getrusage (RUSAGE_SELF, &ru);
      uint64_t cpu_us = (uint64_t) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u
                        + (uint64_t) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
      int n = snprintf (line, sizeof line,
                        "sightline-sample-stats: pid %d signals %llu handler_us %llu "
                        "python_us %llu cpu_us %llu\n",
                        (int) getpid (), (unsigned long long) atomic_load (&S.stats_signals),
                        (unsigned long long) (atomic_load (&S.stats_ns) / 1000u),
                        (unsigned long long) (atomic_load (&S.stats_python_ns) / 1000u),
                        (unsigned long long) cpu_us);
      if (n > 0 && write (2, line, (size_t) n) < 0)
        n = 0;
    }
  _sl_leave_library ();
}

/* SIGHTLINE_SAMPLE_STATS=1: this process's account so far (signals, handler µs, of which Python
 * µs), for a program that wants the sampler's cost over a part of its run (bench-pytorch.py's
 * training loop, through ctypes); 0 when it is not kept. */
SL_EXPORT int
sightline_sample_stats (uint64_t out[3])
{
  if (!S.stats || out == NULL)
    return 0;
  out[0] = atomic_load (&S.stats_signals);
  out[1] = atomic_load (&S.stats_ns) / 1000u;
  out[2] = atomic_load (&S.stats_python_ns) / 1000u;
  return 1;
}

/* The program installed its own handler on our signal after we did (a profiler of its own):
 * ours would feed it 1000 signals a second, so sampling stops.  Called every flush. */
static void
sampler_watch (void)
{
  struct sigaction cur;

  if (!atomic_load (&S.active) || sigaction (S.signo, NULL, &cur) != 0
      || cur.sa_sigaction == S.installed.sa_sigaction)
    return;
  _sl_sample_stop ();
}

/* ---------------------------------------------------------------------------------------------- */
/* Modules                                                                                        */

typedef struct
{
  uint64_t    base, start, end;
  uint64_t    name_hash;
  const char *name; /* the loader's (valid while the object is loaded), M.exe or a literal */
  bool        seen;
} SlSentModule;

static struct
{
  _Atomic pid_t      lock;
  pid_t              pid; /* process the list below was sent from */
  bool               walked; /* adds/subs are those of a walk that sent everything */
  unsigned long long adds, subs;
  SlSentModule      *sent;
  size_t             n_sent, cap_sent;
  char               exe[PATH_MAX];
} M;

typedef struct
{
  bool               first;
  bool               changed;
  bool               complete; /* every new object was sent (no ring full) */
  unsigned long long adds, subs;
  uint64_t           vdso;
} SlModuleWalk;

static uint64_t
hash_name (const char *s)
{
  uint64_t h = 14695981039346656037u; /* FNV-1a */

  for (; *s != '\0'; s++)
    h = (h ^ (uint8_t) *s) * 1099511628211u;
  return h;
}

static int
module_cb (struct dl_phdr_info *info,
           size_t               size,
           void                *data)
{
  SlModuleWalk *walk = data;
  bool first = walk->first;

  walk->first = false;
  if (first && size >= offsetof (struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
    {
      walk->adds = info->dlpi_adds;
      walk->subs = info->dlpi_subs;
      if (M.walked && walk->adds == M.adds && walk->subs == M.subs)
        return 1; /* nothing loaded or unloaded since the last walk: stop here */
    }
  walk->changed = true;

  uint64_t start = UINT64_MAX, end = 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD)
      {
        uint64_t lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
        uint64_t hi = lo + info->dlpi_phdr[i].p_memsz;
        start = lo < start ? lo : start;
        end = hi > end ? hi : end;
      }
  if (start >= end)
    return 0;

  const char *name = info->dlpi_name != NULL ? info->dlpi_name : "";
  if (walk->vdso != 0 && start <= walk->vdso && walk->vdso < end)
    name = "[vdso]"; /* nsys's name; glibc calls it linux-vdso.so.1, and it has no file */
  else if (first && name[0] == '\0')
    name = M.exe; /* the program itself */
  else if (name[0] == '\0')
    return 0; /* nothing to read symbols from */

  uint64_t h = hash_name (name);
  for (size_t i = 0; i < M.n_sent; i++)
    {
      SlSentModule *m = &M.sent[i];
      if (m->base == info->dlpi_addr && m->start == start && m->end == end && m->name_hash == h)
        {
          m->seen = true;
          return 0;
        }
    }
  if (M.n_sent == M.cap_sent)
    {
      size_t cap = M.cap_sent > 0 ? M.cap_sent * 2 : 64;
      SlSentModule *sent = realloc (M.sent, cap * sizeof *sent);
      if (sent == NULL)
        {
          walk->complete = false;
          return 0;
        }
      M.sent = sent;
      M.cap_sent = cap;
    }
  SlWireModule rec = { { SL_WIRE_MODULE, 0, 0 }, info->dlpi_addr, start, end };
  if (!_sl_emit_with_text (SL_WIRE_MODULE, &rec, sizeof rec, name, false))
    {
      walk->complete = false; /* ring full: again next time */
      return 0;
    }
  M.sent[M.n_sent++] = (SlSentModule){ info->dlpi_addr, start, end, h, name, true };
  return 0;
}

static int
counts_cb (struct dl_phdr_info *info,
           size_t               size,
           void                *data)
{
  unsigned long long *c = data;

  if (size >= offsetof (struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
    {
      c[0] = info->dlpi_adds;
      c[1] = info->dlpi_subs;
      c[2] = 1;
    }
  return 1; /* the first object only */
}

/* In a forked child, the parent's list sent again on the child's connection without walking the
 * objects: a walk reads each object's program headers, pages that a child has not mapped yet
 * (fork copies no page table entries of file mappings), 14-27 ms of CPU in each DataLoader worker
 * of a PyTorch program (~400 objects), 1.5 % of its training loop's CPU time.  Only when the
 * parent's last walk sent everything and nothing was loaded or unloaded since (so every name
 * pointer is still the loader's).  1: all sent; 0: none; -1: the ring filled, the ones sent kept
 * in the list (a full walk sends the rest). */
static int
modules_resend (void)
{
  unsigned long long c[3] = { 0, 0, 0 };

  if (!M.walked)
    return 0;
  dl_iterate_phdr (counts_cb, c);
  if (c[2] == 0 || c[0] != M.adds || c[1] != M.subs)
    return 0;
  for (size_t i = 0; i < M.n_sent; i++)
    {
      const SlSentModule *m = &M.sent[i];
      SlWireModule rec = { { SL_WIRE_MODULE, 0, 0 }, m->base, m->start, m->end };
      if (!_sl_emit_with_text (SL_WIRE_MODULE, &rec, sizeof rec, m->name, false))
        {
          M.n_sent = i; /* ring full: the others with the next walk */
          return -1;
        }
    }
  return 1;
}

void
_sl_modules_update (void)
{
  SlModuleWalk walk = { true, false, true, 0, 0, getauxval (AT_SYSINFO_EHDR) };
  pid_t self;

  sampler_watch ();
  self = getpid ();
  /* held by another process: the parent's, at fork, whose list may be half updated */
  pid_t holder = atomic_load (&M.lock);
  lock_acquire (&M.lock);
  if (M.pid != self)
    {
      /* first call, or first in a child after fork: its connection has seen nothing */
      bool child = M.pid != 0 && holder == 0;
      M.pid = self;
      ssize_t n = readlink ("/proc/self/exe", M.exe, sizeof M.exe - 1);
      M.exe[n > 0 ? n : 0] = '\0';
      int resent = child ? modules_resend () : 0;
      if (resent > 0)
        {
          _sl_python_open_mem ();
          lock_release (&M.lock);
          return;
        }
      if (resent == 0)
        M.n_sent = 0; /* (else the ones modules_resend() sent) */
      M.walked = false;
    }
  for (size_t i = 0; i < M.n_sent; i++)
    M.sent[i].seen = false;
  dl_iterate_phdr (module_cb, &walk);
  if (walk.changed)
    {
      _sl_python_update (); /* libpython may have come with this object */
      /* forget the unloaded ones: loaded again, they are sent again */
      size_t kept = 0;
      for (size_t i = 0; i < M.n_sent; i++)
        if (M.sent[i].seen)
          M.sent[kept++] = M.sent[i];
      M.n_sent = kept;
      M.walked = walk.complete;
      M.adds = walk.adds;
      M.subs = walk.subs;
    }
  _sl_python_open_mem (); /* under the lock: one caller at a time */
  lock_release (&M.lock);
}
