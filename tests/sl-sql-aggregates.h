/* sl-sql-aggregates.h: median() and stdev() aggregates for SQLite, as nsys's reports use them. */
#pragma once

#include <glib.h>
#include <sqlite3.h>

/* Registers median(X) and stdev(X) (sample standard deviation, 0.0 for one value) on db. */
gboolean sl_sql_add_aggregates (sqlite3 *db);
