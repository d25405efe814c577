/* sl-range.c: the time ranges people type, read exactly (integer arithmetic) and checked. */
#include "sl-range.h"

#include <string.h>

#include "sl-format.h"
#include "sl-trace.h"

G_DEFINE_QUARK (sl-range-error-quark, sl_range_error)

static const struct
{
  const char *suffix;
  gint64      ns;
} units[] = {
  { "ns", 1 },
  { "us", 1000 },
  { "µs", 1000 },
  { "ms", 1000000 },
  { "s", 1000000000 },
};

gboolean
sl_time_parse (const char *text,
               SlTime     *ns,
               GError    **error)
{
  const char *p = text;
  gboolean negative = FALSE;
  guint64 whole = 0, frac = 0, frac_scale = 1;
  gint64 unit = 1;
  gboolean digits = FALSE;
  g_autofree char *trimmed = NULL;

  g_return_val_if_fail (text != NULL, FALSE);
  trimmed = g_strstrip (g_strdup (text));
  p = trimmed;
  if (*p == '-' || *p == '+')
    negative = *p++ == '-';
  else if (g_str_has_prefix (p, "−"))
    {
      /* U+2212, the minus sign of the offsets Sightline prints (sl_format_offset) */
      negative = TRUE;
      p += strlen ("−");
    }
  for (; g_ascii_isdigit (*p); p++, digits = TRUE)
    {
      if (whole > ((guint64) G_MAXINT64 - (guint64) (*p - '0')) / 10)
        goto too_big;
      whole = whole * 10 + (guint64) (*p - '0');
    }
  if (*p == '.')
    for (p++; g_ascii_isdigit (*p); p++, digits = TRUE)
      if (frac_scale < 1000000000000000000ull)
        {
          frac = frac * 10 + (guint64) (*p - '0');
          frac_scale *= 10;
        }
  if (!digits)
    goto syntax;
  while (*p == ' ')
    p++;
  if (*p != '\0')
    {
      gsize i;
      for (i = 0; i < G_N_ELEMENTS (units); i++)
        if (strcmp (p, units[i].suffix) == 0)
          break;
      if (i == G_N_ELEMENTS (units))
        goto syntax;
      unit = units[i].ns;
    }
  if (whole > (guint64) G_MAXINT64 / (guint64) unit)
    goto too_big;
  /* frac / frac_scale of a unit: at most 10^18 · 10^9 would overflow, so scale down first */
  {
    guint64 value = whole * (guint64) unit;
    guint64 part = frac_scale >= (guint64) unit ? frac / (frac_scale / (guint64) unit)
                                                : frac * ((guint64) unit / frac_scale);
    if (value > (guint64) G_MAXINT64 - part)
      goto too_big;
    *ns = negative ? -(SlTime) (value + part) : (SlTime) (value + part);
  }
  return TRUE;

syntax:
  g_set_error (error, SL_RANGE_ERROR, SL_RANGE_ERROR_SYNTAX,
               "“%s” is not a time: write a number with an optional unit (ns, us, ms, s), "
               "e.g. 250ms or 1.5s", text);
  return FALSE;
too_big:
  g_set_error (error, SL_RANGE_ERROR, SL_RANGE_ERROR_SYNTAX, "“%s” is too large a time", text);
  return FALSE;
}

gboolean
sl_range_parse (const char *text,
                SlTrace    *trace,
                SlTime     *t0,
                SlTime     *t1,
                GError    **error)
{
  const char *colon;
  g_autofree char *left = NULL;
  SlTime a, b, origin, lo, hi, from, to;

  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (trace != NULL, FALSE);
  colon = strchr (text, ':');
  if (colon == NULL || strchr (colon + 1, ':') != NULL)
    {
      g_set_error (error, SL_RANGE_ERROR, SL_RANGE_ERROR_SYNTAX,
                   "“%s” is not a range: write START:END from the trace's time 0 (as "
                   "`sightline info` and the viewer count), e.g. 1.5s:2s or 250ms:300ms (bare "
                   "numbers are nanoseconds)", text);
      return FALSE;
    }
  left = g_strndup (text, (gsize) (colon - text));
  if (!sl_time_parse (left, &a, error) || !sl_time_parse (colon + 1, &b, error))
    return FALSE;
  if (b <= a)
    {
      g_set_error (error, SL_RANGE_ERROR, SL_RANGE_ERROR_EMPTY,
                   "the range %s is %s: its end must come after its start", text,
                   b < a ? "reversed" : "empty");
      return FALSE;
    }
  /* time 0 is the one every offset a person reads counts from, the viewer's ruler and
   * `sightline info` included: the session's start, not the first event, in an nsys export */
  origin = sl_trace_get_origin (trace);
  lo = sl_trace_get_start (trace) - origin;
  hi = sl_trace_get_end (trace) - origin;
  if (b <= lo || a > hi)
    {
      g_autofree char *first = sl_format_offset (lo), *last = sl_format_offset (hi);
      g_set_error (error, SL_RANGE_ERROR, SL_RANGE_ERROR_OUTSIDE,
                   "the range %s lies outside the trace, whose events lie in %s:%s from its "
                   "time 0 (as `sightline info` prints it)", text, first, last);
      return FALSE;
    }
  if (__builtin_add_overflow (origin, a, &from) || __builtin_add_overflow (origin, b, &to))
    {
      g_set_error (error, SL_RANGE_ERROR, SL_RANGE_ERROR_OUTSIDE,
                   "the range %s lies outside the trace", text);
      return FALSE;
    }
  *t0 = from;
  *t1 = to;
  return TRUE;
}
