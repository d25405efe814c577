/* main.c: the `sightline` command: subcommands for traces (and, later, the viewer). */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "sl-cmd-info.h"
#include "sl-cmd-stats.h"

static void
usage (FILE *out)
{
  fprintf (out,
           "Usage:\n"
           "  sightline info FILE                 load a trace and describe what it holds\n"
           "  sightline stats FILE [OPTION…]      print nsys-style summary reports\n"
           "  sightline FILE                      the same as `sightline info FILE` (the viewer comes later)\n"
           "\n"
           "FILE is an Nsight Systems SQLite export (nsys export --type sqlite) or a Sightline recording.\n"
           "`sightline COMMAND --help` tells more about a command.\n");
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");

  if (argc < 2)
    {
      usage (stderr);
      return 2;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      usage (stdout);
      return 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("sightline 0.1.0\n");
      return 0;
    }
  if (strcmp (argv[1], "info") == 0)
    return sl_cmd_info (argc - 1, argv + 1);
  if (strcmp (argv[1], "stats") == 0)
    return sl_cmd_stats (argc - 1, argv + 1);
  if (argv[1][0] != '-' && argc == 2)
    {
      char *args[] = { "info", argv[1], NULL };
      return sl_cmd_info (2, args);
    }
  fprintf (stderr, "sightline: unknown command '%s'\n\n", argv[1]);
  usage (stderr);
  return 2;
}
