/* sl-wire.c: names of the interposed OS runtime functions, as nsys writes them in StringIds. */
#include "sl-wire.h"

#include <stddef.h>

static const char *const osrt_names[SL_OSRT_N_FUNCS] = {
  [SL_OSRT_READ] = "read",
  [SL_OSRT_WRITE] = "write",
  [SL_OSRT_PREAD] = "pread",
  [SL_OSRT_PWRITE] = "pwrite",
  [SL_OSRT_READV] = "readv",
  [SL_OSRT_WRITEV] = "writev",
  [SL_OSRT_RECV] = "recv",
  [SL_OSRT_RECVFROM] = "recvfrom",
  [SL_OSRT_RECVMSG] = "recvmsg",
  [SL_OSRT_SEND] = "send",
  [SL_OSRT_SENDTO] = "sendto",
  [SL_OSRT_SENDMSG] = "sendmsg",
  [SL_OSRT_ACCEPT] = "accept",
  [SL_OSRT_ACCEPT4] = "accept4",
  [SL_OSRT_CONNECT] = "connect",
  [SL_OSRT_POLL] = "poll",
  [SL_OSRT_PPOLL] = "ppoll",
  [SL_OSRT_SELECT] = "select",
  [SL_OSRT_PSELECT6] = "pselect",
  [SL_OSRT_EPOLL_WAIT] = "epoll_wait",
  [SL_OSRT_EPOLL_PWAIT] = "epoll_pwait",
  [SL_OSRT_NANOSLEEP] = "nanosleep",
  [SL_OSRT_CLOCK_NANOSLEEP] = "clock_nanosleep",
  [SL_OSRT_USLEEP] = "usleep",
  [SL_OSRT_SLEEP] = "sleep",
  [SL_OSRT_PTHREAD_MUTEX_LOCK] = "pthread_mutex_lock",
  [SL_OSRT_PTHREAD_MUTEX_TIMEDLOCK] = "pthread_mutex_timedlock",
  [SL_OSRT_PTHREAD_COND_WAIT] = "pthread_cond_wait",
  [SL_OSRT_PTHREAD_COND_TIMEDWAIT] = "pthread_cond_timedwait",
  [SL_OSRT_PTHREAD_RWLOCK_RDLOCK] = "pthread_rwlock_rdlock",
  [SL_OSRT_PTHREAD_RWLOCK_WRLOCK] = "pthread_rwlock_wrlock",
  [SL_OSRT_PTHREAD_JOIN] = "pthread_join",
  [SL_OSRT_SEM_WAIT] = "sem_wait",
  [SL_OSRT_SEM_TIMEDWAIT] = "sem_timedwait",
  [SL_OSRT_OPEN] = "open",
  [SL_OSRT_OPEN64] = "open64",
  [SL_OSRT_OPENAT] = "openat",
  [SL_OSRT_CLOSE] = "close",
  [SL_OSRT_FOPEN] = "fopen",
  [SL_OSRT_FCLOSE] = "fclose",
  [SL_OSRT_FREAD] = "fread",
  [SL_OSRT_FWRITE] = "fwrite",
  [SL_OSRT_IOCTL] = "ioctl",
  [SL_OSRT_WAITPID] = "waitpid",
  [SL_OSRT_FSYNC] = "fsync",
  [SL_OSRT_SYSCALL_FUTEX] = "syscall",
};

const char *
sl_wire_osrt_name (uint32_t func)
{
  if (func >= SL_OSRT_N_FUNCS || osrt_names[func] == NULL)
    return "unknown";
  return osrt_names[func];
}
