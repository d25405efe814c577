/* fuzz-cache.c: the model cache's payload (model/sl-trace-cache.c) on any bytes, past the hashes
 * and the source key that a forged file would simply recompute: every count, id, index, time and
 * link is checked before use, so what parses must be a trace that every report, rule and export
 * can run on. */
#include <stdio.h>

#include "sl-fuzz.h"
#include "sl-trace-private.h"

SL_FUZZ_DEFINE_INITIALIZE ()

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr (SlTrace) trace = _sl_trace_cache_parse ("/fuzz/trace.sqlite", data, size);
  if (g_getenv ("SL_FUZZ_VERBOSE") != NULL)
    fprintf (stderr, "fuzz-cache: %zu bytes: %s\n", size, trace != NULL ? "a trace" : "refused");
  if (trace != NULL)
    sl_fuzz_exercise (trace);
  return 0;
}
