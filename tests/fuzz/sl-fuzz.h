/* sl-fuzz.h: what the libFuzzer targets in tests/fuzz share: a private scratch folder, and a
 * loaded trace run through everything a user can ask of it (every report, every rule, the call
 * tree, the summaries, the exports), so that damage anywhere in a file reaches every consumer. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

/* libFuzzer's entry points (tests/fuzz/sl-fuzz-main.c calls them without libFuzzer) */
int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* The LLVMFuzzerInitialize of a target that needs nothing but sl_fuzz_init(). */
#define SL_FUZZ_DEFINE_INITIALIZE()                                                                \
  int LLVMFuzzerInitialize (int *argc, char ***argv)                                               \
  {                                                                                                \
    (void) argc;                                                                                   \
    (void) argv;                                                                                   \
    sl_fuzz_init ();                                                                               \
    return 0;                                                                                      \
  }

/* Turns GLib criticals into aborts (a g_return_if_fail that fires is a bug the fuzzer found),
 * silences the rest of the log, and makes the scratch folder.  Once, from LLVMFuzzerInitialize. */
void        sl_fuzz_init            (void);
/* A path in the process's scratch folder (removed at exit): "DIR/NAME". */
const char *sl_fuzz_path            (const char *name);
/* Writes `size` bytes to `path`, replacing it; aborts when it cannot (the fuzzer's fault). */
void        sl_fuzz_write_file      (const char *path, const void *data, size_t size);
/* Loads the trace at `path` (any format Sightline opens) and, when it loads, runs it through
 * every report, every rule, text and JSON output, the call tree, the summaries, a range, and both
 * exports (written to the scratch folder, the SQLite one read back).  FALSE with the load's error
 * message (free it) when it does not load.  No model header here: the collector's headers, which
 * some targets include, use some of the same names. */
gboolean    sl_fuzz_load            (const char *path, char **error_message);
/* The same for a trace made another way (fuzz-cache parses one); takes no reference. */
struct _SlTrace;
void        sl_fuzz_exercise        (struct _SlTrace *trace);
/* The folder of real traces (SL_FUZZ_TRACES in the environment, else the build's). */
const char *sl_fuzz_traces_dir      (void);
