/* sl-diff.c: two traces compared by a summary report, their figures and their findings.
 *
 * The rows come from the stats reports themselves (a report per side, then a join by name: a
 * few thousand names at most, against the 10^7 events the reports walk), so a diff agrees with
 * `sightline stats` on each side.  The table is itself an SlReport, so that it is written as
 * `stats` writes its tables; the figures are sl-summaries.c's, the findings sl_analyze's. */
#include "sl-diff.h"

#include <math.h>
#include <string.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "sl-format.h"
#include "sl-stats-private.h"
#include "sl-trace-private.h"

static const char *const diff_reports[] = {
  "cuda_gpu_kern_sum", "cuda_api_sum", "nvtx_sum", "osrt_sum", NULL
};

static const _SlColumn diff_columns[] = {
  { "Name", SL_UNIT_NONE },
  { "Instances A", SL_UNIT_NONE },
  { "Instances B", SL_UNIT_NONE },
  { "Total Time A (ns)", SL_UNIT_DUR_NS },
  { "Total Time B (ns)", SL_UNIT_DUR_NS },
  { "Delta (ns)", SL_UNIT_DUR_NS },
  { "Delta (%)", SL_UNIT_RATIO },
};

/* The column format's: the name last, unpadded, as `stats` prints kernel names (hundreds of
 * characters) */
static const _SlColumn diff_columns_name_last[] = {
  { "Instances A", SL_UNIT_NONE },
  { "Instances B", SL_UNIT_NONE },
  { "Total Time A (ns)", SL_UNIT_DUR_NS },
  { "Total Time B (ns)", SL_UNIT_DUR_NS },
  { "Delta (ns)", SL_UNIT_DUR_NS },
  { "Delta (%)", SL_UNIT_RATIO },
  { "Name", SL_UNIT_NONE },
};

enum
{
  COL_NAME,
  COL_INSTANCES_A,
  COL_INSTANCES_B,
  COL_TOTAL_A,
  COL_TOTAL_B,
  COL_DELTA,
  COL_DELTA_PCT,
};

const char *const *
sl_diff_report_names (void)
{
  return diff_reports;
}

gboolean
sl_diff_report_is_valid (const char *name)
{
  return name != NULL && g_strv_contains (diff_reports, name);
}

gboolean
sl_diff_format_parse (const char   *text,
                      SlDiffFormat *format)
{
  SlReportFormat f;

  g_return_val_if_fail (format != NULL, FALSE);
  /* the names `stats --format` takes */
  if (!sl_report_format_parse (text, &f))
    return FALSE;
  *format = f == SL_REPORT_FORMAT_CSV    ? SL_DIFF_CSV
            : f == SL_REPORT_FORMAT_JSON ? SL_DIFF_JSON
                                         : SL_DIFF_COLUMN;
  return TRUE;
}

/* ---- one side ---------------------------------------------------------------------------- */

/* One side: its report, figures and findings, computed on the thread that loaded it. */
struct _SlDiffInput
{
  SlTrace       *trace;     /* a reference */
  char          *report;
  SlReport      *rows;      /* NULL when the trace lacks the report's data */
  GError        *error;     /* why rows is NULL */
  SlRankSummary  figures;
  SlAnalysis    *analysis;  /* NULL when the analysis failed (not for the default rules) */
};

static gboolean
check_report (const char  *report,
              GError     **error)
{
  if (sl_diff_report_is_valid (report))
    return TRUE;
  g_autofree char *valid = g_strjoinv (", ", (char **) diff_reports);
  g_set_error (error, SL_STATS_ERROR, SL_STATS_ERROR_UNKNOWN_REPORT,
               "unknown report '%s'; a diff compares one of: %s",
               report != NULL ? report : "(null)", valid);
  return FALSE;
}

SlDiffInput *
sl_diff_input_new (SlTrace     *trace,
                   const char  *report,
                   GError     **error)
{
  g_return_val_if_fail (trace != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_report (report, error))
    return NULL;

  SlDiffInput *s = g_new0 (SlDiffInput, 1);
  g_autoptr (SlAnalyzeParams) params = sl_analyze_params_new ();
  s->trace = sl_trace_ref (trace);
  s->report = g_strdup (report);
  s->rows = sl_report_compute (trace, report, &s->error);
  s->analysis = sl_analyze (trace, NULL, params, NULL);
  sl_rank_summary_compute (&s->figures, trace, s->analysis);
  return s;
}

SlDiffInput *
sl_diff_input_load (const char  *path,
                    const char  *report,
                    GError     **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_report (report, error))
    return NULL;
  /* every table: the analysis reads them all; no malloc_trim here (sl_diff_join does it once):
   * trimming holds the allocator's locks for tens of ms, which the other side's thread would
   * wait on, and glibc's first trim is not safe from two threads at once */
  g_autoptr (SlTrace) trace = _sl_trace_load_file (path, SL_LOAD_ALL, FALSE, NULL, NULL, NULL,
                                                   error);
  if (trace == NULL)
    return NULL;
  return sl_diff_input_new (trace, report, error);
}

gboolean
sl_diff_input_set_report (SlDiffInput  *input,
                          const char   *report,
                          GError      **error)
{
  g_return_val_if_fail (input != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_report (report, error))
    return FALSE;
  g_free (input->report);
  input->report = g_strdup (report);
  g_clear_pointer (&input->rows, sl_report_free);
  g_clear_error (&input->error);
  input->rows = sl_report_compute (input->trace, report, &input->error);
  return TRUE;
}

void
sl_diff_input_free (SlDiffInput *s)
{
  if (s == NULL)
    return;
  sl_trace_unref (s->trace);
  g_free (s->report);
  sl_report_free (s->rows);
  g_clear_error (&s->error);
  sl_analysis_free (s->analysis);
  sl_rank_summary_clear (&s->figures);
  g_free (s);
}

/* ---- the rows ---------------------------------------------------------------------------- */

typedef struct
{
  const char *name;     /* in the table's string chunk */
  gint64      n[2];
  gint64      total[2];
  gboolean    in[2];
} Row;

static gint64
cell_int (const SlCell *c)
{
  if (c->type == SL_CELL_INT)
    return c->v.i;
  if (c->type == SL_CELL_DOUBLE && isfinite (c->v.d))
    return (gint64) llround (c->v.d);
  return 0;
}

/* Adds a side's report to the rows by name (nvtx_sum has a row per range and style: they add
 * up under the range's name). */
static void
join_side (SlReport   *table,
           GHashTable *by_name,
           GPtrArray  *rows,
           SlReport   *report,
           guint       side)
{
  gint name = sl_report_find_column (report, "Name");
  gint count = sl_report_find_column (report, "Instances");
  gint total = sl_report_find_column (report, "Total Time (ns)");

  if (name < 0)
    name = sl_report_find_column (report, "Range");
  if (count < 0)
    count = sl_report_find_column (report, "Num Calls");
  g_assert (name >= 0 && count >= 0 && total >= 0);

  for (gsize i = 0; i < sl_report_get_n_rows (report); i++)
    {
      const SlCell *cn = sl_report_get_cell (report, i, name);
      const char *text = cn->type == SL_CELL_TEXT ? cn->v.s : "";
      Row *row = g_hash_table_lookup (by_name, text);
      if (row == NULL)
        {
          row = g_new0 (Row, 1);
          row->name = g_string_chunk_insert_const (table->strings, text);
          g_hash_table_insert (by_name, (gpointer) row->name, row);
          g_ptr_array_add (rows, row);
        }
      row->in[side] = TRUE;
      row->n[side] = _sl_time_add (row->n[side], cell_int (sl_report_get_cell (report, i, count)));
      row->total[side] = _sl_time_add (row->total[side],
                                       cell_int (sl_report_get_cell (report, i, total)));
    }
}

static gint
by_delta_then_name (gconstpointer a,
                    gconstpointer b)
{
  const Row *x = *(const Row *const *) a, *y = *(const Row *const *) b;
  gint64 dx = ABS (x->total[1] - x->total[0]), dy = ABS (y->total[1] - y->total[0]);

  if (dx != dy)
    return dx > dy ? -1 : 1;
  return strcmp (x->name, y->name);
}

static SlReport *
make_table (const char *report,
            SlReport   *a,
            SlReport   *b)
{
  const _SlReportInfo info = { .name = report, .columns = diff_columns,
                               .n_columns = G_N_ELEMENTS (diff_columns) };
  SlReport *table = _sl_report_new (NULL, &info); /* names copied: the table outlives the traces */
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *title = g_strdup_printf ("%s, B against A", sl_report_name_get_title (report));

  table->title = g_string_chunk_insert (table->strings, title);
  if (a != NULL)
    join_side (table, by_name, rows, a, 0);
  if (b != NULL)
    join_side (table, by_name, rows, b, 1);
  g_ptr_array_sort (rows, by_delta_then_name);
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *row = g_ptr_array_index (rows, i);
      gint64 delta = row->total[1] - row->total[0];
      _sl_report_add_text (table, row->name);
      _sl_report_add_int (table, row->n[0]);
      _sl_report_add_int (table, row->n[1]);
      _sl_report_add_int (table, row->total[0]);
      _sl_report_add_int (table, row->total[1]);
      _sl_report_add_int (table, delta);
      if (row->in[0] && row->total[0] != 0)
        _sl_report_add_double (table, sl_stats_round (100.0 * (double) delta
                                                      / (double) row->total[0], 1));
      else
        _sl_report_add_null (table);
    }
  return table;
}

/* The table with its name column last, for the column format. */
static SlReport *
name_last (const SlReport *table)
{
  const _SlReportInfo info = { .name = table->name, .columns = diff_columns_name_last,
                               .n_columns = G_N_ELEMENTS (diff_columns_name_last) };
  SlReport *r = _sl_report_new (table->trace, &info);

  r->title = table->title;
  for (gsize row = 0; row < sl_report_get_n_rows (table); row++)
    {
      for (guint c = COL_INSTANCES_A; c <= COL_DELTA_PCT; c++)
        g_array_append_val (r->cells, *sl_report_get_cell (table, row, c));
      g_array_append_val (r->cells, *sl_report_get_cell (table, row, COL_NAME));
    }
  return r;
}

/* ---- the findings ------------------------------------------------------------------------ */

static gboolean
is_unit (const char *p,
         gsize      *len)
{
  static const char *const units[] = { "ns", "µs", "us", "ms", "min", "s", "%", "×" };

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    {
      gsize n = strlen (units[i]);
      if (strncmp (p, units[i], n) == 0 && !g_ascii_isalnum (p[n]))
        {
          *len = n;
          return TRUE;
        }
    }
  return FALSE;
}

/* What a finding is compared by across runs: its cause where its rule gives one, else its
 * summary, with the figures ("612.000 ms", "85%", pids) as '#' since they change from run to run;
 * the numbers that name a place ("GPU 0", "Stream 7") are kept. */
static char *
finding_subject (const SlFinding *f)
{
  const char *text = f->cause != NULL ? f->cause : f->summary != NULL ? f->summary : "";
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0';)
    {
      if (!g_ascii_isdigit (*p)
          || (out->len > 0 && (g_ascii_isalnum (out->str[out->len - 1])
                               || out->str[out->len - 1] == '_')))
        {
          g_string_append_c (out, *p++);
          continue;
        }
      gsize start = out->len;
      while (*p != '\0' && (g_ascii_isdigit (*p) || *p == '.' || *p == ','))
        g_string_append_c (out, *p++);
      if (g_str_has_suffix (out->str, ",") || g_str_has_suffix (out->str, "."))
        {
          g_string_truncate (out, out->len - 1);
          p--;
        }
      gboolean place = (start >= 4 && strncmp (out->str + start - 4, "GPU ", 4) == 0)
                       || (start >= 7 && strncmp (out->str + start - 7, "Stream ", 7) == 0);
      if (place)
        continue;
      g_string_truncate (out, start);
      g_string_append_c (out, '#');
      gsize unit = 0;
      const char *q = *p == ' ' ? p + 1 : p;
      if (is_unit (q, &unit))
        p = q + unit;
    }
  return g_string_free (out, FALSE);
}

static void
diff_finding_free (gpointer data)
{
  SlDiffFinding *f = data;

  g_free (f->summary);
  g_free (f->subject);
  g_free (f);
}

/* The findings of `of` beyond those `other` has with the same rule and subject: the k-th
 * finding with a key is new when `other` has k or fewer of it.  Keeps `of`'s order (most costly
 * first). */
static GPtrArray *
findings_beyond (const SlAnalysis *of,
                 const SlAnalysis *other)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (diff_finding_free);
  g_autoptr (GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  if (of == NULL)
    return out;
  for (guint i = 0; other != NULL && i < other->findings->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (other->findings, i);
      g_autofree char *subject = finding_subject (f);
      char *key = g_strconcat (f->rule->name, "\n", subject, NULL);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, key));
      g_hash_table_insert (counts, key, GUINT_TO_POINTER (n + 1));
    }
  for (guint i = 0; i < of->findings->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (of->findings, i);
      g_autofree char *subject = finding_subject (f);
      g_autofree char *key = g_strconcat (f->rule->name, "\n", subject, NULL);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, key));
      if (n > 0)
        {
          /* matched: one fewer of that key left in `other` */
          g_hash_table_insert (counts, g_steal_pointer (&key), GUINT_TO_POINTER (n - 1));
          continue;
        }
      SlDiffFinding *d = g_new0 (SlDiffFinding, 1);
      d->rule = f->rule->name;
      d->title = f->rule->title;
      d->summary = g_strdup (f->summary != NULL ? f->summary : "");
      d->subject = g_steal_pointer (&subject);
      d->cost = f->cost;
      g_ptr_array_add (out, d);
    }
  return out;
}

/* ---- compute ----------------------------------------------------------------------------- */

static void
side_init (SlDiffSide        *d,
           const SlDiffInput *s)
{
  d->path = g_strdup (sl_trace_get_path (s->trace));
  d->no_data = s->rows == NULL && s->error != NULL ? g_strdup (s->error->message) : NULL;
  d->figures = s->figures;
  d->figures.source = g_strdup (s->figures.source);
  d->figures.trace = g_strdup (s->figures.trace);
  d->n_findings = s->analysis != NULL ? s->analysis->findings->len : 0;
}

SlDiff *
sl_diff_join (const SlDiffInput  *a,
              const SlDiffInput  *b,
              GError            **error)
{
  const SlDiffInput *sides[2] = { a, b };

  g_return_val_if_fail (a != NULL && b != NULL, NULL);
  g_return_val_if_fail (strcmp (a->report, b->report) == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* an error other than a lack of data is the caller's to see */
  for (guint i = 0; i < 2; i++)
    if (sides[i]->rows == NULL
        && !g_error_matches (sides[i]->error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA))
      {
        g_propagate_error (error, g_error_copy (sides[i]->error));
        return NULL;
      }
  if (a->rows == NULL && b->rows == NULL)
    {
      g_set_error (error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA, "%s %s", a->error->message,
                   b->error->message);
      return NULL;
    }

#ifdef __GLIBC__
  /* what the loads of sl_diff_input_load freed goes back to the system, once for both */
  malloc_trim (0);
#endif
  SlDiff *diff = g_new0 (SlDiff, 1);
  diff->report = g_strdup (a->report);
  diff->table = make_table (a->report, a->rows, b->rows);
  side_init (&diff->a, a);
  side_init (&diff->b, b);
  diff->new_findings = findings_beyond (b->analysis, a->analysis);
  diff->gone_findings = findings_beyond (a->analysis, b->analysis);
  return diff;
}

typedef struct
{
  SlTrace     *trace;
  const char  *report;
  SlDiffInput *input;
} InputJob;

static gpointer
input_cb (gpointer data)
{
  InputJob *job = data;

  job->input = sl_diff_input_new (job->trace, job->report, NULL);
  return NULL;
}

SlDiff *
sl_diff_compute (SlTrace     *a,
                 SlTrace     *b,
                 const char  *report,
                 GError     **error)
{
  InputJob jobs[2] = { { .trace = a, .report = report }, { .trace = b, .report = report } };

  g_return_val_if_fail (a != NULL && b != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_report (report, error))
    return NULL;

  /* each side walks its own trace (its report, the analysis): B on a second thread; a trace
   * against itself one side after the other, since both would build its lazy indexes at once */
  if (a != b)
    {
      GThread *thread = g_thread_new ("sl-diff-b", input_cb, &jobs[1]);
      input_cb (&jobs[0]);
      g_thread_join (thread);
    }
  else
    {
      input_cb (&jobs[0]);
      input_cb (&jobs[1]);
    }

  SlDiff *diff = sl_diff_join (jobs[0].input, jobs[1].input, error);
  sl_diff_input_free (jobs[0].input);
  sl_diff_input_free (jobs[1].input);
  return diff;
}

void
sl_diff_free (SlDiff *diff)
{
  if (diff == NULL)
    return;
  g_free (diff->report);
  sl_report_free (diff->table);
  for (guint i = 0; i < 2; i++)
    {
      SlDiffSide *s = i == 0 ? &diff->a : &diff->b;
      g_free (s->path);
      g_free (s->no_data);
      sl_rank_summary_clear (&s->figures);
    }
  g_ptr_array_unref (diff->new_findings);
  g_ptr_array_unref (diff->gone_findings);
  g_free (diff);
}

/* ---- output ------------------------------------------------------------------------------ */

static char *
duration_or_dash (SlTime ns)
{
  return ns >= 0 ? sl_format_duration (ns) : g_strdup ("—");
}

/* "(+30.000 ms, +25.0%)" for b against a; "" when either is unknown. */
static char *
time_change (SlTime a,
             SlTime b)
{
  if (a < 0 || b < 0)
    return g_strdup ("");
  g_autofree char *d = sl_format_offset (b - a);
  if (a == 0)
    return g_strdup_printf ("  (%s)", d);
  double pct = 100.0 * (double) (b - a) / (double) a;
  /* no "-0.0%" for a change too small to show */
  return g_strdup_printf ("  (%s, %+.1f%%)", d, fabs (pct) < 0.05 ? 0.0 : pct);
}

static char *
util_text (double u)
{
  return isfinite (u) ? g_strdup_printf ("%.1f%%", 100.0 * u) : g_strdup ("—");
}

static void
write_findings_text (GString    *out,
                     const char *head,
                     GPtrArray  *findings)
{
  if (findings->len == 0)
    return;
  g_string_append_printf (out, "  %s:\n", head);
  for (guint i = 0; i < findings->len; i++)
    {
      const SlDiffFinding *f = g_ptr_array_index (findings, i);
      g_string_append_printf (out, "    [%s] %s\n", f->rule, f->summary);
    }
}

void
sl_diff_write_summary (const SlDiff *d,
                       GString      *out)
{
  const SlRankSummary *a = &d->a.figures, *b = &d->b.figures;

  g_string_append_printf (out, "** Summary, B against A:\n\n  A: %s\n  B: %s\n", d->a.path,
                          d->b.path);
  if (d->a.no_data != NULL)
    g_string_append_printf (out, "  A has no rows: %s\n", d->a.no_data);
  if (d->b.no_data != NULL)
    g_string_append_printf (out, "  B has no rows: %s\n", d->b.no_data);
  g_string_append_c (out, '\n');
  {
    g_autofree char *sa = duration_or_dash (a->span), *sb = duration_or_dash (b->span);
    g_autofree char *ch = time_change (a->span, b->span);
    g_string_append_printf (out, "  Span             %s → %s%s\n", sa, sb, ch);
  }
  {
    g_autofree char *ua = util_text (a->gpu_util), *ub = util_text (b->gpu_util);
    g_string_append_printf (out, "  GPU utilization  %s → %s", ua, ub);
    if (isfinite (a->gpu_util) && isfinite (b->gpu_util))
      g_string_append_printf (out, "  (%+.1f points)", 100.0 * (b->gpu_util - a->gpu_util));
    g_string_append_c (out, '\n');
  }
  if (a->steps > 0 || b->steps > 0)
    {
      g_autofree char *sa = duration_or_dash (a->step), *sb = duration_or_dash (b->step);
      g_autofree char *ch = time_change (a->step, b->step);
      g_string_append_printf (out, "  Steps            %u → %u\n", a->steps, b->steps);
      g_string_append_printf (out, "  Median step      %s → %s%s\n", sa, sb, ch);
    }
  g_string_append_printf (out, "  Findings         %u → %u: %u new in B, %u gone from B\n",
                          d->a.n_findings, d->b.n_findings, d->new_findings->len,
                          d->gone_findings->len);
  write_findings_text (out, "New in B", d->new_findings);
  write_findings_text (out, "Gone from B", d->gone_findings);
}

static void
json_double (GString *out,
             double   v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isfinite (v))
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.6g", v));
  else
    g_string_append (out, "null");
}

static void
json_time_or_null (GString *out,
                   SlTime   ns)
{
  if (ns >= 0)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, ns);
  else
    g_string_append (out, "null");
}

static void
json_side (GString          *out,
           const SlDiffSide *s)
{
  const SlRankSummary *f = &s->figures;

  g_string_append (out, "{\"trace\": ");
  sl_json_append_string (out, s->path);
  g_string_append_printf (out, ", \"span_ns\": %" G_GINT64_FORMAT ", \"gpus\": %u, "
                          "\"gpu_time_ns\": %" G_GINT64_FORMAT ", \"gpu_utilization\": ",
                          f->span, f->gpus, f->gpu_time);
  json_double (out, f->gpu_util);
  g_string_append_printf (out, ", \"steps\": %u, \"step_ns\": ", f->steps);
  json_time_or_null (out, f->step);
  g_string_append_printf (out, ", \"findings\": %u, \"no_data\": ", s->n_findings);
  if (s->no_data != NULL)
    sl_json_append_string (out, s->no_data);
  else
    g_string_append (out, "null");
  g_string_append_c (out, '}');
}

static void
json_findings (GString   *out,
               GPtrArray *findings)
{
  g_string_append_c (out, '[');
  for (guint i = 0; i < findings->len; i++)
    {
      const SlDiffFinding *f = g_ptr_array_index (findings, i);
      g_string_append (out, i > 0 ? ",\n      {\"rule\": " : "\n      {\"rule\": ");
      sl_json_append_string (out, f->rule);
      g_string_append (out, ", \"title\": ");
      sl_json_append_string (out, f->title);
      g_string_append (out, ", \"summary\": ");
      sl_json_append_string (out, f->summary);
      g_string_append (out, ", \"subject\": ");
      sl_json_append_string (out, f->subject);
      g_string_append_printf (out, ", \"cost_ns\": %" G_GINT64_FORMAT "}", f->cost);
    }
  g_string_append (out, findings->len > 0 ? "\n    ]" : "]");
}

static void
write_json (const SlDiff *d,
            GString      *out)
{
  const SlRankSummary *a = &d->a.figures, *b = &d->b.figures;

  g_string_append (out, "{\n  \"report\": ");
  sl_json_append_string (out, d->report);
  g_string_append (out, ",\n  \"a\": ");
  sl_json_append_string (out, d->a.path);
  g_string_append (out, ",\n  \"b\": ");
  sl_json_append_string (out, d->b.path);
  g_string_append (out, ",\n  \"rows\": ");
  sl_report_write (d->table, SL_REPORT_FORMAT_JSON, out);
  if (out->len > 0 && out->str[out->len - 1] == '\n')
    g_string_truncate (out, out->len - 1);
  g_string_append (out, ",\n  \"summary\": {\n    \"a\": ");
  json_side (out, &d->a);
  g_string_append (out, ",\n    \"b\": ");
  json_side (out, &d->b);
  g_string_append_printf (out, ",\n    \"span_delta_ns\": %" G_GINT64_FORMAT, b->span - a->span);
  g_string_append (out, ",\n    \"gpu_utilization_delta\": ");
  json_double (out, b->gpu_util - a->gpu_util);
  g_string_append (out, ",\n    \"step_delta_ns\": ");
  if (a->step >= 0 && b->step >= 0)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, b->step - a->step);
  else
    g_string_append (out, "null");
  g_string_append (out, ",\n    \"new_findings\": ");
  json_findings (out, d->new_findings);
  g_string_append (out, ",\n    \"gone_findings\": ");
  json_findings (out, d->gone_findings);
  g_string_append (out, "\n  }\n}\n");
}

void
sl_diff_write (const SlDiff *diff,
               SlDiffFormat  format,
               GString      *out)
{
  g_return_if_fail (diff != NULL && out != NULL);

  switch (format)
    {
    case SL_DIFF_COLUMN:
      {
        /* its text cells point into diff->table's strings */
        g_autoptr (SlReport) shown = name_last (diff->table);
        sl_report_write (shown, SL_REPORT_FORMAT_COLUMN, out);
      }
      sl_diff_write_summary (diff, out);
      break;
    case SL_DIFF_CSV:
      sl_report_write (diff->table, SL_REPORT_FORMAT_CSV, out);
      break;
    case SL_DIFF_JSON:
      write_json (diff, out);
      break;
    }
}
