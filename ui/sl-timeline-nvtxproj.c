/* sl-timeline-nvtxproj.c: the "NVTX (projected)" rows under each GPU: NVTX ranges over the GPU
 * work their CUDA calls launched (model/sl-nvtx-proj.c), computed off the main thread when a
 * group is first opened (the groups start collapsed).
 *
 * The rows are not lanes: the trace's projection by GPU gives each range's projected span, and
 * sl_nvtx_proj_assign_tracks a track (a row) per GPU in which no two overlap, deeper levels
 * below.  A track is kept as arrays of starts and ends in time order (both sorted: no overlap),
 * so that a frame finds its first visible range by binary search and, zoomed out, skips the
 * ranges within a few pixels with another: O(pixels × log n) a row, never O(ranges).  Ranges are
 * drawn outlined over a light fill of their NVTX colour (they are not GPU busy time); clicking
 * one selects the NVTX range itself.
 */
#include "sl-timeline-view-private.h"
#include "sl-format.h"
#include "sl-nvtx-proj.h"

/* px: narrower ranges are taken together into light boxes, not outlined one by one (an outlined
 * box is six render nodes; zoomed out, thousands of them were most of a frame) */
#define BOX_MIN_PX 5.0

typedef struct
{
  guint32 *rows;     /* indices of the projection's rows by GPU, in time order */
  SlTime  *starts;
  SlTime  *ends;
  guint    n;
  guint    level;    /* nesting level of its ranges */
  guint    of_level; /* its position among the tracks of that level */
} Track;

typedef struct
{
  Track *tracks;
  guint  n_tracks;
} GpuTracks;

typedef struct
{
  SlTrace      *trace;   /* reffed: it owns the projection and so `rows` */
  const GArray *rows;    /* SlNvtxProjRow, by GPU (sl_nvtx_proj_get_rows) */
  GpuTracks    *gpus;
  guint         n_gpus;
} Store;

struct _NvtxProjState
{
  guint    serial;   /* moves with every trace: a computation for an older one is dropped */
  gboolean wanted;   /* the trace has NVTX ranges and CUDA calls: the groups are shown */
  gboolean started;  /* the computation, once a group was opened */
  Store   *store;    /* NULL until computed */
};

static void
store_free (Store *s)
{
  if (s == NULL)
    return;
  for (guint g = 0; g < s->n_gpus; g++)
    {
      for (guint k = 0; k < s->gpus[g].n_tracks; k++)
        {
          g_free (s->gpus[g].tracks[k].rows);
          g_free (s->gpus[g].tracks[k].starts);
          g_free (s->gpus[g].tracks[k].ends);
        }
      g_free (s->gpus[g].tracks);
    }
  g_free (s->gpus);
  sl_trace_unref (s->trace);
  g_free (s);
}

/* On the task's thread: the projection (shared with the reports: whoever asks first builds it),
 * its rows by GPU, their tracks. */
static Store *
store_build (SlTrace *trace)
{
  Store *s = g_new0 (Store, 1);
  const GArray *rows = sl_nvtx_proj_get_rows (sl_nvtx_proj_get (trace), SL_NVTX_PROJ_BY_GPU);
  const SlNvtxProjRow *r = (const SlNvtxProjRow *) rows->data;
  g_autofree guint32 *track = g_new (guint32, MAX (rows->len, 1));
  g_autofree guint32 *n_tracks = g_new (guint32, MAX (rows->len, 1));

  s->trace = sl_trace_ref (trace);
  s->rows = rows;
  s->n_gpus = sl_trace_get_n_gpus (trace);
  s->gpus = g_new0 (GpuTracks, MAX (s->n_gpus, 1));
  sl_nvtx_proj_assign_tracks (rows, track, n_tracks);
  /* a GPU's rows are consecutive: count a track's, then fill them in order */
  for (guint from = 0; from < rows->len;)
    {
      guint to = from + 1;
      while (to < rows->len && r[to].gpu == r[from].gpu)
        to++;
      if (r[from].gpu >= 0 && (guint) r[from].gpu < s->n_gpus)
        {
          GpuTracks *gt = &s->gpus[r[from].gpu];
          gt->n_tracks = n_tracks[from];
          gt->tracks = g_new0 (Track, MAX (gt->n_tracks, 1));
          for (guint i = from; i < to; i++)
            {
              Track *t = &gt->tracks[track[i]];
              t->n++;
              t->level = r[i].level;
            }
          for (guint k = 0; k < gt->n_tracks; k++)
            {
              Track *t = &gt->tracks[k];
              t->rows = g_new (guint32, MAX (t->n, 1));
              t->starts = g_new (SlTime, MAX (t->n, 1));
              t->ends = g_new (SlTime, MAX (t->n, 1));
              t->of_level = k > 0 && gt->tracks[k - 1].level == t->level
                              ? gt->tracks[k - 1].of_level + 1 : 0;
              t->n = 0;
            }
          for (guint i = from; i < to; i++)
            {
              Track *t = &gt->tracks[track[i]];
              t->rows[t->n] = i;
              t->starts[t->n] = r[i].start;
              t->ends[t->n] = r[i].end;
              t->n++;
            }
        }
      from = to;
    }
  return s;
}

static void
compute_thread (GTask        *task,
                gpointer      source,
                gpointer      data,
                GCancellable *cancellable)
{
  (void) source;
  (void) cancellable;
  g_task_return_pointer (task, store_build (data), (GDestroyNotify) store_free);
}

static void
compute_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      data)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (source);
  Store *s = g_task_propagate_pointer (G_TASK (result), NULL);

  if (self->nvtxproj == NULL || self->nvtxproj->serial != GPOINTER_TO_UINT (data)
      || s == NULL || s->trace != self->trace)
    {
      store_free (s);
      return;
    }
  self->nvtxproj->store = s;
  _sl_timeline_rows_rebuild (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
trace_has (SlTrace    *trace,
           SlLaneKind  kind)
{
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    if (sl_trace_get_lane (trace, i)->kind == kind && sl_trace_get_lane (trace, i)->n_events > 0)
      return TRUE;
  return FALSE;
}

void
_sl_timeline_nvtxproj_reset (SlTimelineView *self)
{
  if (self->nvtxproj == NULL)
    self->nvtxproj = g_new0 (struct _NvtxProjState, 1);
  self->nvtxproj->serial++;
  self->nvtxproj->started = FALSE;
  g_clear_pointer (&self->nvtxproj->store, store_free);
  self->nvtxproj->wanted = self->trace != NULL && trace_has (self->trace, SL_LANE_NVTX)
                           && trace_has (self->trace, SL_LANE_CUDA_API);
}

/* Nothing is computed before a group is opened: opening a trace costs nothing more, and what the
 * statistics already built (the trace's projection) is shared */
static void
compute_start (SlTimelineView *self)
{
  GTask *task = g_task_new (self, NULL, compute_done_cb, GUINT_TO_POINTER (self->nvtxproj->serial));

  self->nvtxproj->started = TRUE;
  g_task_set_task_data (task, sl_trace_ref (self->trace), (GDestroyNotify) sl_trace_unref);
  g_task_run_in_thread (task, compute_thread);
  g_object_unref (task);
}

void
_sl_timeline_nvtxproj_finalize (SlTimelineView *self)
{
  if (self->nvtxproj != NULL)
    store_free (self->nvtxproj->store);
  g_clear_pointer (&self->nvtxproj, g_free);
}

gint
_sl_timeline_nvtxproj_tracks (SlTimelineView *self,
                              guint           gpu,
                              gboolean        open)
{
  const Store *s = self->nvtxproj != NULL ? self->nvtxproj->store : NULL;

  if (self->nvtxproj == NULL || !self->nvtxproj->wanted || gpu >= self->n_gpus
      || self->gpu_lanes[gpu]->len == 0)
    return -1;
  if (s == NULL && open && !self->nvtxproj->started)
    compute_start (self);
  if (s == NULL)
    return 0;
  return gpu < s->n_gpus && s->gpus[gpu].n_tracks > 0 ? (gint) s->gpus[gpu].n_tracks : -1;
}

char *
_sl_timeline_nvtxproj_track_title (SlTimelineView *self,
                                   guint           gpu,
                                   gint            track)
{
  const Store *s = self->nvtxproj != NULL ? self->nvtxproj->store : NULL;

  if (s == NULL || track < 0 || gpu >= s->n_gpus || (guint) track >= s->gpus[gpu].n_tracks)
    return g_strdup ("Projecting…");
  /* the tracks of all levels are rows of one "NVTX" under its header (as the thread's own NVTX
   * rows are: _sl_timeline_row_continues), not "Level 0 … Level 4" */
  return g_strdup ("NVTX");
}

static const Track *
row_track (SlTimelineView *self,
           const Row      *r)
{
  const Store *s = self->nvtxproj != NULL ? self->nvtxproj->store : NULL;

  if (s == NULL || r->kind != ROW_NVTX_PROJ || r->gpu < 0 || (guint) r->gpu >= s->n_gpus
      || r->track < 0 || (guint) r->track >= s->gpus[r->gpu].n_tracks)
    return NULL;
  return &s->gpus[r->gpu].tracks[r->track];
}

/* The first index i with v[i] > t (v sorted) */
static guint
first_after (const SlTime *v,
             guint         n,
             SlTime        t)
{
  guint lo = 0, hi = n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (v[mid] > t)
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo;
}

static const SlNvtxProjRow *
proj_row (SlTimelineView *self,
          const Track    *t,
          guint           i)
{
  return &g_array_index (self->nvtxproj->store->rows, SlNvtxProjRow, t->rows[i]);
}

static const SlEvent *
range_event (SlTimelineView *self,
             SlEventRef      ref,
             const SlLane  **lane)
{
  *lane = sl_trace_get_lane (self->trace, ref.lane);
  return &(*lane)->events[ref.index];
}

void
_sl_timeline_nvtxproj_draw (SlTimelineView *self,
                            GtkSnapshot    *snapshot,
                            const Frame    *f,
                            const Row      *r,
                            double          y)
{
  const Track *t = row_track (self, r);
  Batch batch = { snapshot, 0, 0, 0, 0, { 0, 0, 0, 0 }, FALSE };
  double px = 1.0 / f->scale;   /* ns a pixel */

  gtk_snapshot_append_color (snapshot, &self->pal.grid,
                             &GRAPHENE_RECT_INIT (HEADER_W, y + r->h - 1, f->width, 1));
  if (t == NULL)
    return;
  for (guint i = first_after (t->ends, t->n, f->t0); i < t->n && t->starts[i] < f->t1;)
    {
      const SlNvtxProjRow *pr = proj_row (self, t, i);
      const SlLane *lane;
      const SlEvent *ev = range_event (self, pr->range, &lane);
      GdkRGBA c = _sl_timeline_event_color (self, lane, ev);
      double x0 = MAX (frame_x (f, t->starts[i]), HEADER_W - 2);
      double x1 = MIN (frame_x (f, t->ends[i]), f->right + 2);

      if (x1 - x0 < BOX_MIN_PX)
        {
          /* the ranges starting within these few pixels: one light box, found by search */
          guint j = first_after (t->starts, t->n, t->starts[i] + (SlTime) (BOX_MIN_PX * px));
          j = MAX (j, i + 1);
          /* a wide range starting there is drawn as itself, next */
          if (j > i + 1 && (t->ends[j - 1] - t->starts[j - 1]) * f->scale >= BOX_MIN_PX)
            j--;
          x1 = MIN (MAX (frame_x (f, t->ends[j - 1]), x0 + 1), f->right + 2);
          c.alpha = 0.45f;
          batch_add (&batch, x0, x1, y + 2, r->h - 4, &c);
          i = j;
          continue;
        }
      batch_flush (&batch);
      GdkRGBA fill = c;
      fill.alpha = 0.18f;
      graphene_rect_t box = GRAPHENE_RECT_INIT (x0 + 1, y + 3, MAX (x1 - x0 - 2, 1), r->h - 6);
      gtk_snapshot_append_color (snapshot, &fill, &box);
      _sl_timeline_draw_outline (snapshot, &box, &c, 1);
      if (x1 - x0 >= TEXT_MIN_W)
        {
          guint32 id;
          const char *text = _sl_timeline_event_label (self, lane, ev, &id);
          _sl_timeline_draw_text (self, snapshot, id, text, MAX (x0, HEADER_W) + 4,
                                  y + (r->h - self->text_h) / 2, x1 - MAX (x0, HEADER_W) - 8,
                                  &self->pal.fg);
        }
      i++;
    }
  batch_flush (&batch);
}

/* The range (or, zoomed out, the ranges) of track row `r` within 2 px of widget x: the first
 * one's index, and how many */
static gboolean
track_hit (SlTimelineView *self,
           const Track    *t,
           double          x,
           guint          *first,
           guint          *count)
{
  SlTime v0, v1, at = x_to_time (self, x);
  double px;

  sl_viewport_get_visible (self->viewport, &v0, &v1);
  px = (double) (v1 - v0) / lanes_width (self);
  SlTime tol = (SlTime) (2 * px) + 1;
  guint i = first_after (t->ends, t->n, at - tol);
  guint j = first_after (t->starts, t->n, at + tol);

  if (i >= j)
    return FALSE;
  /* a range under the pointer wide enough to be drawn on its own is that range */
  for (guint k = i; k < j && k < i + 3; k++)
    if (t->starts[k] <= at && at < t->ends[k] && (t->ends[k] - t->starts[k]) / px >= BOX_MIN_PX)
      {
        i = k;
        j = k + 1;
        break;
      }
  *first = i;
  *count = j - i;
  return TRUE;
}

gboolean
_sl_timeline_nvtxproj_hit (SlTimelineView *self,
                           const Row      *r,
                           double          x,
                           SlEventRef     *ref,
                           SlLodItem      *item)
{
  const Track *t = row_track (self, r);
  guint first, count;

  if (t == NULL || !track_hit (self, t, x, &first, &count))
    return FALSE;
  *ref = proj_row (self, t, first)->range;
  item->start = t->starts[first];
  item->end = t->ends[first + count - 1];
  item->first = ref->index;
  item->count = count;
  item->busy = 0;
  for (guint k = first; k < first + count; k++)
    item->busy += t->ends[k] - t->starts[k];
  return TRUE;
}

char *
_sl_timeline_nvtxproj_tooltip (SlTimelineView *self,
                               const Row      *r,
                               double          x)
{
  const Track *t = row_track (self, r);
  SlTime origin;
  guint first, count;

  if (t == NULL || !track_hit (self, t, x, &first, &count))
    return NULL;
  origin = sl_trace_get_origin (self->trace);
  if (count > 1)
    {
      g_autofree char *n = sl_format_int (count);
      g_autofree char *span = sl_format_duration (t->ends[first + count - 1] - t->starts[first]);
      g_autofree char *off = sl_format_offset (t->starts[first] - origin);
      return g_strdup_printf ("%s projected NVTX ranges\nover %s from %s\n(zoom in to see them)",
                              n, span, off);
    }
  const SlNvtxProjRow *pr = proj_row (self, t, first);
  const SlLane *lane;
  const SlEvent *ev = range_event (self, pr->range, &lane);
  guint32 id;
  const char *name = _sl_timeline_event_label (self, lane, ev, &id);
  g_autofree char *start = sl_format_offset (pr->start - origin);
  g_autofree char *end = sl_format_offset (pr->end - origin);
  g_autofree char *dur = sl_format_duration (pr->end - pr->start);
  g_autofree char *orig = sl_format_duration (ev->end - ev->start);
  g_autofree char *ops = sl_format_int (pr->n_ops);
  return g_strdup_printf ("%s (NVTX, projected on the GPU)\nProjected start %s\nProjected end %s\n"
                          "Projected duration %s (range %s)\n%s GPU operation%s", name, start,
                          end, dur, orig, ops, pr->n_ops == 1 ? "" : "s");
}

/* Test hooks */

gboolean
sl_timeline_view_nvtxproj_ready (SlTimelineView *self)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  return self->nvtxproj != NULL && self->nvtxproj->store != NULL;
}

gboolean
sl_timeline_view_get_nvtxproj_area (SlTimelineView  *self,
                                    guint            gpu,
                                    SlEventRef       range,
                                    graphene_rect_t *area)
{
  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  for (guint i = 0; i < self->rows->len; i++)
    {
      const Row *r = row_get (self, i);
      const Track *t = r->gpu == (gint) gpu ? row_track (self, r) : NULL;
      if (t == NULL)
        continue;
      for (guint k = 0; k < t->n; k++)
        {
          const SlNvtxProjRow *pr = proj_row (self, t, k);
          if (pr->range.lane != range.lane || pr->range.index != range.index)
            continue;
          double x0 = time_to_x (self, pr->start), x1 = time_to_x (self, pr->end);
          *area = GRAPHENE_RECT_INIT (x0, RULER_H + r->y - scroll_y (self), x1 - x0, r->h);
          return TRUE;
        }
    }
  return FALSE;
}
