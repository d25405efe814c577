/* sl-openmp.c: an OpenMP or OpenACC event's details (sl-openmp.h): its table, the labels of its
 * kind as NVIDIA's enums give them, the text the events table and detail pane show, and where in
 * the program an OpenMP region's name says it is. */
#include "sl-openmp.h"
#include "sl-trace-private.h"

#include <stdlib.h>
#include <string.h>

static const char *const tables[SL_OMP_N_SOURCES] = {
  [SL_OMP_THREAD] = "OPENMP_EVENT_KIND_THREAD",
  [SL_OMP_PARALLEL] = "OPENMP_EVENT_KIND_PARALLEL",
  [SL_OMP_SYNC_REGION_WAIT] = "OPENMP_EVENT_KIND_SYNC_REGION_WAIT",
  [SL_OMP_SYNC_REGION] = "OPENMP_EVENT_KIND_SYNC_REGION",
  [SL_OMP_TASK] = "OPENMP_EVENT_KIND_TASK",
  [SL_OMP_MASTER] = "OPENMP_EVENT_KIND_MASTER",
  [SL_OMP_REDUCTION] = "OPENMP_EVENT_KIND_REDUCTION",
  [SL_OMP_TASK_CREATE] = "OPENMP_EVENT_KIND_TASK_CREATE",
  [SL_OMP_TASK_SCHEDULE] = "OPENMP_EVENT_KIND_TASK_SCHEDULE",
  [SL_OMP_CANCEL] = "OPENMP_EVENT_KIND_CANCEL",
  [SL_OMP_MUTEX_WAIT] = "OPENMP_EVENT_KIND_MUTEX_WAIT",
  [SL_OMP_CRITICAL_SECTION] = "OPENMP_EVENT_KIND_CRITICAL_SECTION",
  [SL_OMP_MUTEX_RELEASED] = "OPENMP_EVENT_KIND_MUTEX_RELEASED",
  [SL_OMP_LOCK_INIT] = "OPENMP_EVENT_KIND_LOCK_INIT",
  [SL_OMP_LOCK_DESTROY] = "OPENMP_EVENT_KIND_LOCK_DESTROY",
  [SL_OMP_WORKSHARE] = "OPENMP_EVENT_KIND_WORKSHARE",
  [SL_OMP_DISPATCH] = "OPENMP_EVENT_KIND_DISPATCH",
  [SL_OMP_FLUSH] = "OPENMP_EVENT_KIND_FLUSH",
  [SL_ACC_DATA] = "CUPTI_ACTIVITY_KIND_OPENACC_DATA",
  [SL_ACC_LAUNCH] = "CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH",
  [SL_ACC_OTHER] = "CUPTI_ACTIVITY_KIND_OPENACC_OTHER",
};

static const char *const labels[SL_OMP_N_SOURCES] = {
  [SL_OMP_THREAD] = "thread",
  [SL_OMP_PARALLEL] = "parallel region",
  [SL_OMP_SYNC_REGION_WAIT] = "sync region wait",
  [SL_OMP_SYNC_REGION] = "sync region",
  [SL_OMP_TASK] = "task",
  [SL_OMP_MASTER] = "master region",
  [SL_OMP_REDUCTION] = "reduction",
  [SL_OMP_TASK_CREATE] = "task creation",
  [SL_OMP_TASK_SCHEDULE] = "task switch",
  [SL_OMP_CANCEL] = "cancel",
  [SL_OMP_MUTEX_WAIT] = "mutex wait",
  [SL_OMP_CRITICAL_SECTION] = "critical section",
  [SL_OMP_MUTEX_RELEASED] = "mutex released",
  [SL_OMP_LOCK_INIT] = "lock init",
  [SL_OMP_LOCK_DESTROY] = "lock destroy",
  [SL_OMP_WORKSHARE] = "worksharing region",
  [SL_OMP_DISPATCH] = "dispatch",
  [SL_OMP_FLUSH] = "flush",
  [SL_ACC_DATA] = "OpenACC data",
  [SL_ACC_LAUNCH] = "OpenACC launch",
  [SL_ACC_OTHER] = "OpenACC other",
};

/* NVIDIA's documented enum values ("SQLite Export Schema Reference", its OpenMP and CUPTI's
 * OpenACC sections); a value past them has no label. */
static const char *const sync_kinds[] = {
  NULL, "Barrier", "Implicit barrier", "Explicit barrier", "Implementation-dependent barrier",
  "Taskwait", "Taskgroup",
};
static const char *const task_kinds[] = { NULL, "Initial task", "Implicit task", "Explicit task" };
static const char *const mutex_kinds[] = {
  NULL, "Waiting for lock", "Testing lock", "Waiting for nested lock", "Testing nested lock",
  "Waiting for entering critical section region", "Waiting for entering atomic region",
  "Waiting for entering ordered region",
};
static const char *const critical_kinds[] = {
  NULL, NULL, NULL, NULL, NULL, "Critical section region", "Atomic region", "Ordered region",
};
static const char *const work_kinds[] = {
  NULL, "Loop region", "Sections region", "Single region (executor)", "Single region (waiting)",
  "Workshare region", "Distribute region", "Taskloop region",
};
static const char *const dispatch_kinds[] = { NULL, "Iteration", "Section" };
static const char *const thread_kinds[] = {
  NULL, "Initial thread", "Worker thread", "Internal thread", "Unknown",
};
static const char *const acc_kinds[] = {
  NULL, "Device init", "Device shutdown", "Runtime shutdown", "Enqueue launch", "Enqueue upload",
  "Enqueue download", "Wait", "Implicit wait", "Compute construct", "Update", "Enter data",
  "Exit data", "Create", "Delete", "Alloc", "Free",
};
static const char *const acc_constructs[] = {
  "unknown", "parallel", "kernels", "loop", "data", "enter data", "exit data", "host data",
  "atomic", "declare", "init", "shutdown", "set", "update", "routine", "wait", "runtime api",
};
static const char *const task_status[] = {
  NULL, "completed", "yielded to another task", "cancelled", NULL, NULL, NULL,
  "switched out for other reasons",
};

#define PICK(array, v) ((v) >= 0 && (gsize) (v) < G_N_ELEMENTS (array) ? (array)[(v)] : NULL)

const char *
sl_omp_source_table (SlOmpSource source)
{
  return (guint) source < SL_OMP_N_SOURCES ? tables[source] : NULL;
}

const char *
sl_omp_source_label (SlOmpSource source)
{
  return (guint) source < SL_OMP_N_SOURCES ? labels[source] : "?";
}

const char *
sl_omp_kind_label (SlOmpSource source,
                   gint32      kind)
{
  switch (source)
    {
    case SL_OMP_SYNC_REGION_WAIT:
    case SL_OMP_SYNC_REGION:
      return PICK (sync_kinds, kind);
    case SL_OMP_TASK:
      return PICK (task_kinds, kind);
    case SL_OMP_MUTEX_WAIT:
    case SL_OMP_MUTEX_RELEASED:
    case SL_OMP_LOCK_INIT:
    case SL_OMP_LOCK_DESTROY:
      return PICK (mutex_kinds, kind);
    case SL_OMP_CRITICAL_SECTION:
      return PICK (critical_kinds, kind);
    case SL_OMP_WORKSHARE:
      return PICK (work_kinds, kind);
    case SL_OMP_DISPATCH:
      return PICK (dispatch_kinds, kind);
    case SL_OMP_THREAD:
      return PICK (thread_kinds, kind);
    case SL_ACC_DATA:
    case SL_ACC_LAUNCH:
    case SL_ACC_OTHER:
      return PICK (acc_kinds, kind);
    case SL_OMP_PARALLEL:
    case SL_OMP_MASTER:
    case SL_OMP_REDUCTION:
    case SL_OMP_TASK_CREATE:
    case SL_OMP_TASK_SCHEDULE:
    case SL_OMP_CANCEL:
    case SL_OMP_FLUSH:
    case SL_OMP_N_SOURCES:
    default:
      return NULL;
    }
}

const char *
sl_omp_construct_label (guint32 construct)
{
  return construct < G_N_ELEMENTS (acc_constructs) ? acc_constructs[construct] : "?";
}

const SlOmpEvent *
sl_trace_get_omp_event (SlTrace       *trace,
                        const SlLane  *lane,
                        const SlEvent *ev)
{
  g_return_val_if_fail (trace != NULL, NULL);
  if (lane == NULL || ev == NULL
      || (lane->kind != SL_LANE_OPENMP && lane->kind != SL_LANE_OPENACC)
      || trace->omp_events == NULL || ev->corr >= trace->omp_events->len)
    return NULL;
  return &g_array_index (trace->omp_events, SlOmpEvent, ev->corr);
}

guint
sl_trace_get_n_omp_events (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return trace->omp_events != NULL ? trace->omp_events->len : 0;
}

char *
sl_omp_where (SlTrace          *trace,
              const SlOmpEvent *o)
{
  g_return_val_if_fail (trace != NULL && o != NULL, NULL);
  if (!(o->flags & SL_OMP_HAS_LINE) || o->line <= 0)
    return NULL;
  const char *file = sl_trace_str (trace, o->file);
  return g_strdup_printf ("%s:%d", *file != '\0' ? file : "?", o->line);
}

char *
sl_omp_describe (SlTrace       *trace,
                 const SlLane  *lane,
                 const SlEvent *ev)
{
  const SlOmpEvent *o = sl_trace_get_omp_event (trace, lane, ev);
  GString *s = g_string_new (NULL);

  if (o == NULL)
    return g_string_free (s, FALSE);
  SlOmpSource source = (SlOmpSource) ev->aux;
  g_string_append (s, sl_omp_source_label (source));
  if (o->flags & SL_OMP_HAS_KIND)
    {
      const char *k = sl_omp_kind_label (source, o->kind);
      if (k != NULL)
        g_string_append_printf (s, "; kind %s", k);
      else
        g_string_append_printf (s, "; kind %d", o->kind);
    }
  if (o->flags & SL_OMP_HAS_THREADS)
    g_string_append_printf (s, "; threads %d", o->threads);
  g_autofree char *where = sl_omp_where (trace, o);
  if (where != NULL)
    g_string_append_printf (s, "; line %s", where);
  if (o->func != SL_NO_STR)
    g_string_append_printf (s, "; function %s", sl_trace_str (trace, o->func));
  if (o->flags & SL_OMP_HAS_CONSTRUCT)
    g_string_append_printf (s, "; construct %s", sl_omp_construct_label (o->construct));
  if (o->flags & SL_OMP_HAS_PARALLEL)
    g_string_append_printf (s, "; parallel %" G_GINT64_FORMAT, o->parallel_id);
  if (o->flags & SL_OMP_HAS_TASK)
    g_string_append_printf (s, "; task %" G_GINT64_FORMAT, o->task_id);
  if (o->flags & SL_OMP_HAS_OTHER)
    {
      const char *what = source == SL_OMP_PARALLEL || source == SL_OMP_TASK_CREATE
                         ? "parent task"
                         : source == SL_OMP_TASK_SCHEDULE ? "prior task"
                         : source == SL_OMP_THREAD || source == SL_OMP_FLUSH ? "thread" : "wait id";
      g_string_append_printf (s, "; %s %" G_GINT64_FORMAT, what, o->other_id);
    }
  if (o->flags & SL_OMP_HAS_STATUS)
    {
      const char *st = PICK (task_status, o->status);
      g_string_append_printf (s, "; prior task %s", st != NULL ? st : "?");
    }
  if (o->flags & SL_OMP_HAS_COUNT)
    g_string_append_printf (s, source == SL_ACC_DATA ? "; bytes %" G_GINT64_FORMAT
                                                     : "; count %" G_GINT64_FORMAT, o->count);
  if (o->var != SL_NO_STR)
    g_string_append_printf (s, "; variable %s", sl_trace_str (trace, o->var));
  if (o->flags & SL_OMP_HAS_GANGS)
    g_string_append_printf (s, "; gangs %" G_GINT64_FORMAT, o->gangs);
  if (o->flags & SL_OMP_HAS_WORKERS)
    g_string_append_printf (s, "; workers %" G_GINT64_FORMAT, o->workers);
  if (o->flags & SL_OMP_HAS_VECTOR)
    g_string_append_printf (s, "; vector %" G_GINT64_FORMAT, o->vector);
  return g_string_free (s, FALSE);
}

gboolean
sl_omp_parse_where (const char  *name,
                    char       **file,
                    char       **func,
                    gint32      *line)
{
  g_return_val_if_fail (file != NULL && func != NULL && line != NULL, FALSE);
  if (name == NULL)
    return FALSE;
  /* the last "(" of a name ending in ")": "omp parallel: main (dir/omp.c:42)" */
  gsize len = strlen (name);
  if (len < 4 || name[len - 1] != ')')
    return FALSE;
  const char *open = NULL;
  for (const char *p = name + len - 1; p > name; p--)
    if (p[-1] == '(')
      {
        open = p;
        break;
      }
  if (open == NULL)
    return FALSE;
  const char *close = name + len - 1;
  const char *colon = NULL;
  for (const char *p = close - 1; p >= open; p--)
    if (*p == ':')
      {
        colon = p;
        break;
      }
  if (colon == NULL || colon == open || colon + 1 == close)
    return FALSE;
  gint64 v = 0;
  for (const char *p = colon + 1; p < close; p++)
    {
      if (!g_ascii_isdigit (*p))
        return FALSE;
      v = v * 10 + (*p - '0');
      if (v > G_MAXINT32)
        return FALSE;
    }
  if (v <= 0)
    return FALSE;
  *line = (gint32) v;
  *file = g_strndup (open, (gsize) (colon - open));
  /* the function: the word before " (", after the last ": " */
  const char *fend = open - 1;
  while (fend > name && fend[-1] == ' ')
    fend--;
  const char *fstart = fend;
  while (fstart > name && fstart[-1] != ' ' && fstart[-1] != ':')
    fstart--;
  *func = fend > fstart ? g_strndup (fstart, (gsize) (fend - fstart)) : NULL;
  return TRUE;
}
