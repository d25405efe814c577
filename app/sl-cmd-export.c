/* sl-cmd-export.c: `sightline export FILE --format chrome|sqlite -o OUT [--range A:B]`: any trace
 * Sightline opens, written as Kineto-shaped Chrome trace JSON (Perfetto, chrome://tracing) or as
 * an nsys-schema SQLite file (nsys-SQLite scripts, `sightline stats`). */
#include "sl-cmd-export.h"

#include <stdio.h>

#include "sl-export.h"
#include "sl-range.h"
#include "sl-trace.h"

int
sl_cmd_export (int    argc,
               char **argv)
{
  g_autofree char *format_text = NULL;
  g_autofree char *output = NULL;
  g_autofree char *range = NULL;
  g_auto (GStrv) files = NULL;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_text,
      "chrome (Chrome trace-event JSON as PyTorch's profiler writes it; gzip when OUT ends in .gz) "
      "or sqlite (the Nsight Systems SQLite export schema); by default, by OUT's name (.json, "
      ".json.gz, .sqlite)", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "The file to write (replaced)", "OUT" },
    { "range", 0, 0, G_OPTION_ARG_STRING, &range,
      "Only the events that overlap [A, B), times from the time 0 that `sightline info` and the "
      "viewer count from (an nsys export's session start), with units: 1.5s:2s, 250ms:300ms "
      "(bare numbers are ns)", "A:B" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("FILE — write a trace in another "
                                                             "format");
  g_autoptr (GError) error = NULL;
  SlExportFormat format;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
                                    "FILE is any trace Sightline opens.  chrome: processes, "
                                    "threads and GPU streams named, launch -> GPU work as ac2g "
                                    "flows, kernel launch configuration and occupancy in args; "
                                    "thread states are left out.  sqlite: every table the trace "
                                    "has data for, so that `sightline stats` on the export "
                                    "equals `stats` on FILE.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "sightline export: %s\n", error->message);
      return 2;
    }
  if (files == NULL || files[0] == NULL || files[1] != NULL)
    {
      fprintf (stderr, "sightline export: give exactly one trace FILE (see `sightline export "
                       "--help`)\n");
      return 2;
    }
  if (output == NULL || *output == '\0')
    {
      fprintf (stderr, "sightline export: -o OUT is required: the file to write\n");
      return 2;
    }
  if (format_text == NULL)
    {
      /* by the name of OUT where it says */
      if (g_str_has_suffix (output, ".json") || g_str_has_suffix (output, ".json.gz"))
        format = SL_EXPORT_CHROME;
      else if (g_str_has_suffix (output, ".sqlite"))
        format = SL_EXPORT_SQLITE;
      else
        {
          fprintf (stderr, "sightline export: give --format chrome or sqlite (%s ends in neither "
                           ".json, .json.gz nor .sqlite)\n", output);
          return 2;
        }
    }
  else if (!sl_export_format_parse (format_text, &format))
    {
      fprintf (stderr, "sightline export: unknown format '%s'; use chrome or sqlite\n",
               format_text);
      return 2;
    }

  g_autoptr (SlTrace) trace = sl_trace_load (files[0], SL_LOAD_ALL, NULL, NULL, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "sightline export: cannot load %s: %s\n", files[0], error->message);
      return 1;
    }
  SlTime t0 = G_MININT64, t1 = G_MAXINT64;
  if (range != NULL && !sl_range_parse (range, trace, &t0, &t1, &error))
    {
      fprintf (stderr, "sightline export: %s: --range: %s\n", files[0], error->message);
      return 2;
    }
  if (!sl_export_write (trace, format, output, t0, t1, &error))
    {
      fprintf (stderr, "sightline export: %s\n", error->message);
      return 1;
    }
  return 0;
}
