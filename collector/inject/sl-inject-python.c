/* sl-inject-python.c: the Python stack of the calling thread, read from CPython's own structures
 * and merged into a native stack; C11 + POSIX, no GLib, async-signal-safe (runs in the sampler's
 * signal handler and in OS runtime backtraces).
 *
 * Finding the interpreter.  _sl_python_update() (every module walk, never in a handler) looks up
 * `_PyRuntime`, `Py_Version`, `PyCode_Type` and `_PyEval_EvalFrameDefault` with dlsym: the python3
 * program exports them (and libpython does for a shared build or an embedding program).  Only the
 * layouts known here are read: CPython 3.8 to 3.13 (before 3.11, whose Py_Version is missing, the
 * version comes from Py_GetVersion()); another version leaves Python frames out (and counts each
 * stack so left).  SIGHTLINE_PYTHON=off in the program's environment turns the reading off
 * (=full and =compare: see "The previous stack" below).
 *
 * Reading.  Every read of the interpreter's memory is a system call on our own memory
 * (process_vm_readv(), or a pread of /proc/self/mem): a torn chain (a frame freed under us, a
 * pointer half written) gives EFAULT instead of a crash.  A stack costs a few of them, not one a
 * frame (SlPyReader: a frame's block brings the frames below it along; the thread's previous
 * stack, read again in one go, most of the others).  The
 * calling thread's PyThreadState is the one of the interpreter's list whose thread_id is
 * pthread_self() (cached per thread, checked again each time); its cframe->current_frame is the
 * innermost _PyInterpreterFrame, and `previous` leads out, at most SL_PY_MAX_FRAMES deep.
 *
 * Frames.  A frame goes out as an address with SL_WIRE_PYFRAME_BIT: the code object and the code
 * unit it was at (prev_instr - co_code_adaptive).  The first time this process meets a code object
 * it sends an SL_WIRE_PYCODE (name, file, location table) from the same ring before the stack that
 * uses it; a lock-free table of sent addresses keeps that to once (a forked child keeps its
 * parent's: the daemon looks a child's code objects up in its parent's).  The daemon turns the
 * code unit into a line.
 *
 * Merging (as py-spy --native).  3.11+ runs a Python call made from Python in the same C call of
 * _PyEval_EvalFrameDefault; in 3.11 `is_entry` marks the frame a C call began with, from 3.12 a
 * shim frame (owner FRAME_OWNED_BY_CSTACK) sits under it.  So each native frame
 * inside _PyEval_EvalFrameDefault is replaced by the Python frames up to and including the next
 * entry frame.  Python frames left over (native unwinding stopped early) go at the root end.
 */
#include "sl-inject-private.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define SL_PY_MAX_FRAMES  128  /* Python frames read per stack */
#define SL_PY_MAX_THREADS 4096 /* thread states looked at to find ours */
#define SL_PY_MAX_NAME    255
#define SL_PY_MAX_FILE    1023
#define SL_PY_MAX_TABLE   8192
#define SL_PY_SENT_SLOTS  8192 /* code objects sent (power of 2); beyond: sent again */
#define SL_PY_PROBES      16

/* Offsets of what is read, per CPython version, from its internal headers (offsetof against
 * pyenv's 3.8-3.13 and Debian's 3.11; tests/test-python.c records each version installed). */
typedef struct
{
  uint32_t version; /* PY_VERSION_HEX >> 16 */
  uint32_t runtime_interpreters_head;
  uint32_t interp_next;
  uint32_t interp_threads_head;
  uint32_t tstate_next;
  uint32_t tstate_cframe;        /* 3.13: current_frame itself (cframe_current_frame NONE) */
  uint32_t cframe_current_frame;
  uint32_t tstate_thread_id;
  uint32_t frame_code;     /* f_code; 3.13: f_executable */
  uint32_t frame_previous;
  uint32_t frame_instr;    /* prev_instr; 3.13: instr_ptr */
  uint32_t frame_is_entry; /* 3.11; NONE from 3.12: a C call's frames end at a shim frame */
  uint32_t frame_owner;
  uint32_t frame_size;     /* bytes read of a frame: covers all of the above */
  uint32_t code_filename;
  uint32_t code_qualname;
  uint32_t code_linetable;
  uint32_t code_firstlineno;
  uint32_t code_adaptive;  /* co_code_adaptive: the first code unit */
  uint32_t code_size;      /* bytes read of a code object */
  uint32_t bytes_size;     /* PyBytesObject: ob_size */
  uint32_t bytes_data;     /* ob_sval */
  uint32_t unicode_length;
  uint32_t unicode_state;
  uint32_t unicode_ascii_data;   /* sizeof (PyASCIIObject) */
  uint32_t unicode_compact_data; /* sizeof (PyCompactUnicodeObject) */
  uint32_t instr_kind; /* frame_instr is: 0 a pointer to the code unit after the last one run
                        * (3.11+), 1 f_lasti in bytes (3.8, 3.9), 2 f_lasti in code units (3.10) */
} SlPyLayout;

#define NONE              UINT32_MAX
#define OWNED_BY_CSTACK   3 /* 3.12+: the shim frame _PyEval_EvalFrameDefault pushes on entry */
#define OB_TYPE           8 /* PyObject.ob_type */

/* 3.8-3.10: tstate->frame is a PyFrameObject (f_back, f_lasti), one C call of the evaluator per
 * frame, no co_qualname (co_name instead). */
static const SlPyLayout py_layouts[] = {
  { 0x0308, 32, 0, 8, 8, 24, NONE, 176, 32, 24, 104, NONE, NONE, 108, 104, 112, 120, 40, 0, 128,
    16, 32, 16, 32, 48, 72, 1 },
  { 0x0309, 32, 0, 8, 8, 24, NONE, 176, 32, 24, 104, NONE, NONE, 108, 104, 112, 120, 40, 0, 128,
    16, 32, 16, 32, 48, 72, 1 },
  { 0x030a, 32, 0, 8, 8, 24, NONE, 176, 32, 24, 96, NONE, NONE, 100, 104, 112, 120, 40, 0, 128,
    16, 32, 16, 32, 48, 72, 2 },
  { 0x030b, 40, 0, 16, 8, 56, 8, 152, 32, 48, 56, 68, 69, 72, 112, 128, 136, 72, 184, 192, 16, 32,
    16, 32, 48, 72, 0 },
  { 0x030c, 40, 0, 72, 8, 56, 0, 136, 0, 8, 56, NONE, 70, 72, 112, 128, 136, 68, 192, 192, 16, 32,
    16, 32, 40, 56, 0 },
  { 0x030d, 632, 7264, 7344, 8, 72, NONE, 152, 0, 8, 56, NONE, 70, 72, 112, 128, 136, 68, 200, 200,
    16, 32, 16, 32, 40, 56, 0 },
};

static struct
{
  _Atomic (const SlPyLayout *) layout;
  uint64_t runtime;
  uint64_t eval_start, eval_end; /* _PyEval_EvalFrameDefault's code */
  uint64_t interp_start, interp_end; /* the executable segment of the object holding it */
  uint64_t code_type;             /* &PyCode_Type */
  uint32_t win_off, win_len;      /* the code object's bytes read for each frame */
  bool     looked;  /* dlsym said what it knows */
  _Atomic bool unknown; /* a Python this library cannot read: each sample counted */
  /* /proc/self/mem of process mem_pid (a forked child's fd is still its parent's memory) */
  int              mem_fd;
  _Atomic pid_t    mem_pid;
  /* this process's pid, on a page a fork gives the child zeroed (MADV_WIPEONFORK): a stack's
   * reads go to our own pid without a getpid() each (a system call, ~1 µs here); NULL: getpid */
  _Atomic (pid_t *) pid_page;
  _Atomic uint64_t sent[SL_PY_SENT_SLOTS];
  /* SIGHTLINE_PYTHON=full|compare (see "The previous stack") */
  int mode;
  /* what the reads cost and saved (SIGHTLINE_SAMPLE_STATS): stacks read, system calls, frames
   * read, of them the previous stack's (no window read); compare: stacks read both ways, those
   * that differed, code objects only the full read sent */
  _Atomic uint64_t stacks, reads, frames, reused, compared, differed, unsent;
} P;


enum
{
  MODE_REUSE,
  MODE_FULL,
  MODE_COMPARE,
};

/* compare: each signal's two reads timed in TSC ticks, the medians said at the end */
#define SL_PY_CMP_MAX 16384

static struct
{
  _Atomic uint32_t n;
  uint32_t         reuse[SL_PY_CMP_MAX], full[SL_PY_CMP_MAX];
  uint64_t         tsc0, ns0; /* when it was turned on: the TSC's rate */
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

static __thread uint64_t tls_tstate __attribute__ ((tls_model ("initial-exec")));

/* ---------------------------------------------------------------------------------------------- */
/* Finding the interpreter                                                                        */

/* The executable PT_LOAD segment holding _PyEval_EvalFrameDefault (the python binary's or
 * libpython's): its other functions are the interpreter's C frames between Python frames. */
static int
find_interp_text (struct dl_phdr_info *info,
                  size_t               size,
                  void                *data)
{
  (void) size;
  (void) data;
  for (ElfW (Half) i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      uint64_t start = (uint64_t) info->dlpi_addr + ph->p_vaddr;
      if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && P.eval_start >= start
          && P.eval_start < start + ph->p_memsz)
        {
          P.interp_start = start;
          P.interp_end = start + ph->p_memsz;
          return 1;
        }
    }
  return 0;
}

void
_sl_python_update (void)
{
  if (atomic_load (&P.layout) != NULL)
    return;
  void *runtime = dlsym (RTLD_DEFAULT, "_PyRuntime");
  const unsigned long *version = dlsym (RTLD_DEFAULT, "Py_Version");
  void *eval = dlsym (RTLD_DEFAULT, "_PyEval_EvalFrameDefault");
  void *code_type = dlsym (RTLD_DEFAULT, "PyCode_Type");
  if (runtime == NULL || eval == NULL || code_type == NULL)
    return; /* not Python (yet: libpython may come with a dlopen) */
  if (P.looked)
    return;
  P.looked = true;
  const char *want = getenv ("SIGHTLINE_PYTHON");
  if (want != NULL && strcmp (want, "off") == 0)
    return; /* native stacks only, as asked */
  P.mode = want == NULL                    ? MODE_REUSE
           : strcmp (want, "full") == 0    ? MODE_FULL
           : strcmp (want, "compare") == 0 ? MODE_COMPARE
                                           : MODE_REUSE;
  C.tsc0 = tsc_now ();
  C.ns0 = _sl_now ();
  uint32_t v = version != NULL ? (uint32_t) (*version >> 16) : 0; /* Py_Version: 3.11+ */
  const char *(*get_version) (void) = (const char *(*) (void)) dlsym (RTLD_DEFAULT,
                                                                    "Py_GetVersion");
  const char *text = version == NULL && get_version != NULL ? get_version () : NULL;
  if (text != NULL && text[0] == '3' && text[1] == '.')
    {
      /* "3.9.18 (main, …)" */
      uint32_t minor = 0;
      for (const char *c = text + 2; *c >= '0' && *c <= '9'; c++)
        minor = minor * 10 + (uint32_t) (*c - '0');
      v = 0x0300 | (minor & 0xff);
    }
  const SlPyLayout *layout = NULL;
  for (size_t i = 0; i < sizeof py_layouts / sizeof py_layouts[0]; i++)
    if (py_layouts[i].version == v)
      layout = &py_layouts[i];
  Dl_info info;
  const ElfW (Sym) *sym = NULL;
  if (layout == NULL || dladdr1 (eval, &info, (void **) &sym, RTLD_DL_SYMENT) == 0 || sym == NULL
      || sym->st_size == 0)
    {
      atomic_store (&P.unknown, true);
      return; /* a Python whose frames this library cannot read: stacks stay native */
    }
  P.runtime = (uint64_t) (uintptr_t) runtime;
  P.code_type = (uint64_t) (uintptr_t) code_type;
  uint32_t lo = layout->code_firstlineno, hi = layout->code_firstlineno + 4;
  const uint32_t ptrs[] = { layout->code_filename, layout->code_qualname };
  for (int i = 0; i < 2; i++)
    {
      lo = ptrs[i] < lo ? ptrs[i] : lo;
      hi = ptrs[i] + 8 > hi ? ptrs[i] + 8 : hi;
    }
  P.win_off = lo;
  P.win_len = hi - lo; /* at most 128 (checked by the layouts' test) */
  P.eval_start = (uint64_t) (uintptr_t) eval;
  P.eval_end = P.eval_start + sym->st_size;
  dl_iterate_phdr (find_interp_text, NULL);
  atomic_store (&P.layout, layout);
}

bool
_sl_python_known (void)
{
  return atomic_load (&P.layout) != NULL;
}

/* ---------------------------------------------------------------------------------------------- */
/* Fault-safe reads                                                                               */

/* What the reads of one stack share.  Each read is a system call (on a loaded 2-core VM
 * process_vm_readv ~2 µs whatever its size up to 8 KiB, getpid ~1 µs): one read and two getpids
 * a frame were 40 reads and 70 getpids a signal in a PyTorch training loop, ~3.8 % of its CPU
 * time at 1 kHz, over the whole budget.  So: one getpid a stack, and a block.  From 3.11 a
 * thread's frames lie one after another in its data stack, each above the one that called it:
 * a frame read with the few KiB below it brings the next several along, and a stack of 20 frames
 * costs 2-4 reads instead of 20; the code objects' windows (names, first line) then go in one
 * read for up to SL_PY_BATCH frames.  The block is the thread's scratch (_sl_python_thread_start,
 * when its sampling starts) or, for a thread without one or a read nested in another (a sample
 * landing in an OS runtime backtrace), SL_PY_SMALL bytes of the stack (no lookback).
 *
 * The previous stack.  That still made ~5 reads a stack in the PyTorch loop's main process (the
 * thread state, its cframe, 1-2 blocks, 1-2 of windows) and sends, while from one signal to the
 * next most of a stack stays: the loop's outer frames wait in their calls.  So the scratch also
 * keeps the thread's previous stack as read (SlPyChain: each frame's address and the words it was
 * made of), and a stack starts with one read (read_again) of the thread state, the current frame
 * where each of the thread's recent cframes says, the previous frames coalesced into ranges, and
 * what lies above the innermost one (where a call's frame goes): the frames are then read in this
 * signal as before, most of them from that one system call.  Every frame's words are read again;
 * what is skipped is the window of a frame's code object when that frame and all the frames
 * outside it are the previous stack's: the same address, code object, instruction, link to the
 * caller and entry/owner byte, from the outermost frame in.  Those frames wait in the same calls
 * (a frame holds its code object), so its verdict (sent, not a code object) is the previous
 * stack's.  (What that does not rule out: between two signals, the frame returned, its code
 * object was freed, another was made at its address and called at the frame's address, under
 * the same outer frames, and stopped at the same code unit: that frame would be named as the old
 * code object.  SIGHTLINE_PYTHON=compare counts such frames: none seen.)  In bench-pytorch's loop
 * (2-core VM, load 7-8): 2.6 reads a stack instead of 4.7 in the main process; the Python part
 * of a signal 53 µs instead of 69 (medians of 7 runs); paired in the same signals, a median
 * 12 µs against 26 (10,598 stacks, none differing).
 * SIGHTLINE_PYTHON=full reads each stack the old way; =compare both ways in each signal (which
 * goes first alternating: the second finds the caches warm), counting the stacks that differ and
 * the code objects the reuse did not send (said at the end, with the two reads' median times, by
 * the sampler's SIGHTLINE_SAMPLE_STATS=1). */
#define SL_PY_SCRATCH 8192 /* the block */
#define SL_PY_SPEC    16384 /* the previous stack's frames read again */
#define SL_PY_SMALL   384
#define SL_PY_BATCH   16
#define SL_PY_RAW     192  /* frames (shims and not-started ones too) of a stack that is kept */
#define SL_PY_SEGS    48   /* ranges they are read again in (3.12+: a C call's shim each) */
#define SL_PY_GAP     512  /* frames this near go in one range (3.11+: locals between them) */
#define SL_PY_SLACK   1024 /* above the innermost frame (3.11+): a call's frame since */

/* A frame as read: where it is and the words the stack is made of. */
typedef struct
{
  uint64_t addr;
  uint64_t code;
  uint64_t instr;    /* prev_instr / instr_ptr (3.11+), f_lasti sign-extended before */
  uint64_t previous;
  uint8_t  flag;     /* is_entry (3.11), owner (3.12+), 0 before */
  int8_t   verdict;  /* its frame's: 1 kept, -1 not a code object, 0 none (shim, not started) */
  int16_t  cand;     /* the frame it made among read_frames's, -1 none */
  uint32_t pad;
} SlPyRaw;

/* A thread's stack as read, innermost first; n 0: none to go by (none read, or cut short). */
typedef struct
{
  uint64_t tstate;
  uint64_t cframe; /* the thread state's cframe word (3.13: the current frame itself) */
  uint32_t n;
  SlPyRaw  raw[SL_PY_RAW];
} SlPyChain;

#define SL_PY_CFRAMES 4 /* cframes (3.11, 3.12) a thread's current frame was found through lately */

/* The thread's scratch (~40 KiB, malloc'd when its sampling starts). */
typedef struct
{
  uint8_t   block[SL_PY_SCRATCH];
  uint8_t   spec[SL_PY_SPEC];
  SlPyChain chain[2]; /* chain[was] the previous stack's, the other one the stack being read */
  uint32_t  was;
  uint64_t  cframes[SL_PY_CFRAMES]; /* 3.11, 3.12: the latest first */
} SlPyScratch;

typedef struct
{
  uint64_t base;
  uint32_t off, len; /* in spec */
} SlPySeg;

typedef struct
{
  pid_t          pid;
  uint8_t       *data;   /* cap bytes; data[0] is the remote address `base` */
  uint32_t       cap;
  uint32_t       lo, hi; /* the bytes of data that were read: [lo, hi) */
  uint64_t       base;
  const uint8_t *spec;   /* ranges read at the start of the stack (the previous stack's) */
  uint32_t       n_seg;
  SlPySeg        seg[SL_PY_SEGS];
} SlPyReader;

static __thread SlPyScratch *tls_scratch __attribute__ ((tls_model ("initial-exec")));
static __thread _Atomic int tls_scratch_busy __attribute__ ((tls_model ("initial-exec")));

void
_sl_python_thread_start (void)
{
  /* from the heap: pages a non-Python thread never touches cost no memory */
  if (tls_scratch == NULL)
    {
      SlPyScratch *s = malloc (sizeof *s);
      if (s != NULL)
        {
          s->chain[0].n = s->chain[1].n = 0;
          s->was = 0;
          memset (s->cframes, 0, sizeof s->cframes);
        }
      tls_scratch = s;
    }
}

void
_sl_python_thread_stop (void)
{
  SlPyScratch *s = tls_scratch;

  if (s == NULL || atomic_load (&tls_scratch_busy))
    return; /* (busy: this thread is in a stack read it interrupted; left, as a thread's leak) */
  tls_scratch = NULL;
  atomic_signal_fence (memory_order_seq_cst); /* a signal from here on takes the small block */
  free (s);
}

/* This process's pid, async-signal-safe: from the page, else (first use in a forked child, or
 * no page) getpid(). */
static pid_t
own_pid (void)
{
  pid_t *page = atomic_load_explicit (&P.pid_page, memory_order_acquire);
  pid_t pid = page != NULL ? __atomic_load_n (page, __ATOMIC_RELAXED) : 0;

  if (pid == 0)
    {
      pid = getpid ();
      if (page != NULL)
        __atomic_store_n (page, pid, __ATOMIC_RELAXED);
    }
  return pid;
}

void
_sl_python_open_mem (void)
{
  pid_t self = getpid ();

  if (atomic_load (&P.pid_page) == NULL && atomic_load (&P.layout) != NULL)
    {
      pid_t *page = mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (page != MAP_FAILED && madvise (page, 4096, MADV_WIPEONFORK) != 0)
        {
          munmap (page, 4096); /* (before Linux 4.14) */
          page = MAP_FAILED;
        }
      if (page != MAP_FAILED)
        atomic_store (&P.pid_page, page);
    }

  if (atomic_load (&P.layout) == NULL || atomic_load (&P.mem_pid) == self)
    return;
  pid_t was = atomic_exchange (&P.mem_pid, 0);
  if (was != 0)
    {
      close (P.mem_fd); /* the parent's: ours in this process's table, not the parent's memory */
      /* a forked child's account starts at 0 (its sampling is armed after this) */
      atomic_store (&P.stacks, 0);
      atomic_store (&P.reads, 0);
      atomic_store (&P.frames, 0);
      atomic_store (&P.reused, 0);
      atomic_store (&P.compared, 0);
      atomic_store (&P.differed, 0);
      atomic_store (&P.unsent, 0);
      atomic_store (&C.n, 0);
    }
  int fd = open ("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  /* out of the way of the program's small numbers */
  int high = fcntl (fd, F_DUPFD_CLOEXEC, 900);
  if (high >= 0)
    {
      close (fd);
      fd = high;
    }
  P.mem_fd = fd;
  atomic_store (&P.mem_pid, self);
}

/* One read.  Through /proc/self/mem where it is open: process_vm_readv pins the pages it reads,
 * and pinning a page a fork left shared copies it (Linux 5.19+: 7.5 µs a page here instead of
 * 2.5, and a private copy of memory the program never writes: the names and line tables of the
 * code objects a DataLoader worker describes again); /proc/self/mem reads without pinning.  A
 * number the program closed and reused for a file reads past its end at such offsets: then, and
 * in a child before its own is open, process_vm_readv. */
static bool
peek (pid_t    pid,
      uint64_t addr,
      void    *buf,
      size_t   len)
{
  struct iovec local = { buf, len };
  struct iovec remote = { (void *) (uintptr_t) addr, len };

  if (addr < 4096)
    return false;
  atomic_fetch_add_explicit (&P.reads, 1, memory_order_relaxed);
  if (atomic_load_explicit (&P.mem_pid, memory_order_acquire) == pid
      && syscall (SYS_pread64, P.mem_fd, buf, len, (off_t) addr) == (long) len)
    return true; /* (the system call itself: pread is one the OS runtime tracing interposes) */
  return process_vm_readv (pid, &local, 1, &remote, 1, 0) == (ssize_t) len;
}

/* `len` bytes at `addr`, from the block or a range read at the start when one holds them, else
 * read into the block with up to cap - len bytes below when `lookback`; NULL when unreadable. */
static const uint8_t *
block_read (SlPyReader *r,
            uint64_t    addr,
            uint32_t    len,
            bool        lookback)
{
  if (addr >= r->base && addr - r->base >= r->lo && addr - r->base <= r->hi
      && r->hi - (addr - r->base) >= len)
    return r->data + (addr - r->base);
  for (uint32_t i = 0; i < r->n_seg; i++)
    if (addr >= r->seg[i].base && addr - r->seg[i].base <= r->seg[i].len
        && r->seg[i].len - (addr - r->seg[i].base) >= len)
      return r->spec + r->seg[i].off + (addr - r->seg[i].base);
  if (addr < 4096 || len > r->cap || addr + len < addr)
    return NULL;
  uint64_t back = lookback ? r->cap - len : 0;
  if (back > addr - 4096)
    back = addr - 4096;
  /* the frame, then what is below it nearest first, a page at a time: an unmapped page ends the
   * read there and keeps what is nearer (a read never splits inside one page) */
  struct iovec local[5], remote[5];
  uint64_t lo = addr - back, cur = addr;
  int n = 1;
  local[0] = (struct iovec){ r->data + back, len };
  remote[0] = (struct iovec){ (void *) (uintptr_t) addr, len };
  while (cur > lo && n < 5)
    {
      uint64_t from = (cur - 1) & ~(uint64_t) 4095;
      if (from < lo)
        from = lo;
      local[n] = (struct iovec){ r->data + (from - lo), (size_t) (cur - from) };
      remote[n] = (struct iovec){ (void *) (uintptr_t) from, (size_t) (cur - from) };
      n++;
      cur = from;
    }
  atomic_fetch_add_explicit (&P.reads, 1, memory_order_relaxed);
  ssize_t got = process_vm_readv (r->pid, local, (unsigned long) n, remote, (unsigned long) n, 0);
  r->lo = r->hi = 0;
  if (got < (ssize_t) len)
    return NULL;
  r->base = lo;
  r->lo = (uint32_t) back;
  r->hi = (uint32_t) back + len;
  got -= len;
  for (int i = 1; i < n && got >= (ssize_t) remote[i].iov_len; i++)
    {
      got -= (ssize_t) remote[i].iov_len;
      r->lo = (uint32_t) ((uint64_t) (uintptr_t) remote[i].iov_base - lo);
    }
  return r->data + back;
}

static uint64_t
u64_at (const uint8_t *buf,
        uint32_t       off)
{
  uint64_t v;

  memcpy (&v, buf + off, sizeof v);
  return v;
}

/* Two fields of a thread state (`a`, `b`: offsets) read together: the span from the lower to 8
 * bytes past the higher, at most 200 bytes in every layout. */
static bool
tstate_pair (pid_t     pid,
             uint64_t  ts,
             uint32_t  a,
             uint32_t  b,
             uint64_t *va,
             uint64_t *vb)
{
  uint8_t span[208];
  uint32_t lo = a < b ? a : b, hi = (a > b ? a : b) + 8;

  if (hi - lo > sizeof span || !peek (pid, ts + lo, span, hi - lo))
    return false;
  *va = u64_at (span, a - lo);
  *vb = u64_at (span, b - lo);
  return true;
}

/* The calling thread's PyThreadState, 0 when it has none (not a Python thread, not started):
 * its interpreters' lists walked (each thread state one read). */
static uint64_t
find_tstate (pid_t             pid,
             const SlPyLayout *L)
{
  uint64_t self = (uint64_t) pthread_self (), id = 0;
  uint64_t interp = 0;

  if (!peek (pid, P.runtime + L->runtime_interpreters_head, &interp, sizeof interp))
    return 0;
  unsigned budget = SL_PY_MAX_THREADS;
  for (int i = 0; interp != 0 && i < 64; i++)
    {
      uint64_t ts = 0;
      if (!peek (pid, interp + L->interp_threads_head, &ts, sizeof ts))
        return 0;
      while (ts != 0 && budget-- > 0)
        {
          uint64_t next = 0;
          if (!tstate_pair (pid, ts, L->tstate_thread_id, L->tstate_next, &id, &next))
            return 0;
          if (id == self)
            return ts;
          ts = next;
        }
      if (!peek (pid, interp + L->interp_next, &interp, sizeof interp))
        return 0;
    }
  return 0;
}

/* The calling thread's innermost frame in *frame (and the thread state's word that led to it in
 * *cframe): 1; 0 when the thread has no Python; -1 when its state could not be read.  The thread
 * state is cached per thread, and one read both checks it is still ours and gives its current
 * frame (3.11, 3.12: its cframe, one read more). */
static int
current_frame (pid_t             pid,
               const SlPyLayout *L,
               uint64_t         *frame,
               uint64_t         *cframe)
{
  uint64_t self = (uint64_t) pthread_self ();

  *frame = 0;
  for (int attempt = 0; attempt < 2; attempt++)
    {
      uint64_t ts = attempt == 0 ? tls_tstate : find_tstate (pid, L), id = 0, ptr = 0;
      if (ts == 0)
        {
          if (attempt == 0)
            continue;
          return 0;
        }
      if (!tstate_pair (pid, ts, L->tstate_thread_id, L->tstate_cframe, &id, &ptr) || id != self)
        {
          tls_tstate = 0;
          if (attempt == 0)
            continue;
          return -1; /* found by the walk, then unreadable or another's: being changed */
        }
      tls_tstate = ts;
      *cframe = ptr;
      if (L->cframe_current_frame == NONE)
        *frame = ptr;
      else if (!peek (pid, ptr + L->cframe_current_frame, frame, sizeof *frame))
        return -1;
      return 1;
    }
  return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Code objects                                                                                   */

/* A str object's text: where it is and how long (cut at `max`); data 0 for one this does not read
 * (only compact 1-byte strings: ASCII and Latin-1), which reads as "?". */
typedef struct
{
  uint64_t data;
  uint16_t len;
} SlPyStr;

static SlPyStr
str_at (pid_t             pid,
        const SlPyLayout *L,
        uint64_t          obj,
        size_t            max)
{
  uint8_t head[80];
  int64_t len;
  uint32_t state;

  if (!peek (pid, obj, head, L->unicode_compact_data))
    return (SlPyStr) { 0, 1 };
  memcpy (&len, head + L->unicode_length, sizeof len);
  memcpy (&state, head + L->unicode_state, sizeof state);
  unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
  if (len < 0 || !compact || kind != 1)
    return (SlPyStr) { 0, 1 };
  return (SlPyStr) { obj + (ascii ? L->unicode_ascii_data : L->unicode_compact_data),
                     (uint16_t) ((size_t) len < max ? (size_t) len : max) };
}

/* The text into dst, NUL-terminated ("?"s where it cannot be read). */
static void
str_copy (pid_t          pid,
          const SlPyStr *str,
          char          *dst)
{
  if (str->data == 0 || !peek (pid, str->data, dst, str->len))
    memset (dst, '?', str->len);
  dst[str->len] = '\0';
}

/* Whether the code object `code` (a key of its address and identity) is sent already in this
 * process; marks it when not (*slot: the mark, to take back when the send fails). */
static bool
code_sent (pid_t              self,
           uint64_t           code,
           _Atomic uint64_t **slot_out)
{
  /* a forked child keeps what its parent sent marked, and the daemon looks a child's code objects
   * up in its parent's too: a DataLoader worker described again every code object its samples
   * met, ~7 reads each, half of the sampler's cost in bench-pytorch's loop */
  (void) self;
  size_t h = (size_t) (code >> 51) & (SL_PY_SENT_SLOTS - 1);
  for (int k = 0; k < SL_PY_PROBES; k++)
    {
      _Atomic uint64_t *slot = &P.sent[(h + (size_t) k) & (SL_PY_SENT_SLOTS - 1)];
      uint64_t cur = atomic_load_explicit (slot, memory_order_relaxed);
      if (cur == code)
        return true;
      if (cur == 0 && atomic_compare_exchange_strong (slot, &cur, code))
        {
          *slot_out = slot;
          return false;
        }
      if (cur == code)
        return true;
    }
  *slot_out = NULL;
  return false; /* table full around here: send it again */
}

/* 1: sent; 0: could not be (unreadable, ring full); -1: not a code object. */
static int
send_code (pid_t             pid,
           const SlPyLayout *L,
           uint64_t          code)
{
  uint8_t co[256];
  uint64_t table = 0;
  int64_t table_len = 0;
  int32_t first = 0;

  if (!peek (pid, code, co, L->code_size))
    return 0;
  if (u64_at (co, OB_TYPE) != P.code_type)
    return -1;
  memcpy (&first, co + L->code_firstlineno, sizeof first);
  SlPyStr name = str_at (pid, L, u64_at (co, L->code_qualname), SL_PY_MAX_NAME);
  SlPyStr file = str_at (pid, L, u64_at (co, L->code_filename), SL_PY_MAX_FILE);
  uint16_t name_len = name.len, file_len = file.len;
  table = u64_at (co, L->code_linetable);
  if (!peek (pid, table + L->bytes_size, &table_len, sizeof table_len) || table_len < 0)
    table_len = 0;
  if (table_len > SL_PY_MAX_TABLE)
    table_len = SL_PY_MAX_TABLE; /* lines past it read as the first line */

  uint32_t fixed = sizeof (SlWirePyCode) + name_len + 1u + file_len + 1u;
  uint32_t size = (fixed + (uint32_t) table_len + 7u) & ~7u;
  SlWirePyCode *rec = _sl_emit_begin (SL_WIRE_PYCODE, size);
  if (rec == NULL)
    return 0;
  rec->code = code;
  rec->firstlineno = first;
  rec->name_len = name_len;
  rec->file_len = file_len;
  rec->version = (uint16_t) L->version;
  rec->pad = 0;
  char *text = (char *) (rec + 1);
  str_copy (pid, &name, text); /* straight into the record: no copy on the handler's stack */
  str_copy (pid, &file, text + name_len + 1);
  uint8_t *t = (uint8_t *) text + name_len + 1 + file_len + 1;
  if (table_len > 0 && !peek (pid, table + L->bytes_data, t, (size_t) table_len))
    table_len = 0;
  rec->table_len = (uint16_t) table_len;
  memset (t + table_len, 0, size - fixed - (uint32_t) table_len);
  _sl_emit_end (rec);
  return 1;
}

/* ---------------------------------------------------------------------------------------------- */
/* The stack                                                                                      */

enum
{
  READ_TORN = -1,   /* a frame or the thread state unreadable, being changed: SL_DROP_PYTHON_TORN */
  READ_CODE = -2,   /* a code object could not be described: SL_DROP_PYTHON_CODE */
};

/* One frame's words, from its bytes. */
static void
raw_words (const SlPyLayout *L,
           const uint8_t    *buf,
           uint64_t          addr,
           SlPyRaw          *raw)
{
  raw->addr = addr;
  raw->code = u64_at (buf, L->frame_code);
  if (L->instr_kind == 0)
    raw->instr = u64_at (buf, L->frame_instr);
  else
    {
      int32_t f_lasti;
      memcpy (&f_lasti, buf + L->frame_instr, sizeof f_lasti);
      raw->instr = (uint64_t) (int64_t) f_lasti;
    }
  raw->previous = u64_at (buf, L->frame_previous);
  raw->flag = L->frame_is_entry != NONE ? buf[L->frame_is_entry]
              : L->frame_owner != NONE  ? buf[L->frame_owner]
                                        : 0;
  raw->verdict = 0;
  raw->cand = -1;
}

/* What a frame adds to the stack's frames (out, entries; *n of them): one frame, or a mark on the
 * one before (a shim, a frame not started); false when it is torn. */
static bool
raw_add (const SlPyLayout *L,
         SlPyRaw          *raw,
         uint64_t         *out,
         bool             *entries,
         int              *n)
{
  uint64_t code = raw->code;
  int64_t lasti;

  if (L->instr_kind == 0)
    lasti = ((int64_t) raw->instr - (int64_t) (code + L->code_adaptive)) / 2;
  else
    {
      int32_t f_lasti = (int32_t) raw->instr;
      /* -1: not started, yet evaluated by its own C call (kept, so that merging stays right) */
      lasti = f_lasti < 0 ? 0 : L->instr_kind == 1 ? f_lasti / 2 : f_lasti;
    }
  /* before 3.11 every Python frame is a C call of its own */
  bool entry = L->frame_is_entry != NONE ? raw->flag != 0 : L->frame_owner == NONE;
  bool shim = L->frame_owner != NONE && L->frame_is_entry == NONE && raw->flag == OWNED_BY_CSTACK;
  if (code == 0 || (code & 7) != 0 || code > SL_WIRE_PYFRAME_CODE)
    return false;
  if (shim)
    {
      /* 3.12+: the frames since the last shim were one C call's */
      if (*n > 0)
        entries[*n - 1] = true;
      return true;
    }
  if (lasti < 0)
    {
      /* a frame not started yet ("incomplete"): left out */
      if (entry && *n > 0)
        entries[*n - 1] = true;
      return true;
    }
  uint64_t unit = (uint64_t) (lasti < 0xffff ? lasti : 0xffff);
  raw->cand = (int16_t) *n;
  out[*n] = SL_WIRE_PYFRAME_BIT | unit << 47 | code;
  entries[*n] = entry;
  (*n)++;
  return true;
}

/* The chain from `frame` out: its frames into out/entries (at most max), each frame as read into
 * `chain` when one is given (its n left 0 when the chain does not fit or is cut short); the
 * count, or READ_TORN.  Shim and not-started frames only mark the frame before them.  Bounded
 * also by the frames left out, so that a torn chain that loops ends. */
static int
read_chain (SlPyReader       *r,
            const SlPyLayout *L,
            uint64_t          frame,
            SlPyChain        *chain,
            uint64_t         *out,
            bool             *entries,
            int               max)
{
  int n = 0;
  uint32_t n_raw = 0;
  bool fits = chain != NULL;

  for (int steps = 0; frame != 0 && n < max && steps < 4 * SL_PY_MAX_FRAMES; steps++)
    {
      /* from 3.11 the frame that called this one lies below it in the thread's data stack */
      const uint8_t *buf = block_read (r, frame, L->frame_size, L->instr_kind == 0);
      SlPyRaw one, *raw = fits && n_raw < SL_PY_RAW ? &chain->raw[n_raw++] : &one;
      if (buf == NULL)
        return READ_TORN;
      fits = fits && raw != &one;
      raw_words (L, buf, frame, raw);
      if (!raw_add (L, raw, out, entries, &n))
        return READ_TORN;
      frame = raw->previous;
    }
  atomic_fetch_add_explicit (&P.frames, (uint64_t) n, memory_order_relaxed);
  if (chain != NULL)
    chain->n = fits && frame == 0 ? n_raw : 0; /* (a chain cut short has no outermost frame) */
  return n;
}

/* Whether the code object `code` (its window `win`, read in this signal) is described: 1 sent (now
 * or before), -1 not a code object, 0 could not be (*unsent counted as check_codes() says). */
static int
code_check (SlPyReader       *r,
            const SlPyLayout *L,
            uint64_t          code,
            const uint8_t    *win,
            uint32_t         *unsent)
{
  _Atomic uint64_t *slot = NULL;
  int32_t lineno;

  memcpy (&lineno, win + L->code_firstlineno - P.win_off, sizeof lineno);
  uint64_t key = code * 0x9e3779b97f4a7c15u
                 ^ u64_at (win, L->code_qualname - P.win_off) * 0xc2b2ae3d27d4eb4fu
                 ^ u64_at (win, L->code_filename - P.win_off) >> 3
                 ^ (uint64_t) (uint32_t) lineno << 40;
  int sent = code_sent (r->pid, key != 0 ? key : 1, &slot) ? 1 : send_code (r->pid, L, code);
  if (sent <= 0 && slot != NULL)
    atomic_store (slot, 0); /* not described: forgotten, so that it goes next time */
  if (sent > 0 && slot != NULL)
    (*unsent)++;
  return sent;
}

/* What tells each code object from one freed before at the same address (its names and first
 * line), read for SL_PY_BATCH frames at a time into the block (done with frames), then each code
 * object sent unless it was.
 * verdict[i]: 1 when frame i is known to be sent, -1 known not to be a code object, 0 to be found
 * out (and set here).  Frames not of a code object are left out; returns the frames kept,
 * READ_TORN or READ_CODE; *unsent: code objects sent here that a table with room said were not
 * (compare: ones the reuse missed). */
static int
check_codes (SlPyReader       *r,
             const SlPyLayout *L,
             uint64_t         *out,
             bool             *entries,
             int8_t           *verdict,
             int               n,
             uint32_t         *unsent)
{
  uint32_t batch = r->cap / P.win_len < SL_PY_BATCH ? r->cap / P.win_len : SL_PY_BATCH;
  int kept = 0;

  r->lo = r->hi = 0;
  *unsent = 0;
  for (int next = 0; next < n;)
    {
      /* the next frames whose code objects are to be found out */
      struct iovec local[SL_PY_BATCH], remote[SL_PY_BATCH];
      int m = 0, end = next;
      for (; end < n; end++)
        {
          uint64_t code = out[end] & SL_WIRE_PYFRAME_CODE;
          if (verdict[end] != 0)
            continue;
          if (m == (int) batch)
            break;
          local[m] = (struct iovec){ r->data + (size_t) m * P.win_len, P.win_len };
          remote[m] = (struct iovec){ (void *) (uintptr_t) (code + P.win_off), P.win_len };
          m++;
        }
      if (m > 0)
        {
          atomic_fetch_add_explicit (&P.reads, 1, memory_order_relaxed);
          if (process_vm_readv (r->pid, local, (unsigned long) m, remote, (unsigned long) m, 0)
              != (ssize_t) (m * P.win_len))
            return READ_TORN; /* torn */
        }
      for (int i = next, j = 0; i < end && j < m; i++)
        {
          uint64_t code = out[i] & SL_WIRE_PYFRAME_CODE;
          if (verdict[i] != 0)
            continue;
          int sent = code_check (r, L, code, r->data + (size_t) j++ * P.win_len, unsent);
          if (sent == 0)
            return READ_CODE;
          verdict[i] = (int8_t) (sent > 0 ? 1 : -1);
        }
      next = end;
    }
  for (int i = 0; i < n; i++)
    {
      uint64_t pyframe = out[i];
      bool entry = entries[i];
      if (verdict[i] < 0)
        {
          /* not a code object (3.13's f_executable may be another callable): left out, a
           * shim's mark after it going to the frame before */
          if (entry && kept > 0)
            entries[kept - 1] = true;
          continue;
        }
      out[kept] = pyframe;
      entries[kept] = entry;
      kept++;
    }
  return kept;
}

/* The calling thread's Python frames, innermost first, every frame read and every code object
 * checked (the way before "The previous stack"; SIGHTLINE_PYTHON=full, and the second read of
 * =compare); READ_TORN or READ_CODE (negative) when they could not be read.  *unsent: as
 * check_codes(). */
static int
read_frames_full (SlPyReader       *r,
                  const SlPyLayout *L,
                  uint64_t         *out,
                  bool             *entries,
                  int               max,
                  uint32_t         *unsent)
{
  uint64_t frame = 0, cframe = 0;
  int8_t verdict[SL_PY_MAX_FRAMES] = { 0 };

  *unsent = 0;
  int c = current_frame (r->pid, L, &frame, &cframe);
  if (c <= 0)
    return c < 0 ? READ_TORN : 0; /* 0: no Python on this thread */
  int n = read_chain (r, L, frame, NULL, out, entries, max);
  if (n <= 0)
    return n;
  return check_codes (r, L, out, entries, verdict, n, unsent);
}

/* The previous stack's ranges in one read with the thread state and the current frame where each
 * of the thread's recent cframes says (3.11, 3.12): r's segments, *frame and *cframe; 1 when the
 * current frame is known, 0 when it is not (the thread state not the previous one's: read the way
 * before), -1 when the state could not be read.  The read stops at the first address it cannot
 * read (a page above the frames never mapped), keeping what came before: so the state goes
 * first, then the frames, then what lies above the innermost frame.  (Reading the windows of the
 * code objects the stack before read too, to spare check_codes() its read: slower, its pages
 * scattered, a page pinned each; median 16 µs against 14 a stack in the PyTorch loop.) */
static int
read_again (SlPyReader       *r,
            const SlPyLayout *L,
            SlPyScratch      *sc,
            const SlPyChain  *was,
            uint64_t         *frame,
            uint64_t         *cframe)
{
  enum { MAX_IOV = 1 + SL_PY_CFRAMES + SL_PY_SEGS + SL_PY_SLACK / 4096 + 2 };
  struct iovec local[MAX_IOV], remote[MAX_IOV];
  int8_t seg_of[MAX_IOV]; /* the segment an iovec reads into, -1 none */
  uint8_t span[208];
  uint64_t cur[SL_PY_CFRAMES] = { 0 }, id = 0;
  uint32_t a = L->tstate_thread_id, b = L->tstate_cframe;
  uint32_t lo = a < b ? a : b, hi = (a > b ? a : b) + 8;
  int k = 0, n_cf = 0;

  if (hi - lo > sizeof span)
    return 0;
  seg_of[k] = -1;
  local[k] = (struct iovec){ span, hi - lo };
  remote[k++] = (struct iovec){ (void *) (uintptr_t) (was->tstate + lo), hi - lo };
  /* (a cframe lives in the C stack: its pages are mapped as long as the thread is) */
  for (; L->cframe_current_frame != NONE && n_cf < SL_PY_CFRAMES && sc->cframes[n_cf] >= 4096;
       n_cf++)
    {
      seg_of[k] = -1;
      local[k] = (struct iovec){ &cur[n_cf], sizeof cur[n_cf] };
      remote[k++] = (struct iovec){ (void *) (uintptr_t) (sc->cframes[n_cf]
                                                          + L->cframe_current_frame),
                                    sizeof cur[n_cf] };
    }

  /* the frames in ranges: from 3.11 one range a data stack chunk; the innermost frame's range
   * (0) with room above it for the frames called since, read last, a page an iovec */
  uint64_t seg_lo[SL_PY_SEGS], seg_hi[SL_PY_SEGS];
  uint32_t n_seg = 0, total = 0, size = L->frame_size;
  bool data_stack = L->instr_kind == 0;
  for (uint32_t i = 0; i < was->n; i++)
    {
      uint64_t f = was->raw[i].addr, f_end = f + size;
      uint32_t s = 0;
      for (; s < n_seg; s++)
        if (f + SL_PY_GAP >= seg_lo[s] && f <= seg_hi[s] + SL_PY_GAP)
          break;
      uint64_t new_lo = s < n_seg && seg_lo[s] < f ? seg_lo[s] : f;
      uint64_t new_hi = s < n_seg && seg_hi[s] > f_end ? seg_hi[s] : f_end;
      uint64_t grows = s < n_seg ? (new_hi - new_lo) - (seg_hi[s] - seg_lo[s]) : size;
      if (s < n_seg && total + grows > SL_PY_SPEC - (data_stack ? SL_PY_SLACK : 0))
        {
          /* no room for what lies between: the frame alone */
          s = n_seg;
          new_lo = f;
          new_hi = f_end;
          grows = size;
        }
      if (total + grows > SL_PY_SPEC - (data_stack ? SL_PY_SLACK : 0)
          || (s == n_seg && n_seg == SL_PY_SEGS))
        continue; /* read as it comes */
      if (s == n_seg)
        n_seg++;
      seg_lo[s] = new_lo;
      seg_hi[s] = new_hi;
      total += (uint32_t) grows;
    }
  uint64_t slack_hi = n_seg > 0 && data_stack ? seg_hi[0] + SL_PY_SLACK : 0;
  uint32_t off = 0, slack_off = 0;
  for (uint32_t s = 0; s < n_seg; s++)
    {
      r->seg[s] = (SlPySeg){ seg_lo[s], off, 0 };
      seg_of[k] = (int8_t) s;
      local[k] = (struct iovec){ sc->spec + off, (size_t) (seg_hi[s] - seg_lo[s]) };
      remote[k++] = (struct iovec){ (void *) (uintptr_t) seg_lo[s], local[k - 1].iov_len };
      off += (uint32_t) (seg_hi[s] - seg_lo[s]);
      if (s == 0)
        {
          slack_off = off; /* segment 0's room above follows it in spec */
          off += slack_hi > 0 ? SL_PY_SLACK : 0;
        }
    }
  for (uint64_t at = slack_hi > 0 ? seg_hi[0] : 0; at < slack_hi && k < MAX_IOV;)
    {
      uint64_t to = (at | 4095) + 1 < slack_hi ? (at | 4095) + 1 : slack_hi;
      seg_of[k] = 0;
      local[k] = (struct iovec){ sc->spec + slack_off, (size_t) (to - at) };
      remote[k++] = (struct iovec){ (void *) (uintptr_t) at, (size_t) (to - at) };
      slack_off += (uint32_t) (to - at);
      at = to;
    }

  atomic_fetch_add_explicit (&P.reads, 1, memory_order_relaxed);
  ssize_t got = process_vm_readv (r->pid, local, (unsigned long) k, remote, (unsigned long) k, 0);
  if (got < (ssize_t) local[0].iov_len)
    return 0; /* the thread state gone: found again the way before */
  memcpy (&id, span + (a - lo), sizeof id);
  memcpy (cframe, span + (b - lo), sizeof *cframe);
  if (id != (uint64_t) pthread_self ())
    return 0;
  /* what each iovec got: the bytes come in order, whole iovecs then part of one (a segment
   * keeps its bytes up to its first iovec not read whole) */
  uint64_t left = (uint64_t) got;
  bool seg_ended[SL_PY_SEGS] = { false };
  int full = 0;
  for (int i = 0; i < k; i++)
    {
      uint64_t have = left < local[i].iov_len ? left : local[i].iov_len;
      left -= have;
      full += have == local[i].iov_len && full == i;
      int s = seg_of[i];
      if (s >= 0 && !seg_ended[s])
        {
          r->seg[s].len += (uint32_t) have;
          seg_ended[s] = have < local[i].iov_len;
        }
    }
  r->n_seg = n_seg;
  if (L->cframe_current_frame == NONE)
    {
      *frame = *cframe;
      return 1;
    }
  for (int i = 0; i < n_cf && i < full - 1; i++)
    if (sc->cframes[i] == *cframe)
      {
        *frame = cur[i];
        return 1;
      }
  if (!peek (r->pid, *cframe + L->cframe_current_frame, frame, sizeof *frame))
    return -1;
  return 1;
}

/* How many of the outermost frames of `now` are `was`'s: the same address, words and all the
 * frames outside them. */
static uint32_t
chain_match (const SlPyChain *now,
             const SlPyChain *was)
{
  uint32_t m = 0;

  while (m < now->n && m < was->n)
    {
      const SlPyRaw *x = &now->raw[now->n - 1 - m], *y = &was->raw[was->n - 1 - m];
      if (x->addr != y->addr || x->code != y->code || x->instr != y->instr
          || x->previous != y->previous || x->flag != y->flag || (y->cand < 0) != (x->cand < 0))
        break;
      m++;
    }
  return m;
}

/* As read_frames_full(), with the thread's previous stack (s->chain[s->was]): read again in one
 * go, and the code objects of its frames that stayed not checked again. */
static int
read_frames (SlPyReader       *r,
             const SlPyLayout *L,
             SlPyScratch      *s,
             uint64_t         *out,
             bool             *entries,
             int               max)
{
  SlPyChain *was = &s->chain[s->was], *now = &s->chain[s->was ^ 1];
  uint64_t frame = 0, cframe = 0;
  int8_t verdict[SL_PY_MAX_FRAMES];
  uint32_t unsent = 0;
  int c = 0;

  now->n = 0;
  r->spec = s->spec;
  r->n_seg = 0;
  if (was->n > 0 && was->tstate == tls_tstate && tls_tstate != 0)
    c = read_again (r, L, s, was, &frame, &cframe);
  if (c == 0)
    {
      r->n_seg = 0;
      c = current_frame (r->pid, L, &frame, &cframe);
    }
  if (c <= 0)
    {
      was->n = 0;
      return c < 0 ? READ_TORN : 0; /* 0: no Python on this thread */
    }
  int n = read_chain (r, L, frame, now, out, entries, max);
  r->n_seg = 0;
  if (n <= 0)
    {
      was->n = 0;
      return n;
    }
  now->tstate = tls_tstate;
  now->cframe = cframe;
  if (L->cframe_current_frame != NONE && cframe != s->cframes[0])
    {
      /* the latest first; the one it was found through moves up */
      int i = 0;
      while (i < SL_PY_CFRAMES - 1 && s->cframes[i] != cframe)
        i++;
      memmove (s->cframes + 1, s->cframes, (size_t) i * sizeof *s->cframes);
      s->cframes[0] = cframe;
    }
  uint32_t same = chain_match (now, was);
  for (int i = 0; i < n; i++)
    verdict[i] = 0;
  for (uint32_t i = now->n - same; i < now->n; i++)
    {
      const SlPyRaw *x = &now->raw[i];
      const SlPyRaw *y = &was->raw[was->n - (now->n - i)];
      if (x->cand >= 0)
        verdict[x->cand] = y->verdict;
    }
  int reused = 0;
  for (int i = 0; i < n; i++)
    reused += verdict[i] != 0;
  atomic_fetch_add_explicit (&P.reused, (uint64_t) reused, memory_order_relaxed);
  int kept = check_codes (r, L, out, entries, verdict, n, &unsent);
  if (kept < 0)
    {
      was->n = now->n = 0;
      return kept;
    }
  for (uint32_t i = 0; i < now->n; i++)
    now->raw[i].verdict = now->raw[i].cand >= 0 ? verdict[now->raw[i].cand] : 0;
  s->was ^= 1;
  return kept;
}

/* SIGHTLINE_PYTHON=compare: each stack read both ways, the one that goes first (paying for the
 * caches it finds cold: the second read of a pair took ~half the time) alternating; the two
 * times kept and the stacks compared.  The thread is in its signal handler: nothing its stack is
 * made of changes between the reads.  Code objects the full read sends when it goes second are
 * ones the reuse did not send: counted. */
__attribute__ ((noinline)) static int
compare_reads (SlPyReader       *r,
               const SlPyLayout *L,
               SlPyScratch      *s,
               uint64_t         *py,
               bool             *entries)
{
  uint64_t again[SL_PY_MAX_FRAMES];
  bool again_entries[SL_PY_MAX_FRAMES];
  uint32_t unsent = 0;
  uint64_t full_ticks = 0, reuse_ticks = 0, t0;
  int n_full = 0, n_py = 0;
  bool full_first = (atomic_fetch_add_explicit (&P.compared, 1, memory_order_relaxed) & 1) != 0;

  for (int pass = 0; pass < 2; pass++)
    {
      t0 = tsc_now ();
      if (pass == (full_first ? 1 : 0))
        {
          n_py = read_frames (r, L, s, py, entries, SL_PY_MAX_FRAMES);
          reuse_ticks = tsc_now () - t0;
          continue;
        }
      r->lo = r->hi = 0;
      r->n_seg = 0;
      n_full = read_frames_full (r, L, again, again_entries, SL_PY_MAX_FRAMES, &unsent);
      full_ticks = tsc_now () - t0;
    }
  int n = n_py;
  if (n != n_full
      || (n > 0 && (memcmp (again, py, (size_t) n * sizeof *py) != 0
                    || memcmp (again_entries, entries, (size_t) n * sizeof *entries) != 0)))
    atomic_fetch_add_explicit (&P.differed, 1, memory_order_relaxed);
  if (unsent > 0 && !full_first)
    atomic_fetch_add_explicit (&P.unsent, unsent, memory_order_relaxed);
  uint32_t i = atomic_fetch_add_explicit (&C.n, 1, memory_order_relaxed);
  if (i < SL_PY_CMP_MAX)
    {
      C.reuse[i] = reuse_ticks < UINT32_MAX ? (uint32_t) reuse_ticks : UINT32_MAX;
      C.full[i] = full_ticks < UINT32_MAX ? (uint32_t) full_ticks : UINT32_MAX;
    }
  return n;
}

static int
cmp_u32 (const void *a,
         const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

  return (x > y) - (x < y);
}

void
_sl_python_counts (SlPyStats *out)
{
  memset (out, 0, sizeof *out);
  out->stacks = atomic_load (&P.stacks);
  out->reads = atomic_load (&P.reads);
  out->frames = atomic_load (&P.frames);
  out->reused = atomic_load (&P.reused);
}

void
_sl_python_stats (SlPyStats *out)
{
  memset (out, 0, sizeof *out);
  out->stacks = atomic_load (&P.stacks);
  out->reads = atomic_load (&P.reads);
  out->frames = atomic_load (&P.frames);
  out->reused = atomic_load (&P.reused);
  out->compare = P.mode == MODE_COMPARE;
  out->compared = atomic_load (&P.compared);
  out->differed = atomic_load (&P.differed);
  out->unsent = atomic_load (&P.unsent);
  uint32_t n = atomic_load (&C.n);
  n = n < SL_PY_CMP_MAX ? n : SL_PY_CMP_MAX;
  uint64_t ticks = tsc_now () - C.tsc0;
  if (n == 0 || ticks == 0)
    return;
  double ns_per_tick = (double) (_sl_now () - C.ns0) / (double) ticks;
  /* (sorts C: at the end only) */
  qsort (C.reuse, n, sizeof *C.reuse, cmp_u32);
  qsort (C.full, n, sizeof *C.full, cmp_u32);
  out->pairs = n;
  out->reuse_ns = (uint64_t) (C.reuse[n / 2] * ns_per_tick);
  out->full_ns = (uint64_t) (C.full[n / 2] * ns_per_tick);
}

uint32_t
_sl_python_merge (uint64_t *frames,
                  uint32_t  n,
                  uint32_t  max,
                  bool      leaf_exact)
{
  const SlPyLayout *L = atomic_load_explicit (&P.layout, memory_order_acquire);
  /* ~3 KiB of the handler's stack, with the sampler's 1 KiB */
  uint64_t py[SL_PY_MAX_FRAMES];
  bool entries[SL_PY_MAX_FRAMES];
  uint64_t native[SL_WIRE_MAX_FRAMES];
  uint8_t small[SL_PY_SMALL];

  if (L == NULL || n > SL_WIRE_MAX_FRAMES)
    {
      if (L == NULL && atomic_load_explicit (&P.unknown, memory_order_relaxed))
        _sl_count_drop (SL_DROP_PYTHON, 1);
      return n;
    }
  /* the thread's scratch unless a read it interrupted holds it */
  bool mine = atomic_exchange (&tls_scratch_busy, 1) == 0;
  SlPyScratch *scratch = mine ? tls_scratch : NULL;
  SlPyReader r = { .pid = own_pid (), .data = scratch != NULL ? scratch->block : small,
                   .cap = scratch != NULL ? SL_PY_SCRATCH : SL_PY_SMALL };
  int n_py;
  uint32_t unsent = 0;
  if (scratch != NULL && P.mode != MODE_FULL)
    {
      if (P.mode == MODE_COMPARE)
        n_py = compare_reads (&r, L, scratch, py, entries);
      else
        n_py = read_frames (&r, L, scratch, py, entries, SL_PY_MAX_FRAMES);
    }
  else
    n_py = read_frames_full (&r, L, py, entries, SL_PY_MAX_FRAMES, &unsent);
  if (mine)
    atomic_store (&tls_scratch_busy, 0);
  atomic_fetch_add_explicit (&P.stacks, 1, memory_order_relaxed);
  if (n_py < 0)
    {
      _sl_count_drop (n_py == READ_CODE ? SL_DROP_PYTHON_CODE : SL_DROP_PYTHON_TORN, 1);
      return n;
    }
  if (n_py == 0)
    return n;
  memcpy (native, frames, n * sizeof *native);
  /* too deep for `max` (Python calling through C many times: imports, map, __call__): the
   * interpreter's own C frames between the Python ones go first, from the innermost out, so that
   * the Python frames reach the script's <module> */
  bool drop[SL_WIRE_MAX_FRAMES] = { false };
  uint32_t n_eval = 0, last_eval = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      uint64_t at = (i == 0 && leaf_exact) ? native[i] : native[i] - 1;
      if (at >= P.eval_start && at < P.eval_end)
        {
          n_eval++;
          last_eval = i;
        }
    }
  int64_t over = (int64_t) n - n_eval + n_py - max;
  for (uint32_t i = 1; i < last_eval && over > 0; i++)
    {
      uint64_t at = native[i] - 1;
      if (at >= P.interp_start && at < P.interp_end && !(at >= P.eval_start && at < P.eval_end))
        {
          drop[i] = true;
          over--;
        }
    }
  uint32_t out = 0;
  int next = 0;
  for (uint32_t i = 0; i < n && out < max; i++)
    {
      /* return addresses point after the call: look one byte back (the leaf is exact) */
      uint64_t at = (i == 0 && leaf_exact) ? native[i] : native[i] - 1;
      if (drop[i])
        continue;
      if (at >= P.eval_start && at < P.eval_end && next < n_py)
        {
          while (next < n_py && out < max)
            {
              bool entry = entries[next];
              frames[out++] = py[next++];
              if (entry)
                break;
            }
          continue;
        }
      frames[out++] = native[i];
    }
  while (next < n_py && out < max)
    frames[out++] = py[next++];
  return out;
}
