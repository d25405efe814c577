/* sl-detail-memory.c: the detail pane's account of the GPU memory a CUDA call allocated or freed
 * (CUDA_GPU_MEMORY_USAGE_EVENTS, model/sl-memory.c): size, kind, address, variable name, how long
 * the allocation lived and the call at its other end, and the GPU's memory in use after it.
 * A call makes one row, rarely a few: the pane lists the first MAX_ROWS. */
#include "sl-detail-pane-private.h"
#include "sl-display-name.h"
#include "sl-format.h"
#include "sl-memory.h"

#define MAX_ROWS 8

/* The call at the other end of allocation `a` (its free for an allocation row, its allocation
 * for a free row), as a link; a line saying there is none otherwise. */
static void
add_other_end (SlDetailPane     *self,
               SlTrace          *trace,
               const SlMemAlloc *a,
               guint             row)
{
  gboolean is_alloc = a->alloc == row;
  guint32 other = is_alloc ? a->free : a->alloc;
  const SlLane *lane;
  gsize index;

  if (other == SL_NO_LINK)
    {
      _sl_detail_pane_row (self, is_alloc ? "Freed" : "Allocated",
                           is_alloc ? "never, within the trace"
                                    : "before the trace began");
      return;
    }
  g_autofree char *life = sl_format_duration (a->end - a->start);
  _sl_detail_pane_row (self, "Lifetime", life);
  guint32 call = sl_memory_get_row_call (trace, other);
  if (call != SL_NO_LINK && sl_trace_resolve (trace, call, &lane, &index))
    _sl_detail_pane_link (self, is_alloc ? "Go to the free" : "Go to the allocation", lane,
                          index);
}

void
_sl_detail_memory_show (SlDetailPane *self,
                        SlTrace      *trace,
                        guint32       call)
{
  guint rows[MAX_ROWS];
  guint n = sl_memory_find_call_rows (trace, call, rows, MAX_ROWS);

  for (guint i = 0; i < MIN (n, MAX_ROWS); i++)
    {
      const SlMemUsage *m = sl_trace_get_mem_usage (trace, rows[i]);
      const SlGpu *gpu = sl_trace_get_gpu (trace, (guint) m->gpu);
      g_autofree char *bytes = sl_format_bytes (m->bytes);
      g_autofree char *address = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", m->address);
      g_autofree char *device = g_strdup_printf ("GPU %u", gpu->device_id);
      const char *name = sl_trace_str (trace, m->name);

      _sl_detail_pane_heading (self, m->op == SL_MEM_FREE ? "GPU memory freed"
                                                          : "GPU memory allocated");
      _sl_detail_pane_row (self, "Size", bytes);
      _sl_detail_pane_row (self, "Kind", sl_mem_kind_label (trace, m->mem_kind));
      _sl_detail_pane_row (self, "Address", address);
      _sl_detail_pane_row (self, "Device", device);
      if (*name != '\0')
        _sl_detail_pane_row (self, "Name", name);
      guint32 a = sl_memory_find_row_alloc (trace, rows[i]);
      if (a != SL_NO_LINK)
        add_other_end (self, trace, sl_memory_get_alloc (trace, a), rows[i]);
      gint series = sl_memory_find_gpu_series (trace, m->gpu);
      if (series >= 0 && sl_mem_kind_on_gpu (m->mem_kind))
        {
          const SlMemSeries *s = sl_memory_get_series (trace, (guint) series);
          g_autofree char *after = sl_format_bytes ((guint64) MAX (
            sl_mem_series_bytes_at (s, m->start), 0));
          g_autofree char *peak = sl_format_bytes ((guint64) MAX (s->peak, 0));
          _sl_detail_pane_row (self, "GPU memory in use after", after);
          _sl_detail_pane_row (self, "GPU memory peak", peak);
        }
    }
  if (n > MAX_ROWS)
    {
      g_autofree char *more = g_strdup_printf ("%u more", n - MAX_ROWS);
      _sl_detail_pane_row (self, "Memory rows", more);
    }
}
