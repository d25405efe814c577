/* sl-openmp.h: OpenMP and OpenACC in a trace (nsys -t openmp's OPENMP_EVENT_KIND_* tables,
 * -t openacc's CUPTI_ACTIVITY_KIND_OPENACC_* tables, `sightline record -t openmp`): each event's
 * table and details (region ids, team size, construct, source line, bytes, launch shape). */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

/* Which table an event came from (an SL_LANE_OPENMP / SL_LANE_OPENACC event's `aux`), in the
 * order NVIDIA's schema lists them; the OpenMP ones are read into SL_LANE_OPENMP lanes, the
 * OpenACC ones into SL_LANE_OPENACC lanes. */
typedef enum
{
  SL_OMP_THREAD,            /* OPENMP_EVENT_KIND_THREAD: threadId, threadType */
  SL_OMP_PARALLEL,          /* _PARALLEL: parallelId, parentTaskId */
  SL_OMP_SYNC_REGION_WAIT,  /* _SYNC_REGION_WAIT: parallelId, taskId, kind */
  SL_OMP_SYNC_REGION,       /* _SYNC_REGION: parallelId, taskId, kind */
  SL_OMP_TASK,              /* _TASK: parallelId, taskId, kind (task flag) */
  SL_OMP_MASTER,            /* _MASTER: parallelId, taskId */
  SL_OMP_REDUCTION,         /* _REDUCTION: parallelId, taskId */
  SL_OMP_TASK_CREATE,       /* _TASK_CREATE: parentTaskId, newTaskId */
  SL_OMP_TASK_SCHEDULE,     /* _TASK_SCHEDULE: parallelId, priorTaskId, priorTaskStatus,
                             * nextTaskId */
  SL_OMP_CANCEL,            /* _CANCEL: taskId */
  SL_OMP_MUTEX_WAIT,        /* _MUTEX_WAIT: kind, waitId, taskId */
  SL_OMP_CRITICAL_SECTION,  /* _CRITICAL_SECTION: kind, waitId */
  SL_OMP_MUTEX_RELEASED,    /* _MUTEX_RELEASED: kind, waitId, taskId */
  SL_OMP_LOCK_INIT,         /* _LOCK_INIT: kind, waitId */
  SL_OMP_LOCK_DESTROY,      /* _LOCK_DESTROY: kind, waitId */
  SL_OMP_WORKSHARE,         /* _WORKSHARE: kind, parallelId, taskId, count */
  SL_OMP_DISPATCH,          /* _DISPATCH: kind, parallelId, taskId */
  SL_OMP_FLUSH,             /* _FLUSH: threadId */
  SL_ACC_DATA,              /* CUPTI_ACTIVITY_KIND_OPENACC_DATA: bytes, varName */
  SL_ACC_LAUNCH,            /* CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH: numGangs, numWorkers,
                             * vectorLength */
  SL_ACC_OTHER,             /* CUPTI_ACTIVITY_KIND_OPENACC_OTHER */
  SL_OMP_N_SOURCES
} SlOmpSource;

#define SL_OMP_FIRST_ACC SL_ACC_DATA
#define SL_OMP_IS_ACC(source) ((source) >= SL_OMP_FIRST_ACC && (source) < SL_OMP_N_SOURCES)

/* Which fields of an SlOmpEvent the file gave (the others were NULL, absent or absurd). */
#define SL_OMP_HAS_PARALLEL  (1u << 0)
#define SL_OMP_HAS_TASK      (1u << 1)
#define SL_OMP_HAS_OTHER     (1u << 2)
#define SL_OMP_HAS_COUNT     (1u << 3)
#define SL_OMP_HAS_KIND      (1u << 4)
#define SL_OMP_HAS_THREADS   (1u << 5)
#define SL_OMP_HAS_LINE      (1u << 6)
#define SL_OMP_HAS_END_LINE  (1u << 7)
#define SL_OMP_HAS_GANGS     (1u << 8)
#define SL_OMP_HAS_WORKERS   (1u << 9)
#define SL_OMP_HAS_VECTOR    (1u << 10)
#define SL_OMP_HAS_CONSTRUCT (1u << 11)
#define SL_OMP_HAS_STATUS    (1u << 12)
#define SL_OMP_LINE_OF_NAME  (1u << 13)  /* file, function and line read from the event's name
                                          * ("omp parallel: main (omp.c:42)"), not columns */

/* The details of one OpenMP or OpenACC event: an SL_LANE_OPENMP / _OPENACC event's `corr`
 * indexes them (sl_trace_get_omp_event).  96 bytes, no pointers, no padding (stored raw in the
 * model cache); string ids are the trace's. */
typedef struct
{
  gint64  parallel_id; /* parallelId: the region the event belongs to (PARALLEL: its own) */
  gint64  task_id;     /* taskId; TASK_CREATE's newTaskId, TASK_SCHEDULE's nextTaskId */
  gint64  other_id;    /* PARALLEL's and TASK_CREATE's parentTaskId, TASK_SCHEDULE's priorTaskId,
                        * the mutex tables' waitId, THREAD's and FLUSH's threadId */
  gint64  count;       /* WORKSHARE's count (iterations); OpenACC DATA's bytes */
  gint64  gangs;       /* OpenACC LAUNCH's numGangs, numWorkers, vectorLength */
  gint64  workers;
  gint64  vector;
  gint32  kind;        /* the table's kind column (ENUM_OPENMP_SYNC_REGION, _TASK_FLAG, _MUTEX,
                        * _WORK, _DISPATCH), THREAD's threadType; OpenACC's eventKind */
  gint32  status;      /* TASK_SCHEDULE's priorTaskStatus */
  gint32  threads;     /* PARALLEL: its team, the implicit tasks (TASK rows of kind 2) of its
                        * parallelId in its process */
  gint32  line;        /* source line: OpenACC's lineNo (<= 0: unknown), OpenMP's from the
                        * name */
  gint32  end_line;    /* OpenACC's endLineNo */
  guint32 construct;   /* OpenACC's parentConstruct (CUpti_OpenAccConstructKind) */
  guint32 file;        /* string ids: the source file (OpenACC's srcFile), the function
                        * (funcName), the variable (DATA's varName); SL_NO_STR when unknown */
  guint32 func;
  guint32 var;
  guint32 flags;       /* SL_OMP_HAS_* */
} SlOmpEvent;

G_STATIC_ASSERT (sizeof (SlOmpEvent) == 96);

/* The table of a source: "OPENMP_EVENT_KIND_PARALLEL" …; NULL past the last. */
const char       *sl_omp_source_table     (SlOmpSource source);
/* A short label of a source: "parallel region", "implicit/explicit task", "OpenACC data" … */
const char       *sl_omp_source_label     (SlOmpSource source);
/* The label of an event's `kind` in its table (NVIDIA's enum labels: "Implicit barrier",
 * "Loop region", "Enqueue upload" …), NULL when the value has none. */
const char       *sl_omp_kind_label       (SlOmpSource source,
                                           gint32      kind);
/* An OpenACC parent construct (CUpti_OpenAccConstructKind): "parallel", "kernels", "data" …,
 * "?" past them. */
const char       *sl_omp_construct_label  (guint32     construct);

/* The details of an SL_LANE_OPENMP / _OPENACC event, NULL for any other (or one without them). */
const SlOmpEvent *sl_trace_get_omp_event  (SlTrace       *trace,
                                           const SlLane  *lane,
                                           const SlEvent *ev);
/* How many OpenMP and OpenACC events the trace holds details for. */
guint             sl_trace_get_n_omp_events (SlTrace *trace);
/* An event's details as "key value" pairs separated by "; " (table, kind, threads, source line,
 * function, ids, bytes, launch shape), the events table's and the detail pane's text; "" for an
 * event without them.  Newly allocated. */
char             *sl_omp_describe         (SlTrace       *trace,
                                           const SlLane  *lane,
                                           const SlEvent *ev);
/* "file:line" of an event, NULL when it has no line (or one CUPTI calls unknown, <= 0).  Newly
 * allocated. */
char             *sl_omp_where            (SlTrace          *trace,
                                           const SlOmpEvent *o);

/* Where in the program an OpenMP region's name says it is: the last "(FILE:LINE)" of
 * "omp parallel: main (omp.c:42)", with the function before it when there is one.  FALSE, and
 * the outputs untouched, when the name holds none (or a line past 2^31).  `file` and `func` are
 * newly allocated. */
gboolean          sl_omp_parse_where      (const char  *name,
                                           char       **file,
                                           char       **func,
                                           gint32      *line);

G_END_DECLS
