/* sl-inject-osrt.c: OS runtime calls that block, interposed by LD_PRELOAD, recorded when they
 * took at least the threshold (1 µs by default, as nsys's --osrt-threshold), with their backtrace
 * when they took at least the backtrace threshold (80 µs by default, as nsys's
 * --osrt-backtrace-threshold).
 *
 * A call that does not block costs two vDSO clock reads and a thread-local test (~40-60 ns); lock
 * functions try the lock first and only time the slow path, so an uncontended
 * pthread_mutex_lock costs one trylock more.  Calls the library makes itself (its flusher, its
 * own reads of /proc) are not recorded.  Raw futex(2) waits through syscall() (what runtimes with
 * their own locks use: OpenMP's, Go's, folly's) are recorded as "syscall"; every other syscall()
 * passes through untimed (one compare more).
 *
 * Backtraces.  As nsys writes them: frame 0 is the C library function itself (its entry, which
 * the daemon resolves to its symbol), then the return addresses of the program from the wrapper's
 * caller outwards.  The walk is the sampler's (_Unwind_Backtrace over DWARF CFI, ~0.7 µs for 14
 * frames, no lock or malloc with libgcc >= 12), taken after the call returned and only for calls
 * over the threshold, so a call that does not block pays nothing for it.
 */
#include "sl-inject-private.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <linux/futex.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static _Atomic int osrt_on;
static uint64_t    threshold_ns = 1000;
static uint64_t    backtrace_ns = UINT64_MAX; /* UINT64_MAX: no backtraces */

#define REAL(name) static __typeof__ (name) *real_##name
REAL (read);
REAL (write);
REAL (pread);
REAL (pwrite);
REAL (readv);
REAL (writev);
REAL (recv);
REAL (recvfrom);
REAL (recvmsg);
REAL (send);
REAL (sendto);
REAL (sendmsg);
REAL (accept);
REAL (accept4);
REAL (connect);
REAL (poll);
REAL (ppoll);
REAL (select);
REAL (pselect);
REAL (epoll_wait);
REAL (epoll_pwait);
REAL (nanosleep);
REAL (clock_nanosleep);
REAL (usleep);
REAL (sleep);
REAL (pthread_mutex_lock);
REAL (pthread_mutex_trylock);
REAL (pthread_mutex_timedlock);
REAL (pthread_cond_wait);
REAL (pthread_cond_timedwait);
REAL (pthread_rwlock_rdlock);
REAL (pthread_rwlock_tryrdlock);
REAL (pthread_rwlock_wrlock);
REAL (pthread_rwlock_trywrlock);
REAL (pthread_join);
REAL (sem_wait);
REAL (sem_trywait);
REAL (sem_timedwait);
REAL (open);
REAL (open64);
REAL (openat);
REAL (close);
REAL (fopen);
REAL (fclose);
REAL (fread);
REAL (fwrite);
REAL (ioctl);
REAL (waitpid);
REAL (fsync);
REAL (syscall);
#undef REAL

static void *
next_symbol (const char *name,
             const char *version)
{
  void *p = version != NULL ? dlvsym (RTLD_NEXT, name, version) : NULL;

  return p != NULL ? p : dlsym (RTLD_NEXT, name);
}

/* Resolved once, before the first use; dlsym may itself read or lock, so the library's own calls
 * during resolution go straight through (they find real_* NULL only before this ran). */
static void
osrt_resolve (void)
{
  static _Atomic int done;

  if (atomic_load_explicit (&done, memory_order_acquire))
    return;
  _sl_enter_library ();
#define RESOLVE(name) real_##name = (__typeof__ (real_##name)) next_symbol (#name, NULL)
  RESOLVE (read);
  RESOLVE (write);
  RESOLVE (pread);
  RESOLVE (pwrite);
  RESOLVE (readv);
  RESOLVE (writev);
  RESOLVE (recv);
  RESOLVE (recvfrom);
  RESOLVE (recvmsg);
  RESOLVE (send);
  RESOLVE (sendto);
  RESOLVE (sendmsg);
  RESOLVE (accept);
  RESOLVE (accept4);
  RESOLVE (connect);
  RESOLVE (poll);
  RESOLVE (ppoll);
  RESOLVE (select);
  RESOLVE (pselect);
  RESOLVE (epoll_wait);
  RESOLVE (epoll_pwait);
  RESOLVE (nanosleep);
  RESOLVE (clock_nanosleep);
  RESOLVE (usleep);
  RESOLVE (sleep);
  RESOLVE (pthread_mutex_lock);
  RESOLVE (pthread_mutex_trylock);
  RESOLVE (pthread_mutex_timedlock);
  RESOLVE (pthread_rwlock_rdlock);
  RESOLVE (pthread_rwlock_tryrdlock);
  RESOLVE (pthread_rwlock_wrlock);
  RESOLVE (pthread_rwlock_trywrlock);
  RESOLVE (pthread_join);
  RESOLVE (sem_trywait);
  RESOLVE (sem_timedwait);
  RESOLVE (open);
  RESOLVE (open64);
  RESOLVE (openat);
  RESOLVE (close);
  RESOLVE (fopen);
  RESOLVE (fclose);
  RESOLVE (fread);
  RESOLVE (fwrite);
  RESOLVE (ioctl);
  RESOLVE (waitpid);
  RESOLVE (fsync);
  RESOLVE (syscall);
#undef RESOLVE
  /* versioned in glibc: plain dlsym would give the 2.2.5 compatibility condvar / semaphore */
  real_pthread_cond_wait = (__typeof__ (real_pthread_cond_wait)) next_symbol ("pthread_cond_wait",
                                                                              "GLIBC_2.3.2");
  real_pthread_cond_timedwait = (__typeof__ (real_pthread_cond_timedwait))
      next_symbol ("pthread_cond_timedwait", "GLIBC_2.3.2");
  real_sem_wait = (__typeof__ (real_sem_wait)) next_symbol ("sem_wait", "GLIBC_2.34");
  _sl_leave_library ();
  atomic_store_explicit (&done, 1, memory_order_release);
}

void
_sl_osrt_start (uint64_t threshold,
                uint64_t backtrace_threshold)
{
  osrt_resolve ();
  threshold_ns = threshold;
  backtrace_ns = backtrace_threshold;
  atomic_store (&osrt_on, 1);
}

static inline bool
osrt_skip (void)
{
  return !atomic_load_explicit (&osrt_on, memory_order_relaxed) || _sl_in_library ();
}

/* The backtrace of a call: `entry` (the real function) then `caller` (the wrapper's return
 * address) and the frames above it; returns the number of frames in `frames`. */
static uint32_t
osrt_backtrace (const void *entry,
                const void *caller,
                uint64_t   *frames,
                uint32_t    max)
{
  uint32_t n;

  frames[0] = (uint64_t) (uintptr_t) entry;
  /* the unwinder may lock or read (older libgcc): those are not the program's calls */
  _sl_enter_library ();
  n = _sl_unwind_from ((uint64_t) (uintptr_t) caller, frames + 1, max - 1);
  _sl_leave_library ();
  if (n == 0)
    {
      frames[1] = (uint64_t) (uintptr_t) caller; /* no unwind info: the caller at least */
      n = 1;
    }
  return _sl_python_merge (frames, n + 1, max, true); /* the Python line that called it */
}

static void
osrt_emit (uint32_t    func,
           uint64_t    t0,
           int64_t     ret,
           const void *entry,
           const void *caller)
{
  uint64_t t1 = _sl_now ();
  int saved = errno;

  /* a call that began before a capture range is not in it, though it ends inside */
  if (t1 - t0 >= threshold_ns && _sl_capture_covers (t0))
    {
      uint64_t frames[SL_WIRE_MAX_FRAMES];
      uint32_t n = 0;
      if (t1 - t0 >= backtrace_ns)
        n = osrt_backtrace (entry, caller, frames, SL_WIRE_MAX_FRAMES);
      SlWireOsrt *r = _sl_emit_begin (SL_WIRE_OSRT, (uint32_t) (sizeof *r + n * sizeof *frames));
      if (r != NULL)
        {
          r->start_ns = t0;
          r->end_ns = t1;
          r->ret = ret;
          r->func = func;
          r->n_frames = n;
          memcpy (r + 1, frames, n * sizeof *frames);
          _sl_emit_end (r);
        }
    }
  errno = saved;
}

#define CALLER() __builtin_extract_return_addr (__builtin_return_address (0))

/* A wrapper: resolve, pass through when off, else time the call. */
#define WRAP(ret_t, name, func, params, args)                                                      \
  SL_EXPORT ret_t name params                                                                      \
  {                                                                                                \
    if (real_##name == NULL)                                                                       \
      osrt_resolve ();                                                                             \
    if (osrt_skip ())                                                                              \
      return real_##name args;                                                                     \
    uint64_t t0 = _sl_now ();                                                                      \
    ret_t r = real_##name args;                                                                    \
    osrt_emit (func, t0, (int64_t) r, (const void *) real_##name, CALLER ());                     \
    return r;                                                                                      \
  }

#define WRAP_PTR(ret_t, name, func, params, args)                                                  \
  SL_EXPORT ret_t name params                                                                      \
  {                                                                                                \
    if (real_##name == NULL)                                                                       \
      osrt_resolve ();                                                                             \
    if (osrt_skip ())                                                                              \
      return real_##name args;                                                                     \
    uint64_t t0 = _sl_now ();                                                                      \
    ret_t r = real_##name args;                                                                    \
    osrt_emit (func, t0, (int64_t) (intptr_t) r, (const void *) real_##name, CALLER ());          \
    return r;                                                                                      \
  }

/* Locks: the uncontended case is one trylock, not timed. */
#define WRAP_LOCK(name, tryname, func, params, args)                                               \
  SL_EXPORT int name params                                                                        \
  {                                                                                                \
    if (real_##name == NULL)                                                                       \
      osrt_resolve ();                                                                             \
    if (osrt_skip ())                                                                              \
      return real_##name args;                                                                     \
    if (real_##tryname args == 0)                                                                  \
      return 0;                                                                                    \
    uint64_t t0 = _sl_now ();                                                                      \
    int r = real_##name args;                                                                      \
    osrt_emit (func, t0, r, (const void *) real_##name, CALLER ());                               \
    return r;                                                                                      \
  }

WRAP (ssize_t, read, SL_OSRT_READ, (int fd, void *buf, size_t n), (fd, buf, n))
WRAP (ssize_t, write, SL_OSRT_WRITE, (int fd, const void *buf, size_t n), (fd, buf, n))
WRAP (ssize_t, pread, SL_OSRT_PREAD, (int fd, void *buf, size_t n, off_t off), (fd, buf, n, off))
WRAP (ssize_t, pwrite, SL_OSRT_PWRITE, (int fd, const void *buf, size_t n, off_t off),
      (fd, buf, n, off))
WRAP (ssize_t, readv, SL_OSRT_READV, (int fd, const struct iovec *iov, int n), (fd, iov, n))
WRAP (ssize_t, writev, SL_OSRT_WRITEV, (int fd, const struct iovec *iov, int n), (fd, iov, n))
WRAP (ssize_t, recv, SL_OSRT_RECV, (int fd, void *buf, size_t n, int flags), (fd, buf, n, flags))
WRAP (ssize_t, recvfrom, SL_OSRT_RECVFROM,
      (int fd, void *buf, size_t n, int flags, struct sockaddr *addr, socklen_t *len),
      (fd, buf, n, flags, addr, len))
WRAP (ssize_t, recvmsg, SL_OSRT_RECVMSG, (int fd, struct msghdr *msg, int flags), (fd, msg, flags))
WRAP (ssize_t, send, SL_OSRT_SEND, (int fd, const void *buf, size_t n, int flags),
      (fd, buf, n, flags))
WRAP (ssize_t, sendto, SL_OSRT_SENDTO,
      (int fd, const void *buf, size_t n, int flags, const struct sockaddr *addr, socklen_t len),
      (fd, buf, n, flags, addr, len))
WRAP (ssize_t, sendmsg, SL_OSRT_SENDMSG, (int fd, const struct msghdr *msg, int flags),
      (fd, msg, flags))
WRAP (int, accept, SL_OSRT_ACCEPT, (int fd, struct sockaddr *addr, socklen_t *len), (fd, addr, len))
WRAP (int, accept4, SL_OSRT_ACCEPT4, (int fd, struct sockaddr *addr, socklen_t *len, int flags),
      (fd, addr, len, flags))
WRAP (int, connect, SL_OSRT_CONNECT, (int fd, const struct sockaddr *addr, socklen_t len),
      (fd, addr, len))
WRAP (int, poll, SL_OSRT_POLL, (struct pollfd * fds, nfds_t n, int timeout), (fds, n, timeout))
WRAP (int, ppoll, SL_OSRT_PPOLL,
      (struct pollfd * fds, nfds_t n, const struct timespec *ts, const sigset_t *mask),
      (fds, n, ts, mask))
WRAP (int, select, SL_OSRT_SELECT,
      (int n, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv), (n, rd, wr, ex, tv))
WRAP (int, pselect, SL_OSRT_PSELECT6,
      (int n, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *ts, const sigset_t *mask),
      (n, rd, wr, ex, ts, mask))
WRAP (int, epoll_wait, SL_OSRT_EPOLL_WAIT, (int fd, struct epoll_event *ev, int n, int timeout),
      (fd, ev, n, timeout))
WRAP (int, epoll_pwait, SL_OSRT_EPOLL_PWAIT,
      (int fd, struct epoll_event *ev, int n, int timeout, const sigset_t *mask),
      (fd, ev, n, timeout, mask))
WRAP (int, nanosleep, SL_OSRT_NANOSLEEP, (const struct timespec *req, struct timespec *rem),
      (req, rem))
WRAP (int, clock_nanosleep, SL_OSRT_CLOCK_NANOSLEEP,
      (clockid_t clock, int flags, const struct timespec *req, struct timespec *rem),
      (clock, flags, req, rem))
WRAP (int, usleep, SL_OSRT_USLEEP, (useconds_t us), (us))
WRAP (unsigned int, sleep, SL_OSRT_SLEEP, (unsigned int s), (s))
WRAP_LOCK (pthread_mutex_lock, pthread_mutex_trylock, SL_OSRT_PTHREAD_MUTEX_LOCK,
           (pthread_mutex_t * m), (m))
WRAP (int, pthread_mutex_timedlock, SL_OSRT_PTHREAD_MUTEX_TIMEDLOCK,
      (pthread_mutex_t * m, const struct timespec *ts), (m, ts))
WRAP (int, pthread_cond_wait, SL_OSRT_PTHREAD_COND_WAIT, (pthread_cond_t * c, pthread_mutex_t *m),
      (c, m))
WRAP (int, pthread_cond_timedwait, SL_OSRT_PTHREAD_COND_TIMEDWAIT,
      (pthread_cond_t * c, pthread_mutex_t *m, const struct timespec *ts), (c, m, ts))
WRAP_LOCK (pthread_rwlock_rdlock, pthread_rwlock_tryrdlock, SL_OSRT_PTHREAD_RWLOCK_RDLOCK,
           (pthread_rwlock_t * l), (l))
WRAP_LOCK (pthread_rwlock_wrlock, pthread_rwlock_trywrlock, SL_OSRT_PTHREAD_RWLOCK_WRLOCK,
           (pthread_rwlock_t * l), (l))
WRAP (int, pthread_join, SL_OSRT_PTHREAD_JOIN, (pthread_t t, void **ret), (t, ret))
WRAP_LOCK (sem_wait, sem_trywait, SL_OSRT_SEM_WAIT, (sem_t * s), (s))
WRAP (int, sem_timedwait, SL_OSRT_SEM_TIMEDWAIT, (sem_t * s, const struct timespec *ts), (s, ts))
WRAP (int, close, SL_OSRT_CLOSE, (int fd), (fd))
WRAP_PTR (FILE *, fopen, SL_OSRT_FOPEN, (const char *path, const char *mode), (path, mode))
WRAP (int, fclose, SL_OSRT_FCLOSE, (FILE * f), (f))
WRAP (size_t, fread, SL_OSRT_FREAD, (void *p, size_t size, size_t n, FILE *f), (p, size, n, f))
WRAP (size_t, fwrite, SL_OSRT_FWRITE, (const void *p, size_t size, size_t n, FILE *f),
      (p, size, n, f))
WRAP (pid_t, waitpid, SL_OSRT_WAITPID, (pid_t pid, int *status, int options),
      (pid, status, options))
WRAP (int, fsync, SL_OSRT_FSYNC, (int fd), (fd))

/* open(2) and friends are variadic: the mode is there only with O_CREAT or O_TMPFILE. */
#define OPEN_MODE(flags, mode)                                                                     \
  do                                                                                               \
    {                                                                                              \
      if ((flags) & (O_CREAT | O_TMPFILE))                                                         \
        {                                                                                          \
          va_list ap;                                                                              \
          va_start (ap, flags);                                                                    \
          mode = (mode_t) va_arg (ap, int);                                                        \
          va_end (ap);                                                                             \
        }                                                                                          \
    }                                                                                              \
  while (0)

/* open, open64 and openat share everything but the function: `dirfd` is AT_FDCWD for the
 * first two. */
static int
open_common (uint32_t    func,
             int         dirfd,
             const char *path,
             int         flags,
             mode_t      mode,
             const void *caller)
{
  if (real_open == NULL)
    osrt_resolve ();
  bool skip = osrt_skip ();
  uint64_t t0 = skip ? 0 : _sl_now ();
  int r = func == SL_OSRT_OPENAT ? real_openat (dirfd, path, flags, mode)
          : func == SL_OSRT_OPEN64 ? real_open64 (path, flags, mode)
                                   : real_open (path, flags, mode);
  if (!skip)
    osrt_emit (func, t0, r,
               func == SL_OSRT_OPENAT   ? (const void *) real_openat
               : func == SL_OSRT_OPEN64 ? (const void *) real_open64
                                        : (const void *) real_open,
               caller);
  return r;
}

SL_EXPORT int
open (const char *path,
      int         flags,
      ...)
{
  mode_t mode = 0;

  OPEN_MODE (flags, mode);
  return open_common (SL_OSRT_OPEN, AT_FDCWD, path, flags, mode, CALLER ());
}

SL_EXPORT int
open64 (const char *path,
        int         flags,
        ...)
{
  mode_t mode = 0;

  OPEN_MODE (flags, mode);
  return open_common (SL_OSRT_OPEN64, AT_FDCWD, path, flags, mode, CALLER ());
}

SL_EXPORT int
openat (int         dirfd,
        const char *path,
        int         flags,
        ...)
{
  mode_t mode = 0;

  OPEN_MODE (flags, mode);
  return open_common (SL_OSRT_OPENAT, dirfd, path, flags, mode, CALLER ());
}

/* ioctl's third argument is one pointer-sized value in every use. */
SL_EXPORT int
ioctl (int           fd,
       unsigned long request,
       ...)
{
  va_list ap;
  void *arg;

  va_start (ap, request);
  arg = va_arg (ap, void *);
  va_end (ap);
  if (real_ioctl == NULL)
    osrt_resolve ();
  if (osrt_skip ())
    return real_ioctl (fd, request, arg);
  uint64_t t0 = _sl_now ();
  int r = real_ioctl (fd, request, arg);
  osrt_emit (SL_OSRT_IOCTL, t0, r, (const void *) real_ioctl, CALLER ());
  return r;
}

/* The futex operations that wait (FUTEX_WAIT, _BITSET, _REQUEUE_PI, the PI locks); wakes and
 * requeues return at once and are not timed. */
static bool
futex_waits (long op)
{
  switch (op & FUTEX_CMD_MASK)
    {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET:
    case FUTEX_WAIT_REQUEUE_PI:
    case FUTEX_LOCK_PI:
    case 13: /* FUTEX_LOCK_PI2 (Linux 5.14; not in every header) */
      return true;
    default:
      return false;
    }
}

/* syscall(2) is variadic: its six argument registers are passed on as they came (a va_arg the
 * caller did not pass reads a register's stale value on x86-64 and arm64, which the kernel
 * ignores for a call that takes fewer, as glibc's own syscall() does). */
SL_EXPORT long
syscall (long number, ...)
{
  va_list ap;
  long a[6];

  va_start (ap, number);
  for (int i = 0; i < 6; i++)
    a[i] = va_arg (ap, long);
  va_end (ap);
  if (real_syscall == NULL)
    osrt_resolve ();
  if (number != SYS_futex || !futex_waits (a[1]) || osrt_skip ())
    return real_syscall (number, a[0], a[1], a[2], a[3], a[4], a[5]);
  uint64_t t0 = _sl_now ();
  long r = real_syscall (number, a[0], a[1], a[2], a[3], a[4], a[5]);
  osrt_emit (SL_OSRT_SYSCALL_FUTEX, t0, r, (const void *) real_syscall, CALLER ());
  return r;
}
