/* sl-stats-nvtx.c: the NVTX reports that follow ranges onto the GPU: nvtx_gpu_proj_trace,
 * nvtx_gpu_proj_sum, nvtx_kern_sum (model/sl-nvtx-proj.c does the projection).
 *
 * As NVIDIA's report scripts (nsys 2024.x) define them:
 *   nvtx_gpu_proj_trace: per NVTX range that encloses the launch call of at least one kernel,
 *     memcpy or memset on its thread: Name ("domain:text", ":text" in the default domain),
 *     Projected Start = the first such operation's start, Projected Duration = the last one's
 *     end − that, Orig Start / Orig Duration of the range, Style, PID, TID, NumGPUOps = the
 *     distinct launch calls, Lvl (0 at the top), NumChild (projected ranges whose tightest
 *     enclosing range is this one), RangeId (the range's NVTX_EVENTS rowid, which follows the
 *     file's row order, not time), ParentId, RangeStack (":id:id…" from the outermost);
 *     ORDER BY Projected Start,
 *     Projected Duration DESC (ties: the range).  With --range: the rows whose projected start
 *     is in [t0, t1), their projection over the whole trace.
 *   nvtx_gpu_proj_sum: those rows GROUP BY Name, Style: sums of the projected and original
 *     durations, count, avg / median / min / max / stdev of the projected duration, the sum and
 *     avg of NumGPUOps, avg Lvl, avg NumChild (averages rounded to 1 digit);
 *     ORDER BY Total Proj Time DESC (ties: Range, Style).
 *   nvtx_kern_sum: every kernel that starts in [t0, t1) with each range enclosing its launch
 *     call (a kernel without one: NULL range and style; without a launch call in the trace:
 *     NULL PID and TID too), GROUP BY range name ("domain:text" or "text"), style, PID, TID,
 *     kernel name: NVTX Inst = distinct ranges, Kern Inst = distinct kernels, the sum, avg,
 *     median, min, max and stdev of the kernels' durations, once per (kernel, range) pair;
 *     ORDER BY range name, PID, TID, Total Time DESC (ties: style, kernel name).
 * The scripts keep only ranges that start and end on one thread (endGlobalTid NULL): the model
 * marks those that ended on another (SL_NVTX_OTHER_THREAD; an endGlobalTid equal to globalTid,
 * which Sightline's generator writes, is the same thread), and the projection leaves them out.
 */
#include "sl-stats-private.h"

#include <string.h>

#include "sl-nvtx-proj.h"

static const char *
style_of (const SlEvent *range)
{
  return (range->link & SL_NVTX_START_END) ? "StartEnd" : "PushPop";
}

/* "domain:text"; in the default domain ":text" (with_colon) or "text" */
static const char *
range_name (SlReport      *r,
            const SlEvent *range,
            gboolean       with_colon)
{
  const char *text = sl_trace_str (r->trace, range->name);

  if (range->corr == SL_NO_STR && !with_colon)
    return text;
  g_autofree char *tag = g_strconcat (range->corr != SL_NO_STR ? sl_trace_str (r->trace, range->corr)
                                                                : "",
                                      ":", text, NULL);
  return g_string_chunk_insert_const (r->strings, tag);
}

static gboolean
needs_nvtx_and_api (SlTrace  *trace,
                    gint      source,
                    GError  **error)
{
  if (!_sl_stats_trace_has (trace, SL_LANE_NVTX, source))
    return _sl_stats_no_data (trace, error, "NV Tools Extension (NVTX) data");
  if (!_sl_stats_trace_has (trace, SL_LANE_CUDA_API, source))
    return _sl_stats_no_data (trace, error, "CUDA API data");
  return TRUE;
}

static const SlThread *
lane_thread (SlTrace      *trace,
             const SlLane *lane)
{
  if (lane->thread < 0 || (guint) lane->thread >= sl_trace_get_n_threads (trace))
    return NULL;
  return sl_trace_get_thread (trace, lane->thread);
}

/* ---------------------------------------------------------------------------------------- */
/* nvtx_gpu_proj_trace                                                                      */

const _SlColumn _sl_nvtx_gpu_proj_trace_columns[14] = {
  { "Name", SL_UNIT_NONE }, { "Projected Start (ns)", SL_UNIT_TS_NS },
  { "Projected Duration (ns)", SL_UNIT_DUR_NS }, { "Orig Start (ns)", SL_UNIT_TS_NS },
  { "Orig Duration (ns)", SL_UNIT_DUR_NS }, { "Style", SL_UNIT_NONE }, { "PID", SL_UNIT_NONE },
  { "TID", SL_UNIT_NONE }, { "NumGPUOps", SL_UNIT_NONE }, { "Lvl", SL_UNIT_NONE },
  { "NumChild", SL_UNIT_NONE }, { "RangeId", SL_UNIT_NONE }, { "ParentId", SL_UNIT_NONE },
  { "RangeStack", SL_UNIT_NONE },
};

/* The projection rows (BY_RANGE) whose projected start is in [t0, t1), of ranges in source
 * `source` (-1: any), from the trace's own projection (*proj); NULL and the error when the trace
 * has no NVTX or no CUDA API data. */
static GArray *
projection_rows (SlTrace     *trace,
                 SlTime       t0,
                 SlTime       t1,
                 gint         source,
                 SlNvtxProj **proj,
                 GError     **error)
{
  if (!needs_nvtx_and_api (trace, source, error))
    return NULL;
  *proj = sl_nvtx_proj_get (trace);
  const GArray *all = sl_nvtx_proj_get_rows (*proj, SL_NVTX_PROJ_BY_RANGE);
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (SlNvtxProjRow));
  for (guint i = 0; i < all->len; i++)
    {
      const SlNvtxProjRow *row = &g_array_index (all, SlNvtxProjRow, i);
      if (row->start >= t0 && row->start < t1
          && _sl_stats_lane_in (sl_trace_get_lane (trace, row->range.lane), source))
        g_array_append_val (rows, *row);
    }
  return rows;
}

gboolean
_sl_nvtx_ranges_have_rowids (SlTrace *trace)
{
  if (sl_trace_get_n_sources (trace) > 1)
    return FALSE;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_NVTX && k < lane->n_events; k++)
        if (SL_NVTX_ROWID (lane->events[k].link) == 0
            && (lane->events[k].link & SL_NVTX_MARK) == 0)
          return FALSE;
    }
  return TRUE;
}

guint32
_sl_nvtx_range_id (const SlLane *lane,
                   gsize         index,
                   gboolean      by_rowid)
{
  return by_rowid ? SL_NVTX_ROWID (lane->events[index].link) : lane->base + (guint32) index + 1;
}

static guint32
range_id (SlTrace    *trace,
          gboolean    by_rowid,
          SlEventRef  ref)
{
  return _sl_nvtx_range_id (sl_trace_get_lane (trace, ref.lane), ref.index, by_rowid);
}

SlReport *
_sl_report_compute_nvtx_gpu_proj_trace (SlTrace             *trace,
                                        const _SlReportInfo *info,
                                        SlTime               t0,
                                        SlTime               t1,
                                        gint                 source,
                                        GError             **error)
{
  SlNvtxProj *proj = NULL;
  g_autoptr (GArray) rows = projection_rows (trace, t0, t1, source, &proj, error);
  g_autoptr (GString) stack = g_string_new (NULL);
  g_autoptr (GArray) chain = g_array_new (FALSE, FALSE, sizeof (guint32));

  if (rows == NULL)
    return NULL;
  SlReport *r = _sl_report_new (trace, info);
  gboolean by_rowid = _sl_nvtx_ranges_have_rowids (trace);
  for (guint i = 0; i < rows->len; i++)
    {
      const SlNvtxProjRow *row = &g_array_index (rows, SlNvtxProjRow, i);
      const SlLane *lane = sl_trace_get_lane (trace, row->range.lane);
      const SlEvent *ev = &lane->events[row->range.index];
      const SlThread *thread = lane_thread (trace, lane);
      SlEventRef up = row->range, parent;

      g_array_set_size (chain, 0);
      for (guint32 id = range_id (trace, by_rowid, up);; id = range_id (trace, by_rowid, up))
        {
          g_array_append_val (chain, id);
          if (!sl_nvtx_proj_get_parent (proj, up, &up))
            break;
        }
      g_string_truncate (stack, 0);
      for (guint k = chain->len; k-- > 0;)
        g_string_append_printf (stack, ":%u", g_array_index (chain, guint32, k));

      _sl_report_add_text (r, range_name (r, ev, TRUE));
      _sl_report_add_int (r, row->start);
      _sl_report_add_int (r, row->end - row->start);
      _sl_report_add_int (r, ev->start);
      _sl_report_add_int (r, ev->end - ev->start);
      _sl_report_add_text (r, style_of (ev));
      thread != NULL ? _sl_report_add_int (r, thread->pid) : _sl_report_add_null (r);
      thread != NULL ? _sl_report_add_int (r, thread->tid) : _sl_report_add_null (r);
      _sl_report_add_int (r, row->n_calls);
      _sl_report_add_int (r, chain->len - 1);
      _sl_report_add_int (r, row->n_children);
      _sl_report_add_int (r, range_id (trace, by_rowid, row->range));
      if (sl_nvtx_proj_get_parent (proj, row->range, &parent))
        _sl_report_add_int (r, range_id (trace, by_rowid, parent));
      else
        _sl_report_add_null (r);
      _sl_report_add_text (r, g_string_chunk_insert (r->strings, stack->str));
    }
  return r;
}

/* ---------------------------------------------------------------------------------------- */
/* nvtx_gpu_proj_sum                                                                        */

const _SlColumn _sl_nvtx_gpu_proj_sum_columns[14] = {
  { "Range", SL_UNIT_NONE }, { "Style", SL_UNIT_NONE },
  { "Total Proj Time (ns)", SL_UNIT_DUR_NS }, { "Total Range Time (ns)", SL_UNIT_DUR_NS },
  { "Range Instances", SL_UNIT_NONE }, { "Proj Avg (ns)", SL_UNIT_DUR_NS },
  { "Proj Med (ns)", SL_UNIT_DUR_NS }, { "Proj Min (ns)", SL_UNIT_DUR_NS },
  { "Proj Max (ns)", SL_UNIT_DUR_NS }, { "Proj StdDev (ns)", SL_UNIT_DUR_NS },
  { "Total GPU Ops", SL_UNIT_NONE }, { "Avg GPU Ops", SL_UNIT_NONE },
  { "Avg Range Lvl", SL_UNIT_NONE }, { "Avg Num Child", SL_UNIT_NONE },
};

typedef struct
{
  _SlAcc      proj;
  const char *name;
  const char *style;
  gint64      range_total;
  gint64      ops;
  gint64      levels;
  gint64      children;
} ProjGroup;

static int
compare_proj_groups (gconstpointer pa,
                     gconstpointer pb)
{
  const ProjGroup *a = *(const ProjGroup *const *) pa, *b = *(const ProjGroup *const *) pb;
  int c;

  if (a->proj.total != b->proj.total)
    return a->proj.total > b->proj.total ? -1 : 1;
  if ((c = strcmp (a->name, b->name)) != 0)
    return c;
  return strcmp (a->style, b->style);
}

static void
proj_group_free (gpointer p)
{
  ProjGroup *g = p;
  _sl_acc_clear (&g->proj);
  g_free (g);
}

SlReport *
_sl_report_compute_nvtx_gpu_proj_sum (SlTrace             *trace,
                                      const _SlReportInfo *info,
                                      SlTime               t0,
                                      SlTime               t1,
                                      gint                 source,
                                      GError             **error)
{
  SlNvtxProj *proj = NULL;
  g_autoptr (GArray) rows = projection_rows (trace, t0, t1, source, &proj, error);
  g_autoptr (GHashTable) by_tag = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GPtrArray) groups = g_ptr_array_new_with_free_func (proj_group_free);

  if (rows == NULL)
    return NULL;
  SlReport *r = _sl_report_new (trace, info);
  for (guint i = 0; i < rows->len; i++)
    {
      const SlNvtxProjRow *row = &g_array_index (rows, SlNvtxProjRow, i);
      const SlEvent *ev = &sl_trace_get_lane (trace, row->range.lane)->events[row->range.index];
      const char *name = range_name (r, ev, TRUE), *style = style_of (ev);
      g_autofree char *tag = g_strconcat (style, "\n", name, NULL);
      ProjGroup *g = g_hash_table_lookup (by_tag, tag);
      if (g == NULL)
        {
          g = g_new0 (ProjGroup, 1);
          _sl_acc_init (&g->proj);
          g->name = name;
          g->style = style;
          g_hash_table_insert (by_tag, g_string_chunk_insert (r->strings, tag), g);
          g_ptr_array_add (groups, g);
        }
      _sl_acc_add (&g->proj, row->end - row->start);
      g->range_total = _sl_time_add (g->range_total, ev->end - ev->start);
      g->ops += row->n_calls;
      g->levels += sl_nvtx_proj_get_level (proj, row->range);
      g->children += row->n_children;
    }
  g_ptr_array_sort (groups, compare_proj_groups);
  for (guint i = 0; i < groups->len; i++)
    {
      ProjGroup *g = g_ptr_array_index (groups, i);
      double n = (double) g->proj.n;
      _sl_report_add_text (r, g->name);
      _sl_report_add_text (r, g->style);
      _sl_report_add_int (r, g->proj.total);
      _sl_report_add_int (r, g->range_total);
      _sl_report_add_int (r, g->proj.n);
      _sl_report_add_double (r, sl_stats_round (_sl_acc_avg (&g->proj), 1));
      _sl_report_add_double (r, sl_stats_round (_sl_acc_median (&g->proj), 1));
      _sl_report_add_int (r, g->proj.min);
      _sl_report_add_int (r, g->proj.max);
      _sl_report_add_double (r, sl_stats_round (_sl_acc_stdev (&g->proj), 1));
      _sl_report_add_int (r, g->ops);
      _sl_report_add_double (r, sl_stats_round ((double) g->ops / n, 1));
      _sl_report_add_double (r, sl_stats_round ((double) g->levels / n, 1));
      _sl_report_add_double (r, sl_stats_round ((double) g->children / n, 1));
    }
  return r;
}

/* ---------------------------------------------------------------------------------------- */
/* nvtx_kern_sum                                                                            */

const _SlColumn _sl_nvtx_kern_sum_columns[13] = {
  { "NVTX Range", SL_UNIT_NONE }, { "Style", SL_UNIT_NONE }, { "PID", SL_UNIT_NONE },
  { "TID", SL_UNIT_NONE }, { "NVTX Inst", SL_UNIT_NONE }, { "Kern Inst", SL_UNIT_NONE },
  { "Total Time (ns)", SL_UNIT_DUR_NS }, { "Avg (ns)", SL_UNIT_DUR_NS },
  { "Med (ns)", SL_UNIT_DUR_NS }, { "Min (ns)", SL_UNIT_DUR_NS }, { "Max (ns)", SL_UNIT_DUR_NS },
  { "StdDev (ns)", SL_UNIT_DUR_NS }, { "Kernel Name", SL_UNIT_NONE },
};

typedef struct
{
  const char *range;    /* NULL: no enclosing range */
  const char *style;
  gint64      pid;      /* -1: no launch call */
  gint64      tid;
  guint32     kernel;   /* string id */
} KernKey;

typedef struct
{
  KernKey     key;
  const char *kernel_name;
  _SlAcc      acc;
  GHashTable *ranges;   /* distinct range ids */
  guint32     last_kernel;
  gint64      kernels;
} KernGroup;

static guint
kern_key_hash (gconstpointer p)
{
  const KernKey *k = p;
  return g_direct_hash (k->range) * 31u + g_direct_hash (k->style) + (guint) k->pid * 17u
         + (guint) k->tid * 131u + k->kernel * 7u;
}

static gboolean
kern_key_equal (gconstpointer pa,
                gconstpointer pb)
{
  const KernKey *a = pa, *b = pb;
  return a->range == b->range && a->style == b->style && a->pid == b->pid && a->tid == b->tid
         && a->kernel == b->kernel;
}

static void
kern_group_free (gpointer p)
{
  KernGroup *g = p;
  _sl_acc_clear (&g->acc);
  g_clear_pointer (&g->ranges, g_hash_table_unref);
  g_free (g);
}

/* SQLite's order of text that may be NULL: NULL first */
static int
compare_nullable (const char *a,
                  const char *b)
{
  if (a == NULL || b == NULL)
    return (a != NULL) - (b != NULL);
  return strcmp (a, b);
}

static int
compare_kern_groups (gconstpointer pa,
                     gconstpointer pb)
{
  const KernGroup *a = *(const KernGroup *const *) pa, *b = *(const KernGroup *const *) pb;
  int c;

  if ((c = compare_nullable (a->key.range, b->key.range)) != 0)
    return c;
  if (a->key.pid != b->key.pid)
    return a->key.pid < b->key.pid ? -1 : 1;
  if (a->key.tid != b->key.tid)
    return a->key.tid < b->key.tid ? -1 : 1;
  if (a->acc.total != b->acc.total)
    return a->acc.total > b->acc.total ? -1 : 1;
  if ((c = compare_nullable (a->key.style, b->key.style)) != 0)
    return c;
  return strcmp (a->kernel_name, b->kernel_name);
}

static void
kern_add (GHashTable    *groups,
          SlTrace       *trace,
          const KernKey *key,
          const SlEvent *kernel,
          guint32        kernel_id,
          gint64         range)
{
  KernGroup *g = g_hash_table_lookup (groups, key);

  if (g == NULL)
    {
      g = g_new0 (KernGroup, 1);
      g->key = *key;
      g->kernel_name = sl_trace_str (trace, kernel->name);
      g->last_kernel = SL_NO_LINK;
      g->ranges = g_hash_table_new (g_direct_hash, g_direct_equal);
      _sl_acc_init (&g->acc);
      g_hash_table_insert (groups, &g->key, g);
    }
  _sl_acc_add (&g->acc, kernel->end - kernel->start);
  if (g->last_kernel != kernel_id)
    {
      /* a kernel adds to one group once per enclosing range, and those come in a row */
      g->last_kernel = kernel_id;
      g->kernels++;
    }
  if (range >= 0)
    g_hash_table_add (g->ranges, GUINT_TO_POINTER ((guint) range));
}

SlReport *
_sl_report_compute_nvtx_kern_sum (SlTrace             *trace,
                                  const _SlReportInfo *info,
                                  SlTime               t0,
                                  SlTime               t1,
                                  gint                 source,
                                  GError             **error)
{
  if (!needs_nvtx_and_api (trace, source, error))
    return NULL;
  if (!_sl_stats_trace_has (trace, SL_LANE_KERNELS, source))
    return _sl_stats_no_data (trace, error, "CUDA kernel data"), NULL;

  SlReport *r = _sl_report_new (trace, info);
  SlNvtxProj *proj = sl_nvtx_proj_get (trace);
  g_autoptr (GArray) ranges = g_array_new (FALSE, FALSE, sizeof (SlEventRef));
  g_autoptr (GHashTable) groups = g_hash_table_new_full (kern_key_hash, kern_key_equal, NULL,
                                                         kern_group_free);
  /* interned range names, so that the key compares pointers: by range global id */
  g_autoptr (GHashTable) names = g_hash_table_new (g_direct_hash, g_direct_equal);

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_KERNELS || !_sl_stats_lane_in (lane, source))
        continue;
      gsize first, end;
      _sl_stats_lane_range (lane, t0, t1, &first, &end);
      for (gsize k = first; k < end; k++)
        {
          const SlEvent *kev = &lane->events[k];
          guint32 kernel_id = lane->base + (guint32) k;
          const SlLane *alane;
          gsize aindex;
          KernKey key = { NULL, NULL, -1, -1, kev->name };

          if (kev->link != SL_NO_LINK && sl_trace_resolve (trace, kev->link, &alane, &aindex)
              && alane->kind == SL_LANE_CUDA_API)
            {
              const SlThread *thread = lane_thread (trace, alane);
              if (thread != NULL)
                {
                  key.pid = thread->pid;
                  key.tid = thread->tid;
                }
            }
          if (key.pid < 0 || sl_nvtx_proj_enclosing (proj, lane, k, ranges) == 0)
            {
              kern_add (groups, trace, &key, kev, kernel_id, -1);
              continue;
            }
          for (guint j = 0; j < ranges->len; j++)
            {
              SlEventRef ref = g_array_index (ranges, SlEventRef, j);
              const SlLane *rlane = sl_trace_get_lane (trace, ref.lane);
              const SlEvent *rev = &rlane->events[ref.index];
              guint32 rid = rlane->base + (guint32) ref.index;
              const char *name = g_hash_table_lookup (names, GUINT_TO_POINTER (rid));
              if (name == NULL)
                {
                  /* pointer-equal for equal text: the chunk's const insert dedupes */
                  name = g_string_chunk_insert_const (r->strings, range_name (r, rev, FALSE));
                  g_hash_table_insert (names, GUINT_TO_POINTER (rid), (gpointer) name);
                }
              key.range = name;
              key.style = style_of (rev);
              kern_add (groups, trace, &key, kev, kernel_id, rid);
            }
        }
    }

  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;
  g_hash_table_iter_init (&iter, groups);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (sorted, value);
  g_ptr_array_sort (sorted, compare_kern_groups);
  for (guint i = 0; i < sorted->len; i++)
    {
      KernGroup *g = g_ptr_array_index (sorted, i);
      _sl_report_add_text (r, g->key.range);
      _sl_report_add_text (r, g->key.style);
      g->key.pid >= 0 ? _sl_report_add_int (r, g->key.pid) : _sl_report_add_null (r);
      g->key.tid >= 0 ? _sl_report_add_int (r, g->key.tid) : _sl_report_add_null (r);
      _sl_report_add_int (r, g_hash_table_size (g->ranges));
      _sl_report_add_int (r, g->kernels);
      _sl_report_add_int (r, g->acc.total);
      _sl_report_add_double (r, sl_stats_round (_sl_acc_avg (&g->acc), 1));
      _sl_report_add_double (r, sl_stats_round (_sl_acc_median (&g->acc), 1));
      _sl_report_add_int (r, g->acc.min);
      _sl_report_add_int (r, g->acc.max);
      _sl_report_add_double (r, sl_stats_round (_sl_acc_stdev (&g->acc), 1));
      _sl_report_add_text (r, g->kernel_name);
    }
  return r;
}

/* ---------------------------------------------------------------------------------------- */
/* nvtx_pushpop_trace                                                                       */

/*
 * NVIDIA's nvtx_pushpop_trace.py: every push/pop range (eventType 59, 70) with Start, End,
 * Duration, DurChild (the durations of the ranges whose parent it is), DurNonChild (Duration −
 * DurChild), Name ("domain:text", or "text" in the default domain, as nvtx_sum names it), PID,
 * TID, Lvl (0 at the top), NumChild, RangeId (the NVTX_EVENTS rowid), ParentId, RangeStack
 * (":id:id…" from the outermost) and NameTree (Name after "--" a level); ORDER BY Start,
 * Duration (ties: RangeId).  A range's parent is the shortest push/pop range of its thread
 * that encloses it (nsys's "tightest"); of two identical ranges the one of the smaller RangeId
 * is the parent (nsys makes each the other's, a cycle that drops both from its output).  With
 * --range: the ranges that start in [t0, t1), their family over the whole trace.  Ranges left
 * open end where the model ends them (the last NVTX timestamp); the script takes the last
 * push/pop one, which differs only where a later event is not a push/pop range.
 * Sizes: 10^3 … 10^6 ranges, sorted once by thread and start; a stack per thread.
 */

const _SlColumn _sl_nvtx_pushpop_trace_columns[14] = {
  { "Start (ns)", SL_UNIT_TS_NS }, { "End (ns)", SL_UNIT_TS_NS },
  { "Duration (ns)", SL_UNIT_DUR_NS }, { "DurChild (ns)", SL_UNIT_DUR_NS },
  { "DurNonChild (ns)", SL_UNIT_DUR_NS }, { "Name", SL_UNIT_NONE }, { "PID", SL_UNIT_NONE },
  { "TID", SL_UNIT_NONE }, { "Lvl", SL_UNIT_NONE }, { "NumChild", SL_UNIT_NONE },
  { "RangeId", SL_UNIT_NONE }, { "ParentId", SL_UNIT_NONE }, { "RangeStack", SL_UNIT_NONE },
  { "NameTree", SL_UNIT_NONE },
};

typedef struct
{
  const SlEvent *ev;
  const SlLane  *lane;
  guint32        id;        /* RangeId */
  gint32         thread;    /* the lane's thread, -1 when unknown */
  gint64         parent;    /* index in the array, -1 for none */
  guint32        level;
  guint32        n_child;
  gint64         dur_child;
} PushPop;

/* Thread, start, longest first, RangeId: a parent before its children. */
static int
compare_pushpop_nesting (gconstpointer pa,
                         gconstpointer pb)
{
  const PushPop *a = pa, *b = pb;

  if (a->thread != b->thread)
    return a->thread < b->thread ? -1 : 1;
  if (a->ev->start != b->ev->start)
    return a->ev->start < b->ev->start ? -1 : 1;
  if (a->ev->end != b->ev->end)
    return a->ev->end > b->ev->end ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* Start, Duration, RangeId: the report's order (indices into the ranges). */
static int
compare_pushpop_rows (gconstpointer pa,
                      gconstpointer pb,
                      gpointer      user_data)
{
  const PushPop *ranges = user_data;
  const PushPop *a = &ranges[*(const guint *) pa], *b = &ranges[*(const guint *) pb];
  SlTime da = a->ev->end - a->ev->start, db = b->ev->end - b->ev->start;

  if (a->ev->start != b->ev->start)
    return a->ev->start < b->ev->start ? -1 : 1;
  if (da != db)
    return da < db ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* Parents, levels and children of `ranges`, sorted by compare_pushpop_nesting.  The stack holds
 * the thread's ranges that have not ended before the current one starts: those of a proper
 * nesting are its ancestors, so a few a range; ranges clamped at the end of the trace can
 * overlap without nesting, so every one still on the stack is a candidate. */
static void
pushpop_nest (PushPop *ranges,
              gsize    n)
{
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (gsize));

  for (gsize i = 0; i < n; i++)
    {
      PushPop *c = &ranges[i];
      if (i > 0 && ranges[i - 1].thread != c->thread)
        g_array_set_size (stack, 0);
      while (stack->len > 0
             && ranges[g_array_index (stack, gsize, stack->len - 1)].ev->end < c->ev->start)
        g_array_set_size (stack, stack->len - 1);
      gint64 best = -1;
      for (guint k = stack->len; k-- > 0;)
        {
          const PushPop *p = &ranges[g_array_index (stack, gsize, k)];
          if (p->ev->start > c->ev->start || p->ev->end < c->ev->end)
            continue;
          SlTime len = p->ev->end - p->ev->start;
          if (best < 0)
            best = (gint64) g_array_index (stack, gsize, k);
          else
            {
              const PushPop *b = &ranges[best];
              SlTime blen = b->ev->end - b->ev->start;
              if (len < blen || (len == blen && p->id > b->id))
                best = (gint64) g_array_index (stack, gsize, k);
            }
        }
      c->parent = best;
      if (best >= 0)
        {
          PushPop *p = &ranges[best];
          c->level = p->level + 1;
          p->n_child++;
          p->dur_child = _sl_time_add (p->dur_child, c->ev->end - c->ev->start);
        }
      g_array_append_val (stack, i);
    }
}

SlReport *
_sl_report_compute_nvtx_pushpop_trace (SlTrace             *trace,
                                       const _SlReportInfo *info,
                                       SlTime               t0,
                                       SlTime               t1,
                                       gint                 source,
                                       GError             **error)
{
  g_autoptr (GArray) ranges = g_array_new (FALSE, FALSE, sizeof (PushPop));
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GString) stack = g_string_new (NULL);
  g_autoptr (GString) tree = g_string_new (NULL);
  g_autoptr (GArray) chain = g_array_new (FALSE, FALSE, sizeof (guint32));

  if (!_sl_stats_trace_has (trace, SL_LANE_NVTX, source))
    return _sl_stats_no_data (trace, error, "NV Tools Extension (NVTX) data"), NULL;
  gboolean by_rowid = _sl_nvtx_ranges_have_rowids (trace);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_NVTX || !_sl_stats_lane_in (lane, source))
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          if (ev->link & (SL_NVTX_MARK | SL_NVTX_START_END))
            continue;
          PushPop pp = { ev, lane, _sl_nvtx_range_id (lane, k, by_rowid), lane->thread, -1, 0, 0,
                         0 };
          g_array_append_val (ranges, pp);
        }
    }
  if (ranges->len == 0)
    return _sl_stats_no_data (trace, error, "NVTX push/pop ranges"), NULL;
  g_array_sort (ranges, compare_pushpop_nesting);
  PushPop *all = (PushPop *) (void *) ranges->data;
  pushpop_nest (all, ranges->len);
  for (guint i = 0; i < ranges->len; i++)
    if (all[i].ev->start >= t0 && all[i].ev->start < t1)
      g_array_append_val (rows, i);
  g_array_sort_with_data (rows, compare_pushpop_rows, all);

  SlReport *r = _sl_report_new (trace, info);
  for (guint i = 0; i < rows->len; i++)
    {
      const PushPop *pp = &all[g_array_index (rows, guint, i)];
      const SlThread *thread = lane_thread (trace, pp->lane);
      const char *name = range_name (r, pp->ev, FALSE);
      SlTime dur = pp->ev->end - pp->ev->start;

      g_array_set_size (chain, 0);
      for (const PushPop *up = pp;; up = &all[up->parent])
        {
          g_array_append_val (chain, up->id);
          if (up->parent < 0)
            break;
        }
      g_string_truncate (stack, 0);
      for (guint k = chain->len; k-- > 0;)
        g_string_append_printf (stack, ":%u", g_array_index (chain, guint32, k));
      g_string_truncate (tree, 0);
      for (guint32 l = 0; l < pp->level; l++)
        g_string_append (tree, "--");
      g_string_append (tree, name);

      _sl_report_add_int (r, pp->ev->start);
      _sl_report_add_int (r, pp->ev->end);
      _sl_report_add_int (r, dur);
      _sl_report_add_int (r, pp->dur_child);
      _sl_report_add_int (r, dur - pp->dur_child);
      _sl_report_add_text (r, name);
      thread != NULL ? _sl_report_add_int (r, thread->pid) : _sl_report_add_null (r);
      thread != NULL ? _sl_report_add_int (r, thread->tid) : _sl_report_add_null (r);
      _sl_report_add_int (r, pp->level);
      _sl_report_add_int (r, pp->n_child);
      _sl_report_add_int (r, pp->id);
      if (pp->parent >= 0)
        _sl_report_add_int (r, all[pp->parent].id);
      else
        _sl_report_add_null (r);
      _sl_report_add_text (r, g_string_chunk_insert (r->strings, stack->str));
      _sl_report_add_text (r, g_string_chunk_insert (r->strings, tree->str));
    }
  return r;
}
