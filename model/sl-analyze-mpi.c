/* sl-analyze-mpi.c: the MPI rule of `sightline analyze`: each rank's time in MPI waits and how
 * much of its MPI time a GPU of its kept computing (communication overlapping computation), and
 * the rank the others wait for in MPI: the merged traces' straggler rule, extended to MPI (the
 * rank that waits least while the others wait for it in their waits, collectives and blocking
 * receives). */
#include "sl-analyze-private.h"
#include "sl-format.h"
#include "sl-mpi.h"

void
_sl_rule_mpi_straggler (SlAnalyzeCtx *ctx)
{
  double excess = _sl_analyze_param (ctx, "excess");
  g_autoptr (SlMpiSummary) sum = sl_mpi_summarize (ctx->trace, ctx->t0, ctx->t1);

  if (sum == NULL)
    {
      _sl_analyze_note (ctx, "no MPI calls (nsys -t mpi, or NVTX ranges of a domain \"MPI\")");
      return;
    }
  /* the note: every rank's wait and overlap */
  for (guint i = 0; i < sum->n_ranks; i++)
    {
      const SlMpiRankFigures *f = &sum->ranks[i];
      g_autofree char *wait = sl_format_duration (f->wait);
      double overlap = f->mpi > 0 ? (double) f->overlap / (double) f->mpi : 0.0;
      g_autofree char *part = g_strdup_printf ("rank %d: %s in MPI waits, %.0f%% of its MPI time "
                                               "overlapped by GPU work", f->rank, wait,
                                               100 * overlap);
      _sl_analyze_note (ctx, "%s", part);
    }
  if (sum->straggler < 0)
    return;
  const SlMpiRankFigures *s = &sum->ranks[sum->straggler];
  if (sum->others_wait <= 0 || (double) s->wait >= (1.0 - excess) * (double) sum->others_wait)
    return;

  SlTime cost = sum->others_wait - s->wait;
  SlFinding *f = _sl_finding_new (ctx, s->first, s->last, cost);
  g_autofree char *mine = sl_format_duration (s->wait);
  g_autofree char *theirs = sl_format_duration (sum->others_wait);
  f->thread = s->thread;
  if (s->thread >= 0)
    _sl_finding_add_thread_lanes (ctx, f, s->thread);
  f->summary = g_strdup_printf ("rank %d is the MPI straggler: the other %u ranks wait %s in MPI "
                                "(median) against its %s, for it to reach their exchanges",
                                s->rank, sum->n_ranks - 1, theirs, mine);
  f->advice = g_strdup_printf ("The other ranks wait in MPI_Wait*, collectives and blocking "
                               "receives for rank %d. See what it does between its MPI calls "
                               "(its data loading, its GPU work, its share of the data), and "
                               "post nonblocking calls earlier so that waiting overlaps "
                               "computation.", s->rank);
  f->cause = g_strdup_printf ("rank %d is the MPI straggler", s->rank);
  _sl_evidence (f, "ranks", "Ranks", sum->n_ranks, "%u", sum->n_ranks);
  _sl_evidence (f, "straggler_rank", "Straggler", s->rank, "rank %d", s->rank);
  _sl_evidence_duration (f, "wait_ns", "Its time in MPI waits", s->wait);
  _sl_evidence_duration (f, "others_wait_ns", "The others' (median)", sum->others_wait);
  for (guint i = 0; i < sum->n_ranks; i++)
    {
      const SlMpiRankFigures *r = &sum->ranks[i];
      g_autofree char *key = g_strdup_printf ("rank%d_overlap_share", r->rank);
      g_autofree char *label = g_strdup_printf ("Rank %d: MPI time overlapped by GPU work",
                                                r->rank);
      _sl_evidence_share (f, key, label, r->mpi > 0 ? (double) r->overlap / (double) r->mpi : 0);
    }
}
