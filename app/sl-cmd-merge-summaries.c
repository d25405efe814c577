/* sl-cmd-merge-summaries.c: `sightline merge-summaries A.json B.json …`: reads the output of
 * `sightline analyze --format json` of every rank (made where the traces are, as a job step of
 * the cluster's scheduler) and ranks the ranks: slowest first, each against the median
 * (model/sl-summaries.c).  A file that is not such output is an error naming it; nothing is
 * printed then, so that a table never silently lacks a rank. */
#include "sl-cmd-merge-summaries.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sl-summaries.h"

#define SL_MERGE_ERROR (g_quark_from_static_string ("sl-merge-summaries"))

/* An integer member ≥ 0, or -1 for null or none (when `nullable`); FALSE with an error naming
 * the file and the member for anything else. */
static gboolean
member_int (JsonObject  *o,
            const char  *name,
            gboolean     nullable,
            const char  *path,
            gint64      *value,
            GError     **error)
{
  JsonNode *n = json_object_get_member (o, name);

  if ((n == NULL || JSON_NODE_HOLDS_NULL (n)) && nullable)
    {
      *value = -1;
      return TRUE;
    }
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64
      || json_node_get_int (n) < 0)
    {
      g_set_error (error, SL_MERGE_ERROR, 1, "%s: \"%s\" is %s, not a whole number%s", path, name,
                   n == NULL ? "missing" : "something else", nullable ? " or null" : " ≥ 0");
      return FALSE;
    }
  *value = json_node_get_int (n);
  return TRUE;
}

/* One rank's figures from its analyze JSON. */
static gboolean
read_summary (const char     *path,
              SlRankSummary  *s,
              GError        **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) why = NULL;
  gint64 gpus = 0, steps = 0;

  memset (s, 0, sizeof *s);
  s->source = g_strdup (path);
  s->rank = s->step = s->key = -1;
  s->deviation = s->deviation_pct = s->gpu_util = NAN;
  if (!json_parser_load_from_file (parser, path, &why))
    {
      g_set_error (error, SL_MERGE_ERROR, 1, "%s: not readable as JSON: %s", path, why->message);
      return FALSE;
    }
  JsonNode *root = json_parser_get_root (parser);
  JsonObject *o = root != NULL && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root)
                                                                : NULL;
  if (o == NULL || !json_object_has_member (o, "findings") || !json_object_has_member (o, "rules")
      || !JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "findings")))
    {
      g_set_error (error, SL_MERGE_ERROR, 1, "%s: not the output of `sightline analyze --format "
                                             "json` (no \"rules\" and \"findings\")", path);
      return FALSE;
    }
  JsonNode *sn = json_object_get_member (o, "summary");
  if (sn == NULL || !JSON_NODE_HOLDS_OBJECT (sn))
    {
      g_set_error (error, SL_MERGE_ERROR, 1, "%s: analyze output without a rank's figures (no "
                                             "\"summary\": made by an older sightline); run "
                                             "`sightline analyze --format json` on its trace again",
                   path);
      return FALSE;
    }
  JsonObject *sum = json_node_get_object (sn);
  JsonNode *file = json_object_get_member (o, "file");
  s->trace = g_strdup (file != NULL && JSON_NODE_HOLDS_VALUE (file)
                           && json_node_get_value_type (file) == G_TYPE_STRING
                         ? json_node_get_string (file)
                         : path);
  if (!member_int (o, "rank", TRUE, path, &s->rank, error)
      || !member_int (o, "world_size", TRUE, path, &s->world_size, error)
      || !member_int (sum, "span_ns", FALSE, path, &s->span, error)
      || !member_int (sum, "gpus", FALSE, path, &gpus, error)
      || !member_int (sum, "gpu_time_ns", FALSE, path, &s->gpu_time, error)
      || !member_int (sum, "steps", FALSE, path, &steps, error)
      || !member_int (sum, "step_ns", TRUE, path, &s->step, error))
    return FALSE;
  s->gpus = (guint) MIN (gpus, G_MAXUINT);
  s->steps = (guint) MIN (steps, G_MAXUINT);
  s->world_size = MAX (s->world_size, 0);
  s->gpu_util = s->gpus > 0 && s->span > 0 ? (double) s->gpu_time / ((double) s->span * s->gpus)
                                           : NAN;

  /* the findings by severity, from their costs (one rule for analyze's and ours) */
  JsonArray *findings = json_object_get_array_member (o, "findings");
  for (guint i = 0; i < json_array_get_length (findings); i++)
    {
      JsonNode *f = json_array_get_element (findings, i);
      gint64 cost = 0;
      g_autofree char *where = g_strdup_printf ("%s: finding %u", path, i + 1);
      if (!JSON_NODE_HOLDS_OBJECT (f)
          || !member_int (json_node_get_object (f), "cost_ns", FALSE, where, &cost, error))
        {
          if (error != NULL && *error == NULL)
            g_set_error (error, SL_MERGE_ERROR, 1, "%s is not an object", where);
          return FALSE;
        }
      s->findings[sl_severity_of (cost, s->span)]++;
    }
  return TRUE;
}

int
sl_cmd_merge_summaries (int    argc,
                        char **argv)
{
  g_auto (GStrv) files = NULL;
  g_autofree char *format_text = NULL;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_text,
      "Output format: column (default), csv or json", "FORMAT" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, "FILE…" },
    { NULL }
  };
  g_autoptr (GOptionContext) context
    = g_option_context_new ("A.json B.json … — rank the ranks of a distributed job");
  g_autoptr (GError) error = NULL;
  SlSummariesFormat format = SL_SUMMARIES_COLUMN;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (
      context,
      "Each FILE is the output of `sightline analyze --format json` of one rank's trace (run it\n"
      "where the traces are, e.g. as a job step: srun sightline analyze --format json\n"
      "rank-$SLURM_PROCID.sqlite > rank-$SLURM_PROCID.json).  Ranks are ordered slowest first:\n"
      "by the median training step (ProfilerStep#N or NVTX \"step\" ranges) where every rank has\n"
      "steps, else by the wall time analysed; each with its deviation from the ranks' median, its\n"
      "GPU time and utilization (GPUs that ran work) and its findings by severity (a finding's\n"
      "cost against the time analysed: high ≥ 10%, medium ≥ 1%, low below).");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "sightline merge-summaries: %s\n", error->message);
      return 2;
    }
  if (format_text == NULL || strcmp (format_text, "column") == 0)
    format = SL_SUMMARIES_COLUMN;
  else if (strcmp (format_text, "csv") == 0)
    format = SL_SUMMARIES_CSV;
  else if (strcmp (format_text, "json") == 0)
    format = SL_SUMMARIES_JSON;
  else
    {
      fprintf (stderr, "sightline merge-summaries: unknown format '%s'; use column, csv or json\n",
               format_text);
      return 2;
    }
  if (files == NULL || files[0] == NULL)
    {
      fprintf (stderr, "sightline merge-summaries: give the analyze JSON files of the ranks (see "
                       "`sightline merge-summaries --help`)\n");
      return 2;
    }

  g_autoptr (GArray) ranks = g_array_new (FALSE, TRUE, sizeof (SlRankSummary));
  g_array_set_clear_func (ranks, (GDestroyNotify) sl_rank_summary_clear);
  g_autoptr (GHashTable) by_rank = g_hash_table_new (g_int64_hash, g_int64_equal);
  int status = 0;
  for (guint i = 0; files[i] != NULL; i++)
    {
      SlRankSummary s;
      g_autoptr (GError) why = NULL;
      if (!read_summary (files[i], &s, &why))
        {
          fprintf (stderr, "sightline merge-summaries: %s\n", why->message);
          sl_rank_summary_clear (&s);
          status = 1;
          continue; /* every bad file is named, then nothing is printed */
        }
      g_array_append_val (ranks, s);
    }
  /* a rank given twice would count twice against the median */
  for (guint i = 0; i < ranks->len; i++)
    {
      SlRankSummary *s = &g_array_index (ranks, SlRankSummary, i);
      if (s->rank < 0)
        continue;
      const SlRankSummary *seen = g_hash_table_lookup (by_rank, &s->rank);
      if (seen != NULL)
        {
          fprintf (stderr, "sightline merge-summaries: %s and %s are both rank %" G_GINT64_FORMAT
                           "; give each rank once\n",
                   seen->source, s->source, s->rank);
          status = 1;
        }
      else
        g_hash_table_insert (by_rank, &s->rank, s);
    }
  if (status != 0)
    return status;

  const char *key = sl_summaries_rank (ranks);
  sl_summaries_write (ranks, key, format, stdout);
  return 0;
}
