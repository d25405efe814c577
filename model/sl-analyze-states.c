/* sl-analyze-states.c: CPU evidence from thread states for the rules: how long a thread was
 * running, runnable or blocked in a window (and in which OS runtime call it blocked), from
 * scheduling data where the trace has it, said to be derived or missing where it has not. */
#include "sl-analyze-private.h"

#include "sl-format.h"

void
_sl_thread_states (SlAnalyzeCtx *ctx,
                   gint          thread,
                   SlTime        a,
                   SlTime        b,
                   SlStateTimes *out)
{
  const SlLane *lane = thread >= 0 && (guint) thread < ctx->n_threads
                         ? _sl_lane_or_null (ctx, ctx->tl[thread].sched) : NULL;

  memset (out, 0, sizeof *out);
  out->block = SL_NO_LINK;
  if (lane == NULL)
    return;
  out->any = TRUE;
  out->derived = (lane->events[0].aux & SL_STATE_DERIVED) != 0;

  g_autoptr (GHashTable) reasons = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr (GArray) blocked = g_array_new (FALSE, FALSE, sizeof (SlSpan));
  /* slices tile: the one covering a starts at or before it */
  gsize i = sl_lane_lower_bound (lane, a);
  if (i > 0 && lane->events[i - 1].end > a)
    i--;
  for (; i < lane->n_events && lane->events[i].start < b; i++)
    {
      const SlEvent *ev = &lane->events[i];
      SlTime d = MIN (ev->end, b) - MAX (ev->start, a);
      if (d <= 0)
        continue;
      out->time[SL_STATE_OF (ev->aux)] = _sl_time_add (out->time[SL_STATE_OF (ev->aux)], d);
      if (SL_STATE_OF (ev->aux) != SL_STATE_BLOCKED)
        continue;
      SlSpan sp = { MAX (ev->start, a), MIN (ev->end, b) };
      g_array_append_val (blocked, sp);
      if (ev->link == SL_NO_LINK)
        continue;
      _sl_by_name_add (reasons, ev->link + 1, d);
    }
  SlTime top_t = 0;
  guint32 top = _sl_top_name (reasons, &top_t);
  if (top_t > 0)
    out->block = top - 1;

  /* the OS runtime call the blocked time falls in most */
  const SlLane *osrt = _sl_lane_or_null (ctx, ctx->tl[thread].osrt);
  if (osrt != NULL && blocked->len > 0)
    {
      g_autoptr (GHashTable) by_name = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      for (guint s = 0; s < blocked->len; s++)
        {
          const SlSpan *sp = &g_array_index (blocked, SlSpan, s);
          _sl_overlap_sum (ctx, osrt, sp->s, sp->e, by_name, SL_CALLS_ALL, NULL);
        }
      out->call = _sl_top_name (by_name, &out->call_t);
    }
}

void
_sl_evidence_states (SlAnalyzeCtx *ctx,
                     SlFinding    *f,
                     gint          thread,
                     SlTime        a,
                     SlTime        b)
{
  SlStateTimes st;
  double len = (double) MAX (b - a, 1);

  _sl_thread_states (ctx, thread, a, b, &st);
  if (!st.any)
    {
      _sl_evidence (f, "thread_states", "Thread states", 0, "%s",
                    "no evidence: the trace has no scheduling data (SCHED_EVENTS) and no CPU "
                    "samples for this thread");
      return;
    }
  const char *from = st.derived ? " (derived from samples and OS runtime calls)"
                                : " (scheduling data)";
  _sl_evidence (f, "thread_states", "Thread states", st.derived ? 1 : 2, "%s",
                st.derived ? "derived from CPU samples and OS runtime calls: no scheduling data"
                           : "from scheduling data (SCHED_EVENTS)");
  g_autofree char *run = sl_format_duration (st.time[SL_STATE_RUNNING]);
  _sl_evidence (f, "running_ns", "Running", (double) st.time[SL_STATE_RUNNING], "%s (%.0f%%)%s",
                run, 100.0 * st.time[SL_STATE_RUNNING] / len, from);
  if (!st.derived)
    {
      g_autofree char *ready = sl_format_duration (st.time[SL_STATE_RUNNABLE]);
      _sl_evidence (f, "runnable_ns", "Runnable (waiting for a core)",
                    (double) st.time[SL_STATE_RUNNABLE], "%s (%.0f%%)", ready,
                    100.0 * st.time[SL_STATE_RUNNABLE] / len);
    }
  g_autofree char *blk = sl_format_duration (st.time[SL_STATE_BLOCKED]);
  g_autoptr (GString) why = g_string_new (NULL);
  if (st.block != SL_NO_LINK)
    g_string_append_printf (why, ", on %s",
                            sl_trace_enum_label (ctx->trace, SL_ENUM_THREAD_BLOCK, st.block));
  if (st.call_t > 0)
    {
      g_autofree char *in = sl_format_duration (st.call_t);
      g_string_append_printf (why, ", %s of it in %s", in, sl_trace_str (ctx->trace, st.call));
    }
  _sl_evidence (f, "blocked_ns", "Blocked", (double) st.time[SL_STATE_BLOCKED], "%s (%.0f%%)%s",
                blk, 100.0 * st.time[SL_STATE_BLOCKED] / len, why->str);
  if (st.time[SL_STATE_UNKNOWN] > 0)
    {
      g_autofree char *unk = sl_format_duration (st.time[SL_STATE_UNKNOWN]);
      _sl_evidence (f, "state_unknown_ns", "State unknown", (double) st.time[SL_STATE_UNKNOWN],
                    "%s (%.0f%%)", unk, 100.0 * st.time[SL_STATE_UNKNOWN] / len);
    }
}
