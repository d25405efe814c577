/* sl-nvtx-proj.h: NVTX ranges projected onto the GPU (nsys's "NVTX GPU projection"). */
#pragma once

#include <glib.h>

#include "sl-trace.h"

G_BEGIN_DECLS

/*
 * A GPU operation (kernel, memcpy, memset) is enclosed by an NVTX range when the CUDA API call
 * that launched it ran inside the range (range start <= call start and call end <= range end)
 * on the range's thread.  As nsys's, only ranges that start and end on one thread count: one
 * that ended on another (SL_NVTX_OTHER_THREAD) encloses nothing and is nobody's parent.  A
 * range's projection is the span from the first enclosed operation's start to the last one's
 * end: nsys stats nvtx_gpu_proj_trace does this per range over every GPU; nsys recipe
 * nvtx_gpu_proj_trace (2024.7 and later) per GPU and stream.
 *
 * Built on demand, not at load: one sweep of the CUDA API lanes against their threads' NVTX
 * lanes (a cursor per nesting depth), then one pass over the GPU operations.  A trace keeps one
 * (sl_nvtx_proj_get), which the reports and the timeline share: an SlNvtxProj is read-only once
 * built, so any number of threads may use it at once.
 */
typedef struct _SlNvtxProj SlNvtxProj;

typedef enum
{
  SL_NVTX_PROJ_BY_RANGE,   /* one row per range, its work on every GPU together */
  SL_NVTX_PROJ_BY_GPU,     /* one row per range and GPU */
  SL_NVTX_PROJ_BY_STREAM,  /* one row per range, GPU and stream */
} SlNvtxProjScope;

typedef struct
{
  SlEventRef range;       /* the NVTX range (an SL_LANE_NVTX lane and an index in it) */
  gint32     gpu;         /* index of the GPU (sl_trace_get_gpu); -1 with BY_RANGE */
  guint32    stream_id;   /* 0 unless BY_STREAM */
  SlTime     start;       /* the first enclosed operation's start */
  SlTime     end;         /* the last enclosed operation's end */
  guint32    n_ops;       /* enclosed GPU operations */
  guint32    n_calls;     /* their distinct launch calls (nsys's NumGPUOps) */
  guint32    n_children;  /* rows of the same scope whose range's parent is this row's range
                           * (nsys's NumChild) */
  guint32    level;       /* the range's nesting level (sl_nvtx_proj_get_level) */
} SlNvtxProjRow;

/* Indexes which ranges enclose each launch call, and the ranges' nesting.  The trace is
 * reffed.  O(API calls × nesting depth + NVTX ranges × log). */
SlNvtxProj          *sl_nvtx_proj_new             (SlTrace          *trace);
void                 sl_nvtx_proj_free            (SlNvtxProj       *proj);

/* The trace's own projection: built by the first caller (from any thread; others asking
 * meanwhile wait for it), then shared; the trace owns it (do not free it). */
SlNvtxProj          *sl_nvtx_proj_get             (SlTrace          *trace);

/* The projection rows: BY_RANGE sorted by start, then end descending (nsys's order); BY_GPU
 * and BY_STREAM by GPU, stream, then the same.  Ties (a range and its child over the same
 * work) by level, then the range's start, its end descending, its lane and index.
 * O(GPU operations + rows log rows).  Free with g_array_unref (). */
GArray              *sl_nvtx_proj_compute         (SlNvtxProj       *proj,
                                                   SlNvtxProjScope   scope);

/* sl_nvtx_proj_compute's rows, computed by the first caller of a scope and kept by `proj`
 * (read-only; freed with it). */
const GArray        *sl_nvtx_proj_get_rows        (SlNvtxProj       *proj,
                                                   SlNvtxProjScope   scope);

/* For drawing the rows under their GPU (or stream): gives row i of `rows` (as
 * sl_nvtx_proj_compute returned them) a track in track[i], so that rows on one track never
 * overlap and the tracks of a level all come after those of the level above it (a parent's
 * projection above its children's).  Tracks count from 0 in each GPU (BY_GPU) or stream
 * (BY_STREAM) group, from 0 for all of BY_RANGE; group_tracks[i], when not NULL, gets how many
 * tracks row i's group has.  O(rows × tracks of a level). */
void                 sl_nvtx_proj_assign_tracks   (const GArray     *rows,
                                                   guint32          *track,
                                                   guint32          *group_tracks);

/* The NVTX ranges on the launching thread that enclose the call that launched GPU operation
 * `index` of `gpu_lane`, outermost first, as ranges (lane, index); 0 when the call is not in
 * the trace or no range encloses it.  `out` is reused between calls: an array of SlEventRef
 * the caller owns. */
guint                sl_nvtx_proj_enclosing       (SlNvtxProj       *proj,
                                                   const SlLane     *gpu_lane,
                                                   gsize             index,
                                                   GArray           *out);

/* The tightest range of the same thread that encloses `range` (nsys's ParentId), and the
 * nesting level (0 for a range with no parent).  FALSE / 0 for none. */
gboolean             sl_nvtx_proj_get_parent      (SlNvtxProj       *proj,
                                                   SlEventRef        range,
                                                   SlEventRef       *parent);
guint                sl_nvtx_proj_get_level       (SlNvtxProj       *proj,
                                                   SlEventRef        range);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlNvtxProj, sl_nvtx_proj_free)

G_END_DECLS
