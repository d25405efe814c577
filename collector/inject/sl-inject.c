/* sl-inject.c: the core of libsightline-inject.so: per-thread rings, the flusher, start-up in
 * the target, fork, exit and fatal signals.  C11 + POSIX, no GLib: it runs inside someone else's
 * process.
 *
 * Each producing thread owns a single-producer ring of SL_RING_SIZE bytes (mmap'd once on its
 * first record): producing is a few stores and one release store.  The flusher thread drains every
 * ring to the daemon's socket each SL_FLUSH_MS (or sooner when a ring is half full) with the
 * drain lock held; a fatal signal drains once more from the crashing thread.  When the daemon is
 * gone (EPIPE) the library stops recording and the program goes on unharmed.
 */
#include "sl-inject-private.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SL_RING_SIZE   (1u << 20) /* 1 MiB a thread: ~10^4 records, 200 ms of a busy thread */
#define SL_MAX_RINGS   4096
#define SL_SEND_BUF    (1u << 20)
#define SL_PAD_RECORD  0 /* type of the filler at a ring's wrap point */

typedef struct
{
  _Atomic uint64_t head; /* producer: bytes published */
  _Atomic uint64_t tail; /* consumer: bytes drained */
  _Atomic int      dead; /* its thread exited: free after the last drain */
  uint32_t         tid;
  uint8_t         *data;
} SlRing;

static struct
{
  _Atomic int      recording; /* producing into rings is allowed */
  _Atomic int      connected; /* the socket is up */
  int              fd;
  int              wake_fd;   /* eventfd: a ring is half full */
  pid_t            pid;       /* the process that owns the connection */
  uint64_t         session;
  pthread_t        flusher;
  _Atomic int      flusher_running;
  _Atomic int      stop_flusher;
  pthread_mutex_t  drain_lock;
  _Atomic(SlRing *) rings[SL_MAX_RINGS];
  _Atomic uint64_t drops[SL_DROP_N_SOURCES];
  uint64_t         drops_sent[SL_DROP_N_SOURCES];
  char             socket_path[sizeof ((struct sockaddr_un *) 0)->sun_path];
  unsigned         sample_hz;
  bool             trace_osrt, trace_nvtx, trace_cuda;
  bool             trace_mpi, trace_openmp; /* -t mpi, -t openmp: off by default */
  uint64_t         osrt_threshold_ns;
  uint64_t         osrt_backtrace_ns; /* UINT64_MAX: none */
  bool             cuda_backtraces;   /* SIGHTLINE_CUDA_BACKTRACE asks for some */
  bool             cuda_cpu_faults;   /* SIGHTLINE_CUDA_UM_CPU_PAGE_FAULTS: their instructions are
                                       * named by the daemon, which needs the modules */
  uint8_t          send_buf[SL_SEND_BUF];
  size_t           send_len;
  struct sigaction old_actions[NSIG];
  pthread_key_t    ring_key;
} g = { .fd = -1, .wake_fd = -1, .drain_lock = PTHREAD_MUTEX_INITIALIZER };

static __thread SlRing *tls_ring __attribute__ ((tls_model ("initial-exec")));
static __thread int     tls_in_library __attribute__ ((tls_model ("initial-exec")));
/* tls_emitting, the state of the record this thread is producing: bits 0-2 are 0 idle, 1
 * reserving, 2 a record reserved and being written, 3 publishing it, 4 a record of a signal
 * handler that interrupted 2 or 3 (tls_nest_outer): it goes right after the interrupted one, and
 * is published with it (2) or by itself (3).  A handler that interrupts 1 produces its record as
 * if the thread were idle, with EMIT_INTERRUPTED set, and on its way out leaves 1 with the count
 * above (EMIT_COUNT) one higher: the interrupted reservation sees that its claim (a compare and
 * exchange of the whole word from 1 to 2) failed and starts again after the handler's record.  So
 * a sample taken while the thread writes an OS runtime record, or reserves room for one, is not
 * lost.  Only a handler interrupting a handler's reservation drops its record. */
#define EMIT_STATE       7u
#define EMIT_INTERRUPTED 8u
#define EMIT_COUNT       16u
static __thread _Atomic uint32_t tls_emitting __attribute__ ((tls_model ("initial-exec")));
static __thread uint32_t tls_nest_outer __attribute__ ((tls_model ("initial-exec")));
static __thread uint32_t tls_tid __attribute__ ((tls_model ("initial-exec")));
static __thread uint64_t tls_reserved __attribute__ ((tls_model ("initial-exec")));

uint64_t
_sl_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

uint32_t
_sl_tid (void)
{
  if (tls_tid == 0)
    tls_tid = (uint32_t) gettid ();
  return tls_tid;
}

bool
_sl_in_library (void)
{
  return tls_in_library > 0;
}

void
_sl_enter_library (void)
{
  tls_in_library++;
}

void
_sl_leave_library (void)
{
  tls_in_library--;
}

uint64_t
_sl_dropped (uint32_t source)
{
  return source < SL_DROP_N_SOURCES ? atomic_load (&g.drops[source]) : 0;
}

void
_sl_count_drop (uint32_t source,
                uint64_t n)
{
  if (source < SL_DROP_N_SOURCES)
    atomic_fetch_add_explicit (&g.drops[source], n, memory_order_relaxed);
}

/* ---------------------------------------------------------------------------------------------- */
/* Rings                                                                                          */

static void
ring_thread_exit_cb (void *data)
{
  SlRing *ring = data;

  _sl_sample_thread_stop ();
  atomic_store_explicit (&ring->dead, 1, memory_order_release);
  tls_ring = NULL;
}

/* The calling thread's ring, made on first use.  mmap and the registry CAS are async-signal-safe
 * enough for a first record taken in a signal handler. */
static SlRing *
ring_get (void)
{
  SlRing *ring = tls_ring;

  if (ring != NULL)
    return ring;
  void *mem = mmap (NULL, sizeof (SlRing) + SL_RING_SIZE, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return NULL;
  ring = mem;
  ring->data = (uint8_t *) mem + sizeof (SlRing);
  ring->tid = _sl_tid ();
  for (unsigned i = 0; i < SL_MAX_RINGS; i++)
    {
      SlRing *expected = NULL;
      if (atomic_compare_exchange_strong (&g.rings[i], &expected, ring))
        {
          tls_ring = ring;
          pthread_setspecific (g.ring_key, ring);
          return ring;
        }
    }
  munmap (mem, sizeof (SlRing) + SL_RING_SIZE);
  return NULL;
}

/* The end of a record that was not nested: the thread idle again, or, for a signal handler's
 * record that interrupted a reservation, that reservation told to start again. */
static void
emit_leave (uint32_t word)
{
  if ((word & EMIT_INTERRUPTED) != 0)
    atomic_store (&tls_emitting, ((word & ~(EMIT_STATE | EMIT_INTERRUPTED)) + EMIT_COUNT) | 1);
  else
    atomic_store (&tls_emitting, word & ~EMIT_STATE);
}

/* A record of `size` bytes right after the one this thread is writing (a signal handler's,
 * tls_emitting 2 or 3 in `outer`). */
static void *
emit_nested (SlRing   *ring,
             uint16_t  type,
             uint32_t  size,
             uint32_t  outer)
{
  atomic_store (&tls_emitting, (outer & ~EMIT_STATE) | 4);
  atomic_signal_fence (memory_order_seq_cst);
  uint64_t head = tls_reserved;
  uint64_t tail = atomic_load_explicit (&ring->tail, memory_order_acquire);
  uint32_t off = (uint32_t) (head & (SL_RING_SIZE - 1));
  uint32_t contiguous = SL_RING_SIZE - off;
  uint64_t need = size <= contiguous ? size : contiguous + size;

  if (SL_RING_SIZE - (head - tail) < need)
    {
      atomic_store (&tls_emitting, outer);
      _sl_count_drop (SL_DROP_RING_FULL, 1);
      return NULL;
    }
  if (size > contiguous)
    {
      SlWireHeader *pad = (SlWireHeader *) (ring->data + off);
      pad->type = SL_PAD_RECORD;
      pad->size = 0;
      pad->tid = 0;
      head += contiguous;
      off = 0;
    }
  SlWireHeader *h = (SlWireHeader *) (ring->data + off);
  h->type = type;
  h->size = (uint16_t) size;
  h->tid = ring->tid;
  tls_reserved = head + size;
  tls_nest_outer = outer;
  atomic_signal_fence (memory_order_seq_cst);
  return h;
}

static void *
emit_begin (uint16_t type,
            uint32_t size,
            bool     wait)
{
  if (!atomic_load_explicit (&g.recording, memory_order_relaxed) || size > SL_WIRE_MAX_RECORD - 8
      || (size & 7) != 0 || size < sizeof (SlWireHeader))
    return NULL;
  /* outside a capture range: the program's own events are not recorded (not a drop; NVTX's
   * ranges and marks are left out by sl-inject-nvtx.c, its domains and names kept) */
  if (_sl_capture_gated ()
      && (type == SL_WIRE_OSRT || type == SL_WIRE_SAMPLE || type == SL_WIRE_CUDA_BACKTRACE))
    return NULL;
  uint32_t outer = atomic_load (&tls_emitting);
  uint32_t state = outer & EMIT_STATE;
  if (state == 2 || state == 3)
    return emit_nested (tls_ring, type, size, outer); /* set by the record it interrupts */
  if (state != 0 && !(state == 1 && (outer & EMIT_INTERRUPTED) == 0))
    {
      /* a handler interrupted a handler's reservation, or a nested record: never interleave */
      _sl_count_drop (SL_DROP_SAMPLES, 1);
      return NULL;
    }
  SlRing *ring = ring_get ();
  if (ring == NULL)
    {
      _sl_count_drop (SL_DROP_RING_FULL, 1);
      return NULL;
    }
  /* state 1 here: a signal handler's record, made whole before the interrupted reservation
   * goes on (see tls_emitting) */
  uint32_t word = (outer & ~(EMIT_STATE | EMIT_INTERRUPTED)) | (state == 1 ? EMIT_INTERRUPTED : 0)
                  | 1;
  for (int tries = 0;;)
    {
      atomic_store (&tls_emitting, word);
      atomic_signal_fence (memory_order_seq_cst);
      uint64_t head = atomic_load_explicit (&ring->head, memory_order_relaxed);
      uint64_t tail = atomic_load_explicit (&ring->tail, memory_order_acquire);
      uint32_t off = (uint32_t) (head & (SL_RING_SIZE - 1));
      uint32_t contiguous = SL_RING_SIZE - off;
      uint64_t need = size <= contiguous ? size : contiguous + size;

      if (SL_RING_SIZE - (head - tail) >= need)
        {
          uint32_t start = size > contiguous ? 0 : off;
          tls_reserved = head + need;
          atomic_signal_fence (memory_order_seq_cst);
          uint32_t claimed = word;
          if (!atomic_compare_exchange_strong (&tls_emitting, &claimed,
                                               (word & ~EMIT_STATE) | 2))
            {
              /* a signal handler made a record in the meantime, where this one was going: not
               * a byte of the ring was written yet */
              word = claimed;
              continue;
            }
          if (size > contiguous)
            {
              /* a filler to the end of the ring, published with the record */
              SlWireHeader *pad = (SlWireHeader *) (ring->data + off);
              pad->type = SL_PAD_RECORD;
              pad->size = 0; /* the reader skips to the ring's end */
              pad->tid = 0;
            }
          SlWireHeader *h = (SlWireHeader *) (ring->data + start);
          h->type = type;
          h->size = (uint16_t) size;
          h->tid = ring->tid;
          /* half full: wake the flusher (eventfd_write is glibc-internal: not our wrapper) */
          if (SL_RING_SIZE - (head + need - tail) < SL_RING_SIZE / 2 && g.wake_fd >= 0)
            eventfd_write (g.wake_fd, 1);
          return h;
        }
      if (!wait || (word & EMIT_INTERRUPTED) != 0 || ++tries > 1000 || !atomic_load (&g.connected))
        break;
      eventfd_write (g.wake_fd, 1);
      struct timespec ts = { 0, 1000000 };
      tls_in_library++;
      nanosleep (&ts, NULL);
      tls_in_library--;
      word = atomic_load (&tls_emitting);
    }
  emit_leave (word);
  _sl_count_drop (SL_DROP_RING_FULL, 1);
  return NULL;
}

void *
_sl_emit_begin (uint16_t type,
                uint32_t size)
{
  return emit_begin (type, size, false);
}

void *
_sl_emit_begin_wait (uint16_t type,
                     uint32_t size)
{
  return emit_begin (type, size, true);
}

/* head = max (head, end): a nested record may have published past the one ending here. */
static void
publish (SlRing   *ring,
         uint64_t  end)
{
  uint64_t cur = atomic_load_explicit (&ring->head, memory_order_relaxed);

  while (cur < end
         && !atomic_compare_exchange_weak_explicit (&ring->head, &cur, end, memory_order_release,
                                                    memory_order_relaxed))
    ;
}

void
_sl_emit_end (void *record)
{
  SlRing *ring = tls_ring;

  if (record == NULL || ring == NULL)
    return;
  uint32_t word = atomic_load (&tls_emitting);
  if ((word & EMIT_STATE) == 4)
    {
      /* nested in a record being written: that one's end publishes both */
      if ((tls_nest_outer & EMIT_STATE) == 3)
        publish (ring, tls_reserved);
      atomic_store (&tls_emitting, tls_nest_outer);
      return;
    }
  atomic_store (&tls_emitting, (word & ~EMIT_STATE) | 3);
  atomic_signal_fence (memory_order_seq_cst);
  publish (ring, tls_reserved);
  atomic_signal_fence (memory_order_seq_cst);
  emit_leave (word);
}

size_t
_sl_text_len (const char *text,
              size_t      max)
{
  return text == NULL ? 0 : strnlen (text, max);
}

void
_sl_put_text (void       *record,
              size_t      fixed,
              const char *text,
              size_t      len)
{
  char *dst = (char *) record + fixed;

  if (len > 0)
    memcpy (dst, text, len);
  dst[len] = '\0';
}

bool
_sl_emit_with_text (uint16_t    type,
                    const void *fixed_part,
                    size_t      fixed,
                    const char *text,
                    bool        wait)
{
  size_t len = _sl_text_len (text, SL_WIRE_MAX_RECORD - 64 - fixed);
  uint32_t size = sl_wire_size ((uint32_t) fixed, (uint32_t) len);
  uint8_t *rec = emit_begin (type, size, wait);

  if (rec == NULL)
    return false;
  memcpy (rec + sizeof (SlWireHeader), (const uint8_t *) fixed_part + sizeof (SlWireHeader),
          fixed - sizeof (SlWireHeader));
  _sl_put_text (rec, fixed, text, len);
  memset (rec + fixed + len + 1, 0, size - fixed - len - 1);
  _sl_emit_end (rec);
  return true;
}

/* One ring's complete records to `cb`. */
static size_t
ring_drain (SlRing     *ring,
            SlDrainFunc cb,
            void       *user_data)
{
  uint64_t head = atomic_load_explicit (&ring->head, memory_order_acquire);
  uint64_t tail = atomic_load_explicit (&ring->tail, memory_order_relaxed);
  size_t bytes = 0;

  while (tail < head)
    {
      uint32_t off = (uint32_t) (tail & (SL_RING_SIZE - 1));
      const SlWireHeader *h = (const SlWireHeader *) (ring->data + off);
      uint32_t step = h->type == SL_PAD_RECORD ? SL_RING_SIZE - off : h->size;

      if (step == 0 || step > head - tail)
        break; /* cannot happen with a well-behaved producer; never loop forever */
      if (h->type != SL_PAD_RECORD)
        cb (h, user_data);
      tail += step;
      bytes += step;
    }
  atomic_store_explicit (&ring->tail, tail, memory_order_release);
  return bytes;
}

size_t
_sl_drain (SlDrainFunc cb,
           void       *user_data)
{
  size_t bytes = 0;

  for (unsigned i = 0; i < SL_MAX_RINGS; i++)
    {
      SlRing *ring = atomic_load (&g.rings[i]);
      if (ring == NULL)
        continue;
      int dead = atomic_load_explicit (&ring->dead, memory_order_acquire);
      bytes += ring_drain (ring, cb, user_data);
      if (dead)
        {
          atomic_store (&g.rings[i], NULL);
          munmap (ring, sizeof (SlRing) + SL_RING_SIZE);
        }
    }
  return bytes;
}

/* ---------------------------------------------------------------------------------------------- */
/* Sending                                                                                        */

static void
disconnect (void)
{
  atomic_store (&g.connected, 0);
  atomic_store (&g.recording, 0);
  if (g.fd >= 0)
    close (g.fd);
  g.fd = -1;
}

static void
send_all (const void *data,
          size_t      len)
{
  const uint8_t *p = data;

  while (len > 0 && atomic_load (&g.connected))
    {
      ssize_t n = send (g.fd, p, len, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          /* the daemon is gone: stop recording, leave the program alone */
          disconnect ();
          return;
        }
      p += n;
      len -= (size_t) n;
    }
}

static void
send_flush (void)
{
  if (g.send_len > 0)
    send_all (g.send_buf, g.send_len);
  g.send_len = 0;
}

static void
send_record_cb (const SlWireHeader *h,
                void               *user_data)
{
  (void) user_data;
  if (g.send_len + h->size > SL_SEND_BUF)
    send_flush ();
  memcpy (g.send_buf + g.send_len, h, h->size);
  g.send_len += h->size;
}

static void
send_direct (const void *record)
{
  const SlWireHeader *h = record;

  send_record_cb (h, NULL);
}

static void
report_drops (void)
{
  for (uint32_t s = 0; s < SL_DROP_N_SOURCES; s++)
    {
      uint64_t n = atomic_load (&g.drops[s]);
      if (n == g.drops_sent[s])
        continue;
      SlWireDropped d = { { SL_WIRE_DROPPED, sizeof d, _sl_tid () }, _sl_now (),
                          n - g.drops_sent[s], s, 0 };
      send_direct (&d);
      g.drops_sent[s] = n;
    }
}

/* Everything produced so far to the socket; the caller holds the drain lock. */
static void
flush_locked (void)
{
  if (!atomic_load (&g.connected))
    return;
  _sl_drain (send_record_cb, NULL);
  report_drops ();
  send_flush ();
}

/* Stacks (samples, OS runtime backtraces) need the objects they point into. */
static bool
want_modules (void)
{
  return g.sample_hz > 0 || g.trace_openmp || (g.trace_osrt && g.osrt_backtrace_ns != UINT64_MAX)
         || (g.trace_cuda && (g.cuda_backtraces || g.cuda_cpu_faults));
}

static void *
flusher_main (void *data)
{
  (void) data;
  tls_in_library = 1;
  _sl_name_library_thread ("sightline-flush");
  while (!atomic_load (&g.stop_flusher) && atomic_load (&g.connected))
    {
      struct pollfd pfd = { g.wake_fd, POLLIN, 0 };
      if (poll (&pfd, 1, SL_FLUSH_MS) > 0)
        {
          uint64_t v;
          ssize_t r = read (g.wake_fd, &v, sizeof v);
          (void) r;
        }
      if (want_modules ())
        _sl_modules_update ();
      pthread_mutex_lock (&g.drain_lock);
      flush_locked ();
      pthread_mutex_unlock (&g.drain_lock);
    }
  return NULL;
}

static void
flusher_start (void)
{
  sigset_t all, old;

  /* the flusher takes no signal meant for the program (nor our sampling signal) */
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &old);
  if (pthread_create (&g.flusher, NULL, flusher_main, NULL) == 0)
    atomic_store (&g.flusher_running, 1);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
}

/* The rank a launcher (torchrun, srun, mpirun) gave this process, -1 when none: the first of
 * the variables they set that holds a number (sent after the HELLO's command line). */
static long
rank_from_environment (void)
{
  static const char *const names[] = { "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK",
                                       "PMI_RANK" };

  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    {
      const char *v = getenv (names[i]);
      char *end = NULL;
      if (v == NULL || *v < '0' || *v > '9')
        continue;
      errno = 0;
      unsigned long r = strtoul (v, &end, 10);
      if (errno == 0 && *end == '\0' && r <= 0x7fffffffUL)
        return (long) r;
    }
  return -1;
}

static void
send_hello (void)
{
  /* called with tls_in_library raised: its open/read/send are not the program's */
  char cmdline[4096];
  ssize_t n = 0;
  int fd = open ("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

  if (fd >= 0)
    {
      n = read (fd, cmdline, sizeof cmdline - 1);
      close (fd);
    }
  if (n < 0)
    n = 0;
  for (ssize_t i = 0; i < n; i++)
    if (cmdline[i] == '\0')
      cmdline[i] = ' ';
  while (n > 0 && cmdline[n - 1] == ' ')
    n--;
  cmdline[n] = '\0';

  struct timespec rt;
  clock_gettime (CLOCK_REALTIME, &rt);
  SlWireHello hello = { { SL_WIRE_HELLO, 0, _sl_tid () }, SL_WIRE_MAGIC, SL_WIRE_VERSION,
                        (int32_t) getpid (), (int32_t) getppid (), g.session, _sl_now (),
                        (uint64_t) rt.tv_sec * 1000000000u + (uint64_t) rt.tv_nsec };
  char rank[24] = "";
  long r = rank_from_environment ();
  int rank_len = r >= 0 ? snprintf (rank, sizeof rank, "rank=%ld", r) : -1;
  uint8_t buf[sizeof hello + sizeof cmdline + sizeof rank + 8] = { 0 };
  uint32_t size = sl_wire_size (sizeof hello, (uint32_t) (n + 1 + rank_len));
  hello.h.size = (uint16_t) size;
  memcpy (buf, &hello, sizeof hello);
  memcpy (buf + sizeof hello, cmdline, (size_t) n + 1);
  if (rank_len > 0)
    memcpy (buf + sizeof hello + n + 1, rank, (size_t) rank_len + 1);
  send_all (buf, size);
}

static bool
connect_daemon (void)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    return false;
  memcpy (addr.sun_path, g.socket_path, sizeof addr.sun_path - 1);
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0)
    {
      close (fd);
      return false;
    }
  g.fd = fd;
  g.pid = getpid ();
  atomic_store (&g.connected, 1);
  send_hello ();
  return atomic_load (&g.connected);
}

/* ---------------------------------------------------------------------------------------------- */
/* Thread names                                                                                   */

/* A name given at `time`: the writer keeps the latest by time, whatever order records arrive in. */
static void
emit_thread_name_at (uint32_t    tid,
                     const char *name,
                     uint64_t    time)
{
  SlWireThreadName t = { { SL_WIRE_THREAD_NAME, 0, tid }, time };
  size_t len = _sl_text_len (name, 256);
  uint8_t *rec = _sl_emit_begin (SL_WIRE_THREAD_NAME, sl_wire_size (sizeof t, (uint32_t) len));

  if (rec == NULL)
    return;
  memcpy (rec + sizeof (SlWireHeader), (uint8_t *) &t + sizeof (SlWireHeader),
          sizeof t - sizeof (SlWireHeader));
  ((SlWireHeader *) rec)->tid = tid;
  _sl_put_text (rec, sizeof t, name, len);
  _sl_emit_end (rec);
}

void
_sl_emit_thread_name (uint32_t    tid,
                      const char *name)
{
  emit_thread_name_at (tid, name, _sl_now ());
}

/* The kernel's name of the calling thread (comm), as the trace's first name for it.  Stamped
 * with the time before it is read: a name another thread gives meanwhile (create, then
 * pthread_setname_np from the creator) is later, and wins, whichever record arrives last. */
void
_sl_emit_own_thread_name (void)
{
  char path[64], name[32];
  int fd;
  ssize_t n;
  uint64_t time = _sl_now ();

  snprintf (path, sizeof path, "/proc/self/task/%u/comm", _sl_tid ());
  tls_in_library++;
  fd = open (path, O_RDONLY | O_CLOEXEC);
  n = fd >= 0 ? read (fd, name, sizeof name - 1) : -1;
  if (fd >= 0)
    close (fd);
  tls_in_library--;
  if (n <= 0)
    return;
  name[n] = '\0';
  if (name[n - 1] == '\n')
    name[n - 1] = '\0';
  emit_thread_name_at (_sl_tid (), name, time);
}

/* The kernel name first (what top -H and perf show), then the trace's: straight into the send
 * buffer, as BYE goes, so that a thread that makes no records of its own needs no ring. */
void
_sl_name_library_thread (const char *name)
{
  struct
  {
    SlWireThreadName t;
    char text[24];
  } rec = { 0 };
  size_t len = strnlen (name, 15);

  tls_in_library++;
  prctl (PR_SET_NAME, (unsigned long) name, 0, 0, 0);
  tls_in_library--;
  memcpy (rec.text, name, len);
  rec.t = (SlWireThreadName) { { SL_WIRE_THREAD_NAME,
                                 (uint16_t) sl_wire_size (sizeof rec.t, (uint32_t) len),
                                 _sl_tid () },
                               _sl_now () };
  pthread_mutex_lock (&g.drain_lock);
  if (atomic_load (&g.connected))
    send_direct (&rec);
  pthread_mutex_unlock (&g.drain_lock);
}

/* Called by the pthread_create trampoline in the new thread, before the program's code. */
void
_sl_thread_started (void)
{
  if (!atomic_load (&g.recording))
    return;
  ring_get ();
  _sl_emit_own_thread_name ();
  if (g.sample_hz > 0)
    _sl_sample_thread_start ();
}

/* ---------------------------------------------------------------------------------------------- */
/* Exit, fatal signals, fork                                                                      */

static void
send_bye (int32_t status)
{
  SlWireBye bye = { { SL_WIRE_BYE, sizeof bye, _sl_tid () }, _sl_now (), status, 0 };

  send_direct (&bye);
  send_flush ();
}

/* The last flush of a process.  From a signal handler too: if the flusher holds the lock we wait
 * up to ~200 ms for it, then go ahead (the process is dying anyway). */
static void
final_flush (int32_t status)
{
  static _Atomic int done;
  int locked = 0;

  if (atomic_exchange (&done, 1))
    return;
  atomic_store (&g.stop_flusher, 1);
  for (int i = 0; i < 200 && !locked; i++)
    {
      locked = pthread_mutex_trylock (&g.drain_lock) == 0;
      if (!locked)
        {
          struct timespec ts = { 0, 1000000 };
          nanosleep (&ts, NULL);
        }
    }
  tls_in_library++;
  flush_locked ();
  if (atomic_load (&g.connected))
    send_bye (status);
  atomic_store (&g.recording, 0);
  tls_in_library--;
  if (locked)
    pthread_mutex_unlock (&g.drain_lock);
}

bool
_sl_owns_process (void)
{
  return atomic_load (&g.connected) && g.pid == getpid ();
}

void
_sl_flush_now (void)
{
  if (!_sl_owns_process ())
    return;
  tls_in_library++;
  if (want_modules ())
    _sl_modules_update ();
  pthread_mutex_lock (&g.drain_lock);
  flush_locked ();
  pthread_mutex_unlock (&g.drain_lock);
  tls_in_library--;
}

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS };
static const int term_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU };

static void
fatal_handler (int         sig,
               siginfo_t  *info,
               void       *ctx)
{
  int saved = errno;

  (void) info;
  (void) ctx;
  if (atomic_load (&g.connected))
    {
#ifdef SL_HAVE_CUPTI
      if (g.trace_cuda)
        _sl_cupti_flush ();
#endif
      if (g.trace_mpi)
        _sl_mpi_flush ();
      final_flush (-sig);
    }
  /* the program's own disposition, as if we had never been there */
  sigaction (sig, &g.old_actions[sig], NULL);
  errno = saved;
  raise (sig);
}

static void
install_signal_handlers (void)
{
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = fatal_handler;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESETHAND;
  sigemptyset (&sa.sa_mask);
  for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
    {
      int s = fatal_signals[i];
      if (sigaction (s, NULL, &g.old_actions[s]) == 0 && g.old_actions[s].sa_handler == SIG_DFL)
        sigaction (s, &sa, NULL);
    }
  /* terminating signals only where the program kept the default (which would skip atexit) */
  for (size_t i = 0; i < sizeof term_signals / sizeof term_signals[0]; i++)
    {
      int s = term_signals[i];
      if (sigaction (s, NULL, &g.old_actions[s]) == 0 && g.old_actions[s].sa_handler == SIG_DFL)
        sigaction (s, &sa, NULL);
    }
}

static void
atfork_prepare (void)
{
  pthread_mutex_lock (&g.drain_lock);
}

static void
atfork_parent (void)
{
  pthread_mutex_unlock (&g.drain_lock);
}

/* The child: the parent's unsent records stay the parent's; the child is a new process of the
 * recording with its own connection and flusher (DataLoader workers are made this way). */
static void
atfork_child (void)
{
  pthread_mutex_init (&g.drain_lock, NULL);
  tls_tid = 0;
  atomic_store (&tls_emitting, 0);
  if (!atomic_load (&g.connected))
    return;
  tls_in_library++;
  if (g.fd >= 0)
    close (g.fd);
  tls_in_library--;
  g.fd = -1;
  atomic_store (&g.connected, 0);
  for (unsigned i = 0; i < SL_MAX_RINGS; i++)
    {
      SlRing *ring = atomic_load (&g.rings[i]);
      if (ring == NULL)
        continue;
      if (ring == tls_ring)
        {
          atomic_store (&ring->tail, atomic_load (&ring->head));
          ring->tid = _sl_tid ();
          continue;
        }
      atomic_store (&g.rings[i], NULL);
      munmap (ring, sizeof (SlRing) + SL_RING_SIZE);
    }
  for (uint32_t s = 0; s < SL_DROP_N_SOURCES; s++)
    {
      atomic_store (&g.drops[s], 0);
      g.drops_sent[s] = 0;
    }
  atomic_store (&g.flusher_running, 0);
  atomic_store (&g.stop_flusher, 0);
  tls_in_library++;
  if (g.wake_fd >= 0)
    close (g.wake_fd);
  g.wake_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  bool ok = connect_daemon ();
  tls_in_library--;
  if (!ok)
    {
      atomic_store (&g.recording, 0);
      return;
    }
  _sl_emit_own_thread_name ();
  tls_in_library++;
  flusher_start ();
  tls_in_library--;
  if (g.sample_hz > 0)
    _sl_sample_thread_start ();
}

static void
at_exit (void)
{
  if (!atomic_load (&g.connected))
    return;
  if (g.trace_openmp)
    _sl_ompt_flush ();
  if (g.trace_mpi)
    _sl_mpi_flush ();
  if (g.sample_hz > 0)
    _sl_sample_stop ();
#ifdef SL_HAVE_CUPTI
  /* the objects loaded since the last update, before the records that name addresses in them
   * (a CPU page fault's instruction, in CUPTI's last buffers) */
  if (want_modules ())
    _sl_modules_update ();
  if (g.trace_cuda)
    _sl_cupti_stop ();
#endif
  if (want_modules ())
    _sl_modules_update ();
  final_flush (0);
  if (atomic_load (&g.flusher_running))
    pthread_join (g.flusher, NULL);
  atomic_store (&g.flusher_running, 0);
}

/* _exit skips atexit: worker processes (Python's multiprocessing, DataLoader) end this way, so
 * flush first.  Not in a vfork child, which shares the parent's memory and connection: it has
 * another pid than the one that connected. */
SL_EXPORT _Noreturn void
_exit (int status)
{
  static void (*real__exit) (int);

  if (real__exit == NULL)
    real__exit = (void (*) (int)) dlsym (RTLD_NEXT, "_exit");
  if (atomic_load (&g.connected) && getpid () == g.pid)
    at_exit ();
  if (real__exit != NULL)
    real__exit (status);
  syscall (SYS_exit_group, status);
  __builtin_unreachable ();
}

/* ---------------------------------------------------------------------------------------------- */
/* Start-up                                                                                       */

static void
parse_trace_option (const char *s)
{
  g.trace_cuda = g.trace_nvtx = g.trace_osrt = g.trace_mpi = g.trace_openmp = false;
  if (s == NULL)
    s = "cuda,nvtx,osrt";
  while (*s != '\0')
    {
      size_t n = strcspn (s, ",");
      if (n == 4 && strncmp (s, "cuda", 4) == 0)
        g.trace_cuda = true;
      else if (n == 4 && strncmp (s, "nvtx", 4) == 0)
        g.trace_nvtx = true;
      else if (n == 4 && strncmp (s, "osrt", 4) == 0)
        g.trace_osrt = true;
      else if (n == 3 && strncmp (s, "mpi", 3) == 0)
        g.trace_mpi = true;
      else if (n == 6 && strncmp (s, "openmp", 6) == 0)
        g.trace_openmp = true;
      s += n;
      if (*s == ',')
        s++;
    }
}

bool
_sl_trace_enabled (const char *what)
{
  if (strcmp (what, "cuda") == 0)
    return g.trace_cuda;
  if (strcmp (what, "nvtx") == 0)
    return g.trace_nvtx;
  if (strcmp (what, "osrt") == 0)
    return g.trace_osrt;
  if (strcmp (what, "mpi") == 0)
    return g.trace_mpi;
  if (strcmp (what, "openmp") == 0)
    return g.trace_openmp;
  return false;
}

static void
start_common (void)
{
  pthread_key_create (&g.ring_key, ring_thread_exit_cb);
  g.wake_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  pthread_atfork (atfork_prepare, atfork_parent, atfork_child);
}

void
_sl_inject_start_for_test (void)
{
  static int started;

  if (started++)
    return;
  start_common ();
  g.trace_cuda = g.trace_nvtx = g.trace_osrt = true;
  atomic_store (&g.recording, 1);
}

static _Atomic int started;

void
_sl_inject_ensure_started (void)
{
  const char *path = getenv ("SIGHTLINE_SOCKET");
  const char *v;

  if (atomic_exchange (&started, 1))
    return;
  if (path == NULL || *path == '\0' || strlen (path) >= sizeof g.socket_path)
    return; /* loaded without a recording: do nothing at all */
  tls_in_library++;
  snprintf (g.socket_path, sizeof g.socket_path, "%s", path);
  v = getenv ("SIGHTLINE_SESSION");
  g.session = v != NULL ? strtoull (v, NULL, 10) : 0;
  parse_trace_option (getenv ("SIGHTLINE_TRACE"));
  v = getenv ("SIGHTLINE_SAMPLE_HZ");
  g.sample_hz = v != NULL ? (unsigned) strtoul (v, NULL, 10) : 0;
  v = getenv ("SIGHTLINE_OSRT_THRESHOLD_NS");
  g.osrt_threshold_ns = v != NULL ? strtoull (v, NULL, 10) : 1000;
  /* nsys's default; "none" (or anything not a number) for no backtraces */
  v = getenv ("SIGHTLINE_OSRT_BACKTRACE_NS");
  g.osrt_backtrace_ns = v == NULL ? 80000 : v[0] >= '0' && v[0] <= '9' ? strtoull (v, NULL, 10)
                                                                       : UINT64_MAX;
  v = getenv ("SIGHTLINE_CUDA_BACKTRACE");
  g.cuda_backtraces = v != NULL && *v != '\0' && strcmp (v, "none") != 0;
  v = getenv ("SIGHTLINE_CUDA_UM_CPU_PAGE_FAULTS");
  g.cuda_cpu_faults = v != NULL && strcmp (v, "true") == 0;
  _sl_capture_configure (getenv ("SIGHTLINE_CAPTURE_RANGE"), getenv ("SIGHTLINE_NVTX_CAPTURE"),
                         getenv ("SIGHTLINE_CAPTURE_RANGE_END"));
  start_common ();
  if (!connect_daemon ())
    {
      tls_in_library--;
      return;
    }
  atomic_store (&g.recording, 1);
  install_signal_handlers ();
  atexit (at_exit);
  _sl_emit_own_thread_name ();
  if (g.trace_osrt)
    _sl_osrt_start (g.osrt_threshold_ns, g.osrt_backtrace_ns);
  if (g.trace_mpi)
    _sl_mpi_start ();
  if (g.sample_hz > 0)
    _sl_sample_start (g.sample_hz);
  if (want_modules ())
    _sl_modules_update ();
  flusher_start ();
  tls_in_library--;
}

/* Before main(): the process is ours to record from its first instruction of user code. */
__attribute__ ((constructor)) static void
sl_inject_init (void)
{
  _sl_inject_ensure_started ();
}
