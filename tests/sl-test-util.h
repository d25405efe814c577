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
/* Runs argv[0] (NULL-terminated argv) to its end: its exit status (-1 when killed), its output and
 * errors in *out and *err (newly allocated). */
int    sl_test_run        (const char *const *argv,
                           char              **out,
                           char              **err);
/* Seed for property tests: $SL_TEST_SEED or the time; printed so a failure can be replayed. */
guint32 sl_test_seed (void);

G_END_DECLS
