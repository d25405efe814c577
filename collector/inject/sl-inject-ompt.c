/* sl-inject-ompt.c: OpenMP parallel regions through the OpenMP tools interface (OMPT), for
 * `sightline record -t openmp`.
 *
 * An OMPT runtime (LLVM's libomp; GCC's libgomp has none) looks for a function ompt_start_tool
 * among the process's symbols when it initializes, and the library defines one (OpenMP 5.0,
 * section 4.2.1).  With -t openmp it asks for the parallel-begin/end and implicit-task callbacks
 * and sends an SL_WIRE_OPENMP record at the end of each region (OPENMP_EVENT_KIND_PARALLEL) and
 * of each thread's implicit task in it (OPENMP_EVENT_KIND_TASK: a region's thread count is the
 * number of its tasks); otherwise it hands the runtime to the next ompt_start_tool, if any.
 *
 * The few OMPT types used are declared here from the standard (omp-tools.h), so that the library
 * builds without an OpenMP runtime.  Regions nest (per thread, begin and end in order): each
 * thread keeps a small stack of open regions and of open implicit tasks.  A region's code
 * address (codeptr_ra, a return address into the program) goes with its module's path the first
 * time a process sends it, for the daemon to name the function and line (addr2line).
 */
#include "sl-inject-private.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* ---- OMPT (OpenMP 5.0) ---- */
typedef union
{
  uint64_t value;
  void    *ptr;
} OmptData;
typedef void (*OmptInterfaceFn) (void);
typedef OmptInterfaceFn (*OmptLookup) (const char *name);
typedef int (*OmptInitialize) (OmptLookup lookup, int initial_device, OmptData *tool_data);
typedef void (*OmptFinalize) (OmptData *tool_data);
typedef struct
{
  OmptInitialize initialize;
  OmptFinalize   finalize;
  OmptData       tool_data;
} OmptStartToolResult;
typedef int (*OmptSetCallback) (int event, OmptInterfaceFn callback);

enum
{
  OMPT_CALLBACK_PARALLEL_BEGIN = 3,
  OMPT_CALLBACK_PARALLEL_END = 4,
  OMPT_CALLBACK_IMPLICIT_TASK = 7,
  OMPT_CALLBACK_SYNC_REGION = 23,
  OMPT_SCOPE_BEGIN = 1,
  OMPT_TASK_INITIAL = 0x1,
  OMPT_SYNC_BARRIER_IMPLICIT = 2,          /* OpenMP 5.0's (deprecated in 5.1) */
  OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE = 8, /* 5.1's */
  OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
};

/* ---- per-thread state ---- */

#define MAX_DEPTH 16 /* nesting kept; deeper regions are not recorded */

typedef struct
{
  uint64_t start;
  uint64_t id;
  uint64_t parent_task;
  uint64_t codeptr;
  uint32_t requested;
  uint32_t actual;
} OpenRegion;

/* A thread's implicit task.  libomp reports a worker's implicit-task end only when the worker
 * leaves the fork barrier of the next region (or never, after the program's last region), so
 * its end is taken as the start of the last implicit barrier it entered in the task (the
 * region's join barrier), and the tasks still open at exit are sent then. */
typedef struct
{
  uint64_t start;
  uint64_t parallel_id;
  uint64_t task_id;
  uint64_t barrier; /* 0: no implicit barrier yet */
  uint32_t index;
} OpenTask;

typedef struct
{
  OpenTask         tasks[MAX_DEPTH];
  _Atomic uint32_t n;
  uint32_t         tid;
} TaskStack;

static __thread OpenRegion tls_regions[MAX_DEPTH] __attribute__ ((tls_model ("initial-exec")));
static __thread uint32_t tls_n_regions __attribute__ ((tls_model ("initial-exec")));
static __thread TaskStack tls_tasks __attribute__ ((tls_model ("initial-exec")));
static __thread bool tls_registered __attribute__ ((tls_model ("initial-exec")));

/* Every thread's task stack, for the tasks still open at exit (threads that ended took theirs
 * with them: libomp's workers live as long as the process) */
#define MAX_THREADS 1024
static TaskStack *_Atomic stacks[MAX_THREADS];
static _Atomic uint32_t n_stacks;

static _Atomic uint64_t next_parallel_id = 1;
static _Atomic uint64_t next_task_id = 1;

/* Code addresses whose module went with a record already (the daemon caches their names) */
#define MAX_CODEPTRS 1024
static _Atomic uint64_t codeptrs_sent[MAX_CODEPTRS];

/* True the first time `codeptr` is seen (or when the table is full: the path is sent again) */
static bool
codeptr_first (uint64_t codeptr)
{
  for (int i = 0; i < MAX_CODEPTRS; i++)
    {
      uint64_t c = atomic_load_explicit (&codeptrs_sent[i], memory_order_acquire);
      if (c == codeptr)
        return false;
      if (c == 0)
        {
          uint64_t expected = 0;
          if (atomic_compare_exchange_strong (&codeptrs_sent[i], &expected, codeptr))
            return true;
          if (expected == codeptr)
            return false;
        }
    }
  return true;
}

static void
region_emit (const OpenRegion *r,
             uint64_t          end)
{
  char exe[512];
  const char *path = "";
  uint64_t offset = 0;

  if (!_sl_capture_covers (r->start))
    return;
  if (r->codeptr != 0 && codeptr_first (r->codeptr))
    {
      Dl_info info;
      struct link_map *lm = NULL;
      _sl_enter_library ();
      if (dladdr1 ((void *) (uintptr_t) r->codeptr, &info, (void **) &lm, RTLD_DL_LINKMAP) != 0
          && lm != NULL)
        {
          offset = r->codeptr - lm->l_addr;
          path = lm->l_name;
          if (path == NULL || *path == '\0')
            {
              ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
              exe[n > 0 ? n : 0] = '\0';
              path = exe;
            }
        }
      _sl_leave_library ();
    }
  SlWireOpenmp o = { .start_ns = r->start,
                     .end_ns = end,
                     .parallel_id = r->id,
                     .task_id = r->parent_task,
                     .codeptr = r->codeptr,
                     .code_offset = offset > 0 ? offset - 1 : 0, /* the call, not what follows */
                     .kind = SL_OMP_PARALLEL,
                     .requested = r->requested,
                     .actual = r->actual };
  _sl_emit_with_text (SL_WIRE_OPENMP, &o, sizeof o, path, false);
}

/* A thread's implicit task, ended at its last implicit barrier (else at `end`); sent for thread
 * `tid` (at exit, by the exiting thread for the others) */
static void
task_emit (const OpenTask *t,
           uint32_t        tid,
           uint64_t        end)
{
  if (!_sl_capture_covers (t->start))
    return;
  SlWireOpenmp *r = _sl_emit_begin (SL_WIRE_OPENMP, sl_wire_size (sizeof *r, 0));
  if (r == NULL)
    return;
  SlWireHeader h = r->h;
  *r = (SlWireOpenmp) { .start_ns = t->start,
                        .end_ns = t->barrier >= t->start ? t->barrier : end,
                        .parallel_id = t->parallel_id,
                        .task_id = t->task_id,
                        .kind = SL_OMP_IMPLICIT_TASK,
                        .actual = t->index };
  r->h = h;
  r->h.tid = tid;
  *(char *) (r + 1) = '\0';
  _sl_emit_end (r);
}

/* ---- callbacks ---- */

static void
on_parallel_begin (OmptData       *encountering_task,
                   const void     *encountering_frame,
                   OmptData       *parallel,
                   unsigned int    requested,
                   int             flags,
                   const void     *codeptr_ra)
{
  (void) encountering_frame;
  (void) flags;
  uint64_t id = atomic_fetch_add_explicit (&next_parallel_id, 1, memory_order_relaxed);
  if (parallel != NULL)
    parallel->value = id;
  if (tls_n_regions < MAX_DEPTH)
    tls_regions[tls_n_regions] = (OpenRegion) {
      .start = _sl_now (),
      .id = id,
      .parent_task = encountering_task != NULL ? encountering_task->value : 0,
      .codeptr = (uint64_t) (uintptr_t) codeptr_ra,
      .requested = requested,
    };
  tls_n_regions++;
}

static void
on_parallel_end (OmptData   *parallel,
                 OmptData   *encountering_task,
                 int         flags,
                 const void *codeptr_ra)
{
  (void) parallel;
  (void) encountering_task;
  (void) flags;
  (void) codeptr_ra;
  if (tls_n_regions == 0)
    return;
  tls_n_regions--;
  if (tls_n_regions < MAX_DEPTH)
    region_emit (&tls_regions[tls_n_regions], _sl_now ());
}

static void
on_implicit_task (int          endpoint,
                  OmptData    *parallel,
                  OmptData    *task,
                  unsigned int actual,
                  unsigned int index,
                  int          flags)
{
  if (endpoint == OMPT_SCOPE_BEGIN)
    {
      uint64_t id = atomic_fetch_add_explicit (&next_task_id, 1, memory_order_relaxed);
      if (task != NULL)
        task->value = id;
      if ((flags & OMPT_TASK_INITIAL) != 0)
        return; /* the program's initial task: the parent of its first regions */
      uint64_t pid = parallel != NULL ? parallel->value : 0;
      /* the primary thread's task: its region's team size */
      if (index == 0 && tls_n_regions > 0 && tls_n_regions <= MAX_DEPTH
          && tls_regions[tls_n_regions - 1].id == pid)
        tls_regions[tls_n_regions - 1].actual = actual;
      if (!tls_registered)
        {
          uint32_t slot = atomic_fetch_add (&n_stacks, 1);
          tls_tasks.tid = _sl_tid ();
          if (slot < MAX_THREADS)
            atomic_store (&stacks[slot], &tls_tasks);
          tls_registered = true;
        }
      uint32_t n = atomic_load_explicit (&tls_tasks.n, memory_order_relaxed);
      if (n < MAX_DEPTH)
        tls_tasks.tasks[n] = (OpenTask) { _sl_now (), pid, id, 0, index };
      atomic_store_explicit (&tls_tasks.n, n + 1, memory_order_release);
      return;
    }
  uint32_t n = atomic_load_explicit (&tls_tasks.n, memory_order_relaxed);
  if ((flags & OMPT_TASK_INITIAL) != 0 || n == 0)
    return;
  atomic_store_explicit (&tls_tasks.n, n - 1, memory_order_release);
  if (n - 1 < MAX_DEPTH)
    task_emit (&tls_tasks.tasks[n - 1], tls_tasks.tid, _sl_now ());
}

static void
on_sync_region (int         kind,
                int         endpoint,
                OmptData   *parallel,
                OmptData   *task,
                const void *codeptr_ra)
{
  (void) parallel;
  (void) codeptr_ra;
  uint32_t n = atomic_load_explicit (&tls_tasks.n, memory_order_relaxed);
  if (endpoint != OMPT_SCOPE_BEGIN || n == 0 || n > MAX_DEPTH
      || (kind != OMPT_SYNC_BARRIER_IMPLICIT && kind != OMPT_SYNC_BARRIER_IMPLICIT_WORKSHARE
          && kind != OMPT_SYNC_BARRIER_IMPLICIT_PARALLEL)
      || task == NULL || task->value != tls_tasks.tasks[n - 1].task_id)
    return;
  tls_tasks.tasks[n - 1].barrier = _sl_now ();
}

void
_sl_ompt_flush (void)
{
  uint64_t now = _sl_now ();
  uint32_t n = atomic_load (&n_stacks);

  for (uint32_t i = 0; i < n && i < MAX_THREADS; i++)
    {
      TaskStack *s = atomic_load (&stacks[i]);
      uint32_t depth = s != NULL ? atomic_exchange (&s->n, 0) : 0;
      for (uint32_t k = depth < MAX_DEPTH ? depth : MAX_DEPTH; k > 0; k--)
        task_emit (&s->tasks[k - 1], s->tid, now);
    }
}

static int
ompt_initialize (OmptLookup lookup,
                 int        initial_device,
                 OmptData  *tool_data)
{
  (void) initial_device;
  (void) tool_data;
  OmptSetCallback set = (OmptSetCallback) lookup ("ompt_set_callback");
  if (set == NULL)
    return 0;
  set (OMPT_CALLBACK_PARALLEL_BEGIN, (OmptInterfaceFn) on_parallel_begin);
  set (OMPT_CALLBACK_PARALLEL_END, (OmptInterfaceFn) on_parallel_end);
  set (OMPT_CALLBACK_IMPLICIT_TASK, (OmptInterfaceFn) on_implicit_task);
  set (OMPT_CALLBACK_SYNC_REGION, (OmptInterfaceFn) on_sync_region);
  return 1; /* non-zero: the tool stays */
}

static void
ompt_finalize (OmptData *tool_data)
{
  (void) tool_data;
}

SL_EXPORT OmptStartToolResult *
ompt_start_tool (unsigned int omp_version,
                 const char  *runtime_version)
{
  static OmptStartToolResult result = { ompt_initialize, ompt_finalize, { 0 } };

  _sl_inject_ensure_started ();
  if (!_sl_trace_enabled ("openmp"))
    {
      /* not ours to trace: the next tool in the process, if there is one */
      OmptStartToolResult *(*next) (unsigned int, const char *)
          = (OmptStartToolResult * (*) (unsigned int, const char *)) dlsym (RTLD_NEXT,
                                                                              "ompt_start_tool");
      return next != NULL ? next (omp_version, runtime_version) : NULL;
    }
  return &result;
}
