/* sl-timeline-view-private.h: the timeline's internals shared by its files, and its test hooks. */
#pragma once

#include <math.h>
#include <string.h>

#include "sl-cpu-util.h"
#include "sl-display-name.h"
#include "sl-lane.h"
#include "sl-search.h"
#include "sl-timeline-view.h"

G_BEGIN_DECLS

#define HEADER_W     220.0   /* px: the lane header column */
#define RULER_H      30.0    /* px: the time ruler on top */
#define RULER_MARK_ALPHA 0.55f /* a finding's mark along the ruler's foot: the idle colour so
                                * strong (the legend shows the same) */
#define INDENT       14.0    /* px per tree level in the headers */
#define ROW_GROUP_H  22.0
#define ROW_LANE_H   20.0
#define ROW_NVTX_H   18.0
#define ROW_SAMPLE_H 14.0
#define ROW_UTIL_H   40.0
#define MIN_PX       2.0     /* events narrower than this fold into LOD items */
#define ZOOM_STEP    1.5     /* one Ctrl+wheel notch */
#define KEY_ZOOM_STEP 1.25   /* one tap of W/S (and the zoom-in/out actions) */
#define KEY_ZOOM_RATE 4.0    /* W/S held: this factor per second, after KEY_ZOOM_HOLD */
#define KEY_ZOOM_HOLD 150000 /* µs a key is down before it zooms continuously */
#define PAN_STEP     0.2     /* A/D: a fifth of the visible span */
#define LEGEND_LABEL "Legend"  /* in the ruler's corner: a click opens the colours' legend */
#define TEXT_MIN_W   24.0    /* px: narrower boxes never get a label */
#define FLAME_ROW_H  16.0    /* px: one stack depth of a samples lane's flame chart */
#define FLAME_ROWS_COLLAPSED 4  /* depths a flame chart shows until its header is clicked */
#define FLAME_ROWS_MAX 24       /* and at most, expanded (the detail pane has the whole stack) */

typedef struct _SlFlame SlFlame;   /* sl-timeline-flame.c */

typedef enum
{
  ROW_GROUP,
  ROW_LANE,
  ROW_GPU_ALL,   /* every stream of a GPU merged */
  ROW_GPU_UTIL,  /* utilization graph of a GPU */
  ROW_CPU_UTIL,  /* busy cores of a process (`gpu`: its index in the SlCpuUtil) */
  ROW_CPU_CORE,  /* which thread runs on a CPU core (`gpu`: the core's index in the SlCpuUtil) */
  ROW_NVTX_PROJ, /* a track of NVTX ranges projected onto a GPU (sl-timeline-nvtxproj.c) */
  ROW_GRAPHS,    /* a kernels lane's CUDA graph launches, a box each (sl-timeline-graphs.c) */
  ROW_GRAPH_NODES, /* the kernels of the launches of that lane that are open */
  ROW_GPU_MEMORY, /* a GPU's memory in use (`track`: its sl_memory series; sl-timeline-memory.c) */
  ROW_GPU_METRIC, /* a GPU metric's samples (`track`: its sl_metrics series; sl-timeline-metrics.c) */
  ROW_UM_FAULTS,  /* a GPU's page faults, or a process's CPU ones (`track`: its sl_um_faults
                   * series; sl-timeline-faults.c) */
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
  gboolean collapsed; /* ROW_GROUP: drawn and built collapsed */
  gint    track;     /* ROW_NVTX_PROJ: the GPU's track, -1 while they are computed */
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
  /* utilization rows: kernels running; copies or sets with no kernel (the GPU busy all the same) */
  GdkRGBA nvtx, osrt, sample, gpu_sync, util_copies, util_kernels, idle, select, search, range;
  GdkRGBA focus;   /* a finding in focus: an accent, used translucent */
  /* thread states: running solid, runnable lighter, blocked faint, unknown fainter; a pixel of
   * many states in the mixed colour */
  GdkRGBA sched_running, sched_runnable, sched_blocked, sched_unknown, sched_mixed;
  GdkRGBA graph;   /* a CUDA graph launch traced whole */
  GdkRGBA event_record;  /* a CUDA event record's marker and its arrows to the waits */
  GdkRGBA memory;  /* a GPU's memory in use */
  /* unified-memory migrations by cause: a page fault (the GPU or host waited), a prefetch the
   * program asked for, the rest (speculative prefetch, eviction, access counters) */
  GdkRGBA um_fault, um_prefetch, um_other;
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

/* The level of detail of one lane for one frame (see _sl_timeline_lane_lod). */
typedef struct
{
  GArray      *items;   /* SlLodItem: wide events, and folds around them */
  SlLodColumn *cols;    /* narrow events per pixel column, when `dense` */
  guint        n_cols;  /* allocated */
  gboolean     dense;
  SlTime       t0, t1;  /* the window and width it was made for */
  guint        width;
  /* the lane's own row made of them, as runs of columns (see _sl_timeline_lane_runs), when the
   * frame shows the lane as a row; valid while runs_epoch is the view's colors_epoch */
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
  SlSearch      *highlight;      /* events named highlight_name; NULL when none */
  SlSearch      *search;         /* the search bar's matches; NULL when none */
  /* a finding in focus: its range, lanes and events; and the ranges of all findings */
  SlTime         focus_t0, focus_t1;
  gboolean      *focus_lanes;    /* per lane, NULL when none */
  MarkSet        focus;
  GArray        *ruler_marks;    /* SlTime pairs */
  GPtrArray     *ruler_texts;    /* char *: a mark's finding, for its tooltip; NULL when none */
  GArray        *ruler_labels;   /* SlRulerLabel: the ruler's labels as last drawn */
  SlTime         ruler_base;     /* base of relative ruler labels, -1 when absolute */
  SlColorMode    color_mode;
  gboolean       util_overlay;
  gboolean       util_sm;        /* utilization from the GPU metrics' SMs Active where a GPU has
                                  * that series, not from kernel coverage (sl-timeline-metrics.c) */
  double         loading_fraction;  /* sl_timeline_view_set_loading_fraction, -1: none */
  double         util_threshold;

  /* lane management (sl-timeline-lanes.c) */
  GArray        *pinned;         /* gint lanes, in the order pinned: rows on top */
  GHashTable    *hidden;         /* lane + 1 of the lanes hidden */
  char          *lane_filter;    /* casefolded; NULL when none */
  gint           menu_row;       /* the row the context menu is about, -1 when none */
  SlEventRef     menu_ref;       /* the event under the pointer then, or none */
  SlTime         menu_t0, menu_t1;  /* the event's or fold's span, menu_t1 < menu_t0 when none */
  GtkWidget     *menu;           /* the context menu, NULL until first opened */
  GtkWidget     *filter_popover; /* the lane filter's entry, NULL until first opened */

  /* input */
  double         pointer_x, pointer_y;
  gboolean       pointer_inside;
  GtkWidget     *legend;         /* the colours' legend popover, NULL until first opened */
  gint           key_zoom_dir;   /* W held: +1, S held: -1, 0 when neither */
  guint          key_zoom_tick;  /* tick callback of a held W/S, 0 when none */
  gint64         key_zoom_down;  /* µs, when the key went down */
  gint64         key_zoom_last;  /* µs, the frame of the last continuous step */
  int            drag_mode;
  SlTime         drag_t0, drag_t1, drag_anchor;
  double         drag_vvalue;
  SlEventRef     range_event;    /* the event selected when a range was last dragged: while it
                                  * stays selected, F fits the newer range, not it */
  gboolean       reveal_gpu;     /* a new trace: scroll its first GPU's rows into sight once
                                  * the view has a height (sl-timeline-view.c) */

  /* drawing */
  Palette        pal;
  gboolean       dark;
  guint          colors_epoch;   /* moves with the palette and colour mode: older rows are stale */
  PangoLayout   *layout;         /* the one layout every label reuses */
  int            text_h;
  GHashTable    *text_w;         /* string id → label width in px, measured once */
  guint8        *sync_names;     /* per string id: 0 not looked at yet, 1 a sync API, 2 not;
                                  * read and written by the frame's two threads (see _sl_timeline_is_sync_api) */
  guint          n_sync_names;
  GArray        *lod;            /* scratch SlLodItem list for hit tests */
  LaneLod       *lod_cache;      /* per lane: the last frame's level of detail */
  Column        *cols;           /* scratch: one per pixel column of the lanes area */
  Run           *runs;           /* scratch: n_cols + 1 */
  guint          n_cols;
  GPtrArray     *row_images;     /* cairo image surfaces for dense rows, reused (see row_image) */
  struct _FrameWorker *worker;   /* the frame's second thread, once a frame needed one */
  guint32       *under;          /* this frame's rows under the events (_sl_timeline_frame_under) */
  guint          under_n;        /* their width */
  guint          under_ok;       /* which of the four are made */
  struct _NvtxProjState *nvtxproj; /* the "NVTX (projected)" rows (sl-timeline-nvtxproj.c) */
  SlFlame      **flames;         /* per lane: samples as a flame chart, made on first view */
  guint          n_flames;
  guint          flame_gen;      /* moves when the flames go: older builds are dropped */
  SlFlame      **flames_stale;   /* per lane: the flame of the trace a live update replaced,
                                  * drawn until the lane's own is built; n_flames_stale */
  guint          n_flames_stale;
  GPtrArray     *flames_taken;   /* sl_timeline_view_continue_trace: the old trace's flames, given */
  SlTrace       *flames_taken_from; /* to the new one's lanes by set_trace (not a reference) */
  struct _SlMetricsState *metrics; /* the GPU metrics rows' scales and scratch, NULL when the
                                    * trace has no metrics (sl-timeline-metrics.c) */
  struct _SlCritPathState *critpath; /* the critical path drawn (sl-timeline-critpath.c), NULL
                                      * when none */
};

enum
{
  DRAG_NONE,
  DRAG_PAN,
  DRAG_RANGE,
  DRAG_HEADER,
};

/* Geometry, inline: asked per event and per pixel column. */

static inline double
lanes_width (SlTimelineView *self)
{
  return MAX (gtk_widget_get_width (GTK_WIDGET (self)) - HEADER_W, 1.0);
}

static inline double
scroll_y (SlTimelineView *self)
{
  return self->vadjustment != NULL ? gtk_adjustment_get_value (self->vadjustment) : 0;
}

static inline double
time_to_x (SlTimelineView *self,
           SlTime          t)
{
  return HEADER_W + sl_viewport_time_to_x (self->viewport, t, lanes_width (self));
}

static inline SlTime
x_to_time (SlTimelineView *self,
           double          x)
{
  return sl_viewport_x_to_time (self->viewport, x - HEADER_W, lanes_width (self));
}

static inline const Row *
row_get (SlTimelineView *self,
         gint            i)
{
  return &g_array_index (self->rows, Row, i);
}

/* Adjacent boxes of one colour become one render node: at most a few per pixel column. */
typedef struct
{
  GtkSnapshot *snapshot;
  double       x0, x1, y, h;
  GdkRGBA      color;
  gboolean     pending;
} Batch;

static inline void
batch_flush (Batch *b)
{
  if (b->pending)
    gtk_snapshot_append_color (b->snapshot, &b->color,
                               &GRAPHENE_RECT_INIT (b->x0, b->y, b->x1 - b->x0, b->h));
  b->pending = FALSE;
}

static inline void
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

/* A label of the time ruler: its text and box's left and width, in widget coordinates. */
typedef struct
{
  double x, w;
  char   text[40];
} SlRulerLabel;

typedef struct
{
  SlTime t0, t1;
  double scale;     /* px per ns */
  double width;     /* lanes area width */
  double right;     /* widget width */
} Frame;

static inline double
frame_x (const Frame *f,
         SlTime       t)
{
  return HEADER_W + (double) (t - f->t0) * f->scale;
}

static inline gboolean
lane_lod_fresh (const LaneLod *l,
                SlTime         t0,
                SlTime         t1,
                guint          width)
{
  return l->items != NULL && l->t0 == t0 && l->t1 == t1 && l->width == width;
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

static inline guint32
rgb_key (const GdkRGBA *c)
{
  return (channel_byte (c->red) << 24) | (channel_byte (c->green) << 16)
         | (channel_byte (c->blue) << 8);
}

static inline guint32
rgba_key (const GdkRGBA *c)
{
  return rgb_key (c) | channel_byte (c->alpha);
}

/* `src` (straight alpha, times `cover`) over the premultiplied pixel `dst`, as cairo's OVER. */
static inline void
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

static inline guint32
pixel_pack (const float *p)
{
  return ((guint32) (CLAMP (p[3], 0, 1) * 255 + 0.5f) << 24)
         | ((guint32) (CLAMP (p[0], 0, 1) * 255 + 0.5f) << 16)
         | ((guint32) (CLAMP (p[1], 0, 1) * 255 + 0.5f) << 8)
         | (guint32) (CLAMP (p[2], 0, 1) * 255 + 0.5f);
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
  gboolean      row;    /* TASK_LANE: the lane is a row of its own: its runs too */
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

/* sl-timeline-view.c */
void _sl_timeline_emit_activated (SlTimelineView *self);
void _sl_timeline_select_ref (SlTimelineView *self,
                              SlEventRef      ref,
                              gboolean        emit);

/* sl-timeline-palette.c */
void _sl_timeline_palette_update (SlTimelineView *self);
gboolean _sl_timeline_decide_sync_api (SlTimelineView *self,
                                       guint32         name);
GdkRGBA _sl_timeline_hash_color (SlTimelineView *self,
                                 guint32         name);
/* A thread-state event's colour from its `aux` (state, derived flag). */
GdkRGBA _sl_timeline_state_color (SlTimelineView *self,
                                  guint32         aux);

/* An event's colour and the helpers it needs are inline: the raster asks for one per pixel
 * column of a dense lane (~4·10^4 a frame), where a call into another file cost ~0.3 ms. */
static inline void
_sl_rgba_set (GdkRGBA *c,
              guint32  rgb,
              float    alpha)
{
  c->red = ((rgb >> 16) & 0xFF) / 255.f;
  c->green = ((rgb >> 8) & 0xFF) / 255.f;
  c->blue = (rgb & 0xFF) / 255.f;
  c->alpha = alpha;
}

static inline gboolean
_sl_timeline_is_sync_api (SlTimelineView *self,
                          guint32         name)
{
  guint8 v;

  if (name >= self->n_sync_names)
    return FALSE;
  v = __atomic_load_n (&self->sync_names[name], __ATOMIC_RELAXED);
  return v == 0 ? _sl_timeline_decide_sync_api (self, name) : v == 1;
}

static inline GdkRGBA
_sl_timeline_lane_base_color (SlTimelineView *self,
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
    case SL_LANE_SCHED: return self->pal.sched_mixed;
    case SL_LANE_GRAPHS: return self->pal.graph;
    case SL_LANE_MPI: return self->pal.memcpy_dtod;
    case SL_LANE_OPENMP: return self->pal.nvtx;
    case SL_LANE_OPENACC: return self->pal.kernel;
    case SL_N_LANE_KINDS:
    default: return self->pal.fg;
    }
}

G_ALWAYS_INLINE static inline GdkRGBA
_sl_timeline_event_color (SlTimelineView *self,
                          const SlLane   *lane,
                          const SlEvent  *ev)
{
  if (lane->kind == SL_LANE_NVTX && (ev->aux >> 24) != 0)
    {
      GdkRGBA c;
      _sl_rgba_set (&c, ev->aux & 0xFFFFFF, 1);
      return c;
    }
  if (lane->kind == SL_LANE_SCHED)
    return _sl_timeline_state_color (self, ev->aux);
  /* MPI: waits as the host's waits, collectives as graphs, point-to-point as device copies */
  if (lane->kind == SL_LANE_MPI && self->color_mode != SL_COLOR_BY_NAME)
    return (ev->aux & 0xFF) == 2 ? self->pal.gpu_sync
           : (ev->aux & 0xFF) == 1 ? self->pal.graph : self->pal.memcpy_dtod;
  /* OpenMP: barriers and mutex waits (SlOmpSource 2, 3, 10) as the host's waits; OpenACC: data
   * (SL_ACC_DATA, 18) as copies, the rest as kernels */
  if (lane->kind == SL_LANE_OPENMP && self->color_mode != SL_COLOR_BY_NAME)
    return ev->aux == 2 || ev->aux == 3 || ev->aux == 10 ? self->pal.gpu_sync : self->pal.nvtx;
  if (lane->kind == SL_LANE_OPENACC && self->color_mode != SL_COLOR_BY_NAME)
    return ev->aux == 18 ? self->pal.memcpy_htod : self->pal.kernel;
  if (self->color_mode == SL_COLOR_BY_NAME && lane->kind != SL_LANE_SAMPLES)
    return _sl_timeline_hash_color (self, ev->name);
  switch (lane->kind)
    {
    case SL_LANE_CUDA_API:
      return _sl_timeline_is_sync_api (self, ev->name) ? self->pal.api_sync : self->pal.api;
    case SL_LANE_MEMCPY:
      {
        const SlCopyInfo *ci = sl_trace_get_copy_info (self->trace, ev->aux);
        if (ci != NULL && ci->migration_cause != SL_MIGRATION_NONE)
          return ci->migration_cause == 2   ? self->pal.um_fault
                 : ci->migration_cause == 1 ? self->pal.um_prefetch
                                            : self->pal.um_other;
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
    case SL_LANE_GRAPHS:
    case SL_N_LANE_KINDS:
    default:
      return _sl_timeline_lane_base_color (self, lane->kind);
    }
}
const char *_sl_timeline_event_label (SlTimelineView *self,
                                      const SlLane   *lane,
                                      const SlEvent  *ev,
                                      guint32        *id);
void _sl_timeline_layout_ensure (SlTimelineView *self);
void _sl_timeline_draw_text (SlTimelineView *self,
                             GtkSnapshot    *snapshot,
                             guint32         id,
                             const char     *text,
                             double          x,
                             double          y,
                             double          max_w,
                             const GdkRGBA  *color);
void _sl_timeline_draw_text_plain (SlTimelineView *self,
                                   GtkSnapshot    *snapshot,
                                   const char     *text,
                                   double          x,
                                   double          y,
                                   const GdkRGBA  *color);
GdkRGBA _sl_timeline_text_on (const GdkRGBA *bg);

/* sl-timeline-rows.c */
gint _sl_timeline_row_at (SlTimelineView *self,
                          double          y);
void _sl_timeline_row_clear (gpointer data);
void _sl_timeline_configure_vadjustment (SlTimelineView *self);
void _sl_timeline_rows_rebuild (SlTimelineView *self);
gboolean _sl_timeline_group_collapsed (SlTimelineView *self,
                                       const char     *key);
void _sl_timeline_draw_headers (SlTimelineView *self,
                                GtkSnapshot    *snapshot,
                                double          height);
void _sl_timeline_reveal_lane (SlTimelineView *self,
                               gint            lane);
void _sl_timeline_set_vadjustment (SlTimelineView *self,
                                   GtkAdjustment  *adj);
char *_sl_timeline_row_tooltip (SlTimelineView *self,
                                gint            row);
/* Whether row `row` goes on the one above it as a deeper level of the same thing (a thread's
 * NVTX or CUDA API at another depth, a GPU's next projected NVTX level): drawn under its
 * header, without a title of its own. */
gboolean _sl_timeline_row_continues (SlTimelineView *self,
                                     guint           row);

/* sl-timeline-cpu.c */
SlCpuUtil *_sl_timeline_cpu_util (SlTimelineView *self);
/* The row title of process `process`'s CPU utilization, or NULL when it has no running data
 * (`*index` set to its index in the SlCpuUtil). */
char    *_sl_timeline_cpu_util_title (SlTimelineView *self,
                                      guint           process,
                                      gint           *index);
void     _sl_timeline_draw_cpu_row  (SlTimelineView *self,
                                     GtkSnapshot    *snapshot,
                                     const Frame    *f,
                                     const Row      *r,
                                     double          y);
/* What a CPU row shows at t, for its tooltip; NULL when nothing. */
char    *_sl_timeline_cpu_tooltip   (SlTimelineView *self,
                                     const Row      *r,
                                     SlTime          t);

/* sl-timeline-util.c */
gboolean _sl_timeline_util_prepare (UtilCache *u,
                                    SlTime     t0,
                                    SlTime     t1,
                                    guint      n);
UtilCache *_sl_timeline_util_current (SlTimelineView *self,
                                      guint           gpu);
/* What the GPU was busy with in column `col` of the visible window (the utilization row's
 * tooltip), "GPU busy 99.1%: kernels 2.3%, copies and sets 96.8%"; NULL outside the columns. */
char *_sl_timeline_util_text (SlTimelineView *self,
                              guint           gpu,
                              guint           col);
/* The same over the whole visible window, for the row's header. */
char *_sl_timeline_util_window_text (SlTimelineView *self,
                                     guint           gpu);
void _sl_timeline_draw_idle_shade (SlTimelineView *self,
                                   Batch          *batch,
                                   const Frame    *f,
                                   guint           gpu,
                                   double          y,
                                   double          h);
void _sl_timeline_util_image_ensure (SlTimelineView *self,
                                     const Frame    *f,
                                     guint           gpu,
                                     double          y,
                                     double          h);
void _sl_timeline_draw_util_texture (SlTimelineView *self,
                                     GtkSnapshot    *snapshot,
                                     const Frame    *f,
                                     guint           gpu,
                                     double          y,
                                     double          h);

/* sl-timeline-overlays.c */
void _sl_timeline_markset_clear (MarkSet *m);
void _sl_timeline_markset_add (MarkSet *m,
                               guint    lane,
                               guint32  index);
void _sl_timeline_draw_lane_marks (SlTimelineView *self,
                                   Batch          *batch,
                                   const Frame    *f,
                                   const SlLane   *lane,
                                   const guint32  *idx,
                                   guint           n,
                                   double          y,
                                   double          h,
                                   const GdkRGBA  *underline);
void _sl_timeline_draw_search_marks (SlTimelineView *self,
                                     Batch          *batch,
                                     const Frame    *f,
                                     const SlLane   *lane,
                                     const SlSearch *search,
                                     double          y,
                                     double          h,
                                     const GdkRGBA  *underline);
void _sl_timeline_draw_outline (GtkSnapshot   *snapshot,
                                const graphene_rect_t *r,
                                const GdkRGBA *c,
                                double         w);
gboolean _sl_timeline_event_rect (SlTimelineView  *self,
                                  SlEventRef       ref,
                                  graphene_rect_t *out);
gboolean _sl_timeline_selection_outline (SlTimelineView  *self,
                                         graphene_rect_t *out);
gboolean _sl_timeline_arrow_points (SlTimelineView   *self,
                                    graphene_point_t *from,
                                    graphene_point_t *to);
/* A trace still loading (sl_trace_get_loading): the time not read yet washed and hatched, with
 * "Loading… N %" at its start. */
void _sl_timeline_draw_loading (SlTimelineView *self,
                                GtkSnapshot    *snapshot,
                                const Frame    *f,
                                int             height);
void _sl_timeline_draw_arrow (SlTimelineView *self,
                              GtkSnapshot    *snapshot,
                              int             width,
                              int             height);

/* ---- CUDA event records and their waits (sl-timeline-events.c) ---------------------------- */

/* The markers of the CUDA event records on `lane` (a flag where the stream recorded the event),
 * one per pixel column at most. */
void     _sl_timeline_draw_event_markers (SlTimelineView *self,
                                          Batch          *batch,
                                          const Frame    *f,
                                          const SlLane   *lane,
                                          double          y,
                                          double          h);
/* sl-timeline-mpi.c: an arrow from each MPI send to its matching receive in the window (the
 * selection's message highlighted); the points, for tests: at most `max`, `selected` may be
 * NULL. */
void     _sl_timeline_draw_mpi_arrows    (SlTimelineView *self,
                                          GtkSnapshot    *snapshot,
                                          int             width,
                                          int             height);
guint    _sl_timeline_mpi_arrow_points   (SlTimelineView   *self,
                                          graphene_point_t *from,
                                          graphene_point_t *to,
                                          gboolean         *selected,
                                          guint             max);
/* When the selection is a wait (its synchronization event or its call) or a cudaEventRecord call:
 * an arrow from the record's marker to each wait that consumed it. */
void     _sl_timeline_draw_event_arrows  (SlTimelineView *self,
                                          GtkSnapshot    *snapshot,
                                          int             width,
                                          int             height);
/* The record whose marker is under x (within 4 px) on `lane`: its cudaEventRecord call in
 * `call`; FALSE when none is, or it has no call in the trace. */
gboolean _sl_timeline_event_marker_hit   (SlTimelineView *self,
                                          const SlLane   *lane,
                                          double          x,
                                          SlEventRef     *call);
/* The arrows of the selection, for tests: from the record's marker to each wait shown; the
 * number of arrows (at most `max` points filled). */
guint    _sl_timeline_event_arrow_points (SlTimelineView   *self,
                                          graphene_point_t *from,
                                          graphene_point_t *to,
                                          guint             max);

/* sl-timeline-frame.c */
const LaneLod *_sl_timeline_lane_lod (SlTimelineView *self,
                                      const SlLane   *lane,
                                      SlTime          t0,
                                      SlTime          t1,
                                      guint           width);
void _sl_timeline_worker_stop (SlTimelineView *self);
gboolean _sl_timeline_gpu_row_fresh (SlTimelineView *self,
                                     guint           gpu,
                                     const Frame    *f,
                                     guint           width);
void _sl_timeline_frame_prefetch_start (SlTimelineView *self,
                                        const Frame    *f,
                                        double          sy,
                                        int             height,
                                        FrameJob       *job);
void _sl_timeline_frame_prefetch_finish (SlTimelineView *self,
                                         FrameJob       *job);

/* sl-timeline-raster.c */
Column *_sl_timeline_columns_get (SlTimelineView *self,
                                  guint           n);
void _sl_timeline_append_image (GtkSnapshot     *snapshot,
                                cairo_surface_t *image,
                                double           x,
                                double           y,
                                double           h,
                                cairo_extend_t   extend);
void _sl_timeline_lane_runs (SlTimelineView *self,
                             const Frame    *f,
                             const SlLane   *lane,
                             Column         *cols,
                             guint           n);
void _sl_timeline_gpu_row_runs (SlTimelineView *self,
                                const Frame    *f,
                                guint           gpu,
                                Column         *cols);
void _sl_timeline_runs_emit (SlTimelineView *self,
                             GtkSnapshot    *snapshot,
                             const Run      *runs,
                             guint           n_runs,
                             guint           n,
                             double          y,
                             double          h,
                             gboolean        dim,
                             const guint32  *under);
void _sl_timeline_draw_lane_row (SlTimelineView *self,
                                 GtkSnapshot    *snapshot,
                                 const Frame    *f,
                                 const SlLane   *lane,
                                 double          y,
                                 double          h,
                                 gboolean        dim,
                                 const guint32  *under);
const guint32 *_sl_timeline_frame_under (SlTimelineView *self,
                                         const Frame    *f,
                                         gboolean        alt,
                                         gboolean        tint);

/* sl-timeline-flame.c */
void _sl_timeline_flame_clear (SlTimelineView *self);
/* sl_timeline_view_continue_trace: the flames built for the old trace, taken before it goes
 * (NULL entries for lanes without one), then handed to the same lanes of the new one as stale
 * flames when their functions' names are the same strings there. */
GPtrArray *_sl_timeline_flame_take_built (SlTimelineView *self);
void _sl_timeline_flame_give_stale (SlTimelineView *self,
                                    SlTrace        *old,
                                    GPtrArray      *taken);
gboolean _sl_timeline_flame_stale (SlTimelineView *self,
                                   gint            lane);
gboolean _sl_timeline_flame_built (SlTimelineView *self,
                                   gint            lane);
gboolean _sl_timeline_flame_extended (SlTimelineView *self,
                                      gint            lane);
gboolean _sl_timeline_flame_check (SlTimelineView *self,
                                   gint            lane);
GdkRGBA _sl_timeline_flame_color (SlTimelineView *self,
                                  guint32         symbol);
gboolean _sl_timeline_flame_wants (SlTimelineView *self,
                                   gint            lane);
double _sl_timeline_flame_row_h (SlTimelineView *self,
                                 const SlLane   *lane);
char *_sl_timeline_flame_title (SlTimelineView *self,
                                const SlLane   *lane);
gboolean _sl_timeline_flame_toggle (SlTimelineView *self,
                                    gint            lane);
gboolean _sl_timeline_flame_draw (SlTimelineView *self,
                                  GtkSnapshot    *snapshot,
                                  const Frame    *f,
                                  const SlLane   *lane,
                                  double          y,
                                  double          h,
                                  gboolean        dim,
                                  const guint32  *under);
gboolean _sl_timeline_flame_hit (SlTimelineView *self,
                                 const SlLane   *lane,
                                 double          x,
                                 double          dy,
                                 SlEventRef     *ref,
                                 SlLodItem      *item);
char *_sl_timeline_flame_tooltip (SlTimelineView *self,
                                  const SlLane   *lane,
                                  double          x,
                                  double          dy);

/* sl-timeline-ruler.c */
void _sl_timeline_draw_ruler (SlTimelineView *self,
                              GtkSnapshot    *snapshot,
                              const Frame    *f,
                              double          height);
void _sl_timeline_ruler_labels (SlTimelineView *self,
                                GtkSnapshot    *snapshot,
                                const Frame    *f,
                                GArray         *out,
                                SlTime         *base);
/* The tooltip of the finding marks along the ruler's foot under (x, y): their findings, the
 * narrowest mark first (8 at most, the rest counted); NULL when (x, y) is not on one. */
char *_sl_timeline_ruler_mark_tooltip (SlTimelineView *self,
                                       double          x,
                                       double          y);
void _sl_timeline_grid_ticks (SlTimelineView *self,
                              const Frame    *f,
                              SlTime         *first,
                              SlTime         *step);

/* sl-timeline-nvtxproj.c */
/* After the view's trace changed: drops the old rows. */
void _sl_timeline_nvtxproj_reset (SlTimelineView *self);
void _sl_timeline_nvtxproj_finalize (SlTimelineView *self);
/* Tracks of a GPU: -1 for no "NVTX (projected)" group, 0 until they are computed; when `open`
 * (its group is), they are computed on a thread, and the rows rebuilt when they are in. */
gint _sl_timeline_nvtxproj_tracks (SlTimelineView *self,
                                   guint           gpu,
                                   gboolean        open);
char *_sl_timeline_nvtxproj_track_title (SlTimelineView *self,
                                         guint           gpu,
                                         gint            track);
void _sl_timeline_nvtxproj_draw (SlTimelineView *self,
                                 GtkSnapshot    *snapshot,
                                 const Frame    *f,
                                 const Row      *r,
                                 double          y);
/* The range under widget x in row r (ref: the NVTX range), or the ranges there (item->count) */
gboolean _sl_timeline_nvtxproj_hit (SlTimelineView *self,
                                    const Row      *r,
                                    double          x,
                                    SlEventRef     *ref,
                                    SlLodItem      *item);
char *_sl_timeline_nvtxproj_tooltip (SlTimelineView *self,
                                     const Row      *r,
                                     double          x);

/* sl-timeline-critpath.c: the critical path over the events, the menu's items and actions
 * ("critical-path" signal), and its end with the trace (reset) */
void _sl_timeline_critpath_class_init (GtkWidgetClass *widget_class);
void _sl_timeline_critpath_reset (SlTimelineView *self);
void _sl_timeline_critpath_draw (SlTimelineView *self,
                                 GtkSnapshot    *snapshot,
                                 const Frame    *f,
                                 int             height);
void _sl_timeline_critpath_menu (SlTimelineView *self,
                                 GMenu          *section);

/* sl-timeline-graphs.c: graph launches traced node by node, opened into their nodes */
gboolean _sl_timeline_graph_is_open (SlTimelineView     *self,
                                     guint               lane,
                                     const SlGraphGroup *g);
gboolean _sl_timeline_graphs_any_open (SlTimelineView *self,
                                       guint           lane);
void _sl_timeline_graph_set_open (SlTimelineView     *self,
                                  guint               lane,
                                  const SlGraphGroup *g,
                                  gboolean            open);
void _sl_timeline_graphs_draw (SlTimelineView *self,
                               GtkSnapshot    *snapshot,
                               const Frame    *f,
                               const Row      *r,
                               double          y);
const SlGraphGroup *_sl_timeline_graphs_group_at (SlTimelineView *self,
                                                  const Row      *r,
                                                  double          x);
gboolean _sl_timeline_graphs_hit (SlTimelineView *self,
                                  const Row      *r,
                                  double          x,
                                  SlEventRef     *ref,
                                  SlLodItem      *item);
char *_sl_timeline_graphs_tooltip (SlTimelineView *self,
                                   const Row      *r,
                                   double          x);
const SlGraphGroup *_sl_timeline_graphs_menu_group (SlTimelineView *self);
void _sl_timeline_graphs_toggle_action (GtkWidget  *widget,
                                        const char *action_name,
                                        GVariant   *parameter);

/* sl-timeline-memory.c: a GPU's memory in use */
void     _sl_timeline_memory_draw    (SlTimelineView *self,
                                      GtkSnapshot    *snapshot,
                                      const Frame    *f,
                                      const Row      *r,
                                      double          y);
char    *_sl_timeline_memory_tooltip (SlTimelineView *self,
                                      const Row      *r,
                                      double          x);
gboolean _sl_timeline_memory_hit     (SlTimelineView *self,
                                      const Row      *r,
                                      double          x,
                                      SlEventRef     *ref,
                                      SlLodItem      *item);

/* sl-timeline-metrics.c: nsys's GPU metrics as rows of a "GPU metrics" group under each GPU,
 * and SMs Active as the utilization rows' and overlay's source (the "timeline.util-from-sm"
 * action of the utilization row's menu) */
void     _sl_timeline_metrics_class_init   (GtkWidgetClass *widget_class);
/* After the view's trace changed (and at finalize, with no trace): the state of the new one. */
void     _sl_timeline_metrics_reset        (SlTimelineView *self);
/* The SMs Active series of a GPU (index), -1 when it has none. */
gint     _sl_timeline_metrics_sm_active    (SlTimelineView *self,
                                            guint           gpu);
/* The row title of series i: its name less the unit in brackets. */
char    *_sl_timeline_metrics_title        (SlTimelineView *self,
                                            guint           series);
void     _sl_timeline_metrics_draw         (SlTimelineView *self,
                                            GtkSnapshot    *snapshot,
                                            const Frame    *f,
                                            const Row      *r,
                                            double          y);
void     _sl_timeline_metrics_header       (SlTimelineView *self,
                                            GtkSnapshot    *snapshot,
                                            const Row      *r,
                                            double          x,
                                            double          y,
                                            const GdkRGBA  *tc);
char    *_sl_timeline_metrics_tooltip      (SlTimelineView *self,
                                            const Row      *r,
                                            double          x);
char    *_sl_timeline_metrics_row_tooltip  (SlTimelineView *self,
                                            const Row      *r);
/* The utilization menu's choice of source, where the row's GPU has SMs Active. */
void     _sl_timeline_metrics_menu         (SlTimelineView *self,
                                            const Row      *r,
                                            GMenu          *section);
/* The SMs Active series the utilization of `gpu` is drawn from, -1 when kernel coverage (the
 * choice is off, or the GPU has no such series).  Safe on the frame's worker thread. */
gint     _sl_timeline_util_sm_series       (SlTimelineView *self,
                                            guint           gpu);
/* Fills n columns of [t0, t1) with SMs Active (0 … 1) as `kernels` and, as `any`, that plus the
 * share with copies or sets and no kernel; FALSE (nothing filled) where `gpu` is drawn from
 * kernel coverage.  Reads the trace only: the frame's worker thread runs it. */
gboolean _sl_timeline_metrics_util_fill    (SlTimelineView *self,
                                            guint           gpu,
                                            SlTime          t0,
                                            SlTime          t1,
                                            guint           n,
                                            double         *kernels,
                                            double         *any);

/* sl-timeline-faults.c: unified memory's page faults of a GPU or a process */
void     _sl_timeline_faults_draw    (SlTimelineView *self,
                                      GtkSnapshot    *snapshot,
                                      const Frame    *f,
                                      const Row      *r,
                                      double          y);
char    *_sl_timeline_faults_tooltip (SlTimelineView *self,
                                      const Row      *r,
                                      double          x);
/* The times whose faults are under the pointer at `x`: [t0, t1). */
void     _sl_timeline_faults_window  (SlTimelineView *self,
                                      double          x,
                                      SlTime         *t0,
                                      SlTime         *t1);

/* sl-timeline-legend.c */
void _sl_timeline_legend_toggle (SlTimelineView *self);
void _sl_timeline_legend_dispose (SlTimelineView *self);

/* sl-timeline-input.c */
void _sl_timeline_input_class_init (GtkWidgetClass *widget_class);
void _sl_timeline_input_init (SlTimelineView *self);
void _sl_timeline_key_zoom_stop (SlTimelineView *self);
gboolean _sl_timeline_item_at (SlTimelineView *self,
                               double          x,
                               double          y,
                               SlEventRef     *ref,
                               SlTime         *t0,
                               SlTime         *t1);
void _sl_timeline_fit_range (SlTimelineView *self,
                             SlTime          a,
                             SlTime          b);
void _sl_timeline_toggle_group (SlTimelineView *self,
                                gint            row);

/* sl-timeline-lanes.c */
void _sl_timeline_lanes_class_init (GtkWidgetClass *widget_class);
void _sl_timeline_lanes_init (SlTimelineView *self);
void _sl_timeline_lanes_reset (SlTimelineView *self,
                               gboolean        keep_menu);
/* The open context menu's target, kept while a newer state of the same recording replaces the
 * trace (sl_timeline_view_continue_trace) */
typedef struct
{
  gboolean   open, on_row;  /* the menu open; about a row (else closed by the update) */
  RowKind    kind;
  gint       lane, gpu;
  char      *key, *label;
  SlEventRef ref;
  SlTime     t0, t1;
} SlMenuKept;
void _sl_timeline_menu_keep (SlTimelineView *self,
                             SlMenuKept     *kept);
void _sl_timeline_menu_continue (SlTimelineView *self,
                                 SlTrace        *old,
                                 SlMenuKept     *kept);
void _sl_timeline_lanes_dispose (SlTimelineView *self);
void _sl_timeline_lanes_finalize (SlTimelineView *self);
void _sl_timeline_filter_open (SlTimelineView *self);
gboolean _sl_timeline_lane_pinned (SlTimelineView *self,
                                   gint            lane);

/* Test hooks (tests/test-ui-timeline.c, tests/test-ui-app.c) */

/* Where an event is drawn, in widget coordinates (for tests and arrows); FALSE when off screen. */
gboolean    sl_timeline_view_get_event_area     (SlTimelineView  *self,
                                                 SlEventRef       ref,
                                                 graphene_rect_t *area);
/* The box the selection outline is drawn around; FALSE when none is drawn. */
gboolean    sl_timeline_view_get_selection_outline (SlTimelineView  *self,
                                                    graphene_rect_t *area);
/* Whether a lane is tinted as part of the finding in focus; how many ruler marks are drawn. */
gboolean    sl_timeline_view_lane_in_focus      (SlTimelineView *self,
                                                 guint           lane);
guint       sl_timeline_view_get_ruler_marks    (SlTimelineView *self);
/* The ruler's labels (SlRulerLabel) as last drawn, and the base of relative labels (-1 when they
 * are absolute). */
const GArray *sl_timeline_view_get_ruler_labels (SlTimelineView *self,
                                                 SlTime         *base);

/* The legend popover while it is open, else NULL. */
GtkWidget  *sl_timeline_view_get_legend         (SlTimelineView *self);
/* The header rows' labels, top to bottom, each indented by two spaces per tree level. */
char      **sl_timeline_view_dup_row_labels     (SlTimelineView *self);
/* Whether the group row with that label is collapsed (FALSE when there is none). */
gboolean    sl_timeline_view_group_collapsed    (SlTimelineView *self,
                                                 const char     *label);
/* The lane row at widget y, or -1 (headers and ruler included in the layout). */
gint        sl_timeline_view_lane_at            (SlTimelineView *self,
                                                 double          y);
/* Points the context menu at widget (x, y) as a right-click there does; opens it when `popup`.
 * Returns the menu's popover (NULL when not opened). */
GtkWidget  *sl_timeline_view_context_menu_at    (SlTimelineView *self,
                                                 double          x,
                                                 double          y,
                                                 gboolean        popup);
/* The lane filter's popover while it is open, else NULL. */
GtkWidget  *sl_timeline_view_get_filter_popover (SlTimelineView *self);
/* End points of the launch → GPU work arrow drawn for the selection; FALSE when none is drawn. */
gboolean    sl_timeline_view_get_arrow          (SlTimelineView   *self,
                                                 graphene_point_t *from,
                                                 graphene_point_t *to);
/* Kernel utilization (0 … 1; SMs Active with the view's util_sm, where the GPU has it) the
 * utilization row shows at widget x for `gpu`, and the time
 * window [t0, t1) of that pixel column; -1 when x is not over the lanes. */
double      sl_timeline_view_get_util_value     (SlTimelineView *self,
                                                 guint           gpu,
                                                 double          x,
                                                 SlTime         *t0,
                                                 SlTime         *t1);
/* Whether the "NVTX (projected)" rows are computed; where range `range` is drawn projected onto
 * GPU `gpu` (widget coordinates, unclipped), FALSE when its row is not shown. */
gboolean    sl_timeline_view_nvtxproj_ready     (SlTimelineView *self);
gboolean    sl_timeline_view_get_nvtxproj_area  (SlTimelineView  *self,
                                                 guint            gpu,
                                                 SlEventRef       range,
                                                 graphene_rect_t *area);
/* The span and samples of the flame chart's box at `depth` (0 = root) holding sample `index` of a
 * samples lane; FALSE when there is none. */
gboolean    sl_timeline_view_get_flame_box      (SlTimelineView *self,
                                                 guint           lane,
                                                 guint           depth,
                                                 gsize           index,
                                                 SlTime         *start,
                                                 SlTime         *end,
                                                 guint          *n_samples);
/* Where segment i of the critical path shown is drawn: its kind's bar along the foot of its row
 * (widget coordinates, unclipped); FALSE when there is none or its row is not shown. */
gboolean    sl_timeline_view_get_critical_path_area (SlTimelineView  *self,
                                                     gsize            i,
                                                     graphene_rect_t *area);
/* The colour a single (unfolded) event is drawn with in the current mode and theme. */
gboolean    sl_timeline_view_get_event_color    (SlTimelineView *self,
                                                 SlEventRef      ref,
                                                 GdkRGBA        *color);

G_END_DECLS
