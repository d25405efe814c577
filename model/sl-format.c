/* sl-format.c: how the CLI, panes and status lines write times, sizes and counts for people, and
 * strings into the JSON that the commands write. */
#include "sl-format.h"

#include <math.h>

char *
sl_format_duration (SlTime ns)
{
  SlTime a = ns < 0 ? -ns : ns;

  if (a < 1000)
    return g_strdup_printf ("%" G_GINT64_FORMAT " ns", ns);
  if (a < 1000000)
    return g_strdup_printf ("%.3f µs", ns / 1e3);
  if (a < 1000000000)
    return g_strdup_printf ("%.3f ms", ns / 1e6);
  return g_strdup_printf ("%.3f s", ns / 1e9);
}

char *
sl_format_offset (SlTime ns)
{
  g_autofree char *d = sl_format_duration (ns < 0 ? -ns : ns);

  return g_strdup_printf ("%s%s", ns < 0 ? "−" : "+", d);
}

char *
sl_format_int (gint64 value)
{
  char digits[32];
  GString *out = g_string_new (NULL);
  guint64 u = value < 0 ? (guint64) (-(value + 1)) + 1 : (guint64) value;
  int n = g_snprintf (digits, sizeof digits, "%" G_GUINT64_FORMAT, u);

  if (value < 0)
    g_string_append_c (out, '-');
  for (int i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

char *
sl_format_bytes (guint64 bytes)
{
  static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
  g_autofree char *exact = sl_format_int ((gint64) MIN (bytes, (guint64) G_MAXINT64));
  double v = (double) bytes;
  int u = -1;

  if (bytes < 1024)
    return g_strdup_printf ("%s bytes", exact);
  while (v >= 1024 && u < 3)
    {
      v /= 1024;
      u++;
    }
  return g_strdup_printf ("%.2f %s (%s bytes)", v, units[u], exact);
}

char *
sl_format_rate (guint64 bytes,
                SlTime  ns)
{
  double per_s;

  if (ns <= 0)
    return g_strdup ("—");
  per_s = (double) bytes * 1e9 / (double) ns;
  if (per_s >= 1e9)
    return g_strdup_printf ("%.2f GB/s", per_s / 1e9);
  if (per_s >= 1e6)
    return g_strdup_printf ("%.2f MB/s", per_s / 1e6);
  if (per_s >= 1e3)
    return g_strdup_printf ("%.2f kB/s", per_s / 1e3);
  return g_strdup_printf ("%.0f B/s", per_s);
}

void
sl_json_append_string (GString    *out,
                       const char *s)
{
  g_autofree char *valid = NULL;

  g_return_if_fail (out != NULL);

  if (s == NULL)
    s = "";
  else if (!g_utf8_validate (s, -1, NULL))   /* no copy for the valid strings, nearly all */
    s = valid = g_utf8_make_valid (s, -1);
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0';)
    {
      const char *run = p;
      while ((guchar) *p >= 0x20 && *p != '"' && *p != '\\')
        p++;
      g_string_append_len (out, run, p - run);
      if (*p == '\0')
        break;
      switch (*p)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\b': g_string_append (out, "\\b"); break;
        case '\f': g_string_append (out, "\\f"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default: g_string_append_printf (out, "\\u%04x", (guchar) *p); break;
        }
      p++;
    }
  g_string_append_c (out, '"');
}
