/* main.c: the `sightline` command: the viewer, and subcommands for traces. */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sl-application.h"
#include "sl-cmd-analyze.h"
#include "sl-cmd-critical-path.h"
#include "sl-cmd-memory.h"
#include "sl-cmd-diff.h"
#include "sl-cmd-export.h"
#include "sl-cmd-info.h"
#include "sl-cmd-merge-summaries.h"
#include "sl-cmd-record.h"
#include "sl-cmd-samples.h"
#include "sl-cmd-stats.h"
#include "sl-nsys-report.h"

static void
usage (FILE *out)
{
  fprintf (out,
           "Usage:\n"
           "  sightline [FILE…]                   open the viewer, one window per trace (none: a start window)\n"
           "  sightline --merge FILE…             open traces together (one per rank) on one time axis\n"
           "  sightline --compare A B             open two runs compared: aligned on a step, the diff of each report\n"
           "  sightline info FILE                 load a trace and describe what it holds\n"
           "  sightline info --merge FILE…        several traces (one per rank) merged on one time axis\n"
           "  sightline stats FILE [OPTION…]      print nsys-style summary reports\n"
           "  sightline analyze FILE [OPTION…]    find the bottleneck: findings with evidence and advice\n"
           "  sightline samples FILE [OPTION…]    CPU samples as collapsed stacks (flame graphs) or top functions\n"
           "  sightline critical-path FILE …      the chain of CPU, launches, GPU work and waits that bounds a range\n"
           "  sightline memory FILE [--at T|peak] GPU memory in use, its peak and the allocations live then\n"
           "  sightline export FILE -o OUT        write the trace as Chrome trace JSON (.json[.gz]) or nsys SQLite (.sqlite)\n"
           "  sightline record [OPTION…] -- CMD   record a program into a trace (like nsys profile)\n"
           "  sightline diff A B [OPTION…]        compare two traces: a report's rows side by side, figures, findings\n"
           "  sightline merge-summaries A.json …  rank a job's ranks by their analyze --format json\n"
           "  sightline --version                 print the version\n"
           "\n"
           "FILE is an Nsight Systems SQLite export (nsys export --type sqlite), a Sightline recording, or\n"
           "a PyTorch profiler / Chrome trace-event JSON file (.json, .json.gz).  The commands read an\n"
           "Nsight Systems report (FILE.nsys-rep) as nsys stats does: through FILE.sqlite beside it,\n"
           "exported with nsys when it is missing or older and nsys is on PATH.\n"
           "`sightline COMMAND --help` tells more about a command.\n");
}

/* FILE.nsys-rep (or .qdrep) given to a command that reads traces becomes its SQLite export,
 * FILE.sqlite beside it, as `nsys stats` does it: the export already there when it is as new as
 * the report, else one made with `nsys export` where nsys is on PATH (a note on stderr says
 * which).  Without nsys the argument stays, and the reader's error names the command to run.
 * FALSE (and why, on stderr) when the export failed. */
static gboolean
resolve_nsys_reports (const char  *command,
                      int          argc,
                      char       **argv)
{
  static GPtrArray *paths;   /* the new arguments, kept for the process's life */

  for (int i = 2; i < argc; i++)
    {
      if (argv[i][0] == '-' || !sl_nsys_report_is (argv[i]))
        continue;
      g_autofree char *out = sl_nsys_report_sqlite_path (argv[i]);
      GStatBuf rep, sql;
      if (g_stat (argv[i], &rep) != 0)
        continue;   /* the reader says why */
      if (g_stat (out, &sql) == 0 && sql.st_mtime >= rep.st_mtime)
        fprintf (stderr, "sightline %s: note: reading %s, the SQLite export of %s\n", command, out,
                 argv[i]);
      else
        {
          g_autoptr (GError) error = NULL;
          g_autofree char *nsys = sl_nsys_find ();
          if (nsys == NULL)
            continue;
          g_autofree char *line = sl_nsys_report_export_command (argv[i]);
          fprintf (stderr, "sightline %s: note: %s is an Nsight Systems report; exporting it: %s\n",
                   command, argv[i], line);
          if (!sl_nsys_report_export (argv[i], out, &error))
            {
              fprintf (stderr, "sightline %s: %s\n", command, error->message);
              return FALSE;
            }
        }
      if (paths == NULL)
        paths = g_ptr_array_new ();
      g_ptr_array_add (paths, g_steal_pointer (&out));
      argv[i] = g_ptr_array_index (paths, paths->len - 1);
    }
  return TRUE;
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");

  if (argc >= 2
      && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
          || strcmp (argv[1], "help") == 0))
    {
      usage (stdout);
      return 0;
    }
  if (argc >= 2 && strcmp (argv[1], "--version") == 0)
    {
      printf ("sightline 0.1.0\n");
      return 0;
    }
  const char *const readers[] = { "info", "stats", "analyze", "samples", "export", "diff",
                                  "critical-path", "memory" };
  for (gsize i = 0; argc >= 2 && i < G_N_ELEMENTS (readers); i++)
    if (strcmp (argv[1], readers[i]) == 0 && !resolve_nsys_reports (argv[1], argc, argv))
      return 1;
  if (argc >= 2 && strcmp (argv[1], "info") == 0)
    return sl_cmd_info (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "stats") == 0)
    return sl_cmd_stats (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "analyze") == 0)
    return sl_cmd_analyze (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "samples") == 0)
    return sl_cmd_samples (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "critical-path") == 0)
    return sl_cmd_critical_path (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "memory") == 0)
    return sl_cmd_memory (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "export") == 0)
    return sl_cmd_export (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "record") == 0)
    return sl_cmd_record (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "diff") == 0)
    return sl_cmd_diff (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "merge-summaries") == 0)
    return sl_cmd_merge_summaries (argc - 1, argv + 1);
  gboolean merge = argc >= 2 && strcmp (argv[1], "--merge") == 0;
  gboolean compare = argc >= 2 && strcmp (argv[1], "--compare") == 0;
  if (compare && argc != 4)
    {
      fprintf (stderr, "sightline: --compare takes two traces, A and B\n\n");
      usage (stderr);
      return 2;
    }
  if (merge || compare)
    {
      /* the rest are files: GApplication must not see the option */
      memmove (argv + 1, argv + 2, sizeof (char *) * (size_t) (argc - 1));
      argc--;
    }
  for (int i = 1; i < argc; i++)
    if (argv[i][0] == '-')
      {
        fprintf (stderr, "sightline: unknown option '%s'\n\n", argv[i]);
        usage (stderr);
        return 2;
      }

  /* The viewer: every argument is a trace to open (G_APPLICATION_HANDLES_OPEN). */
  {
    g_autoptr (SlApplication) app = sl_application_new ();
    sl_application_set_merge (app, merge);
    sl_application_set_compare (app, compare);
    return g_application_run (G_APPLICATION (app), argc, argv);
  }
}
