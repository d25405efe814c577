/* sl-export.h: a loaded trace written out as Kineto-shaped Chrome trace JSON or nsys SQLite. */
#pragma once

#include <glib.h>

#include "sl-trace.h"

G_BEGIN_DECLS

#define SL_EXPORT_ERROR (sl_export_error_quark ())

typedef enum
{
  SL_EXPORT_ERROR_WRITE,    /* the output cannot be created or written (the message names it) */
  SL_EXPORT_ERROR_FORMAT,   /* not a format sl_export_format_parse() knows */
} SlExportError;

GQuark sl_export_error_quark (void);

typedef enum
{
  SL_EXPORT_CHROME,         /* Chrome trace-event JSON as Kineto writes it; gzip when the name
                             * ends in .gz */
  SL_EXPORT_SQLITE,         /* the nsys SQLite export schema (collector/sl-schema.c) */
} SlExportFormat;

gboolean sl_export_format_parse (const char     *text,
                                 SlExportFormat *format);

/* Writes the events of `trace` that overlap [t0, t1) (absolute trace times; G_MININT64 and
 * G_MAXINT64 for all) to `path`, replacing it.  An instant (start == end) is kept when it lies in
 * [t0, t1).  On failure the partial output is removed and `error` names the file. */
gboolean sl_export_chrome       (SlTrace        *trace,
                                 const char     *path,
                                 SlTime          t0,
                                 SlTime          t1,
                                 GError        **error);
gboolean sl_export_sqlite       (SlTrace        *trace,
                                 const char     *path,
                                 SlTime          t0,
                                 SlTime          t1,
                                 GError        **error);
gboolean sl_export_write        (SlTrace        *trace,
                                 SlExportFormat  format,
                                 const char     *path,
                                 SlTime          t0,
                                 SlTime          t1,
                                 GError        **error);

/* Whether an event [start, end] is kept by a window [t0, t1). */
static inline gboolean
sl_export_keeps (SlTime start,
                 SlTime end,
                 SlTime t0,
                 SlTime t1)
{
  return start < t1 && (end > t0 || start >= t0);
}

G_END_DECLS
