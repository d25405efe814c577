/* sl-timeline-frame.c: the frame's worker thread, its prefetch, and the per-lane LOD cache. */
#include "sl-timeline-view-private.h"
#include "sl-utilization.h"

/* Gives back the pixel-wide arrays of a lane the frame does not show (~60 KB a lane: a trace of a
 * thousand thread lanes scrolled through would keep them all), leaving it stale. */
static void
lane_lod_release (LaneLod *l)
{
  if (l->cols == NULL && l->runs == NULL)
    return;
  g_clear_pointer (&l->cols, g_free);
  g_clear_pointer (&l->runs, g_free);
  l->n_cols = l->runs_cap = l->n_runs = 0;
  l->width = 0;
  l->runs_epoch = 0;
}

/*
 * The level of detail of a lane for this frame: the lane row, "All streams", labels and the next
 * frame at the same window share it.  Zoomed out, a dense lane's narrow events are sums per pixel
 * column read off its buckets (no item per fold: ~60 ns an item made and ~40 ns drawn was most of
 * a dense frame); the items are what is left: wide events and the stretches around them.
 */
const LaneLod *
_sl_timeline_lane_lod (SlTimelineView *self,
                       const SlLane   *lane,
                       SlTime          t0,
                       SlTime          t1,
                       guint           width)
{
  LaneLod *l = &self->lod_cache[lane->index];

  if (lane_lod_fresh (l, t0, t1, width))
    return l;
  if (l->items == NULL)
    l->items = g_array_new (FALSE, FALSE, sizeof (SlLodItem));
  if (l->n_cols < width)
    {
      g_free (l->cols);
      l->cols = g_new (SlLodColumn, width);
      l->n_cols = width;
    }
  memset (l->cols, 0, width * sizeof *l->cols);
  l->dense = sl_lane_lod_columns (lane, t0, t1, width, MIN_PX, l->items, l->cols);
  l->runs_epoch = 0;   /* its runs were of another window */
  l->t0 = t0;
  l->t1 = t1;
  l->width = width;
  return l;
}

/*
 * The second thread of every frame: waits for a job, runs it with the main thread, says when it
 * is done.  Kept with the view: starting a thread each frame took 50-90 µs, a wake-up ~10.
 */
typedef struct _FrameWorker
{
  GThread  *thread;
  GMutex    lock;
  GCond     cond;
  FrameJob *job;      /* posted and not finished, NULL when none */
  gboolean  started;  /* the worker has taken `job` */
  gboolean  quit;
} FrameWorker;

static gpointer
frame_job_run (gpointer data)
{
  FrameJob *job = data;
  Column *cols = NULL;   /* this thread's own */
  gint k;

  while ((k = g_atomic_int_add (&job->next, 1)) < (gint) job->n)
    {
      const FrameTask *t = &job->tasks[k];
      UtilCache *u = &job->self->util[t->gpu];

      if ((t->kind == TASK_LANE && t->row) || t->kind == TASK_GPU_ROW)
        if (cols == NULL)
          cols = g_new0 (Column, MAX (job->width, 1));
      switch (t->kind)
        {
        case TASK_UTIL_KERNELS:
        case TASK_UTIL_ANY:
          /* from SMs Active: both series in one task (the busy one is made of the other) */
          if (_sl_timeline_util_sm_series (job->self, t->gpu) >= 0)
            {
              if (t->kind == TASK_UTIL_KERNELS)
                _sl_timeline_metrics_util_fill (job->self, t->gpu, job->t0, job->t1, job->width,
                                                u->kernels, u->any);
              break;
            }
          sl_trace_gpu_utilization_buckets (job->self->trace, t->gpu,
                                            t->kind == TASK_UTIL_ANY ? SL_UTIL_ANY
                                                                     : SL_UTIL_KERNELS,
                                            job->t0, job->t1, job->width,
                                            t->kind == TASK_UTIL_ANY ? u->any : u->kernels);
          break;
        case TASK_LANE:
          _sl_timeline_lane_lod (job->self, t->lane, job->t0, job->t1, job->width);
          if (t->row)
            _sl_timeline_lane_runs (job->self, job->f, t->lane, cols, job->width);
          break;
        case TASK_GPU_ROW:
        case TASK_UTIL_IMAGE:
        default:
          /* the other thread is finishing the last lanes: a few µs */
          while (g_atomic_int_get (&job->done) < (gint) job->n_before_rows)
            g_thread_yield ();
          if (t->kind == TASK_GPU_ROW)
            _sl_timeline_gpu_row_runs (job->self, job->f, t->gpu, cols);
          else
            _sl_timeline_util_image_ensure (job->self, job->f, t->gpu, t->y, t->h);
          break;
        }
      g_atomic_int_inc (&job->done);
    }
  g_free (cols);
  return NULL;
}

static gpointer
worker_main (gpointer data)
{
  FrameWorker *w = data;

  g_mutex_lock (&w->lock);
  for (;;)
    {
      FrameJob *job;
      while (w->job == NULL && !w->quit)
        g_cond_wait (&w->cond, &w->lock);
      if (w->quit)
        break;
      job = w->job;
      w->started = TRUE;
      g_mutex_unlock (&w->lock);
      frame_job_run (job);
      g_mutex_lock (&w->lock);
      w->job = NULL;
      w->started = FALSE;
      g_cond_broadcast (&w->cond);
    }
  g_mutex_unlock (&w->lock);
  return NULL;
}

/* Hands `job` to the view's worker, started the first time. */
static void
worker_post (SlTimelineView *self,
             FrameJob       *job)
{
  FrameWorker *w = self->worker;

  if (w == NULL)
    {
      w = self->worker = g_new0 (FrameWorker, 1);
      g_mutex_init (&w->lock);
      g_cond_init (&w->cond);
      w->thread = g_thread_new ("sl-frame", worker_main, w);
    }
  g_mutex_lock (&w->lock);
  w->job = job;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  job->posted = TRUE;
}

void
_sl_timeline_worker_stop (SlTimelineView *self)
{
  FrameWorker *w = self->worker;

  if (w == NULL)
    return;
  g_mutex_lock (&w->lock);
  w->quit = TRUE;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  g_thread_join (w->thread);
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->cond);
  g_clear_pointer (&self->worker, g_free);
}

static gint
task_cmp (gconstpointer a,
          gconstpointer b)
{
  const FrameTask *x = a, *y = b;

  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  if (x->kind != TASK_LANE)
    return 0;
  return x->lane->n_events < y->lane->n_events ? 1 : x->lane->n_events > y->lane->n_events ? -1 : 0;
}

gboolean
_sl_timeline_gpu_row_fresh (SlTimelineView *self,
                            guint           gpu,
                            const Frame    *f,
                            guint           width)
{
  const GpuRow *g = &self->gpu_rows[gpu];

  return g->epoch == self->colors_epoch && g->t0 == f->t0 && g->t1 == f->t1 && g->width == width;
}

/* Queues the two utilization series of `gpu` for this frame's window and width, unless its cache
 * already holds them (or they are queued: _sl_timeline_util_prepare keyed the cache to them). */
static void
util_queue (SlTimelineView *self,
            guint           gpu,
            const Frame    *f,
            guint           width,
            FrameJob       *job)
{
  if (!_sl_timeline_util_prepare (&self->util[gpu], f->t0, f->t1, width))
    return;
  job->tasks[job->n++] = (FrameTask) { TASK_UTIL_KERNELS, NULL, gpu, FALSE, 0, 0 };
  job->tasks[job->n++] = (FrameTask) { TASK_UTIL_ANY, NULL, gpu, FALSE, 0, 0 };
}

/*
 * Makes the LOD list of every lane the visible rows draw, and the utilization of the visible
 * GPUs, before drawing.  Zoomed out on 10 M events the utilization series take ~0.3 ms and the
 * lists ~0.4 ms of a frame; they only read the trace, so a second thread starts on them at once
 * while this one draws what does not need them (headers and ruler, ~0.4 ms), then joins in:
 * _sl_timeline_frame_prefetch_finish.  The lanes' rows, the "All streams" rows and the
 * utilization images are made there too, from them.
 */
void
_sl_timeline_frame_prefetch_start (SlTimelineView *self,
                                   const Frame    *f,
                                   double          sy,
                                   int             height,
                                   FrameJob       *job)
{
  guint n_lanes = sl_trace_get_n_lanes (self->trace), width = (guint) ceil (f->width);
  /* per lane: its task, -1 when it needs none, -2 when no row showed it yet */
  g_autofree gint *task_of = g_new (gint, MAX (n_lanes, 1));

  for (guint i = 0; i < n_lanes; i++)
    task_of[i] = -2;
  *job = (FrameJob) { self, f, g_new (FrameTask, MAX (n_lanes, 1) + 4 * MAX (self->n_gpus, 1)),
                      0, 0, 0, 0, f->t0, f->t1, width, FALSE };
  for (guint i = 0; i < self->rows->len; i++)
    {
      const Row *r = row_get (self, i);
      double y = RULER_H + r->y - sy;
      GArray *lanes = r->kind == ROW_GPU_ALL ? self->gpu_lanes[r->gpu] : NULL;
      guint n = r->kind == ROW_LANE ? 1 : lanes != NULL ? lanes->len : 0;

      if (y + r->h < RULER_H)
        continue;
      if (y > height)
        break;
      if (r->kind == ROW_LANE && _sl_timeline_flame_wants (self, r->lane))
        continue;   /* drawn from its flame chart's boxes, no level of detail */
      if (r->kind == ROW_GPU_UTIL || (self->util_overlay && r->kind == ROW_GPU_ALL))
        util_queue (self, r->gpu, f, width, job);
      else if (self->util_overlay && r->kind == ROW_LANE)
        {
          const SlLane *lane = sl_trace_get_lane (self->trace, r->lane);
          if (lane->gpu >= 0)
            util_queue (self, lane->gpu, f, width, job);
        }
      if (r->kind == ROW_GPU_ALL && !_sl_timeline_gpu_row_fresh (self, r->gpu, f, width))
        job->tasks[job->n++] = (FrameTask) { TASK_GPU_ROW, NULL, r->gpu, FALSE, 0, 0 };
      /* its image, when its series changed (_sl_timeline_util_prepare marked it stale) */
      if (r->kind == ROW_GPU_UTIL && self->util[r->gpu].tex_h == 0)
        job->tasks[job->n++] = (FrameTask) { TASK_UTIL_IMAGE, NULL, r->gpu, FALSE, y, r->h };
      for (guint k = 0; k < n; k++)
        {
          guint li = lanes != NULL ? g_array_index (lanes, guint, k) : (guint) r->lane;
          gboolean row = r->kind == ROW_LANE;
          const LaneLod *l = &self->lod_cache[li];
          if (task_of[li] >= 0)
            {
              job->tasks[task_of[li]].row |= row;
              continue;
            }
          if (lane_lod_fresh (l, f->t0, f->t1, width)
              && (!row || l->runs_epoch == self->colors_epoch))
            {
              task_of[li] = -1;
              continue;
            }
          task_of[li] = (gint) job->n;
          job->tasks[job->n++] = (FrameTask) { TASK_LANE, sl_trace_get_lane (self->trace, li), 0,
                                               row, 0, 0 };
        }
    }
  for (guint i = 0; i < n_lanes; i++)
    if (task_of[i] == -2)
      lane_lod_release (&self->lod_cache[i]);
  qsort (job->tasks, job->n, sizeof *job->tasks, task_cmp);
  while (job->n_before_rows < job->n && job->tasks[job->n_before_rows].kind < TASK_GPU_ROW)
    job->n_before_rows++;
  if (job->n > 0)
    worker_post (self, job);
}

/* Takes the tasks the worker has not started, and waits for the rest. */
void
_sl_timeline_frame_prefetch_finish (SlTimelineView *self,
                                    FrameJob       *job)
{
  frame_job_run (job);
  if (job->posted)
    {
      FrameWorker *w = self->worker;
      g_mutex_lock (&w->lock);
      /* not woken yet: every task is done, take the job back */
      if (!w->started)
        w->job = NULL;
      while (w->job != NULL)
        g_cond_wait (&w->cond, &w->lock);
      g_mutex_unlock (&w->lock);
    }
  g_free (job->tasks);
}
