/* sl-calltree.c: CPU samples aggregated into top-down and bottom-up call trees and functions;
 * where a selection has no samples, its nested ranges by time (ranges_collect); or CUDA API
 * calls by their backtraces, by count or time (api_collect).
 *
 * Three steps.  The samples of the scope are counted by chain (the reader keeps identical stacks
 * as one chain), and the chains with a count merged into distinct stacks (a hash of the chain's
 * symbols, then an exact comparison with the first chain seen so; two chains may still hold one
 * stack where the reader's hashes met): one pass over their frames.  The distinct stacks (a few thousand for a training
 * loop's million samples) are sorted from the root, then from the leaf (memcmp over their
 * frames), and each order becomes its tree by the common prefix with the stack before it: every
 * node is made once, with no lookup.  Last, each node's children are ordered by total.
 */
#include "sl-calltree.h"

#include <stdlib.h>
#include <string.h>

#include "sl-display-name.h"
#include "sl-format.h"
#include "sl-lane.h"
#include "sl-trace-private.h"

struct _SlCalltree
{
  gint            ref_count;
  SlTrace        *trace;
  SlCalltreeUnit  unit;
  SlCalltreeSource source;
  GArray  *nodes[SL_CALLTREE_N_ORDERS];   /* SlCalltreeNode */
  GArray  *functions;                     /* SlCalltreeFunction */
};

/* A 64-bit finalizer (Stafford's mix13) over three words: a table's index takes the low bits, so
 * every bit of every word must reach them (string ids are small and consecutive). */
static inline guint32
mix3 (guint32 a,
      guint32 b,
      guint32 c)
{
  guint64 h = ((guint64) a << 32 | b) ^ ((guint64) c * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));
  h ^= h >> 30;
  h *= G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  h ^= h >> 27;
  h *= G_GUINT64_CONSTANT (0x94D049BB133111EB);
  h ^= h >> 31;
  return (guint32) h;
}

/* ---- distinct stacks -------------------------------------------------------------------- */

typedef struct
{
  const guint32 *syms;   /* the first chain seen with these frames (the trace's arrays) */
  const guint32 *mods;
  guint32        n;
  guint32        hash;
  guint64        count;
} Stack;

typedef struct
{
  SlTrace   *trace;
  GArray    *stacks;   /* Stack */
  guint32   *slots;    /* open addressing: index into stacks + 1, 0 = empty */
  guint32    mask;
  guint64    no_stack;
  guint64    n_samples;
  GPtrArray *owned;    /* frames of stacks made here (nested ranges), not the trace's */
} Stacks;

/* FNV-1a in four independent lanes: a chain of 40 frames is hashed at the speed it is read. */
static inline guint32
chain_hash (const guint32 *syms,
            guint          n)
{
  guint32 h[4] = { 0x811C9DC5u ^ n, 0x01000193u, 0x9E3779B9u, 0x85EBCA6Bu };
  guint i = 0;

  for (; i + 4 <= n; i += 4)
    for (guint k = 0; k < 4; k++)
      h[k] = (h[k] ^ syms[i + k]) * 0x01000193u;
  for (; i < n; i++)
    h[0] = (h[0] ^ syms[i]) * 0x01000193u;
  return mix3 (h[0] ^ h[3], h[1], h[2]);
}

static void
stacks_grow (Stacks *st)
{
  guint32 n = (st->mask + 1) * 2;
  const Stack *all = (const Stack *) st->stacks->data;

  g_free (st->slots);
  st->slots = g_new0 (guint32, n);
  st->mask = n - 1;
  for (guint32 k = 0; k < st->stacks->len; k++)
    {
      guint32 s = all[k].hash & st->mask;
      while (st->slots[s] != 0)
        s = (s + 1) & st->mask;
      st->slots[s] = k + 1;
    }
}

/* Adds `count` of one stack of `n` frames, leaf first; `copy`: the frames are the caller's
 * scratch, kept by a copy when the stack is new. */
static void
stacks_add_frames (Stacks        *st,
                   const guint32 *syms,
                   const guint32 *mods,
                   guint          n,
                   guint64        count,
                   gboolean       copy)
{
  st->n_samples += count;
  if (n == 0)
    {
      st->no_stack += count;
      return;
    }

  guint32 h = chain_hash (syms, n);
  Stack *all = (Stack *) st->stacks->data;
  guint32 s = h & st->mask;
  for (guint32 e; (e = st->slots[s]) != 0; s = (s + 1) & st->mask)
    {
      Stack *k = &all[e - 1];
      if (k->hash == h && k->n == n && memcmp (k->syms, syms, n * sizeof *syms) == 0
          && memcmp (k->mods, mods, n * sizeof *mods) == 0)
        {
          k->count += count;
          return;
        }
    }

  if (copy)
    {
      guint32 *both = g_new (guint32, 2 * n);
      memcpy (both, syms, n * sizeof *syms);
      memcpy (both + n, mods, n * sizeof *mods);
      g_ptr_array_add (st->owned, both);
      syms = both;
      mods = both + n;
    }
  Stack stack = { syms, mods, n, h, count };
  st->slots[s] = st->stacks->len + 1;
  g_array_append_val (st->stacks, stack);
  if (st->stacks->len * 2 > st->mask)
    stacks_grow (st);
}

/* Adds `count` samples of one chain. */
static inline void
stacks_add (Stacks  *st,
            guint32  chain,
            guint64  count)
{
  const guint32 *syms, *mods;
  guint n = sl_trace_get_callchain (st->trace, chain, &syms, &mods);

  stacks_add_frames (st, syms, mods, n, count, FALSE);
}

/* The scope's threads as a mask over the trace's, NULL for every thread. */
static gboolean *
scope_threads (const SlCalltreeScope *scope,
               guint                  n_threads)
{
  if (scope->threads == NULL)
    return NULL;
  gboolean *wanted = g_new0 (gboolean, MAX (n_threads, 1));
  for (guint i = 0; i < scope->n_threads; i++)
    if (scope->threads[i] < n_threads)
      wanted[scope->threads[i]] = TRUE;
  return wanted;
}

/* Every sample of the scope, lane by lane, counted by chain (the reader keeps one chain for
 * identical stacks: a few thousand for a million samples), then each chain's count added with its
 * frames read once; FALSE when cancelled. */
static gboolean
stacks_collect (Stacks                *st,
                const SlCalltreeScope *scope,
                GCancellable          *cancellable)
{
  guint n_threads = sl_trace_get_n_threads (st->trace);
  guint32 n_chains = st->trace->chain_offsets->len - 1;
  g_autofree gboolean *wanted = scope_threads (scope, n_threads);
  g_autofree guint64 *per_chain = g_new0 (guint64, MAX (n_chains, 1));

  for (guint l = 0; l < sl_trace_get_n_lanes (st->trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (st->trace, l);
      if (lane->kind != SL_LANE_SAMPLES || lane->thread < 0)
        continue;
      if (wanted != NULL && ((guint) lane->thread >= n_threads || !wanted[lane->thread]))
        continue;
      for (gsize i = sl_lane_lower_bound (lane, scope->t0); i < lane->n_events; i++)
        {
          if (lane->events[i].start >= scope->t1)
            break;
          if ((i & 0xFFFF) == 0 && g_cancellable_is_cancelled (cancellable))
            return FALSE;
          if (lane->events[i].aux < n_chains)
            per_chain[lane->events[i].aux]++;
          else
            stacks_add (st, lane->events[i].aux, 1);
        }
    }
  for (guint32 c = 0; c < n_chains; c++)
    if (per_chain[c] > 0)
      stacks_add (st, c, per_chain[c]);
  return TRUE;
}

/* Whether a CUDA API call's name (as shown) passes the scope's pattern; `seen` keeps the answer
 * by name id (a trace has a few hundred API names for 10^6 … 10^7 calls). */
static gboolean
api_name_wanted (SlTrace      *trace,
                 GPatternSpec *glob,
                 const char   *text,
                 GHashTable   *seen,
                 guint32       name)
{
  gpointer known = g_hash_table_lookup (seen, GUINT_TO_POINTER (name + 1));
  if (known != NULL)
    return GPOINTER_TO_UINT (known) == 1;

  const char *shown = sl_trace_display_name (trace, SL_LANE_CUDA_API, name);
  gboolean yes = glob != NULL ? g_pattern_spec_match_string (glob, shown)
                              : strstr (shown, text) != NULL;
  g_hash_table_insert (seen, GUINT_TO_POINTER (name + 1), GUINT_TO_POINTER (yes ? 1 : 2));
  return yes;
}

/* The CUDA API calls of the scope that have a backtrace (CUDA_CALLCHAINS): each its backtrace
 * under a leaf frame for the call itself (SL_CALLTREE_API_CALL | its name), counted once or by
 * its duration.  Calls without one are left out: nsys records those of calls over a threshold
 * only.  FALSE when cancelled. */
static gboolean
api_collect (Stacks                *st,
             const SlCalltreeScope *scope,
             GCancellable          *cancellable)
{
  guint n_threads = sl_trace_get_n_threads (st->trace);
  g_autofree gboolean *wanted = scope_threads (scope, n_threads);
  const char *pattern = scope->name_pattern;
  g_autoptr (GPatternSpec) glob = pattern != NULL && strpbrk (pattern, "*?") != NULL
                                  ? g_pattern_spec_new (pattern) : NULL;
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  g_autoptr (GArray) frames = g_array_new (FALSE, FALSE, sizeof (guint32));

  if (sl_trace_get_n_cuda_callchains (st->trace) == 0)
    return TRUE;
  for (guint l = 0; l < sl_trace_get_n_lanes (st->trace); l++)
    {
      const SlLane *lane = sl_trace_get_lane (st->trace, l);
      if (lane->kind != SL_LANE_CUDA_API || lane->thread < 0)
        continue;
      if (wanted != NULL && ((guint) lane->thread >= n_threads || !wanted[lane->thread]))
        continue;
      for (gsize i = sl_lane_lower_bound (lane, scope->t0); i < lane->n_events; i++)
        {
          const SlEvent *ev = &lane->events[i];
          const guint32 *syms, *mods;
          if (ev->start >= scope->t1)
            break;
          if ((i & 0xFFFF) == 0 && g_cancellable_is_cancelled (cancellable))
            return FALSE;
          guint n = sl_trace_get_cuda_callchain (st->trace, lane, ev, &syms, &mods);
          if (n == 0 || ev->name >= SL_CALLTREE_API_CALL)
            continue;
          if (pattern != NULL && !api_name_wanted (st->trace, glob, pattern, seen, ev->name))
            continue;
          /* symbols then modules, the call's own frame first in each */
          g_array_set_size (frames, 2 * (n + 1));
          guint32 *f = (guint32 *) frames->data;
          f[0] = SL_CALLTREE_API_CALL | ev->name;
          memcpy (f + 1, syms, n * sizeof *syms);
          f[n + 1] = SL_NO_STR;
          memcpy (f + n + 2, mods, n * sizeof *mods);
          guint64 weight = scope->weight == SL_CALLTREE_BY_TIME
                           ? (guint64) MAX (ev->end - ev->start, 0) : 1;
          stacks_add_frames (st, f, f + n + 1, n + 1, weight, TRUE);
        }
    }
  return TRUE;
}

#define MAX_RANGE_DEPTH 256

/* The part of [a, b) in the scope. */
static inline SlTime
in_scope (const SlCalltreeScope *scope,
          SlTime                 a,
          SlTime                 b)
{
  SlTime d = MIN (b, scope->t1) - MAX (a, scope->t0);
  return d > 0 ? d : 0;
}

/* The event of `lane` covering time `t`, or NULL (events of one depth do not overlap). */
static const SlEvent *
covering (const SlLane *lane,
          SlTime        t)
{
  gsize i = sl_lane_lower_bound (lane, t + 1);   /* the first starting after t */
  if (i == 0)
    return NULL;
  const SlEvent *e = &lane->events[i - 1];
  return e->start <= t && t < e->end ? e : NULL;
}

/* A range's frame in the tree of ranges.  Kineto's span of the whole profile ("PyTorch Profiler
 * (0)", on a "Spans" thread of its own) is the profiler's bookkeeping: no frame, SL_CALLTREE_NONE
 * (what it holds, if anything, starts at the depth below).  The steps ("ProfilerStep#12") are
 * one frame, SL_CALLTREE_STEPS, as HTA and TensorBoard aggregate them. */
static guint32
range_symbol (SlTrace *trace,
              guint32  name)
{
  const char *s = sl_trace_str (trace, name);

  if (s == NULL || s[0] != 'P')
    return name;
  if (g_str_has_prefix (s, "ProfilerStep#"))
    return SL_CALLTREE_STEPS;
  if (g_str_has_prefix (s, "PyTorch Profiler ("))
    return SL_CALLTREE_NONE;
  return name;
}

/* Where the scope has no CPU samples: the nested ranges of its threads (NVTX lanes by depth: a
 * Kineto trace's python_function, cpu_op and user_annotation events, an nsys trace's NVTX ranges)
 * make the stacks, weighted by time: each range's self time in the scope (its part of the scope
 * less its children's) counts for its path from the outermost range.  FALSE when cancelled. */
static gboolean
ranges_collect (Stacks                *st,
                const SlCalltreeScope *scope,
                GCancellable          *cancellable)
{
  SlTrace *trace = st->trace;
  guint n_threads = sl_trace_get_n_threads (trace);
  g_autofree gboolean *wanted = scope_threads (scope, n_threads);
  /* per thread, its NVTX lanes by depth */
  g_autofree const SlLane **by_depth = g_new0 (const SlLane *, MAX_RANGE_DEPTH);
  guint32 syms[MAX_RANGE_DEPTH], mods[MAX_RANGE_DEPTH];

  for (guint i = 0; i < MAX_RANGE_DEPTH; i++)
    mods[i] = SL_NO_STR;
  for (guint th = 0; th < n_threads; th++)
    {
      if (wanted != NULL && !wanted[th])
        continue;
      guint n_depths = 0;
      memset (by_depth, 0, MAX_RANGE_DEPTH * sizeof *by_depth);
      for (guint l = 0; l < sl_trace_get_n_lanes (trace); l++)
        {
          const SlLane *lane = sl_trace_get_lane (trace, l);
          if (lane->kind == SL_LANE_NVTX && lane->thread == (gint) th
              && lane->depth < MAX_RANGE_DEPTH)
            {
              by_depth[lane->depth] = lane;
              n_depths = MAX (n_depths, lane->depth + 1);
            }
        }
      for (guint d = 0; d < n_depths && by_depth[d] != NULL; d++)
        {
          const SlLane *lane = by_depth[d];
          const SlLane *inner = d + 1 < n_depths ? by_depth[d + 1] : NULL;
          /* ranges of one depth do not overlap: one that starts before the scope may reach in */
          gsize first = sl_lane_lower_bound (lane, scope->t0);
          if (first > 0 && lane->events[first - 1].end > scope->t0)
            first--;
          for (gsize i = first; i < lane->n_events; i++)
            {
              const SlEvent *e = &lane->events[i];
              if (e->start >= scope->t1)
                break;
              if ((i & 0xFFFF) == 0 && g_cancellable_is_cancelled (cancellable))
                return FALSE;
              guint32 symbol = range_symbol (trace, e->name);
              if ((e->link & SL_NVTX_MARK) != 0 || symbol == SL_CALLTREE_NONE)
                continue;
              SlTime self = in_scope (scope, e->start, e->end);
              for (gsize c = inner != NULL ? sl_lane_lower_bound (inner, e->start) : 0;
                   inner != NULL && c < inner->n_events && inner->events[c].start < e->end; c++)
                if ((inner->events[c].link & SL_NVTX_MARK) == 0)
                  self -= in_scope (scope, MAX (inner->events[c].start, e->start),
                                    MIN (inner->events[c].end, e->end));
              if (self <= 0)
                continue;
              /* its path, leaf first: it, then the range around it at each depth above */
              guint n = 0;
              syms[n++] = symbol;
              for (guint up = d; up > 0; up--)
                {
                  const SlEvent *p = covering (by_depth[up - 1], e->start);
                  if (p == NULL)
                    break;
                  guint32 outer = range_symbol (trace, p->name);
                  if (outer != SL_CALLTREE_NONE)
                    syms[n++] = outer;
                }
              stacks_add_frames (st, syms, mods, n, (guint64) self, TRUE);
            }
        }
    }
  return TRUE;
}

/* ---- functions -------------------------------------------------------------------------- */

typedef struct
{
  GArray  *functions;  /* SlCalltreeFunction */
  GArray  *stamp;      /* guint32: the last stack that counted the function, + 1 */
  guint32 *slots;      /* open addressing: index into functions + 1 */
  guint32  mask;
} Functions;

static void
functions_grow (Functions *fs)
{
  guint32 n = (fs->mask + 1) * 2;
  const SlCalltreeFunction *all = (const SlCalltreeFunction *) fs->functions->data;

  g_free (fs->slots);
  fs->slots = g_new0 (guint32, n);
  fs->mask = n - 1;
  for (guint32 k = 0; k < fs->functions->len; k++)
    {
      guint32 s = mix3 (all[k].symbol, all[k].module, 0) & fs->mask;
      while (fs->slots[s] != 0)
        s = (s + 1) & fs->mask;
      fs->slots[s] = k + 1;
    }
}

static guint32
function_find (Functions *fs,
               guint32    symbol,
               guint32    module)
{
  guint32 s = mix3 (symbol, module, 0) & fs->mask;
  const SlCalltreeFunction *all = (const SlCalltreeFunction *) fs->functions->data;

  for (guint32 e; (e = fs->slots[s]) != 0; s = (s + 1) & fs->mask)
    if (all[e - 1].symbol == symbol && all[e - 1].module == module)
      return e - 1;

  guint32 index = fs->functions->len, zero = 0;
  SlCalltreeFunction f = { symbol, module, 0, 0 };
  g_array_append_val (fs->functions, f);
  g_array_append_val (fs->stamp, zero);
  fs->slots[s] = index + 1;
  if (fs->functions->len * 2 > fs->mask)
    functions_grow (fs);
  return index;
}

/* Counts a stack (`stack`, its leaf function `leaf`) once in each function of `fns`. */
static void
functions_add (Functions     *fs,
               guint32        stack,
               const guint32 *fns,
               guint          n,
               guint32        leaf,
               guint64        count)
{
  SlCalltreeFunction *all = (SlCalltreeFunction *) fs->functions->data;
  guint32 *stamp = (guint32 *) fs->stamp->data;

  for (guint i = 0; i < n; i++)
    if (stamp[fns[i]] != stack + 1)
      {
        stamp[fns[i]] = stack + 1;
        all[fns[i]].total += count;
      }
  all[leaf].self += count;
}

static int
compare_functions (const void *a,
                   const void *b)
{
  const SlCalltreeFunction *x = a, *y = b;

  if (x->self != y->self)
    return x->self > y->self ? -1 : 1;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  if (x->symbol != y->symbol)
    return x->symbol < y->symbol ? -1 : 1;
  return x->module < y->module ? -1 : x->module > y->module;
}

/* ---- trees from sorted stacks ----------------------------------------------------------- */

/* A distinct stack as one order reads it: its frames as (symbol, module) pairs from the root
 * (top-down) or from the leaf (bottom-up), in one buffer, so that sorting compares with memcmp.
 * Any lexicographic order over whole frames puts the stacks that share a prefix together, which
 * is all the tree needs. */
typedef struct
{
  const guint32 *frames;
  guint32        n;
  guint64        count;
} Keyed;

static int
compare_keyed (const void *a,
               const void *b)
{
  const Keyed *x = a, *y = b;
  int c = memcmp (x->frames, y->frames, 2 * sizeof (guint32) * MIN (x->n, y->n));

  if (c != 0)
    return c;
  return x->n < y->n ? -1 : x->n > y->n;
}

/* The stacks as `from_root` reads them, sorted; `buffer` holds their frames. */
static Keyed *
sort_stacks (GArray   *stacks,
             gboolean  from_root,
             guint32 **buffer)
{
  gsize total = 0, at = 0;
  Keyed *keyed = g_new (Keyed, MAX (stacks->len, 1));

  for (guint k = 0; k < stacks->len; k++)
    total += g_array_index (stacks, Stack, k).n;
  *buffer = g_new (guint32, MAX (2 * total, 1));
  for (guint k = 0; k < stacks->len; k++)
    {
      const Stack *s = &g_array_index (stacks, Stack, k);
      guint32 *f = *buffer + at;
      for (guint d = 0; d < s->n; d++)
        {
          guint i = from_root ? s->n - 1 - d : d;
          f[2 * d] = s->syms[i];
          f[2 * d + 1] = s->mods[i];
        }
      keyed[k] = (Keyed) { f, s->n, s->count };
      at += 2 * s->n;
    }
  if (stacks->len > 1)
    qsort (keyed, stacks->len, sizeof *keyed, compare_keyed);
  return keyed;
}

static guint32
add_node (GArray  *nodes,
          guint32  parent,
          guint32  symbol,
          guint32  module)
{
  SlCalltreeNode *p = &g_array_index (nodes, SlCalltreeNode, parent);
  SlCalltreeNode node = { symbol, module, parent, SL_CALLTREE_NONE, p->first_child,
                          p->depth + 1, 0, 0 };
  guint32 index = nodes->len;

  p->first_child = index;
  g_array_append_val (nodes, node);
  return index;
}

static int
compare_siblings (const void *a,
                  const void *b,
                  void       *data)
{
  const SlCalltreeNode *nodes = data;
  const SlCalltreeNode *x = &nodes[*(const guint32 *) a], *y = &nodes[*(const guint32 *) b];

  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  if (x->symbol != y->symbol)
    return x->symbol < y->symbol ? -1 : 1;
  return x->module < y->module ? -1 : x->module > y->module;
}

/* Orders every node's children by total, largest first. */
static void
order_children (GArray *array)
{
  SlCalltreeNode *nodes = (SlCalltreeNode *) array->data;
  g_autoptr (GArray) kids = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint32 i = 0; i < array->len; i++)
    {
      if (nodes[i].first_child == SL_CALLTREE_NONE
          || nodes[nodes[i].first_child].next_sibling == SL_CALLTREE_NONE)
        continue;
      g_array_set_size (kids, 0);
      for (guint32 c = nodes[i].first_child; c != SL_CALLTREE_NONE; c = nodes[c].next_sibling)
        g_array_append_val (kids, c);
      g_qsort_with_data (kids->data, kids->len, sizeof (guint32), compare_siblings, nodes);
      const guint32 *k = (const guint32 *) kids->data;
      nodes[i].first_child = k[0];
      for (guint j = 0; j + 1 < kids->len; j++)
        nodes[k[j]].next_sibling = k[j + 1];
      nodes[k[kids->len - 1]].next_sibling = SL_CALLTREE_NONE;
    }
}

/*
 * One order's tree from the distinct stacks sorted for it: each stack shares the nodes of its
 * common prefix with the one before and adds the rest.  Top-down, the functions are counted on
 * the way (one lookup per node made, not per frame).
 */
static GArray *
build_tree (const Keyed *sorted,
            guint        n_stacks,
            guint64      no_stack,
            gboolean     from_root,
            Functions   *fs)
{
  gsize most = 2;   /* nodes: at most a root, a node per frame and [no stack] */
  for (guint k = 0; k < n_stacks; k++)
    most += sorted[k].n;
  GArray *nodes = g_array_sized_new (FALSE, FALSE, sizeof (SlCalltreeNode),
                                     (guint) MIN (most, 1u << 24));
  g_autoptr (GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));   /* node per depth */
  g_autoptr (GArray) fns = g_array_new (FALSE, FALSE, sizeof (guint32));    /* function per depth */
  g_autoptr (GArray) node_fn = g_array_new (FALSE, FALSE, sizeof (guint32)); /* per node */
  SlCalltreeNode root = { SL_NO_STR, SL_NO_STR, SL_CALLTREE_NONE, SL_CALLTREE_NONE,
                          SL_CALLTREE_NONE, 0, 0, 0 };
  guint32 zero = 0;
  const Keyed *prev = NULL;

  g_array_append_val (nodes, root);
  g_array_append_val (path, zero);
  g_array_append_val (node_fn, zero);
  for (guint k = 0; k < n_stacks; k++)
    {
      const Keyed *s = &sorted[k];
      guint common = 0;
      if (prev != NULL)
        while (common < MIN (s->n, prev->n)
               && s->frames[2 * common] == prev->frames[2 * common]
               && s->frames[2 * common + 1] == prev->frames[2 * common + 1])
          common++;
      g_array_set_size (path, s->n + 1);
      g_array_set_size (fns, s->n);
      guint32 *p = (guint32 *) path->data, *f = (guint32 *) fns->data;
      for (guint d = common; d < s->n; d++)
        {
          guint32 sym = s->frames[2 * d], mod = s->frames[2 * d + 1];
          p[d + 1] = add_node (nodes, p[d], sym, mod);
          guint32 fn = fs != NULL ? function_find (fs, sym, mod) : 0;
          g_array_append_val (node_fn, fn);
        }
      SlCalltreeNode *all = (SlCalltreeNode *) nodes->data;
      const guint32 *nf = (const guint32 *) node_fn->data;
      for (guint d = 1; d <= s->n; d++)
        {
          all[p[d]].total += s->count;
          f[d - 1] = nf[p[d]];
        }
      all[p[from_root ? s->n : 1]].self += s->count;
      if (fs != NULL)
        functions_add (fs, k, f, s->n, f[s->n - 1], s->count);
      prev = s;
    }
  if (no_stack > 0)
    {
      guint32 i = add_node (nodes, 0, SL_CALLTREE_NO_STACK, SL_NO_STR);   /* may move `nodes` */
      SlCalltreeNode *n = &g_array_index (nodes, SlCalltreeNode, i);
      n->self = n->total = no_stack;
      if (fs != NULL)
        {
          guint32 fn = function_find (fs, SL_CALLTREE_NO_STACK, SL_NO_STR);
          functions_add (fs, n_stacks, &fn, 1, fn, no_stack);
        }
    }
  return nodes;
}

/* ---- building ---------------------------------------------------------------------------- */

void
sl_calltree_scope_init (SlCalltreeScope *scope)
{
  g_return_if_fail (scope != NULL);
  *scope = (SlCalltreeScope) { G_MININT64, G_MAXINT64, NULL, 0, SL_CALLTREE_FROM_SAMPLES,
                               SL_CALLTREE_BY_COUNT, NULL };
}

SlCalltree *
sl_calltree_build (SlTrace               *trace,
                   const SlCalltreeScope *scope,
                   GCancellable          *cancellable,
                   GError               **error)
{
  SlCalltreeScope whole;
  Stacks st = { trace, g_array_new (FALSE, FALSE, sizeof (Stack)), g_new0 (guint32, 4096), 4095,
                0, 0, g_ptr_array_new_with_free_func (g_free) };
  SlCalltreeUnit unit = SL_CALLTREE_SAMPLES;
  Functions fs = { g_array_new (FALSE, FALSE, sizeof (SlCalltreeFunction)),
                   g_array_new (FALSE, FALSE, sizeof (guint32)), g_new0 (guint32, 256), 255 };

  g_return_val_if_fail (trace != NULL, NULL);
  if (scope == NULL)
    {
      sl_calltree_scope_init (&whole);
      scope = &whole;
    }

  gboolean ok;
  if (scope->source == SL_CALLTREE_FROM_CUDA_API)
    {
      unit = scope->weight == SL_CALLTREE_BY_TIME ? SL_CALLTREE_NANOSECONDS : SL_CALLTREE_CALLS;
      ok = api_collect (&st, scope, cancellable);
    }
  else if ((ok = stacks_collect (&st, scope, cancellable)) && st.n_samples == 0)
    {
      unit = SL_CALLTREE_NANOSECONDS;
      ok = ranges_collect (&st, scope, cancellable);
    }
  g_clear_pointer (&st.slots, g_free);
  if (!ok || g_cancellable_is_cancelled (cancellable))
    {
      g_array_unref (st.stacks);
      g_ptr_array_unref (st.owned);
      g_array_unref (fs.functions);
      g_array_unref (fs.stamp);
      g_free (fs.slots);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
      return NULL;
    }

  SlCalltree *tree = g_new0 (SlCalltree, 1);
  tree->ref_count = 1;
  tree->trace = sl_trace_ref (trace);
  tree->unit = unit;
  tree->source = scope->source;
  for (guint o = 0; o < SL_CALLTREE_N_ORDERS; o++)
    {
      gboolean from_root = o == SL_CALLTREE_TOP_DOWN;
      g_autofree guint32 *buffer = NULL;
      g_autofree Keyed *sorted = sort_stacks (st.stacks, from_root, &buffer);
      tree->nodes[o] = build_tree (sorted, st.stacks->len, st.no_stack, from_root,
                                   from_root ? &fs : NULL);
      g_array_index (tree->nodes[o], SlCalltreeNode, 0).total = st.n_samples;
      order_children (tree->nodes[o]);
    }
  g_array_unref (st.stacks);
  g_ptr_array_unref (st.owned);
  g_array_unref (fs.stamp);
  g_free (fs.slots);
  tree->functions = fs.functions;
  g_array_sort (tree->functions, compare_functions);
  return tree;
}

SlCalltree *
sl_calltree_ref (SlCalltree *tree)
{
  g_return_val_if_fail (tree != NULL, NULL);
  g_atomic_int_inc (&tree->ref_count);
  return tree;
}

void
sl_calltree_unref (SlCalltree *tree)
{
  if (tree == NULL || !g_atomic_int_dec_and_test (&tree->ref_count))
    return;
  for (guint i = 0; i < SL_CALLTREE_N_ORDERS; i++)
    g_array_unref (tree->nodes[i]);
  g_array_unref (tree->functions);
  sl_trace_unref (tree->trace);
  g_free (tree);
}

/* ---- reading ----------------------------------------------------------------------------- */

SlTrace *
sl_calltree_get_trace (SlCalltree *tree)
{
  g_return_val_if_fail (tree != NULL, NULL);
  return tree->trace;
}

guint64
sl_calltree_get_n_samples (SlCalltree *tree)
{
  g_return_val_if_fail (tree != NULL, 0);
  return g_array_index (tree->nodes[SL_CALLTREE_TOP_DOWN], SlCalltreeNode, 0).total;
}

SlCalltreeUnit
sl_calltree_get_unit (SlCalltree *tree)
{
  g_return_val_if_fail (tree != NULL, SL_CALLTREE_SAMPLES);
  return tree->unit;
}

SlCalltreeSource
sl_calltree_get_source (SlCalltree *tree)
{
  g_return_val_if_fail (tree != NULL, SL_CALLTREE_FROM_SAMPLES);
  return tree->source;
}

char *
sl_calltree_format_value (SlCalltree *tree,
                          guint64     value,
                          gboolean    with_unit)
{
  g_return_val_if_fail (tree != NULL, NULL);
  gint64 v = (gint64) MIN (value, (guint64) G_MAXINT64);
  if (tree->unit == SL_CALLTREE_NANOSECONDS)
    return sl_format_duration (v);
  g_autofree char *n = sl_format_int (v);
  if (tree->unit == SL_CALLTREE_CALLS)
    return with_unit ? g_strdup_printf ("%s %s", n, value == 1 ? "call" : "calls")
                     : g_steal_pointer (&n);
  return with_unit ? g_strdup_printf ("%s %s", n, value == 1 ? "sample" : "samples")
                   : g_steal_pointer (&n);
}

guint
sl_calltree_get_n_nodes (SlCalltree      *tree,
                         SlCalltreeOrder  order)
{
  g_return_val_if_fail (tree != NULL && order < SL_CALLTREE_N_ORDERS, 0);
  return tree->nodes[order]->len;
}

const SlCalltreeNode *
sl_calltree_get_node (SlCalltree      *tree,
                      SlCalltreeOrder  order,
                      guint            i)
{
  g_return_val_if_fail (tree != NULL && order < SL_CALLTREE_N_ORDERS, NULL);
  g_return_val_if_fail (i < tree->nodes[order]->len, NULL);
  return &g_array_index (tree->nodes[order], SlCalltreeNode, i);
}

guint
sl_calltree_get_n_functions (SlCalltree *tree)
{
  g_return_val_if_fail (tree != NULL, 0);
  return tree->functions->len;
}

const SlCalltreeFunction *
sl_calltree_get_function (SlCalltree *tree,
                          guint       i)
{
  g_return_val_if_fail (tree != NULL && i < tree->functions->len, NULL);
  return &g_array_index (tree->functions, SlCalltreeFunction, i);
}

const char *
sl_calltree_symbol_name (SlCalltree *tree,
                         guint32     symbol)
{
  g_return_val_if_fail (tree != NULL, NULL);
  if (symbol == SL_CALLTREE_NO_STACK)
    return "[no stack]";
  if (symbol == SL_CALLTREE_STEPS)
    return "ProfilerStep*";
  const char *s = symbol != SL_CALLTREE_NONE && (symbol & SL_CALLTREE_API_CALL)
                  ? sl_trace_display_name (tree->trace, SL_LANE_CUDA_API,
                                           symbol & ~SL_CALLTREE_API_CALL)
                  : sl_trace_str (tree->trace, symbol);
  return s == NULL || *s == '\0' ? "[unknown]" : s;
}

/* ---- output ------------------------------------------------------------------------------ */

static void
append_folded_name (GString    *out,
                    const char *name)
{
  for (const char *c = name; *c != '\0'; c++)
    g_string_append_c (out, *c == ';' || *c == '\n' || *c == '\r' ? '_' : *c);
}

typedef struct
{
  char   *line;
  guint64 count;
} FoldedLine;

static int
compare_folded (const void *a,
                const void *b)
{
  return strcmp (((const FoldedLine *) a)->line, ((const FoldedLine *) b)->line);
}

void
sl_calltree_write_folded (SlCalltree *tree,
                          GString    *out)
{
  g_return_if_fail (tree != NULL && out != NULL);

  const SlCalltreeNode *nodes = (const SlCalltreeNode *) tree->nodes[SL_CALLTREE_TOP_DOWN]->data;
  /* stacks that differ only in modules print the same line: one line, their counts summed */
  g_autoptr (GHashTable) lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GString) path = g_string_new (NULL);
  /* the path's length at each depth */
  g_autoptr (GArray) offsets = g_array_new (FALSE, FALSE, sizeof (gsize));
  guint32 node = nodes[0].first_child;

  /* depth-first, keeping the path to the current node in `path` */
  while (node != SL_CALLTREE_NONE)
    {
      const SlCalltreeNode *n = &nodes[node];
      g_array_set_size (offsets, n->depth);
      g_string_truncate (path, n->depth > 1 ? g_array_index (offsets, gsize, n->depth - 2) : 0);
      if (n->depth > 1)
        g_string_append_c (path, ';');
      append_folded_name (path, sl_calltree_symbol_name (tree, n->symbol));
      g_array_index (offsets, gsize, n->depth - 1) = path->len;
      if (n->self > 0)
        {
          gpointer old = NULL;
          if (g_hash_table_lookup_extended (lines, path->str, NULL, &old))
            g_hash_table_insert (lines, g_strdup (path->str),
                                 GSIZE_TO_POINTER (GPOINTER_TO_SIZE (old) + n->self));
          else
            g_hash_table_insert (lines, g_strdup (path->str), GSIZE_TO_POINTER (n->self));
        }
      if (n->first_child != SL_CALLTREE_NONE)
        node = n->first_child;
      else
        {
          while (node != SL_CALLTREE_NONE && nodes[node].next_sibling == SL_CALLTREE_NONE)
            node = nodes[node].parent;
          if (node != SL_CALLTREE_NONE)
            node = node == 0 ? SL_CALLTREE_NONE : nodes[node].next_sibling;
        }
    }

  g_autoptr (GArray) sorted = g_array_sized_new (FALSE, FALSE, sizeof (FoldedLine),
                                                 g_hash_table_size (lines));
  GHashTableIter iter;
  gpointer key, value;
  g_hash_table_iter_init (&iter, lines);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      FoldedLine line = { key, GPOINTER_TO_SIZE (value) };
      g_array_append_val (sorted, line);
    }
  g_array_sort (sorted, compare_folded);
  for (guint i = 0; i < sorted->len; i++)
    {
      const FoldedLine *line = &g_array_index (sorted, FoldedLine, i);
      g_string_append_printf (out, "%s %" G_GUINT64_FORMAT "\n", line->line, line->count);
    }
}

void
sl_calltree_write_top (SlCalltree *tree,
                       GString    *out)
{
  g_return_if_fail (tree != NULL && out != NULL);

  guint64 n = sl_calltree_get_n_samples (tree);
  double scale = n > 0 ? 100.0 / (double) n : 0.0;

  gboolean ns = tree->unit == SL_CALLTREE_NANOSECONDS;

  if (tree->source == SL_CALLTREE_FROM_CUDA_API && ns)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT " ns in CUDA API calls with a backtrace "
                                 "(self and total are times, in ns; a call's own frame is its "
                                 "name)\n\n", n);
  else if (tree->source == SL_CALLTREE_FROM_CUDA_API)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT " CUDA API calls with a backtrace (a "
                                 "call's own frame is its name)\n\n", n);
  else if (ns)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT " ns of nested ranges (no CPU samples "
                                 "here: self and total are times, in ns)\n\n", n);
  else
    g_string_append_printf (out, "%" G_GUINT64_FORMAT " samples\n\n", n);
  g_string_append_printf (out, "%10s %7s %10s %7s  %s\n", ns ? "Self (ns)" : "Self", "Self%",
                          ns ? "Total (ns)" : "Total", "Total%", "Function [module]");
  for (guint i = 0; i < tree->functions->len; i++)
    {
      const SlCalltreeFunction *f = &g_array_index (tree->functions, SlCalltreeFunction, i);
      const char *module = f->module != SL_NO_STR ? sl_trace_str (tree->trace, f->module) : "";
      g_string_append_printf (out, "%10" G_GUINT64_FORMAT " %6.2f%% %10" G_GUINT64_FORMAT
                              " %6.2f%%  %s", f->self, (double) f->self * scale, f->total,
                              (double) f->total * scale, sl_calltree_symbol_name (tree, f->symbol));
      if (module != NULL && *module != '\0')
        g_string_append_printf (out, " [%s]", module);
      g_string_append_c (out, '\n');
    }
}
