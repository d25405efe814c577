/* sl-correlation.c: ties GPU work to the CUDA API call that launched it, in both directions.
 *
 * nsys scopes correlation ids per process: a kernel's launch is the runtime/driver call of the
 * same process with the same correlationId.  With 10^6 … 10^7 calls a GHashTable would cost
 * more than the events themselves, so a flat open-addressing table lives only while linking.
 */
#include "sl-trace-private.h"

typedef struct
{
  guint64 pid;     /* process bits of globalPid, + 1 so that 0 marks an empty slot */
  guint32 corr;
  guint32 id;      /* global event id of the API call */
} Slot;

static inline guint64
slot_hash (guint64 pid,
           guint32 corr)
{
  guint64 h = (pid * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) ^ (corr * G_GUINT64_CONSTANT (0xC2B2AE3D27D4EB4F));
  return h ^ (h >> 29);
}

void
_sl_trace_link (SlTrace *trace)
{
  gsize n_api = 0, cap = 16, mask;
  g_autofree Slot *slots = NULL;
  guint64 dup = 0;

  for (guint i = 0; i < trace->lanes->len; i++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, i);
      if (lane->kind == SL_LANE_CUDA_API)
        n_api += lane->n_events;
    }
  if (n_api == 0)
    return;
  while (cap < n_api * 2)
    cap <<= 1;
  mask = cap - 1;
  slots = g_new0 (Slot, cap);

  for (guint i = 0; i < trace->lanes->len; i++)
    {
      const SlLane *lane = g_ptr_array_index (trace->lanes, i);
      guint64 pid = (lane->global_pid >> 24) + 1;

      if (lane->kind != SL_LANE_CUDA_API)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          guint32 corr = lane->events[k].corr;
          if (corr == 0)
            continue;
          gsize s = slot_hash (pid, corr) & mask;
          while (slots[s].pid != 0 && !(slots[s].pid == pid && slots[s].corr == corr))
            s = (s + 1) & mask;
          if (slots[s].pid != 0)
            {
              dup++;
              continue;
            }
          slots[s] = (Slot) { pid, corr, (guint32) (lane->base + k) };
        }
    }

  for (guint i = 0; i < trace->lanes->len; i++)
    {
      SlLane *lane = g_ptr_array_index (trace->lanes, i);
      guint64 pid = (lane->global_pid >> 24) + 1;

      if (lane->gpu < 0)
        continue;
      for (gsize k = 0; k < lane->n_events; k++)
        {
          SlEvent *ev = &lane->events[k];
          if (ev->corr == 0)
            continue;
          gsize s = slot_hash (pid, ev->corr) & mask;
          while (slots[s].pid != 0 && !(slots[s].pid == pid && slots[s].corr == ev->corr))
            s = (s + 1) & mask;
          if (slots[s].pid == 0)
            continue;
          ev->link = slots[s].id;
          /* the call points at its first GPU operation (a cudaMemcpy may have one only) */
          const SlLane *api_lane;
          gsize api_index;
          if (sl_trace_resolve (trace, slots[s].id, &api_lane, &api_index))
            {
              SlEvent *api = &((SlLane *) api_lane)->events[api_index];
              if (api->link == SL_NO_LINK)
                api->link = lane->base + k;
            }
        }
    }
  if (dup > 0)
    _sl_trace_warn (trace, "%" G_GUINT64_FORMAT " CUDA API calls repeat a correlation id of their process; "
                           "GPU work links to the first", dup);
}
