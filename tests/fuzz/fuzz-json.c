/* fuzz-json.c: the JSON reader (Kineto, legacy profiler and Chrome trace-event JSON, told apart by
 * content) on any bytes; what loads goes through every report, rule and export. */
#include "sl-fuzz.h"

SL_FUZZ_DEFINE_INITIALIZE ()

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *path = sl_fuzz_path ("input.json");

  sl_fuzz_write_file (path, data, size);
  g_autofree char *error = NULL;
  sl_fuzz_load (path, &error);
  return 0;
}
