/* sl-cmd-info.c: `sightline info FILE`: load a whole trace and say what it holds. */
#include "sl-cmd-info.h"

#include <json-glib/json-glib.h>
#include <stdio.h>

#include "sl-comm.h"
#include "sl-cpu-util.h"
#include "sl-format.h"
#include "sl-inventory.h"
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
  [SL_LANE_SCHED] = "thread states",
  [SL_LANE_GRAPHS] = "CUDA graphs",
  [SL_LANE_MPI] = "MPI calls",
  [SL_LANE_OPENMP] = "OpenMP events",
  [SL_LANE_OPENACC] = "OpenACC events",
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

/* Events of each thread, by thread index (all its CPU lanes together). */
static gsize *
thread_events (SlTrace *trace)
{
  gsize *events = g_new0 (gsize, MAX (sl_trace_get_n_threads (trace), 1));

  for (guint k = 0; k < sl_trace_get_n_lanes (trace); k++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, k);
      if (lane->thread >= 0 && (guint) lane->thread < sl_trace_get_n_threads (trace))
        events[lane->thread] += lane->n_events;
    }
  return events;
}

/* The second line of a process in the text: its rank, parent and command line, as recorded. */
static void
print_process_origin (SlTrace         *trace,
                      const SlProcess *p)
{
  g_autofree char *parent = p->parent_pid != 0 ? g_strdup_printf ("parent pid %u", p->parent_pid)
                                               : g_strdup ("");
  g_autofree char *rank = p->rank >= 0 ? g_strdup_printf ("rank %d%s", p->rank,
                                                          *parent != '\0' ? " · " : "")
                                       : g_strdup ("");

  printf ("      %s%s%s%s\n", rank, parent,
          (*parent != '\0' || *rank != '\0') && p->command_line != SL_NO_STR ? " · " : "",
          p->command_line != SL_NO_STR ? sl_trace_str (trace, p->command_line) : "");
}

/* One member of the object being built: name and value. */
static void
member_int (JsonBuilder *b,
            const char  *name,
            gint64       value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

static void
member_str (JsonBuilder *b,
            const char  *name,
            const char  *value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, value);
}

static void
member_double (JsonBuilder *b,
               const char  *name,
               double       value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, value);
}

static void
json_gpu (JsonBuilder *b,
          SlTrace     *trace,
          guint        i)
{
  const SlGpu *gpu = sl_trace_get_gpu (trace, i);
  const SlGpuLimits *l = &gpu->limits;
  SlTime t0 = sl_trace_get_start (trace), t1 = sl_trace_get_end (trace);

  json_builder_begin_object (b);
  member_int (b, "device_id", gpu->device_id);
  member_int (b, "source", gpu->source);
  member_str (b, "name", sl_trace_str (trace, gpu->name));
  json_builder_set_member_name (b, "described");
  json_builder_add_boolean_value (b, gpu->described);
  member_str (b, "bus_location", sl_trace_str (trace, gpu->bus_location));
  member_str (b, "uuid", sl_trace_str (trace, gpu->uuid));
  member_str (b, "chip_name", sl_trace_str (trace, gpu->chip_name));
  member_int (b, "total_memory", gpu->total_memory);
  member_int (b, "memory_bandwidth", gpu->memory_bandwidth);
  member_int (b, "clock_rate_hz", gpu->clock_rate);
  json_builder_set_member_name (b, "limits");
  json_builder_begin_object (b);
  const struct { const char *name; gint value; } limits[] = {
    { "compute_major", l->cc_major },
    { "compute_minor", l->cc_minor },
    { "sm_count", l->sm_count },
    { "warp_size", l->warp_size },
    { "max_threads_per_block", l->max_threads_per_block },
    { "max_warps_per_sm", l->max_warps_per_sm },
    { "max_blocks_per_sm", l->max_blocks_per_sm },
    { "max_regs_per_block", l->max_regs_per_block },
    { "max_regs_per_sm", l->max_regs_per_sm },
    { "max_smem_per_block", l->max_smem_per_block },
    { "max_smem_per_block_optin", l->max_smem_per_block_optin },
    { "max_smem_per_sm", l->max_smem_per_sm },
  };
  for (guint k = 0; k < G_N_ELEMENTS (limits); k++)
    member_int (b, limits[k].name, limits[k].value);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "utilization");
  json_builder_begin_object (b);
  member_double (b, "kernels", sl_trace_gpu_utilization (trace, i, SL_UTIL_KERNELS, t0, t1));
  member_double (b, "any", sl_trace_gpu_utilization (trace, i, SL_UTIL_ANY, t0, t1));
  json_builder_end_object (b);
  json_builder_end_object (b);
}

static void
json_tables (JsonBuilder *b,
             SlInventory *inv)
{
  json_builder_set_member_name (b, "tables");
  json_builder_begin_array (b);
  for (guint i = 0; i < sl_inventory_get_n_tables (inv); i++)
    {
      const SlTableInfo *t = sl_inventory_get_table (inv, i);
      json_builder_begin_object (b);
      member_str (b, "name", t->name);
      member_str (b, "state", sl_table_state_label (t->state));
      member_int (b, "rows", t->rows);
      member_int (b, "loaded", t->loaded);
      member_int (b, "skipped", t->skipped);
      member_int (b, "repaired", t->repaired);
      member_str (b, "why", t->why);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "diagnostics");
  json_builder_begin_array (b);
  for (guint i = 0; i < sl_inventory_get_n_diagnostics (inv); i++)
    {
      const SlInventoryDiagnostic *d = sl_inventory_get_diagnostic (inv, i);
      json_builder_begin_object (b);
      member_int (b, "time_ns", d->time);
      member_str (b, "severity", d->severity);
      member_str (b, "source", d->source);
      member_str (b, "text", d->text);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "lost_records");
  json_builder_begin_array (b);
  for (guint i = 0; i < sl_inventory_get_n_lost (inv); i++)
    {
      const SlLostRecords *l = sl_inventory_get_lost (inv, i);
      json_builder_begin_object (b);
      member_str (b, "source", l->source);
      member_int (b, "count", l->count);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* The files of a merged trace (one for a trace of one file): label, rank, offset, events. */
static void
json_sources (JsonBuilder *b,
              SlTrace     *trace)
{
  json_builder_set_member_name (b, "sources");
  json_builder_begin_array (b);
  for (guint i = 0; i < sl_trace_get_n_sources (trace); i++)
    {
      const SlSource *s = sl_trace_get_source (trace, i);
      json_builder_begin_object (b);
      member_str (b, "path", s->path);
      member_str (b, "label", s->label);
      json_builder_set_member_name (b, "rank");
      if (s->rank >= 0)
        json_builder_add_int_value (b, s->rank);
      else
        json_builder_add_null_value (b);
      member_int (b, "offset_ns", s->offset);
      json_builder_set_member_name (b, "wall_start_ns");
      if (s->has_clock)
        json_builder_add_int_value (b, s->wall_start);
      else
        json_builder_add_null_value (b);
      member_int (b, "start_ns", s->start);
      member_int (b, "end_ns", s->end);
      member_int (b, "events", s->n_events);
      SlCommTimes ct;
      sl_trace_comm_times (trace, (gint) i, G_MININT64, G_MAXINT64, &ct);
      member_int (b, "comm_kernel_ns", ct.comm_time);
      json_builder_set_member_name (b, "comm_overlap_pct");
      if (ct.comm_busy > 0)
        json_builder_add_double_value (b, sl_comm_overlap_pct (&ct));
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
print_sources (SlTrace *trace)
{
  printf ("Sources:    %u traces on one time axis\n", sl_trace_get_n_sources (trace));
  for (guint i = 0; i < sl_trace_get_n_sources (trace); i++)
    {
      const SlSource *s = sl_trace_get_source (trace, i);
      g_autofree char *rank = s->rank >= 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, s->rank)
                                           : g_strdup ("-");
      g_autofree char *wall = NULL;
      if (s->has_clock)
        {
          g_autoptr (GDateTime) t = g_date_time_new_from_unix_utc (s->wall_start / 1000000000);
          g_autofree char *day = t != NULL ? g_date_time_format (t, "%Y-%m-%d %H:%M:%S") : NULL;
          wall = g_strdup_printf ("%s.%09" G_GINT64_FORMAT " UTC", day != NULL ? day : "?",
                                  s->wall_start % 1000000000);
        }
      printf ("  [%u] %-24s rank %-5s offset %+" G_GINT64_FORMAT " ns  %" G_GSIZE_FORMAT
              " events  %s\n",
              i, s->label, rank, s->offset, s->n_events, s->path);
      printf ("      starts %" G_GINT64_FORMAT " ns on the merged axis, wall clock %s\n", s->start,
              wall != NULL ? wall : "unknown (the file has none)");
      SlCommTimes ct;
      sl_trace_comm_times (trace, (gint) i, G_MININT64, G_MAXINT64, &ct);
      if (ct.comm_busy > 0)
        printf ("      communication kernels %u, %.3f ms; compute ran during %.2f%% of their time "
                "(stats -r rank_sum)\n",
                ct.n_comm, (double) ct.comm_time / 1e6, sl_comm_overlap_pct (&ct));
    }
}

/* `info --format json`: everything the text says, every thread and lane, and the inventory. */
static int
print_json (SlTrace *trace,
            gint64   load_us,
            gsize    rss_before,
            gsize    rss_after)
{
  g_autoptr (GError) error = NULL;
  gboolean merged = sl_trace_get_n_sources (trace) > 1;
  /* a merged trace has no one file to list the tables of: its sources say what each holds */
  g_autoptr (SlInventory) inv = merged ? NULL : sl_inventory_new (trace, &error);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autofree gsize *events = thread_events (trace);

  if (inv == NULL && !merged)
    {
      g_printerr ("sightline: %s\n", error->message);
      return 1;
    }
  json_builder_begin_object (b);
  member_str (b, "file", sl_trace_get_path (trace));
  member_str (b, "schema", sl_trace_get_schema (trace));
  /* the rank of a distributed run's trace (sl_trace_get_rank), null when it does not say */
  json_builder_set_member_name (b, "rank");
  if (sl_trace_get_rank (trace) >= 0)
    json_builder_add_int_value (b, sl_trace_get_rank (trace));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "world_size");
  if (sl_trace_get_world_size (trace) > 0)
    json_builder_add_int_value (b, sl_trace_get_world_size (trace));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "span");
  json_builder_begin_object (b);
  member_int (b, "start_ns", sl_trace_get_start (trace));
  member_int (b, "end_ns", sl_trace_get_end (trace));
  /* time 0 of the offsets Sightline prints (sl_trace_get_origin) */
  member_int (b, "origin_ns", sl_trace_get_origin (trace));
  json_builder_end_object (b);
  member_int (b, "events", sl_trace_get_n_events (trace));
  /* CUDA event records and the waits that name an event, linked (sl-trace-events.c) */
  guint n_waits, n_linked;
  sl_trace_get_event_wait_counts (trace, &n_waits, &n_linked);
  json_builder_set_member_name (b, "cuda_events");
  json_builder_begin_object (b);
  member_int (b, "records", sl_trace_get_n_event_records (trace));
  member_int (b, "waits", n_waits);
  member_int (b, "linked_waits", n_linked);
  json_builder_end_object (b);
  /* graph launches traced node by node, grouped per launch; rows saying where graphs were made */
  json_builder_set_member_name (b, "cuda_graphs");
  json_builder_begin_object (b);
  member_int (b, "node_traced_launches", sl_trace_get_n_graph_groups (trace));
  member_int (b, "creation_rows", sl_trace_get_n_graph_made (trace));
  json_builder_end_object (b);
  json_sources (b, trace);

  json_builder_set_member_name (b, "processes");
  json_builder_begin_array (b);
  for (guint i = 0; i < sl_trace_get_n_processes (trace); i++)
    {
      const SlProcess *p = sl_trace_get_process (trace, i);
      gsize n = 0;
      guint threads = 0;
      for (guint k = 0; k < sl_trace_get_n_threads (trace); k++)
        threads += sl_trace_get_thread (trace, k)->process == i;
      for (guint k = 0; k < sl_trace_get_n_lanes (trace); k++)
        if (sl_trace_get_lane (trace, k)->global_pid == p->global_pid)
          n += sl_trace_get_lane (trace, k)->n_events;
      json_builder_begin_object (b);
      member_int (b, "pid", p->pid);
      member_str (b, "name", sl_trace_str (trace, p->name));
      member_int (b, "source", p->source);
      member_int (b, "threads", threads);
      member_int (b, "events", n);
      /* from the recording (SL_PROCESS_INFO); null where the file does not say (nsys exports) */
      json_builder_set_member_name (b, "parent_pid");
      if (p->parent_pid != 0)
        json_builder_add_int_value (b, p->parent_pid);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "command_line");
      if (p->command_line != SL_NO_STR)
        json_builder_add_string_value (b, sl_trace_str (trace, p->command_line));
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "rank");
      if (p->rank >= 0)
        json_builder_add_int_value (b, p->rank);
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "threads");
  json_builder_begin_array (b);
  for (guint i = 0; i < sl_trace_get_n_threads (trace); i++)
    {
      const SlThread *t = sl_trace_get_thread (trace, i);
      json_builder_begin_object (b);
      member_int (b, "pid", t->pid);
      member_int (b, "tid", t->tid);
      member_str (b, "name", sl_trace_str (trace, t->name));
      member_int (b, "events", events[i]);
      /* time scheduled in, from scheduling data; null where the trace has none for it */
      SlTime running = sl_trace_thread_running (trace, i);
      json_builder_set_member_name (b, "running_ns");
      if (running >= 0)
        json_builder_add_int_value (b, running);
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "gpus");
  json_builder_begin_array (b);
  for (guint i = 0; i < sl_trace_get_n_gpus (trace); i++)
    json_gpu (b, trace, i);
  json_builder_end_array (b);

  json_builder_set_member_name (b, "lanes");
  json_builder_begin_array (b);
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      g_autofree char *label = lane_label (trace, lane);
      json_builder_begin_object (b);
      member_str (b, "label", label);
      member_str (b, "kind", lane_kind_names[lane->kind]);
      member_int (b, "events", lane->n_events);
      member_int (b, "busy_ns", lane->busy);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  if (inv != NULL)
    json_tables (b, inv);

  member_double (b, "load_time_s", load_us / 1e6);
  json_builder_set_member_name (b, "memory");
  json_builder_begin_object (b);
  member_int (b, "model_bytes", sl_trace_get_memory_size (trace));
  member_int (b, "resident_bytes", rss_after);
  member_int (b, "added_bytes", rss_after - MIN (rss_before, rss_after));
  json_builder_end_object (b);
  json_builder_set_member_name (b, "warnings");
  json_builder_begin_array (b);
  for (const char *const *w = sl_trace_get_warnings (trace); *w != NULL; w++)
    json_builder_add_string_value (b, *w);
  json_builder_end_array (b);
  json_builder_end_object (b);

  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
  return 0;
}

int
sl_cmd_info (int    argc,
             char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new ("FILE… - load a trace (or merge several) and describe what it holds");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = NULL;
  gboolean all_lanes = FALSE, merge = FALSE;
  g_autofree char *format = NULL;
  GOptionEntry entries[] = {
    { "merge", 'm', 0, G_OPTION_ARG_NONE, &merge,
      "Load every FILE (in parallel) and merge them into one trace on one time axis, aligned by "
      "their wall clocks; say what each holds", NULL },
    { "all-lanes", 'a', 0, G_OPTION_ARG_NONE, &all_lanes, "List every lane (default: the first 40)", NULL },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
      "Output format: text (default) or json (every thread, lane and table of the file)",
      "FORMAT" },
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
  if (argc != 2 && !(merge && argc >= 2))
    {
      g_printerr ("sightline info: give one trace file, or --merge and several (see sightline "
                  "info --help)\n");
      return 2;
    }
  if (format != NULL && g_strcmp0 (format, "text") != 0 && g_strcmp0 (format, "json") != 0)
    {
      g_printerr ("sightline info: unknown format '%s'; use text or json\n", format);
      return 2;
    }

  gsize rss_before = sl_resident_bytes ();
  gint64 t_load = g_get_monotonic_time ();
  if (merge)
    trace = sl_trace_load_merged ((const char *const *) argv + 1, argc - 1, SL_LOAD_ALL, NULL,
                                  NULL, NULL, NULL, &error);
  else
    trace = sl_trace_load (argv[1], SL_LOAD_ALL, NULL, NULL, NULL, &error);
  t_load = g_get_monotonic_time () - t_load;
  if (trace == NULL)
    {
      g_printerr ("sightline: %s\n", error->message);
      return 1;
    }
  gsize rss_after = sl_resident_bytes ();
  if (g_strcmp0 (format, "json") == 0)
    return print_json (trace, t_load, rss_before, rss_after);

  SlTime t0 = sl_trace_get_start (trace), t1 = sl_trace_get_end (trace);
  g_autofree char *span = sl_format_duration (t1 - t0);
  gsize n_events = sl_trace_get_n_events (trace);
  gsize model = sl_trace_get_memory_size (trace);

  printf ("File:       %s\n", sl_trace_get_path (trace));
  printf ("Schema:     %s\n", sl_trace_get_schema (trace));
  if (sl_trace_get_rank (trace) >= 0 && sl_trace_get_world_size (trace) > 0)
    printf ("Rank:       %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT "\n", sl_trace_get_rank (trace),
            sl_trace_get_world_size (trace));
  else if (sl_trace_get_rank (trace) >= 0)
    printf ("Rank:       %" G_GINT64_FORMAT "\n", sl_trace_get_rank (trace));
  printf ("Time span:  %s (%" G_GINT64_FORMAT " … %" G_GINT64_FORMAT " ns)\n", span, t0, t1);
  /* what the offsets ("+189.3 ms") of the other commands and the viewer count from */
  SlTime origin = sl_trace_get_origin (trace);
  if (origin != t0)
    {
      g_autofree char *first = sl_format_offset (t0 - origin);
      printf ("Time 0:     the session's start, as nsys-ui counts (%" G_GINT64_FORMAT " ns); the "
              "first event at %s\n", origin, first);
    }
  else
    printf ("Time 0:     the first event\n");
  printf ("Events:     %" G_GSIZE_FORMAT " in %u lanes\n", n_events, sl_trace_get_n_lanes (trace));
  guint n_waits, n_linked;
  sl_trace_get_event_wait_counts (trace, &n_waits, &n_linked);
  if (sl_trace_get_n_event_records (trace) > 0 || n_waits > 0)
    printf ("CUDA events: %u records, %u waits (%u linked to their record)\n",
            sl_trace_get_n_event_records (trace), n_waits, n_linked);
  /* graph launches traced node by node (sl-graph-groups.c), and where graphs were made */
  if (sl_trace_get_n_graph_groups (trace) > 0 || sl_trace_get_n_graph_made (trace) > 0)
    printf ("CUDA graphs: %u launches traced node by node, %u creation rows\n",
            sl_trace_get_n_graph_groups (trace), sl_trace_get_n_graph_made (trace));
  if (merge)
    print_sources (trace);

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
      if (p->parent_pid != 0 || p->command_line != SL_NO_STR || p->rank >= 0)
        print_process_origin (trace, p);
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
