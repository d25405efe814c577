/* fuzz-cache-seeds.c: the seed corpus of fuzz-cache: the payloads of the cache files the model
 * writes for some real traces (the file less its header and source path, which fuzz-cache skips).
 * Usage: fuzz-cache-seeds OUT_DIR TRACE… (tests/fuzz/make-corpus runs it). */
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "sl-trace.h"

/* where the header says the payload starts: 144 bytes, the path, zeros to a multiple of 8 */
#define HEADER_BYTES    144
#define PATH_LEN_OFFSET 128

int
main (int    argc,
      char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: fuzz-cache-seeds OUT_DIR TRACE…\n");
      return 2;
    }
  g_autofree char *home = g_dir_make_tmp ("sl-cache-seeds-XXXXXX", NULL);
  g_setenv ("XDG_CACHE_HOME", home, TRUE);
  g_setenv ("SIGHTLINE_CACHE", "1", TRUE);
  g_setenv ("SIGHTLINE_CACHE_MIN_MS", "0", TRUE);
  g_autofree char *dir = g_build_filename (home, "sightline", NULL);
  int made = 0;

  for (int i = 2; i < argc; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (argv[i], SL_LOAD_ALL, NULL, NULL, NULL, &error);
      if (trace == NULL)
        {
          fprintf (stderr, "fuzz-cache-seeds: %s\n", error->message);
          continue;
        }
      /* the one cache file there is now: take its payload, then remove it for the next */
      g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
      const char *name;
      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *path = g_build_filename (dir, name, NULL);
          g_autofree char *bytes = NULL;
          gsize len = 0;
          guint32 path_len = 0;
          if (g_file_get_contents (path, &bytes, &len, NULL) && len > HEADER_BYTES)
            {
              memcpy (&path_len, bytes + PATH_LEN_OFFSET, 4);
              gsize off = (HEADER_BYTES + (gsize) path_len + 7) / 8 * 8;
              g_autofree char *base = g_path_get_basename (argv[i]);
              g_autofree char *out = g_build_filename (argv[1], base, NULL);
              if (off < len && g_file_set_contents (out, bytes + off, (gssize) (len - off), NULL))
                made++;
            }
          g_unlink (path);
        }
    }
  g_rmdir (dir);
  g_rmdir (home);
  return made > 0 ? 0 : 1;
}
