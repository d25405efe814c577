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

G_END_DECLS
