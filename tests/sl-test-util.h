/* sl-test-util.h: small helpers shared by the test programs. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Path of a real trace under ../shared/traces (e.g. "nsys/nsys-2026.1-tiny.sqlite"); newly allocated. */
char  *sl_test_trace_path (const char *relative);
/* The .sqlite files of ../shared/traces/nsys, sorted, NULL-terminated. */
char **sl_test_nsys_traces (void);
/* A fresh temporary directory, removed (with its files) at exit. */
const char *sl_test_tmpdir (void);
/* A program run to its end: its exit status (-1 when killed), its output and its errors. */
typedef struct
{
  char *out;
  char *err;
  int   status;
} SlTestRun;

void   sl_test_run_clear  (SlTestRun  *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SlTestRun, sl_test_run_clear)
/* Runs `program` with the arguments that follow, up to a NULL. */
void   sl_test_run        (SlTestRun  *run,
                           const char *program,
                           ...) G_GNUC_NULL_TERMINATED;
/* A trace opened read-only (asserted); the first column of the first row of `sql` as an integer,
 * -1 without a row (an SQL error fails the test). */
struct sqlite3;
struct sqlite3 *sl_test_open_db (const char *path);
gint64          sl_test_sql_int (struct sqlite3 *db,
                                 const char     *sql);
/* The same as text (newly allocated), NULL without a row or for NULL. */
char           *sl_test_sql_text (struct sqlite3 *db,
                                  const char     *sql);

/* A writable copy of a real trace (`relative` as for sl_test_trace_path) named `name` in the
 * temporary directory; newly allocated path. */
char  *sl_test_copy_trace (const char *relative,
                           const char *name);
/* Runs `sql` on the file at `path` in a fresh connection (so that a schema edit made through
 * writable_schema is seen by the next call); an SQL error fails the test. */
void   sl_test_exec_sql   (const char *path,
                           const char *sql);

/* A copy of a real trace in which every other event of each event table that has both times
 * (CUDA calls, kernels, copies, sets, syncs, NVTX ranges, OS runtime calls) lasts from -2^62 to
 * 2^62 ns, beyond what the reader keeps (±2^61): sums of a few such durations overflow 64 bits
 * where they are not saturated.  Newly allocated path. */
char  *sl_test_absurd_trace (const char *relative,
                             const char *name);

/* Seed for property tests: $SL_TEST_SEED or the time; printed so a failure can be replayed. */
guint32 sl_test_seed (void);

G_END_DECLS
