/* sl-export-private.h: what the Chrome and SQLite writers share: the temporary output file and
 * the process of a GPU lane. */
#pragma once

#include "sl-export.h"
#include "sl-trace-private.h"

G_BEGIN_DECLS

/* Both writers write "OUT.part" beside OUT and rename it over OUT when done, so that a failed
 * export leaves no half file and never destroys what OUT held.  OUT a symbolic link: the file it
 * points to, so that the link stays.  OUT an existing device or pipe (/dev/stdout): written in
 * place, *part_out NULL.  NULL (and `error` set) when OUT's link cannot be followed. */
char    *_sl_export_target     (const char  *path,
                                char       **part_out,
                                GError     **error);
/* Renames `part` (when not NULL) over `target`. */
gboolean _sl_export_finish     (const char  *part,
                                const char  *path,
                                GError     **error);
void     _sl_export_set_error  (GError     **error,
                                const char  *path,
                                const char  *what,
                                int          errsv);

/* Index of the process with this global pid, or -1. */
gint     _sl_export_process_of (SlTrace     *trace,
                                GHashTable  *by_gpid,
                                guint64      global_pid);
/* global pid -> process index + 1, for _sl_export_process_of. */
GHashTable *_sl_export_process_index (SlTrace *trace);

/* Moves *k to the next event of `lane` from *k on that overlaps [t0, t1) (sl_export_keeps);
 * FALSE when there is none (events are sorted by start: none after one that starts at t1). */
static inline gboolean
_sl_export_next (const SlLane *lane,
                 gsize        *k,
                 SlTime        t0,
                 SlTime        t1)
{
  for (; *k < lane->n_events && lane->events[*k].start < t1; (*k)++)
    if (sl_export_keeps (lane->events[*k].start, lane->events[*k].end, t0, t1))
      return TRUE;
  return FALSE;
}

G_END_DECLS
