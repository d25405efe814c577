/* sl-cmd-diff.c: `sightline diff A B`: loads both traces at once (a thread each: two 10^7-event
 * traces take seconds each), each thread going on to its side's report and analysis, and prints
 * model/sl-diff.c's comparison of them. */
#include "sl-cmd-diff.h"

#include <stdio.h>
#include <string.h>

#include "sl-diff.h"

typedef struct
{
  const char  *path;
  const char  *report;
  SlDiffInput *input;
  GError      *error;
} Load;

/* A side: its trace loaded, then its part of the diff computed on the same thread, so that one
 * side's analysis runs while the other trace is still loading. */
static gpointer
load_cb (gpointer data)
{
  Load *l = data;

  l->input = sl_diff_input_load (l->path, l->report, &l->error);
  return NULL;
}

int
sl_cmd_diff (int    argc,
             char **argv)
{
  g_autofree char *report = NULL, *format_text = NULL, *output = NULL;
  g_auto (GStrv) files = NULL;
  const GOptionEntry entries[] = {
    { "report", 'r', 0, G_OPTION_ARG_STRING, &report,
      "Report to compare: cuda_gpu_kern_sum (default), cuda_api_sum, nvtx_sum or osrt_sum",
      "NAME" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_text,
      "Output format: column (default), csv (the table only) or json", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE instead of standard output",
      "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "A B" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("— compare two traces");
  g_autoptr (GError) error = NULL;
  SlDiffFormat format = SL_DIFF_COLUMN;
  int status = 0;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (
      context, "A row per name of the report: instances and total time in A and in B, the delta "
               "(B − A) in ns and in % of A, largest change first; names in one trace only too. "
               "Then each trace's span, GPU utilization, training steps and median step, and the "
               "findings of `sightline analyze` new in B or gone from B. A and B are any traces "
               "Sightline opens.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "sightline diff: %s\n", error->message);
      return 2;
    }
  if (files == NULL || files[0] == NULL || files[1] == NULL || files[2] != NULL)
    {
      fprintf (stderr, "sightline diff: give two trace files, A and B (see `sightline diff "
                       "--help`)\n");
      return 2;
    }
  if (report == NULL)
    report = g_strdup ("cuda_gpu_kern_sum");
  if (!sl_diff_report_is_valid (report))
    {
      g_autofree char *valid = g_strjoinv (", ", (char **) sl_diff_report_names ());
      fprintf (stderr, "sightline diff: unknown report '%s'; valid reports are: %s\n", report,
               valid);
      return 2;
    }
  if (format_text != NULL && !sl_diff_format_parse (format_text, &format))
    {
      fprintf (stderr, "sightline diff: unknown format '%s'; use column, csv or json\n",
               format_text);
      return 2;
    }

  Load loads[2] = { { .path = files[0], .report = report },
                    { .path = files[1], .report = report } };
  GThread *thread = g_thread_new ("sl-diff-load", load_cb, &loads[1]);
  load_cb (&loads[0]);
  g_thread_join (thread);
  for (guint i = 0; i < 2; i++)
    if (loads[i].input == NULL)
      {
        fprintf (stderr, "sightline diff: cannot load %s: %s\n", loads[i].path,
                 loads[i].error->message);
        status = 1;
      }

  g_autoptr (SlDiff) diff = NULL;
  if (status == 0)
    {
      diff = sl_diff_join (loads[0].input, loads[1].input, &error);
      if (diff == NULL)
        {
          fprintf (stderr, "sightline diff: %s\n", error->message);
          status = 1;
        }
    }
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&loads[i].input, sl_diff_input_free);
      g_clear_error (&loads[i].error);
    }
  if (diff == NULL)
    return status;

  /* a side without the report's data: said, and the other side's rows printed */
  if (diff->a.no_data != NULL)
    fprintf (stderr, "sightline diff: A: %s\n", diff->a.no_data);
  if (diff->b.no_data != NULL)
    fprintf (stderr, "sightline diff: B: %s\n", diff->b.no_data);

  g_autoptr (GString) out = g_string_new (NULL);
  sl_diff_write (diff, format, out);
  if (output != NULL)
    {
      if (!g_file_set_contents (output, out->str, (gssize) out->len, &error))
        {
          fprintf (stderr, "sightline diff: cannot write %s: %s\n", output, error->message);
          return 1;
        }
    }
  else if (out->len > 0 && fwrite (out->str, 1, out->len, stdout) != out->len)
    {
      fprintf (stderr, "sightline diff: cannot write to standard output\n");
      return 1;
    }
  return 0;
}
