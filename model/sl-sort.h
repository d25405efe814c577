/* sl-sort.h: comparators for g_array_sort and qsort shared by the model and the layers above. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Ascending gint64 (SlTime, ids): -1, 0 or 1, without the overflow of `x - y`. */
static inline gint
sl_cmp_int64 (gconstpointer a,
              gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

G_END_DECLS
