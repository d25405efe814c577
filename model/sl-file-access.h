/* sl-file-access.h: the files an OS runtime call opened, read or wrote
 * (OSRT_FILE_ACCESS_EVENTS / OSRT_FILE_ACCESS_DESCRIPTORS of nsys 2026.1+ exports). */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

typedef struct
{
  char   *path;     /* OSRT_FILE_ACCESS_DESCRIPTORS.filePath ("Unknown file #3" where nsys
                     * could not name it) */
  char   *action;   /* "Open", "Close", "Read", "Write", … (ENUM_OSRT_FILE_ACCESS_EVENT_TYPE) */
  gint64  bytes;    /* bytesProcessed */
} SlFileAccess;

void        sl_file_access_free     (SlFileAccess *access);

/* The file accesses of the OS runtime call `index` of the OSRT lane `lane`, in time order: those
 * of its thread (process and thread id) that it encloses and no deeper OS runtime call of the
 * thread does.  Read from the trace's file on each call (a query over a table of 10^1 … 10^5 rows:
 * for the detail pane, not a loop); an empty array where the file has no such tables (older
 * exports, JSON traces) or the call none; NULL and an error only when the file cannot be read. */
GPtrArray  *sl_trace_get_file_accesses (SlTrace      *trace,
                                        const SlLane *lane,
                                        gsize         index,
                                        GError      **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlFileAccess, sl_file_access_free)

G_END_DECLS
