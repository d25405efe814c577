/* sl-detail-pane.c: everything known about the selected event, as copyable text. */
#include "sl-detail-pane-private.h"
#include "sl-display-name.h"
#include "sl-file-access.h"

#include "sl-format.h"
#include "sl-lane.h"
#include "sl-occupancy.h"

struct _SlDetailPane
{
  GtkWidget   parent_instance;

  GtkWidget  *scroller;
  GtkWidget  *grid;            /* rebuilt for every event: a few dozen labels at most */
  gint        row;
  SlTrace    *trace;
  SlEventRef  ref;
};

G_DEFINE_FINAL_TYPE (SlDetailPane, sl_detail_pane, GTK_TYPE_WIDGET)

enum
{
  GO_TO_EVENT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

GtkWidget *
sl_detail_pane_new (void)
{
  return g_object_new (SL_TYPE_DETAIL_PANE, NULL);
}

static GtkWidget *
value_label (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 48);
  gtk_widget_set_hexpand (label, TRUE);
  return label;
}

static void
add_heading (SlDetailPane *self,
             const char   *text)
{
  GtkWidget *label = value_label (text);

  gtk_widget_add_css_class (label, "heading");
  if (self->row > 0)
    gtk_widget_set_margin_top (label, 12);
  gtk_grid_attach (GTK_GRID (self->grid), label, 0, self->row++, 2, 1);
}

static GtkWidget *
add_row (SlDetailPane *self,
         const char   *key,
         const char   *value)
{
  GtkWidget *k = gtk_label_new (key);
  GtkWidget *v = value_label (value != NULL ? value : "—");

  gtk_label_set_xalign (GTK_LABEL (k), 1);
  gtk_label_set_yalign (GTK_LABEL (k), 0);
  gtk_widget_add_css_class (k, "dim-label");
  gtk_grid_attach (GTK_GRID (self->grid), k, 0, self->row, 1, 1);
  gtk_grid_attach (GTK_GRID (self->grid), v, 1, self->row++, 1, 1);
  return v;
}

static void
add_rowf (SlDetailPane *self,
          const char   *key,
          const char   *format,
          ...) G_GNUC_PRINTF (3, 4);

static void
add_rowf (SlDetailPane *self,
          const char   *key,
          const char   *format,
          ...)
{
  va_list args;
  g_autofree char *text = NULL;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  add_row (self, key, text);
}

static void
add_warning (SlDetailPane *self,
             const char   *text)
{
  GtkWidget *label = value_label (text);

  gtk_widget_add_css_class (label, "warning");
  gtk_widget_set_margin_top (label, 6);
  gtk_grid_attach (GTK_GRID (self->grid), label, 0, self->row++, 2, 1);
}

static void
link_clicked_cb (GtkButton    *button,
                 SlDetailPane *self)
{
  gint lane = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "sl-lane"));
  guint64 index = *(guint64 *) g_object_get_data (G_OBJECT (button), "sl-index");

  g_signal_emit (self, signals[GO_TO_EVENT], 0, lane, index);
}

static void
add_link (SlDetailPane *self,
          const char   *text,
          const SlLane *lane,
          gsize         index)
{
  GtkWidget *button = gtk_button_new_with_label (text);
  guint64 *idx = g_new (guint64, 1);

  *idx = index;
  gtk_widget_add_css_class (button, "link");
  gtk_button_set_has_frame (GTK_BUTTON (button), FALSE);
  /* a link: a click leaves the focus where it was (the timeline keeps its keys) */
  gtk_widget_set_focus_on_click (button, FALSE);
  gtk_widget_set_halign (button, GTK_ALIGN_START);
  g_object_set_data (G_OBJECT (button), "sl-lane", GINT_TO_POINTER ((gint) lane->index));
  g_object_set_data_full (G_OBJECT (button), "sl-index", idx, g_free);
  g_signal_connect (button, "clicked", G_CALLBACK (link_clicked_cb), self);
  gtk_grid_attach (GTK_GRID (self->grid), button, 1, self->row++, 1, 1);
}

static const char *
str (SlDetailPane *self,
     guint32       id)
{
  const char *s = sl_trace_str (self->trace, id);

  return s != NULL && *s != '\0' ? s : "—";
}

/* An offset from time 0 (sl_trace_get_origin) in the unit sl_format_offset () picks for it, with enough
 * decimals that a step of `resolution` ns shows: the last digit weighs at most a tenth of it
 * (3 decimals at least, down to the nanosecond), so that a 100 µs call 2 s into the trace reads
 * "+2.04660 s" … "+2.04670 s", not "+2.047 s" twice.  resolution <= 0: sl_format_offset (). */
char *
_sl_detail_pane_format_offset (SlTime offset,
                               SlTime resolution)
{
  SlTime a = offset < 0 ? -offset : offset;
  const char *sign = offset < 0 ? "−" : "+";
  const char *unit;
  SlTime unit_ns;
  int decimals = 3, max_decimals;

  if (resolution <= 0)
    return sl_format_offset (offset);
  if (a < 1000)
    return g_strdup_printf ("%s%" G_GINT64_FORMAT " ns", sign, a);
  if (a < 1000000)
    unit = "µs", unit_ns = 1000, max_decimals = 3;
  else if (a < 1000000000)
    unit = "ms", unit_ns = 1000000, max_decimals = 6;
  else
    unit = "s", unit_ns = 1000000000, max_decimals = 9;
  /* weight of the last digit: unit_ns / 10^decimals, wanted <= resolution / 10 */
  SlTime weight = unit_ns / 1000;
  while (decimals < max_decimals && weight * 10 > resolution)
    {
      weight /= 10;
      decimals++;
    }
  /* integer arithmetic: a double loses nanoseconds past ~10^6 s */
  SlTime whole = a / unit_ns, frac = a % unit_ns, scale = unit_ns / weight;
  frac = (frac + weight / 2) / weight;
  if (frac >= scale)
    {
      whole++;
      frac -= scale;
    }
  return g_strdup_printf ("%s%" G_GINT64_FORMAT ".%0*" G_GINT64_FORMAT " %s", sign, whole, decimals,
                          frac, unit);
}

/* How long GPU work waited after the call that launched it returned: nsys's QueDur
 * (cuda_kern_exec_trace), start − API end when that is >= 0 and no value otherwise. */
char *
_sl_detail_pane_format_queue_delay (SlTime api_end,
                                    SlTime work_start)
{
  if (work_start - api_end < 0)
    return g_strdup ("none: started before the call returned");
  return sl_format_duration (work_start - api_end);
}

/* Start, end (from time 0, the session's start: sl_trace_get_origin) and duration of any event. */
static void
add_times (SlDetailPane  *self,
           const SlEvent *ev)
{
  SlTime origin = sl_trace_get_origin (self->trace);
  g_autofree char *start = _sl_detail_pane_format_offset (ev->start - origin, ev->end - ev->start);
  g_autofree char *end = _sl_detail_pane_format_offset (ev->end - origin, ev->end - ev->start);
  g_autofree char *dur = sl_format_duration (ev->end - ev->start);

  add_row (self, "Start", start);
  add_row (self, "End", end);
  add_row (self, "Duration", dur);
}

/* What the recording knew of a process (SL_PROCESS_INFO): its command line and its parent. */
static void
add_process_origin (SlDetailPane    *self,
                    const SlProcess *process)
{
  if (process->command_line != SL_NO_STR)
    add_row (self, "Command line", str (self, process->command_line));
  if (process->parent_pid == 0)
    return;
  for (guint i = 0; i < sl_trace_get_n_processes (self->trace); i++)
    {
      const SlProcess *parent = sl_trace_get_process (self->trace, i);
      if (parent->pid == process->parent_pid && parent->name != SL_NO_STR)
        {
          add_rowf (self, "Parent", "%s (pid %u)", str (self, parent->name), parent->pid);
          return;
        }
    }
  add_rowf (self, "Parent", "pid %u", process->parent_pid);
}

static void
add_thread (SlDetailPane *self,
            const SlLane *lane)
{
  const SlThread *thread;
  const SlProcess *process;

  if (lane->thread < 0 || (guint) lane->thread >= sl_trace_get_n_threads (self->trace))
    return;
  thread = sl_trace_get_thread (self->trace, lane->thread);
  add_rowf (self, "Thread", "%s (tid %u)", str (self, thread->name), thread->tid);
  if (thread->process < sl_trace_get_n_processes (self->trace))
    {
      process = sl_trace_get_process (self->trace, thread->process);
      add_rowf (self, "Process", "%s (pid %u)", str (self, process->name), process->pid);
      add_process_origin (self, process);
    }
}

static const SlGpu *
lane_gpu (SlDetailPane *self,
          const SlLane *lane)
{
  if (lane->gpu < 0 || (guint) lane->gpu >= sl_trace_get_n_gpus (self->trace))
    return NULL;
  return sl_trace_get_gpu (self->trace, lane->gpu);
}

static void
add_gpu_place (SlDetailPane *self,
               const SlLane *lane)
{
  const SlGpu *gpu = lane_gpu (self, lane);

  if (gpu != NULL)
    add_rowf (self, "Device", "%s (device %u)", str (self, gpu->name), gpu->device_id);
  add_rowf (self, "Context", "%u", lane->context_id);
  if (lane->green_context_id != 0)
    add_rowf (self, "Green context", "%u", lane->green_context_id);
  add_rowf (self, "Stream", "%u", lane->stream_id);
}

/* The CUDA API call a piece of GPU work came from, and how long the work queued after it. */
static void
add_launch (SlDetailPane  *self,
            const SlEvent *ev)
{
  const SlLane *api_lane;
  gsize api_index;
  const SlEvent *api;
  g_autofree char *delay = NULL;

  add_heading (self, "Launch");
  if (ev->link == SL_NO_LINK || !sl_trace_resolve (self->trace, ev->link, &api_lane, &api_index))
    {
      add_row (self, "API call", "not in the trace (no CUDA API call has this correlation id)");
      return;
    }
  api = &api_lane->events[api_index];
  add_row (self, "API call", sl_trace_display_name (self->trace, SL_LANE_CUDA_API, api->name));
  add_rowf (self, "Correlation id", "%u", ev->corr);
  delay = _sl_detail_pane_format_queue_delay (api->end, ev->start);
  add_row (self, "Queue delay", delay);
  add_link (self, "Go to launch", api_lane, api_index);
}

/* The grid in waves of SMs × blocks per SM; returns a warning where the last of under two waves
 * leaves most SMs idle (the tail effect the tail_effect rule reports), NULL otherwise. */
static char *
add_waves (SlDetailPane       *self,
           const SlGpuLimits  *limits,
           const SlOccupancy  *occ,
           const SlKernelInfo *ki)
{
  SlWaves w;

  if (!sl_occupancy_waves (limits, occ->blocks_per_sm, sl_grid_blocks (ki->grid), &w))
    {
      add_row (self, "Waves", limits->sm_count <= 0
                                ? "unknown: the trace does not give the GPU's SM count"
                                : "none: an empty grid");
      return NULL;
    }
  {
    g_autofree char *text = sl_occupancy_waves_format (&w);
    add_row (self, "Waves", text);
  }
  add_rowf (self, "Wave size", "%" G_GINT64_FORMAT " blocks (%d SMs × %d)", w.slots,
            limits->sm_count, occ->blocks_per_sm);
  if (w.waves >= 2 || w.last_sms >= 0.5 * limits->sm_count)
    return NULL;
  return g_strdup_printf ("⚠ Tail effect: the last wave runs %" G_GINT64_FORMAT " blocks in %"
                          G_GINT64_FORMAT " slots and leaves %" G_GINT64_FORMAT " of %d SMs "
                          "idle: %.0f %% of the SM time of the grid's waves.", w.last_blocks,
                          w.slots, limits->sm_count - w.last_sms, limits->sm_count, w.idle * 100);
}

static void
show_kernel (SlDetailPane  *self,
             const SlLane  *lane,
             const SlEvent *ev)
{
  const SlKernelInfo *ki = sl_trace_get_kernel_info (self->trace, ev->aux);
  const SlGpu *gpu = lane_gpu (self, lane);

  add_heading (self, ki != NULL ? str (self, ki->short_name) : str (self, ev->name));
  add_row (self, "Kind", "Kernel");
  add_times (self, ev);
  add_gpu_place (self, lane);
  if (ki != NULL && ki->graph_id != 0)
    add_rowf (self, "CUDA graph", "node %" G_GUINT64_FORMAT " of graph %u", ki->graph_node_id,
              ki->graph_id);
  if (ki == NULL)
    {
      add_row (self, "Name", str (self, ev->name));
      add_launch (self, ev);
      return;
    }
  if (ki->graph_id != 0)
    _sl_detail_graph_show (self, self->trace, lane, ev);   /* its launch, nodes, creation */

  add_heading (self, "Theoretical occupancy");
  if (gpu == NULL || gpu->limits.cc_major == 0)
    {
      add_row (self, "Occupancy", "unknown: the trace does not describe this GPU");
      _sl_detail_metrics_occupancy (self, self->trace, lane, ev, NULL);
    }
  else
    {
      SlOccupancy occ;
      g_autofree char *tail = NULL;
      gint64 threads = sl_block_threads (ki->block);
      gint64 smem = (gint64) ki->static_shared + ki->dynamic_shared;
      gboolean ok = sl_occupancy_compute (&gpu->limits, (gint) MIN (threads, G_MAXINT),
                                          (gint) ki->registers_per_thread, smem, &occ);

      if (ok)
        {
          add_rowf (self, "Occupancy", "%.1f %% (%d of %d warps per SM)", occ.occupancy * 100,
                    occ.warps_per_sm, occ.max_warps_per_sm);
          _sl_detail_metrics_occupancy (self, self->trace, lane, ev, &occ);
          add_rowf (self, "Limited by", "%s", sl_occupancy_limit_name (occ.limit));
          add_rowf (self, "Blocks per SM", "%d", occ.blocks_per_sm);
          add_rowf (self, "Warps per SM", "%d", occ.warps_per_sm);
          tail = add_waves (self, &gpu->limits, &occ, ki);
        }
      else
        {
          add_rowf (self, "Occupancy",
                    "0 %%: this configuration cannot run on compute capability %d.%d",
                    gpu->limits.cc_major, gpu->limits.cc_minor);
          _sl_detail_metrics_occupancy (self, self->trace, lane, ev, NULL);
        }
      add_rowf (self, "GPU", "compute capability %d.%d", gpu->limits.cc_major,
                gpu->limits.cc_minor);
      if (tail != NULL)
        add_warning (self, tail);
    }
  _sl_detail_metrics_show (self, self->trace, lane, ev);   /* its GPU's metrics over its run */
  add_heading (self, "Launch configuration");
  add_rowf (self, "Grid", "%u × %u × %u", ki->grid[0], ki->grid[1], ki->grid[2]);
  add_rowf (self, "Block", "%u × %u × %u", ki->block[0], ki->block[1], ki->block[2]);
  add_rowf (self, "Registers", "%u per thread", ki->registers_per_thread);
  {
    g_autofree char *st = sl_format_bytes (ki->static_shared);
    g_autofree char *dy = sl_format_bytes (ki->dynamic_shared);
    add_row (self, "Static shared", st);
    add_row (self, "Dynamic shared", dy);
  }
  if (ki->local_per_thread != 0)
    {
      g_autofree char *lo = sl_format_bytes (ki->local_per_thread);
      add_row (self, "Local memory", lo);
    }

  add_launch (self, ev);
  add_heading (self, "Names");
  add_row (self, "Name", str (self, ki->demangled_name));
  add_row (self, "Short name", str (self, ki->short_name));
  add_row (self, "Mangled name", ki->mangled_name != SL_NO_STR ? str (self, ki->mangled_name)
                                                              : "not in the trace");
}

/* A graph launch traced whole (nsys --cuda-graph-trace=graph): its nodes are not in the trace. */
static void
show_graph (SlDetailPane  *self,
            const SlLane  *lane,
            const SlEvent *ev)
{
  const SlKernelInfo *ki = sl_trace_get_kernel_info (self->trace, ev->aux);

  add_heading (self, str (self, ev->name));
  add_row (self, "Kind", "CUDA graph launch");
  add_times (self, ev);
  add_gpu_place (self, lane);
  if (ki != NULL)
    {
      add_rowf (self, "Graph id", "%u", ki->graph_id);
      add_rowf (self, "Graph exec id", "%u", ki->graph_exec_id);
    }
  add_row (self, "Nodes", "not in the trace (traced as one launch; nsys --cuda-graph-trace=node "
                          "records each node)");
  add_launch (self, ev);
  _sl_detail_graph_show (self, self->trace, lane, ev);   /* where it was made */
}

/* The writers sl-detail-graph.c shares. */
void
_sl_detail_pane_heading (SlDetailPane *self,
                         const char   *text)
{
  add_heading (self, text);
}

void
_sl_detail_pane_row (SlDetailPane *self,
                     const char   *key,
                     const char   *value)
{
  add_row (self, key, value);
}

void
_sl_detail_pane_link (SlDetailPane *self,
                      const char   *text,
                      const SlLane *lane,
                      gsize         index)
{
  add_link (self, text, lane, index);
}

static gboolean
mem_kind_is_pageable (SlDetailPane *self,
                      guint8        kind)
{
  const char *label;

  if (kind == SL_MEM_KIND_NONE)
    return FALSE;
  label = sl_trace_enum_label (self->trace, SL_ENUM_MEM_KIND, kind);
  return label != NULL && g_ascii_strncasecmp (label, "pageable", 8) == 0;
}

static const char *
mem_kind_label (SlDetailPane *self,
                guint8        kind)
{
  const char *label;

  if (kind == SL_MEM_KIND_NONE)
    return "—";
  label = sl_trace_enum_label (self->trace, SL_ENUM_MEM_KIND, kind);
  return label != NULL ? label : "unknown";
}

static void
show_copy (SlDetailPane  *self,
           const SlLane  *lane,
           const SlEvent *ev)
{
  const SlCopyInfo *ci = sl_trace_get_copy_info (self->trace, ev->aux);
  gboolean memset = lane->kind == SL_LANE_MEMSET;

  add_heading (self, str (self, ev->name));
  add_row (self, "Kind", memset ? "Memory set" : "Memory copy");
  add_times (self, ev);
  add_gpu_place (self, lane);
  if (ci != NULL)
    {
      g_autofree char *bytes = sl_format_bytes (ci->bytes);
      g_autofree char *rate = sl_format_rate (ci->bytes, ev->end - ev->start);

      add_heading (self, memset ? "Memory set" : "Memory copy");
      add_row (self, "Bytes", bytes);
      add_row (self, "Throughput", rate);
      if (memset)
        {
          add_rowf (self, "Value", "%u", ci->value);
          add_row (self, "Memory kind", mem_kind_label (self, ci->mem_kind));
          if (mem_kind_is_pageable (self, ci->mem_kind))
            add_warning (self, "⚠ Pageable memory: the set runs synchronously with the host.");
        }
      else
        {
          const char *kind = sl_trace_enum_label (self->trace, SL_ENUM_MEMCPY_OPER, ci->copy_kind);

          add_row (self, "Copy kind", kind != NULL ? kind : "unknown");
          if (ci->migration_cause != SL_MIGRATION_NONE)
            {
              const char *cause = sl_trace_enum_label (self->trace, SL_ENUM_UM_MIGRATION,
                                                       ci->migration_cause);
              add_row (self, "Migration cause", cause != NULL ? cause : "unknown");
              if (ci->migration_cause == 2)
                add_warning (self, "⚠ Migrated on a page fault: the kernel or the host waited "
                                   "for it. Prefetch the data where it will be used "
                                   "(cudaMemPrefetchAsync) or advise the driver "
                                   "(cudaMemAdvise).");
            }
          add_row (self, "Source", mem_kind_label (self, ci->src_kind));
          add_row (self, "Destination", mem_kind_label (self, ci->dst_kind));
          if (mem_kind_is_pageable (self, ci->src_kind) || mem_kind_is_pageable (self, ci->dst_kind))
            add_warning (self, "⚠ Pageable host memory: this copy is staged through a pinned "
                               "buffer and does not overlap with the host. Use pinned memory "
                               "(cudaHostAlloc, pin_memory=True) for asynchronous copies.");
        }
    }
  add_launch (self, ev);
}

/* What a synchronization record says was waited for: "stream 7 sync", "event sync on stream
 * 7", "context 1 sync (all its streams)"; a cudaStreamWaitEvent makes a stream wait, not the
 * host.  `aux` is CUPTI's sync type (1 event, 2 stream wait event, 3 stream, 4 context, as the
 * readers store it); nsys writes stream 2^32 - 1 where a record has none. */
static char *
sync_text (SlDetailPane  *self,
           const SlLane  *lane,
           const SlEvent *ev)
{
  const char *type = sl_trace_enum_label (self->trace, SL_ENUM_SYNC_TYPE, ev->aux);
  gboolean has_stream = lane->stream_id != 0 && lane->stream_id != G_MAXUINT32;

  switch (ev->aux)
    {
    case 1:
      return has_stream ? g_strdup_printf ("event sync on stream %u", lane->stream_id)
                        : g_strdup ("event sync");
    case 2:
      return g_strdup_printf ("stream %u waits for an event (the host does not wait)",
                              lane->stream_id);
    case 3:
      return g_strdup_printf ("stream %u sync", lane->stream_id);
    case 4:
      return g_strdup_printf ("context %u sync (all its streams)", lane->context_id);
    default:
      return g_strdup_printf ("%s (stream %u)", type != NULL ? type : "synchronization",
                              lane->stream_id);
    }
}

/* A synchronizing call's record (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, tied to it by correlation
 * id): it launched nothing, it waited. */
static void
add_waited (SlDetailPane  *self,
            const SlLane  *sync_lane,
            const SlEvent *sync,
            gsize          sync_index)
{
  g_autofree char *what = sync_text (self, sync_lane, sync);
  g_autofree char *dur = sl_format_duration (sync->end - sync->start);

  add_heading (self, "Synchronization");
  add_row (self, sync->aux == 2 ? "Makes wait" : "Waited for", what);
  add_row (self, "Synchronization time", dur);
  add_link (self, "Go to the synchronization", sync_lane, sync_index);
}

/* "stream 7 (context 1)", or the host for a wait on none (cudaEventSynchronize). */
static char *
stream_text (guint32 stream,
             guint32 context)
{
  if (stream == G_MAXUINT32)
    return g_strdup ("the host (no stream)");
  return g_strdup_printf ("stream %u (context %u)", stream, context);
}

/* A time of the trace as the pane writes one, or "unknown". */
static char *
time_text (SlDetailPane *self,
           SlTime        t)
{
  if (t == G_MININT64)
    return g_strdup ("unknown");
  return _sl_detail_pane_format_offset (t - sl_trace_get_origin (self->trace), 1000);
}

/* The GPU work a record completes after: its name and a link to it. */
static void
add_record_work (SlDetailPane        *self,
                 const SlEventRecord *rec,
                 const char          *key)
{
  const SlLane *lane;
  gsize index;

  if (rec->work == SL_NO_LINK || !sl_trace_resolve (self->trace, rec->work, &lane, &index))
    {
      add_row (self, key, "none traced before the record on its stream");
      return;
    }
  g_autofree char *end = time_text (self, lane->events[index].end);
  add_rowf (self, key, "%s (ends %s)", str (self, lane->events[index].name), end);
  add_link (self, "Go to the GPU work", lane, index);
}

/* A wait (a cudaStreamWaitEvent's or cudaEventSynchronize's synchronization record, or the call):
 * the event it names, the stream that recorded it, when, and the work it waited for. */
static void
add_event_wait (SlDetailPane *self,
                guint32       wait)
{
  static const char *const how[] = {
    [SL_EVENT_LINK_NONE] = "",
    [SL_EVENT_LINK_SYNC_ID] = "the eventSyncId both rows carry",
    [SL_EVENT_LINK_RECORD_CORR] = "the record's correlation id the wait names",
    [SL_EVENT_LINK_LAST_RECORD] = "the event's last record before the wait's call",
  };
  SlEventWait w;
  const SlLane *lane;
  gsize index;

  if (!sl_trace_get_event_wait (self->trace, wait, &w))
    return;
  add_heading (self, "CUDA event waited for");
  if (w.event_id != SL_NO_LINK)
    add_rowf (self, "Event", "id %u", w.event_id);
  if (w.record == G_MAXUINT)
    {
      add_row (self, "Recorded", "unknown: the trace has no record of this event");
      return;
    }
  const SlEventRecord *rec = sl_trace_get_event_record (self->trace, w.record);
  g_autofree char *where = stream_text (rec->stream, rec->context);
  g_autofree char *when = time_text (self, rec->time);
  add_row (self, "Recorded on", where);
  add_row (self, "Completed", when);
  add_record_work (self, rec, "GPU work waited for");
  if (rec->call != SL_NO_LINK && sl_trace_resolve (self->trace, rec->call, &lane, &index))
    add_link (self, "Go to its cudaEventRecord", lane, index);
  if (w.how < G_N_ELEMENTS (how))
    add_row (self, "Linked by", how[w.how]);
}

/* A cudaEventRecord call: its record's stream and time, and the waits that consumed it. */
static void
add_event_record (SlDetailPane *self,
                  guint32       call)
{
  guint record;
  const guint32 *waits;

  if (!sl_trace_find_event_record (self->trace, call, &record))
    return;
  const SlEventRecord *rec = sl_trace_get_event_record (self->trace, record);
  g_autofree char *where = stream_text (rec->stream, rec->context);
  g_autofree char *when = time_text (self, rec->time);
  guint n = sl_trace_get_event_record_waits (self->trace, record, &waits);

  add_heading (self, "CUDA event record");
  add_rowf (self, "Event", "id %u", rec->event_id);
  add_row (self, "Recorded on", where);
  add_row (self, "Completed", when);
  add_record_work (self, rec, "After");
  if (n == 0)
    add_row (self, "Waits", "none: nothing waited for this record");
  else
    add_rowf (self, "Waits", "%u", n);
  for (guint i = 0; i < n && i < 32; i++)
    {
      const SlLane *lane, *api_lane;
      gsize index, api_index;
      if (!sl_trace_resolve (self->trace, waits[i], &lane, &index))
        continue;
      const SlEvent *ev = &lane->events[index];
      const char *name = ev->link != SL_NO_LINK
                           && sl_trace_resolve (self->trace, ev->link, &api_lane, &api_index)
                         ? sl_trace_display_name (self->trace, SL_LANE_CUDA_API,
                                                  api_lane->events[api_index].name)
                         : str (self, ev->name);
      g_autofree char *on = stream_text (lane->stream_id, lane->context_id);
      g_autofree char *at = time_text (self, ev->start);
      add_rowf (self, "", "%s on %s at %s", name, on, at);
      add_link (self, "Go to the wait", lane, index);
    }
  if (n > 32)
    add_rowf (self, "", "… %u more", n - 32);
}

static void add_stack (SlDetailPane  *self,
                       const char    *heading,
                       const guint32 *symbols,
                       const guint32 *modules,
                       guint          n);

static void
show_api (SlDetailPane  *self,
          const SlLane  *lane,
          const SlEvent *ev)
{
  const SlLane *gpu_lane;
  gsize gpu_index;
  guint32 ret = ev->aux >> 8;

  add_heading (self, sl_trace_display_name (self->trace, SL_LANE_CUDA_API, ev->name));
  if (ev->name != SL_NO_STR && !g_str_equal (sl_trace_display_name (self->trace, SL_LANE_CUDA_API,
                                                                    ev->name),
                                             str (self, ev->name)))
    add_row (self, "Name in the trace", str (self, ev->name));
  add_row (self, "Kind", "CUDA API call");
  add_times (self, ev);
  add_thread (self, lane);
  add_rowf (self, "Return value", "%u%s", ret, ret == 0 ? " (success)" : " (error)");
  add_rowf (self, "Correlation id", "%u", ev->corr);
  if (ev->link == SL_NO_LINK || !sl_trace_resolve (self->trace, ev->link, &gpu_lane, &gpu_index))
    ;
  else if (gpu_lane->kind == SL_LANE_SYNC)
    {
      add_waited (self, gpu_lane, &gpu_lane->events[gpu_index], gpu_index);
      add_event_wait (self, gpu_lane->base + (guint32) gpu_index);
    }
  else
    {
      const SlEvent *work = &gpu_lane->events[gpu_index];
      g_autofree char *delay = _sl_detail_pane_format_queue_delay (ev->end, work->start);

      add_heading (self, "GPU work");
      add_row (self, "Launched", str (self, work->name));
      add_row (self, "Queue delay", delay);
      add_link (self, "Go to GPU work", gpu_lane, gpu_index);
    }
  add_event_record (self, lane->base + (guint32) (ev - lane->events));
  _sl_detail_memory_show (self, self->trace, lane->base + (guint32) (ev - lane->events));
  /* where the call came from (CUDA_CALLCHAINS, nsys --cudabacktrace), as an OS call's */
  const guint32 *symbols, *modules;
  guint n = sl_trace_get_cuda_callchain (self->trace, lane, ev, &symbols, &modules);
  add_stack (self, "Backtrace (leaf first)", symbols, modules, n);
}

static void
show_nvtx (SlDetailPane  *self,
           const SlLane  *lane,
           const SlEvent *ev)
{
  add_heading (self, str (self, ev->name));
  add_row (self, "Kind", (ev->link & SL_NVTX_MARK) ? "NVTX mark" : "NVTX range");
  add_row (self, "Text", str (self, ev->name));
  add_row (self, "Domain", ev->corr != SL_NO_STR ? str (self, ev->corr) : "default");
  add_times (self, ev);
  if (ev->link & SL_NVTX_UNTERMINATED)
    add_warning (self, "The range never ended: it is drawn up to the end of the trace.");
  if (ev->link & SL_NVTX_OTHER_THREAD)
    add_row (self, "Ends", "on another thread (not projected onto the GPU)");
  add_rowf (self, "Depth", "%u", lane->depth);
  add_row (self, "Style", (ev->link & SL_NVTX_START_END) ? "start/end" : "push/pop");
  add_thread (self, lane);
}

/* A call chain, leaf first: every frame up to 512 (a sample's whole stack; the flame chart in the
 * timeline shows at most 24 levels of it), then how many more. */
static void
add_stack (SlDetailPane  *self,
           const char    *heading,
           const guint32 *symbols,
           const guint32 *modules,
           guint          n)
{
  if (n == 0)
    return;
  add_heading (self, heading);
  for (guint i = 0; i < n && i < 512; i++)
    {
      const char *module = str (self, modules[i]);
      if (*module != '\0')
        add_rowf (self, i == 0 ? "Leaf" : "", "%s  (%s)", str (self, symbols[i]), module);
      else
        add_row (self, i == 0 ? "Leaf" : "", str (self, symbols[i]));
    }
  if (n > 512)
    add_rowf (self, "", "… %u more frames", n - 512);
}

/* The files the OS runtime call opened, read or wrote (nsys 2026.1+ exports with file-access
 * tracing), read from the trace's file when the call is shown. */
static void
add_file_accesses (SlDetailPane  *self,
                   const SlLane  *lane,
                   const SlEvent *ev)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) files = sl_trace_get_file_accesses (self->trace, lane,
                                                            (gsize) (ev - lane->events), &error);

  if (files == NULL)
    {
      add_row (self, "Files", error->message);
      return;
    }
  if (files->len == 0)
    return;
  add_heading (self, files->len == 1 ? "File" : "Files");
  for (guint i = 0; i < files->len; i++)
    {
      const SlFileAccess *a = g_ptr_array_index (files, i);
      if (a->bytes > 0)
        {
          g_autofree char *bytes = g_format_size ((guint64) a->bytes);
          add_rowf (self, a->action, "%s (%s)", a->path, bytes);
        }
      else
        add_row (self, a->action, a->path);
    }
}

static void
show_cpu (SlDetailPane  *self,
          const SlLane  *lane,
          const SlEvent *ev)
{
  const guint32 *symbols, *modules;
  guint n;

  add_heading (self, str (self, ev->name));
  if (lane->kind == SL_LANE_OSRT)
    {
      add_row (self, "Kind", "OS runtime call");
      add_times (self, ev);
      add_rowf (self, "Return value", "%d", (gint32) ev->aux);
      n = sl_trace_get_osrt_callchain (self->trace, ev->corr, &symbols, &modules);
      add_thread (self, lane);
      add_file_accesses (self, lane, ev);
      add_stack (self, "Backtrace (leaf first)", symbols, modules, n);
      return;
    }
  SlTime origin = sl_trace_get_origin (self->trace);
  g_autofree char *at = sl_format_offset (ev->start - origin);

  n = sl_trace_get_callchain (self->trace, ev->aux, &symbols, &modules);
  add_row (self, "Kind", "CPU sample");
  add_row (self, "Time", at);
  add_rowf (self, "Stack depth", "%u", n);
  add_thread (self, lane);
  add_stack (self, "Call chain (leaf first)", symbols, modules, n);
}

/* The OS runtime call of the thread that covers most of [t0, t1) (any nesting depth), or -1. */
static gssize
covering_osrt (SlDetailPane  *self,
               gint32         thread,
               SlTime         t0,
               SlTime         t1,
               const SlLane **found)
{
  gssize best = -1;
  SlTime best_overlap = 0;

  for (guint i = 0; i < sl_trace_get_n_lanes (self->trace); i++)
    {
      const SlLane *l = sl_trace_get_lane (self->trace, i);
      if (l->kind != SL_LANE_OSRT || l->thread != thread)
        continue;
      /* OS runtime lanes of one depth do not overlap: look at the calls near t0 */
      gsize k = sl_lane_lower_bound (l, t0);
      if (k > 0)
        k--;
      for (; k < l->n_events && l->events[k].start < t1; k++)
        {
          SlTime overlap = MIN (l->events[k].end, t1) - MAX (l->events[k].start, t0);
          if (overlap > best_overlap)
            {
              best_overlap = overlap;
              best = (gssize) k;
              *found = l;
            }
        }
    }
  return best;
}

static void
show_state (SlDetailPane  *self,
            const SlLane  *lane,
            const SlEvent *ev)
{
  SlThreadState state = SL_STATE_OF (ev->aux);
  const SlLane *osrt = NULL;

  add_heading (self, str (self, ev->name));
  add_row (self, "Kind", (ev->aux & SL_STATE_DERIVED)
                           ? "Thread state, derived from CPU samples and OS runtime calls"
                           : "Thread state, from scheduling data");
  add_times (self, ev);
  if (state == SL_STATE_RUNNING)
    {
      if (ev->corr != SL_NO_LINK)
        add_rowf (self, "CPU", "%u", ev->corr);
      else
        add_row (self, "CPU", "unknown");
    }
  if (ev->link != SL_NO_LINK)
    add_row (self, state == SL_STATE_RUNNABLE ? "Switched out" : "Blocked on",
             sl_trace_enum_label (self->trace, SL_ENUM_THREAD_BLOCK, ev->link));
  if (state != SL_STATE_RUNNING)
    {
      gssize k = covering_osrt (self, lane->thread, ev->start, ev->end, &osrt);
      if (k >= 0)
        {
          g_autofree char *dur = sl_format_duration (osrt->events[k].end - osrt->events[k].start);
          add_rowf (self, "In call", "%s (OS runtime, %s)", str (self, osrt->events[k].name), dur);
          add_link (self, "Go to the call", osrt, (gsize) k);
        }
    }
  add_thread (self, lane);
}

static void
show_sync (SlDetailPane  *self,
           const SlLane  *lane,
           const SlEvent *ev)
{
  const char *type = sl_trace_enum_label (self->trace, SL_ENUM_SYNC_TYPE, ev->aux);
  const SlLane *api_lane;
  gsize api_index;

  add_heading (self, str (self, ev->name));
  add_row (self, "Kind", "Synchronization");
  add_row (self, "Type", type != NULL ? type : "unknown");
  add_times (self, ev);
  add_gpu_place (self, lane);
  add_heading (self, "Host call");
  if (ev->link == SL_NO_LINK || !sl_trace_resolve (self->trace, ev->link, &api_lane, &api_index))
    {
      add_row (self, "API call", "not in the trace (no CUDA API call has this correlation id)");
      return;
    }
  add_row (self, "API call",
           sl_trace_display_name (self->trace, SL_LANE_CUDA_API, api_lane->events[api_index].name));
  add_rowf (self, "Correlation id", "%u", ev->corr);
  add_link (self, "Go to the call", api_lane, api_index);
  add_event_wait (self, lane->base + (guint32) (ev - lane->events));
}

static void
fill (SlDetailPane *self)
{
  const SlLane *lane;
  const SlEvent *ev;

  if (self->trace == NULL || self->ref.lane < 0
      || (guint) self->ref.lane >= sl_trace_get_n_lanes (self->trace))
    {
      GtkWidget *hint = value_label ("Click an event in the timeline to see its details here.");

      gtk_widget_add_css_class (hint, "dim-label");
      gtk_grid_attach (GTK_GRID (self->grid), hint, 0, 0, 2, 1);
      return;
    }
  lane = sl_trace_get_lane (self->trace, self->ref.lane);
  if (self->ref.index >= lane->n_events)
    return;
  ev = &lane->events[self->ref.index];
  switch (lane->kind)
    {
    case SL_LANE_KERNELS:
      show_kernel (self, lane, ev);
      break;
    case SL_LANE_GRAPHS:
      show_graph (self, lane, ev);
      break;
    case SL_LANE_MEMCPY:
    case SL_LANE_MEMSET:
      show_copy (self, lane, ev);
      break;
    case SL_LANE_CUDA_API:
      show_api (self, lane, ev);
      break;
    case SL_LANE_NVTX:
      show_nvtx (self, lane, ev);
      break;
    case SL_LANE_SYNC:
      show_sync (self, lane, ev);
      break;
    case SL_LANE_SCHED:
      show_state (self, lane, ev);
      break;
    case SL_LANE_MPI:
      add_heading (self, str (self, ev->name));
      add_row (self, "Kind", "MPI call");
      add_times (self, ev);
      add_thread (self, lane);
      _sl_detail_mpi_show (self, self->trace, lane, ev);
      break;
    case SL_LANE_OPENMP:
    case SL_LANE_OPENACC:
      add_heading (self, str (self, ev->name));
      add_row (self, "Kind", lane->kind == SL_LANE_OPENMP ? "OpenMP event" : "OpenACC event");
      add_times (self, ev);
      add_thread (self, lane);
      _sl_detail_openmp_show (self, self->trace, lane, ev);
      break;
    case SL_LANE_OSRT:
    case SL_LANE_SAMPLES:
    default:
      show_cpu (self, lane, ev);
      break;
    }
}

static void
rebuild (SlDetailPane *self)
{
  GtkRoot *root;
  GtkWidget *focus;
  gboolean refocus;

  /* The focus inside the grid that goes (a link activated from the keyboard) is let go first:
   * GTK 4.8 kept the destroyed widget as its viewport's focus and asserted in
   * gtk_widget_is_ancestor at the next layout.  The new grid's first link takes it over. */
  root = gtk_widget_get_root (GTK_WIDGET (self));
  focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  refocus = focus != NULL && self->grid != NULL && gtk_widget_is_ancestor (focus, self->grid);
  if (refocus)
    gtk_root_set_focus (root, NULL);
  self->grid = gtk_grid_new ();
  self->row = 0;
  gtk_grid_set_row_spacing (GTK_GRID (self->grid), 4);
  gtk_grid_set_column_spacing (GTK_GRID (self->grid), 12);
  g_object_set (self->grid, "margin-start", 12, "margin-end", 12, "margin-top", 12,
                "margin-bottom", 12, NULL);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), self->grid);

  fill (self);
  if (refocus)
    gtk_widget_child_focus (self->grid, GTK_DIR_TAB_FORWARD);
}

static void
sl_detail_pane_dispose (GObject *object)
{
  SlDetailPane *self = SL_DETAIL_PANE (object);

  g_clear_pointer (&self->scroller, gtk_widget_unparent);
  g_clear_pointer (&self->trace, sl_trace_unref);
  G_OBJECT_CLASS (sl_detail_pane_parent_class)->dispose (object);
}

static void
sl_detail_pane_class_init (SlDetailPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sl_detail_pane_dispose;
  signals[GO_TO_EVENT] = g_signal_new ("go-to-event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                       0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT,
                                       G_TYPE_UINT64);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sl-detail-pane");
}

static void
sl_detail_pane_init (SlDetailPane *self)
{
  self->ref = SL_EVENT_REF_NONE;
  self->scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));
  rebuild (self);
}

void
sl_detail_pane_set_trace (SlDetailPane *self,
                          SlTrace      *trace)
{
  g_return_if_fail (SL_IS_DETAIL_PANE (self));

  if (trace == self->trace)
    return;
  g_clear_pointer (&self->trace, sl_trace_unref);
  if (trace != NULL)
    self->trace = sl_trace_ref (trace);
  self->ref = SL_EVENT_REF_NONE;
  rebuild (self);
}

void
sl_detail_pane_set_event (SlDetailPane *self,
                          SlEventRef    ref)
{
  g_return_if_fail (SL_IS_DETAIL_PANE (self));

  if (ref.lane == self->ref.lane && ref.index == self->ref.index && self->grid != NULL
      && ref.lane >= 0)
    return;
  self->ref = ref;
  rebuild (self);
}

SlEventRef
sl_detail_pane_get_event (SlDetailPane *self)
{
  g_return_val_if_fail (SL_IS_DETAIL_PANE (self), SL_EVENT_REF_NONE);
  return self->ref;
}

char *
_sl_detail_pane_get_text (SlDetailPane *self)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (SL_IS_DETAIL_PANE (self), NULL);
  for (gint row = 0; row < self->row; row++)
    {
      GtkWidget *key = gtk_grid_get_child_at (GTK_GRID (self->grid), 0, row);
      GtkWidget *value = gtk_grid_get_child_at (GTK_GRID (self->grid), 1, row);

      if (GTK_IS_LABEL (key) && GTK_IS_LABEL (value) && key != value)
        g_string_append_printf (out, "%s: %s\n", gtk_label_get_text (GTK_LABEL (key)),
                                gtk_label_get_text (GTK_LABEL (value)));
      else if (GTK_IS_LABEL (key))
        g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (key)));
      else if (key == NULL && GTK_IS_BUTTON (value))
        g_string_append_printf (out, "[%s]\n", gtk_button_get_label (GTK_BUTTON (value)));
    }
  return g_string_free (out, FALSE);
}
