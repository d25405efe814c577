/* sl-inject-mpi.c: MPI calls through the profiling interface (PMPI), for `sightline record -t mpi`.
 *
 * The library defines the MPI_* functions a program calls (LD_PRELOAD puts them before the MPI
 * library's); each calls the MPI library's PMPI_* entry, found with dlsym(RTLD_NEXT) on its first
 * use, and, when -t mpi is on, sends one SL_WIRE_MPI record: nothing of MPI is linked into
 * Sightline, and a process without MPI never calls these.
 *
 * Two ABIs are handled: Open MPI's, where handles (MPI_Comm, MPI_Datatype, MPI_Request, ...) are
 * pointers, and MPICH's (also Intel MPI, MVAPICH, Cray MPICH), where they are 32-bit integers.
 * Handles are declared here as uintptr_t: an int argument arrives in the same 64-bit register or
 * 8-byte stack slot (x86-64 and arm64 Linux), and is passed on unchanged; only its low 32 bits
 * are kept where MPICH's is stored.  What differs besides (MPI_Status's layout, the wildcard
 * ranks, MPI_STATUS_IGNORE, MPI_IN_PLACE, MPI_COMM_WORLD, the width of a request in an array) is
 * chosen at the first call by whether the process has Open MPI's `ompi_mpi_comm_world`.  Tested
 * with Debian 12's Open MPI 4.1 (test-record-mpi) and, by hand, its MPICH 4.0 (recorded around
 * mpiexec: ranks, sources from the status, tags, sizes and communicators as with Open MPI).
 * Fortran programs are not covered: Open MPI's Fortran bindings call the PMPI_ functions directly
 * (MPICH's not tried).
 *
 * Cost of a call when recording (bench-collector-mpi, 1 rank, a loaded 2-core KVM guest): ~130 to
 * 200 ns a message of the ring (three calls), the flusher's share included; ~40 % of it is the
 * two TSC reads (~18 ns each in that guest).  A call is two clock reads, one conversion of both to
 * ns, a PMPI_Type_size for the message size (cached for the thread's last datatype), and 3 to 8
 * words appended to the thread's batch (sl-wire.h's SlWireMpiCalls): plain stores, no atomic
 * read-modify-write, no lock, no system call; one ring record per ~200 calls.  On x86-64 with an
 * invariant TSC the times are read from the TSC (clock_gettime takes 25 to 70 ns under a KVM
 * clock) and put on CLOCK_MONOTONIC by an anchor pair (TSC, CLOCK_MONOTONIC) taken again every
 * SL_TSC_ANCHOR_NS, its rate measured between anchors (within ~0.1 µs of clock_gettime).  With
 * -t mpi off, one load and an indirect call.
 *
 * A batch leaves its thread when ~8 KiB of calls are in it, at a call SL_FLUSH_MS after its
 * first, at MPI_Init and MPI_Finalize (which sends every thread's: MPI allows no call of another
 * thread to be under way then), and at exit or a fatal signal (every thread's, _sl_mpi_flush).
 * So a live view sees a thread's calls up to SL_FLUSH_MS late while it keeps calling MPI, and a
 * thread blocked in its own work holds its last calls until it calls MPI again or the program
 * ends.
 */
#include "sl-inject-private.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

typedef uintptr_t Handle; /* MPI_Comm, MPI_Datatype, MPI_Op, MPI_Request, MPI_Group */

static _Atomic int mpi_on;
static int         is_mpich = -1; /* -1: not known yet */
static Handle      comm_world;

/* ---- the PMPI entries, resolved on first use ---- */

static void *
pmpi (const char *name)
{
  void *p;

  _sl_enter_library ();
  p = dlsym (RTLD_NEXT, name);
  if (is_mpich < 0)
    {
      void *world = dlsym (RTLD_DEFAULT, "ompi_mpi_comm_world");
      comm_world = world != NULL ? (Handle) world : (Handle) 0x44000000;
      is_mpich = world == NULL;
    }
  _sl_leave_library ();
  if (p == NULL)
    fprintf (stderr, "sightline: %s not found: the program's MPI library has no profiling "
             "interface\n", name);
  return p;
}

/* `real` the PMPI function of type `type`, resolved once; the MPI error class MPI_ERR_OTHER (16
 * in both ABIs) when it is missing */
#define REAL(type, name)                                                                           \
  static type real;                                                                                \
  if (__builtin_expect (real == NULL, 0) && (real = (type) pmpi (name)) == NULL)                   \
    return 16

typedef int (*TypeSizeFn) (Handle, int *);
typedef int (*CommIntFn) (Handle, int *);
typedef int (*CommGroupFn) (Handle, Handle *);
typedef int (*GroupTranslateFn) (Handle, int, const int *, Handle, int *);
typedef int (*GroupFreeFn) (Handle *);

static TypeSizeFn type_size_fn;
static CommIntFn  comm_rank_fn, comm_size_fn;

static bool
helpers_resolve (void)
{
  if (type_size_fn != NULL)
    return true;
  comm_rank_fn = (CommIntFn) pmpi ("PMPI_Comm_rank");
  comm_size_fn = (CommIntFn) pmpi ("PMPI_Comm_size");
  type_size_fn = (TypeSizeFn) pmpi ("PMPI_Type_size");
  return type_size_fn != NULL && comm_rank_fn != NULL && comm_size_fn != NULL;
}

/* ---- the clock ---- */

#define SL_TSC_ANCHOR_NS 20000000 /* 20 ms */

static struct
{
  _Atomic uint32_t seq; /* odd: being changed */
  bool             usable;
  uint64_t         tsc;  /* the anchor */
  uint64_t         ns;
  double           ns_per_tick; /* 0: not measured yet */
} clk;

#if defined(__x86_64__)
static void
tsc_anchor (uint64_t tsc,
            uint64_t ns)
{
  uint32_t s = atomic_load_explicit (&clk.seq, memory_order_relaxed);

  /* the rate from 10 ms at least: clock_gettime's ~0.1 µs of jitter is then 10 ppm at most */
  if (clk.tsc != 0 && (tsc <= clk.tsc || ns < clk.ns + SL_TSC_ANCHOR_NS / 2))
    return;
  if ((s & 1) != 0 || !atomic_compare_exchange_strong (&clk.seq, &s, s + 1))
    return; /* another thread moves it */
  if (clk.tsc != 0)
    clk.ns_per_tick = (double) (ns - clk.ns) / (double) (tsc - clk.tsc);
  clk.tsc = tsc;
  clk.ns = ns;
  atomic_store_explicit (&clk.seq, s + 2, memory_order_release);
}
#endif

/* The clock as read at a call's start and end: the TSC where it is used, else CLOCK_MONOTONIC
 * ns; put on CLOCK_MONOTONIC once a call, both ends together, by ticks_to_ns() */
static inline uint64_t
mpi_ticks (void)
{
#if defined(__x86_64__)
  if (clk.usable)
    return __rdtsc ();
#endif
  return _sl_now ();
}

#if defined(__x86_64__)
static inline uint64_t
tick_ns (uint64_t t,
         uint64_t tsc,
         uint64_t ns,
         double   k)
{
  int64_t d = (int64_t) ((double) (int64_t) (t - tsc) * k); /* before the anchor: negative */

  return d < 0 && (uint64_t) -d > ns ? 0 : ns + (uint64_t) d;
}
#endif

/* A call's start and end ticks (mpi_ticks) into ns: from the anchor when the end is within
 * SL_TSC_ANCHOR_NS of it, else from a new one (or, in the first 10 ms, before a rate is known,
 * from the line between the anchor and now, on which both lie) */
static inline void
ticks_to_ns (uint64_t *start,
             uint64_t *end)
{
#if defined(__x86_64__)
  if (!clk.usable)
    return;
  for (int tries = 0;; tries++)
    {
      uint32_t s1 = atomic_load_explicit (&clk.seq, memory_order_acquire);
      uint64_t tsc = clk.tsc, ns = clk.ns;
      double k = clk.ns_per_tick;
      atomic_thread_fence (memory_order_acquire);
      uint32_t s2 = atomic_load_explicit (&clk.seq, memory_order_relaxed);
      bool steady = s1 == s2 && (s1 & 1) == 0;
      /* after a new anchor, taken after the call's end, the call is just before it */
      if (steady && k > 0
          && (tries > 0 || (*end >= tsc && (double) (*end - tsc) * k < SL_TSC_ANCHOR_NS)))
        {
          *start = tick_ns (*start, tsc, ns, k);
          *end = tick_ns (*end, tsc, ns, k);
          return;
        }
      if (tries > 0)
        {
          uint64_t now_ns = _sl_now (), now = __rdtsc ();
          k = steady && now > tsc && now_ns > ns ? (double) (now_ns - ns) / (double) (now - tsc)
                                                 : 0;
          *start = k > 0 ? tick_ns (*start, tsc, ns, k) : now_ns;
          *end = k > 0 ? tick_ns (*end, tsc, ns, k) : now_ns;
          return;
        }
      tsc_anchor (__rdtsc (), _sl_now ());
    }
#else
  (void) start;
  (void) end;
#endif
}

/* The TSC is used where the kernel says it runs at one rate in every state and on every CPU */
static void
clock_start (void)
{
#if defined(__x86_64__)
  FILE *f = fopen ("/proc/cpuinfo", "re");
  char line[4096];
  bool constant = false, nonstop = false;

  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, "flags", 5) == 0)
      {
        constant = strstr (line, " constant_tsc") != NULL;
        nonstop = strstr (line, " nonstop_tsc") != NULL;
        break;
      }
  if (f != NULL)
    fclose (f);
  if (getenv ("SIGHTLINE_MPI_CLOCK") != NULL && strcmp (getenv ("SIGHTLINE_MPI_CLOCK"), "tsc") != 0)
    return; /* SIGHTLINE_MPI_CLOCK=monotonic: clock_gettime for every time */
  if (constant && nonstop)
    {
      tsc_anchor (__rdtsc (), _sl_now ());
      clk.usable = true;
    }
#endif
}

static inline bool
mpi_skip (void)
{
  return !atomic_load_explicit (&mpi_on, memory_order_relaxed) || _sl_in_library ();
}

/* MPICH's handles are 32 bits wide: what was above them in the register is not the handle's */
static inline uint64_t
handle_value (Handle h)
{
  return is_mpich ? (uint64_t) (uint32_t) h : (uint64_t) h;
}

/* the last datatype a thread asked the size of: a program sends few types */
static __thread Handle tls_type __attribute__ ((tls_model ("initial-exec")));
static __thread int    tls_type_size __attribute__ ((tls_model ("initial-exec")));

static int64_t
bytes_of (int    count,
          Handle type)
{
  int size = 0;

  if (count <= 0)
    return 0;
  if (type == tls_type && type != 0)
    return (int64_t) count * tls_type_size;
  if (!helpers_resolve () || type_size_fn (type, &size) != 0 || size < 0)
    return 0;
  tls_type = type;
  tls_type_size = size;
  return (int64_t) count * size;
}

static int
comm_size (Handle comm)
{
  int n = 0;

  return helpers_resolve () && comm_size_fn (comm, &n) == 0 ? n : 0;
}

static int
comm_rank (Handle comm)
{
  int r = -1;

  return helpers_resolve () && comm_rank_fn (comm, &r) == 0 ? r : -1;
}

static inline bool
in_place (const void *buf)
{
  return buf == (is_mpich ? (const void *) (intptr_t) -1 : (const void *) 1);
}

static inline bool
status_ignored (const void *status)
{
  return status == NULL || status == (const void *) 1;
}

/* A request from an array of them: 8 bytes each in Open MPI, 4 in MPICH */
static uint64_t
request_at (const void *array,
            int         i)
{
  if (array == NULL)
    return 0;
  return is_mpich ? ((const uint32_t *) array)[i] : ((const uint64_t *) array)[i];
}

/* What a receive's status says: the source, the tag and the bytes that arrived */
static void
status_read (const void *status,
             int32_t    *source,
             int32_t    *tag,
             int64_t    *bytes)
{
  const int *s = status;

  if (is_mpich)
    {
      *source = s[2];
      *tag = s[3];
      *bytes = (int64_t) (uint32_t) s[0] | ((int64_t) ((uint32_t) s[1] >> 1) << 32);
    }
  else
    {
      size_t ucount;
      *source = s[0];
      *tag = s[1];
      memcpy (&ucount, (const char *) status + 16, sizeof ucount);
      *bytes = (int64_t) ucount;
    }
}

/* ---- communicators ---- */

#define MAX_COMMS 256
#define MAX_MEMBERS 8192 /* a communicator's members sent as text up to this many */

static _Atomic uint64_t comms[MAX_COMMS];      /* handles described in this process; 0: free */
static uint64_t         comm_hashes[MAX_COMMS]; /* their members' hash */
static int32_t          world_rank = -1;
/* the communicator this thread's last call found described */
static __thread uint64_t tls_comm __attribute__ ((tls_model ("initial-exec")));

static uint64_t
fnv (uint64_t    h,
     const void *data,
     size_t      n)
{
  const unsigned char *p = data;

  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* Sends the description of `comm` (made from `parent`, 0: not known) once */
static void
comm_describe (Handle comm,
               Handle parent)
{
  uint64_t v = handle_value (comm);
  int slot = -1;
  static CommGroupFn comm_group;
  static GroupTranslateFn translate;
  static GroupFreeFn group_free;

  if (v == 0)
    return;
  for (int i = 0; i < MAX_COMMS; i++)
    {
      uint64_t c = atomic_load_explicit (&comms[i], memory_order_acquire);
      if (c == v)
        return;
      if (c == 0 && slot < 0)
        slot = i;
    }
  if (slot < 0 || !helpers_resolve ())
    return;
  uint64_t expected = 0;
  if (!atomic_compare_exchange_strong (&comms[slot], &expected, v))
    return; /* another thread took the slot: it or a later call describes it */
  if (comm_group == NULL)
    {
      comm_group = (CommGroupFn) pmpi ("PMPI_Comm_group");
      translate = (GroupTranslateFn) pmpi ("PMPI_Group_translate_ranks");
      group_free = (GroupFreeFn) pmpi ("PMPI_Group_free");
    }
  if (world_rank < 0)
    world_rank = comm_rank (comm_world);

  int n = comm_size (comm);
  int local = comm_rank (comm);
  int *ranks = n > 0 && n <= MAX_MEMBERS ? malloc (2 * (size_t) n * sizeof *ranks) : NULL;
  char *text = ranks != NULL ? malloc ((size_t) n * 12 + 1) : NULL;
  size_t len = 0;
  int root = -1;
  uint64_t hash = 0xcbf29ce484222325ull;

  if (text != NULL && comm_group != NULL && translate != NULL && group_free != NULL)
    {
      Handle group = 0, world_group = 0;
      for (int i = 0; i < n; i++)
        ranks[i] = i;
      if (comm_group (comm, &group) == 0 && comm_group (comm_world, &world_group) == 0
          && translate (group, n, ranks, world_group, ranks + n) == 0)
        {
          root = ranks[n];
          for (int i = 0; i < n; i++)
            len += (size_t) snprintf (text + len, 13, i > 0 ? ",%d" : "%d", ranks[n + i]);
          hash = fnv (hash, text, len);
        }
      if (group != 0)
        group_free (&group);
      if (world_group != 0)
        group_free (&world_group);
    }
  comm_hashes[slot] = hash;
  /* the same members met again (MPI_Comm_dup): told apart by how many came before */
  uint64_t nth = 0;
  for (int i = 0; i < MAX_COMMS; i++)
    if (i != slot && atomic_load (&comms[i]) != 0 && comm_hashes[i] == hash)
      nth++;

  SlWireMpiComm c = { .time_ns = _sl_now (),
                      .comm = v,
                      .parent = handle_value (parent),
                      .uid = fnv (hash, &nth, sizeof nth) >> 1,
                      .world_rank = world_rank,
                      .local_rank = local,
                      .size = n,
                      .group_root = root };
  if (text != NULL)
    text[len] = '\0';
  _sl_emit_with_text (SL_WIRE_MPI_COMM, &c, sizeof c, text != NULL ? text : "", false);
  free (text);
  free (ranks);
}

static void
comm_forget (Handle comm)
{
  uint64_t v = handle_value (comm);

  /* this thread's cache; another thread's that still holds the freed handle when MPI reuses it
   * for a new communicator leaves that one undescribed (rare: MPI_THREAD_MULTIPLE programs) */
  tls_comm = 0;
  for (int i = 0; i < MAX_COMMS; i++)
    {
      uint64_t c = v;
      if (atomic_compare_exchange_strong (&comms[i], &c, 0))
        return;
    }
}

static inline bool
comm_known (uint64_t v)
{
  if (v == tls_comm)
    return true;
  for (int i = 0; i < MAX_COMMS; i++)
    {
      uint64_t c = atomic_load_explicit (&comms[i], memory_order_relaxed);
      if (c == v)
        {
          tls_comm = v;
          return true;
        }
      if (c == 0)
        return false; /* slots fill in order; one freed early only costs a rescan */
    }
  return false;
}

/* ---- records ---- */

/* One call as the wrappers fill it; encoded into the thread's batch by mpi_emit */
typedef struct
{
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t comm;
  uint64_t request;
  int64_t  size;
  int64_t  recv_size;
  uint32_t func;
  int32_t  peer;
  int32_t  tag;
  uint32_t flags;
} MpiCall;

#define SL_MPI_BATCH_WORDS  1024 /* 8 KiB: ~200 calls, one ring record */
#define SL_MPI_MAX_BATCHES  1024 /* threads with a batch of their own; later ones send each call
                                  * by itself */
#define SL_MPI_BATCH_AGE_NS ((uint64_t) SL_FLUSH_MS * 1000000u)

/* A thread's calls not sent yet.  Only its thread appends; another thread sends it only where
 * no call of its thread is under way (MPI_Finalize, exit): `busy` says when one is, for a signal
 * handler of the same thread and, at exit, as well as it can, for others. */
typedef struct
{
  _Atomic int busy;
  uint32_t    tid;
  uint32_t    n_calls;
  uint32_t    used;     /* words */
  uint64_t    first_ns; /* the first call's start */
  uint64_t    words[SL_MPI_BATCH_WORDS];
} MpiBatch;

static _Atomic(MpiBatch *) batches[SL_MPI_MAX_BATCHES];
static __thread MpiBatch *tls_batch __attribute__ ((tls_model ("initial-exec")));
static __thread bool tls_no_batch __attribute__ ((tls_model ("initial-exec"))); /* none to be had */

/* The calling thread's batch, made on its first call (mmap'd once a thread, never freed: a few
 * threads of a process call MPI) */
static MpiBatch *
batch_get (void)
{
  if (tls_batch != NULL || tls_no_batch)
    return tls_batch;
  tls_no_batch = true;
  MpiBatch *b = mmap (NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b == MAP_FAILED)
    return NULL;
  b->tid = _sl_tid ();
  for (int i = 0; i < SL_MPI_MAX_BATCHES; i++)
    {
      MpiBatch *expected = NULL;
      if (atomic_compare_exchange_strong (&batches[i], &expected, b))
        {
          tls_batch = b;
          return b;
        }
    }
  munmap (b, sizeof *b);
  return NULL;
}

/* `n` calls of `used` words to the ring, as thread `tid`'s */
static void
calls_send (uint32_t        tid,
            uint32_t        n,
            const uint64_t *words,
            uint32_t        used)
{
  SlWireMpiCalls *r = _sl_emit_begin (SL_WIRE_MPI, sizeof *r + used * 8);

  if (r == NULL)
    {
      if (n > 1)
        _sl_count_drop (SL_DROP_RING_FULL, n - 1); /* the ring counted one record: n calls */
      return;
    }
  r->n_calls = n;
  r->tid = tid;
  memcpy (r + 1, words, (size_t) used * 8);
  _sl_emit_end (r);
}

static void
batch_send (MpiBatch *b)
{
  if (b->n_calls > 0)
    calls_send (b->tid, b->n_calls, b->words, b->used);
  b->n_calls = 0;
  b->used = 0;
}

/* Sends every thread's batch but those with a call under way (the caller's included) */
static void
batches_send_all (void)
{
  for (int i = 0; i < SL_MPI_MAX_BATCHES; i++)
    {
      MpiBatch *b = atomic_load (&batches[i]);
      if (b == NULL)
        break; /* slots fill in order and are never freed */
      if (atomic_load_explicit (&b->busy, memory_order_acquire) == 0)
        batch_send (b);
    }
}

void
_sl_mpi_flush (void)
{
  batches_send_all ();
}

/* The child of a fork has its parent's calls in its batches: not its own */
static void
atfork_child (void)
{
  for (int i = 0; i < SL_MPI_MAX_BATCHES; i++)
    {
      MpiBatch *b = atomic_load (&batches[i]);
      if (b == NULL)
        break;
      b->n_calls = 0;
      b->used = 0;
      if (b == tls_batch)
        b->tid = _sl_tid ();
    }
}

/* The call's words (3 to SL_MPI_MAX_WORDS) at `w`; returns how many */
static inline uint32_t
call_encode (const MpiCall *m,
             uint64_t      *w)
{
  uint64_t duration = m->end_ns - m->start_ns;
  uint32_t flags = m->flags;
  uint32_t n = 2;

  if (duration > UINT32_MAX)
    {
      flags |= SL_MPI_LONG;
      duration = 0;
    }
  w[0] = (uint64_t) (m->func & 0xFF) | (uint64_t) (flags & 0xFF) << 8 | duration << 32;
  w[1] = m->start_ns;
  if (flags & SL_MPI_LONG)
    w[n++] = m->end_ns;
  if (flags & SL_MPI_HAS_COMM)
    w[n++] = m->comm;
  if (flags & (SL_MPI_HAS_PEER | SL_MPI_HAS_TAG))
    w[n++] = (uint64_t) (uint32_t) m->peer | (uint64_t) (uint32_t) m->tag << 32;
  if (flags & SL_MPI_HAS_SIZE)
    w[n++] = (uint64_t) m->size;
  if (flags & SL_MPI_HAS_RECV_SIZE)
    w[n++] = (uint64_t) m->recv_size;
  if (flags & SL_MPI_HAS_REQUEST)
    w[n++] = m->request;
  return n;
}

static void
mpi_emit (MpiCall *m)
{
  m->end_ns = mpi_ticks ();
  ticks_to_ns (&m->start_ns, &m->end_ns);
  if (m->end_ns < m->start_ns)
    m->end_ns = m->start_ns; /* a call across a new anchor of the clock, in its ~0.1 µs error */
  if (!_sl_capture_covers (m->start_ns))
    return;
  if ((m->flags & SL_MPI_HAS_COMM) != 0)
    {
      m->comm = handle_value ((Handle) m->comm);
      if (!comm_known (m->comm))
        comm_describe ((Handle) m->comm, 0);
    }
  MpiBatch *b = tls_batch != NULL ? tls_batch : batch_get ();
  if (__builtin_expect (b == NULL, 0))
    {
      uint64_t w[SL_MPI_MAX_WORDS];
      calls_send (_sl_tid (), 1, w, call_encode (m, w));
      return;
    }
  /* a fatal signal's handler on this thread leaves the batch alone while `busy`: it would send
   * half a call, or calls being sent */
  atomic_store_explicit (&b->busy, 1, memory_order_relaxed);
  atomic_signal_fence (memory_order_seq_cst);
  if (b->n_calls == 0)
    b->first_ns = m->start_ns;
  b->used += call_encode (m, b->words + b->used);
  b->n_calls++;
  if (b->used > SL_MPI_BATCH_WORDS - SL_MPI_MAX_WORDS
      || m->start_ns - b->first_ns >= SL_MPI_BATCH_AGE_NS || m->func == SL_MPI_INIT
      || m->func == SL_MPI_INIT_THREAD)
    batch_send (b);
  atomic_signal_fence (memory_order_seq_cst);
  atomic_store_explicit (&b->busy, 0, memory_order_release);
}

#define START(fn)                                                                                  \
  MpiCall m = { .start_ns = mpi_ticks (), .func = (fn) }

void
_sl_mpi_start (void)
{
  _sl_enter_library ();
  clock_start ();
  pthread_atfork (NULL, NULL, atfork_child);
  _sl_leave_library ();
  atomic_store (&mpi_on, 1);
}

/* ---- point to point ---- */

typedef int (*SendFn) (const void *, int, Handle, int, int, Handle);
typedef int (*IsendFn) (const void *, int, Handle, int, int, Handle, Handle *);
typedef int (*RecvFn) (void *, int, Handle, int, int, Handle, void *);
typedef int (*IrecvFn) (void *, int, Handle, int, int, Handle, Handle *);
typedef int (*SendrecvFn) (const void *, int, Handle, int, int, void *, int, Handle, int, int,
                           Handle, void *);

static int
send_common (SendFn      real,
             uint32_t    func,
             const void *buf,
             int         count,
             Handle      type,
             int         dest,
             int         tag,
             Handle      comm)
{
  if (mpi_skip ())
    return real (buf, count, type, dest, tag, comm);
  START (func);
  int r = real (buf, count, type, dest, tag, comm);
  m.comm = comm;
  m.peer = dest;
  m.tag = tag;
  m.size = bytes_of (count, type);
  m.flags = SL_MPI_HAS_COMM | SL_MPI_HAS_PEER | SL_MPI_HAS_TAG | SL_MPI_HAS_SIZE;
  mpi_emit (&m);
  return r;
}

#define SEND(name, func)                                                                           \
  SL_EXPORT int MPI_##name (const void *buf, int count, Handle type, int dest, int tag,           \
                            Handle comm)                                                           \
  {                                                                                                \
    REAL (SendFn, "PMPI_" #name);                                                                  \
    return send_common (real, func, buf, count, type, dest, tag, comm);                           \
  }

SEND (Send, SL_MPI_SEND)
SEND (Ssend, SL_MPI_SSEND)
SEND (Rsend, SL_MPI_RSEND)
SEND (Bsend, SL_MPI_BSEND)

static int
isend_common (IsendFn     real,
              uint32_t    func,
              const void *buf,
              int         count,
              Handle      type,
              int         dest,
              int         tag,
              Handle      comm,
              Handle     *request)
{
  if (mpi_skip ())
    return real (buf, count, type, dest, tag, comm, request);
  START (func);
  int r = real (buf, count, type, dest, tag, comm, request);
  m.comm = comm;
  m.peer = dest;
  m.tag = tag;
  m.size = bytes_of (count, type);
  m.request = request != NULL ? request_at (request, 0) : 0;
  m.flags = SL_MPI_HAS_COMM | SL_MPI_HAS_PEER | SL_MPI_HAS_TAG | SL_MPI_HAS_SIZE
            | SL_MPI_HAS_REQUEST;
  mpi_emit (&m);
  return r;
}

SL_EXPORT int
MPI_Isend (const void *buf,
           int         count,
           Handle      type,
           int         dest,
           int         tag,
           Handle      comm,
           Handle     *request)
{
  REAL (IsendFn, "PMPI_Isend");
  return isend_common (real, SL_MPI_ISEND, buf, count, type, dest, tag, comm, request);
}

SL_EXPORT int
MPI_Issend (const void *buf,
            int         count,
            Handle      type,
            int         dest,
            int         tag,
            Handle      comm,
            Handle     *request)
{
  REAL (IsendFn, "PMPI_Issend");
  return isend_common (real, SL_MPI_ISSEND, buf, count, type, dest, tag, comm, request);
}

SL_EXPORT int
MPI_Irecv (void   *buf,
           int     count,
           Handle  type,
           int     source,
           int     tag,
           Handle  comm,
           Handle *request)
{
  REAL (IrecvFn, "PMPI_Irecv");
  if (mpi_skip ())
    return real (buf, count, type, source, tag, comm, request);
  START (SL_MPI_IRECV);
  int r = real (buf, count, type, source, tag, comm, request);
  m.comm = comm;
  m.peer = source;
  m.tag = tag;
  m.size = bytes_of (count, type);
  m.request = request != NULL ? request_at (request, 0) : 0;
  m.flags = SL_MPI_HAS_COMM | SL_MPI_HAS_PEER | SL_MPI_HAS_TAG | SL_MPI_HAS_SIZE
            | SL_MPI_HAS_REQUEST;
  mpi_emit (&m);
  return r;
}

SL_EXPORT int
MPI_Recv (void   *buf,
          int     count,
          Handle  type,
          int     source,
          int     tag,
          Handle  comm,
          void   *status)
{
  uint64_t own[8]; /* the status when the program ignores it: both ABIs' fit */

  REAL (RecvFn, "PMPI_Recv");
  if (mpi_skip ())
    return real (buf, count, type, source, tag, comm, status);
  START (SL_MPI_RECV);
  void *st = status_ignored (status) ? own : status;
  int r = real (buf, count, type, source, tag, comm, st);
  m.comm = comm;
  m.flags = SL_MPI_HAS_COMM | SL_MPI_HAS_PEER | SL_MPI_HAS_TAG | SL_MPI_HAS_SIZE;
  if (r == 0)
    status_read (st, &m.peer, &m.tag, &m.size);
  else
    {
      m.peer = source;
      m.tag = tag;
      m.size = 0;
    }
  mpi_emit (&m);
  return r;
}

SL_EXPORT int
MPI_Sendrecv (const void *sendbuf,
              int         sendcount,
              Handle      sendtype,
              int         dest,
              int         sendtag,
              void       *recvbuf,
              int         recvcount,
              Handle      recvtype,
              int         source,
              int         recvtag,
              Handle      comm,
              void       *status)
{
  REAL (SendrecvFn, "PMPI_Sendrecv");
  if (mpi_skip ())
    return real (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                 source, recvtag, comm, status);
  START (SL_MPI_SENDRECV);
  int r = real (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                recvtag, comm, status);
  /* one row, as nsys writes it: the send's peer, tag and size */
  m.comm = comm;
  m.peer = dest;
  m.tag = sendtag;
  m.size = bytes_of (sendcount, sendtype);
  m.flags = SL_MPI_HAS_COMM | SL_MPI_HAS_PEER | SL_MPI_HAS_TAG | SL_MPI_HAS_SIZE;
  mpi_emit (&m);
  return r;
}

/* ---- collectives ---- */

typedef int (*BarrierFn) (Handle);
typedef int (*IbarrierFn) (Handle, Handle *);
typedef int (*BcastFn) (void *, int, Handle, int, Handle);
typedef int (*IbcastFn) (void *, int, Handle, int, Handle, Handle *);
typedef int (*ReduceFn) (const void *, void *, int, Handle, Handle, int, Handle);
typedef int (*AllreduceFn) (const void *, void *, int, Handle, Handle, Handle);
typedef int (*IallreduceFn) (const void *, void *, int, Handle, Handle, Handle, Handle *);
typedef int (*GatherFn) (const void *, int, Handle, void *, int, Handle, int, Handle);
typedef int (*AllgatherFn) (const void *, int, Handle, void *, int, Handle, Handle);
typedef int (*ReduceScatterFn) (const void *, void *, const int *, Handle, Handle, Handle);

static void
coll_emit (MpiCall   *m,
           Handle     comm,
           int64_t    size,
           int64_t    recv_size)
{
  m->comm = comm;
  m->flags |= SL_MPI_HAS_COMM;
  if (size >= 0)
    {
      m->size = size;
      m->flags |= SL_MPI_HAS_SIZE;
    }
  if (recv_size >= 0)
    {
      m->recv_size = recv_size;
      m->flags |= SL_MPI_HAS_RECV_SIZE;
    }
  mpi_emit (m);
}

SL_EXPORT int
MPI_Barrier (Handle comm)
{
  REAL (BarrierFn, "PMPI_Barrier");
  if (mpi_skip ())
    return real (comm);
  START (SL_MPI_BARRIER);
  int r = real (comm);
  coll_emit (&m, comm, -1, -1);
  return r;
}

SL_EXPORT int
MPI_Ibarrier (Handle  comm,
              Handle *request)
{
  REAL (IbarrierFn, "PMPI_Ibarrier");
  if (mpi_skip ())
    return real (comm, request);
  START (SL_MPI_IBARRIER);
  int r = real (comm, request);
  m.request = request != NULL ? request_at (request, 0) : 0;
  m.flags = SL_MPI_HAS_REQUEST;
  coll_emit (&m, comm, -1, -1);
  return r;
}

SL_EXPORT int
MPI_Bcast (void  *buf,
           int    count,
           Handle type,
           int    root,
           Handle comm)
{
  REAL (BcastFn, "PMPI_Bcast");
  if (mpi_skip ())
    return real (buf, count, type, root, comm);
  START (SL_MPI_BCAST);
  int r = real (buf, count, type, root, comm);
  int64_t bytes = bytes_of (count, type);
  bool is_root = comm_rank (comm) == root;
  m.peer = root;
  m.flags = SL_MPI_HAS_PEER;
  coll_emit (&m, comm, is_root ? bytes : -1, is_root ? -1 : bytes);
  return r;
}

SL_EXPORT int
MPI_Ibcast (void   *buf,
            int     count,
            Handle  type,
            int     root,
            Handle  comm,
            Handle *request)
{
  REAL (IbcastFn, "PMPI_Ibcast");
  if (mpi_skip ())
    return real (buf, count, type, root, comm, request);
  START (SL_MPI_IBCAST);
  int r = real (buf, count, type, root, comm, request);
  int64_t bytes = bytes_of (count, type);
  bool is_root = comm_rank (comm) == root;
  m.peer = root;
  m.request = request != NULL ? request_at (request, 0) : 0;
  m.flags = SL_MPI_HAS_PEER | SL_MPI_HAS_REQUEST;
  coll_emit (&m, comm, is_root ? bytes : -1, is_root ? -1 : bytes);
  return r;
}

SL_EXPORT int
MPI_Reduce (const void *sendbuf,
            void       *recvbuf,
            int         count,
            Handle      type,
            Handle      op,
            int         root,
            Handle      comm)
{
  REAL (ReduceFn, "PMPI_Reduce");
  if (mpi_skip ())
    return real (sendbuf, recvbuf, count, type, op, root, comm);
  START (SL_MPI_REDUCE);
  int r = real (sendbuf, recvbuf, count, type, op, root, comm);
  int64_t bytes = bytes_of (count, type);
  m.peer = root;
  m.flags = SL_MPI_HAS_PEER;
  coll_emit (&m, comm, bytes, comm_rank (comm) == root ? bytes : -1);
  return r;
}

SL_EXPORT int
MPI_Allreduce (const void *sendbuf,
               void       *recvbuf,
               int         count,
               Handle      type,
               Handle      op,
               Handle      comm)
{
  REAL (AllreduceFn, "PMPI_Allreduce");
  if (mpi_skip ())
    return real (sendbuf, recvbuf, count, type, op, comm);
  START (SL_MPI_ALLREDUCE);
  int r = real (sendbuf, recvbuf, count, type, op, comm);
  int64_t bytes = bytes_of (count, type);
  coll_emit (&m, comm, bytes, bytes);
  return r;
}

SL_EXPORT int
MPI_Iallreduce (const void *sendbuf,
                void       *recvbuf,
                int         count,
                Handle      type,
                Handle      op,
                Handle      comm,
                Handle     *request)
{
  REAL (IallreduceFn, "PMPI_Iallreduce");
  if (mpi_skip ())
    return real (sendbuf, recvbuf, count, type, op, comm, request);
  START (SL_MPI_IALLREDUCE);
  int r = real (sendbuf, recvbuf, count, type, op, comm, request);
  int64_t bytes = bytes_of (count, type);
  m.request = request != NULL ? request_at (request, 0) : 0;
  m.flags = SL_MPI_HAS_REQUEST;
  coll_emit (&m, comm, bytes, bytes);
  return r;
}

SL_EXPORT int
MPI_Scan (const void *sendbuf,
          void       *recvbuf,
          int         count,
          Handle      type,
          Handle      op,
          Handle      comm)
{
  REAL (AllreduceFn, "PMPI_Scan");
  if (mpi_skip ())
    return real (sendbuf, recvbuf, count, type, op, comm);
  START (SL_MPI_SCAN);
  int r = real (sendbuf, recvbuf, count, type, op, comm);
  int64_t bytes = bytes_of (count, type);
  coll_emit (&m, comm, bytes, bytes);
  return r;
}

SL_EXPORT int
MPI_Reduce_scatter (const void *sendbuf,
                    void       *recvbuf,
                    const int  *recvcounts,
                    Handle      type,
                    Handle      op,
                    Handle      comm)
{
  REAL (ReduceScatterFn, "PMPI_Reduce_scatter");
  if (mpi_skip ())
    return real (sendbuf, recvbuf, recvcounts, type, op, comm);
  START (SL_MPI_REDUCE_SCATTER);
  int r = real (sendbuf, recvbuf, recvcounts, type, op, comm);
  int n = comm_size (comm), me = comm_rank (comm);
  int64_t total = 0;
  for (int i = 0; recvcounts != NULL && i < n; i++)
    total += bytes_of (recvcounts[i], type);
  coll_emit (&m, comm, total,
             recvcounts != NULL && me >= 0 && me < n ? bytes_of (recvcounts[me], type) : -1);
  return r;
}

SL_EXPORT int
MPI_Gather (const void *sendbuf,
            int         sendcount,
            Handle      sendtype,
            void       *recvbuf,
            int         recvcount,
            Handle      recvtype,
            int         root,
            Handle      comm)
{
  REAL (GatherFn, "PMPI_Gather");
  if (mpi_skip ())
    return real (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  START (SL_MPI_GATHER);
  int r = real (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  bool is_root = comm_rank (comm) == root;
  m.peer = root;
  m.flags = SL_MPI_HAS_PEER;
  coll_emit (&m, comm,
             in_place (sendbuf) ? bytes_of (recvcount, recvtype) : bytes_of (sendcount, sendtype),
             is_root ? bytes_of (recvcount, recvtype) * comm_size (comm) : -1);
  return r;
}

SL_EXPORT int
MPI_Scatter (const void *sendbuf,
             int         sendcount,
             Handle      sendtype,
             void       *recvbuf,
             int         recvcount,
             Handle      recvtype,
             int         root,
             Handle      comm)
{
  REAL (GatherFn, "PMPI_Scatter");
  if (mpi_skip ())
    return real (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  START (SL_MPI_SCATTER);
  int r = real (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  bool is_root = comm_rank (comm) == root;
  m.peer = root;
  m.flags = SL_MPI_HAS_PEER;
  coll_emit (&m, comm, is_root ? bytes_of (sendcount, sendtype) * comm_size (comm) : -1,
             in_place (recvbuf) ? -1 : bytes_of (recvcount, recvtype));
  return r;
}

SL_EXPORT int
MPI_Allgather (const void *sendbuf,
               int         sendcount,
               Handle      sendtype,
               void       *recvbuf,
               int         recvcount,
               Handle      recvtype,
               Handle      comm)
{
  REAL (AllgatherFn, "PMPI_Allgather");
  if (mpi_skip ())
    return real (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  START (SL_MPI_ALLGATHER);
  int r = real (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  coll_emit (&m, comm,
             in_place (sendbuf) ? bytes_of (recvcount, recvtype) : bytes_of (sendcount, sendtype),
             bytes_of (recvcount, recvtype) * comm_size (comm));
  return r;
}

SL_EXPORT int
MPI_Alltoall (const void *sendbuf,
              int         sendcount,
              Handle      sendtype,
              void       *recvbuf,
              int         recvcount,
              Handle      recvtype,
              Handle      comm)
{
  REAL (AllgatherFn, "PMPI_Alltoall");
  if (mpi_skip ())
    return real (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  START (SL_MPI_ALLTOALL);
  int r = real (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  int n = comm_size (comm);
  coll_emit (&m, comm,
             in_place (sendbuf) ? bytes_of (recvcount, recvtype) * n
                                : bytes_of (sendcount, sendtype) * n,
             bytes_of (recvcount, recvtype) * n);
  return r;
}

/* ---- waits and tests ---- */

typedef int (*WaitFn) (Handle *, void *);
typedef int (*WaitallFn) (int, Handle *, void *);
typedef int (*WaitanyFn) (int, Handle *, int *, void *);
typedef int (*TestFn) (Handle *, int *, void *);
typedef int (*TestallFn) (int, Handle *, int *, void *);

static void
wait_emit (MpiCall   *m,
           uint64_t   request)
{
  m->request = request;
  m->flags = SL_MPI_HAS_REQUEST;
  mpi_emit (m);
}

SL_EXPORT int
MPI_Wait (Handle *request,
          void   *status)
{
  REAL (WaitFn, "PMPI_Wait");
  if (mpi_skip ())
    return real (request, status);
  START (SL_MPI_WAIT);
  uint64_t req = request_at (request, 0); /* before the call sets it to MPI_REQUEST_NULL */
  int r = real (request, status);
  wait_emit (&m, req);
  return r;
}

SL_EXPORT int
MPI_Waitall (int     count,
             Handle *requests,
             void   *statuses)
{
  REAL (WaitallFn, "PMPI_Waitall");
  if (mpi_skip ())
    return real (count, requests, statuses);
  START (SL_MPI_WAITALL);
  uint64_t req = count > 0 ? request_at (requests, 0) : 0;
  int r = real (count, requests, statuses);
  wait_emit (&m, req);
  return r;
}

SL_EXPORT int
MPI_Waitany (int     count,
             Handle *requests,
             int    *index,
             void   *status)
{
  REAL (WaitanyFn, "PMPI_Waitany");
  if (mpi_skip ())
    return real (count, requests, index, status);
  START (SL_MPI_WAITANY);
  uint64_t req = count > 0 ? request_at (requests, 0) : 0;
  int r = real (count, requests, index, status);
  wait_emit (&m, req);
  return r;
}

SL_EXPORT int
MPI_Test (Handle *request,
          int    *flag,
          void   *status)
{
  REAL (TestFn, "PMPI_Test");
  if (mpi_skip ())
    return real (request, flag, status);
  START (SL_MPI_TEST);
  uint64_t req = request_at (request, 0);
  int r = real (request, flag, status);
  wait_emit (&m, req);
  return r;
}

SL_EXPORT int
MPI_Testall (int     count,
             Handle *requests,
             int    *flag,
             void   *statuses)
{
  REAL (TestallFn, "PMPI_Testall");
  if (mpi_skip ())
    return real (count, requests, flag, statuses);
  START (SL_MPI_TESTALL);
  uint64_t req = count > 0 ? request_at (requests, 0) : 0;
  int r = real (count, requests, flag, statuses);
  wait_emit (&m, req);
  return r;
}

/* ---- the rest ---- */

typedef int (*InitFn) (int *, char ***);
typedef int (*InitThreadFn) (int *, char ***, int, int *);
typedef int (*FinalizeFn) (void);
typedef int (*CommDupFn) (Handle, Handle *);
typedef int (*CommSplitFn) (Handle, int, int, Handle *);
typedef int (*CommFreeFn) (Handle *);

SL_EXPORT int
MPI_Init (int    *argc,
          char ***argv)
{
  REAL (InitFn, "PMPI_Init");
  if (mpi_skip ())
    return real (argc, argv);
  START (SL_MPI_INIT);
  int r = real (argc, argv);
  mpi_emit (&m);
  if (r == 0)
    comm_describe (comm_world, 0);
  return r;
}

SL_EXPORT int
MPI_Init_thread (int    *argc,
                 char ***argv,
                 int     required,
                 int    *provided)
{
  REAL (InitThreadFn, "PMPI_Init_thread");
  if (mpi_skip ())
    return real (argc, argv, required, provided);
  START (SL_MPI_INIT_THREAD);
  int r = real (argc, argv, required, provided);
  mpi_emit (&m);
  if (r == 0)
    comm_describe (comm_world, 0);
  return r;
}

SL_EXPORT int
MPI_Finalize (void)
{
  REAL (FinalizeFn, "PMPI_Finalize");
  if (mpi_skip ())
    return real ();
  START (SL_MPI_FINALIZE);
  int r = real ();
  mpi_emit (&m);
  /* no call of another thread can be under way (the standard says so): every batch goes */
  batches_send_all ();
  return r;
}

SL_EXPORT int
MPI_Comm_rank (Handle comm,
               int   *rank)
{
  REAL (CommIntFn, "PMPI_Comm_rank");
  if (mpi_skip ())
    return real (comm, rank);
  START (SL_MPI_COMM_RANK);
  int r = real (comm, rank);
  m.flags = SL_MPI_HAS_COMM;
  m.comm = comm;
  mpi_emit (&m);
  return r;
}

SL_EXPORT int
MPI_Comm_size (Handle comm,
               int   *size)
{
  REAL (CommIntFn, "PMPI_Comm_size");
  if (mpi_skip ())
    return real (comm, size);
  START (SL_MPI_COMM_SIZE);
  int r = real (comm, size);
  m.flags = SL_MPI_HAS_COMM;
  m.comm = comm;
  mpi_emit (&m);
  return r;
}

SL_EXPORT int
MPI_Comm_dup (Handle  comm,
              Handle *newcomm)
{
  REAL (CommDupFn, "PMPI_Comm_dup");
  if (mpi_skip ())
    return real (comm, newcomm);
  START (SL_MPI_COMM_DUP);
  int r = real (comm, newcomm);
  m.flags = SL_MPI_HAS_COMM;
  m.comm = comm;
  if (r == 0 && newcomm != NULL)
    comm_describe ((Handle) request_at (newcomm, 0), comm);
  mpi_emit (&m);
  return r;
}

SL_EXPORT int
MPI_Comm_split (Handle  comm,
                int     color,
                int     key,
                Handle *newcomm)
{
  REAL (CommSplitFn, "PMPI_Comm_split");
  if (mpi_skip ())
    return real (comm, color, key, newcomm);
  START (SL_MPI_COMM_SPLIT);
  int r = real (comm, color, key, newcomm);
  m.flags = SL_MPI_HAS_COMM;
  m.comm = comm;
  /* MPI_COMM_NULL (color MPI_UNDEFINED) is not a communicator to describe */
  if (r == 0 && newcomm != NULL && color >= 0)
    comm_describe ((Handle) request_at (newcomm, 0), comm);
  mpi_emit (&m);
  return r;
}

SL_EXPORT int
MPI_Comm_free (Handle *comm)
{
  REAL (CommFreeFn, "PMPI_Comm_free");
  if (mpi_skip ())
    return real (comm);
  START (SL_MPI_COMM_FREE);
  m.flags = SL_MPI_HAS_COMM;
  m.comm = comm != NULL ? (Handle) request_at (comm, 0) : 0;
  int r = real (comm);
  mpi_emit (&m); /* before it is forgotten: a call on an unknown communicator describes it */
  comm_forget ((Handle) m.comm);
  return r;
}
