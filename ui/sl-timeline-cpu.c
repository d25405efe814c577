/* sl-timeline-cpu.c: the CPU rows: each process's CPU utilization (how many cores its threads
 * keep busy, 0 … N, drawn like a GPU's utilization row) and the "CPUs" group, one row per core
 * saying which thread runs on it when (a colour per thread).
 *
 * Both are drawn as one image a row, a pixel column at a time: a utilization column is the mean
 * of busy cores over its time (two lookups in the process's running integral), a core's column
 * the thread running at its middle (one binary search).  A frame costs O(width log n) a row,
 * whatever the number of events. */
#include "sl-timeline-view-private.h"

#include "sl-cpu-util.h"

SlCpuUtil *
_sl_timeline_cpu_util (SlTimelineView *self)
{
  return self->trace != NULL ? sl_cpu_util_get (self->trace) : NULL;
}

/* The top of the utilization scale: the cores seen, or the most the process ever kept busy
 * where no core is known (states derived from samples). */
static guint
util_scale (SlCpuUtil *u,
            guint      i)
{
  return MAX (MAX (sl_cpu_util_get_n_cpus (u), sl_cpu_util_get_peak (u, i)), 1);
}

char *
_sl_timeline_cpu_util_title (SlTimelineView *self,
                             guint           process,
                             gint           *index)
{
  SlCpuUtil *u = _sl_timeline_cpu_util (self);

  *index = -1;
  for (guint i = 0; u != NULL && i < sl_cpu_util_get_n_processes (u); i++)
    if (sl_cpu_util_get_process (u, i) == process)
      {
        *index = (gint) i;
        return g_strdup_printf (sl_cpu_util_is_derived (u, i)
                                  ? "CPU utilization (derived, 0–%u)"
                                  : "CPU utilization (0–%u cores)",
                                util_scale (u, i));
      }
  return NULL;
}

static guint32
pack (const GdkRGBA *c)
{
  float px[4] = { 0, 0, 0, 0 };
  pixel_over (px, c, 1);
  return pixel_pack (px);
}

/* A thread's colour: hues spread by thread index, so that neighbours differ. */
static guint32
thread_pixel (SlTimelineView *self,
              guint32         thread)
{
  double hue = fmod (thread * 0.61803398875, 1.0);
  float r, g, b;

  gtk_hsv_to_rgb ((float) hue, 0.55f, self->dark ? 0.80f : 0.70f, &r, &g, &b);
  return pack (&(GdkRGBA) { r, g, b, 1 });
}

static cairo_surface_t *
row_image (guint    n,
           guint    h,
           guint32 *stride,
           guint32 **px)
{
  /* created cleared: transparent where nothing is drawn */
  cairo_surface_t *image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) n, (int) h);
  *stride = (guint32) cairo_image_surface_get_stride (image) / 4;
  *px = (guint32 *) cairo_image_surface_get_data (image);
  return image;
}

static gboolean
draw_util (SlTimelineView *self,
           SlCpuUtil      *u,
           guint           i,
           const Frame    *f,
           guint32        *px,
           guint32         stride,
           guint           n,
           guint           h)
{
  g_autofree double *v = g_new (double, n);
  double scale = util_scale (u, i), base = h - 2.0, gh = h - 6.0;
  GdkRGBA c = _sl_timeline_state_color (self, SL_STATE_RUNNING
                                                | (sl_cpu_util_is_derived (u, i)
                                                   ? SL_STATE_DERIVED : 0));
  guint32 bar = pack (&c);
  gboolean any = FALSE;
  sl_cpu_util_buckets (u, i, f->t0, f->t1, n, v);
  for (guint x = 0; x < n; x++)
    {
      if (v[x] <= 0)
        continue;
      any = TRUE;
      gint top = (gint) floor (base - MIN (v[x] / scale, 1.0) * gh + 0.5);
      top = MIN (top, (gint) base - 1);   /* any use shows as at least a pixel */
      for (gint y = MAX (top, 0); y < (gint) base; y++)
        px[(gsize) y * stride + x] = bar;
    }
  return any;
}

static gboolean
draw_core (SlTimelineView *self,
           SlCpuUtil      *u,
           guint           core,
           const Frame    *f,
           guint32        *px,
           guint32         stride,
           guint           n,
           guint           h)
{
  gsize n_slices = 0;
  const SlEvent *s = sl_cpu_util_get_slices (u, core, &n_slices);
  guint32 last_thread = SL_NO_LINK, color = 0;
  gboolean any = FALSE;

  /* nothing ran on it in the window: no pixel to look up */
  if (n_slices == 0 || s[0].start >= f->t1
      || (sl_cpu_util_slice_at (u, core, f->t0) < 0
          && sl_cpu_util_next_start (u, core, f->t0) >= f->t1))
    return FALSE;
  for (guint x = 0; x < n; x++)
    {
      SlTime t = f->t0 + (SlTime) ((double) (f->t1 - f->t0) * (x + 0.5) / n);
      gssize k = sl_cpu_util_slice_at (u, core, t);
      if (k < 0 || (gsize) k >= n_slices)
        continue;
      if (s[k].corr != last_thread)
        {
          last_thread = s[k].corr;
          color = thread_pixel (self, last_thread);
        }
      for (guint y = 2; y + 2 < h; y++)
        px[(gsize) y * stride + x] = color;
      any = TRUE;
    }
  return any;
}

void
_sl_timeline_draw_cpu_row (SlTimelineView *self,
                           GtkSnapshot    *snapshot,
                           const Frame    *f,
                           const Row      *r,
                           double          y)
{
  SlCpuUtil *u = _sl_timeline_cpu_util (self);
  guint n = (guint) ceil (f->width), h = (guint) ceil (r->h);
  guint32 stride, *px;

  if (u == NULL || n == 0 || h < 4 || r->gpu < 0)
    return;
  if (r->kind == ROW_CPU_UTIL && (guint) r->gpu >= sl_cpu_util_get_n_processes (u))
    return;
  if (r->kind == ROW_CPU_CORE && (guint) r->gpu >= sl_cpu_util_get_n_cpus (u))
    return;
  cairo_surface_t *image = row_image (n, h, &stride, &px);
  gboolean any = r->kind == ROW_CPU_UTIL ? draw_util (self, u, (guint) r->gpu, f, px, stride, n, h)
                                         : draw_core (self, u, (guint) r->gpu, f, px, stride, n, h);
  cairo_surface_mark_dirty (image);
  if (any)   /* an empty row costs no node */
    _sl_timeline_append_image (snapshot, image, HEADER_W, floor (y), h, CAIRO_EXTEND_PAD);
  cairo_surface_destroy (image);
}

char *
_sl_timeline_cpu_tooltip (SlTimelineView *self,
                          const Row      *r,
                          SlTime          t)
{
  SlCpuUtil *u = _sl_timeline_cpu_util (self);

  if (u == NULL || r->gpu < 0)
    return NULL;
  if (r->kind == ROW_CPU_UTIL && (guint) r->gpu < sl_cpu_util_get_n_processes (u))
    {
      SlTime t0, t1;
      sl_viewport_get_visible (self->viewport, &t0, &t1);
      /* the mean over the pixel under the pointer */
      SlTime px = MAX ((SlTime) ((double) (t1 - t0) / lanes_width (self)), 1);
      return g_strdup_printf ("%.2f cores busy%s", sl_cpu_util_busy_cores (u, (guint) r->gpu, t,
                                                                            t + px),
                              sl_cpu_util_is_derived (u, (guint) r->gpu)
                                ? " (derived from CPU samples)" : "");
    }
  if (r->kind == ROW_CPU_CORE && (guint) r->gpu < sl_cpu_util_get_n_cpus (u))
    {
      gsize n = 0;
      const SlEvent *s = sl_cpu_util_get_slices (u, (guint) r->gpu, &n);
      gssize k = sl_cpu_util_slice_at (u, (guint) r->gpu, t);
      if (k < 0)
        return g_strdup_printf ("CPU %u: no thread of the trace", sl_cpu_util_get_cpu (u, r->gpu));
      const SlThread *th = sl_trace_get_thread (self->trace, s[k].corr);
      const char *name = sl_trace_str (self->trace, th->name);
      return g_strdup_printf ("CPU %u: %s (%u) of pid %u", sl_cpu_util_get_cpu (u, r->gpu),
                              *name != '\0' ? name : "thread", th->tid, th->pid);
    }
  return NULL;
}
