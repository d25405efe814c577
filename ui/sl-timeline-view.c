/* sl-timeline-view.c: the timeline widget: its GObject, the snapshot that runs a frame, its API. */
#include "sl-timeline-view-private.h"
#include "sl-sort.h"
#include "sl-work-range.h"

enum
{
  PROP_0,
  PROP_HADJUSTMENT,
  PROP_VADJUSTMENT,
  PROP_HSCROLL_POLICY,
  PROP_VSCROLL_POLICY,
  N_PROPS
};

enum
{
  EVENT_SELECTED,
  EVENT_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE_WITH_CODE (SlTimelineView, sl_timeline_view, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, NULL))

GtkWidget *
sl_timeline_view_new (void)
{
  return g_object_new (SL_TYPE_TIMELINE_VIEW, NULL);
}

static void
sl_timeline_view_snapshot (GtkWidget   *widget,
                           GtkSnapshot *snapshot)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  double sy = scroll_y (self);
  Frame f;
  FrameJob job;
  GskRenderNode *top_node;
  Batch batch = { snapshot, 0, 0, 0, 0, { 0, 0, 0, 0 }, FALSE };
  gboolean highlighting = self->highlight != NULL;

  _sl_timeline_palette_update (self);
  _sl_timeline_layout_ensure (self);
  gtk_snapshot_append_color (snapshot, &self->pal.bg, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (self->trace == NULL || width <= HEADER_W + 1)
    {
      _sl_timeline_draw_text (self, snapshot, SL_NO_STR, "No trace loaded", 16, 16,
                              MAX (width - 32, 0), &self->pal.dim_fg);
      return;
    }

  sl_viewport_get_visible (self->viewport, &f.t0, &f.t1);
  f.width = width - HEADER_W;
  f.right = width;
  f.scale = f.width / (double) MAX (f.t1 - f.t0, 1);

  /* the level of detail and utilization start on a second thread; headers and ruler (drawn on
   * top at the end) meanwhile */
  self->under_ok = 0;
  _sl_timeline_frame_prefetch_start (self, &f, sy, height, &job);
  {
    GtkSnapshot *top = gtk_snapshot_new ();
    _sl_timeline_draw_headers (self, top, height);
    _sl_timeline_draw_ruler (self, top, &f, height);
    top_node = gtk_snapshot_free_to_node (top);
  }
  _sl_timeline_frame_prefetch_finish (self, &job);

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (HEADER_W, RULER_H, f.width,
                                                         height - RULER_H));
  /* row backgrounds (tinted for the lanes of a finding in focus), then the grid under the
   * events */
  GdkRGBA tint = self->pal.focus;
  tint.alpha = 0.12f;
  for (guint i = 0; i < self->rows->len; i++)
    {
      const Row *r = row_get (self, i);
      double y = RULER_H + r->y - sy;
      if (y + r->h < RULER_H)
        continue;
      if (y > height)
        break;
      gtk_snapshot_append_color (snapshot, r->kind == ROW_GROUP ? &self->pal.bg_alt
                                           : (i & 1) ? &self->pal.bg_alt : &self->pal.bg,
                                 &GRAPHENE_RECT_INIT (HEADER_W, y, f.width, r->h));
      if (r->kind == ROW_LANE && self->focus_lanes != NULL && self->focus_lanes[r->lane])
        gtk_snapshot_append_color (snapshot, &tint,
                                   &GRAPHENE_RECT_INIT (HEADER_W, y, f.width, r->h));
    }
  {
    SlTime first, step;
    _sl_timeline_grid_ticks (self, &f, &first, &step);
    for (SlTime t = first; t < f.t1 + step; t += step)
      gtk_snapshot_append_color (snapshot, &self->pal.grid,
                                 &GRAPHENE_RECT_INIT (floor (frame_x (&f, t)), RULER_H, 1,
                                                      height - RULER_H));
  }

  /* a finding in focus: its time range banded */
  if (self->focus_t1 > self->focus_t0)
    {
      GdkRGBA band = self->pal.focus;
      double x0 = MAX (frame_x (&f, self->focus_t0), HEADER_W - 1);
      double x1 = MIN (frame_x (&f, self->focus_t1), f.right + 1);
      band.alpha = 0.07f;
      if (x1 > x0)
        gtk_snapshot_append_color (snapshot, &band,
                                   &GRAPHENE_RECT_INIT (x0, RULER_H, MAX (x1 - x0, 1),
                                                        height - RULER_H));
    }

  /* events: only rows on screen, each a LOD list for the visible window */
  for (guint i = 0; i < self->rows->len; i++)
    {
      const Row *r = row_get (self, i);
      double y = RULER_H + r->y - sy;

      if (y + r->h < RULER_H)
        continue;
      if (y > height)
        break;
      if (r->kind == ROW_LANE)
        {
          const SlLane *lane = sl_trace_get_lane (self->trace, r->lane);
          GArray *focus = self->focus.lanes != NULL ? self->focus.lanes[r->lane] : NULL;
          gboolean tinted = self->focus_lanes != NULL && self->focus_lanes[r->lane];
          _sl_timeline_draw_lane_row (self, snapshot, &f, lane, y, r->h, highlighting,
                                      _sl_timeline_frame_under (self, &f, (i & 1) != 0, tinted));
          if (highlighting)
            _sl_timeline_draw_search_marks (self, &batch, &f, lane, self->highlight, y, r->h, NULL);
          if (self->search != NULL)
            _sl_timeline_draw_search_marks (self, &batch, &f, lane, self->search, y, r->h,
                                            &self->pal.search);
          if (focus != NULL)
            _sl_timeline_draw_lane_marks (self, &batch, &f, lane, (const guint32 *) focus->data,
                                          focus->len, y, r->h, &self->pal.focus);
          _sl_timeline_draw_event_markers (self, &batch, &f, lane, y, r->h);
          batch_flush (&batch);
          if (self->util_overlay && lane->gpu >= 0)
            _sl_timeline_draw_idle_shade (self, &batch, &f, lane->gpu, y, r->h);
        }
      else if (r->kind == ROW_GPU_ALL)
        {
          GArray *lanes = self->gpu_lanes[r->gpu];
          const GpuRow *g = &self->gpu_rows[r->gpu];
          guint n = (guint) ceil (f.width);
          if (!_sl_timeline_gpu_row_fresh (self, r->gpu, &f, n))
            _sl_timeline_gpu_row_runs (self, &f, r->gpu, _sl_timeline_columns_get (self, n));
          _sl_timeline_runs_emit (self, snapshot, g->runs, g->n_runs, n, y + 1, r->h - 2,
                                  highlighting,
                                  _sl_timeline_frame_under (self, &f, (i & 1) != 0, FALSE));
          for (guint k = 0; k < lanes->len; k++)
            {
              const SlLane *lane = sl_trace_get_lane (self->trace, g_array_index (lanes, guint, k));
              if (highlighting)
                _sl_timeline_draw_search_marks (self, &batch, &f, lane, self->highlight, y, r->h,
                                                NULL);
              batch_flush (&batch);
            }
          if (self->util_overlay)
            _sl_timeline_draw_idle_shade (self, &batch, &f, r->gpu, y, r->h);
        }
      else if (r->kind == ROW_GPU_UTIL)
        _sl_timeline_draw_util_texture (self, snapshot, &f, r->gpu, y, r->h);
      else if (r->kind == ROW_CPU_UTIL || r->kind == ROW_CPU_CORE)
        _sl_timeline_draw_cpu_row (self, snapshot, &f, r, y);
      else if (r->kind == ROW_NVTX_PROJ)
        _sl_timeline_nvtxproj_draw (self, snapshot, &f, r, y);
      else if (r->kind == ROW_GRAPHS || r->kind == ROW_GRAPH_NODES)
        _sl_timeline_graphs_draw (self, snapshot, &f, r, y);
      else if (r->kind == ROW_GPU_MEMORY)
        _sl_timeline_memory_draw (self, snapshot, &f, r, y);
      else if (r->kind == ROW_GPU_METRIC)
        _sl_timeline_metrics_draw (self, snapshot, &f, r, y);
      else if (r->kind == ROW_UM_FAULTS)
        _sl_timeline_faults_draw (self, snapshot, &f, r, y);
      else
        gtk_snapshot_append_color (snapshot, &self->pal.grid,
                                   &GRAPHENE_RECT_INIT (HEADER_W, y + r->h - 1, f.width, 1));
    }
  batch_flush (&batch);

  _sl_timeline_draw_loading (self, snapshot, &f, height);
  _sl_timeline_critpath_draw (self, snapshot, &f, height);

  /* the selection on top */
  {
    graphene_rect_t area;
    if (_sl_timeline_selection_outline (self, &area))
      _sl_timeline_draw_outline (snapshot, &area, &self->pal.select, 2);
  }
  _sl_timeline_draw_arrow (self, snapshot, width, height);
  _sl_timeline_draw_event_arrows (self, snapshot, width, height);
  _sl_timeline_draw_mpi_arrows (self, snapshot, width, height);
  gtk_snapshot_pop (snapshot);

  if (top_node != NULL)
    {
      gtk_snapshot_append_node (snapshot, top_node);
      gsk_render_node_unref (top_node);
    }

  /* a scroll indicator when no scrolled window draws a scrollbar for us */
  if (self->content_h > height - RULER_H && self->vadjustment != NULL
      && !GTK_IS_SCROLLED_WINDOW (gtk_widget_get_parent (widget)))
    {
      double page = height - RULER_H;
      double th = MAX (page * page / self->content_h, 20);
      double ty = RULER_H + (page - th) * sy / MAX (self->content_h - page, 1);
      GdkRGBA c = self->pal.fg;
      c.alpha = 0.3f;
      gtk_snapshot_append_color (snapshot, &c, &GRAPHENE_RECT_INIT (width - 6, ty, 4, th));
    }
}

void
_sl_timeline_select_ref (SlTimelineView *self,
                         SlEventRef      ref,
                         gboolean        emit)
{
  self->selected = ref;
  self->range_event = SL_EVENT_REF_NONE;  /* newer than any range: F fits it */
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (emit)
    g_signal_emit (self, signals[EVENT_SELECTED], 0, &self->selected);
}

/* ------------------------------------------------------------------------------------------- */
/* GObject                                                                                     */

/* "event-activated" for the selection: a double-click on an event (sl-timeline-input.c). */
void
_sl_timeline_emit_activated (SlTimelineView *self)
{
  g_signal_emit (self, signals[EVENT_ACTIVATED], 0, &self->selected);
}

static void
viewport_changed_cb (SlViewport     *viewport,
                     GParamSpec     *pspec,
                     SlTimelineView *self)
{
  (void) viewport;
  (void) pspec;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The first view of a trace holds its first GPU's rows (sl_timeline_view_reveal_gpu): on a
 * laptop's 1366 × 768 the rows of a few threads (each with its NVTX, OS runtime, samples and
 * states) pushed them below the fold.  The view scrolls down, no further than the GPU's group,
 * until its "All streams" row (or its utilization) is in sight; once, when it has a height. */
static void
reveal_first_gpu (SlTimelineView *self)
{
  double page = gtk_widget_get_height (GTK_WIDGET (self)) - RULER_H, group = -1, need = -1;

  if (!self->reveal_gpu || self->trace == NULL || self->vadjustment == NULL || page <= 0)
    return;
  self->reveal_gpu = FALSE;
  for (guint r = 0; r < self->rows->len && need < 0; r++)
    {
      const Row *row = row_get (self, r);
      if (row->kind == ROW_GROUP && group < 0 && row->key != NULL && row->key[0] == 'g')
        group = row->y;
      if (row->kind == ROW_GPU_UTIL && group >= 0 && r + 1 < self->rows->len
          && row_get (self, r + 1)->kind != ROW_GPU_ALL)
        need = row->y + row->h;
      if (row->kind == ROW_GPU_ALL)
        need = row->y + row->h + ROW_LANE_H;
    }
  if (need <= page || group < 0)
    return;
  gtk_adjustment_set_value (self->vadjustment, MIN (need - page, group));
}

static void
sl_timeline_view_size_allocate (GtkWidget *widget,
                                int        width,
                                int        height,
                                int        baseline)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);

  (void) width;
  (void) height;
  (void) baseline;
  _sl_timeline_configure_vadjustment (self);
  reveal_first_gpu (self);
  if (self->legend != NULL)
    gtk_popover_present (GTK_POPOVER (self->legend));
}

static void
sl_timeline_view_measure (GtkWidget      *widget,
                          GtkOrientation  orientation,
                          int             for_size,
                          int            *minimum,
                          int            *natural,
                          int            *minimum_baseline,
                          int            *natural_baseline)
{
  (void) widget;
  (void) for_size;
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? HEADER_W + 120 : RULER_H + 80;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 1000 : 600;
  *minimum_baseline = *natural_baseline = -1;
}

static void
sl_timeline_view_css_changed (GtkWidget         *widget,
                              GtkCssStyleChange *change)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);

  GTK_WIDGET_CLASS (sl_timeline_view_parent_class)->css_changed (widget, change);
  /* fonts or theme may have changed: measure labels again */
  g_clear_object (&self->layout);
  self->pal.fg.alpha = 0;
  gtk_widget_queue_draw (widget);
}

static void
sl_timeline_view_dispose (GObject *object)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (object);

  _sl_timeline_key_zoom_stop (self);
  _sl_timeline_legend_dispose (self);
  _sl_timeline_lanes_dispose (self);
  sl_timeline_view_set_trace (self, NULL);
  _sl_timeline_worker_stop (self);
  if (self->viewport != NULL)
    {
      g_clear_signal_handler (&self->viewport_changed_id, self->viewport);
      g_clear_signal_handler (&self->selection_changed_id, self->viewport);
      g_clear_object (&self->viewport);
    }
  if (self->vadjustment != NULL)
    {
      g_clear_signal_handler (&self->vadj_changed_id, self->vadjustment);
      g_clear_object (&self->vadjustment);
    }
  g_clear_object (&self->hadjustment);
  g_clear_object (&self->layout);
  G_OBJECT_CLASS (sl_timeline_view_parent_class)->dispose (object);
}

static void
sl_timeline_view_finalize (GObject *object)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (object);

  g_array_unref (self->rows);
  g_array_unref (self->lod);
  g_clear_pointer (&self->row_images, g_ptr_array_unref);
  g_free (self->cols);
  g_free (self->runs);
  g_free (self->under);
  g_clear_pointer (&self->search, sl_search_free);
  g_clear_pointer (&self->highlight, sl_search_free);
  g_clear_pointer (&self->ruler_marks, g_array_unref);
  g_clear_pointer (&self->ruler_texts, g_ptr_array_unref);
  g_clear_pointer (&self->ruler_labels, g_array_unref);
  g_hash_table_unref (self->collapsed);
  g_hash_table_unref (self->text_w);
  g_free (self->sync_names);
  g_free (self->lane_row);
  _sl_timeline_lanes_finalize (self);
  _sl_timeline_nvtxproj_finalize (self);
  G_OBJECT_CLASS (sl_timeline_view_parent_class)->finalize (object);
}

static void
sl_timeline_view_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT: g_value_set_object (value, self->hadjustment); break;
    case PROP_VADJUSTMENT: g_value_set_object (value, self->vadjustment); break;
    case PROP_HSCROLL_POLICY: g_value_set_enum (value, self->hscroll_policy); break;
    case PROP_VSCROLL_POLICY: g_value_set_enum (value, self->vscroll_policy); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sl_timeline_view_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT:
      g_clear_object (&self->hadjustment);
      if (g_value_get_object (value) != NULL)
        self->hadjustment = g_object_ref_sink (g_value_get_object (value));
      break;
    case PROP_VADJUSTMENT: _sl_timeline_set_vadjustment (self, g_value_get_object (value)); break;
    case PROP_HSCROLL_POLICY: self->hscroll_policy = g_value_get_enum (value); break;
    case PROP_VSCROLL_POLICY: self->vscroll_policy = g_value_get_enum (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sl_timeline_view_class_init (SlTimelineViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sl_timeline_view_dispose;
  object_class->finalize = sl_timeline_view_finalize;
  object_class->get_property = sl_timeline_view_get_property;
  object_class->set_property = sl_timeline_view_set_property;
  widget_class->snapshot = sl_timeline_view_snapshot;
  widget_class->measure = sl_timeline_view_measure;
  widget_class->size_allocate = sl_timeline_view_size_allocate;
  widget_class->css_changed = sl_timeline_view_css_changed;

  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  signals[EVENT_SELECTED] = g_signal_new ("event-selected", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                          G_TYPE_POINTER);
  signals[EVENT_ACTIVATED] = g_signal_new ("event-activated", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                           G_TYPE_POINTER);

  _sl_timeline_input_class_init (widget_class);
  _sl_timeline_lanes_class_init (widget_class);
  _sl_timeline_critpath_class_init (widget_class);
  _sl_timeline_metrics_class_init (widget_class);
  gtk_widget_class_set_css_name (widget_class, "sltimeline");
}

static void
sl_timeline_view_init (SlTimelineView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);

  self->rows = g_array_new (FALSE, FALSE, sizeof (Row));
  g_array_set_clear_func (self->rows, _sl_timeline_row_clear);
  self->loading_fraction = -1;
  self->lod = g_array_new (FALSE, FALSE, sizeof (SlLodItem));
  self->collapsed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->text_w = g_hash_table_new (NULL, NULL);
  self->selected = SL_EVENT_REF_NONE;
  self->range_event = SL_EVENT_REF_NONE;
  self->colors_epoch = 1;   /* a lane's runs_epoch of 0 is "none" */
  self->highlight_name = SL_NO_STR;
  self->ruler_base = -1;
  self->util_threshold = 0.8;
  self->viewport = sl_viewport_new ();
  self->viewport_changed_id = g_signal_connect (self->viewport, "notify::visible",
                                                G_CALLBACK (viewport_changed_cb), self);
  self->selection_changed_id = g_signal_connect (self->viewport, "notify::selection",
                                                 G_CALLBACK (viewport_changed_cb), self);
  _sl_timeline_set_vadjustment (self, NULL);

  gtk_widget_set_focusable (widget, TRUE);
  gtk_widget_set_focus_on_click (widget, TRUE);
  gtk_widget_set_has_tooltip (widget, TRUE);
  gtk_widget_set_overflow (widget, GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_hexpand (widget, TRUE);
  gtk_widget_set_vexpand (widget, TRUE);
  _sl_timeline_input_init (self);
  _sl_timeline_lanes_init (self);
}

/* ------------------------------------------------------------------------------------------- */
/* Public API                                                                                  */


static void
search_clear (SlTimelineView *self)
{
  g_clear_pointer (&self->search, sl_search_free);
}

static void
focus_clear (SlTimelineView *self)
{
  _sl_timeline_markset_clear (&self->focus);
  g_clear_pointer (&self->focus_lanes, g_free);
  self->focus_t0 = self->focus_t1 = 0;
}

void
sl_timeline_view_set_focus (SlTimelineView  *self,
                            SlTime           t0,
                            SlTime           t1,
                            const guint32   *lanes,
                            guint            n_lanes,
                            const SlEventRef *events,
                            guint            n_events)
{
  guint total;

  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  focus_clear (self);
  if (self->trace != NULL && (t1 > t0 || n_lanes > 0 || n_events > 0))
    {
      total = sl_trace_get_n_lanes (self->trace);
      self->focus_t0 = t0;
      self->focus_t1 = t1;
      self->focus_lanes = g_new0 (gboolean, MAX (total, 1));
      for (guint i = 0; i < n_lanes; i++)
        if (lanes[i] < total)
          self->focus_lanes[lanes[i]] = TRUE;
      self->focus.n_lanes = total;
      self->focus.lanes = g_new0 (GArray *, MAX (total, 1));
      for (guint i = 0; i < n_events; i++)
        if (events[i].lane >= 0 && (guint) events[i].lane < total
            && events[i].index < sl_trace_get_lane (self->trace, events[i].lane)->n_events)
          _sl_timeline_markset_add (&self->focus, events[i].lane, (guint32) events[i].index);
      /* marks are drawn in order of start */
      for (guint l = 0; l < total; l++)
        if (self->focus.lanes[l] != NULL)
          {
            GArray *m = self->focus.lanes[l];
            guint32 *idx = (guint32 *) m->data;
            /* indexes sort as starts do (lanes are sorted by start); drop repeats */
            g_array_sort (m, sl_cmp_uint32);
            guint out = 0;
            for (guint k = 0; k < m->len; k++)
              if (out == 0 || idx[out - 1] != idx[k])
                idx[out++] = idx[k];
            g_array_set_size (m, out);
          }
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
sl_timeline_view_set_loading_fraction (SlTimelineView *self,
                                       double          fraction)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));

  self->loading_fraction = CLAMP (fraction, 0.0, 1.0);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
sl_timeline_view_set_ruler_marks (SlTimelineView    *self,
                                  const SlTime      *ranges,
                                  const char *const *texts,
                                  guint              n_ranges)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  if (self->ruler_marks == NULL)
    self->ruler_marks = g_array_new (FALSE, FALSE, sizeof (SlTime));
  g_array_set_size (self->ruler_marks, 0);
  g_clear_pointer (&self->ruler_texts, g_ptr_array_unref);
  if (ranges != NULL)
    g_array_append_vals (self->ruler_marks, ranges, 2 * n_ranges);
  if (ranges != NULL && texts != NULL)
    {
      self->ruler_texts = g_ptr_array_new_full (n_ranges, g_free);
      for (guint i = 0; i < n_ranges; i++)
        g_ptr_array_add (self->ruler_texts, g_strdup (texts[i]));
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
sl_timeline_view_get_ruler_marks (SlTimelineView *self)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), 0);
  return self->ruler_marks != NULL ? self->ruler_marks->len / 2 : 0;
}

gboolean
sl_timeline_view_lane_in_focus (SlTimelineView *self,
                                guint           lane)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  return self->focus_lanes != NULL && self->trace != NULL
         && lane < sl_trace_get_n_lanes (self->trace) && self->focus_lanes[lane];
}

/* `keep`: a newer state of the same recording (sl_timeline_view_continue_trace). */
static void
set_trace (SlTimelineView *self,
           SlTrace        *trace,
           gboolean        keep)
{
  if (trace == self->trace)
    return;
  if (trace != NULL)
    sl_trace_ref (trace);
  self->loading_fraction = -1;
  g_clear_pointer (&self->highlight, sl_search_free);
  search_clear (self);
  focus_clear (self);
  if (self->ruler_marks != NULL)
    g_array_set_size (self->ruler_marks, 0);
  g_clear_pointer (&self->ruler_texts, g_ptr_array_unref);
  for (guint i = 0; i < self->n_gpus; i++)
    {
      g_array_unref (self->gpu_lanes[i]);
      g_free (self->util[i].kernels);
      g_free (self->util[i].any);
      g_clear_pointer (&self->util[i].image, cairo_surface_destroy);
      g_free (self->gpu_rows[i].runs);
    }
  if (self->lod_cache != NULL)
    for (guint i = 0; i < sl_trace_get_n_lanes (self->trace); i++)
      {
        if (self->lod_cache[i].items != NULL)
          g_array_unref (self->lod_cache[i].items);
        g_free (self->lod_cache[i].cols);
        g_free (self->lod_cache[i].runs);
      }
  g_clear_pointer (&self->lod_cache, g_free);
  _sl_timeline_flame_clear (self);
  _sl_timeline_critpath_reset (self);
  g_clear_pointer (&self->gpu_lanes, g_free);
  g_clear_pointer (&self->util, g_free);
  g_clear_pointer (&self->gpu_rows, g_free);
  self->n_gpus = 0;
  g_clear_pointer (&self->trace, sl_trace_unref);
  g_clear_pointer (&self->sync_names, g_free);
  self->n_sync_names = 0;
  g_hash_table_remove_all (self->text_w);
  if (!keep)
    g_hash_table_remove_all (self->collapsed);
  _sl_timeline_lanes_reset (self, keep);
  self->selected = SL_EVENT_REF_NONE;
  self->highlight_name = SL_NO_STR;
  self->trace = trace;
  if (self->flames_taken != NULL)
    {
      _sl_timeline_flame_give_stale (self, self->flames_taken_from, self->flames_taken);
      g_clear_pointer (&self->flames_taken, g_ptr_array_unref);
      self->flames_taken_from = NULL;
    }
  _sl_timeline_nvtxproj_reset (self);
  _sl_timeline_metrics_reset (self);   /* before the rows: they ask it for SMs Active */

  if (trace != NULL)
    {
      self->n_gpus = sl_trace_get_n_gpus (trace);
      self->n_sync_names = sl_trace_get_n_strs (trace);
      self->sync_names = g_new0 (guint8, MAX (self->n_sync_names, 1));
      self->lod_cache = g_new0 (LaneLod, MAX (sl_trace_get_n_lanes (trace), 1));
      self->gpu_lanes = g_new0 (GArray *, MAX (self->n_gpus, 1));
      self->util = g_new0 (UtilCache, MAX (self->n_gpus, 1));
      self->gpu_rows = g_new0 (GpuRow, MAX (self->n_gpus, 1));
      for (guint i = 0; i < self->n_gpus; i++)
        self->gpu_lanes[i] = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, i);
          if (lane->gpu >= 0 && (guint) lane->gpu < self->n_gpus && lane->kind != SL_LANE_SYNC)
            g_array_append_val (self->gpu_lanes[lane->gpu], i);
        }
      _sl_timeline_rows_rebuild (self);
      if (self->vadjustment != NULL && !keep)
        gtk_adjustment_set_value (self->vadjustment, 0);
      self->reveal_gpu = FALSE;
      if (!keep)
        sl_viewport_clear_selection (self->viewport);
      sl_viewport_set_bounds (self->viewport, sl_trace_get_start (trace), sl_trace_get_end (trace));
      /* the first view: where the work is, not what one long range stretched the axis to */
      SlTime w0, w1;
      if (!keep && sl_trace_get_work_range (trace, &w0, &w1))
        sl_viewport_set_visible (self->viewport, w0, w1, TRUE); /* Back: the whole trace */
    }
  else
    _sl_timeline_rows_rebuild (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
sl_timeline_view_set_trace (SlTimelineView *self,
                            SlTrace        *trace)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  set_trace (self, trace, FALSE);
}

/* Takes an expanded flame row's key ("F:" and a lane index) out of the collapsed set into
 * `data`, a GArray of those lane indices. */
static gboolean
take_flame_key (gpointer key,
                gpointer value,
                gpointer data)
{
  (void) value;
  if (!g_str_has_prefix (key, "F:"))
    return FALSE;
  guint lane = (guint) g_ascii_strtoull ((const char *) key + 2, NULL, 10);
  g_array_append_val ((GArray *) data, lane);
  return TRUE;
}

void
sl_timeline_view_continue_trace (SlTimelineView *self,
                                 SlTrace        *trace)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));

  if (self->trace == NULL || trace == NULL)
    {
      set_trace (self, trace, FALSE);
      return;
    }
  if (trace == self->trace)
    return;
  g_autoptr (SlTrace) old = sl_trace_ref (self->trace);
  SlEventRef selected = self->selected;
  double scroll = self->vadjustment != NULL ? gtk_adjustment_get_value (self->vadjustment) : 0;
  g_autoptr (GArray) pinned = g_array_copy (self->pinned);
  g_autoptr (GList) hidden = g_hash_table_get_keys (self->hidden);

  /* expanded flame rows are remembered by lane index, which a new lane can move */
  g_autoptr (GArray) flames = g_array_new (FALSE, FALSE, sizeof (guint));
  g_hash_table_foreach_remove (self->collapsed, take_flame_key, flames);
  SlMenuKept menu;
  _sl_timeline_menu_keep (self, &menu);
  /* the old flames go to the new trace's lanes before its rows are made (a row's height asks
   * for its flame's depth: counted from the old flame's samples on) */
  self->flames_taken = _sl_timeline_flame_take_built (self);
  self->flames_taken_from = old;
  set_trace (self, trace, TRUE);
  for (guint i = 0; i < flames->len; i++)
    {
      gint lane = sl_trace_find_same_lane (old, g_array_index (flames, guint, i), trace);
      if (lane >= 0)
        g_hash_table_add (self->collapsed, g_strdup_printf ("F:%d", lane));
    }
  /* lanes pinned or hidden: the same lanes of the new trace */
  gboolean moved = flames->len > 0;
  for (guint i = 0; i < pinned->len; i++)
    {
      gint lane = sl_trace_find_same_lane (old, (guint) g_array_index (pinned, gint, i), trace);
      if (lane >= 0)
        g_array_append_val (self->pinned, lane);
      moved |= lane >= 0;
    }
  for (GList *l = hidden; l != NULL; l = l->next)
    {
      gint lane = sl_trace_find_same_lane (old, (guint) (GPOINTER_TO_INT (l->data) - 1), trace);
      if (lane >= 0)
        g_hash_table_add (self->hidden, GINT_TO_POINTER (lane + 1));
      moved |= lane >= 0;
    }
  if (moved)
    _sl_timeline_rows_rebuild (self);
  if (self->vadjustment != NULL)
    gtk_adjustment_set_value (self->vadjustment, scroll);
  if (selected.lane >= 0 && sl_trace_find_same_event (old, selected, trace, &selected))
    sl_timeline_view_select_event (self, selected, FALSE);
  _sl_timeline_menu_continue (self, old, &menu);
}

SlTrace *
sl_timeline_view_get_trace (SlTimelineView *self)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), NULL);
  return self->trace;
}

SlViewport *
sl_timeline_view_get_viewport (SlTimelineView *self)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), NULL);
  return self->viewport;
}

static gboolean
ref_valid (SlTimelineView *self,
           SlEventRef      ref)
{
  return self->trace != NULL && ref.lane >= 0
         && (guint) ref.lane < sl_trace_get_n_lanes (self->trace)
         && ref.index < sl_trace_get_lane (self->trace, ref.lane)->n_events;
}

void
sl_timeline_view_select_event (SlTimelineView *self,
                               SlEventRef      ref,
                               gboolean        scroll_to)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));

  if (!ref_valid (self, ref))
    ref = SL_EVENT_REF_NONE;
  self->selected = ref;
  self->range_event = SL_EVENT_REF_NONE;  /* newer than any range: F fits it */
  if (ref.lane >= 0 && scroll_to)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, ref.lane), *other;
      const SlEvent *ev = &lane->events[ref.index];
      SlTime dur = MAX (ev->end - ev->start, 1), a, b, t0, t1;
      gsize oi;
      double width = lanes_width (self);

      sl_viewport_get_visible (self->viewport, &t0, &t1);
      /* wide enough and on screen: leave the view alone */
      if (ev->start < t0 || ev->end > t1 || (double) dur * width / (double) (t1 - t0) < 8)
        {
          a = ev->start - dur;
          b = ev->end + dur;
          if (b - a < 1000)
            {
              a = ev->start + dur / 2 - 500;
              b = a + 1000;
            }
          /* show the correlated launch or GPU op too when it is near */
          if (ev->link != SL_NO_LINK && lane->kind != SL_LANE_NVTX && lane->kind != SL_LANE_OSRT
              && lane->kind != SL_LANE_SAMPLES && sl_trace_resolve (self->trace, ev->link, &other, &oi))
            {
              const SlEvent *oe = &other->events[oi];
              SlTime ua = MIN (a, oe->start), ub = MAX (b, oe->end);
              if (ub - ua <= 40 * (b - a))
                {
                  SlTime pad = (ub - ua) / 10;
                  a = ua - pad;
                  b = ub + pad;
                }
            }
          sl_viewport_set_visible (self->viewport, a, b, TRUE);
        }
      _sl_timeline_reveal_lane (self, ref.lane);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

SlEventRef
sl_timeline_view_get_selected_event (SlTimelineView *self)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), SL_EVENT_REF_NONE);
  return self->selected;
}

void
sl_timeline_view_set_highlight_name (SlTimelineView *self,
                                     guint32         name)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));

  if (name == self->highlight_name)
    return;
  self->highlight_name = name;
  g_clear_pointer (&self->highlight, sl_search_free);
  /* one O(n) pass per change; frames then draw only the marks on screen */
  if (self->trace != NULL && name != SL_NO_STR)
    self->highlight = sl_trace_search_name (self->trace, name);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gsize
sl_timeline_view_set_search (SlTimelineView *self,
                             const char     *needle)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), 0);

  search_clear (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (self->trace == NULL || needle == NULL || *needle == '\0')
    return 0;
  self->search = sl_trace_search (self->trace, needle);
  return sl_search_get_n_matches (self->search);
}

const SlSearch *
sl_timeline_view_get_search (SlTimelineView *self)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), NULL);
  return self->search;
}

gboolean
sl_timeline_view_search_step (SlTimelineView *self,
                              gboolean        forward)
{
  SlEventRef match;
  SlTime t0;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  if (self->trace == NULL || self->search == NULL)
    return FALSE;
  /* nothing selected: from the left edge of the view */
  sl_viewport_get_visible (self->viewport, &t0, NULL);
  if (!sl_search_step (self->search, self->selected, t0, forward, &match))
    return FALSE;
  sl_timeline_view_select_event (self, match, TRUE);
  g_signal_emit (self, signals[EVENT_SELECTED], 0, &self->selected);
  return TRUE;
}

void
sl_timeline_view_set_color_mode (SlTimelineView *self,
                                 SlColorMode     mode)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  if (mode == self->color_mode)
    return;
  self->color_mode = mode;
  self->colors_epoch++;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
sl_timeline_view_set_util_overlay (SlTimelineView *self,
                                   gboolean        overlay)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  overlay = !!overlay;
  if (overlay == self->util_overlay)
    return;
  self->util_overlay = overlay;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
sl_timeline_view_set_util_threshold (SlTimelineView *self,
                                     double          threshold)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  threshold = CLAMP (threshold, 0.0, 1.0);
  if (threshold == self->util_threshold)
    return;
  self->util_threshold = threshold;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
sl_timeline_view_get_event_area (SlTimelineView  *self,
                                 SlEventRef       ref,
                                 graphene_rect_t *area)
{
  graphene_rect_t r;
  double width, height, x0, x1;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  g_return_val_if_fail (area != NULL, FALSE);
  if (!ref_valid (self, ref) || !_sl_timeline_event_rect (self, ref, &r))
    return FALSE;
  width = gtk_widget_get_width (GTK_WIDGET (self));
  height = gtk_widget_get_height (GTK_WIDGET (self));
  x0 = MAX (r.origin.x, HEADER_W);
  x1 = MIN (r.origin.x + r.size.width, width);
  if (x1 <= x0 || r.origin.y + r.size.height <= RULER_H || r.origin.y >= height)
    return FALSE;
  graphene_rect_init (area, x0, r.origin.y, x1 - x0, r.size.height);
  return TRUE;
}

const GArray *
sl_timeline_view_get_ruler_labels (SlTimelineView *self,
                                   SlTime         *base)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), NULL);
  if (base != NULL)
    *base = self->ruler_base;
  return self->ruler_labels;
}

gboolean
sl_timeline_view_get_selection_outline (SlTimelineView  *self,
                                        graphene_rect_t *area)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  g_return_val_if_fail (area != NULL, FALSE);
  return _sl_timeline_selection_outline (self, area);
}

char **
sl_timeline_view_dup_row_labels (SlTimelineView *self)
{
  GStrvBuilder *b = g_strv_builder_new ();
  char **labels;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), NULL);
  for (guint i = 0; i < self->rows->len; i++)
    {
      const Row *r = row_get (self, i);
      g_autofree char *indent = g_strnfill (2 * r->level, ' ');
      g_autofree char *line = g_strconcat (indent, r->label, NULL);
      g_strv_builder_add (b, line);
    }
  labels = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return labels;
}

gboolean
sl_timeline_view_group_collapsed (SlTimelineView *self,
                                  const char     *label)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  for (guint i = 0; i < self->rows->len; i++)
    {
      const Row *r = row_get (self, i);
      if (r->kind == ROW_GROUP && g_strcmp0 (r->label, label) == 0)
        return _sl_timeline_group_collapsed (self, r->key);
    }
  return FALSE;
}

gint
sl_timeline_view_lane_at (SlTimelineView *self,
                          double          y)
{
  gint ri;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), -1);
  ri = _sl_timeline_row_at (self, y);
  if (ri < 0 || row_get (self, ri)->kind != ROW_LANE)
    return -1;
  return row_get (self, ri)->lane;
}

gboolean
sl_timeline_view_get_arrow (SlTimelineView   *self,
                            graphene_point_t *from,
                            graphene_point_t *to)
{
  graphene_point_t a, b;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  if (!_sl_timeline_arrow_points (self, &a, &b))
    return FALSE;
  if (from != NULL)
    *from = a;
  if (to != NULL)
    *to = b;
  return TRUE;
}

double
sl_timeline_view_get_util_value (SlTimelineView *self,
                                 guint           gpu,
                                 double          x,
                                 SlTime         *t0,
                                 SlTime         *t1)
{
  UtilCache *u;
  guint col;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), -1);
  if (self->trace == NULL || gpu >= self->n_gpus || x < HEADER_W)
    return -1;
  u = _sl_timeline_util_current (self, gpu);
  col = (guint) (x - HEADER_W);
  if (col >= u->n)
    return -1;
  if (t0 != NULL)
    *t0 = u->t0 + (SlTime) ((double) (u->t1 - u->t0) * col / u->n);
  if (t1 != NULL)
    *t1 = u->t0 + (SlTime) ((double) (u->t1 - u->t0) * (col + 1) / u->n);
  return u->kernels[col];
}

gboolean
sl_timeline_view_get_event_color (SlTimelineView *self,
                                  SlEventRef      ref,
                                  GdkRGBA        *color)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  if (!ref_valid (self, ref))
    return FALSE;
  _sl_timeline_palette_update (self);
  {
    const SlLane *lane = sl_trace_get_lane (self->trace, ref.lane);
    *color = _sl_timeline_event_color (self, lane, &lane->events[ref.index]);
  }
  return TRUE;
}

void
sl_timeline_view_reveal_gpu (SlTimelineView *self)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  self->reveal_gpu = TRUE;
  reveal_first_gpu (self);
}
