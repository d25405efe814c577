/* sl-timeline-memory.c: a GPU's memory in use (CUDA_GPU_MEMORY_USAGE_EVENTS, model/sl-memory.c)
 * as a "Memory" row under its utilization: a step graph of the bytes on the GPU (the Device,
 * Array and Device Static kinds of every process), scaled to its peak, with the peak marked and
 * labelled.  Hovering gives the bytes in use then and the change under the pointer; a click
 * selects the CUDA call that made that change (cudaMalloc, cudaFree …), whose detail pane says
 * what it allocated or freed.
 *
 * A frame reads, per pixel column, the most bytes in use within it (a halving search to the
 * column's start, then the changes inside it): O(columns × log n + changes in view), with
 * typically 10^1 … 10^5 changes in a trace.
 */
#include "sl-timeline-view-private.h"
#include "sl-format.h"
#include "sl-memory.h"

#define MEMORY_PICK_PX 4.0   /* a change within this many pixels of the pointer is under it */

/* "1.50 GiB": sl_format_bytes without its exact count in parentheses. */
static char *
short_bytes (gint64 bytes)
{
  char *text = sl_format_bytes ((guint64) MAX (bytes, 0));
  char *paren = strstr (text, " (");

  if (paren != NULL)
    *paren = '\0';
  return text;
}

/* The series a memory row shows (kept in its `track`). */
static const SlMemSeries *
row_series (SlTimelineView *self,
            const Row      *r)
{
  if (r->track < 0 || (guint) r->track >= sl_memory_get_n_series (self->trace))
    return NULL;
  return sl_memory_get_series (self->trace, (guint) r->track);
}

void
_sl_timeline_memory_draw (SlTimelineView *self,
                          GtkSnapshot    *snapshot,
                          const Frame    *f,
                          const Row      *r,
                          double          y)
{
  const SlMemSeries *s = row_series (self, r);
  Batch batch = { .snapshot = snapshot };
  double top = y + 3, full = r->h - 5;

  if (s != NULL && s->peak > 0 && f->scale > 0)
    {
      guint n = (guint) ceil (f->width);
      GdkRGBA fill = self->pal.memory;
      for (guint c = 0; c < n; c++)
        {
          SlTime t0 = f->t0 + (SlTime) ((double) c / f->scale);
          SlTime t1 = f->t0 + (SlTime) ((double) (c + 1) / f->scale);
          if (t1 <= t0)
            t1 = t0 + 1;
          gint64 bytes = sl_mem_series_max_between (s, t0, t1);
          if (bytes <= 0)
            continue;
          double h = MAX (1.0, round (full * (double) bytes / (double) s->peak));
          batch_add (&batch, HEADER_W + c, HEADER_W + c + 1, top + full - h, h, &fill);
        }
      batch_flush (&batch);

      /* the most in view, at the left: the scale is the peak's, a small use is a thin line */
      gint64 most = sl_mem_series_max_between (s, f->t0, f->t1);
      if (most < s->peak)
        {
          g_autofree char *bytes = short_bytes (most);
          g_autofree char *label = g_strdup_printf ("max in view %s", bytes);
          _sl_timeline_draw_text (self, snapshot, SL_NO_STR, label, HEADER_W + 4, top, 200,
                                  &self->pal.dim_fg);
        }
      /* the peak: a line where it was first reached, and its size beside it */
      double px = frame_x (f, s->peak_time);
      if (px >= HEADER_W && px <= f->right)
        {
          g_autofree char *bytes = short_bytes (s->peak);
          g_autofree char *label = g_strdup_printf ("peak %s", bytes);
          gtk_snapshot_append_color (snapshot, &self->pal.fg,
                                     &GRAPHENE_RECT_INIT (floor (px), top, 1, full));
          double w = MIN (f->right - px - 4, 160);
          if (w > 30)
            _sl_timeline_draw_text (self, snapshot, SL_NO_STR, label, px + 3, top, w,
                                    &self->pal.fg);
        }
    }
  gtk_snapshot_append_color (snapshot, &self->pal.grid,
                             &GRAPHENE_RECT_INIT (HEADER_W, y + r->h - 1, f->width, 1));
}

/* The step of the series nearest `x` within MEMORY_PICK_PX, -1 when none. */
static gssize
step_near (SlTimelineView    *self,
           const SlMemSeries *s,
           double             x)
{
  SlTime t = x_to_time (self, x);
  SlTime slop = x_to_time (self, x + MEMORY_PICK_PX) - t;
  gssize i = sl_mem_series_step_at (s, t + slop), best = -1;
  SlTime best_d = G_MAXINT64;

  for (; i >= 0 && s->steps[i].time >= t - slop; i--)
    {
      SlTime d = ABS (s->steps[i].time - t);
      if (d < best_d)
        {
          best_d = d;
          best = i;
        }
    }
  return best;
}

/* "cudaMalloc of 800 MB (Device)" for a row of the series: what changed the bytes in use. */
static char *
change_text (SlTimelineView *self,
             guint32         row)
{
  const SlMemUsage *m = sl_trace_get_mem_usage (self->trace, row);
  guint32 call = sl_memory_get_row_call (self->trace, row);
  const SlLane *lane;
  gsize index;
  g_autofree char *bytes = sl_format_bytes (m->bytes);
  const char *name = sl_trace_str (self->trace, m->name);
  const char *what = m->op == SL_MEM_FREE ? "free" : "allocation";

  if (call != SL_NO_LINK && sl_trace_resolve (self->trace, call, &lane, &index))
    what = sl_trace_display_name (self->trace, lane->kind, lane->events[index].name);
  return g_strdup_printf ("%s%s %s · %s at 0x%" G_GINT64_MODIFIER "x%s%s",
                          m->op == SL_MEM_FREE ? "−" : "+", bytes, what,
                          sl_mem_kind_label (self->trace, m->mem_kind), m->address,
                          *name != '\0' ? " · " : "", name);
}

char *
_sl_timeline_memory_tooltip (SlTimelineView *self,
                             const Row      *r,
                             double          x)
{
  const SlMemSeries *s = row_series (self, r);
  if (s == NULL)
    return NULL;
  SlTime t = x_to_time (self, x);
  g_autofree char *now = sl_format_bytes ((guint64) MAX (sl_mem_series_bytes_at (s, t), 0));
  g_autofree char *peak = sl_format_bytes ((guint64) MAX (s->peak, 0));
  g_autofree char *peak_t = sl_format_offset (s->peak_time - sl_trace_get_origin (self->trace));
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "GPU memory in use: %s\nPeak: %s at %s", now, peak, peak_t);
  gssize i = step_near (self, s, x);
  if (i >= 0)
    {
      g_autofree char *change = change_text (self, s->steps[i].row);
      g_string_append_printf (text, "\n%s", change);
    }
  return g_string_free (text, FALSE);
}

gboolean
_sl_timeline_memory_hit (SlTimelineView *self,
                         const Row      *r,
                         double          x,
                         SlEventRef     *ref,
                         SlLodItem      *item)
{
  const SlMemSeries *s = row_series (self, r);
  const SlLane *lane;
  gsize index;

  if (s == NULL)
    return FALSE;
  gssize i = step_near (self, s, x);
  if (i < 0)
    return FALSE;
  guint32 call = sl_memory_get_row_call (self->trace, s->steps[i].row);
  if (call == SL_NO_LINK || !sl_trace_resolve (self->trace, call, &lane, &index))
    return FALSE;
  *ref = (SlEventRef) { (gint) lane->index, index };
  memset (item, 0, sizeof *item);
  item->first = index;
  item->count = 1;
  item->start = lane->events[index].start;
  item->end = lane->events[index].end;
  return TRUE;
}
