/* sl-cmd-info.c: `sightline info FILE`: load a whole trace and say what it holds. */
#include "sl-cmd-info.h"

#include <stdio.h>

#include "sl-format.h"
#include "sl-lane.h"
#include "sl-resident.h"
#include "sl-occupancy.h"
#include "sl-trace.h"
#include "sl-utilization.h"

static const char *lane_kind_names[SL_N_LANE_KINDS] = {
  [SL_LANE_CUDA_API] = "CUDA API",
  [SL_LANE_NVTX] = "NVTX",
  [SL_LANE_OSRT] = "OS runtime",
  [SL_LANE_SAMPLES] = "CPU samples",
  [SL_LANE_KERNELS] = "kernels",
  [SL_LANE_MEMCPY] = "memcpy",
  [SL_LANE_MEMSET] = "memset",
  [SL_LANE_SYNC] = "sync",
};

typedef struct
{
  guint index;
  guint threads;
  gsize events;
} ProcRow;

static SlTrace *proc_sort_trace;

static int
compare_procs (const void *a,
               const void *b)
{
  const ProcRow *x = a, *y = b;
  if (x->events != y->events)
    return x->events > y->events ? -1 : 1;
  guint px = sl_trace_get_process (proc_sort_trace, x->index)->pid;
  guint py = sl_trace_get_process (proc_sort_trace, y->index)->pid;
  return px < py ? -1 : px > py;
}

static void
print_gpu (SlTrace     *trace,
           guint        i,
           const SlGpu *gpu)
{
  const SlGpuLimits *l = &gpu->limits;
  SlTime t0 = sl_trace_get_start (trace), t1 = sl_trace_get_end (trace);

  printf ("  [%u] %s", gpu->device_id, sl_trace_str (trace, gpu->name));
  if (!gpu->described)
    printf (" (not described in the trace)");
  printf ("\n");
  if (gpu->bus_location != 0)
    printf ("      bus %s", sl_trace_str (trace, gpu->bus_location));
  if (gpu->total_memory > 0)
    printf ("      memory %.1f GiB", gpu->total_memory / (1024.0 * 1024 * 1024));
  if (gpu->clock_rate > 0)
    printf (", clock %.0f MHz", gpu->clock_rate / 1e6);
  if (gpu->bus_location != 0 || gpu->total_memory > 0)
    printf ("\n");
  if (l->cc_major > 0)
    printf ("      compute capability %d.%d, %d SMs, %d warps/SM, %d blocks/SM, %d regs/SM, "
            "%d B shared/SM, %d B shared/block (%d opt-in), %d threads/block\n",
            l->cc_major, l->cc_minor, l->sm_count, l->max_warps_per_sm, l->max_blocks_per_sm,
            l->max_regs_per_sm, l->max_smem_per_sm, l->max_smem_per_block,
            l->max_smem_per_block_optin, l->max_threads_per_block);
  else
    printf ("      compute capability unknown: occupancy cannot be computed\n");
  printf ("      utilization over the trace: kernels %.1f%%, any GPU work %.1f%%\n",
          100.0 * sl_trace_gpu_utilization (trace, i, SL_UTIL_KERNELS, t0, t1),
          100.0 * sl_trace_gpu_utilization (trace, i, SL_UTIL_ANY, t0, t1));
}

static char *
lane_label (SlTrace      *trace,
            const SlLane *lane)
{
  if (lane->thread >= 0)
    {
      const SlThread *t = sl_trace_get_thread (trace, lane->thread);
      const char *name = sl_trace_str (trace, t->name);
      if (lane->kind == SL_LANE_NVTX || lane->kind == SL_LANE_CUDA_API || lane->kind == SL_LANE_OSRT)
        return g_strdup_printf ("thread %u %s: %s depth %u", t->tid, *name ? name : "(unnamed)",
                                lane_kind_names[lane->kind], lane->depth);
      return g_strdup_printf ("thread %u %s: %s", t->tid, *name ? name : "(unnamed)",
                              lane_kind_names[lane->kind]);
    }
  const SlGpu *gpu = sl_trace_get_gpu (trace, lane->gpu);
  if (lane->stream_id == G_MAXUINT32)
    return g_strdup_printf ("GPU %u pid %u context %u (no stream): %s", gpu->device_id,
                            (guint) ((lane->global_pid >> 24) & 0xFFFFFF), lane->context_id,
                            lane_kind_names[lane->kind]);
  return g_strdup_printf ("GPU %u pid %u context %u stream %u: %s", gpu->device_id,
                          (guint) ((lane->global_pid >> 24) & 0xFFFFFF), lane->context_id,
                          lane->stream_id, lane_kind_names[lane->kind]);
}

int
sl_cmd_info (int    argc,
             char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new ("FILE - load a trace and describe what it holds");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = NULL;
  gboolean all_lanes = FALSE;
  GOptionEntry entries[] = {
    { "all-lanes", 'a', 0, G_OPTION_ARG_NONE, &all_lanes, "List every lane (default: the first 40)", NULL },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context, "Loads the whole trace into the model, as the viewer does, and prints its\n"
                                         "time span, processes, threads, GPUs, lanes, load time and memory.");
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("sightline info: %s\n", error->message);
      return 2;
    }
  if (argc != 2)
    {
      g_printerr ("sightline info: give one trace file (see sightline info --help)\n");
      return 2;
    }

  gsize rss_before = sl_resident_bytes ();
  gint64 t_load = g_get_monotonic_time ();
  trace = sl_trace_load (argv[1], SL_LOAD_ALL, NULL, NULL, NULL, &error);
  t_load = g_get_monotonic_time () - t_load;
  if (trace == NULL)
    {
      g_printerr ("sightline: %s\n", error->message);
      return 1;
    }
  gsize rss_after = sl_resident_bytes ();

  SlTime t0 = sl_trace_get_start (trace), t1 = sl_trace_get_end (trace);
  g_autofree char *span = sl_format_duration (t1 - t0);
  gsize n_events = sl_trace_get_n_events (trace);
  gsize model = sl_trace_get_memory_size (trace);

  printf ("File:       %s\n", sl_trace_get_path (trace));
  printf ("Schema:     %s\n", sl_trace_get_schema (trace));
  printf ("Time span:  %s (%" G_GINT64_FORMAT " … %" G_GINT64_FORMAT " ns)\n", span, t0, t1);
  printf ("Events:     %" G_GSIZE_FORMAT " in %u lanes\n", n_events, sl_trace_get_n_lanes (trace));

  /* processes with events first (most events first), then the rest by pid */
  guint n_proc = sl_trace_get_n_processes (trace);
  g_autofree ProcRow *procs = g_new0 (ProcRow, MAX (n_proc, 1));
  for (guint i = 0; i < n_proc; i++)
    procs[i].index = i;
  for (guint k = 0; k < sl_trace_get_n_threads (trace); k++)
    procs[sl_trace_get_thread (trace, k)->process].threads++;
  for (guint k = 0; k < sl_trace_get_n_lanes (trace); k++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, k);
      for (guint i = 0; i < n_proc; i++)
        if (sl_trace_get_process (trace, i)->global_pid == lane->global_pid)
          procs[i].events += lane->n_events;
    }
  proc_sort_trace = trace;
  qsort (procs, n_proc, sizeof (ProcRow), compare_procs);
  printf ("Processes:  %u\n", n_proc);
  for (guint i = 0; i < n_proc && (all_lanes || i < 20); i++)
    {
      const SlProcess *p = sl_trace_get_process (trace, procs[i].index);
      printf ("  pid %-8u %-24s %4u threads %10" G_GSIZE_FORMAT " events\n", p->pid,
              *sl_trace_str (trace, p->name) ? sl_trace_str (trace, p->name) : "(unnamed)",
              procs[i].threads, procs[i].events);
    }
  if (!all_lanes && n_proc > 20)
    printf ("  … %u more (--all-lanes)\n", n_proc - 20);

  printf ("Threads:    %u\n", sl_trace_get_n_threads (trace));
  guint shown = 0, quiet = 0;
  for (guint i = 0; i < sl_trace_get_n_threads (trace); i++)
    {
      const SlThread *t = sl_trace_get_thread (trace, i);
      gsize counts[SL_N_LANE_KINDS] = { 0 };
      guint depth = 0;
      for (guint k = 0; k < sl_trace_get_n_lanes (trace); k++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, k);
          if (lane->thread != (gint32) i)
            continue;
          counts[lane->kind] += lane->n_events;
          if (lane->kind == SL_LANE_NVTX)
            depth = MAX (depth, lane->depth + 1);
        }
      gsize total = 0;
      for (guint k = 0; k < SL_N_LANE_KINDS; k++)
        total += counts[k];
      if (total == 0 && !all_lanes)
        {
          quiet++;
          continue;
        }
      if (!all_lanes && shown++ >= 40)
        continue;
      printf ("  tid %-8u pid %-8u %-24s", t->tid, t->pid,
              *sl_trace_str (trace, t->name) ? sl_trace_str (trace, t->name) : "(unnamed)");
      for (guint k = 0; k < SL_LANE_KERNELS; k++)
        if (counts[k] > 0)
          {
            printf ("  %s %" G_GSIZE_FORMAT, lane_kind_names[k], counts[k]);
            if (k == SL_LANE_NVTX && depth > 1)
              printf (" (%u levels)", depth);
          }
      printf ("\n");
    }
  if (!all_lanes && shown > 40)
    printf ("  … %u more with events (--all-lanes)\n", shown - 40);
  if (quiet > 0)
    printf ("  and %u named threads without events (--all-lanes)\n", quiet);

  printf ("GPUs:       %u\n", sl_trace_get_n_gpus (trace));
  for (guint i = 0; i < sl_trace_get_n_gpus (trace); i++)
    print_gpu (trace, i, sl_trace_get_gpu (trace, i));

  printf ("Lanes:      %u\n", sl_trace_get_n_lanes (trace));
  for (guint i = 0; i < sl_trace_get_n_lanes (trace) && (all_lanes || i < 40); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      g_autofree char *label = lane_label (trace, lane);
      g_autofree char *busy = sl_format_duration (lane->busy);
      printf ("  %-60s %10" G_GSIZE_FORMAT " events  busy %s\n", label, lane->n_events, busy);
    }
  if (!all_lanes && sl_trace_get_n_lanes (trace) > 40)
    printf ("  … %u more (--all-lanes)\n", sl_trace_get_n_lanes (trace) - 40);

  printf ("Load time:  %.3f s\n", t_load / 1e6);
  printf ("Memory:     model %.1f MiB (%.1f bytes/event); resident %.1f MiB, +%.1f MiB for this trace\n",
          model / (1024.0 * 1024), n_events > 0 ? (double) model / n_events : 0.0,
          rss_after / (1024.0 * 1024), (rss_after - MIN (rss_before, rss_after)) / (1024.0 * 1024));

  const char *const *warnings = sl_trace_get_warnings (trace);
  if (warnings[0] != NULL)
    {
      printf ("Warnings:\n");
      for (guint i = 0; warnings[i] != NULL; i++)
        printf ("  %s\n", warnings[i]);
    }
  return 0;
}
