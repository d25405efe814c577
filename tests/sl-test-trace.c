/* sl-test-trace.c: comparing two traces in tests (see sl-test-trace.h). */
#include "sl-test-trace.h"

#include <string.h>

#include "sl-lane.h"
#include "sl-mpi.h"
#include "sl-openmp.h"
#include "sl-stats.h"
#include "sl-trace-private.h"
#include "sl-utilization.h"

void
sl_test_assert_same_reports (SlTrace *a,
                             SlTrace *b)
{
  for (const char *const *n = sl_report_names (); *n != NULL; n++)
    {
      g_autoptr (GError) ea = NULL;
      g_autoptr (GError) eb = NULL;
      g_autoptr (SlReport) ra = sl_report_compute (a, *n, &ea);
      g_autoptr (SlReport) rb = sl_report_compute (b, *n, &eb);
      g_assert_true ((ra == NULL) == (rb == NULL));
      if (ra == NULL)
        {
          g_assert_cmpstr (ea->message, ==, eb->message);
          continue;
        }
      g_autoptr (GString) ta = g_string_new (NULL);
      g_autoptr (GString) tb = g_string_new (NULL);
      sl_report_write (ra, SL_REPORT_FORMAT_CSV, ta);
      sl_report_write (rb, SL_REPORT_FORMAT_CSV, tb);
      if (g_strcmp0 (ta->str, tb->str) != 0)
        g_test_message ("report %s differs", *n);
      g_assert_cmpstr (ta->str, ==, tb->str);
    }
}

/* What identifies a lane across two loads of one file. */
static char *
lane_key (SlTrace      *trace,
          const SlLane *lane)
{
  if (lane->gpu >= 0)
    return g_strdup_printf ("%d gpu %u pid %" G_GUINT64_FORMAT " ctx %u green %u stream %u",
                            lane->kind, sl_trace_get_gpu (trace, lane->gpu)->device_id,
                            lane->global_pid, lane->context_id, lane->green_context_id,
                            lane->stream_id);
  return g_strdup_printf ("%d tid %" G_GUINT64_FORMAT " depth %u", lane->kind,
                          sl_trace_get_thread (trace, lane->thread)->global_tid, lane->depth);
}

/* A global event id as "lane key #index". */
static char *
event_key (SlTrace *trace,
           guint32  id)
{
  const SlLane *lane;
  gsize index;

  if (id == SL_NO_LINK || !sl_trace_resolve (trace, id, &lane, &index))
    return g_strdup ("none");
  g_autofree char *key = lane_key (trace, lane);
  return g_strdup_printf ("%s #%" G_GSIZE_FORMAT, key, index);
}

static char *
chain_text (SlTrace *trace,
            guint32  aux)
{
  const guint32 *syms, *mods;
  guint n = sl_trace_get_callchain (trace, aux, &syms, &mods);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s@%s;", sl_trace_str (trace, syms[i]),
                            sl_trace_str (trace, mods[i]));
  return g_string_free (s, FALSE);
}

static void
assert_same_event (SlTrace       *ta,
                   const SlLane  *la,
                   const SlEvent *a,
                   SlTrace       *tb,
                   const SlEvent *b)
{
  g_assert_cmpint (a->start, ==, b->start);
  g_assert_cmpint (a->end, ==, b->end);
  g_assert_cmpstr (sl_trace_str (ta, a->name), ==, sl_trace_str (tb, b->name));
  switch (la->kind)
    {
    case SL_LANE_NVTX:
      g_assert_cmpstr (sl_trace_str (ta, a->corr), ==, sl_trace_str (tb, b->corr));
      g_assert_cmpuint (a->link, ==, b->link);
      g_assert_cmpuint (a->aux, ==, b->aux);
      return;
    case SL_LANE_SAMPLES:
      {
        g_assert_cmpuint (a->corr, ==, b->corr);
        g_autofree char *ca = chain_text (ta, a->aux);
        g_autofree char *cb = chain_text (tb, b->aux);
        g_assert_cmpstr (ca, ==, cb);
        return;
      }
    case SL_LANE_OPENMP:
    case SL_LANE_OPENACC:
      {
        /* their details field by field, strings by text: string ids and the details' indices
         * (corr) differ from trace to trace (an append numbers the new ones after the old) */
        g_assert_cmpuint (a->aux, ==, b->aux);
        g_assert_cmpuint (a->link, ==, b->link);
        g_autofree char *da = sl_omp_describe (ta, la, a);
        g_autofree char *db = sl_omp_describe (tb, la, b);
        g_assert_cmpstr (da, ==, db);
        const SlOmpEvent *x = sl_trace_get_omp_event (ta, la, a);
        const SlOmpEvent *y = sl_trace_get_omp_event (tb, la, b);
        g_assert_nonnull (x);
        g_assert_nonnull (y);
        g_assert_cmpstr (sl_trace_str (ta, x->file), ==, sl_trace_str (tb, y->file));
        g_assert_cmpstr (sl_trace_str (ta, x->func), ==, sl_trace_str (tb, y->func));
        g_assert_cmpstr (sl_trace_str (ta, x->var), ==, sl_trace_str (tb, y->var));
        SlOmpEvent cx = *x, cy = *y;
        cx.file = cx.func = cx.var = cy.file = cy.func = cy.var = 0;
        g_assert_cmpmem (&cx, sizeof cx, &cy, sizeof cy);
        return;
      }
    case SL_LANE_MPI:
      {
        /* the details by value (no strings in them), wherever each trace keeps them */
        g_assert_cmpuint (a->aux, ==, b->aux);
        g_assert_cmpuint (a->link, ==, b->link);
        const SlMpiCall *x = sl_trace_get_mpi_call (ta, la, a);
        const SlMpiCall *y = sl_trace_get_mpi_call (tb, la, b);
        g_assert_nonnull (x);
        g_assert_nonnull (y);
        g_assert_cmpmem (x, sizeof *x, y, sizeof *y);
        return;
      }
    case SL_LANE_SCHED:
    case SL_LANE_OSRT:
      g_assert_cmpuint (a->corr, ==, b->corr);
      g_assert_cmpuint (a->link, ==, b->link);
      g_assert_cmpuint (a->aux, ==, b->aux);
      return;
    case SL_LANE_KERNELS:
      {
        SlKernelInfo x = *sl_trace_get_kernel_info (ta, a->aux);
        SlKernelInfo y = *sl_trace_get_kernel_info (tb, b->aux);
        g_assert_cmpstr (sl_trace_str (ta, x.demangled_name), ==,
                         sl_trace_str (tb, y.demangled_name));
        g_assert_cmpstr (sl_trace_str (ta, x.short_name), ==, sl_trace_str (tb, y.short_name));
        g_assert_cmpstr (sl_trace_str (ta, x.mangled_name), ==,
                         sl_trace_str (tb, y.mangled_name));
        x.demangled_name = x.short_name = x.mangled_name = 0;
        y.demangled_name = y.short_name = y.mangled_name = 0;
        g_assert_cmpmem (&x, sizeof x, &y, sizeof y);
        break;
      }
    case SL_LANE_MEMCPY:
    case SL_LANE_MEMSET:
      {
        const SlCopyInfo *x = sl_trace_get_copy_info (ta, a->aux);
        const SlCopyInfo *y = sl_trace_get_copy_info (tb, b->aux);
        g_assert_cmpuint (x->bytes, ==, y->bytes);
        g_assert_cmpuint (x->value, ==, y->value);
        g_assert_cmpuint (x->copy_kind, ==, y->copy_kind);
        g_assert_cmpuint (x->src_kind, ==, y->src_kind);
        g_assert_cmpuint (x->dst_kind, ==, y->dst_kind);
        g_assert_cmpuint (x->mem_kind, ==, y->mem_kind);
        g_assert_cmpint (x->src_device, ==, y->src_device);
        g_assert_cmpint (x->dst_device, ==, y->dst_device);
        break;
      }
    case SL_LANE_CUDA_API:
    case SL_LANE_SYNC:
      g_assert_cmpuint (a->aux, ==, b->aux);
      break;
    case SL_N_LANE_KINDS:
    default:
      g_assert_not_reached ();
    }
  /* launches and GPU work: the correlation id, and the link to the other side by place */
  g_assert_cmpuint (a->corr, ==, b->corr);
  g_autofree char *lka = event_key (ta, a->link);
  g_autofree char *lkb = event_key (tb, b->link);
  g_assert_cmpstr (lka, ==, lkb);
}

static void
assert_same_lane (SlTrace      *ta,
                  const SlLane *a,
                  SlTrace      *tb,
                  const SlLane *b)
{
  g_assert_cmpint (a->kind, ==, b->kind);
  g_assert_cmpuint (a->depth, ==, b->depth);
  g_assert_cmpstr (sl_trace_str (ta, a->label), ==, sl_trace_str (tb, b->label));
  g_assert_cmpuint (a->n_events, ==, b->n_events);
  g_assert_cmpint (a->busy, ==, b->busy);
  g_assert_cmpint (a->max_level, ==, b->max_level);
  g_assert_true ((a->max_end == NULL) == (b->max_end == NULL));
  if (a->max_end != NULL)
    g_assert_cmpmem (a->max_end, a->n_events * 8, b->max_end, b->n_events * 8);
  g_assert_cmpuint (a->n_lod > 0, ==, b->n_lod > 0);
  g_assert_cmpint (a->lod_origin, ==, b->lod_origin);
  /* an append keeps its finest buckets' width while it stays within 4 times what a fresh build
   * would choose (sl-trace-extend.c): then its levels are those a build at that width gives */
  SlLane at_width = *b;
  if (a->n_lod > 0 && a->lod[0].width != b->lod[0].width)
    {
      g_assert_cmpint (a->lod[0].width, <=, 4 * b->lod[0].width);
      g_assert_cmpint (4 * a->lod[0].width, >=, b->lod[0].width);
      at_width.lod = NULL;
      at_width.n_lod = 0;
      _sl_lane_build_lod_width (&at_width, a->lod_origin, a->lod[0].width);
    }
  g_assert_cmpuint (a->n_lod, ==, at_width.n_lod);
  for (guint l = 0; l < a->n_lod; l++)
    {
      g_assert_cmpuint (a->lod[l].n, ==, at_width.lod[l].n);
      g_assert_cmpmem (a->lod[l].b, a->lod[l].n * sizeof (SlLodBucket), at_width.lod[l].b,
                       at_width.lod[l].n * sizeof (SlLodBucket));
    }
  if (at_width.lod != b->lod)
    _sl_lane_free_lod (&at_width);
  for (gsize k = 0; k < a->n_events; k++)
    assert_same_event (ta, a, &a->events[k], tb, &b->events[k]);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* A trace's warnings, sorted: the two loading threads add theirs in either order. */
static GPtrArray *
sorted_warnings (SlTrace *trace)
{
  GPtrArray *w = g_ptr_array_new ();

  for (const char *const *p = sl_trace_get_warnings (trace); *p != NULL; p++)
    g_ptr_array_add (w, (gpointer) *p);
  g_ptr_array_sort (w, compare_strings);
  return w;
}

static GPtrArray *
sorted_table_reads (SlTrace *trace)
{
  GPtrArray *t = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < trace->table_reads->len; i++)
    {
      const SlTableRead *x = &g_array_index (trace->table_reads, SlTableRead, i);
      g_ptr_array_add (t, g_strdup_printf ("%s %s rows %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                                           " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
                                           G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
                                           G_GUINT64_FORMAT,
                                           x->table, x->not_read != NULL ? x->not_read : "read",
                                           x->rows, x->null_time, x->bad_type, x->null_owner,
                                           x->not_events, x->bad_range, x->bad_order));
    }
  g_ptr_array_sort (t, compare_strings);
  return t;
}

void
sl_test_assert_equivalent (SlTrace *a,
                           SlTrace *b)
{
  g_assert_cmpstr (sl_trace_get_path (a), ==, sl_trace_get_path (b));
  g_assert_cmpstr (sl_trace_get_schema (a), ==, sl_trace_get_schema (b));
  g_assert_cmpint (sl_trace_get_start (a), ==, sl_trace_get_start (b));
  g_assert_cmpint (sl_trace_get_end (a), ==, sl_trace_get_end (b));
  g_assert_cmpuint (sl_trace_get_n_events (a), ==, sl_trace_get_n_events (b));
  g_assert_cmpint (sl_trace_get_rank (a), ==, sl_trace_get_rank (b));

  g_autoptr (GPtrArray) wa = sorted_warnings (a);
  g_autoptr (GPtrArray) wb = sorted_warnings (b);
  for (guint i = 0; wa->len != wb->len && i < MAX (wa->len, wb->len); i++)
    g_test_message ("warning %u: %s | %s", i, i < wa->len ? (char *) wa->pdata[i] : "-",
                    i < wb->len ? (char *) wb->pdata[i] : "-");
  g_assert_cmpuint (wa->len, ==, wb->len);
  for (guint i = 0; i < wa->len; i++)
    g_assert_cmpstr (g_ptr_array_index (wa, i), ==, g_ptr_array_index (wb, i));
  g_autoptr (GPtrArray) ra = sorted_table_reads (a);
  g_autoptr (GPtrArray) rb = sorted_table_reads (b);
  g_assert_cmpuint (ra->len, ==, rb->len);
  for (guint i = 0; i < ra->len; i++)
    g_assert_cmpstr (g_ptr_array_index (ra, i), ==, g_ptr_array_index (rb, i));

  /* the same strings, each once */
  g_assert_cmpuint (sl_trace_get_n_strs (a), ==, sl_trace_get_n_strs (b));
  g_autoptr (GHashTable) strs = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < sl_trace_get_n_strs (b); i++)
    g_hash_table_add (strs, (gpointer) sl_trace_str (b, i));
  for (guint i = 0; i < sl_trace_get_n_strs (a); i++)
    g_assert_true (g_hash_table_contains (strs, sl_trace_str (a, i)));

  g_assert_cmpuint (sl_trace_get_n_processes (a), ==, sl_trace_get_n_processes (b));
  for (guint i = 0; i < sl_trace_get_n_processes (a); i++)
    {
      const SlProcess *x = sl_trace_get_process (a, i), *y = NULL;
      for (guint j = 0; j < sl_trace_get_n_processes (b) && y == NULL; j++)
        if (sl_trace_get_process (b, j)->global_pid == x->global_pid)
          y = sl_trace_get_process (b, j);
      g_assert_nonnull (y);
      g_assert_cmpuint (x->pid, ==, y->pid);
      g_assert_cmpuint (x->parent_pid, ==, y->parent_pid);
      g_assert_cmpint (x->rank, ==, y->rank);
      g_assert_cmpstr (sl_trace_str (a, x->name), ==, sl_trace_str (b, y->name));
      g_assert_cmpstr (sl_trace_str (a, x->command_line), ==, sl_trace_str (b, y->command_line));
    }
  g_assert_cmpuint (sl_trace_get_n_threads (a), ==, sl_trace_get_n_threads (b));
  for (guint i = 0; i < sl_trace_get_n_threads (a); i++)
    {
      const SlThread *x = sl_trace_get_thread (a, i), *y = NULL;
      for (guint j = 0; j < sl_trace_get_n_threads (b) && y == NULL; j++)
        if (sl_trace_get_thread (b, j)->global_tid == x->global_tid)
          y = sl_trace_get_thread (b, j);
      g_assert_nonnull (y);
      g_assert_cmpint (x->priority, ==, y->priority);
      g_assert_cmpstr (sl_trace_str (a, x->name), ==, sl_trace_str (b, y->name));
      g_assert_cmpuint (sl_trace_get_process (a, x->process)->global_pid, ==,
                        sl_trace_get_process (b, y->process)->global_pid);
    }
  g_assert_cmpuint (sl_trace_get_n_gpus (a), ==, sl_trace_get_n_gpus (b));
  for (guint i = 0; i < sl_trace_get_n_gpus (a); i++)
    {
      const SlGpu *x = sl_trace_get_gpu (a, i);
      gint j = sl_trace_find_gpu (b, x->device_id);
      g_assert_cmpint (j, >=, 0);
      const SlGpu *y = sl_trace_get_gpu (b, j);
      g_assert_cmpstr (sl_trace_str (a, x->name), ==, sl_trace_str (b, y->name));
      g_assert_cmpint (x->described, ==, y->described);
      g_assert_cmpint (x->total_memory, ==, y->total_memory);
      g_assert_cmpmem (&x->limits, sizeof x->limits, &y->limits, sizeof y->limits);
      SlTime span = a->end - a->start;
      for (guint k = 0; k < 8; k++)
        for (SlUtilKind u = SL_UTIL_KERNELS; u <= SL_UTIL_ANY; u++)
          {
            SlTime t0 = a->start + span / 8 * k;
            g_assert_cmpint (sl_trace_gpu_busy_time (a, i, u, t0, t0 + span / 5 + 1), ==,
                             sl_trace_gpu_busy_time (b, j, u, t0, t0 + span / 5 + 1));
          }
    }
  g_assert_cmpuint (a->kernel_infos->len, ==, b->kernel_infos->len);
  g_assert_cmpuint (a->copy_infos->len, ==, b->copy_infos->len);
  g_assert_cmpuint (a->osrt_chains->len, ==, b->osrt_chains->len);
  g_assert_cmpuint (a->cuda_chains->len, ==, b->cuda_chains->len);
  for (guint i = 0; i < a->cuda_chains->len; i++)
    {
      /* the same calls with the same backtraces, frame by frame (chain indices may differ) */
      const SlCudaChain *x = &g_array_index (a->cuda_chains, SlCudaChain, i);
      const SlCudaChain *y = &g_array_index (b->cuda_chains, SlCudaChain, i);
      g_assert_cmpuint (x->global_pid, ==, y->global_pid);
      g_assert_cmpuint (x->corr, ==, y->corr);
      g_assert_cmpuint (x->event_class, ==, y->event_class);
      const guint32 *xs, *xm, *ys, *ym;
      guint n = sl_trace_get_callchain (a, x->chain, &xs, &xm);
      g_assert_cmpuint (sl_trace_get_callchain (b, y->chain, &ys, &ym), ==, n);
      for (guint f = 0; f < n; f++)
        {
          g_assert_cmpstr (sl_trace_str (a, xs[f]), ==, sl_trace_str (b, ys[f]));
          g_assert_cmpstr (sl_trace_str (a, xm[f]), ==, sl_trace_str (b, ym[f]));
        }
    }
  g_assert_cmpuint (a->diagnostics->len, ==, b->diagnostics->len);
  /* every detail held belongs to an event (compared with it below): as many of them */
  g_assert_cmpuint (sl_trace_get_n_mpi_calls (a), ==, sl_trace_get_n_mpi_calls (b));
  g_assert_cmpuint (sl_trace_get_n_omp_events (a), ==, sl_trace_get_n_omp_events (b));

  g_assert_cmpuint (sl_trace_get_n_lanes (a), ==, sl_trace_get_n_lanes (b));
  g_autoptr (GHashTable) lanes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < sl_trace_get_n_lanes (b); i++)
    g_hash_table_insert (lanes, lane_key (b, sl_trace_get_lane (b, i)),
                         (gpointer) sl_trace_get_lane (b, i));
  for (guint i = 0; i < sl_trace_get_n_lanes (a); i++)
    {
      const SlLane *la = sl_trace_get_lane (a, i);
      g_autofree char *key = lane_key (a, la);
      const SlLane *lb = g_hash_table_lookup (lanes, key);
      if (lb == NULL)
        g_test_message ("lane %s is missing", key);
      g_assert_nonnull (lb);
      assert_same_lane (a, la, b, lb);
    }

  sl_test_assert_same_reports (a, b);
}
