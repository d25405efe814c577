/* test-stats.c: the stats reports against an SQL oracle on every real trace, and `sightline stats`.
 *
 * The oracle runs nsys's report semantics (shared/reference/nsys-sqlite.md §6, written in our
 * own words) straight on the file in SQLite, with median() and stdev() aggregates registered
 * here as extension-functions.c defines them, and compares every cell and the row order with
 * the report the model computes.  Where nsys's ORDER BY leaves ties open, the queries add the
 * same tie-breakers sl-stats.c uses.  Where a 2021 file has no ENUM_* table, the queries use
 * the labels nsys documents (identical in every version that has the tables).
 */
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#ifdef SL_HAVE_JSON_GLIB
#include <json-glib/json-glib.h>
#endif

#include "sl-nsys-report.h"
#include "sl-nvtx-proj.h"
#include "sl-plant.h"
#include "sl-range.h"
#include "sl-schema.h"
#include "sl-sql-aggregates.h"
#include "sl-stats.h"
#include "sl-test-util.h"
#include "sl-trace.h"

static gboolean
has_table (sqlite3    *db,
           const char *table)
{
  sqlite3_stmt *stmt;
  gboolean found;

  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  sqlite3_bind_text (stmt, 1, table, -1, SQLITE_STATIC);
  found = sqlite3_step (stmt) == SQLITE_ROW;
  sqlite3_finalize (stmt);
  return found;
}

static gboolean
has_column (sqlite3    *db,
            const char *table,
            const char *column)
{
  g_autofree char *sql = g_strdup_printf ("SELECT 1 FROM pragma_table_info('%s') WHERE name = '%s'", table, column);
  sqlite3_stmt *stmt;
  gboolean found;

  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  found = sqlite3_step (stmt) == SQLITE_ROW;
  sqlite3_finalize (stmt);
  return found;
}

/* The window the range views keep (range_views_create), for the queries that filter on
 * something else than an event's start: the NVTX projection keeps rows by projected start. */
static SlTime oracle_t0 = G_MININT64;
static SlTime oracle_t1 = G_MAXINT64;

static void
oracle_exec (sqlite3    *db,
             const char *sql)
{
  char *message = NULL;

  if (sqlite3_exec (db, sql, NULL, NULL, &message) != SQLITE_OK)
    g_error ("%s: %s", sql, message);
}

/*
 * The NVTX ranges as nsys's nvtx_gpu_proj_trace and nvtx_kern_sum scripts index them (temp
 * tables, built once per file from main., so the range views do not apply):
 *   nvtx_rt: ranges (push/pop and start/end, not ending on another thread), end NULL → the
 *     table's last timestamp; pname "domain:text" / ":text", kname "domain:text" / "text";
 *   nvtx_ridx: an R*Tree on [start, end] (float bounds rounded outward; exact checks follow);
 *   nvtx_parent: the tightest enclosing range on the same thread (nsys's NVTX_PARENT), where of
 *     two identical ranges the earlier row is the parent (nsys makes each the other's parent,
 *     a cycle that drops both from its tree);
 *   nvtx_tree: the level and ":id:id" stack from the outermost range.
 */
static void
oracle_nvtx_tables (sqlite3 *db)
{
  if (!has_table (db, "NVTX_EVENTS") || !has_column (db, "NVTX_EVENTS", "eventType"))
    return;
  const char *same_thread = has_column (db, "NVTX_EVENTS", "endGlobalTid")
                              ? "AND (e.endGlobalTid IS NULL OR e.endGlobalTid = e.globalTid)" : "";
  g_autofree char *rt = g_strdup_printf (
    "CREATE TEMP TABLE nvtx_rt AS WITH last AS (SELECT max(max(start), coalesce(max(end), max(start))) AS t "
    "FROM main.NVTX_EVENTS), "
    "dom AS (SELECT e.globalTid & 0x0000FFFFFF000000 AS pidbits, e.domainId, "
    "coalesce(s.value, e.text) AS dname FROM main.NVTX_EVENTS AS e "
    "LEFT JOIN StringIds AS s ON s.id = e.textId WHERE e.eventType = 75 GROUP BY pidbits, e.domainId) "
    "SELECT e.rowid AS rid, e.start AS s, coalesce(e.end, (SELECT t FROM last)) AS en, e.globalTid AS gtid, "
    "coalesce(d.dname, '') || ':' || coalesce(s.value, e.text, '') AS pname, "
    "CASE WHEN d.dname IS NOT NULL AND d.dname != '' THEN d.dname || ':' ELSE '' END "
    "|| coalesce(s.value, e.text, '') AS kname, "
    "CASE WHEN e.eventType IN (59, 70) THEN 'PushPop' ELSE 'StartEnd' END AS style "
    "FROM main.NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId "
    "LEFT JOIN dom AS d ON d.domainId = e.domainId AND e.domainId != 0 "
    "AND d.pidbits = (e.globalTid & 0x0000FFFFFF000000) "
    "WHERE e.eventType IN (59, 60, 70, 71) AND e.globalTid IS NOT NULL %s", same_thread);

  oracle_exec (db, rt);
  oracle_exec (db, "CREATE VIRTUAL TABLE temp.nvtx_ridx USING rtree(rid, s, en)");
  oracle_exec (db, "INSERT INTO nvtx_ridx SELECT rid, s, en FROM nvtx_rt");
  oracle_exec (db, "CREATE TEMP TABLE nvtx_parent AS SELECT c.rid AS rid, "
                   "(SELECT p.rid FROM nvtx_ridx AS x JOIN nvtx_rt AS p ON p.rid = x.rid "
                   "WHERE x.s <= c.s AND x.en >= c.en AND p.rid != c.rid AND p.gtid = c.gtid "
                   "AND p.s <= c.s AND p.en >= c.en AND NOT (p.s = c.s AND p.en = c.en AND p.rid > c.rid) "
                   "ORDER BY p.en - p.s, p.rid DESC LIMIT 1) AS parent FROM nvtx_rt AS c");
  oracle_exec (db, "CREATE INDEX temp.nvtx_parent_by_parent ON nvtx_parent (parent)");
  oracle_exec (db, "CREATE TEMP TABLE nvtx_tree AS WITH RECURSIVE tree(rid, lvl, stack) AS "
                   "(SELECT rid, 0, ':' || rid FROM nvtx_parent WHERE parent IS NULL UNION ALL "
                   "SELECT p.rid, tree.lvl + 1, tree.stack || ':' || p.rid FROM tree "
                   "JOIN nvtx_parent AS p ON p.parent = tree.rid) SELECT * FROM tree");
  oracle_exec (db, "CREATE INDEX temp.nvtx_tree_by_rid ON nvtx_tree (rid)");

  /* nvtx_pushpop_trace's family: the same over the push/pop ranges alone (a start/end range is
   * nobody's parent there) */
  oracle_exec (db, "CREATE TEMP TABLE pp_rt AS SELECT * FROM nvtx_rt WHERE style = 'PushPop'");
  oracle_exec (db, "CREATE TEMP TABLE pp_parent AS SELECT c.rid AS rid, "
                   "(SELECT p.rid FROM nvtx_ridx AS x JOIN pp_rt AS p ON p.rid = x.rid "
                   "WHERE x.s <= c.s AND x.en >= c.en AND p.rid != c.rid AND p.gtid = c.gtid "
                   "AND p.s <= c.s AND p.en >= c.en AND NOT (p.s = c.s AND p.en = c.en AND p.rid > c.rid) "
                   "ORDER BY p.en - p.s, p.rid DESC LIMIT 1) AS parent FROM pp_rt AS c");
  oracle_exec (db, "CREATE INDEX temp.pp_parent_by_parent ON pp_parent (parent)");
  oracle_exec (db, "CREATE TEMP TABLE pp_tree AS WITH RECURSIVE tree(rid, lvl, stack) AS "
                   "(SELECT rid, 0, ':' || rid FROM pp_parent WHERE parent IS NULL UNION ALL "
                   "SELECT p.rid, tree.lvl + 1, tree.stack || ':' || p.rid FROM tree "
                   "JOIN pp_parent AS p ON p.parent = tree.rid) SELECT * FROM tree");
  oracle_exec (db, "CREATE INDEX temp.pp_tree_by_rid ON pp_tree (rid)");
}

static sqlite3 *
oracle_open (const char *path)
{
  sqlite3 *db = NULL;
  g_autofree char *uri = g_strdup_printf ("file:%s?mode=ro&immutable=1", path);

  g_assert_cmpint (sqlite3_open_v2 (uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL), ==, SQLITE_OK);
  g_assert_true (sl_sql_add_aggregates (db));
  oracle_nvtx_tables (db);
  return db;
}

/* ---------------------------------------------------------------------------------------- */
/* The queries                                                                              */

/* ENUM_CUDA_MEMCPY_OPER / ENUM_CUDA_MEM_KIND, or the labels nsys documents for files without */
static char *
enum_cte (sqlite3    *db,
          const char *cte,
          const char *table)
{
  if (has_table (db, table))
    return g_strdup_printf ("%s(id, label) AS (SELECT id, label FROM %s)", cte, table);
  if (strcmp (table, "ENUM_CUDA_MEMCPY_OPER") == 0)
    return g_strdup_printf ("%s(id, label) AS (VALUES (0, 'Unknown'), (1, 'Host-to-Device'), "
                            "(2, 'Device-to-Host'), (3, 'Host-to-Array'), (4, 'Array-to-Host'), "
                            "(5, 'Array-to-Array'), (6, 'Array-to-Device'), (7, 'Device-to-Array'), "
                            "(8, 'Device-to-Device'), (9, 'Host-to-Host'), (10, 'Peer-to-Peer'), "
                            "(11, 'Unified Host-to-Device'), (12, 'Unified Device-to-Host'), "
                            "(13, 'Unified Device-to-Device'))", cte);
  return g_strdup_printf ("%s(id, label) AS (VALUES (0, 'Pageable'), (1, 'Pinned'), (2, 'Device'), "
                          "(3, 'Array'), (4, 'Managed'), (5, 'Device Static'), (6, 'Managed Static'), "
                          "(7, 'Unknown'))", cte);
}

#define STRIP_V(col) \
  "CASE substr(" col ", -6, 2) WHEN '_v' THEN substr(" col ", 1, length(" col ") - 6) ELSE " col " END"

/* The time summary over a CTE `ops(name, dur)` grouped by `name`. */
#define TIME_SUMMARY(extra_order) \
  ", g AS (SELECT name, sum(dur) AS total, count(*) AS n, avg(dur) AS av, median(dur) AS med, " \
  "min(dur) AS mn, max(dur) AS mx, stdev(dur) AS sd FROM ops GROUP BY name) " \
  "SELECT round(total * 100.0 / (SELECT sum(total) FROM g), 1), total, n, round(av, 1), " \
  "round(med, 1), mn, mx, round(sd, 1), name FROM g ORDER BY 2 DESC" extra_order

/* The rows of nvtx_gpu_proj_trace, in a CTE `rows` after the GPU operations and their calls;
 * the projection over the whole trace, the rows kept by projected start in the window. */
static char *
proj_rows_sql (sqlite3 *db)
{
  GString *q = g_string_new ("WITH ops AS (");
  const char *tables[] = { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                           "CUPTI_ACTIVITY_KIND_MEMSET" };
  const char *sep = "";

  for (gsize i = 0; i < G_N_ELEMENTS (tables); i++)
    if (has_table (db, tables[i]))
      {
        g_string_append_printf (q, "%sSELECT start, end, correlationId AS corr, globalPid AS gpid FROM main.%s",
                                sep, tables[i]);
        sep = " UNION ALL ";
      }
  g_string_append_printf (q, "), calls AS (SELECT op.start AS os, op.end AS oe, r.correlationId AS corr, "
                          "r.start AS rs, r.end AS re, r.globalTid AS gtid FROM ops AS op "
                          "JOIN main.CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = op.corr "
                          "AND (r.globalTid & 0xFFFFFFFFFF000000) = op.gpid), "
                          "pr AS (SELECT p.rid, p.pname AS name, p.style, p.s AS ostart, p.en - p.s AS odur, "
                          "min(c.os) AS ps, max(c.oe) - min(c.os) AS pd, count(DISTINCT c.corr) AS n, "
                          "(c.gtid >> 24) & 0x00FFFFFF AS pid, c.gtid & 0x00FFFFFF AS tid FROM calls AS c "
                          "JOIN nvtx_ridx AS x ON x.s <= c.rs AND x.en >= c.re "
                          "JOIN nvtx_rt AS p ON p.rid = x.rid AND p.gtid = c.gtid AND p.s <= c.rs AND p.en >= c.re "
                          "GROUP BY p.rid), "
                          "ch AS (SELECT np.parent AS rid, count(*) AS n FROM pr JOIN nvtx_parent AS np "
                          "ON np.rid = pr.rid WHERE np.parent IS NOT NULL GROUP BY np.parent), "
                          "rows AS (SELECT pr.name, pr.ps, pr.pd, pr.ostart, pr.odur, pr.style, pr.pid, pr.tid, "
                          "pr.n, t.lvl, coalesce(ch.n, 0) AS nchild, pr.rid, np.parent, t.stack FROM pr "
                          "LEFT JOIN nvtx_tree AS t ON t.rid = pr.rid LEFT JOIN nvtx_parent AS np ON np.rid = pr.rid "
                          "LEFT JOIN ch ON ch.rid = pr.rid WHERE pr.ps >= %" G_GINT64_FORMAT
                          " AND pr.ps < %" G_GINT64_FORMAT ") ", oracle_t0, oracle_t1);
  return g_string_free (q, FALSE);
}

/* SQL for a report on this file, or NULL when the file has none of its tables. */
static char *
oracle_sql (sqlite3    *db,
            const char *report)
{
  gboolean kern = has_table (db, "CUPTI_ACTIVITY_KIND_KERNEL");
  gboolean api = has_table (db, "CUPTI_ACTIVITY_KIND_RUNTIME");
  gboolean memcpy_ = has_table (db, "CUPTI_ACTIVITY_KIND_MEMCPY");
  gboolean memset_ = has_table (db, "CUPTI_ACTIVITY_KIND_MEMSET");
  g_autofree char *memop = enum_cte (db, "memop", "ENUM_CUDA_MEMCPY_OPER");
  g_autofree char *memkind = enum_cte (db, "memkind", "ENUM_CUDA_MEM_KIND");

  if (strcmp (report, "cuda_gpu_kern_sum") == 0)
    {
      if (!kern)
        return NULL;
      return g_strdup ("WITH ops AS (SELECT s.value AS name, k.end - k.start AS dur "
                       "FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.demangledName)"
                       TIME_SUMMARY (", 3, 9"));
    }
  if (strcmp (report, "cuda_gpu_kern_gb_sum") == 0)
    {
      if (!kern)
        return NULL;
      /* nsys's cuda_gpu_kern_gb_sum.py; ties of ORDER BY 2 DESC, 3, "Name" by GridXYZ, BlockXYZ */
      return g_strdup ("WITH g AS (SELECT s.value AS name, sum(k.end - k.start) AS total, "
                       "count(*) AS n, avg(k.end - k.start) AS av, median(k.end - k.start) AS med, "
                       "min(k.end - k.start) AS mn, max(k.end - k.start) AS mx, "
                       "stdev(k.end - k.start) AS sd, gridX, gridY, gridZ, blockX, blockY, blockZ "
                       "FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
                       "JOIN StringIds AS s ON s.id = k.demangledName "
                       "GROUP BY 1, gridX, gridY, gridZ, blockX, blockY, blockZ) "
                       "SELECT round(total * 100.0 / (SELECT sum(total) FROM g), 1), total, n, "
                       "round(av, 1), round(med, 1), mn, mx, round(sd, 1), "
                       "printf('%4d %4d %4d', gridX, gridY, gridZ), "
                       "printf('%4d %4d %4d', blockX, blockY, blockZ), name FROM g "
                       "ORDER BY 2 DESC, 3, 11, 9, 10");
    }
  if (strcmp (report, "cuda_gpu_sum") == 0 || strcmp (report, "cuda_api_gpu_sum") == 0)
    {
      /* nsys's cuda_gpu_sum.py / cuda_api_gpu_sum.py: the UNION ALL of the tables the file has,
       * GROUP BY the name alone (Category a bare column); ties of ORDER BY 2 DESC by Operation */
      gboolean with_api = strcmp (report, "cuda_api_gpu_sum") == 0 && api;
      if (!with_api && !kern && !memcpy_ && !memset_)
        return NULL;
      g_autoptr (GString) ops = g_string_new (NULL);
      const char *sep = "";
      if (with_api)
        {
          g_string_append (ops, "SELECT " STRIP_V ("s.value") " AS name, r.end - r.start AS dur, "
                                "'CUDA_API' AS cat FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r "
                                "LEFT JOIN StringIds AS s ON s.id = r.nameId");
          sep = " UNION ALL ";
        }
      if (kern)
        {
          g_string_append_printf (ops, "%sSELECT s.value AS name, k.end - k.start AS dur, "
                                  "'CUDA_KERNEL' AS cat FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
                                  "JOIN StringIds AS s ON s.id = k.demangledName", sep);
          sep = " UNION ALL ";
        }
      if (memcpy_)
        {
          g_string_append_printf (ops, "%sSELECT '[CUDA memcpy ' || o.label || ']', "
                                  "c.end - c.start, 'MEMORY_OPER' "
                                  "FROM CUPTI_ACTIVITY_KIND_MEMCPY AS c "
                                  "JOIN memop AS o ON o.id = c.copyKind", sep);
          sep = " UNION ALL ";
        }
      if (memset_)
        g_string_append_printf (ops, "%sSELECT '[CUDA memset]', end - start, 'MEMORY_OPER' "
                                "FROM CUPTI_ACTIVITY_KIND_MEMSET", sep);
      return g_strdup_printf ("WITH %s, ops AS (%s), g AS (SELECT name, cat, sum(dur) AS total, "
                              "count(*) AS n, avg(dur) AS av, median(dur) AS med, min(dur) AS mn, "
                              "max(dur) AS mx, stdev(dur) AS sd FROM ops GROUP BY name) "
                              "SELECT round(total * 100.0 / (SELECT sum(total) FROM g), 1), "
                              "total, n, round(av, 1), round(med, 1), mn, mx, round(sd, 1), cat, "
                              "name FROM g ORDER BY 2 DESC, 10, 9", memop, ops->str);
    }
  if (strcmp (report, "cuda_api_sum") == 0 || strcmp (report, "osrt_sum") == 0)
    {
      gboolean is_api = report[0] == 'c';
      const char *table = is_api ? "CUPTI_ACTIVITY_KIND_RUNTIME" : "OSRT_API";
      if (!has_table (db, table))
        return NULL;
      const char *where = !is_api && has_column (db, table, "eventClass") ? "WHERE eventClass = 27" : "";
      /* GROUP BY nameId; the name joined (and, for the API, stripped of _vNNNN) afterwards */
      return g_strdup_printf ("WITH g AS (SELECT nameId, sum(end - start) AS total, count(*) AS n, "
                              "avg(end - start) AS av, median(end - start) AS med, min(end - start) AS mn, "
                              "max(end - start) AS mx, stdev(end - start) AS sd FROM %s %s GROUP BY nameId) "
                              "SELECT round(total * 100.0 / (SELECT sum(total) FROM g), 1), total, n, "
                              "round(av, 1), round(med, 1), mn, mx, round(sd, 1), %s AS name "
                              "FROM g LEFT JOIN StringIds AS s ON s.id = g.nameId ORDER BY 2 DESC, 9",
                              table, where, is_api ? STRIP_V ("s.value") : "s.value");
    }
  if (strcmp (report, "cuda_gpu_mem_time_sum") == 0 || strcmp (report, "cuda_gpu_mem_size_sum") == 0)
    {
      if (!memcpy_ && !memset_)
        return NULL;
      g_autoptr (GString) ops = g_string_new (NULL);
      gboolean by_size = strstr (report, "size") != NULL;
      const char *value = by_size ? "bytes" : "end - start";
      if (memcpy_)
        g_string_append_printf (ops, "SELECT '[CUDA memcpy ' || o.label || ']' AS name, c.%s AS dur "
                                "FROM CUPTI_ACTIVITY_KIND_MEMCPY AS c JOIN memop AS o ON o.id = c.copyKind",
                                by_size ? "bytes" : "end - c.start");
      if (memset_)
        g_string_append_printf (ops, "%sSELECT '[CUDA memset]' AS name, %s AS dur FROM CUPTI_ACTIVITY_KIND_MEMSET",
                                memcpy_ ? " UNION ALL " : "", value);
      if (!by_size)
        return g_strdup_printf ("WITH %s, ops AS (%s)" TIME_SUMMARY (", 9"), memop, ops->str);
      return g_strdup_printf ("WITH %s, ops AS (%s), g AS (SELECT name, sum(dur) AS total, count(*) AS n, "
                              "avg(dur) AS av, median(dur) AS med, min(dur) AS mn, max(dur) AS mx, "
                              "stdev(dur) AS sd FROM ops GROUP BY name) "
                              "SELECT total, n, av, med, mn, mx, sd, name FROM g ORDER BY 1 DESC, 8",
                              memop, ops->str);
    }
  if (strcmp (report, "cuda_gpu_trace") == 0)
    {
      if (!kern && !memcpy_ && !memset_)
        return NULL;
      /* the device name: TARGET_INFO_GPU on id (nsys 2021.3.1 on), else the early-2021 table
       * TARGET_INFO_CUDA_GPU on deviceId, else an early TARGET_INFO_GPU keyed by deviceId, else
       * "GPU n".  (SELECT id FROM a TARGET_INFO_GPU without one would not fail here: SQLite
       * resolves it to the outer query's StringIds.id.) */
      gboolean gpu_table = has_table (db, "TARGET_INFO_GPU");
      const char *gpus = gpu_table && has_column (db, "TARGET_INFO_GPU", "id")
                           ? "gpus(id, name) AS (SELECT id, name FROM TARGET_INFO_GPU)"
                         : has_table (db, "TARGET_INFO_CUDA_GPU")
                           ? "gpus(id, name) AS (SELECT deviceId, min(name) FROM TARGET_INFO_CUDA_GPU GROUP BY deviceId)"
                         : gpu_table && has_column (db, "TARGET_INFO_GPU", "deviceId")
                           ? "gpus(id, name) AS (SELECT deviceId, name FROM TARGET_INFO_GPU)"
                           : "gpus(id, name) AS (SELECT NULL, NULL WHERE 0)";
      const char *device = "printf('%s (%d)', coalesce((SELECT name FROM gpus WHERE gpus.id = x.deviceId), "
                           "'GPU ' || x.deviceId), x.deviceId)";
      g_autoptr (GString) q = g_string_new (NULL);
      g_string_append_printf (q, "WITH %s, %s, %s, recs AS (", memop, memkind, gpus);
      const char *sep = "";
      if (kern)
        {
          g_string_append_printf (q, "SELECT 0 AS kind, x.deviceId AS dev, x.start, x.end - x.start AS dur, "
                                  "x.correlationId AS corr, gridX, gridY, gridZ, blockX, blockY, blockZ, "
                                  "registersPerThread, staticSharedMemory, dynamicSharedMemory, NULL AS bytes, "
                                  "NULL AS thru, NULL AS src, NULL AS dst, %s AS device, contextId, %s AS green, "
                                  "streamId, s.value AS name, x.end AS e FROM CUPTI_ACTIVITY_KIND_KERNEL AS x "
                                  "LEFT JOIN StringIds AS s ON s.id = x.demangledName", device,
                                  has_column (db, "CUPTI_ACTIVITY_KIND_KERNEL", "greenContextId")
                                    ? "NULLIF(greenContextId, 0)" : "NULL");
          sep = " UNION ALL ";
        }
      if (memcpy_)
        {
          g_string_append_printf (q, "%sSELECT 1, x.deviceId, x.start, x.end - x.start, x.correlationId, NULL, "
                                  "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, bytes, "
                                  "bytes * (1000000000 / (x.end - x.start)), sk.label, dk.label, %s, contextId, "
                                  "%s, streamId, '[CUDA memcpy ' || o.label || ']', x.end "
                                  "FROM CUPTI_ACTIVITY_KIND_MEMCPY AS x LEFT JOIN memop AS o ON o.id = x.copyKind "
                                  "LEFT JOIN memkind AS sk ON sk.id = x.srcKind "
                                  "LEFT JOIN memkind AS dk ON dk.id = x.dstKind", sep, device,
                                  has_column (db, "CUPTI_ACTIVITY_KIND_MEMCPY", "greenContextId")
                                    ? "NULLIF(greenContextId, 0)" : "NULL");
          sep = " UNION ALL ";
        }
      if (memset_)
        g_string_append_printf (q, "%sSELECT 2, x.deviceId, x.start, x.end - x.start, x.correlationId, NULL, "
                                "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, bytes, "
                                "bytes * (1000000000 / (x.end - x.start)), mk.label, NULL, %s, contextId, %s, "
                                "streamId, '[CUDA memset]', x.end FROM CUPTI_ACTIVITY_KIND_MEMSET AS x "
                                "LEFT JOIN memkind AS mk ON mk.id = x.%s", sep, device,
                                has_column (db, "CUPTI_ACTIVITY_KIND_MEMSET", "greenContextId")
                                  ? "NULLIF(greenContextId, 0)" : "NULL",
                                has_column (db, "CUPTI_ACTIVITY_KIND_MEMSET", "memKind") ? "memKind" : "NULL");
      g_string_append (q, ") SELECT start, dur, corr, gridX, gridY, gridZ, blockX, blockY, blockZ, "
                          "registersPerThread, staticSharedMemory, dynamicSharedMemory, bytes, thru, src, dst, "
                          "device, contextId, green, streamId, name FROM recs "
                          "ORDER BY start, kind, dev, contextId, streamId, corr, e");
      return g_string_free (g_steal_pointer (&q), FALSE);
    }
  if (strcmp (report, "nvtx_sum") == 0)
    {
      if (!has_table (db, "NVTX_EVENTS"))
        return NULL;
      /* domains by (process, domainId); range text from textId, else text; unterminated ranges
       * end at max(max(start), max(end)) of the table; "domain:text", or "text" without one */
      return g_strdup ("WITH last AS (SELECT max(max(start), coalesce(max(end), max(start))) AS t "
                       "FROM main.NVTX_EVENTS), "
                       "dom AS (SELECT e.globalTid & 0x0000FFFFFF000000 AS pidbits, e.domainId, "
                       "coalesce(s.value, e.text) AS dname FROM main.NVTX_EVENTS AS e "
                       "LEFT JOIN StringIds AS s ON s.id = e.textId WHERE e.eventType = 75 "
                       "GROUP BY pidbits, e.domainId), "
                       "ops AS (SELECT coalesce(e.end, (SELECT t FROM last)) - e.start AS dur, "
                       "CASE WHEN d.dname IS NOT NULL AND d.dname != '' THEN d.dname || ':' ELSE '' END "
                       "|| coalesce(s.value, e.text, '') AS tag, "
                       "CASE WHEN e.eventType IN (59, 70) THEN 'PushPop' ELSE 'StartEnd' END AS style "
                       "FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId "
                       "LEFT JOIN dom AS d ON d.domainId = e.domainId AND e.domainId != 0 "
                       "AND d.pidbits = (e.globalTid & 0x0000FFFFFF000000) "
                       "WHERE e.eventType IN (59, 60, 70, 71)), "
                       "g AS (SELECT tag, style, sum(dur) AS total, count(*) AS n, avg(dur) AS av, "
                       "median(dur) AS med, min(dur) AS mn, max(dur) AS mx, stdev(dur) AS sd "
                       "FROM ops GROUP BY tag, style) "
                       "SELECT round(total * 100.0 / (SELECT sum(total) FROM g), 1), total, n, round(av, 1), "
                       "round(med, 1), mn, mx, round(sd, 1), style, tag FROM g ORDER BY 2 DESC, 10, 9");
    }
  if (strcmp (report, "nvtx_pushpop_sum") == 0 || strcmp (report, "nvtx_startend_sum") == 0)
    {
      if (!has_table (db, "NVTX_EVENTS"))
        return NULL;
      /* NVIDIA's nvtx_pushpop_sum.py / nvtx_startend_sum.py: nvtx_sum's ranges of one style,
       * GROUP BY the tag alone, no Style column; ties of ORDER BY 2 DESC by Range */
      return g_strdup_printf ("WITH last AS (SELECT max(max(start), coalesce(max(end), max(start))) AS t "
                              "FROM main.NVTX_EVENTS), "
                              "dom AS (SELECT e.globalTid & 0x0000FFFFFF000000 AS pidbits, e.domainId, "
                              "coalesce(s.value, e.text) AS dname FROM main.NVTX_EVENTS AS e "
                              "LEFT JOIN StringIds AS s ON s.id = e.textId WHERE e.eventType = 75 "
                              "GROUP BY pidbits, e.domainId), "
                              "ops AS (SELECT coalesce(e.end, (SELECT t FROM last)) - e.start AS dur, "
                              "CASE WHEN d.dname IS NOT NULL AND d.dname != '' THEN d.dname || ':' ELSE '' END "
                              "|| coalesce(s.value, e.text, '') AS tag "
                              "FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId "
                              "LEFT JOIN dom AS d ON d.domainId = e.domainId AND e.domainId != 0 "
                              "AND d.pidbits = (e.globalTid & 0x0000FFFFFF000000) "
                              "WHERE e.eventType IN %s), "
                              "g AS (SELECT tag, sum(dur) AS total, count(*) AS n, avg(dur) AS av, "
                              "median(dur) AS med, min(dur) AS mn, max(dur) AS mx, stdev(dur) AS sd "
                              "FROM ops GROUP BY tag) "
                              "SELECT round(total * 100.0 / (SELECT sum(total) FROM g), 1), total, n, "
                              "round(av, 1), round(med, 1), mn, mx, round(sd, 1), tag FROM g "
                              "ORDER BY 2 DESC, 9",
                              strcmp (report, "nvtx_pushpop_sum") == 0 ? "(59, 70)" : "(60, 71)");
    }
  if (strcmp (report, "nvtx_pushpop_trace") == 0)
    {
      if (!has_table (db, "NVTX_EVENTS"))
        return NULL;
      /* NVIDIA's nvtx_pushpop_trace.py: every push/pop range with its family over the whole
       * trace (pp_parent, pp_tree), the rows that start in the range; ORDER BY 1, 3 (ties:
       * RangeId); NameTree is the name after "--" a level */
      return g_strdup_printf ("WITH ch AS (SELECT p.parent AS rid, count(*) AS n, sum(r.en - r.s) AS d "
                              "FROM pp_parent AS p JOIN pp_rt AS r ON r.rid = p.rid "
                              "WHERE p.parent IS NOT NULL GROUP BY p.parent) "
                              "SELECT r.s, r.en, r.en - r.s, coalesce(ch.d, 0), r.en - r.s - coalesce(ch.d, 0), "
                              "r.kname, (r.gtid >> 24) & 0xFFFFFF, r.gtid & 0xFFFFFF, t.lvl, coalesce(ch.n, 0), "
                              "r.rid, p.parent, t.stack, replace(hex(zeroblob(t.lvl)), '00', '--') || r.kname "
                              "FROM pp_rt AS r JOIN pp_parent AS p ON p.rid = r.rid "
                              "JOIN pp_tree AS t ON t.rid = r.rid LEFT JOIN ch ON ch.rid = r.rid "
                              "WHERE r.s >= %" G_GINT64_FORMAT " AND r.s < %" G_GINT64_FORMAT " "
                              "ORDER BY 1, 3, 11", oracle_t0, oracle_t1);
    }
  if (strcmp (report, "syscall_sum") == 0)
    {
      if (!has_table (db, "SYSCALL"))
        return NULL;
      /* NVIDIA's syscall_sum.py: eventClass 107 GROUP BY nameId, the name joined afterwards;
       * ties of ORDER BY 2 DESC by Name */
      return g_strdup ("WITH g AS (SELECT nameId, sum(end - start) AS total, count(*) AS n, "
                       "avg(end - start) AS av, median(end - start) AS med, min(end - start) AS mn, "
                       "max(end - start) AS mx, stdev(end - start) AS sd FROM SYSCALL "
                       "WHERE eventClass = 107 GROUP BY nameId) "
                       "SELECT round(total * 100.0 / (SELECT sum(total) FROM g), 1), total, n, "
                       "round(av, 1), round(med, 1), mn, mx, round(sd, 1), s.value FROM g "
                       "LEFT JOIN StringIds AS s ON s.id = g.nameId ORDER BY 2 DESC, 9, g.nameId");
    }
  if (strcmp (report, "cuda_kern_exec_sum") == 0)
    {
      if (!kern || !api)
        return NULL;
#define DUR_STATS(c) \
  "round(avg(" c "), 1), round(median(" c "), 1), min(" c "), max(" c "), round(stdev(" c "), 1), "
      return g_strdup ("WITH rk AS (SELECT (r.globalTid >> 24) & 0x00FFFFFF AS pid, r.globalTid & 0x00FFFFFF AS tid, "
                       "k.deviceId AS dev, r.end - r.start AS api, "
                       "iif(k.start - r.end >= 0, k.start - r.end, NULL) AS que, k.end - k.start AS kern, "
                       "max(r.end, k.end) - r.start AS tot, " STRIP_V ("rn.value") " AS apiname, "
                       "kn.value AS kname FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
                       "JOIN main.CUPTI_ACTIVITY_KIND_RUNTIME AS r ON k.correlationId = r.correlationId "
                       "AND k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000) "
                       "LEFT JOIN StringIds AS rn ON rn.id = r.nameId "
                       "LEFT JOIN StringIds AS kn ON kn.id = k.demangledName) "
                       "SELECT pid, tid, dev, count(*), count(que), " DUR_STATS ("tot") DUR_STATS ("api")
                       DUR_STATS ("que") DUR_STATS ("kern") "apiname, kname FROM rk "
                       "GROUP BY pid, tid, dev, apiname, kname ORDER BY 6 DESC, 1, 2, 3, 26, 27");
#undef DUR_STATS
    }
  if (strcmp (report, "cuda_kern_exec_trace") == 0)
    {
      if (!kern || !api)
        return NULL;
      return g_strdup ("SELECT r.start, r.end - r.start, iif(k.start - r.end >= 0, r.end, NULL), "
                       "iif(k.start - r.end >= 0, k.start - r.end, NULL), k.start, k.end - k.start, "
                       "max(r.end, k.end) - r.start, (r.globalTid >> 24) & 0x00FFFFFF, r.globalTid & 0x00FFFFFF, "
                       "k.deviceId, " STRIP_V ("rn.value") ", printf('%4d %4d %4d', k.gridX, k.gridY, k.gridZ), "
                       "printf('%4d %4d %4d', k.blockX, k.blockY, k.blockZ), kn.value "
                       "FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
                       "JOIN main.CUPTI_ACTIVITY_KIND_RUNTIME AS r ON k.correlationId = r.correlationId "
                       "AND k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000) "
                       "LEFT JOIN StringIds AS rn ON rn.id = r.nameId "
                       "LEFT JOIN StringIds AS kn ON kn.id = k.demangledName "
                       "ORDER BY 1, 5, 10, 8, 9, k.correlationId");
    }
  if (strcmp (report, "cuda_api_trace") == 0)
    {
      if (!api)
        return NULL;
      gboolean names = has_table (db, "ThreadNames");
      return g_strdup_printf ("SELECT r.start, r.end - r.start, " STRIP_V ("s.value") ", %s, r.correlationId, "
                              "(r.globalTid >> 24) & 0xFFFFFF, r.globalTid & 0xFFFFFF, %s, %s "
                              "FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r LEFT JOIN StringIds AS s ON s.id = r.nameId %s "
                              "ORDER BY 1, 6, 7, 5, 2",
                              has_column (db, "CUPTI_ACTIVITY_KIND_RUNTIME", "returnValue") ? "r.returnValue" : "0",
                              names && has_column (db, "ThreadNames", "priority") ? "tn.priority" : "NULL",
                              names ? "ts.value" : "NULL",
                              names ? "LEFT JOIN ThreadNames AS tn ON tn.globalTid = r.globalTid "
                                      "LEFT JOIN StringIds AS ts ON ts.id = tn.nameId" : "");
    }
  if (strcmp (report, "nvtx_gpu_proj_trace") == 0 || strcmp (report, "nvtx_gpu_proj_sum") == 0)
    {
      if (!has_table (db, "NVTX_EVENTS") || !api)
        return NULL;
      g_autofree char *rows = proj_rows_sql (db);
      if (strcmp (report, "nvtx_gpu_proj_trace") == 0)
        return g_strdup_printf ("%s SELECT * FROM rows ORDER BY ps, pd DESC, lvl, ostart, odur DESC, tid, name", rows);
      return g_strdup_printf ("%s SELECT name, style, sum(pd), sum(odur), count(*), round(avg(pd), 1), "
                              "round(median(pd), 1), min(pd), max(pd), round(stdev(pd), 1), sum(n), "
                              "round(avg(n), 1), round(avg(lvl), 1), round(avg(nchild), 1) FROM rows "
                              "GROUP BY name, style ORDER BY 3 DESC, 1, 2", rows);
    }
  if (strcmp (report, "nvtx_kern_sum") == 0)
    {
      if (!has_table (db, "NVTX_EVENTS") || !api || !kern)
        return NULL;
      return g_strdup ("WITH combo AS (SELECT p.kname AS name, p.style, p.rid AS nid, "
                       "printf('%d/%d/%d/%d', k.start, k.correlationId, k.deviceId, k.streamId) AS kid, "
                       "k.end - k.start AS kd, (r.globalTid >> 24) & 0x00FFFFFF AS pid, "
                       "r.globalTid & 0x00FFFFFF AS tid, ks.value AS kname "
                       "FROM CUPTI_ACTIVITY_KIND_KERNEL AS k LEFT JOIN StringIds AS ks ON ks.id = k.demangledName "
                       "LEFT JOIN main.CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = k.correlationId "
                       "AND (r.globalTid & 0xFFFFFFFFFF000000) = k.globalPid "
                       "LEFT JOIN (nvtx_ridx AS x JOIN nvtx_rt AS p ON p.rid = x.rid) "
                       "ON x.s <= r.start AND x.en >= r.end AND p.gtid = r.globalTid "
                       "AND p.s <= r.start AND p.en >= r.end) "
                       "SELECT name, style, pid, tid, count(DISTINCT nid), count(DISTINCT kid), sum(kd), "
                       "round(avg(kd), 1), round(median(kd), 1), min(kd), max(kd), round(stdev(kd), 1), kname "
                       "FROM combo GROUP BY pid, tid, name, style, kname ORDER BY 1, 3, 4, 7 DESC, 2, 13");
    }
  if (strcmp (report, "um_sum") == 0 || strcmp (report, "um_total_sum") == 0)
    {
      if (!memcpy_ || !has_table (db, "CUDA_UM_CPU_PAGE_FAULT_EVENTS")
          || !has_table (db, "CUDA_UM_GPU_PAGE_FAULT_EVENTS"))
        return NULL;
      /* nsys's um_sum.py / um_total_sum.py: CPU faults counted and GPU faults summed per address,
       * UVM migrations (copyKind 11 HtoD, 12 DtoH) summed per virtualAddress; NULL keys join
       * nothing */
      const char *cte = "cpu AS (SELECT address AS a, count(*) AS n FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS GROUP BY 1), "
                        "gpu AS (SELECT address AS a, sum(numberOfPageFaults) AS n "
                        "FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS GROUP BY 1), "
                        "d2h AS (SELECT virtualAddress AS a, sum(end - start) AS dur, sum(bytes) AS b "
                        "FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 12 GROUP BY 1), "
                        "h2d AS (SELECT virtualAddress AS a, sum(end - start) AS dur, sum(bytes) AS b "
                        "FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 11 GROUP BY 1)";
      if (strcmp (report, "um_total_sum") == 0)
        /* one row; SQLite's min()/max() of several arguments is NULL when one is */
        return g_strdup ("WITH c AS (SELECT min(address) AS lo, max(address) AS hi, count(*) AS n "
                         "FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS), "
                         "g AS (SELECT min(address) AS lo, max(address) AS hi, sum(numberOfPageFaults) AS n "
                         "FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS), "
                         "d AS (SELECT min(virtualAddress) AS lo, max(virtualAddress) AS hi, sum(bytes) AS b "
                         "FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 12), "
                         "h AS (SELECT min(virtualAddress) AS lo, max(virtualAddress) AS hi, sum(bytes) AS b "
                         "FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 11) "
                         "SELECT h.b, d.b, c.n, g.n, min(c.lo, g.lo, h.lo, d.lo), max(c.hi, g.hi, h.hi, d.hi) "
                         "FROM c, g, d, h");
      /* the full outer joins as UNION ALL of a LEFT JOIN and the unmatched other side; the
       * throughput in SQLite's integer arithmetic; ties of ORDER BY 6 DESC by the other columns */
      return g_strdup_printf ("WITH %s, "
                              "faults AS (SELECT cpu.a AS a, cpu.n AS c, gpu.n AS g FROM cpu "
                              "LEFT JOIN gpu ON gpu.a = cpu.a UNION ALL SELECT gpu.a, NULL, gpu.n FROM gpu "
                              "WHERE NOT EXISTS (SELECT 1 FROM cpu WHERE cpu.a = gpu.a)), "
                              "migr AS (SELECT d2h.a AS a, d2h.b AS d, h2d.b AS h, "
                              "(ifnull(d2h.b, 0) + ifnull(h2d.b, 0)) * (1000000000 / (ifnull(d2h.dur, 0) "
                              "+ ifnull(h2d.dur, 0))) AS t FROM d2h LEFT JOIN h2d ON h2d.a = d2h.a "
                              "UNION ALL SELECT h2d.a, NULL, h2d.b, ifnull(h2d.b, 0) * (1000000000 / "
                              "ifnull(h2d.dur, 0)) FROM h2d "
                              "WHERE NOT EXISTS (SELECT 1 FROM d2h WHERE d2h.a = h2d.a)) "
                              "SELECT f.a, m.h, m.d, f.c, f.g, m.t FROM faults AS f "
                              "LEFT JOIN migr AS m ON m.a = f.a UNION ALL "
                              "SELECT m.a, m.h, m.d, NULL, NULL, m.t FROM migr AS m "
                              "WHERE NOT EXISTS (SELECT 1 FROM faults AS f WHERE f.a = m.a) "
                              "ORDER BY 6 DESC, 1, 2, 3, 4, 5 LIMIT 10", cte);
    }
  if (strcmp (report, "um_cpu_page_faults_sum") == 0)
    {
      if (!has_table (db, "StringIds") || !has_table (db, "CUDA_UM_CPU_PAGE_FAULT_EVENTS"))
        return NULL;
      /* nsys's um_cpu_page_faults_sum.py: GROUP BY the ids, their text joined afterwards; ties of
       * ORDER BY 1 DESC by the other columns */
      return g_strdup ("WITH s AS (SELECT count(*) AS n, CpuInstruction AS i, sourceFile AS f, "
                       "sourceLine AS l FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS GROUP BY 2, 3, 4) "
                       "SELECT s.n, si.value, sf.value, s.l FROM s "
                       "LEFT JOIN StringIds AS si ON si.id = s.i LEFT JOIN StringIds AS sf ON sf.id = s.f "
                       "ORDER BY 1 DESC, 2, 3, 4");
    }
  /* Sightline's gpu_metrics_sum and gpu_metrics_kern_sum: tests/test-metrics.c holds them to SQL
   * on generated traces; the traces here have no GPU_METRICS, so they are skipped */
  if (g_str_has_prefix (report, "gpu_metrics_"))
    {
      g_assert_false (has_table (db, "GPU_METRICS"));
      return NULL;
    }
  /* mpi_event_sum, mpi_event_trace, mpi_msg_size_sum: tests/test-mpi.c holds them to NVIDIA's SQL;
   * the traces here have no MPI tables, so they are skipped */
  if (g_str_has_prefix (report, "mpi_"))
    {
      g_assert_false (has_table (db, "MPI_RANKS"));
      return NULL;
    }
  /* openmp_sum, openacc_sum: tests/test-openmp.c holds them to NVIDIA's SQL; the traces here have
   * no OpenMP or OpenACC tables, so they are skipped */
  if (g_str_has_prefix (report, "openmp_") || g_str_has_prefix (report, "openacc_"))
    {
      g_assert_false (has_table (db, "OPENMP_EVENT_KIND_PARALLEL"));
      g_assert_false (has_table (db, "CUPTI_ACTIVITY_KIND_OPENACC_OTHER"));
      return NULL;
    }
  g_assert_not_reached ();
}

/* ---------------------------------------------------------------------------------------- */
/* Comparing                                                                                */

static char *
cell_to_string (const SlCell *c)
{
  switch (c->type)
    {
    case SL_CELL_NULL:
      return g_strdup ("NULL");
    case SL_CELL_INT:
      return g_strdup_printf ("%" G_GINT64_FORMAT, c->v.i);
    case SL_CELL_DOUBLE:
      return g_strdup_printf ("%.17g", c->v.d);
    case SL_CELL_TEXT:
      return g_strdup_printf ("'%s'", c->v.s);
    }
  return NULL;
}

/* Integers exactly; doubles exactly where the SQL rounds them, else to 1e-9 relative (the
 * unrounded avg/median/stdev of cuda_gpu_mem_size_sum, whose stdev depends on row order);
 * an SQL integer (median of an odd count) equals a model double of the same value. */
static gboolean
cell_matches (const SlCell  *c,
              sqlite3_stmt  *stmt,
              int            col,
              gboolean       exact_doubles,
              char         **want)
{
  int type = sqlite3_column_type (stmt, col);
  gboolean ok = FALSE;

  switch (type)
    {
    case SQLITE_NULL:
      *want = g_strdup ("NULL");
      ok = c->type == SL_CELL_NULL;
      break;
    case SQLITE_INTEGER:
      {
        gint64 v = sqlite3_column_int64 (stmt, col);
        *want = g_strdup_printf ("%" G_GINT64_FORMAT, v);
        ok = (c->type == SL_CELL_INT && c->v.i == v) || (c->type == SL_CELL_DOUBLE && c->v.d == (double) v);
      }
      break;
    case SQLITE_FLOAT:
      {
        double v = sqlite3_column_double (stmt, col);
        *want = g_strdup_printf ("%.17g", v);
        if (c->type == SL_CELL_DOUBLE || c->type == SL_CELL_INT)
          {
            double got = c->type == SL_CELL_INT ? (double) c->v.i : c->v.d;
            ok = exact_doubles ? got == v : fabs (got - v) <= 1e-9 * MAX (1.0, fabs (v));
          }
      }
      break;
    case SQLITE_TEXT:
      *want = g_strdup_printf ("'%s'", (const char *) sqlite3_column_text (stmt, col));
      ok = c->type == SL_CELL_TEXT && strcmp (c->v.s, (const char *) sqlite3_column_text (stmt, col)) == 0;
      break;
    default:
      *want = g_strdup ("BLOB");
      break;
    }
  return ok;
}

/* Returns how many rows were compared; fails the test at the first difference.  The report is
 * over [t0, t1), the whole trace for (G_MININT64, G_MAXINT64); the oracle sees that range through
 * range_views_create (). */
static gsize
compare_report (const char *path,
                sqlite3    *db,
                SlTrace    *trace,
                const char *name,
                SlTime      t0,
                SlTime      t1)
{
  /* Sightline's own report has no nsys SQL: test_merge_generated holds it to SQL and a sweep */
  if (strcmp (name, "rank_sum") == 0)
    return 0;

  g_autofree char *sql = oracle_sql (db, name);
  g_autoptr (GError) error = NULL;
  g_autoptr (SlReport) report = t0 == G_MININT64 && t1 == G_MAXINT64
                                  ? sl_report_compute (trace, name, &error)
                                  : sl_report_compute_range (trace, name, t0, t1, &error);
  g_autofree char *base = g_path_get_basename (path);
  sqlite3_stmt *stmt = NULL;
  gsize row = 0;
  int rc;

  if (sql == NULL)
    {
      /* no table: the model must say so, like nsys's SKIPPED */
      g_assert_error (error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
      g_assert_nonnull (strstr (error->message, "does not contain"));
      g_assert_nonnull (strstr (error->message, path));
      return 0;
    }
  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
    g_error ("%s %s: oracle SQL does not prepare: %s\n%s", base, name, sqlite3_errmsg (db), sql);
  if (report == NULL)
    {
      /* a table that exists but is empty: the oracle has no rows either */
      g_assert_error (error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
      rc = sqlite3_step (stmt);
      /* an empty aggregate over no rows still yields no groups */
      if (rc == SQLITE_ROW)
        g_error ("%s %s: the model has no data (%s) but SQL has rows", base, name, error->message);
      sqlite3_finalize (stmt);
      return 0;
    }
  g_assert_no_error (error);
  guint n_columns = sl_report_get_n_columns (report);
  g_assert_cmpint (sqlite3_column_count (stmt), ==, (int) n_columns);
  gboolean exact = strcmp (name, "cuda_gpu_mem_size_sum") != 0;

  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      if (row >= sl_report_get_n_rows (report))
        g_error ("%s %s: SQL has more rows than the model's %" G_GSIZE_FORMAT, base, name,
                 sl_report_get_n_rows (report));
      /* nvtx_gpu_proj_trace's RangeId, ParentId and RangeStack too: NVTX_EVENTS rowids */
      for (guint c = 0; c < n_columns; c++)
        {
          const SlCell *cell = sl_report_get_cell (report, row, c);
          g_autofree char *want = NULL;
          if (!cell_matches (cell, stmt, (int) c, exact, &want))
            {
              g_autofree char *got = cell_to_string (cell);
              g_error ("%s %s: row %" G_GSIZE_FORMAT " column '%s': model %s, SQL %s", base, name, row,
                       sl_report_get_column (report, c), got, want);
            }
        }
      row++;
    }
  g_assert_cmpint (rc, ==, SQLITE_DONE);
  sqlite3_finalize (stmt);
  if (row != sl_report_get_n_rows (report))
    g_error ("%s %s: model has %" G_GSIZE_FORMAT " rows, SQL %" G_GSIZE_FORMAT, base, name,
             sl_report_get_n_rows (report), row);
  return row;
}

static void
test_oracle (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();

  for (char **f = files; *f != NULL; f++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (*f, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_autofree char *base = g_path_get_basename (*f);
      g_autoptr (GString) counts = g_string_new (NULL);

      g_assert_no_error (error);
      sqlite3 *db = oracle_open (*f);
      for (const char *const *n = sl_report_names (); *n != NULL; n++)
        {
          gsize rows = compare_report (*f, db, trace, *n, G_MININT64, G_MAXINT64);
          g_string_append_printf (counts, " %s=%" G_GSIZE_FORMAT, *n, rows);
        }
      sqlite3_close (db);
      g_test_message ("%s:%s", base, counts->str);
    }
}

/* The event tables seen through temporary views (which SQLite resolves before the file's own
 * tables) that keep the rows starting in [t0, t1): the oracle's queries run unchanged on them.
 * NVTX keeps its domain and mark rows, and the queries read the unterminated ranges' end and
 * cuda_kern_exec_sum's launch calls from main., as the model does: only the reported events
 * (the ranges, the kernels) must start in the range. */
static const char *const range_tables[] = {
  "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
  "CUPTI_ACTIVITY_KIND_RUNTIME", "OSRT_API", "NVTX_EVENTS",
  "CUDA_UM_CPU_PAGE_FAULT_EVENTS", "CUDA_UM_GPU_PAGE_FAULT_EVENTS", "SYSCALL",
};

static void
range_views_create (sqlite3 *db,
                    SlTime   t0,
                    SlTime   t1)
{
  oracle_t0 = t0;
  oracle_t1 = t1;
  for (gsize i = 0; i < G_N_ELEMENTS (range_tables); i++)
    {
      const char *table = range_tables[i];
      gboolean nvtx = strcmp (table, "NVTX_EVENTS") == 0;
      g_autofree char *sql = NULL;
      char *message = NULL;

      if (!has_table (db, table))
        continue;
      sql = g_strdup_printf ("CREATE TEMP VIEW %s AS SELECT * FROM main.%s WHERE %s(start >= %" G_GINT64_FORMAT
                             " AND start < %" G_GINT64_FORMAT ")", table, table,
                             nvtx ? "eventType NOT IN (59, 60, 70, 71) OR " : "", t0, t1);
      if (sqlite3_exec (db, sql, NULL, NULL, &message) != SQLITE_OK)
        g_error ("%s: %s", sql, message);
    }
}

static void
range_views_drop (sqlite3 *db)
{
  oracle_t0 = G_MININT64;
  oracle_t1 = G_MAXINT64;
  for (gsize i = 0; i < G_N_ELEMENTS (range_tables); i++)
    {
      g_autofree char *sql = g_strdup_printf ("DROP VIEW IF EXISTS temp.%s", range_tables[i]);
      g_assert_cmpint (sqlite3_exec (db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
    }
}

static char *
report_csv (SlTrace    *trace,
            const char *name,
            SlTime      t0,
            SlTime      t1)
{
  g_autoptr (SlReport) r = sl_report_compute_range (trace, name, t0, t1, NULL);
  GString *out = g_string_new (NULL);

  if (r != NULL)
    sl_report_write (r, SL_REPORT_FORMAT_CSV, out);
  return g_string_free (out, FALSE);
}

/* Every report over several ranges of every real trace, against the oracle on the rows that
 * start in the range: slices in the middle and at the start, one holding nothing, an empty one,
 * and the whole trace, which must also be the full report, byte for byte. */
static void
test_oracle_range (void)
{
  g_auto (GStrv) files = sl_test_nsys_traces ();

  for (char **f = files; *f != NULL; f++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (*f, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_autofree char *base = g_path_get_basename (*f);

      g_assert_no_error (error);
      SlTime s = sl_trace_get_start (trace), e = sl_trace_get_end (trace), d = e - s;
      const SlTime ranges[][2] = {
        { s + d / 3, s + 2 * d / 3 },   /* a middle slice */
        { s, s + d / 50 },              /* the first 2 % */
        { s + d / 2, s + d / 2 + 1 },   /* one nanosecond */
        { e + 1, e + 1000000 },         /* after the trace: nothing */
        { s + d / 2, s + d / 2 },       /* empty */
        { s, e + 1 },                   /* the whole trace */
      };
      sqlite3 *db = oracle_open (*f);

      for (gsize k = 0; k < G_N_ELEMENTS (ranges); k++)
        {
          g_autoptr (GString) counts = g_string_new (NULL);

          range_views_create (db, ranges[k][0], ranges[k][1]);
          for (const char *const *n = sl_report_names (); *n != NULL; n++)
            {
              gsize rows = 0;

              /* the whole trace's SQL comparison is /model/stats/oracle's: here only that the
               * range over all of it is the full report, byte for byte */
              if (k != G_N_ELEMENTS (ranges) - 1)
                rows = compare_report (*f, db, trace, *n, ranges[k][0], ranges[k][1]);
              g_string_append_printf (counts, " %s=%" G_GSIZE_FORMAT, *n, rows);
              if (k == G_N_ELEMENTS (ranges) - 1)
                {
                  g_autofree char *whole = report_csv (trace, *n, G_MININT64, G_MAXINT64);
                  g_autofree char *range = report_csv (trace, *n, ranges[k][0], ranges[k][1]);
                  g_assert_cmpstr (range, ==, whole);
                }
              if (k == 3 || k == 4)
                g_assert_cmpuint (rows, ==, 0);
            }
          range_views_drop (db);
          g_test_message ("%s [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "):%s", base, ranges[k][0],
                          ranges[k][1], counts->str);
        }
      sqlite3_close (db);
    }
}

/* Loading only what a report needs gives the same report as loading everything. */
static void
test_needs (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");

  for (const char *const *n = sl_report_names (); *n != NULL; n++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) all = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (SlTrace) some = sl_trace_load (path, sl_report_needs (*n), NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (sl_report_needs (*n), !=, 0);
      g_autoptr (SlReport) a = sl_report_compute (all, *n, NULL);
      g_autoptr (SlReport) b = sl_report_compute (some, *n, NULL);
      g_assert_true ((a == NULL) == (b == NULL));
      if (a == NULL)
        continue;
      g_autoptr (GString) ta = g_string_new (NULL);
      g_autoptr (GString) tb = g_string_new (NULL);
      sl_report_write (a, SL_REPORT_FORMAT_CSV, ta);
      sl_report_write (b, SL_REPORT_FORMAT_CSV, tb);
      g_assert_cmpstr (ta->str, ==, tb->str);
    }
  g_assert_cmpint (sl_report_needs ("no_such_report"), ==, 0);

  /* the traces (a row per event) and the summaries */
  g_assert_true (sl_report_is_per_event ("cuda_gpu_trace"));
  g_assert_true (sl_report_is_per_event ("cuda_api_trace"));
  g_assert_true (sl_report_is_per_event ("cuda_kern_exec_trace"));
  g_assert_true (sl_report_is_per_event ("nvtx_gpu_proj_trace"));
  g_assert_false (sl_report_is_per_event ("nvtx_gpu_proj_sum"));
  g_assert_false (sl_report_is_per_event ("cuda_kern_exec_sum"));
  g_assert_false (sl_report_is_per_event ("no_such_report"));
}

/* SQLite's round() is half away from zero on the printed decimal, not glibc's half-even. */
static void
test_round (void)
{
  sqlite3 *db;
  sqlite3_stmt *stmt;
  guint32 seed = sl_test_seed ();
  GRand *rand = g_rand_new_with_seed (seed);

  g_assert_cmpint (sqlite3_open (":memory:", &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT round(?, 1)", -1, &stmt, NULL), ==, SQLITE_OK);
  for (int i = 0; i < 20000; i++)
    {
      /* quarters and random values: the ties are where printf implementations differ */
      double x = i < 10000 ? (double) g_rand_int_range (rand, -4000000, 4000000) / 4.0
                           : g_rand_double_range (rand, -1e9, 1e9);
      sqlite3_bind_double (stmt, 1, x);
      g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
      double want = sqlite3_column_double (stmt, 0);
      if (sl_stats_round (x, 1) != want)
        g_error ("round(%.17g, 1): model %.17g, SQLite %.17g (seed %u)", x, sl_stats_round (x, 1), want, seed);
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  g_rand_free (rand);
}

static void
test_unknown_name (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  g_autoptr (SlReport) r = sl_report_compute (trace, "gpukernsum", &error);
  g_assert_null (r);
  g_assert_error (error, SL_STATS_ERROR, SL_STATS_ERROR_UNKNOWN_REPORT);
  g_assert_nonnull (strstr (error->message, "cuda_gpu_kern_sum"));
  g_assert_false (sl_report_name_is_valid ("gpukernsum"));
  for (const char *const *n = sl_report_default_names (); *n != NULL; n++)
    g_assert_true (sl_report_name_is_valid (*n));
}

/* ---------------------------------------------------------------------------------------- */
/* The command                                                                              */

typedef struct
{
  int   status;
  char *out;
  char *err;
} Run;

static void
run_clear (Run *run)
{
  g_free (run->out);
  g_free (run->err);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

static void
run_sightline (Run *run,
               ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  va_list ap;
  const char *arg;
  int wait_status;

  g_ptr_array_add (argv, (char *) SL_SIGHTLINE_BIN);
  g_ptr_array_add (argv, (char *) "stats");
  va_start (ap, run);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &run->out,
                               &run->err, &wait_status, &error));
  g_assert_no_error (error);
  run->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
}

static const char *kern_header
  = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name";

static void
test_cmd_csv (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_auto (Run) run = { 0 };

  run_sightline (&run, path, "--report", "cuda_gpu_kern_sum", "--format", "csv", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (run.out, "\n", -1);
  g_assert_cmpstr (lines[0], ==, kern_header);
  /* the reference's own figures for this file (nsys-sqlite.md §6, run_stats.py) */
  g_assert_true (g_str_has_prefix (lines[1], "69.4,31121662,248,125490.6,133296.0,57473,306210,45956.4,"));
  /* kernel names with commas are quoted */
  g_assert_nonnull (strstr (run.out, ",\"void at::native::"));
}

static void
test_cmd_column (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_auto (Run) run = { 0 };

  run_sightline (&run, path, "--report", "cuda_gpu_kern_sum", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_auto (GStrv) lines = g_strsplit (run.out, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], "** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):"));
  g_assert_true (g_str_has_prefix (lines[2], " Time (%)  Total Time (ns)  Instances  "));
  g_assert_true (g_str_has_prefix (lines[3], " --------  ---------------  ---------  "));
  /* numbers right-aligned with thousands separators, as nsys prints them */
  g_assert_true (g_str_has_prefix (lines[4], "     69.4       31,121,662        248  125,490.6  133,296.0"));
}

/* --report all: every report with rows, each once, and no SKIPPED line for the others (the
 * trace has NVTX push/pop ranges and CUDA data, no OS runtime calls, start/end ranges or
 * syscalls); with --range, only those with a row in it. */
static void
test_cmd_all (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2022.1-memory-usage.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_auto (Run) run = { 0 };
  g_auto (Run) part = { 0 };
  guint shown = 0, left = 0;

  g_assert_no_error (error);
  run_sightline (&run, path, "--report", "all", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_null (strstr (run.out, "SKIPPED"));
  g_assert_null (strstr (run.err, "SKIPPED"));
  SlTime s = sl_trace_get_start (trace), origin = sl_trace_get_origin (trace);
  /* one nanosecond at the trace's first event: few reports have a row there */
  g_autofree char *range = g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, s - origin,
                                            s - origin + 1);
  run_sightline (&part, path, "--report", "all", "--range", range, NULL);
  g_assert_cmpint (part.status, ==, 0);
  for (const char *const *n = sl_report_names (); *n != NULL; n++)
    {
      g_autoptr (SlReport) r = sl_report_compute (trace, *n, NULL);
      g_autoptr (SlReport) p = sl_report_compute_range (trace, *n, s, s + 1, NULL);
      g_autofree char *head = g_strdup_printf ("(%s):\n", *n);
      gboolean rows = r != NULL && sl_report_get_n_rows (r) > 0;
      gboolean part_rows = p != NULL && sl_report_get_n_rows (p) > 0;
      const char *at = strstr (run.out, head);

      g_assert_true (rows == (at != NULL));
      g_assert_true (at == NULL || strstr (at + 1, head) == NULL);
      g_assert_true (part_rows == (strstr (part.out, head) != NULL));
      rows ? shown++ : left++;
    }
  g_test_message ("--report all: %u reports shown, %u left out", shown, left);
  g_assert_cmpuint (shown, >, 0);
  g_assert_cmpuint (left, >, 0);
}

static void
test_cmd_json (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_auto (Run) run = { 0 };

  run_sightline (&run, path, "--report", "cuda_gpu_kern_sum", "--format", "json", NULL);
  g_assert_cmpint (run.status, ==, 0);
#ifdef SL_HAVE_JSON_GLIB
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, run.out, -1, &error));
  g_assert_no_error (error);
  JsonNode *root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (root));
  JsonArray *rows = json_node_get_array (root);
  g_assert_cmpuint (json_array_get_length (rows), >, 0);
  JsonObject *row = json_array_get_object_element (rows, 0);
  g_assert_true (json_object_has_member (row, "Time (%)"));
  g_assert_true (json_object_has_member (row, "StdDev (ns)"));
  g_assert_cmpint (json_object_get_int_member (row, "Instances"), >, 0);
  g_assert_nonnull (json_object_get_string_member (row, "Name"));
#else
  g_assert_true (g_str_has_prefix (run.out, "[\n  {\"Time (%)\": "));
  g_assert_nonnull (strstr (run.out, "\"Name\": \""));
  g_assert_true (g_str_has_suffix (run.out, "}\n]\n"));
#endif
}

static void
test_cmd_output_and_two_reports (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autofree char *file = g_build_filename (sl_test_tmpdir (), "stats.txt", NULL);
  g_auto (Run) to_file = { 0 };
  g_auto (Run) to_stdout = { 0 };
  g_autofree char *contents = NULL;

  run_sightline (&to_file, path, "--report", "cuda_gpu_kern_sum,cuda_api_sum", "--output", file, NULL);
  g_assert_cmpint (to_file.status, ==, 0);
  g_assert_cmpstr (to_file.out, ==, "");
  g_assert_true (g_file_get_contents (file, &contents, NULL, NULL));
  run_sightline (&to_stdout, path, "-r", "cuda_gpu_kern_sum", "-r", "cuda_api_sum", NULL);
  g_assert_cmpint (to_stdout.status, ==, 0);
  g_assert_cmpstr (contents, ==, to_stdout.out);
  const char *kern = strstr (contents, "(cuda_gpu_kern_sum):");
  const char *api = strstr (contents, "(cuda_api_sum):");
  g_assert_nonnull (kern);
  g_assert_nonnull (api);
  g_assert_true (kern < api);
}

static void
test_cmd_errors (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autofree char *missing = g_build_filename (sl_test_tmpdir (), "missing.sqlite", NULL);
  g_auto (Run) unknown = { 0 };
  g_auto (Run) absent = { 0 };
  g_auto (Run) skipped = { 0 };

  run_sightline (&unknown, path, "--report", "cuda_gpu_kern_sum,nosuch", NULL);
  g_assert_cmpint (unknown.status, !=, 0);
  g_assert_nonnull (strstr (unknown.err, "nosuch"));
  for (const char *const *n = sl_report_names (); *n != NULL; n++)
    g_assert_nonnull (strstr (unknown.err, *n));

  run_sightline (&absent, missing, NULL);
  g_assert_cmpint (absent.status, ==, 1);
  g_assert_nonnull (strstr (absent.err, missing));
  g_assert_nonnull (strchr (absent.err, '\n'));
  g_assert_null (strchr (absent.err, '\n') + 1 == NULL ? NULL : strchr (strchr (absent.err, '\n') + 1, '\n'));

  /* the defaults on a file without NVTX or OS runtime data: skipped, like nsys */
  run_sightline (&skipped, path, NULL);
  g_assert_cmpint (skipped.status, ==, 0);
  g_autofree char *msg = g_strdup_printf ("SKIPPED: %s does not contain NV Tools Extension (NVTX) data.", path);
  g_assert_nonnull (strstr (skipped.out, msg));
  g_assert_nonnull (strstr (skipped.out, "(cuda_gpu_mem_size_sum):"));
}

/* nsys's older report names (issue 29): the same report as the current name, a note on stderr
 * naming it, and both names in --help. */
static void
test_cmd_legacy_names (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  const char *const pairs[][2] = {
    { "gputrace", "cuda_gpu_trace" }, { "gpukernsum", "cuda_gpu_kern_sum" },
    { "cudaapisum", "cuda_api_sum" }, { "gpumemtimesum", "cuda_gpu_mem_time_sum" },
    { "gpumemsizesum", "cuda_gpu_mem_size_sum" }, { "cudaapitrace", "cuda_api_trace" },
    { "nvtxsum", "nvtx_sum" }, { "osrtsum", "osrt_sum" }, { "gpusum", "cuda_gpu_sum" },
    { "nvtxppsum", "nvtx_pushpop_sum" },
  };
  g_auto (Run) help = { 0 };

  for (gsize i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      g_auto (Run) old = { 0 };
      g_auto (Run) cur = { 0 };
      run_sightline (&old, path, "--report", pairs[i][0], "--format", "csv", NULL);
      run_sightline (&cur, path, "--report", pairs[i][1], "--format", "csv", NULL);
      g_assert_cmpint (old.status, ==, 0);
      g_assert_cmpint (cur.status, ==, 0);
      g_assert_cmpstr (old.out, ==, cur.out);
      g_autofree char *note = g_strdup_printf ("the report name '%s' is deprecated; use '%s'",
                                               pairs[i][0], pairs[i][1]);
      g_assert_nonnull (strstr (old.err, note));
      g_assert_null (strstr (cur.err, "deprecated"));
      g_assert_cmpstr (sl_report_name_current (pairs[i][0]), ==, pairs[i][1]);
    }
  g_assert_null (sl_report_name_current ("cuda_gpu_trace"));
  run_sightline (&help, "--help", NULL);
  g_assert_cmpint (help.status, ==, 0);
  g_assert_nonnull (strstr (help.out, "gputrace (cuda_gpu_trace)"));
  /* every report with a line on what it is for */
  for (const char *const *n = sl_report_names (); *n != NULL; n++)
    {
      g_autofree char *line = g_strdup_printf ("\n  %-24s %s\n", *n, sl_report_name_get_purpose (*n));
      g_assert_nonnull (sl_report_name_get_purpose (*n));
      g_assert_nonnull (strstr (help.out, line));
    }
  g_assert_nonnull (strstr (help.out, "nsys export"));
}

/* An Nsight Systems report given instead of its export (issue 29): a planted FILE.nsys-rep (not
 * SQLite; what the model says of it), then `stats` with no nsys on PATH (the command to run), with
 * a fake nsys that exports by copying a real trace (FILE.sqlite made and read), and again with
 * the export in place (read, nsys not run). */
static void
test_cmd_nsys_report (void)
{
  g_autofree char *dir = g_build_filename (sl_test_tmpdir (), "nsys-report", NULL);
  g_autofree char *bin = g_build_filename (dir, "bin", NULL);
  g_autofree char *rep = g_build_filename (dir, "run 1.nsys-rep", NULL);
  g_autofree char *qd = g_build_filename (dir, "old.qdrep", NULL);
  g_autofree char *sqlite = g_build_filename (dir, "run 1.sqlite", NULL);
  g_autofree char *nsys = g_build_filename (bin, "nsys", NULL);
  g_autofree char *calls = g_build_filename (dir, "calls", NULL);
  g_autofree char *real = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autofree char *old_path = g_strdup (g_getenv ("PATH"));
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (bin, 0700), ==, 0);
  /* not a database (its first 16 bytes are not SQLite's): a binary header and a body, and a
   * short one SQLite alone would take for an empty database */
  char body[4096];
  for (gsize i = 0; i < sizeof body; i++)
    body[i] = (char) (i * 37 + 11);
  g_assert_true (g_file_set_contents (rep, body, sizeof body, &error));
  g_assert_true (g_file_set_contents (qd, "QDREP", -1, &error));
  g_assert_true (sl_nsys_report_is (rep));
  g_assert_true (sl_nsys_report_is (qd));
  g_assert_false (sl_nsys_report_is (real));
  for (const char *const *f = (const char *const[]) { rep, qd, NULL }; *f != NULL; f++)
    {
      g_autoptr (GError) load_error = NULL;
      g_autoptr (SlTrace) t = sl_trace_load (*f, SL_LOAD_ALL, NULL, NULL, NULL, &load_error);
      g_assert_null (t);
      g_assert_error (load_error, SL_TRACE_ERROR, SL_TRACE_ERROR_NSYS_REPORT);
      g_assert_nonnull (strstr (load_error->message, "Nsight Systems report"));
      g_assert_nonnull (strstr (load_error->message, "nsys export --type sqlite -o "));
      g_assert_null (strstr (load_error->message, "not a database"));
    }

  /* no nsys: the error names the command, quoted for a shell */
  g_setenv ("PATH", bin, TRUE);
  {
    g_auto (Run) run = { 0 };
    run_sightline (&run, rep, NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_autofree char *q_out = g_shell_quote (sqlite);
    g_autofree char *q_in = g_shell_quote (rep);
    g_autofree char *command = g_strdup_printf ("nsys export --type sqlite -o %s %s", q_out, q_in);
    g_assert_nonnull (strstr (run.err, command));
  }

  /* a fake nsys: `nsys export … -o OUT IN` copies a real trace to OUT and notes the call */
  g_autofree char *script = g_strdup_printf (
    "#!/bin/sh\necho \"$@\" >> '%s'\n[ \"$1\" = export ] || exit 2\nout=\n"
    "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && { out=$2; shift; }; shift; done\n"
    "cp '%s' \"$out\"\n", calls, real);
  g_assert_true (g_file_set_contents (nsys, script, -1, &error));
  g_assert_cmpint (g_chmod (nsys, 0755), ==, 0);
  g_autofree char *with_nsys = g_strdup_printf ("%s:%s", bin, old_path != NULL ? old_path : "/usr/bin:/bin");
  g_setenv ("PATH", with_nsys, TRUE);
  g_auto (Run) want = { 0 };
  run_sightline (&want, real, "--report", "cuda_gpu_kern_sum", "--format", "csv", NULL);
  for (int round = 0; round < 2; round++)
    {
      g_auto (Run) run = { 0 };
      run_sightline (&run, rep, "--report", "cuda_gpu_kern_sum", "--format", "csv", NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_cmpstr (run.out, ==, want.out);
      g_assert_true (g_file_test (sqlite, G_FILE_TEST_IS_REGULAR));
      g_assert_nonnull (strstr (run.err, round == 0 ? "exporting it: nsys export" : "reading "));
    }
  g_autofree char *log = NULL;
  g_assert_true (g_file_get_contents (calls, &log, NULL, &error));
  g_assert_nonnull (strstr (log, "export --type sqlite"));
  g_assert_null (strchr (strchr (log, '\n') + 1, '\n'));   /* once: the second run read it */
  if (old_path != NULL)
    g_setenv ("PATH", old_path, TRUE);
  else
    g_unsetenv ("PATH");
}

/* --range: every report over the events starting in [A, B) from the time 0 `sightline info`
 * prints (the session's start, 155.36 s before this file's first event), as
 * sl_report_compute_range gives it; test_oracle_range holds that to nsys's SQL. */
static void
test_cmd_range (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  SlTime t0, t1;

  g_assert_no_error (error);
  g_assert_true (sl_range_parse ("155.45s:155.65s", trace, &t0, &t1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (t0, ==, sl_trace_get_origin (trace) + G_GINT64_CONSTANT (155450000000));
  g_assert_cmpint (t1, ==, sl_trace_get_origin (trace) + G_GINT64_CONSTANT (155650000000));
  for (const char *const *n = sl_report_names (); *n != NULL; n++)
    {
      g_auto (Run) run = { 0 };
      g_autofree char *want = report_csv (trace, *n, t0, t1);
      g_autofree char *whole = report_csv (trace, *n, G_MININT64, G_MAXINT64);

      run_sightline (&run, path, "--report", *n, "--format", "csv", "--range", "155.45s:155.65s",
                     NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_cmpstr (run.out, ==, want);
      if (strcmp (*n, "cuda_gpu_trace") == 0)
        g_assert_cmpstr (run.out, !=, whole);
    }
}

static void
test_cmd_range_errors (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  const char *bad[][2] = {
    { "2s:1s", "reversed" },
    { "10s:20s", "outside" },   /* before the first event, at 155.36 s */
    { "100ms:0.3s", "outside" },
    { "garbage", "not a range" },
    { "1x:2s", "not a time" },
    { "500ms:500ms", "empty" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_auto (Run) run = { 0 };

      run_sightline (&run, path, "--report", "cuda_gpu_kern_sum", "--range", bad[i][0], NULL);
      g_assert_cmpint (run.status, !=, 0);
      g_assert_cmpstr (run.out, ==, "");
      g_assert_nonnull (strstr (run.err, path));
      g_assert_nonnull (strstr (run.err, bad[i][1]));
    }
}

/* --range takes the times a person reads: offsets from the time 0 that `sightline info` prints
 * (and the viewer's ruler and detail pane count from), an nsys export's session start, not its
 * first event (155.36 s and 1.32 s later in these files).  A range between two GPU operations'
 * displayed starts keeps exactly the GPU work whose displayed start lies in it, by the file's
 * SQL and row by row. */
static void
test_cmd_range_origin (void)
{
  const char *files[] = { "nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite",
                          "nsys/nsys-2025.5-cuda-events.sqlite" };

  for (gsize f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = sl_test_trace_path (files[f]);
      g_auto (SlTestRun) info = { 0 };
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_autoptr (GError) error = NULL;

      sl_test_run (&info, SL_SIGHTLINE_BIN, "info", path, "--format", "json", NULL);
      g_assert_cmpint (info.status, ==, 0);
      g_assert_true (json_parser_load_from_data (parser, info.out, -1, &error));
      g_assert_no_error (error);
      JsonObject *span = json_object_get_object_member (
        json_node_get_object (json_parser_get_root (parser)), "span");
      gint64 origin = json_object_get_int_member (span, "origin_ns");
      gint64 first = json_object_get_int_member (span, "start_ns");
      g_assert_cmpint (first - origin, >, G_GINT64_CONSTANT (1000000000));

      /* from the 100th GPU operation's displayed start to the 600th's */
      sqlite3 *db = sl_test_open_db (path);
      const char *gpu = "SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL "
                        "UNION ALL SELECT start FROM CUPTI_ACTIVITY_KIND_MEMCPY "
                        "UNION ALL SELECT start FROM CUPTI_ACTIVITY_KIND_MEMSET";
      g_autofree char *q0 = g_strdup_printf ("SELECT start FROM (%s) ORDER BY start LIMIT 1 "
                                             "OFFSET 100", gpu);
      g_autofree char *q1 = g_strdup_printf ("SELECT start FROM (%s) ORDER BY start LIMIT 1 "
                                             "OFFSET 600", gpu);
      gint64 x = sl_test_sql_int (db, q0) - origin, y = sl_test_sql_int (db, q1) - origin;
      g_assert_cmpint (x, <, y);
      g_autofree char *count = g_strdup_printf ("SELECT COUNT(*) FROM (%s) WHERE start - %"
                                                G_GINT64_FORMAT " >= %" G_GINT64_FORMAT
                                                " AND start - %" G_GINT64_FORMAT " < %"
                                                G_GINT64_FORMAT, gpu, origin, x, origin, y);
      gint64 want = sl_test_sql_int (db, count);
      sqlite3_close (db);
      g_assert_cmpint (want, >=, 500);

      g_autofree char *range = g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, x, y);
      g_auto (Run) run = { 0 };
      run_sightline (&run, path, "--report", "cuda_gpu_trace", "--format", "csv", "--range", range,
                     NULL);
      g_test_message ("%s: time 0 at %" G_GINT64_FORMAT ", --range %s: %s", files[f], origin,
                      range, run.err);
      g_assert_cmpint (run.status, ==, 0);
      g_auto (GStrv) lines = g_strsplit (run.out, "\n", -1);
      gint64 rows = 0;
      g_assert_true (g_str_has_prefix (lines[0], "Start (ns),"));
      for (char **l = lines + 1; *l != NULL && **l != '\0'; l++, rows++)
        {
          /* the first column is the file's start time */
          gint64 at = g_ascii_strtoll (*l, NULL, 10) - origin;
          g_assert_cmpint (at, >=, x);
          g_assert_cmpint (at, <, y);
        }
      g_assert_cmpint (rows, ==, want);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Planted and generated traces                                                              */

/* The reports that follow a launch to its GPU work or an NVTX range to the GPU */
static const char *const launch_reports[] = {
  "cuda_api_trace", "cuda_kern_exec_sum", "cuda_kern_exec_trace", "nvtx_gpu_proj_sum",
  "nvtx_gpu_proj_trace", "nvtx_kern_sum",
};

/*
 * The main thread, in µs: push/pop "step" [0, 100] around "fwd" [10, 50]; k_early launched at
 * [12, 17] runs [15, 30] on stream 7 (before its launch returned: no queue delay); k_mid
 * launched at [20, 25] runs [40, 60] on stream 9; k_late launched at [60, 65] (in "step" only)
 * runs [70, 90]; k_free launched at [120, 125], in no range, runs [130, 140]; a start/end range
 * "io" [0, 200] on a loader thread launches nothing.  The main thread's priority is 7.
 */
static char *
write_planted_launches (void)
{
  char *path = g_build_filename (sl_test_tmpdir (), "launches.sqlite", NULL);
  Plant *p = plant_new (path);
  const gint64 us = PLANT_US;

  gint64 c1 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 12 * us, 17 * us);
  plant_kernel (p, "k_early", &plant_config_full, 15 * us, 30 * us, c1);
  gint64 c2 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 20 * us, 25 * us);
  plant_kernel (p, "k_mid", &plant_config_full, 40 * us, 60 * us, c2);
  gint64 c3 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 60 * us, 65 * us);
  plant_kernel (p, "k_late", &plant_config_full, 70 * us, 90 * us, c3);
  gint64 c4 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 120 * us, 125 * us);
  plant_kernel (p, "k_free", &plant_config_full, 130 * us, 140 * us, c4);
  plant_finish (p);
  g_autofree char *move = g_strdup_printf ("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = 9 "
                                           "WHERE correlationId = %" G_GINT64_FORMAT, c2);
  plant_sql (path, move);
  plant_nvtx (path, PLANT_MAIN, 59, "step", 0, 100 * us);
  plant_nvtx (path, PLANT_MAIN, 59, "fwd", 10 * us, 50 * us);
  plant_nvtx (path, PLANT_LOADER_0, 60, "io", 0, 200 * us);
  plant_sql (path, "UPDATE ThreadNames SET priority = 7 WHERE nameId = "
                   "(SELECT id FROM StringIds WHERE value = 'python3')");
  return path;
}

static const SlCell *
cell (SlReport   *r,
      gsize       row,
      const char *column)
{
  gint c = sl_report_find_column (r, column);

  g_assert_cmpint (c, >=, 0);
  return sl_report_get_cell (r, row, (guint) c);
}

static gsize
find_row (SlReport   *r,
          const char *column,
          const char *text)
{
  for (gsize i = 0; i < sl_report_get_n_rows (r); i++)
    {
      const SlCell *c = cell (r, i, column);
      if (c->type == SL_CELL_TEXT && strcmp (c->v.s, text) == 0)
        return i;
    }
  g_error ("no row with %s = %s", column, text);
}

static void
assert_int_cell (SlReport   *r,
                 gsize       row,
                 const char *column,
                 gint64      want)
{
  const SlCell *c = cell (r, row, column);

  g_assert_cmpint (c->type, ==, SL_CELL_INT);
  g_assert_cmpint (c->v.i, ==, want);
}

/* A kernel that starts before its launch call returned has no queue time: NULL, never negative
 * (cuda_kern_exec_trace), and a group of only such launches has QCount 0 and every queue
 * statistic, QStdDev included, NULL (cuda_kern_exec_sum); both against the oracle too. */
static void
test_planted_queue (void)
{
  g_autofree char *path = write_planted_launches ();
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlReport) sum = sl_report_compute (trace, "cuda_kern_exec_sum", &error);
  g_assert_no_error (error);
  g_autoptr (SlReport) trc = sl_report_compute (trace, "cuda_kern_exec_trace", &error);
  g_assert_no_error (error);

  gsize early = find_row (sum, "Kernel Name", "k_early");
  assert_int_cell (sum, early, "Count", 1);
  assert_int_cell (sum, early, "QCount", 0);
  for (const char *const *q = (const char *const[]) { "QAvg (ns)", "QMed (ns)", "QMin (ns)", "QMax (ns)",
                                                       "QStdDev (ns)", NULL }; *q != NULL; q++)
    g_assert_cmpint (cell (sum, early, *q)->type, ==, SL_CELL_NULL);
  gsize mid = find_row (sum, "Kernel Name", "k_mid");
  assert_int_cell (sum, mid, "QCount", 1);
  assert_int_cell (sum, mid, "QMin (ns)", 15 * PLANT_US);
  g_assert_cmpint (cell (sum, mid, "QStdDev (ns)")->type, ==, SL_CELL_DOUBLE);

  /* cuda_api_trace's T-Pri is the calling thread's ThreadNames.priority */
  g_autoptr (SlReport) api = sl_report_compute (trace, "cuda_api_trace", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_report_get_n_rows (api), ==, 4);
  for (gsize i = 0; i < sl_report_get_n_rows (api); i++)
    assert_int_cell (api, i, "T-Pri", 7);

  early = find_row (trc, "Kernel Name", "k_early");
  g_assert_cmpint (cell (trc, early, "Queue Start (ns)")->type, ==, SL_CELL_NULL);
  g_assert_cmpint (cell (trc, early, "Queue Dur (ns)")->type, ==, SL_CELL_NULL);
  assert_int_cell (trc, early, "Total Dur (ns)", 18 * PLANT_US);
  assert_int_cell (trc, find_row (trc, "Kernel Name", "k_mid"), "Queue Dur (ns)", 15 * PLANT_US);

  sqlite3 *db = oracle_open (path);
  for (gsize i = 0; i < G_N_ELEMENTS (launch_reports); i++)
    g_assert_cmpuint (compare_report (path, db, trace, launch_reports[i], G_MININT64, G_MAXINT64), >, 0);
  sqlite3_close (db);
}

/* A start/end range that ends on another thread (endGlobalTid) is not projected, as nsys's
 * scripts take only ranges that start and end on one thread; one whose endGlobalTid is its own
 * thread is.  Both against the SQL oracle. */
static void
test_planted_other_thread (void)
{
  g_autofree char *path = write_planted_launches ();
  const gint64 us = PLANT_US;
  g_autofree char *insert = g_strdup_printf (
    "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, endGlobalTid, domainId) "
    "VALUES (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 60, 'handoff', %" G_GINT64_FORMAT ", %"
    G_GINT64_FORMAT ", 0), (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 60, 'own', %"
    G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 0)",
    5 * us, 130 * us, (gint64) SL_GLOBAL_TID (1, 100, PLANT_MAIN),
    (gint64) SL_GLOBAL_TID (1, 100, PLANT_LOADER_1), 110 * us, 128 * us,
    (gint64) SL_GLOBAL_TID (1, 100, PLANT_MAIN), (gint64) SL_GLOBAL_TID (1, 100, PLANT_MAIN));
  plant_sql (path, insert);
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  /* the range is loaded, on the thread it started on, marked */
  guint marked = 0;
  for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
    {
      const SlLane *lane = sl_trace_get_lane (trace, i);
      for (gsize k = 0; lane->kind == SL_LANE_NVTX && k < lane->n_events; k++)
        if (lane->events[k].link & SL_NVTX_OTHER_THREAD)
          {
            g_assert_cmpstr (sl_trace_str (trace, lane->events[k].name), ==, "handoff");
            g_assert_cmpuint (sl_trace_get_thread (trace, lane->thread)->tid, ==, PLANT_MAIN);
            marked++;
          }
    }
  g_assert_cmpuint (marked, ==, 1);

  g_autoptr (SlReport) r = sl_report_compute (trace, "nvtx_gpu_proj_trace", &error);
  g_assert_no_error (error);
  gboolean own = FALSE;
  for (gsize i = 0; i < sl_report_get_n_rows (r); i++)
    {
      const char *name = cell (r, i, "Name")->v.s;
      g_assert_cmpstr (name, !=, ":handoff");
      own |= strcmp (name, ":own") == 0;
    }
  g_assert_true (own);   /* k_free, launched at [120, 125] */
  g_autoptr (SlReport) k = sl_report_compute (trace, "nvtx_kern_sum", &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < sl_report_get_n_rows (k); i++)
    g_assert_true (cell (k, i, "NVTX Range")->type == SL_CELL_NULL
                   || strcmp (cell (k, i, "NVTX Range")->v.s, "handoff") != 0);

  sqlite3 *db = oracle_open (path);
  for (gsize i = 0; i < G_N_ELEMENTS (launch_reports); i++)
    g_assert_cmpuint (compare_report (path, db, trace, launch_reports[i], G_MININT64, G_MAXINT64), >, 0);
  sqlite3_close (db);
}

/* The projection of the planted ranges: by range (nsys stats), by stream, through the report */
static void
test_planted_projection (void)
{
  g_autofree char *path = write_planted_launches ();
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlNvtxProj) proj = sl_nvtx_proj_new (trace);
  g_autoptr (GArray) rows = sl_nvtx_proj_compute (proj, SL_NVTX_PROJ_BY_RANGE);
  const gint64 us = PLANT_US;

  /* "step" over k_early … k_late, then "fwd" (same start, earlier end) over k_early, k_mid */
  g_assert_cmpuint (rows->len, ==, 2);
  const SlNvtxProjRow *step = &g_array_index (rows, SlNvtxProjRow, 0);
  const SlNvtxProjRow *fwd = &g_array_index (rows, SlNvtxProjRow, 1);
  const SlLane *step_lane = sl_trace_get_lane (trace, step->range.lane);
  g_assert_cmpstr (sl_trace_str (trace, step_lane->events[step->range.index].name), ==, "step");
  g_assert_cmpint (step->start, ==, 15 * us);
  g_assert_cmpint (step->end, ==, 90 * us);
  g_assert_cmpuint (step->n_ops, ==, 3);
  g_assert_cmpuint (step->n_calls, ==, 3);
  g_assert_cmpuint (step->level, ==, 0);
  g_assert_cmpuint (step->n_children, ==, 1);
  g_assert_cmpint (step->gpu, ==, -1);
  g_assert_cmpint (fwd->start, ==, 15 * us);
  g_assert_cmpint (fwd->end, ==, 60 * us);
  g_assert_cmpuint (fwd->n_ops, ==, 2);
  g_assert_cmpuint (fwd->level, ==, 1);
  g_assert_cmpuint (fwd->n_children, ==, 0);
  SlEventRef parent;
  g_assert_true (sl_nvtx_proj_get_parent (proj, fwd->range, &parent));
  g_assert_cmpint (parent.lane, ==, step->range.lane);
  g_assert_cmpuint (parent.index, ==, step->range.index);
  g_assert_false (sl_nvtx_proj_get_parent (proj, step->range, NULL));

  /* by stream: stream 7 has step [15, 90] (k_early, k_late) and fwd [15, 30]; stream 9 has
   * both over k_mid [40, 60], the parent first */
  g_autoptr (GArray) streams = sl_nvtx_proj_compute (proj, SL_NVTX_PROJ_BY_STREAM);
  g_assert_cmpuint (streams->len, ==, 4);
  const struct { guint32 stream; gint64 start, end; guint n_ops, level; } want[] = {
    { 7, 15, 90, 2, 0 }, { 7, 15, 30, 1, 1 }, { 9, 40, 60, 1, 0 }, { 9, 40, 60, 1, 1 },
  };
  for (guint i = 0; i < streams->len; i++)
    {
      const SlNvtxProjRow *row = &g_array_index (streams, SlNvtxProjRow, i);
      g_assert_cmpint (row->gpu, ==, 0);
      g_assert_cmpuint (row->stream_id, ==, want[i].stream);
      g_assert_cmpint (row->start, ==, want[i].start * us);
      g_assert_cmpint (row->end, ==, want[i].end * us);
      g_assert_cmpuint (row->n_ops, ==, want[i].n_ops);
      g_assert_cmpuint (row->level, ==, want[i].level);
    }
  /* tracks: each stream's "step" on track 0, its "fwd" on track 1 */
  guint32 track[4], tracks[4];
  sl_nvtx_proj_assign_tracks (streams, track, tracks);
  for (guint i = 0; i < 4; i++)
    {
      g_assert_cmpuint (track[i], ==, want[i].level);
      g_assert_cmpuint (tracks[i], ==, 2);
    }
  /* overlapping projections of one level take another track; the next level comes after */
  const SlNvtxProjRow overlap[] = {
    { .gpu = 0, .stream_id = 7, .start = 0, .end = 10, .level = 0 },
    { .gpu = 0, .stream_id = 7, .start = 5, .end = 15, .level = 0 },
    { .gpu = 0, .stream_id = 7, .start = 6, .end = 8, .level = 1 },
    { .gpu = 0, .stream_id = 7, .start = 12, .end = 20, .level = 0 },
    { .gpu = 0, .stream_id = 9, .start = 12, .end = 20, .level = 0 },
  };
  const guint32 want_track[] = { 0, 1, 2, 0, 0 }, want_tracks[] = { 3, 3, 3, 3, 1 };
  g_autoptr (GArray) made = g_array_new (FALSE, FALSE, sizeof (SlNvtxProjRow));
  g_array_append_vals (made, overlap, G_N_ELEMENTS (overlap));
  guint32 made_track[G_N_ELEMENTS (overlap)], made_tracks[G_N_ELEMENTS (overlap)];
  sl_nvtx_proj_assign_tracks (made, made_track, made_tracks);
  for (guint i = 0; i < G_N_ELEMENTS (overlap); i++)
    {
      g_assert_cmpuint (made_track[i], ==, want_track[i]);
      g_assert_cmpuint (made_tracks[i], ==, want_tracks[i]);
    }

  g_autoptr (GArray) gpus = sl_nvtx_proj_compute (proj, SL_NVTX_PROJ_BY_GPU);
  g_assert_cmpuint (gpus->len, ==, 2);
  g_assert_cmpint (g_array_index (gpus, SlNvtxProjRow, 0).end, ==, 90 * us);

  /* the report: ":step" (default domain), then ":fwd"; k_free is in no range */
  g_autoptr (SlReport) r = sl_report_compute (trace, "nvtx_gpu_proj_trace", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_report_get_n_rows (r), ==, 2);
  g_assert_cmpstr (cell (r, 0, "Name")->v.s, ==, ":step");
  assert_int_cell (r, 0, "Projected Duration (ns)", 75 * us);
  assert_int_cell (r, 0, "Orig Duration (ns)", 100 * us);
  assert_int_cell (r, 0, "NumGPUOps", 3);
  assert_int_cell (r, 0, "NumChild", 1);
  assert_int_cell (r, 1, "Lvl", 1);
  g_assert_cmpint (cell (r, 0, "ParentId")->type, ==, SL_CELL_NULL);
  assert_int_cell (r, 1, "ParentId", cell (r, 0, "RangeId")->v.i);
  g_autofree char *stack = g_strdup_printf (":%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                                            cell (r, 0, "RangeId")->v.i, cell (r, 1, "RangeId")->v.i);
  g_assert_cmpstr (cell (r, 1, "RangeStack")->v.s, ==, stack);
  /* --range keeps the rows whose projection starts in it: none from 16 µs */
  g_autoptr (SlReport) late = sl_report_compute_range (trace, "nvtx_gpu_proj_trace", 16 * us, G_MAXINT64,
                                                       &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_report_get_n_rows (late), ==, 0);

  g_autoptr (SlReport) kern = sl_report_compute (trace, "nvtx_kern_sum", &error);
  g_assert_no_error (error);
  /* NULL range first (k_free), then "fwd" (k_early, k_mid), then "step" (three kernels) */
  g_assert_cmpuint (sl_report_get_n_rows (kern), ==, 6);
  g_assert_cmpint (cell (kern, 0, "NVTX Range")->type, ==, SL_CELL_NULL);
  g_assert_cmpstr (cell (kern, 0, "Kernel Name")->v.s, ==, "k_free");
  assert_int_cell (kern, 0, "NVTX Inst", 0);
  g_assert_cmpstr (cell (kern, 1, "NVTX Range")->v.s, ==, "fwd");
  g_assert_cmpstr (cell (kern, 3, "NVTX Range")->v.s, ==, "step");
}

/* nvtx_gpu_proj_trace's RangeId, ParentId and RangeStack are NVTX_EVENTS rowids, as nsys's
 * script gives them, where the rows are not in time order (nsys writes a range when it ends, so
 * a child's row comes before its parent's; rowids may also skip): issue 29.  The model sorts its
 * lanes by time and splits them by depth, so a range's place there is not its row. */
static void
test_planted_rowids (void)
{
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "rowids.sqlite", NULL);
  Plant *p = plant_new (path);
  const gint64 us = PLANT_US;
  const gint64 main_tid = (gint64) SL_GLOBAL_TID (1, 100, PLANT_MAIN);

  gint64 c1 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 12 * us, 17 * us);
  plant_kernel (p, "k_early", &plant_config_full, 15 * us, 30 * us, c1);
  gint64 c2 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 20 * us, 25 * us);
  plant_kernel (p, "k_mid", &plant_config_full, 40 * us, 60 * us, c2);
  gint64 c3 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 60 * us, 65 * us);
  plant_kernel (p, "k_late", &plant_config_full, 70 * us, 90 * us, c3);
  gint64 c4 = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", 120 * us, 125 * us);
  plant_kernel (p, "k_free", &plant_config_full, 130 * us, 140 * us, c4);
  plant_finish (p);
  /* rows by rowid: inner [18, 30] in fwd [10, 50] in step [0, 100], as they end; then early
   * [115, 130] (rowid 20) inside tail [110, 140] (rowid 40), a mark between them */
  const struct { gint rowid; const char *text; gint64 start, end; gint type; } rows[] = {
    { 1, "inner", 18, 30, 59 }, { 2, "fwd", 10, 50, 59 }, { 3, "step", 0, 100, 59 },
    { 7, "mark", 112, -1, 34 }, { 20, "early", 115, 130, 60 }, { 40, "tail", 110, 140, 59 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *end = rows[i].end < 0 ? g_strdup ("NULL")
                                             : g_strdup_printf ("%" G_GINT64_FORMAT, rows[i].end * us);
      g_autofree char *insert = g_strdup_printf (
        "INSERT INTO NVTX_EVENTS (rowid, start, end, eventType, text, globalTid, domainId) "
        "VALUES (%d, %" G_GINT64_FORMAT ", %s, %d, '%s', %" G_GINT64_FORMAT ", 0)",
        rows[i].rowid, rows[i].start * us, end, rows[i].type, rows[i].text, main_tid);
      plant_sql (path, insert);
    }

  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlReport) r = sl_report_compute (trace, "nvtx_gpu_proj_trace", &error);
  g_assert_no_error (error);
  const struct { const char *name; gint64 id, parent; const char *stack; } want[] = {
    { ":step", 3, -1, ":3" }, { ":fwd", 2, 3, ":3:2" }, { ":inner", 1, 2, ":3:2:1" },
    { ":tail", 40, -1, ":40" }, { ":early", 20, 40, ":40:20" },
  };
  g_assert_cmpuint (sl_report_get_n_rows (r), ==, G_N_ELEMENTS (want));
  for (gsize i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_assert_cmpstr (cell (r, i, "Name")->v.s, ==, want[i].name);
      assert_int_cell (r, i, "RangeId", want[i].id);
      if (want[i].parent < 0)
        g_assert_cmpint (cell (r, i, "ParentId")->type, ==, SL_CELL_NULL);
      else
        assert_int_cell (r, i, "ParentId", want[i].parent);
      g_assert_cmpstr (cell (r, i, "RangeStack")->v.s, ==, want[i].stack);
    }
  /* and the report's SQL, every column */
  sqlite3 *db = oracle_open (path);
  g_assert_cmpuint (compare_report (path, db, trace, "nvtx_gpu_proj_trace", G_MININT64, G_MAXINT64),
                    ==, G_N_ELEMENTS (want));
  sqlite3_close (db);
}

/*
 * The NVTX range reports and syscall_sum on a planted trace (no real trace has start/end ranges
 * or a SYSCALL table): write_planted_launches' ranges, then on the main thread push/pop "inner"
 * [20, 30] µs in "fwd", two identical "dup" [60, 80] and "leaf" [65, 70] in them, start/end
 * "io" [300, 340]; on the loader a domain "dom" (id 5) and its start/end "load" [210, 260]; a
 * SYSCALL table by the documented schema: read ×3, write ×2, a row of another event class and
 * one whose name id has no string.  Against the oracle whole and over ranges, and what the
 * planting fixes: "inner" is at level 2 under "fwd", "leaf" under the second "dup".
 */
static const char *const range_reports[] = {
  "nvtx_sum", "nvtx_pushpop_sum", "nvtx_startend_sum", "nvtx_pushpop_trace", "syscall_sum",
};

static void
test_planted_ranges_syscalls (void)
{
  g_autofree char *path = write_planted_launches ();
  const gint64 us = PLANT_US;
  gint64 loader = (gint64) SL_GLOBAL_TID (1, 100, PLANT_LOADER_0);

  plant_nvtx (path, PLANT_MAIN, 59, "inner", 20 * us, 30 * us);
  plant_nvtx (path, PLANT_MAIN, 59, "dup", 60 * us, 80 * us);
  plant_nvtx (path, PLANT_MAIN, 59, "dup", 60 * us, 80 * us);
  plant_nvtx (path, PLANT_MAIN, 59, "leaf", 65 * us, 70 * us);
  plant_nvtx (path, PLANT_MAIN, 60, "io", 300 * us, 340 * us);
  g_autofree char *dom = g_strdup_printf (
      "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES "
      "(0, NULL, 75, 'dom', %" G_GINT64_FORMAT ", 5), (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
      ", 60, 'load', %" G_GINT64_FORMAT ", 5)", loader, 210 * us, 260 * us, loader);
  plant_sql (path, dom);
  g_autofree char *sys = g_strdup_printf (
      "CREATE TABLE SYSCALL (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, "
      "globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, nestingLevel INTEGER, "
      "callchainId INTEGER); "
      "INSERT INTO StringIds (id, value) VALUES (90001, 'read'), (90002, 'write'); "
      "INSERT INTO SYSCALL VALUES (%1$" G_GINT64_FORMAT ", %1$" G_GINT64_FORMAT " + 4000, 107, %2$" G_GINT64_FORMAT
      ", 90001, 0, 0, 0), (%1$" G_GINT64_FORMAT " + 50000, %1$" G_GINT64_FORMAT " + 51000, 107, %2$" G_GINT64_FORMAT
      ", 90001, 0, 0, 0), (%1$" G_GINT64_FORMAT " + 150000, %1$" G_GINT64_FORMAT " + 159000, 107, %2$" G_GINT64_FORMAT
      ", 90001, 0, 0, 0), (%1$" G_GINT64_FORMAT " + 10000, %1$" G_GINT64_FORMAT " + 13000, 107, %2$" G_GINT64_FORMAT
      ", 90002, 0, 0, 0), (%1$" G_GINT64_FORMAT " + 90000, %1$" G_GINT64_FORMAT " + 91000, 107, %2$" G_GINT64_FORMAT
      ", 90002, 0, 0, 0), (%1$" G_GINT64_FORMAT " + 20000, %1$" G_GINT64_FORMAT " + 90000, 27, %2$" G_GINT64_FORMAT
      ", 90002, 0, 0, 0), (%1$" G_GINT64_FORMAT " + 30000, %1$" G_GINT64_FORMAT " + 32000, 107, %2$" G_GINT64_FORMAT
      ", 99999, 0, 0, 0)", (gint64) 0, loader);
  plant_sql (path, sys);

  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  SlTime s = sl_trace_get_start (trace), e = sl_trace_get_end (trace), d = e - s;
  const SlTime ranges[][2] = {
    { s + d / 3, s + 2 * d / 3 }, { s, s + d / 4 }, { 55 * us, 66 * us }, { e + 1, e + 2 },
  };
  sqlite3 *db = oracle_open (path);
  for (gsize i = 0; i < G_N_ELEMENTS (range_reports); i++)
    {
      gsize whole = compare_report (path, db, trace, range_reports[i], G_MININT64, G_MAXINT64);
      g_assert_cmpuint (whole, >, 0);
      for (gsize k = 0; k < G_N_ELEMENTS (ranges); k++)
        {
          range_views_create (db, ranges[k][0], ranges[k][1]);
          gsize part = compare_report (path, db, trace, range_reports[i], ranges[k][0], ranges[k][1]);
          range_views_drop (db);
          g_assert_cmpuint (part, <=, whole);
        }
    }
  sqlite3_close (db);

  g_autoptr (SlReport) sum = sl_report_compute (trace, "syscall_sum", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_report_get_n_rows (sum), ==, 3);
  assert_int_cell (sum, find_row (sum, "Name", "read"), "Num Calls", 3);
  assert_int_cell (sum, find_row (sum, "Name", "write"), "Num Calls", 2);
  g_autoptr (SlReport) se = sl_report_compute (trace, "nvtx_startend_sum", &error);
  g_assert_no_error (error);
  assert_int_cell (se, find_row (se, "Range", "dom:load"), "Instances", 1);
  assert_int_cell (se, find_row (se, "Range", "io"), "Instances", 2);
  g_autoptr (SlReport) tr = sl_report_compute (trace, "nvtx_pushpop_trace", &error);
  g_assert_no_error (error);
  gsize inner = find_row (tr, "Name", "inner"), fwd = find_row (tr, "Name", "fwd");
  assert_int_cell (tr, inner, "Lvl", 2);
  assert_int_cell (tr, inner, "ParentId", cell (tr, fwd, "RangeId")->v.i);
  assert_int_cell (tr, fwd, "NumChild", 1);
  assert_int_cell (tr, fwd, "DurChild (ns)", 10 * us);
  g_assert_cmpstr (cell (tr, inner, "NameTree")->v.s, ==, "----inner");
  gsize leaf = find_row (tr, "Name", "leaf");
  g_assert_cmpint (cell (tr, leaf, "Lvl")->v.i, ==, 3);
  /* a trace without a SYSCALL table has no syscall data */
  g_autofree char *other = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autoptr (SlTrace) tiny = sl_trace_load (other, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlReport) none = sl_report_compute (tiny, "syscall_sum", &error);
  g_assert_null (none);
  g_assert_error (error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
  g_assert_nonnull (strstr (error->message, "syscall data"));
}

/* Every launch report against the oracle on a generated trace (2 GPUs, 3 streams each), over
 * the whole trace and a middle third. */
static void
test_generated (void)
{
#ifdef SL_GEN_PATH
  g_autofree char *path = g_build_filename (sl_test_tmpdir (), "gen-launches.sqlite", NULL);
  const char *argv[] = { SL_GEN_PATH, "-o", path, "-n", "60k", "-g", "2", "-k", "3", "--force", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                               &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  SlTime s = sl_trace_get_start (trace), e = sl_trace_get_end (trace), d = e - s;
  /* tracks for drawing by stream: rows of one track never overlap, deeper levels below */
  g_autoptr (SlNvtxProj) proj = sl_nvtx_proj_new (trace);
  g_autoptr (GArray) rows = sl_nvtx_proj_compute (proj, SL_NVTX_PROJ_BY_STREAM);
  g_autofree guint32 *track = g_new (guint32, rows->len), *tracks = g_new (guint32, rows->len);
  g_autoptr (GHashTable) last_end = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr (GHashTable) level_of = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  guint overlaps_avoided = 0;
  g_assert_cmpuint (rows->len, >, 0);
  sl_nvtx_proj_assign_tracks (rows, track, tracks);
  for (guint i = 0; i < rows->len; i++)
    {
      const SlNvtxProjRow *row = &g_array_index (rows, SlNvtxProjRow, i);
      gint64 key = ((gint64) row->gpu << 40) | ((gint64) row->stream_id << 16) | track[i];
      SlTime *end = g_hash_table_lookup (last_end, &key);
      guint *level = g_hash_table_lookup (level_of, &key);
      g_assert_cmpuint (track[i], <, tracks[i]);
      if (end != NULL)
        {
          g_assert_cmpint (*end, <=, row->start);
          g_assert_cmpuint (*level, ==, row->level);
          *end = row->end;
        }
      else
        {
          g_hash_table_insert (last_end, g_memdup2 (&key, sizeof key), g_memdup2 (&row->end, sizeof row->end));
          g_hash_table_insert (level_of, g_memdup2 (&key, sizeof key), g_memdup2 (&row->level, sizeof row->level));
        }
      if (track[i] > row->level)
        overlaps_avoided++;
    }
  g_test_message ("%u rows by stream, %u on an extra track of their level", rows->len, overlaps_avoided);

  sqlite3 *db = oracle_open (path);
  for (gsize i = 0; i < G_N_ELEMENTS (launch_reports); i++)
    {
      gsize whole = compare_report (path, db, trace, launch_reports[i], G_MININT64, G_MAXINT64);
      range_views_create (db, s + d / 3, s + 2 * d / 3);
      gsize part = compare_report (path, db, trace, launch_reports[i], s + d / 3, s + 2 * d / 3);
      range_views_drop (db);
      g_test_message ("%s: %" G_GSIZE_FORMAT " rows, %" G_GSIZE_FORMAT " in the middle third",
                      launch_reports[i], whole, part);
      g_assert_cmpuint (whole, >, 0);
      g_assert_cmpuint (part, >, 0);
      g_assert_cmpuint (part, <=, whole);
    }
  sqlite3_close (db);
#else
  g_test_skip ("sightline-gen is not built");
#endif
}

/* The GPU summaries (issue 30) on generated traces without graphs and with them (sightline-gen
 * --graphs graph|node): against the oracle, whole and in the middle third.  nsys's SQL reads no
 * CUPTI_ACTIVITY_KIND_GRAPH_TRACE: in graph mode the graph launches the model loads are in no
 * row (the kernels' Instances are the KERNEL table's rows) and their cudaGraphLaunch calls are;
 * in node mode the graphs' kernels are kernels like any. */
static const char *const gpu_sum_reports[] = {
  "cuda_gpu_sum", "cuda_api_gpu_sum", "cuda_gpu_kern_gb_sum", "cuda_gpu_kern_sum",
};

static gint64
category_instances (SlReport   *r,
                    const char *category)
{
  gint64 n = 0;

  for (gsize i = 0; i < sl_report_get_n_rows (r); i++)
    {
      const SlCell *c = cell (r, i, "Category");
      g_assert_cmpint (c->type, ==, SL_CELL_TEXT);
      if (strcmp (c->v.s, category) != 0)
        continue;
      const SlCell *count = cell (r, i, "Instances");
      g_assert_cmpint (count->type, ==, SL_CELL_INT);
      n += count->v.i;
    }
  return n;
}

static void
test_generated_graphs (void)
{
#ifdef SL_GEN_PATH
  const char *modes[] = { "none", "graph", "node" };

  for (gsize m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autofree char *name = g_strdup_printf ("gen-graphs-%s.sqlite", modes[m]);
      g_autofree char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
      g_auto (SlTestRun) run = { 0 };
      g_autoptr (GError) error = NULL;

      if (m == 0)
        sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "20000", "--gpus", "2", "--force", NULL);
      else
        sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "20000", "--gpus", "2", "--graphs",
                     modes[m], "--force", NULL);
      g_assert_cmpint (run.status, ==, 0);
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      SlTime s = sl_trace_get_start (trace), e = sl_trace_get_end (trace), d = e - s;
      sqlite3 *db = oracle_open (path);
      g_autoptr (GString) counts = g_string_new (NULL);

      for (gsize i = 0; i < G_N_ELEMENTS (gpu_sum_reports); i++)
        {
          const char *report = gpu_sum_reports[i];
          gsize whole = compare_report (path, db, trace, report, G_MININT64, G_MAXINT64);
          range_views_create (db, s + d / 3, s + 2 * d / 3);
          gsize part = compare_report (path, db, trace, report, s + d / 3, s + 2 * d / 3);
          range_views_drop (db);
          g_assert_cmpuint (whole, >, 0);
          g_assert_cmpuint (part, >, 0);
          g_string_append_printf (counts, " %s=%" G_GSIZE_FORMAT "/%" G_GSIZE_FORMAT, report,
                                  whole, part);
        }

      /* graph launches: loaded (graph mode), yet in no row */
      gsize graph_events = 0;
      for (guint i = 0; i < sl_trace_get_n_lanes (trace); i++)
        if (sl_trace_get_lane (trace, i)->kind == SL_LANE_GRAPHS)
          graph_events += sl_trace_get_lane (trace, i)->n_events;
      gint64 graph_rows = m == 1 ? sl_test_sql_int (db, "SELECT count(*) FROM "
                                                        "CUPTI_ACTIVITY_KIND_GRAPH_TRACE") : 0;
      g_assert_cmpint ((gint64) graph_events, ==, graph_rows);
      if (m == 1)
        g_assert_cmpint (graph_rows, >, 0);
      g_autoptr (SlReport) gpu = sl_report_compute (trace, "cuda_gpu_sum", &error);
      g_assert_no_error (error);
      g_autoptr (SlReport) api = sl_report_compute (trace, "cuda_api_gpu_sum", &error);
      g_assert_no_error (error);
      gint64 kernels = sl_test_sql_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
      g_assert_cmpint (category_instances (gpu, "CUDA_KERNEL"), ==, kernels);
      g_assert_cmpint (category_instances (api, "CUDA_KERNEL"), ==, kernels);
      g_assert_cmpint (category_instances (api, "CUDA_API"), ==,
                       sl_test_sql_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
      if (m > 0)
        {
          /* "_v10000" is not the "_vNNNN" that nsys drops: the name stays whole */
          gsize row = find_row (api, "Operation", "cudaGraphLaunch_v10000");
          g_assert_cmpstr (cell (api, row, "Category")->v.s, ==, "CUDA_API");
        }
      sqlite3_close (db);
      g_test_message ("%s: %" G_GINT64_FORMAT " kernels, %" G_GSIZE_FORMAT " graph launches:%s",
                      modes[m], kernels, graph_events, counts->str);
    }
#else
  g_test_skip ("sightline-gen is not built");
#endif
}

typedef struct
{
  gint64 count;
  gint64 total;
} NameSum;

/* The unified-memory reports (um_sum, um_total_sum, um_cpu_page_faults_sum) against the oracle
 * on traces that have the page-fault tables: generated ones (sightline-gen --um-faults, whole
 * and in the middle third), which also carry --memory-usage and --gpu-metrics tables and must
 * still load. */
static const char *const um_reports[] = { "um_sum", "um_total_sum", "um_cpu_page_faults_sum" };

static void
compare_um_reports (const char *path,
                    gboolean    ranges)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  SlTime s = sl_trace_get_start (trace), e = sl_trace_get_end (trace), d = e - s;
  sqlite3 *db = oracle_open (path);
  g_autofree char *base = g_path_get_basename (path);

  for (gsize i = 0; i < G_N_ELEMENTS (um_reports); i++)
    {
      gsize whole = compare_report (path, db, trace, um_reports[i], G_MININT64, G_MAXINT64), part = 0;
      if (ranges)
        {
          range_views_create (db, s + d / 3, s + 2 * d / 3);
          part = compare_report (path, db, trace, um_reports[i], s + d / 3, s + 2 * d / 3);
          range_views_drop (db);
          /* slices of 1/100 of the trace: fewer than um_sum's 10 rows, so that the rows without
           * a migration (throughput NULL, last) are among those compared */
          for (int k = 10; k < 100; k += 20)
            {
              range_views_create (db, s + d * k / 100, s + d * (k + 1) / 100);
              compare_report (path, db, trace, um_reports[i], s + d * k / 100, s + d * (k + 1) / 100);
              range_views_drop (db);
            }
        }
      g_test_message ("%s %s: %" G_GSIZE_FORMAT " rows, %" G_GSIZE_FORMAT " in the middle third",
                      base, um_reports[i], whole, part);
      g_assert_cmpuint (whole, >, 0);
    }
  sqlite3_close (db);
}

static void
test_um_generated (void)
{
#ifdef SL_GEN_PATH
  static const char *const seeds[] = { "1", "7" };

  for (gsize k = 0; k < G_N_ELEMENTS (seeds); k++)
    {
      g_autofree char *name = g_strdup_printf ("gen-um-%s.sqlite", seeds[k]);
      g_autofree char *path = g_build_filename (sl_test_tmpdir (), name, NULL);
      g_auto (SlTestRun) run = { 0 };

      sl_test_run (&run, SL_GEN_PATH, "-o", path, "-n", "20000", "--gpus", "2", "--seed", seeds[k],
                   "--um-faults", "--memory-usage=2", "--gpu-metrics=2000", "--force", NULL);
      g_assert_cmpint (run.status, ==, 0);
      compare_um_reports (path, TRUE);

      /* what the generator promised: faults on few addresses, migrations of every cause it
       * writes, memory that grows, metrics of each GPU */
      sqlite3 *db = sl_test_open_db (path);
      g_assert_cmpint (sl_test_sql_int (db, "SELECT count(DISTINCT address) * 3 < count(*) "
                                            "FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS"), ==, 1);
      g_assert_cmpint (sl_test_sql_int (db, "SELECT count(DISTINCT migrationCause) FROM "
                                            "CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind IN (11, 12)"), >=, 3);
      /* a migration caused by a page fault is at an address that faulted */
      g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY AS m "
                                            "WHERE copyKind = 12 AND migrationCause = 2 AND NOT EXISTS "
                                            "(SELECT 1 FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS AS f "
                                            "WHERE f.address = m.virtualAddress)"), ==, 0);
      /* every usage event of a call is a cudaMalloc or cudaFree's; allocations outnumber frees */
      g_assert_cmpint (sl_test_sql_int (db, "SELECT count(*) FROM CUDA_GPU_MEMORY_USAGE_EVENTS AS u "
                                            "LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r USING (correlationId) "
                                            "LEFT JOIN StringIds AS s ON s.id = r.nameId WHERE u.correlationId != 0 "
                                            "AND s.value NOT IN ('cudaMalloc_v3020', 'cudaFree_v3020')"), ==, 0);
      g_assert_cmpint (sl_test_sql_int (db, "SELECT sum(CASE memoryOperationType WHEN 0 THEN bytes "
                                            "ELSE -bytes END) > 0 FROM CUDA_GPU_MEMORY_USAGE_EVENTS"), ==, 1);
      g_assert_cmpint (sl_test_sql_int (db, "SELECT count(DISTINCT typeId & 0xFF) FROM GPU_METRICS"), ==, 2);
      /* SMs Active is higher in the samples where kernels ran than in the others */
      g_assert_cmpint (sl_test_sql_int (db, "SELECT max(g.value) > 50 AND min(g.value) = 0 FROM GPU_METRICS AS g "
                                            "JOIN TARGET_INFO_GPU_METRICS AS t USING (typeId, metricId) "
                                            "WHERE t.metricName = 'SMs Active [Throughput %]'"), ==, 1);
      sqlite3_close (db);
    }
#else
  g_test_skip ("sightline-gen is not built");
#endif
}

/* The real unified-memory traces hold migrations but no fault tables, so nsys skips the three
 * reports on them (test_oracle holds the model to that).  With the fault tables added, as nsys
 * --cuda-um-cpu-page-faults / --cuda-um-gpu-page-faults would have written them (a CPU fault
 * where a DtoH migration was caused by one, a GPU fault where an HtoD one was), the reports read
 * the real migrations, with their real addresses and causes. */
static void
test_um_real (void)
{
  static const char *const traces[] = { "nsys/nsys-2023.2-um-migrations.sqlite",
                                        "nsys/nsys-2026.1-um-overhead-file-access.sqlite" };

  for (gsize t = 0; t < G_N_ELEMENTS (traces); t++)
    {
      g_autofree char *name = g_strdup_printf ("um-real-%" G_GSIZE_FORMAT ".sqlite", t);
      g_autofree char *path = sl_test_copy_trace (traces[t], name);

      sl_test_exec_sql (path,
                        "CREATE TABLE CUDA_UM_CPU_PAGE_FAULT_EVENTS (start INTEGER NOT NULL, "
                        "globalPid INTEGER NOT NULL, address INTEGER NOT NULL, originalFaultPc INTEGER, "
                        "CpuInstruction INTEGER NOT NULL, module INTEGER NOT NULL, unresolvedFaultPc INTEGER, "
                        "sourceFile INTEGER, sourceLine INTEGER);"
                        "CREATE TABLE CUDA_UM_GPU_PAGE_FAULT_EVENTS (start INTEGER NOT NULL, "
                        "end INTEGER NOT NULL, globalPid INTEGER NOT NULL, deviceId INTEGER NOT NULL, "
                        "address INTEGER NOT NULL, numberOfPageFaults INTEGER NOT NULL, "
                        "faultAccessType INTEGER NOT NULL);"
                        "INSERT INTO CUDA_UM_CPU_PAGE_FAULT_EVENTS SELECT start - 2000, globalPid, "
                        "virtualAddress, 4198400 + (rowid % 3) * 64, (SELECT min(id) FROM StringIds) + rowid % 3, "
                        "(SELECT min(id) FROM StringIds), 0, CASE WHEN rowid % 3 = 0 THEN NULL "
                        "ELSE (SELECT max(id) FROM StringIds) END, CASE WHEN rowid % 3 = 0 THEN NULL "
                        "ELSE 40 + rowid % 2 END FROM CUPTI_ACTIVITY_KIND_MEMCPY "
                        "WHERE copyKind = 12 AND migrationCause = 2;"
                        "INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS SELECT start - 3000, start - 500, "
                        "globalPid, deviceId, virtualAddress, 1 + rowid % 5, 1 + rowid % 2 "
                        "FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 11 AND migrationCause = 2;");
      compare_um_reports (path, TRUE);
    }
}

/* Without the fault tables the three reports say so, as nsys's table checks do, in their order:
 * the real UM trace has migrations (MEMCPY) but no CPU faults; a Kineto trace has neither; and
 * `sightline stats` prints SKIPPED for each and exits 0, as for any report without data. */
static void
test_um_no_data (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2023.2-um-migrations.sqlite");
  g_autofree char *json = sl_test_trace_path ("pytorch/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlTrace) kineto = sl_trace_load (json, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autofree char *want = g_strdup_printf ("%s does not contain CUDA Unified Memory CPU page faults data.",
                                           path);
  g_autofree char *want_json = g_strdup_printf ("%s does not contain CUDA memory transfers data.", json);

  for (gsize i = 0; i < G_N_ELEMENTS (um_reports); i++)
    {
      g_autoptr (GError) e1 = NULL, e2 = NULL;
      g_autoptr (SlReport) r1 = sl_report_compute (trace, um_reports[i], &e1);
      g_autoptr (SlReport) r2 = sl_report_compute (kineto, um_reports[i], &e2);
      g_assert_null (r1);
      g_assert_error (e1, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
      g_assert_cmpstr (e1->message, ==, want);
      g_assert_null (r2);
      g_assert_error (e2, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
      if (strcmp (um_reports[i], "um_cpu_page_faults_sum") != 0)
        g_assert_cmpstr (e2->message, ==, want_json);
      g_assert_cmpstr (sl_report_name_get_title (um_reports[i]), !=, NULL);
    }

  g_auto (Run) run = { 0 };
  run_sightline (&run, path, "--report", "um_sum,um_total_sum,um_cpu_page_faults_sum", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_autofree char *skipped = g_strdup_printf ("SKIPPED: %s\n", want);
  const char *at = run.out;
  for (gsize i = 0; i < G_N_ELEMENTS (um_reports); i++)
    {
      g_autofree char *head = g_strdup_printf ("(%s):", um_reports[i]);
      at = strstr (at, head);
      g_assert_nonnull (at);
      at = strstr (at, skipped);
      g_assert_nonnull (at);
    }
}

/* Adds the rows of `report` (NULL: none) to `sums` by the text of `name_column`, keyed
 * "PREFIX\nname", each with its count and total. */
static void
sums_add (GHashTable *sums,
          SlReport   *report,
          const char *prefix,
          const char *name_column,
          const char *count_column)
{
  for (gsize i = 0; report != NULL && i < sl_report_get_n_rows (report); i++)
    {
      const SlCell *name = cell (report, i, name_column);
      const SlCell *count = cell (report, i, count_column);
      const SlCell *total = cell (report, i, "Total Time (ns)");
      g_assert_cmpint (count->type, ==, SL_CELL_INT);
      g_assert_cmpint (total->type, ==, SL_CELL_INT);
      char *key = g_strconcat (prefix, "\n", name->type == SL_CELL_TEXT ? name->v.s : "", NULL);
      NameSum *s = g_hash_table_lookup (sums, key);
      if (s == NULL)
        g_hash_table_insert (sums, key, s = g_new0 (NameSum, 1));
      else
        g_free (key);
      s->count += count->v.i;
      s->total += total->v.i;
    }
}

static void
assert_same_sums (GHashTable *want,
                  GHashTable *got,
                  const char *what)
{
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpuint (g_hash_table_size (got), ==, g_hash_table_size (want));
  g_hash_table_iter_init (&iter, want);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const NameSum *w = value, *g = g_hash_table_lookup (got, key);
      if (g == NULL)
        g_error ("%s: no row for %s", what, (const char *) key);
      g_assert_cmpint (g->count, ==, w->count);
      g_assert_cmpint (g->total, ==, w->total);
    }
}

static SlReport *
report_or_null (SlTrace    *trace,
                const char *name)
{
  g_autoptr (GError) error = NULL;
  SlReport *r = sl_report_compute (trace, name, &error);

  if (r == NULL)
    g_assert_error (error, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA);
  return r;
}

/* The GPU summaries are the reports they combine, regrouped: per Category and Operation,
 * cuda_gpu_sum's rows are cuda_gpu_kern_sum's (CUDA_KERNEL) and cuda_gpu_mem_time_sum's
 * (MEMORY_OPER), cuda_api_gpu_sum adds cuda_api_sum's (CUDA_API), and cuda_gpu_kern_gb_sum's
 * rows add up by name to cuda_gpu_kern_sum's.  On the traces the SQL oracle cannot read: the
 * PyTorch (Kineto JSON) ranks, alone and merged. */
static void
check_gpu_sums_consistent (SlTrace    *trace,
                           const char *what)
{
  g_autoptr (SlReport) kern = report_or_null (trace, "cuda_gpu_kern_sum");
  g_autoptr (SlReport) mem = report_or_null (trace, "cuda_gpu_mem_time_sum");
  g_autoptr (SlReport) capi = report_or_null (trace, "cuda_api_sum");
  g_autoptr (SlReport) gpu = report_or_null (trace, "cuda_gpu_sum");
  g_autoptr (SlReport) all = report_or_null (trace, "cuda_api_gpu_sum");
  g_autoptr (SlReport) gb = report_or_null (trace, "cuda_gpu_kern_gb_sum");
  g_autoptr (GHashTable) want_gpu = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GHashTable) want_all = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GHashTable) want_gb = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GHashTable) got_gpu = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GHashTable) got_all = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GHashTable) got_gb = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  g_assert_true ((gpu == NULL) == (kern == NULL && mem == NULL));
  g_assert_true ((all == NULL) == (gpu == NULL && capi == NULL));
  g_assert_true ((gb == NULL) == (kern == NULL));
  sums_add (want_gpu, kern, "CUDA_KERNEL", "Name", "Instances");
  sums_add (want_gpu, mem, "MEMORY_OPER", "Operation", "Count");
  sums_add (want_all, kern, "CUDA_KERNEL", "Name", "Instances");
  sums_add (want_all, mem, "MEMORY_OPER", "Operation", "Count");
  sums_add (want_all, capi, "CUDA_API", "Name", "Num Calls");
  sums_add (want_gb, kern, "", "Name", "Instances");
  for (gsize i = 0; gpu != NULL && i < sl_report_get_n_rows (gpu); i++)
    g_assert_cmpint (cell (gpu, i, "Category")->type, ==, SL_CELL_TEXT);
  for (gsize i = 0; all != NULL && i < sl_report_get_n_rows (all); i++)
    g_assert_cmpint (cell (all, i, "Category")->type, ==, SL_CELL_TEXT);
  /* one row per name, keyed "Category\nOperation" */
  if (gpu != NULL)
    for (gsize i = 0; i < sl_report_get_n_rows (gpu); i++)
      {
        char *key = g_strconcat (cell (gpu, i, "Category")->v.s, "\n",
                                 cell (gpu, i, "Operation")->v.s, NULL);
        NameSum *s = g_new0 (NameSum, 1);
        s->count = cell (gpu, i, "Instances")->v.i;
        s->total = cell (gpu, i, "Total Time (ns)")->v.i;
        g_assert_false (g_hash_table_contains (got_gpu, key));
        g_hash_table_insert (got_gpu, key, s);
      }
  if (all != NULL)
    for (gsize i = 0; i < sl_report_get_n_rows (all); i++)
      {
        char *key = g_strconcat (cell (all, i, "Category")->v.s, "\n",
                                 cell (all, i, "Operation")->v.s, NULL);
        NameSum *s = g_new0 (NameSum, 1);
        s->count = cell (all, i, "Instances")->v.i;
        s->total = cell (all, i, "Total Time (ns)")->v.i;
        g_assert_false (g_hash_table_contains (got_all, key));
        g_hash_table_insert (got_all, key, s);
      }
  sums_add (got_gb, gb, "", "Name", "Instances");
  assert_same_sums (want_gpu, got_gpu, what);
  /* cuda_api_sum's rows are by name id: two that strip to one name are one row here */
  assert_same_sums (want_all, got_all, what);
  assert_same_sums (want_gb, got_gb, what);
  g_test_message ("%s: cuda_gpu_sum %u rows, cuda_api_gpu_sum %u, "
                  "cuda_gpu_kern_gb_sum %" G_GSIZE_FORMAT, what, g_hash_table_size (got_gpu),
                  g_hash_table_size (got_all), gb != NULL ? sl_report_get_n_rows (gb) : 0);
}

static void
test_gpu_sums_json (void)
{
  g_autofree char *r0 = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-0.json.gz");
  g_autofree char *r1 = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-1.json.gz");
  const char *files[] = { r0, r1 };
  g_autoptr (GError) error = NULL;

  if (!g_file_test (r0, G_FILE_TEST_EXISTS) || !g_file_test (r1, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the PyTorch rank traces are not in shared/traces/pytorch");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr (SlTrace) trace = sl_trace_load (files[i], SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_autofree char *base = g_path_get_basename (files[i]);
      check_gpu_sums_consistent (trace, base);
    }
  g_autoptr (SlTrace) merged = sl_trace_load_merged (files, 2, SL_LOAD_ALL, NULL, NULL, NULL,
                                                     NULL, &error);
  g_assert_no_error (error);
  check_gpu_sums_consistent (merged, "the two ranks merged");
}

/* One projection per trace, shared by threads: four threads computing rows of every scope and
 * the three NVTX reports at once on a trace whose projection is not built yet get what one
 * thread alone gets (a projection that marked calls while it counted them, or scratch shared
 * between computations, miscounts NumGPUOps here). */
typedef struct
{
  SlTrace *trace;
  GString *out;
} SharedWork;

static const char *const shared_reports[] = { "nvtx_gpu_proj_trace", "nvtx_gpu_proj_sum",
                                              "nvtx_kern_sum" };

static void
shared_rows_dump (GString      *out,
                  const GArray *rows)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const SlNvtxProjRow *r = &g_array_index (rows, SlNvtxProjRow, i);
      g_string_append_printf (out, "%d:%zu %d %u %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                              " %u %u %u %u\n", r->range.lane, (size_t) r->range.index, r->gpu,
                              r->stream_id, r->start, r->end, r->n_ops, r->n_calls,
                              r->n_children, r->level);
    }
}

static gpointer
shared_work (gpointer data)
{
  SharedWork *w = data;
  SlNvtxProj *proj = sl_nvtx_proj_get (w->trace);

  for (int round = 0; round < 3; round++)
    for (SlNvtxProjScope s = SL_NVTX_PROJ_BY_RANGE; s <= SL_NVTX_PROJ_BY_STREAM; s++)
      {
        g_autoptr (GArray) rows = sl_nvtx_proj_compute (proj, s);
        if (round == 0)
          shared_rows_dump (w->out, rows);
      }
  for (gsize i = 0; i < G_N_ELEMENTS (shared_reports); i++)
    {
      g_autoptr (SlReport) r = sl_report_compute (w->trace, shared_reports[i], NULL);
      g_assert_nonnull (r);
      sl_report_write (r, SL_REPORT_FORMAT_CSV, w->out);
    }
  return NULL;
}

static void
test_projection_shared (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) alone = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlTrace) shared = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  SharedWork one = { alone, g_string_new (NULL) }, many[4];
  GThread *threads[G_N_ELEMENTS (many)];

  shared_work (&one);
  for (guint i = 0; i < G_N_ELEMENTS (many); i++)
    {
      many[i] = (SharedWork) { shared, g_string_new (NULL) };
      threads[i] = g_thread_new ("proj", shared_work, &many[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (many); i++)
    {
      g_thread_join (threads[i]);
      g_assert_cmpuint (many[i].out->len, ==, one.out->len);
      g_assert_true (strcmp (many[i].out->str, one.out->str) == 0);
      g_string_free (many[i].out, TRUE);
    }
  g_assert_cmpuint (one.out->len, >, 1000);

  /* one projection per trace, and its kept rows are what a computation makes */
  SlNvtxProj *proj = sl_nvtx_proj_get (shared);
  g_assert_true (sl_nvtx_proj_get (shared) == proj);
  g_autoptr (GString) kept = g_string_new (NULL), made = g_string_new (NULL);
  g_autoptr (SlNvtxProj) own = sl_nvtx_proj_new (shared);
  g_autoptr (GArray) rows = sl_nvtx_proj_compute (own, SL_NVTX_PROJ_BY_GPU);
  g_assert_true (sl_nvtx_proj_get_rows (proj, SL_NVTX_PROJ_BY_GPU)
                 == sl_nvtx_proj_get_rows (proj, SL_NVTX_PROJ_BY_GPU));
  shared_rows_dump (kept, sl_nvtx_proj_get_rows (proj, SL_NVTX_PROJ_BY_GPU));
  shared_rows_dump (made, rows);
  g_assert_cmpstr (kept->str, ==, made->str);
  g_string_free (one.out, TRUE);
}

/* ---------------------------------------------------------------------------------------- */
/* Ranks side by side: stats --merge and rank_sum                                          */

/* `sightline stats` with the arguments in `args` (without the program and "stats"). */
static void
run_stats_argv (Run               *run,
                const char *const *args,
                guint              n)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  int wait_status;

  g_ptr_array_add (argv, (char *) SL_SIGHTLINE_BIN);
  g_ptr_array_add (argv, (char *) "stats");
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &run->out, &run->err, &wait_status, &error));
  g_assert_no_error (error);
  run->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
}

/* Every report of `stats --merge` on `files`, in CSV, against `stats` on each file alone: a
 * Rank column in front (`labels`), then each rank's rows as its own run prints them, ranks in
 * the order of the files.  rank_sum has its Rank column already.  Returns the rows compared. */
static gsize
check_merge_against_single (const char *const *files,
                            const char *const *labels,
                            guint              n)
{
  gsize compared = 0;

  for (const char *const *name = sl_report_names (); *name != NULL; name++)
    {
      g_autoptr (GPtrArray) args = g_ptr_array_new ();
      g_auto (Run) merged = { 0 };
      g_autoptr (GString) expected = g_string_new (NULL);
      gboolean own_rank = g_strcmp0 (*name, "rank_sum") == 0;

      g_ptr_array_add (args, (char *) "--merge");
      g_ptr_array_add (args, (char *) "-f");
      g_ptr_array_add (args, (char *) "csv");
      g_ptr_array_add (args, (char *) "-r");
      g_ptr_array_add (args, (char *) *name);
      for (guint i = 0; i < n; i++)
        g_ptr_array_add (args, (char *) files[i]);
      run_stats_argv (&merged, (const char *const *) args->pdata, args->len);
      g_assert_cmpint (merged.status, ==, 0);

      for (guint i = 0; i < n; i++)
        {
          const char *one_args[] = { "-f", "csv", "-r", *name, files[i] };
          g_auto (Run) one = { 0 };
          run_stats_argv (&one, one_args, G_N_ELEMENTS (one_args));
          g_assert_cmpint (one.status, ==, 0);
          g_auto (GStrv) lines = g_strsplit (one.out, "\n", -1);
          for (guint l = 0; lines[l] != NULL; l++)
            {
              if (lines[l][0] == '\0')
                continue;
              if (l == 0)
                {
                  /* the header, once */
                  if (expected->len == 0)
                    g_string_append_printf (expected, "%s%s\n", own_rank ? "" : "Rank,", lines[l]);
                  continue;
                }
              if (own_rank)
                {
                  /* its own label is the file's, the same as the job's for files that say their rank */
                  const char *comma = strchr (lines[l], ',');
                  g_assert_nonnull (comma);
                  g_string_append_printf (expected, "%s%s\n", labels[i], comma);
                }
              else
                g_string_append_printf (expected, "%s,%s\n", labels[i], lines[l]);
              compared++;
            }
        }
      g_assert_cmpstr (merged.out, ==, expected->str);
    }
  return compared;
}

/* A kernel for the oracles: its interval, whether it communicates, and its GPU. */
typedef struct
{
  double start, end;
  gboolean comm;
  gint64 gpu;
} OracleKernel;

static gint
oracle_edge_cmp (gconstpointer a,
                 gconstpointer b)
{
  const double *x = a, *y = b;
  return (x[0] > y[0]) - (x[0] < y[0]);
}

/* HTA's computation on one GPU, written as a sweep: every kernel start and end an edge; between
 * two edges, time with a collective running counts towards the communication time, and towards
 * the overlap when a compute kernel runs too.  Adds to *comm_time and *both. */
static void
oracle_overlap_gpu (GArray *kernels,
                    gint64  gpu,
                    double *comm_time,
                    double *both)
{
  g_autoptr (GArray) edges = g_array_new (FALSE, FALSE, sizeof (double) * 3);
  int comm = 0, compute = 0;

  for (guint i = 0; i < kernels->len; i++)
    {
      const OracleKernel *k = &g_array_index (kernels, OracleKernel, i);
      double e0[3] = { k->start, 1, k->comm }, e1[3] = { k->end, -1, k->comm };
      if (k->gpu != gpu)
        continue;
      g_array_append_val (edges, e0);
      g_array_append_val (edges, e1);
    }
  g_array_sort (edges, oracle_edge_cmp);
  for (guint i = 0; i < edges->len; i++)
    {
      const double *e = (const double *) (const void *) edges->data + 3 * i;
      if (i > 0)
        {
          double gap = e[0] - ((const double *) (const void *) edges->data)[3 * (i - 1)];
          if (comm > 0)
            *comm_time += gap;
          if (comm > 0 && compute > 0)
            *both += gap;
        }
      if (e[2] != 0)
        comm += (int) e[1];
      else
        compute += (int) e[1];
    }
}

/* The overlap GPU by GPU (compute on one GPU beside a collective on another is none), summed
 * over the GPUs: percent of the communication time, NAN without collectives. */
static double
oracle_overlap_pct (GArray *kernels)
{
  g_autoptr (GHashTable) gpus = g_hash_table_new (g_int64_hash, g_int64_equal);
  double comm_time = 0, both = 0;

  for (guint i = 0; i < kernels->len; i++)
    {
      OracleKernel *k = &g_array_index (kernels, OracleKernel, i);
      if (g_hash_table_add (gpus, &k->gpu))
        oracle_overlap_gpu (kernels, k->gpu, &comm_time, &both);
    }
  return comm_time > 0 ? 100.0 * both / comm_time : NAN;
}

static gboolean
oracle_is_comm (const char *name)
{
  return strstr (name, "nccl") != NULL || strstr (name, "NCCL") != NULL
         || strstr (name, "c10d") != NULL || strstr (name, "gloo") != NULL;
}

static gint64
int_cell (SlReport   *r,
          gsize       row,
          const char *header)
{
  gint c = sl_report_find_column (r, header);
  g_assert_cmpint (c, >=, 0);
  const SlCell *cell = sl_report_get_cell (r, row, (guint) c);
  g_assert_cmpint (cell->type, ==, SL_CELL_INT);
  return cell->v.i;
}

static double
double_cell (SlReport   *r,
             gsize       row,
             const char *header)
{
  gint c = sl_report_find_column (r, header);
  g_assert_cmpint (c, >=, 0);
  const SlCell *cell = sl_report_get_cell (r, row, (guint) c);
  if (cell->type == SL_CELL_NULL)
    return NAN;
  g_assert_cmpint (cell->type, ==, SL_CELL_DOUBLE);
  return cell->v.d;
}

/* A generated job of four ranks of two GPUs each (the all-reduce on the first, compute on both:
 * the overlap is taken GPU by GPU), rank 2 a straggler: per-rank rows equal single-file stats; the
 * rank_sum figures against SQL over each file and a sweep of its kernels; the merged trace's
 * own rank_sum (a row per source) equals the ranks' side by side. */
static void
test_merge_generated (void)
{
#ifdef SL_GEN_PATH
  g_autofree char *pattern = g_build_filename (sl_test_tmpdir (), "job-%r.sqlite", NULL);
  const char *argv[] = { SL_GEN_PATH, "-o", pattern, "-n", "12k", "-g", "2", "-k", "3", "--ranks", "4",
                         "--straggler", "2", "--slowdown", "40", "--force", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;
  char *files[5] = { NULL };
  const char *labels[] = { "rank 0", "rank 1", "rank 2", "rank 3" };

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *base = g_strdup_printf ("job-%u.sqlite", i);
      files[i] = g_build_filename (sl_test_tmpdir (), base, NULL);
    }

  gsize rows = check_merge_against_single ((const char *const *) files, labels, 4);
  g_test_message ("%" G_GSIZE_FORMAT " rows of 4 ranks equal their single-file stats", rows);
  g_assert_cmpuint (rows, >, 100);

  g_autoptr (GPtrArray) traces = sl_trace_load_each ((const char *const *) files, 4, SL_LOAD_ALL,
                                                     NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_auto (GStrv) got_labels = sl_trace_rank_labels ((SlTrace *const *) traces->pdata, 4);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpstr (got_labels[i], ==, labels[i]);
  g_autoptr (SlReport) side = sl_report_compute_ranks ((SlTrace *const *) traces->pdata, labels, 4,
                                                       "rank_sum", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_report_get_n_rows (side), ==, 4);

  for (guint i = 0; i < 4; i++)
    {
      sqlite3 *db = sl_test_open_db (files[i]);
      sqlite3_stmt *stmt;
      g_autoptr (GArray) kernels = g_array_new (FALSE, FALSE, sizeof (OracleKernel));
      gint64 total = 0, comm = 0;

      g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT k.start, k.end, s.value, k.deviceId FROM "
                                               "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON "
                                               "s.id = k.demangledName", -1, &stmt, NULL),
                       ==, SQLITE_OK);
      while (sqlite3_step (stmt) == SQLITE_ROW)
        {
          OracleKernel k = { (double) sqlite3_column_int64 (stmt, 0),
                             (double) sqlite3_column_int64 (stmt, 1),
                             oracle_is_comm ((const char *) sqlite3_column_text (stmt, 2)),
                             sqlite3_column_int64 (stmt, 3) };
          gint64 d = sqlite3_column_int64 (stmt, 1) - sqlite3_column_int64 (stmt, 0);
          total += d;
          comm += k.comm ? d : 0;
          g_array_append_val (kernels, k);
        }
      sqlite3_finalize (stmt);
      g_assert_cmpint (int_cell (side, i, "Kernel Time (ns)"), ==, total);
      g_assert_cmpint (int_cell (side, i, "Comm Time (ns)"), ==, comm);
      g_assert_cmpint (int_cell (side, i, "Compute Time (ns)"), ==, total - comm);
      g_assert_cmpint (int_cell (side, i, "Memcpy Time (ns)"), ==,
                       sl_test_sql_int (db, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
      g_assert_cmpint (int_cell (side, i, "API Time (ns)"), ==,
                       sl_test_sql_int (db, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
      double pct = oracle_overlap_pct (kernels);
      /* the all-reduce runs on GPU 0's first stream after the step's compute there: no overlap
       * on its GPU, while GPU 1's compute beside it would count if the rank's GPUs were one
       * (issue 28, item 6) */
      for (guint k = 0; k < kernels->len; k++)
        g_array_index (kernels, OracleKernel, k).gpu = 0;
      double across = oracle_overlap_pct (kernels);
      g_test_message ("rank %u: communication %" G_GINT64_FORMAT " ns, overlap %.4f%% (%.4f%% "
                      "across its GPUs)", i, comm, pct, across);
      g_assert_cmpfloat (comm, >, 0);
      g_assert_cmpfloat (pct, ==, 0);
      g_assert_cmpfloat (across, >, 0);
      g_assert_cmpfloat_with_epsilon (double_cell (side, i, "Overlap (%)"), round (pct * 100) / 100,
                                      1e-9);
      g_assert_cmpint (int_cell (side, i, "Steps"), >, 0);
      sqlite3_close (db);
    }
  /* the straggler comes to the all-reduce last: the others wait there for it */
  for (guint i = 0; i < 4; i++)
    if (i != 2)
      g_assert_cmpint (int_cell (side, 2, "Comm Time (ns)"), <, int_cell (side, i, "Comm Time (ns)"));

  /* the same figures from the merged trace, a row per source */
  g_autoptr (SlTrace) merged = sl_trace_load_merged ((const char *const *) files, 4, SL_LOAD_ALL,
                                                     NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (SlReport) one = sl_report_compute (merged, "rank_sum", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sl_report_get_n_rows (one), ==, 4);
  for (gsize row = 0; row < 4; row++)
    for (guint c = 0; c < sl_report_get_n_columns (one); c++)
      {
        g_autofree char *a = cell_to_string (sl_report_get_cell (one, row, c));
        g_autofree char *b = cell_to_string (sl_report_get_cell (side, row, c));
        g_assert_cmpstr (a, ==, b);
      }
  for (guint i = 0; i < 4; i++)
    g_free (files[i]);
#else
  g_test_skip ("sightline-gen is not built");
#endif
}

/* The two ranks of a PyTorch run (Kineto JSON): per-rank rows equal single-file stats, and the
 * overlap against a sweep of the kernels read from the JSON here. */
static void
test_merge_pytorch (void)
{
  g_autofree char *r0 = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-0.json.gz");
  g_autofree char *r1 = sl_test_trace_path ("pytorch/trace_filter_sampled_rank-1.json.gz");
  const char *files[] = { r0, r1 };
  const char *labels[] = { "rank 0", "rank 1" };
  g_autoptr (GError) error = NULL;

  if (!g_file_test (r0, G_FILE_TEST_EXISTS) || !g_file_test (r1, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the PyTorch rank traces are not in shared/traces/pytorch");
      return;
    }
  gsize rows = check_merge_against_single (files, labels, 2);
  g_assert_cmpuint (rows, >, 50);

  g_autoptr (GPtrArray) traces = sl_trace_load_each (files, 2, SL_LOAD_ALL, NULL, NULL, NULL,
                                                     &error);
  g_assert_no_error (error);
  g_autoptr (SlReport) side = sl_report_compute_ranks ((SlTrace *const *) traces->pdata, labels, 2,
                                                       "rank_sum", &error);
  g_assert_no_error (error);
#ifdef SL_HAVE_JSON_GLIB
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (GFile) file = g_file_new_for_path (files[i]);
      g_autoptr (GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, &error));
      g_assert_no_error (error);
      g_autoptr (GZlibDecompressor) gz = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
      g_autoptr (GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (gz));
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_assert_true (json_parser_load_from_stream (parser, in, NULL, &error));
      g_assert_no_error (error);
      JsonArray *events = json_object_get_array_member (
          json_node_get_object (json_parser_get_root (parser)), "traceEvents");
      g_autoptr (GArray) kernels = g_array_new (FALSE, FALSE, sizeof (OracleKernel));
      for (guint e = 0; e < json_array_get_length (events); e++)
        {
          JsonObject *o = json_array_get_object_element (events, e);
          if (g_strcmp0 (json_object_get_string_member_with_default (o, "ph", ""), "X") != 0
              || g_strcmp0 (json_object_get_string_member_with_default (o, "cat", ""), "kernel") != 0)
            continue;
          double ts = json_object_get_double_member (o, "ts");
          JsonObject *args = json_object_get_object_member (o, "args");
          OracleKernel k = { ts, ts + json_object_get_double_member (o, "dur"),
                             oracle_is_comm (json_object_get_string_member (o, "name")),
                             json_object_get_int_member_with_default (args, "device", 0) };
          g_array_append_val (kernels, k);
        }
      double pct = oracle_overlap_pct (kernels);
      g_test_message ("%s: %u kernels, overlap %.4f%%", labels[i], kernels->len, pct);
      g_assert_true (isfinite (pct));
      /* Kineto's times are µs with three decimals; the model's are ns */
      g_assert_cmpfloat_with_epsilon (double_cell (side, i, "Overlap (%)"), pct, 0.006);
      g_assert_cmpfloat (double_cell (side, i, "Overlap (%)"), >, 1);
    }
#else
  g_test_message ("json-glib is not installed: the overlap oracle on the JSON is skipped");
#endif
}

/* The compute/communication overlap in SQL over an nsys export: the kernels' communication
 * intervals (NCCL, c10d, gloo in the demangled name) merged into a union per `part` (columns of
 * the kernel rows k), the compute ones into another, and their intersection; 10^4 times the
 * percent of the communication union, summed over the parts of `where`, NULL without any. */
static char *
overlap_sql (const char *part,
             const char *where)
{
  return g_strdup_printf (
    "WITH k AS (SELECT x.globalPid AS gpid, x.deviceId AS dev, x.start AS s, x.end AS e, "
    "(instr(n.value, 'nccl') > 0 OR instr(n.value, 'NCCL') > 0 OR instr(n.value, 'c10d') > 0 "
    "OR instr(n.value, 'gloo') > 0) AS c FROM CUPTI_ACTIVITY_KIND_KERNEL AS x "
    "JOIN StringIds AS n ON n.id = x.demangledName WHERE %s), "
    "o AS (SELECT %s AS part, c, s, e, max(e) OVER (PARTITION BY %s, c ORDER BY s, e "
    "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pe FROM k), "
    "g AS (SELECT part, c, s, e, sum(CASE WHEN pe >= s THEN 0 ELSE 1 END) OVER (PARTITION BY "
    "part, c ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS grp FROM o), "
    "u AS (SELECT part, c, min(s) AS s, max(e) AS e FROM g GROUP BY part, c, grp) "
    "SELECT CAST(round(1000000.0 * (SELECT sum(min(a.e, b.e) - max(a.s, b.s)) FROM u AS a "
    "JOIN u AS b ON b.part = a.part AND a.c = 1 AND b.c = 0 AND a.s < b.e AND b.s < a.e) "
    "/ (SELECT sum(e - s) FROM u WHERE c = 1)) AS INTEGER)",
    where, part, part);
}

/* Every report of a merged trace rank by rank (sl_report_compute_sources, the viewer's Statistics
 * tab) against sl_report_compute_ranks on the files loaded one by one (`stats --merge`): the same
 * Rank labels, rows and cells, times moved by the file's offset on the merged axis.  RangeId,
 * ParentId and RangeStack of nvtx_gpu_proj_trace and nvtx_pushpop_trace are left out: a merged trace has no NVTX
 * rowids (their ids repeat across files), so it numbers ranges by its own event ids; rank_sum
 * is the merged trace's own (a row per file).  Then the
 * same over a selected range: each rank's rows hold its events that start in it.  Returns the
 * rows compared. */
static gsize
check_sources_against_ranks (const char *const *files,
                             guint              n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) each = sl_trace_load_each (files, n, SL_LOAD_ALL, NULL, NULL, NULL,
                                                   &error);
  g_assert_no_error (error);
  g_autoptr (SlTrace) merged = sl_trace_load_merged (files, n, SL_LOAD_ALL, NULL, NULL, NULL,
                                                     NULL, &error);
  g_assert_no_error (error);
  g_auto (GStrv) labels = sl_trace_rank_labels ((SlTrace *const *) each->pdata, n);
  gsize compared = 0;

  g_assert_cmpuint (sl_trace_get_n_sources (merged), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (sl_trace_get_source (merged, i)->label, ==, labels[i]);
  for (const char *const *name = sl_report_names (); *name != NULL; name++)
    {
      g_autoptr (GError) e1 = NULL;
      g_autoptr (GError) e2 = NULL;
      g_autoptr (SlReport) side = sl_report_compute_ranks ((SlTrace *const *) each->pdata,
                                                           (const char *const *) labels, n, *name,
                                                           &e1);
      g_autoptr (SlReport) by_source = sl_report_compute_sources (merged, *name, G_MININT64,
                                                                  G_MAXINT64, &e2);
      gboolean proj_trace = g_str_equal (*name, "nvtx_gpu_proj_trace")
                            || g_str_equal (*name, "nvtx_pushpop_trace");

      if (g_str_equal (*name, "rank_sum"))
        {
          /* a file of the merged trace is one rank (sl_trace_comm_ranks), where a file alone may
           * hold several (its processes'): the merged trace's own rank_sum, a row per file */
          g_autoptr (SlReport) own = sl_report_compute (merged, *name, NULL);
          g_assert_nonnull (by_source);
          g_assert_cmpuint (sl_report_get_n_rows (by_source), ==, n);
          g_assert_cmpuint (sl_report_get_n_rows (by_source), ==, sl_report_get_n_rows (own));
          for (gsize row = 0; row < n; row++)
            for (guint c = 0; c < sl_report_get_n_columns (own); c++)
              {
                g_autofree char *ta = cell_to_string (sl_report_get_cell (by_source, row, c));
                g_autofree char *tb = cell_to_string (sl_report_get_cell (own, row, c));
                g_assert_cmpstr (ta, ==, tb);
              }
          continue;
        }
      g_assert_true ((side == NULL) == (by_source == NULL));
      if (side == NULL)
        {
          g_assert_true (g_error_matches (e2, SL_STATS_ERROR, SL_STATS_ERROR_NO_DATA));
          continue;
        }
      g_assert_cmpstr (sl_report_get_column (by_source, 0), ==, "Rank");
      g_assert_cmpuint (sl_report_get_n_columns (by_source), ==, sl_report_get_n_columns (side));
      g_assert_cmpuint (sl_report_get_n_rows (by_source), ==, sl_report_get_n_rows (side));
      for (gsize row = 0; row < sl_report_get_n_rows (side); row++)
        {
          const char *rank = sl_report_get_cell (side, row, 0)->v.s;
          SlTime offset = 0;
          for (guint i = 0; i < n; i++)
            if (g_str_equal (rank, labels[i]))
              offset = sl_trace_get_source (merged, i)->offset;
          for (guint c = 0; c < sl_report_get_n_columns (side); c++)
            {
              const char *header = sl_report_get_column (side, c);
              const SlCell *a = sl_report_get_cell (by_source, row, c);
              SlCell b = *sl_report_get_cell (side, row, c);
              if (proj_trace && (g_str_equal (header, "RangeId") || g_str_equal (header, "ParentId")
                                 || g_str_equal (header, "RangeStack")))
                continue;
              if (sl_report_get_column_unit (side, c) == SL_UNIT_TS_NS && b.type == SL_CELL_INT)
                b.v.i += offset;
              g_autofree char *ta = cell_to_string (a);
              g_autofree char *tb = cell_to_string (&b);
              if (g_strcmp0 (ta, tb) != 0)
                g_test_message ("%s row %" G_GSIZE_FORMAT " %s: %s, alone %s", *name, row, header,
                                ta, tb);
              g_assert_cmpstr (ta, ==, tb);
            }
          compared++;
        }
    }

  /* a range over the middle half of each file's span (files far apart on the wall clock do not
   * overlap); each rank's kernels that start in it */
  SlTime r0 = G_MAXINT64, r1 = G_MININT64;
  for (guint i = 0; i < n; i++)
    {
      const SlSource *src = sl_trace_get_source (merged, i);
      r0 = MIN (r0, src->start + (src->end - src->start) / 4);
      r1 = MAX (r1, src->end - (src->end - src->start) / 4);
    }
  gint64 in_range = 0;
  g_autoptr (SlReport) ranged = sl_report_compute_sources (merged, "cuda_gpu_kern_sum", r0, r1,
                                                           &error);
  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    {
      gint64 expected = 0, got = 0;
      for (guint l = 0; l < sl_trace_get_n_lanes (merged); l++)
        {
          const SlLane *lane = sl_trace_get_lane (merged, l);
          if (lane->kind != SL_LANE_KERNELS || lane->source != i)
            continue;
          for (gsize k = 0; k < lane->n_events; k++)
            expected += lane->events[k].start >= r0 && lane->events[k].start < r1;
        }
      for (gsize row = 0; row < sl_report_get_n_rows (ranged); row++)
        if (g_str_equal (sl_report_get_cell (ranged, row, 0)->v.s, labels[i]))
          got += int_cell (ranged, row, "Instances");
      g_test_message ("%s: %" G_GINT64_FORMAT " kernels start in the range", labels[i], got);
      g_assert_cmpint (got, ==, expected);
      in_range += got;
    }
  g_assert_cmpint (in_range, >, 0);
  return compared;
}

/* The merged traces the viewer opens (two PyTorch ranks; two nsys exports of two GPUs each)
 * have statistics rank by rank, equal to the files' own. */
static void
test_merge_sources (void)
{
  static const char *const pairs[][2] = {
    { "pytorch/trace_filter_sampled_rank-0.json.gz",
      "pytorch/trace_filter_sampled_rank-1.json.gz" },
    { "nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite", "nsys/nsys-2026.2-mfu-2gpu.sqlite" },
  };

  for (gsize p = 0; p < G_N_ELEMENTS (pairs); p++)
    {
      g_autofree char *a = sl_test_trace_path (pairs[p][0]);
      g_autofree char *b = sl_test_trace_path (pairs[p][1]);
      const char *files[] = { a, b };
      if (!g_file_test (a, G_FILE_TEST_EXISTS) || !g_file_test (b, G_FILE_TEST_EXISTS))
        {
          g_test_skip ("real traces not found");
          return;
        }
      gsize rows = check_sources_against_ranks (files, 2);
      g_test_message ("%s + %s: %" G_GSIZE_FORMAT " rows rank by rank equal the files' own",
                      pairs[p][0], pairs[p][1], rows);
      g_assert_cmpuint (rows, >, 50);
    }
}

/* Issue 28, item 6, on an nsys export of a two-rank job (torchrun under nsys: two processes, a
 * GPU each, no RANK recorded): rank_sum has a row per process that runs NCCL, with its own
 * kernels, copies and CUDA calls, and an overlap taken on its GPU: 0 %, one stream each, where
 * the file's kernels taken together gave 54 % (GPU 0's compute beside GPU 1's SendRecv). */
static void
test_rank_sum_processes (void)
{
  g_autofree char *path = sl_test_trace_path ("nsys/nsys-2026.2-mfu-2gpu.sqlite");
  g_autoptr (GError) error = NULL;
  g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  sqlite3 *db = sl_test_open_db (path);
  g_autoptr (SlReport) r = sl_report_compute (trace, "rank_sum", &error);
  g_assert_no_error (error);

  /* the processes that ran NCCL kernels, in pid order */
  sqlite3_stmt *stmt = NULL;
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT DISTINCT k.globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
                                           "JOIN StringIds AS n ON n.id = k.demangledName "
                                           "WHERE instr(n.value, 'nccl') > 0 ORDER BY 1", -1, &stmt, NULL),
                   ==, SQLITE_OK);
  gsize row = 0;
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      gint64 gpid = sqlite3_column_int64 (stmt, 0);
      g_autofree char *label = g_strdup_printf ("process %" G_GINT64_FORMAT, (gpid >> 24) & 0xFFFFFF);
      g_autofree char *kern = g_strdup_printf ("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                                               "WHERE globalPid = %" G_GINT64_FORMAT, gpid);
      g_autofree char *comm = g_strdup_printf ("SELECT sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
                                               "JOIN StringIds AS n ON n.id = k.demangledName "
                                               "WHERE instr(n.value, 'nccl') > 0 AND k.globalPid = %"
                                               G_GINT64_FORMAT, gpid);
      g_autofree char *copies = g_strdup_printf ("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY "
                                                 "WHERE globalPid = %" G_GINT64_FORMAT, gpid);
      g_autofree char *api = g_strdup_printf ("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                                              "WHERE (globalTid & 0xFFFFFFFFFF000000) = %" G_GINT64_FORMAT,
                                              gpid);
      g_autofree char *where = g_strdup_printf ("x.globalPid = %" G_GINT64_FORMAT, gpid);
      g_autofree char *per_gpu = overlap_sql ("dev", where);
      g_autofree char *across = overlap_sql ("0", "1");

      g_assert_cmpuint (row, <, sl_report_get_n_rows (r));
      g_assert_cmpint (sl_report_get_cell (r, row, 0)->type, ==, SL_CELL_TEXT);
      g_assert_cmpstr (sl_report_get_cell (r, row, 0)->v.s, ==, label);
      g_assert_cmpint (int_cell (r, row, "Kernel Time (ns)"), ==, sl_test_sql_int (db, kern));
      g_assert_cmpint (int_cell (r, row, "Comm Time (ns)"), ==, sl_test_sql_int (db, comm));
      g_assert_cmpint (int_cell (r, row, "Memcpy Time (ns)"), ==, sl_test_sql_int (db, copies));
      g_assert_cmpint (int_cell (r, row, "API Time (ns)"), ==, sl_test_sql_int (db, api));
      gint64 pct = sl_test_sql_int (db, per_gpu);
      g_test_message ("%s: overlap %.4f %% on its GPU, %.4f %% over the file's kernels taken "
                      "together", label, pct / 10000.0, sl_test_sql_int (db, across) / 10000.0);
      g_assert_cmpfloat_with_epsilon (double_cell (r, row, "Overlap (%)"), round (pct / 100.0) / 100,
                                      1e-9);
      g_assert_cmpint (pct, ==, 0);
      g_assert_cmpint (sl_test_sql_int (db, across), >, 50 * 10000);
      row++;
    }
  sqlite3_finalize (stmt);
  g_assert_cmpuint (row, ==, 2);
  g_assert_cmpuint (sl_report_get_n_rows (r), ==, row);
  sqlite3_close (db);
}

/* stats --merge: one unreadable file among several is an error that names it; --range and
 * several files without --merge are refused. */
static void
test_merge_errors (void)
{
  g_autofree char *good = sl_test_trace_path ("nsys/nsys-2026.1-tiny.sqlite");
  g_autofree char *garbage = g_build_filename (sl_test_tmpdir (), "rank-garbage.sqlite", NULL);
  g_auto (Run) bad = { 0 };
  g_auto (Run) two = { 0 };
  g_auto (Run) range = { 0 };
  g_auto (Run) skipped = { 0 };

  g_assert_true (g_file_set_contents (garbage, "this is not a trace\n", -1, NULL));
  run_sightline (&bad, "--merge", good, garbage, good, NULL);
  g_assert_cmpint (bad.status, ==, 1);
  g_assert_nonnull (strstr (bad.err, garbage));
  g_assert_cmpstr (bad.out, ==, "");

  run_sightline (&two, good, good, NULL);
  g_assert_cmpint (two.status, ==, 2);
  g_assert_nonnull (strstr (two.err, "--merge"));

  run_sightline (&range, "--merge", "--range", "0:1s", good, good, NULL);
  g_assert_cmpint (range.status, ==, 2);
  g_assert_nonnull (strstr (range.err, "--range"));

  /* a report no rank has data for is skipped, as for one file; two files saying the same rank
   * are told apart as the merged trace tells them */
  run_sightline (&skipped, "--merge", "-f", "csv", "-r", "nvtx_sum,cuda_gpu_kern_sum", good, good,
                 NULL);
  g_assert_cmpint (skipped.status, ==, 0);
  g_assert_nonnull (strstr (skipped.err, "SKIPPED"));
  g_assert_nonnull (strstr (skipped.out, "Rank,Time (%)"));
  g_assert_nonnull (strstr (skipped.out, " #2,"));
}

/* Durations beyond what 64 bits can sum (issue 18: `acc_add` overflowed on a damaged file, a
 * UBSan report): every report's totals saturate at G_MAXINT64 instead of wrapping, so a total
 * is never negative nor below the longest instance, and the tables still print. */
static void
test_absurd_durations (void)
{
  static const char *const traces[] = { "nsys/nsys-2026.2-h100-2gpu-nvtx.sqlite",
                                        "nsys/nsys-2026.1-osrt-sampling.sqlite" };

  for (guint t = 0; t < G_N_ELEMENTS (traces); t++)
    {
      g_autofree char *name = g_strdup_printf ("absurd-%u.sqlite", t);
      g_autofree char *path = sl_test_absurd_trace (traces[t], name);
      g_autoptr (GError) error = NULL;
      g_autoptr (SlTrace) trace = sl_trace_load (path, SL_LOAD_ALL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      guint saturated = 0;
      for (const char *const *r = sl_report_names (); *r != NULL; r++)
        {
          g_autoptr (SlReport) report = sl_report_compute (trace, *r, NULL);
          if (report == NULL)
            continue;
          gint total = sl_report_find_column (report, "Total Time (ns)");
          gint max = sl_report_find_column (report, "Max (ns)");
          gint share = sl_report_find_column (report, "Time (%)");
          for (gsize row = 0; total >= 0 && row < sl_report_get_n_rows (report); row++)
            {
              const SlCell *tc = sl_report_get_cell (report, row, (guint) total);
              if (tc->type != SL_CELL_INT)
                continue;
              g_assert_cmpint (tc->v.i, >=, 0);
              if (max >= 0 && sl_report_get_cell (report, row, (guint) max)->type == SL_CELL_INT)
                g_assert_cmpint (tc->v.i, >=, sl_report_get_cell (report, row, (guint) max)->v.i);
              saturated += tc->v.i == G_MAXINT64;
              const SlCell *sc = share >= 0 ? sl_report_get_cell (report, row, (guint) share) : NULL;
              if (sc != NULL && sc->type == SL_CELL_DOUBLE)
                g_assert_true (sc->v.d >= 0.0 && sc->v.d <= 100.0);
            }
          g_autoptr (GString) out = g_string_new (NULL);
          sl_report_write (report, SL_REPORT_FORMAT_COLUMN, out);
          sl_report_write (report, SL_REPORT_FORMAT_JSON, out);
          g_assert_true (g_utf8_validate (out->str, -1, NULL));
        }
      /* the kernels', calls' and ranges' sums did reach the limit */
      g_assert_cmpuint (saturated, >, 0);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/stats/absurd-durations", test_absurd_durations);
  g_test_add_func ("/model/stats/oracle", test_oracle);
  g_test_add_func ("/model/stats/oracle-range", test_oracle_range);
  g_test_add_func ("/model/stats/planted-queue", test_planted_queue);
  g_test_add_func ("/model/stats/planted-projection", test_planted_projection);
  g_test_add_func ("/model/stats/planted-rowids", test_planted_rowids);
  g_test_add_func ("/model/stats/projection-shared", test_projection_shared);
  g_test_add_func ("/model/stats/planted-other-thread", test_planted_other_thread);
  g_test_add_func ("/model/stats/planted-ranges-syscalls", test_planted_ranges_syscalls);
  g_test_add_func ("/model/stats/generated", test_generated);
  g_test_add_func ("/model/stats/generated-graphs", test_generated_graphs);
  g_test_add_func ("/model/stats/gpu-sums-json", test_gpu_sums_json);
  g_test_add_func ("/model/stats/um-generated", test_um_generated);
  g_test_add_func ("/model/stats/um-real", test_um_real);
  g_test_add_func ("/model/stats/um-no-data", test_um_no_data);
  g_test_add_func ("/model/stats/needs", test_needs);
  g_test_add_func ("/model/stats/round", test_round);
  g_test_add_func ("/model/stats/unknown-name", test_unknown_name);
  g_test_add_func ("/app/stats/csv", test_cmd_csv);
  g_test_add_func ("/app/stats/column", test_cmd_column);
  g_test_add_func ("/app/stats/json", test_cmd_json);
  g_test_add_func ("/app/stats/all", test_cmd_all);
  g_test_add_func ("/app/stats/output-two-reports", test_cmd_output_and_two_reports);
  g_test_add_func ("/app/stats/errors", test_cmd_errors);
  g_test_add_func ("/app/stats/legacy-names", test_cmd_legacy_names);
  g_test_add_func ("/app/stats/nsys-report", test_cmd_nsys_report);
  g_test_add_func ("/app/stats/range", test_cmd_range);
  g_test_add_func ("/app/stats/range-errors", test_cmd_range_errors);
  g_test_add_func ("/app/stats/range-origin", test_cmd_range_origin);
  g_test_add_func ("/model/stats/merge-generated", test_merge_generated);
  g_test_add_func ("/model/stats/merge-pytorch", test_merge_pytorch);
  g_test_add_func ("/model/stats/merge-sources", test_merge_sources);
  g_test_add_func ("/model/stats/rank-sum-processes", test_rank_sum_processes);
  g_test_add_func ("/app/stats/merge-errors", test_merge_errors);
  return g_test_run ();
}
