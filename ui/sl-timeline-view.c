/* sl-timeline-view.c: the swimlane timeline widget: header tree, ruler, LOD boxes, overlays, input. */
#include "sl-timeline-view.h"

#include <math.h>
#include <string.h>

#include "sl-format.h"
#include "sl-lane.h"
#include "sl-utilization.h"

#define HEADER_W     220.0   /* px: the lane header column */
#define RULER_H      30.0    /* px: the time ruler on top */
#define INDENT       14.0    /* px per tree level in the headers */
#define ROW_GROUP_H  22.0
#define ROW_LANE_H   20.0
#define ROW_NVTX_H   18.0
#define ROW_SAMPLE_H 14.0
#define ROW_UTIL_H   40.0
#define MIN_PX       2.0     /* events narrower than this fold into LOD items */
#define ZOOM_STEP    1.5     /* W/S and one Ctrl+wheel notch */
#define PAN_STEP     0.2     /* A/D: a fifth of the visible span */
#define MAX_MATCHES  (1u << 20) /* search keeps at most ~1 M matches for next/previous */
#define TEXT_MIN_W   24.0    /* px: narrower boxes never get a label */

typedef enum
{
  ROW_GROUP,
  ROW_LANE,
  ROW_GPU_ALL,   /* every stream of a GPU merged */
  ROW_GPU_UTIL,  /* utilization graph of a GPU */
} RowKind;

typedef struct
{
  RowKind kind;
  guint   level;     /* indentation in the header tree */
  gint    lane;      /* ROW_LANE */
  gint    gpu;       /* GPU rows */
  char   *key;       /* ROW_GROUP: what the collapsed set remembers */
  char   *label;
  double  y, h;      /* content coordinates: 0 is the top of the first row */
} Row;

/* Utilization per pixel column of one GPU, recomputed when the window or width changes. */
typedef struct
{
  SlTime  t0, t1;
  guint   n;
  double *kernels;
  double *any;
  /* the row drawn from them: one image instead of ~3 k column rectangles; reused while the
   * window, size, threshold and colours stay */
  cairo_surface_t *image;
  guint            tex_h;   /* 0: the image is stale */
  double           tex_y;   /* the row's y less floor (y): bars end on whole pixels */
  double           tex_threshold;
  guint32          tex_colors[3];
} UtilCache;

/* Events of interest in each lane (indices, in order of start): highlight or search. */
typedef struct
{
  GArray **lanes;    /* n_lanes entries, NULL where a lane has none */
  guint    n_lanes;
} MarkSet;

/* Colours for one theme; dark is picked from the foreground colour's luminance. */
typedef struct
{
  GdkRGBA bg, bg_alt, header_bg, group_bg, fg, dim_fg, grid, ruler_bg;
  GdkRGBA kernel, memcpy_htod, memcpy_dtoh, memcpy_dtod, memcpy_other, memset, api, api_sync;
  GdkRGBA nvtx, osrt, sample, gpu_sync, util_any, util_kernels, idle, select, search, range;
  GdkRGBA focus;   /* a finding in focus: an accent, used translucent */
} Palette;

/*
 * Zoomed out, a lane is thousands of LOD items of 1–2 px each; one render node apiece is what
 * costs the frame (20 lanes × ~3 k nodes at 20 s).  So the items of a row are first rasterized
 * into one Column per pixel: the colour of the item covering most of it and how busy it is.
 * Runs of equal columns then become one rectangle each: a row costs at most its width in nodes,
 * typically a few hundred.  Opacity of folds has FOLD_LEVELS steps so that neighbours merge.
 */
#define FOLD_LEVELS 4
#define KEY_FOLD    1u   /* low bit of Column.key: a fold, drawn by busy fraction */

typedef struct
{
  float   w;      /* px of the column covered by the item it shows, 0 when empty */
  float   busy;   /* px of the column that are busy, over all items */
  guint32 key;    /* RGB << 8 of that item, | KEY_FOLD for folds */
} Column;

typedef struct
{
  guint   from, to;   /* columns */
  guint32 key;
  float   busy;       /* mean over the run */
  guint32 argb;       /* its pixel, premultiplied (run_pixel), made with the run */
} Run;

/* The "All streams" row of a GPU as runs, for one window, width and set of colours. */
typedef struct
{
  Run    *runs;
  guint   n_runs, cap;
  SlTime  t0, t1;
  guint   width;
  guint   epoch;   /* colors_epoch; 0: none */
} GpuRow;

/* The level of detail of one lane for one frame (see lane_lod). */
typedef struct
{
  GArray      *items;   /* SlLodItem: wide events, and folds around them */
  SlLodColumn *cols;    /* narrow events per pixel column, when `dense` */
  guint        n_cols;  /* allocated */
  gboolean     dense;
  SlTime       t0, t1;  /* the window and width it was made for */
  guint        width;
  /* the lane's own row made of them, as runs of columns (see lane_runs), when the frame shows
   * the lane as a row; valid while runs_epoch is the view's colors_epoch */
  Run         *runs;
  guint        n_runs, runs_cap;
  guint        runs_epoch;
} LaneLod;

struct _SlTimelineView
{
  GtkWidget      parent_instance;

  SlTrace       *trace;
  SlViewport    *viewport;
  gulong         viewport_changed_id;
  gulong         selection_changed_id;

  GArray        *rows;           /* Row: a few hundred at most */
  gint          *lane_row;       /* lane → row, -1 when hidden */
  double         content_h;
  GHashTable    *collapsed;      /* group keys */
  GArray       **gpu_lanes;      /* per GPU: lane indices of kernels, memcpy, memset */
  UtilCache     *util;           /* per GPU */
  GpuRow        *gpu_rows;       /* per GPU */
  guint          n_gpus;

  GtkAdjustment *hadjustment;    /* GtkScrollable wants one; unused: time is the viewport's */
  GtkAdjustment *vadjustment;
  guint          hscroll_policy : 1;
  guint          vscroll_policy : 1;
  gulong         vadj_changed_id;

  SlEventRef     selected;
  guint32        highlight_name;
  MarkSet        highlight;
  MarkSet        search;
  /* a finding in focus: its range, lanes and events; and the ranges of all findings */
  SlTime         focus_t0, focus_t1;
  gboolean      *focus_lanes;    /* per lane, NULL when none */
  MarkSet        focus;
  GArray        *ruler_marks;    /* SlTime pairs */
  GArray        *matches;        /* SlEventRef sorted by start, capped at MAX_MATCHES */
  gsize          n_search;
  SlColorMode    color_mode;
  gboolean       util_overlay;
  double         util_threshold;

  /* input */
  double         pointer_x, pointer_y;
  gboolean       pointer_inside;
  int            drag_mode;
  SlTime         drag_t0, drag_t1, drag_anchor;
  double         drag_vvalue;

  /* drawing */
  Palette        pal;
  gboolean       dark;
  guint          colors_epoch;   /* moves with the palette and colour mode: older rows are stale */
  PangoLayout   *layout;         /* the one layout every label reuses */
  int            text_h;
  GHashTable    *text_w;         /* string id → label width in px, measured once */
  guint8        *sync_names;     /* per string id: 0 not looked at yet, 1 a sync API, 2 not;
                                  * read and written by the frame's two threads (see is_sync_api) */
  guint          n_sync_names;
  GArray        *lod;            /* scratch SlLodItem list for hit tests */
  LaneLod       *lod_cache;      /* per lane: the last frame's level of detail */
  Column        *cols;           /* scratch: one per pixel column of the lanes area */
  Run           *runs;           /* scratch: n_cols + 1 */
  guint          n_cols;
  GPtrArray     *row_images;     /* cairo image surfaces for dense rows, reused (see row_image) */
  struct _FrameWorker *worker;   /* the frame's second thread, once a frame needed one */
  guint32       *under;          /* this frame's rows under the events (see frame_under) */
  guint          under_n;        /* their width */
  guint          under_ok;       /* which of the four are made */
};

enum
{
  DRAG_NONE,
  DRAG_PAN,
  DRAG_RANGE,
  DRAG_HEADER,
};

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

/* ------------------------------------------------------------------------------------------- */
/* Helpers: geometry, colours                                                                  */

static double
lanes_width (SlTimelineView *self)
{
  return MAX (gtk_widget_get_width (GTK_WIDGET (self)) - HEADER_W, 1.0);
}

static double
scroll_y (SlTimelineView *self)
{
  return self->vadjustment != NULL ? gtk_adjustment_get_value (self->vadjustment) : 0;
}

static double
time_to_x (SlTimelineView *self,
           SlTime          t)
{
  return HEADER_W + sl_viewport_time_to_x (self->viewport, t, lanes_width (self));
}

static SlTime
x_to_time (SlTimelineView *self,
           double          x)
{
  return sl_viewport_x_to_time (self->viewport, x - HEADER_W, lanes_width (self));
}

static const Row *
row_get (SlTimelineView *self,
         gint            i)
{
  return &g_array_index (self->rows, Row, i);
}

static gint
row_at (SlTimelineView *self,
        double          y)
{
  double cy = y - RULER_H + scroll_y (self);
  guint lo = 0, hi = self->rows->len;

  if (y < RULER_H || self->rows->len == 0)
    return -1;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      const Row *r = row_get (self, mid);
      if (cy < r->y)
        hi = mid;
      else if (cy >= r->y + r->h)
        lo = mid + 1;
      else
        return mid;
    }
  return -1;
}

static void
rgba_set (GdkRGBA *c,
          guint32  rgb,
          float    alpha)
{
  c->red = ((rgb >> 16) & 0xFF) / 255.f;
  c->green = ((rgb >> 8) & 0xFF) / 255.f;
  c->blue = (rgb & 0xFF) / 255.f;
  c->alpha = alpha;
}

static void
palette_update (SlTimelineView *self)
{
  GdkRGBA fg;
  Palette *p = &self->pal;
  gboolean dark;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (self)), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  /* a light foreground means a dark theme, whatever the theme is called */
  dark = 0.2126 * fg.red + 0.7152 * fg.green + 0.0722 * fg.blue > 0.5;
  if (dark == self->dark && p->fg.alpha > 0)
    return;
  self->dark = dark;
  self->colors_epoch++;
  if (dark)
    {
      rgba_set (&p->bg, 0x1e1e22, 1);
      rgba_set (&p->bg_alt, 0x25252a, 1);
      rgba_set (&p->header_bg, 0x2b2b31, 1);
      rgba_set (&p->group_bg, 0x34343c, 1);
      rgba_set (&p->fg, 0xe8e8ec, 1);
      rgba_set (&p->dim_fg, 0xa0a0aa, 1);
      rgba_set (&p->grid, 0xffffff, 0.08f);
      rgba_set (&p->ruler_bg, 0x2b2b31, 1);
      rgba_set (&p->kernel, 0x4a90e2, 1);
      rgba_set (&p->memcpy_htod, 0x3fb950, 1);
      rgba_set (&p->memcpy_dtoh, 0xc06be0, 1);
      rgba_set (&p->memcpy_dtod, 0xe3a23c, 1);
      rgba_set (&p->memcpy_other, 0x9a8f7a, 1);
      rgba_set (&p->memset, 0x36c2c2, 1);
      rgba_set (&p->api, 0x8e86d9, 1);
      rgba_set (&p->api_sync, 0xf0603c, 1);
      rgba_set (&p->nvtx, 0xc9ad4a, 1);
      rgba_set (&p->osrt, 0xb08a68, 1);
      rgba_set (&p->sample, 0xcfcfd6, 1);
      rgba_set (&p->gpu_sync, 0xe0604a, 0.8f);
      rgba_set (&p->util_any, 0x9aa0b0, 0.45f);
      rgba_set (&p->util_kernels, 0x3fb950, 1);
      rgba_set (&p->idle, 0xff3030, 0.22f);
      rgba_set (&p->select, 0xffffff, 1);
      rgba_set (&p->search, 0xffd400, 1);
      rgba_set (&p->range, 0x6fa8ff, 0.18f);
      rgba_set (&p->focus, 0x78aeed, 1);
    }
  else
    {
      rgba_set (&p->bg, 0xfbfbfc, 1);
      rgba_set (&p->bg_alt, 0xf1f2f4, 1);
      rgba_set (&p->header_bg, 0xebecef, 1);
      rgba_set (&p->group_bg, 0xdfe1e6, 1);
      rgba_set (&p->fg, 0x1d1d22, 1);
      rgba_set (&p->dim_fg, 0x5e5e68, 1);
      rgba_set (&p->grid, 0x000000, 0.08f);
      rgba_set (&p->ruler_bg, 0xebecef, 1);
      rgba_set (&p->kernel, 0x2f6fcf, 1);
      rgba_set (&p->memcpy_htod, 0x2e9e46, 1);
      rgba_set (&p->memcpy_dtoh, 0xa347c4, 1);
      rgba_set (&p->memcpy_dtod, 0xd98a16, 1);
      rgba_set (&p->memcpy_other, 0x857a62, 1);
      rgba_set (&p->memset, 0x1a9e9e, 1);
      rgba_set (&p->api, 0x7468c8, 1);
      rgba_set (&p->api_sync, 0xe0401c, 1);
      rgba_set (&p->nvtx, 0xb8982a, 1);
      rgba_set (&p->osrt, 0x9a7250, 1);
      rgba_set (&p->sample, 0x505058, 1);
      rgba_set (&p->gpu_sync, 0xd84a30, 0.8f);
      rgba_set (&p->util_any, 0x707888, 0.35f);
      rgba_set (&p->util_kernels, 0x2e9e46, 1);
      rgba_set (&p->idle, 0xff0000, 0.16f);
      rgba_set (&p->select, 0x000000, 1);
      rgba_set (&p->search, 0xf0a000, 1);
      rgba_set (&p->range, 0x2f6fcf, 0.14f);
      rgba_set (&p->focus, 0x1c71d8, 1);
    }
  if (self->text_w != NULL)
    g_hash_table_remove_all (self->text_w);
}

/* TRUE for the CUDA API calls that block the CPU on the GPU: drawn in the warning colour.  Both
 * threads of a frame ask (colours of rows are made on either); an answer is one byte, the same
 * whoever writes it first, so relaxed atomic loads and stores are all it needs. */
static gboolean
is_sync_api (SlTimelineView *self,
             guint32         name)
{
  guint8 v;

  if (name >= self->n_sync_names)
    return FALSE;
  v = __atomic_load_n (&self->sync_names[name], __ATOMIC_RELAXED);
  if (v == 0)
    {
      const char *s = sl_trace_str (self->trace, name);
      gboolean sync = strstr (s, "Synchronize") != NULL || strstr (s, "EventSynchronize") != NULL
                      || strstr (s, "StreamWaitEvent") != NULL;
      v = sync ? 1 : 2;
      __atomic_store_n (&self->sync_names[name], v, __ATOMIC_RELAXED);
    }
  return v == 1;
}

static GdkRGBA
lane_base_color (SlTimelineView *self,
                 SlLaneKind      kind)
{
  switch (kind)
    {
    case SL_LANE_CUDA_API: return self->pal.api;
    case SL_LANE_NVTX: return self->pal.nvtx;
    case SL_LANE_OSRT: return self->pal.osrt;
    case SL_LANE_SAMPLES: return self->pal.sample;
    case SL_LANE_KERNELS: return self->pal.kernel;
    case SL_LANE_MEMCPY: return self->pal.memcpy_htod;
    case SL_LANE_MEMSET: return self->pal.memset;
    case SL_LANE_SYNC: return self->pal.gpu_sync;
    case SL_N_LANE_KINDS:
    default: return self->pal.fg;
    }
}

static GdkRGBA
hash_color (SlTimelineView *self,
            guint32         name)
{
  guint h = g_str_hash (sl_trace_str (self->trace, name));
  double hue = (h % 360) / 360.0, s = 0.55 + ((h >> 9) % 20) / 100.0;
  double v = self->dark ? 0.78 : 0.72;
  float r, g, b;

  gtk_hsv_to_rgb ((float) hue, (float) s, (float) v, &r, &g, &b);
  return (GdkRGBA) { r, g, b, 1 };
}

static GdkRGBA
event_color (SlTimelineView *self,
             const SlLane   *lane,
             const SlEvent  *ev)
{
  if (lane->kind == SL_LANE_NVTX && (ev->aux >> 24) != 0)
    {
      GdkRGBA c;
      rgba_set (&c, ev->aux & 0xFFFFFF, 1);
      return c;
    }
  if (self->color_mode == SL_COLOR_BY_NAME && lane->kind != SL_LANE_SAMPLES)
    return hash_color (self, ev->name);
  switch (lane->kind)
    {
    case SL_LANE_CUDA_API:
      return is_sync_api (self, ev->name) ? self->pal.api_sync : self->pal.api;
    case SL_LANE_MEMCPY:
      {
        const SlCopyInfo *ci = sl_trace_get_copy_info (self->trace, ev->aux);
        switch (ci != NULL ? ci->copy_kind : 0)
          {
          case 1: return self->pal.memcpy_htod;
          case 2: return self->pal.memcpy_dtoh;
          case 8: return self->pal.memcpy_dtod;
          default: return self->pal.memcpy_other;
          }
      }
    case SL_LANE_NVTX:
    case SL_LANE_OSRT:
    case SL_LANE_SAMPLES:
    case SL_LANE_KERNELS:
    case SL_LANE_MEMSET:
    case SL_LANE_SYNC:
    case SL_N_LANE_KINDS:
    default:
      return lane_base_color (self, lane->kind);
    }
}

static const char *
event_label (SlTimelineView *self,
             const SlLane   *lane,
             const SlEvent  *ev,
             guint32        *id)
{
  *id = ev->name;
  if (lane->kind == SL_LANE_KERNELS)
    {
      const SlKernelInfo *ki = sl_trace_get_kernel_info (self->trace, ev->aux);
      if (ki != NULL && ki->short_name != SL_NO_STR)
        *id = ki->short_name;
    }
  return sl_trace_str (self->trace, *id);
}

/* ------------------------------------------------------------------------------------------- */
/* Rows: the header tree                                                                       */

static void
row_clear (gpointer data)
{
  Row *r = data;

  g_free (r->key);
  g_free (r->label);
}

typedef struct
{
  gint collapsed_level;   /* -1, or the level of the collapsed group whose rows are being skipped */
} RowBuild;

static gboolean
add_row (SlTimelineView *self,
         RowBuild       *b,
         RowKind         kind,
         guint           level,
         gint            lane,
         gint            gpu,
         char           *key,
         char           *label)
{
  Row r = { kind, level, lane, gpu, key, label, self->content_h, 0 };

  if (kind == ROW_GROUP && b->collapsed_level >= 0 && (gint) level <= b->collapsed_level)
    b->collapsed_level = -1;
  if (b->collapsed_level >= 0 && (gint) level > b->collapsed_level)
    {
      g_free (key);
      g_free (label);
      return FALSE;
    }
  if (kind == ROW_GROUP)
    {
      r.h = ROW_GROUP_H;
      if (g_hash_table_contains (self->collapsed, key))
        b->collapsed_level = level;
    }
  else if (kind == ROW_GPU_UTIL)
    r.h = ROW_UTIL_H;
  else if (kind == ROW_LANE)
    {
      SlLaneKind lk = sl_trace_get_lane (self->trace, lane)->kind;
      r.h = lk == SL_LANE_SAMPLES ? ROW_SAMPLE_H : lk == SL_LANE_NVTX ? ROW_NVTX_H : ROW_LANE_H;
      self->lane_row[lane] = self->rows->len;
    }
  else
    r.h = ROW_LANE_H;
  self->content_h += r.h;
  g_array_append_val (self->rows, r);
  return TRUE;
}

static char *
lane_title (const SlLane *lane)
{
  switch (lane->kind)
    {
    case SL_LANE_CUDA_API:
      return lane->depth > 0 ? g_strdup_printf ("CUDA API %u", lane->depth) : g_strdup ("CUDA API");
    case SL_LANE_NVTX:
      return lane->depth > 0 ? g_strdup_printf ("NVTX %u", lane->depth) : g_strdup ("NVTX");
    case SL_LANE_OSRT: return g_strdup ("OS runtime");
    case SL_LANE_SAMPLES: return g_strdup ("CPU samples");
    case SL_LANE_KERNELS: return g_strdup ("Kernels");
    case SL_LANE_MEMCPY: return g_strdup ("Memcpy");
    case SL_LANE_MEMSET: return g_strdup ("Memset");
    case SL_LANE_SYNC: return g_strdup ("Sync");
    case SL_N_LANE_KINDS:
    default: return g_strdup ("?");
    }
}

/* The pid of a process as the trace's process table has it (global pids carry more bytes). */
static guint
pid_of (SlTimelineView *self,
        guint64         global_pid)
{
  for (guint i = 0; i < sl_trace_get_n_processes (self->trace); i++)
    if (sl_trace_get_process (self->trace, i)->global_pid == global_pid)
      return sl_trace_get_process (self->trace, i)->pid;
  return (guint) (global_pid >> 24) & 0xFFFFFF;
}

static void
configure_vadjustment (SlTimelineView *self)
{
  double page = MAX (gtk_widget_get_height (GTK_WIDGET (self)) - RULER_H, 1.0);
  double upper = MAX (self->content_h, page);

  if (self->vadjustment == NULL)
    return;
  gtk_adjustment_configure (self->vadjustment,
                            CLAMP (gtk_adjustment_get_value (self->vadjustment), 0, upper - page),
                            0, upper, ROW_LANE_H * 2, page * 0.9, page);
}

/* Lanes come sorted (CPU by thread, GPU by gpu, process, context, stream, kind): one pass. */
static void
rows_rebuild (SlTimelineView *self)
{
  RowBuild b = { -1 };
  guint n_lanes;
  gint cur_thread = -1, cur_proc = -1, cur_gpu = -1;
  guint64 cur_pid = 0;
  guint32 cur_ctx = 0, cur_green = 0, cur_stream = 0;
  gboolean have_ctx = FALSE, have_stream = FALSE;

  g_array_set_size (self->rows, 0);
  self->content_h = 0;
  g_clear_pointer (&self->lane_row, g_free);
  if (self->trace == NULL)
    {
      configure_vadjustment (self);
      return;
    }
  n_lanes = sl_trace_get_n_lanes (self->trace);
  self->lane_row = g_new (gint, MAX (n_lanes, 1));
  for (guint i = 0; i < n_lanes; i++)
    self->lane_row[i] = -1;

  for (guint i = 0; i < n_lanes; i++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, i);

      if (lane->thread >= 0)
        {
          const SlThread *th = sl_trace_get_thread (self->trace, lane->thread);
          if ((gint) th->process != cur_proc)
            {
              const SlProcess *pr = sl_trace_get_process (self->trace, th->process);
              cur_proc = th->process;
              cur_thread = -1;
              add_row (self, &b, ROW_GROUP, 0, -1, -1,
                       g_strdup_printf ("p:%" G_GUINT64_FORMAT, pr->global_pid),
                       g_strdup_printf ("%s [%u]", sl_trace_str (self->trace, pr->name), pr->pid));
            }
          if (lane->thread != cur_thread)
            {
              const char *name = sl_trace_str (self->trace, th->name);
              cur_thread = lane->thread;
              add_row (self, &b, ROW_GROUP, 1, -1, -1,
                       g_strdup_printf ("t:%" G_GUINT64_FORMAT, th->global_tid),
                       g_strdup_printf ("%s (%u)", *name != '\0' ? name : "thread", th->tid));
            }
          add_row (self, &b, ROW_LANE, 2, i, -1, NULL, lane_title (lane));
        }
      else if (lane->gpu >= 0 && (guint) lane->gpu < self->n_gpus)
        {
          if (lane->gpu != cur_gpu)
            {
              const SlGpu *gpu = sl_trace_get_gpu (self->trace, lane->gpu);
              const char *gname = sl_trace_str (self->trace, gpu->name);
              g_autofree char *plain = g_strdup_printf ("GPU %u", gpu->device_id);
              cur_gpu = lane->gpu;
              have_ctx = FALSE;
              cur_proc = cur_thread = -1;
              add_row (self, &b, ROW_GROUP, 0, -1, lane->gpu, g_strdup_printf ("g:%d", lane->gpu),
                       g_str_equal (gname, plain) || *gname == '\0'
                         ? g_steal_pointer (&plain)
                         : g_strdup_printf ("GPU %u: %s", gpu->device_id, gname));
              add_row (self, &b, ROW_GPU_UTIL, 1, -1, lane->gpu, NULL, g_strdup ("Utilization"));
              add_row (self, &b, ROW_GPU_ALL, 1, -1, lane->gpu, NULL, g_strdup ("All streams"));
            }
          if (!have_ctx || lane->global_pid != cur_pid || lane->context_id != cur_ctx
              || lane->green_context_id != cur_green)
            {
              have_ctx = TRUE;
              have_stream = FALSE;
              cur_pid = lane->global_pid;
              cur_ctx = lane->context_id;
              cur_green = lane->green_context_id;
              add_row (self, &b, ROW_GROUP, 1, -1, lane->gpu,
                       g_strdup_printf ("c:%d:%" G_GUINT64_FORMAT ":%u:%u", lane->gpu, cur_pid,
                                        cur_ctx, cur_green),
                       cur_green != 0
                         ? g_strdup_printf ("pid %u · context %u · green %u",
                                            pid_of (self, cur_pid), cur_ctx, cur_green)
                         : g_strdup_printf ("pid %u · context %u", pid_of (self, cur_pid),
                                            cur_ctx));
            }
          if (!have_stream || lane->stream_id != cur_stream)
            {
              have_stream = TRUE;
              cur_stream = lane->stream_id;
              add_row (self, &b, ROW_GROUP, 2, -1, lane->gpu,
                       g_strdup_printf ("s:%d:%" G_GUINT64_FORMAT ":%u:%u:%u", lane->gpu, cur_pid,
                                        cur_ctx, cur_green, cur_stream),
                       cur_stream == G_MAXUINT32 ? g_strdup ("No stream")
                                                 : g_strdup_printf ("Stream %u", cur_stream));
            }
          add_row (self, &b, ROW_LANE, 3, i, lane->gpu, NULL, lane_title (lane));
        }
    }
  configure_vadjustment (self);
}

/* ------------------------------------------------------------------------------------------- */
/* Utilization per pixel                                                                       */

/* Makes `u` the cache of [t0, t1) in n columns, its series sized for them but not computed;
 * FALSE when it already is (nothing to compute). */
static gboolean
util_prepare (UtilCache *u,
              SlTime     t0,
              SlTime     t1,
              guint      n)
{
  if (u->kernels != NULL && u->t0 == t0 && u->t1 == t1 && u->n == n)
    return FALSE;
  u->tex_h = 0;   /* its image is of other series: made again (in the same memory, if free) */
  if (u->n != n || u->kernels == NULL)
    {
      g_free (u->kernels);
      g_free (u->any);
      u->kernels = g_new0 (double, MAX (n, 1));
      u->any = g_new0 (double, MAX (n, 1));
    }
  u->t0 = t0;
  u->t1 = t1;
  u->n = n;
  return TRUE;
}

static void
util_ensure (SlTimelineView *self,
             guint           gpu,
             SlTime          t0,
             SlTime          t1,
             guint           n)
{
  UtilCache *u = &self->util[gpu];

  if (!util_prepare (u, t0, t1, n))
    return;
  sl_trace_gpu_utilization_buckets (self->trace, gpu, SL_UTIL_KERNELS, t0, t1, n, u->kernels);
  sl_trace_gpu_utilization_buckets (self->trace, gpu, SL_UTIL_ANY, t0, t1, n, u->any);
}

static UtilCache *
util_current (SlTimelineView *self,
              guint           gpu)
{
  SlTime t0, t1;

  sl_viewport_get_visible (self->viewport, &t0, &t1);
  util_ensure (self, gpu, t0, t1, (guint) ceil (lanes_width (self)));
  return &self->util[gpu];
}

/* ------------------------------------------------------------------------------------------- */
/* Marks: highlighted name, search matches                                                     */

static void
markset_clear (MarkSet *m)
{
  for (guint i = 0; i < m->n_lanes; i++)
    if (m->lanes[i] != NULL)
      g_array_unref (m->lanes[i]);
  g_clear_pointer (&m->lanes, g_free);
  m->n_lanes = 0;
}

static void
markset_add (MarkSet *m,
             guint    lane,
             guint32  index)
{
  if (m->lanes[lane] == NULL)
    m->lanes[lane] = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_append_val (m->lanes[lane], index);
}

/* First position in idx[from, n) whose event starts at or after t. */
static guint
marks_lower_bound (const SlLane  *lane,
                   const guint32 *idx,
                   guint          from,
                   guint          n,
                   SlTime         t)
{
  while (from < n)
    {
      guint mid = from + (n - from) / 2;
      if (lane->events[idx[mid]].start < t)
        from = mid + 1;
      else
        n = mid;
    }
  return from;
}

/* ------------------------------------------------------------------------------------------- */
/* Snapshot                                                                                    */

/* Adjacent boxes of one colour become one render node: at most a few per pixel column. */
typedef struct
{
  GtkSnapshot *snapshot;
  double       x0, x1, y, h;
  GdkRGBA      color;
  gboolean     pending;
} Batch;

static void
batch_flush (Batch *b)
{
  if (b->pending)
    gtk_snapshot_append_color (b->snapshot, &b->color,
                               &GRAPHENE_RECT_INIT (b->x0, b->y, b->x1 - b->x0, b->h));
  b->pending = FALSE;
}

static void
batch_add (Batch         *b,
           double         x0,
           double         x1,
           double         y,
           double         h,
           const GdkRGBA *c)
{
  /* folds next to each other differ a little in opacity; one run keeps the first one's, or a
   * whole-trace frame of 10 M events is ~70 k rectangles instead of a few hundred */
  if (b->pending && y == b->y && h == b->h && x0 <= b->x1 + 0.01 && c->red == b->color.red
      && c->green == b->color.green && c->blue == b->color.blue
      && fabsf (c->alpha - b->color.alpha) < 0.2f)
    {
      b->x1 = MAX (b->x1, x1);
      return;
    }
  batch_flush (b);
  b->x0 = x0;
  b->x1 = x1;
  b->y = y;
  b->h = h;
  b->color = *c;
  b->pending = TRUE;
}

static void
layout_ensure (SlTimelineView *self)
{
  PangoFontDescription *desc;
  int w;

  if (self->layout != NULL)
    return;
  self->layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
  desc = pango_font_description_copy (pango_context_get_font_description (
    pango_layout_get_context (self->layout)));
  pango_font_description_set_size (desc, 8 * PANGO_SCALE);
  pango_layout_set_font_description (self->layout, desc);
  pango_font_description_free (desc);
  pango_layout_set_text (self->layout, "Ag", -1);
  pango_layout_get_pixel_size (self->layout, &w, &self->text_h);
  g_hash_table_remove_all (self->text_w);
}

/* Draws `text` at (x, y) clipped to `max_w` px: whole when it fits, ellipsized when the box is
 * wide, not at all otherwise.  Widths are cached per string id: labels repeat a lot. */
static void
draw_text (SlTimelineView *self,
           GtkSnapshot    *snapshot,
           guint32         id,
           const char     *text,
           double          x,
           double          y,
           double          max_w,
           const GdkRGBA  *color)
{
  gpointer cached;
  int w;

  if (max_w < 8 || text == NULL || *text == '\0')
    return;
  if (id != SL_NO_STR && g_hash_table_lookup_extended (self->text_w, GUINT_TO_POINTER (id), NULL,
                                                       &cached))
    w = GPOINTER_TO_INT (cached);
  else
    {
      pango_layout_set_width (self->layout, -1);
      pango_layout_set_text (self->layout, text, -1);
      pango_layout_get_pixel_size (self->layout, &w, NULL);
      if (id != SL_NO_STR)
        g_hash_table_insert (self->text_w, GUINT_TO_POINTER (id), GINT_TO_POINTER (w));
    }
  if (w > max_w && max_w < 40)
    return;
  pango_layout_set_text (self->layout, text, -1);
  if (w > max_w)
    {
      pango_layout_set_width (self->layout, (int) (max_w * PANGO_SCALE));
      pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_END);
    }
  else
    {
      pango_layout_set_width (self->layout, -1);
      pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_NONE);
    }
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (floor (x), floor (y)));
  gtk_snapshot_append_layout (snapshot, self->layout, color);
  gtk_snapshot_restore (snapshot);
}

static GdkRGBA
text_on (const GdkRGBA *bg)
{
  double l = 0.2126 * bg->red + 0.7152 * bg->green + 0.0722 * bg->blue;

  return l > 0.55 ? (GdkRGBA) { 0, 0, 0, 0.9f } : (GdkRGBA) { 1, 1, 1, 0.95f };
}

typedef struct
{
  SlTime t0, t1;
  double scale;     /* px per ns */
  double width;     /* lanes area width */
  double right;     /* widget width */
} Frame;

static double
frame_x (const Frame *f,
         SlTime       t)
{
  return HEADER_W + (double) (t - f->t0) * f->scale;
}

static gboolean
lane_lod_fresh (const LaneLod *l,
                SlTime         t0,
                SlTime         t1,
                guint          width)
{
  return l->items != NULL && l->t0 == t0 && l->t1 == t1 && l->width == width;
}

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
static const LaneLod *
lane_lod (SlTimelineView *self,
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
 * The work of one frame's prefetch, shared by two threads: each takes the next task from `next`.
 * A task is one utilization series (kernels, any work) of a GPU, the level of detail of one lane
 * (and its row's runs), the runs of a GPU's "All streams" row, made of its lanes' levels of
 * detail, or the image of a utilization row, made of its two series.  In that order: a series is
 * one long piece, lanes go largest first, and the rows and images wait until all of those are
 * done.
 */
typedef enum
{
  TASK_UTIL_KERNELS,
  TASK_UTIL_ANY,
  TASK_LANE,
  TASK_GPU_ROW,
  TASK_UTIL_IMAGE,   /* the utilization row, at y, h high */
} TaskKind;

typedef struct
{
  TaskKind      kind;
  const SlLane *lane;   /* TASK_LANE */
  guint         gpu;    /* the others */
  gboolean      row;    /* TASK_LANE: the lane is a row of its own: its runs too (lane_runs) */
  double        y, h;   /* TASK_UTIL_IMAGE */
} FrameTask;

typedef struct
{
  SlTimelineView  *self;
  const Frame     *f;
  FrameTask       *tasks;
  guint            n;
  guint            n_before_rows;   /* tasks before the first TASK_GPU_ROW */
  gint             next;            /* atomic: the next task to take */
  gint             done;            /* atomic: tasks finished */
  SlTime           t0, t1;
  guint            width;
  gboolean         posted;          /* to the view's worker (FALSE: nothing to do) */
} FrameJob;

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

static void lane_runs (SlTimelineView *self,
                       const Frame    *f,
                       const SlLane   *lane,
                       Column         *cols,
                       guint           n);
static void gpu_row_runs (SlTimelineView *self,
                          const Frame    *f,
                          guint           gpu,
                          Column         *cols);
static void util_image_ensure (SlTimelineView *self,
                               const Frame    *f,
                               guint           gpu,
                               double          y,
                               double          h);

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
          sl_trace_gpu_utilization_buckets (job->self->trace, t->gpu,
                                            t->kind == TASK_UTIL_ANY ? SL_UTIL_ANY
                                                                     : SL_UTIL_KERNELS,
                                            job->t0, job->t1, job->width,
                                            t->kind == TASK_UTIL_ANY ? u->any : u->kernels);
          break;
        case TASK_LANE:
          lane_lod (job->self, t->lane, job->t0, job->t1, job->width);
          if (t->row)
            lane_runs (job->self, job->f, t->lane, cols, job->width);
          break;
        case TASK_GPU_ROW:
        case TASK_UTIL_IMAGE:
        default:
          /* the other thread is finishing the last lanes: a few µs */
          while (g_atomic_int_get (&job->done) < (gint) job->n_before_rows)
            g_thread_yield ();
          if (t->kind == TASK_GPU_ROW)
            gpu_row_runs (job->self, job->f, t->gpu, cols);
          else
            util_image_ensure (job->self, job->f, t->gpu, t->y, t->h);
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

static void
worker_stop (SlTimelineView *self)
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

static gboolean
gpu_row_fresh (SlTimelineView *self,
               guint           gpu,
               const Frame    *f,
               guint           width)
{
  const GpuRow *g = &self->gpu_rows[gpu];

  return g->epoch == self->colors_epoch && g->t0 == f->t0 && g->t1 == f->t1 && g->width == width;
}

/* Queues the two utilization series of `gpu` for this frame's window and width, unless its cache
 * already holds them (or they are queued: util_prepare keyed the cache to them). */
static void
util_queue (SlTimelineView *self,
            guint           gpu,
            const Frame    *f,
            guint           width,
            FrameJob       *job)
{
  if (!util_prepare (&self->util[gpu], f->t0, f->t1, width))
    return;
  job->tasks[job->n++] = (FrameTask) { TASK_UTIL_KERNELS, NULL, gpu, FALSE, 0, 0 };
  job->tasks[job->n++] = (FrameTask) { TASK_UTIL_ANY, NULL, gpu, FALSE, 0, 0 };
}

/*
 * Makes the LOD list of every lane the visible rows draw, and the utilization of the visible
 * GPUs, before drawing.  Zoomed out on 10 M events the utilization series take ~0.3 ms and the
 * lists ~0.4 ms of a frame; they only read the trace, so a second thread starts on them at once
 * while this one draws what does not need them (headers and ruler, ~0.4 ms), then joins in:
 * frame_prefetch_finish.  The lanes' rows, the "All streams" rows and the utilization images
 * are made there too, from them.
 */
static void
frame_prefetch_start (SlTimelineView *self,
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
      if (r->kind == ROW_GPU_UTIL || (self->util_overlay && r->kind == ROW_GPU_ALL))
        util_queue (self, r->gpu, f, width, job);
      else if (self->util_overlay && r->kind == ROW_LANE)
        {
          const SlLane *lane = sl_trace_get_lane (self->trace, r->lane);
          if (lane->gpu >= 0)
            util_queue (self, lane->gpu, f, width, job);
        }
      if (r->kind == ROW_GPU_ALL && !gpu_row_fresh (self, r->gpu, f, width))
        job->tasks[job->n++] = (FrameTask) { TASK_GPU_ROW, NULL, r->gpu, FALSE, 0, 0 };
      /* its image, when its series changed (util_prepare marked it stale) */
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
static void
frame_prefetch_finish (SlTimelineView *self,
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

/* floor (x) for |x| < 2^62, without a call into libm (a frame asks ~3 k). */
static inline double
floor_fast (double x)
{
  double t = (double) (gint64) x;

  return t > x ? t - 1 : t;
}

/* A channel of 0 … 1 as 0 … 255, rounded (lround's answer, without its call: a dense lane of
 * NVTX colours asks for three a pixel column). */
static inline guint32
channel_byte (float v)
{
  return (guint32) (CLAMP (v, 0.0f, 1.0f) * 255.0f + 0.5f);
}

static guint32
rgb_key (const GdkRGBA *c)
{
  return (channel_byte (c->red) << 24) | (channel_byte (c->green) << 16)
         | (channel_byte (c->blue) << 8);
}

/* Columns for `n` pixel columns, cleared: reused by every row (n is the lanes width, ~2 k). */
static Column *
columns_get (SlTimelineView *self,
             guint           n)
{
  if (n > self->n_cols)
    {
      g_free (self->cols);
      g_free (self->runs);
      self->cols = g_new0 (Column, n);
      self->runs = g_new (Run, n + 1);
      self->n_cols = n;
    }
  return self->cols;
}

/* The lane's colour for folds: darker. */
static guint32
fold_key_of (SlTimelineView *self,
             const SlLane   *lane)
{
  GdkRGBA fc = lane_base_color (self, lane->kind);

  fc.red *= 0.72f;
  fc.green *= 0.72f;
  fc.blue *= 0.72f;
  return rgb_key (&fc) | KEY_FOLD;
}

/*
 * The key of a column of narrow events (see columns_add_narrow): one event in its colour, several
 * as a fold.  `last` caches the colour of the last single event.
 */
static inline guint32
narrow_key (SlTimelineView    *self,
            const SlLane      *lane,
            const SlLodColumn *col,
            guint32            fold_key,
            GdkRGBA           *last_c,
            guint32           *last_key)
{
  GdkRGBA ec;

  if (col->count != 1)
    return fold_key;
  ec = event_color (self, lane, &lane->events[col->last]);
  /* neighbours mostly share a colour */
  if (ec.red != last_c->red || ec.green != last_c->green || ec.blue != last_c->blue)
    {
      *last_c = ec;
      *last_key = rgb_key (&ec);
    }
  return *last_key;
}

/*
 * A lane's narrow events, summed per column by where they start: a column of one event is drawn
 * in its colour, one of several as a fold.  An event of up to MIN_PX reaches into the next
 * columns: what a column's sum has beyond its pixel carries over (up to MIN_PX), so that a lane of
 * back-to-back 1.5 px events shows no holes.
 */
static void
columns_add_narrow (SlTimelineView    *self,
                    const SlLane      *lane,
                    Column            *cols,
                    const SlLodColumn *narrow,
                    guint              n,
                    double             scale,
                    guint32            fold_key)
{
  gboolean samples = lane->kind == SL_LANE_SAMPLES;
  GdkRGBA last_c = { -1, -1, -1, -1 };
  guint32 last_key = 0;
  double carry = 0;

  for (guint c = 0; c < n; c++)
    {
      guint32 key;
      double px;
      float w;

      if (narrow[c].count == 0 && carry <= 0)
        continue;
      key = narrow_key (self, lane, &narrow[c], fold_key, &last_c, &last_key);
      /* samples and marks have no duration: drawn whole */
      px = (double) narrow[c].busy * scale + carry;
      if (narrow[c].count > 0 && (samples || narrow[c].busy == 0))
        px = MAX (px, 1.0);
      carry = MIN (MAX (px - 1.0, 0.0), MIN_PX);
      if (px <= 0)
        continue;
      w = narrow[c].count > 0 ? 1.0f : (float) MIN (px, 1.0);
      if (w >= cols[c].w)
        {
          cols[c].w = w;
          cols[c].key = narrow[c].count > 0 ? key : fold_key;
        }
      cols[c].busy += (float) MIN (px, 1.0);
    }
}

static void
columns_add_lane (SlTimelineView *self,
                  const Frame    *f,
                  const SlLane   *lane,
                  Column         *cols,
                  guint           n)
{
  const LaneLod *l = lane_lod (self, lane, f->t0, f->t1, n);
  GArray *lod = l->items;
  guint32 fold_key = fold_key_of (self, lane), last_key = 0;
  GdkRGBA last_c = { -1, -1, -1, -1 };

  if (l->dense)
    columns_add_narrow (self, lane, cols, l->cols, n, f->scale, fold_key);
  for (guint k = 0; k < lod->len; k++)
    {
      const SlLodItem *it = &g_array_index (lod, SlLodItem, k);
      double x0 = (double) (it->start - f->t0) * f->scale;
      double x1 = (double) (it->end - f->t0) * f->scale;
      double fill = 1;
      guint32 key;
      gint c0, c1;

      if (it->count == 1)
        {
          const SlEvent *ev = &lane->events[it->first];
          GdkRGBA c = event_color (self, lane, ev);
          /* neighbours mostly share a colour */
          if (c.red != last_c.red || c.green != last_c.green || c.blue != last_c.blue)
            {
              last_c = c;
              last_key = rgb_key (&c);
            }
          key = last_key;
          if (ev->start == ev->end)
            {
              /* samples and marks: a thin tick */
              x0 -= 0.5;
              x1 = x0 + 1;
            }
        }
      else
        {
          key = fold_key;
          if (lane->kind != SL_LANE_SAMPLES)
            fill = CLAMP ((double) it->busy / (double) MAX (it->end - it->start, 1), 0.0, 1.0);
        }
      /* every event at least 1 px where it was */
      if (x1 - x0 < 1)
        x1 = x0 + 1;
      if (x1 <= 0 || x0 >= n)
        continue;
      x0 = MAX (x0, 0);
      x1 = MIN (x1, n);
      c0 = (gint) x0;
      c1 = (gint) ceil (x1);
      if (c1 - c0 == 1)
        {
          /* zoomed out most items are a fold inside one column: ~25 k of them a frame */
          float ov = (float) (x1 - x0);
          if (ov >= cols[c0].w)
            {
              cols[c0].w = ov;
              cols[c0].key = key;
            }
          cols[c0].busy += (float) (ov * fill);
          continue;
        }
      for (gint c = c0; c < c1; c++)
        {
          float ov = (float) (MIN (x1, c + 1.0) - MAX (x0, (double) c));
          /* ties go to the later item: it was drawn on top */
          if (ov >= cols[c].w)
            {
              cols[c].w = ov;
              cols[c].key = key;
            }
          cols[c].busy += (float) (ov * fill);
        }
    }
}

/* Alpha of `busy` px of 1 (mean over a run): folds at least 0.35 so that they stay visible. */
static double
fold_alpha (double busy)
{
  return 0.35 + 0.65 * floor (MIN (busy, 1.0) * FOLD_LEVELS + 0.5) / FOLD_LEVELS;
}

/* The premultiplied ARGB32 pixel of a run of `key` (dimmed: 0.22 of its opacity). */
static inline guint32
run_pixel (guint32  key,
           float    busy,
           gboolean dim)
{
  float a = (key & KEY_FOLD) ? (float) fold_alpha (busy) : 1.0f;

  if (dim)
    a *= 0.22f;
  return ((guint32) (a * 255 + 0.5f) << 24) | ((guint32) ((key >> 24) * a + 0.5f) << 16)
         | ((guint32) (((key >> 16) & 0xFF) * a + 0.5f) << 8)
         | (guint32) (((key >> 8) & 0xFF) * a + 0.5f);
}

/*
 * Runs of columns of one colour, made column by column.  Busy fractions of neighbouring folds
 * jitter by a level or so, and at 20 s per 1.7 k px that alone made ~16 k runs in 20 lanes: a
 * fold run goes on while a column is within one opacity level of the run's mean, and is drawn at
 * that mean.  Key 0 is an empty column.
 */
typedef struct
{
  Run     *runs;     /* room for a run per column, and one */
  guint    n_runs;
  guint32  run;      /* key of the run going on, 0 for none */
  guint    from;
  float    sum;      /* busy over its columns */
} RunBuilder;

static inline void
run_push (RunBuilder *b,
          guint       c,
          guint32     key,
          float       busy)
{
  float len = (float) (c - b->from);

  /* |busy - sum / len| within a level, without a division a column */
  if (key != 0 && key == b->run
      && (!(key & KEY_FOLD) || fabsf (busy * len - b->sum) <= (1.0f / FOLD_LEVELS + 1e-6f) * len))
    {
      b->sum += busy;
      return;
    }
  if (b->run != 0)
    b->runs[b->n_runs++] = (Run) { b->from, c, b->run, b->sum / len,
                                   run_pixel (b->run, b->sum / len, FALSE) };
  b->run = key;
  b->from = c;
  b->sum = busy;
}

/* The runs of `n` columns; clears the columns for the next row.  Returns how many it wrote to
 * `runs` (n + 1 room). */
static guint
columns_runs (Column *cols,
              guint   n,
              Run    *runs)
{
  RunBuilder b = { runs, 0, 0, 0, 0 };

  for (guint c = 0; c < n; c++)
    run_push (&b, c, cols[c].w > 0 ? cols[c].key : 0, MIN (cols[c].busy, 1.0f));
  run_push (&b, n, 0, 0);
  memset (cols, 0, n * sizeof *cols);
  return b.n_runs;
}

/*
 * Paints a premultiplied ARGB32 image at (x, y), `h` px high: the image itself (CAIRO_EXTEND_PAD,
 * as GTK draws a texture node: edges padded), or a one-pixel-high image repeated down
 * (CAIRO_EXTEND_REPEAT: pixman repeats it row by row as fast as it copies a full-height image,
 * without our writing one).  Not a GdkMemoryTexture: GTK 4.8's cairo renderer converts one
 * through floats on every draw (~3 ns a pixel, 2 ms for the textures of a frame), while the image
 * of a cairo node is composited by pixman as it is.
 */
static void
append_image (GtkSnapshot     *snapshot,
              cairo_surface_t *image,
              double           x,
              double           y,
              double           h,
              cairo_extend_t   extend)
{
  int w = cairo_image_surface_get_width (image);
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (x, y, w, h));

  cairo_set_source_surface (cr, image, x, y);
  cairo_pattern_set_extend (cairo_get_source (cr), extend);
  cairo_rectangle (cr, x, y, w, h);
  cairo_fill (cr);
  cairo_destroy (cr);
}

/*
 * An n × h image for a dense row, from a pool that outlives frames: a fresh one each row and frame
 * was ~3 MB a frame allocated (mmap'd, page-faulted and cleared by the kernel) and freed.  An image
 * still held by a render node (ours holds one reference; the node, until it is freed, another)
 * is not reused; the pool keeps at most 64, and forgets images of another size.
 */
static cairo_surface_t *
row_image (SlTimelineView *self,
           guint           n,
           guint           h,
           cairo_format_t  format)
{
  cairo_surface_t *image;

  if (self->row_images == NULL)
    self->row_images = g_ptr_array_new_with_free_func ((GDestroyNotify) cairo_surface_destroy);
  for (guint i = 0; i < self->row_images->len; i++)
    {
      image = g_ptr_array_index (self->row_images, i);
      if (cairo_surface_get_reference_count (image) == 1
          && cairo_image_surface_get_width (image) == (int) n
          && cairo_image_surface_get_height (image) == (int) h
          && cairo_image_surface_get_format (image) == format)
        return image;
    }
  /* drop the free ones of other sizes, then make room */
  for (guint i = self->row_images->len; i-- > 0;)
    if (cairo_surface_get_reference_count (g_ptr_array_index (self->row_images, i)) == 1)
      {
        cairo_surface_t *old = g_ptr_array_index (self->row_images, i);
        if (cairo_image_surface_get_width (old) != (int) n || self->row_images->len >= 64)
          g_ptr_array_remove_index_fast (self->row_images, i);
      }
  image = cairo_image_surface_create (format, (int) n, (int) h);
  g_ptr_array_add (self->row_images, image);
  return image;
}

/*
 * The runs of a lane that has only narrow events in the window (the usual dense lane zoomed out):
 * columns_add_narrow and columns_runs in one pass, with no columns in between.
 */
static guint
narrow_runs (SlTimelineView    *self,
             const SlLane      *lane,
             const SlLodColumn *narrow,
             guint              n,
             double             scale,
             Run               *runs)
{
  gboolean samples = lane->kind == SL_LANE_SAMPLES;
  guint32 fold_key = fold_key_of (self, lane), last_key = 0;
  GdkRGBA last_c = { -1, -1, -1, -1 };
  RunBuilder b = { runs, 0, 0, 0, 0 };
  double carry = 0;

  for (guint c = 0; c < n; c++)
    {
      const SlLodColumn *col = &narrow[c];
      double px;

      if (col->count == 0 && carry <= 0)
        {
          if (b.run != 0)
            run_push (&b, c, 0, 0);
          continue;
        }
      px = (double) col->busy * scale;
      /* a full column (most, zoomed out on a busy lane) carries the most whatever came before:
       * the branch spares the next column the wait on this one's sum */
      if (px >= 1.0 + MIN_PX)
        carry = MIN_PX;
      else
        {
          px += carry;
          if (col->count > 0 && (samples || col->busy == 0))
            px = MAX (px, 1.0);
          carry = MIN (MAX (px - 1.0, 0.0), MIN_PX);
        }
      if (px <= 0)
        run_push (&b, c, 0, 0);
      else
        run_push (&b, c,
                  col->count > 0 ? narrow_key (self, lane, col, fold_key, &last_c, &last_key)
                                 : fold_key,
                  (float) MIN (px, 1.0));
    }
  run_push (&b, n, 0, 0);
  return b.n_runs;
}

/*
 * A lane's own row for this frame as runs: made on either thread of the frame (frame_job_run),
 * right after its level of detail, with that thread's columns.
 */
static void
lane_runs (SlTimelineView *self,
           const Frame    *f,
           const SlLane   *lane,
           Column         *cols,
           guint           n)
{
  LaneLod *l = &self->lod_cache[lane->index];

  if (l->runs_cap < n + 1)
    {
      g_free (l->runs);
      l->runs = g_new (Run, n + 1);
      l->runs_cap = n + 1;
    }
  if (l->dense && l->items->len == 0)
    l->n_runs = narrow_runs (self, lane, l->cols, n, f->scale, l->runs);
  else
    {
      columns_add_lane (self, f, lane, cols, n);
      l->n_runs = columns_runs (cols, n, l->runs);
    }
  l->runs_epoch = self->colors_epoch;
}

/* A GPU's "All streams" row: every stream's kernels, copies and sets in one set of columns.  Made
 * on either thread of the frame, once the lanes' levels of detail are. */
static void
gpu_row_runs (SlTimelineView *self,
              const Frame    *f,
              guint           gpu,
              Column         *cols)
{
  GpuRow *g = &self->gpu_rows[gpu];
  GArray *lanes = self->gpu_lanes[gpu];
  guint n = (guint) ceil (f->width);

  for (guint k = 0; k < lanes->len; k++)
    columns_add_lane (self, f, sl_trace_get_lane (self->trace, g_array_index (lanes, guint, k)),
                      cols, n);
  if (g->cap < n + 1)
    {
      g_free (g->runs);
      g->runs = g_new (Run, n + 1);
      g->cap = n + 1;
    }
  g->n_runs = columns_runs (cols, n, g->runs);
  g->t0 = f->t0;
  g->t1 = f->t1;
  g->width = n;
  g->epoch = self->colors_epoch;
}

/*
 * Draws the runs of a row: one rectangle each where they are few; where they are many (a dense
 * lane zoomed out: an event of 2 px, a fold of 3 px, ... ~1 k per lane) one image of the row,
 * n × h px, because the renderer pays ~1 µs per node and ~nothing per pixel of an image.  With
 * `under` (what the row shows beneath its events, frame_under) the image is opaque: the events
 * blended over it here, one row of pixels, and copied down the row by pixman, which blends a
 * translucent image at ~5 times the cost of copying an opaque one (~0.25 ms a dense frame).
 */
#define DENSE_RUNS 64

static inline guint32
pixel_blend (guint32 v,
             guint32 under)
{
  guint32 a = v >> 24, out = 0xFF000000u;

  if (a == 0xFF)
    return v;
  for (guint shift = 0; shift < 24; shift += 8)
    out |= (((v >> shift) & 0xFF) + (((under >> shift) & 0xFF) * (255 - a) + 127) / 255) << shift;
  return out;
}

static void
runs_emit (SlTimelineView *self,
           GtkSnapshot    *snapshot,
           const Run      *runs,
           guint           n_runs,
           guint           n,
           double          y,
           double          h,
           gboolean        dim,
           const guint32  *under)
{
  if (n_runs <= DENSE_RUNS || h < 1)
    {
      for (guint i = 0; i < n_runs; i++)
        {
          const Run *r = &runs[i];
          double a = (r->key & KEY_FOLD) ? fold_alpha (r->busy) : 1;
          if (dim)
            a *= 0.22;
          gtk_snapshot_append_color (snapshot,
                                     &(GdkRGBA) { (r->key >> 24) / 255.f,
                                                  ((r->key >> 16) & 0xFF) / 255.f,
                                                  ((r->key >> 8) & 0xFF) / 255.f, (float) a },
                                     &GRAPHENE_RECT_INIT (HEADER_W + r->from, y,
                                                          r->to - r->from, h));
        }
      return;
    }
  {
    guint hh = (guint) ceil (h);
    /* one row of pixels, repeated down the row's height when drawn */
    cairo_surface_t *image = row_image (self, n, 1,
                                        under != NULL ? CAIRO_FORMAT_RGB24 : CAIRO_FORMAT_ARGB32);
    gsize stride = (gsize) cairo_image_surface_get_stride (image) / 4;
    guint32 *px = (guint32 *) cairo_image_surface_get_data (image);
    guint c = 0;

    cairo_surface_flush (image);
    /* premultiplied ARGB32, transparent between runs */
    for (guint i = 0; i < n_runs; i++)
      {
        const Run *r = &runs[i];
        guint32 v = dim ? run_pixel (r->key, r->busy, TRUE) : r->argb;
        if (under != NULL)
          {
            /* what is under a run is mostly one colour: blend once for each change */
            guint32 u = 0, out = 0;
            for (; c < r->from; c++)
              px[c] = under[c];
            if (c < r->to)
              out = pixel_blend (v, u = under[c]);
            for (; c < r->to; c++)
              {
                if (under[c] != u)
                  out = pixel_blend (v, u = under[c]);
                px[c] = out;
              }
            continue;
          }
        for (; c < r->from; c++)
          px[c] = 0;
        for (; c < r->to; c++)
          px[c] = v;
      }
    for (; c < n; c++)
      px[c] = under != NULL ? under[c] : 0;
    for (; c < stride; c++)
      px[c] = 0;
    cairo_surface_mark_dirty (image);
    append_image (snapshot, image, HEADER_W, y, hh, CAIRO_EXTEND_REPEAT);
  }
}

/* Labels of the single events wide enough for one, over the boxes columns_emit drew. */
static void
draw_lane_labels (SlTimelineView *self,
                  GtkSnapshot    *snapshot,
                  const Frame    *f,
                  const SlLane   *lane,
                  double          by,
                  double          bh)
{
  GArray *lod = lane_lod (self, lane, f->t0, f->t1, (guint) ceil (f->width))->items;

  if (bh < self->text_h)
    return;
  for (guint k = 0; k < lod->len; k++)
    {
      const SlLodItem *it = &g_array_index (lod, SlLodItem, k);
      double x0, x1;
      const SlEvent *ev;
      const char *text;
      guint32 id;
      GdkRGBA c, tc;

      /* folds and narrow events never get one: no colour, no string, no Pango */
      if (it->count != 1 || (double) (it->end - it->start) * f->scale < TEXT_MIN_W)
        continue;
      x0 = MAX (frame_x (f, it->start), HEADER_W - 1);
      x1 = MIN (frame_x (f, it->end), f->right + 1);
      if (x1 - x0 < TEXT_MIN_W)
        continue;
      ev = &lane->events[it->first];
      c = event_color (self, lane, ev);
      tc = text_on (&c);
      text = event_label (self, lane, ev, &id);
      draw_text (self, snapshot, id, text, x0 + 4, by + (bh - self->text_h) / 2, x1 - x0 - 8,
                 &tc);
    }
}

/* The events of a lane's own row, and their labels: its runs, made with its level of detail
 * (lane_runs), here when the frame's prefetch did not. */
static void
draw_lane_row (SlTimelineView *self,
               GtkSnapshot    *snapshot,
               const Frame    *f,
               const SlLane   *lane,
               double          y,
               double          h,
               gboolean        dim,
               const guint32  *under)
{
  guint n = (guint) ceil (f->width);
  const LaneLod *l = &self->lod_cache[lane->index];

  if (!lane_lod_fresh (l, f->t0, f->t1, n) || l->runs_epoch != self->colors_epoch)
    {
      lane_lod (self, lane, f->t0, f->t1, n);
      lane_runs (self, f, lane, columns_get (self, n), n);
    }
  runs_emit (self, snapshot, l->runs, l->n_runs, n, y + 1, h - 2, dim, under);
  if (!dim)
    draw_lane_labels (self, snapshot, f, lane, y + 1, h - 2);
}

/* Events of a mark set in one lane, one per pixel column at most: O(pixels × log n). */
static void
draw_lane_marks (SlTimelineView *self,
                 Batch          *batch,
                 const Frame    *f,
                 const SlLane   *lane,
                 GArray         *marks,
                 double          y,
                 double          h,
                 const GdkRGBA  *underline)
{
  const guint32 *idx = (const guint32 *) marks->data;
  guint n = marks->len, i;

  i = marks_lower_bound (lane, idx, 0, n, f->t0);
  if (i > 0 && lane->events[idx[i - 1]].end > f->t0)
    i--;
  while (i < n)
    {
      const SlEvent *ev = &lane->events[idx[i]];
      double x0, x1;
      SlTime next;
      GdkRGBA c;

      if (ev->start >= f->t1)
        break;
      x0 = MAX (frame_x (f, ev->start), HEADER_W - 1);
      x1 = MAX (MIN (frame_x (f, ev->end), f->right + 1), x0 + 1);
      if (underline != NULL)
        batch_add (batch, x0, MAX (x1, x0 + 2), y + h - 3, 3, underline);
      else
        {
          c = event_color (self, lane, ev);
          batch_add (batch, x0, x1, y + 1, h - 2, &c);
        }
      next = f->t0 + (SlTime) ((floor (x1 - HEADER_W) + 1) / f->scale);
      if (next <= ev->start)
        next = ev->start + 1;
      i = marks_lower_bound (lane, idx, i + 1, n, next);
    }
}

/* Semi-transparent red where the GPU's kernel utilization is below the threshold. */
static void
draw_idle_shade (SlTimelineView *self,
                 Batch          *batch,
                 const Frame    *f,
                 guint           gpu,
                 double          y,
                 double          h)
{
  UtilCache *u;

  util_ensure (self, gpu, f->t0, f->t1, (guint) ceil (f->width));
  u = &self->util[gpu];
  for (guint i = 0; i < u->n; i++)
    {
      SlTime bt0 = f->t0 + (SlTime) ((double) (f->t1 - f->t0) * i / u->n);
      SlTime bt1 = f->t0 + (SlTime) ((double) (f->t1 - f->t0) * (i + 1) / u->n);
      SlTime s, e;
      sl_viewport_get_bounds (self->viewport, &s, &e);
      /* outside the trace nothing ran, but nothing was recorded either: not "idle" */
      if (bt1 <= s || bt0 >= e)
        continue;
      if (u->kernels[i] < self->util_threshold)
        batch_add (batch, HEADER_W + i, HEADER_W + i + 1, y, h, &self->pal.idle);
    }
  batch_flush (batch);
}

static guint32
rgba_key (const GdkRGBA *c)
{
  return rgb_key (c) | channel_byte (c->alpha);
}

/* `src` (straight alpha, times `cover`) over the premultiplied pixel `dst`, as cairo's OVER. */
static void
pixel_over (float         *dst,
            const GdkRGBA *src,
            float          cover)
{
  float a = src->alpha * cover;

  dst[0] = src->red * a + dst[0] * (1 - a);
  dst[1] = src->green * a + dst[1] * (1 - a);
  dst[2] = src->blue * a + dst[2] * (1 - a);
  dst[3] = a + dst[3] * (1 - a);
}

static guint32
pixel_pack (const float *p)
{
  return ((guint32) (CLAMP (p[3], 0, 1) * 255 + 0.5f) << 24)
         | ((guint32) (CLAMP (p[0], 0, 1) * 255 + 0.5f) << 16)
         | ((guint32) (CLAMP (p[1], 0, 1) * 255 + 0.5f) << 8)
         | (guint32) (CLAMP (p[2], 0, 1) * 255 + 0.5f);
}

/*
 * The utilization row of a GPU: the graph (any work, kernels over it) and the idle shade.  As
 * rectangles that is one per pixel column and layer, ~3 k nodes that cost the cairo renderer
 * ~4 ms a frame; as one n × h image (8 pixel states looked up, ~0.1 ms) the same pixels cost one
 * node.  Geometry is that of the rectangles: bars in whole pixels from their top down to h - 2,
 * the shade h - 1 px high where kernels are below the threshold inside the trace.  The dotted
 * threshold line stays vector, one path, so that its fractional height is anti-aliased as before.
 */
static void
util_image_ensure (SlTimelineView *self,
                   const Frame    *f,
                   guint           gpu,
                   double          y,
                   double          h)
{
  UtilCache *u = &self->util[gpu];
  guint hh = (guint) ceil (h), n = u->n;
  guint32 colors[3] = { rgba_key (&self->pal.util_any), rgba_key (&self->pal.util_kernels),
                        rgba_key (&self->pal.idle) };

  if (n == 0 || hh == 0)
    return;
  if (u->image == NULL || u->tex_h != hh || u->tex_y != y - floor (y)
      || u->tex_threshold != self->util_threshold
      || memcmp (u->tex_colors, colors, sizeof colors) != 0)
    {
      double base = h - 2, gh = h - 6;
      SlTime s, e;
      cairo_surface_t *image = u->image;
      gsize stride;
      guint32 *px;
      float lut[8][4];   /* premultiplied colour of each state: any bar 1, kernels bar 2, idle 4 */
      guint32 packed[8];

      /* the last image, when no render node holds it any more */
      if (image == NULL || cairo_surface_get_reference_count (image) != 1
          || cairo_image_surface_get_width (image) != (int) n
          || cairo_image_surface_get_height (image) != (int) hh)
        {
          g_clear_pointer (&u->image, cairo_surface_destroy);
          image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) n, (int) hh);
        }
      else
        cairo_surface_flush (image);
      stride = (gsize) cairo_image_surface_get_stride (image) / 4;
      px = (guint32 *) cairo_image_surface_get_data (image);

      for (guint k = 0; k < 8; k++)
        {
          memset (lut[k], 0, sizeof lut[k]);
          if (k & 1)
            pixel_over (lut[k], &self->pal.util_any, 1);
          if (k & 2)
            pixel_over (lut[k], &self->pal.util_kernels, 1);
          if (k & 4)
            pixel_over (lut[k], &self->pal.idle, 1);
          packed[k] = pixel_pack (lut[k]);
        }
      sl_viewport_get_bounds (self->viewport, &s, &e);
      SlTime bt1 = f->t0;
      for (guint i = 0; i < n; i++)
        {
          SlTime bt0 = bt1;
          /* outside the trace nothing ran, but nothing was recorded either: not "idle" */
          gboolean idle;
          /* where the idle shade ends and each bar starts (whole pixels from its top down to the
           * base line, as the rectangles) */
          gint idle_end, top_any = G_MAXINT, top_kernels = G_MAXINT, r = 0;
          gint cut[4];

          bt1 = f->t0 + (SlTime) ((double) (f->t1 - f->t0) * (i + 1) / n);
          idle = !(bt1 <= s || bt0 >= e) && u->kernels[i] < self->util_threshold;
          idle_end = idle ? (gint) (h - 1) : 0;
          if (u->any[i] > 0)
            top_any = (gint) floor_fast (floor_fast (y + base - u->any[i] * gh) - y + 0.5);
          if (u->kernels[i] > 0)
            top_kernels = (gint) floor_fast (floor_fast (y + base - u->kernels[i] * gh) - y + 0.5);
          /* the rows where the state changes, in order (an insertion sort of four); between two
           * of them the column is one colour, filled down */
          cut[0] = idle_end;
          cut[1] = top_any;
          cut[2] = top_kernels;
          cut[3] = (gint) base;
          for (guint c = 1; c < G_N_ELEMENTS (cut); c++)
            for (guint d = c; d > 0 && cut[d - 1] > cut[d]; d--)
              {
                gint tmp = cut[d];
                cut[d] = cut[d - 1];
                cut[d - 1] = tmp;
              }
          for (guint c = 0; c <= G_N_ELEMENTS (cut) && r < (gint) hh; c++)
            {
              gint to = c < G_N_ELEMENTS (cut) ? MIN (cut[c], (gint) hh) : (gint) hh;
              gboolean bar = r < (gint) base;
              guint32 v;
              if (to <= r)
                continue;
              v = packed[(r < idle_end ? 4 : 0) | (bar && r >= top_any ? 1 : 0)
                         | (bar && r >= top_kernels ? 2 : 0)];
              for (; r < to; r++)
                px[(gsize) r * stride + i] = v;
            }
        }
      cairo_surface_mark_dirty (image);
      u->image = image;
      u->tex_h = hh;
      u->tex_y = y - floor (y);
      u->tex_threshold = self->util_threshold;
      memcpy (u->tex_colors, colors, sizeof colors);
    }
}

static void
draw_util_texture (SlTimelineView *self,
                   GtkSnapshot    *snapshot,
                   const Frame    *f,
                   guint           gpu,
                   double          y,
                   double          h)
{
  UtilCache *u = &self->util[gpu];

  util_ensure (self, gpu, f->t0, f->t1, (guint) ceil (f->width));
  util_image_ensure (self, f, gpu, y, h);
  if (u->image == NULL)
    return;
  append_image (snapshot, u->image, HEADER_W, y, cairo_image_surface_get_height (u->image),
                CAIRO_EXTEND_PAD);

  /* the threshold as a dotted line, 3 px of every 6: one path of ~300 boxes in one node,
   * anti-aliased at its fractional height as rectangles are */
  {
    GdkRGBA tl = self->pal.idle;
    double ty = y + h - 2 - self->util_threshold * (h - 6);
    cairo_t *cr = gtk_snapshot_append_cairo (snapshot,
                                             &GRAPHENE_RECT_INIT (HEADER_W, floor (ty),
                                                                  f->right - HEADER_W + 3, 2));
    tl.alpha = 0.8f;
    for (double x = HEADER_W; x < f->right; x += 6)
      cairo_rectangle (cr, x, ty, 3, 1);
    gdk_cairo_set_source_rgba (cr, &tl);
    cairo_fill (cr);
    cairo_destroy (cr);
  }
}

static void
draw_outline (GtkSnapshot   *snapshot,
              const graphene_rect_t *r,
              const GdkRGBA *c,
              double         w)
{
  gtk_snapshot_append_color (snapshot, c, &GRAPHENE_RECT_INIT (r->origin.x - w, r->origin.y - w,
                                                               r->size.width + 2 * w, w));
  gtk_snapshot_append_color (snapshot, c, &GRAPHENE_RECT_INIT (r->origin.x - w,
                                                               r->origin.y + r->size.height,
                                                               r->size.width + 2 * w, w));
  gtk_snapshot_append_color (snapshot, c, &GRAPHENE_RECT_INIT (r->origin.x - w, r->origin.y, w,
                                                               r->size.height));
  gtk_snapshot_append_color (snapshot, c, &GRAPHENE_RECT_INIT (r->origin.x + r->size.width,
                                                               r->origin.y, w, r->size.height));
}

/* Area of an event in widget coordinates, unclipped horizontally; FALSE when its row is hidden. */
static gboolean
event_rect (SlTimelineView  *self,
            SlEventRef       ref,
            graphene_rect_t *out)
{
  const SlLane *lane;
  const SlEvent *ev;
  const Row *row;
  double x0, x1, y;

  if (self->trace == NULL || ref.lane < 0 || (guint) ref.lane >= sl_trace_get_n_lanes (self->trace)
      || self->lane_row == NULL || self->lane_row[ref.lane] < 0)
    return FALSE;
  lane = sl_trace_get_lane (self->trace, ref.lane);
  if (ref.index >= lane->n_events)
    return FALSE;
  ev = &lane->events[ref.index];
  row = row_get (self, self->lane_row[ref.lane]);
  x0 = time_to_x (self, ev->start);
  x1 = MAX (time_to_x (self, ev->end), x0 + 1);
  y = RULER_H + row->y - scroll_y (self);
  graphene_rect_init (out, x0, y + 1, x1 - x0, row->h - 2);
  return TRUE;
}

/* The launch → GPU work pair of the selection, when both rows are shown. */
static gboolean
arrow_points (SlTimelineView   *self,
              graphene_point_t *from,
              graphene_point_t *to)
{
  const SlLane *lane, *other;
  gsize other_index;
  graphene_rect_t a, b;
  SlEventRef oref;

  if (self->trace == NULL || self->selected.lane < 0)
    return FALSE;
  lane = sl_trace_get_lane (self->trace, self->selected.lane);
  if (self->selected.index >= lane->n_events || lane->kind == SL_LANE_NVTX
      || lane->kind == SL_LANE_OSRT || lane->kind == SL_LANE_SAMPLES)
    return FALSE;
  if (lane->events[self->selected.index].link == SL_NO_LINK
      || !sl_trace_resolve (self->trace, lane->events[self->selected.index].link, &other,
                            &other_index))
    return FALSE;
  oref = (SlEventRef) { (gint) other->index, other_index };
  if (lane->kind == SL_LANE_CUDA_API)
    {
      if (!event_rect (self, self->selected, &a) || !event_rect (self, oref, &b))
        return FALSE;
    }
  else if (!event_rect (self, oref, &a) || !event_rect (self, self->selected, &b))
    return FALSE;
  /* from the launch call's start to the GPU op's start */
  *from = GRAPHENE_POINT_INIT (a.origin.x, a.origin.y + a.size.height);
  *to = GRAPHENE_POINT_INIT (b.origin.x, b.origin.y);
  if (b.origin.y < a.origin.y)
    {
      from->y = a.origin.y;
      to->y = b.origin.y + b.size.height;
    }
  /* an end off screen is pinned to the edge of its own row, so the arrow visibly leaves the
   * launch call's row (a clipped curve from far away would seem to start in another row) */
  double right = gtk_widget_get_width (GTK_WIDGET (self));
  from->x = CLAMP (from->x, HEADER_W, MAX (right, HEADER_W));
  to->x = CLAMP (to->x, HEADER_W, MAX (right, HEADER_W));
  return TRUE;
}

static void
draw_arrow (SlTimelineView *self,
            GtkSnapshot    *snapshot,
            int             width,
            int             height)
{
  graphene_point_t a, b;
  cairo_t *cr;
  double ang, len = 9;

  if (!arrow_points (self, &a, &b))
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (HEADER_W, RULER_H,
                                                                 width - HEADER_W,
                                                                 height - RULER_H));
  gdk_cairo_set_source_rgba (cr, &self->pal.select);
  cairo_set_line_width (cr, 1.5);
  cairo_move_to (cr, a.x, a.y);
  cairo_curve_to (cr, a.x, (a.y + b.y) / 2, b.x, (a.y + b.y) / 2, b.x, b.y);
  cairo_stroke (cr);
  ang = atan2 (b.y - (a.y + b.y) / 2, 0.0001);
  cairo_move_to (cr, b.x, b.y);
  cairo_line_to (cr, b.x - len * cos (ang - 0.4), b.y - len * sin (ang - 0.4));
  cairo_line_to (cr, b.x - len * cos (ang + 0.4), b.y - len * sin (ang + 0.4));
  cairo_close_path (cr);
  cairo_fill (cr);
  cairo_arc (cr, a.x, a.y, 2.5, 0, 2 * G_PI);
  cairo_fill (cr);
  cairo_destroy (cr);
}

/* 1, 2 or 5 × 10^k ns, so that ticks are at least `min_px` apart. */
static SlTime
tick_step (double span,
           double width,
           double min_px)
{
  double want = span * min_px / MAX (width, 1);
  SlTime step = 1;

  while ((double) step < want)
    {
      if ((double) step * 2 >= want)
        return step * 2;
      if ((double) step * 5 >= want)
        return step * 5;
      step *= 10;
    }
  return step;
}

/* A tick label in the unit the step calls for, with just the decimals it needs. */
static void
format_tick (char   *buf,
             gsize   n,
             SlTime  t,
             SlTime  step,
             gboolean plus)
{
  static const struct { SlTime ns; const char *name; } units[] = {
    { 1000000000, "s" }, { 1000000, "ms" }, { 1000, "µs" }, { 1, "ns" } };
  guint u = 3;
  int dec;

  /* 200 µs steps read as 0.2 ms, 100 µs steps as 100 µs */
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (step * 5 >= units[i].ns)
      {
        u = i;
        break;
      }
  dec = 0;
  for (SlTime s = step; s < units[u].ns && dec < 9; s *= 10)
    dec++;
  g_snprintf (buf, n, "%s%.*f %s", plus && t >= 0 ? "+" : "", dec,
              (double) t / (double) units[u].ns, units[u].name);
}

static void
draw_ruler (SlTimelineView *self,
            GtkSnapshot    *snapshot,
            const Frame    *f,
            double          height)
{
  SlTime start, end, span = f->t1 - f->t0, step, first, base = 0;
  char buf[64];
  gboolean relative;
  GdkRGBA tc = self->pal.fg, dc = self->pal.dim_fg;

  sl_viewport_get_bounds (self->viewport, &start, &end);
  gtk_snapshot_append_color (snapshot, &self->pal.ruler_bg,
                             &GRAPHENE_RECT_INIT (0, 0, f->right, RULER_H));
  gtk_snapshot_append_color (snapshot, &self->pal.grid,
                             &GRAPHENE_RECT_INIT (0, RULER_H - 1, f->right, 1));
  step = tick_step ((double) span, f->width, 110);
  first = start + ((f->t0 - start) / step) * step;
  if (first < f->t0)
    first += step;
  /* far from the start with fine ticks, absolute labels get long: label offsets from a base */
  format_tick (buf, sizeof buf, f->t1 - start, step, FALSE);
  relative = strlen (buf) > 11;
  if (relative)
    base = first;

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (HEADER_W, 0, f->width, RULER_H));
  for (SlTime t = first - step; t < f->t1 + step; t += step)
    {
      double x = frame_x (f, t);
      gtk_snapshot_append_color (snapshot, &dc, &GRAPHENE_RECT_INIT (floor (x), RULER_H - 9, 1, 8));
      for (int k = 1; k < 5; k++)
        gtk_snapshot_append_color (snapshot, &self->pal.grid,
                                   &GRAPHENE_RECT_INIT (floor (x + k * step * f->scale / 5),
                                                        RULER_H - 5, 1, 4));
      if (relative)
        format_tick (buf, sizeof buf, t - base, step, TRUE);
      else
        format_tick (buf, sizeof buf, t - start, step, FALSE);
      /* a label the right edge would cut is left out, not ellipsized */
      if (x + 3 + 8 * strlen (buf) < f->right)
        draw_text (self, snapshot, SL_NO_STR, buf, x + 3, 3, step * f->scale - 6, &tc);
    }
  gtk_snapshot_pop (snapshot);

  /* the corner: visible span, and the base when labels are relative */
  gtk_snapshot_append_color (snapshot, &self->pal.header_bg,
                             &GRAPHENE_RECT_INIT (0, 0, HEADER_W, RULER_H));
  {
    g_autofree char *d = sl_format_duration (span);
    g_autofree char *line = NULL;
    if (relative)
      {
        g_autofree char *o = sl_format_offset (base - start);
        line = g_strdup_printf ("%s wide · base %s", d, o);
      }
    else
      line = g_strdup_printf ("%s wide", d);
    draw_text (self, snapshot, SL_NO_STR, line, 8, (RULER_H - self->text_h) / 2, HEADER_W - 12,
               &dc);
  }

  /* where the findings are: shaded marks along the ruler's foot, the one in focus stronger */
  if (self->ruler_marks != NULL && self->ruler_marks->len > 0)
    {
      GdkRGBA mark = self->pal.idle, strong = self->pal.focus;
      mark.alpha = 0.55f;
      gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (HEADER_W, 0, f->width, RULER_H));
      for (guint i = 0; i + 1 < self->ruler_marks->len; i += 2)
        {
          SlTime a = g_array_index (self->ruler_marks, SlTime, i);
          SlTime b = g_array_index (self->ruler_marks, SlTime, i + 1);
          double x0, x1;
          if (b < f->t0 || a > f->t1)
            continue;
          x0 = MAX (frame_x (f, a), HEADER_W - 1);
          x1 = MAX (MIN (frame_x (f, b), f->right + 1), x0 + 2);
          gtk_snapshot_append_color (snapshot, &mark,
                                     &GRAPHENE_RECT_INIT (x0, RULER_H - 6, x1 - x0, 5));
        }
      if (self->focus_t1 > self->focus_t0 && self->focus_t1 >= f->t0 && self->focus_t0 <= f->t1)
        {
          double x0 = MAX (frame_x (f, self->focus_t0), HEADER_W - 1);
          double x1 = MAX (MIN (frame_x (f, self->focus_t1), f->right + 1), x0 + 2);
          gtk_snapshot_append_color (snapshot, &strong,
                                     &GRAPHENE_RECT_INIT (x0, RULER_H - 6, x1 - x0, 5));
        }
      gtk_snapshot_pop (snapshot);
    }

  /* the selected range, with its duration */
  {
    SlTime s0, s1;
    if (sl_viewport_get_selection (self->viewport, &s0, &s1))
      {
        double x0 = MAX (frame_x (f, s0), HEADER_W), x1 = MIN (frame_x (f, s1), f->right);
        if (x1 > x0 - 1)
          {
            g_autofree char *d = sl_format_duration (s1 - s0);
            GdkRGBA strong = self->pal.range;
            int w;
            strong.alpha = MIN (1.0f, strong.alpha * 4);
            gtk_snapshot_append_color (snapshot, &strong,
                                       &GRAPHENE_RECT_INIT (x0, 0, MAX (x1 - x0, 1), RULER_H));
            gtk_snapshot_append_color (snapshot, &self->pal.range,
                                       &GRAPHENE_RECT_INIT (x0, RULER_H, MAX (x1 - x0, 1),
                                                            height - RULER_H));
            pango_layout_set_width (self->layout, -1);
            pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_NONE);
            pango_layout_set_text (self->layout, d, -1);
            pango_layout_get_pixel_size (self->layout, &w, NULL);
            double tx = CLAMP ((x0 + x1) / 2 - w / 2.0, HEADER_W + 2, f->right - w - 2);
            gtk_snapshot_append_color (snapshot, &self->pal.ruler_bg,
                                       &GRAPHENE_RECT_INIT (tx - 3, RULER_H - self->text_h - 4,
                                                            w + 6, self->text_h + 2));
            draw_text (self, snapshot, SL_NO_STR, d, tx, RULER_H - self->text_h - 3, w + 1, &tc);
          }
      }
  }
}

static void
draw_headers (SlTimelineView *self,
              GtkSnapshot    *snapshot,
              double          height)
{
  double sy = scroll_y (self);

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, RULER_H, HEADER_W, height - RULER_H));
  gtk_snapshot_append_color (snapshot, &self->pal.header_bg,
                             &GRAPHENE_RECT_INIT (0, RULER_H, HEADER_W, height - RULER_H));
  for (guint i = 0; i < self->rows->len; i++)
    {
      const Row *r = row_get (self, i);
      double y = RULER_H + r->y - sy, x = 6 + r->level * INDENT;
      GdkRGBA *tc = r->kind == ROW_GROUP ? &self->pal.fg : &self->pal.dim_fg;

      if (y + r->h < RULER_H)
        continue;
      if (y > height)
        break;
      if (r->kind == ROW_LANE && self->focus_lanes != NULL && self->focus_lanes[r->lane])
        {
          GdkRGBA tint = self->pal.focus;
          tint.alpha = 0.22f;
          gtk_snapshot_append_color (snapshot, &tint, &GRAPHENE_RECT_INIT (0, y, HEADER_W, r->h));
          tc = &self->pal.fg;
        }
      if (r->kind == ROW_GROUP)
        {
          gboolean collapsed = g_hash_table_contains (self->collapsed, r->key);
          gtk_snapshot_append_color (snapshot, &self->pal.group_bg,
                                     &GRAPHENE_RECT_INIT (0, y, HEADER_W, r->h));
          draw_text (self, snapshot, SL_NO_STR, collapsed ? "▸" : "▾", x,
                     y + (r->h - self->text_h) / 2, 12, tc);
          x += 12;
        }
      draw_text (self, snapshot, SL_NO_STR, r->label, x, y + (r->h - self->text_h) / 2,
                 HEADER_W - x - 6, tc);
      gtk_snapshot_append_color (snapshot, &self->pal.grid,
                                 &GRAPHENE_RECT_INIT (0, y + r->h - 1, HEADER_W, 1));
    }
  gtk_snapshot_append_color (snapshot, &self->pal.grid,
                             &GRAPHENE_RECT_INIT (HEADER_W - 1, RULER_H, 1, height - RULER_H));
  gtk_snapshot_pop (snapshot);
}

/* The grid of a frame: a line every `*step` ns from `*first` on, as the ruler's ticks. */
static void
grid_ticks (SlTimelineView *self,
            const Frame    *f,
            SlTime         *first,
            SlTime         *step)
{
  SlTime start, end;

  *step = tick_step ((double) (f->t1 - f->t0), f->width, 110);
  sl_viewport_get_bounds (self->viewport, &start, &end);
  *first = start + ((f->t0 - start) / *step) * *step - *step;
}

/*
 * What a row shows under its events, one row of opaque pixels (xRGB) of the lanes area: the row's
 * background (`alt`: the other of the alternating two; `tint`: a finding's lane), the grid and a
 * finding's band, as the frame draws them beneath.  Made once a frame for each of the four kinds
 * of row (see runs_emit).
 */
static const guint32 *
frame_under (SlTimelineView *self,
             const Frame    *f,
             gboolean        alt,
             gboolean        tint)
{
  guint n = (guint) ceil (f->width), kind = (alt ? 1 : 0) | (tint ? 2 : 0);
  guint32 *px, base;
  float bg[4] = { 0, 0, 0, 0 };
  SlTime first, step;

  if (self->under_n != n)
    {
      g_free (self->under);
      self->under = g_new (guint32, 4 * (gsize) MAX (n, 1));
      self->under_n = n;
      self->under_ok = 0;
    }
  px = self->under + (gsize) kind * n;
  if (self->under_ok & (1u << kind))
    return px;

  pixel_over (bg, &self->pal.bg, 1);   /* the widget's, under the row's own */
  pixel_over (bg, alt ? &self->pal.bg_alt : &self->pal.bg, 1);
  if (tint)
    {
      GdkRGBA c = self->pal.focus;
      c.alpha = 0.12f;
      pixel_over (bg, &c, 1);
    }
  base = pixel_pack (bg) | 0xFF000000u;
  for (guint c = 0; c < n; c++)
    px[c] = base;
  grid_ticks (self, f, &first, &step);
  for (SlTime t = first; t < f->t1 + step; t += step)
    {
      double x = floor (frame_x (f, t)) - HEADER_W;
      if (x >= 0 && x < n)
        {
          float p[4] = { bg[0], bg[1], bg[2], bg[3] };
          pixel_over (p, &self->pal.grid, 1);
          px[(guint) x] = pixel_pack (p) | 0xFF000000u;
        }
    }
  if (self->focus_t1 > self->focus_t0)
    {
      GdkRGBA band = self->pal.focus;
      double x0 = MAX (frame_x (f, self->focus_t0), HEADER_W - 1);
      double x1 = MIN (frame_x (f, self->focus_t1), f->right + 1);
      band.alpha = 0.07f;
      if (x1 > x0)
        {
          x1 = MAX (x1, x0 + 1);
          for (gint c = MAX ((gint) floor (x0 - HEADER_W), 0);
               c < (gint) MIN (ceil (x1 - HEADER_W), (double) n); c++)
            {
              float cover = (float) (MIN (x1, HEADER_W + c + 1.0) - MAX (x0, HEADER_W + c));
              float p[4];
              p[0] = ((px[c] >> 16) & 0xFF) / 255.f;
              p[1] = ((px[c] >> 8) & 0xFF) / 255.f;
              p[2] = (px[c] & 0xFF) / 255.f;
              p[3] = 1;
              pixel_over (p, &band, cover);
              px[c] = pixel_pack (p) | 0xFF000000u;
            }
        }
    }
  self->under_ok |= 1u << kind;
  return px;
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
  gboolean highlighting = self->highlight_name != SL_NO_STR && self->highlight.lanes != NULL;

  palette_update (self);
  layout_ensure (self);
  gtk_snapshot_append_color (snapshot, &self->pal.bg, &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (self->trace == NULL || width <= HEADER_W + 1)
    {
      draw_text (self, snapshot, SL_NO_STR, "No trace loaded", 16, 16, MAX (width - 32, 0),
                 &self->pal.dim_fg);
      return;
    }

  sl_viewport_get_visible (self->viewport, &f.t0, &f.t1);
  f.width = width - HEADER_W;
  f.right = width;
  f.scale = f.width / (double) MAX (f.t1 - f.t0, 1);

  /* the level of detail and utilization start on a second thread; headers and ruler (drawn on
   * top at the end) meanwhile */
  self->under_ok = 0;
  frame_prefetch_start (self, &f, sy, height, &job);
  {
    GtkSnapshot *top = gtk_snapshot_new ();
    draw_headers (self, top, height);
    draw_ruler (self, top, &f, height);
    top_node = gtk_snapshot_free_to_node (top);
  }
  frame_prefetch_finish (self, &job);

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
    grid_ticks (self, &f, &first, &step);
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
          draw_lane_row (self, snapshot, &f, lane, y, r->h, highlighting,
                         frame_under (self, &f, (i & 1) != 0,
                                      self->focus_lanes != NULL && self->focus_lanes[r->lane]));
          if (highlighting && self->highlight.lanes[r->lane] != NULL)
            draw_lane_marks (self, &batch, &f, lane, self->highlight.lanes[r->lane], y, r->h,
                             NULL);
          if (self->search.lanes != NULL && self->search.lanes[r->lane] != NULL)
            draw_lane_marks (self, &batch, &f, lane, self->search.lanes[r->lane], y, r->h,
                             &self->pal.search);
          if (self->focus.lanes != NULL && self->focus.lanes[r->lane] != NULL)
            draw_lane_marks (self, &batch, &f, lane, self->focus.lanes[r->lane], y, r->h,
                             &self->pal.focus);
          batch_flush (&batch);
          if (self->util_overlay && lane->gpu >= 0)
            draw_idle_shade (self, &batch, &f, lane->gpu, y, r->h);
        }
      else if (r->kind == ROW_GPU_ALL)
        {
          GArray *lanes = self->gpu_lanes[r->gpu];
          const GpuRow *g = &self->gpu_rows[r->gpu];
          if (!gpu_row_fresh (self, r->gpu, &f, (guint) ceil (f.width)))
            gpu_row_runs (self, &f, r->gpu, columns_get (self, (guint) ceil (f.width)));
          runs_emit (self, snapshot, g->runs, g->n_runs, (guint) ceil (f.width), y + 1, r->h - 2,
                     highlighting, frame_under (self, &f, (i & 1) != 0, FALSE));
          for (guint k = 0; k < lanes->len; k++)
            {
              const SlLane *lane = sl_trace_get_lane (self->trace, g_array_index (lanes, guint, k));
              if (highlighting && self->highlight.lanes[lane->index] != NULL)
                draw_lane_marks (self, &batch, &f, lane, self->highlight.lanes[lane->index], y,
                                 r->h, NULL);
              batch_flush (&batch);
            }
          if (self->util_overlay)
            draw_idle_shade (self, &batch, &f, r->gpu, y, r->h);
        }
      else if (r->kind == ROW_GPU_UTIL)
        draw_util_texture (self, snapshot, &f, r->gpu, y, r->h);
      else
        gtk_snapshot_append_color (snapshot, &self->pal.grid,
                                   &GRAPHENE_RECT_INIT (HEADER_W, y + r->h - 1, f.width, 1));
    }
  batch_flush (&batch);

  /* the selection on top */
  {
    graphene_rect_t area;
    if (event_rect (self, self->selected, &area))
      {
        area.origin.x = MAX (area.origin.x, HEADER_W - 3);
        area.size.width = MIN (area.size.width, width + 6 - area.origin.x);
        draw_outline (snapshot, &area, &self->pal.select, 2);
      }
  }
  draw_arrow (self, snapshot, width, height);
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

/* ------------------------------------------------------------------------------------------- */
/* Hit testing, tooltip                                                                        */

typedef struct
{
  SlEventRef ref;     /* the event, or the first event of a fold */
  SlLodItem  item;
} Hit;

static gboolean
hit_lane (SlTimelineView *self,
          const SlLane   *lane,
          double          x,
          Hit            *hit)
{
  SlTime t0, t1;
  double width = lanes_width (self), best = 1e9;
  gboolean found = FALSE;
  GArray *lod;

  /* every item, folds included, of the pixels around x: on the frame's pixel grid */
  sl_viewport_get_visible (self->viewport, &t0, &t1);
  {
    double ns_per_px = (double) (t1 - t0) / ceil (width);
    double c0 = MAX (floor (x - HEADER_W) - 4, 0);
    SlTime h0 = t0 + (SlTime) (c0 * ns_per_px);
    sl_lane_lod (lane, h0, h0 + (SlTime) (9 * ns_per_px) + 1, 9, MIN_PX, self->lod);
  }
  lod = self->lod;
  for (guint k = 0; k < lod->len; k++)
    {
      const SlLodItem *it = &g_array_index (lod, SlLodItem, k);
      double x0 = time_to_x (self, it->start), x1 = MAX (time_to_x (self, it->end), x0 + 1);
      double d = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
      /* an exact hit wins; within 2 px the nearest */
      if (d <= 2 && d < best)
        {
          best = d;
          hit->ref = (SlEventRef) { (gint) lane->index, it->first };
          hit->item = *it;
          found = TRUE;
          if (d == 0 && it->count == 1)
            break;
        }
    }
  return found;
}

static gboolean
hit_test (SlTimelineView *self,
          double          x,
          double          y,
          Hit            *hit)
{
  gint ri;
  const Row *r;

  if (self->trace == NULL || x < HEADER_W)
    return FALSE;
  ri = row_at (self, y);
  if (ri < 0)
    return FALSE;
  r = row_get (self, ri);
  if (r->kind == ROW_LANE)
    return hit_lane (self, sl_trace_get_lane (self->trace, r->lane), x, hit);
  if (r->kind == ROW_GPU_ALL)
    {
      GArray *lanes = self->gpu_lanes[r->gpu];
      for (guint k = 0; k < lanes->len; k++)
        if (hit_lane (self, sl_trace_get_lane (self->trace, g_array_index (lanes, guint, k)), x,
                      hit))
          return TRUE;
    }
  return FALSE;
}

static gboolean
query_tooltip_cb (GtkWidget  *widget,
                  int         x,
                  int         y,
                  gboolean    keyboard,
                  GtkTooltip *tooltip,
                  gpointer    user_data)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);
  SlTime start;
  Hit hit;
  gint ri;

  (void) keyboard;
  (void) user_data;
  if (self->trace == NULL)
    return FALSE;
  start = sl_trace_get_start (self->trace);
  ri = row_at (self, y);
  if (ri >= 0 && x >= HEADER_W && row_get (self, ri)->kind == ROW_GPU_UTIL)
    {
      UtilCache *u = util_current (self, row_get (self, ri)->gpu);
      guint col = (guint) (x - HEADER_W);
      g_autofree char *text = NULL;
      if (col >= u->n)
        return FALSE;
      text = g_strdup_printf ("GPU utilization here: kernels %.1f%%, any work %.1f%%",
                              100 * u->kernels[col], 100 * u->any[col]);
      gtk_tooltip_set_text (tooltip, text);
      return TRUE;
    }
  if (!hit_test (self, x, y, &hit))
    return FALSE;
  {
    const SlLane *lane = sl_trace_get_lane (self->trace, hit.ref.lane);
    const SlEvent *ev = &lane->events[hit.ref.index];
    g_autofree char *off = sl_format_offset (hit.item.start - start);
    g_autofree char *text = NULL;

    if (hit.item.count == 1)
      {
        g_autofree char *dur = sl_format_duration (ev->end - ev->start);
        text = g_strdup_printf ("%s\nDuration %s\nStart %s", sl_trace_str (self->trace, ev->name),
                                dur, off);
      }
    else
      {
        g_autofree char *n = sl_format_int (hit.item.count);
        g_autofree char *busy = sl_format_duration (hit.item.busy);
        g_autofree char *span = sl_format_duration (hit.item.end - hit.item.start);
        text = g_strdup_printf ("%s events, busy %s\nover %s from %s\n(zoom in to see them)", n,
                                busy, span, off);
      }
    gtk_tooltip_set_text (tooltip, text);
  }
  return TRUE;
}

/* ------------------------------------------------------------------------------------------- */
/* Navigation                                                                                  */

static SlTime
zoom_anchor (SlTimelineView *self)
{
  SlTime t0, t1;

  if (self->pointer_inside && self->pointer_x >= HEADER_W)
    return x_to_time (self, self->pointer_x);
  sl_viewport_get_visible (self->viewport, &t0, &t1);
  return t0 + (t1 - t0) / 2;
}

static void
fit_range (SlTimelineView *self,
           SlTime          a,
           SlTime          b)
{
  SlTime pad = MAX ((b - a) / 10, 50);

  sl_viewport_set_visible (self->viewport, a - pad, b + pad, TRUE);
}

/* Scrolls vertically so that a row is on screen, expanding the groups that hide it. */
static void
reveal_lane (SlTimelineView *self,
             gint            lane)
{
  const Row *r;
  double page, value;

  if (self->lane_row[lane] < 0)
    {
      /* expand every group: simpler than finding its ancestors, and rare */
      const SlLane *l = sl_trace_get_lane (self->trace, lane);
      GHashTableIter it;
      gpointer key;
      g_hash_table_iter_init (&it, self->collapsed);
      while (g_hash_table_iter_next (&it, &key, NULL))
        {
          const char *k = key;
          gboolean mine = l->gpu >= 0 ? (k[0] == 'g' || k[0] == 'c' || k[0] == 's')
                                      : (k[0] == 'p' || k[0] == 't');
          if (mine)
            g_hash_table_iter_remove (&it);
        }
      rows_rebuild (self);
    }
  if (self->lane_row[lane] < 0 || self->vadjustment == NULL)
    return;
  r = row_get (self, self->lane_row[lane]);
  page = gtk_adjustment_get_page_size (self->vadjustment);
  value = gtk_adjustment_get_value (self->vadjustment);
  if (r->y < value || r->y + r->h > value + page)
    gtk_adjustment_set_value (self->vadjustment, MAX (r->y - page / 3, 0));
}

static void
select_ref (SlTimelineView *self,
            SlEventRef      ref,
            gboolean        emit)
{
  self->selected = ref;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (emit)
    g_signal_emit (self, signals[EVENT_SELECTED], 0, &self->selected);
}

static void
action_zoom_cb (GtkWidget  *widget,
                const char *name,
                GVariant   *param)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);

  (void) param;
  sl_viewport_zoom (self->viewport, g_str_equal (name, "timeline.zoom-in") ? ZOOM_STEP
                                                                           : 1 / ZOOM_STEP,
                    zoom_anchor (self));
}

static void
action_pan_cb (GtkWidget  *widget,
               const char *name,
               GVariant   *param)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);
  SlTime t0, t1, d;

  (void) param;
  sl_viewport_get_visible (self->viewport, &t0, &t1);
  d = (SlTime) ((t1 - t0) * PAN_STEP);
  sl_viewport_pan (self->viewport, g_str_equal (name, "timeline.pan-left") ? -d : d);
}

static void
action_fit_cb (GtkWidget  *widget,
               const char *name,
               GVariant   *param)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);
  SlTime s0, s1;

  (void) name;
  (void) param;
  if (self->trace != NULL && self->selected.lane >= 0)
    {
      const SlEvent *ev = &sl_trace_get_lane (self->trace, self->selected.lane)
                             ->events[self->selected.index];
      fit_range (self, ev->start, ev->end);
    }
  else if (sl_viewport_get_selection (self->viewport, &s0, &s1))
    sl_viewport_set_visible (self->viewport, s0, s1, TRUE);
}

static void
action_misc_cb (GtkWidget  *widget,
                const char *name,
                GVariant   *param)
{
  SlTimelineView *self = SL_TIMELINE_VIEW (widget);

  (void) param;
  if (g_str_equal (name, "timeline.show-all"))
    sl_viewport_show_all (self->viewport);
  else if (g_str_equal (name, "timeline.back"))
    sl_viewport_back (self->viewport);
  else if (g_str_equal (name, "timeline.forward"))
    sl_viewport_forward (self->viewport);
  else if (g_str_equal (name, "timeline.clear"))
    {
      sl_viewport_clear_selection (self->viewport);
      if (self->selected.lane >= 0)
        select_ref (self, SL_EVENT_REF_NONE, TRUE);
    }
}

static gboolean
scroll_cb (GtkEventControllerScroll *controller,
           double                    dx,
           double                    dy,
           SlTimelineView           *self)
{
  GdkModifierType mods = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (controller));
  SlTime t0, t1;

  if (self->trace == NULL)
    return FALSE;
  sl_viewport_get_visible (self->viewport, &t0, &t1);
  if (mods & GDK_CONTROL_MASK)
    {
      SlTime anchor = self->pointer_x >= HEADER_W ? x_to_time (self, self->pointer_x)
                                                  : t0 + (t1 - t0) / 2;
      sl_viewport_zoom (self->viewport, pow (ZOOM_STEP, -dy), anchor);
    }
  else if (mods & GDK_SHIFT_MASK)
    sl_viewport_pan (self->viewport, (SlTime) ((dy + dx) * (t1 - t0) * 0.1));
  else
    {
      if (dx != 0)
        sl_viewport_pan (self->viewport, (SlTime) (dx * (t1 - t0) * 0.1));
      if (dy != 0 && self->vadjustment != NULL)
        gtk_adjustment_set_value (self->vadjustment,
                                  gtk_adjustment_get_value (self->vadjustment) + dy * 3 * ROW_LANE_H);
    }
  return TRUE;
}

static void
motion_cb (GtkEventControllerMotion *controller,
           double                    x,
           double                    y,
           SlTimelineView           *self)
{
  (void) controller;
  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;
}

static void
leave_cb (GtkEventControllerMotion *controller,
          SlTimelineView           *self)
{
  (void) controller;
  self->pointer_inside = FALSE;
}

static void
drag_begin_cb (GtkGestureDrag *gesture,
               double          x,
               double          y,
               SlTimelineView *self)
{
  GdkModifierType mods = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (gesture));

  gtk_widget_grab_focus (GTK_WIDGET (self));
  self->pointer_x = x;
  self->pointer_y = y;
  sl_viewport_get_visible (self->viewport, &self->drag_t0, &self->drag_t1);
  self->drag_vvalue = scroll_y (self);
  if (self->trace == NULL)
    self->drag_mode = DRAG_NONE;
  else if (x < HEADER_W)
    self->drag_mode = DRAG_HEADER;
  else if (y < RULER_H || (mods & GDK_SHIFT_MASK))
    {
      self->drag_mode = DRAG_RANGE;
      self->drag_anchor = x_to_time (self, x);
    }
  else
    self->drag_mode = DRAG_PAN;
}

static void
drag_update_cb (GtkGestureDrag *gesture,
                double          dx,
                double          dy,
                SlTimelineView *self)
{
  double sx, sy;

  gtk_gesture_drag_get_start_point (gesture, &sx, &sy);
  if (self->drag_mode == DRAG_PAN)
    {
      SlTime shift = (SlTime) (dx * (self->drag_t1 - self->drag_t0) / lanes_width (self));
      sl_viewport_set_visible (self->viewport, self->drag_t0 - shift, self->drag_t1 - shift,
                               FALSE);
      if (self->vadjustment != NULL)
        gtk_adjustment_set_value (self->vadjustment, self->drag_vvalue - dy);
    }
  else if (self->drag_mode == DRAG_RANGE && fabs (dx) >= 2)
    {
      double w = lanes_width (self);
      SlTime t = self->drag_t0 + (SlTime) ((CLAMP (sx + dx, HEADER_W, HEADER_W + w) - HEADER_W)
                                           * (self->drag_t1 - self->drag_t0) / w);
      sl_viewport_set_selection (self->viewport, self->drag_anchor, t);
    }
}

static void
drag_end_cb (GtkGestureDrag *gesture,
             double          dx,
             double          dy,
             SlTimelineView *self)
{
  double sx, sy;
  int mode = self->drag_mode;

  self->drag_mode = DRAG_NONE;
  gtk_gesture_drag_get_start_point (gesture, &sx, &sy);
  if (fabs (dx) > 3 || fabs (dy) > 3 || self->trace == NULL)
    return;
  /* a click, not a drag */
  if (mode == DRAG_HEADER)
    {
      gint ri = row_at (self, sy);
      if (ri >= 0 && row_get (self, ri)->kind == ROW_GROUP)
        {
          const char *key = row_get (self, ri)->key;
          if (!g_hash_table_remove (self->collapsed, key))
            g_hash_table_add (self->collapsed, g_strdup (key));
          rows_rebuild (self);
          gtk_widget_queue_draw (GTK_WIDGET (self));
        }
    }
  else if (mode == DRAG_PAN)
    {
      Hit hit;
      if (hit_test (self, sx, sy, &hit))
        {
          if (hit.item.count == 1)
            select_ref (self, hit.ref, TRUE);
          else
            /* a fold stands for many events: clicking it zooms into them */
            fit_range (self, hit.item.start, hit.item.end);
        }
      else if (self->selected.lane >= 0)
        select_ref (self, SL_EVENT_REF_NONE, TRUE);
    }
}

static void
click_pressed_cb (GtkGestureClick *gesture,
                  int              n_press,
                  double           x,
                  double           y,
                  SlTimelineView  *self)
{
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));
  Hit hit;

  if (button == 8)
    sl_viewport_back (self->viewport);
  else if (button == 9)
    sl_viewport_forward (self->viewport);
  else if (button == GDK_BUTTON_PRIMARY && n_press == 2 && hit_test (self, x, y, &hit))
    {
      fit_range (self, hit.item.start, hit.item.end);
      if (hit.item.count == 1)
        {
          select_ref (self, hit.ref, TRUE);
          g_signal_emit (self, signals[EVENT_ACTIVATED], 0, &self->selected);
        }
    }
}

/* ------------------------------------------------------------------------------------------- */
/* GObject                                                                                     */

static void
viewport_changed_cb (SlViewport     *viewport,
                     GParamSpec     *pspec,
                     SlTimelineView *self)
{
  (void) viewport;
  (void) pspec;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
vadj_value_changed_cb (GtkAdjustment  *adj,
                       SlTimelineView *self)
{
  (void) adj;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
set_vadjustment (SlTimelineView *self,
                 GtkAdjustment  *adj)
{
  if (adj == NULL)
    adj = gtk_adjustment_new (0, 0, 0, 0, 0, 0);
  if (adj == self->vadjustment)
    return;
  if (self->vadjustment != NULL)
    {
      g_signal_handler_disconnect (self->vadjustment, self->vadj_changed_id);
      g_object_unref (self->vadjustment);
    }
  self->vadjustment = g_object_ref_sink (adj);
  self->vadj_changed_id = g_signal_connect (adj, "value-changed",
                                            G_CALLBACK (vadj_value_changed_cb), self);
  configure_vadjustment (self);
  g_object_notify (G_OBJECT (self), "vadjustment");
}

static void
sl_timeline_view_size_allocate (GtkWidget *widget,
                                int        width,
                                int        height,
                                int        baseline)
{
  (void) width;
  (void) height;
  (void) baseline;
  configure_vadjustment (SL_TIMELINE_VIEW (widget));
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

  sl_timeline_view_set_trace (self, NULL);
  worker_stop (self);
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
  g_array_unref (self->matches);
  g_clear_pointer (&self->ruler_marks, g_array_unref);
  g_hash_table_unref (self->collapsed);
  g_hash_table_unref (self->text_w);
  g_free (self->sync_names);
  g_free (self->lane_row);
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
    case PROP_VADJUSTMENT: set_vadjustment (self, g_value_get_object (value)); break;
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
  static const struct { const char *name; GtkWidgetActionActivateFunc cb; } actions[] = {
    { "timeline.zoom-in", action_zoom_cb },     { "timeline.zoom-out", action_zoom_cb },
    { "timeline.pan-left", action_pan_cb },     { "timeline.pan-right", action_pan_cb },
    { "timeline.fit", action_fit_cb },          { "timeline.show-all", action_misc_cb },
    { "timeline.back", action_misc_cb },        { "timeline.forward", action_misc_cb },
    { "timeline.clear", action_misc_cb },
  };
  static const struct { guint key; GdkModifierType mods; const char *action; } bindings[] = {
    { GDK_KEY_w, 0, "timeline.zoom-in" },       { GDK_KEY_W, GDK_SHIFT_MASK, "timeline.zoom-in" },
    { GDK_KEY_s, 0, "timeline.zoom-out" },      { GDK_KEY_S, GDK_SHIFT_MASK, "timeline.zoom-out" },
    { GDK_KEY_a, 0, "timeline.pan-left" },      { GDK_KEY_A, GDK_SHIFT_MASK, "timeline.pan-left" },
    { GDK_KEY_d, 0, "timeline.pan-right" },     { GDK_KEY_D, GDK_SHIFT_MASK, "timeline.pan-right" },
    { GDK_KEY_f, 0, "timeline.fit" },           { GDK_KEY_F, GDK_SHIFT_MASK, "timeline.fit" },
    { GDK_KEY_0, 0, "timeline.show-all" },      { GDK_KEY_KP_0, 0, "timeline.show-all" },
    { GDK_KEY_Left, GDK_ALT_MASK, "timeline.back" },
    { GDK_KEY_Right, GDK_ALT_MASK, "timeline.forward" },
    { GDK_KEY_Back, 0, "timeline.back" },       { GDK_KEY_Forward, 0, "timeline.forward" },
    { GDK_KEY_Escape, 0, "timeline.clear" },
  };

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

  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    gtk_widget_class_install_action (widget_class, actions[i].name, NULL, actions[i].cb);
  for (guint i = 0; i < G_N_ELEMENTS (bindings); i++)
    gtk_widget_class_add_binding_action (widget_class, bindings[i].key, bindings[i].mods,
                                         bindings[i].action, NULL);
  gtk_widget_class_set_css_name (widget_class, "sltimeline");
}

static void
sl_timeline_view_init (SlTimelineView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GtkEventController *ec;
  GtkGesture *g;

  self->rows = g_array_new (FALSE, FALSE, sizeof (Row));
  g_array_set_clear_func (self->rows, row_clear);
  self->lod = g_array_new (FALSE, FALSE, sizeof (SlLodItem));
  self->matches = g_array_new (FALSE, FALSE, sizeof (SlEventRef));
  self->collapsed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->text_w = g_hash_table_new (NULL, NULL);
  self->selected = SL_EVENT_REF_NONE;
  self->colors_epoch = 1;   /* a lane's runs_epoch of 0 is "none" */
  self->highlight_name = SL_NO_STR;
  self->util_threshold = 0.8;
  self->viewport = sl_viewport_new ();
  self->viewport_changed_id = g_signal_connect (self->viewport, "notify::visible",
                                                G_CALLBACK (viewport_changed_cb), self);
  self->selection_changed_id = g_signal_connect (self->viewport, "notify::selection",
                                                 G_CALLBACK (viewport_changed_cb), self);
  set_vadjustment (self, NULL);

  gtk_widget_set_focusable (widget, TRUE);
  gtk_widget_set_focus_on_click (widget, TRUE);
  gtk_widget_set_has_tooltip (widget, TRUE);
  gtk_widget_set_overflow (widget, GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_hexpand (widget, TRUE);
  gtk_widget_set_vexpand (widget, TRUE);
  g_signal_connect (widget, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);

  ec = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (ec, "scroll", G_CALLBACK (scroll_cb), self);
  gtk_widget_add_controller (widget, ec);

  ec = gtk_event_controller_motion_new ();
  g_signal_connect (ec, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect (ec, "enter", G_CALLBACK (motion_cb), self);
  g_signal_connect (ec, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (widget, ec);

  g = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (g), GDK_BUTTON_PRIMARY);
  g_signal_connect (g, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect (g, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect (g, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (g));

  g = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (g), 0);
  g_signal_connect (g, "pressed", G_CALLBACK (click_pressed_cb), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (g));
}

/* ------------------------------------------------------------------------------------------- */
/* Public API                                                                                  */

static gint
cmp_guint32 (gconstpointer a,
             gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

static void
search_clear (SlTimelineView *self)
{
  markset_clear (&self->search);
  g_array_set_size (self->matches, 0);
  self->n_search = 0;
}

static void
focus_clear (SlTimelineView *self)
{
  markset_clear (&self->focus);
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
          markset_add (&self->focus, events[i].lane, (guint32) events[i].index);
      /* marks are drawn in order of start */
      for (guint l = 0; l < total; l++)
        if (self->focus.lanes[l] != NULL)
          {
            const SlLane *lane = sl_trace_get_lane (self->trace, l);
            GArray *m = self->focus.lanes[l];
            guint32 *idx = (guint32 *) m->data;
            /* indexes sort as starts do (lanes are sorted by start); drop repeats */
            g_array_sort (m, cmp_guint32);
            guint out = 0;
            for (guint k = 0; k < m->len; k++)
              if (out == 0 || idx[out - 1] != idx[k])
                idx[out++] = idx[k];
            g_array_set_size (m, out);
            (void) lane;
          }
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
sl_timeline_view_set_ruler_marks (SlTimelineView *self,
                                  const SlTime   *ranges,
                                  guint           n_ranges)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));
  if (self->ruler_marks == NULL)
    self->ruler_marks = g_array_new (FALSE, FALSE, sizeof (SlTime));
  g_array_set_size (self->ruler_marks, 0);
  if (ranges != NULL)
    g_array_append_vals (self->ruler_marks, ranges, 2 * n_ranges);
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

void
sl_timeline_view_set_trace (SlTimelineView *self,
                            SlTrace        *trace)
{
  g_return_if_fail (SL_IS_TIMELINE_VIEW (self));

  if (trace == self->trace)
    return;
  if (trace != NULL)
    sl_trace_ref (trace);
  markset_clear (&self->highlight);
  search_clear (self);
  focus_clear (self);
  if (self->ruler_marks != NULL)
    g_array_set_size (self->ruler_marks, 0);
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
  g_clear_pointer (&self->gpu_lanes, g_free);
  g_clear_pointer (&self->util, g_free);
  g_clear_pointer (&self->gpu_rows, g_free);
  self->n_gpus = 0;
  g_clear_pointer (&self->trace, sl_trace_unref);
  g_clear_pointer (&self->sync_names, g_free);
  self->n_sync_names = 0;
  g_hash_table_remove_all (self->text_w);
  g_hash_table_remove_all (self->collapsed);
  self->selected = SL_EVENT_REF_NONE;
  self->highlight_name = SL_NO_STR;
  self->trace = trace;

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
      rows_rebuild (self);
      if (self->vadjustment != NULL)
        gtk_adjustment_set_value (self->vadjustment, 0);
      sl_viewport_clear_selection (self->viewport);
      sl_viewport_set_bounds (self->viewport, sl_trace_get_start (trace), sl_trace_get_end (trace));
    }
  else
    rows_rebuild (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
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
      reveal_lane (self, ref.lane);
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
  markset_clear (&self->highlight);
  if (self->trace != NULL && name != SL_NO_STR)
    {
      /* one O(n) pass per change; frames then draw only the marks on screen */
      guint n_lanes = sl_trace_get_n_lanes (self->trace);
      self->highlight.n_lanes = n_lanes;
      self->highlight.lanes = g_new0 (GArray *, MAX (n_lanes, 1));
      for (guint l = 0; l < n_lanes; l++)
        {
          const SlLane *lane = sl_trace_get_lane (self->trace, l);
          for (gsize i = 0; i < lane->n_events; i++)
            if (lane->events[i].name == name)
              markset_add (&self->highlight, l, (guint32) i);
        }
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static int
match_cmp (gconstpointer a,
           gconstpointer b,
           gpointer      user_data)
{
  SlTrace *trace = user_data;
  const SlEventRef *x = a, *y = b;
  SlTime tx = sl_trace_get_lane (trace, x->lane)->events[x->index].start;
  SlTime ty = sl_trace_get_lane (trace, y->lane)->events[y->index].start;

  if (tx != ty)
    return tx < ty ? -1 : 1;
  if (x->lane != y->lane)
    return x->lane < y->lane ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

gsize
sl_timeline_view_set_search (SlTimelineView *self,
                             const char     *needle)
{
  g_autofree char *folded = NULL;
  g_autoptr (GHashTable) verdict = NULL;
  guint n_lanes;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), 0);

  search_clear (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (self->trace == NULL || needle == NULL || *needle == '\0')
    return 0;
  folded = g_utf8_casefold (needle, -1);
  /* names repeat: decide each string id once (id → 1 match, 2 no match) */
  verdict = g_hash_table_new (NULL, NULL);
  n_lanes = sl_trace_get_n_lanes (self->trace);
  self->search.n_lanes = n_lanes;
  self->search.lanes = g_new0 (GArray *, MAX (n_lanes, 1));
  for (guint l = 0; l < n_lanes; l++)
    {
      const SlLane *lane = sl_trace_get_lane (self->trace, l);
      guint32 last_name = SL_NO_STR;
      gboolean last = FALSE;
      for (gsize i = 0; i < lane->n_events; i++)
        {
          guint32 name = lane->events[i].name;
          if (i == 0 || name != last_name)
            {
              guint v = GPOINTER_TO_UINT (g_hash_table_lookup (verdict, GUINT_TO_POINTER (name)));
              if (v == 0)
                {
                  g_autofree char *hay = g_utf8_casefold (sl_trace_str (self->trace, name), -1);
                  v = strstr (hay, folded) != NULL ? 1 : 2;
                  g_hash_table_insert (verdict, GUINT_TO_POINTER (name), GUINT_TO_POINTER (v));
                }
              last_name = name;
              last = v == 1;
            }
          if (!last)
            continue;
          self->n_search++;
          markset_add (&self->search, l, (guint32) i);
          if (self->matches->len < MAX_MATCHES)
            {
              SlEventRef ref = { (gint) l, i };
              g_array_append_val (self->matches, ref);
            }
        }
    }
  g_array_sort_with_data (self->matches, match_cmp, self->trace);
  return self->n_search;
}

gboolean
sl_timeline_view_search_step (SlTimelineView *self,
                              gboolean        forward)
{
  SlEventRef cur;
  guint lo = 0, hi;
  gint pick;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), FALSE);
  if (self->trace == NULL || self->matches->len == 0)
    return FALSE;
  hi = self->matches->len;
  cur = self->selected;
  if (cur.lane < 0)
    {
      /* nothing selected: the first match at or after the left edge of the view */
      SlTime t0;
      sl_viewport_get_visible (self->viewport, &t0, NULL);
      while (lo < hi)
        {
          guint mid = (lo + hi) / 2;
          SlEventRef *m = &g_array_index (self->matches, SlEventRef, mid);
          if (sl_trace_get_lane (self->trace, m->lane)->events[m->index].start < t0)
            lo = mid + 1;
          else
            hi = mid;
        }
      pick = forward ? (gint) lo : (gint) lo - 1;
    }
  else
    {
      /* first match that sorts after the selection */
      while (lo < hi)
        {
          guint mid = (lo + hi) / 2;
          if (match_cmp (&g_array_index (self->matches, SlEventRef, mid), &cur, self->trace) <= 0)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (forward)
        pick = (gint) lo;
      else
        {
          pick = (gint) lo - 1;
          if (pick >= 0
              && match_cmp (&g_array_index (self->matches, SlEventRef, pick), &cur, self->trace) == 0)
            pick--;
        }
    }
  if (pick < 0 || (guint) pick >= self->matches->len)
    return FALSE;
  sl_timeline_view_select_event (self, g_array_index (self->matches, SlEventRef, pick), TRUE);
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
  if (!ref_valid (self, ref) || !event_rect (self, ref, &r))
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

gint
sl_timeline_view_lane_at (SlTimelineView *self,
                          double          y)
{
  gint ri;

  g_return_val_if_fail (SL_IS_TIMELINE_VIEW (self), -1);
  ri = row_at (self, y);
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
  if (!arrow_points (self, &a, &b))
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
  u = util_current (self, gpu);
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
  palette_update (self);
  {
    const SlLane *lane = sl_trace_get_lane (self->trace, ref.lane);
    *color = event_color (self, lane, &lane->events[ref.index]);
  }
  return TRUE;
}
