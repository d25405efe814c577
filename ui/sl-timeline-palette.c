/* sl-timeline-palette.c: the timeline's colours per theme, an event's colour, the label text. */
#include "sl-timeline-view-private.h"

#include <stddef.h>

/* Each colour of the palette in the dark and the light theme: 0xRRGGBB and alpha.  Only dark or
 * light comes from the theme: it names a handful of colours, and not these (Adwaita's foreground is
 * #2e3436, the timeline's #1d1d22). */
static const struct
{
  gsize   offset;
  guint32 dark;
  float   dark_alpha;
  guint32 light;
  float   light_alpha;
} palette_colors[] = {
  { offsetof (Palette, bg),           0x1e1e22, 1.00f, 0xfbfbfc, 1.00f },
  { offsetof (Palette, bg_alt),       0x25252a, 1.00f, 0xf1f2f4, 1.00f },
  { offsetof (Palette, header_bg),    0x2b2b31, 1.00f, 0xebecef, 1.00f },
  { offsetof (Palette, group_bg),     0x34343c, 1.00f, 0xdfe1e6, 1.00f },
  { offsetof (Palette, fg),           0xe8e8ec, 1.00f, 0x1d1d22, 1.00f },
  { offsetof (Palette, dim_fg),       0xa0a0aa, 1.00f, 0x5e5e68, 1.00f },
  { offsetof (Palette, grid),         0xffffff, 0.08f, 0x000000, 0.08f },
  { offsetof (Palette, ruler_bg),     0x2b2b31, 1.00f, 0xebecef, 1.00f },
  { offsetof (Palette, kernel),       0x4a90e2, 1.00f, 0x2f6fcf, 1.00f },
  { offsetof (Palette, memcpy_htod),  0x3fb950, 1.00f, 0x2e9e46, 1.00f },
  { offsetof (Palette, memcpy_dtoh),  0xc06be0, 1.00f, 0xa347c4, 1.00f },
  { offsetof (Palette, memcpy_dtod),  0xe3a23c, 1.00f, 0xd98a16, 1.00f },
  { offsetof (Palette, memcpy_other), 0x9a8f7a, 1.00f, 0x857a62, 1.00f },
  { offsetof (Palette, memset),       0x36c2c2, 1.00f, 0x1a9e9e, 1.00f },
  { offsetof (Palette, api),          0x8e86d9, 1.00f, 0x7468c8, 1.00f },
  { offsetof (Palette, api_sync),     0xf0603c, 1.00f, 0xe0401c, 1.00f },
  { offsetof (Palette, nvtx),         0xc9ad4a, 1.00f, 0xb8982a, 1.00f },
  { offsetof (Palette, osrt),         0xb08a68, 1.00f, 0x9a7250, 1.00f },
  { offsetof (Palette, sample),       0xcfcfd6, 1.00f, 0x505058, 1.00f },
  { offsetof (Palette, gpu_sync),     0xe0604a, 0.80f, 0xd84a30, 0.80f },
  /* utilization: kernels and copies in their lanes' colours (host → device, the usual copy) */
  { offsetof (Palette, util_copies),  0x3fb950, 1.00f, 0x2e9e46, 1.00f },
  { offsetof (Palette, util_kernels), 0x4a90e2, 1.00f, 0x2f6fcf, 1.00f },
  { offsetof (Palette, idle),         0xff3030, 0.22f, 0xff0000, 0.16f },
  { offsetof (Palette, select),       0xffffff, 1.00f, 0x000000, 1.00f },
  { offsetof (Palette, search),       0xffd400, 1.00f, 0xf0a000, 1.00f },
  { offsetof (Palette, range),        0x6fa8ff, 0.18f, 0x2f6fcf, 0.14f },
  { offsetof (Palette, focus),        0x78aeed, 1.00f, 0x1c71d8, 1.00f },
  /* thread states, opaque (rows are drawn opaque): blocked and unknown are their hue mixed
   * into the background, faint */
  { offsetof (Palette, sched_running),  0x3fb950, 1.00f, 0x2e9e46, 1.00f },
  { offsetof (Palette, sched_runnable), 0x9ad696, 1.00f, 0xa8e4a8, 1.00f },
  { offsetof (Palette, sched_blocked),  0x62393f, 1.00f, 0xeec3c8, 1.00f },
  { offsetof (Palette, sched_unknown),  0x34353c, 1.00f, 0xe6e7eb, 1.00f },
  { offsetof (Palette, sched_mixed),    0x6f9878, 1.00f, 0x7aaa84, 1.00f },
  { offsetof (Palette, graph),          0xd9568f, 1.00f, 0xc23a76, 1.00f },
  /* a CUDA event record's marker: bright against the kernels' blue it sits on */
  { offsetof (Palette, event_record),   0xffb020, 1.00f, 0xd06000, 1.00f },
  /* memory in use: a green apart from the copies' and the running threads' */
  { offsetof (Palette, memory),         0x2ec27e, 0.85f, 0x26a269, 0.85f },
  /* migrations: a fault red (the costly kind), a prefetch asked for teal, the rest grey-blue */
  { offsetof (Palette, um_fault),       0xe66100, 1.00f, 0xc64600, 1.00f },
  { offsetof (Palette, um_prefetch),    0x33b3a6, 1.00f, 0x1f8f84, 1.00f },
  { offsetof (Palette, um_other),       0x8fa3bf, 1.00f, 0x6a7f9e, 1.00f },
};

GdkRGBA
_sl_timeline_state_color (SlTimelineView *self,
                          guint32         aux)
{
  const Palette *p = &self->pal;
  GdkRGBA c;

  switch (SL_STATE_OF (aux))
    {
    case SL_STATE_RUNNING: c = p->sched_running; break;
    case SL_STATE_RUNNABLE: c = p->sched_runnable; break;
    case SL_STATE_BLOCKED: c = p->sched_blocked; break;
    case SL_STATE_UNKNOWN:
    case SL_N_THREAD_STATES:
    default: c = p->sched_unknown; break;
    }
  /* derived from samples and OS runtime calls: the same hue, half into the background */
  if (aux & SL_STATE_DERIVED)
    {
      c.red = 0.55f * c.red + 0.45f * p->bg.red;
      c.green = 0.55f * c.green + 0.45f * p->bg.green;
      c.blue = 0.55f * c.blue + 0.45f * p->bg.blue;
    }
  return c;
}

void
_sl_timeline_palette_update (SlTimelineView *self)
{
  GdkRGBA fg;
  Palette *p = &self->pal;
  gboolean dark;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (self)), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  /* a light foreground means a dark theme, whatever the theme is called */
  dark = 0.2126 * fg.red + 0.7152 * fg.green + 0.0722 * fg.blue > 0.5;
  if (dark == self->dark && p->fg.alpha > 0)
    return;
  self->dark = dark;
  self->colors_epoch++;
  for (guint i = 0; i < G_N_ELEMENTS (palette_colors); i++)
    _sl_rgba_set ((GdkRGBA *) ((guint8 *) p + palette_colors[i].offset),
              dark ? palette_colors[i].dark : palette_colors[i].light,
              dark ? palette_colors[i].dark_alpha : palette_colors[i].light_alpha);
  if (self->text_w != NULL)
    g_hash_table_remove_all (self->text_w);
}

/* Whether the CUDA API call `name` blocks the CPU on the GPU (drawn in the warning colour), decided
 * once per name: the first time _sl_timeline_is_sync_api () meets it.  Both threads of a frame
 * ask (colours of rows are made on either); an answer is one byte, the same whoever writes it
 * first, so relaxed atomic loads and stores are all it needs. */
gboolean
_sl_timeline_decide_sync_api (SlTimelineView *self,
                              guint32         name)
{
  const char *s = sl_trace_str (self->trace, name);
  gboolean sync = strstr (s, "Synchronize") != NULL || strstr (s, "EventSynchronize") != NULL
                  || strstr (s, "StreamWaitEvent") != NULL;

  __atomic_store_n (&self->sync_names[name], sync ? 1 : 2, __ATOMIC_RELAXED);
  return sync;
}

GdkRGBA
_sl_timeline_hash_color (SlTimelineView *self,
                         guint32         name)
{
  guint h = g_str_hash (sl_trace_str (self->trace, name));
  double hue = (h % 360) / 360.0, s = 0.55 + ((h >> 9) % 20) / 100.0;
  double v = self->dark ? 0.78 : 0.72;
  float r, g, b;

  gtk_hsv_to_rgb ((float) hue, (float) s, (float) v, &r, &g, &b);
  return (GdkRGBA) { r, g, b, 1 };
}

const char *
_sl_timeline_event_label (SlTimelineView *self,
                          const SlLane   *lane,
                          const SlEvent  *ev,
                          guint32        *id)
{
  *id = ev->name;
  if (lane->kind == SL_LANE_KERNELS)
    {
      const SlKernelInfo *ki = sl_trace_get_kernel_info (self->trace, ev->aux);
      if (ki != NULL && ki->short_name != SL_NO_STR)
        *id = ki->short_name;
    }
  /* (text widths are cached by id: an id is always drawn as this text) */
  return sl_trace_display_name (self->trace, lane->kind, *id);
}

void
_sl_timeline_layout_ensure (SlTimelineView *self)
{
  PangoFontDescription *desc;
  int w;

  if (self->layout != NULL)
    return;
  self->layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
  desc = pango_font_description_copy (pango_context_get_font_description (
    pango_layout_get_context (self->layout)));
  pango_font_description_set_size (desc, 8 * PANGO_SCALE);
  pango_layout_set_font_description (self->layout, desc);
  pango_font_description_free (desc);
  pango_layout_set_text (self->layout, "Ag", -1);
  pango_layout_get_pixel_size (self->layout, &w, &self->text_h);
  g_hash_table_remove_all (self->text_w);
}

/* Draws `text` at (x, y) clipped to `max_w` px: whole when it fits, ellipsized when the box is
 * wide, not at all otherwise.  Widths are cached per string id: labels repeat a lot. */
void
_sl_timeline_draw_text (SlTimelineView *self,
                        GtkSnapshot    *snapshot,
                        guint32         id,
                        const char     *text,
                        double          x,
                        double          y,
                        double          max_w,
                        const GdkRGBA  *color)
{
  gpointer cached;
  int w;

  if (max_w < 8 || text == NULL || *text == '\0')
    return;
  if (id != SL_NO_STR && g_hash_table_lookup_extended (self->text_w, GUINT_TO_POINTER (id), NULL,
                                                       &cached))
    w = GPOINTER_TO_INT (cached);
  else
    {
      pango_layout_set_width (self->layout, -1);
      pango_layout_set_text (self->layout, text, -1);
      pango_layout_get_pixel_size (self->layout, &w, NULL);
      if (id != SL_NO_STR)
        g_hash_table_insert (self->text_w, GUINT_TO_POINTER (id), GINT_TO_POINTER (w));
    }
  if (w > max_w && max_w < 40)
    return;
  pango_layout_set_text (self->layout, text, -1);
  if (w > max_w)
    {
      pango_layout_set_width (self->layout, (int) (max_w * PANGO_SCALE));
      pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_END);
    }
  else
    {
      pango_layout_set_width (self->layout, -1);
      pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_NONE);
    }
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (floor (x), floor (y)));
  gtk_snapshot_append_layout (snapshot, self->layout, color);
  gtk_snapshot_restore (snapshot);
}

/* Draws `text` at (x, y) as it is: no measuring, no ellipsis, for short texts whose place the
 * caller knows.  NULL draws the text the layout holds: one just measured is not laid out again. */
void
_sl_timeline_draw_text_plain (SlTimelineView *self,
                              GtkSnapshot    *snapshot,
                              const char     *text,
                              double          x,
                              double          y,
                              const GdkRGBA  *color)
{
  if (text != NULL)
    {
      pango_layout_set_width (self->layout, -1);
      pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_NONE);
      pango_layout_set_text (self->layout, text, -1);
    }
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (floor (x), floor (y)));
  gtk_snapshot_append_layout (snapshot, self->layout, color);
  gtk_snapshot_restore (snapshot);
}

GdkRGBA
_sl_timeline_text_on (const GdkRGBA *bg)
{
  double l = 0.2126 * bg->red + 0.7152 * bg->green + 0.0722 * bg->blue;

  return l > 0.55 ? (GdkRGBA) { 0, 0, 0, 0.9f } : (GdkRGBA) { 1, 1, 1, 0.95f };
}
