/* sl-nsys-report.h: Nsight Systems' own report files (.nsys-rep, and .qdrep before 2021.4), which
 * Sightline reads through their SQLite export: telling one from a trace, and `nsys export`. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether `path` is named as an nsys report and is not a SQLite file (a renamed export is read
 * as what it is). */
gboolean sl_nsys_report_is             (const char  *path);
/* FILE.sqlite for FILE.nsys-rep or FILE.qdrep: where `nsys export` and `nsys stats` put it. */
char    *sl_nsys_report_sqlite_path    (const char  *path);
/* The command that exports it, quoted for a shell where needed. */
char    *sl_nsys_report_export_command (const char  *path);
/* `nsys` on PATH (its path), or NULL. */
char    *sl_nsys_find                  (void);
/* Runs `nsys export --type sqlite` on the report into `out` (overwritten); FALSE and nsys's own
 * words when it fails or nsys is not on PATH. */
gboolean sl_nsys_report_export         (const char  *path,
                                        const char  *out,
                                        GError     **error);

G_END_DECLS
