/* sl-summaries.c: a rank's figures from its trace, and many ranks ranked against their median.
 *
 * `analyze --format json` writes a rank's figures where the trace is (a job step on the
 * cluster, one per rank); `merge-summaries` reads those files (a few KiB each, hundreds or
 * thousands of them) on a desktop and orders the ranks here, slowest first. */
#include "sl-summaries.h"

#include <math.h>
#include <string.h>

#include "sl-format.h"
#include "sl-lane.h"
#include "sl-sort.h"
#include "sl-trace-private.h"
#include "sl-utilization.h"

SlSeverity
sl_severity_of (SlTime cost,
                SlTime span)
{
  if (span <= 0)
    return SL_SEVERITY_LOW;
  double share = (double) cost / (double) span;
  if (share >= SL_SEVERITY_HIGH_SHARE)
    return SL_SEVERITY_HIGH;
  if (share >= SL_SEVERITY_MEDIUM_SHARE)
    return SL_SEVERITY_MEDIUM;
  return SL_SEVERITY_LOW;
}

const char *
sl_severity_name (SlSeverity severity)
{
  static const char *const names[] = { "high", "medium", "low" };

  g_return_val_if_fail (severity < SL_N_SEVERITIES, "low");
  return names[severity];
}

void
sl_rank_summary_clear (SlRankSummary *s)
{
  g_clear_pointer (&s->source, g_free);
  g_clear_pointer (&s->trace, g_free);
}

/* ---- training steps ---------------------------------------------------------------------- */

enum
{
  STEP_UNKNOWN = 0, /* the string's class is not looked at yet */
  STEP_PROFILER,    /* "ProfilerStep#12" */
  STEP_NAMED,       /* "step 12", "train_step", "Iteration #3" */
  STEP_NONE,
};

static guint8
step_class (const char *name)
{
  static const char *const names[] = { "step", "train_step", "training_step", "iteration",
                                       "iter" };
  gsize len = strlen (name);

  if (g_str_has_prefix (name, "ProfilerStep#"))
    return STEP_PROFILER;
  /* a number after the word, with or without a separator */
  while (len > 0 && strchr ("0123456789 #_-:", name[len - 1]) != NULL)
    len--;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (len == strlen (names[i]) && g_ascii_strncasecmp (name, names[i], len) == 0)
      return STEP_NAMED;
  return STEP_NONE;
}

/* The number at the end of a step's name, -1 when none. */
static gint64
step_number (const char *name)
{
  gsize len = strlen (name), k = len;

  while (k > 0 && g_ascii_isdigit (name[k - 1]))
    k--;
  if (k == len || len - k > 15)
    return -1;
  return g_ascii_strtoll (name + k, NULL, 10);
}

static int
compare_step_start (gconstpointer a,
                    gconstpointer b)
{
  const SlStep *x = a, *y = b;

  return x->start < y->start ? -1 : x->start > y->start;
}

GArray *
sl_trace_steps (SlTrace        *trace,
                SlTime          t0,
                SlTime          t1,
                SlThreadFilter  keep,
                gpointer        data)
{
  /* a class per string id, looked at once: NVTX lanes of a Kineto trace hold every operator
   * (10^6 … 10^7 ranges) under a few thousand names */
  guint n_strs = sl_trace_get_n_strs (trace);
  g_autofree guint8 *cls = g_new0 (guint8, MAX (n_strs, 1));
  /* per thread and class: its steps */
  g_autoptr (GHashTable) by = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                     (GDestroyNotify) g_array_unref);
  GArray *best = NULL;
  guint best_class = STEP_NONE, best_key = 0;

  for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, l);
      if (lane->kind != SL_LANE_NVTX || lane->thread < 0
          || (keep != NULL && !keep (trace, lane->thread, data)))
        continue;
      for (gsize e = sl_lane_lower_bound (lane, t0); e < lane->n_events; e++)
        {
          const SlEvent *ev = &lane->events[e];
          if (ev->start >= t1)
            break;
          if (ev->name >= n_strs || (ev->link & SL_NVTX_MARK) != 0)
            continue;
          if (cls[ev->name] == STEP_UNKNOWN)
            cls[ev->name] = step_class (sl_trace_str (trace, ev->name));
          if (cls[ev->name] == STEP_NONE)
            continue;
          gpointer key = GUINT_TO_POINTER (((guint) lane->thread << 2) | cls[ev->name]);
          GArray *d = g_hash_table_lookup (by, key);
          if (d == NULL)
            g_hash_table_insert (by, key, d = g_array_new (FALSE, FALSE, sizeof (SlStep)));
          SlStep step = { step_number (sl_trace_str (trace, ev->name)), ev->start, ev->end,
                          lane->thread };
          g_array_append_val (d, step);
        }
    }

  /* Kineto's steps before named ones; of a class, the thread with most of them */
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, by);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      guint c = GPOINTER_TO_UINT (key) & 3;
      GArray *d = value;
      /* ties to the lowest thread index: the same answer whatever the hash's order */
      if (best == NULL || c < best_class || (c == best_class && d->len > best->len)
          || (c == best_class && d->len == best->len && GPOINTER_TO_UINT (key) < best_key))
        {
          best = d;
          best_class = c;
          best_key = GPOINTER_TO_UINT (key);
        }
    }
  if (best == NULL)
    return g_array_new (FALSE, FALSE, sizeof (SlStep));
  g_hash_table_steal (by, GUINT_TO_POINTER (best_key));
  g_array_sort (best, compare_step_start);
  return best;
}

SlTime
sl_trace_median_step (SlTrace *trace,
                      SlTime   t0,
                      SlTime   t1,
                      guint   *n_steps)
{
  g_autoptr (GArray) steps = sl_trace_steps (trace, t0, t1, NULL, NULL);
  g_autoptr (GArray) d = g_array_sized_new (FALSE, FALSE, sizeof (SlTime), steps->len);

  *n_steps = steps->len;
  if (steps->len == 0)
    return -1;
  for (guint i = 0; i < steps->len; i++)
    {
      SlTime dur = g_array_index (steps, SlStep, i).end - g_array_index (steps, SlStep, i).start;
      g_array_append_val (d, dur);
    }
  return sl_median_int64 ((gint64 *) (void *) d->data, d->len);
}

void
sl_rank_summary_compute (SlRankSummary    *s,
                         SlTrace          *trace,
                         const SlAnalysis *analysis)
{
  SlTime t0 = sl_trace_get_start (trace), t1 = sl_trace_get_end (trace);

  memset (s, 0, sizeof *s);
  if (analysis != NULL && analysis->t1 > analysis->t0)
    {
      t0 = analysis->t0;
      t1 = analysis->t1;
    }
  s->source = g_strdup (sl_trace_get_path (trace));
  s->trace = g_strdup (sl_trace_get_path (trace));
  s->rank = sl_trace_get_rank (trace);
  s->world_size = sl_trace_get_world_size (trace);
  s->span = MAX (t1 - t0, 0);
  /* the GPUs this rank used: a trace lists every GPU of the machine, the other ranks' too */
  for (guint g = 0; g < sl_trace_get_n_gpus (trace); g++)
    if (sl_trace_gpu_busy_intervals (trace, g, SL_UTIL_ANY) > 0)
      {
        s->gpus++;
        s->gpu_time = _sl_time_add (s->gpu_time,
                                    sl_trace_gpu_busy_time (trace, g, SL_UTIL_ANY, t0, t1));
      }
  s->gpu_util = s->gpus > 0 && s->span > 0 ? (double) s->gpu_time / ((double) s->span * s->gpus)
                                           : NAN;
  s->step = sl_trace_median_step (trace, t0, t1, &s->steps);
  for (guint i = 0; analysis != NULL && i < analysis->findings->len; i++)
    {
      const SlFinding *f = g_ptr_array_index (analysis->findings, i);
      s->findings[sl_severity_of (f->cost, s->span)]++;
    }
  s->key = -1;
  s->deviation = s->deviation_pct = NAN;
}

/* ---- ranking ----------------------------------------------------------------------------- */

static gint
slowest_first (gconstpointer a,
               gconstpointer b)
{
  const SlRankSummary *x = a, *y = b;

  if (x->key != y->key)
    return x->key > y->key ? -1 : 1;
  if (x->gpu_time != y->gpu_time)
    return x->gpu_time > y->gpu_time ? -1 : 1;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return g_strcmp0 (x->source, y->source);
}

const char *
sl_summaries_rank (GArray *ranks)
{
  gboolean steps = ranks->len > 0;
  g_autoptr (GArray) keys = g_array_new (FALSE, FALSE, sizeof (SlTime));

  for (guint i = 0; i < ranks->len; i++)
    steps &= g_array_index (ranks, SlRankSummary, i).step >= 0;
  for (guint i = 0; i < ranks->len; i++)
    {
      SlRankSummary *s = &g_array_index (ranks, SlRankSummary, i);
      s->key = steps ? s->step : s->span;
      if (s->key >= 0)
        g_array_append_val (keys, s->key);
    }
  double median = NAN;
  if (keys->len > 0)
    {
      g_array_sort (keys, sl_cmp_int64);
      SlTime *k = (SlTime *) keys->data;
      median = keys->len % 2 ? (double) k[keys->len / 2]
                             : ((double) k[keys->len / 2 - 1] + (double) k[keys->len / 2]) / 2;
    }
  for (guint i = 0; i < ranks->len; i++)
    {
      SlRankSummary *s = &g_array_index (ranks, SlRankSummary, i);
      s->deviation = s->key >= 0 ? (double) s->key - median : NAN;
      s->deviation_pct = s->key >= 0 && median > 0 ? 100.0 * s->deviation / median : NAN;
    }
  g_array_sort (ranks, slowest_first);
  return steps ? "step" : "span";
}

/* ---- output ------------------------------------------------------------------------------ */

static char *
time_or_dash (SlTime ns)
{
  return ns >= 0 ? sl_format_duration (ns) : g_strdup ("—");
}

static char *
pct_or_dash (double v,
             gboolean sign)
{
  return isfinite (v) ? g_strdup_printf (sign ? "%+.1f%%" : "%.1f%%", v) : g_strdup ("—");
}

/* Display width of UTF-8 text (the column format pads with spaces). */
static glong
width (const char *s)
{
  return g_utf8_strlen (s, -1);
}

static void
write_column (GArray     *ranks,
              const char *key,
              FILE       *out)
{
  enum { N_COLS = 11 };
  const char *head[N_COLS] = { "Rank", "Step (median)", "Steps", "Span", NULL, "GPU time",
                               "GPU util", "High", "Medium", "Low", "Trace" };
  g_autoptr (GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  glong w[N_COLS] = { 0 };

  head[4] = g_str_equal (key, "step") ? "Step vs median" : "Span vs median";
  for (guint c = 0; c < N_COLS; c++)
    g_ptr_array_add (cells, g_strdup (head[c]));
  for (guint i = 0; i < ranks->len; i++)
    {
      const SlRankSummary *s = &g_array_index (ranks, SlRankSummary, i);
      g_autofree char *base = g_path_get_basename (s->trace != NULL ? s->trace : s->source);
      g_ptr_array_add (cells, s->rank >= 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, s->rank)
                                           : g_strdup ("—"));
      g_ptr_array_add (cells, time_or_dash (s->step));
      g_ptr_array_add (cells, g_strdup_printf ("%u", s->steps));
      g_ptr_array_add (cells, time_or_dash (s->span));
      g_ptr_array_add (cells, pct_or_dash (s->deviation_pct, TRUE));
      g_ptr_array_add (cells, time_or_dash (s->gpu_time));
      g_ptr_array_add (cells, pct_or_dash (100.0 * s->gpu_util, FALSE));
      for (guint k = 0; k < SL_N_SEVERITIES; k++)
        g_ptr_array_add (cells, g_strdup_printf ("%u", s->findings[k]));
      g_ptr_array_add (cells, g_strdup (base));
    }
  for (guint i = 0; i < cells->len; i++)
    w[i % N_COLS] = MAX (w[i % N_COLS], width (g_ptr_array_index (cells, i)));
  for (guint i = 0; i < cells->len; i++)
    {
      const char *cell = g_ptr_array_index (cells, i);
      guint c = i % N_COLS;
      glong pad = w[c] - width (cell);
      if (c == N_COLS - 1)
        fprintf (out, "%s\n", cell); /* the last column is not padded */
      else if (c == 0)
        fprintf (out, "%s%*s  ", cell, (int) pad, "");
      else
        fprintf (out, "%*s%s  ", (int) pad, "", cell); /* figures to the right */
    }
}

static void
csv_field (FILE       *out,
           const char *s)
{
  if (strpbrk (s, ",\"\n\r") == NULL)
    {
      fputs (s, out);
      return;
    }
  fputc ('"', out);
  for (const char *p = s; *p != '\0'; p++)
    {
      if (*p == '"')
        fputc ('"', out);
      fputc (*p, out);
    }
  fputc ('"', out);
}

static void
json_str (FILE       *out,
          const char *s)
{
  g_autoptr (GString) text = g_string_new (NULL);

  sl_json_append_string (text, s);
  fwrite (text->str, 1, text->len, out);
}

/* An integer, or null when negative (unknown). */
static void
json_int_or_null (FILE   *out,
                  gint64  v)
{
  if (v >= 0)
    fprintf (out, "%" G_GINT64_FORMAT, v);
  else
    fputs ("null", out);
}

static void
json_double_or_null (FILE   *out,
                     double  v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isfinite (v))
    fputs (g_ascii_formatd (buf, sizeof buf, "%.6g", v), out);
  else
    fputs ("null", out);
}

static void
write_csv (GArray     *ranks,
           const char *key,
           FILE       *out)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  fprintf (out, "rank,steps,step_ns,span_ns,key,deviation_ns,deviation_pct,gpus,gpu_time_ns,"
                "gpu_utilization,findings_high,findings_medium,findings_low,trace,source\n");
  for (guint i = 0; i < ranks->len; i++)
    {
      const SlRankSummary *s = &g_array_index (ranks, SlRankSummary, i);
      if (s->rank >= 0)
        fprintf (out, "%" G_GINT64_FORMAT, s->rank);
      fprintf (out, ",%u,", s->steps);
      if (s->step >= 0)
        fprintf (out, "%" G_GINT64_FORMAT, s->step);
      fputc (',', out);
      if (s->span >= 0)
        fprintf (out, "%" G_GINT64_FORMAT, s->span);
      fprintf (out, ",%s,", key);
      if (isfinite (s->deviation))
        fprintf (out, "%.0f", s->deviation);
      fputc (',', out);
      if (isfinite (s->deviation_pct))
        fputs (g_ascii_formatd (buf, sizeof buf, "%.3f", s->deviation_pct), out);
      fprintf (out, ",%u,", s->gpus);
      if (s->gpu_time >= 0)
        fprintf (out, "%" G_GINT64_FORMAT, s->gpu_time);
      fputc (',', out);
      if (isfinite (s->gpu_util))
        fputs (g_ascii_formatd (buf, sizeof buf, "%.6f", s->gpu_util), out);
      fprintf (out, ",%u,%u,%u,", s->findings[SL_SEVERITY_HIGH], s->findings[SL_SEVERITY_MEDIUM],
               s->findings[SL_SEVERITY_LOW]);
      csv_field (out, s->trace != NULL ? s->trace : "");
      fputc (',', out);
      csv_field (out, s->source != NULL ? s->source : "");
      fputc ('\n', out);
    }
}

static void
write_json (GArray     *ranks,
            const char *key,
            FILE       *out)
{
  double median = NAN;

  /* the median back from any rank with a key: key − deviation */
  for (guint i = 0; i < ranks->len && !isfinite (median); i++)
    {
      const SlRankSummary *s = &g_array_index (ranks, SlRankSummary, i);
      if (s->key >= 0 && isfinite (s->deviation))
        median = (double) s->key - s->deviation;
    }
  fprintf (out, "{\n  \"key\": \"%s\",\n  \"median_ns\": ", key);
  json_int_or_null (out, isfinite (median) ? (gint64) llround (median) : -1);
  fprintf (out, ",\n  \"severity\": {\"high\": %.2f, \"medium\": %.2f},\n  \"ranks\": [",
           SL_SEVERITY_HIGH_SHARE, SL_SEVERITY_MEDIUM_SHARE);
  for (guint i = 0; i < ranks->len; i++)
    {
      const SlRankSummary *s = &g_array_index (ranks, SlRankSummary, i);
      fprintf (out, "%s\n    {\"rank\": ", i ? "," : "");
      json_int_or_null (out, s->rank);
      fputs (", \"world_size\": ", out);
      json_int_or_null (out, s->world_size > 0 ? s->world_size : -1);
      fputs (", \"source\": ", out);
      json_str (out, s->source);
      fputs (", \"trace\": ", out);
      json_str (out, s->trace);
      fprintf (out, ",\n     \"steps\": %u, \"step_ns\": ", s->steps);
      json_int_or_null (out, s->step);
      fputs (", \"span_ns\": ", out);
      json_int_or_null (out, s->span);
      fputs (", \"key_ns\": ", out);
      json_int_or_null (out, s->key);
      fputs (", \"deviation_ns\": ", out);
      if (isfinite (s->deviation))
        fprintf (out, "%" G_GINT64_FORMAT, (gint64) llround (s->deviation));
      else
        fputs ("null", out);
      fputs (", \"deviation_pct\": ", out);
      json_double_or_null (out, s->deviation_pct);
      fprintf (out, ",\n     \"gpus\": %u, \"gpu_time_ns\": ", s->gpus);
      json_int_or_null (out, s->gpu_time);
      fputs (", \"gpu_utilization\": ", out);
      json_double_or_null (out, s->gpu_util);
      fprintf (out, ", \"findings\": {\"high\": %u, \"medium\": %u, \"low\": %u}}",
               s->findings[SL_SEVERITY_HIGH], s->findings[SL_SEVERITY_MEDIUM],
               s->findings[SL_SEVERITY_LOW]);
    }
  fputs (ranks->len > 0 ? "\n  ]\n}\n" : "]\n}\n", out);
}

void
sl_summaries_write (GArray            *ranks,
                    const char        *key,
                    SlSummariesFormat  format,
                    FILE              *out)
{
  switch (format)
    {
    case SL_SUMMARIES_COLUMN: write_column (ranks, key, out); break;
    case SL_SUMMARIES_CSV: write_csv (ranks, key, out); break;
    case SL_SUMMARIES_JSON: write_json (ranks, key, out); break;
    }
}
