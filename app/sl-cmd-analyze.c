/* sl-cmd-analyze.c: `sightline analyze FILE`: runs the rules of sl-analyze over a trace and prints
 * the findings, most costly first, as text or JSON. */
#include "sl-cmd-analyze.h"

#include <stdio.h>
#include <string.h>

#include "sl-analyze.h"
#include "sl-range.h"
#include "sl-trace.h"

static void
list_rules (void)
{
  for (const SlRule *r = sl_analyze_rules (); r->name != NULL; r++)
    {
      printf ("%-16s %s\n", r->name, r->description);
      for (const SlRuleParam *p = r->params; p->name != NULL; p++)
        {
          g_autofree char *def = sl_analyze_param_format (p->kind, p->def);
          printf ("  %-14s %s (default %s)\n", p->name, p->help, def);
        }
    }
}

int
sl_cmd_analyze (int    argc,
                char **argv)
{
  g_auto (GStrv) rule_args = NULL, sets = NULL, files = NULL;
  g_autofree char *format = NULL, *output = NULL, *range = NULL;
  gboolean list = FALSE, merge = FALSE;
  gint limit = 0;
  const GOptionEntry entries[] = {
    { "rule", 'r', 0, G_OPTION_ARG_STRING_ARRAY, &rule_args, "Rules to run (default: all)",
      "NAME[,NAME…]" },
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Set a threshold, e.g. gpu_gaps.gap=2ms or gpu_util.threshold=70%", "RULE.PARAM=VALUE" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "Output format: text (default) or json",
      "FORMAT" },
    { "limit", 'n', 0, G_OPTION_ARG_INT, &limit,
      "Print at most N findings (the most costly; default all)", "N" },
    { "range", 0, 0, G_OPTION_ARG_STRING, &range,
      "Analyse only START:END, times from the time 0 that `sightline info` and the viewer count "
      "from (an nsys export's session start): 1.5s:2s, 250ms:300ms (bare numbers are "
      "nanoseconds); the events that start in it, GPU gaps and utilization clipped to it",
      "START:END" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE instead of standard output",
      "FILE" },
    { "list-rules", 0, 0, G_OPTION_ARG_NONE, &list, "List the rules and their thresholds", NULL },
    { "merge", 0, 0, G_OPTION_ARG_NONE, &merge,
      "The FILEs are one job's ranks: analyse them merged on one time axis (as sightline info "
      "--merge; the straggler rule compares them)", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("FILE — find the bottleneck");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlAnalyzeParams) params = sl_analyze_params_new ();
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  gboolean json = FALSE;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (
      context, "Findings are ordered by the time they cost; each has its time range, where it "
               "happens (GPU, stream, thread), the figures behind it and advice. `--list-rules` "
               "shows every rule and threshold.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "sightline analyze: %s\n", error->message);
      return 2;
    }
  if (list)
    {
      list_rules ();
      return 0;
    }
  if (files == NULL || files[0] == NULL || (files[1] != NULL && !merge))
    {
      fprintf (stderr, "sightline analyze: give exactly one trace FILE, or --merge and several "
                       "(see `sightline analyze --help`)\n");
      return 2;
    }
  if (format != NULL && strcmp (format, "json") == 0)
    json = TRUE;
  else if (format != NULL && strcmp (format, "text") != 0)
    {
      fprintf (stderr, "sightline analyze: unknown format '%s'; use text or json\n", format);
      return 2;
    }
  if (limit < 0)
    {
      fprintf (stderr, "sightline analyze: --limit must be 0 (all) or more\n");
      return 2;
    }
  for (char **s = sets; s != NULL && *s != NULL; s++)
    if (!sl_analyze_params_set (params, *s, &error))
      {
        fprintf (stderr, "sightline analyze: --set %s\n", error->message);
        return 2;
      }
  for (char **v = rule_args; v != NULL && *v != NULL; v++)
    {
      g_auto (GStrv) parts = g_strsplit (*v, ",", -1);
      for (char **p = parts; *p != NULL; p++)
        {
          char *name = g_strstrip (*p);
          if (*name == '\0')
            continue;
          if (sl_analyze_find_rule (name) == NULL)
            {
              fprintf (stderr, "sightline analyze: no rule named '%s' (see --list-rules)\n", name);
              return 2;
            }
          g_ptr_array_add (names, g_strdup (name));
        }
    }
  g_ptr_array_add (names, NULL);

  g_autoptr (SlTrace) trace =
      merge ? sl_trace_load_merged ((const char *const *) files, g_strv_length (files),
                                    SL_LOAD_ALL, NULL, NULL, NULL, NULL, &error)
            : sl_trace_load (files[0], SL_LOAD_ALL, NULL, NULL, NULL, &error);
  if (trace == NULL)
    {
      if (merge)
        fprintf (stderr, "sightline analyze: %s\n", error->message);
      else
        fprintf (stderr, "sightline analyze: cannot load %s: %s\n", files[0], error->message);
      return 1;
    }
  if (range != NULL)
    {
      SlTime t0, t1;
      if (!sl_range_parse (range, trace, &t0, &t1, &error))
        {
          fprintf (stderr, "sightline analyze: %s: --range: %s\n", files[0], error->message);
          return 2;
        }
      sl_analyze_params_set_range (params, t0, t1);
    }
  g_autoptr (SlAnalysis) analysis = sl_analyze (trace, (const char *const *) names->pdata, params,
                                                &error);
  if (analysis == NULL)
    {
      fprintf (stderr, "sightline analyze: %s\n", error->message);
      return 2;
    }
  if (limit > 0 && analysis->findings->len > (guint) limit)
    g_ptr_array_set_size (analysis->findings, limit);

  g_autofree char *text = json ? sl_analysis_to_json (analysis, trace)
                               : sl_analysis_to_text (analysis, trace);
  if (output != NULL)
    {
      if (!g_file_set_contents (output, text, -1, &error))
        {
          fprintf (stderr, "sightline analyze: %s\n", error->message);
          return 1;
        }
      return 0;
    }
  fputs (text, stdout);
  return 0;
}
