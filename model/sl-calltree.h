/* sl-calltree.h: CPU samples of a selection aggregated into call trees and per-function counts. */
#pragma once

#include <gio/gio.h>

#include "sl-trace.h"

G_BEGIN_DECLS

typedef struct _SlCalltree SlCalltree;

typedef enum
{
  SL_CALLTREE_TOP_DOWN,    /* root → callee: a node is one call path from the outermost frame */
  SL_CALLTREE_BOTTOM_UP,   /* leaf → caller: roots are the functions samples were taken in */
  SL_CALLTREE_N_ORDERS
} SlCalltreeOrder;

/* What a tree's counts are: CPU samples, or nanoseconds of nested ranges (a selection without
 * samples: a Kineto trace's python_function / cpu_op events, an nsys trace's NVTX ranges). */
typedef enum
{
  SL_CALLTREE_SAMPLES,
  SL_CALLTREE_NANOSECONDS,
  SL_CALLTREE_CALLS,        /* CUDA API calls, each counted once */
} SlCalltreeUnit;

/* Where a tree's stacks come from. */
typedef enum
{
  SL_CALLTREE_FROM_SAMPLES,   /* CPU samples; where the scope has none, its nested ranges */
  SL_CALLTREE_FROM_CUDA_API,  /* CUDA API calls with a backtrace (nsys --cudabacktrace) */
} SlCalltreeSource;

/* How a CUDA API call counts in a tree of them. */
typedef enum
{
  SL_CALLTREE_BY_COUNT,       /* once */
  SL_CALLTREE_BY_TIME,        /* its duration, in ns */
} SlCalltreeWeight;

#define SL_CALLTREE_NONE     G_MAXUINT32
/* The symbol of the node that stands for samples with no call chain, shown as "[no stack]". */
#define SL_CALLTREE_NO_STACK ((guint32) 0xFFFFFFFEu)
/* The symbol of the one node that stands for every step of a PyTorch profile ("ProfilerStep#12",
 * "ProfilerStep#13" …) in a tree of ranges, shown as "ProfilerStep*" as PyTorch's
 * key_averages () and TensorBoard name it: an operator's time adds up across steps. */
#define SL_CALLTREE_STEPS    ((guint32) 0xFFFFFFFDu)
/* In a tree of CUDA API calls, the leaf frame that stands for the call itself: this bit | the
 * call's name (a string id), shown as every pane names the call ("cudaLaunchKernel", without
 * nsys's _vNNNN); the frames above it are the call's backtrace. */
#define SL_CALLTREE_API_CALL 0x80000000u

/*
 * One node; node 0 of each order is the root (every sample, no symbol).  `total` counts the
 * samples whose stack passes through this node's path, each sample once; `self` those whose leaf
 * frame is this node (top-down: the path is the whole stack; bottom-up: the roots only).
 */
typedef struct
{
  guint32 symbol;         /* string id; SL_CALLTREE_NO_STACK; SL_NO_STR when the file has none */
  guint32 module;         /* string id, SL_NO_STR when unknown */
  guint32 parent;         /* SL_CALLTREE_NONE for the root */
  guint32 first_child;    /* children are in order of total, largest first */
  guint32 next_sibling;
  guint32 depth;          /* 0 for the root */
  guint64 self;
  guint64 total;
} SlCalltreeNode;

/* One function (symbol in module) over the selection: samples taken in it, and samples whose
 * stack holds it (a function that recurses counts once per sample). */
typedef struct
{
  guint32 symbol;
  guint32 module;
  guint64 self;
  guint64 total;
} SlCalltreeFunction;

/* What to aggregate: samples (or CUDA API calls) with t0 <= time (start) < t1 on the given
 * threads. */
typedef struct
{
  SlTime            t0;
  SlTime            t1;
  const guint      *threads;      /* indices into the trace's thread table; NULL: every thread */
  guint             n_threads;
  SlCalltreeSource  source;
  SlCalltreeWeight  weight;       /* CUDA API calls: by count or by time */
  const char       *name_pattern; /* CUDA API calls: those whose name (as shown: no _vNNNN)
                                   * matches this glob ('*', '?') or, without either, holds this
                                   * text; NULL: every call */
} SlCalltreeScope;

/* The whole trace, every thread, CPU samples. */
void                      sl_calltree_scope_init    (SlCalltreeScope *scope);

/*
 * Builds both trees and the function table.  Identical stacks are merged first, so the cost is
 * one pass over the samples' frames plus the tree work per distinct stack: 1 M samples of ~40
 * frames in ~0.13 s of CPU (bench-calltree).  Returns NULL only when cancelled
 * (G_IO_ERROR_CANCELLED).
 */
SlCalltree               *sl_calltree_build         (SlTrace               *trace,
                                                     const SlCalltreeScope *scope,
                                                     GCancellable          *cancellable,
                                                     GError               **error);
SlCalltree               *sl_calltree_ref           (SlCalltree            *tree);
void                      sl_calltree_unref         (SlCalltree            *tree);

SlTrace                  *sl_calltree_get_trace     (SlCalltree            *tree);
/* Samples in the scope (the roots' total). */
guint64                   sl_calltree_get_n_samples (SlCalltree            *tree);
SlCalltreeUnit            sl_calltree_get_unit      (SlCalltree            *tree);
/* Where its stacks came from: CPU samples (or ranges), or CUDA API calls. */
SlCalltreeSource          sl_calltree_get_source    (SlCalltree            *tree);
/* A count as the tree's unit says: "1,234 samples" ("1,234" without `with_unit`), or a duration
 * ("12.345 ms") for a tree of ranges. */
char                     *sl_calltree_format_value  (SlCalltree            *tree,
                                                     guint64                value,
                                                     gboolean               with_unit);
guint                     sl_calltree_get_n_nodes   (SlCalltree            *tree,
                                                     SlCalltreeOrder        order);
const SlCalltreeNode     *sl_calltree_get_node      (SlCalltree            *tree,
                                                     SlCalltreeOrder        order,
                                                     guint                  i);
/* Functions in order of self samples, then total, largest first. */
guint                     sl_calltree_get_n_functions (SlCalltree          *tree);
const SlCalltreeFunction *sl_calltree_get_function  (SlCalltree            *tree,
                                                     guint                  i);
/* A symbol as people read it: the string, "[no stack]", "ProfilerStep*" or "[unknown]" for an
 * empty one. */
const char               *sl_calltree_symbol_name   (SlCalltree            *tree,
                                                     guint32                symbol);

/* The collapsed-stack format flamegraph.pl, speedscope and inferno read: one line per distinct
 * stack, `root;…;leaf COUNT`, in the order of the text; ';' and line breaks in names become '_'. */
void                      sl_calltree_write_folded  (SlCalltree            *tree,
                                                     GString               *out);
/* Functions by self samples, with total samples and percentages of the scope's samples. */
void                      sl_calltree_write_top     (SlCalltree            *tree,
                                                     GString               *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlCalltree, sl_calltree_unref)

G_END_DECLS
