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
 * Stacks.  The handler walks DWARF CFI (code built without frame pointers, i.e. nearly all of
 * it, unwinds right) from the registers the kernel saved in the ucontext: frame 0 is the
 * interrupted instruction, the others are return addresses.  On x86-64 it keeps each address's
 * rule in a table and reuses the thread's previous walk (see "The native walk" below: in the
 * PyTorch loop a median walk of 8-10 µs against libgcc's 29-33 µs, the same stacks);
 * elsewhere, and for frames that table does not model, it is libgcc's _Unwind_Backtrace
 * (libgcc >= 12 finds FDEs through glibc's lock-free _dl_find_object), the same walk glibc's
 * backtrace() does without its lazy dlopen and without sanitizers' interceptor around it, which
 * skips its own frames and the kernel's signal trampoline up to the frame whose PC is the
 * ucontext's.  No lock, no malloc, ~3 KiB of stack.  The walk costs ~0.7 us for 14 frames; with
 * the signal, the whole sample at 1 kHz measured 0-1% of the sampled thread's CPU time
 * (tests/test-sample.c /collector/sample/overhead).
 * A PyTorch training loop's stacks are deeper (~45 frames, half of them Python): on a loaded
 * 2-core VM a signal's handler took 120-180 µs, half in the native walk and half reading Python
 * frames (sl-inject-python.c), 3-4.4 % of the loop's CPU time; the Python part now reads again
 * the thread's previous stack in one system call (2.6 reads a stack instead of 4.7).
 * SIGHTLINE_SAMPLE_STATS=1 keeps that account (the thread's CPU clock around each handler, and
 * the Python reads' counts), said on stderr at the end and asked by sightline_sample_stats(),
 * sightline_sample_walk_stats() and sightline_sample_python_stats() (bench-pytorch).
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
  _Atomic uint64_t stats_ns, stats_python_ns, stats_walk_ns, stats_signals;
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

/* ---------------------------------------------------------------------------------------------- */
/* The native walk, with its rules cached per address (x86-64)                                    */

/* libgcc's walk finds each frame's FDE anew (a binary search of the object's .eh_frame_hdr table:
 * libtorch_cpu's has ~200 k entries, a cache miss a step), then runs the FDE's CFA program up to
 * the address, ~1 µs a frame on a loaded VM: most of the ~60 µs a PyTorch stack cost.  The rules
 * found for an address (where the CFA is, where the return address and %rbp were saved) are the
 * same every time that address is seen, and a training loop's stacks go through the same few
 * thousand addresses over and over: the walk here keeps them in a table shared by all threads,
 * filled on first use, and then costs a hash probe and two loads a frame.  On a miss it finds the
 * FDE with libgcc's own _Unwind_Find_FDE (what _Unwind_Backtrace calls) and runs the CFA program
 * itself (the DW_CFA_* subset compilers emit for x86-64 code: the CFA as %rsp or %rbp plus an
 * offset, registers saved at CFA offsets, remember/restore, and GCC's stack realignment: the CFA
 * read from %rbp - 8, %rbp saved at %rbp).  Whatever it does not model (other DWARF expressions,
 * a CFA on another register as in a realigning prologue, PLT stubs, signal frames: the program's
 * own handlers deeper in the stack) is cached as such and that stack is walked by libgcc, so
 * the frames are libgcc's in every case: where the walk stops (no FDE: that frame is the last
 * one; the return address undefined, as in _start and clone) and frame 0 looked up at the
 * interrupted instruction itself, the others at their return address - 1.  In the PyTorch loop
 * 1 walk in 300 went to libgcc (a leaf in a PLT stub or the dynamic linker's trampoline).
 * Lock-free: an entry is a seqlock whose sequence is its key (a reader that sees the same key
 * before and after reading the rule has the rule written for that key: rules for one address
 * never differ).  Unloaded objects (dlclose) empty the table at the next module walk (≤ 50 ms);
 * code that takes an unloaded object's place before that and is sampled at an address cached
 * for the old one would be walked with the old rule.
 * SIGHTLINE_UNWIND=libgcc walks every stack with libgcc as before; SIGHTLINE_UNWIND=compare (with
 * SIGHTLINE_SAMPLE_STATS=1) walks each both ways and says both medians and the walks that
 * differed (none in ~5000 of the PyTorch loop's, parent and DataLoader workers). */

#if defined(__x86_64__)
#define SL_FAST_UNWIND 1
#else
#define SL_FAST_UNWIND 0
#endif

#define SL_RULE_BITS   14 /* 16 K entries, 256 KiB: a PyTorch loop uses a few thousand */
#define SL_RULE_PROBES 4
#define SL_RULE_EMPTY  0u
#define SL_RULE_BUSY   1u /* an entry being written */
#define SL_CFA_STACK   8  /* DW_CFA_remember_state depth modelled */

/* What a rule says about a frame.  0 is never a rule (an unwritten value). */
enum
{
  SL_RULE_STEP = 1, /* the caller's registers from the CFA: the fields below */
  SL_RULE_LAST,     /* this frame is the last one (no FDE, or the return address undefined) */
  SL_RULE_SLOW,     /* not modelled here: libgcc walks this stack */
};

/* Where the CFA is (SlRule.cfa_how), and the caller's %rbp (rbp_how). */
enum
{
  SL_CFA_RSP,       /* %rsp + cfa_off */
  SL_CFA_RBP,       /* %rbp + cfa_off */
  SL_CFA_DEREF_RBP, /* the word at %rbp + cfa_off: GCC's stack realignment (a "DRAP"), which
                     * vectorized kernels (libtorch's pooling, say) have */
};
enum
{
  SL_RBP_SAME,   /* this frame's */
  SL_RBP_AT_CFA, /* saved at CFA + rbp_off */
  SL_RBP_AT_RBP, /* saved at %rbp + rbp_off (with a DRAP) */
};

typedef struct
{
  unsigned kind;
  unsigned cfa_how, rbp_how;
  int32_t  cfa_off, ra_off, rbp_off; /* the return address is at CFA + ra_off */
} SlRule;

typedef struct
{
  _Atomic uint64_t key; /* the address looked up; SL_RULE_EMPTY, SL_RULE_BUSY */
  _Atomic uint64_t rule; /* rule_pack() */
} SlRuleEntry;

static _Atomic unsigned rule_gen; /* one more each time the table is emptied */

static struct
{
  bool             libgcc; /* SIGHTLINE_UNWIND=libgcc */
  _Atomic bool     check;  /* test hook: both walks, compared */
  _Atomic uint64_t walks, slow, mismatches, misses, reused;
} U;

#if SL_FAST_UNWIND /* (the rest of the walk's parts too: unused elsewhere) */

static SlRuleEntry rule_table[1u << SL_RULE_BITS];

#define SL_OFF_BITS 19 /* signed offsets: ±256 KiB of frame */

static bool
off_fits (int64_t v)
{
  return v >= -(1 << (SL_OFF_BITS - 1)) && v < (1 << (SL_OFF_BITS - 1));
}

static uint64_t
rule_pack (const SlRule *r)
{
  uint64_t mask = (1u << SL_OFF_BITS) - 1;

  if (r->kind != SL_RULE_STEP)
    return r->kind;
  if (!off_fits (r->cfa_off) || !off_fits (r->ra_off) || !off_fits (r->rbp_off))
    return SL_RULE_SLOW;
  return (uint64_t) r->kind | (uint64_t) r->cfa_how << 2 | (uint64_t) r->rbp_how << 4
         | ((uint64_t) (uint32_t) r->cfa_off & mask) << 6
         | ((uint64_t) (uint32_t) r->ra_off & mask) << (6 + SL_OFF_BITS)
         | ((uint64_t) (uint32_t) r->rbp_off & mask) << (6 + 2 * SL_OFF_BITS);
}

static int32_t
off_unpack (uint64_t v)
{
  uint32_t u = (uint32_t) (v & ((1u << SL_OFF_BITS) - 1));

  return (int32_t) (u ^ (1u << (SL_OFF_BITS - 1))) - (1 << (SL_OFF_BITS - 1));
}

static SlRule
rule_unpack (uint64_t v)
{
  SlRule r = { (unsigned) (v & 3), (unsigned) (v >> 2 & 3), (unsigned) (v >> 4 & 3),
               off_unpack (v >> 6), off_unpack (v >> (6 + SL_OFF_BITS)),
               off_unpack (v >> (6 + 2 * SL_OFF_BITS)) };
  return r;
}

static size_t
rule_slot (uint64_t pc)
{
  return (size_t) ((pc * 0x9e3779b97f4a7c15u) >> (64 - SL_RULE_BITS));
}

/* The packed rule cached for `pc`, 0 when there is none. */
static uint64_t
rule_lookup (uint64_t pc)
{
  size_t slot = rule_slot (pc);

  for (unsigned i = 0; i < SL_RULE_PROBES; i++)
    {
      SlRuleEntry *e = &rule_table[(slot + i) & ((1u << SL_RULE_BITS) - 1)];
      uint64_t k = atomic_load_explicit (&e->key, memory_order_acquire);
      if (k == SL_RULE_EMPTY)
        return 0;
      if (k != pc)
        continue;
      uint64_t v = atomic_load_explicit (&e->rule, memory_order_relaxed);
      atomic_thread_fence (memory_order_acquire);
      return atomic_load_explicit (&e->key, memory_order_relaxed) == pc ? v : 0;
    }
  return 0;
}

static void
rule_store (uint64_t pc,
            uint64_t packed)
{
  size_t slot = rule_slot (pc);
  SlRuleEntry *e = &rule_table[slot];

  for (unsigned i = 0; i < SL_RULE_PROBES; i++)
    {
      SlRuleEntry *c = &rule_table[(slot + i) & ((1u << SL_RULE_BITS) - 1)];
      if (atomic_load_explicit (&c->key, memory_order_relaxed) == SL_RULE_EMPTY)
        {
          e = c;
          break;
        }
    }
  /* full: the first slot is overwritten */
  uint64_t old = atomic_load_explicit (&e->key, memory_order_relaxed);
  if (old == SL_RULE_BUSY
      || !atomic_compare_exchange_strong_explicit (&e->key, &old, SL_RULE_BUSY,
                                                   memory_order_relaxed, memory_order_relaxed))
    return; /* another thread writes it: this rule is found again next time */
  atomic_thread_fence (memory_order_release);
  atomic_store_explicit (&e->rule, packed, memory_order_relaxed);
  atomic_store_explicit (&e->key, pc, memory_order_release);
}

/* libgcc's lookup (unwind-dw2-fde.h; exported from libgcc_s since GCC 3.0): the FDE covering
 * `pc`, and the function's start in bases->func. */
struct sl_dwarf_eh_bases
{
  void *tbase;
  void *dbase;
  void *func;
};
extern const void *_Unwind_Find_FDE (void *pc, struct sl_dwarf_eh_bases *bases);

/* The FDEs found, by 64-byte block of code: a rule missing from the table is mostly a new leaf
 * instruction (a sample lands anywhere in a hot kernel), in a function whose FDE was found
 * before; _Unwind_Find_FDE's binary search of libtorch_cpu's table is a dozen cache misses.  An
 * entry is the same seqlock as the rules' (key: the block), good for the addresses in
 * [func, end). */
#define SL_FDE_BITS 12

typedef struct
{
  _Atomic uint64_t key;
  _Atomic uint64_t fde, func, end;
} SlFdeEntry;

static SlFdeEntry fde_table[1u << SL_FDE_BITS];

static SlFdeEntry *
fde_slot (uint64_t block)
{
  return &fde_table[(block * 0x9e3779b97f4a7c15u) >> (64 - SL_FDE_BITS)];
}

/* The FDE covering `pc` found before, and its function's start; NULL when there is none. */
static const uint8_t *
fde_lookup (uint64_t  pc,
            uint64_t *func)
{
  SlFdeEntry *e = fde_slot (pc >> 6);

  if (atomic_load_explicit (&e->key, memory_order_acquire) != pc >> 6)
    return NULL;
  uint64_t fde = atomic_load_explicit (&e->fde, memory_order_relaxed);
  uint64_t start = atomic_load_explicit (&e->func, memory_order_relaxed);
  uint64_t end = atomic_load_explicit (&e->end, memory_order_relaxed);
  atomic_thread_fence (memory_order_acquire);
  if (atomic_load_explicit (&e->key, memory_order_relaxed) != pc >> 6 || pc < start || pc >= end)
    return NULL;
  *func = start;
  return (const uint8_t *) (uintptr_t) fde;
}

static void
fde_store (uint64_t       pc,
           const uint8_t *fde,
           uint64_t       func,
           uint64_t       end)
{
  SlFdeEntry *e = fde_slot (pc >> 6);
  uint64_t old = atomic_load_explicit (&e->key, memory_order_relaxed);

  if (old == SL_RULE_BUSY
      || !atomic_compare_exchange_strong_explicit (&e->key, &old, SL_RULE_BUSY,
                                                   memory_order_relaxed, memory_order_relaxed))
    return;
  atomic_thread_fence (memory_order_release);
  atomic_store_explicit (&e->fde, (uint64_t) (uintptr_t) fde, memory_order_relaxed);
  atomic_store_explicit (&e->func, func, memory_order_relaxed);
  atomic_store_explicit (&e->end, end, memory_order_relaxed);
  atomic_store_explicit (&e->key, pc >> 6, memory_order_release);
}

#endif

/* Empties the tables: objects were unloaded (module walks, not in handlers). */
static void
rule_table_clear (void)
{
  atomic_fetch_add (&rule_gen, 1); /* the threads' last walks are not reused either */
#if SL_FAST_UNWIND
  for (size_t i = 0; i < (1u << SL_RULE_BITS); i++)
    {
      uint64_t k = atomic_load_explicit (&rule_table[i].key, memory_order_relaxed);
      if (k != SL_RULE_EMPTY && k != SL_RULE_BUSY)
        atomic_compare_exchange_strong_explicit (&rule_table[i].key, &k, SL_RULE_EMPTY,
                                                 memory_order_relaxed, memory_order_relaxed);
    }
  for (size_t i = 0; i < (1u << SL_FDE_BITS); i++)
    {
      uint64_t k = atomic_load_explicit (&fde_table[i].key, memory_order_relaxed);
      if (k != SL_RULE_EMPTY && k != SL_RULE_BUSY)
        atomic_compare_exchange_strong_explicit (&fde_table[i].key, &k, SL_RULE_EMPTY,
                                                 memory_order_relaxed, memory_order_relaxed);
    }
#endif
}

#if SL_FAST_UNWIND
typedef struct
{
  const uint8_t *p, *end;
  bool           bad;
} SlCfiReader;

static uint64_t
cfi_uleb (SlCfiReader *r)
{
  uint64_t v = 0;
  unsigned shift = 0;

  while (r->p < r->end)
    {
      uint8_t b = *r->p++;
      if (shift < 64)
        v |= (uint64_t) (b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) == 0)
        return v;
    }
  r->bad = true;
  return 0;
}

static int64_t
cfi_sleb (SlCfiReader *r)
{
  uint64_t v = 0;
  unsigned shift = 0;

  while (r->p < r->end)
    {
      uint8_t b = *r->p++;
      if (shift < 64)
        v |= (uint64_t) (b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) == 0)
        {
          if (shift < 64 && (b & 0x40) != 0)
            v |= ~(uint64_t) 0 << shift;
          return (int64_t) v;
        }
    }
  r->bad = true;
  return 0;
}

static uint64_t
cfi_fixed (SlCfiReader *r,
           size_t       size)
{
  uint64_t v = 0;

  if ((size_t) (r->end - r->p) < size)
    {
      r->bad = true;
      return 0;
    }
  memcpy (&v, r->p, size); /* little-endian */
  r->p += size;
  return v;
}

/* A value in DW_EH_PE_* encoding `enc` as stored (its application, pc-relative say, not applied:
 * only sizes matter here, and pc_range, which has none). */
static uint64_t
cfi_read_raw (SlCfiReader *r,
              uint8_t      enc)
{
  if (enc == 0xff) /* DW_EH_PE_omit */
    return 0;
  switch (enc & 0x0f)
    {
    case 0x00: return cfi_fixed (r, 8); /* absptr */
    case 0x01: return cfi_uleb (r);
    case 0x02: return cfi_fixed (r, 2);
    case 0x03: return cfi_fixed (r, 4);
    case 0x04: case 0x0c: return cfi_fixed (r, 8);
    case 0x09: return (uint64_t) cfi_sleb (r);
    case 0x0a: return (uint64_t) (int64_t) (int16_t) cfi_fixed (r, 2);
    case 0x0b: return (uint64_t) (int64_t) (int32_t) cfi_fixed (r, 4);
    default: r->bad = true; return 0;
    }
}

static void
cfi_skip_pointer (SlCfiReader *r,
                  uint8_t      enc)
{
  cfi_read_raw (r, enc);
}

/* The rules the CFA program tracks: the CFA, the return address's column and %rbp. */
typedef struct
{
  uint8_t cfa_reg;  /* DWARF register: 6 %rbp, 7 %rsp; anything else is not modelled */
  uint8_t cfa_expr; /* 0: none; 1: DW_OP_breg6 cfa_exp_off, DW_OP_deref; 2: another */
  int64_t cfa_off, cfa_exp_off;
  uint8_t ra_how, rbp_how; /* SL_HOW_* */
  int64_t ra_off, rbp_off;
} SlCfaRow;

enum
{
  SL_HOW_SAME,      /* unchanged (also DW_CFA_same_value, DW_CFA_undefined for %rbp) */
  SL_HOW_OFFSET,    /* saved at CFA + off */
  SL_HOW_AT_RBP,    /* saved at %rbp + off (DW_CFA_expression DW_OP_breg6 off) */
  SL_HOW_UNDEFINED, /* the return address: the outermost frame */
  SL_HOW_OTHER,     /* in another register, an expression, a value: not modelled */
};

#define SL_DW_RBP 6
#define SL_DW_RSP 7

/* Whether the DWARF expression [p, p + len) is DW_OP_breg6 (%rbp) OFF, then DW_OP_deref when
 * `deref`: the only ones modelled (GCC's stack realignment). */
static bool
expr_rbp (const uint8_t *p,
          uint64_t       len,
          bool           deref,
          int64_t       *off)
{
  SlCfiReader e = { p, p + len, false };

  if (len < 2 || *e.p++ != 0x76)
    return false;
  *off = cfi_sleb (&e);
  if (deref && (e.p == e.end || *e.p++ != 0x06))
    return false;
  return !e.bad && e.p == e.end;
}

/* Runs CFA instructions [r->p, r->end) on `row` while the location is at most `pc`, as libgcc's
 * execute_cfa_program does (DW_CFA_restore included: libgcc makes the register unsaved, not the
 * CIE's rule); false on what is not modelled. */
static bool
cfa_run (SlCfiReader *r,
         SlCfaRow    *row,
         unsigned     ra_col,
         uint64_t     code_align,
         int64_t      data_align,
         uint64_t     loc,
         uint64_t     pc)
{
  SlCfaRow stack[SL_CFA_STACK];
  unsigned depth = 0;

  while (r->p < r->end && !r->bad && loc <= pc)
    {
      uint8_t op = *r->p++;
      uint64_t reg = 0;
      int64_t off = 0;
      int how = -1; /* a register rule to set: SL_HOW_* */

      switch (op >> 6)
        {
        case 1: /* DW_CFA_advance_loc */
          loc += (op & 0x3f) * code_align;
          continue;
        case 2: /* DW_CFA_offset */
          reg = op & 0x3f;
          off = (int64_t) cfi_uleb (r) * data_align;
          how = SL_HOW_OFFSET;
          break;
        case 3: /* DW_CFA_restore */
          reg = op & 0x3f;
          how = SL_HOW_SAME;
          break;
        default:
          switch (op)
            {
            case 0x00: /* nop */
            case 0x2e: /* GNU_args_size */
              if (op == 0x2e)
                cfi_uleb (r);
              continue;
            case 0x02: loc += cfi_fixed (r, 1) * code_align; continue;
            case 0x03: loc += cfi_fixed (r, 2) * code_align; continue;
            case 0x04: loc += cfi_fixed (r, 4) * code_align; continue;
            case 0x05: /* offset_extended */
              reg = cfi_uleb (r);
              off = (int64_t) cfi_uleb (r) * data_align;
              how = SL_HOW_OFFSET;
              break;
            case 0x11: /* offset_extended_sf */
              reg = cfi_uleb (r);
              off = cfi_sleb (r) * data_align;
              how = SL_HOW_OFFSET;
              break;
            case 0x2f: /* GNU_negative_offset_extended */
              reg = cfi_uleb (r);
              off = -(int64_t) cfi_uleb (r) * data_align;
              how = SL_HOW_OFFSET;
              break;
            case 0x06: /* restore_extended */
              reg = cfi_uleb (r);
              how = SL_HOW_SAME;
              break;
            case 0x07: /* undefined */
              reg = cfi_uleb (r);
              how = SL_HOW_UNDEFINED;
              break;
            case 0x08: /* same_value */
              reg = cfi_uleb (r);
              how = SL_HOW_SAME;
              break;
            case 0x09: /* register */
              reg = cfi_uleb (r);
              cfi_uleb (r);
              how = SL_HOW_OTHER;
              break;
            case 0x10: /* expression */
            case 0x16: /* val_expression */
              {
                reg = cfi_uleb (r);
                uint64_t len = cfi_uleb (r);
                if (r->bad || len > (uint64_t) (r->end - r->p))
                  return false;
                how = op == 0x10 && expr_rbp (r->p, len, false, &off) ? SL_HOW_AT_RBP
                                                                       : SL_HOW_OTHER;
                r->p += len;
              }
              break;
            case 0x14: /* val_offset */
              reg = cfi_uleb (r);
              cfi_uleb (r);
              how = SL_HOW_OTHER;
              break;
            case 0x15: /* val_offset_sf */
              reg = cfi_uleb (r);
              cfi_sleb (r);
              how = SL_HOW_OTHER;
              break;
            case 0x0a: /* remember_state (the CFA too, as libgcc does) */
              if (depth == SL_CFA_STACK)
                return false;
              stack[depth++] = *row;
              continue;
            case 0x0b: /* restore_state */
              if (depth == 0)
                return false;
              *row = stack[--depth];
              continue;
            case 0x0c: /* def_cfa */
              row->cfa_reg = (uint8_t) (reg = cfi_uleb (r));
              row->cfa_off = (int64_t) cfi_uleb (r);
              row->cfa_expr = 0;
              if (reg > 0xff)
                return false;
              continue;
            case 0x12: /* def_cfa_sf */
              row->cfa_reg = (uint8_t) (reg = cfi_uleb (r));
              row->cfa_off = cfi_sleb (r) * data_align;
              row->cfa_expr = 0;
              if (reg > 0xff)
                return false;
              continue;
            case 0x0d: /* def_cfa_register */
              row->cfa_reg = (uint8_t) (reg = cfi_uleb (r));
              row->cfa_expr = 0;
              if (reg > 0xff)
                return false;
              continue;
            case 0x0e: /* def_cfa_offset */
              row->cfa_off = (int64_t) cfi_uleb (r);
              continue;
            case 0x13: /* def_cfa_offset_sf */
              row->cfa_off = cfi_sleb (r) * data_align;
              continue;
            case 0x0f: /* def_cfa_expression */
              {
                uint64_t len = cfi_uleb (r);
                if (r->bad || len > (uint64_t) (r->end - r->p))
                  return false;
                row->cfa_expr = expr_rbp (r->p, len, true, &row->cfa_exp_off) ? 1 : 2;
                r->p += len;
              }
              continue;
            default: /* set_loc, GNU_window_save, vendor ones */
              return false;
            }
        }
      if (reg == ra_col)
        {
          row->ra_how = (uint8_t) how;
          row->ra_off = off;
        }
      else if (reg == SL_DW_RBP)
        {
          row->rbp_how = (uint8_t) (how == SL_HOW_UNDEFINED ? SL_HOW_SAME : how);
          row->rbp_off = off;
        }
      else if (reg == SL_DW_RSP && how != SL_HOW_SAME)
        return false; /* %rsp other than the CFA */
    }
  return !r->bad;
}

/* The rule of the frame at `pc` (its instruction for frame 0, its return address - 1 above),
 * from its FDE.  Async-signal-safe: _Unwind_Find_FDE is what libgcc's walk calls in the
 * handler. */
static SlRule
rule_compute (uint64_t pc)
{
  SlRule slow = { SL_RULE_SLOW, 0, 0, 0, 0, 0 };
  SlRule last = { SL_RULE_LAST, 0, 0, 0, 0, 0 };
  struct sl_dwarf_eh_bases bases = { NULL, NULL, NULL };
  uint64_t func = 0;
  const uint8_t *fde = fde_lookup (pc, &func);
  bool cached = fde != NULL;

  if (!cached)
    {
      fde = _Unwind_Find_FDE ((void *) (uintptr_t) pc, &bases);
      func = (uint64_t) (uintptr_t) bases.func;
    }
  atomic_fetch_add_explicit (&U.misses, 1, memory_order_relaxed);
  if (fde == NULL)
    {
      /* libgcc's fallback: the kernel's rt_sigreturn trampoline without CFI (libgcc reads the
       * same bytes); anything else ends the stack */
      const uint8_t *code = (const uint8_t *) (uintptr_t) pc;
      uint64_t tail;
      memcpy (&tail, code + 1, sizeof tail);
      return code[0] == 0x48 && tail == 0x050f0000000fc0c7u ? slow : last;
    }

  /* the FDE: length, CIE pointer, pc_begin, pc_range, [augmentation], instructions */
  uint32_t fde_len;
  int32_t cie_off;
  memcpy (&fde_len, fde, 4);
  if (fde_len < 8 || fde_len == 0xffffffffu)
    return slow;
  memcpy (&cie_off, fde + 4, 4);
  const uint8_t *cie = fde + 4 - cie_off;
  uint32_t cie_len;
  memcpy (&cie_len, cie, 4);
  if (cie_len < 8 || cie_len == 0xffffffffu)
    return slow;

  SlCfiReader c = { cie + 8, cie + 4 + cie_len, false };
  uint8_t version = (uint8_t) cfi_fixed (&c, 1);
  const char *aug = (const char *) c.p;
  size_t aug_len = strnlen (aug, (size_t) (c.end - c.p));
  if (c.bad || aug_len == (size_t) (c.end - c.p) || (version != 1 && version != 3))
    return slow;
  c.p += aug_len + 1;
  if (strstr (aug, "eh") != NULL)
    return slow; /* GCC 2's, long gone */
  uint64_t code_align = cfi_uleb (&c);
  int64_t data_align = cfi_sleb (&c);
  uint64_t ra_col = version == 1 ? cfi_fixed (&c, 1) : cfi_uleb (&c);
  uint8_t fde_enc = 0; /* DW_EH_PE_absptr */
  bool has_z = aug[0] == 'z';
  if (has_z)
    {
      uint64_t len = cfi_uleb (&c);
      if (c.bad || len > (uint64_t) (c.end - c.p))
        return slow;
      SlCfiReader a = { c.p, c.p + len, false };
      for (const char *k = aug + 1; *k != '\0' && !a.bad; k++)
        if (*k == 'R')
          fde_enc = (uint8_t) cfi_fixed (&a, 1);
        else if (*k == 'L')
          cfi_fixed (&a, 1);
        else if (*k == 'P')
          cfi_skip_pointer (&a, (uint8_t) cfi_fixed (&a, 1) & 0x7f);
        else if (*k == 'S')
          return slow; /* a signal frame: libgcc knows what follows */
        else if (*k != 'B' && *k != 'G')
          return slow;
      if (a.bad)
        return slow;
      c.p += len;
    }
  if (c.bad || code_align == 0 || ra_col > 0xff)
    return slow;

  SlCfaRow row = { SL_DW_RSP, 0, 0, 0, SL_HOW_SAME, SL_HOW_SAME, 0, 0 };
  if (!cfa_run (&c, &row, (unsigned) ra_col, code_align, data_align, 0, UINT64_MAX))
    return slow;

  SlCfiReader f = { fde + 8, fde + 4 + fde_len, false };
  cfi_skip_pointer (&f, fde_enc);                    /* pc_begin: bases.func has it */
  uint64_t range = cfi_read_raw (&f, fde_enc & 0x0f); /* pc_range */
  if (!cached && !f.bad && range > 0 && pc >= func && pc - func < range)
    fde_store (pc, fde, func, func + range);
  if (has_z)
    {
      uint64_t len = cfi_uleb (&f);
      if (f.bad || len > (uint64_t) (f.end - f.p))
        return slow;
      f.p += len;
    }
  if (f.bad
      || !cfa_run (&f, &row, (unsigned) ra_col, code_align, data_align,
                   func, pc))
    return slow;

  if (row.ra_how == SL_HOW_UNDEFINED)
    return last;
  if (row.cfa_expr == 2
      || (row.cfa_expr == 0 && row.cfa_reg != SL_DW_RSP && row.cfa_reg != SL_DW_RBP)
      || row.ra_how != SL_HOW_OFFSET
      || (row.rbp_how != SL_HOW_SAME && row.rbp_how != SL_HOW_OFFSET
          && row.rbp_how != SL_HOW_AT_RBP))
    return slow;
  int64_t cfa_off = row.cfa_expr == 1 ? row.cfa_exp_off : row.cfa_off;
  if (!off_fits (cfa_off) || !off_fits (row.ra_off) || !off_fits (row.rbp_off))
    return slow;
  SlRule rule = { SL_RULE_STEP,
                  row.cfa_expr == 1 ? SL_CFA_DEREF_RBP
                  : row.cfa_reg == SL_DW_RBP ? SL_CFA_RBP : SL_CFA_RSP,
                  row.rbp_how == SL_HOW_OFFSET   ? SL_RBP_AT_CFA
                  : row.rbp_how == SL_HOW_AT_RBP ? SL_RBP_AT_RBP : SL_RBP_SAME,
                  (int32_t) cfa_off, (int32_t) row.ra_off, (int32_t) row.rbp_off };
  return rule;
}

#endif /* SL_FAST_UNWIND */

/* A thread's last walk, frame by frame, for its next one.  The table saves the CFA programs, but
 * each frame still costs two loads that wait on each other (its rule, then the return address
 * the rule points at), cache misses both in a loop whose working set is elsewhere: the table
 * alone took the PyTorch walk from ~50 to ~40 µs.  A sample 1 ms later is mostly the same stack
 * under a new leaf: once a frame's registers (ip, sp, bp) are those of a frame of the last walk,
 * and every stack word that walk read from there on (return addresses, saved %rbp, a DRAP's
 * CFA) still holds what it read, the walk from there on would read the same words with the same
 * rules and give the same frames: they are copied.  The words are checked with loads that do not
 * wait on each other.  Frame 0 is never matched (its rule is that of its instruction, not of a
 * return address); a walk cut at SL_WIRE_MAX_FRAMES is not kept. */
typedef struct
{
  uint64_t ip, sp, bp; /* the frame's registers */
  uint64_t cfa;        /* its caller's sp */
  uint64_t cfa_at;     /* the word its CFA was read from (a DRAP), else 0 */
  uint64_t ra_at;      /* the word its return address was read from; 0: the last frame */
  uint64_t bp_at;      /* the word the caller's %rbp was read from, else 0 */
} SlWalkStep;

typedef struct
{
  uint32_t   n; /* 0: nothing to reuse */
  unsigned   gen; /* rule_gen it was walked under */
  SlWalkStep steps[SL_WIRE_MAX_FRAMES];
} SlWalkHistory;

typedef struct
{
  SlWalkHistory h[2]; /* the last walk and the one being made */
  unsigned      last;
} SlWalkState;

/* ~14 KiB, malloc'd when the thread's sampling starts (not in the handler; static TLS is scarce
 * in a library that may be dlopen'ed) */
static __thread SlWalkState *tls_walk __attribute__ ((tls_model ("initial-exec")));

#if SL_FAST_UNWIND
/* Whether the walk `h` from its frame `j` on still holds (frame j's registers being equal). */
__attribute__ ((no_sanitize_address)) static bool
history_holds (const SlWalkHistory *h,
               uint32_t             j)
{
  bool ok = true;

  for (uint32_t m = j; m < h->n && h->steps[m].ra_at != 0; m++)
    {
      const SlWalkStep *st = &h->steps[m];
      bool last = m + 1 == h->n; /* its step read a return address of 0 */
      ok &= *(const uint64_t *) (uintptr_t) st->ra_at == (last ? 0 : h->steps[m + 1].ip);
      if (st->cfa_at != 0)
        ok &= *(const uint64_t *) (uintptr_t) st->cfa_at == st->cfa;
      if (st->bp_at != 0 && !last)
        ok &= *(const uint64_t *) (uintptr_t) st->bp_at == h->steps[m + 1].bp;
    }
  return ok;
}

#endif

/* The interrupted thread's frames from its ucontext, as libgcc's walk from the handler gives
 * them; false when a frame is not modelled here (nothing is written then that counts).  The
 * loads from the stack are those libgcc's walk makes (not instrumented: ASan knows no CFA). */
__attribute__ ((no_sanitize_address)) static bool
fast_walk (void     *ucontext,
           uint64_t *frames,
           uint32_t  max,
           uint32_t *n_out)
{
#if SL_FAST_UNWIND
  const ucontext_t *uc = ucontext;
  uint64_t ip = (uint64_t) uc->uc_mcontext.gregs[REG_RIP];
  uint64_t sp = (uint64_t) uc->uc_mcontext.gregs[REG_RSP];
  uint64_t bp = (uint64_t) uc->uc_mcontext.gregs[REG_RBP];
  unsigned gen = atomic_load_explicit (&rule_gen, memory_order_relaxed);
  SlWalkState *ws = tls_walk;
  SlWalkHistory *prev = NULL, *cur = NULL;
  SlWalkStep scratch;
  uint32_t n = 0, j = 1;
  bool complete = false;

  if (ws != NULL)
    {
      prev = &ws->h[ws->last];
      cur = &ws->h[ws->last ^ 1];
      if (prev->gen != gen || prev->n < 2)
        prev = NULL;
    }
  for (bool leaf = true; ip != 0 && n < max; leaf = false)
    {
      if (!leaf && prev != NULL)
        {
          while (j < prev->n && prev->steps[j].sp < sp)
            j++;
          if (j < prev->n && prev->steps[j].sp == sp && prev->steps[j].ip == ip
              && prev->steps[j].bp == bp && history_holds (prev, j))
            {
              uint32_t take = prev->n - j < max - n ? prev->n - j : max - n;
              for (uint32_t i = 0; i < take; i++)
                frames[n + i] = prev->steps[j + i].ip;
              memcpy (&cur->steps[n], &prev->steps[j], take * sizeof *cur->steps);
              n += take;
              complete = take == prev->n - j;
              atomic_fetch_add_explicit (&U.reused, take, memory_order_relaxed);
              break;
            }
          if (j == prev->n)
            prev = NULL; /* nothing of it is further out */
        }
      uint64_t pc = leaf ? ip : ip - 1;
      uint64_t packed = rule_lookup (pc);
      if (packed == 0)
        {
          SlRule computed = rule_compute (pc);
          packed = rule_pack (&computed);
          rule_store (pc, packed);
        }
      SlRule rule = rule_unpack (packed);
      if (rule.kind == SL_RULE_SLOW)
        return false;
      SlWalkStep *st = cur != NULL ? &cur->steps[n] : &scratch;
      *st = (SlWalkStep){ ip, sp, bp, 0, 0, 0, 0 };
      frames[n++] = ip;
      if (rule.kind == SL_RULE_LAST)
        {
          complete = true;
          break;
        }
      uint64_t cfa = (rule.cfa_how == SL_CFA_RSP ? sp : bp) + (uint64_t) (int64_t) rule.cfa_off;
      if (rule.cfa_how == SL_CFA_DEREF_RBP)
        {
          st->cfa_at = cfa;
          cfa = *(const uint64_t *) (uintptr_t) cfa;
        }
      st->cfa = cfa;
      st->ra_at = cfa + (uint64_t) (int64_t) rule.ra_off;
      ip = *(const uint64_t *) (uintptr_t) st->ra_at;
      if (rule.rbp_how != SL_RBP_SAME)
        {
          st->bp_at = (rule.rbp_how == SL_RBP_AT_CFA ? cfa : bp)
                      + (uint64_t) (int64_t) rule.rbp_off;
          bp = *(const uint64_t *) (uintptr_t) st->bp_at;
        }
      sp = cfa;
      complete = ip == 0;
    }
  if (cur != NULL)
    {
      cur->n = complete ? n : 0;
      cur->gen = gen;
      ws->last ^= 1;
    }
  *n_out = n;
  return true;
#else
  (void) ucontext;
  (void) frames;
  (void) max;
  (void) n_out;
  return false;
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

/* libgcc's walk from the handler: our frames and the trampoline skipped. */
static void
libgcc_walk (SlUnwind *st)
{
  _Unwind_Backtrace (unwind_cb, st);
  if (!st->found && st->pc != 0)
    {
      st->frames[0] = st->pc; /* no unwind info through the trampoline: the leaf at least */
      st->n = 1;
    }
}

/* Test hook (_sl_sample_set_unwind_check): the stack walked by libgcc too, and compared. */
__attribute__ ((noinline)) static void
check_walk (void           *ucontext,
            const uint64_t *frames,
            uint32_t        n)
{
  uint64_t again[SL_WIRE_MAX_FRAMES];
  SlUnwind st = { interrupted_pc (ucontext), again, 0, SL_WIRE_MAX_FRAMES, 0, false };

  libgcc_walk (&st);
  if (st.n != n || memcmp (again, frames, n * sizeof *frames) != 0)
    atomic_fetch_add_explicit (&U.mismatches, 1, memory_order_relaxed);
}

/* SIGHTLINE_UNWIND=compare (with SIGHTLINE_SAMPLE_STATS=1): each signal's stack walked both
 * ways, one after the other, timed in TSC ticks; the medians are said at the end with the stats.
 * A paired measure: the two walks of a pair meet the same stack and the same machine, which a
 * loaded machine's run-to-run noise (±20 % of CPU time) does not blur.  libgcc's walk goes second
 * and finds the stack's lines in the cache the first one brought in: it is favoured. */
#define SL_CMP_MAX 16384

static struct
{
  bool             on;
  _Atomic uint32_t n;
  uint32_t         fast[SL_CMP_MAX], libgcc[SL_CMP_MAX];
  uint64_t         tsc0, ns0; /* at _sl_sample_start: the TSC's rate */
} C;

static uint64_t
tsc_now (void)
{
#if defined(__x86_64__)
  return __builtin_ia32_rdtsc ();
#else
  return 0;
#endif
}

__attribute__ ((noinline)) static void
compare_walk (void           *ucontext,
              const uint64_t *frames,
              uint32_t        n,
              uint64_t        fast_ticks)
{
  uint64_t again[SL_WIRE_MAX_FRAMES];
  SlUnwind st = { interrupted_pc (ucontext), again, 0, SL_WIRE_MAX_FRAMES, 0, false };
  uint64_t t0 = tsc_now ();

  libgcc_walk (&st);
  uint64_t ticks = tsc_now () - t0;
  if (st.n != n || memcmp (again, frames, n * sizeof *frames) != 0)
    atomic_fetch_add_explicit (&U.mismatches, 1, memory_order_relaxed);
  uint32_t i = atomic_fetch_add_explicit (&C.n, 1, memory_order_relaxed);
  if (i < SL_CMP_MAX)
    {
      C.fast[i] = fast_ticks < UINT32_MAX ? (uint32_t) fast_ticks : UINT32_MAX;
      C.libgcc[i] = ticks < UINT32_MAX ? (uint32_t) ticks : UINT32_MAX;
    }
}

static int
cmp_u32 (const void *a,
         const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

  return (x > y) - (x < y);
}

/* The medians of C's pairs in ns (sorts C: at the end only). */
static void
compare_medians (uint64_t *fast_ns,
                 uint64_t *libgcc_ns,
                 uint32_t *pairs)
{
  uint32_t n = atomic_load (&C.n);
  double ns_per_tick = 0;
  uint64_t ticks = tsc_now () - C.tsc0;

  n = n < SL_CMP_MAX ? n : SL_CMP_MAX;
  if (ticks > 0)
    ns_per_tick = (double) (_sl_now () - C.ns0) / (double) ticks;
  *pairs = n;
  *fast_ns = *libgcc_ns = 0;
  if (n == 0)
    return;
  qsort (C.fast, n, sizeof *C.fast, cmp_u32);
  qsort (C.libgcc, n, sizeof *C.libgcc, cmp_u32);
  *fast_ns = (uint64_t) (C.fast[n / 2] * ns_per_tick);
  *libgcc_ns = (uint64_t) (C.libgcc[n / 2] * ns_per_tick);
}

/* Async-signal-safe: the unwinders (libgcc's primed in _sl_sample_start), the ring,
 * clock_gettime. */
static void
take_sample (const siginfo_t *info,
             void            *ucontext,
             uint64_t         t0)
{
  uint64_t frames[SL_WIRE_MAX_FRAMES];
  SlUnwind st = { interrupted_pc (ucontext), frames, 0, SL_WIRE_MAX_FRAMES, 0, false };
  uint32_t copies = 1;

  atomic_fetch_add_explicit (&U.walks, 1, memory_order_relaxed);
  uint64_t c0 = C.on ? tsc_now () : 0;
  if (!U.libgcc && fast_walk (ucontext, frames, SL_WIRE_MAX_FRAMES, &st.n))
    {
      st.found = true;
      if (C.on)
        compare_walk (ucontext, frames, st.n, tsc_now () - c0);
      else if (atomic_load_explicit (&U.check, memory_order_relaxed))
        check_walk (ucontext, frames, st.n);
    }
  else
    {
      if (!U.libgcc)
        atomic_fetch_add_explicit (&U.slow, 1, memory_order_relaxed);
      st.n = 0;
      libgcc_walk (&st);
    }
  uint64_t t_native = S.stats ? thread_cpu_ns () : 0;
  if (S.stats)
    atomic_fetch_add_explicit (&S.stats_walk_ns, t_native - t0, memory_order_relaxed);
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
      take_sample (info, ucontext, t0);
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

/* In a forked child, before its first signal: the tables and the thread's last walk written to
 * once a page, the signal blocked.  They came from the parent copy-on-write, and a handler's first
 * write to each page (a rule stored, a walk kept) would take the fault and the copy: measured in
 * the PyTorch loop's DataLoader workers, a median walk of 60-100 µs against 9 µs in the parent.
 * ~100 pages, done once a child, outside the handler. */
static void
walk_state_own (int signo)
{
  sigset_t block, old;

  sigemptyset (&block);
  sigaddset (&block, signo);
  pthread_sigmask (SIG_BLOCK, &block, &old);
#if SL_FAST_UNWIND
  size_t per_page = 4096 / sizeof rule_table[0];
  for (size_t i = 0; i < (1u << SL_RULE_BITS); i += per_page)
    atomic_fetch_or (&rule_table[i].key, 0); /* a write, the value unchanged */
  per_page = 4096 / sizeof fde_table[0];
  for (size_t i = 0; i < (1u << SL_FDE_BITS); i += per_page)
    atomic_fetch_or (&fde_table[i].key, 0);
#endif
  if (tls_walk != NULL)
    memset (tls_walk, 0, sizeof *tls_walk);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
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
  atomic_store (&S.stats_walk_ns, 0);
  atomic_store (&U.walks, 0);
  atomic_store (&U.slow, 0);
  atomic_store (&U.misses, 0);
  atomic_store (&U.mismatches, 0);
  atomic_store (&U.reused, 0);
  atomic_store (&C.n, 0);
  atomic_store (&S.stats_signals, 0);
  if (S.signo != 0)
    walk_state_own (S.signo);
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
  if (tls_walk == NULL)
    tls_walk = calloc (1, sizeof *tls_walk); /* NULL: walks without reuse */
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
  const char *unwind = getenv ("SIGHTLINE_UNWIND");
  U.libgcc = !SL_FAST_UNWIND || (unwind != NULL && strcmp (unwind, "libgcc") == 0);
  C.on = SL_FAST_UNWIND && S.stats && unwind != NULL && strcmp (unwind, "compare") == 0;
  C.tsc0 = tsc_now ();
  C.ns0 = _sl_now ();
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
  SlWalkState *walk = tls_walk;
  tls_walk = NULL;
  atomic_signal_fence (memory_order_seq_cst); /* a signal after this sees no state */
  free (walk);
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
      char line[320];
      getrusage (RUSAGE_SELF, &ru);
      uint64_t cpu_us = (uint64_t) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u
                        + (uint64_t) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
      int n = snprintf (line, sizeof line,
                        "sightline-sample-stats: pid %d signals %llu handler_us %llu "
                        "python_us %llu cpu_us %llu walks %llu walk_us %llu libgcc_walks %llu "
                        "rule_misses %llu frames_reused %llu\n",
                        (int) getpid (), (unsigned long long) atomic_load (&S.stats_signals),
                        (unsigned long long) (atomic_load (&S.stats_ns) / 1000u),
                        (unsigned long long) (atomic_load (&S.stats_python_ns) / 1000u),
                        (unsigned long long) cpu_us,
                        (unsigned long long) atomic_load (&U.walks),
                        (unsigned long long) (atomic_load (&S.stats_walk_ns) / 1000u),
                        (unsigned long long) (U.libgcc ? atomic_load (&U.walks)
                                                       : atomic_load (&U.slow)),
                        (unsigned long long) atomic_load (&U.misses),
                        (unsigned long long) atomic_load (&U.reused));
      if (n > 0 && write (2, line, (size_t) n) < 0)
        n = 0;
      SlPyStats py;
      _sl_python_stats (&py);
      if (py.stacks > 0)
        {
          n = snprintf (line, sizeof line,
                        "sightline-sample-stats: pid %d python stacks %llu reads %llu frames %llu "
                        "frames_reused %llu\n",
                        (int) getpid (), (unsigned long long) py.stacks,
                        (unsigned long long) py.reads, (unsigned long long) py.frames,
                        (unsigned long long) py.reused);
          if (n > 0 && write (2, line, (size_t) n) < 0)
            n = 0;
        }
      if (py.compare)
        {
          n = snprintf (line, sizeof line,
                        "sightline-sample-stats: pid %d python reads compared %llu: median "
                        "%llu ns reusing, %llu ns full; %llu differed, %llu code objects unsent\n",
                        (int) getpid (), (unsigned long long) py.compared,
                        (unsigned long long) py.reuse_ns, (unsigned long long) py.full_ns,
                        (unsigned long long) py.differed, (unsigned long long) py.unsent);
          if (n > 0 && write (2, line, (size_t) n) < 0)
            n = 0;
        }
      uint64_t fast_ns, libgcc_ns;
      uint32_t pairs;
      if (C.on)
        {
          compare_medians (&fast_ns, &libgcc_ns, &pairs);
          n = snprintf (line, sizeof line,
                        "sightline-sample-stats: pid %d native walks compared %u: median "
                        "%llu ns cached, %llu ns libgcc's; %llu differed\n",
                        (int) getpid (), pairs, (unsigned long long) fast_ns,
                        (unsigned long long) libgcc_ns,
                        (unsigned long long) atomic_load (&U.mismatches));
          if (n > 0 && write (2, line, (size_t) n) < 0)
            n = 0;
        }
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

/* The same for the native walk: its µs (of the handler's), the frames it copied from a thread's
 * previous walk, the walks left to libgcc. */
SL_EXPORT int
sightline_sample_walk_stats (uint64_t out[3])
{
  if (!S.stats || out == NULL)
    return 0;
  out[0] = atomic_load (&S.stats_walk_ns) / 1000u;
  out[1] = atomic_load (&U.reused);
  out[2] = U.libgcc ? atomic_load (&U.walks) : atomic_load (&U.slow);
  return 1;
}

/* And for the Python stacks (sl-inject-python.c): stacks read, their system calls, frames, frames
 * whose code objects the thread's stack before vouched for. */
SL_EXPORT int
sightline_sample_python_stats (uint64_t out[4])
{
  SlPyStats py;

  if (!S.stats || out == NULL)
    return 0;
  _sl_python_counts (&py);
  out[0] = py.stacks;
  out[1] = py.reads;
  out[2] = py.frames;
  out[3] = py.reused;
  return 1;
}

void
_sl_sample_set_unwind_check (bool on)
{
  atomic_store (&U.check, on);
}

void
_sl_sample_unwind_counts (uint64_t out[5])
{
  out[0] = atomic_load (&U.walks);
  out[1] = atomic_load (&U.slow);
  out[2] = atomic_load (&U.misses);
  out[3] = atomic_load (&U.mismatches);
  out[4] = atomic_load (&U.reused);
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

/* fork: a thread inside dl_iterate_phdr when another forks leaves glibc's loader lock held in the
 * child, whose first dl_iterate_phdr then waits for ever (seen: a multiprocessing worker hung in
 * its exit, its flusher in the walk below; glibc 2.36 resets only dl_load_lock).  So a fork waits
 * for this library's walk to end (a walk is microseconds, every 50 ms), and the child starts with
 * the lock free, its list whole. */
static void
modules_fork_prepare (void)
{
  lock_acquire (&M.lock);
}

static void
modules_fork_release (void)
{
  lock_release (&M.lock);
}

static void
modules_fork_handlers (void)
{
  pthread_atfork (modules_fork_prepare, modules_fork_release, modules_fork_release);
}

void
_sl_modules_update (void)
{
  static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

  pthread_once (&fork_once, modules_fork_handlers);
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
      if (walk.subs != M.subs)
        rule_table_clear (); /* an object was unloaded: its addresses may be another's now */
      M.subs = walk.subs;
    }
  _sl_python_open_mem (); /* under the lock: one caller at a time */
  lock_release (&M.lock);
}
