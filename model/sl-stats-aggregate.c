/* sl-stats-aggregate.c: SQL's aggregates as nsys's reports use them: sums, medians, std dev,
 * groups.
 *
 * The aggregates are those of SQLite's extension-functions.c that nsys ships: median() = middle
 * value or the mean of the two middle ones, stdev() = Welford's running sample standard
 * deviation, 0.0 for fewer than two values.  Sums are exact gint64; avg() is sum / count in
 * doubles, which is what SQLite computes for integer inputs below 2^53.  A summary has one group
 * per distinct name (10^1 … 10^4), each holding its values (up to 10^7 in all) for the median.
 */
#include "sl-stats-private.h"

#include <math.h>
#include <sqlite3.h>
#include <string.h>

double
sl_stats_round (double x,
                int    digits)
{
  /* SQLite's roundFunc: values beyond 2^52 have no fraction; otherwise print with "%.*f"
   * through SQLite's own printf (its half-up rounding, not glibc's) and read the text back. */
  if (x < -4503599627370496.0 || x > 4503599627370496.0 || isnan (x))
    return x;
  if (digits <= 0)
    return (double) (gint64) (x + (x < 0 ? -0.5 : 0.5));
  char *text = sqlite3_mprintf ("%.*f", digits, x);
  double r = g_ascii_strtod (text, NULL);
  sqlite3_free (text);
  return r;
}

/* CASE substr(name, -6, 2) WHEN '_v' THEN substr(name, 1, length(name) - 6) ELSE name END,
 * i.e. drop "_vNNNN" (any four characters after "_v"). */
gsize
_sl_api_name_length (const char *name)
{
  gsize len = strlen (name);
  /* substr counts characters; API names are ASCII, and a multibyte tail never matches "_v" */
  if (len >= 6 && name[len - 6] == '_' && name[len - 5] == 'v'
      && g_utf8_strlen (name, -1) == (glong) len)
    return len - 6;
  return len;
}

void
_sl_acc_init (_SlAcc *a)
{
  memset (a, 0, sizeof *a);
  a->values = g_array_new (FALSE, FALSE, sizeof (gint64));
}

void
_sl_acc_clear (_SlAcc *a)
{
  g_clear_pointer (&a->values, g_array_unref);
}

double
_sl_acc_avg (const _SlAcc *a)
{
  return (double) a->total / (double) a->n;
}

double
_sl_acc_stdev (const _SlAcc *a)
{
  return a->n > 1 ? sqrt (a->m2 / (a->n - 1)) : 0.0;
}

/* The k-th smallest (0-based) of v[0..n), reordering v so that v[0..k) <= v[k] <= v[k+1..n):
 * Wirth's selection, O(n) expected; lanes sorted by start are no bad case for it. */
static gint64
select_kth (gint64 *v,
            gsize   n,
            gsize   k)
{
  gssize l = 0, m = (gssize) n - 1, kk = (gssize) k;

  while (l < m)
    {
      gint64 x = v[kk];
      gssize i = l, j = m;
      do
        {
          while (v[i] < x)
            i++;
          while (x < v[j])
            j--;
          if (i <= j)
            {
              gint64 t = v[i];
              v[i] = v[j];
              v[j] = t;
              i++;
              j--;
            }
        }
      while (i <= j);
      if (j < kk)
        l = i;
      if (kk < i)
        m = j;
    }
  return v[kk];
}

/* median(): the middle value, or (a + b) * 1.0 / 2 of the two middle ones (exact int64 sum). */
double
_sl_acc_median (_SlAcc *a)
{
  gint64 *v = (gint64 *) a->values->data;
  gsize n = a->values->len;

  g_assert (n > 0);
  if (n % 2 == 1)
    return (double) select_kth (v, n, n / 2);
  gint64 hi = select_kth (v, n, n / 2);
  /* after selection everything below n/2 is <= hi: the lower middle is their maximum */
  gint64 lo = v[0];
  for (gsize i = 1; i < n / 2; i++)
    lo = MAX (lo, v[i]);
  gint64 sum;
  /* exact where it fits, as SQLite's (a + b) * 1.0 / 2; two durations of 2^62 do not */
  if (__builtin_add_overflow (lo, hi, &sum))
    return ((double) lo + (double) hi) / 2.0;
  return (double) sum / 2.0;
}

/* ---------------------------------------------------------------------------------------- */
/* Groups                                                                                   */

static void
group_free (gpointer p)
{
  _SlGroup *g = p;
  _sl_acc_clear (&g->acc);
  g_free (g);
}

void
_sl_groups_init (_SlGroups *gs)
{
  gs->groups = g_ptr_array_new_with_free_func (group_free);
  gs->by_id = g_ptr_array_new ();
  gs->by_key = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

void
_sl_groups_clear (_SlGroups *gs)
{
  g_clear_pointer (&gs->groups, g_ptr_array_unref);
  g_clear_pointer (&gs->by_id, g_ptr_array_unref);
  g_clear_pointer (&gs->by_key, g_hash_table_unref);
}

static _SlGroup *
group_new (_SlGroups *gs)
{
  _SlGroup *g = g_new0 (_SlGroup, 1);
  _sl_acc_init (&g->acc);
  g_ptr_array_add (gs->groups, g);
  return g;
}

_SlGroup *
_sl_groups_add_id (_SlGroups *gs,
                   guint32    id)
{
  if (id >= gs->by_id->len)
    g_ptr_array_set_size (gs->by_id, MAX (id + 1, gs->by_id->len * 2));
  _SlGroup *g = group_new (gs);
  g->key = id;
  gs->by_id->pdata[id] = g;
  return g;
}

_SlGroup *
_sl_groups_by_key (_SlGroups *gs,
                   guint64    key,
                   gboolean  *created)
{
  _SlGroup *g = g_hash_table_lookup (gs->by_key, &key);
  *created = g == NULL;
  if (g == NULL)
    {
      g = group_new (gs);
      g_hash_table_insert (gs->by_key, g_memdup2 (&key, sizeof key), g);
    }
  return g;
}

static int
compare_groups (gconstpointer pa,
                gconstpointer pb,
                gpointer      user_data)
{
  const _SlGroup *a = *(const _SlGroup *const *) pa;
  const _SlGroup *b = *(const _SlGroup *const *) pb;
  _SlSummaryOrder order = GPOINTER_TO_INT (user_data);
  int c;

  if (a->acc.total != b->acc.total)
    return a->acc.total > b->acc.total ? -1 : 1;
  if (order == _SL_ORDER_TOTAL_DESC_COUNT_NAME && a->acc.n != b->acc.n)
    return a->acc.n < b->acc.n ? -1 : 1;
  if ((c = g_strcmp0 (a->name, b->name)) != 0)
    return c;
  return g_strcmp0 (a->style, b->style);
}

void
_sl_groups_sort (_SlGroups       *gs,
                 _SlSummaryOrder  order)
{
  g_ptr_array_sort_with_data (gs->groups, compare_groups, GINT_TO_POINTER (order));
}
