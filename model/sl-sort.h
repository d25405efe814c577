/* sl-sort.h: comparators for g_array_sort and qsort shared by the model and the layers above. */
#pragma once

#include <glib.h>
#include <stdlib.h>

G_BEGIN_DECLS

/* Ascending gint64 (SlTime, ids): -1, 0 or 1, without the overflow of `x - y`. */
static inline gint
sl_cmp_int64 (gconstpointer a,
              gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* Ascending guint32 (string ids, event indexes within a lane). */
static inline gint
sl_cmp_uint32 (gconstpointer a,
               gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

/* Ascending double; NaN is not expected (times and ratios). */
static inline gint
sl_cmp_double (gconstpointer a,
               gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* The median of n > 0 values, sorting them in place: the middle one, or the mean of the two
 * middle ones.  For benchmarks' repeated runs (a handful of values). */
static inline double
sl_median_double (double *v,
                  gsize   n)
{
  g_assert (n > 0);
  qsort (v, n, sizeof *v, sl_cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median of n > 0 gint64s (sorted in place): the mean of the middle two for an even n. */
static inline gint64
sl_median_int64 (gint64 *v,
                 gsize   n)
{
  g_assert (n > 0);
  qsort (v, n, sizeof *v, sl_cmp_int64);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The k-th smallest of n > k gint64s, reordering them: Hoare's selection with a median-of-three
 * pivot, O(n) expected where a sort of 10^6 values costs O(n log n). */
static inline gint64
sl_select_int64 (gint64 *v,
                 gsize   n,
                 gsize   k)
{
  gsize lo = 0, hi = n - 1;

  g_assert (k < n);
  while (lo < hi)
    {
      gint64 a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
      gint64 pivot = MAX (MIN (a, b), MIN (MAX (a, b), c));
      gsize i = lo, j = hi;
      while (i <= j)
        {
          while (v[i] < pivot)
            i++;
          while (v[j] > pivot)
            j--;
          if (i <= j)
            {
              gint64 t = v[i];
              v[i] = v[j];
              v[j] = t;
              i++;
              if (j == 0)
                break;
              j--;
            }
        }
      if (k <= j)
        hi = j;
      else if (k >= i)
        lo = i;
      else
        break;
    }
  return v[k];
}

G_END_DECLS
