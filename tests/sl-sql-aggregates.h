/* sl-sql-aggregates.h: median() and stdev() aggregates for SQLite, as nsys's reports use them, and
 * a report held to the SQL written from NVIDIA's scripts. */
#pragma once

#include <glib.h>
#include <sqlite3.h>

#include "sl-trace.h"

/* Registers median(X) and stdev(X) (sample standard deviation, 0.0 for one value) on db. */
gboolean sl_sql_add_aggregates (sqlite3 *db);

/* `path` opened read-only (asserted) with median() and stdev(): the oracle a report is held to. */
sqlite3 *sl_sql_open_oracle    (const char *path);

/* The report `report_name` of `trace` is what `sql` gives on `db` (the same file), cell by cell,
 * and has rows; a difference aborts naming `path`, the report, row and column. */
void     sl_sql_assert_report  (sqlite3    *db,
                                SlTrace    *trace,
                                const char *report_name,
                                const char *sql,
                                const char *path);
