/* sl-timeline-legend.c: what the timeline's colours mean, in a popover from the ruler's corner. */
#include "sl-timeline-view-private.h"

/* Built when it opens, from the palette of the theme and the colour mode of that moment: no frame
 * pays for it.  The corner says "Legend" where a click opens it (sl-timeline-ruler.c). */

static char *
swatch_markup (const GdkRGBA *c,
               const char    *glyph)
{
  return g_strdup_printf ("<span foreground=\"#%02x%02x%02x\" fgalpha=\"%d%%\">%s</span>",
                          (guint) (c->red * 255 + 0.5), (guint) (c->green * 255 + 0.5),
                          (guint) (c->blue * 255 + 0.5), (int) CLAMP (c->alpha * 100 + 0.5, 1, 100),
                          glyph);
}

static void
legend_row (GtkGrid       *grid,
            int           *row,
            const GdkRGBA *c,
            const char    *glyph,
            const char    *text)
{
  GtkWidget *sw = gtk_label_new (NULL), *label = gtk_label_new (text);
  g_autofree char *markup = c != NULL ? swatch_markup (c, glyph) : NULL;

  if (markup != NULL)
    gtk_label_set_markup (GTK_LABEL (sw), markup);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 52);
  gtk_grid_attach (grid, sw, 0, *row, 1, 1);
  gtk_grid_attach (grid, label, 1, *row, 1, 1);
  (*row)++;
}

static void
legend_heading (GtkGrid    *grid,
                int        *row,
                const char *text)
{
  GtkWidget *label = gtk_label_new (NULL);
  g_autofree char *markup = g_markup_printf_escaped ("<b>%s</b>", text);

  gtk_label_set_markup (GTK_LABEL (label), markup);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  if (*row > 0)
    gtk_widget_set_margin_top (label, 8);
  gtk_grid_attach (grid, label, 0, *row, 2, 1);
  (*row)++;
}

/* The thread-state lanes and the CPU rows. */
static void
legend_states (SlTimelineView *self,
               GtkGrid        *grid,
               int            *row)
{
  const Palette *p = &self->pal;
  GdkRGBA derived = _sl_timeline_state_color (self, SL_STATE_RUNNING | SL_STATE_DERIVED);

  legend_heading (grid, row, "Thread states, CPU rows");
  legend_row (grid, row, &p->sched_running, "██", "Running on a CPU core");
  legend_row (grid, row, &p->sched_runnable, "██", "Runnable: preempted, waiting for a core");
  legend_row (grid, row, &p->sched_blocked, "██",
              "Blocked: asleep or waiting (the reason in the detail pane)");
  legend_row (grid, row, &p->sched_unknown, "██", "Unknown: the trace does not say");
  legend_row (grid, row, &derived, "██",
              "Paler: derived from CPU samples and OS runtime calls, not scheduling data");
  legend_row (grid, row, &p->sched_mixed, "▒▒", "Many states in one pixel");
  legend_row (grid, row, &p->sched_running, "▁▇",
              "CPU utilization: cores the process keeps busy, 0 to the cores seen");
  legend_row (grid, row, NULL, "", "CPUs: one row per core, a colour per thread running on it");
}

static GtkWidget *
legend_content (SlTimelineView *self)
{
  const Palette *p = &self->pal;
  GdkRGBA mark = p->idle;
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());
  g_autofree char *threshold = g_strdup_printf (
    "Shaded idle: GPU busy below %.0f%% of the time (dotted line)", 100 * self->util_threshold);
  int row = 0;

  gtk_grid_set_column_spacing (grid, 8);
  gtk_grid_set_row_spacing (grid, 2);
  gtk_widget_set_margin_start (GTK_WIDGET (grid), 6);
  gtk_widget_set_margin_end (GTK_WIDGET (grid), 6);
  gtk_widget_set_margin_top (GTK_WIDGET (grid), 6);
  gtk_widget_set_margin_bottom (GTK_WIDGET (grid), 6);

  if (self->color_mode == SL_COLOR_BY_NAME)
    {
      GdkRGBA a = { 0.85f, 0.45f, 0.35f, 1 }, b = { 0.35f, 0.6f, 0.85f, 1 };
      legend_heading (grid, &row, "Events: coloured by name");
      legend_row (grid, &row, &a, "██",
                  "Each name has a colour of its own (the same in every lane)");
      legend_row (grid, &row, &b, "██", "NVTX ranges keep the colour the program gave them");
    }
  else
    {
      legend_heading (grid, &row, "Events: coloured by kind");
      legend_row (grid, &row, &p->kernel, "██", "Kernel");
      legend_row (grid, &row, &p->memcpy_htod, "██", "Memcpy host → device");
      legend_row (grid, &row, &p->memcpy_dtoh, "██", "Memcpy device → host");
      legend_row (grid, &row, &p->memcpy_dtod, "██", "Memcpy device → device");
      legend_row (grid, &row, &p->memcpy_other, "██", "Memcpy, other kinds");
      legend_row (grid, &row, &p->um_fault, "██", "Unified memory migrated on a page fault");
      legend_row (grid, &row, &p->um_prefetch, "██", "Unified memory prefetched (asked for)");
      legend_row (grid, &row, &p->um_other, "██",
                  "Unified memory: speculative prefetch, eviction, other");
      legend_row (grid, &row, &p->memset, "██", "Memset");
      legend_row (grid, &row, &p->api, "██", "CUDA API call");
      legend_row (grid, &row, &p->api_sync, "██", "CUDA API call that waits for the GPU");
      legend_row (grid, &row, &p->nvtx, "██", "NVTX range (or the colour the program gave it)");
      legend_row (grid, &row, &p->osrt, "██", "OS runtime call");
      legend_row (grid, &row, &p->sample, "▮",
                  "CPU samples: a flame chart by stack depth, coloured by function (grey: many "
                  "in a pixel); ticks where samples have no stack");
    }
  legend_row (grid, &row, &p->gpu_sync, "▭▭",
              "Host wait (synchronization): the CPU waits, the GPU is not busy");
  legend_row (grid, &row, &p->dim_fg, "▒▒",
              "Many events in one pixel: the shade says how much of it they fill");

  legend_heading (grid, &row, "Utilization rows (0–100%)");
  legend_row (grid, &row, &p->util_kernels, "██",
              self->util_sm ? "Busy: SMs Active (GPU metrics), where a GPU has them; kernels "
                              "running elsewhere"
                            : "Busy: kernels running");
  legend_row (grid, &row, &p->util_copies, "██", "Busy: copies or sets, no kernel running");
  legend_row (grid, &row, &p->idle, "██", threshold);

  if (self->metrics != NULL)
    {
      legend_heading (grid, &row, "GPU metrics rows");
      legend_row (grid, &row, &p->util_kernels, "██",
                  "Per pixel the time-weighted mean, the max lighter above it; % metrics 0–100, "
                  "others 0 to their largest sample");
    }

  legend_states (self, grid, &row);

  legend_heading (grid, &row, "Marks");
  legend_row (grid, &row, &p->select, "▢", "Selected event");
  legend_row (grid, &row, &p->search, "▁▁", "Search match");
  legend_row (grid, &row, &p->focus, "▁▁", "Finding in focus");
  legend_row (grid, &row, &p->event_record, "▛",
              "CUDA event recorded on a stream (a click selects its cudaEventRecord; the dashed "
              "arrows of a selected wait or record lead to the waits it released)");
  /* the strip along the ruler's foot (sl-timeline-ruler.c): p->idle as strong as drawn there, the
   * focused one in p->focus */
  mark.alpha = RULER_MARK_ALPHA;
  legend_row (grid, &row, &mark, "▁▁",
              "Along the ruler: where the findings are (hover a mark for its rule and cost; the "
              "Findings tab lists them)");
  legend_row (grid, &row, &p->focus, "▁▁", "Along the ruler: the finding in focus");
  legend_row (grid, &row, &p->range, "██", "Selected time range");
  return GTK_WIDGET (grid);
}

/* Opens the legend (made anew: the theme or the colour mode may have changed), or closes it. */
void
_sl_timeline_legend_toggle (SlTimelineView *self)
{
  if (self->legend != NULL && gtk_widget_get_visible (self->legend))
    {
      gtk_popover_popdown (GTK_POPOVER (self->legend));
      return;
    }
  if (self->legend == NULL)
    {
      self->legend = gtk_popover_new ();
      gtk_widget_set_parent (self->legend, GTK_WIDGET (self));
      gtk_popover_set_position (GTK_POPOVER (self->legend), GTK_POS_BOTTOM);
      gtk_popover_set_pointing_to (GTK_POPOVER (self->legend),
                                   &(GdkRectangle) { HEADER_W - 20, 0, 16, (int) RULER_H });
    }
  _sl_timeline_palette_update (self);
  gtk_popover_set_child (GTK_POPOVER (self->legend), legend_content (self));
  gtk_popover_popup (GTK_POPOVER (self->legend));
}

void
_sl_timeline_legend_dispose (SlTimelineView *self)
{
  if (self->legend != NULL)
    gtk_widget_unparent (self->legend);
  self->legend = NULL;
}

void
sl_timeline_view_toggle_legend (SlTimelineView *self)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  _sl_timeline_legend_toggle (self);
}

GtkWidget *
sl_timeline_view_get_legend (SlTimelineView *self)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), NULL);
  return self->legend != NULL && gtk_widget_get_visible (self->legend) ? self->legend : NULL;
}
