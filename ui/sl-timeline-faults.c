/* sl-timeline-faults.c: unified memory's page faults (CUDA_UM_{GPU,CPU}_PAGE_FAULT_EVENTS,
 * model/sl-um-faults.c) as rows: "Page faults" under each GPU whose accesses faulted, beside its
 * Memory row, and "CPU page faults" under each process whose host code faulted.  Each pixel
 * column is a bar as tall as the faults that started in it (numberOfPageFaults summed; a CPU
 * fault is one), scaled to the most of any column in view, the most labelled.  Hovering gives the
 * faults under the pointer: how many, in how many groups, the range of their addresses and their
 * access types.
 *
 * A frame makes one halving search per column boundary into the series' starts and reads the
 * faults from its running sums: O(columns × log n), whatever the 10^2 … 10^6 rows of a trace.
 */
#include "sl-timeline-view-private.h"
#include "sl-format.h"
#include "sl-um-faults.h"

#define FAULTS_PICK_PX 2.0   /* the faults this many px either side of the pointer are under it */

/* The series a faults row shows (kept in its `track`). */
static const SlUmFaultSeries *
row_series (SlTimelineView *self,
            const Row      *r)
{
  if (r->track < 0 || (guint) r->track >= sl_um_faults_get_n_series (self->trace))
    return NULL;
  return sl_um_faults_get_series (self->trace, (guint) r->track);
}

void
_sl_timeline_faults_draw (SlTimelineView *self,
                          GtkSnapshot    *snapshot,
                          const Frame    *f,
                          const Row      *r,
                          double          y)
{
  const SlUmFaultSeries *s = row_series (self, r);
  Batch batch = { .snapshot = snapshot };
  double top = y + 3, full = r->h - 5;
  guint n = (guint) ceil (f->width);

  if (s != NULL && s->n_rows > 0 && f->scale > 0 && n > 0)
    {
      g_autofree guint64 *count = g_new (guint64, n);
      guint64 most = 0;
      /* column c: the rows starting in [t0 + c / scale, t0 + (c + 1) / scale) */
      gsize at = sl_um_fault_series_lower (s, f->t0);
      for (guint c = 0; c < n; c++)
        {
          SlTime t1 = f->t0 + (SlTime) ((double) (c + 1) / f->scale);
          gsize next = sl_um_fault_series_lower (s, t1);
          next = MAX (next, at);
          count[c] = s->prefix[next] - s->prefix[at];
          most = MAX (most, count[c]);
          at = next;
        }
      GdkRGBA fill = self->pal.um_fault;
      fill.alpha = 1.0f;
      for (guint c = 0; c < n && most > 0; c++)
        {
          if (count[c] == 0)
            continue;
          double h = MAX (1.0, round (full * (double) count[c] / (double) most));
          batch_add (&batch, HEADER_W + c, HEADER_W + c + 1, top + full - h, h, &fill);
        }
      batch_flush (&batch);
      if (most > 0)
        {
          g_autofree char *label = g_strdup_printf (
            most == 1 ? "max %" G_GUINT64_FORMAT " fault / px"
                      : "max %" G_GUINT64_FORMAT " faults / px", most);
          _sl_timeline_draw_text (self, snapshot, SL_NO_STR, label, HEADER_W + 4, top, 200,
                                  &self->pal.dim_fg);
        }
    }
  gtk_snapshot_append_color (snapshot, &self->pal.grid,
                             &GRAPHENE_RECT_INIT (HEADER_W, y + r->h - 1, f->width, 1));
}

void
_sl_timeline_faults_window (SlTimelineView *self,
                            double          x,
                            SlTime         *t0,
                            SlTime         *t1)
{
  *t0 = x_to_time (self, x - FAULTS_PICK_PX);
  *t1 = x_to_time (self, x + FAULTS_PICK_PX);
}

char *
_sl_timeline_faults_tooltip (SlTimelineView *self,
                             const Row      *r,
                             double          x)
{
  const SlUmFaultSeries *s = row_series (self, r);
  SlTime t0, t1, v0, v1;

  if (s == NULL)
    return NULL;
  _sl_timeline_faults_window (self, x, &t0, &t1);
  sl_viewport_get_visible (self->viewport, &v0, &v1);
  gsize p0 = sl_um_fault_series_lower (s, t0), p1 = MAX (sl_um_fault_series_lower (s, t1), p0);
  guint64 in_view = sl_um_fault_series_count (s, v0, v1);
  const char *what = s->side == SL_UM_FAULT_GPU ? "GPU page faults" : "CPU page faults";
  GString *text = g_string_new (NULL);

  if (p1 == p0)
    {
      g_string_append_printf (text, "No %s here\n%" G_GUINT64_FORMAT " in view", what, in_view);
      return g_string_free (text, FALSE);
    }
  guint64 lo = G_MAXUINT64, hi = 0;
  guint64 by_access[256] = { 0 };
  for (gsize i = p0; i < p1; i++)   /* a few pixels' rows */
    {
      const SlUmFault *fault = sl_trace_get_um_fault (self->trace, s->rows[i]);
      lo = MIN (lo, fault->address);
      hi = MAX (hi, fault->address);
      by_access[fault->access] += fault->n_faults;
    }
  guint64 faults = s->prefix[p1] - s->prefix[p0];
  g_autofree char *from = sl_format_offset (s->starts[p0] - sl_trace_get_origin (self->trace));
  if (s->side == SL_UM_FAULT_GPU)
    g_string_append_printf (text, "%s: %" G_GUINT64_FORMAT " in %" G_GSIZE_FORMAT " group%s",
                            what, faults, p1 - p0, p1 - p0 == 1 ? "" : "s");
  else
    g_string_append_printf (text, "%s: %" G_GUINT64_FORMAT, what, faults);
  g_string_append_printf (text, "\nFrom %s", from);
  if (lo == hi)
    g_string_append_printf (text, "\nAddress 0x%" G_GINT64_MODIFIER "x", lo);
  else
    g_string_append_printf (text, "\nAddresses 0x%" G_GINT64_MODIFIER "x – 0x%" G_GINT64_MODIFIER
                            "x", lo, hi);
  if (s->side == SL_UM_FAULT_GPU)
    {
      g_string_append (text, "\nAccess:");
      const char *sep = " ";
      for (guint a = 0; a < G_N_ELEMENTS (by_access); a++)
        if (by_access[a] > 0)
          {
            g_string_append_printf (text, "%s%s %" G_GUINT64_FORMAT, sep, sl_um_access_label (a),
                                    by_access[a]);
            sep = ", ";
          }
    }
  g_string_append_printf (text, "\n%" G_GUINT64_FORMAT " in view", in_view);
  return g_string_free (text, FALSE);
}
