/* sl-mpi.h: MPI calls of a trace (nsys -t mpi's MPI_* tables, or NVTX ranges of a domain "MPI"):
 * their details, and the messages of a merged job matched from each send to its receive. */
#pragma once

#include "sl-trace.h"

G_BEGIN_DECLS

/* Which table an MPI call came from (an SlEvent of an SL_LANE_MPI lane: `aux` & 0xFF). */
typedef enum
{
  SL_MPI_P2P,         /* MPI_P2P_EVENTS */
  SL_MPI_COLLECTIVE,  /* MPI_COLLECTIVES_EVENTS */
  SL_MPI_START_WAIT,  /* MPI_START_WAIT_EVENTS */
  SL_MPI_OTHER,       /* MPI_OTHER_EVENTS */
  SL_MPI_NVTX,        /* an NVTX range of the domain "MPI": a name, no details */
  SL_MPI_N_SOURCES
} SlMpiSource;

/* Direction of a point-to-point call, from its name (`aux` >> 8 & 0xFF). */
typedef enum
{
  SL_MPI_DIR_NONE,
  SL_MPI_DIR_SEND,    /* the name holds "send" (MPI_Send, MPI_Isend, MPI_Ssend …) */
  SL_MPI_DIR_RECV,    /* the name holds "recv" */
  SL_MPI_DIR_BOTH     /* MPI_Sendrecv*: never matched */
} SlMpiDir;

#define SL_MPI_SOURCE_OF(aux) ((SlMpiSource) ((aux) & 0xFFu))
#define SL_MPI_DIR_OF(aux)    ((SlMpiDir) (((aux) >> 8) & 0xFFu))

/* Which fields of an SlMpiCall the file gave (the others were NULL or absent). */
#define SL_MPI_HAS_SIZE      (1u << 0)
#define SL_MPI_HAS_RECV_SIZE (1u << 1)
#define SL_MPI_HAS_PEER      (1u << 2)
#define SL_MPI_HAS_TAG       (1u << 3)
#define SL_MPI_HAS_ROOT      (1u << 4)
#define SL_MPI_HAS_REQUEST   (1u << 5)
#define SL_MPI_HAS_COMM      (1u << 6)
#define SL_MPI_HAS_RANK      (1u << 7)
#define SL_MPI_RANK_OF_PROCESS (1u << 8)  /* MPI_RANKS names the process's other threads only */

/* The details of one MPI call: an SL_LANE_MPI event's `corr` indexes them
 * (sl_trace_get_mpi_call).  48 bytes, no pointers, no padding (stored raw in the model cache). */
typedef struct
{
  gint64  size;        /* bytes: a point-to-point message's, a collective's sent */
  gint64  recv_size;   /* bytes a collective received */
  gint64  comm;        /* the communicator: MPI_COMMUNICATORS.commUid where the file has it,
                        * else the process's commHandle */
  gint64  request;     /* the request handle (nonblocking calls, and the waits for them) */
  gint32  peer;        /* remoteRank: destination of a send, source of a receive */
  gint32  tag;
  gint32  root;        /* rootRank of a rooted collective */
  gint32  rank;        /* the caller's rank: MPI_RANKS, -1 when the file does not say */
  gint32  local_rank;  /* the caller's rank in `comm` (MPI_COMMUNICATORS.localRank), else rank */
  guint32 flags;       /* SL_MPI_HAS_* */
} SlMpiCall;

G_STATIC_ASSERT (sizeof (SlMpiCall) == 56);

/* The details of an SL_LANE_MPI event, NULL for any other event (or one without them). */
const SlMpiCall *sl_trace_get_mpi_call (SlTrace       *trace,
                                        const SlLane  *lane,
                                        const SlEvent *ev);
/* An MPI call's details as "key value" pairs separated by "; " (kind, peer, tag, bytes,
 * communicator, root, request; rank), the events table's and the detail pane's text; "" for an
 * event without them.  Newly allocated. */
char            *sl_mpi_describe (SlTrace       *trace,
                                  const SlLane  *lane,
                                  const SlEvent *ev);
/* How many MPI calls the trace holds details for. */
guint            sl_trace_get_n_mpi_calls (SlTrace *trace);

/* One message: a send and the receive that matched it (same communicator and tag, the send's
 * peer is the receiver's rank and the receive's peer the sender's; the n-th such send with the
 * n-th such receive, MPI's non-overtaking order). */
typedef struct
{
  SlEventRef send;
  SlEventRef recv;
} SlMpiMessage;

typedef struct
{
  SlMpiMessage *messages;   /* by send start */
  gsize         n_messages;
  gsize         n_sends;    /* point-to-point sends with a peer and a tag */
  gsize         n_recvs;    /* receives with a definite peer and tag */
  gsize         n_unmatched_sends;
  gsize         n_unmatched_recvs;
  gsize         n_wildcard; /* receives from MPI_ANY_SOURCE / MPI_ANY_TAG (negative): skipped */
  SlTime        max_span;   /* the longest from a send's start to its receive's end: a window
                             * [t0, t1) meets no message whose send starts before t0 - max_span */
} SlMpiMessages;

/* The messages of the trace, matched on first use and kept with it (thread-safe); never NULL. */
const SlMpiMessages *sl_trace_get_mpi_messages (SlTrace *trace);
/* The message whose send or receive is `ref`, NULL when it is in none. */
const SlMpiMessage  *sl_mpi_find_message (const SlMpiMessages *msgs,
                                          SlEventRef           ref);

/* A rank's MPI time over a window: the figures `analyze` reports and compares. */
typedef struct
{
  gint    rank;       /* MPI rank (MPI_RANKS), else the source's index */
  guint32 source;     /* its file among the merged ones */
  gint32  thread;     /* the thread with most MPI time */
  guint64 calls;
  SlTime  first;      /* start of its first call in the window */
  SlTime  last;       /* end of its last */
  SlTime  mpi;        /* time in MPI calls (all but the NVTX ones' duplicates) */
  SlTime  wait;       /* of it, in calls that wait for other ranks: MPI_Wait* / MPI_Test*,
                       * collectives, blocking point-to-point (a name without "MPI_I") */
  SlTime  overlap;    /* of `mpi`, time while a GPU of its file ran work (communication
                       * overlapping computation) */
} SlMpiRankFigures;

typedef struct
{
  SlMpiRankFigures *ranks;       /* by rank */
  guint             n_ranks;
  gint              straggler;   /* index in `ranks` of the rank the others wait for: the one
                                  * that waits least, -1 with fewer than 2 ranks */
  SlTime            others_wait; /* the median of the other ranks' wait */
} SlMpiSummary;

/* The MPI figures of each rank over the calls starting in [t0, t1); NULL when the trace has no
 * MPI call there. */
SlMpiSummary *sl_mpi_summarize     (SlTrace *trace,
                                    SlTime   t0,
                                    SlTime   t1);
void          sl_mpi_summary_free  (SlMpiSummary *summary);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SlMpiSummary, sl_mpi_summary_free)

G_END_DECLS
