/* sl-display-name.c: the names a person reads for events (sl-display-name.h).  The timeline, the
 * detail pane, the events table and the findings all ask here, so that "cudaLaunchKernel" in the
 * statistics is "cudaLaunchKernel" wherever else it is shown. */
#include <string.h>

#include "sl-display-name.h"
#include "sl-stats-private.h"
#include "sl-trace-private.h"

/* Per string id, what is shown for it as a CUDA API name: a pointer to the trace's own text, or
 * to a shorter copy in `chunk`.  Made once, on first use, over the ids the trace had then (a
 * trace's strings are complete before it is shown; ids added later, as a live recording's, are
 * shown as they are).  A few 10^4 ids: a pointer each. */
struct _SlDisplayNames
{
  guint         n;
  const char  **names;
  GStringChunk *chunk;
};

static GMutex build_lock;

void
_sl_display_names_free (struct _SlDisplayNames *names)
{
  g_free (names->names);
  g_string_chunk_free (names->chunk);
  g_free (names);
}

gsize
sl_api_display_length (const char *name)
{
  g_return_val_if_fail (name != NULL, 0);
  return _sl_api_name_length (name);
}

static struct _SlDisplayNames *
build (SlTrace *trace)
{
  struct _SlDisplayNames *d = g_new0 (struct _SlDisplayNames, 1);

  d->n = sl_trace_get_n_strs (trace);
  d->names = g_new (const char *, MAX (d->n, 1));
  d->chunk = g_string_chunk_new (256);
  for (guint i = 0; i < d->n; i++)
    {
      const char *s = sl_trace_str (trace, i);
      gsize len = _sl_api_name_length (s);
      d->names[i] = s[len] == '\0' ? s : g_string_chunk_insert_len (d->chunk, s, (gssize) len);
    }
  return d;
}

const char *
sl_trace_display_name (SlTrace    *trace,
                       SlLaneKind  kind,
                       guint32     id)
{
  struct _SlDisplayNames *d;

  g_return_val_if_fail (trace != NULL, "");
  if (kind != SL_LANE_CUDA_API)
    return sl_trace_str (trace, id);
  d = g_atomic_pointer_get (&trace->display);
  if (d == NULL)
    {
      g_mutex_lock (&build_lock);
      d = trace->display;
      if (d == NULL)
        {
          d = build (trace);
          g_atomic_pointer_set (&trace->display, d);
        }
      g_mutex_unlock (&build_lock);
    }
  return id < d->n ? d->names[id] : sl_trace_str (trace, id);
}

/* Whether every copy of a copy lane is a migration: stops at the first that is not, so a lane of
 * ordinary copies costs one look. */
static gboolean
all_migrations (SlTrace      *trace,
                const SlLane *lane)
{
  for (gsize k = 0; k < lane->n_events; k++)
    {
      const SlCopyInfo *info = lane->events[k].aux < trace->copy_infos->len
                               ? sl_trace_get_copy_info (trace, lane->events[k].aux) : NULL;
      if (info == NULL || !SL_COPY_KIND_IS_UNIFIED (info->copy_kind))
        return FALSE;
    }
  return lane->n_events > 0;
}

const char *
sl_lane_display_title (SlTrace      *trace,
                       const SlLane *lane)
{
  g_return_val_if_fail (lane != NULL, "");

  switch (lane->kind)
    {
    case SL_LANE_CUDA_API: return "CUDA API";
    case SL_LANE_NVTX: return "NVTX";
    case SL_LANE_OSRT: return "OS runtime";
    case SL_LANE_SAMPLES: return "CPU samples";
    case SL_LANE_KERNELS: return "Kernels";
    case SL_LANE_MEMCPY:
      return trace != NULL && all_migrations (trace, lane) ? "Unified memory" : "Memcpy";
    case SL_LANE_MEMSET: return "Memset";
    case SL_LANE_GRAPHS: return "CUDA graphs";
    case SL_LANE_MPI: return "MPI";
    case SL_LANE_OPENMP: return "OpenMP";
    case SL_LANE_OPENACC: return "OpenACC";
    /* synchronization records: the host waited, the GPU was not busy */
    case SL_LANE_SYNC: return "Host waits";
    case SL_LANE_SCHED:
      return lane->n_events > 0 && (lane->events[0].aux & SL_STATE_DERIVED)
               ? "Thread state (derived)" : "Thread state";
    case SL_N_LANE_KINDS:
    default: return "?";
    }
}
