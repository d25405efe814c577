/* sl-mpi.c: the MPI calls of a trace (sl-mpi.h): their details, each thread's rank, and the
 * messages of a job matched from send to receive on first use. */
#include "sl-mpi.h"
#include "sl-trace-private.h"
#include "sl-utilization.h"

#include <string.h>

const SlMpiCall *
sl_trace_get_mpi_call (SlTrace       *trace,
                       const SlLane  *lane,
                       const SlEvent *ev)
{
  g_return_val_if_fail (trace != NULL, NULL);
  if (lane == NULL || ev == NULL || lane->kind != SL_LANE_MPI || trace->mpi_calls == NULL
      || ev->corr >= trace->mpi_calls->len)
    return NULL;
  return &g_array_index (trace->mpi_calls, SlMpiCall, ev->corr);
}

char *
sl_mpi_describe (SlTrace       *trace,
                 const SlLane  *lane,
                 const SlEvent *ev)
{
  static const char *const sources[SL_MPI_N_SOURCES] = {
    "point-to-point", "collective", "start/wait", "other", "NVTX (domain MPI)",
  };
  static const char *const dirs[] = { "", " send", " receive", " send and receive" };
  const SlMpiCall *c = sl_trace_get_mpi_call (trace, lane, ev);
  GString *s = g_string_new (NULL);

  if (c == NULL)
    return g_string_free (s, FALSE);
  SlMpiSource source = SL_MPI_SOURCE_OF (ev->aux);
  SlMpiDir dir = SL_MPI_DIR_OF (ev->aux);
  g_string_append_printf (s, "MPI %s%s", source < SL_MPI_N_SOURCES ? sources[source] : "?",
                          dir < G_N_ELEMENTS (dirs) ? dirs[dir] : "");
  if (c->flags & SL_MPI_HAS_RANK)
    g_string_append_printf (s, "; rank %d", c->rank);
  if (c->flags & SL_MPI_HAS_PEER)
    g_string_append_printf (s, "; %s %d", dir == SL_MPI_DIR_SEND ? "to rank"
                                          : dir == SL_MPI_DIR_RECV ? "from rank" : "peer rank",
                            c->peer);
  if (c->flags & SL_MPI_HAS_TAG)
    g_string_append_printf (s, "; tag %d", c->tag);
  if (c->flags & SL_MPI_HAS_ROOT)
    g_string_append_printf (s, "; root %d", c->root);
  if (c->flags & SL_MPI_HAS_SIZE)
    g_string_append_printf (s, "; %s %" G_GINT64_FORMAT,
                            source == SL_MPI_COLLECTIVE ? "bytes sent" : "bytes", c->size);
  if (c->flags & SL_MPI_HAS_RECV_SIZE)
    g_string_append_printf (s, "; bytes received %" G_GINT64_FORMAT, c->recv_size);
  if (c->flags & SL_MPI_HAS_COMM)
    g_string_append_printf (s, "; communicator 0x%" G_GINT64_MODIFIER "x", c->comm);
  if (c->flags & SL_MPI_HAS_REQUEST)
    g_string_append_printf (s, "; %s 0x%" G_GINT64_MODIFIER "x",
                            source == SL_MPI_START_WAIT ? "waits for request" : "request",
                            c->request);
  return g_string_free (s, FALSE);
}

guint
sl_trace_get_n_mpi_calls (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, 0);
  return trace->mpi_calls != NULL ? trace->mpi_calls->len : 0;
}

/* ---- messages ----------------------------------------------------------------------------- */

/* What a send and its receive share: the communicator, the sender's and the receiver's rank in
 * it, and the tag. */
typedef struct
{
  gint64 comm;
  gint32 from;
  gint32 to;
  gint32 tag;
  gint32 pad;   /* 0: the key is hashed as bytes */
} MsgKey;

typedef struct
{
  GArray *sends;   /* SlEventRef, in start order once sorted */
  GArray *recvs;
} MsgQueue;

static guint
msg_key_hash (gconstpointer p)
{
  const MsgKey *k = p;
  return g_int64_hash (&k->comm) ^ ((guint) k->from * 31u) ^ ((guint) k->to * 131u)
         ^ ((guint) k->tag * 7919u);
}

static gboolean
msg_key_equal (gconstpointer a,
               gconstpointer b)
{
  return memcmp (a, b, sizeof (MsgKey)) == 0;
}

static void
msg_queue_free (gpointer p)
{
  MsgQueue *q = p;
  g_array_unref (q->sends);
  g_array_unref (q->recvs);
  g_free (q);
}

static SlTrace *sort_trace;   /* under match_lock: the trace whose refs are being sorted */
static GMutex   match_lock;

static SlTime
ref_start (const SlEventRef *r)
{
  const SlLane *lane = sl_trace_get_lane (sort_trace, r->lane);
  return lane->events[r->index].start;
}

static gint
compare_refs (gconstpointer a,
              gconstpointer b)
{
  const SlEventRef *x = a, *y = b;
  SlTime sa = ref_start (x), sb = ref_start (y);
  if (sa != sb)
    return sa < sb ? -1 : 1;
  if (x->lane != y->lane)
    return x->lane < y->lane ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static gint
compare_messages (gconstpointer a,
                  gconstpointer b)
{
  return compare_refs (&((const SlMpiMessage *) a)->send, &((const SlMpiMessage *) b)->send);
}

static MsgQueue *
queue_for (GHashTable   *queues,
           const MsgKey *key)
{
  MsgQueue *q = g_hash_table_lookup (queues, key);
  if (q == NULL)
    {
      q = g_new0 (MsgQueue, 1);
      q->sends = g_array_new (FALSE, FALSE, sizeof (SlEventRef));
      q->recvs = g_array_new (FALSE, FALSE, sizeof (SlEventRef));
      g_hash_table_insert (queues, g_memdup2 (key, sizeof *key), q);
    }
  return q;
}

static SlMpiMessages *
match_messages (SlTrace *trace)
{
  SlMpiMessages *m = g_new0 (SlMpiMessages, 1);
  g_autoptr (GHashTable) queues = g_hash_table_new_full (msg_key_hash, msg_key_equal, g_free,
                                                         msg_queue_free);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (SlMpiMessage));

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_MPI)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          if (SL_MPI_SOURCE_OF (ev->aux) != SL_MPI_P2P)
            continue;
          SlMpiDir dir = SL_MPI_DIR_OF (ev->aux);
          const SlMpiCall *c = sl_trace_get_mpi_call (trace, lane, ev);
          const guint32 need = SL_MPI_HAS_PEER | SL_MPI_HAS_TAG | SL_MPI_HAS_RANK;
          if (c == NULL || (dir != SL_MPI_DIR_SEND && dir != SL_MPI_DIR_RECV)
              || (c->flags & need) != need)
            continue;
          if (c->peer < 0 || c->tag < 0)
            {
              if (dir == SL_MPI_DIR_RECV)
                m->n_wildcard++;
              continue;
            }
          MsgKey key = { c->comm, 0, 0, c->tag, 0 };
          SlEventRef ref = { (gint) i, k };
          if (dir == SL_MPI_DIR_SEND)
            {
              key.from = c->local_rank;
              key.to = c->peer;
              g_array_append_val (queue_for (queues, &key)->sends, ref);
              m->n_sends++;
            }
          else
            {
              key.from = c->peer;
              key.to = c->local_rank;
              g_array_append_val (queue_for (queues, &key)->recvs, ref);
              m->n_recvs++;
            }
        }
    }

  /* MPI's order: messages of one sender, communicator and tag are received in the order sent */
  g_mutex_lock (&match_lock);
  sort_trace = trace;
  GHashTableIter iter;
  gpointer value;
  g_hash_table_iter_init (&iter, queues);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      MsgQueue *q = value;
      g_array_sort (q->sends, compare_refs);
      g_array_sort (q->recvs, compare_refs);
      guint n = MIN (q->sends->len, q->recvs->len);
      for (guint j = 0; j < n; j++)
        {
          SlMpiMessage msg = { g_array_index (q->sends, SlEventRef, j),
                               g_array_index (q->recvs, SlEventRef, j) };
          g_array_append_val (out, msg);
        }
      m->n_unmatched_sends += q->sends->len - n;
      m->n_unmatched_recvs += q->recvs->len - n;
    }
  g_array_sort (out, compare_messages);
  sort_trace = NULL;
  g_mutex_unlock (&match_lock);

  for (guint i = 0; i < out->len; i++)
    {
      const SlMpiMessage *msg = &g_array_index (out, SlMpiMessage, i);
      const SlLane *sl = sl_trace_get_lane (trace, msg->send.lane);
      const SlLane *rl = sl_trace_get_lane (trace, msg->recv.lane);
      SlTime from = sl->events[msg->send.index].start, to = rl->events[msg->recv.index].end;
      m->max_span = MAX (m->max_span, to - from);
    }
  m->n_messages = out->len;
  m->messages = (SlMpiMessage *) g_array_free (g_steal_pointer (&out), FALSE);
  return m;
}

const SlMpiMessages *
sl_trace_get_mpi_messages (SlTrace *trace)
{
  g_return_val_if_fail (trace != NULL, NULL);
  SlMpiMessages *m = g_atomic_pointer_get (&trace->mpi_messages);
  if (m != NULL)
    return m;
  m = match_messages (trace);
  if (!g_atomic_pointer_compare_and_exchange (&trace->mpi_messages, NULL, m))
    {
      _sl_mpi_messages_free (m);
      m = g_atomic_pointer_get (&trace->mpi_messages);
    }
  return m;
}

const SlMpiMessage *
sl_mpi_find_message (const SlMpiMessages *msgs,
                     SlEventRef           ref)
{
  if (msgs == NULL || ref.lane < 0)
    return NULL;
  for (gsize i = 0; i < msgs->n_messages; i++)
    {
      const SlMpiMessage *m = &msgs->messages[i];
      if ((m->send.lane == ref.lane && m->send.index == ref.index)
          || (m->recv.lane == ref.lane && m->recv.index == ref.index))
        return m;
    }
  return NULL;
}

void
_sl_mpi_messages_free (gpointer messages)
{
  SlMpiMessages *m = messages;
  if (m == NULL)
    return;
  g_free (m->messages);
  g_free (m);
}

/* ---- each rank's figures ------------------------------------------------------------------- */

/* Whether a call waits for other ranks: waits, collectives, blocking point-to-point. */
static gboolean
call_waits (SlTrace       *trace,
            const SlEvent *ev)
{
  switch (SL_MPI_SOURCE_OF (ev->aux))
    {
    case SL_MPI_START_WAIT:
      return !g_str_has_prefix (sl_trace_str (trace, ev->name), "MPI_Start");
    case SL_MPI_COLLECTIVE:
      return !g_str_has_prefix (sl_trace_str (trace, ev->name), "MPI_I");
    case SL_MPI_P2P:
    case SL_MPI_NVTX:
      {
        const char *name = sl_trace_str (trace, ev->name);
        if (SL_MPI_SOURCE_OF (ev->aux) == SL_MPI_NVTX && SL_MPI_DIR_OF (ev->aux) == SL_MPI_DIR_NONE)
          return g_str_has_prefix (name, "MPI_Wait") || g_str_has_prefix (name, "MPI_Barrier")
                 || g_str_has_prefix (name, "MPI_All") || g_str_has_prefix (name, "MPI_Bcast")
                 || g_str_has_prefix (name, "MPI_Reduce");
        return !g_str_has_prefix (name, "MPI_I");
      }
    case SL_MPI_OTHER:
    case SL_MPI_N_SOURCES:
    default:
      return FALSE;
    }
}

/* GPU busy time of the file's GPUs in [s, e): the busiest GPU's. */
static SlTime
gpu_busy (SlTrace *trace,
          guint32  source,
          SlTime   s,
          SlTime   e)
{
  SlTime best = 0;
  for (guint g = 0; g < sl_trace_get_n_gpus (trace); g++)
    if (sl_trace_get_gpu (trace, g)->source == source)
      best = MAX (best, sl_trace_gpu_busy_time (trace, g, SL_UTIL_ANY, s, e));
  return best;
}

static gint
compare_figures (gconstpointer a,
                 gconstpointer b)
{
  const SlMpiRankFigures *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return x->source < y->source ? -1 : x->source > y->source;
}

static gint
compare_times (gconstpointer a,
               gconstpointer b)
{
  SlTime x = *(const SlTime *) a, y = *(const SlTime *) b;
  return x < y ? -1 : x > y;
}

SlMpiSummary *
sl_mpi_summarize (SlTrace *trace,
                  SlTime   t0,
                  SlTime   t1)
{
  g_return_val_if_fail (trace != NULL, NULL);
  g_autoptr (GArray) figs = g_array_new (FALSE, TRUE, sizeof (SlMpiRankFigures));
  g_autoptr (GHashTable) by_rank = g_hash_table_new (NULL, NULL);   /* key -> index + 1 */
  /* a file holding MPI tables does not repeat its calls as NVTX ranges */
  g_autoptr (GHashTable) has_tables = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_MPI && k < lane->n_events; k++)
        if (SL_MPI_SOURCE_OF (lane->events[k].aux) != SL_MPI_NVTX)
          {
            g_hash_table_add (has_tables, GUINT_TO_POINTER (lane->source + 1));
            break;
          }
    }
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      if (lane->kind != SL_LANE_MPI)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          const SlEvent *ev = &lane->events[k];
          if (ev->start < t0 || ev->start >= t1)
            continue;
          if (SL_MPI_SOURCE_OF (ev->aux) == SL_MPI_NVTX
              && g_hash_table_contains (has_tables, GUINT_TO_POINTER (lane->source + 1)))
            continue;
          const SlMpiCall *c = sl_trace_get_mpi_call (trace, lane, ev);
          gint rank = c != NULL && (c->flags & SL_MPI_HAS_RANK) ? c->rank : (gint) lane->source;
          gpointer key = GUINT_TO_POINTER (((guint) rank << 12) ^ lane->source);
          guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (by_rank, key));
          if (idx == 0)
            {
              SlMpiRankFigures f = { 0 };
              f.rank = rank;
              f.source = lane->source;
              f.thread = lane->thread;
              f.first = G_MAXINT64;
              f.last = G_MININT64;
              g_array_append_val (figs, f);
              idx = figs->len;
              g_hash_table_insert (by_rank, key, GUINT_TO_POINTER (idx));
            }
          SlMpiRankFigures *f = &g_array_index (figs, SlMpiRankFigures, idx - 1);
          SlTime dur = ev->end - ev->start;
          f->calls++;
          f->first = MIN (f->first, ev->start);
          f->last = MAX (f->last, ev->end);
          /* nested calls (depth > 0) are inside their parent's time */
          if (lane->depth > 0)
            continue;
          f->mpi = _sl_time_add (f->mpi, dur);
          if (call_waits (trace, ev))
            f->wait = _sl_time_add (f->wait, dur);
          f->overlap = _sl_time_add (f->overlap, gpu_busy (trace, lane->source, ev->start,
                                                           ev->end));
        }
    }
  if (figs->len == 0)
    return NULL;
  g_array_sort (figs, compare_figures);
  SlMpiSummary *sum = g_new0 (SlMpiSummary, 1);
  sum->n_ranks = figs->len;
  sum->straggler = -1;
  if (figs->len >= 2)
    {
      guint who = 0;
      for (guint i = 1; i < figs->len; i++)
        if (g_array_index (figs, SlMpiRankFigures, i).wait
            < g_array_index (figs, SlMpiRankFigures, who).wait)
          who = i;
      g_autoptr (GArray) others = g_array_new (FALSE, FALSE, sizeof (SlTime));
      for (guint i = 0; i < figs->len; i++)
        if (i != who)
          g_array_append_val (others, g_array_index (figs, SlMpiRankFigures, i).wait);
      g_array_sort (others, compare_times);
      sum->others_wait = g_array_index (others, SlTime, others->len / 2);
      sum->straggler = (gint) who;
    }
  sum->ranks = (SlMpiRankFigures *) g_array_free (g_steal_pointer (&figs), FALSE);
  return sum;
}

void
sl_mpi_summary_free (SlMpiSummary *summary)
{
  if (summary == NULL)
    return;
  g_free (summary->ranks);
  g_free (summary);
}
