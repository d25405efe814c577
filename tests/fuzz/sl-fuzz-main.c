/* sl-fuzz-main.c: a fuzz target without libFuzzer: runs each file named (a folder: each file in
 * it) through LLVMFuzzerTestOneInput once.  The gcc builds link this, so that CTest replays the
 * corpora and every input a campaign ever crashed on, under ASan + UBSan too (`fuzz-replay`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "sl-fuzz.h"

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static int
run_file (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autoptr (GError) error = NULL;

  if (!g_file_get_contents (path, &data, &len, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  /* a copy of exactly `len` bytes, as libFuzzer gives, so ASan sees reads past the end */
  g_autofree uint8_t *copy = g_memdup2 (data, len > 0 ? len : 1);
  LLVMFuzzerTestOneInput (copy, len);
  return 0;
}

int
main (int    argc,
      char **argv)
{
  int n = 0;

  LLVMFuzzerInitialize (&argc, &argv);
  for (int i = 1; i < argc; i++)
    {
      if (g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          g_autoptr (GDir) dir = g_dir_open (argv[i], 0, NULL);
          g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
          const char *name;
          while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
            g_ptr_array_add (names, g_build_filename (argv[i], name, NULL));
          g_ptr_array_sort (names, compare_paths);
          for (guint k = 0; k < names->len; k++, n++)
            if (run_file (g_ptr_array_index (names, k)) != 0)
              return 1;
        }
      else if (run_file (argv[i]) != 0)
        return 1;
      else
        n++;
    }
  printf ("%s: %d inputs, no crash\n", argv[0], n);
  return 0;
}
