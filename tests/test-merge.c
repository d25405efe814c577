/* test-merge.c: several traces as one (model/sl-trace-merge.c): the two ranks of a PyTorch run,
 * two nsys exports, a file merged with itself, planted traces without wall clocks, bad files
 * among good ones; each source's figures against the same file loaded alone, alignment against
 * the wall clocks the files hold (read here with SQL), links, indexes and reports after the
 * move. */
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

#include "sl-analyze.h"
#include "sl-comm.h"
#include "sl-cpu-util.h"
#include "sl-inventory.h"
#include "sl-lane.h"
#include "sl-plant.h"
#include "sl-stats.h"
#include "sl-test-util.h"
#include "sl-trace.h"
#include "sl-utilization.h"

#define RANK0 "pytorch/trace_filter_sampled_rank-0.json.gz"
#define RANK1 "pytorch/trace_filter_sampled_rank-1.json.gz"
#define H100  "nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite"
#define MFU   "nsys/nsys-2026.2-mfu-2gpu.sqlite"

static SlTrace *
load (const char *relative)
{
  g_autofree char *path = sl_test_trace_path (relative);
  g_autoptr (GError) error = NULL;
  SlTrace *trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static SlTrace *
load_merged (const char *const *relative,
             guint              n,
             const SlTime      *offsets)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (paths, g_str_has_prefix (relative[i], "/")
                              ? g_strdup (relative[i]) : sl_test_trace_path (relative[i]));
  SlTrace *trace = sl_trace_load_merged ((const char *const *) paths->pdata, n, SL_LOAD_ALL,
                                         offsets, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static gboolean
has_warning (SlTrace    *trace,
             const char *a,
             const char *b)
{
  for (const char *const *w = sl_trace_get_warnings (trace); *w != NULL; w++)
    if (strstr (*w, a) != NULL && (b == NULL || strstr (*w, b) != NULL))
      return TRUE;
  return FALSE;
}

/* ---- what a source holds, by name --------------------------------------------------------- */

typedef struct
{
  gint64 count;
  gint64 total;
} Sum;

/* name -> Sum over the lanes of `kind` of source `source`. */
static GHashTable *
name_sums (SlTrace    *trace,
           guint       source,
           SlLaneKind  kind)
{
  GHashTable *sums = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != kind || lane->source != source)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const char *name = sl_trace_str (trace, lane->events[k].name);
          Sum *s = g_hash_table_lookup (sums, name);
          if (s == NULL)
            g_hash_table_insert (sums, g_strdup (name), s = g_new0 (Sum, 1));
          s->count++;
          s->total += lane->events[k].end - lane->events[k].start;
        }
    }
  return sums;
}

static void
assert_same_sums (GHashTable *a,
                  GHashTable *b)
{
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpuint (g_hash_table_size (a), ==, g_hash_table_size (b));
  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const Sum *x = value, *y = g_hash_table_lookup (b, key);
      if (y == NULL)
        g_error ("'%s' is missing", (const char *) key);
      g_assert_cmpint (x->count, ==, y->count);
      g_assert_cmpint (x->total, ==, y->total);
    }
}

/* Every kind of lane of `source` in the merged trace holds what the file alone holds, name by
 * name. */
static void
assert_source_like (SlTrace *merged,
                    guint    source,
                    SlTrace *alone)
{
  for (guint kind = 0; kind < SL_N_LANE_KINDS; kind++)
    {
      g_autoptr (GHashTable) a = name_sums (merged, source, kind);
      g_autoptr (GHashTable) b = name_sums (alone, 0, kind);
      assert_same_sums (a, b);
    }
}

/* The lanes of `source`, in order, are the file's lanes, their events shifted by the offset;
 * overlap queries and the level of detail (interval trees and LOD pyramids moved and shifted)
 * answer as on the file alone. */
static void
assert_lanes_shifted (SlTrace *merged,
                      guint    source,
                      SlTrace *alone,
                      guint   *trees)
{
  SlTime off = sl_trace_get_source (merged, source)->offset;
  guint k = 0;
  g_autoptr (GArray) la = g_array_new (FALSE, FALSE, sizeof (SlLodItem));
  g_autoptr (GArray) lb = g_array_new (FALSE, FALSE, sizeof (SlLodItem));

  for (guint i = 0; i < sl_trace_get_n_lanes (merged); i++)
    {
      const SlLane *a = sl_trace_get_lane (merged, i);
      if (a->source != source)
        continue;
      g_assert_cmpuint (k, <, sl_trace_get_n_lanes (alone));
      const SlLane *b = sl_trace_get_lane (alone, k++);
      g_assert_cmpint (a->kind, ==, b->kind);
      g_assert_cmpuint (a->n_events, ==, b->n_events);
      g_assert_cmpint (a->busy, ==, b->busy);
      g_assert_cmpuint (a->depth, ==, b->depth);
      g_assert_cmpuint (a->stream_id, ==, b->stream_id);
      for (gsize e = 0; e < a->n_events; e++)
        {
          g_assert_cmpint (a->events[e].start, ==, b->events[e].start + off);
          g_assert_cmpint (a->events[e].end, ==, b->events[e].end + off);
        }
      SlTime t0 = b->events[0].start, t1 = b->events[b->n_events - 1].end + 1;
      trees[0] += b->max_end != NULL;
      trees[1] += b->n_lod > 0;
      for (guint q = 0; q < 4; q++)
        {
          SlTime w0 = t0 + (t1 - t0) * q / 5, w1 = t0 + (t1 - t0) * (q + 2) / 5;
          g_assert_cmpuint (sl_lane_overlap (a, w0 + off, w1 + off, NULL, NULL), ==,
                            sl_lane_overlap (b, w0, w1, NULL, NULL));
          /* a few pixels: the pyramid's buckets; many: the events */
          guint px = q == 0 ? 4 : q == 1 ? 32 : 800;
          sl_lane_lod (a, w0 + off, w1 + off, px, 2.0, la);
          sl_lane_lod (b, w0, w1, px, 2.0, lb);
          g_assert_cmpuint (la->len, ==, lb->len);
          for (guint it = 0; it < la->len; it++)
            {
              const SlLodItem *x = &g_array_index (la, SlLodItem, it);
              const SlLodItem *y = &g_array_index (lb, SlLodItem, it);
              g_assert_cmpint (x->start, ==, y->start + off);
              g_assert_cmpint (x->end, ==, y->end + off);
              g_assert_cmpuint (x->count, ==, y->count);
              g_assert_cmpint (x->busy, ==, y->busy);
            }
        }
    }
  g_assert_cmpuint (k, ==, sl_trace_get_n_lanes (alone));
}

/* A GPU's busy time over any window of its file, shifted, is what it was. */
static void
assert_gpus_shifted (SlTrace *merged,
                     guint    source,
                     SlTrace *alone)
{
  SlTime off = sl_trace_get_source (merged, source)->offset;
  SlTime t0 = sl_trace_get_start (alone), t1 = sl_trace_get_end (alone) + 1;
  guint k = 0;

  for (guint g = 0; g < sl_trace_get_n_gpus (merged); g++)
    {
      const SlGpu *gpu = sl_trace_get_gpu (merged, g);
      if (gpu->source != source)
        continue;
      g_assert_cmpuint (k, <, sl_trace_get_n_gpus (alone));
      g_assert_cmpuint (gpu->device_id, ==, sl_trace_get_gpu (alone, k)->device_id);
      g_assert_cmpstr (sl_trace_str (merged, gpu->name), ==,
                       sl_trace_str (alone, sl_trace_get_gpu (alone, k)->name));
      for (guint kind = SL_UTIL_KERNELS; kind <= SL_UTIL_ANY; kind++)
        {
          g_assert_cmpuint (sl_trace_gpu_busy_intervals (merged, g, kind), ==,
                            sl_trace_gpu_busy_intervals (alone, k, kind));
          for (guint q = 0; q < 5; q++)
            {
              SlTime w0 = t0 + (t1 - t0) * q / 7, w1 = t0 + (t1 - t0) * (q + 3) / 7;
              g_assert_cmpint (sl_trace_gpu_busy_time (merged, g, kind, w0 + off, w1 + off), ==,
                               sl_trace_gpu_busy_time (alone, k, kind, w0, w1));
            }
        }
      k++;
    }
  g_assert_cmpuint (k, ==, sl_trace_get_n_gpus (alone));
}

/* Every link of GPU work goes to a CUDA call of the same file with the same correlation id, and
 * as many are linked as in the file alone. */
static gsize
count_links (SlTrace *trace,
             guint    source)
{
  gsize linked = 0;

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->source != source)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          const SlLane *other;
          gsize index;
          if (lane->gpu < 0 || ev->link == SL_NO_LINK)
            {
              /* a call's link points at GPU work of its own file */
              if (lane->kind == SL_LANE_CUDA_API && ev->link != SL_NO_LINK)
                {
                  g_assert_true (sl_trace_resolve (trace, ev->link, &other, &index));
                  g_assert_cmpint (other->gpu, >=, 0);
                  g_assert_cmpuint (other->source, ==, source);
                  g_assert_cmpuint (other->events[index].corr, ==, ev->corr);
                }
              continue;
            }
          g_assert_true (sl_trace_resolve (trace, ev->link, &other, &index));
          g_assert_cmpint (other->kind, ==, SL_LANE_CUDA_API);
          g_assert_cmpuint (other->source, ==, source);
          g_assert_cmpuint (other->events[index].corr, ==, ev->corr);
          g_assert_cmpuint (other->global_pid, ==, lane->global_pid);
          linked++;
        }
    }
  return linked;
}

static gsize
count_in (SlTrace    *trace,
          guint       source,
          const char *what)
{
  gsize n = 0;
  if (g_str_equal (what, "processes"))
    for (guint i = 0; i < sl_trace_get_n_processes (trace); i++)
      n += sl_trace_get_process (trace, i)->source == source;
  else if (g_str_equal (what, "threads"))
    for (guint i = 0; i < sl_trace_get_n_threads (trace); i++)
      n += sl_trace_get_thread (trace, i)->source == source;
  else
    for (guint i = 0; i < sl_trace_get_n_gpus (trace); i++)
      n += sl_trace_get_gpu (trace, i)->source == source;
  return n;
}

/* The merged trace against each file alone: counts, names, lanes, GPUs, links.  Counts in
 * `trees` the lanes with an interval tree and those with a LOD pyramid. */
static void
assert_merge_of (SlTrace  *merged,
                 SlTrace **alone,
                 guint     n,
                 guint    *trees)
{
  gsize events = 0;
  guint processes = 0, threads = 0, gpus = 0;

  g_assert_cmpuint (sl_trace_get_n_sources (merged), ==, n);
  for (guint s = 0; s < n; s++)
    {
      const SlSource *src = sl_trace_get_source (merged, s);
      SlTrace *t = alone[s];
      events += sl_trace_get_n_events (t);
      processes += sl_trace_get_n_processes (t);
      threads += sl_trace_get_n_threads (t);
      gpus += sl_trace_get_n_gpus (t);
      g_assert_cmpuint (src->n_events, ==, sl_trace_get_n_events (t));
      g_assert_cmpint (src->start, ==, sl_trace_get_start (t) + src->offset);
      g_assert_cmpint (src->end, ==, sl_trace_get_end (t) + src->offset);
      g_assert_cmpuint (count_in (merged, s, "processes"), ==, sl_trace_get_n_processes (t));
      g_assert_cmpuint (count_in (merged, s, "threads"), ==, sl_trace_get_n_threads (t));
      g_assert_cmpuint (count_in (merged, s, "gpus"), ==, sl_trace_get_n_gpus (t));
      assert_source_like (merged, s, t);
      assert_lanes_shifted (merged, s, t, trees);
      assert_gpus_shifted (merged, s, t);
      g_assert_cmpuint (count_links (merged, s), ==, count_links (t, 0));
      g_assert_cmpuint (count_links (merged, s), >, 0);
    }
  g_assert_cmpuint (sl_trace_get_n_events (merged), ==, events);
  g_assert_cmpuint (sl_trace_get_n_processes (merged), ==, processes);
  g_assert_cmpuint (sl_trace_get_n_threads (merged), ==, threads);
  g_assert_cmpuint (sl_trace_get_n_gpus (merged), ==, gpus);

  /* global ids are dense and in lane order */
  guint32 base = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (merged); i++)
    {
      const SlLane *lane = sl_trace_get_lane (merged, i);
      g_assert_cmpuint (lane->base, ==, base);
      g_assert_cmpuint (lane->index, ==, i);
      base += lane->n_events;
      /* a lane's thread or GPU is of its own file */
      if (lane->thread >= 0)
        g_assert_cmpuint (sl_trace_get_thread (merged, lane->thread)->source, ==, lane->source);
      if (lane->gpu >= 0)
        g_assert_cmpuint (sl_trace_get_gpu (merged, lane->gpu)->source, ==, lane->source);
    }
  /* a thread's process is of its file; no two processes share a global pid */
  for (guint i = 0; i < sl_trace_get_n_threads (merged); i++)
    {
      const SlThread *t = sl_trace_get_thread (merged, i);
      g_assert_cmpuint (sl_trace_get_process (merged, t->process)->source, ==, t->source);
      g_assert_cmpuint (sl_trace_get_process (merged, t->process)->global_pid, ==,
                        t->global_tid & G_GUINT64_CONSTANT (0xFFFFFFFFFF000000));
    }
  g_autoptr (GHashTable) gpids = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint i = 0; i < sl_trace_get_n_processes (merged); i++)
    {
      const SlProcess *p = sl_trace_get_process (merged, i);
      g_assert_false (g_hash_table_contains (gpids, &p->global_pid));
      g_hash_table_add (gpids, (gpointer) &p->global_pid);
    }
}

/* Reports and rules run on a merged trace as on any. */
static void
assert_downstream_runs (SlTrace *merged)
{
  for (const char *const *name = sl_report_names (); *name != NULL; name++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlReport) report = sl_report_compute (merged, *name, &error);
      if (report == NULL)
        g_assert_error (error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (SlAnalysis) analysis = sl_analyze (merged, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autofree char *text = sl_analysis_to_text (analysis, merged);
  g_assert_nonnull (text);
}

/* ---- the two ranks of a PyTorch run ------------------------------------------------------- */

static void
test_pytorch_ranks (void)
{
  const char *files[] = { RANK0, RANK1 };
  g_autoptr (SlTrace) merged = load_merged (files, 2, NULL);
  SlTrace *alone[2] = { load (RANK0), load (RANK1) };
  guint trees[2] = { 0, 0 };

  assert_merge_of (merged, alone, 2, trees);
  g_assert_cmpstr (sl_trace_get_source (merged, 0)->label, ==, "rank 0");
  g_assert_cmpstr (sl_trace_get_source (merged, 1)->label, ==, "rank 1");
  g_assert_cmpint (sl_trace_get_source (merged, 0)->rank, ==, 0);
  g_assert_cmpint (sl_trace_get_source (merged, 1)->rank, ==, 1);
  /* Kineto's times are the wall clock (ns since 1970): both keep them */
  for (guint s = 0; s < 2; s++)
    {
      const SlSource *src = sl_trace_get_source (merged, s);
      g_assert_true (src->has_clock);
      g_assert_cmpint (src->offset, ==, 0);
      g_assert_cmpint (src->wall_start, ==, sl_trace_get_start (alone[s]));
    }
  g_assert_cmpint (sl_trace_get_start (merged), ==,
                   MIN (sl_trace_get_start (alone[0]), sl_trace_get_start (alone[1])));
  g_assert_cmpint (sl_trace_get_end (merged), ==,
                   MAX (sl_trace_get_end (alone[0]), sl_trace_get_end (alone[1])));
  /* they overlap: no warning says otherwise */
  g_assert_false (has_warning (merged, "does not overlap", NULL));

  /* the reports of the merged trace add up the files' */
  const char *reports[] = { "cuda_gpu_kern_sum", "cuda_api_sum" };
  const char *counts[] = { "Instances", "Num Calls" };
  for (guint r = 0; r < G_N_ELEMENTS (reports); r++)
    {
      gint64 instances[2] = { 0, 0 };
      SlTrace *traces[2] = { merged, NULL };
      for (guint s = 0; s < 2; s++)
        for (guint t = 0; t < (s == 0 ? 1u : 2u); t++)
          {
            g_autoptr (SlReport) rep = sl_report_compute (s == 0 ? traces[0] : alone[t],
                                                          reports[r], NULL);
            g_assert_nonnull (rep);
            gint col = sl_report_find_column (rep, counts[r]);
            g_assert_cmpint (col, >=, 0);
            for (gsize row = 0; row < sl_report_get_n_rows (rep); row++)
              instances[s] += sl_report_get_cell (rep, row, col)->v.i;
          }
      g_assert_cmpint (instances[0], ==, instances[1]);
      g_assert_cmpint (instances[0], >, 0);
    }

  /* a rank a file (issue 28, item 6): each one's communication figures, taken GPU by GPU, are
   * its file's alone, where the file is one rank; the straggler rule compares their steps */
  g_autoptr (GArray) ranks = sl_trace_comm_ranks (merged);
  g_assert_cmpuint (ranks->len, ==, 2);
  for (guint s = 0; s < 2; s++)
    {
      const SlCommRank *r = &g_array_index (ranks, SlCommRank, s);
      SlCommTimes in_merged, in_file;
      g_autoptr (GArray) one = sl_trace_comm_ranks (alone[s]);

      g_assert_cmpstr (r->label, ==, sl_trace_get_source (merged, s)->label);
      g_assert_cmpint (r->source, ==, (gint) s);
      sl_trace_rank_comm_times (merged, r, G_MININT64, G_MAXINT64, &in_merged);
      sl_trace_comm_times (alone[s], -1, G_MININT64, G_MAXINT64, &in_file);
      g_assert_cmpint (in_merged.comm_busy, >, 0);
      g_assert_cmpint (in_merged.comm_time, ==, in_file.comm_time);
      g_assert_cmpint (in_merged.comm_busy, ==, in_file.comm_busy);
      g_assert_cmpint (in_merged.overlap, ==, in_file.overlap);
      g_assert_cmpuint (one->len, ==, 1);
    }
  {
    const char *const rules[] = { "straggler", NULL };
    g_autoptr (GError) error = NULL;
    g_autoptr (SlAnalysis) a = sl_analyze (merged, rules, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (a->summaries->len, ==, 1);
    g_assert_cmpstr (g_array_index (a->summaries, SlRuleSummary, 0).note, ==, "2 ranks, 2 steps");
  }
  assert_downstream_runs (merged);
  sl_trace_unref (alone[0]);
  sl_trace_unref (alone[1]);
}

/* ---- two nsys exports, through sl_trace_merge ------------------------------------------- */

/* The wall clock of an export's time 0, as nsys's tables say: the capture's start, which is 0 on
 * the exported time line (not ANALYSIS_DETAILS.startTime nor systemClockNs, the target's own
 * clock; see test_nsys_wall_clock). */
static gint64
nsys_wall_zero (const char *relative)
{
  g_autofree char *path = sl_test_trace_path (relative);
  struct sqlite3 *db = sl_test_open_db (path);
  gint64 w = sl_test_sql_int (db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
  sqlite3_close (db);
  return w;
}

static void
assert_same_report (SlReport *a,
                    SlReport *b)
{
  g_assert_cmpuint (sl_report_get_n_rows (a), ==, sl_report_get_n_rows (b));
  g_assert_cmpuint (sl_report_get_n_columns (a), ==, sl_report_get_n_columns (b));
  for (gsize r = 0; r < sl_report_get_n_rows (a); r++)
    for (guint c = 0; c < sl_report_get_n_columns (a); c++)
      {
        const SlCell *x = sl_report_get_cell (a, r, c), *y = sl_report_get_cell (b, r, c);
        g_assert_cmpint (x->type, ==, y->type);
        if (x->type == SL_CELL_INT)
          g_assert_cmpint (x->v.i, ==, y->v.i);
        else if (x->type == SL_CELL_DOUBLE)
          g_assert_cmpfloat_with_epsilon (x->v.d, y->v.d, 1e-9 * MAX (1.0, ABS (y->v.d)));
        else if (x->type == SL_CELL_TEXT)
          g_assert_cmpstr (x->v.s, ==, y->v.s);
      }
}

static void
test_nsys_pair (void)
{
  SlTrace *traces[2] = { load (H100), load (MFU) };
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) merged = sl_trace_merge (traces, 2, NULL, &error);
  g_assert_no_error (error);
  SlTrace *alone[2] = { load (H100), load (MFU) };
  guint trees[2] = { 0, 0 };

  assert_merge_of (merged, alone, 2, trees);
  /* GPU 0 of each file is two GPUs */
  guint zeros = 0;
  for (guint g = 0; g < sl_trace_get_n_gpus (merged); g++)
    zeros += sl_trace_get_gpu (merged, g)->device_id == 0;
  g_assert_cmpuint (zeros, ==, 2);
  g_assert_cmpuint (sl_trace_get_gpu (merged, 0)->source, !=,
                    sl_trace_get_gpu (merged, sl_trace_get_n_gpus (merged) - 1)->source);

  /* the H100 file started first (2026-05-24) and keeps its times; the other is shifted by the
   * difference of their wall clocks, two days */
  gint64 w0 = nsys_wall_zero (H100), w1 = nsys_wall_zero (MFU);
  g_assert_cmpint (sl_trace_get_source (merged, 0)->offset, ==, 0);
  g_assert_cmpint (sl_trace_get_source (merged, 1)->offset, ==, w1 - w0);
  g_assert_cmpint (sl_trace_get_source (merged, 1)->wall_start, ==,
                   w1 + sl_trace_get_start (alone[1]));
  g_assert_cmpstr (sl_trace_get_source (merged, 0)->label, ==, "nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_assert_cmpint (sl_trace_get_source (merged, 0)->rank, ==, -1);
  /* two days apart: a warning naming both */
  g_assert_true (has_warning (merged, "does not overlap", "nsys-2026.2-mfu-2gpu.sqlite"));

  /* apart in time, each file's reports are those of its span of the merged trace */
  const char *reports[] = { "cuda_gpu_kern_sum", "cuda_api_sum", "cuda_gpu_mem_time_sum",
                            "nvtx_sum", "cuda_kern_exec_sum" };
  for (guint s = 0; s < 2; s++)
    for (guint r = 0; r < G_N_ELEMENTS (reports); r++)
      {
        const SlSource *src = sl_trace_get_source (merged, s);
        g_autoptr (SlReport) a = sl_report_compute_range (merged, reports[r], src->start,
                                                          src->end + 1, NULL);
        g_autoptr (SlReport) b = sl_report_compute (alone[s], reports[r], NULL);
        g_assert_nonnull (a);
        g_assert_nonnull (b);
        assert_same_report (a, b);
      }
  assert_downstream_runs (merged);

  /* what reads the files themselves: the inventory (About This Trace) lists each file's tables
   * under its label; the machine's cores are the most either file says */
  g_autoptr (SlInventory) inv = sl_inventory_new (merged, &error);
  g_assert_no_error (error);
  g_assert_nonnull (inv);
  g_autoptr (SlCpuUtil) util = sl_cpu_util_new (merged);
  g_autoptr (SlCpuUtil) util0 = sl_cpu_util_new (alone[0]);
  g_autoptr (SlCpuUtil) util1 = sl_cpu_util_new (alone[1]);
  g_assert_cmpuint (sl_cpu_util_machine_cores (util, NULL, NULL), ==,
                    MAX (sl_cpu_util_machine_cores (util0, NULL, NULL),
                         sl_cpu_util_machine_cores (util1, NULL, NULL)));
  g_assert_cmpuint (sl_cpu_util_machine_cores (util, NULL, NULL), >, 0);
  sl_trace_unref (alone[0]);
  sl_trace_unref (alone[1]);
}

/* ---- one file twice: the same rank, the same pids ----------------------------------------- */

static void
test_self (void)
{
  const char *files[] = { RANK0, RANK0 };
  g_autoptr (SlTrace) merged = load_merged (files, 2, NULL);
  SlTrace *alone[2] = { load (RANK0), load (RANK0) };
  guint trees[2] = { 0, 0 };

  assert_merge_of (merged, alone, 2, trees);
  const char *l0 = sl_trace_get_source (merged, 0)->label;
  const char *l1 = sl_trace_get_source (merged, 1)->label;
  g_assert_cmpstr (l0, ==, "rank 0 (trace_filter_sampled_rank-0.json.gz)");
  g_assert_cmpstr (l1, !=, l0);
  g_assert_true (g_str_has_prefix (l1, l0));
  g_assert_true (has_warning (merged, "both say they are rank 0", NULL));
  /* the same pids in both, kept apart */
  g_assert_cmpuint (sl_trace_get_process (merged, 0)->pid, ==,
                    sl_trace_get_process (merged, sl_trace_get_n_processes (alone[0]))->pid);
  sl_trace_unref (alone[0]);
  sl_trace_unref (alone[1]);
}

/* ---- an nsys export's wall clock ---------------------------------------------------------- */

/* Every shared nsys export that says when its capture started, merged with itself: its events
 * lie on the wall clock within the capture, [utcEpochNs, utcEpochNs + ANALYSIS_DETAILS.duration]
 * (RUN_DURATION_MS), as they happened; its first event exactly utcEpochNs after time 0.  Taking
 * ANALYSIS_DETAILS.startTime or systemClockNs as time 0's place on the exported time line (the
 * target's own clock: 0.25 s to 6 days of uptime in these files) put 12 of these 14 files'
 * events before their capture began, by up to 6 days. */
static void
test_nsys_wall_clock (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();
  guint checked = 0;

  for (char **f = files; *f != NULL; f++)
    {
      struct sqlite3 *db = sl_test_open_db (*f);
      gboolean has = sl_test_sql_int (db, "SELECT COUNT(*) FROM sqlite_master WHERE name IN "
                                          "('TARGET_INFO_SESSION_START_TIME', "
                                          "'ANALYSIS_DETAILS')") == 2;
      gint64 utc = has ? sl_test_sql_int (db, "SELECT utcEpochNs "
                                              "FROM TARGET_INFO_SESSION_START_TIME") : 0;
      gint64 duration = has ? sl_test_sql_int (db, "SELECT duration FROM ANALYSIS_DETAILS") : 0;
      sqlite3_close (db);
      if (!has)
        continue;

      const char *both[] = { *f, *f };
      g_autoptr (SlTrace) merged = load_merged (both, 2, NULL);
      g_autoptr (SlTrace) alone = sl_trace_load (*f, SL_LOAD_ALL, NULL, NULL, NULL, NULL);
      g_assert_nonnull (alone);
      g_autofree char *base = g_path_get_basename (*f);
      for (guint s = 0; s < 2; s++)
        {
          const SlSource *src = sl_trace_get_source (merged, s);
          g_test_message ("%s: first event %" G_GINT64_FORMAT " ns into the capture, last end %"
                          G_GINT64_FORMAT " of %" G_GINT64_FORMAT, base, src->wall_start - utc,
                          src->wall_start + (src->end - src->start) - utc, duration);
          g_assert_true (src->has_clock);
          g_assert_cmpint (src->offset, ==, 0);
          g_assert_cmpint (src->wall_start, ==, utc + sl_trace_get_start (alone));
          g_assert_cmpint (src->wall_start, >=, utc);
          g_assert_cmpint (src->wall_start + (src->end - src->start), <=, utc + duration);
        }
      checked++;
    }
  g_assert_cmpuint (checked, >=, 14);
}

/* A copy of a real export as `nsys export --ts-shift` writes it: every time `by` ns later
 * (ANALYSIS_DETAILS's too, whatever nsys does with it) and EXPORT_PARAM_TIME_SHIFT saying so. */
static char *
shifted_copy (const char *relative,
              const char *name,
              gint64      by)
{
  char *path = sl_test_copy_trace (relative, name);
  struct sqlite3 *db = sl_test_open_db (path);
  g_autofree char *query = g_strdup_printf (
    "SELECT group_concat('UPDATE \"' || m.name || '\" SET \"' || c.name || '\" = \"' || c.name "
    "|| '\" + %" G_GINT64_FORMAT ";', '') FROM sqlite_master m, pragma_table_info (m.name) c "
    "WHERE m.type = 'table' AND c.name IN ('start', 'end', 'timestamp', 'startTime', "
    "'stopTime')", by);
  g_autofree char *updates = sl_test_sql_text (db, query);
  sqlite3_close (db);
  g_autofree char *sql = g_strdup_printf ("BEGIN; %s UPDATE META_DATA_EXPORT SET value = '%"
                                          G_GINT64_FORMAT "' WHERE name = "
                                          "'EXPORT_PARAM_TIME_SHIFT'; COMMIT;", updates, by);
  sl_test_exec_sql (path, sql);
  return path;
}

static gint
cmp_times (gconstpointer a,
           gconstpointer b)
{
  const SlTime *x = a, *y = b;

  return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* The (start, end) of every event of `kind` of source `source`, sorted. */
static GArray *
source_times (SlTrace    *trace,
              guint       source,
              SlLaneKind  kind)
{
  GArray *times = g_array_new (FALSE, FALSE, sizeof (SlTime) * 2);

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != kind || lane->source != source)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          SlTime t[2] = { lane->events[k].start, lane->events[k].end };
          g_array_append_val (times, t);
        }
    }
  g_array_sort (times, cmp_times);
  return times;
}

/* An export and the same capture exported with --ts-shift: their wall clocks agree, so merged,
 * every kernel, copy, CUDA call and NVTX range of the one lies on its twin to the nanosecond. */
static void
test_nsys_ts_shift (void)
{
  const SlTime by = G_GINT64_CONSTANT (7000000123);
  g_autofree char *later = shifted_copy (H100, "shifted.sqlite", by);
  const char *files[] = { H100, later };
  g_autoptr (SlTrace) merged = load_merged (files, 2, NULL);
  g_autoptr (SlTrace) copy = sl_trace_load (later, SL_LOAD_ALL, NULL, NULL, NULL, NULL);

  g_assert_nonnull (copy);
  g_assert_cmpint (sl_trace_get_start (copy), ==, sl_trace_get_start (merged) + by);
  g_assert_cmpint (sl_trace_get_origin (copy), ==, by);
  g_assert_cmpint (sl_trace_get_source (merged, 0)->offset, ==, 0);
  g_assert_cmpint (sl_trace_get_source (merged, 1)->offset, ==, -by);
  g_assert_cmpint (sl_trace_get_source (merged, 1)->wall_start, ==,
                   sl_trace_get_source (merged, 0)->wall_start);
  g_assert_false (has_warning (merged, "does not overlap", NULL));
  const SlLaneKind kinds[] = { SL_LANE_KERNELS, SL_LANE_MEMCPY, SL_LANE_CUDA_API, SL_LANE_NVTX };
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr (GArray) a = source_times (merged, 0, kinds[k]);
      g_autoptr (GArray) b = source_times (merged, 1, kinds[k]);
      g_assert_cmpuint (a->len, >, 0);
      g_assert_cmpuint (a->len, ==, b->len);
      g_assert_cmpmem (a->data, a->len * sizeof (SlTime) * 2, b->data,
                       b->len * sizeof (SlTime) * 2);
    }
}

/* ---- nsys exports that say their rank: the same one ------------------------------------- */

static void
test_nsys_ranks (void)
{
  /* SLURM_PROCID="0" and RANK="0" in the targets' recorded environments */
  const char *files[] = { "nsys/nsys-2023.3-t4-openmp.sqlite",
                          "nsys/nsys-2024.6-fuser-8gpu-nvtx.sqlite" };
  g_autoptr (SlTrace) merged = load_merged (files, 2, NULL);

  for (guint s = 0; s < 2; s++)
    {
      g_autofree char *base = g_path_get_basename (files[s]);
      g_autofree char *label = g_strdup_printf ("rank 0 (%s)", base);
      g_assert_cmpint (sl_trace_get_source (merged, s)->rank, ==, 0);
      g_assert_cmpstr (sl_trace_get_source (merged, s)->label, ==, label);
      g_assert_true (sl_trace_get_source (merged, s)->has_clock);
    }
  g_assert_true (has_warning (merged, "both say they are rank 0", NULL));
  /* 2023 and 2024 */
  g_assert_true (has_warning (merged, "does not overlap", NULL));
  g_assert_cmpint (sl_trace_get_source (merged, 0)->offset, ==, 0);
  g_assert_cmpint (sl_trace_get_source (merged, 1)->offset, >, 30 * 24 * 3600 * PLANT_S);
}

/* ---- bad files among good ones ------------------------------------------------------------ */

static void
test_bad_file (void)
{
  g_autofree char *garbage = g_build_filename (sl_test_tmpdir (), "garbage.sqlite", NULL);
  g_autofree char *missing = g_build_filename (sl_test_tmpdir (), "missing.sqlite", NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (garbage, "this is not a trace\n", -1, NULL));
  const char *files[] = { RANK0, garbage, missing, RANK1 };
  g_autoptr (SlTrace) merged = load_merged (files, 4, NULL);
  g_assert_cmpuint (sl_trace_get_n_sources (merged), ==, 2);
  g_assert_cmpstr (sl_trace_get_source (merged, 1)->label, ==, "rank 1");
  g_assert_true (has_warning (merged, garbage, "left out"));
  g_assert_true (has_warning (merged, missing, "left out"));

  /* offsets go with their files, not with their positions among the files read */
  SlTime offsets[] = { SL_OFFSET_AUTO, 7, 8, 5 * PLANT_MS };
  g_autoptr (SlTrace) shifted = load_merged (files, 4, offsets);
  g_assert_cmpint (sl_trace_get_source (shifted, 1)->offset, ==, 5 * PLANT_MS);

  /* none readable: an error naming one */
  const char *bad[] = { garbage, missing };
  g_autofree char *p0 = g_strdup (garbage), *p1 = g_strdup (missing);
  const char *const paths[] = { p0, p1 };
  SlTrace *none = sl_trace_load_merged (paths, G_N_ELEMENTS (bad), SL_LOAD_ALL, NULL, NULL, NULL,
                                        NULL, &error);
  g_assert_null (none);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "none of the 2 traces"));
  g_assert_nonnull (strstr (error->message, garbage));
}

/* ---- offsets given, and aligning on a name ------------------------------------------------ */

/* The start of the first event named `name` in `source`, or G_MAXINT64. */
static SlTime
first_of (SlTrace    *trace,
          guint       source,
          const char *name)
{
  SlTime first = G_MAXINT64;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->source == source && k < lane->n_events; k++)
        if (g_str_equal (sl_trace_str (trace, lane->events[k].name), name))
          first = MIN (first, lane->events[k].start);
    }
  return first;
}

static void
test_offsets_and_align (void)
{
  const char *files[] = { RANK0, RANK1 };
  SlTime given[] = { SL_OFFSET_AUTO, -3 * PLANT_MS };
  g_autoptr (SlTrace) merged = load_merged (files, 2, given);
  g_autoptr (SlTrace) rank1 = load (RANK1);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (sl_trace_get_source (merged, 0)->offset, ==, 0);
  g_assert_cmpint (sl_trace_get_source (merged, 1)->offset, ==, -3 * PLANT_MS);
  g_assert_cmpint (sl_trace_get_source (merged, 1)->start, ==,
                   sl_trace_get_start (rank1) - 3 * PLANT_MS);

  /* a kernel both ranks ran: after aligning on it, its first runs start together */
  const char *name = NULL;
  for (guint i = 0; i < sl_trace_get_n_lanes (merged) && name == NULL; i++)
    {
      const SlLane *lane = sl_trace_get_lane (merged, i);
      if (lane->kind == SL_LANE_KERNELS && lane->source == 0
          && first_of (merged, 1, sl_trace_str (merged, lane->events[0].name)) != G_MAXINT64)
        name = sl_trace_str (merged, lane->events[0].name);
    }
  g_assert_nonnull (name);
  SlTime offset = 0;
  g_assert_true (sl_trace_align_on (merged, 1, name, &offset, &error));
  g_assert_no_error (error);
  g_assert_cmpint (first_of (merged, 0, name) - first_of (merged, 1, name), ==,
                   offset - sl_trace_get_source (merged, 1)->offset);
  SlTime again[] = { SL_OFFSET_AUTO, offset };
  g_autoptr (SlTrace) aligned = load_merged (files, 2, again);
  g_assert_cmpint (first_of (aligned, 0, name), ==, first_of (aligned, 1, name));
  /* source 0 with itself: nothing to move */
  g_assert_true (sl_trace_align_on (aligned, 0, name, &offset, NULL));
  g_assert_cmpint (offset, ==, 0);

  g_assert_false (sl_trace_align_on (merged, 1, "no event has this name", &offset, &error));
  g_assert_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE);
  g_clear_error (&error);
  g_assert_false (sl_trace_align_on (merged, 2, name, &offset, &error));
  g_assert_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE);
}

/* ---- planted traces: no wall clock, call chains, OS runtime backtraces ------------------- */

static char *
plant_file (const char *name,
            gint64      t,
            const char *leaf)
{
  char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
  Plant *p = plant_new (path);
  const char *frames[] = { leaf, "main@train" };
  const char *back[] = { "read@libc", leaf };

  /* 5000 kernels and calls: lanes with LOD pyramids */
  t = plant_loop (p, t, 5000, 10 * PLANT_US, 4 * PLANT_US, "step_kernel", &plant_config_full);
  /* a kernel that ends before the one before it: a lane with an interval tree */
  t = MAX (t, plant_gpu_free (p)) + PLANT_US;
  gint64 outer = plant_api (p, PLANT_MAIN, "cudaLaunchKernel", t, t + 5 * PLANT_US);
  gint64 inner = plant_api (p, PLANT_MAIN, "cudaLaunchKernel", t + 6 * PLANT_US, t + 9 * PLANT_US);
  plant_kernel (p, "outer_kernel", &plant_config_full, t + 10 * PLANT_US, t + 90 * PLANT_US, outer);
  plant_kernel (p, "inner_kernel", &plant_config_full, t + 20 * PLANT_US, t + 30 * PLANT_US, inner);
  plant_set_gpu_free (p, t + 90 * PLANT_US);
  t += 100 * PLANT_US;
  plant_osrt_backtrace (p, PLANT_MAIN, "read", t, t + 50 * PLANT_US, back, 2);
  plant_osrt_backtrace (p, PLANT_LOADER_0, "write", t + PLANT_US, t + 9 * PLANT_US, frames, 2);
  for (guint i = 0; i < 10; i++)
    plant_sample_stack (p, PLANT_MAIN, t + i * 100 * PLANT_US, frames, 2);
  plant_finish (p);
  plant_nvtx (path, PLANT_MAIN, 59, "epoch", t - PLANT_MS, t + PLANT_MS);
  return path;
}

/* A chain as text: "symbol@module;…". */
static char *
chain_text (SlTrace       *trace,
            guint          n,
            const guint32 *symbols,
            const guint32 *modules)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s@%s;", sl_trace_str (trace, symbols[i]),
                            sl_trace_str (trace, modules[i]));
  return g_string_free (s, FALSE);
}

/* Samples and OS runtime calls of `source` keep their stacks. */
static void
assert_chains (SlTrace *merged,
               guint    source,
               SlTrace *alone)
{
  guint k = 0, checked = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (merged); i++)
    {
      const SlLane *a = sl_trace_get_lane (merged, i);
      if (a->source != source)
        continue;
      const SlLane *b = sl_trace_get_lane (alone, k++);
      for (gsize e = 0; e < a->n_events; e++)
        {
          const guint32 *sa, *ma, *sb, *mb;
          guint na, nb;
          if (a->kind == SL_LANE_SAMPLES)
            {
              na = sl_trace_get_callchain (merged, a->events[e].aux, &sa, &ma);
              nb = sl_trace_get_callchain (alone, b->events[e].aux, &sb, &mb);
            }
          else if (a->kind == SL_LANE_OSRT)
            {
              na = sl_trace_get_osrt_callchain (merged, a->events[e].corr, &sa, &ma);
              nb = sl_trace_get_osrt_callchain (alone, b->events[e].corr, &sb, &mb);
            }
          else if (a->kind == SL_LANE_CUDA_API)
            {
              na = sl_trace_get_cuda_callchain (merged, a, &a->events[e], &sa, &ma);
              nb = sl_trace_get_cuda_callchain (alone, b, &b->events[e], &sb, &mb);
            }
          else
            continue;
          g_autofree char *ta = chain_text (merged, na, sa, ma);
          g_autofree char *tb = chain_text (alone, nb, sb, mb);
          g_assert_cmpstr (ta, ==, tb);
          checked += nb > 0;
        }
    }
  g_assert_cmpuint (checked, >=, 12);
}

/* Issue 30: CUDA calls keep their backtraces in a merge, each file's its own (two copies of one
 * file: the same processes and correlation ids in both, told apart by the merge's process tags). */
static void
test_cuda_backtraces (void)
{
  g_autofree char *a = sl_test_copy_trace ("nsys/nsys-2021-cuda-backtraces.sqlite", "cb-a.sqlite");
  g_autofree char *b = sl_test_copy_trace ("nsys/nsys-2021-cuda-backtraces.sqlite", "cb-b.sqlite");
  const char *files[] = { a, b };
  SlTime apart[] = { 0, 10 * PLANT_S };
  g_autoptr (SlTrace) merged = load_merged (files, 2, apart);
  g_autoptr (SlTrace) alone = sl_trace_load (a, SL_LOAD_ALL, NULL, NULL, NULL, NULL);

  g_assert_cmpuint (sl_trace_get_n_cuda_callchains (alone), ==, 18);
  g_assert_cmpuint (sl_trace_get_n_cuda_callchains (merged), ==, 36);
  assert_chains (merged, 0, alone);
  assert_chains (merged, 1, alone);
}

static void
test_planted (void)
{
  /* b starts earlier in its file than a: moved later, its indexes must move with it */
  g_autofree char *a = plant_file ("a.sqlite", 9 * PLANT_MS, "load_batch@loader");
  g_autofree char *b = plant_file ("b.sqlite", 2 * PLANT_MS, "decode@jpeg");
  const char *files[] = { a, b };
  g_autoptr (SlTrace) merged = load_merged (files, 2, NULL);
  SlTrace *alone[2] = { sl_trace_load (a, SL_LOAD_ALL, NULL, NULL, NULL, NULL),
                        sl_trace_load (b, SL_LOAD_ALL, NULL, NULL, NULL, NULL) };
  guint trees[2] = { 0, 0 };

  /* no wall clock in either: b's first event is put at a's */
  g_assert_false (sl_trace_get_source (merged, 1)->has_clock);
  g_assert_cmpint (sl_trace_get_source (merged, 1)->start, ==, sl_trace_get_start (alone[0]));
  g_assert_cmpint (sl_trace_get_source (merged, 1)->offset, ==,
                   sl_trace_get_start (alone[0]) - sl_trace_get_start (alone[1]));
  g_assert_true (has_warning (merged, "b.sqlite has no wall clock", NULL));
  g_assert_cmpstr (sl_trace_get_source (merged, 0)->label, ==, "a.sqlite");
  assert_merge_of (merged, alone, 2, trees);
  /* lanes with interval trees and LOD pyramids were moved, shifted and queried */
  g_assert_cmpuint (trees[0], >, 0);
  g_assert_cmpuint (trees[1], >, 0);
  g_assert_cmpint (sl_trace_get_source (merged, 1)->offset, >, 0);
  assert_chains (merged, 0, alone[0]);
  assert_chains (merged, 1, alone[1]);
  /* NVTX ranges keep their text (and domain) */
  g_assert_cmpint (first_of (merged, 1, "epoch"), ==,
                   first_of (alone[1], 0, "epoch") + sl_trace_get_source (merged, 1)->offset);

  /* put ten seconds apart, they do not overlap */
  SlTime apart[] = { 0, 10 * PLANT_S };
  g_autoptr (SlTrace) far = load_merged (files, 2, apart);
  g_assert_true (has_warning (far, "b.sqlite does not overlap in time with a.sqlite", "after"));
  g_assert_false (has_warning (far, "has no wall clock", NULL));
  sl_trace_unref (alone[0]);
  sl_trace_unref (alone[1]);
}

/* ---- what cannot be merged ---------------------------------------------------------------- */

static void
test_refused (void)
{
  g_autoptr (GError) error = NULL;
  SlTrace *t = load (RANK0);

  /* a trace someone else holds: its events cannot move */
  sl_trace_ref (t);
  SlTrace *one[] = { t };
  g_assert_null (sl_trace_merge (one, 1, NULL, &error));
  g_assert_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE);
  g_clear_error (&error);

  /* the same loaded trace twice (two references handed over) */
  sl_trace_ref (t);
  SlTrace *twice[] = { t, t };
  g_assert_null (sl_trace_merge (twice, 2, NULL, &error));
  g_assert_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE);
  g_clear_error (&error);

  g_assert_null (sl_trace_merge (NULL, 0, NULL, &error));
  g_assert_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE);
  g_clear_error (&error);

  /* a merged trace is not merged again */
  const char *files[] = { RANK0, RANK1 };
  SlTrace *merged = load_merged (files, 2, NULL);
  SlTrace *again[] = { merged };
  g_assert_null (sl_trace_merge (again, 1, NULL, &error));
  g_assert_error (error, SL_TRACE_ERROR, SL_TRACE_ERROR_MERGE);

  /* one file: one source, with its identity */
  g_autoptr (SlTrace) single = load (RANK1);
  g_assert_cmpuint (sl_trace_get_n_sources (single), ==, 1);
  g_assert_cmpstr (sl_trace_get_source (single, 0)->label, ==, "rank 1");
  g_assert_cmpint (sl_trace_get_source (single, 0)->offset, ==, 0);
}

/* ---- the command line --------------------------------------------------------------------- */

static void
test_cli (void)
{
  g_autofree char *r0 = sl_test_trace_path (RANK0);
  g_autofree char *r1 = sl_test_trace_path (RANK1);
  const char *bin = SL_SIGHTLINE_BIN;
  g_auto (SlTestRun) run = { 0 };

  sl_test_run (&run, bin, "info", "--merge", r0, r1, "/nonexistent/x.sqlite", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "Sources:    2 traces on one time axis"));
  g_assert_nonnull (strstr (run.out, "[1] rank 1"));
  g_assert_nonnull (strstr (run.out, "/nonexistent/x.sqlite: no such file"));
  sl_test_run_clear (&run);
  sl_test_run (&run, bin, "info", "--merge", "--format", "json", r0, r1, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "\"label\" : \"rank 1\""));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/merge/pytorch-ranks", test_pytorch_ranks);
  g_test_add_func ("/model/merge/nsys-pair", test_nsys_pair);
  g_test_add_func ("/model/merge/self", test_self);
  g_test_add_func ("/model/merge/nsys-wall-clock", test_nsys_wall_clock);
  g_test_add_func ("/model/merge/nsys-ts-shift", test_nsys_ts_shift);
  g_test_add_func ("/model/merge/nsys-ranks", test_nsys_ranks);
  g_test_add_func ("/model/merge/bad-file", test_bad_file);
  g_test_add_func ("/model/merge/offsets-align", test_offsets_and_align);
  g_test_add_func ("/model/merge/planted", test_planted);
  g_test_add_func ("/model/merge/cuda-backtraces", test_cuda_backtraces);
  g_test_add_func ("/model/merge/refused", test_refused);
  g_test_add_func ("/model/merge/cli", test_cli);
  return g_test_run ();
}
