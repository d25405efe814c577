/* fuzz-elf.c: the daemon's symbolizer (collector/daemon/sl-symbols.c) on any bytes as an ELF object
 * mapped into a process, or as the perf map of its generated code (sl-perfmap.c), looked up at
 * addresses across the mapping.  First byte: 'M' a perf map, else an ELF file. */
#include <stdlib.h>
#include <string.h>

#include "sl-fuzz.h"
#include "sl-symbols.h"

#define FUZZ_PID 4242

SL_FUZZ_DEFINE_INITIALIZE ()

static void
check_names (const char *symbol,
             const char *module)
{
  /* set in every case, and valid C strings */
  if (symbol == NULL || module == NULL)
    abort ();
  (void) strlen (symbol);
  (void) strlen (module);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  bool perf_map = size > 0 && data[0] == 'M';
  g_autofree char *map_name = g_strdup_printf ("perf-%d.map", FUZZ_PID);
  const char *elf = sl_fuzz_path ("object.so");
  const char *map = sl_fuzz_path (map_name);

  if (perf_map)
    {
      sl_fuzz_write_file (map, data + 1, size - 1);
      sl_fuzz_write_file (elf, "", 0);
    }
  else
    {
      sl_fuzz_write_file (elf, data, size);
      sl_fuzz_write_file (map, "", 0);
    }

  SlSymbolizer *s = sl_symbolizer_new ();
  sl_symbolizer_set_debug_root (s, NULL);
  /* the scratch folder: only this input's perf map is there */
  g_autofree char *dir = g_path_get_dirname (map);
  sl_symbolizer_set_perf_map_dir (s, dir);
  const uint64_t base = 0x400000, span = 1u << 24;
  if (!perf_map)
    sl_symbolizer_add_module (s, FUZZ_PID, base, base, base + span, elf);

  /* addresses: the mapping's edges, a spread across it, and some the input names */
  uint64_t addrs[48];
  size_t n = 0;
  addrs[n++] = 0;
  addrs[n++] = base;
  addrs[n++] = base + span - 1;
  addrs[n++] = base + span;
  addrs[n++] = UINT64_MAX;
  for (int i = 0; i < 19; i++)
    addrs[n++] = base + (span / 19) * (uint64_t) i + 0x10;
  for (size_t off = 0; off + 8 <= size && n < sizeof addrs / sizeof addrs[0]; off += size / 24 + 8)
    {
      uint64_t a;
      memcpy (&a, data + off, 8);
      addrs[n++] = a % 2 == 0 ? base + a % span : a;
    }
  for (size_t i = 0; i < n; i++)
    {
      const char *symbol = NULL, *module = NULL;
      sl_symbolizer_lookup (s, FUZZ_PID, addrs[i], &symbol, &module);
      check_names (symbol, module);
      sl_symbolizer_lookup_frame (s, FUZZ_PID, addrs[i], i % 2 == 0, &symbol, &module);
      check_names (symbol, module);
    }
  sl_symbolizer_free (s);
  return 0;
}
