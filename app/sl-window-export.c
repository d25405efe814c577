/* sl-window-export.c: exports from the window: the visible timeline as PNG or SVG (its render node
 * drawn on a cairo surface), the statistics table shown as CSV; win.export-image and
 * win.export-stats-csv with a GtkFileChooserNative (GTK 4.8 has no GtkFileDialog). */
#include "sl-window-private.h"

#include <cairo-svg.h>
#include <hb.h>
#include <string.h>

#include "sl-stats-panel-private.h"
#include "sl-timeline-view.h"

/* ---- text of an SVG ------------------------------------------------------------------------ */

/* cairo writes text as glyph outlines: the SVG would show the lane labels but hold none of their
 * text, so nothing in it could be searched or selected.  Each text node is written again as an
 * invisible <text> at its place, the characters recovered from the font's glyph → code point map
 * (one per font, from HarfBuzz's nominal glyphs; a glyph of no code point, as a ligature, is left
 * out). */
typedef struct
{
  GString    *out;
  GHashTable *maps;   /* hb_face_t * -> GHashTable (glyph -> code point) */
} TextLayer;

static GHashTable *
glyph_map (TextLayer *layer,
           hb_font_t *font)
{
  hb_face_t *face = hb_font_get_face (font);
  GHashTable *map = g_hash_table_lookup (layer->maps, face);
  hb_set_t *set;
  hb_codepoint_t u = HB_SET_VALUE_INVALID;

  if (map != NULL)
    return map;
  map = g_hash_table_new (NULL, NULL);
  set = hb_set_create ();
  hb_face_collect_unicodes (face, set);
  while (hb_set_next (set, &u))
    {
      hb_codepoint_t glyph;
      if (hb_font_get_nominal_glyph (font, u, &glyph)
          && !g_hash_table_contains (map, GUINT_TO_POINTER (glyph)))
        g_hash_table_insert (map, GUINT_TO_POINTER (glyph), GUINT_TO_POINTER (u));
    }
  hb_set_destroy (set);
  g_hash_table_insert (layer->maps, face, map);
  return map;
}

static void
text_node (TextLayer     *layer,
           GskRenderNode *node,
           double         dx,
           double         dy,
           double         scale)
{
  const graphene_point_t *offset = gsk_text_node_get_offset (node);
  PangoFont *font = gsk_text_node_get_font (node);
  guint n = gsk_text_node_get_num_glyphs (node);
  const PangoGlyphInfo *glyphs = gsk_text_node_get_glyphs (node, NULL);
  GHashTable *map = glyph_map (layer, pango_font_get_hb_font (font));
  g_autoptr (PangoFontDescription) desc = pango_font_describe_with_absolute_size (font);
  g_autoptr (GString) text = g_string_new (NULL);
  g_autofree char *escaped = NULL;
  double size = pango_font_description_get_size (desc) / (double) PANGO_SCALE;
  char x[G_ASCII_DTOSTR_BUF_SIZE], y[G_ASCII_DTOSTR_BUF_SIZE], s[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < n; i++)
    {
      gpointer u;
      if (g_hash_table_lookup_extended (map, GUINT_TO_POINTER (glyphs[i].glyph), NULL, &u))
        g_string_append_unichar (text, GPOINTER_TO_UINT (u));
    }
  if (text->len == 0)
    return;
  escaped = g_markup_escape_text (text->str, -1);
  g_ascii_formatd (x, sizeof x, "%.1f", dx + offset->x * scale);
  g_ascii_formatd (y, sizeof y, "%.1f", dy + offset->y * scale);
  g_ascii_formatd (s, sizeof s, "%.1f", size * scale);
  g_string_append_printf (layer->out, "<text x=\"%s\" y=\"%s\" font-size=\"%s\">%s</text>\n",
                          x, y, s, escaped);
}

/* Walks the nodes that place their children (translations and scales; clips and effects pass
 * through) down to the text nodes. */
static void
walk_text (TextLayer     *layer,
           GskRenderNode *node,
           double         dx,
           double         dy,
           double         scale)
{
  if (node == NULL)
    return;
  switch (gsk_render_node_get_node_type (node))
    {
    case GSK_CONTAINER_NODE:
      for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
        walk_text (layer, gsk_container_node_get_child (node, i), dx, dy, scale);
      break;
    case GSK_TRANSFORM_NODE:
      {
        GskTransform *t = gsk_transform_node_get_transform (node);
        float sx = 1, sy = 1, tx = 0, ty = 0;
        if (gsk_transform_get_category (t) >= GSK_TRANSFORM_CATEGORY_2D_AFFINE)
          {
            gsk_transform_to_affine (t, &sx, &sy, &tx, &ty);
            walk_text (layer, gsk_transform_node_get_child (node), dx + tx * scale,
                       dy + ty * scale, scale * sx);
          }
        break;
      }
    case GSK_CLIP_NODE:
      walk_text (layer, gsk_clip_node_get_child (node), dx, dy, scale);
      break;
    case GSK_ROUNDED_CLIP_NODE:
      walk_text (layer, gsk_rounded_clip_node_get_child (node), dx, dy, scale);
      break;
    case GSK_OPACITY_NODE:
      walk_text (layer, gsk_opacity_node_get_child (node), dx, dy, scale);
      break;
    case GSK_COLOR_MATRIX_NODE:
      walk_text (layer, gsk_color_matrix_node_get_child (node), dx, dy, scale);
      break;
    case GSK_SHADOW_NODE:
      walk_text (layer, gsk_shadow_node_get_child (node), dx, dy, scale);
      break;
    case GSK_DEBUG_NODE:
      walk_text (layer, gsk_debug_node_get_child (node), dx, dy, scale);
      break;
    case GSK_BLEND_NODE:
      walk_text (layer, gsk_blend_node_get_bottom_child (node), dx, dy, scale);
      walk_text (layer, gsk_blend_node_get_top_child (node), dx, dy, scale);
      break;
    case GSK_TEXT_NODE:
      text_node (layer, node, dx, dy, scale);
      break;
    default:
      break;
    }
}

/* Appends the text layer to the SVG cairo wrote, before its closing tag. */
static gboolean
add_text_layer (const char     *path,
                GskRenderNode  *node,
                GError        **error)
{
  g_autofree char *svg = NULL;
  gsize len;
  const char *end;
  TextLayer layer = { g_string_new (NULL), g_hash_table_new_full (NULL, NULL, NULL,
                                                                  (GDestroyNotify) g_hash_table_unref) };
  g_autoptr (GString) out = NULL;
  gboolean ok;

  if (!g_file_get_contents (path, &svg, &len, error))
    return FALSE;
  end = g_strrstr (svg, "</svg>");
  walk_text (&layer, node, 0, 0, 1);
  g_hash_table_unref (layer.maps);
  if (end == NULL || layer.out->len == 0)
    {
      g_string_free (layer.out, TRUE);
      return TRUE;
    }
  out = g_string_new_len (svg, end - svg);
  g_string_append (out, "<g fill-opacity=\"0\" font-family=\"sans-serif\" id=\"text\">\n");
  g_string_append_len (out, layer.out->str, (gssize) layer.out->len);
  g_string_append (out, "</g>\n");
  g_string_append (out, end);
  g_string_free (layer.out, TRUE);
  ok = g_file_set_contents (path, out->str, (gssize) out->len, error);
  return ok;
}

/* ---- the timeline as an image -------------------------------------------------------------- */

gboolean
sl_window_export_timeline (SlWindow    *self,
                           const char  *path,
                           GError     **error)
{
  GtkWidget *widget;
  g_autoptr (GdkPaintable) paintable = NULL;
  g_autoptr (GskRenderNode) node = NULL;
  GtkSnapshot *snapshot;
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;
  gboolean svg;
  int w, h;

  g_return_val_if_fail (SL_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  widget = self->timeline;
  w = gtk_widget_get_width (widget);
  h = gtk_widget_get_height (widget);
  if (self->trace == NULL || w <= 0 || h <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                   "Cannot save %s: no timeline is shown", path);
      return FALSE;
    }
  /* the widget's own frame, as it is on screen: its paintable snapshots it on demand */
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL && gtk_widget_get_mapped (widget))
    {
      /* not painted since it was last mapped: its own snapshot, as its next frame would be */
      snapshot = gtk_snapshot_new ();
      GTK_WIDGET_GET_CLASS (widget)->snapshot (widget, snapshot);
      node = gtk_snapshot_free_to_node (snapshot);
    }
  if (node == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "Cannot save %s: the timeline has not been drawn yet", path);
      return FALSE;
    }
  svg = g_str_has_suffix (path, ".svg") || g_str_has_suffix (path, ".SVG");
  surface = svg ? cairo_svg_surface_create (path, w, h)
                : cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  cr = cairo_create (surface);
  gsk_render_node_draw (node, cr);
  cairo_destroy (cr);
  if (svg)
    {
      cairo_surface_finish (surface);
      status = cairo_surface_status (surface);
    }
  else
    status = cairo_surface_write_to_png (surface, path);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot save %s: %s", path,
                   cairo_status_to_string (status));
      return FALSE;
    }
  return !svg || add_text_layer (path, node, error);
}

/* ---- the statistics table shown, as CSV ---------------------------------------------------- */

char *
sl_window_get_stats_csv (SlWindow  *self,
                         GError   **error)
{
  SlStatsPanel *panel;
  const char *name;
  g_autoptr (GString) out = NULL;
  SlReport *report;
  SlTime t0 = G_MININT64, t1 = G_MAXINT64;

  g_return_val_if_fail (SL_IS_WINDOW (self), NULL);
  panel = SL_STATS_PANEL (self->stats);
  name = sl_stats_panel_get_report (panel);
  if (self->trace == NULL || name == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, "No statistics are shown");
      return NULL;
    }
  /* the report as the panel shows it: over the selected range when it follows one */
  if (sl_stats_panel_is_ranged (panel) && self->viewport != NULL)
    sl_viewport_get_selection (self->viewport, &t0, &t1);
  report = sl_report_compute_range (self->trace, name, t0, t1, error);
  if (report == NULL)
    return NULL;
  out = g_string_new (NULL);
  sl_report_write (report, SL_REPORT_FORMAT_CSV, out);
  sl_report_free (report);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* ---- actions ------------------------------------------------------------------------------- */

typedef enum
{
  EXPORT_IMAGE,
  EXPORT_STATS,
} ExportKind;

static void
export_response_cb (GtkNativeDialog *dialog,
                    int              response,
                    SlWindow        *self)
{
  ExportKind kind = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (dialog), "sl-export"));
  g_autoptr (GFile) file = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  if (file == NULL || (path = g_file_get_path (file)) == NULL)
    return;
  if (kind == EXPORT_IMAGE)
    sl_window_export_timeline (self, path, &error);
  else
    {
      g_autofree char *csv = sl_window_get_stats_csv (self, &error);
      if (csv != NULL)
        g_file_set_contents (path, csv, -1, &error);
    }
  if (error != NULL)
    _sl_window_show_error (self, "Could not export", error);
}

static void
add_filter (GtkFileChooser *chooser,
            const char     *name,
            const char     *pattern)
{
  g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  gtk_file_filter_add_pattern (filter, pattern);
  gtk_file_chooser_add_filter (chooser, filter);
}

static void
export_action_cb (GtkWidget  *widget,
                  const char *action,
                  GVariant   *parameter)
{
  SlWindow *self = SL_WINDOW (widget);
  gboolean image = g_str_equal (action, "win.export-image");
  GtkFileChooserNative *chooser;
  g_autofree char *base = NULL;
  g_autofree char *name = NULL;

  (void) parameter;
  if (self->trace == NULL)
    return;
  chooser = gtk_file_chooser_native_new (image ? "Export the Timeline" : "Save Statistics as CSV",
                                         GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE,
                                         "_Save", "_Cancel");
  base = self->file != NULL ? g_file_get_basename (self->file) : g_strdup ("trace");
  if (strrchr (base, '.') != NULL)
    *strrchr (base, '.') = '\0';
  if (image)
    {
      add_filter (GTK_FILE_CHOOSER (chooser), "PNG image", "*.png");
      add_filter (GTK_FILE_CHOOSER (chooser), "SVG image", "*.svg");
      name = g_strdup_printf ("%s-timeline.png", base);
    }
  else
    {
      add_filter (GTK_FILE_CHOOSER (chooser), "CSV", "*.csv");
      const char *report = sl_stats_panel_get_report (SL_STATS_PANEL (self->stats));
      name = g_strdup_printf ("%s-%s.csv", base, report != NULL ? report : "stats");
    }
  if (self->file != NULL)
    {
      /* beside the trace, not in the folder Sightline was started from */
      g_autoptr (GFile) folder = g_file_get_parent (self->file);
      if (folder != NULL)
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
    }
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_object_set_data (G_OBJECT (chooser), "sl-export",
                     GINT_TO_POINTER (image ? EXPORT_IMAGE : EXPORT_STATS));
  g_signal_connect_object (chooser, "response", G_CALLBACK (export_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

void
_sl_window_export_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.export-image", NULL, export_action_cb);
  gtk_widget_class_install_action (widget_class, "win.export-stats-csv", NULL, export_action_cb);
}
