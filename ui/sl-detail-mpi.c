/* sl-detail-mpi.c: the detail pane's MPI call (an SL_LANE_MPI event): what kind of call, its
 * peer, tag, bytes, communicator, root and request, and the message it belongs to (a link to
 * the matching receive or send, in a merged job). */
#include "sl-detail-pane-private.h"
#include "sl-format.h"
#include "sl-mpi.h"

void
_sl_detail_mpi_show (SlDetailPane  *self,
                     SlTrace       *trace,
                     const SlLane  *lane,
                     const SlEvent *ev)
{
  static const char *const sources[SL_MPI_N_SOURCES] = {
    "Point-to-point (MPI_P2P_EVENTS)", "Collective (MPI_COLLECTIVES_EVENTS)",
    "Start / wait (MPI_START_WAIT_EVENTS)", "Other (MPI_OTHER_EVENTS)",
    "NVTX range of the domain \"MPI\"",
  };
  const SlMpiCall *c = sl_trace_get_mpi_call (trace, lane, ev);
  SlMpiSource source = SL_MPI_SOURCE_OF (ev->aux);
  SlMpiDir dir = SL_MPI_DIR_OF (ev->aux);
  char buf[64];

  if (c == NULL)
    return;
  _sl_detail_pane_heading (self, "MPI");
  _sl_detail_pane_row (self, "Call", source < SL_MPI_N_SOURCES ? sources[source] : "?");
  if (c->flags & SL_MPI_HAS_RANK)
    {
      g_snprintf (buf, sizeof buf, "%d", c->rank);
      _sl_detail_pane_row (self, "Rank", buf);
    }
  if (c->flags & SL_MPI_HAS_PEER)
    {
      g_snprintf (buf, sizeof buf, "%d", c->peer);
      _sl_detail_pane_row (self, dir == SL_MPI_DIR_SEND ? "To rank"
                                 : dir == SL_MPI_DIR_RECV ? "From rank" : "Peer rank", buf);
    }
  if (c->flags & SL_MPI_HAS_TAG)
    {
      g_snprintf (buf, sizeof buf, "%d", c->tag);
      _sl_detail_pane_row (self, "Tag", buf);
    }
  if (c->flags & SL_MPI_HAS_ROOT)
    {
      g_snprintf (buf, sizeof buf, "%d", c->root);
      _sl_detail_pane_row (self, "Root rank", buf);
    }
  if (c->flags & SL_MPI_HAS_SIZE)
    {
      g_autofree char *bytes = sl_format_bytes ((guint64) c->size);
      _sl_detail_pane_row (self, source == SL_MPI_COLLECTIVE ? "Bytes sent" : "Bytes", bytes);
    }
  if (c->flags & SL_MPI_HAS_RECV_SIZE)
    {
      g_autofree char *bytes = sl_format_bytes ((guint64) c->recv_size);
      _sl_detail_pane_row (self, "Bytes received", bytes);
    }
  if (c->flags & SL_MPI_HAS_COMM)
    {
      g_snprintf (buf, sizeof buf, "0x%" G_GINT64_MODIFIER "x", c->comm);
      _sl_detail_pane_row (self, "Communicator", buf);
    }
  if (c->flags & SL_MPI_HAS_REQUEST)
    {
      g_snprintf (buf, sizeof buf, "0x%" G_GINT64_MODIFIER "x", c->request);
      _sl_detail_pane_row (self, source == SL_MPI_START_WAIT ? "Waits for request" : "Request",
                           buf);
    }
  if (source != SL_MPI_P2P || (dir != SL_MPI_DIR_SEND && dir != SL_MPI_DIR_RECV))
    return;
  SlEventRef ref = { (gint) lane->index, (gsize) (ev - lane->events) };
  const SlMpiMessage *m = sl_mpi_find_message (sl_trace_get_mpi_messages (trace), ref);
  if (m == NULL)
    {
      _sl_detail_pane_row (self, "Message", dir == SL_MPI_DIR_SEND
                                                ? "no matching receive in the trace"
                                                : "no matching send in the trace");
      return;
    }
  SlEventRef other = dir == SL_MPI_DIR_SEND ? m->recv : m->send;
  const SlLane *other_lane = sl_trace_get_lane (trace, other.lane);
  _sl_detail_pane_link (self, dir == SL_MPI_DIR_SEND ? "Go to the matching receive"
                                                     : "Go to the matching send",
                        other_lane, other.index);
}
