/* sl-sql-aggregates.c: median() and stdev() for SQLite, as nsys's libsqlite3 has them
 * (extension-functions.c semantics), for the stats oracle and its benchmark. */
#include "sl-sql-aggregates.h"

#include <math.h>
#include <string.h>

#include <glib.h>

#include "sl-sort.h"
#include "sl-stats.h"


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

sqlite3 *
sl_sql_open_oracle (const char *path)
{
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_true (sl_sql_add_aggregates (db));
  return db;
}

void
sl_sql_assert_report (sqlite3    *db,
                      SlTrace    *trace,
                      const char *report_name,
                      const char *sql,
                      const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlReport) report = sl_report_compute (trace, report_name, &error);
  sqlite3_stmt *stmt = NULL;
  gsize row = 0;
  int rc;

  g_assert_no_error (error);
  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
    g_error ("%s: %s", report_name, sqlite3_errmsg (db));
  g_assert_cmpint (sqlite3_column_count (stmt), ==, (int) sl_report_get_n_columns (report));
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      g_assert_cmpuint (row, <, sl_report_get_n_rows (report));
      for (int c = 0; c < sqlite3_column_count (stmt); c++)
        {
          const SlCell *cell = sl_report_get_cell (report, row, (guint) c);
          gboolean ok = FALSE;
          switch (sqlite3_column_type (stmt, c))
            {
            case SQLITE_NULL:
              ok = cell->type == SL_CELL_NULL;
              break;
            case SQLITE_INTEGER:
              ok = (cell->type == SL_CELL_INT && cell->v.i == sqlite3_column_int64 (stmt, c))
                   || (cell->type == SL_CELL_DOUBLE
                       && cell->v.d == (double) sqlite3_column_int64 (stmt, c));
              break;
            case SQLITE_FLOAT:
              ok = cell->type == SL_CELL_DOUBLE && cell->v.d == sqlite3_column_double (stmt, c);
              break;
            case SQLITE_TEXT:
              ok = cell->type == SL_CELL_TEXT
                   && strcmp (cell->v.s, (const char *) sqlite3_column_text (stmt, c)) == 0;
              break;
            default:
              break;
            }
          if (!ok)
            g_error ("%s %s: row %" G_GSIZE_FORMAT " column %s differs from NVIDIA's SQL (%s)",
                     path, report_name, row, sl_report_get_column (report, (guint) c),
                     (const char *) sqlite3_column_text (stmt, c));
        }
      row++;
    }
  g_assert_cmpint (rc, ==, SQLITE_DONE);
  sqlite3_finalize (stmt);
  g_assert_cmpuint (row, ==, sl_report_get_n_rows (report));
  g_assert_cmpuint (row, >, 0);
}
