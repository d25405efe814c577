/* sl-analyze-output.c: the findings of `sightline analyze` as text (most costly first, then a line
 * per rule) and as JSON for scripts. */
#include "sl-analyze-private.h"

#include <math.h>

#include "sl-format.h"
#include "sl-summaries.h"

/* A group in text lists this many of its instances. */
#define MAX_TEXT_INSTANCES 20

static char *
where_text (const SlFinding *f,
            SlTrace         *trace)
{
  g_autoptr (GString) s = g_string_new (NULL);

  if (f->gpu >= 0)
    g_string_append_printf (s, "GPU %d", f->gpu);
  if (f->stream != 0)
    g_string_append_printf (s, "%sstream %u", s->len ? ", " : "", f->stream);
  if (f->thread >= 0)
    {
      const SlThread *t = sl_trace_get_thread (trace, f->thread);
      g_string_append_printf (s, "%spid %u tid %u", s->len ? ", " : "", t->pid, t->tid);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* nsys's warnings and errors about the collection ("No CUDA events collected"), each distinct
 * one once with how often it came (a merged job repeats its ranks' warnings; nsys repeats one per
 * process). */
static void
diagnostics_text (GString *out,
                  SlTrace *trace)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n = sl_trace_get_n_diagnostics (trace);

  for (guint i = 0; i < n; i++)
    {
      const SlDiagnostic *d = sl_trace_get_diagnostic (trace, i);
      gpointer key;
      guint times;
      if (d->severity != SL_DIAGNOSTIC_WARNING && d->severity != SL_DIAGNOSTIC_ERROR)
        continue;
      key = GUINT_TO_POINTER ((d->text << 1 | (d->severity == SL_DIAGNOSTIC_ERROR)) + 1);
      if (!g_hash_table_contains (seen, key))
        g_array_append_val (order, i);
      times = GPOINTER_TO_UINT (g_hash_table_lookup (seen, key)) + 1;
      g_hash_table_insert (seen, key, GUINT_TO_POINTER (times));
    }
  if (order->len > 0)
    g_string_append (out, "\nnsys diagnostics (warnings and errors):\n");
  for (guint k = 0; k < order->len; k++)
    {
      const SlDiagnostic *d = sl_trace_get_diagnostic (trace, g_array_index (order, guint, k));
      gpointer key = GUINT_TO_POINTER ((d->text << 1 | (d->severity == SL_DIAGNOSTIC_ERROR)) + 1);
      guint times = GPOINTER_TO_UINT (g_hash_table_lookup (seen, key));
      g_auto (GStrv) lines = g_strsplit (sl_trace_str (trace, d->text), "\n", -1);
      g_string_append_printf (out, "  %-8s", sl_diagnostic_severity_name (d->severity));
      for (guint i = 0; lines[i] != NULL; i++)
        {
          g_strstrip (lines[i]);
          g_string_append_printf (out, "%s%s", i > 0 ? "           " : " ", lines[i]);
          if (lines[i + 1] == NULL && times > 1)
            g_string_append_printf (out, " (%u times)", times);
          g_string_append_c (out, '\n');
        }
    }
}

char *
sl_analysis_to_text (const SlAnalysis *analysis,
                     SlTrace          *trace)
{
  g_autoptr (GString) out = g_string_new (NULL);
  SlTime t0 = sl_trace_get_origin (trace);

  g_return_val_if_fail (analysis != NULL, NULL);
  if (analysis->t1 > analysis->t0)
    {
      g_autofree char *a = sl_format_offset (analysis->t0 - t0);
      g_autofree char *b = sl_format_offset (analysis->t1 - t0);
      g_string_append_printf (out, "In %s … %s of the trace:\n", a, b);
    }
  if (analysis->lacks != NULL)
    g_string_append_printf (out, "The trace has %s.\n", analysis->lacks);
  if (analysis->findings->len == 0)
    g_string_append (out, analysis->lacks != NULL
                            ? "No findings: the rules need CUDA API calls and GPU activity.\n"
                            : "No findings: no rule found a problem.\n");
  else
    g_string_append_printf (out, analysis->findings->len == 1 ? "%u finding:\n"
                                                              : "%u findings, most costly first:\n",
                            analysis->findings->len);
  for (guint i = 0; i < analysis->findings->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (analysis->findings, i);
      g_autofree char *cost = sl_format_duration (f->cost);
      g_autofree char *a = sl_format_offset (f->start - t0), *b = sl_format_offset (f->end - t0);
      g_autofree char *where = where_text (f, trace);

      g_string_append_printf (out, "\n%u. [%s] %s\n", i + 1, f->rule->name, f->summary);
      g_string_append_printf (out, "   %-34s %s … %s%s%s\n", "When", a, b, *where ? ", " : "",
                              where);
      g_string_append_printf (out, "   %-34s %s%s\n", "Costs", cost,
                              f->idle_view ? " of GPU idle time (counted in no other finding)"
                                           : "");
      if (f->blame != NULL)
        {
          g_autofree char *d = sl_format_duration (f->blame->overlap);
          if (f->blame->kind == SL_BLAME_NONE)
            g_string_append_printf (out, "   %-34s %s\n", "Blame",
                                    "no single cause (nothing covers half of it)");
          else
            {
              const SlThread *t = sl_trace_get_thread (trace, f->blame->thread);
              g_string_append_printf (out, "   %-34s %s %s, %s (%s)\n", "Blame",
                                      sl_blame_kind_name (f->blame->kind),
                                      f->blame->kind == SL_BLAME_CUDA_API
                                        ? sl_trace_display_name (trace, SL_LANE_CUDA_API,
                                                                 f->blame->name_id)
                                        : f->blame->name,
                                      d,
                                      t->name != SL_NO_STR ? sl_trace_str (trace, t->name)
                                                           : "thread");
            }
        }
      for (guint k = 0; k < f->evidence->len; k++)
        {
          const SlEvidence *e = &g_array_index (f->evidence, SlEvidence, k);
          glong w = g_utf8_strlen (e->label, -1);
          g_string_append_printf (out, "   %s%*s %s\n", e->label, (int) MAX (34 - w, 0), "",
                                  e->text);
        }
      if (f->advice != NULL)
        g_string_append_printf (out, "   Advice: %s\n", f->advice);
      if (f->instances != NULL)
        {
          guint n = f->instances->len, shown = MIN (n, MAX_TEXT_INSTANCES);
          g_string_append_printf (out, "   Instances (%u, in time order):\n", n);
          for (guint k = 0; k < shown; k++)
            {
              const SlFinding *in = g_ptr_array_index (f->instances, k);
              g_autofree char *ia = sl_format_offset (in->start - t0);
              g_autofree char *ib = sl_format_offset (in->end - t0);
              g_autofree char *ic = sl_format_duration (in->cost);
              g_string_append_printf (out, "     %s … %s  %12s  %s\n", ia, ib, ic, in->summary);
            }
          if (shown < n)
            g_string_append_printf (out, "     … and %u more (--format json lists them all)\n",
                                    n - shown);
        }
    }

  diagnostics_text (out, trace);
  g_string_append (out, "\nRules:\n");
  for (guint i = 0; i < analysis->summaries->len; i++)
    {
      const SlRuleSummary *s = &g_array_index (analysis->summaries, SlRuleSummary, i);
      g_autofree char *cost = sl_format_duration (s->cost);
      g_string_append_printf (out, "  %-16s %4u finding%s, %12s   %s\n", s->rule->name,
                              s->n_findings, s->n_findings == 1 ? " " : "s", cost,
                              s->note != NULL ? s->note : "");
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void
json_number (GString *out,
             double   v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (v))
    g_string_append (out, "null");
  else if (v == floor (v) && fabs (v) < 9e15)
    g_string_append_printf (out, "%.0f", v);
  else
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

/* One finding as a JSON object; a group's instances under "instances", each as a finding. */
static void
json_finding (GString         *out,
              const SlFinding *f,
              SlTrace         *trace,
              const char      *indent)
{
  g_string_append (out, "{\"rule\": ");
  sl_json_append_string (out, f->rule->name);
  g_string_append_printf (out, ", \"start_ns\": %" G_GINT64_FORMAT ", \"end_ns\": %"
                          G_GINT64_FORMAT ", \"cost_ns\": %" G_GINT64_FORMAT, f->start, f->end,
                          f->cost);
  g_string_append (out, ", \"gpu\": ");
  if (f->gpu >= 0)
    g_string_append_printf (out, "%d", f->gpu);
  else
    g_string_append (out, "null");
  g_string_append (out, ", \"stream\": ");
  if (f->stream != 0)
    g_string_append_printf (out, "%u", f->stream);
  else
    g_string_append (out, "null");
  if (f->thread >= 0)
    {
      const SlThread *t = sl_trace_get_thread (trace, f->thread);
      g_string_append_printf (out, ", \"pid\": %u, \"tid\": %u", t->pid, t->tid);
    }
  else
    g_string_append (out, ", \"pid\": null, \"tid\": null");
  /* its file's rank (a merged trace's file is a rank) and that file's label: "rank 1" */
  {
    const SlSource *src = f->source >= 0 ? sl_trace_get_source (trace, (guint) f->source) : NULL;
    g_string_append (out, ", \"rank\": ");
    if (src != NULL && src->rank >= 0)
      g_string_append_printf (out, "%" G_GINT64_FORMAT, src->rank);
    else
      g_string_append (out, "null");
    g_string_append (out, ", \"rank_label\": ");
    if (src != NULL && sl_trace_get_n_sources (trace) > 1)
      sl_json_append_string (out, src->label);
    else
      g_string_append (out, "null");
  }
  g_string_append_printf (out, ", \"count\": %u", f->instances != NULL ? f->instances->len : 1);
  g_string_append_printf (out, ",\n%s\"summary\": ", indent);
  sl_json_append_string (out, f->summary);
  g_string_append_printf (out, ",\n%s\"cause\": ", indent);
  if (f->cause != NULL)
    sl_json_append_string (out, f->cause);
  else
    g_string_append (out, "null");
  g_string_append_printf (out, ",\n%s\"advice\": ", indent);
  sl_json_append_string (out, f->advice);
  g_string_append_printf (out, ",\n%s\"blame\": ", indent);
  if (f->blame == NULL)
    g_string_append (out, "null");
  else
    {
      g_string_append (out, "{\"kind\": ");
      sl_json_append_string (out, sl_blame_kind_name (f->blame->kind));
      g_string_append (out, ", \"name\": ");
      if (f->blame->name != NULL)
        sl_json_append_string (out, f->blame->name);
      else
        g_string_append (out, "null");
      if (f->blame->thread >= 0)
        g_string_append_printf (out, ", \"tid\": %u",
                                sl_trace_get_thread (trace, f->blame->thread)->tid);
      else
        g_string_append (out, ", \"tid\": null");
      g_string_append_printf (out, ", \"overlap_ns\": %" G_GINT64_FORMAT "}", f->blame->overlap);
    }
  {
    g_autoptr (GString) text = g_string_new (NULL);
    g_string_append_printf (out, ",\n%s\"evidence\": {", indent);
    /* a key "group.member" is a member of the object "group" (evidence keyed by the trace's
     * own labels: migration_ns_by_cause.Page fault); a group's members follow each other */
    g_autofree char *group = NULL;
    for (guint k = 0; k < f->evidence->len; k++)
      {
        const SlEvidence *e = &g_array_index (f->evidence, SlEvidence, k);
        const char *dot = strchr (e->key, '.');
        gsize len = dot != NULL ? (gsize) (dot - e->key) : 0;
        gboolean same = group != NULL && dot != NULL && strlen (group) == len
                        && strncmp (e->key, group, len) == 0;
        if (group != NULL && !same)
          {
            g_string_append_c (out, '}');
            g_clear_pointer (&group, g_free);
          }
        if (dot != NULL && !same)
          {
            group = g_strndup (e->key, len);
            g_string_append (out, k ? ", " : "");
            sl_json_append_string (out, group);
            g_string_append (out, ": {");
          }
        else
          g_string_append (out, k ? ", " : "");
        sl_json_append_string (out, dot != NULL ? dot + 1 : e->key);
        g_string_append (out, ": ");
        json_number (out, e->value);
        g_string_append (text, k ? ", [" : "[");
        sl_json_append_string (text, e->label);
        g_string_append (text, ", ");
        sl_json_append_string (text, e->text);
        g_string_append (text, "]");
      }
    if (group != NULL)
      g_string_append_c (out, '}');
    g_string_append_printf (out, "},\n%s\"evidence_text\": [%s]", indent, text->str);
  }
  g_string_append_printf (out, ",\n%s\"instances\": [", indent);
  if (f->instances != NULL)
    {
      g_autofree char *deeper = g_strconcat (indent, "  ", NULL);
      for (guint k = 0; k < f->instances->len; k++)
        {
          g_string_append_printf (out, "%s\n%s", k ? "," : "", deeper);
          json_finding (out, g_ptr_array_index (f->instances, k), trace, deeper);
        }
    }
  g_string_append (out, "]}");
}

char *
sl_analysis_to_json (const SlAnalysis *analysis,
                     SlTrace          *trace)
{
  g_autoptr (GString) out = g_string_new ("{\n  \"file\": ");
  SlTime t0 = sl_trace_get_start (trace);

  g_return_val_if_fail (analysis != NULL, NULL);
  sl_json_append_string (out, sl_trace_get_path (trace));
  g_string_append_printf (out, ",\n  \"start_ns\": %" G_GINT64_FORMAT, t0);
  {
    /* the rank's figures, for `sightline merge-summaries` (sl-summaries.h) */
    SlRankSummary s;
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    sl_rank_summary_compute (&s, trace, analysis);
    g_string_append (out, ",\n  \"rank\": ");
    if (s.rank >= 0)
      g_string_append_printf (out, "%" G_GINT64_FORMAT, s.rank);
    else
      g_string_append (out, "null");
    g_string_append (out, ",\n  \"world_size\": ");
    if (s.world_size > 0)
      g_string_append_printf (out, "%" G_GINT64_FORMAT, s.world_size);
    else
      g_string_append (out, "null");
    g_string_append_printf (out, ",\n  \"summary\": {\"span_ns\": %" G_GINT64_FORMAT
                            ", \"gpus\": %u, \"gpu_time_ns\": %" G_GINT64_FORMAT
                            ", \"gpu_utilization\": %s, \"steps\": %u, \"step_ns\": ",
                            s.span, s.gpus, s.gpu_time,
                            isfinite (s.gpu_util) ? g_ascii_formatd (buf, sizeof buf, "%.6g",
                                                                     s.gpu_util)
                                                  : "null",
                            s.steps);
    if (s.step >= 0)
      g_string_append_printf (out, "%" G_GINT64_FORMAT, s.step);
    else
      g_string_append (out, "null");
    g_string_append_printf (out, ",\n              \"findings_by_severity\": {\"high\": %u, "
                            "\"medium\": %u, \"low\": %u}}",
                            s.findings[SL_SEVERITY_HIGH], s.findings[SL_SEVERITY_MEDIUM],
                            s.findings[SL_SEVERITY_LOW]);
    sl_rank_summary_clear (&s);
  }
  /* a window: its absolute times, as the findings' */
  if (analysis->t1 > analysis->t0)
    g_string_append_printf (out, ",\n  \"range_start_ns\": %" G_GINT64_FORMAT
                            ",\n  \"range_end_ns\": %" G_GINT64_FORMAT, analysis->t0,
                            analysis->t1);
  g_string_append (out, ",\n  \"lacks\": ");
  if (analysis->lacks != NULL)
    sl_json_append_string (out, analysis->lacks);
  else
    g_string_append (out, "null");
  g_string_append (out, ",\n  \"diagnostics\": [");
  for (guint i = 0; i < sl_trace_get_n_diagnostics (trace); i++)
    {
      const SlDiagnostic *d = sl_trace_get_diagnostic (trace, i);
      g_string_append_printf (out, "%s\n    {\"timestamp_ns\": %" G_GINT64_FORMAT
                              ", \"severity\": ", i ? "," : "", d->timestamp);
      sl_json_append_string (out, sl_diagnostic_severity_name (d->severity));
      g_string_append_printf (out, ", \"source\": %d, \"text\": ", d->source);
      sl_json_append_string (out, sl_trace_str (trace, d->text));
      g_string_append (out, "}");
    }
  g_string_append (out, sl_trace_get_n_diagnostics (trace) > 0 ? "\n  ]" : "]");
  /* each GPU's time: the one account the findings' idle time comes from */
  g_string_append (out, ",\n  \"gpus\": [");
  for (guint i = 0; i < analysis->gpu_times->len; i++)
    {
      const SlGpuTime *t = &g_array_index (analysis->gpu_times, SlGpuTime, i);
      g_string_append_printf (out, "%s\n    {\"device_id\": %u, \"start_ns\": %" G_GINT64_FORMAT
                              ", \"end_ns\": %" G_GINT64_FORMAT ", \"kernels_ns\": %"
                              G_GINT64_FORMAT ", \"copies_ns\": %" G_GINT64_FORMAT
                              ", \"sets_ns\": %" G_GINT64_FORMAT ", \"idle_ns\": %"
                              G_GINT64_FORMAT ", \"attributed_idle_ns\": %" G_GINT64_FORMAT
                              ", \"idle_by_cause_ns\": {", i ? "," : "", t->device_id, t->start,
                              t->end, t->kernels, t->copies, t->sets, t->idle, t->attributed);
      for (guint c = 0; c < SL_N_IDLE_CAUSES; c++)
        g_string_append_printf (out, "%s\"%s\": %" G_GINT64_FORMAT, c ? ", " : "",
                                _sl_idle_cause_name (c), t->idle_by_cause[c]);
      g_string_append (out, "}}");
    }
  g_string_append (out, analysis->gpu_times->len > 0 ? "\n  ]" : "]");
  g_string_append (out, ",\n  \"rules\": [");
  for (guint i = 0; i < analysis->summaries->len; i++)
    {
      const SlRuleSummary *s = &g_array_index (analysis->summaries, SlRuleSummary, i);
      g_string_append_printf (out, "%s\n    {\"name\": ", i ? "," : "");
      sl_json_append_string (out, s->rule->name);
      g_string_append (out, ", \"title\": ");
      sl_json_append_string (out, s->rule->title);
      g_string_append_printf (out, ", \"findings\": %u, \"cost_ns\": %" G_GINT64_FORMAT
                              ", \"note\": ", s->n_findings, s->cost);
      sl_json_append_string (out, s->note);
      g_string_append (out, "}");
    }
  g_string_append (out, "\n  ],\n  \"findings\": [");
  for (guint i = 0; i < analysis->findings->len; i++)
    {
      g_string_append (out, i ? ",\n    " : "\n    ");
      json_finding (out, g_ptr_array_index (analysis->findings, i), trace, "     ");
    }
  g_string_append (out, "\n  ]\n}\n");
  return g_string_free (g_steal_pointer (&out), FALSE);
}
