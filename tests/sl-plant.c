/* sl-plant.c: a minimal writer of nsys-schema traces (the schema of collector/sl-schema.c). */
#include "sl-plant.h"

#include <glib/gstdio.h>
#include <sqlite3.h>

#include "sl-schema.h"

struct _Plant
{
  sqlite3    *db;
  GHashTable *strings;   /* value → id */
  gint64      next_string, next_corr, next_sample, next_chain;
  gint64      max_t, gpu_free;
  gboolean    process_info, system_env;   /* those tables made */
};

const PlantConfig plant_config_full = { 264, 256, 32, 0 };

static void
exec (Plant      *p,
      const char *sql)
{
  char *msg = NULL;

  if (sqlite3_exec (p->db, sql, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("plant: %s: %s", sql, msg);
}

static gint64
str (Plant      *p,
     const char *value)
{
  gpointer id = g_hash_table_lookup (p->strings, value);
  sqlite3_stmt *st;

  if (id != NULL)
    return GPOINTER_TO_SIZE (id);
  sqlite3_prepare_v2 (p->db, "INSERT INTO StringIds (id, value) VALUES (?, ?)", -1, &st, NULL);
  sqlite3_bind_int64 (st, 1, p->next_string);
  sqlite3_bind_text (st, 2, value, -1, SQLITE_TRANSIENT);
  if (sqlite3_step (st) != SQLITE_DONE)
    g_error ("plant: string: %s", sqlite3_errmsg (p->db));
  sqlite3_finalize (st);
  g_hash_table_insert (p->strings, g_strdup (value), GSIZE_TO_POINTER (p->next_string));
  return p->next_string++;
}

/* Runs one INSERT with integer (or, for 'S', string id) values given as a format of 'i'/'S'. */
static void
insert (Plant      *p,
        const char *sql,
        const char *types,
        ...)
{
  sqlite3_stmt *st;
  va_list ap;

  if (sqlite3_prepare_v2 (p->db, sql, -1, &st, NULL) != SQLITE_OK)
    g_error ("plant: %s: %s", sql, sqlite3_errmsg (p->db));
  va_start (ap, types);
  for (int i = 0; types[i] != '\0'; i++)
    {
      if (types[i] == 'S')
        sqlite3_bind_int64 (st, i + 1, str (p, va_arg (ap, const char *)));
      else if (types[i] == 'T')
        sqlite3_bind_text (st, i + 1, va_arg (ap, const char *), -1, SQLITE_TRANSIENT);
      else
        sqlite3_bind_int64 (st, i + 1, va_arg (ap, gint64));
    }
  va_end (ap);
  if (sqlite3_step (st) != SQLITE_DONE)
    g_error ("plant: %s: %s", sql, sqlite3_errmsg (p->db));
  sqlite3_finalize (st);
}

static void
note_time (Plant *p,
           gint64 t)
{
  p->max_t = MAX (p->max_t, t);
}

#define GPID ((gint64) SL_GLOBAL_PID (1, 100))
#define GTID(tid) ((gint64) SL_GLOBAL_TID (1, 100, (tid)))

Plant *
plant_new (const char *path)
{
  static const guint device0 = 0;

  return plant_new_gpus (path, &device0, 1);
}

Plant *
plant_new_gpus (const char  *path,
                const guint *devices,
                guint        n_devices)
{
  Plant *p = g_new0 (Plant, 1);
  char *msg = NULL;

  g_unlink (path);
  if (sqlite3_open (path, &p->db) != SQLITE_OK)
    g_error ("plant: cannot create %s", path);
  p->strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p->next_string = 1;
  p->next_corr = 1;
  p->next_sample = 1;
  p->next_chain = 1;
  exec (p, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN");
  if (!sl_schema_create (p->db, &msg))
    g_error ("plant: %s", msg);
  insert (p, "INSERT INTO PROCESSES VALUES (?, 100, 'python3')", "i", GPID);
  insert (p, "INSERT INTO ThreadNames VALUES (?, 20, ?)", "Si", "python3", GTID (PLANT_MAIN));
  insert (p, "INSERT INTO ThreadNames VALUES (?, 20, ?)", "Si", "pt_data_worker_0",
          GTID (PLANT_LOADER_0));
  insert (p, "INSERT INTO ThreadNames VALUES (?, 20, ?)", "Si", "pt_data_worker_1",
          GTID (PLANT_LOADER_1));
  /* each device in the order given; device d's context is 1 + d, its stream 7 */
  for (guint i = 0; i < n_devices; i++)
    {
      gint64 d = devices[i];
      g_autofree char *uuid = g_strdup_printf ("uuid-%u", devices[i]);
      g_autofree char *bus = g_strdup_printf ("0000:%02x:00.0", 0x18 + devices[i]);
      insert (p,
              "INSERT INTO TARGET_INFO_GPU VALUES (?, ?, 'NVIDIA H100 80GB HBM3', ?, 1, "
              "52428800, 85520809984, 3352320000000, 1980000000, 132, 0, ?, 0, 'GH100', ?, "
              "NULL, NULL, 161, 0, 65536, 4, 65536, 49152, 232448, 233472, 65536, 32, 3, 64, 32, "
              "1024, 1024, 1024, 64, 2147483647, 65535, 65535, 9, 0, 9, 0)",
              "iiTTi", (gint64) SL_GLOBAL_PID (1, 0), d, bus, uuid, d);
      insert (p, "INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (?, ?, 100, ?, 132)", "iiT", d, d,
              uuid);
      insert (p, "INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES (7, 0, 1, 100, ?, ?, 0, 0, 0)",
              "ii", d, 1 + d);
      insert (p, "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (7, 0, 1, 100, ?, 0, 1)", "i", 1 + d);
    }
  insert (p, "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (0, '2026-01-01T00:00:00', "
             "'2026-01-01T00:00:00', 0)", "");
  return p;
}

gint64
plant_api (Plant      *p,
           gint        tid,
           const char *name,
           gint64      start,
           gint64      end)
{
  gint64 corr = p->next_corr++;

  insert (p, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
          "iiiiS", start, end, GTID (tid), corr, name);
  note_time (p, end);
  return corr;
}

void
plant_kernel (Plant             *p,
              const char        *name,
              const PlantConfig *c,
              gint64             start,
              gint64             end,
              gint64             corr)
{
  plant_kernel_on (p, 0, name, c, start, end, corr);
}

void
plant_kernel_on (Plant             *p,
                 guint              device,
                 const char        *name,
                 const PlantConfig *c,
                 gint64             start,
                 gint64             end,
                 gint64             corr)
{
  insert (p,
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
          "correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, "
          "gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, "
          "localMemoryPerThread, localMemoryTotal, gridId, tensorSizeMinusOneElements) VALUES "
          "(?, ?, ?, ?, 7, ?, ?, ?, ?, ?, ?, 1, 1, ?, 1, 1, 0, ?, 0, 0, ?, '[]')",
          "iiiiiiSSiiiii", start, end, (gint64) device, (gint64) device + 1, corr, GPID, name,
          name, (gint64) c->registers, (gint64) c->grid, (gint64) c->block,
          (gint64) c->dynamic_shared, corr);
  note_time (p, end);
  p->gpu_free = MAX (p->gpu_free, end);
}

void
plant_memcpy (Plant *p,
              gint   copy_kind,
              gint   src_kind,
              gint   dst_kind,
              gint64 bytes,
              gint64 start,
              gint64 end,
              gint64 corr)
{
  insert (p,
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, "
          "correlationId, globalPid, bytes, copyKind, srcKind, dstKind) VALUES "
          "(?, ?, 0, 1, 7, ?, ?, ?, ?, ?, ?)",
          "iiiiiiii", start, end, corr, GPID, bytes, (gint64) copy_kind, (gint64) src_kind,
          (gint64) dst_kind);
  note_time (p, end);
  p->gpu_free = MAX (p->gpu_free, end);
}

void
plant_osrt (Plant      *p,
            gint        tid,
            const char *name,
            gint64      start,
            gint64      end)
{
  insert (p, "INSERT INTO OSRT_API VALUES (?, ?, 27, ?, ?, 0, 0, 0, 0)", "iiiS", start, end,
          GTID (tid), name);
  note_time (p, end);
}

/* A call chain's rows in OSRT_CALLCHAINS or SAMPLING_CALLCHAINS (the same columns). */
static void
plant_frames (Plant             *p,
              const char        *table,
              gint64             id,
              const char *const *frames,
              guint              n)
{
  g_autofree char *sql = g_strdup_printf ("INSERT INTO %s VALUES (?, ?, ?, 0, 0, 0, NULL, NULL, 7, "
                                          "?)", table);

  for (guint d = 0; d < n; d++)
    {
      g_auto (GStrv) parts = g_strsplit (frames[d], "@", 2);
      insert (p, sql, "iSSi", id, parts[0], parts[1] != NULL ? parts[1] : "", (gint64) d);
    }
}

void
plant_osrt_backtrace (Plant             *p,
                      gint               tid,
                      const char        *name,
                      gint64             start,
                      gint64             end,
                      const char *const *frames,
                      guint              n)
{
  gint64 id = p->next_chain++;

  insert (p, "INSERT INTO OSRT_API VALUES (?, ?, 27, ?, ?, 0, 0, ?, 0)", "iiiSi", start, end,
          GTID (tid), name, id);
  plant_frames (p, "OSRT_CALLCHAINS", id, frames, n);
  note_time (p, end);
}

void
plant_sample (Plant      *p,
              gint        tid,
              gint64      t,
              const char *symbol)
{
  gint64 id = p->next_sample++;

  insert (p, "INSERT INTO COMPOSITE_EVENTS VALUES (?, ?, 0, 1, ?, 0)", "iii", id, t, GTID (tid));
  insert (p, "INSERT INTO SAMPLING_CALLCHAINS VALUES (?, ?, ?, 0, 0, 0, NULL, NULL, 7, 0)", "iSS",
          id, symbol, "libtrain.so");
  note_time (p, t);
}

void
plant_sample_stack (Plant             *p,
                    gint               tid,
                    gint64             t,
                    const char *const *frames,
                    guint              n)
{
  plant_sample_stack_of (p, 100, tid, t, frames, n);
}

void
plant_sample_stack_of (Plant             *p,
                       gint               pid,
                       gint               tid,
                       gint64             t,
                       const char *const *frames,
                       guint              n)
{
  gint64 id = p->next_sample++;

  insert (p, "INSERT INTO COMPOSITE_EVENTS VALUES (?, ?, 0, 1, ?, 0)", "iii", id, t,
          (gint64) SL_GLOBAL_TID (1, pid, tid));
  plant_frames (p, "SAMPLING_CALLCHAINS", id, frames, n);
  note_time (p, t);
}

void
plant_process (Plant      *p,
               gint        pid,
               gint        parent,
               const char *name,
               const char *command_line)
{
  if (!p->process_info)
    exec (p, "CREATE TABLE SL_PROCESS_INFO (globalPid INTEGER NOT NULL, pid INTEGER NOT NULL, "
             "parentPid INTEGER, commandLine TEXT)");
  p->process_info = TRUE;
  insert (p, "INSERT INTO PROCESSES VALUES (?, ?, ?)", "iiT", (gint64) SL_GLOBAL_PID (1, pid),
          (gint64) pid, name);
  insert (p, "INSERT INTO ThreadNames VALUES (?, 20, ?)", "Si", name,
          (gint64) SL_GLOBAL_TID (1, pid, pid));
  insert (p, "INSERT INTO SL_PROCESS_INFO VALUES (?, ?, ?, ?)", "iiiT",
          (gint64) SL_GLOBAL_PID (1, pid), (gint64) pid, (gint64) parent, command_line);
}

void
plant_sched_slice (Plant *p,
                   gint   pid,
                   gint   tid,
                   gint   cpu,
                   gint64 in,
                   gint64 out,
                   gint   state,
                   gint   block)
{
  gint64 gtid = (gint64) SL_GLOBAL_TID (1, pid, tid);

  insert (p, "INSERT INTO SCHED_EVENTS VALUES (?, ?, 1, ?, NULL, NULL)", "iii", in, (gint64) cpu,
          gtid);
  if (block < 0)
    insert (p, "INSERT INTO SCHED_EVENTS VALUES (?, ?, 0, ?, ?, NULL)", "iiii", out, (gint64) cpu,
            gtid, (gint64) state);
  else
    insert (p, "INSERT INTO SCHED_EVENTS VALUES (?, ?, 0, ?, ?, ?)", "iiiii", out, (gint64) cpu,
            gtid, (gint64) state, (gint64) block);
  note_time (p, out);
}

void
plant_system_env (Plant      *p,
                  const char *name,
                  const char *value)
{
  if (!p->system_env)
    exec (p, "CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL, "
             "name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL)");
  p->system_env = TRUE;
  insert (p, "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (281474976710656, 'Local (CLI)', ?, 0, ?)",
          "TT", name, value);
}

void
plant_finish (Plant *p)
{
  insert (p, "INSERT INTO ANALYSIS_DETAILS VALUES (?, ?, 0, ?)", "iii",
          (gint64) SL_GLOBAL_PID (1, 0), p->max_t + PLANT_MS, p->max_t + PLANT_MS);
  exec (p, "COMMIT");
  sqlite3_close (p->db);
  g_hash_table_unref (p->strings);
  g_free (p);
}

gint64
plant_gpu_free (Plant *p)
{
  return p->gpu_free;
}

void
plant_set_gpu_free (Plant *p,
                    gint64 t)
{
  p->gpu_free = t;
}

gint64
plant_loop (Plant             *p,
            gint64             t,
            guint              n,
            gint64             period,
            gint64             dur,
            const char        *name,
            const PlantConfig *config)
{
  for (guint i = 0; i < n; i++)
    {
      gint64 corr = plant_api (p, PLANT_MAIN, "cudaLaunchKernel_v7000", t, t + 5 * PLANT_US);
      gint64 start = MAX (t + 8 * PLANT_US, p->gpu_free);
      plant_kernel (p, name, config, start, start + dur, corr);
      t += period;
    }
  return t;
}

/* After plant_finish: rows added to the closed file */

void
plant_nvtx (const char *path,
            gint        tid,
            gint        type,
            const char *text,
            gint64      start,
            gint64      end)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, "
                                           "domainId) VALUES (?, ?, ?, ?, ?, 0)", -1, &stmt, NULL), ==, SQLITE_OK);
  sqlite3_bind_int64 (stmt, 1, start);
  sqlite3_bind_int64 (stmt, 2, end);
  sqlite3_bind_int (stmt, 3, type);
  sqlite3_bind_text (stmt, 4, text, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 5, (gint64) SL_GLOBAL_TID (1, 100, tid));
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
}

void
plant_sql (const char *path,
           const char *sql)
{
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
}
