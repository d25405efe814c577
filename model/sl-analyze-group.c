/* sl-analyze-group.c: findings of one rule with one cause (a gap cause repeated 48 times) made
 * into one group finding: a count, the summed cost, the span of them all, the instances. */
#include "sl-analyze-private.h"

#include "sl-format.h"

static gint
cmp_start (gconstpointer a,
           gconstpointer b)
{
  const SlFinding *x = *(SlFinding *const *) a, *y = *(SlFinding *const *) b;

  return x->start < y->start ? -1 : x->start > y->start;
}

/* A field the instances share, or `none` where they differ. */
#define COMMON(group, instances, field, none)                                             \
  G_STMT_START                                                                            \
  {                                                                                       \
    (group)->field = ((SlFinding *) g_ptr_array_index (instances, 0))->field;             \
    for (guint i_ = 1; i_ < (instances)->len; i_++)                                       \
      if (((SlFinding *) g_ptr_array_index (instances, i_))->field != (group)->field)     \
        (group)->field = (none);                                                          \
  }                                                                                       \
  G_STMT_END

static SlFinding *
group_new (GPtrArray *instances)
{
  SlFinding *g = _sl_finding_alloc (((SlFinding *) g_ptr_array_index (instances, 0))->rule);
  SlFinding *costliest = NULL;
  g_autoptr (GArray) costs = g_array_new (FALSE, FALSE, sizeof (SlTime));
  g_autofree char *total = NULL, *median = NULL, *most = NULL;
  SlTime median_cost;

  g_ptr_array_sort (instances, cmp_start);
  g->instances = instances;
  g->cause = g_strdup (((SlFinding *) g_ptr_array_index (instances, 0))->cause);
  g->start = G_MAXINT64;
  g->end = G_MININT64;
  COMMON (g, instances, gpu, -1);
  COMMON (g, instances, thread, -1);
  COMMON (g, instances, global_pid, 0);
  COMMON (g, instances, stream, 0);
  COMMON (g, instances, source, -1);
  for (guint i = 0; i < instances->len; i++)
    {
      SlFinding *f = g_ptr_array_index (instances, i);
      g->start = MIN (g->start, f->start);
      g->end = MAX (g->end, f->end);
      g->cost = _sl_time_add (g->cost, f->cost);
      g_array_append_val (costs, f->cost);
      if (costliest == NULL || f->cost > costliest->cost)
        costliest = f;
      for (guint k = 0; k < f->lanes->len; k++)
        _sl_finding_add_lane (g, g_array_index (f->lanes, guint32, k));
      for (guint k = 0; k < f->events->len && g->events->len < SL_MAX_FINDING_EVENTS; k++)
        g_array_append_val (g->events, g_array_index (f->events, SlFindingEvent, k));
    }
  median_cost = _sl_median_of (costs);
  total = sl_format_duration (g->cost);
  median = sl_format_duration (median_cost);
  most = sl_format_duration (costliest->cost);
  g->summary = g_strdup_printf ("%u × %s (%s in all; median %s, the most %s)", instances->len,
                                g->cause, total, median, most);
  g->advice = g_strdup (costliest->advice);
  _sl_evidence (g, "count", "Instances", instances->len, "%u", instances->len);
  /* views of the idle account stay one: their attributed time adds up */
  COMMON (g, instances, idle_view, FALSE);
  if (g->idle_view)
    _sl_finding_set_attributed (g, g->cost);
  _sl_evidence_duration (g, "total_cost_ns", "Cost in all", g->cost);
  _sl_evidence_duration (g, "median_cost_ns", "Median cost", median_cost);
  _sl_evidence_duration (g, "max_cost_ns", "The most costly", costliest->cost);
  return g;
}

void
_sl_analyze_group (GPtrArray *findings)
{
  g_autoptr (GHashTable) by_cause = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                           (GDestroyNotify) g_ptr_array_unref);
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  GDestroyNotify free_func = _sl_finding_free;

  /* each finding under its key, in the order they came; ungrouped ones under their own */
  for (guint i = 0; i < findings->len; i++)
    {
      SlFinding *f = g_ptr_array_index (findings, i);
      /* one rank's (source's) findings: a group is never of two */
      char *key = f->cause != NULL ? g_strdup_printf ("%s\x1f%d\x1f%s", f->rule->name, f->source,
                                                      f->cause)
                                   : g_strdup_printf ("\x1f%p", (void *) f);
      GPtrArray *same = g_hash_table_lookup (by_cause, key);
      if (same == NULL)
        {
          same = g_ptr_array_new ();
          g_hash_table_insert (by_cause, key, same);
          g_ptr_array_add (order, same);
        }
      else
        g_free (key);
      g_ptr_array_add (same, f);
    }
  if (order->len == findings->len)
    return;
  /* the findings change hands: to a group, or back into the list */
  g_ptr_array_set_free_func (findings, NULL);
  g_ptr_array_set_size (findings, 0);
  g_ptr_array_set_free_func (findings, free_func);
  for (guint i = 0; i < order->len; i++)
    {
      GPtrArray *same = g_ptr_array_index (order, i);
      if (same->len == 1)
        g_ptr_array_add (findings, g_ptr_array_index (same, 0));
      else
        {
          GPtrArray *instances = g_ptr_array_new_full (same->len, free_func);
          for (guint k = 0; k < same->len; k++)
            g_ptr_array_add (instances, g_ptr_array_index (same, k));
          g_ptr_array_add (findings, group_new (instances));
        }
    }
}
