/* sl-sched.c: the scheduling of a recorded program's threads, from outside the program, as
 * SCHED_EVENTS rows (SL_WIRE_SCHED records queued like the target's own).
 *
 * Two ways, chosen per recording:
 *  - perf (the default where allowed): one PERF_COUNT_SW_DUMMY event per CPU attached to the
 *    program's first process before it execs, with context_switch (PERF_RECORD_SWITCH in/out,
 *    and whether an out was a preemption), task (PERF_RECORD_EXIT) and inherit, so that every
 *    thread and process it creates is covered from its first instruction.  Times are
 *    CLOCK_MONOTONIC (use_clockid), the session's base.  Exact: every switch, no sampling.
 *    Allowed with perf_event_paranoid <= 2 for one's own processes (kernel side excluded at 2,
 *    which switch records do not need), refused by seccomp filters such as Docker's default.
 *    A thread's out carries state 1 (Running: it was preempted, still runnable) or 7 (Waiting:
 *    it gave up the CPU itself, so it waits for something; perf does not say for what, and
 *    nsys writes 0, Unknown, there, which a viewer cannot tell from a preemption); its last
 *    out at exit 5.
 *  - /proc polling (the fallback): every thread's /proc/PID/task/TID/schedstat (CPU time) and
 *    stat (state, last CPU) read at SL_SCHED_PROC_HZ through descriptors kept open; the threads
 *    and child processes are looked for every SL_PROC_SCAN_MS (children files, else a scan of
 *    /proc).  schedstat's CPU time is exact at each switch but brought up to date only at
 *    scheduler ticks while a thread runs, so the CPU time each poll finds is drawn next to the
 *    running time before it (fewest switches) and what does not fit the interval goes into the
 *    next ones: each thread's running total is right, its switches are placed within a poll
 *    (1 ms) where it blocked and within a scheduler tick (1-10 ms) where it was preempted.
 *    States are the kernel's (R runnable, S interruptible, D uninterruptible, T stopped, Z
 *    terminated).
 *    Threads and processes living less than SL_PROC_SCAN_MS may be missed.
 * Each thread's ins and outs alternate: an event that would repeat the thread's state is dropped.
 * Each process of the tree is also sent as /proc shows it (SL_WIRE_PROCESS: command line, parent)
 * when first seen and after an exec (perf's COMM_EXEC records; /proc: its command line looked at
 * every scan), so that processes without the injection library are named too.
 */
#include "sl-sched.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sl-daemon-private.h"
#include "sl-wire.h"

#define SL_PERF_PAGES     128  /* data pages per CPU: 512 KiB, ~16000 switches, the most an
                                * unprivileged user may lock (perf_event_mlock_kb = 516) */
/* The perf reader wakes every SL_PERF_POLL_MS, or earlier when a ring is half full (its
 * watermark): each wake-up of the daemon is a context switch on a CPU the program may want, so
 * they are few; 50 ms holds ~4 % of a ring at 7000 switches/s. */
#define SL_PERF_POLL_MS   50
#define SL_PERF_HOLD_NS   10000000u /* events younger than this wait for the other CPUs' */
#define SL_PROC_SCAN_MS   50
#define SL_SCHED_BUF      (64u * 1024)

enum
{
  ST_UNKNOWN = 0, /* ENUM_SAMPLING_THREAD_STATE */
  ST_RUNNING = 1,
  ST_INTERRUPTIBLE = 2,
  ST_UNINTERRUPTIBLE = 3,
  ST_STOPPED = 4,
  ST_TERMINATED = 5,
  ST_WAITING = 7,
};

typedef struct
{
  int32_t  pid;
  uint32_t tid;
  bool     in;
  uint32_t cpu_in; /* the CPU of its last switch in */
  /* /proc */
  int      fd_stat, fd_schedstat;
  uint64_t run_ns; /* schedstat's CPU time at the last poll */
  uint64_t last_ns;
  bool     seen;
} Thread;

typedef struct
{
  uint64_t time;
  int32_t  pid;
  uint32_t tid;
  uint16_t cpu;
  uint8_t  kind; /* EV_* */
} Ev;

typedef struct
{
  int32_t  pid;
  uint64_t cmd_hash; /* of the command line last sent */
} Proc;

enum
{
  EV_IN,
  EV_OUT,
  EV_OUT_PREEMPT,
  EV_EXIT,
  EV_EXEC,
};

struct _SlSched
{
  SlSchedMethod method;
  pid_t         root;
  SlSchedSink   sink;
  void         *user_data;
  pthread_t     thread;
  _Atomic int   stop;
  char          describe[160];
  Thread       *threads;
  size_t        n_threads, cap_threads;
  uint8_t       out[SL_SCHED_BUF];
  size_t        out_len;
  /* perf */
  int           n_fds;
  int          *fds;
  void        **maps;
  size_t        map_size;
  size_t        page_size;
  uint64_t      lost;
  Ev           *evs;
  size_t        n_evs, cap_evs;
  /* /proc */
  Proc         *procs; /* the tree's processes seen so far */
  size_t        n_procs, cap_procs;
  int32_t       last_pid; /* perf: the pid of the last event, known already */
  bool          no_children_file;
};

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

int
sl_sched_method_parse (const char *s)
{
  if (s == NULL || strcmp (s, "auto") == 0 || strcmp (s, "on") == 0)
    return SL_SCHED_AUTO;
  if (strcmp (s, "off") == 0)
    return SL_SCHED_OFF;
  if (strcmp (s, "perf") == 0)
    return SL_SCHED_PERF;
  if (strcmp (s, "proc") == 0)
    return SL_SCHED_PROC;
  return -1;
}

/* ---------------------------------------------------------------------------------------------- */
/* Output                                                                                         */

static void
out_flush (SlSched *s)
{
  if (s->out_len > 0)
    s->sink (s->out, s->out_len, s->user_data);
  s->out_len = 0;
}

static void
out_put (SlSched    *s,
         const void *record,
         size_t      size)
{
  if (s->out_len + size > sizeof s->out)
    out_flush (s);
  memcpy (s->out + s->out_len, record, size);
  s->out_len += size;
}

static Thread *
thread_find (SlSched *s,
             int32_t  pid,
             uint32_t tid,
             bool     create)
{
  for (size_t i = 0; i < s->n_threads; i++)
    if (s->threads[i].tid == tid && s->threads[i].pid == pid)
      return &s->threads[i];
  if (!create || !_sl_grow ((void **) &s->threads, &s->cap_threads, s->n_threads + 1, sizeof (Thread)))
    return NULL;
  Thread *t = &s->threads[s->n_threads++];
  *t = (Thread) { .pid = pid, .tid = tid, .fd_stat = -1, .fd_schedstat = -1 };
  return t;
}

/* A switch of `t`, unless it repeats the thread's state. */
static void
emit (SlSched  *s,
      Thread   *t,
      uint64_t  time,
      uint32_t  cpu,
      bool      in,
      uint8_t   state)
{
  if (t->in == in)
    return;
  t->in = in;
  if (in)
    t->cpu_in = cpu;
  SlWireSched r = { { SL_WIRE_SCHED, sizeof r, t->tid }, time, t->pid,
                    (uint16_t) (cpu < UINT16_MAX ? cpu : UINT16_MAX), in, state };
  out_put (s, &r, sizeof r);
}

static void
emit_lost (SlSched *s)
{
  if (s->lost == 0)
    return;
  SlWireDropped d = { { SL_WIRE_DROPPED, sizeof d, (uint32_t) s->root }, now_ns (), s->lost,
                      SL_DROP_RING_FULL, 0 };
  out_put (s, &d, sizeof d);
  s->lost = 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Processes                                                                                      */

/* Reads a whole small /proc file by path into `buf`; its length, or -1. */
static ssize_t
read_path (const char *path,
           char       *buf,
           size_t      size)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read (fd, buf, size - 1) : -1;

  if (fd >= 0)
    close (fd);
  buf[n > 0 ? n : 0] = '\0';
  return n;
}

/* Sends what /proc says of `p` (command line, parent) when it changed since last sent: a new
 * process, or one that ran exec. */
static void
proc_report (SlSched *s,
             Proc    *p)
{
  char path[64], cmd[4096], stat[1024];
  ssize_t n;

  snprintf (path, sizeof path, "/proc/%d/cmdline", (int) p->pid);
  n = read_path (path, cmd, sizeof cmd);
  if (n <= 0)
    return; /* gone, or a zombie: what was sent stays */
  /* as the library's HELLO has it: arguments separated by spaces */
  for (ssize_t i = 0; i < n; i++)
    if (cmd[i] == '\0')
      cmd[i] = ' ';
  while (n > 0 && cmd[n - 1] == ' ')
    n--;
  cmd[n] = '\0';
  uint64_t h = 14695981039346656037u; /* FNV-1a */
  for (const char *c = cmd; *c != '\0'; c++)
    h = (h ^ (uint8_t) *c) * 1099511628211u;
  if (h == p->cmd_hash)
    return;
  p->cmd_hash = h;
  int32_t ppid = 0;
  snprintf (path, sizeof path, "/proc/%d/stat", (int) p->pid);
  const char *paren = read_path (path, stat, sizeof stat) > 0 ? strrchr (stat, ')') : NULL;
  if (paren != NULL && paren[1] == ' ' && paren[2] != '\0')
    ppid = (int32_t) strtol (paren + 4, NULL, 10);

  uint8_t rec[sizeof (SlWireProcess) + sizeof cmd + 8];
  uint32_t size = sl_wire_size (sizeof (SlWireProcess), (uint32_t) n);
  SlWireProcess r = { { SL_WIRE_PROCESS, (uint16_t) size, (uint32_t) p->pid }, now_ns (), p->pid,
                      ppid };
  memset (rec, 0, size);
  memcpy (rec, &r, sizeof r);
  memcpy (rec + sizeof r, cmd, (size_t) n);
  out_put (s, rec, size);
}

static Proc *
proc_find (SlSched *s,
           int32_t  pid)
{
  for (size_t i = 0; i < s->n_procs; i++)
    if (s->procs[i].pid == pid)
      return &s->procs[i];
  return NULL;
}

static bool
proc_known (SlSched *s,
            int32_t  pid)
{
  return proc_find (s, pid) != NULL;
}

/* A process of the tree, sent the first time it is seen. */
static void
proc_add (SlSched *s,
          int32_t  pid)
{
  if (proc_known (s, pid)
      || !_sl_grow ((void **) &s->procs, &s->cap_procs, s->n_procs + 1, sizeof (Proc)))
    return;
  s->procs[s->n_procs] = (Proc) { pid, 0 };
  proc_report (s, &s->procs[s->n_procs++]);
}

/* ---------------------------------------------------------------------------------------------- */
/* perf                                                                                           */

static int
perf_open (pid_t pid,
           int   cpu,
           bool  exclude_kernel,
           size_t map_size)
{
  struct perf_event_attr a;

  memset (&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_DUMMY;
  a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
  a.sample_id_all = 1;
  a.context_switch = 1;
  a.task = 1;
  a.comm = 1; /* with comm_exec: PERF_RECORD_COMM marks an exec */
  a.comm_exec = 1;
  a.inherit = 1;
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;
  a.exclude_kernel = exclude_kernel;
  a.exclude_hv = 1;
  a.watermark = 1;
  a.wakeup_watermark = (uint32_t) (map_size / 2);
  return (int) syscall (SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static bool
perf_setup (SlSched *s,
            char   **error)
{
  long n_cpus = sysconf (_SC_NPROCESSORS_CONF);
  long page = sysconf (_SC_PAGESIZE);
  bool exclude_kernel = false;
  int refused = 0;

  if (n_cpus < 1)
    n_cpus = 1;
  s->page_size = (size_t) page;
  s->map_size = (size_t) page * (1 + SL_PERF_PAGES);
  s->fds = calloc ((size_t) n_cpus, sizeof (int));
  s->maps = calloc ((size_t) n_cpus, sizeof (void *));
  if (s->fds == NULL || s->maps == NULL)
    return false;
  for (int cpu = 0; cpu < n_cpus; cpu++)
    {
      int fd = perf_open (s->root, cpu, exclude_kernel, s->map_size);
      if (fd < 0 && !exclude_kernel && (errno == EACCES || errno == EPERM))
        {
          exclude_kernel = true; /* perf_event_paranoid 2: user side only, switches still come */
          fd = perf_open (s->root, cpu, exclude_kernel, s->map_size);
        }
      if (fd < 0)
        {
          if (errno == ENODEV || errno == EINVAL)
            continue; /* an offline CPU */
          refused = errno;
          break;
        }
      void *map = mmap (NULL, s->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      while (map == MAP_FAILED && errno == EPERM && s->n_fds == 0
             && s->map_size > s->page_size * 9)
        {
          /* over the locked-memory limit (other perf users of ours): smaller rings */
          s->map_size = s->page_size * (1 + (s->map_size / s->page_size - 1) / 2);
          map = mmap (NULL, s->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        }
      if (map == MAP_FAILED)
        {
          refused = errno;
          close (fd);
          break;
        }
      s->fds[s->n_fds] = fd;
      s->maps[s->n_fds++] = map;
    }
  if (refused != 0 || s->n_fds == 0)
    {
      if (error != NULL)
        {
          free (*error);
          if (asprintf (error, "perf_event_open refused (%s)",
                        strerror (refused != 0 ? refused : ENODEV))
              < 0)
            *error = NULL;
        }
      for (int i = 0; i < s->n_fds; i++)
        {
          munmap (s->maps[i], s->map_size);
          close (s->fds[i]);
        }
      s->n_fds = 0;
      return false;
    }
  snprintf (s->describe, sizeof s->describe,
            "perf context-switch records (exact, every switch of every thread)");
  return true;
}

static void
perf_record (SlSched                         *s,
             const struct perf_event_header *h,
             const uint8_t                   *rec)
{
  uint32_t u32[4];
  uint64_t u64;
  Ev ev;

  switch (h->type)
    {
    case PERF_RECORD_SWITCH:
      if (h->size < 8 + 24)
        return;
      memcpy (u32, rec + 8, 8);  /* pid, tid */
      memcpy (&u64, rec + 16, 8); /* time */
      memcpy (u32 + 2, rec + 24, 4); /* cpu */
      ev = (Ev) { u64, (int32_t) u32[0], u32[1], (uint16_t) u32[2],
                  (h->misc & PERF_RECORD_MISC_SWITCH_OUT) == 0 ? EV_IN
                  : (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0 ? EV_OUT_PREEMPT
                                                                         : EV_OUT };
      break;
    case PERF_RECORD_EXIT:
      if (h->size < 8 + 24 + 24)
        return;
      memcpy (u32, rec + 8, 16); /* pid, ppid, tid, ptid */
      memcpy (&u64, rec + 24, 8);
      ev = (Ev) { u64, (int32_t) u32[0], u32[2], 0, EV_EXIT };
      /* the cpu of its sample_id */
      memcpy (u32 + 3, rec + 32 + 16, 4);
      ev.cpu = (uint16_t) u32[3];
      break;
    case PERF_RECORD_COMM:
      if ((h->misc & PERF_RECORD_MISC_COMM_EXEC) == 0 || h->size < 16 + 24)
        return; /* a thread renamed */
      memcpy (u32, rec + 8, 8);
      memcpy (&u64, rec + h->size - 16, 8); /* the time of the sample_id that ends it */
      ev = (Ev) { u64, (int32_t) u32[0], u32[1], 0, EV_EXEC };
      break;
    case PERF_RECORD_LOST:
      if (h->size >= 24)
        {
          memcpy (&u64, rec + 16, 8);
          s->lost += u64;
        }
      return;
    default:
      return;
    }
  if (ev.pid <= 0)
    return;
  if (_sl_grow ((void **) &s->evs, &s->cap_evs, s->n_evs + 1, sizeof (Ev)))
    s->evs[s->n_evs++] = ev;
}

/* `n` bytes at `pos` of a ring of `size` bytes (a power of two), across its end. */
static void
ring_copy (void          *dst,
           const uint8_t *data,
           uint64_t       size,
           uint64_t       pos,
           size_t         n)
{
  size_t off = (size_t) (pos & (size - 1));
  size_t first = n < size - off ? n : (size_t) (size - off);

  memcpy (dst, data + off, first);
  memcpy ((uint8_t *) dst + first, data, n - first);
}

static void
perf_drain_ring (SlSched *s,
                 int      i)
{
  struct perf_event_mmap_page *pg = s->maps[i];
  uint8_t *data = (uint8_t *) s->maps[i] + s->page_size;
  uint64_t size = s->map_size - s->page_size;
  uint64_t head = __atomic_load_n (&pg->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = pg->data_tail;
  uint8_t rec[1024];

  while (tail + sizeof (struct perf_event_header) <= head)
    {
      struct perf_event_header h;
      ring_copy (&h, data, size, tail, sizeof h);
      if (h.size < sizeof h || tail + h.size > head)
        break;
      if (h.size <= sizeof rec)
        {
          ring_copy (rec, data, size, tail, h.size);
          perf_record (s, &h, rec);
        }
      tail += h.size;
    }
  __atomic_store_n (&pg->data_tail, tail, __ATOMIC_RELEASE);
}

static int
ev_cmp (const void *a,
        const void *b)
{
  const Ev *x = a, *y = b;

  return x->time < y->time ? -1 : x->time > y->time;
}

/* Events of all CPUs in time order; those younger than the hold-back wait (unless `all`), since
 * another CPU's ring may still hold older ones of the same thread. */
static void
perf_process (SlSched *s,
              bool     all)
{
  uint64_t cutoff = all ? UINT64_MAX : now_ns () - SL_PERF_HOLD_NS;
  size_t n = 0;

  for (int i = 0; i < s->n_fds; i++)
    perf_drain_ring (s, i);
  if (s->n_evs > 1)
    qsort (s->evs, s->n_evs, sizeof (Ev), ev_cmp);
  for (; n < s->n_evs && s->evs[n].time <= cutoff; n++)
    {
      const Ev *e = &s->evs[n];
      if (e->pid != s->last_pid)
        {
          proc_add (s, e->pid);
          s->last_pid = e->pid;
        }
      if (e->kind == EV_EXEC)
        {
          Proc *p = proc_find (s, e->pid);
          if (p != NULL)
            proc_report (s, p); /* its new command line */
          continue;
        }
      /* a thread is known from its first in to its exit (an out then has nothing to end) */
      Thread *t = thread_find (s, e->pid, e->tid, e->kind == EV_IN);
      if (t == NULL)
        continue;
      switch (e->kind)
        {
        case EV_IN: emit (s, t, e->time, e->cpu, true, ST_RUNNING); break;
        case EV_OUT: emit (s, t, e->time, e->cpu, false, ST_WAITING); break;
        case EV_OUT_PREEMPT: emit (s, t, e->time, e->cpu, false, ST_RUNNING); break;
        case EV_EXIT:
          emit (s, t, e->time, e->cpu, false, ST_TERMINATED);
          *t = s->threads[--s->n_threads];
          break;
        }
    }
  /* (evs is NULL until the first event: memmove of NULL is undefined even for 0 bytes; UBSan
   * caught it with eight recordings at once) */
  if (n > 0)
    memmove (s->evs, s->evs + n, (s->n_evs - n) * sizeof (Ev));
  s->n_evs -= n;
  emit_lost (s);
  out_flush (s);
}

static void *
perf_main (void *data)
{
  SlSched *s = data;
  struct pollfd pfds[256];
  bool hup[256] = { false };
  int n = s->n_fds < 256 ? s->n_fds : 256;

  /* niced as the writer: its work waits in the rings (the watermark still wakes it at half), so
   * it takes the CPU time the program leaves (bench-collector sched) */
  _sl_thread_lower_priority (10);
  while (!atomic_load (&s->stop))
    {
      /* a ring whose task is gone reports POLLHUP for good: it is still read, not waited on */
      nfds_t k = 0;
      for (int i = 0; i < n; i++)
        if (!hup[i])
          pfds[k++] = (struct pollfd) { s->fds[i], POLLIN, 0 };
      if (k > 0)
        poll (pfds, k, SL_PERF_POLL_MS);
      else
        {
          struct timespec ts = { 0, SL_PERF_POLL_MS * 1000000L };
          nanosleep (&ts, NULL);
        }
      for (nfds_t j = 0; j < k; j++)
        if (pfds[j].revents & (POLLHUP | POLLERR))
          for (int i = 0; i < n; i++)
            if (s->fds[i] == pfds[j].fd)
              hup[i] = true;
      perf_process (s, false);
    }
  perf_process (s, true);
  /* still running at the end (detached): out now, as nsys ends a capture */
  for (size_t i = 0; i < s->n_threads; i++)
    emit (s, &s->threads[i], now_ns (), 0, false, ST_UNKNOWN);
  out_flush (s);
  return NULL;
}

/* ---------------------------------------------------------------------------------------------- */
/* /proc                                                                                          */

/* Reads a /proc file through its open descriptor; false when the task is gone. */
static bool
read_fd (int     fd,
         char   *buf,
         size_t  size)
{
  ssize_t n = pread (fd, buf, size - 1, 0);

  if (n <= 0)
    return false;
  buf[n] = '\0';
  return true;
}

/* stat's state letter, ppid and last CPU. */
static bool
parse_stat (const char *buf,
            char       *state,
            int32_t    *ppid,
            uint32_t   *cpu)
{
  const char *p = strrchr (buf, ')');

  if (p == NULL || p[1] != ' ')
    return false;
  p += 2;
  *state = *p;
  for (int field = 3; *p != '\0'; field++)
    {
      if (field == 4 && ppid != NULL)
        *ppid = (int32_t) strtol (p, NULL, 10);
      if (field == 39)
        {
          *cpu = (uint32_t) strtoul (p, NULL, 10);
          return true;
        }
      p = strchr (p, ' ');
      if (p == NULL)
        break;
      p++;
    }
  *cpu = 0;
  return ppid != NULL;
}

static uint8_t
state_of (char c)
{
  switch (c)
    {
    case 'R': return ST_RUNNING;
    case 'S': return ST_INTERRUPTIBLE;
    case 'D': return ST_UNINTERRUPTIBLE;
    case 'T': case 't': return ST_STOPPED;
    case 'Z': case 'X': return ST_TERMINATED;
    default: return ST_UNKNOWN;
    }
}

static void
thread_close (Thread *t)
{
  if (t->fd_stat >= 0)
    close (t->fd_stat);
  if (t->fd_schedstat >= 0)
    close (t->fd_schedstat);
  t->fd_stat = t->fd_schedstat = -1;
}

static void
proc_add_thread (SlSched *s,
                 int32_t  pid,
                 uint32_t tid,
                 uint64_t now)
{
  char path[96], buf[256];

  if (thread_find (s, pid, tid, false) != NULL)
    return;
  Thread *t = thread_find (s, pid, tid, true);
  if (t == NULL)
    return;
  snprintf (path, sizeof path, "/proc/%d/task/%u/stat", (int) pid, tid);
  t->fd_stat = open (path, O_RDONLY | O_CLOEXEC);
  snprintf (path, sizeof path, "/proc/%d/task/%u/schedstat", (int) pid, tid);
  t->fd_schedstat = open (path, O_RDONLY | O_CLOEXEC);
  t->last_ns = now;
  if (t->fd_schedstat >= 0 && read_fd (t->fd_schedstat, buf, sizeof buf))
    t->run_ns = strtoull (buf, NULL, 10);
}

/* New threads of the known processes, and their new child processes. */
static void
proc_scan (SlSched *s,
           uint64_t now)
{
  char path[96], buf[4096];

  for (size_t i = 0; i < s->n_procs; i++)
    {
      int32_t pid = s->procs[i].pid;
      proc_report (s, &s->procs[i]); /* an exec changes the command line */
      snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
      DIR *dir = opendir (path);
      if (dir == NULL)
        continue;
      struct dirent *e;
      while ((e = readdir (dir)) != NULL)
        {
          if (!isdigit ((unsigned char) e->d_name[0]))
            continue;
          uint32_t tid = (uint32_t) strtoul (e->d_name, NULL, 10);
          proc_add_thread (s, pid, tid, now);
          if (s->no_children_file)
            continue;
          snprintf (path, sizeof path, "/proc/%d/task/%u/children", (int) pid, tid);
          int fd = open (path, O_RDONLY | O_CLOEXEC);
          if (fd < 0 && errno == ENOENT && tid == (uint32_t) pid)
            s->no_children_file = true; /* kernel without CONFIG_PROC_CHILDREN */
          if (fd < 0)
            continue;
          if (read_fd (fd, buf, sizeof buf))
            for (char *p = buf; *p != '\0';)
              {
                char *end;
                long child = strtol (p, &end, 10);
                if (end == p)
                  break;
                if (child > 0)
                  proc_add (s, (int32_t) child);
                p = end;
              }
          close (fd);
        }
      closedir (dir);
    }
  if (!s->no_children_file)
    return;
  /* no children files: every process's parent, until nothing new turns up */
  for (bool added = true; added;)
    {
      added = false;
      DIR *dir = opendir ("/proc");
      struct dirent *e;
      while (dir != NULL && (e = readdir (dir)) != NULL)
        {
          if (!isdigit ((unsigned char) e->d_name[0]))
            continue;
          int32_t pid = (int32_t) strtol (e->d_name, NULL, 10);
          if (proc_known (s, pid))
            continue;
          snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
          int fd = open (path, O_RDONLY | O_CLOEXEC);
          char state;
          int32_t ppid = 0;
          uint32_t cpu;
          if (fd >= 0 && read_fd (fd, buf, sizeof buf) && parse_stat (buf, &state, &ppid, &cpu)
              && proc_known (s, ppid))
            {
              proc_add (s, pid);
              added = true;
            }
          if (fd >= 0)
            close (fd);
        }
      if (dir != NULL)
        closedir (dir);
    }
}

/* One poll of every thread: its CPU time since the last one becomes running time. */
static void
proc_poll (SlSched *s)
{
  char buf[1024];
  size_t kept = 0;

  for (size_t i = 0; i < s->n_threads; i++)
    {
      Thread *t = &s->threads[i];
      char state = '?';
      uint32_t cpu = 0;
      bool alive = read_fd (t->fd_schedstat, buf, sizeof buf);
      uint64_t run = alive ? strtoull (buf, NULL, 10) : t->run_ns;
      alive = alive && read_fd (t->fd_stat, buf, sizeof buf) && parse_stat (buf, &state, NULL, &cpu);
      uint64_t now = now_ns ();
      uint64_t interval = now - t->last_ns;
      /* schedstat's CPU time of a running thread is brought up to date at scheduler ticks and
       * switches only: what does not fit the interval is credited to the next ones */
      uint64_t ran = run > t->run_ns ? run - t->run_ns : 0;
      if (ran > interval)
        ran = interval;
      uint8_t st = alive ? state_of (state) : ST_TERMINATED;

      if (t->in)
        {
          /* it ran from the last poll for `ran`: out there, unless it ran all along (1% or
           * 20 µs short of it: the two files are not read at the same instant) */
          uint64_t slack = interval / 100 > 20000 ? interval / 100 : 20000;
          /* out on the CPU it came in on: /proc's CPU is the last it ran on, and it may have
           * moved since (a switch the model would not pair); a move while it runs all along is
           * an out and an in now */
          if (!alive || st != ST_RUNNING || ran + slack < interval)
            emit (s, t, t->last_ns + ran, t->cpu_in, false, st == ST_RUNNING ? ST_RUNNING : st);
          else if (cpu != t->cpu_in)
            {
              emit (s, t, now, t->cpu_in, false, ST_RUNNING);
              emit (s, t, now, cpu, true, ST_RUNNING);
            }
        }
      else if (ran > 0)
        {
          /* it ran up to now for `ran`; still running if it is runnable */
          emit (s, t, now - ran, cpu, true, ST_RUNNING);
          if (!alive || st != ST_RUNNING)
            emit (s, t, now, cpu, false, st);
        }
      t->run_ns += ran;
      t->last_ns = now;
      if (!alive || st == ST_TERMINATED)
        {
          emit (s, t, now, t->in ? t->cpu_in : cpu, false, ST_TERMINATED);
          thread_close (t);
          continue; /* gone: no longer polled */
        }
      s->threads[kept++] = *t;
    }
  s->n_threads = kept;
}

static void *
proc_main (void *data)
{
  SlSched *s = data;
  uint64_t period = 1000000000u / SL_SCHED_PROC_HZ;
  uint64_t next = now_ns (), last_scan = 0, last_flush = 0;

  for (bool last = false;; )
    {
      last = atomic_load (&s->stop) != 0;
      uint64_t now = now_ns ();
      if (now - last_scan >= SL_PROC_SCAN_MS * 1000000u || last)
        {
          proc_scan (s, now);
          last_scan = now;
        }
      proc_poll (s);
      if (last)
        break;
      /* to the writer in batches: one a poll would wake it 1000 times a second */
      if (now - last_flush >= SL_PERF_POLL_MS * 1000000u)
        {
          out_flush (s);
          last_flush = now;
        }
      next += period;
      if (next < now)
        next = now + period; /* late (a loaded machine): no burst of catching up */
      struct timespec ts = { (time_t) (next / 1000000000u), (long) (next % 1000000000u) };
      while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
    }
  for (size_t i = 0; i < s->n_threads; i++)
    {
      /* still there at the end (detached): out now, as nsys ends a capture */
      Thread *t = &s->threads[i];
      emit (s, t, now_ns (), 0, false, ST_UNKNOWN);
      thread_close (t);
    }
  s->n_threads = 0;
  out_flush (s);
  return NULL;
}

/* ---------------------------------------------------------------------------------------------- */

SlSched *
sl_sched_start (pid_t         root,
                SlSchedMethod method,
                SlSchedSink   sink,
                void         *user_data,
                char        **error)
{
  SlSched *s;
  bool perf = false;

  if (method == SL_SCHED_OFF || root <= 0)
    return NULL;
  s = calloc (1, sizeof *s);
  if (s == NULL)
    return NULL;
  s->root = root;
  s->sink = sink;
  s->user_data = user_data;
  if (method == SL_SCHED_AUTO || method == SL_SCHED_PERF)
    perf = perf_setup (s, error);
  if (!perf && method == SL_SCHED_PERF)
    {
      free (s->fds);
      free (s->maps);
      free (s);
      return NULL;
    }
  s->method = perf ? SL_SCHED_PERF : SL_SCHED_PROC;
  if (!perf)
    {
      snprintf (s->describe, sizeof s->describe,
                "/proc polling at %d Hz (running time exact, switches placed within %d ms to a "
                "scheduler tick)",
                SL_SCHED_PROC_HZ, 1000 / SL_SCHED_PROC_HZ);
      proc_add (s, root);
      proc_scan (s, now_ns ());
    }
  if (pthread_create (&s->thread, NULL, perf ? perf_main : proc_main, s) != 0)
    {
      sl_sched_stop (s);
      return NULL;
    }
  return s;
}

const char *
sl_sched_describe (const SlSched *s)
{
  return s != NULL ? s->describe : "off";
}

void
sl_sched_stop (SlSched *s)
{
  if (s == NULL)
    return;
  if (s->thread != 0)
    {
      atomic_store (&s->stop, 1);
      pthread_join (s->thread, NULL);
    }
  for (int i = 0; i < s->n_fds; i++)
    {
      munmap (s->maps[i], s->map_size);
      close (s->fds[i]);
    }
  for (size_t i = 0; i < s->n_threads; i++)
    thread_close (&s->threads[i]);
  free (s->fds);
  free (s->maps);
  free (s->threads);
  free (s->evs);
  free (s->procs);
  free (s);
}
