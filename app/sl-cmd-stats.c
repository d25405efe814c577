/* sl-cmd-stats.c: `sightline stats FILE`: the `nsys stats` reports, computed from the model;
 * `--merge FILE…`: the same for each rank of a job, side by side behind a Rank column. */
#include "sl-cmd-stats.h"

#include <stdio.h>
#include <string.h>

#include "sl-range.h"
#include "sl-stats.h"
#include "sl-trace.h"

/* Splits every --report value at commas; checks each name; "all" stands for every report (and
 * sets *all).  NULL (and a message) on error. */
static GPtrArray *
parse_reports (char     **values,
               gboolean  *all,
               GError   **error)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  if (values == NULL)
    {
      for (const char *const *n = sl_report_default_names (); *n != NULL; n++)
        g_ptr_array_add (names, g_strdup (*n));
      return g_steal_pointer (&names);
    }
  for (char **v = values; *v != NULL; v++)
    {
      g_auto (GStrv) parts = g_strsplit (*v, ",", -1);
      for (char **p = parts; *p != NULL; p++)
        {
          char *name = g_strstrip (*p);
          if (*name == '\0')
            continue;
          if (strcmp (name, "all") == 0)
            {
              for (const char *const *n = sl_report_names (); *n != NULL; n++)
                if (!g_ptr_array_find_with_equal_func (names, *n, g_str_equal, NULL))
                  g_ptr_array_add (names, g_strdup (*n));
              *all = TRUE;
              continue;
            }
          const char *current = sl_report_name_current (name);
          if (current != NULL)
            {
              /* as nsys takes its older names: with a note */
              fprintf (stderr, "sightline stats: note: the report name '%s' is deprecated; "
                               "use '%s'\n", name, current);
              name = (char *) current;
            }
          if (!sl_report_name_is_valid (name))
            {
              g_autofree char *valid = g_strjoinv (", ", (char **) sl_report_names ());
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "unknown report '%s'; valid reports are: %s", name, valid);
              return NULL;
            }
          g_ptr_array_add (names, g_strdup (name));
        }
    }
  if (names->len == 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--report names no report");
      return NULL;
    }
  return g_steal_pointer (&names);
}

int
sl_cmd_stats (int    argc,
              char **argv)
{
  g_auto (GStrv) reports = NULL;
  g_autofree char *format_text = NULL;
  g_autofree char *output = NULL;
  g_autofree char *range = NULL;
  g_auto (GStrv) files = NULL;
  gboolean merge = FALSE;
  const GOptionEntry entries[] = {
    { "report", 'r', 0, G_OPTION_ARG_STRING_ARRAY, &reports,
      "Reports to compute (default: nvtx_sum,osrt_sum,cuda_api_sum,cuda_gpu_kern_sum,"
      "cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum; all: every report that has data)",
      "NAME[,NAME…]" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_text, "Output format: column (default), csv or json",
      "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE instead of standard output", "FILE" },
    { "range", 0, 0, G_OPTION_ARG_STRING, &range,
      "Only the events that start in [A, B), times from the time 0 that `sightline info` and the "
      "viewer count from (an nsys export's session start), with units: 1.5s:2s, 250ms:300ms "
      "(bare numbers are ns)", "A:B" },
    { "merge", 'm', 0, G_OPTION_ARG_NONE, &merge,
      "The FILEs are one job's ranks (loaded in parallel): every report gets a leading Rank column "
      "(the rank label `sightline info --merge` gives each file) and each rank's rows, as stats "
      "on that file alone gives them", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("FILE… — nsys-style summary reports");
  g_autoptr (GError) error = NULL;
  SlReportFormat format = SL_REPORT_FORMAT_COLUMN;

  g_option_context_add_main_entries (context, entries, NULL);
  {
    g_autofree char *valid = g_strjoinv (", ", (char **) sl_report_names ());
    g_autofree char *legacy = sl_report_legacy_names_describe ();
    g_autoptr (GString) each = g_string_new (NULL);
    for (const char *const *n = sl_report_names (); *n != NULL; n++)
      g_string_append_printf (each, "  %-24s %s\n", *n, sl_report_name_get_purpose (*n));
    g_autofree char *description = g_strdup_printf (
        "Reports: %s.\n\n%s\n`--report all` prints every report the trace has data for and "
        "leaves out the others (and, with --range, those without a row in it).\n\n"
        "nsys's older names are taken too, with a note naming the current one: "
        "%s.\n\nAn Nsight Systems report (FILE.nsys-rep, FILE.qdrep) is read through its SQLite "
        "export, FILE.sqlite beside it, as nsys stats does: used when it is as new as the report, "
        "else made with `nsys export` where nsys is on PATH.\n\nReports are computed from the loaded trace with nsys's semantics "
        "(columns, rounding, order).\n\nrank_sum (Sightline's own) has a row per rank (a merged "
        "file; in one file, each rank its processes say, else each process running NCCL on GPUs "
        "of its own): GPU kernel time, split into communication (NCCL, c10d, gloo kernels) and "
        "compute; Overlap (%%), the share of the communication kernels' time during which compute "
        "kernels ran on the same GPU (Holistic Trace Analysis's get_comm_comp_overlap, GPU by "
        "GPU); memcpy time; CUDA API time; "
        "training steps (ProfilerStep#N or NVTX step ranges) and their median; GPU utilization. "
        "With --merge, `-r rank_sum` puts the ranks side by side.",
        valid, each->str, legacy);
    g_option_context_set_description (context, description);
  }
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "sightline stats: %s\n", error->message);
      return 2;
    }
  if (files == NULL || files[0] == NULL || (files[1] != NULL && !merge))
    {
      fprintf (stderr, "sightline stats: give exactly one trace FILE, or --merge and a FILE per rank "
                       "(see `sightline stats --help`)\n");
      return 2;
    }
  if (merge && range != NULL)
    {
      /* each file counts from its own start; one window on the merged axis is not that */
      fprintf (stderr, "sightline stats: --range is for one FILE; with --merge, run stats --range "
                       "on each file\n");
      return 2;
    }
  if (format_text != NULL && !sl_report_format_parse (format_text, &format))
    {
      fprintf (stderr, "sightline stats: unknown format '%s'; use column, csv or json\n", format_text);
      return 2;
    }
  gboolean all = FALSE;
  g_autoptr (GPtrArray) names = parse_reports (reports, &all, &error);
  if (names == NULL)
    {
      fprintf (stderr, "sightline stats: %s\n", error->message);
      return 2;
    }

  /* load only the tables the chosen reports read; a range counts from time 0, as `sightline info`
   * prints it: where a file has no session start, the first event of the whole trace, which only
   * loading every table gives */
  SlLoadFlags flags = 0;
  for (guint i = 0; i < names->len; i++)
    flags |= sl_report_needs (g_ptr_array_index (names, i));
  if (range != NULL)
    flags = SL_LOAD_ALL;
  g_autoptr (SlTrace) trace = NULL;
  g_autoptr (GPtrArray) ranks = NULL;
  g_auto (GStrv) labels = NULL;
  if (merge)
    {
      ranks = sl_trace_load_each ((const char *const *) files, g_strv_length (files), flags, NULL,
                                  NULL, NULL, &error);
      if (ranks == NULL)
        {
          /* the loader's message names the file */
          fprintf (stderr, "sightline stats: %s\n", error->message);
          return 1;
        }
      labels = sl_trace_rank_labels ((SlTrace *const *) ranks->pdata, ranks->len);
      trace = sl_trace_ref (g_ptr_array_index (ranks, 0));
    }
  else
    trace = sl_trace_load (files[0], flags, NULL, NULL, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "sightline stats: cannot load %s: %s\n", files[0], error->message);
      return 1;
    }
  SlTime t0 = G_MININT64, t1 = G_MAXINT64;
  if (range != NULL && !sl_range_parse (range, trace, &t0, &t1, &error))
    {
      fprintf (stderr, "sightline stats: %s: --range: %s\n", files[0], error->message);
      return 2;
    }

  g_autoptr (GString) out = g_string_new (NULL);
  gboolean several = names->len > 1;
  guint written = 0;
  guint shown = 0;  /* reports written or said skipped */

  /* JSON: one array for one report; an object of arrays keyed by report name for several */
  if (format == SL_REPORT_FORMAT_JSON && several)
    g_string_append (out, "{\n");
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autoptr (GError) report_error = NULL;
      g_autoptr (SlReport) report =
          merge ? sl_report_compute_ranks ((SlTrace *const *) ranks->pdata,
                                           (const char *const *) labels, ranks->len, name,
                                           &report_error)
                : sl_report_compute_range (trace, name, t0, t1, &report_error);

      if (report == NULL && !g_error_matches (report_error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA))
        {
          fprintf (stderr, "sightline stats: %s: %s\n", name, report_error->message);
          return 1;
        }
      /* --report all: only the reports with rows */
      if (all && (report == NULL || sl_report_get_n_rows (report) == 0))
        continue;
      switch (format)
        {
        case SL_REPORT_FORMAT_COLUMN:
          /* like nsys's console: the skip message stands where the table would */
          if (report == NULL)
            g_string_append_printf (out, "** %s (%s):\n\nSKIPPED: %s\n\n", sl_report_name_get_title (name),
                                    name, report_error->message);
          else
            sl_report_write (report, format, out);
          break;
        case SL_REPORT_FORMAT_CSV:
          if (report == NULL)
            {
              fprintf (stderr, "SKIPPED: %s\n", report_error->message);
              break;
            }
          if (written > 0)
            g_string_append_c (out, '\n');
          sl_report_write (report, format, out);
          break;
        case SL_REPORT_FORMAT_JSON:
          if (report == NULL)
            fprintf (stderr, "SKIPPED: %s\n", report_error->message);
          if (several)
            {
              g_string_append_printf (out, "%s\"%s\": ", shown > 0 ? ",\n" : "", name);
              if (report == NULL)
                g_string_append (out, "null");
              else
                {
                  sl_report_write (report, format, out);
                  if (out->len > 0 && out->str[out->len - 1] == '\n')
                    g_string_truncate (out, out->len - 1);
                }
            }
          else if (report != NULL)
            sl_report_write (report, format, out);
          break;
        }
      if (report != NULL)
        written++;
      shown++;
    }
  if (format == SL_REPORT_FORMAT_JSON && several)
    g_string_append (out, "\n}\n");

  if (output != NULL)
    {
      if (!g_file_set_contents (output, out->str, (gssize) out->len, &error))
        {
          fprintf (stderr, "sightline stats: cannot write %s: %s\n", output, error->message);
          return 1;
        }
    }
  else if (out->len > 0 && fwrite (out->str, 1, out->len, stdout) != out->len)
    {
      fprintf (stderr, "sightline stats: cannot write to standard output\n");
      return 1;
    }
  return 0;
}
