/* sl-stats-write.c: a report as text: nsys's console columns, CSV, or JSON.
 *
 * Byte for byte what `nsys stats` prints for the same cells (tests/test-stats.c and the README's
 * examples hold it to that); cuda_gpu_trace can have 10^7 rows, so each row is appended once.
 */
#include "sl-stats-private.h"

#include "sl-format.h"

#include <math.h>
#include <string.h>

gboolean
sl_report_format_parse (const char     *text,
                        SlReportFormat *format)
{
  g_return_val_if_fail (format != NULL, FALSE);

  if (g_strcmp0 (text, "column") == 0)
    *format = SL_REPORT_FORMAT_COLUMN;
  else if (g_strcmp0 (text, "csv") == 0)
    *format = SL_REPORT_FORMAT_CSV;
  else if (g_strcmp0 (text, "json") == 0)
    *format = SL_REPORT_FORMAT_JSON;
  else
    return FALSE;
  return TRUE;
}

/* "1234567.5" -> "1,234,567.5" (the integer part only; keeps a leading '-'). */
static void
append_grouped (GString    *out,
                const char *digits)
{
  const char *p = digits;
  if (*p == '-')
    g_string_append_c (out, *p++);
  gsize int_len = strspn (p, "0123456789");
  for (gsize i = 0; i < int_len; i++)
    {
      if (i > 0 && (int_len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, p[i]);
    }
  g_string_append (out, p + int_len);
}

static double
cell_number (const SlCell *c)
{
  return c->type == SL_CELL_INT ? (double) c->v.i : c->v.d;
}

static gboolean
unit_scaled (SlUnit unit)
{
  return unit == SL_UNIT_MEM_B || unit == SL_UNIT_THRU_B;
}

/* Shortest text that reads back as the same double, with ".0" on integral values, as Python's
 * repr() writes floats in nsys's CSV and JSON. */
static void
append_double_repr (GString *out,
                    double   d)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (int precision = 15; precision <= 17; precision++)
    {
      g_ascii_formatd (buf, sizeof buf,
                       precision == 15 ? "%.15g" : precision == 16 ? "%.16g" : "%.17g", d);
      if (g_ascii_strtod (buf, NULL) == d)
        break;
    }
  g_string_append (out, buf);
  if (strpbrk (buf, ".eEn") == NULL)
    g_string_append (out, ".0");
}

/* Console text of a cell: integers with thousands separators, ns doubles with one digit,
 * MB and MB/s with three, NULL as nothing. */
static char *
cell_column_text (const SlCell *c,
                  SlUnit        unit)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  GString *s = g_string_new (NULL);

  switch (c->type)
    {
    case SL_CELL_NULL:
      break;
    case SL_CELL_TEXT:
      g_string_append (s, c->v.s);
      break;
    case SL_CELL_INT:
    case SL_CELL_DOUBLE:
      if (unit_scaled (unit))
        append_grouped (s, g_ascii_formatd (buf, sizeof buf, "%.3f", cell_number (c) / 1e6));
      else if (c->type == SL_CELL_INT)
        {
          g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, c->v.i);
          append_grouped (s, buf);
        }
      else if (isfinite (c->v.d))
        append_grouped (s, g_ascii_formatd (buf, sizeof buf, "%.1f", c->v.d));
      else
        g_string_append (s, isnan (c->v.d) ? "nan" : c->v.d > 0 ? "inf" : "-inf");
      break;
    }
  return g_string_free (s, FALSE);
}

static void
append_padded (GString    *out,
               const char *text,
               gsize       width,
               int         align)  /* -1 left, 0 centre, 1 right */
{
  gsize len = g_utf8_strlen (text, -1);
  gsize pad = width > len ? width - len : 0;
  gsize left = align < 0 ? 0 : align > 0 ? pad : pad / 2;

  for (gsize i = 0; i < left; i++)
    g_string_append_c (out, ' ');
  g_string_append (out, text);
  for (gsize i = left; i < pad; i++)
    g_string_append_c (out, ' ');
}

static void
write_column (const SlReport *r,
              GString        *out)
{
  gsize n_rows = sl_report_get_n_rows (r);
  g_autofree gsize *width = g_new0 (gsize, r->n_columns);
  g_autofree gboolean *is_text = g_new0 (gboolean, r->n_columns);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_full (n_rows * r->n_columns, g_free);

  for (guint c = 0; c < r->n_columns; c++)
    width[c] = g_utf8_strlen (r->columns[c].header, -1);
  for (gsize row = 0; row < n_rows; row++)
    for (guint c = 0; c < r->n_columns; c++)
      {
        const SlCell *cell = sl_report_get_cell (r, row, c);
        char *text = cell_column_text (cell, r->columns[c].unit);
        width[c] = MAX (width[c], (gsize) g_utf8_strlen (text, -1));
        if (cell->type == SL_CELL_TEXT)
          is_text[c] = TRUE;
        g_ptr_array_add (texts, text);
      }

  g_string_append_printf (out, "** %s (%s):\n\n", r->title, r->name);
  /* nsys: one leading space, two between columns, headers centred, numbers right-aligned,
   * text left-aligned */
  /* a last text column (kernel names run to hundreds of characters) is not padded: its header
   * stands at its left and lines carry no trailing blanks */
  guint last = r->n_columns - 1;
  gboolean open_end = is_text[last];
  for (guint c = 0; c < r->n_columns; c++)
    {
      g_string_append (out, c == 0 ? " " : "  ");
      if (c == last && open_end)
        g_string_append (out, r->columns[c].header);
      else
        append_padded (out, r->columns[c].header, width[c], 0);
    }
  g_string_append_c (out, '\n');
  for (guint c = 0; c < r->n_columns; c++)
    {
      g_string_append (out, c == 0 ? " " : "  ");
      gsize dashes = c == last && open_end ? MIN (width[c], 80) : width[c];
      for (gsize i = 0; i < dashes; i++)
        g_string_append_c (out, '-');
    }
  g_string_append_c (out, '\n');
  for (gsize row = 0; row < n_rows; row++)
    {
      for (guint c = 0; c < r->n_columns; c++)
        {
          g_string_append (out, c == 0 ? " " : "  ");
          if (c == last && open_end)
            g_string_append (out, g_ptr_array_index (texts, row * r->n_columns + c));
          else
            append_padded (out, g_ptr_array_index (texts, row * r->n_columns + c), width[c],
                           is_text[c] ? -1 : 1);
        }
      g_string_append_c (out, '\n');
    }
  g_string_append_c (out, '\n');
}

/* CSV and JSON numbers: SQL's value, scaled to MB or MB/s for those columns. */
static void
append_plain_number (GString      *out,
                     const SlCell *c,
                     SlUnit        unit)
{
  if (unit_scaled (unit))
    append_double_repr (out, cell_number (c) / 1e6);
  else if (c->type == SL_CELL_INT)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, c->v.i);
  else
    append_double_repr (out, c->v.d);
}

static void
append_csv_field (GString    *out,
                  const char *s)
{
  if (strpbrk (s, ",\"\r\n") == NULL)
    {
      g_string_append (out, s);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static void
write_csv (const SlReport *r,
           GString        *out)
{
  gsize n_rows = sl_report_get_n_rows (r);

  for (guint c = 0; c < r->n_columns; c++)
    {
      if (c > 0)
        g_string_append_c (out, ',');
      append_csv_field (out, r->columns[c].header);
    }
  g_string_append_c (out, '\n');
  for (gsize row = 0; row < n_rows; row++)
    {
      for (guint c = 0; c < r->n_columns; c++)
        {
          const SlCell *cell = sl_report_get_cell (r, row, c);
          if (c > 0)
            g_string_append_c (out, ',');
          if (cell->type == SL_CELL_TEXT)
            append_csv_field (out, cell->v.s);
          else if (cell->type != SL_CELL_NULL)
            append_plain_number (out, cell, r->columns[c].unit);
        }
      g_string_append_c (out, '\n');
    }
}

static void
write_json (const SlReport *r,
            GString        *out)
{
  gsize n_rows = sl_report_get_n_rows (r);

  g_string_append_c (out, '[');
  for (gsize row = 0; row < n_rows; row++)
    {
      g_string_append (out, row == 0 ? "\n  {" : ",\n  {");
      for (guint c = 0; c < r->n_columns; c++)
        {
          const SlCell *cell = sl_report_get_cell (r, row, c);
          if (c > 0)
            g_string_append (out, ", ");
          sl_json_append_string (out, r->columns[c].header);
          g_string_append (out, ": ");
          if (cell->type == SL_CELL_TEXT)
            sl_json_append_string (out, cell->v.s);
          else if (cell->type == SL_CELL_NULL
                   || (cell->type == SL_CELL_DOUBLE && !isfinite (cell->v.d)))
            g_string_append (out, "null");
          else
            append_plain_number (out, cell, r->columns[c].unit);
        }
      g_string_append_c (out, '}');
    }
  g_string_append (out, n_rows > 0 ? "\n]\n" : "]\n");
}

void
sl_report_write (const SlReport *report,
                 SlReportFormat  format,
                 GString        *out)
{
  g_return_if_fail (report != NULL && out != NULL);

  switch (format)
    {
    case SL_REPORT_FORMAT_COLUMN:
      write_column (report, out);
      break;
    case SL_REPORT_FORMAT_CSV:
      write_csv (report, out);
      break;
    case SL_REPORT_FORMAT_JSON:
      write_json (report, out);
      break;
    }
}
