/* sl-detail-pane-private.h: the detail pane as the GUI test reads it. */
#pragma once

#include "sl-detail-pane.h"
#include "sl-occupancy.h"

G_BEGIN_DECLS

/* The event shown (tests/test-ui-app.c). */
SlEventRef sl_detail_pane_get_event (SlDetailPane *self);
/* What the pane shows, one "Key: value" line per row (headings alone on theirs, links as
 * "[Go to launch]"), in order. */
char      *_sl_detail_pane_get_text (SlDetailPane *self);

/* The pane's wording, testable without a widget (tests/test-ui-detail.c): an offset from the
 * trace start precise enough for an event of `resolution` ns, and a queue delay. */
char      *_sl_detail_pane_format_offset      (SlTime offset,
                                               SlTime resolution);
char      *_sl_detail_pane_format_queue_delay (SlTime api_end,
                                               SlTime work_start);

/* Rows of the pane, for the files that write some (sl-detail-graph.c). */
void       _sl_detail_pane_heading (SlDetailPane *self,
                                    const char   *text);
void       _sl_detail_pane_row     (SlDetailPane *self,
                                    const char   *key,
                                    const char   *value);
void       _sl_detail_pane_link    (SlDetailPane *self,
                                    const char   *text,
                                    const SlLane *lane,
                                    gsize         index);

/* sl-detail-graph.c: a CUDA graph launch (an SL_LANE_GRAPHS event, or a kernel that is a node
 * of one): its ids, stream, GPU time, nodes, launching call, and where the graph and the node
 * were made, with those calls' backtraces. */
void       _sl_detail_graph_show   (SlDetailPane  *self,
                                    SlTrace       *trace,
                                    const SlLane  *lane,
                                    const SlEvent *ev);

/* sl-detail-mpi.c: an MPI call's details (kind, rank, peer, tag, bytes, communicator, root,
 * request) and a link to the other end of its message. */
void       _sl_detail_mpi_show     (SlDetailPane  *self,
                                    SlTrace       *trace,
                                    const SlLane  *lane,
                                    const SlEvent *ev);

/* sl-detail-openmp.c: an OpenMP or OpenACC event's details (table, kind, team, source line,
 * ids, bytes, launch shape) and a link to the parallel region it belongs to. */
void       _sl_detail_openmp_show  (SlDetailPane  *self,
                                    SlTrace       *trace,
                                    const SlLane  *lane,
                                    const SlEvent *ev);

/* sl-detail-memory.c: the GPU memory a CUDA call (global event id `call`) allocated or freed:
 * size, kind, address, name, its lifetime and the call at its other end, the GPU's use after. */
void       _sl_detail_memory_show  (SlDetailPane  *self,
                                    SlTrace       *trace,
                                    guint32        call);

/* sl-detail-metrics.c: a kernel on a GPU with GPU metrics: "Achieved occupancy" (from the metrics
 * over its run, beside `theoretical`, which may be NULL), and the "GPU metrics" section (each of
 * its GPU's metrics averaged over its run).  Nothing for a GPU without metrics. */
void       _sl_detail_metrics_occupancy (SlDetailPane      *self,
                                         SlTrace           *trace,
                                         const SlLane      *lane,
                                         const SlEvent     *ev,
                                         const SlOccupancy *theoretical);
void       _sl_detail_metrics_show      (SlDetailPane      *self,
                                         SlTrace           *trace,
                                         const SlLane      *lane,
                                         const SlEvent     *ev);

G_END_DECLS
