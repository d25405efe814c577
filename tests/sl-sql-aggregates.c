/* sl-sql-aggregates.c: median() and stdev() for SQLite, as nsys's libsqlite3 has them
 * (extension-functions.c semantics), for the stats oracle and its benchmark. */
#include "sl-sql-aggregates.h"

#include <math.h>
#include <string.h>

#include <glib.h>

#include "sl-sort.h"


typedef struct
{
  GArray  *values;     /* double */
  gboolean all_int;
} MedianCtx;

static void
median_step (sqlite3_context *ctx,
             int              argc,
             sqlite3_value  **argv)
{
  MedianCtx *m = sqlite3_aggregate_context (ctx, sizeof *m);
  int type = sqlite3_value_numeric_type (argv[0]);

  (void) argc;
  if (m == NULL || type == SQLITE_NULL)
    return;
  if (m->values == NULL)
    {
      m->values = g_array_new (FALSE, FALSE, sizeof (gint64) > sizeof (double) ? sizeof (gint64) : sizeof (double));
      m->all_int = TRUE;
    }
  if (type == SQLITE_INTEGER && m->all_int)
    {
      gint64 v = sqlite3_value_int64 (argv[0]);
      g_array_append_val (m->values, v);
    }
  else
    {
      if (m->all_int)
        {
          /* switch the stored integers to doubles */
          for (guint i = 0; i < m->values->len; i++)
            {
              double d = (double) g_array_index (m->values, gint64, i);
              memcpy (&g_array_index (m->values, gint64, i), &d, sizeof d);
            }
          m->all_int = FALSE;
        }
      double d = sqlite3_value_double (argv[0]);
      g_array_append_val (m->values, d);
    }
}



/* collect, sort, take the middle: an integer for an odd count of integers, else (a + b) / 2 */
static void
median_final (sqlite3_context *ctx)
{
  MedianCtx *m = sqlite3_aggregate_context (ctx, 0);

  if (m == NULL || m->values == NULL || m->values->len == 0)
    {
      sqlite3_result_null (ctx);
      if (m != NULL && m->values != NULL)
        g_array_unref (m->values);
      return;
    }
  guint n = m->values->len;
  if (m->all_int)
    {
      g_array_sort (m->values, sl_cmp_int64);
      gint64 *v = (gint64 *) m->values->data;
      if (n % 2 == 1)
        sqlite3_result_int64 (ctx, v[n / 2]);
      else
        sqlite3_result_double (ctx, (double) (v[n / 2 - 1] + v[n / 2]) * 1.0 / 2);
    }
  else
    {
      g_array_sort (m->values, sl_cmp_double);
      double *v = (double *) m->values->data;
      sqlite3_result_double (ctx, n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
    }
  g_array_unref (m->values);
}

typedef struct
{
  double mean;
  double m2;
  gint64 n;
} StdevCtx;

static void
stdev_step (sqlite3_context *ctx,
            int              argc,
            sqlite3_value  **argv)
{
  StdevCtx *s = sqlite3_aggregate_context (ctx, sizeof *s);

  (void) argc;
  if (s == NULL || sqlite3_value_numeric_type (argv[0]) == SQLITE_NULL)
    return;
  double x = sqlite3_value_double (argv[0]);
  s->n++;
  double delta = x - s->mean;
  s->mean += delta / s->n;
  s->m2 += delta * (x - s->mean);
}

/* sample standard deviation; 0.0 for one value, as extension-functions.c; NULL for none (no
 * row, or only NULLs), as nsys prints it: cuda_kern_exec_sum's QStdDev is empty, not 0.0, for
 * a group none of whose launches queued (issue 13) */
static void
stdev_final (sqlite3_context *ctx)
{
  StdevCtx *s = sqlite3_aggregate_context (ctx, 0);
  if (s == NULL || s->n == 0)
    sqlite3_result_null (ctx);
  else
    sqlite3_result_double (ctx, s->n > 1 ? sqrt (s->m2 / (s->n - 1)) : 0.0);
}

gboolean
sl_sql_add_aggregates (sqlite3 *db)
{
  return sqlite3_create_function (db, "median", 1, SQLITE_UTF8, NULL, NULL, median_step, median_final) == SQLITE_OK
         && sqlite3_create_function (db, "stdev", 1, SQLITE_UTF8, NULL, NULL, stdev_step, stdev_final) == SQLITE_OK;
}
