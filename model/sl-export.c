/* sl-export.c: `sightline export`'s entry point: the format by name, and the output file both
 * writers share (written beside the target, then renamed over it). */
#include "sl-export-private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

G_DEFINE_QUARK (sl-export-error-quark, sl_export_error)

gboolean
sl_export_format_parse (const char     *text,
                        SlExportFormat *format)
{
  g_return_val_if_fail (format != NULL, FALSE);

  if (text == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (text, "chrome") == 0 || g_ascii_strcasecmp (text, "json") == 0)
    *format = SL_EXPORT_CHROME;
  else if (g_ascii_strcasecmp (text, "sqlite") == 0)
    *format = SL_EXPORT_SQLITE;
  else
    return FALSE;
  return TRUE;
}

gboolean
sl_export_write (SlTrace        *trace,
                 SlExportFormat  format,
                 const char     *path,
                 SlTime          t0,
                 SlTime          t1,
                 GError        **error)
{
  switch (format)
    {
    case SL_EXPORT_CHROME:
      return sl_export_chrome (trace, path, t0, t1, error);
    case SL_EXPORT_SQLITE:
      return sl_export_sqlite (trace, path, t0, t1, error);
    }
  g_set_error (error, SL_EXPORT_ERROR, SL_EXPORT_ERROR_FORMAT, "unknown export format %d",
               (int) format);
  return FALSE;
}

char *
_sl_export_target (const char  *path,
                   char       **part_out,
                   GError     **error)
{
  GStatBuf st;
  g_autofree char *target = NULL;
  gboolean link = g_lstat (path, &st) == 0 && S_ISLNK (st.st_mode);

  *part_out = NULL;
  if (g_stat (path, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          _sl_export_set_error (error, path, NULL, EISDIR);
          return NULL;
        }
      if (!S_ISREG (st.st_mode))
        return g_strdup (path);   /* a device or a pipe (/dev/stdout): written in place */
      target = link ? realpath (path, NULL) : g_strdup (path);
    }
  else if (link)
    {
      /* a link to a file yet to be made */
      g_autoptr (GError) local = NULL;
      g_autofree char *to = g_file_read_link (path, &local);
      if (to != NULL && !g_path_is_absolute (to))
        {
          g_autofree char *dir = g_path_get_dirname (path);
          target = g_build_filename (dir, to, NULL);
        }
      else
        target = g_steal_pointer (&to);
    }
  else
    target = g_strdup (path);
  if (target == NULL)
    {
      _sl_export_set_error (error, path, "cannot follow the symbolic link", errno);
      return NULL;
    }
  *part_out = g_strconcat (target, ".part", NULL);
  return g_steal_pointer (&target);
}

void
_sl_export_set_error (GError     **error,
                      const char  *path,
                      const char  *what,
                      int          errsv)
{
  if (errsv != 0)
    g_set_error (error, SL_EXPORT_ERROR, SL_EXPORT_ERROR_WRITE, "cannot write %s: %s%s%s", path,
                 what != NULL ? what : "", what != NULL ? ": " : "", g_strerror (errsv));
  else
    g_set_error (error, SL_EXPORT_ERROR, SL_EXPORT_ERROR_WRITE, "cannot write %s: %s", path,
                 what != NULL ? what : "unknown error");
}

gboolean
_sl_export_finish (const char  *part,
                   const char  *path,
                   GError     **error)
{
  if (part != NULL && g_rename (part, path) != 0)
    {
      int errsv = errno;
      g_unlink (part);
      _sl_export_set_error (error, path, "cannot rename the finished file into place", errsv);
      return FALSE;
    }
  return TRUE;
}

GHashTable *
_sl_export_process_index (SlTrace *trace)
{
  GHashTable *by_gpid = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  for (guint i = 0; i < sl_trace_get_n_processes (trace); i++)
    {
      const SlProcess *p = sl_trace_get_process (trace, i);
      if (!g_hash_table_contains (by_gpid, &p->global_pid))
        g_hash_table_insert (by_gpid, g_memdup2 (&p->global_pid, sizeof p->global_pid),
                             GUINT_TO_POINTER (i + 1));
    }
  return by_gpid;
}

gint
_sl_export_process_of (SlTrace    *trace G_GNUC_UNUSED,
                       GHashTable *by_gpid,
                       guint64     global_pid)
{
  return (gint) GPOINTER_TO_UINT (g_hash_table_lookup (by_gpid, &global_pid)) - 1;
}
