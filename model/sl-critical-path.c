/* sl-critical-path.c: the critical path of a time range, as a longest path in a graph of its
 * threads' and streams' time points (the approach of HTA's critical_path_analysis, rebuilt for
 * flat lanes and for a path that tiles the range).
 *
 * The graph.  Each thread and each GPU stream in the range is a chain of nodes, one per distinct
 * start or end of its events (clipped to [t0, t1)); consecutive nodes of a chain are joined by an
 * edge that is the time between them: on a thread, inside its innermost traced CPU event (CPU,
 * weighs its time) or a synchronizing call (wait, weighs 0) or between events (idle, 0); on a
 * stream, inside GPU work (weighs its time) or a gap, which is launch overhead (weighs its time)
 * when the work after it was queued before the stream went idle and the gap is under 1.5 ms
 * (HTA's kernel-kernel delay), else idle (0).  Across chains, dependency edges: a launch call's
 * return (its start where the work began first) to its work's start (launch delay: weighs its
 * time when the stream was idle at the launch and no cross-stream wait of that work ended after
 * it, as HTA), the end of GPU work to
 * the end of the call that waited for it (synchronization records: stream sync from the stream's
 * last work, context and event sync from each stream's, by HTA's rule; a call's own copy or set;
 * a `Synchronize` call that has no record from every stream of its process) and from the end of
 * another stream's work to the first work on a stream that waited on an event (weighs 0).  A
 * source node at t0 leads to each chain's first node and each chain's last node to a sink at t1
 * (idle, 0).  Every edge goes forward in time, so every source-to-sink path tiles [t0, t1)
 * exactly; the critical path is the one of greatest weight, the one that explains most of the
 * range by work and least by waiting.  Equal weights go to the dependency that was satisfied last.
 *
 * Cost: the events of the range (k) are visited once per lane (sl_lane_overlap), sorted per
 * chain (O(k log k)), and the longest path is one pass over the nodes in time order, taken from
 * a heap of chains (O(k log chains)): about 2k nodes of 16 bytes and a CSR of the cross edges.
 * A 1 M-event step is well under a second (bench/bench-critical-path.c).
 */
#include "sl-critical-path.h"

#include <string.h>

#include "sl-lane.h"
#include "sl-trace-private.h"

#define CP_MS               ((SlTime) 1000000)
/* A gap between queued work on a stream longer than this is a dependency the trace does not
 * show, not launch overhead (HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US). */
#define CP_QUEUE_GAP_MAX    (3 * CP_MS / 2)
/* How far the event-wait heuristic looks along a stream, in ops. */
#define CP_SCAN             64

G_DEFINE_QUARK (sl-critical-path-error-quark, sl_critical_path_error)

typedef struct
{
  SlTime  t;
  guint32 event;     /* global id of the event the interval [t, next) belongs to, or SL_NO_LINK */
  guint8  kind;      /* SlCpKind of that interval */
  guint8  weighted;  /* it counts in the path's weight */
  guint8  work_end;  /* on a stream: GPU work ends here (the interval before is covered) */
  guint8  pad;
} Node;

typedef struct
{
  gboolean gpu_chain;
  gint     thread;
  gint     gpu;
  guint32  stream_id;
  guint64  global_pid;
  gsize    first, n;    /* its nodes */
  GArray  *items;       /* Item, while building */
  GArray  *runs;        /* gsize: where each lane's items begin in `items` */
  gsize    estimate;    /* items expected, to size `items` once */
} Chain;

typedef struct
{
  SlTime  start, end;   /* clipped */
  guint32 gid;
  guint32 link;         /* the event's link: a GPU op's launch call, a call's first op */
  guint32 blocking;
} Item;

typedef struct
{
  guint32 src, dst;     /* nodes */
  guint32 event;        /* the event its time belongs to, or SL_NO_LINK */
  guint8  edge_kind;    /* SlCpEdgeKind */
  guint8  seg_kind;     /* SlCpKind */
  guint8  weighted;
} Edge;

struct _SlCriticalPath
{
  SlTime   t0, t1;
  GArray  *segments;    /* SlCpSegment */
  SlTime   by_kind[SL_CP_N_KINDS];
  SlTime   weight;
  gsize    n_nodes, n_edges, n_path_edges, n_path_events;
  gsize    edges_by_kind[SL_CP_N_EDGE_KINDS];
  gsize    path_by_kind[SL_CP_N_EDGE_KINDS];
};

typedef struct
{
  SlTrace    *trace;
  SlTime      t0, t1;
  gboolean    json;
  GArray     *chains;       /* Chain */
  gint       *thread_chain; /* thread index -> chain, -1 */
  GHashTable *stream_chain; /* StreamKey -> chain + 1 */
  GHashTable *sync_calls;   /* gid of calls a sync record points at */
  GHashTable *late_wait;    /* gid of GPU ops whose cross-stream wait ended after their launch */
  GArray     *nodes;        /* Node */
  GArray     *edges;        /* Edge */
  guint8     *domain_ok;    /* per string id: 0 unknown, 1 CPU work domain, 2 not */
  guint8     *api_class;    /* per string id: 0 unknown, else ApiClass + 1 */
  guint       n_strs;
} Builder;

const char *
sl_cp_kind_name (SlCpKind kind)
{
  static const char *const names[] = { "cpu", "gpu", "launch", "wait", "idle" };

  g_return_val_if_fail (kind < SL_CP_N_KINDS, "");
  return names[kind];
}

/* ---- chains ---------------------------------------------------------------------------------- */

/* A stream is its process's: stream ids repeat across processes (the legacy default stream is 7
 * in every one), and two processes may share a GPU (MPS, several ranks a GPU). */
typedef struct
{
  guint64 global_pid;
  gint32  gpu;
  guint32 stream;
} StreamKey;

static guint
stream_key_hash (gconstpointer p)
{
  const StreamKey *k = p;
  return (guint) (k->global_pid ^ (k->global_pid >> 32)) * 31u + (guint) k->gpu * 131u + k->stream;
}

static gboolean
stream_key_equal (gconstpointer a,
                  gconstpointer b)
{
  const StreamKey *x = a, *y = b;
  return x->global_pid == y->global_pid && x->gpu == y->gpu && x->stream == y->stream;
}

static StreamKey
stream_key (const SlLane *lane)
{
  return (StreamKey) { lane->global_pid, lane->gpu, lane->stream_id };
}

static gint
chain_of_lane (Builder      *b,
               const SlLane *lane,
               gboolean      create)
{
  if (lane->thread >= 0)
    {
      gint c = b->thread_chain[lane->thread];
      if (c >= 0 || !create)
        return c;
      Chain ch = { FALSE, lane->thread, -1, 0, lane->global_pid, 0, 0, NULL, NULL, 0 };
      g_array_append_val (b->chains, ch);
      return b->thread_chain[lane->thread] = (gint) b->chains->len - 1;
    }
  if (lane->gpu < 0)
    return -1;
  StreamKey key = stream_key (lane);
  gpointer v = g_hash_table_lookup (b->stream_chain, &key);
  if (v != NULL || !create)
    return GPOINTER_TO_INT (v) - 1;
  Chain ch = { TRUE, -1, lane->gpu, lane->stream_id, lane->global_pid, 0, 0, NULL, NULL, 0 };
  g_array_append_val (b->chains, ch);
  g_hash_table_insert (b->stream_chain, g_memdup2 (&key, sizeof key),
                       GINT_TO_POINTER ((gint) b->chains->len));
  return (gint) b->chains->len - 1;
}

static const SlEvent *
event_of (SlTrace       *trace,
          guint32        gid,
          const SlLane **lane)
{
  gsize index;

  if (gid == SL_NO_LINK || !sl_trace_resolve (trace, gid, lane, &index))
    return NULL;
  return &(*lane)->events[index];
}

/* Whether a CPU range is work the path can pass through: NVTX ranges of an nsys trace; in a
 * Kineto trace the operators (cpu_op), as HTA takes them (annotations, python_function and the
 * GPU-side copies of annotations are not work of a thread). */
static gboolean
range_is_work (Builder       *b,
               const SlEvent *ev)
{
  if ((ev->link & SL_NVTX_MARK) != 0)
    return FALSE;
  if (!b->json)
    return TRUE;
  if (ev->corr >= b->n_strs)
    return FALSE;
  if (b->domain_ok[ev->corr] == 0)
    b->domain_ok[ev->corr] = g_ascii_strcasecmp (sl_trace_str (b->trace, ev->corr), "cpu_op") == 0
                             ? 1 : 2;
  return b->domain_ok[ev->corr] == 1;
}

enum
{
  API_PLAIN = 1,
  API_BLOCKS,     /* by its name: a `Synchronize`, a synchronous copy or set */
  API_COPIES,     /* an asynchronous copy or set: it blocks when it returns after its op */
};

static guint8
api_class (const char *s)
{
  if (strstr (s, "Synchronize") != NULL)
    return API_BLOCKS;
  if (g_str_has_prefix (s, "cudaMemcpy") || g_str_has_prefix (s, "cuMemcpy")
      || g_str_has_prefix (s, "cudaMemset") || g_str_has_prefix (s, "cuMemset"))
    return strstr (s, "Async") == NULL && strstr (s, "async") == NULL ? API_BLOCKS : API_COPIES;
  return API_PLAIN;
}

typedef struct
{
  Builder *b;
  Chain   *chain;
} Collect;

static gboolean
collect_cb (const SlLane *lane,
            gsize         index,
            gpointer      user_data)
{
  Collect *c = user_data;
  Builder *b = c->b;
  const SlEvent *ev = &lane->events[index];
  Item it = { MAX (ev->start, b->t0), MIN (ev->end, b->t1), (guint32) (lane->base + index),
              ev->link, 0 };

  if (it.end < it.start)
    return TRUE;
  if (lane->kind == SL_LANE_NVTX && !range_is_work (b, ev))
    return TRUE;
  if (lane->kind == SL_LANE_CUDA_API)
    {
      guint8 cls = API_PLAIN;
      if (ev->name < b->n_strs)
        {
          if (b->api_class[ev->name] == 0)
            b->api_class[ev->name] = api_class (sl_trace_str (b->trace, ev->name));
          cls = b->api_class[ev->name];
        }
      it.blocking = cls == API_BLOCKS
                    || (g_hash_table_size (b->sync_calls) > 0
                        && g_hash_table_contains (b->sync_calls, GUINT_TO_POINTER (it.gid)));
      /* a copy that returned after its GPU op ended waited for it (a pageable copy) */
      const SlLane *op_lane;
      const SlEvent *op = cls == API_COPIES ? event_of (b->trace, ev->link, &op_lane) : NULL;
      if (!it.blocking && op != NULL && op->end <= ev->end && op->end > ev->start)
        it.blocking = TRUE;
    }
  g_array_append_val (c->chain->items, it);
  return TRUE;
}

static gint
item_cmp (gconstpointer a,
          gconstpointer b)
{
  const Item *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->end != y->end)
    return x->end > y->end ? -1 : 1;   /* the outer first: the innermost ends on top */
  return x->gid < y->gid ? -1 : x->gid > y->gid;
}

/* Sorts a chain's items, which come as runs sorted by start (a lane's events, in its order):
 * each run is checked (a lane's equal starts may be in any order of ends) and the runs merged
 * pairwise, O(n log runs) instead of a sort of n. */
static void
sort_items (Chain *ch)
{
  GArray *items = ch->items;
  GArray *runs = ch->runs;
  gsize n = items->len;
  gboolean sorted_runs = TRUE;

  g_array_append_val (runs, n);
  for (guint r = 0; r + 1 < runs->len && sorted_runs; r++)
    for (gsize i = g_array_index (runs, gsize, r) + 1; i < g_array_index (runs, gsize, r + 1); i++)
      if (item_cmp (&g_array_index (items, Item, i - 1), &g_array_index (items, Item, i)) > 0)
        {
          sorted_runs = FALSE;
          break;
        }
  if (!sorted_runs)
    {
      g_array_sort (items, item_cmp);
      return;
    }
  Item *a = (Item *) items->data, *tmp = g_new (Item, MAX (n, 1));
  while (runs->len > 2)
    {
      guint k = 0;
      for (guint r = 0; r + 1 < runs->len; r += 2)
        {
          gsize lo = g_array_index (runs, gsize, r), mid = g_array_index (runs, gsize, r + 1);
          gsize hi = r + 2 < runs->len ? g_array_index (runs, gsize, r + 2) : mid;
          gsize i = lo, j = mid, o = lo;
          while (i < mid && j < hi)
            tmp[o++] = item_cmp (&a[j], &a[i]) < 0 ? a[j++] : a[i++];
          memcpy (&tmp[o], &a[i], (mid - i) * sizeof (Item));
          o += mid - i;
          memcpy (&tmp[o], &a[j], (hi - j) * sizeof (Item));
          g_array_index (runs, gsize, k++) = lo;
        }
      memcpy (a, tmp, n * sizeof (Item));
      g_array_index (runs, gsize, k++) = n;
      g_array_set_size (runs, k);
    }
  g_free (tmp);
}

/* A min-heap of open items by end. */
static void
heap_push (guint32      *h,
           gsize        *n,
           const Item   *items,
           guint32       x)
{
  gsize i = (*n)++;
  h[i] = x;
  while (i > 0 && items[h[(i - 1) / 2]].end > items[h[i]].end)
    {
      guint32 tmp = h[i];
      h[i] = h[(i - 1) / 2];
      h[(i - 1) / 2] = tmp;
      i = (i - 1) / 2;
    }
}

static void
heap_pop (guint32    *h,
          gsize      *n,
          const Item *items)
{
  gsize i = 0;
  h[0] = h[--(*n)];
  for (;;)
    {
      gsize l = 2 * i + 1, r = l + 1, m = i;
      if (l < *n && items[h[l]].end < items[h[m]].end)
        m = l;
      if (r < *n && items[h[r]].end < items[h[m]].end)
        m = r;
      if (m == i)
        return;
      guint32 tmp = h[i];
      h[i] = h[m];
      h[m] = tmp;
      i = m;
    }
}

/* The chain's nodes from its items: a node per distinct clipped start or end, and the innermost
 * item covering each interval between them (the open one that started last).  One sweep over
 * the items by start with a heap of the open ones by end: O(n log depth). */
static void
chain_build_nodes (Builder *b,
                   Chain   *ch)
{
  gsize n = ch->items->len;

  sort_items (ch);
  const Item *items = (const Item *) ch->items->data;
  guint32 *heap = g_new (guint32, MAX (n, 1));
  guint32 *stack = g_new (guint32, MAX (n, 1));
  guint8 *closed = g_new0 (guint8, MAX (n, 1));
  gsize n_heap = 0, n_stack = 0, next = 0;

  ch->first = b->nodes->len;
  for (;;)
    {
      SlTime t = next < n ? items[next].start : G_MAXINT64;
      if (n_heap > 0 && items[heap[0]].end < t)
        t = items[heap[0]].end;
      if (t == G_MAXINT64)
        break;
      gboolean was_covered = n_heap > 0;
      while (next < n && items[next].start <= t)
        {
          heap_push (heap, &n_heap, items, (guint32) next);
          stack[n_stack++] = (guint32) next;
          next++;
        }
      while (n_heap > 0 && items[heap[0]].end <= t)
        {
          closed[heap[0]] = 1;
          heap_pop (heap, &n_heap, items);
        }
      while (n_stack > 0 && closed[stack[n_stack - 1]])
        n_stack--;
      Node node = { t, SL_NO_LINK, SL_CP_IDLE, FALSE, (guint8) was_covered, 0 };
      if (n_stack > 0)
        {
          const Item *it = &items[stack[n_stack - 1]];
          node.event = it->gid;
          if (ch->gpu_chain)
            node.kind = SL_CP_GPU, node.weighted = TRUE;
          else if (it->blocking)
            node.kind = SL_CP_WAIT;
          else
            node.kind = SL_CP_CPU, node.weighted = TRUE;
        }
      g_array_append_val (b->nodes, node);
    }
  ch->n = b->nodes->len - ch->first;
  g_free (heap);
  g_free (stack);
  g_free (closed);

  if (!ch->gpu_chain)
    return;
  /* a stream's gaps: launch overhead where the work after it was queued before the gap began */
  Node *nodes = &g_array_index (b->nodes, Node, ch->first);
  for (gsize i = 0; i + 1 < ch->n; i++)
    {
      if (nodes[i].event != SL_NO_LINK || nodes[i + 1].event == SL_NO_LINK)
        continue;
      const SlLane *lane, *api_lane;
      const SlEvent *op = event_of (b->trace, nodes[i + 1].event, &lane);
      const SlEvent *api = op != NULL ? event_of (b->trace, op->link, &api_lane) : NULL;
      if (api == NULL || api_lane->kind != SL_LANE_CUDA_API || api->start > nodes[i].t
          || nodes[i + 1].t - nodes[i].t >= CP_QUEUE_GAP_MAX)
        continue;
      nodes[i].kind = SL_CP_LAUNCH;
      nodes[i].weighted = TRUE;
      nodes[i].event = nodes[i + 1].event;
    }
}

/* The chain's node at time t (which is one of its node times), or G_MAXUINT32. */
static guint32
node_at (Builder *b,
         gint     chain,
         SlTime   t)
{
  const Chain *ch;
  const Node *nodes;
  gsize lo = 0, hi;

  if (chain < 0)
    return G_MAXUINT32;
  ch = &g_array_index (b->chains, Chain, chain);
  nodes = &g_array_index (b->nodes, Node, ch->first);
  hi = ch->n;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (nodes[mid].t < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < ch->n && nodes[lo].t == t ? (guint32) (ch->first + lo) : G_MAXUINT32;
}

/* The last node of a stream chain at or before t where GPU work ends, or G_MAXUINT32. */
static guint32
last_work_end (Builder *b,
               gint     chain,
               SlTime   t)
{
  const Chain *ch = &g_array_index (b->chains, Chain, chain);
  const Node *nodes = &g_array_index (b->nodes, Node, ch->first);
  gsize lo = 0, hi = ch->n;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (nodes[mid].t <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (gsize i = lo; i > 0; i--)
    if (nodes[i - 1].work_end)
      return (guint32) (ch->first + i - 1);
  return G_MAXUINT32;
}

static void
add_edge (Builder      *b,
          guint32       src,
          guint32       dst,
          SlCpEdgeKind  edge_kind,
          SlCpKind      seg_kind,
          guint32       event,
          gboolean      weighted)
{
  if (src == G_MAXUINT32 || dst == G_MAXUINT32 || src == dst)
    return;
  const Node *s = &g_array_index (b->nodes, Node, src);
  const Node *d = &g_array_index (b->nodes, Node, dst);
  if (d->t < s->t)
    return;   /* a clock that runs backwards between two tables: no edge against time */
  Edge e = { src, dst, event, (guint8) edge_kind, (guint8) seg_kind, (guint8) weighted };
  g_array_append_val (b->edges, e);
}

/* ---- dependency edges ---------------------------------------------------------------------- */

/* The chain of the lane holding global id `gid`, and that event. */
static const SlEvent *
chain_event (Builder  *b,
             guint32   gid,
             gint     *chain)
{
  const SlLane *lane;
  const SlEvent *ev = event_of (b->trace, gid, &lane);

  *chain = ev != NULL ? chain_of_lane (b, lane, FALSE) : -1;
  return ev;
}

/* `from` (a GPU op) ended before `to` (a GPU op: its start; a CPU call: its end) could go on. */
static void
add_dependency (Builder      *b,
                guint32       from,
                guint32       to,
                SlCpEdgeKind  edge_kind)
{
  gint fc, tc;
  const SlEvent *f = chain_event (b, from, &fc);
  const SlEvent *t = chain_event (b, to, &tc);

  if (f == NULL || t == NULL || fc < 0 || tc < 0 || f->end < b->t0 || f->end > b->t1)
    return;
  gboolean to_gpu = g_array_index (b->chains, Chain, tc).gpu_chain;
  SlTime at = to_gpu ? t->start : t->end;
  if (at < b->t0 || at > b->t1)
    return;
  add_edge (b, node_at (b, fc, f->end), node_at (b, tc, at), edge_kind, SL_CP_WAIT,
            to_gpu ? from : to, FALSE);
}

/* A call `call` (global id) that waited for the streams `stream_chain` (-1: every stream of the
 * process `global_pid` on the GPU `gpu`; -2: every stream of that process): an edge from the work that ended last before it
 * returned, where that was after it began (the call waited for it; work done before the call
 * began was not what held it).  One edge, the last arrival: HTA adds one from each stream. */
static void
add_wait_edges (Builder *b,
                guint32  call,
                gint     stream_chain,
                gint     gpu,
                guint64  global_pid)
{
  gint tc;
  const SlEvent *c = chain_event (b, call, &tc);
  guint32 best = G_MAXUINT32;

  if (c == NULL || tc < 0 || c->end < b->t0 || c->end > b->t1)
    return;
  for (guint k = 0; k < b->chains->len; k++)
    {
      const Chain *ch = &g_array_index (b->chains, Chain, k);
      if (!ch->gpu_chain || (stream_chain >= 0 && (gint) k != stream_chain)
          || (stream_chain == -1 && (ch->gpu != gpu || ch->global_pid != global_pid))
          || (stream_chain == -2 && ch->global_pid != global_pid))
        continue;
      guint32 end = last_work_end (b, (gint) k, c->end);
      if (end != G_MAXUINT32 && g_array_index (b->nodes, Node, end).t > c->start
          && (best == G_MAXUINT32
              || g_array_index (b->nodes, Node, end).t > g_array_index (b->nodes, Node, best).t))
        best = end;
    }
  add_edge (b, best, node_at (b, tc, c->end), SL_CP_EDGE_SYNC, SL_CP_WAIT, call, FALSE);
}

/* The start of the launch call of GPU op `op`, or G_MAXINT64 when it has none. */
static SlTime
launch_start (Builder       *b,
              const SlEvent *op)
{
  const SlLane *lane;
  const SlEvent *api = event_of (b->trace, op->link, &lane);

  return api != NULL && lane->kind == SL_LANE_CUDA_API ? api->start : G_MAXINT64;
}

/* The GPU work that the event a wait (a synchronization event's global id) waited for completes
 * after: the work queued before the event's record (sl_trace_get_event_wait).  SL_NO_LINK with
 * *known FALSE when the trace does not say which record; with *known TRUE when it does and no
 * work came before the record (nothing to wait for). */
static guint32
waited_work (Builder  *b,
             guint32   sync_gid,
             gboolean *known)
{
  SlEventWait w;

  *known = FALSE;
  if (!sl_trace_get_event_wait (b->trace, sync_gid, &w) || w.record == G_MAXUINT)
    return SL_NO_LINK;
  *known = TRUE;
  return sl_trace_get_event_record (b->trace, w.record)->work;
}

/* cudaStreamWaitEvent: the first work on the waiting stream launched after the call waits for
 * the work before the event's record (SL_CP_EDGE_EVENT_WAIT); where the trace does not say which
 * record (no CUDA event records collected), for the work of another stream of the GPU, launched
 * before the call, that ended last before it started (SL_CP_EDGE_EVENT_GUESS). */
static void
add_event_wait (Builder      *b,
                const SlLane *sync_lane,
                gsize         sync_index)
{
  const SlEvent *rec = &sync_lane->events[sync_index];
  const SlLane *call_lane;
  const SlEvent *call = event_of (b->trace, rec->link, &call_lane);
  StreamKey key = stream_key (sync_lane);
  gint sc = GPOINTER_TO_INT (g_hash_table_lookup (b->stream_chain, &key)) - 1;

  if (call == NULL || sc < 0)
    return;
  const Chain *ch = &g_array_index (b->chains, Chain, sc);
  const Item *items = (const Item *) ch->items->data;
  gsize lo = 0, hi = ch->items->len;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (items[mid].start < call->start)
        lo = mid + 1;
      else
        hi = mid;
    }
  const SlEvent *waiter = NULL;
  guint32 waiter_gid = SL_NO_LINK;
  const SlLane *wl;
  for (gsize i = lo; i < ch->items->len && i < lo + CP_SCAN; i++)
    {
      const SlEvent *op = event_of (b->trace, items[i].gid, &wl);
      if (op != NULL && launch_start (b, op) >= call->start && launch_start (b, op) != G_MAXINT64)
        {
          waiter = op;
          waiter_gid = items[i].gid;
          break;
        }
    }
  if (waiter == NULL || waiter->start < b->t0)
    return;

  gboolean known;
  guint32 work = waited_work (b, (guint32) (sync_lane->base + sync_index), &known);
  if (known)
    {
      gint fc;
      const SlEvent *f = work != SL_NO_LINK ? chain_event (b, work, &fc) : NULL;
      if (f == NULL || fc < 0 || f->end < b->t0 || f->end > waiter->start)
        return;   /* done before the range, or before the waiter could start anyway */
      add_edge (b, node_at (b, fc, f->end), node_at (b, sc, waiter->start),
                SL_CP_EDGE_EVENT_WAIT, SL_CP_WAIT, work, FALSE);
      if (f->end > launch_start (b, waiter))
        g_hash_table_add (b->late_wait, GUINT_TO_POINTER (waiter_gid));
      return;
    }

  guint32 best = G_MAXUINT32;
  SlTime best_end = G_MININT64;
  guint32 best_gid = SL_NO_LINK;
  for (guint k = 0; k < b->chains->len; k++)
    {
      const Chain *o = &g_array_index (b->chains, Chain, k);
      if (!o->gpu_chain || (gint) k == sc || o->gpu != ch->gpu || o->global_pid != ch->global_pid)
        continue;   /* an event is its process's */
      guint32 nd = last_work_end (b, (gint) k, waiter->start);
      for (gint tries = 0; nd != G_MAXUINT32 && tries < CP_SCAN; tries++)
        {
          const Node *end = &g_array_index (b->nodes, Node, nd);
          const Node *before = end - 1;   /* work_end: the node before is in the chain */
          const SlLane *ol;
          const SlEvent *op = event_of (b->trace, before->event, &ol);
          if (op != NULL && before->kind == SL_CP_GPU && launch_start (b, op) <= call->start)
            {
              if (end->t > best_end)
                best = nd, best_end = end->t, best_gid = before->event;
              break;
            }
          nd = nd > o->first ? last_work_end (b, (gint) k, end->t - 1) : G_MAXUINT32;
        }
    }
  if (best == G_MAXUINT32)
    return;
  add_edge (b, best, node_at (b, sc, waiter->start), SL_CP_EDGE_EVENT_GUESS, SL_CP_WAIT,
            best_gid, FALSE);
  if (best_end > launch_start (b, waiter))
    g_hash_table_add (b->late_wait, GUINT_TO_POINTER (waiter_gid));
}

static void
add_cross_edges (Builder            *b,
                 SlCpDependencyFunc  extra,
                 gpointer            extra_data)
{
  SlTrace *trace = b->trace;

  /* synchronization records: waits of calls for streams, and of streams for events */
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_SYNC || lane->n_events == 0)
        continue;
      StreamKey key = stream_key (lane);
      gint sc = GPOINTER_TO_INT (g_hash_table_lookup (b->stream_chain, &key)) - 1;
      for (gsize k = sl_lane_lower_bound (lane, b->t0 - CP_MS * 1000); k < lane->n_events; k++)
        {
          const SlEvent *rec = &lane->events[k];
          if (rec->start > b->t1)
            break;
          switch (rec->aux)
            {
            case 2:
              add_event_wait (b, lane, k);
              break;
            case 1:
              {
                /* cudaEventSynchronize: from the work before the record, where known */
                gboolean known;
                guint32 work = waited_work (b, (guint32) (lane->base + k), &known);
                const SlLane *cl;
                const SlEvent *call = event_of (trace, rec->link, &cl);
                const SlLane *wl;
                const SlEvent *w = work != SL_NO_LINK ? event_of (trace, work, &wl) : NULL;
                if (!known)
                  add_wait_edges (b, rec->link, -1, lane->gpu, lane->global_pid);
                else if (w != NULL && call != NULL && w->end > call->start && w->end <= call->end)
                  add_dependency (b, work, rec->link, SL_CP_EDGE_SYNC);
              }
              break;
            case 3:
              if (sc >= 0)
                add_wait_edges (b, rec->link, sc, lane->gpu, lane->global_pid);
              break;
            default:   /* context sync */
              add_wait_edges (b, rec->link, -1, lane->gpu, lane->global_pid);
              break;
            }
        }
    }

  /* launches, and calls that waited for their own op or with no record of what they waited for */
  for (guint c = 0; c < b->chains->len; c++)
    {
      const Chain *ch = &g_array_index (b->chains, Chain, c);
      for (gsize i = 0; i < ch->items->len; i++)
        {
          const Item *it = &g_array_index (ch->items, Item, i);
          if (ch->gpu_chain)
            {
              gint tc;
              const SlEvent *api = chain_event (b, it->link, &tc);
              const SlLane *lane;
              const SlEvent *ev = api != NULL ? event_of (trace, it->gid, &lane) : NULL;
              if (api == NULL || tc < 0 || api->start < b->t0
                  || ev->start < b->t0 || api->start > ev->start)
                continue;
              guint32 dst = node_at (b, (gint) c, ev->start);
              const Node *d = dst != G_MAXUINT32 ? &g_array_index (b->nodes, Node, dst) : NULL;
              /* the stream was idle at the launch: nothing before, or a gap begun by then */
              if (dst == G_MAXUINT32)
                continue;
              gboolean idle = dst == ch->first
                              || ((d[-1].event == SL_NO_LINK || d[-1].kind == SL_CP_LAUNCH)
                                  && d[-1].t <= api->start);
              idle = idle && (g_hash_table_size (b->late_wait) == 0
                              || !g_hash_table_contains (b->late_wait,
                                                         GUINT_TO_POINTER (it->gid)));
              /* from the call's return, or its start where the work began before it returned
               * (HTA: always its start; the call's own time is the thread's, CPU) */
              SlTime from = api->end <= ev->start ? api->end : api->start;
              add_edge (b, node_at (b, tc, from), dst, SL_CP_EDGE_LAUNCH, SL_CP_LAUNCH, ev->link,
                        idle);
            }
          else if (it->blocking)
            {
              const SlLane *lane;
              const SlEvent *ev = event_of (trace, it->gid, &lane);
              if (lane->kind != SL_LANE_CUDA_API || ev->end > b->t1)
                continue;
              gint oc;
              const SlEvent *op = chain_event (b, ev->link, &oc);
              if (op != NULL && oc >= 0 && op->end <= ev->end && op->end > ev->start)
                add_dependency (b, ev->link, it->gid, SL_CP_EDGE_SYNC);
              else if (!g_hash_table_contains (b->sync_calls, GUINT_TO_POINTER (it->gid)))
                add_wait_edges (b, it->gid, -2, -1, ch->global_pid);
            }
        }
    }

  if (extra != NULL)
    {
      g_autoptr (GArray) deps = g_array_new (FALSE, FALSE, sizeof (SlCpDependency));
      extra (trace, b->t0, b->t1, deps, extra_data);
      for (guint i = 0; i < deps->len; i++)
        {
          const SlCpDependency *d = &g_array_index (deps, SlCpDependency, i);
          const SlLane *fl, *tl;
          if (d->from.lane < 0 || d->to.lane < 0
              || (guint) d->from.lane >= sl_trace_get_n_lanes (trace)
              || (guint) d->to.lane >= sl_trace_get_n_lanes (trace))
            continue;
          fl = sl_trace_get_lane (trace, (guint) d->from.lane);
          tl = sl_trace_get_lane (trace, (guint) d->to.lane);
          if (d->from.index >= fl->n_events || d->to.index >= tl->n_events)
            continue;
          add_dependency (b, (guint32) (fl->base + d->from.index),
                          (guint32) (tl->base + d->to.index), SL_CP_EDGE_EXTRA);
        }
    }
}

/* ---- the longest path ---------------------------------------------------------------------- */

typedef struct
{
  SlTime  t;
  guint32 chain;
  guint8  gpu_first;   /* streams before threads at one instant: a GPU end before the call's */
  guint8  round;       /* times put back behind the other chains of its instant (below) */
} HeapItem;

/* A node is put back this many times at most, waiting for a source at its own instant (an edge
 * of zero length: a launch call that ends as its kernel starts, a wait that ends as the work it
 * waited for); more only in a file whose edges at one instant make a cycle, which are dropped. */
#define MAX_ROUNDS 8

static gboolean
heap_less (const HeapItem *a,
           const HeapItem *b)
{
  if (a->t != b->t)
    return a->t < b->t;
  if (a->round != b->round)
    return a->round < b->round;
  if (a->gpu_first != b->gpu_first)
    return a->gpu_first > b->gpu_first;
  return a->chain < b->chain;
}

static void
heap_sift_down (HeapItem *h,
                gsize     n,
                gsize     i)
{
  for (;;)
    {
      gsize l = 2 * i + 1, r = l + 1, m = i;
      if (l < n && heap_less (&h[l], &h[m]))
        m = l;
      if (r < n && heap_less (&h[r], &h[m]))
        m = r;
      if (m == i)
        return;
      HeapItem tmp = h[i];
      h[i] = h[m];
      h[m] = tmp;
      i = m;
    }
}

/* The chain a node belongs to: chains hold consecutive nodes, in chain order. */
static gint
chain_index (Builder *b,
             gsize    node)
{
  guint lo = 0, hi = b->chains->len;

  while (hi - lo > 1)
    {
      guint mid = (lo + hi) / 2;
      if (g_array_index (b->chains, Chain, mid).first <= node)
        lo = mid;
      else
        hi = mid;
    }
  return hi > 0 ? (gint) lo : -1;
}

#define PRED_SOURCE G_MAXUINT32        /* from the source at t0 */
#define PRED_CHAIN  (G_MAXUINT32 - 1)  /* from the node before on its chain */

static SlCriticalPath *
longest_path (Builder *b)
{
  gsize n_nodes = b->nodes->len, n_edges = b->edges->len;
  const Node *nodes = (const Node *) b->nodes->data;
  const Edge *edges = (const Edge *) b->edges->data;
  SlCriticalPath *path = g_new0 (SlCriticalPath, 1);

  path->t0 = b->t0;
  path->t1 = b->t1;
  path->segments = g_array_new (FALSE, FALSE, sizeof (SlCpSegment));

  /* the cross edges by destination (CSR) */
  guint32 *in_first = _sl_huge_new (n_nodes + 1, sizeof (guint32));
  memset (in_first, 0, (n_nodes + 1) * sizeof (guint32));
  guint32 *in_edges = _sl_huge_new (n_edges, sizeof (guint32));
  for (gsize e = 0; e < n_edges; e++)
    in_first[edges[e].dst + 1]++;
  for (gsize v = 0; v < n_nodes; v++)
    in_first[v + 1] += in_first[v];
  {
    guint32 *fill = g_memdup2 (in_first, (n_nodes + 1) * sizeof (guint32));
    for (gsize e = 0; e < n_edges; e++)
      in_edges[fill[edges[e].dst]++] = (guint32) e;
    g_free (fill);
  }

  SlTime *dist = _sl_huge_new (n_nodes, sizeof (SlTime));
  guint32 *pred = _sl_huge_new (n_nodes, sizeof (guint32));
  guint8 *done = _sl_huge_new (n_nodes, 1);
  memset (done, 0, n_nodes);
  HeapItem *heap = g_new (HeapItem, b->chains->len + 1);
  gsize *pos = g_new0 (gsize, b->chains->len);
  gsize n_heap = 0;

  for (guint c = 0; c < b->chains->len; c++)
    {
      const Chain *ch = &g_array_index (b->chains, Chain, c);
      if (ch->n > 0)
        heap[n_heap++] = (HeapItem) { nodes[ch->first].t, c, (guint8) ch->gpu_chain, 0 };
    }
  for (gsize i = n_heap; i > 0; i--)
    heap_sift_down (heap, n_heap, i - 1);

  while (n_heap > 0)
    {
      guint32 c = heap[0].chain;
      const Chain *ch = &g_array_index (b->chains, Chain, c);
      gsize v = ch->first + pos[c];
      SlTime best = 0, best_src_t = b->t0;
      guint32 best_pred = PRED_SOURCE;

      /* a source at this instant not reached yet: the others of the instant go first */
      gboolean wait = FALSE;
      for (guint32 k = in_first[v]; k < in_first[v + 1] && !wait; k++)
        {
          guint32 src = edges[in_edges[k]].src;
          wait = !done[src] && nodes[src].t == nodes[v].t;
        }
      if (wait && heap[0].round < MAX_ROUNDS)
        {
          heap[0].round++;
          heap_sift_down (heap, n_heap, 0);
          continue;
        }
      if (pos[c] > 0)
        {
          const Node *u = &nodes[v - 1];
          best = dist[v - 1] + (u->weighted ? nodes[v].t - u->t : 0);
          best_src_t = u->t;
          best_pred = PRED_CHAIN;
        }
      for (guint32 k = in_first[v]; k < in_first[v + 1]; k++)
        {
          const Edge *e = &edges[in_edges[k]];
          if (!done[e->src])
            continue;   /* at the same instant, after MAX_ROUNDS: a cycle, dropped */
          SlTime d = dist[e->src] + (e->weighted ? nodes[v].t - nodes[e->src].t : 0);
          SlTime st = nodes[e->src].t;
          if (d > best || (d == best && st > best_src_t))
            best = d, best_src_t = st, best_pred = in_edges[k];
        }
      dist[v] = best;
      pred[v] = best_pred;
      done[v] = 1;

      if (++pos[c] < ch->n)
        heap[0] = (HeapItem) { nodes[v + 1].t, c, (guint8) ch->gpu_chain, 0 };
      else
        heap[0] = heap[--n_heap];
      heap_sift_down (heap, n_heap, 0);
    }

  /* the sink: the heaviest chain end, the latest on a tie */
  gsize last = G_MAXSIZE;
  for (guint c = 0; c < b->chains->len; c++)
    {
      const Chain *ch = &g_array_index (b->chains, Chain, c);
      if (ch->n == 0)
        continue;
      gsize v = ch->first + ch->n - 1;
      if (last == G_MAXSIZE || dist[v] > dist[last]
          || (dist[v] == dist[last] && nodes[v].t > nodes[last].t))
        last = v;
    }

  /* walk back to the source, then forward making the segments: the nodes of the path (4 bytes
   * each) and the segments array sized once; a path of 10^6 edges grown by doubling, in 48-byte
   * segments, spent most of its time copying and faulting in fresh pages */
  gsize n_walk = 0;
  for (gsize v = last; v != G_MAXSIZE; n_walk++)
    v = pred[v] == PRED_SOURCE ? G_MAXSIZE : pred[v] == PRED_CHAIN ? v - 1 : edges[pred[v]].src;
  guint32 *walk = g_new (guint32, MAX (n_walk, 1));
  {
    gsize k = n_walk;
    for (gsize v = last; v != G_MAXSIZE;)
      {
        walk[--k] = (guint32) v;
        v = pred[v] == PRED_SOURCE ? G_MAXSIZE : pred[v] == PRED_CHAIN ? v - 1 : edges[pred[v]].src;
      }
  }
  g_array_set_size (path->segments, n_walk + 1);
  _sl_huge_pages (path->segments->data, (n_walk + 1) * sizeof (SlCpSegment));
  g_array_set_size (path->segments, 0);
  SlTrace *trace = b->trace;
  /* the events on the path: a bit per global id (10^6 events: 125 KB) */
  gsize n_ids = sl_trace_get_n_ids (trace);
  g_autofree guint8 *seen = g_new0 (guint8, n_ids / 8 + 1);
  const SlLane *last_lane = NULL;

  path->weight = last != G_MAXSIZE ? dist[last] : 0;
  for (gsize k = 0; k <= n_walk; k++)
    {
      /* the edge into walk[k] (k = n_walk: into the sink) */
      SlCpSegment seg = { SL_CP_IDLE, -1, -1, 0, SL_EVENT_REF_NONE, b->t0, b->t1 };
      guint32 event = SL_NO_LINK;
      gint place;
      if (k == n_walk)
        {
          place = n_walk > 0 ? chain_index (b, walk[k - 1]) : -1;
          seg.start = n_walk > 0 ? nodes[walk[k - 1]].t : b->t0;
        }
      else
        {
          gsize v = walk[k];
          guint32 p = pred[v];
          seg.end = nodes[v].t;
          if (nodes[v].event != SL_NO_LINK && nodes[v].event < n_ids
              && (seen[nodes[v].event / 8] & (1u << (nodes[v].event % 8))) == 0)
            {
              seen[nodes[v].event / 8] |= (guint8) (1u << (nodes[v].event % 8));
              path->n_path_events++;
            }
          if (p == PRED_SOURCE)
            place = chain_index (b, v);
          else if (p == PRED_CHAIN)
            {
              seg.start = nodes[v - 1].t;
              seg.kind = nodes[v - 1].kind;
              event = nodes[v - 1].event;
              place = chain_index (b, v - 1);
            }
          else
            {
              const Edge *e = &edges[p];
              seg.start = nodes[e->src].t;
              seg.kind = e->seg_kind;
              event = e->event;
              /* launch delay and event waits pass on the stream, a call's wait on its thread */
              place = chain_index (b, e->dst);
              path->path_by_kind[e->edge_kind]++;
            }
        }
      path->n_path_edges++;
      if (place >= 0)
        {
          const Chain *pc = &g_array_index (b->chains, Chain, place);
          seg.thread = pc->thread;
          seg.gpu = pc->gpu;
          seg.stream_id = pc->stream_id;
        }
      if (event != SL_NO_LINK)
        {
          /* consecutive segments are mostly of one lane: try it before searching */
          if (last_lane != NULL && event >= last_lane->base
              && event - last_lane->base < last_lane->n_events)
            seg.event = (SlEventRef) { (gint) last_lane->index, event - last_lane->base };
          else
            {
              gsize index;
              if (sl_trace_resolve (trace, event, &last_lane, &index))
                seg.event = (SlEventRef) { (gint) last_lane->index, index };
            }
          if (event < n_ids && (seen[event / 8] & (1u << (event % 8))) == 0)
            {
              seen[event / 8] |= (guint8) (1u << (event % 8));
              path->n_path_events++;
            }
        }
      if (seg.end <= seg.start)
        continue;
      path->by_kind[seg.kind] += seg.end - seg.start;
      if (path->segments->len > 0)
        {
          SlCpSegment *l = &g_array_index (path->segments, SlCpSegment,
                                           path->segments->len - 1);
          if (l->kind == seg.kind && l->thread == seg.thread && l->gpu == seg.gpu
              && l->stream_id == seg.stream_id && l->event.lane == seg.event.lane
              && l->event.index == seg.event.index && l->end == seg.start)
            {
              l->end = seg.end;
              continue;
            }
        }
      g_array_append_val (path->segments, seg);
    }
  g_free (walk);
  path->n_nodes = n_nodes + 2;
  path->n_edges = n_edges;
  for (guint c = 0; c < b->chains->len; c++)
    path->n_edges += g_array_index (b->chains, Chain, c).n + 1;   /* chain, source, sink */
  for (gsize e = 0; e < n_edges; e++)
    path->edges_by_kind[edges[e].edge_kind]++;
  for (guint c = 0; c < b->chains->len; c++)
    {
      gsize n = g_array_index (b->chains, Chain, c).n;
      path->edges_by_kind[g_array_index (b->chains, Chain, c).gpu_chain ? SL_CP_EDGE_STREAM
                                                                         : SL_CP_EDGE_THREAD]
        += n > 0 ? n - 1 : 0;
    }

  g_free (in_first);
  g_free (in_edges);
  g_free (dist);
  g_free (pred);
  g_free (done);
  g_free (heap);
  g_free (pos);
  return path;
}

/* ---- public ---------------------------------------------------------------------------------- */

static gboolean
lane_is_cpu_work (const SlLane *lane)
{
  return lane->thread >= 0 && (lane->kind == SL_LANE_CUDA_API || lane->kind == SL_LANE_NVTX);
}

static gboolean
lane_is_gpu_work (const SlLane *lane)
{
  return lane->gpu >= 0
         && (lane->kind == SL_LANE_KERNELS || lane->kind == SL_LANE_MEMCPY
             || lane->kind == SL_LANE_MEMSET || lane->kind == SL_LANE_GRAPHS);
}

static gboolean
sync_call_cb (const SlLane *lane,
              gsize         index,
              gpointer      user_data)
{
  const SlEvent *ev = &lane->events[index];

  /* cudaStreamWaitEvent returns at once: only the stream waits */
  if (ev->link != SL_NO_LINK && ev->aux != 2)
    g_hash_table_add (user_data, GUINT_TO_POINTER (ev->link));
  return TRUE;
}

SlCriticalPath *
sl_critical_path_compute (SlTrace            *trace,
                          SlTime              t0,
                          SlTime              t1,
                          SlCpDependencyFunc  extra,
                          gpointer            extra_data,
                          GError            **error)
{
  g_return_val_if_fail (trace != NULL, NULL);

  if (t1 <= t0)
    {
      g_set_error (error, SL_CRITICAL_PATH_ERROR, SL_CRITICAL_PATH_ERROR_EMPTY,
                   "the range is empty: its end is not after its start");
      return NULL;
    }

  Builder b = { .trace = trace, .t0 = t0, .t1 = t1, .json = sl_trace_is_json (trace) };
  b.chains = g_array_new (FALSE, FALSE, sizeof (Chain));
  b.thread_chain = g_new (gint, sl_trace_get_n_threads (trace) + 1);
  for (guint i = 0; i <= sl_trace_get_n_threads (trace); i++)
    b.thread_chain[i] = -1;
  b.stream_chain = g_hash_table_new_full (stream_key_hash, stream_key_equal, g_free, NULL);
  b.sync_calls = g_hash_table_new (NULL, NULL);
  b.late_wait = g_hash_table_new (NULL, NULL);
  b.nodes = g_array_new (FALSE, FALSE, sizeof (Node));
  b.edges = g_array_new (FALSE, FALSE, sizeof (Edge));
  b.n_strs = sl_trace_get_n_strs (trace);
  b.domain_ok = g_new0 (guint8, b.n_strs + 1);
  b.api_class = g_new0 (guint8, b.n_strs + 1);

  /* calls that a synchronization record says waited, first: they are waits on their thread */
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind == SL_LANE_SYNC)
        sl_lane_overlap (lane, t0, t1, sync_call_cb, b.sync_calls);
    }

  /* the chains and how many items each will hold, then their items lane by lane */
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
      {
        const SlLane *lane = sl_trace_get_lane (trace, i);
        if (!lane_is_cpu_work (lane) && !lane_is_gpu_work (lane))
          continue;
        gint c = chain_of_lane (&b, lane, TRUE);   /* may grow the array: before indexing */
        Chain *ch = &g_array_index (b.chains, Chain, c);
        if (pass == 0)
          {
            ch->estimate += sl_lane_lower_bound (lane, t1) - sl_lane_lower_bound (lane, t0) + 16;
            continue;
          }
        if (ch->items == NULL)
          {
            ch->items = g_array_sized_new (FALSE, FALSE, sizeof (Item), (guint) ch->estimate);
            _sl_huge_pages (ch->items->data, ch->estimate * sizeof (Item));
            ch->runs = g_array_new (FALSE, FALSE, sizeof (gsize));
          }
        gsize run = ch->items->len;
        g_array_append_val (ch->runs, run);
        Collect col = { &b, ch };
        sl_lane_overlap (lane, t0, t1, collect_cb, &col);
      }
  gsize n_items = 0;
  for (guint c = 0; c < b.chains->len; c++)
    n_items += g_array_index (b.chains, Chain, c).items->len;
  g_array_set_size (b.nodes, 2 * n_items);
  _sl_huge_pages (b.nodes->data, 2 * n_items * sizeof (Node));
  g_array_set_size (b.nodes, 0);
  g_array_set_size (b.edges, n_items / 2 + 16);
  _sl_huge_pages (b.edges->data, (n_items / 2 + 16) * sizeof (Edge));
  g_array_set_size (b.edges, 0);
  for (guint c = 0; c < b.chains->len; c++)
    chain_build_nodes (&b, &g_array_index (b.chains, Chain, c));

  add_cross_edges (&b, extra, extra_data);
  SlCriticalPath *path = longest_path (&b);

  for (guint c = 0; c < b.chains->len; c++)
    {
      g_array_unref (g_array_index (b.chains, Chain, c).items);
      g_array_unref (g_array_index (b.chains, Chain, c).runs);
    }
  g_array_unref (b.chains);
  g_free (b.thread_chain);
  g_hash_table_unref (b.stream_chain);
  g_hash_table_unref (b.sync_calls);
  g_hash_table_unref (b.late_wait);
  g_array_unref (b.nodes);
  g_array_unref (b.edges);
  g_free (b.domain_ok);
  g_free (b.api_class);
  return path;
}

void
sl_critical_path_free (SlCriticalPath *path)
{
  if (path == NULL)
    return;
  g_array_unref (path->segments);
  g_free (path);
}

SlTime
sl_critical_path_get_start (SlCriticalPath *path)
{
  g_return_val_if_fail (path != NULL, 0);
  return path->t0;
}

SlTime
sl_critical_path_get_end (SlCriticalPath *path)
{
  g_return_val_if_fail (path != NULL, 0);
  return path->t1;
}

const SlCpSegment *
sl_critical_path_get_segments (SlCriticalPath *path,
                               gsize          *n)
{
  g_return_val_if_fail (path != NULL, NULL);
  *n = path->segments->len;
  return (const SlCpSegment *) path->segments->data;
}

SlTime
sl_critical_path_get_time (SlCriticalPath *path,
                           SlCpKind        kind)
{
  g_return_val_if_fail (path != NULL && kind < SL_CP_N_KINDS, 0);
  return path->by_kind[kind];
}

void
sl_critical_path_get_counts (SlCriticalPath *path,
                             gsize          *n_nodes,
                             gsize          *n_edges,
                             gsize          *n_path_edges,
                             gsize          *n_path_events)
{
  g_return_if_fail (path != NULL);
  if (n_nodes != NULL)
    *n_nodes = path->n_nodes;
  if (n_edges != NULL)
    *n_edges = path->n_edges;
  if (n_path_edges != NULL)
    *n_path_edges = path->n_path_edges;
  if (n_path_events != NULL)
    *n_path_events = path->n_path_events;
}

SlTime
sl_critical_path_get_weight (SlCriticalPath *path)
{
  g_return_val_if_fail (path != NULL, 0);
  return path->weight;
}

gsize
sl_critical_path_count_edges (SlCriticalPath *path,
                              SlCpEdgeKind    kind)
{
  g_return_val_if_fail (path != NULL && kind < SL_CP_N_EDGE_KINDS, 0);
  return path->edges_by_kind[kind];
}

gsize
sl_critical_path_count_path_edges (SlCriticalPath *path,
                                   SlCpEdgeKind    kind)
{
  g_return_val_if_fail (path != NULL && kind < SL_CP_N_EDGE_KINDS, 0);
  return path->path_by_kind[kind];
}

/* ---- ranges by name -------------------------------------------------------------------------- */

typedef struct
{
  SlTime start, end;
} Span;

static gint
span_cmp (gconstpointer a,
          gconstpointer b)
{
  const Span *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

gboolean
sl_critical_path_find_range (SlTrace     *trace,
                             const char  *name,
                             guint        instance,
                             SlTime      *t0,
                             SlTime      *t1,
                             GError     **error)
{
  g_return_val_if_fail (trace != NULL && name != NULL, FALSE);

  guint n_strs = sl_trace_get_n_strs (trace);
  g_autofree guint8 *match = g_new0 (guint8, n_strs + 1);   /* 1 exact, 2 holds it, 3 no */
  g_autofree guint8 *gpu_domain = g_new0 (guint8, n_strs + 1);
  g_autoptr (GArray) exact = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr (GArray) holds = g_array_new (FALSE, FALSE, sizeof (Span));

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_NVTX)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          if (ev->name >= n_strs || (ev->link & SL_NVTX_MARK) != 0)
            continue;
          if (match[ev->name] == 0)
            {
              const char *s = sl_trace_str (trace, ev->name);
              match[ev->name] = strcmp (s, name) == 0 ? 1 : strstr (s, name) != NULL ? 2 : 3;
            }
          if (match[ev->name] == 3)
            continue;
          if (ev->corr < n_strs && gpu_domain[ev->corr] == 0)
            gpu_domain[ev->corr]
              = strcmp (sl_trace_str (trace, ev->corr), "gpu_user_annotation") == 0 ? 1 : 2;
          if (ev->corr < n_strs && gpu_domain[ev->corr] == 1)
            continue;
          Span s = { ev->start, ev->end };
          g_array_append_val (match[ev->name] == 1 ? exact : holds, s);
        }
    }
  GArray *spans = exact->len > 0 ? exact : holds;
  if (instance >= spans->len)
    {
      if (spans->len == 0)
        g_set_error (error, SL_CRITICAL_PATH_ERROR, SL_CRITICAL_PATH_ERROR_NOT_FOUND,
                     "no range named '%s' (an NVTX range, a PyTorch annotation or operator)",
                     name);
      else
        g_set_error (error, SL_CRITICAL_PATH_ERROR, SL_CRITICAL_PATH_ERROR_NOT_FOUND,
                     "'%s' has %u instance%s (0 to %u); there is no instance %u", name,
                     spans->len, spans->len == 1 ? "" : "s", spans->len - 1, instance);
      return FALSE;
    }
  g_array_sort (spans, span_cmp);
  *t0 = g_array_index (spans, Span, instance).start;
  *t1 = g_array_index (spans, Span, instance).end;
  if (*t1 <= *t0)
    {
      g_set_error (error, SL_CRITICAL_PATH_ERROR, SL_CRITICAL_PATH_ERROR_EMPTY,
                   "instance %u of '%s' lasts no time", instance, name);
      return FALSE;
    }
  return TRUE;
}
