/* sl-perfmap.h: names for code that no ELF object maps, from the perf maps JITs write
 * (/tmp/perf-PID.map: one "START SIZE name" line per function, hex, appended as code is made;
 * Python 3.12+ writes "py::function:/path/file.py" for each trampoline under `-X perf` or
 * PYTHONPERFSUPPORT=1).  C11 + POSIX, no GLib; one thread.
 *
 * A map is read only when it is a regular file (not a link) owned by the process's owner, up to
 * SL_PERF_MAP_MAX_BYTES; lines appended later are read when a lookup misses and the file grew.
 * Names stay valid until the maps are freed.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define SL_PERF_MAP_MAX_BYTES (64u << 20)

  typedef struct _SlPerfMaps SlPerfMaps;

  /* Maps read from `dir` ("/tmp" when NULL). */
  SlPerfMaps *sl_perf_maps_new (const char *dir);
  void sl_perf_maps_free (SlPerfMaps *m);

  /* The function of process `pid` covering `addr`: true with *symbol and *module set when its
   * map has one.  A Python trampoline ("py::f:/x/y.py") is symbol "f", module "/x/y.py"; any
   * other name is the symbol, with the map's path as the module. */
  bool sl_perf_maps_lookup (SlPerfMaps  *m,
                            int32_t      pid,
                            uint64_t     addr,
                            const char **symbol,
                            const char **module);

#ifdef __cplusplus
}
#endif
