/* sl-nsys-report.c: Nsight Systems' report files (.nsys-rep, .qdrep): a binary format of NVIDIA's
 * that only nsys reads; its SQLite export is what Sightline opens.  The reader names the file
 * and the command when it is given one (sl-reader.c); the command line and the viewer run the
 * export where nsys is installed.
 */
#include "sl-nsys-report.h"

#include <stdio.h>
#include <string.h>

#include "sl-trace.h"

static const char *const suffixes[] = { ".nsys-rep", ".qdrep" };

/* the suffix `path` ends in, case aside; NULL when neither */
static const char *
report_suffix (const char *path)
{
  gsize n = strlen (path);

  for (gsize i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      gsize k = strlen (suffixes[i]);
      if (n > k && g_ascii_strcasecmp (path + n - k, suffixes[i]) == 0)
        return suffixes[i];
    }
  return NULL;
}

gboolean
sl_nsys_report_is (const char *path)
{
  g_return_val_if_fail (path != NULL, FALSE);

  if (report_suffix (path) == NULL)
    return FALSE;
  /* the first 16 bytes of every SQLite database */
  static const char magic[16] = "SQLite format 3";
  char head[16] = { 0 };
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return TRUE;   /* by its name: the reader says why it cannot be read */
  gsize got = fread (head, 1, sizeof head, f);
  fclose (f);
  return got < sizeof head || memcmp (head, magic, sizeof magic) != 0;
}

char *
sl_nsys_report_sqlite_path (const char *path)
{
  g_return_val_if_fail (path != NULL, NULL);

  const char *suffix = report_suffix (path);
  gsize stem = strlen (path) - (suffix != NULL ? strlen (suffix) : 0);
  return g_strdup_printf ("%.*s.sqlite", (int) stem, path);
}

/* a word as a shell reads it: as it is where it has no special characters */
static char *
shell_word (const char *s)
{
  for (const char *p = s; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && strchr ("._/-+:,@%=", *p) == NULL)
      return g_shell_quote (s);
  return g_strdup (s);
}

char *
sl_nsys_report_export_command (const char *path)
{
  g_return_val_if_fail (path != NULL, NULL);

  g_autofree char *out = sl_nsys_report_sqlite_path (path);
  g_autofree char *q_out = shell_word (out);
  g_autofree char *q_in = shell_word (path);
  return g_strdup_printf ("nsys export --type sqlite -o %s %s", q_out, q_in);
}

char *
sl_nsys_find (void)
{
  return g_find_program_in_path ("nsys");
}

gboolean
sl_nsys_report_export (const char  *path,
                       const char  *out,
                       GError     **error)
{
  g_return_val_if_fail (path != NULL && out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_autofree char *nsys = sl_nsys_find ();
  g_autofree char *err = NULL;
  int status = 0;

  if (nsys == NULL)
    {
      g_autofree char *command = sl_nsys_report_export_command (path);
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_NSYS_REPORT,
                   "%s: nsys is not on PATH to export it; where Nsight Systems is installed: %s",
                   path, command);
      return FALSE;
    }
  const char *argv[] = { nsys, "export", "--type", "sqlite", "--force-overwrite", "true",
                         "-o", out, path, NULL };
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                     &err, &status, error))
    return FALSE;
  if (!g_spawn_check_wait_status (status, NULL) || !g_file_test (out, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_OPEN,
                   "%s: `nsys export` did not write %s: %s", path, out,
                   err != NULL && *err != '\0' ? g_strstrip (err) : "it said nothing");
      return FALSE;
    }
  return TRUE;
}
